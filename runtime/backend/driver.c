/*
 * driver.c - the runtime's primitive actions through the driver API.
 *
 * Compiled once per compile mode (see cu_loader.h), so in per-thread mode every
 * stream-taking call below resolves to its _ptsz/_ptds entry point.
 */
#define _GNU_SOURCE /* pipe2: the primary context probe */
#include "backend.h"
#include "cu_loader.h"
#include "fatbin.h"
#include "slot.h"
#include "self.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
const char sc_compile_mode[] = "per-thread";
#else
const char sc_compile_mode[] = "legacy";
#endif
const char sc_backend_kind[] = "cuda";

/* The GPUs a program uses, opened on first use: device 0 at init, others when a case names them. */
static struct gpu {
    int open;
    CUdevice dev;
    CUcontext ctx;
    CUfunction gate, mark, fault, pdl;
    CUfunction gate_open, gate_close; /* a gate held by a stream wait (STREAMCTS_GATE=wait) */
    int cc_major; /* its compute capability; 9 and up: programmatic dependent launch */
} gpus[SC_MAX_DEVICES];
static _Thread_local int cur; /* the device whose context this thread made current */

/* contexts made with cuCtxCreate on device 0, each with the suite's kernels loaded in it. */
static struct made {
    CUcontext ctx;
    CUfunction gate, mark, fault, pdl, gate_open, gate_close;
} made[SC_MAX_CONTEXTS_MADE];
static pthread_mutex_t made_mu = PTHREAD_MUTEX_INITIALIZER;
static int nmade; /* contexts alive: while 0, launches need not ask which context is current */

/* The kernels of the calling thread's current context: a created one's, or device cur's. */
static const struct made *kernels(void)
{
    static _Thread_local struct made dev;
    CUcontext c = NULL;
    if (__atomic_load_n(&nmade, __ATOMIC_ACQUIRE) && SC_CALL(cuCtxGetCurrent, &c) == CUDA_SUCCESS && c)
        for (int i = 0; i < SC_MAX_CONTEXTS_MADE; i++)
            if (made[i].ctx == c)
                return &made[i];
    dev = (struct made){ gpus[cur].ctx,  gpus[cur].gate,      gpus[cur].mark,      gpus[cur].fault,
                         gpus[cur].pdl, gpus[cur].gate_open, gpus[cur].gate_close };
    return &dev;
}

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
static int launch_mark(void *s, void *slot, uint32_t token);
static int wait_gate(void *s, void *flag, void *slot, uint32_t token);

/*
 * Runs each kernel once.  With lazy module loading (the default since CUDA
 * 12.2) a kernel's first launch loads it, and loading may wait for work
 * pending in other streams: that false dependency must not land in a case.
 */
static CUresult warm_up(void)
{
    CUdeviceptr mem;
    CUresult rc = SC_CALL(cuMemAlloc, &mem, 64);
    void *flag = (void *)(uintptr_t)mem, *slot = (void *)(uintptr_t)(mem + 32);
    if (rc)
        return rc;
    uint32_t token = 1, sync = 0;
    void *none = NULL, *pdl_args[] = { &slot, &token, &sync, &none };
    /* the launches take the current context's kernels: a created context's too */
    if (!(rc = SC_CALL(cuMemsetD8, mem, 1, 64)) && !(rc = launch_gate(NULL, flag, 1000000000u, slot, 1)) &&
        !(rc = launch_mark(NULL, slot, 1)) && !(rc = wait_gate(NULL, flag, slot, 1)) &&
        !(rc = SC_CALL(cuLaunchKernel, kernels()->pdl, 1, 1, 1, 1, 1, 1, 0, NULL, pdl_args, NULL)))
        rc = SC_CALL(cuCtxSynchronize);
    SC_CALL(cuMemFree, mem);
    return rc;
}

