/*
 * driver_launch.c - the suite's kernels launched through the driver API:
 * gates, marks, faults, a gate held by a stream wait, and launches with
 * attributes (programmatic dependent launch, programmatic events, memory
 * synchronization domains and their maps, priority, access policy windows,
 * cooperative launches, clusters), and stream attributes.
 */
#include "driver.h"
#include "fatbin.h"
#include <pthread.h>
#include <string.h>

int drv_launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *args[] = { &flag, &max_ns, &slot, &token };
    return SC_CALL(cuLaunchKernel, drv_kernels()->gate, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}
int drv_launch_mark(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return SC_CALL(cuLaunchKernel, drv_kernels()->mark, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}

/*
 * The marking kernel as a context-independent kernel (library_kernel): a CUkernel of the suite's fatbin loaded
 * once per process with cuLibraryLoadData (CUDA 12.0; an older driver skips the point) when device 0 opens, and
 * run once in each context drv_warm_up warms, so that lazy loading waits for nothing inside a case.  "the
 * context to launch the kernel on will either be taken from the specified stream hStream or the current context
 * in case of NULL stream" (cuLaunchKernel).  A driver of 12.0 or later that cannot load it answers its code at
 * each launch: the case fails, naming it.
 */
static CUkernel library_mark;
static int library_rc = SC_UNSUPPORTED;
static void library_load_once(void)
{
    CUlibrary lib;
    int version = 0, rc;
    if (SC_CALL(cuDriverGetVersion, &version) || version < 12000)
        return;
    if ((rc = SC_CALL(cuLibraryLoadData, &lib, sc_fatbin, NULL, NULL, 0, NULL, NULL, 0)) ||
        (rc = SC_CALL(cuLibraryGetKernel, &library_mark, lib, "sc_mark"))) {
        library_mark = NULL;
        library_rc = rc;
    }
}
void drv_library_load(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, library_load_once);
}
int drv_launch_library(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    if (!library_mark)
        return library_rc;
    return SC_CALL(cuLaunchKernel, (CUfunction)library_mark, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}
/* whether the context-independent kernel was loaded (drv_warm_up runs it then) */
int drv_library_loaded(void) { return library_mark != NULL; }
/* it would not run where drv_warm_up ran it: each launch answers that code from now on (the case fails, naming
 * it); no other op kind uses it, so the device still opens */
void drv_library_failed(int rc)
{
    library_mark = NULL;
    library_rc = rc;
}

/* 2048 threads per block, over every device's 1024: refused before it runs (were it run, it would only
 * mark its slot) */
int drv_launch_invalid(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return SC_CALL(cuLaunchKernel, drv_kernels()->mark, 1, 1, 1, 2048, 1, 1, 0, (CUstream)s, args, NULL);
}
/* The gate as a stream wait on the flag between two kernels (see sc_gate_open); it has no device-side
 * deadline: the host releases it, at the latest at the deadline. */
int drv_wait_gate(void *s, void *flag, void *slot, uint32_t token)
{
    const struct made *k = drv_kernels();
    void *open_args[] = { &slot }, *close_args[] = { &slot, &token };
    int rc;
    if ((rc = SC_CALL(cuLaunchKernel, k->gate_open, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, open_args, NULL)) ||
        (rc = SC_CALL(cuStreamWaitValue32, (CUstream)s, (CUdeviceptr)(uintptr_t)flag, 1u, CU_STREAM_WAIT_VALUE_GEQ)))
        return rc;
    return SC_CALL(cuLaunchKernel, k->gate_close, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, close_args, NULL);
}

/* sc_pdl through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION */
int drv_launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token)
{
    uint32_t wait = sync != 0;
    void *args[] = { &slot, &token, &wait, &primary_token };
    CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION };
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1, .blockDimY = 1,
                           .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1 };
    if (drv_gpus[drv_cur].cc_major < 9)
        return SC_UNSUPPORTED; /* programmatic dependent launch needs compute capability 9.0 */
    return SC_CALL(cuLaunchKernelEx, &cfg, drv_kernels()->pdl, args, NULL);
}

/* sc_mark through cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT */
int drv_launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT };
    attr.value.programmaticEvent.event = (CUevent)e;
    attr.value.programmaticEvent.flags = 0;
    attr.value.programmaticEvent.triggerAtBlockStart = 0;
    CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1, .blockDimY = 1,
                           .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1 };
    if (drv_gpus[drv_cur].cc_major < 9)
        return SC_UNSUPPORTED; /* a programmatic event needs compute capability 9.0 */
    return SC_CALL(cuLaunchKernelEx, &cfg, flag ? drv_kernels()->gate : drv_kernels()->mark, flag ? gate_args : mark_args,
                   NULL);
}

/* A device's answer to attribute a, 0 where it has none */
static int device_attr(CUdevice_attribute a)
{
    int v = 0;
    return SC_CALL(cuDeviceGetAttribute, &v, a, drv_gpus[drv_cur].dev) ? 0 : v;
}
/* An L2 access policy window of 4 KiB at p, every line a persisting hit (the rest would stream); 0 where the
 * device has no such window (no L2 set-aside, before compute capability 8.0) */
