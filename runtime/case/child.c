/*
 * child.c - one of a case's other processes runs its part of a case: it
 * prepares the objects it owns, runs a worker per host thread of its own
 * (each takes the jobs main posts to its mailbox), observes its own probes for
 * main, and reports the run finished once its context is idle.  peers.c is
 * the region and main's side.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <stdlib.h>

/* A host thread of this process: runs the jobs main posts to its mailbox. */
static void *peer_worker_main(void *arg)
{
    struct worker *w = arg;
    struct run *r = w->r;
    struct mailbox *mb = &r->sh->mbox[w->index];
    r->b->thread_attach();
    for (;;) {
        int job = load(&mb->job);
        if (job == JOB_NONE) {
            if (sc_procs_orphaned() || load(&r->sh->quit))
                break;
            sc_pause_ns(SC_POLL_NS);
            continue;
        }
        if (job == JOB_QUIT)
            break;
        int i = load(&mb->arg);
        run_job(w, job, i);
        if (job == JOB_CTX_SYNC)
            mb->rc = r->final_sync_rc;
        store(&mb->job, JOB_NONE);
        store(&mb->busy, 0);
        if (job == JOB_ISSUE && sc_op_facts(r->p->ops[i].kind)->ends_thread)
            break;
    }
    store(&mb->job, JOB_NONE);
    store(&mb->busy, 0);
    store(&w->exited, 1);
    return NULL;
}

int sc_run_child(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg, int proc, int fd)
{
    static char timeline[4096]; /* this process's notes are not reported: main observes */
    char why[512];
    int rc, mine_threads = 0;
    struct run *r = proc > 0 && proc < p->nprocs ? run_init(b, p, cfg, proc, timeline, sizeof timeline) : NULL;
    if (!r)
        return 2;
    b->thread_attach();
    b->thread_capture_relaxed();
    if (shared_ready(r, fd, why, sizeof why))
        return 3; /* no region to report through: main sees the exit */
    r->t0 = sc_now_ns();
    if ((rc = prepare(r, why, sizeof why))) {
        snprintf(r->sh->error[proc], sizeof r->sh->error[proc], "%.255s", why);
        store(&r->sh->ready[proc], rc == -2 ? -2 : -1);
        if (load(&r->sh->created[proc]) != 1)
            store(&r->sh->created[proc], rc == -2 ? -2 : -1);
        destroy_objects(r);
        return 1; /* this process ends: the next run starts another */
    }
    for (int t = 1; t < p->nthreads; t++) {
        struct worker *w = &r->workers[t];
        if (p->thread_proc[t] != proc)
            continue;
        w->r = r;
        w->index = t;
        w->started = pthread_create(&w->tid, NULL, peer_worker_main, w) == 0;
        mine_threads += w->started;
    }
    /* observe this process's probes for the others, and settle when main asks, until every thread of it
     * ended */
    store(&r->sh->settle_answered[proc], load(&r->sh->settle_asked[proc]));
    store(&r->sh->observing[proc], 1);
    for (int running = mine_threads; running > 0 && !sc_procs_orphaned();) {
        settle_if_asked(r);
        running = 0;
        for (int t = 1; t < p->nthreads; t++)
            running += r->workers[t].started && !load(&r->workers[t].exited);
        for (int i = 0; i < p->nops; i++)
            if (mine(r, i) && sc_op_facts(p->ops[i].kind)->probe && !load(&r->sh->op[i].done) &&
                load(&r->op[i].state) == ST_RETURNED && !r->op[i].rc && !r->op[i].captured)
                member_done(r, i, 0);
        sc_pause_ns(SC_POLL_NS);
    }
    store(&r->sh->observing[proc], 0);
    for (int t = 1; t < p->nthreads; t++)
        if (r->workers[t].started)
            pthread_join(r->workers[t].tid, NULL);
    destroy_objects(r);
    /* the next run starts on an idle context: nothing of this one may still write a slot */
    rc = sc_procs_orphaned() || r->faulted_at >= 0 || sync_devices(r) ? 1 : 0;
    if (rc == 0)
        __atomic_store_n(&r->sh->finished[proc], peer_run(), __ATOMIC_RELEASE);
    pthread_mutex_destroy(&r->log_mu);
    free(r);
    return rc;
}
