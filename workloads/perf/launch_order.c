/*
 * launch_order.c - tap/perf/launch_order.t: the order in which work issued
 * to several streams starts on the device, and how far apart (test plan
 * 7.1/7.4: 流的启动顺序和延迟).  Reported, never required.
 *
 * Usage: tap/perf/launch_order.t [--scale N]   (docs/workloads.md)
 *
 * 50 x scale rounds: one small kernel is launched on each of 8 idle streams
 * in turn, each stamping %globaltimer when it starts.  perf.launch_order
 * reports in its YAML how many rounds started in issue order, the median and
 * p99 of the spread between the first and the last start, and the median
 * start of each stream after the first.  The point is ok whenever the
 * stamps were read: NVIDIA promises no order or latency between streams.
 */
#define _POSIX_C_SOURCE 200809L
#include "stats.h"
#include "wl.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STREAMS 8

static const char SOURCE[] = "CUDA Programming Guide, Asynchronous Concurrent Execution, Streams (no order between "
                             "streams is promised): reported, never required";

int main(int argc, char **argv)
{
    static const char *const names[] = { "perf.launch_order" };
    CUstream s[STREAMS] = { 0 };
    CUdeviceptr stamps_dev = 0;
    volatile uint64_t *stamps = NULL;
    int rounds, in_order = 0, r = 0;
    double *spread = NULL, *after[STREAMS] = { 0 };
    char list[1024] = "";
    struct sc_yaml y = { .n = 0 };
    wl_start(argc, argv, "The order and spread of kernel starts across streams, reported (docs/workloads.md).\n");
    wl_plan(1, names);
    rounds = 50 * wl_scale;
    wl_arm(60u * (unsigned)wl_scale);
    spread = calloc((size_t)rounds, sizeof *spread);
    for (int k = 0; k < STREAMS; k++)
        if (!(after[k] = calloc((size_t)rounds, sizeof *after[k])) || !spread) {
            wl_fail("calloc", CUDA_ERROR_OUT_OF_MEMORY);
            goto out;
        }
    if (!(stamps = wl_host_mapped(STREAMS * 8, &stamps_dev)))
        goto out;
    for (int k = 0; k < STREAMS; k++)
        WL_TRY(SC_CALL(cuStreamCreate, &s[k], CU_STREAM_NON_BLOCKING));
    for (; r < rounds; r++) {
        uint64_t lo = UINT64_MAX, hi = 0;
        int ordered = 1;
        for (int k = 0; k < STREAMS; k++) {
            CUdeviceptr at = stamps_dev + (CUdeviceptr)k * 8;
            void *params[] = { &at };
            stamps[k] = 0;
            WL_TRY(wl_launch(wl_k.stamp, 1, 1, s[k], params));
        }
        WL_TRY(SC_CALL(cuCtxSynchronize));
        for (int k = 0; k < STREAMS; k++) {
            lo = stamps[k] < lo ? stamps[k] : lo;
            hi = stamps[k] > hi ? stamps[k] : hi;
            ordered &= k == 0 || stamps[k] >= stamps[k - 1];
        }
        for (int k = 0; k < STREAMS; k++)
            after[k][r] = (double)(int64_t)(stamps[k] - stamps[0]);
        spread[r] = (double)(hi - lo);
        in_order += ordered;
    }
out:
    if (!wl_error[0]) {
        struct wl_latency sp = wl_latency_of(spread, (size_t)rounds);
        for (int k = 1; k < STREAMS; k++) {
            size_t len = strlen(list);
            snprintf(list + len, sizeof list - len, "%sstream %d: %+.1f us", k > 1 ? "\n" : "", k,
                     wl_latency_of(after[k], (size_t)rounds).median_us);
        }
        sc_yaml_add(&y, "source", SOURCE);
        sc_yaml_add(&y, "streams", wl_str("%d", STREAMS));
        sc_yaml_add(&y, "rounds", wl_str("%d", rounds));
        sc_yaml_add(&y, "rounds_in_issue_order", wl_str("%d", in_order));
        sc_yaml_add(&y, "spread_median_us", wl_str("%.1f", sp.median_us));
        sc_yaml_add(&y, "spread_p99_us", wl_str("%.1f", sp.p99_us));
        y.list_key = "median_start_after_stream_0";
        y.list = list;
        sc_tap_diag("%d of %d rounds started in issue order; spread median %.1f us, p99 %.1f us", in_order, rounds,
                    sp.median_us, sp.p99_us);
        wl_point(WL_KEPT, "SHOULD", wl_str("%d of %d rounds started in issue order", in_order, rounds), &y);
    } else {
        wl_point(WL_ERROR, "SHOULD", "the starts could not be stamped", &y);
    }
    for (int k = 0; k < STREAMS; k++) {
        if (s[k])
            SC_CALL(cuStreamDestroy, s[k]);
        free(after[k]);
    }
    free(spread);
    return sc_tap_failures() ? 1 : 0;
}
