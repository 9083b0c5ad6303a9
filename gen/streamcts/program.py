"""The program of one case: parse_program(cells) reads its streams, objects, threads and program
cells into a Program; builtin() and object_types() say what its names refer to.

Each part checks its own syntax and raises Bad; whether the names resolve is check.py's.
"""
from __future__ import annotations

import re

from .model import Bad, Object, Op, Program, Stream, article, near, one_of
from .vocab import (
    BATCH_COPIES, BUILTIN_REF, BUILTIN_STREAMS, BY_USE, COPIES, DEFAULT_POOL, INTEGER, KINDS, LOWER_NAME, MAX_DEVICES, MAX_PROCS,
    NAME, OBJECT_FLAGS, OBJECT_NAME, PREFIXES, PRIORITIES, PROCESS_ENV, SHAPED_COPIES, STREAM_FLAGS, STREAM_KINDS,
    STREAM_RANGES, STREAM_SYNTAX, WAIT_CONDITIONS,
)

COPY_KIND = re.compile(rf"(memcpy(?:2d|3d)?)_(?:{'|'.join(COPIES)})(_sync)?")
WAIT_VALUE_KIND = re.compile(rf"(wait_value(?:64)?)_(?:{'|'.join(WAIT_CONDITIONS)})")


BATCH_KIND = re.compile(rf"(memcpy(?:3d)?_batch(?:_call|_any|_split)?)_(?:{'|'.join(COPIES)})")


def family_of(kind):
    """A spelling's family as the docs name it: memcpy_h2d_pinned is memcpy_COPY, memcpy_batch_call_d2d
    memcpy_batch_call_COPY, wait_value_geq wait_value_C."""
    return WAIT_VALUE_KIND.sub(r"\1_C", COPY_KIND.sub(r"\1_COPY\2", BATCH_KIND.sub(r"\1_COPY", kind)))


def kind_families():
    """The op kinds as docs/design.md lists them: the copies as memcpy_COPY, memcpy_COPY_sync,
    memcpy_batch_COPY, ..., the value waits as wait_value_C, wait_value64_C; every other kind as itself."""
    return list(dict.fromkeys(family_of(k) for k in KINDS))


def unknown_kind(word, text):
    """The message for an op kind that is none of KINDS: the kinds it is a stem of (memcpy: memcpy_COPY,
    ...), else the kinds near it, and the list of kinds."""
    families = kind_families()
    stems = [f for f in families if f.startswith(word + "_")] or [k for k in KINDS if k.startswith(word + "_")]
    guess = stems or near(word, dict.fromkeys(list(KINDS) + families))
    return (
        f"unknown op kind '{word}' in '{text}' ({f'did you mean {one_of(guess)}? ' if guess else ''}the kinds: "
        f"{', '.join(families)}; COPY: {one_of(COPIES)} (memcpy2d_ and memcpy3d_: {one_of(SHAPED_COPIES)}; "
        f"the batches: {one_of(BATCH_COPIES)}, memcpy_batch_call_ h2d_pageable too); "
        f"C: {one_of(WAIT_CONDITIONS)})"
    )


def integer(text, low, high):
    """The integer text writes, when it is one from low to high; else None."""
    return int(text) if INTEGER.fullmatch(text) and low <= int(text) <= high else None


def stream_attribute(name, value):
    """The value of a stream attribute 'name=value', checked."""
    if name == "priority" and value not in PRIORITIES:
        raise Bad(f"unknown priority '{value}' (want {one_of(PRIORITIES)})")
    if name == "priority":
        return value
    low, high = STREAM_RANGES[name]
    n = integer(value, low, high)
    if n is None:
        raise Bad(f"{name} must be an integer from {low} to {high}, not '{value}'")
    return n


def parse_stream(text):
    """'nonblocking priority=greatest count=4' -> Stream; attributes in any order, each at most once."""
    words = text.split()
    if not words or words[0] not in STREAM_KINDS:
        raise Bad(
            f"a stream is blocking or nonblocking, optionally followed by priority=P (P: {one_of(PRIORITIES)}), "
            "device=D, count=N or green"
        )
    attributes = {}
    for word in words[1:]:
        name, eq, value = word.partition("=")
        if not eq and name in STREAM_FLAGS and name not in attributes:  # an attribute without a value
            attributes[name] = True
            continue
        if not eq and name in STREAM_FLAGS or eq and name in attributes:
            raise Bad(f"stream attribute '{name}' given twice")
        if not eq or name not in ("priority", *STREAM_RANGES):
            raise Bad(f"unknown stream attribute '{word}' (want priority=P, device=D, count=N or green)")
        attributes[name] = stream_attribute(name, value)
    return Stream(words[0], **attributes)


