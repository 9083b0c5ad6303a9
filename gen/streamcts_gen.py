#!/usr/bin/env python3
"""streamcts_gen - the streamcts code generator (docs/design.md, sections 1-3).

Reads every spec/*.rules, validates all rows, and only then writes
generated/<rule id as path>.c, generated/rules.ninja, generated/catalog.tsv and
generated/inputs.sha256.
Run it through gen/run, which finds a Python 3 with Jinja2.

    load      spec/*.rules -> rules with cases, all checked   (streamcts/load.py)
    render    rules -> file contents                         (streamcts/render.py, templates/)
    write     only files whose bytes changed                  (streamcts/write.py)

streamcts/__init__.py says which module of streamcts/ does what.
"""
import argparse
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in gen/streamcts/, a directory ninja watches (gen/run --depfile)

from streamcts.opsdef import OpsTableError  # noqa: E402

try:  # vocab.py reads runtime/ops.def and runtime/program/levels.def, the op and level tables, as it is imported
    from streamcts import render  # noqa: E402
    from streamcts.load import load  # noqa: E402
except OpsTableError as e:
    print(f"{e}\nstreamcts_gen: runtime/ops.def or runtime/program/levels.def cannot be read, or vocab.py spells "
          "other kinds; nothing written",
          file=sys.stderr)
    sys.exit(2)
from streamcts.paths import ROOT, display_dir  # noqa: E402
from streamcts.write import INPUTS, inputs_listing, sync  # noqa: E402

NO_JINJA2 = 3  # the exit status of main() where this Python cannot import jinja2


def main(argv=None):
    if render.jinja2 is None:
        return NO_JINJA2
    ap = argparse.ArgumentParser(prog="gen/run", description="Generate streamcts programs from spec/*.rules.")
    ap.add_argument("--spec-dir", default=os.path.join(ROOT, "spec"), help="rule tables (default: spec)")
    ap.add_argument("--out-dir", default=os.path.join(ROOT, "generated"), help="output (default: generated)")
    ap.add_argument("--check", action="store_true", help="write nothing; exit 1 when out-dir is stale")
    args = ap.parse_args(argv)
    if not os.path.isdir(args.spec_dir):
        print(f"streamcts_gen: --spec-dir {args.spec_dir}: no such directory", file=sys.stderr)
        return 2
    rules, spec_files, errors = load(args.spec_dir)
    if errors:
        for e in errors:
            print(e, file=sys.stderr)
        print(f"streamcts_gen: {len(errors)} error(s); {display_dir(args.out_dir)} left untouched", file=sys.stderr)
        return 2
    out_disp = display_dir(args.out_dir)
    outputs = render.render(rules, out_disp)
    outputs[INPUTS] = inputs_listing(args.spec_dir, spec_files).encode()
    return sync(args.out_dir, outputs, args.check, out_disp)


if __name__ == "__main__":
    sys.exit(main())
