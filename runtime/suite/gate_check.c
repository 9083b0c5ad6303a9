/* gate_check.c - a held stream wait must hold (gate_check.h). */
#include "gate_check.h"
#include "clock.h"
#include "slot.h"
#include <stdio.h>
#include <string.h>

static int token_seen(volatile struct sc_slot *sl, uint32_t token)
{
    return __atomic_load_n(&sl->token, __ATOMIC_ACQUIRE) == token;
}

int sc_gate_check(const sc_backend *b, uint64_t deadline_ns, char *why, size_t n)
{
    void *s = NULL, *mem = NULL, *mem_dev = NULL;
    int rc, verdict = -1;
    /* the flag, then two slots: the wait's stamps and the marking kernel's */
    if ((rc = b->host_alloc(&mem, 4 * sizeof(struct sc_slot))) || (rc = b->host_dev_ptr(&mem_dev, mem)) ||
        (rc = b->stream_create(&s, 1, 0, 0))) {
        snprintf(why, n, "making its stream and memory failed: %s (%d)", b->error_name(rc), rc);
        goto out;
    }
    if (!mem || !mem_dev) { /* a stand-in that answered success and gave no memory */
        snprintf(why, n, "cuMemHostAlloc answered success without memory");
        goto out;
    }
    memset(mem, 0, 4 * sizeof(struct sc_slot));
    uint32_t *flag = mem;
    volatile struct sc_slot *mark = (struct sc_slot *)mem + 2;
    char *dev = mem_dev;
    if ((rc = b->wait_gate(s, dev, dev + sizeof(struct sc_slot), 1)) ||
        (rc = b->launch_mark(s, dev + 2 * sizeof(struct sc_slot), 2))) {
        snprintf(why, n, "issuing a held stream wait and a kernel behind it failed: %s (%d)", b->error_name(rc), rc);
        __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
        goto out;
    }
    uint64_t t0 = sc_now_ns();
    while (!token_seen(mark, 2) && sc_now_ns() - t0 < SC_GATE_CHECK_HOLD_NS)
        sc_pause_ns(20000);
    b->settle(deadline_ns); /* the mock's threads: all they could run, they ran */
    int early = token_seen(mark, 2);
    __atomic_store_n(flag, 1u, __ATOMIC_RELEASE);
    uint64_t t1 = sc_now_ns();
    while (!token_seen(mark, 2) && sc_now_ns() - t1 < deadline_ns)
        sc_pause_ns(20000);
    if (early)
        snprintf(why, n, "a kernel issued behind a stream wait on an unwritten flag ran before the flag was written");
    else if (!token_seen(mark, 2))
        snprintf(why, n, "a kernel issued behind a stream wait did not run within %.0f ms of the flag's write",
                 (double)deadline_ns / 1e6);
    verdict = !early && token_seen(mark, 2);
out:
    if (s) { /* queried to the deadline, never synchronized: nothing here may hang */
        for (uint64_t t = sc_now_ns(); b->stream_query(s) == SC_NOT_READY && sc_now_ns() - t < deadline_ns;)
            sc_pause_ns(20000);
        b->stream_destroy(s);
    }
    if (mem)
        b->host_free(mem);
    return verdict;
}
