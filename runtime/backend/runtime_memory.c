/*
 * runtime_memory.c - memory through the runtime API: allocations, memsets,
 * copies (plain, 2D, 3D, batched, between devices); it has no stream memory
 * operations.
 */
#include "runtime.h"
#include "slot.h"
#include <string.h>

int rt_dev_alloc(void **p, size_t n) { return cudaMalloc(p, n); }
int rt_dev_free(void *p) { return cudaFree(p); }
int rt_host_alloc(void **p, size_t n) { return cudaHostAlloc(p, n, cudaHostAllocMapped | cudaHostAllocPortable); }
int rt_host_free(void *p) { return cudaFreeHost(p); }
int rt_host_dev_ptr(void **d, void *h) { return cudaHostGetDevicePointer(d, h, 0); }
int rt_managed_alloc(void **p, size_t n) { return cudaMallocManaged(p, n, cudaMemAttachGlobal); }

int rt_memset_async(void *s, void *d, unsigned char v, size_t n) { return cudaMemsetAsync(d, v, n, (cudaStream_t)s); }
int rt_memset_sync(void *d, unsigned char v, size_t n) { return cudaMemset(d, v, n); }

/* The plain copies name their direction; the others let unified addressing infer it. */
static enum cudaMemcpyKind copy_kind(unsigned kind)
{
    switch (kind & SC_COPY_KIND_MASK) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return cudaMemcpyHostToDevice;
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return cudaMemcpyDeviceToHost;
    case SC_D2D: return cudaMemcpyDeviceToDevice;
    default: return cudaMemcpyDefault;
    }
}

static struct cudaMemcpy3DParms copy3d(void *dst, const void *src, size_t n, unsigned kind)
{
    struct cudaMemcpy3DParms m;
    memset(&m, 0, sizeof m);
    m.srcPtr = (struct cudaPitchedPtr){ (void *)(uintptr_t)src, SC_ROW_BYTES, SC_ROW_BYTES, SC_3D_ROWS };
    m.dstPtr = (struct cudaPitchedPtr){ dst, SC_ROW_BYTES, SC_ROW_BYTES, SC_3D_ROWS };
    m.extent = (struct cudaExtent){ SC_ROW_BYTES, SC_3D_ROWS, n / (SC_ROW_BYTES * SC_3D_ROWS) };
    m.kind = copy_kind(kind);
    return m;
}

