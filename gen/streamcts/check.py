"""Checks of a parsed Program: check_program(prog) -> [message] (names resolve, are unique, fit
the runtime; arrays, thread exits, processes, buffers and words), check_waits(prog) and
check_word_waits(prog).

Both the case's program and its negative control are checked with check_program.
"""
from __future__ import annotations

from .model import Object, one_of, typed_args
from .program import builtin, object_types
from .vocab import (
    ALLOCS, KINDS, MAX_DEVICES, MAX_MEMBERS, MAX_NAME, MAX_OBJECTS, MAX_OPS, MAX_PROCS, MAX_STREAMS, MAX_THREADS,
    CAPTURES_INTO, CONDITIONALS, DEVICE_LAUNCHES, GREEN_KINDS, NODE_KINDS, PROCESS_KINDS, RECORDS, WAITS, WORD_PRESETS, WORD_ROLES, INSTANTIATES,
)


def check_buffers_and_words(prog):
    """Buffers are allocated before they are used; a word is used by ops of one width."""
    errs, allocated, width = [], set(), {}  # width: word -> (bits, first op)
    for name, op, type_, arg in prog.uses():
        if type_ == "buffer" and prog.objects.get(arg, Object("", ())).type == "ipc_memory":
            continue  # main allocates it before the case starts
        if type_ == "buffer" and op.kind in ALLOCS:
            allocated.add(arg)
        elif type_ == "buffer" and arg not in allocated:
            errs.append(f"op {name}: buffer '{arg}' is used before an alloc_async or alloc_from allocates it")
        elif type_ == "word":
            bits = KINDS[op.kind].bits
            first_bits, first = width.setdefault(arg, (bits, name))
            if bits != first_bits:
                errs.append(f"word '{arg}' is used by a {first_bits}-bit op ({first}) and a {bits}-bit op ({name})")
            preset = prog.objects.get(arg, Object("", ())).flags
            if preset == ("managed",) and prog.process(op.thread) != "main":
                errs.append(f"op {name}: managed word '{arg}' is main's own memory: no other process may use it")
            cond = op.kind.rsplit("_", 1)[1] if op.kind.startswith("wait_value") else None
            cond = "geq" if op.kind.startswith("batch_wait_") and arg == op.args[0] else cond
            if preset and cond and WORD_PRESETS[preset[0]][0] and cond != WORD_PRESETS[preset[0]][0]:
                want = WORD_PRESETS[preset[0]][0]
                errs.append(f"op {name}: a {cond} wait on word '{arg}', whose preset {preset[0]} is for {want} waits")
    errs += [f"word '{w}' is declared but no op uses it" for w, obj in prog.objects.items()
             if obj.type == "word" and w not in width]
    return errs


def stream_error(prog, stream):
    """Why `stream` names no stream of prog; None when it names one."""
    ref = builtin(stream)
    if stream in prog.streams or (ref and ref[1] < MAX_DEVICES):
        return None
    if "@" in stream:
        return (
            f"bad stream '{stream}' (the built-in streams of device D are legacy@D, per_thread@D and null@D, "
            f"D from 0 to {MAX_DEVICES - 1})"
        )
    return f"unknown stream '{stream}'"


def check_arrays(prog):
    """An array of streams is named only by the kinds that issue a group."""
    errs = []
    for name, op, s in prog.targets():
        count = prog.streams[s].count if s in prog.streams else 1
        if count > 1 and not KINDS[op.kind].group:
            errs.append(
                f"op {name}: stream '{s}' is an array of {count} streams; {op.kind} cannot be issued to an array"
            )
    return errs


def check_thread_exits(prog):
    """A thread_exit is the last op of its thread, which is not main."""
    errs = []
    names = prog.names()
    for i, (name, op) in enumerate(zip(names, prog.ops)):
        if op.kind != "thread_exit":
            continue
        later = [n for n, o in zip(names[i + 1:], prog.ops[i + 1:]) if o.thread == op.thread]
        if op.thread == "main":
            errs.append(f"op {name}: thread_exit cannot end thread main (issue it 'in THREAD')")
        elif later:
            errs.append(f"op {name}: thread_exit must be the last op of thread {op.thread}; {later[0]} follows it")
    return errs


