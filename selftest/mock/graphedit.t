#!/bin/bash
# Executable graph editing (node_disable, node_enable, exec_set_params) against the CUDA stand-in
# (selftest/mock/device/graphs.c): with every promise kept each case and control passes; with a disabled node
# that still runs (node_disable) or still writes its buffer (node_disable_data), a disabled node that no longer
# waits for its dependencies (disabled_edges), an enable that leaves the node disabled (node_enable), a
# disable or a set-params that reaches the pending launch (node_enable_pending, exec_set_pending), or a
# set-params that changes nothing (exec_set_kernel, exec_set_data, exec_set_event, exec_set_child) the rules
# that check it fail; a driver whose every enqueue waits (enqueue_waits) fails no MUST point; a driver without
# executable graph editing (no_graph_edit) skips every point that edits.
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="graph.edit.disabled_node_does_not_run graph.edit.disabled_node_keeps_its_dependencies graph.edit.reenabled_node_runs
graph.edit.disable_leaves_pending_launch graph.edit.disabled_data_node_writes_nothing graph.edit.set_params_next_launch
graph.edit.set_params_replace_old_work graph.edit.set_params_pending_launch_unchanged graph.edit.set_data_params_next_launch
graph.edit.set_data_params_pending_launch_unchanged graph.edit.record_node_set_event graph.edit.wait_node_set_event
graph.edit.child_set_params_next_launch"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks STREAMCTS_DEADLINE_MS=2000 <<'EOF_CASES'
node_disable graph.edit.disabled_node_does_not_run K ran 1 times, where no launch of the program may run it
node_disable_data graph.edit.disabled_data_node_writes_nothing M's data was overwritten
disabled_edges graph.edit.disabled_node_keeps_its_dependencies K completed while A was still pending
node_enable graph.edit.reenabled_node_runs K did not complete
node_enable_pending graph.edit.disable_leaves_pending_launch K did not complete
exec_set_kernel graph.edit.set_params_next_launch J did not complete
exec_set_kernel graph.edit.set_params_replace_old_work J did not complete
exec_set_pending graph.edit.set_params_pending_launch_unchanged K did not complete
exec_set_data graph.edit.set_data_params_next_launch N's data
exec_set_pending graph.edit.set_data_params_pending_launch_unchanged M's data
exec_set_event graph.edit.record_node_set_event B completed while A was still pending
exec_set_event graph.edit.wait_node_set_event K completed while A was still pending
exec_set_child graph.edit.child_set_params_next_launch J did not complete
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a driver without executable graph editing (no_graph_edit: the calls are unsupported): every point that edits skips,
# saying so
for rule in $rules; do
    # (a control without the edit, drop X, runs as on any driver)
    out=$(STREAMCTS_MOCK_QUIRK=no_graph_edit "$tmp/$rule.mock" 2>&1 | grep -v '^ok .*\.control$'); rc=${PIPESTATUS[0]}
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && [ "$(grep -c '^ok' <<<"$out")" = "$(grep -c '^ok.* # SKIP .*(\(node_enable\|exec_set_params\) ' <<<"$out")" ] &&
        grep -q '^ok' <<<"$out"; then
        ok "$rule: every point skips on a driver without executable graph editing"
    else nok "$rule: a driver without executable graph editing did not skip every point (exit $rc)" "$(grep -E '^(not )?ok' <<<"$out")"; fi
done

echo "1..$n"
