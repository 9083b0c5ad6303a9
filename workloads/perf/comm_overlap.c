/*
 * comm_overlap.c - tap/perf/comm_overlap.t: an NCCL all-reduce on its own
 * non-blocking stream runs while compute runs on another (SHOULD: the seed's
 * comm-hook test, 设置stream，hook没有阻塞backward; issue 29 item 5).
 *
 * Usage: tap/perf/comm_overlap.t [--scale N]   (docs/workloads.md)
 *
 * As a trainer's gradient hook does: the compute stream gets a long compute
 * kernel (half the SMs' worth of 128-thread blocks, each spinning on
 * %globaltimer) and a short one behind it; once the compute stream has
 * reached the long kernel (a stamp kernel before it has written), the host
 * issues an all-reduce (ncclAllReduce, average of 32 Mi floats x scale, up to
 * x 8) on a communication stream, between two stamp kernels.  The long
 * kernel is calibrated to 2 x the all-reduce's own bracket + 0.5 ms, so an
 * all-reduce that starts when it is issued fits inside it.  perf.comm_overlap
 * is kept when at least half of the all-reduce's bracket lies inside the
 * compute kernel in at least one of 5 runs (comm_verdict.h); its control
 * (perf.comm_overlap.control) issues the same work on the one compute stream,
 * where it must not overlap.  The YAML gives every run's overlap fraction and
 * the time ratio: the serialised run's span over the overlapped one's.
 *
 * Ranks: one per GPU, in this process (ncclCommInitAll and a group call),
 * STREAMCTS_COMM_RANKS of them (1..8, default 1: device 0 alone).  One rank
 * is a legal communicator: NCCL then runs its one-rank reduction kernel (the
 * average of floats is a scaled sum, which one rank computes with a kernel; a
 * plain sum would be a copy), so the overlap measured is that kernel's with
 * the compute kernel's, on one GPU, and no data crosses a link.  Only device
 * 0 computes; every rank all-reduces.
 *
 * NCCL is loaded at run time (workloads/converge/nccl.c: $STREAMCTS_NCCL,
 * default libnccl.so.2): without it the file is skipped before the driver is
 * touched.  A communicator NCCL refuses skips both points with its answer.
 * Where CUDA_DEVICE_MAX_CONNECTIONS is set under 8 (the streams may share a
 * hardware queue: runtime/suite/support.c's threshold), perf.comm_overlap is
 * an observation, ok whatever it shows, never a failure.  NCCL_NVLS_ENABLE
 * is set to 0 unless already set: NVLink multicast is not needed here.
 */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"
#include "comm_verdict.h"
#include "converge/nccl.h"
#include "wl.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_RANKS 8
#define RUNS 5
#define TAIL_NS 100000ull          /* the short kernel behind the long one */
#define SLACK_NS 500000ull         /* the long kernel: 2 x the all-reduce + this */
#define MAX_COMPUTE_NS 100000000ull
#define WAIT_NS 2000000000ull      /* the host waits at most this for the compute stream's first stamp */
#define PATTERN 0x3f               /* every byte of every send buffer: floats of 0x3f3f3f3f */

static const char SOURCE[] =
    "NCCL User Guide, CUDA Stream Semantics (\"The collective operation is then executed asynchronously on the CUDA "
    "device\") + CUDA Programming Guide, Asynchronous Concurrent Execution, Concurrent Kernel Execution; "
    "CUDA_DEVICE_MAX_CONNECTIONS sets the \"concurrent connections (work queues) from the host to the device\" (NVIDIA "
    "MPS documentation); a SHOULD: performance, no false dependency";

/* Stamps (host-mapped, 8 bytes each): what the compute stream and the communication stream write. */
enum { S_PRE, S_BEFORE, S_AFTER, S_TAIL_START, S_TAIL_END, S_BLOCKS };

struct rank {
    CUcontext ctx;
    CUstream comm;
    CUdeviceptr send, recv;
    cv_nccl_comm_t nc;
};

static struct rank rk[MAX_RANKS];
static int ranks = 1, blocks;
static size_t count; /* floats per rank */
static uint64_t compute_ns;
static CUstream compute;
static volatile uint64_t *st;
static CUdeviceptr st_dev;
static char nccl_why[400];

/* wl_requires: NCCL, before the driver. */
static int need_nccl(char *why, size_t len)
{
    char err[400];
    if (cv_nccl_load(err, sizeof err) == 0)
        return 0;
    snprintf(why, len, "no NCCL (%s)", err);
    return 1;
}

