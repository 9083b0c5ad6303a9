/*
 * host.h - handing a rule program's run to a host process.
 *
 * A process's CUDA start-up (cuInit and a context) costs 0.3 s alone and
 * over a second under a parallel run (docs/performance.md), more than most
 * rules' points.  A host (runtime/suite/host.c, build/host-legacy and
 * build/host-ptds) links every rule program of a compile mode and keeps
 * worker processes whose context stays warm from one rule to the next;
 * tools/run-suite starts one per compile mode and sets STREAMCTS_HOST to its
 * directory.  A rule program started with STREAMCTS_HOST set hands its run
 * to a worker of its compile mode's host:
 *
 *   the program connects to $STREAMCTS_HOST/<mode>.sock and sends its rule id
 *   and digests, its backend's kind, executable, working directory, arguments
 *   and environment, with its standard output and error;
 *   the worker answers "refused <why>" (another build or backend, another CUDA
 *   environment: the program runs here, and says why on stderr) or "start",
 *   runs sc_main() for the rule with the program's options, its output going
 *   straight to the program's, and answers "exit <status>";
 *   the program exits with that status.  A worker that ends after "start"
 *   without answering fails the program (its TAP ends where the worker did);
 *   a program that ends while its run is under way (a time limit, ^C) ends
 *   the worker running it, and the host starts another.
 *
 * The TAP is the one the program would print itself; its header says which
 * host ran it.  Child processes (isolated points, a case's other processes)
 * run the program itself (self.h), as they would without a host.
 */
#ifndef SC_HOST_H
#define SC_HOST_H
#include "options.h"
#include "streamcts.h"
#include <stddef.h>

#define SC_HOST_ENV "STREAMCTS_HOST"
#define SC_HOST_MAGIC "streamcts-host 1"

/* Hands the run to the host: the exit status, or -1 when the program runs it itself (no host, or refused). */
int sc_host_hand_over(const sc_rule *rule, const struct sc_options *o, char **argv);

/* The host's socket for this compile mode in dir, into buf; -1 when it does not fit. */
int sc_host_socket_path(char *buf, size_t n, const char *dir);

#endif
