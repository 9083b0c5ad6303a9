/* self.c - the executable a rule program's child processes run (see self.h). */
#define _GNU_SOURCE
#include "self.h"
#include "clock.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static char program[4096]; /* "": this process's executable */

int sc_self_exe(char *buf, size_t n)
{
    if (program[0]) {
        if ((size_t)snprintf(buf, n, "%s", program) >= n) {
            errno = ENAMETOOLONG;
            return -1;
        }
        return 0;
    }
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0)
        return -1;
    buf[len] = '\0';
    return 0;
}

char **sc_self_environ(const char *const add[])
{
    extern char **environ;
    size_t n = 0, k = 0, nadd = 0;
    while (environ[n])
        n++;
    while (add[nadd])
        nadd++;
    char **env = calloc(n + nadd + 1, sizeof *env);
    if (!env)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (size_t a = 0; a < nadd && !replaced; a++) {
            size_t len = strcspn(add[a], "=");
            replaced = strncmp(environ[i], add[a], len) == 0 && environ[i][len] == '=';
        }
        if (!replaced)
            env[k++] = environ[i];
    }
    for (size_t a = 0; a < nadd; a++)
        env[k++] = (char *)add[a];
    return env;
}

pid_t sc_self_spawn(char *const argv[], const char *const add[], int pipe_w, unsigned flags, char *why, size_t n)
{
    char exe[4096];
    if (sc_self_exe(exe, sizeof exe)) {
        snprintf(why, n, "cannot find this program to start a child process: %s", strerror(errno));
        return -1;
    }
    /* everything the child gets is built before fork: only exec follows it */
    char **env = sc_self_environ(add);
    if (!env) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    pid_t me = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (flags & SC_SPAWN_DIE_WITH_PARENT) { /* the child ends with its parent, whatever kills the parent */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != me)
                _exit(126);
        }
        if (pipe_w >= 0 && (flags & SC_SPAWN_STDOUT) && pipe_w != 1)
            dup2(pipe_w, 1); /* without close-on-exec */
        else if (pipe_w >= 0)
            fcntl(pipe_w, F_SETFD, 0); /* this child's end alone stays open across exec */
        execve(exe, argv, env);
        _exit(127);
    }
    free(env);
    if (pid < 0)
        snprintf(why, n, "cannot fork a child process: %s", strerror(errno));
    return pid;
}

size_t sc_self_collect(pid_t pid, int fd, void *buf, size_t size, uint64_t limit_ns, int *timed_out, int *status)
{
    size_t got = 0;
    uint64_t end = sc_now_ns() + limit_ns;
    *timed_out = 0;
    *status = 0;
    while (got < size) {
        uint64_t now = sc_now_ns();
        if (now >= end) {
            *timed_out = 1;
            break;
        }
        struct pollfd pf = { fd, POLLIN, 0 };
        int left_ms = (int)((end - now) / 1000000u) + 1;
        if (poll(&pf, 1, left_ms) < 0 && errno != EINTR)
            break;
        if (!(pf.revents & (POLLIN | POLLHUP)))
            continue;
        ssize_t k = read(fd, (char *)buf + got, size - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    if (*timed_out)
        kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return got;
}

void sc_self_set(const char *path) { snprintf(program, sizeof program, "%s", path ? path : ""); }

const char *sc_self_hosted(void) { return program[0] ? program : NULL; }
