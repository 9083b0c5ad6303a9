/* mps.c - running a program's cases under NVIDIA's Multi-Process Service (see mps.h). */
#define _GNU_SOURCE
#include "mps.h"
#include "clock.h"
#include "tap.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#define CONTROL "nvidia-cuda-mps-control"
#define QUIT_GRACE_NS 20000000000ull /* the daemon shuts its server down before it exits */
#define LOCK "/tmp/streamcts-mps.lock"
#define OWNER "owner.lock" /* in a daemon's directory: locked by its program while it lives */

int sc_mps_requested(const char *argv0)
{
    size_t n = strlen(argv0), k = strlen(".mps.t");
    return n > k && strcmp(argv0 + n - k, ".mps.t") == 0 && !getenv(SC_MPS_ENV);
}

const char *sc_mps_dir(void)
{
    const char *d = getenv(SC_MPS_ENV);
    return d && *d ? d : NULL;
}

/* The control program on PATH (or where the driver installs it), or 0. */
static int find_control(char *out, size_t n)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s:/usr/bin:/usr/local/nvidia/bin:/usr/local/bin", path ? path : "");
    for (char *save = NULL, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(out, n, "%s/%s", *d ? d : ".", CONTROL);
        if (access(out, X_OK) == 0)
            return 1;
    }
    return 0;
}

/* Runs prog with argv; feeds `input` to its standard input when given; waits up to limit_ns. -1: killed. */
static int run(const char *prog, char *const argv[], const char *input, uint64_t limit_ns)
{
    int fds[2] = { -1, -1 }, status = 0;
    if (input && pipe(fds) != 0)
        return -1;
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (input) {
            dup2(fds[0], 0);
            close(fds[0]);
            close(fds[1]);
        }
        execv(prog, argv);
        _exit(127);
    }
    if (input) {
        close(fds[0]);
        if (pid > 0 && write(fds[1], input, strlen(input)) < 0)
            status = -1;
        close(fds[1]);
    }
    if (pid < 0)
        return -1;
    for (uint64_t end = sc_now_ns() + limit_ns;;) {
        pid_t got = waitpid(pid, &status, limit_ns ? WNOHANG : 0);
        if (got == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (got < 0 && errno != EINTR)
            return -1;
        if (limit_ns && sc_now_ns() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            return -1;
        }
        sc_pause_ns(10000000u);
    }
}

/* The last line of the daemon's control log, for a skip reason. */
static void last_log_line(const char *dir, char *out, size_t n)
{
    char path[512], line[512];
    snprintf(out, n, "no log");
    snprintf(path, sizeof path, "%s/control.log", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    while (fgets(line, sizeof line, f))
        if (line[0] != '\n')
            snprintf(out, n, "%.*s", (int)strcspn(line, "\n"), line);
    fclose(f);
}

static void remove_dir(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[768];
    while (d && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            unlink(path);
        }
    if (d)
        closedir(d);
    rmdir(dir);
}

/* Stops the daemon of directory dir (asked to quit; its server shuts down first) and removes the directory. */
static int stop_daemon(const char *control, const char *dir)
{
    char *quit[] = { (char *)control, NULL };
    setenv("CUDA_MPS_PIPE_DIRECTORY", dir, 1);
    setenv("CUDA_MPS_LOG_DIRECTORY", dir, 1);
    int rc = run(control, quit, "quit\n", QUIT_GRACE_NS);
    if (rc == 0)
        remove_dir(dir);
    return rc;
}

/*
 * Each program's daemon has a directory of its own, in which the program
 * holds an exclusive lock on OWNER for as long as it lives (the descriptor is
 * closed on exec, so neither the daemon nor the client inherits it).  A daemon
 * whose program was killed (prove has no per-file timeout, but a lab's harness
 * may) outlives it: `-d` detaches.  Its directory's OWNER lock is then free, or
 * the directory has none (made by a program killed before it took it, or by
 * an older streamcts), and whoever starts next stops that daemon, so one killed
 * run never leaves an MPS server on the GPU for later ones.  Directories whose
 * owner lives are left alone: their programs are running.
 */
static void stop_orphans(const char *control)
{
    DIR *d = opendir("/tmp");
    struct dirent *e;
    char dir[300], owner[320];
    while (d && (e = readdir(d)) != NULL)
        if (strncmp(e->d_name, "streamcts-mps-", 14) == 0) {
            snprintf(dir, sizeof dir, "/tmp/%s", e->d_name);
            snprintf(owner, sizeof owner, "%s/" OWNER, dir);
            int fd = open(owner, O_RDONLY | O_CLOEXEC);
            int alive = fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
            if (fd >= 0)
                close(fd);
            if (alive)
                continue;
            if (stop_daemon(control, dir) == 0) /* the client's output is TAP: this goes to stderr */
                fprintf(stderr, "MPS: stopped the control daemon a killed run left behind (%s)\n", dir);
            remove_dir(dir);
        }
    if (d)
        closedir(d);
}

/*
 * Several MPS control daemons, each with its own pipe directory, may run at
 * once, each with its server (NVIDIA Multi-Process Service, Quick Start,
 * "Starting multiple control/server pairs"), so programs run in parallel
 * (prove -j) do not take turns for the GPU.  The lock serializes only the
 * moments that touch other programs' directories: stopping orphans, and
 * making this program's directory with its OWNER lock taken, so that no
 * directory is ever seen without its live owner's lock.  The wait has a
 * deadline like every other: a holder that never lets go (a program stuck
 * in the kernel driver) fails the programs behind it, not hangs them.
 * The lock's descriptor, or -1 with why.
 */
static int take_lock(uint64_t limit_ms, char *why, size_t n)
{
    int fd = open(LOCK, O_CREAT | O_RDWR | O_CLOEXEC, 0666);
    if (fd < 0)
        fd = open(LOCK, O_RDONLY | O_CLOEXEC); /* another user's lock file: flock needs no write access */
    if (fd < 0) {
        snprintf(why, n, "cannot open the MPS lock %s: %s", LOCK, strerror(errno));
        return -1;
    }
    uint64_t end = sc_now_ns() + limit_ms * 1000000ull;
    while (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) {
            snprintf(why, n, "cannot take the MPS lock %s: %s", LOCK, strerror(errno));
            close(fd);
            return -1;
        }
        if (sc_now_ns() >= end) {
            snprintf(why, n, "another program held the MPS lock %s for %.1f s (STREAMCTS_MPS_LOCK_MS) while it "
                     "set up or cleaned up MPS directories", LOCK, (double)limit_ms / 1e3);
            close(fd);
            return -1;
        }
        sc_pause_ns(20000000u);
    }
    return fd;
}

