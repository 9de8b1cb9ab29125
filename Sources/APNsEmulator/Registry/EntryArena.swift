/// Log entries as bytes, oldest first, in a chain of large chunks that are written front to back: the
/// journal's requests, and the device farm's push fates.
///
/// Recording a push must not cost a malloc, a free of a cold entry, or retains: the previous design (a
/// Swift value per entry in a 100,000-slot ring) spent ~2 µs per push mostly on cache misses while
/// overwriting and releasing the oldest entry. Here an entry is appended with a few `memcpy`s into the
/// current chunk and dropping the oldest only counts it (the dropped bytes are not even read: they are
/// long out of cache); a chunk whose entries are all dropped is reused for new ones. Memory follows the bytes actually kept, not a fixed size per slot.
///
/// Each entry starts with its total length (`UInt32`, stored by `commit`), so the chain can be walked; what
/// follows is up to the writer (`JournalEntryEncoder`, `FateLog`). Not thread-safe: its owner keeps it inside a mutex.
///
/// `@unchecked Sendable` because its only non-Sendable parts are the chunk pointers, and the memory behind
/// them belongs to this value alone: it is `~Copyable` (never two owners) and frees the chunks in `deinit`,
/// so sending it moves the memory with it and nothing else can reach it. Its two owners keep it inside a
/// `Mutex` (`Journal.state`, a device shard's `state` through `FateLog`), which serialises every use.
package struct EntryArena: ~Copyable, @unchecked Sendable {
    /// One block of entries. Entries never straddle chunks.
    private struct Chunk {
        let base: UnsafeMutableRawPointer
        let size: Int
        /// Bytes written (entries end here).
        var used = 0
        /// Entries written.
        var entries = 0
    }

    /// Chunk size: big enough that chunk turnover is rare, small enough that a tiny journal stays small.
    package static let chunkSize = 256 * 1024

    /// Full chunks, oldest first.
    private var full: [Chunk] = []
    /// The chunk new entries go to (nil until the first entry, and after every entry was dropped). Kept apart
    /// from `full`, so the two steps of every entry read and write a stored value, not the last element of an
    /// array (a bounds check and a uniqueness check each time).
    private var current: Chunk?
    /// Entries of the oldest chunk (`full[0]`, else `current`) already dropped (the oldest live entry is the next one).
    private var headDropped = 0
    /// One emptied chunk kept for reuse, so steady-state recording allocates nothing.
    private var spare: Chunk?
    /// Entries kept.
    package private(set) var count = 0
    /// Counts the chunks begun: a pointer into the chunk new entries go to stays valid for them while this
    /// is unchanged (a recycled chunk comes back at the same address with a new number).
    private var chunkSerial = 0
    /// The open entry's `maxBytes` (`begin` to `commit`; 0: none).
    private var openEntryLimit = 0
    /// Full chunks (the one being filled not counted): what a byte bound on the log compares, at no cost.
    package var chunkCount: Int { full.count }
    /// Memory held for entries: live chunks and the spare.
    package var memoryBytes: Int { full.reduce((spare?.size ?? 0) + (current?.size ?? 0)) { $0 + $1.size } }

    package init() {}

    deinit {
        for c in full { c.base.deallocate() }
        current?.base.deallocate()
        spare?.base.deallocate()
    }

    /// Appends one entry of at most `maxBytes` (its 4-byte length prefix included): stores the prefix, lets
    /// `write` fill in the rest (it also gets the serial of the chunk the entry goes to), and returns what
    /// `write` returns.
    package mutating func append<R>(maxBytes: Int, _ write: (inout EntryByteWriter, _ chunkSerial: Int) -> R) -> R {
        var (w, serial) = begin(maxBytes: maxBytes)
        let result = write(&w, serial)
        commit(w)
        return result
    }

    /// `append` in two steps, for the hot writers (a journaled request, a push's fate): starts an entry of at
    /// most `maxBytes`, returning the writer for what follows the length prefix and the chunk's serial;
    /// `commit` stores the prefix and counts the entry. A closure given to `append` copies what it captures
    /// (a retain and a release per string and array written, every entry); written between the two steps,
    /// the fields are only borrowed. One entry is open at a time, and only its own writer commits it (checked).
    package mutating func begin(maxBytes: Int) -> (writer: EntryByteWriter, chunkSerial: Int) {
        precondition(openEntryLimit == 0, "an entry is already open")
        if current == nil || current!.size - current!.used < maxBytes {
            if let c = current { full.append(c) }
            current = newChunk(atLeast: maxBytes)
            chunkSerial += 1
        }
        var w = EntryByteWriter(current!.base + current!.used)
        w.uint32(0)
        openEntryLimit = maxBytes
        return (w, chunkSerial)
    }

    /// Ends the entry `begin` started, `w` being the writer it returned.
    package mutating func commit(_ w: consuming EntryByteWriter) {
        precondition(openEntryLimit > 0 && w.base == current!.base + current!.used, "commit without its begin")
        precondition(w.offset <= openEntryLimit, "log entry overran its reservation")
        openEntryLimit = 0
        w.uint32(UInt32(w.offset), at: 0)
        current!.used += w.offset
        current!.entries += 1
        count += 1
    }

    /// Drops the oldest entry.
    package mutating func removeFirst() {
        precondition(count > 0, "removeFirst on an empty log")
        headDropped += 1
        count -= 1
        if full.isEmpty {
            // The oldest entries are in `current`: all dropped, it becomes the spare.
            if headDropped == current!.entries {
                recycle(current!)
                current = nil
                headDropped = 0
            }
        } else if headDropped == full[0].entries {
            recycle(full.removeFirst())
            headDropped = 0
        }
    }

    /// Drops every entry (keeping one chunk for reuse).
    package mutating func removeAll() {
        for c in full { recycle(c) }
        if let c = current { recycle(c) }
        full.removeAll()
        current = nil
        headDropped = 0
        count = 0
    }

    /// Calls `body` with the oldest entry's bytes, if there is one.
    package func first<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R? {
        guard count > 0, let c = full.first ?? current else { return nil }
        let offset = Self.offset(in: c, skipping: headDropped)
        let length = Int(c.base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        return body(UnsafeRawBufferPointer(start: c.base + offset, count: length))
    }

    /// Calls `body` with each entry's bytes (length prefix included), oldest first; stops when it returns false.
    package func forEach(_ body: (UnsafeRawBufferPointer) -> Bool) {
        var oldest = true
        func walk(_ c: Chunk) -> Bool {
            var offset = oldest ? Self.offset(in: c, skipping: headDropped) : 0
            oldest = false
            while offset < c.used {
                let length = Int(c.base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                guard body(UnsafeRawBufferPointer(start: c.base + offset, count: length)) else { return false }
                offset += length
            }
            return true
        }
        for c in full where !walk(c) { return }
        if let c = current { _ = walk(c) }
    }

    /// `forEach` from the first chunk that may hold an entry `isBefore` does not hold for: a chunk is skipped
    /// whole when the next chunk's first entry is still before, so a reader resuming near the newest entries
    /// reads a chunk or two, not the whole log.
    package func forEach(skippingWhile isBefore: (UnsafeRawBufferPointer) -> Bool,
                         _ body: (UnsafeRawBufferPointer) -> Bool) {
        var chunks = full
        if let c = current { chunks.append(c) }
        var start = 0
        while start + 1 < chunks.count, chunks[start + 1].used > 0 {
            let next = chunks[start + 1]
            let length = Int(next.base.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
            guard isBefore(UnsafeRawBufferPointer(start: next.base, count: length)) else { break }
            start += 1
        }
        for (i, c) in chunks.enumerated() where i >= start {
            var offset = i == 0 ? Self.offset(in: c, skipping: headDropped) : 0
            while offset < c.used {
                let length = Int(c.base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                guard body(UnsafeRawBufferPointer(start: c.base + offset, count: length)) else { return }
                offset += length
            }
        }
    }

    /// `forEach` over the newest `n` entries only (all of them when there are fewer), oldest first: chunks are
    /// counted back from the newest, so reading the end of a full log walks a chunk or two, not all of it.
    package func forEach(newest n: Int, _ body: (UnsafeRawBufferPointer) -> Bool) {
        guard n > 0 else { return }
        // Chunks by index, `current` last, without copying `full` into a new array under the caller's lock.
        let chunkTotal = full.count + (current == nil ? 0 : 1)
        func chunk(_ i: Int) -> Chunk { i < full.count ? full[i] : current! }
        // The chunk holding the oldest entry wanted, and how many of its live entries come before that one.
        var start = chunkTotal, live = 0
        while start > 0 && live < n {
            start -= 1
            live += chunk(start).entries - (start == 0 ? headDropped : 0)
        }
        var skip = max(0, live - n) + (start == 0 ? headDropped : 0)
        for i in start..<chunkTotal {
            let c = chunk(i)
            var offset = 0
            while offset < c.used {
                let length = Int(c.base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                if skip > 0 {
                    skip -= 1
                } else if !body(UnsafeRawBufferPointer(start: c.base + offset, count: length)) {
                    return
                }
                offset += length
            }
        }
    }

    /// The live entries of one chunk, oldest first, for `forEachChunkFromNewest`'s body (and only within it).
    package struct ChunkEntries: Sequence {
        fileprivate let base: UnsafeRawPointer
        fileprivate let start: Int, end: Int

        package struct Iterator: IteratorProtocol {
            fileprivate let base: UnsafeRawPointer
            fileprivate var offset: Int
            fileprivate let end: Int

            package mutating func next() -> UnsafeRawBufferPointer? {
                guard offset < end else { return nil }
                let length = Int(base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
                defer { offset += length }
                return UnsafeRawBufferPointer(start: base + offset, count: length)
            }
        }

        package func makeIterator() -> Iterator { Iterator(base: base, offset: start, end: end) }
    }

    /// Calls `body` with each chunk's live entries, the newest chunk first, until it returns false: a reader that
    /// wants the newest few entries of some kind reads back only as far as it finds them.
    package func forEachChunkFromNewest(_ body: (ChunkEntries) -> Bool) {
        func entries(of c: Chunk, oldest: Bool) -> ChunkEntries {
            ChunkEntries(base: UnsafeRawPointer(c.base), start: oldest ? Self.offset(in: c, skipping: headDropped) : 0, end: c.used)
        }
        if let c = current, !body(entries(of: c, oldest: full.isEmpty)) { return }
        for i in full.indices.reversed() where !body(entries(of: full[i], oldest: i == 0)) { return }
    }

    /// Where the entry after the first `n` of `chunk` starts (reads run rarely; drops must stay cheap).
    private static func offset(in chunk: Chunk, skipping n: Int) -> Int {
        var offset = 0
        for _ in 0..<n { offset += Int(chunk.base.loadUnaligned(fromByteOffset: offset, as: UInt32.self)) }
        return offset
    }

    private mutating func newChunk(atLeast bytes: Int) -> Chunk {
        if let s = spare, s.size >= bytes {
            spare = nil
            return Chunk(base: s.base, size: s.size)
        }
        let size = max(bytes, Self.chunkSize)
        return Chunk(base: .allocate(byteCount: size, alignment: 16), size: size)
    }

    private mutating func recycle(_ chunk: Chunk) {
        if spare == nil && chunk.size == Self.chunkSize {
            spare = chunk
        } else {
            chunk.base.deallocate()
        }
    }
}
