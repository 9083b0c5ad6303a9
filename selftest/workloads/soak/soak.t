#!/bin/bash
# tools/soak's program (workloads/soak, docs/soak.md) against the mock backend
# (build/selftest/soak/soak-mock, no GPU): bad flags are named with their range
# and exit 2 before a device is touched; an 8-second soak ends with no
# violation and no error, its controls showing their violations, a point per
# interval and the summary; with cuStreamWaitEvent broken
# (STREAMCTS_MOCK_BREAK=wait) it reports violations, each with a replay
# command, and the replay reproduces the violation (and passes unbroken);
# SIGINT ends a run cleanly with every planned point and the summary.
# tools/soak checks its arguments before it builds the soak, and exits 3 (0
# with STREAMCTS_ALLOW_SKIP=1) when no point can run, 2 for a bad STREAMCTS_*
# value, both found by tools/lib/preflight.sh before the soak is built.
cd "$(dirname "$0")/../../.." || exit 1
soak=build/selftest/soak/soak-mock
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -20 | sed 's/^/# /'; }
echo "TAP version 13"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# arguments | what stderr must say
while IFS='|' read -r args msg; do
    # shellcheck disable=SC2086 # the arguments are words
    timeout 5 "$soak" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$msg" "$tmp/err"; then
        ok "soak $args: exit 2, '$msg'"
    else nok "soak $args: exit $rc, not 2 with '$msg'" "$(cat "$tmp/out" "$tmp/err")"; fi
done <<'EOT'
--duration -1|--duration: '-1' is not a duration in 1s..365d (a whole number and a unit: s, m, h or d)
--duration 10|--duration: '10' is not a duration in 1s..365d
--duration 10x|--duration: '10x' is not a duration in 1s..365d
--duration 0s|--duration: '0s' is not a duration in 1s..365d
--duration 366d|--duration: '366d' is not a duration in 1s..365d
--duration 1.5h|--duration: '1.5h' is not a duration in 1s..365d
--duration|--duration needs a value: a duration in 1s..365d
--duration 1m --threads 0|--threads: '0' is not a whole number in 1..4
--duration 1m --threads 5|--threads: '5' is not a whole number in 1..4
--duration 1m --heartbeat 0|--heartbeat: '0' is not a whole number in 1..3600
--duration 1m --seed abc|--seed: 'abc' is not a number in 0..18446744073709551615 (decimal, or hex with 0x)
--duration 1m --seed 18446744073709551616|--seed: '18446744073709551616' is not a number in 0..18446744073709551615
--replay|--replay needs a value: a number in 0..18446744073709551615
--duration 1m --bogus|unknown option '--bogus'
|give one of --duration D (1s..365d) and --replay SEED
--duration 1m --replay 1|give one of --duration D (1s..365d) and --replay SEED
EOT

# An 8-second soak on the mock, whose promises hold (about 100 programs).
timeout 120 "$soak" --duration 8s --heartbeat 2 --warm-up 2 --seed 0x5eed --threads 3 >"$tmp/soak" 2>"$tmp/err"
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$tmp/soak")
summary=$(grep '^# summary: ' "$tmp/soak")
if [ "$plan" = 7 ] && [ "$(grep -c '^ok [1-4] - soak.interval.[1-4]: ' "$tmp/soak")" = 4 ] &&
    grep -q '^ok 7 - soak.decided' "$tmp/soak" && grep -q ' 0 violations, 0 errors, ' <<<"$summary" &&
    ! grep -q FAILED "$tmp/soak" && [ "$(grep -c '^# heartbeat ' "$tmp/soak")" = 4 ] &&
    [ "$(grep -c '^soak: heartbeat ' "$tmp/err")" = 4 ]; then
    ok "an 8 s soak: 4 intervals ok, 0 violations, 0 errors, programs decided; $(sed 's/^# summary: \([0-9]* programs\).*/\1/' <<<"$summary")"
else nok "an 8 s soak" "$(grep -v '^  ' "$tmp/soak")"; fi
decided=$(sed -n 's/.*: \([0-9]*\) decided .*/\1/p' <<<"$summary")
programs=$(sed -n 's/^# summary: \([0-9]*\) programs.*/\1/p' <<<"$summary")
if [ -n "$decided" ] && [ "$decided" -ge 20 ] && [ "$decided" -ge $((programs * 9 / 10)) ]; then
    ok "nearly every program decided: $decided of $programs cases passed with their controls violated"
