/*
 * driver_memory.c - memory through the driver API: allocations, memsets,
 * copies (plain, 2D, 3D, batched, between devices) and stream memory
 * operations.
 */
#include "driver.h"
#include "slot.h"
#include <string.h>

int drv_dev_alloc(void **p, size_t n)
{
    CUdeviceptr d = 0;
    int rc = SC_CALL(cuMemAlloc, &d, n);
    *p = (void *)(uintptr_t)d;
    return rc;
}
int drv_dev_free(void *p) { return SC_CALL(cuMemFree, (CUdeviceptr)(uintptr_t)p); }
int drv_host_alloc(void **p, size_t n)
{
    return SC_CALL(cuMemHostAlloc, p, n, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE);
}
int drv_host_free(void *p) { return SC_CALL(cuMemFreeHost, p); }
int drv_managed_alloc(void **p, size_t n)
{
    CUdeviceptr d = 0;
    int rc = SC_CALL(cuMemAllocManaged, &d, n, CU_MEM_ATTACH_GLOBAL);
    *p = (void *)(uintptr_t)d;
    return rc;
}
int drv_host_dev_ptr(void **d, void *h)
{
    CUdeviceptr dp = 0;
    int rc = SC_CALL(cuMemHostGetDevicePointer, &dp, h, 0);
    *d = (void *)(uintptr_t)dp;
    return rc;
}

int drv_memset_async(void *s, void *d, unsigned char v, size_t n)
{
    return SC_CALL(cuMemsetD8Async, DPTR(d), v, n, (CUstream)s);
}
int drv_memset_sync(void *d, unsigned char v, size_t n) { return SC_CALL(cuMemsetD8, DPTR(d), v, n); }

static int host_side(unsigned kind, int dst)
{
    switch (kind & SC_COPY_KIND_MASK) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return !dst;
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return dst;
    default: return 0;
    }
}

static void copy2d(CUDA_MEMCPY2D *m, void *dst, const void *src, size_t n, unsigned kind)
{
    memset(m, 0, sizeof *m);
    m->srcMemoryType = host_side(kind, 0) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->srcHost = src;
    m->srcDevice = DPTR(src);
    m->srcPitch = SC_ROW_BYTES;
    m->dstMemoryType = host_side(kind, 1) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->dstHost = dst;
    m->dstDevice = DPTR(dst);
    m->dstPitch = SC_ROW_BYTES;
    m->WidthInBytes = SC_ROW_BYTES;
    m->Height = n / SC_ROW_BYTES;
}

static void copy3d(CUDA_MEMCPY3D *m, void *dst, const void *src, size_t n, unsigned kind)
{
    memset(m, 0, sizeof *m);
    m->srcMemoryType = host_side(kind, 0) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->srcHost = src;
    m->srcDevice = DPTR(src);
    m->srcPitch = SC_ROW_BYTES;
    m->srcHeight = SC_3D_ROWS;
    m->dstMemoryType = host_side(kind, 1) ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    m->dstHost = dst;
    m->dstDevice = DPTR(dst);
    m->dstPitch = SC_ROW_BYTES;
    m->dstHeight = SC_3D_ROWS;
    m->WidthInBytes = SC_ROW_BYTES;
    m->Height = SC_3D_ROWS;
    m->Depth = n / (SC_ROW_BYTES * SC_3D_ROWS);
}

/*
 * The plain copies use the entry point of their direction; copies between
 * host memories and with managed memory use cuMemcpy(Async), which infers
 * the direction from the pointers (unified addressing).
 */
int drv_memcpy_async(void *s, void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D) {
        CUDA_MEMCPY2D m;
        copy2d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy2DAsync, &m, (CUstream)s);
    }
    if (kind & SC_COPY_3D) {
        CUDA_MEMCPY3D m;
        copy3d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy3DAsync, &m, (CUstream)s);
    }
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return SC_CALL(cuMemcpyHtoDAsync, DPTR(dst), src, n, (CUstream)s);
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return SC_CALL(cuMemcpyDtoHAsync, dst, DPTR(src), n, (CUstream)s);
    case SC_D2D: return SC_CALL(cuMemcpyDtoDAsync, DPTR(dst), DPTR(src), n, (CUstream)s);
    default: return SC_CALL(cuMemcpyAsync, DPTR(dst), DPTR(src), n, (CUstream)s);
    }
}
/* the source access order a batch's flags ask for (none: in stream order) */
static CUmemcpySrcAccessOrder src_order(unsigned kind)
{
    return kind & SC_BATCH_DURING_CALL ? CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
           : kind & SC_BATCH_ANY       ? CU_MEMCPY_SRC_ACCESS_ORDER_ANY
                                       : CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
}
/* one pointer-to-pointer copy of cuMemcpy3DBatchAsync: n bytes as one row (rows, layers: tightly packed) */
static CUDA_MEMCPY3D_BATCH_OP copy3d_op(CUdeviceptr dst, CUdeviceptr src, size_t n, unsigned kind)
{
    CUDA_MEMCPY3D_BATCH_OP op;
    memset(&op, 0, sizeof op);
    op.src.type = op.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER;
    op.src.op.ptr.ptr = src, op.dst.op.ptr.ptr = dst;
    op.extent = (CUextent3D){ n, 1, 1 };
    op.srcAccessOrder = src_order(kind);
    return op;
}
/* cuMemcpyBatchAsync and cuMemcpy3DBatchAsync as cuda.h of CUDA 13.0 declares them (the _v2 entry points, without
 * the failIdx of CUDA 12.8's): a driver that says it is older has neither, a capability the point skips for; one
 * that says 13.0 or later and lacks them fails, naming the entry point (SC_CALL) */
