/*
 * objects.c - what a case's ops act on, made before the case and destroyed
 * after it: streams (and their members), events, pools, contexts, graphs, the
 * words of the stream memory operations, each op's handles, probe and
 * buffers.  Which process makes each (owners) and the device of each.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t run_counter;

/* The handle of member m of stream s (a built-in stream: of the current device). */
void *stream_handle(struct run *r, sc_stream s, int m)
{
    return s >= 0 ? r->members[r->first[s] + m] : r->b->builtin_stream(sc_builtin_kind(s));
}

/* The device an op is issued on: its stream's, its event's, or the one it names. */
static int op_device(struct run *r, const struct sc_op_def *d)
{
    const struct sc_op_facts *f = sc_op_facts(d->kind);
    if (f->role != SC_ROLE_WORK && f->arg == SC_ARG_EVENT)
        return r->event_device[d->event];
    if (f->arg == SC_ARG_DEVICE)
        return d->cond;
    if (f->role != SC_ROLE_WORK && f->arg == SC_ARG_NONE)
        return 0; /* a host call on no handle: the first device */
    return sc_stream_device(r->p, d->stream);
}

/*
 * Words of the stream memory operations.  A word starts at `init`; a
 * write_value writes `set`; a wait_value waits for `operand` under its
 * condition, which holds for `set` and not for `init` (64-bit words use the
 * upper half, so a driver that truncates them fails).  A preset
 * chooses the values a wrong comparison gets wrong: an unsigned or signed
 * GEQ instead of the cyclic one ((int32_t)(*addr - value) >= 0, int64_t for
 * 64 bits), or GEQ in place of EQ, AND or NOR.  The `ahead` and `common` and
 * `open` presets start satisfied (the wait must not hold its stream); the
 * others start unsatisfied until `set` is written.  Each preset's `set` also
 * satisfies the wrong comparisons, so that a broken driver still drains.
 */
struct word_values { uint64_t init, operand, set; };
static struct word_values word_values(int cond, int bits, int preset)
{
    const uint64_t hi = bits == 64 ? 1ull << 32 : 0, all = bits == 64 ? ~0ull : 0xffffffffu;
    const uint64_t sign = 1ull << (bits - 1), low = all >> (bits / 2), one = bits == 64 ? hi : 1;
    if (preset == SC_WORD_MANAGED) { /* the driver must refuse it; should it not, its waits pass at once */
        struct word_values wv = word_values(cond, bits, SC_WORD_DEFAULT);
        wv.init = wv.operand;
        return wv;
    }
    switch (preset) {
    case SC_WORD_GEQ_BEHIND_WRAP: return (struct word_values){ all - 1, 2, 2 };
    case SC_WORD_GEQ_AHEAD_WRAP: return (struct word_values){ 2, all - 1, all - 1 };
    case SC_WORD_GEQ_BEHIND_SIGN: return (struct word_values){ sign - 2, sign + 1, sign + 1 };
    case SC_WORD_GEQ_AHEAD_SIGN: return (struct word_values){ sign + 1, sign - 2, sign - 2 };
    case SC_WORD_EQ_ABOVE: return (struct word_values){ hi | 6, hi | 5, hi | 5 };
    case SC_WORD_AND_DISJOINT: return (struct word_values){ all & ~one, one, one | 2 };
    case SC_WORD_AND_COMMON: return (struct word_values){ one, all, all };
    case SC_WORD_NOR_COVERED: return (struct word_values){ all & ~low, low, all & ~low & ~sign };
    case SC_WORD_NOR_OPEN: return (struct word_values){ 0, all & ~low, all & ~1ull };
    default: break;
    }
    switch (cond) {
    case SC_WAIT_NOR: /* ~(*w | operand) != 0: only the bit the init sets and the set clears */
        return bits == 64 ? (struct word_values){ hi, ~hi, 0 } : (struct word_values){ 1, 0xfffffffeu, 0 };
    case SC_WAIT_EQ: return (struct word_values){ 0, hi | 1, hi | 1 };
    case SC_WAIT_AND: return (struct word_values){ 0, bits == 64 ? hi : 1, hi | 1 };
    default: return (struct word_values){ 0, bits == 64 ? hi : 1, hi | 1 }; /* GEQ */
    }
}

