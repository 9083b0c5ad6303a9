/*
 * backend.h - what an API under test must provide.
 *
 * Every program runs once through the driver API and once through the runtime
 * API.  A backend maps the runtime's few primitive actions onto one API and
 * calls nothing else, so a driver case never touches cudart and a runtime case
 * never calls cu* directly (only cudart itself does).  Handles are opaque
 * pointers; results are the API's own codes (0 is success, 600 is not-ready
 * in both APIs).  An action the API does not have (stream memory operations
 * in the runtime API) or the device cannot do returns SC_UNSUPPORTED.
 */
#ifndef SC_BACKEND_H
#define SC_BACKEND_H
#include <stddef.h>
#include <stdint.h>
#include "streamcts.h"

#define SC_NOT_READY 600      /* CUDA_ERROR_NOT_READY == cudaErrorNotReady      */
#define SC_NOT_SUPPORTED 801  /* CUDA_ERROR_NOT_SUPPORTED == cudaErrorNotSupported */
#define SC_UNSUPPORTED (-100) /* never a CUDA code: the point is skipped        */
#define SC_IPC_HANDLE_BYTES 64 /* CU_IPC_HANDLE_SIZE                              */

/*
 * An optional driver entry point that libcuda.so.1 lacks (cu_loader.h): a call
 * to it answers SC_LACKS_BASE minus the entry point's index, never a CUDA code,
 * and error_name names the entry point.  Such an answer is a failure of the
 * case, never the answer a rule asks about.
 */
#define SC_LACKS_BASE (-1000)
#define SC_LACKS_COUNT 200
#define SC_LACKS(rc) ((rc) <= SC_LACKS_BASE && (rc) > SC_LACKS_BASE - SC_LACKS_COUNT)

/* init's answers; SC_BUSY: the device has no room for another context now (creating it answered
 * CUDA_ERROR_OUT_OF_MEMORY while other processes hold theirs), not remembered: init may be called again;
 * SC_LACKING: the driver library lacks entry points every program needs (a failure, never a skip) */
enum { SC_READY = 0, SC_MISSING = 1, SC_BROKEN = 2, SC_BUSY = 3, SC_LACKING = 4 };

/* cuStreamIsCapturing's answer, normalised. */
enum { SC_CAPTURE_NONE = 0, SC_CAPTURE_ACTIVE, SC_CAPTURE_INVALIDATED };

/* The compile mode the backends of this binary were built in. */
extern const char sc_compile_mode[]; /* "legacy" or "per-thread" */
/* What the backends call: "cuda" (libcuda and cudart), or "mock" (selftest/mock); a host runs only its own kind. */
extern const char sc_backend_kind[];
/* How many bytes every copy and memset moves, every buffer of a case holds and an allocation takes, and what
 * a pool trimmed to one allocation keeps: 4 MiB on a GPU (a copy long enough to be seen pending, a whole
 * number of 3D slices, SC_ROW_BYTES x SC_3D_ROWS); the mock, whose copies are memcpy on the host and held
 * only by its gates, moves 256 KiB (one slice), a sixteenth of the memory its programs fill and check. */
extern const size_t sc_copy_bytes;

/* A stream callback's body: the caller's function, called with its argument and the stream's status. */
struct sc_callback {
    void (*body)(void *arg, int status);
    void *arg;
};

