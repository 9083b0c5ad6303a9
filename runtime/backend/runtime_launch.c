/*
 * runtime_launch.c - the suite's kernels launched through the runtime API
 * (cudaLaunchKernel, cudaLaunchKernelExC): gates, marks, faults, a gate held
 * by a stream wait, and launches with attributes (programmatic dependent
 * launch, programmatic events, memory synchronization domains and their
 * maps, priority, access policy windows, cooperative launches, clusters),
 * and stream attributes.
 */
#include "runtime.h"
#include <string.h>
#include "cu_loader.h" /* wait_gate's stream wait is the driver API's */

int rt_launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *args[] = { &flag, &max_ns, &slot, &token };
    return cudaLaunchKernel((const void *)rt_k_gate, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, (cudaStream_t)s);
}
int rt_launch_mark(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return cudaLaunchKernel((const void *)rt_k_mark, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, (cudaStream_t)s);
}
/* library_kernel is the driver API's: this backend's every kernel is a context-independent cudaKernel_t of
 * cudaLibraryGetKernel already (runtime_device.c), so launch_mark is that launch */
int rt_launch_library(void *s, void *slot, uint32_t token)
{
    (void)s, (void)slot, (void)token;
    return SC_UNSUPPORTED;
}
/* 2048 threads per block (see driver_launch.c) */
int rt_launch_invalid(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return cudaLaunchKernel((const void *)rt_k_mark, (dim3){ 1, 1, 1 }, (dim3){ 2048, 1, 1 }, args, 0, (cudaStream_t)s);
}

/*
 * The gate as a stream wait between two kernels (see driver_launch.c).  The runtime API has no stream
 * memory operations: the wait is the driver's cuStreamWaitValue32 on the runtime's stream, whose handles
 * the driver shares (cudaStreamLegacy is CU_STREAM_LEGACY, cudaStreamPerThread CU_STREAM_PER_THREAD); the
 * null stream of a per-thread build is the per-thread stream.  The first kernel binds the runtime's
 * context to the thread, so the driver call finds it current.
 */
int rt_wait_gate(void *s, void *flag, void *slot, uint32_t token)
{
    void *open_args[] = { &slot }, *close_args[] = { &slot, &token };
    CUstream ds = (CUstream)s;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    if (!s)
        ds = CU_STREAM_PER_THREAD;
#endif
    int rc = cudaLaunchKernel((const void *)rt_k_gate_open, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, open_args, 0,
                              (cudaStream_t)s);
    if (rc || (rc = SC_CALL(cuStreamWaitValue32, ds, (CUdeviceptr)(uintptr_t)flag, 1u, CU_STREAM_WAIT_VALUE_GEQ)))
        return rc;
    return cudaLaunchKernel((const void *)rt_k_gate_close, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, close_args, 0,
                            (cudaStream_t)s);
}

/* sc_pdl through cudaLaunchKernelExC with cudaLaunchAttributeProgrammaticStreamSerialization */
int rt_launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token)
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
    return cudaLaunchKernelExC(&cfg, (const void *)rt_k_pdl, args);
}

/* sc_mark through cudaLaunchKernelExC with cudaLaunchAttributeProgrammaticEvent */
int rt_launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token)
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
    return cudaLaunchKernelExC(&cfg, flag ? (const void *)rt_k_gate : (const void *)rt_k_mark, flag ? gate_args : mark_args);
}

/* The current device's answer to attribute a, 0 where it has none */
static int device_attr(enum cudaDeviceAttr a)
{
    int dev = 0, v = 0;
    return cudaGetDevice(&dev) || cudaDeviceGetAttribute(&v, a, dev) ? 0 : v;
}
/* An L2 access policy window of 4 KiB at p, every line a persisting hit; 0 where the device has none */
static int access_policy(struct cudaAccessPolicyWindow *w, void *p)
{
    *w = (struct cudaAccessPolicyWindow){ .base_ptr = p, .num_bytes = 4096, .hitRatio = 1.0f,
                                          .hitProp = cudaAccessPropertyPersisting,
                                          .missProp = cudaAccessPropertyStreaming };
    return device_attr(cudaDevAttrMaxAccessPolicyWindowSize) >= 4096;
}
/* the memory synchronization domain map of kernel_domain_map and stream_domain_map: the two domains swapped */
static const struct cudaLaunchMemSyncDomainMap_st swapped_domains = { .default_ = 1, .remote = 0 };

