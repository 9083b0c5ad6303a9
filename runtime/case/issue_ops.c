/*
 * issue_ops.c - how each op kind is issued: one function per kind, found
 * through the table at the end of this file (indexed by enum sc_op_kind, the
 * rows of ops.def); the allocator's and pools' are in issue_memory.c, the
 * captures' and graphs' in issue_graph.c.  issue.c works out what every op needs first (its stream,
 * slot, token, buffers: struct issue_args) and records its probe after.
 * A group op's kind is issued the same way to each member (a->member).
 * Each returns the call's result: 0, a CUDA code, or SC_UNSUPPORTED.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdint.h>

/* ---- gates and kernels ---------------------------------------------------- */

/* A gate: the spinning kernel, or the stream wait where prepare chose it (wait_gates_allowed). */
static int issue_gate(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    if (r->wait_gates)
        return r->b->wait_gate(a->stream, r->arena->gate_dev, a->slot_dev, a->token);
    return r->b->launch_gate(a->stream, r->arena->gate_dev, r->cfg.deadline_ns, a->slot_dev, a->token);
}

static int issue_host_gate(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->host_func(a->stream, host_gate, a->harg);
}

static int issue_value_gate(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->wait_value(a->stream, r->arena->gate_dev, 1, SC_WAIT_GEQ, 32);
}

/* kernel, and module_kernel (driver API only, whose kernels are module functions) */
static int issue_kernel(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->launch_mark(a->stream, a->slot_dev, a->token);
}

static int issue_kernel_pdl(struct run *r, int i, const struct issue_args *a)
{
    int primary = sc_op_primary(r->p, i); /* its slot's token, read by the kernel into its own slot's arg */
    const void *read = primary < 0 ? NULL : &((struct sc_slot *)r->arena->slots_dev + primary)->token;
    return r->b->launch_pdl(a->stream, a->slot_dev, a->token, r->op[i].def->cond, read);
}

static int issue_fault(struct run *r, int i, const struct issue_args *a)
{
    return r->b->launch_fault(a->stream, r->op[i].def->cond);
}

static int issue_kernel_invalid(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->launch_invalid(a->stream, a->slot_dev, a->token);
}

static int issue_kernel_progevent(struct run *r, int i, const struct issue_args *a)
{
    return r->b->launch_progevent(a->stream, r->op[i].event, NULL, 0, a->slot_dev, a->token);
}

static int issue_kernel_attr(struct run *r, int i, const struct issue_args *a)
{
    return r->b->launch_attr(a->stream, r->p->ops[i].cond, NULL, 0, a->slot_dev, a->token);
}

static int issue_gate_attr(struct run *r, int i, const struct issue_args *a)
{
    return r->b->launch_attr(a->stream, r->p->ops[i].cond, r->arena->gate_dev, r->cfg.deadline_ns, a->slot_dev, a->token);
}

/* the window of an access policy is the gate flag's word: a host-mapped address the case holds throughout */
static int issue_stream_attr(struct run *r, int i, const struct issue_args *a)
{
    return r->b->stream_attr(a->stream, r->p->ops[i].cond, r->arena->gate_dev);
}

static int issue_gate_progevent(struct run *r, int i, const struct issue_args *a)
{
    return r->b->launch_progevent(a->stream, r->op[i].event, r->arena->gate_dev, r->cfg.deadline_ns, a->slot_dev,
                                  a->token);
}

/* ---- host functions and callbacks --------------------------------------------- */

static int issue_host_func(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->host_func(a->stream, host_mark, a->harg);
}

static int issue_callback(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->callback(a->stream, &a->harg->cb);
}

static int issue_callback_api(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    a->harg->cb.body = callback_api_body;
    return r->b->callback(a->stream, &a->harg->cb);
}

/* ---- events ------------------------------------------------------------------- */

static int issue_record(struct run *r, int i, const struct issue_args *a)
{
    return r->b->event_record(r->op[i].event, a->stream);
}

static int issue_wait(struct run *r, int i, const struct issue_args *a)
{
    return r->b->stream_wait_event(a->stream, r->op[i].event, 0);
}

static int issue_wait_invalid(struct run *r, int i, const struct issue_args *a)
{
    return r->b->stream_wait_event(a->stream, r->op[i].event, 0x100u);
}

