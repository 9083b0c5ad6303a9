/*
 * prog.h - a case's program as the builder records it (see streamcts.h).
 * The builder only records; run.c gives the program life.
 */
#ifndef SC_PROG_H
#define SC_PROG_H
#include "streamcts.h"

#define SC_MAX_STREAMS 32
#define SC_MAX_EVENTS 32
#define SC_MAX_THREADS 8
#define SC_MAX_OPS 64
#define SC_NAME_LEN 32

enum sc_op_kind {
    SC_OP_GATE = 1,
    SC_OP_HOST_GATE,
    SC_OP_KERNEL,
    SC_OP_MEMSET,
    SC_OP_MEMCPY_ASYNC,
    SC_OP_MEMCPY_SYNC,
    SC_OP_HOST_FUNC,
    SC_OP_CALLBACK,
    SC_OP_RECORD,
    SC_OP_WAIT,
    SC_OP_STREAM_SYNC,
    SC_OP_EVENT_SYNC,
    SC_OP_CTX_SYNC,
    SC_OP_STREAM_QUERY,
    SC_OP_EVENT_QUERY,
    SC_OP_STREAM_DESTROY,
    SC_OP_EVENT_DESTROY,
};

struct sc_op_def {
    enum sc_op_kind kind;
    char name[SC_NAME_LEN];
    sc_stream stream; /* stream it is issued to, or queried/synchronized */
    sc_event event;   /* record, wait, event_sync, event_query */
    enum sc_copy copy;
    int thread;       /* index into sc_prog.threads; 0 is "main" */
};

struct sc_prog {
    struct {
        char name[SC_NAME_LEN];
        enum sc_stream_kind kind;
    } streams[SC_MAX_STREAMS];
    int nstreams;
    char events[SC_MAX_EVENTS][SC_NAME_LEN];
    int nevents;
    char threads[SC_MAX_THREADS][SC_NAME_LEN];
    int nthreads;
    struct sc_op_def ops[SC_MAX_OPS];
    int nops;
    sc_op subject, object;
    enum sc_relation rel;
    int has_expect;
    char error[256]; /* first misuse of the builder, if any */
};

void sc_prog_init(struct sc_prog *p);

/* Names for reports. */
const char *sc_op_kind_name(enum sc_op_kind k);
const char *sc_copy_name(enum sc_copy c);
const char *sc_relation_text(enum sc_relation r); /* "after", "not held by", ... */
const char *sc_stream_name(const struct sc_prog *p, sc_stream s);

/* Is the op a host call (it has no stream work of its own)? */
int sc_op_is_host_call(enum sc_op_kind k);
/* Can the runtime observe the op's completion? */
int sc_op_is_observable(enum sc_op_kind k);

#endif
