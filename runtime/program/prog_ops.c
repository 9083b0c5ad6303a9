/* prog_ops.c - recording a case's ops: each op kind's builder (ops.def's builder column; those of graphs and
 * their nodes: prog_graph_ops.c), and the ops a dependent launch or a read looks back to. */
#include "prog_ops.h"
#include <stdio.h>
#include <string.h>

struct sc_op_def *sc_op_add(sc_prog *p, enum sc_op_kind kind, const char *name, sc_stream s)
{
    static struct sc_op_def sink; /* absorbs the fields of an op that does not fit */
    if (p->nops == SC_MAX_OPS) {
        sc_prog_misuse(p, "more than %d operations", SC_MAX_OPS);
        memset(&sink, 0, sizeof sink);
        return &sink;
    }
    if (s >= p->nstreams || s < SC_ON_DEVICE(SC_NULL_STREAM, SC_MAX_DEVICES - 1))
        sc_prog_misuse(p, "operation %s names an unknown stream", name);
    struct sc_op_def *op = &p->ops[p->nops++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    snprintf(op->name, SC_NAME_LEN, "%s", name ? name : "");
    op->stream = s;
    op->pool = SC_DEFAULT_POOL;
    return op;
}

sc_op sc_op_index(const sc_prog *p, const struct sc_op_def *op)
{
    return op >= p->ops && op < p->ops + SC_MAX_OPS ? (sc_op)(op - p->ops) : 0;
}

void sc_op_check_index(sc_prog *p, const char *op, const char *what, int i, int n)
{
    if (i < 0 || i >= n)
        sc_prog_misuse(p, "operation %s names an unknown %s", op, what);
}

sc_op sc_op_simple(sc_prog *p, enum sc_op_kind k, const char *n, sc_stream s) { return sc_op_index(p, sc_op_add(p, k, n, s)); }

static sc_op with_event(sc_prog *p, enum sc_op_kind k, const char *n, sc_event e, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, k, n, s);
    sc_op_check_index(p, n, "event", e, p->nevents);
    op->event = e;
    return sc_op_index(p, op);
}

sc_op sc_gate(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_GATE, n, s); }
sc_op sc_host_gate(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_HOST_GATE, n, s); }
sc_op sc_value_gate(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_VALUE_GATE, n, s); }
sc_op sc_kernel(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_KERNEL, n, s); }
sc_op sc_module_kernel(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_MODULE_KERNEL, n, s); }
sc_op sc_library_kernel(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_LIBRARY_KERNEL, n, s); }
sc_op sc_fault(sc_prog *p, const char *n, enum sc_fault_kind how, sc_stream s)
{
    sc_op op = sc_op_simple(p, SC_OP_FAULT, n, s);
    if (how != SC_FAULT_ADDRESS && how != SC_FAULT_ASSERT && how != SC_FAULT_TRAP)
        sc_prog_misuse(p, "operation %s: no fault kind %d", n, (int)how);
    p->ops[op].cond = how;
    return op;
}
sc_op sc_kernel_pdl(sc_prog *p, const char *n, enum sc_pdl_sync sync, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_KERNEL_PDL, n, s);
    op->cond = sync;
    return sc_op_index(p, op);
}

sc_op sc_memset_to(sc_prog *p, const char *n, enum sc_mem target, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_MEMSET, n, s);
    op->mem = target;
    return sc_op_index(p, op);
}
sc_op sc_memset(sc_prog *p, const char *n, sc_stream s) { return sc_memset_to(p, n, SC_MEM_DEVICE, s); }
sc_op sc_memset_prefetch(sc_prog *p, const char *n, unsigned to, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_MEMSET_PREFETCH, n, s);
    op->mem = SC_MEM_MANAGED;
    op->flags = to;
    return sc_op_index(p, op);
}
sc_op sc_memset_sync(sc_prog *p, const char *n, enum sc_mem target)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_MEMSET_SYNC, n, SC_NULL_STREAM);
    op->mem = target;
    return sc_op_index(p, op);
}

