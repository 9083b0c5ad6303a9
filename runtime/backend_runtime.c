/*
 * backend_runtime.c - the runtime's primitive actions through the CUDA runtime
 * API (static cudart).  Kernels are loaded with cudaLibraryLoadData and launched
 * with cudaLaunchKernel, so the programs stay plain C.  Compiled once per
 * compile mode: in per-thread mode cuda_runtime_api.h maps the stream-taking
 * calls to their _ptsz/_ptds entry points.
 */
#include "backend.h"
#include "fatbin.h"
#include <cuda_runtime_api.h>
#include <stdio.h>

static cudaKernel_t k_gate, k_mark;

static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
static int launch_mark(void *s, void *slot, uint32_t token);

/* Runs each kernel once, so lazy loading never happens inside a case (see backend_driver.c). */
static cudaError_t warm_up(void)
{
    char *mem;
    cudaError_t rc = cudaMalloc((void **)&mem, 64);
    if (rc)
        return rc;
    if (!(rc = cudaMemset(mem, 1, 64)) && !(rc = (cudaError_t)launch_gate(NULL, mem, 1000000000u, mem + 32, 1)) &&
        !(rc = (cudaError_t)launch_mark(NULL, mem + 32, 1)))
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
                   (rc = cudaLibraryGetKernel(&k_mark, lib, "sc_mark")) != cudaSuccess) {
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

static void *builtin_stream(int which)
{
    switch (which) {
    case SC_LEGACY_STREAM: return cudaStreamLegacy;
    case SC_PER_THREAD_STREAM: return cudaStreamPerThread;
    default: return NULL;
    }
}

static int stream_create(void **s, int nonblocking)
{
    return cudaStreamCreateWithFlags((cudaStream_t *)s, nonblocking ? cudaStreamNonBlocking : cudaStreamDefault);
}
static int stream_destroy(void *s) { return cudaStreamDestroy((cudaStream_t)s); }
static int event_create(void **e) { return cudaEventCreateWithFlags((cudaEvent_t *)e, cudaEventDefault); }
static int event_destroy(void *e) { return cudaEventDestroy((cudaEvent_t)e); }

static int dev_alloc(void **p, size_t n) { return cudaMalloc(p, n); }
static int dev_free(void *p) { return cudaFree(p); }
static int host_alloc(void **p, size_t n) { return cudaHostAlloc(p, n, cudaHostAllocMapped | cudaHostAllocPortable); }
static int host_free(void *p) { return cudaFreeHost(p); }
static int host_dev_ptr(void **d, void *h) { return cudaHostGetDevicePointer(d, h, 0); }

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

static int memset_async(void *s, void *d, unsigned char v, size_t n) { return cudaMemsetAsync(d, v, n, (cudaStream_t)s); }
static int memset_sync(void *d, unsigned char v, size_t n) { return cudaMemset(d, v, n); }

static enum cudaMemcpyKind copy_kind(enum sc_copy kind)
{
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return cudaMemcpyHostToDevice;
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return cudaMemcpyDeviceToHost;
    case SC_D2D: break;
    }
    return cudaMemcpyDeviceToDevice;
}
static int memcpy_async(void *s, void *dst, const void *src, size_t n, enum sc_copy kind)
{
    return cudaMemcpyAsync(dst, src, n, copy_kind(kind), (cudaStream_t)s);
}
static int memcpy_sync(void *dst, const void *src, size_t n, enum sc_copy kind)
{
    return cudaMemcpy(dst, src, n, copy_kind(kind));
}

static int host_func(void *s, void (*fn)(void *), void *arg) { return cudaLaunchHostFunc((cudaStream_t)s, fn, arg); }

static void CUDART_CB callback_trampoline(cudaStream_t s, cudaError_t status, void *arg)
{
    (void)s;
    sc_callback_body(arg, (int)status);
}
static int callback(void *s, void *arg) { return cudaStreamAddCallback((cudaStream_t)s, callback_trampoline, arg, 0); }

static int event_record(void *e, void *s) { return cudaEventRecord((cudaEvent_t)e, (cudaStream_t)s); }
static int stream_wait_event(void *s, void *e) { return cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, 0); }
static int stream_sync(void *s) { return cudaStreamSynchronize((cudaStream_t)s); }
static int stream_query(void *s) { return cudaStreamQuery((cudaStream_t)s); }
static int event_sync(void *e) { return cudaEventSynchronize((cudaEvent_t)e); }
static int event_query(void *e) { return cudaEventQuery((cudaEvent_t)e); }
static int ctx_sync(void) { return cudaDeviceSynchronize(); }
static const char *error_name(int rc) { return cudaGetErrorName((cudaError_t)rc); }

int sc_runtime_version(void)
{
    int v = 0;
    cudaRuntimeGetVersion(&v);
    return v;
}

const sc_backend sc_runtime_backend = SC_BACKEND("runtime");
