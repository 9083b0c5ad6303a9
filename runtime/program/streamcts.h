/*
 * streamcts.h - the interface a generated rule program uses.
 *
 * A rule program describes each case as a small *program*: named streams,
 * events and host threads, and a list of operations issued in order.  One
 * expectation per program relates two of its operations.  The runtime runs the
 * program through the driver API and through the runtime API, decides the
 * verdict from data written by the GPU and the host, runs the negative control
 * (a variant whose expectation must be seen to fail) and prints TAP.
 *
 * Generated code only *describes*; every decision lives in the runtime.
 */
#ifndef STREAMCTS_H
#define STREAMCTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Handles are small indexes into the program under construction. */
typedef int sc_stream;
typedef int sc_event;
typedef int sc_op;
typedef int sc_pool;   /* a memory pool (SC_DEFAULT_POOL: the device's current pool) */
typedef int sc_buffer; /* a stream-ordered allocation, named by the program          */
typedef int sc_graph;  /* an executable graph, instantiated before the case starts    */
typedef int sc_word;   /* a host-mapped word for stream memory operations            */
typedef int sc_context; /* a context cuCtxCreate made on device 0, destroyed after the case */
#define SC_NO_CONTEXT (-1) /* no context: sc_driver_ctx_set of it leaves none current (driver_ctx_clear) */

/* The built-in streams of device 0; they are never created or destroyed. */
#define SC_LEGACY_STREAM     (-1) /* CU_STREAM_LEGACY / cudaStreamLegacy          */
#define SC_PER_THREAD_STREAM (-2) /* CU_STREAM_PER_THREAD / cudaStreamPerThread   */
#define SC_NULL_STREAM       (-3) /* 0: legacy or per-thread by the compile mode  */
/* The same built-in stream of device dev (legacy@1 is SC_ON_DEVICE(SC_LEGACY_STREAM, 1)). */
#define SC_ON_DEVICE(builtin, dev) ((builtin) - 3 * (dev))
#define SC_MAX_DEVICES 8

#define SC_DEFAULT_POOL      (-1) /* cuDeviceGetMemPool: where cuMemAllocAsync allocates */

enum sc_stream_kind {
    SC_BLOCKING = 1,   /* cuStreamCreate(CU_STREAM_DEFAULT)                       */
    SC_NONBLOCKING,    /* cuStreamCreate(CU_STREAM_NON_BLOCKING)                   */
};

/* Stream priorities, relative to cuCtxGetStreamPriorityRange's [greatest, least]. */
enum sc_priority {
    SC_PRIO_NONE = 0,      /* cuStreamCreate: no priority given                   */
    SC_PRIO_LEAST,         /* the least priority of the range                      */
    SC_PRIO_GREATEST,      /* the greatest priority of the range                   */
    SC_PRIO_OVER_GREATEST, /* greatest - 1: outside the range, must be clamped     */
    SC_PRIO_UNDER_LEAST,   /* least + 1: outside the range, must be clamped        */
};

/* Event creation flags (cuEventCreate / cudaEventCreateWithFlags). */
#define SC_EV_BLOCKING_SYNC  0x1u
#define SC_EV_DISABLE_TIMING 0x2u
#define SC_EV_INTERPROCESS   0x4u

/* Memory pool attributes a program can turn off (cuMemPoolSetAttribute). */
#define SC_POOL_NO_FOLLOW_EVENTS 0x1u /* CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES = 0 */
#define SC_POOL_NO_OPPORTUNISTIC 0x2u /* CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC = 0       */
#define SC_POOL_NO_INTERNAL_DEPS 0x4u /* CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES=0 */
#define SC_POOL_KEEP_MEMORY      0x8u /* CU_MEMPOOL_ATTR_RELEASE_THRESHOLD = UINT64_MAX      */

/* a pool that can be exported (CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR); skips where the device has none */
#define SC_POOL_IPC              0x10u
/* CUmemPoolProps.maxSize one allocation's size (sc_copy_bytes; CUDA 12.2 drivers and later, else the point skips):
 * a pool that cannot map more memory while its one allocation is live or its free pending */
#define SC_POOL_MAX_ONE          0x20u

/* flags of a created context (cuCtxCreate). */
#define SC_CTX_BLOCKING_SYNC 0x4u /* CU_CTX_SCHED_BLOCKING_SYNC: a synchronizing thread blocks (sleeps) */

enum sc_graph_kind {
    SC_GRAPH_KERNEL = 1, /* one kernel node that marks the launching op's slot       */
    SC_GRAPH_GATE,       /* one gate kernel node: a launch of it is held like a gate */
    SC_GRAPH_CAPTURED,   /* what a stream capture recorded, kept by sc_capture_keep   */
    SC_GRAPH_NODES,      /* a graph built by hand (sc_node*, sc_edge), made executable by
                          * sc_instantiate and launched by sc_graph_replay */
};

