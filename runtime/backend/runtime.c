/*
 * runtime.c - the runtime's primitive actions through the CUDA runtime
 * API (static cudart).  Kernels are loaded with cudaLibraryLoadData and launched
 * with cudaLaunchKernel, so the programs stay plain C.  Compiled once per
 * compile mode: in per-thread mode cuda_runtime_api.h maps the stream-taking
 * calls to their _ptsz/_ptds entry points.
 */
#include "backend.h"
#include "cu_loader.h" /* primary_ctx_sync calls the driver API */
#include "fatbin.h"
#include "slot.h"
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h> /* close: the file descriptors of exported pools */

static cudaKernel_t k_gate, k_mark, k_fault, k_pdl, k_gate_open, k_gate_close;

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
static int launch_mark(void *s, void *slot, uint32_t token);
static int wait_gate(void *s, void *flag, void *slot, uint32_t token);

/* Runs each kernel once, so lazy loading never happens inside a case (see driver.c). */
static cudaError_t warm_up(void)
{
    char *mem;
    cudaError_t rc = cudaMalloc((void **)&mem, 64);
    if (rc)
        return rc;
    void *slot = mem + 32;
    uint32_t token = 1, sync = 0;
    void *none = NULL, *pdl_args[] = { &slot, &token, &sync, &none };
    if (!(rc = cudaMemset(mem, 1, 64)) && !(rc = (cudaError_t)launch_gate(NULL, mem, 1000000000u, mem + 32, 1)) &&
        !(rc = (cudaError_t)launch_mark(NULL, mem + 32, 1)) && !(rc = (cudaError_t)wait_gate(NULL, mem, mem + 32, 1)) &&
        !(rc = cudaLaunchKernel((const void *)k_pdl, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, pdl_args, 0, NULL)))
        rc = cudaDeviceSynchronize();
    cudaFree(mem);
    return rc;
}

static int init(char *why, size_t whylen)
{
    static int state = -1;
    static char reason[256];
    if (state < 0) {
        int n = 0;
        cudaLibrary_t lib;
        cudaError_t rc = cudaGetDeviceCount(&n);
        state = SC_BROKEN;
        if (rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver || rc == cudaErrorStubLibrary) {
            snprintf(reason, sizeof reason, "runtime API sees no usable device (%s)", cudaGetErrorName(rc));
            state = SC_MISSING;
        } else if (rc != cudaSuccess || (rc = cudaSetDevice(0)) != cudaSuccess || (rc = cudaFree(0)) != cudaSuccess) {
            snprintf(reason, sizeof reason, "runtime API cannot open device 0: %s", cudaGetErrorName(rc));
        } else if ((rc = cudaLibraryLoadData(&lib, sc_fatbin, NULL, NULL, 0, NULL, NULL, 0)) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&k_gate, lib, "sc_gate")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&k_mark, lib, "sc_mark")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&k_fault, lib, "sc_fault")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&k_pdl, lib, "sc_pdl")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&k_gate_open, lib, "sc_gate_open")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&k_gate_close, lib, "sc_gate_close")) != cudaSuccess) {
            snprintf(reason, sizeof reason, "cannot load the suite's kernels: %s", cudaGetErrorName(rc));
        } else if ((rc = warm_up()) != cudaSuccess) {
            snprintf(reason, sizeof reason, "the suite's kernels do not run: %s", cudaGetErrorName(rc));
        } else {
            state = SC_READY;
        }
    }
    snprintf(why, whylen, "%s", reason);
    return state;
}

static int thread_attach(void) { return cudaSetDevice(0); }

static int device_count(int *n) { return cudaGetDeviceCount(n); }

/* Makes dev current; the first time, runs the kernels there once (lazy loading, see warm_up). */
static int use_device(int dev)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static int warmed[SC_MAX_DEVICES] = { 1 }; /* init warmed device 0 */
    int rc;
    if (dev < 0 || dev >= SC_MAX_DEVICES)
        return cudaErrorInvalidDevice;
    if ((rc = cudaSetDevice(dev)))
        return rc;
    pthread_mutex_lock(&mu);
    if (!warmed[dev] && (rc = warm_up()) == cudaSuccess)
        warmed[dev] = 1;
    pthread_mutex_unlock(&mu);
    return rc;
}

static void *builtin_stream(int which)
{
    switch (which) {
    case SC_LEGACY_STREAM: return cudaStreamLegacy;
    case SC_PER_THREAD_STREAM: return cudaStreamPerThread;
    default: return NULL;
    }
}

