/*
 * calibrate.h - the first look: a short hold window sized from this device.
 *
 * A point's verdict never rests on the window's length: B completing while
 * A is held is a violation however short the hold, and a hold ended early by
 * a blocked call makes the point undecidable (verdict.c).  What the length
 * buys is the chance for a driver that ignores a dependency to show it: B,
 * left free, completes in about one legal round trip (a launch and its
 * synchronization, tens of microseconds on an H100).  So each point's first
 * run holds its gates for a window many round trips long; a run whose
 * outcome needs more (a control that did not see its violation, a
 * "not held" case that did not see independence, an undecidable run) is
 * tried again with the full window, as often as before.
 */
#ifndef SC_CALIBRATE_H
#define SC_CALIBRATE_H
#include "backend.h"
#include <stdint.h>

#define SC_FIRST_LOOK_ROUND_TRIPS 16u     /* legal round trips timed at start                       */
#define SC_FIRST_LOOK_FACTOR 50u          /* the first look is this many of the fastest ...          */
#define SC_FIRST_LOOK_MIN_NS 1000000u     /* ... and at least 1 ms                                   */
#define SC_FIRST_LOOK_RECHECK_NS 1000000000ull /* timed again between cases after this long (suite.c) */

/*
 * The first look's window: SC_FIRST_LOOK_FACTOR x the fastest of
 * SC_FIRST_LOOK_ROUND_TRIPS launches of a small kernel each followed by
 * queries of its stream until it is done, at least SC_FIRST_LOOK_MIN_NS, at most window_ns
 * (window_ns itself when the device cannot be timed: a call failed, or a
 * round trip took longer than deadline_ns).  *fastest_ns: the fastest round
 * trip.  Call with device 0 current in this thread.  The fastest, not the
 * median: under a parallel run the GPU's contexts take turns, and a round trip
 * that waited for a turn measures the other contexts' work, not what a free
 * B needs; the median of a program that started while others held the GPU
 * was over 1 ms, and its first look the whole window (140 of 731 programs
 * of one run, docs/performance.md).  A control that needs longer gets the
 * full window, and the first look doubles until the round trip is timed
 * again (suite.c: between cases, every SC_FIRST_LOOK_RECHECK_NS), so a short
 * first look costs time, never a verdict.
 */
uint64_t sc_calibrate_first_look(const sc_backend *b, uint64_t window_ns, uint64_t deadline_ns, uint64_t *fastest_ns);

#endif
