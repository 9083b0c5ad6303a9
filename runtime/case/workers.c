/*
 * workers.c - the host threads that issue a case's ops: one worker per thread
 * the program names (a thread of another process is reached through its
 * mailbox), the jobs main posts to them, and main's wait for a job, observing
 * meanwhile and releasing the gates when a call blocks for a whole window.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>

static void end_captures(struct run *r, int worker)
{
    int status, same;
    for (int s = 0; s < r->p->nstreams; s++)
        if (r->members[r->first[s]] && r->capture_thread[s] == worker + 1 &&
            r->b->capture_status(r->members[r->first[s]], &status) == 0 && status != SC_CAPTURE_NONE)
            end_capture_of(r, s, r->members[r->first[s]], &same); /* a capture into a graph keeps it */
}

void run_job(struct worker *w, int job, int i)
{
    struct run *r = w->r;
    const struct sc_prog *p = r->p;
    struct op_rt *o = &r->op[i];
    switch (job) {
    case JOB_ISSUE: { /* on its stream's device, unless its thread entered one (device_enter) */
        on_dev(r, r->entered_device[o->def->thread] ? r->entered_device[o->def->thread] - 1 : o->device);
        /* whether a thread kept off the CPU was in its call while the gates were held (verdict.c, off_cpu):
         * read only where the verdict asks, a file read either side of the call */
        int timed = i == p->subject && (p->rel == SC_BLOCKS_UNTIL || p->rel == SC_RETURNS_BEFORE ||
                                         p->rel == SC_NOT_READY_WHILE || p->rel == SC_READY_WHILE);
        uint64_t runq = timed ? sc_thread_runq_ns() : 0, cpu = timed ? sc_thread_cpu_ns() : 0;
        o->t_issue = sc_now_ns();
        store(&o->state, ST_ISSUED);
        if (r->sh)
            store(&r->sh->op[i].state, ST_ISSUED);
        o->result = issue(r, i);
        o->rc = sc_op_is_query(o->def->kind) && o->result == SC_NOT_READY ? 0 : o->result;
        o->t_return = sc_now_ns();
        if (i == p->subject) {
            /* the object first, then the release flag: see verdict.h */
            /* G blocks until G: the launch of a gate, whose slot tells before its call is marked returned */
            o->ret.object_done = p->object >= 0 && (p->object == i ? member_done(r, i, 0) : op_done(r, p->object)) == 1;
            o->ret.released = is_released(r);
            o->ret.result = o->result;
            if (timed)
                o->ret.runq_ns = sc_thread_runq_ns() - runq, o->ret.hold_ns = r->cfg.window_ns,
                o->ret.cpu_ns = sc_thread_cpu_ns() - cpu;
            if (p->rel != SC_READY_WHILE)
                o->ret.gpu_reached = 1;
            if (p->rel == SC_COMPLETE_ON_RETURN && o->rc == 0)
                look_at_return(r, i);
        }
        store(&o->state, ST_RETURNED);
        if (r->sh)
            publish(r, i);
        break;
    }
    case JOB_REQUERY:
        o->result = sc_op_facts(o->def->kind)->arg == SC_ARG_STREAM ? r->b->stream_query(o->stream) : r->b->event_query(o->event);
        if (r->sh)
            publish(r, i);
        break;
    case JOB_CTX_SYNC:
        r->final_sync_rc = sync_devices(r);
        break;
    case JOB_END_CAPTURES:
        end_captures(r, w->index);
        break;
    }
}

void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->r->b->thread_attach();
    for (;;) {
        pthread_mutex_lock(&w->mu);
        while (w->job == JOB_NONE)
            pthread_cond_wait(&w->cv, &w->mu);
        int job = w->job, i = w->arg;
        pthread_mutex_unlock(&w->mu);
        if (job == JOB_QUIT)
            return NULL;
        run_job(w, job, i);
        int ends = job == JOB_ISSUE && sc_op_facts(w->r->p->ops[i].kind)->ends_thread;
        pthread_mutex_lock(&w->mu);
        w->job = JOB_NONE;
        w->exited = ends;
        pthread_mutex_unlock(&w->mu);
        store(&w->busy, 0);
        if (ends)
            return NULL; /* thread_exit: this host thread ends with its per-thread work pending */
    }
}

void post(struct worker *w, int job, int arg)
{
    w->last_job = job, w->last_arg = arg;
    if (w->remote) { /* a thread of another process: its mailbox */
        struct mailbox *mb = &w->r->sh->mbox[w->index];
        if (w->r->broken)
            return;
        store(&mb->busy, 1);
        store(&mb->arg, arg);
        store(&mb->job, job);
        return;
    }
    store(&w->busy, 1);
    pthread_mutex_lock(&w->mu);
    w->job = job;
    w->arg = arg;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

/* Is the worker's job posted or still running (a thread of another process: its mailbox says)? */
static int busy(struct run *r, struct worker *w)
{
    if (!w->remote)
        return load(&w->busy);
    return !r->broken && load(&r->sh->mbox[w->index].busy);
}

/*
 * May some work of the case be held: has an op that holds its stream until the gates open (a gate, a host
 * gate, a value gate, a gate launched with a programmatic event, or a graph launch, whose nodes may be gates)
 * been issued, or is one being issued?  Before that, a call that blocks for a window waits for nothing the
 * case holds: releasing the gates then would only let the gates issued after it run unheld.
 */
static int may_hold(const struct run *r)
{
    for (int j = 0; j <= r->issuing && j < r->p->nops; j++) {
        if (sc_op_facts(r->p->ops[j].kind)->holds)
            return 1;
    }
    return 0;
}

/*
 * Waits for the worker's job, observing meanwhile; a call that keeps its
 * thread longer than window_ns forces the release (where some work may be
 * held).  0: done; -1: it hung.
 */
int await_for(struct run *r, struct worker *w, const char *what, uint64_t window_ns)
{
    uint64_t start = sc_now_ns();
    char how[160];
    while (busy(r, w)) {
        sample(r);
        uint64_t waited = sc_now_ns() - start;
        int k = r->p->thread_proc[w->index];
        if (w->remote && !sc_procs_alive(r->pid[k], how, sizeof how)) {
            peer_failed(r, "process %s %s while %s was running in it", r->p->procs[k], how, what);
            return 0;
        }
        if (w->remote && waited >= r->cfg.deadline_ns + SC_HANG_GRACE_NS) {
            peer_failed(r, "%s did not return within the %.0f ms deadline in process %s, which was killed", what,
                        (double)r->cfg.deadline_ns / 1e6, r->p->procs[k]);
            return 0;
        }
        if (!load(&r->released) && waited >= window_ns && may_hold(r)) {
            snprintf(r->blocker, sizeof r->blocker, "%s", what);
            r->early = 1;
            r->open_at_early = !sc_verdict_decided(&r->v);
            release(r, "the issuing thread was blocked for the whole window");
        }
        if (waited >= r->cfg.deadline_ns + SC_HANG_GRACE_NS) {
            sc_verdict_error(&r->v, "%s did not return within the %.0f ms deadline", what,
                             (double)r->cfg.deadline_ns / 1e6);
            log_note(r, "%s still blocked: giving up", what);
            return -1;
        }
        observe_pause(waited);
    }
    if (w->remote && !r->broken && (w->last_job == JOB_ISSUE || w->last_job == JOB_REQUERY))
        import(r, w->last_arg);
    return 0;
}

/* Waits for the worker's job, observing meanwhile.  0: done; -1: it hung. */
int await(struct run *r, struct worker *w, const char *what) { return await_for(r, w, what, r->cfg.window_ns); }
