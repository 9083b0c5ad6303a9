/*
 * backend_driver.c - the runtime's primitive actions through the driver API.
 *
 * Compiled once per compile mode (see cu_loader.h), so in per-thread mode every
 * stream-taking call below resolves to its _ptsz/_ptds entry point.
 */
#include "backend.h"
#include "cu_loader.h"
#include "fatbin.h"
#include <stdio.h>
#include <string.h>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
const char sc_compile_mode[] = "per-thread";
#else
const char sc_compile_mode[] = "legacy";
#endif

static CUdevice device;
static CUcontext context;
static CUfunction fn_gate, fn_mark;

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
static int launch_mark(void *s, void *slot, uint32_t token);

/*
 * Runs each kernel once.  With lazy module loading (the default since CUDA
 * 12.2) a kernel's first launch loads it, and loading may wait for work
 * pending in other streams: that false dependency must not land in a case.
 */
static CUresult warm_up(void)
{
    CUdeviceptr mem;
    CUresult rc = drv.cuMemAlloc(&mem, 64);
    void *flag = (void *)(uintptr_t)mem, *slot = (void *)(uintptr_t)(mem + 32);
    if (rc)
        return rc;
    if (!(rc = drv.cuMemsetD8(mem, 1, 64)) && !(rc = launch_gate(NULL, flag, 1000000000u, slot, 1)) &&
        !(rc = launch_mark(NULL, slot, 1)))
        rc = drv.cuCtxSynchronize();
    drv.cuMemFree(mem);
    return rc;
}

static int init(char *why, size_t whylen)
{
    static int state = -1; /* shared by every case of the process */
    static char reason[256];
    if (state >= 0) {
        snprintf(why, whylen, "%s", reason);
        return state;
    }
    state = SC_BROKEN;
    if (sc_driver_load(reason, sizeof reason) != 0) {
        state = SC_MISSING;
    } else {
        CUresult rc = drv.cuInit(0);
        const char *name = "?";
        if (rc != CUDA_SUCCESS) {
            drv.cuGetErrorName(rc, &name);
            snprintf(reason, sizeof reason, "%s (cuInit: %s)",
                     rc == CUDA_ERROR_NO_DEVICE ? "no CUDA device" : "no usable CUDA driver", name);
            if (rc == CUDA_ERROR_NO_DEVICE || rc == CUDA_ERROR_STUB_LIBRARY)
                state = SC_MISSING;
        } else if ((rc = drv.cuDeviceGet(&device, 0)) || (rc = drv.cuDevicePrimaryCtxRetain(&context, device)) ||
                   (rc = drv.cuCtxSetCurrent(context))) {
            drv.cuGetErrorName(rc, &name);
            snprintf(reason, sizeof reason, "cannot open device 0: %s", name);
        } else {
            CUmodule module;
            if ((rc = drv.cuModuleLoadData(&module, sc_fatbin)) ||
                (rc = drv.cuModuleGetFunction(&fn_gate, module, "sc_gate")) ||
                (rc = drv.cuModuleGetFunction(&fn_mark, module, "sc_mark"))) {
                drv.cuGetErrorName(rc, &name);
                snprintf(reason, sizeof reason, "cannot load the suite's kernels: %s", name);
            } else if ((rc = warm_up())) {
                drv.cuGetErrorName(rc, &name);
                snprintf(reason, sizeof reason, "the suite's kernels do not run: %s", name);
            } else {
                state = SC_READY;
                reason[0] = '\0';
            }
        }
    }
    snprintf(why, whylen, "%s", reason);
    return state;
}

static int thread_attach(void) { return drv.cuCtxSetCurrent(context); }

static void *builtin_stream(int which)
{
    switch (which) {
    case SC_LEGACY_STREAM: return CU_STREAM_LEGACY;
    case SC_PER_THREAD_STREAM: return CU_STREAM_PER_THREAD;
    default: return NULL; /* SC_NULL_STREAM: the handle 0 */
    }
}

static int stream_create(void **s, int nonblocking)
{
    return drv.cuStreamCreate((CUstream *)s, nonblocking ? CU_STREAM_NON_BLOCKING : CU_STREAM_DEFAULT);
}
static int stream_destroy(void *s) { return drv.cuStreamDestroy((CUstream)s); }
static int event_create(void **e) { return drv.cuEventCreate((CUevent *)e, CU_EVENT_DEFAULT); }
static int event_destroy(void *e) { return drv.cuEventDestroy((CUevent)e); }

