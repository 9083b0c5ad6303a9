#!/bin/sh
# build-fatbin.sh NVCC SOURCE OUT - SASS for every architecture this nvcc
# supports from sm_75 up, plus PTX of the newest one so later GPUs can JIT.
set -eu
nvcc=$1 src=$2 out=$3
codes=$("$nvcc" --list-gpu-code | sed -n 's/^sm_\([0-9]*\)[a-z]*$/\1/p' | sort -n -u)
flags= last=
for c in $codes; do
    [ "$c" -ge 75 ] || continue
    flags="$flags -gencode arch=compute_$c,code=sm_$c"
    last=$c
done
[ -n "$last" ] || { echo "build-fatbin.sh: $nvcc lists no architecture from sm_75 up" >&2; exit 1; }
flags="$flags -gencode arch=compute_$last,code=compute_$last"
# shellcheck disable=SC2086
exec "$nvcc" -fatbin -O3 $flags -o "$out" "$src"