/* Retains device d's primary context, makes it current, loads and runs the kernels. */
static int open_device(int d, char *why, size_t n)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    struct gpu *g = &gpus[d];
    const char *name = "?";
    CUmodule module;
    CUresult rc = CUDA_SUCCESS;
    pthread_mutex_lock(&mu);
    if (g->open) {
        pthread_mutex_unlock(&mu);
        return SC_CALL(cuCtxSetCurrent, g->ctx);
    }
    if ((rc = SC_CALL(cuDeviceGet, &g->dev, d)) || (rc = SC_CALL(cuDevicePrimaryCtxRetain, &g->ctx, g->dev))) {
        g->ctx = NULL; /* none was made: init may try again (SC_BUSY) */
        SC_CALL(cuGetErrorName, rc, &name);
        snprintf(why, n, "cannot open device %d: %s%s", d, name,
                 rc == CUDA_ERROR_OUT_OF_MEMORY ? " (cuDevicePrimaryCtxRetain: the device has no room for another context)"
                                                : "");
    } else if ((rc = SC_CALL(cuCtxSetCurrent, g->ctx))) {
        SC_CALL(cuGetErrorName, rc, &name);
        snprintf(why, n, "cannot open device %d: %s", d, name);
    } else if ((rc = SC_CALL(cuModuleLoadData, &module, sc_fatbin)) ||
               (rc = SC_CALL(cuModuleGetFunction, &g->gate, module, "sc_gate")) ||
               (rc = SC_CALL(cuModuleGetFunction, &g->mark, module, "sc_mark")) ||
               (rc = SC_CALL(cuModuleGetFunction, &g->fault, module, "sc_fault")) ||
               (rc = SC_CALL(cuModuleGetFunction, &g->pdl, module, "sc_pdl")) ||
               (rc = SC_CALL(cuModuleGetFunction, &g->gate_open, module, "sc_gate_open")) ||
               (rc = SC_CALL(cuModuleGetFunction, &g->gate_close, module, "sc_gate_close")) ||
               (rc = SC_CALL(cuDeviceGetAttribute, &g->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, g->dev))) {
        SC_CALL(cuGetErrorName, rc, &name);
        snprintf(why, n, "cannot load the suite's kernels on device %d: %s", d, name);
    } else {
        int was = cur;
        cur = d;
        if ((rc = warm_up())) {
            SC_CALL(cuGetErrorName, rc, &name);
            snprintf(why, n, "the suite's kernels do not run on device %d: %s", d, name);
            cur = was;
        } else {
            g->open = 1;
        }
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

/* Loads the driver library and runs cuInit, once per process: SC_READY, or SC_MISSING / SC_LACKING / SC_BROKEN
 * with the reason.  No context yet: a program can ask how many GPUs there are before it pays for one. */
static int start(char *reason, size_t n)
{
    static int state = -1;
    static char why[512];
    if (state < 0 && (state = sc_driver_load(why, sizeof why)) == SC_READY) {
        CUresult rc = SC_CALL(cuInit, 0);
        const char *name = "?";
        if (rc != CUDA_SUCCESS) {
            SC_CALL(cuGetErrorName, rc, &name);
            snprintf(why, sizeof why, "%s (cuInit: %s)",
                     rc == CUDA_ERROR_NO_DEVICE ? "no CUDA device" : "no usable CUDA driver", name);
            state = rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_STUB_LIBRARY ? SC_MISSING : SC_BROKEN;
        }
    }
    snprintf(reason, n, "%s", why);
    return state;
}

static int init(char *why, size_t whylen)
{
    static int state = -1; /* shared by every case of the process */
    static char reason[512];
    if (state >= 0) {
        snprintf(why, whylen, "%s", reason);
        return state;
    }
    if ((state = start(reason, sizeof reason)) == SC_READY) {
        CUresult rc = open_device(0, reason, sizeof reason);
        state = rc == CUDA_SUCCESS ? SC_READY : SC_BROKEN;
        if (rc == CUDA_SUCCESS) {
            reason[0] = '\0';
        } else if (rc == CUDA_ERROR_OUT_OF_MEMORY && !gpus[0].ctx) {
            /* no context was made: other processes hold the device's room for contexts (an H100 at
             * CUDA_DEVICE_MAX_CONNECTIONS=32 held 7); the caller may wait and call again */
            state = -1;
            snprintf(why, whylen, "%s", reason);
            return SC_BUSY;
        }
    }
    snprintf(why, whylen, "%s", reason);
    return state;
}

/* Works before init: after cuInit only (start). */
static int device_count(int *n)
{
    char why[512];
    if (start(why, sizeof why) != SC_READY)
        return CUDA_ERROR_NOT_INITIALIZED;
    return SC_CALL(cuDeviceGetCount, n);
}

static int use_device(int d)
{
    char why[256];
    int rc;
    if (d < 0 || d >= SC_MAX_DEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    if ((rc = open_device(d, why, sizeof why)) == CUDA_SUCCESS)
        cur = d;
    return rc;
}

static int thread_attach(void)
{
    cur = 0;
    return SC_CALL(cuCtxSetCurrent, gpus[0].ctx);
}

static void *builtin_stream(int which)
{
    switch (which) {
    case SC_LEGACY_STREAM: return CU_STREAM_LEGACY;
    case SC_PER_THREAD_STREAM: return CU_STREAM_PER_THREAD;
    default: return NULL; /* SC_NULL_STREAM: the handle 0 */
    }
}

static int stream_create(void **s, int nonblocking, int prio_set, int prio)
{
    unsigned flags = nonblocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT;
    if (prio_set)
        return SC_CALL(cuStreamCreateWithPriority, (CUstream *)s, flags, prio);
    return SC_CALL(cuStreamCreate, (CUstream *)s, flags);
}
static int stream_destroy(void *s) { return SC_CALL(cuStreamDestroy, (CUstream)s); }
static int priority_range(int *least, int *greatest) { return SC_CALL(cuCtxGetStreamPriorityRange, least, greatest); }
static int stream_get_flags(void *s, int *nonblocking)
{
    unsigned flags = 0;
    int rc = SC_CALL(cuStreamGetFlags, (CUstream)s, &flags);
    *nonblocking = (flags & CU_STREAM_NON_BLOCKING) != 0;
    return rc;
}
static int stream_get_priority(void *s, int *prio) { return SC_CALL(cuStreamGetPriority, (CUstream)s, prio); }
static int stream_create_invalid(void)
{
    CUstream s = NULL;
    int rc = SC_CALL(cuStreamCreate, &s, 0x100u); /* no CU_STREAM_* flag has this bit */
    if (rc == CUDA_SUCCESS)
        SC_CALL(cuStreamDestroy, s);
    return rc;
}
static int event_create(void **e, unsigned flags)
{
    unsigned f = CU_EVENT_DEFAULT;
    f |= (flags & SC_EV_BLOCKING_SYNC) ? CU_EVENT_BLOCKING_SYNC : 0;
    f |= (flags & SC_EV_DISABLE_TIMING) ? CU_EVENT_DISABLE_TIMING : 0;
    f |= (flags & SC_EV_INTERPROCESS) ? CU_EVENT_INTERPROCESS : 0;
    return SC_CALL(cuEventCreate, (CUevent *)e, f);
}
static int event_destroy(void *e) { return SC_CALL(cuEventDestroy, (CUevent)e); }

static int dev_alloc(void **p, size_t n)
{
    CUdeviceptr d = 0;
    int rc = SC_CALL(cuMemAlloc, &d, n);
    *p = (void *)(uintptr_t)d;
    return rc;
}
static int dev_free(void *p) { return SC_CALL(cuMemFree, (CUdeviceptr)(uintptr_t)p); }
static int host_alloc(void **p, size_t n)
{
    return SC_CALL(cuMemHostAlloc, p, n, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
}
static int host_free(void *p) { return SC_CALL(cuMemFreeHost, p); }
static int managed_alloc(void **p, size_t n)
{
    CUdeviceptr d = 0;
    int rc = SC_CALL(cuMemAllocManaged, &d, n, CU_MEM_ATTACH_GLOBAL);
    *p = (void *)(uintptr_t)d;
    return rc;
}
static int host_dev_ptr(void **d, void *h)
{
    CUdeviceptr dp = 0;
    int rc = SC_CALL(cuMemHostGetDevicePointer, &dp, h, 0);
    *d = (void *)(uintptr_t)dp;
    return rc;
}

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *args[] = { &flag, &max_ns, &slot, &token };
    return SC_CALL(cuLaunchKernel, kernels()->gate, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}
static int launch_mark(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return SC_CALL(cuLaunchKernel, kernels()->mark, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}
/* 2048 threads per block, over every device's 1024: refused before it runs (were it run, it would only
 * mark its slot) */
static int launch_invalid(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return SC_CALL(cuLaunchKernel, kernels()->mark, 1, 1, 1, 2048, 1, 1, 0, (CUstream)s, args, NULL);
}
/* The gate as a stream wait on the flag between two kernels (see sc_gate_open); it has no device-side
 * deadline: the host releases it, at the latest at the deadline. */
static int wait_gate(void *s, void *flag, void *slot, uint32_t token)
{
    const struct made *k = kernels();
    void *open_args[] = { &slot }, *close_args[] = { &slot, &token };
    int rc;
    if ((rc = SC_CALL(cuLaunchKernel, k->gate_open, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, open_args, NULL)) ||
        (rc = SC_CALL(cuStreamWaitValue32, (CUstream)s, (CUdeviceptr)(uintptr_t)flag, 1u, CU_STREAM_WAIT_VALUE_GEQ)))
        return rc;
    return SC_CALL(cuLaunchKernel, k->gate_close, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, close_args, NULL);
}

/* sc_pdl through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
static int launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token)
{
    uint32_t wait = sync != 0;
    void *args[] = { &slot, &token, &wait, &primary_token };
    CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION };
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1, .blockDimY = 1,
                           .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1 };
    if (gpus[cur].cc_major < 9)
        return SC_UNSUPPORTED; /* programmatic dependent launch needs compute capability 9.0 */
    return SC_CALL(cuLaunchKernelEx, &cfg, kernels()->pdl, args, NULL);
}

/* sc_mark through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT */
static int launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT };
    attr.value.programmaticEvent.event = (CUevent)e;
    attr.value.programmaticEvent.flags = 0;
    attr.value.programmaticEvent.triggerAtBlockStart = 0;
    CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1, .blockDimY = 1,
                           .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1 };
    if (gpus[cur].cc_major < 9)
        return SC_UNSUPPORTED; /* a programmatic event needs compute capability 9.0 */
    return SC_CALL(cuLaunchKernelEx, &cfg, flag ? kernels()->gate : kernels()->mark, flag ? gate_args : mark_args,
                   NULL);
}

