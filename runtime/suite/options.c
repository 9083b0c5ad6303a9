/* options.c - a rule program's flags and STREAMCTS_* variables, validated (see options.h). */
#define _GNU_SOURCE
#include "options.h"
#include "mps.h"
#include <fnmatch.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The numeric settings: a flag (NULL: the variable only; a switch takes no value and means 1), its
 * variable, its range, its field. */
static const struct number {
    const char *flag, *env;
    int is_switch;
    unsigned min, max;
    size_t field;
    const char *help;
    const char *auto_default; /* the default when it is not a number, else NULL */
} numbers[] = {
    { "--repeat", "STREAMCTS_REPEAT", 0, 1, 10000, offsetof(struct sc_options, repeat),
      "runs of each case; one failing run fails it", NULL },
    { "--attempts", "STREAMCTS_ATTEMPTS", 0, 1, 100, offsetof(struct sc_options, attempts),
      "fresh-stream tries of a case that needs independence", NULL },
    { "--window-ms", "STREAMCTS_WINDOW_MS", 0, 1, 60000, offsetof(struct sc_options, window_ms),
      "hold window", NULL },
    { "--first-look-ms", "STREAMCTS_FIRST_LOOK_MS", 0, 0, 60000, offsetof(struct sc_options, first_look_ms),
      "hold window of each point's first run; 0: none", "calibrated on the device" },
    { "--deadline-ms", "STREAMCTS_DEADLINE_MS", 0, 1, 600000, offsetof(struct sc_options, deadline_ms),
      "deadline of each phase", NULL },
    { "--no-control", "STREAMCTS_NO_CONTROL", 1, 0, 1, offsetof(struct sc_options, no_control),
      "1 skips the negative controls", NULL },
    { "--wait-gates", "STREAMCTS_WAIT_GATES", 0, 0, 1, offsetof(struct sc_options, wait_gates),
      "1 holds streams with stream waits (cuStreamWaitValue32), 0 with spinning gate kernels",
      "stream waits, unless CUDA_DEVICE_MAX_CONNECTIONS is under 8 or CUDA_LAUNCH_BLOCKING is set" },
    { NULL, "STREAMCTS_MPS_LOCK_MS", 0, 0, 86400000, offsetof(struct sc_options, mps_lock_ms),
      "how long a *.mps.t program waits while others set up or clean up MPS daemons", NULL },
};
#define NNUMBERS (sizeof numbers / sizeof numbers[0])
static const char *const apis = "driver, runtime or both";

static const char *program; /* argv[0], for the messages */

/* A message about the command line or environment, on stderr; returns SC_OPTIONS_BAD. */
static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n");
    return SC_OPTIONS_BAD;
}

/* text as a whole number in min..max: digits only (no sign, space or suffix); 0, or SC_OPTIONS_BAD naming who. */
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

static void defaults(const sc_rule *rule, struct sc_options *o)
{
    memset(o, 0, sizeof *o);
    o->repeat = rule->repeat ? rule->repeat : 1;
    o->attempts = 3;
    o->window_ms = 50;
    o->first_look_ms = SC_FIRST_LOOK_AUTO;
    o->wait_gates = SC_WAIT_GATES_AUTO;
    o->deadline_ms = 10000;
    o->mps_lock_ms = SC_MPS_LOCK_MS;
}

static void help(const sc_rule *rule)
{
    char label[32];
    struct sc_options dflt;
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
        if (n->auto_default)
            printf("  %-17s %-22s %u..%u: %s (default: %s)\n", label, n->env, n->min, n->max, n->help,
                   n->auto_default);
        else
            printf("  %-17s %-22s %u..%u: %s (default%s %u)\n", label, n->env, n->min, n->max, n->help,
                   n->field == offsetof(struct sc_options, repeat) ? ": the rule's," : "",
                   *(const unsigned *)((const char *)&dflt + n->field));
    }
    printf("  %-17s %-22s %s\n  %-17s %-22s %s\n"
           "A number is digits only; a bad flag or value exits 2 before any device is touched.\n",
           "--list", "", "print the case ids and exit", "--help", "", "print this and exit");
}

/* The field a numeric setting sets. */
static unsigned *field(struct sc_options *o, const struct number *n) { return (unsigned *)((char *)o + n->field); }

/* The numeric setting whose flag is arg, or NULL. */
static const struct number *flag_number(const char *arg)
{
    for (size_t k = 0; k < NNUMBERS; k++)
        if (numbers[k].flag && !strcmp(arg, numbers[k].flag))
            return &numbers[k];
    return NULL;
}

int sc_options_parse(const sc_rule *rule, int argc, char **argv, struct sc_options *o)
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
            return SC_OPTIONS_DONE;
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
            return bad("unknown option '%s' (%s --help lists them)", a, program);
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
    return SC_OPTIONS_GO;
}

int sc_options_case(const struct sc_options *o, const char *id)
{
    return !o->glob || !*o->glob || !fnmatch(o->glob, id, 0);
}

int sc_options_api(const struct sc_options *o, const char *api)
{
    return !o->api || !*o->api || !strcmp(o->api, "both") || !strcmp(o->api, api);
}
