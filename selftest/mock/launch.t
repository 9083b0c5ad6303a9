#!/bin/bash
# Launch attributes that leave ordering alone (launch.domain, launch.priority: kernels and gates launched
# with the remote memory synchronization domain or a priority), and programmatic launches captured into a
# graph (launch.pdl.graph_*: the break replay, a launch that waits for nothing), against the CUDA stand-in
# (selftest/mock/device/): with every promise kept each case and control passes; with a remote-domain kernel run
# outside its stream's order (remote_unordered) the domain rules fail; a driver whose every enqueue waits
# (enqueue_waits) fails no MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

# the SHOULD rule launch.domain.remote_not_held_by_other_stream is among them: the mock runs two streams at once
rules="launch.domain.remote_kernel_after_prior_work launch.domain.remote_gate_holds_later_work
launch.domain.event_orders_remote_work launch.domain.stream_sync_waits_for_remote_kernel
launch.domain.remote_not_held_by_other_stream launch.priority.attr_kernel_after_prior_work
launch.priority.attr_gate_holds_later_work launch.pdl.graph_dependency_sync_waits_for_primary
launch.pdl.graph_later_work_waits_for_secondary"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
remote_unordered launch.domain.remote_kernel_after_prior_work B completed while A was still pending
remote_unordered launch.domain.remote_gate_holds_later_work B completed while A was still pending
remote_unordered launch.domain.event_orders_remote_work B completed while A was still pending
remote_unordered launch.domain.stream_sync_waits_for_remote_kernel X returned while A was still pending
replay launch.pdl.graph_dependency_sync_waits_for_primary B completed while A was still pending
replay launch.pdl.graph_later_work_waits_for_secondary A completed while its gate was still closed
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
