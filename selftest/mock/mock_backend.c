/*
 * mock_backend.c - a CUDA stand-in on host threads, for testing the runtime
 * without a GPU.
 *
 * Each stream is a queue worked by a thread of its own; "device memory" is
 * host memory.  It keeps the documented semantics the rules check (stream
 * FIFO, the legacy stream joining blocking streams, per-thread streams,
 * events and waits, host functions, synchronize and query) so that linked
 * with a generated program every case and control behaves as on a GPU.
 * STREAMCTS_MOCK_BREAK names one promise to break, so the self-tests can show
 * that the runtime reports the violation:
 *   legacy     the legacy stream does not wait for blocking streams
 *   wait       cuStreamWaitEvent waits for nothing
 *   host_func  host functions run when enqueued, not in stream order
 *   sync       stream synchronize returns at once
 *   hang       stream synchronize never returns
 *   init_hang  initialisation never returns (a stuck cuInit)
 *   ctx_full   the device has no room for another context (SC_BUSY) during
 *              each process's first 500 ms
 *   ctx_never  ... ever
 *   peer_ctx_never  ... ever, in a case's other processes only
 *   runtime_rejects  the runtime API cannot use the driver the driver API uses
 *   peek_resets  cudaPeekAtLastError resets the thread's error state, as cudaGetLastError does
 *   wait_unsigned  cuStreamWaitValue compares every condition as an unsigned, non-cyclic GEQ
 *   wait_signed    cuStreamWaitValue compares GEQ as signed integers, not cyclically
 *   ctx_sync_primary  cuCtxSynchronize waits for the primary context's streams, whichever is current
 *   batch_unordered   cuStreamBatchMemOp enqueues its write before its wait
 *   peer_dies  the first kernel launched in another process of a case (a
 *              program started by this same program) kills that process,
 *              once per run of the parent
 *   pdl        a programmatic dependent launch that synchronizes on its
 *              dependencies runs without waiting for them
 *   pdl_overlap  a programmatic dependent launch may overlap whatever comes
 *              right before it in its stream, not only a kernel
 *   capture    work issued into a stream capture also runs at once
 *   replay     a launch of a captured graph runs its nodes on a stream of
 *              their own, waiting neither for the stream's earlier work nor
 *              for each other
 *   replay_once  only the first launch of a captured graph runs its nodes
 *   ctx_destroy_keeps_current  (ctxalloc) cuCtxDestroy leaves the destroyed context current to the
 *              calling thread instead of popping it
 *   ctx_destroyed_usable  (ctxalloc) a thread a destroyed context stayed current to synchronizes and
 *              queries it without CONTEXT_IS_DESTROYED
 *   ctx_blocking_spins  (ctxalloc) cuCtxSynchronize of a CU_CTX_SCHED_BLOCKING_SYNC context spins
 *   primary_unshared  (ctxalloc) the driver API's retained primary context is not the one the
 *              runtime API's work went to: its synchronize waits for nothing
 *   trim_below_min  (ctxalloc) cuMemPoolTrimTo releases every completed free, below minBytesToKeep
 *   imported_pool_allocates  (ctxalloc) a pool exported and imported again makes new allocations
 *   reuse_unordered  (ctxalloc) an allocation from a created pool gets the memory of a block whose free
 *              is still pending, whatever orders the two
 *   release_unretained_succeeds  (ctxalloc) cuDevicePrimaryCtxRelease of a primary context no retain
 *              holds succeeds
 *   release_keeps_active  (ctxalloc) the last release of the primary context leaves it active
 * STREAMCTS_MOCK_QUIRK names a legal behaviour to adopt, which no MUST rule may
 * fail:
 *   enqueue_waits  every call that enqueues work first waits, up to 50 ms, for
 *                  its stream to drain (CUDA_LAUNCH_BLOCKING=1 in spirit: any
 *                  call may block for a while)
 *   fault_at_launch  a faulting kernel's launch waits for it and answers its
 *                  error itself, as under CUDA_LAUNCH_BLOCKING=1
 *   slow_device    each piece of work starts 20 ms after its stream lets it
 *                  (a slow device: what B needs longer than a first look)
 * A programmatic dependent launch (launch_pdl) that does not synchronize on its
 * dependencies may overlap a gate right before it in its stream (its primary,
 * which triggers its dependents at its start, as the suite's gate kernel does),
 * as PDL allows: it runs once everything before that gate has completed (after
 * any other item, once that item has); one that synchronizes runs in stream
 * order.
 * A thread waiting in event_sync sleeps on a blocking-sync event and spins
 * on any other, as CUDA's default scheduling does with cores to spare.
 * Stream capture records work into a list of nodes; a graph kept from it runs
 * them in the order they were captured (a legal, if serial, graph: capture
 * order respects every dependency), behind the launch stream's earlier work
 * and the graph's previous launch.  Streams join a capture by waiting on an
 * event recorded in it; a stream callback is refused there.  Not modelled:
 * capture modes, invalidation, the legacy stream's implicit dependency,
 * unjoined forks.
 * A faulting kernel makes the context's error sticky: every synchronize and
 * query answers it from then on.  A call that refuses its arguments sets the
 * calling thread's last error (the runtime API's error state).
 * It provides both backends ("driver" and "runtime" behave the same).
 */
#define _GNU_SOURCE
#include "backend.h"
#include "clock.h"
#include "slot.h"
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
const char sc_compile_mode[] = "per-thread";
#else
const char sc_compile_mode[] = "legacy";
#endif
const char sc_backend_kind[] = "mock";

enum { KIND_BLOCKING, KIND_NONBLOCKING, KIND_LEGACY, KIND_PER_THREAD };
enum { ITEM_FN, ITEM_WAIT };

struct mstream;
struct mctx;

struct item {
    int type;
    void (*fn)(void *);
    void *arg;
    struct mstream *on; /* ITEM_WAIT: until on->done >= target */
    uint64_t target;
    int owned;          /* arg is the item's: freed after it ran (or with the graph that holds it) */
    struct item *next;
};