/* STREAMCTS_COMM_RANKS: 1..MAX_RANKS, default 1; a bad value exits 2 before anything is touched. */
static int ranks_from_env(const char *prog)
{
    const char *v = getenv("STREAMCTS_COMM_RANKS");
    if (!v || !*v)
        return 1;
    if (strspn(v, "0123456789") != strlen(v) || strlen(v) > 2 || atoi(v) < 1 || atoi(v) > MAX_RANKS) {
        fprintf(stderr, "%s: STREAMCTS_COMM_RANKS: '%s' is not a whole number in 1..%d\n", prog, v, MAX_RANKS);
        exit(2);
    }
    return atoi(v);
}

static const char *nccl_error(int r) { return cv_nccl.GetErrorString ? cv_nccl.GetErrorString(r) : "?"; }

/* The communicators: ncclCommInitAll over devices 0..ranks-1 (one rank: ncclCommInitRank where the library lacks it). */
static int make_comms(void)
{
    int r, dev[MAX_RANKS];
    cv_nccl_comm_t c[MAX_RANKS];
    for (int i = 0; i < ranks; i++)
        dev[i] = i;
    if (cv_nccl.CommInitAll) {
        r = cv_nccl.CommInitAll(c, ranks, dev);
    } else {
        cv_nccl_id id;
        r = cv_nccl.GetUniqueId(&id);
        if (!r)
            r = cv_nccl.CommInitRank(&c[0], 1, id, 0);
    }
    SC_CALL(cuCtxSetCurrent, wl_ctx); /* NCCL sets the runtime's device: device 0's primary context again */
    if (r) {
        snprintf(nccl_why, sizeof nccl_why, "NCCL refused a communicator of %d rank%s: %s (%d)", ranks,
                 ranks == 1 ? "" : "s", nccl_error(r), r);
        return -1;
    }
    for (int i = 0; i < ranks; i++)
        rk[i].nc = c[i];
    return 0;
}

/* One all-reduce over every rank; rank 0's on s, the others' on their own streams. */
static int all_reduce(CUstream s)
{
    int r = ranks > 1 ? cv_nccl.GroupStart() : 0;
    for (int i = 0; i < ranks && !r; i++)
        r = cv_nccl.AllReduce((const void *)(uintptr_t)rk[i].send, (void *)(uintptr_t)rk[i].recv, count,
                              CV_NCCL_FLOAT32, CV_NCCL_AVG, rk[i].nc, i ? (cv_stream_t)rk[i].comm : (cv_stream_t)s);
    if (ranks > 1) {
        int e = cv_nccl.GroupEnd();
        r = r ? r : e;
    }
    SC_CALL(cuCtxSetCurrent, wl_ctx);
    if (r && !wl_error[0])
        snprintf(wl_error, sizeof wl_error, "ncclAllReduce answered %s (%d)", nccl_error(r), r);
    return r;
}

/* Waits for every rank's streams. */
static int sync_all(void)
{
    for (int i = ranks - 1; i >= 0; i--) {
        WL_TRY(SC_CALL(cuCtxSetCurrent, rk[i].ctx));
        WL_TRY(SC_CALL(cuCtxSynchronize));
    }
    return 0;
out:
    SC_CALL(cuCtxSetCurrent, wl_ctx);
    return -1;
}

static int launch_stamp(CUstream s, int slot)
{
    CUdeviceptr p = st_dev + 8u * (unsigned)slot;
    void *params[] = { &p };
    return wl_launch(wl_k.stamp, 1, 1, s, params);
}

/* The all-reduce alone on the communication stream: its bracket in ns (0: no stamps). */
static int alone(uint64_t *ns)
{
    memset((void *)st, 0, 8 * S_BLOCKS);
    WL_TRY(launch_stamp(rk[0].comm, S_BEFORE));
    if (all_reduce(rk[0].comm))
        goto out;
    WL_TRY(launch_stamp(rk[0].comm, S_AFTER));
    if (sync_all())
        goto out;
    *ns = st[S_AFTER] > st[S_BEFORE] && st[S_BEFORE] ? st[S_AFTER] - st[S_BEFORE] : 0;
    return 0;
out:
    return -1;
}