/* sc_mark or sc_gate through cuLaunchKernelEx with one launch attribute */
static int launch_attr(void *s, int which, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN };
    int least = 0, greatest = 0, rc;
    if (which == SC_LAUNCH_REMOTE_DOMAIN) {
        if (gpus[cur].cc_major < 9)
            return SC_UNSUPPORTED; /* memory synchronization domains came with compute capability 9.0 */
        attr.value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
    } else if (which == SC_LAUNCH_PRIORITY) {
        if ((rc = SC_CALL(cuCtxGetStreamPriorityRange, &least, &greatest)))
            return rc;
        attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY, attr.value.priority = greatest;
    } else
        return SC_UNSUPPORTED;
    CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1, .blockDimY = 1,
                           .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1 };
    return SC_CALL(cuLaunchKernelEx, &cfg, flag ? kernels()->gate : kernels()->mark, flag ? gate_args : mark_args,
                   NULL);
}

static int launch_fault(void *s, int how)
{
    uint32_t kind = (uint32_t)how;
    void *args[] = { &kind };
    return SC_CALL(cuLaunchKernel, kernels()->fault, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

static int memset_async(void *s, void *d, unsigned char v, size_t n)
{
    return SC_CALL(cuMemsetD8Async, DPTR(d), v, n, (CUstream)s);
}
static int memset_sync(void *d, unsigned char v, size_t n) { return SC_CALL(cuMemsetD8, DPTR(d), v, n); }

static int host_side(unsigned kind, int dst)
{
    switch (kind & SC_COPY_KIND_MASK) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return !dst;
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return dst;
    default: return 0;
    }
}

static void copy2d(CUDA_MEMCPY2D *m, void *dst, const void *src, size_t n, unsigned kind)
{
    memset(m, 0, sizeof *m);
    m->srcMemoryType = host_side(kind, 0) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->srcHost = src;
    m->srcDevice = DPTR(src);
    m->srcPitch = SC_ROW_BYTES;
    m->dstMemoryType = host_side(kind, 1) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->dstHost = dst;
    m->dstDevice = DPTR(dst);
    m->dstPitch = SC_ROW_BYTES;
    m->WidthInBytes = SC_ROW_BYTES;
    m->Height = n / SC_ROW_BYTES;
}

static void copy3d(CUDA_MEMCPY3D *m, void *dst, const void *src, size_t n, unsigned kind)
{
    memset(m, 0, sizeof *m);
    m->srcMemoryType = host_side(kind, 0) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->srcHost = src;
    m->srcDevice = DPTR(src);
    m->srcPitch = SC_ROW_BYTES;
    m->srcHeight = SC_3D_ROWS;
    m->dstMemoryType = host_side(kind, 1) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->dstHost = dst;
    m->dstDevice = DPTR(dst);
    m->dstPitch = SC_ROW_BYTES;
    m->dstHeight = SC_3D_ROWS;
    m->WidthInBytes = SC_ROW_BYTES;
    m->Height = SC_3D_ROWS;
    m->Depth = n / (SC_ROW_BYTES * SC_3D_ROWS);
}

/*
 * The plain copies use the entry point of their direction; copies between
 * host memories and with managed memory use cuMemcpy(Async), which infers
 * the direction from the pointers (unified addressing).
 */
static int memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D) {
        CUDA_MEMCPY2D m;
        copy2d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy2DAsync, &m, (CUstream)s);
    }
    if (kind & SC_COPY_3D) {
        CUDA_MEMCPY3D m;
        copy3d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy3DAsync, &m, (CUstream)s);
    }
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return SC_CALL(cuMemcpyHtoDAsync, DPTR(dst), src, n, (CUstream)s);
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return SC_CALL(cuMemcpyDtoHAsync, dst, DPTR(src), n, (CUstream)s);
    case SC_D2D: return SC_CALL(cuMemcpyDtoDAsync, DPTR(dst), DPTR(src), n, (CUstream)s);
    default: return SC_CALL(cuMemcpyAsync, DPTR(dst), DPTR(src), n, (CUstream)s);
    }
}
static int memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev)
{
    CUdeviceptr dsts[SC_BATCH_COPIES + 1], srcs[SC_BATCH_COPIES + 1];
    size_t sizes[SC_BATCH_COPIES + 1], first = 0, part = n / SC_BATCH_COPIES;
    CUmemcpyAttributes attr = { .srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM };
    struct sc_slot *slot = slot_dev;
    (void)kind; /* unified addressing: host pinned and device memory alike */
    for (int k = 0; k < SC_BATCH_COPIES; k++)
        dsts[k] = DPTR((char *)dst + k * part), srcs[k] = DPTR((const char *)src + k * part), sizes[k] = part;
    dsts[SC_BATCH_COPIES] = DPTR(&slot->token), srcs[SC_BATCH_COPIES] = DPTR(&slot->arg);
    sizes[SC_BATCH_COPIES] = sizeof slot->token;
    return SC_CALL(cuMemcpyBatchAsync, dsts, srcs, sizes, SC_BATCH_COPIES + 1, &attr, &first, 1, (CUstream)s);
}
static int memcpy_sync(void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D) {
        CUDA_MEMCPY2D m;
        copy2d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy2D, &m);
    }
    if (kind & SC_COPY_3D) {
        CUDA_MEMCPY3D m;
        copy3d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy3D, &m);
    }
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return SC_CALL(cuMemcpyHtoD, DPTR(dst), src, n);
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return SC_CALL(cuMemcpyDtoH, dst, DPTR(src), n);
    case SC_D2D: return SC_CALL(cuMemcpyDtoD, DPTR(dst), DPTR(src), n);
    default: return SC_CALL(cuMemcpy, DPTR(dst), DPTR(src), n);
    }
}

static int host_func(void *s, void (*fn)(void *), void *arg) { return SC_CALL(cuLaunchHostFunc, (CUstream)s, fn, arg); }

