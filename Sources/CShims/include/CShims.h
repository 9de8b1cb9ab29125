#ifndef CSHIMS_H
#define CSHIMS_H
// Only what Swift cannot import on its own: Linux calls hidden behind _GNU_SOURCE in
// Swift's Glibc module, and OpenSSL function-like macros. Each wrapper is named
// CShims_<original> so a search for the C name finds it.
#include <stdint.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <openssl/ssl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <stdarg.h>
#include <microhttpd.h>
#include <openssl/x509v3.h> // GENERAL_NAME and its stack macros, used by the wrappers below

// ---- Linux ----------------------------------------------------------------
int CShims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags);
int CShims_epoll_create1(int flags);
int CShims_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data);
/// Waits and copies at most `max` (events, data) pairs into the two arrays.
int CShims_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms);
int CShims_eventfd(unsigned int initval, int flags);
/// glibc's malloc_trim: hands freed heap pages back to the kernel after a connection wave.
int CShims_malloc_trim(size_t pad);

static const uint32_t CShims_EPOLLIN = EPOLLIN;
static const uint32_t CShims_EPOLLOUT = EPOLLOUT;
static const uint32_t CShims_EPOLLERR = EPOLLERR;
static const uint32_t CShims_EPOLLHUP = EPOLLHUP;
static const uint32_t CShims_EPOLLRDHUP = EPOLLRDHUP;
static const uint32_t CShims_EPOLLET = EPOLLET;
static const int CShims_EPOLL_CTL_ADD = EPOLL_CTL_ADD;
static const int CShims_EPOLL_CTL_MOD = EPOLL_CTL_MOD;
static const int CShims_EPOLL_CTL_DEL = EPOLL_CTL_DEL;
static const int CShims_SOCK_NONBLOCK = SOCK_NONBLOCK;
static const int CShims_SOCK_CLOEXEC = SOCK_CLOEXEC;
static const int CShims_EFD_NONBLOCK = EFD_NONBLOCK;
static const int CShims_EFD_CLOEXEC = EFD_CLOEXEC;

// ---- OpenSSL macros ---------------------------------------------------------
static inline int CShims_SSL_CTX_set_min_proto_version(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_min_proto_version(ctx, v); }
static inline int CShims_SSL_CTX_set_max_proto_version(SSL_CTX *ctx, int v) { return (int)SSL_CTX_set_max_proto_version(ctx, v); }
static inline long CShims_SSL_CTX_set_mode(SSL_CTX *ctx, long mode) { return SSL_CTX_set_mode(ctx, mode); }
static inline uint64_t CShims_SSL_CTX_set_options(SSL_CTX *ctx, uint64_t op) { return SSL_CTX_set_options(ctx, op); }
static inline int CShims_SSL_CTX_set_app_data(SSL_CTX *ctx, void *data) { return SSL_CTX_set_app_data(ctx, data); }
static inline void *CShims_SSL_CTX_get_app_data(const SSL_CTX *ctx) { return SSL_CTX_get_app_data(ctx); }
static inline int CShims_SSL_set_app_data(SSL *ssl, void *data) { return SSL_set_app_data(ssl, data); }
static inline void *CShims_SSL_get_app_data(const SSL *ssl) { return SSL_get_app_data(ssl); }
static inline long CShims_SSL_set_tlsext_host_name(SSL *ssl, const char *name) { return SSL_set_tlsext_host_name(ssl, name); }
static inline long CShims_SSL_CTX_set_session_cache_mode(SSL_CTX *ctx, long m) { return SSL_CTX_set_session_cache_mode(ctx, m); }
static inline long CShims_SSL_CTX_set1_groups_list(SSL_CTX *ctx, const char *list) { return SSL_CTX_set1_groups_list(ctx, list); }
static inline long CShims_SSL_CTX_set_read_ahead(SSL_CTX *ctx, int yes) { return SSL_CTX_set_read_ahead(ctx, yes); }
static inline int CShims_ERR_GET_LIB(unsigned long e) { return ERR_GET_LIB(e); }
static inline int CShims_ERR_GET_REASON(unsigned long e) { return ERR_GET_REASON(e); }
static inline void CShims_BIO_set_retry_read(BIO *b) { BIO_set_retry_read(b); }
static inline void CShims_BIO_set_retry_write(BIO *b) { BIO_set_retry_write(b); }
static inline void CShims_BIO_clear_retry_flags(BIO *b) { BIO_clear_retry_flags(b); }
static inline long CShims_BIO_get_mem_data(BIO *b, char **pp) { return BIO_get_mem_data(b, pp); }
static inline STACK_OF(X509) *CShims_sk_X509_new_null(void) { return sk_X509_new_null(); }
static inline int CShims_sk_X509_push(STACK_OF(X509) *sk, X509 *x) { return sk_X509_push(sk, x); }
static inline void CShims_sk_X509_pop_free(STACK_OF(X509) *sk) { sk_X509_pop_free(sk, X509_free); }
static inline int CShims_sk_GENERAL_NAME_num(const STACK_OF(GENERAL_NAME) *sk) { return sk_GENERAL_NAME_num(sk); }
static inline const GENERAL_NAME *CShims_sk_GENERAL_NAME_value(const STACK_OF(GENERAL_NAME) *sk, int i) { return sk_GENERAL_NAME_value(sk, i); }
static inline void CShims_GENERAL_NAMES_free(STACK_OF(GENERAL_NAME) *sk) { GENERAL_NAMES_free(sk); }