static enum cudaMemcpySrcAccessOrder src_order(unsigned kind)
{
    return kind & SC_BATCH_DURING_CALL ? cudaMemcpySrcAccessOrderDuringApiCall
           : kind & SC_BATCH_ANY       ? cudaMemcpySrcAccessOrderAny
                                       : cudaMemcpySrcAccessOrderStream;
}
/* driver_memory.c's drv_memcpy_batch, through cudaMemcpyBatchAsync / cudaMemcpy3DBatchAsync */
int rt_memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev)
{
    void *dsts[SC_BATCH_COPIES + 1];
    const void *srcs[SC_BATCH_COPIES + 1];
    size_t sizes[SC_BATCH_COPIES + 1], idxs[2] = { 0, 2 }, part = n / SC_BATCH_COPIES, count = SC_BATCH_COPIES;
    struct cudaMemcpyAttributes attrs[2] = { { .srcAccessOrder = src_order(kind) }, { .srcAccessOrder = src_order(kind) } };
    struct sc_slot *slot = slot_dev;
    for (int k = 0; k < SC_BATCH_COPIES; k++)
        dsts[k] = (char *)dst + k * part, srcs[k] = (const char *)src + k * part, sizes[k] = part;
    if (slot)
        dsts[count] = &slot->token, srcs[count] = &slot->arg, sizes[count++] = sizeof slot->token;
    if (kind & SC_COPY_3D) {
        struct cudaMemcpy3DBatchOp ops[SC_BATCH_COPIES + 1];
        memset(ops, 0, sizeof ops);
        for (size_t k = 0; k < count; k++) {
            ops[k].src.type = ops[k].dst.type = cudaMemcpyOperandTypePointer;
            ops[k].src.op.ptr.ptr = (void *)(uintptr_t)srcs[k], ops[k].dst.op.ptr.ptr = dsts[k];
            ops[k].extent = (struct cudaExtent){ sizes[k], 1, 1 };
            ops[k].srcAccessOrder = src_order(kind);
        }
        return cudaMemcpy3DBatchAsync(count, ops, 0, (cudaStream_t)s);
    }
    return cudaMemcpyBatchAsync(dsts, srcs, sizes, count, attrs, idxs, kind & SC_BATCH_SPLIT ? 2 : 1, (cudaStream_t)s);
}
int rt_memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D)
        return cudaMemcpy2DAsync(dst, SC_ROW_BYTES, src, SC_ROW_BYTES, SC_ROW_BYTES, n / SC_ROW_BYTES,
                                 copy_kind(kind), (cudaStream_t)s);
    if (kind & SC_COPY_3D) {
        struct cudaMemcpy3DParms m = copy3d(dst, src, n, kind);
        return cudaMemcpy3DAsync(&m, (cudaStream_t)s);
    }
    return cudaMemcpyAsync(dst, src, n, copy_kind(kind), (cudaStream_t)s);
}
int rt_memcpy_sync(void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D)
        return cudaMemcpy2D(dst, SC_ROW_BYTES, src, SC_ROW_BYTES, SC_ROW_BYTES, n / SC_ROW_BYTES, copy_kind(kind));
    if (kind & SC_COPY_3D) {
        struct cudaMemcpy3DParms m = copy3d(dst, src, n, kind);
        return cudaMemcpy3D(&m);
    }
    return cudaMemcpy(dst, src, n, copy_kind(kind));
}

int rt_memcpy_peer(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n)
{
    return cudaMemcpyPeerAsync(dst, dst_dev, src, src_dev, n, (cudaStream_t)s);
}

/* The runtime API has no stream memory operations (cuStreamWaitValue32 & co). */
int rt_wait_value(void *s, void *addr, uint64_t value, int cond, int bits)
{
    (void)s, (void)addr, (void)value, (void)cond, (void)bits;
    return SC_UNSUPPORTED;
}
int rt_write_value(void *s, void *addr, uint64_t value, unsigned flags, int bits)
{
    (void)s, (void)addr, (void)value, (void)flags, (void)bits;
    return SC_UNSUPPORTED;
}

/* stream memory operations are the driver API's only */
int rt_batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits, unsigned flags)
{
    (void)s, (void)wait_dev, (void)wait_value, (void)write_dev, (void)write_value, (void)bits, (void)flags;
    return SC_UNSUPPORTED;
}
int rt_batch_barrier_write(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits)
{
    (void)s, (void)scope, (void)write_dev, (void)write_value, (void)bits;
    return SC_UNSUPPORTED;
}

/* cudaMemPrefetchAsync (CUDA 13: a cudaMemLocation, flags 0); a device without concurrent managed access cannot
 * take it (drv_prefetch) */
int rt_prefetch(void *s, void *p, size_t n, unsigned to)
{
    struct cudaMemLocation loc;
    int dev = 0, v = 0;
    cudaError_t rc;
    if ((rc = cudaGetDevice(&dev)) || (rc = cudaDeviceGetAttribute(&v, cudaDevAttrConcurrentManagedAccess, dev)))
        return rc;
    if (!v)
        return SC_UNSUPPORTED;
    memset(&loc, 0, sizeof loc);
    loc.type = to == SC_PREFETCH_DEVICE ? cudaMemLocationTypeDevice : cudaMemLocationTypeHost;
    loc.id = to == SC_PREFETCH_DEVICE ? dev : 0;
    return cudaMemPrefetchAsync(p, n, loc, 0, (cudaStream_t)s);
}
