/*
 * graphs.c - graphs built by hand: nodes, edges, instantiation, updates and
 * launches (executable graphs edited between launches: graph_edit.c; graphs
 * launched from the device: graph_devlaunch.c).
 *
 * Graph memory nodes: an allocation node sets its memory aside when a launch runs it and no
 * node frees it, so a relaunch is refused with the invalid-value error unless the graph was instantiated
 * with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH; an instantiation of a graph whose edges make a
 * cycle is refused (result_out CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE).  A graph a stream captures into
 * (cuStreamBeginCaptureToGraph) takes nodes added by hand meanwhile and refuses to be instantiated until the
 * capture ends; what the capture recorded is then one node of it (MOCK_NODE_CAPTURED, capture.c).
 * A free node frees the allocation of an allocation node (of its own graph or another): a launch of the
 * allocating graph that holds a free node of it leaves nothing unfreed, and a launch of another graph that
 * holds one frees what the allocating graph's last launch left.  A free node is refused (invalid value) for an
 * allocation a free node of the same graph frees already, and for one a free node of another graph frees.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdlib.h>
#include <string.h>

/* ---- graphs built by hand --------------------------------------------
 * A launch runs each node on a stream of its own, after the launch stream's
 * earlier work (and the graph's previous launch) and after the nodes its
 * edges come from; the launch stream's later work waits for every node.  So
 * nodes no edge orders run concurrently, as on a GPU. */
int graph_new(void **g)
{
    struct mgraph *gr = calloc(1, sizeof *gr);
    gr->built = 1;
    *g = gr;
    return 0;
}
struct mgraph *clone_graph(const struct mgraph *from)
{
    struct mgraph *gr = malloc(sizeof *gr);
    *gr = *from;
    gr->exec = NULL;
    gr->pending = NULL;
    for (int k = 0; k < gr->nnodes; k++) {
        if (gr->nodes[k].child)
            gr->nodes[k].child = clone_graph(gr->nodes[k].child);
        if (gr->nodes[k].child2)
            gr->nodes[k].child2 = clone_graph(gr->nodes[k].child2);
    }
    return gr;
}

/* ---- conditional nodes ----------------------------------------------------------------------------------
 * A handle is a value of its graph, set to its default at the start of each launch of the graph where it was
 * made with CU_GRAPH_COND_ASSIGN_DEFAULT (cond_default_once: at the first launch only).  The node that sets it
 * (MOCK_COND_SET, before the conditional node) and a body's tail (MOCK_COND_CLEAR, MOCK_COND_COUNT) are nodes
 * of the mock's own kinds.  A conditional node is one item of its launch: as it runs, it reads the value and
 * runs the body it selects, node by node in the order of their edges, on its own stream's thread, so that
 * the nodes after it wait for the body (cond_body_async: the body runs on a thread of its own, waited for by
 * nothing). */
enum { MOCK_COND_SET = 100, MOCK_COND_CLEAR, MOCK_COND_COUNT };
struct mcond {
    unsigned value, dflt;
    int assign;
    int applied; /* launches that applied the default */
};
struct cond_run {
    struct mlaunch *launch;
    struct mnode nd; /* the conditional node, or a node that sets or counts its handle */
};

/* a body of a conditional node: a clone of graph g; body 0 ends with the tail np asks for */
static struct mgraph *cond_body(struct mgraph *g, const struct sc_node_params *np, struct mcond *c, int first)
{
    struct mgraph *b = calloc(1, sizeof *b);
    b->built = 1;
    b->nodes[b->nnodes++].child = clone_graph(g);
    if (first && np->cond_tail) {
        struct mnode *t = &b->nodes[b->nnodes++];
        t->np = *np;
        t->np.kind = np->cond_tail == SC_COND_TAIL_CLEAR ? MOCK_COND_CLEAR : MOCK_COND_COUNT;
        t->cond = c;
        t->deps[t->ndeps++] = 0;
    }
    return b;
}

