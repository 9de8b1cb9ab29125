#include "CShims.h"
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

// A cache of freed small blocks in front of malloc, for nghttp2 sessions (see CShims.h for why).
//
// Blocks are told apart by where they start, so a large block carries no header and keeps its allocator size
// class (a 16-byte header made nghttp2's 1 KiB and 4 KiB session buffers jemalloc's 1280 and 5120 classes:
// +1.3 KiB per idle connection):
// - a small block (up to CSHIMS_CACHE_MAX_SMALL bytes) is an aligned_alloc(16, c * 16) allocation whose first
//   8 bytes hold its class c; the caller gets the address 8 bytes in, which is 8 mod 16. Freed, it goes on
//   its class's list unless the cache already holds `limit_bytes`; allocating pops that list first.
// - a large block is an aligned_alloc(16, …) allocation handed out as it is: 0 mod 16.
// nghttp2 needs no more than 8-byte alignment (its structures hold pointers and 64-bit integers).
// Single-threaded by contract: one cache per event loop, used only by the sessions that loop runs.

#define CSHIMS_CACHE_CLASSES 33  // classes 1…32: blocks of 16…512 bytes, 8…504 of them usable
#define CSHIMS_CACHE_MAX_SMALL (32 * 16 - 8)

typedef struct CShimsCachedBlock {
    struct CShimsCachedBlock *next;
} CShimsCachedBlock;

struct CShimsAllocationCache {
    CShimsCachedBlock *free_lists[CSHIMS_CACHE_CLASSES];
    size_t cached_bytes;
    size_t limit_bytes;
    CShimsAllocationCacheStats stats;
};

static inline int is_small(const void *ptr) { return ((uintptr_t)ptr & 15) == 8; }
static inline size_t *class_slot(void *ptr) { return (size_t *)((char *)ptr - 8); }
static inline size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

CShimsAllocationCache *CShims_allocation_cache_create(size_t limit_bytes) {
    CShimsAllocationCache *cache = calloc(1, sizeof(CShimsAllocationCache));
    if (cache) cache->limit_bytes = limit_bytes;
    return cache;
}

void CShims_allocation_cache_destroy(CShimsAllocationCache *cache) {
    if (!cache) return;
    for (size_t c = 0; c < CSHIMS_CACHE_CLASSES; c++) {
        CShimsCachedBlock *block = cache->free_lists[c];
        while (block) {
            CShimsCachedBlock *next = block->next;
            free(class_slot(block));
            block = next;
        }
    }
    free(cache);
}

CShimsAllocationCacheStats CShims_allocation_cache_stats(const CShimsAllocationCache *cache) {
    CShimsAllocationCacheStats stats = cache->stats;
    stats.cached_bytes = cache->cached_bytes;
    return stats;
}

void *CShims_allocation_cache_malloc(size_t size, void *user) {
    CShimsAllocationCache *cache = user;
    if (size <= CSHIMS_CACHE_MAX_SMALL) {
        size_t c = (size + 8 + 15) >> 4;
        CShimsCachedBlock *block = cache->free_lists[c];
        if (block) {
            cache->free_lists[c] = block->next;
            cache->cached_bytes -= c << 4;
            cache->stats.hits++;
            return block;
        }
        cache->stats.misses++;
        size_t *h = aligned_alloc(16, c << 4);
        if (!h) return NULL;
        *h = c;
        return h + 1;
    }
    if (size > SIZE_MAX - 15) return NULL;
    cache->stats.large++;
    return aligned_alloc(16, round16(size));
}

void CShims_allocation_cache_free(void *ptr, void *user) {
    if (!ptr) return;
    if (!is_small(ptr)) {
        free(ptr);
        return;
    }
    CShimsAllocationCache *cache = user;
    size_t c = *class_slot(ptr);
    if (cache->cached_bytes + (c << 4) <= cache->limit_bytes) {
        CShimsCachedBlock *block = ptr;
        block->next = cache->free_lists[c];
        cache->free_lists[c] = block;
        cache->cached_bytes += c << 4;
        return;
    }
    free(class_slot(ptr));
}

void *CShims_allocation_cache_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *ptr = CShims_allocation_cache_malloc(count * size, user);
    if (ptr) memset(ptr, 0, count * size);
    return ptr;
}

void *CShims_allocation_cache_realloc(void *ptr, size_t size, void *user) {
    if (!ptr) return CShims_allocation_cache_malloc(size, user);
    size_t usable = is_small(ptr) ? (*class_slot(ptr) << 4) - 8 : malloc_usable_size(ptr);
    if (size <= usable) return ptr;
    void *grown = CShims_allocation_cache_malloc(size, user);
    if (!grown) return NULL;  // the old block stays valid, as realloc() leaves it
    memcpy(grown, ptr, usable);
    CShims_allocation_cache_free(ptr, user);
    return grown;
}

size_t CShims_malloc_usable_size(void *ptr) { return malloc_usable_size(ptr); }
