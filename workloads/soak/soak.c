/*
 * soak.c - tools/soak: seeded random legal stream programs, each with its
 * negative control, run one after another until the duration has passed
 * (docs/soak.md).
 *
 * Usage: build/soak/soak --duration D [--seed S] [--threads N] [--heartbeat SEC]
 *        build/soak/soak --replay SEED [--threads N]          (options.h)
 *
 * Program i of a run has the seed soak_mix(run seed + i); plan.c makes the
 * program from it, and sc_point_run (point.c) runs its case and then its
 * control through the same machinery as a rule's case: the same hold window,
 * attempts, deadlines and verdicts, so an undecidable run stays undecidable.
 * A case that is violated or errs, or a control that errs, is a failure: the
 * program's seed, what happened and `tools/soak --replay SEED` are printed at
 * once.  A control whose expectation held is vacuous (counted, never a
 * failure: a driver may serialize more than it must).
 *
 * TAP 13, planned up front: one point per heartbeat interval (ok when no
 * program that ended in it failed; its YAML lists the failures' replay
 * commands), then host memory, device memory, and whether anything was
 * decided at all.  Each interval also prints a heartbeat line (as a TAP
 * comment, and on stderr for a terminal or a log).  Memory: the host's RSS
 * and the device's free memory are sampled at every heartbeat; the warm-up
 * ends with the first program that ends after a tenth of the duration (at
 * least SOAK_MIN_WARM_UP_S, or --warm-up), and
 * from then to the end RSS may grow by SOAK_HOST_SLACK and free device memory
 * fall by SOAK_DEVICE_SLACK.  SIGINT or SIGTERM ends the run after the
 * program under way: the intervals not reached are skipped, the summary is
 * printed.  A host thread stuck in a CUDA call ends the run like a rule
 * program (the watchdog: every point not written is "not ok").
 */
#define _GNU_SOURCE
#include "clock.h"
#include "devmem.h"
#include "options.h"
#include "plan.h"
#include "point.h"
#include "support.h"
#include "tap.h"
#include "watchdog.h"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SOAK_HOST_SLACK (32ull << 20)   /* RSS growth allowed after the warm-up   */
#define SOAK_DEVICE_SLACK (64ull << 20) /* free device memory that may be lost    */
#define SOAK_LISTED 8                   /* failures an interval's YAML lists      */
#define MIB(x) ((double)(x) / 1048576.0)

static const sc_rule rule = {
    "soak", SC_MUST,
    "a seeded random legal stream program keeps the ordering the documented semantics guarantee",
    "CUDA Driver API: Stream Management, Event Management; CUDA Runtime API: API synchronization behavior, "
    "stream synchronization behavior (the legacy default stream)",
    "", "", "", "workloads/soak/plan.c", 1, SC_API_DRIVER | SC_API_RUNTIME, 1, 0, 0, "", NULL, 0, 0, 0,
};

static const sc_backend *const backends[2] = { &sc_driver_backend, &sc_runtime_backend };
static struct soak_plan current; /* the program the build functions record */
static void build_case(sc_prog *p) { soak_plan_build(&current, p, 0); }
static void build_control(sc_prog *p) { soak_plan_build(&current, p, 1); }

static volatile sig_atomic_t stop_signal;
static void on_stop(int sig) { stop_signal = sig; }

struct counts {
    unsigned long programs, decided, violations, errors, undecidable, vacuous, skipped;
};

struct soak {
    struct soak_options so;
    struct sc_options ro;
    struct sc_support_answer support;
    char **argv;
    uint64_t point_limit_ns;
    struct counts total, interval;
    char listed[SOAK_LISTED * 160 + 1]; /* the interval's failures, one per line */
    unsigned nlisted;
    uint64_t last_seed; /* the latest program's, for the heartbeat */
};

static uint64_t host_rss(void)
{
    unsigned long size = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%lu %lu", &size, &rss) != 2)
            rss = 0;
        fclose(f);
    }
    return (uint64_t)rss * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void replay_command(const struct soak *s, uint64_t seed, char *out, size_t n)
{
    snprintf(out, n, "tools/soak --replay 0x%016llx --threads %u", (unsigned long long)seed, s->so.threads);
}

/* The backend a plan runs in (the driver API's when the runtime API cannot use the device: its reason is
 * printed once at the start). */
