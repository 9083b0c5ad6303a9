/* clock.c - host time for observation windows and deadlines; a thread's CPU time and run-queue wait. */
#define _POSIX_C_SOURCE 200809L
#include "clock.h"
#include <stdio.h>
#include <time.h>

uint64_t sc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t sc_thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t sc_thread_runq_ns(void)
{
    unsigned long long run = 0, waited = 0;
    FILE *f = fopen("/proc/thread-self/schedstat", "r");
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &run, &waited) != 2)
        waited = 0;
    fclose(f);
    return (uint64_t)waited;
}

void sc_pause_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&ts, &ts) != 0) {
    }
}