/*
 * One run: the long and the short compute kernel on the compute stream, then, once the compute stream has
 * reached the long one, the all-reduce between its stamps on the communication stream (serial: on the compute
 * stream too).  o: the stamps.
 */
static int run(int serial, struct co_stamps *o)
{
    CUstream cs = serial ? compute : rk[0].comm;
    CUdeviceptr k1s = st_dev + 8 * S_BLOCKS, k1e = k1s + 8u * (unsigned)blocks, ts = st_dev + 8 * S_TAIL_START,
                te = st_dev + 8 * S_TAIL_END;
    uint64_t ns1 = compute_ns, ns2 = TAIL_NS, t0;
    void *p1[] = { &ns1, &k1s, &k1e }, *p2[] = { &ns2, &ts, &te };
    memset((void *)st, 0, 8 * (S_BLOCKS + 2 * (size_t)blocks));
    memset(o, 0, sizeof *o);
    WL_TRY(launch_stamp(compute, S_PRE));
    WL_TRY(wl_launch(wl_k.spin, (unsigned)blocks, 128, compute, p1));
    WL_TRY(wl_launch(wl_k.spin, 1, 32, compute, p2));
    for (t0 = sc_now_ns(); !st[S_PRE] && sc_now_ns() - t0 < WAIT_NS;)
        ; /* the hook fires once backward runs */
    if (!st[S_PRE]) {
        snprintf(wl_error, sizeof wl_error, "the compute stream's first stamp did not appear within 2 s");
        goto out;
    }
    WL_TRY(launch_stamp(cs, S_BEFORE));
    if (all_reduce(cs))
        goto out;
    WL_TRY(launch_stamp(cs, S_AFTER));
    for (int b = 0; b < blocks; b++) /* each block writes its stamps when it ends */
        o->compute_done_at_issue |= st[S_BLOCKS + blocks + b] != 0;
    if (sync_all())
        goto out;
    o->compute_start = UINT64_MAX;
    for (int b = 0; b < blocks; b++) {
        uint64_t s = st[S_BLOCKS + b], e = st[S_BLOCKS + blocks + b];
        o->compute_start = s && s < o->compute_start ? s : o->compute_start;
        o->compute_end = e > o->compute_end ? e : o->compute_end;
    }
    if (o->compute_start == UINT64_MAX)
        o->compute_start = 0;
    o->last_end = st[S_TAIL_END] > o->compute_end ? st[S_TAIL_END] : o->compute_end;
    o->comm_start = st[S_BEFORE];
    o->comm_end = st[S_AFTER];
    return 0;
out:
    sync_all();
    return -1;
}

/* The first and last float of rank 0's result: the average of equal values is that value. */
static int result_checked(void)
{
    float want, got[2];
    memset(&want, PATTERN, sizeof want);
    WL_TRY(SC_CALL(cuMemcpyDtoH, &got[0], rk[0].recv, sizeof got[0]));
    WL_TRY(SC_CALL(cuMemcpyDtoH, &got[1], rk[0].recv + (count - 1) * sizeof(float), sizeof got[1]));
    for (int i = 0; i < 2; i++)
        if (fabsf(got[i] - want) > 1e-5f * want) {
            snprintf(wl_error, sizeof wl_error, "the all-reduce's %s float is %g, not %g", i ? "last" : "first",
                     (double)got[i], (double)want);
            return -1;
        }
    return 0;
out:
    return -1;
}

