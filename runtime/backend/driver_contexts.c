/*
 * driver_contexts.c - contexts of the driver API backend other than a
 * device's primary one as opened: contexts made with cuCtxCreate (each with
 * the suite's kernels, and which kernels the current context has), the
 * current context pushed, popped and set, green contexts, and releases of
 * the primary context in a process of their own.
 */
#define _GNU_SOURCE /* pipe2: the primary context probe */
#include "driver.h"
#include "fatbin.h"
#include "self.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* contexts made with cuCtxCreate on device 0, each with the suite's kernels loaded in it. */
static struct made made[SC_MAX_CONTEXTS_MADE];

static pthread_mutex_t made_mu = PTHREAD_MUTEX_INITIALIZER;
static int nmade; /* contexts alive: while 0, launches need not ask which context is current */

/* The kernels of the calling thread's current context: a created one's, or device drv_cur's. */
const struct made *drv_kernels(void)
{
    static _Thread_local struct made dev;
    CUcontext c = NULL;
    if (__atomic_load_n(&nmade, __ATOMIC_ACQUIRE) && SC_CALL(cuCtxGetCurrent, &c) == CUDA_SUCCESS && c)
        for (int i = 0; i < SC_MAX_CONTEXTS_MADE; i++)
            if (made[i].ctx == c)
                return &made[i];
    dev = (struct made){ drv_gpus[drv_cur].ctx,  drv_gpus[drv_cur].gate,      drv_gpus[drv_cur].mark,      drv_gpus[drv_cur].fault,
                         drv_gpus[drv_cur].pdl, drv_gpus[drv_cur].gate_open, drv_gpus[drv_cur].gate_close };
    return &dev;
}

int drv_ctx_action(int action)
{
    CUcontext popped = NULL;
    switch (action) {
    case SC_CTX_POP: return SC_CALL(cuCtxPopCurrent, &popped);
    case SC_CTX_PUSH: return SC_CALL(cuCtxPushCurrent, drv_gpus[0].ctx);
    case SC_CTX_UNSET: return SC_CALL(cuCtxSetCurrent, NULL);
    case SC_CTX_SET: return SC_CALL(cuCtxSetCurrent, drv_gpus[0].ctx);
    }
    return CUDA_ERROR_INVALID_VALUE;
}

/*
 * a context of device 0 made with cuCtxCreate, which makes it current;
 * the suite's kernels are loaded into it and run once (as in open_device),
 * and the calling thread's previous context is made current again
 * (cuCtxPopCurrent).
 */

/* keep: the new context stays current to the calling thread, pushed over its previous one */
static int make_context(void **ctx, unsigned flags, int keep)
{
    CUctxCreateParams params;
    CUcontext c = NULL, popped = NULL;
    CUmodule module;
    struct made m = { 0 };
    int rc, slot = -1;
    memset(&params, 0, sizeof params);
    if ((rc = SC_CALL(cuCtxCreate, &c, &params, flags & SC_CTX_BLOCKING_SYNC ? CU_CTX_SCHED_BLOCKING_SYNC : 0,
                      drv_gpus[0].dev)))
        return rc;
    m.ctx = c;
    if (!(rc = SC_CALL(cuModuleLoadData, &module, sc_fatbin)) &&
        !(rc = SC_CALL(cuModuleGetFunction, &m.gate, module, "sc_gate")) &&
        !(rc = SC_CALL(cuModuleGetFunction, &m.mark, module, "sc_mark")) &&
        !(rc = SC_CALL(cuModuleGetFunction, &m.fault, module, "sc_fault")) &&
        !(rc = SC_CALL(cuModuleGetFunction, &m.gate_open, module, "sc_gate_open")) &&
        !(rc = SC_CALL(cuModuleGetFunction, &m.gate_close, module, "sc_gate_close")))
        rc = SC_CALL(cuModuleGetFunction, &m.pdl, module, "sc_pdl");
    pthread_mutex_lock(&made_mu);
    for (int i = 0; i < SC_MAX_CONTEXTS_MADE && slot < 0 && !rc; i++)
        if (!made[i].ctx)
            slot = i;
    if (slot >= 0) {
        made[slot] = m;
        __atomic_add_fetch(&nmade, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&made_mu);
    if (!rc && slot < 0)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    const char *what;
    if (!rc)
        rc = drv_warm_up(&what); /* lazy loading must not wait for other work inside a case */
    if (rc || !keep)
        SC_CALL(cuCtxPopCurrent, &popped);
    if (rc) {
        if (slot >= 0)
            drv_ctx_destroy(c);
        else
            SC_CALL(cuCtxDestroy, c);
        return rc;
    }
    *ctx = c;
    return 0;
}

int drv_ctx_create_flags(void **ctx, unsigned flags) { return make_context(ctx, flags, 0); }
int drv_ctx_create(void **ctx) { return make_context(ctx, 0, 0); }
/* "If a context is already current to the thread, it is supplanted by the newly created context and
 * may be restored by a subsequent call to cuCtxPopCurrent()" (cuCtxCreate): the ctx_create op's call */
int drv_ctx_create_current(void **ctx, unsigned flags) { return make_context(ctx, flags, 1); }

/*
 * green contexts of device 0.  One partition of the device's SMs (cuDevSmResourceSplitByCount into
 * one group of the smallest size the device allows), its descriptor, and the green context made of it
 * (CU_GREEN_CTX_DEFAULT_STREAM, which cuGreenCtxCreate requires).  The suite's kernels, loaded into the
 * primary context, run in its streams: a green context converted by cuCtxFromGreenCtx "is a normal primary
 * context but with the resources of the specified green context" (cuda.h).
 */
int drv_green_stream_create(void **s, void *green, int prio_set, int prio)
{
    return SC_CALL(cuGreenCtxStreamCreate, (CUstream *)s, (CUgreenCtx)green, CU_STREAM_NON_BLOCKING,
                   prio_set ? prio : 0);
}
int drv_green_destroy(void *green) { return SC_CALL(cuGreenCtxDestroy, (CUgreenCtx)green); }

/* The kernels run once in a stream of the green context: lazy loading must not wait for other work in a case. */
static int green_warm_up(CUgreenCtx g)
{
    CUstream s = NULL;
    CUdeviceptr mem = 0;
    int rc = drv_green_stream_create((void **)&s, g, 0, 0);
    if (rc)
        return rc;
    void *flag, *slot;
    if (!(rc = SC_CALL(cuMemAlloc, &mem, 64))) {
        flag = (void *)(uintptr_t)mem, slot = (void *)(uintptr_t)(mem + 32);
        if (!(rc = SC_CALL(cuMemsetD8, mem, 1, 64)) && !(rc = drv_launch_gate(s, flag, 1000000000u, slot, 1)) &&
            !(rc = drv_launch_mark(s, slot, 1)))
            rc = SC_CALL(cuStreamSynchronize, s);
        SC_CALL(cuMemFree, mem);
    }
    SC_CALL(cuStreamDestroy, s);
    return rc;
}

int drv_green_create(void **green)
{
    CUdevResource all, part;
    CUdevResourceDesc desc = NULL;
    CUgreenCtx g = NULL;
    unsigned groups = 1;
    int rc;
    memset(&all, 0, sizeof all);
    memset(&part, 0, sizeof part);
    if ((rc = SC_CALL(cuDeviceGetDevResource, drv_gpus[0].dev, &all, CU_DEV_RESOURCE_TYPE_SM)) ||
        (rc = SC_CALL(cuDevSmResourceSplitByCount, &part, &groups, &all, NULL, 0, all.sm.minSmPartitionSize)))
        return rc;
    if (groups < 1)
        return CUDA_ERROR_NOT_SUPPORTED; /* no partition of the device's SMs can be made */
    if ((rc = SC_CALL(cuDevResourceGenerateDesc, &desc, &part, 1)) ||
        (rc = SC_CALL(cuGreenCtxCreate, &g, desc, drv_gpus[0].dev, CU_GREEN_CTX_DEFAULT_STREAM)))
        return rc;
    if ((rc = green_warm_up(g))) {
        SC_CALL(cuGreenCtxDestroy, g);
        return rc;
    }
    *green = g;
    return 0;
}

/* can green contexts be made here?  Asked once per process: the entry points (CUDA 12.4), then one
 * made and destroyed.  CUDA_ERROR_NOT_SUPPORTED is the device's answer, a skip; any other failure is left
 * to the cases, which fail with it. */
int drv_green_support(char *why, size_t n)
{
    static int state = -1;
    static char reason[256];
    if (state < 0) {
        static const char *const names[] = { "cuDeviceGetDevResource", "cuDevSmResourceSplitByCount",
                                             "cuDevResourceGenerateDesc", "cuGreenCtxCreate", "cuGreenCtxDestroy",
                                             "cuGreenCtxStreamCreate" };
        const void *have[] = { (void *)drv.cuDeviceGetDevResource, (void *)drv.cuDevSmResourceSplitByCount,
                         (void *)drv.cuDevResourceGenerateDesc, (void *)drv.cuGreenCtxCreate,
                         (void *)drv.cuGreenCtxDestroy, (void *)drv.cuGreenCtxStreamCreate };
        void *g = NULL;
        int rc;
        state = 0;
        for (size_t i = 0; i < sizeof have / sizeof have[0] && !state; i++)
            if (!have[i]) {
                snprintf(reason, sizeof reason, "libcuda.so.1 lacks %s (green contexts: CUDA 12.4 and later)",
                         names[i]);
                state = SC_UNSUPPORTED;
            }
        if (!state && (rc = drv_green_create(&g)) == CUDA_ERROR_NOT_SUPPORTED) {
            snprintf(reason, sizeof reason, "making one on device 0 answered CUDA_ERROR_NOT_SUPPORTED");
            state = SC_UNSUPPORTED;
        } else if (!state && rc == CUDA_SUCCESS) {
            drv_green_destroy(g);
        }
    }
    snprintf(why, n, "%s", reason);
    return state;
}

int drv_ctx_destroy(void *ctx)
{
    pthread_mutex_lock(&made_mu);
    for (int i = 0; i < SC_MAX_CONTEXTS_MADE; i++)
        if (made[i].ctx == ctx) {
            made[i].ctx = NULL;
            __atomic_sub_fetch(&nmade, 1, __ATOMIC_RELEASE);
        }
    pthread_mutex_unlock(&made_mu);
    return SC_CALL(cuCtxDestroy, (CUcontext)ctx);
}

int drv_ctx_enter(void *ctx, int action)
{
    if (action == SC_CTX_PUSH_TO)
        return SC_CALL(cuCtxPushCurrent, (CUcontext)ctx);
    return action == SC_CTX_SET_TO ? SC_CALL(cuCtxSetCurrent, (CUcontext)ctx) : CUDA_ERROR_INVALID_VALUE;
}

/*
 * context-level events of the calling thread's current context (cuCtxGetCurrent).  cuCtxRecordEvent
 * "Captures in hEvent all the activities of the context hCtx at the time of this call"; cuCtxWaitEvent
 * "Makes all future work submitted to context hCtx wait for all work captured in hEvent".  Both came with
 * CUDA 12.5: a driver that says it is older has neither, a capability the point skips for; one that says
 * 12.5 or later and lacks them fails, naming the entry point (SC_CALL).
 */
static int ctx_events_supported(void)
{
    int version = 0;
    return !SC_CALL(cuDriverGetVersion, &version) && version >= 12050;
}
/* The calling thread's context, for a context-level event call: SC_UNSUPPORTED before CUDA 12.5. */
static int ctx_for_events(CUcontext *c)
{
    *c = NULL;
    return !ctx_events_supported() ? SC_UNSUPPORTED : SC_CALL(cuCtxGetCurrent, c);
}
int drv_ctx_record_event(void *e)
{
    CUcontext c;
    int rc = ctx_for_events(&c);
    return rc ? rc : SC_CALL(cuCtxRecordEvent, c, (CUevent)e);
}
int drv_ctx_wait_event(void *e)
{
    CUcontext c;
    int rc = ctx_for_events(&c);
    return rc ? rc : SC_CALL(cuCtxWaitEvent, c, (CUevent)e);
}

/*
 * calls on a green context.  cuGreenCtxRecordEvent "Captures in hEvent all the activities of the green context of
 * hCtx at the time of this call"; cuGreenCtxWaitEvent "Makes all future work submitted to green context hCtx wait for
 * all work captured in hEvent".  Converted: the same through the context cuCtxFromGreenCtx gives, of which
 * cuCtxRecordEvent "will capture only the activities of the green context" and for which cuCtxWaitEvent makes "the
 * green context ... wait for hEvent" (CUDA 12.5, as ctx_for_events).  An entry point libcuda.so.1 lacks (an older
 * driver than the one that brought it) is a capability the point skips for.
 */
int drv_green_event(void *green, void *e, int wait, int converted)
{
    CUcontext c = NULL;
    int rc;
    if (!converted) {
        if (!(wait ? (void *)drv.cuGreenCtxWaitEvent : (void *)drv.cuGreenCtxRecordEvent))
            return SC_UNSUPPORTED;
        return wait ? SC_CALL(cuGreenCtxWaitEvent, (CUgreenCtx)green, (CUevent)e)
                    : SC_CALL(cuGreenCtxRecordEvent, (CUgreenCtx)green, (CUevent)e);
    }
    if (!drv.cuCtxFromGreenCtx || !ctx_events_supported())
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuCtxFromGreenCtx, &c, (CUgreenCtx)green)))
        return rc;
    return wait ? SC_CALL(cuCtxWaitEvent, c, (CUevent)e) : SC_CALL(cuCtxRecordEvent, c, (CUevent)e);
}

