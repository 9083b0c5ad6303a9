#!/bin/bash
# Prefetches of managed memory (cuMemPrefetchAsync, CUDA 13's CUmemLocation form: stream.query.synchronizes_prefetched_managed,
# api_sync.prefetch_async.returns_before_work; the op kinds memset_managed_prefetch_host / _device, a managed memset
# then the prefetch of its bytes in the same stream), against the CUDA stand-in (selftest/mock/device/): with every
# promise kept each case and control passes; with a prefetch that migrates at the call, its stale copy landing over
# the memset in stream order (prefetch_stale), or one that waits for its stream to drain (prefetch_waits), the rule
# each breaks reports it; a driver whose every enqueue waits (enqueue_waits) fails no MUST point.  `ninja selftest` links the programs
# (selftest/mock/programs.list, pair).
cd "$(dirname "$0")/../.." || exit 1
. selftest/mock/rule-programs.sh # tmp, ok, nok, the TAP header, the mock's window

rules="stream.query.synchronizes_prefetched_managed api_sync.prefetch_async.returns_before_work"
link_rules "$rules"

# broken promise, rule, message its cases must report
check_breaks <<'EOF_CASES'
prefetch_stale stream.query.synchronizes_prefetched_managed the managed memory X writes did not hold its data on the host
prefetch_waits api_sync.prefetch_async.returns_before_work X did not return until the gates were released
EOF_CASES

# a legal driver whose every enqueue waits (up to 50 ms) for its stream to drain: no MUST failure
check_legal "$rules"

echo "1..$n"
