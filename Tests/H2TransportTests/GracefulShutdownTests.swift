import Foundation
import H2Transport
import Synchronization
import Testing

@Suite("Graceful shutdown")
struct GracefulShutdownTests {
    @Test func streamsInFlightAllCompleteAndTheClientSeesGoAway() async throws {
        let handler = RecordingHandler { _, _, responder in
            responder.eventLoop.schedule(after: .milliseconds(300)) { responder.respond(H2Response(status: 200)) }
        }
        var config = H2ServerConfiguration(tls: TLSServerConfiguration(
            certificateChainFile: TestCertificates.serverChain, privateKeyFile: TestCertificates.serverKey))
        // Long enough that waiting it out cannot be mistaken for a slow shutdown on a loaded machine (the suite
        // runs in parallel on two cores; this span once took 4.7 s with a 5 s period).
        config.shutdownGracePeriod = .seconds(30)
        let server = try H2Server(configuration: config, handler: handler)
        let port = try server.start(listeners: [H2ListenerSpec(name: "p", host: "127.0.0.1", port: 0)])[0].address.port
        let client = try makeClient()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
        let results = Mutex<[Int]>([])
        for _ in 0..<200 {
            connection.send(pushRequest(port: port)) { r in results.withLock { $0.append((try? r.get().status) ?? -1) } }
        }
        #expect(await eventually { handler.requests.count == 200 })
        let shutdownDone = Atomic<Bool>(false)
        let started = Date()
        Thread.detachNewThread {
            server.shutdown()  // on its own thread: the test goes on awaiting responses meanwhile
            shutdownDone.store(true, ordering: .releasing)
        }
        #expect(await eventually(timeout: 5) { results.withLock { $0.count } == 200 })
        #expect(results.withLock { $0 } == Array(repeating: 200, count: 200))
        #expect(await eventually(timeout: 35) { shutdownDone.load(ordering: .acquiring) })
        #expect(Date().timeIntervalSince(started) < 20)  // the 30 s grace period was not waited out: shutdown ended when the streams did
        let goAway = await connection.lastGoAway()
        #expect(goAway?.errorCode == 0)
        // New connections are refused once shutdown began.
        await #expect(throws: H2ClientError.self) {
            _ = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
        }
    }

    @Test func shutdownClosesStragglersAfterTheGracePeriod() async throws {
        let handler = RecordingHandler { _, _, _ in /* never answers */ }
        var config = H2ServerConfiguration(tls: TLSServerConfiguration(
            certificateChainFile: TestCertificates.serverChain, privateKeyFile: TestCertificates.serverKey))
        config.shutdownGracePeriod = .milliseconds(300)
        let server = try H2Server(configuration: config, handler: handler)
        let port = try server.start(listeners: [H2ListenerSpec(name: "p", host: "127.0.0.1", port: 0)])[0].address.port
        let client = try makeClient()
        defer { client.shutdown() }
        let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
        let failure = Mutex<H2ClientError?>(nil)
        connection.send(pushRequest(port: port)) { r in
            if case .failure(let e) = r { failure.withLock { $0 = e } }
        }
        #expect(await eventually { handler.requests.count == 1 })
        // Timed on the shutdown's own thread, so a busy cooperative pool resuming this test late is not counted.
        let elapsed = await blocking { () -> TimeInterval in
            let started = Date()
            server.shutdown()
            return Date().timeIntervalSince(started)
        }
        // The straggler never answers, so only the 300 ms grace period can end the shutdown; the
        // bound is loose because a loaded 2-core CI box stalls threads for a second or more.
        #expect(elapsed >= 0.3 && elapsed < 10)
        #expect(await eventually { failure.withLock { $0 } != nil })
        #expect(server.connectionCount == 0)
    }
}