/* The value a wait_value (or a batch's wait, a GEQ) awaits on its word. */
uint64_t operand_of(const struct run *r, const struct sc_op_def *d)
{
    return word_values(d->cond, r->p->words[d->word].bits, r->p->words[d->word].preset).operand;
}

static int stream_prio(struct run *r, enum sc_priority p)
{
    switch (p) {
    case SC_PRIO_LEAST: return r->least;
    case SC_PRIO_GREATEST: return r->greatest;
    case SC_PRIO_OVER_GREATEST: return r->greatest - 1; /* numerically lower is greater */
    case SC_PRIO_UNDER_LEAST: return r->least + 1;
    case SC_PRIO_NONE: break;
    }
    return 0;
}

/* Every device the program uses is idle (a context synchronize each); device 0 is current after. */
int sync_devices(struct run *r)
{
    int rc = 0;
    if (!r->multi)
        return r->b->ctx_sync();
    for (int d = r->ndevices - 1; d >= 0 && !rc; d--)
        rc = r->b->device_sync(d);
    on_dev(r, 0);
    return rc;
}

/* Members 1.. of group op i: their streams, slots (after SC_MAX_OPS) and probes. */
static int add_members(struct run *r, int i, char *why, size_t n)
{
    struct op_rt *o = &r->op[i];
    if (!(o->more = calloc((size_t)o->nmem - 1, sizeof *o->more))) {
        snprintf(why, n, "out of memory");
        return -1;
    }
    for (int m = 1; m < o->nmem; m++) {
        struct member *mb = &o->more[m - 1];
        int rc;
        if (r->next_slot >= (int)SC_NSLOTS) {
            snprintf(why, n, "the program's stream arrays need more than %u slots", SC_EXTRA_SLOTS);
            return -1;
        }
        mb->stream = stream_handle(r, o->def->stream, m);
        mb->slot = r->next_slot++;
        mb->token = o->token;
        mb->harg = (struct host_arg){ &r->arena->slots[mb->slot], mb->token, r->arena->gate, r->cfg.deadline_ns,
                                      { callback_body, &mb->harg }, NULL, NULL };
        if (sc_op_facts(o->def->kind)->probe && (rc = r->b->event_create(&mb->probe, 0))) {
            snprintf(why, n, "creating a probe event failed: %s", r->b->error_name(rc));
            return -1;
        }
    }
    return 0;
}

/* The devices a program uses: 1 + the highest its streams, built-ins and ops name. */
int devices_used(const struct sc_prog *p)
{
    int n = 1;
    for (int s = 0; s < p->nstreams; s++)
        n = p->streams[s].device + 1 > n ? p->streams[s].device + 1 : n;
    for (int i = 0; i < p->nops; i++) {
        const struct sc_op_facts *f = sc_op_facts(p->ops[i].kind);
        int d = f->arg == SC_ARG_DEVICE ? p->ops[i].cond : sc_stream_device(p, p->ops[i].stream);
        if (d < f->devices - 1) /* a peer copy uses device 1 too */
            d = f->devices - 1;
        n = d + 1 > n ? d + 1 : n;
    }
    return n;
}

/* Which process creates each stream and event: the first to issue to the stream / record the event. */
static void owners(struct run *r)
{
    const struct sc_prog *p = r->p;
    for (int s = 0; s < p->nstreams; s++)
        r->stream_proc[s] = -1;
    for (int e = 0; e < p->nevents; e++)
        r->event_proc[e] = -1;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < p->nops; i++) {
            const struct sc_op_def *d = &p->ops[i];
            int k = sc_op_process(p, i);
            if (d->stream >= 0 && r->stream_proc[d->stream] < 0)
                r->stream_proc[d->stream] = k;
            if (sc_op_uses_event(d->kind) && (pass || sc_op_facts(d->kind)->records) && r->event_proc[d->event] < 0)
                r->event_proc[d->event] = k;
        }
    for (int s = 0; s < p->nstreams; s++)
        r->stream_proc[s] = r->stream_proc[s] < 0 ? 0 : r->stream_proc[s];
    for (int e = 0; e < p->nevents; e++)
        r->event_proc[e] = r->event_proc[e] < 0 ? 0 : r->event_proc[e];
}

