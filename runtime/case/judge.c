/*
 * judge.c - what a case's observations mean when the subject's call returns:
 * its answer, its value (a function per getter kind, value_of), a comparison
 * of two getters; a host function's answer and an elapsed time once known.
 * check.c judges what the ops left behind after the drain.  Each ends in an
 * sc_verdict_* call.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <string.h>

/* ---- judging the relations of the subject alone ---------------------------- */

/* Did op i's call answer one of the errors of stream capture, in a case that captures?  Capture rules
 * provoke such refusals to ask what they did (an invalidated capture, say); their subject judges that. */
static int capture_refusal(const struct run *r, int i)
{
    static const enum sc_code codes[] = { SC_CODE_CAPTURE_UNSUPPORTED, SC_CODE_CAPTURE_INVALIDATED,
                                          SC_CODE_CAPTURE_IMPLICIT, SC_CODE_CAPTURE_WRONG_THREAD,
                                          SC_CODE_CAPTURE_UNMATCHED, SC_CODE_CAPTURE_UNJOINED,
                                          SC_CODE_CAPTURED_EVENT };
    for (size_t k = 0; r->has_capture && k < sizeof codes / sizeof codes[0]; k++)
        if (r->b->code(codes[k]) > 0 && r->op[i].rc == r->b->code(codes[k])) /* < 0: an API without the code */
            return 1;
    return 0;
}

/* an edge refused in a program that asks what instantiation makes of an invalid structure: the
 * driver may validate the structure as the edge is added ("validated for any structural constraints ...
 * which were not previously validated"), which leaves the premise unmet (judge_value says so), not an error */
static int refused_edge_premise(const struct run *r, int i)
{
    return r->p->ops[i].kind == SC_OP_EDGE && r->p->subject >= 0 &&
           r->p->ops[r->p->subject].kind == SC_OP_INSTANTIATE_CHECKED;
}

/* A failed call that is not an error: the subject's answer, a call whose code is its answer (ops.def's
 * answers), a capture's refusal, the fault's own launch, or anything after it. */
int failure_expected(const struct run *r, int i)
{
    return (i == r->p->subject && r->p->rel == SC_ANSWERS) || sc_op_facts(r->p->ops[i].kind)->answers ||
           refused_edge_premise(r, i) ||
           capture_refusal(r, i) || r->faulted_at == i || after_fault(r, i);
}

static void judge_answer(struct run *r, int got, const char *what)
{
    const struct sc_prog *p = r->p;
    int want = r->b->code(p->code);
    const char *subject = opname(r, p->subject);
    if (p->code == SC_CODE_AN_ERROR && got != 0)
        sc_verdict_decide(&r->v, SC_PASS, "%s answered %s: it failed, as the rule requires", subject, what);
    else if (p->code == SC_CODE_AN_ERROR)
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s answered %s, not an error", subject, what);
    else if (got == want)
        sc_verdict_decide(&r->v, SC_PASS, "%s answered %s, as the rule requires", subject, what);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s answered %s, not %s (%s)", subject, what, sc_code_name(p->code),
                          want < 0 ? "-" : r->b->error_name(want));
}

/*
 * What a getter's value is in the rule's words (*v: the sc_value it is, 0 for none of them) and how it
 * reads (got): one function per getter kind, found through value_of below.  1: nothing to compare (the
 * point was decided otherwise, or is judged later).
 */
typedef int value_fn(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n);

static int value_stream_flags(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->value ? SC_VALUE_NONBLOCKING : SC_VALUE_BLOCKING;
    snprintf(got, n, "%s", sc_value_name(*v));
    return 0;
}

static int value_stream_priority(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    *v = o->value == r->least ? SC_VALUE_LEAST : o->value == r->greatest ? SC_VALUE_GREATEST : 0;
    snprintf(got, n, "priority %lld (range: least %d, greatest %d)", (long long)o->value, r->least, r->greatest);
    return 0;
}

static int value_pool_reserved(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    *v = o->value ? SC_VALUE_NONZERO : SC_VALUE_ZERO;
    if (r->p->value == SC_VALUE_MIN_KEPT) /* what cuMemPoolTrimTo(pool, sc_copy_bytes) keeps */
        *v = (uint64_t)o->value >= sc_copy_bytes ? SC_VALUE_MIN_KEPT : *v;
    snprintf(got, n, "%lld bytes reserved", (long long)o->value);
    return 0;
}

/* allocated is at least one allocation's size */
static int value_pool_used(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = (uint64_t)o->value >= sc_copy_bytes ? SC_VALUE_ALLOCATED : o->value ? 0 : SC_VALUE_ZERO;
    snprintf(got, n, "%lld bytes in use", (long long)o->value);
    return 0;
}

/* a high watermark: allocated is at least one allocation's size */
static int value_pool_high(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = (uint64_t)o->value >= sc_copy_bytes ? SC_VALUE_ALLOCATED : o->value ? 0 : SC_VALUE_ZERO;
    snprintf(got, n, "a high watermark of %lld bytes", (long long)o->value);
    return 0;
}

static int value_pool_access(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->value ? SC_VALUE_READWRITE : SC_VALUE_NONE;
    snprintf(got, n, "%s", o->value ? "read-write access" : "no access");
    return 0;
}

static int value_capture_status(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->value == SC_CAPTURE_ACTIVE        ? SC_VALUE_ACTIVE
         : o->value == SC_CAPTURE_INVALIDATED ? SC_VALUE_INVALIDATED
                                              : SC_VALUE_NONE;
    snprintf(got, n, "%s", sc_value_name(*v));
    return 0;
}

static int value_primary_release(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->value ? SC_VALUE_RESET : 0;
    snprintf(got, n, "the primary context %s after the releases", o->value ? "inactive" : "still active");
    return 0;
}

/* its result_out, whatever code it answered */
static int value_instantiate_checked(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    const struct sc_prog *p = r->p;
    for (int i = 0; i < p->subject; i++)
        if (p->ops[i].kind == SC_OP_EDGE && r->op[i].rc) {
            sc_verdict_decide(&r->v, SC_UNDECIDED, "%s answered %s: the driver refused the edge as it was added, "
                              "so the graph %s instantiated had no invalid structure to refuse", opname(r, i),
                              r->b->error_name(r->op[i].rc), opname(r, p->subject));
            return 1;
        }
    *v = o->value == SC_INSTANTIATE_SUCCESS             ? SC_VALUE_INSTANTIATED
         : o->value == SC_INSTANTIATE_INVALID_STRUCTURE ? SC_VALUE_INVALID_STRUCTURE
                                                        : 0;
    snprintf(got, n, "result_out %lld (%s), answering %s", (long long)o->value, *v ? sc_value_name(*v) : "another result",
             o->rc ? r->b->error_name(o->rc) : "success");
    return 0;
}

static int value_capture_deps(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    static const enum sc_value counts[] = { SC_VALUE_NO_DEPENDENCIES, SC_VALUE_ONE_DEPENDENCY, SC_VALUE_TWO_DEPENDENCIES };
    *v = o->valueless || o->value > 2 ? 0 : counts[o->value];
    if (o->valueless)
        snprintf(got, n, "no dependency set (its stream was not capturing)");
    else
        snprintf(got, n, "%lld node%s in the dependency set", (long long)o->value, o->value == 1 ? "" : "s");
    return 0;
}

/* whether cuStreamEndCapture gave back the graph the capture was begun into (capture_end_graph) */
static int value_capture_end_graph(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->valueless ? 0 : o->value ? SC_VALUE_ITS_GRAPH : SC_VALUE_ANOTHER_GRAPH;
    snprintf(got, n, "%s", o->valueless ? "no graph (the end failed)" : sc_value_name(*v));
    return 0;
}

/* the green context cuStreamGetGreenCtx gave (issue_stream_green: 1 the program's, 0 NULL, 2 another) */
static int value_stream_green(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->value == 1 ? SC_VALUE_ITS_GREEN : o->value == 0 ? SC_VALUE_NONE : 0;
    snprintf(got, n, "%s", o->value == 1 ? "the program's green context" : o->value == 0 ? "NULL" : "another green context");
    return 0;
}

/* stream_ctx: the context cuStreamGetCtx answered, as issue_stream_ctx found it */
static int value_stream_ctx(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r;
    *v = o->value == 1 ? SC_VALUE_PRIMARY : o->value == 2 ? SC_VALUE_THE_CONTEXT : 0;
    snprintf(got, n, "%s", *v ? sc_value_name(*v) : "another context");
    return 0;
}

