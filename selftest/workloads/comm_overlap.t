#!/bin/bash
# tap/perf/comm_overlap.t without a GPU (docs/workloads.md): no NCCL and a
# libnccl.so.2 that lacks ncclAllReduce each skip the whole file naming the
# library, before the driver is touched; with a stand-in NCCL
# (build/selftest/converge/fake-nccl) it reaches the driver and skips for no
# device; a bad STREAMCTS_COMM_RANKS or --scale exits 2 in one line naming the
# range, with nothing on stdout; --help names the variables.  The verdict on
# canned stamps is build/selftest/workloads/comm_verdict_units.t.
cd "$(dirname "$0")/../.." || exit 1
prog=tap/perf/comm_overlap.t fake=$PWD/build/selftest/converge loader=$PWD/build/selftest/loader
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -8 | sed 's/^/# /'; }
echo "TAP version 13"
skips() { # WHAT SKIP-REGEX VAR=VALUE...: exit 0, TAP version 13, then exactly 1..0 # SKIP matching
    local what=$1 re=$2; shift 2
    out=$(env "$@" timeout 20 "$prog" 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$(sed -n 1p <<<"$out")" = "TAP version 13" ] && [ "$(wc -l <<<"$out")" -eq 2 ] &&
        grep -qE "^1\.\.0 # SKIP $re\$" <<<"$(sed -n 2p <<<"$out")"; then ok "$what"
    else nok "$what (exit $rc)" "$out"; fi
}
skips "no NCCL: skipped, naming the library and dlerror" 'no NCCL \(/no/such/libnccl\.so\.2: .+\)' \
    STREAMCTS_NCCL=/no/such/libnccl.so.2
skips "a libnccl.so.2 without ncclAllReduce: skipped, naming it" 'no NCCL \(.*lacks ncclAllReduce\)' \
    STREAMCTS_NCCL="$fake/lacks-allreduce/libnccl.so.2"
skips "no NCCL comes before no driver: skipped for NCCL with a stand-in libcuda.so.1 too" 'no NCCL \(/no/such/.+\)' \
    STREAMCTS_NCCL=/no/such/libnccl.so.2 LD_LIBRARY_PATH="$loader/complete" FAKE_CUINIT=100
skips "a stand-in NCCL, cuInit answering no device: skipped for the device" \
    'no CUDA device \(cuInit: CUDA_ERROR_NO_DEVICE\)' STREAMCTS_NCCL="$fake/fake-nccl/libnccl.so.2" \
    LD_LIBRARY_PATH="$loader/complete" FAKE_CUINIT=100
skips "a stand-in NCCL, no GPU visible: skipped for the driver or device" 'no (usable )?CUDA (driver|device) .+' \
    STREAMCTS_NCCL="$fake/fake-nccl/libnccl.so.2" CUDA_VISIBLE_DEVICES=

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
while IFS='|' read -r var arg msg; do
    # shellcheck disable=SC2086 # the argument is words
    env STREAMCTS_NCCL=/no/such/libnccl.so.2 ${var:+"$var"} timeout 5 "$prog" $arg >"$tmp/out" 2>"$tmp/err"; rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qF -- "$msg" "$tmp/err"; then
        ok "${var:-$arg}: exit 2, '$msg'"
    else nok "${var:-$arg}: exit $rc, not 2 with '$msg' alone" "$(cat "$tmp/out" "$tmp/err")"; fi
done <<'EOT'
STREAMCTS_COMM_RANKS=0||STREAMCTS_COMM_RANKS: '0' is not a whole number in 1..8
STREAMCTS_COMM_RANKS=9||STREAMCTS_COMM_RANKS: '9' is not a whole number in 1..8
STREAMCTS_COMM_RANKS=2x||STREAMCTS_COMM_RANKS: '2x' is not a whole number in 1..8
|--scale 0|--scale: '0' is not a whole number in 1..1000
|--bogus|unknown option '--bogus'
EOT

out=$(STREAMCTS_NCCL=/no/such/libnccl.so.2 timeout 5 "$prog" --help 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "${out%%:*}" = usage ] && grep -q STREAMCTS_COMM_RANKS <<<"$out" && grep -q STREAMCTS_NCCL <<<"$out"; then
    ok "--help: the usage, naming STREAMCTS_NCCL and STREAMCTS_COMM_RANKS, exit 0 (without NCCL too)"
else nok "--help: exit $rc" "$out"; fi
echo "1..$n"
