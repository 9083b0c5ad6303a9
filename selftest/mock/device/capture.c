/*
 * capture.c - stream capture, and launches of the graphs kept from it.
 *
 * Stream capture records work into a list of nodes; a graph kept from it runs
 * them in the order they were captured (a legal, if serial, graph: capture
 * order respects every dependency), behind the launch stream's earlier work
 * and the graph's previous launch.  Streams join a capture by waiting on an
 * event recorded in it; a stream callback is refused there.  Each stream of a
 * capture keeps a vector clock of the capture's streams (the nodes of each it
 * depends on): a capture's end on its origin answers the unjoined-fork error
 * unless the origin's clock covers every member's, and an end on a member
 * that did not begin it the unmatched error; an event last recorded in a
 * capture answers the captured-event error to a query or synchronize.  While
 * a blocking stream captures, a kernel launched into the legacy stream, and
 * the question whether the legacy stream captures, answer the
 * implicit-dependency error; the kernel also invalidates that capture (its
 * status says so, and its end answers the invalidated error).  A capture into
 * a graph built by hand (cuStreamBeginCaptureToGraph) records the same way; at
 * its end what it recorded becomes one node of that graph, after the node it
 * was given, and the end gives that graph back.  Not modelled: capture modes,
 * other invalid calls, other work on the legacy stream.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdlib.h>
#include <string.h>

int graph_create(void **g, int gate) { (void)g, (void)gate; return SC_UNSUPPORTED; }
int graph_launch(void *g, void *s, void **args) { (void)g, (void)s, (void)args; return SC_UNSUPPORTED; }
int graph_destroy(void *g)
{
    struct mgraph *gr = g;
    for (struct item *it = gr->head, *next; it; it = next) {
        next = it->next;
        if (it->owned)
            free(it->arg);
        free(it);
    }
    /* child clones and executable nodes are kept, as streams are (a launch may still read them) */
    free(gr->built ? NULL : gr);
    return 0;
}
/* Stream st joins capture cap (the caller holds the registry lock): its clock starts empty. */
void join_capture(struct mgraph *cap, struct mstream *st)
{
    if (cap->nmembers == MOCK_CAPTURE_STREAMS)
        abort(); /* no program has that many streams in one capture */
    st->capture = cap;
    st->cap_index = cap->nmembers;
    cap->members[cap->nmembers++] = st;
    memset(st->clock, 0, sizeof st->clock);
    st->cap_nodes = 0;
}
/* a capture begun on s, into graph into (built by hand) after its node dep, or into a graph of its own (into NULL) */
static int begin_capture(void *s, struct mgraph *into, struct mnode *dep)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    if (st != legacy && st->capture && breaks(capture_begin_twice)) { /* broken: accepted, the capture goes on */
        pthread_mutex_unlock(&registry);
        return 0;
    }
    int rc = st == legacy || st->capture || (into && (!into->built || into->capturing)) ? refuse(1) : 0;
    if (rc == 0) {
        static uint64_t ids;
        struct mgraph *cap = calloc(1, sizeof *cap);
        cap->id = breaks(capture_id_reused) ? 1 : ++ids;
        cap->origin = st;
        cap->into = into, cap->into_dep = dep;
        if (into)
            into->capturing = 1;
        join_capture(cap, st);
    }
    pthread_mutex_unlock(&registry);
    return rc;
}
int capture_begin(void *s, int mode)
{
    (void)mode; /* modes are not modelled */
    return begin_capture(s, NULL, NULL);
}
/* cuStreamBeginCaptureToGraph: what the capture records becomes one node of g at its end (captured_into) */
int capture_to(void *s, void *g, void *dep, int mode)
{
    struct mgraph *gr = g;
    struct mnode *d = dep;
    (void)mode;
    if (quirks(no_capture_to))
        return SC_UNSUPPORTED; /* the point skips */
    if (d && (d < gr->nodes || d >= gr->nodes + gr->nnodes))
        return refuse(1); /* not a node of the graph */
    if (resolve(s) == legacy && breaks(capture_to_legacy))
        return 0;
    return begin_capture(s, gr, d);
}
/* A capture into a graph built by hand ended: what it recorded is a node of that graph (the registry lock held),
 * after the node it was given (none: after none of the graph's nodes). */
