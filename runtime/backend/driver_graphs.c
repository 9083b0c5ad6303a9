/*
 * driver_graphs.c - graphs through the driver API: graphs of one kernel node,
 * graphs built by hand and their executable graphs, and stream capture.
 */
#define _GNU_SOURCE /* clock_gettime */
#include "driver.h"
#include "fatbin.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* -- graphs of one kernel node ------------------------------------------- */

struct graph {
    CUgraph g;
    CUgraphExec exec;
    CUgraphNode node;
    CUfunction fn;
    CUdeviceptr alloc; /* the address of its memory allocation node (one at most), or 0 */
    CUgraphNode alloc_node;  /* that allocation node */
    int frees_own;     /* a free node of it frees that allocation: no launch leaves it unfreed */
    int launched;      /* a launch of it succeeded: its allocation may be left unfreed */
    CUgraphExec dexec; /* instantiated for device launch and uploaded by the first node_devlaunch of it, or NULL */
};

static void node_params(CUDA_KERNEL_NODE_PARAMS *kp, CUfunction fn, void **args)
{
    memset(kp, 0, sizeof *kp);
    kp->func = fn;
    kp->gridDimX = kp->gridDimY = kp->gridDimZ = 1;
    kp->blockDimX = kp->blockDimY = kp->blockDimZ = 1;
    kp->kernelParams = args;
}

/* The arguments of a gate or marking kernel node (np->kind), kept where the call that copies them reads them. */
struct node_args {
    void *flag, *slot;
    uint64_t max_ns;
    uint32_t token;
    void *gate[4], *mark[2];
};
static void kernel_node_params(CUDA_KERNEL_NODE_PARAMS *kp, const struct sc_node_params *np, struct node_args *a)
{
    *a = (struct node_args){ .flag = np->flag, .slot = np->slot, .max_ns = np->max_ns, .token = np->token };
    a->gate[0] = &a->flag, a->gate[1] = &a->max_ns, a->gate[2] = &a->slot, a->gate[3] = &a->token;
    a->mark[0] = &a->slot, a->mark[1] = &a->token;
    node_params(kp, np->kind == SC_NODE_GATE ? drv_kernels()->gate : drv_kernels()->mark,
                np->kind == SC_NODE_GATE ? a->gate : a->mark);
}

