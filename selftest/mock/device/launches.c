/*
 * launches.c - what the mock's kernels and host functions do: the gate, the
 * marking kernel, programmatic dependent launches and events, faults, host
 * functions and stream callbacks.
 *
 * A programmatic dependent launch (launch_pdl) that does not synchronize on its
 * dependencies may overlap a gate right before it in its stream (its primary,
 * which triggers its dependents at its start, as the suite's gate kernel does),
 * as PDL allows: it runs once everything before that gate has completed (after
 * any other item, once that item has); one that synchronizes runs in stream
 * order.
 * A process started with CUDA_LAUNCH_BLOCKING=1 launches its kernels (gate and
 * marking kernel) synchronously: the launch returns once the kernel completed.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdlib.h>
#include <unistd.h>

__thread int in_callback; /* this thread runs a stream callback */

struct gate_args {
    uint32_t *flag;
    uint64_t max_ns;
    struct sc_slot *slot;
    uint32_t token;
    int serial_fd; /* the break mps_serializes: the device lock the gate holds from its launch on, or -1 */
};
static int gate_closed(const void *a) { return !__atomic_load_n(((const struct gate_args *)a)->flag, __ATOMIC_ACQUIRE); }
void run_gate(void *a)
{
    struct gate_args *g = a;
    uint64_t start = sc_now_ns();
    uint32_t status = SC_GATE_RELEASED;
    g->slot->start_ns = start;
    waiting_for(gate_closed, g);
    /* the flag is looked at every 10 us at first, then every sixteenth of the time held so far (at most 1 ms,
     * as the observer samples, observe.c): the release is seen a sixteenth of the hold late at most, which
     * only lengthens the hold, and a 50 ms hold takes about 110 wake-ups instead of 5000 */
    for (uint64_t held; !__atomic_load_n(g->flag, __ATOMIC_ACQUIRE);) {
        if ((held = sc_now_ns() - start) > g->max_ns) {
            status = SC_GATE_EXPIRED;
            break;
        }
        sc_pause_ns(held / 16 < 10000 ? 10000 : held / 16 > 1000000 ? 1000000 : held / 16);
    }
    waiting_over();
    g->slot->end_ns = sc_now_ns();
    g->slot->status = status;
    g->slot->runs++;
    __atomic_store_n(&g->slot->token, g->token, __ATOMIC_RELEASE);
    if (g->serial_fd >= 0)
        close(g->serial_fd); /* mps_serializes: the device is free again */
}
void run_mark(void *a)
{
    struct gate_args *g = a;
    g->slot->start_ns = g->slot->end_ns = sc_now_ns();
    g->slot->runs++;
    __atomic_store_n(&g->slot->token, g->token, __ATOMIC_RELEASE);
}
/* devlaunch_refused: a launching kernel whose device-side cudaGraphLaunch answered cudaErrorInvalidValue (1) */
void run_mark_refused(void *a)
{
    struct gate_args *g = a;
    g->slot->arg = 1u;
    run_mark(a);
}
/* A gate enqueued at pos: it triggers its dependents, so a programmatic launch right after it may overlap it. */
static void trigger_at(void *h, uint64_t pos)
{
    struct mstream *s = resolve(h);
    pthread_mutex_lock(&s->mu);
    s->last_trigger = pos;
    pthread_mutex_unlock(&s->mu);
}

/* a kernel launched at pos (0: into a capture) returns once it completed under CUDA_LAUNCH_BLOCKING=1 */
static void launched(void *s, uint64_t pos)
{
    if (launch_blocking && pos)
        wait_done(resolve(s), pos);
}

