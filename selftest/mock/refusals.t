#!/bin/bash
# Refusals NVIDIA's text names, and the cudaSetDevice of the runtime/driver interop (issue 28, item 7: sentences the
# inventory listed as missing), against the CUDA stand-in (selftest/mock/device/): an update of the dependency set
# of a stream not capturing (capture.update.not_capturing_refused), a second capture into an existing graph
# (capture.to_graph.twice_refused), cuCtxRecordEvent / cuCtxWaitEvent while a stream of the context captures
# (ctx.record_event.* and ctx.wait_event.*: refused_while_capturing, invalidates_the_capture) and cudaSetDevice
# after the driver API made a created context current (ctx.interop.set_device_makes_the_primary_current), a runtime
# launch from a thread left with no context (ctx.interop.no_current_context_selects_the_primary), and a
# conditional body's memset and memcpy nodes (graph.conditional.body_runs_memset_and_memcpy_nodes: its break is
# conditional.t's; here only the legal-driver check).  With
# every promise kept each case and control passes; with the update accepted (sever_outside_capture), a second begin
# accepted (capture_begin_twice), the context-level calls accepted during a capture (ctx_event_in_capture) or
# refused but the capture left valid (ctx_event_capture_kept), or cudaSetDevice leaving the created context current
# (set_device_keeps_context), or a runtime call with no current context taking another context than the primary
# (unset_runtime_elsewhere), the rule each breaks fails; a driver whose every enqueue waits (enqueue_waits) fails
# no MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"
. selftest/mock/rule-programs.sh

rules="capture.update.not_capturing_refused capture.to_graph.twice_refused capture.begin.twice_refused
ctx.record_event.refused_while_capturing ctx.record_event.invalidates_the_capture
ctx.wait_event.refused_while_capturing ctx.wait_event.invalidates_the_capture
ctx.interop.set_device_makes_the_primary_current ctx.interop.no_current_context_selects_the_primary
graph.conditional.body_runs_memset_and_memcpy_nodes"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
sever_outside_capture capture.update.not_capturing_refused X answered success (0), not illegal_state
capture_begin_twice capture.to_graph.twice_refused X answered success (0), not an error
capture_begin_twice capture.begin.twice_refused X answered success (0), not an error
ctx_event_in_capture ctx.record_event.refused_while_capturing X answered success (0), not capture_unsupported
ctx_event_in_capture ctx.record_event.invalidates_the_capture X answered success (0), not capture_invalidated
ctx_event_capture_kept ctx.record_event.invalidates_the_capture X answered success (0), not capture_invalidated
ctx_event_in_capture ctx.wait_event.refused_while_capturing X answered success (0), not capture_unsupported
ctx_event_in_capture ctx.wait_event.invalidates_the_capture X answered success (0), not capture_invalidated
ctx_event_capture_kept ctx.wait_event.invalidates_the_capture X answered success (0), not capture_invalidated
set_device_keeps_context ctx.interop.set_device_makes_the_primary_current Q reported success while A was held
unset_runtime_elsewhere ctx.interop.no_current_context_selects_the_primary Q reported success while A was held
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