/* A stream capture under way, or the graph kept from one: its nodes in capture order. */
struct mgraph {
    struct item *head, *tail;
    struct mstream *origin;     /* the stream the capture began on */
    int launched;               /* launches so far                 */
    struct mstream *last;       /* the stream of its last launch, ... */
    uint64_t last_pos;          /* ... and that launch's last item    */
};

struct mstream {
    int kind;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct item *head, *tail;
    uint64_t enq, done; /* items enqueued, items completed */
    uint64_t last_trigger; /* the last gate's position: it triggers its dependents (a programmatic launch may overlap it) */
    struct mstream *next_blocking; /* blocking and per-thread streams: the legacy stream joins them */
    struct mstream *next_all;      /* every stream: context synchronize waits for them */
    struct mctx *ctx;              /* the created context it belongs to; NULL: the primary */
    struct mgraph *capture;        /* the capture it records into, or NULL */
};

/* A created context: its own legacy stream.  A thread's current context is a stack of one: a
 * pop after a push or set of a created context makes the primary current again. */
struct mctx {
    struct mstream *legacy;
    unsigned flags;  /* ctxalloc: SC_CTX_BLOCKING_SYNC: a thread synchronizing it sleeps, else it spins */
    int destroyed;   /* ctxalloc: cuCtxDestroy ran; a thread it stayed current to gets CONTEXT_IS_DESTROYED */
};
static __thread struct mctx *cur_ctx;

struct mevent {
    struct mctx *ctx;       /* the context current when it was created */
    struct mgraph *capture; /* recorded into this capture: a wait on it joins the capture */
    struct mstream *stream; /* NULL: never recorded */
    uint64_t target;
    uint64_t ns;            /* when the last record completed */
    unsigned flags;         /* SC_EV_*: a blocking-sync event's waiter sleeps, any other spins */
};

static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER; /* legacy joins: whole enqueue is atomic */
static struct mstream *blocking_list, *all_list, *legacy;
static __thread struct mstream *per_thread;
static const char *broken, *quirk;

static int sticky; /* the context's error, once a kernel faulted */
static __thread int last_err; /* the calling thread's last error (the runtime API's error state) */
#define MOCK_INVALID_HANDLE 4
#define MOCK_ILLEGAL_ADDRESS 5
#define MOCK_CONTEXT_IS_DESTROYED 709 /* ctxalloc */
#define MOCK_INVALID_CONTEXT 201      /* ctxalloc */

static int breaks(const char *what) { return broken && !strcmp(broken, what); }
static int quirks(const char *what) { return quirk && !strcmp(quirk, what); }
/* A call refuses its arguments: the code is also the calling thread's last error. */
static int refuse(int rc) { return last_err = rc; }
static int started_by_itself(void);

static uint64_t done_of(struct mstream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t d = s->done;
    pthread_mutex_unlock(&s->mu);
    return d;
}

static uint64_t enq_of(struct mstream *s)
{
    pthread_mutex_lock(&s->mu);
    uint64_t e = s->enq;
    pthread_mutex_unlock(&s->mu);
    return e;
}

static void wait_done(struct mstream *s, uint64_t target)
{
    pthread_mutex_lock(&s->mu);
    while (s->done < target)
        pthread_cond_wait(&s->cv, &s->mu);
    pthread_mutex_unlock(&s->mu);
}

static int context_error(void);
static void release_at_sync(void); /* ctxalloc: the pools' release threshold */
static void run_callback(void *arg);
static int early_done(const struct item *it);
static void run_pdl_join(void *arg);

static void *worker(void *arg)
{
    struct mstream *s = arg;
    for (;;) {
        pthread_mutex_lock(&s->mu);
        while (!s->head)
            pthread_cond_wait(&s->cv, &s->mu);
        struct item *it = s->head;
        pthread_mutex_unlock(&s->mu);
        if (quirks("slow_device"))
            sc_pause_ns(20000000u);
        if (it->type == ITEM_WAIT)
            wait_done(it->on, it->target);
        else if (it->fn && (!context_error() || it->fn == run_callback)) /* after a fault only callbacks run */
            it->fn(it->arg);
        if (it->owned)
            free(it->arg);
        pthread_mutex_lock(&s->mu);
        s->head = it->next;
        s->done++;
        free(it);
        while (s->head && early_done(s->head)) { /* it completed with the work before it */
            it = s->head;
            s->head = it->next;
            s->done++;
            run_pdl_join(it->arg);
            free(it);
        }
        if (!s->head)
            s->tail = NULL;
        pthread_cond_broadcast(&s->cv);
        pthread_mutex_unlock(&s->mu);
    }
    return NULL;
}

static struct mstream *new_stream(int kind)
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
    return s;
}

/* Appends an item; the caller holds the registry lock. Returns the item's position. */
static uint64_t push(struct mstream *s, int type, void (*fn)(void *), void *arg, struct mstream *on, uint64_t target,
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
    pthread_cond_broadcast(&s->cv);
    pthread_mutex_unlock(&s->mu);
    return pos;
}

static struct mstream *resolve(void *h)
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
static uint64_t enqueue(void *h, int type, void (*fn)(void *), void *arg, struct mstream *on, uint64_t target,
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
        pthread_mutex_unlock(&registry);
        if (!breaks("capture") || type != ITEM_FN)
            return 0;
        owned = 0; /* broken: it runs now too; the node keeps the argument */
    } else
        pthread_mutex_unlock(&registry);
    if (quirks("enqueue_waits")) { /* legal: the call blocks a while, for the stream to drain */
        uint64_t until = sc_now_ns() + 50000000u, drained = enq_of(s);
        while (done_of(s) < drained && sc_now_ns() < until)
            sc_pause_ns(100000);
    }
    pthread_mutex_lock(&registry);
    if (s == legacy && !breaks("legacy"))
        for (struct mstream *b = blocking_list; b; b = b->next_blocking)
            push(legacy, ITEM_WAIT, NULL, NULL, b, b->enq, 0);
    if (s != legacy && (s->kind == KIND_BLOCKING || s->kind == KIND_PER_THREAD) && !breaks("legacy"))
        push(s, ITEM_WAIT, NULL, NULL, legacy, legacy->enq, 0);
    pos = push(s, type, fn, arg, on, target, owned);
    pthread_mutex_unlock(&registry);
    return pos;
}

