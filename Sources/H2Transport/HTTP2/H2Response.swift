/// An HTTP/2 response as Swift values.
public struct H2Response: Sendable, Equatable {
    public var status: Int
    /// Regular fields in order (no pseudo-headers; `:status` comes from `status`).
    public var headers: [H2Header]
    public var body: [UInt8]

    public init(status: Int, headers: [H2Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of `name` (case-insensitive).
    public subscript(name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