static const uint64_t CShims_SSL_OP_NO_COMPRESSION = SSL_OP_NO_COMPRESSION;
static const uint64_t CShims_SSL_OP_NO_RENEGOTIATION = SSL_OP_NO_RENEGOTIATION;
static const uint64_t CShims_SSL_OP_NO_TICKET = SSL_OP_NO_TICKET;
static const uint64_t CShims_SSL_OP_CIPHER_SERVER_PREFERENCE = SSL_OP_CIPHER_SERVER_PREFERENCE;
static const uint64_t CShims_SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION = SSL_OP_NO_SESSION_RESUMPTION_ON_RENEGOTIATION;
static const long CShims_SSL_MODE_RELEASE_BUFFERS = SSL_MODE_RELEASE_BUFFERS;
static const long CShims_SSL_MODE_ENABLE_PARTIAL_WRITE = SSL_MODE_ENABLE_PARTIAL_WRITE;
static const long CShims_SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER = SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER;
static const long CShims_SSL_SESS_CACHE_SERVER = SSL_SESS_CACHE_SERVER;
static const long CShims_SSL_SESS_CACHE_OFF = SSL_SESS_CACHE_OFF;

// ---- libmicrohttpd (MHD_start_daemon is variadic, which Swift cannot call) ---
/// Starts a daemon on an already bound, listening socket with `thread_pool_size` polling threads (each serving
/// its share of the connections; 1 for a single internal thread).
struct MHD_Daemon *CShims_MHD_start_daemon(unsigned int flags, int listen_fd,
                                           MHD_AccessHandlerCallback handler, void *handler_cls,
                                           MHD_RequestCompletedCallback completed, void *completed_cls,
                                           unsigned int connection_timeout_seconds,
                                           unsigned int connection_limit,
                                           unsigned int thread_pool_size);
/// The same over TLS (libmicrohttpd's GnuTLS): `certificate_chain_pem` is the leaf followed by its issuers,
/// `private_key_pem` its key (PKCS#8 or SEC1); both NUL-terminated, kept alive by the caller while the daemon runs.
struct MHD_Daemon *CShims_MHD_start_tls_daemon(unsigned int flags, int listen_fd,
                                               MHD_AccessHandlerCallback handler, void *handler_cls,
                                               MHD_RequestCompletedCallback completed, void *completed_cls,
                                               unsigned int connection_timeout_seconds,
                                               unsigned int connection_limit,
                                               unsigned int thread_pool_size,
                                               const char *certificate_chain_pem, const char *private_key_pem);

// ---- jansson -----------------------------------------------------------------
#include <jansson.h>
/// Parses `length` bytes of JSON as json_loadb does, allocating at most `budget` bytes (as malloc_usable_size
/// counts them) for the tree: a body of tiny values cannot take more memory than that, whatever its shape. On
/// failure returns NULL with `error` filled; `*exhausted` is 1 when the budget ran out.
json_t *CShims_json_loadb_bounded(const uint8_t *buffer, size_t length, size_t flags, json_error_t *error,
                                  size_t budget, int *exhausted);
/// The message of a failed parse (jansson keeps it in a fixed char array Swift imports as a tuple).
static inline const char *CShims_json_error_text(const json_error_t *error) { return error->text; }

