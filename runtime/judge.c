/*
 * judge.c - what a case's observations mean: the subject's answer, value or
 * comparison when its call returns, the %globaltimer stamps, and after the
 * drain the data the ops left behind.  Each ends in an sc_verdict_* call.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <string.h>

/* ---- after the drain ----------------------------------------------------- */

/* Runs once per launch: the subject's slot counts its runs; the successful graph_replay ops, the launches.
 * Runs once (capmisc): the slot counts one run. */
void judge_runs(struct run *r)
{
    const struct sc_prog *p = r->p;
    unsigned launches = 0, runs;
    if (p->rel == SC_RUNS_ONCE && r->v.outcome == SC_OPEN && r->op[p->subject].rc) {
        /* after a context's error a driver may refuse the call itself (CUDA_LAUNCH_BLOCKING=1 reports a fault
         * at its launch): it added nothing that could run */
        sc_verdict_decide(&r->v, SC_UNDECIDED, "%s's call answered %s: it added nothing to run, so how often it "
                          "runs cannot be judged", opname(r, p->subject), r->b->error_name(r->op[p->subject].rc));
        return;
    }
    if (p->rel == SC_RUNS_ONCE && r->v.outcome == SC_OPEN) { /* capmisc: exactly once, by the end */
        runs = __atomic_load_n(&r->arena->slots[p->subject].runs, __ATOMIC_ACQUIRE);
        log_note(r, "%s ran %u times", opname(r, p->subject), runs);
        if (runs == 1)
            sc_verdict_decide(&r->v, SC_PASS, "%s ran once, as the rule requires", opname(r, p->subject));
        else
            sc_verdict_decide(&r->v, SC_VIOLATED, "%s ran %u times, not once", opname(r, p->subject), runs);
        return;
    }
    if (p->rel == SC_NEVER_RUNS && r->v.outcome == SC_OPEN) { /* graphinst: no launch of the program ran it */
        for (int i = 0; i < p->nops; i++)
            launches += p->ops[i].kind == SC_OP_GRAPH_REPLAY && load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc;
        runs = __atomic_load_n(&r->arena->slots[p->subject].runs, __ATOMIC_ACQUIRE);
        log_note(r, "%s ran %u times; the program launched graphs %u times", opname(r, p->subject), runs, launches);
        if (runs)
            sc_verdict_decide(&r->v, SC_VIOLATED, "%s ran %u times, where no launch of the program may run it",
                              opname(r, p->subject), runs);
        else if (launches == 0 || r->final_sync_rc)
            /* no launch completed: that the node did not run proves nothing */
            sc_verdict_decide(&r->v, SC_UNDECIDED, "%s never ran, but %s", opname(r, p->subject),
                              launches ? "the launches did not complete (the final synchronize failed)"
                                       : "no launch of a graph succeeded");
        else
            sc_verdict_decide(&r->v, SC_PASS, "%s never ran, though %u launches completed", opname(r, p->subject),
                              launches);
        return;
    }
    if (p->rel != SC_RUNS_PER_LAUNCH || r->v.outcome != SC_OPEN)
        return;
    for (int i = 0; i < p->nops; i++)
        launches += p->ops[i].kind == SC_OP_GRAPH_REPLAY && load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc;
    runs = __atomic_load_n(&r->arena->slots[p->subject].runs, __ATOMIC_ACQUIRE);
    log_note(r, "%s ran %u times; the program launched its graph %u times", opname(r, p->subject), runs, launches);
    if (launches == 0)
        sc_verdict_error(&r->v, "no launch of the graph succeeded: how often %s runs per launch cannot be judged",
                         opname(r, p->subject));
    else if (runs == launches)
        sc_verdict_decide(&r->v, SC_PASS, "%s ran %u times, once in each of the %u launches", opname(r, p->subject),
                          runs, launches);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s ran %u times in %u launches of its graph", opname(r, p->subject),
                          runs, launches);
}

/*
 * Sees its primary: the subject (kernel_pdl) kept in its slot's arg the token word of its primary's slot
 * as it read it, after its dependency sync when it synchronizes; the primary writes that token last, so
 * reading it means its result was visible.  0: the primary had not written it yet.
 */
