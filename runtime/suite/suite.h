/*
 * suite.h - a rule program's run in the foreground: the TAP stream of its
 * points, every selected case in each selected API, then its negative control.
 *
 * sc_suite_run starts the device under the watchdog, asks support.h whether
 * the rule can run here (a skip or one failed point if not), prints the
 * header and the plan, runs each point (point.h) and reports it (report.h).
 * It returns the program's exit status: 0, or 1 when a point failed.
 */
#ifndef SC_SUITE_H
#define SC_SUITE_H
#include "options.h"

int sc_suite_run(const sc_rule *rule, const struct sc_options *o, char **argv);
/* --list: the selected cases' ids, one a line; returns 0. */
int sc_suite_list(const sc_rule *rule, const struct sc_options *o);

#endif
