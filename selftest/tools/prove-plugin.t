#!/bin/bash
# .proverc's plugin (tools/lib/App/Prove/Plugin/StreamctsHosts.pm, started by
# `prove` in the repository root) against the mock: in a stand-in root whose
# tap/ holds mock programs and whose build/host-legacy is the mock-linked host
# (selftest/runtime/host.t's), `prove -r tap/` hands every program's run to a
# host it started, with the TAP each program prints alone, in run-suite's
# order and -j; no host is left when prove ends, also when it is interrupted
# or killed.  It keeps out of the way when STREAMCTS_HOST is set, for other
# tests, and outside the root; a missing or stale tap/ is refused; without a
# CUDA device the real programs skip as they do without it; a host that does
# not start fails the run.
cd "$(dirname "$0")/../.." || exit 1
repo=$PWD mock=$PWD/build/selftest/mock
unset STREAMCTS_HOST
export STREAMCTS_WINDOW_MS=5
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
say() { if [ "$1" = 0 ]; then ok "$2"; else nok "$2" "${3:-}"; fi; }
# the plan and every point's number and name (a verdict on the mock may differ from run to run under load)
points() { grep -E '^(not )?ok [0-9]+ - |^1\.\.' "$@" | sed -E 's/^(not )?ok ([0-9]+ - [^ ]*).*/\2/'; }
echo "TAP version 13"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# the stand-in root: the repository's .proverc and tools/, a build.ninja with nothing to do, the mock host
# for legacy programs (a per-thread host that starts and serves nothing: the mock programs are legacy ones)
root=$tmp/root
mkdir -p "$root/build" "$root/tap/event" "$root/tap/ctx" "$root/tap/stream" "$root/other" "$tmp/t" "$tmp/away"
cp .proverc "$root/"
ln -s "$repo/tools" "$root/tools"
: >"$root/build.ninja"
ln -s "$mock/host" "$root/build/host-legacy"
printf '#!/bin/sh\nexit 0\n' >"$root/build/host-ptds"
chmod +x "$root/build/host-ptds"
cp "$mock/event.query.never_recorded_is_success.prog" "$root/tap/event/a.t"
cp "$mock/event.wait.orders_later_work.prog" "$root/tap/event/b.t"
cp "$mock/ctx.created.sync_waits_for_its_own_context.prog" "$root/tap/ctx/c.t"
cp "$mock/stream.sync.waits_for_stream_work.prog" "$root/tap/stream/d.t"
printf '#!/bin/sh\necho 1..1; echo "ok 1 - ${STREAMCTS_HOST-unset}"\n' >"$root/other/x.t"
chmod +x "$root/other/x.t"
export TMPDIR=$tmp/t  # where the guard makes the hosts' directory
left() { ls -A "$tmp/t"; pgrep -fa "$tmp/t/"; }  # a hosts' directory or a host process still there

# 1-2: prove -r tap/ runs every program through a host it started, with the program's own points
cd "$root" || exit 1
PERL_TEST_HARNESS_DUMP_TAP=$tmp/dump prove -r tap/ >"$tmp/out" 2>&1; rc=$?
bad=
for p in tap/event/a.t tap/event/b.t tap/ctx/c.t tap/stream/d.t; do
    STREAMCTS_HOST='' "$p" >"$tmp/alone" 2>&1
    grep -q "^# host: run for $root/$p by host process" "$tmp/dump/$p" &&
        [ "$(points "$tmp/alone")" = "$(points "$tmp/dump/$p")" ] || bad="$bad $p"
done
[ $rc = 0 ] && [ -z "$bad" ] && grep -q '^Result: PASS' "$tmp/out"
say $? "prove -r tap/ in the root: every program ran on a host, with the points it prints alone (exit $rc)" \
    "$bad$(cat "$tmp/out")"
out=$(left); [ -z "$out" ]
say $? "when prove has exited, no host process and no hosts' directory is left" "$out"

