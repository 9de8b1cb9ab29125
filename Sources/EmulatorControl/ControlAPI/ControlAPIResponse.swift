import APNsEmulator
import Foundation
import H2Transport

/// Builds every control response, so the headers are the same on all of them.
///
/// Each response carries `x-apns-emulator: <version>` (a client can tell the emulator from anything else
/// on the port, as LocalStack's `x-localstack`), `content-type: application/json` (204s too, though they
/// have no body, so a client checking the header never special-cases them) and `cache-control: no-store`
/// (the state changes under a cache's feet).
package enum ControlAPIResponse {
    package static let commonHeaders = [
        H2Header("content-type", "application/json"),
        H2Header(EmulatorVersion.headerName, EmulatorVersion.current),
        H2Header("cache-control", "no-store"),
    ]

    /// `value` encoded as JSON with `status`.
    package static func json<T: Encodable>(_ value: T, status: Int = 200, headers: [H2Header] = []) throws -> HTTP1Response {
        let encoder = JSONEncoder()
        // PEM and paths read better unescaped. Keys are sorted because Foundation on Linux does not keep a
        // model's order from one run to the next: sorted output is byte-stable for diffs and snapshots.
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let body: Data
        do {
            body = try encoder.encode(value)
        } catch {
            throw ControlAPIError.internalFailure("could not encode the response: \(error)")
        }
        return bytes(Array(body), status: status, headers: headers)
    }

    /// `{"<key>": value}`, the shape of every listing (`{"keys": [...]}`) and small answer (`{"count": 3}`).
    package static func json<T: Encodable>(_ key: String, _ value: T, status: Int = 200) throws -> HTTP1Response {
        try json(Wrapped(key: key, value: value), status: status)
    }

    /// 204 with no body.
    package static func noContent() -> HTTP1Response {
        HTTP1Response(status: 204, headers: commonHeaders)
    }

    /// Already-encoded JSON.
    package static func bytes(_ body: [UInt8], status: Int = 200, headers: [H2Header] = []) -> HTTP1Response {
        HTTP1Response(status: status, headers: commonHeaders + headers, body: body)
    }

    /// The response for a refused request: its status, its `{"error": …}` body, and `allow` on a 405 or
    /// `www-authenticate` on a 401 (RFC 9110 §15.5.6 and §11.6.1 require them).
    package static func error(_ error: ControlAPIError) -> HTTP1Response {
        var headers: [H2Header] = []
        switch error {
        case .methodNotAllowed(_, _, let allow): headers.append(H2Header("allow", allow.joined(separator: ", ")))
        case .unauthorized: headers.append(H2Header("www-authenticate", #"Bearer realm="apns-emulator""#))
        default: break
        }
        if let response = try? json(error.body, status: error.status, headers: headers) { return response }
        return bytes(Array(#"{"error":"internal error"}"#.utf8), status: 500)
    }

    /// One value under a key chosen at run time.
    private struct Wrapped<Value: Encodable>: Encodable {
        var key: String
        var value: Value

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: Key.self)
            try c.encode(value, forKey: Key(stringValue: key))
        }
    }
}
