/*
 * case.h - private to the files of runtime/case/, which run one case: the
 * state of a run (struct run: its ops, workers, objects and verdict), the
 * arena its ops use, the region shared with the case's other processes, and
 * what each file of the folder offers the others (run.c says which does what).
 * Others include run.h.
 */
#ifndef SC_CASE_H
#define SC_CASE_H
#include "clock.h"
#include "procs.h"
#include "run.h"
#include "slot.h"
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SC_POLL_NS 20000u              /* observer's pause between samples, at first */
#define SC_POLL_MAX_NS 1000000u        /* ... growing with the wait to at most this (observe.c) */
#define SC_HANG_GRACE_NS 2000000000ull /* after a deadline, before giving up     */
#define SC_EXTRA_SLOTS 8192u           /* slots of group members beyond the first */
#define SC_MEMBER_NS 200000u           /* allowance per group member for issuing it */
#define SC_SETTLE_NS 2000000000ull     /* the most a window's end waits for the device to settle (backend.h) */
#define SC_ELAPSED_SLACK_NS 20000u     /* elapsed vs %globaltimer: the two clocks' resolution */
#define SC_SLEEP_MIN_NS 2000000u       /* a wait shorter than this cannot tell sleeping from spinning */
#define SC_NSLOTS (SC_MAX_OPS + SC_EXTRA_SLOTS)

/* ---- buffers and slots, allocated once per backend and reused ---------- */

/* The memory an op's copy or memset reads and writes; allocated on first use. */
struct buffers {
    void *dev_src, *dev_dst, *pinned, *pinned2, *pageable, *pageable2, *managed, *peer_src;
    int dev_src_on, dev_dst_on, peer_src_on; /* the device each was allocated on */
};

/* The arena: the host memory an API's runs share (slots, gate flag, words) and the
 * buffers ops copy and set, allocated once per backend and reused.  ("pool" means a
 * CUDA memory pool only.) */
struct arena {
    int ready;
    struct sc_slot *slots; /* SC_NSLOTS slots (op i's is slot i; group members' follow
                              SC_MAX_OPS), the gate flag, then the words */
    void *slots_dev;
    uint32_t *gate;
    void *gate_dev;
    uint64_t *words;       /* stream memory operations' words (host view)     */
    void *words_dev;
    void *scratch; /* pinned, for filling sources and reading results back */
    uint64_t *managed_words; /* SC_MAX_WORDS words in managed memory (SC_WORD_MANAGED), on first use */
    struct buffers buf[SC_MAX_OPS];
};

/* ---- the memory a case shares with its other processes (procs.h) ---------- */

/* An op's result, published by the process that issued it. */
struct remote_op {
    int state, rc, result, captured;
    int64_t value;
    float ms;
    uint64_t t_issue, t_return;
    struct sc_return ret;
    int at_return, clobbered;
    size_t bad_word;
    uint32_t bad_value;
    int done; /* an op observed through a probe: its own process saw it complete */
};

/* A host thread of another process: the job main posts, and its result. */
struct mailbox {
    int job, arg, busy;
    int rc; /* the context synchronize's result */
};

