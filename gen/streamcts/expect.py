"""The expect cell: parse_expect(text) -> Expect, and check_expect(prog, exp, modes) -> [message]:
the ops it names exist and can be judged (a binary relation's object is held behind a gate,
observable, in a process main can see).
"""
from __future__ import annotations

import re

from .model import Bad, Expect, Object, article, one_of
from .program import builtin
from .vocab import (
    CODES, COMPARISONS, CONDITIONALS, DEVICE_LAUNCHES, GATES, GETTERS, KINDS, MANAGED_WRITERS, NAME, NEVER_RUN_COUNTED, PDL_KINDS, PRIMARY_KINDS,
    RELATIONS, RUN_COUNTED, RUN_ONCE_COUNTED, RUNS_N, SELF_BLOCKING, SLOT_KINDS, UNARY_RELATIONS,
)

EXPECT_BINARY = re.compile(rf"({NAME}) ({'|'.join(RELATIONS)}) ({NAME})")
EXPECT_VALUE = re.compile(rf"({NAME}) (answers|gives) (\S+)")
EXPECT_UNARY = re.compile(rf"({NAME}) ({'|'.join(UNARY_RELATIONS)})")
EXPECT_RUNS = re.compile(rf"({NAME}) runs ([2-9]|[1-9][0-9]) times per launch")


def parse_expect(text):
    m = EXPECT_BINARY.fullmatch(text)
    if m:
        return Expect(m.group(1), m.group(2), object=m.group(3))
    m = EXPECT_VALUE.fullmatch(text)
    if m and m.group(2) == "answers" and m.group(3) not in CODES:
        raise Bad(f"unknown code '{m.group(3)}' in '{text}' (want {one_of(CODES)})")
    if m:
        return Expect(m.group(1), m.group(2), value=m.group(3))
    m = EXPECT_UNARY.fullmatch(text)
    if m:
        return Expect(*m.groups())
    m = EXPECT_RUNS.fullmatch(text)
    if m:
        return Expect(m.group(1), RUNS_N, value=m.group(2))
    raise Bad(
        f"unknown expectation '{text}' (want 'B after A', 'B not held by A', 'X blocks until A', "
        "'X returns before A', 'Q not ready while A', 'Q ready while A', 'Q synchronizes X', 'X equals Y', "
        "'X differs from Y', "
        "'X answers CODE', 'X gives VALUE', 'X complete on return', 'X keeps its data', 'X runs once per launch', "
        "'X runs N times per launch', 'X runs once', 'X never runs', 'X sees its primary' or 'X reads its fill')"
    )


def stream_of(op, modes, procs=None):
    """The stream an op is issued to, as an identity: a built-in stream is one per device (plain legacy
    is legacy@0); per_thread@D, and null@D when built for per-thread default streams, are one stream per
    host thread; null@D alone in legacy mode is legacy@D.  A per-thread identity is a tuple.  Each
    process has its own built-in streams: legacy in thread t@p1 is p1's (procs: thread -> process)."""
    ref = builtin(op.stream)
    if ref is None:
        return op.stream
    base, device = ref
    if base == "per_thread" or (base == "null" and modes != ("legacy",)):
        return (f"per_thread@{device}", op.thread)
    proc = (procs or {}).get(op.thread)
    return f"legacy@{device}" + (f" of {proc}" if proc else "")


def is_gate(prog, op):
    """A gate, host_gate or value_gate, a gate node, or the launch of a gate graph."""
    return op.kind in GATES or op.kind == "node_gate" or (
        op.kind == "graph_launch" and prog.objects[op.args[0]].flags == ("gate",)
    )


