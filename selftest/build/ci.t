#!/bin/sh
# .ci/run checks the committed generated/ before anything regenerates it: a
# spec edit committed without regenerating fails CI in seconds, before the
# self-tests (which build, and so regenerate) start.  In a copy of .ci/, gen/,
# spec/, generated/, runtime/ops.def and runtime/program/levels.def, with tools/deps.sh and tools/self-test stubbed out.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..2"
cd "$root" && cp -R .ci gen spec generated "$tmp"/ && mkdir -p "$tmp/runtime/program" &&
    cp runtime/ops.def "$tmp/runtime/" && cp runtime/program/levels.def "$tmp/runtime/program/" && cd "$tmp" || exit 1
mkdir tools
printf '#!/bin/sh\nexit 0\n' >tools/deps.sh
printf '#!/bin/sh\ntouch reached-self-test\n' >tools/self-test
printf '#!/bin/sh\nexit 0\n' >tools/under-load
chmod +x tools/deps.sh tools/self-test tools/under-load

out=$(.ci/run 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -f reached-self-test ]; then echo "ok 1 - with generated/ fresh, .ci/run goes on to tools/self-test"
else echo "not ok 1 - .ci/run failed on a fresh generated/ (exit $rc)"; printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi

rm -f reached-self-test
sed -i 's/ complete in issue order, whatever their kinds\.$/ complete in issue order (edited, not regenerated)./' spec/fifo.rules
before=$(find generated -type f -exec cat {} + | cksum)
start=$(date +%s)
out=$(.ci/run 2>&1); rc=$?
took=$(($(date +%s) - start))
if ! grep -q '(edited, not regenerated)\.$' spec/fifo.rules; then
    echo "not ok 2 - the self-test could not edit spec/fifo.rules"
elif [ $rc -ne 0 ] && [ ! -f reached-self-test ] && [ "$took" -le 60 ] &&
    printf '%s\n' "$out" | grep -qx 'stale: generated/fifo/blocking_stream.c' &&
    [ "$(find generated -type f -exec cat {} + | cksum)" = "$before" ]; then
    echo "ok 2 - a spec edit without generated/: .ci/run fails in ${took} s, naming the stale file, before any build"
else echo "not ok 2 - .ci/run with a stale generated/: exit $rc in ${took} s$([ -f reached-self-test ] && echo ', ran tools/self-test')"
    printf '%s\n' "$out" | head -20 | sed 's/^/# /'; fi
