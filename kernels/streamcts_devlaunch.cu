/*
 * streamcts_devlaunch.cu - the device code of device graph launch, a fatbin of
 * its own (kernels/build-fatbin.sh, embedded as sc_devlaunch_fatbin).
 *
 * The device-side cudaGraphLaunch is, like cudaGraphSetConditional in
 * streamcts_cond.cu, an extern __cudart_builtin__ that the cubin names and the
 * driver resolves when the module loads (nvcc 13.0 leaves it unresolved even
 * after -rdc=true and a device link with libcudadevrt, so neither is needed
 * here).  A driver without device graph launch may refuse to load a module
 * that calls it, so these kernels are loaded apart from streamcts_kernels.cu,
 * and only by a case that launches a graph from the device: a driver that
 * refuses them skips those points alone.
 *
 * The graphs these kernels launch hold the ordinary kernels of
 * streamcts_kernels.cu (sc_gate, sc_mark): a graph instantiated with
 * CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH and uploaded before the launching
 * graph runs.  The layout of sc_slot must match runtime/backend/slot.h.
 */
#include <cuda_runtime.h>
#include <stdint.h>

struct sc_slot {
    uint64_t start_ns;
    uint64_t end_ns;
    uint32_t token;
    uint32_t status;
    uint32_t arg;
    uint32_t runs;
};

#define SC_GATE_RELEASED 1u
#define SC_GATE_EXPIRED  2u

/* how the launching kernel names its launch modes (the values the runtime passes as mode) */
#define SC_DL_NONE      0u /* no launch */
#define SC_DL_FAF       1u /* cudaStreamGraphFireAndForget */
#define SC_DL_TAIL      2u /* cudaStreamGraphTailLaunch */
#define SC_DL_SIBLING   3u /* cudaStreamGraphFireAndForgetAsSibling */

static __device__ __forceinline__ uint64_t globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

static __device__ cudaError_t launch_one(cudaGraphExec_t g, uint32_t mode)
{
    switch (mode) {
    case SC_DL_FAF: return cudaGraphLaunch(g, cudaStreamGraphFireAndForget);
    case SC_DL_TAIL: return cudaGraphLaunch(g, cudaStreamGraphTailLaunch);
    case SC_DL_SIBLING: return cudaGraphLaunch(g, cudaStreamGraphFireAndForgetAsSibling);
    default: return cudaSuccess;
    }
}

/*
 * The launching kernel (a kernel node of a graph the host launches): launches
 * g1 in mode1, then g2 in mode2 (SC_DL_NONE: none), records what each launch
 * returned in out->arg (cudaError_t of the first in the low 16 bits, of the
 * second in the high 16), then, where flag is not null, holds like sc_gate
 * until the host writes a non-zero value to *flag or max_ns pass on the device
 * clock, and publishes its stamps and token last.  One thread.
 */
extern "C" __global__ void sc_dl_launch(cudaGraphExec_t g1, uint32_t mode1, cudaGraphExec_t g2, uint32_t mode2,
                                        const volatile uint32_t *flag, uint64_t max_ns,
                                        volatile struct sc_slot *out, uint32_t token)
{
    uint64_t start = globaltimer();
    uint32_t status = SC_GATE_RELEASED;
    out->start_ns = start;
    cudaError_t e1 = launch_one(g1, mode1);
    cudaError_t e2 = launch_one(g2, mode2);
    out->arg = ((uint32_t)e1 & 0xffffu) | (((uint32_t)e2 & 0xffffu) << 16);
    __threadfence_system();
    if (flag) {
        while (*flag == 0u) {
            if (globaltimer() - start > max_ns) {
                status = SC_GATE_EXPIRED;
                break;
            }
            __nanosleep(1000);
        }
    }
    out->end_ns = globaltimer();
    out->status = status;
    out->runs = out->runs + 1u;
    __threadfence_system();
    out->token = token;
    __threadfence_system();
}
