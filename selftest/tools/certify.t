#!/bin/bash
# tools/certify without a GPU: rendering logs (--from) into a whole bundle that
# validates (results.json against docs/results.schema.json, junit.xml against
# selftest/tools/certify/junit.xsd), the verdict and exit status of a whole
# passing suite, one with a MUST failure, an excerpt and a mock run; waivers;
# baseline comparison; every bad input (exit 2, one line naming the file:line
# or the flag, nothing written); and live runs of mock programs: a failure
# rerun and found consistent, one found flaky, a hung program killed at its
# time bound, and the real suite on this machine saying no CUDA device.
#   certify/full-log.pl writes the log of a whole suite run (every point passes,
#   or the points named fail); h100-excerpt.tap and mock-run.tap are
#   tap-summary.t's logs.
cd "$(dirname "$0")/../.." || exit 1
dir=selftest/tools
fix=$dir/certify
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
: >"$tmp/schema.out"; : >"$tmp/xmllint.out"
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
valid() {  # BUNDLE: results.json and junit.xml validate
    $fix/json-schema.pl docs/results.schema.json "$1/results.json" >"$tmp/schema.out" 2>&1 &&
        xmllint --noout --schema $fix/junit.xsd "$1/junit.xml" >"$tmp/xmllint.out" 2>&1
}
jq_() { perl -MJSON::XS -e 'local $/; my $d = decode_json(<STDIN>); print eval($ARGV[0]) // "", "\n"' "$2" <"$1/results.json"; }
echo "TAP version 13"
echo "1..45"

# -- rendering logs --------------------------------------------------------------------
tools/certify --from $dir/h100-excerpt.tap -o "$tmp/excerpt" >"$tmp/out" 2>"$tmp/err"; rc=$?
files=$(cd "$tmp/excerpt" 2>/dev/null && ls | tr '\n' ' ')
check "the excerpt of an H100 run: exit 3, INCOMPLETE (not every MUST case ran, prove did not finish)" \
    '[ $rc -eq 3 ] && head -1 "$tmp/out" | grep -q "^INCOMPLETE: " && grep -q "has no Result line" "$tmp/out"' "exit $rc: $(head -3 "$tmp/out") $(cat "$tmp/err")"
check "it writes every file of the bundle: $files" \
    '[ "$files" = "junit.xml mustpass.txt provenance.json report.html results.json summary.txt tap " ] && [ "$(find "$tmp/excerpt/tap" -name "*.t" | wc -l)" -eq 5 ] && grep -q "^1\.\.0 # SKIP needs 2 GPUs" "$tmp/excerpt/tap/multi_gpu/event/wait_across_devices.t"'
check "its results.json validates against docs/results.schema.json and its junit.xml against the JUnit XSD" \
    'valid "$tmp/excerpt"' "$(cat "$tmp/schema.out" "$tmp/xmllint.out")"
sed 's/"outcome" : "pass"/"outcome" : "passed"/; s/"ms" : \([0-9][0-9]*\)/"ms" : "\1"/' "$tmp/excerpt/results.json" >"$tmp/broken.json"
out=$($fix/json-schema.pl docs/results.schema.json "$tmp/broken.json"); rc=$?
check "the schema check is not vacuous: a results.json with an unknown outcome and a quoted number fails it" \
    '[ $rc -eq 1 ] && grep -q "^\$\.points\[[0-9]*\]\.outcome: \"passed\" is not one of" <<<"$out" && grep -q "^\$\.programs\[[0-9]*\]\.ms: a string, not number or null" <<<"$out"' "exit $rc: $out"
sed 's/<testcase name="[^"]*"/<testcase/' "$tmp/excerpt/junit.xml" >"$tmp/broken.xml"
check "nor is the JUnit check: a junit.xml whose testcase lacks its name fails the XSD" \
    '! xmllint --noout --schema $fix/junit.xsd "$tmp/broken.xml" 2>/dev/null'
check "results.json has all 30 points, the SHOULD miss as not-kept with its spec line, timeline and rerun" \
    '[ "$(jq_ "$tmp/excerpt" "scalar @{\$d->{points}}")" = 30 ] &&
     [ "$(jq_ "$tmp/excerpt" "my (\$p) = grep { \$_->{id} eq q(stream.priority.high_not_held_by_low.driver@legacy) } @{\$d->{points}}; join q( ), @\$p{qw(outcome level spec)}, scalar @{\$p->{timeline}}, \$p->{rerun} =~ /--case/ ? 1 : 0")" = "not-kept SHOULD spec/stream.rules:212 10 1" ]'
