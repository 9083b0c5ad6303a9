/*
 * mock.h - what the files of the mock device share: its objects (streams and
 * their items, contexts, events, graphs), the registry of streams, the
 * breaks and quirks it was told to adopt, and each file's functions that
 * the others call.
 *
 * The mock is a CUDA stand-in on host threads, for testing the runtime
 * without a GPU.  Each stream is a queue worked by a thread of its own;
 * "device memory" is host memory.  It keeps the documented semantics the
 * rules check (stream FIFO, the legacy stream joining blocking streams,
 * per-thread streams, events and waits, host functions, synchronize and
 * query) so that linked with a generated program every case and control
 * behaves as on a GPU.  STREAMCTS_MOCK_BREAK names one promise to break, so
 * the self-tests can show that the runtime reports the violation, and
 * STREAMCTS_MOCK_QUIRK a legal behaviour to adopt, which no MUST rule may
 * fail: breaks.def lists both.  It provides both backends ("driver" and
 * "runtime" behave the same; backend.c).
 *
 * Its files: streams.c (the streams' workers, enqueueing, the legacy
 * stream's joins, synchronize, settle), launches.c (kernels, programmatic
 * launches, faults, host functions and callbacks), events.c, memory.c
 * (allocations, copies, memsets, stream memory operations, managed memory),
 * pools.c (created memory pools), capture.c (stream capture and the graphs
 * kept from it), graphs.c (graphs built by hand; graph_edit.c their executable
 * graphs edited, graph_devlaunch.c graphs launched from the device), contexts.c (created,
 * primary and green contexts), processes.c (what other processes share:
 * interprocess events and pools, MPS), errors.c (what a call answers),
 * breaks.c (the two variables), backend.c (initialisation, the tables).
 */
#ifndef MOCK_H
#define MOCK_H

#include "backend.h"
#include "clock.h"
#include "slot.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* ---- the breaks and quirks (breaks.def) ----------------------------------- */

enum mock_break {
    BREAK_NONE,
#define BREAK(name, promise) BREAK_##name,
#define QUIRK(name, behaviour)
#include "breaks.def"
#undef BREAK
#undef QUIRK
};
enum mock_quirk {
    QUIRK_NONE,
#define BREAK(name, promise)
#define QUIRK(name, behaviour) QUIRK_##name,
#include "breaks.def"
#undef BREAK
#undef QUIRK
};
/* Set once, before main, from STREAMCTS_MOCK_BREAK and STREAMCTS_MOCK_QUIRK (breaks.c). */
extern enum mock_break mock_break;
extern enum mock_quirk mock_quirk;
extern const char *mock_break_value; /* STREAMCTS_MOCK_BREAK as given, or NULL: the device's name says it */
/* breaks(name): is this promise broken?  quirks(name): is this legal behaviour adopted?  A name that is not a
 * row of breaks.def does not compile. */
#define breaks(name) (mock_break == BREAK_##name)
#define quirks(name) (mock_quirk == QUIRK_##name)

/* ---- streams and their items ----------------------------------------------- */

enum { KIND_BLOCKING, KIND_NONBLOCKING, KIND_LEGACY, KIND_PER_THREAD };
enum { ITEM_FN, ITEM_WAIT };
/* external event nodes of a capture (arg: the event), turned into a record or a wait at each launch */
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

