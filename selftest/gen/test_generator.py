#!/usr/bin/env python3
"""Self-tests of the streamcts generator (gen/streamcts_gen.py).

    python3 selftest/gen/test_generator.py [-v]          run the tests
    python3 selftest/gen/test_generator.py --update-golden
                                   rewrite golden/expected/ from golden/*.rules, then run
    prove selftest/gen/generator.t                       the same tests as TAP

bad/NAME/*.rules must make the generator fail (exit 2) with every '# expect: '
line of the fixture in its error output, leaving the out dir untouched; a file
holds the rules of the family it is named after, so most are bad/NAME/x.rules.  golden/*.rules must generate exactly golden/expected/.
Everything runs in temporary directories; the real generated/ is never used.
"""
import contextlib
import dataclasses
import difflib
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from types import SimpleNamespace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.join(ROOT, "gen"))
sys.path.insert(0, HERE)
import streamcts_gen as gen  # noqa: E402
from streamcts.cases import compile_row  # noqa: E402
from streamcts.control import stream_text  # noqa: E402
from streamcts.emit_c import C_IDENTIFIER_CHARS, c_comment, c_string, case_functions  # noqa: E402
from streamcts.program import parse_stream  # noqa: E402
from streamcts.render import ninja_path  # noqa: E402
from streamcts.table import read_table  # noqa: E402
from streamcts.opsdef import COLUMNS, OpsTableError, read_ops_def  # noqa: E402
from streamcts.vocab import CAPTURES_INTO, CONDITIONALS, DEFAULTS, DEVICE_LAUNCHES, GREEN_KINDS, KINDS, NODE_KINDS, SPELLINGS, _kinds  # noqa: E402
from streamcts.write import INPUTS, MARKER  # noqa: E402

BAD = os.path.join(HERE, "bad")
GOLDEN = os.path.join(HERE, "golden")
EXPECTED = os.path.join(GOLDEN, "expected")
CFLAGS = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only", "-I" + os.path.join(ROOT, "runtime", "program")]
NINJA_STUB = """rule cc_program
  command = true
rule link
  command = true
rule link_program
  command = true
rule copy
  command = true
include generated/rules.ninja
"""


def run_gen(*args):
    """Run the generator in this process; returns (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = gen.main(list(args))
    return code, out.getvalue(), err.getvalue()


def tree(d):
    """{relative path: bytes} of every file under d."""
    files = {}
    for top, _, names in os.walk(d):
        for n in names:
            path = os.path.join(top, n)
            with open(path, "rb") as f:
                files[os.path.relpath(path, d).replace(os.sep, "/")] = f.read()
    return files


def golden(d):
    """tree(d) without inputs.sha256, whose digest of the generator changes with every edit of it."""
    files = tree(d)
    files.pop(INPUTS, None)
    return files


def snapshot(d):
    """Files (bytes and mtime) and directories under d."""
    state = {}
    for top, dirs, names in os.walk(d):
        for n in dirs:
            state[os.path.relpath(os.path.join(top, n), d) + "/"] = None
        for n in names:
            path = os.path.join(top, n)
            with open(path, "rb") as f:
                state[os.path.relpath(path, d)] = (f.read(), os.stat(path).st_mtime_ns)
    return state


def mtimes(d):
    return {rel: os.stat(os.path.join(d, rel)).st_mtime_ns for rel in tree(d)}


def fixture_files(entry):
    path = os.path.join(BAD, entry)
    if os.path.isdir(path):
        return [os.path.join(path, f) for f in sorted(os.listdir(path)) if f.endswith(".rules")]
    return [path]


def expected_errors(files):
    found = []
    for f in files:
        with open(f, "rb") as fh:  # a fixture may hold bytes that are not UTF-8
            lines = fh.read().decode("utf-8", errors="replace").split("\n")
        found += [line[len("# expect: "):] for line in lines if line.startswith("# expect: ")]
    return found


class TempDirCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="streamcts-gen-test-")
        self.spec = os.path.join(self.tmp, "spec")
        self.out = os.path.join(self.tmp, "generated")
        os.mkdir(self.spec)

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def gen(self, *extra):
        return run_gen("--spec-dir", self.spec, "--out-dir", self.out, *extra)

    def copy_golden(self):
        for f in sorted(os.listdir(GOLDEN)):
            if f.endswith(".rules"):
                shutil.copy(os.path.join(GOLDEN, f), self.spec)

    def generate_golden(self):
        self.copy_golden()
        code, _, err = self.gen()
        self.assertEqual(code, 0, err)

    def read(self, text):
        """Rows of text written as spec/t.rules, and the table's errors."""
        path = os.path.join(self.spec, "t.rules")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        errors = []
        return read_table(path, "spec/t.rules", errors), errors

    def edit(self, path, old, new):
        with open(path, encoding="utf-8") as f:
            text = f.read()
        self.assertIn(old, text)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text.replace(old, new))