def check_processes(prog):
    """Threads of other processes issue what main can observe there; streams and events stay in one
    process unless an event is interprocess; a program of several processes uses one GPU."""
    if not prog.procs:
        return [f"op {n}: ipc_memory '{arg}' needs threads in other processes (t@p)"
                for n, op, t, arg in prog.uses()
                if t == "buffer" and prog.objects.get(arg, Object("", ())).type == "ipc_memory"][:1]
    errs = []
    for name, op in zip(prog.names(), prog.ops):
        proc = prog.process(op.thread)
        if proc != "main" and op.kind not in PROCESS_KINDS:
            errs.append(f"op {name}: {op.kind} cannot be issued in process {proc} (want {one_of(PROCESS_KINDS)})")
        if KINDS[op.kind].isolate or KINDS[op.kind].devices > 1:
            errs.append(f"op {name}: {op.kind} cannot be part of a program of several processes")
    for s, stream in prog.streams.items():
        if stream.count > 1 or stream.device:
            errs.append(f"stream '{s}': a program of several processes uses single streams of device 0")
    refs = [builtin(s) for _, _, s in prog.targets()]
    if any(ref and ref[1] for ref in refs):
        errs.append("a program of several processes uses the built-in streams of device 0 only")
    users = {}  # stream or event -> processes that name it
    for name, op, s in prog.targets():
        if s in prog.streams:
            users.setdefault(("stream", s), []).append(prog.process(op.thread))
    for name, op, t, arg in prog.uses():
        if t == "event":
            users.setdefault(("event", arg), []).append(prog.process(op.thread))
    for (what, n), procs in users.items():
        procs = list(dict.fromkeys(procs))
        if len(procs) < 2:
            continue
        if what == "stream":
            errs.append(f"stream '{n}' is used in processes {' and '.join(procs)}: a stream belongs to one process")
        elif not {"interprocess", "disable_timing"} <= set(prog.objects.get(n, Object("", ())).flags):
            errs.append(
                f"event '{n}' is used in processes {' and '.join(procs)}: declare it {n}=event interprocess "
                "disable_timing"
            )
    return errs


def check_graphs(prog, types):
    """A graph declared 'captured' is made by capture_keep and launched by graph_replay; a kernel or gate
    graph is built by the runtime and launched by graph_launch; a replay follows the capture_keep."""
    errs, kept = [], set()
    for name, op, type_, arg in prog.uses():
        if type_ != "graph" or types.get(arg) != "graph" or arg not in prog.objects:
            continue
        captured = prog.objects[arg].flags == ("captured",)
        if prog.objects[arg].flags == ("nodes",):
            continue  # check_nodes
        if op.kind == "graph_launch" and captured:
            errs.append(f"op {name}: graph '{arg}' is captured: launch it with graph_replay")
        elif op.kind in ("graph_replay", "capture_keep") and not captured:
            errs.append(f"op {name}: {op.kind} needs a graph declared captured ({arg}=graph captured)")
        elif op.kind == "graph_replay" and arg not in kept:
            errs.append(f"op {name}: graph_replay of '{arg}', which no capture_keep before it made")
        if op.kind == "capture_keep":
            kept.add(arg)
    return errs