/* A kernel of the current context's module, launched into a stream of another context, is refused. */
static int foreign(void *s)
{
    struct mctx *c = resolve(s)->ctx;
    return (c && c->green ? NULL : c) != cur_ctx; /* a green context runs the primary's kernels */
}
/* a launch's own copies of a node's arguments */
void *gate_args_of(const struct sc_node_params *np)
{
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ np->flag, np->max_ns, np->slot, np->token, -1 };
    return g;
}
/* the stream a kernel issued to s runs in: s, or one of its own once the break stream_attr_unordered set s */
static void *kernel_stream(void *s)
{
    return resolve(s)->attr_unordered ? new_stream(KIND_NONBLOCKING) : s;
}

int launch_gate(void *s, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    if (foreign(s))
        return refuse(MOCK_INVALID_HANDLE);
    s = kernel_stream(s);
    struct gate_args *g = malloc(sizeof *g);
    /* a serializing MPS server gives the GPU to the gate from its launch on: nothing runs beside it */
    *g = (struct gate_args){ flag, max_ns, slot, token, device_serial_lock() };
    uint64_t pos = enqueue(s, ITEM_FN, run_gate, g, NULL, 0, 1);
    trigger_at(s, pos);
    launched(s, pos);
    return 0;
}
/* The gate held by a stream wait: to the mock, a gate whose device-side deadline is a minute away. */
int wait_gate(void *s, void *flag, void *slot, uint32_t token)
{
    if (breaks(stream_wait_noop)) /* the stream wait waits for nothing: its stamping kernels run at once */
        return launch_mark(s, slot, token);
    return launch_gate(s, flag, 60000000000u, slot, token);
}
int launch_mark(void *s, void *slot, uint32_t token)
{
    struct mgraph *cap;
    if (breaks(peer_dies) && dies_here())
        _exit(7);
    if (foreign(s))
        return refuse(MOCK_INVALID_HANDLE);
    if (resolve(s)->kind == KIND_LEGACY && (cap = blocking_capture())) { /* invalid: it invalidates the capture */
        cap->invalidated = 1;
        return refuse(MOCK_CAPTURE_IMPLICIT);
    }
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ NULL, 0, slot, token, -1 };
    s = kernel_stream(s);
    launched(s, enqueue(s, ITEM_FN, run_mark, g, NULL, 0, 1));
    return 0;
}
/* A context-independent kernel (cuLibraryGetKernel's CUkernel): "the context to launch the kernel on will
 * either be taken from the specified stream hStream or the current context in case of NULL stream"
 * (cuLaunchKernel), so a stream of another context takes it.  The break library_kernel_current_ctx runs it in
 * the current context's legacy stream instead; library_kernel_unordered on a stream of its own, at once. */
int launch_library(void *s, void *slot, uint32_t token)
{
    struct mstream *st = resolve(s);
    struct mgraph *cap;
    if (breaks(library_kernel_current_ctx) && foreign(s))
        st = cur_ctx ? cur_ctx->legacy : legacy;
    if (breaks(library_kernel_unordered))
        st = new_stream(KIND_NONBLOCKING);
    if (st->kind == KIND_LEGACY && (cap = blocking_capture())) { /* invalid: it invalidates the capture */
        cap->invalidated = 1;
        return refuse(MOCK_CAPTURE_IMPLICIT);
    }
    struct gate_args *g = malloc(sizeof *g);
    *g = (struct gate_args){ NULL, 0, slot, token, -1 };
    launched(st, enqueue(st, ITEM_FN, run_mark, g, NULL, 0, 1));
    return 0;
}

/* A programmatic dependent launch that runs early: on a thread of its own once the items before its
 * primary are done; its place in the stream (run_pdl_join) completes when it did. */
