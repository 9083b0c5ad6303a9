/*
 * errors.c - what the mock's calls answer: its error codes and their names,
 * the context's sticky error and the calling thread's last error.
 *
 * A faulting kernel makes the context's error sticky: every synchronize and
 * query answers it from then on.  A call that refuses its arguments sets the
 * calling thread's last error (the runtime API's error state).
 */
#define _GNU_SOURCE
#include "mock.h"

int sticky; /* the context's error, once a kernel faulted */
static __thread int last_err; /* the calling thread's last error (the runtime API's error state) */

/* A call refuses its arguments: the code is also the calling thread's last error. */
int refuse(int rc) { return last_err = rc; }
/* The context's sticky error, recorded as the calling thread's last error too (an asynchronous error
 * overwrites the runtime API's error state, as the Programming Guide's Error Checking says). */
int context_error(void)
{
    int err = __atomic_load_n(&sticky, __ATOMIC_ACQUIRE);
    return err ? refuse(err) : 0;
}
/* what a query answers while its work is pending; not an error, so not the thread's last error */
int not_ready(void) { return breaks(not_ready_recorded) ? refuse(SC_NOT_READY) : SC_NOT_READY; }
/* Both backends keep the runtime API's error state: only runtime-API rules ask it. */
int last_error(int reset)
{
    int rc = last_err;
    if (reset || breaks(peek_resets))
        last_err = 0;
    return rc;
}
int code(enum sc_code c)
{
    return c == SC_CODE_SUCCESS          ? 0
           : c == SC_CODE_NOT_READY      ? SC_NOT_READY
           : c == SC_CODE_INVALID_VALUE  ? 1
           : c == SC_CODE_INVALID_HANDLE ? MOCK_INVALID_HANDLE
           : c == SC_CODE_ILLEGAL_ADDRESS ? MOCK_ILLEGAL_ADDRESS
           : c == SC_CODE_ASSERT         ? MOCK_ASSERT
           : c == SC_CODE_LAUNCH_FAILED  ? MOCK_LAUNCH_FAILED
           : c == SC_CODE_EXEC_UPDATE_FAILURE ? MOCK_EXEC_UPDATE_FAILURE
           : c == SC_CODE_CAPTURE_UNMATCHED ? MOCK_CAPTURE_UNMATCHED
           : c == SC_CODE_CAPTURE_UNJOINED ? MOCK_CAPTURE_UNJOINED
           : c == SC_CODE_CAPTURED_EVENT ? MOCK_CAPTURED_EVENT
           : c == SC_CODE_NOT_PERMITTED ? MOCK_NOT_PERMITTED
           : c == SC_CODE_CAPTURE_IMPLICIT ? MOCK_CAPTURE_IMPLICIT
           : c == SC_CODE_CAPTURE_INVALIDATED ? MOCK_CAPTURE_INVALIDATED
           : c == SC_CODE_CONTEXT_IS_DESTROYED ? MOCK_CONTEXT_IS_DESTROYED
           : c == SC_CODE_INVALID_CONTEXT ? MOCK_INVALID_CONTEXT
           : c == SC_CODE_ILLEGAL_STATE ? MOCK_ILLEGAL_STATE
           : c == SC_CODE_CAPTURE_UNSUPPORTED ? MOCK_CAPTURE_UNSUPPORTED
                                         : -1;
}

const char *error_name(int rc)
{
    return rc == SC_UNSUPPORTED ? "not modelled by the mock" : rc == SC_NOT_READY ? "MOCK_NOT_READY" : rc == MOCK_ILLEGAL_ADDRESS ? "MOCK_ILLEGAL_ADDRESS"
           : rc == MOCK_ASSERT ? "MOCK_ASSERT" : rc == MOCK_LAUNCH_FAILED ? "MOCK_LAUNCH_FAILED"
           : rc == MOCK_EXEC_UPDATE_FAILURE ? "MOCK_EXEC_UPDATE_FAILURE"
           : rc == MOCK_CAPTURE_UNMATCHED ? "MOCK_CAPTURE_UNMATCHED" : rc == MOCK_CAPTURE_UNJOINED ? "MOCK_CAPTURE_UNJOINED"
           : rc == MOCK_CAPTURED_EVENT ? "MOCK_CAPTURED_EVENT" : rc == MOCK_NOT_PERMITTED ? "MOCK_NOT_PERMITTED"
           : rc == MOCK_CAPTURE_IMPLICIT ? "MOCK_CAPTURE_IMPLICIT" : rc == MOCK_CAPTURE_INVALIDATED ? "MOCK_CAPTURE_INVALIDATED"
           : rc == MOCK_CONTEXT_IS_DESTROYED ? "MOCK_CONTEXT_IS_DESTROYED" : rc == MOCK_INVALID_CONTEXT ? "MOCK_INVALID_CONTEXT"
           : rc == MOCK_ILLEGAL_STATE ? "MOCK_ILLEGAL_STATE" : rc == MOCK_CAPTURE_UNSUPPORTED ? "MOCK_CAPTURE_UNSUPPORTED"
           : rc ? "MOCK_ERROR" : "MOCK_SUCCESS";
}