/* Does this process use event e / buffer m (issue an op that names it)? */
int uses(struct run *r, int e, int m)
{
    for (int i = 0; i < r->p->nops; i++) {
        const struct sc_op_def *d = &r->p->ops[i];
        if (mine(r, i) && ((e >= 0 && sc_op_uses_event(d->kind) && (d->event == e || (d->kind == SC_OP_ELAPSED && d->event2 == e))) ||
                           (m >= 0 && (sc_op_fills(d->kind) || sc_op_facts(d->kind)->reads_buffer) && d->buffer == m)))
            return 1;
    }
    return 0;
}

/*
 * A gate: the spinning kernel sc_gate, or with --wait-gates a stream wait between two stamping kernels
 * (sc_gate_open, sc_gate_close), which needs no SM and no time slice, so that other contexts' legal work
 * is not delayed while it holds its stream.  The kernel stays where the kernel is what a rule looks at: a
 * programmatic launch is triggered by the gate kernel, and a gate captured into a graph would be a wait
 * node there (wait_gates_allowed).
 */
static int wait_gates_allowed(const struct sc_prog *p)
{
    for (int i = 0; i < p->nops; i++)
        if (sc_op_facts(p->ops[i].kind)->kernel_gates)
            return 0;
    return 1;
}
/* is context c made by a ctx_create op of the program (and so not before the case)? */
static int made_by_op(const struct sc_prog *p, int c)
{
    for (int i = 0; i < p->nops; i++)
        if (sc_op_facts(p->ops[i].kind)->makes_context && p->ops[i].context == c)
            return 1;
    return 0;
}

/* The stream priority range; a program that sets priorities on a device with a single one is skipped (-2). */
static int priorities(struct run *r, char *why, size_t n)
{
    const struct sc_prog *p = r->p;
    int rc;
    if ((rc = r->b->priority_range(&r->least, &r->greatest))) {
        snprintf(why, n, "cuCtxGetStreamPriorityRange failed: %s", r->b->error_name(rc));
        return -1;
    }
    for (int s = 0; s < p->nstreams && r->least == r->greatest; s++)
        if (p->streams[s].prio != SC_PRIO_NONE) { /* no two priorities to tell apart: a skip, never a verdict */
            snprintf(why, n, "the device's stream priority range is the single value %d: stream %s's priority "
                     "cannot differ from another's", r->least, p->streams[s].name);
            return -2;
        }
    return 0;
}

/* the green context of the green streams, kept from the program's last case or made now. */
static int green_context(struct run *r, int s, char *why, size_t n)
{
    int rc;
    if (r->proc == 0 && (r->green = take_green(r->b)))
        return 0;
    if ((rc = r->b->green_create(&r->green))) {
        snprintf(why, n, "creating a green context for stream %s failed: %s", r->p->streams[s].name,
                 r->b->error_name(rc));
        return rc == SC_UNSUPPORTED ? -2 : -1;
    }
    made_one();
    return 0;
}

/* Every member of every stream this process creates, on its device. */
static int create_streams(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    int rc;
    for (int s = 0, m = 0; s < p->nstreams; m += p->streams[s++].count) {
        r->first[s] = m;
        on_dev(r, p->streams[s].device);
        if (p->streams[s].green && r->stream_proc[s] == r->proc && !r->green && (rc = green_context(r, s, why, n)))
            return rc;
        for (int k = 0; k < p->streams[s].count && r->stream_proc[s] == r->proc; k++)
            if ((rc = p->streams[s].green
                          ? b->green_stream_create(&r->members[m + k], r->green, p->streams[s].prio != SC_PRIO_NONE,
                                                   stream_prio(r, p->streams[s].prio))
                          : b->stream_create(&r->members[m + k], p->streams[s].kind == SC_NONBLOCKING,
                                             p->streams[s].prio != SC_PRIO_NONE, stream_prio(r, p->streams[s].prio)))) {
                snprintf(why, n, "creating stream %s (member %d of %d) failed: %s", p->streams[s].name, k,
                         p->streams[s].count, b->error_name(rc));
                return -1;
            }
    }
    return 0;
}

