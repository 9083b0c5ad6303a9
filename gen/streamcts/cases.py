"""Expand and check one row: compile_row(row) -> (Rule or None, [message]).

The axes cell expands the row into cases; compile_case substitutes each case's cells, parses and
checks its program, expectation and negative control, and emits their C bodies.
"""
from __future__ import annotations

import itertools
import re

from .check import check_program, check_waits, check_word_waits
from .control import apply_control
from .emit_c import c_body
from .expect import check_expect, parse_expect
from .model import Bad, Case, Rule, near, one_of
from .order import check_control_order, check_order
from .program import builtin, parse_program
from .vocab import (
    AXIS_VALUE, KINDS, LEVELS, LOWER_NAME, MAX_REPEAT, MODES, NEEDS, PLACEHOLDER, RULE_ID, SUBSTITUTED,
    UNSUBSTITUTED,
)


def parse_axes(text):
    """'a=v1,v2; b=w' -> [("a", ["v1", "v2"]), ("b", ["w"])]."""
    if text == "-":
        return []
    axes = []
    for part in text.split(";"):
        m = re.fullmatch(r"\s*([^=]*?)\s*=\s*(.*?)\s*", part)
        if not m or not LOWER_NAME.fullmatch(m.group(1)):
            raise Bad(f"malformed axes: '{part.strip()}' is not name=value,value,...")
        name, values = m.group(1), [v.strip() for v in m.group(2).split(",")]
        for v in values:
            if not AXIS_VALUE.fullmatch(v):
                raise Bad(f"malformed axes: value '{v}' of axis '{name}' is not [a-z0-9_]+")
        if len(set(values)) != len(values):
            raise Bad(f"malformed axes: axis '{name}' repeats a value")
        if name in dict(axes):
            raise Bad(f"malformed axes: axis '{name}' declared twice")
        axes.append((name, values))
    return axes


def check_placeholders(cells, axis_names):
    """Every {placeholder} names an axis and stands where it is replaced."""
    errs = []
    for col in SUBSTITUTED:
        for m in PLACEHOLDER.finditer(cells[col]):
            if m.group(1) not in axis_names:
                guess = near(m.group(1), axis_names)
                hint = f" (did you mean {one_of('{' + a + '}' for a in guess)}?)" if guess else ""
                errs.append(f"unknown placeholder {{{m.group(1)}}} in column '{col}'{hint}")
        if re.search(r"[{}]", PLACEHOLDER.sub("", cells[col])):
            errs.append(f"malformed placeholder in column '{col}': unbalanced brace")
    for col in UNSUBSTITUTED:
        if re.search(r"[{}]", cells[col]):
            errs.append(f"placeholders are only replaced in {', '.join(SUBSTITUTED)}; found one in column '{col}'")
    return errs


def unused_axes(cells, axis_names):
    """Every axis is used; one whose name a cell writes without braces is named there."""
    used = {m.group(1) for col in SUBSTITUTED for m in PLACEHOLDER.finditer(cells[col])}
    errs = []
    for a in axis_names:
        bare = [col for col in SUBSTITUTED if re.search(rf"\b{a}\b", PLACEHOLDER.sub("", cells[col]))]
        hint = f" (column '{bare[0]}' writes '{a}' without braces: write {{{a}}})" if bare else ""
        errs += [f"axis '{a}' declared but unused{hint}"] if a not in used else []
    return errs


def devices(prog):
    """The GPUs a program needs: 1 + the highest device it names, and at least what its kinds need."""
    refs = [builtin(s) for _, _, s in prog.targets()]
    named = [stream.device for stream in prog.streams.values()] + [ref[1] for ref in refs if ref]
    named += [int(arg) for _, _, t, arg in prog.uses() if t == "device"]
    return max([d + 1 for d in named] + [KINDS[op.kind].devices for op in prog.ops] + [1])


