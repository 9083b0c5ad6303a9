/*
 * problem.h - the convergence program's training problem and its CPU reference.
 *
 * Least-squares linear regression on synthetic data: sample i has features
 * x[i][j] uniform in [-1, 1) and target y[i] = x[i] . w* + noise, every value a
 * pure function of (seed, i, j), so each rank makes its own shard and the CPU
 * reference makes all of them, and the same seed gives the same run.
 * Full-batch gradient descent from w = 0 with step lr:
 *   loss_k = (1/N) sum_i r_i^2,  r = X w - y,  g = (2/N) X^T r,  w -= lr g.
 * The device computes this in float across the ranks; cv_reference computes
 * the loss of every step in double on one CPU.
 */
#ifndef CV_PROBLEM_H
#define CV_PROBLEM_H
#include <stdint.h>

/* The step size every run uses, and how far the device's loss may stray from the reference. */
#define CV_LEARNING_RATE 0.3f
#define CV_TOLERANCE 1e-3 /* |loss - reference| <= CV_TOLERANCE * reference */

struct cv_problem {
    uint64_t seed;
    long samples;  /* N, over all ranks */
    int features;  /* D                 */
    float lr;
};

/* Rank `rank` of `world` holds samples [first, first + count). */
void cv_shard_range(const struct cv_problem *p, int rank, int world, long *first, long *count);
/* The shard feature-major (x[j * count + i]), as the kernels read it, and its targets. */
void cv_shard(const struct cv_problem *p, long first, long count, float *x, float *y);
/* The loss before each of `steps` steps; 0, or -1 when memory is short. */
int cv_reference(const struct cv_problem *p, int steps, double *loss);

#endif
