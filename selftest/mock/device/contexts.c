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
static struct mctx *last_green; /* the green context made last (the break stream_green_any) */

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
    *green = last_green = c;
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
/* cuCtxPushCurrent / cuCtxSetCurrent; of NULL: no context current, and the runtime API's next call there takes
 * the primary (cur_ctx NULL; the break unset_runtime_elsewhere: a context of the mock's own instead) */
int ctx_enter(void *ctx, int action)
{
    static struct mctx *elsewhere;
    if (action == SC_CTX_SET_TO && breaks(ctx_set_ignored))
        return 0; /* broken: the calling thread's context stays current */
    if (!ctx && action == SC_CTX_SET_TO && breaks(unset_runtime_elsewhere)) {
        if (!elsewhere)
            ctx_create((void **)&elsewhere);
        ctx = elsewhere;
    }
    /* push and set alike: the stack holds one */
    cur_ctx = ctx;
    return 0;
}
/* the streams of context c (NULL: the primary, whose green contexts' streams count too, unless the break
 * ctx_record_no_green leaves them out of a record), each with how many items it has now; at most n, but
 * `except` */
static int ctx_streams(struct mctx *c, int recording, struct mstream *except, struct mstream **out, uint64_t *at, int n)
{
    int k = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s && k < n; s = s->next_all)
        if (s != except && (s->ctx == c || (!c && s->ctx && s->ctx->green && !(recording && breaks(ctx_record_no_green))))) {
            out[k] = s;
            at[k++] = enq_of(s);
        }
    pthread_mutex_unlock(&registry);
    return k;
}
/* whether some stream of context c has work pending now (the break ctx_record_tracks_later_work: a query of the
 * event of a context's record asks this, when it is made) */
int ctx_busy_now(struct mctx *c)
{
    int busy = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s && !busy; s = s->next_all)
        busy = s->ctx == c && done_of(s) < enq_of(s);
    pthread_mutex_unlock(&registry);
    return busy;
}
/* A record for context c (a green one, or NULL: the primary, its green contexts too): a stream of the mock's own
 * waits for every stream of the context where it is now, and the event is recorded there; empty, it waits for
 * none and the event completes when the call returns; wide, it waits for the primary's streams and every green
 * context's; tracks: a query of the event asks whether c is idle then (work issued later included). */
static int record_for(struct mctx *c, struct mevent *ev, int empty, int wide, int tracks)
{
    struct mstream *all[256];
    uint64_t at[256];
    struct mstream *rec = new_stream(KIND_NONBLOCKING);
    int n = empty ? 0 : ctx_streams(wide ? NULL : c, 1, rec, all, at, 256);
    for (int i = 0; i < n; i++)
        enqueue(rec, ITEM_WAIT, NULL, NULL, all[i], at[i], 0);
    rec->ctx = ev->ctx; /* the event's */
    int rc = event_record(ev, rec);
    if (empty && !rc) /* broken: complete when the call returns */
        wait_done(rec, ev->target);
    if (tracks) /* broken: a query asks whether the context is idle then */
        ev->tracks = c, ev->tracking = 1;
    return rc;
}
/* cuCtxRecordEvent of the current context: "Captures in hEvent all the activities of the context hCtx at the time
 * of this call"; "hEvent and hCtx must be from the same CUDA context, otherwise CUDA_ERROR_INVALID_HANDLE" (the
 * break ctx_record_other_context: accepted); the breaks ctx_record_empty, ctx_record_tracks_later_work (record_for).
 * While a stream of the context captures: CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, and "the call will invalidate all
 * the conflicting captures" (ctx_capturing_invalidate; the breaks ctx_event_in_capture, ctx_event_capture_kept). */
int ctx_record_event(void *e)
{
    struct mevent *ev = e;
    if (ev->ctx != cur_ctx && !breaks(ctx_record_other_context))
        return refuse(MOCK_INVALID_HANDLE);
    if (ctx_capturing_invalidate(cur_ctx)) /* the break ctx_event_in_capture: accepted, and nothing recorded */
        return breaks(ctx_event_in_capture) ? 0 : refuse(MOCK_CAPTURE_UNSUPPORTED);
    return record_for(cur_ctx, ev, breaks(ctx_record_empty), 0, breaks(ctx_record_tracks_later_work));
}
/* A wait of context c (NULL: the primary, its green contexts too; wide: that for a green one): every stream of
 * the context waits for the event now, and a stream made later (another thread's per-thread stream) when it is
 * made (ctx_waits_apply); noop: none waits. */
