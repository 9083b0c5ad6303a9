/*
 * main.c - sc_main: what every rule program does.
 *
 * Options (each also an environment variable, since prove passes none; a flag
 * wins over its variable, an empty variable is unset):
 *   --case GLOB       STREAMCTS_CASE         run the cases whose id matches
 *   --api NAME        STREAMCTS_API          driver, runtime or both (default)
 *   --repeat N        STREAMCTS_REPEAT       1..10000: run each case N times; one failure fails it
 *                                            (default: the rule's repeat column)
 *   --attempts N      STREAMCTS_ATTEMPTS     1..100: tries to see independence past false dependencies (3)
 *   --window-ms N     STREAMCTS_WINDOW_MS    1..60000: hold window (default 50)
 *   --deadline-ms N   STREAMCTS_DEADLINE_MS  1..600000: per-phase deadline (default 10000)
 *   --no-control      STREAMCTS_NO_CONTROL   0..1: 1 skips the negative controls
 *   --list                                   print the case ids and exit
 *   --help                                   print the options and exit
 *                     STREAMCTS_MPS_LOCK_MS  0..86400000: a *.mps.t program's wait for the MPS server (mps.h)
 * A number is digits only.  A bad flag or value is named, with its range, on
 * stderr, and the program exits 2 before it touches a device.  The ranges keep
 * the watchdog's limit (repeat x attempts x phases x deadline) within 64 bits.
 */
#define _GNU_SOURCE
#include "backend.h"
#include "clock.h"
#include "isolate.h"
#include "mps.h"
#include "procs.h"
#include "prog.h"
#include "run.h"
#include "tap.h"
#include "watchdog.h"
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct options {
    const char *glob, *api;
    unsigned repeat, attempts, window_ms, deadline_ms, no_control, mps_lock_ms;
    int controls, list;
};

/* The numeric settings: a flag (NULL: the variable only; a switch takes no value and means 1), its
 * variable, its range, its field. */
static const struct number {
    const char *flag, *env;
    int is_switch;
    unsigned min, max;
    size_t field;
    const char *help;
} numbers[] = {
    { "--repeat", "STREAMCTS_REPEAT", 0, 1, 10000, offsetof(struct options, repeat),
      "runs of each case; one failing run fails it" },
    { "--attempts", "STREAMCTS_ATTEMPTS", 0, 1, 100, offsetof(struct options, attempts),
      "fresh-stream tries of a case that needs independence" },
    { "--window-ms", "STREAMCTS_WINDOW_MS", 0, 1, 60000, offsetof(struct options, window_ms),
      "hold window" },
    { "--deadline-ms", "STREAMCTS_DEADLINE_MS", 0, 1, 600000, offsetof(struct options, deadline_ms),
      "deadline of each phase" },
    { "--no-control", "STREAMCTS_NO_CONTROL", 1, 0, 1, offsetof(struct options, no_control),
      "1 skips the negative controls" },
    { NULL, "STREAMCTS_MPS_LOCK_MS", 0, 0, 86400000, offsetof(struct options, mps_lock_ms),
      "how long a *.mps.t program waits for the MPS server" },
};
#define NNUMBERS (sizeof numbers / sizeof numbers[0])
static const char *const apis = "driver, runtime or both";

static const char *program; /* argv[0], for the messages */

enum { GO = 0, DONE = 1, BAD = 2 }; /* parse's answers: run, exit 0 (--help printed), exit 2 (bad input) */

/* A message about the command line or environment, on stderr; returns BAD. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return BAD;
}

/* text as a whole number in min..max: digits only (no sign, space or suffix); 0, or BAD naming who. */
static int parse_uint(const char *who, const char *text, unsigned min, unsigned max, unsigned *out)
{
    unsigned long long v = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9' && v <= max; p++)
        v = v * 10 + (unsigned)(*p - '0');
    if (p == text || *p || v < min || v > max)
        return bad("%s: '%s' is not a whole number in %u..%u", who, text, min, max);
    *out = (unsigned)v;
    return 0;
}

static int parse_api(const char *who, const char *text)
{
    if (strcmp(text, "driver") && strcmp(text, "runtime") && strcmp(text, "both"))
        return bad("%s: '%s' is not one of %s", who, text, apis);
    return 0;
}

static void defaults(const sc_rule *rule, struct options *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = rule->repeat ? rule->repeat : 1;
    o->attempts = 3;
    o->window_ms = 50;
    o->deadline_ms = 10000;
    o->mps_lock_ms = SC_MPS_LOCK_MS;
}

