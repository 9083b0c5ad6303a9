/*
 * priority.c - tap/perf/priority.t: a high-priority kernel starts before a
 * low-priority backlog drains (SHOULD).
 *
 * Usage: tap/perf/priority.t [--scale N]   (docs/workloads.md)
 *
 * A backlog kernel on a stream of the least priority has 20 x scale waves of
 * 1024-thread blocks, each keeping its SM slot for 1 ms (a full SM holds
 * maxThreadsPerMultiProcessor / 1024 of them).  Once its first blocks have
 * finished, one 1024-thread block is launched on a stream of the greatest
 * priority.  Every block stamps %globaltimer at its start.  perf.priority is
 * kept when at least one wave of backlog blocks started after the
 * high-priority block did: the scheduler gave it the next free slot instead
 * of the end of the queue.  Premise, from data: when the high-priority launch
 * returned, fewer backlog blocks had finished than the backlog minus one
 * wave (so some were still waiting); otherwise the point is undecidable
 * (# TODO).  Skipped where cuCtxGetStreamPriorityRange gives one value.  The
 * control (perf.priority.control) launches the same block on a stream of the
 * least priority: it must start after the backlog.
 */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"
#include "wl.h"
#include <stdlib.h>

#define SPIN_NS 1000000ull
#define WAVES 20

static const char SOURCE[] = "CUDA Driver API, Stream Management, cuStreamCreateWithPriority (\"Work in a higher "
                             "priority stream may preempt work already executing in a low priority stream\") + "
                             "cuCtxGetStreamPriorityRange; a SHOULD: the documentation says may";

struct result {
    int total, wave, finished_at_launch, after;
};

/* One run: backlog on low, one block on high; r: what the stamps say. */
static int run(CUstream low, CUstream high, int total, int wave, volatile uint64_t *start, volatile uint64_t *end,
               CUdeviceptr start_dev, CUdeviceptr end_dev, struct result *r)
{
    uint64_t ns = SPIN_NS, t0;
    CUdeviceptr hs = start_dev + (CUdeviceptr)total * 8, he = end_dev + (CUdeviceptr)total * 8;
    void *backlog[] = { &ns, &start_dev, &end_dev }, *one[] = { &ns, &hs, &he };
    int done = 0;
    for (int i = 0; i <= total; i++)
        start[i] = end[i] = 0;
    WL_TRY(wl_launch(wl_k.spin, (unsigned)total, 1024, low, backlog));
    for (t0 = sc_now_ns(); !done && sc_now_ns() - t0 < 5000000000ull;) /* first blocks finished: the backlog runs */
        for (int i = 0; i < total && !done; i++)
            done = end[i] != 0;
    if (!done) {
        snprintf(wl_error, sizeof wl_error, "no backlog block finished within 5 s");
        goto out;
    }
    WL_TRY(wl_launch(wl_k.spin, 1, 1024, high, one));
    r->finished_at_launch = 0;
    for (int i = 0; i < total; i++)
        r->finished_at_launch += end[i] != 0;
    WL_TRY(SC_CALL(cuCtxSynchronize));
    r->total = total;
    r->wave = wave;
    r->after = 0;
    for (int i = 0; i < total; i++)
        r->after += start[i] > start[total];
    return 0;
out:
    SC_CALL(cuCtxSynchronize);
    return -1;
}

int main(int argc, char **argv)
{
    static const char *const names[] = { "perf.priority", "perf.priority.control" };
    int least = 0, greatest = 0, sms = 0, threads = 0, wave, total, err = 0;
    CUstream low = NULL, high = NULL, same = NULL;
    CUdeviceptr start_dev = 0, end_dev = 0;
    volatile uint64_t *start = NULL, *end = NULL;
    struct result res[2] = { { 0 } };
    wl_start(argc, argv, "A high-priority kernel starts before a low-priority backlog drains (docs/workloads.md).\n");
    wl_plan(2, names);
    wl_arm(60);
    WL_TRY(SC_CALL(cuCtxGetStreamPriorityRange, &least, &greatest));
    if (least == greatest) {
        for (int c = 0; c < 2; c++)
            wl_point(WL_SKIP, "SHOULD", wl_str("the priority range is the single value %d", least), NULL);
        return 0;
    }
    WL_TRY(SC_CALL(cuDeviceGetAttribute, &sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, wl_dev));
    WL_TRY(SC_CALL(cuDeviceGetAttribute, &threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, wl_dev));
    wave = sms * (threads / 1024 > 0 ? threads / 1024 : 1);
    total = wave * WAVES * wl_scale;
    if (!(start = wl_host_mapped((size_t)(total + 1) * 8, &start_dev)) || !(end = wl_host_mapped((size_t)(total + 1) * 8, &end_dev)))
        goto out;
    WL_TRY(SC_CALL(cuStreamCreateWithPriority, &low, CU_STREAM_NON_BLOCKING, least));
    WL_TRY(SC_CALL(cuStreamCreateWithPriority, &high, CU_STREAM_NON_BLOCKING, greatest));
    WL_TRY(SC_CALL(cuStreamCreateWithPriority, &same, CU_STREAM_NON_BLOCKING, least));
    wl_arm(60u * (unsigned)wl_scale);
    if (run(low, high, total, wave, start, end, start_dev, end_dev, &res[0]) ||
        run(low, same, total, wave, start, end, start_dev, end_dev, &res[1]))
        goto out;
out:
    err = wl_error[0] != 0;
    for (int c = 0; c < 2; c++) {
        struct result *r = &res[c];
        struct sc_yaml y = { .n = 0 };
        int premise = r->finished_at_launch + r->wave < r->total, kept = r->after >= r->wave;
        sc_yaml_add(&y, "source", SOURCE);
        sc_yaml_add(&y, "priority_range", wl_str("least %d, greatest %d", least, greatest));
        sc_yaml_add(&y, "launched_on", c ? "a stream of the least priority (the backlog's)" : "a stream of the greatest priority");
        sc_yaml_add(&y, "backlog_blocks", wl_str("%d (waves of %d, 1 ms each)", r->total, r->wave));
        sc_yaml_add(&y, "finished_at_launch", wl_str("%d", r->finished_at_launch));
        sc_yaml_add(&y, "started_after_it", wl_str("%d", r->after));
        if (!c)
            sc_tap_diag("high priority: %d of %d backlog blocks started after it; equal priority: %d", res[0].after,
                        res[0].total, res[1].after);
        if (c)
            wl_control(!kept, premise, premise ? "a block of the backlog's priority starts after the backlog"
                                               : "the backlog had drained when the launch returned", &y);
        else if (err)
            wl_point(WL_ERROR, "SHOULD", "the backlog could not be run", &y);
        else if (!premise)
            wl_point(WL_UNDECIDABLE, "SHOULD", "the backlog had drained when the high-priority launch returned", &y);
        else
            wl_point(kept ? WL_KEPT : WL_VIOLATED, "SHOULD",
                     wl_str("%d of %d backlog blocks started after the high-priority block", r->after, r->total), &y);
        wl_arm(10);
    }
    return sc_tap_failures() ? 1 : 0;
}