/* Buffers and streams on every rank's device, the compute stream and the stamps on device 0. */
static int set_up(int *skipped, char *why, size_t whylen)
{
    int visible = 0, sms = 0;
    size_t bytes;
    WL_TRY(SC_CALL(cuDeviceGetCount, &visible));
    if (ranks > visible) {
        snprintf(why, whylen, "STREAMCTS_COMM_RANKS=%d, but %d GPU%s visible", ranks, visible, visible == 1 ? " is" : "s are");
        *skipped = 1;
        return 0;
    }
    if (ranks > 1 && (!cv_nccl.CommInitAll || !cv_nccl.GroupStart || !cv_nccl.GroupEnd)) {
        snprintf(why, whylen, "several ranks need ncclCommInitAll, ncclGroupStart and ncclGroupEnd, which the library lacks");
        *skipped = 1;
        return 0;
    }
    WL_TRY(SC_CALL(cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, wl_dev));
    blocks = sms / 2 > 0 ? sms / 2 : 1;
    count = ((size_t)32 << 20) * (size_t)(wl_scale < 8 ? wl_scale : 8);
    bytes = count * sizeof(float);
    rk[0].ctx = wl_ctx;
    for (int i = 0; i < ranks; i++) {
        if (i) {
            CUdevice d;
            WL_TRY(SC_CALL(cuDeviceGet, &d, i));
            WL_TRY(SC_CALL(cuDevicePrimaryCtxRetain, &rk[i].ctx, d));
        }
        WL_TRY(SC_CALL(cuCtxSetCurrent, rk[i].ctx));
        WL_TRY(SC_CALL(cuMemAlloc, &rk[i].send, bytes));
        WL_TRY(SC_CALL(cuMemAlloc, &rk[i].recv, bytes));
        WL_TRY(SC_CALL(cuMemsetD8, rk[i].send, PATTERN, bytes));
        WL_TRY(SC_CALL(cuMemsetD8, rk[i].recv, 0, bytes));
        WL_TRY(SC_CALL(cuStreamCreate, &rk[i].comm, CU_STREAM_NON_BLOCKING));
    }
    WL_TRY(SC_CALL(cuCtxSetCurrent, wl_ctx));
    WL_TRY(SC_CALL(cuStreamCreate, &compute, CU_STREAM_NON_BLOCKING));
    if (!(st = (volatile uint64_t *)wl_host_mapped(8 * (S_BLOCKS + 2 * (size_t)blocks), &st_dev)))
        goto out;
    if (make_comms()) {
        snprintf(why, whylen, "%s", nccl_why);
        *skipped = 1;
    }
    return 0;
out:
    SC_CALL(cuCtxSetCurrent, wl_ctx);
    return -1;
}

/* The smallest span of the decided runs, 0 where none was. */
static double min_span(const struct co_verdict *v, int n)
{
    double m = 0;
    for (int i = 0; i < n; i++)
        if (v[i].span_us > 0 && (m == 0 || v[i].span_us < m))
            m = v[i].span_us;
    return m;
}

static const char *fractions(const struct co_verdict *v, int n)
{
    char line[256] = "";
    size_t used = 0;
    for (int i = 0; i < n && used < sizeof line; i++)
        used += (size_t)snprintf(line + used, sizeof line - used, "%s%.2f%s", i ? " " : "", v[i].fraction,
                                 v[i].outcome == CO_UNDECIDABLE ? "?" : "");
    return wl_str("%s", line);
}

