import Dispatch
import Foundation
import H2Transport
import Synchronization

/// Drives pushes over HTTP/2 connections, each with a fixed number of requests in flight, as fast as possible
/// (closed loop) or at a target rate (open loop), and replaces connections the server closes, as a sender does.
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
/// ### Connections the server closes
/// Each of the `--connections` is a *slot*. A stream's requests form a chain (each answer issues the next), and a
/// slot carries `streams` chains. When its connection stops taking requests (GOAWAY, a closed socket), what
/// it still had to do moves to the slot's next connection: chains whose answer came back, requests booked for
/// later (open loop) when their time comes, and requests the server refused unprocessed as it went away
/// (REFUSED_STREAM after GOAWAY, which RFC 9113 §8.7 says are safe to retry; their latency still counts from
/// when they were first due). The next connection is opened when the first of these arrives, so a run that
/// has nothing left to send opens none. Attempts are bounded in time (never past the run's deadline) and back
/// off after failures; after `Reconnect.maxFailures` in a row (a replacement closed before it answered
/// anything counts as one) the slot gives up, and requests left waiting for it count as `NotSent`.
///
/// ### Threading and the end of the run
/// A connection's requests complete on its event loop, which also issues its next requests; its statistics
/// (`Run`) are touched only there. A slot's hand-overs (rare: only when a connection goes) take the slot's lock.
/// The run ends when `outstanding` reaches zero: it counts everything that may still issue or answer a request
/// (requests taken and not yet answered, chains being handed over, reconnects under way, each slot's start), and
/// only a holder of one of those adds another, so zero is final.
final class LoadGenerator: Sendable {
    struct Plan: Sendable {
        var streamsPerConnection: Int
        var count: Int?
        var duration: Duration?
        var rate: Double?
        /// How to replace a connection the server closes; nil: not replaced (its slot sends nothing more, and the
        /// run ends early when no connection is left).
        var reconnect: Reconnect? = nil
    }

    /// Opening a connection in place of one the server closed.
    struct Reconnect: Sendable {
        var connect: @Sendable () async throws -> H2ClientConnection
        /// How long one attempt may take (TCP, TLS and the server's SETTINGS); never past the run's deadline.
        var timeout: Duration = .seconds(10)
        /// Failures in a row after which a slot gives up: attempts that failed, and replacements that closed
        /// before answering anything (a server that accepts and closes at once).
        var maxFailures = 6

        /// The wait before the next attempt after `failures` in a row: none after a connection that worked, then
        /// 50 ms doubling up to 2 s, so a server that refuses is not hammered.
        static func backoff(afterFailures failures: Int) -> Duration {
            failures <= 0 ? .zero : .milliseconds(min(2_000, 50 << min(failures - 1, 6)))
        }
    }

    struct Outcome: Sendable {
        var requests: Int
        var succeeded: Int
        var errors: [String: Int]
        var histogram: LatencyHistogram
        var seconds: Double
        /// Connections the server closed (GOAWAY, a closed socket) before the run's end.
        var connectionsLost = 0
        /// Connections opened in place of lost ones.
        var connectionsReopened = 0
        /// Attempts to open a replacement that failed (not requests: those left unsent count as `NotSent`).
        var reconnectsFailed = 0
        /// Why the last failed attempt failed.
        var lastReconnectError: String? = nil
    }

    /// One connection's life in a slot, with its statistics.
    /// `@unchecked Sendable`: the statistics are mutated only on the connection's event loop (inside its
    /// completions and `execute` blocks) and read by `run` after `outstanding` reached zero, which every loop
    /// reaches through an acquiring-and-releasing decrement after its last write.
    final class Run: @unchecked Sendable {
        let slot: Int
        let connection: H2ClientConnection
        var histogram = LatencyHistogram()
        var succeeded = 0
        var completed = 0
        var errors: [String: Int] = [:]
        /// The server closed it or sent GOAWAY: it starts nothing more.
        var lost = false
        /// An answer (any status) came back on it.
        var answered = false

        init(slot: Int, connection: H2ClientConnection) {
            self.slot = slot
            self.connection = connection
        }
    }

    /// What a lost connection leaves for the slot's next one.
    enum Handover: Sendable {
        /// Request number `n`, due at `due` (ns), not yet answered.
        case request(n: Int, due: UInt64)
        /// A stream's chain: its next request is to be issued.
        case chain
    }

    struct SlotState: Sendable {
        /// The connection taking the slot's requests; nil while it is being replaced, or after giving up.
        var current: Run?
        /// Every connection the slot had, for the totals.
        var runs: [Run]
        var reconnecting = false
        var gaveUp = false
        var waiting: [Handover] = []
        var failures = 0
        var reopened = 0
        var reconnectsFailed = 0
        var lastReconnectError: String?
        /// Requests that waited for a connection the slot never got.
        var notSent = 0

