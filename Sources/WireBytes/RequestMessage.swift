/// A complete request as the layers above the transport read it: its fields and its body.
public protocol RequestMessage {
    var headers: HeaderFields { get }
    /// The body, up to the transport's limit (see `bodyExceededLimit`).
    var body: [UInt8] { get }
    /// The body's real length, which exceeds `body.count` when the limit was crossed.
    var bodyLength: Int { get }
    /// The peer sent more than the transport buffers: the body was discarded past the limit.
    var bodyExceededLimit: Bool { get }
}

extension RequestMessage {
    public var method: String? { headers.methodIndex.map { headers.value(at: $0) } }
    public var path: String? { headers.pathIndex.map { headers.value(at: $0) } }
}
