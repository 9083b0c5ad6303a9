/*
 * backend.c - the mock as the runtime's two backends ("driver" and "runtime"
 * behave the same): initialisation, the device, and the SC_BACKEND tables.
 */
#define _GNU_SOURCE
#include "mock.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
const char sc_compile_mode[] = "per-thread";
#else
const char sc_compile_mode[] = "legacy";
#endif
const char sc_backend_kind[] = "mock";
const size_t sc_copy_bytes = 256u << 10; /* backend.h */

uint64_t mock_started_ns;
int launch_blocking;

static int init(char *why, size_t whylen)
{
    static uint64_t first;
    pthread_mutex_lock(&registry);
    if (!legacy) {
        mock_started_ns = sc_now_ns();
        const char *lb = getenv("CUDA_LAUNCH_BLOCKING");
        launch_blocking = lb && !strcmp(lb, "1") && !breaks(launch_blocking_ignored);
        pthread_mutex_unlock(&registry);
        while (breaks(init_hang))
            sc_pause_ns(1000000000u);
        if (!first)
            first = sc_now_ns();
        if (breaks(ctx_never) || (breaks(peer_ctx_never) && started_by_itself()) ||
            (breaks(ctx_full) && sc_now_ns() - first < 500000000u)) {
            snprintf(why, whylen, "cannot open device 0: CUDA_ERROR_OUT_OF_MEMORY (the mock has no room for another context)");
            return SC_BUSY;
        }
        legacy = new_stream(KIND_LEGACY);
        return SC_READY;
    }
    pthread_mutex_unlock(&registry);
    return SC_READY;
}
static int thread_attach(void) { return 0; }
static int device_count(int *n) { *n = 1; return 0; }
/* cudaSetDevice (the runtime API) / cuCtxSetCurrent of the primary context (the driver API): the primary context is
 * current to the calling thread, whatever context was (the break set_device_keeps_context: that one stays) */
static int use_device(int dev)
{
    if (dev != 0)
        return SC_UNSUPPORTED;
    if (!breaks(set_device_keeps_context))
        cur_ctx = NULL;
    return 0;
}
static int memcpy_peer(void *s, void *dst, int dd, const void *src, int sd, size_t n)
{
    (void)s, (void)dst, (void)dd, (void)src, (void)sd, (void)n;
    return SC_UNSUPPORTED;
}
int sc_driver_describe(struct sc_device_info *info)
{
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "streamcts mock (host threads)%s%s",
             mock_break ? ", broken: " : "", mock_break ? mock_break_value : ""); /* an empty value is unset */
    snprintf(info->uuid, sizeof info->uuid, "MOCK");
    return 0;
}
int sc_runtime_version(void) { return 0; }

const sc_backend sc_driver_backend = SC_BACKEND("driver");
/* the runtime API's initialisation: as the driver's, unless the break runtime_rejects says cudart
 * cannot use the driver (cudaErrorInsufficientDriver on a stand-in it does not accept) */
static int runtime_init(char *why, size_t whylen)
{
    int state = init(why, whylen);
    if (state == SC_READY && breaks(runtime_rejects)) {
        snprintf(why, whylen, "runtime API sees no usable device (cudaErrorInsufficientDriver)");
        return SC_MISSING;
    }
    return state;
}
const sc_backend sc_runtime_backend = SC_BACKEND_INIT("runtime", runtime_init);
