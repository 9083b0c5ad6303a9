#!/bin/bash
# Graphs built by hand (nodes: node_*, edge, instantiate, exec_update,
# exec_destroy, graph_replay) against the CUDA stand-in (selftest/mock/device/, which
# runs each node of a launch on a stream of its own, after the nodes its edges
# come from): with every promise kept each case and control passes; with edges
# ignored (STREAMCTS_MOCK_BREAK=edges: the nodes run one by one, last added
# first), a record node that records nothing
# (record_node), a wait node that waits for nothing (wait_node), a child graph
# that starts before its node's dependencies (child_node), an update that
# changes nothing (exec_update), accepts another topology (exec_update_topology) or drops the pending launch
# (exec_update_pending), a second launch that runs nothing (replay_once), an upload that runs the graph
# (upload_runs), an exec destroyed with its pending launch
# (exec_destroy) or a launch that waits for nothing (replay) the rules that
# check it fail; a driver whose every enqueue waits (enqueue_waits) fails no
# MUST point.  The programs are linked here from the objects plain `ninja`
# builds, against build/libsc-mock*.a (`ninja selftest`).
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# a 50 ms window and no shorter first look, as capture.t; a 2 s deadline: a node a broken driver never
# runs is waited for that long
export STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

rules="graph.nodes.edge_orders_through_node graph.nodes.memcpy_node_writes_after_memset_node graph.nodes.edge_orders_host_node graph.nodes.unjoined_nodes_not_held
graph.nodes.launch_after_prior_work graph.nodes.later_work_after_every_node
graph.nodes.record_node_orders_other_stream graph.nodes.record_node_event_query_not_ready
graph.nodes.record_node_event_sync_blocks graph.nodes.wait_node_waits_for_other_stream graph.nodes.second_launch_behind_first
graph.nodes.child_after_parent_edge graph.nodes.child_before_dependent graph.nodes.exec_update_next_launch
graph.nodes.exec_update_refuses_changed_topology graph.nodes.exec_update_pending_launch_unchanged graph.nodes.runs_once_per_launch graph.nodes.upload_runs_nothing
graph.nodes.exec_destroy_pending_launch_completes"
for rule in $rules; do
    for lib in mock mock-ptds; do
        obj=build/obj/$(tr . / <<<"$rule").o
        if ! gcc -o "$tmp/$rule.$lib" "$obj" "build/libsc-$lib.a" -lpthread 2>"$tmp/err"; then
            nok "$rule links against build/libsc-$lib.a" "$(cat "$tmp/err")"
            continue
        fi
        out=$("$tmp/$rule.$lib" 2>&1); rc=$?
        if [ $rc -eq 0 ] && ! grep -q "^not ok" <<<"$out" && ! grep -q "# SKIP" <<<"$out" && grep -q "^ok" <<<"$out"; then
            ok "$rule ($lib): every case and control passes on a conforming mock"
        else nok "$rule ($lib) fails on a conforming mock (exit $rc)" "$(grep -A12 '^not ok' <<<"$out")"; fi
    done
done

# broken promise, rule, message its cases must report
while read -r brk rule msg; do
    out=$(STREAMCTS_MOCK_BREAK=$brk STREAMCTS_DEADLINE_MS=2000 "$tmp/$rule.mock" --no-control 2>&1); rc=$?
    main=$(grep -c '^not ok' <<<"$out")
    # a DE-FACTO rule's failures are `not ok # TODO`, which leave the exit status 0
    if { [ $rc -ne 0 ] || grep -q '^not ok.* # TODO' <<<"$out"; } && [ "$main" -gt 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 0 ] && grep -q "message: \".*$msg" <<<"$out"; then
        ok "break $brk: $rule reports $main violated cases ('$msg')"
    else nok "break $brk: $rule did not report the violation (exit $rc, $main cases)" "$out"; fi
done <<'EOF_CASES'
edges graph.nodes.edge_orders_through_node K completed while A was still pending
edges graph.nodes.edge_orders_host_node H completed while A was still pending
edges graph.nodes.memcpy_node_writes_after_memset_node C's data was overwritten: word 0 of its destination is 0x41414141, written by M
edges graph.nodes.child_before_dependent K completed while G was still pending
record_node graph.nodes.record_node_orders_other_stream B completed while A was still pending
record_node graph.nodes.record_node_event_query_not_ready Q reported success while A was held
record_node graph.nodes.record_node_event_sync_blocks X returned while A was still pending
replay graph.nodes.second_launch_behind_first L2 completed while A was still pending
wait_node graph.nodes.wait_node_waits_for_other_stream K completed while A was still pending
child_node graph.nodes.child_after_parent_edge K completed while A was still pending
replay graph.nodes.launch_after_prior_work K completed while A was still pending
replay graph.nodes.later_work_after_every_node B completed while A was still pending
exec_update graph.nodes.exec_update_next_launch K did not complete within
replay_once graph.nodes.runs_once_per_launch K ran 1 times in 2 launches of its graph
upload_runs graph.nodes.upload_runs_nothing K ran 3 times in 2 launches of its graph
exec_update_topology graph.nodes.exec_update_refuses_changed_topology U answered
exec_update_pending graph.nodes.exec_update_pending_launch_unchanged K did not complete within
exec_destroy graph.nodes.exec_destroy_pending_launch_completes B completed while K was still pending
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
for rule in $rules; do
    out=$(STREAMCTS_MOCK_QUIRK=enqueue_waits "$tmp/$rule.mock" --attempts 1 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep '^not ok' <<<"$out" | grep -qv '# TODO'; then
        ok "$rule: no MUST failure on a legal driver (enqueue_waits)"
    else nok "$rule fails a legal driver (enqueue_waits, exit $rc)" "$(grep -A4 '^not ok' <<<"$out" | grep -v '# TODO')"; fi
done

echo "1..$n"
