#!/bin/bash
# One MPS daemon per run (tools/lib/mps.sh): tools/run-suite, tools/settings-matrix
# (one per setting, started under its variables), tools/bench and tools/certify start
# one nvidia-cuda-mps-control -d, hand it to their *.mps.t programs
# (STREAMCTS_MPS_DAEMON) and stop it at the end, on TERM too; a daemon a killed run
# left is stopped; one that cannot start leaves the programs to their own.  The
# control program is the stand-in of selftest/tools/mps (no GPU, no MPS server);
# the programs are the mock build of a process rule (selftest/mock), which runs its
# cases as an MPS client on host threads.  What only a GPU shows (a real server, its
# clients side by side, the time it saves) is not tested here.
cd "$(dirname "$0")/../.." || exit 1
echo "TAP version 13"
echo "1..9"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fake=$PWD/selftest/tools/mps
mock=$PWD/build/selftest/mock/process.legacy_stream.not_held_by_other_process.prog
export STREAMCTS_WINDOW_MS=5 STREAMCTS_CASE='*.kernel.kernel'
# a program that took the lock (held by the tool for the run) would fail in 0.3 s: `not ok 1 - MPS lock`
export STREAMCTS_MPS_LOCK_MS=300
export FAKE_MPS_CALLS=$tmp/calls
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -20 | sed 's/^/# /'; }
calls() { grep -c "^$1 " "$tmp/calls" 2>/dev/null; }  # -d or quit: how many
dirs() { sed -n "s/^$1 dir=\([^ ]*\) .*/\1/p" "$tmp/calls" 2>/dev/null; }
lock_free() { flock -n /tmp/streamcts-mps.lock true; }
shared() { grep -c "^# MPS: every process of every case is a client of the run's shared MPS server.* (pipe directory $1)" "$2"; }

# three *.mps.t programs of one rule
mkdir -p "$tmp/tap/a" "$tmp/slow"
for p in one two three; do cp "$mock" "$tmp/tap/a/$p.mps.t"; done

# 1. run-suite: one daemon for the run, which every program uses; the orphan a killed run left is stopped
orphan=$(mktemp -d /tmp/streamcts-mps-selftest-orphan.XXXXXX)
CUDA_MPS_PIPE_DIRECTORY=$orphan CUDA_MPS_LOG_DIRECTORY=$orphan FAKE_MPS_CALLS=/dev/null "$fake/nvidia-cuda-mps-control" -d
PATH="$fake:$PATH" tools/run-suite -v -j3 "$tmp/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
d=$(dirs -d)
if [ $rc -eq 0 ] && [ "$(calls -d)" = 1 ] && [ "$(dirs quit | grep -cx "$d")" = 1 ] && [ "$(shared "$d" "$tmp/out")" = 3 ] &&
    [ "$(grep -c '^ok [0-9]' "$tmp/out")" = 12 ] && ! grep -q '^not ok' "$tmp/out" && [ ! -e "$d" ] && lock_free &&
    [ ! -e "$orphan" ] && [ "$(dirs quit | grep -cx "$orphan")" = 1 ] &&
    grep -qxF "run-suite: MPS: stopped the control daemon a killed run left behind ($orphan)" "$tmp/err"; then
    ok "run-suite: one daemon for the run, all 3 programs its clients (no lock taken), stopped at the end; a killed run's daemon stopped"
else nok "run-suite with the stand-in control program (exit $rc)" "$(cat "$tmp/calls" "$tmp/err"; grep '^# MPS\|^not ok\|MPS' "$tmp/out")"; fi
rm -rf "$orphan"

# 2. settings-matrix: one daemon per setting, started under that setting's variables
rm -f "$tmp/calls"
PATH="$fake:$PATH" STREAMCTS_MATRIX_DIR="$tmp/matrix" CUDA_DEVICE_MAX_CONNECTIONS=4 \
    tools/settings-matrix --settings default,connections=1+launch-blocking -j3 "$tmp/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
