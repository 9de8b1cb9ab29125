import APNsEmulator
import EmulatorControl
import Foundation
import H2Transport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the runner reaches an emulator's control API: in-process (the handler itself, no socket) or
/// over HTTP (`--emulator URL`, an emulator someone else started).
public protocol ControlClient: Sendable {
    func request(_ method: String, _ path: String, query: [(name: String, value: String)], body: [UInt8]?) async throws
        -> (status: Int, body: [UInt8])
}

extension ControlClient {
    /// A request whose answer must be JSON with `expected` status; anything else is a `RunnerError`.
    func json(_ method: String, _ path: String, query: [(name: String, value: String)] = [], body: [UInt8]? = nil,
              expecting expected: Set<Int> = [200, 201]) async throws -> Any {
        let (status, bytes) = try await request(method, path, query: query, body: body)
        let value = bytes.isEmpty ? nil : try? JSONSerialization.jsonObject(with: Data(bytes), options: [.fragmentsAllowed])
        guard expected.contains(status) else {
            let message = ((value as? [String: Any])?["error"] as? String) ?? String(decoding: bytes, as: UTF8.self)
            throw RunnerError("\(method) \(path) answered \(status): \(message)")
        }
        return value ?? NSNull()
    }

    func object(_ method: String, _ path: String, query: [(name: String, value: String)] = [], body: [UInt8]? = nil)
        async throws -> [String: Any]
    {
        (try await json(method, path, query: query, body: body) as? [String: Any]) ?? [:]
    }
}

/// A failure of the runner's own machinery (the emulator refused a setup request, a connection broke),
/// reported at the step that hit it.
public struct RunnerError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The control API of an emulator in this process, called directly.
struct InProcessControl: ControlClient {
    let api: ControlAPI

    func request(_ method: String, _ path: String, query: [(name: String, value: String)], body: [UInt8]?) async throws
        -> (status: Int, body: [UInt8])
    {
        let response = api.handle(HTTP1Request(method: method, path: path, query: query, body: body ?? []))
        return (response.status, response.body)
    }
}

/// The control API of a running emulator, over HTTP/1.1.
struct HTTPControl: ControlClient {
    let base: String
    let token: String?

    func request(_ method: String, _ path: String, query: [(name: String, value: String)], body: [UInt8]?) async throws
        -> (status: Int, body: [UInt8])
    {
        guard var components = URLComponents(string: base + path) else { throw RunnerError("bad control URL \(base + path)") }
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.name, value: $0.value) } }
        guard let url = components.url else { throw RunnerError("bad control URL \(base + path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 30
        if let body { request.httpBody = Data(body) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, Array(data))
    }
}
