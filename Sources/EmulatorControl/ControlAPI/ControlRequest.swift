import APNsEmulator
import H2Transport

/// A routed control request: the HTTP request plus the path parameters its route captured.
package struct ControlRequest {
    package var http: HTTP1Request
    package var parameters: [String: String]

    /// A captured path parameter (the router guarantees every `{name}` of the route is present).
    package func parameter(_ name: String) -> String {
        parameters[name] ?? ""
    }

    /// The body as a strict JSON object reader.
    package func body() throws(ControlAPIError) -> JSONBodyReader {
        try JSONBodyReader.parse(http.body)
    }

    /// The query arguments as a strict reader.
    package var query: QueryReader { QueryReader(http.query) }

    /// Refuses any body field: for endpoints that take no input (`POST /reset`) yet should not ignore one.
    package func expectEmptyBody() throws(ControlAPIError) {
        try body().finish()
    }
}
