/* stats.c - order statistics of latency samples (see stats.h). */
#include "stats.h"
#include <math.h>
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double wl_quantile(double *v, size_t n, double q)
{
    size_t rank;
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, by_value);
    rank = (size_t)ceil(q * (double)n);
    return v[rank < 1 ? 0 : rank > n ? n - 1 : rank - 1];
}

struct wl_latency wl_latency_of(double *v, size_t n)
{
    struct wl_latency l = { n, 0, 0, 0 };
    if (n) {
        l.median_us = wl_quantile(v, n, 0.5) / 1e3;
        l.p99_us = wl_quantile(v, n, 0.99) / 1e3;
        l.max_us = wl_quantile(v, n, 1) / 1e3;
    }
    return l;
}
