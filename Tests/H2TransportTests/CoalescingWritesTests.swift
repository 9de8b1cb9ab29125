import Foundation
import H2Transport
import Synchronization
import Testing

@Suite("Answers sent together from outside a read", .timeLimit(.minutes(1)))
struct CoalescingWritesTests {
    /// Answers given inside `coalescingWrites` (a batch released by another thread) are held until it ends, a
    /// nested call included, and then every one goes out.
    @Test func answersGivenInsideCoalescingWritesAllGoOutOnlyWhenItEnds() async throws {
        let count = 50
        let waiting = Mutex<[(H2Responder, String)]>([])
        let ended = Mutex<ContinuousClock.Instant?>(nil)
        let handler = RecordingHandler { request, _, responder in
            let index = request.headers.firstIndex(of: "x-index").map { request.headers.value(at: $0) } ?? "?"
            // Taken out whole: responders left in the handler's state would hold their connections, and through them
            // the server and this handler, for ever.
            let all = waiting.withLock { w -> [(H2Responder, String)]? in
                w.append((responder, index))
                guard w.count == count else { return nil }
                defer { w.removeAll() }
                return w
            }
            guard let all else { return }
            let loop = responder.eventLoop
            loop.execute {
                loop.coalescingWrites {
                    for (answer, index) in all { answer.respond(H2Response(status: 200, headers: [H2Header("x-index", index)])) }
                    loop.coalescingWrites {}
                    // Long enough that an answer sent at once would certainly arrive before the end.
                    Thread.sleep(forTimeInterval: 0.3)
                    ended.withLock { $0 = .now }
                }
            }
        }
        try await withTestServer(handler: handler) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            let arrivals = Mutex<[String: ContinuousClock.Instant]>([:])
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                let remaining = Atomic<Int>(count)
                for i in 0..<count {
                    connection.send(pushRequest(port: port, headers: [H2Header("x-index", String(i))])) { result in
                        let index = (try? result.get()["x-index"]).flatMap { $0 } ?? "failed \(i)"
                        arrivals.withLock { $0[index] = .now }
                        if remaining.wrappingSubtract(1, ordering: .acquiringAndReleasing).newValue == 0 { done.resume() }
                    }
                }
            }
            let received = arrivals.withLock { $0 }
            #expect(Set(received.keys) == Set((0..<count).map(String.init)))
            let end = try #require(ended.withLock { $0 }, "every answer arrived before coalescingWrites ended")
            let early = received.filter { $0.value < end }.keys.sorted()
            #expect(early.isEmpty, "answers arrived before coalescingWrites ended: \(early)")
        }
    }
}
