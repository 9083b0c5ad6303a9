#!/bin/bash
# Batched copies (batch.copy: cuMemcpyBatchAsync of 4 copies and a last one that writes the op's token to its
# slot), against the CUDA stand-in (selftest/mock/device/): with every promise kept each case and control passes; with
# a batch run at once, outside its stream's order (batch_copy_unordered), the MUST rules fail; a driver whose
# every enqueue waits (enqueue_waits) fails no MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="batch.copy.after_prior_work batch.copy.holds_later_work batch.copy.stream_sync_waits
batch.copy.event_orders_other_stream batch.copy.not_held_by_other_stream"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
batch_copy_unordered batch.copy.after_prior_work B completed while A was still pending
batch_copy_unordered batch.copy.holds_later_work C completed while its gate was still closed
batch_copy_unordered batch.copy.stream_sync_waits B completed while its gate was still closed
batch_copy_unordered batch.copy.event_orders_other_stream B completed while its gate was still closed
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
