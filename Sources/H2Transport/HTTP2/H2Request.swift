import WireBytes

/// An HTTP/2 request as Swift values: what a server handler receives and what the client sends.
public struct H2Request: Sendable, RequestMessage {
    /// All fields in wire order including pseudo-headers (`:method`, `:scheme`, `:authority`, `:path`).
    public var headers: H2HeaderList
    /// The body, up to the server's limit (see `bodyExceededLimit`).
    public var body: [UInt8]
    /// The body's real length, which exceeds `body.count` when the limit was crossed.
    public var bodyLength: Int
    /// True when the peer sent more than the server buffers: the body was discarded past the limit and the
    /// application decides the answer (APNs says 413 PayloadTooLarge).
    public var bodyExceededLimit: Bool
    /// The HTTP/2 stream that carried it (server side), or 0 before sending (client side).
    public var streamID: Int32

    public init(headers: H2HeaderList, body: [UInt8] = [], streamID: Int32 = 0) {
        self.headers = headers
        self.body = body
        self.bodyLength = body.count
        self.bodyExceededLimit = false
        self.streamID = streamID
    }

    /// A client request; pseudo-headers come first as HTTP/2 requires.
    public init(
        method: String = "POST", scheme: String = "https", authority: String, path: String,
        headers: [H2Header] = [], body: [UInt8] = []
    ) {
        var list = H2HeaderList()
        list.append(name: ":method", value: method)
        list.append(name: ":scheme", value: scheme)
        list.append(name: ":authority", value: authority)
        list.append(name: ":path", value: path)
        for h in headers { list.append(name: h.name.lowercased(), value: h.value) }
        self.init(headers: list, body: body)
    }

    public var scheme: String? { headers.firstIndex(of: ":scheme").map { headers.value(at: $0) } }
    /// `:authority`, or `host` for clients (aioapns) that send that instead.
    public var authority: String? {
        (headers.authorityIndex ?? headers.firstIndex(of: "host")).map { headers.value(at: $0) }
    }
}
