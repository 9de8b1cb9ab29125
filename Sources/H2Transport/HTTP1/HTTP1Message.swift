/// A plain HTTP/1.1 request as received by `HTTP1Server` (the control API's transport).
public struct HTTP1Request: Sendable {
    public var method: String
    /// The path without the query string, percent-decoded by libmicrohttpd.
    public var path: String
    /// Query arguments in order, decoded.
    public var query: [(name: String, value: String)]
    /// Header fields (names as sent).
    public var headers: [H2Header]
    public var body: [UInt8]
    /// True when the body was larger than the server accepts (it was discarded).
    public var bodyExceededLimit: Bool

    public init(method: String, path: String, query: [(name: String, value: String)] = [], headers: [H2Header] = [],
                body: [UInt8] = [], bodyExceededLimit: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyExceededLimit = bodyExceededLimit
    }

    /// The first value of a header (case-insensitive).
    public func header(_ name: String) -> String? {
        let lower = name.lowercased()
        return headers.first { $0.name.lowercased() == lower }?.value
    }

    /// The first value of a query argument.
    public func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// The answer to an `HTTP1Request`.
public struct HTTP1Response: Sendable {
    public var status: Int
    public var headers: [H2Header]
    public var body: [UInt8]

    public init(status: Int, headers: [H2Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Answers control requests; runs on libmicrohttpd's threads, so it must be thread-safe.
public protocol HTTP1Handler: Sendable {
    func handle(_ request: HTTP1Request) -> HTTP1Response
    /// Whether answering `request` may wait (a long-poll, a barrier): such a request is answered off the server's
    /// polling threads, its connection suspended meanwhile, so the other connections of that thread go on.
    func waits(_ request: HTTP1Request) -> Bool
}

extension HTTP1Handler {
    public func waits(_ request: HTTP1Request) -> Bool { false }
}
