/*
 * point.h - running one TAP point: a case (or its negative control) in one
 * API, repeated and retried with fresh streams as the options say.
 *
 * sc_point_run runs it in this process.  A rule whose program faults its
 * context runs it with sc_point_run_isolated instead: each run in a child
 * process of its own (isolate.h), which is this program again and calls
 * sc_point_child_main.  A case whose threads run in several processes has
 * its other processes (procs.h) call sc_point_process_main.
 */
#ifndef SC_POINT_H
#define SC_POINT_H
#include "options.h"
#include "run.h"
#include <stdint.h>

/* How a point's runs went, besides the last run's result. */
struct sc_tally {
    unsigned iteration; /* the repetition that decided the point          */
    unsigned held;      /* attempts in which a false dependency held B     */
    uint64_t window_ns; /* the hold window of the run that decided it      */
};

/* The run settings the options give, for point (0, 0); a calibrated first look is the caller's (suite.c). */
struct sc_run_config sc_point_config(const struct sc_options *o, char *const *argv);

/* Runs one program up to `repeat` times, stopping at the first that does not give `want`; each run is tried
 * up to `attempts` times while it needs independence it did not see. */
void sc_point_run(const sc_backend *b, sc_build_fn build, int control, struct sc_run_config *cfg, unsigned repeat,
                  unsigned attempts, enum sc_outcome want, struct sc_result *res, struct sc_tally *t);

/* A point of a rule whose program faults its context (rule->isolate): every run in a child process of its own. */
struct sc_isolated_point {
    int case_index, api, control; /* which point; api 0 driver, 1 runtime          */
    unsigned repeat;              /* how many runs must give the wanted outcome     */
    struct sc_result res;         /* filled by sc_point_run_isolated_all            */
    struct sc_tally tally;
};
#define SC_ISOLATED_AT_ONCE 4 /* children running side by side */
/* Runs the n points, SC_ISOLATED_AT_ONCE at a time, each child killed at limit_ns. */
void sc_point_run_isolated_all(char *const argv[], struct sc_isolated_point *pts, int n, uint64_t limit_ns,
                               unsigned attempts);
/* How many isolated children waited for room for their context, and how long in all (since the last call). */
void sc_point_isolated_room_waits(unsigned *n, uint64_t *ns);

/* An isolated child: runs its one point (api 0 driver, 1 runtime), sends the result back, exits. */
int sc_point_child_main(const sc_rule *rule, const struct sc_options *o, char **argv, int case_index, int api,
                        int control);
/* One of a case's other processes: runs what main starts, one run after another, until main ends them;
 * exits after a run that did not finish cleanly (main starts another for the next). */
int sc_point_process_main(const sc_rule *rule, const struct sc_options *o, char **argv, int api, int proc,
                          const int fd[2]);

#endif