/* cuStreamGetGreenCtx: "Returns the CUDA green context that the stream is associated with, or NULL" */
int drv_stream_green(void *s, void **green)
{
    CUgreenCtx g = NULL;
    if (!drv.cuStreamGetGreenCtx)
        return SC_UNSUPPORTED;
    int rc = SC_CALL(cuStreamGetGreenCtx, (CUstream)s, &g);
    *green = g;
    return rc;
}

/* the primary context as the runtime API shares it: a runtime-API rule's op only */
int drv_primary_ctx_sync(void) { return SC_UNSUPPORTED; }

/*
 * releases of device 0's primary context, in a process of their own.  This process holds the
 * primary context (open_device retained it, and any library may have), and a release no retain matched
 * exists only where nothing retained it, while the last release resets the context under everything the
 * process made in it (the runtime's own host-mapped slots among them).  So the op starts this same program
 * again (sc_self_spawn) with STREAMCTS_PRIMARY_PROBE set: before main, primary_probe() below makes only
 * the calls of the action in the fresh process and prints the last call's code and the context's state
 * (cuDevicePrimaryCtxGetState), which the op answers and keeps.
 *   SC_PRIMARY_RELEASE_EXTRA  one release, nothing retained                 (answers its code)
 *   SC_PRIMARY_RELEASE_ALL    one retain, one release: the last reference   (reset: inactive after)
 *   SC_PRIMARY_BALANCED       two retains, one release: one reference left  (the controls)
 */
