/*
 * kernels.cu - the device code of the stress and perf workloads.
 *
 * Built by kernels/build-fatbin.sh into build/workloads/kernels.fatbin,
 * embedded as wl_fatbin (kernels/embed.sh) and loaded by workloads/wl.c
 * through the driver API.  Every wait has a device deadline.
 */
#include <stdint.h>

static __device__ __forceinline__ uint64_t globaltimer(void)
{
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The word a block seeded `seed` holds at index i (wl.h: wl_pattern is the same on the host). */
static __device__ __forceinline__ uint32_t pattern(uint32_t seed, uint64_t i)
{
    uint32_t x = seed * 0x9e3779b9u ^ (uint32_t)i * 0x85ebca6bu ^ (uint32_t)(i >> 32);
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    return x;
}

/* Writes the block's pattern into p[0..words). */
extern "C" __global__ void wl_fill(uint32_t *p, uint64_t words, uint32_t seed)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x)
        p[i] = pattern(seed, i);
}

/* Adds the number of words of p[0..words) that do not hold the pattern to *bad (host-mapped). */
extern "C" __global__ void wl_verify(const uint32_t *p, uint64_t words, uint32_t seed, unsigned long long *bad)
{
    unsigned long long n = 0;
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x)
        n += p[i] != pattern(seed, i);
    if (n)
        atomicAdd(bad, n);
}

/*
 * A gate: spins until the host writes non-zero to *flag (host-mapped) or
 * max_ns pass on the device clock; *status: 1 released, 2 expired.
 */
extern "C" __global__ void wl_gate(const volatile uint32_t *flag, uint64_t max_ns, volatile uint32_t *status)
{
    uint64_t start = globaltimer();
    uint32_t s = 1;
    while (*flag == 0u) {
        if (globaltimer() - start > max_ns) {
            s = 2;
            break;
        }
        __nanosleep(1000);
    }
    *status = s;
    __threadfence_system();
}

/* Writes %globaltimer at its start to *t (host-mapped). */
extern "C" __global__ void wl_stamp(volatile uint64_t *t)
{
    *t = globaltimer();
    __threadfence_system();
}

/* Each block stamps its start and end into start[b], end[b] (host-mapped) and keeps its SM slot for ns. */
extern "C" __global__ void wl_spin(uint64_t ns, volatile uint64_t *start, volatile uint64_t *end)
{
    uint64_t t0 = globaltimer();
    while (globaltimer() - t0 < ns)
        ;
    __syncthreads();
    if (threadIdx.x == 0) {
        start[blockIdx.x] = t0;
        end[blockIdx.x] = globaltimer();
        __threadfence_system();
    }
}

/* out[i] = iters steps of an LCG from in[i] (wl.h: wl_work_ref is the same on the host). */
extern "C" __global__ void wl_work(uint32_t *out, const uint32_t *in, uint64_t words, uint32_t iters)
{
    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < words; i += (uint64_t)gridDim.x * blockDim.x) {
        uint32_t x = in[i];
        for (uint32_t k = 0; k < iters; k++)
            x = x * 1664525u + 1013904223u;
        out[i] = x;
    }
}