/* one node of a graph built by hand (kind: enum sc_node_kind; 0: a child graph node). */
struct sc_node_params {
    int kind;
    void *flag, *slot;      /* gate and kernel nodes: sc_gate(flag, max_ns, slot, token), sc_mark(slot, token) */
    uint64_t max_ns;
    uint32_t token;
    void (*fn)(void *);     /* host node */
    void *arg;
    void *dst, *src;        /* memset node: dst; memcpy node: device to device */
    size_t bytes;
    unsigned char value;    /* memset node: the byte */
    void *event;            /* record and wait nodes */
    void *child;            /* child graph node: a graph graph_new made (cloned by the call) */
    /* SC_NODE_COND: a conditional node (cuGraphConditionalHandleCreate, cuGraphAddNode) of cond_type with
     * cond_size bodies, body k holding a child graph node of child (k = 0) or child2 (k = 1).  Its handle
     * has the default cond_default, applied at each launch where cond_assign (CU_GRAPH_COND_ASSIGN_DEFAULT).
     * cond_set >= 0: a kernel node (sc_cond_set) sets the condition to cond_set before the node (an edge
     * to it; *node is the conditional node).  cond_tail: after the child of body 0, a kernel node that sets
     * the condition to 0 (SC_COND_TAIL_CLEAR), or counts the body's runs in slot and sets 0 on every
     * cond_trips-th (SC_COND_TAIL_COUNT).  A backend without conditional nodes answers SC_UNSUPPORTED. */
    int cond_type;          /* SC_COND_TYPE_IF, _WHILE, _SWITCH (CUgraphConditionalNodeType's numbers) */
    int cond_size;
    unsigned cond_default;
    int cond_assign;
    int cond_set;
    int cond_tail;
    unsigned cond_trips;
    void *child2;
    /* SC_NODE_DEVLAUNCH: a kernel node (sc_dl_launch of kernels/streamcts_devlaunch.cu) that launches the graph
     * child (instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH and uploaded by the call) from the device
     * in dl_mode (enum sc_dl_mode), its launch's code in the slot's arg; then publishes slot and token as
     * sc_mark does.  A backend without device graph launch answers SC_UNSUPPORTED. */
    int dl_mode;
};
enum { SC_COND_TYPE_IF = 0, SC_COND_TYPE_WHILE = 1, SC_COND_TYPE_SWITCH = 2 };
enum { SC_COND_TAIL_NONE = 0, SC_COND_TAIL_CLEAR, SC_COND_TAIL_COUNT };