/* A node of a graph built by hand, and one launch of an executable graph. */
#define MOCK_NODES 32
#define MOCK_DEPS 8
struct mgraph;
struct mcond;
struct mnode {
    struct sc_node_params np;  /* kind 0: a child graph node */
    struct mgraph *child;      /* its clone; a conditional node's first body */
    struct mgraph *child2;     /* a conditional node's second body, or NULL */
    struct mcond *cond;        /* a conditional node's handle, or that of a node that sets or counts it */
    int ndeps, deps[MOCK_DEPS]; /* the nodes its edges come from */
    int disabled;              /* cuGraphNodeSetEnabled(0): its launches run an empty node in its place */
    struct mstream *ran_on;    /* the last launch: where it ran ... */
    uint64_t ran_at;           /* ... and its last item there      */
};
struct mlaunch {
    int dead; /* exec_destroy (broken): its nodes that have not started are dropped */
    /* device graph launch: the graphs its nodes launched from the device, by mode, in the order launched */
    struct mgraph *faf[MOCK_NODES], *sib[MOCK_NODES], *tail[MOCK_NODES];
    int nfaf, nsib, ntail;
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
    int invalidated;            /* an invalid call (a kernel on the legacy stream) invalidated it */
    struct mstream *last;       /* the stream of its last launch, ... */
    uint64_t last_pos;          /* ... and that launch's last item    */
    /* a graph built by hand */
    int built;
    struct mnode nodes[MOCK_NODES];
    int nnodes;
    struct mnode *exec;         /* the executable graph's nodes: NULL before the instantiate */
    struct mlaunch *pending;    /* its last launch */
    uint64_t id;                /* a capture's id, unique in the process */
    /* each member's nodes (at most MOCK_SNAPS): the clock each followed, itself counted; a node another node of
     * the dependency set followed is not in the set (cuStreamGetCaptureInfo's dependencies are direct ones) */
    uint32_t snap[MOCK_CAPTURE_STREAMS][MOCK_SNAPS][MOCK_CAPTURE_STREAMS];
    /* graph memory nodes */
    int auto_free;              /* instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH */
    int unfreed;                /* a launch left its allocation unfreed (no node frees it) */
    struct mgraph *freed_by;    /* the graph a free node of which frees its allocation (itself or another), or NULL */
    /* conditional nodes: the handles made for it, whose defaults each launch applies */
    struct mcond *conds[MOCK_NODES];
    int nconds;
    /* a capture into a graph built by hand: that graph, and the node its first captured node depends on (or
     * NULL); the graph built by hand: a capture into it is under way */
    struct mgraph *into;
    struct mnode *into_dep;
    int capturing;
};
/* A node kind of the mock's own (beside enum sc_node_kind): what a capture into a graph built by hand recorded (its
 * child: the capture), run in capture order, one node of the graph (a legal serialization of its nodes). */
#define MOCK_NODE_CAPTURED 110

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
    int policy, policy_set; /* its synchronization policy (enum sc_sync_policy; 0: never set), and whether one was set */
    uint32_t cap_nodes; /* the nodes it captured so far (the last is clock[cap_index] unless the set was replaced) */
    /* what its worker waits for now (a test over arg, made under mu), NULL while it runs or idles (settle) */
    int (*blocked)(const void *arg);
    const void *blocked_arg;
    int attr_unordered; /* the break stream_attr_unordered: cuStreamSetAttribute set one of its attributes */
    int prio;           /* its priority: 0, or -1 (the quirk two_priorities) */
};

/* A created context: its own legacy stream.  A thread's current context is a stack of one: a
 * pop after a push or set of a created context makes the primary current again. */
struct mctx {
    struct mstream *legacy;
    unsigned flags;  /* SC_CTX_BLOCKING_SYNC: a thread synchronizing it sleeps, else it spins */
    int destroyed;   /* cuCtxDestroy ran; a thread it stayed current to gets CONTEXT_IS_DESTROYED */
    int green;       /* a green context of the primary (no legacy stream of its own, never current here):
                      * the primary's synchronize waits for its streams, and the primary's kernels run in them */
    int by_create;   /* made current by the ctx_create op's cuCtxCreate (the break pop_keeps_created) */
};
extern __thread struct mctx *cur_ctx; /* contexts.c */

