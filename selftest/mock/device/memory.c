/*
 * memory.c - the mock's memory, which is host memory: allocations, managed
 * memory, copies and memsets, and the stream memory operations.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/*
 * The mock's allocations, zeroed as calloc's.  A block of 2 MiB or more is fresh pages of its own (zero
 * already: no pass over them here), aligned to 2 MiB and asked to be backed by huge pages (MADV_HUGEPAGE,
 * where the kernel offers them): a 4 MiB block is then touched in 2 page faults, not 1024 (on a virtual
 * machine a fault costs a trip through the hypervisor: most of a short mock program's CPU time went to
 * them, when the runtime's buffers were 4 MiB here too; they are sc_copy_bytes, 256 KiB, now: the heap's).
 * Without huge pages it is ordinary zero pages.  mock_free knows such a block by its
 * entry in big[]; any other pointer is the heap's.
 */
#define MOCK_HUGE (2u << 20)
static struct { char *p; size_t n; } big[256];
static pthread_mutex_t big_mu = PTHREAD_MUTEX_INITIALIZER;
static void *mock_zalloc(size_t n)
{
    if (n < MOCK_HUGE)
        return calloc(1, n);
    size_t len = (n + MOCK_HUGE - 1) & ~(size_t)(MOCK_HUGE - 1);
    char *m = mmap(NULL, len + MOCK_HUGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    char *p = (char *)(((uintptr_t)m + MOCK_HUGE - 1) & ~(uintptr_t)(MOCK_HUGE - 1));
    if (p > m) /* the unaligned head and tail back */
        munmap(m, (size_t)(p - m));
    if (m + MOCK_HUGE > p)
        munmap(p + len, (size_t)(m + MOCK_HUGE - p));
    madvise(p, len, MADV_HUGEPAGE); /* a hint: refused, the memory is as good */
    pthread_mutex_lock(&big_mu);
    int i = 0;
    while (i < 256 && big[i].p)
        i++;
    if (i < 256)
        big[i].p = p, big[i].n = len;
    pthread_mutex_unlock(&big_mu);
    if (i == 256) { /* no room to remember it: the heap's */
        munmap(p, len);
        return calloc(1, n);
    }
    return p;
}
static void mock_free(void *p)
{
    size_t len = 0;
    pthread_mutex_lock(&big_mu);
    for (int i = 0; p && i < 256 && !len; i++)
        if (big[i].p == p)
            len = big[i].n, big[i].p = NULL;
    pthread_mutex_unlock(&big_mu);
    if (len)
        munmap(p, len);
    else
        free(p);
}

int dev_alloc(void **p, size_t n) { return (*p = mock_zalloc(n)) ? 0 : 2; }
/* cuMemFree / cudaFree first waits for the work of every stream of the context, as NVIDIA's drivers
 * do ("Managing memory allocations using cudaMalloc and cudaFree causes the GPU to synchronize across all
 * executing CUDA streams", the Programming Guide; the break free_unsynced: it does not) */
int dev_free(void *p)
{
    if (!breaks(free_unsynced))
        sync_streams(cur_ctx, 0);
    mock_free(p);
    return 0;
}
int host_alloc(void **p, size_t n) { return (*p = mock_zalloc(n)) ? 0 : 2; }
int host_free(void *p) { mock_free(p); return 0; }
int host_dev_ptr(void **d, void *h) { *d = h; return 0; }
/* managed allocations are remembered, so that the stream memory operations can refuse them */
static struct { const char *p; size_t n; } managed[512];
static int nmanaged;
static pthread_mutex_t managed_mu = PTHREAD_MUTEX_INITIALIZER;
int managed_alloc(void **p, size_t n)
{
    if (!(*p = mock_zalloc(n)))
        return 2;
    pthread_mutex_lock(&managed_mu);
    if (nmanaged < 512)
        managed[nmanaged].p = *p, managed[nmanaged++].n = n;
    pthread_mutex_unlock(&managed_mu);
    return 0;
}
static int is_managed(const void *p)
{
    int found = 0;
    pthread_mutex_lock(&managed_mu);
    for (int i = 0; i < nmanaged && !found; i++)
        found = (const char *)p >= managed[i].p && (const char *)p < managed[i].p + managed[i].n;
    pthread_mutex_unlock(&managed_mu);
    return found;
}

struct copy_args {
    void *dst;
    const void *src;
    size_t n;
    int value; /* memset: the byte; -1: a copy */
};
/* the break query_stale_managed keeps a memset's or copy's writes to managed memory from the host until
 * a synchronize: the work completes (a query answers success), its bytes come later.  value -1: a copy,
 * whose source was read when it ran (bytes).  The breaks write_value_unfenced and batch_unfenced keep a
 * memset's bytes the same way, pending on its stream (on): that stream's next item lands them first
 * (fence_pending), unless it is the stream memory write the break leaves unfenced, which lands before them */
struct stale { void *dst; size_t n; int value; void *bytes; struct mstream *on; struct stale *next; };
static pthread_mutex_t stale_mu = PTHREAD_MUTEX_INITIALIZER;
static struct stale *stale_head, **stale_tail = &stale_head;
/* lands the pending writes of stream `on` (NULL: of every stream), in the order they were made */
static void land_pending(struct mstream *on)
{
    pthread_mutex_lock(&stale_mu);
    for (struct stale **at = &stale_head; *at;) {
        struct stale *s = *at;
        if (on && s->on != on) {
            at = &s->next;
            continue;
        }
        if (s->value >= 0)
            memset(s->dst, s->value, s->n);
        else
            memcpy(s->dst, s->bytes, s->n);
        *at = s->next;
        free(s->bytes);
        free(s);
    }
    for (stale_tail = &stale_head; *stale_tail;)
        stale_tail = &(*stale_tail)->next;
    pthread_mutex_unlock(&stale_mu);
}
void flush_managed(void) { land_pending(NULL); }
static void run_write_value(void *a);
static void run_batch_write(void *a);
/* before stream s runs an item (fn NULL: a wait): its pending memsets land first, unless fn is the write
 * the break leaves unfenced, or an event's record (the probe recorded right behind a memset), which fences nothing */
void fence_pending(struct mstream *s, void (*fn)(void *))
{
    if (fn == run_record)
        return;
    if ((breaks(write_value_unfenced) && fn != run_write_value) || (breaks(batch_unfenced) && fn != run_batch_write))
        land_pending(s);
}
void run_copy(void *a)
{
    struct copy_args *c = a;
    struct mstream *on = (breaks(write_value_unfenced) || breaks(batch_unfenced)) && c->value >= 0 && !is_managed(c->dst)
                             ? worker_stream() : NULL;
    if ((breaks(query_stale_managed) && is_managed(c->dst)) || on) {
        struct stale *s = malloc(sizeof *s);
        *s = (struct stale){ c->dst, c->n, c->value, c->value >= 0 ? NULL : malloc(c->n), on, NULL };
        if (s->bytes)
            memcpy(s->bytes, c->src, c->n);
        pthread_mutex_lock(&stale_mu);
        *stale_tail = s;
        stale_tail = &s->next;
        pthread_mutex_unlock(&stale_mu);
    } else if (c->value >= 0)
        memset(c->dst, c->value, c->n);
    else
        memcpy(c->dst, c->src, c->n);
}
static uint64_t copy_on(void *s, void *dst, const void *src, size_t n, int value)
{
    struct copy_args *c = malloc(sizeof *c);
    *c = (struct copy_args){ dst, src, n, value };
    return enqueue(s, ITEM_FN, run_copy, c, NULL, 0, 1);
}
void *copy_args_of(const struct sc_node_params *np)
{
    struct copy_args *c = malloc(sizeof *c);
    *c = (struct copy_args){ np->dst, np->src, np->bytes, np->kind == SC_NODE_MEMSET ? np->value : -1 };
    return c;
}
int memset_async(void *s, void *d, unsigned char v, size_t n)
{
    copy_on(s, d, NULL, n, v);
    return 0;
}
int memset_sync(void *d, unsigned char v, size_t n)
{
    wait_done(resolve(NULL), copy_on(NULL, d, NULL, n, v));
    return 0;
}
int memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind)
{
    struct mstream *st = resolve(s);
    if (kind == SC_H2D_PAGEABLE) /* NVIDIA: the stream drains before a pageable copy is staged */
        wait_done(st, enq_of(st));
    uint64_t pos = copy_on(s, dst, src, n, -1);
    if (kind == SC_D2H_PAGEABLE) /* documented: returns once the copy completed */
        wait_done(st, pos);
    return 0;
}
/* A copy of the bytes src holds now (read during the call), which land at dst in stream order.  Its bytes live in a
 * block reused once the copy ran: fresh memory's page faults would make a 4 MiB batch's call outlast a loaded
 * machine's 50 ms window. */