void judge_primary_read(struct run *r)
{
    const struct sc_prog *p = r->p;
    int primary;
    uint32_t seen;
    if (p->rel != SC_SEES_PRIMARY || r->v.outcome != SC_OPEN)
        return;
    primary = sc_op_primary(p, p->subject);
    if (primary < 0 || load(&r->op[p->subject].state) != ST_RETURNED || r->op[p->subject].rc) {
        sc_verdict_error(&r->v, "%s did not run: what it read of its primary cannot be judged",
                         opname(r, p->subject));
        return;
    }
    seen = __atomic_load_n(&r->arena->slots[p->subject].arg, __ATOMIC_ACQUIRE);
    log_note(r, "%s read %#x where its primary %s writes %#x", opname(r, p->subject), seen, opname(r, primary),
             r->op[primary].token);
    if (seen == r->op[primary].token)
        sc_verdict_decide(&r->v, SC_PASS, "%s read the result of %s (token %#x)", opname(r, p->subject),
                          opname(r, primary), seen);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s read %#x, not the result of %s (token %#x): %s had not written it",
                          opname(r, p->subject), seen, opname(r, primary), r->op[primary].token, opname(r, primary));
}

/* Which op writes this word to its destination: names the culprit of a clobber. */
static const char *writer_of(struct run *r, uint32_t word)
{
    if (word == SC_CLOBBER)
        return "the pattern written over the source after the call returned";
    for (int i = 0; i < r->p->nops; i++) {
        enum sc_op_kind k = r->p->ops[i].kind;
        if (data_of(k) != SC_DATA_NONE && expected_word(&r->op[i]) == word)
            return r->p->ops[i].name;
    }
    return word == 0 ? "the zeroes it was cleared with" : "no op of the case";
}

/* The destination of op i, readable by the host (device memory is copied to scratch): NULL on failure. */
static const uint32_t *read_back(struct run *r, int i)
{
    const sc_backend *b = r->b;
    const struct sc_op_def *d = &r->p->ops[i];
    enum where dw, sw;
    int rc = 0;
    void *dst;
    if (d->kind == SC_OP_FILL) {
        dst = r->buf_ptr[d->buffer];
        dw = W_DEV_DST;
    } else {
        op_ends(d, &dw, &sw);
        dst = arena_buffer(r, d->kind == SC_OP_NODE_DATA ? node_buffer(r->p, i) : i, dw, &rc);
    }
    if (on_host(dw))
        return dst;
    on_dev(r, r->op[i].device);
    if (dst)
        rc = b->memcpy_sync(r->arena->scratch, dst, SC_COPY_BYTES, SC_D2H_PINNED);
    on_dev(r, 0);
    if (!dst || rc) {
        sc_verdict_error(&r->v, "reading back %s's destination failed: %s", opname(r, i), b->error_name(rc));
        return NULL;
    }
    return r->arena->scratch;
}

/* Does a fill issued after op i (a fill) write the same buffer? */
static int overwritten_later(struct run *r, int i)
{
    for (int j = i + 1; j < r->p->nops; j++)
        if (r->p->ops[j].kind == SC_OP_FILL && r->p->ops[j].buffer == r->p->ops[i].buffer && !r->op[j].rc &&
            load(&r->op[j].state) == ST_RETURNED)
            return 1;
    return 0;
}

