/*
 * stats_units.c - unit tests of workloads/stats.c (no GPU): nearest-rank
 * quantiles and the median/p99 the stress and perf points report.  Prints
 * its own TAP.
 */
#include "stats.h"
#include <stdio.h>

static int n, failed;

static void check(int cond, const char *name, double got, double want)
{
    n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n, name);
    if (!cond) {
        failed++;
        printf("  ---\n  got: \"%g\"\n  want: \"%g\"\n  ...\n", got, want);
    }
}

int main(void)
{
    double one[] = { 42 };
    double odd[] = { 5, 1, 4, 2, 3 };
    double even[] = { 4, 1, 3, 2 };
    double hundred[100], thousand[1000], q;
    struct wl_latency l;
    printf("TAP version 13\n1..12\n");
    check(wl_quantile(one, 0, 0.5) == 0, "no samples: 0", wl_quantile(one, 0, 0.5), 0);
    check(wl_quantile(one, 1, 0.99) == 42, "one sample is every quantile", wl_quantile(one, 1, 0.99), 42);
    q = wl_quantile(odd, 5, 0.5);
    check(q == 3, "median of 5 unsorted samples is the middle one", q, 3);
    check(odd[0] == 1 && odd[4] == 5, "the samples are sorted in place", odd[0], 1);
    q = wl_quantile(even, 4, 0.5);
    check(q == 2, "median of 4 is the lower middle sample (nearest rank, a measured value)", q, 2);
    for (int i = 0; i < 100; i++)
        hundred[i] = 100 - i; /* 100 .. 1 */
    q = wl_quantile(hundred, 100, 0.99);
    check(q == 99, "p99 of 1..100 is 99", q, 99);
    check(wl_quantile(hundred, 100, 1) == 100, "the 1-quantile is the maximum", wl_quantile(hundred, 100, 1), 100);
    check(wl_quantile(hundred, 100, 0.001) == 1, "a tiny quantile is the minimum", wl_quantile(hundred, 100, 0.001), 1);
    for (int i = 0; i < 1000; i++)
        thousand[i] = (i * 7919) % 1000 * 1000.0; /* 0 .. 999 us in ns, shuffled */
    l = wl_latency_of(thousand, 1000);
    check(l.n == 1000, "latency: the count", (double)l.n, 1000);
    check(l.median_us == 499, "latency: median 499 us of 0..999 us", l.median_us, 499);
    check(l.p99_us == 989, "latency: p99 989 us (rank 990)", l.p99_us, 989);
    check(l.max_us == 999, "latency: maximum 999 us", l.max_us, 999);
    return failed != 0;
}
