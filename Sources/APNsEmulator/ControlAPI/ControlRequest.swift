import H2Transport

/// A routed control request: the HTTP request plus the path parameters its route captured.
struct ControlRequest {
    var http: HTTP1Request
    var parameters: [String: String]

    /// A captured path parameter (the router guarantees every `{name}` of the route is present).
    func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// The body as a strict JSON object reader.
    func body() throws(ControlAPIError) -> JSONBodyReader {
        try JSONBodyReader.parse(http.body)
    }

    /// The query arguments as a strict reader.
    var query: QueryReader { QueryReader(http.query) }

    /// Refuses any body field: for endpoints that take no input (`POST /reset`) yet should not ignore one.
    func expectEmptyBody() throws(ControlAPIError) {
        try body().finish()
    }
}
