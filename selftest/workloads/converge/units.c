/*
 * units.c - the convergence program's host side without a GPU: the CPU
 * reference (deterministic, equal to gradient descent over the ranks'
 * shards, and a tolerance that passes the device's float arithmetic but not
 * a dropped stream wait) and the TCP rendezvous between forked "ranks".
 * Prints TAP version 13; built as build/selftest/converge/units.t.
 */
#define _POSIX_C_SOURCE 200809L
#include "problem.h"
#include "rendezvous.h"
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

static int point;
static void ok(int pass, const char *what)
{
    printf("%s %d - %s\n", pass ? "ok" : "not ok", ++point, what);
    fflush(stdout);
}

enum { STEPS = 40 };

/* Gradient descent over `world` ranks' shards, in double (exact) or as the
 * kernels compute it (float parameters and residuals, double sums rounded to
 * float); stale: each update uses the previous step's gradient (0 at first),
 * which is what an all-reduce that does not wait for the gradient reads. */
enum mode { EXACT, DEVICE, STALE };
static void descend(const struct cv_problem *p, int world, enum mode m, double *loss)
{
    int d = p->features;
    double *w = calloc((size_t)d, sizeof *w), *g = calloc((size_t)d, sizeof *g), *old = calloc((size_t)d, sizeof *old);
    float *x[8], *y[8];
    long first[8], count[8];
    for (int r = 0; r < world; r++) {
        cv_shard_range(p, r, world, &first[r], &count[r]);
        x[r] = malloc(sizeof(float) * (size_t)count[r] * (size_t)d);
        y[r] = malloc(sizeof(float) * (size_t)count[r]);
        cv_shard(p, first[r], count[r], x[r], y[r]);
    }
    double *res = malloc(sizeof *res * (size_t)count[0] * 2);
    for (int k = 0; k < STEPS; k++) {
        double l = 0;
        memcpy(old, g, sizeof *g * (size_t)d);
        memset(g, 0, sizeof *g * (size_t)d);
        for (int r = 0; r < world; r++) {
            for (long i = 0; i < count[r]; i++) {
                double s = 0;
                float f = 0;
                for (int j = 0; j < d; j++) {
                    s += (double)x[r][(long)j * count[r] + i] * w[j];
                    f = fmaf(x[r][(long)j * count[r] + i], (float)w[j], f);
                }
                res[i] = m == DEVICE ? (double)(f - y[r][i]) : s - y[r][i];
                l += res[i] * res[i];
            }
            for (int j = 0; j < d; j++) {
                double s = 0;
                for (long i = 0; i < count[r]; i++)
                    s += (double)x[r][(long)j * count[r] + i] * res[i];
                g[j] += m == DEVICE ? (float)((2.0f / (float)p->samples) * s) : 2.0 * s / (double)p->samples;
            }
        }
        loss[k] = l / (double)p->samples;
        for (int j = 0; j < d; j++)
            w[j] = m == DEVICE ? (float)w[j] - p->lr * (float)g[j] : w[j] - p->lr * (m == STALE ? old[j] : g[j]);
    }
    for (int r = 0; r < world; r++)
        free(x[r]), free(y[r]);
    free(w), free(g), free(old), free(res);
}

static double deviation(const double *a, const double *ref)
{
    double worst = 0;
    for (int k = 0; k < STEPS; k++)
        if (!(fabs(a[k] - ref[k]) / ref[k] <= worst))
            worst = fabs(a[k] - ref[k]) / ref[k];
    return worst;
}