/* sync_policy: enum sc_sync_policy, 0 for a value none of them is */
static int value_sync_policy(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    static const enum sc_value values[] = { [SC_SYNC_AUTO] = SC_VALUE_AUTO, [SC_SYNC_SPIN] = SC_VALUE_SPIN,
                                            [SC_SYNC_YIELD] = SC_VALUE_YIELD,
                                            [SC_SYNC_BLOCKING_SYNC] = SC_VALUE_BLOCKING_SYNC };
    (void)r;
    *v = o->value >= SC_SYNC_AUTO && o->value <= SC_SYNC_BLOCKING_SYNC ? values[o->value] : 0;
    snprintf(got, n, "%s", *v ? sc_value_name(*v) : "no policy the rules name");
    return 0;
}

/* judged once every gate has completed and stamped its hold: judge_elapsed */
static int value_elapsed(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    (void)r, (void)o, (void)v, (void)got, (void)n;
    return 1;
}

/* stream_sync, event_sync, ctx_sync: a context made with CU_CTX_SCHED_BLOCKING_SYNC blocks its
 * synchronizing thread.  A spinning thread on a machine with fewer CPUs than runnable threads uses little CPU
 * time too, but spends the rest waiting on a run queue: only the time it was not waiting for a CPU tells. */
static int value_sleeps(struct run *r, const struct op_rt *o, enum sc_value *v, char *got, size_t n)
{
    uint64_t wall = o->t_return - o->t_issue, runq = o->runq_ns > 0 ? (uint64_t)o->runq_ns : 0;
    uint64_t could_run = runq < wall ? wall - runq : 0;
    if (could_run < SC_SLEEP_MIN_NS) {
        sc_verdict_decide(&r->v, SC_UNDECIDED, "%s returned after %.3f ms, %.3f ms of them waiting for a CPU: "
                          "too short a wait to tell sleeping from spinning", opname(r, r->p->subject),
                          (double)wall / 1e6, (double)runq / 1e6);
        return 1;
    }
    *v = (uint64_t)o->value * 4 < could_run ? SC_VALUE_SLEEPS : 0;
    snprintf(got, n, "%.3f ms of CPU time in a wait of %.3f ms (%.3f ms of it waiting for a CPU)",
             (double)o->value / 1e6, (double)wall / 1e6, (double)runq / 1e6);
    return 0;
}

/* Each getter kind's value function (a kind without one is not a getter). */
static value_fn *const value_of[SC_OP_KIND_END] = {
    [SC_OP_STREAM_FLAGS] = value_stream_flags,
    [SC_OP_STREAM_PRIORITY] = value_stream_priority,
    [SC_OP_POOL_RESERVED] = value_pool_reserved,
    [SC_OP_POOL_USED] = value_pool_used,
    [SC_OP_POOL_HIGH] = value_pool_high,
    [SC_OP_POOL_ACCESS] = value_pool_access,
    [SC_OP_CAPTURE_STATUS] = value_capture_status,
    [SC_OP_CAPTURE_DEPS] = value_capture_deps,
    [SC_OP_CAPTURE_END_GRAPH] = value_capture_end_graph,
    [SC_OP_STREAM_GREEN] = value_stream_green,
    [SC_OP_STREAM_CTX] = value_stream_ctx,
    [SC_OP_SYNC_POLICY] = value_sync_policy,
    [SC_OP_PRIMARY_RELEASE] = value_primary_release,
    [SC_OP_INSTANTIATE_CHECKED] = value_instantiate_checked,
    [SC_OP_ELAPSED] = value_elapsed,
    [SC_OP_STREAM_SYNC] = value_sleeps,
    [SC_OP_EVENT_SYNC] = value_sleeps,
    [SC_OP_CTX_SYNC] = value_sleeps,
};

