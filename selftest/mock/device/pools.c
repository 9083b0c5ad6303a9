/*
 * pools.c - the mock's created memory pools: the stream-ordered allocator,
 * trims and release thresholds, reuse, access, and pools exported to and
 * imported from other processes.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * Created memory pools (not the device's default pool, whose rules do not run on the mock).
 * Each allocation is memory of its own, reserved by its pool until a trim releases it once its free
 * has run in stream order: the mock never reuses memory (reuse is allowed, never required).  A pool
 * whose release threshold is 0 (no keep_memory) releases its completed frees at every stream, event or
 * context synchronize; keep_memory (UINT64_MAX) keeps them.  The break reuse_unordered hands a new
 * allocation the memory of a block whose free was enqueued, before that free ran and whatever orders
 * the two: the corruption the reuse rules must see.
 * A pool that keeps its memory (keep_memory) makes the memory of a completed free available at the
 * next synchronize (stream, event or context), and hands it to the next allocation of its size in any stream,
 * whatever its reuse policies (the Programming Guide, Synchronization API Actions); an exportable pool's
 * shared memory is never handed out again.  Its used bytes (CU_MEMPOOL_ATTR_USED_MEM_CURRENT) are those of its
 * allocations whose free has not run.  A pool at its maximum size (SC_POOL_MAX_ONE: 4 MiB) that has no memory
 * a free made available hands out memory whose free is still pending, after making the allocating stream wait
 * for the freeing stream's work so far (the Programming Guide, cudaMemPoolReuseAllowInternalDependencies;
 * the break internal_deps_missing: without the wait); with internal dependencies off it is out of memory.
 */
#define MOCK_BLOCK_HEADER 64 /* the block's address, in front of the memory it hands out */
struct mblock {
    void *mem;          /* the header, then the memory */
    size_t n;
    int freed;              /* its free ran in stream order */
    int free_enqueued;      /* free_async was called (the break reuse_unordered reuses it from then on) */
    unsigned handed;        /* times handed out: a free enqueued for an earlier owner does not free it */
    struct mpool *pool;
    struct mblock *next;
    int shared;             /* mem is part of its pool's shared memory, not a mapping of its own */
    int available;          /* its free ran and a synchronize came after: any allocation may take it */
    void *free_stream;      /* the stream its last free was enqueued to */
};
struct mpool {
    unsigned flags;         /* SC_POOL_* */
    unsigned access;        /* the devices granted read-write access besides its own (bit D) */
    uint64_t reserved;      /* bytes of its blocks */
    struct mblock *blocks;
    struct mpool *next;     /* every pool alive */
    /* an exportable pool's memory is a memfd, handed out in order and never reused; an imported
     * pool maps the exporter's (the file descriptor it was given) */
    int ipc_fd;
    char *ipc_base;
    size_t ipc_size, ipc_used;
    void *private_copy;     /* the break ipc_pool_private: the importer's own memory */
    uint64_t used;          /* bytes of its blocks handed out whose free has not run */
    uint64_t used_high, reserved_high; /* the most used and reserved since the last reset */
};
#define MOCK_IPC_POOL_BYTES (64u << 20) /* an exportable pool's memory (sparse) */
struct mpool_export { /* a CUmemPoolPtrExportData's 64 bytes, as the mock fills them */
    uint32_t magic;
    uint64_t offset, n;
};
static pthread_mutex_t pools_mu = PTHREAD_MUTEX_INITIALIZER;
static struct mpool *pools;
static void release_blocks(struct mpool *pl, uint64_t keep);
/* The caller holds pools_mu: the high watermarks follow what the pool holds now (the break high_follows_current:
 * they are what it holds, no high mark kept). */
