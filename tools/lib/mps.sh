# mps.sh - sourced by tools/run-suite, tools/settings-matrix and tools/bench
# (from the repository root), and run by tools/certify (mps_lease): one MPS
# control daemon for a whole run, which every *.mps.t program of the run uses
# as its client (STREAMCTS_MPS_DAEMON, runtime/mps.h) instead of taking the
# MPS lock and starting and stopping a daemon of its own, so that those
# programs run side by side.  Not a tool of its own.
#
# mps_start TOOL
#   Where nvidia-cuda-mps-control is on PATH (or where the driver installs
#   it, as runtime/mps.c looks): takes the MPS lock (/tmp/streamcts-mps.lock,
#   the one the programs take: one MPS server at a time) on fd 8 of this
#   shell, within 10 s; stops the daemons killed runs left (/tmp/streamcts-
#   mps-*: no daemon of a live run is there while one holds the lock); makes
#   /tmp/streamcts-mps-XXXXXX; starts `nvidia-cuda-mps-control -d` with it as
#   pipe and log directory and this shell's environment (its MPS server
#   inherits it: start it where the run's settings are set), within 30 s; and
#   exports STREAMCTS_MPS_DAEMON.  Call it after host_start: the hosts must
#   not hold the lock.  Where it cannot (the lock held elsewhere, the daemon
#   did not start), one line on stderr says why and the programs fall back to
#   daemons of their own, one at a time; it never fails the run.  Without the
#   control program it starts nothing and says nothing: the programs skip
#   (`no MPS: ...`).  Always returns 0.
#
# mps_stop TOOL
#   Tells the daemon to quit (within 20 s: its server shuts down first),
#   removes its directory, releases the lock and unsets STREAMCTS_MPS_DAEMON.
#   Does nothing when mps_start started nothing, so a trap may call it again.
#   A daemon that does not quit is named on stderr; its directory stays, and
#   the next holder of the lock stops it.
#
# mps_lease TOOL
#   For a tool that is not a shell (tools/certify): mps_start, then one line
#   on stdout, the daemon's directory (empty: none), then waits for the end
#   of stdin (the caller's exit closes it, however it ends) and mps_stop.
#   INT is ignored (a ^C reaches the caller, whose end ends the lease); TERM
#   stops the daemon at once.
#
# A run killed before mps_stop leaves its daemon running: the lock is free
# again once its programs are gone, and the next holder, a run tool or a
# *.mps.t program of its own daemon (runtime/mps.c, stop_orphans), stops it.

MPS_LOCK=/tmp/streamcts-mps.lock
mps_dir=

mps_control() {  # prints the control program's path, or fails
    for d in $(printf '%s' "${PATH:-}" | tr ':' ' ') /usr/bin /usr/local/nvidia/bin /usr/local/bin; do
        [ -x "$d/nvidia-cuda-mps-control" ] && { echo "$d/nvidia-cuda-mps-control"; return 0; }
    done
    return 1
}

mps_quit() {  # CONTROL DIR: tells the daemon of DIR to quit, within 20 s
    CUDA_MPS_PIPE_DIRECTORY=$2 CUDA_MPS_LOG_DIRECTORY=$2 timeout -k 2 20 "$1" >/dev/null 2>&1 8<&- 9<&- <<'EOF'
quit
EOF
}

mps_start() {
    mps_dir=
    mps_c=$(mps_control) || return 0
    [ -e "$MPS_LOCK" ] || touch "$MPS_LOCK" 2>/dev/null || true
    [ -f "$MPS_LOCK" ] && [ -r "$MPS_LOCK" ] || {  # exec's redirection must not fail: the shell would exit
        echo "$1: MPS: cannot read the lock $MPS_LOCK: the *.mps.t programs start daemons of their own" >&2
        return 0
    }
    exec 8<"$MPS_LOCK"
    # flock(2) on fd 8 of this shell: the lock is this shell's (and its children's) until fd 8 closes
    perl -MFcntl=:flock -e 'open(my $f, "<&=", 8) or exit 2; my $end = time + 10;
        until (flock($f, LOCK_EX | LOCK_NB)) { exit 1 if time >= $end; select(undef, undef, undef, 0.05) }' || {
        exec 8<&-
        echo "$1: MPS: another run held the MPS lock $MPS_LOCK for 10 s: the *.mps.t programs start daemons of their own, one at a time" >&2
        return 0
    }
    for mps_d in $(find /tmp -maxdepth 1 -name 'streamcts-mps-*' -type d 2>/dev/null); do
        if [ -e "$mps_d/control" ] && mps_quit "$mps_c" "$mps_d"; then
            echo "$1: MPS: stopped the control daemon a killed run left behind ($mps_d)" >&2
        fi
        rm -rf "$mps_d" 2>/dev/null || true
    done
    mps_d=$(mktemp -d /tmp/streamcts-mps-XXXXXX) || {
        exec 8<&-
        echo "$1: MPS: cannot make a pipe directory under /tmp: the *.mps.t programs start daemons of their own" >&2
        return 0
    }
    mps_rc=0
    CUDA_MPS_PIPE_DIRECTORY=$mps_d CUDA_MPS_LOG_DIRECTORY=$mps_d timeout -k 2 30 "$mps_c" -d </dev/null >"$mps_d/start.log" 2>&1 8<&- 9<&- || mps_rc=$?
    mps_i=0
    while [ "$mps_rc" = 0 ] && [ ! -S "$mps_d/control" ] && [ ! -p "$mps_d/control" ]; do  # -d returns once the daemon detached
        mps_i=$((mps_i + 1))
        [ $mps_i -le 100 ] || mps_rc="no control socket in $mps_d after 5 s"
        sleep 0.05
    done
    if [ "$mps_rc" != 0 ]; then
        mps_why=$(cat "$mps_d/start.log" "$mps_d/control.log" 2>/dev/null | grep . | tail -1)
        [ "$mps_rc" != 124 ] || mps_rc="killed after 30 s"
        echo "$1: MPS: $mps_c -d did not start a daemon ($mps_rc; ${mps_why:-no log}): the *.mps.t programs start daemons of their own" >&2
        [ ! -e "$mps_d/control" ] || mps_quit "$mps_c" "$mps_d" || true
        rm -rf "$mps_d" 2>/dev/null || true
        exec 8<&-
        return 0
    fi
    mps_dir=$mps_d
    STREAMCTS_MPS_DAEMON=$mps_d
    export STREAMCTS_MPS_DAEMON
    return 0
}

mps_stop() {
    [ -n "${mps_dir:-}" ] || return 0
    mps_d=$mps_dir
    mps_dir=
    unset STREAMCTS_MPS_DAEMON
    mps_c=$(mps_control) || mps_c=nvidia-cuda-mps-control
    if mps_quit "$mps_c" "$mps_d" || { [ ! -S "$mps_d/control" ] && [ ! -p "$mps_d/control" ]; }; then
        rm -rf "$mps_d" 2>/dev/null || true
    else
        echo "$1: MPS: the control daemon at $mps_d did not quit within 20 s; the next run's start stops it" >&2
    fi
    exec 8<&-
    return 0
}

mps_lease() {
    trap '' INT  # a ^C ends the caller too, and so the lease
    mps_tool=$1
    trap 'mps_stop "$mps_tool"; exit 143' TERM
    mps_start "$1"
    echo "$mps_dir"
    while read -r _; do :; done
    mps_stop "$1"
}
