/*
 * support.h - can the rule run here: the device's initialisation and the
 * capability checks, decided before the plan, in one place.
 *
 * sc_support_check initialises the driver API (waiting, for a bounded time,
 * while the device has no room for another context), then the runtime API,
 * and answers with one of:
 *   SC_SUPPORT_OK    the rule runs; runtime_why is NULL, or why the runtime
 *                    API cannot use the device (its points fail with it)
 *   SC_SUPPORT_SKIP  a skip, `1..0 # SKIP why`: no driver library or no
 *                    device, an MPS server that is not usable here, fewer
 *                    GPUs than the rule needs, a capability the rule needs
 *                    (sc_rule.needs: green contexts) that the device or its
 *                    driver lacks
 *   SC_SUPPORT_FAIL  never a skip: one planned point named `point` fails
 *                    with why (a driver library without the entry points
 *                    every program needs, a device that failed to start)
 */
#ifndef SC_SUPPORT_H
#define SC_SUPPORT_H
#include "backend.h"
#include "options.h"
#include <stddef.h>
#include <stdint.h>

/* The device's initialisation may take this many deadlines (a program's watchdog, tools/lib/probe.c's limit). */
#define SC_INIT_DEADLINES 12u

enum sc_support { SC_SUPPORT_OK, SC_SUPPORT_SKIP, SC_SUPPORT_FAIL };
struct sc_support_answer {
    const char *point;       /* SC_SUPPORT_FAIL: the failing point's name                        */
    char why[700];           /* SC_SUPPORT_SKIP: the skip's reason; SC_SUPPORT_FAIL: the message */
    const char *runtime_why; /* SC_SUPPORT_OK: NULL, or why the runtime API's points fail        */
    char runtime_msg[700];   /* ... (runtime_why points here)                                    */
};
enum sc_support sc_support_check(const sc_rule *rule, const struct sc_options *o, struct sc_support_answer *a);

/* A child process's start: the driver API (waiting for room, as above) and the API b; 0, or -1 with why. */
int sc_support_init_api(const struct sc_options *o, const sc_backend *b, char *why, size_t n);
/* How long this process waited for room for its context (0: it did not wait). */
uint64_t sc_support_room_waited_ns(void);

/* Does the rule run in API a (0 driver, 1 runtime) at all (stream memory operations: the driver API only)? */
int sc_support_api(const sc_rule *rule, int a);

/*
 * Are gates stream waits (1) or spinning kernels (0)?  o->wait_gates when set, else the stream wait
 * unless a driver knob makes it a worse gate: under CUDA_DEVICE_MAX_CONNECTIONS below 8 a stream wait
 * blocks the hardware queue it shares with other streams (a kernel does not), and under
 * CUDA_LAUNCH_BLOCKING the kernels around it would block their thread on the hold (docs/performance.md).
 * *why (unless why is NULL): a line for the TAP header.
 */
int sc_support_wait_gates(const struct sc_options *o, const char **why);
/* Where the gates would be stream waits and nothing set them, whether a stream wait holds (gate_check.h),
 * once per process, before the header: where it does not, the gates are spinning kernels, in this process's
 * programs and the processes it starts (_STREAMCTS_GATE_FAILED), and sc_support_wait_gates says why. */
void sc_support_check_gates(const struct sc_options *o);

#endif
