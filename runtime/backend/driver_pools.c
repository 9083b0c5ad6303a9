/*
 * driver_pools.c - the stream-ordered allocator through the driver API: the
 * device's pool and pools made, their attributes and access, allocations and
 * frees in stream order, and pools exported to other processes.
 */
#include "driver.h"
#include <string.h>
#include <unistd.h>

/* -- the stream-ordered allocator ----------------------------------------- */

int drv_default_pool(void **pool)
{
    if (!drv_memop_supported(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED))
        return SC_UNSUPPORTED;
    return SC_CALL(cuDeviceGetMemPool, (CUmemoryPool *)pool, drv_gpus[drv_cur].dev);
}

int drv_pool_create(void **pool, unsigned flags)
{
    static const struct { unsigned flag; CUmemPool_attribute attr; } off[] = {
        { SC_POOL_NO_FOLLOW_EVENTS, CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES },
        { SC_POOL_NO_OPPORTUNISTIC, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC },
        { SC_POOL_NO_INTERNAL_DEPS, CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES },
    };
    CUmemPoolProps props;
    int rc, zero = 0;
    if (!drv_memop_supported(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED))
        return SC_UNSUPPORTED;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = drv_gpus[drv_cur].dev;
    if (flags & SC_POOL_IPC) { /* exportable, where the device has the handle type */
        int types = 0;
        if (SC_CALL(cuDeviceGetAttribute, &types, CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, drv_gpus[drv_cur].dev) ||
            !(types & CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR))
            return SC_UNSUPPORTED;
        props.handleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    }
    if (flags & SC_POOL_MAX_ONE) { /* maxSize, a field since CUDA 12.2 (reserved bytes before) */
        int version = 0;
        if (SC_CALL(cuDriverGetVersion, &version) || version < 12020)
            return SC_UNSUPPORTED;
        props.maxSize = sc_copy_bytes;
    }
    if ((rc = SC_CALL(cuMemPoolCreate, (CUmemoryPool *)pool, &props)))
        return rc;
    for (size_t i = 0; i < sizeof off / sizeof off[0]; i++)
        if ((flags & off[i].flag) && (rc = SC_CALL(cuMemPoolSetAttribute, (CUmemoryPool)*pool, off[i].attr, &zero)))
            return rc;
    if (flags & SC_POOL_KEEP_MEMORY) {
        cuuint64_t max = UINT64_MAX;
        rc = SC_CALL(cuMemPoolSetAttribute, (CUmemoryPool)*pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &max);
    }
    return rc;
}
int drv_pool_destroy(void *pool) { return SC_CALL(cuMemPoolDestroy, (CUmemoryPool)pool); }
int drv_pool_reserved(void *pool, uint64_t *bytes)
{
    cuuint64_t v = 0;
    int rc = SC_CALL(cuMemPoolGetAttribute, (CUmemoryPool)pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &v);
    *bytes = v;
    return rc;
}
int drv_pool_trim(void *pool) { return SC_CALL(cuMemPoolTrimTo, (CUmemoryPool)pool, 0); }
int drv_pool_used(void *pool, uint64_t *bytes)
{
    cuuint64_t v = 0;
    int rc = SC_CALL(cuMemPoolGetAttribute, (CUmemoryPool)pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &v);
    *bytes = v;
    return rc;
}
int drv_pool_high(void *pool, int which, uint64_t *bytes)
{
    cuuint64_t v = 0;
    int rc = SC_CALL(cuMemPoolGetAttribute, (CUmemoryPool)pool,
                     which == SC_POOL_HIGH_USED ? CU_MEMPOOL_ATTR_USED_MEM_HIGH : CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &v);
    *bytes = v;
    return rc;
}
/* "Reset the high watermark": each set to 0, the one value it may be set to */
int drv_pool_high_reset(void *pool)
{
    cuuint64_t zero = 0;
    int rc = SC_CALL(cuMemPoolSetAttribute, (CUmemoryPool)pool, CU_MEMPOOL_ATTR_USED_MEM_HIGH, &zero);
    return rc ? rc : SC_CALL(cuMemPoolSetAttribute, (CUmemoryPool)pool, CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH, &zero);
}
int drv_pool_trim_to(void *pool, uint64_t keep) { return SC_CALL(cuMemPoolTrimTo, (CUmemoryPool)pool, (size_t)keep); }
int drv_alloc_async(void **ptr, size_t n, void *pool, void *s)
{
    CUdeviceptr d = 0;
    int rc = pool ? SC_CALL(cuMemAllocFromPoolAsync, &d, n, (CUmemoryPool)pool, (CUstream)s)
                  : SC_CALL(cuMemAllocAsync, &d, n, (CUstream)s);
    *ptr = (void *)(uintptr_t)d;
    return rc;
}
int drv_free_async(void *ptr, void *s) { return SC_CALL(cuMemFreeAsync, DPTR(ptr), (CUstream)s); }

