/*
 * arena.c - the memory a case's ops use: the arena's slots, gate flag and
 * words, and the buffers copies and memsets read and write (where each op's
 * ends are, what its destination must hold at the end).
 */
#define _GNU_SOURCE
#include "case.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int arena_ready(struct run *r, char *why, size_t n)
{
    const sc_backend *b = r->b;
    struct arena *ar = r->arena;
    int rc;
    if (ar->ready)
        return 0;
    size_t bytes = sizeof(struct sc_slot) * SC_NSLOTS + 64 + sizeof(uint64_t) * SC_MAX_WORDS;
    void *mem;
    if ((rc = b->host_alloc(&mem, bytes)) || (rc = b->host_dev_ptr(&ar->slots_dev, mem)) ||
        (rc = b->host_alloc(&ar->scratch, sc_copy_bytes))) {
        snprintf(why, n, "cannot allocate pinned host memory: %s", b->error_name(rc));
        return -1;
    }
    ar->slots = mem;
    ar->gate = (uint32_t *)(ar->slots + SC_NSLOTS);
    ar->gate_dev = (char *)ar->slots_dev + ((char *)ar->gate - (char *)mem);
    ar->words = (uint64_t *)((char *)ar->gate + 64);
    ar->words_dev = (char *)ar->slots_dev + ((char *)ar->words - (char *)mem);
    ar->ready = 1;
    return 0;
}

/* The buffer `w` of op i, allocated on first use (device buffers on the op's device). */
void *arena_buffer(struct run *r, int i, enum where w, int *rc)
{
    struct buffers *bf = &r->arena->buf[i];
    const sc_backend *b = r->b;
    void **slot = NULL;
    int *on = NULL, dev = r->op[i].device;
    *rc = 0;
    switch (w) {
    case W_NONE: return NULL;
    case W_DEV_SRC: slot = &bf->dev_src, on = &bf->dev_src_on; break;
    case W_DEV_DST: slot = &bf->dev_dst, on = &bf->dev_dst_on; break;
    case W_PEER_SRC: slot = &bf->peer_src, on = &bf->peer_src_on, dev = peer_of(dev); break;
    case W_PINNED: slot = &bf->pinned; break;
    case W_PINNED2: slot = &bf->pinned2; break;
    case W_PAGEABLE: slot = &bf->pageable; break;
    case W_PAGEABLE2: slot = &bf->pageable2; break;
    case W_MANAGED: slot = &bf->managed; break;
    }
    if (*slot && on && *on != dev) { /* cached on another device by an earlier case */
        on_dev(r, *on);
        b->dev_free(*slot);
        *slot = NULL;
    }
    if (*slot)
        return *slot;
    if (on) {
        on_dev(r, dev);
        *rc = b->dev_alloc(slot, sc_copy_bytes);
        *on = dev;
        on_dev(r, r->op[i].device);
    }
    else if (w == W_PINNED || w == W_PINNED2)
        *rc = b->host_alloc(slot, sc_copy_bytes);
    else if (w == W_MANAGED)
        *rc = b->managed_alloc(slot, sc_copy_bytes);
    else if (posix_memalign(slot, 4096, sc_copy_bytes) != 0)
        *rc = -1;
    else
        memset(*slot, 0, sc_copy_bytes); /* touch every page now */
    if (*rc)
        *slot = NULL;
    return *slot;
}

int on_host(enum where w) { return w == W_PINNED || w == W_PINNED2 || w == W_PAGEABLE || w == W_PAGEABLE2 || w == W_MANAGED; }

void fill_words(void *p, uint32_t v)
{
    uint32_t *w = p;
    for (size_t k = 0; k < sc_copy_bytes / 4; k++)
        w[k] = v;
}


/* Where op i reads (src) and writes (dst). */
void op_ends(const struct sc_op_def *d, enum where *dst, enum where *src)
{
    static const enum where copy_dst[] = {
        [SC_H2D_PINNED] = W_DEV_DST, [SC_H2D_PAGEABLE] = W_DEV_DST, [SC_D2H_PINNED] = W_PINNED,
        [SC_D2H_PAGEABLE] = W_PAGEABLE, [SC_D2D] = W_DEV_DST, [SC_H2H_PINNED] = W_PINNED,
        [SC_H2H_PAGEABLE] = W_PAGEABLE, [SC_H2M] = W_MANAGED, [SC_M2H] = W_PAGEABLE, [SC_D2M] = W_MANAGED,
        [SC_M2D] = W_DEV_DST,
    };
    static const enum where copy_src[] = {
        [SC_H2D_PINNED] = W_PINNED, [SC_H2D_PAGEABLE] = W_PAGEABLE, [SC_D2H_PINNED] = W_DEV_SRC,
        [SC_D2H_PAGEABLE] = W_DEV_SRC, [SC_D2D] = W_DEV_SRC, [SC_H2H_PINNED] = W_PINNED2,
        [SC_H2H_PAGEABLE] = W_PAGEABLE2, [SC_H2M] = W_PAGEABLE, [SC_M2H] = W_MANAGED, [SC_D2M] = W_DEV_SRC,
        [SC_M2D] = W_MANAGED,
    };
    *dst = *src = W_NONE;
    if (sc_op_facts(d->kind)->from_buffer) { /* from a buffer, not an arena source */
        *dst = W_DEV_DST;
    } else if (sc_op_is_data_node(d->kind)) { /* a memcpy node copies its source to the graph's node_buffer */
        *dst = W_DEV_DST, *src = d->cond == SC_NODE_MEMCPY ? W_DEV_SRC : W_NONE;
    } else if (data_of(d->kind) == SC_DATA_PEER) {
        *dst = W_DEV_DST, *src = W_PEER_SRC;
    } else if (data_of(d->kind) == SC_DATA_COPY) {
        unsigned k = d->copy & SC_COPY_KIND_MASK;
        if (k >= SC_H2D_PINNED && k <= SC_M2D)
            *dst = copy_dst[k], *src = copy_src[k];
    } else if (data_of(d->kind) == SC_DATA_MEMSET) {
        *dst = d->mem == SC_MEM_PINNED ? W_PINNED : d->mem == SC_MEM_MANAGED ? W_MANAGED : W_DEV_DST;
    }
}

/* The word a copy's destination must hold at the end. */
uint32_t expected_word(const struct op_rt *o)
{
    enum sc_op_data data = data_of(o->def->kind);
    if (sc_op_is_data_node(o->def->kind) && o->def->cond == SC_NODE_MEMSET)
        data = SC_DATA_MEMSET;
    if (sc_op_facts(o->def->kind)->from_buffer) /* its fill is its buffer's last fill's (objects.c) */
        data = SC_DATA_FILL;
    return data == SC_DATA_MEMSET || data == SC_DATA_FILL ? 0x01010101u * o->fill : o->token;
}

/* ---- managed words, and the host's view of an op's destination --------------- */

int words_ready(struct run *r, char *why, size_t n)
{
    struct arena *ar = r->arena;
    int rc, managed = 0;
    for (int w = 0; w < r->p->nwords; w++)
        managed |= r->p->words[w].preset == SC_WORD_MANAGED;
    if (!managed || ar->managed_words)
        return 0;
    if ((rc = r->b->managed_alloc((void **)&ar->managed_words, sizeof(uint64_t) * SC_MAX_WORDS))) {
        ar->managed_words = NULL;
        snprintf(why, n, "cannot allocate managed memory for the words: %s", r->b->error_name(rc));
        return -1;
    }
    return 0;
}

uint64_t *word_host(struct run *r, int w)
{
    return r->p->words[w].preset == SC_WORD_MANAGED ? &r->arena->managed_words[w] : &r->arena->words[w];
}

void *word_dev(struct run *r, int w)
{
    return r->p->words[w].preset == SC_WORD_MANAGED ? (void *)&r->arena->managed_words[w]
                                                    : (void *)((uint64_t *)r->arena->words_dev + w);
}

int data_there(struct run *r, int i, size_t *bad_word, uint32_t *bad_value)
{
    enum where dw, sw;
    int rc;
    op_ends(r->op[i].def, &dw, &sw);
    if (!on_host(dw))
        return -1;
    const uint32_t *got = arena_buffer(r, i, dw, &rc);
    uint32_t want = expected_word(&r->op[i]);
    if (!got)
        return -1;
    for (size_t w = 0; w < sc_copy_bytes / 4; w++)
        if (got[w] != want) {
            *bad_word = w, *bad_value = got[w];
            return 0;
        }
    return 1;
}