static int batch_supported(void)
{
    int version = 0;
    return !SC_CALL(cuDriverGetVersion, &version) && version >= 13000;
}
/*
 * n bytes in SC_BATCH_COPIES equal copies and (slot_dev not NULL) a last one of the slot's arg to its token, so that
 * the batch's own work says when it ran.  Unified addressing: host and device memory alike.  SC_BATCH_SPLIT: the
 * copies under two attribute entries, the second from copy 2 on (the token's copy among them).
 */
int drv_memcpy_batch(void *s, void *dst, const void *src, size_t n, unsigned kind, void *slot_dev)
{
    CUdeviceptr dsts[SC_BATCH_COPIES + 1], srcs[SC_BATCH_COPIES + 1];
    size_t sizes[SC_BATCH_COPIES + 1], idxs[2] = { 0, 2 }, part = n / SC_BATCH_COPIES, count = SC_BATCH_COPIES;
    CUmemcpyAttributes attrs[2] = { { .srcAccessOrder = src_order(kind) }, { .srcAccessOrder = src_order(kind) } };
    struct sc_slot *slot = slot_dev;
    if (!batch_supported())
        return SC_UNSUPPORTED;
    for (int k = 0; k < SC_BATCH_COPIES; k++)
        dsts[k] = DPTR((char *)dst + k * part), srcs[k] = DPTR((const char *)src + k * part), sizes[k] = part;
    if (slot)
        dsts[count] = DPTR(&slot->token), srcs[count] = DPTR(&slot->arg), sizes[count++] = sizeof slot->token;
    if (kind & SC_COPY_3D) {
        CUDA_MEMCPY3D_BATCH_OP ops[SC_BATCH_COPIES + 1];
        for (size_t k = 0; k < count; k++)
            ops[k] = copy3d_op(dsts[k], srcs[k], sizes[k], kind);
        return SC_CALL(cuMemcpy3DBatchAsync, count, ops, 0, (CUstream)s);
    }
    return SC_CALL(cuMemcpyBatchAsync, dsts, srcs, sizes, count, attrs, idxs, kind & SC_BATCH_SPLIT ? 2 : 1,
                   (CUstream)s);
}
int drv_memcpy_sync(void *dst, const void *src, size_t n, unsigned kind)
{
    if (kind & SC_COPY_2D) {
        CUDA_MEMCPY2D m;
        copy2d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy2D, &m);
    }
    if (kind & SC_COPY_3D) {
        CUDA_MEMCPY3D m;
        copy3d(&m, dst, src, n, kind);
        return SC_CALL(cuMemcpy3D, &m);
    }
    switch (kind) {
    case SC_H2D_PINNED:
    case SC_H2D_PAGEABLE: return SC_CALL(cuMemcpyHtoD, DPTR(dst), src, n);
    case SC_D2H_PINNED:
    case SC_D2H_PAGEABLE: return SC_CALL(cuMemcpyDtoH, dst, DPTR(src), n);
    case SC_D2D: return SC_CALL(cuMemcpyDtoD, DPTR(dst), DPTR(src), n);
    default: return SC_CALL(cuMemcpy, DPTR(dst), DPTR(src), n);
    }
}

int drv_memcpy_peer(void *s, void *dst, int dst_dev, const void *src, int src_dev, size_t n)
{
    return SC_CALL(cuMemcpyPeerAsync, DPTR(dst), drv_gpus[dst_dev].ctx, DPTR(src), drv_gpus[src_dev].ctx, n, (CUstream)s);
}

/* -- stream memory operations -------------------------------------------- */

int drv_memop_supported(int attribute)
{
    int v = 0;
    return SC_CALL(cuDeviceGetAttribute, &v, (CUdevice_attribute)attribute, drv_gpus[drv_cur].dev) == CUDA_SUCCESS && v;
}