#define SNAPSHOT_BLOCKS 16
static struct copy_args *free_blocks[SNAPSHOT_BLOCKS];
static size_t free_sizes[SNAPSHOT_BLOCKS];
static pthread_mutex_t blocks_mu = PTHREAD_MUTEX_INITIALIZER;
static void run_snapshot_copy(void *a)
{
    struct copy_args *c = a;
    run_copy(c);
    pthread_mutex_lock(&blocks_mu);
    int k = 0;
    while (k < SNAPSHOT_BLOCKS && free_blocks[k])
        k++;
    if (k < SNAPSHOT_BLOCKS)
        free_blocks[k] = c, free_sizes[k] = c->n, c = NULL;
    pthread_mutex_unlock(&blocks_mu);
    free(c);
}
static uint64_t copy_now_on(void *s, void *dst, const void *src, size_t n)
{
    struct copy_args *c = NULL;
    pthread_mutex_lock(&blocks_mu);
    for (int k = 0; k < SNAPSHOT_BLOCKS && !c; k++)
        if (free_blocks[k] && free_sizes[k] == n)
            c = free_blocks[k], free_blocks[k] = NULL;
    pthread_mutex_unlock(&blocks_mu);
    if (!c)
        c = malloc(sizeof *c + n);
    *c = (struct copy_args){ dst, c + 1, n, -1 };
    memcpy(c + 1, src, n);
    return enqueue(s, ITEM_FN, run_snapshot_copy, c, NULL, 0, 0);
}
/*
 * A batch (cuMemcpyBatchAsync; SC_COPY_3D: cuMemcpy3DBatchAsync) in stream order, its copies one after another,
 * its token's copy last; a host source accessed during the call (SC_BATCH_DURING_CALL) is read right then, its bytes
 * landing in stream order (a device source is read in stream order all the same: no rule's host can overwrite it
 * behind the call, and 4 MiB read at the call would make the call outlast a loaded machine's 50 ms window).  Breaks: batch_copy_unordered, batch3d_unordered: the batch runs at once, on a stream
 * of its own; batch_dst_early: a batch whose sources need not be read in stream order writes its destinations at
 * once too; batch_split_first_only: only the copies of the first attribute entry are in stream order;
 * batch_src_early: a batch in stream order reads its sources at the call; batch_call_late: a source to be read
 * during the call is read in stream order, after the call returned.  The quirk no_batch3d: a driver without
 * cuMemcpy3DBatchAsync (the point skips).
 */
int memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev)
{
    struct sc_slot *slot = slot_dev;
    unsigned copy = kind & SC_COPY_KIND_MASK;
    size_t part = n / SC_BATCH_COPIES;
    int out_of_order = (kind & (SC_BATCH_DURING_CALL | SC_BATCH_ANY)) != 0;
    int host_src = copy == SC_H2D_PINNED || copy == SC_H2D_PAGEABLE; /* what the host may overwrite after the call */
    int now = (kind & SC_BATCH_DURING_CALL) ? host_src && !breaks(batch_call_late) : !out_of_order && breaks(batch_src_early);
    void *first = s, *rest = s; /* the copies of the first attribute entry (0 and 1), and the others */
    if (copy != SC_H2D_PINNED && copy != SC_D2H_PINNED && copy != SC_D2D &&
        !(copy == SC_H2D_PAGEABLE && (kind & SC_BATCH_DURING_CALL)))
        return refuse(1);
    if ((kind & SC_COPY_3D) && quirks(no_batch3d))
        return SC_UNSUPPORTED;
    if ((breaks(batch_copy_unordered) && !(kind & SC_COPY_3D)) || (breaks(batch3d_unordered) && (kind & SC_COPY_3D)) ||
        (breaks(batch_dst_early) && out_of_order))
        first = rest = new_stream(KIND_NONBLOCKING);
    if (breaks(batch_split_first_only) && (kind & SC_BATCH_SPLIT))
        rest = new_stream(KIND_NONBLOCKING);
    for (int k = 0; k < SC_BATCH_COPIES; k++) {
        void *to = (char *)dst + k * part, *on = k < 2 ? first : rest;
        const void *from = (const char *)src + k * part;
        if (now)
            copy_now_on(on, to, from, part);
        else
            copy_on(on, to, from, part, -1);
    }
    if (slot)
        copy_on(rest, &slot->token, &slot->arg, sizeof slot->token, -1);
    return 0;
}
int memcpy_sync(void *dst, const void *src, size_t n, unsigned kind)
{
    uint64_t pos = copy_on(NULL, dst, src, n, -1);
    if (kind != SC_D2D) /* device to device: no host-side synchronization */
        wait_done(resolve(NULL), pos);
    return 0;
}
/*
 * Stream memory operations on host memory: a wait is an item that polls its
 * word until the condition holds (for at most 20 s, the GPU gate's deadline
 * in spirit), a write an item that stores the value.  The breaks wait_unsigned
 * (every condition read as an unsigned, non-cyclic GEQ) and wait_signed (GEQ
 * read as a signed, non-cyclic comparison) are the wrong comparisons the
 * memop rules' word presets catch.
 */
