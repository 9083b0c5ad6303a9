/*
 * runtime.c - the runtime's primitive actions through the CUDA runtime API
 * (static cudart): the backend's table and its answers (the API's number for
 * a result code, a code's name, the thread's last error).  runtime.h lists the
 * files that hold its functions.
 */
#include "runtime.h"

int rt_last_error(int reset) { return reset ? cudaGetLastError() : cudaPeekAtLastError(); }

int rt_code(enum sc_code c)
{
    switch (c) {
    case SC_CODE_SUCCESS: return cudaSuccess;
    case SC_CODE_NOT_READY: return cudaErrorNotReady;
    case SC_CODE_INVALID_VALUE: return cudaErrorInvalidValue;
    case SC_CODE_INVALID_HANDLE: return cudaErrorInvalidResourceHandle;
    case SC_CODE_ILLEGAL_ADDRESS: return cudaErrorIllegalAddress;
    case SC_CODE_CAPTURE_UNSUPPORTED: return cudaErrorStreamCaptureUnsupported;
    case SC_CODE_CAPTURE_INVALIDATED: return cudaErrorStreamCaptureInvalidated;
    case SC_CODE_CAPTURE_IMPLICIT: return cudaErrorStreamCaptureImplicit;
    case SC_CODE_CAPTURE_WRONG_THREAD: return cudaErrorStreamCaptureWrongThread;
    case SC_CODE_INVALID_CONTEXT: return cudaErrorDeviceUninitialized; /* 201, as CUDA_ERROR_INVALID_CONTEXT */
    case SC_CODE_ASSERT: return cudaErrorAssert;
    case SC_CODE_LAUNCH_FAILED: return cudaErrorLaunchFailure;
    case SC_CODE_EXEC_UPDATE_FAILURE: return cudaErrorGraphExecUpdateFailure;
    case SC_CODE_CAPTURE_UNMATCHED: return cudaErrorStreamCaptureUnmatched;
    case SC_CODE_CAPTURE_UNJOINED: return cudaErrorStreamCaptureUnjoined;
    case SC_CODE_CAPTURED_EVENT: return cudaErrorCapturedEvent;
    case SC_CODE_NOT_PERMITTED: return cudaErrorNotPermitted;
    case SC_CODE_CONTEXT_IS_DESTROYED: return cudaErrorContextIsDestroyed;
    case SC_CODE_ILLEGAL_STATE: return cudaErrorIllegalState;
    case SC_CODE_SKIPPED: case SC_CODE_AN_ERROR: break;
    }
    return -1;
}

const char *rt_error_name(int rc)
{
    return rc == SC_UNSUPPORTED ? "not in the runtime API, or not on this device" : cudaGetErrorName((cudaError_t)rc);
}


const sc_backend sc_runtime_backend = SC_BACKEND_PREFIX("runtime", rt_);