def check_nodes(prog, types):
    """A graph declared 'nodes' is built by node ops and edges, made executable by instantiate (after
    its last node and edge), launched by graph_replay; an edge joins two earlier nodes of one graph; a child
    graph is another 'nodes' graph, cloned when it is added: a node added to it later runs in no launch of
    the parent (expect.py's runs_in; only 'never runs' may ask about a node no launch runs)."""
    errs, nodes, instantiated = [], {}, set()

    def built(arg):
        return types.get(arg) == "graph" and prog.objects.get(arg, Object("", ())).flags == ("nodes",)

    for name, op in zip(prog.names(), prog.ops):
        graphs = [arg for t, arg in typed_args(name, op) if t == "graph"]
        if op.kind in NODE_KINDS or op.kind in INSTANTIATES + ("exec_update", "exec_destroy") + CAPTURES_INTO:
            errs += [f"op {name}: {op.kind} needs a graph declared nodes ({g}=graph nodes)" for g in graphs
                     if types.get(g) == "graph" and not built(g)]
        if op.kind == "graph_launch" and graphs and built(graphs[0]):
            errs.append(f"op {name}: graph '{graphs[0]}' is built by hand: launch it with graph_replay")
        if op.kind == "graph_replay" and graphs and built(graphs[0]) and graphs[0] not in instantiated:
            errs.append(f"op {name}: graph_replay of '{graphs[0]}', which no instantiate before it made executable")
        if op.kind in NODE_KINDS and graphs:
            if graphs[0] in instantiated:
                errs.append(f"op {name}: a node added to '{graphs[0]}' after its instantiate would never run")
            nodes[name] = graphs[0]
        if op.kind == "node_child" and len(graphs) == 2:
            if graphs[0] == graphs[1]:
                errs.append(f"op {name}: a graph cannot be its own child")
        if op.kind in CONDITIONALS and graphs[0] in graphs[1:]:
            errs.append(f"op {name}: a graph cannot be the body of its own conditional node")
        if op.kind in CONDITIONALS:  # CUDA_CONDITIONAL_NODE_PARAMS: what a body may hold
            errs += [f"op {name}: {o.kind} {n} of {o.args[0]} cannot be in a conditional node's body (kernel, "
                     "memset, memcpy, child graph and conditional nodes only)"
                     for n, o in zip(prog.names(), prog.ops) if o.kind in NODE_KINDS and o is not op
                     and o.args and o.args[0] in graphs[1:] and o.kind in UNFIT_IN_BODY]
        if op.kind in DEVICE_LAUNCHES and len(graphs) == 2:
            if graphs[0] == graphs[1]:
                errs.append(f"op {name}: a graph cannot launch itself from the device here")
            if graphs[1] in instantiated:
                errs.append(f"op {name}: '{graphs[1]}' was instantiated (or launched from the device) before: one "
                            "node_faf, node_tail or node_sibling makes its only executable graph")
            instantiated.add(graphs[1])  # instantiated for device launch by this op: no node may follow
            # cuGraphInstantiate: a graph instantiated for device launch holds kernel, memcpy, memset and child
            # graph nodes only
            errs += [f"op {name}: {o.kind} {n} of {o.args[0]} cannot be in a graph launched from the device (kernel, "
                     "memset, memcpy and child graph nodes only)"
                     for n, o in zip(prog.names(), prog.ops) if o.kind in NODE_KINDS and o is not op
                     and o.args and o.args[0] == graphs[1] and o.kind in UNFIT_IN_DEVICE_GRAPH]
        if op.kind == "node_free":  # cuGraphAddMemFreeNode: an address "returned by an allocation node"
            kinds = dict(zip(prog.names(), (o.kind for o in prog.ops)))
            errs += [f"op {name}: node_free frees what a node_alloc added before it made; '{n}' is no such node"
                     for t, n in typed_args(name, op) if t == "node" and (n not in nodes or kinds.get(n) != "node_alloc")]
        if op.kind in CAPTURES_INTO:  # its first captured node's dependency: a node of its graph
            errs += [f"op {name}: {op.kind} depends on '{n}', which is no node of '{graphs[0]}' added before it"
                     for t, n in typed_args(name, op) if t == "node" and nodes.get(n) != graphs[0]]
        if op.kind == "edge":
            ends = [arg for t, arg in typed_args(name, op) if t == "node"]
            unknown = [e for e in ends if e not in nodes]
            if unknown:
                errs += [f"op {name}: edge names '{e}', which is no node added before it" for e in unknown]
            elif ends[0] == ends[1] or nodes[ends[0]] != nodes[ends[1]]:
                errs.append(f"op {name}: an edge joins two nodes of one graph")
            elif nodes[ends[0]] in instantiated:
                errs.append(f"op {name}: an edge added to '{nodes[ends[0]]}' after its instantiate would change nothing")
        if op.kind in INSTANTIATES and graphs:
            if graphs[0] in instantiated:
                errs.append(f"op {name}: '{graphs[0]}' is instantiated twice (its executable graph is one)")
            instantiated.add(graphs[0])
        if op.kind in ("exec_update", "exec_destroy") and graphs and graphs[0] not in instantiated:
            errs.append(f"op {name}: {op.kind} of '{graphs[0]}', which no instantiate before it made executable")
        if op.kind in EDITS:
            errs += check_edit(prog, name, op, nodes, instantiated)
    return errs