        /// Whether a request (not only chains) waits for the next connection.
        var requestsWait: Bool { waiting.contains { if case .request = $0 { true } else { false } } }

        /// What waits, handed over and forgotten here.
        mutating func takeWaiting() -> [Handover] {
            defer { waiting = [] }
            return waiting
        }
    }

    /// A slot's state behind its lock (a class: a `Mutex` cannot sit in an array).
    final class Slot: Sendable {
        private let state: Mutex<SlotState>
        init(_ state: SlotState) { self.state = Mutex(state) }
        func withLock<R>(_ body: (inout SlotState) -> R) -> R { state.withLock { body(&$0) } }
    }

    /// The run's start and deadline (monotonic ns), passed along rather than stored: set when `run` starts.
    struct Times: Sendable {
        var start: UInt64
        var deadline: UInt64?
    }

    private let requests: [H2Request]
    private let plan: Plan
    /// `plan.reconnect != nil`, read on every request without touching the closure it holds.
    private let replacesConnections: Bool
    private let slots: [Slot]
    private let issued = Atomic<Int>(0)
    private let outstanding = Atomic<Int>(0)
    /// Requests completed so far, for the progress line.
    let completedCount = Atomic<Int>(0)
    private let done = Mutex<CheckedContinuation<Void, Never>?>(nil)

    /// - Parameters:
    ///   - requests: Sent round-robin (one per device token).
    init(connections: [H2ClientConnection], requests: [H2Request], plan: Plan) {
        self.requests = requests
        self.plan = plan
        self.replacesConnections = plan.reconnect != nil
        self.slots = connections.enumerated().map { i, c in
            let run = Run(slot: i, connection: c)
            return Slot(SlotState(current: run, runs: [run]))
        }
    }

    func run() async -> Outcome {
        let t0 = DispatchTime.now().uptimeNanoseconds
        let times = Times(start: t0, deadline: plan.duration.map { t0 + $0.nanosecondsClamped })
        outstanding.store(slots.count, ordering: .relaxed)
        await withCheckedContinuation { (cont: CheckedContinuation<Void, Never>) in
            done.withLock { $0 = cont }
            for slot in slots {
                let run = slot.withLock { $0.current! }  // every slot starts with its connection
                run.connection.eventLoop.execute { [self] in
                    for _ in 0..<plan.streamsPerConnection { issue(on: run, times) }
                    release()
                }
            }
        }
        var outcome = Outcome(requests: 0, succeeded: 0, errors: [:], histogram: LatencyHistogram(),
                              seconds: Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9)
        for slot in slots {
            slot.withLock { s in
                for r in s.runs {
                    outcome.requests += r.completed
                    outcome.succeeded += r.succeeded
                    outcome.histogram.merge(r.histogram)
                    outcome.errors.merge(r.errors, uniquingKeysWith: +)
                    if r.lost { outcome.connectionsLost += 1 }
                }
                if s.notSent > 0 {
                    outcome.requests += s.notSent
                    outcome.errors["NotSent", default: 0] += s.notSent
                }
                outcome.connectionsReopened += s.reopened
                outcome.reconnectsFailed += s.reconnectsFailed
                if let e = s.lastReconnectError { outcome.lastReconnectError = e }
            }
        }
        return outcome
    }

    /// Closes every connection the run used (those it opened in place of lost ones included).
    func closeConnections() {
        for slot in slots {
            for run in slot.withLock({ $0.runs }) { run.connection.close() }
        }
    }

    // MARK: Requests

    /// On `run`'s loop: takes the next request number, if any is left, and sends it when due; on a connection that
    /// no longer takes requests, the chain moves to the slot's next connection.
    private func issue(on run: Run, _ t: Times) {
        let now = DispatchTime.now().uptimeNanoseconds
        // Checked before a chain moves too: one that has nothing left to send opens no connection.
        if scheduleExhausted(now: now, t) { return }
        guard usable(run) else {
            if replacesConnections { handOver(.chain, from: run, t) }
            return
        }
        let n = issued.wrappingAdd(1, ordering: .relaxed).oldValue
        if let count = plan.count, n >= count { return }
        let due = plan.rate.map { Self.due(n, rate: $0, t) } ?? now
        if let deadline = t.deadline, due >= deadline { return }
        outstanding.add(1, ordering: .relaxed)
        if due > now {
            run.connection.eventLoop.schedule(after: .nanoseconds(Int64(due - now))) { [self] in send(n, due: due, on: run, t) }
        } else {
            send(n, due: due, on: run, t)
        }
    }

