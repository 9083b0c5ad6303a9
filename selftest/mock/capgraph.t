#!/bin/bash
# A capture into an existing graph (capture_to, capture_to_after, capture_to_relaxed, capture_end_graph: issue 28,
# part 1) against the CUDA stand-in (selftest/mock/device/capture.c, which makes what such a capture recorded one
# node of the graph at its end): with every promise kept each case and control passes; with the dependency given
# ignored (capture_to_deps_ignored), the captured work made to wait for every node the graph had
# (capture_to_waits_existing), the graph's nodes replaced (capture_to_replaces), a new graph given back
# (capture_end_new_graph), the capture reported as none (capture_to_inactive), the graph instantiable mid-capture
# (capture_to_instantiable), a node added meanwhile refused (capture_graph_locked), a capture of the legacy stream
# accepted (capture_to_legacy) or captured work run at once (capture) the rule that checks it fails; a driver whose
# every enqueue waits (enqueue_waits) fails no MUST point, and one without such captures (no_capture_to) skips every
# point.
# `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="capture.to_graph.runs_after_dependency capture.to_graph.no_dependency_not_held
capture.to_graph.existing_nodes_still_run capture.to_graph.not_run_at_capture capture.to_graph.end_gives_back_the_graph
capture.to_graph.status_active capture.to_graph.not_instantiable_before_end
capture.to_graph.node_added_during_capture_runs capture.to_graph.legacy_stream_refused"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
capture_to_deps_ignored capture.to_graph.runs_after_dependency K completed while A was still pending
capture_to_waits_existing capture.to_graph.no_dependency_not_held K stayed pending
capture_to_replaces capture.to_graph.existing_nodes_still_run B completed while A was still pending
capture capture.to_graph.not_run_at_capture K completed while A was still pending
capture_end_new_graph capture.to_graph.end_gives_back_the_graph E gave another_graph, not its_graph
capture_to_inactive capture.to_graph.status_active X gave none, not active
capture_to_instantiable capture.to_graph.not_instantiable_before_end X answered success (0), not an error
capture_graph_locked capture.to_graph.node_added_during_capture_runs A (node_gate in P) failed
capture_to_legacy capture.to_graph.legacy_stream_refused X answered success (0), not an error
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a driver without captures into an existing graph (no_capture_to: beginning one is unsupported): every case point
# skips, naming the capture, and no point fails (a control that begins none, a plain capture or none at all, runs)
for rule in $rules; do
    out=$(STREAMCTS_MOCK_QUIRK=no_capture_to "$tmp/$rule.mock" 2>&1); rc=$?
    cases=$(grep '^ok' <<<"$out" | grep -v '\.control')
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && [ -n "$cases" ] &&
        [ "$(wc -l <<<"$cases")" = "$(grep -c ' # SKIP [A-Za-z0-9_]* (capture_to' <<<"$cases")" ]; then
        ok "$rule: every case point skips on a driver without captures into an existing graph"
    else nok "$rule: a driver without captures into an existing graph did not skip every case point (exit $rc)" \
        "$(grep -E '^(not )?ok' <<<"$out")"; fi
done

echo "1..$n"
