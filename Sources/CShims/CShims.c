#include "CShims.h"
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>

int CShims_accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
    return accept4(fd, addr, len, flags);
}

int CShims_epoll_create1(int flags) { return epoll_create1(flags); }

int CShims_epoll_ctl(int epfd, int op, int fd, uint32_t events, uint64_t data) {
    struct epoll_event ev;
    ev.events = events;
    ev.data.u64 = data;
    return epoll_ctl(epfd, op, fd, &ev);
}

int CShims_epoll_wait(int epfd, uint32_t *events, uint64_t *data, int max, int timeout_ms) {
    struct epoll_event evs[256];
    if (max > 256) max = 256;
    int n = epoll_wait(epfd, evs, max, timeout_ms);
    for (int i = 0; i < n; i++) {
        events[i] = evs[i].events;
        data[i] = evs[i].data.u64;
    }
    return n;
}

int CShims_eventfd(unsigned int initval, int flags) { return eventfd(initval, flags); }

struct MHD_Daemon *CShims_MHD_start_daemon(unsigned int flags, int listen_fd,
                                           MHD_AccessHandlerCallback handler, void *handler_cls,
                                           MHD_RequestCompletedCallback completed, void *completed_cls,
                                           unsigned int connection_timeout_seconds,
                                           unsigned int connection_limit,
                                           unsigned int thread_pool_size) {
    return MHD_start_daemon(flags, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_END);
}

struct MHD_Daemon *CShims_MHD_start_tls_daemon(unsigned int flags, int listen_fd,
                                               MHD_AccessHandlerCallback handler, void *handler_cls,
                                               MHD_RequestCompletedCallback completed, void *completed_cls,
                                               unsigned int connection_timeout_seconds,
                                               unsigned int connection_limit,
                                               unsigned int thread_pool_size,
                                               const char *certificate_chain_pem, const char *private_key_pem) {
    return MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, handler, handler_cls,
                            MHD_OPTION_LISTEN_SOCKET, (MHD_socket)listen_fd,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
                            MHD_OPTION_CONNECTION_LIMIT, connection_limit,
                            MHD_OPTION_THREAD_POOL_SIZE, thread_pool_size,
                            MHD_OPTION_HTTPS_MEM_CERT, certificate_chain_pem,
                            MHD_OPTION_HTTPS_MEM_KEY, private_key_pem,
                            MHD_OPTION_END);
}

int CShims_malloc_trim(size_t pad) { return malloc_trim(pad); }

/// The child starts with no signal blocked and every signal at its default disposition (masks and ignored
/// signals survive exec; the parent's may not suit the child).
static void clean_signals(posix_spawnattr_t *attr) {
    sigset_t empty, defaults;
    sigemptyset(&empty);
    sigemptyset(&defaults);
    for (int s = 1; s < NSIG; s++) {
        if (s != SIGKILL && s != SIGSTOP) sigaddset(&defaults, s);
    }
    posix_spawnattr_setsigmask(attr, &empty);
    posix_spawnattr_setsigdefault(attr, &defaults);
    posix_spawnattr_setflags(attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
}

int CShims_spawn_clean(pid_t *pid, const char *file, char *const argv[], char *const envp[]) {
    posix_spawnattr_t attr;
    int rc = posix_spawnattr_init(&attr);
    if (rc != 0) return rc;
    clean_signals(&attr);
    rc = posix_spawnp(pid, file, NULL, &attr, argv, envp);
    posix_spawnattr_destroy(&attr);
    return rc;
}

int CShims_spawn_io(pid_t *pid, const char *file, char *const argv[], char *const envp[], const char *cwd,
                    int in_fd, int out_fd, int err_fd) {
    posix_spawnattr_t attr;
    posix_spawn_file_actions_t actions;
    int rc = posix_spawnattr_init(&attr);
    if (rc != 0) return rc;
    rc = posix_spawn_file_actions_init(&actions);
    if (rc != 0) { posix_spawnattr_destroy(&attr); return rc; }
    clean_signals(&attr);
    if (in_fd >= 0) posix_spawn_file_actions_adddup2(&actions, in_fd, 0);
    if (out_fd >= 0) posix_spawn_file_actions_adddup2(&actions, out_fd, 1);
    if (err_fd >= 0) posix_spawn_file_actions_adddup2(&actions, err_fd, 2);
    if (cwd != NULL) posix_spawn_file_actions_addchdir_np(&actions, cwd);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    rc = posix_spawnp(pid, file, &actions, &attr, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    return rc;
}

// jansson's allocations go through these once the first bounded parse installs them (they are process-wide). Only
// allocations made while this thread parses are counted, against that parse's budget; frees of those (jansson
// frees what it built when a parse fails) give it back. Elsewhere they are plain malloc and free.
static _Thread_local int bounded_parse_active = 0;
static _Thread_local size_t bounded_parse_left = 0;
static _Thread_local int bounded_parse_exhausted = 0;

static void *bounded_malloc(size_t size) {
    if (!bounded_parse_active) return malloc(size);
    if (size > bounded_parse_left) {
        bounded_parse_exhausted = 1;
        return NULL;
    }
    void *p = malloc(size);
    if (p) {
        size_t usable = malloc_usable_size(p);
        bounded_parse_left = usable > bounded_parse_left ? 0 : bounded_parse_left - usable;
    }
    return p;
}

static void bounded_free(void *p) {
    if (p && bounded_parse_active) bounded_parse_left += malloc_usable_size(p);
    free(p);
}

static pthread_once_t bounded_alloc_once = PTHREAD_ONCE_INIT;
static void install_bounded_alloc(void) { json_set_alloc_funcs(bounded_malloc, bounded_free); }

json_t *CShims_json_loadb_bounded(const uint8_t *buffer, size_t length, size_t flags, json_error_t *error,
                                  size_t budget, int *exhausted) {
    pthread_once(&bounded_alloc_once, install_bounded_alloc);
    bounded_parse_active = 1;
    bounded_parse_left = budget;
    bounded_parse_exhausted = 0;
    json_t *root = json_loadb((const char *)buffer, length, flags, error);
    bounded_parse_active = 0;
    *exhausted = bounded_parse_exhausted;
    return root;
}
