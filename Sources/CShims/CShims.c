#include "CShims.h"
#include <malloc.h>
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
