#!/bin/bash
# Green contexts' own events and streams (issue 28, items 1 and 5), against the CUDA stand-in
# (selftest/mock/device/): ctx.green.* (cuGreenCtxRecordEvent / cuGreenCtxWaitEvent, the green_record and green_wait
# op kinds; cuCtxRecordEvent / cuCtxWaitEvent of the context cuCtxFromGreenCtx converts the green context to, their
# green_ctx_* spellings; cuStreamGetGreenCtx, the stream_green op kind; cuStreamWaitEvent across a green and a primary
# stream).  With every promise kept each case and control passes; with a green record that captures nothing
# (green_record_empty), also the primary's work (green_record_primary) or work issued after it
# (green_record_tracks_later_work), a converted context's record that captures nothing (green_ctx_record_empty) or
# the primary's work too (green_ctx_record_all), a green wait that holds nothing (green_wait_noop) or the primary's
# streams too (green_wait_primary), a converted context's wait that holds nothing (green_ctx_wait_noop),
# cuStreamGetGreenCtx giving NULL for a green stream (stream_green_null) or a green context for every stream
# (stream_green_any), a context-level event call accepted during a capture (ctx_event_in_capture, ctx_event_capture_kept)
# and a stream wait that waits for nothing (wait), the rules each breaks fail; a driver whose every enqueue waits
# (enqueue_waits) fails no MUST point, and one without green contexts (no_green) skips every rule.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="ctx.green.record_captures_its_work ctx.green.record_query_not_ready_while_held
ctx.green.record_excludes_later_work ctx.green.record_leaves_primary_work ctx.green.wait_holds_later_work
ctx.green.wait_leaves_primary_work ctx.green.converted_record_captures_its_work ctx.green.converted_record_only_green_work
ctx.green.converted_wait_holds_later_work ctx.green.stream_gives_its_green_context ctx.green.ordinary_stream_gives_none
ctx.green.record_refused_while_capturing ctx.green.record_invalidates_the_capture ctx.green.wait_refused_while_capturing
ctx.green.primary_stream_waits_on_green_event ctx.green.green_stream_waits_on_primary_event"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
green_record_empty ctx.green.record_captures_its_work returned while A
green_record_empty ctx.green.record_query_not_ready_while_held Q reported success while A was held
green_record_tracks_later_work ctx.green.record_excludes_later_work Q kept answering not-ready for the whole window
green_record_primary ctx.green.record_leaves_primary_work Q kept answering not-ready for the whole window
green_wait_noop ctx.green.wait_holds_later_work B completed while A was still pending
green_wait_primary ctx.green.wait_leaves_primary_work B stayed pending for the whole 50 ms window while A was held
green_ctx_record_empty ctx.green.converted_record_captures_its_work returned while A
green_ctx_record_all ctx.green.converted_record_only_green_work Q kept answering not-ready for the whole window
green_ctx_wait_noop ctx.green.converted_wait_holds_later_work B completed while A was still pending
stream_green_null ctx.green.stream_gives_its_green_context X gave NULL
stream_green_any ctx.green.ordinary_stream_gives_none X gave the program's green context
ctx_event_in_capture ctx.green.record_refused_while_capturing X answered success
ctx_event_in_capture ctx.green.wait_refused_while_capturing X answered success
ctx_event_capture_kept ctx.green.record_invalidates_the_capture X answered success
wait ctx.green.primary_stream_waits_on_green_event B completed while A was still pending
wait ctx.green.green_stream_waits_on_primary_event B completed while A was still pending
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a device without green contexts (no_green): every point skips, saying so
for rule in $rules; do
    out=$(STREAMCTS_MOCK_BREAK=no_green "$tmp/$rule.mock" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && grep -q 'SKIP.*no green contexts' <<<"$out"; then
        ok "$rule: skips on a device without green contexts"
    else nok "$rule: a device without green contexts did not skip (exit $rc)" "$out"; fi
done

echo "1..$n"
