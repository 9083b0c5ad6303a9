/*
 * driver.h - what the files of the driver API backend share: the devices it
 * opened, the kernels of the calling thread's current context, and each
 * file's functions, which the table (driver.c) names.
 *
 * The backend is the runtime's primitive actions through the driver API
 * (libcuda.so.1, resolved by cu_loader.c), one file per area:
 *   driver_device.c    the driver loaded and initialised, a device opened (its primary context retained,
 *                      the suite's kernels loaded and run once), the current device, the TAP header's facts
 *   driver_contexts.c  contexts made with cuCtxCreate, the kernels of the current context, contexts
 *                      pushed, popped and set, green contexts, releases of the primary context
 *   driver_launch.c    the suite's kernels launched, with or without launch attributes
 *   driver_streams.c   streams, events, host functions and stream callbacks
 *   driver_memory.c    allocations, memsets, copies, stream memory operations
 *   driver_pools.c     the stream-ordered allocator: pools, their allocations, their export
 *   driver_graphs.c    graphs of one kernel node, graphs built by hand, stream capture
 *   driver_ipc.c       what other processes share: registered host memory, IPC handles
 *   driver.c           the table (SC_BACKEND_PREFIX), the compile mode, result codes and their names
 * Its functions are named drv_ and the member of the table they provide (the runtime API
 * backend's rt_, runtime.h).  Every file is compiled once per compile mode (see cu_loader.h), so
 * in per-thread mode every stream-taking call resolves to its _ptsz/_ptds entry point.
 */
#ifndef SC_DRIVER_H
#define SC_DRIVER_H
#include "backend.h"
#include "cu_loader.h"
#include <stddef.h>
#include <stdint.h>

/* The backend's own names stay inside the runtime's library: the rest of the runtime reaches them
 * through sc_driver_backend only, so a shared library exports none of them (they bind locally, as
 * the static functions of one file did). */
#pragma GCC visibility push(hidden)

/* The GPUs a program uses, opened on first use: device 0 at init, others when a case names them. */
struct gpu {
    int open;
    CUdevice dev;
    CUcontext ctx;
    CUfunction gate, mark, fault, pdl;
    CUfunction gate_open, gate_close; /* a gate held by a stream wait (STREAMCTS_GATE=wait) */
    int cc_major; /* its compute capability; 9 and up: programmatic dependent launch */
};
extern struct gpu drv_gpus[SC_MAX_DEVICES]; /* driver_device.c */
extern _Thread_local int drv_cur;           /* the device whose context this thread made current */

/* A context and the suite's kernels loaded in it: one made with cuCtxCreate, or a device's primary context
 * (drv_kernels). */
struct made {
    CUcontext ctx;
    CUfunction gate, mark, fault, pdl, gate_open, gate_close;
};

/* a device pointer as the driver API takes it */
#define DPTR(p) ((CUdeviceptr)(uintptr_t)(p))

/* ---- driver_device.c: the devices: the driver loaded and initialised, a device opened, the current device */
CUresult drv_warm_up(const char **what); /* runs each kernel of the current context once (lazy loading); *what failed */
int drv_init(char *why, size_t whylen);
int drv_device_count(int *n);
int drv_use_device(int d);
int drv_thread_attach(void);
int drv_device_sync(int d);
int drv_settle(uint64_t max_ns);
int drv_quiescent(void);

/* ---- driver_contexts.c: contexts made, the kernels of the current context, green contexts, the primary context */
const struct made *drv_kernels(void); /* the kernels of the calling thread's current context */
int drv_ctx_action(int action);
int drv_ctx_create_flags(void **ctx, unsigned flags);
int drv_ctx_create(void **ctx);
int drv_ctx_create_current(void **ctx, unsigned flags);
int drv_green_stream_create(void **s, void *green, int prio_set, int prio);
int drv_green_destroy(void *green);
int drv_green_create(void **green);
int drv_green_support(char *why, size_t n);
int drv_green_event(void *green, void *e, int wait, int converted);
int drv_stream_green(void *s, void **green);
int drv_ctx_destroy(void *ctx);
int drv_ctx_enter(void *ctx, int action);
int drv_ctx_record_event(void *e);
int drv_ctx_wait_event(void *e);
int drv_primary_ctx_sync(void);
int drv_primary_release(int action, int *reset);

