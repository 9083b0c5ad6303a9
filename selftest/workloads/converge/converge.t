#!/bin/bash
# build/converge/converge without a GPU: no NCCL, a libnccl.so.2 that lacks
# an entry point, and (with a stand-in NCCL) no CUDA driver or device each
# skip the whole program with the reason, exit 0; bad options and a world of
# several ranks without a rendezvous exit 2 in one line.  (ninja selftest builds it.)
cd "$(dirname "$0")/../../.." || exit 1
prog=build/converge/converge fake=$PWD/build/selftest/converge
echo "TAP version 13"
echo "1..5"
check() {  # N WHAT REGEX [ENV...] : the program's last line matches, exit 0
    local n=$1 what=$2 re=$3; shift 3
    out=$(env "$@" timeout 60 "$prog" --steps 2 2>&1); rc=$?
    if [ $rc -eq 0 ] && grep -qE "$re" <<<"$(tail -n 1 <<<"$out")" && head -n 1 <<<"$out" | grep -qx 'TAP version 13'; then
        echo "ok $n - $what"
    else echo "not ok $n - $what (exit $rc)"; tail -n 3 <<<"$out" | sed 's/^/# /'; fi
}
check 1 "no NCCL: 1..0 # SKIP no NCCL, naming the library" '^1\.\.0 # SKIP no NCCL \(/no/such/libnccl\.so\.2: .+\)$' \
    STREAMCTS_NCCL=/no/such/libnccl.so.2
check 2 "a libnccl.so.2 without ncclAllReduce: skipped, naming it" '^1\.\.0 # SKIP no NCCL \(.*lacks ncclAllReduce\)$' \
    STREAMCTS_NCCL=$fake/lacks-allreduce/libnccl.so.2
check 3 "NCCL there, no GPU visible: 1..0 # SKIP no CUDA driver or device, with CUDA's error" \
    '^1\.\.0 # SKIP no CUDA (driver|device) \(.+\)$' STREAMCTS_NCCL=$fake/fake-nccl/libnccl.so.2 CUDA_VISIBLE_DEVICES=
bad=0 why=
for args in "--steps 0" "--duration -1" "--duration 3x" "--features 10 --buckets 4" "--samples 1024 --features 512" \
    "--break-ordering=sideways" "--rendezvous nohost" "--no-such-flag" "--seed"; do
    # shellcheck disable=SC2086
    out=$("$prog" $args 2>&1 >/dev/null); rc=$?
    if [ $rc -ne 2 ] || [ "$(wc -l <<<"$out")" -ne 1 ] || ! grep -q -- "$(a=${args%% *}; echo "${a%%=*}")" <<<"$out"; then
        bad=1; why="$why$args: exit $rc: $out"$'\n'; fi
done
if [ $bad = 0 ]; then echo "ok 4 - bad options: one line naming the flag, exit 2"
else echo "not ok 4 - bad options"; printf '%s' "$why" | sed 's/^/# /'; fi
out=$(OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 STREAMCTS_RENDEZVOUS= "$prog" 2>&1); rc=$?
if [ $rc -eq 2 ] && grep -q 'need --rendezvous HOST:PORT or STREAMCTS_RENDEZVOUS' <<<"$out"; then
    echo "ok 5 - rank 1 of 2 (Open MPI's variables) without a rendezvous address: exit 2, saying so"
else echo "not ok 5 - rank 1 of 2 without a rendezvous (exit $rc)"; sed 's/^/# /' <<<"$out"; fi
