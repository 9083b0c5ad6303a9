/*
 * runtime_device.c - the devices of the runtime API backend: cudart
 * initialised on device 0, the suite's kernels loaded (cudaLibraryLoadData)
 * and run once on each device a thread makes current, and the version of the
 * linked cudart.
 */
#include "runtime.h"
#include "fatbin.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

cudaKernel_t rt_k_gate, rt_k_mark, rt_k_fault, rt_k_pdl, rt_k_gate_open, rt_k_gate_close;

/* Runs each kernel once in the current context, so lazy loading never happens inside a case; in host memory
 * mapped for the device, as a case's gates (see driver_device.c): device 0's primary context at init, another
 * device's at its first use, a context the driver API made when it is made (runtime_contexts.c).  *what: the
 * step that failed. */
cudaError_t rt_warm_up(const char **what)
{
    char *host, *mem = NULL;
    cudaError_t rc;
    *what = "cudaHostAlloc";
    if ((rc = cudaHostAlloc((void **)&host, 64, cudaHostAllocMapped | cudaHostAllocPortable)))
        return rc;
    if (host) /* a stand-in that answers success and does nothing gives none (selftest/loader) */
        memset(host, 1, 64);
    void *slot;
    uint32_t token = 1, sync = 0;
    void *none = NULL, *pdl_args[] = { &slot, &token, &sync, &none };
    if (!(rc = cudaHostGetDevicePointer((void **)&mem, host, 0))) {
        slot = mem + 32;
        if ((*what = "the gate kernel", !(rc = (cudaError_t)rt_launch_gate(NULL, mem, 1000000000u, slot, 1))) &&
            (*what = "the marking kernel", !(rc = (cudaError_t)rt_launch_mark(NULL, slot, 1))) &&
            (*what = "the stream wait (cuStreamWaitValue32)", !(rc = (cudaError_t)rt_wait_gate(NULL, mem, slot, 1))) &&
            (*what = "the PDL kernel", !(rc = cudaLaunchKernel((const void *)rt_k_pdl, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 },
                                                               pdl_args, 0, NULL))))
            *what = "cudaDeviceSynchronize", rc = cudaDeviceSynchronize();
    } else {
        *what = "cudaHostGetDevicePointer";
    }
    cudaFreeHost(host);
    return rc;
}

int rt_init(char *why, size_t whylen)
{
    static int state = -1;
    static char reason[256];
    if (state < 0) {
        int n = 0;
        cudaLibrary_t lib;
        const char *what = "";
        cudaError_t rc = cudaGetDeviceCount(&n);
        state = SC_BROKEN;
        if (rc == cudaErrorNoDevice || rc == cudaErrorInsufficientDriver || rc == cudaErrorStubLibrary) {
            snprintf(reason, sizeof reason, "runtime API sees no usable device (%s)", cudaGetErrorName(rc));
            state = SC_MISSING;
        } else if (rc != cudaSuccess || (rc = cudaSetDevice(0)) != cudaSuccess || (rc = cudaFree(0)) != cudaSuccess) {
            snprintf(reason, sizeof reason, "runtime API cannot open device 0: %s", cudaGetErrorName(rc));
        } else if ((rc = cudaLibraryLoadData(&lib, sc_fatbin, NULL, NULL, 0, NULL, NULL, 0)) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_gate, lib, "sc_gate")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_mark, lib, "sc_mark")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_fault, lib, "sc_fault")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_pdl, lib, "sc_pdl")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_gate_open, lib, "sc_gate_open")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_gate_close, lib, "sc_gate_close")) != cudaSuccess) {
            snprintf(reason, sizeof reason, "cannot load the suite's kernels: %s", cudaGetErrorName(rc));
        } else if ((rc = rt_warm_up(&what)) != cudaSuccess) {
            snprintf(reason, sizeof reason, "the suite's kernels do not run: %s answered %s", what, cudaGetErrorName(rc));
        } else {
            state = SC_READY;
        }
    }
    snprintf(why, whylen, "%s", reason);
    return state;
}

int rt_thread_attach(void) { return cudaSetDevice(0); }

int rt_device_count(int *n) { return cudaGetDeviceCount(n); }

/* Makes dev current; the first time, runs the kernels there once (lazy loading, see rt_warm_up). */
int rt_use_device(int dev)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static int warmed[SC_MAX_DEVICES] = { 1 }; /* init warmed device 0 */
    int rc;
    if (dev < 0 || dev >= SC_MAX_DEVICES)
        return cudaErrorInvalidDevice;
    if ((rc = cudaSetDevice(dev)))
        return rc;
    pthread_mutex_lock(&mu);
    const char *what;
    if (!warmed[dev] && (rc = rt_warm_up(&what)) == cudaSuccess)
        warmed[dev] = 1;
    pthread_mutex_unlock(&mu);
    return rc;
}

int rt_device_sync(int dev)
{
    int was = 0, rc;
    cudaGetDevice(&was);
    if ((rc = cudaSetDevice(dev)))
        return rc;
    rc = cudaDeviceSynchronize();
    cudaSetDevice(was);
    return rc;
}

int sc_runtime_version(void)
{
    int v = 0;
    cudaRuntimeGetVersion(&v);
    return v;
}

/* the GPU runs by itself: nothing to wait for */
int rt_settle(uint64_t max_ns) { return (void)max_ns, 1; }
int rt_quiescent(void) { return 0; } /* a GPU runs by itself: whether it is done is seen, never known */
