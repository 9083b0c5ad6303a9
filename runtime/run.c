/*
 * run.c - running one case's program through one backend (see run.h).
 *
 * The process's main thread is the observer: it never makes a call that can
 * block (only queries), so it can always release the gates and keep every
 * deadline.  Every op of the program is issued by a worker thread, one per
 * host thread the program names.
 */
#define _GNU_SOURCE
#include "run.h"
#include "clock.h"
#include "slot.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_COPY_BYTES (4u << 20)       /* every memcpy and memset moves 4 MiB   */
#define SC_POLL_NS 20000u              /* observer's pause between samples      */
#define SC_HANG_GRACE_NS 2000000000ull /* after a deadline, before giving up     */

/* ---- buffers and slots, allocated once per backend and reused ---------- */

struct buffers {
    void *dev_src, *dev_dst, *pinned, *pageable;
};

struct pool {
    int ready;
    struct sc_slot *slots; /* SC_MAX_OPS slots, then the gate flag */
    void *slots_dev;
    uint32_t *gate;
    void *gate_dev;
    void *scratch; /* pinned, for filling sources and reading results back */
    struct buffers buf[SC_MAX_OPS];
};

static struct pool pools[2];
static uint32_t run_counter;

/* ---- one run ------------------------------------------------------------ */

enum { ST_IDLE = 0, ST_ISSUED, ST_RETURNED };
enum { JOB_NONE = 0, JOB_ISSUE, JOB_REQUERY, JOB_CTX_SYNC, JOB_QUIT };

struct host_arg { /* what host functions, callbacks and host gates touch */
    struct sc_slot *slot;
    uint32_t token;
    uint32_t *gate;
    uint64_t max_ns;
};

struct op_rt {
    const struct sc_op_def *def;
    void *stream, *event, *probe; /* probe: event recorded right after the op */
    uint32_t token;
    unsigned char fill;           /* memset byte                               */
    struct host_arg harg;
    /* written by the issuing worker */
    int state, rc, result;
    uint64_t t_issue, t_return;
    struct sc_return ret;         /* host calls: read right after returning   */
    /* written by the observer */
    int done;
};

struct run;

struct worker {
    struct run *r;
    int index;
    pthread_t tid;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int job, arg;
    int busy;                     /* atomic: a job is posted or running */
    int started;
};

struct run {
    const sc_backend *b;
    const struct sc_prog *p;
    struct sc_run_config cfg;
    struct pool *pool;
    struct op_rt op[SC_MAX_OPS];
    void *streams[SC_MAX_STREAMS];
    void *events[SC_MAX_EVENTS];
    struct worker workers[SC_MAX_THREADS];
    int released;                 /* atomic */
    int final_sync_rc;
    char blocker[160];            /* the call that forced an early release */
    uint64_t t0, t_release;
    struct sc_verdict v;
    pthread_mutex_t log_mu;
    char *timeline;
    size_t timeline_len, timeline_cap;
};

static void note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct run *r, const char *fmt, ...)
{
    char line[512];
    int n;
    va_list ap;
    pthread_mutex_lock(&r->log_mu);
    n = snprintf(line, sizeof line, "%9.3f ms  ", (double)(sc_now_ns() - r->t0) / 1e6);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (r->timeline_len + len + 2 < r->timeline_cap) {
        memcpy(r->timeline + r->timeline_len, line, len);
        r->timeline_len += len;
        r->timeline[r->timeline_len++] = '\n';
        r->timeline[r->timeline_len] = '\0';
    }
    pthread_mutex_unlock(&r->log_mu);
}

static const char *opname(const struct run *r, int i) { return r->p->ops[i].name; }