/* The events this process creates, each on the device of its first record. */
static int create_events(struct run *r, char *why, size_t n)
{
    const struct sc_prog *p = r->p;
    int rc;
    for (int i = p->nops - 1; i >= 0; i--)
        if (sc_op_facts(p->ops[i].kind)->records)
            r->event_device[p->ops[i].event] = sc_stream_device(p, p->ops[i].stream);
    for (int e = 0; e < p->nevents; e++) {
        on_dev(r, r->event_device[e]);
        if (r->event_proc[e] == r->proc && (rc = r->b->event_create(&r->events[e], p->events[e].flags))) {
            snprintf(why, n, "creating event %s failed: %s", p->events[e].name, r->b->error_name(rc));
            return -1;
        }
    }
    on_dev(r, 0);
    return 0;
}

/* Main: the memory pools, the contexts made before the case (or kept from the last), and the graphs. */
static int create_pools_contexts_graphs(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    int rc = 0;
    for (int k = 0; k < p->npools; k++)
        if ((rc = b->pool_create(&r->pools[k], p->pools[k].flags))) {
            snprintf(why, n, "creating memory pool %s failed: %s", p->pools[k].name, b->error_name(rc));
            return rc == SC_UNSUPPORTED ? -2 : -1;
        }
    for (int c = 0; c < p->ncontexts; c++) {
        if (made_by_op(p, c) || (r->contexts[c] = take_context(b, p->context_flags[c])))
            continue;
        if ((rc = p->context_flags[c] ? b->ctx_create_flags(&r->contexts[c], p->context_flags[c])
                                      : b->ctx_create(&r->contexts[c]))) {
            snprintf(why, n, "creating context %s failed: %s", p->contexts[c], b->error_name(rc));
            return rc == SC_UNSUPPORTED ? -2 : -1;
        }
        made_one();
    }
    for (int g = 0; g < p->ngraphs; g++) {
        enum sc_graph_kind k = p->graphs[g].kind;
        r->runs_nodes_of[g] = 1u << g;
        if (k == SC_GRAPH_NODES) /* empty; the program's node ops build it */
            rc = b->graph_new(&r->graphs[g]);
        else if (k != SC_GRAPH_CAPTURED)
            rc = b->graph_create(&r->graphs[g], k == SC_GRAPH_GATE);
        if (rc) {
            snprintf(why, n, "building graph %s failed: %s", p->graphs[g].name, b->error_name(rc));
            return -1;
        }
    }
    return 0;
}

/* Main: the words of the stream memory operations, each at its start value. */
static int init_words(struct run *r, char *why, size_t n)
{
    const struct sc_prog *p = r->p;
    if (words_ready(r, why, n))
        return -1;
    for (int w = 0; w < p->nwords; w++) {
        r->word_cond[w] = SC_WAIT_GEQ;
        for (int i = p->nops - 1; i >= 0; i--)
            if (sc_op_facts(p->ops[i].kind)->word_wait && p->ops[i].word == w)
                r->word_cond[w] = p->ops[i].cond; /* the first wait decides */
        struct word_values wv = word_values(r->word_cond[w], p->words[w].bits, p->words[w].preset);
        r->word_set[w] = wv.set;
        __atomic_store_n(word_host(r, w), wv.init, __ATOMIC_SEQ_CST);
    }
    return 0;
}

/* Op i's destination cleared and its source filled with its token (on the device, through the scratch). */
static int prepare_buffers(struct run *r, int i)
{
    const sc_backend *b = r->b;
    struct op_rt *o = &r->op[i];
    enum where dw, sw;
    int rc = 0;
    op_ends(o->def, &dw, &sw);
    void *dst = arena_buffer(r, i, dw, &rc);
    if (rc == 0 && dw != W_NONE) {
        if (on_host(dw))
            fill_words(dst, 0);
        else
            rc = b->memset_sync(dst, 0, sc_copy_bytes);
    }
    void *src = rc ? NULL : arena_buffer(r, i, sw, &rc);
    if (rc == 0 && sw != W_NONE) {
        if (on_host(sw))
            fill_words(src, o->token);
        else {
            fill_words(r->arena->scratch, o->token);
            on_dev(r, sw == W_PEER_SRC ? peer_of(o->device) : o->device);
            rc = b->memcpy_sync(src, r->arena->scratch, sc_copy_bytes, SC_H2D_PINNED);
            on_dev(r, o->device);
        }
    }
    return rc;
}