static sc_op copy(sc_prog *p, enum sc_op_kind k, const char *n, unsigned kind, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, k, n, s);
    op->copy = kind;
    if ((kind & SC_COPY_KIND_MASK) < SC_H2D_PINNED || (kind & SC_COPY_KIND_MASK) > SC_M2D ||
        ((kind & (SC_COPY_2D | SC_COPY_3D)) && (kind & SC_COPY_KIND_MASK) > SC_D2D) ||
        ((kind & SC_BATCH_FLAGS) && k != SC_OP_MEMCPY_BATCH) ||
        (k == SC_OP_MEMCPY_BATCH && ((kind & SC_COPY_2D) || (kind & SC_COPY_KIND_MASK) > SC_D2D)))
        sc_prog_misuse(p, "operation %s: no such copy", n);
    return sc_op_index(p, op);
}
sc_op sc_memcpy_async(sc_prog *p, const char *n, enum sc_copy k, sc_stream s) { return copy(p, SC_OP_MEMCPY_ASYNC, n, k, s); }
sc_op sc_memcpy_sync(sc_prog *p, const char *n, enum sc_copy k) { return copy(p, SC_OP_MEMCPY_SYNC, n, k, SC_NULL_STREAM); }
sc_op sc_memcpy_batch(sc_prog *p, const char *n, enum sc_copy k, sc_stream s) { return copy(p, SC_OP_MEMCPY_BATCH, n, k, s); }

sc_op sc_host_func(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_HOST_FUNC, n, s); }
sc_op sc_callback(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CALLBACK, n, s); }
sc_op sc_record(sc_prog *p, const char *n, sc_event e, sc_stream s) { return with_event(p, SC_OP_RECORD, n, e, s); }
sc_op sc_wait(sc_prog *p, const char *n, sc_event e, sc_stream s) { return with_event(p, SC_OP_WAIT, n, e, s); }
sc_op sc_wait_invalid_flags(sc_prog *p, const char *n, sc_event e, sc_stream s)
{
    return with_event(p, SC_OP_WAIT_INVALID, n, e, s);
}
sc_op sc_record_external(sc_prog *p, const char *n, sc_event e, sc_stream s)
{
    return with_event(p, SC_OP_RECORD_EXTERNAL, n, e, s);
}
sc_op sc_wait_external(sc_prog *p, const char *n, sc_event e, sc_stream s) { return with_event(p, SC_OP_WAIT_EXTERNAL, n, e, s); }
sc_op sc_callback_api(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CALLBACK_API, n, s); }
sc_op sc_kernel_invalid(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_KERNEL_INVALID, n, s); }
sc_op sc_gate_progevent(sc_prog *p, const char *n, sc_event e, sc_stream s) { return with_event(p, SC_OP_GATE_PROGEVENT, n, e, s); }
sc_op sc_kernel_progevent(sc_prog *p, const char *n, sc_event e, sc_stream s)
{
    return with_event(p, SC_OP_KERNEL_PROGEVENT, n, e, s);
}

static sc_op value_op(sc_prog *p, enum sc_op_kind k, const char *n, sc_word w, int cond, unsigned flags, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, k, n, s);
    sc_op_check_index(p, n, "word", w, p->nwords);
    op->word = w;
    op->cond = cond;
    op->flags = flags;
    return sc_op_index(p, op);
}
sc_op sc_write_value(sc_prog *p, const char *n, sc_word w, unsigned flags, sc_stream s)
{
    return value_op(p, SC_OP_WRITE_VALUE, n, w, 0, flags, s);
}
sc_op sc_batch_wait_write(sc_prog *p, const char *n, sc_word wait, sc_word write, unsigned flags, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_BATCH, n, s);
    sc_op_check_index(p, n, "word", wait, p->nwords);
    sc_op_check_index(p, n, "word", write, p->nwords);
    op->word = wait;
    op->word2 = write;
    op->cond = SC_WAIT_GEQ;
    op->flags = flags;
    return sc_op_index(p, op);
}
sc_op sc_batch_barrier_write(sc_prog *p, const char *n, sc_word w, unsigned scope, sc_stream s)
{
    return value_op(p, SC_OP_BATCH_BARRIER, n, w, 0, scope, s);
}
sc_op sc_wait_value(sc_prog *p, const char *n, sc_word w, enum sc_wait_cond cond, sc_stream s)
{
    return value_op(p, SC_OP_WAIT_VALUE, n, w, cond, 0, s);
}

