/*
 * check.c - after the drain, what the ops left behind: how often the subject
 * ran, what a dependent launch or a read saw, the data every copy, memset and
 * fill wrote, and the %globaltimer stamps as evidence.  Each ends in an
 * sc_verdict_* call.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <string.h>

/* ---- after the drain ----------------------------------------------------- */

/* Runs once per launch: the subject's slot counts its runs; the successful graph_replay ops, the launches.
 * Runs once: the slot counts one run. */
/*
 * A node_faf, node_tail or node_sibling node that ran keeps what its device-side cudaGraphLaunch answered in its
 * slot's arg (its low 16 bits): a launch the device refused ran no graph, so whatever the case saw of that graph's
 * nodes proves nothing of the rule: an error, never a verdict (a violation seen is kept in the message).
 */
void judge_device_launches(struct run *r)
{
    const struct sc_prog *p = r->p;
    for (int i = 0; i < p->nops; i++) {
        const struct sc_slot *sl = &r->arena->slots[i];
        unsigned code;
        if (p->ops[i].kind != SC_OP_NODE_DEVLAUNCH || !__atomic_load_n(&sl->token, __ATOMIC_ACQUIRE))
            continue;
        code = __atomic_load_n(&sl->arg, __ATOMIC_ACQUIRE) & 0xffffu;
        if (code) { /* the cause, first: what was seen (or what erred) after it follows */
            char seen[sizeof r->v.why];
            int decided = r->v.outcome != SC_OPEN;
            snprintf(seen, sizeof seen, "%s", r->v.why);
            r->v.outcome = SC_OPEN;
            sc_verdict_error(&r->v, "%s's device-side cudaGraphLaunch answered cudaError %u: the graph it launches did "
                             "not run%s%s", opname(r, i), code, decided ? "; seen: " : "", decided ? seen : "");
            return;
        }
    }
}

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
    if (p->rel == SC_RUNS_ONCE && r->v.outcome == SC_OPEN) { /* exactly once, by the end */
        runs = __atomic_load_n(&r->arena->slots[p->subject].runs, __ATOMIC_ACQUIRE);
        log_note(r, "%s ran %u times", opname(r, p->subject), runs);
        if (runs == 1)
            sc_verdict_decide(&r->v, SC_PASS, "%s ran once, as the rule requires", opname(r, p->subject));
        else
            sc_verdict_decide(&r->v, SC_VIOLATED, "%s ran %u times, not once", opname(r, p->subject), runs);
        return;
    }
    if (p->rel == SC_NEVER_RUNS && r->v.outcome == SC_OPEN) { /* no launch of the program ran it */
        for (int i = 0; i < p->nops; i++)
            launches += sc_op_facts(p->ops[i].kind)->replays && load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc;
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
    unsigned per = p->runs_per_launch ? p->runs_per_launch : 1;
    for (int i = 0; i < p->nops; i++)
        launches += sc_op_facts(p->ops[i].kind)->replays && load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc;
    runs = __atomic_load_n(&r->arena->slots[p->subject].runs, __ATOMIC_ACQUIRE);
    log_note(r, "%s ran %u times; the program launched its graph %u times", opname(r, p->subject), runs, launches);
    if (launches == 0)
        sc_verdict_error(&r->v, "no launch of the graph succeeded: how often %s runs per launch cannot be judged",
                         opname(r, p->subject));
    else {
        char each[32] = "once", not_each[48] = ""; /* a WHILE node's body: "3 times" */
        if (per > 1) {
            snprintf(each, sizeof each, "%u times", per);
            snprintf(not_each, sizeof not_each, ", not %s in each", each);
        }
        if (runs == launches * per)
            sc_verdict_decide(&r->v, SC_PASS, "%s ran %u times, %s in each of the %u launches", opname(r, p->subject),
                              runs, each, launches);
        else
            sc_verdict_decide(&r->v, SC_VIOLATED, "%s ran %u times in %u launches of its graph%s",
                              opname(r, p->subject), runs, launches, not_each);
    }
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
const char *writer_of(struct run *r, uint32_t word)
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
    if (sc_op_fills(d->kind)) {
        dst = r->buf_ptr[d->buffer];
        dw = W_DEV_DST;
    } else {
        op_ends(d, &dw, &sw);
        dst = arena_buffer(r, sc_op_is_data_node(d->kind) ? node_buffer(r->p, i) : i, dw, &rc);
    }
    if (on_host(dw))
        return dst;
    on_dev(r, r->op[i].device);
    if (dst)
        rc = b->memcpy_sync(r->arena->scratch, dst, sc_copy_bytes, SC_D2H_PINNED);
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
        if (sc_op_fills(r->p->ops[j].kind) && r->p->ops[j].buffer == r->p->ops[i].buffer && !r->op[j].rc &&
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
        if (sc_op_spins(k) && sl->status == SC_GATE_EXPIRED)
            sc_verdict_error(&r->v, "gate %s ran into its own deadline: it was never released", opname(r, i));
        if (sc_op_facts(k)->status && sl->arg != 0 && !(i == p->subject && p->rel == SC_ANSWERS))
            sc_verdict_error(&r->v, "callback %s received status %u, not success", opname(r, i), sl->arg);
        if (data_of(k) == SC_DATA_NONE || (sc_op_is_data_node(k) && !judged))
            continue; /* the nodes of a graph share one buffer, which only its last writer owns */
        if (!mine(r, i) && !(sc_op_fills(k) && p->buffer_ipc[o->def->buffer]))
            continue; /* another process's memory: main cannot read it back */
        if (sc_op_fills(k) && r->buf_freed[o->def->buffer]) {
            if (judged)
                sc_verdict_error(&r->v, "%s's buffer was freed: its data cannot be checked", opname(r, i));
            continue; /* the memory is no longer its own */
        }
        if (sc_op_fills(k) && overwritten_later(r, i))
            continue; /* a later fill of the same buffer owns its bytes */
        const uint32_t *got = read_back(r, i);
        uint32_t want = expected_word(o);
        size_t w = 0;
        while (got && w < sc_copy_bytes / 4 && got[w] == want)
            w++;
        if (!got)
            continue;
        if (w == sc_copy_bytes / 4) {
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

/*
 * 'B reads its fill'.  A read copies the first word of its buffer into its slot's arg (zeroed before
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
