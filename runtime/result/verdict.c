/* verdict.c - deciding one relation from observations (see verdict.h). */
#include "verdict.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define NOT_READY 600 /* CUDA_ERROR_NOT_READY == cudaErrorNotReady */

void sc_verdict_start(struct sc_verdict *v, enum sc_relation rel)
{
    memset(v, 0, sizeof *v);
    v->rel = rel;
}

static void vdecide(struct sc_verdict *v, enum sc_outcome o, const char *fmt, va_list ap)
{
    if (v->outcome != SC_OPEN)
        return;
    v->outcome = o;
    vsnprintf(v->why, sizeof v->why, fmt, ap);
}

void sc_verdict_decide(struct sc_verdict *v, enum sc_outcome o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdecide(v, o, fmt, ap);
    va_end(ap);
}
#define decide sc_verdict_decide

void sc_verdict_skip(struct sc_verdict *v, const char *fmt, ...)
{
    va_list ap;
    if (v->outcome == SC_ERROR || v->outcome == SC_SKIP)
        return;
    v->outcome = SC_OPEN; /* a skip overrides what an incomplete run decided */
    va_start(ap, fmt);
    vdecide(v, SC_SKIP, fmt, ap);
    va_end(ap);
}

void sc_verdict_error(struct sc_verdict *v, const char *fmt, ...)
{
    char msg[384];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (v->outcome == SC_ERROR)
        return; /* keep the first error */
    if (v->outcome == SC_VIOLATED) { /* keep what was seen, then the error */
        size_t used = strlen(v->why);
        snprintf(v->why + used, sizeof v->why - used, "; then: %s", msg);
    } else {
        snprintf(v->why, sizeof v->why, "%s", msg);
    }
    v->outcome = SC_ERROR;
}

void sc_verdict_observe(struct sc_verdict *v, const struct sc_sample *s, const char *subject, const char *object)
{
    if (v->outcome != SC_OPEN)
        return;
    if (s->object_done && !s->released) {
        sc_verdict_error(v, "%s completed while its gate was still closed: the stream ran past a pending gate",
                         object);
        return;
    }
    switch (v->rel) {
    case SC_AFTER:
        if (s->subject_done && !s->object_done)
            decide(v, SC_VIOLATED, "%s completed while %s was still pending (%s)", subject, object,
                   s->released ? "after the gates were released" : "held by its gate");
        break;
    case SC_NOT_HELD:
        if (s->subject_done && !s->released)
            decide(v, SC_PASS, "%s completed while %s was held", subject, object);
        break;
    default:
        break; /* decided when the host call returns */
    }
}

/*
 * Did the issuing thread wait for a CPU for half the hold or more between its
 * issue and its return?  Then "it returned after the release" says nothing of
 * the call: on a loaded machine (the mock under a parallel self-test) a
 * thread marked issued was seen kept off the CPU past a 5 ms first look, and
 * a cuMemFree that never waits then returned after the held work completed,
 * a pass for a broken driver.  Such a run is undecidable: tried again with
 * the full window, never passed or failed on it.  Unless its CPU time says
 * where it was: a thread that used more CPU time in its call than passed from
 * the release to its return ran in its call before the release (a spinning
 * wait on a loaded machine waits on a run queue too, inside its call; 1 ms
 * covers the reads either side of the call, a few microseconds).
 */
static int off_cpu(const struct sc_return *r)
{
    return r->hold_ns && r->runq_ns * 2 >= r->hold_ns && r->cpu_ns <= r->late_ns + 1000000u;
}

/* A call that returned after the release while its thread waited for a CPU (off_cpu): undecidable. */
static void off_cpu_undecided(struct sc_verdict *v, const struct sc_return *r, const char *subject)
{
    decide(v, SC_UNDECIDED, "%s returned after the gates were released, but its thread waited %.1f ms for a CPU "
           "(the hold was %.1f ms): it may have entered its call only then", subject, (double)r->runq_ns / 1e6,
           (double)r->hold_ns / 1e6);
}

