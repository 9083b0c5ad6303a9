"""C text: c_body(prog, exp) -> the sc_* builder calls of one checked program ({"decls", "ops",
"expect"}), and case_functions(rule) -> the names of a rule's case builders, for
templates/program.c.j2; c_string and c_comment are the templates' filters.

Formatting only: a program reaches here checked (cases.py).
"""
from __future__ import annotations

import re
from collections import Counter

from .model import typed_args
from .program import builtin, object_types
from .vocab import (
    BUILTIN_STREAMS, C_TYPES, DEFAULT_POOL, KINDS, OBJECT_FLAGS, PREFIXES, PRIORITIES, RELATIONS, RUNS_N, STREAM_KINDS,
    UNARY_RELATIONS,
)


def c_string(s):
    """A C string literal: escapes quotes, backslashes, trigraphs and every non-printable or non-ASCII byte."""
    out, prev = [], ""
    for b in s.encode("utf-8"):
        c = chr(b)
        if c in '"\\':
            out.append("\\" + c)
        elif c == "?" and prev == "?":
            out.append("\\?")
        elif 0x20 <= b < 0x7F:
            out.append(c)
        else:
            out.append("\\%03o" % b)
        prev = c
    return '"' + "".join(out) + '"'


def c_comment(s):
    """Text safe inside a /* */ comment: no comment markers, no ??/ (a trigraph that splices lines)."""
    return s.replace("*/", "* /").replace("/*", "/ *").replace("??/", "?\\?/")


# the initial characters of an identifier of internal linkage (a static function) that C tells apart (C11 5.2.4.1)
C_IDENTIFIER_CHARS = 63


def case_functions(rule):
    """The names of a rule's case builders, in case order: case_ and the case's axis values
    (event.wait.orders_later_work.kernel.kernel: case_kernel_kernel), case_only for a rule without axes;
    a control's builder is its case's name and _control.  Values joined with '_' can meet (a_b.c and
    a.b_c; a case's name and another's control), and a long name can outrun C_IDENTIFIER_CHARS: such a
    case is named with its number too (case_a_b_c_4), cut to fit, so that every name stays unique."""
    wanted = []
    for case in rule.cases:
        values = case.id[len(rule.id) + 1:].replace(".", "_")
        wanted.append("case_" + (re.sub(r"[^A-Za-z0-9_]", "_", values) or "only"))
    claims = Counter(wanted) + Counter(w + "_control" for w in wanted)
    names, taken = [], set()
    for i, w in enumerate(wanted, 1):
        name, n = w, 0
        clash = claims[w] > 1 or claims[w + "_control"] > 1 or len(w + "_control") > C_IDENTIFIER_CHARS
        while clash:  # a name of its own: no case's wanted name, nor one given before
            n += 1
            tag = f"_{i}" if n == 1 else f"_{i}_{n}"
            name = w[:C_IDENTIFIER_CHARS - len(tag + "_control")] + tag
            clash = {name, name + "_control"} & (set(claims) | taken)
        names.append(name)
        taken |= {name, name + "_control"}
    return names


def c_stream(s):
    ref = builtin(s)
    if ref is None:
        return "st_" + s
    base, device = ref
    return f"SC_ON_DEVICE({BUILTIN_STREAMS[base]}, {device})" if device else BUILTIN_STREAMS[base]


def c_arg(type_, arg):
    """The C expression of an op's ARG."""
    if type_ == "stream":
        return c_stream(arg)
    if type_ == "device":
        return arg
    if type_ == "node":  # the op that added the node
        return "op_" + arg
    return "SC_DEFAULT_POOL" if (type_, arg) == ("pool", DEFAULT_POOL) else PREFIXES[type_] + arg


def c_create_stream(name, stream):
    n, kind = c_string(name), STREAM_KINDS[stream.kind]
    if stream.green:  # one nonblocking stream of device 0 (checked)
        return f"sc_stream_create_green(p, {n}, {PRIORITIES.get(stream.priority, 'SC_PRIO_NONE')})"
    if (stream.device, stream.count) != (0, 1):
        prio = PRIORITIES.get(stream.priority, "SC_PRIO_NONE")
        return f"sc_stream_create_ex(p, {n}, {kind}, {prio}, {stream.device}, {stream.count})"
    if stream.priority:
        return f"sc_stream_create_prio(p, {n}, {kind}, {PRIORITIES[stream.priority]})"
    return f"sc_stream_create(p, {n}, {kind})"