static void help(const sc_rule *rule)
{
    char label[32];
    struct options dflt;
    defaults(rule, &dflt);
    printf("usage: %s [option]...\n"
           "Checks rule %s and reports it as TAP on stdout.  Each setting also comes from its\n"
           "environment variable (for whole-suite runs); a flag wins, an empty variable is unset.\n"
           "  %-17s %-22s %s\n  %-17s %-22s %s\n",
           program, rule->id, "--case GLOB", "STREAMCTS_CASE", "the cases whose id matches (default: all)",
           "--api NAME", "STREAMCTS_API", "driver, runtime or both (default both)");
    for (size_t i = 0; i < NNUMBERS; i++) {
        const struct number *n = &numbers[i];
        snprintf(label, sizeof label, "%s%s", n->flag ? n->flag : "", n->flag && !n->is_switch ? " N" : "");
        printf("  %-17s %-22s %u..%u: %s (default%s %u)\n", label, n->env, n->min, n->max, n->help,
               n->field == offsetof(struct options, repeat) ? ": the rule's," : "",
               *(const unsigned *)((const char *)&dflt + n->field));
    }
    printf("  %-17s %-22s %s\n  %-17s %-22s %s\n"
           "A number is digits only; a bad flag or value exits 2 before any device is touched.\n",
           "--list", "", "print the case ids and exit", "--help", "", "print this and exit");
}

/* The field a numeric setting sets. */
static unsigned *field(struct options *o, const struct number *n) { return (unsigned *)((char *)o + n->field); }

/* The numeric setting whose flag is arg, or NULL. */
static const struct number *flag_number(const char *arg)
{
    for (size_t k = 0; k < NNUMBERS; k++)
        if (numbers[k].flag && !strcmp(arg, numbers[k].flag))
            return &numbers[k];
    return NULL;
}

/* The flags, then the variables: GO, DONE (--help was printed: exit 0) or BAD (exit 2). */
static int parse(const sc_rule *rule, int argc, char **argv, struct options *o)
{
    int given[NNUMBERS] = { 0 }, rc;
    const char *glob = NULL, *api = NULL;
    program = argv[0];
    defaults(rule, o);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        const struct number *n = flag_number(a);
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            help(rule);
            return DONE;
        }
        if (!strcmp(a, "--list")) {
            o->list = 1;
            continue;
        }
        if (n && n->is_switch) {
            *field(o, n) = 1;
            given[n - numbers] = 1;
            continue;
        }
        if (!n && strcmp(a, "--case") && strcmp(a, "--api"))
            return bad("unknown option '%s' (--help lists the options)", a);
        if (!v)
            return n ? bad("%s needs a value: a whole number in %u..%u", a, n->min, n->max)
                     : bad("%s needs a value: %s", a, !strcmp(a, "--api") ? apis : "a glob of case ids");
        i++;
        if (n) {
            if ((rc = parse_uint(a, v, n->min, n->max, field(o, n))))
                return rc;
            given[n - numbers] = 1;
        } else if (!strcmp(a, "--api")) {
            if ((rc = parse_api(a, v)))
                return rc;
            api = v;
        } else {
            glob = v;
        }
    }
    /* the variables, each checked even where a flag wins over it */
    for (size_t k = 0; k < NNUMBERS; k++) {
        const char *v = getenv(numbers[k].env);
        unsigned value;
        if (!v || !*v)
            continue;
        if ((rc = parse_uint(numbers[k].env, v, numbers[k].min, numbers[k].max, &value)))
            return rc;
        if (!given[k])
            *field(o, &numbers[k]) = value;
    }
    const char *env_api = getenv("STREAMCTS_API");
    if (env_api && *env_api && (rc = parse_api("STREAMCTS_API", env_api)))
        return rc;
    o->glob = glob ? glob : getenv("STREAMCTS_CASE");
    o->api = api ? api : env_api;
    o->controls = !o->no_control;
    return GO;
}

static int selected(const struct options *o, const char *id) { return !o->glob || !*o->glob || !fnmatch(o->glob, id, 0); }
static int api_selected(const struct options *o, const char *api)
{
    return !o->api || !*o->api || !strcmp(o->api, "both") || !strcmp(o->api, api);
}

