/*
 * runtime_streams.c - streams and events through the runtime API: made,
 * destroyed and asked about, records and waits, synchronize and query, host
 * functions and stream callbacks.
 */
#include "runtime.h"

#include <string.h>

void *rt_builtin_stream(int which)
{
    switch (which) {
    case SC_LEGACY_STREAM: return cudaStreamLegacy;
    case SC_PER_THREAD_STREAM: return cudaStreamPerThread;
    default: return NULL;
    }
}

int rt_stream_create(void **s, int nonblocking, int prio_set, int prio)
{
    unsigned flags = nonblocking ? cudaStreamNonBlocking : cudaStreamDefault;
    if (prio_set)
        return cudaStreamCreateWithPriority((cudaStream_t *)s, flags, prio);
    return cudaStreamCreateWithFlags((cudaStream_t *)s, flags);
}
int rt_stream_destroy(void *s) { return cudaStreamDestroy((cudaStream_t)s); }
int rt_priority_range(int *least, int *greatest) { return cudaDeviceGetStreamPriorityRange(least, greatest); }
int rt_stream_get_flags(void *s, int *nonblocking)
{
    unsigned flags = 0;
    int rc = cudaStreamGetFlags((cudaStream_t)s, &flags);
    *nonblocking = (flags & cudaStreamNonBlocking) != 0;
    return rc;
}
int rt_stream_get_priority(void *s, int *prio) { return cudaStreamGetPriority((cudaStream_t)s, prio); }
int rt_stream_create_invalid(void)
{
    cudaStream_t s = NULL;
    int rc = cudaStreamCreateWithFlags(&s, 0x100u); /* no cudaStream* flag has this bit */
    if (rc == cudaSuccess)
        cudaStreamDestroy(s);
    return rc;
}
int rt_event_create(void **e, unsigned flags)
{
    unsigned f = cudaEventDefault;
    f |= (flags & SC_EV_BLOCKING_SYNC) ? cudaEventBlockingSync : 0;
    f |= (flags & SC_EV_DISABLE_TIMING) ? cudaEventDisableTiming : 0;
    f |= (flags & SC_EV_INTERPROCESS) ? cudaEventInterprocess : 0;
    return cudaEventCreateWithFlags((cudaEvent_t *)e, f);
}
int rt_event_destroy(void *e) { return cudaEventDestroy((cudaEvent_t)e); }

int rt_host_func(void *s, void (*fn)(void *), void *arg) { return cudaLaunchHostFunc((cudaStream_t)s, fn, arg); }

static void CUDART_CB callback_trampoline(cudaStream_t s, cudaError_t status, void *arg)
{
    const struct sc_callback *cb = arg;
    (void)s;
    cb->body(cb->arg, (int)status);
}
int rt_callback(void *s, const struct sc_callback *cb)
{ return cudaStreamAddCallback((cudaStream_t)s, callback_trampoline, (void *)cb, 0);
}

int rt_event_record(void *e, void *s) { return cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s); }
int rt_event_record_external(void *e, void *s)
{
    return cudaEventRecordWithFlags((cudaEvent_t)e, (cudaStream_t)s, cudaEventRecordExternal);
}
_Static_assert(SC_WAIT_EXTERNAL == cudaEventWaitExternal, "stream_wait_event passes its flags on");
int rt_stream_wait_event(void *s, void *e, unsigned flags)
{
    return cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, flags);
}
int rt_stream_sync(void *s) { return cudaStreamSynchronize((cudaStream_t)s); }
int rt_stream_query(void *s) { return cudaStreamQuery((cudaStream_t)s); }
int rt_event_sync(void *e) { return cudaEventSynchronize((cudaEvent_t)e); }
int rt_event_query(void *e) { return cudaEventQuery((cudaEvent_t)e); }
int rt_event_elapsed(float *ms, void *start, void *end)
{
    return cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end);
}
int rt_ctx_sync(void) { return cudaDeviceSynchronize(); }

int rt_stream_id(void *s, uint64_t *id)
{
    unsigned long long v = 0;
    int rc = cudaStreamGetId((cudaStream_t)s, &v);
    *id = v;
    return rc;
}

/* ---- a stream's introspection and attributes ---------------------------------------------------- */

/* the runtime API has no cuStreamGetCtx: a stream_ctx rule runs through the driver API only */
int rt_stream_ctx(void *s, void *ctx, int *which)
{
    (void)s, (void)ctx;
    *which = 0;
    return SC_UNSUPPORTED;
}

static const enum cudaSynchronizationPolicy policies[] = {
    [SC_SYNC_AUTO] = cudaSyncPolicyAuto, [SC_SYNC_SPIN] = cudaSyncPolicySpin,
    [SC_SYNC_YIELD] = cudaSyncPolicyYield, [SC_SYNC_BLOCKING_SYNC] = cudaSyncPolicyBlockingSync,
};
int rt_sync_policy(void *s, int set, int *policy)
{
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    if (set) {
        v.syncPolicy = policies[*policy];
        return cudaStreamSetAttribute((cudaStream_t)s, cudaStreamAttributeSynchronizationPolicy, &v);
    }
    int rc = cudaStreamGetAttribute((cudaStream_t)s, cudaStreamAttributeSynchronizationPolicy, &v);
    *policy = 0;
    for (int p = SC_SYNC_AUTO; p <= SC_SYNC_BLOCKING_SYNC; p++)
        if (v.syncPolicy == policies[p])
            *policy = p;
    return rc;
}
int rt_copy_attributes(void *dst, void *src) { return cudaStreamCopyAttributes((cudaStream_t)dst, (cudaStream_t)src); }

int rt_attach_single(void *s)
{
    void *d = NULL;
    int rc = cudaMallocManaged(&d, 4096, cudaMemAttachGlobal);
    if (rc)
        return rc;
    rc = cudaStreamAttachMemAsync((cudaStream_t)s, d, 0, cudaMemAttachSingle);
    if (!rc)
        cudaStreamSynchronize((cudaStream_t)s);
    cudaFree(d);
    return rc;
}
