/*
 * comm_verdict.h - the verdict of tap/perf/comm_overlap.t from its
 * %globaltimer stamps, apart from any GPU so that canned stamps test it
 * (selftest/workloads/comm_verdict_units.c).
 *
 * One run: a compute kernel (its blocks' earliest start and latest end) was
 * running on one stream when an all-reduce was issued on another, bracketed
 * by two stamp kernels on the all-reduce's stream (the first stamps just
 * before the all-reduce can start, the second just after it ended).  The
 * overlap fraction is the part of the bracket that lies inside the compute
 * kernel.  A run is decided only when every stamp is there and in order,
 * the bracket is long enough for the clock (CO_MIN_COMM_NS), and the compute
 * kernel had not finished when the host issued the all-reduce (where launches
 * block until their kernel is done, as under CUDA_LAUNCH_BLOCKING=1, it had:
 * nothing could overlap it, so nothing is concluded).
 */
#ifndef COMM_VERDICT_H
#define COMM_VERDICT_H
#include <stdint.h>

#define CO_MIN_FRACTION 0.5      /* overlap: at least half of the all-reduce ran during the compute kernel */
#define CO_MIN_COMM_NS 10000ull  /* a bracket under 10 us says too little at %globaltimer's resolution */

struct co_stamps {
    uint64_t compute_start, compute_end; /* the compute kernel running when the all-reduce was issued */
    uint64_t last_end;                   /* the end of the last compute work of the run (for its span) */
    uint64_t comm_start, comm_end;       /* the stamps before and after the all-reduce */
    int compute_done_at_issue;           /* the host saw the compute kernel finished when the issue returned */
};

enum { CO_OVERLAP, CO_NO_OVERLAP, CO_UNDECIDABLE };

struct co_verdict {
    int outcome;
    double fraction;           /* of the all-reduce's bracket inside the compute kernel, 0..1 */
    double comm_us, compute_us; /* the bracket's and the compute kernel's lengths */
    double span_us;            /* first start to last end of the run's work */
    const char *why;           /* a sentence: what the stamps show, or why nothing is decided */
};

/* The verdict of one run. */
struct co_verdict co_judge(const struct co_stamps *s);
/*
 * The verdict of several runs of the same work: overlap when any decided run
 * overlapped (other work on the GPU only ever delays a stream, it never
 * makes two overlap), no overlap when every decided run did not, undecidable
 * when none was decided.  *best: the index of the run it rests on (the one
 * with the greatest fraction among the decided, else the first).
 */
int co_combine(const struct co_verdict *v, int n, int *best);
/* The name of an outcome, for YAML. */
const char *co_outcome_name(int outcome);

#endif
