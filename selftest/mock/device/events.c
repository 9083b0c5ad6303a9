/*
 * events.c - the mock's events: record, wait, query, synchronize, elapsed time,
 * external event nodes of a capture, and interprocess events (their state in
 * shared memory, mock.h).
 *
 * A thread waiting in event_sync sleeps on a blocking-sync event and spins
 * on any other, as CUDA's default scheduling does with cores to spare.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int event_create(void **e, unsigned flags)
{
    struct mevent *ev = calloc(1, sizeof *ev);
    ev->flags = flags;
    ev->ctx = cur_ctx;
    ev->ipc_fd = -1;
    if (flags & SC_EV_INTERPROCESS) { /* its state in shared memory */
        if ((ev->ipc_fd = memfd_create("streamcts-mock-ipc-event", MFD_CLOEXEC)) < 0 ||
            ftruncate(ev->ipc_fd, 4096) || !(ev->ipc = shared_map(ev->ipc_fd, 4096))) {
            if (ev->ipc_fd >= 0)
                close(ev->ipc_fd);
            free(ev);
            return 2; /* out of memory */
        }
    }
    *e = ev;
    return 0;
}
int event_destroy(void *e)
{
    struct mevent *ev = e; /* waits keep their own snapshot; the event memory is kept */
    if (ev->ipc_fd >= 0) { /* the processes that opened it mapped it already */
        close(ev->ipc_fd);
        ev->ipc_fd = -1;
    }
    return 0;
}
void run_record(void *e) { ((struct mevent *)e)->ns = sc_now_ns(); }
/* record number seq of an interprocess event completes */
struct mipc_step {
    struct mipc *ipc;
    uint64_t seq;
};
static void run_record_ipc(void *a)
{
    struct mipc_step *st = a;
    uint64_t was = __atomic_load_n(&st->ipc->completed, __ATOMIC_ACQUIRE);
    while (was < st->seq && !__atomic_compare_exchange_n(&st->ipc->completed, &was, st->seq, 0, __ATOMIC_ACQ_REL,
                                                          __ATOMIC_ACQUIRE))
        ;
}
int ipc_pending(const void *a)
{
    const struct mipc_step *st = a;
    return __atomic_load_n(&st->ipc->completed, __ATOMIC_ACQUIRE) < st->seq;
}
/* a stream waits until record seq completed, in whichever process (for at most MOCK_IPC_WAIT_NS) */
static void run_wait_ipc(void *a)
{
    struct mipc_step *st = a;
    uint64_t end = sc_now_ns() + MOCK_IPC_WAIT_NS;
    waiting_for(ipc_pending, st);
    while (__atomic_load_n(&st->ipc->completed, __ATOMIC_ACQUIRE) < st->seq && sc_now_ns() < end)
        sc_pause_ns(10000);
    waiting_over();
}
int event_record(void *e, void *s)
{
    struct mevent *ev = e;
    ev->tracking = 0; /* a record of its stream's (a context's record of the break sets it after) */
    struct mctx *c = resolve(s)->ctx;
    /* documented: hEvent and hStream must be from the same context; a green context's stream is its primary
     * context's (cuStreamGetCtx gives the context cuCtxFromGreenCtx converts it to, "a normal primary context") */
    if (c != ev->ctx && !(c && c->green && !ev->ctx))
        return refuse(MOCK_INVALID_HANDLE);
    if (ev->ipc) { /* the next record of every process's */
        struct mipc_step *st = malloc(sizeof *st);
        st->ipc = ev->ipc;
        st->seq = __atomic_add_fetch(&ev->ipc->recorded, 1, __ATOMIC_ACQ_REL);
        ev->target = enqueue(s, ITEM_FN, run_record_ipc, st, NULL, 0, 1);
        ev->stream = resolve(s);
        return 0;
    }
    struct mgraph *cap = resolve(s)->capture;
    uint64_t pos = enqueue(s, ITEM_FN, run_record, ev, NULL, 0, 0);
    if (cap) { /* what a wait on it will follow: its stream's clock, this record's node included */
        pthread_mutex_lock(&registry);
        memcpy(ev->clock, resolve(s)->clock, sizeof ev->clock);
        ev->cap_index = resolve(s)->cap_index;
        pthread_mutex_unlock(&registry);
    }
    ev->capture = cap;
    ev->stream = cap ? NULL : resolve(s); /* a captured record marks a point of the capture only */
    ev->target = pos;
    return 0;
}
/* an external event node (ITEM_RECORD_EXTERNAL, ITEM_WAIT_EXTERNAL) of the capture of s; outside a
 * capture the flag is invalid */
