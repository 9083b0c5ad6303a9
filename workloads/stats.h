/*
 * stats.h - order statistics of latency samples, in pure C (unit-tested by
 * selftest/workloads/stats.c).  Quantiles are nearest-rank: the value at
 * rank ceil(q * n) of the sorted samples, so every reported figure is a
 * sample that was measured.
 */
#ifndef WL_STATS_H
#define WL_STATS_H
#include <stddef.h>

/* The nearest-rank q-quantile (0 < q <= 1) of v[0..n); sorts v in place; 0 for n == 0. */
double wl_quantile(double *v, size_t n, double q);

struct wl_latency {
    size_t n;
    double median_us, p99_us, max_us;
};
/* Median, p99 and maximum of n samples in nanoseconds (v is sorted in place). */
struct wl_latency wl_latency_of(double *v, size_t n);

#endif