static void captured_into(struct mgraph *cap)
{
    struct mgraph *g = cap->into;
    g->capturing = 0;
    if (breaks(capture_to_replaces)) /* the nodes it had are gone */
        g->nnodes = 0;
    if (g->nnodes == MOCK_NODES)
        abort(); /* no program adds that many nodes */
    struct mnode *n = &g->nodes[g->nnodes++];
    memset(n, 0, sizeof *n);
    n->np.kind = MOCK_NODE_CAPTURED;
    n->child = cap;
    if (cap->into_dep && !breaks(capture_to_deps_ignored) && !breaks(capture_to_replaces))
        n->deps[n->ndeps++] = (int)(cap->into_dep - g->nodes);
    for (int k = 0; !cap->into_dep && breaks(capture_to_waits_existing) && k < g->nnodes - 1; k++)
        if (n->ndeps < MOCK_DEPS)
            n->deps[n->ndeps++] = k;
}
/* Does the origin's next node follow every node of every member (every fork joined back)? */
static int joined(const struct mgraph *cap)
{
    for (int m = 0; m < cap->nmembers; m++)
        for (int k = 0; k < cap->nmembers; k++)
            if (cap->members[m]->clock[k] > cap->origin->clock[k])
                return 0;
    return 1;
}
/* Ends the capture begun on s: every stream that joined it leaves it.  NULL: s began none (*rc says
 * why: it captures none, or another stream began its capture); a fork not joined back ends it too,
 * with *rc the unjoined error and its graph destroyed. */
static struct mgraph *end_capture(void *s, int *rc)
{
    struct mstream *st = resolve(s);
    int wrong_code = breaks(capture_codes);
    pthread_mutex_lock(&registry);
    struct mgraph *cap = st->capture && st->capture->origin == st ? st->capture : NULL;
    *rc = cap ? 0 : st->capture && !wrong_code ? MOCK_CAPTURE_UNMATCHED : 1;
    if (cap && !joined(cap))
        *rc = wrong_code ? 1 : MOCK_CAPTURE_UNJOINED;
    if (cap && cap->invalidated)
        *rc = MOCK_CAPTURE_INVALIDATED;
    for (struct mstream *o = all_list; cap && o; o = o->next_all)
        if (o->capture == cap)
            o->capture = NULL;
    if (cap)
        cap->origin = NULL; /* a record of it is no longer a point to join */
    if (cap && cap->into && *rc)
        cap->into->capturing = 0;
    else if (cap && cap->into)
        captured_into(cap);
    pthread_mutex_unlock(&registry);
    if (cap && *rc) {
        graph_destroy(cap);
        cap = NULL;
    }
    if (*rc)
        refuse(*rc);
    return cap;
}
int capture_end(void *s)
{
    int rc;
    struct mgraph *cap = end_capture(s, &rc);
    return cap && !cap->into ? graph_destroy(cap) : rc; /* a capture into a graph is a node of it now */
}
/* the graph the end gives back: the one a capture into a graph was given (capture_end_new_graph: a new one) */
int capture_end_to(void *s, void *g, int *same)
{
    int rc;
    struct mgraph *cap = end_capture(s, &rc);
    *same = cap && cap->into == g && !breaks(capture_end_new_graph);
    if (cap && !cap->into)
        graph_destroy(cap);
    return rc;
}
int capture_keep(void *s, void **graph)
{
    int rc;
    struct mgraph *cap = end_capture(s, &rc);
    if (cap)
        *graph = cap;
    return rc;
}
/* the capture of a blocking stream (of the current context) under way, if any */
struct mgraph *blocking_capture(void)
{
    struct mgraph *cap = NULL;
    pthread_mutex_lock(&registry);
    for (struct mstream *b = blocking_list; b && !cap; b = b->next_blocking)
        if (b->capture && b->ctx == cur_ctx)
            cap = b->capture;
    pthread_mutex_unlock(&registry);
    return cap;
}
/* an item onto stream on: pushed (the registry lock held) or enqueued */
static uint64_t put(struct mstream *on, int locked, int type, void (*fn)(void *), void *arg, struct mstream *w,
                    uint64_t target)
{
    return locked ? push(on, type, fn, arg, w, target, 0) : enqueue(on, type, fn, arg, w, target, 0);
}
/* One captured item as a launch runs it on stream on (locked: the registry lock held), after pos; returns the
 * position of its last item there (pos: it enqueued none). */
uint64_t replay_item(struct mstream *on, const struct item *it, int locked, uint64_t pos)
{
    struct mevent *ev = it->arg;
    if (it->type == ITEM_RECORD_EXTERNAL && !breaks(external)) { /* each launch records the event */
        pos = put(on, locked, ITEM_FN, run_record, ev, NULL, 0);
        ev->capture = NULL, ev->stream = on, ev->target = pos;
    } else if (it->type == ITEM_WAIT_EXTERNAL && !breaks(external)) { /* ... waits on it as it is now */
        if (ev->stream)
            pos = put(on, locked, ITEM_WAIT, NULL, NULL, ev->stream, ev->target);
    } else if (it->type == ITEM_FN || it->type == ITEM_WAIT)
        pos = put(on, locked, it->type, it->fn, it->arg, it->on, it->target);
    return pos;
}
int graph_replay(void *g, void *s)
{
    struct mgraph *gr = g;
    if (gr->built)
        return launch_built(gr, s);
    struct mstream *st = breaks(replay) ? NULL : resolve(s);
    uint64_t pos = 0;
    if (breaks(replay_once) && gr->launched++)
        return 0;
    if (st && gr->last) /* behind its previous launch */
        pos = enqueue(st, ITEM_WAIT, NULL, NULL, gr->last, gr->last_pos, 0);
    for (struct item *it = gr->head; it; it = it->next)
        pos = replay_item(st ? st : new_stream(KIND_NONBLOCKING), it, 0, pos);
    if (st && pos)
        gr->last = st, gr->last_pos = pos;
    return 0;
}
int capture_status(void *s, int *status)
{
    struct mstream *st = resolve(s);
    struct mgraph *cap;
    if (st->kind == KIND_LEGACY && (cap = blocking_capture())) { /* documented: implicit, status unspecified */
        if (breaks(legacy_query_invalidates))
            cap->invalidated = 1;
        *status = SC_CAPTURE_NONE;
        return refuse(MOCK_CAPTURE_IMPLICIT);
    }
    pthread_mutex_lock(&registry);
    *status = !st->capture || (st->capture->into && breaks(capture_to_inactive)) ? SC_CAPTURE_NONE
              : st->capture->invalidated                                         ? SC_CAPTURE_INVALIDATED
                                                                                 : SC_CAPTURE_ACTIVE;
    pthread_mutex_unlock(&registry);
    return 0;
}
int thread_capture_relaxed(void) { return 0; }

/* ---- a capture's introspection and editing ----------------------------------------------------- */

/* A node captured in s (the registry lock held): the next node of s follows it. */
void capture_node(struct mgraph *cap, struct mstream *s)
{
    uint32_t n = ++s->cap_nodes;
    s->clock[s->cap_index] = n;
    if (n <= MOCK_SNAPS)
        memcpy(cap->snap[s->cap_index][n - 1], s->clock, sizeof s->clock);
}
/* The size of the dependency set of s: the last node it follows of each member, unless another of those
 * nodes followed that one (the registry lock held). */
static size_t dependencies(const struct mgraph *cap, const struct mstream *s)
{
    size_t n = 0;
    for (int k = 0; k < cap->nmembers; k++) {
        int redundant = 0;
        for (int j = 0; j < cap->nmembers && s->clock[k] && !redundant; j++)
            redundant = j != k && s->clock[j] && s->clock[j] <= MOCK_SNAPS && cap->snap[j][s->clock[j] - 1][k] >= s->clock[k];
        n += s->clock[k] && !redundant;
    }
    return n;
}
/* cuStreamGetCaptureInfo (the breaks capture_id_per_call, capture_deps_stale) */
int capture_info(void *s, int *status, uint64_t *id, size_t *ndeps)
{
    static uint64_t calls;
    int rc = capture_status(s, status);
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    *id = 0, *ndeps = 0;
    if (rc == 0 && *status == SC_CAPTURE_ACTIVE) {
        *id = breaks(capture_id_per_call) ? 1000 + ++calls : st->capture->id;
        *ndeps = breaks(capture_deps_stale) ? 0 : dependencies(st->capture, st);
    }
    pthread_mutex_unlock(&registry);
    return rc;
}
/* the next node captured in s depends on nothing (the break sever_ignored: success, and the set as it was); a
 * stream that is not capturing: CUDA_ERROR_ILLEGAL_STATE (the break sever_outside_capture: success) */
int capture_sever(void *s)
{
    struct mstream *st = resolve(s);
    pthread_mutex_lock(&registry);
    int capturing = st->capture != NULL;
    if (capturing && !breaks(sever_ignored))
        memset(st->clock, 0, sizeof st->clock);
    pthread_mutex_unlock(&registry);
    return capturing || breaks(sever_outside_capture) ? 0 : refuse(MOCK_ILLEGAL_STATE);
}
/* Does a stream of context c capture?  Each such capture is invalidated (the break ctx_event_capture_kept: left
 * valid); cuCtxRecordEvent and cuCtxWaitEvent ask it before they act. */
int ctx_capturing_invalidate(struct mctx *c)
{
    int n = 0;
    pthread_mutex_lock(&registry);
    for (struct mstream *s = all_list; s; s = s->next_all)
        if (s->ctx == c && s->capture) {
            n++;
            if (!breaks(ctx_event_capture_kept) && !breaks(ctx_event_in_capture))
                s->capture->invalidated = 1;
        }
    pthread_mutex_unlock(&registry);
    return n;
}
