/*
 * peers.c - a case's other processes (sc_thread_process), seen from main and
 * from each of them: the region they share with main (the arena's pinned
 * block: slots, gate flag, words, mailboxes, published results), starting,
 * moving, stopping and retiring them, and the objects they exchange (IPC
 * event and memory handles, an exportable pool's allocation).  child.c is
 * the other process's run.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static struct arena shared_arenas[2];
static struct shared *shared_mem[2];
static int shared_fd[2] = { -1, -1 };
/* main, per API: the other processes (0: none running), the runs started, processes started */
static pid_t peer_pid[2][SC_MAX_PROCS];
static char peer_setting[2][SC_MAX_PROCS][SC_ENV_LEN]; /* what each was started with (sc_process_env) */
static uint32_t run_gen[2];
static uint32_t runs_told[2]; /* run_gen when the last program's peers were told of (sc_run_end_peers) */
static unsigned peers_started[2];
/* a process other than main: the run it was told to start */
static uint32_t peer_gen;
uint32_t peer_run(void) { return peer_gen; }

/* ---- the region ---------------------------------------------------------- */

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
        (rc = b->host_alloc(&ar->scratch, sc_copy_bytes))) {
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

int shared_ready(struct run *r, int fd, char *why, size_t n)
{
    int k = r->b == &sc_driver_backend ? 0 : 1;
    r->arena = &shared_arenas[k];
    r->pid = peer_pid[k];
    return (r->sh = shared_region(r->b, fd, why, n)) ? 0 : -1;
}

/*
 * Waits until every process set its flag (created or ready), up to limit_ns;
 * <0 when one failed, -2 when it skips.  `what` completes "process p1 had not ...".
 */
int await_peers(struct run *r, int *flags, const char *what, uint64_t limit_ns, char *why, size_t n)
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
 * The end of a hold window, in every process: the mock's streams are threads of the process that made
 * them, so main's settle does not reach another process's; each process whose observer loop runs
 * (child.c) is asked, and the asks are answered side by side.  On a GPU each answers at once.
 */
int settle_peers(struct run *r, uint64_t max_ns)
{
    const struct sc_prog *p = r->p;
    int asked[SC_MAX_PROCS] = { 0 };
    if (!r->sh || r->proc != 0)
        return 1;
    for (int k = 1; k < p->nprocs; k++)
        if (load(&r->sh->observing[k])) {
            asked[k] = (load(&r->sh->settle_asked[k]) & 0x3fffffff) + 1; /* never 0: 0 is "not asked" */
            store(&r->sh->settle_asked[k], asked[k]);
        }
    uint64_t end = sc_now_ns() + max_ns + max_ns / 10;
    for (int k = 1; k < p->nprocs; k++)
        while (asked[k] && load(&r->sh->settle_answered[k]) != asked[k] && load(&r->sh->observing[k]) &&
               !r->broken) {
            char how[160];
            if (sc_now_ns() > end || !sc_procs_alive(r->pid[k], how, sizeof how))
                return 0;
            sc_pause_ns(SC_POLL_NS);
        }
    return 1;
}

void settle_if_asked(struct run *r)
{
    int asked = load(&r->sh->settle_asked[r->proc]);
    if (asked != load(&r->sh->settle_answered[r->proc])) {
        r->b->settle(SC_SETTLE_NS);
        store(&r->sh->settle_answered[r->proc], asked);
    }
}

/*
 * Main: the region's control part is reset for a new run, which the other
 * processes, waiting since their last run, then start; one that is not
 * running (the first run, or it ended) is started for it.
 */
int start_peers(struct run *r, uint32_t case_id, char *why, size_t n)
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

/* The one reason a point skips where the device or the driver cannot share a memory pool with another
 * process: every place below that finds it says this. */
static const char *no_ipc_pool(void)
{
    return "no IPC memory pools: the device or driver cannot share a memory pool with another process "
           "(CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES lacks CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, "
           "or the pool's export or import was refused)";
}

/*
 * main allocates memory m from a pool it creates exportable (SC_POOL_IPC), zeroes it and waits for
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
            snprintf(why, n, "%s", no_ipc_pool());
            return -2;
        }
        snprintf(why, n, "creating the exportable pool of memory %s failed: %s", p->buffers[m], b->error_name(rc));
        return -1;
    }
    if ((rc = b->alloc_async(&r->buf_ptr[m], sc_copy_bytes, r->ipc_pool[m], s)) ||
        (rc = b->memset_async(s, r->buf_ptr[m], 0, sc_copy_bytes)) || (rc = b->stream_sync(s))) {
        snprintf(why, n, "allocating memory %s from its exportable pool (cuMemAllocFromPoolAsync): %s", p->buffers[m],
                 b->error_name(rc));
        return -1;
    }
    if ((rc = b->ipc_pool_export(r->ipc_pool[m], r->buf_ptr[m], &fd, r->sh->mem_handle[m]))) {
        if (fd >= 0)
            close(fd);
        if (rc == SC_UNSUPPORTED || rc == SC_NOT_SUPPORTED) {
            snprintf(why, n, "%s", no_ipc_pool());
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

/* another process takes the pool's file descriptor main passed for this run and, when it uses memory
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
        snprintf(why, n, "%s", no_ipc_pool());
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
int exchange(struct run *r, char *why, size_t n)
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
            if ((rc = b->dev_alloc(&r->buf_ptr[m], sc_copy_bytes)) || (rc = b->memset_sync(r->buf_ptr[m], 0, sc_copy_bytes)) ||
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

/* Several processes: op i's result, for the others (main imports it, children read its state). */
void publish(struct run *r, int i)
{
    const struct op_rt *o = &r->op[i];
    struct remote_op *x = &r->sh->op[i];
    x->rc = o->rc, x->result = o->result, x->captured = o->captured, x->value = o->value, x->ms = o->ms;
    x->t_issue = o->t_issue, x->t_return = o->t_return, x->ret = o->ret, x->at_return = o->at_return;
    x->clobbered = o->clobbered, x->bad_word = o->bad_word, x->bad_value = o->bad_value;
    store(&x->state, load(&o->state)); /* last: a reader that sees the state sees the rest */
}

/* Main: what another process published of op i becomes main's own view of it. */
void import(struct run *r, int i)
{
    struct op_rt *o = &r->op[i];
    const struct remote_op *x = &r->sh->op[i];
    int state = load(&x->state);
    o->rc = x->rc, o->result = x->result, o->captured = x->captured, o->value = x->value, o->ms = x->ms;
    o->t_issue = x->t_issue, o->t_return = x->t_return, o->ret = x->ret, o->at_return = x->at_return;
    o->clobbered = x->clobbered, o->bad_word = x->bad_word, o->bad_value = x->bad_value;
    store(&o->state, state);
}

/*
 * Main: ends the run in the other processes.  Each destroys its objects,
 * waits for its context to be idle and reports the run finished, then waits
 * for the next; one that has not within grace_ns (at once when grace_ns is 0)
 * is killed, and the next run starts another.
 */
void stop_peers(struct run *r, uint64_t grace_ns)
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
void peer_failed(struct run *r, const char *fmt, ...)
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
