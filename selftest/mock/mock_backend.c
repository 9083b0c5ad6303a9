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
 *              for each other (of a graph built by hand: its nodes wait for
 *              none of the stream's work, nor the stream's later work for them)
 *   replay_once  only the first launch of a captured graph (or of a graph built
 *              by hand) runs its nodes
 *   edges      a graph built by hand runs its nodes one by one in the reverse
 *              of the order they were added, whatever their edges say (nodes)
 *   record_node  an event record node records nothing (nodes)
 *   wait_node  an event wait node waits for nothing (nodes)
 *   child_node  a child graph node's graph starts without waiting for the
 *              child node's dependencies (nodes)
 *   exec_update  cuGraphExecUpdate answers success and changes nothing (nodes)
 *   upload_runs  an instantiation with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD also
 *              runs the graph in its upload stream (nodes)
 *   exec_update_topology  cuGraphExecUpdate answers success for a graph of
 *              another topology (nodes)
 *   exec_update_pending  cuGraphExecUpdate also drops the nodes of the pending
 *              launch that have not started (nodes)
 *   exec_destroy  cuGraphExecDestroy drops the nodes of its pending launch
 *              that have not started (nodes)
 *   capture_codes  a capture's end with an unjoined fork or on a stream that did not begin it, and a
 *              query or synchronize of an event recorded in a capture, answer a plain invalid value,
 *              not the stream-capture error NVIDIA names for each
 *   external   the external flags are ignored: outside a capture the record or
 *              wait is a plain one, and in a capture the node does nothing (a
 *              launch of its graph neither records the event nor waits on it)
 *   callback_twice  every stream callback is called twice
 *   callback_api  a CUDA call made from a stream callback is served, not refused
 *   legacy_query_invalidates  asking whether the legacy stream captures, while
 *              a blocking stream captures, invalidates that capture
 *   progevent_early  a launch's programmatic event triggers at the launch, not
 *              once all its blocks triggered (ended): it is recorded on an idle
 *              stream of its own
 *   join_direct  a wait on an event recorded in a capture follows only the
 *              recording stream's own nodes, not what they followed: a fork
 *              of a fork joined back through its parent counts as unjoined
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
 *   instantiate_cycle  (graphinst) a graph whose edges make a cycle is instantiated (result_out
 *              CUDA_GRAPH_INSTANTIATE_SUCCESS) instead of refused as an invalid structure
 *   auto_free  (graphinst) CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH frees nothing: a relaunch
 *              whose allocation the previous launch left unfreed is refused all the same
 *   unfreed_relaunch  (graphinst) a relaunch is accepted whatever allocation the previous launch left
 *              unfreed, without the flag
 *   child_reference  (graphinst) a child graph node keeps a reference to the child graph instead of
 *              a clone: nodes added to the child graph later run in the parent's launches
 *   query_stale_managed  (um) a memset's or copy's writes to managed memory reach the host only at the next
 *              synchronize (stream, event or context), not when a query answers success
 *   memop_managed  (um) cuStreamWaitValue / cuStreamWriteValue accept a pointer to managed memory
 *   green_unsynced  (green) cuCtxSynchronize of the primary context ignores its green contexts' streams
 *   no_green   (green) the device has no green contexts (CUDA_ERROR_NOT_SUPPORTED): rules that need them skip
 *   ctx_create_not_current  (green) cuCtxCreate leaves the calling thread's context current, not the new one
 *   pop_keeps_created  (green) cuCtxPopCurrent after cuCtxCreate leaves the created context current: the
 *              supplanted context is not restored
 *   ipc_pool_private  (ipcpool) an allocation imported from another process's pool
 *              (cuMemPoolImportPointer) is fresh zeroed memory of the importer's own, not the exporter's
 *   launch_blocking_ignored  (blocking) CUDA_LAUNCH_BLOCKING=1 is ignored: kernel launches return at once
 *   mps_serializes  (blocking) under MPS (STREAMCTS_MPS set) the device runs one piece of work at a time,
 *              whichever process or stream it belongs to: an MPS server that serializes its clients
 *   launch_unchecked  (pginv) a kernel launch with more threads per block than a device allows runs
 *   ipc_pool_releases  (pginv) an exportable pool releases freed memory at a synchronize or a trim
 *   export_any_pool  (pginv) a pool created without a shareable handle type exports one anyway
 *   not_ready_recorded  (pginv) a stream or event query that answers not-ready records it as the calling
 *              thread's last error (the runtime API's error state), as if it were an error
 *   reuse_never  (poolreuse) a pool never hands out memory again: memory freed in a stream and synchronized
 *              with the CPU stays reserved, and every allocation gets memory of its own
 *   used_counts_freed  (poolreuse) CU_MEMPOOL_ATTR_USED_MEM_CURRENT counts the memory of completed frees the
 *              pool still reserves (it reports the reserved bytes)
 *   used_uncounted  (poolreuse) CU_MEMPOOL_ATTR_USED_MEM_CURRENT counts nothing: it reports 0 with an
 *              allocation live
 *   internal_deps_missing  (poolreuse) a pool at its maximum size (max_one) hands out the memory of a pending
 *              free without making the allocating stream wait for the free
 *   memset_node_pool  (allocmisc) cuGraphAddMemsetNode accepts a destination of the stream-ordered allocator
 *   free_unsynced  (allocmisc) cuMemFree returns at once, without waiting for the work of any stream
 *   capture_id_per_call  cuStreamGetCaptureInfo gives a new capture id at every call
 *   capture_id_reused    every capture gets the same capture id
 *   capture_deps_stale   cuStreamGetCaptureInfo gives the dependency set the capture began with (none)
 *   sever_ignored        cuStreamUpdateCaptureDependencies answers success and leaves the set as it was
 *   remote_unordered     a kernel launched in the remote memory synchronization domain runs at once, outside
 *                        its stream's order
 *   stream_wait_noop     cuStreamWaitValue32 waits for nothing (the suite's stream-wait gate included)
 *   batch_copy_unordered cuMemcpyBatchAsync runs its copies at once, outside its stream's order
 * STREAMCTS_MOCK_QUIRK names a legal behaviour to adopt, which no MUST rule may
 * fail:
 *   enqueue_waits  every call that enqueues work first waits, up to 50 ms, for
 *                  its stream to drain (CUDA_LAUNCH_BLOCKING=1 in spirit: any
 *                  call may block for a while)
 *   fault_at_launch  a faulting kernel's launch waits for it and answers its
 *                  error itself, as under CUDA_LAUNCH_BLOCKING=1
 *   slow_device    each piece of work starts 20 ms after its stream lets it
 *                  (a slow device: what B needs longer than a first look)
 *   slow_at_start  slow_device for the first 1.5 s of the process only (a device
 *                  other contexts held while the program started, free after)
 *   slow_sync      each stream synchronize first sleeps 8 ms (any call may block
 *                  for a while): longer than a 5 ms first look
 *   edges_validated  (graphinst) cuGraphAddDependencies refuses an edge that closes a cycle (the
 *                  structure validated before instantiation: "not previously validated" allows it)
 *   slow_ctx_destroy  cuCtxDestroy takes 120 ms (on the H100 it took over a
 *                  50 ms window), before any gate of the case is issued
 *   no_ipc_pools   (ipcpool) the device has no handle type to export a pool with: a pool
 *                  made exportable (SC_POOL_IPC) cannot be created
 * A programmatic dependent launch (launch_pdl) that does not synchronize on its
 * dependencies may overlap a gate right before it in its stream (its primary,
 * which triggers its dependents at its start, as the suite's gate kernel does),
 * as PDL allows: it runs once everything before that gate has completed (after
 * any other item, once that item has); one that synchronizes runs in stream
 * order.
 * A process started with CUDA_LAUNCH_BLOCKING=1 launches its kernels (gate and marking kernel) synchronously:
 * the launch returns once the kernel completed.
 * A thread waiting in event_sync sleeps on a blocking-sync event and spins
 * on any other, as CUDA's default scheduling does with cores to spare.
 * Stream capture records work into a list of nodes; a graph kept from it runs
 * them in the order they were captured (a legal, if serial, graph: capture
 * order respects every dependency), behind the launch stream's earlier work
 * and the graph's previous launch.  Streams join a capture by waiting on an
 * event recorded in it; a stream callback is refused there.  Each stream of a
 * capture keeps a vector clock of the capture's streams (the nodes of each it
 * depends on): a capture's end on its origin answers the unjoined-fork error
 * unless the origin's clock covers every member's, and an end on a member
 * that did not begin it the unmatched error; an event last recorded in a
 * capture answers the captured-event error to a query or synchronize.  While
 * a blocking stream captures, a kernel launched into the legacy stream, and
 * the question whether the legacy stream captures, answer the
 * implicit-dependency error; the kernel also invalidates that capture (its
 * status says so, and its end answers the invalidated error).  Not modelled:
 * capture modes, other invalid calls, other work on the legacy stream.
 * Graph memory nodes (graphinst): an allocation node sets its memory aside when a launch runs it and no
 * node frees it, so a relaunch is refused with the invalid-value error unless the graph was instantiated
 * with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH; an instantiation of a graph whose edges make a
 * cycle is refused (result_out CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE).
 * A faulting kernel makes the context's error sticky: every synchronize and
 * query answers it from then on.  A call that refuses its arguments sets the
 * calling thread's last error (the runtime API's error state).
 * It provides both backends ("driver" and "runtime" behave the same).
 */
#define _GNU_SOURCE
#include "backend.h"
#include "clock.h"
#include "slot.h"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
const char sc_compile_mode[] = "per-thread";
#else
const char sc_compile_mode[] = "legacy";
#endif
const char sc_backend_kind[] = "mock";

enum { KIND_BLOCKING, KIND_NONBLOCKING, KIND_LEGACY, KIND_PER_THREAD };
enum { ITEM_FN, ITEM_WAIT };
/* capmisc: external event nodes of a capture (arg: the event), turned into a record or a wait at each launch */
enum { ITEM_RECORD_EXTERNAL = 2, ITEM_WAIT_EXTERNAL };

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

/* nodes: a node of a graph built by hand, and one launch of an executable graph. */
#define MOCK_NODES 32
#define MOCK_DEPS 8
struct mgraph;
struct mnode {
    struct sc_node_params np;  /* kind 0: a child graph node */
    struct mgraph *child;      /* its clone                  */
    int ndeps, deps[MOCK_DEPS]; /* the nodes its edges come from */
    struct mstream *ran_on;    /* the last launch: where it ran ... */
    uint64_t ran_at;           /* ... and its last item there      */
};
struct mlaunch {
    int dead; /* exec_destroy (broken): its nodes that have not started are dropped */
};

/* A stream capture under way, or the graph kept from one: its nodes in capture order. */
#define MOCK_CAPTURE_STREAMS 16
#define MOCK_SNAPS 32
struct mgraph {
    struct item *head, *tail;
    struct mstream *origin;     /* the stream the capture began on */
    struct mstream *members[MOCK_CAPTURE_STREAMS]; /* the origin first, then the streams that joined */
    int nmembers;
    int launched;               /* launches so far                 */
    int invalidated;            /* capmisc: an invalid call (a kernel on the legacy stream) invalidated it */
    struct mstream *last;       /* the stream of its last launch, ... */
    uint64_t last_pos;          /* ... and that launch's last item    */
    /* nodes: a graph built by hand */
    int built;
    struct mnode nodes[MOCK_NODES];
    int nnodes;
    struct mnode *exec;         /* the executable graph's nodes: NULL before the instantiate */
    struct mlaunch *pending;    /* its last launch */
    uint64_t id;                /* a capture's id, unique in the process */
    /* each member's nodes (at most MOCK_SNAPS): the clock each followed, itself counted; a node another node of
     * the dependency set followed is not in the set (cuStreamGetCaptureInfo's dependencies are direct ones) */
    uint32_t snap[MOCK_CAPTURE_STREAMS][MOCK_SNAPS][MOCK_CAPTURE_STREAMS];
    /* graphinst: graph memory nodes */
    int auto_free;              /* instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
    int unfreed;                /* a launch left its allocation unfreed (no node frees it) */
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
    /* in a capture: its index among the members, and how many nodes of each member its next node follows */
    int cap_index;
    uint32_t clock[MOCK_CAPTURE_STREAMS];
    uint32_t cap_nodes; /* the nodes it captured so far (the last is clock[cap_index] unless the set was replaced) */
    /* settle: what its worker waits for now (a test over arg, made under mu), NULL while it runs or idles */
    int (*blocked)(const void *arg);
    const void *blocked_arg;
};

/* A created context: its own legacy stream.  A thread's current context is a stack of one: a
 * pop after a push or set of a created context makes the primary current again. */
struct mctx {
    struct mstream *legacy;
    unsigned flags;  /* ctxalloc: SC_CTX_BLOCKING_SYNC: a thread synchronizing it sleeps, else it spins */
    int destroyed;   /* ctxalloc: cuCtxDestroy ran; a thread it stayed current to gets CONTEXT_IS_DESTROYED */
    int green;       /* green: a green context of the primary (no legacy stream of its own, never current here):
                      * the primary's synchronize waits for its streams, and the primary's kernels run in them */
    int by_create;   /* green: made current by the ctx_create op's cuCtxCreate (the break pop_keeps_created) */
};
static __thread struct mctx *cur_ctx;

struct mevent {
    struct mctx *ctx;       /* the context current when it was created */
    struct mgraph *capture; /* recorded into this capture: a wait on it joins the capture */
    struct mstream *stream; /* NULL: never recorded */
    uint64_t target;
    uint64_t ns;            /* when the last record completed */
    unsigned flags;         /* SC_EV_*: a blocking-sync event's waiter sleeps, any other spins */
    uint32_t clock[MOCK_CAPTURE_STREAMS]; /* recorded in a capture: its stream's clock then, ... */
    int cap_index;                        /* ... and that stream's index */
    struct mipc *ipc;       /* ipcpool: an interprocess event's state, shared by every process that opened it */
    int ipc_fd;             /* ... the memory it lives in (a memfd), in the process that created it */
};
/*
 * ipcpool: an interprocess event.  Its state lives in a page of shared memory (a memfd) that every process
 * opening its handle maps (through /proc/PID/fd of the creator): records so far, and the last that completed.
 * A record takes the next number and completes it in stream order; a wait, query or synchronize looks at the
 * records made before it, in whichever process.  The break wait: a wait waits for nothing, as for any event.
 */
struct mipc {
    uint64_t recorded;  /* records issued, every process counted */
    uint64_t completed; /* the highest record that ran */
};
#define MOCK_IPC_MAGIC 0x6d6f636bu
#define MOCK_IPC_WAIT_NS 30000000000ull /* a wait on another process's record gives up after this (its deadline) */
struct mipc_handle { /* a CUipcEventHandle's 64 bytes, as the mock fills them */
    uint32_t magic;
    int32_t pid, fd;
};

static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER; /* legacy joins: whole enqueue is atomic */
static struct mstream *blocking_list, *all_list, *legacy;
static __thread struct mstream *per_thread;
static const char *broken, *quirk;
static uint64_t mock_started_ns; /* when the mock initialised (quirk slow_at_start) */

static int sticky; /* the context's error, once a kernel faulted */
static __thread int last_err; /* the calling thread's last error (the runtime API's error state) */
#define MOCK_INVALID_HANDLE 4
#define MOCK_ILLEGAL_ADDRESS 5
#define MOCK_ASSERT 6
#define MOCK_LAUNCH_FAILED 7
#define MOCK_EXEC_UPDATE_FAILURE 8 /* nodes */
/* capmisc: the stream-capture errors, with CUDA's numbers */
#define MOCK_CAPTURE_UNMATCHED 903
#define MOCK_CAPTURE_UNJOINED 904
#define MOCK_CAPTURED_EVENT 907
#define MOCK_NOT_PERMITTED 800 /* a CUDA call from a stream callback */
#define MOCK_CAPTURE_INVALIDATED 901
#define MOCK_CAPTURE_IMPLICIT 906
static __thread int in_callback; /* this thread runs a stream callback */
#define MOCK_CONTEXT_IS_DESTROYED 709 /* ctxalloc */
#define MOCK_INVALID_CONTEXT 201      /* ctxalloc */

static int breaks(const char *what) { return broken && !strcmp(broken, what); }
static int launch_blocking; /* blocking: CUDA_LAUNCH_BLOCKING=1 when the process initialised */
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

/*
 * settle (sc_backend_settle): a stream's worker says what it waits for while it waits, so that a stream
 * that waits can be told from one whose work a busy machine has not run yet.  The test is made under the
 * stream's lock and reads only atomics: the worker takes it back under that lock before its argument goes.
 */
static __thread struct mstream *running; /* the stream this thread is the worker of (NULL: a caller's thread) */
static void waiting_for(int (*blocked)(const void *), const void *arg)
{
    if (!running)
        return;
    pthread_mutex_lock(&running->mu);
    running->blocked = blocked, running->blocked_arg = arg;
    pthread_mutex_unlock(&running->mu);
}
static void waiting_over(void) { waiting_for(NULL, NULL); }
/* the caller's own code (a host function, a callback) may wait for anything: settled once it started.
 * The functions host_func was given, to know them when a worker runs them. */
static int in_callers_code(const void *arg) { return (void)arg, 1; }
static void (*callers_fns[16])(void *);
static void callers_fn_add(void (*fn)(void *))
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
static void wait_done(struct mstream *s, uint64_t target)
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

static int context_error(void);
static void release_at_sync(void); /* ctxalloc: the pools' release threshold */
static void flush_managed(void);   /* um: the break query_stale_managed's deferred writes */
static int is_managed(const void *p); /* um */
static void run_callback(void *arg);
static int early_done(const struct item *it);
static void run_pdl_join(void *arg);
static void join_capture(struct mgraph *cap, struct mstream *st);
static void capture_node(struct mgraph *cap, struct mstream *s);
static void run_record(void *e);
static void run_gate(void *a);

/*
 * blocking: the break mps_serializes: under MPS every piece of work of every client process holds one lock
 * (a file in the MPS server's directory) while it runs.  -1: not broken so.
 */
static int device_serial_lock(void)
{
    const char *dir = getenv("STREAMCTS_MPS");
    char path[512];
    if (!breaks("mps_serializes") || !dir || !*dir)
        return -1;
    snprintf(path, sizeof path, "%s/mock-device.lock", dir);
    int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        while (flock(fd, LOCK_EX) != 0 && errno == EINTR)
            ;
    return fd;
}

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
        if (quirks("slow_device") || (quirks("slow_at_start") && sc_now_ns() - mock_started_ns < 1500000000ull))
            sc_pause_ns(20000000u);
        if (it->type == ITEM_WAIT)
            wait_done(it->on, it->target);
        else if (it->fn && (!context_error() || it->fn == run_callback)) { /* after a fault only callbacks run */
            int serial = it->fn == run_gate ? -1 : device_serial_lock(); /* a gate holds it from its launch */
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
        if (type != ITEM_FN || fn != run_record) /* a record makes no node: it marks a point */
            capture_node(cap, s); /* a node of its own: the next follows it */
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
        mock_started_ns = sc_now_ns();
        const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
        launch_blocking = lb && !strcmp(lb, "1") && !breaks("launch_blocking_ignored");
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
/* ipcpool: memory a memfd holds, mapped shared; NULL on failure */
static void *shared_map(int fd, size_t n)
{
    void *m = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    return m == MAP_FAILED ? NULL : m;
}
/* ipcpool: opens a memfd of process pid through /proc (the mock's stand-in for a handle the driver resolves) */
static int open_foreign(int pid, int fd)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
}
static int event_create(void **e, unsigned flags)
{
    struct mevent *ev = calloc(1, sizeof *ev);
    ev->flags = flags;
    ev->ctx = cur_ctx;
    ev->ipc_fd = -1;
    if (flags & SC_EV_INTERPROCESS) { /* ipcpool: its state in shared memory */
        if ((ev->ipc_fd = memfd_create("streamcts-mock-ipc-event", MFD_CLOEXEC)) < 0 ||
            ftruncate(ev->ipc_fd, 4096) || !(ev->ipc = shared_map(ev->ipc_fd, 4096))) {
            if (ev->ipc_fd >= 0)
                close(ev->ipc_fd);
            free(ev);
            return 2; /* out of memory */
        }
    }
    *e = ev;
    return 0;
}
static int event_destroy(void *e)
{
    struct mevent *ev = e; /* waits keep their own snapshot; the event memory is kept */
    if (ev->ipc_fd >= 0) { /* ipcpool: the processes that opened it mapped it already */
        close(ev->ipc_fd);
        ev->ipc_fd = -1;
    }
    return 0;
}
static int dev_alloc(void **p, size_t n) { return (*p = calloc(1, n)) ? 0 : 2; }
static void sync_streams(struct mctx *c, int spins);
/* allocmisc: cuMemFree / cudaFree first waits for the work of every stream of the context, as NVIDIA's drivers
 * do ("Managing memory allocations using cudaMalloc and cudaFree causes the GPU to synchronize across all
 * executing CUDA streams", the Programming Guide; the break free_unsynced: it does not) */
static int dev_free(void *p)
{
    if (!breaks("free_unsynced"))
        sync_streams(cur_ctx, 0);
    free(p);
    return 0;
}
static int host_alloc(void **p, size_t n) { return (*p = calloc(1, n)) ? 0 : 2; }
static int host_free(void *p) { free(p); return 0; }
static int host_dev_ptr(void **d, void *h) { *d = h; return 0; }
/* um: managed allocations are remembered, so that the stream memory operations can refuse them */
static struct { const char *p; size_t n; } managed[512];
static int nmanaged;
static pthread_mutex_t managed_mu = PTHREAD_MUTEX_INITIALIZER;
static int managed_alloc(void **p, size_t n)
{
    if (!(*p = calloc(1, n)))
        return 2;
    pthread_mutex_lock(&managed_mu);
    if (nmanaged < 512)
        managed[nmanaged].p = *p, managed[nmanaged++].n = n;
    pthread_mutex_unlock(&managed_mu);
    return 0;
}
static int is_managed(const void *p)
{
    int found = 0;
    pthread_mutex_lock(&managed_mu);
    for (int i = 0; i < nmanaged && !found; i++)
        found = (const char *)p >= managed[i].p && (const char *)p < managed[i].p + managed[i].n;
    pthread_mutex_unlock(&managed_mu);
    return found;
}

struct gate_args {
    uint32_t *flag;
    uint64_t max_ns;
    struct sc_slot *slot;
    uint32_t token;
    int serial_fd; /* blocking: mps_serializes: the device lock the gate holds from its launch on, or -1 */
};
static int gate_closed(const void *a) { return !__atomic_load_n(((const struct gate_args *)a)->flag, __ATOMIC_ACQUIRE); }
static void run_gate(void *a)
{
    struct gate_args *g = a;
    uint64_t start = sc_now_ns();
    uint32_t status = SC_GATE_RELEASED;
    g->slot->start_ns = start;
    waiting_for(gate_closed, g);
    while (!__atomic_load_n(g->flag, __ATOMIC_ACQUIRE)) {
        if (sc_now_ns() - start > g->max_ns) {
            status = SC_GATE_EXPIRED;
            break;
        }
        sc_pause_ns(10000);
    }
    waiting_over();
    g->slot->end_ns = sc_now_ns();
    g->slot->status = status;
    g->slot->runs++;
    __atomic_store_n(&g->slot->token, g->token, __ATOMIC_RELEASE);
    if (g->serial_fd >= 0)
        close(g->serial_fd); /* mps_serializes: the device is free again */
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

/* blocking: a kernel launched at pos (0: into a capture) returns once it completed under CUDA_LAUNCH_BLOCKING=1 */
static void launched(void *s, uint64_t pos)
{
    if (launch_blocking && pos)
        wait_done(resolve(s), pos);
}

/* A kernel of the current context's module, launched into a stream of another context, is refused. */
static int foreign(void *s)
{
    struct mctx *c = resolve(s)->ctx;
    return (c && c->green ? NULL : c) != cur_ctx; /* green: a green context runs the primary's kernels */
}
/* nodes: a launch's own copies of a node's arguments */
static void *gate_args_of(const struct sc_node_params *np)
{
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ np->flag, np->max_ns, np->slot, np->token, -1 };
    return g;
}
static int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    if (foreign(s))
        return refuse(MOCK_INVALID_HANDLE);
    struct gate_args *g = malloc(sizeof *g);
    /* a serializing MPS server gives the GPU to the gate from its launch on: nothing runs beside it */
    *g = (struct gate_args){ flag, max_ns, slot, token, device_serial_lock() };
    uint64_t pos = enqueue(s, ITEM_FN, run_gate, g, NULL, 0, 1);
    trigger_at(s, pos);
    launched(s, pos);
    return 0;
}
/* The gate held by a stream wait: to the mock, a gate whose device-side deadline is a minute away. */
static int launch_mark(void *s, void *slot, uint32_t token);
static int wait_gate(void *s, void *flag, void *slot, uint32_t token)
{
    if (breaks("stream_wait_noop")) /* the stream wait waits for nothing: its stamping kernels run at once */
        return launch_mark(s, slot, token);
    return launch_gate(s, flag, 60000000000u, slot, token);
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
/* capmisc: the capture of a blocking stream (of the current context) under way, if any */
static struct mgraph *blocking_capture(void)
{
    struct mgraph *cap = NULL;
    pthread_mutex_lock(&registry);
    for (struct mstream *b = blocking_list; b && !cap; b = b->next_blocking)
        if (b->capture && b->ctx == cur_ctx)
            cap = b->capture;
    pthread_mutex_unlock(&registry);
    return cap;
}
static int launch_mark(void *s, void *slot, uint32_t token)
{
    struct mgraph *cap;
    if (breaks("peer_dies") && dies_here())
        _exit(7);
    if (foreign(s))
        return refuse(MOCK_INVALID_HANDLE);
    if (resolve(s)->kind == KIND_LEGACY && (cap = blocking_capture())) { /* invalid: it invalidates the capture */
        cap->invalidated = 1;
        return refuse(MOCK_CAPTURE_IMPLICIT);
    }
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ NULL, 0, slot, token, -1 };
    launched(s, enqueue(s, ITEM_FN, run_mark, g, NULL, 0, 1));
    return 0;
}

/* A programmatic dependent launch that runs early: on a thread of its own once the items before its
 * primary are done; its place in the stream (run_pdl_join) completes when it did. */
struct pdl_args {
    struct gate_args g;
    struct mstream *on;
    uint64_t before;                 /* items of the stream it waits for */
    int ran;                         /* it has written its token (its last touch of this struct) */
    const uint32_t *primary_token;   /* read into its slot's arg when it runs, as sc_pdl does */
};
static void read_primary(struct pdl_args *d)
{
    if (d->primary_token)
        d->g.slot->arg = __atomic_load_n(d->primary_token, __ATOMIC_ACQUIRE);
}
/* In order (it synchronizes on its dependency): reads its primary's token, then marks. */
static void run_pdl_in_order(void *a)
{
    struct pdl_args *d = a;
    read_primary(d);
    run_mark(&d->g);
}
static void *run_pdl_early(void *a)
{
    struct pdl_args *d = a;
    wait_done(d->on, d->before);
    read_primary(d);
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
static int pdl_not_run(const void *a) { return !__atomic_load_n(&((const struct pdl_args *)a)->ran, __ATOMIC_ACQUIRE); }
static void run_pdl_join(void *a)
{
    struct pdl_args *d = a;
    waiting_for(pdl_not_run, d);
    while (!__atomic_load_n(&d->ran, __ATOMIC_ACQUIRE))
        sc_pause_ns(10000);
    waiting_over();
    free(d);
}
static int launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token)
{
    struct pdl_args *d = malloc(sizeof *d);
    pthread_t thread;
    *d = (struct pdl_args){ { NULL, 0, slot, token, -1 }, resolve(s), 0, 0, primary_token };
    if (sync && !breaks("pdl")) {
        if (foreign(s)) {
            free(d);
            return refuse(MOCK_INVALID_HANDLE);
        }
        enqueue(s, ITEM_FN, run_pdl_in_order, d, NULL, 0, 1);
        return 0;
    }
    /* its place first: the waits a legacy or blocking stream puts before it are not gates to overlap */
    uint64_t pos = enqueue(s, ITEM_FN, run_pdl_join, d, NULL, 0, 0); /* run_pdl_join frees d */
    pthread_mutex_lock(&d->on->mu);
    d->before = pos - 1 - (pos > 1 && (d->on->last_trigger == pos - 1 || breaks("pdl_overlap"))); /* all but its primary */
    pthread_mutex_unlock(&d->on->mu);
    pthread_create(&thread, NULL, run_pdl_early, d);
    pthread_detach(thread);
    return 0;
}

/* capmisc: a marked kernel or a gate whose launch records a programmatic event.  The marked kernel's blocks
 * trigger nothing, so the event triggers as the kernel ends, as an event recorded right after it; the gate
 * triggers its dependents at its start, so the event triggers as it starts, as one recorded right before it. */
static int event_record(void *e, void *s);
static int launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    int rc;
    if (breaks("progevent_early"))
        event_record(e, new_stream(KIND_NONBLOCKING));
    else if (flag && (rc = event_record(e, s)))
        return rc;
    if ((rc = flag ? launch_gate(s, flag, max_ns, slot, token) : launch_mark(s, slot, token)))
        return rc;
    return flag || breaks("progevent_early") ? 0 : event_record(e, s);
}

/* Launch attributes change nothing the mock models (the break remote_unordered: a kernel in the remote memory
 * synchronization domain runs at once, on a stream of its own, not in stream order) */
static int launch_attr(void *s, int attr, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    if (attr != SC_LAUNCH_REMOTE_DOMAIN && attr != SC_LAUNCH_PRIORITY)
        return refuse(1);
    if (attr == SC_LAUNCH_REMOTE_DOMAIN && breaks("remote_unordered"))
        s = new_stream(KIND_NONBLOCKING);
    return flag ? launch_gate(s, flag, max_ns, slot, token) : launch_mark(s, slot, token);
}

static const int fault_codes[] = { MOCK_ILLEGAL_ADDRESS, MOCK_ASSERT, MOCK_LAUNCH_FAILED }; /* by sc_fault_kind */
static void run_fault(void *code)
{
    __atomic_store_n(&sticky, *(const int *)code, __ATOMIC_RELEASE);
}
/* The context's sticky error, recorded as the calling thread's last error too (pginv: an asynchronous error
 * overwrites the runtime API's error state, as the Programming Guide's Error Checking says). */
static int context_error(void)
{
    int err = __atomic_load_n(&sticky, __ATOMIC_ACQUIRE);
    return err ? refuse(err) : 0;
}
/* pginv: what a query answers while its work is pending; not an error, so not the thread's last error */
static int not_ready(void) { return breaks("not_ready_recorded") ? refuse(SC_NOT_READY) : SC_NOT_READY; }
static int launch_fault(void *s, int how)
{
    if (how < 0 || how > 2)
        return refuse(1);
    uint64_t pos = enqueue(s, ITEM_FN, run_fault, (void *)&fault_codes[how], NULL, 0, 0);
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
/* um: the break query_stale_managed keeps a memset's or copy's writes to managed memory from the host until
 * a synchronize: the work completes (a query answers success), its bytes come later.  value -1: a copy,
 * whose source was read when it ran (bytes) */
struct stale { void *dst; size_t n; int value; void *bytes; struct stale *next; };
static pthread_mutex_t stale_mu = PTHREAD_MUTEX_INITIALIZER;
static struct stale *stale_head, **stale_tail = &stale_head;
static void flush_managed(void)
{
    pthread_mutex_lock(&stale_mu);
    while (stale_head) {
        struct stale *s = stale_head;
        if (s->value >= 0)
            memset(s->dst, s->value, s->n);
        else
            memcpy(s->dst, s->bytes, s->n);
        stale_head = s->next;
        free(s->bytes);
        free(s);
    }
    stale_tail = &stale_head;
    pthread_mutex_unlock(&stale_mu);
}
static void run_copy(void *a)
{
    struct copy_args *c = a;
    if (breaks("query_stale_managed") && is_managed(c->dst)) {
        struct stale *s = malloc(sizeof *s);
        *s = (struct stale){ c->dst, c->n, c->value, c->value >= 0 ? NULL : malloc(c->n), NULL };
        if (s->bytes)
            memcpy(s->bytes, c->src, c->n);
        pthread_mutex_lock(&stale_mu);
        *stale_tail = s;
        stale_tail = &s->next;
        pthread_mutex_unlock(&stale_mu);
    } else if (c->value >= 0)
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
static void *copy_args_of(const struct sc_node_params *np)
{
    struct copy_args *c = malloc(sizeof *c);
    *c = (struct copy_args){ np->dst, np->src, np->bytes, np->kind == SC_NODE_MEMSET ? np->value : -1 };
    return c;
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
/* a batch in stream order, its copies one after another (the break batch_copy_unordered: at once, on a stream
 * of its own) */
static int memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev)
{
    struct sc_slot *slot = slot_dev;
    if (kind != SC_H2D_PINNED && kind != SC_D2H_PINNED && kind != SC_D2D)
        return refuse(1);
    void *on = breaks("batch_copy_unordered") ? (void *)new_stream(KIND_NONBLOCKING) : s;
    for (int k = 0; k < SC_BATCH_COPIES; k++)
        copy_on(on, (char *)dst + k * (n / SC_BATCH_COPIES), (const char *)src + k * (n / SC_BATCH_COPIES),
                n / SC_BATCH_COPIES, -1);
    copy_on(on, &slot->token, &slot->arg, sizeof slot->token, -1);
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
    callers_fn_add(fn);
    enqueue(s, ITEM_FN, fn, arg, NULL, 0, 0);
    return 0;
}
static void run_callback(void *arg) /* with the context's error, if any */
{
    const struct sc_callback *cb = arg;
    in_callback = 1;
    cb->body(cb->arg, context_error());
    in_callback = 0;
}
static int callback(void *s, const struct sc_callback *cb)
{
    if (resolve(s)->capture) /* not supported in stream capture, unlike host functions */
        return refuse(1);
    if (breaks("callback_twice")) /* broken: called once more */
        host_func(s, run_callback, (void *)cb);
    return host_func(s, run_callback, (void *)cb);
}
static void run_record(void *e) { ((struct mevent *)e)->ns = sc_now_ns(); }
/* ipcpool: record number seq of an interprocess event completes */
struct mipc_step {
    struct mipc *ipc;
    uint64_t seq;
};
static void run_record_ipc(void *a)
{
    struct mipc_step *st = a;
    uint64_t was = __atomic_load_n(&st->ipc->completed, __ATOMIC_ACQUIRE);
    while (was < st->seq && !__atomic_compare_exchange_n(&st->ipc->completed, &was, st->seq, 0, __ATOMIC_ACQ_REL,
                                                          __ATOMIC_ACQUIRE))
        ;
}
static int ipc_pending(const void *a)
{
    const struct mipc_step *st = a;
    return __atomic_load_n(&st->ipc->completed, __ATOMIC_ACQUIRE) < st->seq;
}
/* ipcpool: a stream waits until record seq completed, in whichever process (for at most MOCK_IPC_WAIT_NS) */
static void run_wait_ipc(void *a)
{
    struct mipc_step *st = a;
    uint64_t end = sc_now_ns() + MOCK_IPC_WAIT_NS;
    waiting_for(ipc_pending, st);
    while (__atomic_load_n(&st->ipc->completed, __ATOMIC_ACQUIRE) < st->seq && sc_now_ns() < end)
        sc_pause_ns(10000);
    waiting_over();
}
static int event_record(void *e, void *s)
{
    struct mevent *ev = e;
    if (resolve(s)->ctx != ev->ctx) /* documented: hEvent and hStream must be from the same context */
        return refuse(MOCK_INVALID_HANDLE);
    if (ev->ipc) { /* ipcpool: the next record of every process's */
        struct mipc_step *st = malloc(sizeof *st);
        st->ipc = ev->ipc;
        st->seq = __atomic_add_fetch(&ev->ipc->recorded, 1, __ATOMIC_ACQ_REL);
        ev->target = enqueue(s, ITEM_FN, run_record_ipc, st, NULL, 0, 1);
        ev->stream = resolve(s);
        return 0;
    }
    struct mgraph *cap = resolve(s)->capture;
    uint64_t pos = enqueue(s, ITEM_FN, run_record, ev, NULL, 0, 0);
    if (cap) { /* what a wait on it will follow: its stream's clock, this record's node included */
        pthread_mutex_lock(&registry);
        memcpy(ev->clock, resolve(s)->clock, sizeof ev->clock);
        ev->cap_index = resolve(s)->cap_index;
        pthread_mutex_unlock(&registry);
    }
    ev->capture = cap;
    ev->stream = cap ? NULL : resolve(s); /* a captured record marks a point of the capture only */
    ev->target = pos;
    return 0;
}
static int stream_wait_event(void *s, void *e, unsigned flags);
/* capmisc: an external event node (ITEM_RECORD_EXTERNAL, ITEM_WAIT_EXTERNAL) of the capture of s; outside a
 * capture the flag is invalid */
static int external_node(void *s, int type, struct mevent *ev)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    struct mgraph *cap = st->capture;
    if (cap) {
        struct item *it = calloc(1, sizeof *it);
        *it = (struct item){ type, NULL, ev, NULL, 0, 0, NULL };
        if (cap->tail)
            cap->tail->next = it;
        else
            cap->head = it;
        cap->tail = it;
        capture_node(cap, st);
    }
    pthread_mutex_unlock(&registry);
    if (!cap && breaks("external")) /* broken: a plain record or wait */
        return type == ITEM_RECORD_EXTERNAL ? event_record(ev, s) : stream_wait_event(s, ev, 0);
    return cap ? 0 : refuse(1); /* invalid value */
}
static int event_record_external(void *e, void *s) { return external_node(s, ITEM_RECORD_EXTERNAL, e); }
static int stream_wait_event(void *s, void *e, unsigned flags)
{
    struct mevent *ev = e;
    if (flags == SC_WAIT_EXTERNAL)
        return external_node(s, ITEM_WAIT_EXTERNAL, ev);
    if (flags)
        return refuse(1); /* invalid value */
    if (ev->ipc) { /* ipcpool: the records made so far, whichever process made them */
        uint64_t seq = __atomic_load_n(&ev->ipc->recorded, __ATOMIC_ACQUIRE);
        if (seq && !breaks("wait")) {
            struct mipc_step *w = malloc(sizeof *w);
            *w = (struct mipc_step){ ev->ipc, seq };
            enqueue(s, ITEM_FN, run_wait_ipc, w, NULL, 0, 1);
        }
        return 0;
    }
    struct mstream *st = resolve(s); /* before the lock: a per-thread stream may be made here */
    pthread_mutex_lock(&registry);
    if (ev->capture && ev->capture->origin && !st->capture)
        join_capture(ev->capture, st); /* it joins the capture */
    if (ev->capture && st->capture == ev->capture) /* its next node follows what the record followed */
        for (int k = 0; k < MOCK_CAPTURE_STREAMS; k++)
            if (!breaks("join_direct") || k == ev->cap_index) /* broken: not what the recorder followed */
                st->clock[k] = st->clock[k] > ev->clock[k] ? st->clock[k] : ev->clock[k];
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
    if (quirks("slow_sync"))
        sc_pause_ns(8000000u);
    if (breaks("sync"))
        return context_error();
    if (st->ctx && (!(st->ctx->flags & SC_CTX_BLOCKING_SYNC) || breaks("ctx_blocking_spins"))) {
        uint64_t target = enq_of(st); /* ctxalloc: spins, unless its context blocks (as ctx_sync) */
        while (__atomic_load_n(&st->done, __ATOMIC_ACQUIRE) < target)
            ;
    } else
        wait_done(st, enq_of(st));
    release_at_sync();
    flush_managed();
    return context_error();
}
static int stream_query(void *s)
{
    if (in_callback && !breaks("callback_api")) /* documented: no CUDA call from a stream callback */
        return refuse(MOCK_NOT_PERMITTED);
    if (cur_ctx && cur_ctx->destroyed && !breaks("ctx_destroyed_usable")) /* ctxalloc */
        return MOCK_CONTEXT_IS_DESTROYED;
    struct mstream *st = resolve(s);
    uint64_t enq = enq_of(st);
    int err = context_error();
    return err ? err : done_of(st) >= enq ? 0 : not_ready();
}
/* An event last recorded in a capture: its query and synchronize are refused (capmisc). */
static int captured_event(const struct mevent *ev)
{
    return ev->capture ? breaks("capture_codes") ? refuse(1) : refuse(MOCK_CAPTURED_EVENT) : 0;
}
static int event_sync(void *e)
{
    struct mevent *ev = e;
    if (ev->ipc) { /* ipcpool: spins until the records made so far completed (at most MOCK_IPC_WAIT_NS) */
        uint64_t seq = __atomic_load_n(&ev->ipc->recorded, __ATOMIC_ACQUIRE), end = sc_now_ns() + MOCK_IPC_WAIT_NS;
        while (__atomic_load_n(&ev->ipc->completed, __ATOMIC_ACQUIRE) < seq && sc_now_ns() < end)
            ;
        release_at_sync();
        return context_error();
    }
    if (ev->capture)
        return captured_event(ev);
    if (ev->stream && (ev->flags & SC_EV_BLOCKING_SYNC))
        wait_done(ev->stream, ev->target);
    else if (ev->stream) /* spins, as a CUDA thread waits by default on a machine with cores to spare */
        while (__atomic_load_n(&ev->stream->done, __ATOMIC_ACQUIRE) < ev->target)
            ;
    release_at_sync();
    flush_managed();
    return context_error();
}
static int event_query(void *e)
{
    struct mevent *ev = e;
    int err = context_error();
    if (!err && ev->ipc) /* ipcpool */
        return __atomic_load_n(&ev->ipc->completed, __ATOMIC_ACQUIRE) >=
                       __atomic_load_n(&ev->ipc->recorded, __ATOMIC_ACQUIRE) ? 0 : SC_NOT_READY;
    if (!err && ev->capture)
        return captured_event(ev);
    return err ? err : !ev->stream || done_of(ev->stream) >= ev->target ? 0 : not_ready();
}
/* Waits for every stream of context c (NULL: the primary, with its green contexts' streams, "If the current
 * context is the primary context, green contexts that have been created will also be synchronized", unless
 * the break green_unsynced); spins: polls, as CUDA's spin-wait does. */
static void sync_streams(struct mctx *c, int spins)
{
    struct mstream *all[256];
    uint64_t target[256];
    int n = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s && n < 256; s = s->next_all)
        if (s->ctx == c || (!c && s->ctx && s->ctx->green && !breaks("green_unsynced"))) {
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
    flush_managed();
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
static int condition_fails(const void *a) { return !condition_holds(a); }
static void run_wait_value(void *a)
{
    struct memop_args *m = a;
    waiting_for(condition_fails, m);
    for (uint64_t until = sc_now_ns() + 20000000000u; !condition_holds(m) && sc_now_ns() < until;)
        sc_pause_ns(50000);
    waiting_over();
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
    if (is_managed(a) && !breaks("memop_managed")) /* um: documented: no pointer to managed memory */
        return refuse(1); /* invalid value */
    if (breaks("stream_wait_noop") && bits == 32)
        return 0;
    return memop(s, run_wait_value, a, v, cond, bits);
}
static int write_value(void *s, void *a, uint64_t v, unsigned flags, int bits)
{
    if (is_managed(a) && !breaks("memop_managed")) /* um: documented: no pointer to managed memory */
        return refuse(1); /* invalid value */
    if (flags & SC_WRITE_NO_BARRIER) /* as the v2 API NVIDIA's driver exports: the flag is refused */
        return refuse(1); /* invalid value */
    return memop(s, run_write_value, a, v, 0, bits);
}
static int batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits)
{
    if ((is_managed(wait_dev) || is_managed(write_dev)) && !breaks("memop_managed")) /* um */
        return refuse(1); /* invalid value */
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
 * poolreuse: a pool that keeps its memory (keep_memory) makes the memory of a completed free available at the
 * next synchronize (stream, event or context), and hands it to the next allocation of its size in any stream,
 * whatever its reuse policies (the Programming Guide, Synchronization API Actions); an exportable pool's
 * shared memory is never handed out again.  Its used bytes (CU_MEMPOOL_ATTR_USED_MEM_CURRENT) are those of its
 * allocations whose free has not run.  A pool at its maximum size (SC_POOL_MAX_ONE: 4 MiB) that has no memory
 * a free made available hands out memory whose free is still pending, after making the allocating stream wait
 * for the freeing stream's work so far (the Programming Guide, cudaMemPoolReuseAllowInternalDependencies;
 * the break internal_deps_missing: without the wait); with internal dependencies off it is out of memory.
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
    int shared;             /* ipcpool: mem is part of its pool's shared memory, not a mapping of its own */
    int available;          /* poolreuse: its free ran and a synchronize came after: any allocation may take it */
    void *free_stream;      /* poolreuse: the stream its last free was enqueued to */
};
struct mpool {
    unsigned flags;         /* SC_POOL_* */
    unsigned access;        /* poolaccess: the devices granted read-write access besides its own (bit D) */
    uint64_t reserved;      /* bytes of its blocks */
    struct mblock *blocks;
    struct mpool *next;     /* every pool alive */
    /* ipcpool: an exportable pool's memory is a memfd, handed out in order and never reused; an imported
     * pool maps the exporter's (the file descriptor it was given) */
    int ipc_fd;
    char *ipc_base;
    size_t ipc_size, ipc_used;
    void *private_copy;     /* the break ipc_pool_private: the importer's own memory */
    uint64_t used;          /* poolreuse: bytes of its blocks handed out whose free has not run */
};
#define MOCK_IPC_POOL_BYTES (64u << 20) /* an exportable pool's memory (sparse) */
struct mpool_export { /* a CUmemPoolPtrExportData's 64 bytes, as the mock fills them */
    uint32_t magic;
    uint64_t offset, n;
};
static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mpool *pools;
static void release_blocks(struct mpool *pl, uint64_t keep);
static int default_pool(void **pool) { (void)pool; return SC_UNSUPPORTED; }
static int pool_create(void **pool, unsigned flags)
{
    struct mpool *pl = calloc(1, sizeof *pl);
    pl->flags = flags;
    pl->ipc_fd = -1;
    if ((flags & SC_POOL_IPC) && quirks("no_ipc_pools")) { /* legal: CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES 0 */
        free(pl);
        return SC_UNSUPPORTED;
    }
    if (flags & SC_POOL_IPC) { /* ipcpool */
        if ((pl->ipc_fd = memfd_create("streamcts-mock-pool", MFD_CLOEXEC)) < 0 ||
            ftruncate(pl->ipc_fd, MOCK_IPC_POOL_BYTES) || !(pl->ipc_base = shared_map(pl->ipc_fd, MOCK_IPC_POOL_BYTES))) {
            if (pl->ipc_fd >= 0)
                close(pl->ipc_fd);
            free(pl);
            return 2; /* out of memory */
        }
        pl->ipc_size = MOCK_IPC_POOL_BYTES;
    }
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
        if (!b->shared)
            munmap(b->mem, b->n + MOCK_BLOCK_HEADER);
        free(b);
    }
    if (pl->ipc_base) { /* ipcpool */
        munmap(pl->ipc_base, pl->ipc_size);
        close(pl->ipc_fd);
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
/* poolreuse: the bytes of allocations whose free has not run; the break used_counts_freed: the reserved bytes,
 * used_uncounted: none */
static int pool_used(void *pool, uint64_t *bytes)
{
    struct mpool *pl = pool;
    if (!pl)
        return SC_UNSUPPORTED;
    pthread_mutex_lock(&pools_mu);
    *bytes = breaks("used_counts_freed") ? pl->reserved : breaks("used_uncounted") ? 0 : pl->used;
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
/* A synchronize: pools with the release threshold 0 release their completed frees; the others (poolreuse) make
 * that memory available to any allocation (the break reuse_never: to none) */
static void release_at_sync(void)
{
    pthread_mutex_lock(&pools_mu);
    for (struct mpool *pl = pools; pl; pl = pl->next)
        if (!(pl->flags & SC_POOL_KEEP_MEMORY))
            release_blocks(pl, 0);
        else if (!breaks("reuse_never"))
            for (struct mblock *b = pl->blocks; b; b = b->next)
                b->available |= b->freed && !b->shared;
    pthread_mutex_unlock(&pools_mu);
}
/* The caller holds pools_mu.  pginv: an exportable (ipc) pool releases nothing, as NVIDIA's driver does today
 * (the Programming Guide, IPC Export Pool Limitations); the break ipc_pool_releases: it releases as any other. */
static void release_blocks(struct mpool *pl, uint64_t keep)
{
    if ((pl->flags & SC_POOL_IPC) && !breaks("ipc_pool_releases"))
        return;
    for (struct mblock **at = &pl->blocks, *b; (b = *at);)
        if (b->freed && (breaks("trim_below_min") || pl->reserved - b->n >= keep)) {
            *at = b->next;
            pl->reserved -= b->n;
            if (!b->shared)
                munmap(b->mem, b->n + MOCK_BLOCK_HEADER);
            free(b);
        } else
            at = &b->next;
}
static int pool_trim(void *pool) { return pool_trim_to(pool, 0); }
/* ctxalloc: an imported pool makes no allocation (invalid value); the break imported_pool_allocates: it does
 * (and frees it at once) */
/* poolaccess: the mock's one device owns every pool; its own access stays, others' follow the grants */
static int pool_set_access(void *pool, int dev, int access)
{
    struct mpool *pl = pool;
    if (!pl || dev < 0 || dev >= SC_MAX_DEVICES)
        return SC_UNSUPPORTED;
    if (dev != 0)
        pl->access = access == SC_ACCESS_READWRITE ? pl->access | 1u << dev : pl->access & ~(1u << dev);
    return 0;
}
static int pool_get_access(void *pool, int dev, int *readwrite)
{
    struct mpool *pl = pool;
    if (!pl || dev < 0 || dev >= SC_MAX_DEVICES)
        return SC_UNSUPPORTED;
    *readwrite = dev == 0 || (pl->access >> dev & 1u);
    return 0;
}
static int alloc_imported(void *pool, size_t n, void *s)
{
    (void)n, (void)s;
    if (!pool)
        return SC_UNSUPPORTED;
    return breaks("imported_pool_allocates") ? 0 : refuse(1);
}
/* pginv: a launch with more threads per block than a device allows is refused (invalid value); the break
 * launch_unchecked runs it as any launch */
static int launch_invalid(void *s, void *slot, uint32_t token)
{
    return breaks("launch_unchecked") ? launch_mark(s, slot, token) : refuse(1);
}
/* pginv: only a pool made exportable (SC_POOL_IPC) exports; the break export_any_pool: any created pool does.
 * The mock has no default pool, so the default pool's export is never asked of it. */
static int pool_export(void *pool)
{
    struct mpool *pl = pool;
    if (!pl)
        return SC_UNSUPPORTED;
    return (pl->flags & SC_POOL_IPC) || breaks("export_any_pool") ? 0 : refuse(1);
}
/* allocmisc: is p memory an allocation of a pool handed out (the stream-ordered allocator's)? */
static int pool_memory(const void *p)
{
    int found = 0;
    pthread_mutex_lock(&pools_mu);
    for (struct mpool *pl = pools; pl && !found; pl = pl->next)
        for (struct mblock *b = pl->blocks; b && !found; b = b->next)
            found = (const char *)b->mem + MOCK_BLOCK_HEADER == (const char *)p;
    pthread_mutex_unlock(&pools_mu);
    return found;
}
static int alloc_async(void **p, size_t n, void *pool, void *s)
{
    struct mpool *pl = pool;
    struct mblock *b;
    /* fresh memory: usable at once, so in any stream order (poolreuse: s waits only for a reused pending free) */
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
    /* poolreuse: memory a synchronize made available, in whichever stream it was freed */
    pthread_mutex_lock(&pools_mu);
    for (b = pl->blocks; b && !(b->available && b->n == n); b = b->next)
        ;
    if (b) {
        b->available = b->freed = b->free_enqueued = 0, b->handed++;
        pl->used += n;
    }
    pthread_mutex_unlock(&pools_mu);
    if (b) {
        *p = (char *)b->mem + MOCK_BLOCK_HEADER;
        return 0;
    }
    if ((pl->flags & SC_POOL_MAX_ONE) && pl->reserved + n > SC_TRIM_KEEP_BYTES) { /* poolreuse: a full pool */
        void *from = NULL, *ev = NULL;
        pthread_mutex_lock(&pools_mu);
        for (b = pl->blocks; b && !(b->free_enqueued && b->n == n); b = b->next)
            ;
        if (b && !(pl->flags & SC_POOL_NO_INTERNAL_DEPS)) {
            from = b->freed ? NULL : b->free_stream; /* a free that ran needs no dependency */
            pl->used += b->freed ? n : 0;            /* a pending free's bytes pass to the new owner */
            b->freed = b->free_enqueued = 0, b->handed++;
        } else
            b = NULL;
        pthread_mutex_unlock(&pools_mu);
        if (!b)
            return refuse(2); /* out of memory */
        if (from && !breaks("internal_deps_missing")) { /* the dependency: s waits for the free's stream so far */
            event_create(&ev, SC_EV_DISABLE_TIMING);
            event_record(ev, from);
            stream_wait_event(s, ev, 0);
        }
        *p = (char *)b->mem + MOCK_BLOCK_HEADER;
        return 0;
    }
    b = calloc(1, sizeof *b);
    if (pl->ipc_base) { /* ipcpool: the pool's shared memory, in order */
        pthread_mutex_lock(&pools_mu);
        size_t at = pl->ipc_used;
        pl->ipc_used += (n + MOCK_BLOCK_HEADER + 4095u) & ~(size_t)4095u;
        pthread_mutex_unlock(&pools_mu);
        if (at + n + MOCK_BLOCK_HEADER > pl->ipc_size) {
            free(b);
            return refuse(2); /* out of memory */
        }
        b->mem = pl->ipc_base + at, b->shared = 1;
    } else /* fresh pages, untouched: calloc zeroed a 4 MiB block the heap reused, 17 ms on a loaded machine */
        b->mem = mmap(NULL, n + MOCK_BLOCK_HEADER, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    b->n = n, b->pool = pl;
    *(struct mblock **)b->mem = b; /* free_async finds the block in front of the memory */
    pthread_mutex_lock(&pools_mu);
    b->next = pl->blocks;
    pl->blocks = b;
    pl->reserved += n;
    pl->used += n; /* poolreuse */
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
    if (f->block->handed == f->handed && !f->block->freed) {
        f->block->freed = 1;
        f->block->pool->used -= f->block->n; /* poolreuse */
    }
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
    f->block->free_stream = s; /* poolreuse */
    f->handed = f->block->handed;
    pthread_mutex_unlock(&pools_mu);
    enqueue(s, ITEM_FN, run_free, f, NULL, 0, 1); /* the item owns f */
    return 0;
}
/*
 * ipcpool: an exportable pool shared with another process.  The export is a duplicate of the pool's memfd and
 * the allocation's offset in it; the importer maps the memfd and finds the allocation there, so both processes
 * see one memory.  The break ipc_pool_private: the importer gets fresh zeroed memory of its own instead.
 */
static int ipc_pool_export(void *pool, void *ptr, int *fd, void *data)
{
    struct mpool *pl = pool;
    *fd = -1;
    if (!pl || !pl->ipc_base)
        return SC_UNSUPPORTED; /* not exportable */
    char *p = ptr;
    if (p < pl->ipc_base + MOCK_BLOCK_HEADER || p >= pl->ipc_base + pl->ipc_size)
        return refuse(1); /* invalid value: not an allocation of this pool */
    struct mpool_export ex = { MOCK_IPC_MAGIC, (uint64_t)(p - pl->ipc_base),
                               (*(struct mblock **)(p - MOCK_BLOCK_HEADER))->n };
    memset(data, 0, SC_IPC_HANDLE_BYTES);
    memcpy(data, &ex, sizeof ex);
    return (*fd = fcntl(pl->ipc_fd, F_DUPFD_CLOEXEC, 0)) < 0 ? refuse(2) : 0;
}
static int ipc_pool_import(void **pool, void **ptr, int fd, const void *data)
{
    struct mpool_export ex;
    struct stat st;
    *pool = *ptr = NULL;
    memcpy(&ex, data, sizeof ex);
    if (fstat(fd, &st) || ex.magic != MOCK_IPC_MAGIC || ex.offset + ex.n > (uint64_t)st.st_size)
        return refuse(1); /* invalid value */
    struct mpool *pl = calloc(1, sizeof *pl);
    pl->ipc_fd = -1;
    pl->ipc_size = (size_t)st.st_size;
    if (!(pl->ipc_base = shared_map(fd, pl->ipc_size))) {
        free(pl);
        return refuse(2);
    }
    *pool = pl;
    if (breaks("ipc_pool_private")) /* broken: memory of its own, not the exporter's */
        *ptr = pl->private_copy = calloc(1, ex.n);
    else
        *ptr = pl->ipc_base + ex.offset;
    /* its pages mapped now, not at the first write (a GPU's imported memory is mapped by the import) */
    for (size_t at = 0; at < ex.n; at += 4096)
        ((volatile char *)*ptr)[at] = ((volatile char *)*ptr)[at];
    return 0;
}
static int ipc_pool_close(void *pool, void *ptr)
{
    struct mpool *pl = pool;
    (void)ptr;
    if (!pl)
        return 0;
    munmap(pl->ipc_base, pl->ipc_size);
    free(pl->private_copy);
    free(pl);
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
    /* nodes: child clones and executable nodes are kept, as streams are (a launch may still read them) */
    free(gr->built ? NULL : gr);
    return 0;
}
/* Stream st joins capture cap (the caller holds the registry lock): its clock starts empty. */
static void join_capture(struct mgraph *cap, struct mstream *st)
{
    if (cap->nmembers == MOCK_CAPTURE_STREAMS)
        abort(); /* no program has that many streams in one capture */
    st->capture = cap;
    st->cap_index = cap->nmembers;
    cap->members[cap->nmembers++] = st;
    memset(st->clock, 0, sizeof st->clock);
    st->cap_nodes = 0;
}
static int capture_begin(void *s, int mode)
{
    struct mstream *st = resolve(s);
    (void)mode; /* modes are not modelled */
    pthread_mutex_lock(&registry);
    int rc = st == legacy || st->capture ? refuse(1) : 0;
    if (rc == 0) {
        static uint64_t ids;
        struct mgraph *cap = calloc(1, sizeof *cap);
        cap->id = breaks("capture_id_reused") ? 1 : ++ids;
        cap->origin = st;
        join_capture(cap, st);
    }
    pthread_mutex_unlock(&registry);
    return rc;
}
/* Does the origin's next node follow every node of every member (every fork joined back)? */
static int joined(const struct mgraph *cap)
{
    for (int m = 0; m < cap->nmembers; m++)
        for (int k = 0; k < cap->nmembers; k++)
            if (cap->members[m]->clock[k] > cap->origin->clock[k])
                return 0;
    return 1;
}
/* Ends the capture begun on s: every stream that joined it leaves it.  NULL: s began none (*rc says
 * why: it captures none, or another stream began its capture); a fork not joined back ends it too,
 * with *rc the unjoined error and its graph destroyed. */
static struct mgraph *end_capture(void *s, int *rc)
{
    struct mstream *st = resolve(s);
    int wrong_code = breaks("capture_codes");
    pthread_mutex_lock(&registry);
    struct mgraph *cap = st->capture && st->capture->origin == st ? st->capture : NULL;
    *rc = cap ? 0 : st->capture && !wrong_code ? MOCK_CAPTURE_UNMATCHED : 1;
    if (cap && !joined(cap))
        *rc = wrong_code ? 1 : MOCK_CAPTURE_UNJOINED;
    if (cap && cap->invalidated)
        *rc = MOCK_CAPTURE_INVALIDATED;
    for (struct mstream *o = all_list; cap && o; o = o->next_all)
        if (o->capture == cap)
            o->capture = NULL;
    if (cap)
        cap->origin = NULL; /* a record of it is no longer a point to join */
    pthread_mutex_unlock(&registry);
    if (cap && *rc) {
        graph_destroy(cap);
        cap = NULL;
    }
    if (*rc)
        refuse(*rc);
    return cap;
}
static int capture_end(void *s)
{
    int rc;
    struct mgraph *cap = end_capture(s, &rc);
    return cap ? graph_destroy(cap) : rc;
}
static int capture_keep(void *s, void **graph)
{
    int rc;
    struct mgraph *cap = end_capture(s, &rc);
    if (cap)
        *graph = cap;
    return rc;
}
/* ---- nodes: graphs built by hand --------------------------------------------
 * A launch runs each node on a stream of its own, after the launch stream's
 * earlier work (and the graph's previous launch) and after the nodes its
 * edges come from; the launch stream's later work waits for every node.  So
 * nodes no edge orders run concurrently, as on a GPU. */
static int graph_new(void **g)
{
    struct mgraph *gr = calloc(1, sizeof *gr);
    gr->built = 1;
    *g = gr;
    return 0;
}
static struct mgraph *clone_graph(const struct mgraph *from)
{
    struct mgraph *gr = malloc(sizeof *gr);
    *gr = *from;
    gr->exec = NULL;
    gr->pending = NULL;
    for (int k = 0; k < gr->nnodes; k++)
        if (gr->nodes[k].child)
            gr->nodes[k].child = clone_graph(gr->nodes[k].child);
    return gr;
}
static int node_add(void *g, const struct sc_node_params *np, void **node)
{
    struct mgraph *gr = g;
    if (!gr->built || gr->nnodes == MOCK_NODES || (np->kind == 0 && !((struct mgraph *)np->child)->built))
        return refuse(1);
    if (np->kind == SC_NODE_MEMSET && pool_memory(np->dst) && !breaks("memset_node_pool"))
        return refuse(1); /* allocmisc: a memset node "does not work with" stream-ordered memory */
    struct mnode *n = &gr->nodes[gr->nnodes++];
    memset(n, 0, sizeof *n);
    n->np = *np;
    if (np->kind == 0) /* documented: the child graph is cloned in this call (child_reference: it is not) */
        n->child = breaks("child_reference") ? np->child : clone_graph(np->child);
    *node = n;
    return 0;
}
static int cyclic(const struct mgraph *gr);
static int edge_add(void *g, void *from, void *to)
{
    struct mgraph *gr = g;
    struct mnode *a = from, *b = to;
    if (a < gr->nodes || a >= gr->nodes + gr->nnodes || b < gr->nodes || b >= gr->nodes + gr->nnodes || a == b ||
        b->ndeps == MOCK_DEPS)
        return refuse(1);
    b->deps[b->ndeps++] = (int)(a - gr->nodes);
    if (quirks("edges_validated") && cyclic(gr)) { /* graphinst: the structure checked as the edge is added */
        b->ndeps--;
        return refuse(1);
    }
    return 0;
}
static int launch_built(struct mgraph *gr, void *s);
/* graphinst: do the edges of this graph, or of a child graph of it, make a cycle? */
static int cyclic(const struct mgraph *gr)
{
    int state[MOCK_NODES] = { 0 }, stack[MOCK_NODES], order = 0;
    for (int k = 0; k < gr->nnodes; k++) /* Kahn: count the nodes that can be ordered */
        state[k] = gr->nodes[k].ndeps;
    for (int k = 0; k < gr->nnodes; k++)
        if (state[k] == 0)
            stack[order++] = k;
    for (int top = 0; top < order; top++)
        for (int k = 0; k < gr->nnodes; k++)
            for (int j = 0; j < gr->nodes[k].ndeps; j++)
                if (gr->nodes[k].deps[j] == stack[top] && --state[k] == 0)
                    stack[order++] = k;
    for (int k = 0; k < gr->nnodes && order == gr->nnodes; k++)
        if (gr->nodes[k].child && cyclic(gr->nodes[k].child))
            return 1;
    return order != gr->nnodes;
}
/* An upload is stream work that runs none of the graph's nodes (upload_runs: it runs them all).  A cycle is
 * refused ("Instantiation failed due to invalid structure, such as cycles"; instantiate_cycle: accepted). */
static int graph_instantiate(void *g, int upload, void *s)
{
    struct mgraph *gr = g;
    if (!gr->built || gr->exec || (cyclic(gr) && !breaks("instantiate_cycle")))
        return refuse(1);
    gr->exec = malloc(sizeof gr->nodes);
    memcpy(gr->exec, gr->nodes, sizeof gr->nodes);
    if (upload && breaks("upload_runs"))
        return launch_built(gr, s);
    if (upload)
        enqueue(s, ITEM_FN, NULL, NULL, NULL, 0, 0);
    return 0;
}
/* graphinst: cuGraphInstantiateWithParams; result_out INVALID_STRUCTURE for a cycle */
static int graph_instantiate_with(void *g, unsigned flags, int *result)
{
    struct mgraph *gr = g;
    int rc;
    *result = gr->built && !gr->exec && cyclic(gr) && !breaks("instantiate_cycle") ? SC_INSTANTIATE_INVALID_STRUCTURE
                                                                                     : 1; /* ..._ERROR */
    if ((rc = graph_instantiate(g, 0, NULL)))
        return rc;
    *result = SC_INSTANTIATE_SUCCESS;
    gr->auto_free = (flags & SC_INSTANTIATE_AUTO_FREE) != 0;
    return 0;
}
static int exec_update(void *g, void *from)
{
    struct mgraph *gr = g, *src = from;
    if (!gr->exec || !src->built)
        return refuse(1);
    if (breaks("exec_update_topology")) /* accepted, whatever the topology */
        return 0;
    if (src->nnodes != gr->nnodes) /* the topology changed */
        return refuse(MOCK_EXEC_UPDATE_FAILURE);
    for (int k = 0; k < gr->nnodes; k++)
        if (src->nodes[k].np.kind != gr->exec[k].np.kind || src->nodes[k].ndeps != gr->exec[k].ndeps ||
            memcmp(src->nodes[k].deps, gr->exec[k].deps, sizeof src->nodes[k].deps))
            return refuse(MOCK_EXEC_UPDATE_FAILURE);
    if (breaks("exec_update"))
        return 0;
    if (gr->pending && breaks("exec_update_pending")) /* the update reaches the pending launch: its old nodes are lost */
        gr->pending->dead = 1;
    for (int k = 0; k < gr->nnodes; k++) { /* the launches already enqueued hold copies of the old ones */
        gr->exec[k].np = src->nodes[k].np;
        if (src->nodes[k].child)
            gr->exec[k].child = clone_graph(src->nodes[k].child);
    }
    return 0;
}
static int exec_destroy(void *g)
{
    struct mgraph *gr = g;
    if (!gr->exec)
        return refuse(1);
    if (gr->pending && breaks("exec_destroy"))
        gr->pending->dead = 1;
    gr->exec = NULL; /* the nodes stay: a pending launch's items are its own copies */
    return 0;
}

struct node_run {
    struct mlaunch *launch;
    void (*fn)(void *);
    void *arg;
    int owned; /* arg is the node_run's */
};
static void run_node(void *a)
{
    struct node_run *nr = a;
    if (!__atomic_load_n(&nr->launch->dead, __ATOMIC_ACQUIRE) && nr->fn)
        nr->fn(nr->arg);
    if (nr->owned)
        free(nr->arg);
}
/* Appends one item of a node to stream ns (the registry lock held); returns its position. */
static uint64_t node_item(struct mstream *ns, struct mlaunch *l, void (*fn)(void *), void *arg, int owned)
{
    struct node_run *nr = malloc(sizeof *nr);
    *nr = (struct node_run){ l, fn, arg, owned };
    return push(ns, ITEM_FN, run_node, nr, NULL, 0, 1);
}
struct dep {
    struct mstream *s;
    uint64_t pos;
};
/* One node but a child graph node, enqueued on ns (the registry lock held); returns its last item. */
static uint64_t node_work(struct mstream *ns, struct mnode *nd, struct mlaunch *l)
{
    switch (nd->np.kind) {
    case SC_NODE_GATE: return node_item(ns, l, run_gate, gate_args_of(&nd->np), 1);
    case SC_NODE_KERNEL: return node_item(ns, l, run_mark, gate_args_of(&nd->np), 1);
    case SC_NODE_HOST: callers_fn_add(nd->np.fn); return node_item(ns, l, nd->np.fn, nd->np.arg, 0);
    case SC_NODE_MEMSET:
    case SC_NODE_MEMCPY: return node_item(ns, l, run_copy, copy_args_of(&nd->np), 1);
    case SC_NODE_ALLOC: return node_item(ns, l, NULL, NULL, 0); /* graphinst: its memory is set aside at the launch */
    case SC_NODE_RECORD: {
        struct mevent *ev = nd->np.event;
        uint64_t pos = node_item(ns, l, run_record, ev, 0);
        if (!breaks("record_node")) /* the event now captures this node's dependencies */
            ev->capture = NULL, ev->stream = ns, ev->target = pos;
        return pos;
    }
    default: { /* SC_NODE_WAIT: the work the event's last record captured */
        struct mevent *ev = nd->np.event;
        if (ev->stream && !breaks("wait_node"))
            push(ns, ITEM_WAIT, NULL, NULL, ev->stream, ev->target, 0);
        return node_item(ns, l, NULL, NULL, 0);
    }
    }
}

/* The break edges: every node on one stream after `roots`, in the reverse of the order they were added
 * (a node that depends on another runs before it). */
static void launch_reversed(struct mnode *nodes, int n, const struct dep *roots, int nroots, struct mlaunch *l)
{
    struct mstream *ns = new_stream(KIND_NONBLOCKING);
    pthread_mutex_lock(&registry);
    for (int r = 0; r < nroots; r++)
        push(ns, ITEM_WAIT, NULL, NULL, roots[r].s, roots[r].pos, 0);
    for (int k = n - 1; k >= 0; k--) {
        struct mnode *nd = &nodes[k];
        uint64_t pos;
        if (nd->np.kind == 0) { /* a child graph: its nodes after what this stream has so far */
            struct dep here = { ns, ns->enq };
            pthread_mutex_unlock(&registry);
            launch_reversed(nd->child->nodes, nd->child->nnodes, &here, 1, l);
            pthread_mutex_lock(&registry);
            for (int c = 0; c < nd->child->nnodes; c++)
                push(ns, ITEM_WAIT, NULL, NULL, nd->child->nodes[c].ran_on, nd->child->nodes[c].ran_at, 0);
            pos = node_item(ns, l, NULL, NULL, 0);
        } else
            pos = node_work(ns, nd, l);
        nd->ran_on = ns, nd->ran_at = pos;
    }
    pthread_mutex_unlock(&registry);
}

/* Enqueues the nodes of one graph, each on a stream of its own after `roots` (n of them) and the nodes its
 * edges come from. */
static void launch_nodes(struct mnode *nodes, int n, const struct dep *roots, int nroots, struct mlaunch *l)
{
    int done[MOCK_NODES] = { 0 };
    if (breaks("edges")) {
        launch_reversed(nodes, n, roots, nroots, l);
        return;
    }
    for (int left = n; left > 0; left--) {
        int k = 0;
        for (; k < n; k++) { /* a node whose dependencies were all enqueued */
            int ready = !done[k];
            for (int j = 0; j < nodes[k].ndeps && ready; j++)
                ready = done[nodes[k].deps[j]];
            if (ready)
                break;
        }
        if (k == n)
            return; /* a cycle: instantiation would have refused it */
        struct mnode *nd = &nodes[k];
        struct mstream *ns = new_stream(KIND_NONBLOCKING);
        struct dep mine[MOCK_DEPS + 8];
        int nmine = 0;
        uint64_t pos;
        for (int r = 0; r < nroots; r++)
            mine[nmine++] = roots[r];
        for (int j = 0; j < nd->ndeps; j++)
            mine[nmine++] = (struct dep){ nodes[nd->deps[j]].ran_on, nodes[nd->deps[j]].ran_at };
        if (nd->np.kind == 0) { /* a child graph: its nodes after this node's dependencies; it completes with them */
            int broken = breaks("child_node"); /* its nodes wait only for the launch's start */
            launch_nodes(nd->child->nodes, nd->child->nnodes, broken ? roots : mine, broken ? nroots : nmine, l);
            pthread_mutex_lock(&registry);
            for (int c = 0; c < nd->child->nnodes; c++)
                push(ns, ITEM_WAIT, NULL, NULL, nd->child->nodes[c].ran_on, nd->child->nodes[c].ran_at, 0);
            pos = node_item(ns, l, NULL, NULL, 0);
        } else {
            pthread_mutex_lock(&registry);
            for (int j = 0; j < nmine; j++)
                push(ns, ITEM_WAIT, NULL, NULL, mine[j].s, mine[j].pos, 0);
            pos = node_work(ns, nd, l);
        }
        nd->ran_on = ns, nd->ran_at = pos;
        pthread_mutex_unlock(&registry);
        done[k] = 1;
    }
}
static int launch_built(struct mgraph *gr, void *s)
{
    struct mstream *st = resolve(s);
    struct mlaunch *l = calloc(1, sizeof *l); /* kept: its items may outlive the executable graph */
    struct dep start;
    int allocates = 0;
    if (!gr->exec)
        return refuse(1);
    for (int k = 0; k < gr->nnodes; k++)
        allocates |= gr->exec[k].np.kind == SC_NODE_ALLOC;
    /* graphinst: "If any allocations created by hGraphExec remain unfreed (from a previous launch) and hGraphExec
     * was not instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, the launch will fail with
     * CUDA_ERROR_INVALID_VALUE" (unfreed_relaunch: it does not; auto_free: the flag frees nothing) */
    if (allocates && gr->unfreed && (!gr->auto_free || breaks("auto_free")) && !breaks("unfreed_relaunch"))
        return refuse(1);
    gr->unfreed = allocates;
    if (breaks("replay_once") && gr->launched++)
        return 0;
    /* the start: behind the stream's earlier work (and the legacy stream's rules) and the previous launch */
    start.s = st;
    start.pos = gr->last ? enqueue(st, ITEM_WAIT, NULL, NULL, gr->last, gr->last_pos, 0)
                         : enqueue(st, ITEM_FN, NULL, NULL, NULL, 0, 0);
    launch_nodes(gr->exec, gr->nnodes, &start, !breaks("replay"), l); /* replay: the nodes wait for nothing */
    pthread_mutex_lock(&registry);
    uint64_t end = start.pos;
    for (int k = 0; k < gr->nnodes && !breaks("replay"); k++) /* the stream's later work waits for every node */
        end = push(st, ITEM_WAIT, NULL, NULL, gr->exec[k].ran_on, gr->exec[k].ran_at, 0);
    pthread_mutex_unlock(&registry);
    gr->last = st, gr->last_pos = end;
    gr->pending = l;
    return 0;
}

static int graph_replay(void *g, void *s)
{
    struct mgraph *gr = g;
    if (gr->built)
        return launch_built(gr, s);
    struct mstream *st = breaks("replay") ? NULL : resolve(s);
    uint64_t pos = 0;
    if (breaks("replay_once") && gr->launched++)
        return 0;
    if (st && gr->last) /* behind its previous launch */
        pos = enqueue(st, ITEM_WAIT, NULL, NULL, gr->last, gr->last_pos, 0);
    for (struct item *it = gr->head; it; it = it->next) {
        void *on = st ? (void *)st : new_stream(KIND_NONBLOCKING);
        struct mevent *ev = it->arg;
        if (it->type == ITEM_RECORD_EXTERNAL && !breaks("external")) { /* each launch records the event */
            pos = enqueue(on, ITEM_FN, run_record, ev, NULL, 0, 0);
            ev->capture = NULL, ev->stream = resolve(on), ev->target = pos;
        } else if (it->type == ITEM_WAIT_EXTERNAL && !breaks("external")) { /* ... waits on it as it is now */
            if (ev->stream)
                pos = enqueue(on, ITEM_WAIT, NULL, NULL, ev->stream, ev->target, 0);
        } else if (it->type == ITEM_FN || it->type == ITEM_WAIT)
            pos = enqueue(on, it->type, it->fn, it->arg, it->on, it->target, 0);
    }
    if (st && pos)
        gr->last = st, gr->last_pos = pos;
    return 0;
}
static int capture_status(void *s, int *status)
{
    struct mstream *st = resolve(s);
    struct mgraph *cap;
    if (st->kind == KIND_LEGACY && (cap = blocking_capture())) { /* documented: implicit, status unspecified */
        if (breaks("legacy_query_invalidates"))
            cap->invalidated = 1;
        *status = SC_CAPTURE_NONE;
        return refuse(MOCK_CAPTURE_IMPLICIT);
    }
    pthread_mutex_lock(&registry);
    *status = !st->capture ? SC_CAPTURE_NONE : st->capture->invalidated ? SC_CAPTURE_INVALIDATED : SC_CAPTURE_ACTIVE;
    pthread_mutex_unlock(&registry);
    return 0;
}
/* A node captured in s (the registry lock held): the next node of s follows it. */
static void capture_node(struct mgraph *cap, struct mstream *s)
{
    uint32_t n = ++s->cap_nodes;
    s->clock[s->cap_index] = n;
    if (n <= MOCK_SNAPS)
        memcpy(cap->snap[s->cap_index][n - 1], s->clock, sizeof s->clock);
}
/* The size of the dependency set of s: the last node it follows of each member, unless another of those
 * nodes followed that one (the registry lock held). */
static size_t dependencies(const struct mgraph *cap, const struct mstream *s)
{
    size_t n = 0;
    for (int k = 0; k < cap->nmembers; k++) {
        int redundant = 0;
        for (int j = 0; j < cap->nmembers && s->clock[k] && !redundant; j++)
            redundant = j != k && s->clock[j] && s->clock[j] <= MOCK_SNAPS && cap->snap[j][s->clock[j] - 1][k] >= s->clock[k];
        n += s->clock[k] && !redundant;
    }
    return n;
}
static int capture_info(void *s, int *status, uint64_t *id, size_t *ndeps)
{
    static uint64_t calls;
    int rc = capture_status(s, status);
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    *id = 0, *ndeps = 0;
    if (rc == 0 && *status == SC_CAPTURE_ACTIVE) {
        *id = breaks("capture_id_per_call") ? 1000 + ++calls : st->capture->id;
        *ndeps = breaks("capture_deps_stale") ? 0 : dependencies(st->capture, st);
    }
    pthread_mutex_unlock(&registry);
    return rc;
}
/* the next node captured in s depends on nothing; a stream that is not capturing: CUDA_ERROR_ILLEGAL_STATE */
static int capture_sever(void *s)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    int capturing = st->capture != NULL;
    if (capturing && !breaks("sever_ignored"))
        memset(st->clock, 0, sizeof st->clock);
    pthread_mutex_unlock(&registry);
    return capturing ? 0 : refuse(1);
}
static int thread_capture_relaxed(void) { return 0; }
static int stream_id(void *s, uint64_t *id) { *id = (uint64_t)(uintptr_t)resolve(s); return 0; }
/* Of the primary context's actions only a pop after a created context was made current is modelled. */
static int ctx_action(int action)
{
    if (action != SC_CTX_POP || !cur_ctx)
        return SC_UNSUPPORTED;
    if (cur_ctx->by_create && breaks("pop_keeps_created"))
        return 0; /* broken: the created context stays current */
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
/* green: cuCtxCreate during the case: the new context is current to the calling thread after it (the break
 * ctx_create_not_current: the previous one stays current); a pop makes the primary current again. */
static int ctx_create_current(void **ctx, unsigned flags)
{
    int rc = ctx_create_flags(ctx, flags);
    struct mctx *c = *ctx;
    c->by_create = 1;
    if (!breaks("ctx_create_not_current"))
        cur_ctx = c;
    return rc;
}
/* green: green contexts (the break no_green: the device has none) and their streams, which are nonblocking */
static int green_support(char *why, size_t n)
{
    snprintf(why, n, "%s", breaks("no_green") ? "making one on device 0 answered CUDA_ERROR_NOT_SUPPORTED" : "");
    return breaks("no_green") ? SC_UNSUPPORTED : 0;
}
static int green_create(void **green)
{
    struct mctx *c = calloc(1, sizeof *c);
    c->green = 1;
    *green = c;
    return 0;
}
static int green_stream_create(void **s, void *green, int prio_set, int prio)
{
    (void)prio_set, (void)prio; /* one priority, as stream_create */
    struct mctx *was = cur_ctx;
    cur_ctx = green; /* the stream belongs to it */
    *s = new_stream(KIND_NONBLOCKING);
    cur_ctx = was;
    return 0;
}
static int green_destroy(void *green)
{
    (void)green; /* its streams' workers drain them; the memory is kept, as for contexts */
    return 0;
}
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
    if (quirks("slow_ctx_destroy"))
        sc_pause_ns(120000000u);
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
 * Device memory lives in one process, so IPC memory handles are not modelled; interprocess events and
 * exportable pools are (ipcpool). */
static int host_register(void *h, size_t n) { (void)h, (void)n; return 0; }
static int host_unregister(void *h) { (void)h; return 0; }
static int ipc_event_handle(void *e, void *h)
{
    struct mevent *ev = e;
    if (!ev->ipc)
        return refuse(1); /* invalid value: not an interprocess event */
    struct mipc_handle mh = { MOCK_IPC_MAGIC, (int32_t)getpid(), ev->ipc_fd };
    memset(h, 0, SC_IPC_HANDLE_BYTES);
    memcpy(h, &mh, sizeof mh);
    return 0;
}
static int ipc_event_open(void **e, const void *h)
{
    struct mipc_handle mh;
    memcpy(&mh, h, sizeof mh);
    int fd = mh.magic == MOCK_IPC_MAGIC ? open_foreign(mh.pid, mh.fd) : -1;
    struct mipc *ipc = fd >= 0 ? shared_map(fd, 4096) : NULL;
    if (fd >= 0)
        close(fd);
    if (!ipc)
        return refuse(1); /* invalid value */
    struct mevent *ev = calloc(1, sizeof *ev);
    ev->flags = SC_EV_INTERPROCESS | SC_EV_DISABLE_TIMING;
    ev->ctx = cur_ctx;
    ev->ipc = ipc;
    ev->ipc_fd = -1;
    *e = ev;
    return 0;
}
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
           : c == SC_CODE_ASSERT         ? MOCK_ASSERT
           : c == SC_CODE_LAUNCH_FAILED  ? MOCK_LAUNCH_FAILED
           : c == SC_CODE_EXEC_UPDATE_FAILURE ? MOCK_EXEC_UPDATE_FAILURE
           : c == SC_CODE_CAPTURE_UNMATCHED ? MOCK_CAPTURE_UNMATCHED
           : c == SC_CODE_CAPTURE_UNJOINED ? MOCK_CAPTURE_UNJOINED
           : c == SC_CODE_CAPTURED_EVENT ? MOCK_CAPTURED_EVENT
           : c == SC_CODE_NOT_PERMITTED ? MOCK_NOT_PERMITTED
           : c == SC_CODE_CAPTURE_IMPLICIT ? MOCK_CAPTURE_IMPLICIT
           : c == SC_CODE_CAPTURE_INVALIDATED ? MOCK_CAPTURE_INVALIDATED
           : c == SC_CODE_CONTEXT_IS_DESTROYED ? MOCK_CONTEXT_IS_DESTROYED
           : c == SC_CODE_INVALID_CONTEXT ? MOCK_INVALID_CONTEXT
                                         : -1;
}

static const char *error_name(int rc)
{
    return rc == SC_UNSUPPORTED ? "not modelled by the mock" : rc == SC_NOT_READY ? "MOCK_NOT_READY" : rc == MOCK_ILLEGAL_ADDRESS ? "MOCK_ILLEGAL_ADDRESS"
           : rc == MOCK_ASSERT ? "MOCK_ASSERT" : rc == MOCK_LAUNCH_FAILED ? "MOCK_LAUNCH_FAILED"
           : rc == MOCK_EXEC_UPDATE_FAILURE ? "MOCK_EXEC_UPDATE_FAILURE"
           : rc == MOCK_CAPTURE_UNMATCHED ? "MOCK_CAPTURE_UNMATCHED" : rc == MOCK_CAPTURE_UNJOINED ? "MOCK_CAPTURE_UNJOINED"
           : rc == MOCK_CAPTURED_EVENT ? "MOCK_CAPTURED_EVENT" : rc == MOCK_NOT_PERMITTED ? "MOCK_NOT_PERMITTED"
           : rc == MOCK_CAPTURE_IMPLICIT ? "MOCK_CAPTURE_IMPLICIT" : rc == MOCK_CAPTURE_INVALIDATED ? "MOCK_CAPTURE_INVALIDATED"
           : rc == MOCK_CONTEXT_IS_DESTROYED ? "MOCK_CONTEXT_IS_DESTROYED" : rc == MOCK_INVALID_CONTEXT ? "MOCK_INVALID_CONTEXT"
           : rc ? "MOCK_ERROR" : "MOCK_SUCCESS";
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

/* Every stream either idle or waiting for what has not happened (a gate, a value, another stream), or the
 * time is up: a stream whose next work can run runs it first, however long a busy machine takes to
 * schedule its worker.  The hold window's end is then a handshake with the workers, not a sleep. */
static int settle(uint64_t max_ns)
{
    uint64_t end = sc_now_ns() + max_ns;
    for (;;) {
        int runnable = 0;
        pthread_mutex_lock(&registry);
        for (struct mstream *s = all_list; s && !runnable; s = s->next_all) {
            pthread_mutex_lock(&s->mu);
            runnable = s->head && !(s->blocked && s->blocked(s->blocked_arg));
            pthread_mutex_unlock(&s->mu);
        }
        pthread_mutex_unlock(&registry);
        if (!runnable)
            return 1;
        if (sc_now_ns() >= end)
            return 0;
        sc_pause_ns(100000);
    }
}

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
