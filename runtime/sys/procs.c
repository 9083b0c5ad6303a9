/* procs.c - the other processes of a case (see procs.h). */
#define _GNU_SOURCE
#include "procs.h"
#include "self.h"
#include "clock.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t parent_pid;
static int child_sock = -1; /* a child: its end of the socket to main */
/* main: each running child's pid and main's end of the socket to it (file descriptors pass only there) */
static struct {
    pid_t pid;
    int sock;
} socks[64];

static void forget_sock(pid_t pid)
{
    for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++)
        if (socks[i].pid == pid && pid > 0) {
            close(socks[i].sock);
            socks[i].pid = 0, socks[i].sock = -1;
        }
}

void *sc_procs_region_create(size_t bytes, int *fd, char *why, size_t whylen)
{
    *fd = memfd_create("streamcts-shared", 0); /* no MFD_CLOEXEC: the children inherit it */
    if (*fd < 0 || ftruncate(*fd, (off_t)bytes) != 0) {
        snprintf(why, whylen, "cannot create the memory shared with the case's processes: %s", strerror(errno));
        return NULL;
    }
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (p == MAP_FAILED) {
        snprintf(why, whylen, "cannot map the memory shared with the case's processes: %s", strerror(errno));
        return NULL;
    }
    return p;
}

void *sc_procs_region_map(int fd, size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return p == MAP_FAILED ? NULL : p;
}

int sc_procs_spawn(char *const argv[], int api, int proc, const int fd[2], const char *setting, pid_t *pid,
                   char *why, size_t whylen)
{
    char var[128], how[200];
    size_t slot = 0;
    int sv[2];
    while (slot < sizeof socks / sizeof socks[0] && socks[slot].pid > 0)
        slot++;
    /* the socket file descriptors pass through (SCM_RIGHTS); main's end is no other child's */
    if (slot == sizeof socks / sizeof socks[0] || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
        snprintf(why, whylen, "cannot make the socket to process %d: %s", proc,
                 slot == sizeof socks / sizeof socks[0] ? "too many processes" : strerror(errno));
        return -1;
    }
    snprintf(var, sizeof var, "%s=%d %d %d %d %d", SC_PROCESS_ENV, api, proc, fd[0], fd[1], sv[1]);
    const char *add[] = { var, setting && *setting ? setting : NULL, NULL };
    *pid = sc_self_spawn(argv, add, sv[1], SC_SPAWN_DIE_WITH_PARENT, how, sizeof how); /* sv[1] stays open there */
    close(sv[1]);
    if (*pid < 0) {
        snprintf(why, whylen, "cannot start process %d: %s", proc, how);
        close(sv[0]);
        return -1;
    }
    socks[slot].pid = *pid, socks[slot].sock = sv[0];
    return 0;
}

static void describe(int status, char *why, size_t whylen)
{
    if (WIFSIGNALED(status))
        snprintf(why, whylen, "died of signal %d (%s)", WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(why, whylen, "exited with status %d", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

int sc_procs_alive(pid_t pid, char *why, size_t whylen)
{
    int status = 0;
    pid_t got = waitpid(pid, &status, WNOHANG);
    if (got == 0)
        return 1;
    forget_sock(pid);
    if (got == pid)
        describe(status, why, whylen);
    else
        snprintf(why, whylen, "is gone (%s)", strerror(errno));
    return 0;
}

int sc_procs_reap(pid_t pid, uint64_t grace_ns)
{
    int status = 0;
    uint64_t end = sc_now_ns() + grace_ns;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR)) {
            forget_sock(pid);
            return status;
        }
        if (sc_now_ns() >= end)
            break;
        sc_pause_ns(1000000u);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    forget_sock(pid);
    return status;
}

int sc_procs_child(int *api, int *proc, int fd[2])
{
    const char *v = getenv(SC_PROCESS_ENV);
    if (!v || sscanf(v, "%d %d %d %d %d", api, proc, &fd[0], &fd[1], &child_sock) != 5)
        return 0;
    parent_pid = getppid();
    unsetenv(SC_PROCESS_ENV); /* nothing this process starts is one of the case's processes */
    return 1;
}

int sc_procs_orphaned(void) { return getppid() != parent_pid; }

int sc_procs_send_fd(pid_t pid, int fd, uint32_t tag, char *why, size_t whylen)
{
    int sock = -1;
    for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++)
        if (socks[i].pid == pid && pid > 0)
            sock = socks[i].sock;
    if (sock < 0) {
        snprintf(why, whylen, "no socket to process %d", (int)pid);
        return -1;
    }
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { &tag, sizeof tag };
    struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
    memset(cbuf, 0, sizeof cbuf);
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET, c->cmsg_type = SCM_RIGHTS, c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
    /* a message of 4 bytes fits an idle socket's buffer: never waits */
    if (sendmsg(sock, &msg, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof tag) {
        snprintf(why, whylen, "cannot pass a file descriptor to process %d: %s", (int)pid, strerror(errno));
        return -1;
    }
    return 0;
}

int sc_procs_recv_fd(uint32_t tag, uint64_t limit_ns, int *fd, char *why, size_t whylen)
{
    uint64_t end = sc_now_ns() + limit_ns;
    *fd = -1;
    if (child_sock < 0) {
        snprintf(why, whylen, "no socket to main");
        return -1;
    }
    for (;;) {
        struct pollfd pf = { child_sock, POLLIN, 0 };
        uint64_t now = sc_now_ns();
        if (now >= end || sc_procs_orphaned()) {
            snprintf(why, whylen, now >= end ? "no file descriptor came from main within %.0f ms" : "main ended",
                     (double)limit_ns / 1e6);
            return -1;
        }
        int n = poll(&pf, 1, 10); /* 10 ms slices: the deadline and main's end are looked at between them */
        if (n < 0 && errno != EINTR) {
            snprintf(why, whylen, "waiting for a file descriptor from main: %s", strerror(errno));
            return -1;
        }
        if (n <= 0)
            continue;
        uint32_t got = 0;
        char cbuf[CMSG_SPACE(sizeof(int))];
        struct iovec iov = { &got, sizeof got };
        struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf };
        ssize_t r = recvmsg(child_sock, &msg, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
            snprintf(why, whylen, "the socket to main %s", r == 0 ? "was closed" : strerror(errno));
            return -1;
        }
        struct cmsghdr *c = r > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
        int passed = -1;
        if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
            memcpy(&passed, CMSG_DATA(c), sizeof passed);
        if (r == (ssize_t)sizeof got && got == tag && passed >= 0) {
            *fd = passed;
            return 0;
        }
        if (passed >= 0) /* left from an earlier run that ended before it was taken */
            close(passed);
    }
}
