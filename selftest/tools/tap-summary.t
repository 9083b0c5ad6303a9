#!/bin/bash
# tools/tap-summary against two logs of `prove -r -v -jN --timer`, against logs
# this machine's prove writes now, and against logs that are empty, all skipped
# or failed by prove; and its arguments.
#   h100-excerpt.tap: five programs of the suite's runs on an H100 (driver 580.159.04,
#     commit c7de0d9): at CUDA_DEVICE_MAX_CONNECTIONS=1, SHOULD points not kept, a
#     vacuous control, undecidable points and an MPS program; at 8, a program skipped
#     on one GPU.  An excerpt: it has no Result line, like the log of a prove that
#     was stopped.
#   mock-run.tap: two mock programs (selftest/mock) under prove: one with a broken
#     cuStreamWaitEvent (a MUST failure), one killed (SIGKILL) after its plan.
cd "$(dirname "$0")/../.." || exit 1
dir=selftest/tools
echo "TAP version 13"
echo "1..13"

out=$(tools/tap-summary $dir/h100-excerpt.tap $dir/mock-run.tap 2>/dev/null); rc=$?
if [ "$out" = "$(cat $dir/summary.golden)" ] && [ $rc -eq 1 ]; then
    echo "ok 1 - the summary of both logs matches summary.golden, and says failure"
else
    echo "not ok 1 - the summary differs from summary.golden (exit $rc)"
    diff <(printf '%s\n' "$out") $dir/summary.golden | head -20 | sed 's/^/# /'
fi

row=$(tools/tap-summary --row 8 $dir/h100-excerpt.tap 2>/dev/null); rc=$?
if [ "$(echo $row)" = "8 30 0 2 1 4 0" ] && [ $rc -eq 1 ]; then
    echo "ok 2 - a log that prove did not finish is one row of its totals, and says failure"
else echo "not ok 2 - --row gave '$row' (exit $rc)"; fi

row=$(tools/tap-summary --row 8 $dir/mock-run.tap); rc=$?
if [ "$(echo $row)" = "8 2 1 0 0 0 64" ] && [ $rc -eq 1 ]; then
    echo "ok 3 - the 64 points a killed program planned but never reported are counted as lost"
else echo "not ok 3 - --row gave '$row' (exit $rc)"; fi

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
m=$PWD/build/selftest/mock

# prove as installed here, one program that keeps every promise: a whole log, exit 0
mkdir -p "$tmp/clean/tap/event/wait"
cp "$m/event.wait.orders_later_work.prog" "$tmp/clean/tap/event/wait/orders_later_work.t"
(cd "$tmp/clean" && STREAMCTS_WINDOW_MS=5 STREAMCTS_CASE='*.kernel.memset' prove -r -v --timer tap/ >log 2>&1)
row=$(tools/tap-summary --row 8 "$tmp/clean/log"); rc=$?
if [ "$(echo $row)" = "8 4 0 0 0 0 0" ] && [ $rc -eq 0 ]; then
    echo "ok 4 - a whole log of a passing run is one row of totals, exit 0"
else echo "not ok 4 - --row gave '$row' (exit $rc)"; fi

# prove as installed here: one program passes, one crashes before its plan, one is killed after it
mkdir -p "$tmp/tap/stream/sync" "$tmp/tap/event/wait"
cp "$m/event.wait.orders_later_work.prog" "$tmp/tap/event/wait/orders_later_work.t"
printf '#!/bin/sh\nkill -SEGV $$\n' >"$tmp/tap/event/wait/crashes_at_start.t"
printf '#!/bin/sh\nSTREAMCTS_MOCK_BREAK=hang exec timeout -s KILL 3 %s --deadline-ms 5000 --api driver --case "*.kernel.*"\n' \
    "$m/stream.sync.waits_for_stream_work.prog" >"$tmp/tap/stream/sync/waits_for_stream_work.t"
