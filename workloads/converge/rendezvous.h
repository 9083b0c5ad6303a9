/*
 * rendezvous.h - hands rank 0's ncclUniqueId and seed to every rank over TCP.
 *
 * NCCL needs one id made by one rank and known to all before
 * ncclCommInitRank.  MPI would carry it, but the program must not link MPI,
 * so rank 0 listens at HOST:PORT (tools/cluster passes the first node's name)
 * and every other rank connects, says who it is (rank, world size and a hash
 * of its options, which must agree) and receives the id and rank 0's seed.
 * Every wait has the deadline given; nothing is retried past it.
 * Usage: rank 0 fills id and seed, the others receive them:
 *   if (cv_rendezvous("node1:29517", rank, world, config, &id, &seed, 120, why, sizeof why) != 0) fail(why);
 */
#ifndef CV_RENDEZVOUS_H
#define CV_RENDEZVOUS_H
#include "nccl.h"
#include <stdint.h>

/* 0, or -1 with why (the address, the rank and what went wrong). */
int cv_rendezvous(const char *address, int rank, int world, uint64_t config, cv_nccl_id *id,
                  uint64_t *seed, double timeout_s, char *why, size_t whylen);

/* Splits "HOST:PORT" (port 1..65535); 0, or -1 when it is not one. */
int cv_split_address(const char *address, char *host, size_t hostlen, char *port, size_t portlen);

#endif
