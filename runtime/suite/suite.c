/* suite.c - a rule program's TAP run: start, plan, the loop over APIs x cases x controls (see suite.h). */
#define _GNU_SOURCE
#include "suite.h"
#include "calibrate.h"
#include "clock.h"
#include "point.h"
#include "prog.h"
#include "report.h"
#include "support.h"
#include "tap.h"
#include "watchdog.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const sc_backend *const backends[2] = { &sc_driver_backend, &sc_runtime_backend };

int sc_suite_list(const sc_rule *rule, const struct sc_options *o)
{
    for (int i = 0; i < rule->ncases; i++)
        if (sc_options_case(o, rule->cases[i].id))
            printf("%s\n", rule->cases[i].id);
    return 0;
}

/* The device's initialisation, bounded by the watchdog, and whether the rule can run here: SC_SUPPORT_OK, or
 * the skip or the failed point is written. */
static enum sc_support start(const sc_rule *rule, const struct sc_options *o, struct sc_support_answer *a)
{
    /* cuInit, the contexts, loading and warming the kernels: seen to take over 10 s under load
     * (CUDA_DEVICE_MAX_CONNECTIONS=32, prove -j8), so the limit is generous, but there is one */
    static char init_why[200];
    snprintf(init_why, sizeof init_why,
             "watchdog: initialising the device (cuInit, its context, the suite's kernels) did not end within "
             "%.1f s (%u deadlines); the driver or the device is stuck", SC_INIT_DEADLINES * o->deadline_ms / 1e3,
             SC_INIT_DEADLINES);
    sc_watchdog_start();
    sc_tap_unplanned("device initialisation");
    sc_watchdog_arm(SC_INIT_DEADLINES * (uint64_t)o->deadline_ms * 1000000u, init_why);
    enum sc_support s = sc_support_check(rule, o, a);
    if (s == SC_SUPPORT_SKIP) {
        sc_tap_skip_all(a->why);
    } else if (s == SC_SUPPORT_FAIL) {
        struct sc_yaml y = { 0 };
        sc_yaml_add(&y, "message", a->why);
        sc_tap_plan(1, &a->point);
        sc_tap_point(0, NULL, &y);
    } else {
        sc_driver_backend.thread_attach();
        sc_watchdog_disarm();
    }
    return s;
}

/* The plan's point names: per API (a case's other processes, if any, serve one API's runs, then the next's: run.c), every selected
 * case and its control; returns how many. */
static int plan_names(const sc_rule *rule, const struct sc_options *o, const char **names)
{
    int n = 0;
    for (int a = 0; a < 2; a++) {
        if (!sc_options_api(o, backends[a]->name) || !sc_support_api(rule, a))
            continue;
        for (int i = 0; i < rule->ncases; i++) {
            if (!sc_options_case(o, rule->cases[i].id))
                continue;
            for (int ctl = 0; ctl <= o->controls; ctl++) {
                char *name = malloc(strlen(rule->cases[i].id) + 32);
                sprintf(name, "%s.%s%s", rule->cases[i].id, backends[a]->name, ctl ? ".control" : "");
                names[n++] = name;
            }
        }
    }
    return n;
}

/* After the points: what the other processes and isolated children cost. */
static void report_children(const sc_rule *rule)
{
    unsigned isolated_waits;
    uint64_t isolated_wait_ns;
    if (rule->processes > 1) {
        struct sc_peer_tally t;
        sc_run_end_peers(&t);
        if (t.room_waits)
            sc_tap_diag("other processes: %u started for %u runs; %u of them waited %.1f s in all for room for "
                        "their context",
                        t.started, t.runs, t.room_waits, (double)t.room_wait_ns / 1e9);
        else
            sc_tap_diag("other processes: %u started for %u runs", t.started, t.runs);
    }
    unsigned made = sc_run_take_contexts_made();
    if (made)
        sc_tap_diag("contexts created: %u by the cases (cuCtxCreate, green contexts; a kept one is not made again), "
                    "each a creation the driver serializes across the GPU", made);
    sc_point_isolated_room_waits(&isolated_waits, &isolated_wait_ns);
    if (isolated_waits)
        sc_tap_diag("isolated points: %u child processes waited %.1f s in all for room for their context",
                    isolated_waits, (double)isolated_wait_ns / 1e9);
}