/* Op i's run-time state: its token, fill byte, device, handles and host argument; for an op this process
 * issues, its probe, group members, the device's pool where it uses it, and its buffers.  -3: the buffers
 * failed with rc (*buf_rc). */
static int prepare_op(struct run *r, int i, uint32_t case_id, int *buf_rc, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    const struct sc_op_def *d = &p->ops[i];
    const struct sc_op_facts *f = sc_op_facts(d->kind);
    struct op_rt *o = &r->op[i];
    int rc;
    o->def = d;
    o->token = (case_id << 8) | (uint32_t)(i + 1);
    o->fill = (unsigned char)(0x40 + i);
    if (f->from_buffer) { /* what its buffer's last fill before it wrote */
        int w = sc_op_writer(p, i);
        o->fill = w >= 0 ? (unsigned char)(0x40 + w) : 0;
    }
    o->at_return = -1;
    o->device = op_device(r, d);
    on_dev(r, o->device);
    o->stream = stream_handle(r, d->stream, 0);
    o->nmem = sc_stream_count(p, d->stream);
    o->event = sc_op_uses_event(d->kind) ? r->events[d->event] : NULL;
    o->harg = (struct host_arg){ &r->arena->slots[i], o->token, r->arena->gate, r->cfg.deadline_ns,
                                 { callback_body, &o->harg }, r->b, o->stream };
    if (!mine(r, i))
        return 0; /* another process issues it */
    if (f->probe && (rc = b->event_create(&o->probe, 0))) {
        snprintf(why, n, "creating a probe event failed: %s", b->error_name(rc));
        return -1;
    }
    if (o->nmem > 1 && add_members(r, i, why, n))
        return -1;
    if (f->begins_capture)
        r->has_capture = 1;
    if (f->default_pool && d->pool == SC_DEFAULT_POOL && !r->default_pool && (rc = b->default_pool(&r->default_pool))) {
        snprintf(why, n, "the device's memory pool: %s", b->error_name(rc));
        return rc == SC_UNSUPPORTED ? -2 : -1;
    }
    if ((*buf_rc = prepare_buffers(r, i)))
        return -3;
    return 0;
}

static int buffers_failed(struct run *r, int rc, char *why, size_t n)
{
    snprintf(why, n, "preparing buffers failed: %s", r->b->error_name(rc));
    return -1;
}

/* Buffers filled, destinations cleared, handles created; the GPU is idle after. */
int prepare(struct run *r, char *why, size_t n)
{
    const struct sc_prog *p = r->p;
    int rc, buf_rc = 0;
    uint32_t case_id = r->proc ? r->sh->case_id : ++run_counter;

    owners(r);
    r->wait_gates = r->cfg.wait_gates && wait_gates_allowed(p); /* once, not at each gate (an array has 1024) */
    if (r->proc == 0) {
        memset(r->arena->slots, 0, sizeof(struct sc_slot) * SC_NSLOTS);
        __atomic_store_n(r->arena->gate, 0u, __ATOMIC_SEQ_CST);
        if (r->sh && start_peers(r, case_id, why, n))
            return -1;
    }
    if ((rc = priorities(r, why, n)) || (rc = create_streams(r, why, n)) || (rc = create_events(r, why, n)))
        return rc;
    if (r->sh && (rc = exchange(r, why, n)))
        return rc;
    if (r->proc == 0 && ((rc = create_pools_contexts_graphs(r, why, n)) || (rc = init_words(r, why, n))))
        return rc;
    for (int i = 0; i < p->nops; i++)
        if ((rc = prepare_op(r, i, case_id, &buf_rc, why, n)))
            return rc == -3 ? buffers_failed(r, buf_rc, why, n) : rc;
    if ((buf_rc = sync_devices(r)))
        return buffers_failed(r, buf_rc, why, n);
    if (r->sh) {
        store(&r->sh->ready[r->proc], 1);
        if (r->proc == 0 && (rc = await_peers(r, r->sh->ready, "prepared its operations", r->cfg.deadline_ns, why, n)))
            return rc;
    }
    return 0;
}