static void reference_checks(void)
{
    /* the program's defaults where the numbers matter, a smaller problem elsewhere */
    struct cv_problem p = { 12345, 65536, 256, CV_LEARNING_RATE }, s = { 12345, 16384, 64, CV_LEARNING_RATE }, t = s;
    double ref[STEPS], small[STEPS], again[STEPS], other[STEPS], exact[STEPS], device[STEPS], stale[STEPS];
    t.seed = 54321;
    int made = cv_reference(&s, STEPS, small) == 0 && cv_reference(&s, STEPS, again) == 0 &&
               cv_reference(&t, STEPS, other) == 0 && cv_reference(&p, STEPS, ref) == 0;
    ok(made && !memcmp(small, again, sizeof small) && memcmp(small, other, sizeof small),
       "the CPU reference is a function of the seed: the same bits twice, others for another seed");

    long covered = 0, next = 0;
    int contiguous = 1;
    for (int r = 0; r < 7; r++) {
        long first, count;
        cv_shard_range(&p, r, 7, &first, &count);
        contiguous &= first == next && count > 0;
        next = first + count;
        covered += count;
    }
    ok(contiguous && covered == p.samples, "7 ranks' shards cover the samples once, in order");

    int falls = 1;
    for (int k = 1; k < STEPS; k++)
        falls &= ref[k] < ref[k - 1];
    double start = p.features / 9.0, floor = 0.01 / 3 * (1 - (double)p.features / p.samples);
    printf("# reference loss: step 0 %.6g (expected about %.6g), step %d %.6g (noise floor about %.6g)\n",
           ref[0], start, STEPS - 1, ref[STEPS - 1], floor);
    ok(falls && fabs(ref[0] / start - 1) < 0.25 && fabs(ref[STEPS - 1] / floor - 1) < 0.25,
       "the reference loss falls every step, from about D/9 to about the noise floor");

    descend(&s, 3, EXACT, exact);
    printf("# gradient descent over 3 ranks' shards against the reference: %.3g\n", deviation(exact, small));
    ok(deviation(exact, small) < 1e-9, "gradient descent over 3 ranks' feature-major shards gives the reference");

    descend(&p, 2, DEVICE, device);
    printf("# the kernels' float arithmetic against the reference: %.3g (tolerance %g)\n", deviation(device, ref),
           CV_TOLERANCE);
    ok(deviation(device, ref) < CV_TOLERANCE / 10,
       "the kernels' float arithmetic stays within a tenth of the tolerance");

    descend(&s, 2, STALE, stale);
    printf("# stale gradients (an all-reduce that did not wait) against the reference: %.3g\n",
           deviation(stale, small));
    ok(deviation(stale, small) > CV_TOLERANCE * 10, "stale gradients leave the tolerance tenfold: the check sees them");
}

static int free_port(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    close(fd);
    return ntohs(a.sin_port);
}

/* Ranks 1..world-1 forked, each exiting 0 when it got id and seed (or, with
 * config_of_rank1, when refused as expected); rank 0 here.  Answers rank 0's result. */
static int run_world(int world, uint64_t config_of_rank1, int *children_ok, char *why, size_t whylen)
{
    char address[32];
    snprintf(address, sizeof address, "127.0.0.1:%d", free_port());
    cv_nccl_id id;
    for (int i = 0; i < 128; i++)
        id.internal[i] = (char)(i * 7 + 1);
    pid_t pid[8];
    for (int r = 1; r < world; r++)
        if ((pid[r] = fork()) == 0) {
            cv_nccl_id got;
            uint64_t seed = 0;
            char w[256];
            int rc = cv_rendezvous(address, r, world, r == 1 ? config_of_rank1 : 42, &got, &seed, 5, w, sizeof w);
            if (r == 1 && config_of_rank1 != 42)
                _exit(rc != 0 && strstr(w, "refused") ? 0 : 1);
            _exit(rc == 0 && seed == 777 && !memcmp(&got, &id, sizeof id) ? 0 : 1);
        }
    uint64_t seed = 777;
    int rc = cv_rendezvous(address, 0, world, 42, &id, &seed, config_of_rank1 != 42 ? 2 : 5, why, whylen);
    *children_ok = 1;
    for (int r = 1; r < world; r++) {
        int status;
        waitpid(pid[r], &status, 0);
        if (r == 1 || config_of_rank1 == 42)
            *children_ok &= WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    return rc;
}

static void rendezvous_checks(void)
{
    char why[256] = "", host[64], port[16];
    int children;
    int rc = run_world(4, 42, &children, why, sizeof why);
    ok(rc == 0 && children, "4 ranks over TCP: every rank gets rank 0's NCCL id and seed");
    rc = run_world(2, 43, &children, why, sizeof why);
    printf("# rank 0 said: %s\n", why);
    ok(rc != 0 && children && strstr(why, "other options"), "a rank with other options is refused; both sides say so");
    char address[32];
    snprintf(address, sizeof address, "127.0.0.1:%d", free_port());
    cv_nccl_id id;
    uint64_t seed;
    rc = cv_rendezvous(address, 1, 2, 42, &id, &seed, 1, why, sizeof why);
    printf("# rank 1 said: %s\n", why);
    ok(rc != 0 && strstr(why, "could not reach rank 0"), "no rank 0: rank 1 gives up at its deadline, saying so");
    ok(cv_split_address("node1:29517", host, sizeof host, port, sizeof port) == 0 && !strcmp(host, "node1") &&
           !strcmp(port, "29517") && cv_split_address("node1", host, sizeof host, port, sizeof port) &&
           cv_split_address("node1:0", host, sizeof host, port, sizeof port) &&
           cv_split_address("node1:65536", host, sizeof host, port, sizeof port) &&
           cv_split_address(":80", host, sizeof host, port, sizeof port),
       "HOST:PORT is split; no port, port 0 or 65536 and no host are refused");
}

int main(void)
{
    printf("TAP version 13\n1..10\n");
    reference_checks();
    rendezvous_checks();
    return 0;
}
