#!/usr/bin/env python3
"""Self-tests of the generator's checks of what a row means, beside test_generator.py's of how it is
spelt and what it emits: the rows these checks must accept.  The rows they refuse are fixtures,
selftest/gen/bad/*, run by test_generator.py.

    python3 selftest/gen/test_meaning.py [-v]     run these tests
    prove selftest/gen/generator.t                these and test_generator.py's, as TAP
"""
import os
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from test_generator import TempDirCase, compile_row  # noqa: E402  (it puts gen/ on the path)
from streamcts.vocab import KINDS, WORD_ROLES  # noqa: E402


class Waits(TempDirCase):
    def test_wait_on_an_event_never_recorded_needs_a_declaration(self):
        """A wait on an event the program never records is an error (bad/wait_never_recorded) unless the
        objects column declares the event; a control that drops the record is checked no further."""
        rows, errors = self.read(
            "id | level | streams | objects | program | expect | control | source | rule\n"
            "x.declared | DE-FACTO | s=nonblocking, t=nonblocking | E=event"
            " | gate on s; A: kernel on s; W: wait E on t; B: kernel on t | B not held by A"
            " | insert record E on s before W | S | R.\n"
            "x.dropped | MUST | s=nonblocking, t=nonblocking | -"
            " | gate on s; A: kernel on s; R: record E on s; wait E on t; B: kernel on t | B after A | drop R | S | R.\n"
            "x.later | SHOULD | s=nonblocking, t=nonblocking | -"
            " | gate on s; A: kernel on s; wait E on t; B: kernel on t; R: record E on s | B not held by A"
            " | R on t | S | R.\n")
        self.assertEqual(errors, [])
        self.assertEqual([compile_row(r)[1] for r in rows], [[], [], []])

    def test_wait_on_a_word_needs_a_write_before_it_or_a_declaration(self):
        """A wait on a word that no op before it writes is an error (bad/word_never_written) unless the
        objects column declares the word; a control that drops the write is checked no further."""
        rows, errors = self.read(
            "id | level | streams | objects | program | expect | control | source | rule\n"
            "x.written | MUST | s=nonblocking, t=nonblocking | - | gate on s; A: kernel on s; R: write_value V on s;"
            " W: wait_value_geq V on t; B: kernel on t | B after A | drop R | S | R.\n"
            "x.declared | MUST | s=nonblocking | V=word geq_ahead_wrap | W: wait_value_geq V on s; R: record E on s;"
            " gate on s; A: kernel on s; write_value V on s; Q: event_query E | Q ready while A | W: gate on s"
            " | S | R.\n"
            "x.batch | MUST | s=nonblocking, t=nonblocking | - | gate on s; A: kernel on s; write_value V on s;"
            " B: batch_wait_write V U on t | B after A | B: write_value U on t | S | R.\n")
        self.assertEqual(errors, [])
        self.assertEqual([compile_row(r)[1] for r in rows], [[], [], []])

    def test_every_word_op_says_what_it_does_to_its_words(self):
        """WORD_ROLES names, for every kind with WORD ARGs, whether each is waited on or written."""
        for k, kind in KINDS.items():
            words = [t for t in kind.args if t == "word"]
            self.assertEqual(len(WORD_ROLES.get(k, ())), len(words), k)


class IssueOrder(TempDirCase):
    def test_issue_order_refuses_only_what_it_decides(self):
        """order.py refuses an expectation that issue order alone makes impossible or leaves untested
        (bad/order_never, bad/order_untested) and a control it keeps (bad/control_order); these it cannot
        decide, or decides as a case or control should, are accepted: stream order tested (x.fifo), a control
        that can never keep the relation (x.control_never), streams the driver orders (x.other_stream), a
        programmatic launch (x.pdl), work captured and replayed (x.captured), a built-in stream named after
        a thread changed its device (x.entered: another device's legacy stream), a call issued after its
        object (x.sync_after), and a wait on a declared word before its write (x.word_declared)."""
        rows, errors = self.read(
            "id | level | streams | objects | program | expect | control | source | rule\n"
            "x.fifo | MUST | s=nonblocking, t=nonblocking | - | gate on s; A: kernel on s; B: kernel on s"
            " | B after A | B on t | S | R.\n"
            "x.control_never | DE-FACTO | s=nonblocking, t=nonblocking | - | gate on s; A: kernel on s; B: kernel on t"
            " | B not held by A | B on s | S | R.\n"
            "x.other_stream | DE-FACTO | s=nonblocking, t=nonblocking | - | B: kernel on t; gate on s; A: kernel on s"
            " | B not held by A | insert gate on t before B | S | R.\n"
            "x.pdl | DE-FACTO | s=nonblocking, t=nonblocking | - | G: gate on s; B: kernel_pdl_nosync on s"
            " | B not held by G | B: kernel on s | S | R.\n"
            "x.captured | MUST | s=nonblocking, t=nonblocking | K=graph captured | capture_begin s; B: kernel on s;"
            " capture_keep s K; gate on s; A: kernel on s; graph_replay K on s | B after A | B on t | S | R.\n"
            "x.entered | DE-FACTO | t=nonblocking | - | gate on legacy; A: kernel on legacy; device_enter 1;"
            " B: kernel on legacy | B not held by A | B on t | S | R.\n"
            "x.sync_after | MUST | s=nonblocking | - | gate on s; A: kernel on s; X: stream_sync s"
            " | X blocks until A | X: stream_query s | S | R.\n"
            "x.word_declared | MUST | s=nonblocking, t=nonblocking | V=word | W: wait_value_geq V on t;"
            " B: kernel on t; gate on s; A: kernel on s; write_value V on s | B after A | drop W | S | R.\n")
        self.assertEqual(errors, [])
        self.assertEqual([compile_row(r)[1] for r in rows], [[]] * len(rows))


if __name__ == "__main__":
    unittest.main()