/*
 * "Imported memory pools do not support creating new allocations" (cuMemPoolImportFromShareableHandle).
 * The pool is exported to a file descriptor and imported again in this process; an export or import the driver
 * refuses skips the point (SC_UNSUPPORTED), an entry point the library lacks fails it.  The allocation's code is
 * the answer; one made anyway is freed before the imported pool is destroyed.
 */
int drv_alloc_imported(void *pool, size_t n, void *s)
{
    int fd = -1, rc;
    CUmemoryPool imported = NULL;
    CUdeviceptr d = 0;
    if (!pool)
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuMemPoolExportToShareableHandle, &fd, (CUmemoryPool)pool,
                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    rc = SC_CALL(cuMemPoolImportFromShareableHandle, &imported, (void *)(uintptr_t)fd,
                 CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    close(fd);
    if (rc)
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuMemAllocFromPoolAsync, &d, n, imported, (CUstream)s)) == CUDA_SUCCESS) {
        SC_CALL(cuMemFreeAsync, d, (CUstream)s);
        SC_CALL(cuStreamSynchronize, (CUstream)s);
    }
    SC_CALL(cuMemPoolDestroy, imported);
    return rc;
}

/*
 * a pool (of device 0) made accessible to device dev, or not.  "To enable access from other
 * devices, the accessing device must be peer capable with the memory pool's device" (Programming Guide,
 * Stream-Ordered Memory Allocator): a device that is not skips the point (SC_UNSUPPORTED).
 */
int drv_pool_set_access(void *pool, int dev, int access)
{
    CUdevice d, owner;
    int peer = 1, rc;
    if (!pool)
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuDeviceGet, &d, dev)) || (rc = SC_CALL(cuDeviceGet, &owner, 0)))
        return rc;
    if (dev != 0 && (rc = SC_CALL(cuDeviceCanAccessPeer, &peer, d, owner)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    if (!peer)
        return SC_UNSUPPORTED;
    CUmemAccessDesc desc = { .location = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d },
                             .flags = access == SC_ACCESS_READWRITE ? CU_MEM_ACCESS_FLAGS_PROT_READWRITE
                                                                    : CU_MEM_ACCESS_FLAGS_PROT_NONE };
    return SC_CALL(cuMemPoolSetAccess, (CUmemoryPool)pool, &desc, 1);
}
int drv_pool_get_access(void *pool, int dev, int *readwrite)
{
    CUdevice d;
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    int rc;
    if (!pool)
        return SC_UNSUPPORTED;
    if ((rc = SC_CALL(cuDeviceGet, &d, dev)))
        return rc;
    CUmemLocation loc = { .type = CU_MEM_LOCATION_TYPE_DEVICE, .id = d };
    rc = SC_CALL(cuMemPoolGetAccess, &flags, (CUmemoryPool)pool, &loc);
    *readwrite = flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    return rc;
}

/*
 * a pool's allocation shared with another process.  An export or import the driver refuses skips
 * the point (SC_UNSUPPORTED: IPC is documented as restricted), an entry point the library lacks fails it.
 */
int drv_ipc_pool_export(void *pool, void *ptr, int *fd, void *data)
{
    CUmemPoolPtrExportData d;
    int rc;
    *fd = -1;
    if ((rc = SC_CALL(cuMemPoolExportToShareableHandle, fd, (CUmemoryPool)pool, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
                      0)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    memset(&d, 0, sizeof d);
    rc = SC_CALL(cuMemPoolExportPointer, &d, DPTR(ptr));
    memcpy(data, &d, sizeof d);
    return rc;
}
int drv_ipc_pool_import(void **pool, void **ptr, int fd, const void *data)
{
    CUmemPoolPtrExportData d;
    CUdeviceptr dp = 0;
    int rc;
    *ptr = NULL;
    if ((rc = SC_CALL(cuMemPoolImportFromShareableHandle, (CUmemoryPool *)pool, (void *)(uintptr_t)fd,
                      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)))
        return SC_LACKS(rc) ? rc : SC_UNSUPPORTED;
    memcpy(&d, data, sizeof d);
    rc = SC_CALL(cuMemPoolImportPointer, &dp, (CUmemoryPool)*pool, &d);
    *ptr = (void *)(uintptr_t)dp;
    return rc;
}
int drv_ipc_pool_close(void *pool, void *ptr)
{
    int rc = ptr ? SC_CALL(cuMemFree, DPTR(ptr)) : 0, rc2 = pool ? SC_CALL(cuMemPoolDestroy, (CUmemoryPool)pool) : 0;
    return rc ? rc : rc2;
}
_Static_assert(sizeof(CUmemPoolPtrExportData) == SC_IPC_HANDLE_BYTES, "pool export data is 64 bytes");

/* the export alone, its code the answer (the default pool, or one made without the handle type, must be
 * refused); a descriptor made is closed again */
int drv_pool_export(void *pool)
{
    int fd = -1;
    int rc = SC_CALL(cuMemPoolExportToShareableHandle, &fd, (CUmemoryPool)pool,
                     CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0);
    if (rc == CUDA_SUCCESS && fd >= 0)
        close(fd);
    return rc;
}
