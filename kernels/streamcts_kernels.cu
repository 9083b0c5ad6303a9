/*
 * streamcts_kernels.cu - the only device code of the suite.
 *
 * Built by nvcc into a fatbin (SASS for every architecture the installed nvcc
 * supports from sm_75 up, plus PTX) that the runtime embeds and loads through
 * the driver API (cuModuleLoadData) or the runtime API (cudaLibraryLoadData).
 * The layout of sc_slot must match runtime/slot.h.  Kernels: sc_gate (or sc_gate_open and
 * sc_gate_close around a stream wait), sc_mark,
 * sc_fault.
 */
#undef NDEBUG /* sc_fault asserts */
#include <assert.h>
#include <stdint.h>

struct sc_slot {
    uint64_t start_ns;    /* %globaltimer when the op began                     */
    uint64_t end_ns;      /* %globaltimer when the op ended                     */
    uint32_t token;       /* written last: the op's token, or 0 while pending   */
    uint32_t status;      /* gates: 1 released, 2 device deadline expired       */
    uint32_t arg;         /* callbacks: the status argument they received       */
    uint32_t runs;        /* incremented each time it runs (a graph node: per launch) */
};

#define SC_GATE_RELEASED 1u
#define SC_GATE_EXPIRED  2u

static __device__ __forceinline__ uint64_t globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/*
 * A gate: spins until the host writes a non-zero value to *flag (host-mapped
 * pinned memory) or until max_ns have passed on the device clock, whichever
 * comes first, then publishes its stamps and token.  One thread is enough.
 */
extern "C" __global__ void sc_gate(const volatile uint32_t *flag, uint64_t max_ns,
                                   volatile struct sc_slot *out, uint32_t token)
{
    uint64_t start = globaltimer();
    uint32_t status = SC_GATE_RELEASED;
    out->start_ns = start;
#if __CUDA_ARCH__ >= 900
    /* cudaTriggerProgrammaticLaunchCompletion: a kernel launched after it with programmatic
     * stream serialization may start now (a no-op for every other launch) */
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    while (*flag == 0u) {
        if (globaltimer() - start > max_ns) {
            status = SC_GATE_EXPIRED;
            break;
        }
        __nanosleep(1000);
    }
    out->end_ns = globaltimer();
    out->status = status;
    out->runs = out->runs + 1u; /* runs of one op never overlap: one stream, or launches of one graph */
    __threadfence_system();
    out->token = token;
    __threadfence_system();
}

/*
 * A gate held by a stream wait instead of a spinning kernel (STREAMCTS_GATE=wait): sc_gate_open stamps
 * the slot's start when the stream reaches the gate, cuStreamWaitValue32 holds the stream until the host
 * writes the flag, and sc_gate_close publishes the end, the status, the run and the token, as sc_gate
 * does.  A stream wait needs no SM and no time slice, so other contexts' work is not delayed by it.
 */
extern "C" __global__ void sc_gate_open(volatile struct sc_slot *out) { out->start_ns = globaltimer(); }
extern "C" __global__ void sc_gate_close(volatile struct sc_slot *out, uint32_t token)
{
    out->end_ns = globaltimer();
    out->status = SC_GATE_RELEASED;
    out->runs = out->runs + 1u;
    __threadfence_system();
    out->token = token;
    __threadfence_system();
}

/* A marked kernel: stamps, then its token, visible to the host. */
extern "C" __global__ void sc_mark(volatile struct sc_slot *out, uint32_t token)
{
    out->start_ns = globaltimer();
    out->end_ns = globaltimer();
    out->runs = out->runs + 1u;
    __threadfence_system();
    out->token = token;
    __threadfence_system();
}

/*
 * A marked kernel for programmatic dependent launch (launched with programmatic
 * stream serialization, compute capability 9.0 and up): when sync is set it
 * first waits in cudaGridDependencySynchronize (griddepcontrol.wait) until the
 * kernels it depends on completed and flushed their memory; then, as sc_mark,
 * stamps and publishes its token (its stamps are its work after that wait).
 * Before its stamps it reads the token its primary (the kernel right before it
 * in its stream) writes last, when the runtime passes one, and keeps what it
 * read in its slot's arg: the primary's result, which the dependency sync
 * makes visible (0: the primary had not written it yet).
 */
extern "C" __global__ void sc_pdl(volatile struct sc_slot *out, uint32_t token, uint32_t sync,
                                  const volatile uint32_t *primary_token)
{
#if __CUDA_ARCH__ >= 900
    if (sync)
        asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
    if (primary_token)
        out->arg = *primary_token;
    out->start_ns = globaltimer();
    out->end_ns = globaltimer();
    __threadfence_system();
    out->token = token;
    __threadfence_system();
}

/*
 * A faulting kernel: a store to an address no allocation covers, which the
 * driver must report as CUDA_ERROR_ILLEGAL_ADDRESS, a sticky error of the
 * context.  Only rules that run each point in a child process launch it.
 */
extern "C" __global__ void sc_fault(uint32_t how)
{
    if (how == 1u) /* SC_FAULT_ASSERT: a device-side assert that fails (CUDA_ERROR_ASSERT) */
        assert(how == 0u);
    else if (how == 2u) /* SC_FAULT_TRAP: PTX trap, "abort execution and generate an interrupt to the host CPU" */
        asm volatile("trap;");
    else /* SC_FAULT_ADDRESS */
        *(volatile uint32_t *)(uintptr_t)0x10 = 0xdeadu;
}
