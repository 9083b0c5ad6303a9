#!/bin/bash
# Captured graphs kept and launched (capture_keep, graph_replay) against the
# CUDA stand-in (selftest/mock/device/, which records a capture into a serial graph):
# with every promise kept each case and control passes; with captured work run
# at once (STREAMCTS_MOCK_BREAK=capture), a launch that waits for nothing
# (replay), a second launch that runs nothing (replay_once), a capture error
# answered with a plain invalid value (capture_codes), joins that are not
# transitive (join_direct) or external event flags ignored (external) the
# rules that check it fail; a driver whose every enqueue waits
# (enqueue_waits) fails no MUST point.  A capture's introspection: capture ids
# new at every call (capture_id_per_call) or shared by every capture
# (capture_id_reused), a dependency set frozen at the capture's start
# (capture_deps_stale), and an update of the set ignored (sever_ignored).  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

# capture.callback.refused, the rules of a capture's end with a fork or on the wrong stream, of a captured
# event, of external event nodes and of the legacy stream's status query (capmisc), and the rules of
# capture.kept and graph.captured but one the mock cannot judge (it models no invalidation by a query of the
# capturing stream) and the SHOULD rule that needs two branches of one graph to run at once (the mock runs a
# graph's nodes one by one), with each library
rules="capture.callback.refused capture.kept.not_run_at_capture capture.kept.runs_in_captured_order capture.kept.no_edge_to_work_before_capture
capture.kept.forked_branch_runs_after_fork_point capture.kept.join_orders_origin_after_branch
graph.captured.later_work_after_launch graph.captured.second_launch_behind_first graph.captured.other_exec_not_held
graph.captured.stream_sync_blocks graph.captured.event_sync_blocks graph.captured.ctx_sync_blocks
graph.captured.stream_query_not_ready graph.captured.event_orders_other_stream
graph.captured.legacy_waits_for_launch_in_blocking_stream graph.captured.launch_in_blocking_stream_waits_for_legacy
graph.captured.launch_in_legacy_waits_for_blocking_stream graph.captured.launch_in_per_thread_waits_for_legacy
graph.captured.launch_in_nonblocking_not_held_by_legacy capture.kept.runs_once_per_launch
capture.kept.forked_branch_runs_once_per_launch capture.kept.launches_in_two_streams_each_run graph.captured.event_query_not_ready
capture.end.unjoined_fork_refused capture.end.on_joined_stream_refused capture.captured_event.sync_refused
capture.end.unjoined_fork_answers_unjoined capture.end.transitively_joined_fork_ends
capture.end.on_joined_stream_answers_unmatched capture.captured_event.answers_captured_event
capture.external.record_marks_each_launch capture.external.wait_holds_each_launch
capture.external.record_refused_outside_capture capture.external.wait_refused_outside_capture
capture.legacy_stream.status_query_keeps_capture capture.legacy_stream.status_query_is_implicit
capture.kept.legacy_stream_usable_after_keep
capture.info.id_stable_within_capture capture.info.id_unique_per_capture capture.info.joined_stream_shares_id
capture.info.no_dependencies_at_begin capture.info.one_dependency_after_captured_op
capture.info.join_merges_dependencies capture.update.set_empties_dependencies"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
capture capture.kept.not_run_at_capture K completed while A was still pending
capture capture.kept.forked_branch_runs_after_fork_point K completed while A was still pending
replay capture.kept.runs_in_captured_order K completed while A was still pending
replay graph.captured.later_work_after_launch B completed while A was still pending
replay graph.captured.second_launch_behind_first L2 completed while A was still pending
replay graph.captured.stream_sync_blocks X returned while A was still pending
replay graph.captured.launch_in_per_thread_waits_for_legacy K completed while A was still pending
replay_once capture.kept.runs_once_per_launch K ran 1 times in 2 launches of its graph
replay_once capture.kept.forked_branch_runs_once_per_launch K ran 1 times in 2 launches of its graph
capture capture.kept.runs_once_per_launch K ran 3 times in 2 launches of its graph
capture_codes capture.end.unjoined_fork_answers_unjoined X answered MOCK_ERROR (1), not capture_unjoined
capture_codes capture.end.on_joined_stream_answers_unmatched X answered MOCK_ERROR (1), not capture_unmatched
capture_codes capture.captured_event.answers_captured_event X answered MOCK_ERROR (1), not captured_event
join_direct capture.end.transitively_joined_fork_ends X answered MOCK_CAPTURE_UNJOINED (904), not success
external capture.external.record_marks_each_launch K completed while A was still pending
external capture.external.wait_holds_each_launch K completed while A was still pending
capture_id_per_call capture.info.id_stable_within_capture I2 gave another value as I1
capture_id_reused capture.info.id_unique_per_capture I2 gave the same value as I1
capture_deps_stale capture.info.one_dependency_after_captured_op D gave 0 nodes in the dependency set, not one_dependency
capture_deps_stale capture.info.join_merges_dependencies D gave 0 nodes in the dependency set, not two_dependencies
sever_ignored capture.update.set_empties_dependencies D gave 1 node in the dependency set, not no_dependencies
external capture.external.record_refused_outside_capture X answered success (0), not an error
external capture.external.wait_refused_outside_capture X answered success (0), not an error
legacy_query_invalidates capture.legacy_stream.status_query_keeps_capture S gave invalidated, not active
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