/* Starts with the layout of an arena's pinned block: slots, the gate flag, the words. */
struct shared {
    struct sc_slot slots[SC_NSLOTS];
    uint32_t gate;
    uint32_t gate_pad[15];
    uint64_t words[SC_MAX_WORDS];
    uint32_t case_id;  /* tokens embed it: every process must write the same ones */
    int released, quit;
    int created[SC_MAX_PROCS]; /* 1: its objects exist and their IPC handles are published; <0: failed */
    int ready[SC_MAX_PROCS];   /* 1: it opened the others' objects and prepared its ops; <0: failed  */
    unsigned char event_handle[SC_MAX_EVENTS][SC_IPC_HANDLE_BYTES];
    unsigned char mem_handle[SC_MAX_BUFFERS][SC_IPC_HANDLE_BYTES];
    struct mailbox mbox[SC_MAX_THREADS];
    struct remote_op op[SC_MAX_OPS];
    char error[SC_MAX_PROCS][256];
    /* the processes outlive a run: main starts each run, they report finishing it */
    uint32_t run_gen;                /* main: bumped for each run; a waiting process starts it   */
    int case_index, control;         /* ... the run's program                                    */
    uint32_t finished[SC_MAX_PROCS]; /* the run a process finished: its objects gone, its context idle */
    int retire;                      /* main: the program ends, the processes exit               */
    int moved;                       /* main: the processes go on to the next API's region ...   */
    uint32_t moved_gen;              /* ... whose run_gen was this then                          */
    uint32_t room_waits;             /* processes that waited for room for their context ...     */
    uint64_t room_wait_ns;           /* ... and how long in all                                  */
    /* settle (backend.h) in every process: at a hold window's end main asks each process whose observer
     * is there to answer, and it answers once its own device ran what it could without the gates */
    int observing[SC_MAX_PROCS];
    int settle_asked[SC_MAX_PROCS], settle_answered[SC_MAX_PROCS]; /* counts, wrapping */
};
#define SC_SHARED_BYTES ((sizeof(struct shared) + 4095u) & ~(size_t)4095u)
#define SC_PEER_GRACE_NS 5000000000ull /* a process that was told to quit, before it is killed */
#define SC_START_DEADLINES 4u          /* a process's start-up (cuInit, its context): deadlines it may take */

#define SC_PEER_IDLE_NS 200000u     /* a waiting process's pause between looks at run_gen */

/* ---- one run ------------------------------------------------------------ */

enum { ST_IDLE = 0, ST_ISSUED, ST_RETURNED };
enum { JOB_NONE = 0, JOB_ISSUE, JOB_REQUERY, JOB_CTX_SYNC, JOB_END_CAPTURES, JOB_QUIT };

/* Where a copy or memset reads and writes: one of struct buffers' members. */
enum where { W_NONE = 0, W_DEV_SRC, W_DEV_DST, W_PINNED, W_PINNED2, W_PAGEABLE, W_PAGEABLE2, W_MANAGED, W_PEER_SRC };

#define SC_CLOBBER 0xc10bbe5du /* written over a host source once its copy returned */

struct host_arg { /* what host functions, callbacks and host gates touch */
    struct sc_slot *slot;
    uint32_t token;
    uint32_t *gate;
    uint64_t max_ns;
    struct sc_callback cb; /* a stream callback's body: callback_body on this host_arg */
    /* callback_api's body calls b->stream_query(stream) */
    const struct sc_backend *b;
    void *stream;
};

/* Members 1.. of a group op (an op on a stream array); member 0 is the op itself. */
struct member {
    void *stream, *probe;
    uint32_t token;
    int slot;
    struct host_arg harg;
    int done;
};

struct op_rt {
    const struct sc_op_def *def;
    void *stream, *event, *probe; /* probe: event recorded right after the op */
    int device;                   /* the GPU the op is issued to             */
    int nmem;                     /* 1, or the members of its stream array   */
    struct member *more;          /* members 1 .. nmem - 1                   */
    uint32_t token;
    unsigned char fill;           /* memset byte                               */
    struct host_arg harg;
    /* written by the issuing worker */
    int state, rc, result;        /* rc: 0 unless the call failed; result: what it returned */
    int captured;                 /* issued into a stream capture: it will not run */
    int kept;                     /* captured: the graph its capture was kept in + 1; -1 discarded */
    void *node;                   /* the graph node it added */
    unsigned run_by;              /* a node: the graphs (bits) whose launches run it: its own, and
                                   * those that cloned it in a child graph node or took it by exec_update */
    int launched;                 /* atomic, a node: a launch that runs it succeeded */
    int64_t value;                /* getters                                  */
    int valueless;                /* a getter that had no value to give (capture_id of a stream not capturing) */
    int64_t runq_ns;              /* a timed synchronize: its thread's wait for a CPU meanwhile */
    float ms;                     /* elapsed                                  */
    uint64_t t_issue, t_return;
    struct sc_return ret;         /* host calls: read right after returning   */
    int at_return;                /* complete on return: 1 data there, 0 not, -1 not looked at */
    size_t bad_word;              /* ... the first word that was wrong        */
    uint32_t bad_value;
    int clobbered;                /* complete on return: the source was overwritten */
    /* written by the observer */
    int done;
    int member0_done;             /* group ops: member 0 seen complete */
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
    int exited;                   /* its thread ended (thread_exit)  */
    int remote;                   /* main: the thread runs in another process (its mailbox) */
    int last_job, last_arg;       /* the job posted last */
};

