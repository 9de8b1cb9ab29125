import Foundation
import H2Transport
import SpawnedProcess
import Synchronization
import Testing

/// The bundled development certificates (`certs/` at the package root).
enum TestCertificates {
    static let directory: String = {
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("certs").path
    }()
    static var ca: String { directory + "/ca.pem" }
    static var serverChain: String { directory + "/server.pem" }
    static var serverKey: String { directory + "/server-key.pem" }
    static var clientCert: String { directory + "/client-sandbox.pem" }
    static var clientKey: String { directory + "/client-sandbox-key.pem" }
}

/// What the test server saw of one request.
struct SeenRequest: Sendable {
    var method: String?
    var path: String?
    var authority: String?
    var serverName: String?
    var alpn: String?
    var peerCertificateDER: [UInt8]?
    var peerCertificateVerified: Bool
    var bodyLength: Int
    var bodyExceededLimit: Bool
    var body: [UInt8]
    var headers: [H2Header]
}

/// A handler built from a closure, recording every request it sees.
final class RecordingHandler: H2ServerHandler {
    typealias Respond = @Sendable (H2Request, H2ServerConnection, H2Responder) -> Void
    let seen = Mutex<[SeenRequest]>([])
    let opened = Atomic<Int>(0)
    let closed = Atomic<Int>(0)
    private let respond: Respond
    /// Called with each connection as it closes (set before the server starts).
    let onClose = Mutex<(@Sendable (H2ServerConnection) -> Void)?>(nil)

    init(_ respond: @escaping Respond = { _, _, r in r.respond(H2Response(status: 200)) }) {
        self.respond = respond
    }

    /// When the last connection finished its handshake, server-side.
    let lastOpenedAt = Mutex<Date?>(nil)

    func connectionOpened(_ connection: H2ServerConnection) {
        opened.wrappingAdd(1, ordering: .relaxed)
        lastOpenedAt.withLock { $0 = Date() }
    }
    func connectionClosed(_ connection: H2ServerConnection, state: Void) {
        closed.wrappingAdd(1, ordering: .relaxed)
        onClose.withLock { $0 }?(connection)
    }

    func handleRequest(_ request: H2Request, state: Void, context: borrowing H2RequestContext) {
        let connection = context.connection
        let record = SeenRequest(
            method: request.method, path: request.path, authority: request.authority,
            serverName: connection.serverName, alpn: connection.alpnProtocol,
            peerCertificateDER: connection.peerCertificateDER,
            peerCertificateVerified: connection.peerCertificateVerified,
            bodyLength: request.bodyLength, bodyExceededLimit: request.bodyExceededLimit,
            body: request.body, headers: Array(request.headers))
        seen.withLock { $0.append(record) }
        respond(request, connection, context.responder)
    }

    var requests: [SeenRequest] { seen.withLock { $0 } }
}

/// Starts an H2Server on 127.0.0.1:0 for the duration of `body`.
func withTestServer<R>(
    handler: RecordingHandler = RecordingHandler(),
    configure: (inout H2ServerConfiguration) -> Void = { _ in },
    _ body: (H2Server, Int) async throws -> R
) async throws -> R {
    var config = H2ServerConfiguration(tls: TLSServerConfiguration(
        certificateChainFile: TestCertificates.serverChain, privateKeyFile: TestCertificates.serverKey,
        clientCertificateTrustFile: TestCertificates.ca))
    config.eventLoops = 2
    config.shutdownGracePeriod = .seconds(5)
    configure(&config)
    let server = try H2Server(configuration: config, handler: handler)
    let listeners = try server.start(listeners: [H2ListenerSpec(name: "production", host: "127.0.0.1", port: 0)])
    do {
        let result = try await body(server, listeners[0].address.port)
        await blocking { server.shutdown() }
        return result
    } catch {
        await blocking { server.shutdown() }
        throw error
    }
}

/// Runs blocking work (process waits, socket reads, shutdowns) on its own thread, so the two threads of
/// Swift's cooperative pool on a 2-core machine stay free for the tests that are awaiting.
func blocking<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
    let result: Result<T, E> = await withCheckedContinuation { cont in
        Thread.detachNewThread { cont.resume(returning: Result(catching: body)) }
    }
    return try result.get()
}

/// A client trusting the dev CA.
func makeClient(alpn: [String] = ["h2"], clientCertificate: Bool = false, eventLoops: Int = 1) throws -> H2Client {
    try H2Client(tls: TLSClientConfiguration(
        trustRootsFile: TestCertificates.ca,
        certificateChainFile: clientCertificate ? TestCertificates.clientCert : nil,
        privateKeyFile: clientCertificate ? TestCertificates.clientKey : nil,
        alpnProtocols: alpn), eventLoops: eventLoops)
}

/// A push-shaped request to the test server.
func pushRequest(port: Int, authority: String = "api.push.apple.com", body: [UInt8] = Array("{}".utf8),
                 headers: [H2Header] = []) -> H2Request {
    H2Request(authority: "\(authority):\(port)", path: "/3/device/" + String(repeating: "ab", count: 32),
              headers: headers, body: body)
}

/// Runs an external program off the cooperative pool and returns its exit status and combined output.
func runProcess(_ executable: String, _ arguments: [String], timeout: TimeInterval = 30) async throws
    -> (status: Int32, output: String)
{
    try await blocking { try runProcessBlocking(executable, arguments, timeout: timeout) }
}

private func runProcessBlocking(_ executable: String, _ arguments: [String], timeout: TimeInterval) throws
    -> (status: Int32, output: String)
{
    let process = SpawnedProcess()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning && Date() < deadline { usleep(10_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(timeout: TimeInterval = 5, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