chmod +x "$tmp"/tap/*/*/*.t
(cd "$tmp" && STREAMCTS_WINDOW_MS=5 STREAMCTS_CASE='*.kernel.memset' prove -r -v -j2 --timer tap/ >log 2>&1)
out=$(tools/tap-summary "$tmp/log"); rc=$?
if [ $rc -eq 1 ] && grep -qE '^event +2 +0 +4 +0 ' <<<"$out" &&
    grep -q '^  tap/event/wait/crashes_at_start.t: no plan' <<<"$out" &&
    grep -q '^  tap/stream/sync/waits_for_stream_work.t: planned 4, reported 0 (prove: Non-zero wait status: 9' <<<"$out"; then
    echo "ok 5 - a live prove log: a program that crashed before its plan and one killed after it are both reported"
else
    echo "not ok 5 - the live log was not summarised as expected (exit $rc)"
    printf '%s\n' "$out" | head -20 | sed 's/^/# /'
fi

# a log that is empty, or one where every program skipped (no driver): not a pass
: >"$tmp/empty.log"
out=$(tools/tap-summary --row 8 "$tmp/empty.log" 2>"$tmp/err"); rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "tap-summary: $tmp/empty.log: empty: prove wrote nothing" ]; then
    echo "ok 6 - an empty log is not whole: exit 1 and one line that says so"
else echo "not ok 6 - an empty log gave exit $rc, stderr: $(cat "$tmp/err")"; fi

cat >"$tmp/skipped.log" <<'LOG'
[06:13:19] tap/fifo/null_stream.t .... skipped: no CUDA driver (libcuda.so.1: cannot open shared object file: No such file or directory)
[06:13:19] tap/fifo/legacy_stream.t .. skipped: no CUDA driver (libcuda.so.1: cannot open shared object file: No such file or directory)
[06:13:19]
Files=2, Tests=0,  0 wallclock secs ( 0.05 usr  0.01 sys +  0.01 cusr  0.01 csys =  0.08 CPU)
Result: NOTESTS
LOG
out=$(tools/tap-summary "$tmp/skipped.log" 2>"$tmp/err"); rc=$?
if [ $rc -eq 3 ] && [ "$(cat "$tmp/err")" = "tap-summary: $tmp/skipped.log: no point ran: all 2 programs skipped: no CUDA driver (libcuda.so.1: cannot open shared object file: No such file or directory)" ] &&
    grep -qE '^fifo +2 +2 +0 ' <<<"$out"; then
    echo "ok 7 - a run in which every program skipped exits 3 with one line that says why"
else echo "not ok 7 - an all-skipped log gave exit $rc, stderr: $(cat "$tmp/err")"; fi

# a run in which the program said it passed but prove failed it (it crashed at exit)
sed 's/^Result: PASS$/Result: FAIL/' "$tmp/clean/log" >"$tmp/failed.log"
tools/tap-summary --row 8 "$tmp/failed.log" >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -q 'prove failed the run, though no MUST point failed' "$tmp/err"; then
    echo "ok 8 - a log prove failed is a failure even when no MUST point failed and none was lost"
else echo "not ok 8 - a FAIL log gave exit $rc, stderr: $(cat "$tmp/err")"; fi

# arguments: --help on stdout, a path that does not exist or an unknown option in one line, exit 2
out=$(tools/tap-summary --help 2>"$tmp/err"); rc=$?
if [ $rc -eq 0 ] && [ "${out%%:*}" = usage ] && [ ! -s "$tmp/err" ]; then
    echo "ok 9 - --help prints the usage on stdout and exits 0"
else echo "not ok 9 - --help gave exit $rc, stderr: $(head -c 300 "$tmp/err")"; fi
n=1
for args in "$tmp/no-such.log" "--no-such-option $tmp/clean/log" "$tmp" "--row"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    out=$(tools/tap-summary $args 2>"$tmp/err"); rc=$?
    if [ $rc -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^tap-summary: " "$tmp/err" &&
        grep -qF -- "${args%% *}" "$tmp/err"; then
        echo "ok $((n + 8)) - tap-summary ${args//$tmp/TMP}: one line naming it, exit 2"
    else
        echo "not ok $((n + 8)) - tap-summary ${args//$tmp/TMP} gave exit $rc"
        head -5 "$tmp/err" | sed 's/^/# /'
    fi
done
