"""ops_table.py - the runtime's op table (runtime/ops.def) against the generator's (gen/streamcts/vocab.py).

    rows = read_ops_def(text, path)            ops.def's SC_OP rows; ValueError naming path:line
    disagreements(rows, KINDS, PROCESS_KINDS, SLOT_KINDS) -> [message]    [] when they agree

A row is SC_OP(KIND, column(value), ...): KIND, then a cell per column of COLUMNS, in that order,
each named by its column, then, only where set, cells of the runtime's own columns (RUNTIME_FLAGS,
RUNTIME_WORDS; any order, each at most once).  A cell of COLUMNS may also be a bare value, read as the column of its
place (as C reads a value after a designated initializer: the next field); its name, where it has one,
must be its place's.

Each generator Kind names the builder (Kind.fn) that records it; the row of ops.def with that
builder is its runtime kind.  One row may stand for several Kinds (memcpy_h2d_pinned,
memcpy2d_d2d ... are all MEMCPY_ASYNC); every fact both tables hold must then agree for each.
Used by test_generator.py (OpsTable), which also shows that a disagreement is caught.
"""
import re

COLUMNS = ("kind", "name", "builder", "role", "arg", "data", "slot", "probe", "stamp", "group", "observable", "proc",
           "devices", "driver_only", "isolate", "runtime_only", "answers")
FLAGS = ("slot", "probe", "stamp", "group", "observable", "proc", "driver_only", "isolate", "runtime_only", "answers")
# the runtime's own facts (ops.def's header says what each means), 1 where a row names them
RUNTIME_FLAGS = ("spins", "holds", "records", "kernel_gates", "begins_capture", "node", "default_pool", "allocates",
                 "from_buffer", "reads_buffer", "word_wait", "host_body", "ends_thread", "makes_context",
                 "keeps_no_context", "enters_context", "error_state", "replays", "status")
# ... and those whose value is a word (omitted: NONE)
RUNTIME_WORDS = {"names": ("NODE", "BUFFER", "GRAPH", "GRAPHS", "WORD", "WORDS", "EDGE")}
ROLES, ARGS, DATA = ("WORK", "HOST", "QUERY"), ("NONE", "STREAM", "EVENT", "DEVICE"), ("NONE", "COPY", "MEMSET", "PEER", "FILL")
# streamcts.h builders that record the kind of another builder: sc_memset(p, n, s) is sc_memset_to(p, n, SC_MEM_DEVICE, s).
ALIASES = {"sc_memset": "sc_memset_to"}
ROW = re.compile(r"SC_OP\((.*)\)\s*$")
CELL = re.compile(r"^([a-z_]+)\((.*)\)$")
KIND = re.compile(r"^[A-Z][A-Z0-9_]*$")


def _cells(line, path, n):
    """The row's cells: [(column or None, value)], the runtime's own columns apart."""
    m = ROW.match(line)
    if not line.startswith("SC_OP(") or not m:
        raise ValueError(f"{path}:{n}: not a row: {line.strip()}")
    cells, own = [], {}
    for c in (c.strip() for c in m.group(1).split(",")):
        named = CELL.match(c)
        if named and (named.group(1) in RUNTIME_FLAGS or named.group(1) in RUNTIME_WORDS):
            if named.group(1) in own:
                raise ValueError(f"{path}:{n}: {named.group(1)} named twice")
            own[named.group(1)] = named.group(2).strip()
        else:
            cells.append((named.group(1), named.group(2).strip()) if named else (None, c))
    if len(cells) != len(COLUMNS):
        raise ValueError(f"{path}:{n}: {len(cells)} columns, want {len(COLUMNS)} ({', '.join(COLUMNS)})")
    if cells[0][0] is not None or not KIND.match(cells[0][1]):
        raise ValueError(f"{path}:{n}: the first cell must be the KIND, not {cells[0][1]}")
    for col, (named, _) in zip(COLUMNS, cells):
        if named is not None and named != col:
            raise ValueError(f"{path}:{n}: the cell {named}(...) stands where {col}(...) belongs")
    return [v for _, v in cells], own


