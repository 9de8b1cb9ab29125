import Foundation
import H2Transport
import SpawnedProcess
import Synchronization
import Testing

@Suite("H2Client multiplexing against H2Server", .timeLimit(.minutes(2)))
struct H2ClientTests {
    /// Sends `count` requests at once on `connection` and returns the statuses by request index.
    func fire(_ count: Int, on connection: H2ClientConnection, port: Int) async -> [Int] {
        let statuses = Mutex<[Int: Int]>([:])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let remaining = Atomic<Int>(count)
            for i in 0..<count {
                let request = pushRequest(port: port, headers: [H2Header("x-index", String(i))])
                connection.send(request) { result in
                    let status = (try? result.get().status) ?? -1
                    let index = (try? result.get()["x-index"]).flatMap { $0.flatMap { Int($0) } } ?? -i - 1
                    statuses.withLock { $0[index] = status }
                    if remaining.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.resume() }
                }
            }
        }
        return statuses.withLock { s in (0..<count).map { s[$0] ?? -1 } }
    }

    /// Echoes x-index so each response can be matched to its request.
    static let echoIndex = RecordingHandler { request, _, responder in
        var headers: [H2Header] = []
        if let i = request.headers.firstIndex(of: "x-index") { headers.append(H2Header("x-index", request.headers.value(at: i))) }
        responder.respond(H2Response(status: 200, headers: headers))
    }

    @Test func thousandConcurrentStreamsOnOneConnectionAllComplete() async throws {
        let handler = RecordingHandler { request, _, responder in
            // Hold every answer briefly so the streams really are concurrent.
            var headers: [H2Header] = []
            if let i = request.headers.firstIndex(of: "x-index") { headers.append(H2Header("x-index", request.headers.value(at: i))) }
            let response = H2Response(status: 200, headers: headers)
            responder.eventLoop.schedule(after: .milliseconds(20)) { responder.respond(response) }
        }
        try await withTestServer(handler: handler, configure: { $0.settings.maxConcurrentStreams = 1000 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let statuses = await fire(1000, on: connection, port: port)
            #expect(statuses == Array(repeating: 200, count: 1000))
            #expect(handler.requests.count == 1000)
        }
    }

    /// The connection's open streams rise with concurrent requests and fall back as each closes (answered late
    /// and out of order, so each is found by id rather than as the stream last seen): a request sent once all
    /// are done finds itself the only one open.
    @Test func openStreamCountRisesWithConcurrencyAndFallsBackAsStreamsClose() async throws {
        let highest = Atomic<Int>(0)
        let handler = RecordingHandler { request, connection, responder in
            let open = connection.openStreamCount
            if open > highest.load(ordering: .relaxed) { highest.store(open, ordering: .relaxed) }
            var headers = [H2Header("x-open", String(open))]
            if let i = request.headers.firstIndex(of: "x-index") { headers.append(H2Header("x-index", request.headers.value(at: i))) }
            let response = H2Response(status: 200, headers: headers)
            // Later requests answered first: streams close in an order unlike the one they opened in. Held long
            // enough that a client stalled on a loaded machine still has many open at once.
            let index = request.headers.firstIndex(of: "x-index").flatMap { Int(request.headers.value(at: $0)) } ?? 0
            responder.eventLoop.schedule(after: .milliseconds(Int64(250 - index % 50))) { responder.respond(response) }
        }
        try await withTestServer(handler: handler, configure: { $0.settings.maxConcurrentStreams = 500 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            // `connect` returned after the server's SETTINGS: the client knows the limit (before them it keeps to 100).
            #expect(await connection.remoteMaxConcurrentStreams() == 500)
            let statuses = await fire(400, on: connection, port: port)
            #expect(statuses == Array(repeating: 200, count: 400))
            #expect(highest.load(ordering: .relaxed) > 100)
            let alone = try await connection.send(pushRequest(port: port))
            #expect(alone["x-open"] == "1")
        }
    }

    /// A stream the server resets leaves the connection's open streams; an answer the handler gives it later is
    /// dropped, and the connection goes on serving.
    @Test func aResetStreamIsForgottenAndItsLateAnswerDropped() async throws {
        let handler = RecordingHandler { request, connection, responder in
            guard request.headers.firstIndex(of: "x-reset") != nil else {
                responder.respond(H2Response(status: 200, headers: [H2Header("x-open", String(connection.openStreamCount))]))
                return
            }
            responder.reset(.internalError)
            responder.eventLoop.schedule(after: .milliseconds(20)) { responder.respond(H2Response(status: 200)) }
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            for _ in 0..<3 {
                await #expect(throws: H2ClientError.streamReset(H2ErrorCode.internalError.rawValue)) {
                    _ = try await connection.send(pushRequest(port: port, headers: [H2Header("x-reset", "1")]))
                }
            }
            try await Task.sleep(for: .milliseconds(60))
            let after = try await connection.send(pushRequest(port: port))
            #expect(after.status == 200)
            #expect(after["x-open"] == "1")
        }
    }

    @Test func sixteenConnectionsWithConcurrentStreamsAllComplete() async throws {
        let handler = Self.echoIndex
        try await withTestServer(handler: handler) { server, port in
            let client = try makeClient(eventLoops: 2)
            defer { client.shutdown() }
            var connections: [H2ClientConnection] = []
            for _ in 0..<16 {
                connections.append(try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com"))
            }
            #expect(server.connectionCount == 16)
            let results = await withTaskGroup(of: [Int].self) { group in
                for c in connections { group.addTask { await self.fire(250, on: c, port: port) } }
                var all: [[Int]] = []
                for await r in group { all.append(r) }
                return all
            }
            #expect(results.count == 16)
            #expect(results.allSatisfy { $0 == Array(repeating: 200, count: 250) })
            for c in connections { c.close() }
            #expect(await eventually { server.connectionCount == 0 })
        }
    }

    @Test func requestsBeyondTheServersStreamLimitAreQueuedNotRefused() async throws {
        let handler = Self.echoIndex
        try await withTestServer(handler: handler, configure: { $0.settings.maxConcurrentStreams = 10 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            _ = try await connection.send(pushRequest(port: port))
            let statuses = await fire(300, on: connection, port: port)
            #expect(statuses == Array(repeating: 200, count: 300))
        }
    }

    /// The client writes fields straight from the request's header list: names go out lowercase (RFC 9113
    /// §8.2.1), pseudo-headers first; `:status` is read from its bytes, the other response fields as strings.
    @Test func namesGoOutLowercaseAndTheStatusComesBack() async throws {
        let handler = RecordingHandler { request, _, responder in
            let seen = request.headers.firstIndex(of: "x-mixed-case").map { request.headers.value(at: $0) } ?? "absent"
            let pseudoFirst = (0..<request.headers.count).map { request.headers.isPseudo(at: $0) }
            responder.respond(H2Response(status: 404, headers: [
                H2Header("x-seen", seen), H2Header("x-pseudo-first", pseudoFirst == pseudoFirst.sorted(by: { $0 && !$1 }) ? "yes" : "no"),
            ]))
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let response = try await connection.send(pushRequest(port: port, headers: [H2Header("X-Mixed-Case", "Value")]))
            #expect(response.status == 404)
            #expect(response["x-seen"] == "Value")
            #expect(response["x-pseudo-first"] == "yes")
            #expect(response.headers.allSatisfy { !$0.name.hasPrefix(":") })
        }
    }

    @Test func untrustedServerCertificateFailsTheConnect() async throws {
        try await withTestServer { _, port in
            let client = try H2Client(tls: TLSClientConfiguration(trustRootsFile: "/etc/ssl/certs/ca-certificates.crt"))
            defer { client.shutdown() }
            await #expect(throws: H2ClientError.self) {
                _ = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            }
        }
    }

    @Test func wrongServerNameFailsVerification() async throws {
        try await withTestServer { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            await #expect(throws: H2ClientError.self) {
                _ = try await client.connect(host: "127.0.0.1", port: port, serverName: "example.com")
            }
        }
    }

    @Test func connectToAClosedPortFails() async throws {
        let client = try makeClient()
        defer { client.shutdown() }
        await #expect(throws: H2ClientError.self) {
            _ = try await client.connect(host: "127.0.0.1", port: 1, serverName: "api.push.apple.com")
        }
    }

    @Test func refusedConnectSaysConnectFailedOnce() async throws {
        // Loopback may refuse inside connect(2) or after it (SO_ERROR); both paths must name the step once.
        let client = try makeClient()
        defer { client.shutdown() }
        let error = await #expect(throws: H2ClientError.self) {
            _ = try await client.connect(host: "127.0.0.1", port: 1, serverName: "api.push.apple.com")
        }
        let description = try #require(error).description
        #expect(description.components(separatedBy: "connect failed").count == 2, "\(description)")
        #expect(description.hasPrefix("connect failed: Connection refused"), "\(description)")
    }

    // MARK: connect waits for the server's SETTINGS

    /// Requests sent the moment `connect` returns already keep to the server's stream limit: sent before its
    /// SETTINGS arrived, those beyond the limit were refused (REFUSED_STREAM), and a load generator counted them
    /// as errors.
    @Test func requestsSentRightAfterConnectKeepToTheServersStreamLimit() async throws {
        let open = Atomic<Int>(0), highest = Atomic<Int>(0)
        let handler = RecordingHandler { request, _, responder in
            let now = open.wrappingAdd(1, ordering: .relaxed).newValue
            if now > highest.load(ordering: .relaxed) { highest.store(now, ordering: .relaxed) }
            var headers: [H2Header] = []
            if let i = request.headers.firstIndex(of: "x-index") {
                headers.append(H2Header("x-index", request.headers.value(at: i)))
            }
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
            // Fired at once, before anything else gives the server's SETTINGS time to arrive.
            let statuses = await fire(12, on: connection, port: port)
            #expect(statuses == Array(repeating: 200, count: 12), "none refused")
            #expect(await connection.remoteMaxConcurrentStreams() == 3)
            // (The server's nghttp2 refuses streams over its limit before the handler sees them, so `statuses`
            // is what catches a client that sent too many; this only shows the limit held.)
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
        // Signalled only while not yet reaped (its pid is ours until then), on every way out of the test.
        defer { if process.isRunning { process.terminate() } }
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
        if process.isRunning { process.terminate() }
        // Reaped off the cooperative pool (a blocking wait there stalls other tests on a 2-core machine).
        await blocking { process.waitUntilExit() }
    }
}
