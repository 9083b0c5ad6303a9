/*
 * report.h - what the TAP output says about a rule: the header diagnostics
 * (the rule, the device, the build, the settings) before the plan, and one
 * point's line, with the YAML block of a point that did not pass.
 */
#ifndef SC_REPORT_H
#define SC_REPORT_H
#include "options.h"
#include "outcome.h"
#include "point.h"

void sc_report_header(const sc_rule *rule, const struct sc_options *o);
/* The outcome of a point (runtime/result/outcomes.def): its verdict v, its rule's level, and whether it is the
 * case's negative control, which must show the violation. */
enum sc_point_outcome sc_report_outcome(const sc_rule *rule, int control, const struct sc_verdict *v);
/* The point of case c in API b (its control if control) from its last result and tally: its TAP line's
 * ok/not ok, directive and YAML severity are its outcome's row; argv0 makes the rerun command. */
void sc_report_point(const sc_rule *rule, const sc_case *c, const sc_backend *b, int control,
                     const struct sc_result *res, const struct sc_tally *t, const struct sc_options *o,
                     const char *argv0);

#endif
