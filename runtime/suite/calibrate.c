/* calibrate.c - the first look's window from the device's legal round trip (see calibrate.h). */
#include "calibrate.h"
#include "clock.h"
#include <stdlib.h>

static int by_value(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t sc_calibrate_first_look(const sc_backend *b, uint64_t window_ns, uint64_t deadline_ns, uint64_t *fastest_ns)
{
    void *s = NULL, *slot = NULL;
    uint64_t trip[SC_FIRST_LOOK_ROUND_TRIPS];
    int rc = b->stream_create(&s, 1, 0, 0) || b->dev_alloc(&slot, 64);
    for (unsigned k = 0; !rc && k < SC_FIRST_LOOK_ROUND_TRIPS; k++) {
        uint64_t t0 = sc_now_ns();
        if ((rc = b->launch_mark(s, slot, k + 1)))
            break;
        /* queried, not synchronized: nothing here may wait past the deadline */
        while ((rc = b->stream_query(s)) == SC_NOT_READY && sc_now_ns() - t0 < deadline_ns)
            ;
        trip[k] = sc_now_ns() - t0;
    }
    if (slot)
        b->dev_free(slot);
    if (s)
        b->stream_destroy(s);
    *fastest_ns = 0;
    if (rc)
        return window_ns;
    qsort(trip, SC_FIRST_LOOK_ROUND_TRIPS, sizeof trip[0], by_value);
    *fastest_ns = trip[0];
    uint64_t look = *fastest_ns * SC_FIRST_LOOK_FACTOR;
    look = look < SC_FIRST_LOOK_MIN_NS ? SC_FIRST_LOOK_MIN_NS : look;
    return look < window_ns ? look : window_ns;
}
