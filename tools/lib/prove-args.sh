# prove-args.sh - sourced by tools/run-suite, tools/settings-matrix and
# tools/self-test (from the repository root): checks the arguments they hand
# to prove before anything is built or run.  Not a tool of its own.
#
# prove_args TOOL OUTPUT ARG...
#   Exits 2 with one line naming the first ARG that is neither one of the
#   prove options below nor a path that exists or that ninja builds (a
#   program under tap/ on a clean clone).  -h or --help anywhere prints the
#   caller's usage (its function `usage`) and exits 0.  Sets prove_paths to
#   yes when a path was given.  OUTPUT is yes when prove's output options
#   (-v, -q, -Q) may be given too: a tool that reads prove's verbose log
#   itself says no.
#
# allow_skip TOOL
#   Checks STREAMCTS_ALLOW_SKIP (unset, empty, 0 or 1; exit 2 otherwise) and
#   succeeds when it is 1.
#
# A bad argument is worded as every runner words it (tools/lib/args.sh).

. tools/lib/args.sh

prove_args_fail() {
    arg_bad "$@"
}

prove_args_jobs() {  # TOOL FLAG VALUE
    arg_jobs "$1" "$2" "$3"
    prove_jobs=$arg_value
}

# does ninja build PATH, or something under it?  (build.ninja and the
# generated/rules.ninja it includes name every program and self-test)
prove_args_built() {
    awk -v p="${1%/}" '
        $1 == "build" { for (i = 2; i <= NF; i++) { t = $i; sub(/:$/, "", t)
            if (t == p || index(t, p "/") == 1) { found = 1; exit }
            if ($i ~ /:$/) break } }
        END { exit !found }' build.ninja generated/rules.ninja 2>/dev/null
}

prove_args() {
    tool=$1 output=$2
    shift 2
    prove_paths=no prove_jobs=
    for a; do
        case $a in -h | --help) usage; exit 0 ;; esac
    done
    while [ $# -gt 0 ]; do
        case $1 in
        -v | --verbose | -q | --quiet | -Q | --QUIET)
            [ "$output" = yes ] || prove_args_fail "$tool" "$1: $tool reads prove's verbose log itself, so it takes no -v, -q or -Q" ;;
        -s | --shuffle | --reverse | --timer | -f | --failures | -o | --comments | -c | --color | --nocolor) ;;
        --state=?*) ;;
        -j | --jobs)
            [ $# -ge 2 ] || arg_needs "$tool" "$1" "a whole number in 1..$arg_jobs_max"
            prove_args_jobs "$tool" "$1" "$2"
            shift ;;
        -j*) prove_args_jobs "$tool" -j "${1#-j}" ;;
        --jobs=*) prove_args_jobs "$tool" --jobs "${1#--jobs=}" ;;
        -*) arg_unknown "$tool" "$1" ;;
        *)
            [ -e "$1" ] || prove_args_built "$1" ||
                prove_args_fail "$tool" "$1: no such file or directory, and ninja builds nothing there (paths are relative to the repository root, e.g. tap/event)"
            # shellcheck disable=SC2034  # the caller reads it
            prove_paths=yes ;;
        esac
        shift
    done
}

allow_skip() {
    case ${STREAMCTS_ALLOW_SKIP:-} in
    '' | 0) return 1 ;;
    1) return 0 ;;
    *) prove_args_fail "$1" "STREAMCTS_ALLOW_SKIP='$STREAMCTS_ALLOW_SKIP': must be 1 (a run that tested nothing exits 0) or 0 or unset" ;;
    esac
}