/* what a node of a graph built by hand does (sc_node). */
enum sc_node_kind {
    SC_NODE_GATE = 1, /* a gate kernel node (cuGraphAddKernelNode of sc_gate): held until the release */
    SC_NODE_KERNEL,   /* a marking kernel node (sc_mark)                                       */
    SC_NODE_HOST,     /* a host node (cuGraphAddHostNode) marking its slot                     */
    SC_NODE_MEMSET,   /* a memset node of 4 MiB of device memory (cuGraphAddMemsetNode)        */
    SC_NODE_MEMCPY,   /* a device-to-device memcpy node of 4 MiB (cuGraphAddMemcpyNode)        */
    SC_NODE_RECORD,   /* an event record node (cuGraphAddEventRecordNode)                      */
    SC_NODE_WAIT,     /* an event wait node (cuGraphAddEventWaitNode)                          */
    /* graph memory nodes */
    SC_NODE_ALLOC,    /* a memory allocation node of 4 MiB (cuGraphAddMemAllocNode), never freed in the graph */
    /* conditional nodes */
    SC_NODE_COND,     /* a conditional node (cuGraphAddNode, CU_GRAPH_NODE_TYPE_CONDITIONAL), enum sc_cond_how */
    /* device graph launch */
    SC_NODE_DEVLAUNCH, /* a kernel node that launches another graph from the device, enum sc_dl_mode */
    /* graph memory nodes */
    SC_NODE_FREE,     /* a memory free node (cuGraphAddMemFreeNode) of an allocation node's allocation */
};

/*
 * How a conditional node (sc_node_cond) is made: its type, the value a kernel node
 * upstream of it sets its condition to (cudaGraphSetConditional), or its handle's default.  Each body
 * holds a child graph node of a graph of the program (cloned by the call, as sc_node_child's).
 */
#define SC_COND_TRIPS 3 /* the runs of a WHILE node's body in each execution of it */
enum sc_cond_how {
    SC_COND_IF_SET = 1,      /* IF; the kernel before it sets 1: its body runs                         */
    SC_COND_IF_CLEAR,        /* IF; the kernel sets 0: its body does not run                           */
    SC_COND_WHILE,           /* WHILE; the kernel sets 1, and the last node of its body, counting its
                              * runs, sets 0 on every SC_COND_TRIPS-th: the body runs SC_COND_TRIPS times */
    SC_COND_DEFAULT,         /* IF without a setter: its handle's default 1, CU_GRAPH_COND_ASSIGN_DEFAULT,
                              * and the last node of its body sets 0 (what the next launch must undo)   */
    SC_COND_DEFAULT_ZERO,    /* the same with the default 0: the body never runs                       */
    /* two bodies */
    SC_COND_SWITCH_0,        /* SWITCH of two bodies; the kernel sets 0: the first body runs           */
    SC_COND_SWITCH_1,        /* ... sets 1: the second body runs                                       */
    SC_COND_IF_ELSE_SET,     /* IF with an ELSE body (size 2, CUDA 12.8); the kernel sets 1: the first  */
    SC_COND_IF_ELSE_CLEAR,   /* ... sets 0: the second (ELSE) body runs                                */
    SC_COND_SWITCH_2,        /* SWITCH of two bodies; the kernel sets 2, past the last: no body runs   */
    /* one body */
    SC_COND_WHILE_CLEAR,     /* WHILE as SC_COND_WHILE, the kernel setting 0: its body never runs       */
};

/*
 * How a kernel node launches a graph from the device (sc_node_devlaunch): the device-side cudaGraphLaunch
 * into one of its named streams.  The launched graph is instantiated for device launch
 * (CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH) and uploaded when the node is added.
 */
enum sc_dl_mode {
    SC_DL_FAF = 1,    /* cudaStreamGraphFireAndForget: a child of the launching graph's environment        */
    SC_DL_TAIL,       /* cudaStreamGraphTailLaunch: after the launching graph's environment completes        */
    SC_DL_SIBLING,    /* cudaStreamGraphFireAndForgetAsSibling: a child of the launching graph's parent       */
};

/* Kinds of memory a copy or memset reads and writes. */
enum sc_mem {
    SC_MEM_DEVICE = 1, /* cuMemAlloc                                   */
    SC_MEM_PINNED,     /* cuMemHostAlloc (page-locked, mapped)          */
    SC_MEM_PAGEABLE,   /* malloc                                       */
    SC_MEM_MANAGED,    /* cuMemAllocManaged (CU_MEM_ATTACH_GLOBAL)     */
};

/* Copies: direction and host-memory kind; OR with SC_COPY_2D or SC_COPY_3D for
 * cuMemcpy2D* / cuMemcpy3D* of the same 4 MiB (rows of 4 KiB). */
enum sc_copy {
    SC_H2D_PINNED = 1, /* pinned host  -> device        */
    SC_H2D_PAGEABLE,   /* pageable host -> device       */
    SC_D2H_PINNED,     /* device -> pinned host         */
    SC_D2H_PAGEABLE,   /* device -> pageable host       */
    SC_D2D,            /* device -> device              */
    SC_H2H_PINNED,     /* pinned host -> pinned host    */
    SC_H2H_PAGEABLE,   /* pageable host -> pageable host */
    SC_H2M,            /* pageable host -> managed      */
    SC_M2H,            /* managed -> pageable host      */
    SC_D2M,            /* device -> managed             */
    SC_M2D,            /* managed -> device             */
};
#define SC_COPY_KIND_MASK 0xffu
#define SC_COPY_2D 0x100u
#define SC_COPY_3D 0x200u
/* A batch of copies (sc_memcpy_batch, sc_read_batch) only: how its sources are accessed
 * (CUmemcpySrcAccessOrder; none of these: CU_MEMCPY_SRC_ACCESS_ORDER_STREAM), and SC_BATCH_SPLIT: its copies under
 * two attribute entries (attrsIdxs {0, 2}), both in stream order.  SC_COPY_3D with a batch: cuMemcpy3DBatchAsync. */
