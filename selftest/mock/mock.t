#!/bin/bash
# The runtime against a CUDA stand-in on host threads (selftest/mock/device/): what
# it cannot run is skipped with the reason, never passed; a call that never
# returns, a device without room for a context and a process that dies are
# reported, not waited for; a case's other processes, MPS, and the contexts a
# program made.  (Its promises kept: conforming.t; broken: breaks.t; legal
# drivers: legal.t; the first look: first_look.t.)
cd "$(dirname "$0")/../.." || exit 1
dir=build/selftest/mock
export STREAMCTS_WINDOW_MS=5
# a point a loaded machine made undecidable (a thread kept off the CPU for a 5 ms window) is tried again
# with fresh streams, up to 10 times: the counts below are of decided points (a decided point costs no more)
export STREAMCTS_ATTEMPTS=10
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

# ipcpool: a device that cannot export a pool skips every point of a shared pool's rule, with the one reason
out=$(STREAMCTS_MOCK_QUIRK=no_ipc_pools "$dir/process.ipc_pool.event_orders_writes.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^ok [0-9]* - .* # SKIP no IPC memory pools: the device or driver cannot share a memory pool' <<<"$out")" = 4 ] &&
    ! grep -qE '^(not )?ok [0-9]* - [^#]*$' <<<"$out"; then
    ok "a device without IPC memory pools skips the shared pool's points, never passes them"
else nok "a device without IPC memory pools did not skip (exit $rc)" "$out"; fi

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

# a device without green contexts (green): the rule that needs them skips with one reason, never passes
out=$(STREAMCTS_MOCK_BREAK=no_green "$dir/ctx.green.primary_sync_waits_for_green_work.prog" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^1\.\.0 # SKIP no green contexts: making one on device 0 answered CUDA_ERROR_NOT_SUPPORTED$' <<<"$out" &&
    ! grep -qE '^(not )?ok' <<<"$out"; then
    ok "a device without green contexts skips the rule that needs them, with the reason"
else nok "a device without green contexts did not skip the rule (exit $rc)" "$out"; fi

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

# MPS (runtime/suite/mps.c) with a stand-in control program: the program named *.mps.t starts
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
out=$(STREAMCTS_WINDOW_MS=50 STREAMCTS_MOCK_BREAK=mps_serializes PATH="$fake:$PATH" "$fake/overlap.mps.t" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c '^not ok [0-9]* - process\.mps\..*[a-z] # TODO SHOULD rule not kept$' <<<"$out")" = 4 ] &&
    [ "$(grep -c '^ok [0-9]* - .*\.control$' <<<"$out")" = 4 ] &&
    grep -q 'message: "B stayed pending for the whole 50 ms window while A was held: it waited for A"' <<<"$out"; then
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
