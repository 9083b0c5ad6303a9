/* options.c - the convergence program's flags (see options.h). */
#define _POSIX_C_SOURCE 200809L
#include "options.h"
#include "rendezvous.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *program;

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", program);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CV_OPTIONS_BAD;
}

static void usage(void)
{
    printf("usage: %s [OPTION...]\n"
           "\n"
           "Data-parallel training of a linear model, one rank per GPU: each rank computes\n"
           "gradients on a compute stream, NCCL all-reduces them bucket by bucket on a\n"
           "non-blocking stream, events order the two.  After every step it checks that\n"
           "every rank's parameters are bit-identical and that the loss follows a CPU\n"
           "reference; rank 0 prints TAP version 13.  Ranks come from Open MPI\n"
           "(OMPI_COMM_WORLD_RANK/SIZE/LOCAL_RANK) or Slurm (SLURM_PROCID/NTASKS/LOCALID);\n"
           "without either it runs alone.  Launch it with tools/cluster converge.\n"
           "\n"
           "  --duration D       run rounds until D has passed: N followed by s, m, h or d\n"
           "                     (1s..365d; 72h); default: one round\n"
           "  --steps N          steps per round, 1..100000 (default 40)\n"
           "  --samples N        samples over all ranks, 1024..16777216 (default 65536)\n"
           "  --features N       parameters, 1..65536 and a multiple of --buckets (default 256)\n"
           "  --buckets N        gradient buckets all-reduced as each is ready, 1..64 (default 4)\n"
           "  --seed N           the data's seed (default: rank 0 picks one and prints it)\n"
           "  --timeout S        deadline of the rendezvous, NCCL set-up and each round,\n"
           "                     1..86400 s (default 120)\n"
           "  --rendezvous HOST:PORT\n"
           "                     where rank 0 hands out NCCL's id (default $STREAMCTS_RENDEZVOUS;\n"
           "                     needed for more than one rank)\n"
           "  --break-ordering[=gradient|update]\n"
           "                     negative control: drop the communication stream's wait for\n"
           "                     the gradients (gradient, the default) or the compute stream's\n"
           "                     wait for the all-reduce (update); the checks must then fail\n"
           "  -h, --help         this text\n"
           "\n"
           "Environment: STREAMCTS_NCCL (default libnccl.so.2) names the NCCL library.\n"
           "Exit status: 0 every check passed, or skipped (no NCCL, no CUDA driver or device);\n"
           "1 a check failed or a deadline passed; 2 a bad option.\n",
           program);
}

/* text as a whole number in min..max; 0 or CV_OPTIONS_BAD naming the flag. */
static int number(const char *flag, const char *text, unsigned long long min, unsigned long long max,
                  unsigned long long *out)
{
    unsigned long long v = 0;
    const char *p = text;
    for (; *p >= '0' && *p <= '9' && v <= max; p++)
        v = v * 10 + (unsigned)(*p - '0');
    if (p == text || *p || v < min || v > max)
        return bad("%s: '%s' is not a whole number in %llu..%llu", flag, text, min, max);
    *out = v;
    return 0;
}

static int duration(const char *text, unsigned *out)
{
    static const struct { char unit; unsigned s; } units[] = { { 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 } };
    size_t len = strlen(text);
    for (size_t u = 0; len > 1 && u < sizeof units / sizeof units[0]; u++) {
        if (text[len - 1] != units[u].unit)
            continue;
        char digits[24];
        unsigned long long v = 0;
        snprintf(digits, sizeof digits, "%.*s", (int)(len - 1), text);
        if (len - 1 < sizeof digits && number("--duration", digits, 1, 365ull * 86400 / units[u].s, &v) == 0) {
            *out = (unsigned)(v * units[u].s);
            return 0;
        }
        return CV_OPTIONS_BAD;
    }
    return bad("--duration: '%s' is not N followed by s, m, h or d (1s..365d)", text);
}