#define SC_BATCH_DURING_CALL 0x400u /* CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL */
#define SC_BATCH_ANY 0x800u         /* CU_MEMCPY_SRC_ACCESS_ORDER_ANY */
#define SC_BATCH_SPLIT 0x1000u
#define SC_BATCH_FLAGS (SC_BATCH_DURING_CALL | SC_BATCH_ANY | SC_BATCH_SPLIT)

/* Conditions of cuStreamWaitValue32/64 (CU_STREAM_WAIT_VALUE_*). */
enum sc_wait_cond { SC_WAIT_GEQ = 1, SC_WAIT_EQ, SC_WAIT_AND, SC_WAIT_NOR };
/* A word's start value, operand and written value chosen for one condition (runtime/case/objects.c's word_values). */
enum sc_word_preset {
    SC_WORD_DEFAULT = 0,
    SC_WORD_GEQ_BEHIND_WRAP, SC_WORD_GEQ_AHEAD_WRAP, SC_WORD_GEQ_BEHIND_SIGN, SC_WORD_GEQ_AHEAD_SIGN,
    SC_WORD_EQ_ABOVE, SC_WORD_AND_DISJOINT, SC_WORD_AND_COMMON, SC_WORD_NOR_COVERED, SC_WORD_NOR_OPEN,
    /* a word in managed memory (cuMemAllocManaged), which the stream memory operations must refuse; it
     * starts at its awaited value, so that a wait a broken driver accepts does not hold its stream */
    SC_WORD_MANAGED,
};
/* cuStreamWriteValue32/64 flag. */
#define SC_WRITE_NO_BARRIER 0x1u
/* sc_batch_barrier_write: the memory barrier's scope (CU_STREAM_MEMORY_BARRIER_TYPE_SYS, _GPU) */
#define SC_BARRIER_SYS 0u
#define SC_BARRIER_GPU 1u
/* sc_memset_prefetch: where the prefetch moves the bytes (CU_MEM_LOCATION_TYPE_HOST, _DEVICE) */
#define SC_PREFETCH_HOST 0u
#define SC_PREFETCH_DEVICE 1u
/* sc_batch_wait_write: a memory barrier (CU_STREAM_MEM_OP_BARRIER, system-wide) between the wait and the write */
#define SC_BATCH_BARRIER 0x1u

enum sc_capture_mode { SC_CAPTURE_GLOBAL = 1, SC_CAPTURE_THREAD_LOCAL, SC_CAPTURE_RELAXED };

/* The rule levels (gen/streamcts/vocab.py LEVELS names the same): MAY is a behaviour the documentation
 * permits and does not require; a point that does not see it is reported not-seen (runtime/result/outcomes.def). */
/* How binding a rule is: the level table's rows (levels.def), SC_MUST first (1). */
enum sc_level {
    SC_LEVEL_NONE_ = 0,
#define SC_RULE_LEVEL(ID, name, violated, meaning) SC_##ID,
#include "levels.def"
#undef SC_RULE_LEVEL
};

/* A programmatic dependent launch: does the kernel synchronize on its dependencies
 * (cudaGridDependencySynchronize) before it writes? */
enum sc_pdl_sync { SC_PDL_NO_SYNC = 0, SC_PDL_SYNC = 1 };

#include "expectations.h" /* sc_relation, sc_code, sc_value: what a program may expect */

/* APIs a rule runs in. */
#define SC_API_DRIVER  0x1u
#define SC_API_RUNTIME 0x2u

enum sc_ctx_action {
    SC_CTX_POP = 1, /* cuCtxPopCurrent: the thread has no current context after  */
    SC_CTX_PUSH,    /* cuCtxPushCurrent of device 0's primary context            */
    SC_CTX_UNSET,   /* cuCtxSetCurrent(NULL)                                     */
    SC_CTX_SET,     /* cuCtxSetCurrent of device 0's primary context             */
    SC_CTX_PUSH_TO, /* cuCtxPushCurrent of a created context (sc_ctx_enter)         */
    SC_CTX_SET_TO,  /* cuCtxSetCurrent of a created context (sc_ctx_enter)          */
};

typedef struct sc_prog sc_prog;

/* -- declarations ------------------------------------------------------- */
sc_stream sc_stream_create(sc_prog *p, const char *name, enum sc_stream_kind kind);
sc_stream sc_stream_create_prio(sc_prog *p, const char *name, enum sc_stream_kind kind, enum sc_priority prio);
/* A stream on another device, or an array of count streams (count 1: one stream). */
sc_stream sc_stream_create_ex(sc_prog *p, const char *name, enum sc_stream_kind kind, enum sc_priority prio,
                              int device, int count);
