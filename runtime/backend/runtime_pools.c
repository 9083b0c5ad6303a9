/*
 * runtime_pools.c - the stream-ordered allocator through the runtime API:
 * the device's pool and pools made, their attributes and access, allocations
 * and frees in stream order, and pools exported to other processes.
 */
#include "runtime.h"
#include <string.h>
#include <unistd.h> /* close: the file descriptors of exported pools */

/* -- the stream-ordered allocator ----------------------------------------- */

static int pools_supported(void)
{
    int v = 0;
    return cudaDeviceGetAttribute(&v, cudaDevAttrMemoryPoolsSupported, 0) == cudaSuccess && v;
}
int rt_default_pool(void **pool)
{
    int dev = 0, rc;
    if (!pools_supported())
        return SC_UNSUPPORTED;
    if ((rc = cudaGetDevice(&dev))) /* the device current to the issuing thread, as the driver API's backend */
        return rc;
    return cudaDeviceGetMemPool((cudaMemPool_t *)pool, dev);
}
int rt_pool_create(void **pool, unsigned flags)
{
    static const struct { unsigned flag; enum cudaMemPoolAttr attr; } off[] = {
        { SC_POOL_NO_FOLLOW_EVENTS, cudaMemPoolReuseFollowEventDependencies },
        { SC_POOL_NO_OPPORTUNISTIC, cudaMemPoolReuseAllowOpportunistic },
        { SC_POOL_NO_INTERNAL_DEPS, cudaMemPoolReuseAllowInternalDependencies },
    };
    struct cudaMemPoolProps props;
    int rc, zero = 0;
    if (!pools_supported())
        return SC_UNSUPPORTED;
    memset(&props, 0, sizeof props);
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    if (flags & SC_POOL_IPC) { /* exportable, where the device has the handle type */
        int types = 0;
        if (cudaDeviceGetAttribute(&types, cudaDevAttrMemoryPoolSupportedHandleTypes, 0) ||
            !(types & cudaMemHandleTypePosixFileDescriptor))
            return SC_UNSUPPORTED;
        props.handleTypes = cudaMemHandleTypePosixFileDescriptor;
    }
    if (flags & SC_POOL_MAX_ONE) { /* maxSize, a field since CUDA 12.2 (reserved bytes before) */
        int version = 0;
        if (cudaDriverGetVersion(&version) || version < 12020)
            return SC_UNSUPPORTED;
        props.maxSize = sc_copy_bytes;
    }
    if ((rc = cudaMemPoolCreate((cudaMemPool_t *)pool, &props)))
        return rc;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if ((flags & off[i].flag) && (rc = cudaMemPoolSetAttribute((cudaMemPool_t)*pool, off[i].attr, &zero)))
            return rc;
    if (flags & SC_POOL_KEEP_MEMORY) {
        uint64_t max = UINT64_MAX;
        rc = cudaMemPoolSetAttribute((cudaMemPool_t)*pool, cudaMemPoolAttrReleaseThreshold, &max);
    }
    return rc;
}
int rt_pool_destroy(void *pool) { return cudaMemPoolDestroy((cudaMemPool_t)pool); }
int rt_pool_reserved(void *pool, uint64_t *bytes)
{
    return cudaMemPoolGetAttribute((cudaMemPool_t)pool, cudaMemPoolAttrReservedMemCurrent, bytes);
}
int rt_pool_trim(void *pool) { return cudaMemPoolTrimTo((cudaMemPool_t)pool, 0); }
int rt_pool_used(void *pool, uint64_t *bytes)
{
    return cudaMemPoolGetAttribute((cudaMemPool_t)pool, cudaMemPoolAttrUsedMemCurrent, bytes);
}
int rt_pool_high(void *pool, int which, uint64_t *bytes)
{
    return cudaMemPoolGetAttribute((cudaMemPool_t)pool,
                                   which == SC_POOL_HIGH_USED ? cudaMemPoolAttrUsedMemHigh : cudaMemPoolAttrReservedMemHigh,
                                   bytes);
}
/* "Reset the high watermark": each set to 0, the one value it may be set to */
int rt_pool_high_reset(void *pool)
{
    uint64_t zero = 0;
    cudaError_t rc = cudaMemPoolSetAttribute((cudaMemPool_t)pool, cudaMemPoolAttrUsedMemHigh, &zero);
    return rc ? (int)rc : (int)cudaMemPoolSetAttribute((cudaMemPool_t)pool, cudaMemPoolAttrReservedMemHigh, &zero);
}
int rt_pool_trim_to(void *pool, uint64_t keep) { return cudaMemPoolTrimTo((cudaMemPool_t)pool, (size_t)keep); }
int rt_alloc_async(void **ptr, size_t n, void *pool, void *s)
{
    if (pool)
        return cudaMallocFromPoolAsync(ptr, n, (cudaMemPool_t)pool, (cudaStream_t)s);
    return cudaMallocAsync(ptr, n, (cudaStream_t)s);
}
int rt_free_async(void *ptr, void *s) { return cudaFreeAsync(ptr, (cudaStream_t)s); }