void check_data(struct run *r)
{
    const struct sc_prog *p = r->p;
    for (int i = 0; i < p->nops; i++) {
        struct op_rt *o = &r->op[i];
        enum sc_op_kind k = o->def->kind;
        struct sc_slot *sl = &r->arena->slots[i];
        int judged = i == p->subject && (p->rel == SC_KEEPS_DATA || (p->rel == SC_COMPLETE_ON_RETURN && o->clobbered));
        if (o->rc || o->captured || load(&o->state) != ST_RETURNED)
            continue;
        if (spinning_gate(k) && sl->status == SC_GATE_EXPIRED)
            sc_verdict_error(&r->v, "gate %s ran into its own deadline: it was never released", opname(r, i));
        if (k == SC_OP_CALLBACK && sl->arg != 0 && !(i == p->subject && p->rel == SC_ANSWERS))
            sc_verdict_error(&r->v, "callback %s received status %u, not success", opname(r, i), sl->arg);
        if (data_of(k) == SC_DATA_NONE || (k == SC_OP_NODE_DATA && !judged))
            continue; /* nodes: the nodes of a graph share one buffer, which only its last writer owns */
        if (!mine(r, i) && !(k == SC_OP_FILL && p->buffer_ipc[o->def->buffer]))
            continue; /* another process's memory: main cannot read it back */
        if (k == SC_OP_FILL && r->buf_freed[o->def->buffer]) {
            if (judged)
                sc_verdict_error(&r->v, "%s's buffer was freed: its data cannot be checked", opname(r, i));
            continue; /* the memory is no longer its own */
        }
        if (k == SC_OP_FILL && overwritten_later(r, i))
            continue; /* a later fill of the same buffer owns its bytes */
        const uint32_t *got = read_back(r, i);
        uint32_t want = expected_word(o);
        size_t w = 0;
        while (got && w < SC_COPY_BYTES / 4 && got[w] == want)
            w++;
        if (!got)
            continue;
        if (w == SC_COPY_BYTES / 4) {
            if (judged)
                sc_verdict_decide(&r->v, SC_PASS, "%s's destination holds what %s wrote%s", opname(r, i), opname(r, i),
                                  o->clobbered ? ", although its source was overwritten as soon as the call returned" : "");
        } else if (judged && p->rel == SC_COMPLETE_ON_RETURN) {
            sc_verdict_decide(&r->v, SC_VIOLATED,
                              "%s read its source after its call returned: word %zu of its destination is 0x%08x, "
                              "written by %s", opname(r, i), w, got[w], writer_of(r, got[w]));
        } else if (judged) {
            sc_verdict_decide(&r->v, SC_VIOLATED,
                              "%s's data was overwritten: word %zu of its destination is 0x%08x, written by %s, "
                              "not 0x%08x", opname(r, i), w, got[w], writer_of(r, got[w]), want);
        } else if (p->rel == SC_AFTER && i == p->subject && p->object >= 0 && data_of(p->ops[p->object].kind) != SC_DATA_NONE &&
                   expected_word(&r->op[p->object]) == got[w]) {
            /* B's destination ends with A's data: A wrote after B did, so B did not wait for A to complete.
             * The same violation the observer looks for, seen in the bytes (and where the observer missed B's
             * completion in the window, as a loaded machine can make it, the control's violation all the same) */
            sc_verdict_decide(&r->v, SC_VIOLATED, "%s's destination holds %s's data (word %zu is 0x%08x): %s wrote "
                              "after %s did", opname(r, i), opname(r, p->object), w, got[w], opname(r, p->object),
                              opname(r, i));
        } else if (r->v.outcome == SC_VIOLATED) {
            /* the order was already seen broken: wrong data is its consequence, not a new error */
            log_note(r, "%s's destination holds 0x%08x (written by %s), not its own 0x%08x", opname(r, i), got[w],
                 writer_of(r, got[w]), want);
        } else {
            sc_verdict_error(&r->v, "%s left wrong data: word %zu is 0x%08x (written by %s), expected 0x%08x",
                             opname(r, i), w, got[w], writer_of(r, got[w]), want);
        }
    }
}

void check_stamps(struct run *r)
{
    const struct sc_prog *p = r->p;
    if (p->rel != SC_AFTER || !sc_op_facts(p->ops[p->subject].kind)->stamp ||
        !sc_op_facts(p->ops[p->object].kind)->stamp)
        return;
    struct sc_slot *s = &r->arena->slots[p->subject], *o = &r->arena->slots[p->object];
    if (r->op[p->subject].device != r->op[p->object].device) {
        /* each GPU has its own %globaltimer: on 2 x H200 B's read 60 us "before" A's end on the other GPU
         * while the host saw B complete after A; the host's observation alone judges across devices */
        log_note(r, "%s and %s ran on devices %d and %d, whose %%globaltimer clocks differ: stamps not compared",
                 opname(r, p->subject), opname(r, p->object), r->op[p->subject].device, r->op[p->object].device);
        return;
    }
    if (s->token == r->op[p->subject].token && o->token == r->op[p->object].token)
        sc_verdict_stamps(&r->v, s->start_ns, o->end_ns, opname(r, p->subject), opname(r, p->object));
}

/* ---- judging the relations of the subject alone ---------------------------- */

/* Did op i's call answer one of the errors of stream capture, in a case that captures?  Capture rules
 * provoke such refusals to ask what they did (an invalidated capture, say); their subject judges that. */
static int capture_refusal(const struct run *r, int i)
{
    static const enum sc_code codes[] = { SC_CODE_CAPTURE_UNSUPPORTED, SC_CODE_CAPTURE_INVALIDATED,
                                          SC_CODE_CAPTURE_IMPLICIT, SC_CODE_CAPTURE_WRONG_THREAD,
                                          /* capmisc */
                                          SC_CODE_CAPTURE_UNMATCHED, SC_CODE_CAPTURE_UNJOINED,
                                          SC_CODE_CAPTURED_EVENT };
    for (size_t k = 0; r->has_capture && k < sizeof codes / sizeof codes[0]; k++)
        if (r->b->code(codes[k]) > 0 && r->op[i].rc == r->b->code(codes[k])) /* < 0: an API without the code */
            return 1;
    return 0;
}