struct memop_args {
    void *addr;
    uint64_t value;
    int cond, bits;
};
static uint64_t word_read(const struct memop_args *m)
{
    return m->bits == 64 ? __atomic_load_n((uint64_t *)m->addr, __ATOMIC_SEQ_CST)
                         : __atomic_load_n((uint32_t *)m->addr, __ATOMIC_SEQ_CST);
}
static int condition_holds(const struct memop_args *m)
{
    uint64_t w = word_read(m), v = m->value, mask = m->bits == 64 ? ~0ull : 0xffffffffu;
    if (breaks(wait_unsigned))
        return w >= v;
    if (m->cond == SC_WAIT_GEQ && breaks(wait_signed))
        return m->bits == 64 ? (int64_t)w >= (int64_t)v : (int32_t)w >= (int32_t)v;
    switch (m->cond) {
    case SC_WAIT_EQ: return w == v;
    case SC_WAIT_AND: return (w & v) != 0;
    case SC_WAIT_NOR: return (~(w | v) & mask) != 0;
    default: return m->bits == 64 ? (int64_t)(w - v) >= 0 : (int32_t)(uint32_t)(w - v) >= 0;
    }
}
static int condition_fails(const void *a) { return !condition_holds(a); }
static void run_wait_value(void *a)
{
    struct memop_args *m = a;
    waiting_for(condition_fails, m);
    for (uint64_t until = sc_now_ns() + 20000000000u; !condition_holds(m) && sc_now_ns() < until;)
        sc_pause_ns(50000);
    waiting_over();
    free(m);
}
static void run_write_value(void *a)
{
    struct memop_args *m = a;
    if (m->bits == 64)
        __atomic_store_n((uint64_t *)m->addr, m->value, __ATOMIC_SEQ_CST);
    else
        __atomic_store_n((uint32_t *)m->addr, (uint32_t)m->value, __ATOMIC_SEQ_CST);
    free(m);
}
/* a batch's write: run_write_value under a name of its own, which the break batch_unfenced leaves unfenced */
static void run_batch_write(void *a) { run_write_value(a); }
static int memop(void *s, void (*fn)(void *), void *addr, uint64_t value, int cond, int bits)
{
    struct memop_args *m = malloc(sizeof *m);
    *m = (struct memop_args){ addr, value, cond, bits };
    enqueue(s, ITEM_FN, fn, m, NULL, 0, 0); /* fn frees m */
    return 0;
}
/* Not modelled: pools, graphs built by hand. */
int wait_value(void *s, void *a, uint64_t v, int cond, int bits)
{
    if (is_managed(a) && !breaks(memop_managed)) /* documented: no pointer to managed memory */
        return refuse(1); /* invalid value */
    if (breaks(stream_wait_noop) && bits == 32)
        return 0;
    return memop(s, run_wait_value, a, v, cond, bits);
}
int write_value(void *s, void *a, uint64_t v, unsigned flags, int bits)
{
    if (is_managed(a) && !breaks(memop_managed)) /* documented: no pointer to managed memory */
        return refuse(1); /* invalid value */
    if (flags & SC_WRITE_NO_BARRIER) /* as the v2 API NVIDIA's driver exports: the flag is refused */
        return refuse(1); /* invalid value */
    return memop(s, run_write_value, a, v, 0, bits);
}
int batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits, unsigned flags)
{
    if ((is_managed(wait_dev) || is_managed(write_dev)) && !breaks(memop_managed))
        return refuse(1); /* invalid value */
    if (flags & ~SC_BATCH_BARRIER)
        return refuse(1); /* invalid value */
    /* a barrier between the wait and the write: the items run in order anyway (batch_unordered: the write first) */
    if (breaks(batch_unordered)) /* the write first */
        memop(s, run_batch_write, write_dev, write_value, 0, bits);
    memop(s, run_wait_value, wait_dev, wait_value, SC_WAIT_GEQ, bits);
    return breaks(batch_unordered) ? 0 : memop(s, run_batch_write, write_dev, write_value, 0, bits);
}
/* a memory barrier and a write: the mock's stream items run one after another and land what they write before
 * the next begins, so the barrier is the write's own fence (the break batch_unfenced: no fence at all); its scope
 * (SC_BARRIER_SYS, _GPU) changes nothing for a reader of the same device */
