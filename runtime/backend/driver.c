/*
 * driver.c - the runtime's primitive actions through the driver API: the
 * backend's table, the compile mode it was built in, and its answers (the
 * API's number for a result code, a code's name).  driver.h lists the files
 * that hold its functions.
 */
#include "driver.h"

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
const char sc_compile_mode[] = "per-thread";
#else
const char sc_compile_mode[] = "legacy";
#endif
const char sc_backend_kind[] = "cuda";
const size_t sc_copy_bytes = 4u << 20;

int drv_last_error(int reset) /* the driver API keeps no error state of a thread */
{
    (void)reset;
    return SC_UNSUPPORTED;
}

int drv_code(enum sc_code c)
{
    switch (c) {
    case SC_CODE_SUCCESS: return CUDA_SUCCESS;
    case SC_CODE_NOT_READY: return CUDA_ERROR_NOT_READY;
    case SC_CODE_INVALID_VALUE: return CUDA_ERROR_INVALID_VALUE;
    case SC_CODE_INVALID_HANDLE: return CUDA_ERROR_INVALID_HANDLE;
    case SC_CODE_ILLEGAL_ADDRESS: return CUDA_ERROR_ILLEGAL_ADDRESS;
    case SC_CODE_CAPTURE_UNSUPPORTED: return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    case SC_CODE_CAPTURE_INVALIDATED: return CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    case SC_CODE_CAPTURE_IMPLICIT: return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    case SC_CODE_CAPTURE_WRONG_THREAD: return CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD;
    case SC_CODE_INVALID_CONTEXT: return CUDA_ERROR_INVALID_CONTEXT;
    case SC_CODE_ASSERT: return CUDA_ERROR_ASSERT;
    case SC_CODE_LAUNCH_FAILED: return CUDA_ERROR_LAUNCH_FAILED;
    case SC_CODE_EXEC_UPDATE_FAILURE: return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
    case SC_CODE_CAPTURE_UNMATCHED: return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    case SC_CODE_CAPTURE_UNJOINED: return CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    case SC_CODE_CAPTURED_EVENT: return CUDA_ERROR_CAPTURED_EVENT;
    case SC_CODE_NOT_PERMITTED: return CUDA_ERROR_NOT_PERMITTED;
    case SC_CODE_CONTEXT_IS_DESTROYED: return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    case SC_CODE_ILLEGAL_STATE: return CUDA_ERROR_ILLEGAL_STATE;
    case SC_CODE_SKIPPED: case SC_CODE_AN_ERROR: break;
    }
    return -1;
}

const char *drv_error_name(int rc)
{
    const char *name = NULL;
    if (rc == SC_UNSUPPORTED)
        return "not supported by this device";
    if (SC_LACKS(rc))
        return sc_driver_lacks_message(rc);
    if (SC_CALL(cuGetErrorName, (CUresult)rc, &name) != CUDA_SUCCESS || !name)
        return "unknown CUresult";
    return name;
}


const sc_backend sc_driver_backend = SC_BACKEND_PREFIX("driver", drv_);