def runs_in(prog, i):
    """The graphs whose launches run node op i: its own graph, a graph that a node_child after it
    cloned that graph into (the clone holds only the nodes added before it), or a conditional node after it
    took as a body (which runs it as often as its condition says), or a node after it launches from the device
    (node_faf, node_tail, node_sibling: instantiated then, with the nodes added before), and a graph an exec_update gave
    the parameters of one of those, or whose node an exec_set_params gave its parameters (or a child's nodes)."""
    since, todo = {}, [(prog.ops[i].args[0], i)]
    while todo:
        g, at = todo.pop()
        if g in since and since[g] <= at:
            continue
        since[g] = at
        for j, op in enumerate(prog.ops):
            if op.kind == "node_child" and op.args[1] == g and j > at:
                todo.append((op.args[0], j))
            if op.kind in CONDITIONALS and g in op.args[1:] and j > at:
                todo.append((op.args[0], j))
            if op.kind in DEVICE_LAUNCHES and op.args[1] == g and j > at:  # launched from the device by its node
                todo.append((op.args[0], j))
            if op.kind == "exec_update" and op.args[1] == g:
                todo.append((op.args[0], at))
            if op.kind == "exec_set_params" and None not in (prog.named(op.args[0]), prog.named(op.args[1])):
                # later launches of the first node's graph run the second's work
                src = prog.ops[prog.named(op.args[1])]
                if (op.args[1] == prog.ops[i].name and g == src.args[0]) or (
                        src.kind == "node_child" and src.args[1] == g and prog.named(op.args[1]) > at):
                    todo.append((prog.ops[prog.named(op.args[0])].args[0], j))
    return set(since)


def node_held(prog, i, modes):
    """A node runs held when a gate node runs in the same launch, or the launch itself is held."""
    graphs = runs_in(prog, i)
    return any(
        (op.kind == "node_gate" and graphs & runs_in(prog, j))
        or (op.kind == "graph_replay" and op.args[0] in graphs and held(prog, j, modes))
        for j, op in enumerate(prog.ops)
    )


def unlaunched_nodes(prog, exp):
    """The marking nodes an expectation names that no graph_replay of the program runs (a node added
    to a graph after a child graph node cloned it, say): only 'never runs' may ask about one."""
    launched = {op.args[0] for op in prog.ops if op.kind == "graph_replay"}
    return [
        n for n in dict.fromkeys((exp.subject, exp.object)) if n is not None
        and prog.ops[prog.named(n)].kind in NEVER_RUN_COUNTED and not runs_in(prog, prog.named(n)) & launched
    ]


def held(prog, i, modes):
    """Is op i held: a gate itself, or after a gate in its own stream (a node: see node_held)?"""
    op = prog.ops[i]
    if op.kind in ("node_kernel", "node_host"):
        return node_held(prog, i, modes)
    return is_gate(prog, op) or (
        op.stream is not None
        and any(
            is_gate(prog, o) and stream_of(o, modes, prog.procs) == stream_of(op, modes, prog.procs)
            for o in prog.ops[:i]
        )
    )


def check_unary(exp, kind):
    """An expectation of the subject alone, whose kind is given."""
    subject = f"'{exp.subject}' is {kind}"
    if exp.relation == "answers" and exp.value == "skipped" and kind != "host_func":
        return [f"only a host_func answers 'skipped'; {subject}"]
    if exp.relation == "gives" and KINDS[kind].getter and not KINDS[kind].values:
        return [f"{kind} '{exp.subject}' gives no named value; compare it to another {kind} ('equals', 'differs from')"]
    if exp.relation == "gives" and not KINDS[kind].values:
        return [f"subject of 'gives' must be a getter ({', '.join(k for k in GETTERS if KINDS[k].values)}); {subject}"]
    if exp.relation == "gives" and exp.value not in KINDS[kind].values:
        return [f"{kind} '{exp.subject}' gives {one_of(KINDS[kind].values)}, not '{exp.value}'"]
    if exp.relation == "complete on return" and kind.startswith("node_"):
        return [f"a node's data is written when a launch runs it: 'complete on return' does not apply; {subject}"]
    if exp.relation == "complete on return" and KINDS[kind].data != "transfer":
        return [f"subject of 'complete on return' must be a copy or memset (memcpy*, memset*); {subject}"]
    if exp.relation == "keeps its data" and not KINDS[kind].data:
        return [f"subject of 'keeps its data' must be a copy, memset or fill (memcpy*, memset*, fill); {subject}"]
    if exp.relation == "runs once per launch" and kind not in RUN_COUNTED:
        return [f"subject of 'runs once per launch' must be {one_of(RUN_COUNTED)}; {subject}"]
    if exp.relation == RUNS_N and kind not in NEVER_RUN_COUNTED:
        return [f"subject of 'runs {exp.value} times per launch' must be a node in the body of a node_while "
                f"({one_of(NEVER_RUN_COUNTED)}); {subject}"]
    if exp.relation == "runs once" and kind not in RUN_ONCE_COUNTED:
        return [f"subject of 'runs once' must be {one_of(RUN_ONCE_COUNTED)}; {subject}"]
    if exp.relation == "never runs" and kind not in NEVER_RUN_COUNTED:
        return [f"subject of 'never runs' must be {one_of(NEVER_RUN_COUNTED)}; {subject}"]
    return []


