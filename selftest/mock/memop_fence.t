#!/bin/bash
# Fenced stream memory operations (memop.write_value.fences_prior_writes: a flag cuStreamWriteValue32 writes behind
# a fill of a buffer; memop.batch.barrier_*: one cuStreamBatchMemOp of a CU_STREAM_MEM_OP_BARRIER and a write, or of
# a wait, a barrier and a write), against the CUDA stand-in (selftest/mock/device/): with every promise kept each
# case and control passes; with the write unfenced (write_value_unfenced: the fill's bytes land after the flag), the
# batch unfenced (batch_unfenced), the batch run at once, outside its stream's order (batch_barrier_early), or its
# write put before its wait (batch_unordered), the rule each breaks fails, and an unfenced write of the other kind
# leaves it passing; a driver whose every enqueue waits (enqueue_waits) fails no MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="memop.write_value.fences_prior_writes memop.batch.barrier_fences_prior_writes
memop.batch.barrier_after_prior_work memop.batch.barrier_keeps_order"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
write_value_unfenced memop.write_value.fences_prior_writes B read 0x00000000, not what A wrote
batch_unfenced memop.batch.barrier_fences_prior_writes B read 0x00000000, not what A wrote
batch_barrier_early memop.batch.barrier_after_prior_work B completed while A was still pending
batch_unordered memop.batch.barrier_keeps_order B completed while A was still pending
EOF_CASES

# each unfenced break is the fence of its own kind of write only: the other rule keeps passing
check_unconcerned "whose write it does not concern" "its write is fenced" <<'EOF_CASES'
write_value_unfenced memop.batch.barrier_fences_prior_writes
batch_unfenced memop.write_value.fences_prior_writes
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