static void CUDA_CB callback_trampoline(CUstream s, CUresult status, void *arg)
{
    const struct sc_callback *cb = arg;
    (void)s;
    cb->body(cb->arg, (int)status);
}
static int callback(void *s, const struct sc_callback *cb)
{ return SC_CALL(cuStreamAddCallback, (CUstream)s, callback_trampoline, (void *)cb, 0);
}

static int event_record(void *e, void *s) { return SC_CALL(cuEventRecord, (CUevent)e, (CUstream)s); }
static int event_record_external(void *e, void *s)
{
    return SC_CALL(cuEventRecordWithFlags, (CUevent)e, (CUstream)s, CU_EVENT_RECORD_EXTERNAL);
}
_Static_assert(SC_WAIT_EXTERNAL == CU_EVENT_WAIT_EXTERNAL, "stream_wait_event passes its flags on");
static int stream_wait_event(void *s, void *e, unsigned flags)
{
    return SC_CALL(cuStreamWaitEvent, (CUstream)s, (CUevent)e, flags);
}
static int stream_sync(void *s) { return SC_CALL(cuStreamSynchronize, (CUstream)s); }
static int stream_query(void *s) { return SC_CALL(cuStreamQuery, (CUstream)s); }
static int event_sync(void *e) { return SC_CALL(cuEventSynchronize, (CUevent)e); }
static int event_query(void *e) { return SC_CALL(cuEventQuery, (CUevent)e); }
static int event_elapsed(float *ms, void *start, void *end)
{
    return SC_CALL(cuEventElapsedTime, ms, (CUevent)start, (CUevent)end);
}
static int ctx_sync(void) { return SC_CALL(cuCtxSynchronize); }

/* -- stream memory operations -------------------------------------------- */

static int memop_supported(int attribute)
{
    int v = 0;
    return SC_CALL(cuDeviceGetAttribute, &v, (CUdevice_attribute)attribute, gpus[cur].dev) == CUDA_SUCCESS && v;
}

static int wait_value(void *s, void *addr, uint64_t value, int cond, int bits)
{
    static const unsigned flags[] = {
        [SC_WAIT_GEQ] = CU_STREAM_WAIT_VALUE_GEQ, [SC_WAIT_EQ] = CU_STREAM_WAIT_VALUE_EQ,
        [SC_WAIT_AND] = CU_STREAM_WAIT_VALUE_AND, [SC_WAIT_NOR] = CU_STREAM_WAIT_VALUE_NOR,
    };
    if ((cond == SC_WAIT_NOR && !memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR)) ||
        (bits == 64 && !memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS)))
        return SC_UNSUPPORTED;
    if (bits == 64)
        return SC_CALL(cuStreamWaitValue64, (CUstream)s, DPTR(addr), value, flags[cond]);
    return SC_CALL(cuStreamWaitValue32, (CUstream)s, DPTR(addr), (cuuint32_t)value, flags[cond]);
}

static int write_value(void *s, void *addr, uint64_t value, unsigned sc_flags, int bits)
{
    unsigned flags = (sc_flags & SC_WRITE_NO_BARRIER) ? CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER : 0;
    if (bits == 64 && !memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS))
        return SC_UNSUPPORTED;
    if (bits == 64)
        return SC_CALL(cuStreamWriteValue64, (CUstream)s, DPTR(addr), value, flags);
    return SC_CALL(cuStreamWriteValue32, (CUstream)s, DPTR(addr), (cuuint32_t)value, flags);
}

/* a GEQ wait and a write in one batch, enqueued "in the order they appear in the array" */
static int batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits)
{
    CUstreamBatchMemOpParams ops[2];
    if (bits == 64 && !memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS))
        return SC_UNSUPPORTED;
    memset(ops, 0, sizeof ops);
    ops[0].waitValue.operation = bits == 64 ? CU_STREAM_MEM_OP_WAIT_VALUE_64 : CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[0].waitValue.address = DPTR(wait_dev);
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    ops[1].writeValue.operation = bits == 64 ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[1].writeValue.address = DPTR(write_dev);
    if (bits == 64) {
        ops[0].waitValue.value64 = wait_value;
        ops[1].writeValue.value64 = write_value;
    } else {
        ops[0].waitValue.value = (cuuint32_t)wait_value;
        ops[1].writeValue.value = (cuuint32_t)write_value;
    }
    return SC_CALL(cuStreamBatchMemOp, (CUstream)s, 2, ops, 0);
}

/* -- the stream-ordered allocator ----------------------------------------- */

static int default_pool(void **pool)
{
    if (!memop_supported(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED))
        return SC_UNSUPPORTED;
    return SC_CALL(cuDeviceGetMemPool, (CUmemoryPool *)pool, gpus[cur].dev);
}

static int pool_create(void **pool, unsigned flags)
{
    static const struct { unsigned flag; CUmemPool_attribute attr; } off[] = {
        { SC_POOL_NO_FOLLOW_EVENTS, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES },
        { SC_POOL_NO_OPPORTUNISTIC, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC },
        { SC_POOL_NO_INTERNAL_DEPS, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES },
    };
    CUmemPoolProps props;
    int rc, zero = 0;
    if (!memop_supported(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED))
        return SC_UNSUPPORTED;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = gpus[cur].dev;
    if (flags & SC_POOL_IPC) { /* exportable, where the device has the handle type */
        int types = 0;
        if (SC_CALL(cuDeviceGetAttribute, &types, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, gpus[cur].dev) ||
            !(types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
            return SC_UNSUPPORTED;
        props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    }
    if (flags & SC_POOL_MAX_ONE) { /* maxSize, a field since CUDA 12.2 (reserved bytes before) */
        int version = 0;
        if (SC_CALL(cuDriverGetVersion, &version) || version < 12020)
            return SC_UNSUPPORTED;
        props.maxSize = SC_TRIM_KEEP_BYTES;
    }
    if ((rc = SC_CALL(cuMemPoolCreate, (CUmemoryPool *)pool, &props)))
        return rc;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if ((flags & off[i].flag) && (rc = SC_CALL(cuMemPoolSetAttribute, (CUmemoryPool)*pool, off[i].attr, &zero)))
            return rc;
    if (flags & SC_POOL_KEEP_MEMORY) {
        cuuint64_t max = UINT64_MAX;
        rc = SC_CALL(cuMemPoolSetAttribute, (CUmemoryPool)*pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &max);
    }
    return rc;
}
static int pool_destroy(void *pool) { return SC_CALL(cuMemPoolDestroy, (CUmemoryPool)pool); }
static int pool_reserved(void *pool, uint64_t *bytes)
{
    cuuint64_t v = 0;
    int rc = SC_CALL(cuMemPoolGetAttribute, (CUmemoryPool)pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v);
    *bytes = v;
    return rc;
}
static int pool_trim(void *pool) { return SC_CALL(cuMemPoolTrimTo, (CUmemoryPool)pool, 0); }
static int pool_used(void *pool, uint64_t *bytes)
{
    cuuint64_t v = 0;
    int rc = SC_CALL(cuMemPoolGetAttribute, (CUmemoryPool)pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v);
    *bytes = v;
    return rc;
}
static int pool_trim_to(void *pool, uint64_t keep) { return SC_CALL(cuMemPoolTrimTo, (CUmemoryPool)pool, (size_t)keep); }
static int alloc_async(void **ptr, size_t n, void *pool, void *s)
{
    CUdeviceptr d = 0;
    int rc = pool ? SC_CALL(cuMemAllocFromPoolAsync, &d, n, (CUmemoryPool)pool, (CUstream)s)
                  : SC_CALL(cuMemAllocAsync, &d, n, (CUstream)s);
    *ptr = (void *)(uintptr_t)d;
    return rc;
}
static int free_async(void *ptr, void *s) { return SC_CALL(cuMemFreeAsync, DPTR(ptr), (CUstream)s); }

/*
 * "Imported memory pools do not support creating new allocations" (cuMemPoolImportFromShareableHandle).
 * The pool is exported to a file descriptor and imported again in this process; an export or import the driver
 * refuses skips the point (SC_UNSUPPORTED), an entry point the library lacks fails it.  The allocation's code is
 * the answer; one made anyway is freed before the imported pool is destroyed.
 */
static int alloc_imported(void *pool, size_t n, void *s)
{
    int fd = -1, rc;
    CUmemoryPool imported = NULL;
    CUdeviceptr d = 0;
    if (!pool)
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuMemPoolExportToShareableHandle, &fd, (CUmemoryPool)pool,
                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    rc = SC_CALL(cuMemPoolImportFromShareableHandle, &imported, (void *)(uintptr_t)fd,
                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    close(fd);
    if (rc)
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuMemAllocFromPoolAsync, &d, n, imported, (CUstream)s)) == CUDA_SUCCESS) {
        SC_CALL(cuMemFreeAsync, d, (CUstream)s);
        SC_CALL(cuStreamSynchronize, (CUstream)s);
    }
    SC_CALL(cuMemPoolDestroy, imported);
    return rc;
}