d1=$(dirs -d | sed -n 1p); d2=$(dirs -d | sed -n 2p)
if [ $rc -eq 0 ] && [ "$(calls -d)" = 2 ] && [ "$d1" != "$d2" ] &&
    [ "$(sed -n 's/^-d dir=[^ ]* //p' "$tmp/calls" | tr '\n' ';')" = "conn= blocking=;conn=1 blocking=1;" ] &&
    [ "$(dirs quit | tr '\n' ' ')" = "$d1 $d2 " ] &&
    [ "$(shared "$d1" "$tmp/matrix/default.tap")" = 3 ] && [ "$(shared "$d2" "$tmp/matrix/connections-1+launch-blocking.tap")" = 3 ] &&
    [ ! -e "$d1" ] && [ ! -e "$d2" ] && lock_free; then
    ok "settings-matrix: a daemon per setting, started with the setting's variables, used by its programs, stopped after it"
else nok "settings-matrix with the stand-in control program (exit $rc)" "$(cat "$tmp/calls" "$tmp/err" "$tmp/out")"; fi

# 3. TERM to run-suite while its programs run: the daemon is stopped once prove has ended
cat >"$tmp/slow/slow.mps.t" <<EOF
#!/bin/sh
echo "\${STREAMCTS_MPS_DAEMON:-none}" >"$tmp/slow-saw"
sleep 2
echo 1..1; echo "ok 1 - slow"
EOF
chmod +x "$tmp/slow/slow.mps.t"
rm -f "$tmp/calls"
PATH="$fake:$PATH" tools/run-suite --no-host "$tmp/slow" >"$tmp/out" 2>"$tmp/err" & pid=$!
for _ in $(seq 100); do [ -s "$tmp/slow-saw" ] && break; sleep 0.1; done
kill -TERM $pid; wait $pid; rc=$?
d=$(dirs -d)
if [ $rc -eq 143 ] && [ -n "$d" ] && [ "$(cat "$tmp/slow-saw")" = "$d" ] && [ "$(dirs quit | grep -cx "$d")" = 1 ] && [ ! -e "$d" ] && lock_free; then
    ok "run-suite on TERM: exit 143, its daemon stopped and its directory removed"
else nok "run-suite on TERM (exit $rc)" "$(cat "$tmp/calls" "$tmp/err" "$tmp/slow-saw")"; fi

# 4. a daemon that cannot start: one line, and the programs start their own (which fail too: they skip)
rm -f "$tmp/calls"
PATH="$fake:$PATH" FAKE_MPS_START=3 STREAMCTS_ALLOW_SKIP=1 tools/run-suite -v -j3 "$tmp/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && grep -q "^run-suite: MPS: .*nvidia-cuda-mps-control -d did not start a daemon (3; \[fake\] cannot start: FAKE_MPS_START=3): the \*\.mps\.t programs start daemons of their own$" "$tmp/err" &&
    [ "$(grep -c ' skipped: no MPS: .*-d failed (exit 3' "$tmp/out")" = 3 ] && [ "$(calls -d)" = 4 ] &&
    [ -z "$(find /tmp -maxdepth 1 -name 'streamcts-mps-*' -newer "$tmp/tap" 2>/dev/null)" ] && lock_free; then
    ok "a daemon that cannot start: one line on stderr, the run goes on, each program tries its own"
else nok "a daemon that cannot start (exit $rc)" "$(cat "$tmp/calls" "$tmp/err"; grep 'SKIP\|^not ok' "$tmp/out")"; fi

# 5. no control program: nothing started, nothing said; the programs skip as without a run tool
rm -f "$tmp/calls"
if PATH=/usr/bin:/bin sh -c '. tools/lib/mps.sh; mps_control' >/dev/null; then
    ok "# SKIP this machine has nvidia-cuda-mps-control: the run without one cannot be shown here"
else
    STREAMCTS_ALLOW_SKIP=1 tools/run-suite -v -j3 "$tmp/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^run-suite: MPS' "$tmp/err" && [ ! -e "$tmp/calls" ] &&
        [ "$(grep -c ' skipped: no MPS: nvidia-cuda-mps-control is not on PATH' "$tmp/out")" = 3 ]; then
        ok "no nvidia-cuda-mps-control: no daemon, no message; the programs skip (no MPS: ...)"
    else nok "a run without nvidia-cuda-mps-control (exit $rc)" "$(cat "$tmp/err"; grep 'SKIP\|MPS' "$tmp/out")"; fi
