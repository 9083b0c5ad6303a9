/*
 * runtime_graphs.c - graphs through the runtime API: graphs of one kernel
 * node, graphs built by hand and their executable graphs, and stream capture.
 */
#define _GNU_SOURCE /* clock_gettime */
#include "runtime.h"
#include "fatbin.h"
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* -- graphs of one kernel node ---------------------------------------------
 * Built by capturing one launch in a private stream; each launch sets the
 * node's arguments (the kernel is named by its cudaKernel_t, as for
 * cudaLaunchKernel: cudaGraphKernelNodeGetParams refuses library kernels). */

struct graph {
    cudaGraph_t g;
    cudaGraphExec_t exec;
    cudaGraphNode_t node;
    cudaKernel_t kernel;
    void *alloc;  /* the address of its memory allocation node (one at most), or NULL */
    cudaGraphNode_t alloc_node;  /* that allocation node */
    int frees_own; /* a free node of it frees that allocation: no launch leaves it unfreed */
    int launched; /* a launch of it succeeded: its allocation may be left unfreed */
    cudaGraphExec_t dexec; /* instantiated for device launch and uploaded by the first node_devlaunch of it */
};

int rt_graph_create(void **out, int gate)
{
    struct graph *gr = calloc(1, sizeof *gr);
    cudaStream_t s = NULL;
    size_t n = 1;
    int rc;
    if (!gr)
        return cudaErrorMemoryAllocation;
    gr->kernel = gate ? rt_k_gate : rt_k_mark;
    if ((rc = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)))
        goto fail;
    if ((rc = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed)))
        goto fail;
    rc = gate ? rt_launch_gate(s, NULL, 0, NULL, 0) : rt_launch_mark(s, NULL, 0);
    int end = cudaStreamEndCapture(s, &gr->g);
    if (rc || (rc = end) || (rc = cudaGraphGetNodes(gr->g, &gr->node, &n)) ||
        (rc = cudaGraphInstantiate(&gr->exec, gr->g, 0)))
        goto fail;
    cudaStreamDestroy(s);
    *out = gr;
    return 0;
fail:
    if (gr->g)
        cudaGraphDestroy(gr->g);
    if (s)
        cudaStreamDestroy(s);
    free(gr);
    return rc;
}
int rt_graph_launch(void *g, void *s, void **args)
{
    struct graph *gr = g;
    struct cudaKernelNodeParams kp;
    int rc;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)gr->kernel;
    kp.gridDim = (dim3){ 1, 1, 1 };
    kp.blockDim = (dim3){ 1, 1, 1 };
    kp.kernelParams = args;
    if ((rc = cudaGraphExecKernelNodeSetParams(gr->exec, gr->node, &kp)))
        return rc;
    return cudaGraphLaunch(gr->exec, (cudaStream_t)s);
}
int rt_graph_destroy(void *g)
{
    struct graph *gr = g;
    if (gr->alloc && gr->launched && !gr->frees_own) { /* what its last launch allocated ("passing the allocation to
                                      * cudaFreeAsync"); an error (nothing left allocated) is no concern here */
        if (cudaFreeAsync(gr->alloc, cudaStreamLegacy) == cudaSuccess)
            cudaStreamSynchronize(cudaStreamLegacy);
        cudaGetLastError(); /* not this thread's error state to keep */
    }
    if (gr->exec) /* none before the instantiate, none after exec_destroy */
        cudaGraphExecDestroy(gr->exec);
    if (gr->dexec)
        cudaGraphExecDestroy(gr->dexec);
    if (gr->g)
        cudaGraphDestroy(gr->g);
    free(gr);
    return 0;
}

/* -- graphs built by hand -------------------------------------------------- */