    /// Whether no request number left could still be sent: the count is used up, or the deadline has passed (closed
    /// loop, a request is due when a stream is free, now; open loop, the next number's place in the schedule is past
    /// it). A number is taken only after this, and checked again once taken.
    private func scheduleExhausted(now: UInt64, _ t: Times) -> Bool {
        let next = issued.load(ordering: .relaxed)
        if let count = plan.count, next >= count { return true }
        guard let deadline = t.deadline else { return false }
        guard let rate = plan.rate else { return now >= deadline }
        return Self.due(next, rate: rate, t) >= deadline
    }

    /// When request `n` is due at `rate` (monotonic ns). Rounded, not truncated: request n of a 100/s run for
    /// 4.18 s is due at 4,180,000,000 ns, not one short.
    private static func due(_ n: Int, rate: Double, _ t: Times) -> UInt64 {
        t.start + UInt64((Double(n) * 1e9 / rate).rounded())
    }

    /// On `run`'s loop: sends request `n` (taken, due at `due`) and counts its answer; if the connection no longer
    /// takes requests, the request goes to the slot's next connection instead.
    private func send(_ n: Int, due: UInt64, on run: Run, _ t: Times) {
        if replacesConnections, !usable(run) {
            handOver(.request(n: n, due: due), from: run, t)
            return
        }
        run.connection.send(requests[n % requests.count]) { [self] result in
            if replacesConnections, Self.neverProcessed(result), !usable(run) {
                handOver(.request(n: n, due: due), from: run, t)
                return
            }
            run.histogram.record((DispatchTime.now().uptimeNanoseconds &- due) / 1000)
            run.completed += 1
            completedCount.add(1, ordering: .relaxed)
            switch result {
            case .success(let response):
                run.answered = true
                if response.status == 200 {
                    run.succeeded += 1
                } else {
                    run.errors[Self.reason(response), default: 0] += 1
                }
            case .failure(let error):
                run.errors[Self.errorKey(error), default: 0] += 1
                switch error {
                case .connectionClosed, .submitFailed, .connectFailed: markLost(run)
                case .streamReset: break
                }
                // A failure can complete inside send(); issuing from here would recurse without bound.
                run.connection.eventLoop.execute { [self] in
                    issue(on: run, t)
                    release()
                }
                return
            }
            issue(on: run, t)
            release()
        }
    }

    /// Whether the server cannot have processed the request, so a sender may send it again: nghttp2 did not send
    /// it (GOAWAY arrived first), or the server refused it (REFUSED_STREAM, as for streams above a GOAWAY's last
    /// stream id). Only retried once the connection is going away: on a live one it is an answer like any other.
    private static func neverProcessed(_ result: Result<H2Response, H2ClientError>) -> Bool {
        switch result {
        case .failure(.submitFailed): return true
        case .failure(.streamReset(let code)): return code == H2ErrorCode.refusedStream.rawValue
        default: return false
        }
    }

    /// Whether `run` still takes requests (marking it lost the first time it does not). On its loop.
    private func usable(_ run: Run) -> Bool {
        if run.lost { return false }
        if run.connection.acceptsRequests { return true }
        markLost(run)
        return false
    }

    /// On `run`'s loop: the server closed it; it stops being its slot's connection.
    private func markLost(_ run: Run) {
        guard !run.lost else { return }
        run.lost = true
        slots[run.slot].withLock { s in
            guard s.current === run else { return }
            s.current = nil
            // A replacement that never answered counts as a failed attempt: a server closing every connection at
            // once backs the slot off and finally makes it give up.
            s.failures = run.answered ? 0 : s.failures + 1
        }
    }

    // MARK: Replacing connections

    /// Moves `item` from lost `run` to its slot's connection, or holds it there until one is open (opening one if
    /// none is being opened); if the slot gave up, a request counts as not sent and a chain ends.
    private func handOver(_ item: Handover, from run: Run, _ t: Times) {
        markLost(run)
        // A chain is no request: it holds a count of its own while it moves.
        if case .chain = item { outstanding.add(1, ordering: .relaxed) }
        enum Next { case run(Run), wait(startReconnect: Bool), drop }
        let next: Next = slots[run.slot].withLock { s in
            if let current = s.current { return .run(current) }
            if s.gaveUp {
                if case .request = item { s.notSent += 1 }
                return .drop
            }
            s.waiting.append(item)
            guard !s.reconnecting else { return .wait(startReconnect: false) }
            s.reconnecting = true
            return .wait(startReconnect: true)
        }
        switch next {
        case .run(let target):
            target.connection.eventLoop.execute { [self] in resume(item, on: target, t) }
        case .wait(let start):
            if start {
                // Hand-overs happen only when connections are replaced.
                let reconnect = plan.reconnect!
                outstanding.add(1, ordering: .relaxed)
                Task { await reopen(run.slot, reconnect, t) }
            }
        case .drop:
            release()
        }
    }