/* Does a point of a rule that faults its context run in a child process?  Only where its own program faults:
 * a control, the same program without the fault, runs here like any other point (a child process is a
 * context's creation and tear-down, which the driver serializes across the GPU: docs/performance.md).  A
 * program that cannot be looked at (no memory) runs in a child, the safe side. */
static int point_isolates(const sc_rule *rule, const sc_case *c, int control)
{
    return rule->isolate && sc_prog_isolates(control ? c->control : c->build) != 0;
}

/* A rule that faults its context: every point it will report whose program faults (the loop's order), run in
 * child processes side by side before any is reported; the list ends with a case_index of -1. */
static struct sc_isolated_point *run_isolated_points(const sc_rule *rule, const struct sc_options *o, char **argv,
                                                     const struct sc_support_answer *support, uint64_t limit)
{
    struct sc_isolated_point *pts = calloc((size_t)rule->ncases * 4 + 1, sizeof *pts);
    int n = 0;
    if (!pts) {
        sc_tap_abandon("out of memory for the isolated points' results");
        exit(1);
    }
    for (int a = 0; a < 2; a++) {
        if (!sc_options_api(o, backends[a]->name) || !sc_support_api(rule, a) || (a == 1 && support->runtime_why))
            continue;
        for (int i = 0; i < rule->ncases; i++)
            for (int ctl = 0; sc_options_case(o, rule->cases[i].id) && ctl <= o->controls; ctl++)
                if (point_isolates(rule, &rule->cases[i], ctl))
                    pts[n].case_index = i, pts[n].api = a, pts[n].control = ctl, pts[n++].repeat = ctl ? 1 : o->repeat;
    }
    pts[n].case_index = -1;
    sc_tap_diag("isolated points: %d child process%s, one for each point whose program faults its context", n,
                n == 1 ? "" : "es");
    sc_point_run_isolated_all(argv, pts, n, limit, o->attempts);
    return pts;
}

static uint64_t point_limit_ns; /* the watchdog's limit for one point */

/*
 * The first look, timed again as the program goes on (calibrate.h): a program
 * that started while other contexts held the GPU calibrated a long first look,
 * and keeps it for its whole run unless the device is timed again.  So between
 * cases, once SC_FIRST_LOOK_RECHECK_NS has passed, the legal round trip is
 * timed again and the first look follows it, except that one a control asked
 * for since the last timing (run_case doubled it) is not shortened.
 */
static struct {
    int on;              /* the first look is calibrated (not set, not off, not an isolated rule) */
    int asked_more;      /* a control needed more than the first look since the last timing */
    uint64_t timed_ns;   /* when the round trip was last timed */
} look;

static void recheck_first_look(struct sc_run_config *cfg)
{
    if (!look.on || sc_now_ns() - look.timed_ns < SC_FIRST_LOOK_RECHECK_NS)
        return;
    uint64_t fastest;
    sc_watchdog_arm(point_limit_ns, "watchdog: timing legal round trips for the first look did not end; a CUDA "
                                    "call or the device is stuck");
    sc_driver_backend.thread_attach(); /* a point may leave another context current: time device 0's */
    uint64_t next = sc_calibrate_first_look(&sc_driver_backend, cfg->window_ns, cfg->deadline_ns, &fastest);
    sc_watchdog_disarm();
    look.timed_ns = sc_now_ns();
    if (look.asked_more && next < cfg->first_look_ns)
        next = cfg->first_look_ns;
    look.asked_more = 0;
    if (next != cfg->first_look_ns) {
        sc_tap_diag("first look now %.1f ms (the fastest of %u legal round trips timed again: %.3f ms)",
                    (double)next / 1e6, SC_FIRST_LOOK_ROUND_TRIPS, (double)fastest / 1e6);
        cfg->first_look_ns = next;
    }
}

/* One point, bounded by the watchdog; 1 when a host thread is left stuck in a CUDA call. */
static int run_point(const sc_backend *b, sc_build_fn build, int control, struct sc_run_config *cfg, unsigned repeat,
                     const struct sc_options *o, struct sc_result *res, struct sc_tally *t)
{
    sc_watchdog_arm(point_limit_ns, "watchdog: the point exceeded its hard time limit; a CUDA call or the device is stuck");
    sc_point_run(b, build, control, cfg, repeat, o->attempts, control ? SC_VIOLATED : SC_PASS, res, t);
    sc_watchdog_disarm();
    return res->hung;
}