sc_event  sc_event_create(sc_prog *p, const char *name);                        /* default flags */
sc_event  sc_event_create_flags(sc_prog *p, const char *name, unsigned flags);  /* SC_EV_*       */
sc_pool   sc_pool_create(sc_prog *p, const char *name, unsigned flags);         /* SC_POOL_*     */
sc_buffer sc_buffer_create(sc_prog *p, const char *name);
/* 4 MiB of device memory that main allocates and exports (cuIpcGetMemHandle);
 * the other processes open it (cuIpcOpenMemHandle).  `fill` writes it. */
sc_buffer sc_ipc_memory_create(sc_prog *p, const char *name);
/* the same, allocated instead from a pool main creates exportable (SC_POOL_IPC) with
 * cuMemAllocFromPoolAsync and shares through the pool (flags SC_IPC_FROM_POOL): its file descriptor
 * (cuMemPoolExportToShareableHandle) passed to the other processes over a unix socket, which import
 * the pool (cuMemPoolImportFromShareableHandle) and the allocation (cuMemPoolExportPointer,
 * cuMemPoolImportPointer); the point skips where the device cannot export a pool. */
#define SC_IPC_FROM_POOL 0x2u
sc_buffer sc_ipc_memory_create_flags(sc_prog *p, const char *name, unsigned flags);
sc_graph  sc_graph_create(sc_prog *p, const char *name, enum sc_graph_kind kind);
sc_word   sc_word_create(sc_prog *p, const char *name, int bits);               /* 32 or 64      */
sc_word   sc_word_create_preset(sc_prog *p, const char *name, int bits, enum sc_word_preset preset);
sc_context sc_context_create(sc_prog *p, const char *name);  /* cuCtxCreate on device 0, made before the case */
/* the same, created with flags (SC_CTX_*) */
sc_context sc_context_create_flags(sc_prog *p, const char *name, unsigned flags);
/* a stream of a green context (cuGreenCtxStreamCreate, CU_STREAM_NON_BLOCKING, at priority prio) of
 * device 0.  The runtime makes one green context per run before the case (cuDeviceGetDevResource of the SMs,
 * cuDevSmResourceSplitByCount, cuDevResourceGenerateDesc, cuGreenCtxCreate) and destroys it after the
 * streams (cuGreenCtxDestroy); the rule needs SC_NEEDS_GREEN (driver API only). */
sc_stream sc_stream_create_green(sc_prog *p, const char *name, enum sc_priority prio);

/* -- operations, issued in the order they are added ----------------------- */
/* Gates: held until the runtime releases them (always before a deadline).   */
sc_op sc_gate(sc_prog *p, const char *name, sc_stream s);       /* spinning kernel */
sc_op sc_host_gate(sc_prog *p, const char *name, sc_stream s);  /* spinning host function */
sc_op sc_value_gate(sc_prog *p, const char *name, sc_stream s); /* cuStreamWaitValue32 on the gate flag (driver API) */

sc_op sc_kernel(sc_prog *p, const char *name, sc_stream s);
sc_op sc_memset(sc_prog *p, const char *name, sc_stream s);                     /* device memory */
sc_op sc_memset_to(sc_prog *p, const char *name, enum sc_mem target, sc_stream s);
sc_op sc_memset_sync(sc_prog *p, const char *name, enum sc_mem target);
/* A memset of managed memory, then cuMemPrefetchAsync of the same bytes in the same stream, to the host
 * (SC_PREFETCH_HOST) or to the stream's device (SC_PREFETCH_DEVICE); its data is the memset's. */
sc_op sc_memset_prefetch(sc_prog *p, const char *name, unsigned to, sc_stream s);
sc_op sc_memcpy_async(sc_prog *p, const char *name, enum sc_copy kind, sc_stream s);
sc_op sc_memcpy_sync(sc_prog *p, const char *name, enum sc_copy kind);
sc_op sc_host_func(sc_prog *p, const char *name, sc_stream s);
sc_op sc_callback(sc_prog *p, const char *name, sc_stream s);
sc_op sc_record(sc_prog *p, const char *name, sc_event e, sc_stream s);
sc_op sc_wait(sc_prog *p, const char *name, sc_event e, sc_stream s);
sc_op sc_wait_invalid_flags(sc_prog *p, const char *name, sc_event e, sc_stream s);
/* cuEventRecordWithFlags(CU_EVENT_RECORD_EXTERNAL) and cuStreamWaitEvent(CU_EVENT_WAIT_EXTERNAL):
 * in a stream capture, an external event record / wait node of the graph (invalid outside a capture). */
sc_op sc_record_external(sc_prog *p, const char *name, sc_event e, sc_stream s);
sc_op sc_wait_external(sc_prog *p, const char *name, sc_event e, sc_stream s);

/* Stream memory operations (driver API only). */
sc_op sc_write_value(sc_prog *p, const char *name, sc_word w, unsigned flags, sc_stream s);
sc_op sc_wait_value(sc_prog *p, const char *name, sc_word w, enum sc_wait_cond cond, sc_stream s);
/* One cuStreamBatchMemOp: a GEQ wait on `wait`, then a write of `write` (completion: `write` holds its value). */
sc_op sc_batch_wait_write(sc_prog *p, const char *name, sc_word wait, sc_word write, unsigned flags, sc_stream s);
/* one cuStreamBatchMemOp: a memory barrier of scope SC_BARRIER_SYS or SC_BARRIER_GPU, then a write of w's set value */
sc_op sc_batch_barrier_write(sc_prog *p, const char *name, sc_word w, unsigned scope, sc_stream s);

