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
        /// Connections the server closed (GOAWAY, a closed socket) before the run's end.
        var connectionsLost = 0
        /// Connections opened in place of lost ones (0 when reconnecting is off).
        var connectionsReopened = 0
        /// Every connection the run used, to close at the end.
        var connections: [H2ClientConnection] = []
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

    /// One connection and its statistics. A connection the server closes is replaced by a new slot (its own
    /// statistics on its own loop), never reused: statistics stay confined to one loop.
    final class Slot: Sendable {
        let connection: H2ClientConnection
        let stats = ConnectionStats()
        init(_ connection: H2ClientConnection) { self.connection = connection }
    }

    private let requests: [H2Request]
    private let plan: Plan
    /// Opens a connection in place of one the server closed (nil: lost connections are not replaced).
    private let reconnect: (@Sendable () async throws -> H2ClientConnection)?
    private let issued = Atomic<Int>(0)
    /// Slots issuing or finishing, plus replacements being opened: the run ends when it reaches 0.
    private let active = Atomic<Int>(0)
    private let slots: Mutex<[Slot]>
    /// Replacements that could not be opened, by error (reported with the requests' errors).
    private let reconnectErrors = Mutex<[String: Int]>([:])
    /// Requests completed so far, for the progress line.
    let completedCount = Atomic<Int>(0)
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)
    private let start = Mutex<UInt64>(0)

    /// - Parameters:
    ///   - requests: Sent round-robin (one per device token).
    ///   - reconnect: opens a connection in place of one the server closes, as a sender would (nil: none).
    init(connections: [H2ClientConnection], requests: [H2Request], plan: Plan,
         reconnect: (@Sendable () async throws -> H2ClientConnection)? = nil) {
        self.requests = requests
        self.plan = plan
        self.reconnect = reconnect
        self.slots = Mutex(connections.map(Slot.init))
    }

    func run() async -> Outcome {
        let t0 = DispatchTime.now().uptimeNanoseconds
        start.withLock { $0 = t0 }
        let deadline = plan.duration.map { t0 + UInt64($0.components.seconds) * 1_000_000_000
            + UInt64($0.components.attoseconds / 1_000_000_000) }
        let initial = slots.withLock { $0 }
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            done.withLock { $0 = cont }
            active.store(initial.count, ordering: .sequentiallyConsistent)
            for slot in initial { begin(slot, t0: t0, deadline: deadline) }
        }
        let all = slots.withLock { $0 }
        var outcome = Outcome(requests: 0, succeeded: 0, errors: reconnectErrors.withLock { $0 },
                              histogram: LatencyHistogram(),
                              seconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        for slot in all {
            let s = slot.stats
            outcome.requests += s.completed
            outcome.succeeded += s.succeeded
            outcome.histogram.merge(s.histogram)
            outcome.errors.merge(s.errors, uniquingKeysWith: +)
            if s.dead { outcome.connectionsLost += 1 }
        }
        outcome.connectionsReopened = all.count - initial.count
        outcome.connections = all.map(\.connection)
        return outcome
    }

    /// Fills `slot`'s streams, on its connection's loop.
    private func begin(_ slot: Slot, t0: UInt64, deadline: UInt64?) {
        slot.connection.eventLoop.execute { [self] in
            for _ in 0..<plan.streamsPerConnection { issue(slot, t0: t0, deadline: deadline) }
            finishIfIdle(slot, t0: t0, deadline: deadline)
        }
    }

    /// Whether the run has nothing left to send: its count taken, or (closed loop) its time up.
    private func isOver(now: UInt64, deadline: UInt64?) -> Bool {
        if let count = plan.count, issued.load(ordering: .relaxed) >= count { return true }
        if let deadline, now >= deadline { return true }
        return false
    }

    /// On `slot`'s loop: takes the next request number, if any is left, and sends it when due.
    private func issue(_ slot: Slot, t0: UInt64, deadline: UInt64?) {
        let s = slot.stats
        guard !s.dead else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        // Closed loop, a request is due when a stream is free (now), so the deadline is checked before a number is
        // taken; open loop, on the number's place in the schedule.
        if plan.rate == nil, let deadline, now >= deadline { return }
        let n = issued.wrappingAdd(1, ordering: .relaxed).oldValue
        if let count = plan.count, n >= count { return }
        // Rounded, not truncated: request n of a 100/s run for 4.18 s is due at 4,180,000,000 ns, not one short.
        let due = plan.rate.map { t0 + UInt64((Double(n) * 1e9 / $0).rounded()) } ?? now
        if let deadline, due >= deadline { return }
        s.inFlight += 1
        let connection = slot.connection
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
                    // The connection is gone: it sends nothing more (a replacement, if any, carries on).
                    case .connectionClosed, .submitFailed, .connectFailed: s.dead = true
                    case .streamReset: break
                    }
                    // A failure can complete inside send(); issuing from here would recurse without bound.
                    connection.eventLoop.execute { [self] in
                        issue(slot, t0: t0, deadline: deadline)
                        finishIfIdle(slot, t0: t0, deadline: deadline)
                    }
                    return
                }
                issue(slot, t0: t0, deadline: deadline)
                finishIfIdle(slot, t0: t0, deadline: deadline)
            }
        }
        if due > now {
            connection.eventLoop.schedule(after: .nanoseconds(Int64(due - now)), send)
        } else {
            send()
        }
    }

    /// On `slot`'s loop: with nothing in flight the slot is done. One the server closed is replaced while the run
    /// has requests left (the replacement counts as active before this slot stops counting, so the run cannot end
    /// in between); the last active slot ends the run.
    private func finishIfIdle(_ slot: Slot, t0: UInt64, deadline: UInt64?) {
        let s = slot.stats
        guard s.inFlight == 0, !s.finished else { return }
        s.finished = true
        if s.dead, let reconnect, !isOver(now: DispatchTime.now().uptimeNanoseconds, deadline: deadline) {
            active.add(1, ordering: .sequentiallyConsistent)
            Task { [self] in
                do {
                    let replacement = Slot(try await reconnect())
                    slots.withLock { $0.append(replacement) }
                    begin(replacement, t0: t0, deadline: deadline)
                } catch {
                    reconnectErrors.withLock { $0["ReconnectFailed", default: 0] += 1 }
                    slotEnded()
                }
            }
        }
        slotEnded()
    }

    private func slotEnded() {
        if active.subtract(1, ordering: .sequentiallyConsistent).newValue == 0 {
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
