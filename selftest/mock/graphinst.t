#!/bin/bash
# graphinst: what instantiation validates (a cycle: instantiate_checked's result_out), graph memory nodes
# (node_alloc) under CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH (instantiate_auto_free) or without it,
# and the clone a child graph node holds ('never runs' of a node added to the child graph after it),
# against the CUDA stand-in (selftest/mock/device/): with every promise kept each case and control passes; with a
# cyclic graph instantiated (instantiate_cycle), the auto-free flag ignored (auto_free), a relaunch accepted
# over an unfreed allocation (unfreed_relaunch), a second launch that runs nothing (replay_once) or a child
# node that keeps a reference to its graph (child_reference) the rules that check it fail; a driver that
# refuses the edge closing the cycle already (edges_validated, legal: "not previously validated") leaves
# the cycle rule undecidable, never failed, and one whose every enqueue waits (enqueue_waits) fails no
# MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="graph.nodes.cycle_refused_at_instantiation graph.nodes.auto_free_relaunch_succeeds graph.nodes.auto_free_relaunch_runs
graph.nodes.unfreed_allocation_relaunch_refused graph.nodes.child_clone_excludes_later_node"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks STREAMCTS_DEADLINE_MS=2000 <<'EOF_CASES'
instantiate_cycle graph.nodes.cycle_refused_at_instantiation I gave result_out 0 (instantiated), answering success, not invalid_structure
auto_free graph.nodes.auto_free_relaunch_succeeds L2 answered MOCK_ERROR (1), not success
replay_once graph.nodes.auto_free_relaunch_runs K ran 1 times in 2 launches of its graph
unfreed_relaunch graph.nodes.unfreed_allocation_relaunch_refused L2 answered success (0), not invalid_value
child_reference graph.nodes.child_clone_excludes_later_node K ran 1 times, where no launch of the program may run it
EOF_CASES

# a legal driver that validates the structure as each edge is added: the cycle rule cannot be judged
out=$(STREAMCTS_MOCK_QUIRK=edges_validated "$tmp/graph.nodes.cycle_refused_at_instantiation.mock" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok.*# TODO undecidable' <<<"$out")" = 2 ] &&
   [ "$(grep -c '^ok.*control' <<<"$out")" = 2 ] && grep -q 'the driver refused the edge as it was added' <<<"$out"; then
    ok "edges_validated: the cycle rule is undecidable where cuGraphAddDependencies refuses the cycle, never failed"
else nok "edges_validated: the cycle rule (exit $rc)" "$out"; fi

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
