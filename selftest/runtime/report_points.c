/*
 * report_points.c - every point report.c can print: sc_report_point for each
 * verdict, rule level and part (case or negative control), one TAP point
 * each, named verdict.level.part, with the outcome report.c decided for it as
 * a diagnostic before it ("# outcome NAME").  Not a test itself (many of its
 * points are not ok): selftest/build/outcomes.t reads its output through
 * tools/tap-summary and certify's Results.pm and compares what they make of
 * each point with that outcome and its row in runtime/outcomes.def.
 */
#include "outcome.h"
#include "report.h"
#include "tap.h"
#include <stdio.h>
#include <string.h>

static const char *const level_id[] = { [SC_MUST] = "must", [SC_DE_FACTO] = "de-facto", [SC_SHOULD] = "should",
                                        [SC_MAY] = "may" };

int main(int argc, char **argv)
{
    (void)argc;
    static const enum sc_outcome verdicts[] = { SC_PASS, SC_VIOLATED, SC_ERROR, SC_SKIP, SC_UNDECIDED };
    static const enum sc_level levels[] = { SC_MUST, SC_DE_FACTO, SC_SHOULD, SC_MAY };
    enum { NV = sizeof verdicts / sizeof *verdicts, NL = sizeof levels / sizeof *levels, N = NV * NL * 2 };
    static char names[N][96];
    const char *name[N];
    int i = 0;
    for (int v = 0; v < NV; v++)
        for (int l = 0; l < NL; l++)
            for (int control = 0; control < 2; control++, i++) {
                snprintf(names[i], sizeof names[i], "%s.%s.%s", sc_outcome_name(verdicts[v]), level_id[levels[l]],
                         control ? "control" : "case");
                name[i] = names[i];
            }
    sc_tap_begin(stdout);
    sc_tap_plan(N, name);
    struct sc_options o = { .repeat = 1, .attempts = 1, .window_ms = 5 };
    static const sc_backend b = { .name = "driver" };
    static struct sc_result res;
    struct sc_tally t = { .iteration = 1 };
    snprintf(res.timeline, sizeof res.timeline, "0.000 ms X issued");
    i = 0;
    for (int v = 0; v < NV; v++)
        for (int l = 0; l < NL; l++)
            for (int control = 0; control < 2; control++, i++) {
                const sc_rule rule = { .id = "outcomes", .level = levels[l], .source = "report_points.c",
                                       .expect = "X after A", .spec = "spec/none.rules" };
                const sc_case c = { .id = names[i] };
                res.verdict = (struct sc_verdict){ .outcome = verdicts[v] };
                snprintf(res.verdict.why, sizeof res.verdict.why, "%.80s was judged %s", names[i],
                         sc_outcome_name(verdicts[v]));
                sc_tap_diag("outcome %s", sc_point_outcome_name(sc_report_outcome(&rule, control, &res.verdict)));
                sc_report_point(&rule, &c, &b, control, &res, &t, &o, argv[0]);
            }
    return 0;
}
