import APNsProtocol
import H2Transport
import Synchronization

/// Every APNs request and its answer, in memory, newest last; capped, and switchable off for load tests.
///
/// Entries live as bytes in a `EntryArena` (recording one costs a few copies, no allocation); they become
/// `JournalEntry` values only when read.
public final class Journal: Sendable {
    private struct State: ~Copyable {
        var arena = EntryArena()
        /// Entries appended whole (`append(JournalEntry)`) by id; the arena holds a placeholder for each so
        /// order, capacity and ids work the same for both kinds.
        var aside: [Int64: JournalEntry] = [:]
        var nextId: Int64 = 1
        var enabled = true
        var capacity: Int
        /// Entries dropped for capacity or memory.
        var dropped: Int64 = 0
        /// The last tail (fields and body) written in full, and the chunk it is in (the serial
        /// `EntryArena.append` passes): an entry in the same chunk with the same tail points back at it (see
        /// `JournalEntryEncoder`).
        var sharedTail: (chunk: Int, bytes: UnsafeRawBufferPointer)?
        /// The request fields and body `sharedTail` was written from.
        var sharedTailSource = JournalTailSource()

        /// Chunks the entries may occupy (`JournalEntryLimits.memoryBytes`): bounded in bytes as well as in entries.
        let maxChunks = JournalEntryLimits.memoryBytes / EntryArena.chunkSize

        init(capacity: Int) { self.capacity = capacity }

        mutating func dropOldest() {
            if !aside.isEmpty, let id = arena.first({ e in JournalStoredEntry(e).id }) {
                aside.removeValue(forKey: id)
            }
            arena.removeFirst()
        }

        /// How many of the newest entries a filter on id and count alone selects (nil for a filter on content,
        /// which may select any). Ids are consecutive from the oldest entry kept to the newest: each entry takes
        /// the next one as it is appended, and entries leave from the oldest end only.
        func newestMatchingCount(_ filter: JournalFilter) -> Int? {
            guard !filter.selectsByContent else { return nil }
            var n = arena.count
            if let afterId = filter.afterId { n = Int(clamping: min(Int64(n), max(0, nextId - 1 - afterId))) }
            // A negative limit is no limit, as in `query`.
            if let limit = filter.limit, limit >= 0 { n = min(n, limit) }
            return n
        }

        /// Makes room for one more entry and returns its id.
        mutating func nextSlot() -> Int64 {
            let id = nextId
            nextId += 1
            if arena.count >= capacity {
                dropOldest()
                dropped += 1
            }
            // Entries can grow while their count stays put: drop by bytes as well, as many as it takes.
            while arena.chunkCount > maxChunks && arena.count > 0 {
                dropOldest()
                dropped += 1
            }
            return id
        }
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

    /// The id of the newest entry appended (0 before any): what a long-poll watches before it queries.
    public var newestId: Int64 { state.withLock { $0.nextId - 1 } }

    public struct Settings: Sendable, Codable, Equatable {
        public var enabled: Bool
        public var capacity: Int
        public var size: Int
        public var dropped: Int64
        /// Memory the kept entries occupy (whole chunks), so a load test can see what the journal costs.
        public var memoryBytes: Int
        /// What the entries may occupy: beyond it the oldest go, as beyond `capacity`.
        public var memoryLimitBytes: Int
    }

    public var settings: Settings {
        state.withLock {
            Settings(enabled: $0.enabled, capacity: $0.capacity, size: $0.arena.count, dropped: $0.dropped,
                     memoryBytes: $0.arena.memoryBytes, memoryLimitBytes: JournalEntryLimits.memoryBytes)
        }
    }

    /// Turns recording on or off and/or changes the cap (keeping the newest entries).
    public func configure(enabled: Bool? = nil, capacity: Int? = nil) {
        state.withLock { s in
            if let enabled {
                s.enabled = enabled
                enabledFlag.store(enabled, ordering: .relaxed)
            }
            if let capacity, capacity > 0, capacity != s.capacity {
                while s.arena.count > capacity {
                    s.dropOldest()
                    s.dropped += 1
                }
                s.capacity = capacity
            }
        }
    }

