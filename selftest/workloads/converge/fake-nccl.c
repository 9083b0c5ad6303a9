/*
 * fake-nccl.c - a stand-in for libnccl.so.2 that the convergence program can
 * load on a machine without NCCL: its self-test then reaches the next skip
 * (no CUDA driver) whatever this machine has.  Every call fails with
 * ncclInternalError (3).  Built with -DLACKS_ALLREDUCE it lacks
 * ncclAllReduce, which the program must name.
 */
#include <stddef.h>

int ncclGetVersion(int *v) { *v = 0; return 3; }
int ncclGetUniqueId(void *id) { (void)id; return 3; }
struct id { char internal[128]; };
int ncclCommInitRank(void **comm, int n, struct id id, int rank) { (void)comm, (void)n, (void)id, (void)rank; return 3; }
#ifndef LACKS_ALLREDUCE
int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *c, void *st)
{
    (void)s, (void)r, (void)n, (void)t, (void)op, (void)c, (void)st;
    return 3;
}
#endif
int ncclCommDestroy(void *c) { (void)c; return 3; }
int ncclCommAbort(void *c) { (void)c; return 3; }
const char *ncclGetErrorString(int r) { (void)r; return "fake libnccl.so.2: internal error"; }
