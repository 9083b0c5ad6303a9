#!/bin/bash
# In a copy of the built tree: a no-op ninja does nothing, and adding one rule
# row regenerates once and rebuilds exactly that rule's program.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..4"
(cd "$root" && tar cf - --exclude=./.git .) | (cd "$tmp" && tar xf -)
cd "$tmp" || exit 1

out=$(ninja 2>&1)
if [ "$out" = "ninja: no work to do." ]; then echo "ok 1 - a no-op ninja does nothing"
else echo "not ok 1 - a no-op ninja did work"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

cat >>spec/fifo.rules <<'ROW'

fifo.selftest_added_row | MUST | legacy | - | s=blocking, t=nonblocking | - | 1
  | gate on s; A: kernel on s; B: kernel on s | B after A | B on t
  | self-test | A row added by selftest/build/incremental.t.
ROW
out=$(ninja 2>&1)
steps=$(printf '%s\n' "$out" | sed -n 's/^\[[0-9]*\/[0-9]*\] //p' | sort)
want=$(printf '%s\n' "CC build/obj/fifo/selftest_added_row.o" "GEN generated/ from spec/" \
    "LINK tap/fifo/selftest_added_row.t" | sort)
if [ "$steps" = "$want" ]; then echo "ok 2 - one added row: one generation, one compile, one link"
else echo "not ok 2 - one added row rebuilt more or less than its program"; printf '%s\n' "$steps" | head -20 | sed 's/^/# /'; fi

if [ -x tap/fifo/selftest_added_row.t ] && [ "$(tap/fifo/selftest_added_row.t --list)" = "fifo.selftest_added_row" ]
then echo "ok 3 - the new program lists its case"; else echo "not ok 3 - the new program is missing or wrong"; fi

out=$(ninja 2>&1)
if [ "$out" = "ninja: no work to do." ]; then echo "ok 4 - after the rebuild, ninja does nothing"
else echo "not ok 4 - ninja did work again"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi
