/*
 * run.c - one case's program through one backend (see run.h): sc_run_program
 * as its phases, docs/design.md section 5: set up, start the workers, issue,
 * hold, drain, ask again, settle, judge, clean up.
 *
 * The process's main thread is the observer: it never makes a call that can
 * block (only queries), so it can always release the gates and keep every
 * deadline.  Every op of the program is issued by a worker thread, one per
 * host thread the program names (workers.c).
 *
 * The other rooms of runtime/case/: case.h (the run's state), objects.c (what
 * the ops act on: prepare, destroy), contexts.c (contexts kept between cases),
 * issue.c and issue_ops.c (issuing an op), workers.c (the threads that issue),
 * peers.c and child.c (the case's other processes), arena.c (the memory ops
 * use), observe.c (what has completed; the gates' release), judge.c (what the
 * observations mean), log.c (the timeline).
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct arena arenas[2];

struct run *run_init(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg, int proc,
                     char *timeline, size_t timeline_cap)
{
    struct run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    r->b = b;
    r->p = p;
    r->cfg = *cfg;
    r->proc = proc;
    r->arena = &arenas[b == &sc_driver_backend ? 0 : 1]; /* several processes: their region's (shared_ready) */
    r->timeline = timeline;
    r->timeline_cap = timeline_cap;
    r->faulted_at = -1;
    r->ndevices = devices_used(p);
    r->multi = r->ndevices > 1;
    r->next_slot = SC_MAX_OPS;
    pthread_mutex_init(&r->log_mu, NULL);
    sc_verdict_start(&r->v, p->rel);
    return r;
}

/* The arena (or the region shared with the other processes) and the case's objects; else the verdict says why. */
static int set_up(struct run *r)
{
    char why[512];
    r->b->thread_attach();
    r->b->thread_capture_relaxed(); /* the observer's queries must not break a program's capture */
    if (r->p->nprocs > 1 ? shared_ready(r, -1, why, sizeof why) : arena_ready(r, why, sizeof why)) {
        sc_verdict_error(&r->v, "%s", why);
        return -1;
    }
    int prepared = prepare(r, why, sizeof why);
    if (prepared == -2)
        sc_verdict_skip(&r->v, "%s", why);
    else if (prepared)
        sc_verdict_error(&r->v, "%s", why);
    return prepared ? -1 : 0;
}

/* A worker per host thread of this process (another process's are reached through their mailboxes). */
static int start_workers(struct run *r)
{
    const struct sc_prog *p = r->p;
    for (int t = 0; t < p->nthreads; t++) {
        struct worker *w = &r->workers[t];
        w->r = r;
        w->index = t;
        if ((w->remote = p->thread_proc[t] != 0))
            continue; /* a thread of another process, reached through its mailbox */
        pthread_mutex_init(&w->mu, NULL);
        pthread_cond_init(&w->cv, NULL);
        w->started = pthread_create(&w->tid, NULL, worker_main, w) == 0;
        if (!w->started) {
            sc_verdict_error(&r->v, "cannot start host thread %s", p->threads[t]);
            return -1;
        }
    }
    r->t0 = sc_now_ns();
    return 0;
}

/* Op i returned: noted in the timeline, and judged where its call failed.  0: the case stops here. */
static int returned(struct run *r, int i, const char *desc)
{
    const sc_backend *b = r->b;
    const struct op_rt *o = &r->op[i];
    log_note(r, "issued %s: returned after %.3f ms%s%s", desc, (double)(o->t_return - o->t_issue) / 1e6,
             sc_op_is_query(o->def->kind)
                 ? (o->result == 0 ? ", answered success" : o->result == SC_NOT_READY ? ", answered not-ready" : "")
                 : "",
             sc_op_is_running_node(o->def->kind) ? " (a node: it runs when a launch of its graph runs it)"
             : o->captured              ? " (into the capture: it runs only when a graph of it is launched)"
                                        : "");
    if (SC_LACKS(o->result)) { /* the stand-in's gap, never the answer a rule expects */
        sc_verdict_error(&r->v, "%s failed: %s", desc, b->error_name(o->result));
        return 0;
    }
    if (o->result == SC_UNSUPPORTED) {
        sc_verdict_skip(&r->v, "%s: %s", desc, b->error_name(o->result));
        return 0;
    }
    if (o->rc && !failure_expected(r, i)) {
        sc_verdict_error(&r->v, "%s failed: %s (%d)", desc, b->error_name(o->rc), o->rc);
        return 0;
    }
    if (o->rc)
        log_note(r, "%s answered %s (%d)", o->def->name, b->error_name(o->rc), o->rc);
    return 1;
}

