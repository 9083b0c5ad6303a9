/*
 * probe.c - build/probe TOOL: can a rule program run here at all?
 *
 * The runners (tools/lib/preflight.sh) run it once, before they build or
 * start the suite's programs, so that a machine without a CUDA driver or
 * device, or a bad STREAMCTS_* value, gets its answer in seconds, once,
 * instead of from every program.  It asks what every program asks before its
 * plan, through the same code: its settings (runtime/suite/options.c, from the
 * environment: no flags) and whether the rule can run here
 * (runtime/suite/support.c), for a rule that needs one GPU and nothing more.  A
 * rule that needs more (two GPUs, MPS, green contexts) still skips in its
 * own program.  It links the legacy runtime, not the programs.
 *
 * Exit status:
 *   0  a rule program can run here: stdout is empty, or says why every
 *      program will fail its one point (a driver library that lacks an
 *      entry point every program needs, a device that did not start), which
 *      the programs then report
 *   1  the device's initialisation did not end within the time a program
 *      gives it (SC_INIT_DEADLINES deadlines); stderr says so
 *   2  a bad STREAMCTS_* value (stderr names it and its range, as a program
 *      does, as TOOL) or a bad use of the probe
 *   3  no point can run here: stdout says why, as a program's skip does
 *      (no CUDA driver, no CUDA device)
 */
#define _POSIX_C_SOURCE 200809L
#include "options.h"
#include "support.h"
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const sc_rule probe_rule = { .id = "probe", .level = SC_MUST, .devices = 1 };

static char stuck[200];

static void on_alarm(int sig)
{
    (void)sig;
    ssize_t w = write(STDERR_FILENO, stuck, strlen(stuck));
    (void)w;
    _exit(1);
}

int main(int argc, char **argv)
{
    struct sc_options o;
    struct sc_support_answer a;
    struct sigaction sa;
    if (argc != 2 || !*argv[1] || argv[1][0] == '-') {
        fprintf(stderr, "usage: build/probe TOOL (tools/lib/preflight.sh runs it; TOOL names the messages)\n");
        return 2;
    }
    /* the variables only, as prove runs the programs: the messages name the tool */
    char *env_argv[] = { argv[1], NULL };
    int rc = sc_options_parse(&probe_rule, 1, env_argv, &o);
    if (rc != SC_OPTIONS_GO)
        return 2;
    unsigned limit_s = (unsigned)((SC_INIT_DEADLINES * (unsigned long long)o.deadline_ms + 999) / 1000);
    snprintf(stuck, sizeof stuck,
             "%s: initialising the device (cuInit, its context, the suite's kernels) did not end within %u s "
             "(build/probe): the driver or the device is stuck\n", argv[1], limit_s);
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    alarm(limit_s);
    switch (sc_support_check(&probe_rule, &o, &a)) {
    case SC_SUPPORT_SKIP:
        printf("%s\n", a.why[0] ? a.why : "the device check gave no reason");
        return 3;
    case SC_SUPPORT_FAIL:
        printf("every program will fail its point '%s': %s\n", a.point, a.why[0] ? a.why : "no reason given");
        return 0;
    case SC_SUPPORT_OK:
        break;
    }
    return 0;
}
