"""What issue order alone decides of an expectation: check_order(prog, exp, modes) -> [message] for a
case's program, check_control_order(ctl, exp, modes) for its negative control.

Two facts of the timeline (docs/design.md, section 5) decide some relations before any driver is asked:

* ops are issued in program order, and the next op only after the previous call returned, so a call
  issued before A has returned before A is issued;
* a stream runs its work in issue order, so work issued to it before A completes before A starts, and
  work issued after A waits for A.

A relation so decided is "never" (no conforming driver can keep it), "untested" (it holds, or is judged,
without asking anything of A) or "kept" (stream order alone keeps it: a test of stream order for a case,
but a control that can never show a violation).  A case's program may be neither "never" nor "untested";
its control may not be "kept" or "untested".
"""
from __future__ import annotations

from .expect import stream_of
from .program import builtin
from .vocab import CAPTURE_BEGINS, CURRENT_CHANGERS, KINDS, NODE_KINDS, PDL_KINDS

# The relations judged when the subject's call returns (runtime: sc_verdict_returned; 'synchronizes' reads
# the object's data right as its query, asked until success, answers it)
JUDGED_AT_RETURN = ("blocks until", "returns before", "not ready while", "ready while", "synchronizes")
NEVER_AT_RETURN = ("blocks until", "synchronizes")  # the object must have completed when the subject returns
ORDERINGS = ("after", "not held by")  # judged on the completions the observer samples


def completes_on_return(kind):
    """A host call or query, whose completion is its return: not a node (a launch of its graph runs it)
    nor a thread_exit (its thread is joined at the end)."""
    return not KINDS[kind].on and kind not in NODE_KINDS and kind != "thread_exit"


def one_stream(prog, i, j, modes):
    """The stream ops i and j are both issued to, when it is provably one stream in every compile mode of
    the rule, which runs them in issue order; else None.  Not provable: a program that captures (captured
    work runs when a graph of it is launched), or launches programmatically (a programmatic launch may
    start before the work ahead of it completes), or a built-in stream where a thread may change its
    current context or device (another context's or device's built-in stream)."""
    a, b = prog.ops[i], prog.ops[j]
    if a.stream is None or b.stream is None or not modes:
        return None
    if any(op.kind in CAPTURE_BEGINS or op.kind in PDL_KINDS for op in prog.ops):
        return None
    if (builtin(a.stream) or builtin(b.stream)) and any(op.kind in CURRENT_CHANGERS for op in prog.ops):
        return None
    if all(stream_of(a, (m,), prog.procs) == stream_of(b, (m,), prog.procs) for m in modes):
        return a.stream
    return None


def decided(prog, exp, modes):
    """(verdict, why) when issue order alone decides exp in prog: verdict "never", "untested" or "kept",
    why the reason in words; None when the driver decides."""
    if exp.object is None or exp.subject == exp.object:
        return None
    if exp.relation not in JUDGED_AT_RETURN + ORDERINGS:
        return None  # equals, differs from: two values, no order
    s, o = prog.named(exp.subject), prog.named(exp.object)
    S, A = exp.subject, exp.object
    skind = prog.ops[s].kind
    said = f"'{S} {exp.relation} {A}'"
    issued = f"{S} is issued before {A}, which is issued only after {S}'s call returned"
    if exp.relation in JUDGED_AT_RETURN and s < o:
        if exp.relation in NEVER_AT_RETURN:
            return "never", f"{said} can never hold: {issued}"
        return "untested", f"{said} tests nothing of {A}: {issued}, so {S} is judged before {A} is issued"
    if exp.relation not in ORDERINGS:
        return None
    returned = f"{S} ({skind}) completes when its call returns, and {A} is issued only after that"
    if completes_on_return(skind) and s < o:
        if exp.relation == "after":
            return "never", f"{said} can never hold: {returned}"
        return "untested", f"{said} tests nothing of {A}: {returned}"
    stream = one_stream(prog, s, o, modes)
    if stream is None:
        return None
    order = f"stream {stream} runs its work in issue order"
    if exp.relation == "after" and s < o:
        return "never", f"{said} can never hold: {S} is issued before {A} on stream {stream}, and {order}"
    if exp.relation == "after":
        return "kept", f"{said} is kept by stream order alone: {S} is issued after {A} on stream {stream}, and {order}"
    if s < o:
        return "untested", (f"{said} tests nothing of {A}: {S} is issued before {A} on stream {stream}, and "
                            f"{order}, so {S} never waits for {A}")
    return "never", f"{said} can never hold: {S} is issued after {A} on stream {stream}, and {order}"


def check_order(prog, exp, modes):
    """A case's expectation is neither impossible nor untested by the issue order of its program."""
    verdict = decided(prog, exp, modes)
    return [verdict[1]] if verdict and verdict[0] in ("never", "untested") else []


def check_control_order(ctl, exp, modes):
    """The negative control neither keeps the expectation by stream order alone (it could never fail) nor
    leaves it untested (a violation it showed would not be the object's doing)."""
    verdict = decided(ctl, exp, modes)
    if verdict and verdict[0] == "kept":
        return [f"{verdict[1]}: the control can never show a violation"]
    if verdict and verdict[0] == "untested":
        return [f"{verdict[1]}: the control cannot make it false through {exp.object}"]
    return []
