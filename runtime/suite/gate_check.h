/*
 * gate_check.h - does a stream wait hold the work behind it?
 *
 * By default a case holds its streams with a stream wait (cuStreamWaitValue32
 * on the gate flag, between two stamping kernels: support.c).  A driver whose
 * stream wait lets later work through would make every rule that holds work
 * fail as "completed while its gate was still closed": a thousand failures for
 * one broken call.  Before its first case a program asks once whether the
 * wait holds: a marking kernel issued behind a held wait must not run before
 * the flag is written, and must run after.  Where it does not hold, the gates
 * are spinning kernels instead (the header says why once), and the rules of
 * stream memory operations report the broken call themselves.
 */
#ifndef SC_GATE_CHECK_H
#define SC_GATE_CHECK_H
#include "backend.h"
#include <stddef.h>

#define SC_GATE_CHECK_HOLD_NS 2000000ull /* how long the held wait is watched (a broken one lets a kernel through in microseconds) */

/* 1: the stream wait held and then let the work through; 0: it did not (why says how); -1: the check could not be
 * made (why: the call that failed).  Asked through backend b, on its current device (support.c asks once per process). */
int sc_gate_check(const sc_backend *b, uint64_t deadline_ns, char *why, size_t n);

#endif
