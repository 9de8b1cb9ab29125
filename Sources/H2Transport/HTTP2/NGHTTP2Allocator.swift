import CNGHTTP2
import CShims

/// The allocator an event loop's nghttp2 sessions use: a cache of freed small blocks in front of malloc
/// (`CShims_allocation_cache_*`).
///
/// A session allocates and frees ~6 blocks per request: its stream, the decoded `:path` and `authorization`
/// values, the response's queue item and header copy. Through jemalloc these cost ~4% of the server's CPU per
/// push (`perf`: `free` 2.6%, `malloc` 1.5%), `free` the most, as it must look each block's size up; the cache
/// pops and pushes a list. One per loop, because nghttp2's allocator is not synchronised: sessions are created,
/// used and deleted on their connection's loop, and a connection holds its loop, so no session outlives the
/// cache this frees in `deinit`.
final class NGHTTP2Allocator {
    /// What the cache may hold: ~2× the blocks 800 requests in flight use (8 connections × 100 streams, ~6
    /// blocks of ~150 bytes each), so a load generator's burst is served from it and an idle loop holds little.
    static let defaultLimitBytes = 2 << 20

    private let cache: OpaquePointer

    init(limitBytes: Int = NGHTTP2Allocator.defaultLimitBytes) {
        guard let cache = CShims_allocation_cache_create(limitBytes) else {
            fatalError("out of memory creating an nghttp2 allocation cache")
        }
        self.cache = cache
    }

    deinit { CShims_allocation_cache_destroy(cache) }

    /// The `nghttp2_mem` to create a session with (nghttp2 copies it).
    var memory: nghttp2_mem {
        nghttp2_mem(mem_user_data: UnsafeMutableRawPointer(cache),
                    malloc: CShims_allocation_cache_malloc, free: CShims_allocation_cache_free,
                    calloc: CShims_allocation_cache_calloc, realloc: CShims_allocation_cache_realloc)
    }

    /// Small allocations served from the cache and from malloc, large ones, and the bytes held now.
    var stats: (hits: UInt64, misses: UInt64, large: UInt64, cachedBytes: Int) {
        let s = CShims_allocation_cache_stats(cache)
        return (s.hits, s.misses, s.large, s.cached_bytes)
    }
}