#define SC_PRIMARY_PROBE_ENV "STREAMCTS_PRIMARY_PROBE"
#define SC_PRIMARY_PROBE_MS 9000 /* a fresh process's cuInit and context: under the op's 10 s deadline, so a slow
                                    * probe is killed before the case gives up on the thread waiting for it */

__attribute__((constructor)) static void primary_probe(void)
{
    const char *v = getenv(SC_PRIMARY_PROBE_ENV);
    char why[256];
    CUdevice dev;
    CUcontext c;
    unsigned flags = 0;
    int action, rc, active = -1;
    if (!v)
        return;
    action = atoi(v);
    if ((rc = sc_driver_load(why, sizeof why)) != SC_READY)
        rc = -1;
    else if (!(rc = SC_CALL(cuInit, 0)) && !(rc = SC_CALL(cuDeviceGet, &dev, 0))) {
        if (action == SC_PRIMARY_RELEASE_ALL || action == SC_PRIMARY_BALANCED)
            rc = SC_CALL(cuDevicePrimaryCtxRetain, &c, dev);
        if (!rc && action == SC_PRIMARY_BALANCED)
            rc = SC_CALL(cuDevicePrimaryCtxRetain, &c, dev);
        if (!rc)
            rc = SC_CALL(cuDevicePrimaryCtxRelease, dev);
        if (SC_CALL(cuDevicePrimaryCtxGetState, dev, &flags, &active))
            active = -1;
    }
    printf("%d %d\n", rc, active);
    fflush(stdout);
    _exit(0);
}

int drv_primary_release(int action, int *reset)
{
    char var[64], out[64] = "", why[256];
    int fds[2], status, timed_out, rc = -1, active = -1;
    char *argv[] = { "streamcts-primary-probe", NULL };
    *reset = 0;
    if (pipe2(fds, O_CLOEXEC))
        return CUDA_ERROR_OPERATING_SYSTEM;
    snprintf(var, sizeof var, "%s=%d", SC_PRIMARY_PROBE_ENV, action);
    const char *add[] = { var, NULL };
    pid_t pid = sc_self_spawn(argv, add, fds[1], SC_SPAWN_STDOUT, why, sizeof why); /* it prints its answer */
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        return CUDA_ERROR_OPERATING_SYSTEM;
    }
    /* a probe that hangs is killed: the op answers an error */
    sc_self_collect(pid, fds[0], out, sizeof out - 1, SC_PRIMARY_PROBE_MS * 1000000ull, &timed_out, &status);
    if (sscanf(out, "%d %d", &rc, &active) != 2)
        return CUDA_ERROR_OPERATING_SYSTEM; /* it died or hung without an answer */
    *reset = active == 0;
    return rc < 0 ? CUDA_ERROR_OPERATING_SYSTEM : rc;
}