int rt_graph_new(void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return cudaErrorMemoryAllocation;
    if ((rc = cudaGraphCreate(&gr->g, 0))) {
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
/* -- conditional nodes ---------------------------------------------------
 * Their kernels (kernels/streamcts_cond.cu) are a library of their own (cudaLibraryLoadData, context-less
 * cudaKernel_t), loaded the first time a conditional node is added; a runtime or driver that cannot load it
 * (cudaGraphSetConditional unresolved), or refuses the handle or the node, skips the point. */
/* A library of the suite's own kernels (a fatbin of its own: conditional nodes, device graph launch), loaded
 * once, the first time its kernels are asked for; one the runtime cannot load answers SC_UNSUPPORTED. */
struct kept_library {
    const unsigned char *fatbin;
    const char *names[2]; /* its kernels, NULL after the last */
    pthread_mutex_t mu;
    int state; /* -1: not loaded yet; 0: loaded; SC_UNSUPPORTED */
    cudaKernel_t k[2];
};
static int library_kernels(struct kept_library *kl, cudaKernel_t k[2])
{
    cudaLibrary_t lib;
    pthread_mutex_lock(&kl->mu);
    if (kl->state < 0) {
        kl->state = cudaLibraryLoadData(&lib, kl->fatbin, NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess
                        ? SC_UNSUPPORTED : 0;
        for (int i = 0; !kl->state && i < 2 && kl->names[i]; i++)
            if (cudaLibraryGetKernel(&kl->k[i], lib, kl->names[i]) != cudaSuccess)
                kl->state = SC_UNSUPPORTED;
    }
    k[0] = kl->k[0], k[1] = kl->k[1];
    pthread_mutex_unlock(&kl->mu);
    return kl->state;
}
/* the conditional nodes' library: cudaGraphSetConditional's callers */
static struct kept_library cond_library = { sc_cond_fatbin, { "sc_cond_set", "sc_cond_count" },
                                            PTHREAD_MUTEX_INITIALIZER, -1, { 0 } };
static int cond_kernels(cudaKernel_t *set, cudaKernel_t *count)
{
    cudaKernel_t k[2];
    int rc = library_kernels(&cond_library, k);
    *set = k[0], *count = k[1];
    return rc;
}

/* a kernel node of k (one thread) in graph, after the node `after` (NULL: none) */
static int cond_kernel_node(cudaGraphNode_t *out, cudaGraph_t graph, cudaKernel_t k, void **args, cudaGraphNode_t after)
{
    struct cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)k;
    kp.gridDim = (dim3){ 1, 1, 1 };
    kp.blockDim = (dim3){ 1, 1, 1 };
    kp.kernelParams = args;
    return cudaGraphAddKernelNode(out, graph, after ? &after : NULL, after ? 1 : 0, &kp);
}

/* the conditional node, its bodies, and the kernel node that sets its condition before it (backend.h) */
static int cond_node_add(cudaGraph_t graph, const struct sc_node_params *np, cudaGraphNode_t *out)
{
    cudaKernel_t set, count;
    cudaGraphConditionalHandle h;
    struct cudaGraphNodeParams cp;
    cudaGraphNode_t child = NULL, tail, setter;
    void *bodies[2] = { np->child, np->child2 };
    unsigned zero = 0, value = np->cond_set >= 0 ? (unsigned)np->cond_set : 0, trips = np->cond_trips;
    void *slot = np->slot;
    void *clear_args[] = { &h, &zero }, *count_args[] = { &h, &slot, &trips }, *set_args[] = { &h, &value };
    int rc;
    if ((rc = cond_kernels(&set, &count)))
        return rc;
    rc = cudaGraphConditionalHandleCreate(&h, graph, np->cond_default, np->cond_assign ? cudaGraphCondAssignDefault : 0);
    if (rc == cudaErrorNotSupported || rc == cudaErrorCallRequiresNewerDriver)
        return SC_UNSUPPORTED;
    if (rc)
        return rc;
    memset(&cp, 0, sizeof cp);
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = (enum cudaGraphConditionalNodeType)np->cond_type;
    cp.conditional.size = (unsigned)np->cond_size;
    rc = cudaGraphAddNode(out, graph, NULL, NULL, 0, &cp);
    if (rc == cudaErrorNotSupported || (rc == cudaErrorInvalidValue && np->cond_size == 2 && np->cond_type == 0))
        return SC_UNSUPPORTED; /* (an IF node with an ELSE body: CUDA 12.8 and later) */
    for (int b = 0; b < np->cond_size && !rc; b++) /* each body: a clone of its graph */
        rc = cudaGraphAddChildGraphNode(&child, cp.conditional.phGraph_out[b], NULL, 0, ((struct graph *)bodies[b])->g);
    if (!rc && np->cond_tail) /* after body 0's clone: clear the condition, or count and clear */
        rc = cond_kernel_node(&tail, cp.conditional.phGraph_out[0], np->cond_tail == SC_COND_TAIL_CLEAR ? set : count,
                              np->cond_tail == SC_COND_TAIL_CLEAR ? clear_args : count_args, np->cond_size == 1 ? child : NULL);
    if (!rc && np->cond_set >= 0 && !(rc = cond_kernel_node(&setter, graph, set, set_args, NULL)))
        rc = cudaGraphAddDependencies(graph, &setter, out, NULL, 1);
    return rc;
}

/* -- device graph launch ---------------------------------------------------
 * The launching kernel (kernels/streamcts_devlaunch.cu) is a library of its own, loaded as the conditional
 * nodes' kernels are.  The launched graph is instantiated with cudaGraphInstantiateFlagDeviceLaunch and
 * uploaded (cudaGraphInstantiateFlagUpload) into a stream of the backend's own, waited for with a deadline.
 * A runtime or driver that refuses the library or the flag skips the point. */
/* the device-side cudaGraphLaunch's caller */
static struct kept_library devlaunch_library = { sc_devlaunch_fatbin, { "sc_dl_launch", NULL },
                                                 PTHREAD_MUTEX_INITIALIZER, -1, { 0 } };
static int devlaunch_kernel(cudaKernel_t *k)
{
    cudaKernel_t kk[2];
    int rc = library_kernels(&devlaunch_library, kk);
    *k = kk[0];
    return rc;
}
static int devlaunch_exec(struct graph *child)
{
    cudaGraphInstantiateParams ip;
    cudaStream_t up;
    int rc;
    if (child->dexec)
        return 0;
    if ((rc = cudaStreamCreateWithFlags(&up, cudaStreamNonBlocking)))
        return rc;
    memset(&ip, 0, sizeof ip);
    ip.flags = cudaGraphInstantiateFlagDeviceLaunch | cudaGraphInstantiateFlagUpload;
    ip.uploadStream = up;
    rc = cudaGraphInstantiateWithParams(&child->dexec, child->g, &ip);
    if (rc == cudaErrorNotSupported)
        rc = SC_UNSUPPORTED; /* no device graph launch here */
    if (rc)
        child->dexec = NULL;
    else { /* the upload: a few milliseconds; 10 s is a deadline, not an estimate */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        while ((rc = cudaStreamQuery(up)) == cudaErrorNotReady) {
            clock_gettime(CLOCK_MONOTONIC, &t);
            if (t.tv_sec - t0.tv_sec > 10)
                break;
            sched_yield();
        }
    }
    cudaStreamDestroy(up);
    return rc;
}
static int devlaunch_node_add(cudaGraph_t graph, const struct sc_node_params *np, cudaGraphNode_t *out)
{
    struct cudaKernelNodeParams kp;
    cudaKernel_t k;
    cudaGraphExec_t g1, g2 = NULL;
    unsigned m1 = (unsigned)np->dl_mode, m2 = 0;
    const void *flag = NULL;
    uint64_t max_ns = np->max_ns;
    void *slot = np->slot;
    uint32_t token = np->token;
    void *args[] = { &g1, &m1, &g2, &m2, &flag, &max_ns, &slot, &token };
    int rc;
    if ((rc = devlaunch_kernel(&k)) || (rc = devlaunch_exec(np->child)))
        return rc;
    g1 = ((struct graph *)np->child)->dexec;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)k;
    kp.gridDim = (dim3){ 1, 1, 1 };
    kp.blockDim = (dim3){ 1, 1, 1 };
    kp.kernelParams = args;
    return cudaGraphAddKernelNode(out, graph, NULL, 0, &kp);
}

/* The arguments of a gate or marking kernel node (np->kind), kept where the call that copies them reads them. */
struct node_args {
    void *flag, *slot;
    uint64_t max_ns;
    uint32_t token;
    void *gate[4], *mark[2];
};
static void kernel_node_params(struct cudaKernelNodeParams *kp, const struct sc_node_params *np, struct node_args *a)
{
    *a = (struct node_args){ .flag = np->flag, .slot = np->slot, .max_ns = np->max_ns, .token = np->token };
    a->gate[0] = &a->flag, a->gate[1] = &a->max_ns, a->gate[2] = &a->slot, a->gate[3] = &a->token;
    a->mark[0] = &a->slot, a->mark[1] = &a->token;
    memset(kp, 0, sizeof *kp);
    kp->func = (void *)(np->kind == SC_NODE_GATE ? rt_k_gate : rt_k_mark);
    kp->gridDim = (dim3){ 1, 1, 1 };
    kp->blockDim = (dim3){ 1, 1, 1 };
    kp->kernelParams = np->kind == SC_NODE_GATE ? a->gate : a->mark;
}

int rt_node_add(void *g, const struct sc_node_params *np, void **node)
{
    cudaGraph_t graph = ((struct graph *)g)->g;
    cudaGraphNode_t *out = (cudaGraphNode_t *)node;
    switch (np->kind) {
    case SC_NODE_GATE:
    case SC_NODE_KERNEL: { /* the kernel's arguments are copied by the call */
        struct cudaKernelNodeParams kp;
        struct node_args args;
        kernel_node_params(&kp, np, &args);
        return cudaGraphAddKernelNode(out, graph, NULL, 0, &kp);
    }
    case SC_NODE_HOST: {
        struct cudaHostNodeParams hp = { np->fn, np->arg };
        return cudaGraphAddHostNode(out, graph, NULL, 0, &hp);
    }
    case SC_NODE_MEMSET: {
        struct cudaMemsetParams mp;
        memset(&mp, 0, sizeof mp);
        mp.dst = np->dst;
        mp.value = np->value;
        mp.elementSize = 1;
        mp.width = np->bytes;
        mp.height = 1;
        mp.pitch = np->bytes;
        return cudaGraphAddMemsetNode(out, graph, NULL, 0, &mp);
    }
    case SC_NODE_MEMCPY:
        return cudaGraphAddMemcpyNode1D(out, graph, NULL, 0, np->dst, np->src, np->bytes, cudaMemcpyDeviceToDevice);
    case SC_NODE_ALLOC: { /* device memory of the current device, freed by no node of the graph */
        struct cudaMemAllocNodeParams ap;
        int dev = 0, rc;
        cudaGetDevice(&dev);
        memset(&ap, 0, sizeof ap);
        ap.poolProps.allocType = cudaMemAllocationTypePinned;
        ap.poolProps.handleTypes = cudaMemHandleTypeNone;
        ap.poolProps.location.type = cudaMemLocationTypeDevice;
        ap.poolProps.location.id = dev;
        ap.bytesize = np->bytes;
        rc = cudaGraphAddMemAllocNode(out, graph, NULL, 0, &ap);
        if (rc == cudaErrorNotSupported)
            return SC_UNSUPPORTED; /* no graph memory nodes (no memory pools) on this device */
        if (rc == 0)
            ((struct graph *)g)->alloc = ap.dptr, ((struct graph *)g)->alloc_node = *out;
        return rc;
    }
    case SC_NODE_FREE: { /* the allocation of child's allocation node, after that node where it is of this graph (a
                          * free is ordered after its allocation); the code is the op's answer */
        struct graph *owner = np->child;
        int rc = cudaGraphAddMemFreeNode(out, graph, owner == g ? &owner->alloc_node : NULL,
                                         owner == g ? 1 : 0, owner->alloc);
        if (rc == 0 && owner == g)
            owner->frees_own = 1; /* "These allocations cannot be freed outside the owning graph" */
        return rc;
    }
    case SC_NODE_RECORD: return cudaGraphAddEventRecordNode(out, graph, NULL, 0, (cudaEvent_t)np->event);
    case SC_NODE_WAIT: return cudaGraphAddEventWaitNode(out, graph, NULL, 0, (cudaEvent_t)np->event);
    case SC_NODE_COND: return cond_node_add(graph, np, out);
    case SC_NODE_DEVLAUNCH: return devlaunch_node_add(graph, np, out);
    default: return cudaGraphAddChildGraphNode(out, graph, NULL, 0, ((struct graph *)np->child)->g);
    }
}
int rt_edge_add(void *g, void *from, void *to)
{
    cudaGraphNode_t a = from, b = to;
    return cudaGraphAddDependencies(((struct graph *)g)->g, &a, &b, NULL, 1);
}
int rt_graph_instantiate(void *g, int upload, void *s)
{
    struct graph *gr = g;
    cudaGraphInstantiateParams ip;
    if (!upload)
        return cudaGraphInstantiate(&gr->exec, gr->g, 0);
    memset(&ip, 0, sizeof ip);
    ip.flags = cudaGraphInstantiateFlagUpload;
    ip.uploadStream = (cudaStream_t)s;
    return cudaGraphInstantiateWithParams(&gr->exec, gr->g, &ip);
}
/* result_out is kept whatever the call answers (cudaGraphInstantiateError where it set none) */
int rt_graph_instantiate_with(void *g, unsigned flags, int *result)
{
    struct graph *gr = g;
    cudaGraphInstantiateParams ip;
    int rc;
    memset(&ip, 0, sizeof ip);
    ip.flags = flags & SC_INSTANTIATE_AUTO_FREE ? cudaGraphInstantiateFlagAutoFreeOnLaunch : 0;
    ip.result_out = cudaGraphInstantiateError;
    rc = cudaGraphInstantiateWithParams(&gr->exec, gr->g, &ip);
    if (rc)
        gr->exec = NULL;
    *result = (int)ip.result_out;
    return rc;
}
int rt_exec_update(void *g, void *from)
{
    cudaGraphExecUpdateResultInfo info;
    memset(&info, 0, sizeof info);
    return cudaGraphExecUpdate(((struct graph *)g)->exec, ((struct graph *)from)->g, &info);
}
/* a runtime (or a layer standing in for one) without executable graph editing: the point skips */
static int edit_answer(int rc)
{
    return rc == cudaErrorNotSupported ? SC_UNSUPPORTED : rc;
}
int rt_node_enable(void *g, void *node, int enable)
{
    return edit_answer(cudaGraphNodeSetEnabled(((struct graph *)g)->exec, (cudaGraphNode_t)node, enable ? 1u : 0u));
}
static int exec_node_set(void *g, void *node, const struct sc_node_params *np);
int rt_exec_node_set(void *g, void *node, const struct sc_node_params *np)
{
    return edit_answer(exec_node_set(g, node, np));
}
/* the node takes np, parameters of its own kind: later launches of the executable graph run them */
static int exec_node_set(void *g, void *node, const struct sc_node_params *np)
{
    cudaGraphExec_t exec = ((struct graph *)g)->exec;
    cudaGraphNode_t n = node;
    switch (np->kind) {
    case SC_NODE_GATE:
    case SC_NODE_KERNEL: { /* the kernel's arguments are copied by the call */
        struct cudaKernelNodeParams kp;
        struct node_args args;
        kernel_node_params(&kp, np, &args);
        return cudaGraphExecKernelNodeSetParams(exec, n, &kp);
    }
    case SC_NODE_HOST: {
        struct cudaHostNodeParams hp = { np->fn, np->arg };
        return cudaGraphExecHostNodeSetParams(exec, n, &hp);
    }
    case SC_NODE_MEMSET: {
        struct cudaMemsetParams mp;
        memset(&mp, 0, sizeof mp);
        mp.dst = np->dst;
        mp.value = np->value;
        mp.elementSize = 1;
        mp.width = np->bytes;
        mp.height = 1;
        mp.pitch = np->bytes;
        return cudaGraphExecMemsetNodeSetParams(exec, n, &mp);
    }
    case SC_NODE_MEMCPY:
        return cudaGraphExecMemcpyNodeSetParams1D(exec, n, np->dst, np->src, np->bytes, cudaMemcpyDeviceToDevice);
    case SC_NODE_RECORD: return cudaGraphExecEventRecordNodeSetEvent(exec, n, (cudaEvent_t)np->event);
    case SC_NODE_WAIT: return cudaGraphExecEventWaitNodeSetEvent(exec, n, (cudaEvent_t)np->event);
    case 0: return cudaGraphExecChildGraphNodeSetParams(exec, n, ((struct graph *)np->child)->g);
    default: return cudaErrorInvalidValue; /* the generator sets no other kind */
    }
}
int rt_exec_destroy(void *g)
{
    struct graph *gr = g;
    int rc = cudaGraphExecDestroy(gr->exec);
    if (rc == 0)
        gr->exec = NULL;
    return rc;
}

/* -- stream capture --------------------------------------------------------- */

static enum cudaStreamCaptureMode capture_mode_of(int mode)
{
    return mode == SC_CAPTURE_THREAD_LOCAL ? cudaStreamCaptureModeThreadLocal
           : mode == SC_CAPTURE_RELAXED    ? cudaStreamCaptureModeRelaxed
                                           : cudaStreamCaptureModeGlobal;
}
int rt_capture_begin(void *s, int mode)
{
    return cudaStreamBeginCapture((cudaStream_t)s, capture_mode_of(mode));
}
/* into a graph built by hand (CUDA 12.3 and later: an older driver skips the point) */
int rt_capture_to(void *s, void *g, void *dep, int mode)
{
    cudaGraphNode_t d = dep;
    int rc = cudaStreamBeginCaptureToGraph((cudaStream_t)s, ((struct graph *)g)->g, d ? &d : NULL, NULL, d ? 1 : 0,
                                           capture_mode_of(mode));
    return rc == cudaErrorCallRequiresNewerDriver ? SC_UNSUPPORTED : rc;
}
int rt_capture_end_to(void *s, void *g, int *same)
{
    cudaGraph_t got = NULL;
    int rc = cudaStreamEndCapture((cudaStream_t)s, &got);
    *same = got != NULL && got == ((struct graph *)g)->g;
    if (got && !*same)
        cudaGraphDestroy(got);
    return rc;
}
int rt_capture_end(void *s)
{
    cudaGraph_t g = NULL;
    int rc = cudaStreamEndCapture((cudaStream_t)s, &g);
    if (g)
        cudaGraphDestroy(g);
    return rc;
}
/* The captured graph, instantiated; graph_destroy destroys both (the node is unused). */
int rt_capture_keep(void *s, void **out)
{
    struct graph *gr = calloc(1, sizeof *gr);
    int rc;
    if (!gr)
        return cudaErrorMemoryAllocation;
    rc = cudaStreamEndCapture((cudaStream_t)s, &gr->g);
    if (rc == 0)
        rc = cudaGraphInstantiate(&gr->exec, gr->g, 0);
    if (rc) {
        if (gr->g)
            cudaGraphDestroy(gr->g);
        free(gr);
        return rc;
    }
    *out = gr;
    return 0;
}
int rt_graph_replay(void *g, void *s)
{
    int rc = cudaGraphLaunch(((struct graph *)g)->exec, (cudaStream_t)s);
    if (rc == 0)
        ((struct graph *)g)->launched = 1; /* an allocation of it may now be left unfreed */
    return rc;
}
/* a capture status as the backends say it (SC_CAPTURE_*) */
static int capture_status_of(enum cudaStreamCaptureStatus st)
{
    return st == cudaStreamCaptureStatusActive      ? SC_CAPTURE_ACTIVE
           : st == cudaStreamCaptureStatusInvalidated ? SC_CAPTURE_INVALIDATED
                                                      : SC_CAPTURE_NONE;
}
int rt_capture_status(void *s, int *status)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    int rc = cudaStreamIsCapturing((cudaStream_t)s, &st);
    *status = capture_status_of(st);
    return rc;
}

int rt_capture_info(void *s, int *status, uint64_t *id, size_t *ndeps)
{
    enum cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    unsigned long long v = 0;
    const cudaGraphNode_t *deps = NULL;
    const cudaGraphEdgeData *edges = NULL;
    size_t n = 0;
    int rc = cudaStreamGetCaptureInfo((cudaStream_t)s, &st, &v, NULL, &deps, &edges, &n);
    *status = capture_status_of(st);
    *id = v, *ndeps = n;
    return rc;
}
int rt_capture_sever(void *s)
{
    return cudaStreamUpdateCaptureDependencies((cudaStream_t)s, NULL, NULL, 0, cudaStreamSetCaptureDependencies);
}

int rt_thread_capture_relaxed(void)
{
    enum cudaStreamCaptureMode m = cudaStreamCaptureModeRelaxed;
    return cudaThreadExchangeStreamCaptureMode(&m);
}
