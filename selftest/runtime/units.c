/*
 * units.c - unit tests of the runtime's pure parts (no GPU): the verdict
 * logic, YAML quoting and the TAP writer.  Prints its own TAP.
 */
#define _GNU_SOURCE
#include "tap.h"
#include "verdict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int n, failed;

static void check(int cond, const char *name, const char *detail)
{
    n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n, name);
    if (!cond) {
        failed++;
        printf("  ---\n  detail: \"%s\"\n  ...\n", detail ? detail : "");
    }
}

static struct sc_sample S(int subject, int object, int released)
{
    return (struct sc_sample){ subject, object, released };
}

static void verdicts(void)
{
    struct sc_verdict v;
    struct sc_sample s;

    /* after: B done while A pending is a violation, decided at once */
    sc_verdict_start(&v, SC_AFTER);
    s = S(0, 0, 0); sc_verdict_observe(&v, &s, "B", "A");
    check(v.outcome == SC_OPEN && !sc_verdict_decided(&v), "after: nothing done is open", v.why);
    s = S(1, 0, 0); sc_verdict_observe(&v, &s, "B", "A");
    check(v.outcome == SC_VIOLATED && sc_verdict_decided(&v), "after: B done while A held is violated", v.why);
    check(strstr(v.why, "B completed while A was still pending") != NULL, "after: the message names both", v.why);

    /* after: held for the window, then both complete in order */
    sc_verdict_start(&v, SC_AFTER);
    s = S(0, 0, 0); sc_verdict_observe(&v, &s, "B", "A");
    s = S(0, 1, 1); sc_verdict_observe(&v, &s, "B", "A");
    s = S(1, 1, 1); sc_verdict_observe(&v, &s, "B", "A");
    sc_verdict_finish(&v, "B", "A", 50);
    check(v.outcome == SC_PASS, "after: in order passes", v.why);

    /* after: out of order after the release is still a violation */
    sc_verdict_start(&v, SC_AFTER);
    s = S(1, 0, 1); sc_verdict_observe(&v, &s, "B", "A");
    check(v.outcome == SC_VIOLATED, "after: B before A after release is violated", v.why);

    /* after: device stamps contradicting the order */
    sc_verdict_start(&v, SC_AFTER);
    sc_verdict_stamps(&v, 1000, 2000, "B", "A");
    check(v.outcome == SC_VIOLATED, "after: B started before A ended on the device", v.why);
    sc_verdict_start(&v, SC_AFTER);
    sc_verdict_stamps(&v, 2000, 2000, "B", "A");
    check(v.outcome == SC_OPEN, "after: equal stamps are not a violation", v.why);

    /* an object done while its gate is closed is an error, never a pass */
    sc_verdict_start(&v, SC_NOT_HELD);
    s = S(1, 1, 0); sc_verdict_observe(&v, &s, "B", "A");
    check(v.outcome == SC_ERROR, "a held object completing is an error", v.why);

    /* not held: B done while held passes early; never done while held is violated */
    sc_verdict_start(&v, SC_NOT_HELD);
    s = S(1, 0, 0); sc_verdict_observe(&v, &s, "B", "A");
    check(v.outcome == SC_PASS && sc_verdict_decided(&v), "not held: B done while A held passes", v.why);
    sc_verdict_start(&v, SC_NOT_HELD);
    s = S(0, 0, 0); sc_verdict_observe(&v, &s, "B", "A");
    s = S(1, 1, 1); sc_verdict_observe(&v, &s, "B", "A");
    sc_verdict_finish(&v, "B", "A", 50);
    check(v.outcome == SC_VIOLATED, "not held: B done only after release is violated", v.why);
    check(strstr(v.why, "50 ms") != NULL, "not held: the message gives the window", v.why);

    /* blocks until */
    struct sc_return r = { 1, 1, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_PASS, "blocks until: returned after A passes", v.why);
    r = (struct sc_return){ 0, 0, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_VIOLATED, "blocks until: returned while held is violated", v.why);
    r = (struct sc_return){ 0, 1, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_VIOLATED, "blocks until: returned before A completed is violated", v.why);
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_finish(&v, "X", "A", 50);
    check(v.outcome == SC_ERROR, "blocks until: never returned is an error", v.why);
    /* a thread kept off the CPU for half the hold or more: its return after the release says nothing */
    r = (struct sc_return){ 1, 1, 0, 1, 2500000, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_UNDECIDED && strstr(v.why, "waited 2.5 ms for a CPU") != NULL,
          "blocks until: a thread that waited half the hold for a CPU is undecidable, never a pass", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 2400000, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_PASS, "blocks until: a shorter wait for a CPU still passes", v.why);
    /* ... unless its CPU time in the call is more than the time from the release to its return (and 1 ms) */
    r = (struct sc_return){ 1, 1, 0, 1, 2500000, 5000000, 3000000, 1000000 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_PASS, "blocks until: a thread that spun in its call before the release passes", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 2500000, 5000000, 2000000, 1000000 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_UNDECIDED, "blocks until: CPU time that fits after the release proves nothing", v.why);
    r = (struct sc_return){ 0, 1, 0, 1, 4000000, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_BLOCKS_UNTIL);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_VIOLATED, "blocks until: returning while A was pending is violated however long the wait", v.why);

    /* returns before */
    r = (struct sc_return){ 0, 0, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_RETURNS_BEFORE);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_PASS, "returns before: returned while held passes", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_RETURNS_BEFORE);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_VIOLATED, "returns before: returned after release is violated", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 3000000, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_RETURNS_BEFORE);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_UNDECIDED, "returns before: after the release, from a thread kept off the CPU, is undecidable",
          v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 3000000, 5000000, 4000000, 2000000 };
    sc_verdict_start(&v, SC_RETURNS_BEFORE);
    sc_verdict_returned(&v, &r, "X", "A");
    check(v.outcome == SC_VIOLATED, "returns before: a thread that ran in its call before the release, returning after it, "
          "is violated", v.why);

    /* not ready while: two answers needed */
    r = (struct sc_return){ 0, 0, 600, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_OPEN && sc_verdict_decided(&v), "not ready: first answer lets the gates go", v.why);
    sc_verdict_requery(&v, 0, "Q");
    check(v.outcome == SC_PASS, "not ready: then success passes", v.why);
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    sc_verdict_requery(&v, 600, "Q");
    check(v.outcome == SC_VIOLATED, "not ready: still not ready after completion is violated", v.why);
    r = (struct sc_return){ 0, 0, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_VIOLATED, "not ready: success while held is violated", v.why);
    r = (struct sc_return){ 0, 0, 400, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_ERROR, "not ready: an error code is an error", v.why);

    /* ready while: success while held passes; not-ready or blocking is violated */
    r = (struct sc_return){ 0, 0, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_PASS, "ready while: success while held passes", v.why);
    r = (struct sc_return){ 0, 1, 600, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_VIOLATED && strstr(v.why, "whole window"), "ready while: not-ready for the window is violated",
          v.why);
    r = (struct sc_return){ 0, 1, 600, 0, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_UNDECIDED, "ready while: not-ready before the GPU reached the gate is undecided", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_VIOLATED, "ready while: answering only after release is violated", v.why);
    /* the window may pass while the asking goes on (a busy machine): the object's completion, read right after
     * the answer, says whether it was still pending */
    r = (struct sc_return){ 0, 1, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_PASS && strstr(v.why, "still pending"),
          "ready while: success after the release while A was still pending passes", v.why);
    r = (struct sc_return){ 0, 1, 600, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_OPEN && v.query_ok, "not ready while: not-ready after the release while A was still pending "
          "counts", v.why);
    r = (struct sc_return){ 0, 1, 0, 1, 0, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_VIOLATED && strstr(v.why, "still pending"),
          "not ready while: success after the release while A was still pending is violated", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 3000000, 5000000, 0, 1000000 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_UNDECIDED && strstr(v.why, "for a CPU"),
          "ready while: an answer after the release, from a thread kept off the CPU, is undecidable", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 3000000, 5000000, 0, 0 };
    sc_verdict_start(&v, SC_NOT_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_UNDECIDED && strstr(v.why, "for a CPU"),
          "not ready while: an answer after the release, from a thread kept off the CPU, is undecidable", v.why);
    r = (struct sc_return){ 1, 1, 0, 1, 3000000, 5000000, 4000000, 2000000 };
    sc_verdict_start(&v, SC_READY_WHILE);
    sc_verdict_returned(&v, &r, "Q", "A");
    check(v.outcome == SC_VIOLATED, "ready while: a thread that ran in its call before the release, answering after "
          "it, is violated", v.why);

    /* errors: first one kept; a violation keeps its evidence */
    sc_verdict_start(&v, SC_AFTER);
    sc_verdict_error(&v, "first %d", 1);
    sc_verdict_error(&v, "second");
    check(v.outcome == SC_ERROR && !strcmp(v.why, "first 1"), "error: the first is kept", v.why);
    sc_verdict_start(&v, SC_AFTER);
    s = S(1, 0, 0); sc_verdict_observe(&v, &s, "B", "A");
    sc_verdict_error(&v, "data wrong");
    check(v.outcome == SC_ERROR && strstr(v.why, "B completed") && strstr(v.why, "then: data wrong"),
          "error after a violation keeps both", v.why);
}