struct mevent {
    struct mctx *ctx;       /* the context current when it was created */
    struct mctx *tracks;    /* the break ctx_record_tracks_later_work: recorded for this context (tracking 1), */
    int tracking;           /* a query answers not-ready while any of its streams is busy, work issued later included */
    struct mgraph *capture; /* recorded into this capture: a wait on it joins the capture */
    struct mstream *stream; /* NULL: never recorded */
    uint64_t target;
    uint64_t ns;            /* when the last record completed */
    unsigned flags;         /* SC_EV_*: a blocking-sync event's waiter sleeps, any other spins */
    uint32_t clock[MOCK_CAPTURE_STREAMS]; /* recorded in a capture: its stream's clock then, ... */
    int cap_index;                        /* ... and that stream's index */
    struct mipc *ipc;       /* an interprocess event's state, shared by every process that opened it */
    int ipc_fd;             /* ... the memory it lives in (a memfd), in the process that created it */
};
/*
 * An interprocess event.  Its state lives in a page of shared memory (a memfd) that every process
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

/* The registry of streams (streams.c).  Its lock makes a whole enqueue atomic (the legacy stream's joins). */
extern pthread_mutex_t registry;
extern struct mstream *blocking_list, *all_list, *legacy;

/* ---- what a call answers (errors.c) ----------------------------------------- */

#define MOCK_INVALID_HANDLE 4
#define MOCK_ILLEGAL_ADDRESS 5
#define MOCK_ASSERT 6
#define MOCK_LAUNCH_FAILED 7
#define MOCK_EXEC_UPDATE_FAILURE 8
/* the stream-capture errors, with CUDA's numbers */
#define MOCK_CAPTURE_UNMATCHED 903
#define MOCK_CAPTURE_UNJOINED 904
#define MOCK_CAPTURED_EVENT 907
#define MOCK_NOT_PERMITTED 800 /* a CUDA call from a stream callback */
#define MOCK_CAPTURE_INVALIDATED 901
#define MOCK_CAPTURE_IMPLICIT 906
#define MOCK_CONTEXT_IS_DESTROYED 709
#define MOCK_INVALID_CONTEXT 201
#define MOCK_ILLEGAL_STATE 401       /* cuStreamUpdateCaptureDependencies of a stream not capturing */
#define MOCK_CAPTURE_UNSUPPORTED 900 /* cuCtxRecordEvent / cuCtxWaitEvent while a stream of the context captures */

extern int sticky; /* the context's error, once a kernel faulted */
int refuse(int rc);
/* graphs.c: a copy of graph from (its nodes and their children), for a child node or an edited one */
struct mgraph *clone_graph(const struct mgraph *from);
/* graphs.c and graph_devlaunch.c: a position on a stream that later work waits for; the nodes of one graph
 * enqueued after roots (launch_nodes); a node that launches a graph from the device, at pos on ns
 * (device_launch); one item after the nodes and graphs given (join_nodes); a launch's tail launches, after env
 * (launch_tails) */
struct dep {
    struct mstream *s;
    uint64_t pos;
};
void launch_nodes(struct mnode *nodes, int n, const struct dep *roots, int nroots, struct mlaunch *l);
void device_launch(struct mnode *nd, struct mstream *ns, uint64_t pos, struct mlaunch *l);
struct dep join_nodes(const struct mnode *nodes, int n, struct mgraph *const *gs, int ngs, const struct dep *also);
void launch_tails(struct mlaunch *l, struct dep env);
int context_error(void);
int not_ready(void);
int last_error(int reset);
int code(enum sc_code c);
const char *error_name(int rc);

/* ---- backend.c ------------------------------------------------------------------ */

extern uint64_t mock_started_ns; /* when the mock initialised (quirk slow_at_start) */
extern int launch_blocking;      /* CUDA_LAUNCH_BLOCKING=1 when the process initialised */

/* ---- streams.c ------------------------------------------------------------------ */

uint64_t done_of(struct mstream *s);
uint64_t enq_of(struct mstream *s);
/* settle: a stream's worker says what it waits for while it waits (NULL, NULL: it waits no more) */
void waiting_for(int (*blocked)(const void *), const void *arg);
void waiting_over(void);
struct mstream *worker_stream(void); /* the stream whose worker this thread is (NULL: none) */
void callers_fn_add(void (*fn)(void *));
void wait_done(struct mstream *s, uint64_t target);
struct mstream *new_stream(int kind);
uint64_t push(struct mstream *s, int type, void (*fn)(void *), void *arg, struct mstream *on, uint64_t target,
              int owned);
struct mstream *resolve(void *h);
uint64_t enqueue(void *h, int type, void (*fn)(void *), void *arg, struct mstream *on, uint64_t target,
                 int owned);
void sync_streams(struct mctx *c, int spins);
void *builtin_stream(int which);
int stream_create(void **s, int nonblocking, int prio_set, int prio);
int priority_range(int *least, int *greatest);
int stream_get_flags(void *s, int *nonblocking);
int stream_get_priority(void *s, int *prio);
int stream_create_invalid(void);
int stream_destroy(void *s);
int stream_sync(void *s);
int stream_query(void *s);
int stream_id(void *s, uint64_t *id);
int stream_ctx(void *s, void *ctx, int *which);
int sync_policy(void *s, int set, int *policy);
int copy_attributes(void *dst, void *src);
int attach_single(void *s);
int settle(uint64_t max_ns);
int quiescent(void);
/* quiescent: device work on a thread of its own begins and ends (counted) */
void off_stream_begins(void);
void off_stream_ends(void);

/* ---- launches.c ----------------------------------------------------------------- */

extern __thread int in_callback; /* this thread runs a stream callback */
void run_gate(void *a);
void run_mark(void *a);
void run_mark_refused(void *a); /* run_mark, its slot's arg 1: a device launch refused (devlaunch_refused) */
void *gate_args_of(const struct sc_node_params *np);
int early_done(const struct item *it);
void run_callback(void *arg);
int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int wait_gate(void *s, void *flag, void *slot, uint32_t token);
int launch_mark(void *s, void *slot, uint32_t token);
int launch_library(void *s, void *slot, uint32_t token);
int launch_attr(void *s, int attr, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int stream_attr(void *s, int attr, void *window);
int launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token);
int launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token);
int launch_fault(void *s, int how);
int launch_invalid(void *s, void *slot, uint32_t token);
int host_func(void *s, void (*fn)(void *), void *arg);
int callback(void *s, const struct sc_callback *cb);

/* ---- events.c ------------------------------------------------------------------- */

int ipc_pending(const void *a); /* a stream's wait for another process's record (quiescent: not the mock's to end) */

void run_record(void *e);
int event_create(void **e, unsigned flags);
int event_destroy(void *e);
int event_record(void *e, void *s);
int event_record_external(void *e, void *s);
int stream_wait_event(void *s, void *e, unsigned flags);
int event_sync(void *e);
int event_query(void *e);
int event_elapsed(float *ms, void *start, void *end);

/* ---- memory.c ------------------------------------------------------------------- */

void flush_managed(void); /* the deferred writes of the breaks query_stale_managed, write_value_unfenced, batch_unfenced */
void fence_pending(struct mstream *s, void (*fn)(void *)); /* stream s's deferred memsets, before its item fn */
void run_copy(void *a);
void *copy_args_of(const struct sc_node_params *np);
int dev_alloc(void **p, size_t n);
int dev_free(void *p);
int host_alloc(void **p, size_t n);
int host_free(void *p);
int host_dev_ptr(void **d, void *h);
int managed_alloc(void **p, size_t n);
int memset_async(void *s, void *d, unsigned char v, size_t n);
int memset_sync(void *d, unsigned char v, size_t n);
int memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind);
int memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev);
int memcpy_sync(void *dst, const void *src, size_t n, unsigned kind);
int wait_value(void *s, void *a, uint64_t v, int cond, int bits);
int write_value(void *s, void *a, uint64_t v, unsigned flags, int bits);
int batch_barrier_write(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits);
int prefetch(void *s, void *p, size_t n, unsigned to);
int batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                     int bits, unsigned flags);

/* ---- pools.c -------------------------------------------------------------------- */

