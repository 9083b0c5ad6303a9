/* options.c - tools/soak's flags, validated (see options.h). */
#include "options.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage[] = /* the flags; tools/soak --help says what the program does */
    "usage: build/soak/soak --duration D [--seed S] [--threads N] [--heartbeat SEC] [--warm-up SEC]\n"
    "       build/soak/soak --replay SEED [--threads N]\n"
    "(tools/soak builds and runs it; tools/soak --help and docs/soak.md say more)\n";

static int number(const char *s, uint64_t *v) /* decimal or 0x-hex, whole, fits 64 bits */
{
    int hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X');
    const char *d = hex ? s + 2 : s;
    if (!*d || strspn(d, hex ? "0123456789abcdefABCDEF" : "0123456789") != strlen(d) || strlen(d) > (hex ? 16u : 20u))
        return -1;
    char *end;
    unsigned long long x = strtoull(s, &end, hex ? 16 : 10);
    if (!hex && strlen(d) == 20 && strcmp(d, "18446744073709551615") > 0)
        return -1;
    *v = x;
    return 0;
}

static int duration(const char *s, uint64_t *secs)
{
    size_t n = strlen(s);
    uint64_t v, unit;
    char digits[24];
    if (n < 2 || n > sizeof digits)
        return -1;
    switch (s[n - 1]) {
    case 's': unit = 1; break;
    case 'm': unit = 60; break;
    case 'h': unit = 3600; break;
    case 'd': unit = 86400; break;
    default: return -1;
    }
    memcpy(digits, s, n - 1);
    digits[n - 1] = '\0';
    if (digits[0] == '0' && digits[1] == 'x')
        return -1;
    if (number(digits, &v) || v == 0 || v > 365u * 86400u / unit)
        return -1;
    *secs = v * unit;
    return 0;
}

static int bad(const char *flag, const char *value, const char *range)
{
    if (value)
        fprintf(stderr, "soak: %s: '%s' is not %s\n", flag, value, range);
    else
        fprintf(stderr, "soak: %s needs a value: %s\n", flag, range);
    return SOAK_BAD;
}

int soak_options_parse(int argc, char **argv, struct soak_options *o)
{
    static const char dur[] = "a duration in 1s..365d (a whole number and a unit: s, m, h or d)";
    static const char seed[] = "a number in 0..18446744073709551615 (decimal, or hex with 0x)";
    static const char threads[] = "a whole number in 1..4";
    static const char beat[] = "a whole number in 1..3600";
    static const char warm[] = "a whole number of seconds in 1..31536000";
    memset(o, 0, sizeof *o);
    o->threads = 2, o->heartbeat_s = 60;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *eq = strchr(a, '='), *v;
        char flag[32];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return SOAK_HELP;
        }
        snprintf(flag, sizeof flag, "%.*s", eq && strncmp(a, "--", 2) == 0 ? (int)(eq - a) : (int)strlen(a), a);
        int known = !strcmp(flag, "--duration") || !strcmp(flag, "--seed") || !strcmp(flag, "--replay") ||
                    !strcmp(flag, "--threads") || !strcmp(flag, "--heartbeat") || !strcmp(flag, "--warm-up");
        if (!known) {
            fprintf(stderr, "soak: unknown option '%s' (tools/soak --help lists them)\n", a);
            return SOAK_BAD;
        }
        v = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
        uint64_t x;
        if (!strcmp(flag, "--duration")) {
            if (!v || duration(v, &o->duration_s))
                return bad(flag, v, dur);
            o->has_duration = 1;
        } else if (!strcmp(flag, "--seed") || !strcmp(flag, "--replay")) {
            if (!v || number(v, &x))
                return bad(flag, v, seed);
            if (flag[2] == 's')
                o->seed = x, o->has_seed = 1;
            else
                o->replay = x, o->has_replay = 1;
        } else if (!strcmp(flag, "--threads")) {
            if (!v || number(v, &x) || x < 1 || x > 4 || v[1] == 'x')
                return bad(flag, v, threads);
            o->threads = (unsigned)x;
        } else if (!strcmp(flag, "--warm-up")) {
            if (!v || number(v, &x) || x < 1 || x > 31536000 || v[1] == 'x')
                return bad(flag, v, warm);
            o->warm_up_s = x;
        } else {
            if (!v || number(v, &x) || x < 1 || x > 3600 || v[1] == 'x')
                return bad(flag, v, beat);
            o->heartbeat_s = (unsigned)x;
        }
    }
    if (o->has_duration == o->has_replay) {
        fprintf(stderr, "soak: give one of --duration D (1s..365d) and --replay SEED\n");
        return SOAK_BAD;
    }
    return SOAK_GO;
}