/* Does the rule run in this API at all (stream memory operations: the driver API only)? */
static int api_of_rule(const sc_rule *rule, int a)
{
    unsigned bit = a == 0 ? SC_API_DRIVER : SC_API_RUNTIME;
    return !rule->apis || (rule->apis & bit);
}

static const char *level_name(enum sc_level l)
{
    return l == SC_MUST ? "MUST" : l == SC_DE_FACTO ? "DE-FACTO" : "SHOULD";
}

#define SC_INIT_DEADLINES 12u /* the device's initialisation may take this many deadlines */
#define SC_ROOM_DEADLINES 3u  /* ... of which waiting for room for a context (SC_BUSY) at most this many */
#define SC_ROOM_RETRY_NS 50000000u

static uint64_t room_waited_ns; /* how long this process waited for room for its context */

/*
 * The driver API's initialisation, waited for while the device has no room
 * for another context: other programs of a parallel run hold theirs (an H100
 * at CUDA_DEVICE_MAX_CONNECTIONS=32 held 7 to 11 processes' contexts, then answered
 * CUDA_ERROR_OUT_OF_MEMORY while 77 GiB were free).  That is the machine's
 * load, not the rule under test, so it is waited out, for a bounded time.
 */
static int init_driver(const struct options *o, char *why, size_t n)
{
    uint64_t start = sc_now_ns(), limit = SC_ROOM_DEADLINES * (uint64_t)o->deadline_ms * 1000000u;
    int state, busy = 0;
    while ((state = sc_driver_backend.init(why, n)) == SC_BUSY && sc_now_ns() - start < limit) {
        busy = 1;
        sc_pause_ns(SC_ROOM_RETRY_NS);
    }
    if (!busy || (state != SC_READY && state != SC_BUSY))
        return state;
    uint64_t waited = sc_now_ns() - start;
    if (state == SC_BUSY) {
        size_t len = strlen(why);
        snprintf(why + len, n - len, "; still so after %.1f s of waiting", (double)waited / 1e9);
        return SC_BROKEN;
    }
    room_waited_ns = waited; /* with the successful initialisation itself */
    return state;
}

/* What the runtime and kernels the program links are (build/rt/digest.c, runtime/digest.sh). */
extern const char sc_runtime_digest[];

/* The suite's revision: STREAMCTS_REVISION, else read from the .git above the program. */
static void revision(char *out, size_t n)
{
    char path[4096], head[256];
    const char *env = getenv("STREAMCTS_REVISION");
    snprintf(out, n, "unknown");
    if (env && *env) {
        snprintf(out, n, "%s", env);
        return;
    }
    ssize_t len = readlink("/proc/self/exe", path, sizeof path - 64);
    if (len <= 0)
        return;
    path[len] = '\0';
    for (char *slash; (slash = strrchr(path, '/')) != NULL;) {
        *slash = '\0';
        char git[4200];
        snprintf(git, sizeof git, "%s/.git/HEAD", path);
        FILE *f = fopen(git, "r");
        if (!f)
            continue;
        if (fgets(head, sizeof head, f)) {
            head[strcspn(head, "\n")] = '\0';
            if (!strncmp(head, "ref: ", 5)) {
                char ref[4400];
                FILE *rf;
                snprintf(ref, sizeof ref, "%s/.git/%s", path, head + 5);
                if (!(rf = fopen(ref, "r")) || !fgets(head, sizeof head, rf))
                    snprintf(head, sizeof head, "unknown");
                head[strcspn(head, "\n")] = '\0';
                if (rf)
                    fclose(rf);
            }
            snprintf(out, n, "%.40s (working tree state unknown)", head);
        }
        fclose(f);
        return;
    }
}