    /// On `target`'s loop: carries on with what a lost connection left.
    private func resume(_ item: Handover, on target: Run, _ t: Times) {
        switch item {
        case .request(let n, let due): send(n, due: due, on: target, t)
        case .chain:
            issue(on: target, t)
            release()
        }
    }

    /// Opens slot `i`'s next connection and hands it what waited; gives up after `maxFailures` in a row, or when
    /// the deadline passes. Holds a count of `outstanding` until it is done.
    private func reopen(_ i: Int, _ reconnect: Reconnect, _ t: Times) async {
        defer { release() }
        while true {
            let (failures, requestsWait) = slots[i].withLock { s in
                (s.failures, s.requestsWait)
            }
            if failures >= reconnect.maxFailures {
                giveUp(i)
                return
            }
            let wait = Reconnect.backoff(afterFailures: failures)
            var limit = reconnect.timeout
            // Requests already taken (booked before the deadline, or refused unprocessed) are sent however late, and
            // so are the numbers an open-loop schedule still has before its deadline: only a closed loop's chains
            // are bound by the clock, and chains end quietly once nothing is left for them.
            if !requestsWait {
                let now = DispatchTime.now().uptimeNanoseconds
                if scheduleExhausted(now: now, t) {
                    if standDown(i) { return }
                    continue  // a request arrived meanwhile
                }
                if plan.rate == nil, let deadline = t.deadline {
                    let left = deadline > now ? Duration.nanoseconds(Int64(deadline - now)) : .zero
                    if wait >= left {
                        if standDown(i) { return }
                        continue
                    }
                    limit = min(limit, left - wait)
                }
            }
            if wait > .zero { try? await Task.sleep(for: wait) }
            do {
                let connection = try await Self.connect(reconnect.connect, within: limit)
                let run = Run(slot: i, connection: connection)
                let waiting: [Handover] = slots[i].withLock { s in
                    s.current = run
                    s.runs.append(run)
                    s.reopened += 1
                    s.reconnecting = false
                    return s.takeWaiting()
                }
                connection.eventLoop.execute { [self] in
                    for item in waiting { resume(item, on: run, t) }
                }
                return
            } catch {
                // An attempt for chains alone that the deadline cut short is no failure: the run is over for them.
                if !requestsWait, scheduleExhausted(now: DispatchTime.now().uptimeNanoseconds, t) { continue }
                slots[i].withLock { s in
                    s.failures += 1
                    s.reconnectsFailed += 1
                    s.lastReconnectError = "\(error)"
                }
            }
        }
    }

    /// Stops replacing slot `i`'s connection if only chains wait (they end); false if a request waits. Not giving
    /// up: a request booked earlier (open loop) that falls due later starts another attempt.
    private func standDown(_ i: Int) -> Bool {
        let chains: Int? = slots[i].withLock { s in
            guard !s.requestsWait else { return nil }
            s.reconnecting = false
            return s.takeWaiting().count
        }
        guard let chains else { return false }
        for _ in 0..<chains { release() }
        return true
    }

    /// The slot gets no more connections: requests that waited for one are not sent, chains end.
    private func giveUp(_ i: Int) {
        let waiting: [Handover] = slots[i].withLock { s in
            s.gaveUp = true
            s.reconnecting = false
            for case .request in s.waiting { s.notSent += 1 }
            return s.takeWaiting()
        }
        for _ in waiting { release() }
    }

    /// `connect()`, failed after `limit` if it has not finished (a server that accepts and then stalls); a
    /// connection that arrives after that is closed.
    private static func connect(_ connect: @escaping @Sendable () async throws -> H2ClientConnection,
                                within limit: Duration) async throws -> H2ClientConnection {
        let box = Settled()
        return try await withCheckedThrowingContinuation { (cont: CheckedContinuation<H2ClientConnection, Error>) in
            let timer = Task {
                do { try await Task.sleep(for: limit) } catch { return }
                if box.settle() { cont.resume(throwing: H2ClientError.connectFailed("no connection within \(limit)")) }
            }
            Task {
                do {
                    let c = try await connect()
                    if box.settle() {
                        timer.cancel()
                        cont.resume(returning: c)
                    } else {
                        c.close()
                    }
                } catch {
                    if box.settle() {
                        timer.cancel()
                        cont.resume(throwing: error)
                    }
                }
            }
        }
    }

    /// Whichever of a connect and its timer finishes first settles the attempt; the other finds it settled.
    private final class Settled: Sendable {
        private let flag = Atomic<Bool>(false)
        /// True for the first caller only.
        func settle() -> Bool { !flag.exchange(true, ordering: .acquiringAndReleasing) }
    }

    /// Ends the run when nothing is left that could send or answer a request.
    private func release() {
        if outstanding.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 {
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
