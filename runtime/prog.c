/* prog.c - recording a case's program (the builder half of streamcts.h). */
#include "prog.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void sc_prog_init(struct sc_prog *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->threads[0], SC_NAME_LEN, "main");
    p->nthreads = 1;
}

static void misuse(sc_prog *p, const char *fmt, ...)
{
    if (p->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
}

static void copy_name(char dst[SC_NAME_LEN], const char *name) { snprintf(dst, SC_NAME_LEN, "%s", name ? name : ""); }

sc_stream sc_stream_create(sc_prog *p, const char *name, enum sc_stream_kind kind)
{
    if (p->nstreams == SC_MAX_STREAMS) {
        misuse(p, "more than %d streams", SC_MAX_STREAMS);
        return SC_LEGACY_STREAM;
    }
    copy_name(p->streams[p->nstreams].name, name);
    p->streams[p->nstreams].kind = kind;
    return p->nstreams++;
}

sc_event sc_event_create(sc_prog *p, const char *name)
{
    if (p->nevents == SC_MAX_EVENTS) {
        misuse(p, "more than %d events", SC_MAX_EVENTS);
        return 0;
    }
    copy_name(p->events[p->nevents], name);
    return p->nevents++;
}

static sc_op add(sc_prog *p, enum sc_op_kind kind, const char *name, sc_stream s, sc_event e, enum sc_copy copy)
{
    if (p->nops == SC_MAX_OPS) {
        misuse(p, "more than %d operations", SC_MAX_OPS);
        return 0;
    }
    if (s >= p->nstreams || s < SC_NULL_STREAM)
        misuse(p, "operation %s names an unknown stream", name);
    if (e < 0 || (e >= p->nevents && (kind == SC_OP_RECORD || kind == SC_OP_WAIT || kind == SC_OP_EVENT_SYNC ||
                                      kind == SC_OP_EVENT_QUERY || kind == SC_OP_EVENT_DESTROY)))
        misuse(p, "operation %s names an unknown event", name);
    struct sc_op_def *op = &p->ops[p->nops];
    op->kind = kind;
    copy_name(op->name, name);
    op->stream = s;
    op->event = e;
    op->copy = copy;
    op->thread = 0;
    return p->nops++;
}

sc_op sc_gate(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_GATE, n, s, 0, 0); }
sc_op sc_host_gate(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_HOST_GATE, n, s, 0, 0); }
sc_op sc_kernel(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_KERNEL, n, s, 0, 0); }
sc_op sc_memset(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_MEMSET, n, s, 0, 0); }
sc_op sc_memcpy_async(sc_prog *p, const char *n, enum sc_copy k, sc_stream s)
{
    return add(p, SC_OP_MEMCPY_ASYNC, n, s, 0, k);
}
sc_op sc_memcpy_sync(sc_prog *p, const char *n, enum sc_copy k) { return add(p, SC_OP_MEMCPY_SYNC, n, SC_NULL_STREAM, 0, k); }
sc_op sc_host_func(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_HOST_FUNC, n, s, 0, 0); }
sc_op sc_callback(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_CALLBACK, n, s, 0, 0); }
sc_op sc_record(sc_prog *p, const char *n, sc_event e, sc_stream s) { return add(p, SC_OP_RECORD, n, s, e, 0); }
sc_op sc_wait(sc_prog *p, const char *n, sc_event e, sc_stream s) { return add(p, SC_OP_WAIT, n, s, e, 0); }
sc_op sc_stream_sync(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_STREAM_SYNC, n, s, 0, 0); }
sc_op sc_event_sync(sc_prog *p, const char *n, sc_event e) { return add(p, SC_OP_EVENT_SYNC, n, SC_NULL_STREAM, e, 0); }
sc_op sc_ctx_sync(sc_prog *p, const char *n) { return add(p, SC_OP_CTX_SYNC, n, SC_NULL_STREAM, 0, 0); }
sc_op sc_stream_query(sc_prog *p, const char *n, sc_stream s) { return add(p, SC_OP_STREAM_QUERY, n, s, 0, 0); }
sc_op sc_event_query(sc_prog *p, const char *n, sc_event e) { return add(p, SC_OP_EVENT_QUERY, n, SC_NULL_STREAM, e, 0); }
sc_op sc_stream_destroy(sc_prog *p, const char *n, sc_stream s)
{
    if (s < 0)
        misuse(p, "operation %s destroys a built-in stream", n);
    return add(p, SC_OP_STREAM_DESTROY, n, s, 0, 0);
}
sc_op sc_event_destroy(sc_prog *p, const char *n, sc_event e) { return add(p, SC_OP_EVENT_DESTROY, n, SC_NULL_STREAM, e, 0); }