else nok "too few programs decided: ${decided:-?} of ${programs:-?}" "$summary"; fi
# The conforming mock's RSS stays within the tolerance; one whose cuStreamDestroy leaks 1 MiB
# (STREAMCTS_MOCK_BREAK=leak) is caught by the RSS check, its growth named.
if grep -q '^ok 5 - soak.host_memory' "$tmp/soak" &&
    grep -q '^ok 6 - soak.device_memory.* # SKIP the mock backend has no device memory' "$tmp/soak"; then
    ok "the conforming mock's host RSS is flat after the warm-up; device memory: SKIP on the mock"
else nok "memory points of the conforming mock" "$(grep -A6 'soak\..*_memory' "$tmp/soak")"; fi
STREAMCTS_MOCK_BREAK=leak timeout 60 "$soak" --duration 3s --heartbeat 1 --warm-up 1 --seed 0x5eed --threads 3 \
    >"$tmp/leak" 2>/dev/null
if grep -q '^not ok [0-9]* - soak.host_memory' "$tmp/leak" && grep -q '^  growth: "' "$tmp/leak" &&
    grep -q ' 0 violations, 0 errors, ' "$tmp/leak"; then
    ok "a mock whose stream destroy leaks 1 MiB: host RSS growth after the warm-up is reported ($(sed -n 's/^  growth: "\(.*\)"$/\1/p' "$tmp/leak"))"
else nok "the leak of every destroyed stream was not reported" "$(grep -A6 'soak\..*_memory' "$tmp/leak")"; fi

# By default the warm-up is a tenth of the duration but at least 30 s: a shorter run does not judge memory.
timeout 60 "$soak" --duration 1s --heartbeat 1 --seed 7 >"$tmp/short" 2>/dev/null
if grep -q '^ok [0-9]* - soak.host_memory.* # SKIP the run stopped before the warm-up ended' "$tmp/short"; then
    ok "a 1 s run with the default warm-up (30 s) skips the memory points"
else nok "a 1 s run judged memory before the default warm-up" "$(grep 'soak\..*_memory' "$tmp/short")"; fi

# The same seed gives the same programs.
"$soak" --replay "$(printf '0x%x' 12345)" --threads 3 | grep -v '^ *-\|^  ---\|ms  ' >"$tmp/r1"
"$soak" --replay 12345 --threads 3 | grep -v '^ *-\|^  ---\|ms  ' >"$tmp/r2"
if cmp -s "$tmp/r1" "$tmp/r2" && grep -q '^# expect: ' "$tmp/r1"; then
    ok "a seed is one program, in hex or decimal"
else nok "a seed gives different programs" "$(diff "$tmp/r1" "$tmp/r2")"; fi

# cuStreamWaitEvent broken: violations with replay commands, and the replay reproduces one.
STREAMCTS_MOCK_BREAK=wait timeout 60 "$soak" --duration 4s --heartbeat 2 --seed 99 >"$tmp/broken" 2>/dev/null; rc=$?
replay=$(grep -m1 '^# replay: tools/soak --replay ' "$tmp/broken" | sed 's/^# replay: tools\/soak //')
if [ $rc -eq 1 ] && grep -q '^# FAILED program [0-9]*, seed 0x[0-9a-f]*: violated: ' "$tmp/broken" &&
    grep -q '^not ok 1 - soak.interval.1' "$tmp/broken" && [ -n "$replay" ] &&
    grep -q "^    - \"tools/soak $replay (violated)\"" "$tmp/broken"; then
    ok "with waits broken: violations, each printed with its replay command, listed under the interval's point"
