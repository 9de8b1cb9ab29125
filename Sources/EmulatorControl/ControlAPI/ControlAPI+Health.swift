import APNsEmulator
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

    /// `GET /endpoints` → the ready-file JSON (APNs URLs, control URL, CA path), so a tool given only the
    /// control URL (`apns-emulator test --emulator URL`) finds the rest; 503 before the listeners are up.
    func endpoints(_ request: ControlRequest) throws -> HTTP1Response {
        guard let endpoints = services.endpoints.withLock({ $0 }) else {
            throw ControlAPIError.unavailable("the APNs listeners are not started yet")
        }
        return ControlAPIResponse.bytes(Array(endpoints.readyJSON.utf8))
    }
}
