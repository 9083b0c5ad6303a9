"""Read runtime/program/levels.def, the level table the runtime, the generator and the tools share: one
SC_RULE_LEVEL row per level a rule row may name.

    levels = read_levels_def(text, path)   {name: "SC_ID"}, in the table's order; OpsTableError naming path:line
    levels = levels_def()                  the same of ROOT/runtime/program/levels.def, read once

levels.def's header says what each column means; streamcts.h and report.c read the same rows as C.
"""
import os
import re

from .opsdef import OpsTableError
from .paths import ROOT

LEVELS_DEF = os.path.join(ROOT, "runtime", "program", "levels.def")
LEVELS_DEF_DISPLAY = "runtime/program/levels.def"  # how messages name it
ROW = re.compile(r'^SC_RULE_LEVEL\(([A-Z][A-Z_]*), "([A-Z][A-Z-]*)", ([A-Z][A-Z_]*), "([^"]+)"\)\s*$')


def read_levels_def(text, path=LEVELS_DEF_DISPLAY):
    levels = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("SC_RULE_LEVEL"):
            continue
        m = ROW.match(line)
        if not m:
            raise OpsTableError(f"{path}:{n}: not a row of the level table: {line.strip()}")
        ident, name = m.group(1), m.group(2)
        if name in levels:
            raise OpsTableError(f"{path}:{n}: level {name} twice")
        levels[name] = "SC_" + ident
    if not levels:
        raise OpsTableError(f"{path}: no rows in the level table")
    return levels


_levels = None


def levels_def():
    global _levels
    if _levels is None:
        try:
            with open(LEVELS_DEF, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise OpsTableError(f"{LEVELS_DEF_DISPLAY}: cannot read the level table: {e.strerror}") from None
        _levels = read_levels_def(text)
    return _levels
