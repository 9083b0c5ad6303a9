#!/bin/bash
# Conditional graph nodes (node_if_set, node_if_clear, node_while, node_if_default, node_switch_*,
# node_if_else_*: issue 28, 2a) against the CUDA stand-in (selftest/mock/device/graphs.c, which runs a
# conditional node's selected body node by node when the node runs): with every promise kept each case and
# control passes; with an IF node that runs its body whatever the condition (cond_if_ignored), a WHILE node
# that runs its body once (while_once) or before testing its condition (while_do), a SWITCH node that runs
# its first body (switch_first) or its last for a condition past it (switch_clamped), a handle's
# default applied at the first launch only (cond_default_once), a conditional node that completes as its
# body starts (cond_body_async), a body whose memset and memcpy nodes do nothing (cond_body_data_skipped) or a launch that waits for nothing (replay) the rules that check it fail;
# a driver whose every enqueue waits (enqueue_waits) fails no MUST point, and one without conditional nodes
# (no_conditional) skips every point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="graph.conditional.if_runs_body_when_set graph.conditional.if_skips_body_when_clear
graph.conditional.if_else_runs_else_body_when_clear graph.conditional.while_repeats_until_cleared
graph.conditional.switch_runs_selected_body graph.conditional.switch_skips_other_bodies
graph.conditional.default_applied_each_launch graph.conditional.body_before_dependent
graph.conditional.launch_after_prior_work graph.conditional.later_work_after_body
graph.conditional.while_skips_body_when_clear graph.conditional.switch_past_last_body_runs_none
graph.conditional.body_runs_memset_and_memcpy_nodes"
link_rules "$rules"

# broken promise, rule, message its cases must report (a body the condition selects that the broken node
# never runs is pending once the mock has nothing left it could run, at the latest at the 2 s deadline:
# 'did not complete')
check_breaks STREAMCTS_DEADLINE_MS=2000 <<'EOF_CASES'
cond_if_ignored graph.conditional.if_skips_body_when_clear K ran 1 times, where no launch of the program may run it
cond_if_ignored graph.conditional.if_else_runs_else_body_when_clear K did not complete
while_once graph.conditional.while_repeats_until_cleared K ran 2 times in 2 launches of its graph, not 3 times in each
switch_first graph.conditional.switch_runs_selected_body K did not complete
switch_first graph.conditional.switch_skips_other_bodies K did not complete
cond_default_once graph.conditional.default_applied_each_launch K ran 1 times in 2 launches of its graph
cond_body_async graph.conditional.body_before_dependent K completed while G was still pending
cond_body_async graph.conditional.later_work_after_body B completed while G was still pending
replay graph.conditional.launch_after_prior_work K completed while A was still pending
while_do graph.conditional.while_skips_body_when_clear K ran 1 times, where no launch of the program may run it
switch_clamped graph.conditional.switch_past_last_body_runs_none K ran 1 times, where no launch of the program may run it
cond_body_data_skipped graph.conditional.body_runs_memset_and_memcpy_nodes written by the zeroes it was cleared with
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a driver without conditional nodes (no_conditional: adding one is unsupported): every point skips, saying so
for rule in $rules; do
    out=$(STREAMCTS_MOCK_QUIRK=no_conditional "$tmp/$rule.mock" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && [ "$(grep -c '^ok' <<<"$out")" = "$(grep -c '^ok.* # SKIP X (node_cond ' <<<"$out")" ] &&
        grep -q '^ok' <<<"$out"; then
        ok "$rule: every point skips on a driver without conditional nodes"
    else nok "$rule: a driver without conditional nodes did not skip every point (exit $rc)" "$(grep -E '^(not )?ok' <<<"$out")"; fi
done

echo "1..$n"
