/*
 * graphs.c - graphs built by hand: nodes, edges, instantiation, updates and
 * launches.
 *
 * Graph memory nodes: an allocation node sets its memory aside when a launch runs it and no
 * node frees it, so a relaunch is refused with the invalid-value error unless the graph was instantiated
 * with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH; an instantiation of a graph whose edges make a
 * cycle is refused (result_out CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE).
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
static struct mgraph *clone_graph(const struct mgraph *from)
{
    struct mgraph *gr = malloc(sizeof *gr);
    *gr = *from;
    gr->exec = NULL;
    gr->pending = NULL;
    for (int k = 0; k < gr->nnodes; k++)
        if (gr->nodes[k].child)
            gr->nodes[k].child = clone_graph(gr->nodes[k].child);
    return gr;
}
int node_add(void *g, const struct sc_node_params *np, void **node)
{
    struct mgraph *gr = g;
    if (!gr->built || gr->nnodes == MOCK_NODES || (np->kind == 0 && !((struct mgraph *)np->child)->built))
        return refuse(1);
    if (np->kind == SC_NODE_MEMSET && pool_memory(np->dst) && !breaks(memset_node_pool))
        return refuse(1); /* a memset node "does not work with" stream-ordered memory */
    struct mnode *n = &gr->nodes[gr->nnodes++];
    memset(n, 0, sizeof *n);
    n->np = *np;
    if (np->kind == 0) /* documented: the child graph is cloned in this call (child_reference: it is not) */
        n->child = breaks(child_reference) ? np->child : clone_graph(np->child);
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
struct dep {
    struct mstream *s;
    uint64_t pos;
};
/* One node but a child graph node, enqueued on ns (the registry lock held); returns its last item. */
static uint64_t node_work(struct mstream *ns, struct mnode *nd, struct mlaunch *l)
{
    switch (nd->np.kind) {
    case SC_NODE_GATE: return node_item(ns, l, run_gate, gate_args_of(&nd->np), 1);
    case SC_NODE_KERNEL: return node_item(ns, l, run_mark, gate_args_of(&nd->np), 1);
    case SC_NODE_HOST: callers_fn_add(nd->np.fn); return node_item(ns, l, nd->np.fn, nd->np.arg, 0);
    case SC_NODE_MEMSET:
    case SC_NODE_MEMCPY: return node_item(ns, l, run_copy, copy_args_of(&nd->np), 1);
    case SC_NODE_ALLOC: return node_item(ns, l, NULL, NULL, 0); /* its memory is set aside at the launch */
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
static void launch_nodes(struct mnode *nodes, int n, const struct dep *roots, int nroots, struct mlaunch *l)
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
            for (int j = 0; j < nmine; j++)
                push(ns, ITEM_WAIT, NULL, NULL, mine[j].s, mine[j].pos, 0);
            pos = node_work(ns, nd, l);
        }
        nd->ran_on = ns, nd->ran_at = pos;
        pthread_mutex_unlock(&registry);
        done[k] = 1;
    }
}
int launch_built(struct mgraph *gr, void *s)
{
    struct mstream *st = resolve(s);
    struct mlaunch *l = calloc(1, sizeof *l); /* kept: its items may outlive the executable graph */
    struct dep start;
    int allocates = 0;
    if (!gr->exec)
        return refuse(1);
    for (int k = 0; k < gr->nnodes; k++)
        allocates |= gr->exec[k].np.kind == SC_NODE_ALLOC;
    /* "If any allocations created by hGraphExec remain unfreed (from a previous launch) and hGraphExec
     * was not instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH, the launch will fail with
     * CUDA_ERROR_INVALID_VALUE" (unfreed_relaunch: it does not; auto_free: the flag frees nothing) */
    if (allocates && gr->unfreed && (!gr->auto_free || breaks(auto_free)) && !breaks(unfreed_relaunch))
        return refuse(1);
    gr->unfreed = allocates;
    if (breaks(replay_once) && gr->launched++)
        return 0;
    /* the start: behind the stream's earlier work (and the legacy stream's rules) and the previous launch */
    start.s = st;
    start.pos = gr->last ? enqueue(st, ITEM_WAIT, NULL, NULL, gr->last, gr->last_pos, 0)
                         : enqueue(st, ITEM_FN, NULL, NULL, NULL, 0, 0);
    launch_nodes(gr->exec, gr->nnodes, &start, !breaks(replay), l); /* replay: the nodes wait for nothing */
    pthread_mutex_lock(&registry);
    uint64_t end = start.pos;
    for (int k = 0; k < gr->nnodes && !breaks(replay); k++) /* the stream's later work waits for every node */
        end = push(st, ITEM_WAIT, NULL, NULL, gr->exec[k].ran_on, gr->exec[k].ran_at, 0);
    pthread_mutex_unlock(&registry);
    gr->last = st, gr->last_pos = end;
    gr->pending = l;
    return 0;
}
