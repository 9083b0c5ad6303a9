#!/bin/bash
# The host process (runtime/suite/host.h) against the mock backend: a program that
# hands its run to a warm worker prints what it would print itself, with the
# same exit status; a host of another driver environment refuses and the
# program runs itself; a worker that ends mid-run fails that program, not the
# next; the lease's end stops the host.
cd "$(dirname "$0")/../.." || exit 1
host=build/selftest/mock/host dir=build/selftest/mock
export STREAMCTS_WINDOW_MS=5
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
say() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2" "${3:-}"; fi; }
points() { grep -E '^(not )?ok [0-9]+ - |^1\.\.' <<<"$1"; }
# same_points A B: the same plan and points, where a point a loaded machine made undecidable in one run
# (tried again with fresh streams, it may still be) counts as the same point whatever the other run said
same_points() {
    local a b
    a=$(points "$1") b=$(points "$2")
    [ "$(wc -l <<<"$a")" = "$(wc -l <<<"$b")" ] || return 1
    paste -d '\n' <(printf '%s\n' "$a") <(printf '%s\n' "$b") | awk '
        NR % 2 { x = $0; next }
        { y = $0
          if (x == y) next
          if (x !~ /# TODO undecidable/ && y !~ /# TODO undecidable/) exit 1
          sub(/^(not )?ok /, "", x); sub(/ # .*/, "", x); sub(/^(not )?ok /, "", y); sub(/ # .*/, "", y)
          if (x != y) exit 1 }'
}
echo "TAP version 13"
tmp=$(mktemp -d); trap 'exec 9<&- 8<&-; rm -rf "$tmp"' EXIT
mkfifo "$tmp/lease" "$tmp/lease2"

# arguments
out=$($host --help 2>&1); say $? "--help prints the usage" "$out"
out=$($host --serve "$tmp" 2>&1); rc=$?
[ $rc = 2 ] && grep -q 'are both needed' <<<"$out"; say $? "--serve without --lease: exit 2, named" "$out"
out=$($host --serve "$tmp" --lease "$tmp/lease" --workers 0 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- '--workers 0: not a number from 1 to 64' <<<"$out"; say $? "--workers 0: exit 2 with the range" "$out"
: >"$tmp/plain"
out=$($host --serve "$tmp" --lease "$tmp/plain" 2>&1); rc=$?
[ $rc = 2 ] && grep -q -- "--lease $tmp/plain: not a FIFO" <<<"$out" && [ ! -e "$tmp/legacy.sock" ]
say $? "--lease of a plain file: exit 2, no socket left" "$out"

# a host with two workers; every legacy mock program through it and alone
exec 9<>"$tmp/lease"
$host --serve "$tmp" --lease "$tmp/lease" --workers 2 9<&- >"$tmp/legacy.log" 2>&1
say $? "the host listens and goes to the background"
for p in $($host --list); do
    prog=$dir/$p.prog
    alone=$("$prog" 2>&1); rc_alone=$?
    hosted=$(STREAMCTS_HOST=$tmp "$prog" 2>"$tmp/err"); rc_hosted=$?
    same_points "$alone" "$hosted" && [ $rc_alone = $rc_hosted ] &&
        grep -q "^# host: run for .*$p.prog by host process" <<<"$hosted" && [ ! -s "$tmp/err" ]
    say $? "$p: the same points and exit status ($rc_hosted) through the host as alone" \
        "$(diff <(points "$alone") <(points "$hosted") | head -5; cat "$tmp/err")"
done
[ "$(grep -c ': .* (build/selftest/mock/.*\.prog)$' "$tmp/legacy.log")" -ge 17 ]
say $? "the host's log names each program it ran" "$(tail -3 "$tmp/legacy.log")"
# the first look's state is the program's own: after a calibrated program, one that turns the first look
# off (STREAMCTS_FIRST_LOOK_MS=0) keeps it off on the same worker, however long ago the last timing was
STREAMCTS_HOST=$tmp "$dir/event.wait.orders_later_work.prog" >/dev/null 2>&1
sleep 1.1  # past SC_FIRST_LOOK_RECHECK_NS
out=$(STREAMCTS_HOST=$tmp STREAMCTS_FIRST_LOOK_MS=0 "$dir/event.wait.orders_later_work.prog" 2>&1); rc=$?
[ $rc = 0 ] && grep -q '^# host:' <<<"$out" && ! grep -q '^# first look' <<<"$out"
say $? "a program that turns the first look off keeps it off on a worker whose last program timed one" \
    "$(grep '^# first look' <<<"$out")"
# the contexts a program's cases made are its own count: through the host as alone, and none carried over
# to the programs each worker runs next
out=$(STREAMCTS_HOST=$tmp "$dir/ctx.created.sync_waits_for_its_own_context.prog" 2>&1)
next1=$(STREAMCTS_HOST=$tmp "$dir/event.wait.orders_later_work.prog" 2>&1)
next2=$(STREAMCTS_HOST=$tmp "$dir/event.wait.orders_later_work.prog" 2>&1)
grep -q '^# host:' <<<"$out" && grep -q '^# contexts created: 1 by the cases' <<<"$out" &&
    ! grep -q '^# contexts created' <<<"$next1$next2"
say $? "a hosted program counts the contexts its cases made, and the next programs on the workers count none" \
    "$(grep -h '^# contexts' <<<"$out$next1$next2")"
# a worker that ran other programs of several processes before: its regions are reused, and one process
# per other process serves both APIs' runs (main moves it on: run.c, sc_run_move_peers)
out=$(STREAMCTS_HOST=$tmp "$dir/process.legacy_stream.not_held_by_other_process.prog" 2>&1); rc=$?
# (a point a loaded machine made undecidable is no failure: the check is of the processes, not of the points)
[ $rc = 0 ] && grep -q '^# host:' <<<"$out" && grep -qE '^# other processes: 1 started for [0-9]{2,} runs$' <<<"$out" &&
    grep -q '^ok [0-9]* - .*\.runtime$' <<<"$out" && ! grep '^not ok' <<<"$out" | grep -vq '# TODO undecidable'
say $? "through a warm worker, a case's other process is started once and serves both APIs" \
    "exit $rc; $(grep -A3 '^not ok' <<<"$out" | head -8; grep '^# other processes' <<<"$out")"

# options and settings are the program's own
out=$(STREAMCTS_HOST=$tmp STREAMCTS_WINDOW_MS=7 "$dir/stream.sync.waits_for_stream_work.prog" --case '*.kernel.blocking' --api driver 2>&1)
[ "$(grep -cE '^ok [0-9]+ - ' <<<"$out")" = 2 ] && grep -q '^# window 7 ms' <<<"$out"
say $? "a program's options (--case, --api) and STREAMCTS_* settings reach the worker" "$out"
out=$(STREAMCTS_HOST=$tmp "$dir/stream.sync.waits_for_stream_work.prog" --case '*.kernel.blocking' --api driver 2>&1)
grep -q '^# window 5 ms' <<<"$out"; say $? "and the next program's settings replace them" "$out"

# another driver environment: refused, the program runs itself
out=$(STREAMCTS_HOST=$tmp STREAMCTS_MOCK_BREAK=wait "$dir/event.wait.orders_later_work.prog" 2>"$tmp/err"); rc=$?
[ $rc = 1 ] && grep -q 'completed while A was still pending' <<<"$out" && ! grep -q '^# host:' <<<"$out" &&
    grep -q "did not take the run (the program's STREAMCTS_MOCK_BREAK=wait is not the host's); running here" "$tmp/err"
say $? "a program whose driver environment differs runs itself, finds the broken promise, and says why on stderr" "$(cat "$tmp/err")"
out=$(STREAMCTS_HOST=$tmp/nowhere "$dir/event.query.never_recorded_is_success.prog" 2>"$tmp/err"); rc=$?
[ $rc = 0 ] && grep -q '^ok 1' <<<"$out" && grep -q "no host at $tmp/nowhere/legacy.sock" "$tmp/err"
say $? "with no host at STREAMCTS_HOST, the program runs itself and says so" "$(cat "$tmp/err")"

# a host whose driver breaks a promise: the hosted program reports it
mkdir "$tmp/broken"
exec 8<>"$tmp/lease2"
STREAMCTS_MOCK_BREAK=wait $host --serve "$tmp/broken" --lease "$tmp/lease2" --workers 1 8<&- 9<&- >"$tmp/broken.log" 2>&1
out=$(STREAMCTS_HOST=$tmp/broken STREAMCTS_MOCK_BREAK=wait "$dir/event.wait.orders_later_work.prog" 2>&1); rc=$?
[ $rc = 1 ] && grep -q 'completed while A was still pending' <<<"$out" && grep -q '^# host:' <<<"$out"
say $? "a broken promise is found through the host too (exit $rc)" "$(grep -m3 'not ok' <<<"$out")"

# a worker that ends mid-run: that program fails, the host starts another worker for the next
mkdir "$tmp/hang"
STREAMCTS_MOCK_BREAK=hang $host --serve "$tmp/hang" --lease "$tmp/lease2" --workers 1 8<&- 9<&- >"$tmp/hang.log" 2>&1
out=$(STREAMCTS_HOST=$tmp/hang STREAMCTS_MOCK_BREAK=hang timeout 60 "$dir/stream.sync.waits_for_stream_work.prog" --deadline-ms 200 2>&1); rc=$?
[ $rc = 1 ] && grep -q 'not completed: an earlier case left a host thread blocked' <<<"$out" &&
    grep -q '^# the host worker running this program at .* ended before it did' <<<"$out"
say $? "a worker that ends mid-run fails the program it ran, with the reason (exit $rc)" "$out"
out=$(STREAMCTS_HOST=$tmp/hang STREAMCTS_MOCK_BREAK=hang timeout 60 "$dir/event.query.never_recorded_is_success.prog" 2>&1); rc=$?
[ $rc = 0 ] && grep -q '^# host:' <<<"$out" && grep -q 'worker [0-9]* ended (status 1); starting another' "$tmp/hang.log"
say $? "the host starts another worker, which runs the next program" "$out$(cat "$tmp/hang.log")"

# a program killed while a worker runs it (a time limit, ^C): the worker ends with it, the host starts another
# (no first look: each point holds the whole 2 s window, so the program still runs when it is killed)
STREAMCTS_HOST=$tmp STREAMCTS_WINDOW_MS=2000 STREAMCTS_FIRST_LOOK_MS=0 "$dir/stream.sync.waits_for_stream_work.prog" >/dev/null 2>&1 &
client=$!
for _ in $(seq 100); do grep -q ': stream.sync.waits_for_stream_work (' "$tmp/legacy.log" && break; sleep 0.05; done
sleep 0.2
kill -TERM $client
wait $client 2>/dev/null
ended=1
for _ in $(seq 100); do
    if grep -q 'the program went away; this worker ends' "$tmp/legacy.log" &&
        grep -q 'worker [0-9]* ended (status 3); starting another' "$tmp/legacy.log"; then ended=0; break; fi
    sleep 0.05
done
out=$(STREAMCTS_HOST=$tmp "$dir/event.query.never_recorded_is_success.prog" 2>&1); rc=$?
[ $ended = 0 ] && [ $rc = 0 ] && grep -q '^# host:' <<<"$out"
say $? "a program killed mid-run ends its worker within 5 s; the host starts another, which runs the next" \
    "$(tail -5 "$tmp/legacy.log")"

# the lease's end stops the hosts: sockets gone, processes gone
exec 9<&- 8<&-
gone=1
for _ in $(seq 100); do
    if [ ! -e "$tmp/legacy.sock" ] && [ ! -e "$tmp/broken/legacy.sock" ] && [ ! -e "$tmp/hang/legacy.sock" ] && ! pgrep -f "$host --serve $tmp" >/dev/null; then
        gone=0; break
    fi
    sleep 0.05
done
say $gone "when every writer closed the lease, the hosts remove their sockets and end within 5 s"
echo "1..$n"