void release_at_sync(void); /* the pools' release threshold, at a synchronize */
int pool_memory(const void *p);
int default_pool(void **pool);
int pool_create(void **pool, unsigned flags);
int pool_destroy(void *pool);
int pool_reserved(void *pool, uint64_t *bytes);
int pool_used(void *pool, uint64_t *bytes);
int pool_high(void *pool, int which, uint64_t *bytes);
int pool_high_reset(void *pool);
int pool_trim_to(void *pool, uint64_t keep);
int pool_trim(void *pool);
int pool_set_access(void *pool, int dev, int access);
int pool_get_access(void *pool, int dev, int *readwrite);
int pool_export(void *pool);
int alloc_imported(void *pool, size_t n, void *s);
int alloc_async(void **p, size_t n, void *pool, void *s);
int free_async(void *p, void *s);

/* ---- capture.c ------------------------------------------------------------------ */

void join_capture(struct mgraph *cap, struct mstream *st);
void capture_node(struct mgraph *cap, struct mstream *s);
struct mgraph *blocking_capture(void);
int graph_create(void **g, int gate);
int graph_launch(void *g, void *s, void **args);
int graph_destroy(void *g);
int capture_begin(void *s, int mode);
int capture_end(void *s);
int capture_keep(void *s, void **graph);
int graph_replay(void *g, void *s);
int capture_status(void *s, int *status);
int thread_capture_relaxed(void);
int capture_info(void *s, int *status, uint64_t *id, size_t *ndeps);
int capture_sever(void *s);
int ctx_capturing_invalidate(struct mctx *c); /* a stream of c captures: each such capture invalidated */
int capture_to(void *s, void *g, void *dep, int mode);
int capture_end_to(void *s, void *g, int *same);
uint64_t replay_item(struct mstream *on, const struct item *it, int locked, uint64_t pos);

/* ---- graphs.c ------------------------------------------------------------------- */

int launch_built(struct mgraph *gr, void *s);
int graph_new(void **g);
int node_add(void *g, const struct sc_node_params *np, void **node);
int edge_add(void *g, void *from, void *to);
int graph_instantiate(void *g, int upload, void *s);
int graph_instantiate_with(void *g, unsigned flags, int *result);
int exec_update(void *g, void *from);
int exec_destroy(void *g);

/* ---- graph_edit.c --------------------------------------------------------------- */

int node_enable(void *g, void *node, int enable);
int exec_node_set(void *g, void *node, const struct sc_node_params *np);

/* ---- contexts.c ----------------------------------------------------------------- */

int ctx_sync(void);
int primary_ctx_sync(void);
int ctx_action(int action);
int ctx_create_flags(void **ctx, unsigned flags);
int ctx_create(void **ctx);
int ctx_create_current(void **ctx, unsigned flags);
int green_support(char *why, size_t n);
int green_create(void **green);
int green_stream_create(void **s, void *green, int prio_set, int prio);
int green_destroy(void *green);
int green_event(void *green, void *e, int wait, int converted);
int stream_green(void *s, void **green);
int primary_release(int action, int *reset);
int ctx_destroy(void *ctx);
int ctx_enter(void *ctx, int action);
int device_sync(int dev);
int ctx_record_event(void *e);
int ctx_wait_event(void *e);
void ctx_waits_apply(struct mstream *s); /* a stream made now waits for its context's cuCtxWaitEvent events */
int ctx_busy_now(struct mctx *c);        /* some stream of context c has work pending now */

/* ---- processes.c ---------------------------------------------------------------- */

int device_serial_lock(void);
void *shared_map(int fd, size_t n);
int started_by_itself(void);
int dies_here(void);
int ipc_pool_export(void *pool, void *ptr, int *fd, void *data);
int ipc_pool_import(void **pool, void **ptr, int fd, const void *data);
int ipc_pool_close(void *pool, void *ptr);
int host_register(void *h, size_t n);
int host_unregister(void *h);
int ipc_event_handle(void *e, void *h);
int ipc_event_open(void **e, const void *h);
int ipc_mem_handle(void *d, void *h);
int ipc_mem_open(void **d, const void *h);
int ipc_mem_close(void *d);

#endif
