#!/bin/bash
# The first look (runtime/suite/calibrate.h) against the CUDA stand-in (selftest/mock/device/):
# a short hold before the full window catches every broken promise it can and
# passes no case its control did not back; it is timed again as a program goes on.
cd "$(dirname "$0")/../.." || exit 1
dir=build/selftest/mock
export STREAMCTS_WINDOW_MS=5
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

# the first look (runtime/suite/calibrate.h): a 5 ms hold before the 50 ms window still catches each
# broken promise, deciding cases within the 5 ms (the calibrated floor is 1 ms; the mock's host
# threads on a loaded CI machine need longer to let a broken promise through)
while read -r brk prog msg; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=5 STREAMCTS_MOCK_BREAK=$brk "$dir/$prog.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -vc '\.control'); short=$(grep -c 'window_ms: "5"' <<<"$out")
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] && [ "$short" -gt 0 ] && grep -q '^# first look 5 ms (set)' <<<"$out" &&
        grep -q "message: \".*$msg" <<<"$out"; then
        ok "break $brk, first look 5 ms: $prog reports $main violated cases, $short of them within the first look"
    else nok "break $brk, first look 5 ms: $prog did not report the violation (exit $rc, $main cases, $short short)" "$out"; fi
done <<'EOF_CASES'
wait event.wait.orders_later_work completed while A was still pending
sync stream.sync.waits_for_stream_work returned while A was still pending
EOF_CASES

# a conforming mock passes every point with a 1 ms first look (the floor), even a slow one whose work
# starts 20 ms late, where every control needs the full window to show its violation and so every case
# runs again with the full window
for quirk in "" slow_device; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=1 STREAMCTS_MOCK_QUIRK=$quirk \
        "$dir/event.wait.orders_later_work.prog" --case '*.kernel.memset' 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 4 ] && ! grep -q '^not ok' <<<"$out"; then
        ok "a conforming ${quirk:-fast} mock passes every case and control with a 1 ms first look"
    else nok "a conforming ${quirk:-fast} mock failed with a 1 ms first look (exit $rc)" "$out"; fi
done

# a blocks-until case whose control makes the same call (a synchronize of an idle stream for one of the
# held stream) stands on its control at the first look, as any case does (suite.c, run_case); so a broken
# synchronize that returns without waiting, but only after 8 ms (quirk slow_sync: any call may block),
# longer than the 5 ms first look, must still be caught: the control's synchronize, as slow, shows no
# violation within the first look, so the case runs again with the full window
for quirk in slow_sync ""; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=5 STREAMCTS_MOCK_QUIRK=$quirk STREAMCTS_MOCK_BREAK=sync \
        "$dir/stream.sync.waits_for_stream_work.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -vc '\.control')
    if [ $rc -eq 1 ] && [ "$main" = 32 ]; then
        ok "a synchronize that never waits fails all 32 cases with a 5 ms first look (${quirk:-fast} calls)"
    else nok "a synchronize that never waits was passed (${quirk:-fast} calls: exit $rc, $main of 32 cases)" "$out"; fi
done
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=5 STREAMCTS_MOCK_QUIRK=slow_sync \
    "$dir/stream.sync.waits_for_stream_work.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 64 ]; then
    ok "a conforming mock whose synchronize takes 8 ms passes every case and control with a 5 ms first look"
else nok "a conforming mock with slow synchronizes failed (exit $rc)" "$(grep -A8 '^not ok' <<<"$out")"; fi

# the first look is timed again as a program goes on (suite.c): a device that was slow only while the
# program started (quirk slow_at_start: 20 ms late for 1.5 s) gets the full window at first, then less
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_MOCK_QUIRK=slow_at_start "$dir/event.wait.orders_later_work.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^# first look 50\.0 ms' <<<"$out" && grep -qE '^# first look now ([1-9]|[1-3][0-9])\.[0-9] ms \(the fastest of 16 legal round trips timed again: ' <<<"$out" &&
    [ "$(grep -c '^ok' <<<"$out")" = 280 ] && ! grep -q '^not ok' <<<"$out"; then
    ok "a first look calibrated on a busy device is timed again and shortened once the device is free"
else nok "the first look was not timed again, or a point failed (exit $rc)" "$(grep -v '^ok' <<<"$out")"; fi

echo "1..$n"
