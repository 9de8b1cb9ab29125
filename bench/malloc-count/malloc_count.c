// LD_PRELOAD shim counting heap allocations (malloc, calloc, realloc, posix_memalign, aligned_alloc) so a
// benchmark can report allocations per request: it writes "TOTAL SWIFT" to $MALLOC_COUNT_FILE every 50 ms.
// SWIFT counts the allocations whose caller is Swift code: the Swift runtime (every Swift heap object,
// array, string and `UnsafeMutableRawPointer.allocate` goes through its swift_slowAlloc), Foundation, or
// the main executable; the rest come from C libraries (nghttp2, OpenSSL, glibc, libdispatch).
// Built by bench/malloc-count/build.sh; used only by bench scripts, never by the product.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static atomic_ulong allocations;
static atomic_ulong swift_allocations;

// Executable segments of the Swift code's modules, found once at start (before any Swift code runs).
#define MAX_RANGES 64
static struct { uintptr_t start, end; } swift_ranges[MAX_RANGES];
static int swift_range_count;

static int is_swift_module(const char *name, int is_main) {
    if (is_main) return 1;
    // libswiftCore, libswift_Concurrency, libswiftDispatch…; libFoundation, libFoundationEssentials,
    // libFoundationNetworking (lib_FoundationICU is ICU's C++ and does not match).
    return strstr(name, "libswift") != NULL || strstr(name, "libFoundation") != NULL;
}

static int collect(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    int *index = data;
    int is_main = (*index)++ == 0;
    if (!is_swift_module(info->dlpi_name ? info->dlpi_name : "", is_main)) return 0;
    for (int i = 0; i < info->dlpi_phnum && swift_range_count < MAX_RANGES; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_X)) continue;
        swift_ranges[swift_range_count].start = info->dlpi_addr + ph->p_vaddr;
        swift_ranges[swift_range_count].end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        swift_range_count++;
    }
    return 0;
}

static inline void count(void *caller) {
    atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
    uintptr_t pc = (uintptr_t)caller;
    for (int i = 0; i < swift_range_count; i++) {
        if (pc >= swift_ranges[i].start && pc < swift_ranges[i].end) {
            atomic_fetch_add_explicit(&swift_allocations, 1, memory_order_relaxed);
            return;
        }
    }
}
static void *(*real_malloc)(size_t);
static void *(*real_calloc)(size_t, size_t);
static void *(*real_realloc)(void *, size_t);
static int (*real_posix_memalign)(void **, size_t, size_t);
static void *(*real_aligned_alloc)(size_t, size_t);

// dlsym itself may call calloc before real_calloc is known: serve it from a static buffer.
static char bootstrap[4096];
static size_t bootstrap_used;

static void *bootstrap_alloc(size_t n) {
    n = (n + 15) & ~(size_t)15;
    if (bootstrap_used + n > sizeof bootstrap) return NULL;
    void *p = bootstrap + bootstrap_used;
    bootstrap_used += n;
    return p;
}

static void resolve(void) {
    if (real_malloc) return;
    real_calloc = dlsym(RTLD_NEXT, "calloc");
    real_malloc = dlsym(RTLD_NEXT, "malloc");
    real_realloc = dlsym(RTLD_NEXT, "realloc");
    real_posix_memalign = dlsym(RTLD_NEXT, "posix_memalign");
    real_aligned_alloc = dlsym(RTLD_NEXT, "aligned_alloc");
}

void *malloc(size_t n) {
    resolve();
    count(__builtin_return_address(0));
    return real_malloc(n);
}

void *calloc(size_t a, size_t b) {
    if (!real_calloc) {
        void *p = bootstrap_alloc(a * b);
        if (p) memset(p, 0, a * b);
        return p;
    }
    count(__builtin_return_address(0));
    return real_calloc(a, b);
}

void *realloc(void *p, size_t n) {
    resolve();
    count(__builtin_return_address(0));
    return real_realloc(p, n);
}

int posix_memalign(void **out, size_t align, size_t n) {
    resolve();
    count(__builtin_return_address(0));
    return real_posix_memalign(out, align, n);
}

void *aligned_alloc(size_t align, size_t n) {
    resolve();
    count(__builtin_return_address(0));
    return real_aligned_alloc(align, n);
}

void free(void *p) {
    static void (*real_free)(void *);
    if ((char *)p >= bootstrap && (char *)p < bootstrap + sizeof bootstrap) return;
    if (!real_free) real_free = dlsym(RTLD_NEXT, "free");
    real_free(p);
}

static void *reporter(void *path) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", (const char *)path);
    for (;;) {
        FILE *f = fopen(tmp, "w");
        if (f) {
            fprintf(f, "%lu %lu\n", atomic_load(&allocations), atomic_load(&swift_allocations));
            fclose(f);
            rename(tmp, (const char *)path);
        }
        usleep(50000);
    }
    return NULL;
}

__attribute__((constructor)) static void start(void) {
    resolve();
    int index = 0;
    dl_iterate_phdr(collect, &index);
    const char *path = getenv("MALLOC_COUNT_FILE");
    if (!path) return;
    pthread_t t;
    pthread_create(&t, NULL, reporter, strdup(path));
    pthread_detach(t);
}