static int issue_record_external(struct run *r, int i, const struct issue_args *a)
{
    return r->b->event_record_external(r->op[i].event, a->stream);
}

static int issue_wait_external(struct run *r, int i, const struct issue_args *a)
{
    return r->b->stream_wait_event(a->stream, r->op[i].event, SC_WAIT_EXTERNAL);
}

static int issue_elapsed(struct run *r, int i, const struct issue_args *a)
{
    struct op_rt *o = &r->op[i];
    (void)a;
    return r->b->event_elapsed(&o->ms, o->event, r->events[o->def->event2]);
}

static int issue_event_create_try(struct run *r, int i, const struct issue_args *a)
{
    void *e = NULL;
    int rc;
    (void)a;
    if ((rc = r->b->event_create(&e, r->op[i].def->flags)) == 0)
        r->b->event_destroy(e);
    return rc;
}

static int issue_event_destroy(struct run *r, int i, const struct issue_args *a)
{
    int rc;
    (void)a;
    if ((rc = r->b->event_destroy(r->op[i].event)) == 0)
        r->events[r->op[i].def->event] = NULL;
    return rc;
}

/* ---- copies and memsets --------------------------------------------------------- */

static int issue_memset(struct run *r, int i, const struct issue_args *a)
{
    return r->b->memset_async(a->stream, a->dst, r->op[i].fill, sc_copy_bytes);
}

/* the memset, then the prefetch of the same bytes in the same stream; the call returns once both returned */
static int issue_memset_prefetch(struct run *r, int i, const struct issue_args *a)
{
    int rc = r->b->memset_async(a->stream, a->dst, r->op[i].fill, sc_copy_bytes);
    return rc ? rc : r->b->prefetch(a->stream, a->dst, sc_copy_bytes, r->op[i].def->flags);
}

static int issue_memset_sync(struct run *r, int i, const struct issue_args *a)
{
    return r->b->memset_sync(a->dst, r->op[i].fill, sc_copy_bytes);
}

static int issue_memcpy_async(struct run *r, int i, const struct issue_args *a)
{
    return r->b->memcpy_async(a->stream, a->dst, a->src, sc_copy_bytes, r->op[i].def->copy);
}

/* its token, in its slot's arg, is the batch's last copy: to the slot's token */
static int issue_memcpy_batch(struct run *r, int i, const struct issue_args *a)
{
    __atomic_store_n(&r->arena->slots[i].arg, a->token, __ATOMIC_RELEASE);
    return r->b->memcpy_batch(a->stream, a->dst, a->src, sc_copy_bytes, r->op[i].def->copy, a->slot_dev);
}

static int issue_memcpy_sync(struct run *r, int i, const struct issue_args *a)
{
    return r->b->memcpy_sync(a->dst, a->src, sc_copy_bytes, r->op[i].def->copy);
}

static int issue_memcpy_peer(struct run *r, int i, const struct issue_args *a)
{
    int dev = r->op[i].device;
    return r->b->memcpy_peer(a->stream, a->dst, dev, a->src, peer_of(dev), sc_copy_bytes);
}

/* the device of buffer m at op i: that of the stream its last allocation before i was issued to. */
static int buffer_device(const struct run *r, int m, int i)
{
    int dev = 0;
    for (int j = 0; j < i; j++)
        if (sc_op_facts(r->p->ops[j].kind)->allocates && r->p->ops[j].buffer == m)
            dev = r->op[j].device;
    return dev;
}

/* from the buffer, on the device its allocation's stream belongs to */
static int issue_memcpy_peer_from(struct run *r, int i, const struct issue_args *a)
{
    int m = r->op[i].def->buffer;
    return r->buf_ptr[m] ? r->b->memcpy_peer(a->stream, a->dst, r->op[i].device, r->buf_ptr[m],
                                             buffer_device(r, m, i), sc_copy_bytes)
                         : -1;
}

/* ---- stream memory operations ------------------------------------------------------ */

static int issue_write_value(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    return r->b->write_value(a->stream, word_dev(r, d->word), r->word_set[d->word], d->flags, r->p->words[d->word].bits);
}

static int issue_batch(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    return r->b->batch_wait_write(a->stream, word_dev(r, d->word), operand_of(r, d), word_dev(r, d->word2),
                                  r->word_set[d->word2], r->p->words[d->word].bits, d->flags);
}