/* cuGraphConditionalHandleCreate, the node that sets the handle (if any), cuGraphAddNode of the conditional node */
static int cond_add(struct mgraph *gr, const struct sc_node_params *np, void **node)
{
    if (quirks(no_conditional))
        return SC_UNSUPPORTED; /* the point skips */
    if (gr->nnodes + 2 > MOCK_NODES || gr->nconds == MOCK_NODES || !((struct mgraph *)np->child)->built ||
        (np->cond_size == 2) != (np->child2 != NULL) || np->cond_size < 1 || np->cond_size > 2 ||
        (np->cond_type == SC_COND_TYPE_WHILE && np->cond_size != 1))
        return refuse(1);
    struct mcond *c = calloc(1, sizeof *c);
    int setter = -1;
    c->value = c->dflt = np->cond_default;
    c->assign = np->cond_assign;
    gr->conds[gr->nconds++] = c;
    if (np->cond_set >= 0) {
        struct mnode *sn = &gr->nodes[setter = gr->nnodes++];
        memset(sn, 0, sizeof *sn);
        sn->np = *np;
        sn->np.kind = MOCK_COND_SET;
        sn->cond = c;
    }
    struct mnode *n = &gr->nodes[gr->nnodes++];
    memset(n, 0, sizeof *n);
    n->np = *np;
    n->cond = c;
    n->child = cond_body(np->child, np, c, 1);
    n->child2 = np->cond_size == 2 ? cond_body(np->child2, np, c, 0) : NULL;
    if (setter >= 0)
        n->deps[n->ndeps++] = setter;
    *node = n;
    return 0;
}

static void run_cond(void *a);
/* one node of a body, run by the thread that runs the conditional node */
static void run_inline(struct mnode *nd, struct mlaunch *l)
{
    void *args;
    switch (nd->np.kind) {
    case 0: {
        struct mgraph *b = nd->child;
        int done[MOCK_NODES] = { 0 };
        for (int left = b->nnodes; left > 0; left--) { /* in the order of the edges */
            int k = 0;
            for (; k < b->nnodes; k++) {
                int ready = !done[k];
                for (int j = 0; j < b->nodes[k].ndeps && ready; j++)
                    ready = done[b->nodes[k].deps[j]];
                if (ready)
                    break;
            }
            if (k == b->nnodes)
                return;
            run_inline(&b->nodes[k], l);
            done[k] = 1;
        }
        return;
    }
    case SC_NODE_GATE: args = gate_args_of(&nd->np); run_gate(args); free(args); return;
    case SC_NODE_KERNEL: args = gate_args_of(&nd->np); run_mark(args); free(args); return;
    case SC_NODE_MEMSET:
    case SC_NODE_MEMCPY: /* the break cond_body_data_skipped: a body's memset and memcpy nodes do nothing */
        if (breaks(cond_body_data_skipped))
            return;
        args = copy_args_of(&nd->np); run_copy(args); free(args); return;
    case SC_NODE_HOST: nd->np.fn(nd->np.arg); return; /* not allowed in a body: a GPU refuses to instantiate it */
    case SC_NODE_COND:
    case MOCK_COND_SET:
    case MOCK_COND_CLEAR:
    case MOCK_COND_COUNT: {
        struct cond_run *cr = malloc(sizeof *cr);
        *cr = (struct cond_run){ l, *nd };
        run_cond(cr);
        return;
    }
    default: return; /* record, wait and allocation nodes: not allowed in a body */
    }
}
static void *body_thread(void *a)
{
    struct cond_run *cr = a;
    run_inline(&cr->nd, cr->launch);
    free(cr);
    off_stream_ends();
    return NULL;
}
/* runs body b of a conditional node (a graph whose nodes run inline) */
static void run_body(struct mgraph *b, struct mlaunch *l)
{
    struct mnode whole = { .np = { .kind = 0 }, .child = b };
    if (breaks(cond_body_async)) { /* waited for by nothing */
        struct cond_run *cr = malloc(sizeof *cr);
        pthread_t t;
        *cr = (struct cond_run){ l, whole };
        off_stream_begins();
        if (pthread_create(&t, NULL, body_thread, cr) == 0)
            pthread_detach(t);
        else
            off_stream_ends();
        return;
    }
    run_inline(&whole, l);
}
/* a conditional node: the body its handle's value selects; a node that sets or counts the handle */
static void run_cond(void *a)
{
    struct cond_run *cr = a;
    struct mnode *nd = &cr->nd;
    struct mcond *c = nd->cond;
    unsigned v = __atomic_load_n(&c->value, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&cr->launch->dead, __ATOMIC_ACQUIRE))
        goto out;
    switch (nd->np.kind) {
    case MOCK_COND_SET: __atomic_store_n(&c->value, (unsigned)nd->np.cond_set, __ATOMIC_RELEASE); goto out;
    case MOCK_COND_CLEAR: __atomic_store_n(&c->value, 0u, __ATOMIC_RELEASE); goto out;
    case MOCK_COND_COUNT: { /* the body's runs counted in the op's slot: every trips-th clears the condition */
        struct sc_slot *counter = nd->np.slot;
        if (++counter->runs % nd->np.cond_trips == 0)
            __atomic_store_n(&c->value, 0u, __ATOMIC_RELEASE);
        goto out;
    }
    }
    switch (nd->np.cond_type) {
    case SC_COND_TYPE_IF: /* body 0 when the condition is non-zero, else the ELSE body if any */
        if (v || breaks(cond_if_ignored))
            run_body(nd->child, cr->launch);
        else if (nd->child2)
            run_body(nd->child2, cr->launch);
        break;
    case SC_COND_TYPE_WHILE: /* as long as it is non-zero (a bound: a runaway loop ends the case, not the mock) */
        if (breaks(while_do)) /* tested after the body, not before it */
            run_body(nd->child, cr->launch);
        for (int trips = 0; __atomic_load_n(&c->value, __ATOMIC_ACQUIRE) && trips < 10000; trips++) {
            run_body(nd->child, cr->launch);
            if (breaks(while_once))
                break;
        }
        break;
    default: /* SWITCH: body n for the value n, none for a value past the last */
        if (breaks(switch_first))
            v = 0;
        if (breaks(switch_clamped) && v >= (unsigned)nd->np.cond_size)
            v = (unsigned)nd->np.cond_size - 1;
        if (v == 0)
            run_body(nd->child, cr->launch);
        else if (v == 1 && nd->child2)
            run_body(nd->child2, cr->launch); /* a value past the last body: none */
    }
out:
    free(cr);
}
/* at the start of a launch: the defaults of its graph's handles made with CU_GRAPH_COND_ASSIGN_DEFAULT */
struct defaults {
    int n;
    struct mcond *c[MOCK_NODES];
};
static void apply_defaults(void *a)
{
    struct defaults *d = a;
    for (int k = 0; k < d->n; k++)
        if (d->c[k]->assign && (!breaks(cond_default_once) || d->c[k]->applied++ == 0))
            __atomic_store_n(&d->c[k]->value, d->c[k]->dflt, __ATOMIC_RELEASE);
}
/* cuGraphAddMemFreeNode "will return CUDA_ERROR_INVALID_VALUE if the user attempts to free ... an allocation twice
 * in the same graph" (break free_twice_accepted: it does not); "If the allocation is freed in the same graph, a free
 * node cannot be added to another graph.  If the allocation is freed in another graph, a free node can no longer be
 * added to the owning graph" (breaks free_elsewhere_after_own, free_own_after_elsewhere: it can).  The owner's
 * freed_by: the graph whose free node frees its allocation. */
static int free_node_refused(struct mgraph *gr, struct mgraph *owner)
{
    int allocates = 0;
    for (int k = 0; k < owner->nnodes; k++)
        allocates |= owner->nodes[k].np.kind == SC_NODE_ALLOC;
    if (!allocates) /* "an address that was not returned by an allocation node" */
        return 1;
    if (owner->freed_by == gr && !breaks(free_twice_accepted))
        return 1;
    if (owner->freed_by && owner->freed_by != gr) {
        if (owner->freed_by == owner ? !breaks(free_elsewhere_after_own) : !breaks(free_own_after_elsewhere))
            return 1;
    }
    if (!owner->freed_by)
        owner->freed_by = gr;
    return 0;
}
int node_add(void *g, const struct sc_node_params *np, void **node)
{
    struct mgraph *gr = g;
    if (!gr->built || gr->nnodes == MOCK_NODES || (np->kind == 0 && !((struct mgraph *)np->child)->built))
        return refuse(1);
    if (gr->capturing && breaks(capture_graph_locked)) /* documented: every operation but destroy and node removal */
        return refuse(1);
    if (np->kind == SC_NODE_MEMSET && pool_memory(np->dst) && !breaks(memset_node_pool))
        return refuse(1); /* a memset node "does not work with" stream-ordered memory */
    if (np->kind == SC_NODE_COND)
        return cond_add(gr, np, node);
    if (np->kind == SC_NODE_FREE && free_node_refused(gr, np->child))
        return refuse(1);
    if (np->kind == SC_NODE_DEVLAUNCH && quirks(no_devlaunch))
        return SC_UNSUPPORTED; /* the point skips */
    if (np->kind == SC_NODE_DEVLAUNCH && (!((struct mgraph *)np->child)->built || ((struct mgraph *)np->child)->nnodes == 0))
        return refuse(1); /* "The graph cannot be empty" */
    struct mnode *n = &gr->nodes[gr->nnodes++];
    memset(n, 0, sizeof *n);
    n->np = *np;
    if (np->kind == 0) /* documented: the child graph is cloned in this call (child_reference: it is not) */
        n->child = breaks(child_reference) ? np->child : clone_graph(np->child);
    if (np->kind == SC_NODE_DEVLAUNCH) /* the graph it launches, instantiated (for device launch) now */
        n->child = clone_graph(np->child);
    *node = n;
    return 0;
}
static int cyclic(const struct mgraph *gr);
int edge_add(void *g, void *from, void *to)
{
    struct mgraph *gr = g;
    struct mnode *a = from, *b = to;
    if (a < gr->nodes || a >= gr->nodes + gr->nnodes || b < gr->nodes || b >= gr->nodes + gr->nnodes || a == b ||
        b->ndeps == MOCK_DEPS)
        return refuse(1);
    b->deps[b->ndeps++] = (int)(a - gr->nodes);
    if (quirks(edges_validated) && cyclic(gr)) { /* the structure checked as the edge is added */
        b->ndeps--;
        return refuse(1);
    }
    return 0;
}
/* do the edges of this graph, or of a child graph of it, make a cycle? */
static int cyclic(const struct mgraph *gr)
{
    int state[MOCK_NODES] = { 0 }, stack[MOCK_NODES], order = 0;
    for (int k = 0; k < gr->nnodes; k++) /* Kahn: count the nodes that can be ordered */
        state[k] = gr->nodes[k].ndeps;
    for (int k = 0; k < gr->nnodes; k++)
        if (state[k] == 0)
            stack[order++] = k;
    for (int top = 0; top < order; top++)
        for (int k = 0; k < gr->nnodes; k++)
            for (int j = 0; j < gr->nodes[k].ndeps; j++)
                if (gr->nodes[k].deps[j] == stack[top] && --state[k] == 0)
                    stack[order++] = k;
    for (int k = 0; k < gr->nnodes && order == gr->nnodes; k++)
        if (gr->nodes[k].child && cyclic(gr->nodes[k].child))
            return 1;
    return order != gr->nnodes;
}
/* An upload is stream work that runs none of the graph's nodes (upload_runs: it runs them all).  A cycle is
 * refused ("Instantiation failed due to invalid structure, such as cycles"; instantiate_cycle: accepted). */
