#!/bin/bash
# tools/settings-matrix and tools/connections-matrix over a stand-in prove that
# replays a log chosen by the CUDA_DEVICE_MAX_CONNECTIONS and CUDA_LAUNCH_BLOCKING
# it was given (and records them), so the tables, the wall time, the exit status
# and what reaches the programs are checked in a second.  A stand-in
# libcuda.so.1 (selftest/loader) lets the check before a run
# (tools/lib/preflight.sh) pass; without one, no driver or device and a bad
# STREAMCTS_* value are answered before prove is called.
cd "$(dirname "$0")/../.." || exit 1
dir=$PWD/selftest/tools
m=$PWD/build/selftest/mock
echo "TAP version 13"
echo "1..10"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# a whole log of a passing run: one mock program under the real prove
mkdir -p "$tmp/clean/tap/event/wait"
cp "$m/event.wait.orders_later_work.prog" "$tmp/clean/tap/event/wait/orders_later_work.t"
(cd "$tmp/clean" && STREAMCTS_WINDOW_MS=5 STREAMCTS_CASE='*.kernel.memset' prove -r -v --timer tap/ >"$tmp/pass.log" 2>&1)
cat >"$tmp/skip.log" <<'LOG'
[06:13:19] tap/fifo/null_stream.t .... skipped: no CUDA driver (libcuda.so.1: cannot open shared object file)
[06:13:19] tap/fifo/legacy_stream.t .. skipped: no CUDA driver (libcuda.so.1: cannot open shared object file)
[06:13:19]
Files=2, Tests=0,  0 wallclock secs ( 0.05 usr  0.01 sys +  0.01 cusr  0.01 csys =  0.08 CPU)
Result: NOTESTS
LOG

# the stand-in prove: "$tmp/plan" has lines "CONNECTIONS,BLOCKING LOG STATUS" ("*" for
# any other); every call appends "CONNECTIONS,BLOCKING ARGS" to "$tmp/calls"
mkdir -p "$tmp/bin"
cat >"$tmp/bin/prove" <<STANDIN
#!/bin/sh
key="\${CUDA_DEVICE_MAX_CONNECTIONS-unset},\${CUDA_LAUNCH_BLOCKING-unset}"
echo "\$key \$*" >>"$tmp/calls"
line=\$(grep "^\$key " "$tmp/plan" || grep '^\* ' "$tmp/plan")
set -f; set -- \$line
cat "\$2"
exit "\$3"
STANDIN
chmod +x "$tmp/bin/prove"
matrix() {  # TOOL ARG...: runs it with the stand-in; out, err, rc and calls
    local tool=$1; shift
    rm -f "$tmp/calls"
    PATH="$tmp/bin:$PATH" STREAMCTS_MATRIX_DIR="$tmp/matrix" CUDA_LAUNCH_BLOCKING=0 CUDA_DEVICE_MAX_CONNECTIONS=4 \
        FAKE_CUINIT=${FAKE_CUINIT-0} LD_LIBRARY_PATH=${LD_LIBRARY_PATH-$PWD/build/selftest/loader/complete} \
        "tools/$tool" "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out"); err=$(cat "$tmp/err"); calls=$(cat "$tmp/calls" 2>/dev/null)
}
rows() { grep -E "^($1) " <<<"$out" | tr -s ' ' | cut -d' ' -f1-7; }
note() { printf '%s\n' "$out" | head -30 | sed 's/^/# /'; printf '%s\n' "$err" | head -5 | sed 's/^/# err: /'; }

# the default settings: default passes, connections=1 is the H100 excerpt (not whole),
# connections=32 passes, launch-blocking is the mock run (a MUST failure, lost points)
cat >"$tmp/plan" <<PLAN
unset,unset $tmp/pass.log 0
1,unset $dir/h100-excerpt.tap 0
32,unset $tmp/pass.log 0
unset,1 $dir/mock-run.tap 1
PLAN
matrix settings-matrix -j2
want=$(printf '%s\n' "default 4 0 0 0 0 0" "connections=1 30 0 2 1 4 0" "connections=32 4 0 0 0 0 0" \
    "launch-blocking 2 1 0 0 0 64")
