import Foundation
import H2Transport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A blocking loopback TCP client for sending bytes no well-behaved client would.
struct RawSocket: Sendable {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = UInt16(port).bigEndian
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else { throw IOError(errno: errno, function: "connect") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Reads until the server closes (true) or the 10 s receive timeout passes (false).
    func serverCloses() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n == 0 { return true }
            if n < 0 { return errno == ECONNRESET }
        }
    }

    func close() { Glibc.close(fd) }

    /// `serverCloses` off the cooperative pool.
    func serverClosesAsync() async -> Bool {
        let socket = self
        return await blocking { socket.serverCloses() }
    }
}

@Suite("Hostile and broken peers")
struct HostileInputTests {
    /// After each bad peer the server must still serve a good client.
    func assertStillServing(port: Int) async throws {
        let client = try makeClient()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
        let response = try await connection.send(pushRequest(port: port))
        #expect(response.status == 200)
        connection.close()
    }

    @Test func garbageBytesAreClosedAndOthersStillServed() async throws {
        try await withTestServer { server, port in
            let raw = try RawSocket(port: port)
            defer { raw.close() }
            raw.send((0..<2048).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
            #expect(await raw.serverClosesAsync())
            try await assertStillServing(port: port)
            #expect(await eventually { server.connectionCount == 0 })
        }
    }

    @Test func plaintextHTTP1RequestOnTheTLSPortIsClosed() async throws {
        try await withTestServer { _, port in
            let raw = try RawSocket(port: port)
            defer { raw.close() }
            raw.send(Array("GET /3/device/00 HTTP/1.1\r\nHost: api.push.apple.com\r\n\r\n".utf8))
            #expect(await raw.serverClosesAsync())
            try await assertStillServing(port: port)
        }
    }

    @Test func http1OverTLSIsRefusedCleanly() async throws {
        try await withTestServer { _, port in
            let result = try await runProcess("/usr/bin/curl", [
                "--silent", "--http1.1", "--cacert", TestCertificates.ca,
                "--resolve", "api.push.apple.com:\(port):127.0.0.1", "--max-time", "5",
                "https://api.push.apple.com:\(port)/3/device/00",
            ])
            // The server speaks only HTTP/2: curl sees the connection end, not an HTTP/1.1 answer.
            #expect(result.status != 0)
            try await assertStillServing(port: port)
        }
    }

    @Test func handshakeCutInTheMiddleIsCleanedUp() async throws {
        try await withTestServer { server, port in
            // A real ClientHello from Python's TLS stack, then the socket closes before the handshake ends.
            let script = """
            import socket, ssl
            ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
            inc, out = ssl.MemoryBIO(), ssl.MemoryBIO()
            obj = ctx.wrap_bio(inc, out, server_hostname="api.push.apple.com")
            try: obj.do_handshake()
            except ssl.SSLWantReadError: pass
            s = socket.create_connection(("127.0.0.1", \(port))); s.sendall(out.read())
            s.settimeout(5); data = s.recv(65536)
            print("server-hello-bytes", len(data)); s.close()
            """
            let result = try await runProcess("/usr/bin/python3", ["-c", script])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("server-hello-bytes"))
            #expect(!result.output.contains("server-hello-bytes 0"))
            #expect(await eventually { server.connectionCount == 0 })
            try await assertStillServing(port: port)
        }
    }

    @Test func silentClientIsClosedAfterTheHandshakeTimeout() async throws {
        // One second, not less: the check that the server still serves makes a handshake of its own under the
        // same timeout, and under ThreadSanitizer a handshake can take several hundred milliseconds.
        try await withTestServer(configure: { $0.handshakeTimeout = .seconds(1) }) { server, port in
            let raw = try RawSocket(port: port)
            defer { raw.close() }
            let start = Date()
            // Closed (a hang would hit the socket's 10 s receive timeout and read false), and by the
            // timeout rather than at once. No upper bound on wall time: a loaded CI box can be slow to
            // schedule this thread, which says nothing about the server.
            #expect(await raw.serverClosesAsync())
            #expect(Date().timeIntervalSince(start) >= 0.9)
            #expect(await eventually { server.connectionCount == 0 })
            try await assertStillServing(port: port)
        }
    }

    @Test func clientVanishingWithStreamsInFlightLeaksNothing() async throws {
        let handler = RecordingHandler { _, _, responder in
            responder.eventLoop.schedule(after: .milliseconds(100)) { responder.respond(H2Response(status: 200)) }
        }
        try await withTestServer(handler: handler) { server, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            for _ in 0..<50 { connection.send(pushRequest(port: port)) { _ in } }
            #expect(await eventually { handler.requests.count == 50 })
            connection.abort(reset: true)
            #expect(await eventually { server.connectionCount == 0 })
            #expect(await eventually { handler.closed.load(ordering: .relaxed) == 1 })
            // The late answers find no connection and are dropped without harm.
            try await Task.sleep(for: .milliseconds(200))
            try await assertStillServing(port: port)
        }
    }

    @Test func invalidHTTP2PrefaceAfterTLSGetsGoAwayAndClose() async throws {
        try await withTestServer { server, port in
            let script = """
            import socket, ssl
            ctx = ssl.create_default_context(); ctx.check_hostname = False; ctx.verify_mode = ssl.CERT_NONE
            ctx.set_alpn_protocols(["h2"])
            s = ctx.wrap_socket(socket.create_connection(("127.0.0.1", \(port))), server_hostname="api.push.apple.com")
            s.sendall(b"PRI * HTTP/1.1\\r\\n\\r\\nXX\\r\\n\\r\\n" + b"\\x00" * 64)
            s.settimeout(5)
            total = b""
            try:
                while True:
                    d = s.recv(65536)
                    if not d: break
                    total += d
            except (ConnectionResetError, ssl.SSLError):
                pass
            print("closed", len(total))
            """
            let result = try await runProcess("/usr/bin/python3", ["-c", script])
            #expect(result.status == 0, "\(result.output)")
            #expect(result.output.contains("closed"))
            #expect(await eventually { server.connectionCount == 0 })
            try await assertStillServing(port: port)
        }
    }
}