static int stream_create(void **s, int nonblocking, int prio_set, int prio)
{
    unsigned flags = nonblocking ? cudaStreamNonBlocking : cudaStreamDefault;
    if (prio_set)
        return cudaStreamCreateWithPriority((cudaStream_t *)s, flags, prio);
    return cudaStreamCreateWithFlags((cudaStream_t *)s, flags);
}
static int stream_destroy(void *s) { return cudaStreamDestroy((cudaStream_t)s); }
static int priority_range(int *least, int *greatest) { return cudaDeviceGetStreamPriorityRange(least, greatest); }
static int stream_get_flags(void *s, int *nonblocking)
{
    unsigned flags = 0;
    int rc = cudaStreamGetFlags((cudaStream_t)s, &flags);
    *nonblocking = (flags & cudaStreamNonBlocking) != 0;
    return rc;
}
static int stream_get_priority(void *s, int *prio) { return cudaStreamGetPriority((cudaStream_t)s, prio); }
static int stream_create_invalid(void)
{
    cudaStream_t s = NULL;
    int rc = cudaStreamCreateWithFlags(&s, 0x100u); /* no cudaStream* flag has this bit */
    if (rc == cudaSuccess)
        cudaStreamDestroy(s);
    return rc;
}
static int event_create(void **e, unsigned flags)
{
    unsigned f = cudaEventDefault;
    f |= (flags & SC_EV_BLOCKING_SYNC) ? cudaEventBlockingSync : 0;
    f |= (flags & SC_EV_DISABLE_TIMING) ? cudaEventDisableTiming : 0;
    f |= (flags & SC_EV_INTERPROCESS) ? cudaEventInterprocess : 0;
    return cudaEventCreateWithFlags((cudaEvent_t *)e, f);
}
static int event_destroy(void *e) { return cudaEventDestroy((cudaEvent_t)e); }

static int dev_alloc(void **p, size_t n) { return cudaMalloc(p, n); }
static int dev_free(void *p) { return cudaFree(p); }
static int host_alloc(void **p, size_t n) { return cudaHostAlloc(p, n, cudaHostAllocMapped | cudaHostAllocPortable); }
static int host_free(void *p) { return cudaFreeHost(p); }
static int host_dev_ptr(void **d, void *h) { return cudaHostGetDevicePointer(d, h, 0); }
static int managed_alloc(void **p, size_t n) { return cudaMallocManaged(p, n, cudaMemAttachGlobal); }

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *args[] = { &flag, &max_ns, &slot, &token };
    return cudaLaunchKernel((const void *)k_gate, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, (cudaStream_t)s);
}
static int launch_mark(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return cudaLaunchKernel((const void *)k_mark, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, (cudaStream_t)s);
}
/* 2048 threads per block (see driver.c) */
static int launch_invalid(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return cudaLaunchKernel((const void *)k_mark, (dim3){ 1, 1, 1 }, (dim3){ 2048, 1, 1 }, args, 0, (cudaStream_t)s);
}

/*
 * The gate as a stream wait between two kernels (see driver.c).  The runtime API has no stream
 * memory operations: the wait is the driver's cuStreamWaitValue32 on the runtime's stream, whose handles
 * the driver shares (cudaStreamLegacy is CU_STREAM_LEGACY, cudaStreamPerThread CU_STREAM_PER_THREAD); the
 * null stream of a per-thread build is the per-thread stream.  The first kernel binds the runtime's
 * context to the thread, so the driver call finds it current.
 */
static int wait_gate(void *s, void *flag, void *slot, uint32_t token)
{
    void *open_args[] = { &slot }, *close_args[] = { &slot, &token };
    CUstream ds = (CUstream)s;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    if (!s)
        ds = CU_STREAM_PER_THREAD;
#endif
    int rc = cudaLaunchKernel((const void *)k_gate_open, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, open_args, 0,
                              (cudaStream_t)s);
    if (rc || (rc = SC_CALL(cuStreamWaitValue32, ds, (CUdeviceptr)(uintptr_t)flag, 1u, CU_STREAM_WAIT_VALUE_GEQ)))
        return rc;
    return cudaLaunchKernel((const void *)k_gate_close, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, close_args, 0,
                            (cudaStream_t)s);
}

/* sc_pdl through cudaLaunchKernelExC with cudaLaunchAttributeProgrammaticStreamSerialization */
static int launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token)
{
    uint32_t wait = sync != 0;
    void *args[] = { &slot, &token, &wait, &primary_token };
    int dev = 0, major = 0, rc;
    cudaLaunchAttribute attr = { .id = cudaLaunchAttributeProgrammaticStreamSerialization };
    attr.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t cfg = { .gridDim = { 1, 1, 1 }, .blockDim = { 1, 1, 1 }, .stream = (cudaStream_t)s,
                               .attrs = &attr, .numAttrs = 1 };
    if ((rc = cudaGetDevice(&dev)) || (rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)))
        return rc;
    if (major < 9)
        return SC_UNSUPPORTED; /* programmatic dependent launch needs compute capability 9.0 */
    return cudaLaunchKernelExC(&cfg, (const void *)k_pdl, args);
}

/* sc_mark through cudaLaunchKernelExC with cudaLaunchAttributeProgrammaticEvent */
static int launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    int dev = 0, major = 0, rc;
    cudaLaunchAttribute attr = { .id = cudaLaunchAttributeProgrammaticEvent };
    attr.val.programmaticEvent.event = (cudaEvent_t)e;
    attr.val.programmaticEvent.flags = 0;
    attr.val.programmaticEvent.triggerAtBlockStart = 0;
    cudaLaunchConfig_t cfg = { .gridDim = { 1, 1, 1 }, .blockDim = { 1, 1, 1 }, .stream = (cudaStream_t)s,
                               .attrs = &attr, .numAttrs = 1 };
    if ((rc = cudaGetDevice(&dev)) || (rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)))
        return rc;
    if (major < 9)
        return SC_UNSUPPORTED; /* a programmatic event needs compute capability 9.0 */
    return cudaLaunchKernelExC(&cfg, flag ? (const void *)k_gate : (const void *)k_mark, flag ? gate_args : mark_args);
}

