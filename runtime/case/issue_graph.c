/*
 * issue_graph.c - how captures and graphs are issued (issue_ops.c's table
 * names these functions): a stream capture begun, ended, kept as a graph; a
 * graph launched; nodes and edges added to a graph built by hand, its
 * instantiation, update and destruction.  Which ops a launch runs is kept
 * here (run_by, runs_nodes_of, replayed), for the observer.
 */
#define _GNU_SOURCE
#include "case.h"
#include <string.h>

/* ---- captures and graphs ------------------------------------------------------------ */

/*
 * A capture ended by op i: the ops captured before it that no earlier end
 * claimed are its graph's (kept: graph + 1; -1: the graph was discarded).
 * Ops are issued one at a time in program order, so "before it" is exact; a
 * program that keeps a capture while another is open gives the first end both.
 */
static void claim_captured(struct run *r, int i, int kept)
{
    for (int j = 0; j < i; j++)
        if (r->op[j].captured && !r->op[j].kept)
            r->op[j].kept = kept;
}

int issue_capture_begin(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    int rc;
    if ((rc = r->b->capture_begin(a->stream, d->cond)) == 0 && d->stream >= 0)
        r->capture_thread[d->stream] = d->thread + 1;
    return rc;
}

/* cuStreamBeginCaptureToGraph: the ops captured until the capture's end are nodes of its graph */
int issue_capture_to(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    void *dep = d->from >= 0 ? r->op[d->from].node : NULL;
    int rc;
    if ((rc = r->b->capture_to(a->stream, r->graphs[d->graph], dep, d->cond)) == 0 && d->stream >= 0) {
        r->capture_thread[d->stream] = d->thread + 1;
        r->capture_into[d->stream] = d->graph + 1;
    }
    return rc;
}

/*
 * Ends the capture of stream s (the program's stream index, or a built-in one: < 0): a capture into a graph
 * (capture_to) keeps that graph, which *same says cuStreamEndCapture gave back; other graphs it gives are destroyed
 * at once.  compare >= 0: *same asks of that graph instead (capture_end_graph).  Where the capture was ended, the
 * ops captured before op i that no earlier end claimed are its graph's (its graph's launches run them), or none's.
 */
static int end_capture(struct run *r, int i, void *stream, int compare, int *same)
{
    int s = r->op[i].def->stream, into = s >= 0 ? r->capture_into[s] - 1 : -1, status = SC_CAPTURE_NONE, rc;
    *same = 0;
    if (into >= 0) {
        rc = r->b->capture_end_to(stream, r->graphs[into], same);
        *same = *same && (compare < 0 || compare == into);
    } else
        rc = compare >= 0 ? r->b->capture_end_to(stream, r->graphs[compare], same) : r->b->capture_end(stream);
    if (into >= 0 && r->b->capture_status(stream, &status) == 0 && status == SC_CAPTURE_NONE)
        r->capture_into[s] = 0; /* ended, whatever it answered */
    if (rc == 0)
        claim_captured(r, i, into >= 0 ? into + 1 : -1);
    return rc;
}

/* what a worker's end_captures ends (op: none) */
int end_capture_of(struct run *r, int s, void *stream, int *same)
{
    int into = s >= 0 ? r->capture_into[s] - 1 : -1, rc;
    *same = 0;
    rc = into >= 0 ? r->b->capture_end_to(stream, r->graphs[into], same) : r->b->capture_end(stream);
    if (into >= 0)
        r->capture_into[s] = 0;
    return rc;
}

int issue_capture_end(struct run *r, int i, const struct issue_args *a)
{
    int same;
    return end_capture(r, i, a->stream, -1, &same);
}

/* its value: 1 when cuStreamEndCapture gave back its graph */
int issue_capture_end_graph(struct run *r, int i, const struct issue_args *a)
{
    int same, rc = end_capture(r, i, a->stream, r->op[i].def->graph, &same);
    r->op[i].value = same;
    r->op[i].valueless = rc != 0;
    return rc;
}

int issue_capture_keep(struct run *r, int i, const struct issue_args *a)
{
    int g = r->op[i].def->graph, rc;
    if ((rc = r->b->capture_keep(a->stream, &r->graphs[g])) == 0)
        claim_captured(r, i, g + 1);
    return rc;
}

int issue_capture_status(struct run *r, int i, const struct issue_args *a)
{
    int status, rc = r->b->capture_status(a->stream, &status);
    r->op[i].value = status;
    return rc;
}

