import H2Transport

/// `/_emulator/health` and `/_emulator/openapi.json`: liveness and the API's own description.
extension ControlAPI {
    /// `GET /health` → `{"status":"ok"}`, exactly (Docker's `HEALTHCHECK` and scripts compare it). Needs no
    /// control token: a health check should not need a secret.
    func health(_ request: ControlRequest) -> HTTP1Response {
        ControlAPIResponse.bytes(Array(#"{"status":"ok"}"#.utf8))
    }

    /// `GET /openapi.json` → the OpenAPI 3.0 document describing every endpoint.
    func openAPI(_ request: ControlRequest) -> HTTP1Response {
        ControlAPIResponse.bytes(document)
    }
}
