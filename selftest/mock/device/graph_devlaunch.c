/*
 * graph_devlaunch.c - graphs launched from the device (node_faf, node_sibling, node_tail): where a launch of
 * the graph that holds such a node (graphs.c, launch_built) enqueues the graph it launches, and when the
 * launching graph's tail launches start.
 */
#define _GNU_SOURCE
#include "mock.h"

/*
 * A node_faf / node_sibling / node_tail node is a kernel that marks its slot; the graph it launches (cloned when
 * the node was added: its instantiation for device launch) is enqueued here, after that kernel's item.  A
 * fire-and-forget or sibling launch starts at once (faf_deferred: a fire-and-forget one waits as a tail launch);
 * a tail launch is kept for launch_built, which starts the tail launches one after another once the launching
 * graph's nodes and its fire-and-forget children completed (its environment).  The launch stream's later work
 * waits for all of them. */
void device_launch(struct mnode *nd, struct mstream *ns, uint64_t pos, struct mlaunch *l)
{
    if (breaks(devlaunch_refused))
        return; /* run_refused_launch: the launch answered an error, nothing runs */
    struct dep here = { ns, pos };
    struct mgraph *c = nd->child;
    int mode = nd->np.dl_mode;
    if (mode == SC_DL_FAF && breaks(faf_deferred))
        mode = SC_DL_TAIL;
    if (mode == SC_DL_TAIL && breaks(tail_immediate)) { /* at once, waited for by the stream only */
        launch_nodes(c->nodes, c->nnodes, &here, 1, l);
        l->sib[l->nsib++] = c;
        return;
    }
    if (mode == SC_DL_TAIL) {
        l->tail[l->ntail++] = c;
        return;
    }
    launch_nodes(c->nodes, c->nnodes, &here, 1, l);
    if (mode == SC_DL_FAF || breaks(sibling_gates_tail))
        l->faf[l->nfaf++] = c;
    else
        l->sib[l->nsib++] = c;
}
/* One item on a stream of its own after the nodes given, and after every node of the graphs given (it takes the
 * registry lock); its position. */
struct dep join_nodes(const struct mnode *nodes, int n, struct mgraph *const *gs, int ngs, const struct dep *also)
{
    struct mstream *js = new_stream(KIND_NONBLOCKING);
    struct dep d;
    pthread_mutex_lock(&registry);
    if (also)
        push(js, ITEM_WAIT, NULL, NULL, also->s, also->pos, 0);
    for (int k = 0; k < n; k++)
        push(js, ITEM_WAIT, NULL, NULL, nodes[k].ran_on, nodes[k].ran_at, 0);
    for (int g = 0; g < ngs; g++)
        for (int k = 0; k < gs[g]->nnodes; k++)
            push(js, ITEM_WAIT, NULL, NULL, gs[g]->nodes[k].ran_on, gs[g]->nodes[k].ran_at, 0);
    d = (struct dep){ js, push(js, ITEM_FN, NULL, NULL, NULL, 0, 0) };
    pthread_mutex_unlock(&registry);
    return d;
}
/* After the launching graph's nodes were enqueued (their end: env): its tail launches, one after another, each
 * after the environment (the graph and its fire-and-forget children) and the tail launch before it. */
void launch_tails(struct mlaunch *l, struct dep env)
{
    struct dep after;
    if (!breaks(tail_before_children))
        env = join_nodes(NULL, 0, l->faf, l->nfaf, &env);
    after = env;
    for (int t = 0; t < l->ntail; t++) {
        launch_nodes(l->tail[t]->nodes, l->tail[t]->nnodes, &after, 1, l);
        if (!breaks(tails_concurrent))
            after = join_nodes(NULL, 0, &l->tail[t], 1, NULL);
    }
}
