/*
 * host.c - a host process: runs rule programs' runs on warm CUDA contexts.
 *
 *   build/host-legacy --serve DIR --lease FIFO [--workers N]
 *   build/host-ptds   --serve DIR --lease FIFO [--workers N]
 *   build/host-legacy --list
 *
 * A host links every rule program of its compile mode (SC_MAIN puts each in
 * the section sc_rules).  --serve listens on DIR/<mode>.sock, starts N
 * worker processes (default 4) and returns once it listens; the host then
 * runs in the background until every writer of the FIFO has closed it (the
 * lease: tools/run-suite holds it open while the suite runs), and replaces a
 * worker that ends.  A worker takes one program's run at a time (host.h says
 * what they say to each other), with the program's options, environment,
 * working directory and standard output, and keeps its context between runs.
 * It refuses a program of another build, or one whose CUDA environment
 * differs from the host's: that program runs itself.
 * Exit status: 0 serving (or listed), 2 a bad argument, 1 anything else.
 */
#define _GNU_SOURCE
#include "backend.h"
#include "clock.h"
#include "host.h"
#include "self.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;
extern const char sc_runtime_digest[];
extern const sc_rule *const __start_sc_rules[], *const __stop_sc_rules[];

#define SC_HOST_MAX_WORKERS 64
#define SC_HOST_MAX_REQUEST (1u << 20)
#define SC_HOST_STOP_NS 5000000000ull /* workers that do not end this long after SIGTERM are killed */

static const char *me = "host";

static const sc_rule *find_rule(const char *id)
{
    for (const sc_rule *const *r = __start_sc_rules; r < __stop_sc_rules; r++)
        if (strcmp((*r)->id, id) == 0)
            return *r;
    return NULL;
}

/* Variables that shape what the CUDA driver does in a process: a program whose differ runs itself.  (The mock
 * backend of the self-tests reads STREAMCTS_MOCK_* when it starts, as a driver reads its own.) */
static int shapes_cuda(const char *var)
{
    static const char *const prefixes[] = { "CUDA_", "LD_", "__NV", "NVIDIA_", "__GL", "STREAMCTS_MOCK_" };
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(var, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

static int in_list(char *const *list, int n, const char *var)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i], var) == 0)
            return 1;
    return 0;
}

/* 0 when both environments shape CUDA alike, else -1 with the first variable that differs in why. */
static int same_cuda_env(char *const *env, int n, char *const *mine, int nmine, char *why, size_t len)
{
    for (int i = 0; i < n; i++)
        if (shapes_cuda(env[i]) && !in_list(mine, nmine, env[i])) {
            snprintf(why, len, "the program's %.200s is not the host's", env[i]);
            return -1;
        }
    for (int i = 0; i < nmine; i++)
        if (shapes_cuda(mine[i]) && !in_list(env, n, mine[i])) {
            snprintf(why, len, "the host has %.200s, the program does not", mine[i]);
            return -1;
        }
    return 0;
}

/* The program's STREAMCTS_* settings replace the host's (but STREAMCTS_HOST: a run is not handed on). */
static void take_settings(char *const *env, int n)
{
    for (int again = 1; again;) {
        again = 0;
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "STREAMCTS_", 10) == 0) {
                char name[256];
                snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
                unsetenv(name);
                again = 1;
                break;
            }
    }
    for (int i = 0; i < n; i++) {
        size_t k = strcspn(env[i], "=");
        char name[256];
        if (strncmp(env[i], "STREAMCTS_", 10) != 0 || !env[i][k] || k >= sizeof name)
            continue;
        snprintf(name, sizeof name, "%.*s", (int)k, env[i]);
        if (strcmp(name, SC_HOST_ENV) != 0)
            setenv(name, env[i] + k + 1, 1);
    }
}

/*
 * While a worker runs a program's run, the program waits for its answer and
 * writes nothing: the connection becoming readable means the program ended
 * (killed by a time limit, ^C, its prove gone).  Nobody reads what the run
 * prints any more, so the worker ends at once, and the host starts another.
 */
