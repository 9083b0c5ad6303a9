/*
 * kernels.h - the convergence program's device work, each call one kernel
 * launched on the stream given (a cudaStream_t); each answers the launch's
 * cudaError_t.  Every kernel sums in a fixed order, so the same inputs give
 * the same bits on every rank and every run.
 */
#ifndef CV_KERNELS_H
#define CV_KERNELS_H
#ifdef __cplusplus
extern "C" {
#endif

/* r[i] = x[:, i] . w - y[i] for the shard's n samples (x feature-major, d features). */
int cv_residual(void *stream, const float *x, const float *y, const float *w, float *r, long n, int d);
/* *out = scale * sum r[i]^2, in double. */
int cv_loss(void *stream, const float *r, long n, double scale, double *out);
/* g[j] = scale * sum_i x[j][i] r[i] for j in [j0, j0 + count). */
int cv_grad(void *stream, const float *x, const float *r, long n, int j0, int count, float scale, float *g);
/* w[j] -= lr * g[j]. */
int cv_update(void *stream, float *w, const float *g, int d, float lr);
/* out[0] = FNV-1a of w's bits, out[1] = its complement (a max all-reduce of both gives max and min). */
int cv_hash(void *stream, const float *w, int d, unsigned long long *out);

#ifdef __cplusplus
}
#endif
#endif
