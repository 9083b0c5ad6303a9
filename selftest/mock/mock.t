#!/bin/bash
# The runtime against a CUDA stand-in on host threads (mock_backend.c): with
# every promise kept, cases pass and every control shows its violation; with
# one promise broken, the rules that check it fail, and a call that never
# returns is reported, not waited for.
cd "$(dirname "$0")/../.." || exit 1
dir=build/selftest/mock
export STREAMCTS_WINDOW_MS=5
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

for p in "$dir"/*.prog; do
    out=$("$p" 2>&1); rc=$?
    if [ $rc -eq 0 ] && ! grep -q '^not ok' <<<"$out" && grep -q '^ok' <<<"$out"; then
        ok "$(basename "$p" .prog): every case and control passes on a conforming mock"
    else nok "$(basename "$p" .prog) fails on a conforming mock (exit $rc)" "$(grep -A12 '^not ok' <<<"$out")"; fi
done

# broken promise, program, message its cases must report
while read -r brk prog msg; do
    out=$(STREAMCTS_MOCK_BREAK=$brk "$dir/$prog.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -vc '\.control')
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] && grep -q "message: \".*$msg" <<<"$out"; then
        ok "break $brk: $prog reports $main violated cases ('$msg')"
    else nok "break $brk: $prog did not report the violation (exit $rc, $main cases)" "$out"; fi
done <<'EOF_CASES'
legacy default_stream.legacy.waits_for_blocking completed while A was still pending
legacy default_stream.null.waits_for_legacy_in_per_thread_mode completed while A was still pending
wait event.wait.orders_later_work completed while A was still pending
host_func host_func.runs_after_prior_work completed while A was still pending
sync stream.sync.waits_for_stream_work returned while A was still pending
peek_resets error.last_error.peek_keeps_it P2 answered success (0), not invalid_value
pdl launch.pdl.dependency_sync_waits_for_primary completed while A was still pending
pdl launch.pdl.dependency_sync_sees_primary_result B read 0, not the result of A
pdl_overlap launch.pdl.waits_for_host_function completed while A was still pending
wait_unsigned memop.wait_value_geq.holds_behind_its_value B completed while A was still pending
wait_signed memop.wait_value_geq.holds_behind_its_value B completed while A was still pending
wait_unsigned memop.wait_value_eq.holds_above_its_value B completed while A was still pending
wait_unsigned memop.wait_value64_nor.holds_while_bits_covered B completed while A was still pending
wait_unsigned memop.wait_value_and.holds_without_common_bit B completed while A was still pending
ctx_sync_primary ctx.created.sync_waits_for_its_own_context X returned while A was still pending
batch_unordered memop.batch.write_waits_for_the_batchs_wait B completed while A was still pending
wait_unsigned memop.batch.wait_geq_is_cyclic B completed while A was still pending
callback_twice error.fault.callback_runs_once C ran 2 times, not once
host_func host_func.start_synchronizes_joined_streams H completed while A was still pending
host_func callback.start_synchronizes_joined_streams C completed while A was still pending
wait host_func.orders_other_stream_work_behind_it K completed while H was still pending
progevent_early launch.progevent.wait_follows_untriggered_kernel K completed while A was still pending
callback_api callback.api_call_not_permitted C answered MOCK_NOT_READY (600) as the answer of its CUDA call, not not_permitted
ctx_destroy_keeps_current ctx.destroy.pops_the_calling_threads_context B completed while A was still pending
ctx_destroyed_usable ctx.destroy.other_threads_context_is_destroyed X answered success (0), not context_is_destroyed
ctx_destroyed_usable ctx.destroy.other_threads_query_is_destroyed X answered success (0), not context_is_destroyed
primary_unshared ctx.primary.shared_with_runtime X returned while A was still pending
trim_below_min alloc.trim.keeps_min_bytes R gave 0 bytes reserved, not min_kept
imported_pool_allocates alloc.ipc.imported_pool_allocates_nothing X answered success (0), not an error
reuse_unordered alloc.reuse.single_policy_off_never_corrupts B's data was overwritten: word 0 of its destination is 0x[0-9a-f]*, written by A
reuse_unordered alloc.reuse.every_policy_off B's data was overwritten: word 0 of its destination is 0x[0-9a-f]*, written by A
release_unretained_succeeds ctx.primary.release_unretained_fails X answered success (0), not invalid_context
query_stale_managed stream.query.synchronizes_managed Q answered success, yet the managed memory X writes did not hold its data on the host
query_stale_managed event.query.synchronizes_managed Q answered success, yet the managed memory X writes did not hold its data on the host
memop_managed memop.write_value.managed_refused X answered success (0), not an error
memop_managed memop.wait_value.managed_refused X answered success (0), not an error
green_unsynced ctx.green.primary_sync_waits_for_green_work X returned while A was still pending
ctx_create_not_current ctx.create.supplants_the_current_context Q \(did not answer until the gates were released\|kept answering not-ready\)
pop_keeps_created ctx.create.pop_restores_the_supplanted_context Q reported success while A was held
ipc_pool_private process.ipc_pool.import_reads_exporters_write B read 0x00000000, not what A wrote (0x41414141)
wait process.ipc_pool.import_reads_exporters_write B read 0x00000000, not what A wrote (0x41414141)
ipc_pool_private process.ipc_pool.event_orders_writes B's data was overwritten: word 0 of its destination is 0x[0-9a-f]*, written by A
wait process.ipc_pool.event_orders_writes B's data was overwritten: word 0 of its destination is 0x[0-9a-f]*, written by A
wait process.ipc_pool.event_orders_writes_into_main B's data was overwritten: word 0 of its destination is 0x[0-9a-f]*, written by A
wait process.ipc_event.wait_orders_work completed while A was still pending
wait process.ipc_event.wait_in_main_orders_after_child_work completed while A was still pending
launch_blocking_ignored process.launch_blocking.launch_returns_after_kernel G returned while G was still pending
not_ready_recorded error.last_error.stream_query_not_ready_not_recorded P answered MOCK_NOT_READY (600), not success
not_ready_recorded error.last_error.event_query_not_ready_not_recorded P answered MOCK_NOT_READY (600), not success
export_any_pool alloc.ipc.export_needs_handle_type X answered success (0), not an error
launch_unchecked error.last_error.set_by_a_refused_launch G answered success (0), not an error
used_uncounted alloc.used.counts_live_allocation U gave 0 bytes in use, not allocated
used_counts_freed alloc.used.zero_after_free_synchronized U gave 4194304 bytes in use, not zero
EOF_CASES

# ipcpool: a device that cannot export a pool skips every point of a shared pool's rule, with the one reason
out=$(STREAMCTS_MOCK_QUIRK=no_ipc_pools "$dir/process.ipc_pool.event_orders_writes.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok [0-9]* - .* # SKIP no IPC memory pools: the device or driver cannot share a memory pool' <<<"$out")" = 4 ] &&
    ! grep -qE '^(not )?ok [0-9]* - [^#]*$' <<<"$out"; then
    ok "a device without IPC memory pools skips the shared pool's points, never passes them"
else nok "a device without IPC memory pools did not skip (exit $rc)" "$out"; fi

# a satisfied wait that a wrong comparison holds (ctxmem): "ready while" asks again until the release,
# so these get a 50 ms window, in which even a loaded machine runs the mock's stream threads.  Nothing
# else writes the word (a legal driver may deadlock on a write issued after the wait), so a wrong
# comparison holds the stream for good: the record never completes, within a deadline of 1 s here
while read -r brk prog; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_MOCK_BREAK=$brk "$dir/$prog.prog" --no-control --deadline-ms 1000 2>&1); rc=$?
    main=$(grep -c '^not ok' <<<"$out")
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] &&
        grep -q 'message: "\(Q kept answering not-ready\|Q did not answer until the gates were released\|R did not complete within 1000 ms of the release\)' <<<"$out"; then
        ok "break $brk: $prog reports $main violated cases (a satisfied wait held its stream)"
    else nok "break $brk: $prog did not report the violation (exit $rc, $main cases)" "$out"; fi
done <<'EOF_CASES'
wait_unsigned memop.wait_value_geq.passes_ahead_of_its_value
wait_signed memop.wait_value_geq.passes_ahead_of_its_value
EOF_CASES

# the first look (runtime/calibrate.h): a 5 ms hold before the 50 ms window still catches each
# broken promise, deciding cases within the 5 ms (the calibrated floor is 1 ms; the mock's host
# threads on a loaded CI machine need longer to let a broken promise through)
while read -r brk prog msg; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=5 STREAMCTS_MOCK_BREAK=$brk "$dir/$prog.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -vc '\.control'); short=$(grep -c 'window_ms: "5"' <<<"$out")
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] && [ "$short" -gt 0 ] && grep -q '^# first look 5 ms (set)' <<<"$out" &&
        grep -q "message: \".*$msg" <<<"$out"; then
        ok "break $brk, first look 5 ms: $prog reports $main violated cases, $short of them within the first look"
    else nok "break $brk, first look 5 ms: $prog did not report the violation (exit $rc, $main cases, $short short)" "$out"; fi
done <<'EOF_CASES'
wait event.wait.orders_later_work completed while A was still pending
sync stream.sync.waits_for_stream_work returned while A was still pending
EOF_CASES
# a spinning synchronize (ctx_blocking_spins) is told from a sleeping one by its CPU time against the
# time its thread did not wait for a CPU (/proc/thread-self/schedstat): on a loaded machine a spinning
# thread uses little CPU time too, but waits on a run queue for the rest, so the break is still caught
# (a 50 ms window leaves the thread enough time to show it; runtime/judge.c)
for prog in ctx.blocking_sync.ctx_sync_sleeps ctx.blocking_sync.stream_sync_sleeps; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_MOCK_BREAK=ctx_blocking_spins "$dir/$prog.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -v '# TODO' | grep -vc '\.control')
    if [ $rc -ne 0 ] && [ "$main" -gt 0 ] &&
        grep -q 'message: ".* of CPU time in a wait of .* ms of it waiting for a CPU), not sleeps' <<<"$out"; then
        ok "break ctx_blocking_spins: $prog reports $main violated cases (a spinning synchronize)"
    else nok "break ctx_blocking_spins: $prog did not report the violation (exit $rc, $main cases)" "$out"; fi
done

# the gate (runtime/support.c, sc_support_wait_gates): a stream wait unless a driver knob makes it the
# worse gate, or whichever STREAMCTS_WAIT_GATES names; the header says which, and a broken promise is
# reported with either (under CUDA_LAUNCH_BLOCKING=1 the mock's launches wait, as the driver's do, so
# the hold never happens and the points are undecidable, not passed)
while read -r setting want; do
    out=$(env "$setting" STREAMCTS_MOCK_BREAK=wait "$dir/event.wait.orders_later_work.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -vc '\.control')
    if grep -q "^# gates: $want" <<<"$out" && { { [ $rc -ne 0 ] && [ "$main" -gt 0 ]; } ||
        { [ "$setting" = CUDA_LAUNCH_BLOCKING=1 ] && ! grep -q '^ok [0-9]* - [^#]*$' <<<"$out" &&
          grep -q 'cannot decide' <<<"$out"; }; }; then
        ok "$setting: gates are $want, and a broken event wait is not passed ($main cases fail)"
    else nok "$setting: not '$want' gates, or the broken event wait went unseen (exit $rc, $main cases)" "$out"; fi
done <<'EOF_CASES'
STREAMCTS_NOTHING_SET=1 stream waits
CUDA_DEVICE_MAX_CONNECTIONS=32 stream waits
CUDA_DEVICE_MAX_CONNECTIONS=4 spinning kernels (CUDA_DEVICE_MAX_CONNECTIONS is under 8
CUDA_LAUNCH_BLOCKING=1 spinning kernels (CUDA_LAUNCH_BLOCKING is set)
STREAMCTS_WAIT_GATES=0 spinning kernels (set)
STREAMCTS_WAIT_GATES=1 stream waits (set)
EOF_CASES
# a conforming mock passes every point with a 1 ms first look (the floor), even a slow one whose work
# starts 20 ms late, where every control needs the full window to show its violation and so every case
# runs again with the full window
for quirk in "" slow_device; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=1 STREAMCTS_MOCK_QUIRK=$quirk \
        "$dir/event.wait.orders_later_work.prog" --case '*.kernel.memset' 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 4 ] && ! grep -q '^not ok' <<<"$out"; then
        ok "a conforming ${quirk:-fast} mock passes every case and control with a 1 ms first look"
    else nok "a conforming ${quirk:-fast} mock failed with a 1 ms first look (exit $rc)" "$out"; fi
done

# a blocks-until case whose control makes the same call (a synchronize of an idle stream for one of the
# held stream) stands on its control at the first look, as any case does (suite.c, run_case); so a broken
# synchronize that returns without waiting, but only after 8 ms (quirk slow_sync: any call may block),
# longer than the 5 ms first look, must still be caught: the control's synchronize, as slow, shows no
# violation within the first look, so the case runs again with the full window
for quirk in slow_sync ""; do
    out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=5 STREAMCTS_MOCK_QUIRK=$quirk STREAMCTS_MOCK_BREAK=sync \
        "$dir/stream.sync.waits_for_stream_work.prog" 2>&1); rc=$?
    main=$(grep '^not ok' <<<"$out" | grep -vc '\.control')
    if [ $rc -eq 1 ] && [ "$main" = 32 ]; then
        ok "a synchronize that never waits fails all 32 cases with a 5 ms first look (${quirk:-fast} calls)"
    else nok "a synchronize that never waits was passed (${quirk:-fast} calls: exit $rc, $main of 32 cases)" "$out"; fi
done
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=5 STREAMCTS_MOCK_QUIRK=slow_sync \
    "$dir/stream.sync.waits_for_stream_work.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 64 ]; then
    ok "a conforming mock whose synchronize takes 8 ms passes every case and control with a 5 ms first look"
else nok "a conforming mock with slow synchronizes failed (exit $rc)" "$(grep -A8 '^not ok' <<<"$out")"; fi

# the first look is timed again as a program goes on (suite.c): a device that was slow only while the
# program started (quirk slow_at_start: 20 ms late for 1.5 s) gets the full window at first, then less
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_MOCK_QUIRK=slow_at_start "$dir/event.wait.orders_later_work.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^# first look 50\.0 ms' <<<"$out" && grep -qE '^# first look now ([1-9]|[1-3][0-9])\.[0-9] ms \(the fastest of 16 legal round trips timed again: ' <<<"$out" &&
    [ "$(grep -c '^ok' <<<"$out")" = 280 ] && ! grep -q '^not ok' <<<"$out"; then
    ok "a first look calibrated on a busy device is timed again and shortened once the device is free"
else nok "the first look was not timed again, or a point failed (exit $rc)" "$(grep -v '^ok' <<<"$out")"; fi

# legal drivers, which no MUST point may fail: one whose every enqueue waits (up to 50 ms) for its
# stream to drain, as under CUDA_LAUNCH_BLOCKING=1, so that the gates must open early; one whose
# faulting launch answers the fault itself (one attempt each: retrying an undecidable point with
# fresh streams would only repeat it)
for quirk in enqueue_waits fault_at_launch; do
    for p in "$dir"/*.prog; do
        out=$(STREAMCTS_MOCK_QUIRK=$quirk "$p" --attempts 1 2>&1); rc=$?
        if [ $rc -eq 0 ] && ! grep '^not ok' <<<"$out" | grep -qv '# TODO'; then
            ok "$(basename "$p" .prog): no MUST failure on a legal driver ($quirk)"
        else nok "$(basename "$p" .prog) fails a legal driver ($quirk, exit $rc)" "$(grep -A4 '^not ok' <<<"$out" | grep -v '# TODO' )"; fi
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

# a runtime API that cannot use the driver the driver API uses fails its points, never skips them
out=$(STREAMCTS_MOCK_BREAK=runtime_rejects "$dir/stream.sync.waits_for_stream_work.prog" --case '*.kernel.blocking' 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c '^ok [0-9]* - .*\.driver' <<<"$out")" = 2 ] && ! grep -q '# SKIP' <<<"$out" &&
    [ "$(grep -c '^not ok [0-9]* - .*\.runtime' <<<"$out")" = 2 ] &&
    grep -q 'message: "the runtime API cannot use the driver the driver API uses: runtime API sees no usable device' <<<"$out"; then
    ok "a runtime API that rejects the driver fails its points with the reason"
else nok "a runtime API that rejects the driver was not reported as a failure (exit $rc)" "$out"; fi

# a rule that faults its context runs every repetition and attempt in a child of its own
out=$(STREAMCTS_MOCK_QUIRK=fault_at_launch "$dir/error.fault.host_func_not_called.prog" --repeat 3 --api driver 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 2 ]; then
    ok "each repetition of a faulting rule gets a fresh context"
else nok "a faulting rule repeated in a faulted context (exit $rc)" "$out"; fi

# only the points whose program faults run in children: a control (the program without its fault) runs in
# the program's own process, and still shows its violation there
out=$("$dir/error.fault.stream_sync_reports_it.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 4 ] &&
    grep -q '^# isolated points: 2 child processes, one for each point whose program faults its context' <<<"$out"; then
    ok "a faulting rule's 2 cases run in children, its 2 controls in the program's process"
else nok "a faulting rule's points were not split between children and the process (exit $rc)" "$out"; fi

# a broken DE-FACTO promise (ctxalloc): the last release of the primary context leaves it active; the
# case says so, as a TODO that does not fail the program
out=$(STREAMCTS_MOCK_BREAK=release_keeps_active "$dir/ctx.primary.last_release_resets.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^not ok 1 - ctx.primary.last_release_resets.driver # TODO DE-FACTO rule not kept' <<<"$out" &&
    grep -q 'message: "X gave the primary context still active after the releases, not reset"' <<<"$out"; then
    ok "break release_keeps_active: ctx.primary.last_release_resets reports the context left active (DE-FACTO)"
else nok "break release_keeps_active: ctx.primary.last_release_resets did not report it (exit $rc)" "$out"; fi

# a device without green contexts (green): the rule that needs them skips with one reason, never passes
out=$(STREAMCTS_MOCK_BREAK=no_green "$dir/ctx.green.primary_sync_waits_for_green_work.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^1\.\.0 # SKIP no green contexts: making one on device 0 answered CUDA_ERROR_NOT_SUPPORTED$' <<<"$out" &&
    ! grep -qE '^(not )?ok' <<<"$out"; then
    ok "a device without green contexts skips the rule that needs them, with the reason"
else nok "a device without green contexts did not skip the rule (exit $rc)" "$out"; fi
# pginv: a broken DE-FACTO promise: an exportable pool that releases freed memory (NVIDIA's driver does not,
# today); the cases say so, as TODOs that do not fail the program
out=$(STREAMCTS_MOCK_BREAK=ipc_pool_releases "$dir/alloc.ipc.export_pool_keeps_freed_memory.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok [0-9]* - alloc.ipc.export_pool_keeps_freed_memory.*# TODO DE-FACTO rule not kept' <<<"$out")" = 2 ] &&
    grep -q 'message: "R gave 0 bytes reserved, not nonzero"' <<<"$out"; then
    ok "break ipc_pool_releases: alloc.ipc.export_pool_keeps_freed_memory reports the released memory (DE-FACTO)"
else nok "break ipc_pool_releases: alloc.ipc.export_pool_keeps_freed_memory did not report it (exit $rc)" "$out"; fi

# poolreuse: a broken DE-FACTO promise: a pool that never hands out memory a synchronize made available again
# (allowed, as "available" obliges no reuse); each case says so, as a TODO that does not fail the program
for prog in alloc.reuse.after_stream_sync_in_another_stream alloc.reuse.after_stream_sync_without_opportunistic \
    alloc.reuse.after_stream_sync_every_policy_off; do
    out=$(STREAMCTS_MOCK_BREAK=reuse_never "$dir/$prog.prog" 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c "^not ok [0-9]* - $prog\.[a-z]* # TODO DE-FACTO rule not kept" <<<"$out")" = 2 ] &&
        [ "$(grep -c '^ok [0-9]* - .*\.control$' <<<"$out")" = 2 ] &&
        grep -q 'message: "Y gave another value as X (0x[0-9a-f]* vs 0x[0-9a-f]*)"' <<<"$out"; then
        ok "break reuse_never: $prog reports the memory not reused (DE-FACTO)"
    else nok "break reuse_never: $prog did not report it (exit $rc)" "$out"; fi
done
# poolreuse: a full pool that reuses a pending free without the dependency (DE-FACTO): B runs while A is held
prog=alloc.reuse.full_pool_inserts_dependency
out=$(STREAMCTS_MOCK_BREAK=internal_deps_missing "$dir/$prog.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c "^not ok [0-9]* - $prog\.[a-z]* # TODO DE-FACTO rule not kept" <<<"$out")" = 2 ] &&
    grep -q 'message: "B completed while A was still pending' <<<"$out"; then
    ok "break internal_deps_missing: $prog reports the missing dependency (DE-FACTO)"
else nok "break internal_deps_missing: $prog did not report it (exit $rc)" "$out"; fi
# allocmisc: a broken DE-FACTO promise: cuGraphAddMemsetNode that accepts stream-ordered memory (break
# memset_node_pool: the validation bug NVIDIA meant to fix); the 2 cases say so, as TODOs
out=$(STREAMCTS_MOCK_BREAK=memset_node_pool "$dir/alloc.graph.memset_node_refused_on_created_pool_memory.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok [0-9]* - alloc.graph.memset_node_refused_on_created_pool_memory.*# TODO DE-FACTO rule not kept' <<<"$out")" = 2 ] &&
    grep -q 'message: "X answered success (0), not an error"' <<<"$out"; then
    ok "break memset_node_pool: alloc.graph.memset_node_refused_on_created_pool_memory reports the accepted node (DE-FACTO)"
else nok "break memset_node_pool: alloc.graph.memset_node_refused_on_created_pool_memory did not report it (exit $rc)" "$out"; fi
# allocmisc: a broken DE-FACTO promise: cuMemFree / cudaFree that returns without waiting for other streams'
# work (break free_unsynced); the 4 cases say so, as TODOs that do not fail the program
out=$(STREAMCTS_MOCK_BREAK=free_unsynced "$dir/alloc.host.mem_free_waits_for_every_stream.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok [0-9]* - alloc.host.mem_free_waits_for_every_stream.*# TODO DE-FACTO rule not kept' <<<"$out")" = 4 ] &&
    grep -q 'message: "X returned while A was still pending' <<<"$out"; then
    ok "break free_unsynced: alloc.host.mem_free_waits_for_every_stream reports the free that did not wait (DE-FACTO)"
else nok "break free_unsynced: alloc.host.mem_free_waits_for_every_stream did not report it (exit $rc)" "$out"; fi
# allocmisc: under CUDA_LAUNCH_BLOCKING=1 the held kernel's launch waits for it: every point is undecidable, none
# violated
out=$(CUDA_LAUNCH_BLOCKING=1 "$dir/alloc.host.mem_free_waits_for_every_stream.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok [0-9]* - .*# TODO undecidable' <<<"$out")" = 8 ] &&
    ! grep -q 'DE-FACTO rule not kept' <<<"$out"; then
    ok "under CUDA_LAUNCH_BLOCKING=1 alloc.host.mem_free_waits_for_every_stream is undecidable, never violated"
else nok "under CUDA_LAUNCH_BLOCKING=1 alloc.host.mem_free_waits_for_every_stream was decided (exit $rc)" "$out"; fi

# a DE-FACTO rule's control that cannot show its violation is a warning, not a failure
out=$(STREAMCTS_MOCK_BREAK=legacy "$dir/default_stream.nonblocking.not_held_by_legacy.prog" --case '*.kernel.kernel' 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^not ok .*\.control # TODO vacuous' <<<"$out"; then
    ok "a vacuous control is reported as a TODO warning, not a failure"
else nok "a vacuous control was not reported as TODO (exit $rc)" "$out"; fi

# a call that never returns: the case is not ok with its reason, every planned point is reported
out=$(STREAMCTS_MOCK_BREAK=hang timeout 60 "$dir/stream.sync.waits_for_stream_work.prog" --deadline-ms 200 2>&1); rc=$?
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' <<<"$out"); points=$(grep -cE '^(not )?ok [0-9]' <<<"$out")
if [ $rc -eq 1 ] && [ -n "$plan" ] && [ "$plan" = "$points" ] && grep -q 'did not return within the 200 ms deadline' <<<"$out" &&
    grep -q 'not completed: an earlier case left a host thread blocked' <<<"$out"; then
    ok "a hung call is reported and the $plan planned points are all accounted for"
else nok "a hung call was not reported cleanly (exit $rc, plan $plan, points $points)" "$out"; fi

# a device whose initialisation never returns: one point says so, within 12 deadlines
out=$(STREAMCTS_MOCK_BREAK=init_hang timeout 60 "$dir/stream.sync.waits_for_stream_work.prog" --deadline-ms 100 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c '^1\.\.1$' <<<"$out")" = 1 ] && grep -q '^not ok 1 - device initialisation$' <<<"$out" &&
    grep -q 'message: "not completed: watchdog: initialising the device' <<<"$out"; then
    ok "a stuck initialisation is reported as one not-ok point, not waited for"
else nok "a stuck initialisation was not reported (exit $rc)" "$out"; fi

# a device without room for another context (CUDA_ERROR_OUT_OF_MEMORY while other programs hold
# theirs) is waited for, main and the case's other processes alike, for a bounded time (24 runs, more
# when a loaded machine makes a not-held point try again with fresh streams)
out=$(STREAMCTS_MOCK_BREAK=ctx_full timeout 60 "$dir/process.legacy_stream.not_held_by_other_process.prog" --deadline-ms 1000 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qE '^# the device had no room for this program.s context at first: initialisation took (0\.[5-9]|[1-9][0-9]*\.[0-9]) s' <<<"$out" &&
    grep -qE '^# other processes: 1 started for (2[4-9]|[3-9][0-9]) runs; 1 of them waited (0\.[4-9]|[1-9][0-9]*\.[0-9]) s in all for room for their context$' <<<"$out" &&
    [ "$(grep -cE '^(not )?ok [0-9]' <<<"$out")" = 24 ] && ! grep '^not ok' <<<"$out" | grep -qv '# TODO'; then
    ok "a device with no room for a context yet is waited for, by main and the other processes, and the waits are reported"
else nok "a full device was not waited for (exit $rc)" "$out"; fi
out=$(STREAMCTS_MOCK_BREAK=ctx_full timeout 60 "$dir/error.fault.stream_sync_reports_it.prog" --deadline-ms 1000 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qE '^# isolated points: 2 child processes waited ([1-9]|[1-9][0-9]+)\.[0-9] s in all for room for their context$' <<<"$out"; then
    ok "isolated points wait for room for their child's context, and the waits are reported"
else nok "isolated children's waits for room were not reported (exit $rc)" "$out"; fi
out=$(STREAMCTS_MOCK_BREAK=ctx_never timeout 60 "$dir/stream.sync.waits_for_stream_work.prog" --deadline-ms 100 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q '^not ok 1 - device initialisation$' <<<"$out" &&
    grep -q 'message: "cannot open device 0: CUDA_ERROR_OUT_OF_MEMORY .*still so after 0\.3 s of waiting"' <<<"$out"; then
    ok "a device that never has room for a context fails initialisation after 3 deadlines, with the reason"
else nok "a device without room was not reported (exit $rc)" "$out"; fi
out=$(STREAMCTS_MOCK_BREAK=peer_ctx_never timeout 60 "$dir/process.threads.shared_stream_fifo.prog" --deadline-ms 100 --api driver 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c '^not ok' <<<"$out")" = 4 ] &&
    [ "$(grep -c 'message: "process p1: cannot open device 0: CUDA_ERROR_OUT_OF_MEMORY' <<<"$out")" = 4 ]; then
    ok "another process that cannot open the device gives main its reason, point by point"
else nok "the other process's reason did not reach the points (exit $rc)" "$out"; fi

# points run API by API: a program's driver points all come before its runtime points
out=$("$dir/stream.sync.waits_for_stream_work.prog" 2>&1)
order=$(grep -E '^(not )?ok [0-9]' <<<"$out" | sed -E 's/.*\.(driver|runtime)(\.control)?( #.*)?$/\1/' | uniq | tr '\n' ' ')
if [ "$order" = "driver runtime " ]; then ok "points run API by API"
else nok "points are not grouped by API: $order" "$out"; fi

# a case's other processes outlive a run: one serves every run of both APIs (main moves it on from the
# driver API's region to the runtime API's); one that dies is replaced
out=$("$dir/process.legacy_stream.not_held_by_other_process.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -qE '^# other processes: 1 started for [0-9]{2,} runs$' <<<"$out" &&
    [ "$(grep -c '^ok [0-9]* - .*\.runtime' <<<"$out")" -gt 0 ] && [ "$(grep -c '^ok [0-9]* - .*\.driver' <<<"$out")" -gt 0 ]; then
    ok "the other process of a case is started once and serves every run of both APIs"
else nok "the other processes were not reused (exit $rc)" "$(grep '^# other' <<<"$out")"; fi
rm -f /tmp/streamcts-mock-peer-died-*  # a mark left by an interrupted run would spare the process
out=$(STREAMCTS_MOCK_BREAK=peer_dies "$dir/process.threads.shared_stream_fifo.prog" --api driver 2>&1); rc=$?
rm -f /tmp/streamcts-mock-peer-died-*
if [ $rc -eq 1 ] && [ "$(grep -c '^not ok' <<<"$out")" = 1 ] && [ "$(grep -c '^ok' <<<"$out")" = 3 ] &&
    grep -q '^not ok 1 .*\.kernel\.driver$' <<<"$out" && grep -q 'message: "process p1 exited with status 7 while' <<<"$out" &&
    grep -q '^# other processes: 2 started' <<<"$out"; then
    ok "a process that dies in a run fails that point only; the next run gets a new one"
else nok "a dying process was not reported and replaced (exit $rc)" "$out"; fi
# ... also when it dies in a point's first look: an error is what happened, not a hold too short to
# decide, so it is reported, never hidden behind the full window's run with a new process (point.c)
rm -f /tmp/streamcts-mock-peer-died-*
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=1 STREAMCTS_MOCK_BREAK=peer_dies \
    "$dir/process.threads.shared_stream_fifo.prog" --api driver 2>&1); rc=$?
rm -f /tmp/streamcts-mock-peer-died-*
if [ $rc -eq 1 ] && grep -q '^# first look 1 ms (set)' <<<"$out" && grep -q '^not ok 1 .*\.kernel\.driver$' <<<"$out" &&
    grep -q 'message: "process p1 exited with status 7 while' <<<"$out" && grep -q 'window_ms: "1"' <<<"$out"; then
    ok "a process that dies in a point's first look fails that point, not hidden by a run with the full window"
else nok "a process that died in a first look was not reported (exit $rc)" "$out"; fi

# MPS (runtime/mps.c) with a stand-in control program: the program named *.mps.t starts
# the daemon, runs its cases as a client, stops the daemon, and reclaims one a killed run left
fake=$(mktemp -d); mkdir -p /tmp/streamcts-mps-left-by-a-killed-run
printf '#!/bin/sh\necho "$*" >>"%s/calls"; [ "$1" = -d ] && exit "${FAKE_MPS_START:-0}"; cat >/dev/null; exit 0\n' "$fake" >"$fake/nvidia-cuda-mps-control"
chmod +x "$fake/nvidia-cuda-mps-control"
ln -s "$PWD/$dir/process.legacy_stream.not_held_by_other_process.prog" "$fake/legacy.mps.t"
out=$(PATH="$fake:$PATH" "$fake/legacy.mps.t" --case '*.kernel.kernel' 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^# MPS: every process' <<<"$out" && [ "$(grep -c '^ok' <<<"$out")" = 4 ] &&
    [ "$(grep -c '^TAP version' <<<"$out")" = 1 ] && [ ! -d /tmp/streamcts-mps-left-by-a-killed-run ] &&
    [ "$(grep -c '^-d' "$fake/calls")" = 1 ] && [ "$(grep -c '^$' "$fake/calls")" = 2 ]; then
    ok "*.mps.t runs its cases under the daemon it starts, stops it, and stops one a killed run left"
else nok "the MPS wrapper misbehaved (exit $rc)" "$out$(cat "$fake/calls")"; fi
out=$(FAKE_MPS_START=3 PATH="$fake:$PATH" "$fake/legacy.mps.t" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^1\.\.0 # SKIP no MPS: .*-d failed (exit 3' <<<"$out"; then
    ok "a daemon that cannot start makes the program skip with the reason"
else nok "a failed daemon start was not a skip (exit $rc)" "$out"; fi
flock /tmp/streamcts-mps.lock sleep 2 & holder=$!  # holds the lock for 2 s
sleep 0.5
out=$(STREAMCTS_MPS_LOCK_MS=300 PATH="$fake:$PATH" "$fake/legacy.mps.t" 2>&1); rc=$?
wait $holder  # the lock is free again for whatever runs next
if [ $rc -eq 1 ] && grep -q '^not ok 1 - MPS lock$' <<<"$out" &&
    grep -q 'message: "another program held the MPS lock /tmp/streamcts-mps.lock for 0.3 s' <<<"$out"; then
    ok "an MPS lock held past its deadline fails the program with the reason, never hangs it"
else nok "a held MPS lock was not reported (exit $rc)" "$out"; fi
# several *.mps.t programs run at once, each under its own daemon (NVIDIA documents several
# control/server pairs); a daemon whose program is alive is never taken for one a killed run left
mkdir -p "$fake/timed" /tmp/streamcts-mps-alive-owner && : >/tmp/streamcts-mps-alive-owner/owner.lock
printf '#!/bin/sh\necho "$(date +%%s.%%N) ${1:-quit} $CUDA_MPS_PIPE_DIRECTORY" >>"%s/times"; [ "$1" = -d ] && exit 0; cat >/dev/null; exit 0\n' \
    "$fake" >"$fake/timed/nvidia-cuda-mps-control"
chmod +x "$fake/timed/nvidia-cuda-mps-control"
flock /tmp/streamcts-mps-alive-owner/owner.lock sleep 3 & owner=$!
sleep 0.3
PATH="$fake/timed:$PATH" "$fake/legacy.mps.t" --case '*.kernel.*' >"$fake/a.out" 2>&1 & a=$!
PATH="$fake/timed:$PATH" "$fake/legacy.mps.t" --case '*.kernel.*' >"$fake/b.out" 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
alive=no; [ -f /tmp/streamcts-mps-alive-owner/owner.lock ] && alive=yes
wait $owner; rm -rf /tmp/streamcts-mps-alive-owner
# side by side: two daemons (two pipe directories), the second started before the first quit
side=$(sort -n "$fake/times" | awk '$2 == "-d" { d[$3] = 1; if (++starts == 2) second = $1 }
    $2 == "quit" && first == "" { first = $1 } END { n = 0; for (x in d) n++; print (n == 2 && second < first) ? "yes" : "no" }')
if [ $ra -eq 0 ] && [ $rb -eq 0 ] && [ "$side" = yes ] && [ $alive = yes ] &&
    [ "$(grep -c '^ok' "$fake/a.out")" = "$(grep -c '^ok' "$fake/b.out")" ] && ! grep -q '^not ok' "$fake/a.out" "$fake/b.out"; then
    ok "two *.mps.t programs run at once under daemons of their own, and a live program's daemon is left alone"
else nok "MPS programs did not run side by side (exit $ra, $rb; side by side: $side; live owner kept: $alive)" \
    "$(cat "$fake/times" "$fake/a.out" "$fake/b.out")"; fi
# blocking: a rule of mode mps (process.mps.*) runs only as an MPS client: its plain program skips with
# the reason; under the (stand-in) daemon its cases pass, and an MPS server that runs one piece of work at
# a time (break mps_serializes) fails them, as the SHOULD rule's TODO
mps=$dir/mps/process.mps.other_process_work_overlaps.prog
out=$("$mps" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^1\.\.0 # SKIP needs MPS: its cases run only as clients of an MPS server' <<<"$out"; then
    ok "a rule of mode mps skips outside MPS, never passes"
else nok "a rule of mode mps did not skip outside MPS (exit $rc)" "$out"; fi
ln -s "$PWD/$mps" "$fake/overlap.mps.t"
out=$(PATH="$fake:$PATH" "$fake/overlap.mps.t" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 8 ] && ! grep -q '^not ok' <<<"$out"; then
    ok "under MPS another process's work overlaps a held kernel, and each control shows it held"
else nok "the MPS overlap rule failed on a conforming mock (exit $rc)" "$out"; fi
out=$(STREAMCTS_MOCK_BREAK=mps_serializes PATH="$fake:$PATH" "$fake/overlap.mps.t" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok [0-9]* - process\.mps\..*[a-z] # TODO SHOULD rule not kept$' <<<"$out")" = 4 ] &&
    [ "$(grep -c '^ok [0-9]* - .*\.control$' <<<"$out")" = 4 ] &&
    grep -q 'message: "B stayed pending for the whole 5 ms window while A was held: it waited for A"' <<<"$out"; then
    ok "break mps_serializes: process.mps.other_process_work_overlaps reports its 4 cases held (SHOULD)"
else nok "break mps_serializes: the serializing MPS server was not reported (exit $rc)" "$out"; fi
rm -rf "$fake"

# blocking: the process a rule starts with CUDA_LAUNCH_BLOCKING=0 launches asynchronously whatever the
# suite runs under, so the control still shows its violation under CUDA_LAUNCH_BLOCKING=1
out=$(CUDA_LAUNCH_BLOCKING=1 "$dir/process.launch_blocking.launch_returns_after_kernel.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok [0-9]* - .*\.control$' <<<"$out")" = 2 ] && ! grep -q '^not ok' <<<"$out"; then
    ok "a process's own CUDA_LAUNCH_BLOCKING replaces the one the program runs under"
else nok "a process's own CUDA_LAUNCH_BLOCKING did not replace the program's (exit $rc)" "$out"; fi

# the contexts a program's cases made are counted in its TAP (tools/bench adds them to its floor): a kept one
# is not made again, a destroyed one is; a program that makes none says nothing
out1=$("$dir/ctx.created.sync_waits_for_its_own_context.prog" 2>&1); rc1=$?
out2=$("$dir/ctx.destroy.other_threads_context_is_destroyed.prog" 2>&1); rc2=$?
out3=$("$dir/event.wait.orders_later_work.prog" 2>&1); rc3=$?
out4=$("$dir/ctx.green.primary_sync_waits_for_green_work.prog" 2>&1); rc4=$?  # its context and green context, kept
if [ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $rc3 -eq 0 ] && [ $rc4 -eq 0 ] && ! grep -q '^not ok' <<<"$out4" &&
    grep -q '^# contexts created: 2 by the cases ' <<<"$out4" &&
    grep -q '^# contexts created: 1 by the cases (cuCtxCreate, green contexts; a kept one is not made again)' <<<"$out1" &&
    grep -q '^# contexts created: 3 by the cases ' <<<"$out2" && ! grep -q '^# contexts created' <<<"$out3"; then
    ok "the contexts a program's cases made are counted: 1 kept across 4 points, 3 where cases destroy theirs, none, and a green context kept like a created one"
else nok "the contexts made are miscounted (exits $rc1 $rc2 $rc3 $rc4)" "$(grep -h '^# contexts' <<<"$out1$out2$out3$out4")"; fi

echo "1..$n"
