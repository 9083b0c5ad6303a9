#!/bin/bash
# pools: a memory pool's high watermarks (pool_used_high, pool_reserved_high) and their reset (pool_high_reset),
# and memory free nodes of graphs built by hand (node_free: a free node in the allocating graph, in another graph,
# twice), against the CUDA stand-in (selftest/mock/device/): with every promise kept each case and control passes;
# with watermarks that only follow the current value (high_follows_current), a reset ignored (high_reset_ignored)
# or one that zeroes them whatever is in use (high_reset_zeroes), a free node that frees nothing (free_node_ignored),
# another graph's free node whose launch frees nothing (other_free_ignored), or a second free node accepted
# (free_twice_accepted, free_elsewhere_after_own, free_own_after_elsewhere) the rules that check it fail; a
# driver whose every enqueue waits (enqueue_waits) fails no MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="alloc.used.high_keeps_freed_allocation alloc.used.high_reset_forgets_freed_allocation
alloc.used.high_counts_allocation_live_at_reset alloc.reserved.high_keeps_released_memory
alloc.reserved.high_reset_forgets_released_memory alloc.reserved.high_counts_memory_kept_at_reset
graph.free_node.relaunch_succeeds graph.free_node.other_graph_launch_frees graph.free_node.second_in_graph_refused
graph.free_node.other_graph_refused_after_own graph.free_node.owner_refused_after_other_graph"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks STREAMCTS_DEADLINE_MS=2000 <<'EOF_CASES'
high_follows_current alloc.used.high_keeps_freed_allocation H gave a high watermark of 0 bytes, not allocated
high_follows_current alloc.reserved.high_keeps_released_memory H gave a high watermark of 0 bytes, not allocated
high_reset_ignored alloc.used.high_reset_forgets_freed_allocation H gave a high watermark of 262144 bytes, not zero
high_reset_ignored alloc.reserved.high_reset_forgets_released_memory H gave a high watermark of 262144 bytes, not zero
high_reset_zeroes alloc.used.high_counts_allocation_live_at_reset H gave a high watermark of 0 bytes, not allocated
high_reset_zeroes alloc.reserved.high_counts_memory_kept_at_reset H gave a high watermark of 0 bytes, not allocated
free_node_ignored graph.free_node.relaunch_succeeds L2 answered MOCK_ERROR (1), not success
other_free_ignored graph.free_node.other_graph_launch_frees L2 answered MOCK_ERROR (1), not success
free_twice_accepted graph.free_node.second_in_graph_refused X answered success (0), not invalid_value
free_elsewhere_after_own graph.free_node.other_graph_refused_after_own X answered success (0), not an error
free_own_after_elsewhere graph.free_node.owner_refused_after_other_graph X answered success (0), not an error
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
