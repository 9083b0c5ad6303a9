#!/bin/bash
# A rule program's flags and STREAMCTS_* variables (runtime/suite/options.c): a bad
# value, an unknown flag or a flag without its value is named on stderr with
# its range, and the program exits 2 at once, before it touches a device (so
# also on a machine without a GPU, and on the mock, which would run the case);
# --help prints the options to stdout and exits 0; docs/running.md lists the same ranges.
cd "$(dirname "$0")/../.." || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

mock=build/selftest/mock/stream.sync.waits_for_stream_work.prog
progs="tap/stream/sync/waits_for_stream_work.t tap/stream/sync/waits_for_stream_work.ptds.t $mock"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# variable=value (or -), arguments, what stderr must say
while IFS='|' read -r env args msg; do
    for p in $progs; do
        if [ "$env" = - ]; then set -- env; else set -- env "$env"; fi
        # shellcheck disable=SC2086 # the arguments are words
        "$@" timeout 5 "$p" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
        what="${env/#-/} $(basename "$p") $args"
        if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$msg" "$tmp/err"; then
            ok "$what: exit 2, '$msg'"
        else nok "$what: exit $rc, not 2 with '$msg'" "$(cat "$tmp/out" "$tmp/err")"; fi
    done
done <<'EOF'
-|--repeat -1|: --repeat: '-1' is not a whole number in 1..10000
-|--repeat abc|: --repeat: 'abc' is not a whole number in 1..10000
-|--repeat 0|: --repeat: '0' is not a whole number in 1..10000
-|--repeat 4294967297|: --repeat: '4294967297' is not a whole number in 1..10000
-|--attempts 101|: --attempts: '101' is not a whole number in 1..100
-|--window-ms 5ms|: --window-ms: '5ms' is not a whole number in 1..60000
-|--deadline-ms +10|: --deadline-ms: '+10' is not a whole number in 1..600000
-|--repeat|: --repeat needs a value: a whole number in 1..10000
-|--case '*' --api|: --api needs a value: driver, runtime or both
-|--api bogus|: --api: 'bogus' is not one of driver, runtime or both
-|--api cuda|: --api: 'cuda' is not one of driver, runtime or both
-|--bogus|: unknown option '--bogus'
-|--list extra|: unknown option 'extra'
STREAMCTS_WINDOW_MS=-5||: STREAMCTS_WINDOW_MS: '-5' is not a whole number in 1..60000
STREAMCTS_NO_CONTROL=yes||: STREAMCTS_NO_CONTROL: 'yes' is not a whole number in 0..1
STREAMCTS_REPEAT=abc|--repeat 2|: STREAMCTS_REPEAT: 'abc' is not a whole number in 1..10000
STREAMCTS_DEADLINE_MS=10 ||: STREAMCTS_DEADLINE_MS: '10 ' is not a whole number in 1..600000
STREAMCTS_ATTEMPTS=0x3||: STREAMCTS_ATTEMPTS: '0x3' is not a whole number in 1..100
STREAMCTS_MPS_LOCK_MS=-1||: STREAMCTS_MPS_LOCK_MS: '-1' is not a whole number in 0..86400000
STREAMCTS_API=bogus||: STREAMCTS_API: 'bogus' is not one of driver, runtime or both
-|--wait-gates 2|: --wait-gates: '2' is not a whole number in 0..1
-|--wait-gates|: --wait-gates needs a value: a whole number in 0..1
STREAMCTS_WAIT_GATES=yes||: STREAMCTS_WAIT_GATES: 'yes' is not a whole number in 0..1
EOF

# --help: stdout, exit 0, every setting with its range
for p in $progs; do
    timeout 5 "$p" --help >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && head -1 "$tmp/out" | grep -q '^usage: ' &&
        grep -q -- '--repeat N  *STREAMCTS_REPEAT  *1\.\.10000: ' "$tmp/out" &&
        grep -q -- '--no-control  *STREAMCTS_NO_CONTROL  *0\.\.1: ' "$tmp/out" &&
        grep -q -- 'STREAMCTS_MPS_LOCK_MS  *0\.\.86400000: ' "$tmp/out" && grep -q -- '--list ' "$tmp/out" &&
        grep -q -- '--wait-gates N  *STREAMCTS_WAIT_GATES  *0\.\.1: .*(default: stream waits, unless' "$tmp/out"; then
        ok "$(basename "$p") --help: the options on stdout, exit 0"
    else nok "$(basename "$p") --help: exit $rc" "$(cat "$tmp/out" "$tmp/err")"; fi
done

# docs/running.md names every range --help gives
readme=$(tr '\n' ' ' <docs/running.md)
bad=""
while read -r flag var range; do
    case "$flag" in --*) name="$flag";; *) name="$var";; esac
    case "$flag" in
    --no-control | --wait-gates) name="$var";; # switches: the variable carries the range
    --*) name="$flag N";;
    esac
    grep -qF -- "\`$name\` ($range" <<<"$readme" || bad="$bad $name ($range)"
done < <(sed -nE 's/^  (--[a-z-]+)( N)? +(STREAMCTS_[A-Z_]+) +([0-9]+\.\.[0-9]+):.*/\1 \3 \4/p; s/^  +(STREAMCTS_[A-Z_]+) +([0-9]+\.\.[0-9]+):.*/- \1 \2/p' "$tmp/out")
if [ -z "$bad" ] && [ "$(grep -c '[0-9]\.\.[0-9]' "$tmp/out")" = 8 ]; then ok "docs/running.md gives the ranges --help gives"
else nok "docs/running.md does not give these ranges as --help does:$bad"; fi

# good values still run: an empty variable is unset, flags win, 0 and 1 for the switch
out=$(STREAMCTS_WINDOW_MS=5 STREAMCTS_REPEAT= STREAMCTS_NO_CONTROL=1 timeout 60 "$mock" --repeat 2 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^# window 5 ms, deadline 10000 ms, repeat 2, attempts 3' <<<"$out" &&
    grep -q '^ok' <<<"$out" && ! grep -q '\.control' <<<"$out"; then
    ok "valid settings run the cases (STREAMCTS_NO_CONTROL=1 drops the controls, --repeat wins)"
else nok "valid settings did not run (exit $rc)" "$out"; fi
out=$(STREAMCTS_NO_CONTROL=0 STREAMCTS_WINDOW_MS=5 timeout 60 "$mock" --case '*.kernel.blocking' --api driver 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^ok .*\.driver\.control$' <<<"$out"; then ok "STREAMCTS_NO_CONTROL=0 keeps the controls"
else nok "STREAMCTS_NO_CONTROL=0 did not keep the controls (exit $rc)" "$out"; fi

echo "1..$n"
