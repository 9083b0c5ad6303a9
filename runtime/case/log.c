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

void describe_op(struct run *r, int i, char *out, size_t n)
{
    const struct sc_op_def *d = &r->p->ops[i];
    const struct sc_op_facts *f = sc_op_facts(d->kind);
    char kind[128];
    if (d->kind == SC_OP_NODE || d->kind == SC_OP_NODE_DATA || d->kind == SC_OP_NODE_EVENT) {
        static const char *const nodes[] = { [SC_NODE_GATE] = "node_gate", [SC_NODE_KERNEL] = "node_kernel",
                                             [SC_NODE_HOST] = "node_host", [SC_NODE_MEMSET] = "node_memset",
                                             [SC_NODE_MEMCPY] = "node_memcpy", [SC_NODE_RECORD] = "node_record",
                                             [SC_NODE_WAIT] = "node_wait" };
        const char *what = d->cond >= SC_NODE_GATE && d->cond <= SC_NODE_WAIT ? nodes[d->cond] : "node";
        if (d->kind == SC_OP_NODE_EVENT)
            snprintf(kind, sizeof kind, "%s %s in %s", what, r->p->events[d->event].name, r->p->graphs[d->graph].name);
        else
            snprintf(kind, sizeof kind, "%s in %s", what, r->p->graphs[d->graph].name);
    } else if (f->data == SC_DATA_COPY)
        snprintf(kind, sizeof kind, "memcpy_%s", sc_copy_name(d->copy));
    else if (f->data == SC_DATA_MEMSET && d->mem != SC_MEM_DEVICE)
        snprintf(kind, sizeof kind, "memset of %s memory", sc_mem_name(d->mem));
    else if (d->kind == SC_OP_ALLOC || d->kind == SC_OP_FREE || d->kind == SC_OP_FILL)
        snprintf(kind, sizeof kind, "%s %s", f->name, r->p->buffers[d->buffer]);
    else if (d->kind == SC_OP_GRAPH_LAUNCH)
        snprintf(kind, sizeof kind, "graph_launch %s", r->p->graphs[d->graph].name);
    else if (d->kind == SC_OP_WRITE_VALUE || d->kind == SC_OP_WAIT_VALUE)
        snprintf(kind, sizeof kind, "%s %s", f->name, r->p->words[d->word].name);
    else if (d->kind == SC_OP_BATCH)
        snprintf(kind, sizeof kind, "%s %s %s", f->name, r->p->words[d->word].name, r->p->words[d->word2].name);
    else if (d->kind == SC_OP_NODE_CHILD || d->kind == SC_OP_EXEC_UPDATE)
        snprintf(kind, sizeof kind, "%s %s %s", f->name, r->p->graphs[d->graph].name, r->p->graphs[d->graph2].name);
    else if (d->kind == SC_OP_EDGE)
        snprintf(kind, sizeof kind, "edge %s -> %s in %s", r->p->ops[d->from].name, r->p->ops[d->to].name,
                 r->p->graphs[d->graph].name);
    else if (d->kind == SC_OP_INSTANTIATE || d->kind == SC_OP_INSTANTIATE_UPLOAD || d->kind == SC_OP_EXEC_DESTROY)
        snprintf(kind, sizeof kind, "%s %s", f->name, r->p->graphs[d->graph].name);
    else
        snprintf(kind, sizeof kind, "%s", f->name);
    if (d->kind == SC_OP_NODE_EVENT)
        snprintf(out, n, "%s (%s)", d->name, kind);
    else if (f->role != SC_ROLE_WORK && f->arg == SC_ARG_STREAM)
        snprintf(out, n, "%s (%s of %s)", d->name, kind, sc_stream_name(r->p, d->stream));
    else if (f->role != SC_ROLE_WORK && f->arg == SC_ARG_EVENT)
        snprintf(out, n, "%s (%s of %s)", d->name, kind, r->p->events[d->event].name);
    else if (f->role != SC_ROLE_WORK)
        snprintf(out, n, "%s (%s%s)", d->name, kind, d->kind == SC_OP_MEMCPY_SYNC ? " sync" : "");
    else
        snprintf(out, n, "%s (%s on %s)", d->name, kind, sc_stream_name(r->p, d->stream));
    if (d->thread) {
        size_t len = strlen(out);
        int k = r->p->thread_proc[d->thread];
        snprintf(out + len, n - len, " in %s%s%s", r->p->threads[d->thread], k ? " of process " : "",
                 k ? r->p->procs[k] : "");
    }
}