def compile_case(case_id, cell, level, modes):
    """One case from its substituted cells -> (Case or None, [message])."""
    errs, exp = [], None
    try:
        exp = parse_expect(cell["expect"])
    except Bad as e:
        errs.append(str(e))
    if exp and exp.relation == "not held by" and level == "MUST":
        errs.append(
            "'not held by' cannot be MUST: concurrency between streams is not guaranteed (use DE-FACTO or SHOULD)"
        )
    if cell["program"] == "-":
        return None, errs + ["the program has no operations"]
    try:
        prog = parse_program(cell)
    except Bad as e:
        return None, errs + list(e.args)
    # the control may drop a record or a write: the waits are checked in the case's program only
    prog_errs = check_program(prog) + check_waits(prog) + check_word_waits(prog)
    if exp and not prog_errs:
        prog_errs = check_expect(prog, exp, modes) or check_order(prog, exp, modes)
    if prog_errs:  # the control would only repeat them
        return None, errs + prog_errs
    try:
        ctl, changes = apply_control(prog, cell["control"])
    except Bad as e:
        return None, errs + [str(e)]
    ctl_errs = ["control: " + m for m in check_program(ctl)]
    if exp and not ctl_errs:
        ctl_errs = ["control: " + m for m in check_expect(ctl, exp, modes) or check_control_order(ctl, exp, modes)]
    if ctl == prog:
        ctl_errs.append(f"control '{cell['control']}' changes nothing")
    errs += ctl_errs
    if errs:
        return None, errs
    kinds = frozenset(op.kind for op in prog.ops + ctl.ops)
    procs = max(len(prog.processes()), len(ctl.processes()))
    needs = frozenset(k for k in NEEDS for pr in (prog, ctl) for st in pr.streams.values() if getattr(st, k))
    return Case(case_id, c_body(prog, exp), c_body(ctl, exp), kinds, max(devices(prog), devices(ctl)), procs,
                needs, tuple(changes)), []


def compile_row(row):
    """Row -> (Rule or None, [message]); the rule is None when any message was given."""
    c = row.cells
    errs = []
    if not RULE_ID.fullmatch(c["id"]):
        errs.append(f"malformed rule id '{c['id']}' (want [a-z0-9_]+(.[a-z0-9_]+)+)")
    if c["level"] not in LEVELS:
        errs.append(f"unknown level '{c['level']}' (want {', '.join(list(LEVELS)[:-1])} or {list(LEVELS)[-1]})")
    if c["mode"] not in MODES:
        errs.append(f"unknown mode '{c['mode']}' (want both, legacy, per-thread or mps)")
    errs += [f"missing {col}: '-' is not allowed in column '{col}'" for col in ("source", "rule") if c[col] == "-"]
    if not re.fullmatch(r"[1-9][0-9]*", c["repeat"]) or int(c["repeat"]) > MAX_REPEAT:
        errs.append(f"malformed repeat '{c['repeat']}' (want a count from 1 to {MAX_REPEAT})")
    try:
        axes = parse_axes(c["axes"])
    except Bad as e:
        return None, errs + [str(e)]
    axis_names = [a for a, _ in axes]
    placeholder_errs = check_placeholders(c, axis_names)
    if placeholder_errs:
        return None, errs + placeholder_errs + unused_axes(c, axis_names)
    # the cases are still compiled: an op misspelt where the axis was meant to stand is named too
    errs += unused_axes(c, axis_names)

    cases, failing = [], {}  # failing: message -> ids of the cases that gave it
    for values in itertools.product(*(v for _, v in axes)):
        case_id = ".".join((c["id"],) + values)
        subst = dict(zip(axis_names, values))
        cell = {col: PLACEHOLDER.sub(lambda m: subst[m.group(1)], c[col]) for col in SUBSTITUTED}
        case, case_errs = compile_case(case_id, cell, c["level"], MODES.get(c["mode"], ()))
        cases += [case] if case else []
        for m in case_errs:
            failing.setdefault(m, []).append(case_id)
    for m, ids in failing.items():
        more = f" (and {len(ids) - 1} more case{'s' if len(ids) > 2 else ''})" if len(ids) > 1 else ""
        errs.append(f"case {ids[0]}: {m}{more}" if axes else m)
    if not errs and c["mode"] == "mps" and max(case.processes for case in cases) < 2:
        errs.append("mode 'mps' runs the cases as clients of an MPS server: the program needs threads in other "
                    "processes (t@p)")
    if errs:
        return None, errs
    return Rule(c["id"], c["level"], MODES[c["mode"]], c, axis_names, f"{row.path}:{row.line}", cases), []