/* 1. issue, in program order, each op from its thread.  1: a thread hung; else *last_issue is when the last
 * op issued was. */
static int issue_all(struct run *r, uint64_t *last_issue)
{
    const struct sc_prog *p = r->p;
    *last_issue = r->t0;
    for (int i = 0; i < p->nops; i++) {
        struct op_rt *o = &r->op[i];
        char desc[160];
        describe_op(r, i, desc, sizeof desc);
        /* "synchronizes" is judged whenever its query answers success, held or not: the hold only gives
         * a broken driver the chance to answer before the data is there (its control needs it) */
        if (i == p->subject && load(&r->released) && sc_relation_is_binary(p->rel) && p->rel != SC_SYNCHRONIZES) {
            sc_verdict_decide(&r->v, SC_UNDECIDED,
                              "cannot decide: the gates had to be released before %s was issued, because %s "
                              "blocked its issuing thread for the whole window",
                              desc, r->blocker);
            return 0;
        }
        int posted_released = load(&r->released);
        r->issuing = i;
        post(&r->workers[o->def->thread], JOB_ISSUE, i);
        /* issuing a group takes a while per member: that is not waiting for held work */
        if (await_for(r, &r->workers[o->def->thread], desc, r->cfg.window_ns + (uint64_t)(o->nmem - 1) * SC_MEMBER_NS))
            return 1;
        if (r->broken)
            return 0;
        *last_issue = o->t_issue;
        if (!returned(r, i, desc))
            return 0;
        if (i == p->subject && load(&r->released) && o->t_issue >= r->t_release) {
            /* the subject's call began after the release (release() stamps t_release first): posted after it,
             * or posted while held but its thread kept off the CPU until then */
            if (posted_released)
                snprintf(r->unheld_why, sizeof r->unheld_why, "%s blocked its issuing thread for the whole window",
                         r->blocker);
            else
                snprintf(r->unheld_why, sizeof r->unheld_why, "its thread, kept off the CPU, began the call only "
                         "%.3f ms after the release", (double)(o->t_issue - r->t_release) / 1e6);
            r->subject_unheld = 1;
        }
        if (i == p->subject)
            judge_return(r);
        judge_comparison(r);
    }
    return 0;
}

/* 2. hold: observe until decided or the window has passed */
static void hold(struct run *r, uint64_t last_issue)
{
    while (!load(&r->released)) {
        sample(r);
        if (sc_verdict_decided(&r->v))
            release(r, "verdict decided");
        else if (sc_now_ns() - last_issue >= r->cfg.window_ns) {
            /* over once the device has run all it can without the gates (a GPU: at once; the mock's threads:
             * when a busy machine has scheduled them), so that what a broken driver lets through is seen */
            if (!r->b->settle(SC_SETTLE_NS) || !settle_peers(r, SC_SETTLE_NS))
                log_note(r, "the device had work it could run %.0f ms after the window", SC_SETTLE_NS / 1e6);
            sample(r);
            release(r, sc_verdict_decided(&r->v) ? "verdict decided" : "hold window passed");
        }
        else
            observe_pause(sc_now_ns() - last_issue);
    }
}

/* drain: will nothing pending ever complete?  The case runs in one process whose host threads all returned
 * (nothing more will be issued or released), and the device says it will run nothing more (the mock, of its
 * own threads; a GPU never says so), twice with a look at the slots between. */
