import APNsProtocol
import Synchronization

/// What one APNs connection did, for `/_emulator/stats`: counted on its event loop with relaxed atomics,
/// read by the control API on its own thread.
///
/// Only the connection's event loop writes these, so counting is a relaxed load and store (`bump`), not a
/// read-modify-write: no locked instruction per request, and readers still see whole, growing values.
public final class ConnectionStats: Sendable {
    public let id: UInt64
    public let remote: String
    public let listener: String
    public let auth: String
    public let openedAt: Millis
    let requests = Atomic<Int>(0)
    let accepted = Atomic<Int>(0)
    let rejected = Atomic<Int>(0)
    /// Most requests in flight at once on this connection.
    let concurrencyHighWater = Atomic<Int>(0)
    let tokenUpdates = Atomic<Int>(0)
    let lastTokenUpdateAt = Atomic<Int64>(0)
    let closedAt = Atomic<Int64>(0)

    init(id: UInt64, remote: String, listener: String, auth: String, openedAt: Millis) {
        self.id = id
        self.remote = remote
        self.listener = listener
        self.auth = auth
        self.openedAt = openedAt
    }

    /// Adds one to a counter this connection's event loop alone writes.
    @inline(__always)
    func bump(_ counter: borrowing Atomic<Int>) {
        counter.store(counter.load(ordering: .relaxed) &+ 1, ordering: .relaxed)
    }

    /// On the connection's event loop only (the single writer).
    func sawConcurrency(_ n: Int) {
        if n > concurrencyHighWater.load(ordering: .relaxed) { concurrencyHighWater.store(n, ordering: .relaxed) }
    }

    /// The JSON row (`requestsPerSecond` over the connection's life so far, or until it closed).
    package func view(now: Millis) -> [String: Any] {
        let closed = closedAt.load(ordering: .relaxed)
        let end = closed > 0 ? closed : now
        let seconds = max(0.001, Double(end - openedAt) / 1000)
        let n = requests.load(ordering: .relaxed)
        var row: [String: Any] = [
            "id": id, "remote": remote, "listener": listener, "auth": auth, "openedAt": openedAt,
            "requests": n, "accepted": accepted.load(ordering: .relaxed), "rejected": rejected.load(ordering: .relaxed),
            "requestsPerSecond": (Double(n) / seconds * 10).rounded() / 10,
            "concurrencyHighWater": concurrencyHighWater.load(ordering: .relaxed),
            "tokenUpdates": tokenUpdates.load(ordering: .relaxed),
        ]
        let last = lastTokenUpdateAt.load(ordering: .relaxed)
        if last > 0 { row["lastTokenUpdateAt"] = last }
        if closed > 0 { row["closedAt"] = closed }
        return row
    }
}

/// Open connections and the most recently closed ones (bounded), for `/_emulator/stats`.
public final class ConnectionStatsRegistry: Sendable {
    static let closedKept = 1_000
    private let state = Mutex<(open: [UInt64: ConnectionStats], closed: [ConnectionStats])>(([:], []))

    public init() {}

    func opened(_ stats: ConnectionStats) {
        state.withLock { $0.open[stats.id] = stats }
    }

    func closed(_ id: UInt64, at: Millis) {
        state.withLock { s in
            guard let stats = s.open.removeValue(forKey: id) else { return }
            stats.closedAt.store(at, ordering: .relaxed)
            s.closed.append(stats)
            if s.closed.count > Self.closedKept + Self.closedKept / 10 { s.closed.removeFirst(s.closed.count - Self.closedKept) }
        }
    }

    /// Open connections by id, then the closed ones kept, newest last.
    package func all() -> (open: [ConnectionStats], closed: [ConnectionStats]) {
        state.withLock { s in (s.open.values.sorted { $0.id < $1.id }, s.closed) }
    }

    func removeClosed() {
        state.withLock { $0.closed.removeAll() }
    }
}
