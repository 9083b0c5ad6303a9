/*
 * runtime_contexts.c - contexts in the runtime API backend: the runtime API
 * makes, pushes and sets none and has no green contexts (those answer
 * SC_UNSUPPORTED); its driver calls synchronize the primary context it shares
 * with the driver API, and make the contexts it then uses (cuCtxCreate,
 * cuCtxSetCurrent).
 */
#include "runtime.h"
#include "cu_loader.h" /* primary_ctx_sync calls the driver API */
#include <stdio.h>

/* Contexts are the driver API's: the runtime API has no push or pop. */
int rt_ctx_action(int action)
{
    (void)action;
    return SC_UNSUPPORTED;
}

/*
 * Contexts the driver API makes, which the runtime API then uses: "CUDA Runtime API calls operate on the CUDA
 * Driver API CUcontext which is current to the calling host thread" (Runtime API, Interactions with the CUDA
 * Driver API).  The runtime API makes none itself: ctx_create is the driver backend's (cuCtxCreate, the
 * calling thread's context made current again), after which the runtime's kernels run once in the new context
 * (lazy loading); ctx_destroy is cuCtxDestroy, and ctx_enter makes one current with cuCtxPushCurrent /
 * cuCtxSetCurrent.  Only the driver_ctx_set op of a runtime-API rule makes one current: every other op that
 * does (ctx_enter_push, ...) is the driver API's, and its rules run there only.
 */
int rt_ctx_create(void **ctx)
{
    char why[256];
    const char *what;
    CUcontext popped = NULL;
    int rc;
    if (sc_driver_backend.init(why, sizeof why) != SC_READY) /* loads libcuda.so.1 (done once) */
        return SC_UNSUPPORTED;
    if ((rc = sc_driver_backend.ctx_create(ctx)))
        return rc;
    if (!(rc = SC_CALL(cuCtxPushCurrent, (CUcontext)*ctx))) {
        rc = rt_warm_up(&what);
        SC_CALL(cuCtxPopCurrent, &popped);
    }
    if (rc)
        sc_driver_backend.ctx_destroy(*ctx);
    return rc;
}
int rt_ctx_destroy(void *ctx) { return sc_driver_backend.ctx_destroy(ctx); }
int rt_ctx_enter(void *ctx, int action) { return sc_driver_backend.ctx_enter(ctx, action); }

/* nor has it context-level events: cudaEventRecord and cudaStreamWaitEvent take a stream (the driver's
 * cuCtxRecordEvent / cuCtxWaitEvent are for rules that run through the driver API only) */
int rt_ctx_record_event(void *e)
{
    (void)e;
    return SC_UNSUPPORTED;
}
int rt_ctx_wait_event(void *e)
{
    (void)e;
    return SC_UNSUPPORTED;
}

/* nor does it create contexts with flags */
int rt_ctx_create_flags(void **ctx, unsigned flags)
{
    (void)ctx, (void)flags;
    return SC_UNSUPPORTED;
}

/* nor does it make a context current by creating it */
int rt_ctx_create_current(void **ctx, unsigned flags)
{
    (void)ctx, (void)flags;
    return SC_UNSUPPORTED;
}

/* the runtime API of CUDA 13.0 has no green contexts (cuda_runtime_api.h declares none): rules with a
 * green stream run through the driver API only */
int rt_green_support(char *why, size_t n)
{
    snprintf(why, n, "the runtime API of CUDA 13.0 has no green contexts");
    return SC_UNSUPPORTED;
}
int rt_green_create(void **green)
{
    (void)green;
    return SC_UNSUPPORTED;
}
int rt_green_stream_create(void **s, void *green, int prio_set, int prio)
{
    (void)s, (void)green, (void)prio_set, (void)prio;
    return SC_UNSUPPORTED;
}
int rt_green_destroy(void *green)
{
    (void)green;
    return SC_UNSUPPORTED;
}
int rt_green_event(void *green, void *e, int wait, int converted)
{
    (void)green, (void)e, (void)wait, (void)converted;
    return SC_UNSUPPORTED;
}
int rt_stream_green(void *s, void **green)
{
    (void)s, (void)green;
    return SC_UNSUPPORTED;
}

/*
 * "The primary context is unique per device and shared with the CUDA runtime API" (Driver API,
 * Primary Context Management).  The one op of a runtime-API rule that calls the driver API: it retains
 * device 0's primary context (cuDevicePrimaryCtxRetain), synchronizes it with the driver API
 * (cuCtxSynchronize with it pushed current) and releases it again, so that the reference counts are as
 * they were.  The runtime API's work must be that context's work.  A driver error is answered as the
 * driver's code (the numbers of the two APIs agree for the codes a synchronize answers).
 */
int rt_primary_ctx_sync(void)
{
    char why[256];
    CUdevice dev;
    CUcontext ctx = NULL, popped = NULL;
    int rc;
    if ((rc = sc_driver_backend.init(why, sizeof why)) != SC_READY) /* loads libcuda.so.1 (done once) */
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuDeviceGet, &dev, 0)) || (rc = SC_CALL(cuDevicePrimaryCtxRetain, &ctx, dev)))
        return rc;
    if (!(rc = SC_CALL(cuCtxPushCurrent, ctx))) {
        rc = SC_CALL(cuCtxSynchronize);
        SC_CALL(cuCtxPopCurrent, &popped);
    }
    SC_CALL(cuDevicePrimaryCtxRelease, dev);
    return rc;
}

/* releases of the primary context are the driver API's */
int rt_primary_release(int action, int *reset)
{
    (void)action, *reset = 0;
    return SC_UNSUPPORTED;
}
