/*
 * backend.h - what an API under test must provide.
 *
 * Every program runs once through the driver API and once through the runtime
 * API.  A backend maps the runtime's few primitive actions onto one API and
 * calls nothing else, so a driver case never touches cudart and a runtime case
 * never calls cu* directly (only cudart itself does).  Handles are opaque
 * pointers; results are the API's own codes (0 is success, 600 is not-ready
 * in both APIs).
 */
#ifndef SC_BACKEND_H
#define SC_BACKEND_H
#include <stddef.h>
#include <stdint.h>
#include "streamcts.h"

#define SC_NOT_READY 600 /* CUDA_ERROR_NOT_READY == cudaErrorNotReady */

enum { SC_READY = 0, SC_MISSING = 1, SC_BROKEN = 2 };

/* The compile mode the backends of this binary were built in. */
extern const char sc_compile_mode[]; /* "legacy" or "per-thread" */

typedef struct sc_backend {
    const char *name; /* "driver" or "runtime" */

    /* SC_READY, or SC_MISSING (no driver or device: skip) or SC_BROKEN; why says which. */
    int (*init)(char *why, size_t whylen);
    int (*thread_attach)(void); /* make the device current in this thread */

    void *(*builtin_stream)(int which); /* SC_LEGACY_STREAM, ... -> handle */
    int (*stream_create)(void **s, int nonblocking);
    int (*stream_destroy)(void *s);
    int (*event_create)(void **e);
    int (*event_destroy)(void *e);

    int (*dev_alloc)(void **dptr, size_t n);
    int (*dev_free)(void *dptr);
    int (*host_alloc)(void **hptr, size_t n); /* pinned, device-mapped, portable */
    int (*host_free)(void *hptr);
    int (*host_dev_ptr)(void **dptr, void *hptr);

    int (*launch_gate)(void *s, void *flag_dev, uint64_t max_ns, void *slot_dev, uint32_t token);
    int (*launch_mark)(void *s, void *slot_dev, uint32_t token);
    int (*memset_async)(void *s, void *dptr, unsigned char v, size_t n);
    int (*memset_sync)(void *dptr, unsigned char v, size_t n);
    int (*memcpy_async)(void *s, void *dst, const void *src, size_t n, enum sc_copy kind);
    int (*memcpy_sync)(void *dst, const void *src, size_t n, enum sc_copy kind);
    int (*host_func)(void *s, void (*fn)(void *), void *arg);
    /* Adds a stream callback that calls sc_callback_body(arg, status). */
    int (*callback)(void *s, void *arg);
    int (*event_record)(void *e, void *s);
    int (*stream_wait_event)(void *s, void *e);
    int (*stream_sync)(void *s);
    int (*stream_query)(void *s);
    int (*event_sync)(void *e);
    int (*event_query)(void *e);
    int (*ctx_sync)(void);

    const char *(*error_name)(int rc);
} sc_backend;

/*
 * The table a backend defines from its static functions, which carry the
 * members' names, so that no backend can leave one out:
 *     const sc_backend sc_driver_backend = SC_BACKEND("driver");
 */
#define SC_BACKEND(NAME) \
    { \
        .name = NAME, \
        .init = init, .thread_attach = thread_attach, .builtin_stream = builtin_stream, .stream_create = stream_create, \
        .stream_destroy = stream_destroy, .event_create = event_create, .event_destroy = event_destroy, .dev_alloc = dev_alloc, \
        .dev_free = dev_free, .host_alloc = host_alloc, .host_free = host_free, .host_dev_ptr = host_dev_ptr, \
        .launch_gate = launch_gate, .launch_mark = launch_mark, .memset_async = memset_async, .memset_sync = memset_sync, \
        .memcpy_async = memcpy_async, .memcpy_sync = memcpy_sync, .host_func = host_func, .callback = callback, \
        .event_record = event_record, .stream_wait_event = stream_wait_event, .stream_sync = stream_sync, .stream_query = stream_query, \
        .event_sync = event_sync, .event_query = event_query, .ctx_sync = ctx_sync, .error_name = error_name, \
    }

extern const sc_backend sc_driver_backend;
extern const sc_backend sc_runtime_backend;

/* Called by the backends' stream-callback trampolines. */
void sc_callback_body(void *arg, int status);

/* Facts for the TAP header, read through the driver API. */
struct sc_device_info {
    char name[256];
    char uuid[64];
    int cc_major, cc_minor;
    int driver_version;  /* cuDriverGetVersion */
    int runtime_version; /* cudaRuntimeGetVersion of the linked cudart */
};
int sc_driver_describe(struct sc_device_info *info);
int sc_runtime_version(void);

#endif