static void judge_value(struct run *r)
{
    const struct sc_prog *p = r->p;
    const struct op_rt *o = &r->op[p->subject];
    enum sc_op_kind k = o->def->kind;
    value_fn *fn = k > SC_OP_NONE && k < SC_OP_KIND_END ? value_of[k] : NULL;
    char got[96];
    enum sc_value v = 0;
    if (!fn) {
        sc_verdict_error(&r->v, "%s is not a getter", opname(r, p->subject));
        return;
    }
    if (fn(r, o, &v, got, sizeof got))
        return;
    log_note(r, "%s gave %s", opname(r, p->subject), got);
    if (v == p->value)
        sc_verdict_decide(&r->v, SC_PASS, "%s gave %s, as the rule requires", opname(r, p->subject), got);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s gave %s, not %s", opname(r, p->subject), got, sc_value_name(p->value));
}

/*
 * a stream or event query a program issues before an error-state getter (get_last_error,
 * peek_last_error) is there to answer not-ready, which the getter must not report.  One that answered
 * success (the gates had to open early, as under CUDA_LAUNCH_BLOCKING=1) did not test that: the point is
 * undecidable.  Returns 1 when it decided so.
 */
static int query_premise_failed(struct run *r)
{
    const struct sc_prog *p = r->p;
    if (!sc_op_facts(p->ops[p->subject].kind)->error_state)
        return 0;
    for (int i = 0; i < p->subject; i++) {
        if (sc_op_is_query(p->ops[i].kind) && p->ops[i].thread == p->ops[p->subject].thread &&
            r->op[i].result == 0) {
            sc_verdict_decide(&r->v, SC_UNDECIDED, "cannot decide: %s answered success, not not-ready (the work it "
                              "asks about was no longer held), so %s had no not-ready to leave out",
                              opname(r, i), opname(r, p->subject));
            return 1;
        }
    }
    return 0;
}

/* The subject's call returned: decide what can be decided now. */
void judge_return(struct run *r)
{
    const struct sc_prog *p = r->p;
    const struct op_rt *o = &r->op[p->subject];
    enum sc_op_kind k = o->def->kind;
    char what[96];
    switch (p->rel) {
    case SC_ANSWERS:
        if (sc_op_facts(k)->host_body && o->result == 0)
            break; /* enqueued: they answer when they run, or do not */
        if (k == SC_OP_HOST_FUNC && after_fault(r, p->subject)) {
            /* the context's error answered at the launch (a faulting launch that waited for its kernel,
             * CUDA_LAUNCH_BLOCKING=1): the function is never called */
            snprintf(what, sizeof what, "skipped (its launch answered %s after the fault)", r->b->error_name(o->result));
            judge_answer(r, -1, what);
            break;
        }
        if (query_premise_failed(r))
            break;
        snprintf(what, sizeof what, "%s (%d)", o->result ? r->b->error_name(o->result) : "success", o->result);
        if (k == SC_OP_ELAPSED && o->result == 0)
            log_note(r, "%s: %.3f ms between the events", opname(r, p->subject), (double)o->ms);
        judge_answer(r, o->result, what);
        break;
    case SC_GIVES:
        if (o->rc == 0 || k == SC_OP_INSTANTIATE_CHECKED) /* a refused instantiation gives its result_out */
            judge_value(r);
        break;
    case SC_COMPLETE_ON_RETURN:
        if (o->rc)
            break;
        if (o->at_return == 1)
            sc_verdict_decide(&r->v, SC_PASS, "when %s returned, its destination already held all its data",
                              opname(r, p->subject));
        else if (o->at_return == 0)
            sc_verdict_decide(&r->v, SC_VIOLATED,
                              "%s returned before its copy was complete: word %zu of the destination was 0x%08x "
                              "(%s), not 0x%08x", opname(r, p->subject), o->bad_word, o->bad_value,
                              writer_of(r, o->bad_value), expected_word(o));
        else if (!o->clobbered)
            sc_verdict_error(&r->v, "the completion of %s at its return cannot be observed: neither its source nor "
                             "its destination is host memory", opname(r, p->subject));
        break;
    case SC_SYNCHRONIZES: /* asked until success; what the object wrote read right at that answer */
        if (o->result == SC_NOT_READY)
            sc_verdict_error(&r->v, "%s still answered not-ready %.0f ms after it was first asked",
                             opname(r, p->subject), (double)r->cfg.deadline_ns / 1e6);
        else if (o->result)
            sc_verdict_error(&r->v, "%s failed: %s (%d)", opname(r, p->subject), r->b->error_name(o->result),
                             o->result);
        else if (o->at_return == 1)
            sc_verdict_decide(&r->v, SC_PASS, "when %s answered success, the managed memory %s wrote already held "
                              "all its data on the host", opname(r, p->subject), opname(r, p->object));
        else if (o->at_return == 0)
            sc_verdict_decide(&r->v, SC_VIOLATED,
                              "%s answered success, yet the managed memory %s writes did not hold its data on the "
                              "host: word %zu was 0x%08x (%s), not 0x%08x", opname(r, p->subject),
                              opname(r, p->object), o->bad_word, o->bad_value, writer_of(r, o->bad_value),
                              expected_word(&r->op[p->object]));
        else
            sc_verdict_error(&r->v, "what %s wrote cannot be read on the host", opname(r, p->object));
        break;
    default: {
        struct sc_return ret = o->ret; /* main released the gates: only it knows when */
        ret.late_ns = ret.released && o->t_return > r->t_release ? o->t_return - r->t_release : 0;
        sc_verdict_returned(&r->v, &ret, opname(r, p->subject), p->object >= 0 ? opname(r, p->object) : "");
        break;
    }
    }
}