static int dev_alloc(void **p, size_t n)
{
    CUdeviceptr d = 0;
    int rc = drv.cuMemAlloc(&d, n);
    *p = (void *)(uintptr_t)d;
    return rc;
}
static int dev_free(void *p) { return drv.cuMemFree((CUdeviceptr)(uintptr_t)p); }
static int host_alloc(void **p, size_t n)
{
    return drv.cuMemHostAlloc(p, n, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
}
static int host_free(void *p) { return drv.cuMemFreeHost(p); }
static int host_dev_ptr(void **d, void *h)
{
    CUdeviceptr dp = 0;
    int rc = drv.cuMemHostGetDevicePointer(&dp, h, 0);
    *d = (void *)(uintptr_t)dp;
    return rc;
}

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    void *args[] = { &flag, &max_ns, &slot, &token };
    return drv.cuLaunchKernel(fn_gate, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}
static int launch_mark(void *s, void *slot, uint32_t token)
{
    void *args[] = { &slot, &token };
    return drv.cuLaunchKernel(fn_mark, 1, 1, 1, 1, 1, 1, 0, (CUstream)s, args, NULL);
}

#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

static int memset_async(void *s, void *d, unsigned char v, size_t n)
{
    return drv.cuMemsetD8Async(DPTR(d), v, n, (CUstream)s);
}
static int memset_sync(void *d, unsigned char v, size_t n) { return drv.cuMemsetD8(DPTR(d), v, n); }

static int memcpy_async(void *s, void *dst, const void *src, size_t n, enum sc_copy kind)
{
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return drv.cuMemcpyHtoDAsync(DPTR(dst), src, n, (CUstream)s);
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return drv.cuMemcpyDtoHAsync(dst, DPTR(src), n, (CUstream)s);
    case SC_D2D: return drv.cuMemcpyDtoDAsync(DPTR(dst), DPTR(src), n, (CUstream)s);
    }
    return CUDA_ERROR_INVALID_VALUE;
}
static int memcpy_sync(void *dst, const void *src, size_t n, enum sc_copy kind)
{
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return drv.cuMemcpyHtoD(DPTR(dst), src, n);
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return drv.cuMemcpyDtoH(dst, DPTR(src), n);
    case SC_D2D: return drv.cuMemcpyDtoD(DPTR(dst), DPTR(src), n);
    }
    return CUDA_ERROR_INVALID_VALUE;
}

static int host_func(void *s, void (*fn)(void *), void *arg) { return drv.cuLaunchHostFunc((CUstream)s, fn, arg); }

static void CUDA_CB callback_trampoline(CUstream s, CUresult status, void *arg)
{
    (void)s;
    sc_callback_body(arg, (int)status);
}
static int callback(void *s, void *arg) { return drv.cuStreamAddCallback((CUstream)s, callback_trampoline, arg, 0); }

static int event_record(void *e, void *s) { return drv.cuEventRecord((CUevent)e, (CUstream)s); }
static int stream_wait_event(void *s, void *e) { return drv.cuStreamWaitEvent((CUstream)s, (CUevent)e, 0); }
static int stream_sync(void *s) { return drv.cuStreamSynchronize((CUstream)s); }
static int stream_query(void *s) { return drv.cuStreamQuery((CUstream)s); }
static int event_sync(void *e) { return drv.cuEventSynchronize((CUevent)e); }
static int event_query(void *e) { return drv.cuEventQuery((CUevent)e); }
static int ctx_sync(void) { return drv.cuCtxSynchronize(); }

static const char *error_name(int rc)
{
    const char *name = NULL;
    if (!drv.cuGetErrorName || drv.cuGetErrorName((CUresult)rc, &name) != CUDA_SUCCESS || !name)
        return "unknown CUresult";
    return name;
}

int sc_driver_describe(struct sc_device_info *info)
{
    CUuuid u;
    memset(info, 0, sizeof *info);
    drv.cuDeviceGetName(info->name, sizeof info->name, device);
    if (drv.cuDeviceGetUuid(&u, device) == CUDA_SUCCESS) {
        const unsigned char *b = (const unsigned char *)u.bytes;
        snprintf(info->uuid, sizeof info->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    }
    drv.cuDeviceGetAttribute(&info->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device);
    drv.cuDeviceGetAttribute(&info->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device);
    drv.cuDriverGetVersion(&info->driver_version);
    info->runtime_version = sc_runtime_version();
    return 0;
}

const sc_backend sc_driver_backend = SC_BACKEND("driver");
