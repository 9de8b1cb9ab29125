import Foundation
import SpawnedProcess

/// One run of `scripts/test/aioapns_sender.py`: aioapns' `APNs` client sending `sends` to the emulator.
///
/// The fields mirror the script's JSON input (its docstring is the reference); encoding uses snake_case
/// keys as Python does.
struct AioapnsSender: Encodable {
    /// One `NotificationRequest`; nil fields are left to aioapns' defaults.
    struct Send: Encodable {
        var deviceToken: String
        var payload: [String: [String: String]] = ["aps": ["alert": "Hello from aioapns"]]
        var pushType: String? = "alert"
        var priority: Int? = 10
        /// aioapns generates a lowercase UUID when nil.
        var apnsId: String? = UUID().uuidString.lowercased()
        /// aioapns' only handle on apns-expiration: it sends now + this many seconds.
        var timeToLive: Int? = nil
    }

    /// What aioapns' `NotificationResult` said, or the exception it raised (`error`).
    struct Result: Decodable, Sendable {
        var isSuccessful: Bool?
        /// aioapns keeps the HTTP status as the string it read from `:status`.
        var status: String?
        /// The `reason` from the error body.
        var description: String?
        var notificationId: String?
        /// The 410 body's `timestamp` (ms), passed through untouched.
        var timestamp: Int64?
        var error: String?
    }

    /// What a run produced: one result per send, in order, plus the script's stderr (aioapns' log).
    struct Outcome: Sendable {
        var results: [Result]
        var output: SpawnedProcess.Completion
    }

    var host = "127.0.0.1"
    var port: Int
    var caPath = AioapnsPaths.ca.path
    var keyPath = AioapnsPaths.sampleKey.path
    var keyId = "DEVKEY1234"
    var teamId = "DEVTEAM123"
    var topic = "com.example.app"
    var useSandbox = false
    /// Sign the provider token with an `iat` two hours old (ExpiredProviderToken).
    var expiredJwt = false
    /// Send everything at once over aioapns' single connection instead of one after another.
    var concurrent = false
    /// Seconds the script waits for each answer before reporting an error for it.
    var timeout = 10
    var sends: [Send]

    /// Runs the script with the venv's interpreter; throws, with the whole transcript, unless it printed
    /// one result line per send.
    func run() async throws -> Outcome {
        let python = try await PythonVenv.aioapns.python()
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let json = String(decoding: try encoder.encode(self), as: UTF8.self)
        let output = try await SpawnedProcess.runToCompletion(
            python, [AioapnsPaths.sender.path, json], directory: AioapnsPaths.packageRoot,
            timeout: .seconds(timeout * sends.count + 30))
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let lines = output.stdout.split(separator: "\n").filter { $0.hasPrefix("{") }
        guard output.status == 0, lines.count == sends.count else {
            throw AioapnsSetupError(
                "aioapns_sender.py printed \(lines.count) result(s) for \(sends.count) send(s)\n" + output.transcript)
        }
        let results = try lines.map { try decoder.decode(Result.self, from: Data($0.utf8)) }
        return Outcome(results: results, output: output)
    }
}