typedef struct sc_backend {
    const char *name; /* "driver" or "runtime" */

    /* SC_READY, or SC_MISSING (no driver or device: skip), SC_BROKEN, SC_BUSY or SC_LACKING; why says which. */
    int (*init)(char *why, size_t whylen);
    int (*thread_attach)(void); /* make device 0 current in this thread */
    int (*device_count)(int *n);
    int (*use_device)(int dev); /* make device dev current in this thread (opened on first use) */

    void *(*builtin_stream)(int which); /* SC_LEGACY_STREAM, ... -> handle */
    /* prio_set: create with cuStreamCreateWithPriority(prio) */
    int (*stream_create)(void **s, int nonblocking, int prio_set, int prio);
    int (*stream_destroy)(void *s);
    int (*priority_range)(int *least, int *greatest);
    int (*stream_get_flags)(void *s, int *nonblocking);
    int (*stream_get_priority)(void *s, int *prio);
    int (*stream_create_invalid)(void); /* undefined flag bits; destroys what it got */
    int (*event_create)(void **e, unsigned flags); /* SC_EV_* */
    int (*event_destroy)(void *e);

    int (*dev_alloc)(void **dptr, size_t n);
    int (*dev_free)(void *dptr);
    int (*host_alloc)(void **hptr, size_t n); /* pinned, device-mapped, portable */
    int (*host_free)(void *hptr);
    int (*host_dev_ptr)(void **dptr, void *hptr);
    int (*managed_alloc)(void **ptr, size_t n);

    int (*launch_gate)(void *s, void *flag_dev, uint64_t max_ns, void *slot_dev, uint32_t token);
    int (*launch_mark)(void *s, void *slot_dev, uint32_t token);
    /* the gate held by a stream wait on flag_dev (>= 1) between sc_gate_open and sc_gate_close, with
     * launch_gate's slot; no device-side deadline (STREAMCTS_GATE=wait) */
    int (*wait_gate)(void *s, void *flag_dev, void *slot_dev, uint32_t token);
    int (*launch_fault)(void *s, int how); /* enum sc_fault_kind */
    int (*memset_async)(void *s, void *dptr, unsigned char v, size_t n);
    int (*memset_sync)(void *dptr, unsigned char v, size_t n);
    /* kind: enum sc_copy with SC_COPY_2D/3D; 2D and 3D copies are rows of 4 KiB */
    int (*memcpy_async)(void *s, void *dst, const void *src, size_t n, unsigned kind);
    int (*memcpy_sync)(void *dst, const void *src, size_t n, unsigned kind);
    int (*host_func)(void *s, void (*fn)(void *), void *arg);
    /* Adds a stream callback that calls cb->body(cb->arg, status); *cb must live until it ran. */
    int (*callback)(void *s, const struct sc_callback *cb);
    int (*event_record)(void *e, void *s);
    int (*stream_wait_event)(void *s, void *e, unsigned flags);
    int (*stream_sync)(void *s);
    int (*stream_query)(void *s);
    int (*event_sync)(void *e);
    int (*event_query)(void *e);
    int (*event_elapsed)(float *ms, void *start, void *end);
    int (*ctx_sync)(void);

    /* stream memory operations on a host-mapped word (bits: 32 or 64) */
    int (*wait_value)(void *s, void *addr_dev, uint64_t value, int cond, int bits);
    int (*write_value)(void *s, void *addr_dev, uint64_t value, unsigned flags, int bits);

    /* the stream-ordered allocator; pool NULL is the device's current pool */
    int (*default_pool)(void **pool);
    int (*pool_create)(void **pool, unsigned flags); /* SC_POOL_* */
    int (*pool_destroy)(void *pool);
    int (*pool_reserved)(void *pool, uint64_t *bytes);
    int (*pool_trim)(void *pool);
    int (*alloc_async)(void **ptr, size_t n, void *pool, void *s);
    int (*free_async)(void *ptr, void *s);

    /* graphs of one kernel node (sc_gate or sc_mark), whose arguments (the
     * kernel's, as for cuLaunchKernel) are set at every launch */
    int (*graph_create)(void **graph, int gate);
    int (*graph_launch)(void *graph, void *s, void **args);
    int (*graph_destroy)(void *graph);

    /* graphs built by hand.  graph_new makes an empty graph (cuGraphCreate) that graph_destroy
     * destroys; node_add adds one node without dependencies, edge_add one edge (from, to: nodes node_add
     * gave); graph_instantiate makes its executable graph, which graph_replay launches (upload: and uploads it
     * into stream s, cuGraphInstantiateWithParams); exec_update gives
     * it the node parameters of the topologically identical graph `from` (cuGraphExecUpdate);
     * exec_destroy destroys it (cuGraphExecDestroy), whatever launch of it is pending. */
    int (*graph_new)(void **graph);
    int (*node_add)(void *graph, const struct sc_node_params *np, void **node);
    int (*edge_add)(void *graph, void *from, void *to);
    int (*graph_instantiate)(void *graph, int upload, void *s); /* upload: CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD into s */
    int (*exec_update)(void *graph, void *from);
    int (*exec_destroy)(void *graph);
    /* executable graph editing: node (a node node_add gave) of graph's executable graph disabled or enabled
     * (cuGraphNodeSetEnabled), or given np, parameters of its kind, as node_add takes them
     * (cuGraphExecKernelNodeSetParams, ...MemsetNode..., ...MemcpyNode..., ...HostNode..., cuGraphExecEventRecord/
     * WaitNodeSetEvent, cuGraphExecChildGraphNodeSetParams of np->child); later launches only */
    int (*node_enable)(void *graph, void *node, int enable);
    int (*exec_node_set)(void *graph, void *node, const struct sc_node_params *np);

    /* stream capture */
    int (*capture_begin)(void *s, int mode); /* enum sc_capture_mode */
    int (*capture_end)(void *s);             /* the graph is destroyed at once */
    int (*capture_status)(void *s, int *status);
    /* ends the capture of s and keeps its graph, instantiated: *graph is a graph graph_destroy destroys */
    int (*capture_keep)(void *s, void **graph);
    int (*graph_replay)(void *graph, void *s); /* cuGraphLaunch of a graph capture_keep made */
    /* the calling thread's capture interaction mode becomes relaxed (the observer's) */
    int (*thread_capture_relaxed)(void);

    /* host threads, contexts, several devices */
    int (*stream_id)(void *s, uint64_t *id);
    int (*ctx_action)(int action); /* enum sc_ctx_action; the runtime API has none */
    int (*memcpy_peer)(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n);
    int (*device_sync)(int dev);
    /* the calling thread's last error: cudaGetLastError (reset) or cudaPeekAtLastError; the driver API has none */
    int (*last_error)(int reset);

    /* several processes: host memory shared between them, and IPC handles
     * (64 opaque bytes, as CUipcEventHandle and CUipcMemHandle) */
    int (*host_register)(void *hptr, size_t n); /* page-locked, device-mapped, portable */
    int (*host_unregister)(void *hptr);
    int (*ipc_event_handle)(void *e, void *handle);
    int (*ipc_event_open)(void **e, const void *handle);
    int (*ipc_mem_handle)(void *dptr, void *handle);
    int (*ipc_mem_open)(void **dptr, const void *handle);
    int (*ipc_mem_close)(void *dptr);

    /* programmatic dependent launch (pdl): sc_pdl launched with programmatic stream serialization;
     * sync: it waits for its dependencies (cudaGridDependencySynchronize) before its token;
     * primary_token (device address, or NULL): the token word of its primary's slot, which it reads
     * (after the wait) into its slot's arg; SC_UNSUPPORTED below compute capability 9.0 */
    int (*launch_pdl)(void *s, void *slot_dev, uint32_t token, int sync, const void *primary_token);

    int (*code)(enum sc_code c); /* the API's number for a result code */
    const char *(*error_name)(int rc);

    /* contexts made on device 0 (cuCtxCreate); the calling thread's current context is
     * left as it was.  ctx_enter: SC_CTX_PUSH_TO or SC_CTX_SET_TO makes one current. */
    int (*ctx_create)(void **ctx);
    int (*ctx_destroy)(void *ctx);
    int (*ctx_enter)(void *ctx, int action);
    /* context-level events (CUDA 12.5) of the calling thread's current context: cuCtxRecordEvent captures in e all
     * its work at the time of the call, cuCtxWaitEvent makes all its later work wait for e's (SC_UNSUPPORTED where
     * the driver is older than 12.5, and in the runtime API's backend, which has neither) */
    int (*ctx_record_event)(void *e);
    int (*ctx_wait_event)(void *e);
    /* launch_mark as a context-independent kernel: cuLibraryGetKernel's CUkernel of the suite's fatbin launched by
     * cuLaunchKernel, which takes its context from s (the current one for the NULL stream); the runtime API's
     * backend answers SC_UNSUPPORTED (its every kernel is a cudaKernel_t already) */
    int (*launch_library)(void *s, void *slot_dev, uint32_t token);
    /* one cuStreamBatchMemOp of a GEQ wait and a write, in that order (bits: 32 or 64; flags SC_BATCH_BARRIER: a
     * system-wide memory barrier between them) */
    int (*batch_wait_write)(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits, unsigned flags);
    /* one cuStreamBatchMemOp of a memory barrier (scope: SC_BARRIER_SYS or SC_BARRIER_GPU) and a write, in that order */
    int (*batch_barrier_write)(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits);
    /* cuMemPrefetchAsync of n bytes of managed memory at p in stream s, to the host (SC_PREFETCH_HOST) or the
     * current device (SC_PREFETCH_DEVICE); SC_UNSUPPORTED where the device lacks concurrent managed access */
    int (*prefetch)(void *s, void *p, size_t n, unsigned to);
    /* ctx_create with flags (SC_CTX_*); cuDevicePrimaryCtxRetain of device 0, cuCtxSynchronize
     * with it current, and its release (the runtime API's backend; the driver API's answers SC_UNSUPPORTED);
     * cuMemPoolTrimTo(pool, keep) */
    int (*ctx_create_flags)(void **ctx, unsigned flags);
    int (*primary_ctx_sync)(void);
    int (*pool_trim_to)(void *pool, uint64_t keep);
    /* enum sc_primary_action on device 0's primary context, in a fresh process; *reset:
     * cuDevicePrimaryCtxGetState said inactive after the release */
    int (*primary_release)(int action, int *reset);
    /* an allocation from pool (made with SC_POOL_IPC) exported and imported again in this process;
     * SC_UNSUPPORTED where the export or the import is refused */
    int (*alloc_imported)(void *pool, size_t n, void *s);
    /* cuMemPoolSetAccess of pool for device dev (access: enum sc_access; SC_UNSUPPORTED when dev
     * cannot access the pool's device as a peer), and cuMemPoolGetAccess (*readwrite: 1 read-write, 0 none) */
    int (*pool_set_access)(void *pool, int dev, int access);
    int (*pool_get_access)(void *pool, int dev, int *readwrite);
    /* pool exported to a POSIX file descriptor (closed again); the export's code */
    int (*pool_export)(void *pool);
    /* launch_mark with 2048 threads per block, which every device refuses before the kernel runs */
    int (*launch_invalid)(void *s, void *slot_dev, uint32_t token);
#define SC_MAX_CONTEXTS_MADE 8 /* contexts a backend holds at once (a program makes at most 2) */
    /* cuEventRecordWithFlags(CU_EVENT_RECORD_EXTERNAL): in a capture, an external event record node */
    int (*event_record_external)(void *e, void *s);
    /* sc_mark (flag_dev NULL) or sc_gate (on flag_dev, for at most max_ns) launched with the
     * programmatic-event launch attribute recording e (no trigger at block start); SC_UNSUPPORTED below
     * compute capability 9.0 */
    int (*launch_progevent)(void *s, void *e, void *flag_dev, uint64_t max_ns, void *slot_dev, uint32_t token);
    /* cuGraphInstantiateWithParams of a graph built by hand with flags (SC_INSTANTIATE_*); *result:
     * the result_out it left (CUgraphInstantiateResult, whose numbers cudaGraphInstantiateResult shares) */
    int (*graph_instantiate_with)(void *graph, unsigned flags, int *result);
    /* ctx_create_flags that leaves the new context current to the calling thread (cuCtxCreate pushes
     * it; no pop): the ctx_create op */
    int (*ctx_create_current)(void **ctx, unsigned flags);
    /* green contexts of device 0.  green_support: 0 where they can be made, else SC_UNSUPPORTED with
     * why (an entry point libcuda.so.1 lacks, CUDA_ERROR_NOT_SUPPORTED); asked once per rule, before the plan
     * (runtime/suite/support.c).  green_create makes one (an SM partition of device 0, its kernels run once in
     * it), green_stream_create a stream of it (CU_STREAM_NON_BLOCKING; prio as stream_create), green_destroy
     * destroys it (its streams destroyed first).  The runtime API's backend answers SC_UNSUPPORTED. */
    int (*green_support)(char *why, size_t n);
    int (*green_create)(void **green);
    int (*green_stream_create)(void **s, void *green, int prio_set, int prio);
    int (*green_destroy)(void *green);
    /* calls on a green context (CUDA 12.4).  green_event: cuGreenCtxRecordEvent of e (wait 0) or cuGreenCtxWaitEvent
     * on e (wait 1), or, converted, cuCtxRecordEvent / cuCtxWaitEvent of the context cuCtxFromGreenCtx converts it
     * to; stream_green: the green context cuStreamGetGreenCtx gives for s (NULL: none).  The runtime API's backend
     * answers SC_UNSUPPORTED. */
    int (*green_event)(void *green, void *e, int wait, int converted);
    int (*stream_green)(void *s, void **green);
    /* an allocation of a pool made with SC_POOL_IPC shared with another process.  ipc_pool_export:
     * the pool's file descriptor (cuMemPoolExportToShareableHandle, POSIX fd; the caller closes it) and the
     * allocation's export data (cuMemPoolExportPointer, SC_IPC_HANDLE_BYTES); ipc_pool_import: the pool
     * imported from the descriptor (cuMemPoolImportFromShareableHandle; the caller still closes fd) and the
     * allocation from the data (cuMemPoolImportPointer); ipc_pool_close: the imported allocation freed
     * (cuMemFree) and the imported pool destroyed.  SC_UNSUPPORTED where the pool cannot be exported. */
    int (*ipc_pool_export)(void *pool, void *ptr, int *fd, void *data);
    int (*ipc_pool_import)(void **pool, void **ptr, int fd, const void *data);
    int (*ipc_pool_close)(void *pool, void *ptr);
    /* CU_MEMPOOL_ATTR_USED_MEM_CURRENT (cudaMemPoolAttrUsedMemCurrent) of pool (NULL: the device's
     * current pool): the bytes allocated from it and not available for reuse */
    int (*pool_used)(void *pool, uint64_t *bytes);
    /* CU_MEMPOOL_ATTR_USED_MEM_HIGH (which SC_POOL_HIGH_USED) or CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH of pool; and
     * both reset (cuMemPoolSetAttribute of each to 0) */
    int (*pool_high)(void *pool, int which, uint64_t *bytes);
    int (*pool_high_reset)(void *pool);
    /* before a hold window is judged over: waits (at most max_ns) until the device has run all it can run
     * without a gate's release; 1 settled, 0 not within max_ns.  A GPU runs by itself: it answers 1 at once.
     * The mock's device is host threads a busy machine may not have scheduled in the window yet; they belong
     * to the process that made the streams, so main asks each of a case's other processes too (settle_peers,
     * case.h). */
    int (*settle)(uint64_t max_ns);
    /* once a case's gates are released and its host threads returned: 1 when the device will run nothing more
     * of what it was given (every stream idle or waiting for what nothing will bring), so that work still
     * pending never completes and need not be waited for until the deadline.  Only the mock can know it of
     * its own threads; a GPU answers 0. */
    int (*quiescent)(void);
    /* cuStreamGetCaptureInfo of s: its capture status (SC_CAPTURE_*), and while it is active the capture's id and
     * how many nodes the next node captured in s will depend on */
    int (*capture_info)(void *s, int *status, uint64_t *id, size_t *ndeps);
    /* cuStreamUpdateCaptureDependencies of s with no node and CU_STREAM_SET_CAPTURE_DEPENDENCIES: the next node
     * captured in s depends on nothing */
    int (*capture_sever)(void *s);
    /* sc_mark (flag_dev NULL) or sc_gate (on flag_dev, for at most max_ns) launched with one launch attribute
     * (enum sc_launch_attr); SC_UNSUPPORTED where the device has no such attribute (memory synchronization
     * domains and clusters below compute capability 9.0, no L2 set-aside, no cooperative launch) */
    int (*launch_attr)(void *s, int attr, void *flag_dev, uint64_t max_ns, void *slot_dev, uint32_t token);
    /* cuStreamSetAttribute of one stream attribute (enum sc_stream_attr) on s, an access policy's window at
     * window_dev; SC_UNSUPPORTED where the device has no such attribute (no L2 set-aside, memory synchronization
     * domains below compute capability 9.0) */
    int (*stream_attr)(void *s, int attr, void *window_dev);
    /* cuMemcpyBatchAsync of n bytes from src to dst in SC_BATCH_COPIES equal copies, and (slot_dev not NULL) a copy
     * of the slot's arg to its token; kind: enum sc_copy (host or device memory) with its SC_BATCH_* flags: the
     * source access order of every copy (none: CU_MEMCPY_SRC_ACCESS_ORDER_STREAM), SC_BATCH_SPLIT two attribute
     * entries (attrsIdxs {0, 2}); with SC_COPY_3D the same copies through cuMemcpy3DBatchAsync (a driver without it
     * answers the code of its absence) */
    int (*memcpy_batch)(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev);
    /* cuStreamBeginCaptureToGraph: s captures into graph, a graph graph_new made, the first node captured in s
     * depending on node dep of it (a node node_add gave; NULL: none), in mode (enum sc_capture_mode).  A driver
     * without the call (before CUDA 12.3) answers SC_UNSUPPORTED.  capture_end_to ends the capture of s
     * (cuStreamEndCapture) and says whether the graph it gave back is graph's own (*same 1: kept, it is graph's);
     * any other graph is destroyed at once. */
    int (*capture_to)(void *s, void *graph, void *dep, int mode);
    int (*capture_end_to)(void *s, void *graph, int *same);
    /* a stream's introspection and attributes.  stream_ctx: cuStreamGetCtx of s, *which 1 where it answered
     * device 0's primary context, 2 ctx (a context ctx_create made), 0 another (the runtime API has no such call:
     * SC_UNSUPPORTED).  sync_policy: CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY of s (enum sc_sync_policy), set
     * from *policy (cuStreamSetAttribute) or, set 0, read into it (cuStreamGetAttribute).  copy_attributes:
     * cuStreamCopyAttributes(dst, src).  attach_single: cuStreamAttachMemAsync of 4 KiB of managed memory
     * (cuMemAllocManaged, freed after the call, the stream synchronized first) with CU_MEM_ATTACH_SINGLE. */
    int (*stream_ctx)(void *s, void *ctx, int *which);
    int (*sync_policy)(void *s, int set, int *policy);
    int (*copy_attributes)(void *dst, void *src);
    int (*attach_single)(void *s);
} sc_backend;
#define SC_BATCH_COPIES 4
/* flags of graph_instantiate_with, and the result_out values the rules name */
#define SC_INSTANTIATE_AUTO_FREE 0x1u      /* CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (cudaGraphInstantiateFlagAutoFreeOnLaunch) */
#define SC_INSTANTIATE_SUCCESS 0           /* CUDA_GRAPH_INSTANTIATE_SUCCESS, cudaGraphInstantiateSuccess                 */
#define SC_INSTANTIATE_INVALID_STRUCTURE 2 /* CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE, cudaGraphInstantiateInvalidStructure */
/* the flag of stream_wait_event that makes it an external event wait node of a capture
 * (CU_EVENT_WAIT_EXTERNAL and cudaEventWaitExternal are both 0x1; each backend checks) */