/*
 * Elapsed time that "spans_hold": non-negative and no shorter than the time the program's gates were held,
 * by their own %globaltimer stamps (less SC_ELAPSED_SLACK_NS for the two clocks' resolution).  Judged at the
 * end, once every gate has completed.  Gates whose kernels began so late (a GPU busy with another program's
 * work) that they held under half the window give a span any elapsed time meets: undecidable, never a pass.
 */
void judge_elapsed(struct run *r)
{
    const struct sc_prog *p = r->p;
    const struct op_rt *o = &r->op[p->subject];
    uint64_t held = 0;
    int gates = 0;
    if (p->rel != SC_GIVES || o->def->kind != SC_OP_ELAPSED || o->rc || sc_verdict_decided(&r->v))
        return;
    for (int i = 0; i < p->nops; i++) {
        const struct sc_slot *sl = &r->arena->slots[i];
        if (p->ops[i].kind != SC_OP_GATE)
            continue;
        if (sl->token != r->op[i].token) {
            sc_verdict_error(&r->v, "%s never completed: the hold %s should span is unknown", opname(r, i),
                             opname(r, p->subject));
            return;
        }
        held += sl->end_ns - sl->start_ns;
        gates++;
    }
    if (!gates) {
        sc_verdict_error(&r->v, "no gate in the program: %s has no hold to span", opname(r, p->subject));
        return;
    }
    double ms = o->ms, need = (double)(held > SC_ELAPSED_SLACK_NS ? held - SC_ELAPSED_SLACK_NS : 0) / 1e6;
    log_note(r, "%s: %.3f ms between the events; the gates were held %.3f ms", opname(r, p->subject), ms,
             (double)held / 1e6);
    if (ms >= 0 && ms >= need && held < r->cfg.window_ns / 2) /* the gates' kernels began late: a busy GPU */
        sc_verdict_decide(&r->v, SC_UNDECIDED,
                          "cannot decide: the gates were held only %.3f ms of the %.0f ms window (their work began "
                          "late, the GPU running other work first), too short a span to tell %s's %.3f ms from",
                          (double)held / 1e6, (double)r->cfg.window_ns / 1e6, opname(r, p->subject), ms);
    else if (ms >= 0 && ms >= need)
        sc_verdict_decide(&r->v, SC_PASS, "%s gave %.3f ms, at least the %.3f ms its gates were held",
                          opname(r, p->subject), ms, (double)held / 1e6);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s gave %.3f ms, less than the %.3f ms its gates were held",
                          opname(r, p->subject), ms, (double)held / 1e6);
}

