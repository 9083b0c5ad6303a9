"""The words of spec/*.rules, in one place: columns, levels, modes, streams, objects, op kinds,
relations, codes, the forms of names, and the limits of the runtime's program recorder.

Every other module asks this one.  The op kinds (KINDS) are runtime/ops.def's rows, read by
opsdef.py, each with its spellings here (SPELLINGS, keyed by the row's KIND): the facts both
layers share are ops.def's only; a new relation or code is an entry here.  Data only, and the one
check that SPELLINGS and ops.def name the same kinds.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

from .levels import levels_def
from .opsdef import OpsTableError, ops_def

COLUMNS = (
    "id", "level", "mode", "axes", "streams", "objects", "threads", "repeat", "program", "expect", "control", "source",
    "rule",
)
REQUIRED = ("id", "level", "program", "expect", "control", "source", "rule")
DEFAULTS = {"mode": "both", "axes": "-", "streams": "-", "objects": "-", "threads": "-", "repeat": "1"}
MAX_REPEAT = 1000
SUBSTITUTED = ("streams", "objects", "threads", "program", "expect", "control")  # cells where {axis} is replaced
UNSUBSTITUTED = ("id", "level", "mode", "repeat")  # cells where a {placeholder} is a mistake

# The levels a rule row may name -> their enum sc_level constant: the level table's rows
# (runtime/program/levels.def, read by levels.py), in its order.
LEVELS = levels_def()
# mps (blocking): the rule's cases run only under MPS (tap/<rule>.mps.t; its plain program skips)
MODES = {"both": ("legacy", "per-thread"), "legacy": ("legacy",), "per-thread": ("per-thread",), "mps": ("legacy",)}
# per compile mode: the programs' suffix, the shared runtime they link, the archive the host links
LIBS = {
    "legacy": ("", "tap/lib/libstreamcts-legacy.so", "build/libsc-legacy.a"),
    "per-thread": (".ptds", "tap/lib/libstreamcts-ptds.so", "build/libsc-ptds.a"),
}
APIS = {"driver": "SC_API_DRIVER", "runtime": "SC_API_RUNTIME"}
BUILTIN_STREAMS = {"legacy": "SC_LEGACY_STREAM", "per_thread": "SC_PER_THREAD_STREAM", "null": "SC_NULL_STREAM"}
STREAM_KINDS = {"blocking": "SC_BLOCKING", "nonblocking": "SC_NONBLOCKING"}
STREAM_SYNTAX = "blocking|nonblocking [priority=P] [device=D] [count=N] [green]"
STREAM_FLAGS = ("green",)  # stream attributes without a value: a stream of the run's green context
NEEDS = {"green": "SC_NEEDS_GREEN"}  # capabilities a device may lack: sc_rule.needs (one skip reason)
PRIORITIES = {
    "least": "SC_PRIO_LEAST",
    "greatest": "SC_PRIO_GREATEST",
    "over_greatest": "SC_PRIO_OVER_GREATEST",
    "under_least": "SC_PRIO_UNDER_LEAST",
}
# Types of the objects column -> their flags, in the order the C expression names them.
# word: a word's values chosen for one wait condition (WORD_PRESETS); context: made by cuCtxCreate on device 0
# before the case; ipc_memory: device memory main exports to the other processes, which 'fill' writes (pool:
# allocated from a pool main creates exportable and shares through it: its file descriptor passed over a unix
# socket, cuMemPoolImportFromShareableHandle, cuMemPoolImportPointer).
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
        "ipc": "SC_POOL_IPC",          # exportable (POSIX file descriptor)
        "max_one": "SC_POOL_MAX_ONE",  # CUmemPoolProps.maxSize: one allocation (sc_copy_bytes)
    },
    # exactly one; nodes: a graph built by hand, empty before the case (the node_* ops, edge, instantiate)
    "graph": {"kernel": "SC_GRAPH_KERNEL", "gate": "SC_GRAPH_GATE", "captured": "SC_GRAPH_CAPTURED",
              "nodes": "SC_GRAPH_NODES"},
    "ipc_memory": {"pool": "SC_IPC_FROM_POOL"},
}
# A word's values chosen for one wait condition (at most one preset; none: the runtime's defaults).
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
    "managed": (None, "SC_WORD_MANAGED"),  # in managed memory (cuMemAllocManaged), any condition: memops refuse it
}
OBJECT_FLAGS["word"] = {k: c for k, (_, c) in WORD_PRESETS.items()}
OBJECT_FLAGS["context"] = {"blocking_sync": "SC_CTX_BLOCKING_SYNC"}  # CU_CTX_SCHED_BLOCKING_SYNC
# Every type of object an op can name -> the prefix of its C variable, in declaration order.
PREFIXES = {"event": "ev_", "pool": "pl_", "graph": "gr_", "buffer": "bf_", "ipc_memory": "bf_", "word": "wd_",
            "context": "cx_"}
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
    "synchronizes": "SC_SYNCHRONIZES",  # 'Q synchronizes X': query Q, asked until success, synchronizes what X writes
}
COMPARISONS = ("equals", "differs from")  # the binary relations of two getters: no gate needed
UNARY_RELATIONS = {
    "complete on return": "SC_COMPLETE_ON_RETURN",
    "keeps its data": "SC_KEEPS_DATA",
    "runs once per launch": "SC_RUNS_PER_LAUNCH",  # capture and graphs
    "sees its primary": "SC_SEES_PRIMARY",         # a secondary read its primary's result
    "runs once": "SC_RUNS_ONCE",     # its slot counts one run by the end (cuStreamAddCallback: "exactly once")
    "never runs": "SC_NEVER_RUNS",   # a node no launch of the program may run
    "reads its fill": "SC_READS_FILL",  # what the last fill of its buffer before it wrote
}
# 'X runs N times per launch' (N from 2 to 99; 'runs once per launch' is N = 1): SC_RUNS_PER_LAUNCH with N runs
# in each launch (sc_expect_runs), a node of a WHILE node's body (its body runs SC_COND_TRIPS times)
RUNS_N = "runs N times per launch"
CODES = (
    "success", "not_ready", "invalid_value", "invalid_handle", "illegal_address", "capture_unsupported",
    "capture_invalidated", "capture_implicit", "capture_wrong_thread", "skipped", "invalid_context", "assert",
    "launch_failed", "exec_update_failure",
    # a capture's end (unmatched, unjoined), a captured event
    "capture_unmatched", "capture_unjoined", "captured_event",
    "context_is_destroyed", "not_permitted", "illegal_state",
    "an_error",  # the catch-all, last (messages name the codes in this order)
)

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
MAX_OBJECTS = {"event": 32, "pool": 4, "graph": 4, "buffer": 8, "ipc_memory": 8, "word": 8, "context": 2}
MAX_PROCS = 8  # SC_MAX_PROCS, main included
MAX_DEVICES, MAX_MEMBERS = 8, 4096  # SC_MAX_DEVICES; SC_MAX_MEMBERS: streams, counting every array member
# Integer attributes of a stream declaration -> their range.
STREAM_RANGES = {"device": (0, MAX_DEVICES - 1), "count": (2, 1024)}
# A process of a case started with an environment variable set (threads column: 't1@p1
# CUDA_LAUNCH_BLOCKING=1'); variable -> the values it may take.  The runtime sets it in the process's
# environment before the process initialises CUDA (runtime/procs.c).
PROCESS_ENV = {"CUDA_LAUNCH_BLOCKING": ("0", "1")}


# ---- op kinds -------------------------------------------------------------------------------------------
# What the generator knows of a kind beside its ops.def row: how a rule spells it, what it names.
@dataclass(frozen=True)
class Spelling:
    name: str                  # its word in spec/*.rules
    args: tuple = ()           # types of the ARGs the op names: stream, device, node, or a type of PREFIXES
    consts: tuple = ()         # C constants passed after the ARGs
    fn: str | None = None      # the streamcts.h call, where not its row's builder (sc_memset: sc_memset_to's default)
    getter: bool = False       # a host call whose value is kept: 'gives', 'equals', 'differs from'
    values: tuple = ()         # what it gives ('gives'); none: a getter only compared to another
    bits: int = 0              # the width of its WORD
    words: tuple = ()          # its WORD ARGs, in order: each "wait" (waited on) or "write" (written) (check.py)
    main_only: bool = False    # only main's process issues it, though its row's proc says another may
    tags: str = ""             # the generator's own classes of kinds, each a list below (TAGS)


# The tags a Spelling may carry -> what its kinds are.
TAGS = {
    "gate": "a gate: what holds a stream (expect.py)",
    "wait": "a wait on an event: the event must be recorded or declared (check.py)",
    "counted": "its slot counts its runs: 'runs once per launch', 'runs once'",
    "counted_once": "its slot counts its runs, for 'runs once' only",
    "self_blocking": "'G blocks until G': its launch returns only after it ran (CUDA_LAUNCH_BLOCKING=1)",
    "managed_writer": "stream work that writes managed memory: the object of 'Q synchronizes X'",
    "instantiates": "makes a 'nodes' graph's executable graph",
    "conditional": "a conditional node: the graphs it names after its own are its bodies, cloned as node_child's "
                   "child is (expect.py's runs_in)",
    "device_launch": "a kernel node that launches the second graph it names from the device: that graph's nodes "
                     "(added before it) run in the first graph's launches (expect.py's runs_in)",
    "changes_current": "changes the issuing thread's current context or device: a built-in stream named after "
                       "it may be another context's or device's (order.py)",
    "green": "acts on the program's green context, which its green streams belong to: it declares one (check.py)",
    "into_graph": "begins a capture into a graph built by hand, or ends one asking which graph it gave back: its "
                  "GRAPH is declared nodes, and its NODE is a node of it added before (check.py)",
}
S = Spelling
COPIES = (
    "h2d_pinned", "h2d_pageable", "d2h_pinned", "d2h_pageable", "d2d",
    "h2h_pinned", "h2h_pageable", "h2m", "m2h", "d2m", "m2d",
)
SHAPED_COPIES = COPIES[:5]  # the copies memcpy2d_ and memcpy3d_ take
BATCH_COPIES = ("h2d_pinned", "d2h_pinned", "d2d")  # the copies of a batch (memcpy_batch_call_: h2d_pageable too)
SHAPES = {"memcpy": "", "memcpy2d": " | SC_COPY_2D", "memcpy3d": " | SC_COPY_3D"}
WAIT_CONDITIONS = ("geq", "eq", "and", "nor")  # the C of wait_value_C, wait_value64_C
MEMORIES = {"": "SC_MEM_DEVICE", "_pinned": "SC_MEM_PINNED", "_managed": "SC_MEM_MANAGED"}


def _copies(sync):
    """memcpy_COPY, memcpy2d_COPY, memcpy3d_COPY (each _sync where sync)."""
    return tuple(S(f"{shape}_{copy}{'_sync' if sync else ''}", consts=("SC_" + copy.upper() + flag,),
                   tags="managed_writer" if copy in ("h2m", "d2m") and not sync else "")
                 for shape, flag in SHAPES.items() for copy in (SHAPED_COPIES if flag else COPIES))


def _one_each(prefix, consts, **fields):
    """One spelling per (suffix, constant): prefix + suffix."""
    return tuple(S(prefix + suffix, consts=(c,), **fields) for suffix, c in consts)


# The launch attributes of kernel_X and gate_X (runtime/program/streamcts.h enum sc_launch_attr): the remote memory
# synchronization domain, the greatest / least priority, an L2 access policy window, the cooperative attribute, a
# cooperative launch by cuLaunchCooperativeKernel (no attribute), a 1x1x1 cluster, a memory synchronization domain map
LAUNCH_ATTRS = (("remote", "SC_LAUNCH_REMOTE_DOMAIN"), ("prio", "SC_LAUNCH_PRIORITY"),
                ("prio_least", "SC_LAUNCH_PRIORITY_LEAST"), ("policy", "SC_LAUNCH_ACCESS_POLICY"),
                ("coop", "SC_LAUNCH_COOPERATIVE"), ("cooplaunch", "SC_LAUNCH_COOPERATIVE_KERNEL"),
                ("cluster", "SC_LAUNCH_CLUSTER"), ("domain_map", "SC_LAUNCH_DOMAIN_MAP"))


# ops.def's KIND -> its spellings, in ops.def's order.  Every fact of a row that both layers hold (builder,
# role, handle, data, group, observable, proc, slot, devices, driver_only, runtime_only, isolate, and the
# runtime's own columns the generator asks: records, node, begins_capture, allocates, primary, secondary)
# is ops.def's, and KINDS has it from there.
SPELLINGS = {
    "GATE": (S("gate", tags="gate counted self_blocking"),),
    "HOST_GATE": (S("host_gate", tags="gate counted"),),
    "KERNEL": (S("kernel", tags="counted"),),
    "MEMSET": (S("memset", fn="sc_memset"),
               S("memset_pinned", consts=("SC_MEM_PINNED",), main_only=True),
               S("memset_managed", consts=("SC_MEM_MANAGED",), main_only=True, tags="managed_writer")),
    # a memset of managed memory, then cuMemPrefetchAsync of its bytes (to the host, or the stream's device)
    "MEMSET_PREFETCH": (S("memset_managed_prefetch_host", consts=("SC_PREFETCH_HOST",), main_only=True,
                          tags="managed_writer"),
                        S("memset_managed_prefetch_device", consts=("SC_PREFETCH_DEVICE",), main_only=True,
                          tags="managed_writer")),
    "MEMCPY_ASYNC": _copies(False),
    "MEMCPY_SYNC": _copies(True),
    "HOST_FUNC": (S("host_func", tags="counted"),),
    "CALLBACK": (S("callback", tags="counted_once"),),
    "RECORD": (S("record", ("event",)),),
    "WAIT": (S("wait", ("event",), tags="wait"),),
    "STREAM_SYNC": (S("stream_sync", ("stream",), values=("sleeps",)),),  # sleeps: a blocking-sync context's
    "EVENT_SYNC": (S("event_sync", ("event",), values=("sleeps",)),),
    "CTX_SYNC": (S("ctx_sync", values=("sleeps",)),),
    "STREAM_QUERY": (S("stream_query", ("stream",)),),
    "EVENT_QUERY": (S("event_query", ("event",)),),
    "STREAM_DESTROY": (S("stream_destroy", ("stream",)),),
    "EVENT_DESTROY": (S("event_destroy", ("event",)),),
    "VALUE_GATE": (S("value_gate", tags="gate"),),
    "MEMSET_SYNC": _one_each("memset", [(m + "_sync", c) for m, c in MEMORIES.items()]),
    "WAIT_INVALID": (S("wait_invalid_flags", ("event",), tags="wait"),),
    "WRITE_VALUE": (S("write_value", ("word",), ("0",), bits=32, words=("write",)),
                    S("write_value_no_barrier", ("word",), ("SC_WRITE_NO_BARRIER",), bits=32, words=("write",)),
                    S("write_value64", ("word",), ("0",), bits=64, words=("write",))),
    "WAIT_VALUE": tuple(S(f"wait_value{width}_{cond}", ("word",), ("SC_WAIT_" + cond.upper(),), bits=bits,
                          words=("wait",))
                        for bits, width in ((32, ""), (64, "64")) for cond in WAIT_CONDITIONS),
    "ALLOC": (S("alloc_async", ("buffer",), ("SC_DEFAULT_POOL",)), S("alloc_from", ("buffer", "pool"))),
    "FREE": (S("free_async", ("buffer",)),),
    "FILL": (S("fill", ("buffer",)),),
    "POOL_RESERVED": (S("pool_reserved", ("pool",), getter=True, values=("zero", "nonzero", "min_kept")),),
    "POOL_TRIM": (S("pool_trim", ("pool",)),),
    "GRAPH_LAUNCH": (S("graph_launch", ("graph",)),),
    "CAPTURE_BEGIN": _one_each("capture_begin", [("", "SC_CAPTURE_GLOBAL"),
                                                 ("_thread_local", "SC_CAPTURE_THREAD_LOCAL"),
                                                 ("_relaxed", "SC_CAPTURE_RELAXED")], args=("stream",)),
    "CAPTURE_END": (S("capture_end", ("stream",)),),
    "CAPTURE_STATUS": (S("capture_status", ("stream",), getter=True, values=("none", "active", "invalidated")),),
    # fault_assert: a failing device-side assert; fault_trap: PTX trap
    "FAULT": _one_each("fault", [("", "SC_FAULT_ADDRESS"), ("_assert", "SC_FAULT_ASSERT"), ("_trap", "SC_FAULT_TRAP")]),
    "ELAPSED": (S("elapsed", ("event", "event"), values=("spans_hold",)),),
    "STREAM_FLAGS": (S("stream_flags", ("stream",), getter=True, values=("blocking", "nonblocking")),),
    "STREAM_PRIORITY": (S("stream_priority", ("stream",), getter=True, values=("least", "greatest")),),
    "STREAM_CREATE_INVALID": (S("stream_create_invalid_flags"),),
    "EVENT_CREATE_TRY": (S("event_create_ipc", consts=("SC_EV_DISABLE_TIMING | SC_EV_INTERPROCESS",)),
                         S("event_create_ipc_timed", consts=("SC_EV_INTERPROCESS",))),
    "MEM_ALLOC": (S("mem_alloc"),),
    "STREAM_ID": (S("stream_id", ("stream",), getter=True),),
    "CTX": _one_each("ctx_", [(a, "SC_CTX_" + a.upper()) for a in ("pop", "push", "unset", "set")],
                     tags="changes_current"),
    "THREAD_EXIT": (S("thread_exit"),),
    "MEMCPY_PEER": (S("memcpy_peer"),),
    "DEVICE_SYNC": (S("device_sync", ("device",)),),
    "GET_LAST_ERROR": (S("get_last_error"),),
    "PEEK_LAST_ERROR": (S("peek_last_error"),),
    "KERNEL_PDL": _one_each("kernel_pdl", [("", "SC_PDL_SYNC"), ("_nosync", "SC_PDL_NO_SYNC")]),
    "CTX_ENTER": _one_each("ctx_enter_", [("push", "SC_CTX_PUSH_TO"), ("set", "SC_CTX_SET_TO")], args=("context",),
                           tags="changes_current"),
    # a GEQ wait on the first word and a write of the second (_barrier_: a memory barrier between the two)
    "BATCH": (S("batch_wait_write", ("word", "word"), ("0",), bits=32, words=("wait", "write")),
              S("batch_wait_write64", ("word", "word"), ("0",), bits=64, words=("wait", "write")),
              S("batch_wait_barrier_write", ("word", "word"), ("SC_BATCH_BARRIER",), bits=32, words=("wait", "write"))),
    # a memory barrier (system-wide, or scoped to the GPU) and a write of the word, in one batch
    "BATCH_BARRIER": (S("batch_barrier_write", ("word",), ("SC_BARRIER_SYS",), bits=32, words=("write",)),
                      S("batch_barrier_gpu_write", ("word",), ("SC_BARRIER_GPU",), bits=32, words=("write",))),
    "CAPTURE_KEEP": (S("capture_keep", ("stream", "graph")),),  # into a graph declared 'captured'
    "GRAPH_REPLAY": (S("graph_replay", ("graph",)),),
    "DEVICE_ENTER": (S("device_enter", ("device",), tags="changes_current"),),
    "NODE": _one_each("node_", [(n, "SC_NODE_" + n.upper()) for n in ("gate", "kernel", "host")], args=("graph",),
                      tags="counted"),
    "NODE_DATA": _one_each("node_", [("memset", "SC_NODE_MEMSET"), ("memcpy", "SC_NODE_MEMCPY")], args=("graph",)),
    "NODE_EVENT": _one_each("node_", [("record", "SC_NODE_RECORD"), ("wait", "SC_NODE_WAIT")],
                            args=("graph", "event")),
    "NODE_CHILD": (S("node_child", ("graph", "graph")),),
    "EDGE": (S("edge", ("node", "node")),),
    "INSTANTIATE": (S("instantiate", ("graph",), tags="instantiates"),),
    "INSTANTIATE_UPLOAD": (S("instantiate_upload", ("graph", "stream"), tags="instantiates"),),
    "EXEC_UPDATE": (S("exec_update", ("graph", "graph")),),
    "EXEC_DESTROY": (S("exec_destroy", ("graph",)),),
    "NODE_ENABLE": _one_each("node_", [("disable", "0"), ("enable", "1")], args=("node",)),
    "EXEC_SET_PARAMS": (S("exec_set_params", ("node", "node")),),  # the first node takes the second's parameters
    "RECORD_EXTERNAL": (S("record_external", ("event",)),),
    "WAIT_EXTERNAL": (S("wait_external", ("event",), tags="wait"),),
    "KERNEL_PROGEVENT": (S("kernel_progevent", ("event",)),),
    "GATE_PROGEVENT": (S("gate_progevent", ("event",), tags="gate"),),
    "CALLBACK_API": (S("callback_api"),),
    "CTX_DESTROY": (S("ctx_destroy", ("context",), tags="changes_current"),),
    "PRIMARY_CTX_SYNC": (S("primary_ctx_sync"),),
    "POOL_TRIM_KEEP": (S("pool_trim_keep", ("pool",)),),
    "PRIMARY_RELEASE": _one_each("primary_release_", [("extra", "SC_PRIMARY_RELEASE_EXTRA"),
                                                      ("all", "SC_PRIMARY_RELEASE_ALL"),
                                                      ("balanced", "SC_PRIMARY_BALANCED")], values=("reset",)),
    "ALLOC_IMPORTED": (S("alloc_imported", ("pool",)),),
    # for device D: read-write or none
    "POOL_SET_ACCESS": _one_each("pool_access_", [("grant", "SC_ACCESS_READWRITE"), ("revoke", "SC_ACCESS_NONE")],
                                 args=("pool", "device")),
    "POOL_ACCESS": (S("pool_access", ("pool", "device"), getter=True, values=("readwrite", "none")),),
    "MODULE_KERNEL": (S("module_kernel"),),
    "NODE_ALLOC": (S("node_alloc", ("graph",)),),
    "INSTANTIATE_CHECKED": (S("instantiate_checked", ("graph",), getter=True,
                              values=("instantiated", "invalid_structure"), tags="instantiates"),),
    "INSTANTIATE_AUTO_FREE": (S("instantiate_auto_free", ("graph",), tags="instantiates"),),
    "CTX_CREATE": (S("ctx_create", ("context",), tags="changes_current"),),
    "READ": (S("read", ("buffer",)), S("batch_read", ("buffer",), fn="sc_read_batch")),
    "POOL_EXPORT": (S("pool_export", ("pool",)),),
    "KERNEL_INVALID": (S("kernel_invalid"),),
    "POOL_USED": (S("pool_used", ("pool",), getter=True, values=("zero", "allocated")),),  # allocated: at least 4 MiB
    "ADDRESS": (S("address", ("buffer",), getter=True),),  # compared with 'equals': the memory an allocation reused
    "NODE_MEMSET_ALLOC": (S("node_memset_alloc", ("graph", "buffer")),),
    "MEMCPY_PEER_FROM": (S("memcpy_peer_from", ("buffer",)),),
    # memcpy_batch_COPY: sources accessed in stream order; _call_, _any_: CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL,
    # _ANY; _split_: two attribute entries; memcpy3d_batch_COPY: cuMemcpy3DBatchAsync
    "MEMCPY_BATCH": tuple(S(f"memcpy{shape}_batch{order}_{copy}", consts=("SC_" + copy.upper() + flag,))
                          for shape, order, flag, copies in (
                              ("", "", "", BATCH_COPIES),
                              ("", "_call", " | SC_BATCH_DURING_CALL", ("h2d_pinned", "h2d_pageable") + BATCH_COPIES[1:]),
                              ("", "_any", " | SC_BATCH_ANY", BATCH_COPIES),
                              ("", "_split", " | SC_BATCH_SPLIT", BATCH_COPIES),
                              ("3d", "", " | SC_COPY_3D", BATCH_COPIES))
                          for copy in copies),
    "CAPTURE_ID": (S("capture_id", ("stream",), getter=True),),  # compared with 'equals' / 'differs from'
    "CAPTURE_DEPS": (S("capture_deps", ("stream",), getter=True,
                       values=("no_dependencies", "one_dependency", "two_dependencies")),),
    "CAPTURE_SEVER": (S("capture_sever", ("stream",)),),
    # kernel_X / gate_X: the marking kernel / the gate launched with launch attribute X (LAUNCH_ATTRS)
    "KERNEL_ATTR": tuple(S("kernel_" + a, consts=(c,)) for a, c in LAUNCH_ATTRS),
    "GATE_ATTR": tuple(S("gate_" + a, consts=(c,), tags="gate") for a, c in LAUNCH_ATTRS),
    # stream_X s: cuStreamSetAttribute of stream attribute X on s
    "STREAM_ATTR": _one_each("stream_", [("policy", "SC_STREAM_ACCESS_POLICY"),
                                         ("remote_domain", "SC_STREAM_REMOTE_DOMAIN"),
                                         ("domain_map", "SC_STREAM_DOMAIN_MAP")], args=("stream",)),
    # a capture into a graph built by hand: capture_to s P (its first node depends on none), capture_to_after s P A
    # (on node A of P), capture_to_relaxed s P (relaxed mode); capture_end_graph s P ends a capture and gives whether
    # cuStreamEndCapture gave back P
    "CAPTURE_TO": (S("capture_to", ("stream", "graph"), ("SC_NO_NODE", "SC_CAPTURE_GLOBAL"), tags="into_graph"),
                   S("capture_to_after", ("stream", "graph", "node"), ("SC_CAPTURE_GLOBAL",), tags="into_graph"),
                   S("capture_to_relaxed", ("stream", "graph"), ("SC_NO_NODE", "SC_CAPTURE_RELAXED"),
                     tags="into_graph")),
    "CAPTURE_END_GRAPH": (S("capture_end_graph", ("stream", "graph"), getter=True,
                            values=("its_graph", "another_graph"), tags="into_graph"),),
    # conditional nodes: node_if_set P C (IF, body a clone of C, its condition set to 1 by a kernel node before
    # it), ...; two bodies: node_switch_0 P C D, node_if_else_set P C D
    "NODE_COND": tuple(S("node_" + n, ("graph", "graph"), ("SC_NO_BODY", c), tags="conditional")
                       for n, c in (("if_set", "SC_COND_IF_SET"), ("if_clear", "SC_COND_IF_CLEAR"),
                                    ("while", "SC_COND_WHILE"), ("while_clear", "SC_COND_WHILE_CLEAR"),
                                    ("if_default", "SC_COND_DEFAULT"),
                                    ("if_default_zero", "SC_COND_DEFAULT_ZERO")))
                 + _one_each("node_", [("switch_0", "SC_COND_SWITCH_0"), ("switch_1", "SC_COND_SWITCH_1"),
                                       ("switch_2", "SC_COND_SWITCH_2"),
                                       ("if_else_set", "SC_COND_IF_ELSE_SET"),
                                       ("if_else_clear", "SC_COND_IF_ELSE_CLEAR")],
                             args=("graph", "graph", "graph"), tags="conditional"),
    # context-level events of the issuing thread's current context (cuCtxRecordEvent, cuCtxWaitEvent)
    "CTX_RECORD": (S("ctx_record", ("event",)),),
    "CTX_WAIT": (S("ctx_wait", ("event",)),),
    # the program's green context: cuGreenCtxRecordEvent / cuGreenCtxWaitEvent, and cuCtxRecordEvent /
    # cuCtxWaitEvent of the context cuCtxFromGreenCtx converts it to; cuStreamGetGreenCtx of a stream
    "GREEN_RECORD": (S("green_record", ("event",), ("SC_GREEN_OWN",), tags="green"),
                     S("green_ctx_record", ("event",), ("SC_GREEN_CONVERTED",), tags="green")),
    "GREEN_WAIT": (S("green_wait", ("event",), ("SC_GREEN_OWN",), tags="green"),
                   S("green_ctx_wait", ("event",), ("SC_GREEN_CONVERTED",), tags="green")),
    "STREAM_GREEN": (S("stream_green", ("stream",), getter=True, values=("its_green", "none"), tags="green"),),
    "LIBRARY_KERNEL": (S("library_kernel"),),
    # a runtime-API rule's cuCtxSetCurrent of a created context (the runtime API then works on it)
    "DRIVER_CTX_SET": (S("driver_ctx_set", ("context",), tags="changes_current"),
                       # cuCtxSetCurrent(NULL): no context current to the thread
                       S("driver_ctx_clear", consts=("SC_NO_CONTEXT",), tags="changes_current")),
    # device graph launch: node_faf P C, node_tail P C, node_sibling P C add to P a kernel node that launches C
    # (instantiated for device launch and uploaded by the op) from the device in that mode
    "NODE_DEVLAUNCH": tuple(S("node_" + n, ("graph", "graph"), (c,), tags="device_launch")
                            for n, c in (("faf", "SC_DL_FAF"), ("tail", "SC_DL_TAIL"), ("sibling", "SC_DL_SIBLING"))),
    # a stream's introspection and attributes: stream_ctx s C gives whether cuStreamGetCtx answered device 0's
    # primary context or C; sync_policy_P s sets s's synchronization policy, sync_policy s reads it;
    # copy_attributes t s copies s's attributes to t; attach_single s attaches managed memory to s alone
    "STREAM_CTX": (S("stream_ctx", ("stream", "context"), getter=True, values=("primary", "the_context")),),
    "SYNC_POLICY_SET": _one_each("sync_policy_", [("auto", "SC_SYNC_AUTO"), ("spin", "SC_SYNC_SPIN"),
                                                  ("yield", "SC_SYNC_YIELD"),
                                                  ("blocking_sync", "SC_SYNC_BLOCKING_SYNC")], args=("stream",)),
    "SYNC_POLICY": (S("sync_policy", ("stream",), getter=True, values=("auto", "spin", "yield", "blocking_sync")),),
    "COPY_ATTRIBUTES": (S("copy_attributes", ("stream", "stream")),),
    "ATTACH_SINGLE": (S("attach_single", ("stream",)),),
    # a pool's high watermarks (allocated: at least one allocation (sc_copy_bytes)), and their reset to the current values
    "POOL_HIGH": (S("pool_used_high", ("pool",), ("SC_POOL_HIGH_USED",), getter=True, values=("zero", "allocated")),
                  S("pool_reserved_high", ("pool",), ("SC_POOL_HIGH_RESERVED",), getter=True,
                    values=("zero", "allocated"))),
    "POOL_HIGH_RESET": (S("pool_high_reset", ("pool",)),),
    # node_free P A: a free node in P of the allocation node A made (A of P, or of another graph)
    "NODE_FREE": (S("node_free", ("graph", "node")),),
}


# An op kind as the generator sees it: its spelling's facts and its ops.def row's.
@dataclass(frozen=True)
class Kind:
    fn: str                    # the streamcts.h builder call
    row: str = ""              # its ops.def KIND
    args: tuple = ()           # types of the ARGs the op names: stream, or a type of PREFIXES
    consts: tuple = ()         # C constants passed after the ARGs
    on: bool = True            # issued to a stream: needs "on STREAM" (ops.def: role WORK)
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
    facts: dict = field(default=None, compare=False, repr=False)  # its ops.def row, every column
    spelling: Spelling = field(default=None, compare=False, repr=False)


DATA = {"NONE": None, "COPY": "transfer", "MEMSET": "transfer", "PEER": "transfer", "FILL": "fill"}


def _line_of(kind):
    """vocab.py:N, where SPELLINGS names kind."""
    with open(__file__, encoding="utf-8") as f:
        at = next((n for n, line in enumerate(f, 1) if line.lstrip().startswith(f'"{kind}":')), 0)
    return f"gen/streamcts/vocab.py:{at}"


def _kinds(rows, spellings):
    """KINDS: every spelling of every row, in ops.def's order; OpsTableError where the two tables differ."""
    for kind in spellings:
        if kind not in rows:
            raise OpsTableError(f"{_line_of(kind)}: SPELLINGS names {kind}, which runtime/ops.def has no row of")
    kinds = {}
    for kind, row in rows.items():
        if not spellings.get(kind):
            raise OpsTableError(f"runtime/ops.def:{row['line']}: {kind} has no spelling in gen/streamcts/vocab.py's "
                                f"SPELLINGS")
        for s in spellings[kind]:
            if s.name in kinds:
                raise OpsTableError(f"{_line_of(kind)}: {kind}: the spelling {s.name} is {kinds[s.name].row}'s too")
            kinds[s.name] = Kind(
                s.fn or row["builder"], kind, s.args, s.consts, on=row["role"] == "WORK", role=row["role"].lower(),
                observable=bool(row["observable"]), data=DATA[row["data"]], getter=s.getter, values=s.values,
                bits=s.bits, driver_only=bool(row["driver_only"]), runtime_only=bool(row["runtime_only"]),
                isolate=bool(row["isolate"]), group=bool(row["group"]), devices=row["devices"], facts=row, spelling=s,
            )
    return kinds


