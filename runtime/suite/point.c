/* point.c - running one TAP point, in this process or in child processes (see point.h). */
#define _GNU_SOURCE
#include "point.h"
#include "isolate.h"
#include "support.h"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct sc_run_config sc_point_config(const struct sc_options *o, char *const *argv)
{
    struct sc_run_config cfg = { (uint64_t)o->window_ms * 1000000u, (uint64_t)o->deadline_ms * 1000000u, argv, 0, 0,
                                 o->first_look_ms == SC_FIRST_LOOK_AUTO ? 0 : (uint64_t)o->first_look_ms * 1000000u,
                                 sc_support_wait_gates(o, NULL) };
    return cfg;
}

/*
 * Independence can be hidden by a false dependency: two streams that share a
 * hardware queue serialize even though nothing synchronizes them.  One
 * observation of B completing while A is held proves that no synchronization
 * orders B after A, so an outcome that needed independence and did not see it
 * is tried again with fresh streams (and threads), up to `attempts` times.
 * So is a call that should return before A but did not: one return while A is
 * held proves it does not wait for A, and a late one may have been kept from
 * returning by its host, not by A (its thread, or a thread holding a lock it
 * needs, kept off a CPU on a loaded machine; allocator memory zeroed page by
 * page), whatever runq_ns saw (verdict.c, off_cpu).
 */
static int needs_independence(enum sc_relation rel, int control, enum sc_outcome o)
{
    return (!control && (rel == SC_NOT_HELD || rel == SC_RETURNS_BEFORE) && o == SC_VIOLATED) ||
           (control && rel == SC_AFTER && o == SC_PASS) ||
           (control && (rel == SC_KEEPS_DATA || rel == SC_READS_FILL) && o == SC_PASS) || o == SC_UNDECIDED;
}

/*
 * What a first look (calibrate.h) may settle: the outcome a point wants (a
 * case's pass, which suite.c backs with its control; a control's violation),
 * a violation that no window could undo (B completing, or X returning, while
 * A was still held), and an error: a call that failed, a deadline passed, one
 * of the case's other processes died.  An error is what happened in this run,
 * whatever the hold; running again with the full window would hide it behind
 * the next run's pass (as the attempts never do).  Anything else (a call that
 * blocked longer than the first look, a not-held witness still pending, an
 * undecidable run) is judged again with the full window.
 */
static int settled_at_first_look(enum sc_relation rel, int control, enum sc_outcome o)
{
    if (o == SC_ERROR)
        return 1;
    if (control)
        return o == SC_VIOLATED;
    return o == SC_PASS || (o == SC_VIOLATED && (rel == SC_AFTER || rel == SC_BLOCKS_UNTIL));
}

void sc_point_run(const sc_backend *b, sc_build_fn build, int control, struct sc_run_config *cfg, unsigned repeat,
                  unsigned attempts, enum sc_outcome want, struct sc_result *res, struct sc_tally *t)
{
    static struct sc_prog prog;
    const uint64_t window = cfg->window_ns;
    /* a first look shorter than the window comes before the attempts, and is not counted among them (calibrate.h) */
    const unsigned look = cfg->first_look_ns && cfg->first_look_ns < window;
    t->held = 0;
    cfg->control = control;
    for (unsigned k = 1; k <= repeat; k++) {
        t->iteration = k;
        for (unsigned a = 1 - look; a <= attempts; a++) {
            cfg->window_ns = a == 0 ? cfg->first_look_ns : window;
            t->window_ns = cfg->window_ns;
            sc_prog_init(&prog);
            build(&prog);
            sc_run_program(b, &prog, cfg, res);
            if (res->hung || (a == 0 ? settled_at_first_look(prog.rel, control, res->verdict.outcome)
                                     : !needs_independence(prog.rel, control, res->verdict.outcome)))
                break;
            t->held += a > 0;
        }
        if (res->verdict.outcome != want || res->hung)
            break;
    }
    cfg->window_ns = window;
}

/* What a child process sends back: the point's result and its tally. */
struct child_reply {
    struct sc_result res;
    struct sc_tally tally;
    uint64_t room_waited_ns; /* the child waited this long for room for its context */
};

/* Isolated children that waited for room for their context, and how long in all (reported at the end). */
static pthread_mutex_t room_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned isolated_room_waits;
static uint64_t isolated_room_wait_ns;

void sc_point_isolated_room_waits(unsigned *n, uint64_t *ns)
{
    pthread_mutex_lock(&room_mu);
    *n = isolated_room_waits;
    *ns = isolated_room_wait_ns;
    isolated_room_waits = 0, isolated_room_wait_ns = 0; /* the next program's count starts afresh */
    pthread_mutex_unlock(&room_mu);
}

/* Runs one point (case, API, control) in a child process of its own. */
static void run_isolated(char *const argv[], int case_index, int api, int control, uint64_t limit_ns,
                         struct sc_result *res, struct sc_tally *t)
{
    struct child_reply *reply = malloc(sizeof *reply);
    char why[300] = "out of memory";
    if (reply && sc_isolate_run(argv, case_index, api, control, limit_ns, reply, sizeof *reply, why, sizeof why) == 0) {
        *res = reply->res;
        *t = reply->tally;
        if (reply->room_waited_ns) {
            pthread_mutex_lock(&room_mu);
            isolated_room_waits++, isolated_room_wait_ns += reply->room_waited_ns;
            pthread_mutex_unlock(&room_mu);
        }
        free(reply);
        return;
    }
    free(reply);
    memset(res, 0, sizeof *res);
    memset(t, 0, sizeof *t);
    t->iteration = 1;
    sc_verdict_start(&res->verdict, SC_AFTER);
    sc_verdict_error(&res->verdict, "%s", why);
}

