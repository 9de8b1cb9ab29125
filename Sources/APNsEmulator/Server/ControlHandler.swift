import Foundation
import H2Transport

/// The first control handler: health only. Superseded by `ControlAPI(services:controlToken:)`
/// (`ControlAPI/`), which serves the whole control API; delete this once `Emulator` constructs that.
struct ControlHandler: HTTP1Handler {
    func handle(_ request: HTTP1Request) -> HTTP1Response {
        switch (request.method, request.path) {
        case ("GET", "/_emulator/health"):
            return Self.json(200, #"{"status":"ok"}"#)
        default:
            return Self.json(404, #"{"error":"no such control endpoint: \#(request.method) \#(request.path)"}"#)
        }
    }

    static func json(_ status: Int, _ body: String) -> HTTP1Response {
        HTTP1Response(status: status, headers: [
            H2Header("content-type", "application/json"),
            H2Header(EmulatorVersion.headerName, EmulatorVersion.current),
        ], body: Array(body.utf8))
    }
}
