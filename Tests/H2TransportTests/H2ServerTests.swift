import Foundation
import H2Transport
import Synchronization
import Testing

@Suite("H2Server over real TLS sockets")
struct H2ServerTests {
    @Test func handshakeWithALPNH2IsServedAsHTTP2() async throws {
        let handler = RecordingHandler()
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let response = try await connection.send(pushRequest(port: port))
            #expect(response.status == 200)
            #expect(handler.requests.first?.alpn == "h2")
        }
    }

    @Test func clientOfferingNoALPNIsStillServedHTTP2() async throws {
        let handler = RecordingHandler()
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient(alpn: [])
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let response = try await connection.send(pushRequest(port: port))
            #expect(response.status == 200)
            #expect(handler.requests.count == 1)
            #expect(handler.requests.first?.alpn == nil)
        }
    }

    @Test func serverNameAndAuthorityReachTheHandler() async throws {
        let handler = RecordingHandler()
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let sandbox = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.sandbox.push.apple.com")
            _ = try await sandbox.send(pushRequest(port: port, authority: "api.sandbox.push.apple.com"))
            let byIP = try await client.connect(host: "127.0.0.1", port: port, serverName: nil)
            _ = try await byIP.send(pushRequest(port: port, authority: "127.0.0.1"))
            let seen = handler.requests
            #expect(seen.count == 2)
            #expect(seen[0].serverName == "api.sandbox.push.apple.com")
            #expect(seen[0].authority == "api.sandbox.push.apple.com:\(port)")
            #expect(seen[1].serverName == nil)
            #expect(seen[1].authority == "127.0.0.1:\(port)")
        }
    }

    @Test func headersArriveInOrderWithDuplicatesPreserved() async throws {
        let handler = RecordingHandler()
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            _ = try await connection.send(pushRequest(port: port, headers: [
                H2Header("apns-topic", "com.example.app"), H2Header("apns-priority", "10"),
                H2Header("apns-topic", "com.example.other"),
            ]))
            let regular = handler.requests[0].headers.filter { !$0.name.hasPrefix(":") }
            #expect(regular.map(\.name) == ["apns-topic", "apns-priority", "apns-topic"])
            #expect(regular.filter { $0.name == "apns-topic" }.map(\.value) == ["com.example.app", "com.example.other"])
        }
    }

    @Test func clientCertificateIsSeenAndVerifiedByTheServer() async throws {
        let handler = RecordingHandler()
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient(clientCertificate: true)
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            _ = try await connection.send(pushRequest(port: port))
            let seen = try #require(handler.requests.first)
            let der = try #require(seen.peerCertificateDER)
            #expect(der == (try pemToDER(TestCertificates.clientCert)))
            #expect(seen.peerCertificateVerified)

            let anonymous = try makeClient()
            defer { anonymous.shutdown() }
            let plain = try await anonymous.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            _ = try await plain.send(pushRequest(port: port))
            #expect(handler.requests[1].peerCertificateDER == nil)
            #expect(!handler.requests[1].peerCertificateVerified)
        }
    }

    @Test func megabyteBodyPassesThroughFlowControlIntact() async throws {
        let body = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ ($0 >> 8)) }
        let handler = RecordingHandler { request, _, responder in
            // Echo the body back so flow control is exercised in both directions.
            responder.respond(H2Response(status: 200, body: request.body))
        }
        try await withTestServer(handler: handler, configure: { $0.maxRequestBodyBytes = 2 << 20 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let response = try await connection.send(pushRequest(port: port, body: body))
            #expect(response.status == 200)
            #expect(handler.requests.first?.bodyLength == body.count)
            #expect(handler.requests.first?.body == body)
            #expect(response.body == body)
        }
    }

    @Test func bodyOverTheLimitIsFlaggedNotBuffered() async throws {
        let handler = RecordingHandler { request, _, responder in
            responder.respond(H2Response(status: request.bodyExceededLimit ? 413 : 200))
        }
        try await withTestServer(handler: handler, configure: { $0.maxRequestBodyBytes = 4096 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let small = try await connection.send(pushRequest(port: port, body: [UInt8](repeating: 0x41, count: 4096)))
            let large = try await connection.send(pushRequest(port: port, body: [UInt8](repeating: 0x41, count: 4097)))
            #expect(small.status == 200)
            #expect(large.status == 413)
            let seen = handler.requests
            #expect(seen[1].bodyExceededLimit)
            #expect(seen[1].bodyLength == 4097)
            #expect(seen[1].body.isEmpty)
        }
    }

    @Test func handlerMayAnswerLaterFromAnotherThread() async throws {
        let handler = RecordingHandler { _, _, responder in
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                responder.respond(H2Response(status: 202, headers: [H2Header("x-late", "yes")], body: Array("later".utf8)))
            }
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let response = try await connection.send(pushRequest(port: port))
            #expect(response.status == 202)
            #expect(response["x-late"] == "yes")
            #expect(response.bodyText == "later")
        }
    }

    @Test func goAwayFromTheHandlerCarriesItsPayloadAndFinishesTheStream() async throws {
        let handler = RecordingHandler { _, connection, responder in
            responder.respond(H2Response(status: 503))
            connection.sendGoAway(errorCode: .noError, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let response = try await connection.send(pushRequest(port: port))
            #expect(response.status == 503)
            #expect(await eventually { connection.isClosed })
            let goAway = try #require(await connection.lastGoAway())
            #expect(goAway.errorCode == 0)
            #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"Shutdown"}"#)
        }
    }

    /// Requests that arrive with the one that prompted a GOAWAY, above the last stream id it names, are refused
    /// (REFUSED_STREAM), not handled: the client is entitled to send them again elsewhere, so handling them as
    /// well processed the same request twice.
    @Test func requestsAboveAGoAwaysLastStreamAreRefusedNotHandled() async throws {
        // Answered at once: the server then has nothing left and closes while the client may still be writing. The
        // socket lingers (reads are drained until the client's FIN), so no RST makes the client's kernel drop the
        // answer, the GOAWAY or the refusals (without it: "Broken pipe" on the client, every request failed).
        let handler = RecordingHandler { request, connection, responder in
            if request.path != "/first" { connection.sendGoAway() }
            responder.respond(H2Response(status: 200))
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let results = Mutex<[Result<H2Response, H2ClientError>]>([])
            // Submitted from a completion, which runs inside the client's read: nothing is written until the read
            // ends, so the 20 leave in one write and reach the server together.
            connection.send(H2Request(authority: "api.push.apple.com", path: "/first")) { _ in
                for i in 0..<20 {
                    connection.send(H2Request(authority: "api.push.apple.com", path: "/r\(i)")) { r in
                        results.withLock { $0.append(r) }
                    }
                }
            }
            #expect(await eventually { results.withLock { $0.count } == 20 })
            let all = results.withLock { $0 }
            let answered = all.filter { if case .success(let r) = $0 { r.status == 200 } else { false } }.count
            let refused = all.filter { $0 == .failure(.streamReset(H2ErrorCode.refusedStream.rawValue)) }.count
            #expect(answered + refused == 20, "\(all)")
            #expect(refused > 0)
            #expect(handler.requests.count == answered + 1, "only the answered requests were handled")
        }
    }

    /// A handler may close its connection while it handles a request: the close waits for the read to end (the
    /// request's stream, borrowed meanwhile, would otherwise be freed under it), the client sees the connection
    /// close, and the server goes on serving other connections.
    @Test func aHandlerClosingItsConnectionMidRequestClosesItWhenTheReadEnds() async throws {
        let handler = RecordingHandler { request, connection, responder in
            if request.path == "/close" { connection.closeNow(reset: false) }
            responder.respond(H2Response(status: 200))
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let doomed = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            var failed = false
            do { _ = try await doomed.send(H2Request(authority: "api.push.apple.com", path: "/close")) } catch { failed = true }
            #expect(failed, "the connection closed before the answer was written")
            #expect(await eventually { doomed.isClosed })
            let next = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            #expect(try await next.send(H2Request(authority: "api.push.apple.com", path: "/ok")).status == 200)
        }
    }

    @Test func settingsCanChangeOnALiveConnection() async throws {
        let handler = RecordingHandler { request, connection, responder in
            if request.path == "/throttle" {
                var s = connection.settings
                s.maxConcurrentStreams = 1
                connection.updateSettings(s)
            }
            responder.respond(H2Response(status: 200))
        }
        try await withTestServer(handler: handler, configure: { $0.settings.maxConcurrentStreams = 500 }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            _ = try await connection.send(pushRequest(port: port))
            #expect(await connection.remoteMaxConcurrentStreams() == 500)
            _ = try await connection.send(H2Request(authority: "api.push.apple.com", path: "/throttle"))
            _ = try await connection.send(pushRequest(port: port))
            #expect(await connection.remoteMaxConcurrentStreams() == 1)
        }
    }

    @Test func idleConnectionIsClosedWithGoAwayAfterTheIdleTimeout() async throws {
        try await withTestServer(configure: {
            $0.idleTimeout = .milliseconds(300)
            $0.idleGoAwayPayload = Array(#"{"reason":"IdleTimeout"}"#.utf8)
        }) { server, port in
            let client = try makeClient()
            defer { client.shutdown() }
            // The connection says nothing after its preface; no request races the timeout.
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            #expect(await eventually(timeout: 10) { connection.isClosed })
            let goAway = try #require(await connection.lastGoAway())
            #expect(goAway.errorCode == 0)
            #expect(String(decoding: goAway.debugData, as: UTF8.self) == #"{"reason":"IdleTimeout"}"#)
            #expect(await eventually { server.connectionCount == 0 })
        }
    }

    @Test func trafficPostponesTheIdleTimeout() async throws {
        // When each request reached the server: the idle timer runs on server time, so that is what decides
        // whether a run was conclusive (a starved test process can deliver a request much later than sent).
        let arrivals = Mutex<[Date]>([])
        let reasons = Mutex<[String]>([])
        let handler = RecordingHandler { _, _, responder in
            arrivals.withLock { $0.append(Date()) }
            responder.respond(H2Response(status: 200))
        }
        handler.onClose.withLock { $0 = { c in reasons.withLock { $0.append(c.closeDescription ?? "?") } } }
        try await withTestServer(handler: handler, configure: { $0.idleTimeout = .seconds(4) }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            // Requests every 0.6 s for ~5 s: longer than the timeout in total, never idle for its length.
            var conclusive = 0
            for _ in 0..<6 where conclusive == 0 {
                arrivals.withLock { $0.removeAll() }
                handler.lastOpenedAt.withLock { $0 = nil }
                let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
                // Server time again: the idle clock starts at the server's handshake, which (TLS 1.3) can finish
                // after the client's, and the test task may resume long after either on a loaded machine.
                _ = await eventually { handler.lastOpenedAt.withLock { $0 } != nil }
                let opened = handler.lastOpenedAt.withLock { $0 } ?? Date()
                var failed = false
                for _ in 0..<8 {
                    guard (try? await connection.send(pushRequest(port: port)))?.status == 200 else {
                        failed = true
                        break
                    }
                    try await Task.sleep(for: .milliseconds(600))
                }
                // A failure counts as the end of the last gap: a close that came soon after a request is a bug.
                let times = [opened] + arrivals.withLock { $0 } + (failed ? [Date()] : [])
                let longestGap = zip(times, times.dropFirst()).map { $1.timeIntervalSince($0) }.max() ?? 0
                if longestGap < 3 {
                    conclusive += 1
                    #expect(!failed && !connection.isClosed,
                            "closed although no request gap reached 3 s: \(reasons.withLock { $0 }) gaps \(zip(times, times.dropFirst()).map { $1.timeIntervalSince($0) })")
                }
                connection.close()
            }
            #expect(conclusive == 1, "every attempt was starved for 3 s or more")
        }
    }
}

/// The DER bytes of the first certificate in a PEM file.
func pemToDER(_ path: String) throws -> [UInt8] {
    let text = try String(contentsOfFile: path, encoding: .utf8)
    let lines = text.split(separator: "\n")
    guard let start = lines.firstIndex(where: { $0.hasPrefix("-----BEGIN CERTIFICATE") }),
          let end = lines[start...].firstIndex(where: { $0.hasPrefix("-----END CERTIFICATE") }) else { return [] }
    let base64 = lines[(start + 1)..<end].joined()
    return Array(Data(base64Encoded: base64) ?? Data())
}