/* The stream-ordered allocator. */
sc_op sc_alloc_async(sc_prog *p, const char *name, sc_buffer m, sc_pool pool, sc_stream s);
sc_op sc_free_async(sc_prog *p, const char *name, sc_buffer m, sc_stream s);
sc_op sc_fill(sc_prog *p, const char *name, sc_buffer m, sc_stream s); /* memset of the allocation */
/* cuMemcpyDtoHAsync of the allocation's first word into the op's own slot (its arg), where every
 * process sees it: what the device had written there when the stream reached the copy. */
sc_op sc_read(sc_prog *p, const char *name, sc_buffer m, sc_stream s);
/* the same read as a batch of copies (cuMemcpyBatchAsync, its source accessed in stream order) */
sc_op sc_read_batch(sc_prog *p, const char *name, sc_buffer m, sc_stream s);
sc_op sc_pool_reserved(sc_prog *p, const char *name, sc_pool pool);     /* getter                   */
sc_op sc_pool_trim(sc_prog *p, const char *name, sc_pool pool);         /* cuMemPoolTrimTo(pool, 0) */

#include "graph_ops.h" /* graphs and stream capture: launches, captures, nodes, edges, instantiation, edits */

/* A kernel that writes to an invalid address: the context's sticky error. */
/* How a fault kernel faults: a store to an unmapped address, a failing device-side assert, PTX trap. */
enum sc_fault_kind { SC_FAULT_ADDRESS = 0, SC_FAULT_ASSERT = 1, SC_FAULT_TRAP = 2 };
/* the launch attribute of sc_kernel_attr and sc_gate_attr (cuLaunchKernelEx) */
enum sc_launch_attr {
    SC_LAUNCH_REMOTE_DOMAIN = 1, /* CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE (cc 9.0) */
    SC_LAUNCH_PRIORITY,          /* CU_LAUNCH_ATTRIBUTE_PRIORITY = the context's greatest stream priority       */
    SC_LAUNCH_PRIORITY_LEAST,    /* CU_LAUNCH_ATTRIBUTE_PRIORITY = the context's least stream priority          */
    SC_LAUNCH_ACCESS_POLICY,     /* CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW: persisting hits over its slot     */
    SC_LAUNCH_COOPERATIVE,       /* CU_LAUNCH_ATTRIBUTE_COOPERATIVE = 1                                        */
    SC_LAUNCH_COOPERATIVE_KERNEL,/* no attribute: cuLaunchCooperativeKernel / cudaLaunchCooperativeKernel      */
    SC_LAUNCH_CLUSTER,           /* CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION = 1 x 1 x 1 (cc 9.0)                 */
    SC_LAUNCH_DOMAIN_MAP,        /* CU_LAUNCH_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: default -> 1, remote -> 0 (cc 9.0)  */
};
/* the stream attribute sc_stream_attr sets (cuStreamSetAttribute) on a created stream */
enum sc_stream_attr {
    SC_STREAM_ACCESS_POLICY = 1, /* CU_STREAM_ATTRIBUTE_ACCESS_POLICY_WINDOW: persisting hits over the gate flag */
    SC_STREAM_REMOTE_DOMAIN,     /* CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN = CU_LAUNCH_MEM_SYNC_DOMAIN_REMOTE (cc 9.0) */
    SC_STREAM_DOMAIN_MAP,        /* CU_STREAM_ATTRIBUTE_MEM_SYNC_DOMAIN_MAP: default -> 1, remote -> 0 (cc 9.0)    */
};
sc_op sc_fault(sc_prog *p, const char *name, enum sc_fault_kind how, sc_stream s);

/* Host threads and contexts. */
sc_op sc_stream_id(sc_prog *p, const char *name, sc_stream s);          /* getter: cuStreamGetId */
/* A stream's introspection and attributes: cuStreamGetCtx of s, compared with device 0's primary context and c
 * (a getter; driver API only); its synchronization policy set (cuStreamSetAttribute) and read (a getter);
 * cuStreamCopyAttributes(dst, src); cuStreamAttachMemAsync of managed memory the op makes, CU_MEM_ATTACH_SINGLE. */
enum sc_sync_policy {
    SC_SYNC_AUTO = 1,      /* CU_SYNC_POLICY_AUTO          */
    SC_SYNC_SPIN,          /* CU_SYNC_POLICY_SPIN          */
    SC_SYNC_YIELD,         /* CU_SYNC_POLICY_YIELD         */
    SC_SYNC_BLOCKING_SYNC, /* CU_SYNC_POLICY_BLOCKING_SYNC */
};
sc_op sc_stream_ctx(sc_prog *p, const char *name, sc_stream s, sc_context c);
sc_op sc_sync_policy_set(sc_prog *p, const char *name, sc_stream s, enum sc_sync_policy policy);
sc_op sc_sync_policy(sc_prog *p, const char *name, sc_stream s);
sc_op sc_copy_attributes(sc_prog *p, const char *name, sc_stream dst, sc_stream src);
sc_op sc_attach_single(sc_prog *p, const char *name, sc_stream s);
/* getters of cuStreamGetCaptureInfo: the capture id (none when s is not capturing), and how many nodes the next
 * node captured in s will depend on; and cuStreamUpdateCaptureDependencies setting that set to none */
