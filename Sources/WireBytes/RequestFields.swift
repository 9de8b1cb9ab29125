/// A request's header fields as the provider API's rules read them: wire order, duplicates kept,
/// pseudo-headers included, names lowercase (HTTP/2 requires it), values read as bytes in place.
///
/// The transport's header list conforms; validation is written against this view so it needs no transport.
public protocol RequestFields {
    /// Fields, pseudo-headers included.
    var count: Int { get }
    /// The first `:method` and `:path` fields, if any.
    var methodIndex: Int? { get }
    var pathIndex: Int? { get }
    /// The first `:authority` field, if any.
    var authorityIndex: Int? { get }
    /// False when no regular field name can occur twice; true when one might (names must then be compared).
    var mayRepeatRegularName: Bool { get }
    /// Whether field `index` is a pseudo-header (its name starts with ':').
    func isPseudo(at index: Int) -> Bool
    func nameLength(at index: Int) -> Int
    /// Whether field `index` is named exactly `name`.
    func nameEquals(at index: Int, _ name: StaticString) -> Bool
    /// Whether fields `a` and `b` have the same name.
    func namesEqual(_ a: Int, _ b: Int) -> Bool
    /// Whether field `index` has exactly the value `value`.
    func valueEquals(at index: Int, _ value: StaticString) -> Bool
    /// Calls `body` with the value bytes of field `index`, without copying them.
    func withValue<R>(at index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R
    func name(at index: Int) -> String
    func value(at index: Int) -> String
    /// The index of the first field named `name`, if any.
    func firstIndex(of name: StaticString) -> Int?
}

/// A complete request as the layers above the transport read it: its fields and its body.
public protocol RequestMessage {
    associatedtype Fields: RequestFields
    var headers: Fields { get }
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
