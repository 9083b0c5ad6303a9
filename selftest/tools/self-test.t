#!/bin/bash
# tools/self-test's two passes, with stand-ins for what it calls (tools/deps.sh, ninja, prove) in a copy of
# the files it reads: the busy pass runs every busy file at 3 x nproc, each bound by tools/lib/pin-run, the
# longest first; the quiet pass runs its three files one at a time, also when the caller gave -j N; a failed
# pass fails the whole; a bad option is refused before anything runs.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -12 | sed 's/^/# /'; }
echo "TAP version 13"
echo "1..5"
mkdir -p "$tmp/tree/tools/lib" "$tmp/tree/build/selftest/x" "$tmp/tree/selftest/mock" "$tmp/tree/selftest/tools" "$tmp/bin"
cp "$root/tools/self-test" "$tmp/tree/tools/"
cp "$root/tools/lib/prove-args.sh" "$root/tools/lib/args.sh" "$tmp/tree/tools/lib/"
printf '#!/bin/sh\necho "deps $*" >>"%s/calls"\n' "$tmp" >"$tmp/tree/tools/deps.sh"
for f in selftest/mock/first_look.t selftest/mock/blocking_sync.t selftest/tools/cluster.t selftest/tools/certify.t \
    selftest/mock/zz.t build/selftest/x/units.t; do : >"$tmp/tree/$f"; done
printf '#!/bin/sh\necho "ninja $*" >>"%s/calls"\n' "$tmp" >"$tmp/bin/ninja"
# the stand-in prove: records its arguments, fails where $tmp/fail names a file it was given
printf '#!/bin/sh\necho "prove $*" >>"%s/calls"\nfor a; do [ "$a" != "$(cat %s/fail 2>/dev/null)" ] || exit 1; done\n' "$tmp" "$tmp" \
    >"$tmp/bin/prove"
chmod +x "$tmp/tree/tools/deps.sh" "$tmp/bin/ninja" "$tmp/bin/prove"
run() { rm -f "$tmp/calls"; (cd "$tmp/tree" && PATH="$tmp/bin:$PATH" tools/self-test "$@") >"$tmp/out" 2>&1; rc=$?; }

run
busy=$(grep '^prove ' "$tmp/calls" | sed -n 1p) quiet=$(grep '^prove ' "$tmp/calls" | sed -n 2p)
j=$((3 * $(nproc)))
if [ $rc = 0 ] && [ "$(grep -c '^prove ' "$tmp/calls")" = 2 ] && grep -q '^deps --self-test$' "$tmp/calls" &&
    [[ $busy == "prove -r -f -o -j $j --exec tools/lib/pin-run build/self-test-pins."*" selftest/tools/certify.t "* ]] &&
    [[ $busy == *" build/selftest/x/units.t "* && $busy == *" selftest/mock/zz.t" ]] && [[ $busy != *first_look* ]]; then
    ok "the busy pass: -j $j (3 x nproc), each file through tools/lib/pin-run, the longest first, not the quiet files"
else nok "the busy pass (exit $rc)" "$(cat "$tmp/calls" "$tmp/out")"; fi
if [ "$quiet" = "prove -r -f -o -j 1 selftest/mock/first_look.t selftest/mock/blocking_sync.t selftest/tools/cluster.t" ] &&
    [ -z "$(ls "$tmp/tree/build" | grep pins)" ]; then
    ok "the quiet pass: its three files one at a time; the pins' directory is gone"
else nok "the quiet pass" "$quiet; $(ls "$tmp/tree/build")"; fi

run -j 6 -v
quiet=$(grep '^prove ' "$tmp/calls" | sed -n 2p)
if [ $rc = 0 ] && [[ $(grep '^prove ' "$tmp/calls" | sed -n 1p) == "prove -r -f -o --exec tools/lib/pin-run "*" -j 6 -v "* ]] &&
    [ "$quiet" = "prove -r -f -o -j 6 -v -j 1 selftest/mock/first_look.t selftest/mock/blocking_sync.t selftest/tools/cluster.t" ]; then
    ok "-j 6 -v: the busy pass at -j 6; the quiet pass still one at a time (-j 1 after the caller's options)"
else nok "-j 6 -v was not passed on as it should be (exit $rc)" "$(cat "$tmp/calls")"; fi

echo selftest/mock/zz.t >"$tmp/fail"
run
if [ $rc = 1 ] && [ "$(grep -c '^prove ' "$tmp/calls")" = 2 ]; then ok "a failure in the busy pass: exit 1, and the quiet pass still runs"
else nok "a failure in the busy pass (exit $rc)" "$(cat "$tmp/calls")"; fi
rm -f "$tmp/fail"

run --no-such-option
if [ $rc = 2 ] && [ ! -e "$tmp/calls" ] && grep -q -- '--no-such-option' "$tmp/out"; then ok "an unknown option: exit 2, named, nothing run"
else nok "an unknown option (exit $rc)" "$(cat "$tmp/out" "$tmp/calls" 2>/dev/null)"; fi