    /// Appends an entry, assigning its id (the id given is ignored). Returns the id.
    @discardableResult
    public func append(_ entry: JournalEntry) -> Int64 {
        state.withLock { s in
            guard s.enabled else { return 0 }
            let id = s.nextSlot()
            var e = entry
            e.id = id
            s.aside[id] = e
            s.arena.append(maxBytes: JournalEntryEncoder.asideSize) { w, _ in JournalEntryEncoder.writeAside(id: id, to: &w) }
            return id
        }
    }

    /// Appends a hot-path record of `request` (its fields and body; the authorization value redacted) and
    /// what validation read from it, copying what it keeps. Returns its id.
    @discardableResult
    public func append(_ record: borrowing JournalRecord, request: H2Request, summary: RequestSummary) -> Int64 {
        guard JournalEntryLimits.exceeded(by: request) else { return appendKept(record, request: request, summary: summary) }
        let (kept, warnings) = JournalEntryLimits.trimmed(request)
        var noted = summary
        noted.warnings += warnings
        return appendKept(record, request: kept, summary: noted)
    }

    private func appendKept(_ record: borrowing JournalRecord, request: H2Request, summary: RequestSummary) -> Int64 {
        let size = JournalEntryEncoder.maxSize(record, headers: request.headers, body: request.body, summary: summary)
        return state.withLock { s in
            guard s.enabled else { return 0 }
            let id = s.nextSlot()
            var (w, chunk) = s.arena.begin(maxBytes: size)
            let previous = s.sharedTail.flatMap { $0.chunk == chunk ? $0.bytes : nil }
            let match: JournalTailSource.Match = previous == nil ? .different : s.sharedTailSource.match(request.headers, request.body)
            let tail = JournalEntryEncoder.write(record, headers: request.headers, body: request.body,
                                                 summary: summary, id: id, to: &w, previousTail: previous, match: match)
            s.arena.commit(w)
            // A tail written in full becomes the one to share: remember what it was written from.
            if tail.baseAddress != previous?.baseAddress { s.sharedTailSource.record(request.headers, request.body) }
            s.sharedTail = (chunk, tail)
            return id
        }
    }

    /// Entries copied out as the journal stores them, for a reader that copies the journal elsewhere in order: no
    /// text is built and nothing is encoded, so copying costs little per entry. A tail (fields and body) shared by
    /// several entries is copied once and referred to from the later ones, which read back only within the copy.
    package struct Copy: Sendable {
        /// The entries, each prefixed by its length, oldest first.
        package var bytes: [UInt8]
        /// Entries appended whole (not from the push path), which `bytes` only refers to by id.
        package var aside: [JournalEntry]
        package var count: Int
        package var newestId: Int64
    }

    /// The oldest `count` entries with an id above `afterId`, nil when there are none.
    package func copy(after afterId: Int64, count: Int) -> Copy? {
        state.withLock { s -> Copy? in
            var copy = Copy(bytes: [], aside: [], count: 0, newestId: afterId)
            var tails: [UInt: Int] = [:]
            s.arena.forEach(skippingWhile: { JournalStoredEntry($0).id <= afterId }) { e in
                let stored = JournalStoredEntry(e)
                guard stored.id > afterId else { return true }
                stored.append(to: &copy.bytes, sharing: &tails)
                if stored.kind == .aside, let entry = s.aside[stored.id] { copy.aside.append(entry) }
                copy.count += 1
                copy.newestId = stored.id
                return copy.count < count
            }
            return copy.count == 0 ? nil : copy
        }
    }

    /// The entries of a `Copy`'s bytes and aside entries (made by this build: the layout is this build's).
    package static func entries(copied bytes: [UInt8], aside: [JournalEntry]) -> [JournalEntry] {
        decode(bytes, aside: Dictionary(aside.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }))
    }

