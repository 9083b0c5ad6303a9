#!/bin/bash
# tools/run-suite: without a CUDA driver or device it says so in one line and
# exits 3 (0 with STREAMCTS_ALLOW_SKIP=1), and a bad STREAMCTS_* value exits 2,
# both found by build/probe before any program runs; a run in which no point
# ran exits 3 with one line that says why; points that ran decide as prove
# does; a bad argument is refused before anything is built.  Where programs
# must run, a stand-in libcuda.so.1 (selftest/loader) lets the probe pass.
cd "$(dirname "$0")/../.." || exit 1
echo "TAP version 13"
echo "1..13"
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
suite() {  # ARG...: out, err, rc
    tools/run-suite "$@" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    out=$(cat "$tmp/out"); err=$(cat "$tmp/err")
}
note() { printf '%s\n' "$out" | tail -5 | sed 's/^/# /'; printf '%s\n' "$err" | head -5 | sed 's/^/# err: /'; }
# a prove that notes being called, for the checks that no program was started
mkdir -p "$tmp/noprove"
printf '#!/bin/sh\necho prove "$*" >>"%s"\n' "$tmp/proved" >"$tmp/noprove/prove"
chmod +x "$tmp/noprove/prove"
# a driver library that answers, and a device (selftest/loader/fake-libcuda.sh): the probe lets programs run
with_driver() { FAKE_CUINIT=0 LD_LIBRARY_PATH=$PWD/build/selftest/loader/complete "$@"; }

# every GPU hidden: the probe answers before any program is started
export CUDA_VISIBLE_DEVICES=
start=$(date +%s)
PATH="$tmp/noprove:$PATH" suite tap/fifo
took=$(($(date +%s) - start))
if [ $rc -eq 3 ] && [ ! -e "$tmp/proved" ] && [ -z "$out" ] && [ "$(grep -c . <<<"$err")" = 1 ] &&
    grep -qE '^run-suite: no point ran: no CUDA (driver|device) \(.+\) \(found by build/probe, before any program was started\)$' <<<"$err"; then
    echo "ok 1 - no driver or device: exit 3 in ${took} s with one line that says why, no program started"
else echo "not ok 1 - tools/run-suite tap/fifo without a GPU (exit $rc)"; note; fi
rm -f "$tmp/proved"

PATH="$tmp/noprove:$PATH" STREAMCTS_ALLOW_SKIP=1 suite tap/fifo
if [ $rc -eq 0 ] && [ ! -e "$tmp/proved" ] &&
    grep -qE '^run-suite: no point ran: .*no CUDA (driver|device).*\(STREAMCTS_ALLOW_SKIP=1: exit 0\)$' <<<"$err"; then
    echo "ok 2 - STREAMCTS_ALLOW_SKIP=1: the same line, exit 0"
else echo "not ok 2 - STREAMCTS_ALLOW_SKIP=1 tools/run-suite tap/fifo (exit $rc)"; note; fi
rm -f "$tmp/proved"

# a bad STREAMCTS_* value: named once, as a program names it, with or without a driver
bad=0
for run in "" with_driver; do
    PATH="$tmp/noprove:$PATH" STREAMCTS_WINDOW_MS=-5 $run suite tap/fifo
    if [ $rc -ne 2 ] || [ -e "$tmp/proved" ] || [ -n "$out" ] ||
        [ "$err" != "run-suite: STREAMCTS_WINDOW_MS: '-5' is not a whole number in 1..60000" ]; then
        bad=1; note
    fi
    rm -f "$tmp/proved"
done
if [ $bad = 0 ]; then echo "ok 3 - STREAMCTS_WINDOW_MS=-5: one line naming it and its range, exit 2, no program started"
else echo "not ok 3 - STREAMCTS_WINDOW_MS=-5 was not refused once, before the run"; fi

