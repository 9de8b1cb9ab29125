import Dispatch
import Foundation
import H2Transport
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One control call to another replica (its advertised control URL), for reads merged across the cluster and
/// device calls made through any replica. Bounded in time; a peer's answer is bounded in size by its own API.
struct ClusterPeerCall {
    static let timeout: TimeInterval = 5

    var method: String
    var path: String
    var query: [(name: String, value: String)] = []
    var body: [UInt8] = []
    /// The caller's `Authorization` header (replicas share the control token).
    var authorization: String?

    enum Failure: Error, CustomStringConvertible {
        case badURL(String)
        case unreachable(String, String)
        var description: String {
            switch self {
            case .badURL(let url): return "bad control URL \(url)"
            case .unreachable(let url, let why): return "\(url) did not answer: \(why)"
            }
        }
    }

    private static let queryValueAllowed = CharacterSet.urlQueryAllowed.subtracting(CharacterSet(charactersIn: "+&=;#"))

    private static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryValueAllowed) ?? text
    }

    /// The peer's status, content type and body; waits at most `timeout` seconds.
    func send(to base: String) throws(Failure) -> (status: Int, contentType: String?, body: [UInt8]) {
        // Setting `path` percent-encodes it (ids as the caller's decoded path gave them).
        guard var components = URLComponents(string: base) else { throw .badURL(base + path) }
        components.path = path
        if !query.isEmpty {
            // `queryItems` leaves `+` as is, which the peer reads as a space.
            components.percentEncodedQuery = query.map { Self.encode($0.name) + "=" + Self.encode($0.value) }
                .joined(separator: "&")
        }
        guard let url = components.url else { throw .badURL(base + path) }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: Self.timeout)
        request.httpMethod = method
        if !body.isEmpty {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "content-type")
        }
        if let authorization { request.setValue(authorization, forHTTPHeaderField: "authorization") }
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<(Int, String?, [UInt8]), Failure>?>(nil)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            let http = response as? HTTPURLResponse
            let outcome: Result<(Int, String?, [UInt8]), Failure> = if let http, error == nil {
                .success((http.statusCode, http.value(forHTTPHeaderField: "content-type"), Array(data ?? Data())))
            } else {
                .failure(.unreachable(base, error.map { "\($0.localizedDescription)" } ?? "no answer"))
            }
            result.withLock { $0 = outcome }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + Self.timeout + 1) == .timedOut {
            task.cancel()
            throw .unreachable(base, "no answer within \(Int(Self.timeout)) s")
        }
        switch result.withLock({ $0 }) {
        case .success(let (status, type, body)): return (status, type, body)
        case .failure(let failure): throw failure
        case nil: throw .unreachable(base, "no answer")
        }
    }
}