struct pdl_args {
    struct gate_args g;
    struct mstream *on;
    uint64_t before;                 /* items of the stream it waits for */
    int ran;                         /* it has written its token (its last touch of this struct) */
    const uint32_t *primary_token;   /* read into its slot's arg when it runs, as sc_pdl does */
};
static void read_primary(struct pdl_args *d)
{
    if (d->primary_token)
        d->g.slot->arg = __atomic_load_n(d->primary_token, __ATOMIC_ACQUIRE);
}
/* In order (it synchronizes on its dependency): reads its primary's token, then marks. */
static void run_pdl_in_order(void *a)
{
    struct pdl_args *d = a;
    read_primary(d);
    run_mark(&d->g);
}
static void *run_pdl_early(void *a)
{
    struct pdl_args *d = a;
    wait_done(d->on, d->before);
    read_primary(d);
    d->g.slot->start_ns = d->g.slot->end_ns = sc_now_ns();
    __atomic_store_n(&d->g.slot->token, d->g.token, __ATOMIC_RELEASE);
    __atomic_store_n(&d->ran, 1, __ATOMIC_RELEASE);
    off_stream_ends();
    return NULL;
}
static void run_pdl_join(void *arg);
/* A programmatic launch that ran early: its place in the stream completes with the item before it, as a
 * GPU's stream is idle once its primary retired (no lag the stream's queries could see). */
int early_done(const struct item *it)
{
    return it->type == ITEM_FN && it->fn == run_pdl_join && __atomic_load_n(&((struct pdl_args *)it->arg)->ran, __ATOMIC_ACQUIRE);
}
static int pdl_not_run(const void *a) { return !__atomic_load_n(&((const struct pdl_args *)a)->ran, __ATOMIC_ACQUIRE); }
static void run_pdl_join(void *a)
{
    struct pdl_args *d = a;
    waiting_for(pdl_not_run, d);
    while (!__atomic_load_n(&d->ran, __ATOMIC_ACQUIRE))
        sc_pause_ns(10000);
    waiting_over();
    free(d);
}
int launch_pdl(void *s, void *slot, uint32_t token, int sync, const void *primary_token)
{
    struct pdl_args *d = malloc(sizeof *d);
    pthread_t thread;
    *d = (struct pdl_args){ { NULL, 0, slot, token, -1 }, resolve(s), 0, 0, primary_token };
    if (sync && !breaks(pdl)) {
        if (foreign(s)) {
            free(d);
            return refuse(MOCK_INVALID_HANDLE);
        }
        enqueue(s, ITEM_FN, run_pdl_in_order, d, NULL, 0, 1);
        return 0;
    }
    /* its place first: the waits a legacy or blocking stream puts before it are not gates to overlap */
    uint64_t pos = enqueue(s, ITEM_FN, run_pdl_join, d, NULL, 0, 0); /* run_pdl_join frees d */
    pthread_mutex_lock(&d->on->mu);
    d->before = pos - 1 - (pos > 1 && (d->on->last_trigger == pos - 1 || breaks(pdl_overlap))); /* all but its primary */
    pthread_mutex_unlock(&d->on->mu);
    off_stream_begins();
    if (pthread_create(&thread, NULL, run_pdl_early, d) == 0)
        pthread_detach(thread);
    else
        off_stream_ends();
    return 0;
}

/* a marked kernel or a gate whose launch records a programmatic event.  The marked kernel's blocks
 * trigger nothing, so the event triggers as the kernel ends, as an event recorded right after it; the gate
 * triggers its dependents at its start, so the event triggers as it starts, as one recorded right before it. */
int launch_progevent(void *s, void *e, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    int rc;
    if (breaks(progevent_early))
        event_record(e, new_stream(KIND_NONBLOCKING));
    else if (flag && (rc = event_record(e, s)))
        return rc;
    if ((rc = flag ? launch_gate(s, flag, max_ns, slot, token) : launch_mark(s, slot, token)))
        return rc;
    return flag || breaks(progevent_early) ? 0 : event_record(e, s);
}

/* Launch attributes change nothing the mock models.  Each break below runs a kernel launched with its
 * attribute at once, on a stream of its own, outside its stream's order. */