int graph_instantiate(void *g, int upload, void *s)
{
    struct mgraph *gr = g;
    if (!gr->built || gr->exec || (cyclic(gr) && !breaks(instantiate_cycle)))
        return refuse(1);
    if (gr->capturing && !breaks(capture_to_instantiable)) /* "not instantiable until ... cuStreamEndCapture" */
        return refuse(1);
    gr->exec = malloc(sizeof gr->nodes);
    memcpy(gr->exec, gr->nodes, sizeof gr->nodes);
    if (upload && breaks(upload_runs))
        return launch_built(gr, s);
    if (upload)
        enqueue(s, ITEM_FN, NULL, NULL, NULL, 0, 0);
    return 0;
}
/* cuGraphInstantiateWithParams; result_out INVALID_STRUCTURE for a cycle */
int graph_instantiate_with(void *g, unsigned flags, int *result)
{
    struct mgraph *gr = g;
    int rc;
    *result = gr->built && !gr->exec && cyclic(gr) && !breaks(instantiate_cycle) ? SC_INSTANTIATE_INVALID_STRUCTURE
                                                                                     : 1; /* ..._ERROR */
    if ((rc = graph_instantiate(g, 0, NULL)))
        return rc;
    *result = SC_INSTANTIATE_SUCCESS;
    gr->auto_free = (flags & SC_INSTANTIATE_AUTO_FREE) != 0;
    return 0;
}
int exec_update(void *g, void *from)
{
    struct mgraph *gr = g, *src = from;
    if (!gr->exec || !src->built)
        return refuse(1);
    if (breaks(exec_update_topology)) /* accepted, whatever the topology */
        return 0;
    if (src->nnodes != gr->nnodes) /* the topology changed */
        return refuse(MOCK_EXEC_UPDATE_FAILURE);
    for (int k = 0; k < gr->nnodes; k++)
        if (src->nodes[k].np.kind != gr->exec[k].np.kind || src->nodes[k].ndeps != gr->exec[k].ndeps ||
            memcmp(src->nodes[k].deps, gr->exec[k].deps, sizeof src->nodes[k].deps))
            return refuse(MOCK_EXEC_UPDATE_FAILURE);
    if (breaks(exec_update))
        return 0;
    if (gr->pending && breaks(exec_update_pending)) /* the update reaches the pending launch: its old nodes are lost */
        gr->pending->dead = 1;
    for (int k = 0; k < gr->nnodes; k++) { /* the launches already enqueued hold copies of the old ones */
        gr->exec[k].np = src->nodes[k].np;
        if (src->nodes[k].child)
            gr->exec[k].child = clone_graph(src->nodes[k].child);
    }
    return 0;
}
int exec_destroy(void *g)
{
    struct mgraph *gr = g;
    if (!gr->exec)
        return refuse(1);
    if (gr->pending && breaks(exec_destroy))
        gr->pending->dead = 1;
    gr->exec = NULL; /* the nodes stay: a pending launch's items are its own copies */
    return 0;
}