void sc_verdict_returned(struct sc_verdict *v, const struct sc_return *r, const char *subject, const char *object)
{
    if (v->outcome != SC_OPEN)
        return;
    switch (v->rel) {
    case SC_BLOCKS_UNTIL:
        if (!r->object_done)
            decide(v, SC_VIOLATED, "%s returned while %s was still pending%s", subject, object,
                   r->released ? "" : " (its gate had not even been released)");
        else if (!r->released)
            sc_verdict_error(v, "%s completed while its gate was still closed", object);
        else if (off_cpu(r))
            decide(v, SC_UNDECIDED, "%s returned after %s completed, but its thread waited %.1f ms for a CPU "
                   "(the hold was %.1f ms): it may have entered its call only after the gates were released",
                   subject, object, (double)r->runq_ns / 1e6, (double)r->hold_ns / 1e6);
        else
            decide(v, SC_PASS, "%s returned only after %s completed", subject, object);
        break;
    case SC_RETURNS_BEFORE:
        if (r->released && off_cpu(r))
            off_cpu_undecided(v, r, subject);
        else if (r->released)
            decide(v, SC_VIOLATED, "%s did not return until the gates were released: it waited for %s", subject,
                   object);
        else if (r->object_done)
            sc_verdict_error(v, "%s completed while its gate was still closed", object);
        else
            decide(v, SC_PASS, "%s returned while %s was held", subject, object);
        break;
    /* the queries: an answer given while the object was still pending (its completion unseen right after the
     * answer) speaks of the held state, whether or not the window had meanwhile passed; one given after the
     * object completed, from a call entered before the release, waited for it */
    case SC_NOT_READY_WHILE:
        if (r->result == NOT_READY && !r->object_done)
            v->query_ok = 1; /* decided once the repeat answers success */
        else if (r->result == 0 && !r->object_done)
            decide(v, SC_VIOLATED, "%s reported success while %s was %s", subject, object,
                   r->released ? "still pending" : "held");
        else if (r->released && off_cpu(r))
            off_cpu_undecided(v, r, subject);
        else if (r->released)
            decide(v, SC_VIOLATED, "%s did not answer until the gates were released: it waited for %s", subject,
                   object);
        else if (r->object_done)
            sc_verdict_error(v, "%s completed while its gate was still closed", object);
        else
            sc_verdict_error(v, "%s failed with error %d while %s was held", subject, r->result, object);
        break;
    case SC_READY_WHILE:
        if (r->result == NOT_READY && !r->gpu_reached)
            decide(v, SC_UNDECIDED, "the GPU did not start the held work within the window (busy with other "
                   "contexts?), so %s's not-ready answers prove nothing", subject);
        else if (r->result == NOT_READY)
            decide(v, SC_VIOLATED, "%s kept answering not-ready for the whole window while only %s, which it "
                   "does not cover, was pending", subject, object);
        else if (r->result == 0 && !r->object_done)
            decide(v, SC_PASS, "%s reported success while %s was %s", subject, object,
                   r->released ? "still pending" : "held");
        else if (r->released && off_cpu(r))
            off_cpu_undecided(v, r, subject);
        else if (r->released)
            decide(v, SC_VIOLATED, "%s did not answer until the gates were released: it waited for %s", subject,
                   object);
        else if (r->object_done)
            sc_verdict_error(v, "%s completed while its gate was still closed", object);
        else
            sc_verdict_error(v, "%s failed with error %d while %s was held", subject, r->result, object);
        break;
    default:
        break;
    }
}

void sc_verdict_requery(struct sc_verdict *v, int result, const char *subject)
{
    if (v->outcome != SC_OPEN || v->rel != SC_NOT_READY_WHILE || !v->query_ok)
        return;
    if (result == 0)
        decide(v, SC_PASS, "%s reported not-ready while the work was held, and success once it completed",
               subject);
    else if (result == NOT_READY)
        decide(v, SC_VIOLATED, "%s still reported not-ready after all work had completed", subject);
    else
        sc_verdict_error(v, "%s failed with error %d after all work had completed", subject, result);
}

void sc_verdict_stamps(struct sc_verdict *v, uint64_t subject_start_ns, uint64_t object_end_ns,
                       const char *subject, const char *object)
{
    if (v->rel == SC_AFTER && subject_start_ns < object_end_ns)
        decide(v, SC_VIOLATED, "%s started on the device %.3f us before %s ended (%%globaltimer)", subject,
               (double)(object_end_ns - subject_start_ns) / 1e3, object);
}

void sc_verdict_finish(struct sc_verdict *v, const char *subject, const char *object, unsigned window_ms)
{
    if (v->outcome != SC_OPEN)
        return;
    switch (v->rel) {
    case SC_AFTER:
        decide(v, SC_PASS, "%s stayed pending for the whole %u ms window while %s was held, and completed after it",
               subject, window_ms, object);
        break;
    case SC_NOT_HELD:
        decide(v, SC_VIOLATED, "%s stayed pending for the whole %u ms window while %s was held: it waited for %s",
               subject, window_ms, object, object);
        break;
    case SC_BLOCKS_UNTIL:
    case SC_RETURNS_BEFORE:
        sc_verdict_error(v, "%s never returned", subject);
        break;
    case SC_NOT_READY_WHILE:
    case SC_READY_WHILE:
    case SC_ANSWERS:
    case SC_GIVES:
    case SC_EQUALS:
    case SC_DIFFERS:
        sc_verdict_error(v, "%s gave no usable answer", subject);
        break;
    case SC_COMPLETE_ON_RETURN:
    case SC_KEEPS_DATA:
        sc_verdict_error(v, "the data %s left behind could not be checked", subject);
        break;
    case SC_RUNS_PER_LAUNCH:
    case SC_RUNS_ONCE:
    case SC_NEVER_RUNS:
        sc_verdict_error(v, "how often %s ran could not be checked", subject);
        break;
    case SC_SEES_PRIMARY:
        sc_verdict_error(v, "what %s read of its primary could not be checked", subject);
        break;
    case SC_SYNCHRONIZES:
        sc_verdict_error(v, "%s never answered success", subject);
        break;
    case SC_READS_FILL:
        sc_verdict_error(v, "what %s read could not be checked", subject);
        break;
    }
}

/*
 * Which violations an early release can produce on a legal driver:
 * - B after A, not held by, blocks until, returns before, (not) ready while,
 *   complete on return: none.  Each is seen directly: B completed while A had
 *   not; B's own call kept B pending for a whole window while A was held (a
 *   call after B that blocked for a window found B pending all that time);
 *   the call returned, or answered, while A was pending; the data was
 *   incomplete at the return.  A call before the subject that blocked for a
 *   window already made these undecidable when the subject was to be issued.
 * - answers, gives, keeps its data, equals, differs: the answer, the value or
 *   the bytes depend on what was still pending, which the release changed,
 *   wherever the call that blocked stood.
 */
void sc_verdict_premise_lost(struct sc_verdict *v, const char *blocker)
{
    char seen[sizeof v->why];
    if (v->outcome != SC_VIOLATED)
        return;
    switch (v->rel) {
    case SC_AFTER:
    case SC_NOT_HELD:
    case SC_BLOCKS_UNTIL:
    case SC_RETURNS_BEFORE:
    case SC_NOT_READY_WHILE:
    case SC_READY_WHILE:
    case SC_COMPLETE_ON_RETURN:
    case SC_RUNS_PER_LAUNCH: /* counted after everything completed: the release changes no count */
    case SC_SEES_PRIMARY:    /* an early release lets the primary write sooner: it cannot hide a result */
    case SC_RUNS_ONCE:
    case SC_NEVER_RUNS: /* counted after everything completed, as runs once per launch */
    case SC_SYNCHRONIZES: /* success answered while the data was not on the host: seen directly */
    case SC_READS_FILL: /* an early release lets the fill land sooner: it cannot hide what the read found */
        return;
    case SC_ANSWERS:
    case SC_GIVES:
    case SC_KEEPS_DATA:
    case SC_EQUALS:
    case SC_DIFFERS:
        break;
    }
    snprintf(seen, sizeof seen, "%s", v->why);
    v->outcome = SC_UNDECIDED;
    snprintf(v->why, sizeof v->why,
             "cannot decide: %.120s blocked its issuing thread for the whole window, so the gates were released "
             "early and the work the rule presumes pending may have completed; then: %.200s",
             blocker, seen);
}

int sc_verdict_decided(const struct sc_verdict *v)
{
    return v->outcome != SC_OPEN || (v->rel == SC_NOT_READY_WHILE && v->query_ok);
}

const char *sc_outcome_name(enum sc_outcome o)
{
    switch (o) {
    case SC_OPEN: return "open";
    case SC_PASS: return "pass";
    case SC_VIOLATED: return "violated";
    case SC_ERROR: return "error";
    case SC_SKIP: return "skip";
    case SC_UNDECIDED: return "undecided";
    }
    return "?";
}
