/* calibrate.c - the first look's window from the device's legal round trip (see calibrate.h). */
#include "calibrate.h"
#include "clock.h"

uint64_t sc_calibrate_first_look(const sc_backend *b, uint64_t window_ns, uint64_t *slowest_ns)
{
    void *s = NULL, *slot = NULL;
    uint64_t slowest = 0;
    int rc = b->stream_create(&s, 1, 0, 0) || b->dev_alloc(&slot, 64);
    for (unsigned k = 1; !rc && k <= SC_FIRST_LOOK_ROUND_TRIPS; k++) {
        uint64_t t0 = sc_now_ns();
        rc = b->launch_mark(s, slot, k) || b->stream_sync(s);
        uint64_t dt = sc_now_ns() - t0;
        slowest = dt > slowest ? dt : slowest;
    }
    if (slot)
        b->dev_free(slot);
    if (s)
        b->stream_destroy(s);
    *slowest_ns = slowest;
    if (rc)
        return window_ns;
    uint64_t look = slowest * SC_FIRST_LOOK_FACTOR;
    look = look < SC_FIRST_LOOK_MIN_NS ? SC_FIRST_LOOK_MIN_NS : look;
    return look < window_ns ? look : window_ns;
}
