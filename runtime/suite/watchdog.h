/*
 * watchdog.h - nothing hangs, nothing is lost.
 *
 * prove has no per-file timeout, so each program guards itself: a watchdog
 * thread ends the process when the point under way outlives its hard limit,
 * and a handler does the same on a fatal signal.  Either way every point not
 * yet written is reported "not ok" with the reason before the process exits
 * non-zero.
 */
#ifndef SC_WATCHDOG_H
#define SC_WATCHDOG_H
#include <stdint.h>

void sc_watchdog_start(void);
/* The step under way (a point, the device's initialisation) must finish within limit_ns; reason: why not. */
void sc_watchdog_arm(uint64_t limit_ns, const char *reason);
void sc_watchdog_disarm(void);

#endif