/* sc_mark or sc_gate through cudaLaunchKernelExC with one launch attribute (or cudaLaunchCooperativeKernel) */
int rt_launch_attr(void *s, int which, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    const void *f = flag ? (const void *)rt_k_gate : (const void *)rt_k_mark;
    int least = 0, greatest = 0, rc;
    int cc9 = device_attr(cudaDevAttrComputeCapabilityMajor) >= 9; /* domains and clusters came with 9.0 */
    cudaLaunchAttribute attr = { .id = cudaLaunchAttributeMemSyncDomain };
    switch (which) {
    case SC_LAUNCH_REMOTE_DOMAIN:
        if (!cc9)
            return SC_UNSUPPORTED;
        attr.val.memSyncDomain = cudaLaunchMemSyncDomainRemote;
        break;
    case SC_LAUNCH_PRIORITY:
    case SC_LAUNCH_PRIORITY_LEAST:
        if ((rc = cudaDeviceGetStreamPriorityRange(&least, &greatest)))
            return rc;
        attr.id = cudaLaunchAttributePriority, attr.val.priority = which == SC_LAUNCH_PRIORITY ? greatest : least;
        break;
    case SC_LAUNCH_ACCESS_POLICY:
        if (!access_policy(&attr.val.accessPolicyWindow, slot))
            return SC_UNSUPPORTED;
        attr.id = cudaLaunchAttributeAccessPolicyWindow;
        break;
    case SC_LAUNCH_COOPERATIVE:
    case SC_LAUNCH_COOPERATIVE_KERNEL:
        if (!device_attr(cudaDevAttrCooperativeLaunch))
            return SC_UNSUPPORTED;
        if (which == SC_LAUNCH_COOPERATIVE_KERNEL) /* one block: within any device's co-resident limit */
            return cudaLaunchCooperativeKernel(f, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, flag ? gate_args : mark_args, 0,
                                               (cudaStream_t)s);
        attr.id = cudaLaunchAttributeCooperative, attr.val.cooperative = 1;
        break;
    case SC_LAUNCH_CLUSTER:
        if (!cc9 || !device_attr(cudaDevAttrClusterLaunch))
            return SC_UNSUPPORTED;
        attr.id = cudaLaunchAttributeClusterDimension;
        attr.val.clusterDim.x = attr.val.clusterDim.y = attr.val.clusterDim.z = 1;
        break;
    case SC_LAUNCH_DOMAIN_MAP:
        if (!cc9)
            return SC_UNSUPPORTED;
        attr.id = cudaLaunchAttributeMemSyncDomainMap, attr.val.memSyncDomainMap = swapped_domains;
        break;
    default:
        return SC_UNSUPPORTED;
    }
    cudaLaunchConfig_t cfg = { .gridDim = { 1, 1, 1 }, .blockDim = { 1, 1, 1 }, .stream = (cudaStream_t)s,
                               .attrs = &attr, .numAttrs = 1 };
    return cudaLaunchKernelExC(&cfg, f, flag ? gate_args : mark_args);
}

/* cudaStreamSetAttribute of one stream attribute on s (applied to the work submitted after it) */
int rt_stream_attr(void *s, int which, void *window)
{
    cudaStreamAttrValue v;
    cudaStreamAttrID id;
    memset(&v, 0, sizeof v);
    switch (which) {
    case SC_STREAM_ACCESS_POLICY:
        if (!access_policy(&v.accessPolicyWindow, window))
            return SC_UNSUPPORTED;
        id = cudaStreamAttributeAccessPolicyWindow;
        break;
    case SC_STREAM_REMOTE_DOMAIN:
    case SC_STREAM_DOMAIN_MAP:
        if (device_attr(cudaDevAttrComputeCapabilityMajor) < 9)
            return SC_UNSUPPORTED; /* memory synchronization domains came with compute capability 9.0 */
        if (which == SC_STREAM_REMOTE_DOMAIN)
            id = cudaStreamAttributeMemSyncDomain, v.memSyncDomain = cudaLaunchMemSyncDomainRemote;
        else
            id = cudaStreamAttributeMemSyncDomainMap, v.memSyncDomainMap = swapped_domains;
        break;
    default:
        return SC_UNSUPPORTED;
    }
    return cudaStreamSetAttribute((cudaStream_t)s, id, &v);
}

int rt_launch_fault(void *s, int how)
{
    uint32_t kind = (uint32_t)how;
    void *args[] = { &kind };
    return cudaLaunchKernel((const void *)rt_k_fault, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, (cudaStream_t)s);
}
