/* support.c - can the rule run here: initialisation and capability checks (see support.h). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "support.h"
#include "gate_check.h"
#include "clock.h"
#include "mps.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SC_ROOM_DEADLINES 3u /* waiting for room for a context (SC_BUSY) may take this many deadlines */
#define SC_ROOM_RETRY_NS 50000000u

static uint64_t room_waited_ns; /* how long this process waited for room for its context */

uint64_t sc_support_room_waited_ns(void) { return room_waited_ns; }

/*
 * The driver API's initialisation, waited for while the device has no room
 * for another context: other programs of a parallel run hold theirs (an H100
 * at CUDA_DEVICE_MAX_CONNECTIONS=32 held 7 to 11 processes' contexts, then answered
 * CUDA_ERROR_OUT_OF_MEMORY while 77 GiB were free).  That is the machine's
 * load, not the rule under test, so it is waited out, for a bounded time.
 */
static int init_driver(const struct sc_options *o, char *why, size_t n)
{
    uint64_t start = sc_now_ns(), limit = SC_ROOM_DEADLINES * (uint64_t)o->deadline_ms * 1000000u;
    int state, busy = 0;
    while ((state = sc_driver_backend.init(why, n)) == SC_BUSY && sc_now_ns() - start < limit) {
        busy = 1;
        sc_pause_ns(SC_ROOM_RETRY_NS);
    }
    if (!busy || (state != SC_READY && state != SC_BUSY))
        return state;
    uint64_t waited = sc_now_ns() - start;
    if (state == SC_BUSY) {
        size_t len = strlen(why);
        snprintf(why + len, n - len, "; still so after %.1f s of waiting", (double)waited / 1e9);
        return SC_BROKEN;
    }
    room_waited_ns = waited; /* with the successful initialisation itself */
    return state;
}

int sc_support_init_api(const struct sc_options *o, const sc_backend *b, char *why, size_t n)
{
    if (init_driver(o, why, n) != SC_READY || (b != &sc_driver_backend && b->init(why, n) != SC_READY))
        return -1;
    return 0;
}

/* why the stream-wait gate is not used though nothing asked for spinning kernels: it failed its check (in this
 * process, or in the one that started it: the variable, which is no setting of the user's) */
#define SC_GATE_FAILED_ENV "_STREAMCTS_GATE_FAILED"
static char gate_failed[400];

void sc_support_check_gates(const struct sc_options *o)
{
    static int checked; /* a host process runs program after program: the device is checked once */
    char how[256];
    if (checked || o->wait_gates != SC_WAIT_GATES_AUTO || gate_failed[0] || !sc_support_wait_gates(o, NULL))
        return;
    checked = 1;
    int held = sc_gate_check(&sc_driver_backend, (uint64_t)o->deadline_ms * 1000000u, how, sizeof how);
    if (held == 1)
        return;
    snprintf(gate_failed, sizeof gate_failed, "spinning kernels (the stream-wait gate %s: %s)",
             held ? "could not be checked" : "did not hold", how);
    setenv(SC_GATE_FAILED_ENV, gate_failed, 1); /* the processes this one starts hold their gates so too */
}

int sc_support_wait_gates(const struct sc_options *o, const char **why)
{
    const char *ignored;
    if (!why)
        why = &ignored;
    const char *inherited = getenv(SC_GATE_FAILED_ENV);
    if (!gate_failed[0] && inherited && *inherited) /* a process the one that checked started */
        snprintf(gate_failed, sizeof gate_failed, "%s", inherited);
    if (gate_failed[0] && o->wait_gates != 1) { /* this process's programs after the check, and its children */
        *why = gate_failed;
        return 0;
    }
    const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS"), *blocking = getenv("CUDA_LAUNCH_BLOCKING");
    char *end;
    long n = conn && *conn ? strtol(conn, &end, 10) : 0;
    if (o->wait_gates != SC_WAIT_GATES_AUTO) {
        *why = o->wait_gates ? "stream waits (set)" : "spinning kernels (set)";
        return (int)o->wait_gates;
    }
    if (conn && *conn && !*end && n >= 1 && n < 8) {
        *why = "spinning kernels (CUDA_DEVICE_MAX_CONNECTIONS is under 8: a stream wait would block a shared queue)";
        return 0;
    }
    if (blocking && *blocking && strcmp(blocking, "0")) {
        *why = "spinning kernels (CUDA_LAUNCH_BLOCKING is set)";
        return 0;
    }
    *why = "stream waits (cuStreamWaitValue32 between two stamping kernels)";
    return 1;
}

