/*
 * wl.h - what every stress and perf workload program shares.
 *
 * A workload program is one TAP file under tap/stress/ or tap/perf/.  It
 * calls wl_start() first: that parses `--scale N` (1..1000, default 1, also
 * STREAMCTS_SCALE; a flag wins) and `--help`, exits 2 naming a bad flag or
 * value with its range, prints `TAP version 13` and the header, loads
 * libcuda.so.1 at run time (runtime/backend/cu_loader.h), and makes device 0's
 * primary context current; without a driver or device it prints
 * `1..0 # SKIP ...` and exits 0, and a library without the entry points
 * every program needs is `not ok 1 - driver entry points`.  It then loads the
 * workload kernels (workloads/kernels.cu).  Points are written with
 * wl_point(); a CUDA call that fails inside a point is named by WL_TRY.
 * A watchdog (runtime/suite/watchdog.h) turns a point that outlives its limit into
 * `not ok` for it and every later point.
 */
#ifndef WL_H
#define WL_H
#include "cu_loader.h"
#include "tap.h"
#include <stddef.h>
#include <stdint.h>

extern const unsigned char wl_fatbin[]; /* workloads/kernels.cu, embedded by kernels/embed.sh */

struct wl_kernels {
    CUfunction fill, verify, gate, stamp, spin, work;
};
extern struct wl_kernels wl_k;
extern CUdevice wl_dev;
extern CUcontext wl_ctx;
extern int wl_scale;

/* See above; usage: the program's --help text after "usage: PROGRAM [--scale N]". */
void wl_start(int argc, char **argv, const char *usage);
/*
 * Set before wl_start by a program that needs more than the driver (NCCL):
 * called after the options and `TAP version 13`, before the driver is
 * loaded; non-zero with why filled -> `1..0 # SKIP why`, exit 0.
 */
extern int (*wl_requires)(char *why, size_t whylen);
/* The plan: n point names. */
void wl_plan(int n, const char *const *names);
/* Arms the watchdog for the next point (limit in seconds). */
void wl_arm(unsigned seconds);
/* Starts work that owes no earlier error: clears wl_error and arms the watchdog. */
void wl_begin(unsigned seconds);

/* The first failing call since wl_begin, "" when none (wl_point's WL_ERROR and wl_control name it). */
extern char wl_error[256];
/* The name of a CUDA code, or of the entry point libcuda.so.1 lacks. */
const char *wl_error_name(int rc);
/* Records call failed with rc (first failure only); returns rc. */
int wl_fail(const char *call, int rc);
#define WL_TRY(call)                                                            \
    do {                                                                        \
        int wl_rc_ = (call);                                                    \
        if (wl_rc_ != 0) {                                                      \
            wl_fail(#call, wl_rc_);                                             \
            goto out;                                                           \
        }                                                                       \
    } while (0)

/* The outcome of a check, for wl_point; its level is "MUST", "DE-FACTO" or "SHOULD" (the levels results.json allows: docs/results.schema.json). */
enum { WL_KEPT, WL_VIOLATED, WL_UNDECIDABLE, WL_ERROR, WL_SKIP };
/*
 * Writes the next point: kept -> ok; violated -> not ok (with `# TODO
 * <level> rule not kept` for DE-FACTO and SHOULD); undecidable (the check's
 * premise did not hold) -> not ok # TODO undecidable; error -> not ok naming
 * wl_error; skip -> ok # SKIP message.  y: YAML keys, message and level added.
 */
void wl_point(int outcome, const char *level, const char *message, struct sc_yaml *y);
/*
 * A negative control: an error (wl_error) -> not ok naming it; premise not
 * held -> not ok # TODO undecidable; the violation shown -> ok; not shown ->
 * not ok # TODO vacuous.
 */
void wl_control(int shown, int premise, const char *message, struct sc_yaml *y);

/* Host-mapped pinned memory: host pointer, its device address in *dev. */
void *wl_host_mapped(size_t n, CUdeviceptr *dev);
/* Launches k on s with grid x block threads and its parameters. */
int wl_launch(CUfunction k, unsigned grid, unsigned block, CUstream s, void **params);
/* Grid size for a grid-stride kernel over words 32-bit words. */
unsigned wl_grid(uint64_t words);

/* A formatted string kept until the program ends (for YAML values). */
const char *wl_str(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