/* cuStreamGetCaptureInfo: an id or a dependency count only while the capture is active (valid only then) */
static int capture_info(struct run *r, int i, const struct issue_args *a, int want_id)
{
    int status = SC_CAPTURE_NONE;
    uint64_t id = 0;
    size_t ndeps = 0;
    int rc = r->b->capture_info(a->stream, &status, &id, &ndeps);
    r->op[i].valueless = rc || status != SC_CAPTURE_ACTIVE;
    r->op[i].value = r->op[i].valueless ? -1 : want_id ? (int64_t)id : (int64_t)ndeps;
    return rc;
}
int issue_capture_id(struct run *r, int i, const struct issue_args *a) { return capture_info(r, i, a, 1); }
int issue_capture_deps(struct run *r, int i, const struct issue_args *a) { return capture_info(r, i, a, 0); }
int issue_capture_sever(struct run *r, int i, const struct issue_args *a)
{
    (void)i;
    return r->b->capture_sever(a->stream);
}

/* the arguments of sc_gate or sc_mark */
int issue_graph_launch(struct run *r, int i, const struct issue_args *a)
{
    struct op_rt *o = &r->op[i];
    void *gate_dev = r->arena->gate_dev, *slot_dev = a->slot_dev;
    uint64_t max_ns = r->cfg.deadline_ns;
    void *gate_args[] = { &gate_dev, &max_ns, &slot_dev, &o->token }, *mark_args[] = { &slot_dev, &o->token };
    int g = o->def->graph;
    return r->b->graph_launch(r->graphs[g], a->stream, r->p->graphs[g].kind == SC_GRAPH_GATE ? gate_args : mark_args);
}

int issue_graph_replay(struct run *r, int i, const struct issue_args *a)
{
    int g = r->op[i].def->graph, rc;
    if (!r->graphs[g])
        return -1; /* the generator makes no replay of a graph that no capture_keep before it kept */
    if ((rc = r->b->graph_replay(r->graphs[g], a->stream)) == 0) {
        for (int k = 0; k < r->p->ngraphs; k++)
            if (r->runs_nodes_of[g] & (1u << k))
                store(&r->replayed[k], 1);
        for (int j = 0; j < r->p->nops; j++) /* those this launch runs */
            if (r->op[j].run_by & (1u << g))
                store(&r->op[j].launched, 1);
    }
    return rc;
}

/* op i adds its node to its graph (no dependencies: edges come from edge ops), np as its kind set it. */
static int add_node(struct run *r, int i, struct sc_node_params *np)
{
    struct op_rt *o = &r->op[i];
    np->flag = r->arena->gate_dev;
    np->max_ns = r->cfg.deadline_ns;
    np->slot = (struct sc_slot *)r->arena->slots_dev + i;
    np->token = o->token;
    np->bytes = sc_copy_bytes;
    return r->b->node_add(r->graphs[o->def->graph], np, &o->node);
}

/* op i adds a node observed like a captured op: it runs when a launch of its graph runs it */
static int add_observed_node(struct run *r, int i, struct sc_node_params *np)
{
    struct op_rt *o = &r->op[i];
    int rc;
    if ((rc = add_node(r, i, np)))
        return rc;
    o->captured = 1;
    o->kept = o->def->graph + 1;
    o->run_by = 1u << o->def->graph;
    return 0;
}

/* the ops before op i whose nodes graph `of` runs are run by the launches of op i's graph too (a child or a
 * graph launched from the device: its nodes as they are when op i adds its node) */
static void run_by_too(struct run *r, int i, int of)
{
    for (int j = 0; j < i; j++)
        if (r->op[j].run_by & (1u << of))
            r->op[j].run_by |= 1u << r->op[i].def->graph;
}

/* node: a gate, kernel or host node; it runs when a launch of its graph runs it: observed like a captured op */
int issue_node(struct run *r, int i, const struct issue_args *a)
{
    struct op_rt *o = &r->op[i];
    struct sc_node_params np = { .kind = o->def->cond, .fn = host_mark, .arg = &o->harg };
    (void)a;
    return add_observed_node(r, i, &np);
}

/* node_mem: a memset or memcpy node, into the graph's one node buffer; a memcpy node from its own source */
int issue_node_data(struct run *r, int i, const struct issue_args *a)
{
    struct sc_node_params np = { .kind = r->op[i].def->cond, .value = r->op[i].fill };
    int rc = 0;
    (void)a;
    np.dst = arena_buffer(r, node_buffer(r->p, i), W_DEV_DST, &rc);
    np.src = rc ? NULL : arena_buffer(r, i, W_DEV_SRC, &rc);
    return rc ? rc : add_node(r, i, &np);
}

int issue_node_event(struct run *r, int i, const struct issue_args *a)
{
    struct sc_node_params np = { .kind = r->op[i].def->cond, .event = r->op[i].event };
    (void)a;
    return add_node(r, i, &np);
}

