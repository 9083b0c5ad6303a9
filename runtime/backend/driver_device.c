/*
 * driver_device.c - the devices of the driver API backend: the driver loaded
 * and initialised, a device opened (its primary context retained and made
 * current, the suite's kernels loaded and run once), the device current to a
 * thread, and the facts of the TAP header.
 */
#include "driver.h"
#include "fatbin.h"
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* The GPUs a program uses, opened on first use: device 0 at init, others when a case names them. */
struct gpu drv_gpus[SC_MAX_DEVICES];
_Thread_local int drv_cur; /* the device whose context this thread made current */

/*
 * Runs each kernel once.  With lazy module loading (the default since CUDA
 * 12.2) a kernel's first launch loads it, and loading may wait for work
 * pending in other streams: that false dependency must not land in a case.
 * The flag and slot are host memory mapped for the device, as a case's gates
 * and slots are: a stream wait takes no managed memory (Driver API, Stream
 * Memory Operations), which a layer may hand out for cuMemAlloc (nvshare does),
 * and the rules of device memory, not the start of every program, report that.
 * *what: the step that failed.
 */
CUresult drv_warm_up(const char **what)
{
    void *host = NULL;
    CUdeviceptr mem = 0;
    CUresult rc;
    *what = "cuMemHostAlloc";
    if ((rc = SC_CALL(cuMemHostAlloc, &host, 64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE)))
        return rc;
    if (host) /* a stand-in that answers success and does nothing gives none (selftest/loader) */
        memset(host, 1, 64);
    void *flag, *slot;
    uint32_t token = 1, sync = 0;
    void *none = NULL, *pdl_args[] = { &slot, &token, &sync, &none };
    /* the launches take the current context's kernels: a created context's too */
    if (!(rc = SC_CALL(cuMemHostGetDevicePointer, &mem, host, 0))) {
        flag = (void *)(uintptr_t)mem, slot = (void *)(uintptr_t)(mem + 32);
        if ((*what = "the gate kernel", !(rc = drv_launch_gate(NULL, flag, 1000000000u, slot, 1))) &&
            (*what = "the marking kernel", !(rc = drv_launch_mark(NULL, slot, 1))) &&
            (*what = "the stream wait (cuStreamWaitValue32)", !(rc = drv_wait_gate(NULL, flag, slot, 1))) &&
            (*what = "the PDL kernel", !(rc = SC_CALL(cuLaunchKernel, drv_kernels()->pdl, 1, 1, 1, 1, 1, 1, 0, NULL,
                                                      pdl_args, NULL)))) {
            int lrc; /* the context-independent kernel, in the current context: only library_kernel needs it */
            if (drv_library_loaded() && (lrc = drv_launch_library(NULL, slot, 1)))
                drv_library_failed(lrc);
            *what = "cuCtxSynchronize", rc = SC_CALL(cuCtxSynchronize);
        }
    } else {
        *what = "cuMemHostGetDevicePointer";
    }
    SC_CALL(cuMemFreeHost, host);
    return rc;
}

/* Retains device d's primary context, makes it current, loads and runs the kernels. */
static int open_device(int d, char *why, size_t n)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    struct gpu *g = &drv_gpus[d];
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
        int was = drv_cur;
        const char *what;
        drv_cur = d;
        if (d == 0)
            drv_library_load(); /* the context-independent kernel (library_kernel), which drv_warm_up runs */
        if ((rc = drv_warm_up(&what))) {
            SC_CALL(cuGetErrorName, rc, &name);
            snprintf(why, n, "the suite's kernels do not run on device %d: %s answered %s", d, what, name);
            drv_cur = was;
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

int drv_init(char *why, size_t whylen)
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
        } else if (rc == CUDA_ERROR_OUT_OF_MEMORY && !drv_gpus[0].ctx) {
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
int drv_device_count(int *n)
{
    char why[512];
    if (start(why, sizeof why) != SC_READY)
        return CUDA_ERROR_NOT_INITIALIZED;
    return SC_CALL(cuDeviceGetCount, n);
}

int drv_use_device(int d)
{
    char why[256];
    int rc;
    if (d < 0 || d >= SC_MAX_DEVICES)
        return CUDA_ERROR_INVALID_DEVICE;
    if ((rc = open_device(d, why, sizeof why)) == CUDA_SUCCESS)
        drv_cur = d;
    return rc;
}

int drv_thread_attach(void)
{
    drv_cur = 0;
    return SC_CALL(cuCtxSetCurrent, drv_gpus[0].ctx);
}

int drv_device_sync(int d)
{
    int was = drv_cur, rc;
    if ((rc = drv_use_device(d)))
        return rc;
    rc = SC_CALL(cuCtxSynchronize);
    drv_use_device(was);
    return rc;
}

int sc_driver_describe(struct sc_device_info *info)
{
    CUuuid u;
    memset(info, 0, sizeof *info);
    SC_CALL(cuDeviceGetName, info->name, sizeof info->name, drv_gpus[0].dev);
    if (SC_CALL(cuDeviceGetUuid, &u, drv_gpus[0].dev) == CUDA_SUCCESS) {
        const unsigned char *b = (const unsigned char *)u.bytes;
        snprintf(info->uuid, sizeof info->uuid,
                 "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2],
                 b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    }
    SC_CALL(cuDeviceGetAttribute, &info->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, drv_gpus[0].dev);
    SC_CALL(cuDeviceGetAttribute, &info->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, drv_gpus[0].dev);
    SC_CALL(cuDriverGetVersion, &info->driver_version);
    info->runtime_version = sc_runtime_version();
    sc_driver_lacking(info->lacking, sizeof info->lacking);
    sc_driver_provenance(info->entry_points, sizeof info->entry_points);
    return 0;
}

/* the GPU runs by itself: nothing to wait for */
int drv_settle(uint64_t max_ns) { return (void)max_ns, 1; }
int drv_quiescent(void) { return 0; } /* a GPU runs by itself: whether it is done is seen, never known */