/*
 * A point of a rule that faults its context: each run, every repetition and
 * every attempt with fresh streams, gets a child process of its own, since a
 * faulted context cannot run the program again.
 */
static void run_isolated_point(char *const argv[], struct sc_isolated_point *pt, uint64_t limit_ns, unsigned attempts)
{
    enum sc_outcome want = pt->control ? SC_VIOLATED : SC_PASS;
    unsigned held = 0, k;
    for (k = 1; k <= pt->repeat; k++) {
        for (unsigned a = 1; a <= attempts; a++) {
            run_isolated(argv, pt->case_index, pt->api, pt->control, limit_ns, &pt->res, &pt->tally);
            if (!needs_independence(pt->res.verdict.rel, pt->control, pt->res.verdict.outcome))
                break;
            held++;
        }
        if (pt->res.verdict.outcome != want)
            break;
    }
    pt->tally.iteration = k > pt->repeat ? pt->repeat : k;
    pt->tally.held = held;
}

/* The points a set of threads shares: each takes the next until none is left. */
struct isolated_work {
    char *const *argv;
    struct sc_isolated_point *pts;
    int n, next;
    uint64_t limit_ns;
    unsigned attempts;
};

static void *isolated_worker(void *arg)
{
    struct isolated_work *w = arg;
    int i;
    while ((i = __atomic_fetch_add(&w->next, 1, __ATOMIC_RELAXED)) < w->n)
        run_isolated_point(w->argv, &w->pts[i], w->limit_ns, w->attempts);
    return NULL;
}

/*
 * The points are independent: each child has a context of its own, and the
 * parent only waits for them.  What a child costs is its context's start and
 * its faulted tear-down, not the GPU, so SC_ISOLATED_AT_ONCE of them run side
 * by side; the results are reported in plan order afterwards.
 */
void sc_point_run_isolated_all(char *const argv[], struct sc_isolated_point *pts, int n, uint64_t limit_ns,
                               unsigned attempts)
{
    struct isolated_work w = { argv, pts, n, 0, limit_ns, attempts };
    pthread_t th[SC_ISOLATED_AT_ONCE];
    int started = 0;
    while (started < SC_ISOLATED_AT_ONCE && started < n && pthread_create(&th[started], NULL, isolated_worker, &w) == 0)
        started++;
    if (started == 0) /* no thread to spare: this one does them all */
        isolated_worker(&w);
    for (int t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

/* One of a case's other processes (procs.h): the runs of its first API, then, when main moves it on, of the
 * runtime API's (one process serves both, so that a program starts it once). */
int sc_point_process_main(const sc_rule *rule, const struct sc_options *o, char **argv, int api, int proc,
                          const int fds[2])
{
    static struct sc_prog prog;
    char why[512];
    struct sc_run_config cfg = sc_point_config(o, argv);
    int rc = 0, case_index = 0, control = 0, next = 1;
    if (api != 0 && api != 1)
        return 2;
    for (int first = api; api <= 1; api++) {
        const sc_backend *b = api == 0 ? &sc_driver_backend : &sc_runtime_backend;
        int fd = fds[api];
        if (sc_support_init_api(o, b, why, sizeof why)) {
            fprintf(stderr, "%s: process %d cannot use the device: %s\n", rule->id, proc, why);
            sc_peer_start_failed(fd, proc, why); /* main reports it as the point's reason */
            return 3;
        }
        if (api == first && sc_support_room_waited_ns()) /* the process's start: told once */
            sc_peer_waited_for_room(b, fd, sc_support_room_waited_ns());
        while ((next = sc_peer_next(b, fd, &case_index, &control, why, sizeof why)) == 0) {
            if (case_index < 0 || case_index >= rule->ncases) {
                rc = 2;
                break;
            }
            cfg.case_index = case_index, cfg.control = control;
            sc_prog_init(&prog);
            (control ? rule->cases[case_index].control : rule->cases[case_index].build)(&prog);
            if ((rc = sc_run_child(b, &prog, &cfg, proc, fd)))
                break;
        }
        if (next != 2 || rc)
            break;
    }
    if (next < 0) {
        fprintf(stderr, "%s: process %d: %s\n", rule->id, proc, why);
        rc = 3;
    }
    fflush(NULL);
    _exit(rc);
}

/* The isolated child's side: run the one point, send the result, exit. */
int sc_point_child_main(const sc_rule *rule, const struct sc_options *o, char **argv, int case_index, int api,
                        int control)
{
    static struct child_reply reply;
    const sc_backend *b = api == 0 ? &sc_driver_backend : &sc_runtime_backend;
    char why[512];
    struct sc_run_config cfg = sc_point_config(o, argv);
    if (case_index < 0 || case_index >= rule->ncases || (api != 0 && api != 1))
        return 2;
    if (sc_support_init_api(o, b, why, sizeof why)) {
        sc_verdict_start(&reply.res.verdict, SC_AFTER);
        sc_verdict_error(&reply.res.verdict, "the child process cannot use the device: %s", why);
    } else {
        const sc_case *c = &rule->cases[case_index];
        /* one run: main starts a child for each repetition and attempt (sc_point_run_isolated) */
        cfg.case_index = case_index, cfg.control = control;
        cfg.first_look_ns = 0; /* the child runs once: main runs the attempts */
        sc_point_run(b, control ? c->control : c->build, control, &cfg, 1, 1, control ? SC_VIOLATED : SC_PASS,
                     &reply.res, &reply.tally);
    }
    reply.room_waited_ns = sc_support_room_waited_ns();
    fflush(NULL);
    _exit(sc_isolate_reply(&reply, sizeof reply) == 0 ? 0 : 1);
}