static int nothing_left_to_run(struct run *r)
{
    if (r->p->nprocs != 1)
        return 0;
    for (int t = 0; t < r->p->nthreads; t++)
        if (load(&r->workers[t].busy))
            return 0;
    if (!r->b->quiescent())
        return 0;
    observe_pause(0);
    sample(r);
    return r->b->quiescent();
}

/* 3. drain: everything must complete before the deadline, or while something is left that could run it */
static void drain(struct run *r)
{
    const struct sc_prog *p = r->p;
    for (;;) {
        int waiting = 0;
        sample(r);
        for (int i = 0; i < p->nops; i++) /* once another process failed, its ops never complete: not waited for */
            waiting += pending(r, i) && (!r->broken || mine(r, i));
        if (!waiting)
            return;
        int stalled = 0;
        if (sc_now_ns() - r->t_release > r->cfg.deadline_ns || (stalled = nothing_left_to_run(r))) {
            int i = 0;
            while (i < p->nops && !pending(r, i))
                i++;
            if (i == p->nops)
                ; /* nothing pending any more: nothing_left_to_run's last look saw it complete */
            else if (stalled)
                sc_verdict_error(&r->v, "%s did not complete: %.1f ms after the release the device had nothing left "
                                 "it could run", opname(r, i), (double)(sc_now_ns() - r->t_release) / 1e6);
            else
                sc_verdict_error(&r->v, "%s did not complete within %.0f ms of the release", opname(r, i),
                                 (double)r->cfg.deadline_ns / 1e6);
            return;
        }
        observe_pause(sc_now_ns() - r->t_release);
    }
}

/* 4. a query must answer success once everything has completed; asked again for a window, since a
 *    completion is seen in its slot a moment before the stream's own bookkeeping retires it.  1: it hung. */
static int requery(struct run *r)
{
    const struct sc_prog *p = r->p;
    if (p->rel != SC_NOT_READY_WHILE || !r->v.query_ok)
        return 0;
    struct worker *w = &r->workers[p->ops[p->subject].thread];
    uint64_t asked = sc_now_ns();
    for (;;) {
        post(w, JOB_REQUERY, p->subject);
        if (await(r, w, "the repeated query"))
            return 1;
        if (r->op[p->subject].result != SC_NOT_READY || sc_now_ns() - asked >= r->cfg.window_ns)
            break;
        sc_pause_ns(SC_POLL_NS);
    }
    log_note(r, "repeated %s: answered %s", opname(r, p->subject),
             r->op[p->subject].result == 0 ? "success" : r->b->error_name(r->op[p->subject].result));
    sc_verdict_requery(&r->v, r->op[p->subject].result, opname(r, p->subject));
    return 0;
}

/* 5. captures the program left open end (in the threads that began them), then the device becomes idle
 *    (each process's own context).  1: a thread hung. */
static int settle(struct run *r)
{
    const sc_backend *b = r->b;
    const struct sc_prog *p = r->p;
    if (r->has_capture)
        for (int t = 0; t < p->nthreads; t++) {
            if (r->workers[t].exited)
                continue;
            post(&r->workers[t], JOB_END_CAPTURES, 0);
            if (await(r, &r->workers[t], "ending the stream captures"))
                return 1;
        }
    post(&r->workers[0], JOB_CTX_SYNC, 0);
    if (await(r, &r->workers[0], "the final context synchronize"))
        return 1;
    for (int k = 1, t; k < p->nprocs && !r->broken; k++) { /* each process's own context */
        for (t = 1; t < p->nthreads && p->thread_proc[t] != k; t++)
            ;
        post(&r->workers[t], JOB_CTX_SYNC, 0);
        await(r, &r->workers[t], "the final context synchronize");
        if (!r->broken && r->sh->mbox[t].rc)
            sc_verdict_error(&r->v, "the final context synchronize of process %s failed: %s", p->procs[k],
                             b->error_name(r->sh->mbox[t].rc));
    }
    if (r->final_sync_rc && r->faulted_at < 0)
        sc_verdict_error(&r->v, "the final context synchronize failed: %s", b->error_name(r->final_sync_rc));
    else if (r->final_sync_rc)
        log_note(r, "the final context synchronize answered %s, as after any fault", b->error_name(r->final_sync_rc));
    return 0;
}

