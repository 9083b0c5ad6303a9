/*
 * isolate.h - running one point in a child process of its own.
 *
 * A rule whose program faults the GPU context (a sticky error) cannot share
 * the context with the next case, so each of its points runs in a fresh
 * process: the parent re-executes its own program with STREAMCTS_CHILD set,
 * the child runs the one point and sends back its result as a blob over a
 * pipe, and the parent reports it.  A child that crashes or outlives its
 * limit is killed and reported, never waited for.
 */
#ifndef SC_ISOLATE_H
#define SC_ISOLATE_H
#include <stddef.h>
#include <stdint.h>

#define SC_CHILD_ENV "STREAMCTS_CHILD" /* "CASE API CONTROL FD" */

/*
 * Parent: runs this program again, with argv, as a child for point
 * (case_index, api, control); fills blob (size bytes) from the child.
 * Returns 0, or -1 with why filled.
 */
int sc_isolate_run(char *const argv[], int case_index, int api, int control, uint64_t limit_ns, void *blob,
                   size_t size, char *why, size_t whylen);

/* Child: 1 and the point when this process is a child, else 0. */
int sc_isolate_child(int *case_index, int *api, int *control);
/* Child: sends the blob to the parent; returns 0 on success. */
int sc_isolate_reply(const void *blob, size_t size);

#endif