def parse_streams(text):
    """'s=blocking, t=nonblocking priority=least' -> {"s": Stream("blocking"), "t": Stream("nonblocking", "least")}."""
    streams = {}
    for decl in [] if text == "-" else (d.strip() for d in text.split(",")):
        m = re.fullmatch(r"([^=\s]*)\s*=\s*(.*)", decl)
        if not m or not LOWER_NAME.fullmatch(m.group(1)):
            raise Bad(f"malformed stream declaration '{decl}' (want name={STREAM_SYNTAX})")
        try:
            stream = parse_stream(m.group(2))
        except Bad as e:
            raise Bad(f"malformed stream declaration '{decl}': {e}") from None
        if m.group(1) in BUILTIN_STREAMS:
            raise Bad(f"stream '{m.group(1)}' is built in; do not declare it")
        if m.group(1) in streams:
            raise Bad(f"stream '{m.group(1)}' declared twice")
        streams[m.group(1)] = stream
    return streams


def parse_object(decl):
    """'E=event disable_timing' -> ("E", Object("event", ("disable_timing",)))."""
    m = re.fullmatch(r"([^=\s]*)\s*=\s*(\S+)((?:\s+\S+)*)", decl)
    if not m or not OBJECT_NAME.fullmatch(m.group(1)):
        raise Bad(f"malformed object declaration '{decl}' (want NAME=TYPE [FLAG ...], NAME as [A-Z][A-Za-z0-9_]*)")
    name, type_, flags = m.group(1), m.group(2), m.group(3).split()
    if type_ not in OBJECT_FLAGS:
        raise Bad(f"unknown object type '{type_}' in '{decl}' (want {one_of(OBJECT_FLAGS)})")
    known = OBJECT_FLAGS[type_]
    for i, f in enumerate(flags):
        if f not in known:
            raise Bad(f"unknown {type_} flag '{f}' in '{decl}' (want {one_of(known)})")
        if f in flags[:i]:
            raise Bad(f"{type_} flag '{f}' repeated in '{decl}'")
    if type_ == "graph" and len(flags) != 1:
        raise Bad(f"graph declaration '{decl}' needs exactly one of {one_of(known)}")
    if type_ == "word" and len(flags) > 1:
        raise Bad(f"word declaration '{decl}' takes at most one of {one_of(known)}")
    return name, Object(type_, tuple(f for f in known if f in flags))


def parse_objects(text):
    """'E=event disable_timing, P=pool' -> {"E": Object(...), "P": Object(...)}."""
    objects = {}
    for decl in [] if text == "-" else (d.strip() for d in text.split(",")):
        name, obj = parse_object(decl)
        if name in objects:
            raise Bad(f"object '{name}' declared twice")
        objects[name] = obj
    return objects


def parse_threads(text):
    """'t1, t2, u1@p1' -> (["t1", "t2", "u1"], {"u1": "p1"}, {}): main is implicit; t@p runs in process p.
    't@p VAR=VALUE' also starts process p with VAR set to VALUE (PROCESS_ENV): -> {"p": (("VAR", "VALUE"),)}."""
    threads, procs, envs = [], {}, {}
    for entry in [] if text == "-" else (t.strip() for t in text.split(",")):
        t, *assignments = entry.split() or [""]
        if "@" in t:
            t, proc = t.split("@", 1)
            if not LOWER_NAME.fullmatch(proc):
                raise Bad(f"malformed process name '{proc}' (want [a-z][a-z0-9_]*)")
            if proc == "main":
                raise Bad(f"thread '{t}@main': a thread of main needs no process")
            procs[t] = proc
        if not LOWER_NAME.fullmatch(t):
            raise Bad(f"malformed thread name '{t}' (want [a-z][a-z0-9_]*)")
        if t == "main":
            raise Bad("thread 'main' is built in; do not declare it")
        if t in threads:
            raise Bad(f"thread '{t}' declared twice")
        threads.append(t)
        for a in assignments:
            var, _, value = a.partition("=")
            if t not in procs:
                raise Bad(f"thread '{t}': '{a}' sets the environment of a process of its own (write {t}@PROCESS {a})")
            if var not in PROCESS_ENV or value not in PROCESS_ENV[var]:
                raise Bad(f"thread '{t}@{procs[t]}': unknown setting '{a}' (want "
                          f"{one_of(f'{v}={x}' for v, xs in PROCESS_ENV.items() for x in xs)})")
            had = dict(envs.get(procs[t], ()))
            if had.get(var, value) != value:
                raise Bad(f"process '{procs[t]}' sets {var} twice: {had[var]} and {value}")
            if had and var not in had:
                raise Bad(f"process '{procs[t]}' takes one setting (runtime/program/prog.h): {next(iter(had))} and {var}")
            had[var] = value
            envs[procs[t]] = tuple(had.items())
    if len(set(procs.values())) + 1 > MAX_PROCS:
        raise Bad(f"{len(set(procs.values())) + 1} processes, the runtime takes at most {MAX_PROCS}")
    return threads, procs, envs


