/* kernels.cu - the convergence program's kernels (see kernels.h). */
#include "kernels.h"
#include <cuda_runtime.h>

enum { THREADS = 256 };

__global__ void residual_k(const float *x, const float *y, const float *w, float *r, long n, int d)
{
    long i = (long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    float s = 0;
    for (int j = 0; j < d; j++)
        s = fmaf(x[(long)j * n + i], w[j], s);
    r[i] = s - y[i];
}

/* One block: each thread sums a fixed stride, then a fixed tree. */
__device__ double block_sum(double v)
{
    __shared__ double part[THREADS];
    part[threadIdx.x] = v;
    __syncthreads();
    for (int h = THREADS / 2; h > 0; h /= 2) {
        if (threadIdx.x < h)
            part[threadIdx.x] += part[threadIdx.x + h];
        __syncthreads();
    }
    return part[0];
}

__global__ void loss_k(const float *r, long n, double scale, double *out)
{
    double s = 0;
    for (long i = threadIdx.x; i < n; i += THREADS)
        s += (double)r[i] * r[i];
    s = block_sum(s);
    if (threadIdx.x == 0)
        *out = scale * s;
}

/* One block per feature. */
__global__ void grad_k(const float *x, const float *r, long n, int j0, float scale, float *g)
{
    int j = j0 + blockIdx.x;
    double s = 0;
    for (long i = threadIdx.x; i < n; i += THREADS)
        s += (double)x[(long)j * n + i] * r[i];
    s = block_sum(s);
    if (threadIdx.x == 0)
        g[j] = (float)(scale * s);
}

__global__ void update_k(float *w, const float *g, int d, float lr)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < d)
        w[j] -= lr * g[j];
}

__global__ void hash_k(const float *w, int d, unsigned long long *out)
{
    unsigned long long h = 0xcbf29ce484222325ull;
    for (int j = 0; j < d; j++) {
        h ^= __float_as_uint(w[j]);
        h *= 0x100000001b3ull;
    }
    out[0] = h;
    out[1] = ~h;
}

static int launched(void) { return (int)cudaGetLastError(); }

extern "C" int cv_residual(void *s, const float *x, const float *y, const float *w, float *r, long n, int d)
{
    residual_k<<<(unsigned)((n + THREADS - 1) / THREADS), THREADS, 0, (cudaStream_t)s>>>(x, y, w, r, n, d);
    return launched();
}

extern "C" int cv_loss(void *s, const float *r, long n, double scale, double *out)
{
    loss_k<<<1, THREADS, 0, (cudaStream_t)s>>>(r, n, scale, out);
    return launched();
}

extern "C" int cv_grad(void *s, const float *x, const float *r, long n, int j0, int count, float scale, float *g)
{
    grad_k<<<(unsigned)count, THREADS, 0, (cudaStream_t)s>>>(x, r, n, j0, scale, g);
    return launched();
}

extern "C" int cv_update(void *s, float *w, const float *g, int d, float lr)
{
    update_k<<<(unsigned)((d + THREADS - 1) / THREADS), THREADS, 0, (cudaStream_t)s>>>(w, g, d, lr);
    return launched();
}

extern "C" int cv_hash(void *s, const float *w, int d, unsigned long long *out)
{
    hash_k<<<1, 1, 0, (cudaStream_t)s>>>(w, d, out);
    return launched();
}
