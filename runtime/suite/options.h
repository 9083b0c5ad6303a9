/*
 * options.h - a rule program's settings: its flags and STREAMCTS_* variables.
 *
 * Each setting is a flag and also an environment variable, since prove
 * passes none; a flag wins over its variable, an empty variable is unset:
 *   --case GLOB       STREAMCTS_CASE         run the cases whose id matches
 *   --api NAME        STREAMCTS_API          driver, runtime or both (default)
 *   --repeat N        STREAMCTS_REPEAT       1..10000: run each case N times; one failure fails it
 *                                            (default: the rule's repeat column)
 *   --attempts N      STREAMCTS_ATTEMPTS     1..100: tries to see independence past false dependencies (3)
 *   --window-ms N     STREAMCTS_WINDOW_MS    1..60000: hold window (default 50)
 *   --first-look-ms N STREAMCTS_FIRST_LOOK_MS 0..60000: hold window of each point's first run, tried before
 *                                            the full window (0: none; default: calibrated, calibrate.h)
 *   --deadline-ms N   STREAMCTS_DEADLINE_MS  1..600000: per-phase deadline (default 10000)
 *   --no-control      STREAMCTS_NO_CONTROL   0..1: 1 skips the negative controls
 *   --wait-gates      STREAMCTS_WAIT_GATES   0..1: 1 holds streams with stream waits, not spinning gate kernels
 *                                            (where the program allows: see run.c, issue_gate)
 *   --list                                   print the case ids and exit
 *   --help                                   print the options and exit
 *                     STREAMCTS_MPS_LOCK_MS  0..86400000: a *.mps.t program's wait for the MPS set-up lock (mps.h)
 * A number is digits only.  sc_options_parse names a bad flag or value, with
 * its range, on stderr, before the program touches a device.  The ranges keep
 * the watchdog's limit (repeat x attempts x phases x deadline) within 64 bits.
 */
#ifndef SC_OPTIONS_H
#define SC_OPTIONS_H
#include "streamcts.h"

struct sc_options {
    const char *glob, *api; /* NULL or empty: every case, both APIs */
    unsigned repeat, attempts, window_ms, first_look_ms, deadline_ms, no_control, mps_lock_ms, wait_gates;
    int controls, list;
};

#define SC_FIRST_LOOK_AUTO 60001u /* first_look_ms when not given: calibrated at start (calibrate.h) */
#define SC_WAIT_GATES_AUTO 2u      /* wait_gates when not given: sc_support_wait_gates decides */

/* sc_options_parse's answers: run, exit 0 (--help was printed), exit 2 (bad input, named on stderr). */
enum { SC_OPTIONS_GO = 0, SC_OPTIONS_DONE = 1, SC_OPTIONS_BAD = 2 };
/* The flags in argv, then the variables (each checked even where a flag wins over it). */
int sc_options_parse(const sc_rule *rule, int argc, char **argv, struct sc_options *o);

/* Does the selection take the case with this id / the API of this name ("driver", "runtime")? */
int sc_options_case(const struct sc_options *o, const char *id);
int sc_options_api(const struct sc_options *o, const char *api);

#endif