/*
 * a pool (of device 0) made accessible to device dev, or not.  "To enable access from other
 * devices, the accessing device must be peer capable with the memory pool's device" (Programming Guide,
 * Stream-Ordered Memory Allocator): a device that is not skips the point (SC_UNSUPPORTED).
 */
static int pool_set_access(void *pool, int dev, int access)
{
    CUdevice d, owner;
    int peer = 1, rc;
    if (!pool)
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuDeviceGet, &d, dev)) || (rc = SC_CALL(cuDeviceGet, &owner, 0)))
        return rc;
    if (dev != 0 && (rc = SC_CALL(cuDeviceCanAccessPeer, &peer, d, owner)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    if (!peer)
        return SC_UNSUPPORTED;
    CUmemAccessDesc desc = { .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d },
                             .flags = access == SC_ACCESS_READWRITE ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                                                    : CU_MEM_ACCESS_FLAGS_PROT_NONE };
    return SC_CALL(cuMemPoolSetAccess, (CUmemoryPool)pool, &desc, 1);
}
static int pool_get_access(void *pool, int dev, int *readwrite)
{
    CUdevice d;
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    int rc;
    if (!pool)
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuDeviceGet, &d, dev)))
        return rc;
    CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d };
    rc = SC_CALL(cuMemPoolGetAccess, &flags, (CUmemoryPool)pool, &loc);
    *readwrite = flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return rc;
}

/*
 * a pool's allocation shared with another process.  An export or import the driver refuses skips
 * the point (SC_UNSUPPORTED: IPC is documented as restricted), an entry point the library lacks fails it.
 */
