/*
 * streamcts_cond.cu - the device code of conditional graph nodes, a fatbin of
 * its own (kernels/build-fatbin.sh, embedded as sc_cond_fatbin).
 *
 * cudaGraphSetConditional is resolved by the driver when the module loads (the
 * cubin names it, as it names vprintf): a driver without conditional nodes
 * (before CUDA 12.3) may refuse to load a module that calls it.  So these
 * kernels are loaded apart from streamcts_kernels.cu, and only by a case that
 * adds a conditional node: a driver that refuses them skips that point alone
 * (runtime/backend/driver_graphs.c, runtime_graphs.c).  No -rdc is needed.
 * The layout of sc_slot must match runtime/backend/slot.h.
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

/* Sets the condition of handle h to value (a kernel node upstream of, or in the body of, its conditional node). */
extern "C" __global__ void sc_cond_set(cudaGraphConditionalHandle h, uint32_t value)
{
    cudaGraphSetConditional(h, value);
}

/*
 * The last node of a WHILE node's body: counts the body's runs in counter->runs and clears the condition
 * on every trips-th run, so that each execution of the node runs its body exactly trips times.  One thread.
 */
extern "C" __global__ void sc_cond_count(cudaGraphConditionalHandle h, volatile struct sc_slot *counter,
                                         uint32_t trips)
{
    uint32_t r = counter->runs + 1u;
    counter->runs = r;
    __threadfence_system();
    if (r % trips == 0u)
        cudaGraphSetConditional(h, 0u);
}