/* the child is cloned now: the nodes it has so far run in this graph's launches */
int issue_node_child(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    struct sc_node_params np = { .kind = 0, .child = r->graphs[d->graph2] };
    int rc;
    (void)a;
    if ((rc = add_node(r, i, &np)))
        return rc;
    run_by_too(r, i, d->graph2);
    return 0;
}

/*
 * A conditional node (and the kernel node that sets its condition before it), its bodies clones of other
 * graphs of the program.  The nodes of a body the condition runs are waited for like a child's: run by this
 * graph's launches; those of a body it skips are not (a conforming driver never runs them, and their runs are
 * counted after the drain all the same).
 */
int issue_node_cond(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    struct sc_node_params np = { .kind = SC_NODE_COND, .child = r->graphs[d->graph2], .cond_type = SC_COND_TYPE_IF,
                                 .cond_size = 1, .cond_set = 1, .cond_trips = SC_COND_TRIPS };
    int runs = 1, runs2 = 0, rc;
    (void)a;
    switch ((enum sc_cond_how)d->cond) {
    case SC_COND_IF_SET: break;
    case SC_COND_IF_CLEAR: np.cond_set = 0, runs = 0; break;
    case SC_COND_WHILE: np.cond_type = SC_COND_TYPE_WHILE, np.cond_tail = SC_COND_TAIL_COUNT; break;
    case SC_COND_DEFAULT: np.cond_set = -1, np.cond_default = 1, np.cond_assign = 1, np.cond_tail = SC_COND_TAIL_CLEAR; break;
    case SC_COND_DEFAULT_ZERO: np.cond_set = -1, np.cond_assign = 1, np.cond_tail = SC_COND_TAIL_CLEAR, runs = 0; break;
    case SC_COND_SWITCH_0: np.cond_type = SC_COND_TYPE_SWITCH, np.cond_set = 0, runs2 = 0; break;
    case SC_COND_SWITCH_1: np.cond_type = SC_COND_TYPE_SWITCH, np.cond_set = 1, runs = 0, runs2 = 1; break;
    case SC_COND_IF_ELSE_SET: break;
    case SC_COND_IF_ELSE_CLEAR: np.cond_set = 0, runs = 0, runs2 = 1; break;
    case SC_COND_SWITCH_2: np.cond_type = SC_COND_TYPE_SWITCH, np.cond_set = 2, runs = 0; break;
    case SC_COND_WHILE_CLEAR:
        np.cond_type = SC_COND_TYPE_WHILE, np.cond_tail = SC_COND_TAIL_COUNT, np.cond_set = 0, runs = 0;
        break;
    }
    if (d->graph3 >= 0)
        np.cond_size = 2, np.child2 = r->graphs[d->graph3];
    if ((rc = add_node(r, i, &np)))
        return rc;
    for (int j = 0; j < i; j++)
        if ((runs && r->op[j].run_by & (1u << d->graph2)) || (runs2 && d->graph3 >= 0 && r->op[j].run_by & (1u << d->graph3)))
            r->op[j].run_by |= 1u << d->graph;
    return 0;
}

/*
 * node_devlaunch: a kernel node that launches another graph of the program from the device (its mode in cond).
 * The node itself is observed like a kernel node (its slot, written when a launch runs it); the nodes of the
 * graph it launches, added before it, run in this graph's launches, as a child's do.  The backend instantiates
 * that graph for device launch and uploads it here; a driver without device graph launch answers unsupported.
 */
int issue_node_devlaunch(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    struct sc_node_params np = { .kind = SC_NODE_DEVLAUNCH, .child = r->graphs[d->graph2], .dl_mode = d->cond };
    int rc;
    (void)a;
    if ((rc = add_observed_node(r, i, &np)))
        return rc;
    run_by_too(r, i, d->graph2);
    return 0;
}

/* a graph memory allocation node */
int issue_node_alloc(struct run *r, int i, const struct issue_args *a)
{
    struct sc_node_params np = { .kind = SC_NODE_ALLOC };
    (void)a;
    return add_node(r, i, &np);
}

/* a free node of the allocation an allocation node made (the graph of that node: the backend keeps its address) */
int issue_node_free(struct run *r, int i, const struct issue_args *a)
{
    struct sc_node_params np = { .kind = SC_NODE_FREE };
    (void)a;
    np.child = r->graphs[r->op[r->op[i].def->from].def->graph];
    return add_node(r, i, &np);
}

/* a memset node into the stream-ordered allocation, made before it */
int issue_node_memset_alloc(struct run *r, int i, const struct issue_args *a)
{
    struct sc_node_params np = { .kind = r->op[i].def->cond, .value = r->op[i].fill };
    (void)a;
    np.dst = r->buf_ptr[r->op[i].def->buffer];
    return np.dst ? add_node(r, i, &np) : -1;
}