int batch_barrier_write(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits)
{
    if (scope != SC_BARRIER_SYS && scope != SC_BARRIER_GPU)
        return refuse(1); /* invalid value */
    if (is_managed(write_dev) && !breaks(memop_managed))
        return refuse(1); /* invalid value */
    return memop(breaks(batch_barrier_early) ? (void *)new_stream(KIND_NONBLOCKING) : s, run_batch_write, write_dev,
                 write_value, 0, bits);
}

/* a prefetch: a stream item that moves nothing (the mock's managed memory is the host's, coherent at all times).
 * The break prefetch_stale: the bytes as they are at the call, copied back when the item runs (a migration made
 * too early, whose copy lands over the writes queued before it); prefetch_waits: the call first waits for the
 * stream to drain */
int prefetch(void *s, void *p, size_t n, unsigned to)
{
    struct mstream *st = resolve(s);
    if (!is_managed(p) || (to != SC_PREFETCH_HOST && to != SC_PREFETCH_DEVICE))
        return refuse(1); /* invalid value */
    if (breaks(prefetch_waits))
        wait_done(st, enq_of(st));
    if (breaks(prefetch_stale)) {
        void *copy = malloc(n);
        memcpy(copy, p, n);
        copy_on(s, p, copy, n, -1); /* the copy stays: the item reads it whenever it runs */
        return 0;
    }
    copy_on(s, p, p, 0, -1);
    return 0;
}