struct watch { int s, log, stop[2]; pthread_t thread; };

static void *watch_program(void *arg)
{
    struct watch *w = arg;
    struct pollfd p[2] = { { w->s, POLLIN | POLLRDHUP, 0 }, { w->stop[0], POLLIN, 0 } };
    while (poll(p, 2, -1) < 0 && errno == EINTR)
        ;
    if (!(p[1].revents & POLLIN)) {
        dprintf(w->log, "%s %d: the program went away; this worker ends\n", me, (int)getpid());
        _exit(3);
    }
    return NULL;
}

static int watch_start(struct watch *w, int s, int log)
{
    w->s = s, w->log = log;
    if (pipe2(w->stop, O_CLOEXEC))
        return -1;
    if (pthread_create(&w->thread, NULL, watch_program, w) == 0)
        return 0;
    close(w->stop[0]), close(w->stop[1]);
    return -1;
}

static void watch_stop(struct watch *w)
{
    if (write(w->stop[1], "", 1) == 1)
        pthread_join(w->thread, NULL);
    close(w->stop[0]), close(w->stop[1]);
}

static void say(int s, const char *fmt, const char *arg)
{
    char line[1024];
    int n = snprintf(line, sizeof line, fmt, arg);
    if (n > 0)
        send(s, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1, MSG_NOSIGNAL);
}

static int read_all(int fd, char *p, size_t n)
{
    while (n) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        p += got, n -= (size_t)got;
    }
    return 0;
}

/* Receives a request: its fields (NUL-separated, *end past the last) and the program's output and error. */
static char *receive(int s, char **end, int fds[2])
{
    uint32_t len;
    char ctl[CMSG_SPACE(2 * sizeof(int))];
    struct iovec iov = { &len, sizeof len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    fds[0] = fds[1] = -1;
    if (recvmsg(s, &m, MSG_CMSG_CLOEXEC | MSG_WAITALL) != (ssize_t)sizeof len)
        return NULL;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS && c->cmsg_len == CMSG_LEN(2 * sizeof(int)))
        memcpy(fds, CMSG_DATA(c), 2 * sizeof(int));
    char *p = fds[0] >= 0 && len > 0 && len <= SC_HOST_MAX_REQUEST ? malloc((size_t)len + 1) : NULL;
    if (!p || read_all(s, p, len)) {
        free(p);
        return NULL;
    }
    p[len] = '\0';
    *end = p + len;
    return p;
}

/* The next field, or NULL past the end. */
static char *field(char **at, char *end)
{
    char *f = *at;
    if (f >= end)
        return NULL;
    *at = f + strlen(f) + 1;
    return f;
}

/* A list of fields preceded by their count, NULL-terminated in a new array. */
static char **fields(char **at, char *end, int *n)
{
    char *count = field(at, end), **list;
    *n = count ? atoi(count) : -1;
    if (*n < 0 || *n > 100000 || !(list = calloc((size_t)*n + 1, sizeof *list)))
        return NULL;
    for (int i = 0; i < *n; i++)
        if (!(list[i] = field(at, end))) {
            free(list);
            return NULL;
        }
    return list;
}

