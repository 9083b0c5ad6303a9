# order.sh - sourced by tools/run-suite, tools/settings-matrix and tools/bench
# (from the repository root): how many programs a run starts at a time, and
# in which order.  Not a tool of its own.
#
# The families whose programs start processes of their own (process, its
# *.mps.t programs with an MPS server each, error's isolated fault children,
# ctx's created contexts) cost context creations, which the driver
# serializes across the GPU.  Run side by side they wait for one another:
# on an H100 at 26c4dcf, the 33 plain programs of the process family, which
# sort together and so ran together with its 17 MPS programs, took 165 s of
# program time, against 73 s at 028886f when the MPS programs took turns
# (docs/performance.md).  So those programs are spread evenly among the
# others, a few at a time, and the rest keep prove's name order.
#
# suite_jobs
#   Prints how many programs run at a time by default: the CPUs, at most 4.
#   On an H100 (7575578, tools/bench) the whole suite took 75.4 s at -j3,
#   77.3 s at -j4, 78.1 s at -j2, 82.0 s at -j6, 89.3 s at -j8 and 105.2 s at
#   -j12: a context creation costs more while more contexts live on the GPU
#   (96 ms with none, 141 ms with 8, 192 ms with 16), and every program at
#   once keeps one more.
#
# programs_spread
#   Program paths on stdin, one a line; out in that order.
#
# spread_args PROVE-ARG...
#   Sets prove_ordered to the arguments with each path (default tap/) turned
#   into its programs in programs_spread's order, for `eval "set --
#   $prove_ordered"`.  With -s, --shuffle, --reverse or --state the order is
#   prove's: the arguments are kept as given.  Call it after ninja built the
#   programs (the paths are checked by prove_args before).

suite_jobs() {
    n=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
    case $n in '' | *[!0-9]*) n=1 ;; esac
    if [ "$n" -gt 4 ]; then echo 4; elif [ "$n" -lt 1 ]; then echo 1; else echo "$n"; fi
}

programs_spread() {
    LC_ALL=C sort -u | awk '
        { if ($0 ~ /(^|\/)tap\/(process|error|ctx)\//) heavy[nh++] = $0; else light[nl++] = $0 }
        END {
            # the heavy programs, process first (its MPS servers are the slowest starts), then error, then ctx
            n = 0
            for (f = 1; f <= 3; f++) for (i = 0; i < nh; i++)
                if (heavy[i] ~ (f == 1 ? "tap/process/" : f == 2 ? "tap/error/" : "tap/ctx/")) ordered[n++] = heavy[i]
            # heavy program j goes where (j + 1/2) / nh of the light ones have started
            j = 0
            for (i = 0; i < nl; i++) {
                while (j < n && (j + 0.5) / n <= i / nl) print ordered[j++]
                print light[i]
            }
            while (j < n) print ordered[j++]
        }'
}

spread_args() {
    prove_ordered='' _keep=no _paths='' _want_value=no
    for _a; do
        case $_a in -s | --shuffle | --reverse | --state=*) _keep=yes ;; esac
    done
    for _a; do
        if [ $_want_value = yes ] || case $_a in -*) true ;; *) false ;; esac; then
            prove_ordered="$prove_ordered '$_a'"
            case $_a in -j | --jobs) _want_value=yes ;; *) _want_value=no ;; esac
        elif [ $_keep = yes ]; then
            prove_ordered="$prove_ordered '$_a'"
        else
            _paths="$_paths $_a"
        fi
    done
    [ $_keep = yes ] && return 0
    # shellcheck disable=SC2086  # the paths are words (checked by prove_args)
    if [ -n "$_paths" ]; then set -- $_paths; else set -- tap/; fi
    prove_ordered="$prove_ordered $(find "$@" -name '*.t' ! -type d 2>/dev/null | programs_spread |
        sed "s/.*/'&'/" | tr '\n' ' ')"
}
