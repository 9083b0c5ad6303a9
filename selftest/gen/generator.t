#!/usr/bin/env python3
"""The generator self-tests (test_generator.py, test_meaning.py) as TAP version 13, for prove.

prove runs 'perl generator.t'; perl hands a script whose #! line names another
interpreter over to it.  Like gen/run, this uses the first of python3,
/usr/bin/python3 that can import jinja2, re-executing itself when needed.
"""
import os
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CANDIDATES = ("python3", "/usr/bin/python3")
REEXEC = "STREAMCTS_GENERATOR_T_REEXEC"


def ensure_jinja2():
    try:
        import jinja2  # noqa: F401
        return
    except ImportError:
        pass
    if not os.environ.get(REEXEC):
        for cand in CANDIDATES:
            exe = shutil.which(cand)
            if exe and subprocess.run([exe, "-c", "import jinja2"], capture_output=True).returncode == 0:
                os.environ[REEXEC] = "1"
                os.execv(exe, [exe, os.path.abspath(__file__)] + sys.argv[1:])
    print("TAP version 13")
    print("Bail out! no Python 3 with Jinja2 found (tried %s)" % ", ".join(CANDIDATES))
    sys.exit(1)


class TapResult(unittest.TestResult):
    """Prints one TAP point per test as it ends; failures carry a YAML block."""

    def __init__(self):
        super().__init__()
        self.points = 0

    def point(self, ok, test, directive="", details=None):
        self.points += 1
        name = f"{type(test).__name__}.{test._testMethodName}" if hasattr(test, "_testMethodName") else str(test)
        print(f"{'ok' if ok else 'not ok'} {self.points} - {name}{directive}")
        if details:
            print("  ---\n  message: |")
            for line in details.rstrip("\n").split("\n"):
                print("    " + line)
            print("  ...")
        sys.stdout.flush()

    def addSuccess(self, test):
        super().addSuccess(test)
        self.point(True, test)

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self.point(False, test, details=self._exc_info_to_string(err, test))

    def addError(self, test, err):
        super().addError(test, err)
        self.point(False, test, details=self._exc_info_to_string(err, test))

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        self.point(True, test, f" # SKIP {reason}")

    def addExpectedFailure(self, test, err):
        super().addExpectedFailure(test, err)
        self.point(True, test, " # TODO expected failure")

    def addUnexpectedSuccess(self, test):
        super().addUnexpectedSuccess(test)
        self.point(False, test, " # unexpected success")


def main():
    ensure_jinja2()
    sys.dont_write_bytecode = True  # no __pycache__ in the source tree
    sys.path.insert(0, HERE)
    print("TAP version 13")
    sys.stdout.flush()
    import test_generator
    import test_meaning

    suite = unittest.TestSuite(unittest.defaultTestLoader.loadTestsFromModule(m) for m in (test_generator, test_meaning))
    result = TapResult()
    suite.run(result)
    print(f"1..{result.points}")
    return 0 if result.wasSuccessful() else 1


if __name__ == "__main__":
    sys.exit(main())