/* graphinst: an edge refused in a program that asks what instantiation makes of an invalid structure: the
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

static void judge_value(struct run *r)
{
    const struct sc_prog *p = r->p;
    const struct op_rt *o = &r->op[p->subject];
    char got[96];
    enum sc_value v = 0;
    switch (o->def->kind) {
    case SC_OP_STREAM_FLAGS:
        v = o->value ? SC_VALUE_NONBLOCKING : SC_VALUE_BLOCKING;
        snprintf(got, sizeof got, "%s", sc_value_name(v));
        break;
    case SC_OP_STREAM_PRIORITY:
        v = o->value == r->least ? SC_VALUE_LEAST : o->value == r->greatest ? SC_VALUE_GREATEST : 0;
        snprintf(got, sizeof got, "priority %lld (range: least %d, greatest %d)", (long long)o->value, r->least,
                 r->greatest);
        break;
    case SC_OP_POOL_RESERVED:
        v = o->value ? SC_VALUE_NONZERO : SC_VALUE_ZERO;
        if (p->value == SC_VALUE_MIN_KEPT) /* ctxalloc: what cuMemPoolTrimTo(pool, SC_TRIM_KEEP_BYTES) keeps */
            v = (uint64_t)o->value >= SC_TRIM_KEEP_BYTES ? SC_VALUE_MIN_KEPT : v;
        snprintf(got, sizeof got, "%lld bytes reserved", (long long)o->value);
        break;
    case SC_OP_POOL_USED: /* poolreuse: allocated is at least one allocation's size */
        v = (uint64_t)o->value >= SC_COPY_BYTES ? SC_VALUE_ALLOCATED : o->value ? 0 : SC_VALUE_ZERO;
        snprintf(got, sizeof got, "%lld bytes in use", (long long)o->value);
        break;
    case SC_OP_POOL_ACCESS:
        v = o->value ? SC_VALUE_READWRITE : SC_VALUE_NONE;
        snprintf(got, sizeof got, "%s", o->value ? "read-write access" : "no access");
        break;
    case SC_OP_CAPTURE_STATUS:
        v = o->value == SC_CAPTURE_ACTIVE ? SC_VALUE_ACTIVE
            : o->value == SC_CAPTURE_INVALIDATED ? SC_VALUE_INVALIDATED : SC_VALUE_NONE;
        snprintf(got, sizeof got, "%s", sc_value_name(v));
        break;
    case SC_OP_PRIMARY_RELEASE: /* ctxalloc */
        v = o->value ? SC_VALUE_RESET : 0;
        snprintf(got, sizeof got, "the primary context %s after the releases", o->value ? "inactive" : "still active");
        break;
    case SC_OP_INSTANTIATE_CHECKED: /* graphinst: its result_out, whatever code it answered */
        for (int i = 0; i < p->subject; i++)
            if (p->ops[i].kind == SC_OP_EDGE && r->op[i].rc) {
                sc_verdict_decide(&r->v, SC_UNDECIDED, "%s answered %s: the driver refused the edge as it was added, "
                                  "so the graph %s instantiated had no invalid structure to refuse", opname(r, i),
                                  r->b->error_name(r->op[i].rc), opname(r, p->subject));
                return;
            }
        v = o->value == SC_INSTANTIATE_SUCCESS ? SC_VALUE_INSTANTIATED
            : o->value == SC_INSTANTIATE_INVALID_STRUCTURE ? SC_VALUE_INVALID_STRUCTURE : 0;
        snprintf(got, sizeof got, "result_out %lld (%s), answering %s", (long long)o->value,
                 v ? sc_value_name(v) : "another result", o->rc ? r->b->error_name(o->rc) : "success");
        break;
    case SC_OP_ELAPSED:
        return; /* judged once every gate has completed and stamped its hold: judge_elapsed */
    case SC_OP_EVENT_SYNC:
    case SC_OP_STREAM_SYNC:
    case SC_OP_CTX_SYNC: { /* ctxalloc: a context made with CU_CTX_SCHED_BLOCKING_SYNC blocks its synchronizing thread */
        /* a spinning thread on a machine with fewer CPUs than runnable threads uses little CPU time too, but
         * spends the rest waiting on a run queue: only the time it was not waiting for a CPU tells */
        uint64_t wall = o->t_return - o->t_issue, runq = o->runq_ns > 0 ? (uint64_t)o->runq_ns : 0;
        uint64_t could_run = runq < wall ? wall - runq : 0;
        if (could_run < SC_SLEEP_MIN_NS) {
            sc_verdict_decide(&r->v, SC_UNDECIDED, "%s returned after %.3f ms, %.3f ms of them waiting for a CPU: "
                              "too short a wait to tell sleeping from spinning", opname(r, p->subject),
                              (double)wall / 1e6, (double)runq / 1e6);
            return;
        }
        v = (uint64_t)o->value * 4 < could_run ? SC_VALUE_SLEEPS : 0;
        snprintf(got, sizeof got, "%.3f ms of CPU time in a wait of %.3f ms (%.3f ms of it waiting for a CPU)",
                 (double)o->value / 1e6, (double)wall / 1e6, (double)runq / 1e6);
        break;
    }
    default:
        sc_verdict_error(&r->v, "%s is not a getter", opname(r, p->subject));
        return;
    }
    log_note(r, "%s gave %s", opname(r, p->subject), got);
    if (v == p->value)
        sc_verdict_decide(&r->v, SC_PASS, "%s gave %s, as the rule requires", opname(r, p->subject), got);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s gave %s, not %s", opname(r, p->subject), got, sc_value_name(p->value));
}