static const sc_backend *backend_of(const struct soak *s, const struct soak_plan *p)
{
    return p->api && !s->support.runtime_why ? backends[1] : backends[0];
}

/* Runs the case and its control of the program of this seed; 1 when a host thread is left stuck. */
static int run_program(struct soak *s, uint64_t seed, struct sc_result res[2], int *made)
{
    struct sc_tally t;
    struct sc_run_config cfg = sc_point_config(&s->ro, s->argv);
    cfg.first_look_ns = 0;
    *made = soak_plan_make(&current, seed, (int)s->so.threads) == 0;
    if (!*made)
        return 0;
    const sc_backend *b = backend_of(s, &current);
    sc_watchdog_arm(s->point_limit_ns, "watchdog: a soak program exceeded its hard time limit; a CUDA call or the "
                                       "device is stuck");
    sc_point_run(b, build_case, 0, &cfg, 1, s->ro.attempts, SC_PASS, &res[0], &t);
    if (!res[0].hung)
        sc_point_run(b, build_control, 1, &cfg, 1, s->ro.attempts, SC_VIOLATED, &res[1], &t);
    sc_watchdog_disarm();
    return res[0].hung || res[1].hung;
}

/* Counts one program's outcome; a failure is printed at once, with its replay command. */
static void account(struct soak *s, uint64_t seed, int made, const struct sc_result res[2])
{
    struct counts *c[2] = { &s->total, &s->interval };
    enum sc_outcome o = made ? res[0].verdict.outcome : SC_ERROR, k = made ? res[1].verdict.outcome : SC_ERROR;
    s->last_seed = seed;
    const char *what = NULL, *why = made ? res[0].verdict.why : "no program with a decidable expectation came "
                                                                "out of this seed (a generator bug)";
    for (int i = 0; i < 2; i++) {
        c[i]->programs++;
        c[i]->decided += o == SC_PASS && k == SC_VIOLATED;
        c[i]->violations += o == SC_VIOLATED;
        c[i]->errors += o == SC_ERROR || o == SC_OPEN || (o == SC_PASS && (k == SC_ERROR || k == SC_OPEN));
        c[i]->undecidable += o == SC_UNDECIDED || (o == SC_PASS && k == SC_UNDECIDED);
        c[i]->vacuous += o == SC_PASS && k == SC_PASS;
        c[i]->skipped += o == SC_SKIP || (o == SC_PASS && k == SC_SKIP);
    }
    if (o == SC_VIOLATED)
        what = "violated";
    else if (o == SC_ERROR || o == SC_OPEN)
        what = "error";
    else if (o == SC_PASS && (k == SC_ERROR || k == SC_OPEN))
        what = "control error", why = res[1].verdict.why;
    if (!what)
        return;
    char replay[96], prog[4096];
    replay_command(s, seed, replay, sizeof replay);
    soak_plan_describe(&current, prog, sizeof prog);
    sc_tap_diag("FAILED program %lu, seed 0x%016llx: %s: %s\nreplay: %s", s->total.programs,
                (unsigned long long)seed, what, why, replay);
    sc_tap_diag("program: %s", prog); /* a diagnostic line holds 1 KiB: the program gets one of its own */
    if (s->nlisted < SOAK_LISTED) {
        size_t len = strlen(s->listed);
        snprintf(s->listed + len, sizeof s->listed - len, "%s (%s)\n", replay, what);
        s->nlisted++;
    }
}

static void heartbeat(const struct soak *s, uint64_t elapsed_ns, const char *devfree)
{
    unsigned long sec = (unsigned long)(elapsed_ns / 1000000000u);
    char line[500], replay[96];
    replay_command(s, s->last_seed, replay, sizeof replay);
    snprintf(line, sizeof line,
             "heartbeat %02lu:%02lu:%02lu: %lu programs, %lu violations, %lu errors, %lu undecidable, %lu vacuous "
             "controls, %lu skipped; host RSS %.1f MiB; device free %s; latest program: %s",
             sec / 3600, sec / 60 % 60, sec % 60, s->total.programs, s->total.violations, s->total.errors,
             s->total.undecidable, s->total.vacuous, s->total.skipped, MIB(host_rss()), devfree, replay);
    sc_tap_diag("%s", line);
    fprintf(stderr, "soak: %s\n", line);
}

/* The point of the interval just ended. */
static void interval_point(struct soak *s)
{
    const struct counts *c = &s->interval;
    char n[32], d[32], u[32], v[32];
    struct sc_yaml y = { 0 };
    int failed = c->violations || c->errors;
    snprintf(n, sizeof n, "%lu", c->programs);
    snprintf(d, sizeof d, "%lu", c->decided);
    snprintf(u, sizeof u, "%lu", c->undecidable);
    snprintf(v, sizeof v, "%lu", c->vacuous);
    sc_yaml_add(&y, "message", failed ? "programs failed; each line below replays one"
                                      : "no program finished in this interval");
    sc_yaml_add(&y, "programs", n), sc_yaml_add(&y, "decided", d), sc_yaml_add(&y, "undecidable", u);
    sc_yaml_add(&y, "vacuous_controls", v);
    y.list_key = "replay", y.list = s->listed;
    sc_tap_point(!failed && c->programs > 0, NULL, failed || c->programs == 0 ? &y : NULL);
    memset(&s->interval, 0, sizeof s->interval);
    s->listed[0] = '\0', s->nlisted = 0;
}

static void memory_point(const char *what, int measured, uint64_t base, uint64_t last, int grows, uint64_t slack,
                         const char *why)
{
    char b[40], l[40], g[40], t[40];
    struct sc_yaml y = { 0 };
    if (!measured) {
        char skip[300];
        snprintf(skip, sizeof skip, "SKIP %s", why);
        sc_tap_point(1, skip, NULL);
        return;
    }
    int64_t delta = grows ? (int64_t)(last - base) : (int64_t)(base - last);
    snprintf(b, sizeof b, "%.1f MiB", MIB(base));
    snprintf(l, sizeof l, "%.1f MiB", MIB(last));
    snprintf(g, sizeof g, "%.1f MiB", (double)delta / 1048576.0);
    snprintf(t, sizeof t, "%.1f MiB", MIB(slack));
    sc_yaml_add(&y, "message", delta > (int64_t)slack ? "grew beyond the tolerance after the warm-up" : "flat");
    sc_yaml_add(&y, grows ? "rss_after_warm_up" : "free_after_warm_up", b);
    sc_yaml_add(&y, grows ? "rss_at_end" : "free_at_end", l);
    sc_yaml_add(&y, grows ? "growth" : "lost", g);
    sc_yaml_add(&y, "tolerance", t);
    sc_tap_diag("%s: %s after the warm-up, %s at the end (%s %s, tolerance %s)", what, b, l,
                grows ? "growth" : "lost", g, t);
    sc_tap_point(delta <= (int64_t)slack, NULL, delta > (int64_t)slack ? &y : NULL);
}

/* Device initialisation as for a rule program: 0 to run, else the exit status (a skip or a failed start). */
static int start(struct soak *s, int npoints, const char *const *names)
{
    sc_tap_begin(stdout);
    sc_watchdog_start();
    sc_tap_unplanned("device initialisation");
    sc_watchdog_arm(12ull * s->ro.deadline_ms * 1000000u, "watchdog: initialising the device did not end in time");
    switch (sc_support_check(&rule, &s->ro, &s->support)) {
    case SC_SUPPORT_SKIP: sc_tap_skip_all(s->support.why); return 0;
    case SC_SUPPORT_FAIL: {
        struct sc_yaml y = { 0 };
        sc_yaml_add(&y, "message", s->support.why);
        sc_tap_plan(1, &s->support.point);
        sc_tap_point(0, NULL, &y);
        return 1;
    }
    case SC_SUPPORT_OK: break;
    }
    sc_driver_backend.thread_attach();
    sc_watchdog_disarm();
    sc_tap_plan(npoints, names);
    if (s->support.runtime_why)
        sc_tap_diag("the runtime API cannot use the device (%s): every program runs in the driver API",
                    s->support.runtime_why);
    /* a program: its case and its control, each up to attempts + 1 runs of the window and four deadlines */
    s->point_limit_ns = 2ull * (s->ro.attempts + 1) * ((uint64_t)s->ro.window_ms + 4ull * s->ro.deadline_ms) *
                            1000000u + 10000000000ull;
    return -1;
}

static int replay(struct soak *s)
{
    char names[2][64], prog[4096], replay_cmd[96];
    const char *list[2] = { names[0], names[1] };
    struct sc_result res[2];
    int made;
    if (soak_plan_make(&current, s->so.replay, (int)s->so.threads)) {
        fprintf(stderr, "soak: no program with a decidable expectation comes out of seed 0x%016llx\n",
                (unsigned long long)s->so.replay);
        return 1;
    }
    const char *api = current.api ? "runtime" : "driver";
    snprintf(names[0], sizeof names[0], "soak.0x%016llx.%s", (unsigned long long)s->so.replay, api);
    snprintf(names[1], sizeof names[1], "soak.0x%016llx.%s.control", (unsigned long long)s->so.replay, api);
    int rc = start(s, 2, list);
    if (rc >= 0)
        return rc;
    soak_plan_describe(&current, prog, sizeof prog);
    replay_command(s, s->so.replay, replay_cmd, sizeof replay_cmd);
    sc_tap_diag("%s\n%s", replay_cmd, prog);
    if (strcmp(backend_of(s, &current)->name, api))
        sc_tap_diag("(run in the driver API: the runtime API cannot use the device)");
    if (run_program(s, s->so.replay, res, &made))
        goto hung;
    for (int ctl = 0; ctl < 2; ctl++) {
        enum sc_outcome o = res[ctl].verdict.outcome, want = ctl ? SC_VIOLATED : SC_PASS;
        const char *todo = o == SC_UNDECIDED ? "TODO undecidable" : ctl && o == SC_PASS ? "TODO vacuous" :
                           o == SC_SKIP ? "SKIP the API or the device lacks what it needs" : NULL;
        struct sc_yaml y = { 0 };
        sc_yaml_add(&y, "message", res[ctl].verdict.why);
        sc_yaml_add(&y, "outcome", sc_outcome_name(o));
        sc_yaml_add(&y, "level", "MUST");
        sc_yaml_add(&y, "program", prog);
        y.list_key = "timeline", y.list = res[ctl].timeline;
        sc_tap_point(o == want || o == SC_SKIP, todo, o == want ? NULL : &y);
    }
    return sc_tap_failures() ? 1 : 0;
hung:
    sc_tap_abandon("a host thread is stuck inside a CUDA call; the process cannot go on safely");
    fflush(stdout);
    _exit(1);
}