static int attr_broken(int attr)
{
    switch (attr) {
    case SC_LAUNCH_REMOTE_DOMAIN: return breaks(remote_unordered);
    case SC_LAUNCH_PRIORITY: return breaks(prio_overtakes);
    case SC_LAUNCH_ACCESS_POLICY: return breaks(policy_unordered);
    case SC_LAUNCH_COOPERATIVE:
    case SC_LAUNCH_COOPERATIVE_KERNEL: return breaks(coop_unordered);
    case SC_LAUNCH_CLUSTER: return breaks(cluster_unordered);
    case SC_LAUNCH_DOMAIN_MAP: return breaks(domain_map_unordered);
    default: return 0;
    }
}
/* the quirk pre_hopper refuses the attributes of compute capability 9.0 as unsupported (the point skips) */
int launch_attr(void *s, int attr, void *flag, uint64_t max_ns, void *slot, uint32_t token)
{
    if (attr < SC_LAUNCH_REMOTE_DOMAIN || attr > SC_LAUNCH_DOMAIN_MAP)
        return refuse(1);
    if ((attr == SC_LAUNCH_REMOTE_DOMAIN || attr == SC_LAUNCH_CLUSTER || attr == SC_LAUNCH_DOMAIN_MAP) &&
        quirks(pre_hopper))
        return SC_UNSUPPORTED;
    if (attr_broken(attr))
        s = new_stream(KIND_NONBLOCKING);
    return flag ? launch_gate(s, flag, max_ns, slot, token) : launch_mark(s, slot, token);
}

/* cuStreamSetAttribute: nothing the mock models (the break stream_attr_unordered: the stream's later kernels run
 * at once, each on a stream of its own; the quirk pre_hopper: a domain or its map is unsupported) */
int stream_attr(void *s, int attr, void *window)
{
    (void)window;
    if (attr < SC_STREAM_ACCESS_POLICY || attr > SC_STREAM_DOMAIN_MAP || foreign(s))
        return refuse(1);
    if (attr != SC_STREAM_ACCESS_POLICY && quirks(pre_hopper))
        return SC_UNSUPPORTED;
    if (breaks(stream_attr_unordered))
        resolve(s)->attr_unordered = 1;
    return 0;
}
static const int fault_codes[] = { MOCK_ILLEGAL_ADDRESS, MOCK_ASSERT, MOCK_LAUNCH_FAILED }; /* by sc_fault_kind */
static void run_fault(void *code)
{
    __atomic_store_n(&sticky, *(const int *)code, __ATOMIC_RELEASE);
}
int launch_fault(void *s, int how)
{
    if (how < 0 || how > 2)
        return refuse(1);
    uint64_t pos = enqueue(s, ITEM_FN, run_fault, (void *)&fault_codes[how], NULL, 0, 0);
    if (!quirks(fault_at_launch))
        return 0;
    wait_done(resolve(s), pos);
    return context_error();
}

int host_func(void *s, void (*fn)(void *), void *arg)
{
    if (quirks(fault_at_launch) && context_error())
        return context_error(); /* the launch answers the context's error */
    if (breaks(host_func)) {
        fn(arg);
        return 0;
    }
    callers_fn_add(fn);
    enqueue(s, ITEM_FN, fn, arg, NULL, 0, 0);
    return 0;
}
void run_callback(void *arg) /* with the context's error, if any */
{
    const struct sc_callback *cb = arg;
    in_callback = 1;
    cb->body(cb->arg, context_error());
    in_callback = 0;
}
int callback(void *s, const struct sc_callback *cb)
{
    if (resolve(s)->capture) /* not supported in stream capture, unlike host functions */
        return refuse(1);
    if (breaks(callback_twice)) /* broken: called once more */
        host_func(s, run_callback, (void *)cb);
    return host_func(s, run_callback, (void *)cb);
}
/* a launch with more threads per block than a device allows is refused (invalid value); the break
 * launch_unchecked runs it as any launch */
int launch_invalid(void *s, void *slot, uint32_t token)
{
    return breaks(launch_unchecked) ? launch_mark(s, slot, token) : refuse(1);
}