static int issue_batch_barrier(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    return r->b->batch_barrier_write(a->stream, d->flags, word_dev(r, d->word), r->word_set[d->word],
                                     r->p->words[d->word].bits);
}

static int issue_wait_value(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    return r->b->wait_value(a->stream, word_dev(r, d->word), operand_of(r, d), d->cond, r->p->words[d->word].bits);
}

/* ---- synchronizes and queries ---------------------------------------------------------- */

/* stream_sync, event_sync, ctx_sync (told apart by the handle they act on): the CPU time the waiting thread
 * used (a blocking-sync event's or context's sleeps) is its value; a member of a stream array's synchronize
 * is not timed. */
static int issue_sync(struct run *r, int i, const struct issue_args *a)
{
    struct op_rt *o = &r->op[i];
    enum sc_op_arg on = sc_op_facts(o->def->kind)->arg;
    if (a->member)
        return r->b->stream_sync(a->stream);
    uint64_t cpu = sc_thread_cpu_ns(), runq = sc_thread_runq_ns();
    int rc = on == SC_ARG_STREAM ? r->b->stream_sync(a->stream)
             : on == SC_ARG_EVENT ? r->b->event_sync(o->event)
                                  : r->b->ctx_sync();
    o->value = (int64_t)(sc_thread_cpu_ns() - cpu);
    o->runq_ns = (int64_t)(sc_thread_runq_ns() - runq); /* a spinning thread on a busy machine waits here */
    return rc;
}

/* Has some gate or host gate of the program started (its start stamp is written before it spins)? */
static int gate_running(struct run *r)
{
    for (int i = 0; i < r->p->nops; i++) {
        enum sc_op_kind k = r->p->ops[i].kind;
        if (sc_op_spins(k) && __atomic_load_n(&r->arena->slots[i].start_ns, __ATOMIC_ACQUIRE) != 0)
            return 1;
    }
    return 0;
}

/*
 * stream_query, event_query.  "Ready while" asks whether the query answers success at some point while the
 * object is held: the GPU may not have reached the work it covers yet, so ask again until success or the
 * release.  "Synchronizes" asks until success (to the deadline; the gates open meanwhile, after a window)
 * and, right as the query answers success, reads on the host what the object wrote to managed memory: that
 * answer is equivalent to a synchronize for Unified Memory.
 */
static int issue_query(struct run *r, int i, const struct issue_args *a)
{
    struct op_rt *o = &r->op[i];
    int rc, poll = i == r->p->subject && r->p->rel == SC_READY_WHILE,
            sync = i == r->p->subject && r->p->rel == SC_SYNCHRONIZES;
    for (;;) {
        /* a held gate seen running means the GPU is past everything before it: read that first */
        int reached = gate_running(r), late = poll && is_released(r);
        rc = sc_op_facts(o->def->kind)->arg == SC_ARG_STREAM ? r->b->stream_query(a->stream) : r->b->event_query(o->event);
        /* an ask begun after the release answers for the released work, not the held: the asks before it
         * stand (on a busy machine the release comes when this thread's asking outlasts the window) */
        if (late)
            return SC_NOT_READY;
        o->ret.gpu_reached = reached;
        if (rc == 0 && sync)
            o->at_return = data_there(r, r->p->object, &o->bad_word, &o->bad_value);
        if (rc != SC_NOT_READY || (!poll && !sync) || (poll && is_released(r)) ||
            (sync && sc_now_ns() - o->t_issue > r->cfg.deadline_ns))
            return rc;
        sc_pause_ns(SC_POLL_NS);
    }
}

/* ---- streams ------------------------------------------------------------------------------ */

static int issue_stream_flags(struct run *r, int i, const struct issue_args *a)
{
    int nonblocking = 0, rc = r->b->stream_get_flags(a->stream, &nonblocking);
    r->op[i].value = nonblocking;
    return rc;
}

static int issue_stream_priority(struct run *r, int i, const struct issue_args *a)
{
    int prio = 0, rc = r->b->stream_get_priority(a->stream, &prio);
    r->op[i].value = prio;
    return rc;
}

static int issue_stream_id(struct run *r, int i, const struct issue_args *a)
{
    uint64_t id = 0;
    int rc = r->b->stream_id(a->stream, &id);
    r->op[i].value = (int64_t)id;
    return rc;
}

static int issue_stream_create_invalid(struct run *r, int i, const struct issue_args *a)
{
    (void)i, (void)a;
    return r->b->stream_create_invalid();
}

static int issue_stream_destroy(struct run *r, int i, const struct issue_args *a)
{
    int rc;
    if ((rc = r->b->stream_destroy(a->stream)) == 0)
        r->members[r->first[r->op[i].def->stream] + a->member] = NULL; /* the cleanup must not destroy it again */
    return rc;
}

/* ---- the error state ------------------------------------------------------------------------- */

static int issue_get_last_error(struct run *r, int i, const struct issue_args *a)
{
    (void)i, (void)a;
    return r->b->last_error(1);
}

static int issue_peek_last_error(struct run *r, int i, const struct issue_args *a)
{
    (void)i, (void)a;
    return r->b->last_error(0);
}

/* ---- contexts, devices, threads ---------------------------------------------------------------- */

static int issue_ctx(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->ctx_action(r->op[i].def->cond);
}

/* ctx_enter, and driver_ctx_set (a runtime-API rule's: the runtime backend's ctx_enter is the driver's);
 * driver_ctx_clear names SC_NO_CONTEXT: cuCtxSetCurrent(NULL) */
static int issue_ctx_enter(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    (void)a;
    return r->b->ctx_enter(d->context != SC_NO_CONTEXT ? r->contexts[d->context] : NULL, d->cond);
}

/* ctx_record, ctx_wait: the event of the issuing thread's current context */
static int issue_ctx_record(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->ctx_record_event(r->op[i].event);
}

static int issue_ctx_wait(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->ctx_wait_event(r->op[i].event);
}

/* green_record, green_wait: calls on the program's green context (cond: SC_GREEN_OWN, or SC_GREEN_CONVERTED through
 * cuCtxFromGreenCtx); stream_green: its value 1 where cuStreamGetGreenCtx gave the program's green context, 0 for
 * NULL, 2 for another */
static int issue_green_event(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->green_event(r->green, r->op[i].event, r->op[i].def->kind == SC_OP_GREEN_WAIT,
                             r->op[i].def->cond == SC_GREEN_CONVERTED);
}

static int issue_stream_green(struct run *r, int i, const struct issue_args *a)
{
    void *g = NULL;
    int rc = r->b->stream_green(a->stream, &g);
    r->op[i].value = !g ? 0 : g == r->green ? 1 : 2;
    return rc;
}

/* library_kernel: the marking kernel as a context-independent CUkernel */
static int issue_library_kernel(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->launch_library(a->stream, a->slot_dev, a->token);
}

static int issue_ctx_destroy(struct run *r, int i, const struct issue_args *a)
{
    int c = r->op[i].def->context, rc;
    (void)a;
    if ((rc = r->b->ctx_destroy(r->contexts[c])) == 0)
        r->contexts[c] = NULL; /* destroyed: the cleanup must not destroy it again */
    return rc;
}

/* the cleanup destroys it */
static int issue_ctx_create(struct run *r, int i, const struct issue_args *a)
{
    int c = r->op[i].def->context, rc;
    (void)a;
    if ((rc = r->b->ctx_create_current(&r->contexts[c], r->p->context_flags[c])) == 0)
        made_one();
    return rc;
}

static int issue_primary_ctx_sync(struct run *r, int i, const struct issue_args *a)
{
    (void)i, (void)a;
    return r->b->primary_ctx_sync();
}

static int issue_primary_release(struct run *r, int i, const struct issue_args *a)
{
    int reset = 0, rc = r->b->primary_release(r->op[i].def->cond, &reset);
    (void)a;
    r->op[i].value = reset;
    return rc;
}

static int issue_device_sync(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->device_sync(r->op[i].def->cond);
}

static int issue_device_enter(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    int rc;
    (void)a;
    if (!(rc = r->b->use_device(d->cond)))
        r->entered_device[d->thread] = d->cond + 1; /* read by this thread alone (run_job) */
    return rc;
}

/* the worker ends once the job is done */
static int issue_thread_exit(struct run *r, int i, const struct issue_args *a)
{
    (void)r, (void)i, (void)a;
    return 0;
}

/* ---- the table: each kind's issue function ------------------------------------------------------ */

