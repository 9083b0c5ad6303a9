/*
 * options.h - the convergence program's flags, validated: a bad one is named
 * with its range on stderr and the program exits 2 before touching a device.
 */
#ifndef CV_OPTIONS_H
#define CV_OPTIONS_H
#include <stdint.h>

enum cv_break { CV_BREAK_NONE, CV_BREAK_GRADIENT, CV_BREAK_UPDATE };

struct cv_options {
    unsigned duration_s;   /* 0: one round                          */
    unsigned steps;        /* per round                             */
    unsigned samples;      /* over all ranks                        */
    unsigned features, buckets;
    unsigned timeout_s;    /* rendezvous, NCCL set-up, each round   */
    uint64_t seed;         /* rank 0's; seed_given says if chosen   */
    int seed_given;
    enum cv_break brk;
    const char *rendezvous;  /* HOST:PORT, for more than one rank    */
};

enum { CV_OPTIONS_OK = 0, CV_OPTIONS_DONE = 1, CV_OPTIONS_BAD = 2 };
/* Parses argv (and $STREAMCTS_RENDEZVOUS); CV_OPTIONS_DONE after --help. */
int cv_options(int argc, char **argv, struct cv_options *o);
/* A hash of the options every rank must share (all but the seed, which rank 0 hands out). */
uint64_t cv_options_hash(const struct cv_options *o);
const char *cv_break_name(enum cv_break b);

#endif