int drv_wait_value(void *s, void *addr, uint64_t value, int cond, int bits)
{
    static const unsigned flags[] = {
        [SC_WAIT_GEQ] = CU_STREAM_WAIT_VALUE_GEQ, [SC_WAIT_EQ] = CU_STREAM_WAIT_VALUE_EQ,
        [SC_WAIT_AND] = CU_STREAM_WAIT_VALUE_AND, [SC_WAIT_NOR] = CU_STREAM_WAIT_VALUE_NOR,
    };
    if ((cond == SC_WAIT_NOR && !drv_memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR)) ||
        (bits == 64 && !drv_memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS)))
        return SC_UNSUPPORTED;
    if (bits == 64)
        return SC_CALL(cuStreamWaitValue64, (CUstream)s, DPTR(addr), value, flags[cond]);
    return SC_CALL(cuStreamWaitValue32, (CUstream)s, DPTR(addr), (cuuint32_t)value, flags[cond]);
}

int drv_write_value(void *s, void *addr, uint64_t value, unsigned sc_flags, int bits)
{
    unsigned flags = (sc_flags & SC_WRITE_NO_BARRIER) ? CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER : 0;
    if (bits == 64 && !drv_memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS))
        return SC_UNSUPPORTED;
    if (bits == 64)
        return SC_CALL(cuStreamWriteValue64, (CUstream)s, DPTR(addr), value, flags);
    return SC_CALL(cuStreamWriteValue32, (CUstream)s, DPTR(addr), (cuuint32_t)value, flags);
}

/* one batch operation: a write of value, 32 or 64 bits wide */
static void batch_write(CUstreamBatchMemOpParams *op, void *dev, uint64_t value, int bits)
{
    op->writeValue.operation = bits == 64 ? CU_STREAM_MEM_OP_WRITE_VALUE_64 : CU_STREAM_MEM_OP_WRITE_VALUE_32;
    op->writeValue.address = DPTR(dev);
    if (bits == 64)
        op->writeValue.value64 = value;
    else
        op->writeValue.value = (cuuint32_t)value;
}
/* one batch operation: a memory barrier ("Insert a memory barrier of the specified type") */
static void batch_barrier(CUstreamBatchMemOpParams *op, unsigned type)
{
    op->memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    op->memoryBarrier.flags = type;
}

/* a GEQ wait and a write in one batch, enqueued "in the order they appear in the array" (SC_BATCH_BARRIER: a
 * system-wide memory barrier between them) */
int drv_batch_wait_write(void *s, void *wait_dev, uint64_t wait_value, void *write_dev, uint64_t write_value,
                            int bits, unsigned flags)
{
    CUstreamBatchMemOpParams ops[3];
    unsigned w = (flags & SC_BATCH_BARRIER) ? 2 : 1; /* the write's index */
    if (bits == 64 && !drv_memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS))
        return SC_UNSUPPORTED;
    memset(ops, 0, sizeof ops);
    ops[0].waitValue.operation = bits == 64 ? CU_STREAM_MEM_OP_WAIT_VALUE_64 : CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[0].waitValue.address = DPTR(wait_dev);
    ops[0].waitValue.flags = CU_STREAM_WAIT_VALUE_GEQ;
    if (bits == 64)
        ops[0].waitValue.value64 = wait_value;
    else
        ops[0].waitValue.value = (cuuint32_t)wait_value;
    if (flags & SC_BATCH_BARRIER)
        batch_barrier(&ops[1], CU_STREAM_MEMORY_BARRIER_TYPE_SYS);
    batch_write(&ops[w], write_dev, write_value, bits);
    return SC_CALL(cuStreamBatchMemOp, (CUstream)s, w + 1, ops, 0);
}

/* a memory barrier and a write, in one batch */
int drv_batch_barrier_write(void *s, unsigned scope, void *write_dev, uint64_t write_value, int bits)
{
    CUstreamBatchMemOpParams ops[2];
    if (bits == 64 && !drv_memop_supported(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS))
        return SC_UNSUPPORTED;
    memset(ops, 0, sizeof ops);
    batch_barrier(&ops[0], scope == SC_BARRIER_GPU ? CU_STREAM_MEMORY_BARRIER_TYPE_GPU : CU_STREAM_MEMORY_BARRIER_TYPE_SYS);
    batch_write(&ops[1], write_dev, write_value, bits);
    return SC_CALL(cuStreamBatchMemOp, (CUstream)s, 2, ops, 0);
}

/* cuMemPrefetchAsync (CUDA 13: a CUmemLocation, flags 0): "Specifying CU_MEM_LOCATION_TYPE_DEVICE ... must have
 * non-zero value for the device attribute CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS. Additionally, hStream must
 * be associated with a device that has" it: a device without it cannot take the prefetch, a capability */
int drv_prefetch(void *s, void *p, size_t n, unsigned to)
{
    CUmemLocation loc;
    if (!drv_memop_supported(CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS))
        return SC_UNSUPPORTED;
    memset(&loc, 0, sizeof loc);
    loc.type = to == SC_PREFETCH_DEVICE ? CU_MEM_LOCATION_TYPE_DEVICE : CU_MEM_LOCATION_TYPE_HOST;
    loc.id = to == SC_PREFETCH_DEVICE ? (int)drv_gpus[drv_cur].dev : 0;
    return SC_CALL(cuMemPrefetchAsync, DPTR(p), n, loc, 0, (CUstream)s);
}
