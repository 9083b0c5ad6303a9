#!/bin/bash
# Context-level events and context-independent kernels (issue 28, item 5: the parts one GPU shows), against the
# CUDA stand-in (selftest/mock/device/): ctx.record_event.* and ctx.wait_event.* (cuCtxRecordEvent and
# cuCtxWaitEvent of the current context, the ctx_record and ctx_wait op kinds) and launch.library_kernel.* (a
# cuLibraryGetKernel CUkernel launched by cuLaunchKernel, the library_kernel op kind).  With every promise kept each case and control passes; with a
# record that captures nothing (ctx_record_empty), leaves out the green contexts (ctx_record_no_green), tracks
# work issued after it (ctx_record_tracks_later_work) or accepts another context's event
# (ctx_record_other_context), a wait that holds nothing (ctx_wait_noop) or blocks the host instead
# (ctx_wait_blocks), a CUkernel run at once outside its stream's order (library_kernel_unordered) or in the
# current context's legacy stream instead of its stream (library_kernel_current_ctx), and for ctx.interop.* (the
# runtime API on a context the driver API made current: the driver_ctx_set op kind) a cuCtxSetCurrent that leaves
# the thread's context current (ctx_set_ignored) or a legacy-stream query that asks the primary context's
# (query_legacy_primary), the rules each breaks fail; a driver whose every enqueue waits (enqueue_waits) fails no MUST point, and one without green contexts
# (no_green) skips the green points.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="ctx.record_event.captures_every_stream ctx.record_event.query_not_ready_while_held
ctx.record_event.excludes_later_work ctx.record_event.captures_other_threads_work
ctx.record_event.primary_captures_green_work ctx.record_event.other_contexts_event_fails
ctx.wait_event.holds_later_work_of_every_stream ctx.wait_event.holds_later_work_of_other_threads
ctx.wait_event.primary_holds_green_work ctx.wait_event.does_not_block_the_host
launch.library_kernel.ordered_in_its_stream launch.library_kernel.runs_in_the_streams_context
ctx.interop.runtime_work_goes_to_the_drivers_current_context ctx.interop.runtime_query_sees_the_drivers_current_context"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
ctx_record_empty ctx.record_event.captures_every_stream B completed while A was still pending
ctx_record_empty ctx.record_event.query_not_ready_while_held Q reported success while A was held
ctx_record_empty ctx.record_event.captures_other_threads_work returned while A
ctx_record_empty ctx.record_event.primary_captures_green_work returned while A
ctx_record_no_green ctx.record_event.primary_captures_green_work returned while A
ctx_record_tracks_later_work ctx.record_event.excludes_later_work Q kept answering not-ready for the whole window
ctx_record_other_context ctx.record_event.other_contexts_event_fails X answered success
ctx_wait_noop ctx.wait_event.holds_later_work_of_every_stream B completed while A was still pending
ctx_wait_noop ctx.wait_event.holds_later_work_of_other_threads B completed while A was still pending
ctx_wait_noop ctx.wait_event.primary_holds_green_work B completed while A was still pending
ctx_wait_blocks ctx.wait_event.does_not_block_the_host X did not return until the gates were released
library_kernel_unordered launch.library_kernel.ordered_in_its_stream B completed while A was still pending
library_kernel_unordered launch.library_kernel.runs_in_the_streams_context B completed while A was still pending
library_kernel_current_ctx launch.library_kernel.runs_in_the_streams_context B completed while A was still pending
ctx_set_ignored ctx.interop.runtime_work_goes_to_the_drivers_current_context Q kept answering not-ready for the whole window
query_legacy_primary ctx.interop.runtime_query_sees_the_drivers_current_context Q reported success while A was held
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a device without green contexts (no_green): the green points skip, saying so
for rule in ctx.record_event.primary_captures_green_work ctx.wait_event.primary_holds_green_work; do
    out=$(STREAMCTS_MOCK_BREAK=no_green "$tmp/$rule.mock" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && grep -q 'SKIP.*no green contexts' <<<"$out"; then
        ok "$rule: skips on a device without green contexts"
    else nok "$rule: a device without green contexts did not skip (exit $rc)" "$out"; fi
done

echo "1..$n"
