"""The control cell: apply_control(prog, text) -> (the negative-control Program, what each edit changed),
the case's program with the control edits applied in order (declare, drop, insert, on, in, replace);
raises Bad.  What an edit changed is a phrase for the control's comment ("W dropped").
"""
from __future__ import annotations

import re
from dataclasses import replace

from .check import stream_error
from .model import Bad, article
from .program import parse_object, parse_op, parse_stream
from .vocab import KINDS, OBJECT_NAME, STREAM_SYNTAX

CONTROL_EDITS = (
    ("declare", re.compile(r"([^\s=:]+)\s*=\s*(.+)")),
    ("drop", re.compile(r"drop\s+(\S+)")),
    ("insert", re.compile(r"insert\s+(.+?)\s+before\s+(\S+)")),
    ("on", re.compile(r"(\S+)\s+on\s+(\S+)")),
    ("in", re.compile(r"(\S+)\s+in\s+(\S+)")),
    ("replace", re.compile(r"([^\s:]+)\s*:\s*(.+)")),
)


def op_text(op):
    """An op as the program cell writes it, without its name: 'fill M on t in t1'."""
    words = [op.kind, *op.args] + (["on", op.stream] if op.stream else [])
    return " ".join(words + (["in", op.thread] if op.thread != "main" else []))


def stream_text(stream):
    """A stream as the streams cell declares it: 'nonblocking priority=greatest count=4'."""
    words = [stream.kind]
    words += [f"priority={stream.priority}"] if stream.priority else []
    words += [f"device={stream.device}"] if stream.device else []
    words += [f"count={stream.count}"] if stream.count != 1 else []
    return " ".join(words + (["green"] if stream.green else []))


def object_text(obj):
    """An object as the objects cell declares it: 'event disable_timing'."""
    return " ".join((obj.type, *obj.flags))


def redeclare(ctl, edit, name, text):
    """Apply the control edit 'name=text': a stream or an object declared anew; -> what changed."""
    if OBJECT_NAME.fullmatch(name):
        try:
            obj = parse_object(edit)[1]
        except Bad as e:
            raise Bad(f"control edit '{edit}': {e}") from None
        if name not in ctl.objects:
            raise Bad(f"control edit '{edit}': unknown object '{name}' (only declared objects can be redeclared)")
        if obj.type != ctl.objects[name].type:
            raise Bad(f"control edit '{edit}': '{name}' is {article(ctl.objects[name].type)}; its type cannot change")
        was, ctl.objects[name] = ctl.objects[name], obj
        return f"{name} redeclared {object_text(obj)} (was {object_text(was)})"
    if name not in ctl.streams:
        raise Bad(f"control edit '{edit}': unknown stream '{name}' (only declared streams can be redeclared)")
    try:
        was, ctl.streams[name] = ctl.streams[name], parse_stream(text)
    except Bad as e:
        raise Bad(f"malformed control edit '{edit}': {e}") from None
    return f"{name} redeclared {stream_text(ctl.streams[name])} (was {stream_text(was)})"


def apply_control(prog, text):
    """(The program with the control edits applied, in order, [what each edit changed]); raises Bad at the
    first bad edit."""
    ctl, changes = prog.copy(), []
    for edit in [] if text == "-" else (e.strip() for e in text.split(",")):
        what, m = next(((w, r.fullmatch(edit)) for w, r in CONTROL_EDITS if r.fullmatch(edit)), (None, None))
        if m is None:
            raise Bad(
                f"malformed control edit '{edit}' (want s={STREAM_SYNTAX}, E=TYPE [FLAG ...], "
                "drop NAME, NAME on STREAM, NAME in THREAD, NAME: OP or insert OP before NAME)"
            )
        if what == "declare":
            changes.append(redeclare(ctl, edit, *m.groups()))
            continue
        target = m.group(2) if what == "insert" else m.group(1)
        i = ctl.named(target)
        if i is None:
            raise Bad(f"control edit '{edit}': unknown op '{target}'")
        try:
            if what == "drop":
                del ctl.ops[i]
                changes.append(f"{target} dropped")
            elif what == "on":
                if not KINDS[ctl.ops[i].kind].on:
                    raise Bad(f"op '{target}' ({ctl.ops[i].kind}) is not issued on a stream")
                error = stream_error(ctl, m.group(2))
                if error:
                    raise Bad(error)
                ctl.ops[i] = replace(ctl.ops[i], stream=m.group(2))
                changes.append(f"{target} moved to stream {m.group(2)}")
            elif what == "in":
                if m.group(2) != "main" and m.group(2) not in ctl.threads:
                    raise Bad(f"unknown thread '{m.group(2)}'")
                ctl.ops[i] = replace(ctl.ops[i], thread=m.group(2))
                changes.append(f"{target} moved to thread {m.group(2)}")
            elif what == "replace":
                op = parse_op(m.group(2))
                if op.name is not None:
                    raise Bad("the replacement keeps the name; do not name it")
                ctl.ops[i] = replace(op, name=target)
                changes.append(f"{target} replaced by {op_text(op)}")
            else:
                op = parse_op(m.group(1))
                ctl.ops.insert(i, op)
                changes.append(f"{op_text(op)} inserted before {target}" + (f" as {op.name}" if op.name else ""))
        except Bad as e:
            raise Bad(f"control edit '{edit}': {e}") from None
    return ctl, changes