# executable graph editing: cuGraphNodeSetEnabled, cuGraphExec*NodeSetParams
EDITS = ("node_disable", "node_enable", "exec_set_params")
# cuGraphNodeSetEnabled: "Currently only kernel, memset and memcpy nodes are supported"
ENABLEABLE = ("node_gate", "node_kernel", "node_memset", "node_memcpy")
# exec_set_params: the node kinds whose parameters another node of the same class may give
SETTABLE = (("node_gate", "node_kernel"), ("node_host",), ("node_memset",), ("node_memcpy",), ("node_record",),
            ("node_wait",), ("node_child",))


def check_edit(prog, name, op, nodes, instantiated):
    """An edit names nodes added before it; the first is a node of a graph instantiated before it, of a kind the
    call takes (exec_set_params: the second of the same kind, a gate and a kernel node both kernel nodes)."""
    ends = [arg for t, arg in typed_args(name, op) if t == "node"]
    unknown = [e for e in ends if e not in nodes]
    if unknown:
        return [f"op {name}: {op.kind} names '{e}', which is no node added before it" for e in unknown]
    kinds = [prog.ops[prog.named(e)].kind for e in ends]
    if nodes[ends[0]] not in instantiated:
        return [f"op {name}: {op.kind} edits the executable graph of '{nodes[ends[0]]}', which no instantiate before "
                "it made"]
    if op.kind != "exec_set_params" and kinds[0] not in ENABLEABLE:
        return [f"op {name}: cuGraphNodeSetEnabled takes {one_of(ENABLEABLE)} only; '{ends[0]}' is {kinds[0]}"]
    if op.kind == "exec_set_params" and (ends[0] == ends[1] or not any(set(kinds) <= set(c) for c in SETTABLE)):
        return [f"op {name}: a node takes the parameters of another node of its kind ({kinds[0]} '{ends[0]}', "
                f"{kinds[1]} '{ends[1]}')"]
    return []


# node kinds a conditional node's body may not hold ("Allowed node types are kernel nodes, empty nodes, child
# graphs, memsets, memcopies, and conditionals")
UNFIT_IN_BODY = ("node_host", "node_record", "node_wait", "node_alloc", "node_free", "node_memset_alloc")
# cuGraphInstantiate, CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH: "The graph can only contain kernel nodes, memcpy
# nodes, memset nodes, and child graph nodes"
UNFIT_IN_DEVICE_GRAPH = UNFIT_IN_BODY + tuple(sorted(CONDITIONALS)) + tuple(sorted(DEVICE_LAUNCHES))


def check_green(prog, runtime):
    """A green stream is one nonblocking stream of device 0, in a driver-API program."""
    errs = []
    for s, st in prog.streams.items():
        if st.green and (st.kind != "nonblocking" or st.device or st.count > 1):
            errs.append(f"stream '{s}': a green stream is one nonblocking stream of device 0 "
                        "(cuGreenCtxStreamCreate takes CU_STREAM_NON_BLOCKING only)")
        if st.green and runtime:
            errs.append(f"stream '{s}' is a green context's, which the driver API's only has; {runtime[0]} is the "
                        "runtime API's only: no API has both")
    green = [s for s, st in prog.streams.items() if st.green]
    errs += [f"op {name}: {op.kind} acts on the program's green context, which only a stream declared green "
             "(s=nonblocking green) makes" for name, op in zip(prog.names(), prog.ops)
             if op.kind in GREEN_KINDS and not green]
    return errs


def check_ctx_creates(prog):
    """A ctx_create makes its context once, before any other op names it."""
    errs, created, named = [], {}, {}
    for name, op in zip(prog.names(), prog.ops):
        for c in (arg for t, arg in typed_args(name, op) if t == "context"):
            if op.kind == "ctx_create" and c in created:
                errs.append(f"op {name}: context '{c}' is created twice ({created[c]} made it)")
            elif op.kind == "ctx_create" and c in named:
                errs.append(f"op {name}: {named[c]} names context '{c}' before ctx_create makes it")
            if op.kind == "ctx_create":
                created.setdefault(c, name)
            else:
                named.setdefault(c, name)
    return errs