struct node_run {
    struct mlaunch *launch;
    void (*fn)(void *);
    void *arg;
    int owned; /* arg is the node_run's */
};
static void run_node(void *a)
{
    struct node_run *nr = a;
    if (!__atomic_load_n(&nr->launch->dead, __ATOMIC_ACQUIRE) && nr->fn)
        nr->fn(nr->arg);
    if (nr->owned)
        free(nr->arg);
}
/* Appends one item of a node to stream ns (the registry lock held); returns its position. */
static uint64_t node_item(struct mstream *ns, struct mlaunch *l, void (*fn)(void *), void *arg, int owned)
{
    struct node_run *nr = malloc(sizeof *nr);
    *nr = (struct node_run){ l, fn, arg, owned };
    return push(ns, ITEM_FN, run_node, nr, NULL, 0, 1);
}
/* One node but a child graph node, enqueued on ns (the registry lock held); returns its last item. */
static uint64_t node_work(struct mstream *ns, struct mnode *nd, struct mlaunch *l)
{
    int data = nd->np.kind == SC_NODE_MEMSET || nd->np.kind == SC_NODE_MEMCPY;
    if (nd->disabled && !breaks(node_disable) && !(data && breaks(node_disable_data)))
        return node_item(ns, l, NULL, NULL, 0); /* "functionally equivalent to empty nodes" */
    switch (nd->np.kind) {
    case SC_NODE_GATE: return node_item(ns, l, run_gate, gate_args_of(&nd->np), 1);
    case SC_NODE_KERNEL: return node_item(ns, l, run_mark, gate_args_of(&nd->np), 1);
    case SC_NODE_DEVLAUNCH: /* the launching kernel marks its slot; launch_nodes enqueues what it launched */
        return node_item(ns, l, breaks(devlaunch_refused) ? run_mark_refused : run_mark, gate_args_of(&nd->np), 1);
    case SC_NODE_HOST: callers_fn_add(nd->np.fn); return node_item(ns, l, nd->np.fn, nd->np.arg, 0);
    case SC_NODE_MEMSET:
    case SC_NODE_MEMCPY: return node_item(ns, l, run_copy, copy_args_of(&nd->np), 1);
    case SC_NODE_ALLOC: return node_item(ns, l, NULL, NULL, 0); /* its memory is set aside at the launch */
    case SC_NODE_FREE: return node_item(ns, l, NULL, NULL, 0);  /* the launch freed it (launch_built) */
    case MOCK_NODE_CAPTURED: { /* what a capture into the graph recorded, in capture order */
        uint64_t pos = node_item(ns, l, NULL, NULL, 0);
        for (const struct item *it = nd->child->head; it; it = it->next)
            pos = replay_item(ns, it, 1, pos);
        return pos;
    }
    case SC_NODE_COND:
    case MOCK_COND_SET:
    case MOCK_COND_CLEAR:
    case MOCK_COND_COUNT: { /* its own item: the launch's copy of it */
        struct cond_run *cr = malloc(sizeof *cr);
        *cr = (struct cond_run){ l, *nd };
        return node_item(ns, l, run_cond, cr, 0); /* run_cond frees it */
    }
    case SC_NODE_RECORD: {
        struct mevent *ev = nd->np.event;
        uint64_t pos = node_item(ns, l, run_record, ev, 0);
        if (!breaks(record_node)) /* the event now captures this node's dependencies */
            ev->capture = NULL, ev->stream = ns, ev->target = pos;
        return pos;
    }
    default: { /* SC_NODE_WAIT: the work the event's last record captured */
        struct mevent *ev = nd->np.event;
        if (ev->stream && !breaks(wait_node))
            push(ns, ITEM_WAIT, NULL, NULL, ev->stream, ev->target, 0);
        return node_item(ns, l, NULL, NULL, 0);
    }
    }
}