/* One program's run, on the connection s. */
static void serve(int s, char *const *mine, int nmine, int out, int err)
{
    int fds[2], argc = 0, envc = 0;
    char *end = NULL, why[512], **argv = NULL, **env = NULL;
    char *req = receive(s, &end, fds), *at = req;
    char *magic = req ? field(&at, end) : NULL, *id = field(&at, end), *digest = field(&at, end);
    char *runtime = field(&at, end), *kind = field(&at, end), *exe = field(&at, end), *cwd = field(&at, end);
    const sc_rule *rule = NULL;
    if (cwd)
        argv = fields(&at, end, &argc);
    if (argv)
        env = fields(&at, end, &envc);
    if (!env || argc < 1 || strcmp(magic, SC_HOST_MAGIC) != 0)
        say(s, "refused %s\n", "a request this host does not understand");
    else if (!(rule = find_rule(id)))
        say(s, "refused this host has no rule %s (another build?)\n", id);
    else if (strcmp(digest, rule->digest ? rule->digest : "") != 0 || strcmp(runtime, sc_runtime_digest) != 0)
        say(s, "refused %s\n", "the host was built from other sources than the program");
    else if (strcmp(kind, sc_backend_kind) != 0)
        say(s, "refused the program calls another backend than the host (%s)\n", kind);
    else if (same_cuda_env(env, envc, mine, nmine, why, sizeof why))
        say(s, "refused %s\n", why);
    else if (chdir(cwd))
        say(s, "refused the program's working directory is not the host's to enter: %s\n", strerror(errno));
    else {
        struct watch w;
        take_settings(env, envc);
        say(s, "%s\n", "start");
        int watching = watch_start(&w, s, err) == 0;
        dprintf(err, "%s %d: %s (%s)\n", me, (int)getpid(), rule->id, argv[0]);
        fflush(stdout);
        fflush(stderr);
        dup2(fds[0], 1);
        dup2(fds[1], 2);
        sc_self_set(exe);
        int status = sc_main(rule, argc, argv);
        fflush(stdout);
        fflush(stderr);
        if (watching)
            watch_stop(&w);
        sc_self_set(NULL);
        dup2(out, 1);
        dup2(err, 2);
        char line[32];
        snprintf(line, sizeof line, "%d", status);
        say(s, "exit %s\n", line);
    }
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    free(argv);
    free(env);
    free(req);
}

static void work(int listener)
{
    int nmine = 0;
    while (environ[nmine])
        nmine++;
    char **mine = calloc((size_t)nmine + 1, sizeof *mine);
    for (int i = 0; mine && i < nmine; i++)
        mine[i] = strdup(environ[i]); /* the host's own, before any program's settings */
    int out = fcntl(1, F_DUPFD_CLOEXEC, 10), err = fcntl(2, F_DUPFD_CLOEXEC, 10);
    if (!mine || out < 0 || err < 0)
        _exit(1);
    for (;;) {
        int s = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (s < 0 && errno == EINTR)
            continue;
        if (s < 0) {
            dprintf(err, "%s %d: accept: %s\n", me, (int)getpid(), strerror(errno));
            _exit(1);
        }
        serve(s, mine, nmine, out, err);
        close(s);
    }
}

static pid_t start_worker(int listener, const sigset_t *was)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGCHLD, SIG_DFL); /* as in a program of its own: the runtime waits for its children itself */
        sigprocmask(SIG_SETMASK, was, NULL);
        work(listener);
    }
    if (pid < 0)
        fprintf(stderr, "%s: cannot start a worker: %s\n", me, strerror(errno));
    return pid;
}

static void on_child(int sig) { (void)sig; }

/* The background part of --serve: keeps n workers until the lease ends, then stops them. */
static int keep(int listener, int lease, int n, const char *sock)
{
    pid_t workers[SC_HOST_MAX_WORKERS] = { 0 };
    sigset_t chld, was;
    struct sigaction sa = { .sa_handler = on_child };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGCHLD, &sa, NULL);
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &was);
    for (int i = 0; i < n; i++)
        workers[i] = start_worker(listener, &was);
    for (;;) {
        struct pollfd p = { lease, POLLIN, 0 };
        int r = ppoll(&p, 1, NULL, &was);
        int status;
        pid_t pid;
        while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
            for (int i = 0; i < n; i++)
                if (workers[i] == pid) {
                    fprintf(stderr, "%s: worker %d ended (%s %d); starting another\n", me, (int)pid,
                            WIFSIGNALED(status) ? "signal" : "status",
                            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
                    workers[i] = start_worker(listener, &was);
                }
        char buf[64];
        if (r > 0 && read(lease, buf, sizeof buf) == 0)
            break; /* every writer closed the lease */
    }
    for (int i = 0; i < n; i++)
        if (workers[i] > 0)
            kill(workers[i], SIGTERM);
    for (int tries = (int)(SC_HOST_STOP_NS / 10000000u), left = n; left > 0; tries--) {
        left = 0;
        for (int i = 0; i < n; i++)
            if (workers[i] > 0 && waitpid(workers[i], NULL, WNOHANG) == 0) {
                if (tries <= 0)
                    kill(workers[i], SIGKILL), waitpid(workers[i], NULL, 0);
                else
                    left++;
            }
        if (left)
            sc_pause_ns(10000000u); /* bounded: SC_HOST_STOP_NS, then SIGKILL */
    }
    /* last: a runner waits for the socket to go (tools/lib/host.sh, host_stop), so that
     * when it returns no worker of this host holds a context any more */
    unlink(sock);
    return 0;
}