/* sc_mark or sc_gate through cudaLaunchKernelExC with one launch attribute */
static int launch_attr(void *s, int which, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    int dev = 0, major = 0, least = 0, greatest = 0, rc;
    cudaLaunchAttribute attr = { .id = cudaLaunchAttributeMemSyncDomain };
    if (which == SC_LAUNCH_REMOTE_DOMAIN) {
        if ((rc = cudaGetDevice(&dev)) || (rc = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev)))
            return rc;
        if (major < 9)
            return SC_UNSUPPORTED; /* memory synchronization domains came with compute capability 9.0 */
        attr.val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
    } else if (which == SC_LAUNCH_PRIORITY) {
        if ((rc = cudaDeviceGetStreamPriorityRange(&least, &greatest)))
            return rc;
        attr.id = cudaLaunchAttributePriority, attr.val.priority = greatest;
    } else
        return SC_UNSUPPORTED;
    cudaLaunchConfig_t cfg = { .gridDim = { 1, 1, 1 }, .blockDim = { 1, 1, 1 }, .stream = (cudaStream_t)s,
                               .attrs = &attr, .numAttrs = 1 };
    return cudaLaunchKernelExC(&cfg, flag ? (const void *)k_gate : (const void *)k_mark, flag ? gate_args : mark_args);
}

static int launch_fault(void *s, int how)
{
    uint32_t kind = (uint32_t)how;
    void *args[] = { &kind };
    return cudaLaunchKernel((const void *)k_fault, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, (cudaStream_t)s);
}

static int memset_async(void *s, void *d, unsigned char v, size_t n) { return cudaMemsetAsync(d, v, n, (cudaStream_t)s); }
static int memset_sync(void *d, unsigned char v, size_t n) { return cudaMemset(d, v, n); }

/* The plain copies name their direction; the others let unified addressing infer it. */
static enum cudaMemcpyKind copy_kind(unsigned kind)
{
    switch (kind & SC_COPY_KIND_MASK) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return cudaMemcpyHostToDevice;
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return cudaMemcpyDeviceToHost;
    case SC_D2D: return cudaMemcpyDeviceToDevice;
    default: return cudaMemcpyDefault;
    }
}

static struct cudaMemcpy3DParms copy3d(void *dst, const void *src, size_t n, unsigned kind)
{
    struct cudaMemcpy3DParms m;
    memset(&m, 0, sizeof m);
    m.srcPtr = (struct cudaPitchedPtr){ (void *)(uintptr_t)src, SC_ROW_BYTES, SC_ROW_BYTES, SC_3D_ROWS };
    m.dstPtr = (struct cudaPitchedPtr){ dst, SC_ROW_BYTES, SC_ROW_BYTES, SC_3D_ROWS };
    m.extent = (struct cudaExtent){ SC_ROW_BYTES, SC_3D_ROWS, n / (SC_ROW_BYTES * SC_3D_ROWS) };
    m.kind = copy_kind(kind);
    return m;
}

static int memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev)
{
    void *dsts[SC_BATCH_COPIES + 1];
    const void *srcs[SC_BATCH_COPIES + 1];
    size_t sizes[SC_BATCH_COPIES + 1], first = 0, part = n / SC_BATCH_COPIES;
    struct cudaMemcpyAttributes attr = { .srcAccessOrder = cudaMemcpySrcAccessOrderStream };
    struct sc_slot *slot = slot_dev;
    (void)kind; /* unified addressing: host pinned and device memory alike */
    for (int k = 0; k < SC_BATCH_COPIES; k++)
        dsts[k] = (char *)dst + k * part, srcs[k] = (const char *)src + k * part, sizes[k] = part;
    dsts[SC_BATCH_COPIES] = &slot->token, srcs[SC_BATCH_COPIES] = &slot->arg, sizes[SC_BATCH_COPIES] = sizeof slot->token;
    return cudaMemcpyBatchAsync(dsts, srcs, sizes, SC_BATCH_COPIES + 1, &attr, &first, 1, (cudaStream_t)s);
}
static int memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D)
        return cudaMemcpy2DAsync(dst, SC_ROW_BYTES, src, SC_ROW_BYTES, SC_ROW_BYTES, n / SC_ROW_BYTES,
                                 copy_kind(kind), (cudaStream_t)s);
    if (kind & SC_COPY_3D) {
        struct cudaMemcpy3DParms m = copy3d(dst, src, n, kind);
        return cudaMemcpy3DAsync(&m, (cudaStream_t)s);
    }
    return cudaMemcpyAsync(dst, src, n, copy_kind(kind), (cudaStream_t)s);
}
static int memcpy_sync(void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D)
        return cudaMemcpy2D(dst, SC_ROW_BYTES, src, SC_ROW_BYTES, SC_ROW_BYTES, n / SC_ROW_BYTES, copy_kind(kind));
    if (kind & SC_COPY_3D) {
        struct cudaMemcpy3DParms m = copy3d(dst, src, n, kind);
        return cudaMemcpy3D(&m);
    }
    return cudaMemcpy(dst, src, n, copy_kind(kind));
}

static int host_func(void *s, void (*fn)(void *), void *arg) { return cudaLaunchHostFunc((cudaStream_t)s, fn, arg); }

static void CUDART_CB callback_trampoline(cudaStream_t s, cudaError_t status, void *arg)
{
    const struct sc_callback *cb = arg;
    (void)s;
    cb->body(cb->arg, (int)status);
}
static int callback(void *s, const struct sc_callback *cb)
{ return cudaStreamAddCallback((cudaStream_t)s, callback_trampoline, (void *)cb, 0);
}

