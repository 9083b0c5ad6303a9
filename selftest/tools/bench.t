#!/bin/sh
# tools/bench over stand-in programs (the mock rule programs, as tap/<family>/*.t):
# the per-family table counts their points and seconds, and the run, start-up and
# floor lines are printed; a run of no point gives no floor and exits 3 saying
# why, and without a driver it answers before anything runs; bad arguments exit
# 2 before anything runs.  The stand-ins run behind a stand-in libcuda.so.1
# (selftest/loader), which lets tools/lib/preflight.sh's probe pass.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..9"
export FAKE_CUINIT=0 LD_LIBRARY_PATH=$PWD/build/selftest/loader/complete
mkdir -p "$tmp/tap/stream" "$tmp/tap/event"
cp "build/selftest/mock/stream.sync.waits_for_stream_work.prog" "$tmp/tap/stream/sync.t"
cp "build/selftest/mock/event.wait.orders_later_work.prog" "$tmp/tap/event/wait.t"
cp "build/selftest/mock/event.query.never_recorded_is_success.prog" "$tmp/tap/event/query.t"
mkdir -p "$tmp/tap/ctx"  # a program whose cases create a context (kept from one case to the next: one start)
cp "build/selftest/mock/ctx.created.sync_waits_for_its_own_context.prog" "$tmp/tap/ctx/created.t"

