import APNsEmulator
import H2Transport

/// `--transport-only`: 200 with the emulator's version header, nothing else. It exists so `bench/transport.sh`
/// can compare the TLS + HTTP/2 layer alone with nghttpd's static 200; it is never the default.
struct StaticResponseHandler: H2ServerHandler {
    private let response = H2Response(status: 200, headers: [H2Header(EmulatorVersion.headerName, EmulatorVersion.current)])

    func handleRequest(_ request: H2Request, state: Void, context: borrowing H2RequestContext) {
        context.responder.respond(response)
    }
}
