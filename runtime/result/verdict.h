/*
 * verdict.h - deciding one relation from observations.
 *
 * Pure logic, unit-tested without a GPU (selftest/runtime).  The runner feeds
 * it samples; each sample is read in a fixed order - the subject's completion,
 * then the object's, then whether the gates were released - so that every
 * violation it reports is real: "subject done" read before "object not done"
 * means the subject completed first.
 */
#ifndef SC_VERDICT_H
#define SC_VERDICT_H
#include <stdint.h>
#include "streamcts.h"

enum sc_outcome {
    SC_OPEN = 0,  /* not decided yet                                        */
    SC_PASS,      /* the relation held                                      */
    SC_VIOLATED,  /* the relation was seen to be broken                     */
    SC_ERROR,     /* could not decide: API error, deadline, wrong data      */
    SC_SKIP,      /* the API or the device lacks what the case needs        */
    SC_UNDECIDED, /* a call before the subject blocked its thread for the
                     whole window, so the gates had to open too early: a
                     resource limit or false dependency of the device, not
                     a violation and not a pass                             */
};

struct sc_verdict {
    enum sc_relation rel;
    enum sc_outcome outcome;
    int query_ok;  /* SC_NOT_READY_WHILE: the first answer was not-ready    */
    char why[512];
};

struct sc_sample {
    int subject_done; /* completed (host calls: returned)                   */
    int object_done;
    int released;     /* the gates had been released when this was read     */
};

/* What the issuing thread read right after a host call returned. */
struct sc_return {
    int object_done;
    int released;
    int result;       /* queries: the call's result                         */
    int gpu_reached;  /* ready while: a held gate was running at the last ask */
    uint64_t runq_ns; /* how long the issuing thread waited for a CPU from its issue to its return */
    uint64_t hold_ns; /* the window the gates were held for                  */
    uint64_t cpu_ns;  /* the issuing thread's CPU time from its issue to its return */
    uint64_t late_ns; /* how long after the gates' release the call returned (0: before it) */
};

void sc_verdict_start(struct sc_verdict *v, enum sc_relation rel);
void sc_verdict_observe(struct sc_verdict *v, const struct sc_sample *s,
                        const char *subject, const char *object);
void sc_verdict_returned(struct sc_verdict *v, const struct sc_return *r,
                         const char *subject, const char *object);
/* SC_NOT_READY_WHILE: the query repeated once everything completed. */
void sc_verdict_requery(struct sc_verdict *v, int result, const char *subject);
/* SC_AFTER between two device ops: their %globaltimer stamps must agree. */
void sc_verdict_stamps(struct sc_verdict *v, uint64_t subject_start_ns, uint64_t object_end_ns,
                       const char *subject, const char *object);
/* Everything drained; window_ms is the hold window, for the message. */
void sc_verdict_finish(struct sc_verdict *v, const char *subject, const char *object,
                       unsigned window_ms);
/* Decide the outcome (the first decision stands); for the relations the
 * runner judges itself: answers, gives, complete on return, keeps its data. */
void sc_verdict_decide(struct sc_verdict *v, enum sc_outcome o, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The case cannot run here: what it needs is missing (never a pass). */
void sc_verdict_skip(struct sc_verdict *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Something went wrong that makes the case undecidable. */
void sc_verdict_error(struct sc_verdict *v, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/*
 * Once everything is judged, if the gates had to be released early (the call
 * `blocker` blocked its issuing thread for a whole window, which any CUDA call
 * may legally do) while the verdict was open: a violation of a relation whose
 * premise, work held pending, the release can undo becomes undecidable.
 */
void sc_verdict_premise_lost(struct sc_verdict *v, const char *blocker);
/*
 * The gates were released early (as above) before the subject was issued, or
 * before its issuing thread began the call (a busy machine kept that thread
 * off the CPU for the whole window): a pass of "after", "blocks until" or a
 * relation of the subject's data (keeps its data, reads the fill, sees its
 * primary) proves nothing then, since the work the rule orders it after may
 * have completed before it was even issued: undecidable.  A violation, and a
 * pass judged by what was read at the time (A still pending when the subject
 * completed, answered or returned), stands.
 */
void sc_verdict_subject_unheld(struct sc_verdict *v, const char *why, const char *subject);
/* May the gates be released now? */
int sc_verdict_decided(const struct sc_verdict *v);

const char *sc_outcome_name(enum sc_outcome o);

#endif
