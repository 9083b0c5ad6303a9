/*
 * tap.h - a TAP version 13 writer.
 *
 * prove 3.44 (shipped with Perl 5.36) fails files that announce version 14, so
 * this writes 13: version line, plan, one line per point, `# ` diagnostics and
 * YAML blocks under failing points.  The writer knows every planned point's
 * name, so the watchdog can still account for all of them if a case hangs or
 * the process is hit by a signal.  Pure C, unit-tested in selftest/runtime.
 */
#ifndef SC_TAP_H
#define SC_TAP_H
#include <stddef.h>
#include <stdio.h>

/* A YAML block: scalar keys in order, then an optional list of strings. */
struct sc_yaml {
    const char *key[24];
    const char *value[24];
    int n;
    const char *list_key;  /* e.g. "timeline"                           */
    const char *list;      /* its items separated by '\n'               */
};
void sc_yaml_add(struct sc_yaml *y, const char *key, const char *value);

/* Writes s as a double-quoted YAML scalar into out (always terminated). */
void sc_yaml_quote(const char *s, char *out, size_t outlen);

void sc_tap_begin(FILE *out);                     /* "TAP version 13"      */
void sc_tap_skip_all(const char *why);            /* "1..0 # SKIP why"     */
/* The plan; names[i] is point i+1 (copied). */
void sc_tap_plan(int n, const char *const *names);
void sc_tap_diag(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* directive: NULL, or "TODO ..." / "SKIP ..." (without '#'). */
void sc_tap_point(int ok, const char *directive, const struct sc_yaml *yaml);
int sc_tap_failures(void);                        /* not ok without TODO   */
int sc_tap_next(void);                            /* number of next point  */
/*
 * Marks every point not yet written as "not ok" with the reason and flushes.
 * Uses only write(2): callable from a signal handler or the watchdog.
 */
void sc_tap_abandon(const char *reason);
/* Before the plan: what sc_tap_abandon reports as the one point (plan 1..1) if abandoned now. */
void sc_tap_unplanned(const char *name);

#endif