else nok "with waits broken: exit $rc" "$(grep -v '^  ' "$tmp/broken" | head -20)"; fi
# shellcheck disable=SC2086 # the command's words
out=$(STREAMCTS_MOCK_BREAK=wait timeout 30 "$soak" $replay 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q '^not ok 1 - soak\.0x[0-9a-f]*\.\(driver\|runtime\)$' <<<"$out" &&
    grep -q '^  outcome: "violated"' <<<"$out" && grep -q '^ok 2 - soak\..*\.control$' <<<"$out"; then
    ok "the replay ($replay) reproduces the violation, with its timeline"
else nok "the replay ($replay): exit $rc" "$out"; fi
# shellcheck disable=SC2086
out=$(timeout 30 "$soak" $replay 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^ok 1 - ' <<<"$out" && grep -q '^ok 2 - .*\.control$' <<<"$out"; then
    ok "the same replay passes with the waits kept, its control violated"
else nok "the replay unbroken: exit $rc" "$out"; fi

# SIGINT: a clean stop with every planned point and the summary.
"$soak" --duration 10m --heartbeat 1 --seed 3 >"$tmp/int" 2>/dev/null &
pid=$!
sleep 1
kill -INT $pid
for _ in $(seq 150); do kill -0 $pid 2>/dev/null || break; sleep 0.1; done
if kill -0 $pid 2>/dev/null; then kill -KILL $pid; fi
wait $pid; rc=$?
points=$(grep -c '^\(not \)\?ok ' "$tmp/int")
if [ $rc -eq 0 ] && [ "$points" = 603 ] && grep -q '^# stopped by SIGINT after ' "$tmp/int" &&
    grep -q '^ok 600 - soak.interval.600: .* # SKIP stopped by SIGINT$' "$tmp/int" && grep -q '^# summary: ' "$tmp/int"; then
    ok "SIGINT: stopped within 15 s, the intervals not reached skipped, the summary printed, exit 0"
else nok "SIGINT: exit $rc, $points points" "$(grep -v '^ok .*SKIP' "$tmp/int" | tail -12)"; fi
# tools/soak itself: its arguments are checked before the soak is built (a ninja that notes what it is
# asked to build stands in front of the real one); without a driver or device it exits 3, like the other
# runners, with one line that says why (0 with STREAMCTS_ALLOW_SKIP=1); a bad STREAMCTS_* value exits 2
mkdir -p "$tmp/bin"
real_ninja=$(command -v ninja)
printf '#!/bin/sh\necho "$*" >>"%s"\nexec %s "$@"\n' "$tmp/built" "$real_ninja" >"$tmp/bin/ninja"
chmod +x "$tmp/bin/ninja"
bad=0
while IFS='|' read -r args line; do
    rm -f "$tmp/built"
    # shellcheck disable=SC2086 # the arguments are words
    err=$(PATH="$tmp/bin:$PATH" tools/soak $args 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ] || [ "$err" != "soak: $line" ] || grep -qx soak "$tmp/built" 2>/dev/null; then
        bad=1; echo "# tools/soak $args: exit $rc, built: $(tr '\n' ' ' <"$tmp/built" 2>/dev/null): $err"
    fi
done <<'EOT'
--duration 10s --threads 9|--threads: '9' is not a whole number in 1..4
--duration 10x|--duration: '10x' is not a duration in 1s..365d (a whole number and a unit: s, m, h or d)
--bogus|unknown option '--bogus' (tools/soak --help lists them)
EOT
if [ $bad = 0 ]; then ok "tools/soak: a bad argument is named in the runners' wording, exit 2, before the soak is built"
else nok "tools/soak: a bad argument was not refused before the soak was built"; fi
# every GPU hidden
rm -f "$tmp/built"
err=$(CUDA_VISIBLE_DEVICES= PATH="$tmp/bin:$PATH" timeout 120 tools/soak --duration 10s 2>&1 >"$tmp/out"); rc=$?
if [ $rc -eq 3 ] && [ ! -s "$tmp/out" ] && ! grep -qx soak "$tmp/built" &&
    grep -qxE 'soak: no point ran: no CUDA (driver|device) \(.+\) \(found by build/probe, before any program was started\)' <<<"$err"; then
    ok "tools/soak without a driver or device: exit 3 with one line, the soak not built"
else nok "tools/soak without a driver or device: exit $rc" "$err"; fi
err=$(CUDA_VISIBLE_DEVICES= STREAMCTS_ALLOW_SKIP=1 timeout 120 tools/soak --duration 10s 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && grep -q '^soak: no point ran: .*(STREAMCTS_ALLOW_SKIP=1: exit 0)$' <<<"$err"; then
    ok "tools/soak without a driver or device, STREAMCTS_ALLOW_SKIP=1: the same line, exit 0"
else nok "tools/soak with STREAMCTS_ALLOW_SKIP=1: exit $rc" "$err"; fi
err=$(STREAMCTS_ATTEMPTS=0 timeout 120 tools/soak --duration 10s 2>&1 >/dev/null); rc=$?
if [ $rc -eq 2 ] && [ "$err" = "soak: STREAMCTS_ATTEMPTS: '0' is not a whole number in 1..100" ]; then
    ok "tools/soak with STREAMCTS_ATTEMPTS=0: named once with its range, exit 2"
else nok "tools/soak with STREAMCTS_ATTEMPTS=0: exit $rc" "$err"; fi
echo "1..$n"