static int event_record(void *e, void *s) { return cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s); }
static int event_record_external(void *e, void *s)
{
    return cudaEventRecordWithFlags((cudaEvent_t)e, (cudaStream_t)s, cudaEventRecordExternal);
}
_Static_assert(SC_WAIT_EXTERNAL == cudaEventWaitExternal, "stream_wait_event passes its flags on");
static int stream_wait_event(void *s, void *e, unsigned flags)
{
    return cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, flags);
}
static int stream_sync(void *s) { return cudaStreamSynchronize((cudaStream_t)s); }
static int stream_query(void *s) { return cudaStreamQuery((cudaStream_t)s); }
static int event_sync(void *e) { return cudaEventSynchronize((cudaEvent_t)e); }
static int event_query(void *e) { return cudaEventQuery((cudaEvent_t)e); }
static int event_elapsed(float *ms, void *start, void *end)
{
    return cudaEventElapsedTime(ms, (cudaEvent_t)start, (cudaEvent_t)end);
}
static int ctx_sync(void) { return cudaDeviceSynchronize(); }

/* The runtime API has no stream memory operations (cuStreamWaitValue32 & co). */
static int wait_value(void *s, void *addr, uint64_t value, int cond, int bits)
{
    (void)s, (void)addr, (void)value, (void)cond, (void)bits;
    return SC_UNSUPPORTED;
}
static int write_value(void *s, void *addr, uint64_t value, unsigned flags, int bits)
{
    (void)s, (void)addr, (void)value, (void)flags, (void)bits;
    return SC_UNSUPPORTED;
}

/* -- the stream-ordered allocator ----------------------------------------- */

static int pools_supported(void)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && v;
}
static int default_pool(void **pool)
{
    int dev = 0, rc;
    if (!pools_supported())
        return SC_UNSUPPORTED;
    if ((rc = cudaGetDevice(&dev))) /* the device current to the issuing thread, as the driver API's backend */
        return rc;
    return cudaDeviceGetMemPool((cudaMemPool_t *)pool, dev);
}
static int pool_create(void **pool, unsigned flags)
{
    static const struct { unsigned flag; enum cudaMemPoolAttr attr; } off[] = {
        { SC_POOL_NO_FOLLOW_EVENTS, cudaMemPoolReuseFollowEventDependencies },
        { SC_POOL_NO_OPPORTUNISTIC, cudaMemPoolReuseAllowOpportunistic },
        { SC_POOL_NO_INTERNAL_DEPS, cudaMemPoolReuseAllowInternalDependencies },
    };
    struct cudaMemPoolProps props;
    int rc, zero = 0;
    if (!pools_supported())
        return SC_UNSUPPORTED;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    if (flags & SC_POOL_IPC) { /* exportable, where the device has the handle type */
        int types = 0;
        if (cudaDeviceGetAttribute(&types, cudaDevAttrMemoryPoolSupportedHandleTypes, 0) ||
            !(types & cudaMemHandleTypePosixFileDescriptor))
            return SC_UNSUPPORTED;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    }
    if (flags & SC_POOL_MAX_ONE) { /* maxSize, a field since CUDA 12.2 (reserved bytes before) */
        int version = 0;
        if (cudaDriverGetVersion(&version) || version < 12020)
            return SC_UNSUPPORTED;
        props.maxSize = SC_TRIM_KEEP_BYTES;
    }
    if ((rc = cudaMemPoolCreate((cudaMemPool_t *)pool, &props)))
        return rc;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if ((flags & off[i].flag) && (rc = cudaMemPoolSetAttribute((cudaMemPool_t)*pool, off[i].attr, &zero)))
            return rc;
    if (flags & SC_POOL_KEEP_MEMORY) {
        uint64_t max = UINT64_MAX;
        rc = cudaMemPoolSetAttribute((cudaMemPool_t)*pool, cudaMemPoolAttrReleaseThreshold, &max);
    }
    return rc;
}
static int pool_destroy(void *pool) { return cudaMemPoolDestroy((cudaMemPool_t)pool); }
static int pool_reserved(void *pool, uint64_t *bytes)
{
    return cudaMemPoolGetAttribute((cudaMemPool_t)pool, cudaMemPoolAttrReservedMemCurrent, bytes);
}
static int pool_trim(void *pool) { return cudaMemPoolTrimTo((cudaMemPool_t)pool, 0); }
static int pool_used(void *pool, uint64_t *bytes)
{
    return cudaMemPoolGetAttribute((cudaMemPool_t)pool, cudaMemPoolAttrUsedMemCurrent, bytes);
}
static int pool_trim_to(void *pool, uint64_t keep) { return cudaMemPoolTrimTo((cudaMemPool_t)pool, (size_t)keep); }
static int alloc_async(void **ptr, size_t n, void *pool, void *s)
{
    if (pool)
        return cudaMallocFromPoolAsync(ptr, n, (cudaMemPool_t)pool, (cudaStream_t)s);
    return cudaMallocAsync(ptr, n, (cudaStream_t)s);
}
static int free_async(void *ptr, void *s) { return cudaFreeAsync(ptr, (cudaStream_t)s); }

