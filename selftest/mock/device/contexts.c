/*
 * contexts.c - the mock's contexts: created contexts (each with a legacy
 * stream of its own), the primary context, green contexts, and synchronizing
 * them.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdio.h>
#include <stdlib.h>

__thread struct mctx *cur_ctx; /* the calling thread's current context; NULL: the primary */

/* a created context's synchronizing thread sleeps when it was made with CU_CTX_SCHED_BLOCKING_SYNC
 * and spins otherwise (the break ctx_blocking_spins: always); the primary's sleeps, as before.  A context
 * destroyed while current to this thread answers CONTEXT_IS_DESTROYED (the break ctx_destroyed_usable:
 * it synchronizes as if it were alive). */
int ctx_sync(void)
{
    if (cur_ctx && cur_ctx->destroyed && !breaks(ctx_destroyed_usable))
        return MOCK_CONTEXT_IS_DESTROYED;
    sync_streams(breaks(ctx_sync_primary) ? NULL : cur_ctx,
                 cur_ctx && (!(cur_ctx->flags & SC_CTX_BLOCKING_SYNC) || breaks(ctx_blocking_spins)));
    release_at_sync();
    flush_managed();
    return context_error();
}
/* the runtime API's work is the primary context's (the break primary_unshared: the driver API
 * sees another context, with nothing to wait for). */
int primary_ctx_sync(void)
{
    if (!breaks(primary_unshared))
        sync_streams(NULL, 0);
    return context_error();
}
/* Of the primary context's actions only a pop after a created context was made current is modelled. */
int ctx_action(int action)
{
    if (action != SC_CTX_POP || !cur_ctx)
        return SC_UNSUPPORTED;
    if (cur_ctx->by_create && breaks(pop_keeps_created))
        return 0; /* broken: the created context stays current */
    cur_ctx = NULL;
    return 0;
}
int ctx_create_flags(void **ctx, unsigned flags)
{
    struct mctx *c = calloc(1, sizeof *c), *was = cur_ctx;
    c->flags = flags;
    cur_ctx = c; /* its legacy stream belongs to it */
    c->legacy = new_stream(KIND_LEGACY);
    cur_ctx = was;
    *ctx = c;
    return 0;
}
int ctx_create(void **ctx) { return ctx_create_flags(ctx, 0); }
/* cuCtxCreate during the case: the new context is current to the calling thread after it (the break
 * ctx_create_not_current: the previous one stays current); a pop makes the primary current again. */
int ctx_create_current(void **ctx, unsigned flags)
{
    int rc = ctx_create_flags(ctx, flags);
    struct mctx *c = *ctx;
    c->by_create = 1;
    if (!breaks(ctx_create_not_current))
        cur_ctx = c;
    return rc;
}
/* green contexts (the break no_green: the device has none) and their streams, which are nonblocking */
int green_support(char *why, size_t n)
{
    snprintf(why, n, "%s", breaks(no_green) ? "making one on device 0 answered CUDA_ERROR_NOT_SUPPORTED" : "");
    return breaks(no_green) ? SC_UNSUPPORTED : 0;
}
int green_create(void **green)
{
    struct mctx *c = calloc(1, sizeof *c);
    c->green = 1;
    *green = c;
    return 0;
}
int green_stream_create(void **s, void *green, int prio_set, int prio)
{
    (void)prio_set, (void)prio; /* one priority, as stream_create */
    struct mctx *was = cur_ctx;
    cur_ctx = green; /* the stream belongs to it */
    *s = new_stream(KIND_NONBLOCKING);
    cur_ctx = was;
    return 0;
}
int green_destroy(void *green)
{
    (void)green; /* its streams' workers drain them; the memory is kept, as for contexts */
    return 0;
}
/* the primary context of a fresh process (the op's own, as the driver backend starts one): no
 * reference at first; the last release resets it (inactive until retained again).  The break
 * release_unretained_succeeds: a release with no reference succeeds; release_keeps_active: the last release
 * leaves it active. */
int primary_release(int action, int *reset)
{
    int refs = action == SC_PRIMARY_BALANCED ? 2 : action == SC_PRIMARY_RELEASE_ALL ? 1 : 0; /* its retains */
    int active = refs > 0, rc = 0;
    if (refs == 0) /* the release */
        rc = breaks(release_unretained_succeeds) ? 0 : MOCK_INVALID_CONTEXT;
    else if (--refs == 0 && !breaks(release_keeps_active))
        active = 0;
    *reset = !active;
    return rc;
}
/* Its legacy stream's worker drains it; the memory is kept, as for streams.  Current to the
 * calling thread, it is popped (the break ctx_destroy_keeps_current: it stays current); current to other
 * threads, it stays current there, destroyed. */
int ctx_destroy(void *ctx)
{
    struct mctx *c = ctx;
    if (quirks(slow_ctx_destroy))
        sc_pause_ns(120000000u);
    c->destroyed = 1;
    if (cur_ctx == c && !breaks(ctx_destroy_keeps_current))
        cur_ctx = NULL; /* the stack holds one: the primary is current again */
    return 0;
}
int ctx_enter(void *ctx, int action)
{
    (void)action; /* push and set alike: the stack holds one */
    cur_ctx = ctx;
    return 0;
}
int device_sync(int dev) { return dev == 0 ? ctx_sync() : SC_UNSUPPORTED; }