/* The handles this process created or opened, destroyed. */
void destroy_objects(struct run *r)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    for (int m = 0; m < p->nbuffers; m++) /* IPC memory: closed by the importers before main frees it */
        if (p->buffer_ipc[m] == SC_IPC_FROM_POOL) {
            /* "The imported memory must be freed from all importing processes before being freed in
             * the exporting process" (cuMemPoolImportPointer): main frees after the others finished the run */
            if (r->proc != 0 && (r->ipc_pool[m] || r->buf_ptr[m]))
                b->ipc_pool_close(r->ipc_pool[m], r->buf_ptr[m]);
            else if (r->proc == 0 && r->buf_ptr[m] &&
                     b->free_async(r->buf_ptr[m], b->builtin_stream(SC_LEGACY_STREAM)) == 0)
                b->stream_sync(b->builtin_stream(SC_LEGACY_STREAM));
            if (r->proc == 0 && r->ipc_pool[m])
                b->pool_destroy(r->ipc_pool[m]);
            r->buf_ptr[m] = r->ipc_pool[m] = NULL;
        } else if (r->buf_ptr[m] && p->buffer_ipc[m]) {
            if (r->buf_opened[m])
                b->ipc_mem_close(r->buf_ptr[m]);
            else if (r->proc == 0)
                b->dev_free(r->buf_ptr[m]);
            r->buf_ptr[m] = NULL;
        }
    if (r->faulted_at < 0) {
        int freed = 0;
        for (int m = 0; m < p->nbuffers; m++)
            if (r->buf_ptr[m] && !r->buf_freed[m])
                freed += b->free_async(r->buf_ptr[m], b->builtin_stream(SC_LEGACY_STREAM)) == 0;
        if (freed)
            b->ctx_sync();
    }
    for (int g = 0; g < p->ngraphs; g++)
        if (r->graphs[g])
            b->graph_destroy(r->graphs[g]);
    for (int k = 0; k < p->npools; k++)
        if (r->pools[k])
            b->pool_destroy(r->pools[k]);
    int keepable = context_keepable(r);
    for (int c = 0; c < p->ncontexts; c++) /* the workers, whose stacks held them, have ended */
        if (r->contexts[c]) {
            if (keepable && !made_by_op(p, c))
                keep_context(r, c); /* for the program's next case */
            else
                b->ctx_destroy(r->contexts[c]);
            r->contexts[c] = NULL;
        }
    for (int i = 0; i < p->nops; i++) {
        on_dev(r, r->op[i].device);
        if (r->op[i].probe)
            b->event_destroy(r->op[i].probe);
        for (int m = 1; m < r->op[i].nmem && r->op[i].more; m++)
            if (r->op[i].more[m - 1].probe)
                b->event_destroy(r->op[i].more[m - 1].probe);
    }
    for (int e = 0; e < p->nevents; e++) {
        on_dev(r, r->event_device[e]);
        if (r->events[e])
            b->event_destroy(r->events[e]);
    }
    for (int s = 0; s < p->nstreams; s++) {
        on_dev(r, p->streams[s].device);
        for (int m = 0; m < p->streams[s].count; m++)
            if (r->members[r->first[s] + m])
                b->stream_destroy(r->members[r->first[s] + m]);
    }
    if (r->green) { /* after its streams ("Users must explicitly destroy all such streams before ...") */
        if (!(r->proc == 0 && r->faulted_at < 0 && keep_green(b, r->green))) /* for the program's next case */
            b->green_destroy(r->green);
        r->green = NULL;
    }
    for (int i = 0; i < p->nops; i++)
        free(r->op[i].more);
    on_dev(r, 0);
}
