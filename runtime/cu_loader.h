/*
 * cu_loader.h - the driver API, resolved at run time from libcuda.so.1.
 *
 * Test programs must start (and report a skip) on machines without a driver,
 * so nothing links libcuda.  Each entry point is looked up by the ABI name
 * that cuda.h's macros give it in this compilation unit: with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM defined, `cuMemcpyHtoDAsync` names
 * cuMemcpyHtoDAsync_v2_ptsz, exactly the symbol an application built in
 * per-thread mode calls.  Call sites read `drv.cuMemcpyHtoDAsync(...)`.
 */
#ifndef SC_CU_LOADER_H
#define SC_CU_LOADER_H
#include <cuda.h>

#define SC_DRIVER_FUNCTIONS(X)                                                  \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGetCount)       \
    X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetUuid) X(cuDeviceGetAttribute) \
    X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize)          \
    X(cuModuleLoadData) X(cuModuleGetFunction) X(cuLaunchKernel)               \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery) \
    X(cuStreamWaitEvent) X(cuStreamAddCallback) X(cuLaunchHostFunc)             \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery)         \
    X(cuEventSynchronize) X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc)          \
    X(cuMemFreeHost) X(cuMemHostGetDevicePointer) X(cuMemsetD8)                 \
    X(cuMemsetD8Async) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)          \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)

/* One member per entry point; the member name is the macro-expanded name. */
#define SC_DRIVER_MEMBER(fn) __typeof__(fn) *fn;
struct sc_driver_api {
    SC_DRIVER_FUNCTIONS(SC_DRIVER_MEMBER)
};
#undef SC_DRIVER_MEMBER

extern struct sc_driver_api drv;

/*
 * Opens libcuda.so.1 and resolves every entry point.  Returns 0 on success;
 * otherwise writes the reason (library missing, symbol missing) to why.
 */
int sc_driver_load(char *why, unsigned long whylen);

#endif
