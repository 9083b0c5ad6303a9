/* prog_graph_ops.c - recording a case's graph ops: launches, captures, nodes added by hand, edges,
 * instantiation, updates and edits of an executable graph (ops.def's builder column). */
#include "prog_ops.h"

/* an op of graph g on stream s (SC_NULL_STREAM: a node added to g by hand) */
static struct sc_op_def *graph_on(sc_prog *p, enum sc_op_kind k, const char *n, sc_graph g, sc_stream s)
{
    struct sc_op_def *op = sc_op_add(p, k, n, s);
    sc_op_check_index(p, n, "graph", g, p->ngraphs);
    op->graph = g;
    return op;
}
sc_op sc_graph_launch(sc_prog *p, const char *n, sc_graph g, sc_stream s)
{
    return sc_op_index(p, graph_on(p, SC_OP_GRAPH_LAUNCH, n, g, s));
}

sc_op sc_capture_begin(sc_prog *p, const char *n, sc_stream s, enum sc_capture_mode mode)
{
    struct sc_op_def *op = sc_op_add(p, SC_OP_CAPTURE_BEGIN, n, s);
    op->cond = mode;
    return sc_op_index(p, op);
}
sc_op sc_capture_end(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CAPTURE_END, n, s); }
sc_op sc_capture_status(sc_prog *p, const char *n, sc_stream s) { return sc_op_simple(p, SC_OP_CAPTURE_STATUS, n, s); }
sc_op sc_capture_keep(sc_prog *p, const char *n, sc_stream s, sc_graph g)
{
    return sc_op_index(p, graph_on(p, SC_OP_CAPTURE_KEEP, n, g, s));
}
sc_op sc_graph_replay(sc_prog *p, const char *n, sc_graph g, sc_stream s)
{
    return sc_op_index(p, graph_on(p, SC_OP_GRAPH_REPLAY, n, g, s));
}