static int ipc_pool_export(void *pool, void *ptr, int *fd, void *data)
{
    CUmemPoolPtrExportData d;
    int rc;
    *fd = -1;
    if ((rc = SC_CALL(cuMemPoolExportToShareableHandle, fd, (CUmemoryPool)pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                      0)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    memset(&d, 0, sizeof d);
    rc = SC_CALL(cuMemPoolExportPointer, &d, DPTR(ptr));
    memcpy(data, &d, sizeof d);
    return rc;
}
static int ipc_pool_import(void **pool, void **ptr, int fd, const void *data)
{
    CUmemPoolPtrExportData d;
    CUdeviceptr dp = 0;
    int rc;
    *ptr = NULL;
    if ((rc = SC_CALL(cuMemPoolImportFromShareableHandle, (CUmemoryPool *)pool, (void *)(uintptr_t)fd,
                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    memcpy(&d, data, sizeof d);
    rc = SC_CALL(cuMemPoolImportPointer, &dp, (CUmemoryPool)*pool, &d);
    *ptr = (void *)(uintptr_t)dp;
    return rc;
}
static int ipc_pool_close(void *pool, void *ptr)
{
    int rc = ptr ? SC_CALL(cuMemFree, DPTR(ptr)) : 0, rc2 = pool ? SC_CALL(cuMemPoolDestroy, (CUmemoryPool)pool) : 0;
    return rc ? rc : rc2;
}
_Static_assert(sizeof(CUmemPoolPtrExportData) == SC_IPC_HANDLE_BYTES, "pool export data is 64 bytes");

/* the export alone, its code the answer (the default pool, or one made without the handle type, must be
 * refused); a descriptor made is closed again */
static int pool_export(void *pool)
{
    int fd = -1;
    int rc = SC_CALL(cuMemPoolExportToShareableHandle, &fd, (CUmemoryPool)pool,
                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (rc == CUDA_SUCCESS && fd >= 0)
        close(fd);
    return rc;
}

/* -- graphs of one kernel node ------------------------------------------- */

struct graph {
    CUgraph g;
    CUgraphExec exec;
    CUgraphNode node;
    CUfunction fn;
    CUdeviceptr alloc; /* the address of its memory allocation node (one at most), or 0 */
    int launched;      /* a launch of it succeeded: its allocation may be left unfreed */
};

static void node_params(CUDA_KERNEL_NODE_PARAMS *kp, CUfunction fn, void **args)
{
    memset(kp, 0, sizeof *kp);
    kp->func = fn;
    kp->gridDimX = kp->gridDimY = kp->gridDimZ = 1;
    kp->blockDimX = kp->blockDimY = kp->blockDimZ = 1;
    kp->kernelParams = args;
}

static int graph_create(void **out, int gate)
{
    struct graph *gr = calloc(1, sizeof *gr);
    CUDA_KERNEL_NODE_PARAMS kp;
    void *ptr = NULL;
    uint64_t max_ns = 0;
    uint32_t token = 0;
    void *gate_args[] = { &ptr, &max_ns, &ptr, &token }, *mark_args[] = { &ptr, &token };
    int rc;
    if (!gr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    gr->fn = gate ? gpus[cur].gate : gpus[cur].mark;
    node_params(&kp, gr->fn, gate ? gate_args : mark_args); /* the real arguments come with each launch */
    if ((rc = SC_CALL(cuGraphCreate, &gr->g, 0)) || (rc = SC_CALL(cuGraphAddKernelNode, &gr->node, gr->g, NULL, 0, &kp)) ||
        (rc = SC_CALL(cuGraphInstantiate, &gr->exec, gr->g, 0))) {
        if (gr->g)
            SC_CALL(cuGraphDestroy, gr->g);
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
static int graph_launch(void *g, void *s, void **args)
{
    struct graph *gr = g;
    CUDA_KERNEL_NODE_PARAMS kp;
    int rc;
    node_params(&kp, gr->fn, args);
    if ((rc = SC_CALL(cuGraphExecKernelNodeSetParams, gr->exec, gr->node, &kp)))
        return rc;
    return SC_CALL(cuGraphLaunch, gr->exec, (CUstream)s);
}
static int graph_destroy(void *g)
{
    struct graph *gr = g;
    if (gr->alloc && gr->launched) { /* what its last launch allocated ("passing the allocation to
                                      * cuMemFreeAsync"); an error (nothing left allocated) is no concern here */
        if (SC_CALL(cuMemFreeAsync, gr->alloc, CU_STREAM_LEGACY) == 0)
            SC_CALL(cuStreamSynchronize, CU_STREAM_LEGACY);
    }
    if (gr->exec) /* none before the instantiate, none after exec_destroy */
        SC_CALL(cuGraphExecDestroy, gr->exec);
    if (gr->g)
        SC_CALL(cuGraphDestroy, gr->g);
    free(gr);
    return 0;
}

/* -- graphs built by hand -------------------------------------------------- */

static int graph_new(void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((rc = SC_CALL(cuGraphCreate, &gr->g, 0))) {
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
static int node_add(void *g, const struct sc_node_params *np, void **node)
{
    CUgraph graph = ((struct graph *)g)->g;
    CUgraphNode *out = (CUgraphNode *)node;
    CUDA_KERNEL_NODE_PARAMS kp;
    void *flag = np->flag, *slot = np->slot;
    uint64_t max_ns = np->max_ns;
    uint32_t token = np->token;
    void *gate_args[] = { &flag, &max_ns, &slot, &token }, *mark_args[] = { &slot, &token };
    switch (np->kind) {
    case SC_NODE_GATE:
    case SC_NODE_KERNEL: /* the kernel's arguments are copied by the call */
        node_params(&kp, np->kind == SC_NODE_GATE ? kernels()->gate : kernels()->mark,
                    np->kind == SC_NODE_GATE ? gate_args : mark_args);
        return SC_CALL(cuGraphAddKernelNode, out, graph, NULL, 0, &kp);
    case SC_NODE_HOST: {
        CUDA_HOST_NODE_PARAMS hp = { np->fn, np->arg };
        return SC_CALL(cuGraphAddHostNode, out, graph, NULL, 0, &hp);
    }
    case SC_NODE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS mp;
        memset(&mp, 0, sizeof mp);
        mp.dst = DPTR(np->dst);
        mp.value = np->value;
        mp.elementSize = 1;
        mp.width = np->bytes;
        mp.height = 1;
        mp.pitch = np->bytes;
        return SC_CALL(cuGraphAddMemsetNode, out, graph, NULL, 0, &mp, kernels()->ctx);
    }
    case SC_NODE_MEMCPY: {
        CUDA_MEMCPY3D m;
        memset(&m, 0, sizeof m);
        m.srcMemoryType = m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
        m.srcDevice = DPTR(np->src);
        m.dstDevice = DPTR(np->dst);
        m.srcPitch = m.dstPitch = np->bytes; /* one row of one slice */
        m.srcHeight = m.dstHeight = 1;
        m.WidthInBytes = np->bytes;
        m.Height = m.Depth = 1;
        return SC_CALL(cuGraphAddMemcpyNode, out, graph, NULL, 0, &m, kernels()->ctx);
    }
    case SC_NODE_ALLOC: { /* device memory of the current device, freed by no node of the graph */
        CUDA_MEM_ALLOC_NODE_PARAMS ap;
        int rc;
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        ap.poolProps.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
        ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        ap.poolProps.location.id = (int)gpus[cur].dev;
        ap.bytesize = np->bytes;
        rc = SC_CALL(cuGraphAddMemAllocNode, out, graph, NULL, 0, &ap);
        if (rc == CUDA_ERROR_NOT_SUPPORTED)
            return SC_UNSUPPORTED; /* no graph memory nodes (no memory pools) on this device */
        if (rc == 0)
            ((struct graph *)g)->alloc = ap.dptr;
        return rc;
    }
    case SC_NODE_RECORD: return SC_CALL(cuGraphAddEventRecordNode, out, graph, NULL, 0, (CUevent)np->event);
    case SC_NODE_WAIT: return SC_CALL(cuGraphAddEventWaitNode, out, graph, NULL, 0, (CUevent)np->event);
    default: return SC_CALL(cuGraphAddChildGraphNode, out, graph, NULL, 0, ((struct graph *)np->child)->g);
    }
}
static int edge_add(void *g, void *from, void *to)
{
    CUgraphNode a = from, b = to;
    return SC_CALL(cuGraphAddDependencies, ((struct graph *)g)->g, &a, &b, NULL, 1);
}
static int graph_instantiate(void *g, int upload, void *s)
{
    struct graph *gr = g;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    if (!upload)
        return SC_CALL(cuGraphInstantiate, &gr->exec, gr->g, 0);
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    ip.hUploadStream = (CUstream)s;
    return SC_CALL(cuGraphInstantiateWithParams, &gr->exec, gr->g, &ip);
}
/* result_out is kept whatever the call answers (CUDA_GRAPH_INSTANTIATE_ERROR where it set none) */
static int graph_instantiate_with(void *g, unsigned flags, int *result)
{
    struct graph *gr = g;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    int rc;
    memset(&ip, 0, sizeof ip);
    ip.flags = flags & SC_INSTANTIATE_AUTO_FREE ? CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH : 0;
    ip.result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    rc = SC_CALL(cuGraphInstantiateWithParams, &gr->exec, gr->g, &ip);
    if (rc)
        gr->exec = NULL;
    *result = (int)ip.result_out;
    return rc;
}
static int exec_update(void *g, void *from)
{
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    return SC_CALL(cuGraphExecUpdate, ((struct graph *)g)->exec, ((struct graph *)from)->g, &info);
}
static int exec_destroy(void *g)
{
    struct graph *gr = g;
    int rc = SC_CALL(cuGraphExecDestroy, gr->exec);
    if (rc == 0)
        gr->exec = NULL;
    return rc;
}

/* -- stream capture --------------------------------------------------------- */

static int capture_begin(void *s, int mode)
{
    CUstreamCaptureMode m = mode == SC_CAPTURE_THREAD_LOCAL ? CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
                            : mode == SC_CAPTURE_RELAXED    ? CU_STREAM_CAPTURE_MODE_RELAXED
                                                            : CU_STREAM_CAPTURE_MODE_GLOBAL;
    return SC_CALL(cuStreamBeginCapture, (CUstream)s, m);
}
static int capture_end(void *s)
{
    CUgraph g = NULL;
    int rc = SC_CALL(cuStreamEndCapture, (CUstream)s, &g);
    if (g)
        SC_CALL(cuGraphDestroy, g);
    return rc;
}
/* The captured graph, instantiated; graph_destroy destroys both (the node is unused). */
static int capture_keep(void *s, void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    rc = SC_CALL(cuStreamEndCapture, (CUstream)s, &gr->g);
    if (rc == 0)
        rc = SC_CALL(cuGraphInstantiate, &gr->exec, gr->g, 0);
    if (rc) {
        if (gr->g)
            SC_CALL(cuGraphDestroy, gr->g);
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
static int graph_replay(void *g, void *s)
{
    int rc = SC_CALL(cuGraphLaunch, ((struct graph *)g)->exec, (CUstream)s);
    if (rc == 0)
        ((struct graph *)g)->launched = 1; /* an allocation of it may now be left unfreed */
    return rc;
}
static int capture_status(void *s, int *status)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    int rc = SC_CALL(cuStreamIsCapturing, (CUstream)s, &st);
    *status = st == CU_STREAM_CAPTURE_STATUS_ACTIVE        ? SC_CAPTURE_ACTIVE
              : st == CU_STREAM_CAPTURE_STATUS_INVALIDATED ? SC_CAPTURE_INVALIDATED
                                                           : SC_CAPTURE_NONE;
    return rc;
}

static int capture_info(void *s, int *status, uint64_t *id, size_t *ndeps)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t v = 0;
    const CUgraphNode *deps = NULL;
    const CUgraphEdgeData *edges = NULL;
    size_t n = 0;
    int rc = SC_CALL(cuStreamGetCaptureInfo, (CUstream)s, &st, &v, NULL, &deps, &edges, &n);
    *status = st == CU_STREAM_CAPTURE_STATUS_ACTIVE        ? SC_CAPTURE_ACTIVE
              : st == CU_STREAM_CAPTURE_STATUS_INVALIDATED ? SC_CAPTURE_INVALIDATED
                                                           : SC_CAPTURE_NONE;
    *id = v, *ndeps = n;
    return rc;
}
static int capture_sever(void *s)
{
    return SC_CALL(cuStreamUpdateCaptureDependencies, (CUstream)s, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
}

static int stream_id(void *s, uint64_t *id)
{
    unsigned long long v = 0;
    int rc = SC_CALL(cuStreamGetId, (CUstream)s, &v);
    *id = v;
    return rc;
}

static int ctx_action(int action)
{
    CUcontext popped = NULL;
    switch (action) {
    case SC_CTX_POP: return SC_CALL(cuCtxPopCurrent, &popped);
    case SC_CTX_PUSH: return SC_CALL(cuCtxPushCurrent, gpus[0].ctx);
    case SC_CTX_UNSET: return SC_CALL(cuCtxSetCurrent, NULL);
    case SC_CTX_SET: return SC_CALL(cuCtxSetCurrent, gpus[0].ctx);
    }
    return CUDA_ERROR_INVALID_VALUE;
}

/*
 * a context of device 0 made with cuCtxCreate, which makes it current;
 * the suite's kernels are loaded into it and run once (as in open_device),
 * and the calling thread's previous context is made current again
 * (cuCtxPopCurrent).
 */
static int ctx_destroy(void *ctx);
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
                      gpus[0].dev)))
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
    if (!rc)
        rc = warm_up(); /* lazy loading must not wait for other work inside a case */
    if (rc || !keep)
        SC_CALL(cuCtxPopCurrent, &popped);
    if (rc) {
        if (slot >= 0)
            ctx_destroy(c);
        else
            SC_CALL(cuCtxDestroy, c);
        return rc;
    }
    *ctx = c;
    return 0;
}

static int ctx_create_flags(void **ctx, unsigned flags) { return make_context(ctx, flags, 0); }
static int ctx_create(void **ctx) { return make_context(ctx, 0, 0); }
/* "If a context is already current to the thread, it is supplanted by the newly created context and
 * may be restored by a subsequent call to cuCtxPopCurrent()" (cuCtxCreate): the ctx_create op's call */
static int ctx_create_current(void **ctx, unsigned flags) { return make_context(ctx, flags, 1); }

/*
 * green contexts of device 0.  One partition of the device's SMs (cuDevSmResourceSplitByCount into
 * one group of the smallest size the device allows), its descriptor, and the green context made of it
 * (CU_GREEN_CTX_DEFAULT_STREAM, which cuGreenCtxCreate requires).  The suite's kernels, loaded into the
 * primary context, run in its streams: a green context converted by cuCtxFromGreenCtx "is a normal primary
 * context but with the resources of the specified green context" (cuda.h).
 */
static int green_stream_create(void **s, void *green, int prio_set, int prio)
{
    return SC_CALL(cuGreenCtxStreamCreate, (CUstream *)s, (CUgreenCtx)green, CU_STREAM_NON_BLOCKING,
                   prio_set ? prio : 0);
}
static int green_destroy(void *green) { return SC_CALL(cuGreenCtxDestroy, (CUgreenCtx)green); }

/* The kernels run once in a stream of the green context: lazy loading must not wait for other work in a case. */
static int green_warm_up(CUgreenCtx g)
{
    CUstream s = NULL;
    CUdeviceptr mem = 0;
    int rc = green_stream_create((void **)&s, g, 0, 0);
    if (rc)
        return rc;
    void *flag, *slot;
    if (!(rc = SC_CALL(cuMemAlloc, &mem, 64))) {
        flag = (void *)(uintptr_t)mem, slot = (void *)(uintptr_t)(mem + 32);
        if (!(rc = SC_CALL(cuMemsetD8, mem, 1, 64)) && !(rc = launch_gate(s, flag, 1000000000u, slot, 1)) &&
            !(rc = launch_mark(s, slot, 1)))
            rc = SC_CALL(cuStreamSynchronize, s);
        SC_CALL(cuMemFree, mem);
    }
    SC_CALL(cuStreamDestroy, s);
    return rc;
}

static int green_create(void **green)
{
    CUdevResource all, part;
    CUdevResourceDesc desc = NULL;
    CUgreenCtx g = NULL;
    unsigned groups = 1;
    int rc;
    memset(&all, 0, sizeof all);
    memset(&part, 0, sizeof part);
    if ((rc = SC_CALL(cuDeviceGetDevResource, gpus[0].dev, &all, CU_DEV_RESOURCE_TYPE_SM)) ||
        (rc = SC_CALL(cuDevSmResourceSplitByCount, &part, &groups, &all, NULL, 0, all.sm.minSmPartitionSize)))
        return rc;
    if (groups < 1)
        return CUDA_ERROR_NOT_SUPPORTED; /* no partition of the device's SMs can be made */
    if ((rc = SC_CALL(cuDevResourceGenerateDesc, &desc, &part, 1)) ||
        (rc = SC_CALL(cuGreenCtxCreate, &g, desc, gpus[0].dev, CU_GREEN_CTX_DEFAULT_STREAM)))
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
static int green_support(char *why, size_t n)
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
        if (!state && (rc = green_create(&g)) == CUDA_ERROR_NOT_SUPPORTED) {
            snprintf(reason, sizeof reason, "making one on device 0 answered CUDA_ERROR_NOT_SUPPORTED");
            state = SC_UNSUPPORTED;
        } else if (!state && rc == CUDA_SUCCESS) {
            green_destroy(g);
        }
    }
    snprintf(why, n, "%s", reason);
    return state;
}

static int ctx_destroy(void *ctx)
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

static int ctx_enter(void *ctx, int action)
{
    if (action == SC_CTX_PUSH_TO)
        return SC_CALL(cuCtxPushCurrent, (CUcontext)ctx);
    return action == SC_CTX_SET_TO ? SC_CALL(cuCtxSetCurrent, (CUcontext)ctx) : CUDA_ERROR_INVALID_VALUE;
}

/* the primary context as the runtime API shares it: a runtime-API rule's op only */
static int primary_ctx_sync(void) { return SC_UNSUPPORTED; }

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

static int primary_release(int action, int *reset)
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

static int memcpy_peer(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n)
{
    return SC_CALL(cuMemcpyPeerAsync, DPTR(dst), gpus[dst_dev].ctx, DPTR(src), gpus[src_dev].ctx, n, (CUstream)s);
}

static int device_sync(int d)
{
    int was = cur, rc;
    if ((rc = use_device(d)))
        return rc;
    rc = SC_CALL(cuCtxSynchronize);
    use_device(was);
    return rc;
}

static int last_error(int reset) /* the driver API keeps no error state of a thread */
{
    (void)reset;
    return SC_UNSUPPORTED;
}

static int host_register(void *h, size_t n)
{
    return SC_CALL(cuMemHostRegister, h, n, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE);
}
static int host_unregister(void *h) { return SC_CALL(cuMemHostUnregister, h); }
static int ipc_event_handle(void *e, void *handle)
{
    CUipcEventHandle h;
    int rc = SC_CALL(cuIpcGetEventHandle, &h, (CUevent)e);
    memcpy(handle, &h, sizeof h);
    return rc;
}
static int ipc_event_open(void **e, const void *handle)
{
    CUipcEventHandle h;
    memcpy(&h, handle, sizeof h);
    return SC_CALL(cuIpcOpenEventHandle, (CUevent *)e, h);
}
static int ipc_mem_handle(void *d, void *handle)
{
    CUipcMemHandle h;
    int rc = SC_CALL(cuIpcGetMemHandle, &h, DPTR(d));
    memcpy(handle, &h, sizeof h);
    return rc;
}
static int ipc_mem_open(void **d, const void *handle)
{
    CUipcMemHandle h;
    CUdeviceptr dp = 0;
    memcpy(&h, handle, sizeof h);
    int rc = SC_CALL(cuIpcOpenMemHandle, &dp, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    *d = (void *)(uintptr_t)dp;
    return rc;
}
static int ipc_mem_close(void *d) { return SC_CALL(cuIpcCloseMemHandle, DPTR(d)); }
_Static_assert(sizeof(CUipcEventHandle) == SC_IPC_HANDLE_BYTES && sizeof(CUipcMemHandle) == SC_IPC_HANDLE_BYTES,
               "IPC handles are 64 bytes");

static int thread_capture_relaxed(void)
{
    CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
    return SC_CALL(cuThreadExchangeStreamCaptureMode, &m);
}

static int code(enum sc_code c)
{
    switch (c) {
    case SC_CODE_SUCCESS: return CUDA_SUCCESS;
    case SC_CODE_NOT_READY: return CUDA_ERROR_NOT_READY;
    case SC_CODE_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
    case SC_CODE_INVALID_HANDLE: return CUDA_ERROR_INVALID_HANDLE;
    case SC_CODE_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case SC_CODE_CAPTURE_UNSUPPORTED: return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    case SC_CODE_CAPTURE_INVALIDATED: return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    case SC_CODE_CAPTURE_IMPLICIT: return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    case SC_CODE_CAPTURE_WRONG_THREAD: return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    case SC_CODE_INVALID_CONTEXT: return CUDA_ERROR_INVALID_CONTEXT;
    case SC_CODE_ASSERT: return CUDA_ERROR_ASSERT;
    case SC_CODE_LAUNCH_FAILED: return CUDA_ERROR_LAUNCH_FAILED;
    case SC_CODE_EXEC_UPDATE_FAILURE: return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    case SC_CODE_CAPTURE_UNMATCHED: return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    case SC_CODE_CAPTURE_UNJOINED: return CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    case SC_CODE_CAPTURED_EVENT: return CUDA_ERROR_CAPTURED_EVENT;
    case SC_CODE_NOT_PERMITTED: return CUDA_ERROR_NOT_PERMITTED;
    case SC_CODE_CONTEXT_IS_DESTROYED: return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    case SC_CODE_SKIPPED: case SC_CODE_AN_ERROR: break;
    }
    return -1;
}

static const char *error_name(int rc)
{
    const char *name = NULL;
    if (rc == SC_UNSUPPORTED)
        return "not supported by this device";
    if (SC_LACKS(rc))
        return sc_driver_lacks_message(rc);
    if (SC_CALL(cuGetErrorName, (CUresult)rc, &name) != CUDA_SUCCESS || !name)
        return "unknown CUresult";
    return name;
}

int sc_driver_describe(struct sc_device_info *info)
{
    CUuuid u;
    memset(info, 0, sizeof *info);
    SC_CALL(cuDeviceGetName, info->name, sizeof info->name, gpus[0].dev);
    if (SC_CALL(cuDeviceGetUuid, &u, gpus[0].dev) == CUDA_SUCCESS) {
        const unsigned char *b = (const unsigned char *)u.bytes;
        snprintf(info->uuid, sizeof info->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    }
    SC_CALL(cuDeviceGetAttribute, &info->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, gpus[0].dev);
    SC_CALL(cuDeviceGetAttribute, &info->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, gpus[0].dev);
    SC_CALL(cuDriverGetVersion, &info->driver_version);
    info->runtime_version = sc_runtime_version();
    sc_driver_lacking(info->lacking, sizeof info->lacking);
    sc_driver_provenance(info->entry_points, sizeof info->entry_points);
    return 0;
}

/* the GPU runs by itself: nothing to wait for */
static int settle(uint64_t max_ns) { return (void)max_ns, 1; }

const sc_backend sc_driver_backend = SC_BACKEND("driver");
