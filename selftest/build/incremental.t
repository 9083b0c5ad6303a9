#!/bin/bash
# In a copy of the built tree: a no-op ninja does nothing, adding one rule
# row regenerates once and rebuilds exactly that rule's program, and plain
# ninja after removing a row or a whole spec file leaves no program of those
# rules under tap/ (nor their objects and generated C).
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..9"
# the tree without .git and the self-tests' own build (build/selftest: plain ninja does not build it)
(cd "$root" && tar cf - --exclude=./.git --exclude=./build/selftest .) | (cd "$tmp" && tar xf -)
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
    "LINK tap/fifo/selftest_added_row.t" "LINK build/host-legacy" "PRUNE tap/ and build/obj/ of rules that are gone" | sort)
if [ "$steps" = "$want" ]; then echo "ok 2 - one added row: one generation, one compile, its program's link and its host's (and a prune)"
else echo "not ok 2 - one added row rebuilt more or less than its program"; printf '%s\n' "$steps" | head -20 | sed 's/^/# /'; fi

if [ -x tap/fifo/selftest_added_row.t ] && [ "$(tap/fifo/selftest_added_row.t --list)" = "fifo.selftest_added_row" ]
then echo "ok 3 - the new program lists its case"; else echo "not ok 3 - the new program is missing or wrong"; fi

out=$(ninja 2>&1)
if [ "$out" = "ninja: no work to do." ]; then echo "ok 4 - after the rebuild, ninja does nothing"
else echo "not ok 4 - ninja did work again"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

# Files of a rule under tap/, build/obj/ and generated/ (its id as a path).
leftovers() {
    for p in "$@"; do find tap build/obj generated -path "*/$p.*" -o -path "*/$p" 2>/dev/null; done
}

# The added row, removed again: everything it built goes, nothing else is rebuilt.
sed -i '/^fifo.selftest_added_row /,$d' spec/fifo.rules
out=$(ninja 2>&1); rc=$?
steps=$(printf '%s\n' "$out" | sed -n 's/^\[[0-9]*\/[0-9]*\] //p' | sort | tr '\n' ';')
left=$(leftovers fifo/selftest_added_row)
if [ $rc -eq 0 ] && [ -z "$left" ] && [ "$steps" = "GEN generated/ from spec/;LINK build/host-legacy;PRUNE tap/ and build/obj/ of rules that are gone;" ]
then echo "ok 5 - a removed row: plain ninja removes its program and object, and relinks only its host"
else echo "not ok 5 - after removing a row, ninja (exit $rc) left: $left"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

# A rule of several processes, removed: its .t, .ptds.t and .mps.t go.
awk '/^process.ctx_sync.waits_only_for_its_process$/ { skip = 1 } skip && /^$/ { skip = 0; next } !skip' \
    spec/process.rules >spec/process.rules.new && mv spec/process.rules.new spec/process.rules
had=$(ls tap/process/ctx_sync/waits_only_for_its_process.* 2>/dev/null | wc -l)
out=$(ninja 2>&1); rc=$?
left=$(leftovers process/ctx_sync)
if [ $rc -eq 0 ] && [ "$had" -eq 3 ] && [ -z "$left" ]; then
    echo "ok 6 - a removed rule of several processes: its three programs (.t, .ptds.t, .mps.t) are gone"
else echo "not ok 6 - after removing a process rule ($had programs before), ninja (exit $rc) left: $left"
    printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

# A whole spec file deleted: plain ninja succeeds and no program of the family is left.
had=$(find tap/multi_gpu -name '*.t' | wc -l)
rm spec/multi_gpu.rules
out=$(ninja 2>&1); rc=$?
left=$(leftovers multi_gpu)
if [ $rc -eq 0 ] && [ "$had" -gt 0 ] && [ -z "$left" ] && ! grep -q '^multi_gpu\.' generated/catalog.tsv; then
    echo "ok 7 - a deleted spec file: plain ninja succeeds and leaves none of its $had programs"
else echo "not ok 7 - after deleting spec/multi_gpu.rules, ninja (exit $rc) left: $(printf '%s\n' "$left" | head -5)"
    printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

out=$(ninja 2>&1)
if [ "$out" = "ninja: no work to do." ]; then echo "ok 8 - then ninja does nothing"
else echo "not ok 8 - ninja did work again"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

# ... also the spec file of a family the mock self-tests link: the suite still builds
rm spec/event.rules
out=$(ninja 2>&1); rc=$?
left=$(leftovers event)
if [ $rc -eq 0 ] && [ -z "$left" ] && ! grep -q '^event\.' generated/catalog.tsv; then
    echo "ok 9 - a deleted spec file of a family the self-tests link: plain ninja builds the suite without it"
else echo "not ok 9 - after deleting spec/event.rules, ninja (exit $rc) left: $(printf '%s\n' "$left" | head -5)"
    printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi
