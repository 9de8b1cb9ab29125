import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One request to an emulator's control API (plain HTTP/1.1, through URLSession), for the commands that drive a
/// running emulator (`bench`, `send`'s token lookup).
enum ControlAPICall {
    /// The answer's status and its JSON object (empty when the body is not one); throws when nothing answered.
    static func send(_ method: String, _ url: URL, body: [String: Any]? = nil, token: String?,
                     timeout: TimeInterval) async throws -> (status: Int, object: [String: Any]) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        if let body { request.httpBody = try JSONSerialization.data(withJSONObject: body) }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0,
                (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
    }
}