check "provenance.json names the GPU, its UUID, the driver, the runtime's toolkit and the programs' settings" \
    'grep -q "NVIDIA H100 80GB HBM3" "$tmp/excerpt/provenance.json" && grep -q "GPU-ff8ac15e-534d-d48f-c9e2-4df870111ca7" "$tmp/excerpt/provenance.json" &&
     grep -q "\"580.159.04\"" "$tmp/excerpt/provenance.json" && grep -q "cudart 13.0 static" "$tmp/excerpt/provenance.json" &&
     [ "$(perl -MJSON::XS -e "local \$/; print join q(,), @{decode_json(<STDIN>)->{environment}{in_programs}{CUDA_DEVICE_MAX_CONNECTIONS}}" <"$tmp/excerpt/provenance.json")" = 1 ]'
must=$(awk -F'\t' '$3 == "MUST"' generated/catalog.tsv | wc -l)
check "mustpass.txt lists every one of the catalog's $must MUST cases, with what ran of each" \
    '[ "$(grep -vc "^#" "$tmp/excerpt/mustpass.txt")" -eq "$must" ] &&
     grep -q "^memop.wait_value.holds_legacy_stream	missing	1/2	spec/" "$tmp/excerpt/mustpass.txt"'
check "report.html has its family table, an SVG timeline per point not kept and no script or remote reference" \
    'grep -q "<h2>Families</h2>" "$tmp/excerpt/report.html" && [ "$(grep -c "<svg " "$tmp/excerpt/report.html")" -eq 6 ] &&
     ! grep -qiE "<script|https?://[^\"]*\.(js|css)|<link " "$tmp/excerpt/report.html"'

selftest/tools/certify/full-log.pl >"$tmp/full.log"
tools/certify --from "$tmp/full.log" -o "$tmp/full" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "the log of a whole suite in which every point passes: exit 0, CERTIFIED, every MUST case passed" \
    '[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -q "^CERTIFIED: " && grep -q "^mustpass: *$must MUST cases: $must passed$" "$tmp/out" && valid "$tmp/full"' \
    "exit $rc: $(head -12 "$tmp/out") $(cat "$tmp/err")"
f1=fifo.null_stream.kernel.kernel.driver@legacy
f2=event.wait.orders_later_work.kernel.memset.runtime@per-thread
selftest/tools/certify/full-log.pl $f1 $f2 >"$tmp/fail.log"
tools/certify --from "$tmp/fail.log" -o "$tmp/fail" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "the same with two MUST points failed: exit 1, NOT CERTIFIED, both named, both in junit.xml as <failure>" \
    '[ $rc -eq 1 ] && head -1 "$tmp/out" | grep -q "^NOT CERTIFIED: 2 MUST points failed$" && grep -q "^  $f1: B completed" "$tmp/out" &&
     [ "$(grep -c "<failure " "$tmp/fail/junit.xml")" -eq 2 ] && xmllint --noout --schema $fix/junit.xsd "$tmp/fail/junit.xml" 2>/dev/null' "exit $rc: $(head -5 "$tmp/out")"
check "report.html draws each failure: host-clock bars per op and stream, the gates' release, the deciding observation in red, %globaltimer" \
    'F1=$f1 perl -0ne "exit !(/<h3>fail \(MUST\): \Q\$ENV{F1}\E<\/h3>.*?<svg [^>]*>(.*?)<\/svg>/s && (\$s = \$1) =~ /class=\"lane\">s: op1</ && \$s =~ /class=\"lane\">s: A</ && \$s =~ /class=\"lane\">t: B</ &&
        \$s =~ /class=\"release\"/ && \$s =~ /class=\"decides\".*observed B complete \(gates closed\)/ && \$s =~ /%globaltimer/)" "$tmp/fail/report.html"'