static issue_fn *const issue_of[SC_OP_KIND_END] = {
    [SC_OP_GATE] = issue_gate,
    [SC_OP_HOST_GATE] = issue_host_gate,
    [SC_OP_KERNEL] = issue_kernel,
    [SC_OP_MEMSET] = issue_memset,
    [SC_OP_MEMSET_PREFETCH] = issue_memset_prefetch,
    [SC_OP_MEMCPY_ASYNC] = issue_memcpy_async,
    [SC_OP_MEMCPY_BATCH] = issue_memcpy_batch,
    [SC_OP_MEMCPY_SYNC] = issue_memcpy_sync,
    [SC_OP_HOST_FUNC] = issue_host_func,
    [SC_OP_CALLBACK] = issue_callback,
    [SC_OP_RECORD] = issue_record,
    [SC_OP_WAIT] = issue_wait,
    [SC_OP_STREAM_SYNC] = issue_sync,
    [SC_OP_EVENT_SYNC] = issue_sync,
    [SC_OP_CTX_SYNC] = issue_sync,
    [SC_OP_STREAM_QUERY] = issue_query,
    [SC_OP_EVENT_QUERY] = issue_query,
    [SC_OP_STREAM_DESTROY] = issue_stream_destroy,
    [SC_OP_EVENT_DESTROY] = issue_event_destroy,
    [SC_OP_VALUE_GATE] = issue_value_gate,
    [SC_OP_MEMSET_SYNC] = issue_memset_sync,
    [SC_OP_WAIT_INVALID] = issue_wait_invalid,
    [SC_OP_WRITE_VALUE] = issue_write_value,
    [SC_OP_WAIT_VALUE] = issue_wait_value,
    [SC_OP_ALLOC] = issue_alloc,
    [SC_OP_FREE] = issue_free,
    [SC_OP_FILL] = issue_fill,
    [SC_OP_POOL_RESERVED] = issue_pool_reserved,
    [SC_OP_POOL_TRIM] = issue_pool_trim,
    [SC_OP_GRAPH_LAUNCH] = issue_graph_launch,
    [SC_OP_CAPTURE_BEGIN] = issue_capture_begin,
    [SC_OP_CAPTURE_END] = issue_capture_end,
    [SC_OP_CAPTURE_STATUS] = issue_capture_status,
    [SC_OP_CAPTURE_ID] = issue_capture_id,
    [SC_OP_CAPTURE_DEPS] = issue_capture_deps,
    [SC_OP_CAPTURE_SEVER] = issue_capture_sever,
    [SC_OP_FAULT] = issue_fault,
    [SC_OP_ELAPSED] = issue_elapsed,
    [SC_OP_STREAM_FLAGS] = issue_stream_flags,
    [SC_OP_STREAM_PRIORITY] = issue_stream_priority,
    [SC_OP_STREAM_CREATE_INVALID] = issue_stream_create_invalid,
    [SC_OP_EVENT_CREATE_TRY] = issue_event_create_try,
    [SC_OP_MEM_ALLOC] = issue_mem_alloc,
    [SC_OP_STREAM_ID] = issue_stream_id,
    [SC_OP_STREAM_CTX] = issue_stream_ctx,
    [SC_OP_SYNC_POLICY_SET] = issue_sync_policy_set,
    [SC_OP_SYNC_POLICY] = issue_sync_policy,
    [SC_OP_COPY_ATTRIBUTES] = issue_copy_attributes,
    [SC_OP_ATTACH_SINGLE] = issue_attach_single,
    [SC_OP_CTX] = issue_ctx,
    [SC_OP_THREAD_EXIT] = issue_thread_exit,
    [SC_OP_MEMCPY_PEER] = issue_memcpy_peer,
    [SC_OP_DEVICE_SYNC] = issue_device_sync,
    [SC_OP_GET_LAST_ERROR] = issue_get_last_error,
    [SC_OP_PEEK_LAST_ERROR] = issue_peek_last_error,
    [SC_OP_KERNEL_PDL] = issue_kernel_pdl,
    [SC_OP_CTX_ENTER] = issue_ctx_enter,
    [SC_OP_BATCH] = issue_batch,
    [SC_OP_BATCH_BARRIER] = issue_batch_barrier,
    [SC_OP_CAPTURE_KEEP] = issue_capture_keep,
    [SC_OP_GRAPH_REPLAY] = issue_graph_replay,
    [SC_OP_DEVICE_ENTER] = issue_device_enter,
    [SC_OP_NODE] = issue_node,
    [SC_OP_NODE_DATA] = issue_node_data,
    [SC_OP_NODE_EVENT] = issue_node_event,
    [SC_OP_NODE_CHILD] = issue_node_child,
    [SC_OP_NODE_COND] = issue_node_cond,
    [SC_OP_NODE_DEVLAUNCH] = issue_node_devlaunch,
    [SC_OP_CAPTURE_TO] = issue_capture_to,
    [SC_OP_CAPTURE_END_GRAPH] = issue_capture_end_graph,
    [SC_OP_EDGE] = issue_edge,
    [SC_OP_INSTANTIATE] = issue_instantiate,
    [SC_OP_INSTANTIATE_UPLOAD] = issue_instantiate_upload,
    [SC_OP_EXEC_UPDATE] = issue_exec_update,
    [SC_OP_EXEC_DESTROY] = issue_exec_destroy,
    [SC_OP_NODE_ENABLE] = issue_node_enable,
    [SC_OP_EXEC_SET_PARAMS] = issue_exec_set_params,
    [SC_OP_RECORD_EXTERNAL] = issue_record_external,
    [SC_OP_WAIT_EXTERNAL] = issue_wait_external,
    [SC_OP_KERNEL_PROGEVENT] = issue_kernel_progevent,
    [SC_OP_GATE_PROGEVENT] = issue_gate_progevent,
    [SC_OP_KERNEL_ATTR] = issue_kernel_attr,
    [SC_OP_STREAM_ATTR] = issue_stream_attr,
    [SC_OP_GATE_ATTR] = issue_gate_attr,
    [SC_OP_CALLBACK_API] = issue_callback_api,
    [SC_OP_CTX_DESTROY] = issue_ctx_destroy,
    [SC_OP_PRIMARY_CTX_SYNC] = issue_primary_ctx_sync,
    [SC_OP_POOL_TRIM_KEEP] = issue_pool_trim_keep,
    [SC_OP_PRIMARY_RELEASE] = issue_primary_release,
    [SC_OP_ALLOC_IMPORTED] = issue_alloc_imported,
    [SC_OP_POOL_SET_ACCESS] = issue_pool_set_access,
    [SC_OP_POOL_ACCESS] = issue_pool_access,
    [SC_OP_MODULE_KERNEL] = issue_kernel,
    [SC_OP_LIBRARY_KERNEL] = issue_library_kernel,
    [SC_OP_CTX_RECORD] = issue_ctx_record,
    [SC_OP_CTX_WAIT] = issue_ctx_wait,
    [SC_OP_GREEN_RECORD] = issue_green_event,
    [SC_OP_GREEN_WAIT] = issue_green_event,
    [SC_OP_STREAM_GREEN] = issue_stream_green,
    [SC_OP_DRIVER_CTX_SET] = issue_ctx_enter, /* the runtime backend's ctx_enter is cuCtxSetCurrent */
    [SC_OP_NODE_ALLOC] = issue_node_alloc,
    [SC_OP_INSTANTIATE_CHECKED] = issue_instantiate_checked,
    [SC_OP_INSTANTIATE_AUTO_FREE] = issue_instantiate_auto_free,
    [SC_OP_CTX_CREATE] = issue_ctx_create,
    [SC_OP_READ] = issue_read,
    [SC_OP_POOL_EXPORT] = issue_pool_export,
    [SC_OP_KERNEL_INVALID] = issue_kernel_invalid,
    [SC_OP_POOL_USED] = issue_pool_used,
    [SC_OP_ADDRESS] = issue_address,
    [SC_OP_NODE_MEMSET_ALLOC] = issue_node_memset_alloc,
    [SC_OP_MEMCPY_PEER_FROM] = issue_memcpy_peer_from,
    [SC_OP_POOL_HIGH] = issue_pool_high,
    [SC_OP_POOL_HIGH_RESET] = issue_pool_high_reset,
    [SC_OP_NODE_FREE] = issue_node_free,
};

issue_fn *issue_fn_of(enum sc_op_kind k) { return k > SC_OP_NONE && k < SC_OP_KIND_END ? issue_of[k] : NULL; }