    /// The entries of copied bytes (length-prefixed, oldest first), aside entries taken from `aside` by id. A
    /// length or a shared tail reaching outside the bytes ends the walk there.
    private static func decode(_ bytes: [UInt8], aside: [Int64: JournalEntry]) -> [JournalEntry] {
        var entries: [JournalEntry] = []
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 4 <= raw.count {
                let length = Int(raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                guard length >= JournalEntryEncoder.asideSize, offset + length <= raw.count else { return }
                let stored = JournalStoredEntry(UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length]))
                if stored.kind == .aside {
                    if let e = aside[stored.id] { entries.append(e) }
                } else {
                    guard stored.tailIsWithin(offset) else { return }
                    entries.append(stored.entry())
                }
                offset += length
            }
        }
        return entries
    }

    /// Entries matching `filter`, oldest first (the newest `limit` when a limit is given).
    public func query(_ filter: JournalFilter = JournalFilter()) -> [JournalEntry] {
        // Under the lock: find the matches and copy their bytes out; text is built after it is released.
        let (copied, aside) = state.withLock { s -> ([UInt8], [Int64: JournalEntry]) in
            var matching: [UnsafeRawBufferPointer] = []
            let matcher = JournalMatcher(filter)
            func visit(_ e: UnsafeRawBufferPointer) -> Bool {
                if JournalStoredEntry(e).matches(matcher, aside: s.aside) { matching.append(e) }
                return true
            }
            // Pollers (the dashboard, `--request-log`) ask for what came after an id, or for the newest few, while a
            // load fills the journal: those read the end of the log, not all of it, under the lock the push path takes.
            if let newest = s.newestMatchingCount(filter) {
                s.arena.forEach(newest: newest, visit)
            } else if let limit = filter.limit, limit >= 0 {
                // The newest `limit` matches: read back chunk by chunk until there are enough, or the ids reach `after`.
                var pieces: [[UnsafeRawBufferPointer]] = [], found = 0
                s.arena.forEachChunkFromNewest { chunk in
                    guard found < limit else { return false }
                    var inChunk: [UnsafeRawBufferPointer] = []
                    var reachedAfter = false
                    for e in chunk {
                        let stored = JournalStoredEntry(e)
                        if let afterId = filter.afterId, stored.id <= afterId { reachedAfter = true }
                        if stored.matches(matcher, aside: s.aside) { inChunk.append(e) }
                    }
                    // Only the newest of the chunk's matches that are still wanted.
                    if inChunk.count > limit - found { inChunk.removeFirst(inChunk.count - (limit - found)) }
                    found += inChunk.count
                    pieces.append(inChunk)
                    return !reachedAfter
                }
                matching = pieces.reversed().flatMap { $0 }
            } else {
                Self.forEach(after: filter.afterId, in: s.arena, visit)
            }
            if let limit = filter.limit, limit >= 0, matching.count > limit {
                matching.removeFirst(matching.count - limit)
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(matching.reduce(0) { $0 + $1.count })  // more when shared tails are copied in
            var aside: [Int64: JournalEntry] = [:]
            for e in matching {
                // Copied whole: a shared tail is copied in place of the reference to it.
                let stored = JournalStoredEntry(e)
                stored.append(to: &bytes)
                if stored.kind == .aside { aside[stored.id] = s.aside[stored.id] }
            }
            return (bytes, aside)
        }
        return Self.decode(copied, aside: aside)
    }

    /// Every entry, or only those from the chunk that holds the first entry after `afterId` on (ids grow with
    /// each entry appended, so the chunks before it hold none that a filter with `afterId` matches).
    private static func forEach(after afterId: Int64?, in arena: borrowing EntryArena,
                                _ body: (UnsafeRawBufferPointer) -> Bool) {
        guard let afterId else { return arena.forEach(body) }
        arena.forEach(skippingWhile: { JournalStoredEntry($0).id <= afterId }, body)
    }

    public func count(_ filter: JournalFilter = JournalFilter()) -> Int {
        state.withLock { s in
            // `count` ignores the limit, as it always has.
            var unlimited = filter
            unlimited.limit = nil
            if let n = s.newestMatchingCount(unlimited) { return n }
            var n = 0
            let matcher = JournalMatcher(filter)
            Self.forEach(after: filter.afterId, in: s.arena) { e in
                if JournalStoredEntry(e).matches(matcher, aside: s.aside) { n += 1 }
                return true
            }
            return n
        }
    }

    /// Empties the journal (ids keep increasing); the newest id it cleared.
    @discardableResult
    public func clear() -> Int64 {
        state.withLock { s in
            s.arena.removeAll()
            s.aside.removeAll()
            return s.nextId - 1
        }
    }
}
