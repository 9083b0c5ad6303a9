"""The words of spec/*.rules, in one place: columns, levels, modes, streams, objects, op kinds,
relations, codes, the forms of names, and the limits of the runtime's program recorder.

Every other module asks this one: a new op kind is a row of KINDS (and a builder call in
runtime/program/streamcts.h); a new relation or code is an entry here.  Data only, no checks.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

COLUMNS = (
    "id", "level", "mode", "axes", "streams", "objects", "threads", "repeat", "program", "expect", "control", "source",
    "rule",
)
REQUIRED = ("id", "level", "program", "expect", "control", "source", "rule")
DEFAULTS = {"mode": "both", "axes": "-", "streams": "-", "objects": "-", "threads": "-", "repeat": "1"}
MAX_REPEAT = 1000
SUBSTITUTED = ("streams", "objects", "threads", "program", "expect", "control")  # cells where {axis} is replaced
UNSUBSTITUTED = ("id", "level", "mode", "repeat")  # cells where a {placeholder} is a mistake

LEVELS = {"MUST": "SC_MUST", "DE-FACTO": "SC_DE_FACTO", "SHOULD": "SC_SHOULD"}
MODES = {"both": ("legacy", "per-thread"), "legacy": ("legacy",), "per-thread": ("per-thread",)}
# per compile mode: the programs' suffix, the shared runtime they link, the archive the host links
LIBS = {
    "legacy": ("", "tap/lib/libstreamcts-legacy.so", "build/libsc-legacy.a"),
    "per-thread": (".ptds", "tap/lib/libstreamcts-ptds.so", "build/libsc-ptds.a"),
}
APIS = {"driver": "SC_API_DRIVER", "runtime": "SC_API_RUNTIME"}
BUILTIN_STREAMS = {"legacy": "SC_LEGACY_STREAM", "per_thread": "SC_PER_THREAD_STREAM", "null": "SC_NULL_STREAM"}
STREAM_KINDS = {"blocking": "SC_BLOCKING", "nonblocking": "SC_NONBLOCKING"}
STREAM_SYNTAX = "blocking|nonblocking [priority=P] [device=D] [count=N]"
PRIORITIES = {
    "least": "SC_PRIO_LEAST",
    "greatest": "SC_PRIO_GREATEST",
    "over_greatest": "SC_PRIO_OVER_GREATEST",
    "under_least": "SC_PRIO_UNDER_LEAST",
}
# Types of the objects column -> their flags, in the order the C expression names them.
OBJECT_FLAGS = {
    "event": {
        "blocking_sync": "SC_EV_BLOCKING_SYNC",
        "disable_timing": "SC_EV_DISABLE_TIMING",
        "interprocess": "SC_EV_INTERPROCESS",
    },
    "pool": {
        "no_follow_events": "SC_POOL_NO_FOLLOW_EVENTS",
        "no_opportunistic": "SC_POOL_NO_OPPORTUNISTIC",
        "no_internal_deps": "SC_POOL_NO_INTERNAL_DEPS",
        "keep_memory": "SC_POOL_KEEP_MEMORY",
    },
    "graph": {"kernel": "SC_GRAPH_KERNEL", "gate": "SC_GRAPH_GATE", "captured": "SC_GRAPH_CAPTURED"},  # exactly one
    "ipc_memory": {},  # device memory main exports to the other processes; 'fill' writes it
}
# a word's values chosen for one wait condition (at most one preset; none: the runtime's defaults).
# Preset -> (the condition of every wait on the word, its C constant); runtime/run.c's word_values has the values.
WORD_PRESETS = {
    "geq_behind_wrap": ("geq", "SC_WORD_GEQ_BEHIND_WRAP"),  # just below the wrap-around, awaiting a value past it
    "geq_ahead_wrap": ("geq", "SC_WORD_GEQ_AHEAD_WRAP"),    # just past the wrap-around, awaiting a value below it
    "geq_behind_sign": ("geq", "SC_WORD_GEQ_BEHIND_SIGN"),  # the same across the sign bit
    "geq_ahead_sign": ("geq", "SC_WORD_GEQ_AHEAD_SIGN"),
    "eq_above": ("eq", "SC_WORD_EQ_ABOVE"),                 # one above the awaited value
    "and_disjoint": ("and", "SC_WORD_AND_DISJOINT"),        # every bit but the awaited ones
    "and_common": ("and", "SC_WORD_AND_COMMON"),            # one bit of an all-ones operand
    "nor_covered": ("nor", "SC_WORD_NOR_COVERED"),          # with the operand, every bit set
    "nor_open": ("nor", "SC_WORD_NOR_OPEN"),                # zero, the operand's low half clear
}
# a word in managed memory (cuMemAllocManaged), for any condition: the memops must refuse it
WORD_PRESETS["managed"] = (None, "SC_WORD_MANAGED")
OBJECT_FLAGS["word"] = {k: c for k, (_, c) in WORD_PRESETS.items()}
OBJECT_FLAGS["context"] = {}  # a context cuCtxCreate makes on device 0 before the case
OBJECT_FLAGS["context"]["blocking_sync"] = "SC_CTX_BLOCKING_SYNC"  # CU_CTX_SCHED_BLOCKING_SYNC
OBJECT_FLAGS["pool"]["ipc"] = "SC_POOL_IPC"  # exportable (POSIX file descriptor)
# ipc_memory allocated from a pool main creates exportable and shares with the other processes through
# the pool (its file descriptor passed over a unix socket, cuMemPoolImportFromShareableHandle, cuMemPoolImportPointer)
OBJECT_FLAGS["ipc_memory"]["pool"] = "SC_IPC_FROM_POOL"
# Every type of object an op can name -> the prefix of its C variable, in declaration order.
PREFIXES = {"event": "ev_", "pool": "pl_", "graph": "gr_", "buffer": "bf_", "ipc_memory": "bf_", "word": "wd_"}
PREFIXES["context"] = "cx_"
C_TYPES = {"ipc_memory": "buffer"}  # an object type whose C handle type has another name
BY_USE = ("event", "buffer", "word")  # declared by use; pools and graphs only in the objects column
DEFAULT_POOL = "default"
RELATIONS = {
    "after": "SC_AFTER",
    "not held by": "SC_NOT_HELD",
    "blocks until": "SC_BLOCKS_UNTIL",
    "returns before": "SC_RETURNS_BEFORE",
    "not ready while": "SC_NOT_READY_WHILE",
    "ready while": "SC_READY_WHILE",
    "equals": "SC_EQUALS",
    "differs from": "SC_DIFFERS",
}
# 'Q synchronizes X': query Q, asked until success, then is a synchronize for the managed memory X writes
RELATIONS["synchronizes"] = "SC_SYNCHRONIZES"
COMPARISONS = ("equals", "differs from")  # the binary relations of two getters: no gate needed
UNARY_RELATIONS = {"complete on return": "SC_COMPLETE_ON_RETURN", "keeps its data": "SC_KEEPS_DATA"}
UNARY_RELATIONS["runs once per launch"] = "SC_RUNS_PER_LAUNCH"  # capture and graphs (issue 14, graph)
RUN_COUNTED = ("gate", "host_gate", "kernel", "host_func")  # the kinds whose slot counts their runs
UNARY_RELATIONS["sees its primary"] = "SC_SEES_PRIMARY"  # a secondary read its primary's result
PDL_KINDS = ("kernel_pdl", "kernel_pdl_nosync")  # programmatic dependent launches
PRIMARY_KINDS = ("gate", "kernel") + PDL_KINDS  # the kernels whose token a secondary reads (runtime: sc_op_primary)
RUN_COUNTED += ("node_gate", "node_kernel", "node_host")  # a node of a graph built by hand
CODES = (
    "success", "not_ready", "invalid_value", "invalid_handle", "illegal_address", "capture_unsupported",
    "capture_invalidated", "capture_implicit", "capture_wrong_thread", "skipped", "invalid_context", "assert",
    "launch_failed", "exec_update_failure", "an_error",  # an_error, the catch-all, last
)
# the stream-capture errors of a capture's end (unmatched, unjoined) and of a captured event
CODES += ("capture_unmatched", "capture_unjoined", "captured_event")
CODES += ("context_is_destroyed",)  # CUDA_ERROR_CONTEXT_IS_DESTROYED

RULE_ID = re.compile(r"[a-z0-9_]+(\.[a-z0-9_]+)+")
NAME = r"[A-Za-z][A-Za-z0-9_]*"                     # op names
OBJECT_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*")      # events, pools, graphs, buffers, words
LOWER_NAME = re.compile(r"[a-z][a-z0-9_]*")          # streams, threads, axes
AXIS_VALUE = re.compile(r"[a-z0-9_]+")               # a case id segment
PLACEHOLDER = re.compile(r"\{([^{}]*)\}")
INTEGER = re.compile(r"0|[1-9][0-9]*")
BUILTIN_REF = re.compile(rf"({'|'.join(BUILTIN_STREAMS)})(?:@({INTEGER.pattern}))?")  # legacy, legacy@1, ...

# Limits of the runtime's program recorder (runtime/program/prog.h); names longer
# than SC_NAME_LEN - 1 would be silently truncated there.
MAX_NAME, MAX_OPS, MAX_STREAMS, MAX_THREADS = 31, 64, 32, 7
MAX_OBJECTS = {"event": 32, "pool": 4, "graph": 4, "buffer": 8, "ipc_memory": 8, "word": 8}
MAX_OBJECTS["context"] = 2  # SC_MAX_CONTEXTS
MAX_PROCS = 8  # SC_MAX_PROCS, main included
# What a thread of another process may issue: each is observed from main through
# the shared slots, or through the probe its own process queries (runtime/run.c).
PROCESS_KINDS = (
    "gate", "host_gate", "kernel", "memset", "host_func", "callback", "record", "wait", "stream_sync",
    "event_sync", "ctx_sync", "stream_query", "event_query", "fill", "stream_id",
)
# Ops main observes through a slot in the shared memory: the object of a relation judged in another process.
SLOT_KINDS = ("gate", "host_gate", "kernel", "host_func", "callback")
MAX_DEVICES, MAX_MEMBERS = 8, 4096  # SC_MAX_DEVICES; SC_MAX_MEMBERS: streams, counting every array member
# Integer attributes of a stream declaration -> their range.
STREAM_RANGES = {"device": (0, MAX_DEVICES - 1), "count": (2, 1024)}


@dataclass(frozen=True)
class Kind:
    fn: str                    # the streamcts.h builder call
    args: tuple = ()           # types of the ARGs the op names: stream, or a type of PREFIXES
    consts: tuple = ()         # C constants passed after the ARGs
    on: bool = True            # issued to a stream: needs "on STREAM"
    role: str = "work"         # "work" (stream work), "host" (host call), "query" (stream_query, event_query)
    observable: bool = True    # its completion can be observed: it may take part in a binary relation
    data: str | None = None    # "transfer" (a copy or memset) or "fill": what the data expectations judge
    getter: bool = False       # a host call whose value is kept: 'gives', 'equals', 'differs from'
    values: tuple = ()         # what a getter gives ('gives'); none: it is only compared to another
    bits: int = 0              # the width of its WORD
    driver_only: bool = False  # the rule runs through the driver API only
    runtime_only: bool = False  # the rule runs through the runtime API only (the driver API has no such call)
    isolate: bool = False      # the rule's points run in child processes (a sticky error)
    group: bool = False        # its STREAM ('on' or ARG) may be an array of streams
    devices: int = 1           # the GPUs it needs at least


def host(fn, *args, **fields):
    """A host call: issued from its thread, on no stream."""
    return Kind(fn, args, on=False, role="host", **fields)


def getter(fn, arg, *values):
    """A host call that keeps a value of its ARG; values: what 'gives' may name."""
    return host(fn, arg, getter=True, values=values)


COPIES = (
    "h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable", "d2d",
    "h2h_pinned", "h2h_pageable", "h2m", "m2h", "d2m", "m2d",
)
SHAPED_COPIES = COPIES[:5]  # the copies memcpy2d_ and memcpy3d_ take
SHAPES = {"memcpy": "", "memcpy2d": " | SC_COPY_2D", "memcpy3d": " | SC_COPY_3D"}
GATES = ("gate", "host_gate", "value_gate")
ALLOCS = ("alloc_async", "alloc_from")
WAITS = ("wait", "wait_invalid_flags")

KINDS = {k: Kind("sc_" + k, group=True) for k in ("gate", "host_gate", "kernel", "host_func", "callback")}
KINDS["value_gate"] = Kind("sc_value_gate", driver_only=True, group=True)
for _mem, _target in (("", "SC_MEM_DEVICE"), ("_pinned", "SC_MEM_PINNED"), ("_managed", "SC_MEM_MANAGED")):
    _async = Kind("sc_memset_to", consts=(_target,), data="transfer")
    KINDS["memset" + _mem] = _async if _mem else Kind("sc_memset", data="transfer")
    KINDS[f"memset{_mem}_sync"] = host("sc_memset_sync", consts=(_target,), data="transfer")
for _shape, _flag in SHAPES.items():
    for _copy in SHAPED_COPIES if _flag else COPIES:
        _c = "SC_" + _copy.upper() + _flag
        KINDS[f"{_shape}_{_copy}"] = Kind("sc_memcpy_async", consts=(_c,), data="transfer")
        KINDS[f"{_shape}_{_copy}_sync"] = host("sc_memcpy_sync", consts=(_c,), data="transfer")
KINDS.update(
    record=Kind("sc_record", ("event",)),
    wait=Kind("sc_wait", ("event",), observable=False, group=True),
    wait_invalid_flags=Kind("sc_wait_invalid_flags", ("event",), observable=False),
    write_value=Kind("sc_write_value", ("word",), ("0",), bits=32, driver_only=True),
    write_value_no_barrier=Kind("sc_write_value", ("word",), ("SC_WRITE_NO_BARRIER",), bits=32, driver_only=True),
    write_value64=Kind("sc_write_value", ("word",), ("0",), bits=64, driver_only=True),
)
WAIT_CONDITIONS = ("geq", "eq", "and", "nor")  # the C of wait_value_C, wait_value64_C
for _bits, _width in ((32, ""), (64, "64")):
    for _cond in WAIT_CONDITIONS:
        KINDS[f"wait_value{_width}_{_cond}"] = Kind(
            "sc_wait_value", ("word",), ("SC_WAIT_" + _cond.upper(),), observable=False, bits=_bits, driver_only=True
        )
KINDS.update(
    alloc_async=Kind("sc_alloc_async", ("buffer",), ("SC_DEFAULT_POOL",), observable=False),
    alloc_from=Kind("sc_alloc_async", ("buffer", "pool"), observable=False),
    free_async=Kind("sc_free_async", ("buffer",), observable=False),
    fill=Kind("sc_fill", ("buffer",), data="fill"),
    graph_launch=Kind("sc_graph_launch", ("graph",)),
    fault=Kind("sc_fault", consts=("SC_FAULT_ADDRESS",), isolate=True),
    fault_assert=Kind("sc_fault", consts=("SC_FAULT_ASSERT",), isolate=True),  # a failing device-side assert
    fault_trap=Kind("sc_fault", consts=("SC_FAULT_TRAP",), isolate=True),      # PTX trap
    stream_sync=host("sc_stream_sync", "stream", group=True, values=("sleeps",)),  # sleeps: a blocking-sync context's
    event_sync=host("sc_event_sync", "event", values=("sleeps",)),
    ctx_sync=host("sc_ctx_sync", values=("sleeps",)),
    stream_query=Kind("sc_stream_query", ("stream",), on=False, role="query"),
    event_query=Kind("sc_event_query", ("event",), on=False, role="query"),
    elapsed=host("sc_elapsed", "event", "event", values=("spans_hold",)),
    stream_flags=getter("sc_stream_flags", "stream", "blocking", "nonblocking"),
    stream_priority=getter("sc_stream_priority", "stream", "least", "greatest"),
    stream_id=getter("sc_stream_id", "stream"),
    pool_reserved=getter("sc_pool_reserved", "pool", "zero", "nonzero", "min_kept"),  # min_kept: pool_trim_keep's
    pool_trim=host("sc_pool_trim", "pool"),
    capture_begin=host("sc_capture_begin", "stream", consts=("SC_CAPTURE_GLOBAL",)),
    capture_begin_thread_local=host("sc_capture_begin", "stream", consts=("SC_CAPTURE_THREAD_LOCAL",)),
    capture_begin_relaxed=host("sc_capture_begin", "stream", consts=("SC_CAPTURE_RELAXED",)),
    capture_end=host("sc_capture_end", "stream"),
    capture_status=getter("sc_capture_status", "stream", "none", "active", "invalidated"),
    mem_alloc=host("sc_mem_alloc"),
    stream_create_invalid_flags=host("sc_stream_create_invalid"),
    event_create_ipc=host("sc_event_create_try", consts=("SC_EV_DISABLE_TIMING | SC_EV_INTERPROCESS",)),
    event_create_ipc_timed=host("sc_event_create_try", consts=("SC_EV_INTERPROCESS",)),
    stream_destroy=host("sc_stream_destroy", "stream", group=True),
    event_destroy=host("sc_event_destroy", "event"),
    thread_exit=host("sc_thread_exit"),
    memcpy_peer=Kind("sc_memcpy_peer", data="transfer", devices=2),
    device_sync=host("sc_device_sync", "device"),
    device_enter=host("sc_device_enter", "device"),
    module_kernel=Kind("sc_module_kernel", driver_only=True),
    get_last_error=host("sc_get_last_error", runtime_only=True),
    peek_last_error=host("sc_peek_last_error", runtime_only=True),
)
for _action in ("pop", "push", "unset", "set"):
    KINDS["ctx_" + _action] = host("sc_ctx_op", consts=("SC_CTX_" + _action.upper(),), driver_only=True)
# pdl (issue 14): programmatic dependent launch
KINDS.update(
    kernel_pdl=Kind("sc_kernel_pdl", consts=("SC_PDL_SYNC",)),
    kernel_pdl_nosync=Kind("sc_kernel_pdl", consts=("SC_PDL_NO_SYNC",)),
)
# a GEQ wait on the first word and a write of the second, in one cuStreamBatchMemOp
KINDS["batch_wait_write"] = Kind("sc_batch_wait_write", ("word", "word"), bits=32, driver_only=True)
KINDS["batch_wait_write64"] = Kind("sc_batch_wait_write", ("word", "word"), bits=64, driver_only=True)
# the issuing thread makes a created context current (cuCtxPushCurrent, cuCtxSetCurrent)
for _action in ("push", "set"):
    KINDS["ctx_enter_" + _action] = host("sc_ctx_enter", "context", consts=(f"SC_CTX_{_action.upper()}_TO",),
                                         driver_only=True)
# capture and graphs (issue 14, graph): capture_keep ends a capture into a graph declared 'captured',
# graph_replay launches it
KINDS.update(
    capture_keep=host("sc_capture_keep", "stream", "graph"),
    graph_replay=Kind("sc_graph_replay", ("graph",)),
)
# graphs built by hand.  A graph declared 'nodes' is empty before the case; node_* ops add nodes to
# it (no dependencies), edge A B makes node B depend on node A (cuGraphAddDependencies), instantiate makes
# its executable graph, graph_replay launches it.  Gate, kernel and host nodes write their own slots when a
# launch runs them; memset, memcpy, event and child graph nodes are not observable.  The memset and memcpy
# nodes of a graph write one buffer: 'keeps its data' judges whether a node wrote it last.
OBJECT_FLAGS["graph"]["nodes"] = "SC_GRAPH_NODES"
NODE_KINDS = ("node_gate", "node_kernel", "node_host", "node_memset", "node_memcpy", "node_record", "node_wait",
              "node_child")
KINDS.update(
    node_gate=host("sc_node", "graph", consts=("SC_NODE_GATE",)),
    node_kernel=host("sc_node", "graph", consts=("SC_NODE_KERNEL",)),
    node_host=host("sc_node", "graph", consts=("SC_NODE_HOST",)),
    node_memset=host("sc_node_data", "graph", consts=("SC_NODE_MEMSET",), observable=False, data="transfer"),
    node_memcpy=host("sc_node_data", "graph", consts=("SC_NODE_MEMCPY",), observable=False, data="transfer"),
    node_record=host("sc_node_event", "graph", "event", consts=("SC_NODE_RECORD",), observable=False),
    node_wait=host("sc_node_event", "graph", "event", consts=("SC_NODE_WAIT",), observable=False),
    node_child=host("sc_node_child", "graph", "graph", observable=False),
    edge=host("sc_edge", "node", "node"),
    instantiate=host("sc_instantiate", "graph"),
    instantiate_upload=host("sc_instantiate_upload", "graph", "stream"),
    exec_update=host("sc_exec_update", "graph", "graph"),
    exec_destroy=host("sc_exec_destroy", "graph"),
)
# a created context destroyed (cuCtxDestroy); the primary context synchronized through the driver
# API from a runtime-API program; a trim to a nonzero minBytesToKeep (what it keeps: pool_reserved's min_kept,
# and a blocking-sync context's synchronizing thread sleeping: stream_sync's and ctx_sync's sleeps, above)
KINDS.update(
    ctx_destroy=host("sc_ctx_destroy", "context", driver_only=True),
    primary_ctx_sync=host("sc_primary_ctx_sync", runtime_only=True),
    pool_trim_keep=host("sc_pool_trim_keep", "pool"),
    # cuMemPoolSetAccess of a pool (device 0's) for device D, and cuMemPoolGetAccess from D
    pool_access_grant=host("sc_pool_set_access", "pool", "device", consts=("SC_ACCESS_READWRITE",)),
    pool_access_revoke=host("sc_pool_set_access", "pool", "device", consts=("SC_ACCESS_NONE",)),
    pool_access=host("sc_pool_access", "pool", "device", getter=True, values=("readwrite", "none")),
    alloc_imported=Kind("sc_alloc_imported", ("pool",), observable=False),
)
# releases of the primary context (enum sc_primary_action), in a fresh process the op starts
for _name, _action in (("primary_release_extra", "SC_PRIMARY_RELEASE_EXTRA"),
                       ("primary_release_all", "SC_PRIMARY_RELEASE_ALL"),
                       ("primary_release_balanced", "SC_PRIMARY_BALANCED")):
    KINDS[_name] = host("sc_primary_release", consts=(_action,), values=("reset",), driver_only=True)
GETTERS = [k for k, kind in KINDS.items() if kind.getter]
# external event nodes of a stream capture (each launch of the graph records / waits on the event)
KINDS.update(
    record_external=Kind("sc_record_external", ("event",), observable=False),
    wait_external=Kind("sc_wait_external", ("event",), observable=False),
)
WAITS += ("wait_external",)
RECORDS = ("record", "record_external")  # the kinds that record an event a wait may name
# 'X runs once': at the end the subject's slot counts exactly one run (cuStreamAddCallback: "the
# callback will be executed exactly once")
UNARY_RELATIONS["runs once"] = "SC_RUNS_ONCE"
RUN_ONCE_COUNTED = RUN_COUNTED + ("callback",)  # the kinds 'runs once' may judge: their slot counts their runs
# a marked kernel launched with the programmatic-event launch attribute, which records its EVENT
KINDS["kernel_progevent"] = Kind("sc_kernel_progevent", ("event",))
RECORDS += ("kernel_progevent",)
# a stream callback that makes a CUDA call (driver API: its text says "will result in
# CUDA_ERROR_NOT_PERMITTED", the runtime API's "may"); it answers what the call answered
KINDS["callback_api"] = Kind("sc_callback_api", driver_only=True)
CODES += ("not_permitted",)
# the gate launched with the programmatic-event attribute: it triggers the event at its start
KINDS["gate_progevent"] = Kind("sc_gate_progevent", ("event",))
GATES += ("gate_progevent",)
RECORDS += ("gate_progevent",)
# a pool exported to a shareable handle (POSIX file descriptor), which it answers
KINDS["pool_export"] = host("sc_pool_export", "pool")
# a kernel launch refused before it runs (too many threads per block), which it answers
KINDS["kernel_invalid"] = Kind("sc_kernel_invalid", observable=False)
# an_error, the catch-all, last in the list of codes (messages name them in this order)
CODES = tuple(c for c in CODES if c != "an_error") + ("an_error",)
# a graph memory allocation node (cuGraphAddMemAllocNode, never freed in the graph);
# cuGraphInstantiateWithParams keeping its result_out (a getter whose refusal is its answer), and with
# CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH; 'X never runs': a node no launch of the program may run
# (added to a graph after a child graph node cloned it) never ran, by the end
NODE_KINDS += ("node_alloc",)
KINDS.update(
    node_alloc=host("sc_node_alloc", "graph", observable=False),
    instantiate_checked=host("sc_instantiate_checked", "graph", getter=True,
                             values=("instantiated", "invalid_structure")),
    instantiate_auto_free=host("sc_instantiate_auto_free", "graph"),
)
GETTERS.append("instantiate_checked")
INSTANTIATES = ("instantiate", "instantiate_upload", "instantiate_checked", "instantiate_auto_free")
UNARY_RELATIONS["never runs"] = "SC_NEVER_RUNS"
NEVER_RUN_COUNTED = ("node_gate", "node_kernel", "node_host")  # the kinds 'never runs' may judge
# the stream work that writes managed memory: the object of 'Q synchronizes X'
MANAGED_WRITERS = ("memset_managed", "memcpy_h2m", "memcpy_d2m")
# cuCtxCreate made during the case in the issuing thread, which it stays current to (the context is
# then not made before the case); a stream declared 'green' is a stream of the run's green context
KINDS["ctx_create"] = host("sc_ctx_create", "context", driver_only=True)
STREAM_FLAGS = ("green",)  # stream attributes without a value
STREAM_SYNTAX = "blocking|nonblocking [priority=P] [device=D] [count=N] [green]"
NEEDS = {"green": "SC_NEEDS_GREEN"}  # capabilities a device may lack: sc_rule.needs (one skip reason)
# the first word of a buffer copied into the op's slot, which main reads: 'B reads its fill' (what the
# last fill of the buffer before it wrote), also from another process (IPC memory, a shared pool's allocation)
KINDS["read"] = Kind("sc_read", ("buffer",))
PROCESS_KINDS += ("read",)
UNARY_RELATIONS["reads its fill"] = "SC_READS_FILL"
# a process of a case started with an environment variable set (threads column: 't1@p1
# CUDA_LAUNCH_BLOCKING=1'); variable -> the values it may take.  The runtime sets it in the process's
# environment before the process initialises CUDA (runtime/sys/procs.c).
PROCESS_ENV = {"CUDA_LAUNCH_BLOCKING": ("0", "1")}
# the one expectation that relates an op to itself: 'G blocks until G', the launch of a gate
# returns only after the gate ran (CUDA_LAUNCH_BLOCKING=1)
SELF_BLOCKING = ("gate",)
# mode 'mps': the rule's cases run only under MPS (tap/<rule>.mps.t; its plain program skips)
MODES["mps"] = ("legacy",)
# CU_MEMPOOL_ATTR_USED_MEM_CURRENT of a pool (allocated: at least one allocation's 4 MiB), and the
# address a buffer's stream-ordered allocation got (compared with 'equals': the memory an allocation reused)
KINDS.update(
    pool_used=getter("sc_pool_used", "pool", "zero", "allocated"),
    address=getter("sc_address", "buffer"),
)
GETTERS += ["pool_used", "address"]
# a pool whose maximum size (CUmemPoolProps.maxSize) is one allocation's 4 MiB
OBJECT_FLAGS["pool"]["max_one"] = "SC_POOL_MAX_ONE"
# a memset node of a graph built by hand whose destination is a stream-ordered allocation (a buffer
# alloc_async / alloc_from made before it); it answers cuGraphAddMemsetNode's code (the Programming Guide: such a
# node "does not work with memory allocated via the stream ordered allocator")
NODE_KINDS += ("node_memset_alloc",)
KINDS["node_memset_alloc"] = host("sc_node_memset_alloc", "graph", "buffer")
# a peer copy (cuMemcpyPeerAsync) of a stream-ordered allocation on another device into the op's own
# destination on its stream's device; 'keeps its data': it holds what the buffer's last fill before it wrote
KINDS["memcpy_peer_from"] = Kind("sc_memcpy_peer_from", ("buffer",), data="transfer", devices=2)
# The kinds that begin a stream capture: work issued to a capturing stream runs only when a graph of it is
# launched, not in issue order (order.py)
CAPTURE_BEGINS = ("capture_begin", "capture_begin_thread_local", "capture_begin_relaxed")
# The kinds that change the issuing thread's current context or device: a built-in stream named after one
# may be another context's or device's (order.py)
CURRENT_CHANGERS = ("ctx_pop", "ctx_push", "ctx_unset", "ctx_set", "ctx_enter_push", "ctx_enter_set", "ctx_create",
                    "ctx_destroy", "device_enter")
# The stream memory operations' WORD ARGs, in order: whether each is waited on or written (check.py); a batch
# waits on its first word, then writes its second
WORD_ROLES = {k: ("write",) for k in KINDS if k.startswith("write_value")}
WORD_ROLES.update({k: ("wait",) for k in KINDS if k.startswith("wait_value")})
WORD_ROLES.update(batch_wait_write=("wait", "write"), batch_wait_write64=("wait", "write"))
