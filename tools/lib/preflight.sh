# preflight.sh - sourced by tools/run-suite, settings-matrix, bench and soak,
# and run by tools/certify (from the repository root): the one check before a
# run.  Whether a rule program can run here at all (a CUDA driver, a device)
# and whether every STREAMCTS_* value is valid are asked once, of build/probe
# (tools/lib/probe.c: the programs' own checks, runtime/suite/options.c and
# runtime/suite/support.c), before the suite's programs are built or started, so
# that the answer comes in seconds rather than from each program.  The
# programs still check for themselves when they are run directly.  Not a tool
# of its own.
#
# preflight_probe TOOL BUILD
#   Installs what is missing (tools/deps.sh; not when BUILD is ninja: the
#   caller did) and builds build/probe (the runtime and the kernels, not the
#   programs; ninja's output is shown only when it built something or
#   failed), runs it, and returns its status with preflight_why set to what
#   it said on stdout: 0 a rule program can run here (preflight_why empty,
#   or why every program will fail its one point); 1 the device's
#   initialisation did not end in time (said on stderr), or build/probe did
#   not build; 2 a bad STREAMCTS_* value, named on stderr as TOOL; 3 no
#   point can run here, preflight_why says why (no CUDA driver, no CUDA
#   device, as a program's skip says).
#
# preflight TOOL ALLOW [BUILD]
#   preflight_probe TOOL BUILD (default yes), for a runner.  Returns when a
#   rule program can run here (first saying in one line why every program
#   will fail, if they will: the run goes on and they report it).  Else it
#   exits with that status; for 3 with one line on stderr, "TOOL: no point
#   ran: WHY (...)", and with 0 instead when ALLOW is yes
#   (STREAMCTS_ALLOW_SKIP=1).

preflight_probe() {
    preflight_why=
    [ "$2" = ninja ] || tools/deps.sh >&2 || return 1
    _pf_out=$(ninja build/probe 2>&1) || {
        printf '%s\n' "$_pf_out" >&2
        echo "$1: ninja could not build build/probe, the check before a run" >&2
        return 1
    }
    [ "$_pf_out" = "ninja: no work to do." ] || printf '%s\n' "$_pf_out" >&2
    _pf_rc=0
    preflight_why=$(build/probe "$1") || _pf_rc=$?
    case $_pf_rc in
    0 | 2 | 3) return $_pf_rc ;;
    1) return 1 ;;
    *) echo "$1: build/probe, the check before a run, ended with status $_pf_rc${preflight_why:+: $preflight_why}" >&2
       return 1 ;;
    esac
}

preflight() {
    _pf_status=0
    preflight_probe "$1" "${3:-yes}" || _pf_status=$?
    case $_pf_status in
    0) [ -z "$preflight_why" ] || echo "$1: $preflight_why" >&2
       return 0 ;;
    3) _pf_line="$1: no point ran: $preflight_why (found by build/probe, before any program was started)"
       if [ "$2" = yes ]; then
           echo "$_pf_line (STREAMCTS_ALLOW_SKIP=1: exit 0)" >&2
           exit 0
       fi
       echo "$_pf_line" >&2
       exit 3 ;;
    *) exit "$_pf_status" ;;
    esac
}
