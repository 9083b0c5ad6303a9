#!/bin/sh
# build.sh OUTDIR - builds the bring-up program without ninja (both compile modes).
set -eu
o=${1:-build/smoke}; mkdir -p "$o"
cu=/usr/local/cuda
kernels/build-fatbin.sh $cu/bin/nvcc kernels/streamcts_kernels.cu "$o/k.fatbin"
kernels/embed.sh "$o/k.fatbin" "$o/fatbin.c"
for mode in legacy ptds; do
  def=; [ $mode = ptds ] && def=-DCUDA_API_PER_THREAD_DEFAULT_STREAM=1
  objs=
  for f in runtime/*.c "$o/fatbin.c"; do
    gcc -std=c11 -O2 -Wall -Wextra -Werror $def -Iruntime -I$cu/include -c "$f" -o "$o/$mode-$(basename "$f" .c).o"
    objs="$objs $o/$mode-$(basename "$f" .c).o"
  done
  gcc -std=c11 -O2 -Iruntime selftest/smoke/smoke.c $objs -L$cu/lib64 -lcudart_static -ldl -lpthread -lrt -o "$o/smoke.$mode.t"
done
