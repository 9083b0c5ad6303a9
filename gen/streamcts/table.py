"""Parse a rules file into rows: read_table(path, display, errors) -> [Row], defaults filled in.

The table syntax only (header, '|' cells, continuation lines, comments); problems go to errors as
(line, message), and what the cells say is read by cases.py.
"""
from __future__ import annotations

from dataclasses import dataclass

from .vocab import COLUMNS, DEFAULTS, REQUIRED


@dataclass
class Row:
    path: str   # display path, "spec/x.rules"
    line: int   # its first physical line
    cells: dict


def read_text(path, errors):
    """The text of a rules file: UTF-8 without a byte order mark; else None, with the line of each problem."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        errors.append((1, f"cannot read: {e.strerror}"))
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        errors.append((1, "the file starts with a UTF-8 byte order mark; save it as UTF-8 without one"))
        return None
    bad = []
    for n, raw in enumerate(data.split(b"\n"), 1):  # no UTF-8 sequence holds the byte \n
        try:
            raw.decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append((n, f"not UTF-8: byte 0x{raw[e.start]:02x} at byte {e.start + 1} of the line"))
    errors.extend(bad)
    return None if bad else data.decode("utf-8")


def read_table(path, display, errors):
    """Rows of one rules file, defaults filled in; problems go to errors as (line, message)."""
    text = read_text(path, errors)
    if text is None:
        return []
    logical = []  # [first line, joined text]
    for n, raw in enumerate(text.replace("\r\n", "\n").split("\n"), 1):
        if raw == "" or raw.lstrip().startswith("#"):
            continue
        if raw.isspace():
            errors.append((n, "line has only whitespace (a blank line must be empty)"))
        elif raw[0].isspace() and logical:
            logical[-1][1] += " " + raw
        else:
            if raw[0].isspace():  # reported, then read as the row it was meant to start
                errors.append((n, "continuation line (it starts with whitespace) without a row above it"))
            logical.append([n, raw])
    if not logical:
        errors.append((1, "no header row"))
        return []

    hline, htext = logical[0]
    columns = [" ".join(c.split()) for c in htext.split("|")]
    bad = [(hline, f"unknown column '{c}'") for c in columns if c not in COLUMNS]
    bad += [(hline, f"duplicate column '{c}'") for i, c in enumerate(columns) if c in columns[:i]]
    bad += [(hline, f"missing required column '{c}'") for c in REQUIRED if c not in columns]
    if bad:
        errors.extend(bad)
        return []

    rows = []
    for line, text in logical[1:]:
        cells = [" ".join(c.split()) for c in text.split("|")]
        if len(cells) != len(columns):
            errors.append((line, f"malformed row: {len(cells)} cells, the header has {len(columns)} columns"))
            continue
        empty = [(line, f"empty cell in column '{c}' (write '-' for nothing)") for c, v in zip(columns, cells) if not v]
        if empty:
            errors.extend(empty)
            continue
        rows.append(Row(display, line, {**DEFAULTS, **dict(zip(columns, cells))}))
    return rows
