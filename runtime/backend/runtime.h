/*
 * runtime.h - what the files of the runtime API backend share: the suite's
 * kernels as cudart loaded them, and each file's functions, which the table
 * (runtime.c) names.
 *
 * The backend is the runtime's primitive actions through the CUDA runtime API
 * (static cudart).  Kernels are loaded with cudaLibraryLoadData and launched
 * with cudaLaunchKernel, so the programs stay plain C.  One file per area:
 *   runtime_device.c    cudart initialised on device 0, the kernels loaded and run once on each device
 *                       a thread makes current, the version of the linked cudart
 *   runtime_contexts.c  contexts: none made, pushed or set, no green contexts (SC_UNSUPPORTED), the
 *                       primary context synchronized through the driver API
 *   runtime_launch.c    the suite's kernels launched, with or without launch attributes
 *   runtime_streams.c   streams, events, host functions and stream callbacks
 *   runtime_memory.c    allocations, memsets, copies (no stream memory operations)
 *   runtime_pools.c     the stream-ordered allocator: pools, their allocations, their export
 *   runtime_graphs.c    graphs of one kernel node, graphs built by hand, stream capture
 *   runtime_ipc.c       what other processes share: registered host memory, IPC handles
 *   runtime.c           the table (SC_BACKEND_PREFIX), result codes and their names
 * Its functions are named rt_ and the member of the table they provide (the driver API
 * backend's drv_, driver.h).  Every file is compiled once per compile mode: in per-thread mode
 * cuda_runtime_api.h maps the stream-taking calls to their _ptsz/_ptds entry points.
 */
#ifndef SC_RUNTIME_H
#define SC_RUNTIME_H
#include "backend.h"
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

/* The backend's own names stay inside the runtime's library: the rest of the runtime reaches them
 * through sc_runtime_backend only, so a shared library exports none of them (they bind locally, as
 * the static functions of one file did). */
#pragma GCC visibility push(hidden)

/* the suite's kernels, from the library init loaded (runtime_device.c) */
extern cudaKernel_t rt_k_gate, rt_k_mark, rt_k_fault, rt_k_pdl, rt_k_gate_open, rt_k_gate_close;

/* ---- runtime_device.c: cudart initialised, the current device, the linked cudart's version */
int rt_init(char *why, size_t whylen);
cudaError_t rt_warm_up(const char **what); /* runs each kernel once in the current context (lazy loading) */
int rt_thread_attach(void);
int rt_device_count(int *n);
int rt_use_device(int dev);
int rt_device_sync(int dev);
int rt_settle(uint64_t max_ns);
int rt_quiescent(void);

/* ---- runtime_contexts.c: contexts (none made here) and the primary context shared with the driver API */
int rt_ctx_action(int action);
int rt_ctx_create(void **ctx);
int rt_ctx_destroy(void *ctx);
int rt_ctx_enter(void *ctx, int action);
int rt_ctx_record_event(void *e);
int rt_ctx_wait_event(void *e);
int rt_ctx_create_flags(void **ctx, unsigned flags);
int rt_ctx_create_current(void **ctx, unsigned flags);
int rt_green_support(char *why, size_t n);
int rt_green_create(void **green);
int rt_green_stream_create(void **s, void *green, int prio_set, int prio);
int rt_green_destroy(void *green);
int rt_green_event(void *green, void *e, int wait, int converted);
int rt_stream_green(void *s, void **green);
int rt_primary_ctx_sync(void);
int rt_primary_release(int action, int *reset);