static int load(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static void store(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* ---- host functions the ops enqueue ------------------------------------- */

static void host_mark(void *a)
{
    struct host_arg *h = a;
    h->slot->start_ns = h->slot->end_ns = sc_now_ns();
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
    __atomic_store_n(&h->slot->token, h->token, __ATOMIC_RELEASE);
}

void sc_callback_body(void *a, int status)
{
    struct host_arg *h = a;
    h->slot->arg = (uint32_t)status;
    host_mark(a);
}

/* ---- the pool ------------------------------------------------------------ */

static int pool_ready(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    struct pool *pl = r->pool;
    int rc;
    if (pl->ready)
        return 0;
    size_t bytes = sizeof(struct sc_slot) * SC_MAX_OPS + 64;
    void *mem;
    if ((rc = b->host_alloc(&mem, bytes)) || (rc = b->host_dev_ptr(&pl->slots_dev, mem)) ||
        (rc = b->host_alloc(&pl->scratch, SC_COPY_BYTES))) {
        snprintf(why, n, "cannot allocate pinned host memory: %s", b->error_name(rc));
        return -1;
    }
    pl->slots = mem;
    pl->gate = (uint32_t *)(pl->slots + SC_MAX_OPS);
    pl->gate_dev = (char *)pl->slots_dev + ((char *)pl->gate - (char *)mem);
    pl->ready = 1;
    return 0;
}

static int buffers_ready(struct run *r, int i, char *why, size_t n)
{
    struct buffers *bf = &r->pool->buf[i];
    const sc_backend *b = r->b;
    int rc;
    if (bf->pageable)
        return 0;
    if ((rc = b->dev_alloc(&bf->dev_src, SC_COPY_BYTES)) || (rc = b->dev_alloc(&bf->dev_dst, SC_COPY_BYTES)) ||
        (rc = b->host_alloc(&bf->pinned, SC_COPY_BYTES))) {
        snprintf(why, n, "cannot allocate copy buffers: %s", b->error_name(rc));
        return -1;
    }
    if (posix_memalign(&bf->pageable, 4096, SC_COPY_BYTES) != 0) {
        snprintf(why, n, "cannot allocate pageable memory");
        return -1;
    }
    memset(bf->pageable, 0, SC_COPY_BYTES); /* touch every page now */
    return 0;
}

static void fill_words(void *p, uint32_t v)
{
    uint32_t *w = p;
    for (size_t k = 0; k < SC_COPY_BYTES / 4; k++)
        w[k] = v;
}

/* Where a copy reads and writes. */
static void copy_ends(struct run *r, int i, void **dst, const void **src)
{
    struct buffers *bf = &r->pool->buf[i];
    switch (r->p->ops[i].copy) {
    case SC_H2D_PINNED: *src = bf->pinned; *dst = bf->dev_dst; break;
    case SC_H2D_PAGEABLE: *src = bf->pageable; *dst = bf->dev_dst; break;
    case SC_D2H_PINNED: *src = bf->dev_src; *dst = bf->pinned; break;
    case SC_D2H_PAGEABLE: *src = bf->dev_src; *dst = bf->pageable; break;
    case SC_D2D: *src = bf->dev_src; *dst = bf->dev_dst; break;
    }
}

static int is_copy(enum sc_op_kind k) { return k == SC_OP_MEMCPY_ASYNC || k == SC_OP_MEMCPY_SYNC; }
static int has_slot(enum sc_op_kind k)
{
    return k == SC_OP_GATE || k == SC_OP_HOST_GATE || k == SC_OP_KERNEL || k == SC_OP_HOST_FUNC ||
           k == SC_OP_CALLBACK;
}
static int has_probe(enum sc_op_kind k) { return k == SC_OP_MEMSET || k == SC_OP_MEMCPY_ASYNC || k == SC_OP_RECORD; }
static int on_device(enum sc_op_kind k) { return k == SC_OP_GATE || k == SC_OP_KERNEL; }

/* Buffers filled, destinations cleared, handles created; the GPU is idle after. */
static int prepare(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    int rc;
    uint32_t case_id = ++run_counter;

    memset(r->pool->slots, 0, sizeof(struct sc_slot) * SC_MAX_OPS);
    __atomic_store_n(r->pool->gate, 0u, __ATOMIC_SEQ_CST);
    for (int s = 0; s < p->nstreams; s++)
        if ((rc = b->stream_create(&r->streams[s], p->streams[s].kind == SC_NONBLOCKING))) {
            snprintf(why, n, "creating stream %s failed: %s", p->streams[s].name, b->error_name(rc));
            return -1;
        }
    for (int e = 0; e < p->nevents; e++)
        if ((rc = b->event_create(&r->events[e]))) {
            snprintf(why, n, "creating event %s failed: %s", p->events[e], b->error_name(rc));
            return -1;
        }
    for (int i = 0; i < p->nops; i++) {
        const struct sc_op_def *d = &p->ops[i];
        struct op_rt *o = &r->op[i];
        o->def = d;
        o->token = (case_id << 8) | (uint32_t)(i + 1);
        o->fill = (unsigned char)(0x40 + i);
        o->stream = d->stream >= 0 ? r->streams[d->stream] : b->builtin_stream(d->stream);
        o->event = (d->kind == SC_OP_RECORD || d->kind == SC_OP_WAIT || d->kind == SC_OP_EVENT_SYNC ||
                    d->kind == SC_OP_EVENT_QUERY || d->kind == SC_OP_EVENT_DESTROY) ? r->events[d->event] : NULL;
        o->harg = (struct host_arg){ &r->pool->slots[i], o->token, r->pool->gate, r->cfg.deadline_ns };
        if (has_probe(d->kind) && (rc = b->event_create(&o->probe))) {
            snprintf(why, n, "creating a probe event failed: %s", b->error_name(rc));
            return -1;
        }
        if (is_copy(d->kind) || d->kind == SC_OP_MEMSET) {
            struct buffers *bf = &r->pool->buf[i];
            if (buffers_ready(r, i, why, n))
                return -1;
            fill_words(bf->pinned, 0);
            fill_words(bf->pageable, 0);
            if ((rc = b->memset_sync(bf->dev_dst, 0, SC_COPY_BYTES)))
                goto fail;
            fill_words(r->pool->scratch, o->token);
            if ((rc = b->memcpy_sync(bf->dev_src, r->pool->scratch, SC_COPY_BYTES, SC_H2D_PINNED)))
                goto fail;
            if (d->copy == SC_H2D_PINNED)
                fill_words(bf->pinned, o->token);
            if (d->copy == SC_H2D_PAGEABLE)
                fill_words(bf->pageable, o->token);
        }
    }
    if ((rc = b->ctx_sync()))
        goto fail;
    return 0;
fail:
    snprintf(why, n, "preparing buffers failed: %s", b->error_name(rc));
    return -1;
}

/* ---- observing ----------------------------------------------------------- */

/* 1: op i has completed; 0: not yet; -1: the probe itself failed. */
static int probe(struct run *r, int i)
{
    struct op_rt *o = &r->op[i];
    enum sc_op_kind k = o->def->kind;
    if (load(&o->state) != ST_RETURNED)
        return 0; /* an event never recorded reads as complete: wait for the call */
    if (has_slot(k))
        return __atomic_load_n(&r->pool->slots[i].token, __ATOMIC_ACQUIRE) == o->token;
    if (has_probe(k)) {
        int q = r->b->event_query(o->probe);
        return q == 0 ? 1 : q == SC_NOT_READY ? 0 : -1;
    }
    return 1; /* host calls: returned; waits: not observable */
}

static void sample(struct run *r)
{
    const struct sc_prog *p = r->p;
    struct sc_sample s;
    /* the order of these three reads is what makes a violation real */
    s.subject_done = probe(r, p->subject) == 1;
    s.object_done = probe(r, p->object) == 1;
    s.released = load(&r->released);
    sc_verdict_observe(&r->v, &s, opname(r, p->subject), opname(r, p->object));

    for (int i = 0; i < p->nops; i++) {
        if (r->op[i].done || !sc_op_is_observable(p->ops[i].kind))
            continue;
        int d = probe(r, i);
        if (d < 0) {
            sc_verdict_error(&r->v, "querying the completion of %s failed", opname(r, i));
            r->op[i].done = 1;
        } else if (d) {
            r->op[i].done = 1;
            note(r, "observed %s complete%s", opname(r, i), load(&r->released) ? "" : " (gates closed)");
        }
    }
}

static void release(struct run *r, const char *why)
{
    if (load(&r->released))
        return;
    store(&r->released, 1); /* before the flag: a sample that reads 0 was taken while held */
    __atomic_store_n(r->pool->gate, 1u, __ATOMIC_SEQ_CST);
    r->t_release = sc_now_ns();
    note(r, "gates released: %s", why);
}

/* ---- issuing ------------------------------------------------------------- */

static int issue(struct run *r, int i)
{
    const sc_backend *b = r->b;
    struct op_rt *o = &r->op[i];
    const struct sc_op_def *d = o->def;
    struct sc_slot *slot_dev = (struct sc_slot *)r->pool->slots_dev + i;
    void *dst;
    const void *src;
    int rc = 0;

    switch (d->kind) {
    case SC_OP_GATE: rc = b->launch_gate(o->stream, r->pool->gate_dev, r->cfg.deadline_ns, slot_dev, o->token); break;
    case SC_OP_HOST_GATE: rc = b->host_func(o->stream, host_gate, &o->harg); break;
    case SC_OP_KERNEL: rc = b->launch_mark(o->stream, slot_dev, o->token); break;
    case SC_OP_MEMSET: rc = b->memset_async(o->stream, r->pool->buf[i].dev_dst, o->fill, SC_COPY_BYTES); break;
    case SC_OP_MEMCPY_ASYNC:
        copy_ends(r, i, &dst, &src);
        rc = b->memcpy_async(o->stream, dst, src, SC_COPY_BYTES, d->copy);
        break;
    case SC_OP_MEMCPY_SYNC:
        copy_ends(r, i, &dst, &src);
        rc = b->memcpy_sync(dst, src, SC_COPY_BYTES, d->copy);
        break;
    case SC_OP_HOST_FUNC: rc = b->host_func(o->stream, host_mark, &o->harg); break;
    case SC_OP_CALLBACK: rc = b->callback(o->stream, &o->harg); break;
    case SC_OP_RECORD: rc = b->event_record(o->event, o->stream); break;
    case SC_OP_WAIT: rc = b->stream_wait_event(o->stream, o->event); break;
    case SC_OP_STREAM_SYNC: rc = b->stream_sync(o->stream); break;
    case SC_OP_EVENT_SYNC: rc = b->event_sync(o->event); break;
    case SC_OP_CTX_SYNC: rc = b->ctx_sync(); break;
    case SC_OP_STREAM_QUERY:
    case SC_OP_EVENT_QUERY:
        /*
         * "Ready while" asks whether the query answers success at some point
         * while the object is held: the GPU may not have reached the work it
         * covers yet, so ask again until success or the release.
         */
        for (int poll = i == r->p->subject && r->p->rel == SC_READY_WHILE;;) {
            o->result = d->kind == SC_OP_STREAM_QUERY ? b->stream_query(o->stream) : b->event_query(o->event);
            if (o->result != SC_NOT_READY || !poll || load(&r->released))
                break;
            sc_pause_ns(SC_POLL_NS);
        }
        rc = (o->result == 0 || o->result == SC_NOT_READY) ? 0 : o->result;
        break;
    case SC_OP_STREAM_DESTROY:
        if ((rc = b->stream_destroy(o->stream)) == 0)
            r->streams[d->stream] = NULL; /* the cleanup must not destroy it again */
        break;
    case SC_OP_EVENT_DESTROY:
        if ((rc = b->event_destroy(o->event)) == 0)
            r->events[d->event] = NULL;
        break;
    }
    if (rc == 0 && has_probe(d->kind))
        rc = b->event_record(o->probe, o->stream);
    return rc;
}

static void run_job(struct worker *w, int job, int i)
{
    struct run *r = w->r;
    struct op_rt *o = &r->op[i];
    switch (job) {
    case JOB_ISSUE:
        o->t_issue = sc_now_ns();
        store(&o->state, ST_ISSUED);
        o->rc = issue(r, i);
        o->t_return = sc_now_ns();
        if (i == r->p->subject) {
            /* the object first, then the release flag: see verdict.h */
            o->ret.object_done = probe(r, r->p->object) == 1;
            o->ret.released = load(&r->released);
            o->ret.result = o->result;
        }
        store(&o->state, ST_RETURNED);
        break;
    case JOB_REQUERY:
        o->result = o->def->kind == SC_OP_STREAM_QUERY ? r->b->stream_query(o->stream) : r->b->event_query(o->event);
        break;
    case JOB_CTX_SYNC:
        r->final_sync_rc = r->b->ctx_sync();
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
        pthread_mutex_lock(&w->mu);
        w->job = JOB_NONE;
        pthread_mutex_unlock(&w->mu);
        store(&w->busy, 0);
    }
}

static void post(struct worker *w, int job, int arg)
{
    store(&w->busy, 1);
    pthread_mutex_lock(&w->mu);
    w->job = job;
    w->arg = arg;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Waits for the worker's job, observing meanwhile.  0: done; -1: it hung. */
static int await(struct run *r, struct worker *w, const char *what)
{
    uint64_t start = sc_now_ns();
    while (load(&w->busy)) {
        sample(r);
        uint64_t waited = sc_now_ns() - start;
        if (!load(&r->released) && waited >= r->cfg.window_ns) {
            snprintf(r->blocker, sizeof r->blocker, "%s", what);
            release(r, "the issuing thread was blocked for the whole window");
        }
        if (waited >= r->cfg.deadline_ns + SC_HANG_GRACE_NS) {
            sc_verdict_error(&r->v, "%s did not return within the %.0f ms deadline", what,
                             (double)r->cfg.deadline_ns / 1e6);
            note(r, "%s still blocked: giving up", what);
            return -1;
        }
        sc_pause_ns(SC_POLL_NS);
    }
    return 0;
}

/* ---- after the drain ----------------------------------------------------- */

static void check_data(struct run *r)
{
    const sc_backend *b = r->b;
    for (int i = 0; i < r->p->nops; i++) {
        struct op_rt *o = &r->op[i];
        enum sc_op_kind k = o->def->kind;
        struct sc_slot *sl = &r->pool->slots[i];
        if (o->rc || load(&o->state) != ST_RETURNED)
            continue;
        if ((k == SC_OP_GATE || k == SC_OP_HOST_GATE) && sl->status == SC_GATE_EXPIRED)
            sc_verdict_error(&r->v, "gate %s ran into its own deadline: it was never released", opname(r, i));
        if (k == SC_OP_CALLBACK && sl->arg != 0)
            sc_verdict_error(&r->v, "callback %s received status %u, not success", opname(r, i), sl->arg);
        if (!is_copy(k) && k != SC_OP_MEMSET)
            continue;
        void *dst = r->pool->buf[i].dev_dst;
        const void *src;
        uint32_t want = o->token;
        if (k == SC_OP_MEMSET)
            want = 0x01010101u * o->fill;
        else
            copy_ends(r, i, &dst, &src);
        const uint32_t *got = dst;
        if (k == SC_OP_MEMSET || o->def->copy == SC_H2D_PINNED || o->def->copy == SC_H2D_PAGEABLE ||
            o->def->copy == SC_D2D) {
            int rc = b->memcpy_sync(r->pool->scratch, dst, SC_COPY_BYTES, SC_D2H_PINNED);
            if (rc) {
                sc_verdict_error(&r->v, "reading back %s's destination failed: %s", opname(r, i), b->error_name(rc));
                continue;
            }
            got = r->pool->scratch;
        }
        for (size_t w = 0; w < SC_COPY_BYTES / 4; w++)
            if (got[w] != want) {
                sc_verdict_error(&r->v, "%s left wrong data: word %zu is 0x%08x, expected 0x%08x", opname(r, i), w,
                                 got[w], want);
                break;
            }
    }
}

/* %globaltimer stamps of the device ops, as evidence. */
static void note_stamps(struct run *r)
{
    uint64_t base = UINT64_MAX;
    for (int i = 0; i < r->p->nops; i++)
        if (on_device(r->p->ops[i].kind) && r->pool->slots[i].token == r->op[i].token &&
            r->pool->slots[i].start_ns < base)
            base = r->pool->slots[i].start_ns;
    if (base == UINT64_MAX)
        return;
    for (int i = 0; i < r->p->nops; i++) {
        struct sc_slot *sl = &r->pool->slots[i];
        if (on_device(r->p->ops[i].kind) && sl->token == r->op[i].token)
            note(r, "%%globaltimer %s: start +%.3f us, end +%.3f us", opname(r, i), (double)(sl->start_ns - base) / 1e3,
                 (double)(sl->end_ns - base) / 1e3);
    }
}

static void check_stamps(struct run *r)
{
    const struct sc_prog *p = r->p;
    struct sc_slot *s = &r->pool->slots[p->subject], *o = &r->pool->slots[p->object];
    if (p->rel != SC_AFTER || !on_device(p->ops[p->subject].kind) || !on_device(p->ops[p->object].kind))
        return;
    if (s->token == r->op[p->subject].token && o->token == r->op[p->object].token)
        sc_verdict_stamps(&r->v, s->start_ns, o->end_ns, opname(r, p->subject), opname(r, p->object));
}

/* Host calls whose argument is a stream they act on, not one they are issued to. */
static int stream_argument(enum sc_op_kind k)
{
    return k == SC_OP_STREAM_SYNC || k == SC_OP_STREAM_QUERY || k == SC_OP_STREAM_DESTROY;
}

static int event_argument(enum sc_op_kind k)
{
    return k == SC_OP_EVENT_SYNC || k == SC_OP_EVENT_QUERY || k == SC_OP_EVENT_DESTROY;
}

static void describe_op(struct run *r, int i, char *out, size_t n)
{
    const struct sc_op_def *d = &r->p->ops[i];
    const char *kind = d->kind == SC_OP_MEMCPY_ASYNC || d->kind == SC_OP_MEMCPY_SYNC ? sc_copy_name(d->copy)
                                                                                    : sc_op_kind_name(d->kind);
    if (stream_argument(d->kind))
        snprintf(out, n, "%s (%s of %s)", d->name, kind, sc_stream_name(r->p, d->stream));
    else if (event_argument(d->kind))
        snprintf(out, n, "%s (%s of %s)", d->name, kind, r->p->events[d->event]);
    else if (sc_op_is_host_call(d->kind))
        snprintf(out, n, "%s (%s%s)", d->name, kind, d->kind == SC_OP_MEMCPY_SYNC ? " sync" : "");
    else
        snprintf(out, n, "%s (%s on %s)", d->name, kind, sc_stream_name(r->p, d->stream));
    if (d->thread) {
        size_t len = strlen(out);
        snprintf(out + len, n - len, " in %s", r->p->threads[d->thread]);
    }
}

/* An op whose completion the drain waits for: issued without error, observable, not seen complete yet. */
static int pending(struct run *r, int i)
{
    return sc_op_is_observable(r->p->ops[i].kind) && load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc &&
           !r->op[i].done;
}

/* ---- the whole case -------------------------------------------------------- */

void sc_run_program(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg,
                    struct sc_result *res)
{
    char why[512];
    int hung = 0, nworkers = p->nthreads;
    struct run *r = calloc(1, sizeof *r); /* abandoned, not freed, if a thread hangs */
    memset(res, 0, sizeof *res);
    if (!r) {
        sc_verdict_error(&res->verdict, "out of memory");
        return;
    }
    r->b = b;
    r->p = p;
    r->cfg = *cfg;
    r->pool = &pools[b == &sc_driver_backend ? 0 : 1];
    r->timeline = res->timeline;
    r->timeline_cap = sizeof res->timeline;
    pthread_mutex_init(&r->log_mu, NULL);
    sc_verdict_start(&r->v, p->rel);

    if (p->error[0] || !p->has_expect) {
        sc_verdict_error(&r->v, "the program is malformed: %s", p->error[0] ? p->error : "no expectation");
        goto out;
    }
    b->thread_attach();
    if (pool_ready(r, why, sizeof why) || prepare(r, why, sizeof why)) {
        sc_verdict_error(&r->v, "%s", why);
        goto cleanup;
    }
    for (int t = 0; t < nworkers; t++) {
        struct worker *w = &r->workers[t];
        w->r = r;
        w->index = t;
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
        if (i == p->subject && load(&r->released)) {
            sc_verdict_error(&r->v,
                             "cannot decide: the gates had to be released before %s was issued, because %s "
                             "blocked its issuing thread for the whole window",
                             desc, r->blocker);
            break;
        }
        post(&r->workers[o->def->thread], JOB_ISSUE, i);
        if (await(r, &r->workers[o->def->thread], desc)) {
            hung = 1;
            break;
        }
        last_issue = o->t_issue;
        note(r, "issued %s: returned after %.3f ms%s", desc, (double)(o->t_return - o->t_issue) / 1e6,
             o->def->kind == SC_OP_STREAM_QUERY || o->def->kind == SC_OP_EVENT_QUERY
                 ? (o->result == 0 ? ", answered success" : o->result == SC_NOT_READY ? ", answered not-ready" : "")
                 : "");
        if (o->rc) {
            sc_verdict_error(&r->v, "%s failed: %s (%d)", desc, b->error_name(o->rc), o->rc);
            break;
        }
        if (i == p->subject)
            sc_verdict_returned(&r->v, &o->ret, opname(r, p->subject), opname(r, p->object));
    }
    if (hung) {
        release(r, "deadline");
        goto out;
    }

    /* 2. hold: observe until decided or the window has passed */
    while (!load(&r->released)) {
        sample(r);
        if (sc_verdict_decided(&r->v))
            release(r, "verdict decided");
        else if (sc_now_ns() - last_issue >= cfg->window_ns)
            release(r, "hold window passed");
        else
            sc_pause_ns(SC_POLL_NS);
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
        sc_pause_ns(SC_POLL_NS);
    }

    /* 4. a query must answer success once everything has completed */
    if (p->rel == SC_NOT_READY_WHILE && r->v.query_ok) {
        struct worker *w = &r->workers[p->ops[p->subject].thread];
        post(w, JOB_REQUERY, p->subject);
        if (await(r, w, "the repeated query")) {
            hung = 1;
            goto out;
        }
        note(r, "repeated %s: answered %s", opname(r, p->subject),
             r->op[p->subject].result == 0 ? "success" : b->error_name(r->op[p->subject].result));
        sc_verdict_requery(&r->v, r->op[p->subject].result, opname(r, p->subject));
    }

    /* 5. the device is idle, then the data the ops left behind */
    post(&r->workers[0], JOB_CTX_SYNC, 0);
    if (await(r, &r->workers[0], "the final context synchronize")) {
        hung = 1;
        goto out;
    }
    if (r->final_sync_rc)
        sc_verdict_error(&r->v, "the final context synchronize failed: %s", b->error_name(r->final_sync_rc));
    note_stamps(r);
    check_stamps(r);
    sc_verdict_finish(&r->v, opname(r, p->subject), opname(r, p->object), (unsigned)(cfg->window_ns / 1000000u));
    check_data(r);

cleanup:
    for (int t = 0; t < nworkers; t++)
        if (r->workers[t].started) {
            post(&r->workers[t], JOB_QUIT, 0);
            pthread_join(r->workers[t].tid, NULL);
        }
    for (int i = 0; i < p->nops; i++)
        if (r->op[i].probe)
            b->event_destroy(r->op[i].probe);
    for (int e = 0; e < p->nevents; e++)
        if (r->events[e])
            b->event_destroy(r->events[e]);
    for (int s = 0; s < p->nstreams; s++)
        if (r->streams[s])
            b->stream_destroy(r->streams[s]);
out:
    res->verdict = r->v;
    res->hung = hung;
    if (!hung) {
        pthread_mutex_destroy(&r->log_mu);
        free(r);
    }
}