/* graphs built by hand */
static struct sc_op_def *graph_op(sc_prog *p, enum sc_op_kind k, const char *n, sc_graph g)
{
    return graph_on(p, k, n, g, SC_NULL_STREAM);
}
sc_op sc_node(sc_prog *p, const char *n, sc_graph g, enum sc_node_kind kind)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE, n, g);
    if (kind != SC_NODE_GATE && kind != SC_NODE_KERNEL && kind != SC_NODE_HOST)
        sc_prog_misuse(p, "operation %s: a marking node is a gate, kernel or host node", n);
    op->cond = kind;
    return sc_op_index(p, op);
}
sc_op sc_node_data(sc_prog *p, const char *n, sc_graph g, enum sc_node_kind kind)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_DATA, n, g);
    if (kind != SC_NODE_MEMSET && kind != SC_NODE_MEMCPY)
        sc_prog_misuse(p, "operation %s: a data node is a memset or memcpy node", n);
    op->cond = kind;
    return sc_op_index(p, op);
}
sc_op sc_node_event(sc_prog *p, const char *n, sc_graph g, sc_event e, enum sc_node_kind kind)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_EVENT, n, g);
    if (kind != SC_NODE_RECORD && kind != SC_NODE_WAIT)
        sc_prog_misuse(p, "operation %s: an event node records or waits", n);
    sc_op_check_index(p, n, "event", e, p->nevents);
    op->event = e;
    op->cond = kind;
    return sc_op_index(p, op);
}
sc_op sc_node_child(sc_prog *p, const char *n, sc_graph g, sc_graph child)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_CHILD, n, g);
    sc_op_check_index(p, n, "graph", child, p->ngraphs);
    op->graph2 = child;
    return sc_op_index(p, op);
}
/* a conditional node: its bodies are other graphs of the program, cloned into it */
sc_op sc_node_cond(sc_prog *p, const char *n, sc_graph g, sc_graph body, sc_graph body2, enum sc_cond_how how)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_COND, n, g);
    int two = how >= SC_COND_SWITCH_0 && how <= SC_COND_SWITCH_2;
    sc_op_check_index(p, n, "graph", body, p->ngraphs);
    if (body2 != SC_NO_BODY)
        sc_op_check_index(p, n, "graph", body2, p->ngraphs);
    if (how < SC_COND_IF_SET || how > SC_COND_WHILE_CLEAR || two != (body2 != SC_NO_BODY))
        sc_prog_misuse(p, "operation %s: a conditional node of one body (IF, WHILE) or two (SWITCH, IF/ELSE)", n);
    if (body == g || body2 == g)
        sc_prog_misuse(p, "operation %s: a graph cannot be its own conditional node's body", n);
    op->graph2 = body;
    op->graph3 = body2;
    op->cond = how;
    return sc_op_index(p, op);
}
/* a kernel node that launches another graph of the program from the device */
sc_op sc_node_devlaunch(sc_prog *p, const char *n, sc_graph g, sc_graph child, enum sc_dl_mode how)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_DEVLAUNCH, n, g);
    sc_op_check_index(p, n, "graph", child, p->ngraphs);
    if (how < SC_DL_FAF || how > SC_DL_SIBLING)
        sc_prog_misuse(p, "operation %s: a device launch is fire-and-forget, tail or sibling", n);
    if (child == g)
        sc_prog_misuse(p, "operation %s: a graph cannot launch itself from the device here", n);
    op->graph2 = child;
    op->cond = how;
    return sc_op_index(p, op);
}
static int is_node(const sc_prog *p, sc_op i)
{
    if (i < 0 || i >= p->nops)
        return 0;
    return sc_op_facts(p->ops[i].kind)->node;
}
sc_op sc_edge(sc_prog *p, const char *n, sc_op from, sc_op to)
{
    if (!is_node(p, from) || !is_node(p, to) || p->ops[from].graph != p->ops[to].graph || from == to)
        sc_prog_misuse(p, "operation %s: an edge joins two nodes of one graph", n);
    struct sc_op_def *op = graph_op(p, SC_OP_EDGE, n, is_node(p, from) ? p->ops[from].graph : 0);
    op->from = from;
    op->to = to;
    return sc_op_index(p, op);
}
/* a capture of s into graph g (built by hand), its first node after node dep of g, or none (SC_NO_NODE) */
sc_op sc_capture_to(sc_prog *p, const char *n, sc_stream s, sc_graph g, sc_op dep, enum sc_capture_mode mode)
{
    struct sc_op_def *op = graph_on(p, SC_OP_CAPTURE_TO, n, g, s);
    if (dep != SC_NO_NODE && (!is_node(p, dep) || p->ops[dep].graph != g))
        sc_prog_misuse(p, "operation %s: the dependency of a capture into a graph is a node of that graph", n);
    op->from = dep;
    op->cond = mode;
    return sc_op_index(p, op);
}
sc_op sc_capture_end_graph(sc_prog *p, const char *n, sc_stream s, sc_graph g)
{
    return sc_op_index(p, graph_on(p, SC_OP_CAPTURE_END_GRAPH, n, g, s));
}
sc_op sc_instantiate(sc_prog *p, const char *n, sc_graph g) { return sc_op_index(p, graph_op(p, SC_OP_INSTANTIATE, n, g)); }
sc_op sc_instantiate_upload(sc_prog *p, const char *n, sc_graph g, sc_stream s)
{
    struct sc_op_def *op = graph_op(p, SC_OP_INSTANTIATE_UPLOAD, n, g);
    if (s >= p->nstreams || s < SC_ON_DEVICE(SC_NULL_STREAM, SC_MAX_DEVICES - 1))
        sc_prog_misuse(p, "operation %s names an unknown stream", n);
    op->stream = s;
    return sc_op_index(p, op);
}
sc_op sc_exec_update(sc_prog *p, const char *n, sc_graph g, sc_graph from)
{
    struct sc_op_def *op = graph_op(p, SC_OP_EXEC_UPDATE, n, g);
    sc_op_check_index(p, n, "graph", from, p->ngraphs);
    op->graph2 = from;
    return sc_op_index(p, op);
}
sc_op sc_exec_destroy(sc_prog *p, const char *n, sc_graph g) { return sc_op_index(p, graph_op(p, SC_OP_EXEC_DESTROY, n, g)); }
/* executable graph editing: the node's graph is the op's */
sc_op sc_node_enable(sc_prog *p, const char *n, sc_op node, int enable)
{
    if (!is_node(p, node))
        sc_prog_misuse(p, "operation %s: cuGraphNodeSetEnabled names a node", n);
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_ENABLE, n, is_node(p, node) ? p->ops[node].graph : 0);
    op->to = node;
    op->cond = enable != 0;
    return sc_op_index(p, op);
}
sc_op sc_exec_set_params(sc_prog *p, const char *n, sc_op node, sc_op from)
{
    if (!is_node(p, node) || !is_node(p, from) || node == from)
        sc_prog_misuse(p, "operation %s: a node takes the parameters of another node", n);
    struct sc_op_def *op = graph_op(p, SC_OP_EXEC_SET_PARAMS, n, is_node(p, node) ? p->ops[node].graph : 0);
    op->to = node;
    op->from = from;
    return sc_op_index(p, op);
}
/* graph memory nodes and instantiation with flags */
sc_op sc_node_alloc(sc_prog *p, const char *n, sc_graph g)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_ALLOC, n, g);
    op->cond = SC_NODE_ALLOC;
    return sc_op_index(p, op);
}
/* a free node of the allocation an allocation node (of g or another graph) made */
sc_op sc_node_free(sc_prog *p, const char *n, sc_graph g, sc_op alloc)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_FREE, n, g);
    if (!is_node(p, alloc) || p->ops[alloc].kind != SC_OP_NODE_ALLOC)
        sc_prog_misuse(p, "operation %s: a free node frees what an allocation node (node_alloc) made", n);
    op->from = alloc;
    op->cond = SC_NODE_FREE;
    return sc_op_index(p, op);
}
/* a memset node on a stream-ordered allocation */
sc_op sc_node_memset_alloc(sc_prog *p, const char *n, sc_graph g, sc_buffer m)
{
    struct sc_op_def *op = graph_op(p, SC_OP_NODE_MEMSET_ALLOC, n, g);
    sc_op_check_index(p, n, "buffer", m, p->nbuffers);
    op->buffer = m;
    op->cond = SC_NODE_MEMSET;
    return sc_op_index(p, op);
}
sc_op sc_instantiate_checked(sc_prog *p, const char *n, sc_graph g)
{
    return sc_op_index(p, graph_op(p, SC_OP_INSTANTIATE_CHECKED, n, g));
}
sc_op sc_instantiate_auto_free(sc_prog *p, const char *n, sc_graph g)
{
    return sc_op_index(p, graph_op(p, SC_OP_INSTANTIATE_AUTO_FREE, n, g));
}