/* ---- runtime_launch.c: the suite's kernels launched */
int rt_launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int rt_launch_mark(void *s, void *slot, uint32_t token);
int rt_launch_library(void *s, void *slot, uint32_t token);
int rt_launch_invalid(void *s, void *slot, uint32_t token);
int rt_wait_gate(void *s, void *flag, void *slot, uint32_t token);
int rt_launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token);
int rt_launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int rt_launch_attr(void *s, int which, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int rt_stream_attr(void *s, int which, void *window);
int rt_launch_fault(void *s, int how);

/* ---- runtime_streams.c: streams, events, host functions and callbacks */
void *rt_builtin_stream(int which);
int rt_stream_create(void **s, int nonblocking, int prio_set, int prio);
int rt_stream_destroy(void *s);
int rt_priority_range(int *least, int *greatest);
int rt_stream_get_flags(void *s, int *nonblocking);
int rt_stream_get_priority(void *s, int *prio);
int rt_stream_create_invalid(void);
int rt_event_create(void **e, unsigned flags);
int rt_event_destroy(void *e);
int rt_host_func(void *s, void (*fn)(void *), void *arg);
int rt_callback(void *s, const struct sc_callback *cb);
int rt_event_record(void *e, void *s);
int rt_event_record_external(void *e, void *s);
int rt_stream_wait_event(void *s, void *e, unsigned flags);
int rt_stream_sync(void *s);
int rt_stream_query(void *s);
int rt_event_sync(void *e);
int rt_event_query(void *e);
int rt_event_elapsed(float *ms, void *start, void *end);
int rt_ctx_sync(void);
int rt_stream_id(void *s, uint64_t *id);
int rt_stream_ctx(void *s, void *ctx, int *which);
int rt_sync_policy(void *s, int set, int *policy);
int rt_copy_attributes(void *dst, void *src);
int rt_attach_single(void *s);

/* ---- runtime_memory.c: allocations, memsets, copies */
int rt_dev_alloc(void **p, size_t n);
int rt_dev_free(void *p);
int rt_host_alloc(void **p, size_t n);
int rt_host_free(void *p);
int rt_host_dev_ptr(void **d, void *h);
int rt_managed_alloc(void **p, size_t n);
int rt_memset_async(void *s, void *d, unsigned char v, size_t n);
int rt_memset_sync(void *d, unsigned char v, size_t n);
int rt_memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev);
int rt_memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind);
int rt_memcpy_sync(void *dst, const void *src, size_t n, unsigned kind);
int rt_memcpy_peer(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n);
int rt_wait_value(void *s, void *addr, uint64_t value, int cond, int bits);
int rt_write_value(void *s, void *addr, uint64_t value, unsigned flags, int bits);
int rt_batch_barrier_write(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits);
int rt_prefetch(void *s, void *p, size_t n, unsigned to);
int rt_batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                        int bits, unsigned flags);

/* ---- runtime_pools.c: the stream-ordered allocator and its pools */
int rt_default_pool(void **pool);
int rt_pool_create(void **pool, unsigned flags);
int rt_pool_destroy(void *pool);
int rt_pool_reserved(void *pool, uint64_t *bytes);
int rt_pool_trim(void *pool);
int rt_pool_used(void *pool, uint64_t *bytes);
int rt_pool_high(void *pool, int which, uint64_t *bytes);
int rt_pool_high_reset(void *pool);
int rt_pool_trim_to(void *pool, uint64_t keep);
int rt_alloc_async(void **ptr, size_t n, void *pool, void *s);
int rt_free_async(void *ptr, void *s);
int rt_alloc_imported(void *pool, size_t n, void *s);
int rt_pool_set_access(void *pool, int dev, int access);
int rt_pool_get_access(void *pool, int dev, int *readwrite);
int rt_ipc_pool_export(void *pool, void *ptr, int *fd, void *data);
int rt_ipc_pool_import(void **pool, void **ptr, int fd, const void *data);
int rt_ipc_pool_close(void *pool, void *ptr);
int rt_pool_export(void *pool);

/* ---- runtime_graphs.c: graphs and stream capture */
int rt_graph_create(void **out, int gate);
int rt_graph_launch(void *g, void *s, void **args);
int rt_graph_destroy(void *g);
int rt_graph_new(void **out);
int rt_node_add(void *g, const struct sc_node_params *np, void **node);
int rt_edge_add(void *g, void *from, void *to);
int rt_graph_instantiate(void *g, int upload, void *s);
int rt_graph_instantiate_with(void *g, unsigned flags, int *result);
int rt_exec_update(void *g, void *from);
int rt_node_enable(void *g, void *node, int enable);
int rt_exec_node_set(void *g, void *node, const struct sc_node_params *np);
int rt_exec_destroy(void *g);
int rt_capture_begin(void *s, int mode);
int rt_capture_end(void *s);
int rt_capture_keep(void *s, void **out);
int rt_graph_replay(void *g, void *s);
int rt_capture_status(void *s, int *status);
int rt_capture_info(void *s, int *status, uint64_t *id, size_t *ndeps);
int rt_capture_sever(void *s);
int rt_capture_to(void *s, void *graph, void *dep, int mode);
int rt_capture_end_to(void *s, void *graph, int *same);
int rt_thread_capture_relaxed(void);

/* ---- runtime_ipc.c: registered host memory and IPC handles */
int rt_host_register(void *h, size_t n);
int rt_host_unregister(void *h);
int rt_ipc_event_handle(void *e, void *handle);
int rt_ipc_event_open(void **e, const void *handle);
int rt_ipc_mem_handle(void *d, void *handle);
int rt_ipc_mem_open(void **d, const void *handle);
int rt_ipc_mem_close(void *d);

/* ---- runtime.c: the table and the result codes */
int rt_last_error(int reset);
int rt_code(enum sc_code c);
const char *rt_error_name(int rc);

#pragma GCC visibility pop

#endif
