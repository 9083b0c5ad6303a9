/*
 * driver_ipc.c - what the driver API backend shares with other processes:
 * host memory registered (page-locked, device-mapped), and IPC handles of
 * events and device memory.
 */
#include "driver.h"
#include <string.h>

int drv_host_register(void *h, size_t n)
{
    return SC_CALL(cuMemHostRegister, h, n, CU_MEMHOSTREGISTER_DEVICEMAP | CU_MEMHOSTREGISTER_PORTABLE);
}
int drv_host_unregister(void *h) { return SC_CALL(cuMemHostUnregister, h); }
int drv_ipc_event_handle(void *e, void *handle)
{
    CUipcEventHandle h;
    int rc = SC_CALL(cuIpcGetEventHandle, &h, (CUevent)e);
    memcpy(handle, &h, sizeof h);
    return rc;
}
int drv_ipc_event_open(void **e, const void *handle)
{
    CUipcEventHandle h;
    memcpy(&h, handle, sizeof h);
    return SC_CALL(cuIpcOpenEventHandle, (CUevent *)e, h);
}
int drv_ipc_mem_handle(void *d, void *handle)
{
    CUipcMemHandle h;
    int rc = SC_CALL(cuIpcGetMemHandle, &h, DPTR(d));
    memcpy(handle, &h, sizeof h);
    return rc;
}
int drv_ipc_mem_open(void **d, const void *handle)
{
    CUipcMemHandle h;
    CUdeviceptr dp = 0;
    memcpy(&h, handle, sizeof h);
    int rc = SC_CALL(cuIpcOpenMemHandle, &dp, h, CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
    *d = (void *)(uintptr_t)dp;
    return rc;
}
int drv_ipc_mem_close(void *d) { return SC_CALL(cuIpcCloseMemHandle, DPTR(d)); }
_Static_assert(sizeof(CUipcEventHandle) == SC_IPC_HANDLE_BYTES && sizeof(CUipcMemHandle) == SC_IPC_HANDLE_BYTES,
               "IPC handles are 64 bytes");
