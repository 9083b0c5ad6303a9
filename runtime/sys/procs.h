/*
 * procs.h - the other processes of a case (rules whose threads name a process).
 *
 * A case whose host threads run in several processes is driven by the
 * program's own process ("main"): it re-executes its program once per other
 * process with STREAMCTS_PROCESS set, and shares an anonymous memory region
 * per API (memfds the child inherits) with them: a child serves the driver
 * API's runs, then main moves it on to the runtime API's.  The children outlive a run:
 * case/peers.c lays the region out (slots, the gate flag, mailboxes, published
 * results, which run to start) and tells them each run; this file only makes
 * the region and the children, and tells when a child ended and why.  A
 * child dies with its parent (PR_SET_PDEATHSIG), so nothing outlives a
 * killed run.
 */
#ifndef SC_PROCS_H
#define SC_PROCS_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SC_PROCESS_ENV "STREAMCTS_PROCESS" /* "API PROC FD0 FD1 SOCK" */

/* Parent: a zeroed shared region of bytes; its fd is inherited by children.  NULL on failure. */
void *sc_procs_region_create(size_t bytes, int *fd, char *why, size_t whylen);
/* Child: maps the region its parent made.  NULL on failure. */
void *sc_procs_region_map(int fd, size_t bytes);

/* Parent: starts this program again (argv) as process proc, for the runs of API api and then of the next
 * (each API's region: fd[0] the driver API's, fd[1] the runtime API's), with a unix socket between the two
 * (the one way a file descriptor passes to it) and setting ("VAR=VALUE", in place of this process's VAR;
 * NULL or "": none) in its environment; 0, or -1 with why. */
int sc_procs_spawn(char *const argv[], int api, int proc, const int fd[2], const char *setting, pid_t *pid,
                   char *why, size_t whylen);
/* Parent: 1 while the child runs; 0 once it ended, with why saying how. */
int sc_procs_alive(pid_t pid, char *why, size_t whylen);
/* Parent: waits up to grace_ns for the child to exit, then kills it; returns its wait status. */
int sc_procs_reap(pid_t pid, uint64_t grace_ns);

/* Child: 1, its first API, process and the two APIs' regions, when this process is one of a case's other
 * processes, else 0. */
int sc_procs_child(int *api, int *proc, int fd[2]);
/* Child: has the parent gone (the child was re-parented)? */
int sc_procs_orphaned(void);

/* Parent: passes a copy of fd (SCM_RIGHTS) to child pid, tagged (the run it belongs to); never waits.
 * The caller keeps fd.  0, or -1 with why. */
int sc_procs_send_fd(pid_t pid, int fd, uint32_t tag, char *why, size_t whylen);
/* Child: the next file descriptor main passed with this tag (those of other tags are closed), waiting at
 * most limit_ns (and not after main ended); the caller closes it.  0, or -1 with why. */
int sc_procs_recv_fd(uint32_t tag, uint64_t limit_ns, int *fd, char *why, size_t whylen);

#endif