static int usage(FILE *f, int status)
{
    fprintf(f, "usage: %s --serve DIR --lease FIFO [--workers N]\n"
               "       %s --list\n"
               "Runs rule programs' runs handed over through STREAMCTS_HOST=DIR (runtime/suite/host.h) in N worker\n"
               "processes (1..%d, default 4) whose CUDA context stays warm between runs, until every writer of\n"
               "FIFO closed it.  --list prints the rules it holds.\n",
            me, me, SC_HOST_MAX_WORKERS);
    return status;
}

static int serve_dir(const char *dir, const char *lease_path, int n)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    struct stat st;
    if (sc_host_socket_path(a.sun_path, sizeof a.sun_path, dir)) {
        fprintf(stderr, "%s: --serve %s: the path is too long for a socket\n", me, dir);
        return 2;
    }
    int lease = open(lease_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (lease < 0 || fstat(lease, &st) || !S_ISFIFO(st.st_mode)) {
        fprintf(stderr, "%s: --lease %s: %s\n", me, lease_path, lease < 0 ? strerror(errno) : "not a FIFO");
        return 2;
    }
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    unlink(a.sun_path);
    if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 256)) {
        fprintf(stderr, "%s: --serve %s: cannot listen on %s: %s\n", me, dir, a.sun_path, strerror(errno));
        return 1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: cannot go to the background: %s\n", me, strerror(errno));
        return 1;
    }
    if (pid > 0)
        return 0; /* listening: programs may connect now */
    unsetenv(SC_HOST_ENV); /* the rules run here; their children run their programs */
    _exit(keep(s, lease, n, a.sun_path));
}

int main(int argc, char **argv)
{
    const char *dir = NULL, *lease = NULL;
    int n = 4;
    me = argv[0];
    for (int i = 1; i < argc; i++) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return usage(stdout, 0);
        if (strcmp(argv[i], "--list") == 0) {
            for (const sc_rule *const *r = __start_sc_rules; r < __stop_sc_rules; r++)
                printf("%s\n", (*r)->id);
            return 0;
        }
        if (strcmp(argv[i], "--serve") == 0 && v)
            dir = v, i++;
        else if (strcmp(argv[i], "--lease") == 0 && v)
            lease = v, i++;
        else if (strcmp(argv[i], "--workers") == 0 && v) {
            char *e;
            long k = strtol(v, &e, 10);
            if (*e || k < 1 || k > SC_HOST_MAX_WORKERS) {
                fprintf(stderr, "%s: --workers %s: not a number from 1 to %d\n", me, v, SC_HOST_MAX_WORKERS);
                return 2;
            }
            n = (int)k, i++;
        } else {
            fprintf(stderr, "%s: %s: unknown argument or missing value\n", me, argv[i]);
            return usage(stderr, 2);
        }
    }
    if (!dir || !lease) {
        fprintf(stderr, "%s: --serve DIR and --lease FIFO are both needed\n", me);
        return usage(stderr, 2);
    }
    return serve_dir(dir, lease, n);
}
