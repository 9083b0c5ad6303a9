/*
 * run.c - running one case's program through one backend (see run.h).
 *
 * The process's main thread is the observer: it never makes a call that can
 * block (only queries), so it can always release the gates and keep every
 * deadline.  Every op of the program is issued by a worker thread, one per
 * host thread the program names.
 *
 * Its parts: case.h (the run's state), arena.c (the memory ops use),
 * observe.c (what has completed; the gates' release), judge.c (what the
 * observations mean), log.c (the timeline); this file prepares, issues through
 * the workers, starts the other processes and runs sc_run_program's phases.
 */
#define _GNU_SOURCE
#include "case.h"
#include "support.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct arena arenas[2];
static uint32_t run_counter;

static struct arena shared_arenas[2];
static struct shared *shared_mem[2];
static int shared_fd[2] = { -1, -1 };
/* main, per API: the other processes (0: none running), the runs started, processes started */
static pid_t peer_pid[2][SC_MAX_PROCS];
static char peer_setting[2][SC_MAX_PROCS][SC_ENV_LEN]; /* blocking: what each was started with (sc_process_env) */
static uint32_t run_gen[2];
static uint32_t runs_told[2]; /* run_gen when the last program's peers were told of (sc_run_end_peers) */
static unsigned peers_started[2];
/* a process other than main: the run it was told to start */
static uint32_t peer_gen;

/* ---- host functions the ops enqueue ------------------------------------- */

static void host_mark(void *a)
{
    struct host_arg *h = a;
    h->slot->start_ns = h->slot->end_ns = sc_now_ns();
    h->slot->runs++;
    __atomic_store_n(&h->slot->token, h->token, __ATOMIC_RELEASE);
}

static void host_gate(void *a)
{
    struct host_arg *h = a;
    uint64_t start = sc_now_ns();
    uint32_t status = SC_GATE_RELEASED;
    h->slot->start_ns = start;
    while (__atomic_load_n(h->gate, __ATOMIC_ACQUIRE) == 0) {
        if (sc_now_ns() - start > h->max_ns) {
            status = SC_GATE_EXPIRED;
            break;
        }
        sc_pause_ns(SC_POLL_NS);
    }
    h->slot->end_ns = sc_now_ns();
    h->slot->status = status;
    h->slot->runs++;
    __atomic_store_n(&h->slot->token, h->token, __ATOMIC_RELEASE);
}

static void callback_body(void *a, int status)
{
    struct host_arg *h = a;
    h->slot->arg = (uint32_t)status;
    host_mark(a);
}

/* capmisc: a callback that makes a CUDA call, which NVIDIA's driver text says is not permitted there: what the
 * call answered is its answer */
static void callback_api_body(void *a, int status)
{
    struct host_arg *h = a;
    (void)status;
    h->slot->arg = (uint32_t)h->b->stream_query(h->stream);
    host_mark(a);
}


/* ---- the arena ----------------------------------------------------------- */

/*
 * Several processes: the arena's pinned block is the shared region, registered
 * (page-locked, device-mapped) in every process, so a kernel or host function
 * of any process writes slots main observes, and main's release opens gates in
 * every process.  Main makes the region once per backend (fd < 0); a child maps
 * the one its parent made.
 */
static struct shared *region_of(int k, int fd, char *why, size_t n)
{
    if (!shared_mem[k]) {
        shared_mem[k] = fd < 0 ? sc_procs_region_create(SC_SHARED_BYTES, &shared_fd[k], why, n)
                               : sc_procs_region_map(fd, SC_SHARED_BYTES);
        if (!shared_mem[k] && fd >= 0)
            snprintf(why, n, "cannot map the memory shared with main");
    }
    return shared_mem[k];
}

static struct shared *shared_region(const sc_backend *b, int fd, char *why, size_t n)
{
    int k = b == &sc_driver_backend ? 0 : 1, rc;
    struct arena *ar = &shared_arenas[k];
    if (ar->ready)
        return shared_mem[k];
    struct shared *sh = region_of(k, fd, why, n);
    if (!sh)
        return NULL;
    char *dev;
    if ((rc = b->host_register(sh, SC_SHARED_BYTES)) || (rc = b->host_dev_ptr((void **)&dev, sh)) ||
        (rc = b->host_alloc(&ar->scratch, SC_COPY_BYTES))) {
        snprintf(why, n, "cannot register the memory shared between the case's processes: %s", b->error_name(rc));
        return NULL;
    }
    ar->slots = sh->slots;
    ar->slots_dev = dev + offsetof(struct shared, slots);
    ar->gate = &sh->gate;
    ar->gate_dev = dev + offsetof(struct shared, gate);
    ar->words = sh->words;
    ar->words_dev = dev + offsetof(struct shared, words);
    ar->ready = 1;
    return shared_mem[k] = sh;
}

static int shared_ready(struct run *r, int fd, char *why, size_t n)
{
    int k = r->b == &sc_driver_backend ? 0 : 1;
    r->arena = &shared_arenas[k];
    r->pid = peer_pid[k];
    return (r->sh = shared_region(r->b, fd, why, n)) ? 0 : -1;
}

/* The handle of member m of stream s (a built-in stream: of the current device). */
static void *stream_handle(struct run *r, sc_stream s, int m)
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
 * upper half, so a driver that truncates them fails).  A preset (ctxmem)
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
    if (preset == SC_WORD_MANAGED) { /* um: the driver must refuse it; should it not, its waits pass at once */
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
static uint64_t operand_of(const struct run *r, const struct sc_op_def *d)
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
static int sync_devices(struct run *r)
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
static int devices_used(const struct sc_prog *p)
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

static int uses_event(enum sc_op_kind k) { return sc_op_facts(k)->arg == SC_ARG_EVENT; }

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
            if (uses_event(d->kind) && (pass || d->kind == SC_OP_RECORD) && r->event_proc[d->event] < 0)
                r->event_proc[d->event] = k;
        }
    for (int s = 0; s < p->nstreams; s++)
        r->stream_proc[s] = r->stream_proc[s] < 0 ? 0 : r->stream_proc[s];
    for (int e = 0; e < p->nevents; e++)
        r->event_proc[e] = r->event_proc[e] < 0 ? 0 : r->event_proc[e];
}

/* Does this process use event e / buffer m (issue an op that names it)? */
static int uses(struct run *r, int e, int m)
{
    for (int i = 0; i < r->p->nops; i++) {
        const struct sc_op_def *d = &r->p->ops[i];
        if (mine(r, i) && ((e >= 0 && uses_event(d->kind) && (d->event == e || (d->kind == SC_OP_ELAPSED && d->event2 == e))) ||
                           (m >= 0 && (d->kind == SC_OP_FILL || d->kind == SC_OP_READ) && d->buffer == m)))
            return 1;
    }
    return 0;
}

/*
 * Waits until every process set its flag (created or ready), up to limit_ns;
 * <0 when one failed, -2 when it skips.  `what` completes "process p1 had not ...".
 */
static int await_peers(struct run *r, int *flags, const char *what, uint64_t limit_ns, char *why, size_t n)
{
    const struct sc_prog *p = r->p;
    uint64_t start = sc_now_ns(), end = start + limit_ns;
    for (;;) {
        int all = 1;
        for (int k = 0; k < p->nprocs; k++) {
            int f = load(&flags[k]);
            if (f < 0) {
                snprintf(why, n, "process %s: %s", p->procs[k], r->sh->error[k]);
                return f == -2 ? -2 : -1;
            }
            all &= f == 1;
            char how[160];
            if (r->proc == 0 && k > 0 && f != 1 && !sc_procs_alive(r->pid[k], how, sizeof how)) {
                snprintf(why, n, "process %s %s before it %s", p->procs[k], how, what);
                return -1;
            }
        }
        if (all)
            return 0;
        if (r->proc > 0 && (sc_procs_orphaned() || load(&r->sh->quit))) {
            snprintf(why, n, "main ended the case");
            return -1;
        }
        if (sc_now_ns() > end) {
            int k = 0;
            while (k < p->nprocs - 1 && load(&flags[k]) == 1)
                k++;
            snprintf(why, n, "process %s had not %s after %.0f ms", p->procs[k], what, (double)(sc_now_ns() - start) / 1e6);
            return -1;
        }
        sc_pause_ns(SC_POLL_NS);
    }
}

/*
 * Main: the region's control part is reset for a new run, which the other
 * processes, waiting since their last run, then start; one that is not
 * running (the first run, or it ended) is started for it.
 */
static int start_peers(struct run *r, uint32_t case_id, char *why, size_t n)
{
    struct shared *sh = r->sh;
    const struct sc_prog *p = r->p;
    int api = r->b == &sc_driver_backend ? 0 : 1;
    char how[160];
    for (int k = 1; k < p->nprocs; k++)
        if (r->pid[k] > 0 && !sc_procs_alive(r->pid[k], how, sizeof how))
            r->pid[k] = 0; /* it ended after its last run: a new one takes its place */
        else if (r->pid[k] > 0 && strcmp(peer_setting[api][k], p->proc_env[k]) != 0) {
            sc_procs_reap(r->pid[k], 0); /* idle, but started with another environment: replaced */
            r->pid[k] = 0;
        }
    memset(sh->created, 0, sizeof sh->created);
    memset(sh->ready, 0, sizeof sh->ready);
    memset(sh->mbox, 0, sizeof sh->mbox);
    memset(sh->op, 0, sizeof sh->op);
    memset(sh->error, 0, sizeof sh->error);
    sh->case_id = case_id;
    sh->case_index = r->cfg.case_index;
    sh->control = r->cfg.control;
    store(&sh->quit, 0);
    store(&sh->released, 0);
    store(&sh->retire, 0);
    store(&sh->moved, 0);
    r->gen = ++run_gen[api];
    __atomic_store_n(&sh->run_gen, r->gen, __ATOMIC_RELEASE); /* last: a process that sees it sees the rest */
    for (int k = 1; k < p->nprocs; k++)
        if (r->pid[k] <= 0) {
            if (!region_of(0, -1, why, n) || !region_of(1, -1, why, n)) /* it may go on to the next API's */
                return -1;
            if (sc_procs_spawn(r->cfg.argv, api, k, shared_fd, p->proc_env[k], &r->pid[k], why, n)) {
                r->pid[k] = 0;
                return -1;
            }
            snprintf(peer_setting[api][k], SC_ENV_LEN, "%s", p->proc_env[k]);
            peers_started[api]++;
        }
    return 0;
}

