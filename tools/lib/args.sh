# args.sh - sourced by the runners (tools/run-suite, settings-matrix, bench,
# soak, tap-summary; through prove-args.sh too): one wording for a bad
# argument, the one the rule programs use for theirs (runtime/suite/options.c), and
# the one range of -j.  Not a tool of its own.
#
# arg_bad TOOL MESSAGE
#   "TOOL: MESSAGE" on stderr, exit 2.
# arg_unknown TOOL ARG
#   "TOOL: unknown option 'ARG' (tools/TOOL --help lists them)", exit 2.
# arg_needs TOOL FLAG WHAT
#   "TOOL: FLAG needs a value: WHAT", exit 2.
# arg_number TOOL NAME VALUE MIN MAX
#   Sets arg_value to VALUE without leading zeros when it is a whole number
#   (digits only) in MIN..MAX, else
#   "TOOL: NAME: 'VALUE' is not a whole number in MIN..MAX", exit 2.
# arg_jobs TOOL FLAG VALUE
#   arg_number for how many programs run at a time: 1..$arg_jobs_max, the
#   range of every runner's -j (tools/certify's too).

arg_jobs_max=1024

arg_bad() {
    echo "$1: $2" >&2
    exit 2
}

arg_unknown() {
    arg_bad "$1" "unknown option '$2' (tools/$1 --help lists them)"
}

arg_needs() {
    arg_bad "$1" "$2 needs a value: $3"
}

arg_number() {
    case $3 in
    '' | *[!0-9]*) arg_bad "$1" "$2: '$3' is not a whole number in $4..$5" ;;
    esac
    arg_value=$(printf '%s' "$3" | sed 's/^0*//')
    arg_value=${arg_value:-0}
    # more digits than any bound here has: too large (and too large for test's arithmetic)
    [ ${#arg_value} -le 9 ] && [ "$arg_value" -ge "$4" ] && [ "$arg_value" -le "$5" ] ||
        arg_bad "$1" "$2: '$3' is not a whole number in $4..$5"
}

arg_jobs() {
    arg_number "$1" "$2" "$3" 1 "$arg_jobs_max"
}
