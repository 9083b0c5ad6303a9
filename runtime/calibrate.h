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
#define SC_FIRST_LOOK_FACTOR 50u          /* the first look is this many of the slowest of them ...  */
#define SC_FIRST_LOOK_MIN_NS 5000000u     /* ... and at least 5 ms                                   */

/*
 * The first look's window: SC_FIRST_LOOK_FACTOR x the slowest of
 * SC_FIRST_LOOK_ROUND_TRIPS launches of a small kernel each followed by its
 * stream's synchronization, at least SC_FIRST_LOOK_MIN_NS, at most window_ns
 * (window_ns itself when the device cannot be timed).  *slowest_ns: the
 * slowest round trip.  Call with device 0 current in this thread.
 */
uint64_t sc_calibrate_first_look(const sc_backend *b, uint64_t window_ns, uint64_t *slowest_ns);

#endif
