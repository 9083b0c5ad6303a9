/* prog.c - recording a case's program (the builder half of streamcts.h): the objects it declares, its
 * threads and processes, its expectation, and the names reports use.  prog_ops.c records its ops. */
#include "prog.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_prog_init(struct sc_prog *p)
{
    memset(p, 0, sizeof *p);
    snprintf(p->threads[0], SC_NAME_LEN, "main");
    p->nthreads = 1;
    snprintf(p->procs[0], SC_NAME_LEN, "main");
    p->nprocs = 1;
    p->object = -1;
}

int sc_prog_isolates(sc_build_fn build)
{
    struct sc_prog *p = malloc(sizeof *p);
    int isolates = 0;
    if (!p)
        return -1;
    sc_prog_init(p);
    build(p);
    for (int i = 0; i < p->nops && !isolates; i++)
        isolates = sc_op_facts(p->ops[i].kind)->isolate;
    free(p);
    return isolates;
}

void sc_prog_misuse(sc_prog *p, const char *fmt, ...)
{
    if (p->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
}

static void copy_name(char dst[SC_NAME_LEN], const char *name) { snprintf(dst, SC_NAME_LEN, "%s", name ? name : ""); }

/* -- declarations ---------------------------------------------------------- */

sc_stream sc_stream_create_ex(sc_prog *p, const char *name, enum sc_stream_kind kind, enum sc_priority prio,
                              int device, int count)
{
    if (p->nstreams == SC_MAX_STREAMS) {
        sc_prog_misuse(p, "more than %d streams", SC_MAX_STREAMS);
        return SC_LEGACY_STREAM;
    }
    if (device < 0 || device >= SC_MAX_DEVICES || count < 1 || p->nmembers + count > SC_MAX_MEMBERS) {
        sc_prog_misuse(p, "stream %s: device %d, %d members: out of range", name, device, count);
        return SC_LEGACY_STREAM;
    }
    copy_name(p->streams[p->nstreams].name, name);
    p->streams[p->nstreams].kind = kind;
    p->streams[p->nstreams].prio = prio;
    p->streams[p->nstreams].device = device;
    p->streams[p->nstreams].count = count;
    p->nmembers += count;
    return p->nstreams++;
}

sc_stream sc_stream_create_prio(sc_prog *p, const char *name, enum sc_stream_kind kind, enum sc_priority prio)
{
    return sc_stream_create_ex(p, name, kind, prio, 0, 1);
}

sc_stream sc_stream_create(sc_prog *p, const char *name, enum sc_stream_kind kind)
{
    return sc_stream_create_ex(p, name, kind, SC_PRIO_NONE, 0, 1);
}

/* cuGreenCtxStreamCreate takes only CU_STREAM_NON_BLOCKING */
sc_stream sc_stream_create_green(sc_prog *p, const char *name, enum sc_priority prio)
{
    sc_stream s = sc_stream_create_ex(p, name, SC_NONBLOCKING, prio, 0, 1);
    if (s >= 0)
        p->streams[s].green = 1;
    return s;
}

sc_event sc_event_create_flags(sc_prog *p, const char *name, unsigned flags)
{
    if (p->nevents == SC_MAX_EVENTS) {
        sc_prog_misuse(p, "more than %d events", SC_MAX_EVENTS);
        return 0;
    }
    copy_name(p->events[p->nevents].name, name);
    p->events[p->nevents].flags = flags;
    return p->nevents++;
}

sc_event sc_event_create(sc_prog *p, const char *name) { return sc_event_create_flags(p, name, 0); }

sc_pool sc_pool_create(sc_prog *p, const char *name, unsigned flags)
{
    if (p->npools == SC_MAX_POOLS) {
        sc_prog_misuse(p, "more than %d pools", SC_MAX_POOLS);
        return SC_DEFAULT_POOL;
    }
    copy_name(p->pools[p->npools].name, name);
    p->pools[p->npools].flags = flags;
    return p->npools++;
}

sc_buffer sc_buffer_create(sc_prog *p, const char *name)
{
    if (p->nbuffers == SC_MAX_BUFFERS) {
        sc_prog_misuse(p, "more than %d buffers", SC_MAX_BUFFERS);
        return 0;
    }
    copy_name(p->buffers[p->nbuffers], name);
    return p->nbuffers++;
}

sc_buffer sc_ipc_memory_create(sc_prog *p, const char *name)
{
    sc_buffer m = sc_buffer_create(p, name);
    p->buffer_ipc[m] = 1;
    return m;
}

sc_buffer sc_ipc_memory_create_flags(sc_prog *p, const char *name, unsigned flags)
{
    sc_buffer m = sc_buffer_create(p, name);
    p->buffer_ipc[m] = flags & SC_IPC_FROM_POOL ? SC_IPC_FROM_POOL : 1;
    return m;
}

sc_graph sc_graph_create(sc_prog *p, const char *name, enum sc_graph_kind kind)
{
    if (p->ngraphs == SC_MAX_GRAPHS) {
        sc_prog_misuse(p, "more than %d graphs", SC_MAX_GRAPHS);
        return 0;
    }
    copy_name(p->graphs[p->ngraphs].name, name);
    p->graphs[p->ngraphs].kind = kind;
    return p->ngraphs++;
}

sc_word sc_word_create(sc_prog *p, const char *name, int bits)
{
    if (p->nwords == SC_MAX_WORDS) {
        sc_prog_misuse(p, "more than %d words", SC_MAX_WORDS);
        return 0;
    }
    if (bits != 32 && bits != 64)
        sc_prog_misuse(p, "word %s: a word has 32 or 64 bits", name);
    copy_name(p->words[p->nwords].name, name);
    p->words[p->nwords].bits = bits;
    return p->nwords++;
}

sc_context sc_context_create(sc_prog *p, const char *name)
{
    if (p->ncontexts == SC_MAX_CONTEXTS) {
        sc_prog_misuse(p, "more than %d contexts", SC_MAX_CONTEXTS);
        return 0;
    }
    copy_name(p->contexts[p->ncontexts], name);
    return p->ncontexts++;
}

/* a context created with flags */
sc_context sc_context_create_flags(sc_prog *p, const char *name, unsigned flags)
{
    sc_context c = sc_context_create(p, name);
    p->context_flags[c] = flags;
    return c;
}

sc_word sc_word_create_preset(sc_prog *p, const char *name, int bits, enum sc_word_preset preset)
{
    sc_word w = sc_word_create(p, name, bits);
    if (p->nwords > w)
        p->words[w].preset = preset;
    return w;
}

/* -- threads and processes ------------------------------------------------ */

/* The index of the named thread, declared on first use; -1 when there are too many. */
static int thread_index(sc_prog *p, const char *thread)
{
    int t;
    for (t = 0; t < p->nthreads; t++)
        if (strcmp(p->threads[t], thread) == 0)
            return t;
    if (p->nthreads == SC_MAX_THREADS) {
        sc_prog_misuse(p, "more than %d threads", SC_MAX_THREADS);
        return -1;
    }
    copy_name(p->threads[p->nthreads], thread);
    return p->nthreads++;
}

void sc_in_thread(sc_prog *p, sc_op op, const char *thread)
{
    if (op < 0 || op >= p->nops) {
        sc_prog_misuse(p, "sc_in_thread: no such operation");
        return;
    }
    int t = thread_index(p, thread);
    if (t >= 0)
        p->ops[op].thread = t;
}

void sc_thread_process(sc_prog *p, const char *thread, const char *process)
{
    int t = thread_index(p, thread), k;
    if (t <= 0) {
        if (t == 0)
            sc_prog_misuse(p, "thread main runs in process main");
        return;
    }
    for (k = 0; k < p->nprocs; k++)
        if (strcmp(p->procs[k], process) == 0)
            break;
    if (k == p->nprocs) {
        if (p->nprocs == SC_MAX_PROCS) {
            sc_prog_misuse(p, "more than %d processes", SC_MAX_PROCS);
            return;
        }
        copy_name(p->procs[p->nprocs++], process);
    }
    p->thread_proc[t] = k;
}

void sc_process_env(sc_prog *p, const char *process, const char *var, const char *value)
{
    for (int k = 1; k < p->nprocs; k++)
        if (strcmp(p->procs[k], process) == 0) {
            if (p->proc_env[k][0]) {
                sc_prog_misuse(p, "sc_process_env: process %s has a setting already", process);
                return;
            }
            if ((size_t)snprintf(p->proc_env[k], SC_ENV_LEN, "%s=%s", var, value) >= SC_ENV_LEN)
                sc_prog_misuse(p, "sc_process_env: '%s=%s' is too long", var, value);
            return;
        }
    sc_prog_misuse(p, "sc_process_env: no process %s (declare its threads first)", process);
}

int sc_op_process(const struct sc_prog *p, int i) { return p->thread_proc[p->ops[i].thread]; }


/* -- expectations ------------------------------------------------------------ */

static void expect(sc_prog *p, sc_op subject, enum sc_relation rel, sc_op object)
{
    if (subject < 0 || subject >= p->nops || (object != -1 && (object < 0 || object >= p->nops)))
        sc_prog_misuse(p, "sc_expect: no such operation");
    if (sc_relation_is_binary(rel) != (object != -1))
        sc_prog_misuse(p, "sc_expect: relation '%s' %s an object", sc_relation_text(rel),
               sc_relation_is_binary(rel) ? "needs" : "takes no");
    if (p->has_expect)
        sc_prog_misuse(p, "a program has one expectation");
    p->subject = subject;
    p->object = object;
    p->rel = rel;
    p->has_expect = 1;
}

void sc_expect(sc_prog *p, sc_op subject, enum sc_relation rel, sc_op object)
{
    /* a query, and an op whose destination is managed memory the host reads */
    if (rel == SC_SYNCHRONIZES && subject >= 0 && subject < p->nops && object >= 0 && object < p->nops) {
        const struct sc_op_def *x = &p->ops[object];
        unsigned copy = x->copy & SC_COPY_KIND_MASK;
        if (sc_op_facts(p->ops[subject].kind)->role != SC_ROLE_QUERY)
            sc_prog_misuse(p, "sc_expect: the subject of 'synchronizes' must be a query");
        if (!((x->kind == SC_OP_MEMSET || x->kind == SC_OP_MEMSET_PREFETCH) && x->mem == SC_MEM_MANAGED) &&
            !(x->kind == SC_OP_MEMCPY_ASYNC && (copy == SC_H2M || copy == SC_D2M)))
            sc_prog_misuse(p, "sc_expect: the object of 'synchronizes' must write managed memory");
    }
    expect(p, subject, rel, object);
}
void sc_expect_unary(sc_prog *p, sc_op subject, enum sc_relation rel)
{
    if (rel != SC_COMPLETE_ON_RETURN && rel != SC_KEEPS_DATA && rel != SC_RUNS_PER_LAUNCH && rel != SC_SEES_PRIMARY &&
        rel != SC_RUNS_ONCE && rel != SC_NEVER_RUNS && rel != SC_READS_FILL)
        sc_prog_misuse(p, "sc_expect_unary: '%s' is not a relation of the subject alone", sc_relation_text(rel));
    if (rel == SC_SEES_PRIMARY && (!sc_op_facts(p->ops[subject].kind)->secondary || sc_op_primary(p, subject) < 0))
        sc_prog_misuse(p, "sc_expect_unary: 'sees its primary' needs a kernel_pdl right after a gate or kernel in its stream");
    if (rel == SC_READS_FILL && (!sc_op_facts(p->ops[subject].kind)->reads_buffer || sc_op_writer(p, subject) < 0))
        sc_prog_misuse(p, "sc_expect_unary: 'reads its fill' needs a read after a fill of its buffer");
    if (rel == SC_KEEPS_DATA && sc_op_facts(p->ops[subject].kind)->from_buffer && sc_op_writer(p, subject) < 0)
        sc_prog_misuse(p, "sc_expect_unary: 'keeps its data' of a memcpy_peer_from needs a fill of its buffer before it");
    expect(p, subject, rel, -1);
    p->runs_per_launch = 1;
}

void sc_expect_runs(sc_prog *p, sc_op subject, unsigned n)
{
    if (n < 1 || n > 100)
        sc_prog_misuse(p, "sc_expect_runs: %u runs per launch (want 1 to 100)", n);
    expect(p, subject, SC_RUNS_PER_LAUNCH, -1);
    p->runs_per_launch = n;
}
void sc_expect_answer(sc_prog *p, sc_op subject, enum sc_code code)
{
    expect(p, subject, SC_ANSWERS, -1);
    p->code = code;
}
void sc_expect_value(sc_prog *p, sc_op subject, enum sc_value value)
{
    expect(p, subject, SC_GIVES, -1);
    p->value = value;
}

/* -- names ------------------------------------------------------------------- */

const char *sc_copy_name(unsigned c)
{
    static const char *const names[] = {
        [SC_H2D_PINNED] = "h2d_pinned", [SC_H2D_PAGEABLE] = "h2d_pageable", [SC_D2H_PINNED] = "d2h_pinned",
        [SC_D2H_PAGEABLE] = "d2h_pageable", [SC_D2D] = "d2d", [SC_H2H_PINNED] = "h2h_pinned",
        [SC_H2H_PAGEABLE] = "h2h_pageable", [SC_H2M] = "h2m", [SC_M2H] = "m2h", [SC_D2M] = "d2m", [SC_M2D] = "m2d",
    };
    static const char *const names2d[] = {
        [SC_H2D_PINNED] = "2d_h2d_pinned", [SC_H2D_PAGEABLE] = "2d_h2d_pageable", [SC_D2H_PINNED] = "2d_d2h_pinned",
        [SC_D2H_PAGEABLE] = "2d_d2h_pageable", [SC_D2D] = "2d_d2d",
    };
    static const char *const names3d[] = {
        [SC_H2D_PINNED] = "3d_h2d_pinned", [SC_H2D_PAGEABLE] = "3d_h2d_pageable", [SC_D2H_PINNED] = "3d_d2h_pinned",
        [SC_D2H_PAGEABLE] = "3d_d2h_pageable", [SC_D2D] = "3d_d2d",
    };
    unsigned k = c & SC_COPY_KIND_MASK;
    if (c & SC_COPY_2D)
        return k >= SC_H2D_PINNED && k <= SC_D2D ? names2d[k] : "?";
    if (c & SC_COPY_3D)
        return k >= SC_H2D_PINNED && k <= SC_D2D ? names3d[k] : "?";
    return k >= SC_H2D_PINNED && k <= SC_M2D ? names[k] : "?";
}

const char *sc_mem_name(enum sc_mem m)
{
    switch (m) {
    case SC_MEM_DEVICE: return "device";
    case SC_MEM_PINNED: return "pinned";
    case SC_MEM_PAGEABLE: return "pageable";
    case SC_MEM_MANAGED: return "managed";
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
    case SC_ANSWERS: return "answers";
    case SC_GIVES: return "gives";
    case SC_COMPLETE_ON_RETURN: return "complete on return";
    case SC_KEEPS_DATA: return "keeps its data";
    case SC_EQUALS: return "equals";
    case SC_DIFFERS: return "differs from";
    case SC_RUNS_PER_LAUNCH: return "runs once per launch";
    case SC_SEES_PRIMARY: return "sees its primary";
    case SC_RUNS_ONCE: return "runs once";
    case SC_NEVER_RUNS: return "never runs";
    case SC_SYNCHRONIZES: return "synchronizes";
    case SC_READS_FILL: return "reads its fill";
    }
    return "?";
}

const char *sc_code_name(enum sc_code c)
{
    switch (c) {
    case SC_CODE_SUCCESS: return "success";
    case SC_CODE_NOT_READY: return "not_ready";
    case SC_CODE_INVALID_VALUE: return "invalid_value";
    case SC_CODE_INVALID_HANDLE: return "invalid_handle";
    case SC_CODE_ILLEGAL_ADDRESS: return "illegal_address";
    case SC_CODE_CAPTURE_UNSUPPORTED: return "capture_unsupported";
    case SC_CODE_CAPTURE_INVALIDATED: return "capture_invalidated";
    case SC_CODE_CAPTURE_IMPLICIT: return "capture_implicit";
    case SC_CODE_CAPTURE_WRONG_THREAD: return "capture_wrong_thread";
    case SC_CODE_AN_ERROR: return "an_error";
    case SC_CODE_SKIPPED: return "skipped";
    case SC_CODE_INVALID_CONTEXT: return "invalid_context";
    case SC_CODE_ASSERT: return "assert";
    case SC_CODE_LAUNCH_FAILED: return "launch_failed";
    case SC_CODE_EXEC_UPDATE_FAILURE: return "exec_update_failure";
    case SC_CODE_CAPTURE_UNMATCHED: return "capture_unmatched";
    case SC_CODE_CAPTURE_UNJOINED: return "capture_unjoined";
    case SC_CODE_CAPTURED_EVENT: return "captured_event";
    case SC_CODE_NOT_PERMITTED: return "not_permitted";
    case SC_CODE_CONTEXT_IS_DESTROYED: return "context_is_destroyed";
    case SC_CODE_ILLEGAL_STATE: return "illegal_state";
    }
    return "?";
}

const char *sc_value_name(enum sc_value v)
{
    switch (v) {
    case SC_VALUE_BLOCKING: return "blocking";
    case SC_VALUE_NONBLOCKING: return "nonblocking";
    case SC_VALUE_LEAST: return "least";
    case SC_VALUE_GREATEST: return "greatest";
    case SC_VALUE_ZERO: return "zero";
    case SC_VALUE_NONZERO: return "nonzero";
    case SC_VALUE_NONE: return "none";
    case SC_VALUE_ACTIVE: return "active";
    case SC_VALUE_INVALIDATED: return "invalidated";
    case SC_VALUE_SPANS_HOLD: return "spans_hold";
    case SC_VALUE_SLEEPS: return "sleeps";
    case SC_VALUE_MIN_KEPT: return "min_kept";
    case SC_VALUE_RESET: return "reset";
    case SC_VALUE_READWRITE: return "readwrite";
    case SC_VALUE_INSTANTIATED: return "instantiated";
    case SC_VALUE_INVALID_STRUCTURE: return "invalid_structure";
    case SC_VALUE_ALLOCATED: return "allocated";
    case SC_VALUE_NO_DEPENDENCIES: return "no_dependencies";
    case SC_VALUE_ONE_DEPENDENCY: return "one_dependency";
    case SC_VALUE_TWO_DEPENDENCIES: return "two_dependencies";
    case SC_VALUE_ITS_GRAPH: return "its_graph";
    case SC_VALUE_ANOTHER_GRAPH: return "another_graph";
    case SC_VALUE_ITS_GREEN: return "its_green";
    }
    return "?";
}

int sc_builtin_kind(sc_stream s) { return s < 0 ? -1 - (-s - 1) % 3 : s; }

const char *sc_stream_name(const struct sc_prog *p, sc_stream s)
{
    static const char *const names[SC_MAX_DEVICES][3] = {
        { "legacy", "per_thread", "null" },       { "legacy@1", "per_thread@1", "null@1" },
        { "legacy@2", "per_thread@2", "null@2" }, { "legacy@3", "per_thread@3", "null@3" },
        { "legacy@4", "per_thread@4", "null@4" }, { "legacy@5", "per_thread@5", "null@5" },
        { "legacy@6", "per_thread@6", "null@6" }, { "legacy@7", "per_thread@7", "null@7" },
    };
    if (s < 0)
        return sc_stream_device(p, s) < SC_MAX_DEVICES ? names[sc_stream_device(p, s)][(-s - 1) % 3] : "?";
    return s < p->nstreams ? p->streams[s].name : "?";
}

int sc_stream_device(const struct sc_prog *p, sc_stream s)
{
    if (s < 0)
        return (-s - 1) / 3;
    return s < p->nstreams ? p->streams[s].device : 0;
}

int sc_stream_count(const struct sc_prog *p, sc_stream s) { return s >= 0 && s < p->nstreams ? p->streams[s].count : 1; }

int sc_relation_is_binary(enum sc_relation r)
{
    return (r >= SC_AFTER && r <= SC_READY_WHILE) || r == SC_EQUALS || r == SC_DIFFERS || r == SC_SYNCHRONIZES;
}
