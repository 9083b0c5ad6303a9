/* report.c - what the TAP output says about a rule: its header and each point (see report.h). */
#define _GNU_SOURCE
#include "report.h"
#include "mps.h"
#include "procs.h"
#include "self.h"
#include "support.h"
#include "tap.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

/* The level table's rows (levels.def), by enum sc_level. */
static const struct {
    const char *name;
    enum sc_point_outcome violated;
} levels[] = {
#define SC_RULE_LEVEL(ID, name, violated, meaning) [SC_##ID] = { name, SC_POINT_##violated },
#include "levels.def"
#undef SC_RULE_LEVEL
};

static const char *level_name(enum sc_level l)
{
    return l > 0 && (size_t)l < sizeof levels / sizeof levels[0] ? levels[l].name : "?";
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

void sc_report_header(const sc_rule *rule, const struct sc_options *o)
{
    static struct sc_device_info d;
    struct utsname u;
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
    for (char *line = d.entry_points, *nl; *line; line = nl ? nl + 1 : line + strlen(line)) {
        if ((nl = strchr(line, '\n')))
            *nl = '\0';
        sc_tap_diag("%s", line); /* which libraries answered the driver entry points (cu_loader.h) */
    }
    if (uname(&u) == 0) /* the machine that ran the program: a log rendered elsewhere says where it ran */
        sc_tap_diag("machine: %s, %s %s %s", u.nodename, u.sysname, u.release, u.machine);
    sc_tap_diag("env: CUDA_DEVICE_MAX_CONNECTIONS=%s CUDA_LAUNCH_BLOCKING=%s CUDA_VISIBLE_DEVICES=%s",
                ENV("CUDA_DEVICE_MAX_CONNECTIONS"), ENV("CUDA_LAUNCH_BLOCKING"), ENV("CUDA_VISIBLE_DEVICES"));
#undef ENV
    char set[900] = ""; /* the suite's and MPS's variables that are set: a log rendered elsewhere keeps them */
    for (char **e = environ; *e; e++)
        if (!strncmp(*e, "STREAMCTS_", 10) || !strncmp(*e, "CUDA_MPS_", 9))
            snprintf(set + strlen(set), sizeof set - strlen(set), "%s%s", set[0] ? " " : "", *e);
    if (set[0])
        sc_tap_diag("env set: %s", set);
    sc_tap_diag("window %u ms, deadline %u ms, repeat %u, attempts %u; revision %s", o->window_ms, o->deadline_ms,
                o->repeat, o->attempts, rev);
    const char *gates;
    sc_support_wait_gates(o, &gates);
    sc_tap_diag("gates: %s", gates);
    if (sc_self_hosted())
        sc_tap_diag("host: run for %s by host process %d, on a context that earlier programs used too (host.h)",
                    sc_self_hosted(), (int)getpid());
    sc_tap_diag("build: program %s (sha256 of its generated C), runtime and kernels %s (sha256 of their sources)",
                rule->digest ? rule->digest : "unknown", sc_runtime_digest);
    if (!sc_support_api(rule, 1))
        sc_tap_diag("runtime API: not run, it has no counterpart of the driver calls this rule uses");
    if (rule->isolate)
        sc_tap_diag("each point whose program faults its context runs in a child process of its own");
    if (sc_mps_dir())
        sc_tap_diag("MPS: every process of every case is a client of a private MPS server (pipe directory %s)",
                    sc_mps_dir());
    if (rule->processes > 1)
        sc_tap_diag("a case's other %d process(es) are this program again, with %s set: started once, they "
                    "take one run after another, the driver API's and then the runtime API's; one that fails, or "
                    "that a case needs with another environment, is replaced",
                    rule->processes - 1, SC_PROCESS_ENV);
    if (sc_support_room_waited_ns())
        sc_tap_diag("the device had no room for this program's context at first: initialisation took %.1f s, "
                    "waiting for it (CUDA_ERROR_OUT_OF_MEMORY while other processes held theirs)",
                    (double)sc_support_room_waited_ns() / 1e9);
}

enum sc_point_outcome sc_report_outcome(const sc_rule *rule, int control, const struct sc_verdict *v)
{
    if (v->outcome == SC_SKIP) /* explicit, never a pass */
        return SC_POINT_SKIP;
    if (v->outcome == SC_UNDECIDED) /* the device blocked a call before the subject: neither pass nor violation */
        return SC_POINT_UNDECIDABLE;
    if (v->outcome == (control ? SC_VIOLATED : SC_PASS)) /* the control must show the violation */
        return SC_POINT_PASS;
    if (control && v->outcome == SC_PASS)
        return SC_POINT_VACUOUS;
    /* the level's row says (a MAY rule's behaviour is permitted, not promised: a point without it is an observation) */
    return rule->level > 0 && (size_t)rule->level < sizeof levels / sizeof levels[0] ? levels[rule->level].violated
                                                                                     : SC_POINT_FAIL;
}

void sc_report_point(const sc_rule *rule, const sc_case *c, const sc_backend *b, int control,
                     const struct sc_result *res, const struct sc_tally *t, const struct sc_options *o,
                     const char *argv0)
{
    const struct sc_verdict *v = &res->verdict;
    enum sc_point_outcome outcome = sc_report_outcome(rule, control, v);
    const struct sc_point_outcome_row *row = sc_point_outcome_row(outcome);
    char reason[520] = "", directive[600], relation[200], rerun[600], iter[32], window[32], attempts[80];

    /* the directive's reason begins with a word of the row's reason column (readers classify by it) */
    if (outcome == SC_POINT_SKIP)
        snprintf(reason, sizeof reason, "%s", v->why);
    else if (outcome == SC_POINT_UNDECIDABLE)
        snprintf(reason, sizeof reason, "%s on this device (in every attempt)", row->reason);
    else if (outcome == SC_POINT_VACUOUS)
        snprintf(reason, sizeof reason,
                 "%s: the control did not show the violation, so the test cannot detect one on this device",
                 row->reason);
    else if (outcome == SC_POINT_NOT_KEPT) /* the level is one of the column's words */
        snprintf(reason, sizeof reason, "%s rule%s", level_name(rule->level), control ? "" : " not kept");
    else if (outcome == SC_POINT_NOT_SEEN) /* the column's word, the level */
        snprintf(reason, sizeof reason, "%s rule%s", row->reason,
                 control ? "" : ": not seen on this device (permitted, not promised)");
    snprintf(directive, sizeof directive, "%s %s", row->directive, reason);
    if (!strcmp(row->tap, "ok")) {
        if (outcome == SC_POINT_PASS && t->held) /* independence was seen, but not at the first attempt */
            sc_tap_diag("%s.%s%s: a false dependency held the witness in %u attempt(s) before it ran independently",
                        c->id, b->name, control ? ".control" : "", t->held);
        sc_tap_point(1, row->directive[0] ? directive : NULL, NULL);
        return;
    }
    struct sc_yaml y = { 0 };
    snprintf(relation, sizeof relation, "%s", rule->expect);
    snprintf(rerun, sizeof rerun, "%s --case '%s' --api %s", argv0, c->id, b->name);
    snprintf(iter, sizeof iter, "%u of %u", t->iteration, o->repeat);
    snprintf(window, sizeof window, "%.0f", (double)(t->window_ns ? t->window_ns : o->window_ms * 1000000ull) / 1e6);
    sc_yaml_add(&y, "message", v->why);
    sc_yaml_add(&y, "severity", row->severity);
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
    sc_tap_point(0, row->directive[0] ? directive : NULL, &y);
}
