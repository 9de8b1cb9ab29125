#include "CShims.h"
#include <stdlib.h>
#include <string.h>

// A cache of freed small blocks in front of malloc, for nghttp2 sessions (see CShims.h for why).
//
// Every block carries a 16-byte header (keeping the 16-byte alignment malloc gives) with its usable size and
// its size class: 16-byte classes up to CSHIMS_CACHE_MAX_SMALL bytes, class 0 for larger blocks, which go
// straight back to free(). A freed small block is pushed on its class's list, unless the cache already holds
// `limit_bytes`; malloc pops from the list before calling malloc(). Single-threaded by contract: one cache per
// event loop, used only by the sessions that loop runs.

#define CSHIMS_CACHE_MAX_SMALL 512
#define CSHIMS_CACHE_CLASSES (CSHIMS_CACHE_MAX_SMALL / 16 + 1)
#define CSHIMS_CACHE_HEADER 16

typedef struct CShimsCachedBlock {
    struct CShimsCachedBlock *next;
} CShimsCachedBlock;

struct CShimsAllocationCache {
    CShimsCachedBlock *free_lists[CSHIMS_CACHE_CLASSES];
    size_t cached_bytes;
    size_t limit_bytes;
    CShimsAllocationCacheStats stats;
};

typedef struct {
    size_t usable;
    size_t size_class;
} CShimsBlockHeader;

_Static_assert(sizeof(CShimsBlockHeader) == CSHIMS_CACHE_HEADER, "the header keeps malloc's alignment");

static inline CShimsBlockHeader *header_of(void *ptr) {
    return (CShimsBlockHeader *)((char *)ptr - CSHIMS_CACHE_HEADER);
}

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
            free(header_of(block));
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
        size_t c = size == 0 ? 1 : (size + 15) >> 4;
        CShimsCachedBlock *block = cache->free_lists[c];
        if (block) {
            cache->free_lists[c] = block->next;
            cache->cached_bytes -= c << 4;
            cache->stats.hits++;
            return block;
        }
        cache->stats.misses++;
        CShimsBlockHeader *h = malloc(CSHIMS_CACHE_HEADER + (c << 4));
        if (!h) return NULL;
        h->usable = c << 4;
        h->size_class = c;
        return (char *)h + CSHIMS_CACHE_HEADER;
    }
    if (size > SIZE_MAX - CSHIMS_CACHE_HEADER) return NULL;
    cache->stats.large++;
    CShimsBlockHeader *h = malloc(CSHIMS_CACHE_HEADER + size);
    if (!h) return NULL;
    h->usable = size;
    h->size_class = 0;
    return (char *)h + CSHIMS_CACHE_HEADER;
}

void CShims_allocation_cache_free(void *ptr, void *user) {
    if (!ptr) return;
    CShimsAllocationCache *cache = user;
    CShimsBlockHeader *h = header_of(ptr);
    size_t c = h->size_class;
    if (c != 0 && cache->cached_bytes + (c << 4) <= cache->limit_bytes) {
        CShimsCachedBlock *block = ptr;
        block->next = cache->free_lists[c];
        cache->free_lists[c] = block;
        cache->cached_bytes += c << 4;
        return;
    }
    free(h);
}

void *CShims_allocation_cache_calloc(size_t count, size_t size, void *user) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *ptr = CShims_allocation_cache_malloc(count * size, user);
    if (ptr) memset(ptr, 0, count * size);
    return ptr;
}

void *CShims_allocation_cache_realloc(void *ptr, size_t size, void *user) {
    if (!ptr) return CShims_allocation_cache_malloc(size, user);
    size_t usable = header_of(ptr)->usable;
    if (size <= usable) return ptr;
    void *grown = CShims_allocation_cache_malloc(size, user);
    if (!grown) return NULL;  // the old block stays valid, as realloc() leaves it
    memcpy(grown, ptr, usable);
    CShims_allocation_cache_free(ptr, user);
    return grown;
}
