"""streamcts: the generator's modules; gen/streamcts_gen.py runs load -> render -> write.

    paths.py      where the generator's files are; how outputs name a directory
    opsdef.py     runtime/ops.def, the op table the runtime and the generator share -> its rows
    levels.py     runtime/program/levels.def, the level table (MUST, DE-FACTO, SHOULD, MAY) -> its rows
    vocab.py      the words of spec/*.rules: op kinds (ops.def's rows, spelt), relations, codes, limits
    model.py      what a row becomes: Program, Op, Expect, Case, Rule; Bad, a row's problem
    table.py      a rules file -> rows
    program.py    a case's streams, objects, threads and program cells -> Program
    check.py      the checks of a Program
    expect.py     the expect cell -> Expect, and its checks against the Program
    order.py      what issue order alone decides of an Expect: impossible, untested, kept by stream order
    control.py    the control cell's edits -> the negative-control Program, and what each edit changed
    emit_c.py     a checked Program -> the C builder calls of a case; a rule's cases -> their builders' names
    cases.py      a row -> Rule: its axes expanded into cases, each compiled with the five above
    load.py       a spec dir -> every rule, checked across files (families, unique ids)
    render.py     rules -> file contents, through templates/*.j2
    write.py      file contents -> the out dir, only what changed; inputs.sha256

Each module imports only modules above it in this list.
"""