/* ---- the backend --------------------------------------------------------- */

static int init(char *why, size_t whylen)
{
    static uint64_t first;
    pthread_mutex_lock(&registry);
    if (!legacy) {
        broken = getenv("STREAMCTS_MOCK_BREAK");
        quirk = getenv("STREAMCTS_MOCK_QUIRK");
        pthread_mutex_unlock(&registry);
        while (breaks("init_hang"))
            sc_pause_ns(1000000000u);
        if (!first)
            first = sc_now_ns();
        if (breaks("ctx_never") || (breaks("peer_ctx_never") && started_by_itself()) ||
            (breaks("ctx_full") && sc_now_ns() - first < 500000000u)) {
            snprintf(why, whylen, "cannot open device 0: CUDA_ERROR_OUT_OF_MEMORY (the mock has no room for another context)");
            return SC_BUSY;
        }
        legacy = new_stream(KIND_LEGACY);
        return SC_READY;
    }
    pthread_mutex_unlock(&registry);
    return SC_READY;
}
static int thread_attach(void) { return 0; }
static int device_count(int *n) { *n = 1; return 0; }
static int use_device(int dev) { return dev == 0 ? 0 : SC_UNSUPPORTED; }
static void *builtin_stream(int which)
{
    return which == SC_LEGACY_STREAM ? (void *)1 : which == SC_PER_THREAD_STREAM ? (void *)2 : NULL;
}
static int stream_create(void **s, int nonblocking, int prio_set, int prio)
{
    (void)prio_set, (void)prio; /* one priority: the range is [0, 0] */
    *s = new_stream(nonblocking ? KIND_NONBLOCKING : KIND_BLOCKING);
    return 0;
}
static int priority_range(int *least, int *greatest)
{
    *least = *greatest = 0;
    return context_error(); /* as every call in a faulted context */
}
static int stream_get_flags(void *s, int *nonblocking)
{
    *nonblocking = resolve(s)->kind == KIND_NONBLOCKING;
    return 0;
}
static int stream_get_priority(void *s, int *prio)
{
    (void)s;
    *prio = 0;
    return 0;
}
static int stream_create_invalid(void) { return refuse(1); /* invalid value */ }
static int stream_destroy(void *s)
{
    (void)s; /* its worker drains it; the memory is kept, as handles may linger in events */
    return 0;
}
static int event_create(void **e, unsigned flags)
{
    struct mevent *ev = calloc(1, sizeof *ev);
    ev->flags = flags;
    ev->ctx = cur_ctx;
    *e = ev;
    return 0;
}
static int event_destroy(void *e)
{
    (void)e; /* waits keep their own snapshot; the event memory is kept */
    return 0;
}
static int dev_alloc(void **p, size_t n) { return (*p = calloc(1, n)) ? 0 : 2; }
static int dev_free(void *p) { free(p); return 0; }
static int host_alloc(void **p, size_t n) { return (*p = calloc(1, n)) ? 0 : 2; }
static int host_free(void *p) { free(p); return 0; }
static int host_dev_ptr(void **d, void *h) { *d = h; return 0; }
static int managed_alloc(void **p, size_t n) { return (*p = calloc(1, n)) ? 0 : 2; }

struct gate_args {
    uint32_t *flag;
    uint64_t max_ns;
    struct sc_slot *slot;
    uint32_t token;
};
static void run_gate(void *a)
{
    struct gate_args *g = a;
    uint64_t start = sc_now_ns();
    uint32_t status = SC_GATE_RELEASED;
    g->slot->start_ns = start;
    while (!__atomic_load_n(g->flag, __ATOMIC_ACQUIRE)) {
        if (sc_now_ns() - start > g->max_ns) {
            status = SC_GATE_EXPIRED;
            break;
        }
        sc_pause_ns(10000);
    }
    g->slot->end_ns = sc_now_ns();
    g->slot->status = status;
    g->slot->runs++;
    __atomic_store_n(&g->slot->token, g->token, __ATOMIC_RELEASE);
}
static void run_mark(void *a)
{
    struct gate_args *g = a;
    g->slot->start_ns = g->slot->end_ns = sc_now_ns();
    g->slot->runs++;
    __atomic_store_n(&g->slot->token, g->token, __ATOMIC_RELEASE);
}
/* A gate enqueued at pos: it triggers its dependents, so a programmatic launch right after it may overlap it. */
static void trigger_at(void *h, uint64_t pos)
{
    struct mstream *s = resolve(h);
    pthread_mutex_lock(&s->mu);
    s->last_trigger = pos;
    pthread_mutex_unlock(&s->mu);
}

/* A kernel of the current context's module, launched into a stream of another context, is refused. */
static int foreign(void *s) { return resolve(s)->ctx != cur_ctx; }
static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    if (foreign(s))
        return refuse(MOCK_INVALID_HANDLE);
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ flag, max_ns, slot, token };
    trigger_at(s, enqueue(s, ITEM_FN, run_gate, g, NULL, 0, 1));
    return 0;
}
/* Is this a process its parent program started (one of a case's others)? */
static int started_by_itself(void)
{
    char self[4096], parent[4096], path[64];
    ssize_t a = readlink("/proc/self/exe", self, sizeof self - 1);
    snprintf(path, sizeof path, "/proc/%d/exe", (int)getppid());
    ssize_t b = readlink(path, parent, sizeof parent - 1);
    return a > 0 && a == b && !memcmp(self, parent, (size_t)a);
}
/* peer_dies: one of a case's other processes, the first time for this parent */
static int dies_here(void)
{
    char mark[96];
    if (!started_by_itself())
        return 0;
    snprintf(mark, sizeof mark, "/tmp/streamcts-mock-peer-died-%d", (int)getppid());
    int fd = open(mark, O_CREAT | O_EXCL | O_WRONLY, 0600); /* once per parent */
    if (fd < 0)
        return 0;
    close(fd);
    return 1;
}
static int launch_mark(void *s, void *slot, uint32_t token)
{
    if (breaks("peer_dies") && dies_here())
        _exit(7);
    if (foreign(s))
        return refuse(MOCK_INVALID_HANDLE);
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ NULL, 0, slot, token };
    enqueue(s, ITEM_FN, run_mark, g, NULL, 0, 1);
    return 0;
}

/* A programmatic dependent launch that runs early: on a thread of its own once the items before its
 * primary are done; its place in the stream (run_pdl_join) completes when it did. */
struct pdl_args {
    struct gate_args g;
    struct mstream *on;
    uint64_t before; /* items of the stream it waits for */
    int ran;         /* it has written its token (its last touch of this struct) */
};
static void *run_pdl_early(void *a)
{
    struct pdl_args *d = a;
    wait_done(d->on, d->before);
    d->g.slot->start_ns = d->g.slot->end_ns = sc_now_ns();
    __atomic_store_n(&d->g.slot->token, d->g.token, __ATOMIC_RELEASE);
    __atomic_store_n(&d->ran, 1, __ATOMIC_RELEASE);
    return NULL;
}
/* A programmatic launch that ran early: its place in the stream completes with the item before it, as a
 * GPU's stream is idle once its primary retired (no lag the stream's queries could see). */
static int early_done(const struct item *it)
{
    return it->type == ITEM_FN && it->fn == run_pdl_join && __atomic_load_n(&((struct pdl_args *)it->arg)->ran, __ATOMIC_ACQUIRE);
}
static void run_pdl_join(void *a)
{
    struct pdl_args *d = a;
    while (!__atomic_load_n(&d->ran, __ATOMIC_ACQUIRE))
        sc_pause_ns(10000);
    free(d);
}
static int launch_pdl(void *s, void *slot, uint32_t token, int sync)
{
    if (sync && !breaks("pdl"))
        return launch_mark(s, slot, token);
    struct pdl_args *d = malloc(sizeof *d);
    pthread_t thread;
    *d = (struct pdl_args){ { NULL, 0, slot, token }, resolve(s), 0, 0 };
    /* its place first: the waits a legacy or blocking stream puts before it are not gates to overlap */
    uint64_t pos = enqueue(s, ITEM_FN, run_pdl_join, d, NULL, 0, 0); /* run_pdl_join frees d */
    pthread_mutex_lock(&d->on->mu);
    d->before = pos - 1 - (pos > 1 && (d->on->last_trigger == pos - 1 || breaks("pdl_overlap"))); /* all but its primary */
    pthread_mutex_unlock(&d->on->mu);
    pthread_create(&thread, NULL, run_pdl_early, d);
    pthread_detach(thread);
    return 0;
}

static void run_fault(void *unused)
{
    (void)unused;
    __atomic_store_n(&sticky, MOCK_ILLEGAL_ADDRESS, __ATOMIC_RELEASE);
}
static int context_error(void) { return __atomic_load_n(&sticky, __ATOMIC_ACQUIRE); }
static int launch_fault(void *s)
{
    uint64_t pos = enqueue(s, ITEM_FN, run_fault, NULL, NULL, 0, 0);
    if (!quirks("fault_at_launch"))
        return 0;
    wait_done(resolve(s), pos);
    return context_error();
}

struct copy_args {
    void *dst;
    const void *src;
    size_t n;
    int value; /* memset: the byte; -1: a copy */
};
static void run_copy(void *a)
{
    struct copy_args *c = a;
    if (c->value >= 0)
        memset(c->dst, c->value, c->n);
    else
        memcpy(c->dst, c->src, c->n);
}
static uint64_t copy_on(void *s, void *dst, const void *src, size_t n, int value)
{
    struct copy_args *c = malloc(sizeof *c);
    *c = (struct copy_args){ dst, src, n, value };
    return enqueue(s, ITEM_FN, run_copy, c, NULL, 0, 1);
}
static int memset_async(void *s, void *d, unsigned char v, size_t n)
{
    copy_on(s, d, NULL, n, v);
    return 0;
}
static int memset_sync(void *d, unsigned char v, size_t n)
{
    wait_done(resolve(NULL), copy_on(NULL, d, NULL, n, v));
    return 0;
}
static int memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind)
{
    struct mstream *st = resolve(s);
    if (kind == SC_H2D_PAGEABLE) /* NVIDIA: the stream drains before a pageable copy is staged */
        wait_done(st, enq_of(st));
    uint64_t pos = copy_on(s, dst, src, n, -1);
    if (kind == SC_D2H_PAGEABLE) /* documented: returns once the copy completed */
        wait_done(st, pos);
    return 0;
}
static int memcpy_sync(void *dst, const void *src, size_t n, unsigned kind)
{
    uint64_t pos = copy_on(NULL, dst, src, n, -1);
    if (kind != SC_D2D) /* device to device: no host-side synchronization */
        wait_done(resolve(NULL), pos);
    return 0;
}
static int host_func(void *s, void (*fn)(void *), void *arg)
{
    if (quirks("fault_at_launch") && context_error())
        return context_error(); /* the launch answers the context's error */
    if (breaks("host_func")) {
        fn(arg);
        return 0;
    }
    enqueue(s, ITEM_FN, fn, arg, NULL, 0, 0);
    return 0;
}
static void run_callback(void *arg) /* with the context's error, if any */
{
    const struct sc_callback *cb = arg;
    cb->body(cb->arg, context_error());
}
static int callback(void *s, const struct sc_callback *cb)
{
    if (resolve(s)->capture) /* not supported in stream capture, unlike host functions */
        return refuse(1);
    return host_func(s, run_callback, (void *)cb);
}
static void run_record(void *e) { ((struct mevent *)e)->ns = sc_now_ns(); }
static int event_record(void *e, void *s)
{
    struct mevent *ev = e;
    if (resolve(s)->ctx != ev->ctx) /* documented: hEvent and hStream must be from the same context */
        return refuse(MOCK_INVALID_HANDLE);
    struct mgraph *cap = resolve(s)->capture;
    uint64_t pos = enqueue(s, ITEM_FN, run_record, ev, NULL, 0, 0);
    ev->capture = cap;
    ev->stream = cap ? NULL : resolve(s); /* a captured record marks a point of the capture only */
    ev->target = pos;
    return 0;
}
static int stream_wait_event(void *s, void *e, unsigned flags)
{
    struct mevent *ev = e;
    if (flags)
        return refuse(1); /* invalid value */
    pthread_mutex_lock(&registry);
    if (ev->capture && ev->capture->origin && !resolve(s)->capture)
        resolve(s)->capture = ev->capture; /* it joins the capture */
    pthread_mutex_unlock(&registry);
    if (ev->stream && !breaks("wait"))
        enqueue(s, ITEM_WAIT, NULL, NULL, ev->stream, ev->target, 0);
    return 0;
}
static int stream_sync(void *s)
{
    struct mstream *st = resolve(s);
    while (breaks("hang"))
        sc_pause_ns(1000000000u);
    if (breaks("sync"))
        return context_error();
    if (st->ctx && (!(st->ctx->flags & SC_CTX_BLOCKING_SYNC) || breaks("ctx_blocking_spins"))) {
        uint64_t target = enq_of(st); /* ctxalloc: spins, unless its context blocks (as ctx_sync) */
        while (__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) < target)
            ;
    } else
        wait_done(st, enq_of(st));
    release_at_sync();
    return context_error();
}
static int stream_query(void *s)
{
    if (cur_ctx && cur_ctx->destroyed && !breaks("ctx_destroyed_usable")) /* ctxalloc */
        return MOCK_CONTEXT_IS_DESTROYED;
    struct mstream *st = resolve(s);
    uint64_t enq = enq_of(st);
    int err = context_error();
    return err ? err : done_of(st) >= enq ? 0 : SC_NOT_READY;
}
static int event_sync(void *e)
{
    struct mevent *ev = e;
    if (ev->stream && (ev->flags & SC_EV_BLOCKING_SYNC))
        wait_done(ev->stream, ev->target);
    else if (ev->stream) /* spins, as a CUDA thread waits by default on a machine with cores to spare */
        while (__atomic_load_n(&ev->stream->done, __ATOMIC_ACQUIRE) < ev->target)
            ;
    release_at_sync();
    return context_error();
}
static int event_query(void *e)
{
    struct mevent *ev = e;
    int err = context_error();
    return err ? err : !ev->stream || done_of(ev->stream) >= ev->target ? 0 : SC_NOT_READY;
}
/* Waits for every stream of context c (NULL: the primary); spins: polls, as CUDA's spin-wait does. */
static void sync_streams(struct mctx *c, int spins)
{
    struct mstream *all[256];
    uint64_t target[256];
    int n = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s && n < 256; s = s->next_all)
        if (s->ctx == c) {
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
/* ctxalloc: a created context's synchronizing thread sleeps when it was made with CU_CTX_SCHED_BLOCKING_SYNC
 * and spins otherwise (the break ctx_blocking_spins: always); the primary's sleeps, as before.  A context
 * destroyed while current to this thread answers CONTEXT_IS_DESTROYED (the break ctx_destroyed_usable:
 * it synchronizes as if it were alive). */
static int ctx_sync(void)
{
    if (cur_ctx && cur_ctx->destroyed && !breaks("ctx_destroyed_usable"))
        return MOCK_CONTEXT_IS_DESTROYED;
    sync_streams(breaks("ctx_sync_primary") ? NULL : cur_ctx,
                 cur_ctx && (!(cur_ctx->flags & SC_CTX_BLOCKING_SYNC) || breaks("ctx_blocking_spins")));
    release_at_sync();
    return context_error();
}
/* ctxalloc: the runtime API's work is the primary context's (the break primary_unshared: the driver API
 * sees another context, with nothing to wait for). */
static int primary_ctx_sync(void)
{
    if (!breaks("primary_unshared"))
        sync_streams(NULL, 0);
    return context_error();
}
static int event_elapsed(float *ms, void *start, void *end)
{
    struct mevent *a = start, *b = end;
    if (!a->stream || !b->stream)
        return refuse(MOCK_INVALID_HANDLE); /* documented: either event never recorded */
    if (event_query(a) || event_query(b))
        return SC_NOT_READY;
    *ms = (float)(((double)b->ns - (double)a->ns) / 1e6); /* negative when the end completed first */
    return 0;
}

/*
 * Stream memory operations on host memory: a wait is an item that polls its
 * word until the condition holds (for at most 20 s, the GPU gate's deadline
 * in spirit), a write an item that stores the value.  The breaks wait_unsigned
 * (every condition read as an unsigned, non-cyclic GEQ) and wait_signed (GEQ
 * read as a signed, non-cyclic comparison) are the wrong comparisons the
 * memop rules' word presets catch.
 */
struct memop_args {
    void *addr;
    uint64_t value;
    int cond, bits;
};
static uint64_t word_read(const struct memop_args *m)
{
    return m->bits == 64 ? __atomic_load_n((uint64_t *)m->addr, __ATOMIC_SEQ_CST)
                         : __atomic_load_n((uint32_t *)m->addr, __ATOMIC_SEQ_CST);
}
static int condition_holds(const struct memop_args *m)
{
    uint64_t w = word_read(m), v = m->value, mask = m->bits == 64 ? ~0ull : 0xffffffffu;
    if (breaks("wait_unsigned"))
        return w >= v;
    if (m->cond == SC_WAIT_GEQ && breaks("wait_signed"))
        return m->bits == 64 ? (int64_t)w >= (int64_t)v : (int32_t)w >= (int32_t)v;
    switch (m->cond) {
    case SC_WAIT_EQ: return w == v;
    case SC_WAIT_AND: return (w & v) != 0;
    case SC_WAIT_NOR: return (~(w | v) & mask) != 0;
    default: return m->bits == 64 ? (int64_t)(w - v) >= 0 : (int32_t)(uint32_t)(w - v) >= 0;
    }
}
static void run_wait_value(void *a)
{
    struct memop_args *m = a;
    for (uint64_t until = sc_now_ns() + 20000000000u; !condition_holds(m) && sc_now_ns() < until;)
        sc_pause_ns(50000);
    free(m);
}
static void run_write_value(void *a)
{
    struct memop_args *m = a;
    if (m->bits == 64)
        __atomic_store_n((uint64_t *)m->addr, m->value, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n((uint32_t *)m->addr, (uint32_t)m->value, __ATOMIC_SEQ_CST);
    free(m);
}
static int memop(void *s, void (*fn)(void *), void *addr, uint64_t value, int cond, int bits)
{
    struct memop_args *m = malloc(sizeof *m);
    *m = (struct memop_args){ addr, value, cond, bits };
    enqueue(s, ITEM_FN, fn, m, NULL, 0, 0); /* fn frees m */
    return 0;
}
/* Not modelled: pools, graphs built by hand. */
static int wait_value(void *s, void *a, uint64_t v, int cond, int bits)
{
    return memop(s, run_wait_value, a, v, cond, bits);
}
static int write_value(void *s, void *a, uint64_t v, unsigned flags, int bits)
{
    if (flags & SC_WRITE_NO_BARRIER) /* as the v2 API NVIDIA's driver exports: the flag is refused */
        return refuse(1); /* invalid value */
    return memop(s, run_write_value, a, v, 0, bits);
}
static int batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits)
{
    if (breaks("batch_unordered")) /* the write first */
        memop(s, run_write_value, write_dev, write_value, 0, bits);
    memop(s, run_wait_value, wait_dev, wait_value, SC_WAIT_GEQ, bits);
    return breaks("batch_unordered") ? 0 : memop(s, run_write_value, write_dev, write_value, 0, bits);
}
/*
 * ctxalloc: created memory pools (not the device's default pool, whose rules do not run on the mock).
 * Each allocation is memory of its own, reserved by its pool until a trim releases it once its free
 * has run in stream order: the mock never reuses memory (reuse is allowed, never required).  A pool
 * whose release threshold is 0 (no keep_memory) releases its completed frees at every stream, event or
 * context synchronize; keep_memory (UINT64_MAX) keeps them.  The break reuse_unordered hands a new
 * allocation the memory of a block whose free was enqueued, before that free ran and whatever orders
 * the two: the corruption the reuse rules must see.
 */
#define MOCK_BLOCK_HEADER 64 /* the block's address, in front of the memory it hands out */
struct mblock {
    void *mem;          /* the header, then the memory */
    size_t n;
    int freed;              /* its free ran in stream order */
    int free_enqueued;      /* free_async was called (the break reuse_unordered reuses it from then on) */
    unsigned handed;        /* times handed out: a free enqueued for an earlier owner does not free it */
    struct mpool *pool;
    struct mblock *next;
};
struct mpool {
    unsigned flags;         /* SC_POOL_* */
    uint64_t reserved;      /* bytes of its blocks */
    struct mblock *blocks;
    struct mpool *next;     /* every pool alive */
};
static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mpool *pools;
static void release_blocks(struct mpool *pl, uint64_t keep);
static int default_pool(void **pool) { (void)pool; return SC_UNSUPPORTED; }
static int pool_create(void **pool, unsigned flags)
{
    struct mpool *pl = calloc(1, sizeof *pl);
    pl->flags = flags;
    pthread_mutex_lock(&pools_mu);
    pl->next = pools;
    pools = pl;
    pthread_mutex_unlock(&pools_mu);
    *pool = pl;
    return 0;
}
static int pool_destroy(void *pool)
{
    struct mpool *pl = pool;
    pthread_mutex_lock(&pools_mu);
    for (struct mpool **at = &pools; *at; at = &(*at)->next)
        if (*at == pl) {
            *at = pl->next;
            break;
        }
    pthread_mutex_unlock(&pools_mu);
    for (struct mblock *b = pl->blocks, *next; b; b = next) {
        next = b->next;
        free(b->mem);
        free(b);
    }
    free(pl);
    return 0;
}
static int pool_reserved(void *pool, uint64_t *bytes)
{
    pthread_mutex_lock(&pools_mu);
    *bytes = ((struct mpool *)pool)->reserved;
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* Releases blocks whose free ran while the pool keeps at least keep bytes ("guaranteed to have at least
 * minBytesToKeep bytes reserved after the operation"); the break trim_below_min releases them all. */
static int pool_trim_to(void *pool, uint64_t keep)
{
    pthread_mutex_lock(&pools_mu);
    release_blocks(pool, keep);
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* A synchronize: pools with the release threshold 0 release their completed frees. */
static void release_at_sync(void)
{
    pthread_mutex_lock(&pools_mu);
    for (struct mpool *pl = pools; pl; pl = pl->next)
        if (!(pl->flags & SC_POOL_KEEP_MEMORY))
            release_blocks(pl, 0);
    pthread_mutex_unlock(&pools_mu);
}
/* The caller holds pools_mu. */
static void release_blocks(struct mpool *pl, uint64_t keep)
{
    for (struct mblock **at = &pl->blocks, *b; (b = *at);)
        if (b->freed && (breaks("trim_below_min") || pl->reserved - b->n >= keep)) {
            *at = b->next;
            pl->reserved -= b->n;
            free(b->mem);
            free(b);
        } else
            at = &b->next;
}
static int pool_trim(void *pool) { return pool_trim_to(pool, 0); }
/* ctxalloc: an imported pool makes no allocation (invalid value); the break imported_pool_allocates: it does
 * (and frees it at once) */
static int alloc_imported(void *pool, size_t n, void *s)
{
    (void)n, (void)s;
    if (!pool)
        return SC_UNSUPPORTED;
    return breaks("imported_pool_allocates") ? 0 : refuse(1);
}
static int alloc_async(void **p, size_t n, void *pool, void *s)
{
    struct mpool *pl = pool;
    struct mblock *b;
    (void)s; /* fresh memory: usable at once, so in any stream order */
    if (!pl)
        return SC_UNSUPPORTED;
    if (breaks("reuse_unordered")) { /* a block whose free is pending, in no stream order */
        pthread_mutex_lock(&pools_mu);
        for (b = pl->blocks; b && !(b->free_enqueued && !b->freed); b = b->next)
            ;
        if (b)
            b->free_enqueued = 0, b->handed++; /* handed out again */
        pthread_mutex_unlock(&pools_mu);
        if (b) {
            *p = (char *)b->mem + MOCK_BLOCK_HEADER;
            return 0;
        }
    }
    b = calloc(1, sizeof *b);
    b->mem = calloc(1, n + MOCK_BLOCK_HEADER), b->n = n, b->pool = pl;
    *(struct mblock **)b->mem = b; /* free_async finds the block in front of the memory */
    pthread_mutex_lock(&pools_mu);
    b->next = pl->blocks;
    pl->blocks = b;
    pl->reserved += n;
    pthread_mutex_unlock(&pools_mu);
    *p = (char *)b->mem + MOCK_BLOCK_HEADER;
    return 0;
}
struct mfree {
    struct mblock *block;
    unsigned handed; /* the owner it frees */
};
static void run_free(void *arg)
{
    struct mfree *f = arg;
    pthread_mutex_lock(&pools_mu);
    if (f->block->handed == f->handed)
        f->block->freed = 1;
    pthread_mutex_unlock(&pools_mu);
}
static int free_async(void *p, void *s)
{
    struct mfree *f;
    if (!p)
        return refuse(1); /* invalid value */
    f = malloc(sizeof *f);
    f->block = *(struct mblock **)((char *)p - MOCK_BLOCK_HEADER);
    pthread_mutex_lock(&pools_mu);
    f->block->free_enqueued = 1;
    f->handed = f->block->handed;
    pthread_mutex_unlock(&pools_mu);
    enqueue(s, ITEM_FN, run_free, f, NULL, 0, 1); /* the item owns f */
    return 0;
}
static int graph_create(void **g, int gate) { (void)g, (void)gate; return SC_UNSUPPORTED; }
static int graph_launch(void *g, void *s, void **args) { (void)g, (void)s, (void)args; return SC_UNSUPPORTED; }

/* ---- stream capture and the graphs kept from it ---------------------------- */

static int graph_destroy(void *g)
{
    struct mgraph *gr = g;
    for (struct item *it = gr->head, *next; it; it = next) {
        next = it->next;
        if (it->owned)
            free(it->arg);
        free(it);
    }
    free(gr);
    return 0;
}
static int capture_begin(void *s, int mode)
{
    struct mstream *st = resolve(s);
    (void)mode; /* modes are not modelled */
    pthread_mutex_lock(&registry);
    int rc = st == legacy || st->capture ? refuse(1) : 0;
    if (rc == 0) {
        st->capture = calloc(1, sizeof *st->capture);
        st->capture->origin = st;
    }
    pthread_mutex_unlock(&registry);
    return rc;
}
/* Ends the capture begun on s: every stream that joined it leaves it.  NULL: s began none. */
static struct mgraph *end_capture(void *s)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    struct mgraph *cap = st->capture && st->capture->origin == st ? st->capture : NULL;
    for (struct mstream *o = all_list; cap && o; o = o->next_all)
        if (o->capture == cap)
            o->capture = NULL;
    if (cap)
        cap->origin = NULL; /* a record of it is no longer a point to join */
    pthread_mutex_unlock(&registry);
    return cap;
}
static int capture_end(void *s)
{
    struct mgraph *cap = end_capture(s);
    if (!cap)
        return refuse(1);
    return graph_destroy(cap);
}
static int capture_keep(void *s, void **graph)
{
    struct mgraph *cap = end_capture(s);
    if (!cap)
        return refuse(1);
    *graph = cap;
    return 0;
}
static int graph_replay(void *g, void *s)
{
    struct mgraph *gr = g;
    struct mstream *st = breaks("replay") ? NULL : resolve(s);
    uint64_t pos = 0;
    if (breaks("replay_once") && gr->launched++)
        return 0;
    if (st && gr->last) /* behind its previous launch */
        pos = enqueue(st, ITEM_WAIT, NULL, NULL, gr->last, gr->last_pos, 0);
    for (struct item *it = gr->head; it; it = it->next)
        pos = enqueue(st ? (void *)st : new_stream(KIND_NONBLOCKING), it->type, it->fn, it->arg, it->on, it->target, 0);
    if (st && pos)
        gr->last = st, gr->last_pos = pos;
    return 0;
}
static int capture_status(void *s, int *status)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    *status = st->capture ? SC_CAPTURE_ACTIVE : SC_CAPTURE_NONE;
    pthread_mutex_unlock(&registry);
    return 0;
}
static int thread_capture_relaxed(void) { return 0; }
static int stream_id(void *s, uint64_t *id) { *id = (uint64_t)(uintptr_t)resolve(s); return 0; }
/* Of the primary context's actions only a pop after a created context was made current is modelled. */
static int ctx_action(int action)
{
    if (action != SC_CTX_POP || !cur_ctx)
        return SC_UNSUPPORTED;
    cur_ctx = NULL;
    return 0;
}
static int ctx_create_flags(void **ctx, unsigned flags)
{
    struct mctx *c = calloc(1, sizeof *c), *was = cur_ctx;
    c->flags = flags;
    cur_ctx = c; /* its legacy stream belongs to it */
    c->legacy = new_stream(KIND_LEGACY);
    cur_ctx = was;
    *ctx = c;
    return 0;
}
static int ctx_create(void **ctx) { return ctx_create_flags(ctx, 0); }
/* ctxalloc: the primary context of a fresh process (the op's own, as the driver backend starts one): no
 * reference at first; the last release resets it (inactive until retained again).  The break
 * release_unretained_succeeds: a release with no reference succeeds; release_keeps_active: the last release
 * leaves it active. */
static int primary_release(int action, int *reset)
{
    int refs = action == SC_PRIMARY_BALANCED ? 2 : action == SC_PRIMARY_RELEASE_ALL ? 1 : 0; /* its retains */
    int active = refs > 0, rc = 0;
    if (refs == 0) /* the release */
        rc = breaks("release_unretained_succeeds") ? 0 : MOCK_INVALID_CONTEXT;
    else if (--refs == 0 && !breaks("release_keeps_active"))
        active = 0;
    *reset = !active;
    return rc;
}
/* Its legacy stream's worker drains it; the memory is kept, as for streams.  ctxalloc: current to the
 * calling thread, it is popped (the break ctx_destroy_keeps_current: it stays current); current to other
 * threads, it stays current there, destroyed. */
static int ctx_destroy(void *ctx)
{
    struct mctx *c = ctx;
    c->destroyed = 1;
    if (cur_ctx == c && !breaks("ctx_destroy_keeps_current"))
        cur_ctx = NULL; /* the stack holds one: the primary is current again */
    return 0;
}
static int ctx_enter(void *ctx, int action)
{
    (void)action; /* push and set alike: the stack holds one */
    cur_ctx = ctx;
    return 0;
}
static int memcpy_peer(void *s, void *dst, int dd, const void *src, int sd, size_t n)
{
    (void)s, (void)dst, (void)dd, (void)src, (void)sd, (void)n;
    return SC_UNSUPPORTED;
}
static int device_sync(int dev) { return dev == 0 ? ctx_sync() : SC_UNSUPPORTED; }
/* Both backends keep the runtime API's error state: only runtime-API rules ask it. */
static int last_error(int reset)
{
    int rc = last_err;
    if (reset || breaks("peek_resets"))
        last_err = 0;
    return rc;
}
/* Host memory is the mock's device memory: registering it changes nothing.
 * Events and device memory live in one process, so IPC is not modelled. */
static int host_register(void *h, size_t n) { (void)h, (void)n; return 0; }
static int host_unregister(void *h) { (void)h; return 0; }
static int ipc_event_handle(void *e, void *h) { (void)e, (void)h; return SC_UNSUPPORTED; }
static int ipc_event_open(void **e, const void *h) { (void)e, (void)h; return SC_UNSUPPORTED; }
static int ipc_mem_handle(void *d, void *h) { (void)d, (void)h; return SC_UNSUPPORTED; }
static int ipc_mem_open(void **d, const void *h) { (void)d, (void)h; return SC_UNSUPPORTED; }
static int ipc_mem_close(void *d) { (void)d; return SC_UNSUPPORTED; }
static int code(enum sc_code c)
{
    return c == SC_CODE_SUCCESS          ? 0
           : c == SC_CODE_NOT_READY      ? SC_NOT_READY
           : c == SC_CODE_INVALID_VALUE  ? 1
           : c == SC_CODE_INVALID_HANDLE ? MOCK_INVALID_HANDLE
           : c == SC_CODE_ILLEGAL_ADDRESS ? MOCK_ILLEGAL_ADDRESS
           : c == SC_CODE_CONTEXT_IS_DESTROYED ? MOCK_CONTEXT_IS_DESTROYED
           : c == SC_CODE_INVALID_CONTEXT ? MOCK_INVALID_CONTEXT
                                         : -1;
}

static const char *error_name(int rc)
{
    return rc == SC_UNSUPPORTED ? "not modelled by the mock" : rc == SC_NOT_READY ? "MOCK_NOT_READY" : rc == MOCK_ILLEGAL_ADDRESS ? "MOCK_ILLEGAL_ADDRESS" : rc == MOCK_CONTEXT_IS_DESTROYED ? "MOCK_CONTEXT_IS_DESTROYED" : rc == MOCK_INVALID_CONTEXT ? "MOCK_INVALID_CONTEXT" : rc ? "MOCK_ERROR" : "MOCK_SUCCESS";
}

int sc_driver_describe(struct sc_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "streamcts mock (host threads)%s%s", broken ? ", broken: " : "",
             broken ? broken : "");
    snprintf(info->uuid, sizeof info->uuid, "MOCK");
    return 0;
}
int sc_runtime_version(void) { return 0; }

const sc_backend sc_driver_backend = SC_BACKEND("driver");
/* the runtime API's initialisation: as the driver's, unless the break runtime_rejects says cudart
 * cannot use the driver (cudaErrorInsufficientDriver on a stand-in it does not accept) */
static int runtime_init(char *why, size_t whylen)
{
    int state = init(why, whylen);
    if (state == SC_READY && breaks("runtime_rejects")) {
        snprintf(why, whylen, "runtime API sees no usable device (cudaErrorInsufficientDriver)");
        return SC_MISSING;
    }
    return state;
}
const sc_backend sc_runtime_backend = SC_BACKEND_INIT("runtime", runtime_init);