/* 1 (with the skip reason) when the rule needs more GPUs than the driver counts, -1 when it cannot count, else 0. */
static int too_few_gpus(const sc_rule *rule, struct sc_support_answer *a)
{
    int ndev = 0;
    if (rule->devices <= 1)
        return 0;
    if (sc_driver_backend.device_count(&ndev))
        return -1;
    if (ndev >= rule->devices)
        return 0;
    snprintf(a->why, sizeof a->why, "needs %d GPUs, this machine has %d", rule->devices, ndev);
    return 1;
}

enum sc_support sc_support_check(const sc_rule *rule, const struct sc_options *o, struct sc_support_answer *a)
{
    char why[512] = "";
    memset(a, 0, sizeof *a);
    /* the GPU count first: a rule that needs more GPUs than there are skips without paying for a context */
    if (rule->mps && !sc_mps_dir()) { /* what it checks is what an MPS server does */
        char path[256];
        snprintf(path, sizeof path, "%s", rule->id);
        for (char *c = path; *c; c++)
            *c = *c == '.' ? '/' : *c;
        snprintf(a->why, sizeof a->why, "needs MPS: its cases run only as clients of an MPS server (run "
                 "tap/%s.mps.t, which starts one)", path);
        return SC_SUPPORT_SKIP;
    }
    int few = too_few_gpus(rule, a);
    if (few > 0)
        return SC_SUPPORT_SKIP;
    int state = init_driver(o, why, sizeof why);
    snprintf(a->why, sizeof a->why, "%s", why);
    if (state == SC_MISSING) /* no driver library, or cuInit answered no device or the stub library */
        return SC_SUPPORT_SKIP;
    if (state == SC_LACKING) { /* a driver library, but not one every program can run on: never a skip */
        a->point = "driver entry points";
        return SC_SUPPORT_FAIL;
    }
    if (state == SC_BROKEN && sc_mps_dir()) { /* the capability is missing, not the driver broken */
        snprintf(a->why, sizeof a->why, "no MPS: its server is not usable here (%s); see %s/control.log", why,
                 sc_mps_dir());
        return SC_SUPPORT_SKIP;
    }
    if (state == SC_BROKEN) {
        a->point = "device initialisation";
        return SC_SUPPORT_FAIL;
    }
    if (few < 0) { /* a count the driver cannot give is too few (said only now: the driver's own failure comes first) */
        snprintf(a->why, sizeof a->why, "needs %d GPUs; the driver cannot count them", rule->devices);
        return SC_SUPPORT_SKIP;
    }
    /* a capability the device or its driver may lack is one skip reason, asked before the plan */
    if ((rule->needs & SC_NEEDS_GREEN) && sc_driver_backend.green_support(why, sizeof why) != 0) {
        snprintf(a->why, sizeof a->why, "no green contexts: %s", why);
        return SC_SUPPORT_SKIP;
    }
    if (sc_runtime_backend.init(why, sizeof why) != SC_READY) {
        /* the driver API works on this device but cudart cannot use it (a stand-in that cudart rejects, a
         * driver older than the runtime): its points fail, never a skip or a silent pass */
        snprintf(a->runtime_msg, sizeof a->runtime_msg, "the runtime API cannot use the driver the driver API uses: %s",
                 why);
        a->runtime_why = a->runtime_msg;
    }
    return SC_SUPPORT_OK;
}

int sc_support_api(const sc_rule *rule, int a)
{
    unsigned bit = a == 0 ? SC_API_DRIVER : SC_API_RUNTIME;
    return !rule->apis || (rule->apis & bit);
}