def c_create_object(name, type_, obj, bits):
    """The call that creates an object; obj is its declaration (None: declared by use), bits its width (words)."""
    n = c_string(name)
    flags = " | ".join(OBJECT_FLAGS[type_][f] for f in obj.flags) if obj else ""
    if type_ == "event":
        return f"sc_event_create_flags(p, {n}, {flags})" if flags else f"sc_event_create(p, {n})"
    if type_ == "pool":
        return f"sc_pool_create(p, {n}, {flags or 0})"
    if type_ == "graph":
        return f"sc_graph_create(p, {n}, {flags})"
    if type_ == "buffer":
        return f"sc_buffer_create(p, {n})"
    if type_ == "context":
        return f"sc_context_create_flags(p, {n}, {flags})" if flags else f"sc_context_create(p, {n})"
    if type_ == "ipc_memory":
        return f"sc_ipc_memory_create_flags(p, {n}, {flags})" if flags else f"sc_ipc_memory_create(p, {n})"
    if flags:
        return f"sc_word_create_preset(p, {n}, {bits}, {flags})"
    return f"sc_word_create(p, {n}, {bits})"


def c_expect(exp):
    subject = "op_" + exp.subject
    if exp.object:
        return f"sc_expect(p, {subject}, {RELATIONS[exp.relation]}, op_{exp.object});"
    if exp.relation == "answers":
        return f"sc_expect_answer(p, {subject}, SC_CODE_{exp.value.upper()});"
    if exp.relation == "gives":
        return f"sc_expect_value(p, {subject}, SC_VALUE_{exp.value.upper()});"
    if exp.relation == RUNS_N:
        return f"sc_expect_runs(p, {subject}, {exp.value});"
    return f"sc_expect_unary(p, {subject}, {UNARY_RELATIONS[exp.relation]});"


def c_body(prog, exp):
    """Straight-line builder calls for one program: declarations, ops, expectation."""
    names = prog.names()
    captured = {exp.subject, exp.object} | {n for n, op in zip(names, prog.ops) if op.thread != "main"}
    uses = prog.uses()
    captured |= {arg for _, _, t, arg in uses if t == "node"}
    used_streams = {s for _, _, s in prog.targets()}
    used_objects = {arg for _, _, t, arg in uses if t in PREFIXES}
    bits = {arg: KINDS[op.kind].bits for _, op, t, arg in uses if t == "word"}
    decls = []
    for s, stream in prog.streams.items():
        call = c_create_stream(s, stream) + ";"
        decls.append(f"sc_stream st_{s} = {call}" if s in used_streams else call)
    types = object_types(prog)[0]
    for type_, prefix in PREFIXES.items():
        for name in (n for n, t in types.items() if t == type_):
            call = c_create_object(name, type_, prog.objects.get(name), bits.get(name)) + ";"
            ctype = C_TYPES.get(type_, type_)
            decls.append(f"sc_{ctype} {prefix}{name} = {call}" if name in used_objects else call)
    ops = [f"sc_thread_process(p, {c_string(t)}, {c_string(proc)});" for t, proc in prog.procs.items()]
    ops += [f"sc_process_env(p, {c_string(proc)}, {c_string(var)}, {c_string(value)});"
            for proc, env in prog.envs.items() for var, value in env]
    for name, op in zip(names, prog.ops):
        kind = KINDS[op.kind]
        args = ["p", c_string(name)] + [c_arg(t, arg) for t, arg in typed_args(name, op)] + list(kind.consts)
        args += [c_stream(op.stream)] if op.stream else []
        call = f"{kind.fn}({', '.join(args)});"
        var = "op_" + name.replace("#", "__")  # an unnamed op's name: its kind, the second record#2
        ops.append(f"sc_op {var} = {call}" if name in captured else call)
        if op.thread != "main":
            ops.append(f"sc_in_thread(p, {var}, {c_string(op.thread)});")
    return {"decls": decls, "ops": ops, "expect": c_expect(exp)}
