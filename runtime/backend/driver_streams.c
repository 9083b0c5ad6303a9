/*
 * driver_streams.c - streams and events through the driver API: made,
 * destroyed and asked about, records and waits, synchronize and query, host
 * functions and stream callbacks.
 */
#include "driver.h"

#include <string.h>

void *drv_builtin_stream(int which)
{
    switch (which) {
    case SC_LEGACY_STREAM: return CU_STREAM_LEGACY;
    case SC_PER_THREAD_STREAM: return CU_STREAM_PER_THREAD;
    default: return NULL; /* SC_NULL_STREAM: the handle 0 */
    }
}

int drv_stream_create(void **s, int nonblocking, int prio_set, int prio)
{
    unsigned flags = nonblocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
    if (prio_set)
        return SC_CALL(cuStreamCreateWithPriority, (CUstream *)s, flags, prio);
    return SC_CALL(cuStreamCreate, (CUstream *)s, flags);
}
int drv_stream_destroy(void *s) { return SC_CALL(cuStreamDestroy, (CUstream)s); }
int drv_priority_range(int *least, int *greatest) { return SC_CALL(cuCtxGetStreamPriorityRange, least, greatest); }
int drv_stream_get_flags(void *s, int *nonblocking)
{
    unsigned flags = 0;
    int rc = SC_CALL(cuStreamGetFlags, (CUstream)s, &flags);
    *nonblocking = (flags & CU_STREAM_NON_BLOCKING) != 0;
    return rc;
}
int drv_stream_get_priority(void *s, int *prio) { return SC_CALL(cuStreamGetPriority, (CUstream)s, prio); }
int drv_stream_create_invalid(void)
{
    CUstream s = NULL;
    int rc = SC_CALL(cuStreamCreate, &s, 0x100u); /* no CU_STREAM_* flag has this bit */
    if (rc == CUDA_SUCCESS)
        SC_CALL(cuStreamDestroy, s);
    return rc;
}
int drv_event_create(void **e, unsigned flags)
{
    unsigned f = CU_EVENT_DEFAULT;
    f |= (flags & SC_EV_BLOCKING_SYNC) ? CU_EVENT_BLOCKING_SYNC : 0;
    f |= (flags & SC_EV_DISABLE_TIMING) ? CU_EVENT_DISABLE_TIMING : 0;
    f |= (flags & SC_EV_INTERPROCESS) ? CU_EVENT_INTERPROCESS : 0;
    return SC_CALL(cuEventCreate, (CUevent *)e, f);
}
int drv_event_destroy(void *e) { return SC_CALL(cuEventDestroy, (CUevent)e); }

int drv_host_func(void *s, void (*fn)(void *), void *arg) { return SC_CALL(cuLaunchHostFunc, (CUstream)s, fn, arg); }

static void CUDA_CB callback_trampoline(CUstream s, CUresult status, void *arg)
{
    const struct sc_callback *cb = arg;
    (void)s;
    cb->body(cb->arg, (int)status);
}
int drv_callback(void *s, const struct sc_callback *cb)
{ return SC_CALL(cuStreamAddCallback, (CUstream)s, callback_trampoline, (void *)cb, 0);
}

int drv_event_record(void *e, void *s) { return SC_CALL(cuEventRecord, (CUevent)e, (CUstream)s); }
int drv_event_record_external(void *e, void *s)
{
    return SC_CALL(cuEventRecordWithFlags, (CUevent)e, (CUstream)s, CU_EVENT_RECORD_EXTERNAL);
}
_Static_assert(SC_WAIT_EXTERNAL == CU_EVENT_WAIT_EXTERNAL, "stream_wait_event passes its flags on");
int drv_stream_wait_event(void *s, void *e, unsigned flags)
{
    return SC_CALL(cuStreamWaitEvent, (CUstream)s, (CUevent)e, flags);
}
int drv_stream_sync(void *s) { return SC_CALL(cuStreamSynchronize, (CUstream)s); }
int drv_stream_query(void *s) { return SC_CALL(cuStreamQuery, (CUstream)s); }
int drv_event_sync(void *e) { return SC_CALL(cuEventSynchronize, (CUevent)e); }
int drv_event_query(void *e) { return SC_CALL(cuEventQuery, (CUevent)e); }
int drv_event_elapsed(float *ms, void *start, void *end)
{
    return SC_CALL(cuEventElapsedTime, ms, (CUevent)start, (CUevent)end);
}
int drv_ctx_sync(void) { return SC_CALL(cuCtxSynchronize); }

int drv_stream_id(void *s, uint64_t *id)
{
    unsigned long long v = 0;
    int rc = SC_CALL(cuStreamGetId, (CUstream)s, &v);
    *id = v;
    return rc;
}

/* ---- a stream's introspection and attributes ---------------------------------------------------- */

/* cuStreamGetCtx: "The returned context is the context that was active in the calling thread when the stream was
 * created"; of the special handles, "the context current to the calling thread" */
int drv_stream_ctx(void *s, void *ctx, int *which)
{
    CUcontext c = NULL;
    int rc = SC_CALL(cuStreamGetCtx, (CUstream)s, &c);
    *which = rc ? 0 : c == drv_gpus[0].ctx ? 1 : ctx && c == (CUcontext)ctx ? 2 : 0;
    return rc;
}

static const CUsynchronizationPolicy policies[] = {
    [SC_SYNC_AUTO] = CU_SYNC_POLICY_AUTO, [SC_SYNC_SPIN] = CU_SYNC_POLICY_SPIN,
    [SC_SYNC_YIELD] = CU_SYNC_POLICY_YIELD, [SC_SYNC_BLOCKING_SYNC] = CU_SYNC_POLICY_BLOCKING_SYNC,
};
int drv_sync_policy(void *s, int set, int *policy)
{
    CUstreamAttrValue v;
    memset(&v, 0, sizeof v);
    if (set) {
        v.syncPolicy = policies[*policy];
        return SC_CALL(cuStreamSetAttribute, (CUstream)s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v);
    }
    int rc = SC_CALL(cuStreamGetAttribute, (CUstream)s, CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY, &v);
    *policy = 0;
    for (int p = SC_SYNC_AUTO; p <= SC_SYNC_BLOCKING_SYNC; p++)
        if (v.syncPolicy == policies[p])
            *policy = p;
    return rc;
}
int drv_copy_attributes(void *dst, void *src) { return SC_CALL(cuStreamCopyAttributes, (CUstream)dst, (CUstream)src); }

/* cuStreamAttachMemAsync: "It is illegal to attach singly to the NULL stream ... An error will be returned" */
int drv_attach_single(void *s)
{
    CUdeviceptr d = 0;
    int rc = SC_CALL(cuMemAllocManaged, &d, 4096, CU_MEM_ATTACH_GLOBAL);
    if (rc)
        return rc;
    rc = SC_CALL(cuStreamAttachMemAsync, (CUstream)s, d, 0, CU_MEM_ATTACH_SINGLE);
    if (!rc)
        SC_CALL(cuStreamSynchronize, (CUstream)s);
    SC_CALL(cuMemFree, d);
    return rc;
}