static sc_op buffer_op(sc_prog *p, enum sc_op_kind k, const char *n, sc_buffer m, sc_pool pool, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, k, n, s);
    sc_op_check_index(p, n, "buffer", m, p->nbuffers);
    if (pool != SC_DEFAULT_POOL)
        sc_op_check_index(p, n, "pool", pool, p->npools);
    op->buffer = m;
    op->pool = pool;
    return sc_op_index(p, op);
}
sc_op sc_alloc_async(sc_prog *p, const char *n, sc_buffer m, sc_pool pool, sc_stream s)
{
    return buffer_op(p, SC_OP_ALLOC, n, m, pool, s);
}
sc_op sc_free_async(sc_prog *p, const char *n, sc_buffer m, sc_stream s)
{
    return buffer_op(p, SC_OP_FREE, n, m, SC_DEFAULT_POOL, s);
}
sc_op sc_fill(sc_prog *p, const char *n, sc_buffer m, sc_stream s) { return buffer_op(p, SC_OP_FILL, n, m, SC_DEFAULT_POOL, s); }
sc_op sc_read(sc_prog *p, const char *n, sc_buffer m, sc_stream s) { return buffer_op(p, SC_OP_READ, n, m, SC_DEFAULT_POOL, s); }
sc_op sc_read_batch(sc_prog *p, const char *n, sc_buffer m, sc_stream s)
{
    sc_op op = sc_read(p, n, m, s);
    if (op == p->nops - 1 && p->ops[op].kind == SC_OP_READ) /* not the sink of a program past its last op */
        p->ops[op].copy = SC_D2H_PINNED; /* issue_read: a batch of copies, not cuMemcpyDtoHAsync */
    return op;
}
sc_op sc_memcpy_peer_from(sc_prog *p, const char *n, sc_buffer m, sc_stream s)
{
    return buffer_op(p, SC_OP_MEMCPY_PEER_FROM, n, m, SC_DEFAULT_POOL, s);
}

int sc_op_writer(const sc_prog *p, sc_op i)
{
    for (int j = i - 1; j >= 0; j--)
        if (sc_op_fills(p->ops[j].kind) && p->ops[j].buffer == p->ops[i].buffer)
            return j;
    return -1;
}

static sc_op pool_op(sc_prog *p, enum sc_op_kind k, const char *n, sc_pool pool)
{
    struct sc_op_def *op = sc_op_add(p, k, n, SC_NULL_STREAM);
    if (pool != SC_DEFAULT_POOL)
        sc_op_check_index(p, n, "pool", pool, p->npools);
    op->pool = pool;
    return sc_op_index(p, op);
}
sc_op sc_pool_reserved(sc_prog *p, const char *n, sc_pool pool) { return pool_op(p, SC_OP_POOL_RESERVED, n, pool); }
sc_op sc_pool_trim(sc_prog *p, const char *n, sc_pool pool) { return pool_op(p, SC_OP_POOL_TRIM, n, pool); }
sc_op sc_pool_trim_keep(sc_prog *p, const char *n, sc_pool pool) { return pool_op(p, SC_OP_POOL_TRIM_KEEP, n, pool); }
sc_op sc_pool_used(sc_prog *p, const char *n, sc_pool pool) { return pool_op(p, SC_OP_POOL_USED, n, pool); }
sc_op sc_pool_high(sc_prog *p, const char *n, sc_pool pool, enum sc_pool_high which)
{
    sc_op i = pool_op(p, SC_OP_POOL_HIGH, n, pool);
    p->ops[i].cond = which;
    return i;
}
sc_op sc_pool_high_reset(sc_prog *p, const char *n, sc_pool pool) { return pool_op(p, SC_OP_POOL_HIGH_RESET, n, pool); }
sc_op sc_address(sc_prog *p, const char *n, sc_buffer m) /* a host call, on no stream */
{
    return buffer_op(p, SC_OP_ADDRESS, n, m, SC_DEFAULT_POOL, SC_NULL_STREAM);
}
sc_op sc_pool_access(sc_prog *p, const char *n, sc_pool pool, int device)
{
    sc_op op = pool_op(p, SC_OP_POOL_ACCESS, n, pool);
    if (device < 0 || device >= SC_MAX_DEVICES)
        sc_prog_misuse(p, "operation %s: no device %d", n, device);
    p->ops[op].cond = device;
    return op;
}
sc_op sc_pool_set_access(sc_prog *p, const char *n, sc_pool pool, int device, enum sc_access access)
{
    sc_op op = sc_pool_access(p, n, pool, device); /* the same checks, then its own kind */
    p->ops[op].kind = SC_OP_POOL_SET_ACCESS;
    p->ops[op].flags = access;
    return op;
}
sc_op sc_pool_export(sc_prog *p, const char *n, sc_pool pool) { return pool_op(p, SC_OP_POOL_EXPORT, n, pool); }
sc_op sc_alloc_imported(sc_prog *p, const char *n, sc_pool pool, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_ALLOC_IMPORTED, n, s);
    if (pool != SC_DEFAULT_POOL)
        sc_op_check_index(p, n, "pool", pool, p->npools);
    op->pool = pool;
    return sc_op_index(p, op);
}