#define SC_WAIT_EXTERNAL 0x1u

/*
 * The table a backend defines from its functions, which carry the members'
 * names, so that no backend can leave one out (the mock's: init, thread_attach, ...):
 *     const sc_backend sc_driver_backend = SC_BACKEND("driver");
 * SC_BACKEND_INIT names another initialisation (the mock's runtime API), and
 * SC_BACKEND_PREFIX functions named by a prefix and the member (drv_init,
 * drv_thread_attach, ...: a backend of several files, driver.h and runtime.h):
 *     const sc_backend sc_driver_backend = SC_BACKEND_PREFIX("driver", drv_);
 */
#define SC_BACKEND(NAME) SC_BACKEND_INIT(NAME, init)
#define SC_BACKEND_INIT(NAME, INIT) SC_BACKEND_OF(NAME, INIT, )
#define SC_BACKEND_PREFIX(NAME, PREFIX) SC_BACKEND_OF(NAME, PREFIX##init, PREFIX)
#define SC_BACKEND_OF(NAME, INIT, P) \
    { \
        .name = NAME, \
        .init = INIT, .thread_attach = P##thread_attach, .device_count = P##device_count, .use_device = P##use_device, \
        .builtin_stream = P##builtin_stream, .stream_create = P##stream_create, \
        .stream_destroy = P##stream_destroy, .priority_range = P##priority_range, .stream_get_flags = P##stream_get_flags, \
        .stream_get_priority = P##stream_get_priority, .stream_create_invalid = P##stream_create_invalid, \
        .event_create = P##event_create, .event_destroy = P##event_destroy, .dev_alloc = P##dev_alloc, \
        .dev_free = P##dev_free, .host_alloc = P##host_alloc, .host_free = P##host_free, .host_dev_ptr = P##host_dev_ptr, \
        .managed_alloc = P##managed_alloc, .launch_gate = P##launch_gate, .launch_mark = P##launch_mark, \
        .wait_gate = P##wait_gate, \
        .launch_fault = P##launch_fault, .memset_async = P##memset_async, .memset_sync = P##memset_sync, \
        .memcpy_async = P##memcpy_async, .memcpy_sync = P##memcpy_sync, .host_func = P##host_func, .callback = P##callback, \
        .event_record = P##event_record, .stream_wait_event = P##stream_wait_event, .stream_sync = P##stream_sync, \
        .stream_query = P##stream_query, .event_sync = P##event_sync, .event_query = P##event_query, \
        .event_elapsed = P##event_elapsed, .ctx_sync = P##ctx_sync, .wait_value = P##wait_value, .write_value = P##write_value, \
        .default_pool = P##default_pool, .pool_create = P##pool_create, .pool_destroy = P##pool_destroy, \
        .pool_reserved = P##pool_reserved, .pool_trim = P##pool_trim, .alloc_async = P##alloc_async, \
        .free_async = P##free_async, .graph_create = P##graph_create, .graph_launch = P##graph_launch, \
        .graph_destroy = P##graph_destroy, .capture_begin = P##capture_begin, \
        .capture_end = P##capture_end, .capture_status = P##capture_status, \
        .thread_capture_relaxed = P##thread_capture_relaxed, .stream_id = P##stream_id, .ctx_action = P##ctx_action, \
        .memcpy_peer = P##memcpy_peer, .device_sync = P##device_sync, .last_error = P##last_error, \
        .host_register = P##host_register, \
        .host_unregister = P##host_unregister, .ipc_event_handle = P##ipc_event_handle, .ipc_event_open = P##ipc_event_open, \
        .ipc_mem_handle = P##ipc_mem_handle, .ipc_mem_open = P##ipc_mem_open, .ipc_mem_close = P##ipc_mem_close, \
        .launch_pdl = P##launch_pdl, \
        .code = P##code, .error_name = P##error_name, \
        .ctx_create = P##ctx_create, .ctx_destroy = P##ctx_destroy, .ctx_enter = P##ctx_enter, \
        .ctx_record_event = P##ctx_record_event, .ctx_wait_event = P##ctx_wait_event, .launch_library = P##launch_library, \
        .batch_wait_write = P##batch_wait_write, .batch_barrier_write = P##batch_barrier_write, \
        .prefetch = P##prefetch, \
        .capture_keep = P##capture_keep, .graph_replay = P##graph_replay, \
        .graph_new = P##graph_new, .node_add = P##node_add, .edge_add = P##edge_add, \
        .graph_instantiate = P##graph_instantiate, .exec_update = P##exec_update, .exec_destroy = P##exec_destroy, \
        .node_enable = P##node_enable, .exec_node_set = P##exec_node_set, \
        .event_record_external = P##event_record_external, .launch_progevent = P##launch_progevent, \
        .ctx_create_flags = P##ctx_create_flags, .primary_ctx_sync = P##primary_ctx_sync, .pool_trim_to = P##pool_trim_to, \
        .primary_release = P##primary_release, .alloc_imported = P##alloc_imported, \
        .pool_set_access = P##pool_set_access, .pool_get_access = P##pool_get_access, \
        .graph_instantiate_with = P##graph_instantiate_with, \
        .ctx_create_current = P##ctx_create_current, .green_support = P##green_support, .green_create = P##green_create, \
        .green_stream_create = P##green_stream_create, .green_destroy = P##green_destroy, \
        .green_event = P##green_event, .stream_green = P##stream_green, \
        .ipc_pool_export = P##ipc_pool_export, .ipc_pool_import = P##ipc_pool_import, .ipc_pool_close = P##ipc_pool_close, \
        .pool_export = P##pool_export, \
        .launch_invalid = P##launch_invalid, \
        .pool_used = P##pool_used, .pool_high = P##pool_high, .pool_high_reset = P##pool_high_reset, \
        .settle = P##settle, .quiescent = P##quiescent, \
        .capture_info = P##capture_info, .capture_sever = P##capture_sever, .launch_attr = P##launch_attr, \
        .stream_attr = P##stream_attr, \
        .memcpy_batch = P##memcpy_batch, .capture_to = P##capture_to, .capture_end_to = P##capture_end_to, \
        .stream_ctx = P##stream_ctx, .sync_policy = P##sync_policy, .copy_attributes = P##copy_attributes, \
        .attach_single = P##attach_single, \
    }

extern const sc_backend sc_driver_backend;
extern const sc_backend sc_runtime_backend;

/* Geometry of 2D and 3D copies: SC_ROW_BYTES-wide rows, SC_3D_ROWS rows a slice. */
#define SC_ROW_BYTES 4096u
#define SC_3D_ROWS 64u

/* Facts for the TAP header, read through the driver API. */
struct sc_device_info {
    char name[256];
    char uuid[64];
    int cc_major, cc_minor;
    int driver_version;  /* cuDriverGetVersion */
    int runtime_version; /* cudaRuntimeGetVersion of the linked cudart */
    char lacking[512];   /* optional driver entry points libcuda.so.1 lacks, ", "-separated, or "" */
    char entry_points[8192]; /* header lines: which libraries answered them (sc_driver_provenance), or "" */
};
int sc_driver_describe(struct sc_device_info *info);
int sc_runtime_version(void);

#endif
