"""Read runtime/ops.def, the op table the runtime and the generator share: one SC_OP row per op kind.

    rows = read_ops_def(text, path)      {KIND: row}, in the table's order; OpsTableError naming path:line
    rows = ops_def()                     the same of ROOT/runtime/ops.def, read once

A row is SC_OP(KIND, column(value), ...): KIND, then a cell per column of COLUMNS, in that order,
each named by its column, then, only where set, cells of the runtime's own columns (FLAGS_WHERE_SET,
WORDS_WHERE_SET; any order, each at most once).  A row's facts are a dict: column -> value, the flags
as 0 or 1, 'line' its line.  runtime/ops.def's header says what each column means; ops.h and ops.c
read the same rows as C.
"""
import os
import re

from .paths import ROOT

OPS_DEF = os.path.join(ROOT, "runtime", "ops.def")
OPS_DEF_DISPLAY = "runtime/ops.def"  # how messages name it
COLUMNS = ("name", "builder", "role", "arg", "data", "slot", "probe", "stamp", "group", "observable", "proc",
           "devices", "driver_only", "isolate", "runtime_only", "answers")
FLAGS = ("slot", "probe", "stamp", "group", "observable", "proc", "driver_only", "isolate", "runtime_only", "answers")
# the columns named only where they are 1 (omitted: 0)
FLAGS_WHERE_SET = ("spins", "holds", "records", "kernel_gates", "begins_capture", "node", "default_pool", "allocates",
                   "from_buffer", "reads_buffer", "word_wait", "host_body", "ends_thread", "makes_context",
                   "keeps_no_context", "enters_context", "error_state", "replays", "status", "primary", "secondary")
# ... and those whose value is a word, named only where it is not NONE
WORDS_WHERE_SET = {"names": ("NODE", "BUFFER", "GRAPH", "GRAPHS", "WORD", "WORDS", "EDGE")}
WORDS = {"role": ("WORK", "HOST", "QUERY"), "arg": ("NONE", "STREAM", "EVENT", "DEVICE"),
         "data": ("NONE", "COPY", "MEMSET", "PEER", "FILL")}
ROW = re.compile(r"SC_OP\((.*)\)\s*$")
CELL = re.compile(r"^([a-z_]+)\((.*)\)$")
KIND = re.compile(r"^[A-Z][A-Z0-9_]*$")
BUILDER = re.compile(r"^sc_[a-z0-9_]+$")


class OpsTableError(ValueError):
    """An op table that cannot be read, or two tables that disagree; str() is 'file:line: what'."""


def _cells(line, path, n):
    """The row's KIND, its cells of COLUMNS in order, and its cells of the columns named only where set."""
    def fail(msg):
        raise OpsTableError(f"{path}:{n}: {msg}")

    m = ROW.match(line)
    if not m:
        fail(f"not a row: {line.strip()}")
    kind, *rest = (c.strip() for c in m.group(1).split(","))
    if not KIND.match(kind):
        fail(f"the first cell must be the KIND, not {kind}")
    cells, own = [], {}
    for c in rest:
        named = CELL.match(c)
        if not named:
            fail(f"cell {c}: want column(value)")
        col, value = named.group(1), named.group(2).strip()
        if col in FLAGS_WHERE_SET or col in WORDS_WHERE_SET:
            if col in own:
                fail(f"{col} named twice")
            own[col] = value
        elif col not in COLUMNS:
            fail(f"{col}(...): no such column (ops.def's header lists them)")
        else:
            if len(cells) < len(COLUMNS) and col != COLUMNS[len(cells)]:
                fail(f"the cell {col}(...) stands where {COLUMNS[len(cells)]}(...) belongs")
            cells.append(value)
    if len(cells) != len(COLUMNS):
        fail(f"{len(cells)} columns, want {len(COLUMNS)} ({', '.join(COLUMNS)})")
    return kind, dict(zip(COLUMNS, cells)), own


def read_ops_def(text, path=OPS_DEF_DISPLAY):
    rows = {}
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("SC_OP"):
            continue

        def fail(msg):
            raise OpsTableError(f"{path}:{n}: {msg}")

        kind, row, own = _cells(line, path, n)
        if kind in rows:
            fail(f"{kind} has a row already (line {rows[kind]['line']})")
        if not (row["name"].startswith('"') and row["name"].endswith('"')):
            fail(f"name {row['name']} is not a string")
        row["name"] = row["name"][1:-1]
        if not BUILDER.match(row["builder"]):
            fail(f"builder {row['builder']}: want a streamcts.h call, sc_...")
        for col, allowed in WORDS.items():
            if row[col] not in allowed:
                fail(f"{col} {row[col]}: not one of {', '.join(allowed)}")
        for col in FLAGS + ("devices",):
            if not row[col].isdigit() or (col in FLAGS and row[col] not in ("0", "1")):
                fail(f"{col} {row[col]}: want {'0 or 1' if col in FLAGS else 'a number'}")
            row[col] = int(row[col])
        for col in FLAGS_WHERE_SET:
            if own.get(col, "1") != "1":
                fail(f"{col}({own[col]}): name it only where it is 1")
            row[col] = int(col in own)
        for col, allowed in WORDS_WHERE_SET.items():
            if own.get(col, allowed[0]) not in allowed:
                fail(f"{col} {own[col]}: not one of {', '.join(allowed)}")
            row[col] = own.get(col, "NONE")
        row["line"] = n
        rows[kind] = row
    builders = {}
    for kind, row in rows.items():
        if row["builder"] in builders:
            raise OpsTableError(f"{path}:{row['line']}: {kind}: builder {row['builder']} is "
                                f"{builders[row['builder']]}'s too")
        builders[row["builder"]] = kind
    return rows


_ROWS = None


def ops_def():
    """The rows of ROOT/runtime/ops.def (read once)."""
    global _ROWS
    if _ROWS is None:
        try:
            with open(OPS_DEF, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            raise OpsTableError(f"{OPS_DEF_DISPLAY}: cannot read it: {e.strerror}") from None
        _ROWS = read_ops_def(text)
    return _ROWS
