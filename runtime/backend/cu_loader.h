/*
 * cu_loader.h - the driver API, resolved at run time from libcuda.so.1.
 *
 * Test programs must start (and report a skip) on machines without a driver,
 * so nothing links libcuda.  Each entry point is looked up by the ABI name
 * that cuda.h's macros give it in this compilation unit: with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM defined, `cuMemcpyHtoDAsync` names
 * cuMemcpyHtoDAsync_v2_ptsz, exactly the symbol an application built in
 * per-thread mode calls.
 *
 * Stand-ins for libcuda.so.1 (hooks, remoting and translation layers) are what
 * the suite certifies, so a missing entry point is never a skip, but for one
 * capability:
 *  - REQUIRED entry points are what every program uses (initialisation, the
 *    kernels, streams, events, memory and the plain copies the runner itself
 *    makes).  A library without one of them fails every program, naming them.
 *  - OPTIONAL entry points serve some rules only.  One that is missing stays
 *    NULL; a call to it answers SC_LACKS_BASE - its index (backend.h), which
 *    the driver backend's error_name turns into "libcuda.so.1 lacks cuXxx",
 *    so the case that needed it fails, naming it.
 *  - The green-context entry points (cuGreenCtxCreate, ..., cuGreenCtxRecordEvent,
 *    cuGreenCtxWaitEvent, cuCtxFromGreenCtx, cuStreamGetGreenCtx) came with
 *    CUDA 12.4, and a legal older driver has none: like a device attribute, a
 *    capability.  A rule that needs them skips, naming the one missing
 *    (sc_rule.needs, runtime/suite/support.c); other rules never call them.
 *  - Conditional graph nodes (cuGraphConditionalHandleCreate, CUDA 12.3) are
 *    the same kind of capability: a point that adds one skips where the
 *    library lacks them (driver_graphs.c), as where the device refuses them;
 *    so is a capture into an existing graph (cuStreamBeginCaptureToGraph,
 *    CUDA 12.3).
 *  - Context-level events (cuCtxRecordEvent, cuCtxWaitEvent: CUDA 12.5) are
 *    one too: a driver that says it is older skips the point
 *    (driver_contexts.c); one that says 12.5 or later and lacks them fails.
 * Call sites read `SC_CALL(cuMemcpyHtoDAsync, ...)`, never drv.fn directly.
 */
#ifndef SC_CU_LOADER_H
#define SC_CU_LOADER_H
#include "backend.h"
#include <cuda.h>

#define SC_DRIVER_REQUIRED(X)                                                   \
    X(cuInit) X(cuDriverGetVersion) X(cuGetErrorName) X(cuDeviceGetCount)       \
    X(cuDeviceGet) X(cuDeviceGetName) X(cuDeviceGetUuid) X(cuDeviceGetAttribute) \
    X(cuDevicePrimaryCtxRetain) X(cuCtxSetCurrent) X(cuCtxSynchronize)          \
    X(cuCtxGetStreamPriorityRange)                                              \
    X(cuModuleLoadData) X(cuModuleGetFunction) X(cuLaunchKernel)               \
    X(cuStreamCreate) X(cuStreamDestroy) X(cuStreamSynchronize) X(cuStreamQuery) \
    X(cuStreamWaitEvent)                                                        \
    X(cuEventCreate) X(cuEventDestroy) X(cuEventRecord) X(cuEventQuery)         \
    X(cuEventSynchronize)                                                       \
    X(cuMemAlloc) X(cuMemFree) X(cuMemHostAlloc) X(cuMemFreeHost)               \
    X(cuMemHostGetDevicePointer) X(cuMemsetD8) X(cuMemsetD8Async)              \
    X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)                             \
    X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync)