/*
 * A case and its control, reported in that order.  A case that held B for
 * the first look only (calibrate.h) stands on its control: the control is
 * the same program without the dependency, so if the control showed its
 * violation within the first look, a driver ignoring the dependency would
 * have shown it in the case too.  When the control needed the full window,
 * or there is no control, the case runs again with the full window.  So
 * does a blocks-until case whose control's X is another kind of call: its
 * pass rests on the subject's own call lasting the hold, and another call
 * (an idle stream's synchronize for a context synchronize) cannot show that
 * the subject would have returned within the first look (a mock whose
 * cuMemFree never waits passed when its allocation, any call may block,
 * happened to take over 5 ms: about 1 run in 200).  When the control's X is
 * the same call on what it need not wait for (a synchronize of an idle
 * stream for one of the held stream), its return within the first look
 * shows that call's speed, as a control's B shows B's.
 * 1 when a host thread is left stuck in a CUDA call (what ran is reported).
 */
static int control_backs_pass(const struct sc_result res[2], int control_looked)
{
    if (!control_looked || res[1].verdict.outcome != SC_VIOLATED)
        return 0;
    return res[0].verdict.rel != SC_BLOCKS_UNTIL || res[1].subject_kind == res[0].subject_kind;
}

static int run_case(const sc_rule *rule, const sc_case *c, const sc_backend *b, struct sc_run_config *cfg,
                    const struct sc_options *o, const char *argv0)
{
    static struct sc_result res[2];
    struct sc_tally tally[2];
    uint64_t next_first_look = cfg->first_look_ns;
    int hung = run_point(b, c->build, 0, cfg, o->repeat, o, &res[0], &tally[0]);
    if (!hung && o->controls)
        hung = run_point(b, c->control, 1, cfg, 1, o, &res[1], &tally[1]);
    int looking = cfg->first_look_ns && cfg->first_look_ns < cfg->window_ns;
    int looked = looking && tally[0].window_ns == cfg->first_look_ns;
    int control_looked = looking && o->controls && !hung && tally[1].window_ns == cfg->first_look_ns;
    if (looking && o->controls && !hung && !control_looked) /* the device needs longer: look longer */
        next_first_look = cfg->first_look_ns * 2 < cfg->window_ns ? cfg->first_look_ns * 2 : cfg->window_ns;
    if (!hung && looked && res[0].verdict.outcome == SC_PASS && !control_backs_pass(res, control_looked)) {
        uint64_t look = cfg->first_look_ns;
        cfg->first_look_ns = 0;
        hung = run_point(b, c->build, 0, cfg, o->repeat, o, &res[0], &tally[0]);
        cfg->first_look_ns = look;
    }
    sc_report_point(rule, c, b, 0, &res[0], &tally[0], o, argv0);
    if (o->controls && !res[0].hung)
        sc_report_point(rule, c, b, 1, &res[1], &tally[1], o, argv0);
    if (next_first_look != cfg->first_look_ns) {
        sc_tap_diag("%s.%s.control needed more than the %.1f ms first look: %.1f ms from here on", c->id, b->name,
                    (double)cfg->first_look_ns / 1e6, (double)next_first_look / 1e6);
        cfg->first_look_ns = next_first_look;
        look.asked_more = 1;
    }
    return hung;
}

