/*
 * streams.c - the mock's streams: a queue each, worked by a thread of its own.
 *
 * Work is enqueued as the stream synchronization behavior page describes (the
 * legacy stream joins the blocking streams); a stream's worker says what it
 * waits for while it waits, so that settle (sc_backend_settle) can tell a
 * stream that waits from one a busy machine has not run yet.  Also the
 * stream calls: create, flags, synchronize, query.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER; /* legacy joins: whole enqueue is atomic */
struct mstream *blocking_list, *all_list, *legacy;
static __thread struct mstream *per_thread;

uint64_t done_of(struct mstream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t d = s->done;
    pthread_mutex_unlock(&s->mu);
    return d;
}

uint64_t enq_of(struct mstream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t e = s->enq;
    pthread_mutex_unlock(&s->mu);
    return e;
}

/*
 * settle (sc_backend_settle): a stream's worker says what it waits for while it waits, so that a stream
 * that waits can be told from one whose work a busy machine has not run yet.  The test is made under the
 * stream's lock and reads only atomics: the worker takes it back under that lock before its argument goes.
 */
static __thread struct mstream *running; /* the stream this thread is the worker of (NULL: a caller's thread) */
/* quiescent: bumped by every change a stream's state can show (an item queued or done, a worker that begins
 * or ends a wait), so that a look at every stream that saw it unchanged saw one moment */
static uint64_t moves;
static void moved(void) { __atomic_add_fetch(&moves, 1, __ATOMIC_ACQ_REL); }
/* quiescent: device work that runs on a thread of its own (a programmatic launch's early start, an unwaited
 * conditional body) */
static int off_stream;
void off_stream_begins(void) { __atomic_add_fetch(&off_stream, 1, __ATOMIC_ACQ_REL); }
void off_stream_ends(void) { __atomic_sub_fetch(&off_stream, 1, __ATOMIC_ACQ_REL); }
void waiting_for(int (*blocked)(const void *), const void *arg)
{
    if (!running)
        return;
    pthread_mutex_lock(&running->mu);
    running->blocked = blocked, running->blocked_arg = arg;
    moved();
    pthread_mutex_unlock(&running->mu);
}
void waiting_over(void) { waiting_for(NULL, NULL); }
struct mstream *worker_stream(void) { return running; }
/* the caller's own code (a host function, a callback) may wait for anything: settled once it started.
 * The functions host_func was given, to know them when a worker runs them. */
static int in_callers_code(const void *arg) { return (void)arg, 1; }
static void (*callers_fns[16])(void *);
void callers_fn_add(void (*fn)(void *))
{
    for (int i = 0; i < 16; i++) {
        void (*was)(void *) = NULL;
        if (__atomic_load_n(&callers_fns[i], __ATOMIC_ACQUIRE) == fn ||
            __atomic_compare_exchange_n(&callers_fns[i], &was, fn, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return;
    }
}
static int callers_fn(void (*fn)(void *))
{
    for (int i = 0; i < 16; i++)
        if (__atomic_load_n(&callers_fns[i], __ATOMIC_ACQUIRE) == fn)
            return 1;
    return 0;
}

struct done_wait {
    struct mstream *on;
    uint64_t target;
};
static int done_pending(const void *a)
{
    const struct done_wait *w = a;
    return __atomic_load_n(&w->on->done, __ATOMIC_ACQUIRE) < w->target;
}
void wait_done(struct mstream *s, uint64_t target)
{
    struct done_wait w = { s, target };
    if (s != running) /* its own stream's earlier items are done: the worker never waits for itself */
        waiting_for(done_pending, &w);
    pthread_mutex_lock(&s->mu);
    while (s->done < target)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
    if (s != running)
        waiting_over();
}
/* mps_serializes: the MPS server's lock, which another process's work (a held gate) may keep */
static int on_serial_lock(const void *arg) { return (void)arg, 1; }
static void *worker(void *arg)
{
    struct mstream *s = arg;
    running = s;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->head)
            pthread_cond_wait(&s->cv, &s->mu);
        struct item *it = s->head;
        pthread_mutex_unlock(&s->mu);
        if (quirks(slow_device) || (quirks(slow_at_start) && sc_now_ns() - mock_started_ns < 1500000000ull))
            sc_pause_ns(20000000u);
        if (breaks(write_value_unfenced) || breaks(batch_unfenced))
            fence_pending(s, it->type == ITEM_FN ? it->fn : NULL);
        if (it->type == ITEM_WAIT)
            wait_done(it->on, it->target);
        else if (it->fn && (!context_error() || it->fn == run_callback)) { /* after a fault only callbacks run */
            waiting_for(on_serial_lock, NULL);
            int serial = it->fn == run_gate ? -1 : device_serial_lock(); /* a gate holds it from its launch */
            waiting_over();
            int callers = callers_fn(it->fn);
            if (callers)
                waiting_for(in_callers_code, NULL);
            it->fn(it->arg);
            if (callers)
                waiting_over();
            if (serial >= 0)
                close(serial);
        }
        if (it->owned)
            free(it->arg);
        pthread_mutex_lock(&s->mu);
        s->head = it->next;
        s->done++;
        moved();
        free(it);
        while (s->head && early_done(s->head)) { /* it completed with the work before it */
            it = s->head;
            s->head = it->next;
            s->done++;
            free(it->arg); /* what run_pdl_join does once it ran (it would take this lock) */
            free(it);
        }
        if (!s->head)
            s->tail = NULL;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

struct mstream *new_stream(int kind)
{
    struct mstream *s = calloc(1, sizeof *s);
    pthread_t tid;
    s->kind = kind;
    s->ctx = cur_ctx;
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv, NULL);
    pthread_create(&tid, NULL, worker, s);
    pthread_detach(tid);
    pthread_mutex_lock(&registry);
    s->next_all = all_list;
    all_list = s;
    if (kind == KIND_BLOCKING || kind == KIND_PER_THREAD) {
        s->next_blocking = blocking_list;
        blocking_list = s;
    }
    pthread_mutex_unlock(&registry);
    ctx_waits_apply(s); /* "all future work submitted to context" waits for its cuCtxWaitEvent events */
    return s;
}

/* Appends an item; the caller holds the registry lock. Returns the item's position. */
uint64_t push(struct mstream *s, int type, void (*fn)(void *), void *arg, struct mstream *on, uint64_t target,
                     int owned)
{
    struct item *it = calloc(1, sizeof *it);
    *it = (struct item){ type, fn, arg, on, target, owned, NULL };
    pthread_mutex_lock(&s->mu);
    if (s->tail)
        s->tail->next = it;
    else
        s->head = it;
    s->tail = it;
    uint64_t pos = ++s->enq;
    moved();
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return pos;
}

struct mstream *resolve(void *h)
{
    if (h == (void *)1)
        return cur_ctx ? cur_ctx->legacy : legacy;
    if (h == (void *)2 || h == NULL) {
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
        if (h == NULL)
            return cur_ctx ? cur_ctx->legacy : legacy;
#endif
        if (!per_thread)
            per_thread = new_stream(KIND_PER_THREAD);
        return per_thread;
    }
    return h;
}

/*
 * Enqueues work as the stream synchronization behavior page describes: an
 * action in the legacy stream first waits on all blocking streams, and then
 * all blocking streams wait on the legacy stream; a blocking stream's work
 * waits for the legacy stream's prior work.
 */
uint64_t enqueue(void *h, int type, void (*fn)(void *), void *arg, struct mstream *on, uint64_t target,
                        int owned)
{
    struct mstream *s = resolve(h);
    uint64_t pos;
    pthread_mutex_lock(&registry);
    struct mgraph *cap = s->capture;
    if (cap) { /* recorded, not run: a node of the capture */
        struct item *it = calloc(1, sizeof *it);
        *it = (struct item){ type, fn, arg, on, target, owned, NULL };
        if (cap->tail)
            cap->tail->next = it;
        else
            cap->head = it;
        cap->tail = it;
        if (type != ITEM_FN || fn != run_record) /* a record makes no node: it marks a point */
            capture_node(cap, s); /* a node of its own: the next follows it */
        pthread_mutex_unlock(&registry);
        if (!breaks(capture) || type != ITEM_FN)
            return 0;
        owned = 0; /* broken: it runs now too; the node keeps the argument */
    } else
        pthread_mutex_unlock(&registry);
    if (quirks(enqueue_waits)) { /* legal: the call blocks a while (50 ms at most), for the stream to drain */
        /* woken by the worker as each item completes (its broadcast), not by polling every 100 us */
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 50000000;
        until.tv_sec += until.tv_nsec / 1000000000, until.tv_nsec %= 1000000000;
        pthread_mutex_lock(&s->mu);
        uint64_t drained = s->enq;
        while (s->done < drained && pthread_cond_clockwait(&s->cv, &s->mu, CLOCK_MONOTONIC, &until) == 0)
            ;
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&registry);
    if (s == legacy && !breaks(legacy))
        for (struct mstream *b = blocking_list; b; b = b->next_blocking)
            push(legacy, ITEM_WAIT, NULL, NULL, b, b->enq, 0);
    if (s != legacy && (s->kind == KIND_BLOCKING || s->kind == KIND_PER_THREAD) && !breaks(legacy))
        push(s, ITEM_WAIT, NULL, NULL, legacy, legacy->enq, 0);
    pos = push(s, type, fn, arg, on, target, owned);
    pthread_mutex_unlock(&registry);
    return pos;
}
void *builtin_stream(int which)
{
    return which == SC_LEGACY_STREAM ? (void *)1 : which == SC_PER_THREAD_STREAM ? (void *)2 : NULL;
}
/* One priority: the range is [0, 0]; the quirk two_priorities gives [0, -1], each stream keeping the priority
 * it was created with (clamped to the range, as cuStreamCreateWithPriority clamps it).  Priorities change
 * nothing the mock runs. */
int stream_create(void **s, int nonblocking, int prio_set, int prio)
{
    *s = new_stream(nonblocking ? KIND_NONBLOCKING : KIND_BLOCKING);
    if (prio_set && quirks(two_priorities))
        ((struct mstream *)*s)->prio = prio < -1 ? -1 : prio > 0 ? 0 : prio;
    return 0;
}
int priority_range(int *least, int *greatest)
{
    *least = 0;
    *greatest = quirks(two_priorities) ? -1 : 0;
    return context_error(); /* as every call in a faulted context */
}
int stream_get_flags(void *s, int *nonblocking)
{
    *nonblocking = resolve(s)->kind == KIND_NONBLOCKING;
    return 0;
}
int stream_get_priority(void *s, int *prio)
{
    *prio = resolve(s)->prio;
    return 0;
}
int stream_create_invalid(void) { return refuse(1); /* invalid value */ }
int stream_destroy(void *s)
{
    (void)s; /* its worker drains it; the memory is kept, as handles may linger in events */
    static void *volatile leaked; /* the latest leaked block: what the compiler must keep */
    if (breaks(leak) && (leaked = malloc(1u << 20))) /* never freed: a driver that leaks per stream */
        memset(leaked, 1, 1u << 20);
    return 0;
}
int stream_sync(void *s)
{
    struct mstream *st = resolve(s);
    while (breaks(hang))
        sc_pause_ns(1000000000u);
    if (quirks(slow_sync))
        sc_pause_ns(8000000u);
    if (breaks(sync) || (st->policy_set && breaks(sync_policy_unwaited)))
        return context_error();
    if (st->ctx && (!(st->ctx->flags & SC_CTX_BLOCKING_SYNC) || breaks(ctx_blocking_spins))) {
        uint64_t target = enq_of(st); /* spins, unless its context blocks (as ctx_sync) */
        while (__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) < target)
            ;
    } else
        wait_done(st, enq_of(st));
    release_at_sync();
    flush_managed();
    return context_error();
}
int stream_query(void *s)
{
    if (in_callback && !breaks(callback_api)) /* documented: no CUDA call from a stream callback */
        return refuse(MOCK_NOT_PERMITTED);
    if (cur_ctx && cur_ctx->destroyed && !breaks(ctx_destroyed_usable))
        return MOCK_CONTEXT_IS_DESTROYED;
    struct mstream *st = resolve(s);
    if (breaks(query_legacy_primary) && st->kind == KIND_LEGACY) /* broken: whichever context is current */
        st = legacy;
    uint64_t enq = enq_of(st);
    int err = context_error();
    if (!err && st->policy_set && breaks(sync_policy_unwaited)) /* broken: answers as if its work were done */
        return 0;
    return err ? err : done_of(st) >= enq ? 0 : not_ready();
}
/* Waits for every stream of context c (NULL: the primary, with its green contexts' streams, "If the current
 * context is the primary context, green contexts that have been created will also be synchronized", unless
 * the break green_unsynced); spins: polls, as CUDA's spin-wait does. */