static void header(const sc_rule *rule, const struct options *o)
{
    struct sc_device_info d;
    char rev[128], kmod[256] = "unknown";
    FILE *f = fopen("/proc/driver/nvidia/version", "r");
    if (f) {
        if (fgets(kmod, sizeof kmod, f))
            kmod[strcspn(kmod, "\n")] = '\0';
        fclose(f);
    }
    sc_driver_describe(&d);
    revision(rev, sizeof rev);
#define ENV(name) (getenv(name) ? getenv(name) : "(unset)")
    sc_tap_diag("streamcts %s (%s): %s", rule->id, level_name(rule->level), rule->text);
    sc_tap_diag("source: %s", rule->source);
    sc_tap_diag("spec: %s; program: %s; expect: %s%s%s", rule->spec, rule->program, rule->expect,
                rule->axes[0] ? "; case axes: " : "", rule->axes);
    sc_tap_diag("device: %s, %s, compute capability %d.%d", d.name, d.uuid, d.cc_major, d.cc_minor);
    sc_tap_diag("driver: CUDA %d.%d (%s); runtime: cudart %d.%d static; compile mode: %s",
                d.driver_version / 1000, d.driver_version % 1000 / 10, kmod, d.runtime_version / 1000,
                d.runtime_version % 1000 / 10, sc_compile_mode);
    if (d.lacking[0])
        sc_tap_diag("driver: libcuda.so.1 lacks the optional entry points %s; a case that calls one fails, "
                    "naming it", d.lacking);
    sc_tap_diag("env: CUDA_DEVICE_MAX_CONNECTIONS=%s CUDA_LAUNCH_BLOCKING=%s CUDA_VISIBLE_DEVICES=%s",
                ENV("CUDA_DEVICE_MAX_CONNECTIONS"), ENV("CUDA_LAUNCH_BLOCKING"), ENV("CUDA_VISIBLE_DEVICES"));
    sc_tap_diag("window %u ms, deadline %u ms, repeat %u, attempts %u; revision %s", o->window_ms, o->deadline_ms,
                o->repeat, o->attempts, rev);
    sc_tap_diag("build: program %s (sha256 of its generated C), runtime and kernels %s (sha256 of their sources)",
                rule->digest ? rule->digest : "unknown", sc_runtime_digest);
#undef ENV
}

struct tally {
    unsigned iteration; /* the repetition that decided the point          */
    unsigned held;      /* attempts in which a false dependency held B     */
};

static void report(const sc_rule *rule, const sc_case *c, const sc_backend *b, int control,
                   const struct sc_result *res, const struct tally *t, const struct options *o, const char *argv0)
{
    const struct sc_verdict *v = &res->verdict;
    char directive[600], relation[200], rerun[600], iter[32], window[32], attempts[80];
    int ok;
    const char *severity;

    if (v->outcome == SC_SKIP) { /* explicit, never a pass */
        snprintf(directive, sizeof directive, "SKIP %s", v->why);
        sc_tap_point(1, directive, NULL);
        return;
    }
    if (v->outcome == SC_UNDECIDED) {
        /* the device blocked a call before the subject: neither pass nor violation, and visible */
        snprintf(directive, sizeof directive, "TODO undecidable on this device (in every attempt)");
        severity = "undecidable";
        ok = 0;
    } else if (control) {
        ok = v->outcome == SC_VIOLATED; /* the control must show the violation */
        if (v->outcome == SC_PASS) {
            snprintf(directive, sizeof directive,
                     "TODO vacuous: the control did not show the violation, so the test cannot detect one on this device");
            severity = "vacuous";
        } else {
            snprintf(directive, sizeof directive, "TODO %s rule", level_name(rule->level));
            severity = rule->level == SC_MUST ? "fail" : "todo";
        }
    } else {
        ok = v->outcome == SC_PASS;
        snprintf(directive, sizeof directive, "TODO %s rule not kept", level_name(rule->level));
        severity = rule->level == SC_MUST ? "fail" : "todo";
    }
    if (ok) {
        if (t->held) /* independence was seen, but not at the first attempt: worth knowing */
            sc_tap_diag("%s.%s%s: a false dependency held the witness in %u attempt(s) before it ran independently",
                        c->id, b->name, control ? ".control" : "", t->held);
        sc_tap_point(1, NULL, NULL);
        return;
    }
    int todo = (control && v->outcome == SC_PASS) || v->outcome == SC_UNDECIDED || rule->level != SC_MUST;
    struct sc_yaml y = { 0 };
    snprintf(relation, sizeof relation, "%s", rule->expect);
    snprintf(rerun, sizeof rerun, "%s --case '%s' --api %s", argv0, c->id, b->name);
    snprintf(iter, sizeof iter, "%u of %u", t->iteration, o->repeat);
    snprintf(window, sizeof window, "%u", o->window_ms);
    sc_yaml_add(&y, "message", v->why);
    sc_yaml_add(&y, "severity", severity);
    sc_yaml_add(&y, "outcome", sc_outcome_name(v->outcome));
    sc_yaml_add(&y, "level", level_name(rule->level));
    sc_yaml_add(&y, "case", c->id);
    sc_yaml_add(&y, "part", control ? "negative control" : "case");
    sc_yaml_add(&y, "expect", relation);
    sc_yaml_add(&y, "api", b->name);
    sc_yaml_add(&y, "compile_mode", sc_compile_mode);
    sc_yaml_add(&y, "iteration", iter);
    sc_yaml_add(&y, "window_ms", window);
    if (t->held) {
        snprintf(attempts, sizeof attempts, "held in %u of %u attempts with fresh streams", t->held, o->attempts);
        sc_yaml_add(&y, "attempts", attempts);
    }
    sc_yaml_add(&y, "source", rule->source);
    sc_yaml_add(&y, "spec", rule->spec);
    sc_yaml_add(&y, "rerun", rerun);
    y.list_key = "timeline";
    y.list = res->timeline;
    sc_tap_point(0, todo ? directive : NULL, &y);
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

/* Runs one program up to `repeat` times, stopping at the first that does not give `want`. */
static void run_repeated(const sc_backend *b, sc_build_fn build, int control, struct sc_run_config *cfg,
                         unsigned repeat, unsigned attempts, enum sc_outcome want, struct sc_result *res,
                         struct tally *t)
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
    struct tally tally;
    uint64_t room_waited_ns; /* the child waited this long for room for its context */
};

