/*
 * streamcts.h - the interface a generated rule program uses.
 *
 * A rule program describes each case as a small *program*: named streams,
 * events and host threads, and a list of operations issued in order.  One
 * expectation per program relates two of its operations.  The runtime runs the
 * program through the driver API and through the runtime API, decides the
 * verdict from data written by the GPU and the host, runs the negative control
 * (a variant whose expectation must be seen to fail) and prints TAP.
 *
 * Generated code only *describes*; every decision lives in the runtime.
 */
#ifndef STREAMCTS_H
#define STREAMCTS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Handles are small indexes into the program under construction. */
typedef int sc_stream;
typedef int sc_event;
typedef int sc_op;

/* The built-in streams; they are never created or destroyed. */
#define SC_LEGACY_STREAM     (-1) /* CU_STREAM_LEGACY / cudaStreamLegacy          */
#define SC_PER_THREAD_STREAM (-2) /* CU_STREAM_PER_THREAD / cudaStreamPerThread   */
#define SC_NULL_STREAM       (-3) /* 0: legacy or per-thread by the compile mode  */

enum sc_stream_kind {
    SC_BLOCKING = 1,   /* cuStreamCreate(CU_STREAM_DEFAULT)                       */
    SC_NONBLOCKING,    /* cuStreamCreate(CU_STREAM_NON_BLOCKING)                   */
};

enum sc_copy {
    SC_H2D_PINNED = 1, /* pinned host  -> device */
    SC_H2D_PAGEABLE,   /* pageable host -> device */
    SC_D2H_PINNED,     /* device -> pinned host   */
    SC_D2H_PAGEABLE,   /* device -> pageable host */
    SC_D2D,            /* device -> device        */
};

enum sc_level { SC_MUST = 1, SC_DE_FACTO, SC_SHOULD };

/*
 * Relations, always read "subject RELATION object":
 *   SC_AFTER           subject completes only after object completed.
 *   SC_NOT_HELD        subject completes while object is still held.
 *   SC_BLOCKS_UNTIL    host call subject returns only after object completed.
 *   SC_RETURNS_BEFORE  host call subject returns while object is still held.
 *   SC_NOT_READY_WHILE query subject reports not-ready while object is held,
 *                      and success once everything has completed.
 *   SC_READY_WHILE     query subject reports success while object is held.
 */
enum sc_relation {
    SC_AFTER = 1,
    SC_NOT_HELD,
    SC_BLOCKS_UNTIL,
    SC_RETURNS_BEFORE,
    SC_NOT_READY_WHILE,
    SC_READY_WHILE,
};

typedef struct sc_prog sc_prog;

/* -- declarations ------------------------------------------------------- */
sc_stream sc_stream_create(sc_prog *p, const char *name, enum sc_stream_kind kind);
sc_event  sc_event_create(sc_prog *p, const char *name);

/* -- operations, issued in the order they are added ----------------------- */
/* Gates: held until the runtime releases them (always before a deadline).   */
sc_op sc_gate(sc_prog *p, const char *name, sc_stream s);      /* spinning kernel */
sc_op sc_host_gate(sc_prog *p, const char *name, sc_stream s); /* spinning host function */

sc_op sc_kernel(sc_prog *p, const char *name, sc_stream s);
sc_op sc_memset(sc_prog *p, const char *name, sc_stream s);
sc_op sc_memcpy_async(sc_prog *p, const char *name, enum sc_copy kind, sc_stream s);
sc_op sc_memcpy_sync(sc_prog *p, const char *name, enum sc_copy kind);
sc_op sc_host_func(sc_prog *p, const char *name, sc_stream s);
sc_op sc_callback(sc_prog *p, const char *name, sc_stream s);
sc_op sc_record(sc_prog *p, const char *name, sc_event e, sc_stream s);
sc_op sc_wait(sc_prog *p, const char *name, sc_event e, sc_stream s);

/* Host calls that synchronize or query. */
sc_op sc_stream_sync(sc_prog *p, const char *name, sc_stream s);
sc_op sc_event_sync(sc_prog *p, const char *name, sc_event e);
sc_op sc_ctx_sync(sc_prog *p, const char *name);
sc_op sc_stream_query(sc_prog *p, const char *name, sc_stream s);
sc_op sc_event_query(sc_prog *p, const char *name, sc_event e);

/* Destroying a stream or event whose work may still be pending. */
sc_op sc_stream_destroy(sc_prog *p, const char *name, sc_stream s);
sc_op sc_event_destroy(sc_prog *p, const char *name, sc_event e);

/* Issue op from the named host thread instead of "main". */
void sc_in_thread(sc_prog *p, sc_op op, const char *thread);

/* -- the expectation ------------------------------------------------------ */
void sc_expect(sc_prog *p, sc_op subject, enum sc_relation rel, sc_op object);

/* -- the rule a program file checks --------------------------------------- */
typedef void (*sc_build_fn)(sc_prog *p);

typedef struct sc_case {
    const char *id;        /* stable dotted case id                            */
    sc_build_fn build;     /* the case                                         */
    sc_build_fn control;   /* its negative control: the expectation must fail  */
} sc_case;

typedef struct sc_rule {
    const char *id;        /* stable dotted rule id                            */
    enum sc_level level;
    const char *text;      /* the rule, one sentence                           */
    const char *source;    /* NVIDIA document and section                      */
    const char *axes;      /* names of the case-id axes, "" when none          */
    const char *program;   /* the spec row's program, for the report           */
    const char *expect;    /* the spec row's expectation, for the report       */
    const char *spec;      /* the rules file, "spec/x.rules" (lines: catalog)  */
    unsigned repeat;       /* runs of each case (the spec's repeat column)      */
    const sc_case *cases;
    int ncases;
} sc_rule;

/* Runs the rule's cases and prints TAP; returns the process exit status. */
int sc_main(const sc_rule *rule, int argc, char **argv);

#ifdef __cplusplus
}
#endif
#endif