struct run {
    const sc_backend *b;
    const struct sc_prog *p;
    struct sc_run_config cfg;
    struct arena *arena;             /* the slots, gate, words and buffers its ops use */
    struct op_rt op[SC_MAX_OPS];
    void *members[SC_MAX_MEMBERS];   /* every created stream; array s at first[s]  */
    int first[SC_MAX_STREAMS];
    void *events[SC_MAX_EVENTS];
    int event_device[SC_MAX_EVENTS];
    int multi;                       /* the program uses more than one device     */
    int next_slot;                   /* the next free member slot                 */
    int best_members;                /* group subject: most members seen done while held */
    int compared;                    /* equals / differs: judged                  */
    struct worker workers[SC_MAX_THREADS];
    void *pools[SC_MAX_POOLS];
    void *default_pool;
    void *graphs[SC_MAX_GRAPHS];
    void *contexts[SC_MAX_CONTEXTS]; /* created before the case, destroyed after it */
    void *green;                     /* the green context of the green streams, destroyed after them */
    int replayed[SC_MAX_GRAPHS];     /* atomic: a launch of the captured graph succeeded */
    unsigned runs_nodes_of[SC_MAX_GRAPHS]; /* the graphs (bits) whose node ops a launch of g runs:
                                            * its own, its child graphs', an update's source graph's */
    void *buf_ptr[SC_MAX_BUFFERS];   /* stream-ordered allocations              */
    int buf_freed[SC_MAX_BUFFERS];
    uint64_t word_set[SC_MAX_WORDS]; /* the value a write_value writes           */
    int word_cond[SC_MAX_WORDS];     /* the condition of the word's first wait  */
    int capture_thread[SC_MAX_STREAMS]; /* worker that began a capture, + 1      */
    int capture_into[SC_MAX_STREAMS];   /* the graph its capture_to captures into, + 1 (0: none) */
    int entered_device[SC_MAX_THREADS]; /* device_enter: the device the thread keeps current, + 1 */
    int least, greatest;             /* the stream priority range               */
    int ndevices;                    /* devices the program uses                */
    int has_capture;
    int wait_gates;                  /* --wait-gates, and the program allows them (objects.c, wait_gates_allowed) */
    int faulted_at;                  /* the op index of an issued fault, or -1  */
    int released;                 /* atomic */
    int final_sync_rc;
    /* several processes (sc_thread_process): each runs its own struct run */
    struct shared *sh;               /* the region shared with them, else NULL     */
    int proc;                        /* the process this run is (0: main)          */
    pid_t *pid;                      /* main: the other processes (peer_pid)       */
    uint32_t gen;                    /* main: this run's run_gen                   */
    int stream_proc[SC_MAX_STREAMS]; /* the process that creates each stream       */
    int event_proc[SC_MAX_EVENTS];   /* ... each event; the others open its handle */
    int buf_opened[SC_MAX_BUFFERS];  /* an IPC memory handle this process opened   */
    void *ipc_pool[SC_MAX_BUFFERS];  /* memory m's pool: created (main) or imported */
    int broken;                      /* main: another process failed or ended      */
    char blocker[160];            /* the call that forced an early release */
    int early;                    /* the gates were released early: blocker blocked for a window */
    int issuing;                  /* the op being issued (nops once all are): what may hold work so far */
    int open_at_early;            /* ... while the verdict was still open */
    int subject_unheld;           /* ... before the subject was issued (verdict.h, sc_verdict_subject_unheld) */
    char unheld_why[240];         /* ... and why, a clause of the verdict's message */
    uint64_t t0, t_release;
    struct sc_verdict v;
    pthread_mutex_t log_mu;
    char *timeline;
    size_t timeline_len, timeline_cap;
};

/* ---- small questions every part asks ------------------------------------- */

static inline const char *opname(const struct run *r, int i) { return r->p->ops[i].name; }

