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

cudaKernel_t rt_k_gate, rt_k_mark, rt_k_fault, rt_k_pdl, rt_k_gate_open, rt_k_gate_close;

/* Runs each kernel once in the current context, so lazy loading never happens inside a case (see
 * driver_device.c): device 0's primary context at init, another device's at its first use, a context the driver
 * API made when it is made (runtime_contexts.c). */
cudaError_t rt_warm_up(void)
{
    char *mem;
    cudaError_t rc = cudaMalloc((void **)&mem, 64);
    if (rc)
        return rc;
    void *slot = mem + 32;
    uint32_t token = 1, sync = 0;
    void *none = NULL, *pdl_args[] = { &slot, &token, &sync, &none };
    if (!(rc = cudaMemset(mem, 1, 64)) && !(rc = (cudaError_t)rt_launch_gate(NULL, mem, 1000000000u, mem + 32, 1)) &&
        !(rc = (cudaError_t)rt_launch_mark(NULL, mem + 32, 1)) && !(rc = (cudaError_t)rt_wait_gate(NULL, mem, mem + 32, 1)) &&
        !(rc = cudaLaunchKernel((const void *)rt_k_pdl, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, pdl_args, 0, NULL)))
        rc = cudaDeviceSynchronize();
    cudaFree(mem);
    return rc;
}

int rt_init(char *why, size_t whylen)
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
                   (rc = cudaLibraryGetKernel(&rt_k_gate, lib, "sc_gate")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_mark, lib, "sc_mark")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_fault, lib, "sc_fault")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_pdl, lib, "sc_pdl")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_gate_open, lib, "sc_gate_open")) != cudaSuccess ||
                   (rc = cudaLibraryGetKernel(&rt_k_gate_close, lib, "sc_gate_close")) != cudaSuccess) {
            snprintf(reason, sizeof reason, "cannot load the suite's kernels: %s", cudaGetErrorName(rc));
        } else if ((rc = rt_warm_up()) != cudaSuccess) {
            snprintf(reason, sizeof reason, "the suite's kernels do not run: %s", cudaGetErrorName(rc));
        } else {
            state = SC_READY;
        }
    }
    snprintf(why, whylen, "%s", reason);
    return state;
}

int rt_thread_attach(void) { return cudaSetDevice(0); }

int rt_device_count(int *n) { return cudaGetDeviceCount(n); }

/* Makes dev current; the first time, runs the kernels there once (lazy loading, see warm_up). */
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
    if (!warmed[dev] && (rc = rt_warm_up()) == cudaSuccess)
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