if [ $rc -eq 1 ] && [ "$(rows 'default|connections=1|connections=32|launch-blocking')" = "$want" ] &&
    [ "$(grep -cE '^(default|connections=1|connections=32|launch-blocking) +([0-9]+ +){6}[0-9]+$' <<<"$out")" = 4 ] &&
    grep -q '^setting .* wall-s$' <<<"$out" &&
    [ "$(grep -c '^-- .*, per family:$' <<<"$out")" = 4 ] &&
    grep -q '^-- launch-blocking (CUDA_LAUNCH_BLOCKING=1), per family:$' <<<"$out" &&
    grep -q '^  tap/stream/sync/waits_for_stream_work.t: planned 64, reported 0' <<<"$out" &&
    [ -s "$tmp/matrix/launch-blocking.tap" ] && [ -s "$tmp/matrix/connections-32.tap" ]; then
    echo "ok 1 - one row per setting with its wall seconds, each setting's families; a MUST failure or lost points exit 1"
else echo "not ok 1 - settings-matrix with its default settings (exit $rc)"; note; fi

# prove gets the programs themselves, in the order tools/lib/order.sh gives them
. tools/lib/order.sh
programs() { find "$@" -name '*.t' ! -type d | programs_spread | tr '\n' ' ' | sed 's/ $//'; }
all=$(programs tap/)
want=$(printf '%s\n' "unset,unset -r -v --timer -j2 $all" "1,unset -r -v --timer -j2 $all" \
    "32,unset -r -v --timer -j2 $all" "unset,1 -r -v --timer -j2 $all")
if [ "$calls" = "$want" ]; then
    echo "ok 2 - each setting reaches prove (and its programs) with only its own variables, the caller's unset"
else echo "not ok 2 - prove was called as:"; printf '%s\n' "$calls" | sed 's/^/# /'; fi

# every setting passes: exit 0; a combined setting sets both variables
printf '* %s 0\n' "$tmp/pass.log" >"$tmp/plan"
matrix settings-matrix --settings connections=1+launch-blocking,connections=8 tap/event
if [ $rc -eq 0 ] && [ -z "$err" ] &&
    [ "$calls" = "$(printf '%s\n' "1,1 -r -v --timer $(programs tap/event)" "8,unset -r -v --timer $(programs tap/event)")" ] &&
    [ "$(rows 'connections=1\+launch-blocking|connections=8')" = "$(printf '%s\n' "connections=1+launch-blocking 4 0 0 0 0 0" "connections=8 4 0 0 0 0 0")" ]; then
    echo "ok 3 - --settings picks the settings, in its order; A+B sets both; all kept: exit 0"
else echo "not ok 3 - --settings connections=1+launch-blocking,connections=8 (exit $rc)"; note; printf '%s\n' "$calls" | sed 's/^/# call: /'; fi

# no driver: every program skips under every setting
printf '* %s 0\n' "$tmp/skip.log" >"$tmp/plan"
matrix settings-matrix --settings default,launch-blocking
if [ $rc -eq 3 ] &&
    [ "$err" = "settings-matrix: no point ran under any setting: all 2 programs skipped: no CUDA driver (libcuda.so.1: cannot open shared object file)" ]; then
    echo "ok 4 - nothing ran: exit 3 and one line that says why"
else echo "not ok 4 - an all-skipped matrix (exit $rc)"; note; fi
STREAMCTS_ALLOW_SKIP=1 matrix settings-matrix --settings default,launch-blocking
if [ $rc -eq 0 ] && grep -q '^settings-matrix: no point ran under any setting: .*(STREAMCTS_ALLOW_SKIP=1: exit 0)$' <<<"$err"; then
    echo "ok 5 - STREAMCTS_ALLOW_SKIP=1: nothing ran still says why, and exits 0"
