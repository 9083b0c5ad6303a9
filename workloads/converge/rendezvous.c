/* rendezvous.c - the ncclUniqueId handed out over TCP (see rendezvous.h). */
#define _POSIX_C_SOURCE 200809L
#include "rendezvous.h"
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAGIC "SCCONV01"
enum { HELLO = 8 + 4 + 4 + 8, REPLY = 8 + 4 + 128 + 8 };

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void put32(unsigned char *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static void put64(unsigned char *p, uint64_t v) { for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i)); }
static uint32_t get32(const unsigned char *p) { uint32_t v = 0; for (int i = 3; i >= 0; i--) v = v << 8 | p[i]; return v; }
static uint64_t get64(const unsigned char *p) { uint64_t v = 0; for (int i = 7; i >= 0; i--) v = v << 8 | p[i]; return v; }

int cv_split_address(const char *a, char *host, size_t hostlen, char *port, size_t portlen)
{
    const char *colon = strrchr(a, ':');
    if (!colon || colon == a || (size_t)(colon - a) >= hostlen || strlen(colon + 1) >= portlen)
        return -1;
    char *end;
    long p = strtol(colon + 1, &end, 10);
    if (colon[1] == '\0' || *end || p < 1 || p > 65535)
        return -1;
    snprintf(host, hostlen, "%.*s", (int)(colon - a), a);
    snprintf(port, portlen, "%s", colon + 1);
    return 0;
}

/* Moves exactly len bytes (send or receive) before the deadline; 0 or -1. */
static int move(int fd, unsigned char *buf, size_t len, int sending, double deadline)
{
    while (len) {
        struct pollfd p = { fd, (short)(sending ? POLLOUT : POLLIN), 0 };
        double left = deadline - now_s();
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0)
            return -1;
        ssize_t n = sending ? send(fd, buf, len, MSG_NOSIGNAL) : recv(fd, buf, len, 0);
        if (n <= 0)
            return -1;
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int serve(const char *host, const char *port, int world, uint64_t config, const cv_nccl_id *id,
                 uint64_t seed, double deadline, char *why, size_t whylen)
{
    struct addrinfo hints = { .ai_flags = AI_PASSIVE, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai;
    (void)host; /* rank 0 listens on every address of its node: HOST is what the others dial */
    int rc = getaddrinfo(NULL, port, &hints, &ai);
    if (rc) {
        snprintf(why, whylen, "port %s: %s", port, gai_strerror(rc));
        return -1;
    }
    int lfd = -1, one = 1;
    for (struct addrinfo *a = ai; a && lfd < 0; a = a->ai_next) {
        lfd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
        if (lfd < 0)
            continue;
        setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(lfd, a->ai_addr, a->ai_addrlen) != 0 || listen(lfd, 64) != 0) {
            snprintf(why, whylen, "rank 0 cannot listen on port %s: %s", port, strerror(errno));
            close(lfd);
            lfd = -1;
        }
    }
    freeaddrinfo(ai);
    if (lfd < 0)
        return -1;
    char *joined = calloc((size_t)world, 1);
    int missing = world - 1, bad = 0;
    while (missing > 0 && !bad) {
        struct pollfd p = { lfd, POLLIN, 0 };
        double left = deadline - now_s();
        if (left <= 0 || poll(&p, 1, (int)(left * 1000) + 1) <= 0) {
            snprintf(why, whylen, "rank 0 at port %s: %d of %d ranks did not arrive in time", port, missing, world - 1);
            bad = 1;
            break;
        }
        int fd = accept(lfd, NULL, NULL);
        if (fd < 0)
            continue;
        unsigned char hello[HELLO], reply[REPLY];
        if (move(fd, hello, sizeof hello, 0, deadline) != 0 || memcmp(hello, MAGIC, 8) != 0) {
            close(fd); /* not one of ours (a port scan, say): keep listening */
            continue;
        }
        uint32_t r = get32(hello + 8), w = get32(hello + 12);
        uint64_t c = get64(hello + 16);
        uint32_t status = 0;
        if (w != (uint32_t)world || r == 0 || r >= (uint32_t)world || joined[r]) {
            snprintf(why, whylen, "rank 0: a rank said it is rank %u of %u (world %d%s)", r, w, world,
                     r < (uint32_t)world && r && joined[r] ? ", and that rank had already joined" : "");
            status = 1;
        } else if (c != config) {
            snprintf(why, whylen, "rank 0: rank %u runs with other options (they must be the same on every rank)", r);
            status = 1;
        }
        memcpy(reply, MAGIC, 8);
        put32(reply + 8, status);
        memcpy(reply + 12, id->internal, 128);
        put64(reply + 140, seed);
        move(fd, reply, sizeof reply, 1, deadline);
        close(fd);
        if (status)
            bad = 1;
        else {
            joined[r] = 1;
            missing--;
        }
    }
    free(joined);
    close(lfd);
    return bad ? -1 : 0;
}

static int join(const char *host, const char *port, int rank, int world, uint64_t config, cv_nccl_id *id,
                uint64_t *seed, double deadline, char *why, size_t whylen)
{
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *ai = NULL;
    snprintf(why, whylen, "rank %d could not reach rank 0 at %s:%s in time", rank, host, port);
    for (;;) { /* rank 0 may not listen yet: retry until the deadline */
        if (now_s() > deadline)
            return -1;
        if (getaddrinfo(host, port, &hints, &ai) == 0) {
            for (struct addrinfo *a = ai; a; a = a->ai_next) {
                int fd = socket(a->ai_family, a->ai_socktype, a->ai_protocol);
                if (fd < 0)
                    continue;
                if (connect(fd, a->ai_addr, a->ai_addrlen) == 0) {
                    unsigned char hello[HELLO], reply[REPLY];
                    memcpy(hello, MAGIC, 8);
                    put32(hello + 8, (uint32_t)rank);
                    put32(hello + 12, (uint32_t)world);
                    put64(hello + 16, config);
                    int ok = move(fd, hello, sizeof hello, 1, deadline) == 0 &&
                             move(fd, reply, sizeof reply, 0, deadline) == 0 && memcmp(reply, MAGIC, 8) == 0;
                    close(fd);
                    freeaddrinfo(ai);
                    if (!ok)
                        return -1;
                    if (get32(reply + 8) != 0) {
                        snprintf(why, whylen, "rank 0 at %s:%s refused rank %d of %d (its stderr says why)",
                                 host, port, rank, world);
                        return -1;
                    }
                    memcpy(id->internal, reply + 12, 128);
                    *seed = get64(reply + 140);
                    return 0;
                }
                close(fd);
            }
            freeaddrinfo(ai);
        }
        struct timespec pause = { 0, 200000000 };
        nanosleep(&pause, NULL);
    }
}

int cv_rendezvous(const char *address, int rank, int world, uint64_t config, cv_nccl_id *id,
                  uint64_t *seed, double timeout_s, char *why, size_t whylen)
{
    char host[256], port[16];
    if (cv_split_address(address, host, sizeof host, port, sizeof port) != 0) {
        snprintf(why, whylen, "rendezvous address %s is not HOST:PORT", address);
        return -1;
    }
    double deadline = now_s() + timeout_s;
    return rank == 0 ? serve(host, port, world, config, id, *seed, deadline, why, whylen)
                     : join(host, port, rank, world, config, id, seed, deadline, why, whylen);
}