def read_ops_def(text, path="runtime/ops.def"):
    rows = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.startswith("SC_OP"):
            continue
        cells, own = _cells(line, path, n)
        row = dict(zip(COLUMNS, cells), line=n)
        if not (row["name"].startswith('"') and row["name"].endswith('"')):
            raise ValueError(f"{path}:{n}: name {row['name']} is not a string")
        row["name"] = row["name"][1:-1]
        for col, allowed in (("role", ROLES), ("arg", ARGS), ("data", DATA)):
            if row[col] not in allowed:
                raise ValueError(f"{path}:{n}: {col} {row[col]}: not one of {', '.join(allowed)}")
        for col in FLAGS + ("devices",):
            if not row[col].isdigit() or (col in FLAGS and row[col] not in "01"):
                raise ValueError(f"{path}:{n}: {col} {row[col]}: want {'0 or 1' if col in FLAGS else 'a number'}")
            row[col] = int(row[col])
        for col in RUNTIME_FLAGS:
            if own.get(col, "1") != "1":
                raise ValueError(f"{path}:{n}: {col}({own[col]}): name it only where it is 1")
            row[col] = int(col in own)
        for col, allowed in RUNTIME_WORDS.items():
            if own.get(col, allowed[0]) not in allowed:
                raise ValueError(f"{path}:{n}: {col} {own[col]}: not one of {', '.join(allowed)}")
            row[col] = own.get(col, "NONE")
        rows.append(row)
    return rows


def _arg(kind):
    """The handle a generator Kind acts on beside the stream it is issued to, in ops.def's words."""
    if kind.on:
        return "EVENT" if "event" in kind.args else "NONE"
    return next((a.upper() for a in kind.args if a in ("stream", "event", "device")), "NONE")


def _bare(name):
    return name[:-len("_sync")] if name.endswith("_sync") else name


def disagreements(rows, kinds, process_kinds, slot_kinds):
    out = []
    by_builder = {r["builder"]: r for r in rows}
    if len(by_builder) != len(rows):
        out.append("ops.def: two rows name the same builder")
    of_row = {r["kind"]: [] for r in rows}
    for name, k in kinds.items():
        row = by_builder.get(ALIASES.get(k.fn, k.fn))
        if row is None:
            out.append(f"vocab.py: {name}: builder {k.fn} has no row in ops.def")
        else:
            of_row[row["kind"]].append(name)
    for r in rows:
        names, where = of_row[r["kind"]], f"ops.def:{r['line']}: {r['kind']}"
        if not names:
            out.append(f"{where}: no Kind of vocab.py is recorded by {r['builder']}")
            continue
        if r["name"] not in names and not all(_bare(n).startswith(_bare(r["name"])) for n in names):
            out.append(f"{where}: name {r['name']!r} is none of, and no prefix of all, {', '.join(names)}")
        want = {
            "role": r["role"].lower(), "arg": r["arg"], "group": bool(r["group"]), "observable": bool(r["observable"]),
            "driver_only": bool(r["driver_only"]), "runtime_only": bool(r["runtime_only"]), "isolate": bool(r["isolate"]),
            "devices": r["devices"],
            "data": {"NONE": None, "FILL": "fill"}.get(r["data"], "transfer"),
        }
        for n in names:
            k = kinds[n]
            got = {
                "role": k.role, "arg": _arg(k), "group": k.group, "observable": k.observable,
                "driver_only": k.driver_only, "runtime_only": k.runtime_only, "isolate": k.isolate, "devices": k.devices,
                "data": k.data,
            }
            for fact in want:
                if got[fact] != want[fact]:
                    out.append(f"{where}: {fact} is {want[fact]!r}, vocab.py's {n} says {got[fact]!r}")
        if bool(r["proc"]) != any(n in process_kinds for n in names):
            out.append(f"{where}: proc is {r['proc']}, but PROCESS_KINDS {'lists none' if r['proc'] else 'lists some'}"
                       f" of {', '.join(names)}")
    for n in sorted(set(process_kinds) - set(kinds)):
        out.append(f"vocab.py: PROCESS_KINDS names {n}, no Kind")
    want_slots = sorted(n for r in rows if r["slot"] and r["proc"] for n in of_row[r["kind"]] if n in process_kinds)
    if sorted(slot_kinds) != want_slots:
        out.append(f"vocab.py: SLOT_KINDS is {', '.join(sorted(slot_kinds))}; ops.def's slot kinds a process may issue:"
                   f" {', '.join(want_slots)}")
    return out
