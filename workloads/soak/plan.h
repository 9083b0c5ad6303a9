/*
 * plan.h - the soak's program generator: a seed -> one random LEGAL stream
 * program with one gate, an expectation the documented semantics guarantee,
 * and its negative control.
 *
 *   struct soak_plan p;
 *   if (soak_plan_make(&p, seed, max_threads) == 0)
 *       soak_plan_build(&p, prog, control);   // a case (control 0) or its control (1)
 *
 * A plan is a pure function of (seed, max_threads): replaying a seed gives the
 * same program.  Its ops are a gate (op 0, held by the runtime) followed by
 * kernels, copies (pinned H2D, pinned D2H, D2D), memsets, host functions,
 * event records, event waits and event/stream queries on 2 to 4 streams of any
 * kind (blocking, non-blocking, the legacy stream, the per-thread stream of the
 * issuing thread), issued from up to max_threads host threads.  Nothing in it
 * blocks the issuing thread except, possibly, the subject.
 *
 * The expectation is one of
 *   B after A          B is ordered after A by guaranteed edges only:
 *                      same-stream FIFO, event record -> wait, and the legacy
 *                      stream's implicit synchronization with blocking streams
 *   X blocks until A   X, the last op, is a stream or event synchronize whose
 *                      stream's (event's) work is ordered after A
 * where A is held by the gate.  The control drops ops (waits, legacy-stream
 * ops, records) until, even counting every edge a driver might legally add
 * (the per-thread stream synchronizing with the legacy stream too), nothing
 * orders the subject after the gate, while A stays held: a driver that keeps
 * the promise must show the violation there.
 */
#ifndef SOAK_PLAN_H
#define SOAK_PLAN_H
#include "prog.h"
#include <stddef.h>
#include <stdint.h>

#define SOAK_MAX_THREADS 4
#define SOAK_MAX_STREAMS 4
#define SOAK_MAX_EVENTS 3
#define SOAK_MAX_OPS 24

enum soak_stream { SOAK_BLOCKING, SOAK_NONBLOCKING, SOAK_LEGACY, SOAK_PER_THREAD };

enum soak_op {
    SOAK_GATE, SOAK_HOST_GATE, /* op 0 only */
    SOAK_KERNEL, SOAK_MEMSET, SOAK_H2D, SOAK_D2H, SOAK_D2D, SOAK_HOST_FUNC, /* work: can be A or B */
    SOAK_RECORD, SOAK_WAIT,
    SOAK_EVENT_QUERY, SOAK_STREAM_QUERY, /* host calls that never block */
    SOAK_STREAM_SYNC, SOAK_EVENT_SYNC,   /* the subject X only */
};

struct soak_op_plan {
    enum soak_op kind;
    int stream, event, thread;
};

struct soak_plan {
    uint64_t seed;
    int api; /* 0: the driver API, 1: the runtime API */
    int nthreads, nstreams, nevents, nops;
    enum soak_stream streams[SOAK_MAX_STREAMS];
    struct soak_op_plan ops[SOAK_MAX_OPS];
    enum sc_relation rel; /* SC_AFTER or SC_BLOCKS_UNTIL */
    int subject, object;  /* B (or X) and A */
    unsigned char drop[SOAK_MAX_OPS]; /* the ops the control leaves out */
};

/* 0, or -1 when no program with a decidable expectation came out of the seed (never seen; reported). */
int soak_plan_make(struct soak_plan *p, uint64_t seed, int max_threads);
/* Records the case (control 0) or its negative control (1) with the builder API. */
void soak_plan_build(const struct soak_plan *p, sc_prog *prog, int control);
/* The program in a few lines, for reports. */
void soak_plan_describe(const struct soak_plan *p, char *out, size_t n);
/* The next number of a splitmix64 sequence (the generator's, and the soak's program seeds). */
uint64_t soak_mix(uint64_t *state);

#endif