static pthread_mutex_t waits_mu = PTHREAD_MUTEX_INITIALIZER;
static struct ctx_wait { struct mctx *ctx; struct mstream *on; uint64_t target; } waits[64];
static int nwaits;
static int wait_for(struct mctx *c, struct mevent *ev, int noop)
{
    struct mstream *all[256];
    uint64_t at[256];
    if (!ev->stream || noop) /* never recorded: nothing to wait for */
        return 0;
    pthread_mutex_lock(&waits_mu);
    int kept = 0; /* the waits of earlier calls whose work completed bind no stream made from now on */
    for (int i = 0; i < nwaits; i++)
        if (done_of(waits[i].on) < waits[i].target)
            waits[kept++] = waits[i];
    nwaits = kept;
    if (nwaits < 64)
        waits[nwaits++] = (struct ctx_wait){ c, ev->stream, ev->target };
    pthread_mutex_unlock(&waits_mu);
    int n = ctx_streams(c, 0, NULL, all, at, 256);
    for (int i = 0; i < n; i++)
        enqueue(all[i], ITEM_WAIT, NULL, NULL, ev->stream, ev->target, 0);
    return 0;
}
/* cuCtxWaitEvent of the current context: "Makes all future work submitted to context hCtx wait for all work
 * captured in hEvent" (the primary's green contexts too); while a stream of the context captures, refused with
 * CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED and that capture invalidated, as cuCtxRecordEvent.  The break
 * ctx_wait_noop: none waits; ctx_wait_blocks: the calling thread waits instead. */
int ctx_wait_event(void *e)
{
    if (ctx_capturing_invalidate(cur_ctx)) /* the break ctx_event_in_capture: accepted, and nothing waits */
        return breaks(ctx_event_in_capture) ? 0 : refuse(MOCK_CAPTURE_UNSUPPORTED);
    if (breaks(ctx_wait_blocks)) /* the wait made on the host, and none on the device */
        return event_sync(e);
    return wait_for(cur_ctx, e, breaks(ctx_wait_noop));
}
/* calls on a green context: cuGreenCtxRecordEvent "Captures in hEvent all the activities of the green context of
 * hCtx at the time of this call.  hEvent and hCtx must be from the same primary context otherwise
 * CUDA_ERROR_INVALID_HANDLE is returned"; cuGreenCtxWaitEvent "Makes all future work submitted to green context
 * hCtx wait for all work captured in hEvent"; converted (cuCtxFromGreenCtx), cuCtxRecordEvent "will capture only
 * the activities of the green context" and cuCtxWaitEvent makes "the green context ... wait".  While a stream of
 * it captures: refused and the capture invalidated, as for a context.  The breaks green_record_empty,
 * green_record_primary (captures the primary's work too), green_record_tracks_later_work, green_ctx_record_empty,
 * green_ctx_record_all (as the primary's record), green_wait_noop, green_wait_primary (the primary's streams
 * wait too), green_ctx_wait_noop. */
int green_event(void *green, void *e, int wait, int converted)
{
    struct mctx *g = green;
    struct mevent *ev = e;
    if (!wait && ev->ctx) /* an event of a created context */
        return refuse(MOCK_INVALID_HANDLE);
    if (ctx_capturing_invalidate(g))
        return breaks(ctx_event_in_capture) ? 0 : refuse(MOCK_CAPTURE_UNSUPPORTED);
    if (!wait && converted)
        return record_for(g, ev, breaks(green_ctx_record_empty), breaks(green_ctx_record_all), 0);
    if (!wait)
        return record_for(g, ev, breaks(green_record_empty), breaks(green_record_primary),
                          breaks(green_record_tracks_later_work));
    if (converted)
        return wait_for(g, ev, breaks(green_ctx_wait_noop));
    return wait_for(breaks(green_wait_primary) ? NULL : g, ev, breaks(green_wait_noop));
}
/* cuStreamGetGreenCtx: the green context a stream was made in, or NULL (the break stream_green_null: NULL for
 * every stream; stream_green_any: the last green context made, for every stream) */
int stream_green(void *s, void **green)
{
    struct mstream *st = resolve(s);
    *green = breaks(stream_green_any) ? last_green
             : breaks(stream_green_null) || !st->ctx || !st->ctx->green ? NULL : st->ctx;
    return 0;
}
void ctx_waits_apply(struct mstream *s)
{
    pthread_mutex_lock(&waits_mu);
    for (int i = 0; i < nwaits; i++)
        if (waits[i].ctx == s->ctx || (!waits[i].ctx && s->ctx && s->ctx->green))
            enqueue(s, ITEM_WAIT, NULL, NULL, waits[i].on, waits[i].target, 0);
    pthread_mutex_unlock(&waits_mu);
}
int device_sync(int dev) { return dev == 0 ? ctx_sync() : SC_UNSUPPORTED; }