fi

# 6. the lock held elsewhere for longer than mps_start waits (10 s): the programs take turns as before
rm -f "$tmp/calls"
( exec 7</tmp/streamcts-mps.lock && flock 7 && exec sleep 12 ) & holder=$!  # killed, it frees the lock
sleep 0.3
out=$(PATH="$fake:$PATH" sh -c '. tools/lib/mps.sh; mps_start test; echo "daemon=${STREAMCTS_MPS_DAEMON:-none}"; mps_stop test' 2>&1); rc=$?
kill $holder 2>/dev/null; wait $holder 2>/dev/null
if [ $rc -eq 0 ] && [ "$out" = "test: MPS: another run held the MPS lock /tmp/streamcts-mps.lock for 10 s: the *.mps.t programs start daemons of their own, one at a time
daemon=none" ] && [ ! -e "$tmp/calls" ]; then
    ok "the MPS lock held elsewhere: mps_start gives up after 10 s with one line, starting nothing"
else nok "mps_start with the lock held elsewhere (exit $rc)" "$out"; fi

# 7. a daemon that does not quit: named, its directory left for the next run to stop; never a hang
rm -f "$tmp/calls"
out=$(PATH="$fake:$PATH" sh -c '. tools/lib/mps.sh; mps_start test; d=$mps_dir; export FAKE_MPS_QUIT_HANG=1; mps_stop test; echo "left=$d"' 2>&1); rc=$?
d=$(dirs -d)
if [ $rc -eq 0 ] && [ -n "$d" ] && [ "$out" = "test: MPS: the control daemon at $d did not quit within 20 s; the next run's start stops it
left=$d" ] && [ -p "$d/control" ] && lock_free; then
    ok "a daemon that does not quit within 20 s: named on stderr, its directory kept for the next run"
else nok "a daemon that does not quit (exit $rc)" "$out"; fi
rm -rf "$d"

# 8. bench: one daemon for its run (the start-up sample, run before it, starts its own)
rm -f "$tmp/calls"
PATH="$fake:$PATH" STREAMCTS_BENCH_DIR="$tmp/bench" tools/bench -j3 --startup-samples 1 --no-host "$tmp/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
d=$(dirs -d | tail -1)
if [ $rc -eq 0 ] && [ "$(calls -d)" = 2 ] && [ "$(dirs quit | grep -cx "$d")" = 1 ] && [ ! -e "$d" ] && lock_free &&
    [ "$(cat "$tmp"/bench/tap/*one.mps.t "$tmp"/bench/tap/*two.mps.t "$tmp"/bench/tap/*three.mps.t | grep -c "^# MPS: .*shared MPS server.*$d")" = 3 ]; then
    ok "bench: one daemon for the run, its programs its clients, stopped at the end"
else nok "bench with the stand-in control program (exit $rc)" "$(cat "$tmp/calls" "$tmp/err" "$tmp/out")"; fi

# 9. certify: one daemon for the run (and its reruns), stopped before the bundle is written
rm -f "$tmp/calls"
mkdir -p "$tmp/live/tap/process/legacy_stream"
cp "$mock" "$tmp/live/tap/process/legacy_stream/not_held_by_other_process.mps.t"
PATH="$fake:$PATH" TMPDIR=$tmp tools/certify --no-build --no-host -j2 --rerun-failures 0 -o "$tmp/cert" "$tmp/live/tap" >"$tmp/out" 2>"$tmp/err"; rc=$?
d=$(dirs -d)
if [ -n "$d" ] && [ "$(calls -d)" = 1 ] && [ "$(dirs quit | grep -cx "$d")" = 1 ] && [ ! -e "$d" ] && lock_free &&
    grep -rq "^# MPS: .*shared MPS server.*$d" "$tmp/cert/tap"; then
    ok "certify: one daemon for the run, its programs its clients, stopped at the end (exit $rc: a subset is INCOMPLETE)"
else nok "certify with the stand-in control program (exit $rc)" "$(cat "$tmp/calls" "$tmp/err")"; fi
