/*
 * idle_streams.c - tap/perf/idle_streams.t: idle streams add no scheduling
 * overhead (SHOULD, test plan 7: 多stream性能相对于单stream的不增加调度开销).
 *
 * Usage: tap/perf/idle_streams.t [--scale N]   (docs/workloads.md)
 *
 * The latency of one small kernel on one stream, from its launch to the
 * return of cuStreamSynchronize, is measured 200 x scale times (after 20
 * warm-up launches) with 0 other streams, then with 16, 128 and 1024 other
 * streams that exist and hold no work.  perf.idle_streams.<n> is kept when
 * the median with n idle streams is at most 1.5 x the median with none plus
 * 5 us (the stated tolerance); YAML: median and p99 of both.  The control
 * (perf.idle_streams.control) gives each of the 1024 other streams a 1 ms
 * kernel just before every measured launch: the check must flag that.  (A
 * 10 us kernel was not enough load on an H100: the 1024 of them were done
 * before the measured one queued behind them, median 13.6 us against 11.1.)
 * Where launches block until their kernel completed (CUDA_LAUNCH_BLOCKING=1)
 * the load is never pending: the control is undecidable after three launches.
 */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"
#include "stats.h"
#include "wl.h"
#include <stdlib.h>

#define TOLERANCE_RATIO 1.5
#define TOLERANCE_US 5.0
#define OTHERS_MAX 1024

static const char SOURCE[] = "CUDA Programming Guide, Asynchronous Concurrent Execution, Streams (test plan 7: "
                             "idle streams must not add scheduling overhead); a SHOULD: performance, no false dependency";

/*
 * Median and p99 launch-to-synchronised latency of reps kernels on s; busy: a 1 ms kernel on each other stream
 * first.  *pending (busy only): whether that load was still running when the measured kernel was launched, as
 * the control needs; it is not where launches block until their kernel completed (CUDA_LAUNCH_BLOCKING=1, a
 * legal setting), and then the control stops after its first three launches, instead of spending a second of
 * 1024 blocking launches on each of them.
 */
static int measure(CUstream s, CUstream *others, int n, int busy, int reps, struct wl_latency *l, CUdeviceptr stamp,
                   int *pending)
{
    int done_before = 0, looked = 0;
    double *v = calloc((size_t)reps, sizeof *v);
    uint64_t ns = 1000000;
    void *params[] = { &stamp }, *spin[] = { &ns, &stamp, &stamp };
    int rc = 0;
    if (!v)
        return wl_fail("calloc", CUDA_ERROR_OUT_OF_MEMORY);
    for (int i = -20; i < reps && !rc; i++) {
        uint64_t t0;
        for (int k = 0; busy && k < n && !rc; k++)
            rc = wl_fail("cuLaunchKernel (another stream)", wl_launch(wl_k.spin, 1, 32, others[k], spin));
        if (busy && n > 0 && !rc) { /* the last of the load, launched last: still running? */
            looked++;
            done_before += SC_CALL(cuStreamQuery, others[n - 1]) == CUDA_SUCCESS;
            if (looked == 3 && done_before == 3)
                break;
        }
        t0 = sc_now_ns();
        if (!rc)
            rc = wl_fail("cuLaunchKernel", wl_launch(wl_k.stamp, 1, 1, s, params));
        if (!rc)
            rc = wl_fail("cuStreamSynchronize", SC_CALL(cuStreamSynchronize, s));
        if (i >= 0)
            v[i] = (double)(sc_now_ns() - t0);
    }
    if (!rc)
        rc = wl_fail("cuCtxSynchronize", SC_CALL(cuCtxSynchronize));
    if (pending)
        *pending = looked > 0 && done_before * 2 < looked;
    *l = wl_latency_of(v, (size_t)reps);
    free(v);
    return rc;
}

int main(int argc, char **argv)
{
    static const int counts[] = { 16, 128, 1024 };
    static const char *const names[] = { "perf.idle_streams.16", "perf.idle_streams.128", "perf.idle_streams.1024",
                                         "perf.idle_streams.control" };
    static CUstream others[OTHERS_MAX];
    struct wl_latency base = { 0 };
    CUstream s = NULL;
    CUdeviceptr stamp_dev = 0;
    int reps, made = 0, base_ok = 0;
    wl_start(argc, argv, "Idle streams add no overhead to work on another stream (docs/workloads.md).\n");
    reps = 200 * wl_scale;
    wl_plan(4, names);
    wl_arm(60);
    if (!wl_host_mapped(64, &stamp_dev) || wl_fail("cuStreamCreate", SC_CALL(cuStreamCreate, &s, CU_STREAM_NON_BLOCKING)) ||
        measure(s, others, 0, 0, reps, &base, stamp_dev, NULL))
        base_ok = 0;
    else
        base_ok = 1;
    sc_tap_diag("0 idle streams: median %.1f us, p99 %.1f us over %d launches", base.median_us, base.p99_us, reps);
    for (int c = 0; c < 4; c++) {
        int n = c < 3 ? counts[c] : OTHERS_MAX, control = c == 3, rc = 0, kept, pending = 0;
        struct wl_latency l = { 0 };
        struct sc_yaml y = { .n = 0 };
        wl_arm(120);
        for (; made < n && base_ok && !rc; made++)
            rc = wl_fail("cuStreamCreate", SC_CALL(cuStreamCreate, &others[made], CU_STREAM_NON_BLOCKING));
        if (base_ok && !rc)
            rc = measure(s, others, n, control, control ? reps / 4 : reps, &l, stamp_dev, control ? &pending : NULL);
        kept = l.median_us <= TOLERANCE_RATIO * base.median_us + TOLERANCE_US;
        sc_yaml_add(&y, "source", SOURCE);
        sc_yaml_add(&y, "other_streams", wl_str("%d%s", n, control ? ", each given a 1 ms kernel before every launch" : ", idle"));
        sc_yaml_add(&y, "launches", wl_str("%d", control ? reps / 4 : reps));
        sc_yaml_add(&y, "median_us", wl_str("%.1f", l.median_us));
        sc_yaml_add(&y, "p99_us", wl_str("%.1f", l.p99_us));
        sc_yaml_add(&y, "median_us_without", wl_str("%.1f", base.median_us));
        sc_yaml_add(&y, "p99_us_without", wl_str("%.1f", base.p99_us));
        sc_yaml_add(&y, "ratio", wl_str("%.2f", base.median_us > 0 ? l.median_us / base.median_us : 0));
        sc_yaml_add(&y, "tolerance", wl_str("median <= %.1f x median without + %.0f us", TOLERANCE_RATIO, TOLERANCE_US));
        sc_tap_diag("%d %s streams: median %.1f us, p99 %.1f us", n, control ? "busy" : "idle", l.median_us, l.p99_us);
        if (control && !pending && base_ok && !rc)
            wl_control(0, 0, "the other streams' 1 ms kernels had completed before the measured kernel was launched "
                             "(their launches blocked until they completed, as under CUDA_LAUNCH_BLOCKING=1): no load "
                             "to detect", &y);
        else if (control)
            wl_control(!kept, 1, "busy other streams slow the one stream down past the tolerance", &y);
        else if (!base_ok || rc)
            wl_point(WL_ERROR, "SHOULD", "the latency could not be measured", &y);
        else
            wl_point(kept ? WL_KEPT : WL_VIOLATED, "SHOULD",
                     wl_str("median latency %.1f us with %d idle streams, %.1f us without", l.median_us, n, base.median_us), &y);
    }
    return sc_tap_failures() ? 1 : 0;
}