/*
 * pginv: a stream or event query a program issues before an error-state getter (get_last_error,
 * peek_last_error) is there to answer not-ready, which the getter must not report.  One that answered
 * success (the gates had to open early, as under CUDA_LAUNCH_BLOCKING=1) did not test that: the point is
 * undecidable.  Returns 1 when it decided so.
 */
static int query_premise_failed(struct run *r)
{
    const struct sc_prog *p = r->p;
    enum sc_op_kind k = p->ops[p->subject].kind;
    if (k != SC_OP_GET_LAST_ERROR && k != SC_OP_PEEK_LAST_ERROR)
        return 0;
    for (int i = 0; i < p->subject; i++) {
        enum sc_op_kind q = p->ops[i].kind;
        if ((q == SC_OP_STREAM_QUERY || q == SC_OP_EVENT_QUERY) && p->ops[i].thread == p->ops[p->subject].thread &&
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
        if ((k == SC_OP_HOST_FUNC || k == SC_OP_CALLBACK || k == SC_OP_CALLBACK_API) && o->result == 0)
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
        if (o->rc == 0 || k == SC_OP_INSTANTIATE_CHECKED) /* graphinst: a refused instantiation gives its result_out */
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
    case SC_SYNCHRONIZES: /* um: asked until success; what the object wrote read right at that answer */
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
 * end, once every gate has completed.
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
    if (ms >= 0 && ms >= need)
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
    int same = x->value == y->value;
    char xs[32], ys[32];
    const char *fmt = x->def->kind == SC_OP_ADDRESS ? "%#llx" : "%lld"; /* poolreuse: addresses in hex */
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
        (o->def->kind != SC_OP_HOST_FUNC && o->def->kind != SC_OP_CALLBACK && o->def->kind != SC_OP_CALLBACK_API) ||
        o->rc)
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

/*
 * ipcpool: 'B reads its fill'.  A read copies the first word of its buffer into its slot's arg (zeroed before
 * the run); its writer (the last fill of the buffer before it) sets every byte to its fill byte.  Judged after
 * the drain: finding anything else means the read ran before the fill's data reached the memory it read.
 */
void judge_fill_read(struct run *r)
{
    const struct sc_prog *p = r->p;
    int writer;
    uint32_t seen, want;
    if (p->rel != SC_READS_FILL || r->v.outcome != SC_OPEN)
        return;
    writer = sc_op_writer(p, p->subject);
    if (writer < 0 || load(&r->op[p->subject].state) != ST_RETURNED || r->op[p->subject].rc) {
        sc_verdict_error(&r->v, "%s did not run: what it read cannot be judged", opname(r, p->subject));
        return;
    }
    seen = __atomic_load_n(&r->arena->slots[p->subject].arg, __ATOMIC_ACQUIRE);
    want = 0x01010101u * r->op[writer].fill;
    log_note(r, "%s read 0x%08x where %s writes 0x%08x", opname(r, p->subject), seen, opname(r, writer), want);
    if (seen == want)
        sc_verdict_decide(&r->v, SC_PASS, "%s read what %s wrote (0x%08x)", opname(r, p->subject), opname(r, writer),
                          seen);
    else
        sc_verdict_decide(&r->v, SC_VIOLATED, "%s read 0x%08x, not what %s wrote (0x%08x)%s", opname(r, p->subject),
                          seen, opname(r, writer), want, seen == 0 ? ": the zeroes the memory was cleared with" : "");
}