int sc_suite_run(const sc_rule *rule, const struct sc_options *o, char **argv)
{
    struct sc_support_answer support;
    sc_tap_begin(stdout);
    switch (start(rule, o, &support)) {
    case SC_SUPPORT_SKIP: return 0;
    case SC_SUPPORT_FAIL: return 1;
    case SC_SUPPORT_OK: break;
    }
    const char **names = calloc((size_t)rule->ncases * 4 + 1, sizeof *names);
    int n = plan_names(rule, o, names);
    if (n == 0) {
        sc_tap_skip_all("no case matches the selection");
        return 0;
    }
    sc_support_check_gates(o);
    sc_report_header(rule, o);
    struct sc_run_config cfg = sc_point_config(o, argv);
    look.on = look.asked_more = 0; /* a host's worker runs program after program: none inherits the last one's */
    sc_run_take_contexts_made();      /* nor what an earlier program's cases made */
    if (rule->isolate) { /* each isolated child runs its point once: main runs the attempts */
        cfg.first_look_ns = 0;
    } else if (o->first_look_ms == SC_FIRST_LOOK_AUTO) {
        uint64_t fastest;
        cfg.first_look_ns = sc_calibrate_first_look(&sc_driver_backend, cfg.window_ns, cfg.deadline_ns, &fastest);
        sc_tap_diag("first look %.1f ms (%u x the fastest of %u legal launch and query round trips, %.3f ms, "
                    "at least %.0f ms, at most the window)",
                    (double)cfg.first_look_ns / 1e6, SC_FIRST_LOOK_FACTOR, SC_FIRST_LOOK_ROUND_TRIPS,
                    (double)fastest / 1e6, SC_FIRST_LOOK_MIN_NS / 1e6);
        look.on = 1;
        look.timed_ns = sc_now_ns();
    } else if (cfg.first_look_ns) {
        sc_tap_diag("first look %u ms (set)", o->first_look_ms);
    }
    if (cfg.first_look_ns && cfg.first_look_ns < cfg.window_ns)
        sc_tap_diag("each point's first run holds its gates for the first look; a case that held B that long "
                    "stands when its control showed its violation within it, else it and any run that needs more "
                    "get the full window");
    sc_tap_plan(n, names);

    /* a program has three phases bounded by the deadline, plus the window */
    /* (a case of several processes may also take 4 deadlines to start them: run.c, SC_START_DEADLINES) */
    uint64_t phases = rule->processes > 1 ? 8 : 4;
    uint64_t limit = (uint64_t)o->repeat * (o->attempts + 1) * (cfg.window_ns + phases * cfg.deadline_ns) + 10000000000ull;
    /* the children are killed at the limit; no watchdog needed for them */
    point_limit_ns = limit;
    struct sc_isolated_point *isolated = rule->isolate ? run_isolated_points(rule, o, argv, &support, limit) : NULL;
    for (int a = 0; a < 2; a++) {
        const sc_backend *b = backends[a];
        if (!sc_options_api(o, b->name) || !sc_support_api(rule, a))
            continue;
        if (a == 1) {
            sc_run_move_peers(); /* the driver API's processes go on to serve the runtime API's runs */
            sc_run_forget_contexts();
        }
        for (int i = 0; i < rule->ncases; i++) {
            const sc_case *c = &rule->cases[i];
            if (!sc_options_case(o, c->id))
                continue;
            cfg.case_index = i;
            if (b == &sc_runtime_backend && support.runtime_why) { /* a failure, never a skip or a silent pass */
                struct sc_yaml y = { 0 };
                sc_yaml_add(&y, "message", support.runtime_why);
                for (int ctl = 0; ctl <= o->controls; ctl++)
                    sc_tap_point(0, NULL, &y);
                continue;
            }
            if (isolated) { /* the faulting points ran already, in plan order; the others run here */
                for (int ctl = 0; ctl <= o->controls; ctl++) {
                    if (isolated->case_index == i && isolated->api == a && isolated->control == ctl) {
                        sc_report_point(rule, c, b, ctl, &isolated->res, &isolated->tally, o, argv[0]);
                        isolated++;
                        continue;
                    }
                    static struct sc_result res;
                    struct sc_tally tally;
                    int hung = run_point(b, ctl ? c->control : c->build, ctl, &cfg, ctl ? 1 : o->repeat, o, &res,
                                         &tally);
                    sc_report_point(rule, c, b, ctl, &res, &tally, o, argv[0]);
                    if (hung)
                        goto hung;
                }
                continue;
            }
            recheck_first_look(&cfg);
            if (run_case(rule, c, b, &cfg, o, argv[0]))
                goto hung;
        }
    }
    sc_run_forget_contexts();
    report_children(rule);
    return sc_tap_failures() ? 1 : 0;

hung:
    sc_tap_abandon("an earlier case left a host thread blocked inside a CUDA call; the process cannot go on safely");
    fflush(stdout);
    _exit(1);
}