tools/certify --from $dir/mock-run.tap -o "$tmp/mock" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a mock run with a MUST failure and a killed program: exit 1; the killed program is named as crashed" \
    '[ $rc -eq 1 ] && grep -q "tap/stream/sync/waits_for_stream_work.t: crashed: killed by signal 9; planned 64 points, reported 0" "$tmp/out" &&
     grep -q "<error message=\"killed by signal 9" "$tmp/mock/junit.xml" && valid "$tmp/mock"' "exit $rc: $(cat "$tmp/out")"

cat >"$tmp/entry.log" <<'LOG'
[12:00:00] tap/fifo/null_stream.t .. 
TAP version 13
# streamcts fifo.null_stream (MUST): a stand-in libcuda.so.1 without cuStreamWaitEvent
1..1
not ok 1 - driver entry points
  ---
  message: "libcuda.so.1 lacks cuStreamWaitEvent, which every program needs"
  ...
Failed 1/1 subtests 
Result: FAIL
LOG
tools/certify --from "$tmp/entry.log" -o "$tmp/entry" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a driver that lacks an entry point: exit 3, INCOMPLETE, naming it, not a MUST failure of a case" \
    '[ $rc -eq 3 ] && head -1 "$tmp/out" | grep -q "^INCOMPLETE: driver entry points failed in tap/fifo/null_stream.t: libcuda.so.1 lacks cuStreamWaitEvent" &&
     ! grep -q "^MUST points failed" "$tmp/out" && valid "$tmp/entry"' "exit $rc: $(cat "$tmp/out" "$tmp/err")"