int main(int argc, char **argv)
{
    static const char *const names[] = { "perf.comm_overlap", "perf.comm_overlap.control" };
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
    int version = 0, skipped = 0, err, judged, outcome[2] = { CO_UNDECIDABLE, CO_UNDECIDABLE }, best[2] = { 0, 0 };
    uint64_t comm_alone = 0, ns;
    struct co_verdict v[2][RUNS];
    char why[512] = "";
    double span[2] = { 0, 0 };
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    ranks = ranks_from_env(argv[0]);
    judged = !(conn && *conn && atoi(conn) < 8);
    wl_requires = need_nccl;
    wl_start(argc, argv,
             "An NCCL all-reduce on its own non-blocking stream overlaps compute on another (docs/workloads.md).\n"
             "Environment: STREAMCTS_NCCL (default libnccl.so.2) names the NCCL library; STREAMCTS_COMM_RANKS\n"
             "(1..8, default 1) the ranks, one per GPU from device 0, in this process.\n");
    wl_plan(2, names);
    memset(v, 0, sizeof v);
    wl_arm(120);
    if (cv_nccl.GetVersion)
        cv_nccl.GetVersion(&version);
    sc_tap_diag("NCCL %d.%d.%d (%s), %d rank%s", version / 10000, version / 100 % 100, version % 100,
                getenv("STREAMCTS_NCCL") && *getenv("STREAMCTS_NCCL") ? getenv("STREAMCTS_NCCL") : "libnccl.so.2", ranks,
                ranks == 1 ? ": a one-rank communicator on device 0" : "");
    if (set_up(&skipped, why, sizeof why))
        goto out;
    if (skipped) {
        for (int c = 0; c < 2; c++)
            wl_point(WL_SKIP, "SHOULD", why, NULL);
        return 0;
    }
    for (int i = 0; i < 3; i++) { /* the first warms NCCL up; the shortest bracket is its own time */
        if (alone(&ns))
            goto out;
        comm_alone = ns && (!comm_alone || ns < comm_alone) ? ns : comm_alone;
    }
    if (result_checked())
        goto out;
    compute_ns = 2 * comm_alone + SLACK_NS;
    compute_ns = compute_ns > MAX_COMPUTE_NS ? MAX_COMPUTE_NS : compute_ns;
    for (int r = 0; r < RUNS; r++) /* in turns: other work on the GPU only ever delays a run */
        for (int serial = 0; serial < 2; serial++) {
            struct co_stamps s;
            if (run(serial, &s))
                goto out;
            v[serial][r] = co_judge(&s);
        }
    for (int c = 0; c < 2; c++) {
        outcome[c] = co_combine(v[c], RUNS, &best[c]);
        span[c] = min_span(v[c], RUNS);
    }
out:
    err = wl_error[0] != 0;
    for (int c = 0; c < 2; c++) {
        struct co_verdict *b = &v[c][best[c]];
        struct sc_yaml y = { .n = 0 };
        double ratio = span[0] > 0 ? span[1] / span[0] : 0;
        sc_yaml_add(&y, "source", SOURCE);
        sc_yaml_add(&y, "nccl_version", wl_str("%d", version));
        sc_yaml_add(&y, "ranks", wl_str("%d%s", ranks, ranks == 1 ? " (one GPU: NCCL's one-rank reduction kernel, no link)" : ", one per GPU, in this process"));
        sc_yaml_add(&y, "all_reduce", wl_str("average of %zu floats (%zu MiB) per rank; alone %.1f us", count, count * 4 >> 20, (double)comm_alone / 1e3));
        sc_yaml_add(&y, "compute_kernel", wl_str("%d blocks of 128 threads, %.1f us, then one of %.0f us", blocks, (double)compute_ns / 1e3, TAIL_NS / 1e3));
        sc_yaml_add(&y, "streams", c ? "one: the compute stream (serialised)" : "compute and communication, both non-blocking");
        sc_yaml_add(&y, "overlap_fractions", fractions(v[c], RUNS));
        sc_yaml_add(&y, "overlap_fraction", wl_str("%.2f (%s)", b->fraction, b->why ? b->why : "not run"));
        sc_yaml_add(&y, "span_us", wl_str("%.1f (the shortest run, first start to last end)", span[c]));
        sc_yaml_add(&y, "time_ratio", wl_str("%.2f (serialised span / overlapped span)", ratio));
        sc_yaml_add(&y, "connections", conn && *conn ? conn : "unset (the driver's default)");
        sc_yaml_add(&y, "required", judged ? wl_str("an overlap fraction >= %.1f in one of %d runs", CO_MIN_FRACTION, RUNS)
                                           : "nothing: an observation under CUDA_DEVICE_MAX_CONNECTIONS under 8");
        if (!c)
            sc_tap_diag("overlap fraction %s (stream pair), %s (one stream); spans %.1f us and %.1f us: ratio %.2f",
                        fractions(v[0], RUNS), fractions(v[1], RUNS), span[0], span[1], ratio);
        if (c)
            wl_control(outcome[1] == CO_NO_OVERLAP, outcome[1] != CO_UNDECIDABLE,
                       outcome[1] == CO_UNDECIDABLE ? b->why ? b->why : "not run"
                                                    : "an all-reduce issued on the compute stream runs after its compute",
                       &y);
        else if (err)
            wl_point(WL_ERROR, "SHOULD", "the all-reduce and the compute kernel could not be run", &y);
        else if (!judged)
            wl_point(WL_KEPT, "SHOULD",
                     wl_str("observed under CUDA_DEVICE_MAX_CONNECTIONS=%s, not judged: %s, overlap fraction %.2f", conn,
                            co_outcome_name(outcome[0]), b->fraction),
                     &y);
        else if (outcome[0] == CO_UNDECIDABLE)
            wl_point(WL_UNDECIDABLE, "SHOULD", b->why ? b->why : "no run was decided", &y);
        else
            wl_point(outcome[0] == CO_OVERLAP ? WL_KEPT : WL_VIOLATED, "SHOULD",
                     wl_str("%s: overlap fraction %.2f", b->why, b->fraction), &y);
        wl_arm(10);
    }
    if (ranks == 1 && rk[0].nc) /* several: left to the process's end (destroying one rank's alone may wait for the others) */
        cv_nccl.CommDestroy(rk[0].nc);
    return sc_tap_failures() ? 1 : 0;
}