/* sc_kernel and sc_gate launched by cuLaunchKernelEx with one launch attribute */
sc_op sc_kernel_attr(sc_prog *p, const char *name, enum sc_launch_attr attr, sc_stream s);
/* cuMemcpyBatchAsync of what sc_memcpy_async(k) copies, as a batch of copies in stream order (k with SC_BATCH_*:
 * another source access order, or two attribute entries; with SC_COPY_3D: cuMemcpy3DBatchAsync) */
sc_op sc_memcpy_batch(sc_prog *p, const char *name, enum sc_copy k, sc_stream s);
sc_op sc_gate_attr(sc_prog *p, const char *name, enum sc_launch_attr attr, sc_stream s);
sc_op sc_capture_id(sc_prog *p, const char *name, sc_stream s);
sc_op sc_capture_deps(sc_prog *p, const char *name, sc_stream s);
sc_op sc_capture_sever(sc_prog *p, const char *name, sc_stream s);
/* cuStreamSetAttribute of one attribute on s (a host call; the kernels issued to s after it run with it) */
sc_op sc_stream_attr(sc_prog *p, const char *name, sc_stream s, enum sc_stream_attr attr);
sc_op sc_ctx_op(sc_prog *p, const char *name, enum sc_ctx_action a);   /* driver API only        */
/* The issuing thread makes a created context current (SC_CTX_PUSH_TO or SC_CTX_SET_TO; driver API only):
 * its later ops on the built-in streams go to that context's, its ctx_sync synchronizes that context. */
sc_op sc_ctx_enter(sc_prog *p, const char *name, sc_context c, enum sc_ctx_action a);
sc_op sc_thread_exit(sc_prog *p, const char *name);                    /* the issuing thread ends */
/* cuCtxDestroy of a created context (driver API only); the runtime does not destroy it again. */
sc_op sc_ctx_destroy(sc_prog *p, const char *name, sc_context c);
/* cuDevicePrimaryCtxRetain of device 0, cuCtxSynchronize with it current, then the release
 * (runtime API only: the driver API's view of the context the runtime API's work went to). */
sc_op sc_primary_ctx_sync(sc_prog *p, const char *name);
/* releases of device 0's primary context in a fresh process the op starts (driver API only):
 * SC_PRIMARY_RELEASE_EXTRA: one release, no retain (its answer the release's code); SC_PRIMARY_RELEASE_ALL:
 * a retain and a release (its value whether the context was reset: inactive after); SC_PRIMARY_BALANCED:
 * two retains and a release (one reference left). */
enum sc_primary_action { SC_PRIMARY_RELEASE_EXTRA = 1, SC_PRIMARY_RELEASE_ALL, SC_PRIMARY_BALANCED };
sc_op sc_primary_release(sc_prog *p, const char *name, enum sc_primary_action a);
/* cuMemPoolExportToShareableHandle of an ipc pool, cuMemPoolImportFromShareableHandle of the handle
 * (in this process: the point skips where the driver refuses that), and cuMemAllocFromPoolAsync of 4 MiB from
 * the imported pool on s, whose code the op answers (an allocation made anyway is freed) */
sc_op sc_alloc_imported(sc_prog *p, const char *name, sc_pool pool, sc_stream s);
/* cuMemPoolTrimTo(pool, sc_copy_bytes) */
sc_op sc_pool_trim_keep(sc_prog *p, const char *name, sc_pool pool);
/* cuMemPoolSetAccess of pool for device D with SC_ACCESS_* (its answer is what it is for), and
 * cuMemPoolGetAccess of pool from device D (gives readwrite or none).  A pool belongs to device 0. */
enum sc_access { SC_ACCESS_NONE, SC_ACCESS_READWRITE };
sc_op sc_pool_set_access(sc_prog *p, const char *name, sc_pool pool, int device, enum sc_access access);
sc_op sc_pool_access(sc_prog *p, const char *name, sc_pool pool, int device);
/* cuCtxCreate of context c in the issuing thread, during the case (driver API only): c is current there
 * after it, supplanting the thread's context, which a later ctx_pop makes current again; the runtime does not
 * make c before the case, and destroys it after. */
sc_op sc_ctx_create(sc_prog *p, const char *name, sc_context c);
/* cuMemPoolExportToShareableHandle(CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR) of pool (SC_DEFAULT_POOL:
 * the device's current pool), the descriptor closed again; the op answers the export's code */
sc_op sc_pool_export(sc_prog *p, const char *name, sc_pool pool);
/* the marking kernel launched on s with 2048 threads per block, more than any device allows: a launch
 * refused before it runs, whose code the op answers */
sc_op sc_kernel_invalid(sc_prog *p, const char *name, sc_stream s);
/* CU_MEMPOOL_ATTR_USED_MEM_CURRENT of pool (SC_DEFAULT_POOL: the device's current pool), a getter
 * (gives zero, or allocated: at least one allocation's 4 MiB); and the address buffer m's allocation got,
 * a getter read from the runtime's record of the allocation (no CUDA call), compared with 'equals' */