static int external_node(void *s, int type, struct mevent *ev)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    struct mgraph *cap = st->capture;
    if (cap) {
        struct item *it = calloc(1, sizeof *it);
        *it = (struct item){ type, NULL, ev, NULL, 0, 0, NULL };
        if (cap->tail)
            cap->tail->next = it;
        else
            cap->head = it;
        cap->tail = it;
        capture_node(cap, st);
    }
    pthread_mutex_unlock(&registry);
    if (!cap && breaks(external)) /* broken: a plain record or wait */
        return type == ITEM_RECORD_EXTERNAL ? event_record(ev, s) : stream_wait_event(s, ev, 0);
    return cap ? 0 : refuse(1); /* invalid value */
}
int event_record_external(void *e, void *s) { return external_node(s, ITEM_RECORD_EXTERNAL, e); }
int stream_wait_event(void *s, void *e, unsigned flags)
{
    struct mevent *ev = e;
    if (flags == SC_WAIT_EXTERNAL)
        return external_node(s, ITEM_WAIT_EXTERNAL, ev);
    if (flags)
        return refuse(1); /* invalid value */
    if (ev->ipc) { /* the records made so far, whichever process made them */
        uint64_t seq = __atomic_load_n(&ev->ipc->recorded, __ATOMIC_ACQUIRE);
        if (seq && !breaks(wait)) {
            struct mipc_step *w = malloc(sizeof *w);
            *w = (struct mipc_step){ ev->ipc, seq };
            enqueue(s, ITEM_FN, run_wait_ipc, w, NULL, 0, 1);
        }
        return 0;
    }
    struct mstream *st = resolve(s); /* before the lock: a per-thread stream may be made here */
    pthread_mutex_lock(&registry);
    if (ev->capture && ev->capture->origin && !st->capture)
        join_capture(ev->capture, st); /* it joins the capture */
    if (ev->capture && st->capture == ev->capture) /* its next node follows what the record followed */
        for (int k = 0; k < MOCK_CAPTURE_STREAMS; k++)
            if (!breaks(join_direct) || k == ev->cap_index) /* broken: not what the recorder followed */
                st->clock[k] = st->clock[k] > ev->clock[k] ? st->clock[k] : ev->clock[k];
    pthread_mutex_unlock(&registry);
    if (ev->stream && !breaks(wait))
        enqueue(s, ITEM_WAIT, NULL, NULL, ev->stream, ev->target, 0);
    return 0;
}
/* An event last recorded in a capture: its query and synchronize are refused. */
static int captured_event(const struct mevent *ev)
{
    return ev->capture ? breaks(capture_codes) ? refuse(1) : refuse(MOCK_CAPTURED_EVENT) : 0;
}
int event_sync(void *e)
{
    struct mevent *ev = e;
    if (ev->ipc) { /* spins until the records made so far completed (at most MOCK_IPC_WAIT_NS) */
        uint64_t seq = __atomic_load_n(&ev->ipc->recorded, __ATOMIC_ACQUIRE), end = sc_now_ns() + MOCK_IPC_WAIT_NS;
        while (__atomic_load_n(&ev->ipc->completed, __ATOMIC_ACQUIRE) < seq && sc_now_ns() < end)
            ;
        release_at_sync();
        return context_error();
    }
    if (ev->capture)
        return captured_event(ev);
    if (ev->stream && (ev->flags & SC_EV_BLOCKING_SYNC))
        wait_done(ev->stream, ev->target);
    else if (ev->stream) /* spins, as a CUDA thread waits by default on a machine with cores to spare */
        while (__atomic_load_n(&ev->stream->done, __ATOMIC_ACQUIRE) < ev->target)
            ;
    release_at_sync();
    flush_managed();
    return context_error();
}
int event_query(void *e)
{
    struct mevent *ev = e;
    int err = context_error();
    if (!err && ev->ipc)
        return __atomic_load_n(&ev->ipc->completed, __ATOMIC_ACQUIRE) >=
                       __atomic_load_n(&ev->ipc->recorded, __ATOMIC_ACQUIRE) ? 0 : SC_NOT_READY;
    if (!err && ev->capture)
        return captured_event(ev);
    if (!err && ev->tracking && ctx_busy_now(ev->tracks))
        return not_ready();
    return err ? err : !ev->stream || done_of(ev->stream) >= ev->target ? 0 : not_ready();
}
int event_elapsed(float *ms, void *start, void *end)
{
    struct mevent *a = start, *b = end;
    if (!a->stream || !b->stream)
        return refuse(MOCK_INVALID_HANDLE); /* documented: either event never recorded */
    if (event_query(a) || event_query(b))
        return SC_NOT_READY;
    *ms = (float)(((double)b->ns - (double)a->ns) / 1e6); /* negative when the end completed first */
    return 0;
}
