#!/bin/bash
# The stress and perf workload programs (workloads/, docs/workloads.md) without
# a GPU: a bad --scale or STREAMCTS_SCALE, a flag without its value or an
# unknown flag is named with its range on stderr and the program exits 2
# before it touches a driver; --help prints the usage and exits 0; against a
# stand-in libcuda.so.1 (selftest/loader) whose cuInit answers no device or a
# stub library, each skips the whole file with the reason; against one that
# lacks entry points every program needs, each fails its one point naming them.
cd "$(dirname "$0")/../.." || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"
progs="tap/stress/memory.t tap/perf/idle_streams.t tap/perf/overlap.t tap/perf/priority.t tap/perf/launch_order.t"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
loader=build/selftest/loader

# variable=value (or -), arguments, what stderr must say
while IFS='|' read -r env args msg; do
    for p in $progs; do
        if [ "$env" = - ]; then set -- env; else set -- env "$env"; fi
        # shellcheck disable=SC2086 # the arguments are words
        "$@" LD_LIBRARY_PATH="$loader/complete" FAKE_CUINIT=0 timeout 5 "$p" $args >"$tmp/out" 2>"$tmp/err"; rc=$?
        what="${env/#-/} $(basename "$p") $args"
        if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -qF -- "$msg" "$tmp/err"; then
            ok "$what: exit 2, '$msg'"
        else nok "$what: exit $rc, not 2 with '$msg'" "$(cat "$tmp/out" "$tmp/err")"; fi
    done
done <<'EOT'
-|--scale 0|: --scale: '0' is not a whole number in 1..1000
-|--scale 1001|: --scale: '1001' is not a whole number in 1..1000
-|--scale -1|: --scale: '-1' is not a whole number in 1..1000
-|--scale=2x|: --scale: '2x' is not a whole number in 1..1000
-|--scale 99999999999|: --scale: '99999999999' is not a whole number in 1..1000
-|--scale|: --scale needs a value: a whole number in 1..1000
-|--bogus|: unknown option '--bogus'
STREAMCTS_SCALE=abc||: STREAMCTS_SCALE: 'abc' is not a whole number in 1..1000
STREAMCTS_SCALE=0|--scale 2|: STREAMCTS_SCALE: '0' is not a whole number in 1..1000
EOT

for p in $progs; do
    out=$(timeout 5 "$p" --help 2>"$tmp/err"); rc=$?
    if [ $rc -eq 0 ] && [ "${out%%:*}" = usage ] && grep -q -- '--scale N' <<<"$out" && [ ! -s "$tmp/err" ]; then
        ok "$(basename "$p") --help: the usage on stdout, exit 0"
    else nok "$(basename "$p") --help: exit $rc" "$out"; fi
    for code in 100:"no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)" 34:"no usable CUDA driver (cuInit: CUDA_ERROR_STUB_LIBRARY)"; do
        out=$(LD_LIBRARY_PATH="$loader/complete" FAKE_CUINIT=${code%%:*} STREAMCTS_SCALE=2 timeout 10 "$p" 2>&1); rc=$?
        if [ $rc -eq 0 ] && [ "$out" = "$(printf 'TAP version 13\n1..0 # SKIP %s' "${code#*:}")" ]; then
            ok "$(basename "$p") skips the whole file when cuInit answers ${code%%:*}"
        else nok "$(basename "$p") with cuInit answering ${code%%:*}: exit $rc" "$out"; fi
    done
    out=$(LD_LIBRARY_PATH="$loader/lacks_required" timeout 10 "$p" 2>&1); rc=$?
    if [ $rc -eq 1 ] && grep -qx '1\.\.1' <<<"$out" && grep -qx 'not ok 1 - driver entry points' <<<"$out" &&
        grep -q 'lacks cuModuleLoadData' <<<"$out"; then
        ok "$(basename "$p") against a library lacking required entry points: not ok 1, naming them"
    else nok "$(basename "$p") against a library lacking required entry points: exit $rc" "$out"; fi
done
echo "1..$n"
