/*
 * observe.c - the observer's view of a case: has op i (each member of a group)
 * completed, from its slot, word, probe or its process's report; sampling
 * every op into the verdict; releasing the gates; what the drain waits for.
 * The observer never blocks: it only queries.
 */
#define _GNU_SOURCE
#include "case.h"
#include "clock.h"
#include <stdio.h>
#include <string.h>

/* 1: member m of op i has completed; 0: not yet; -1: the probe itself failed. */
int member_done(struct run *r, int i, int m)
{
    struct op_rt *o = &r->op[i];
    enum sc_op_kind k = o->def->kind;
    int slot = m ? o->more[m - 1].slot : i;
    uint32_t token = m ? o->more[m - 1].token : o->token;
    if (sc_op_facts(k)->slot)
        return __atomic_load_n(&r->arena->slots[slot].token, __ATOMIC_ACQUIRE) == token;
    if (k == SC_OP_WRITE_VALUE || k == SC_OP_BATCH_BARRIER) /* a batch_barrier_write's last operation writes it */
        return __atomic_load_n(word_host(r, o->def->word), __ATOMIC_ACQUIRE) == r->word_set[o->def->word];
    if (k == SC_OP_BATCH) /* its last operation writes word2 */
        return __atomic_load_n(word_host(r, o->def->word2), __ATOMIC_ACQUIRE) == r->word_set[o->def->word2];
    if (sc_op_facts(k)->probe && !mine(r, i))
        return load(&r->sh->op[i].done); /* its own process queries the probe */
    if (sc_op_facts(k)->probe) {
        on_dev(r, o->device);
        int q = r->b->event_query(m ? o->more[m - 1].probe : o->probe);
        if (q == 0 && r->sh && m == 0)
            store(&r->sh->op[i].done, 1);
        return q == 0 ? 1 : q == SC_NOT_READY ? 0 : -1;
    }
    return 1; /* host calls: returned; waits: not observable */
}

/* How many members of op i have completed (1 for a single op that did); -1: a probe failed. */
static int count_done(struct run *r, int i)
{
    struct op_rt *o = &r->op[i];
    int n = 0;
    if (op_state(r, i) != ST_RETURNED)
        return 0; /* an event never recorded reads as complete: wait for the call */
    if (o->captured && !replayed(r, i))
        return 0; /* recorded into a graph: it runs only when the graph is launched */
    for (int m = 0; m < o->nmem; m++) {
        int *seen = m ? &o->more[m - 1].done : &o->member0_done;
        if (!*seen) {
            int d = member_done(r, i, m);
            if (d < 0)
                return -1;
            *seen = d;
        }
        n += *seen;
    }
    return n;
}

/* 1: op i (every member of a group) has completed; 0: not yet; -1: the probe itself failed. */
int op_done(struct run *r, int i)
{
    int n = count_done(r, i);
    return n < 0 ? -1 : n == r->op[i].nmem;
}

/* Member m of op i seen complete (as count_done last read it). */
static int seen(const struct op_rt *o, int m) { return m ? o->more[m - 1].done : o->member0_done; }

/* Are subject and object groups on the same stream array? */
static int paired(const struct run *r)
{
    const struct op_rt *x = &r->op[r->p->subject], *y = &r->op[r->p->object];
    return x->nmem > 1 && x->def->stream == y->def->stream;
}

static int is_ordering(enum sc_relation rel) { return rel >= SC_AFTER && rel <= SC_READY_WHILE; }

void sample(struct run *r)
{
    const struct sc_prog *p = r->p;
    if (is_ordering(p->rel)) {
        struct sc_sample s;
        /* the order of these three reads is what makes a violation real; a group subject
         * breaks "after" with its first member, and is "not held" only with all of them */
        int subject = count_done(r, p->subject);
        s.subject_done = p->rel == SC_AFTER ? subject > 0 : subject == r->op[p->subject].nmem;
        s.object_done = op_done(r, p->object) == 1;
        s.released = is_released(r);
        if (p->rel == SC_AFTER && paired(r)) {
            /* two groups on one array: member k of the subject waits for member k of the object only */
            int early = 0;
            for (int m = 0; m < r->op[p->subject].nmem && !early; m++)
                early = seen(&r->op[p->subject], m) && !seen(&r->op[p->object], m);
            s.subject_done = early;
            s.object_done = early ? 0 : s.object_done;
        }
        if (!s.released && subject > r->best_members)
            r->best_members = subject;
        sc_verdict_observe(&r->v, &s, opname(r, p->subject), opname(r, p->object));
    }

    for (int i = 0; i < p->nops; i++) {
        if (r->op[i].done || !sc_op_facts(p->ops[i].kind)->observable)
            continue;
        int d = op_done(r, i);
        if (d < 0 && r->faulted_at >= 0) {
            r->op[i].done = 1; /* the context's error: expected after a fault */
            log_note(r, "%s: its completion cannot be queried after the fault", opname(r, i));
        } else if (d < 0) {
            sc_verdict_error(&r->v, "querying the completion of %s failed", opname(r, i));
            r->op[i].done = 1;
        } else if (d) {
            r->op[i].done = 1;
            log_note(r, "observed %s complete%s", opname(r, i), is_released(r) ? "" : " (gates closed)");
        }
    }
}

/*
 * The observer wakes often at first, when most answers come, and less often
 * as a wait goes on: a sample is taken right before every release (run.c, workers.c), so
 * a longer pause only delays a decision, by at most a sixteenth of the time
 * waited so far, never misses one; a 50 ms hold takes about 110 samples
 * instead of 2500 (each a wake-up of a thread: system time).
 */
void observe_pause(uint64_t waited_ns)
{
    uint64_t ns = waited_ns / 16;
    sc_pause_ns(ns < SC_POLL_NS ? SC_POLL_NS : ns > SC_POLL_MAX_NS ? SC_POLL_MAX_NS : ns);
}

void release(struct run *r, const char *why)
{
    if (load(&r->released))
        return;
    /* the time first: a call begun (t_issue) at or after it may have begun after the gates opened; one begun
     * before it began while they were closed */
    r->t_release = sc_now_ns();
    store(&r->released, 1); /* before the flag: a sample that reads 0 was taken while held */
    if (r->sh)
        store(&r->sh->released, 1);
    __atomic_store_n(r->arena->gate, 1u, __ATOMIC_SEQ_CST);
    log_note(r, "gates released: %s", why);
}

/*
 * An op whose completion the drain waits for: issued without error, not
 * captured (or captured into a graph launched since), observable, not seen
 * complete yet.  After a fault only stream
 * callbacks, which must still be called (with the error), are waited for.
 */
int pending(struct run *r, int i)
{
    const struct op_rt *o = &r->op[i];
    if (after_fault(r, i) && !sc_op_facts(o->def->kind)->status)
        return 0;
    if (r->faulted_at == i)
        return 0;
    return sc_op_facts(o->def->kind)->observable && load(&o->state) == ST_RETURNED && !o->rc && (!o->captured || replayed(r, i)) &&
           !o->done;
}