/* This program's daemon directory, made with its OWNER lock taken (held until the process exits). 0, or -1. */
static int make_own_dir(char *dir)
{
    char owner[320];
    if (!mkdtemp(dir))
        return -1;
    snprintf(owner, sizeof owner, "%s/" OWNER, dir);
    int fd = open(owner, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int saved = errno;
        if (fd >= 0)
            close(fd);
        remove_dir(dir);
        errno = saved;
        return -1;
    }
    return 0; /* fd stays open: the lock lives as long as this process */
}

int sc_mps_run(char **argv, unsigned lock_ms)
{
    char control[4096], why[512], log[300], dir[] = "/tmp/streamcts-mps-XXXXXX";
    if (!find_control(control, sizeof control)) {
        sc_tap_begin(stdout);
        sc_tap_skip_all("no MPS: " CONTROL " is not on PATH (it ships with the NVIDIA driver; install it, "
                        "or run the plain .t programs)");
        return 0;
    }
    int lock = take_lock(lock_ms, why, sizeof why);
    if (lock < 0) {
        const char *name = "MPS lock";
        struct sc_yaml y = { 0 };
        sc_tap_begin(stdout);
        sc_yaml_add(&y, "message", why);
        sc_tap_plan(1, &name);
        sc_tap_point(0, NULL, &y);
        return 1;
    }
    stop_orphans(control);
    int made = make_own_dir(dir), err = errno;
    close(lock); /* the other programs may set up theirs: each has its own daemon and server */
    if (made != 0) {
        sc_tap_begin(stdout);
        snprintf(why, sizeof why, "no MPS: cannot make its pipe directory under /tmp: %s", strerror(err));
        sc_tap_skip_all(why);
        return 0;
    }
    setenv("CUDA_MPS_PIPE_DIRECTORY", dir, 1);
    setenv("CUDA_MPS_LOG_DIRECTORY", dir, 1);
    char *start[] = { control, "-d", NULL };
    int rc = run(control, start, NULL, 30000000000ull);
    if (rc != 0) {
        last_log_line(dir, log, sizeof log);
        snprintf(why, sizeof why, "no MPS: %.200s -d failed (exit %d; control.log: %.250s)", control, rc, log);
        remove_dir(dir);
        sc_tap_begin(stdout);
        sc_tap_skip_all(why);
        return 0;
    }
    setenv(SC_MPS_ENV, dir, 1);
    rc = run("/proc/self/exe", argv, NULL, 0);
    if (stop_daemon(control, dir) != 0)
        printf("# MPS: the control daemon did not quit within %.0f s (pipe directory %s)\n", QUIT_GRACE_NS / 1e9, dir);
    fflush(stdout);
    return rc;
}
