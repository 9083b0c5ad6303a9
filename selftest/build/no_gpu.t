#!/bin/sh
# Without a usable GPU every rule program reports a skip of the whole file,
# never a pass: CUDA_VISIBLE_DEVICES= hides the GPUs where there are some.
# build/probe, the runners' check before a run (tools/lib/preflight.sh), says
# so too, with the reason the programs give.
cd "$(dirname "$0")/../.."
# Each program guards itself (runtime/suite/watchdog.h) and runs directly: a timeout(1) around each of 1400
# doubled the file's CPU (6.6 ms of its 10).  The file as a whole is bounded instead, so a program that hung
# anyway ends it short of its plan, a failure prove reports.
[ -n "${NO_GPU_BOUNDED:-}" ] || NO_GPU_BOUNDED=1 exec timeout 900 "$0" "$@"
echo "TAP version 13"
files=$(find tap -name '*.t' -type f | sort)
n=$(printf '%s\n' "$files" | grep -c .)
echo "1..$((n + 2))"
if [ "$n" -gt 0 ]; then echo "ok 1 - $n rule programs are built"; else echo "not ok 1 - no rule program under tap/ (run ninja)"; fi
i=1
nl='
'
for f in $files; do
    i=$((i + 1))
    out=$(CUDA_VISIBLE_DEVICES= "$f" 2>&1); rc=$?
    # its first two lines, with the shell's own expansions: no process per line
    # (1400 programs; this loop was most of the file's time)
    first=${out%%"$nl"*} rest=${out#*"$nl"}
    second=${rest%%"$nl"*}
    [ "$rest" != "$out" ] || second=""
    case "$rc:$first:$second" in
    "0:TAP version 13:1..0 # SKIP "*) echo "ok $i - $f skips: ${second#1..0 # SKIP }" ;;
    *) echo "not ok $i - $f did not skip cleanly (exit $rc)"; printf '%s\n' "$out" | head -5 | sed 's/^/# /' ;;
    esac
done
i=$((i + 1))
first=$(printf '%s\n' "$files" | grep -v '/process/\|/mps/' | sed -n 1p)
want=$(CUDA_VISIBLE_DEVICES= timeout 60 "$first" 2>&1 | sed -n 's/^1\.\.0 # SKIP //p')
why=$(CUDA_VISIBLE_DEVICES= timeout 60 build/probe no_gpu.t 2>&1); rc=$?
if [ $rc -eq 3 ] && [ -n "$want" ] && [ "$why" = "$want" ]; then echo "ok $i - build/probe: exit 3, $why"
else echo "not ok $i - build/probe: exit $rc, '$why', not 3 with '$want' (as $first says)"; fi