def check_primary(prog, s):
    """'B sees its primary': B is a programmatic dependent launch right after a kernel in its stream
    (the stream work its thread issued to that stream just before it; runtime: sc_op_primary)."""
    op = prog.ops[s]
    if op.kind not in PDL_KINDS:
        return [f"subject of 'sees its primary' must be {one_of(PDL_KINDS)}; '{op.name}' is {op.kind}"]
    before = [o for o in prog.ops[:s] if o.stream == op.stream and o.thread == op.thread and KINDS[o.kind].role == "work"]
    if not before or before[-1].kind not in PRIMARY_KINDS:
        what = f"'{before[-1].name or before[-1].kind}' ({before[-1].kind})" if before else "nothing"
        return [
            f"'{op.name} sees its primary' needs {one_of(PRIMARY_KINDS)} right before {op.name} in its stream; "
            f"{what} is there"
        ]
    return []


def check_synchronizes(prog, exp, skind, okind):
    """'Q synchronizes X': Q a query, X stream work that writes managed memory (its data read on the host
    right as Q answers success), both in main's process."""
    errs = []
    if KINDS[skind].role != "query":
        errs.append(
            f"subject of 'synchronizes' must be a query (stream_query, event_query); '{exp.subject}' is {skind}"
        )
    if okind not in MANAGED_WRITERS:
        errs.append(f"object of 'synchronizes' must write managed memory ({one_of(MANAGED_WRITERS)}); "
                    f"'{exp.object}' is {okind}")
    if any(prog.process(prog.ops[prog.named(n)].thread) != "main" for n in (exp.subject, exp.object)):
        errs.append(
            f"'{exp.subject} synchronizes {exp.object}' reads managed memory in main: both ops in main's process"
        )
    return errs
def check_fill_read(prog, s):
    """'B reads its fill': B is a read (read, batch_read), and a fill of its buffer comes before it (runtime:
    sc_op_writer)."""
    op = prog.ops[s]
    if not KINDS[op.kind].facts.get("reads_buffer"):
        return [f"subject of 'reads its fill' must be a read (read, batch_read); '{op.name}' is {op.kind}"]
    if not any(o.kind == "fill" and o.args[0] == op.args[0] for o in prog.ops[:s]):
        return [f"'{op.name} reads its fill' needs a fill of {op.args[0]} before {op.name}"]
    return []


def check_comparison(exp, skind, okind):
    """'X equals Y', 'X differs from Y': two getters of one kind."""
    others = [f"'{n}' is {k}" for n, k in ((exp.subject, skind), (exp.object, okind)) if not KINDS[k].getter]
    if others:
        return [f"'{exp.relation}' compares two getters ({', '.join(GETTERS)}); {' and '.join(others)}"]
    if skind != okind:
        return [f"'{exp.relation}' compares getters of one kind; '{exp.subject}' is {skind}, '{exp.object}' is {okind}"]
    return []