sc_op sc_stream_sync(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_STREAM_SYNC, n, s); }
sc_op sc_event_sync(sc_prog *p, const char *n, sc_event e) { return with_event(p, SC_OP_EVENT_SYNC, n, e, SC_NULL_STREAM); }
sc_op sc_ctx_sync(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_CTX_SYNC, n, SC_NULL_STREAM); }
sc_op sc_ctx_record(sc_prog *p, const char *n, sc_event e) { return with_event(p, SC_OP_CTX_RECORD, n, e, SC_NULL_STREAM); }
sc_op sc_ctx_wait(sc_prog *p, const char *n, sc_event e) { return with_event(p, SC_OP_CTX_WAIT, n, e, SC_NULL_STREAM); }
sc_op sc_green_record(sc_prog *p, const char *n, sc_event e, enum sc_green_call how)
{
    sc_op i = with_event(p, SC_OP_GREEN_RECORD, n, e, SC_NULL_STREAM);
    p->ops[i].cond = how;
    return i;
}
sc_op sc_green_wait(sc_prog *p, const char *n, sc_event e, enum sc_green_call how)
{
    sc_op i = with_event(p, SC_OP_GREEN_WAIT, n, e, SC_NULL_STREAM);
    p->ops[i].cond = how;
    return i;
}
sc_op sc_stream_green(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_STREAM_GREEN, n, s); }
sc_op sc_stream_query(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_STREAM_QUERY, n, s); }
sc_op sc_event_query(sc_prog *p, const char *n, sc_event e) { return with_event(p, SC_OP_EVENT_QUERY, n, e, SC_NULL_STREAM); }
sc_op sc_elapsed(sc_prog *p, const char *n, sc_event start, sc_event end)
{
    sc_op i = with_event(p, SC_OP_ELAPSED, n, start, SC_NULL_STREAM);
    sc_op_check_index(p, n, "event", end, p->nevents);
    p->ops[i].event2 = end;
    return i;
}
sc_op sc_stream_flags(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_STREAM_FLAGS, n, s); }
sc_op sc_stream_priority(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_STREAM_PRIORITY, n, s); }
sc_op sc_stream_id(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_STREAM_ID, n, s); }
sc_op sc_stream_ctx(sc_prog *p, const char *n, sc_stream s, sc_context c)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_STREAM_CTX, n, s);
    sc_op_check_index(p, n, "context", c, p->ncontexts);
    op->context = c;
    return sc_op_index(p, op);
}
sc_op sc_sync_policy_set(sc_prog *p, const char *n, sc_stream s, enum sc_sync_policy policy)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_SYNC_POLICY_SET, n, s);
    op->cond = policy;
    return sc_op_index(p, op);
}
sc_op sc_sync_policy(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_SYNC_POLICY, n, s); }
sc_op sc_copy_attributes(sc_prog *p, const char *n, sc_stream dst, sc_stream src)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_COPY_ATTRIBUTES, n, dst);
    op->cond = src;
    return sc_op_index(p, op);
}
sc_op sc_attach_single(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_ATTACH_SINGLE, n, s); }
static sc_op with_attr(sc_prog *p, enum sc_op_kind k, const char *n, sc_stream s, enum sc_launch_attr attr)
{
    struct sc_op_def *op = sc_op_add(p, k, n, s);
    op->cond = attr;
    return sc_op_index(p, op);
}
sc_op sc_kernel_attr(sc_prog *p, const char *n, enum sc_launch_attr a, sc_stream s) { return with_attr(p, SC_OP_KERNEL_ATTR, n, s, a); }
sc_op sc_gate_attr(sc_prog *p, const char *n, enum sc_launch_attr a, sc_stream s) { return with_attr(p, SC_OP_GATE_ATTR, n, s, a); }
sc_op sc_capture_id(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CAPTURE_ID, n, s); }
sc_op sc_capture_deps(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CAPTURE_DEPS, n, s); }
sc_op sc_capture_sever(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CAPTURE_SEVER, n, s); }
sc_op sc_stream_attr(sc_prog *p, const char *n, sc_stream s, enum sc_stream_attr a)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_STREAM_ATTR, n, s);
    op->cond = (int)a;
    return sc_op_index(p, op);
}
sc_op sc_ctx_op(sc_prog *p, const char *n, enum sc_ctx_action a)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_CTX, n, SC_NULL_STREAM);
    op->cond = a;
    return sc_op_index(p, op);
}
sc_op sc_ctx_enter(sc_prog *p, const char *n, sc_context c, enum sc_ctx_action a)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_CTX_ENTER, n, SC_NULL_STREAM);
    sc_op_check_index(p, n, "context", c, p->ncontexts);
    op->context = c;
    op->cond = a;
    return sc_op_index(p, op);
}
/* of SC_NO_CONTEXT (driver_ctx_clear): cuCtxSetCurrent(NULL), the thread left with no current context */
sc_op sc_driver_ctx_set(sc_prog *p, const char *n, sc_context c)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_DRIVER_CTX_SET, n, SC_NULL_STREAM);
    if (c != SC_NO_CONTEXT)
        sc_op_check_index(p, n, "context", c, p->ncontexts);
    op->context = c;
    op->cond = SC_CTX_SET_TO;
    return sc_op_index(p, op);
}
sc_op sc_thread_exit(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_THREAD_EXIT, n, SC_NULL_STREAM); }
/* contexts: one destroyed, one created during the case; the primary context synchronized, released */
sc_op sc_ctx_destroy(sc_prog *p, const char *n, sc_context c)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_CTX_DESTROY, n, SC_NULL_STREAM);
    sc_op_check_index(p, n, "context", c, p->ncontexts);
    op->context = c;
    return sc_op_index(p, op);
}
sc_op sc_ctx_create(sc_prog *p, const char *n, sc_context c)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_CTX_CREATE, n, SC_NULL_STREAM);
    sc_op_check_index(p, n, "context", c, p->ncontexts);
    op->context = c;
    return sc_op_index(p, op);
}
sc_op sc_primary_ctx_sync(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_PRIMARY_CTX_SYNC, n, SC_NULL_STREAM); }
sc_op sc_primary_release(sc_prog *p, const char *n, enum sc_primary_action a)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_PRIMARY_RELEASE, n, SC_NULL_STREAM);
    op->cond = a;
    return sc_op_index(p, op);
}
sc_op sc_memcpy_peer(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_MEMCPY_PEER, n, s); }
sc_op sc_device_sync(sc_prog *p, const char *n, int device)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_DEVICE_SYNC, n, SC_NULL_STREAM);
    if (device < 0 || device >= SC_MAX_DEVICES)
        sc_prog_misuse(p, "operation %s: no device %d", n, device);
    op->cond = device;
    return sc_op_index(p, op);
}
sc_op sc_device_enter(sc_prog *p, const char *n, int device)
{
    sc_op op = sc_device_sync(p, n, device); /* the same checks, then its own kind */
    p->ops[op].kind = SC_OP_DEVICE_ENTER;
    return op;
}
sc_op sc_mem_alloc(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_MEM_ALLOC, n, SC_NULL_STREAM); }
sc_op sc_stream_create_invalid(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_STREAM_CREATE_INVALID, n, SC_NULL_STREAM); }
sc_op sc_get_last_error(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_GET_LAST_ERROR, n, SC_NULL_STREAM); }
sc_op sc_peek_last_error(sc_prog *p, const char *n) { return sc_op_simple(p, SC_OP_PEEK_LAST_ERROR, n, SC_NULL_STREAM); }
sc_op sc_event_create_try(sc_prog *p, const char *n, unsigned flags)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_EVENT_CREATE_TRY, n, SC_NULL_STREAM);
    op->flags = flags;
    return sc_op_index(p, op);
}

sc_op sc_stream_destroy(sc_prog *p, const char *n, sc_stream s)
{
    if (s < 0)
        sc_prog_misuse(p, "operation %s destroys a built-in stream", n);
    return sc_op_simple(p, SC_OP_STREAM_DESTROY, n, s);
}
sc_op sc_event_destroy(sc_prog *p, const char *n, sc_event e) { return with_event(p, SC_OP_EVENT_DESTROY, n, e, SC_NULL_STREAM); }

int sc_op_primary(const struct sc_prog *p, int i)
{
    for (int j = i - 1; j >= 0; j--) {
        const struct sc_op_def *d = &p->ops[j];
        if (d->stream != p->ops[i].stream || d->thread != p->ops[i].thread ||
            sc_op_facts(d->kind)->role != SC_ROLE_WORK)
            continue;
        return sc_op_is_primary(d->kind) ? j : -1;
    }
    return -1;
}