void sc_in_thread(sc_prog *p, sc_op op, const char *thread)
{
    int t;
    if (op < 0 || op >= p->nops) {
        misuse(p, "sc_in_thread: no such operation");
        return;
    }
    for (t = 0; t < p->nthreads; t++)
        if (strcmp(p->threads[t], thread) == 0)
            break;
    if (t == p->nthreads) {
        if (p->nthreads == SC_MAX_THREADS) {
            misuse(p, "more than %d threads", SC_MAX_THREADS);
            return;
        }
        copy_name(p->threads[p->nthreads++], thread);
    }
    p->ops[op].thread = t;
}

void sc_expect(sc_prog *p, sc_op subject, enum sc_relation rel, sc_op object)
{
    if (subject < 0 || subject >= p->nops || object < 0 || object >= p->nops)
        misuse(p, "sc_expect: no such operation");
    if (p->has_expect)
        misuse(p, "a program has one expectation");
    p->subject = subject;
    p->object = object;
    p->rel = rel;
    p->has_expect = 1;
}

const char *sc_op_kind_name(enum sc_op_kind k)
{
    static const char *const names[] = {
        [SC_OP_GATE] = "gate", [SC_OP_HOST_GATE] = "host_gate", [SC_OP_KERNEL] = "kernel",
        [SC_OP_MEMSET] = "memset", [SC_OP_MEMCPY_ASYNC] = "memcpy", [SC_OP_MEMCPY_SYNC] = "memcpy_sync",
        [SC_OP_HOST_FUNC] = "host_func", [SC_OP_CALLBACK] = "callback", [SC_OP_RECORD] = "record",
        [SC_OP_WAIT] = "wait", [SC_OP_STREAM_SYNC] = "stream_sync", [SC_OP_EVENT_SYNC] = "event_sync",
        [SC_OP_CTX_SYNC] = "ctx_sync", [SC_OP_STREAM_QUERY] = "stream_query", [SC_OP_EVENT_QUERY] = "event_query",
        [SC_OP_STREAM_DESTROY] = "stream_destroy", [SC_OP_EVENT_DESTROY] = "event_destroy",
    };
    return (k >= SC_OP_GATE && k <= SC_OP_EVENT_DESTROY) ? names[k] : "?";
}

const char *sc_copy_name(enum sc_copy c)
{
    switch (c) {
    case SC_H2D_PINNED: return "h2d_pinned";
    case SC_H2D_PAGEABLE: return "h2d_pageable";
    case SC_D2H_PINNED: return "d2h_pinned";
    case SC_D2H_PAGEABLE: return "d2h_pageable";
    case SC_D2D: return "d2d";
    }
    return "?";
}

const char *sc_relation_text(enum sc_relation r)
{
    switch (r) {
    case SC_AFTER: return "after";
    case SC_NOT_HELD: return "not held by";
    case SC_BLOCKS_UNTIL: return "blocks until";
    case SC_RETURNS_BEFORE: return "returns before";
    case SC_NOT_READY_WHILE: return "not ready while";
    case SC_READY_WHILE: return "ready while";
    }
    return "?";
}

const char *sc_stream_name(const struct sc_prog *p, sc_stream s)
{
    switch (s) {
    case SC_LEGACY_STREAM: return "legacy";
    case SC_PER_THREAD_STREAM: return "per_thread";
    case SC_NULL_STREAM: return "null";
    default: return (s >= 0 && s < p->nstreams) ? p->streams[s].name : "?";
    }
}

int sc_op_is_host_call(enum sc_op_kind k)
{
    return k == SC_OP_MEMCPY_SYNC || k == SC_OP_STREAM_SYNC || k == SC_OP_EVENT_SYNC || k == SC_OP_CTX_SYNC ||
           k == SC_OP_STREAM_QUERY || k == SC_OP_EVENT_QUERY || k == SC_OP_STREAM_DESTROY || k == SC_OP_EVENT_DESTROY;
}

int sc_op_is_observable(enum sc_op_kind k) { return k != SC_OP_WAIT; }
