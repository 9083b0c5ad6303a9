/* point.c - running one TAP point, in this process or in child processes (see point.h). */
#define _GNU_SOURCE
#include "point.h"
#include "isolate.h"
#include "support.h"
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct sc_run_config sc_point_config(const struct sc_options *o, char *const *argv)
{
    struct sc_run_config cfg = { (uint64_t)o->window_ms * 1000000u, (uint64_t)o->deadline_ms * 1000000u, argv, 0, 0 };
    return cfg;
}

/*
 * Independence can be hidden by a false dependency: two streams that share a
 * hardware queue serialize even though nothing synchronizes them.  One
 * observation of B completing while A is held proves that no synchronization
 * orders B after A, so an outcome that needed independence and did not see it
 * is tried again with fresh streams (and threads), up to `attempts` times.
 */
static int needs_independence(enum sc_relation rel, int control, enum sc_outcome o)
{
    return (!control && rel == SC_NOT_HELD && o == SC_VIOLATED) || (control && rel == SC_AFTER && o == SC_PASS) ||
           (control && rel == SC_KEEPS_DATA && o == SC_PASS) || o == SC_UNDECIDED;
}

void sc_point_run(const sc_backend *b, sc_build_fn build, int control, struct sc_run_config *cfg, unsigned repeat,
                  unsigned attempts, enum sc_outcome want, struct sc_result *res, struct sc_tally *t)
{
    static struct sc_prog prog;
    t->held = 0;
    cfg->control = control;
    for (unsigned k = 1; k <= repeat; k++) {
        t->iteration = k;
        for (unsigned a = 1; a <= attempts; a++) {
            sc_prog_init(&prog);
            build(&prog);
            sc_run_program(b, &prog, cfg, res);
            if (res->hung || !needs_independence(prog.rel, control, res->verdict.outcome))
                break;
            t->held++;
        }
        if (res->verdict.outcome != want || res->hung)
            return;
    }
}

/* What a child process sends back: the point's result and its tally. */
struct child_reply {
    struct sc_result res;
    struct sc_tally tally;
    uint64_t room_waited_ns; /* the child waited this long for room for its context */
};

/* Isolated children that waited for room for their context, and how long in all (reported at the end). */
static unsigned isolated_room_waits;
static uint64_t isolated_room_wait_ns;

void sc_point_isolated_room_waits(unsigned *n, uint64_t *ns)
{
    *n = isolated_room_waits;
    *ns = isolated_room_wait_ns;
}

/* Runs one point (case, API, control) in a child process of its own. */
static void run_isolated(char *const argv[], int case_index, int api, int control, uint64_t limit_ns,
                         struct sc_result *res, struct sc_tally *t)
{
    static struct child_reply reply;
    char why[300];
    if (sc_isolate_run(argv, case_index, api, control, limit_ns, &reply, sizeof reply, why, sizeof why) == 0) {
        *res = reply.res;
        *t = reply.tally;
        if (reply.room_waited_ns)
            isolated_room_waits++, isolated_room_wait_ns += reply.room_waited_ns;
        return;
    }
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
void sc_point_run_isolated(char *const argv[], int case_index, int api, int control, uint64_t limit_ns,
                           unsigned repeat, unsigned attempts, struct sc_result *res, struct sc_tally *t)
{
    enum sc_outcome want = control ? SC_VIOLATED : SC_PASS;
    unsigned held = 0, k;
    for (k = 1; k <= repeat; k++) {
        for (unsigned a = 1; a <= attempts; a++) {
            run_isolated(argv, case_index, api, control, limit_ns, res, t);
            if (!needs_independence(res->verdict.rel, control, res->verdict.outcome))
                break;
            held++;
        }
        if (res->verdict.outcome != want)
            break;
    }
    t->iteration = k > repeat ? repeat : k;
    t->held = held;
}

/* One of a case's other processes (procs.h). */
int sc_point_process_main(const sc_rule *rule, const struct sc_options *o, char **argv, int api, int proc, int fd)
{
    static struct sc_prog prog;
    const sc_backend *b = api == 0 ? &sc_driver_backend : &sc_runtime_backend;
    char why[512];
    struct sc_run_config cfg = sc_point_config(o, argv);
    int rc = 0, case_index = 0, control = 0;
    if (api != 0 && api != 1)
        return 2;
    if (sc_support_init_api(o, b, why, sizeof why)) {
        fprintf(stderr, "%s: process %d cannot use the device: %s\n", rule->id, proc, why);
        sc_peer_start_failed(fd, proc, why); /* main reports it as the point's reason */
        return 3;
    }
    if (sc_support_room_waited_ns())
        sc_peer_waited_for_room(b, fd, sc_support_room_waited_ns());
    int next;
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
        sc_point_run(b, control ? c->control : c->build, control, &cfg, 1, 1, control ? SC_VIOLATED : SC_PASS,
                     &reply.res, &reply.tally);
    }
    reply.room_waited_ns = sc_support_room_waited_ns();
    fflush(NULL);
    _exit(sc_isolate_reply(&reply, sizeof reply) == 0 ? 0 : 1);
}
