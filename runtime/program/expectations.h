/*
 * expectations.h - what a generated program may expect of its subject (part of streamcts.h, which includes
 * it): the relations of sc_expect, the codes of "X answers CODE" and the values of "X gives VALUE".
 */
#ifndef SC_EXPECTATIONS_H
#define SC_EXPECTATIONS_H

/*
 * Relations, always read "subject RELATION object":
 *   SC_AFTER           subject completes only after object completed.
 *   SC_NOT_HELD        subject completes while object is still held.
 *   SC_BLOCKS_UNTIL    host call subject returns only after object completed.
 *   SC_RETURNS_BEFORE  host call subject returns while object is still held.
 *   SC_NOT_READY_WHILE query subject reports not-ready while object is held,
 *                      and success once everything has completed.
 *   SC_READY_WHILE     query subject reports success while object is held.
 * Relations of the subject alone (no object):
 *   SC_ANSWERS         the subject's call returns the given code (a host
 *                      function: SC_CODE_SKIPPED when it never ran; a stream
 *                      callback: the status it received).
 *   SC_GIVES           a getter's value is the given one.
 *   SC_COMPLETE_ON_RETURN  a copy or memset had done its work when its call
 *                      returned: the destination already held the data, and
 *                      overwriting the source then changed nothing.
 *   SC_KEEPS_DATA      at the end, the subject's destination holds what the
 *                      subject wrote (no other op overwrote it afterwards).
 * Relations of two getters (no gate needed):
 *   SC_EQUALS / SC_DIFFERS  the subject's value is / is not the object's.
 *   SC_RUNS_PER_LAUNCH the subject (a kernel, gate or host function, captured
 *                      into a graph) ran once (sc_expect_runs: n times) per
 *                      successful graph_replay of the program: its slot
 *                      counts its runs.
 *   SC_SEES_PRIMARY    the subject (kernel_pdl) read its primary's result:
 *                      the token the kernel right before it in its stream
 *                      writes last (judged after the drain, from what the
 *                      subject kept in its slot).
 *   SC_RUNS_ONCE       the subject (a stream callback, kernel, gate or host
 *                      function, not captured) ran exactly once by the end.
 *   SC_NEVER_RUNS      the subject (a kernel, gate or host node that no launch
 *                      of the program may run: added to a graph after a child
 *                      graph node cloned it) never ran by the end.
 *   SC_READS_FILL      the subject (read) found, in the first word of
 *                      its buffer, what the last fill of that buffer before it
 *                      in program order wrote (judged after the drain, from what
 *                      the subject copied into its slot).
 * An op on an array of streams is a group: one operation per member.  A group
 * subject of SC_AFTER is violated by any member completing early; a group
 * subject of SC_NOT_HELD passes only when every member completed while the
 * object was held (the report counts those that did); a group object counts
 * as completed when all its members did.
 */
enum sc_relation {
    SC_AFTER = 1,
    SC_NOT_HELD,
    SC_BLOCKS_UNTIL,
    SC_RETURNS_BEFORE,
    SC_NOT_READY_WHILE,
    SC_READY_WHILE,
    SC_ANSWERS,
    SC_GIVES,
    SC_COMPLETE_ON_RETURN,
    SC_KEEPS_DATA,
    SC_EQUALS,         /* getter subject gives the same value as getter object   */
    SC_DIFFERS,        /* ... a different value                                   */
    SC_RUNS_PER_LAUNCH, /* the subject ran once per launch of the program's captured graph */
    SC_SEES_PRIMARY,    /* a programmatic dependent launch read its primary's result */
    SC_RUNS_ONCE,       /* the subject (a stream callback) ran exactly once, by the end */
    SC_NEVER_RUNS,      /* the subject (a node no launch may run) never ran, by the end */
    SC_SYNCHRONIZES,    /* query subject, asked until it answers success, then acts as a synchronize for
                         * the object's managed memory: the host reads what the object wrote right then */
    SC_READS_FILL,      /* the subject (read) found what its buffer's last fill before it wrote */
};

