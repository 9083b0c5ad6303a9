#!/bin/bash
# Device graph launch (node_faf, node_tail, node_sibling: issue 28, item 2) against the CUDA stand-in
# (selftest/mock/device/graphs.c, which enqueues a graph launched from the device after the launching kernel's
# item: fire-and-forget and sibling launches at once, tail launches one after another once the launching graph
# and its fire-and-forget children completed; the launch stream's later work waits for all of them): with every
# promise kept each case and control passes; with a tail launch that runs at once (tail_immediate), that waits
# for the launching graph's nodes only (tail_before_children), tail launches that all start together
# (tails_concurrent), later stream work that does not wait for a fire-and-forget, sibling or tail-launched
# graph (faf_detached, sibling_detached, tail_detached), a fire-and-forget launch deferred as a tail launch
# (faf_deferred) or a sibling launch that holds the tail launches (sibling_gates_tail) the rules that check it
# fail; a driver whose every enqueue waits (enqueue_waits) fails no MUST point, and one without device graph
# launch (no_devlaunch) skips every point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"
. selftest/mock/rule-programs.sh

rules="graph.device_launch.tail_after_launching_graph graph.device_launch.tail_after_fire_and_forget_children
graph.device_launch.tails_in_order graph.device_launch.later_work_after_fire_and_forget
graph.device_launch.later_work_after_sibling graph.device_launch.later_work_after_tail
graph.device_launch.fire_and_forget_not_held graph.device_launch.sibling_not_gating_tail"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
tail_immediate graph.device_launch.tail_after_launching_graph K completed while G was still pending
tail_immediate graph.device_launch.tails_in_order K completed while G was still pending
tail_before_children graph.device_launch.tail_after_fire_and_forget_children K completed while G was still pending
tails_concurrent graph.device_launch.tails_in_order K completed while G was still pending
faf_detached graph.device_launch.later_work_after_fire_and_forget B completed while G was still pending
sibling_detached graph.device_launch.later_work_after_sibling B completed while G was still pending
tail_detached graph.device_launch.later_work_after_tail B completed while G was still pending
faf_deferred graph.device_launch.fire_and_forget_not_held K stayed pending for the whole
sibling_gates_tail graph.device_launch.sibling_not_gating_tail K stayed pending for the whole
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a device that refuses every device launch (devlaunch_refused: the launching kernel keeps the error): every
# point is an error naming it, none passes and none is a violation
for rule in $rules; do
    out=$(STREAMCTS_MOCK_BREAK=devlaunch_refused STREAMCTS_DEADLINE_MS=2000 "$tmp/$rule.mock" --no-control 2>&1); rc=$?
    if [ $rc -le 1 ] && ! grep -q '^ok [0-9]* - [^ ]*$' <<<"$out" && grep -q "message: \".*device-side cudaGraphLaunch answered cudaError 1" <<<"$out" &&
        ! grep -q 'outcome: "violated"' <<<"$out"; then
        ok "$rule: a refused device launch is an error, not a verdict"
    else nok "$rule: a refused device launch was not reported as an error (exit $rc)" "$out"; fi
done

# a driver without device graph launch (no_devlaunch: instantiating for it is unsupported): every point skips
for rule in $rules; do
    out=$(STREAMCTS_MOCK_QUIRK=no_devlaunch "$tmp/$rule.mock" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && [ "$(grep -c '^ok' <<<"$out")" = "$(grep -c '^ok.* # SKIP' <<<"$out")" ] &&
        grep -q '^ok' <<<"$out"; then
        ok "$rule: every point skips on a driver without device graph launch"
    else nok "$rule: a driver without device graph launch did not skip every point (exit $rc)" "$(grep -E '^(not )?ok' <<<"$out")"; fi
done

echo "1..$n"