static int soak(struct soak *s)
{
    const uint64_t dur = s->so.duration_s * 1000000000ull, beat = (uint64_t)s->so.heartbeat_s * 1000000000ull;
    const uint64_t warm_up = s->so.warm_up_s ? s->so.warm_up_s * 1000000000ull
                             : dur / 10 > SOAK_MIN_WARM_UP_S * 1000000000ull ? dur / 10
                                                                             : SOAK_MIN_WARM_UP_S * 1000000000ull;
    const int nint = (int)((dur + beat - 1) / beat);
    const char **names = calloc((size_t)nint + 3, sizeof *names);
    char why[200] = "", devfree[240];
    if (!names)
        return 1;
    for (int k = 0; k < nint; k++) {
        uint64_t a = (uint64_t)k * s->so.heartbeat_s, b = a + s->so.heartbeat_s;
        char *n = malloc(120);
        snprintf(n, 120, "soak.interval.%d: every program that ended in %llu..%llu s kept its expectation", k + 1,
                 (unsigned long long)a, (unsigned long long)(b < s->so.duration_s ? b : s->so.duration_s));
        names[k] = n;
    }
    names[nint] = "soak.host_memory: RSS flat after the warm-up";
    names[nint + 1] = "soak.device_memory: free device memory flat after the warm-up";
    names[nint + 2] = "soak.decided: programs were decided (a case passed and its control showed the violation)";
    int rc = start(s, nint + 3, names);
    if (rc >= 0)
        return rc;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    uint64_t dev_base = 0, dev_last = 0, rss_base = 0, rss_last = 0;
    int dev_ok = soak_device_free(&dev_last, why, sizeof why) == 0, warm = 0, k = 0;
    sc_tap_diag("seed 0x%016llx, %llu s, heartbeat every %u s, programs of up to %u host threads; window %u ms, "
                "deadline %u ms, %u attempts; memory tolerance after the warm-up: host RSS +%.0f MiB, device free "
                "-%.0f MiB%s%s",
                (unsigned long long)s->so.seed, (unsigned long long)s->so.duration_s, s->so.heartbeat_s,
                s->so.threads, s->ro.window_ms, s->ro.deadline_ms, s->ro.attempts, MIB(SOAK_HOST_SLACK),
                MIB(SOAK_DEVICE_SLACK), dev_ok ? "" : "; device memory not measured: ", dev_ok ? "" : why);
    const uint64_t t0 = sc_now_ns();
    uint64_t now = t0;
    for (uint64_t i = 0; !stop_signal && now - t0 < dur; i++) {
        uint64_t state = s->so.seed + i, seed = soak_mix(&state);
        struct sc_result res[2];
        int made;
        memset(res, 0, sizeof res);
        if (run_program(s, seed, res, &made)) {
            sc_tap_abandon("a soak program left a host thread blocked inside a CUDA call; the process cannot go "
                           "on safely");
            fflush(stdout);
            _exit(1);
        }
        account(s, seed, made, res);
        now = sc_now_ns();
        if (!warm && now - t0 >= warm_up) { /* the warm-up is over: the baselines */
            warm = 1;
            rss_base = host_rss();
            dev_ok = dev_ok && soak_device_free(&dev_base, why, sizeof why) == 0;
        }
        int reached = now - t0 >= dur ? nint : (int)((now - t0) / beat);
        for (; k < reached; k++) { /* the intervals that ended */
            dev_ok = dev_ok && soak_device_free(&dev_last, why, sizeof why) == 0;
            snprintf(devfree, sizeof devfree, dev_ok ? "%.1f MiB" : "not measured", MIB(dev_last));
            heartbeat(s, now - t0, devfree);
            interval_point(s);
        }
    }
    if (stop_signal) {
        char skip[80];
        snprintf(skip, sizeof skip, "SKIP stopped by %s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
        sc_tap_diag("stopped by %s after %.1f s", stop_signal == SIGINT ? "SIGINT" : "SIGTERM",
                    (double)(now - t0) / 1e9);
        if (k < nint && s->interval.programs) /* the interval under way, as far as it got */
            interval_point(s), k++;
        for (; k < nint; k++)
            sc_tap_point(1, skip, NULL);
    }
    rss_last = host_rss();
    dev_ok = dev_ok && soak_device_free(&dev_last, why, sizeof why) == 0;
    memory_point("host RSS", warm, rss_base, rss_last, 1, SOAK_HOST_SLACK,
                 "the run stopped before the warm-up ended");
    memory_point("device free memory", warm && dev_ok, dev_base, dev_last, 0, SOAK_DEVICE_SLACK,
                 warm ? why : "the run stopped before the warm-up ended");
    sc_tap_point(s->total.decided > 0, NULL, NULL);
    const struct counts *c = &s->total;
    snprintf(devfree, sizeof devfree, dev_ok ? "%.1f MiB" : "not measured", MIB(dev_last));
    sc_tap_diag("summary: %lu programs in %.1f s (seed 0x%016llx): %lu decided (case passed, control violated), "
                "%lu violations, %lu errors, %lu undecidable, %lu vacuous controls, %lu skipped; host RSS %.1f MiB; "
                "device free %s",
                c->programs, (double)(now - t0) / 1e9, (unsigned long long)s->so.seed, c->decided, c->violations,
                c->errors, c->undecidable, c->vacuous, c->skipped, MIB(rss_last), devfree);
    fprintf(stderr, "soak: %lu programs, %lu violations, %lu errors, %lu undecidable, %lu vacuous controls\n",
            c->programs, c->violations, c->errors, c->undecidable, c->vacuous);
    return sc_tap_failures() ? 1 : 0;
}

int main(int argc, char **argv)
{
    static struct soak s;
    char *rule_argv[] = { argv[0], NULL };
    int rc = soak_options_parse(argc, argv, &s.so);
    if (rc != SOAK_GO)
        return rc == SOAK_HELP ? 0 : 2;
    /* the rule programs' settings (STREAMCTS_WINDOW_MS, ...), from the environment only */
    if ((rc = sc_options_parse(&rule, 1, rule_argv, &s.ro)) != SC_OPTIONS_GO)
        return rc == SC_OPTIONS_DONE ? 0 : 2;
    if (!s.so.has_seed) {
        uint64_t state = sc_now_ns() ^ ((uint64_t)getpid() << 32);
        s.so.seed = soak_mix(&state);
    }
    s.argv = argv;
    return s.so.has_replay ? replay(&s) : soak(&s);
}
