/*
 * converge.c - the multi-node convergence program: data-parallel training of
 * a linear model (problem.h) with the stream pattern real trainers use, and
 * two checks that a stream-ordering bug turns into a visible divergence.
 *
 * Each step, on rank r's compute stream: residuals, the loss, then the
 * gradient bucket by bucket, an event recorded after each; the communication
 * stream (non-blocking) waits for each bucket's event and all-reduces that
 * bucket with NCCL while the compute stream goes on with the next, then sums
 * the loss.  The compute stream waits for the all-reduce's event, updates the
 * parameters and hashes them; the communication stream waits for that and
 * all-reduces the hash as max(h) and max(~h).  Once per round (--steps steps
 * from w = 0) the host waits, under the watchdog's deadline, and checks:
 *   - every rank's parameters are bit-identical after every step (max = min);
 *   - the loss of every step is within 1e-3 (relative) of the CPU reference.
 * Both verdicts come from all-reduced data, so every rank decides alike and
 * all stop together.  Usage: tools/cluster converge, or alone: build/converge/converge.
 */
#define _POSIX_C_SOURCE 200809L
#include "kernels.h"
#include "nccl.h"
#include "options.h"
#include "problem.h"
#include "rendezvous.h"
#include "clock.h"
#include "tap.h"
#include "watchdog.h"
#include <cuda_runtime_api.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define HEARTBEAT_NS (60 * 1000000000ull)
#define SOURCE "CUDA Runtime API, Stream Management, cudaStreamWaitEvent + Event Management, cudaEventRecord"

struct world { int rank, size, local; const char *engine; };

static struct world me;
static volatile sig_atomic_t stopping;

static void on_stop(int sig) { (void)sig; stopping = 1; }

/* Rank 0 says it in TAP; every other rank on stderr, as its TAP goes nowhere. */
static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (me.rank == 0)
        sc_tap_diag("%s", line);
    else
        fprintf(stderr, "converge rank %d: %s\n", me.rank, line);
}

