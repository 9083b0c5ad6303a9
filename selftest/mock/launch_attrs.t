#!/bin/bash
# More launch attributes and launch kinds that leave ordering alone (launch.attr: an access policy window, the
# cooperative attribute, cuLaunchCooperativeKernel, a cluster, a memory synchronization domain map; the priority
# attribute against its stream's; launch.stream_attr: cuStreamSetAttribute of a window, the remote domain or a
# domain map), against the CUDA stand-in (selftest/mock/device/): with every promise kept each case and control
# passes; each attribute's break (its kernels run at once, outside their stream's order) fails that attribute's
# case of every MUST rule; prio_overtakes fails the priority rules; stream_attr_unordered every stream-attribute
# rule; a driver whose every enqueue waits (enqueue_waits) fails no MUST point; a device of compute capability
# 8.0 (pre_hopper) skips the cluster and domain points, saying why; the rules of streams with a priority run on a
# mock of two priorities (two_priorities) and skip on its one.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

# the SHOULD rule launch.attr.not_held_by_other_stream is among them: the mock runs two streams at once
attr_rules="launch.attr.kernel_after_prior_work launch.attr.gate_holds_later_work launch.attr.event_orders_attr_work
launch.attr.stream_sync_waits_for_attr_kernel launch.attr.event_sync_waits_for_attr_kernel
launch.attr.legacy_launch_waits_for_blocking_stream"
# the rules of streams with a priority run with the quirk two_priorities: the mock's one priority skips them
prio_streams="launch.priority.attr_keeps_fifo_in_least_priority_stream launch.priority.attr_greatest_after_least_launch"
prio_rules="launch.priority.attr_kernel_after_prior_work launch.priority.attr_gate_holds_later_work"
stream_rules="launch.stream_attr.set_while_pending_keeps_order launch.stream_attr.stream_keeps_fifo
launch.stream_attr.event_orders_work launch.stream_attr.waiting_stream_waits_for_event
launch.stream_attr.stream_sync_waits launch.stream_attr.blocking_stream_waits_for_legacy"
rules="$attr_rules launch.attr.not_held_by_other_stream $prio_rules $stream_rules"
link_rules "$rules"
STREAMCTS_MOCK_QUIRK=two_priorities link_rules "$prio_streams"
for rule in $prio_streams; do # and without it they skip, saying why
    out=$("$tmp/$rule.mock" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && grep -q '# SKIP .*priority range' <<<"$out"; then
        ok "$rule skips on a device of one stream priority, saying why"
    else nok "$rule did not skip on a device of one stream priority (exit $rc)" "$out"; fi
done

# check_case BREAK RULE CASE: with STREAMCTS_MOCK_BREAK=BREAK, RULE's legacy program (its controls left out) run
# on its cases *.CASE only reports each of them not ok, naming a completion or a return while work was pending
check_case() {
    out=$(STREAMCTS_MOCK_BREAK="$1" "$tmp/$2.mock" --no-control --case "*.$3" 2>&1 </dev/null); rc=$?
    main=$(grep -c '^not ok' <<<"$out")
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 0 ] &&
        grep -qE 'message: ".*(completed|returned) while A was still pending' <<<"$out"; then
        ok "break $1: $2 reports its $3 cases violated ($main)"
    else nok "break $1: $2 did not report its $3 cases violated (exit $rc, $main cases)" "$out"; fi
}
# broken promise, the cases it breaks in every rule of attr_rules
while read -r brk case; do
    for rule in $attr_rules; do check_case "$brk" "$rule" "$case"; done
done <<'EOF_CASES'
policy_unordered policy
coop_unordered coop
coop_unordered cooplaunch
cluster_unordered cluster
domain_map_unordered domain_map
EOF_CASES

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
prio_overtakes launch.priority.attr_kernel_after_prior_work B completed while A was still pending
prio_overtakes launch.priority.attr_gate_holds_later_work B completed while A was still pending
stream_attr_unordered launch.stream_attr.set_while_pending_keeps_order B completed while A was still pending
stream_attr_unordered launch.stream_attr.stream_keeps_fifo B completed while A was still pending
stream_attr_unordered launch.stream_attr.event_orders_work B completed while A was still pending
stream_attr_unordered launch.stream_attr.waiting_stream_waits_for_event B completed while A was still pending
stream_attr_unordered launch.stream_attr.stream_sync_waits X returned while A was still pending
stream_attr_unordered launch.stream_attr.blocking_stream_waits_for_legacy B completed while A was still pending
EOF_CASES

check_breaks STREAMCTS_MOCK_QUIRK=two_priorities <<'EOF_CASES'
prio_overtakes launch.priority.attr_keeps_fifo_in_least_priority_stream B completed while A was still pending
prio_overtakes launch.priority.attr_greatest_after_least_launch B completed while A was still pending
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a device of compute capability 8.0: the cluster and domain-map cases, and the stream domain attributes, skip
# saying so; the window and the cooperative launches still run and pass
for rule in launch.attr.kernel_after_prior_work launch.stream_attr.stream_keeps_fifo; do
    out=$(STREAMCTS_MOCK_QUIRK=pre_hopper "$tmp/$rule.mock" 2>&1); rc=$?
    skips=$(grep -c '^ok.* # SKIP' <<<"$out")
    want=8 # two cases and their controls, in each API
    if [ $rc -eq 0 ] && [ "$skips" = "$want" ] && ! grep -q '^not ok' <<<"$out" &&
        [ "$(grep -cE '\.(cluster|domain_map|remote_domain)\..* # SKIP .*not (modelled|supported)' <<<"$out")" = "$want" ]; then
        ok "pre_hopper: $rule skips its $skips domain and cluster points, saying why"
    else nok "pre_hopper: $rule did not skip its domain and cluster points (exit $rc, $skips skips)" "$out"; fi
done

echo "1..$n"
