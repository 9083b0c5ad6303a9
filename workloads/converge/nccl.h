/*
 * nccl.h - the few NCCL entry points the convergence program calls, resolved
 * at run time from libnccl.so.2 (or $STREAMCTS_NCCL), so that building needs
 * no NCCL and a machine without it skips with the loader's reason.
 *
 * The types and values are NCCL's public ABI (nccl.h, stable since 2.x):
 * ncclUniqueId is 128 bytes passed by value, ncclResult_t an int-sized enum.
 * Usage: if (cv_nccl_load(why, sizeof why) != 0) skip(why); then cv_nccl.AllReduce(...).
 */
#ifndef CV_NCCL_H
#define CV_NCCL_H
#include <stddef.h>

typedef struct { char internal[128]; } cv_nccl_id;
typedef struct cv_nccl_comm *cv_nccl_comm_t;
typedef void *cv_stream_t;  /* a cudaStream_t */

enum { CV_NCCL_SUCCESS = 0 };
enum { CV_NCCL_SUM = 0, CV_NCCL_MAX = 2, CV_NCCL_AVG = 4 };
enum { CV_NCCL_UINT64 = 5, CV_NCCL_FLOAT32 = 7, CV_NCCL_FLOAT64 = 8 };

struct cv_nccl {
    int (*GetVersion)(int *version);
    int (*GetUniqueId)(cv_nccl_id *id);
    int (*CommInitRank)(cv_nccl_comm_t *comm, int nranks, cv_nccl_id id, int rank);
    int (*AllReduce)(const void *send, void *recv, size_t count, int datatype, int op,
                     cv_nccl_comm_t comm, cv_stream_t stream);
    int (*CommDestroy)(cv_nccl_comm_t comm);
    int (*CommAbort)(cv_nccl_comm_t comm);
    const char *(*GetErrorString)(int result);
    /* Optional (NULL where the library lacks them): one process driving several GPUs
     * (tap/perf/comm_overlap.t, STREAMCTS_COMM_RANKS); every NCCL 2.x has them. */
    int (*CommInitAll)(cv_nccl_comm_t *comms, int ndev, const int *devlist);
    int (*GroupStart)(void);
    int (*GroupEnd)(void);
};
extern struct cv_nccl cv_nccl;

/* Loads $STREAMCTS_NCCL, default libnccl.so.2; 0, or -1 with why (dlerror, or a required entry point missing). */
int cv_nccl_load(char *why, size_t whylen);

#endif
