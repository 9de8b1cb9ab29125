import Dispatch
import Foundation
import H2Transport
import Synchronization

/// Drives pushes over already-open HTTP/2 connections, each with a fixed number of requests in flight,
/// as fast as possible (closed loop) or at a target rate (open loop).
///
/// ### Why latency is measured from the intended send time
/// At a target rate, request *i* is due at `start + i / rate`. If the server (or the generator) stalls,
/// later requests go out late; measuring from when they were sent would hide the stall (coordinated
/// omission). Measuring from when they were due counts the wait as latency, as a real sender's users
/// would experience it.
///
/// ### What a duration bounds
/// Closed loop, the time a request is sent. Open loop, the time it is due: the run sends exactly the requests
/// the schedule has before the deadline (`rate × duration`), late or not, and none after it. Judging a request
/// by when a free stream reached it instead sent up to one extra request per stream (each stream schedules its
/// next request ahead), and would drop requests a stall delayed past the deadline, hiding the stall.
///
/// ### Threading
/// Every connection's completions run on its event loop, which also issues that connection's next
/// request; its statistics (`ConnectionStats`) are touched only there. Across connections only the
/// request counter (an atomic) and the count of finished connections are shared.
final class LoadGenerator: Sendable {
    struct Plan: Sendable {
        var streamsPerConnection: Int
        var count: Int?
        var duration: Duration?
        var rate: Double?
    }

    struct Outcome: Sendable {
        var requests: Int
        var succeeded: Int
        var errors: [String: Int]
        var histogram: LatencyHistogram
        var seconds: Double
        /// Connections the server closed (GOAWAY, a closed socket) before the run's end: they sent nothing more, and
        /// the run ends early when none is left.
        var connectionsLost = 0
    }

    /// Loop-confined statistics of one connection.
    /// `@unchecked Sendable`: mutated only on its connection's event loop (every access below is inside a
    /// completion or an `execute` on that loop), read by `run` only after the loop reported it finished.
    final class ConnectionStats: @unchecked Sendable {
        var histogram = LatencyHistogram()
        var succeeded = 0
        var completed = 0
        var errors: [String: Int] = [:]
        var inFlight = 0
        var finished = false
        /// The connection failed (closed, GOAWAY): it issues nothing more.
        var dead = false
    }

    private let connections: [H2ClientConnection]
    private let requests: [H2Request]
    private let plan: Plan
    private let issued = Atomic<Int>(0)
    private let finishedConnections = Atomic<Int>(0)
    /// Requests completed so far, for the progress line.
    let completedCount = Atomic<Int>(0)
    private let stats: [ConnectionStats]
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let start = Mutex<UInt64>(0)

    /// - Parameters:
    ///   - requests: Sent round-robin (one per device token).
    init(connections: [H2ClientConnection], requests: [H2Request], plan: Plan) {
        self.connections = connections
        self.requests = requests
        self.plan = plan
        self.stats = connections.map { _ in ConnectionStats() }
    }

    func run() async -> Outcome {
        let t0 = DispatchTime.now().uptimeNanoseconds
        start.withLock { $0 = t0 }
        let deadline = plan.duration.map { t0 + UInt64($0.components.seconds) * 1_000_000_000
            + UInt64($0.components.attoseconds / 1_000_000_000) }
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            done.withLock { $0 = cont }
            for (i, connection) in connections.enumerated() {
                connection.eventLoop.execute { [self] in
                    for _ in 0..<plan.streamsPerConnection { issue(i, t0: t0, deadline: deadline) }
                    finishIfIdle(i)
                }
            }
        }
        var outcome = Outcome(requests: 0, succeeded: 0, errors: [:], histogram: LatencyHistogram(),
                              seconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        for s in stats {
            outcome.requests += s.completed
            outcome.succeeded += s.succeeded
            outcome.histogram.merge(s.histogram)
            outcome.errors.merge(s.errors, uniquingKeysWith: +)
            if s.dead { outcome.connectionsLost += 1 }
        }
        return outcome
    }

    /// On connection `i`'s loop: takes the next request number, if any is left, and sends it when due.
    private func issue(_ i: Int, t0: UInt64, deadline: UInt64?) {
        guard !stats[i].dead else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        // Closed loop, a request is due when a stream is free (now), so the deadline is checked before a number is
        // taken; open loop, on the number's place in the schedule.
        if plan.rate == nil, let deadline, now >= deadline { return }
        let n = issued.wrappingAdd(1, ordering: .relaxed).oldValue
        if let count = plan.count, n >= count { return }
        // Rounded, not truncated: request n of a 100/s run for 4.18 s is due at 4,180,000,000 ns, not one short.
        let due = plan.rate.map { t0 + UInt64((Double(n) * 1e9 / $0).rounded()) } ?? now
        if let deadline, due >= deadline { return }
        let s = stats[i]
        s.inFlight += 1
        let connection = connections[i]
        let request = requests[n % requests.count]
        let send: @Sendable () -> Void = { [self] in
            connection.send(request) { [self] result in
                let end = DispatchTime.now().uptimeNanoseconds
                s.histogram.record((end &- due) / 1000)
                s.completed += 1
                s.inFlight -= 1
                completedCount.add(1, ordering: .relaxed)
                switch result {
                case .success(let response) where response.status == 200:
                    s.succeeded += 1
                case .success(let response):
                    s.errors[Self.reason(response), default: 0] += 1
                case .failure(let error):
                    s.errors[Self.errorKey(error), default: 0] += 1
                    switch error {
                    // The connection is gone: it sends nothing more (the others carry the rest of the count).
                    case .connectionClosed, .submitFailed, .connectFailed: s.dead = true
                    case .streamReset: break
                    }
                    // A failure can complete inside send(); issuing from here would recurse without bound.
                    connection.eventLoop.execute { [self] in
                        issue(i, t0: t0, deadline: deadline)
                        finishIfIdle(i)
                    }
                    return
                }
                issue(i, t0: t0, deadline: deadline)
                finishIfIdle(i)
            }
        }
        if due > now {
            connection.eventLoop.schedule(after: .nanoseconds(Int64(due - now)), send)
        } else {
            send()
        }
    }

    /// On connection `i`'s loop: with nothing in flight the connection is done; the last one ends the run.
    private func finishIfIdle(_ i: Int) {
        let s = stats[i]
        guard s.inFlight == 0, !s.finished else { return }
        s.finished = true
        if finishedConnections.add(1, ordering: .acquiringAndReleasing).newValue == connections.count {
            done.withLock { cont in
                cont?.resume()
                cont = nil
            }
        }
    }

    /// The APNs `reason` of a refused push (or its status when the body has none).
    static func reason(_ response: H2Response) -> String {
        let text = response.bodyText
        if let r = text.range(of: #""reason":""#), let end = text[r.upperBound...].firstIndex(of: "\"") {
            return String(text[r.upperBound..<end])
        }
        return "HTTP \(response.status)"
    }

    static func errorKey(_ error: H2ClientError) -> String {
        switch error {
        case .connectFailed: return "ConnectFailed"
        case .connectionClosed: return "ConnectionClosed"
        case .streamReset: return "StreamReset"
        case .submitFailed: return "SubmitFailed"
        }
    }
}