class BadInput(TempDirCase):
    """One test per fixture under bad/, added below the class."""

    def check_bad(self, entry):
        files = fixture_files(entry)
        expected = expected_errors(files)
        self.assertTrue(expected, f"fixture {entry} has no '# expect: ' line")
        for f in files:
            shutil.copy(f, self.spec)
        # An out dir with files of an earlier run: none may change.
        os.makedirs(os.path.join(self.out, "old"))
        for rel, text in (("rules.ninja", "# old\n"), ("catalog.tsv", "case_id\n"),
                          ("old/rule.c", MARKER + "spec/old.rules:2 - do not edit. */\n"), ("hand.c", "int x;\n")):
            with open(os.path.join(self.out, rel), "w") as f:
                f.write(text)
        before = snapshot(self.out)
        for extra in ((), ("--check",)):
            code, out, err = self.gen(*extra)
            self.assertEqual(code, 2, f"{extra}: stdout {out!r} stderr {err!r}")
            for e in expected:
                self.assertIn(e, err)
            lines = err.splitlines()
            self.assertTrue(lines[-1].startswith("streamcts_gen: "), err)
            for line in lines[:-1]:
                self.assertRegex(line, r"^spec/[^:]+\.rules:\d+: \S")
            self.assertEqual(snapshot(self.out), before, "the out dir changed")


for _entry in sorted(os.listdir(BAD)):
    if _entry.endswith(".rules") or os.path.isdir(os.path.join(BAD, _entry)):
        _name = "test_" + _entry.removesuffix(".rules")
        setattr(BadInput, _name, lambda self, entry=_entry: self.check_bad(entry))


