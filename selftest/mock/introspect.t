#!/bin/bash
# A stream's introspection and attributes (issue 28, items 1, 5, 7) against the CUDA stand-in
# (selftest/mock/device/streams.c): cuStreamGetId (stream.id.*), cuStreamGetCtx (ctx.stream_ctx.*), the
# synchronization policy attribute set, read back and copied (stream.sync_policy.*, stream.attr.*), and
# cuStreamAttachMemAsync of the NULL stream (stream.attach.*).  With every promise kept each case and control
# passes; with the legacy stream's id given to every other stream (stream_id_shared), an id of its own for the NULL
# handle (stream_id_null_own), the current context answered for a created stream (stream_ctx_current) or the
# primary for a special handle (stream_ctx_builtin_primary), a stream whose policy was set synchronized and queried
# as if idle (sync_policy_unwaited), the policy dropped (sync_policy_dropped) or not copied (copy_attributes_noop),
# the destination made to wait for the source's pending work (copy_attributes_orders, a SHOULD rule: its cases are
# TODO), or a single attach to the NULL stream accepted (attach_null_accepted), the rule that checks it fails; a driver
# whose every enqueue waits (enqueue_waits) fails no MUST point.
# `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

# the rules built in both compile modes
rules="stream.id.created_streams_differ stream.id.legacy_differs_from_per_thread stream.id.created_differs_from_builtin
ctx.stream_ctx.created_stream_gives_its_context ctx.stream_ctx.builtin_stream_gives_current_context
stream.sync_policy.sync_waits_under_every_policy stream.sync_policy.query_reports_pending_under_every_policy
stream.sync_policy.reads_back stream.attr.copy_copies_sync_policy stream.attr.copy_leaves_order_alone"
link_rules "$rules"

# the rules of one compile mode: stream.id.null_is_legacy and stream.attach.single_to_null_stream_refused (legacy),
# stream.id.null_is_per_thread (per-thread)
for pair in stream.id.null_is_legacy:mock stream.id.null_is_per_thread:mock-ptds stream.attach.single_to_null_stream_refused:mock; do
    rule=${pair%%:*} lib=${pair#*:}
    if ! gcc -o "$tmp/$rule.$lib" "build/obj/$(tr . / <<<"$rule").o" "build/libsc-$lib.a" -lpthread 2>"$tmp/err"; then
        nok "$rule links against build/libsc-$lib.a" "$(cat "$tmp/err")"; continue
    fi
    out=$("$tmp/$rule.$lib" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q "^not ok" <<<"$out" && ! grep -q "# SKIP" <<<"$out" && grep -q "^ok" <<<"$out"; then
        ok "$rule ($lib): every case and control passes on a conforming mock"
    else nok "$rule ($lib) fails on a conforming mock (exit $rc)" "$(grep -A12 '^not ok' <<<"$out")"; fi
    [ "$rule" = stream.attach.single_to_null_stream_refused ] && continue # its break: check_breaks below
    out=$(STREAMCTS_MOCK_BREAK=stream_id_null_own "$tmp/$rule.$lib" --no-control 2>&1); rc=$?
    if [ $rc -ne 0 ] && grep -q '^not ok' <<<"$out" && ! grep -q '^ok' <<<"$out" &&
        grep -q 'message: ".*I1 gave another value as I2' <<<"$out"; then
        ok "break stream_id_null_own: $rule reports the violation"
    else nok "break stream_id_null_own: $rule did not report the violation (exit $rc)" "$out"; fi
done

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
stream_id_shared stream.id.created_streams_differ I1 gave the same value as I2
stream_id_shared stream.id.legacy_differs_from_per_thread I1 gave the same value as I2
stream_id_shared stream.id.created_differs_from_builtin I1 gave the same value as I2
stream_ctx_current ctx.stream_ctx.created_stream_gives_its_context X gave the_context, not primary
stream_ctx_builtin_primary ctx.stream_ctx.builtin_stream_gives_current_context X gave primary, not the_context
sync_policy_unwaited stream.sync_policy.sync_waits_under_every_policy X returned while A was still pending
sync_policy_unwaited stream.sync_policy.query_reports_pending_under_every_policy Q
sync_policy_dropped stream.sync_policy.reads_back X gave auto, not
copy_attributes_noop stream.attr.copy_copies_sync_policy X gave auto, not
copy_attributes_orders stream.attr.copy_leaves_order_alone K stayed pending
attach_null_accepted stream.attach.single_to_null_stream_refused X answered success (0), not an error
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules stream.attach.single_to_null_stream_refused"

echo "1..$n"