# 3-4: the order and -j are run-suite's (tools/lib/order.sh: ctx's program among the rest, where prove
# would sort it first); given ones are kept
arranged() {  # PROVE-ARG...: the plugin's -j and programs, as it leaves them for prove
    perl -Itools/lib -MApp::Prove -MApp::Prove::State -MApp::Prove::Plugin::StreamctsHosts -e '
        my $app = App::Prove->new; $app->process_args("--norc", @ARGV);
        $app->state_manager(App::Prove::State->new({store => "/nonexistent/.prove"}));
        App::Prove::Plugin::StreamctsHosts::arrange($app);
        print join(" ", $app->jobs // "none", @{$app->argv}), "\n"' -- "$@"
}
want="$(sh -c '. tools/lib/order.sh && suite_jobs') tap/event/a.t tap/event/b.t tap/ctx/c.t tap/stream/d.t"
[ "$(arranged -r tap/)" = "$want" ]
say $? "without -j: run-suite's default -j, and its order (ctx's program among the rest)" "$(arranged -r tap/) against $want"
[ "$(arranged -r -j 3 tap/)" = "3 ${want#* }" ] && [ "$(arranged -r --reverse tap/)" = "${want%% *} tap/" ] &&
    [ "$(arranged -r -s tap/event)" = "${want%% *} tap/event" ]
say $? "a given -j is kept; --reverse and -s leave the order to prove" "$(arranged -r -j 3 tap/); $(arranged -r --reverse tap/)"

# 5-7: it keeps out of the way
STREAMCTS_HOST='' PERL_TEST_HARNESS_DUMP_TAP=$tmp/dump2 prove -r tap/event >"$tmp/out" 2>&1; rc=$?
[ $rc = 0 ] && ! grep -q '^# host:' "$tmp/dump2/tap/event/a.t" && [ -z "$(left)" ]
say $? "STREAMCTS_HOST set and empty (run-suite --no-host): no host, the programs run alone" "$(cat "$tmp/out")"
out=$(prove -v other/x.t 2>&1); rc=$?
[ $rc = 0 ] && grep -q '^ok 1 - unset' <<<"$out" && [ -z "$(left)" ]
say $? "tests that are not tap/ programs (tools/self-test's): nothing started, nothing set" "$out"
out=$(cd "$tmp/away" && prove -v "$root/tap/event/a.t" 2>&1); rc=$?
direct=$("$root/tap/event/a.t" 2>&1); rc2=$?
[ $rc = 0 ] && [ $rc2 = 0 ] && grep -q '^ok 1 ' <<<"$out" && ! grep -q '^# host:' <<<"$out$direct" &&
    [ "$(points <<<"$direct")" = "$(points <<<"$(STREAMCTS_HOST='' "$root/tap/event/a.t")")" ] && [ -z "$(left)" ]
say $? "prove of a program outside the root, and the program run directly, run it alone" "$out$direct"

# 8-9: a missing or stale tap/ is refused, in one line, before anything runs
out=$(prove -r tap/nosuch 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "prove (.proverc: StreamctsHosts): tap/nosuch: no such file or directory, and ninja builds nothing there" ]
say $? "a tap/ path that neither exists nor is built: exit 2, named" "$out (exit $rc)"
printf 'rule touch\n  command = touch $out\nbuild tap/event/new.t: touch\n' >"$root/build.ninja"
out=$(prove -r tap/ 2>&1); rc=$?
out2=$(prove -r tap/event/new.t 2>&1); rc2=$?
: >"$root/build.ninja"
[ $rc = 2 ] && grep -qx 'prove (.proverc: StreamctsHosts): tap/ is out of date with its sources (ninja would do 1 step): run ninja first (tools/run-suite builds, then runs)' <<<"$out" &&
    [ $rc2 = 2 ] && grep -q 'tap/event/new.t: not built yet: run ninja' <<<"$out2" && [ -z "$(left)" ]
say $? "ninja has work: prove -r tap/ says tap/ is out of date and how to build (exit 2); a program not built yet too" "$out
$out2"

# 10-12: interrupted or killed mid-run, prove leaves no host behind.  d.t holds each point for 2 s.
slow() { STREAMCTS_WINDOW_MS=2000 STREAMCTS_FIRST_LOOK_MS=0 exec prove -r tap/stream >"$tmp/out" 2>&1; }
running() {  # waits (up to 10 s) until a host runs d.t
    for _ in $(seq 200); do
        grep -qs ': stream.sync.waits_for_stream_work (' "$tmp"/t/prove-hosts.*/legacy.log && return 0
        sleep 0.05
    done
    return 1
}
gone() {  # waits (up to 10 s) until no host, hosts' directory or tap/ program is left
    for _ in $(seq 200); do
        [ -z "$(left)" ] && ! pgrep -f "$root/tap/" >/dev/null && return 0
        sleep 0.05
    done
    return 1
}
slow & pid=$!
running; started=$?
kill -INT $pid; wait $pid; rc=$?
out=$(left); [ $started = 0 ] && [ $rc = 130 ] && [ -z "$out" ]
say $? "SIGINT to prove mid-run: it exits 130, and no host is left when it has" "started $started, exit $rc; $out"
gone
set -m  # the next prove in a process group of its own, as at a terminal
slow & pid=$!
set +m
running; started=$?
kill -INT -- -$pid; wait $pid; rc=$?
gone; g=$?
[ $started = 0 ] && [ $rc != 0 ] && [ $g = 0 ]
say $? "^C to prove's whole process group mid-run: prove fails (exit $rc), hosts and programs end within 10 s" "started $started; $(left)"
slow & pid=$!
running; started=$?
kill -KILL $pid; wait $pid 2>/dev/null
gone; g=$?
[ $started = 0 ] && [ $g = 0 ]
say $? "prove killed mid-run (SIGKILL): the guard stops the hosts and removes their directory within 10 s" "started $started; $(left)"

# 13: a host that does not start fails the run before any program runs, and leaves no host either
printf '#!/bin/sh\necho "a stand-in that cannot serve" >&2; exit 1\n' >"$root/build/host-ptds"
out=$(prove -r tap/event 2>&1); rc=$?
gone; g=$?
printf '#!/bin/sh\nexit 0\n' >"$root/build/host-ptds"
[ $rc = 1 ] && [ $g = 0 ] && grep -qx 'prove: build/host-ptds did not start: a stand-in that cannot serve' <<<"$out" &&
    ! grep -q '^tap/' <<<"$out"
say $? "a host that does not start: prove exits 1 with host_start's line, runs nothing, leaves no host" "$out (exit $rc)"

# 14: without a CUDA device no point can run: one line says why, prove exits 3 before any program runs (its
# own NOTESTS would exit 0), and no host starts; without the plugin the programs skip alone
cd "$repo" || exit 1
CUDA_VISIBLE_DEVICES='' prove -r tap/fifo >"$tmp/with" 2>&1; rc=$?
CUDA_VISIBLE_DEVICES='' STREAMCTS_HOST='' prove -r tap/fifo >"$tmp/without" 2>&1
[ $rc = 3 ] && [ "$(wc -l <"$tmp/with")" = 1 ] &&
    grep -qx 'prove (.proverc: StreamctsHosts): INCOMPLETE: no CUDA .*: no point can run here (exit 3, as tools/run-suite)' "$tmp/with" &&
    [ -z "$(left)" ] && grep -q '^Result: NOTESTS' "$tmp/without"
say $? "no CUDA device: prove -r tap/fifo says why in one line and exits 3, starting no host" "$(cat "$tmp/with") (exit $rc)"
echo "1..$n"
