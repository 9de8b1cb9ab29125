import Foundation
import H2Transport
import SpawnedProcess
import Synchronization
import Testing

/// `H2Client.connect` returns once the server's SETTINGS (its connection preface) have arrived.
@Suite("H2Client waits for the server's SETTINGS")
struct H2ClientPrefaceTests {
    /// Requests sent the moment `connect` returns already keep to the server's stream limit: sent before its
    /// SETTINGS arrived, those beyond the limit were refused (REFUSED_STREAM), and a load generator counted them
    /// as errors.
    @Test func requestsSentRightAfterConnectKeepToTheServersStreamLimit() async throws {
        let open = Atomic<Int>(0), highest = Atomic<Int>(0)
        let handler = RecordingHandler { request, _, responder in
            let now = open.wrappingAdd(1, ordering: .relaxed).newValue
            if now > highest.load(ordering: .relaxed) { highest.store(now, ordering: .relaxed) }
            var headers: [H2Header] = []
            if let i = request.headers.firstIndex(of: "x-index") { headers.append(H2Header("x-index", request.headers.value(at: i))) }
            let response = H2Response(status: 200, headers: headers)
            responder.eventLoop.schedule(after: .milliseconds(20)) {
                open.wrappingSubtract(1, ordering: .relaxed)
                responder.respond(response)
            }
        }
        try await withTestServer(handler: handler, configure: { $0.settings.maxConcurrentStreams = 3 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            #expect(await connection.remoteMaxConcurrentStreams() == 3)
            let statuses = await H2ClientTests().fire(12, on: connection, port: port)
            #expect(statuses == Array(repeating: 200, count: 12), "none refused")
            #expect(highest.load(ordering: .relaxed) <= 3)
        }
    }

    /// A TLS server that negotiates h2 but never speaks it fails the connect with a reason, in time.
    @Test func aServerThatSendsNoSettingsFailsTheConnect() async throws {
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("silent-h2-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: portFile) }
        let script = """
            import socket, ssl, sys, time
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            ctx.load_cert_chain(sys.argv[1], sys.argv[2])
            ctx.set_alpn_protocols(["h2"])
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            s.listen(1)
            open(sys.argv[3] + ".tmp", "w").write(str(s.getsockname()[1]))
            __import__("os").rename(sys.argv[3] + ".tmp", sys.argv[3])
            c, _ = s.accept()
            t = ctx.wrap_socket(c, server_side=True)
            time.sleep(10)
            """
        let process = SpawnedProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, TestCertificates.serverChain, TestCertificates.serverKey, portFile]
        try process.run()
        defer {
            process.terminate()
            process.waitUntilExit()
        }
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(25)) }
        }
        let listening = try #require(port, "the silent server started")
        let client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: TestCertificates.ca),
                                  serverSettingsTimeout: .milliseconds(300))
        defer { client.shutdown() }
        await #expect {
            _ = try await client.connect(host: "127.0.0.1", port: listening, serverName: "api.push.apple.com")
        } throws: { error in
            guard case .connectFailed(let reason) = error as? H2ClientError else { return false }
            return reason.contains("sent no HTTP/2 SETTINGS")
        }
    }
}