int cv_options(int argc, char **argv, struct cv_options *o)
{
    program = argv[0];
    memset(o, 0, sizeof *o);
    o->steps = 40, o->samples = 65536, o->features = 256, o->buckets = 4, o->timeout_s = 120;
    o->rendezvous = getenv("STREAMCTS_RENDEZVOUS");
    static const struct { const char *flag; unsigned long long min, max; size_t field; } nums[] = {
        { "--steps", 1, 100000, offsetof(struct cv_options, steps) },
        { "--samples", 1024, 16777216, offsetof(struct cv_options, samples) },
        { "--features", 1, 65536, offsetof(struct cv_options, features) },
        { "--buckets", 1, 64, offsetof(struct cv_options, buckets) },
        { "--timeout", 1, 86400, offsetof(struct cv_options, timeout_s) },
    };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '=');
        char flag[64];
        snprintf(flag, sizeof flag, "%.*s", eq ? (int)(eq - a) : (int)strlen(a), a);
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage();
            return CV_OPTIONS_DONE;
        }
        if (!strcmp(flag, "--break-ordering")) {
            if (!eq || !strcmp(eq + 1, "gradient"))
                o->brk = CV_BREAK_GRADIENT;
            else if (!strcmp(eq + 1, "update"))
                o->brk = CV_BREAK_UPDATE;
            else
                return bad("--break-ordering: '%s' is not gradient or update", eq + 1);
            continue;
        }
        int takes = !strcmp(flag, "--duration") || !strcmp(flag, "--seed") || !strcmp(flag, "--rendezvous");
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
            takes |= !strcmp(flag, nums[k].flag);
        if (!takes)
            return bad("%s: unknown option (see %s --help)", flag, program);
        const char *v = eq ? eq + 1 : (i + 1 < argc ? argv[++i] : NULL);
        if (!v)
            return bad("%s: needs a value (see %s --help)", flag, program);
        unsigned long long n;
        if (!strcmp(flag, "--duration")) {
            if (duration(v, &o->duration_s))
                return CV_OPTIONS_BAD;
        } else if (!strcmp(flag, "--seed")) {
            if (number(flag, v, 0, UINT64_MAX / 10, &n))
                return CV_OPTIONS_BAD;
            o->seed = n, o->seed_given = 1;
        } else if (!strcmp(flag, "--rendezvous")) {
            char host[256], port[16];
            if (cv_split_address(v, host, sizeof host, port, sizeof port))
                return bad("--rendezvous: '%s' is not HOST:PORT (port 1..65535)", v);
            o->rendezvous = v;
        } else {
            for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++)
                if (!strcmp(flag, nums[k].flag)) {
                    if (number(flag, v, nums[k].min, nums[k].max, &n))
                        return CV_OPTIONS_BAD;
                    *(unsigned *)((char *)o + nums[k].field) = (unsigned)n;
                }
        }
    }
    char host[256], port[16];
    if (o->rendezvous && *o->rendezvous && cv_split_address(o->rendezvous, host, sizeof host, port, sizeof port))
        return bad("STREAMCTS_RENDEZVOUS: '%s' is not HOST:PORT (port 1..65535)", o->rendezvous);
    if (o->features % o->buckets)
        return bad("--features %u is not a multiple of --buckets %u", o->features, o->buckets);
    if (o->samples < 4 * o->features)
        return bad("--samples %u: at least 4 x --features (%u) keeps the step size stable", o->samples,
                   4 * o->features);
    return CV_OPTIONS_OK;
}

uint64_t cv_options_hash(const struct cv_options *o)
{
    uint64_t v[] = { o->duration_s, o->steps, o->samples, o->features, o->buckets, o->timeout_s, (uint64_t)o->brk };
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        h = (h ^ v[i]) * 0x100000001b3u;
    return h;
}

const char *cv_break_name(enum cv_break b)
{
    return b == CV_BREAK_GRADIENT ? "gradient" : b == CV_BREAK_UPDATE ? "update" : "none";
}