static int access_policy(CUaccessPolicyWindow *w, void *p)
{
    *w = (CUaccessPolicyWindow){ .base_ptr = p, .num_bytes = 4096, .hitRatio = 1.0f,
                                 .hitProp = CU_ACCESS_PROPERTY_PERSISTING, .missProp = CU_ACCESS_PROPERTY_STREAMING };
    return device_attr(CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE) >= 4096;
}
/* the memory synchronization domain map of kernel_domain_map and stream_domain_map: the two domains swapped */
static const CUlaunchMemSyncDomainMap swapped_domains = { .default_ = 1, .remote = 0 };

/* sc_mark or sc_gate through cuLaunchKernelEx with one launch attribute (or cuLaunchCooperativeKernel) */
int drv_launch_attr(void *s, int which, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *mark_args[] = { &slot, &token }, *gate_args[] = { &flag, &max_ns, &slot, &token };
    CUfunction f = flag ? drv_kernels()->gate : drv_kernels()->mark;
    CUlaunchAttribute attr = { .id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN };
    int least = 0, greatest = 0, rc;
    int cc9 = drv_gpus[drv_cur].cc_major >= 9; /* memory synchronization domains and clusters came with 9.0 */
    switch (which) {
    case SC_LAUNCH_REMOTE_DOMAIN:
        if (!cc9)
            return SC_UNSUPPORTED;
        attr.value.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
        break;
    case SC_LAUNCH_PRIORITY:
    case SC_LAUNCH_PRIORITY_LEAST:
        if ((rc = SC_CALL(cuCtxGetStreamPriorityRange, &least, &greatest)))
            return rc;
        attr.id = CU_LAUNCH_ATTRIBUTE_PRIORITY;
        attr.value.priority = which == SC_LAUNCH_PRIORITY ? greatest : least;
        break;
    case SC_LAUNCH_ACCESS_POLICY:
        if (!access_policy(&attr.value.accessPolicyWindow, slot))
            return SC_UNSUPPORTED;
        attr.id = CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        break;
    case SC_LAUNCH_COOPERATIVE:
    case SC_LAUNCH_COOPERATIVE_KERNEL:
        if (!device_attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
            return SC_UNSUPPORTED;
        if (which == SC_LAUNCH_COOPERATIVE_KERNEL) /* one block: within any device's co-resident limit */
            return SC_CALL(cuLaunchCooperativeKernel, f, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, flag ? gate_args : mark_args);
        attr.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE, attr.value.cooperative = 1;
        break;
    case SC_LAUNCH_CLUSTER:
        if (!cc9 || !device_attr(CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH))
            return SC_UNSUPPORTED;
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = attr.value.clusterDim.y = attr.value.clusterDim.z = 1;
        break;
    case SC_LAUNCH_DOMAIN_MAP:
        if (!cc9)
            return SC_UNSUPPORTED;
        attr.id = CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, attr.value.memSyncDomainMap = swapped_domains;
        break;
    default:
        return SC_UNSUPPORTED;
    }
    CUlaunchConfig cfg = { .gridDimX = 1, .gridDimY = 1, .gridDimZ = 1, .blockDimX = 1, .blockDimY = 1,
                           .blockDimZ = 1, .hStream = (CUstream)s, .attrs = &attr, .numAttrs = 1 };
    return SC_CALL(cuLaunchKernelEx, &cfg, f, flag ? gate_args : mark_args, NULL);
}

/* cuStreamSetAttribute of one stream attribute on s: "The updated attribute will be applied to subsequent work
 * submitted to the stream. It will not affect previously submitted work." */
int drv_stream_attr(void *s, int which, void *window)
{
    CUstreamAttrValue v;
    CUstreamAttrID id;
    memset(&v, 0, sizeof v);
    switch (which) {
    case SC_STREAM_ACCESS_POLICY:
        if (!access_policy(&v.accessPolicyWindow, window))
            return SC_UNSUPPORTED;
        id = CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW;
        break;
    case SC_STREAM_REMOTE_DOMAIN:
    case SC_STREAM_DOMAIN_MAP:
        if (drv_gpus[drv_cur].cc_major < 9)
            return SC_UNSUPPORTED; /* memory synchronization domains came with compute capability 9.0 */
        if (which == SC_STREAM_REMOTE_DOMAIN)
            id = CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN, v.memSyncDomain = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE;
        else
            id = CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP, v.memSyncDomainMap = swapped_domains;
        break;
    default:
        return SC_UNSUPPORTED;
    }
    return SC_CALL(cuStreamSetAttribute, (CUstream)s, id, &v);
}

int drv_launch_fault(void *s, int how)
{
    uint32_t kind = (uint32_t)how;
    void *args[] = { &kind };
    return SC_CALL(cuLaunchKernel, drv_kernels()->fault, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}