/* -- graphs of one kernel node ---------------------------------------------
 * Built by capturing one launch in a private stream; each launch sets the
 * node's arguments (the kernel is named by its cudaKernel_t, as for
 * cudaLaunchKernel: cudaGraphKernelNodeGetParams refuses library kernels). */

struct graph {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    cudaGraphNode_t node;
    cudaKernel_t kernel;
    void *alloc;  /* the address of its memory allocation node (one at most), or NULL */
    int launched; /* a launch of it succeeded: its allocation may be left unfreed */
};

static int graph_create(void **out, int gate)
{
    struct graph *gr = calloc(1, sizeof *gr);
    cudaStream_t s = NULL;
    size_t n = 1;
    int rc;
    if (!gr)
        return cudaErrorMemoryAllocation;
    gr->kernel = gate ? k_gate : k_mark;
    if ((rc = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)))
        goto fail;
    if ((rc = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed)))
        goto fail;
    rc = gate ? launch_gate(s, NULL, 0, NULL, 0) : launch_mark(s, NULL, 0);
    int end = cudaStreamEndCapture(s, &gr->g);
    if (rc || (rc = end) || (rc = cudaGraphGetNodes(gr->g, &gr->node, &n)) ||
        (rc = cudaGraphInstantiate(&gr->exec, gr->g, 0)))
        goto fail;
    cudaStreamDestroy(s);
    *out = gr;
    return 0;
fail:
    if (gr->g)
        cudaGraphDestroy(gr->g);
    if (s)
        cudaStreamDestroy(s);
    free(gr);
    return rc;
}
static int graph_launch(void *g, void *s, void **args)
{
    struct graph *gr = g;
    struct cudaKernelNodeParams kp;
    int rc;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)gr->kernel;
    kp.gridDim = (dim3){ 1, 1, 1 };
    kp.blockDim = (dim3){ 1, 1, 1 };
    kp.kernelParams = args;
    if ((rc = cudaGraphExecKernelNodeSetParams(gr->exec, gr->node, &kp)))
        return rc;
    return cudaGraphLaunch(gr->exec, (cudaStream_t)s);
}
static int graph_destroy(void *g)
{
    struct graph *gr = g;
    if (gr->alloc && gr->launched) { /* what its last launch allocated ("passing the allocation to
                                      * cudaFreeAsync"); an error (nothing left allocated) is no concern here */
        if (cudaFreeAsync(gr->alloc, cudaStreamLegacy) == cudaSuccess)
            cudaStreamSynchronize(cudaStreamLegacy);
        cudaGetLastError(); /* not this thread's error state to keep */
    }
    if (gr->exec) /* none before the instantiate, none after exec_destroy */
        cudaGraphExecDestroy(gr->exec);
    if (gr->g)
        cudaGraphDestroy(gr->g);
    free(gr);
    return 0;
}

/* -- graphs built by hand -------------------------------------------------- */

