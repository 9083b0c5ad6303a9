/*
 * main.c - sc_main: what every rule program does (streamcts.h).
 *
 * It reads the options (options.h: a bad one exits 2 before any device is
 * touched) and hands over to what this process was started as: the MPS
 * wrapper of a *.mps.t program (mps.h), an isolated point's child process
 * (isolate.h) or one of a case's other processes (procs.h), both served by
 * point.h; else it lists the cases (--list), or hands the run to a host
 * process (host.h, when STREAMCTS_HOST names one), or runs them as TAP (suite.h).
 */
#include "host.h"
#include "isolate.h"
#include "mps.h"
#include "options.h"
#include "point.h"
#include "procs.h"
#include "suite.h"

int sc_main(const sc_rule *rule, int argc, char **argv)
{
    struct sc_options o;
    int rc, child_case, child_api, child_control, child_proc, child_fd[2];
    if ((rc = sc_options_parse(rule, argc, argv, &o)))
        return rc == SC_OPTIONS_DONE ? 0 : 2;
    if (sc_mps_requested(argv[0]) && !o.list)
        return sc_mps_run(argv, o.mps_lock_ms);
    if (sc_isolate_child(&child_case, &child_api, &child_control))
        return sc_point_child_main(rule, &o, argv, child_case, child_api, child_control);
    if (sc_procs_child(&child_api, &child_proc, child_fd))
        return sc_point_process_main(rule, &o, argv, child_api, child_proc, child_fd);
    if (!o.list && (rc = sc_host_hand_over(rule, &o, argv)) >= 0)
        return rc;
    if (o.list)
        return sc_suite_list(rule, &o);
    return sc_suite_run(rule, &o, argv);
}
