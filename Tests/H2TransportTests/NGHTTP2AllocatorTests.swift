import CNGHTTP2
import CShims
import Synchronization
import Testing

@testable import H2Transport

/// nghttp2's per-loop allocator: freed small blocks come back to the next allocation of their size, the cache
/// never holds more than its limit, and realloc and calloc keep malloc's promises across sizes and reuse.
@Suite("NGHTTP2Allocator")
struct NGHTTP2AllocatorTests {
    @Test func aFreedSmallBlockServesTheNextAllocationOfItsSizeAndALargeOneIsNotKept() {
        let allocator = NGHTTP2Allocator()
        let mem = allocator.memory
        let first = mem.malloc(100, mem.mem_user_data)!
        mem.free(first, mem.mem_user_data)
        let second = mem.malloc(97, mem.mem_user_data)!  // the same 16-byte class
        #expect(second == first)
        #expect(allocator.stats.hits == 1 && allocator.stats.misses == 1 && allocator.stats.cachedBytes == 0)
        let large = mem.malloc(4096, mem.mem_user_data)!
        mem.free(large, mem.mem_user_data)
        mem.free(second, mem.mem_user_data)
        #expect(allocator.stats.large == 1 && allocator.stats.cachedBytes == 112)
    }

    /// A large block carries no header: it is the allocator's own block (0 mod 16, as aligned_alloc gives it),
    /// where a small one sits behind an 8-byte class word (8 mod 16). Whether that keeps nghttp2's 4 KiB buffer in
    /// its jemalloc size class is measured by bench/idle-connections.sh: glibc, which the tests run on, may hand
    /// out a chunk a few words larger than asked whatever the request.
    @Test func aLargeBlockIsTheAllocatorsOwnBlockWithNoHeader() {
        let allocator = NGHTTP2Allocator()
        let mem = allocator.memory
        let small = mem.malloc(504, mem.mem_user_data)!, large = mem.malloc(4096, mem.mem_user_data)!
        #expect(UInt(bitPattern: small) % 16 == 8 && UInt(bitPattern: large) % 16 == 0)
        #expect(CShims_malloc_usable_size(large) >= 4096)
        #expect(allocator.stats.large == 1 && allocator.stats.misses == 1)
        mem.free(small, mem.mem_user_data)
        mem.free(large, mem.mem_user_data)
        #expect(allocator.stats.cachedBytes == 512)
    }

    @Test func theCacheHoldsNoMoreThanItsLimit() {
        let allocator = NGHTTP2Allocator(limitBytes: 1000)
        let mem = allocator.memory
        let blocks = (0..<20).map { _ in mem.malloc(100, mem.mem_user_data)! }
        for block in blocks { mem.free(block, mem.mem_user_data) }
        #expect(allocator.stats.cachedBytes == 8 * 112)  // the ninth would pass 1000 bytes: freed for real
        let again = (0..<20).map { _ in mem.malloc(100, mem.mem_user_data)! }
        #expect(allocator.stats.hits == 8 && allocator.stats.misses == 32 && allocator.stats.cachedBytes == 0)
        for block in again { mem.free(block, mem.mem_user_data) }
    }

    @Test func reallocKeepsTheBytesAcrossSizeClassesAndIntoALargeBlock() {
        let allocator = NGHTTP2Allocator()
        let mem = allocator.memory
        var block = mem.malloc(10, mem.mem_user_data)!
        for i in 0..<10 { block.storeBytes(of: UInt8(i + 1), toByteOffset: i, as: UInt8.self) }
        #expect(mem.realloc(block, 16, mem.mem_user_data) == block)  // fits its class: not moved
        for size in [300, 5000, 20000] {
            block = mem.realloc(block, size, mem.mem_user_data)!
            #expect((0..<10).allSatisfy { block.load(fromByteOffset: $0, as: UInt8.self) == UInt8($0 + 1) })
        }
        mem.free(block, mem.mem_user_data)
        let fresh = mem.realloc(nil, 40, mem.mem_user_data)  // realloc(nil) is malloc
        #expect(fresh != nil)
        mem.free(fresh, mem.mem_user_data)
    }

    @Test func callocZeroesAReusedBlock() {
        let allocator = NGHTTP2Allocator()
        let mem = allocator.memory
        let block = mem.malloc(64, mem.mem_user_data)!
        block.initializeMemory(as: UInt8.self, repeating: 0xFF, count: 64)
        mem.free(block, mem.mem_user_data)
        let zeroed = mem.calloc(4, 16, mem.mem_user_data)!
        #expect(zeroed == block)
        #expect((0..<64).allSatisfy { zeroed.load(fromByteOffset: $0, as: UInt8.self) == 0 })
        #expect(mem.calloc(Int.max, 2, mem.mem_user_data) == nil)  // the product overflows
        mem.free(zeroed, mem.mem_user_data)
        mem.free(nil, mem.mem_user_data)
    }

    /// A server session allocates through its loop's cache: once a connection is warm, each request's blocks
    /// are the previous request's, taken back from the cache, and malloc is not called. (nghttp2 keeps as many
    /// closed streams as the concurrent-stream limit, to answer late frames on them: warm means past that many.)
    @Test func aServersRequestsReuseTheBlocksOfTheRequestsBeforeThem() async throws {
        let seen = Mutex<[(hits: UInt64, misses: UInt64)]>([])
        let handler = RecordingHandler { _, connection, responder in
            let stats = connection.loop.nghttp2Allocator.stats  // on the loop, as the cache requires
            seen.withLock { $0.append((stats.hits, stats.misses)) }
            responder.respond(H2Response(status: 200))
        }
        try await withTestServer(handler: handler, configure: {
            $0.eventLoops = 1
            $0.settings.maxConcurrentStreams = 8
        }) { _, port in
            let client = try makeClient()
            defer { client.shutdown() }
            let connection = try await client.connect(host: "127.0.0.1", port: port, serverName: "api.push.apple.com")
            for _ in 0..<40 { #expect(try await connection.send(pushRequest(port: port)).status == 200) }
        }
        let stats = seen.withLock { $0 }
        try #require(stats.count == 40)
        let warm = stats[20], last = stats[39]
        #expect(last.hits - warm.hits >= 19 * 3)
        #expect(last.misses == warm.misses)
    }
}