sc_op sc_pool_used(sc_prog *p, const char *name, sc_pool pool);
sc_op sc_address(sc_prog *p, const char *name, sc_buffer m);
/* a pool's high watermark of used (CU_MEMPOOL_ATTR_USED_MEM_HIGH) or reserved (CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH)
 * memory, a getter (gives zero, or allocated: at least one allocation's 4 MiB); and the reset of both (each set
 * to 0) */
enum sc_pool_high { SC_POOL_HIGH_USED = 0, SC_POOL_HIGH_RESERVED = 1 };
sc_op sc_pool_high(sc_prog *p, const char *name, sc_pool pool, enum sc_pool_high which);
sc_op sc_pool_high_reset(sc_prog *p, const char *name, sc_pool pool);

/* Several devices. */
sc_op sc_memcpy_peer(sc_prog *p, const char *name, sc_stream s); /* other device -> the device of s */
sc_op sc_device_sync(sc_prog *p, const char *name, int device);   /* cuCtxSynchronize of that device */
/* The issuing thread makes device D current (cuCtxSetCurrent of its primary context / cudaSetDevice) and
 * keeps it: its later ops are issued with D current, whatever device their streams belong to. */
sc_op sc_device_enter(sc_prog *p, const char *name, int device);
/* The marking kernel as a function of the issuing thread's current context (cuModuleGetFunction), where
 * sc_kernel may be a context-less kernel (cudaLibraryGetKernel) that runs in its stream's context. */
sc_op sc_module_kernel(sc_prog *p, const char *name, sc_stream s);
/* The marking kernel as a context-independent kernel: cuLibraryGetKernel's CUkernel of the suite's fatbin
 * (cuLibraryLoadData), launched by cuLaunchKernel into s, in s's context (the current one for the NULL stream). */
sc_op sc_library_kernel(sc_prog *p, const char *name, sc_stream s);
/* Context-level events of the issuing thread's current context: cuCtxRecordEvent captures in e all the
 * context's work at the time of the call; cuCtxWaitEvent makes all its later work wait for e's. */
sc_op sc_ctx_record(sc_prog *p, const char *name, sc_event e);
sc_op sc_ctx_wait(sc_prog *p, const char *name, sc_event e);
/* calls on the program's green context (its green streams'; driver API only): green_record captures in e the
 * green context's work at the time of the call, green_wait makes its later work wait for e's captured work.
 * SC_GREEN_OWN: cuGreenCtxRecordEvent / cuGreenCtxWaitEvent; SC_GREEN_CONVERTED: cuCtxRecordEvent /
 * cuCtxWaitEvent of the context cuCtxFromGreenCtx converts it to.  stream_green: cuStreamGetGreenCtx of s (a
 * getter: SC_VALUE_ITS_GREEN, the program's green context, or SC_VALUE_NONE, NULL) */
enum sc_green_call { SC_GREEN_OWN = 1, SC_GREEN_CONVERTED };
sc_op sc_green_record(sc_prog *p, const char *name, sc_event e, enum sc_green_call how);
sc_op sc_green_wait(sc_prog *p, const char *name, sc_event e, enum sc_green_call how);
sc_op sc_stream_green(sc_prog *p, const char *name, sc_stream s);
/* In a runtime-API rule: cuCtxSetCurrent of c (made with cuCtxCreate), on which the runtime API's later calls of
 * the issuing thread then operate. */
sc_op sc_driver_ctx_set(sc_prog *p, const char *name, sc_context c); /* SC_NO_CONTEXT: cuCtxSetCurrent(NULL) */

/* Host calls that synchronize or query. */
sc_op sc_stream_sync(sc_prog *p, const char *name, sc_stream s);
sc_op sc_event_sync(sc_prog *p, const char *name, sc_event e);
sc_op sc_ctx_sync(sc_prog *p, const char *name);
sc_op sc_stream_query(sc_prog *p, const char *name, sc_stream s);
sc_op sc_event_query(sc_prog *p, const char *name, sc_event e);
sc_op sc_elapsed(sc_prog *p, const char *name, sc_event start, sc_event end);
sc_op sc_stream_flags(sc_prog *p, const char *name, sc_stream s);    /* getter */
sc_op sc_stream_priority(sc_prog *p, const char *name, sc_stream s); /* getter */

/* cuMemAlloc + cuMemFree of 4 MiB: the documented example of a call that is
 * unsafe during stream capture. */
sc_op sc_mem_alloc(sc_prog *p, const char *name);

/* Calls with arguments a driver must refuse. */
sc_op sc_stream_create_invalid(sc_prog *p, const char *name);         /* undefined flag bits          */
sc_op sc_event_create_try(sc_prog *p, const char *name, unsigned flags); /* create and destroy at once */

/* The runtime API's error state of the issuing thread (the driver API has none): the op answers
 * cudaGetLastError's code (which resets the state to success) or cudaPeekAtLastError's (which does not). */
sc_op sc_get_last_error(sc_prog *p, const char *name);
sc_op sc_peek_last_error(sc_prog *p, const char *name);

/* Programmatic dependent launch (cuLaunchKernelEx / cudaLaunchKernelEx with programmatic stream
 * serialization; compute capability 9.0 and up, else the point skips): a marked kernel that may start
 * before the kernel before it in its stream completed; SC_PDL_SYNC: it writes only after
 * cudaGridDependencySynchronize returned. */