else echo "not ok 5 - STREAMCTS_ALLOW_SKIP=1 (exit $rc)"; note; fi

# nothing ran under one setting only
printf '%s\n' "unset,1 $tmp/skip.log 0" "* $tmp/pass.log 0" >"$tmp/plan"
matrix settings-matrix --settings default,launch-blocking
if [ $rc -eq 3 ] && [ "$err" = "settings-matrix: no point ran under launch-blocking: all 2 programs skipped: no CUDA driver (libcuda.so.1: cannot open shared object file)" ]; then
    echo "ok 6 - nothing ran under one setting: exit 3, and the line names the setting"
else echo "not ok 6 - one setting skipped (exit $rc)"; note; fi

# bad settings and options: one line, exit 2, prove never called
bad=0
for args in "--settings connections=0" "--settings connections=33" "--settings fast" "--settings default,,launch-blocking" \
    "--settings default,default" "--settings" "-v" "--no-such-option" "tap/no-such-family"; do
    # shellcheck disable=SC2086
    matrix settings-matrix $args
    if [ $rc -ne 2 ] || [ -n "$out" ] || [ -n "$calls" ] || [ "$(wc -l <<<"$err")" -ne 1 ]; then
        bad=1; echo "# settings-matrix $args: exit $rc, stderr: $err"
    fi
done
if [ $bad = 0 ]; then echo "ok 7 - a bad setting or option: one line naming it, exit 2, nothing run"
else echo "not ok 7 - a bad setting or option was not refused in one line"; fi

# connections-matrix: settings-matrix over 1, 8 and 32 connections
printf '%s\n' "32,unset $dir/mock-run.tap 1" "* $dir/h100-excerpt.tap 0" >"$tmp/plan"
matrix connections-matrix -j2
if [ $rc -eq 1 ] && [ "$(rows '1|8|32|connections=1|connections=8|connections=32')" = \
        "$(printf '%s\n' "connections=1 30 0 2 1 4 0" "connections=8 30 0 2 1 4 0" "connections=32 2 1 0 0 0 64")" ] &&
    [ "$(grep -c '^-- connections=[0-9]* (CUDA_DEVICE_MAX_CONNECTIONS=[0-9]*), per family:$' <<<"$out")" = 3 ] &&
    grep -q '^  tap/stream/sync/waits_for_stream_work.t: planned 64, reported 0' <<<"$out" &&
    [ -s "$tmp/matrix/connections-32.tap" ] && [ -s "$tmp/matrix/connections-8.tap" ]; then
    echo "ok 8 - connections-matrix gives one row per connection count and each one's families, and fails on lost points"
else echo "not ok 8 - connections-matrix output (exit $rc)"; note; fi

# without a driver or device (every GPU hidden, no stand-in): one line, exit 3, prove never called;
# a bad STREAMCTS_* value: named once, exit 2
LD_LIBRARY_PATH= CUDA_VISIBLE_DEVICES= matrix settings-matrix
if [ $rc -eq 3 ] && [ -z "$out" ] && [ -z "$calls" ] &&
    grep -qxE 'settings-matrix: no point ran: no CUDA (driver|device) \(.+\) \(found by build/probe, before any program was started\)' <<<"$err"; then
    echo "ok 9 - no driver or device: exit 3 with one line, before prove is called"
else echo "not ok 9 - settings-matrix without a driver or device (exit $rc)"; note; fi
STREAMCTS_REPEAT=0 matrix connections-matrix
if [ $rc -eq 2 ] && [ -z "$out" ] && [ -z "$calls" ] &&
    [ "$err" = "connections-matrix: STREAMCTS_REPEAT: '0' is not a whole number in 1..10000" ]; then
    echo "ok 10 - STREAMCTS_REPEAT=0: named once with its range, exit 2, before prove is called"
else echo "not ok 10 - connections-matrix with STREAMCTS_REPEAT=0 (exit $rc)"; note; fi