#define SC_DRIVER_OPTIONAL(X)                                                   \
    X(cuStreamCreateWithPriority) X(cuStreamGetFlags) X(cuStreamGetPriority)    \
    X(cuStreamAddCallback) X(cuLaunchHostFunc) X(cuEventElapsedTime)            \
    X(cuMemAllocManaged) X(cuMemcpy) X(cuMemcpyAsync) X(cuMemcpy2D)             \
    X(cuMemcpy2DAsync) X(cuMemcpy3D) X(cuMemcpy3DAsync)                         \
    X(cuStreamWaitValue32) X(cuStreamWaitValue64)                               \
    X(cuStreamWriteValue32) X(cuStreamWriteValue64)                             \
    X(cuDeviceGetMemPool) X(cuMemPoolCreate) X(cuMemPoolDestroy)                \
    X(cuMemPoolSetAttribute) X(cuMemPoolGetAttribute) X(cuMemPoolTrimTo)        \
    X(cuMemAllocAsync) X(cuMemAllocFromPoolAsync) X(cuMemFreeAsync)             \
    X(cuGraphCreate) X(cuGraphAddKernelNode) X(cuGraphInstantiate)              \
    X(cuGraphExecKernelNodeSetParams) X(cuGraphLaunch) X(cuGraphExecDestroy)    \
    X(cuGraphDestroy) X(cuStreamBeginCapture) X(cuStreamEndCapture)             \
    X(cuStreamIsCapturing) X(cuThreadExchangeStreamCaptureMode)                 \
    X(cuStreamGetId) X(cuCtxPopCurrent) X(cuCtxPushCurrent) X(cuMemcpyPeerAsync) \
    X(cuMemHostRegister) X(cuMemHostUnregister) X(cuIpcGetEventHandle)          \
    X(cuIpcOpenEventHandle) X(cuIpcGetMemHandle) X(cuIpcOpenMemHandle)          \
    X(cuIpcCloseMemHandle) X(cuMemGetInfo)                                      \
    X(cuCtxCreate) X(cuCtxDestroy) X(cuCtxGetCurrent) X(cuStreamBatchMemOp)       \
    X(cuLaunchKernelEx)                                                         \
    X(cuGraphAddHostNode) X(cuGraphAddMemsetNode) X(cuGraphAddMemcpyNode)       \
    X(cuGraphAddEventRecordNode) X(cuGraphAddEventWaitNode)                     \
    X(cuGraphAddChildGraphNode) X(cuGraphAddDependencies) X(cuGraphExecUpdate)   \
    X(cuGraphInstantiateWithParams) X(cuEventRecordWithFlags)   \
    X(cuDevicePrimaryCtxRelease) X(cuDevicePrimaryCtxGetState)                 \
    X(cuMemPoolExportToShareableHandle) X(cuMemPoolImportFromShareableHandle)  \
    X(cuMemPoolSetAccess) X(cuMemPoolGetAccess) X(cuDeviceCanAccessPeer)        \
    X(cuGraphAddMemAllocNode) X(cuGraphAddMemFreeNode)                          \
    X(cuDeviceGetDevResource) X(cuDevSmResourceSplitByCount)                    \
    X(cuDevResourceGenerateDesc) X(cuGreenCtxCreate) X(cuGreenCtxDestroy)       \
    X(cuGreenCtxStreamCreate) X(cuMemPoolExportPointer) X(cuMemPoolImportPointer) \
    X(cuStreamGetCaptureInfo) X(cuStreamUpdateCaptureDependencies) X(cuMemcpyBatchAsync) \
    X(cuGraphConditionalHandleCreate) X(cuGraphAddNode) X(cuStreamBeginCaptureToGraph) \
    X(cuCtxRecordEvent) X(cuCtxWaitEvent) X(cuLibraryLoadData) X(cuLibraryGetKernel) \
    X(cuMemPrefetchAsync) X(cuGreenCtxRecordEvent) X(cuGreenCtxWaitEvent) X(cuCtxFromGreenCtx) \
    X(cuStreamGetGreenCtx) X(cuStreamSetAttribute) X(cuLaunchCooperativeKernel) X(cuGraphNodeSetEnabled) \
    X(cuGraphExecHostNodeSetParams) X(cuGraphExecMemsetNodeSetParams) X(cuGraphExecMemcpyNodeSetParams) \
    X(cuGraphExecEventRecordNodeSetEvent) X(cuGraphExecEventWaitNodeSetEvent) \
    X(cuGraphExecChildGraphNodeSetParams) X(cuStreamGetCtx) X(cuStreamGetAttribute) \
    X(cuStreamCopyAttributes) X(cuStreamAttachMemAsync) X(cuMemcpy3DBatchAsync)

