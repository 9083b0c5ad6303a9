#!/bin/bash
# Batched copies by their sources' access order, attribute entries, streams and shape (batch.copy.reads_source_*,
# batch.copy_during_call, batch.copy_any, batch.copy_split, the default-stream batch.copy rules, batch.copy3d),
# against the CUDA stand-in (selftest/mock/device/): with every promise kept each case and control passes; each
# break fails the rules of its promise; a driver whose every enqueue waits (enqueue_waits) fails no MUST point;
# a driver without cuMemcpy3DBatchAsync (no_batch3d) skips batch.copy3d.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="batch.copy.reads_source_in_stream_order batch.copy.reads_source_behind_event_wait
batch.copy_during_call.source_read_by_return batch.copy_during_call.after_prior_work
batch.copy_during_call.holds_later_work batch.copy_any.after_prior_work batch.copy_any.holds_later_work
batch.copy_split.after_prior_work batch.copy.per_thread_stream_waits_for_legacy
batch.copy.blocking_stream_waits_for_legacy batch.copy.legacy_waits_for_blocking_stream
batch.copy3d.after_prior_work batch.copy3d.holds_later_work"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
batch_src_early batch.copy.reads_source_in_stream_order B read 0x00000000, not what A wrote
batch_src_early batch.copy.reads_source_behind_event_wait B read 0x00000000, not what A wrote
batch_dst_early batch.copy_any.after_prior_work B completed while A was still pending
batch_dst_early batch.copy_any.holds_later_work C completed while its gate was still closed
batch_split_first_only batch.copy_split.after_prior_work B completed while A was still pending
batch_copy_unordered batch.copy.per_thread_stream_waits_for_legacy B completed while A was still pending
batch_copy_unordered batch.copy.blocking_stream_waits_for_legacy B completed while A was still pending
batch_copy_unordered batch.copy.legacy_waits_for_blocking_stream B completed while its gate was still closed
batch3d_unordered batch.copy3d.after_prior_work B completed while A was still pending
batch3d_unordered batch.copy3d.holds_later_work C completed while its gate was still closed
EOF_CASES
# a host source read during the call is copied then, in the issuing thread: on a loaded machine that call may take
# tens of ms, so the window that must see its early destination is longer
check_breaks STREAMCTS_WINDOW_MS=250 <<'EOF_CASES'
batch_call_late batch.copy_during_call.source_read_by_return X read its source after its call returned
batch_dst_early batch.copy_during_call.after_prior_work B completed while A was still pending
batch_dst_early batch.copy_during_call.holds_later_work C completed while its gate was still closed
EOF_CASES

# each break is its own promise's only: the batches it does not concern keep passing
check_unconcerned "a batch it does not concern" "the break does not concern it" <<'EOF_CASES'
batch_src_early batch.copy_during_call.source_read_by_return
batch_call_late batch.copy.reads_source_in_stream_order
batch_dst_early batch.copy_split.after_prior_work
batch_split_first_only batch.copy_any.after_prior_work
batch3d_unordered batch.copy_split.after_prior_work
batch_copy_unordered batch.copy3d.after_prior_work
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

# a driver without cuMemcpy3DBatchAsync: every point of the 3D rules skips, naming why
for rule in batch.copy3d.after_prior_work batch.copy3d.holds_later_work; do
    out=$(STREAMCTS_MOCK_QUIRK=no_batch3d "$tmp/$rule.mock" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && grep -q '^ok.* # SKIP' <<<"$out" &&
        ! grep '^ok' <<<"$out" | grep -qv '# SKIP'; then
        ok "no_batch3d: $rule skips every point"
    else nok "no_batch3d: $rule did not skip (exit $rc)" "$(grep -E '^(not )?ok' <<<"$out" | head -6)"; fi
done

echo "1..$n"
