/*
 * graph_edit.c - executable graphs edited between launches (cuGraphNodeSetEnabled, cuGraphExec*NodeSetParams,
 * cuGraphExecEvent*NodeSetEvent, cuGraphExecChildGraphNodeSetParams): the executable graph's copy of a node
 * (struct mgraph's exec, graphs.c) is disabled, enabled again or given other parameters of its kind.
 */
#include "mock.h"

/*
 * A node of the executable graph disabled (an empty node: its dependencies still order what follows it) or
 * enabled again, or given other parameters of its kind: later launches see it, the launches already enqueued
 * hold copies of what they run. */
static struct mnode *exec_node(struct mgraph *gr, void *node)
{
    struct mnode *n = node;
    return gr->exec && n >= gr->nodes && n < gr->nodes + gr->nnodes ? &gr->exec[n - gr->nodes] : NULL;
}
int node_enable(void *g, void *node, int enable)
{
    struct mgraph *gr = g;
    struct mnode *n = exec_node(gr, node);
    int kind = n ? n->np.kind : -1;
    if (quirks(no_graph_edit))
        return SC_UNSUPPORTED; /* the point skips */
    /* "Currently only kernel, memset and memcpy nodes are supported" */
    if (kind != SC_NODE_GATE && kind != SC_NODE_KERNEL && kind != SC_NODE_MEMSET && kind != SC_NODE_MEMCPY)
        return refuse(1);
    if (gr->pending && breaks(node_enable_pending)) /* the change reaches the pending launch */
        gr->pending->dead = 1;
    if (!enable || !breaks(node_enable))
        n->disabled = !enable;
    return 0;
}
int exec_node_set(void *g, void *node, const struct sc_node_params *np)
{
    struct mgraph *gr = g;
    struct mnode *n = exec_node(gr, node);
    int kernel = np->kind == SC_NODE_GATE || np->kind == SC_NODE_KERNEL || np->kind == SC_NODE_HOST;
    int data = np->kind == SC_NODE_MEMSET || np->kind == SC_NODE_MEMCPY;
    int event = np->kind == SC_NODE_RECORD || np->kind == SC_NODE_WAIT;
    int was_kernel = n && (n->np.kind == SC_NODE_GATE || n->np.kind == SC_NODE_KERNEL);
    if (quirks(no_graph_edit))
        return SC_UNSUPPORTED; /* the point skips */
    /* parameters of the node's own kind (a gate and a marking kernel are both kernel nodes) */
    if (!n || (n->np.kind != np->kind && !(was_kernel && (np->kind == SC_NODE_GATE || np->kind == SC_NODE_KERNEL))))
        return refuse(1);
    if (np->kind == 0 && (!((struct mgraph *)np->child)->built || ((struct mgraph *)np->child)->nnodes != n->child->nnodes))
        return refuse(1); /* "The topology of childGraph ... must match that of the graph contained in hNode" */
    if (np->kind != 0 && !kernel && !data && !event)
        return refuse(1);
    if (gr->pending && breaks(exec_set_pending)) /* the change reaches the pending launch: it runs nothing */
        gr->pending->dead = 1;
    if ((kernel && breaks(exec_set_kernel)) || (data && breaks(exec_set_data)) || (event && breaks(exec_set_event)) ||
        (np->kind == 0 && breaks(exec_set_child)))
        return 0; /* answered success, changed nothing */
    if (np->kind == 0)
        n->child = clone_graph(np->child);
    else
        n->np = *np;
    return 0;
}