/* A capability the device or the API lacks (IPC is documented as restricted): the point is skipped. */
static int missing(int rc) { return rc == SC_UNSUPPORTED || rc == SC_NOT_SUPPORTED ? -2 : -1; }

/*
 * ipcpool: main allocates memory m from a pool it creates exportable (SC_POOL_IPC), zeroes it and waits for
 * that (the allocation is complete before any process uses it, as cuMemPoolImportPointer asks), publishes
 * its export data in the region and passes the pool's file descriptor to every other process over its
 * socket, tagged with the run.  A device or driver that cannot export the pool skips the point.
 */
static int export_pool_memory(struct run *r, int m, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    void *s = b->builtin_stream(SC_LEGACY_STREAM);
    int rc, fd = -1;
    if ((rc = b->pool_create(&r->ipc_pool[m], SC_POOL_IPC))) {
        if (rc == SC_UNSUPPORTED || rc == SC_NOT_SUPPORTED) {
            snprintf(why, n, "%s", sc_support_no_ipc_pool());
            return -2;
        }
        snprintf(why, n, "creating the exportable pool of memory %s failed: %s", p->buffers[m], b->error_name(rc));
        return -1;
    }
    if ((rc = b->alloc_async(&r->buf_ptr[m], SC_COPY_BYTES, r->ipc_pool[m], s)) ||
        (rc = b->memset_async(s, r->buf_ptr[m], 0, SC_COPY_BYTES)) || (rc = b->stream_sync(s))) {
        snprintf(why, n, "allocating memory %s from its exportable pool (cuMemAllocFromPoolAsync): %s", p->buffers[m],
                 b->error_name(rc));
        return -1;
    }
    if ((rc = b->ipc_pool_export(r->ipc_pool[m], r->buf_ptr[m], &fd, r->sh->mem_handle[m]))) {
        if (fd >= 0)
            close(fd);
        if (rc == SC_UNSUPPORTED || rc == SC_NOT_SUPPORTED) {
            snprintf(why, n, "%s", sc_support_no_ipc_pool());
            return -2;
        }
        snprintf(why, n, "exporting memory %s (cuMemPoolExportToShareableHandle, cuMemPoolExportPointer): %s",
                 p->buffers[m], b->error_name(rc));
        return -1;
    }
    for (int k = 1; k < p->nprocs; k++)
        if (sc_procs_send_fd(r->pid[k], fd, r->gen, why, n)) {
            close(fd);
            return -1;
        }
    close(fd);
    return 0;
}

/* ipcpool: another process takes the pool's file descriptor main passed for this run and, when it uses memory
 * m, imports the pool and the allocation. */
static int import_pool_memory(struct run *r, int m, char *why, size_t n)
{
    const sc_backend *b = r->b;
    char how[200];
    int rc, fd = -1;
    if (sc_procs_recv_fd(peer_gen, r->cfg.deadline_ns, &fd, how, sizeof how)) {
        snprintf(why, n, "the file descriptor of memory %s's pool: %s", r->p->buffers[m], how);
        return -1;
    }
    if (!uses(r, -1, m)) {
        close(fd);
        return 0;
    }
    rc = b->ipc_pool_import(&r->ipc_pool[m], &r->buf_ptr[m], fd, r->sh->mem_handle[m]);
    close(fd);
    r->buf_opened[m] = r->buf_ptr[m] != NULL;
    if (rc == SC_UNSUPPORTED || rc == SC_NOT_SUPPORTED) {
        snprintf(why, n, "%s", sc_support_no_ipc_pool());
        return -2;
    }
    if (rc) {
        snprintf(why, n, "importing memory %s (cuMemPoolImportFromShareableHandle, cuMemPoolImportPointer): %s",
                 r->p->buffers[m], b->error_name(rc));
        return -1;
    }
    return 0;
}

/*
 * Several processes: the owner of an interprocess event publishes its IPC
 * handle, main allocates and publishes IPC memory; once every process did,
 * each opens what it uses of the others'.
 */
