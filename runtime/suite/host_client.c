/* host_client.c - a rule program hands its run to a host process (see host.h). */
#define _GNU_SOURCE
#include "host.h"
#include "backend.h"
#include "clock.h"
#include "mps.h"
#include "self.h"
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

extern char **environ;
extern const char sc_runtime_digest[];

#define SC_HOST_START_DEADLINES 12u /* a worker may take this many deadlines to take the run (its start-up) */

int sc_host_socket_path(char *buf, size_t n, const char *dir)
{
    return (size_t)snprintf(buf, n, "%s/%s.sock", dir, sc_compile_mode) < n ? 0 : -1;
}

/* The request: fields separated by NUL bytes (host.c reads them in this order). */
struct blob { char *p; size_t len, cap; };

static int add(struct blob *b, const char *s)
{
    size_t n = strlen(s) + 1;
    if (b->len + n > b->cap) {
        size_t cap = (b->cap + n) * 2;
        char *p = realloc(b->p, cap);
        if (!p)
            return -1;
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    return 0;
}

static int request(struct blob *b, const sc_rule *rule, char **argv)
{
    char exe[4096], cwd[4096], count[32];
    int argc = 0, envc = 0, bad = 0;
    if (sc_self_exe(exe, sizeof exe) || !getcwd(cwd, sizeof cwd))
        return -1;
    while (argv[argc])
        argc++;
    while (environ[envc])
        envc++;
    bad |= add(b, SC_HOST_MAGIC) | add(b, rule->id) | add(b, rule->digest ? rule->digest : "") |
           add(b, sc_runtime_digest) | add(b, sc_backend_kind) | add(b, exe) | add(b, cwd);
    snprintf(count, sizeof count, "%d", argc);
    bad |= add(b, count);
    for (int i = 0; i < argc; i++)
        bad |= add(b, argv[i]);
    snprintf(count, sizeof count, "%d", envc);
    bad |= add(b, count);
    for (int i = 0; i < envc; i++)
        bad |= add(b, environ[i]);
    return bad ? -1 : 0;
}

/* Sends the request's length with this program's standard output and error, then the request. */
static int send_request(int s, const struct blob *b)
{
    uint32_t len = (uint32_t)b->len;
    int fds[2] = { 1, 2 };
    char ctl[CMSG_SPACE(sizeof fds)];
    struct iovec iov = { &len, sizeof len };
    struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl };
    memset(ctl, 0, sizeof ctl);
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    if (sendmsg(s, &m, MSG_NOSIGNAL) != (ssize_t)sizeof len)
        return -1;
    for (size_t off = 0; off < b->len;) {
        ssize_t w = send(s, b->p + off, b->len - off, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        off += (size_t)w;
    }
    return 0;
}

/* One line of the host's answer into line; 0 at its end, -1 when it ended or the deadline (0: none) passed. */
static int answer(int s, char *line, size_t n, uint64_t deadline)
{
    size_t k = 0;
    while (k + 1 < n) {
        if (deadline) {
            uint64_t now = sc_now_ns();
            struct pollfd p = { s, POLLIN, 0 };
            int ms = now >= deadline ? 0 : (int)((deadline - now) / 1000000u) + 1;
            int r = poll(&p, 1, ms);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                return -1;
        }
        ssize_t got = read(s, line + k, 1);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        if (line[k] == '\n') {
            line[k] = '\0';
            return 0;
        }
        k++;
    }
    return -1;
}

int sc_host_hand_over(const sc_rule *rule, const struct sc_options *o, char **argv)
{
    const char *dir = getenv(SC_HOST_ENV);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    struct blob b = { 0 };
    char line[1024];
    if (!dir || !*dir || getenv(SC_MPS_ENV)) /* no host; an MPS client runs as the MPS wrapper started it */
        return -1;
    if (sc_host_socket_path(a.sun_path, sizeof a.sun_path, dir)) {
        fprintf(stderr, "%s: %s=%s: the path is too long for a socket; running here\n", argv[0], SC_HOST_ENV, dir);
        return -1;
    }
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) || request(&b, rule, argv) || send_request(s, &b)) {
        fprintf(stderr, "%s: no host at %s (%s); running here\n", argv[0], a.sun_path, strerror(errno));
        free(b.p);
        if (s >= 0)
            close(s);
        return -1;
    }
    free(b.p);
    /* nothing is written before "start": until then, running here loses nothing */
    uint64_t deadline = sc_now_ns() + SC_HOST_START_DEADLINES * (uint64_t)o->deadline_ms * 1000000u;
    int late = answer(s, line, sizeof line, deadline);
    if (late || strcmp(line, "start") != 0) {
        fprintf(stderr, "%s: the host at %s did not take the run (%s); running here\n", argv[0], a.sun_path,
                late ? "no answer within its deadline" : strncmp(line, "refused ", 8) == 0 ? line + 8 : line);
        close(s);
        return -1;
    }
    int status;
    if (answer(s, line, sizeof line, 0) || sscanf(line, "exit %d", &status) != 1) {
        printf("# the host worker running this program at %s ended before it did (see %s/%s.log)\n", a.sun_path,
               dir, sc_compile_mode);
        fflush(stdout);
        close(s);
        return 1;
    }
    close(s);
    return status;
}
