import APNsProtocol
import Synchronization

/// Every APNs request and its answer, in memory, newest last; capped, and switchable off for load tests.
public final class Journal: Sendable {
    /// Entries recorded by the hot path stay in their compact form until read.
    private enum Stored: Sendable {
        case entry(JournalEntry)
        case record(Int64, JournalRecord)

        var id: Int64 {
            switch self {
            case .entry(let e): return e.id
            case .record(let id, _): return id
            }
        }

        var entry: JournalEntry {
            switch self {
            case .entry(let e): return e
            case .record(let id, let r): return r.entry(id: id)
            }
        }

        func matches(_ f: JournalFilter) -> Bool {
            switch self {
            case .entry(let e): return f.matches(e)
            case .record(let id, let r):
                if let afterId = f.afterId, id <= afterId { return false }
                if let status = f.status, r.status != status { return false }
                if let reason = f.reason, r.reason != reason { return false }
                if let topic = f.topic, r.summary.topic != topic { return false }
                if let apnsId = f.apnsId, r.apnsId.lowercased() != apnsId.lowercased() { return false }
                if let token = f.token, r.token != token.lowercased() { return false }
                return true
            }
        }
    }

    private struct State {
        var entries: [Stored] = []
        /// Index of the oldest entry once the ring is full.
        var head = 0
        var nextId: Int64 = 1
        var enabled = true
        var capacity: Int
        var dropped: Int64 = 0
    }

    private let state: Mutex<State>
    /// Mirrors `State.enabled` for the lock-free check the hot path makes before building a record.
    private let enabledFlag: Atomic<Bool>

    /// - Parameter capacity: entries kept; the oldest are dropped beyond it.
    public init(capacity: Int = 100_000, enabled: Bool = true) {
        var s = State(capacity: max(1, capacity))
        s.enabled = enabled
        state = Mutex(s)
        enabledFlag = Atomic(enabled)
    }

    /// Whether recording is on; the hot path checks this before building an entry.
    public var isEnabled: Bool { enabledFlag.load(ordering: .relaxed) }

    public struct Settings: Sendable, Codable, Equatable {
        public var enabled: Bool
        public var capacity: Int
        public var size: Int
        public var dropped: Int64
    }

    public var settings: Settings {
        state.withLock { Settings(enabled: $0.enabled, capacity: $0.capacity, size: $0.entries.count, dropped: $0.dropped) }
    }

    /// Turns recording on or off and/or changes the cap (keeping the newest entries).
    public func configure(enabled: Bool? = nil, capacity: Int? = nil) {
        state.withLock { s in
            if let enabled {
                s.enabled = enabled
                enabledFlag.store(enabled, ordering: .relaxed)
            }
            if let capacity, capacity > 0, capacity != s.capacity {
                let ordered = Self.ordered(s)
                let kept = Array(ordered.suffix(capacity))
                s.dropped += Int64(ordered.count - kept.count)
                s.entries = kept
                s.head = 0
                s.capacity = capacity
            }
        }
    }

    /// Appends an entry, assigning its id (the id given is ignored). Returns the id.
    @discardableResult
    public func append(_ entry: JournalEntry) -> Int64 {
        store { id in
            var e = entry
            e.id = id
            return .entry(e)
        }
    }

    /// Appends a hot-path record (text is built only when the journal is read). Returns its id.
    @discardableResult
    public func append(_ record: JournalRecord) -> Int64 {
        store { .record($0, record) }
    }

    private func store(_ make: (Int64) -> Stored) -> Int64 {
        state.withLock { s in
            guard s.enabled else { return 0 }
            let id = s.nextId
            s.nextId += 1
            let stored = make(id)
            if s.entries.count < s.capacity {
                s.entries.append(stored)
            } else {
                s.entries[s.head] = stored
                s.head = (s.head + 1) % s.capacity
                s.dropped += 1
            }
            return id
        }
    }

    /// Entries matching `filter`, oldest first (the newest `limit` when a limit is given).
    public func query(_ filter: JournalFilter = JournalFilter()) -> [JournalEntry] {
        let all = state.withLock { Self.ordered($0) }
        var matching = all.filter { $0.matches(filter) }
        if let limit = filter.limit, limit >= 0 { matching = Array(matching.suffix(limit)) }
        return matching.map(\.entry)
    }

    public func count(_ filter: JournalFilter = JournalFilter()) -> Int {
        state.withLock { Self.ordered($0) }.reduce(0) { $0 + ($1.matches(filter) ? 1 : 0) }
    }

    /// Empties the journal (ids keep increasing).
    public func clear() {
        state.withLock { s in
            s.entries.removeAll()
            s.head = 0
        }
    }

    private static func ordered(_ s: State) -> [Stored] {
        if s.head == 0 { return s.entries }
        return Array(s.entries[s.head...] + s.entries[..<s.head])
    }
}