# stand-in programs: points that ran decide, points that all skipped do not count
mkdir -p "$tmp/pass" "$tmp/points-skipped" "$tmp/fail"
printf '#!/bin/sh\necho "TAP version 13"; echo 1..2; echo "ok 1 - a"; echo "ok 2 - b # SKIP no IPC"\n' >"$tmp/pass/a.t"
printf '#!/bin/sh\necho "TAP version 13"; echo 1..2; echo "ok 1 - a # SKIP no IPC"; echo "ok 2 - b # skip no IPC"\n' >"$tmp/points-skipped/a.t"
printf '#!/bin/sh\necho "TAP version 13"; echo "1..0 # SKIP needs 2 GPUs"\n' >"$tmp/points-skipped/b.t"
printf '#!/bin/sh\necho "TAP version 13"; echo 1..1; echo "not ok 1 - a"\n' >"$tmp/fail/a.t"
chmod +x "$tmp"/*/*.t
with_driver suite -j2 "$tmp/pass"
if [ $rc -eq 0 ] && [ "$(grep -v '^ninja: ' <<<"$err")" = "" ]; then echo "ok 4 - a point ran and passed: exit 0, nothing said"
else echo "not ok 4 - a passing program (exit $rc)"; note; fi
with_driver suite "$tmp/points-skipped"
if [ $rc -eq 3 ] && [ "$(grep -v '^ninja: ' <<<"$err")" = \
        "run-suite: no point ran: 1 of 2 programs skipped: needs 2 GPUs; 1 of 2 programs skipped every point (the first: no IPC)" ]; then
    echo "ok 5 - programs that skipped every point: exit 3, and why"
else echo "not ok 5 - programs that skipped every point (exit $rc)"; note; fi
with_driver suite "$tmp/fail"
if [ $rc -eq 1 ]; then echo "ok 6 - a MUST point failed: exit 1"
else echo "not ok 6 - a failing program (exit $rc)"; note; fi

# bad arguments: one line naming the argument, exit 2, before ninja or prove runs
mkdir -p "$tmp/bin"
for t in ninja prove; do printf '#!/bin/sh\necho %s "$*" >>"%s"\n' "$t" "$tmp/ran" >"$tmp/bin/$t"; done
chmod +x "$tmp/bin"/*
bad=0
while IFS='|' read -r args line; do
    # shellcheck disable=SC2086
    PATH="$tmp/bin:$PATH" suite $args
    if [ $rc -ne 2 ] || [ -n "$out" ] || [ -s "$tmp/ran" ] || [ "$err" != "run-suite: $line" ]; then
        bad=1; echo "# tools/run-suite $args: exit $rc, stderr: $err"
    fi
    rm -f "$tmp/ran"
done <<'EOT'
--no-such-option|unknown option '--no-such-option' (tools/run-suite --help lists them)
tap/no-such-family|tap/no-such-family: no such file or directory, and ninja builds nothing there (paths are relative to the repository root, e.g. tap/event)
-j|-j needs a value: a whole number in 1..1024
-j 0 tap/fifo|-j: '0' is not a whole number in 1..1024
-j 1025|-j: '1025' is not a whole number in 1..1024
-jx|-j: 'x' is not a whole number in 1..1024
--jobs=-1|--jobs: '-1' is not a whole number in 1..1024
--state|unknown option '--state' (tools/run-suite --help lists them)
-vj4|unknown option '-vj4' (tools/run-suite --help lists them)
EOT
PATH="$tmp/bin:$PATH" STREAMCTS_ALLOW_SKIP=yes suite
if [ $rc -ne 2 ] || [ -s "$tmp/ran" ] || ! grep -q "^run-suite: STREAMCTS_ALLOW_SKIP='yes': must be 1" <<<"$err"; then
    bad=1; echo "# STREAMCTS_ALLOW_SKIP=yes: exit $rc, stderr: $err"
fi
if [ $bad = 0 ]; then echo "ok 7 - a bad option, path, job count or STREAMCTS_ALLOW_SKIP: one line naming it, exit 2, nothing built"
else echo "not ok 7 - a bad argument was not refused in one line before the build"; fi

# prove options with a value, and paths
PATH="$tmp/bin:$PATH" with_driver suite -j 4 --state=save tap/fifo/null_stream.t tap/
if grep -qx 'prove -r --timer -j 4 --state=save tap/fifo/null_stream.t tap/' "$tmp/ran"; then
    echo "ok 8 - -j 4, --state=OPTS and paths are passed on to prove"
else echo "not ok 8 - -j 4 --state=save tap/fifo/null_stream.t tap/ (exit $rc)"; note; sed 's/^/# ran: /' "$tmp/ran"; fi

# on a clean clone tap/ is not there yet: a path ninja will build is taken, another is not
mkdir -p "$tmp/clone/generated" "$tmp/clone/tools"
cp build.ninja "$tmp/clone/"; cp generated/rules.ninja "$tmp/clone/generated/"; cp -r tools/lib "$tmp/clone/tools/"
lib=$PWD/tools/lib/prove-args.sh
took=$(cd "$tmp/clone" && usage() { :; } && . "$lib" && prove_args run-suite yes -j4 tap/event tap/fifo/null_stream.t tap/ && echo "$prove_paths")
refused=$( (cd "$tmp/clone" && usage() { :; } && . "$lib" && prove_args run-suite yes tap/fifo/no_such.t) 2>&1; echo "exit $?")
if [ "$took" = yes ] && [ "$refused" = "run-suite: tap/fifo/no_such.t: no such file or directory, and ninja builds nothing there (paths are relative to the repository root, e.g. tap/event)
exit 2" ]; then
    echo "ok 9 - before the first build, paths ninja will build are taken and others refused"
else echo "not ok 9 - before the first build: took '$took', refused '$refused'"; fi

# the README's way to a per-family summary of a run: here programs of a family "fifo" that skip whole
mkdir -p "$tmp/skips/tap/fifo"
for p in a b; do
    printf '#!/bin/sh\necho "TAP version 13"; echo "1..0 # SKIP no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)"\n' >"$tmp/skips/tap/fifo/$p.t"
done
chmod +x "$tmp"/skips/tap/fifo/*.t
with_driver tools/run-suite -v -j8 "$tmp/skips/tap/fifo" >"$tmp/suite.log" 2>/dev/null
out=$(tools/tap-summary "$tmp/suite.log" 2>"$tmp/err"); rc=$?
if [ $rc -eq 3 ] && grep -qE '^fifo +2 +2 +0 ' <<<"$out" &&
    grep -qE '^tap-summary: .*: no point ran: all 2 programs skipped: no CUDA device' "$tmp/err"; then
    echo "ok 10 - tools/tap-summary reads a log of tools/run-suite -v -j8: no point ran, exit 3"
else echo "not ok 10 - tap-summary on a run-suite -v -j8 log (exit $rc)"; note; fi

# without --state, -s or --reverse the programs reach prove one by one: those of the families that
# start processes of their own (process, error, ctx) spread evenly among the rest, the rest in name order
rm -f "$tmp/ran"
PATH="$tmp/bin:$PATH" with_driver suite -j 4 tap/fifo tap/error tap/event
order=$(tr ' ' '\n' <"$tmp/ran" | grep '^tap/')
light=$(grep -v '^tap/error/' <<<"$order"); heavy=$(grep -c '^tap/error/' <<<"$order")
gaps=$(awk '/^tap\/error\// { if (last) print NR - last; last = NR }' <<<"$order" | sort -n | sed -n '1p;$p' | tr '\n' ' ' | sed 's/ $//')
want=$(find tap/fifo tap/error tap/event -name '*.t' | LC_ALL=C sort)
if [ "$(sort <<<"$order")" = "$(sort <<<"$want")" ] && [ "$light" = "$(grep -v '^tap/error/' <<<"$want")" ] &&
    [ "$heavy" -gt 2 ] && set -- $gaps && [ "$1" -ge 2 ] && [ $(($2 - $1)) -le 1 ]; then
    echo "ok 11 - the error programs are spread evenly among fifo and event ($heavy programs, gaps $gaps), the rest in name order"
else echo "not ok 11 - the programs did not reach prove spread (gaps $gaps)"; head -c 600 "$tmp/ran" | sed 's/^/# ran: /'; fi
rm -f "$tmp/ran"

# the hosts' workers per compile mode: half the programs run at a time, rounded up (tools/lib/host.sh:
# every worker keeps a context alive, which makes the driver's context creations dearer)
. tools/lib/host.sh
got=$(for j in 1 2 3 4 8 16; do printf '%s ' "$(host_workers $j)"; done)
if [ "$got" = "1 1 2 2 4 8 " ]; then echo "ok 12 - workers per compile mode for -j 1, 2, 3, 4, 8, 16: $got"
else echo "not ok 12 - workers per compile mode for -j 1, 2, 3, 4, 8, 16: $got, not 1 1 2 2 4 8"; fi

# a driver library without entry points every program needs: said once up front, and the run goes on,
# for the programs to report it as their failed point
FAKE_CUINIT=0 LD_LIBRARY_PATH=$PWD/build/selftest/loader/lacks_required suite -j2 "$tmp/pass"
if [ $rc -eq 0 ] && [ "$(grep -v '^ninja: ' <<<"$err")" = "run-suite: every program will fail its point 'driver entry points': libcuda.so.1 ($PWD/build/selftest/loader/lacks_required/libcuda.so.1) lacks cuModuleLoadData, cuMemcpyHtoDAsync_v2: entry points every program needs" ] &&
    grep -q '^Result: PASS' <<<"$out"; then
    echo "ok 13 - a driver without required entry points: one line up front, and the programs still run"
else echo "not ok 13 - a driver without required entry points (exit $rc)"; note; fi