/* an allocation from a pool exported and imported again in this process (see driver_pools.c) */
int rt_alloc_imported(void *pool, size_t n, void *s)
{
    int fd = -1, rc;
    cudaMemPool_t imported = NULL;
    void *d = NULL;
    if (!pool || cudaMemPoolExportToShareableHandle(&fd, (cudaMemPool_t)pool, cudaMemHandleTypePosixFileDescriptor, 0))
        return SC_UNSUPPORTED;
    rc = cudaMemPoolImportFromShareableHandle(&imported, (void *)(uintptr_t)fd, cudaMemHandleTypePosixFileDescriptor, 0);
    close(fd);
    if (rc)
        return SC_UNSUPPORTED;
    if ((rc = cudaMallocFromPoolAsync(&d, n, imported, (cudaStream_t)s)) == cudaSuccess) {
        cudaFreeAsync(d, (cudaStream_t)s);
        cudaStreamSynchronize((cudaStream_t)s);
    }
    cudaMemPoolDestroy(imported);
    return rc;
}

/* a pool (of device 0) made accessible to device dev, or not (see driver_pools.c) */
int rt_pool_set_access(void *pool, int dev, int access)
{
    int peer = 1;
    if (!pool)
        return SC_UNSUPPORTED;
    if (dev != 0 && cudaDeviceCanAccessPeer(&peer, dev, 0) != cudaSuccess)
        return SC_UNSUPPORTED;
    if (!peer)
        return SC_UNSUPPORTED;
    struct cudaMemAccessDesc desc = { .location = { .type = cudaMemLocationTypeDevice, .id = dev },
                                      .flags = access == SC_ACCESS_READWRITE ? cudaMemAccessFlagsProtReadWrite
                                                                             : cudaMemAccessFlagsProtNone };
    return cudaMemPoolSetAccess((cudaMemPool_t)pool, &desc, 1);
}
int rt_pool_get_access(void *pool, int dev, int *readwrite)
{
    enum cudaMemAccessFlags flags = cudaMemAccessFlagsProtNone;
    struct cudaMemLocation loc = { .type = cudaMemLocationTypeDevice, .id = dev };
    if (!pool)
        return SC_UNSUPPORTED;
    int rc = cudaMemPoolGetAccess(&flags, (cudaMemPool_t)pool, &loc);
    *readwrite = flags == cudaMemAccessFlagsProtReadWrite;
    return rc;
}
/* a pool's allocation shared with another process (see driver_pools.c) */
int rt_ipc_pool_export(void *pool, void *ptr, int *fd, void *data)
{
    struct cudaMemPoolPtrExportData d;
    *fd = -1;
    if (cudaMemPoolExportToShareableHandle(fd, (cudaMemPool_t)pool, cudaMemHandleTypePosixFileDescriptor, 0))
        return SC_UNSUPPORTED;
    memset(&d, 0, sizeof d);
    int rc = cudaMemPoolExportPointer(&d, ptr);
    memcpy(data, &d, sizeof d);
    return rc;
}
int rt_ipc_pool_import(void **pool, void **ptr, int fd, const void *data)
{
    struct cudaMemPoolPtrExportData d;
    *ptr = NULL;
    if (cudaMemPoolImportFromShareableHandle((cudaMemPool_t *)pool, (void *)(uintptr_t)fd,
                                             cudaMemHandleTypePosixFileDescriptor, 0))
        return SC_UNSUPPORTED;
    memcpy(&d, data, sizeof d);
    return cudaMemPoolImportPointer(ptr, (cudaMemPool_t)*pool, &d);
}
int rt_ipc_pool_close(void *pool, void *ptr)
{
    int rc = ptr ? cudaFree(ptr) : 0, rc2 = pool ? cudaMemPoolDestroy((cudaMemPool_t)pool) : 0;
    return rc ? rc : rc2;
}
_Static_assert(sizeof(struct cudaMemPoolPtrExportData) == SC_IPC_HANDLE_BYTES, "pool export data is 64 bytes");
/* the export alone, its code the answer (see driver_pools.c) */
int rt_pool_export(void *pool)
{
    int fd = -1;
    int rc = cudaMemPoolExportToShareableHandle(&fd, (cudaMemPool_t)pool, cudaMemHandleTypePosixFileDescriptor, 0);
    if (rc == cudaSuccess && fd >= 0)
        close(fd);
    return rc;
}