/* ---- driver_launch.c: the suite's kernels launched */
int drv_launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int drv_launch_mark(void *s, void *slot, uint32_t token);
int drv_launch_library(void *s, void *slot, uint32_t token);
void drv_library_load(void);  /* loads the context-independent kernel, once per process (device 0's opening) */
int drv_library_loaded(void); /* 1: it was loaded (drv_warm_up runs it in each context it warms) */
void drv_library_failed(int rc); /* drv_warm_up could not run it: each launch answers rc from now on */
int drv_launch_invalid(void *s, void *slot, uint32_t token);
int drv_wait_gate(void *s, void *flag, void *slot, uint32_t token);
int drv_launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token);
int drv_launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int drv_launch_attr(void *s, int which, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int drv_stream_attr(void *s, int which, void *window);
int drv_launch_fault(void *s, int how);

/* ---- driver_streams.c: streams, events, host functions and callbacks */
void *drv_builtin_stream(int which);
int drv_stream_create(void **s, int nonblocking, int prio_set, int prio);
int drv_stream_destroy(void *s);
int drv_priority_range(int *least, int *greatest);
int drv_stream_get_flags(void *s, int *nonblocking);
int drv_stream_get_priority(void *s, int *prio);
int drv_stream_create_invalid(void);
int drv_event_create(void **e, unsigned flags);
int drv_event_destroy(void *e);
int drv_host_func(void *s, void (*fn)(void *), void *arg);
int drv_callback(void *s, const struct sc_callback *cb);
int drv_event_record(void *e, void *s);
int drv_event_record_external(void *e, void *s);
int drv_stream_wait_event(void *s, void *e, unsigned flags);
int drv_stream_sync(void *s);
int drv_stream_query(void *s);
int drv_event_sync(void *e);
int drv_event_query(void *e);
int drv_event_elapsed(float *ms, void *start, void *end);
int drv_ctx_sync(void);
int drv_stream_id(void *s, uint64_t *id);
int drv_stream_ctx(void *s, void *ctx, int *which);
int drv_sync_policy(void *s, int set, int *policy);
int drv_copy_attributes(void *dst, void *src);
int drv_attach_single(void *s);

/* ---- driver_memory.c: allocations, memsets, copies, stream memory operations */
int drv_dev_alloc(void **p, size_t n);
int drv_dev_free(void *p);
int drv_host_alloc(void **p, size_t n);
int drv_host_free(void *p);
int drv_managed_alloc(void **p, size_t n);
int drv_host_dev_ptr(void **d, void *h);
int drv_memset_async(void *s, void *d, unsigned char v, size_t n);
int drv_memset_sync(void *d, unsigned char v, size_t n);
int drv_memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind);
int drv_memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev);
int drv_memcpy_sync(void *dst, const void *src, size_t n, unsigned kind);
int drv_memcpy_peer(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n);
int drv_memop_supported(int attribute); /* the current device's attribute is set */
int drv_wait_value(void *s, void *addr, uint64_t value, int cond, int bits);
int drv_write_value(void *s, void *addr, uint64_t value, unsigned sc_flags, int bits);
int drv_batch_barrier_write(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits);
int drv_prefetch(void *s, void *p, size_t n, unsigned to);
int drv_batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                         int bits, unsigned flags);

/* ---- driver_pools.c: the stream-ordered allocator and its pools */
int drv_default_pool(void **pool);
int drv_pool_create(void **pool, unsigned flags);
int drv_pool_destroy(void *pool);
int drv_pool_reserved(void *pool, uint64_t *bytes);
int drv_pool_trim(void *pool);
int drv_pool_used(void *pool, uint64_t *bytes);
int drv_pool_high(void *pool, int which, uint64_t *bytes);
int drv_pool_high_reset(void *pool);
int drv_pool_trim_to(void *pool, uint64_t keep);
int drv_alloc_async(void **ptr, size_t n, void *pool, void *s);
int drv_free_async(void *ptr, void *s);
int drv_alloc_imported(void *pool, size_t n, void *s);
int drv_pool_set_access(void *pool, int dev, int access);
int drv_pool_get_access(void *pool, int dev, int *readwrite);
int drv_ipc_pool_export(void *pool, void *ptr, int *fd, void *data);
int drv_ipc_pool_import(void **pool, void **ptr, int fd, const void *data);
int drv_ipc_pool_close(void *pool, void *ptr);
int drv_pool_export(void *pool);

/* ---- driver_graphs.c: graphs and stream capture */
int drv_graph_create(void **out, int gate);
int drv_graph_launch(void *g, void *s, void **args);
int drv_graph_destroy(void *g);
int drv_graph_new(void **out);
int drv_node_add(void *g, const struct sc_node_params *np, void **node);
int drv_edge_add(void *g, void *from, void *to);
int drv_graph_instantiate(void *g, int upload, void *s);
int drv_graph_instantiate_with(void *g, unsigned flags, int *result);
int drv_exec_update(void *g, void *from);
int drv_node_enable(void *g, void *node, int enable);
int drv_exec_node_set(void *g, void *node, const struct sc_node_params *np);
int drv_exec_destroy(void *g);
int drv_capture_begin(void *s, int mode);
int drv_capture_end(void *s);
int drv_capture_keep(void *s, void **out);
int drv_graph_replay(void *g, void *s);
int drv_capture_status(void *s, int *status);
int drv_capture_info(void *s, int *status, uint64_t *id, size_t *ndeps);
int drv_capture_sever(void *s);
int drv_capture_to(void *s, void *graph, void *dep, int mode);
int drv_capture_end_to(void *s, void *graph, int *same);
int drv_thread_capture_relaxed(void);

/* ---- driver_ipc.c: registered host memory and IPC handles */
int drv_host_register(void *h, size_t n);
int drv_host_unregister(void *h);
int drv_ipc_event_handle(void *e, void *handle);
int drv_ipc_event_open(void **e, const void *handle);
int drv_ipc_mem_handle(void *d, void *handle);
int drv_ipc_mem_open(void **d, const void *handle);
int drv_ipc_mem_close(void *d);

/* ---- driver.c: the table and the result codes */
int drv_last_error(int reset);
int drv_code(enum sc_code c);
const char *drv_error_name(int rc);

#pragma GCC visibility pop

#endif