// ---- libFuzzer ---------------------------------------------------------------
/// libFuzzer's driver, linked only into `make fuzz`'s build of apns-emulator-fuzz (libclang_rt.fuzzer_no_main).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

// ---- counters --------------------------------------------------------------
/// Relaxed atomic add and load on a plain uint64_t slot: metrics counters in one allocated table, bumped
/// from every event loop without a lock (Swift's Atomic cannot live in an array).
static inline void CShims_counter_add(uint64_t *slot, uint64_t value) { __atomic_fetch_add(slot, value, __ATOMIC_RELAXED); }
static inline uint64_t CShims_counter_load(const uint64_t *slot) { return __atomic_load_n(slot, __ATOMIC_RELAXED); }
static inline void CShims_counter_max(uint64_t *slot, uint64_t value) {
    uint64_t seen = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (value > seen && !__atomic_compare_exchange_n(slot, &seen, value, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {}
}
/// The same for a slot only one thread ever writes: a relaxed load and store, no locked instruction (a locked
/// add costs ~20 cycles, and a push bumps eight counters). Readers on other threads see whole values.
static inline void CShims_counter_bump(uint64_t *slot, uint64_t value) {
    __atomic_store_n(slot, __atomic_load_n(slot, __ATOMIC_RELAXED) + value, __ATOMIC_RELAXED);
}
static inline void CShims_counter_raise(uint64_t *slot, uint64_t value) {
    if (value > __atomic_load_n(slot, __ATOMIC_RELAXED)) __atomic_store_n(slot, value, __ATOMIC_RELAXED);
}

// ---- allocation cache (AllocationCache.c) ------------------------------------
/// A cache of freed small blocks (up to 504 bytes) in front of malloc, handed to nghttp2 as its allocator
/// (`nghttp2_mem`): a session allocates and frees ~6 blocks per request (its stream, header buffers, the
/// response's item and header copy), and jemalloc's free, which must look a block's size up, cost more than
/// a list pop and push (perf: malloc and free ~4% of server CPU per push). Not thread-safe: one cache per
/// event loop, used only by that loop's sessions. Freed blocks are kept until `limit_bytes` are cached; more
/// go back to free(), and destroying the cache frees what it holds (every block given out must be freed
/// first, or with it: the sessions are deleted before their loop ends).
typedef struct CShimsAllocationCache CShimsAllocationCache;
typedef struct {
    /// Small allocations served from the cache, and from malloc.
    uint64_t hits;
    uint64_t misses;
    /// Allocations above 504 bytes (never cached).
    uint64_t large;
    /// Bytes of freed blocks held now.
    size_t cached_bytes;
} CShimsAllocationCacheStats;
CShimsAllocationCache *CShims_allocation_cache_create(size_t limit_bytes);
void CShims_allocation_cache_destroy(CShimsAllocationCache *cache);
CShimsAllocationCacheStats CShims_allocation_cache_stats(const CShimsAllocationCache *cache);
/// nghttp2_mem's four functions; `user` is the cache.
void *CShims_allocation_cache_malloc(size_t size, void *user);
void CShims_allocation_cache_free(void *ptr, void *user);
void *CShims_allocation_cache_calloc(size_t count, size_t size, void *user);
void *CShims_allocation_cache_realloc(void *ptr, size_t size, void *user);
/// The usable size of a block from malloc or aligned_alloc (malloc_usable_size, which malloc.h declares and
/// Swift's Glibc module leaves out).
size_t CShims_malloc_usable_size(void *ptr);

// ---- processes -------------------------------------------------------------
/// posix_spawnp with every catchable signal reset to its default action and an empty signal mask, so a
/// child does not inherit SIG_IGN for SIGTERM/SIGPIPE from an emulator that ignores them (a dispositions
/// and masks survive exec; handlers do not). Returns 0 or an errno value.
int CShims_spawn_clean(pid_t *pid, const char *file, char *const argv[], char *const envp[]);

/// The same, with the child's stdin/stdout/stderr taken from the given descriptors (-1: inherit), an optional
/// working directory, and every other descriptor closed in the child. Foundation's Process.run() on Swift
/// 6.3.1 can crash reading /proc/self/fd (swift-corelibs-foundation PR #5472); this path never reads it.
int CShims_spawn_io(pid_t *pid, const char *file, char *const argv[], char *const envp[], const char *cwd,
                    int in_fd, int out_fd, int err_fd);

#endif