/* An early release (a call blocked for a whole window) undoes the premise of some relations only. */
static void premise(void)
{
    static const struct {
        enum sc_relation rel;
        const char *name;
        int undecidable; /* a violation after the early release is not one */
    } rows[] = {
        { SC_AFTER, "after", 0 },
        { SC_NOT_HELD, "not held by", 0 },
        { SC_BLOCKS_UNTIL, "blocks until", 0 },
        { SC_RETURNS_BEFORE, "returns before", 0 },
        { SC_NOT_READY_WHILE, "not ready while", 0 },
        { SC_READY_WHILE, "ready while", 0 },
        { SC_COMPLETE_ON_RETURN, "complete on return", 0 },
        { SC_ANSWERS, "answers", 1 },
        { SC_GIVES, "gives", 1 },
        { SC_KEEPS_DATA, "keeps its data", 1 },
        { SC_EQUALS, "equals", 1 },
        { SC_DIFFERS, "differs", 1 },
        { SC_RUNS_PER_LAUNCH, "runs once per launch", 0 },
        { SC_SEES_PRIMARY, "sees its primary", 0 },
        { SC_NEVER_RUNS, "never runs", 0 }, /* counted after everything completed */
    };
    struct sc_verdict v;
    char name[120];
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sc_verdict_start(&v, rows[i].rel);
        sc_verdict_decide(&v, SC_VIOLATED, "X answered success (0), not not_ready");
        sc_verdict_premise_lost(&v, "A (kernel on s)");
        snprintf(name, sizeof name, "early release: a violation of '%s' is %s", rows[i].name,
                 rows[i].undecidable ? "undecidable" : "kept");
        check(rows[i].undecidable ? v.outcome == SC_UNDECIDED && strstr(v.why, "A (kernel on s) blocked") &&
                                        strstr(v.why, "then: X answered success")
                                  : v.outcome == SC_VIOLATED,
              name, v.why);
    }
    sc_verdict_start(&v, SC_ANSWERS);
    sc_verdict_decide(&v, SC_PASS, "X answered not-ready");
    sc_verdict_premise_lost(&v, "A (kernel on s)");
    check(v.outcome == SC_PASS, "early release: a pass stays a pass", v.why);
}