static void note_high(struct mpool *pl)
{
    pl->used_high = pl->used > pl->used_high ? pl->used : pl->used_high;
    pl->reserved_high = pl->reserved > pl->reserved_high ? pl->reserved : pl->reserved_high;
}
int default_pool(void **pool) { (void)pool; return SC_UNSUPPORTED; }
int pool_create(void **pool, unsigned flags)
{
    struct mpool *pl = calloc(1, sizeof *pl);
    pl->flags = flags;
    pl->ipc_fd = -1;
    if ((flags & SC_POOL_IPC) && quirks(no_ipc_pools)) { /* legal: CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES 0 */
        free(pl);
        return SC_UNSUPPORTED;
    }
    if (flags & SC_POOL_IPC) {
        if ((pl->ipc_fd = memfd_create("streamcts-mock-pool", MFD_CLOEXEC)) < 0 ||
            ftruncate(pl->ipc_fd, MOCK_IPC_POOL_BYTES) || !(pl->ipc_base = shared_map(pl->ipc_fd, MOCK_IPC_POOL_BYTES))) {
            if (pl->ipc_fd >= 0)
                close(pl->ipc_fd);
            free(pl);
            return 2; /* out of memory */
        }
        pl->ipc_size = MOCK_IPC_POOL_BYTES;
    }
    pthread_mutex_lock(&pools_mu);
    pl->next = pools;
    pools = pl;
    pthread_mutex_unlock(&pools_mu);
    *pool = pl;
    return 0;
}
int pool_destroy(void *pool)
{
    struct mpool *pl = pool;
    pthread_mutex_lock(&pools_mu);
    for (struct mpool **at = &pools; *at; at = &(*at)->next)
        if (*at == pl) {
            *at = pl->next;
            break;
        }
    pthread_mutex_unlock(&pools_mu);
    for (struct mblock *b = pl->blocks, *next; b; b = next) {
        next = b->next;
        if (!b->shared)
            munmap(b->mem, b->n + MOCK_BLOCK_HEADER);
        free(b);
    }
    if (pl->ipc_base) {
        munmap(pl->ipc_base, pl->ipc_size);
        close(pl->ipc_fd);
    }
    free(pl);
    return 0;
}
int pool_reserved(void *pool, uint64_t *bytes)
{
    pthread_mutex_lock(&pools_mu);
    *bytes = ((struct mpool *)pool)->reserved;
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* the bytes of allocations whose free has not run; the break used_counts_freed: the reserved bytes,
 * used_uncounted: none */
int pool_used(void *pool, uint64_t *bytes)
{
    struct mpool *pl = pool;
    if (!pl)
        return SC_UNSUPPORTED;
    pthread_mutex_lock(&pools_mu);
    *bytes = breaks(used_counts_freed) ? pl->reserved : breaks(used_uncounted) ? 0 : pl->used;
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* The high watermarks: the most the pool used or reserved since the last reset ("High watermark of the amount of
 * memory from the pool that was in use by the application", "of backing memory allocated for the mempool since
 * the last time it was reset"); the break high_follows_current: what it uses or reserves now. */
int pool_high(void *pool, int which, uint64_t *bytes)
{
    struct mpool *pl = pool;
    if (!pl)
        return SC_UNSUPPORTED;
    pthread_mutex_lock(&pools_mu);
    if (which == SC_POOL_HIGH_USED)
        *bytes = breaks(high_follows_current) ? pl->used : pl->used_high;
    else
        *bytes = breaks(high_follows_current) ? pl->reserved : pl->reserved_high;
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* A reset starts each watermark again from what the pool holds now; the break high_reset_ignored: it keeps the
 * old mark, high_reset_zeroes: it starts from zero, forgetting the memory still in use or reserved. */
int pool_high_reset(void *pool)
{
    struct mpool *pl = pool;
    if (!pl)
        return SC_UNSUPPORTED;
    pthread_mutex_lock(&pools_mu);
    if (breaks(high_reset_zeroes))
        pl->used_high = pl->reserved_high = 0;
    else if (!breaks(high_reset_ignored))
        pl->used_high = pl->used, pl->reserved_high = pl->reserved;
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* Releases blocks whose free ran while the pool keeps at least keep bytes ("guaranteed to have at least
 * minBytesToKeep bytes reserved after the operation"); the break trim_below_min releases them all. */
int pool_trim_to(void *pool, uint64_t keep)
{
    pthread_mutex_lock(&pools_mu);
    release_blocks(pool, keep);
    pthread_mutex_unlock(&pools_mu);
    return 0;
}
/* A synchronize: pools with the release threshold 0 release their completed frees; the others make
 * that memory available to any allocation (the break reuse_never: to none) */
void release_at_sync(void)
{
    pthread_mutex_lock(&pools_mu);
    for (struct mpool *pl = pools; pl; pl = pl->next)
        if (!(pl->flags & SC_POOL_KEEP_MEMORY))
            release_blocks(pl, 0);
        else if (!breaks(reuse_never))
            for (struct mblock *b = pl->blocks; b; b = b->next)
                b->available |= b->freed && !b->shared;
    pthread_mutex_unlock(&pools_mu);
}
/* The caller holds pools_mu.  An exportable (ipc) pool releases nothing, as NVIDIA's driver does today
 * (the Programming Guide, IPC Export Pool Limitations); the break ipc_pool_releases: it releases as any other. */
static void release_blocks(struct mpool *pl, uint64_t keep)
{
    if ((pl->flags & SC_POOL_IPC) && !breaks(ipc_pool_releases))
        return;
    for (struct mblock **at = &pl->blocks, *b; (b = *at);)
        if (b->freed && (breaks(trim_below_min) || pl->reserved - b->n >= keep)) {
            *at = b->next;
            pl->reserved -= b->n;
            if (!b->shared)
                munmap(b->mem, b->n + MOCK_BLOCK_HEADER);
            free(b);
        } else
            at = &b->next;
}
int pool_trim(void *pool) { return pool_trim_to(pool, 0); }
/* an imported pool makes no allocation (invalid value); the break imported_pool_allocates: it does
 * (and frees it at once) */
/* the mock's one device owns every pool; its own access stays, others' follow the grants */
int pool_set_access(void *pool, int dev, int access)
{
    struct mpool *pl = pool;
    if (!pl || dev < 0 || dev >= SC_MAX_DEVICES)
        return SC_UNSUPPORTED;
    if (dev != 0)
        pl->access = access == SC_ACCESS_READWRITE ? pl->access | 1u << dev : pl->access & ~(1u << dev);
    return 0;
}
int pool_get_access(void *pool, int dev, int *readwrite)
{
    struct mpool *pl = pool;
    if (!pl || dev < 0 || dev >= SC_MAX_DEVICES)
        return SC_UNSUPPORTED;
    *readwrite = dev == 0 || (pl->access >> dev & 1u);
    return 0;
}
int alloc_imported(void *pool, size_t n, void *s)
{
    (void)n, (void)s;
    if (!pool)
        return SC_UNSUPPORTED;
    return breaks(imported_pool_allocates) ? 0 : refuse(1);
}
/* only a pool made exportable (SC_POOL_IPC) exports; the break export_any_pool: any created pool does.
 * The mock has no default pool, so the default pool's export is never asked of it. */
int pool_export(void *pool)
{
    struct mpool *pl = pool;
    if (!pl)
        return SC_UNSUPPORTED;
    return (pl->flags & SC_POOL_IPC) || breaks(export_any_pool) ? 0 : refuse(1);
}
/* is p memory an allocation of a pool handed out (the stream-ordered allocator's)? */
int pool_memory(const void *p)
{
    int found = 0;
    pthread_mutex_lock(&pools_mu);
    for (struct mpool *pl = pools; pl && !found; pl = pl->next)
        for (struct mblock *b = pl->blocks; b && !found; b = b->next)
            found = (const char *)b->mem + MOCK_BLOCK_HEADER == (const char *)p;
    pthread_mutex_unlock(&pools_mu);
    return found;
}
int alloc_async(void **p, size_t n, void *pool, void *s)
{
    struct mpool *pl = pool;
    struct mblock *b;
    /* fresh memory: usable at once, so in any stream order (s waits only for a reused pending free) */
    if (!pl)
        return SC_UNSUPPORTED;
    if (breaks(reuse_unordered)) { /* a block whose free is pending, in no stream order */
        pthread_mutex_lock(&pools_mu);
        for (b = pl->blocks; b && !(b->free_enqueued && !b->freed); b = b->next)
            ;
        if (b)
            b->free_enqueued = 0, b->handed++; /* handed out again */
        pthread_mutex_unlock(&pools_mu);
        if (b) {
            *p = (char *)b->mem + MOCK_BLOCK_HEADER;
            return 0;
        }
    }
    /* memory a synchronize made available, in whichever stream it was freed */
    pthread_mutex_lock(&pools_mu);
    for (b = pl->blocks; b && !(b->available && b->n == n); b = b->next)
        ;
    if (b) {
        b->available = b->freed = b->free_enqueued = 0, b->handed++;
        pl->used += n;
        note_high(pl);
    }
    pthread_mutex_unlock(&pools_mu);
    if (b) {
        *p = (char *)b->mem + MOCK_BLOCK_HEADER;
        return 0;
    }
    if ((pl->flags & SC_POOL_MAX_ONE) && pl->reserved + n > sc_copy_bytes) { /* a full pool */
        void *from = NULL, *ev = NULL;
        pthread_mutex_lock(&pools_mu);
        for (b = pl->blocks; b && !(b->free_enqueued && b->n == n); b = b->next)
            ;
        if (b && !(pl->flags & SC_POOL_NO_INTERNAL_DEPS)) {
            from = b->freed ? NULL : b->free_stream; /* a free that ran needs no dependency */
            pl->used += b->freed ? n : 0;            /* a pending free's bytes pass to the new owner */
            note_high(pl);
            b->freed = b->free_enqueued = 0, b->handed++;
        } else
            b = NULL;
        pthread_mutex_unlock(&pools_mu);
        if (!b)
            return refuse(2); /* out of memory */
        if (from && !breaks(internal_deps_missing)) { /* the dependency: s waits for the free's stream so far */
            event_create(&ev, SC_EV_DISABLE_TIMING);
            event_record(ev, from);
            stream_wait_event(s, ev, 0);
        }
        *p = (char *)b->mem + MOCK_BLOCK_HEADER;
        return 0;
    }
    b = calloc(1, sizeof *b);
    if (pl->ipc_base) { /* the pool's shared memory, in order */
        pthread_mutex_lock(&pools_mu);
        size_t at = pl->ipc_used;
        pl->ipc_used += (n + MOCK_BLOCK_HEADER + 4095u) & ~(size_t)4095u;
        pthread_mutex_unlock(&pools_mu);
        if (at + n + MOCK_BLOCK_HEADER > pl->ipc_size) {
            free(b);
            return refuse(2); /* out of memory */
        }
        b->mem = pl->ipc_base + at, b->shared = 1;
    } else /* fresh pages, untouched: calloc zeroed a 4 MiB block the heap reused, 17 ms on a loaded machine */
        b->mem = mmap(NULL, n + MOCK_BLOCK_HEADER, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!b->shared && b->mem != MAP_FAILED) /* huge pages where offered: fewer first-touch faults (memory.c) */
        madvise(b->mem, n + MOCK_BLOCK_HEADER, MADV_HUGEPAGE);
    b->n = n, b->pool = pl;
    *(struct mblock **)b->mem = b; /* free_async finds the block in front of the memory */
    pthread_mutex_lock(&pools_mu);
    b->next = pl->blocks;
    pl->blocks = b;
    pl->reserved += n;
    pl->used += n;
    note_high(pl);
    pthread_mutex_unlock(&pools_mu);
    *p = (char *)b->mem + MOCK_BLOCK_HEADER;
    return 0;
}
struct mfree {
    struct mblock *block;
    unsigned handed; /* the owner it frees */
};
static void run_free(void *arg)
{
    struct mfree *f = arg;
    pthread_mutex_lock(&pools_mu);
    if (f->block->handed == f->handed && !f->block->freed) {
        f->block->freed = 1;
        f->block->pool->used -= f->block->n;
    }
    pthread_mutex_unlock(&pools_mu);
}
int free_async(void *p, void *s)
{
    struct mfree *f;
    if (!p)
        return refuse(1); /* invalid value */
    f = malloc(sizeof *f);
    f->block = *(struct mblock **)((char *)p - MOCK_BLOCK_HEADER);
    pthread_mutex_lock(&pools_mu);
    f->block->free_enqueued = 1;
    f->block->free_stream = s;
    f->handed = f->block->handed;
    pthread_mutex_unlock(&pools_mu);
    enqueue(s, ITEM_FN, run_free, f, NULL, 0, 1); /* the item owns f */
    return 0;
}
/*
 * An exportable pool shared with another process.  The export is a duplicate of the pool's memfd and
 * the allocation's offset in it; the importer maps the memfd and finds the allocation there, so both processes
 * see one memory.  The break ipc_pool_private: the importer gets fresh zeroed memory of its own instead.
 */
int ipc_pool_export(void *pool, void *ptr, int *fd, void *data)
{
    struct mpool *pl = pool;
    *fd = -1;
    if (!pl || !pl->ipc_base)
        return SC_UNSUPPORTED; /* not exportable */
    char *p = ptr;
    if (p < pl->ipc_base + MOCK_BLOCK_HEADER || p >= pl->ipc_base + pl->ipc_size)
        return refuse(1); /* invalid value: not an allocation of this pool */
    struct mpool_export ex = { MOCK_IPC_MAGIC, (uint64_t)(p - pl->ipc_base),
                               (*(struct mblock **)(p - MOCK_BLOCK_HEADER))->n };
    memset(data, 0, SC_IPC_HANDLE_BYTES);
    memcpy(data, &ex, sizeof ex);
    return (*fd = fcntl(pl->ipc_fd, F_DUPFD_CLOEXEC, 0)) < 0 ? refuse(2) : 0;
}
int ipc_pool_import(void **pool, void **ptr, int fd, const void *data)
{
    struct mpool_export ex;
    struct stat st;
    *pool = *ptr = NULL;
    memcpy(&ex, data, sizeof ex);
    if (fstat(fd, &st) || ex.magic != MOCK_IPC_MAGIC || ex.offset + ex.n > (uint64_t)st.st_size)
        return refuse(1); /* invalid value */
    struct mpool *pl = calloc(1, sizeof *pl);
    pl->ipc_fd = -1;
    pl->ipc_size = (size_t)st.st_size;
    if (!(pl->ipc_base = shared_map(fd, pl->ipc_size))) {
        free(pl);
        return refuse(2);
    }
    *pool = pl;
    if (breaks(ipc_pool_private)) /* broken: memory of its own, not the exporter's */
        *ptr = pl->private_copy = calloc(1, ex.n);
    else
        *ptr = pl->ipc_base + ex.offset;
    /* its pages mapped now, not at the first write (a GPU's imported memory is mapped by the import) */
    for (size_t at = 0; at < ex.n; at += 4096)
        ((volatile char *)*ptr)[at] = ((volatile char *)*ptr)[at];
    return 0;
}
int ipc_pool_close(void *pool, void *ptr)
{
    struct mpool *pl = pool;
    (void)ptr;
    if (!pl)
        return 0;
    munmap(pl->ipc_base, pl->ipc_size);
    free(pl->private_copy);
    free(pl);
    return 0;
}
