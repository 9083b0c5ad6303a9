/*
 * comm_verdict_units.c - unit tests of workloads/perf/comm_verdict.c (no
 * GPU): the verdict of tap/perf/comm_overlap.t on canned %globaltimer stamps
 * (overlap, no overlap, undecidable and why) and over several runs.  Prints
 * its own TAP.
 */
#include "comm_verdict.h"
#include <math.h>
#include <stdio.h>
#include <string.h>

static int n, failed;

static void check(int cond, const char *name, const struct co_verdict *v)
{
    n++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n, name);
    if (!cond) {
        failed++;
        if (v)
            printf("  ---\n  outcome: \"%s\"\n  fraction: \"%.3f\"\n  why: \"%s\"\n  ...\n", co_outcome_name(v->outcome),
                   v->fraction, v->why ? v->why : "");
    }
}

/* Stamps in us after an origin of 1 s (the clock is never 0 on a device). */
static struct co_stamps at(double cs, double ce, double bs, double be, int done)
{
    const double t0 = 1e9;
    struct co_stamps s = { (uint64_t)(t0 + cs * 1e3), (uint64_t)(t0 + ce * 1e3), (uint64_t)(t0 + ce * 1e3 + 100e3),
                           (uint64_t)(t0 + bs * 1e3), (uint64_t)(t0 + be * 1e3), done };
    return s;
}

int main(void)
{
    struct co_stamps s;
    struct co_verdict v, runs[4];
    int best = -1, o;
    printf("TAP version 13\n1..16\n");

    /* The stream pair as it should be: a 300 us all-reduce inside a 1100 us compute kernel. */
    s = at(0, 1100, 40, 340, 0);
    v = co_judge(&s);
    check(v.outcome == CO_OVERLAP && fabs(v.fraction - 1.0) < 1e-9, "an all-reduce inside the compute kernel: overlap, fraction 1", &v);
    check(fabs(v.comm_us - 300) < 1e-6 && fabs(v.compute_us - 1100) < 1e-6 && fabs(v.span_us - 1200) < 1e-6,
          "lengths and span (to the short kernel's end) in us", &v);
    /* Half inside: the threshold is inclusive. */
    s = at(0, 1100, 950, 1250, 0);
    v = co_judge(&s);
    check(v.outcome == CO_OVERLAP && fabs(v.fraction - 0.5) < 1e-9, "half of the all-reduce inside: overlap (>= 0.5)", &v);
    s = at(0, 1100, 960, 1260, 0);
    v = co_judge(&s);
    check(v.outcome == CO_NO_OVERLAP && v.fraction < 0.5, "less than half inside: no overlap", &v);
    /* Serialised: the all-reduce after the compute kernel (and after the short one). */
    s = at(0, 1100, 1205, 1505, 0);
    v = co_judge(&s);
    check(v.outcome == CO_NO_OVERLAP && v.fraction == 0 && strstr(v.why, "only after"), "an all-reduce after the compute kernel: no overlap, 'only after'", &v);
    check(fabs(v.span_us - 1505) < 1e-6, "its span runs to the all-reduce's end", &v);
    /* Before the compute kernel entirely (a stream that ran it first): no overlap, not 'only after'. */
    s = at(400, 1500, 0, 300, 0);
    v = co_judge(&s);
    check(v.outcome == CO_NO_OVERLAP && v.fraction == 0 && !strstr(v.why, "only after"), "an all-reduce before the compute kernel: no overlap", &v);

    /* Undecidable. */
    s = at(0, 1100, 40, 340, 1);
    v = co_judge(&s);
    check(v.outcome == CO_UNDECIDABLE && strstr(v.why, "CUDA_LAUNCH_BLOCKING"), "compute finished when the all-reduce was issued: undecidable, saying why", &v);
    s = at(0, 1100, 40, 340, 0);
    s.comm_end = 0;
    v = co_judge(&s);
    check(v.outcome == CO_UNDECIDABLE && strstr(v.why, "missing"), "a stamp missing: undecidable", &v);
    s = at(0, 1100, 340, 40, 0);
    v = co_judge(&s);
    check(v.outcome == CO_UNDECIDABLE && strstr(v.why, "order"), "a bracket that ends before it starts: undecidable", &v);
    s = at(0, 1100, 40, 45, 0);
    v = co_judge(&s);
    check(v.outcome == CO_UNDECIDABLE && strstr(v.why, "10 us"), "a 5 us bracket: too short, undecidable", &v);

    /* Several runs. */
    s = at(0, 1100, 1205, 1505, 0);
    runs[0] = co_judge(&s);
    s = at(0, 1100, 40, 340, 0);
    runs[1] = co_judge(&s);
    s = at(0, 1100, 40, 340, 1);
    runs[2] = co_judge(&s);
    o = co_combine(runs, 3, &best);
    check(o == CO_OVERLAP && best == 1, "one run of three overlapped: overlap, resting on that run", &runs[best]);
    o = co_combine(runs, 1, &best);
    check(o == CO_NO_OVERLAP && best == 0, "the serialised run alone: no overlap", &runs[0]);
    o = co_combine(runs + 2, 1, &best);
    check(o == CO_UNDECIDABLE && best == 0, "only an undecided run: undecidable", &runs[2]);
    runs[3] = runs[2];
    runs[2] = runs[0];
    o = co_combine(runs + 2, 2, &best);
    check(o == CO_NO_OVERLAP && best == 0, "a decided no-overlap beside an undecided run: no overlap", &runs[2]);
    o = co_combine(runs, 0, &best);
    check(o == CO_UNDECIDABLE && best == 0, "no runs: undecidable", NULL);
    return failed ? 1 : 0;
}
