/* problem.c - the synthetic regression problem and its CPU reference (see problem.h). */
#include "problem.h"
#include <stdlib.h>

static uint64_t mix(uint64_t z) /* splitmix64's finaliser */
{
    z += 0x9e3779b97f4a7c15u;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Uniform in [-1, 1), exact in float: a 24-bit integer scaled by a power of two. */
static float uniform(uint64_t seed, uint64_t stream, uint64_t index)
{
    uint64_t z = mix(seed ^ mix(stream * 0x100000001b3u ^ mix(index)));
    return (float)(int32_t)((z >> 40) - (1u << 23)) / (float)(1u << 23);
}

static float feature(const struct cv_problem *p, long i, int j) { return uniform(p->seed, 1, (uint64_t)i * (uint64_t)p->features + (uint64_t)j); }
static float truth(const struct cv_problem *p, int j) { return uniform(p->seed, 2, (uint64_t)j); }
static float noise(const struct cv_problem *p, long i) { return 0.1f * uniform(p->seed, 3, (uint64_t)i); }

static float target(const struct cv_problem *p, long i)
{
    float s = 0;
    for (int j = 0; j < p->features; j++)
        s += feature(p, i, j) * truth(p, j);
    return s + noise(p, i);
}

void cv_shard_range(const struct cv_problem *p, int rank, int world, long *first, long *count)
{
    *first = p->samples * rank / world;
    *count = p->samples * (rank + 1) / world - *first;
}

void cv_shard(const struct cv_problem *p, long first, long count, float *x, float *y)
{
    for (long i = 0; i < count; i++) {
        for (int j = 0; j < p->features; j++)
            x[(long)j * count + i] = feature(p, first + i, j);
        y[i] = target(p, first + i);
    }
}

int cv_reference(const struct cv_problem *p, int steps, double *loss)
{
    long n = p->samples;
    int d = p->features;
    float *x = malloc(sizeof *x * (size_t)n * (size_t)d), *y = malloc(sizeof *y * (size_t)n);
    double *w = calloc((size_t)d, sizeof *w), *g = malloc(sizeof *g * (size_t)d);
    if (!x || !y || !w || !g) {
        free(x), free(y), free(w), free(g);
        return -1;
    }
    for (long i = 0; i < n; i++) { /* sample-major here: one pass per step */
        for (int j = 0; j < d; j++)
            x[i * d + j] = feature(p, i, j);
        y[i] = target(p, i);
    }
    for (int k = 0; k < steps; k++) {
        double l = 0;
        for (int j = 0; j < d; j++)
            g[j] = 0;
        for (long i = 0; i < n; i++) {
            const float *row = x + i * d;
            double r = -(double)y[i];
            for (int j = 0; j < d; j++)
                r += (double)row[j] * w[j];
            l += r * r;
            for (int j = 0; j < d; j++)
                g[j] += (double)row[j] * r;
        }
        loss[k] = l / (double)n;
        for (int j = 0; j < d; j++)
            w[j] -= (double)p->lr * 2.0 * g[j] / (double)n;
    }
    free(x), free(y), free(w), free(g);
    return 0;
}
