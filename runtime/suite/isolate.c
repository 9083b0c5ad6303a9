/* isolate.c - one point in a child process of its own (see isolate.h). */
#define _GNU_SOURCE
#include "isolate.h"
#include "self.h"
#include <errno.h>
#include <fcntl.h>
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
    int fds[2], status = 0, timed_out;
    char var[96];
    if (pipe2(fds, O_CLOEXEC) != 0) { /* close-on-exec: children run side by side (point.c) */
        snprintf(why, whylen, "cannot start a child process: %s", strerror(errno));
        return -1;
    }
    snprintf(var, sizeof var, "%s=%d %d %d %d", SC_CHILD_ENV, case_index, api, control, fds[1]);
    const char *add[] = { var, NULL };
    pid_t pid = sc_self_spawn(argv, add, fds[1], 0, why, whylen);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return -1;
    }
    size_t got = sc_self_collect(pid, fds[0], blob, size, limit_ns, &timed_out, &status);
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
