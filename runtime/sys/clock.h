/* clock.h - host time for observation windows and deadlines; a thread's CPU time and run-queue wait. */
#ifndef SC_CLOCK_H
#define SC_CLOCK_H
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t sc_now_ns(void);
/* Sleeps about ns nanoseconds (used only between observations, never for a verdict). */
void sc_pause_ns(uint64_t ns);
/* CPU time the calling thread has used (CLOCK_THREAD_CPUTIME_ID), in nanoseconds. */
uint64_t sc_thread_cpu_ns(void);
/* How long the calling thread has waited on a run queue for a CPU (the second field of
 * /proc/thread-self/schedstat), in nanoseconds; 0 where the kernel does not say. */
uint64_t sc_thread_runq_ns(void);

#endif