def check_program(prog):
    """Names in a parsed program resolve, are unique and fit the runtime."""
    errs = [f"op {name}: {e}" for name, _, s in prog.targets() for e in [stream_error(prog, s)] if e]
    errs += check_arrays(prog) + check_thread_exits(prog) + check_processes(prog)
    seen = {}
    for i, (name, op) in enumerate(zip(prog.names(), prog.ops), 1):
        if op.thread != "main" and op.thread not in prog.threads:
            errs.append(f"op {name}: unknown thread '{op.thread}'")
        if name in seen:
            errs.append(f"duplicate op name '{name}' (ops {seen[name]} and {i})")
        seen.setdefault(name, i)
    driver = [op.kind for op in prog.ops if KINDS[op.kind].driver_only]
    runtime = [op.kind for op in prog.ops if KINDS[op.kind].runtime_only]
    if driver and runtime:
        errs.append(f"{driver[0]} is the driver API's only, {runtime[0]} the runtime API's only: no API has both")
    errs += check_green(prog, runtime) + check_ctx_creates(prog)
    destroyed = {}  # stream or event -> the op that destroyed it
    for name, op in zip(prog.names(), prog.ops):
        uses = [op.stream] + [arg for _, arg in typed_args(name, op)]
        errs += [f"op {name} uses '{u}' after {destroyed[u]} destroyed it" for u in uses if u in destroyed]
        if op.kind in ("stream_destroy", "event_destroy"):
            if builtin(op.args[0]):
                errs.append(f"op {name}: the built-in stream '{op.args[0]}' cannot be destroyed")
            destroyed[op.args[0]] = name
    types, type_errs = object_types(prog)
    errs += type_errs + check_buffers_and_words(prog) + check_graphs(prog, types) + check_nodes(prog, types)
    if "context" in types.values() and (any(st.device for st in prog.streams.values())
                                        or any((builtin(s) or ("", 0))[1] for _, _, s in prog.targets())):
        errs.append("a program with a created context uses device 0 only (an op on another device makes "
                    "the primary context current again)")
    names = list(prog.streams) + prog.threads + sorted(types) + prog.names()
    errs += [f"name '{n}' is longer than {MAX_NAME} characters" for n in names if len(n) > MAX_NAME]
    limits = [("ops", len(prog.ops), MAX_OPS), ("streams", len(prog.streams), MAX_STREAMS)]
    members = sum(stream.count for stream in prog.streams.values())
    limits.append(("streams counting each array member", members, MAX_MEMBERS))
    limits += [(type_ + "s", list(types.values()).count(type_), limit) for type_, limit in MAX_OBJECTS.items()]
    limits.append(("threads besides main", len(prog.threads), MAX_THREADS))
    limits.append(("processes", len(prog.processes()), MAX_PROCS))
    errs += [f"{count} {what}, the runtime takes at most {limit}" for what, count, limit in limits if count > limit]
    return errs


def check_waits(prog):
    """A wait names an event some op records, or one the objects column declares: an undeclared event
    that nothing records is most likely a misspelt name (the wait would wait for nothing)."""
    recorded = {arg for _, op, t, arg in prog.uses() if t == "event" and op.kind in RECORDS}
    return [
        f"op {name}: {op.kind} on event '{arg}', which no op records (a misspelt name? to wait on an event that "
        f"is never recorded, declare it in objects: {arg}=event)"
        for name, op, t, arg in prog.uses()
        if op.kind in WAITS and t == "event" and arg not in recorded and arg not in prog.objects
    ]


def check_word_waits(prog):
    """A wait on a word comes after an op that writes the word, unless the objects column declares it.  A
    word starts at a value its waits do not accept (runtime/run.c, word_values): a wait that no earlier
    write satisfies holds its stream for good, or until work issued after it writes the word, which the
    driver documents may deadlock.  An undeclared word no op wrote before is most likely a misspelt name."""
    errs, written = [], set()
    for name, op in zip(prog.names(), prog.ops):
        roles = list(zip(WORD_ROLES.get(op.kind, ()), op.args))
        errs += [
            f"op {name}: {op.kind} waits on word '{arg}', which no op before it writes (a misspelt name? a word "
            f"starts at a value its waits do not accept: write it first, or declare it in objects, {arg}=word "
            "PRESET, for a wait meant to find it unwritten)"
            for role, arg in roles if role == "wait" and arg not in written and arg not in prog.objects
        ]
        written |= {arg for role, arg in roles if role == "write"}
    return errs
