/* smoke.c - a hand-written program exercising every relation; used while
 * bringing up the runtime on a GPU before the generator existed. */
#include "streamcts.h"

#define S(kind) sc_stream s = sc_stream_create(p, "s", kind)
static void legacy_after(sc_prog *p) { S(SC_BLOCKING); sc_gate(p, "g", s); sc_op A = sc_kernel(p, "A", s); sc_op B = sc_kernel(p, "B", SC_LEGACY_STREAM); sc_expect(p, B, SC_AFTER, A); }
static void legacy_after_c(sc_prog *p) { S(SC_NONBLOCKING); sc_gate(p, "g", s); sc_op A = sc_kernel(p, "A", s); sc_op B = sc_kernel(p, "B", SC_LEGACY_STREAM); sc_expect(p, B, SC_AFTER, A); }
static void nb(sc_prog *p) { S(SC_NONBLOCKING); sc_gate(p, "g", SC_LEGACY_STREAM); sc_op A = sc_kernel(p, "A", SC_LEGACY_STREAM); sc_op B = sc_kernel(p, "B", s); sc_expect(p, B, SC_NOT_HELD, A); }
static void nb_c(sc_prog *p) { S(SC_BLOCKING); sc_gate(p, "g", SC_LEGACY_STREAM); sc_op A = sc_kernel(p, "A", SC_LEGACY_STREAM); sc_op B = sc_kernel(p, "B", s); sc_expect(p, B, SC_NOT_HELD, A); }
static void ssync(sc_prog *p) { S(SC_BLOCKING); sc_stream s2 = sc_stream_create(p, "s2", SC_BLOCKING); (void)s2; sc_gate(p, "g", s); sc_op A = sc_host_func(p, "A", s); sc_op X = sc_stream_sync(p, "X", s); sc_expect(p, X, SC_BLOCKS_UNTIL, A); }
static void ssync_c(sc_prog *p) { S(SC_BLOCKING); sc_stream s2 = sc_stream_create(p, "s2", SC_BLOCKING); sc_gate(p, "g", s); sc_op A = sc_host_func(p, "A", s); sc_op X = sc_stream_sync(p, "X", s2); sc_expect(p, X, SC_BLOCKS_UNTIL, A); }
static void query(sc_prog *p) { S(SC_BLOCKING); sc_stream s2 = sc_stream_create(p, "s2", SC_BLOCKING); (void)s2; sc_gate(p, "g", s); sc_op A = sc_kernel(p, "A", s); sc_op Q = sc_stream_query(p, "Q", s); sc_expect(p, Q, SC_NOT_READY_WHILE, A); }
static void query_c(sc_prog *p) { S(SC_BLOCKING); sc_stream s2 = sc_stream_create(p, "s2", SC_BLOCKING); sc_gate(p, "g", s); sc_op A = sc_kernel(p, "A", s); sc_op Q = sc_stream_query(p, "Q", s2); sc_expect(p, Q, SC_NOT_READY_WHILE, A); }
static void d2h(sc_prog *p) { S(SC_BLOCKING); sc_gate(p, "g", SC_LEGACY_STREAM); sc_op A = sc_memset(p, "A", SC_LEGACY_STREAM); sc_op B = sc_memcpy_async(p, "B", SC_D2H_PAGEABLE, s); sc_expect(p, B, SC_AFTER, A); }
static void d2h_c(sc_prog *p) { S(SC_NONBLOCKING); sc_gate(p, "g", SC_LEGACY_STREAM); sc_op A = sc_memset(p, "A", SC_LEGACY_STREAM); sc_op B = sc_memcpy_async(p, "B", SC_D2H_PAGEABLE, s); sc_expect(p, B, SC_AFTER, A); }
static void cb(sc_prog *p) { S(SC_BLOCKING); sc_stream t = sc_stream_create(p, "t", SC_NONBLOCKING); (void)t; sc_op G = sc_host_gate(p, "G", s); sc_op B = sc_callback(p, "B", s); sc_expect(p, B, SC_AFTER, G); }
static void cb_c(sc_prog *p) { S(SC_BLOCKING); sc_stream t = sc_stream_create(p, "t", SC_NONBLOCKING); sc_op G = sc_host_gate(p, "G", s); sc_op B = sc_kernel(p, "B", t); sc_expect(p, B, SC_AFTER, G); }
static void ptds(sc_prog *p) { sc_op g = sc_gate(p, "g", SC_PER_THREAD_STREAM); sc_in_thread(p, g, "t1"); sc_op A = sc_kernel(p, "A", SC_PER_THREAD_STREAM); sc_in_thread(p, A, "t1"); sc_op B = sc_kernel(p, "B", SC_PER_THREAD_STREAM); sc_in_thread(p, B, "t2"); sc_expect(p, B, SC_NOT_HELD, A); }
static void ptds_c(sc_prog *p) { sc_op g = sc_gate(p, "g", SC_PER_THREAD_STREAM); sc_in_thread(p, g, "t1"); sc_op A = sc_kernel(p, "A", SC_PER_THREAD_STREAM); sc_in_thread(p, A, "t1"); sc_op B = sc_kernel(p, "B", SC_PER_THREAD_STREAM); sc_in_thread(p, B, "t1"); sc_expect(p, B, SC_NOT_HELD, A); }
static void d2d(sc_prog *p) { S(SC_BLOCKING); sc_gate(p, "g", s); sc_op A = sc_kernel(p, "A", s); sc_op X = sc_memcpy_sync(p, "X", SC_D2D); sc_expect(p, X, SC_RETURNS_BEFORE, A); }
static void d2d_c(sc_prog *p) { S(SC_BLOCKING); sc_gate(p, "g", s); sc_op A = sc_kernel(p, "A", s); sc_op X = sc_memcpy_sync(p, "X", SC_D2H_PINNED); sc_expect(p, X, SC_RETURNS_BEFORE, A); }
static void rec(sc_prog *p) { S(SC_BLOCKING); sc_stream t = sc_stream_create(p, "t", SC_BLOCKING); sc_event E = sc_event_create(p, "E"); sc_gate(p, "g", s); sc_op A = sc_memcpy_async(p, "A", SC_H2D_PAGEABLE, s); sc_record(p, "r", E, s); sc_wait(p, "w", E, t); sc_op B = sc_memcpy_async(p, "B", SC_D2D, t); sc_expect(p, B, SC_AFTER, A); }
static void rec_c(sc_prog *p) { S(SC_BLOCKING); sc_stream t = sc_stream_create(p, "t", SC_BLOCKING); sc_event E = sc_event_create(p, "E"); sc_gate(p, "g", s); sc_op A = sc_memcpy_async(p, "A", SC_H2D_PAGEABLE, s); sc_record(p, "r", E, s); sc_op B = sc_memcpy_async(p, "B", SC_D2D, t); sc_expect(p, B, SC_AFTER, A); }
static const sc_case cases[] = {
    { "smoke.legacy_after", legacy_after, legacy_after_c }, { "smoke.nonblocking", nb, nb_c },
    { "smoke.stream_sync", ssync, ssync_c }, { "smoke.query", query, query_c }, { "smoke.d2h_pageable", d2h, d2h_c },
    { "smoke.callback_after_host_gate", cb, cb_c }, { "smoke.per_thread", ptds, ptds_c },
    { "smoke.d2d_sync_returns", d2d, d2d_c }, { "smoke.event_wait", rec, rec_c },
};
static const sc_rule rule = { .id = "smoke", .level = SC_MUST, .text = "bring-up", .source = "-", .axes = "",
    .program = "-", .expect = "-", .spec = "selftest/smoke/smoke.c", .cases = cases, .ncases = sizeof cases / sizeof cases[0] };
int main(int argc, char **argv) { return sc_main(&rule, argc, argv); }