class Golden(TempDirCase):
    def test_matches_expected(self):
        self.generate_golden()
        got, want = golden(self.out), tree(EXPECTED)
        self.assertEqual(sorted(got), sorted(want), "generated files differ from golden/expected (--update-golden?)")
        for rel in sorted(want):
            if got[rel] != want[rel]:
                diff = difflib.unified_diff(want[rel].decode().splitlines(), got[rel].decode().splitlines(),
                                            "expected/" + rel, "generated/" + rel, lineterm="")
                self.fail("\n".join(diff))

    def test_programs_carry_the_marker(self):
        programs = [rel for rel in tree(EXPECTED) if rel.endswith(".c")]
        self.assertTrue(programs)
        for rel, data in tree(EXPECTED).items():
            if rel.endswith(".c"):
                self.assertTrue(data.startswith(MARKER.encode()), rel)

    def test_programs_name_their_digest(self):
        """.digest is the sha256 of the file with the digest written as @DIGEST@: anyone can check it."""
        for rel, data in tree(EXPECTED).items():
            if not rel.endswith(".c"):
                continue
            text = data.decode()
            m = re.search(r'\.digest = "([0-9a-f]{16})"', text)
            self.assertTrue(m, rel)
            blank = text.replace(m.group(0), '.digest = "@DIGEST@"', 1)
            self.assertEqual(hashlib.sha256(blank.encode()).hexdigest()[:16], m.group(1), rel)

    @unittest.skipUnless(shutil.which("gcc"), "no gcc")
    def test_expected_programs_compile(self):
        programs = sorted(os.path.join(EXPECTED, rel) for rel in tree(EXPECTED) if rel.endswith(".c"))
        self.assertTrue(programs)
        r = subprocess.run(["gcc", *CFLAGS, *programs], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    @unittest.skipUnless(shutil.which("ninja"), "no ninja")
    def test_rules_ninja_parses(self):
        self.generate_golden()
        with open(os.path.join(self.tmp, "build.ninja"), "w") as f:
            f.write(NINJA_STUB)
        r = subprocess.run(["ninja", "-t", "targets", "all"], cwd=self.tmp, capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        targets = dict(line.rsplit(": ", 1) for line in r.stdout.splitlines())
        self.assertEqual(targets["suite"], "phony")
        # the edge that makes generated/ is build.ninja's: its outputs and inputs are not listed here
        self.assertEqual(targets["build/obj/default_stream/legacy/waits_for_blocking.o"], "cc_program")
        # a rule program links the shared runtime; the hosts link the archives
        self.assertEqual(targets["tap/default_stream/legacy/waits_for_blocking.t"], "link_program")
        self.assertEqual(targets["build/host-legacy"], "link")
        self.assertFalse([t for t in targets if t.startswith("generated/")])
        self.assertEqual(targets["tap/default_stream/legacy/waits_for_blocking.ptds.t"], "link_program")
        self.assertEqual(targets["tap/modes/default_stream/null/is_legacy.t"], "link_program")
        self.assertNotIn("tap/modes/default_stream/null/is_legacy.ptds.t", targets)
        self.assertNotIn("tap/modes/default_stream/null/is_per_thread.t", targets)

    def test_deterministic(self):
        """Two runs in fresh processes with different hash seeds give identical bytes."""
        self.copy_golden()
        trees = []
        for seed in ("0", "4242"):
            out = os.path.join(self.tmp, "run" + seed, "generated")
            env = dict(os.environ, PYTHONHASHSEED=seed)
            r = subprocess.run([sys.executable, os.path.join(ROOT, "gen", "streamcts_gen.py"), "--spec-dir", self.spec,
                                "--out-dir", out], env=env, capture_output=True, text=True)
            self.assertEqual(r.returncode, 0, r.stderr)
            trees.append(tree(out))
        self.assertEqual(trees[0], trees[1])
        trees[0].pop(INPUTS)
        self.assertEqual(trees[0], tree(EXPECTED))

    def test_writes_only_what_changed(self):
        self.generate_golden()
        for rel in tree(self.out):
            os.utime(os.path.join(self.out, rel), ns=(10**18, 10**18))
        before = mtimes(self.out)
        code, out, err = self.gen()
        self.assertEqual((code, out, err), (0, "", ""))
        self.assertEqual(mtimes(self.out), before)
        self.edit(os.path.join(self.spec, "sync.rules"), "waits for all work of the context", "waits for everything")
        code, out, err = self.gen()
        self.assertEqual(code, 0, err)
        after = mtimes(self.out)
        self.assertEqual(sorted(rel for rel in before if after[rel] != before[rel]), ["inputs.sha256", "sync/ctx/blocks.c"])

    def test_check(self):
        self.generate_golden()
        code, out, err = self.gen("--check")
        self.assertEqual((code, out, err), (0, "", ""))
        self.edit(os.path.join(self.out, "sync/ctx/blocks.c"), "SC_BLOCKS_UNTIL", "SC_AFTER")
        os.remove(os.path.join(self.out, "events/wait/orders_streams.c"))
        with open(os.path.join(self.out, "gone.c"), "w") as f:
            f.write(MARKER + "spec/gone.rules:2 - do not edit. */\n")
        with open(os.path.join(self.out, "hand.c"), "w") as f:
            f.write("int hand;\n")
        before = snapshot(self.out)
        code, out, err = self.gen("--check")
        self.assertEqual(code, 1)
        self.assertEqual(err.splitlines(), ["missing: generated/events/wait/orders_streams.c",
                                            "stale: generated/sync/ctx/blocks.c", "extra: generated/gone.c"])
        self.assertEqual(snapshot(self.out), before, "--check wrote something")
        code, _, err = self.gen()
        self.assertEqual(code, 0, err)
        self.assertEqual(self.gen("--check")[0], 0)
        self.assertTrue(os.path.exists(os.path.join(self.out, "hand.c")))

    def test_removes_stale_programs(self):
        self.generate_golden()
        os.makedirs(os.path.join(self.out, "old", "deeper"))
        with open(os.path.join(self.out, "old", "deeper", "rule.c"), "w") as f:
            f.write(MARKER + "spec/old.rules:2 - do not edit. */\n")
        with open(os.path.join(self.out, "old", "hand.c"), "w") as f:
            f.write("/* written by hand */\n")
        os.remove(os.path.join(self.spec, "sync.rules"))
        code, out, err = self.gen()
        self.assertEqual(code, 0, err)
        files = tree(self.out)
        self.assertNotIn("sync/ctx/blocks.c", files)
        self.assertFalse(os.path.exists(os.path.join(self.out, "sync")))
        self.assertFalse(os.path.exists(os.path.join(self.out, "old", "deeper")))
        self.assertIn("old/hand.c", files)
        self.assertNotIn(b"sync.ctx.blocks", files["catalog.tsv"])
        self.assertNotIn(b"sync/ctx/blocks", files["rules.ninja"])

    def test_gen_run(self):
        run = os.path.join(ROOT, "gen", "run")
        self.assertTrue(os.access(run, os.X_OK), "gen/run is not executable")
        self.copy_golden()
        r = subprocess.run([run, "--spec-dir", self.spec, "--out-dir", self.out], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(golden(self.out), tree(EXPECTED))
        r = subprocess.run([run, "--spec-dir", self.spec, "--out-dir", self.out, "--check"], capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_inputs_listing_is_what_sha256sum_prints(self):
        """gen/run checks generated/inputs.sha256 without Python: its sha256sum must print it byte for byte."""
        self.generate_golden()
        os.symlink(os.path.join(ROOT, "gen"), os.path.join(self.tmp, "gen"))
        os.symlink(os.path.join(ROOT, "runtime"), os.path.join(self.tmp, "runtime"))  # ops.def, the op table
        with open(os.path.join(ROOT, "gen", "run")) as f:
            command = re.search(r"sha256sum gen/[^)]*", f.read()).group(0)
        self.assertIn("gen/streamcts/*.py", command)
        r = subprocess.run(["sh", "-c", command],
                           cwd=self.tmp, env=dict(os.environ, LC_ALL="C"), capture_output=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(os.path.join(self.out, INPUTS), "rb") as f:
            self.assertEqual(f.read(), r.stdout)


class GenRunWithoutJinja2(TempDirCase):
    """gen/run where no Python has Jinja2 (STREAMCTS_PYTHON names none), in a copy of the repository's
    gen/ with the golden rules as its spec/: the committed generated/ is built only if made from these files."""

    def setUp(self):
        super().setUp()
        self.root = os.path.join(self.tmp, "root")
        shutil.copytree(os.path.join(ROOT, "gen"), os.path.join(self.root, "gen"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(GOLDEN, os.path.join(self.root, "spec"), ignore=shutil.ignore_patterns("expected"))
        os.makedirs(os.path.join(self.root, "runtime", "program"))  # the op and level tables the generator reads
        shutil.copy(os.path.join(ROOT, "runtime", "ops.def"), os.path.join(self.root, "runtime"))
        shutil.copy(os.path.join(ROOT, "runtime", "program", "levels.def"), os.path.join(self.root, "runtime", "program"))
        r = subprocess.run([os.path.join(self.root, "gen", "run")], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.generated = os.path.join(self.root, "generated")
        self.before = snapshot(self.generated)

    def run_gen(self, *args):
        env = dict(os.environ, STREAMCTS_PYTHON=os.path.join(self.tmp, "no", "python3"))
        return subprocess.run([os.path.join(self.root, "gen", "run"), *args], cwd=self.root, env=env,
                              capture_output=True, text=True)

    def test_unchanged_inputs_build_the_committed_generated(self):
        r = self.run_gen("--depfile", "build/gen.d")
        self.assertEqual((r.returncode, r.stdout, r.stderr), (0, "", ""))
        self.assertEqual(snapshot(self.generated), self.before)
        with open(os.path.join(self.root, "build", "gen.d")) as f:
            deps = f.read().replace("\\\n", "").split()
        self.assertEqual(deps[0], "generated/rules.ninja:")
        for dep in ("spec", "spec/sync.rules", "gen/run", "gen/streamcts_gen.py", "gen/streamcts",
                    "gen/streamcts/vocab.py", "gen/templates", "gen/templates/program.c.j2"):
            self.assertIn(dep, deps)

    def test_changed_inputs_fail_naming_them(self):
        self.edit(os.path.join(self.root, "spec", "sync.rules"), "waits for all work of the context", "waits")
        os.remove(os.path.join(self.root, "spec", "events.rules"))
        shutil.copy(os.path.join(GOLDEN, "events.rules"), os.path.join(self.root, "spec", "new.rules"))
        with open(os.path.join(self.root, "gen", "templates", "catalog.tsv.j2"), "a") as f:
            f.write("{# an edit #}\n")
        with open(os.path.join(self.root, "gen", "streamcts", "vocab.py"), "a") as f:
            f.write("# an edit\n")
        r = self.run_gen("--depfile", "build/gen.d")
        self.assertEqual(r.returncode, 1, r.stderr)
        for line in ("gen/run:   changed: gen/streamcts/vocab.py", "gen/run:   changed: gen/templates/catalog.tsv.j2",
                     "gen/run:   new:     spec/new.rules", "gen/run:   changed: spec/sync.rules",
                     "gen/run:   removed: spec/events.rules"):
            self.assertIn(line + "\n", r.stderr)
        self.assertIn("apt-get install python3-jinja2", r.stderr)
        self.assertEqual(snapshot(self.generated), self.before)
        self.assertFalse(os.path.exists(os.path.join(self.root, "build", "gen.d")))

    def test_missing_record_fails(self):
        os.remove(os.path.join(self.generated, INPUTS))
        r = self.run_gen()
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("generated/inputs.sha256 is missing", r.stderr)

    def test_a_python_without_jinja2_is_passed_over(self):
        """The generator exits NO_JINJA2 under a Python without Jinja2; gen/run tries the next one, and with
        none left takes the path above."""
        fake = os.path.join(self.tmp, "python-without-site")
        with open(fake, "w") as f:
            f.write(f"#!/bin/sh\nexec {sys.executable} -S -E \"$@\"\n")
        os.chmod(fake, 0o755)
        if subprocess.run([fake, "-c", "import jinja2"], capture_output=True).returncode == 0:
            self.skipTest("jinja2 is importable without site-packages")
        r = subprocess.run([fake, os.path.join(self.root, "gen", "streamcts_gen.py")], capture_output=True)
        self.assertEqual(r.returncode, gen.NO_JINJA2, r.stderr)
        env = dict(os.environ, STREAMCTS_PYTHON=fake)
        r = subprocess.run([os.path.join(self.root, "gen", "run")], cwd=self.root, env=env, capture_output=True,
                           text=True)
        self.assertEqual((r.returncode, r.stderr), (0, ""))
        self.edit(os.path.join(self.root, "spec", "sync.rules"), "waits for all work of the context", "waits")
        r = subprocess.run([os.path.join(self.root, "gen", "run")], cwd=self.root, env=env, capture_output=True,
                           text=True)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("gen/run:   changed: spec/sync.rules\n", r.stderr)
        self.assertEqual(snapshot(self.generated), self.before)

    def test_anything_else_needs_python(self):
        r = self.run_gen("--check")
        self.assertEqual(r.returncode, 1)
        self.assertIn("no Python 3 with Jinja2 found", r.stderr)


class Units(TempDirCase):
    def test_ninja_escape(self):
        self.assertEqual(ninja_path("spec/my rules:1$.rules"), "spec/my$ rules$:1$$.rules")

    @unittest.skipUnless(shutil.which("gcc"), "no gcc")
    def test_c_string_round_trip(self):
        texts = ['plain', 'quote " backslash \\ end\\', 'trigraphs ??= ??/ ??? ?', 'tab\tnew\nline \x01',
                 'non-ASCII \u00a7 \u2013 \U0001f600', 'octal then digit \u00e91']
        src = os.path.join(self.tmp, "s.c")
        with open(src, "w") as f:
            f.write("#include <stdio.h>\nint main(void)\n{\n")
            f.writelines(f"    fputs({c_string(t)}, stdout);\n    putchar(0);\n" for t in texts)
            f.write("    return 0;\n}\n")
        exe = os.path.join(self.tmp, "s")
        r = subprocess.run(["gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", exe, src], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        out = subprocess.run([exe], capture_output=True, check=True).stdout
        self.assertEqual(out.split(b"\0")[:-1], [t.encode() for t in texts])

    def test_comment_escape(self):
        self.assertEqual(c_comment("a */ b /* c ??/"), "a * / b / * c ?\\?/")

    def test_rows_span_lines_and_skip_comments(self):
        rows, errors = self.read(
            "# comment\n\n  # indented comment\nid | level | program | expect\n  | control | source | rule\n"
            "a.b\n\t| MUST\n  # inside the row\n  | gate on s;\n    A: kernel on s | B after A | s=nonblocking | Src\n"
            "  | A rule that   spans\n  lines.\nc.d | SHOULD | p | e | c | s | r\n")
        self.assertEqual(errors, [])
        self.assertEqual([(r.line, r.cells["id"]) for r in rows], [(6, "a.b"), (13, "c.d")])
        self.assertEqual(rows[0].cells["program"], "gate on s; A: kernel on s")
        self.assertEqual(rows[0].cells["rule"], "A rule that spans lines.")
        self.assertEqual({k: rows[0].cells[k] for k in DEFAULTS}, DEFAULTS)

    def test_axes_expand_in_order(self):
        rows, errors = self.read(
            "id | level | axes | streams | threads | program | expect | control | source | rule\n"
            "x.y | MUST | a=kernel,memset; th=t1,t2 | s=nonblocking | t1, t2\n"
            "  | gate on s; A: kernel on s; B: {a} on s in {th} | B after A | B on legacy | S | R.\n")
        self.assertEqual(errors, [])
        rule, errs = compile_row(rows[0])
        self.assertEqual(errs, [])
        self.assertEqual([c.id for c in rule.cases], ["x.y.kernel.t1", "x.y.kernel.t2", "x.y.memset.t1", "x.y.memset.t2"])
        self.assertEqual(rule.axes, ["a", "th"])
        self.assertEqual(rule.cells["program"], "gate on s; A: kernel on s; B: {a} on s in {th}")
        self.assertIn('sc_op op_B = sc_memset(p, "B", st_s);', rule.cases[3].build["ops"])
        self.assertIn('sc_in_thread(p, op_B, "t2");', rule.cases[3].build["ops"])
        self.assertEqual(case_functions(rule), ["case_kernel_t1", "case_kernel_t2", "case_memset_t1", "case_memset_t2"])

    def test_case_builders_named_alike_are_numbered(self):
        """A case's builder is named by its axis values; where two would share a name (or one's is another's
        control's), or a name is too long for C to tell apart, the case's number makes it unique."""
        def names(*suffixes):  # only the ids matter
            return case_functions(SimpleNamespace(id="x.y", cases=[SimpleNamespace(id="x.y" + s) for s in suffixes]))

        self.assertEqual(names(""), ["case_only"])
        self.assertEqual(names(".a_b.c", ".a.b_c", ".d.e"), ["case_a_b_c_1", "case_a_b_c_2", "case_d_e"])
        self.assertEqual(names(".a", ".a_control"), ["case_a_1", "case_a_control_2"])
        # a number is not given where another case's name is already that
        self.assertEqual(names(".a_b.c", ".a.b_c", ".a_b_c.1"), ["case_a_b_c_1_2", "case_a_b_c_2", "case_a_b_c_1"])
        long = names("." + "v" * 60, ".w")
        self.assertEqual(long, ["case_" + "v" * 48 + "_1", "case_w"])
        self.assertLessEqual(len(long[0] + "_control"), C_IDENTIFIER_CHARS)

    def test_controls_say_what_each_edit_changed(self):
        program = "gate on s; A: kernel on s; record E on s; W: wait E on t; B: kernel on t | B after A"
        controls = ["drop W", "W on s", "W in t1", "W: kernel on t", "insert kernel on t before W",
                    "insert V: wait E on s before W, drop W",
                    "E=event disable_timing, t=blocking priority=greatest device=1 count=2, drop W"]
        rows, errors = self.read(
            "id | level | streams | objects | threads | program | expect | control | source | rule\n"
            + "".join(f"x.c{i} | MUST | s=nonblocking, t=nonblocking | E=event | t1 | {program} | {c} | S | R.\n"
                      for i, c in enumerate(controls)))
        self.assertEqual(errors, [])
        self.assertEqual([compile_row(r)[0].cases[0].changes for r in rows], [
            ("W dropped",),
            ("W moved to stream s",),
            ("W moved to thread t1",),
            ("W replaced by kernel on t",),
            ("kernel on t inserted before W",),
            ("wait E on s inserted before W as V", "W dropped"),
            ("E redeclared event disable_timing (was event)",
             "t redeclared blocking priority=greatest device=1 count=2 (was nonblocking)", "W dropped"),
        ])

    def test_a_stream_is_written_as_it_is_declared(self):
        for text in ("blocking", "nonblocking priority=least", "blocking device=1 count=4", "nonblocking green"):
            self.assertEqual(stream_text(parse_stream(text)), text)
        self.assertEqual(stream_text(parse_stream("nonblocking count=4 priority=greatest")),
                         "nonblocking priority=greatest count=4")


    def test_null_is_legacy_only_in_legacy_mode(self):
        row = "| t=nonblocking | t1 | gate on legacy; A: kernel on null in t1; B: kernel on legacy | B after A | B on t | S | R.\n"
        rows, errors = self.read("id | level | mode | streams | threads | program | expect | control | source | rule\n"
                                 "x.y | MUST | legacy " + row + "x.z | MUST | per-thread " + row)
        self.assertEqual(errors, [])
        self.assertEqual([compile_row(r)[1] for r in rows], [[], [
            "expectation object 'A' is not held: no gate (gate, host_gate, value_gate or graph_launch of a gate graph) "
            "precedes it on stream null in thread t1"]])

    def test_rule_apis_and_isolation_count_the_control(self):
        rows, errors = self.read(
            "id | level | streams | program | expect | control | source | rule\n"
            "x.a | MUST | s=nonblocking | gate on s; A: kernel on s; B: kernel on s | B after A | B on legacy | S | R.\n"
            "x.b | MUST | s=nonblocking | gate on s; A: kernel on s; B: kernel on s | B after A"
            "  | B: write_value W on legacy | S | R.\n"
            "x.c | MUST | s=nonblocking | gate on s; A: kernel on s; B: kernel on s | B after A"
            "  | insert fault on legacy before B, B on legacy | S | R.\n"
            "x.d | MUST | - | X: stream_create_invalid_flags | X answers invalid_value"
            "  | insert peek_last_error before X | S | R.\n")
        self.assertEqual(errors, [])
        rules = [compile_row(r)[0] for r in rows]
        self.assertEqual([(r.apis, r.isolate) for r in rules],
                         [(("driver", "runtime"), False), (("driver",), False), (("driver", "runtime"), True),
                          (("runtime",), False)])

    def test_rule_devices_count_every_named_device_and_the_control(self):
        rows, errors = self.read(
            "id | level | streams | program | expect | control | source | rule\n"
            "x.a | MUST | s=nonblocking device=0 | X: stream_sync s | X answers success | X: stream_sync legacy@0"
            " | S | R.\n"
            "x.b | MUST | s=nonblocking, d=blocking count=2 device=3 | X: stream_sync s | X answers success"
            " | X: stream_sync legacy | S | R.\n"
            "x.c | MUST | s=nonblocking | X: memcpy_peer on s | X keeps its data | X: memcpy_d2d on s | S | R.\n"
            "x.d | MUST | s=nonblocking | X: memset on s; ctx_sync | X keeps its data | X: memset on per_thread@5"
            " | S | R.\n"
            "x.e | MUST | s=nonblocking | X: device_sync 7 | X answers success | X: stream_sync null@2 | S | R.\n")
        self.assertEqual(errors, [])
        rules = [compile_row(r)[0] for r in rows]
        self.assertEqual([r.devices for r in rules], [1, 4, 2, 6, 8])
        # device=0 and legacy@0 are the defaults, written as before
        self.assertEqual(rules[0].cases[0].build["decls"], ['sc_stream st_s = sc_stream_create(p, "s", SC_NONBLOCKING);'])
        self.assertEqual(rules[0].cases[0].control["ops"], ['sc_op op_X = sc_stream_sync(p, "X", SC_LEGACY_STREAM);'])

    def test_a_call_judged_by_its_return_may_be_unobservable(self):
        """The subject of "returns before" or "blocks until" is judged by when its call returned, so an op
        whose completion cannot be observed (free_async) may be it; as the object or an "after" subject it is
        refused (bad/unobservable_kinds)."""
        rows, errors = self.read(
            "id | level | streams | objects | program | expect | control | source | rule\n"
            "x.a | DE-FACTO | s=nonblocking | P=pool"
            " | alloc_from M P on s; gate on s; A: fill M on s; X: free_async M on s | X returns before A"
            " | X: stream_sync s | S | R.\n"
            "x.b | DE-FACTO | s=nonblocking | P=pool"
            " | gate on s; A: kernel on s; X: alloc_from M P on s | X blocks until A | X: stream_sync s | S | R.\n"
            "x.c | MUST | s=nonblocking, t=nonblocking | P=pool"
            " | gate on s; A: kernel on s; X: alloc_from M P on s | X after A | X on t | S | R.\n")
        self.assertEqual(errors, [])
        self.assertEqual([compile_row(r)[1] for r in rows],
                         [[], [], ["op 'X' is an alloc_from, whose completion cannot be observed"]])

    def test_unary_expectations_need_no_gate(self):
        rows, errors = self.read("id | level | program | expect | control | source | rule\n"
                                 "x.a | MUST | X: event_create_ipc_timed | X answers invalid_value"
                                 " | X: event_create_ipc | S | R.\n")
        self.assertEqual(errors, [])
        rule, errs = compile_row(rows[0])
        self.assertEqual(errs, [])
        self.assertEqual(rule.cases[0].build["expect"], "sc_expect_answer(p, op_X, SC_CODE_INVALID_VALUE);")

    @unittest.skipUnless(shutil.which("gcc"), "no gcc")
    def test_every_kind_compiles(self):
        """Every op kind, with ARGs of every type, becomes C that compiles against streamcts.h."""
        args = {"stream": "s", "event": "E", "buffer": "M", "pool": "P", "graph": "G", "device": "1", "context": "C"}
        captured = ("capture_keep", "graph_replay")  # their graph is K, declared captured
        def op(k, kind):
            return " ".join([k] + [f"W{kind.bits}" if t == "word" else "K" if (t, k in captured) == ("graph", True)
                                   else args[t] for t in kind.args] + ["on s"] * kind.on
                            + ["in t"] * (k == "thread_exit"))  # the last op of its thread, not main
        ordered = sorted(KINDS.items(), key=lambda item: item[0].endswith("_destroy"))
        nodes = ("edge", "instantiate", "instantiate_upload", "exec_update", "exec_destroy") + NODE_KINDS  # N
        nodes += ("instantiate_checked", "instantiate_auto_free")  # rows of their own (N once each)
        nodes += ("node_disable", "node_enable", "exec_set_params")  # edits of N's executable graph
        nodes += CAPTURES_INTO  # captures into N and D, after N's nodes
        captures = {"capture_to": "capture_to s D; capture_end s",
                    "capture_to_after": "capture_to_after s N n_node_gate; capture_end s",
                    "capture_to_relaxed": "capture_to_relaxed s D; capture_end s",
                    "capture_end_graph": "capture_to s D; capture_end_graph s D"}
        self.assertEqual(set(captures), set(CAPTURES_INTO))
        ops = [op(k, kind) for k, kind in ordered if not kind.runtime_only and k not in nodes and k not in GREEN_KINDS]
        rows = [ops[i:i + 30] for i in range(0, len(ops), 30)]  # no API has both a driver-only and a runtime-only kind
        # each row writes its words first: a wait on a word that no op before it writes is refused
        # (bad/word_never_written)
        rows = [["write_value W32 on s", "write_value64 W64 on s"] + row for row in rows]
        rows.append([op(k, kind) for k, kind in ordered if kind.runtime_only])
        # named node ops of N (a child: D), an edge between two, then N made executable, updated, destroyed
        rows.append([f"n_{k}: {k} N" + (" E" if "event" in KINDS[k].args else " D" if k == "node_child"
                                        else " M" if "buffer" in KINDS[k].args  # node_memset_alloc
                                        else " n_node_alloc" if k == "node_free"  # what node_alloc made
                                        else " D" * (len(KINDS[k].args) - 1) if k in CONDITIONALS else "")
                     for k in NODE_KINDS if k not in DEVICE_LAUNCHES]
                    + ["edge n_node_gate n_node_kernel"]
                    + list(captures.values())
                    + ["instantiate N", "node_disable n_node_kernel", "node_enable n_node_kernel",
                       "exec_set_params n_node_kernel n_node_gate", "exec_update N D", "exec_destroy N",
                       "instantiate_upload D s"])
        rows += [["instantiate_checked N"], ["instantiate_auto_free N"]]
        # device launches: D, launched from a node of N, in each mode (a row each: one node may launch D)
        rows += [["kd: node_kernel D", f"x_{k}: {k} N D", "instantiate N", "graph_replay N on s"]
                 for k in sorted(DEVICE_LAUNCHES)]
        # the calls on a green context: a row of their own, whose program declares a green stream g
        green = [op(k, kind) for k, kind in ordered if k in GREEN_KINDS]
        rows.append(green)
        with open(os.path.join(self.spec, "x.rules"), "w", encoding="utf-8") as f:
            f.write("id | level | streams | objects | threads | program | expect | control | source | rule\n")
            for i, row in enumerate(rows):
                f.write(f"x.kinds{i} | MUST | s=nonblocking priority=least{', g=nonblocking green' if row is green else ''}"
                        " | P=pool keep_memory, G=graph kernel, C=context, K=graph captured, N=graph nodes, D=graph nodes,"
                        " E=event"  # a row may wait on E before (or without) a record of it
                        " | t"
                        f" | alloc_async M on s; {'; '.join(row)}; X: ctx_sync"
                        " | X answers success | X: stream_sync legacy | S | R.\n")
        code, _, err = self.gen()
        self.assertEqual(code, 0, err)
        programs = sorted(os.path.join(self.out, rel) for rel in tree(self.out) if rel.endswith(".c"))
        r = subprocess.run(["gcc", *CFLAGS, *programs], capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)


class OpsTable(unittest.TestCase):
    """runtime/ops.def is the one op table: the generator reads its facts, and names the KIND that one of
    ops.def and vocab.py's SPELLINGS has and the other lacks."""

    def setUp(self):
        with open(os.path.join(ROOT, "runtime", "ops.def")) as f:
            self.text = f.read()

    def edited(self, kind, column, value):
        """ops.def with one cell of KIND's row replaced (column: one of COLUMNS)."""
        lines = self.text.splitlines()
        at = next(i for i, line in enumerate(lines) if line.startswith(f"SC_OP({kind},"))
        cells = lines[at][len("SC_OP("):-1].split(",")
        cells[1 + COLUMNS.index(column)] = f" {column}({value})"
        lines[at] = "SC_OP(" + ",".join(cells) + ")"
        return "\n".join(lines)

    def line_of(self, kind):
        return self.text[: self.text.index(f"SC_OP({kind},")].count("\n") + 1

    def test_every_row_is_read(self):
        self.assertEqual(len(read_ops_def(self.text)), self.text.count("\nSC_OP("))

    def test_every_kind_has_its_rows_facts(self):
        rows = read_ops_def(self.text)
        for name, k in KINDS.items():
            row = rows[k.row]
            with self.subTest(kind=name):
                self.assertEqual((k.role, k.on, k.observable, k.group, k.devices, k.isolate),
                                 (row["role"].lower(), row["role"] == "WORK", bool(row["observable"]),
                                  bool(row["group"]), row["devices"], bool(row["isolate"])))
                self.assertIn(k.fn, (row["builder"], "sc_memset", "sc_read_batch"))  # Spelling.fn: the two other builders

    def test_a_fact_changed_in_ops_def_reaches_the_generator(self):
        for kind, column, value, spelling, fact, want in (
            ("WAIT", "observable", "1", "wait", "observable", True),
            ("EVENT_QUERY", "role", "HOST", "event_query", "role", "host"),
            ("FILL", "data", "COPY", "fill", "data", "transfer"),
            ("CTX", "driver_only", "0", "ctx_pop", "driver_only", False),
            ("MEMCPY_PEER", "devices", "1", "memcpy_peer", "devices", 1),
        ):
            with self.subTest(kind=kind, column=column):
                kinds = _kinds(read_ops_def(self.edited(kind, column, value)), SPELLINGS)
                self.assertEqual(getattr(kinds[spelling], fact), want)

    def test_a_kind_in_one_table_only_is_named_by_file_and_line(self):
        extra = self.text + 'SC_OP(NEW_KIND, name("new"), builder(sc_new), role(WORK), arg(NONE), data(NONE), ' \
            "slot(0), probe(0), stamp(0), group(0), observable(1), proc(0), devices(1), driver_only(0), isolate(0), " \
            "runtime_only(0), answers(0))\n"
        line = extra.count("\n")
        with self.assertRaisesRegex(OpsTableError, rf"^runtime/ops.def:{line}: NEW_KIND has no spelling"):
            _kinds(read_ops_def(extra), SPELLINGS)
        lacking = "\n".join(line for line in self.text.splitlines() if not line.startswith("SC_OP(FILL,"))
        with open(os.path.join(ROOT, "gen", "streamcts", "vocab.py")) as f:
            at = next(n for n, line in enumerate(f, 1) if line.startswith('    "FILL": '))
        with self.assertRaisesRegex(OpsTableError, rf"^gen/streamcts/vocab.py:{at}: SPELLINGS names FILL, which "
                                                   r"runtime/ops.def has no row of"):
            _kinds(read_ops_def(lacking), SPELLINGS)

    def test_a_malformed_row_is_named_by_line(self):
        line = self.line_of("KERNEL")
        with self.assertRaisesRegex(OpsTableError, rf"^runtime/ops.def:{line}: cell extra: want column\(value\)"):
            read_ops_def(self.text.replace("SC_OP(KERNEL,", "SC_OP(KERNEL, extra,", 1))
        with self.assertRaisesRegex(OpsTableError, rf"^runtime/ops.def:{line}: role WROK: not one of WORK, HOST, QUERY"):
            read_ops_def(self.edited("KERNEL", "role", "WROK"))
        with self.assertRaisesRegex(OpsTableError, rf"^runtime/ops.def:{line}: the cell probe\(...\) stands where "
                                                   r"slot\(...\) belongs"):
            read_ops_def(self.edited("KERNEL", "slot", "0").replace("slot(0), probe(0)", "probe(0), slot(0)", 1))
        with self.assertRaisesRegex(OpsTableError, rf"^runtime/ops.def:{line}: spins\(0\): name it only where it is 1"):
            read_ops_def(self.text.replace("SC_OP(KERNEL,", "SC_OP(KERNEL, spins(0),", 1))

    def test_gen_run_stops_on_a_table_it_cannot_read(self):
        """A bad ops.def stops the generator with its file:line, exit 2, before anything is written."""
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(ROOT, "gen"), os.path.join(tmp, "gen"))
            os.makedirs(os.path.join(tmp, "runtime", "program"))
            shutil.copy(os.path.join(ROOT, "runtime", "program", "levels.def"), os.path.join(tmp, "runtime", "program"))
            with open(os.path.join(tmp, "runtime", "ops.def"), "w") as f:
                f.write(self.text.replace("SC_OP(KERNEL,", "SC_OP(KERNEL, extra,", 1))
            out = os.path.join(tmp, "generated")
            r = subprocess.run([sys.executable, os.path.join(tmp, "gen", "streamcts_gen.py"),
                                "--spec-dir", os.path.join(ROOT, "spec"), "--out-dir", out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"runtime/ops.def:{self.line_of('KERNEL')}: cell extra", r.stderr)
            self.assertFalse(os.path.exists(out))

    def test_gen_run_stops_on_a_level_table_it_cannot_read(self):
        """A bad levels.def stops the generator with its file:line, exit 2, before anything is written."""
        with open(os.path.join(ROOT, "runtime", "program", "levels.def")) as f:
            levels = f.read()
        line = 1 + levels[:levels.index("SC_RULE_LEVEL(SHOULD,")].count("\n")
        with tempfile.TemporaryDirectory() as tmp:
            shutil.copytree(os.path.join(ROOT, "gen"), os.path.join(tmp, "gen"))
            os.makedirs(os.path.join(tmp, "runtime", "program"))
            shutil.copy(os.path.join(ROOT, "runtime", "ops.def"), os.path.join(tmp, "runtime"))
            with open(os.path.join(tmp, "runtime", "program", "levels.def"), "w") as f:
                f.write(levels.replace('SC_RULE_LEVEL(SHOULD, "SHOULD",', 'SC_RULE_LEVEL(SHOULD, "should",', 1))
            out = os.path.join(tmp, "generated")
            r = subprocess.run([sys.executable, os.path.join(tmp, "gen", "streamcts_gen.py"),
                                "--spec-dir", os.path.join(ROOT, "spec"), "--out-dir", out],
                               capture_output=True, text=True)
            self.assertEqual(r.returncode, 2, r.stderr)
            self.assertIn(f"runtime/program/levels.def:{line}: not a row of the level table", r.stderr)
            self.assertFalse(os.path.exists(out))


def update_golden():
    with tempfile.TemporaryDirectory() as tmp:
        spec = os.path.join(tmp, "spec")
        shutil.copytree(GOLDEN, spec, ignore=shutil.ignore_patterns("expected"))
        code, _, err = run_gen("--spec-dir", spec, "--out-dir", os.path.join(tmp, "generated"))
        if code:
            sys.exit(err)
        shutil.rmtree(EXPECTED, ignore_errors=True)
        shutil.copytree(os.path.join(tmp, "generated"), EXPECTED, ignore=shutil.ignore_patterns(INPUTS))
    print(f"updated {os.path.relpath(EXPECTED, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    if "--update-golden" in sys.argv:
        sys.argv.remove("--update-golden")
        update_golden()
    unittest.main()
