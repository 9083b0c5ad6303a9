#!/bin/bash
# Batched copies (batch.copy: cuMemcpyBatchAsync of 4 copies and a last one that writes the op's token to its
# slot), against the CUDA stand-in (selftest/mock/device/): with every promise kept each case and control passes; with
# a batch run at once, outside its stream's order (batch_copy_unordered), the MUST rules fail; a driver whose
# every enqueue waits (enqueue_waits) fails no MUST point.  The programs are linked here from the objects plain
# `ninja` builds, against build/libsc-mock*.a (`ninja selftest`).
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=0
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

rules="batch.copy.after_prior_work batch.copy.holds_later_work batch.copy.stream_sync_waits
batch.copy.event_orders_other_stream batch.copy.not_held_by_other_stream"
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
batch_copy_unordered batch.copy.after_prior_work B completed while A was still pending
batch_copy_unordered batch.copy.holds_later_work C completed while its gate was still closed
batch_copy_unordered batch.copy.stream_sync_waits B completed while its gate was still closed
batch_copy_unordered batch.copy.event_orders_other_stream B completed while its gate was still closed
EOF_CASES
echo "1..$n"
