import APNsEmulator
import Foundation
import H2Transport
import Synchronization

/// A real HTTP/2-over-TLS server on 127.0.0.1 that records every request and answers with a canned response.
///
/// `send` is tested against it rather than only against the emulator, because here the test chooses the answer
/// (a 410 with a timestamp, an `apns-unique-id`) and can see exactly what went over the wire: repeated headers,
/// the SNI, whether a client certificate was presented.
final class StubAPNsServer: Sendable {
    /// One request as the server received it.
    struct Received: Sendable {
        var headers: [H2Header]
        var body: [UInt8]
        /// SNI from the TLS handshake.
        var serverName: String?
        /// Whether the client presented a certificate our CA signed.
        var clientCertificateVerified: Bool

        /// Every value of `name`, in order.
        func values(_ name: String) -> [String] {
            headers.filter { $0.name == name }.map(\.value)
        }
    }

    private final class Handler: H2ServerHandler {
        let response: H2Response
        let received = Mutex<[Received]>([])

        init(response: H2Response) {
            self.response = response
        }

        func handleRequest(_ request: H2Request, state: Void, context: borrowing H2RequestContext) {
            let connection = context.connection
            let entry = Received(
                headers: Array(request.headers),
                body: request.body,
                serverName: connection.serverName,
                clientCertificateVerified: connection.peerCertificateDER != nil && connection.peerCertificateVerified
            )
            received.withLock { $0.append(entry) }
            context.responder.respond(response)
        }
    }

    private let server: H2Server
    private let handler: Handler
    /// The bound port (the server listens on port 0).
    let port: Int

    /// Starts listening at once.
    ///
    /// - Parameters:
    ///   - certificates: A folder written by `DevCertificates.ensure`.
    ///   - response: What every request is answered with.
    init(certificates: URL, response: H2Response) throws {
        let ca = certificates.appendingPathComponent(DevCertificates.FileName.caCertificate).path
        var configuration = H2ServerConfiguration(
            tls: TLSServerConfiguration(
                certificateChainFile: certificates.appendingPathComponent(DevCertificates.FileName.serverChain).path,
                privateKeyFile: certificates.appendingPathComponent(DevCertificates.FileName.serverKey).path,
                clientCertificateTrustFile: ca
            )
        )
        configuration.eventLoops = 1
        configuration.shutdownGracePeriod = .milliseconds(100)
        handler = Handler(response: response)
        server = try H2Server(configuration: configuration, handler: handler)
        let listeners = try server.start(listeners: [H2ListenerSpec(name: "production", host: "127.0.0.1", port: 0)])
        port = listeners[0].address.port
    }

    /// Every request so far, in arrival order.
    var received: [Received] { handler.received.withLock { $0 } }

    /// `https://127.0.0.1:<port>`, for `send --url`.
    var url: String { "https://127.0.0.1:\(port)" }

    func shutdown() {
        server.shutdown()
    }
}

/// Writes a development certificate set into a fresh temporary folder, runs `body`, and removes the folder.
///
/// The set is written once per test; generating it takes milliseconds, and sharing it between parallel tests
/// would need a lock for little gain.
func withCertificates<T>(_ body: (URL) async throws -> T) async throws -> T {
    try await withTemporaryDirectory { directory in
        let certificates = directory.appendingPathComponent("certs")
        _ = try DevCertificates.ensure(in: certificates, force: false)
        return try await body(certificates)
    }
}

extension URL {
    /// A file in this certificates folder, as a path for the command line.
    func file(_ name: String) -> String {
        appendingPathComponent(name).path
    }
}