int issue_edge(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    (void)a;
    return r->b->edge_add(r->graphs[d->graph], r->op[d->from].node, r->op[d->to].node);
}

int issue_instantiate(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->graph_instantiate(r->graphs[r->op[i].def->graph], 0, NULL);
}

int issue_instantiate_upload(struct run *r, int i, const struct issue_args *a)
{
    return r->b->graph_instantiate(r->graphs[r->op[i].def->graph], 1, a->stream);
}

/* result_out is its value, whatever code it answers */
static int instantiate_with(struct run *r, int i, unsigned flags)
{
    int result = -1;
    int rc = r->b->graph_instantiate_with(r->graphs[r->op[i].def->graph], flags, &result);
    r->op[i].value = result;
    return rc;
}

int issue_instantiate_checked(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return instantiate_with(r, i, 0);
}

int issue_instantiate_auto_free(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return instantiate_with(r, i, SC_INSTANTIATE_AUTO_FREE);
}

/* later launches run the source graph's nodes (their slots, their tokens) */
int issue_exec_update(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    int rc;
    (void)a;
    if ((rc = r->b->exec_update(r->graphs[d->graph], r->graphs[d->graph2])) == 0) {
        r->runs_nodes_of[d->graph] = r->runs_nodes_of[d->graph2];
        for (int j = 0; j < r->p->nops; j++) { /* later launches of the first graph run the second's */
            unsigned by = r->op[j].run_by & ~(1u << d->graph);
            r->op[j].run_by = r->op[j].run_by & (1u << d->graph2) ? by | 1u << d->graph : by;
        }
    }
    return rc;
}

int issue_exec_destroy(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->exec_destroy(r->graphs[r->op[i].def->graph]);
}

/* ---- executable graph editing ---------------------------------------------------------------------------- */

/* cuGraphNodeSetEnabled: later launches of the graph run the node again, or do not (a launch enqueued before
 * runs it as it was: its launched flag stays) */
int issue_node_enable(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    struct op_rt *n = &r->op[d->to];
    int rc;
    (void)a;
    if ((rc = r->b->node_enable(r->graphs[d->graph], n->node, d->cond)) == 0 && n->captured)
        n->run_by = d->cond ? n->run_by | 1u << d->graph : n->run_by & ~(1u << d->graph);
    return rc;
}

/* the parameters node op j was added with, as its issue function made them */
static int params_of(struct run *r, int j, struct sc_node_params *np)
{
    struct op_rt *o = &r->op[j];
    const struct sc_op_def *d = o->def;
    int rc = 0;
    memset(np, 0, sizeof *np);
    np->flag = r->arena->gate_dev;
    np->max_ns = r->cfg.deadline_ns;
    np->slot = (struct sc_slot *)r->arena->slots_dev + j;
    np->token = o->token;
    np->bytes = sc_copy_bytes;
    switch (d->kind) {
    case SC_OP_NODE: np->kind = d->cond, np->fn = host_mark, np->arg = &o->harg; return 0;
    case SC_OP_NODE_DATA:
        np->kind = d->cond, np->value = o->fill;
        np->dst = arena_buffer(r, node_buffer(r->p, j), W_DEV_DST, &rc);
        np->src = rc ? NULL : arena_buffer(r, j, W_DEV_SRC, &rc);
        return rc;
    case SC_OP_NODE_EVENT: np->kind = d->cond, np->event = o->event; return 0;
    case SC_OP_NODE_CHILD: np->kind = 0, np->child = r->graphs[d->graph2]; return 0;
    default: return -1; /* the generator names no other kind */
    }
}

/*
 * cuGraphExec*NodeSetParams: later launches of the node's graph run the work of node `from` in its place (a
 * marking node's slot, a child's nodes); a launch enqueued before runs the node's own (launched flags stay).
 */
int issue_exec_set_params(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    struct op_rt *n = &r->op[d->to], *from = &r->op[d->from];
    struct sc_node_params np;
    unsigned g = 1u << d->graph;
    int rc;
    (void)a;
    if ((rc = params_of(r, d->from, &np)) || (rc = r->b->exec_node_set(r->graphs[d->graph], n->node, &np)))
        return rc;
    if (n->captured) /* a marking node: its slot is written no more, the other's is */
        n->run_by &= ~g, from->run_by |= g;
    if (n->def->kind == SC_OP_NODE_CHILD) { /* the nodes of the other child run in its place */
        unsigned was = 1u << n->def->graph2, now = 1u << from->def->graph2;
        for (int j = 0; j < r->p->nops; j++)
            if (r->op[j].run_by & was && j != d->to)
                r->op[j].run_by &= ~g;
        for (int j = 0; j < r->p->nops; j++)
            if (r->op[j].run_by & now && j < d->from)
                r->op[j].run_by |= g;
    }
    return 0;
}