# -- waivers -----------------------------------------------------------------------------
printf '# known issues\n\nfifo.null_stream.kernel.kernel  queue reordering under review  https://bugs.example/1  2999-12-31\n' >"$tmp/w1"
# (the log of two families with the same two failures: a failure decides, whole or not)
selftest/tools/certify/full-log.pl +tap/fifo/ +tap/event/ $f1 $f2 >"$tmp/two.log"
tools/certify --from "$tmp/two.log" --waivers "$tmp/w1" -o "$tmp/w" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a waiver for one of the two failures: still NOT CERTIFIED (1 failed), the other reported waived with its ticket" \
    '[ $rc -eq 1 ] && grep -q "^MUST points: .* 1 failed, 1 waived" "$tmp/out" && grep -q "^  $f1: queue reordering under review (https://bugs.example/1, until 2999-12-31)" "$tmp/out" &&
     [ "$(jq_ "$tmp/w" "join q( ), map { \$_->{outcome} } grep { \$_->{id} eq q($f1) } @{\$d->{points}}")" = waived ]' "exit $rc: $(cat "$tmp/out" "$tmp/err")"
printf 'fifo.null_stream.kernel.kernel  queue reordering  https://bugs.example/1  2999-12-31\nevent.wait.orders_later_work.kernel.memset  cap  https://bugs.example/2  2999-12-31\n' >"$tmp/w2"
tools/certify --from "$tmp/fail.log" --waivers "$tmp/w2" -o "$tmp/w" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "both failures waived: exit 0, CERTIFIED with 2 waived" \
    '[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -q "^CERTIFIED: .*2 waived" && [ "$(grep -c "<skipped message=\"waived: " "$tmp/w/junit.xml")" -eq 2 ]' "exit $rc: $(head -3 "$tmp/out") $(cat "$tmp/err")"

# The waivers the reference run on NVIDIA's driver uses (docs/certify.md): they parse, are not expired,
# and waive exactly the contradiction docs/observations.md records.
selftest/tools/certify/full-log.pl callback.api_call_not_permitted.driver@legacy callback.api_call_not_permitted.driver@per-thread >"$tmp/nv.log"
tools/certify --from "$tmp/nv.log" --waivers docs/waivers/nvidia-580.txt -o "$tmp/nv" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "docs/waivers/nvidia-580.txt: a whole run failing only callback.api_call_not_permitted is CERTIFIED with 2 waived" \
    '[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -q "^CERTIFIED: .*2 waived"' "exit $rc: $(head -3 "$tmp/out") $(cat "$tmp/err")"

bad() {  # NAME EXPECTED-STDERR-REGEX ARGS...: exit 2, one line matching it, no bundle
    local name=$1 re=$2; shift 2
    rm -rf "$tmp/bad" "$tmp/bad.tmp"
    tools/certify "$@" -o "$tmp/bad" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qE "^certify: $re" "$tmp/err" &&
        [ ! -e "$tmp/bad" ] && [ ! -e "$tmp/bad.tmp" ]; then
        ok "$name: exit 2, one line ($(sed "s|$tmp|TMP|g" "$tmp/err")), nothing written"
    else nok "$name: exit $rc" "$(cat "$tmp/err" "$tmp/out"; ls -d "$tmp"/bad* 2>/dev/null)"; fi
}
printf 'fifo.*  ok  https://bugs.example/1  2000-01-01\n' >"$tmp/w3"
bad "an expired waiver" "$tmp/w3:1: the waiver of 'fifo\.\*' expired on 2000-01-01" --from "$tmp/fail.log" --waivers "$tmp/w3"
printf '# c\nfifo.*  no-ticket  2999-12-31\n' >"$tmp/w4"
bad "a waiver line with too few fields" "$tmp/w4:2: a waiver is .* this line has 3" --from "$tmp/fail.log" --waivers "$tmp/w4"
printf 'fifo.*  r  not-a-url  2999-12-31\n' >"$tmp/w5"
bad "a waiver whose ticket is not a URL" "$tmp/w5:1: 'not-a-url': the ticket must be a URL" --from "$tmp/fail.log" --waivers "$tmp/w5"
printf 'fifo.*  r  https://bugs.example/1  31/12/2999\n' >"$tmp/w6"
bad "a waiver whose expiry is not a date" "$tmp/w6:1: '31/12/2999': the expiry date must be YYYY-MM-DD" --from "$tmp/fail.log" --waivers "$tmp/w6"
printf 'fifo.*  r  https://bugs.example/1  2999-12-31\nno_such_family.*  r  https://bugs.example/2  2999-12-31\n' >"$tmp/w7"
bad "a waiver that matches no case of the suite" "$tmp/w7:2: the waiver 'no_such_family\.\*' matches no case of this suite" --from "$tmp/fail.log" --waivers "$tmp/w7"
printf 'fifo.*  r  https://bugs.example/1  2999-12-31\n' >"$tmp/w8"
bad "a waiver that matches no point of the run" "$tmp/w8:1: the waiver 'fifo\.\*' matches no point of this run" --from $dir/mock-run.tap --waivers "$tmp/w8"

# -- baseline ---------------------------------------------------------------------------
selftest/tools/certify/full-log.pl +tap/fifo/ +tap/event/ $f1 >"$tmp/base.log"
tools/certify --from "$tmp/base.log" -o "$tmp/base" >/dev/null 2>&1
selftest/tools/certify/full-log.pl +tap/fifo/ +tap/event/ +tap/host_func/ -tap/fifo/null_stream.t $f2 >"$tmp/now.log"
tools/certify --from "$tmp/now.log" --baseline "$tmp/base" -o "$tmp/cmp" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "against a baseline: $f2 newly failing, $f1 gone (missing), host_func's points new, in summary, JSON and HTML" \
    '[ $rc -eq 1 ] && grep -q "^against the baseline .*: 1 newly failing, 0 newly passing, 0 changed level, [1-9][0-9]* missing, [1-9][0-9]* new$" "$tmp/out" &&
     grep -q "^    $f2 (pass -> fail)" "$tmp/out" && [ "$(jq_ "$tmp/cmp" "join q( ), map { \$_->{from} } grep { \$_->{id} eq q($f1) } @{\$d->{baseline}{missing}}")" = fail ] &&
     [ "$(jq_ "$tmp/cmp" "\$d->{baseline}{newly_failing}[0]{id}")" = "$f2" ] &&
     grep -q "<h3>newly failing (1)</h3>" "$tmp/cmp/report.html" && valid "$tmp/cmp"' "exit $rc: $(cat "$tmp/out" "$tmp/err")"
selftest/tools/certify/full-log.pl +tap/fifo/ +tap/event/ >"$tmp/fixed.log"
tools/certify --from "$tmp/fixed.log" --baseline "$tmp/base" -o "$tmp/cmp" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a fixed driver against it: $f1 newly passing, nothing else changed" \
    'grep -q "^against the baseline .*: 0 newly failing, 1 newly passing, 0 changed level, 0 missing, 0 new$" "$tmp/out" && grep -q "^    $f1 (fail -> pass)" "$tmp/out"' "$(cat "$tmp/out" "$tmp/err")"
mkdir -p "$tmp/other"
sed 's/"catalog_sha256" : "[0-9a-f]*"/"catalog_sha256" : "0000000000000000000000000000000000000000000000000000000000000000"/' \
    "$tmp/base/results.json" >"$tmp/other/results.json"
line=$(grep -n '"catalog_sha256"' "$tmp/other/results.json" | cut -d: -f1)
bad "a baseline from another suite version" "$tmp/other/results.json:$line: from another suite version" --from "$tmp/fail.log" --baseline "$tmp/other"
printf '{\n  "schema": "streamcts-certify-results/1",\n  "points": [\n' >"$tmp/other/results.json"
bad "a baseline whose results.json is cut short" "$tmp/other/results.json:4: not JSON" --from "$tmp/fail.log" --baseline "$tmp/other"
bad "a baseline that is not a bundle" "$tmp/excerpt/tap/results.json: cannot read it" --from "$tmp/fail.log" --baseline "$tmp/excerpt/tap"

# -- bad input -----------------------------------------------------------------------------
head -n 20 $dir/h100-excerpt.tap >"$tmp/cut.log"
bad "a log cut inside a YAML block" "$tmp/cut.log:20: the log ends inside the output of tap/stream/priority/high_not_held_by_low.t \(begun at line 1\)" --from "$tmp/cut.log"
head -n 56 $dir/h100-excerpt.tap >"$tmp/cut2.log"
bad "a log cut between two points of a program" "$tmp/cut2.log:56: the log ends inside the output of tap/stream/priority/high_not_held_by_low.t \(begun at line 1\)" --from "$tmp/cut2.log"
: >"$tmp/empty.log"
bad "an empty log" "$tmp/empty.log:1: no program's output in it" --from "$tmp/empty.log"
bad "a log that does not exist" "$tmp/none.log: no such file" --from "$tmp/none.log"
bad "an unknown option" "--no-such-option: unknown option" --no-such-option
bad "a PATH that does not exist" "tap/no_such: no such file or directory \(paths are relative to the repository root" tap/no_such
bad "--rerun-failures out of range" "--rerun-failures 101: how many times a failed point is rerun must be a number from 0 to 100" --rerun-failures 101
bad "-j 0" "-j: how many programs run at a time must be a number from 1 to 1024|-j 0: " -j 0
mkdir -p "$tmp/notbundle"; echo keep >"$tmp/notbundle/file"
tools/certify --from "$tmp/full.log" -o "$tmp/notbundle" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "-o naming a directory that holds something else: exit 2, and it is left alone" \
    '[ $rc -eq 2 ] && grep -q "exists and is not a bundle" "$tmp/err" && [ "$(ls "$tmp/notbundle")" = file ] && [ ! -e "$tmp/notbundle.tmp" ]' "$(cat "$tmp/err")"

# -- live runs on mock programs ----------------------------------------------------------
m=$PWD/build/selftest/mock
if [ ! -x "$m/default_stream.legacy.waits_for_blocking.prog" ]; then
    for i in 1 2 3 4 5 6 7; do ok "# SKIP the mock programs are not built (ninja selftest)"; done
else
    mkdir -p "$tmp/live/tap/default_stream/legacy" "$tmp/live/tap/host_func" "$tmp/live/tap/stream/sync"
    # a MUST failure every time: the legacy stream does not wait for blocking streams
    printf '#!/bin/sh\nSTREAMCTS_CASE=default_stream.legacy.waits_for_blocking.kernel.kernel STREAMCTS_MOCK_BREAK=legacy exec %s "$@"\n' \
        "$m/default_stream.legacy.waits_for_blocking.prog" >"$tmp/live/tap/default_stream/legacy/waits_for_blocking.t"
    # a MUST failure the first time only (host functions run at once): the reruns pass
    printf '#!/bin/sh\nexport STREAMCTS_CASE=host_func.runs_after_prior_work.kernel\nif [ -e %s ]; then exec %s "$@"; fi\n: >%s\nSTREAMCTS_MOCK_BREAK=host_func exec %s "$@"\n' \
        "$tmp/ran-once" "$m/host_func.runs_after_prior_work.prog" "$tmp/ran-once" "$m/host_func.runs_after_prior_work.prog" \
        >"$tmp/live/tap/host_func/runs_after_prior_work.t"
    # hangs (stream synchronize never returns): killed at the time bound
    printf '#!/bin/sh\nSTREAMCTS_CASE="*.kernel.*" STREAMCTS_MOCK_BREAK=hang exec %s --deadline-ms 60000 "$@"\n' \
        "$m/stream.sync.waits_for_stream_work.prog" >"$tmp/live/tap/stream/sync/waits_for_stream_work.t"
    chmod +x "$tmp"/live/tap/*/*.t "$tmp"/live/tap/*/*/*.t
    start=$(date +%s)
    mkdir "$tmp/scratch"
    STREAMCTS_WINDOW_MS=50 TMPDIR=$tmp/scratch tools/certify --no-build -j3 --timeout 3 -o "$tmp/lb" "$tmp/live/tap" \
        >"$tmp/out" 2>"$tmp/err"; rc=$?
    took=$(($(date +%s) - start))
    # its host processes (the mock programs call another backend: they refuse them, and they run themselves)
    check "the host processes it started (3 workers per compile mode) ended with it" \
        '! pgrep -f "build/host-.* --serve $tmp/scratch" >/dev/null' "$(pgrep -af "build/host-")"
    check "a live run of three mock programs: exit 1 (flaky or not, a MUST failure fails), in ${took} s" \
        '[ $rc -eq 1 ] && head -1 "$tmp/out" | grep -q "^NOT CERTIFIED: 4 MUST points failed (2 of them flaky); and the run is incomplete" && valid "$tmp/lb"' "exit $rc: $(cat "$tmp/out" "$tmp/err")"
    check "the failure of the broken legacy stream was rerun twice and is consistent" \
        '[ "$(jq_ "$tmp/lb" "join q( ), map { (\$_->{classification}, @{\$_->{reruns}}) } grep { \$_->{point} eq q(default_stream.legacy.waits_for_blocking.kernel.kernel.driver) } @{\$d->{points}}")" = "consistent fail fail" ]'
    check "the failure that passed when rerun is flaky" \
        '[ "$(jq_ "$tmp/lb" "join q( ), map { (\$_->{classification}, @{\$_->{reruns}}) } grep { \$_->{point} eq q(host_func.runs_after_prior_work.kernel.driver) } @{\$d->{points}}")" = "flaky pass pass" ]'
    check "the hung program was killed at its 3 s bound, named as timed out, and the others still ran" \
        'grep -q "^  $tmp/live/tap/stream/sync/waits_for_stream_work.t: timed out: killed after its time bound (3 s)" "$tmp/out" && [ -s "$tmp/lb/tap/default_stream/legacy/waits_for_blocking.t" ] &&
         [ $took -lt 60 ]' "$(cat "$tmp/out")"
    check "not on a terminal, no progress line: stderr holds the verdict line only" \
        '[ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^certify: NOT CERTIFIED" "$tmp/err"' "$(cat "$tmp/err")"
    script -qec "STREAMCTS_WINDOW_MS=50 tools/certify --no-build --rerun-failures 0 -o $tmp/tty $tmp/live/tap/default_stream" /dev/null \
        >"$tmp/tty.out" 2>&1 </dev/null
    check "on a terminal, a progress line: programs done of all, failures so far, seconds" \
        'grep -q "certify: 0/1 programs, 0 failing, [0-9]* s elapsed" "$tmp/tty.out" && grep -q "certify: 1/1 programs, 2 failing, [0-9]* s elapsed" "$tmp/tty.out"' \
        "$(tr '\r' '\n' <"$tmp/tty.out" | head -5)"
fi

# -- the suite on this machine ---------------------------------------------------------------
if [ ! -x tap/fifo/null_stream.t ]; then
    ok "# SKIP the suite is not built (ninja)"
elif ! tap/fifo/null_stream.t | grep -q '^1\.\.0 # SKIP no CUDA'; then
    ok "# SKIP this machine has a CUDA device"
else
    tools/certify --no-build -o "$tmp/nodev" tap/fifo >"$tmp/out" 2>"$tmp/err"; rc=$?
    check "the suite on a machine without a GPU: exit 3, INCOMPLETE: no CUDA device" \
        '[ $rc -eq 3 ] && head -1 "$tmp/out" | grep -q "^INCOMPLETE: no CUDA device: " && valid "$tmp/nodev"' "exit $rc: $(cat "$tmp/out" "$tmp/err")"
fi
