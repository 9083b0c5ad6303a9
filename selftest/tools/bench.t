#!/bin/sh
# tools/bench over stand-in programs (the mock rule programs, as tap/<family>/*.t):
# the per-family table counts their points and seconds, and the run, start-up and
# floor lines are printed; bad arguments exit 2 before anything runs.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..6"
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

out=$(tools/bench -j 0 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$out" = "bench: -j '0': a whole number of programs to run at a time, 1 to 256" ]; then echo "ok 2 - -j 0 is refused"
else echo "not ok 2 - -j 0 (exit $rc)"; printf '%s\n' "$out" | sed 's/^/# /'; fi

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