/* The break edges: every node on one stream after `roots`, in the reverse of the order they were added
 * (a node that depends on another runs before it). */
static void launch_reversed(struct mnode *nodes, int n, const struct dep *roots, int nroots, struct mlaunch *l)
{
    struct mstream *ns = new_stream(KIND_NONBLOCKING);
    pthread_mutex_lock(&registry);
    for (int r = 0; r < nroots; r++)
        push(ns, ITEM_WAIT, NULL, NULL, roots[r].s, roots[r].pos, 0);
    for (int k = n - 1; k >= 0; k--) {
        struct mnode *nd = &nodes[k];
        uint64_t pos;
        if (nd->np.kind == 0) { /* a child graph: its nodes after what this stream has so far */
            struct dep here = { ns, ns->enq };
            pthread_mutex_unlock(&registry);
            launch_reversed(nd->child->nodes, nd->child->nnodes, &here, 1, l);
            pthread_mutex_lock(&registry);
            for (int c = 0; c < nd->child->nnodes; c++)
                push(ns, ITEM_WAIT, NULL, NULL, nd->child->nodes[c].ran_on, nd->child->nodes[c].ran_at, 0);
            pos = node_item(ns, l, NULL, NULL, 0);
        } else
            pos = node_work(ns, nd, l);
        nd->ran_on = ns, nd->ran_at = pos;
    }
    pthread_mutex_unlock(&registry);
}

/* Enqueues the nodes of one graph, each on a stream of its own after `roots` (n of them) and the nodes its
 * edges come from. */
