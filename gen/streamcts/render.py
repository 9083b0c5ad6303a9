"""Render rules into file contents: render(rules, out_disp) -> {path in the out dir: bytes} of the
programs (templates/program.c.j2), rules.ninja and catalog.tsv, through Jinja2.

jinja2 is None where this Python cannot import it (streamcts_gen.main then exits NO_JINJA2).
"""
import hashlib
import posixpath
import re
import textwrap

from .emit_c import c_comment, c_string, case_functions
from .paths import TEMPLATE_DIR
from .vocab import APIS, LEVELS, LIBS, NEEDS

try:
    import jinja2
except ImportError:  # streamcts_gen.main() says so with NO_JINJA2, for gen/run to try another Python
    jinja2 = None


def ninja_path(path):
    return re.sub(r"([$ :])", r"$\1", path)


def make_env():
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE_DIR),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        c_string=c_string,
        c_comment=c_comment,
        c_api=APIS.__getitem__,
        c_need=NEEDS.__getitem__,  # sc_rule.needs
        ninja=ninja_path,
        wrap=lambda s, width=74: textwrap.wrap(s, width, break_long_words=False, break_on_hyphens=False),
    )
    return env


def with_digest(text):
    """The program names itself: @DIGEST@ becomes the start of the text's sha256 (sc_rule.digest)."""
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    return text.replace('"@DIGEST@"', f'"{digest}"', 1)


def render(rules, out_disp):
    """{path relative to the out dir: bytes} of everything the generator owns but inputs.sha256."""
    env = make_env()
    out = {}
    program = env.get_template("program.c.j2")
    for rule in rules:
        out[rule.path + ".c"] = with_digest(program.render(rule=rule, levels=LEVELS, functions=case_functions(rule)))

    edges = [
        {
            "id": r.id,
            "obj": f"build/obj/{r.path}.o",
            "src": posixpath.join(out_disp, r.path + ".c"),
            "taps": [(f"tap/{r.path}{suffix}.t", solib) for suffix, solib, _ in (LIBS[m] for m in r.modes)],
            # the shared runtime's directory from the program's, for its rpath
            "libdir": posixpath.relpath("tap/lib", posixpath.dirname(f"tap/{r.path}")),
            # a program of several processes again, under MPS (runtime/suite/mps.h): its first compile mode
            "mps": f"tap/{r.path}.mps.t" if r.processes > 1 else None,
        }
        for r in rules
    ]
    # one host process per compile mode links every program of that mode (runtime/suite/host.h)
    hosts = [
        {
            "path": "build/host-" + (suffix.lstrip(".") or mode),
            "lib": archive,
            "objs": [f"build/obj/{r.path}.o" for r in rules if mode in r.modes],
        }
        for mode, (suffix, _, archive) in LIBS.items()
    ]
    out["rules.ninja"] = env.get_template("rules.ninja.j2").render(
        edges=edges,
        hosts=hosts,
        suite=[tap for e in edges for tap in [t for t, _ in e["taps"]] + ([e["mps"]] if e["mps"] else [])],
    )

    catalog = sorted(
        (case.id, r.id, r.level, ",".join(r.modes), ",".join(r.apis), str(r.devices), r.spec)
        for r in rules for case in r.cases
    )
    out["catalog.tsv"] = env.get_template("catalog.tsv.j2").render(rows=catalog)
    return {path: text.encode("utf-8") for path, text in out.items()}