/* Isolated children that waited for room for their context, and how long in all (reported at the end). */
static unsigned isolated_room_waits;
static uint64_t isolated_room_wait_ns;

/* Runs one point (case, API, control) in a child process of its own. */
static void run_isolated(char *const argv[], int case_index, int api, int control, uint64_t limit_ns,
                         struct sc_result *res, struct tally *t)
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
static void run_isolated_repeated(char *const argv[], int case_index, int api, int control, uint64_t limit_ns,
                                  unsigned repeat, unsigned attempts, struct sc_result *res, struct tally *t)
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

/*
 * One of a case's other processes (procs.h): runs what main starts, one run
 * after another, until main ends them; exits after a run that did not finish
 * cleanly (main starts another for the next).
 */
static int process_main(const sc_rule *rule, const struct options *o, char **argv, int api, int proc, int fd)
{
    static struct sc_prog prog;
    const sc_backend *b = api == 0 ? &sc_driver_backend : &sc_runtime_backend;
    char why[512];
    struct sc_run_config cfg = { (uint64_t)o->window_ms * 1000000u, (uint64_t)o->deadline_ms * 1000000u, argv, 0, 0 };
    int rc = 0, case_index = 0, control = 0;
    if (api != 0 && api != 1)
        return 2;
    if (init_driver(o, why, sizeof why) != SC_READY || (b != &sc_driver_backend && b->init(why, sizeof why) != SC_READY)) {
        fprintf(stderr, "%s: process %d cannot use the device: %s\n", rule->id, proc, why);
        sc_peer_start_failed(fd, proc, why); /* main reports it as the point's reason */
        return 3;
    }
    if (room_waited_ns)
        sc_peer_waited_for_room(b, fd, room_waited_ns);
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

/* The child's side: run the one point, send the result, exit. */
static int child_main(const sc_rule *rule, const struct options *o, char **argv, int case_index, int api,
                      int control)
{
    static struct child_reply reply;
    const sc_backend *b = api == 0 ? &sc_driver_backend : &sc_runtime_backend;
    char why[512];
    struct sc_run_config cfg = { (uint64_t)o->window_ms * 1000000u, (uint64_t)o->deadline_ms * 1000000u, argv,
                                 case_index, control };
    if (case_index < 0 || case_index >= rule->ncases || (api != 0 && api != 1))
        return 2;
    if (init_driver(o, why, sizeof why) != SC_READY || (b != &sc_driver_backend && b->init(why, sizeof why) != SC_READY)) {
        sc_verdict_start(&reply.res.verdict, SC_AFTER);
        sc_verdict_error(&reply.res.verdict, "the child process cannot use the device: %s", why);
    } else {
        const sc_case *c = &rule->cases[case_index];
        /* one run: main starts a child for each repetition and attempt (run_isolated_repeated) */
        run_repeated(b, control ? c->control : c->build, control, &cfg, 1, 1, control ? SC_VIOLATED : SC_PASS,
                     &reply.res, &reply.tally);
    }
    reply.room_waited_ns = room_waited_ns;
    fflush(NULL);
    _exit(sc_isolate_reply(&reply, sizeof reply) == 0 ? 0 : 1);
}

int sc_main(const sc_rule *rule, int argc, char **argv)
{
    struct options o;
    char why[512];
    const sc_backend *backends[2] = { &sc_driver_backend, &sc_runtime_backend };
    int rc;

    int child_case, child_api, child_control;
    if ((rc = parse(rule, argc, argv, &o)))
        return rc == DONE ? 0 : 2; /* before any device is touched */
    if (sc_mps_requested(argv[0]) && !o.list)
        return sc_mps_run(argv, o.mps_lock_ms);
    if (sc_isolate_child(&child_case, &child_api, &child_control))
        return child_main(rule, &o, argv, child_case, child_api, child_control);
    int child_proc, child_fd;
    if (sc_procs_child(&child_api, &child_proc, &child_fd))
        return process_main(rule, &o, argv, child_api, child_proc, child_fd);
    if (o.list) {
        for (int i = 0; i < rule->ncases; i++)
            if (selected(&o, rule->cases[i].id))
                printf("%s\n", rule->cases[i].id);
        return 0;
    }
    sc_tap_begin(stdout);
    /* cuInit, the contexts, loading and warming the kernels: seen to take over 10 s under load
     * (CUDA_DEVICE_MAX_CONNECTIONS=32, prove -j8), so the limit is generous, but there is one */
    static char init_why[200];
    snprintf(init_why, sizeof init_why,
             "watchdog: initialising the device (cuInit, its context, the suite's kernels) did not end within "
             "%.1f s (%u deadlines); the driver or the device is stuck", SC_INIT_DEADLINES * o.deadline_ms / 1e3,
             SC_INIT_DEADLINES);
    sc_watchdog_start();
    sc_tap_unplanned("device initialisation");
    sc_watchdog_arm(SC_INIT_DEADLINES * (uint64_t)o.deadline_ms * 1000000u, init_why);

    int state = init_driver(&o, why, sizeof why);
    if (state == SC_MISSING) { /* no driver library, or cuInit answered no device or the stub library */
        sc_tap_skip_all(why);
        return 0;
    }
    if (state == SC_LACKING) { /* a driver library, but not one every program can run on: never a skip */
        const char *name = "driver entry points";
        struct sc_yaml y = { 0 };
        sc_yaml_add(&y, "message", why);
        sc_tap_plan(1, &name);
        sc_tap_point(0, NULL, &y);
        return 1;
    }
    if (state == SC_BROKEN && sc_mps_dir()) { /* the capability is missing, not the driver broken */
        char msg[700];
        snprintf(msg, sizeof msg, "no MPS: its server is not usable here (%s); see %s/control.log", why, sc_mps_dir());
        sc_tap_skip_all(msg);
        return 0;
    }
    if (state == SC_BROKEN) {
        const char *name = "device initialisation";
        struct sc_yaml y = { 0 };
        sc_yaml_add(&y, "message", why);
        sc_tap_plan(1, &name);
        sc_tap_point(0, NULL, &y);
        return 1;
    }
    int ndev = 0;
    if (rule->devices > 1 && (sc_driver_backend.device_count(&ndev) || ndev < rule->devices)) {
        char msg[160];
        snprintf(msg, sizeof msg, "needs %d GPUs, this machine has %d", rule->devices, ndev);
        sc_tap_skip_all(msg);
        return 0;
    }
    char rt_why[512];
    int rt_state = sc_runtime_backend.init(rt_why, sizeof rt_why);
    sc_driver_backend.thread_attach();
    sc_watchdog_disarm();

    /* the plan: per API (a case's other processes, if any, serve one API: run.c), every selected case
     * and its control */
    int n = 0;
    const char **names = calloc((size_t)rule->ncases * 4 + 1, sizeof *names);
    for (int a = 0; a < 2; a++) {
        if (!api_selected(&o, backends[a]->name) || !api_of_rule(rule, a))
            continue;
        for (int i = 0; i < rule->ncases; i++) {
            if (!selected(&o, rule->cases[i].id))
                continue;
            for (int ctl = 0; ctl <= o.controls; ctl++) {
                char *name = malloc(strlen(rule->cases[i].id) + 32);
                sprintf(name, "%s.%s%s", rule->cases[i].id, backends[a]->name, ctl ? ".control" : "");
                names[n++] = name;
            }
        }
    }
    if (n == 0) {
        sc_tap_skip_all("no case matches the selection");
        return 0;
    }
    header(rule, &o);
    if (!api_of_rule(rule, 1))
        sc_tap_diag("runtime API: not run, it has no counterpart of the driver calls this rule uses");
    if (rule->isolate)
        sc_tap_diag("each point runs in a child process of its own: the program faults its context");
    if (sc_mps_dir())
        sc_tap_diag("MPS: every process of every case is a client of a private MPS server (pipe directory %s)",
                    sc_mps_dir());
    if (rule->processes > 1)
        sc_tap_diag("a case's other %d process(es) are this program again, with %s set: started once per API, "
                    "they take one run after another; one that fails is replaced; the driver API's end before "
                    "the runtime API's start",
                    rule->processes - 1, SC_PROCESS_ENV);
    if (room_waited_ns)
        sc_tap_diag("the device had no room for this program's context at first: initialisation took %.1f s, "
                    "waiting for it (CUDA_ERROR_OUT_OF_MEMORY while other processes held theirs)",
                    (double)room_waited_ns / 1e9);
    sc_tap_plan(n, names);

    struct sc_run_config cfg = { (uint64_t)o.window_ms * 1000000u, (uint64_t)o.deadline_ms * 1000000u, argv, 0, 0 };
    /* a program has three phases bounded by the deadline, plus the window */
    /* (a case of several processes may also take 4 deadlines to start them: run.c, SC_START_DEADLINES) */
    uint64_t phases = rule->processes > 1 ? 8 : 4;
    uint64_t limit = (uint64_t)o.repeat * o.attempts * (cfg.window_ns + phases * cfg.deadline_ns) + 10000000000ull;
    static struct sc_result res;
    for (int a = 0; a < 2; a++) {
        const sc_backend *b = backends[a];
        if (!api_selected(&o, b->name) || !api_of_rule(rule, a))
            continue;
        if (a == 1)
            sc_run_retire_peers(0); /* the driver API's processes are done: their contexts are freed first */
        for (int i = 0; i < rule->ncases; i++) {
            const sc_case *c = &rule->cases[i];
            struct tally tally;
            if (!selected(&o, c->id))
                continue;
            cfg.case_index = i;
            if (b == &sc_runtime_backend && rt_state != SC_READY) {
                /* the driver API works on this device but cudart cannot use it (a stand-in that cudart
                 * rejects, a driver older than the runtime): a failure, never a skip or a silent pass */
                struct sc_yaml y = { 0 };
                char msg[700];
                snprintf(msg, sizeof msg, "the runtime API cannot use the driver the driver API uses: %s", rt_why);
                sc_yaml_add(&y, "message", msg);
                for (int ctl = 0; ctl <= o.controls; ctl++)
                    sc_tap_point(0, NULL, &y);
                continue;
            }
            if (rule->isolate) { /* the child is killed at the limit; no watchdog needed here */
                run_isolated_repeated(argv, i, a, 0, limit, o.repeat, o.attempts, &res, &tally);
                report(rule, c, b, 0, &res, &tally, &o, argv[0]);
                if (o.controls) {
                    run_isolated_repeated(argv, i, a, 1, limit, 1, o.attempts, &res, &tally);
                    report(rule, c, b, 1, &res, &tally, &o, argv[0]);
                }
                continue;
            }
            sc_watchdog_arm(limit, "watchdog: the point exceeded its hard time limit; a CUDA call or the device is stuck");
            run_repeated(b, c->build, 0, &cfg, o.repeat, o.attempts, SC_PASS, &res, &tally);
            report(rule, c, b, 0, &res, &tally, &o, argv[0]);
            if (res.hung)
                goto hung;
            if (o.controls) {
                run_repeated(b, c->control, 1, &cfg, 1, o.attempts, SC_VIOLATED, &res, &tally);
                report(rule, c, b, 1, &res, &tally, &o, argv[0]);
                if (res.hung)
                    goto hung;
            }
            sc_watchdog_disarm();
        }
    }
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
    if (isolated_room_waits)
        sc_tap_diag("isolated points: %u child processes waited %.1f s in all for room for their context",
                    isolated_room_waits, (double)isolated_room_wait_ns / 1e9);
    return sc_tap_failures() ? 1 : 0;

hung:
    sc_tap_abandon("an earlier case left a host thread blocked inside a CUDA call; the process cannot go on safely");
    fflush(stdout);
    _exit(1);
}
