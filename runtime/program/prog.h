/*
 * prog.h - a case's program as the builder records it (see streamcts.h).
 * The builder only records; runtime/case/ gives the program life.
 */
#ifndef SC_PROG_H
#define SC_PROG_H
#include "ops.h"
#include "streamcts.h"

#define SC_MAX_STREAMS 32
#define SC_MAX_EVENTS 32
#define SC_MAX_THREADS 8
#define SC_MAX_OPS 64
#define SC_MAX_POOLS 4
#define SC_MAX_GRAPHS 4
#define SC_MAX_BUFFERS 8
#define SC_MAX_WORDS 8
#define SC_MAX_CONTEXTS 2
#define SC_MAX_MEMBERS 4096 /* streams in all, counting every member of an array */
#define SC_NAME_LEN 32
#define SC_ENV_LEN 64 /* a process's setting, "VAR=VALUE" */
#define SC_MAX_PROCS 8 /* processes of one program, main included */

struct sc_op_def {
    enum sc_op_kind kind;
    char name[SC_NAME_LEN];
    sc_stream stream;   /* stream it is issued to, or queried/synchronized */
    sc_event event;     /* record, wait, event_sync, event_query, elapsed (start) */
    sc_event event2;    /* elapsed (end) */
    unsigned copy;      /* enum sc_copy, with SC_COPY_2D / SC_COPY_3D */
    enum sc_mem mem;    /* memset target */
    sc_buffer buffer;   /* alloc, free, fill */
    sc_pool pool;       /* alloc, pool_reserved, pool_trim */
    sc_graph graph;     /* graph_launch, capture_keep, graph_replay */
    sc_word word;       /* write_value, wait_value */
    int cond;           /* enum sc_wait_cond, enum sc_capture_mode, enum sc_ctx_action, device, enum sc_launch_attr, enum sc_stream_attr */
    unsigned flags;     /* write_value flags, event_create_try flags, memset_prefetch destination */
    int thread;         /* index into sc_prog.threads; 0 is "main" */
    sc_context context; /* ctx_enter, ctx_destroy, ctx_create */
    sc_word word2;      /* batch_wait_write: the word it writes (word: the one it waits on) */
    sc_graph graph2;    /* node_child's child, exec_update's source graph, a conditional node's body, the graph
                         * a node_devlaunch launches */
    sc_graph graph3;    /* a conditional node's second body, or -1 */
    sc_op from, to;     /* the nodes an edge joins */
};

struct sc_prog {
    struct {
        char name[SC_NAME_LEN];
        enum sc_stream_kind kind;
        enum sc_priority prio;
        int device;     /* the GPU it belongs to                      */
        int count;      /* members: 1, or the size of an array        */
        int green;      /* a stream of the run's green context         */
    } streams[SC_MAX_STREAMS];
    int nmembers;       /* streams in all                               */
    int nstreams;
    struct {
        char name[SC_NAME_LEN];
        unsigned flags;
    } events[SC_MAX_EVENTS];
    int nevents;
    struct {
        char name[SC_NAME_LEN];
        unsigned flags;
    } pools[SC_MAX_POOLS];
    int npools;
    struct {
        char name[SC_NAME_LEN];
        enum sc_graph_kind kind;
    } graphs[SC_MAX_GRAPHS];
    int ngraphs;
    char buffers[SC_MAX_BUFFERS][SC_NAME_LEN];
    int buffer_ipc[SC_MAX_BUFFERS]; /* device memory main exports to the other processes: 1 (cuIpcGetMemHandle)
                                       or SC_IPC_FROM_POOL (an allocation of an exportable pool) */
    int nbuffers;
    struct {
        char name[SC_NAME_LEN];
        int bits;
        int preset; /* enum sc_word_preset */
    } words[SC_MAX_WORDS];
    int nwords;
    char contexts[SC_MAX_CONTEXTS][SC_NAME_LEN];
    int ncontexts;
    unsigned context_flags[SC_MAX_CONTEXTS]; /* SC_CTX_* of each */
    char threads[SC_MAX_THREADS][SC_NAME_LEN];
    int thread_proc[SC_MAX_THREADS]; /* the process each thread runs in (0: main)  */
    int nthreads;
    char procs[SC_MAX_PROCS][SC_NAME_LEN]; /* procs[0] is "main", this program's own process */
    char proc_env[SC_MAX_PROCS][SC_ENV_LEN]; /* "VAR=VALUE" a process is started with, or "" */
    int nprocs;
    struct sc_op_def ops[SC_MAX_OPS];
    int nops;
    sc_op subject, object;  /* object: -1 for the relations of the subject alone */
    enum sc_relation rel;
    enum sc_code code;      /* SC_ANSWERS */
    enum sc_value value;    /* SC_GIVES   */
    unsigned runs_per_launch; /* SC_RUNS_PER_LAUNCH: 1, or sc_expect_runs' n */
    int has_expect;
    char error[256]; /* first misuse of the builder, if any */
};

void sc_prog_init(struct sc_prog *p);
/* The builder's first misuse becomes the program's error (it is then not run). */
void sc_prog_misuse(sc_prog *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Does the program build records leave a sticky error (an op whose ops.def row has isolate 1), so that it
 * must run in a child process of its own?  -1: out of memory. */
int sc_prog_isolates(sc_build_fn build);

/* Names for reports. */
const char *sc_copy_name(unsigned c);
const char *sc_mem_name(enum sc_mem m);
const char *sc_relation_text(enum sc_relation r); /* "after", "not held by", ... */
const char *sc_code_name(enum sc_code c);          /* "not_ready", ...            */
const char *sc_value_name(enum sc_value v);        /* "greatest", ...             */
const char *sc_stream_name(const struct sc_prog *p, sc_stream s);
/* The device a stream (declared or built-in) belongs to, and how many members it has. */
int sc_stream_device(const struct sc_prog *p, sc_stream s);
int sc_stream_count(const struct sc_prog *p, sc_stream s);
/* Built-in handle -> SC_LEGACY_STREAM, SC_PER_THREAD_STREAM or SC_NULL_STREAM. */
int sc_builtin_kind(sc_stream s);

/* The process op i is issued in (0: main). */
int sc_op_process(const struct sc_prog *p, int i);

/* The primary of op i (a programmatic dependent launch): the stream work issued right before it to its
 * stream by its thread, when that is a kernel that writes its slot's token (gate, kernel, kernel_pdl);
 * else -1. */
int sc_op_primary(const struct sc_prog *p, int i);

/* the op whose data a read (op i) should find: the last fill of its buffer before it; else -1. */
int sc_op_writer(const struct sc_prog *p, int i);

/* Does the relation have an object? */
int sc_relation_is_binary(enum sc_relation r);

#endif
