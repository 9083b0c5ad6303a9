/*
 * log.c - a case's timeline (struct run's, one line per observation, times
 * relative to t0) and how an op is described in it and in verdicts.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void log_note(struct run *r, const char *fmt, ...)
{
    char line[512];
    int n;
    va_list ap;
    pthread_mutex_lock(&r->log_mu);
    n = snprintf(line, sizeof line, "%9.3f ms  ", (double)(sc_now_ns() - r->t0) / 1e6);
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    size_t len = strlen(line);
    if (r->timeline_len + len + 2 < r->timeline_cap) {
        memcpy(r->timeline + r->timeline_len, line, len);
        r->timeline_len += len;
        r->timeline[r->timeline_len++] = '\n';
        r->timeline[r->timeline_len] = '\0';
    }
    pthread_mutex_unlock(&r->log_mu);
}

/* %globaltimer stamps of the device ops, as evidence. */
void log_stamps(struct run *r)
{
    uint64_t base = UINT64_MAX;
    for (int i = 0; i < r->p->nops; i++)
        if (sc_op_facts(r->p->ops[i].kind)->stamp && r->arena->slots[i].token == r->op[i].token &&
            r->arena->slots[i].start_ns < base)
            base = r->arena->slots[i].start_ns;
    if (base == UINT64_MAX)
        return;
    for (int i = 0; i < r->p->nops; i++) {
        struct sc_slot *sl = &r->arena->slots[i];
        if (sc_op_facts(r->p->ops[i].kind)->stamp && sl->token == r->op[i].token)
            log_note(r, "%%globaltimer %s: start +%.3f us, end +%.3f us", opname(r, i), (double)(sl->start_ns - base) / 1e3,
                 (double)(sl->end_ns - base) / 1e3);
    }
}

/* The node's kind and graph (a record or wait node: and its event). */
static void describe_node(struct run *r, const struct sc_op_def *d, char *kind, size_t n)
{
    static const char *const nodes[] = { [SC_NODE_GATE] = "node_gate", [SC_NODE_KERNEL] = "node_kernel",
                                         [SC_NODE_HOST] = "node_host", [SC_NODE_MEMSET] = "node_memset",
                                         [SC_NODE_MEMCPY] = "node_memcpy", [SC_NODE_RECORD] = "node_record",
                                         [SC_NODE_WAIT] = "node_wait" };
    const char *what = d->cond >= SC_NODE_GATE && d->cond <= SC_NODE_WAIT ? nodes[d->cond] : "node";
    if (sc_op_uses_event(d->kind))
        snprintf(kind, n, "%s %s in %s", what, r->p->events[d->event].name, r->p->graphs[d->graph].name);
    else
        snprintf(kind, n, "%s in %s", what, r->p->graphs[d->graph].name);
}

/* What op d is, with what ops.def's names column says it names: "memcpy_h2d_pinned", "fill M", ... */
static void describe_kind(struct run *r, const struct sc_op_def *d, char *kind, size_t n)
{
    const struct sc_prog *p = r->p;
    const struct sc_op_facts *f = sc_op_facts(d->kind);
    if (f->names == SC_NAMES_NODE)
        describe_node(r, d, kind, n);
    else if (d->kind == SC_OP_MEMCPY_BATCH) /* the rule's spelling: memcpy_batch_call_d2d, memcpy3d_batch_d2d */
        snprintf(kind, n, "memcpy%s_batch%s_%s", d->copy & SC_COPY_3D ? "3d" : "",
                 d->copy & SC_BATCH_DURING_CALL ? "_call" : d->copy & SC_BATCH_ANY ? "_any"
                 : d->copy & SC_BATCH_SPLIT ? "_split" : "", sc_copy_name(d->copy & ~SC_COPY_3D));
    else if (d->kind == SC_OP_READ && d->copy)
        snprintf(kind, n, "batch_read %s", p->buffers[d->buffer]);
    else if (f->data == SC_DATA_COPY)
        snprintf(kind, n, "memcpy_%s", sc_copy_name(d->copy));
    else if (f->data == SC_DATA_MEMSET && d->mem != SC_MEM_DEVICE)
        snprintf(kind, n, "memset of %s memory", sc_mem_name(d->mem));
    else if (f->names == SC_NAMES_BUFFER)
        snprintf(kind, n, "%s %s", f->name, p->buffers[d->buffer]);
    else if (f->names == SC_NAMES_WORD)
        snprintf(kind, n, "%s %s", f->name, p->words[d->word].name);
    else if (f->names == SC_NAMES_WORDS)
        snprintf(kind, n, "%s %s %s", f->name, p->words[d->word].name, p->words[d->word2].name);
    else if (f->names == SC_NAMES_GRAPHS)
        snprintf(kind, n, "%s %s %s", f->name, p->graphs[d->graph].name, p->graphs[d->graph2].name);
    else if (f->names == SC_NAMES_EDGE)
        snprintf(kind, n, "edge %s -> %s in %s", p->ops[d->from].name, p->ops[d->to].name, p->graphs[d->graph].name);
    else if (f->names == SC_NAMES_GRAPH)
        snprintf(kind, n, "%s %s", f->name, p->graphs[d->graph].name);
    else
        snprintf(kind, n, "%s", f->name);
}

/* An op its rule did not name is named by its kind (the generator's: record, record#2): said once, not as
 * "record (record on s)". */
static int named_by_kind(const char *name, const char *kind)
{
    size_t k = strcspn(name, "#");
    return strlen(kind) == k && !strncmp(name, kind, k);
}

void describe_op(struct run *r, int i, char *out, size_t n)
{
    const struct sc_op_def *d = &r->p->ops[i];
    const struct sc_op_facts *f = sc_op_facts(d->kind);
    char kind[128];
    describe_kind(r, d, kind, sizeof kind);
    if (named_by_kind(d->name, kind) && f->role == SC_ROLE_WORK)
        snprintf(out, n, "%s on %s", d->name, sc_stream_name(r->p, d->stream));
    else if (named_by_kind(d->name, kind) && f->arg == SC_ARG_STREAM)
        snprintf(out, n, "%s of %s", d->name, sc_stream_name(r->p, d->stream));
    else if (named_by_kind(d->name, kind) && f->arg == SC_ARG_EVENT)
        snprintf(out, n, "%s of %s", d->name, r->p->events[d->event].name);
    else if (named_by_kind(d->name, kind))
        snprintf(out, n, "%s", d->name);
    else if (f->names == SC_NAMES_NODE && f->arg == SC_ARG_EVENT)
        snprintf(out, n, "%s (%s)", d->name, kind);
    else if (f->role != SC_ROLE_WORK && f->arg == SC_ARG_STREAM)
        snprintf(out, n, "%s (%s of %s)", d->name, kind, sc_stream_name(r->p, d->stream));
    else if (f->role != SC_ROLE_WORK && f->arg == SC_ARG_EVENT)
        snprintf(out, n, "%s (%s of %s)", d->name, kind, r->p->events[d->event].name);
    else if (f->role != SC_ROLE_WORK) /* a synchronous copy: "memcpy_h2d_pinned sync" */
        snprintf(out, n, "%s (%s%s)", d->name, kind, f->data == SC_DATA_COPY && !f->node ? " sync" : "");
    else
        snprintf(out, n, "%s (%s on %s)", d->name, kind, sc_stream_name(r->p, d->stream));
    if (d->thread) {
        size_t len = strlen(out);
        int k = r->p->thread_proc[d->thread];
        snprintf(out + len, n - len, " in %s%s%s", r->p->threads[d->thread], k ? " of process " : "",
                 k ? r->p->procs[k] : "");
    }
}
