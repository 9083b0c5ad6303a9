/*
 * run.h - running one case's program through one backend.
 *
 * Timeline (docs/design.md, section 5): issue every op from its host thread,
 * hold the gates while observing, release them once the verdict is decided
 * or the hold window has passed, drain until everything completed or the
 * deadline passed, then check the data the ops left behind.
 */
#ifndef SC_RUN_H
#define SC_RUN_H
#include <stdint.h>
#include "backend.h"
#include "prog.h"
#include "verdict.h"

struct sc_run_config {
    uint64_t window_ns;   /* how long gates stay closed with nothing decided */
    uint64_t deadline_ns; /* how long any one phase may take                */
    /* which point this is, for a program whose threads run in several processes:
     * main starts this program again (argv) for each of the others, and tells
     * them, through the region they share, which case and part each run is */
    char *const *argv;
    int case_index, control;
    uint64_t first_look_ns; /* sc_point_run: the window of each point's first run; 0: none (calibrate.h) */
    int wait_gates;         /* gates held by stream waits where the program allows (case/objects.c, wait_gates_allowed; sc_support_wait_gates) */
};

struct sc_result {
    struct sc_verdict verdict;
    int hung;             /* a host thread is stuck in a CUDA call          */
    int subject_kind;     /* the op kind of the subject X, -1 for none      */
    char timeline[8192];  /* one observation per line, times relative to t0 */
};

void sc_run_program(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg,
                    struct sc_result *res);

/*
 * One of a case's other processes (main started it: procs.h) waits for main's
 * next run: 0 with the case and part to build, 1 once main ends the
 * processes (or is gone), 2 once main moved them on to the next API's region
 * (sc_run_move_peers), -1 without the shared region.
 */
int sc_peer_next(const sc_backend *b, int fd, int *case_index, int *control, char *why, size_t n);
/*
 * ... then runs it: builds its part of the program and issues the ops main
 * posts to its threads until main ends the run.  0: it reported the run
 * finished and can take the next; else the process must exit (main starts
 * another for the next run).
 */
int sc_run_child(const sc_backend *b, const struct sc_prog *p, const struct sc_run_config *cfg, int proc, int fd);
/* ... or, when it cannot use the device at all, tells main why, through the region, and exits. */
void sc_peer_start_failed(int fd, int proc, const char *why);
/* Main: ends an API's other processes (at the program's end, or where they cannot move on). */
void sc_run_retire_peers(int api);
/* Main, once the driver API's runs are over: its other processes go on to serve the runtime API's (each
 * maps both APIs' regions from its start), so that a program starts them once, not once per API. */
void sc_run_move_peers(void);
/* Destroys the contexts kept from one case of the program for the next (see case/contexts.c). */
void sc_run_forget_contexts(void);
/* How many contexts the cases made since the last call (cuCtxCreate and green contexts; one taken from
 * those kept is not counted), and starts counting again. */
unsigned sc_run_take_contexts_made(void);
/* ... and, after a start that had to wait for room for its context, tells main how long (main adds them up). */
void sc_peer_waited_for_room(const sc_backend *b, int fd, uint64_t ns);
/* Main, at the end: ends the other processes; how many were started, for how many runs, and
 * how many of them waited for room for their context, how long in all (since the last call). */
struct sc_peer_tally {
    unsigned started, runs, room_waits;
    uint64_t room_wait_ns;
};
void sc_run_end_peers(struct sc_peer_tally *t);

#endif