/* Result codes, mapped by each API backend to its own numbers. */
enum sc_code {
    SC_CODE_SUCCESS = 1,
    SC_CODE_NOT_READY,
    SC_CODE_INVALID_VALUE,
    SC_CODE_INVALID_HANDLE,        /* CUDA_ERROR_INVALID_HANDLE / cudaErrorInvalidResourceHandle */
    SC_CODE_ILLEGAL_ADDRESS,
    SC_CODE_CAPTURE_UNSUPPORTED,   /* ..._STREAM_CAPTURE_UNSUPPORTED */
    SC_CODE_CAPTURE_INVALIDATED,   /* ..._STREAM_CAPTURE_INVALIDATED */
    SC_CODE_CAPTURE_IMPLICIT,      /* ..._STREAM_CAPTURE_IMPLICIT    */
    SC_CODE_CAPTURE_WRONG_THREAD,  /* ..._STREAM_CAPTURE_WRONG_THREAD */
    SC_CODE_SKIPPED,               /* a host function that never ran */
    SC_CODE_INVALID_CONTEXT,       /* CUDA_ERROR_INVALID_CONTEXT: no current context */
    SC_CODE_ASSERT,                /* CUDA_ERROR_ASSERT / cudaErrorAssert: a device-side assert */
    SC_CODE_LAUNCH_FAILED,         /* CUDA_ERROR_LAUNCH_FAILED / cudaErrorLaunchFailure */
    SC_CODE_AN_ERROR,              /* any error: the documentation says the call fails, not with what */
    SC_CODE_EXEC_UPDATE_FAILURE,   /* CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE / cudaErrorGraphExecUpdateFailure */
    /* the stream-capture errors of a capture's end and of a captured event */
    SC_CODE_CAPTURE_UNMATCHED,     /* ..._STREAM_CAPTURE_UNMATCHED: the capture was not initiated in this stream */
    SC_CODE_CAPTURE_UNJOINED,      /* ..._STREAM_CAPTURE_UNJOINED: a fork not joined to the origin stream */
    SC_CODE_CAPTURED_EVENT,        /* CUDA_ERROR_CAPTURED_EVENT / cudaErrorCapturedEvent */
    SC_CODE_NOT_PERMITTED,         /* CUDA_ERROR_NOT_PERMITTED / cudaErrorNotPermitted */
    /* contexts */
    SC_CODE_CONTEXT_IS_DESTROYED,  /* CUDA_ERROR_CONTEXT_IS_DESTROYED / cudaErrorContextIsDestroyed (709) */
    SC_CODE_ILLEGAL_STATE,         /* CUDA_ERROR_ILLEGAL_STATE / cudaErrorIllegalState (401) */
};

/* Values a getter can give. */
enum sc_value {
    SC_VALUE_BLOCKING = 1,  /* stream_flags: CU_STREAM_DEFAULT           */
    SC_VALUE_NONBLOCKING,   /* stream_flags: CU_STREAM_NON_BLOCKING      */
    SC_VALUE_LEAST,         /* stream_priority: the least priority       */
    SC_VALUE_GREATEST,      /* stream_priority: the greatest priority    */
    SC_VALUE_ZERO,          /* pool_reserved: no memory reserved         */
    SC_VALUE_NONZERO,       /* pool_reserved: some memory reserved       */
    SC_VALUE_NONE,          /* capture_status: not capturing             */
    SC_VALUE_ACTIVE,        /* capture_status: capturing                 */
    SC_VALUE_INVALIDATED,   /* capture_status: capture invalidated       */
    /* events (issue 14) */
    SC_VALUE_SPANS_HOLD,    /* elapsed: non-negative and at least as long as the program's gates were held */
    SC_VALUE_SLEEPS,        /* event_sync: the waiting thread used under a quarter of the wait in CPU time */
    /* the stream-ordered allocator */
    SC_VALUE_MIN_KEPT,      /* pool_reserved: at least sc_copy_bytes (pool_trim_keep's minBytesToKeep) */
    SC_VALUE_RESET,         /* primary_release: the primary context is inactive after (cuDevicePrimaryCtxGetState) */
    SC_VALUE_READWRITE,     /* pool_access: the device may read and write the pool's allocations (none: SC_VALUE_NONE) */
    /* instantiate_checked, the result_out of cuGraphInstantiateWithParams */
    SC_VALUE_INSTANTIATED,      /* CUDA_GRAPH_INSTANTIATE_SUCCESS                                  */
    SC_VALUE_INVALID_STRUCTURE, /* CUDA_GRAPH_INSTANTIATE_INVALID_STRUCTURE ("such as cycles")     */
    /* pool_used */
    SC_VALUE_ALLOCATED,         /* pool_used: at least one allocation's size (sc_copy_bytes)           */
    /* capture_deps: the nodes the next node captured in the stream will depend on */
    SC_VALUE_NO_DEPENDENCIES,   /* none                                                             */
    SC_VALUE_ONE_DEPENDENCY,    /* one                                                              */
    SC_VALUE_TWO_DEPENDENCIES,  /* two                                                              */
    /* capture_end_graph: the graph cuStreamEndCapture gave back */
    SC_VALUE_ITS_GRAPH,         /* the graph the capture was begun into (cuStreamBeginCaptureToGraph) */
    SC_VALUE_ANOTHER_GRAPH,     /* any other (a new graph, destroyed at once)                       */
    /* stream_green: the green context cuStreamGetGreenCtx gives (none: SC_VALUE_NONE, NULL) */
    SC_VALUE_ITS_GREEN,         /* the program's green context, which its green streams belong to   */
    /* stream_ctx: the context cuStreamGetCtx answered */
    SC_VALUE_PRIMARY,           /* device 0's primary context                                       */
    SC_VALUE_THE_CONTEXT,       /* the context the op names                                         */
    /* sync_policy: the stream's CU_STREAM_ATTRIBUTE_SYNCHRONIZATION_POLICY (enum sc_sync_policy)     */
    SC_VALUE_AUTO,
    SC_VALUE_SPIN,
    SC_VALUE_YIELD,
    SC_VALUE_BLOCKING_SYNC,
};

#endif
