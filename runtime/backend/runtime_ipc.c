/*
 * runtime_ipc.c - what the runtime API backend shares with other processes:
 * host memory registered (page-locked, device-mapped), and IPC handles of
 * events and device memory.
 */
#include "runtime.h"
#include <string.h>

int rt_host_register(void *h, size_t n) { return cudaHostRegister(h, n, cudaHostRegisterMapped | cudaHostRegisterPortable); }
int rt_host_unregister(void *h) { return cudaHostUnregister(h); }
int rt_ipc_event_handle(void *e, void *handle)
{
    cudaIpcEventHandle_t h;
    int rc = cudaIpcGetEventHandle(&h, (cudaEvent_t)e);
    memcpy(handle, &h, sizeof h);
    return rc;
}
int rt_ipc_event_open(void **e, const void *handle)
{
    cudaIpcEventHandle_t h;
    memcpy(&h, handle, sizeof h);
    return cudaIpcOpenEventHandle((cudaEvent_t *)e, h);
}
int rt_ipc_mem_handle(void *d, void *handle)
{
    cudaIpcMemHandle_t h;
    int rc = cudaIpcGetMemHandle(&h, d);
    memcpy(handle, &h, sizeof h);
    return rc;
}
int rt_ipc_mem_open(void **d, const void *handle)
{
    cudaIpcMemHandle_t h;
    memcpy(&h, handle, sizeof h);
    return cudaIpcOpenMemHandle(d, h, cudaIpcMemLazyEnablePeerAccess);
}
int rt_ipc_mem_close(void *d) { return cudaIpcCloseMemHandle(d); }
_Static_assert(sizeof(cudaIpcEventHandle_t) == SC_IPC_HANDLE_BYTES && sizeof(cudaIpcMemHandle_t) == SC_IPC_HANDLE_BYTES,
               "IPC handles are 64 bytes");
