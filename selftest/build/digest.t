#!/bin/bash
# Every TAP header names what was built, whatever git says: the program's
# digest (sha256 of its generated C) and the runtime's (sha256 of every
# runtime and kernel source, build/rt/digest.c).  Both must cover what they
# claim to.
cd "$(dirname "$0")/../.." || exit 1
echo "TAP version 13"
echo "1..3"
inputs=$(ninja -t query build/rt/digest.c | sed -n '/^  input:/,/^  outputs:/p' | grep -vE '^  (input|outputs):' | sed 's/^ *//; s/^| //' | sort)
missing=$(for f in runtime/*.c runtime/*.h runtime/*/*.c runtime/*/*.h kernels/*.cu; do grep -qxF "$f" <<<"$inputs" || echo "$f"; done)
if [ -z "$missing" ]; then
    echo "ok 1 - build/rt/digest.c covers every runtime and kernel source"
else echo "not ok 1 - sources the runtime digest leaves out: $missing"; fi
rt=$(sed -n 's/.*sc_runtime_digest\[\] = "\([0-9a-f]*\)".*/\1/p' build/rt/digest.c)
want=$(ninja -t query build/rt/digest.c | sed -n '/^  input: digest/,/^  outputs:/p' | grep -vE '^  (input|outputs)' |
       sed 's/^ *//' | grep -v '^|' | xargs cat | sha256sum | cut -c1-16)
if [ -n "$rt" ] && [ "$rt" = "$want" ]; then echo "ok 2 - the runtime digest $rt is the sha256 of its sources"
else echo "not ok 2 - build/rt/digest.c says '$rt', its sources hash to '$want'"; fi
prog=build/selftest/mock/stream.sync.waits_for_stream_work.prog
src=generated/stream/sync/waits_for_stream_work.c
line=$(STREAMCTS_WINDOW_MS=5 "$prog" --case '*.kernel.blocking' --api driver | grep '^# build: ')
pd=$(sed 's/\.digest = "[0-9a-f]\{16\}"/.digest = "@DIGEST@"/' "$src" | sha256sum | cut -c1-16)
if [ -n "$line" ] && grep -q "program $pd (sha256 of its generated C), runtime and kernels $rt " <<<"$line"; then
    echo "ok 3 - a program's header names its own digest and the runtime's"
else echo "not ok 3 - header '$line', want program $pd and runtime $rt"; fi
