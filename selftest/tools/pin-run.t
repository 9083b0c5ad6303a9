#!/bin/bash
# tools/lib/pin-run, tools/self-test's prove --exec: a test runs bound to one CPU of those allowed, the one
# with the fewest tests of the same directory running; its exit status and output pass through; a test file
# that is not executable runs through perl (its #! line), as prove runs it; its mark is gone when it ends;
# a bad call is refused with exit 2.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -10 | sed 's/^/# /'; }
echo "TAP version 13"
if ! command -v taskset >/dev/null 2>&1; then echo "1..0 # SKIP no taskset here (util-linux)"; exit 0; fi
echo "1..5"
# tools/self-test runs this file bound to one CPU itself: every online CPU again, where this process may have them
[ ! -r /sys/devices/system/cpu/online ] || taskset -pc "$(cat /sys/devices/system/cpu/online)" $$ >/dev/null 2>&1
mkdir "$tmp/pins"
# a test that says where it runs, then waits for its release file (at most 20 s) and exits 3
cat >"$tmp/where.t" <<'EOF'
#!/bin/sh
echo "cpus $(taskset -pc $$ | sed 's/.*: //')"
i=0
while [ ! -e "$1.go" ] && [ $i -lt 2000 ]; do sleep 0.01; i=$((i + 1)); done
exit 3
EOF
chmod +x "$tmp/where.t"
printf '#!/bin/sh\nexec "%s" "%s/a"\n' "$tmp/where.t" "$tmp" >"$tmp/a.t"
printf '#!/bin/sh\nexec "%s" "%s/b"\n' "$tmp/where.t" "$tmp" >"$tmp/b.t"
chmod +x "$tmp/a.t" "$tmp/b.t"

tools/lib/pin-run "$tmp/pins" "$tmp/a.t" >"$tmp/a.out" 2>&1 & a=$!
i=0; while [ ! -s "$tmp/a.out" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
marks=$(cd "$tmp/pins" && ls)
tools/lib/pin-run "$tmp/pins" "$tmp/b.t" >"$tmp/b.out" 2>&1 & b=$!
i=0; while [ ! -s "$tmp/b.out" ] && [ $i -lt 1000 ]; do sleep 0.01; i=$((i + 1)); done
: >"$tmp/a.go"; : >"$tmp/b.go"
wait $a; rca=$?; wait $b; rcb=$?
cpu_a=$(sed -n 's/^cpus //p' "$tmp/a.out") cpu_b=$(sed -n 's/^cpus //p' "$tmp/b.out")
if [ "$rca" = 3 ] && [ "$rcb" = 3 ] && [[ $cpu_a =~ ^[0-9]+$ ]] && [[ $cpu_b =~ ^[0-9]+$ ]]; then
    ok "each test runs bound to one CPU ($cpu_a, $cpu_b), its output and exit status (3) passed through"
else nok "the tests were not bound or lost their exit status" "a: exit $rca, $(cat "$tmp/a.out"); b: exit $rcb, $(cat "$tmp/b.out")"; fi
allowed=$(taskset -pc $$ | sed 's/.*: //')
if [[ $allowed =~ ^[0-9]+$ ]]; then
    ok "# SKIP one CPU allowed here ($allowed): nothing to spread"
elif [ -n "$cpu_a" ] && [ "$cpu_a" != "$cpu_b" ] && [ "$marks" = "cpu$cpu_a.$a" ]; then
    ok "a second test while the first runs goes to another CPU; the first's mark named its CPU ($marks)"
else nok "the second test did not go to another CPU" "allowed $allowed; a on $cpu_a, b on $cpu_b; marks while a ran: $marks"; fi
if [ -z "$(ls "$tmp/pins")" ]; then ok "the marks are gone once the tests ended"
else nok "marks left behind" "$(ls "$tmp/pins")"; fi

printf '#!/bin/bash\necho "ok 1 - via ${BASH_VERSION:+bash}"\nexit 0\n' >"$tmp/plain.t"  # not executable
out=$(tools/lib/pin-run "$tmp/pins" "$tmp/plain.t" 2>&1); rc=$?
if [ $rc = 0 ] && [ "$out" = "ok 1 - via bash" ]; then ok "a test file that is not executable runs through perl, which honours its #! line"
else nok "a test file that is not executable did not run (exit $rc)" "$out"; fi

out=$(tools/lib/pin-run "$tmp/none" "$tmp/a.t" 2>&1); rc=$?
if [ $rc = 2 ] && grep -q '^usage: tools/lib/pin-run DIR TEST' <<<"$out"; then ok "a DIR that does not exist: exit 2 with the usage"
else nok "a bad DIR was not refused (exit $rc)" "$out"; fi