static inline int load(const int *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void store(int *p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }

/* Is op i issued by this process? */
static inline int mine(const struct run *r, int i) { return sc_op_process(r->p, i) == r->proc; }
/* Have the gates been released (by main, for every process)? */
static inline int is_released(struct run *r) { return r->sh ? load(&r->sh->released) : load(&r->released); }
/* Op i's state: another process's ops as they published it (main imports them on return). */
static inline int op_state(struct run *r, int i)
{
    return r->proc && !mine(r, i) ? load(&r->sh->op[i].state) : load(&r->op[i].state);
}

/* issue_graph.c: ends the capture of stream s (a worker's end_captures too); a capture into a graph keeps it. */
int end_capture_of(struct run *r, int s, void *stream, int *same);

/* Op i was captured into a graph that has been launched since: its slot will show it ran. */
static inline int replayed(const struct run *r, int i)
{
    const struct op_rt *o = &r->op[i];
    if (o->run_by || (sc_op_facts(o->def->kind)->node && o->captured)) /* a node, run by the launches of the graphs
                                                                       * that hold it (or a clone of it); none may,
                                                                       * once disabled or given other parameters */
        return sc_op_facts(o->def->kind)->slot && load(&o->launched);
    return o->captured && o->kept > 0 && sc_op_facts(o->def->kind)->slot && load(&r->replayed[o->kept - 1]);
}

/* the op whose destination buffer the memset and memcpy nodes of op i's graph all write (the
 * graph's first such node), so that the data checks can tell which wrote last. */
static inline int node_buffer(const struct sc_prog *p, int i)
{
    for (int j = 0; j < i; j++)
        if (sc_op_is_data_node(p->ops[j].kind) && p->ops[j].graph == p->ops[i].graph)
            return j;
    return i;
}

/* Makes dev the calling thread's current device, when the program uses several. */
static inline void on_dev(struct run *r, int dev)
{
    if (r->multi)
        r->b->use_device(dev);
}

/* The other GPU of a two-device copy. */
static inline int peer_of(int dev) { return dev == 0 ? 1 : 0; }

/* What the data checks judge of an op of kind k (ops.def's data column). */
static inline enum sc_op_data data_of(enum sc_op_kind k) { return sc_op_facts(k)->data; }
/* Ops after an issued fault: the context is gone, they may never complete or answer. */
static inline int after_fault(const struct run *r, int i) { return r->faulted_at >= 0 && i > r->faulted_at; }

/* ---- run.c ------------------------------------------------------------------ */

/* A run of program p by process proc (0: main), its notes into timeline; NULL when out of memory. */
struct run *run_init(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg, int proc,
                     char *timeline, size_t timeline_cap);

/* ---- objects.c, contexts.c -------------------------------------------------- */

/* Buffers filled, destinations cleared, handles created; the GPU is idle after.  0; -1 failed; -2 skips (why). */
int prepare(struct run *r, char *why, size_t n);
/* The handles this process created or opened, destroyed. */
void destroy_objects(struct run *r);
/* The devices a program uses: 1 + the highest its streams, built-ins and ops name. */
int devices_used(const struct sc_prog *p);
/* Every device the program uses is idle (a context synchronize each); device 0 is current after. */
int sync_devices(struct run *r);
/* Does this process use event e / buffer m (issue an op that names it)? */
int uses(struct run *r, int e, int m);
/* The value a wait_value (or a batch's wait, a GEQ) awaits on its word. */
uint64_t operand_of(const struct run *r, const struct sc_op_def *d);
/* A context kept from an earlier case with these flags, taken (NULL: none); one kept for the next case, or
 * destroyed where none can be kept; may the case's contexts be kept (it left them as it found them)? */
void *take_context(const sc_backend *b, unsigned flags);
void keep_context(const struct run *r, int c);
int context_keepable(const struct run *r);
/* the green context kept from an earlier case, taken (NULL: none); kept for the next (0: one is already). */
void *take_green(const sc_backend *b);
int keep_green(const sc_backend *b, void *green);
/* A context was made (counted for sc_run_take_contexts_made). */
void made_one(void);

/* ---- peers.c ---------------------------------------------------------------- */

/* The region shared with the case's other processes becomes r's arena (fd < 0: main's own). */
int shared_ready(struct run *r, int fd, char *why, size_t n);
/* Main: the other processes start the run (one not running is started). */
int start_peers(struct run *r, uint32_t case_id, char *why, size_t n);
/* Waits until every process set its flag (created or ready); <0 when one failed, -2 when it skips. */
int await_peers(struct run *r, int *flags, const char *what, uint64_t limit_ns, char *why, size_t n);
/* IPC handles published and opened between the processes. */
int exchange(struct run *r, char *why, size_t n);
/* Op i's result, published for the others / imported by main from the process that issued it. */
void publish(struct run *r, int i);
void import(struct run *r, int i);
/* Main: ends the run in the other processes (killed after grace_ns) / stops them all when one failed. */
void stop_peers(struct run *r, uint64_t grace_ns);
void peer_failed(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Another process: the run main told it to start. */
uint32_t peer_run(void);
/* Main: every other process's device runs what it can without the gates (backend.h, settle), each within
 * max_ns.  0: one did not answer in time. */
int settle_peers(struct run *r, uint64_t max_ns);
/* Another process: answers main's ask to settle, if there is one. */
void settle_if_asked(struct run *r);

/* ---- workers.c --------------------------------------------------------------- */

/* A worker's thread: runs the jobs posted to it. */
void *worker_main(void *arg);
/* Posts a job to a worker (a thread of another process: its mailbox). */
void post(struct worker *w, int job, int arg);
/* Runs a job in the worker's thread. */
void run_job(struct worker *w, int job, int i);
/* Waits for the worker's job, observing meanwhile (a call blocked for window_ns releases the gates); with
 * the run's window.  0: done; -1: it hung. */
int await_for(struct run *r, struct worker *w, const char *what, uint64_t window_ns);
int await(struct run *r, struct worker *w, const char *what);

/* ---- issue.c, issue_ops.c ----------------------------------------------------- */

/* What issue.c works out for op i, or member m of a group op, before its kind's issue function runs. */
struct issue_args {
    int member;               /* 0: the op itself; 1..: a member of a group op */
    void *stream;             /* the stream (member) it is issued to */
    struct sc_slot *slot_dev; /* its slot, as the device sees it */
    uint32_t token;
    struct host_arg *harg;    /* the argument of its host function or callback */
    void *dst, *src;          /* member 0: its destination and source buffers (NULL where it has none) */
};
/* A kind's issue function: the call's result, 0, a CUDA code, or SC_UNSUPPORTED. */
typedef int issue_fn(struct run *r, int i, const struct issue_args *a);
/* issue_graph.c: the issue functions of captures and graphs. */
issue_fn issue_capture_begin, issue_capture_to, issue_capture_end, issue_capture_end_graph, issue_capture_keep,
    issue_capture_status, issue_capture_id, issue_capture_deps, issue_capture_sever, issue_graph_launch,
    issue_graph_replay, issue_node, issue_node_data, issue_node_event, issue_node_child, issue_node_cond,
    issue_node_devlaunch,
    issue_node_alloc, issue_node_free, issue_node_memset_alloc, issue_edge, issue_instantiate,
    issue_instantiate_upload, issue_instantiate_checked, issue_instantiate_auto_free, issue_exec_update, issue_exec_destroy,
    issue_node_enable, issue_exec_set_params;
/* issue_memory.c: the issue functions of the stream-ordered allocator and memory pools. */
issue_fn issue_alloc, issue_free, issue_fill, issue_read, issue_alloc_imported,
    issue_pool_reserved, issue_pool_used, issue_pool_high, issue_pool_high_reset, issue_address, issue_pool_trim, issue_pool_trim_keep,
    issue_pool_export, issue_pool_set_access, issue_pool_access, issue_mem_alloc;
/* issue_introspect.c: the issue functions of a stream's introspection and attributes. */
issue_fn issue_stream_ctx, issue_sync_policy_set, issue_sync_policy, issue_copy_attributes, issue_attach_single;
/* objects.c: the handle of member m of stream s (a built-in stream: of the current device) */
void *stream_handle(struct run *r, sc_stream s, int m);
/* Kind k's issue function (issue_ops.c's table); NULL: none. */
issue_fn *issue_fn_of(enum sc_op_kind k);
/* Issues op i, member 0 then the rest of a group: the call's result. */
int issue(struct run *r, int i);
/* Complete on return: the subject's destination looked at and its source overwritten, right after it returned. */
void look_at_return(struct run *r, int i);
/* The host functions ops enqueue (their argument: a struct host_arg). */
void host_mark(void *a);
void host_gate(void *a);
void callback_body(void *a, int status);
void callback_api_body(void *a, int status);

/* ---- arena.c ---------------------------------------------------------------- */

/* Allocates the arena's pinned block (slots, gate flag, words) and scratch once per backend. */
int arena_ready(struct run *r, char *why, size_t n);
/* The buffer `w` of op i, allocated on first use (device buffers on the op's device). */
void *arena_buffer(struct run *r, int i, enum where w, int *rc);
int on_host(enum where w);
void fill_words(void *p, uint32_t v);
/* Where op d reads (src) and writes (dst). */
void op_ends(const struct sc_op_def *d, enum where *dst, enum where *src);
/* The word a copy's destination must hold at the end. */
uint32_t expected_word(const struct op_rt *o);
/* word w of the program, as the host reads it and as the stream memory operations are given it (a managed
 * word, SC_WORD_MANAGED, is the same address for both); words_ready allocates the managed words on first use. */
int words_ready(struct run *r, char *why, size_t n);
uint64_t *word_host(struct run *r, int w);
void *word_dev(struct run *r, int w);
/* op i's destination holds all it wrote, as the host reads it now: 1 yes; 0 no (*bad_word, *bad_value: the
 * first wrong word); -1 the host cannot read it. */
int data_there(struct run *r, int i, size_t *bad_word, uint32_t *bad_value);

/* ---- observe.c -------------------------------------------------------------- */

/* 1: member m of op i has completed; 0: not yet; -1: the probe itself failed. */
int member_done(struct run *r, int i, int m);
/* 1: op i (every member of a group) has completed; 0: not yet; -1: the probe itself failed. */
int op_done(struct run *r, int i);
/* One sample: the subject and object, in the order that makes a violation real, into the
 * verdict; then every op newly seen complete, into the timeline. */
void sample(struct run *r);
/* The observer's pause after a sample, waited_ns into a wait: a sixteenth of it, SC_POLL_NS..SC_POLL_MAX_NS. */
void observe_pause(uint64_t waited_ns);
/* Opens every gate (of every process), noting why. */
void release(struct run *r, const char *why);
/* An op whose completion the drain waits for (observable, issued, not captured, not seen complete). */
int pending(struct run *r, int i);

/* ---- check.c, judge.c -------------------------------------------------------- */

/* Which op writes this word to its destination: names the culprit of a clobber. */
const char *writer_of(struct run *r, uint32_t word);

/* A failed call that is not an error: the subject's answer, the fault's own launch, or anything after it. */
int failure_expected(const struct run *r, int i);
/* The subject's call returned: decide what can be decided now. */
void judge_return(struct run *r);
/* Equals / differs: judged once both getters returned. */
void judge_comparison(struct run *r);
/* A group subject of "not held by": say how many members stayed independent. */
void count_group(struct run *r);
/* A host function or callback subject of "answers": decided once it ran, or clearly will not. */
void judge_host_answer(struct run *r);
/* An elapsed time that "spans_hold": judged after the drain, from the gates' stamps. */
void judge_elapsed(struct run *r);
/* The device ops' %globaltimer stamps, as evidence for 'after'. */
void check_stamps(struct run *r);
/* After the drain: the data every copy, memset and fill left behind. */
void check_data(struct run *r);
/* After the final synchronize: runs once per launch (how often the subject ran, from its slot). */
void judge_runs(struct run *r);
/* check.c: a device launch (node_faf, node_tail, node_sibling) the device refused makes the point an error */
void judge_device_launches(struct run *r);
/* After the final synchronize: what a programmatic dependent launch read of its primary's result. */
void judge_primary_read(struct run *r);
/* 'reads its fill': what the read copied into its slot, against its writer's fill. */
void judge_fill_read(struct run *r);

/* ---- log.c ------------------------------------------------------------------ */

/* Adds a line to the run's timeline. */
void log_note(struct run *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* %globaltimer stamps of the device ops, as evidence. */
void log_stamps(struct run *r);
/* "B (kernel on s)", "S (stream_sync of s) in t2", ... */
void describe_op(struct run *r, int i, char *out, size_t n);

#endif