void sync_streams(struct mctx *c, int spins)
{
    struct mstream *all[256];
    uint64_t target[256];
    int n = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s && n < 256; s = s->next_all)
        if (s->ctx == c || (!c && s->ctx && s->ctx->green && !breaks(green_unsynced))) {
            all[n] = s;
            target[n++] = enq_of(s);
        }
    pthread_mutex_unlock(&registry);
    for (int i = 0; i < n; i++)
        if (spins)
            while (__atomic_load_n(&all[i]->done, __ATOMIC_ACQUIRE) < target[i])
                ;
        else
            wait_done(all[i], target[i]);
}
/* cuStreamGetId: each stream's own (its address), the NULL handle the one the calling thread would use */
int stream_id(void *s, uint64_t *id)
{
    int builtin = s == NULL || s == (void *)1 || s == (void *)2;
    struct mstream *st = resolve(s);
    if (breaks(stream_id_shared) && (!builtin || st == per_thread)) /* broken: the legacy stream's id */
        st = resolve((void *)1);
    *id = breaks(stream_id_null_own) && s == NULL ? 0xdeadu : (uint64_t)(uintptr_t)st;
    return 0;
}

/* ---- a stream's introspection and attributes ---------------------------------------------------- */

/* cuStreamGetCtx: a created stream's context is the one current when it was made; a special handle's, the
 * calling thread's current one (NULL: the primary).  which: 1 the primary, 2 ctx (backend.h) */
