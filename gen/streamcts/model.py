"""What the generator builds of a row: Program (its Ops, Streams, Objects), Expect, Case, Rule;
and Bad, the problem a part of a row raises (the caller adds path:line), with the words its
messages use (one_of, near, article).

Plain data with the questions the checks ask of it (Program.uses, Program.targets, Rule.apis).
"""
from __future__ import annotations

import difflib
from dataclasses import dataclass, field

from .vocab import KINDS


def one_of(words):
    """'a, b or c'."""
    words = list(words)
    return ", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else words[0]


def near(word, choices, n=3):
    """The choices closest to a misspelt word, best first (difflib's); none when none is close."""
    return difflib.get_close_matches(word, list(choices), n=n)


def article(word):
    """The word with its indefinite article."""
    return ("an " if word[0] in "aeiou" else "a ") + word


class Bad(Exception):
    """A problem with a row; the caller adds path:line."""


@dataclass(frozen=True)
class Op:
    name: str | None    # the name the row gave, None for unnamed ops
    kind: str
    args: tuple         # the ARGs, one per type of KINDS[kind].args (a bare 'record on S' has none)
    stream: str | None  # "on STREAM"
    thread: str = "main"


@dataclass(frozen=True)
class Stream:
    kind: str                    # "blocking" | "nonblocking"
    priority: str | None = None  # a key of PRIORITIES, None for cuStreamCreate
    device: int = 0              # the GPU it belongs to
    count: int = 1               # an array of count streams when 2 or more
    green: bool = False          # a stream of the run's green context (cuGreenCtxStreamCreate)


@dataclass(frozen=True)
class Object:
    type: str     # "event" | "pool" | "graph"
    flags: tuple  # keys of OBJECT_FLAGS[type], in that order


@dataclass
class Program:
    streams: dict  # declared stream -> Stream, in declaration order
    objects: dict  # declared object -> Object, in declaration order
    threads: list  # declared threads besides main
    ops: list      # Op, in issue order
    procs: dict = field(default_factory=dict)  # thread -> the other process it runs in (t1@p1)
    envs: dict = field(default_factory=dict)   # process -> ((VAR, VALUE), ...) it is started with

    def process(self, thread):
        """The process a thread runs in: main unless declared thread@process."""
        return self.procs.get(thread, "main")

    def processes(self):
        """main and the other processes, in declaration order."""
        return ["main"] + list(dict.fromkeys(self.procs.values()))

    def names(self):
        """Op names as reported: an unnamed op is named by its kind, the second of a kind KIND#2, and so on
        (a number no op of the row named takes), so that a timeline reads 'gate', 'record#2', not 'op1'."""
        taken = {op.name for op in self.ops if op.name}
        count, names = {}, []
        for op in self.ops:
            if op.name:
                names.append(op.name)
                continue
            n = count.get(op.kind, 0) + 1
            while (op.kind if n == 1 else f"{op.kind}#{n}") in taken:
                n += 1
            count[op.kind] = n
            names.append(op.kind if n == 1 else f"{op.kind}#{n}")
        return names

    def named(self, name):
        """Index of the op the row named `name`, or None."""
        return next((i for i, op in enumerate(self.ops) if op.name == name), None)

    def uses(self):
        """(op name, op, ARG type, ARG) of every ARG of the program, in issue order."""
        return [(n, op, t, arg) for n, op in zip(self.names(), self.ops) for t, arg in typed_args(n, op)]

    def targets(self):
        """(op name, op, stream) of every stream an op names ('on STREAM' or a STREAM ARG), in issue order."""
        return [
            (n, op, s) for n, op in zip(self.names(), self.ops)
            for s in [op.stream] + [arg for t, arg in typed_args(n, op) if t == "stream"] if s is not None
        ]

    def copy(self):
        return Program(dict(self.streams), dict(self.objects), list(self.threads), list(self.ops), dict(self.procs),
                       dict(self.envs))


@dataclass(frozen=True)
class Expect:
    subject: str
    relation: str              # a key of RELATIONS or UNARY_RELATIONS, "answers" or "gives"
    object: str | None = None  # the op A of a binary relation
    value: str | None = None   # the CODE of "answers", the VALUE of "gives"


@dataclass
class Case:
    id: str
    build: dict       # C body of the case: decls, ops, expect
    control: dict     # C body of its negative control
    kinds: frozenset  # op kinds the case and its control use
    devices: int      # GPUs the case and its control need
    processes: int = 1  # processes the case or its control runs in, main included
    needs: frozenset = frozenset()  # keys of NEEDS the case or its control needs
    changes: tuple = ()  # what each control edit changed, in order ("W dropped"): the control's comment


@dataclass
class Rule:
    id: str
    level: str
    modes: tuple
    cells: dict  # the row, axes unexpanded
    axes: list   # axis names
    spec: str    # "spec/x.rules:12"
    cases: list

    @property
    def path(self):
        return self.id.replace(".", "/")

    @property
    def spec_file(self):
        """The rules file without the line: programs name it, so that rows added
        above a rule do not rebuild it (the catalog keeps the line)."""
        return self.spec.rsplit(":", 1)[0]

    def uses(self, field):
        """Does any case or control use a kind with this Kind field set?"""
        return any(getattr(KINDS[k], field) for case in self.cases for k in case.kinds)

    @property
    def apis(self):
        """The APIs the rule runs through: keys of APIS."""
        if self.uses("driver_only") or self.needs:  # the runtime API of CUDA 13.0 has no green contexts
            return ("driver",)
        return ("runtime",) if self.uses("runtime_only") else ("driver", "runtime")

    @property
    def isolate(self):
        return self.uses("isolate")

    @property
    def devices(self):
        return max(case.devices for case in self.cases)

    @property
    def processes(self):
        return max(case.processes for case in self.cases)

    @property
    def needs(self):
        """The capabilities (keys of NEEDS) a case or control needs, sorted."""
        return sorted(set().union(*(case.needs for case in self.cases)))

    @property
    def mps_only(self):
        """Mode 'mps': the cases run only as clients of an MPS server (tap/<rule>.mps.t)."""
        return self.cells.get("mode") == "mps"


def typed_args(name, op):
    """(type, ARG) of each ARG of an op; a bare 'record on S' records an event of its own, named after the op."""
    if op.kind == "record" and not op.args:
        return [("event", name + "_event")]
    return list(zip(KINDS[op.kind].args, op.args))