static void yaml(void)
{
    char out[128];
    sc_yaml_quote("plain", out, sizeof out);
    check(!strcmp(out, "\"plain\""), "yaml: plain string", out);
    sc_yaml_quote("a\"b\\c\nd\te\x01", out, sizeof out);
    check(!strcmp(out, "\"a\\\"b\\\\c\\nd\\te\\x01\""), "yaml: escapes quote, backslash, controls", out);
    sc_yaml_quote("0123456789012345678901234567890123456789", out, 16);
    check(strlen(out) < 16 && out[0] == '"' && out[strlen(out) - 1] == '"', "yaml: truncation stays quoted", out);
    sc_yaml_quote("", out, sizeof out);
    check(!strcmp(out, "\"\""), "yaml: empty string", out);
}

static char *slurp(FILE *f)
{
    static char buf[8192];
    size_t len;
    fflush(f);
    rewind(f);
    len = fread(buf, 1, sizeof buf - 1, f);
    buf[len] = '\0';
    return buf;
}

static void writer(void)
{
    FILE *f = tmpfile();
    const char *names[] = { "a.driver", "a.driver.control", "b.runtime", "c.runtime" };
    struct sc_yaml y = { 0 };
    sc_yaml_add(&y, "message", "B \"ran\" early");
    y.list_key = "timeline";
    y.list = "line one\nline two";
    sc_tap_begin(f);
    sc_tap_plan(4, names);
    sc_tap_diag("two\nlines");
    sc_tap_point(1, NULL, NULL);
    sc_tap_point(0, "TODO vacuous", NULL);
    sc_tap_point(0, NULL, &y);
    sc_tap_abandon("watchdog");
    const char *want = "TAP version 13\n1..4\n# two\n# lines\nok 1 - a.driver\n"
                       "not ok 2 - a.driver.control # TODO vacuous\n"
                       "not ok 3 - b.runtime\n  ---\n  message: \"B \\\"ran\\\" early\"\n  timeline:\n"
                       "    - \"line one\"\n    - \"line two\"\n  ...\n"
                       "not ok 4 - c.runtime\n  ---\n  message: \"not completed: watchdog\"\n  ...\n";
    char *got = slurp(f);
    check(!strcmp(got, want), "tap: version 13, plan, points, directives, yaml, abandon", got);
    check(sc_tap_failures() == 2, "tap: TODO points are not failures", NULL);
    sc_tap_point(1, NULL, NULL);
    check(!strcmp(slurp(f), want), "tap: nothing is written past the plan", NULL);
    fclose(f);
}

int main(void)
{
    printf("TAP version 13\n");
    verdicts();
    premise();
    yaml();
    writer();
    printf("1..%d\n", n);
    return failed ? 1 : 0;
}
