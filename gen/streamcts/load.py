"""Load a spec directory: load(spec_dir) -> (rules sorted by id, spec files read, error lines).

Reads every *.rules file (table.py), compiles each row (cases.py), and checks what no single row
can: a file holds its own family's rules; rule and case ids are unique across files.
"""
import os
import posixpath

from .cases import compile_row
from .paths import display_dir
from .table import read_table
from .vocab import RULE_ID


def load(spec_dir):
    """Every rule of spec_dir/*.rules, sorted by id, and the spec files read; or the error lines."""
    spec_disp = display_dir(spec_dir)
    files = sorted(
        f for f in os.listdir(spec_dir) if f.endswith(".rules") and os.path.isfile(os.path.join(spec_dir, f))
    )
    rules, errors, first_rule, first_case = [], [], {}, {}
    for f in files:
        disp = posixpath.join(spec_disp, f)
        family = f[: -len(".rules")]
        file_errors = []
        for row in read_table(os.path.join(spec_dir, f), disp, file_errors):
            rule, errs = compile_row(row)
            here = f"{row.path}:{row.line}"
            rid = row.cells["id"]
            if RULE_ID.fullmatch(rid) and rid.split(".")[0] != family:
                errs.append(
                    f"rule id '{rid}' is not of family '{family}': {disp} holds the rules {family}.*, "
                    f"and {rid} belongs in {posixpath.join(spec_disp, rid.split('.')[0] + '.rules')}"
                )
            if RULE_ID.fullmatch(rid) and rid in first_rule:
                errs.append(f"duplicate rule id '{rid}' (first at {first_rule[rid]})")
            elif RULE_ID.fullmatch(rid):
                first_rule[rid] = here
            for case in rule.cases if rule and not errs else []:
                if case.id in first_case:
                    errs.append(f"duplicate case id '{case.id}' (also made by {first_case[case.id]})")
                first_case.setdefault(case.id, here)
            file_errors += [(row.line, m) for m in errs]
            if rule and not errs:
                rules.append(rule)
        errors += [f"{disp}:{line}: {m}" for line, m in sorted(file_errors, key=lambda e: e[0])]
    return sorted(rules, key=lambda r: r.id), [posixpath.join(spec_disp, f) for f in files], errors