/* A value measured from the hold itself (an elapsed time against the gates' stamps, the CPU time of a wait),
 * which releasing the gates early shortens but cannot make wrong. */
static int measures_hold(const struct sc_prog *p)
{
    return p->rel == SC_GIVES && (p->value == SC_VALUE_SPANS_HOLD || p->value == SC_VALUE_SLEEPS);
}

/* 6. judge: what the idle device shows (answers, times, stamps, data, runs, reads), then the verdict. */
static void judge_all(struct run *r)
{
    const struct sc_prog *p = r->p;
    judge_host_answer(r);
    judge_elapsed(r);
    log_stamps(r);
    check_stamps(r);
    if (r->faulted_at < 0)
        check_data(r);
    judge_runs(r);
    judge_device_launches(r);
    judge_primary_read(r);
    judge_fill_read(r);
    sc_verdict_finish(&r->v, opname(r, p->subject), p->object >= 0 ? opname(r, p->object) : "",
                      (unsigned)(r->cfg.window_ns / 1000000u));
    count_group(r);
    if (r->early && r->open_at_early && !measures_hold(p)) /* what the release may have undone is never a violation */
        sc_verdict_premise_lost(&r->v, r->blocker);
    if (r->subject_unheld) /* ... and what it made vacuous is never a pass */
        sc_verdict_subject_unheld(&r->v, r->unheld_why, opname(r, p->subject));
}

/* The case once its workers run, phases 1 to 6.  1: a host thread hung in a CUDA call. */
static int run_case(struct run *r)
{
    uint64_t last_issue;
    if (issue_all(r, &last_issue)) {
        release(r, "deadline");
        return 1;
    }
    r->issuing = r->p->nops;
    hold(r, last_issue);
    drain(r);
    if (requery(r) || settle(r))
        return 1;
    judge_all(r);
    return 0;
}

/* 7. clean up: the workers end, then the other processes, then the objects.  1: a host thread hung in a CUDA
 *    call (the run is then abandoned). */
static int cleanup(struct run *r)
{
    const struct sc_prog *p = r->p;
    int nworkers = p->nthreads;
    if (r->has_capture)
        for (int t = 0; t < nworkers; t++)
            if (r->workers[t].started && !r->workers[t].exited) {
                post(&r->workers[t], JOB_END_CAPTURES, 0);
                if (await(r, &r->workers[t], "ending the stream captures"))
                    return 1;
            }
    for (int t = 0; t < nworkers; t++)
        if (r->workers[t].started) {
            if (!r->workers[t].exited)
                post(&r->workers[t], JOB_QUIT, 0);
            pthread_join(r->workers[t].tid, NULL);
        }
    stop_peers(r, SC_PEER_GRACE_NS); /* before main frees what they opened */
    destroy_objects(r);
    return 0;
}

void sc_run_program(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg,
                    struct sc_result *res)
{
    memset(res, 0, sizeof *res);
    res->subject_kind = p->subject >= 0 && p->subject < p->nops ? (int)p->ops[p->subject].kind : -1;
    struct run *r = run_init(b, p, cfg, 0, res->timeline, sizeof res->timeline); /* abandoned if a thread hangs */
    int hung = 0;
    if (!r) {
        sc_verdict_error(&res->verdict, "out of memory");
        return;
    }
    if (p->error[0] || !p->has_expect)
        sc_verdict_error(&r->v, "the program is malformed: %s", p->error[0] ? p->error : "no expectation");
    else if (set_up(r) || start_workers(r))
        hung = cleanup(r);
    else if (!(hung = run_case(r)))
        hung = cleanup(r);
    if (hung)
        stop_peers(r, 0);
    res->verdict = r->v;
    res->hung = hung;
    if (!hung) {
        pthread_mutex_destroy(&r->log_mu);
        free(r);
    }
}
