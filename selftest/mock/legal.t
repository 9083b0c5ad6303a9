#!/bin/bash
# Legal drivers against the CUDA stand-in (selftest/mock/device/, STREAMCTS_MOCK_QUIRK):
# whatever they do that CUDA allows (an enqueue that waits, a launch that
# answers its own fault, a call that blocks before any gate), no MUST point fails.
cd "$(dirname "$0")/../.." || exit 1
dir=build/selftest/mock
export STREAMCTS_WINDOW_MS=5
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"
. selftest/mock/tap-match.sh # tap_must_failed

# legal drivers, which no MUST point may fail: one whose every enqueue waits (up to 50 ms) for its
# stream to drain, as under CUDA_LAUNCH_BLOCKING=1, so that the gates must open early; one whose
# faulting launch answers the fault itself, run over the programs that launch a fault (sc_fault in
# their generated C): for the others that quirk changes nothing, and conforming.t runs them (one attempt
# each: retrying an undecidable point with fresh streams would only repeat it)
faulting= src=()
for p in "$dir"/*.prog; do name=${p##*/}; name=${name%.prog}; src+=("generated/${name//.//}.c"); done
for c in $(grep -l 'sc_fault(' "${src[@]}" 2>/dev/null); do
    name=${c#generated/}; name=${name%.c}; faulting="$faulting $dir/${name//\//.}.prog"
done
[ "$(wc -w <<<"$faulting")" -ge 5 ] && ok "the programs that launch a fault: $(wc -w <<<"$faulting")" ||
    nok "fewer than 5 mock programs launch a fault: '$faulting'"
for quirk in enqueue_waits fault_at_launch; do
    progs=$(if [ $quirk = fault_at_launch ]; then echo $faulting; else echo "$dir"/*.prog; fi)
    for p in $progs; do
        out=$(STREAMCTS_MOCK_QUIRK=$quirk "$p" --attempts 1 2>&1); rc=$?
        name=${p##*/}; name=${name%.prog}
        if [ $rc -eq 0 ] && ! tap_must_failed "$out"; then
            ok "$name: no MUST failure on a legal driver ($quirk)"
        else nok "$name fails a legal driver ($quirk, exit $rc)" "$(grep -A4 '^not ok' <<<"$out" | grep -v '# TODO' )"; fi
    done
done
out=$(STREAMCTS_MOCK_QUIRK=enqueue_waits "$dir/event.elapsed.pending_is_not_ready.prog" --no-control 2>&1)
if [ "$(grep -c '^not ok [0-9]* - .* # TODO undecidable' <<<"$out")" = 2 ] &&
    grep -q 'message: "cannot decide: A (kernel on s) blocked its issuing thread for the whole window, so the gates were released early' <<<"$out"; then
    ok "an answer given after the gates had to open early is undecidable, not a violation"
else nok "an answer after an early release was not judged undecidable" "$out"; fi

# um: "synchronizes" is judged even when the gates had to open before its query was asked (every enqueue
# waits, as under CUDA_LAUNCH_BLOCKING=1): a legal driver passes; only its control, which needs the hold,
# cannot show the violation then (vacuous)
out=$(STREAMCTS_MOCK_QUIRK=enqueue_waits "$dir/stream.query.synchronizes_managed.prog" --attempts 1 --case '*.memset_managed.nonblocking' 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok [0-9]* - .*nonblocking\.\(driver\|runtime\)$' <<<"$out")" = 2 ] &&
    [ "$(grep -c '^not ok [0-9]* - .*\.control # TODO vacuous' <<<"$out")" = 2 ]; then
    ok "a query that synchronizes managed memory is judged after an early release: pass, control vacuous"
else nok "a query that synchronizes managed memory was not judged after an early release (exit $rc)" "$out"; fi

# a call that blocks for a window before any gate is issued waits for nothing the case holds: the gates
# stay closed, and the case is decided (on the H100, cuCtxDestroy made these points undecidable once)
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_MOCK_QUIRK=slow_ctx_destroy "$dir/ctx.destroy.pops_the_calling_threads_context.prog" --attempts 1 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok [0-9]* - ' <<<"$out")" = 2 ] && ! grep -q 'undecidable' <<<"$out"; then
    ok "a call blocked before any gate releases nothing: the case is decided"
else nok "a call blocked before any gate made the case undecidable or failed it (exit $rc)" "$out"; fi

echo "1..$n"