void launch_nodes(struct mnode *nodes, int n, const struct dep *roots, int nroots, struct mlaunch *l)
{
    int done[MOCK_NODES] = { 0 };
    if (breaks(edges)) {
        launch_reversed(nodes, n, roots, nroots, l);
        return;
    }
    for (int left = n; left > 0; left--) {
        int k = 0;
        for (; k < n; k++) { /* a node whose dependencies were all enqueued */
            int ready = !done[k];
            for (int j = 0; j < nodes[k].ndeps && ready; j++)
                ready = done[nodes[k].deps[j]];
            if (ready)
                break;
        }
        if (k == n)
            return; /* a cycle: instantiation would have refused it */
        struct mnode *nd = &nodes[k];
        struct mstream *ns = new_stream(KIND_NONBLOCKING);
        struct dep mine[MOCK_DEPS + 8];
        int nmine = 0;
        uint64_t pos;
        for (int r = 0; r < nroots; r++)
            mine[nmine++] = roots[r];
        for (int j = 0; j < nd->ndeps; j++)
            mine[nmine++] = (struct dep){ nodes[nd->deps[j]].ran_on, nodes[nd->deps[j]].ran_at };
        if (nd->np.kind == 0) { /* a child graph: its nodes after this node's dependencies; it completes with them */
            int broken = breaks(child_node); /* its nodes wait only for the launch's start */
            launch_nodes(nd->child->nodes, nd->child->nnodes, broken ? roots : mine, broken ? nroots : nmine, l);
            pthread_mutex_lock(&registry);
            for (int c = 0; c < nd->child->nnodes; c++)
                push(ns, ITEM_WAIT, NULL, NULL, nd->child->nodes[c].ran_on, nd->child->nodes[c].ran_at, 0);
            pos = node_item(ns, l, NULL, NULL, 0);
        } else {
            pthread_mutex_lock(&registry);
            for (int j = 0; j < nmine && !(nd->disabled && breaks(disabled_edges)); j++)
                push(ns, ITEM_WAIT, NULL, NULL, mine[j].s, mine[j].pos, 0);
            pos = node_work(ns, nd, l);
        }
        nd->ran_on = ns, nd->ran_at = pos;
        pthread_mutex_unlock(&registry);
        done[k] = 1;
        if (nd->np.kind == SC_NODE_DEVLAUNCH)
            device_launch(nd, ns, pos, l);
    }
}
int launch_built(struct mgraph *gr, void *s)
{
    struct mstream *st = resolve(s);
    struct mlaunch *l = calloc(1, sizeof *l); /* kept: its items may outlive the executable graph */
    struct dep start;
    int allocates = 0, frees_own = 0;
    if (!gr->exec)
        return refuse(1);
    for (int k = 0; k < gr->nnodes; k++) {
        allocates |= gr->exec[k].np.kind == SC_NODE_ALLOC;
        frees_own |= gr->exec[k].np.kind == SC_NODE_FREE && gr->exec[k].np.child == gr;
    }
    /* "If any allocations created by hGraphExec remain unfreed (from a previous launch) and hGraphExec
     * was not instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, the launch will fail with
     * CUDA_ERROR_INVALID_VALUE" (unfreed_relaunch: it does not; auto_free: the flag frees nothing) */
    if (allocates && gr->unfreed && (!gr->auto_free || breaks(auto_free)) && !breaks(unfreed_relaunch))
        return refuse(1);
    /* a free node of its own allocation frees it in each launch (break free_node_ignored: it does not); one of
     * another graph's frees what that graph's last launch left (break other_free_ignored: it does not) */
    gr->unfreed = allocates && (!frees_own || breaks(free_node_ignored));
    for (int k = 0; k < gr->nnodes && !breaks(other_free_ignored); k++)
        if (gr->exec[k].np.kind == SC_NODE_FREE && gr->exec[k].np.child != gr)
            ((struct mgraph *)gr->exec[k].np.child)->unfreed = 0;
    if (breaks(replay_once) && gr->launched++)
        return 0;
    /* the start: behind the stream's earlier work (and the legacy stream's rules) and the previous launch */
    start.s = st;
    start.pos = gr->last ? enqueue(st, ITEM_WAIT, NULL, NULL, gr->last, gr->last_pos, 0)
                         : enqueue(st, ITEM_FN, NULL, NULL, NULL, 0, 0);
    if (gr->nconds) { /* each launch starts with its handles' defaults (an item every node waits for) */
        struct defaults *d = malloc(sizeof *d);
        d->n = gr->nconds;
        memcpy(d->c, gr->conds, sizeof d->c);
        start.pos = enqueue(st, ITEM_FN, apply_defaults, d, NULL, 0, 1);
    }
    launch_nodes(gr->exec, gr->nnodes, &start, !breaks(replay), l); /* replay: the nodes wait for nothing */
    if (l->ntail) /* after the launching graph's end: every node of it */
        launch_tails(l, join_nodes(gr->exec, gr->nnodes, NULL, 0, NULL));
    pthread_mutex_lock(&registry);
    uint64_t end = start.pos;
    for (int k = 0; k < gr->nnodes && !breaks(replay); k++) /* the stream's later work waits for every node */
        end = push(st, ITEM_WAIT, NULL, NULL, gr->exec[k].ran_on, gr->exec[k].ran_at, 0);
    /* ... and for every graph its nodes launched from the device (their environment: the stream's) */
    struct mgraph *const *kinds[3] = { l->faf, l->sib, l->tail };
    int counts[3] = { breaks(faf_detached) ? 0 : l->nfaf, breaks(sibling_detached) ? 0 : l->nsib,
                      breaks(tail_detached) ? 0 : l->ntail };
    for (int m = 0; m < 3 && !breaks(replay); m++)
        for (int g = 0; g < counts[m]; g++)
            for (int k = 0; k < kinds[m][g]->nnodes; k++)
                end = push(st, ITEM_WAIT, NULL, NULL, kinds[m][g]->nodes[k].ran_on, kinds[m][g]->nodes[k].ran_at, 0);
    pthread_mutex_unlock(&registry);
    gr->last = st, gr->last_pos = end;
    gr->pending = l;
    return 0;
}