/* Everything not yet reported fails with why; the process ends with 1. */
static void give_up(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void give_up(const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    if (me.rank)
        fprintf(stderr, "converge rank %d: %s\n", me.rank, why);
    sc_tap_abandon(why);
    _exit(1);
}

static void skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void skip(const char *fmt, ...)
{
    char why[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    sc_tap_skip_all(why);
    if (me.rank)
        fprintf(stderr, "converge rank %d: skipped: %s\n", me.rank, why);
}

/* A variable's value as a whole number below limit; -1 when unset; exit 2 when not one. */
static long env_number(const char *name, long limit)
{
    const char *v = getenv(name);
    char *end;
    if (!v)
        return -1;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0 || n >= limit) {
        fprintf(stderr, "converge: %s: '%s' is not a whole number in 0..%ld\n", name, v, limit - 1);
        exit(2);
    }
    return n;
}

/* The rank, world size and local rank from Open MPI or Slurm; alone without either. */
static void discover(struct world *w)
{
    static const struct { const char *engine, *rank, *size, *size2, *local; } engines[] = {
        { "Open MPI", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", NULL, "OMPI_COMM_WORLD_LOCAL_RANK" },
        { "Slurm", "SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "SLURM_NTASKS", "SLURM_LOCALID" },
    };
    *w = (struct world){ 0, 1, 0, "alone" };
    for (size_t e = 0; e < sizeof engines / sizeof engines[0]; e++) {
        if (!getenv(engines[e].rank))
            continue;
        const char *size = getenv(engines[e].size) || !engines[e].size2 ? engines[e].size : engines[e].size2;
        long n = env_number(size, 1L << 20);
        if (n < 1) {
            fprintf(stderr, "converge: %s is set but %s is %s\n", engines[e].rank, size, n ? "not" : "0");
            exit(2);
        }
        w->size = (int)n;
        w->rank = (int)env_number(engines[e].rank, n);
        long local = env_number(engines[e].local, 1L << 20);
        w->local = local < 0 ? 0 : (int)local;
        w->engine = engines[e].engine;
        return;
    }
}

static void check_cuda(cudaError_t e, const char *what)
{
    if (e != cudaSuccess)
        give_up("%s: %s (%s)", what, cudaGetErrorName(e), cudaGetErrorString(e));
}

static cv_nccl_comm_t comm;

static void check_nccl(int r, const char *what)
{
    if (r != CV_NCCL_SUCCESS)
        give_up("%s: NCCL error %d (%s)", what, r, cv_nccl.GetErrorString(r));
}

struct device {
    float *x, *y, *w, *r, *grad, *sum;
    double *loss;          /* [steps]: this rank's share, then (all-reduced) the loss */
    unsigned long long *hash, *stop;  /* [2 * steps]; [1]       */
    cudaStream_t compute, communicate;
    cudaEvent_t *bucket, loss_ready, reduced, hashed;
};

static void *device_alloc(size_t bytes)
{
    void *p = NULL;
    check_cuda(cudaMalloc(&p, bytes), "cudaMalloc");
    return p;
}

/* One step, enqueued: the overlap pattern, with the wait --break-ordering names dropped. */
static void enqueue_step(struct device *d, const struct cv_options *o, long n, int k)
{
    int per = (int)(o->features / o->buckets);
    float scale = 2.0f / (float)o->samples;
    check_cuda(cv_residual(d->compute, d->x, d->y, d->w, d->r, n, (int)o->features), "residual kernel");
    check_cuda(cv_loss(d->compute, d->r, n, 1.0 / o->samples, d->loss + k), "loss kernel");
    check_cuda(cudaEventRecord(d->loss_ready, d->compute), "cudaEventRecord");
    for (unsigned b = 0; b < o->buckets; b++) {
        check_cuda(cv_grad(d->compute, d->x, d->r, n, (int)b * per, per, scale, d->grad), "gradient kernel");
        check_cuda(cudaEventRecord(d->bucket[b], d->compute), "cudaEventRecord");
        if (o->brk != CV_BREAK_GRADIENT)
            check_cuda(cudaStreamWaitEvent(d->communicate, d->bucket[b], 0), "cudaStreamWaitEvent");
        check_nccl(cv_nccl.AllReduce(d->grad + b * per, d->sum + b * per, (size_t)per, CV_NCCL_FLOAT32,
                                     CV_NCCL_SUM, comm, d->communicate), "ncclAllReduce (gradient)");
    }
    check_cuda(cudaStreamWaitEvent(d->communicate, d->loss_ready, 0), "cudaStreamWaitEvent");
    check_nccl(cv_nccl.AllReduce(d->loss + k, d->loss + k, 1, CV_NCCL_FLOAT64, CV_NCCL_SUM, comm, d->communicate),
               "ncclAllReduce (loss)");
    check_cuda(cudaEventRecord(d->reduced, d->communicate), "cudaEventRecord");
    if (o->brk != CV_BREAK_UPDATE)
        check_cuda(cudaStreamWaitEvent(d->compute, d->reduced, 0), "cudaStreamWaitEvent");
    check_cuda(cv_update(d->compute, d->w, d->sum, (int)o->features, CV_LEARNING_RATE), "update kernel");
    check_cuda(cv_hash(d->compute, d->w, (int)o->features, d->hash + 2 * k), "hash kernel");
    check_cuda(cudaEventRecord(d->hashed, d->compute), "cudaEventRecord");
    check_cuda(cudaStreamWaitEvent(d->communicate, d->hashed, 0), "cudaStreamWaitEvent");
    check_nccl(cv_nccl.AllReduce(d->hash + 2 * k, d->hash + 2 * k, 2, CV_NCCL_UINT64, CV_NCCL_MAX, comm,
                                 d->communicate), "ncclAllReduce (hash)");
}

/* What the checks found over all rounds. */
struct tally {
    unsigned rounds;
    unsigned long steps;
    long mismatch_round, mismatch_step;       /* -1: none */
    long deviation_round, deviation_step;     /* the first beyond the tolerance; -1: none */
    double worst, loss_at, reference_at;      /* the largest relative deviation and where */
    double first_loss, last_loss;
};

static int check_round(struct tally *t, const struct cv_options *o, const double *loss,
                       const unsigned long long *hash, const double *reference)
{
    int bad = 0;
    for (unsigned k = 0; k < o->steps; k++) {
        if (hash[2 * k] != ~hash[2 * k + 1] && t->mismatch_round < 0)
            t->mismatch_round = t->rounds, t->mismatch_step = k, bad = 1;
        double dev = fabs(loss[k] - reference[k]) / reference[k];
        if (!(dev <= t->worst)) /* NaN included */
            t->worst = dev, t->loss_at = loss[k], t->reference_at = reference[k];
        if (!(dev <= CV_TOLERANCE) && t->deviation_round < 0)
            t->deviation_round = t->rounds, t->deviation_step = k, bad = 1;
    }
    if (t->rounds == 0)
        t->first_loss = loss[0];
    t->last_loss = loss[o->steps - 1];
    t->rounds++;
    t->steps += o->steps;
    return bad;
}

static void report(const struct tally *t, const struct cv_options *o, double seconds)
{
    char rounds[32], steps[32], ranks[16], where[96], worst[32], at[96], tol[32], first[32], last[32], rate[32];
    struct sc_yaml y = { 0 };
    snprintf(rounds, sizeof rounds, "%u", t->rounds);
    snprintf(steps, sizeof steps, "%lu", t->steps);
    snprintf(ranks, sizeof ranks, "%d", me.size);
    snprintf(rate, sizeof rate, "%.1f", seconds > 0 ? t->steps / seconds : 0);
    sc_yaml_add(&y, "level", "MUST");
    sc_yaml_add(&y, "ranks", ranks);
    sc_yaml_add(&y, "rounds", rounds);
    sc_yaml_add(&y, "steps_checked", steps);
    sc_yaml_add(&y, "steps_per_s", rate);
    if (t->mismatch_round >= 0) {
        snprintf(where, sizeof where, "round %ld step %ld", t->mismatch_round, t->mismatch_step);
        sc_yaml_add(&y, "message", "the ranks' parameters differ: max(hash) != min(hash)");
        sc_yaml_add(&y, "first_mismatch", where);
    }
    sc_tap_point(t->mismatch_round < 0, NULL, &y);

    y = (struct sc_yaml){ 0 };
    snprintf(tol, sizeof tol, "%g", CV_TOLERANCE);
    snprintf(worst, sizeof worst, "%.3g", t->worst);
    snprintf(at, sizeof at, "loss %.9g, reference %.9g", t->loss_at, t->reference_at);
    snprintf(first, sizeof first, "%.9g", t->first_loss);
    snprintf(last, sizeof last, "%.9g", t->last_loss);
    sc_yaml_add(&y, "level", "MUST");
    sc_yaml_add(&y, "tolerance_relative", tol);
    sc_yaml_add(&y, "max_relative_deviation", worst);
    sc_yaml_add(&y, "at_max", at);
    sc_yaml_add(&y, "loss_first_step", first);
    sc_yaml_add(&y, "loss_last_step", last);
    sc_yaml_add(&y, "steps_per_round", (snprintf(steps, sizeof steps, "%u", o->steps), steps));
    if (t->deviation_round >= 0) {
        snprintf(where, sizeof where, "round %ld step %ld", t->deviation_round, t->deviation_step);
        sc_yaml_add(&y, "message", "the loss left the CPU reference");
        sc_yaml_add(&y, "first_deviation", where);
    }
    sc_tap_point(t->deviation_round < 0, NULL, &y);
}

int main(int argc, char **argv)
{
    struct cv_options o;
    int rc = cv_options(argc, argv, &o);
    if (rc)
        return rc == CV_OPTIONS_DONE ? 0 : 2;
    discover(&me);
    if (me.size > 1 && !(o.rendezvous && *o.rendezvous)) {
        fprintf(stderr, "converge: %d ranks (%s) need --rendezvous HOST:PORT or STREAMCTS_RENDEZVOUS\n",
                me.size, me.engine);
        return 2;
    }
    FILE *tap = me.rank == 0 ? stdout : fopen("/dev/null", "w");
    sc_tap_begin(tap ? tap : stdout);
    sc_tap_diag("streamcts converge (MUST): with compute and all-reduce ordered by events, every rank's "
                "parameters stay bit-identical and the loss follows the CPU reference");
    sc_tap_diag("source: " SOURCE);
    sc_tap_diag("ranks: %d (%s); options: --steps %u --samples %u --features %u --buckets %u --timeout %u "
                "--duration %us --break-ordering=%s", me.size, me.engine, o.steps, o.samples, o.features,
                o.buckets, o.timeout_s, o.duration_s, cv_break_name(o.brk));

    char why[512];
    if (cv_nccl_load(why, sizeof why) != 0) {
        skip("no NCCL (%s)", why);
        return 0;
    }
    int devices = 0;
    cudaError_t e = cudaGetDeviceCount(&devices);
    if (e != cudaSuccess || devices == 0) {
        skip("no CUDA %s (%s)", e == cudaErrorNoDevice || (e == cudaSuccess && !devices) ? "device" : "driver",
             e == cudaSuccess ? "0 devices" : cudaGetErrorName(e));
        return 0;
    }
    static const char *const names[] = {
        "converge.setup - every rank joined and NCCL formed one communicator",
        "converge.params_identical - every rank's parameters bit-identical after every step",
        "converge.loss_follows_reference - the loss of every step within tolerance of the CPU reference",
    };
    sc_watchdog_start();
    sc_tap_plan(3, names);
    struct sigaction sa = { 0 };
    sa.sa_handler = on_stop;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    /* -- set-up: device, rendezvous, the CPU reference, NCCL ---------------------- */
    uint64_t t0 = sc_now_ns();
    char limit[160];
    snprintf(limit, sizeof limit, "timed out: the rendezvous, CPU reference and NCCL set-up took over %u s",
             o.timeout_s);
    sc_watchdog_arm(o.timeout_s * 1000000000ull, limit);
    int dev = me.local % devices;
    check_cuda(cudaSetDevice(dev), "cudaSetDevice");
    struct cudaDeviceProp prop;
    check_cuda(cudaGetDeviceProperties(&prop, dev), "cudaGetDeviceProperties");
    int version = 0;
    cv_nccl.GetVersion(&version);
    cv_nccl_id id;
    memset(&id, 0, sizeof id);
    uint64_t seed = o.seed_given ? o.seed : (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid();
    seed %= 1000000000000ull;
    if (me.rank == 0)
        check_nccl(cv_nccl.GetUniqueId(&id), "ncclGetUniqueId");
    if (me.size > 1 && cv_rendezvous(o.rendezvous, me.rank, me.size, cv_options_hash(&o), &id, &seed,
                                     o.timeout_s, why, sizeof why) != 0)
        give_up("rendezvous: %s", why);
    sc_tap_diag("seed %llu; rank 0 on device %d (%s, compute capability %d.%d); NCCL %d", (unsigned long long)seed,
                dev, prop.name, prop.major, prop.minor, version);
    sc_tap_diag("replay: --seed %llu with the same options and rank count", (unsigned long long)seed);

    struct cv_problem p = { seed, o.samples, (int)o.features, CV_LEARNING_RATE };
    double *reference = malloc(sizeof *reference * o.steps);
    if (!reference || cv_reference(&p, (int)o.steps, reference) != 0)
        give_up("out of host memory for the CPU reference");
    long first, n;
    cv_shard_range(&p, me.rank, me.size, &first, &n);
    float *hx = malloc(sizeof *hx * (size_t)n * o.features), *hy = malloc(sizeof *hy * (size_t)n);
    if (!hx || !hy)
        give_up("out of host memory for the shard");
    cv_shard(&p, first, n, hx, hy);

    struct device d;
    d.x = device_alloc(sizeof *d.x * (size_t)n * o.features);
    d.y = device_alloc(sizeof *d.y * (size_t)n);
    d.r = device_alloc(sizeof *d.r * (size_t)n);
    d.w = device_alloc(sizeof *d.w * o.features);
    d.grad = device_alloc(sizeof *d.grad * o.features);
    d.sum = device_alloc(sizeof *d.sum * o.features);
    d.loss = device_alloc(sizeof *d.loss * o.steps);
    d.hash = device_alloc(sizeof *d.hash * 2 * o.steps);
    d.stop = device_alloc(sizeof *d.stop);
    check_cuda(cudaMemcpy(d.x, hx, sizeof *hx * (size_t)n * o.features, cudaMemcpyHostToDevice), "cudaMemcpy");
    check_cuda(cudaMemcpy(d.y, hy, sizeof *hy * (size_t)n, cudaMemcpyHostToDevice), "cudaMemcpy");
    free(hx), free(hy);
    check_cuda(cudaMemset(d.grad, 0, sizeof *d.grad * o.features), "cudaMemset");
    check_cuda(cudaMemset(d.sum, 0, sizeof *d.sum * o.features), "cudaMemset");
    check_cuda(cudaStreamCreateWithFlags(&d.compute, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    check_cuda(cudaStreamCreateWithFlags(&d.communicate, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
    d.bucket = malloc(sizeof *d.bucket * o.buckets);
    for (unsigned b = 0; b < o.buckets; b++)
        check_cuda(cudaEventCreateWithFlags(&d.bucket[b], cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check_cuda(cudaEventCreateWithFlags(&d.loss_ready, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check_cuda(cudaEventCreateWithFlags(&d.reduced, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    check_cuda(cudaEventCreateWithFlags(&d.hashed, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    double *loss;
    unsigned long long *hash, *stop;
    check_cuda(cudaMallocHost((void **)&loss, sizeof *loss * o.steps), "cudaMallocHost");
    check_cuda(cudaMallocHost((void **)&hash, sizeof *hash * 2 * o.steps), "cudaMallocHost");
    check_cuda(cudaMallocHost((void **)&stop, sizeof *stop), "cudaMallocHost");

    check_nccl(cv_nccl.CommInitRank(&comm, me.size, id, me.rank), "ncclCommInitRank");
    sc_watchdog_disarm();
    {
        char ranks[16], ver[16], secs[32], gpu[320];
        struct sc_yaml y = { 0 };
        snprintf(ranks, sizeof ranks, "%d", me.size);
        snprintf(ver, sizeof ver, "%d", version);
        snprintf(secs, sizeof secs, "%.2f", (sc_now_ns() - t0) / 1e9);
        snprintf(gpu, sizeof gpu, "%s (device %d of rank 0)", prop.name, dev);
        sc_yaml_add(&y, "ranks", ranks);
        sc_yaml_add(&y, "engine", me.engine);
        sc_yaml_add(&y, "nccl_version", ver);
        sc_yaml_add(&y, "gpu", gpu);
        sc_yaml_add(&y, "rendezvous", me.size > 1 ? o.rendezvous : "none (one rank)");
        sc_yaml_add(&y, "seconds", secs);
        sc_tap_point(1, NULL, &y);
    }

    /* -- rounds ----------------------------------------------------------------- */
    struct tally t = { .mismatch_round = -1, .mismatch_step = -1, .deviation_round = -1, .deviation_step = -1 };
    uint64_t start = sc_now_ns(), beat = start;
    for (;;) {
        snprintf(limit, sizeof limit, "timed out: round %u did not finish within %u s (a wait or an all-reduce "
                 "never completed)", t.rounds, o.timeout_s);
        sc_watchdog_arm(o.timeout_s * 1000000000ull, limit);
        check_cuda(cudaMemsetAsync(d.w, 0, sizeof *d.w * o.features, d.compute), "cudaMemsetAsync");
        for (unsigned k = 0; k < o.steps; k++)
            enqueue_step(&d, &o, n, (int)k);
        /* Whether to stop is all-reduced too: ranks whose clocks disagree still stop together. */
        *stop = stopping || sc_now_ns() - start >= o.duration_s * 1000000000ull;
        check_cuda(cudaMemcpyAsync(d.stop, stop, sizeof *stop, cudaMemcpyHostToDevice, d.communicate), "cudaMemcpyAsync");
        check_nccl(cv_nccl.AllReduce(d.stop, d.stop, 1, CV_NCCL_UINT64, CV_NCCL_MAX, comm, d.communicate),
                   "ncclAllReduce (stop)");
        check_cuda(cudaMemcpyAsync(stop, d.stop, sizeof *stop, cudaMemcpyDeviceToHost, d.communicate), "cudaMemcpyAsync");
        check_cuda(cudaMemcpyAsync(loss, d.loss, sizeof *loss * o.steps, cudaMemcpyDeviceToHost, d.communicate),
                   "cudaMemcpyAsync");
        check_cuda(cudaMemcpyAsync(hash, d.hash, sizeof *hash * 2 * o.steps, cudaMemcpyDeviceToHost, d.communicate),
                   "cudaMemcpyAsync");
        check_cuda(cudaStreamSynchronize(d.communicate), "cudaStreamSynchronize");
        check_cuda(cudaStreamSynchronize(d.compute), "cudaStreamSynchronize");
        sc_watchdog_disarm();
        int bad = check_round(&t, &o, loss, hash, reference);
        uint64_t now = sc_now_ns();
        if (now - beat >= HEARTBEAT_NS) {
            beat = now;
            say("round %u, %lu steps, %.0f s: largest loss deviation %.3g, parameters %s", t.rounds, t.steps,
                (now - start) / 1e9, t.worst, t.mismatch_round < 0 ? "identical" : "DIFFER");
        }
        if (bad || *stop)
            break;
    }
    report(&t, &o, (sc_now_ns() - start) / 1e9);
    cv_nccl.CommDestroy(comm);
    if (me.rank && sc_tap_failures())
        fprintf(stderr, "converge rank %d: a check failed (rank 0's TAP says which)\n", me.rank);
    return sc_tap_failures() ? 1 : 0;
}
