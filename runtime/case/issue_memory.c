/*
 * issue_memory.c - how the stream-ordered allocator's and memory pools' ops
 * are issued (issue_ops.c's table names these functions): allocations, frees
 * and fills of the program's buffers, their reads, and the pools' getters,
 * trims, exports and access.
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdint.h>

static void *pool_of(struct run *r, sc_pool pool) { return pool == SC_DEFAULT_POOL ? r->default_pool : r->pools[pool]; }

/* ---- the stream-ordered allocator and memory pools ------------------------------------ */

/* A buffer name for reports: which allocation holds this address? */
static void note_alloc(struct run *r, int i, void *ptr)
{
    const struct sc_prog *p = r->p;
    int m = p->ops[i].buffer;
    for (int k = 0; k < p->nbuffers; k++)
        if (k != m && r->buf_ptr[k] == ptr && r->buf_freed[k]) {
            log_note(r, "%s: %s got the memory of %s, freed before", opname(r, i), p->buffers[m], p->buffers[k]);
            return;
        }
    log_note(r, "%s: %s at %p, memory no other buffer of the case had", opname(r, i), p->buffers[m], ptr);
}

int issue_alloc(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    int rc;
    if ((rc = r->b->alloc_async(&r->buf_ptr[d->buffer], sc_copy_bytes, pool_of(r, d->pool), a->stream)) == 0) {
        r->buf_freed[d->buffer] = 0;
        note_alloc(r, i, r->buf_ptr[d->buffer]);
    }
    return rc;
}

int issue_free(struct run *r, int i, const struct issue_args *a)
{
    int m = r->op[i].def->buffer, rc;
    if ((rc = r->b->free_async(r->buf_ptr[m], a->stream)) == 0)
        r->buf_freed[m] = 1;
    return rc;
}

int issue_fill(struct run *r, int i, const struct issue_args *a)
{
    int m = r->op[i].def->buffer;
    return r->buf_ptr[m] ? r->b->memset_async(a->stream, r->buf_ptr[m], r->op[i].fill, sc_copy_bytes) : -1;
}

/* the first word, into the op's slot, which every process of the case sees (batch_read, its copy set: by a batch
 * of copies, its source accessed in stream order, no token copy among them) */
int issue_read(struct run *r, int i, const struct issue_args *a)
{
    int m = r->op[i].def->buffer;
    void *word = &r->arena->slots[i].arg;
    if (!r->buf_ptr[m])
        return -1;
    if (r->op[i].def->copy)
        return r->b->memcpy_batch(a->stream, word, r->buf_ptr[m], sizeof(uint32_t), r->op[i].def->copy, NULL);
    return r->b->memcpy_async(a->stream, word, r->buf_ptr[m], sizeof(uint32_t), SC_D2H_PINNED);
}

int issue_alloc_imported(struct run *r, int i, const struct issue_args *a)
{
    return r->b->alloc_imported(pool_of(r, r->op[i].def->pool), sc_copy_bytes, a->stream);
}

int issue_pool_reserved(struct run *r, int i, const struct issue_args *a)
{
    uint64_t bytes = 0;
    int rc = r->b->pool_reserved(pool_of(r, r->op[i].def->pool), &bytes);
    (void)a;
    r->op[i].value = (int64_t)bytes;
    return rc;
}

int issue_pool_used(struct run *r, int i, const struct issue_args *a)
{
    uint64_t bytes = 0;
    int rc = r->b->pool_used(pool_of(r, r->op[i].def->pool), &bytes);
    (void)a;
    r->op[i].value = (int64_t)bytes;
    return rc;
}

/* a high watermark of the pool (enum sc_pool_high in cond), and the reset of both */
int issue_pool_high(struct run *r, int i, const struct issue_args *a)
{
    uint64_t bytes = 0;
    int rc = r->b->pool_high(pool_of(r, r->op[i].def->pool), r->op[i].def->cond, &bytes);
    (void)a;
    r->op[i].value = (int64_t)bytes;
    return rc;
}

int issue_pool_high_reset(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->pool_high_reset(pool_of(r, r->op[i].def->pool));
}

/* what the buffer's allocation got, as issue_alloc kept it */
int issue_address(struct run *r, int i, const struct issue_args *a)
{
    void *ptr = r->buf_ptr[r->op[i].def->buffer];
    (void)a;
    r->op[i].value = (int64_t)(intptr_t)ptr;
    return ptr ? 0 : -1;
}

int issue_pool_trim(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->pool_trim(pool_of(r, r->op[i].def->pool));
}

int issue_pool_trim_keep(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->pool_trim_to(pool_of(r, r->op[i].def->pool), sc_copy_bytes);
}

int issue_pool_export(struct run *r, int i, const struct issue_args *a)
{
    (void)a;
    return r->b->pool_export(pool_of(r, r->op[i].def->pool));
}

int issue_pool_set_access(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    (void)a;
    return r->b->pool_set_access(pool_of(r, d->pool), d->cond, (int)d->flags);
}

int issue_pool_access(struct run *r, int i, const struct issue_args *a)
{
    const struct sc_op_def *d = r->op[i].def;
    int readwrite = 0, rc = r->b->pool_get_access(pool_of(r, d->pool), d->cond, &readwrite);
    (void)a;
    r->op[i].value = readwrite;
    return rc;
}

int issue_mem_alloc(struct run *r, int i, const struct issue_args *a)
{
    void *mem = NULL;
    int rc;
    (void)i, (void)a;
    if ((rc = r->b->dev_alloc(&mem, sc_copy_bytes)) == 0)
        r->b->dev_free(mem);
    return rc;
}