/* Equals / differs: judged once both getters returned. */
void judge_comparison(struct run *r)
{
    const struct sc_prog *p = r->p;
    const struct op_rt *x = &r->op[p->subject], *y = p->object >= 0 ? &r->op[p->object] : NULL;
    if ((p->rel != SC_EQUALS && p->rel != SC_DIFFERS) || r->compared || !y || load(&x->state) != ST_RETURNED ||
        load(&y->state) != ST_RETURNED || x->rc || y->rc)
        return;
    r->compared = 1;
    if (x->valueless || y->valueless) { /* a capture_id of a stream that was not capturing */
        const struct op_rt *none = x->valueless ? x : y;
        int which = none == x ? p->subject : p->object;
        if (p->rel == SC_EQUALS)
            sc_verdict_decide(&r->v, SC_VIOLATED, "%s gave no value (its stream was not capturing), so not the "
                              "value %s gave", opname(r, which), opname(r, which == p->subject ? p->object : p->subject));
        else
            sc_verdict_error(&r->v, "%s gave no value (its stream was not capturing): there were not two "
                             "values to compare", opname(r, which));
        return;
    }
    int same = x->value == y->value;
    char xs[32], ys[32];
    const char *fmt = x->def->kind == SC_OP_ADDRESS ? "%#llx" : "%lld"; /* addresses in hex */
    snprintf(xs, sizeof xs, fmt, (long long)x->value);
    snprintf(ys, sizeof ys, fmt, (long long)y->value);
    log_note(r, "%s gave %s, %s gave %s", opname(r, p->subject), xs, opname(r, p->object), ys);
    if (same == (p->rel == SC_EQUALS))
        sc_verdict_decide(&r->v, SC_PASS, "%s gave %s value as %s (%s%s%s)", opname(r, p->subject),
                          same ? "the same" : "another", opname(r, p->object), xs, same ? " = " : " vs ", ys);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s gave %s value as %s (%s%s%s)", opname(r, p->subject),
                          same ? "the same" : "another", opname(r, p->object), xs, same ? " = " : " vs ", ys);
}

/* A group subject of "not held by": say how many members stayed independent. */
void count_group(struct run *r)
{
    const struct sc_prog *p = r->p;
    const struct op_rt *o = &r->op[p->subject];
    if (p->rel != SC_NOT_HELD || o->nmem < 2)
        return;
    if (r->v.outcome == SC_PASS)
        snprintf(r->v.why, sizeof r->v.why, "all %d members of %s completed while %s was held", o->nmem,
                 opname(r, p->subject), opname(r, p->object));
    else if (r->v.outcome == SC_VIOLATED)
        snprintf(r->v.why, sizeof r->v.why,
                 "%d of %d members of %s completed while %s was held; the other %d waited for it (false "
                 "dependencies: %d streams stayed independent)",
                 r->best_members, o->nmem, opname(r, p->subject), opname(r, p->object), o->nmem - r->best_members,
                 r->best_members);
}

/* A host function or callback subject of "answers": decided once it ran, or clearly will not. */
void judge_host_answer(struct run *r)
{
    const struct sc_prog *p = r->p;
    struct op_rt *o = &r->op[p->subject];
    struct sc_slot *sl = &r->arena->slots[p->subject];
    char what[96];
    if (p->rel != SC_ANSWERS ||
        !sc_op_facts(o->def->kind)->host_body || o->rc)
        return;
    if (r->faulted_at >= 0) {
        /* the context reported its error; give the function one more window to be called */
        uint64_t until = sc_now_ns() + r->cfg.window_ns;
        while (__atomic_load_n(&sl->token, __ATOMIC_ACQUIRE) != o->token && sc_now_ns() < until)
            sc_pause_ns(SC_POLL_NS);
    }
    int ran = __atomic_load_n(&sl->token, __ATOMIC_ACQUIRE) == o->token;
    if (o->def->kind == SC_OP_HOST_FUNC) {
        log_note(r, "%s %s", opname(r, p->subject), ran ? "ran" : "did not run");
        judge_answer(r, ran ? r->b->code(SC_CODE_SUCCESS) : -1, ran ? "success (it ran)" : "skipped (it never ran)");
    } else if (!ran) {
        sc_verdict_decide(&r->v, SC_VIOLATED, "callback %s was never called", opname(r, p->subject));
    } else {
        snprintf(what, sizeof what, "%s (%u) as %s", sl->arg ? r->b->error_name((int)sl->arg) : "success", sl->arg,
                 o->def->kind == SC_OP_CALLBACK_API ? "the answer of its CUDA call" : "its status");
        judge_answer(r, (int)sl->arg, what);
    }
}
