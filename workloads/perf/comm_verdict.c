/* comm_verdict.c - the overlap verdict of tap/perf/comm_overlap.t from its stamps (see comm_verdict.h). */
#include "comm_verdict.h"
#include <stddef.h>

static double us(uint64_t a, uint64_t b) { return b > a ? (double)(b - a) / 1e3 : 0.0; }

struct co_verdict co_judge(const struct co_stamps *s)
{
    struct co_verdict v = { CO_UNDECIDABLE, 0.0, 0.0, 0.0, 0.0, NULL };
    uint64_t lo, hi, first, last;
    if (!s->compute_start || !s->compute_end || !s->comm_start || !s->comm_end || s->compute_end < s->compute_start ||
        s->comm_end < s->comm_start || (s->last_end && s->last_end < s->compute_start)) {
        v.why = "a stamp is missing or out of order";
        return v;
    }
    v.comm_us = us(s->comm_start, s->comm_end);
    v.compute_us = us(s->compute_start, s->compute_end);
    first = s->comm_start < s->compute_start ? s->comm_start : s->compute_start;
    last = s->comm_end > s->compute_end ? s->comm_end : s->compute_end;
    if (s->last_end > last)
        last = s->last_end;
    v.span_us = us(first, last);
    lo = s->comm_start > s->compute_start ? s->comm_start : s->compute_start;
    hi = s->comm_end < s->compute_end ? s->comm_end : s->compute_end;
    v.fraction = hi > lo && s->comm_end > s->comm_start ? (double)(hi - lo) / (double)(s->comm_end - s->comm_start) : 0.0;
    if (s->compute_done_at_issue) {
        v.why = "the compute kernel had finished when the all-reduce was issued (its launch waited for it, as under "
                "CUDA_LAUNCH_BLOCKING=1): nothing could overlap it";
        return v;
    }
    if (s->comm_end - s->comm_start < CO_MIN_COMM_NS) {
        v.why = "the all-reduce's bracket is under 10 us: too short to judge at the clock's resolution";
        return v;
    }
    if (v.fraction >= CO_MIN_FRACTION) {
        v.outcome = CO_OVERLAP;
        v.why = "the all-reduce ran while the compute kernel ran";
    } else {
        v.outcome = CO_NO_OVERLAP;
        v.why = s->comm_start >= s->compute_end ? "the all-reduce started only after the compute kernel ended"
                                                : "the all-reduce ran mostly outside the compute kernel";
    }
    return v;
}

int co_combine(const struct co_verdict *v, int n, int *best)
{
    int b = -1;
    for (int i = 0; i < n; i++) {
        if (v[i].outcome == CO_UNDECIDABLE)
            continue;
        if (b < 0 || v[i].fraction > v[b].fraction)
            b = i;
    }
    if (best)
        *best = b < 0 ? 0 : b;
    if (b < 0)
        return CO_UNDECIDABLE;
    return v[b].outcome; /* the greatest fraction decides: overlap if any run overlapped */
}

const char *co_outcome_name(int outcome)
{
    return outcome == CO_OVERLAP ? "overlap" : outcome == CO_NO_OVERLAP ? "no overlap" : "undecidable";
}