out=$(STREAMCTS_WINDOW_MS=5 STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench -j2 --startup-samples 2 --no-host "$tmp/tap" 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qE '^event +2 +284 ' && printf '%s\n' "$out" | grep -qE '^stream +1 +64 ' &&
    printf '%s\n' "$out" | grep -qE '^ctx +1 +4 ' && printf '%s\n' "$out" | grep -qE '^all +4 +352 ' && printf '%s\n' "$out" | grep -qE '^run: [0-9.]+ s wall at -j2; CPU' &&
    printf '%s\n' "$out" | grep -qE '^start-up: median [0-9]+ ms over 2 programs' &&
    printf '%s\n' "$out" | grep -qE '^start-up side by side: 2 programs took [0-9.]+ s, [0-9]+ ms each' &&
    printf '%s\n' "$out" | grep -qE '^floor: the larger of \(5 starts x [0-9.]+ s \+ [0-9.]+ s of holds\) / 2 = [0-9.]+ s and 5 starts x [0-9.]+ s = [0-9.]+ s; the run took ' &&
    printf '%s\n' "$out" | grep -qE '^  starts: 4 programs and 0 processes they started \(isolated points, a case.s other processes, MPS servers\) and 1 contexts their cases created;'; then
    echo "ok 1 - per-family programs and points, the run, start-up and floor, with the contexts cases created"
else echo "not ok 1 - bench over four stand-in programs (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi

bad=0
while IFS='|' read -r args line; do
    # shellcheck disable=SC2086 # the arguments are words
    out=$(tools/bench $args 2>&1); rc=$?
    if [ $rc -ne 2 ] || [ "$out" != "bench: $line" ]; then bad=1; echo "# tools/bench $args: exit $rc: $out"; fi
done <<'EOT'
-j 0|-j: '0' is not a whole number in 1..1024
-j1025|-j: '1025' is not a whole number in 1..1024
-j|-j needs a value: a whole number in 1..1024
--startup-samples 65|--startup-samples: '65' is not a whole number in 1..64
--no-such-option|unknown option '--no-such-option' (tools/bench --help lists them)
EOT
if [ $bad = 0 ]; then echo "ok 2 - a bad -j, --startup-samples or option: one line in the runners' wording, exit 2"
else echo "not ok 2 - a bad argument was not refused in the runners' wording"; fi

out=$(tools/bench tap/no-such-family 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s\n' "$out" | grep -q '^bench: tap/no-such-family: no such file or directory'; then echo "ok 3 - a missing path is one line"
else echo "not ok 3 - a missing path (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi

out=$(tools/bench --help); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -q '^usage: tools/bench'; then echo "ok 4 - --help on stdout, exit 0"
else echo "not ok 4 - --help (exit $rc)"; fi

# with the hosts (the default): the run's CPU is the machine's, the floor counts the workers' start-ups
# (-j2: one worker per compile mode, tools/lib/host.sh)
# (the stand-ins call the mock backend: the CUDA hosts refuse them, and they run themselves)
out=$(STREAMCTS_WINDOW_MS=5 STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench -j2 --startup-samples 2 "$tmp/tap" 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qE '^ctx +1 +4 ' && printf '%s\n' "$out" | grep -qE '^all +4 +352 ' &&
    printf '%s\n' "$out" | grep -qE '^run: [0-9.]+ s wall at -j2; CPU .*, the whole machine: hosted\)' &&
    printf '%s\n' "$out" | grep -qE '^floor: the larger of \(3 starts x [0-9.]+ s \+ [0-9.]+ s of holds\) / 2 = ' &&
    printf '%s\n' "$out" | grep -qE '^  starts: 2 workers and 0 processes they started' &&
    [ ! -e "$tmp/bench/host/legacy.sock" ]; then
    echo "ok 5 - hosted: the machine's CPU, the workers' start-ups in the floor, the hosts stopped after"
else echo "not ok 5 - bench with its hosts (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi

# the floor counts the processes a program starts beside itself: a fault rule's children, one per point whose
# program faults (2 here: its controls run in the program)
mkdir -p "$tmp/faults/tap/error"
cp "build/selftest/mock/error.fault.stream_sync_reports_it.prog" "$tmp/faults/tap/error/fault.t"
out=$(STREAMCTS_WINDOW_MS=5 STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench -j2 --startup-samples 1 --no-host "$tmp/faults/tap" 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qE '^  starts: 1 programs and 2 processes they started' &&
    printf '%s\n' "$out" | grep -qE '^floor: the larger of \(3 starts x '; then
    echo "ok 6 - a fault rule's child processes count as starts in the floor"
else echo "not ok 6 - bench over a fault rule (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi

# programs that ran no point: no floor (a ratio of nothing), exit 3 and one line that says why
mkdir -p "$tmp/none/tap/event"
printf '#!/bin/sh\necho "TAP version 13"; echo "1..0 # SKIP needs 2 GPUs, this machine has 1"\n' >"$tmp/none/tap/event/two.t"
chmod +x "$tmp/none/tap/event/two.t"
STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench -j1 --startup-samples 1 --no-host "$tmp/none/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 3 ] && grep -q '^floor: none: no point ran$' "$tmp/out" && ! grep -q 'x the floor' "$tmp/out" &&
    [ "$(cat "$tmp/err")" = "bench: no point ran: the program skipped: needs 2 GPUs, this machine has 1" ]; then
    echo "ok 7 - no point ran: no floor, exit 3 and why"
else echo "not ok 7 - a run of no point (exit $rc)"; sed 's/^/# /' "$tmp/out" "$tmp/err"; fi

# without a driver (or a device): answered before anything is built or run; a bad STREAMCTS_* value likewise
unset FAKE_CUINIT LD_LIBRARY_PATH
rm -rf "$tmp/bench"
out=$(CUDA_VISIBLE_DEVICES= STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench "$tmp/tap" 2>&1); rc=$?
if [ $rc -eq 3 ] && [ ! -e "$tmp/bench" ] &&
    printf '%s\n' "$out" | grep -qxE 'bench: no point ran: no CUDA (driver|device) \(.+\) \(found by build/probe, before any program was started\)'; then
    echo "ok 8 - no driver or device: exit 3 with one line, before any program ran"
else echo "not ok 8 - bench without a driver (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi
out=$(STREAMCTS_DEADLINE_MS=0 STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench "$tmp/tap" 2>&1); rc=$?
if [ $rc -eq 2 ] && [ ! -e "$tmp/bench" ] && [ "$out" = "bench: STREAMCTS_DEADLINE_MS: '0' is not a whole number in 1..600000" ]; then
    echo "ok 9 - STREAMCTS_DEADLINE_MS=0: named once with its range, exit 2, before any program ran"
else echo "not ok 9 - bench with a bad STREAMCTS_DEADLINE_MS (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi
