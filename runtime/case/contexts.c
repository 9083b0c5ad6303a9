/*
 * contexts.c - the contexts a program's cases share: kept from one case to the
 * next (cuCtxCreate, green contexts), destroyed when the program ends, and
 * counted where made.
 *
 * The contexts a program's cases make before they run (cuCtxCreate) are kept from one case to the next
 * with the same flags and API, instead of being destroyed and made again each time: making and destroying
 * one was most of a ctx rule's point (docs/performance.md).  A context is kept only when the case left it
 * as it found it: not destroyed or made by an op of the case, not faulted, and never made current in
 * main's thread (its workers, whose stacks held it, have ended).  A case's green context is kept the same
 * way, after its streams are destroyed, unless the case faulted: a green context's creation is the same
 * serialized driver work (6 of a green rule's 7 creations were of one green context made again).  A worker
 * process runs one program at a time; sc_run_forget_contexts destroys what is kept when the program (or its
 * API) ends.
 */
#include "case.h"

static struct kept_context {
    const sc_backend *b;
    unsigned flags;
    void *ctx;
} kept[SC_MAX_CONTEXTS];
/* a green context likewise, once its streams are gone, unless the case faulted */
static struct kept_context kept_green;

void *take_context(const sc_backend *b, unsigned flags)
{
    for (int i = 0; i < SC_MAX_CONTEXTS; i++)
        if (kept[i].ctx && kept[i].b == b && kept[i].flags == flags) {
            void *c = kept[i].ctx;
            kept[i].ctx = NULL;
            return c;
        }
    return NULL;
}
int context_keepable(const struct run *r)
{
    if (r->faulted_at >= 0)
        return 0;
    for (int i = 0; i < r->p->nops; i++) {
        const struct sc_op_facts *f = sc_op_facts(r->p->ops[i].kind);
        if (f->keeps_no_context || (f->enters_context && r->p->ops[i].thread == 0))
            return 0;
    }
    return 1;
}
void keep_context(const struct run *r, int c)
{
    for (int i = 0; i < SC_MAX_CONTEXTS; i++)
        if (!kept[i].ctx) {
            kept[i] = (struct kept_context){ r->b, r->p->context_flags[c], r->contexts[c] };
            return;
        }
    r->b->ctx_destroy(r->contexts[c]);
}
void *take_green(const sc_backend *b)
{
    void *g = kept_green.ctx && kept_green.b == b ? kept_green.ctx : NULL;
    if (g)
        kept_green.ctx = NULL;
    return g;
}
int keep_green(const sc_backend *b, void *green)
{
    if (kept_green.ctx)
        return 0;
    kept_green = (struct kept_context){ b, 0, green };
    return 1;
}
/* Contexts this process's cases made (cuCtxCreate, green contexts), not taken from those kept: each is a
 * creation the driver serializes across the GPU, which tools/bench counts in its floor. */
static unsigned contexts_made;
void made_one(void) { __atomic_add_fetch(&contexts_made, 1u, __ATOMIC_RELAXED); }
unsigned sc_run_take_contexts_made(void) { return __atomic_exchange_n(&contexts_made, 0u, __ATOMIC_RELAXED); }

void sc_run_forget_contexts(void)
{
    for (int i = 0; i < SC_MAX_CONTEXTS; i++)
        if (kept[i].ctx) {
            kept[i].b->ctx_destroy(kept[i].ctx);
            kept[i].ctx = NULL;
        }
    if (kept_green.ctx) {
        kept_green.b->green_destroy(kept_green.ctx);
        kept_green.ctx = NULL;
    }
}