def check_arg(type_, arg, text):
    """An ARG of an op, checked for the form its type takes."""
    if type_ == "device" and integer(arg, 0, MAX_DEVICES - 1) is None:
        raise Bad(f"malformed device '{arg}' in '{text}' (want an integer from 0 to {MAX_DEVICES - 1})")
    if type_ == "node" and re.fullmatch(NAME, arg):  # an op name
        return arg
    if type_ == "node":
        raise Bad(f"malformed op name '{arg}' in '{text}' (want {NAME})")
    if type_ in ("stream", "device") or OBJECT_NAME.fullmatch(arg) or (type_ == "pool" and arg == DEFAULT_POOL):
        return arg
    want = f"{DEFAULT_POOL} or [A-Z][A-Za-z0-9_]*" if type_ == "pool" else "[A-Z][A-Za-z0-9_]*"
    raise Bad(f"malformed {type_} name '{arg}' in '{text}' (want {want})")


def parse_op(text):
    """'[NAME:] KIND [ARG ...] [on STREAM] [in THREAD]' -> Op."""
    name, body = None, text
    m = re.fullmatch(rf"({NAME})\s*:\s*(.*)", text)
    if m:
        name, body = m.groups()
    elif ":" in text:
        raise Bad(f"malformed op name in '{text}' (want {NAME})")
    words = body.split()
    if not words:
        raise Bad("empty operation (stray ';')")
    kind = KINDS.get(words[0])
    if kind is None:
        raise Bad(unknown_kind(words[0], text))
    rest = words[1:]
    args = []
    if not (words[0] == "record" and rest[:1] == ["on"]):  # 'record on S' records an event of its own (typed_args)
        for type_ in kind.args:
            if not rest or rest[0] in ("on", "in"):
                raise Bad(f"op '{text}': {words[0]} needs {' '.join(t.upper() for t in kind.args)}")
            args.append(check_arg(type_, rest.pop(0), text))
    stream = None
    if rest[:1] == ["on"]:
        if not kind.on:
            raise Bad(f"op '{text}': {words[0]} takes no 'on STREAM'")
        if len(rest) < 2:
            raise Bad(f"op '{text}': 'on' needs a stream")
        stream = rest[1]
        del rest[:2]
    elif kind.on:
        raise Bad(f"op '{text}': {words[0]} needs 'on STREAM'")
    thread = "main"
    if rest[:1] == ["in"]:
        if len(rest) < 2:
            raise Bad(f"op '{text}': 'in' needs a thread")
        thread = rest[1]
        del rest[:2]
    if rest:
        raise Bad(f"malformed op '{text}': unexpected '{' '.join(rest)}'")
    return Op(name, words[0], tuple(args), stream, thread)


def parse_program(cell):
    """The substituted cells of one case -> Program; raises Bad with every op problem."""
    threads, procs, envs = parse_threads(cell["threads"])
    prog = Program(parse_streams(cell["streams"]), parse_objects(cell["objects"]), threads, [], procs, envs)
    errs = []
    for text in cell["program"].split(";"):
        try:
            prog.ops.append(parse_op(text.strip()))
        except Bad as e:
            errs.append(str(e))
    if errs:
        raise Bad(*errs)
    return prog


def builtin(stream):
    """'legacy@1' -> ("legacy", 1), 'null' -> ("null", 0): a built-in stream and its device; None for others."""
    m = BUILTIN_REF.fullmatch(stream or "")
    return (m.group(1), int(m.group(2) or 0)) if m else None


def object_types(prog):
    """Every object of a program -> its type (declared ones first, then by first use), and the problems found."""
    types = {name: obj.type for name, obj in prog.objects.items()}
    errs = []
    for name, op, type_, arg in prog.uses():
        if type_ not in PREFIXES or (type_, arg) == ("pool", DEFAULT_POOL):
            continue
        if types.get(arg) == "ipc_memory" and type_ == "buffer":
            if op.kind not in ("fill", "read"):
                errs.append(f"op {name}: '{arg}' is ipc_memory, which only fill writes and read reads")
        elif arg not in types and type_ in BY_USE:
            types[arg] = type_
        elif arg not in types and type_ == "context":
            errs.append(f"op {name}: unknown context '{arg}' (declare it in objects: {arg}=context)")
        elif arg not in types and type_ == "pool":
            errs.append(f"op {name}: unknown pool '{arg}' (want {DEFAULT_POOL} or a pool declared in objects)")
        elif arg not in types:
            errs.append(f"op {name}: unknown graph '{arg}' (declare it in objects: {arg}=graph kernel|gate|captured|nodes)")
        elif types[arg] != type_:
            errs.append(f"op {name}: '{arg}' is {article(types[arg])}, not {article(type_)}")
    return types, errs