int stream_ctx(void *s, void *ctx, int *which)
{
    int builtin = s == NULL || s == (void *)1 || s == (void *)2;
    struct mctx *c = builtin ? cur_ctx : resolve(s)->ctx;
    if (breaks(stream_ctx_current)) /* broken: the calling thread's current context, whatever the stream */
        c = cur_ctx;
    if (breaks(stream_ctx_builtin_primary) && builtin) /* broken: a special handle answers the primary */
        c = NULL;
    *which = !c ? 1 : c == ctx ? 2 : 0;
    return 0;
}
/* CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY: kept, read back (0, never set: auto) */
int sync_policy(void *s, int set, int *policy)
{
    struct mstream *st = resolve(s);
    if (set) {
        if (!breaks(sync_policy_dropped)) /* broken: accepted and dropped */
            st->policy = *policy;
        st->policy_set = 1;
        return 0;
    }
    *policy = st->policy ? st->policy : SC_SYNC_AUTO;
    return 0;
}
int copy_attributes(void *dst, void *src)
{
    if (!breaks(copy_attributes_noop)) /* broken: copies nothing */
        resolve(dst)->policy = resolve(src)->policy;
    if (breaks(copy_attributes_orders)) { /* broken: the destination's later work waits for the source's */
        struct mstream *from = resolve(src);
        enqueue(dst, ITEM_WAIT, NULL, NULL, from, enq_of(from), 0);
    }
    return 0;
}
/* cuStreamAttachMemAsync with CU_MEM_ATTACH_SINGLE: "It is illegal to attach singly to the NULL stream" */
int attach_single(void *s)
{
    /* the handle 0, the legacy stream's (CU_STREAM_LEGACY itself is accepted, as driver 580 does); compiled with
     * per-thread default streams, 0 is the per-thread stream, a specific one */
    int null_stream = s == NULL;
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    null_stream = 0;
#endif
    if (null_stream && !breaks(attach_null_accepted))
        return refuse(1); /* invalid value */
    return 0;
}
/* A wait that something outside the mock's streams may end: the caller's own code (a host function), the MPS
 * server's lock (another process's gate), another process's event. */
static int ends_from_outside(int (*blocked)(const void *))
{
    return blocked == in_callers_code || blocked == on_serial_lock || blocked == ipc_pending;
}
/* Has some stream work it can run now: an item whose worker waits for nothing, or for what has happened?
 * outside: a wait that something outside the streams may end counts as work that can run (quiescent). */
static int some_stream_can_run(int outside)
{
    int can = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s && !can; s = s->next_all) {
        pthread_mutex_lock(&s->mu);
        can = s->head && (!s->blocked || (outside && ends_from_outside(s->blocked)) || !s->blocked(s->blocked_arg));
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_unlock(&registry);
    return can;
}
/* Every stream either idle or waiting for what has not happened (a gate, a value, another stream), or the
 * time is up: a stream whose next work can run runs it first, however long a busy machine takes to
 * schedule its worker.  The hold window's end is then a handshake with the workers, not a sleep. */
int settle(uint64_t max_ns)
{
    uint64_t end = sc_now_ns() + max_ns;
    while (some_stream_can_run(0)) {
        if (sc_now_ns() >= end)
            return 0;
        sc_pause_ns(100000);
    }
    return 1;
}
/* Will the device run nothing more?  Every stream idle, or waiting for another stream, a value or a gate it
 * still finds closed (none of them the caller's code, the MPS server's lock or another process), no device
 * work on a thread of its own, and not one change while every stream was looked at (moves).  Asked once the
 * case's host threads returned and its gates were released, so that no one else will queue or open anything:
 * what is still pending then never completes. */
int quiescent(void)
{
    uint64_t before = __atomic_load_n(&moves, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&off_stream, __ATOMIC_ACQUIRE) || some_stream_can_run(1))
        return 0;
    return __atomic_load_n(&moves, __ATOMIC_ACQUIRE) == before;
}
