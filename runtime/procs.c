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
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t parent_pid;

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

int sc_procs_spawn(char *const argv[], int api, int proc, int fd, const char *setting, pid_t *pid, char *why,
                   size_t whylen)
{
    char var[128], how[200];
    snprintf(var, sizeof var, "%s=%d %d %d", SC_PROCESS_ENV, api, proc, fd);
    const char *add[] = { var, setting && *setting ? setting : NULL, NULL };
    *pid = sc_self_spawn(argv, add, -1, SC_SPAWN_DIE_WITH_PARENT, how, sizeof how);
    if (*pid < 0) {
        snprintf(why, whylen, "cannot start process %d: %s", proc, how);
        return -1;
    }
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
        if (got == pid || (got < 0 && errno != EINTR))
            return status;
        if (sc_now_ns() >= end)
            break;
        sc_pause_ns(1000000u);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

int sc_procs_child(int *api, int *proc, int *fd)
{
    const char *v = getenv(SC_PROCESS_ENV);
    if (!v || sscanf(v, "%d %d %d", api, proc, fd) != 3)
        return 0;
    parent_pid = getppid();
    unsetenv(SC_PROCESS_ENV); /* nothing this process starts is one of the case's processes */
    return 1;
}

int sc_procs_orphaned(void) { return getppid() != parent_pid; }
