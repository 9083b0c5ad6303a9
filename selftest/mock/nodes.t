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
# MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
# the breaks run with a 2 s deadline: a node a broken driver never runs is waited for until the mock has
# nothing left it could run, and that long at most
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="graph.nodes.edge_orders_through_node graph.nodes.memcpy_node_writes_after_memset_node graph.nodes.edge_orders_host_node graph.nodes.unjoined_nodes_not_held
graph.nodes.launch_after_prior_work graph.nodes.later_work_after_every_node
graph.nodes.record_node_orders_other_stream graph.nodes.record_node_event_query_not_ready
graph.nodes.record_node_event_sync_blocks graph.nodes.wait_node_waits_for_other_stream graph.nodes.second_launch_behind_first
graph.nodes.child_after_parent_edge graph.nodes.child_before_dependent graph.nodes.exec_update_next_launch
graph.nodes.exec_update_refuses_changed_topology graph.nodes.exec_update_pending_launch_unchanged graph.nodes.runs_once_per_launch graph.nodes.upload_runs_nothing
graph.nodes.exec_destroy_pending_launch_completes"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks STREAMCTS_DEADLINE_MS=2000 <<'EOF_CASES'
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
exec_update graph.nodes.exec_update_next_launch K did not complete
replay_once graph.nodes.runs_once_per_launch K ran 1 times in 2 launches of its graph
upload_runs graph.nodes.upload_runs_nothing K ran 3 times in 2 launches of its graph
exec_update_topology graph.nodes.exec_update_refuses_changed_topology U answered
exec_update_pending graph.nodes.exec_update_pending_launch_unchanged K did not complete
exec_destroy graph.nodes.exec_destroy_pending_launch_completes B completed while K was still pending
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
