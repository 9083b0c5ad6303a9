# host.sh - sourced by tools/run-suite and tools/settings-matrix (from the
# repository root): host processes (runtime/suite/host.h) that run the rule
# programs' runs on warm CUDA contexts, one per compile mode.  Not a tool of
# its own.
#
# host_start TOOL DIR JOBS
#   Starts build/host-legacy and build/host-ptds serving DIR, with
#   host_workers JOBS worker processes each, and exports STREAMCTS_HOST=DIR,
#   so that every rule program this shell starts hands its run to them.
#   Their lease is fd 9 of this shell, open until it exits (or host_stop):
#   then the hosts stop.  Their logs are DIR/legacy.log and
#   DIR/per-thread.log.  Fails with one line on stderr when a host did not
#   start.
#
# host_stop TOOL DIR
#   Ends the lease, waits (up to 10 s: a host gives its workers 5 s after
#   SIGTERM) for the hosts to stop their workers and remove their sockets,
#   and prints on stderr every worker that ended while it ran (a program whose
#   run it held then failed, saying so in its TAP).

# host_workers JOBS
#   The workers per compile mode for JOBS programs at a time: half, rounded up.
#   Each worker keeps a context alive for the whole run, and every live
#   context makes the driver's serialized context creations dearer: on an
#   H100 the whole suite at -j4 took 53-59 s with 2 workers per mode, 59-61 s
#   with 4 (as many as the jobs), 63 s with 3 and 71-77 s with 1, which holds
#   back programs waiting for a worker (docs/performance.md).
host_workers() {
    echo $(( ($1 + 1) / 2 ))
}

host_start() {
    mkfifo "$2/lease" || return 1
    exec 9<>"$2/lease"
    for h in legacy:legacy ptds:per-thread; do
        build/host-${h%%:*} --serve "$2" --lease "$2/lease" --workers "$(host_workers "$3")" 9<&- >"$2/${h#*:}.log" 2>&1 || {
            echo "$1: build/host-${h%%:*} did not start: $(tail -1 "$2/${h#*:}.log")" >&2
            return 1
        }
    done
    STREAMCTS_HOST=$2
    export STREAMCTS_HOST
}

host_stop() {
    exec 9<&-
    unset STREAMCTS_HOST
    i=0
    while [ -e "$2/legacy.sock" ] || [ -e "$2/per-thread.sock" ]; do
        i=$((i + 1))
        [ $i -le 200 ] || { echo "$1: the hosts at $2 did not stop within 10 s" >&2; break; }
        sleep 0.05
    done
    for log in "$2/legacy.log" "$2/per-thread.log"; do
        [ -f "$log" ] && grep ': worker .* ended' "$log" | sed "s|^|$1: |" >&2
    done
    return 0
}