#define SC_DRIVER_FUNCTIONS(X) SC_DRIVER_REQUIRED(X) SC_DRIVER_OPTIONAL(X)

/* One member per entry point; the member name is the macro-expanded name. */
#define SC_DRIVER_MEMBER(fn) __typeof__(fn) *fn;
struct sc_driver_api {
    SC_DRIVER_FUNCTIONS(SC_DRIVER_MEMBER)
};
#undef SC_DRIVER_MEMBER

/* Each entry point's index in the list, by its name before cuda.h's renaming: SC_ENTRY_cuInit, ... */
#define SC_DRIVER_INDEX(fn) SC_ENTRY_##fn,
enum { SC_DRIVER_FUNCTIONS(SC_DRIVER_INDEX) SC_DRIVER_ENTRIES };
#undef SC_DRIVER_INDEX
_Static_assert(SC_DRIVER_ENTRIES <= SC_LACKS_COUNT, "every entry point has a code for its absence");

extern struct sc_driver_api drv;

#define SC_STR2(x) #x
#define SC_STR(x) SC_STR2(x) /* expands cuda.h's renaming macros first */

/* Calls entry point fn, or answers the code that names it when libcuda.so.1 lacks it. */
#define SC_CALL(fn, ...) (drv.fn ? (int)drv.fn(__VA_ARGS__) : SC_LACKS_BASE - SC_ENTRY_##fn)

/*
 * Opens libcuda.so.1 and resolves every entry point.  Returns SC_READY (every
 * required entry point resolved; optional ones may be missing), SC_MISSING
 * (no library: the program skips) or SC_LACKING (required entry points
 * missing: why names them); why says what went wrong.
 */
int sc_driver_load(char *why, size_t whylen);

/* The optional entry points the library lacks, by ABI name, ", "-separated ("" for none). */
void sc_driver_lacking(char *out, size_t n);

/*
 * Which shared objects answered the entry points, as header lines ('\n'-separated, each shorter than
 * sc_tap_diag's limit; "" before sc_driver_load succeeded):
 *   entry points by dlsym: R of N: C1 PATH1 (version V, build-id H), C2 PATH2 (no build-id)
 *   entry points by cuGetProcAddress: R of N: ...
 *   driver library: libcuda.so.1 is PATH (version V, build-id H); LD_PRELOAD=VALUE or (unset)
 * "by dlsym" is what the driver backend calls: the pointers dlsym gave sc_driver_load, each traced
 * with dladdr to the file that maps it (links resolved), most answers first.  "by cuGetProcAddress"
 * asks libcuda.so.1's cuGetProcAddress_v2 (as dlsym answered it) for the same entry points, by their
 * names without _vN/_ptsz, with this compile mode's flag: the way the statically linked cudart of
 * the runtime API backend resolves its own.  It stands for what cudart gets; it is not cudart's own
 * table.  Where several libraries answered, lines "entry points by dlsym that PATH answered: cuX,
 * cuY" follow for each but the first.  The version is what follows ".so." in the file's name; the
 * build-id is its GNU build-id note.  A pointer that no shared object maps (a trampoline a hook made
 * at run time) counts as [no-shared-object]; past 16 libraries, the rest count as [other-libraries].
 */
void sc_driver_provenance(char *out, size_t n);

/* For a code SC_LACKS(rc): "libcuda.so.1 lacks <ABI name> (...)"; NULL for any other code. */
const char *sc_driver_lacks_message(int rc);

#endif