static int graph_new(void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return cudaErrorMemoryAllocation;
    if ((rc = cudaGraphCreate(&gr->g, 0))) {
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
static int node_add(void *g, const struct sc_node_params *np, void **node)
{
    cudaGraph_t graph = ((struct graph *)g)->g;
    cudaGraphNode_t *out = (cudaGraphNode_t *)node;
    void *flag = np->flag, *slot = np->slot;
    uint64_t max_ns = np->max_ns;
    uint32_t token = np->token;
    void *gate_args[] = { &flag, &max_ns, &slot, &token }, *mark_args[] = { &slot, &token };
    switch (np->kind) {
    case SC_NODE_GATE:
    case SC_NODE_KERNEL: { /* the kernel's arguments are copied by the call */
        struct cudaKernelNodeParams kp;
        memset(&kp, 0, sizeof kp);
        kp.func = (void *)(np->kind == SC_NODE_GATE ? k_gate : k_mark);
        kp.gridDim = (dim3){ 1, 1, 1 };
        kp.blockDim = (dim3){ 1, 1, 1 };
        kp.kernelParams = np->kind == SC_NODE_GATE ? gate_args : mark_args;
        return cudaGraphAddKernelNode(out, graph, NULL, 0, &kp);
    }
    case SC_NODE_HOST: {
        struct cudaHostNodeParams hp = { np->fn, np->arg };
        return cudaGraphAddHostNode(out, graph, NULL, 0, &hp);
    }
    case SC_NODE_MEMSET: {
        struct cudaMemsetParams mp;
        memset(&mp, 0, sizeof mp);
        mp.dst = np->dst;
        mp.value = np->value;
        mp.elementSize = 1;
        mp.width = np->bytes;
        mp.height = 1;
        mp.pitch = np->bytes;
        return cudaGraphAddMemsetNode(out, graph, NULL, 0, &mp);
    }
    case SC_NODE_MEMCPY:
        return cudaGraphAddMemcpyNode1D(out, graph, NULL, 0, np->dst, np->src, np->bytes, cudaMemcpyDeviceToDevice);
    case SC_NODE_ALLOC: { /* device memory of the current device, freed by no node of the graph */
        struct cudaMemAllocNodeParams ap;
        int dev = 0, rc;
        cudaGetDevice(&dev);
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = cudaMemAllocationTypePinned;
        ap.poolProps.handleTypes = cudaMemHandleTypeNone;
        ap.poolProps.location.type = cudaMemLocationTypeDevice;
        ap.poolProps.location.id = dev;
        ap.bytesize = np->bytes;
        rc = cudaGraphAddMemAllocNode(out, graph, NULL, 0, &ap);
        if (rc == cudaErrorNotSupported)
            return SC_UNSUPPORTED; /* no graph memory nodes (no memory pools) on this device */
        if (rc == 0)
            ((struct graph *)g)->alloc = ap.dptr;
        return rc;
    }
    case SC_NODE_RECORD: return cudaGraphAddEventRecordNode(out, graph, NULL, 0, (cudaEvent_t)np->event);
    case SC_NODE_WAIT: return cudaGraphAddEventWaitNode(out, graph, NULL, 0, (cudaEvent_t)np->event);
    default: return cudaGraphAddChildGraphNode(out, graph, NULL, 0, ((struct graph *)np->child)->g);
    }
}
static int edge_add(void *g, void *from, void *to)
{
    cudaGraphNode_t a = from, b = to;
    return cudaGraphAddDependencies(((struct graph *)g)->g, &a, &b, NULL, 1);
}
static int graph_instantiate(void *g, int upload, void *s)
{
    struct graph *gr = g;
    cudaGraphInstantiateParams ip;
    if (!upload)
        return cudaGraphInstantiate(&gr->exec, gr->g, 0);
    memset(&ip, 0, sizeof ip);
    ip.flags = cudaGraphInstantiateFlagUpload;
    ip.uploadStream = (cudaStream_t)s;
    return cudaGraphInstantiateWithParams(&gr->exec, gr->g, &ip);
}
/* result_out is kept whatever the call answers (cudaGraphInstantiateError where it set none) */
static int graph_instantiate_with(void *g, unsigned flags, int *result)
{
    struct graph *gr = g;
    cudaGraphInstantiateParams ip;
    int rc;
    memset(&ip, 0, sizeof ip);
    ip.flags = flags & SC_INSTANTIATE_AUTO_FREE ? cudaGraphInstantiateFlagAutoFreeOnLaunch : 0;
    ip.result_out = cudaGraphInstantiateError;
    rc = cudaGraphInstantiateWithParams(&gr->exec, gr->g, &ip);
    if (rc)
        gr->exec = NULL;
    *result = (int)ip.result_out;
    return rc;
}
static int exec_update(void *g, void *from)
{
    cudaGraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    return cudaGraphExecUpdate(((struct graph *)g)->exec, ((struct graph *)from)->g, &info);
}
static int exec_destroy(void *g)
{
    struct graph *gr = g;
    int rc = cudaGraphExecDestroy(gr->exec);
    if (rc == 0)
        gr->exec = NULL;
    return rc;
}

/* -- stream capture --------------------------------------------------------- */

static int capture_begin(void *s, int mode)
{
    enum cudaStreamCaptureMode m = mode == SC_CAPTURE_THREAD_LOCAL ? cudaStreamCaptureModeThreadLocal
                                   : mode == SC_CAPTURE_RELAXED    ? cudaStreamCaptureModeRelaxed
                                                                   : cudaStreamCaptureModeGlobal;
    return cudaStreamBeginCapture((cudaStream_t)s, m);
}
static int capture_end(void *s)
{
    cudaGraph_t g = NULL;
    int rc = cudaStreamEndCapture((cudaStream_t)s, &g);
    if (g)
        cudaGraphDestroy(g);
    return rc;
}
/* The captured graph, instantiated; graph_destroy destroys both (the node is unused). */
static int capture_keep(void *s, void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return cudaErrorMemoryAllocation;
    rc = cudaStreamEndCapture((cudaStream_t)s, &gr->g);
    if (rc == 0)
        rc = cudaGraphInstantiate(&gr->exec, gr->g, 0);
    if (rc) {
        if (gr->g)
            cudaGraphDestroy(gr->g);
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
static int graph_replay(void *g, void *s)
{
    int rc = cudaGraphLaunch(((struct graph *)g)->exec, (cudaStream_t)s);
    if (rc == 0)
        ((struct graph *)g)->launched = 1; /* an allocation of it may now be left unfreed */
    return rc;
}
static int capture_status(void *s, int *status)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    int rc = cudaStreamIsCapturing((cudaStream_t)s, &st);
    *status = st == cudaStreamCaptureStatusActive        ? SC_CAPTURE_ACTIVE
              : st == cudaStreamCaptureStatusInvalidated ? SC_CAPTURE_INVALIDATED
                                                         : SC_CAPTURE_NONE;
    return rc;
}

static int capture_info(void *s, int *status, uint64_t *id, size_t *ndeps)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    unsigned long long v = 0;
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t n = 0;
    int rc = cudaStreamGetCaptureInfo((cudaStream_t)s, &st, &v, NULL, &deps, &edges, &n);
    *status = st == cudaStreamCaptureStatusActive        ? SC_CAPTURE_ACTIVE
              : st == cudaStreamCaptureStatusInvalidated ? SC_CAPTURE_INVALIDATED
                                                         : SC_CAPTURE_NONE;
    *id = v, *ndeps = n;
    return rc;
}
static int capture_sever(void *s)
{
    return cudaStreamUpdateCaptureDependencies((cudaStream_t)s, NULL, NULL, 0, cudaStreamSetCaptureDependencies);
}

static int stream_id(void *s, uint64_t *id)
{
    unsigned long long v = 0;
    int rc = cudaStreamGetId((cudaStream_t)s, &v);
    *id = v;
    return rc;
}

/* Contexts are the driver API's: the runtime API has no push or pop. */
static int ctx_action(int action)
{
    (void)action;
    return SC_UNSUPPORTED;
}

/* nor does it create contexts (rules that do run through the driver API only). */
static int ctx_create(void **ctx)
{
    (void)ctx;
    return SC_UNSUPPORTED;
}
static int ctx_destroy(void *ctx)
{
    (void)ctx;
    return SC_UNSUPPORTED;
}
static int ctx_enter(void *ctx, int action)
{
    (void)ctx, (void)action;
    return SC_UNSUPPORTED;
}

/* nor does it create contexts with flags */
static int ctx_create_flags(void **ctx, unsigned flags)
{
    (void)ctx, (void)flags;
    return SC_UNSUPPORTED;
}

/* nor does it make a context current by creating it */
static int ctx_create_current(void **ctx, unsigned flags)
{
    (void)ctx, (void)flags;
    return SC_UNSUPPORTED;
}

/* the runtime API of CUDA 13.0 has no green contexts (cuda_runtime_api.h declares none): rules with a
 * green stream run through the driver API only */
static int green_support(char *why, size_t n)
{
    snprintf(why, n, "the runtime API of CUDA 13.0 has no green contexts");
    return SC_UNSUPPORTED;
}
static int green_create(void **green)
{
    (void)green;
    return SC_UNSUPPORTED;
}
static int green_stream_create(void **s, void *green, int prio_set, int prio)
{
    (void)s, (void)green, (void)prio_set, (void)prio;
    return SC_UNSUPPORTED;
}
static int green_destroy(void *green)
{
    (void)green;
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
static int primary_ctx_sync(void)
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

/* an allocation from a pool exported and imported again in this process (see driver.c) */
static int alloc_imported(void *pool, size_t n, void *s)
{
    int fd = -1, rc;
    cudaMemPool_t imported = NULL;
    void *d = NULL;
    if (!pool || cudaMemPoolExportToShareableHandle(&fd, (cudaMemPool_t)pool, cudaMemHandleTypePosixFileDescriptor, 0))
        return SC_UNSUPPORTED;
    rc = cudaMemPoolImportFromShareableHandle(&imported, (void *)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
    close(fd);
    if (rc)
        return SC_UNSUPPORTED;
    if ((rc = cudaMallocFromPoolAsync(&d, n, imported, (cudaStream_t)s)) == cudaSuccess) {
        cudaFreeAsync(d, (cudaStream_t)s);
        cudaStreamSynchronize((cudaStream_t)s);
    }
    cudaMemPoolDestroy(imported);
    return rc;
}

/* a pool (of device 0) made accessible to device dev, or not (see driver.c) */
static int pool_set_access(void *pool, int dev, int access)
{
    int peer = 1;
    if (!pool)
        return SC_UNSUPPORTED;
    if (dev != 0 && cudaDeviceCanAccessPeer(&peer, dev, 0) != cudaSuccess)
        return SC_UNSUPPORTED;
    if (!peer)
        return SC_UNSUPPORTED;
    struct cudaMemAccessDesc desc = { .location = { .type = cudaMemLocationTypeDevice, .id = dev },
                                      .flags = access == SC_ACCESS_READWRITE ? cudaMemAccessFlagsProtReadWrite
                                                                             : cudaMemAccessFlagsProtNone };
    return cudaMemPoolSetAccess((cudaMemPool_t)pool, &desc, 1);
}
static int pool_get_access(void *pool, int dev, int *readwrite)
{
    enum cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
    struct cudaMemLocation loc = { .type = cudaMemLocationTypeDevice, .id = dev };
    if (!pool)
        return SC_UNSUPPORTED;
    int rc = cudaMemPoolGetAccess(&flags, (cudaMemPool_t)pool, &loc);
    *readwrite = flags == cudaMemAccessFlagsProtReadWrite;
    return rc;
}
/* a pool's allocation shared with another process (see driver.c) */
static int ipc_pool_export(void *pool, void *ptr, int *fd, void *data)
{
    struct cudaMemPoolPtrExportData d;
    *fd = -1;
    if (cudaMemPoolExportToShareableHandle(fd, (cudaMemPool_t)pool, cudaMemHandleTypePosixFileDescriptor, 0))
        return SC_UNSUPPORTED;
    memset(&d, 0, sizeof d);
    int rc = cudaMemPoolExportPointer(&d, ptr);
    memcpy(data, &d, sizeof d);
    return rc;
}
static int ipc_pool_import(void **pool, void **ptr, int fd, const void *data)
{
    struct cudaMemPoolPtrExportData d;
    *ptr = NULL;
    if (cudaMemPoolImportFromShareableHandle((cudaMemPool_t *)pool, (void *)(uintptr_t)fd,
                                             cudaMemHandleTypePosixFileDescriptor, 0))
        return SC_UNSUPPORTED;
    memcpy(&d, data, sizeof d);
    return cudaMemPoolImportPointer(ptr, (cudaMemPool_t)*pool, &d);
}
static int ipc_pool_close(void *pool, void *ptr)
{
    int rc = ptr ? cudaFree(ptr) : 0, rc2 = pool ? cudaMemPoolDestroy((cudaMemPool_t)pool) : 0;
    return rc ? rc : rc2;
}
_Static_assert(sizeof(struct cudaMemPoolPtrExportData) == SC_IPC_HANDLE_BYTES, "pool export data is 64 bytes");
/* the export alone, its code the answer (see driver.c) */
static int pool_export(void *pool)
{
    int fd = -1;
    int rc = cudaMemPoolExportToShareableHandle(&fd, (cudaMemPool_t)pool, cudaMemHandleTypePosixFileDescriptor, 0);
    if (rc == cudaSuccess && fd >= 0)
        close(fd);
    return rc;
}

/* releases of the primary context are the driver API's */
static int primary_release(int action, int *reset)
{
    (void)action, *reset = 0;
    return SC_UNSUPPORTED;
}

/* stream memory operations are the driver API's only */
static int batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits)
{
    (void)s, (void)wait_dev, (void)wait_value, (void)write_dev, (void)write_value, (void)bits;
    return SC_UNSUPPORTED;
}

static int memcpy_peer(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n)
{
    return cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, n, (cudaStream_t)s);
}

static int device_sync(int dev)
{
    int was = 0, rc;
    cudaGetDevice(&was);
    if ((rc = cudaSetDevice(dev)))
        return rc;
    rc = cudaDeviceSynchronize();
    cudaSetDevice(was);
    return rc;
}

static int last_error(int reset) { return reset ? cudaGetLastError() : cudaPeekAtLastError(); }

static int host_register(void *h, size_t n) { return cudaHostRegister(h, n, cudaHostRegisterMapped | cudaHostRegisterPortable); }
static int host_unregister(void *h) { return cudaHostUnregister(h); }
static int ipc_event_handle(void *e, void *handle)
{
    cudaIpcEventHandle_t h;
    int rc = cudaIpcGetEventHandle(&h, (cudaEvent_t)e);
    memcpy(handle, &h, sizeof h);
    return rc;
}
static int ipc_event_open(void **e, const void *handle)
{
    cudaIpcEventHandle_t h;
    memcpy(&h, handle, sizeof h);
    return cudaIpcOpenEventHandle((cudaEvent_t *)e, h);
}
static int ipc_mem_handle(void *d, void *handle)
{
    cudaIpcMemHandle_t h;
    int rc = cudaIpcGetMemHandle(&h, d);
    memcpy(handle, &h, sizeof h);
    return rc;
}
static int ipc_mem_open(void **d, const void *handle)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    return cudaIpcOpenMemHandle(d, h, cudaIpcMemLazyEnablePeerAccess);
}
static int ipc_mem_close(void *d) { return cudaIpcCloseMemHandle(d); }
_Static_assert(sizeof(cudaIpcEventHandle_t) == SC_IPC_HANDLE_BYTES && sizeof(cudaIpcMemHandle_t) == SC_IPC_HANDLE_BYTES,
               "IPC handles are 64 bytes");

static int thread_capture_relaxed(void)
{
    enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    return cudaThreadExchangeStreamCaptureMode(&m);
}

static int code(enum sc_code c)
{
    switch (c) {
    case SC_CODE_SUCCESS: return cudaSuccess;
    case SC_CODE_NOT_READY: return cudaErrorNotReady;
    case SC_CODE_INVALID_VALUE: return cudaErrorInvalidValue;
    case SC_CODE_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case SC_CODE_ILLEGAL_ADDRESS: return cudaErrorIllegalAddress;
    case SC_CODE_CAPTURE_UNSUPPORTED: return cudaErrorStreamCaptureUnsupported;
    case SC_CODE_CAPTURE_INVALIDATED: return cudaErrorStreamCaptureInvalidated;
    case SC_CODE_CAPTURE_IMPLICIT: return cudaErrorStreamCaptureImplicit;
    case SC_CODE_CAPTURE_WRONG_THREAD: return cudaErrorStreamCaptureWrongThread;
    case SC_CODE_INVALID_CONTEXT: return cudaErrorDeviceUninitialized; /* 201, as CUDA_ERROR_INVALID_CONTEXT */
    case SC_CODE_ASSERT: return cudaErrorAssert;
    case SC_CODE_LAUNCH_FAILED: return cudaErrorLaunchFailure;
    case SC_CODE_EXEC_UPDATE_FAILURE: return cudaErrorGraphExecUpdateFailure;
    case SC_CODE_CAPTURE_UNMATCHED: return cudaErrorStreamCaptureUnmatched;
    case SC_CODE_CAPTURE_UNJOINED: return cudaErrorStreamCaptureUnjoined;
    case SC_CODE_CAPTURED_EVENT: return cudaErrorCapturedEvent;
    case SC_CODE_NOT_PERMITTED: return cudaErrorNotPermitted;
    case SC_CODE_CONTEXT_IS_DESTROYED: return cudaErrorContextIsDestroyed;
    case SC_CODE_SKIPPED: case SC_CODE_AN_ERROR: break;
    }
    return -1;
}

static const char *error_name(int rc)
{
    return rc == SC_UNSUPPORTED ? "not in the runtime API, or not on this device" : cudaGetErrorName((cudaError_t)rc);
}

int sc_runtime_version(void)
{
    int v = 0;
    cudaRuntimeGetVersion(&v);
    return v;
}

/* the GPU runs by itself: nothing to wait for */
static int settle(uint64_t max_ns) { return (void)max_ns, 1; }

const sc_backend sc_runtime_backend = SC_BACKEND("runtime");
