@testable import APNsEmulator
import Testing

/// The byte log under the journal and the fate log: entries come back whole and in order across chunk
/// boundaries, dropping the oldest frees whole chunks for reuse, and the chunk new entries go to is tracked
/// apart from the full ones.
@Suite("EntryArena")
struct EntryArenaTests {
    /// Appends entry `n`: its number, then `size - 8` bytes of `n % 251` (8: the length prefix and the number).
    static func append(_ arena: inout EntryArena, _ n: Int, size: Int = 200) {
        arena.append(maxBytes: size) { w, _ in
            w.uint32(UInt32(n))
            var filler = [UInt8](repeating: UInt8(n % 251), count: size - 8)
            filler.withUnsafeMutableBytes { w.raw(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The numbers of the entries kept, oldest first, each checked whole (its length and every filler byte).
    static func numbers(_ arena: borrowing EntryArena, size: Int = 200) -> [Int] {
        var out: [Int] = []
        arena.forEach { e in
            let n = Int(e.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            let whole = e.count == size && e.dropFirst(8).allSatisfy { $0 == UInt8(n % 251) }
            out.append(whole ? n : -1)
            return true
        }
        return out
    }

    static func oldest(_ arena: borrowing EntryArena) -> Int? {
        arena.first { Int($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) }
    }

    @Test func entriesReadBackWholeAndInOrderAcrossChunks() {
        var arena = EntryArena()
        let n = 3 * EntryArena.chunkSize / 200  // three chunks and a bit
        for i in 0..<n { Self.append(&arena, i) }
        #expect(arena.count == n)
        #expect(Self.numbers(arena) == Array(0..<n))
        #expect(Self.oldest(arena) == 0)
        #expect(arena.memoryBytes == 4 * EntryArena.chunkSize)
    }

    @Test func droppingTheOldestWalksIntoTheNextChunkAndReusesTheEmptiedOne() {
        var arena = EntryArena()
        let perChunk = EntryArena.chunkSize / 200
        let n = 2 * perChunk + 10
        for i in 0..<n { Self.append(&arena, i) }
        for _ in 0..<(perChunk + 3) { arena.removeFirst() }
        #expect(arena.count == n - perChunk - 3)
        #expect(Self.oldest(arena) == perChunk + 3)
        #expect(Self.numbers(arena) == Array((perChunk + 3)..<n))
        // Steady state, as under a capacity: one entry in, the oldest out. Memory stays at the chunks in use and
        // one spare instead of growing.
        for i in n..<(n + 5 * perChunk) {
            Self.append(&arena, i)
            arena.removeFirst()
        }
        #expect(Self.numbers(arena) == Array((5 * perChunk + perChunk + 3)..<(n + 5 * perChunk)))
        #expect(arena.memoryBytes <= 4 * EntryArena.chunkSize)
    }

    @Test func droppingEveryEntryLeavesAnEmptyArenaThatTakesNewOnes() {
        var arena = EntryArena()
        for i in 0..<3 { Self.append(&arena, i) }
        for _ in 0..<3 { arena.removeFirst() }
        #expect(arena.count == 0 && Self.oldest(arena) == nil && Self.numbers(arena).isEmpty)
        #expect(arena.memoryBytes == EntryArena.chunkSize)  // kept as the spare
        var serials: [Int] = []
        for i in 3..<5 { arena.append(maxBytes: 200) { w, serial in serials.append(serial); w.uint32(0); w.uint32(UInt32(i)) } }
        #expect(serials.count == 2 && serials[0] == serials[1])
        #expect(arena.count == 2)
    }

    @Test func theNewestEntriesAreReadFromTheEndAloneAcrossChunksAndDrops() {
        var arena = EntryArena()
        let perChunk = EntryArena.chunkSize / 200
        let n = 3 * perChunk + 17
        for i in 0..<n { Self.append(&arena, i) }
        // The oldest chunk partly dropped, so counting back must leave out its dropped entries.
        for _ in 0..<(perChunk / 2) { arena.removeFirst() }
        let all = Self.numbers(arena)
        for wanted in [0, 1, 16, 17, 18, perChunk, perChunk + 17, 2 * perChunk + 40, all.count - 1, all.count, all.count + 9] {
            var seen: [Int] = []
            arena.forEach(newest: wanted) { e in
                seen.append(Int(e.loadUnaligned(fromByteOffset: 4, as: UInt32.self)))
                return true
            }
            // The body sees exactly the newest `wanted` (no more: it is not a filtered full walk), oldest first.
            #expect(seen == Array(all.suffix(wanted)), "newest \(wanted)")
        }
        var calls = 0
        arena.forEach(newest: 10) { _ in calls += 1; return calls < 3 }
        #expect(calls == 3, "stops when the body says so")
    }

    @Test func theNewestEntriesOfAnEmptyArenaOrOfOneChunkWithDropsAreWhatIsLeft() {
        func newest(_ arena: borrowing EntryArena, _ n: Int) -> [Int] {
            var seen: [Int] = []
            arena.forEach(newest: n) { seen.append(Int($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self))); return true }
            return seen
        }
        var arena = EntryArena()
        #expect(newest(arena, 5).isEmpty)
        // Only the chunk new entries go to, its first entries dropped.
        for i in 0..<10 { Self.append(&arena, i) }
        for _ in 0..<4 { arena.removeFirst() }
        #expect(newest(arena, 3) == [7, 8, 9])
        #expect(newest(arena, 6) == [4, 5, 6, 7, 8, 9])
        #expect(newest(arena, 50) == [4, 5, 6, 7, 8, 9])
        #expect(newest(arena, 0).isEmpty && newest(arena, -1).isEmpty)
        arena.removeAll()
        #expect(newest(arena, 5).isEmpty)
        Self.append(&arena, 42)
        #expect(newest(arena, 5) == [42])
    }

    @Test func chunksFromTheNewestHoldEveryLiveEntryOnceNewestChunkFirstOldestFirstWithin() {
        func walkedBack(_ arena: borrowing EntryArena) -> [[Int]] {
            var chunks: [[Int]] = []
            arena.forEachChunkFromNewest { chunk in
                chunks.append(chunk.map { Int($0.loadUnaligned(fromByteOffset: 4, as: UInt32.self)) })
                return true
            }
            return chunks
        }
        var arena = EntryArena()
        #expect(walkedBack(arena).isEmpty)
        let perChunk = EntryArena.chunkSize / 200
        for i in 0..<(3 * perChunk + 17) { Self.append(&arena, i) }
        for _ in 0..<(perChunk / 2) { arena.removeFirst() }
        let chunks = walkedBack(arena)
        #expect(chunks.count == 4)
        #expect(chunks.reversed().flatMap { $0 } == Self.numbers(arena), "every live entry once, none dropped")
        #expect(chunks[0] == Array((3 * perChunk)..<(3 * perChunk + 17)), "the chunk new entries go to comes first")
        #expect(chunks[3].first == perChunk / 2, "the oldest chunk starts at its first live entry")
        var visited = 0
        arena.forEachChunkFromNewest { _ in visited += 1; return visited < 2 }
        #expect(visited == 2, "stops when the body says so")
        // Only the chunk new entries go to, its first entries dropped.
        arena.removeAll()
        for i in 0..<10 { Self.append(&arena, i) }
        for _ in 0..<4 { arena.removeFirst() }
        #expect(walkedBack(arena) == [[4, 5, 6, 7, 8, 9]])
    }

    @Test func anEntryLargerThanAChunkGetsAChunkOfItsOwn() {
        var arena = EntryArena()
        Self.append(&arena, 1)
        let big = EntryArena.chunkSize + 100
        Self.append(&arena, 2, size: big)
        Self.append(&arena, 3)
        var sizes: [Int] = []
        arena.forEach { sizes.append($0.count); return true }
        #expect(sizes == [200, big, 200])
        arena.removeFirst()
        arena.removeFirst()
        #expect(Self.oldest(arena) == 3)
    }

    @Test func removeAllEmptiesTheArenaAndKeepsOneChunk() {
        var arena = EntryArena()
        for i in 0..<(2 * EntryArena.chunkSize / 200) { Self.append(&arena, i) }
        arena.removeAll()
        #expect(arena.count == 0 && Self.numbers(arena).isEmpty)
        #expect(arena.memoryBytes == EntryArena.chunkSize)
        Self.append(&arena, 7)
        #expect(Self.numbers(arena) == [7])
    }
}