def check_expect_processes(prog, exp):
    """What main can judge of ops in other processes: their return and result always; the data of IPC
    memory only; and a subject judged in its own process needs an object seen through a shared slot."""
    s = prog.named(exp.subject)
    sproc = prog.process(prog.ops[s].thread)
    if sproc == "main":
        return []
    subject = prog.ops[s]
    if (exp.relation in UNARY_RELATIONS or exp.relation == RUNS_N) and not (
        subject.kind == "fill" and prog.objects.get(subject.args[0], Object("", ())).type == "ipc_memory"
    ) and not (subject.kind == "read" and exp.relation == "reads its fill"):
        return [f"'{exp.relation}' of an op in process {sproc}: main reads back only ipc_memory (fill) and what a "
                "read found ('reads its fill')"]
    if exp.object is None or exp.relation in ("after", "not held by") or exp.relation in COMPARISONS:
        return []
    obj = prog.ops[prog.named(exp.object)]
    if prog.process(obj.thread) != sproc and obj.kind not in SLOT_KINDS:
        return [
            f"'{exp.subject} {exp.relation} {exp.object}' is judged in process {sproc}, which sees "
            f"{exp.object} of process {prog.process(obj.thread)} only through a slot: the object must be "
            f"{one_of(SLOT_KINDS)}"
        ]
    return []


def check_expect(prog, exp, modes):
    missing = [n for n in dict.fromkeys((exp.subject, exp.object)) if n is not None and prog.named(n) is None]
    if missing:
        return [f"expectation names unknown op '{n}'" for n in missing]
    if prog.procs:
        errs = check_expect_processes(prog, exp)
        if errs:
            return errs
    s = prog.named(exp.subject)
    skind = prog.ops[s].kind
    if exp.relation in ("runs once per launch", RUNS_N) and \
            len({op.args[0] for op in prog.ops if op.kind == "graph_replay"}) != 1:
        return [f"'{exp.relation}' counts the launches of one graph: the program needs graph_replay of one graph"]
    if exp.relation == "never runs" and not any(op.kind == "graph_replay" for op in prog.ops):
        return ["'never runs' asks what launches did not run: the program needs a graph_replay"]
    unlaunched = [] if exp.relation == "never runs" else unlaunched_nodes(prog, exp)
    if unlaunched:
        return [f"node '{n}' runs in no launch of the program (added after a node_child cloned its graph?): "
                f"only 'never runs' may ask about it" for n in unlaunched]
    if exp.relation == "sees its primary":
        return check_primary(prog, s)
    if exp.relation == "reads its fill":
        return check_fill_read(prog, s)
    if exp.relation == "keeps its data" and skind == "memcpy_peer_from":  # it copies a fill
        op = prog.ops[s]
        if not any(o.kind == "fill" and o.args[0] == op.args[0] for o in prog.ops[:s]):
            return [f"'{op.name} keeps its data' needs a fill of {op.args[0]} before {op.name} (what it copies)"]
    if exp.object is None:
        return check_unary(exp, skind)
    if exp.subject == exp.object and not (exp.relation == "blocks until" and skind in SELF_BLOCKING):
        return [f"expectation relates op '{exp.subject}' to itself (only 'G blocks until G' of "
                f"{one_of(SELF_BLOCKING)} G: its launch returns only after it ran)"]
    o = prog.named(exp.object)
    okind = prog.ops[o].kind
    if exp.relation in COMPARISONS:
        return check_comparison(exp, skind, okind)
    errs = []
    if exp.relation == "synchronizes":
        errs += check_synchronizes(prog, exp, skind, okind)
    if exp.relation in ("not ready while", "ready while") and KINDS[skind].role != "query":
        errs.append(
            f"subject of '{exp.relation}' must be a query (stream_query, event_query); '{exp.subject}' is {skind}"
        )
    # the subject of "blocks until" and "returns before" is judged by when its call returned: any op will do
    # (docs/design.md); every other relation needs the subject's completion too
    judged = ((exp.subject, skind), (exp.object, okind))
    if exp.relation in ("blocks until", "returns before"):
        judged = judged[1:]
    for n, k in judged:
        if not KINDS[k].observable:
            errs.append(f"op '{n}' is {article(k)}, whose completion cannot be observed")
    if not held(prog, o, modes):
        obj = prog.ops[o]
        where = f"({okind} is not stream work)" if obj.stream is None else f"on stream {obj.stream}"
        where += f" in thread {obj.thread}" if isinstance(stream_of(obj, modes), tuple) else ""
        errs.append(
            f"expectation object '{exp.object}' is not held: no gate (gate, host_gate, value_gate or graph_launch "
            f"of a gate graph) precedes it {where}"
        )
    return errs