sc_op sc_kernel_pdl(sc_prog *p, const char *name, enum sc_pdl_sync sync, sc_stream s);
/* a marked kernel launched (cuLaunchKernelEx) with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT recording e
 * (no trigger at block start; the kernel triggers nothing itself, so its blocks trigger as they end; compute
 * capability 9.0 and up, else the point skips).  e must be declared disable_timing. */
sc_op sc_kernel_progevent(sc_prog *p, const char *name, sc_event e, sc_stream s);
/* the gate launched with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_EVENT recording e: the gate triggers its
 * dependents (griddepcontrol.launch_dependents) at its start, so the event may trigger while it is held. */
sc_op sc_gate_progevent(sc_prog *p, const char *name, sc_event e, sc_stream s);
/* a stream callback that calls cuStreamQuery on its own stream and answers what that call answered
 * (driver API only). */
sc_op sc_callback_api(sc_prog *p, const char *name, sc_stream s);

/* Destroying a stream or event whose work may still be pending. */
sc_op sc_stream_destroy(sc_prog *p, const char *name, sc_stream s);
sc_op sc_event_destroy(sc_prog *p, const char *name, sc_event e);

/* Issue op from the named host thread instead of "main". */
void sc_in_thread(sc_prog *p, sc_op op, const char *thread);
/* The named host thread runs in another process of its own name (a child the
 * runtime starts for the case, with its own context and default streams);
 * declared before any op uses the thread. */
void sc_thread_process(sc_prog *p, const char *thread, const char *process);
/* that process is started with the environment variable var set to value (CUDA_LAUNCH_BLOCKING:
 * read when the process initialises CUDA, so only a process of its own can have it); after sc_thread_process. */
void sc_process_env(sc_prog *p, const char *process, const char *var, const char *value);

/* -- the expectation ------------------------------------------------------ */
void sc_expect(sc_prog *p, sc_op subject, enum sc_relation rel, sc_op object);
void sc_expect_answer(sc_prog *p, sc_op subject, enum sc_code code);   /* SC_ANSWERS */
void sc_expect_value(sc_prog *p, sc_op subject, enum sc_value value);  /* SC_GIVES   */
void sc_expect_unary(sc_prog *p, sc_op subject, enum sc_relation rel); /* SC_COMPLETE_ON_RETURN, SC_KEEPS_DATA */
/* SC_RUNS_PER_LAUNCH with n runs in each launch (a node of a WHILE node's body: SC_COND_TRIPS); sc_expect_unary's
 * SC_RUNS_PER_LAUNCH is n = 1 */
void sc_expect_runs(sc_prog *p, sc_op subject, unsigned n);

/* -- the rule a program file checks --------------------------------------- */
typedef void (*sc_build_fn)(sc_prog *p);

typedef struct sc_case {
    const char *id;        /* stable dotted case id                            */
    sc_build_fn build;     /* the case                                         */
    sc_build_fn control;   /* its negative control: the expectation must fail  */
} sc_case;

typedef struct sc_rule {
    const char *id;        /* stable dotted rule id                            */
    enum sc_level level;
    const char *text;      /* the rule, one sentence                           */
    const char *source;    /* NVIDIA document and section                      */
    const char *axes;      /* names of the case-id axes, "" when none          */
    const char *program;   /* the spec row's program, for the report           */
    const char *expect;    /* the spec row's expectation, for the report       */
    const char *spec;      /* the rules file, "spec/x.rules" (lines: catalog)  */
    unsigned repeat;       /* runs of each case (the spec's repeat column)      */
    unsigned apis;         /* SC_API_DRIVER | SC_API_RUNTIME: where it runs     */
    int devices;           /* GPUs the rule needs (0 or 1: one)                 */
    int isolate;           /* each point in a child process of its own (faults) */
    int processes;         /* processes a case runs in (0 or 1: only this one)  */
    const char *digest;    /* the first 16 hex digits of the sha256 of this program's
                            * generated C file, with this value written as @DIGEST@ */
    const sc_case *cases;
    int ncases;
    unsigned needs;        /* SC_NEEDS_*, capabilities the device may lack (one skip reason) */
    int mps;               /* 1: the cases run only as clients of an MPS server
                            * (tap/<rule>.mps.t); elsewhere the program skips    */
} sc_rule;
/* what sc_rule.needs may name; runtime/suite/support.c skips the rule where the device lacks it */
#define SC_NEEDS_GREEN 0x1u /* green contexts (cuGreenCtxCreate, CUDA 12.4) */

/* Runs the rule's cases and prints TAP; returns the process exit status. */
int sc_main(const sc_rule *rule, int argc, char **argv);

/*
 * SC_MAIN(rule) ends a rule program: its main, and its entry in the section
 * sc_rules.  main is weak, so that one host process (runtime/suite/host.c) can link
 * every rule program of a compile mode and run them one after another on one
 * CUDA context (docs/performance.md); alone, a program's main is its own.
 */
#define SC_MAIN(r)                                                                                              \
    __attribute__((weak)) int main(int argc, char **argv) { return sc_main(&(r), argc, argv); }                \
    static const sc_rule *const sc_rule_entry __attribute__((used, section("sc_rules"))) = &(r);

#ifdef __cplusplus
}
#endif
#endif