int drv_graph_create(void **out, int gate)
{
    struct graph *gr = calloc(1, sizeof *gr);
    CUDA_KERNEL_NODE_PARAMS kp;
    void *ptr = NULL;
    uint64_t max_ns = 0;
    uint32_t token = 0;
    void *gate_args[] = { &ptr, &max_ns, &ptr, &token }, *mark_args[] = { &ptr, &token };
    int rc;
    if (!gr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    gr->fn = gate ? drv_gpus[drv_cur].gate : drv_gpus[drv_cur].mark;
    node_params(&kp, gr->fn, gate ? gate_args : mark_args); /* the real arguments come with each launch */
    if ((rc = SC_CALL(cuGraphCreate, &gr->g, 0)) || (rc = SC_CALL(cuGraphAddKernelNode, &gr->node, gr->g, NULL, 0, &kp)) ||
        (rc = SC_CALL(cuGraphInstantiate, &gr->exec, gr->g, 0))) {
        if (gr->g)
            SC_CALL(cuGraphDestroy, gr->g);
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
int drv_graph_launch(void *g, void *s, void **args)
{
    struct graph *gr = g;
    CUDA_KERNEL_NODE_PARAMS kp;
    int rc;
    node_params(&kp, gr->fn, args);
    if ((rc = SC_CALL(cuGraphExecKernelNodeSetParams, gr->exec, gr->node, &kp)))
        return rc;
    return SC_CALL(cuGraphLaunch, gr->exec, (CUstream)s);
}
int drv_graph_destroy(void *g)
{
    struct graph *gr = g;
    if (gr->alloc && gr->launched && !gr->frees_own) { /* what its last launch allocated ("passing the allocation to
                                      * cuMemFreeAsync"); an error (nothing left allocated) is no concern here */
        if (SC_CALL(cuMemFreeAsync, gr->alloc, CU_STREAM_LEGACY) == 0)
            SC_CALL(cuStreamSynchronize, CU_STREAM_LEGACY);
    }
    if (gr->exec) /* none before the instantiate, none after exec_destroy */
        SC_CALL(cuGraphExecDestroy, gr->exec);
    if (gr->dexec)
        SC_CALL(cuGraphExecDestroy, gr->dexec);
    if (gr->g)
        SC_CALL(cuGraphDestroy, gr->g);
    free(gr);
    return 0;
}

/* -- graphs built by hand -------------------------------------------------- */

int drv_graph_new(void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if ((rc = SC_CALL(cuGraphCreate, &gr->g, 0))) {
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
/* -- conditional nodes ---------------------------------------------------
 * Their kernels (kernels/streamcts_cond.cu) are a module of their own, loaded into a context the first time
 * a conditional node is added there (kept for a device's primary context, loaded again for a context made
 * during the run).  A driver without conditional nodes (no cuGraphConditionalHandleCreate: before CUDA
 * 12.3; or one that refuses the handle, the node or the module of cudaGraphSetConditional) skips the point.
 *
 * A module of the suite's own kernels (a fatbin of its own: conditional nodes, device graph launch), loaded
 * into a context the first time its functions are asked for there: kept for a device's primary context,
 * loaded again for a context made during the run.  A driver that cannot load it answers SC_UNSUPPORTED (or the
 * code of an entry point it lacks). */
struct kept_module {
    const unsigned char *fatbin;
    const char *names[2]; /* its functions, NULL after the last */
    pthread_mutex_t mu;
    struct { CUcontext ctx; CUfunction fn[2]; } kept[SC_MAX_DEVICES];
};
static int module_functions(struct kept_module *km, CUcontext ctx, CUfunction fn[2])
{
    int primary = -1, rc = 0;
    CUmodule m;
    for (int d = 0; d < SC_MAX_DEVICES; d++)
        if (drv_gpus[d].open && drv_gpus[d].ctx == ctx)
            primary = d;
    pthread_mutex_lock(&km->mu);
    if (primary >= 0 && km->kept[primary].ctx == ctx) {
        fn[0] = km->kept[primary].fn[0], fn[1] = km->kept[primary].fn[1];
    } else {
        fn[0] = fn[1] = NULL;
        rc = SC_CALL(cuModuleLoadData, &m, km->fatbin);
        for (int i = 0; !rc && i < 2 && km->names[i]; i++)
            rc = SC_CALL(cuModuleGetFunction, &fn[i], m, km->names[i]);
        if (rc)
            rc = SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
        else if (primary >= 0)
            km->kept[primary].ctx = ctx, km->kept[primary].fn[0] = fn[0], km->kept[primary].fn[1] = fn[1];
    }
    pthread_mutex_unlock(&km->mu);
    return rc;
}
/* the conditional nodes' module: cudaGraphSetConditional's callers */
static struct kept_module cond_module = { sc_cond_fatbin, { "sc_cond_set", "sc_cond_count" },
                                          PTHREAD_MUTEX_INITIALIZER, { { 0 } } };
static int cond_kernels(CUcontext ctx, CUfunction *set, CUfunction *count)
{
    CUfunction fn[2];
    int rc = module_functions(&cond_module, ctx, fn);
    *set = fn[0], *count = fn[1];
    return rc;
}

/* a kernel node of fn (one thread) in graph, after the node `after` (NULL: none) */
static int cond_kernel_node(CUgraphNode *out, CUgraph graph, CUfunction fn, void **args, CUgraphNode after)
{
    CUDA_KERNEL_NODE_PARAMS kp;
    node_params(&kp, fn, args);
    return SC_CALL(cuGraphAddKernelNode, out, graph, after ? &after : NULL, after ? 1 : 0, &kp);
}

/* the conditional node, its bodies, and the kernel node that sets its condition before it (backend.h) */
static int cond_node_add(CUgraph graph, const struct sc_node_params *np, CUgraphNode *out)
{
    const struct made *k = drv_kernels();
    CUfunction set, count;
    CUgraphConditionalHandle h;
    CUgraphNodeParams cp;
    CUgraphNode child, tail, setter;
    void *bodies[2] = { np->child, np->child2 };
    unsigned zero = 0, value = np->cond_set >= 0 ? (unsigned)np->cond_set : 0, trips = np->cond_trips;
    void *slot = np->slot;
    void *clear_args[] = { &h, &zero }, *count_args[] = { &h, &slot, &trips }, *set_args[] = { &h, &value };
    int rc;
    if (!drv.cuGraphConditionalHandleCreate || !drv.cuGraphAddNode)
        return SC_UNSUPPORTED; /* conditional nodes: CUDA 12.3 and later */
    if ((rc = cond_kernels(k->ctx, &set, &count)))
        return rc;
    rc = SC_CALL(cuGraphConditionalHandleCreate, &h, graph, k->ctx, np->cond_default,
                 np->cond_assign ? CU_GRAPH_COND_ASSIGN_DEFAULT : 0);
    if (rc == CUDA_ERROR_NOT_SUPPORTED)
        return SC_UNSUPPORTED;
    if (rc)
        return rc;
    memset(&cp, 0, sizeof cp);
    cp.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
    cp.conditional.handle = h;
    cp.conditional.type = (CUgraphConditionalNodeType)np->cond_type;
    cp.conditional.size = (unsigned)np->cond_size;
    cp.conditional.ctx = k->ctx;
    rc = SC_CALL(cuGraphAddNode, out, graph, NULL, NULL, 0, &cp);
    if (rc == CUDA_ERROR_NOT_SUPPORTED || (rc == CUDA_ERROR_INVALID_VALUE && np->cond_size == 2 && np->cond_type == 0))
        return SC_UNSUPPORTED; /* (an IF node with an ELSE body: CUDA 12.8 and later) */
    for (int b = 0; b < np->cond_size && !rc; b++) /* each body: a clone of its graph */
        rc = SC_CALL(cuGraphAddChildGraphNode, &child, cp.conditional.phGraph_out[b], NULL, 0,
                     ((struct graph *)bodies[b])->g);
    if (!rc && np->cond_tail) /* after body 0's clone: clear the condition, or count and clear */
        rc = cond_kernel_node(&tail, cp.conditional.phGraph_out[0], np->cond_tail == SC_COND_TAIL_CLEAR ? set : count,
                              np->cond_tail == SC_COND_TAIL_CLEAR ? clear_args : count_args, np->cond_size == 1 ? child : NULL);
    if (!rc && np->cond_set >= 0 && !(rc = cond_kernel_node(&setter, graph, set, set_args, NULL)))
        rc = SC_CALL(cuGraphAddDependencies, graph, &setter, out, NULL, 1);
    return rc;
}

/* -- device graph launch ---------------------------------------------------
 * The launching kernel (kernels/streamcts_devlaunch.cu) is a module of its own, loaded as the conditional
 * nodes' kernels are.  The launched graph is instantiated with CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH and
 * uploaded (CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) into a stream of the backend's own, waited for with a deadline.
 * A driver that refuses the module or the flag (no device graph launch, or no unified addressing) skips the
 * point. */
/* the device-side cudaGraphLaunch's caller */
static struct kept_module devlaunch_module = { sc_devlaunch_fatbin, { "sc_dl_launch", NULL },
                                               PTHREAD_MUTEX_INITIALIZER, { { 0 } } };
static int devlaunch_kernel(CUcontext ctx, CUfunction *fn)
{
    CUfunction f[2];
    int rc = module_functions(&devlaunch_module, ctx, f);
    *fn = f[0];
    return rc;
}
static int devlaunch_exec(struct graph *child)
{
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    CUstream up;
    int rc;
    if (child->dexec)
        return 0;
    if ((rc = SC_CALL(cuStreamCreate, &up, CU_STREAM_NON_BLOCKING)))
        return rc;
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH | CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    ip.hUploadStream = up;
    rc = SC_CALL(cuGraphInstantiateWithParams, &child->dexec, child->g, &ip);
    if (rc == CUDA_ERROR_NOT_SUPPORTED)
        rc = SC_UNSUPPORTED; /* no device graph launch here */
    if (rc)
        child->dexec = NULL;
    else { /* the upload: a few milliseconds; 10 s is a deadline, not an estimate */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while ((rc = SC_CALL(cuStreamQuery, up)) == CUDA_ERROR_NOT_READY) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 10)
                break;
            sched_yield();
        }
    }
    SC_CALL(cuStreamDestroy, up);
    return rc;
}
static int devlaunch_node_add(CUgraph graph, const struct sc_node_params *np, CUgraphNode *out)
{
    CUDA_KERNEL_NODE_PARAMS kp;
    CUfunction fn;
    CUgraphExec g1, g2 = NULL;
    unsigned m1 = (unsigned)np->dl_mode, m2 = 0;
    const void *flag = NULL;
    uint64_t max_ns = np->max_ns;
    void *slot = np->slot;
    uint32_t token = np->token;
    void *args[] = { &g1, &m1, &g2, &m2, &flag, &max_ns, &slot, &token };
    int rc;
    if ((rc = devlaunch_kernel(drv_kernels()->ctx, &fn)) || (rc = devlaunch_exec(np->child)))
        return rc;
    g1 = ((struct graph *)np->child)->dexec;
    node_params(&kp, fn, args);
    return SC_CALL(cuGraphAddKernelNode, out, graph, NULL, 0, &kp);
}

/* a memset node's parameters: np->value into np->bytes of np->dst */
static void memset_params(CUDA_MEMSET_NODE_PARAMS *mp, const struct sc_node_params *np)
{
    memset(mp, 0, sizeof *mp);
    mp->dst = DPTR(np->dst);
    mp->value = np->value;
    mp->elementSize = 1;
    mp->width = np->bytes;
    mp->height = 1;
    mp->pitch = np->bytes;
}
/* a memcpy node's parameters: np->bytes from np->src to np->dst, device to device */
static void memcpy_params(CUDA_MEMCPY3D *m, const struct sc_node_params *np)
{
    memset(m, 0, sizeof *m);
    m->srcMemoryType = m->dstMemoryType = CU_MEMORYTYPE_DEVICE;
    m->srcDevice = DPTR(np->src);
    m->dstDevice = DPTR(np->dst);
    m->srcPitch = m->dstPitch = np->bytes; /* one row of one slice */
    m->srcHeight = m->dstHeight = 1;
    m->WidthInBytes = np->bytes;
    m->Height = m->Depth = 1;
}

int drv_node_add(void *g, const struct sc_node_params *np, void **node)
{
    CUgraph graph = ((struct graph *)g)->g;
    CUgraphNode *out = (CUgraphNode *)node;
    CUDA_KERNEL_NODE_PARAMS kp;
    struct node_args args;
    switch (np->kind) {
    case SC_NODE_GATE:
    case SC_NODE_KERNEL: /* the kernel's arguments are copied by the call */
        kernel_node_params(&kp, np, &args);
        return SC_CALL(cuGraphAddKernelNode, out, graph, NULL, 0, &kp);
    case SC_NODE_HOST: {
        CUDA_HOST_NODE_PARAMS hp = { np->fn, np->arg };
        return SC_CALL(cuGraphAddHostNode, out, graph, NULL, 0, &hp);
    }
    case SC_NODE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS mp;
        memset_params(&mp, np);
        return SC_CALL(cuGraphAddMemsetNode, out, graph, NULL, 0, &mp, drv_kernels()->ctx);
    }
    case SC_NODE_MEMCPY: {
        CUDA_MEMCPY3D m;
        memcpy_params(&m, np);
        return SC_CALL(cuGraphAddMemcpyNode, out, graph, NULL, 0, &m, drv_kernels()->ctx);
    }
    case SC_NODE_ALLOC: { /* device memory of the current device, freed by no node of the graph */
        CUDA_MEM_ALLOC_NODE_PARAMS ap;
        int rc;
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
        ap.poolProps.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
        ap.poolProps.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        ap.poolProps.location.id = (int)drv_gpus[drv_cur].dev;
        ap.bytesize = np->bytes;
        rc = SC_CALL(cuGraphAddMemAllocNode, out, graph, NULL, 0, &ap);
        if (rc == CUDA_ERROR_NOT_SUPPORTED)
            return SC_UNSUPPORTED; /* no graph memory nodes (no memory pools) on this device */
        if (rc == 0)
            ((struct graph *)g)->alloc = ap.dptr, ((struct graph *)g)->alloc_node = *out;
        return rc;
    }
    case SC_NODE_FREE: { /* the allocation of child's allocation node, after that node where it is of this graph (a
                          * free is ordered after its allocation); the code is the op's answer */
        struct graph *owner = np->child;
        int rc = SC_CALL(cuGraphAddMemFreeNode, out, graph, owner == g ? &owner->alloc_node : NULL,
                         owner == g ? 1 : 0, owner->alloc);
        if (rc == 0 && owner == g)
            owner->frees_own = 1; /* "These allocations cannot be freed outside the owning graph" */
        return rc;
    }
    case SC_NODE_RECORD: return SC_CALL(cuGraphAddEventRecordNode, out, graph, NULL, 0, (CUevent)np->event);
    case SC_NODE_WAIT: return SC_CALL(cuGraphAddEventWaitNode, out, graph, NULL, 0, (CUevent)np->event);
    case SC_NODE_COND: return cond_node_add(graph, np, out);
    case SC_NODE_DEVLAUNCH: return devlaunch_node_add(graph, np, out);
    default: return SC_CALL(cuGraphAddChildGraphNode, out, graph, NULL, 0, ((struct graph *)np->child)->g);
    }
}
int drv_edge_add(void *g, void *from, void *to)
{
    CUgraphNode a = from, b = to;
    return SC_CALL(cuGraphAddDependencies, ((struct graph *)g)->g, &a, &b, NULL, 1);
}
int drv_graph_instantiate(void *g, int upload, void *s)
{
    struct graph *gr = g;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    if (!upload)
        return SC_CALL(cuGraphInstantiate, &gr->exec, gr->g, 0);
    memset(&ip, 0, sizeof ip);
    ip.flags = CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD;
    ip.hUploadStream = (CUstream)s;
    return SC_CALL(cuGraphInstantiateWithParams, &gr->exec, gr->g, &ip);
}
/* result_out is kept whatever the call answers (CUDA_GRAPH_INSTANTIATE_ERROR where it set none) */
int drv_graph_instantiate_with(void *g, unsigned flags, int *result)
{
    struct graph *gr = g;
    CUDA_GRAPH_INSTANTIATE_PARAMS ip;
    int rc;
    memset(&ip, 0, sizeof ip);
    ip.flags = flags & SC_INSTANTIATE_AUTO_FREE ? CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH : 0;
    ip.result_out = CUDA_GRAPH_INSTANTIATE_ERROR;
    rc = SC_CALL(cuGraphInstantiateWithParams, &gr->exec, gr->g, &ip);
    if (rc)
        gr->exec = NULL;
    *result = (int)ip.result_out;
    return rc;
}
int drv_exec_update(void *g, void *from)
{
    CUgraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    return SC_CALL(cuGraphExecUpdate, ((struct graph *)g)->exec, ((struct graph *)from)->g, &info);
}
/* a driver (or a layer standing in for one) without executable graph editing: the point skips */
static int edit_answer(int rc)
{
    return rc == CUDA_ERROR_NOT_SUPPORTED ? SC_UNSUPPORTED : rc;
}
int drv_node_enable(void *g, void *node, int enable)
{
    return edit_answer(SC_CALL(cuGraphNodeSetEnabled, ((struct graph *)g)->exec, (CUgraphNode)node, enable ? 1u : 0u));
}
static int exec_node_set(void *g, void *node, const struct sc_node_params *np);
int drv_exec_node_set(void *g, void *node, const struct sc_node_params *np)
{
    return edit_answer(exec_node_set(g, node, np));
}
/* the node takes np, parameters of its own kind: later launches of the executable graph run them */
static int exec_node_set(void *g, void *node, const struct sc_node_params *np)
{
    CUgraphExec exec = ((struct graph *)g)->exec;
    CUgraphNode n = node;
    switch (np->kind) {
    case SC_NODE_GATE:
    case SC_NODE_KERNEL: { /* the kernel's arguments are copied by the call */
        CUDA_KERNEL_NODE_PARAMS kp;
        struct node_args args;
        kernel_node_params(&kp, np, &args);
        return SC_CALL(cuGraphExecKernelNodeSetParams, exec, n, &kp);
    }
    case SC_NODE_HOST: {
        CUDA_HOST_NODE_PARAMS hp = { np->fn, np->arg };
        return SC_CALL(cuGraphExecHostNodeSetParams, exec, n, &hp);
    }
    case SC_NODE_MEMSET: {
        CUDA_MEMSET_NODE_PARAMS mp;
        memset_params(&mp, np);
        return SC_CALL(cuGraphExecMemsetNodeSetParams, exec, n, &mp, drv_kernels()->ctx);
    }
    case SC_NODE_MEMCPY: {
        CUDA_MEMCPY3D m;
        memcpy_params(&m, np);
        return SC_CALL(cuGraphExecMemcpyNodeSetParams, exec, n, &m, drv_kernels()->ctx);
    }
    case SC_NODE_RECORD: return SC_CALL(cuGraphExecEventRecordNodeSetEvent, exec, n, (CUevent)np->event);
    case SC_NODE_WAIT: return SC_CALL(cuGraphExecEventWaitNodeSetEvent, exec, n, (CUevent)np->event);
    case 0: return SC_CALL(cuGraphExecChildGraphNodeSetParams, exec, n, ((struct graph *)np->child)->g);
    default: return CUDA_ERROR_INVALID_VALUE; /* the generator sets no other kind */
    }
}
int drv_exec_destroy(void *g)
{
    struct graph *gr = g;
    int rc = SC_CALL(cuGraphExecDestroy, gr->exec);
    if (rc == 0)
        gr->exec = NULL;
    return rc;
}

/* -- stream capture --------------------------------------------------------- */

static CUstreamCaptureMode capture_mode_of(int mode)
{
    return mode == SC_CAPTURE_THREAD_LOCAL ? CU_STREAM_CAPTURE_MODE_THREAD_LOCAL
           : mode == SC_CAPTURE_RELAXED    ? CU_STREAM_CAPTURE_MODE_RELAXED
                                           : CU_STREAM_CAPTURE_MODE_GLOBAL;
}
int drv_capture_begin(void *s, int mode)
{
    return SC_CALL(cuStreamBeginCapture, (CUstream)s, capture_mode_of(mode));
}
/* into a graph built by hand: a capability of CUDA 12.3 and later (a library without the call skips the point) */
int drv_capture_to(void *s, void *g, void *dep, int mode)
{
    CUgraphNode d = dep;
    if (!drv.cuStreamBeginCaptureToGraph)
        return SC_UNSUPPORTED;
    return SC_CALL(cuStreamBeginCaptureToGraph, (CUstream)s, ((struct graph *)g)->g, d ? &d : NULL, NULL, d ? 1 : 0,
                   capture_mode_of(mode));
}
int drv_capture_end_to(void *s, void *g, int *same)
{
    CUgraph got = NULL;
    int rc = SC_CALL(cuStreamEndCapture, (CUstream)s, &got);
    *same = got != NULL && got == ((struct graph *)g)->g;
    if (got && !*same)
        SC_CALL(cuGraphDestroy, got);
    return rc;
}
int drv_capture_end(void *s)
{
    CUgraph g = NULL;
    int rc = SC_CALL(cuStreamEndCapture, (CUstream)s, &g);
    if (g)
        SC_CALL(cuGraphDestroy, g);
    return rc;
}
/* The captured graph, instantiated; graph_destroy destroys both (the node is unused). */
int drv_capture_keep(void *s, void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return CUDA_ERROR_OUT_OF_MEMORY;
    rc = SC_CALL(cuStreamEndCapture, (CUstream)s, &gr->g);
    if (rc == 0)
        rc = SC_CALL(cuGraphInstantiate, &gr->exec, gr->g, 0);
    if (rc) {
        if (gr->g)
            SC_CALL(cuGraphDestroy, gr->g);
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
int drv_graph_replay(void *g, void *s)
{
    int rc = SC_CALL(cuGraphLaunch, ((struct graph *)g)->exec, (CUstream)s);
    if (rc == 0)
        ((struct graph *)g)->launched = 1; /* an allocation of it may now be left unfreed */
    return rc;
}
/* a capture status as the backends say it (SC_CAPTURE_*) */
static int capture_status_of(CUstreamCaptureStatus st)
{
    return st == CU_STREAM_CAPTURE_STATUS_ACTIVE      ? SC_CAPTURE_ACTIVE
           : st == CU_STREAM_CAPTURE_STATUS_INVALIDATED ? SC_CAPTURE_INVALIDATED
                                                        : SC_CAPTURE_NONE;
}
int drv_capture_status(void *s, int *status)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    int rc = SC_CALL(cuStreamIsCapturing, (CUstream)s, &st);
    *status = capture_status_of(st);
    return rc;
}

int drv_capture_info(void *s, int *status, uint64_t *id, size_t *ndeps)
{
    CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
    cuuint64_t v = 0;
    const CUgraphNode *deps = NULL;
    const CUgraphEdgeData *edges = NULL;
    size_t n = 0;
    int rc = SC_CALL(cuStreamGetCaptureInfo, (CUstream)s, &st, &v, NULL, &deps, &edges, &n);
    *status = capture_status_of(st);
    *id = v, *ndeps = n;
    return rc;
}
int drv_capture_sever(void *s)
{
    return SC_CALL(cuStreamUpdateCaptureDependencies, (CUstream)s, NULL, NULL, 0, CU_STREAM_SET_CAPTURE_DEPENDENCIES);
}

int drv_thread_capture_relaxed(void)
{
    CUstreamCaptureMode m = CU_STREAM_CAPTURE_MODE_RELAXED;
    return SC_CALL(cuThreadExchangeStreamCaptureMode, &m);
}
