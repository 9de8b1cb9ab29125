import H2Transport

/// Answers every APNs request with one configured status until the provider-API handler replaces it.
///
/// It still behaves like APNs where that costs nothing: it echoes `apns-id` (clients such as aioapns match
/// responses by it) and names the emulator version in every response.
struct PlaceholderHandler: H2ServerHandler {
    let status: Int
    let versionHeader: H2Header

    func handleRequest(_ request: H2Request, connection: H2ServerConnection, responder: H2Responder) {
        var headers = [versionHeader]
        if let i = request.headers.firstIndex(of: "apns-id") {
            headers.append(H2Header("apns-id", request.headers.value(at: i)))
        }
        responder.respond(H2Response(status: status, headers: headers))
    }
}
