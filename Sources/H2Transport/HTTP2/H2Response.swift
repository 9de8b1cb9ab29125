/// An HTTP/2 response.
///
/// Its fields are kept as bytes (`H2HeaderList`), as a request's are: a server answering every push builds
/// them into a list it reuses and the transport hands nghttp2 pointers into it, where a list of `H2Header`
/// values had every name and value String copied (a retain and a release each) on its way to the encoder.
/// `headers` gives and takes them as Swift values, for code that is not on that path.
public struct H2Response: Sendable, Equatable {
    public var status: Int
    /// Regular fields in order (no pseudo-headers; `:status` comes from `status`).
    public var fields: H2HeaderList
    public var body: [UInt8]

    public init(status: Int, headers: [H2Header] = [], body: [UInt8] = []) {
        self.status = status
        self.fields = H2HeaderList(headers)
        self.body = body
    }

    public init(status: Int, fields: H2HeaderList, body: [UInt8] = []) {
        self.status = status
        self.fields = fields
        self.body = body
    }

    /// The fields as values (built on each read; setting replaces them all).
    public var headers: [H2Header] {
        get { Array(fields) }
        set { fields = H2HeaderList(newValue) }
    }

    /// The first value of `name` (case-insensitive).
    public subscript(name: String) -> String? { fields[name] }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
