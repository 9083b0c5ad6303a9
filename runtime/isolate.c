/* isolate.c - one point in a child process of its own (see isolate.h). */
#define _GNU_SOURCE
#include "isolate.h"
#include "self.h"
#include "clock.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int child_fd = -1;

int sc_isolate_child(int *case_index, int *api, int *control)
{
    const char *v = getenv(SC_CHILD_ENV);
    return v && sscanf(v, "%d %d %d %d", case_index, api, control, &child_fd) == 4;
}

int sc_isolate_reply(const void *blob, size_t size)
{
    const char *p = blob;
    while (size) {
        ssize_t n = write(child_fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n, size -= (size_t)n;
    }
    return 0;
}

int sc_isolate_run(char *const argv[], int case_index, int api, int control, uint64_t limit_ns, void *blob,
                   size_t size, char *why, size_t whylen)
{
    int fds[2], status = 0;
    char var[96], exe[4096];
    size_t got = 0;
    if (sc_self_exe(exe, sizeof exe) || pipe2(fds, O_CLOEXEC) != 0) { /* close-on-exec: children run side by side (point.c) */
        snprintf(why, whylen, "cannot start a child process: %s", strerror(errno));
        return -1;
    }
    /* everything the child gets is built before fork: only exec follows it */
    snprintf(var, sizeof var, "%s=%d %d %d %d", SC_CHILD_ENV, case_index, api, control, fds[1]);
    const char *add[] = { var, NULL };
    char **env = sc_self_environ(add);
    if (!env) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        fcntl(fds[1], F_SETFD, 0); /* this child's end alone stays open across exec */
        execve(exe, argv, env);
        _exit(127);
    }
    free(env);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(why, whylen, "cannot fork a child process: %s", strerror(errno));
        return -1;
    }
    uint64_t end = sc_now_ns() + limit_ns;
    int timed_out = 0;
    while (got < size) {
        uint64_t now = sc_now_ns();
        if (now >= end) {
            timed_out = 1;
            break;
        }
        struct pollfd pf = { fds[0], POLLIN, 0 };
        int left_ms = (int)((end - now) / 1000000u) + 1;
        if (poll(&pf, 1, left_ms) < 0 && errno != EINTR)
            break;
        if (!(pf.revents & (POLLIN | POLLHUP)))
            continue;
        ssize_t n = read(fds[0], (char *)blob + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fds[0]);
    if (timed_out)
        kill(pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == size && !timed_out)
        return 0;
    if (timed_out)
        snprintf(why, whylen, "the child process running the point did not finish within %.0f s and was killed",
                 (double)limit_ns / 1e9);
    else if (WIFSIGNALED(status))
        snprintf(why, whylen, "the child process running the point died of signal %d (%s) without a result",
                 WTERMSIG(status), strsignal(WTERMSIG(status)));
    else
        snprintf(why, whylen, "the child process running the point exited with status %d without a result",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return -1;
}