KINDS = _kinds(ops_def(), SPELLINGS)


def kinds_where(fact):
    """The spellings, in KINDS's order, of the rows whose ops.def column fact is set."""
    return tuple(k for k, kind in KINDS.items() if kind.facts[fact])


def tagged(*tags):
    """The spellings, in KINDS's order, that carry one of tags (TAGS)."""
    return tuple(k for k, kind in KINDS.items() if set(kind.spelling.tags.split()) & set(tags))


# ---- the classes of kinds the other modules ask, each from one column of ops.def or one tag --------------
# What a thread of another process may issue: each is observed from main through the shared slots, or
# through the probe its own process queries (runtime/run.c).
PROCESS_KINDS = tuple(k for k in kinds_where("proc") if not KINDS[k].spelling.main_only)
# Ops main observes through a slot in the shared memory: the object of a relation judged in another process.
SLOT_KINDS = tuple(k for k in PROCESS_KINDS if KINDS[k].facts["slot"])
GATES = tagged("gate")
WAITS = tagged("wait")
RECORDS = kinds_where("records")  # the kinds that record an event a wait may name
ALLOCS = kinds_where("allocates")
NODE_KINDS = kinds_where("node")  # the node_* ops: each adds a node to a graph built by hand
NEVER_RUN_COUNTED = tuple(k for k in NODE_KINDS if KINDS[k].facts["slot"])  # the kinds 'never runs' may judge
PDL_KINDS = kinds_where("secondary")  # programmatic dependent launches
PRIMARY_KINDS = kinds_where("primary")  # the kernels whose token a secondary reads (runtime: sc_op_primary)
RUN_COUNTED = tagged("counted")  # the kinds whose slot counts their runs
RUN_ONCE_COUNTED = tagged("counted", "counted_once")  # the kinds 'runs once' may judge
SELF_BLOCKING = tagged("self_blocking")
MANAGED_WRITERS = tagged("managed_writer")
INSTANTIATES = tagged("instantiates")
DEVICE_LAUNCHES = tagged("device_launch")  # node_faf, node_tail, node_sibling: the second graph runs in the first's
CONDITIONALS = tagged("conditional")  # conditional nodes: their bodies are clones of graphs the op names
# The kinds that begin a stream capture: work issued to a capturing stream runs only when a graph of it is
# launched, not in issue order (order.py)
CAPTURE_BEGINS = kinds_where("begins_capture")
CURRENT_CHANGERS = tagged("changes_current")
GREEN_KINDS = tagged("green")  # calls on the program's green context: it declares a green stream (check.py)
CAPTURES_INTO = tagged("into_graph")  # begin or end a capture into a graph built by hand (check.py)
GETTERS = [k for k, kind in KINDS.items() if kind.getter]
# The stream memory operations' WORD ARGs, in order: whether each is waited on or written (check.py)
WORD_ROLES = {k: kind.spelling.words for k, kind in KINDS.items() if kind.spelling.words}
