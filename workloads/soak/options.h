/*
 * options.h - tools/soak's flags (docs/soak.md):
 *   --duration D     1s..365d: run until D has passed (a whole number and a unit: s, m, h or d)
 *   --replay SEED    run the one program of that seed, its case and its control, and exit
 *   --seed S         the run's seed (default: from the clock; printed either way)
 *   --threads N      1..4: host threads a program may issue from (default 2)
 *   --heartbeat SEC  1..3600: seconds between heartbeat lines and TAP points (default 60)
 *   --warm-up SEC    1..31536000: seconds before memory is measured (default: a tenth of the duration, at
 *                    least SOAK_MIN_WARM_UP_S; a run that ends before it skips the memory points)
 *   --help
 * One of --duration and --replay.  A seed is a number in 0..2^64-1, decimal or 0x-hex.  A bad flag or value
 * is named, with its range, on stderr; the program then exits 2 before it touches a device.
 */
#ifndef SOAK_OPTIONS_H
#define SOAK_OPTIONS_H
#include <stdint.h>

struct soak_options {
    uint64_t duration_s, seed, replay;
    int has_duration, has_seed, has_replay;
    uint64_t warm_up_s; /* 0: the default */
    unsigned threads, heartbeat_s;
};
#define SOAK_MIN_WARM_UP_S 30u /* the driver's own allocations settle: a 12 s run under CUDA_LAUNCH_BLOCKING=1 grew past
                                * the tolerance after a 1.2 s warm-up on an H100 */

enum { SOAK_GO = 0, SOAK_HELP = 1, SOAK_BAD = 2 };
int soak_options_parse(int argc, char **argv, struct soak_options *o);

#endif
