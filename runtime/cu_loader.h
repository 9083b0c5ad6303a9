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
    X(cuCtxGetStreamPriorityRange)                                              \
    X(cuModuleLoadData) X(cuModuleGetFunction) X(cuLaunchKernel)               \
    X(cuStreamCreate) X(cuStreamCreateWithPriority) X(cuStreamDestroy)          \
    X(cuStreamGetFlags) X(cuStreamGetPriority)                                  \
    X(cuStreamSynchronize) X(cuStreamQuery)                                     \
    X(cuStreamWaitEvent) X(cuStreamAddCallback) X(cuLaunchHostFunc)             \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery)         \
    X(cuEventSynchronize) X(cuEventElapsedTime)                                 \
    X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemAllocManaged)           \
    X(cuMemFreeHost) X(cuMemHostGetDevicePointer) X(cuMemsetD8)                 \
    X(cuMemsetD8Async) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)          \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)              \
    X(cuMemcpy) X(cuMemcpyAsync) X(cuMemcpy2D) X(cuMemcpy2DAsync)               \
    X(cuMemcpy3D) X(cuMemcpy3DAsync)                                            \
    X(cuStreamWaitValue32) X(cuStreamWaitValue64)                               \
    X(cuStreamWriteValue32) X(cuStreamWriteValue64)                             \
    X(cuDeviceGetMemPool) X(cuMemPoolCreate) X(cuMemPoolDestroy)                \
    X(cuMemPoolSetAttribute) X(cuMemPoolGetAttribute) X(cuMemPoolTrimTo)        \
    X(cuMemAllocAsync) X(cuMemAllocFromPoolAsync) X(cuMemFreeAsync)             \
    X(cuGraphCreate) X(cuGraphAddKernelNode) X(cuGraphInstantiate)              \
    X(cuGraphExecKernelNodeSetParams) X(cuGraphLaunch) X(cuGraphExecDestroy)    \
    X(cuGraphDestroy) X(cuStreamBeginCapture) X(cuStreamEndCapture)             \
    X(cuStreamIsCapturing) X(cuThreadExchangeStreamCaptureMode)               \
    X(cuStreamGetId) X(cuCtxPopCurrent) X(cuCtxPushCurrent) X(cuMemcpyPeerAsync)     \
    X(cuMemHostRegister) X(cuMemHostUnregister) X(cuIpcGetEventHandle)        \
    X(cuIpcOpenEventHandle) X(cuIpcGetMemHandle) X(cuIpcOpenMemHandle)        \
    X(cuIpcCloseMemHandle)

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