static int exchange(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    struct shared *sh = r->sh;
    int rc, k = r->proc;
    for (int e = 0; e < p->nevents; e++)
        if (r->event_proc[e] == k && (p->events[e].flags & SC_EV_INTERPROCESS) &&
            (rc = b->ipc_event_handle(r->events[e], sh->event_handle[e]))) {
            snprintf(why, n, "cuIpcGetEventHandle of event %s: %s", p->events[e].name, b->error_name(rc));
            return missing(rc);
        }
    for (int m = 0; m < p->nbuffers; m++)
        if (k == 0 && p->buffer_ipc[m] == SC_IPC_FROM_POOL) {
            if ((rc = export_pool_memory(r, m, why, n)))
                return rc;
        } else if (k == 0 && p->buffer_ipc[m]) {
            if ((rc = b->dev_alloc(&r->buf_ptr[m], SC_COPY_BYTES)) || (rc = b->memset_sync(r->buf_ptr[m], 0, SC_COPY_BYTES)) ||
                (rc = b->ipc_mem_handle(r->buf_ptr[m], sh->mem_handle[m]))) {
                snprintf(why, n, "exporting memory %s (cuIpcGetMemHandle): %s", p->buffers[m], b->error_name(rc));
                return missing(rc);
            }
        }
    store(&sh->created[k], 1);
    /* a process starts with cuInit and its context: seen to take over 10 s on an H100 under load with
     * CUDA_DEVICE_MAX_CONNECTIONS=32, and not what the case checks */
    if ((rc = await_peers(r, sh->created, "started and created its objects", SC_START_DEADLINES * r->cfg.deadline_ns,
                          why, n)))
        return rc;
    for (int e = 0; e < p->nevents; e++)
        if (r->event_proc[e] != k && uses(r, e, -1) && (rc = b->ipc_event_open(&r->events[e], sh->event_handle[e]))) {
            snprintf(why, n, "cuIpcOpenEventHandle of event %s: %s", p->events[e].name, b->error_name(rc));
            return missing(rc);
        }
    for (int m = 0; m < p->nbuffers; m++)
        if (k != 0 && p->buffer_ipc[m] == SC_IPC_FROM_POOL) {
            if ((rc = import_pool_memory(r, m, why, n)))
                return rc;
        } else if (k != 0 && p->buffer_ipc[m] && uses(r, -1, m)) {
            if ((rc = b->ipc_mem_open(&r->buf_ptr[m], sh->mem_handle[m]))) {
                snprintf(why, n, "cuIpcOpenMemHandle of memory %s: %s", p->buffers[m], b->error_name(rc));
                return missing(rc);
            }
            r->buf_opened[m] = 1;
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
        switch (p->ops[i].kind) {
        case SC_OP_KERNEL_PDL:
        case SC_OP_KERNEL_PROGEVENT:
        case SC_OP_GATE_PROGEVENT:
        case SC_OP_CAPTURE_BEGIN:
        case SC_OP_CAPTURE_KEEP:
            return 0;
        default: break;
        }
    return 1;
}
/* green: is context c made by a ctx_create op of the program (and so not before the case)? */
static int made_by_op(const struct sc_prog *p, int c)
{
    for (int i = 0; i < p->nops; i++)
        if (p->ops[i].kind == SC_OP_CTX_CREATE && p->ops[i].context == c)
            return 1;
    return 0;
}

/*
 * The contexts a program's cases make before they run (cuCtxCreate) are kept from one case to the next
 * with the same flags and API, instead of being destroyed and made again each time: making and destroying
 * one was most of a ctx rule's point (docs/performance.md).  A context is kept only when the case left it
 * as it found it: not destroyed or made by an op of the case, not faulted, and never made current in
 * main's thread (its workers, whose stacks held it, have ended).  A case's green context is kept the same
 * way, after its streams are destroyed, unless the case faulted: a green context's creation is the same
 * serialized driver work (6 of a green rule's 7 creations were of one green context made again).  A worker
 * process runs one program at a time; sc_run_forget_contexts destroys what is kept when the program (or its
 * API) ends.
 */
static struct kept_context {
    const sc_backend *b;
    unsigned flags;
    void *ctx;
} kept[SC_MAX_CONTEXTS];
/* green: a green context likewise, once its streams are gone, unless the case faulted */
static struct kept_context kept_green;

static void *take_context(const sc_backend *b, unsigned flags)
{
    for (int i = 0; i < SC_MAX_CONTEXTS; i++)
        if (kept[i].ctx && kept[i].b == b && kept[i].flags == flags) {
            void *c = kept[i].ctx;
            kept[i].ctx = NULL;
            return c;
        }
    return NULL;
}
static int context_keepable(const struct run *r)
{
    if (r->faulted_at >= 0)
        return 0;
    for (int i = 0; i < r->p->nops; i++) {
        enum sc_op_kind k = r->p->ops[i].kind;
        if (k == SC_OP_CTX_DESTROY || k == SC_OP_CTX_CREATE || k == SC_OP_FAULT ||
            ((k == SC_OP_CTX_ENTER || k == SC_OP_CTX) && r->p->ops[i].thread == 0))
            return 0;
    }
    return 1;
}
static void keep_context(const struct run *r, int c)
{
    for (int i = 0; i < SC_MAX_CONTEXTS; i++)
        if (!kept[i].ctx) {
            kept[i] = (struct kept_context){ r->b, r->p->context_flags[c], r->contexts[c] };
            return;
        }
    r->b->ctx_destroy(r->contexts[c]);
}
/* Contexts this process's cases made (cuCtxCreate, green contexts), not taken from those kept: each is a
 * creation the driver serializes across the GPU, which tools/bench counts in its floor. */
static unsigned contexts_made;
static void made_one(void) { __atomic_add_fetch(&contexts_made, 1u, __ATOMIC_RELAXED); }
unsigned sc_run_take_contexts_made(void) { return __atomic_exchange_n(&contexts_made, 0u, __ATOMIC_RELAXED); }

void sc_run_forget_contexts(void)
{
    for (int i = 0; i < SC_MAX_CONTEXTS; i++)
        if (kept[i].ctx) {
            kept[i].b->ctx_destroy(kept[i].ctx);
            kept[i].ctx = NULL;
        }
    if (kept_green.ctx) {
        kept_green.b->green_destroy(kept_green.ctx);
        kept_green.ctx = NULL;
    }
}

/* Buffers filled, destinations cleared, handles created; the GPU is idle after. */
static int prepare(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    int rc;
    uint32_t case_id = r->proc ? r->sh->case_id : ++run_counter;

    owners(r);
    r->wait_gates = r->cfg.wait_gates && wait_gates_allowed(p); /* once, not at each gate (an array has 1024) */
    if (r->proc == 0) {
        memset(r->arena->slots, 0, sizeof(struct sc_slot) * SC_NSLOTS);
        __atomic_store_n(r->arena->gate, 0u, __ATOMIC_SEQ_CST);
        if (r->sh && start_peers(r, case_id, why, n))
            return -1;
    }
    if ((rc = b->priority_range(&r->least, &r->greatest))) {
        snprintf(why, n, "cuCtxGetStreamPriorityRange failed: %s", b->error_name(rc));
        return -1;
    }
    for (int s = 0; s < p->nstreams && r->least == r->greatest; s++)
        if (p->streams[s].prio != SC_PRIO_NONE) { /* no two priorities to tell apart: a skip, never a verdict */
            snprintf(why, n, "the device's stream priority range is the single value %d: stream %s's priority "
                     "cannot differ from another's", r->least, p->streams[s].name);
            return -2;
        }
    /* every member of every stream, on its device; an event on the device of its first record */
    for (int s = 0, m = 0; s < p->nstreams; m += p->streams[s++].count) {
        r->first[s] = m;
        on_dev(r, p->streams[s].device);
        if (p->streams[s].green && r->stream_proc[s] == r->proc && !r->green) {
            if (r->proc == 0 && kept_green.ctx && kept_green.b == b) { /* kept from the program's last case */
                r->green = kept_green.ctx;
                kept_green.ctx = NULL;
            } else if ((rc = b->green_create(&r->green))) {
                snprintf(why, n, "creating a green context for stream %s failed: %s", p->streams[s].name,
                         b->error_name(rc));
                return rc == SC_UNSUPPORTED ? -2 : -1;
            } else
                made_one();
        }
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
    for (int i = p->nops - 1; i >= 0; i--)
        if (p->ops[i].kind == SC_OP_RECORD || p->ops[i].kind == SC_OP_RECORD_EXTERNAL ||
            p->ops[i].kind == SC_OP_KERNEL_PROGEVENT || p->ops[i].kind == SC_OP_GATE_PROGEVENT)
            r->event_device[p->ops[i].event] = sc_stream_device(p, p->ops[i].stream);
    for (int e = 0; e < p->nevents; e++) {
        on_dev(r, r->event_device[e]);
        if (r->event_proc[e] == r->proc && (rc = b->event_create(&r->events[e], p->events[e].flags))) {
            snprintf(why, n, "creating event %s failed: %s", p->events[e].name, b->error_name(rc));
            return -1;
        }
    }
    on_dev(r, 0);
    if (r->sh && (rc = exchange(r, why, n)))
        return rc;
    for (int k = 0; k < p->npools && r->proc == 0; k++)
        if ((rc = b->pool_create(&r->pools[k], p->pools[k].flags))) {
            snprintf(why, n, "creating memory pool %s failed: %s", p->pools[k].name, b->error_name(rc));
            return rc == SC_UNSUPPORTED ? -2 : -1;
        }
    for (int c = 0; c < p->ncontexts && r->proc == 0; c++) {
        if (made_by_op(p, c) || (r->contexts[c] = take_context(b, p->context_flags[c])))
            continue;
        if ((rc = p->context_flags[c] ? b->ctx_create_flags(&r->contexts[c], p->context_flags[c])
                                      : b->ctx_create(&r->contexts[c]))) {
            snprintf(why, n, "creating context %s failed: %s", p->contexts[c], b->error_name(rc));
            return rc == SC_UNSUPPORTED ? -2 : -1;
        }
        made_one();
    }
    for (int g = 0; g < p->ngraphs && r->proc == 0; g++) {
        enum sc_graph_kind k = p->graphs[g].kind;
        r->runs_nodes_of[g] = 1u << g;
        if (k == SC_GRAPH_NODES) /* nodes: empty; the program's node ops build it */
            rc = b->graph_new(&r->graphs[g]);
        else if (k != SC_GRAPH_CAPTURED)
            rc = b->graph_create(&r->graphs[g], k == SC_GRAPH_GATE);
        if (rc) {
            snprintf(why, n, "building graph %s failed: %s", p->graphs[g].name, b->error_name(rc));
            return -1;
        }
    }
    if (r->proc == 0 && words_ready(r, why, n))
        return -1;
    for (int w = 0; w < p->nwords && r->proc == 0; w++) {
        r->word_cond[w] = SC_WAIT_GEQ;
        for (int i = p->nops - 1; i >= 0; i--)
            if (p->ops[i].kind == SC_OP_WAIT_VALUE && p->ops[i].word == w)
                r->word_cond[w] = p->ops[i].cond; /* the first wait decides */
        struct word_values wv = word_values(r->word_cond[w], p->words[w].bits, p->words[w].preset);
        r->word_set[w] = wv.set;
        __atomic_store_n(word_host(r, w), wv.init, __ATOMIC_SEQ_CST);
    }
    for (int i = 0; i < p->nops; i++) {
        const struct sc_op_def *d = &p->ops[i];
        struct op_rt *o = &r->op[i];
        o->def = d;
        o->token = (case_id << 8) | (uint32_t)(i + 1);
        o->fill = (unsigned char)(0x40 + i);
        if (d->kind == SC_OP_MEMCPY_PEER_FROM) { /* allocmisc: what its buffer's last fill before it wrote */
            int w = sc_op_writer(p, i);
            o->fill = w >= 0 ? (unsigned char)(0x40 + w) : 0;
        }
        o->at_return = -1;
        o->device = op_device(r, d);
        on_dev(r, o->device);
        o->stream = stream_handle(r, d->stream, 0);
        o->nmem = sc_stream_count(p, d->stream);
        o->event = uses_event(d->kind) ? r->events[d->event] : NULL;
        o->harg = (struct host_arg){ &r->arena->slots[i], o->token, r->arena->gate, r->cfg.deadline_ns,
                                     { callback_body, &o->harg }, r->b, o->stream };
        if (!mine(r, i))
            continue; /* another process issues it */
        if (sc_op_facts(d->kind)->probe && (rc = b->event_create(&o->probe, 0))) {
            snprintf(why, n, "creating a probe event failed: %s", b->error_name(rc));
            return -1;
        }
        if (o->nmem > 1 && add_members(r, i, why, n))
            return -1;
        if (d->kind == SC_OP_CAPTURE_BEGIN)
            r->has_capture = 1;
        if (d->kind == SC_OP_ALLOC || d->kind == SC_OP_POOL_RESERVED || d->kind == SC_OP_POOL_TRIM ||
            d->kind == SC_OP_POOL_EXPORT || d->kind == SC_OP_POOL_USED) {
            if (d->pool == SC_DEFAULT_POOL && !r->default_pool && (rc = b->default_pool(&r->default_pool))) {
                snprintf(why, n, "the device's memory pool: %s", b->error_name(rc));
                return rc == SC_UNSUPPORTED ? -2 : -1;
            }
        }
        enum where dw, sw;
        op_ends(d, &dw, &sw);
        void *dst = arena_buffer(r, i, dw, &rc);
        if (rc == 0 && dw != W_NONE) {
            if (on_host(dw))
                fill_words(dst, 0);
            else
                rc = b->memset_sync(dst, 0, SC_COPY_BYTES);
        }
        void *src = rc ? NULL : arena_buffer(r, i, sw, &rc);
        if (rc == 0 && sw != W_NONE) {
            if (on_host(sw))
                fill_words(src, o->token);
            else {
                fill_words(r->arena->scratch, o->token);
                on_dev(r, sw == W_PEER_SRC ? peer_of(o->device) : o->device);
                rc = b->memcpy_sync(src, r->arena->scratch, SC_COPY_BYTES, SC_H2D_PINNED);
                on_dev(r, o->device);
            }
        }
        if (rc)
            goto fail;
    }
    if ((rc = sync_devices(r)))
        goto fail;
    if (r->sh) {
        store(&r->sh->ready[r->proc], 1);
        if (r->proc == 0 && (rc = await_peers(r, r->sh->ready, "prepared its operations", r->cfg.deadline_ns, why, n)))
            return rc;
    }
    return 0;
fail:
    snprintf(why, n, "preparing buffers failed: %s", b->error_name(rc));
    return -1;
}

/* ---- issuing ------------------------------------------------------------- */

static void *pool_of(struct run *r, sc_pool pool) { return pool == SC_DEFAULT_POOL ? r->default_pool : r->pools[pool]; }

/* A buffer name for reports: which allocation holds this address? */
static void note_alloc(struct run *r, int i, void *ptr)
{
    const struct sc_prog *p = r->p;
    int m = p->ops[i].buffer;
    for (int k = 0; k < p->nbuffers; k++)
        if (k != m && r->buf_ptr[k] == ptr && r->buf_freed[k]) {
            log_note(r, "%s: %s got the memory of %s, freed before", opname(r, i), p->buffers[m], p->buffers[k]);
            return;
        }
    log_note(r, "%s: %s at %p, memory no other buffer of the case had", opname(r, i), p->buffers[m], ptr);
}

static int issue_one(struct run *r, int i);

/* allocmisc: the device of buffer m at op i: that of the stream its last allocation before i was issued to. */
static int buffer_device(const struct run *r, int m, int i)
{
    int dev = 0;
    for (int j = 0; j < i; j++)
        if (r->p->ops[j].kind == SC_OP_ALLOC && r->p->ops[j].buffer == m)
            dev = r->op[j].device;
    return dev;
}

/* A value measured from the hold itself (an elapsed time against the gates' stamps, the CPU time of a wait),
 * which releasing the gates early shortens but cannot make wrong. */
static int measures_hold(const struct sc_prog *p)
{
    return p->rel == SC_GIVES && (p->value == SC_VALUE_SPANS_HOLD || p->value == SC_VALUE_SLEEPS);
}

/*
 * A capture ended by op i: the ops captured before it that no earlier end
 * claimed are its graph's (kept: graph + 1; -1: the graph was discarded).
 * Ops are issued one at a time in program order, so "before it" is exact; a
 * program that keeps a capture while another is open gives the first end both.
 */
static void claim_captured(struct run *r, int i, int kept)
{
    for (int j = 0; j < i; j++)
        if (r->op[j].captured && !r->op[j].kept)
            r->op[j].kept = kept;
}

/* nodes: op i adds its node to its graph (no dependencies: edges come from edge ops). */
static int add_node(struct run *r, int i)
{
    const sc_backend *b = r->b;
    struct op_rt *o = &r->op[i];
    const struct sc_op_def *d = o->def;
    struct sc_node_params np = { .kind = d->cond };
    int rc = 0;
    np.flag = r->arena->gate_dev;
    np.max_ns = r->cfg.deadline_ns;
    np.slot = (struct sc_slot *)r->arena->slots_dev + i;
    np.token = o->token;
    np.bytes = SC_COPY_BYTES;
    switch (d->kind) {
    case SC_OP_NODE:
        np.fn = host_mark;
        np.arg = &o->harg;
        break;
    case SC_OP_NODE_DATA: /* into the graph's one node buffer; a memcpy node from its own source */
        np.dst = arena_buffer(r, node_buffer(r->p, i), W_DEV_DST, &rc);
        np.src = rc ? NULL : arena_buffer(r, i, W_DEV_SRC, &rc);
        np.value = o->fill;
        break;
    case SC_OP_NODE_EVENT: np.event = o->event; break;
    case SC_OP_NODE_CHILD:
        np.kind = 0;
        np.child = r->graphs[d->graph2];
        break;
    case SC_OP_NODE_ALLOC: np.kind = SC_NODE_ALLOC; break; /* graphinst */
    case SC_OP_NODE_MEMSET_ALLOC: /* allocmisc: into the stream-ordered allocation, made before it */
        np.dst = r->buf_ptr[d->buffer];
        np.value = o->fill;
        rc = np.dst ? 0 : -1;
        break;
    default: return -1;
    }
    if (rc || (rc = b->node_add(r->graphs[d->graph], &np, &o->node)))
        return rc;
    if (d->kind == SC_OP_NODE) { /* it runs when a launch of its graph runs it: observed like a captured op */
        o->captured = 1;
        o->kept = d->graph + 1;
        o->run_by = 1u << d->graph;
    }
    if (d->kind == SC_OP_NODE_CHILD) /* the child is cloned now: the nodes it has so far run in this graph's launches */
        for (int j = 0; j < i; j++)
            if (r->op[j].run_by & (1u << d->graph2))
                r->op[j].run_by |= 1u << d->graph;
    return 0;
}

/* Member m of group op i, for the kinds a group issues to every member. */
/* A gate: the spinning kernel, or the stream wait where prepare chose it (wait_gates_allowed). */
static int issue_gate(struct run *r, void *s, void *slot_dev, uint32_t token)
{
    if (r->wait_gates)
        return r->b->wait_gate(s, r->arena->gate_dev, slot_dev, token);
    return r->b->launch_gate(s, r->arena->gate_dev, r->cfg.deadline_ns, slot_dev, token);
}

static int issue_member(struct run *r, int i, int m)
{
    const sc_backend *b = r->b;
    struct op_rt *o = &r->op[i];
    struct member *mb = &o->more[m - 1];
    struct sc_slot *slot_dev = (struct sc_slot *)r->arena->slots_dev + mb->slot;
    int rc = 0;
    switch (o->def->kind) {
    case SC_OP_GATE: rc = issue_gate(r, mb->stream, slot_dev, mb->token); break;
    case SC_OP_HOST_GATE: rc = b->host_func(mb->stream, host_gate, &mb->harg); break;
    case SC_OP_VALUE_GATE: rc = b->wait_value(mb->stream, r->arena->gate_dev, 1, SC_WAIT_GEQ, 32); break;
    case SC_OP_KERNEL: rc = b->launch_mark(mb->stream, slot_dev, mb->token); break;
    case SC_OP_HOST_FUNC: rc = b->host_func(mb->stream, host_mark, &mb->harg); break;
    case SC_OP_CALLBACK: rc = b->callback(mb->stream, &mb->harg.cb); break;
    case SC_OP_WAIT: rc = b->stream_wait_event(mb->stream, o->event, 0); break;
    case SC_OP_STREAM_SYNC: rc = b->stream_sync(mb->stream); break;
    case SC_OP_STREAM_DESTROY: rc = b->stream_destroy(mb->stream); break;
    default: rc = -1; break; /* the generator never makes such a group */
    }
    if (rc == 0 && o->def->kind == SC_OP_STREAM_DESTROY)
        r->members[r->first[o->def->stream] + m] = NULL;
    if (rc == 0 && sc_op_facts(o->def->kind)->probe)
        rc = b->event_record(mb->probe, mb->stream);
    return rc;
}

/* Has some gate or host gate of the program started (its start stamp is written before it spins)? */
static int gate_running(struct run *r)
{
    for (int i = 0; i < r->p->nops; i++) {
        enum sc_op_kind k = r->p->ops[i].kind;
        if (spinning_gate(k) && __atomic_load_n(&r->arena->slots[i].start_ns, __ATOMIC_ACQUIRE) != 0)
            return 1;
    }
    return 0;
}

/* Returns the call's result: 0, a CUDA code, or SC_UNSUPPORTED; a group issues member 0, then the rest. */
static int issue(struct run *r, int i)
{
    int rc = issue_one(r, i);
    for (int m = 1; rc == 0 && m < r->op[i].nmem && sc_op_facts(r->op[i].def->kind)->group; m++)
        rc = issue_member(r, i, m);
    return rc;
}

/* Op i alone (member 0 of a group). */
static int issue_one(struct run *r, int i)
{
    const sc_backend *b = r->b;
    struct op_rt *o = &r->op[i];
    const struct sc_op_def *d = o->def;
    struct sc_slot *slot_dev = (struct sc_slot *)r->arena->slots_dev + i;
    void *words_dev = word_dev(r, d->word);
    enum where dw, sw;
    void *dst, *src;
    int rc = 0, status;

    op_ends(d, &dw, &sw);
    dst = arena_buffer(r, i, dw, &rc);
    src = arena_buffer(r, i, sw, &rc);
    if (sc_op_facts(d->kind)->role == SC_ROLE_WORK && r->has_capture && d->stream >= 0 && o->stream) {
        /* work issued into a capture is recorded, not run: do not wait for it */
        if (b->capture_status(o->stream, &status) == 0 && status != SC_CAPTURE_NONE)
            o->captured = 1;
    }
    if (data_of(d->kind) == SC_DATA_MEMSET && dw == W_PINNED && (rc = b->host_dev_ptr(&dst, dst)))
        return rc;

    switch (d->kind) {
    case SC_OP_GATE: rc = issue_gate(r, o->stream, slot_dev, o->token); break;
    case SC_OP_HOST_GATE: rc = b->host_func(o->stream, host_gate, &o->harg); break;
    case SC_OP_VALUE_GATE: rc = b->wait_value(o->stream, r->arena->gate_dev, 1, SC_WAIT_GEQ, 32); break;
    case SC_OP_KERNEL:
    case SC_OP_MODULE_KERNEL: /* driver API only, whose kernels are module functions */
        rc = b->launch_mark(o->stream, slot_dev, o->token);
        break;
    case SC_OP_KERNEL_PDL: {
        int primary = sc_op_primary(r->p, i); /* its slot's token, read by the kernel into its own slot's arg */
        const void *read = primary < 0 ? NULL : &((struct sc_slot *)r->arena->slots_dev + primary)->token;
        rc = b->launch_pdl(o->stream, slot_dev, o->token, d->cond, read);
        break;
    }
    case SC_OP_FAULT: rc = b->launch_fault(o->stream, d->cond); break;
    case SC_OP_MEMSET: rc = b->memset_async(o->stream, dst, o->fill, SC_COPY_BYTES); break;
    case SC_OP_MEMSET_SYNC: rc = b->memset_sync(dst, o->fill, SC_COPY_BYTES); break;
    case SC_OP_MEMCPY_ASYNC: rc = b->memcpy_async(o->stream, dst, src, SC_COPY_BYTES, d->copy); break;
    case SC_OP_MEMCPY_SYNC: rc = b->memcpy_sync(dst, src, SC_COPY_BYTES, d->copy); break;
    case SC_OP_HOST_FUNC: rc = b->host_func(o->stream, host_mark, &o->harg); break;
    case SC_OP_CALLBACK: rc = b->callback(o->stream, &o->harg.cb); break;
    case SC_OP_CALLBACK_API:
        o->harg.cb.body = callback_api_body;
        rc = b->callback(o->stream, &o->harg.cb);
        break;
    case SC_OP_RECORD: rc = b->event_record(o->event, o->stream); break;
    case SC_OP_WAIT: rc = b->stream_wait_event(o->stream, o->event, 0); break;
    case SC_OP_WAIT_INVALID: rc = b->stream_wait_event(o->stream, o->event, 0x100u); break;
    case SC_OP_KERNEL_INVALID: rc = b->launch_invalid(o->stream, slot_dev, o->token); break; /* pginv */
    case SC_OP_RECORD_EXTERNAL: rc = b->event_record_external(o->event, o->stream); break;
    case SC_OP_WAIT_EXTERNAL: rc = b->stream_wait_event(o->stream, o->event, SC_WAIT_EXTERNAL); break;
    case SC_OP_KERNEL_PROGEVENT: rc = b->launch_progevent(o->stream, o->event, NULL, 0, slot_dev, o->token); break;
    case SC_OP_GATE_PROGEVENT:
        rc = b->launch_progevent(o->stream, o->event, r->arena->gate_dev, r->cfg.deadline_ns, slot_dev, o->token);
        break;
    case SC_OP_WRITE_VALUE:
        rc = b->write_value(o->stream, words_dev, r->word_set[d->word], d->flags, r->p->words[d->word].bits);
        break;
    case SC_OP_BATCH:
        rc = b->batch_wait_write(o->stream, words_dev, operand_of(r, d), word_dev(r, d->word2),
                                 r->word_set[d->word2], r->p->words[d->word].bits);
        break;
    case SC_OP_WAIT_VALUE:
        rc = b->wait_value(o->stream, words_dev, operand_of(r, d), d->cond, r->p->words[d->word].bits);
        break;
    case SC_OP_ALLOC:
        if ((rc = b->alloc_async(&r->buf_ptr[d->buffer], SC_COPY_BYTES, pool_of(r, d->pool), o->stream)) == 0) {
            r->buf_freed[d->buffer] = 0;
            note_alloc(r, i, r->buf_ptr[d->buffer]);
        }
        break;
    case SC_OP_FREE:
        if ((rc = b->free_async(r->buf_ptr[d->buffer], o->stream)) == 0)
            r->buf_freed[d->buffer] = 1;
        break;
    case SC_OP_FILL:
        rc = r->buf_ptr[d->buffer] ? b->memset_async(o->stream, r->buf_ptr[d->buffer], o->fill, SC_COPY_BYTES) : -1;
        break;
    case SC_OP_READ: /* ipcpool: the first word, into the op's slot, which every process of the case sees */
        rc = r->buf_ptr[d->buffer] ? b->memcpy_async(o->stream, &r->arena->slots[i].arg, r->buf_ptr[d->buffer],
                                                     sizeof(uint32_t), SC_D2H_PINNED)
                                   : -1;
        break;
    case SC_OP_POOL_RESERVED: {
        uint64_t bytes = 0;
        rc = b->pool_reserved(pool_of(r, d->pool), &bytes);
        o->value = (int64_t)bytes;
        break;
    }
    case SC_OP_POOL_TRIM: rc = b->pool_trim(pool_of(r, d->pool)); break;
    case SC_OP_POOL_USED: { /* poolreuse */
        uint64_t bytes = 0;
        rc = b->pool_used(pool_of(r, d->pool), &bytes);
        o->value = (int64_t)bytes;
        break;
    }
    case SC_OP_ADDRESS: /* poolreuse: what the buffer's allocation got, as issue_one kept it */
        o->value = (int64_t)(intptr_t)r->buf_ptr[d->buffer];
        rc = r->buf_ptr[d->buffer] ? 0 : -1;
        break;
    case SC_OP_POOL_SET_ACCESS: rc = b->pool_set_access(pool_of(r, d->pool), d->cond, (int)d->flags); break;
    case SC_OP_POOL_ACCESS: {
        int readwrite = 0;
        rc = b->pool_get_access(pool_of(r, d->pool), d->cond, &readwrite);
        o->value = readwrite;
        break;
    }
    case SC_OP_GRAPH_LAUNCH: { /* the arguments of sc_gate or sc_mark */
        void *gate_dev = r->arena->gate_dev;
        uint64_t max_ns = r->cfg.deadline_ns;
        void *gate_args[] = { &gate_dev, &max_ns, &slot_dev, &o->token }, *mark_args[] = { &slot_dev, &o->token };
        rc = b->graph_launch(r->graphs[d->graph], o->stream,
                             r->p->graphs[d->graph].kind == SC_GRAPH_GATE ? gate_args : mark_args);
        break;
    }
    case SC_OP_CAPTURE_BEGIN:
        if ((rc = b->capture_begin(o->stream, d->cond)) == 0 && d->stream >= 0)
            r->capture_thread[d->stream] = d->thread + 1;
        break;
    case SC_OP_CAPTURE_END:
        if ((rc = b->capture_end(o->stream)) == 0)
            claim_captured(r, i, -1);
        break;
    case SC_OP_CAPTURE_KEEP:
        if ((rc = b->capture_keep(o->stream, &r->graphs[d->graph])) == 0)
            claim_captured(r, i, d->graph + 1);
        break;
    case SC_OP_GRAPH_REPLAY:
        if (!r->graphs[d->graph])
            rc = -1; /* the generator makes no replay of a graph that no capture_keep before it kept */
        else if ((rc = b->graph_replay(r->graphs[d->graph], o->stream)) == 0) {
            for (int g = 0; g < r->p->ngraphs; g++)
                if (r->runs_nodes_of[d->graph] & (1u << g))
                    store(&r->replayed[g], 1);
            for (int j = 0; j < r->p->nops; j++) /* nodes: those this launch runs */
                if (r->op[j].run_by & (1u << d->graph))
                    store(&r->op[j].launched, 1);
        }
        break;
    case SC_OP_NODE:
    case SC_OP_NODE_DATA:
    case SC_OP_NODE_EVENT:
    case SC_OP_NODE_CHILD:
    case SC_OP_NODE_ALLOC:
    case SC_OP_NODE_MEMSET_ALLOC: rc = add_node(r, i); break;
    case SC_OP_EDGE: rc = b->edge_add(r->graphs[d->graph], r->op[d->from].node, r->op[d->to].node); break;
    case SC_OP_INSTANTIATE: rc = b->graph_instantiate(r->graphs[d->graph], 0, NULL); break;
    case SC_OP_INSTANTIATE_UPLOAD: rc = b->graph_instantiate(r->graphs[d->graph], 1, o->stream); break;
    case SC_OP_EXEC_UPDATE: /* later launches run the source graph's nodes (their slots, their tokens) */
        if ((rc = b->exec_update(r->graphs[d->graph], r->graphs[d->graph2])) == 0) {
            r->runs_nodes_of[d->graph] = r->runs_nodes_of[d->graph2];
            for (int j = 0; j < r->p->nops; j++) { /* nodes: later launches of the first graph run the second's */
                unsigned by = r->op[j].run_by & ~(1u << d->graph);
                r->op[j].run_by = r->op[j].run_by & (1u << d->graph2) ? by | 1u << d->graph : by;
            }
        }
        break;
    case SC_OP_EXEC_DESTROY: rc = b->exec_destroy(r->graphs[d->graph]); break;
    case SC_OP_INSTANTIATE_CHECKED: /* graphinst: result_out is its value */
    case SC_OP_INSTANTIATE_AUTO_FREE: {
        int result = -1;
        rc = b->graph_instantiate_with(r->graphs[d->graph],
                                       d->kind == SC_OP_INSTANTIATE_AUTO_FREE ? SC_INSTANTIATE_AUTO_FREE : 0, &result);
        o->value = result;
        break;
    }
    case SC_OP_CAPTURE_STATUS:
        rc = b->capture_status(o->stream, &status);
        o->value = status;
        break;
    case SC_OP_STREAM_SYNC:
    case SC_OP_EVENT_SYNC:
    case SC_OP_CTX_SYNC: { /* the CPU time the waiting thread used: a blocking-sync event's or context's sleeps */
        uint64_t cpu = sc_thread_cpu_ns(), runq = sc_thread_runq_ns();
        rc = d->kind == SC_OP_STREAM_SYNC ? b->stream_sync(o->stream)
             : d->kind == SC_OP_EVENT_SYNC ? b->event_sync(o->event)
                                           : b->ctx_sync();
        o->value = (int64_t)(sc_thread_cpu_ns() - cpu);
        o->runq_ns = (int64_t)(sc_thread_runq_ns() - runq); /* a spinning thread on a busy machine waits here */
        break;
    }
    case SC_OP_STREAM_QUERY:
    case SC_OP_EVENT_QUERY:
        /*
         * "Ready while" asks whether the query answers success at some point
         * while the object is held: the GPU may not have reached the work it
         * covers yet, so ask again until success or the release.
         */
        /*
         * um: "synchronizes" asks until success (to the deadline; the gates open meanwhile, after a window)
         * and, right as the query answers success, reads on the host what the object wrote to managed
         * memory: that answer is equivalent to a synchronize for Unified Memory.
         */
        for (int poll = i == r->p->subject && r->p->rel == SC_READY_WHILE,
                 sync = i == r->p->subject && r->p->rel == SC_SYNCHRONIZES;;) {
            /* a held gate seen running means the GPU is past everything before it: read that first */
            o->ret.gpu_reached = gate_running(r);
            rc = d->kind == SC_OP_STREAM_QUERY ? b->stream_query(o->stream) : b->event_query(o->event);
            if (rc == 0 && sync)
                o->at_return = data_there(r, r->p->object, &o->bad_word, &o->bad_value);
            if (rc != SC_NOT_READY || (!poll && !sync) || (poll && is_released(r)) ||
                (sync && sc_now_ns() - o->t_issue > r->cfg.deadline_ns))
                break;
            sc_pause_ns(SC_POLL_NS);
        }
        break;
    case SC_OP_ELAPSED: rc = b->event_elapsed(&o->ms, o->event, r->events[d->event2]); break;
    case SC_OP_STREAM_FLAGS: {
        int nonblocking = 0;
        rc = b->stream_get_flags(o->stream, &nonblocking);
        o->value = nonblocking;
        break;
    }
    case SC_OP_STREAM_PRIORITY: {
        int prio = 0;
        rc = b->stream_get_priority(o->stream, &prio);
        o->value = prio;
        break;
    }
    case SC_OP_STREAM_CREATE_INVALID: rc = b->stream_create_invalid(); break;
    case SC_OP_GET_LAST_ERROR: rc = b->last_error(1); break;
    case SC_OP_PEEK_LAST_ERROR: rc = b->last_error(0); break;
    case SC_OP_MEM_ALLOC: {
        void *mem = NULL;
        if ((rc = b->dev_alloc(&mem, SC_COPY_BYTES)) == 0)
            b->dev_free(mem);
        break;
    }
    case SC_OP_EVENT_CREATE_TRY: {
        void *e = NULL;
        if ((rc = b->event_create(&e, d->flags)) == 0)
            b->event_destroy(e);
        break;
    }
    case SC_OP_STREAM_DESTROY:
        if ((rc = b->stream_destroy(o->stream)) == 0)
            r->members[r->first[d->stream]] = NULL; /* the cleanup must not destroy it again */
        break;
    case SC_OP_STREAM_ID: {
        uint64_t id = 0;
        rc = b->stream_id(o->stream, &id);
        o->value = (int64_t)id;
        break;
    }
    case SC_OP_CTX: rc = b->ctx_action(d->cond); break;
    case SC_OP_CTX_ENTER: rc = b->ctx_enter(r->contexts[d->context], d->cond); break;
    case SC_OP_THREAD_EXIT: break; /* the worker ends once the job is done */
    /* ctxalloc */
    case SC_OP_CTX_DESTROY:
        if ((rc = b->ctx_destroy(r->contexts[d->context])) == 0)
            r->contexts[d->context] = NULL; /* destroyed: the cleanup must not destroy it again */
        break;
    case SC_OP_PRIMARY_CTX_SYNC: rc = b->primary_ctx_sync(); break;
    case SC_OP_CTX_CREATE: /* green: the cleanup destroys it */
        if ((rc = b->ctx_create_current(&r->contexts[d->context], r->p->context_flags[d->context])) == 0)
            made_one();
        break;
    case SC_OP_PRIMARY_RELEASE: {
        int reset = 0;
        rc = b->primary_release(d->cond, &reset);
        o->value = reset;
        break;
    }
    case SC_OP_ALLOC_IMPORTED: rc = b->alloc_imported(pool_of(r, d->pool), SC_COPY_BYTES, o->stream); break;
    case SC_OP_POOL_TRIM_KEEP: rc = b->pool_trim_to(pool_of(r, d->pool), SC_TRIM_KEEP_BYTES); break;
    case SC_OP_POOL_EXPORT: rc = b->pool_export(pool_of(r, d->pool)); break; /* pginv */
    case SC_OP_MEMCPY_PEER: rc = b->memcpy_peer(o->stream, dst, o->device, src, peer_of(o->device), SC_COPY_BYTES); break;
    case SC_OP_MEMCPY_PEER_FROM: /* allocmisc: from the buffer, on the device its allocation's stream belongs to */
        rc = r->buf_ptr[d->buffer] ? b->memcpy_peer(o->stream, dst, o->device, r->buf_ptr[d->buffer],
                                                    buffer_device(r, d->buffer, i), SC_COPY_BYTES)
                                   : -1;
        break;
    case SC_OP_DEVICE_SYNC: rc = b->device_sync(d->cond); break;
    case SC_OP_DEVICE_ENTER:
        if (!(rc = b->use_device(d->cond)))
            r->entered_device[d->thread] = d->cond + 1; /* read by this thread alone (run_job) */
        break;
    case SC_OP_EVENT_DESTROY:
        if ((rc = b->event_destroy(o->event)) == 0)
            r->events[d->event] = NULL;
        break;
    case SC_OP_NONE: case SC_OP_KIND_END: break;
    }
    /* a launch that waits for its kernel (CUDA_LAUNCH_BLOCKING=1) may answer the fault itself, with
     * whichever code its kind of fault gets */
    if (d->kind == SC_OP_FAULT && rc != SC_UNSUPPORTED && rc != b->code(SC_CODE_INVALID_VALUE) &&
        rc != b->code(SC_CODE_INVALID_HANDLE))
        r->faulted_at = i;
    if (rc == 0 && sc_op_facts(d->kind)->probe)
        rc = b->event_record(o->probe, o->stream);
    return rc;
}

/*
 * Complete on return: right after the subject's call returned, look at its
 * destination (when the host can read it) and overwrite its source (when the
 * host can write it).  A copy still reading its source then carries the
 * clobber pattern to its destination, which the end of the case sees.
 */
static void look_at_return(struct run *r, int i)
{
    struct op_rt *o = &r->op[i];
    enum where dw, sw;
    int rc;
    op_ends(o->def, &dw, &sw);
    if (on_host(dw)) {
        const uint32_t *got = arena_buffer(r, i, dw, &rc), want = expected_word(o);
        o->at_return = 1;
        for (size_t w = 0; got && w < SC_COPY_BYTES / 4; w++)
            if (got[w] != want) {
                o->at_return = 0, o->bad_word = w, o->bad_value = got[w];
                break;
            }
    }
    if (on_host(sw)) {
        fill_words(arena_buffer(r, i, sw, &rc), SC_CLOBBER);
        o->clobbered = 1;
    }
}

static int is_query(enum sc_op_kind k) { return sc_op_facts(k)->role == SC_ROLE_QUERY; }

static void end_captures(struct run *r, int worker)
{
    int status;
    for (int s = 0; s < r->p->nstreams; s++)
        if (r->members[r->first[s]] && r->capture_thread[s] == worker + 1 &&
            r->b->capture_status(r->members[r->first[s]], &status) == 0 && status != SC_CAPTURE_NONE)
            r->b->capture_end(r->members[r->first[s]]);
}

/* Several processes: op i's result, for the others (main imports it, children read its state). */
static void publish(struct run *r, int i)
{
    const struct op_rt *o = &r->op[i];
    struct remote_op *x = &r->sh->op[i];
    x->rc = o->rc, x->result = o->result, x->captured = o->captured, x->value = o->value, x->ms = o->ms;
    x->t_issue = o->t_issue, x->t_return = o->t_return, x->ret = o->ret, x->at_return = o->at_return;
    x->clobbered = o->clobbered, x->bad_word = o->bad_word, x->bad_value = o->bad_value;
    store(&x->state, load(&o->state)); /* last: a reader that sees the state sees the rest */
}

/* Main: what another process published of op i becomes main's own view of it. */
static void import(struct run *r, int i)
{
    struct op_rt *o = &r->op[i];
    const struct remote_op *x = &r->sh->op[i];
    int state = load(&x->state);
    o->rc = x->rc, o->result = x->result, o->captured = x->captured, o->value = x->value, o->ms = x->ms;
    o->t_issue = x->t_issue, o->t_return = x->t_return, o->ret = x->ret, o->at_return = x->at_return;
    o->clobbered = x->clobbered, o->bad_word = x->bad_word, o->bad_value = x->bad_value;
    store(&o->state, state);
}

static void run_job(struct worker *w, int job, int i)
{
    struct run *r = w->r;
    const struct sc_prog *p = r->p;
    struct op_rt *o = &r->op[i];
    switch (job) {
    case JOB_ISSUE: { /* on its stream's device, unless its thread entered one (device_enter) */
        on_dev(r, r->entered_device[o->def->thread] ? r->entered_device[o->def->thread] - 1 : o->device);
        /* whether a thread kept off the CPU was in its call while the gates were held (verdict.c, off_cpu):
         * read only where the verdict asks, a file read either side of the call */
        int timed = i == p->subject && (p->rel == SC_BLOCKS_UNTIL || p->rel == SC_RETURNS_BEFORE);
        uint64_t runq = timed ? sc_thread_runq_ns() : 0, cpu = timed ? sc_thread_cpu_ns() : 0;
        o->t_issue = sc_now_ns();
        store(&o->state, ST_ISSUED);
        if (r->sh)
            store(&r->sh->op[i].state, ST_ISSUED);
        o->result = issue(r, i);
        o->rc = is_query(o->def->kind) && o->result == SC_NOT_READY ? 0 : o->result;
        o->t_return = sc_now_ns();
        if (i == p->subject) {
            /* the object first, then the release flag: see verdict.h */
            /* G blocks until G (blocking): the launch of a gate, whose slot tells before its call is marked returned */
            o->ret.object_done = p->object >= 0 && (p->object == i ? member_done(r, i, 0) : op_done(r, p->object)) == 1;
            o->ret.released = is_released(r);
            o->ret.result = o->result;
            if (timed)
                o->ret.runq_ns = sc_thread_runq_ns() - runq, o->ret.hold_ns = r->cfg.window_ns,
                o->ret.cpu_ns = sc_thread_cpu_ns() - cpu;
            if (p->rel != SC_READY_WHILE)
                o->ret.gpu_reached = 1;
            if (p->rel == SC_COMPLETE_ON_RETURN && o->rc == 0)
                look_at_return(r, i);
        }
        store(&o->state, ST_RETURNED);
        if (r->sh)
            publish(r, i);
        break;
    }
    case JOB_REQUERY:
        o->result = o->def->kind == SC_OP_STREAM_QUERY ? r->b->stream_query(o->stream) : r->b->event_query(o->event);
        if (r->sh)
            publish(r, i);
        break;
    case JOB_CTX_SYNC:
        r->final_sync_rc = sync_devices(r);
        break;
    case JOB_END_CAPTURES:
        end_captures(r, w->index);
        break;
    }
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->r->b->thread_attach();
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (w->job == JOB_NONE)
            pthread_cond_wait(&w->cv, &w->mu);
        int job = w->job, i = w->arg;
        pthread_mutex_unlock(&w->mu);
        if (job == JOB_QUIT)
            return NULL;
        run_job(w, job, i);
        int ends = job == JOB_ISSUE && w->r->p->ops[i].kind == SC_OP_THREAD_EXIT;
        pthread_mutex_lock(&w->mu);
        w->job = JOB_NONE;
        w->exited = ends;
        pthread_mutex_unlock(&w->mu);
        store(&w->busy, 0);
        if (ends)
            return NULL; /* thread_exit: this host thread ends with its per-thread work pending */
    }
}

static void post(struct worker *w, int job, int arg)
{
    w->last_job = job, w->last_arg = arg;
    if (w->remote) { /* a thread of another process: its mailbox */
        struct mailbox *mb = &w->r->sh->mbox[w->index];
        if (w->r->broken)
            return;
        store(&mb->busy, 1);
        store(&mb->arg, arg);
        store(&mb->job, job);
        return;
    }
    store(&w->busy, 1);
    pthread_mutex_lock(&w->mu);
    w->job = job;
    w->arg = arg;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/*
 * Waits for the worker's job, observing meanwhile; a call that keeps its
 * thread longer than window_ns forces the release.  0: done; -1: it hung.
 */
static int busy(struct run *r, struct worker *w)
{
    if (!w->remote)
        return load(&w->busy);
    return !r->broken && load(&r->sh->mbox[w->index].busy);
}

/*
 * Main: ends the run in the other processes.  Each destroys its objects,
 * waits for its context to be idle and reports the run finished, then waits
 * for the next; one that has not within grace_ns (at once when grace_ns is 0)
 * is killed, and the next run starts another.
 */
static void stop_peers(struct run *r, uint64_t grace_ns)
{
    if (!r->sh || r->proc)
        return;
    for (int t = 0; t < r->p->nthreads; t++)
        if (r->workers[t].remote && !r->broken && !r->workers[t].exited)
            post(&r->workers[t], JOB_QUIT, 0);
    store(&r->sh->quit, 1);
    uint64_t end = sc_now_ns() + grace_ns;
    char how[160];
    for (int k = 1; k < r->p->nprocs; k++)
        while (r->pid[k] > 0 && __atomic_load_n(&r->sh->finished[k], __ATOMIC_ACQUIRE) != r->gen) {
            if (!sc_procs_alive(r->pid[k], how, sizeof how))
                r->pid[k] = 0;
            else if (sc_now_ns() >= end) {
                sc_procs_reap(r->pid[k], 0);
                r->pid[k] = 0;
            } else
                sc_pause_ns(SC_POLL_NS);
        }
}

/* Main: a thread of another process failed (its process ended, or a call hung): stop them all. */
static void peer_failed(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void peer_failed(struct run *r, const char *fmt, ...)
{
    char why[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    sc_verdict_error(&r->v, "%s", why);
    log_note(r, "%s", why);
    release(r, "another process failed");
    r->broken = 1;
    stop_peers(r, 0);
}

/*
 * May some work of the case be held: has an op that holds its stream until the gates open (a gate, a host
 * gate, a value gate, a gate launched with a programmatic event, or a graph launch, whose nodes may be gates)
 * been issued, or is one being issued?  Before that, a call that blocks for a window waits for nothing the
 * case holds: releasing the gates then would only let the gates issued after it run unheld.
 */
static int may_hold(const struct run *r)
{
    for (int j = 0; j <= r->issuing && j < r->p->nops; j++) {
        enum sc_op_kind k = r->p->ops[j].kind;
        if (spinning_gate(k) || k == SC_OP_VALUE_GATE || k == SC_OP_GRAPH_LAUNCH || k == SC_OP_GRAPH_REPLAY)
            return 1;
    }
    return 0;
}

static int await_for(struct run *r, struct worker *w, const char *what, uint64_t window_ns)
{
    uint64_t start = sc_now_ns();
    char how[160];
    while (busy(r, w)) {
        sample(r);
        uint64_t waited = sc_now_ns() - start;
        int k = r->p->thread_proc[w->index];
        if (w->remote && !sc_procs_alive(r->pid[k], how, sizeof how)) {
            peer_failed(r, "process %s %s while %s was running in it", r->p->procs[k], how, what);
            return 0;
        }
        if (w->remote && waited >= r->cfg.deadline_ns + SC_HANG_GRACE_NS) {
            peer_failed(r, "%s did not return within the %.0f ms deadline in process %s, which was killed", what,
                        (double)r->cfg.deadline_ns / 1e6, r->p->procs[k]);
            return 0;
        }
        if (!load(&r->released) && waited >= window_ns && may_hold(r)) {
            snprintf(r->blocker, sizeof r->blocker, "%s", what);
            r->early = 1;
            r->open_at_early = !sc_verdict_decided(&r->v);
            release(r, "the issuing thread was blocked for the whole window");
        }
        if (waited >= r->cfg.deadline_ns + SC_HANG_GRACE_NS) {
            sc_verdict_error(&r->v, "%s did not return within the %.0f ms deadline", what,
                             (double)r->cfg.deadline_ns / 1e6);
            log_note(r, "%s still blocked: giving up", what);
            return -1;
        }
        observe_pause(waited);
    }
    if (w->remote && !r->broken && (w->last_job == JOB_ISSUE || w->last_job == JOB_REQUERY))
        import(r, w->last_arg);
    return 0;
}

/* Waits for the worker's job, observing meanwhile.  0: done; -1: it hung. */
static int await(struct run *r, struct worker *w, const char *what) { return await_for(r, w, what, r->cfg.window_ns); }

/* ---- the whole case -------------------------------------------------------- */

/* The handles this process created or opened, destroyed. */
static void destroy_objects(struct run *r)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    for (int m = 0; m < p->nbuffers; m++) /* IPC memory: closed by the importers before main frees it */
        if (p->buffer_ipc[m] == SC_IPC_FROM_POOL) {
            /* ipcpool: "The imported memory must be freed from all importing processes before being freed in
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
    if (r->green) { /* green: after its streams ("Users must explicitly destroy all such streams before ...") */
        if (r->proc == 0 && r->faulted_at < 0 && !kept_green.ctx)
            kept_green = (struct kept_context){ b, 0, r->green }; /* for the program's next case */
        else
            b->green_destroy(r->green);
        r->green = NULL;
    }
    for (int i = 0; i < p->nops; i++)
        free(r->op[i].more);
    on_dev(r, 0);
}

/* Returns 1 when a host thread hung in a CUDA call (the run is then abandoned). */
static int cleanup(struct run *r)
{
    const struct sc_prog *p = r->p;
    int nworkers = p->nthreads;
    if (r->has_capture)
        for (int t = 0; t < nworkers; t++)
            if (r->workers[t].started && !r->workers[t].exited) {
                post(&r->workers[t], JOB_END_CAPTURES, 0);
                if (await(r, &r->workers[t], "ending the stream captures"))
                    return 1;
            }
    for (int t = 0; t < nworkers; t++)
        if (r->workers[t].started) {
            if (!r->workers[t].exited)
                post(&r->workers[t], JOB_QUIT, 0);
            pthread_join(r->workers[t].tid, NULL);
        }
    stop_peers(r, SC_PEER_GRACE_NS); /* before main frees what they opened */
    destroy_objects(r);
    return 0;
}

void sc_run_program(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg,
                    struct sc_result *res)
{
    char why[512];
    int hung = 0, nworkers = p->nthreads;
    struct run *r = calloc(1, sizeof *r); /* abandoned, not freed, if a thread hangs */
    memset(res, 0, sizeof *res);
    res->subject_kind = p->subject >= 0 && p->subject < p->nops ? (int)p->ops[p->subject].kind : -1;
    if (!r) {
        sc_verdict_error(&res->verdict, "out of memory");
        return;
    }
    r->b = b;
    r->p = p;
    r->cfg = *cfg;
    r->arena = &arenas[b == &sc_driver_backend ? 0 : 1];
    r->timeline = res->timeline;
    r->timeline_cap = sizeof res->timeline;
    r->faulted_at = -1;
    r->ndevices = devices_used(p);
    r->multi = r->ndevices > 1;
    r->next_slot = SC_MAX_OPS;
    pthread_mutex_init(&r->log_mu, NULL);
    sc_verdict_start(&r->v, p->rel);

    if (p->error[0] || !p->has_expect) {
        sc_verdict_error(&r->v, "the program is malformed: %s", p->error[0] ? p->error : "no expectation");
        goto out;
    }
    b->thread_attach();
    b->thread_capture_relaxed(); /* the observer's queries must not break a program's capture */
    if (p->nprocs > 1 ? shared_ready(r, -1, why, sizeof why) : arena_ready(r, why, sizeof why)) {
        sc_verdict_error(&r->v, "%s", why);
        goto cleanup;
    }
    int prepared = prepare(r, why, sizeof why);
    if (prepared == -2) {
        sc_verdict_skip(&r->v, "%s", why);
        goto cleanup;
    } else if (prepared) {
        sc_verdict_error(&r->v, "%s", why);
        goto cleanup;
    }
    for (int t = 0; t < nworkers; t++) {
        struct worker *w = &r->workers[t];
        w->r = r;
        w->index = t;
        if ((w->remote = p->thread_proc[t] != 0))
            continue; /* a thread of another process, reached through its mailbox */
        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->cv, NULL);
        w->started = pthread_create(&w->tid, NULL, worker_main, w) == 0;
        if (!w->started) {
            sc_verdict_error(&r->v, "cannot start host thread %s", p->threads[t]);
            goto cleanup;
        }
    }
    r->t0 = sc_now_ns();

    /* 1. issue, in program order */
    uint64_t last_issue = r->t0;
    for (int i = 0; i < p->nops; i++) {
        struct op_rt *o = &r->op[i];
        char desc[160];
        describe_op(r, i, desc, sizeof desc);
        /* um: "synchronizes" is judged whenever its query answers success, held or not: the hold only gives
         * a broken driver the chance to answer before the data is there (its control needs it) */
        if (i == p->subject && load(&r->released) && sc_relation_is_binary(p->rel) && p->rel != SC_SYNCHRONIZES) {
            sc_verdict_decide(&r->v, SC_UNDECIDED,
                              "cannot decide: the gates had to be released before %s was issued, because %s "
                              "blocked its issuing thread for the whole window",
                              desc, r->blocker);
            break;
        }
        r->issuing = i;
        post(&r->workers[o->def->thread], JOB_ISSUE, i);
        /* issuing a group takes a while per member: that is not waiting for held work */
        if (await_for(r, &r->workers[o->def->thread], desc, cfg->window_ns + (uint64_t)(o->nmem - 1) * SC_MEMBER_NS)) {
            hung = 1;
            break;
        }
        if (r->broken)
            break;
        last_issue = o->t_issue;
        log_note(r, "issued %s: returned after %.3f ms%s%s", desc, (double)(o->t_return - o->t_issue) / 1e6,
             is_query(o->def->kind)
                 ? (o->result == 0 ? ", answered success" : o->result == SC_NOT_READY ? ", answered not-ready" : "")
                 : "",
             o->def->kind == SC_OP_NODE ? " (a node: it runs when a launch of its graph runs it)"
             : o->captured              ? " (into the capture: it runs only when a graph of it is launched)"
                                        : "");
        if (SC_LACKS(o->result)) { /* the stand-in's gap, never the answer a rule expects */
            sc_verdict_error(&r->v, "%s failed: %s", desc, b->error_name(o->result));
            break;
        }
        if (o->result == SC_UNSUPPORTED) {
            sc_verdict_skip(&r->v, "%s: %s", desc, b->error_name(o->result));
            break;
        }
        if (o->rc && !failure_expected(r, i)) {
            sc_verdict_error(&r->v, "%s failed: %s (%d)", desc, b->error_name(o->rc), o->rc);
            break;
        }
        if (o->rc)
            log_note(r, "%s answered %s (%d)", o->def->name, b->error_name(o->rc), o->rc);
        if (i == p->subject)
            judge_return(r);
        judge_comparison(r);
    }
    if (hung) {
        release(r, "deadline");
        goto out;
    }

    r->issuing = p->nops;
    /* 2. hold: observe until decided or the window has passed */
    while (!load(&r->released)) {
        sample(r);
        if (sc_verdict_decided(&r->v))
            release(r, "verdict decided");
        else if (sc_now_ns() - last_issue >= cfg->window_ns)
            release(r, "hold window passed");
        else
            observe_pause(sc_now_ns() - last_issue);
    }

    /* 3. drain: everything must complete before the deadline */
    for (;;) {
        int waiting = 0;
        sample(r);
        for (int i = 0; i < p->nops; i++)
            waiting += pending(r, i);
        if (!waiting)
            break;
        if (sc_now_ns() - r->t_release > cfg->deadline_ns) {
            for (int i = 0; i < p->nops; i++)
                if (pending(r, i)) {
                    sc_verdict_error(&r->v, "%s did not complete within %.0f ms of the release", opname(r, i),
                                     (double)cfg->deadline_ns / 1e6);
                    break;
                }
            break;
        }
        observe_pause(sc_now_ns() - r->t_release);
    }

    /* 4. a query must answer success once everything has completed; asked again for a window, since a
     *    completion is seen in its slot a moment before the stream's own bookkeeping retires it */
    if (p->rel == SC_NOT_READY_WHILE && r->v.query_ok) {
        struct worker *w = &r->workers[p->ops[p->subject].thread];
        uint64_t asked = sc_now_ns();
        for (;;) {
            post(w, JOB_REQUERY, p->subject);
            if (await(r, w, "the repeated query")) {
                hung = 1;
                goto out;
            }
            if (r->op[p->subject].result != SC_NOT_READY || sc_now_ns() - asked >= cfg->window_ns)
                break;
            sc_pause_ns(SC_POLL_NS);
        }
        log_note(r, "repeated %s: answered %s", opname(r, p->subject),
             r->op[p->subject].result == 0 ? "success" : b->error_name(r->op[p->subject].result));
        sc_verdict_requery(&r->v, r->op[p->subject].result, opname(r, p->subject));
    }

    /* 5. captures the program left open end (in the threads that began them),
     *    the device becomes idle, then the data the ops left behind */
    if (r->has_capture)
        for (int t = 0; t < nworkers; t++) {
            if (r->workers[t].exited)
                continue;
            post(&r->workers[t], JOB_END_CAPTURES, 0);
            if (await(r, &r->workers[t], "ending the stream captures")) {
                hung = 1;
                goto out;
            }
        }
    post(&r->workers[0], JOB_CTX_SYNC, 0);
    if (await(r, &r->workers[0], "the final context synchronize")) {
        hung = 1;
        goto out;
    }
    for (int k = 1, t; k < p->nprocs && !r->broken; k++) { /* each process's own context */
        for (t = 1; t < nworkers && p->thread_proc[t] != k; t++)
            ;
        post(&r->workers[t], JOB_CTX_SYNC, 0);
        await(r, &r->workers[t], "the final context synchronize");
        if (!r->broken && r->sh->mbox[t].rc)
            sc_verdict_error(&r->v, "the final context synchronize of process %s failed: %s", p->procs[k],
                             b->error_name(r->sh->mbox[t].rc));
    }
    if (r->final_sync_rc && r->faulted_at < 0)
        sc_verdict_error(&r->v, "the final context synchronize failed: %s", b->error_name(r->final_sync_rc));
    else if (r->final_sync_rc)
        log_note(r, "the final context synchronize answered %s, as after any fault", b->error_name(r->final_sync_rc));
    judge_host_answer(r);
    judge_elapsed(r);
    log_stamps(r);
    check_stamps(r);
    if (r->faulted_at < 0)
        check_data(r);
    judge_runs(r);
    judge_primary_read(r);
    judge_fill_read(r);
    sc_verdict_finish(&r->v, opname(r, p->subject), p->object >= 0 ? opname(r, p->object) : "",
                      (unsigned)(cfg->window_ns / 1000000u));
    count_group(r);
    if (r->early && r->open_at_early && !measures_hold(p)) /* what the release may have undone is never a violation */
        sc_verdict_premise_lost(&r->v, r->blocker);

cleanup:
    hung = cleanup(r);
out:
    if (hung)
        stop_peers(r, 0);
    res->verdict = r->v;
    res->hung = hung;
    if (!hung) {
        pthread_mutex_destroy(&r->log_mu);
        free(r);
    }
}

/* ---- another process of the case ------------------------------------------------ */

/* A host thread of this process: runs the jobs main posts to its mailbox. */
static void *peer_worker_main(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->r;
    struct mailbox *mb = &r->sh->mbox[w->index];
    r->b->thread_attach();
    for (;;) {
        int job = load(&mb->job);
        if (job == JOB_NONE) {
            if (sc_procs_orphaned() || load(&r->sh->quit))
                break;
            sc_pause_ns(SC_POLL_NS);
            continue;
        }
        if (job == JOB_QUIT)
            break;
        int i = load(&mb->arg);
        run_job(w, job, i);
        if (job == JOB_CTX_SYNC)
            mb->rc = r->final_sync_rc;
        store(&mb->job, JOB_NONE);
        store(&mb->busy, 0);
        if (job == JOB_ISSUE && r->p->ops[i].kind == SC_OP_THREAD_EXIT)
            break;
    }
    store(&mb->job, JOB_NONE);
    store(&mb->busy, 0);
    store(&w->exited, 1);
    return NULL;
}

int sc_peer_next(const sc_backend *b, int fd, int *case_index, int *control, char *why, size_t n)
{
    b->thread_attach(); /* registering the region needs the context current */
    struct shared *sh = shared_region(b, fd, why, n);
    if (!sh)
        return -1;
    for (;;) {
        uint32_t g = __atomic_load_n(&sh->run_gen, __ATOMIC_ACQUIRE);
        if (g != peer_gen) {
            peer_gen = g;
            *case_index = sh->case_index;
            *control = sh->control;
            return 0;
        }
        if (load(&sh->moved)) { /* on to the next API's region, whose runs after moved_gen are new */
            peer_gen = __atomic_load_n(&sh->moved_gen, __ATOMIC_ACQUIRE);
            return 2;
        }
        if (load(&sh->retire) || sc_procs_orphaned())
            return 1;
        sc_pause_ns(SC_PEER_IDLE_NS);
    }
}

int sc_run_child(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg, int proc, int fd)
{
    static char timeline[4096]; /* this process's notes are not reported: main observes */
    char why[512];
    int rc, mine_threads = 0;
    struct run *r = calloc(1, sizeof *r);
    if (!r || proc <= 0 || proc >= p->nprocs)
        return 2;
    r->b = b;
    r->p = p;
    r->cfg = *cfg;
    r->proc = proc;
    r->timeline = timeline;
    r->timeline_cap = sizeof timeline;
    r->faulted_at = -1;
    r->ndevices = devices_used(p);
    r->multi = r->ndevices > 1;
    r->next_slot = SC_MAX_OPS;
    pthread_mutex_init(&r->log_mu, NULL);
    sc_verdict_start(&r->v, p->rel);
    b->thread_attach();
    b->thread_capture_relaxed();
    if (shared_ready(r, fd, why, sizeof why))
        return 3; /* no region to report through: main sees the exit */
    r->t0 = sc_now_ns();
    if ((rc = prepare(r, why, sizeof why))) {
        snprintf(r->sh->error[proc], sizeof r->sh->error[proc], "%.255s", why);
        store(&r->sh->ready[proc], rc == -2 ? -2 : -1);
        if (load(&r->sh->created[proc]) != 1)
            store(&r->sh->created[proc], rc == -2 ? -2 : -1);
        destroy_objects(r);
        return 1; /* this process ends: the next run starts another */
    }
    for (int t = 1; t < p->nthreads; t++) {
        struct worker *w = &r->workers[t];
        if (p->thread_proc[t] != proc)
            continue;
        w->r = r;
        w->index = t;
        w->started = pthread_create(&w->tid, NULL, peer_worker_main, w) == 0;
        mine_threads += w->started;
    }
    /* observe this process's probes for the others, until every thread of it ended */
    for (int running = mine_threads; running > 0 && !sc_procs_orphaned();) {
        running = 0;
        for (int t = 1; t < p->nthreads; t++)
            running += r->workers[t].started && !load(&r->workers[t].exited);
        for (int i = 0; i < p->nops; i++)
            if (mine(r, i) && sc_op_facts(p->ops[i].kind)->probe && !load(&r->sh->op[i].done) &&
                load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc && !r->op[i].captured)
                member_done(r, i, 0);
        sc_pause_ns(SC_POLL_NS);
    }
    for (int t = 1; t < p->nthreads; t++)
        if (r->workers[t].started)
            pthread_join(r->workers[t].tid, NULL);
    destroy_objects(r);
    /* the next run starts on an idle context: nothing of this one may still write a slot */
    rc = sc_procs_orphaned() || r->faulted_at >= 0 || sync_devices(r) ? 1 : 0;
    if (rc == 0)
        __atomic_store_n(&r->sh->finished[proc], peer_gen, __ATOMIC_RELEASE);
    pthread_mutex_destroy(&r->log_mu);
    free(r);
    return rc;
}

void sc_peer_start_failed(int fd, int proc, const char *why)
{
    struct shared *sh = proc > 0 && proc < SC_MAX_PROCS ? sc_procs_region_map(fd, SC_SHARED_BYTES) : NULL;
    if (!sh)
        return; /* main still sees the exit */
    snprintf(sh->error[proc], sizeof sh->error[proc], "%.255s", why);
    store(&sh->created[proc], -1);
}

void sc_run_move_peers(void)
{
    char why[256];
    struct shared *next = region_of(1, -1, why, sizeof why);
    if (!shared_mem[0] || !next) {
        sc_run_retire_peers(0);
        return;
    }
    int any = 0;
    for (int k = 1; k < SC_MAX_PROCS; k++)
        any |= peer_pid[0][k] > 0;
    if (!any)
        return;
    store(&next->retire, 0); /* what an earlier program left there must not end them */
    __atomic_store_n(&shared_mem[0]->moved_gen, run_gen[1], __ATOMIC_RELEASE);
    store(&shared_mem[0]->moved, 1);
    for (int k = 1; k < SC_MAX_PROCS; k++) {
        if (peer_pid[1][k] > 0)
            sc_procs_reap(peer_pid[1][k], 0);
        peer_pid[1][k] = peer_pid[0][k];
        snprintf(peer_setting[1][k], SC_ENV_LEN, "%s", peer_setting[0][k]);
        peer_pid[0][k] = 0;
    }
}

void sc_run_retire_peers(int api)
{
    if (!shared_mem[api])
        return;
    store(&shared_mem[api]->retire, 1);
    for (int k = 1; k < SC_MAX_PROCS; k++)
        if (peer_pid[api][k] > 0) {
            sc_procs_reap(peer_pid[api][k], SC_PEER_GRACE_NS);
            peer_pid[api][k] = 0;
        }
}

void sc_peer_waited_for_room(const sc_backend *b, int fd, uint64_t ns)
{
    char why[256];
    b->thread_attach(); /* registering the region needs the context current */
    struct shared *sh = shared_region(b, fd, why, sizeof why);
    if (!sh)
        return; /* sc_peer_next reports the missing region */
    __atomic_add_fetch(&sh->room_wait_ns, ns, __ATOMIC_RELAXED);
    __atomic_add_fetch(&sh->room_waits, 1u, __ATOMIC_RELEASE);
}

void sc_run_end_peers(struct sc_peer_tally *t)
{
    memset(t, 0, sizeof *t);
    for (int api = 0; api < 2; api++) {
        t->started += peers_started[api];
        t->runs += run_gen[api] - runs_told[api];
        sc_run_retire_peers(api);
        if (shared_mem[api]) {
            t->room_waits += __atomic_exchange_n(&shared_mem[api]->room_waits, 0u, __ATOMIC_ACQ_REL);
            t->room_wait_ns += __atomic_exchange_n(&shared_mem[api]->room_wait_ns, 0u, __ATOMIC_RELAXED);
        }
        peers_started[api] = 0, runs_told[api] = run_gen[api]; /* a host's next program counts afresh */
    }
}
