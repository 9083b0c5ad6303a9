#!/bin/bash
# Launch attributes that leave ordering alone (launch.domain, launch.priority: kernels and gates launched
# with the remote memory synchronization domain or a priority), and programmatic launches captured into a
# graph (launch.pdl.graph_*: the break replay, a launch that waits for nothing), against the CUDA stand-in
# (selftest/mock/device/): with every promise kept each case and control passes; with a remote-domain kernel run
# outside its stream's order (remote_unordered) the domain rules fail; a driver whose every enqueue waits
# (enqueue_waits) fails no MUST point.  The programs are linked here from the objects plain `ninja`
# builds, against build/libsc-mock*.a (`ninja selftest`).
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

# the SHOULD rule launch.domain.remote_not_held_by_other_stream is among them: the mock runs two streams at once
rules="launch.domain.remote_kernel_after_prior_work launch.domain.remote_gate_holds_later_work
launch.domain.event_orders_remote_work launch.domain.stream_sync_waits_for_remote_kernel
launch.domain.remote_not_held_by_other_stream launch.priority.attr_kernel_after_prior_work
launch.priority.attr_gate_holds_later_work launch.pdl.graph_dependency_sync_waits_for_primary
launch.pdl.graph_later_work_waits_for_secondary"
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
        out=$(STREAMCTS_MOCK_QUIRK=enqueue_waits "$tmp/$rule.$lib" 2>&1)
        if ! grep '^not ok' <<<"$out" | grep -qv '# TODO'; then
            ok "$rule ($lib): no MUST point fails when every enqueue waits"
        else nok "$rule ($lib): a MUST point fails when every enqueue waits" "$(grep -A12 '^not ok' <<<"$out")"; fi
    done
done

# broken promise, rule, message its cases must report
while read -r brk rule msg; do
    out=$(STREAMCTS_MOCK_BREAK=$brk "$tmp/$rule.mock" --no-control 2>&1); rc=$?
    main=$(grep -c '^not ok' <<<"$out")
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 0 ] && grep -q "message: \".*$msg" <<<"$out"; then
        ok "break $brk: $rule reports $main violated cases ('$msg')"
    else nok "break $brk: $rule did not report the violation (exit $rc, $main cases)" "$out"; fi
done <<'EOF_CASES'
remote_unordered launch.domain.remote_kernel_after_prior_work B completed while A was still pending
remote_unordered launch.domain.remote_gate_holds_later_work B completed while A was still pending
remote_unordered launch.domain.event_orders_remote_work B completed while A was still pending
remote_unordered launch.domain.stream_sync_waits_for_remote_kernel X returned while A was still pending
replay launch.pdl.graph_dependency_sync_waits_for_primary B completed while A was still pending
replay launch.pdl.graph_later_work_waits_for_secondary A completed while its gate was still closed
EOF_CASES
echo "1..$n"
