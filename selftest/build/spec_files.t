#!/bin/sh
# What plain `ninja` does with spec/ before it builds anything (the manifest
# step, `ninja build.ninja`), in a copy of build.ninja, gen/, spec/, runtime/ops.def and
# generated/ (and the mock's programs.ninja that build.ninja includes, with
# what makes it): a spec error's file:line is the first thing it prints, not an
# 11 KB FAILED line; deleted, renamed and new spec files each regenerate
# generated/ with no gen/run by hand.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..6"
cd "$root" && cp -R build.ninja gen spec generated "$tmp"/ && mkdir -p "$tmp/runtime/program" "$tmp/selftest/mock" &&
    cp runtime/ops.def "$tmp/runtime/" && cp runtime/program/levels.def "$tmp/runtime/program/" &&
    cp selftest/mock/programs.list selftest/mock/programs.ninja selftest/mock/render-programs "$tmp/selftest/mock/" &&
    cd "$tmp" || exit 1

out=$(ninja build.ninja 2>&1); rc=$?
if [ $rc -eq 0 ]; then echo "ok 1 - ninja build.ninja"
else echo "not ok 1 - ninja build.ninja failed (exit $rc)"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

cp spec/fifo.rules fifo.rules.good
printf '\nfifo.bad_row | MUST | legacy | - | s=blocking | - | 1\n  | gate on s; A: kernel on s; B: kernel on s | B after Q | B on t | S | R.\n' >>spec/fifo.rules
line=$(grep -n '^fifo.bad_row' spec/fifo.rules | cut -d: -f1)
out=$(ninja build.ninja 2>&1); rc=$?
first=$(printf '%s\n' "$out" | grep -v '^\[[0-9]*/[0-9]*\] ' | sed -n 1p)
longest=$(printf '%s\n' "$out" | awk '{ if (length($0) > n) n = length($0) } END { print n + 0 }')
if [ $rc -ne 0 ] && [ "$first" = "spec/fifo.rules:$line: expectation names unknown op 'Q'" ] && [ "$longest" -le 200 ]; then
    echo "ok 2 - a spec error: its file:line comes first, and no line is longer than 200 characters"
else echo "not ok 2 - a spec error is not what ninja shows first (exit $rc, longest line $longest)"
    printf '%s\n' "$out" | cut -c1-200 | head -10 | sed 's/^/# /'; fi

mv fifo.rules.good spec/fifo.rules
find spec -name '*.rules' ! -name fifo.rules -exec rm {} +
out=$(ninja build.ninja 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f generated/fifo/blocking_stream.c ] && [ ! -d generated/multi_gpu ] &&
    [ "$(cut -f1 generated/catalog.tsv | cut -d. -f1 | sort -u | tr '\n' ' ')" = "case_id fifo " ]; then
    echo "ok 3 - deleted spec files: ninja regenerates and their rules are gone"
else echo "not ok 3 - ninja after deleting all spec files but fifo.rules (exit $rc)"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

sed 's/^fifo\./fifo_moved./; s/^# fifo.rules/# fifo_moved.rules/' spec/fifo.rules >spec/fifo_moved.rules && rm spec/fifo.rules
out=$(ninja build.ninja 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f generated/fifo_moved/blocking_stream.c ] && [ ! -d generated/fifo ]; then
    echo "ok 4 - a renamed spec file: ninja regenerates under the new name"
else echo "not ok 4 - ninja after renaming spec/fifo.rules (exit $rc)"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

cp "$root/spec/multi_gpu.rules" spec/
out=$(ninja build.ninja 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -d generated/multi_gpu ]; then echo "ok 5 - a new spec file: ninja regenerates with it"
else echo "not ok 5 - ninja after adding spec/multi_gpu.rules (exit $rc)"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

out=$(ninja build.ninja 2>&1)
if [ "$out" = "ninja: no work to do." ]; then echo "ok 6 - then ninja does nothing"
else echo "not ok 6 - ninja regenerated again"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi
