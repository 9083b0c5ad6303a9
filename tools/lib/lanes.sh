# lanes.sh - sourced by tools/run-suite (from the repository root): prove in
# two lanes.  Not a tool of its own.
#
# prove_lanes DIR JOBS [PROVE-OPTION | PATH]...
#   Runs prove with the options over every program (*.t) under the paths,
#   in prove -r's order.  The *.mps.t programs take turns on one MPS server
#   (runtime/mps.h): in prove's slots they would wait there and hold up the
#   rest, so when JOBS > 1 and there are others they run in a lane of their
#   own, one at a time, beside the rest, and that lane's report follows the
#   rest's.  DIR is an empty directory for the lists (DIR/lanes).  Returns
#   non-zero when either prove did.

prove_lanes() {
    l=$1/lanes jobs=$2
    shift 2
    mkdir "$l" && : >"$l/found" || return 1
    value=no
    for a; do  # "$@" keeps prove's options only
        shift
        if [ $value = yes ]; then value=no; set -- "$@" "$a"; continue; fi
        case $a in
        -j | --jobs) value=yes; set -- "$@" "$a" ;;
        -*) set -- "$@" "$a" ;;
        *) find "$a" -name '*.t' \( -type f -o -type l \) >>"$l/found" ;;
        esac
    done
    LC_ALL=C sort -u "$l/found" >"$l/all"
    grep '\.mps\.t$' "$l/all" >"$l/mps" || true
    grep -v '\.mps\.t$' "$l/all" >"$l/rest" || true
    if [ "$jobs" -le 1 ] || [ ! -s "$l/mps" ] || [ ! -s "$l/rest" ]; then
        prove "$@" - <"$l/all"
        return
    fi
    prove "$@" -j 1 - <"$l/mps" >"$l/mps.log" 2>&1 &
    lane_pid=$! rest=0 lane=0
    prove "$@" - <"$l/rest" || rest=$?
    wait $lane_pid || lane=$?
    echo "-- the MPS programs' lane ($(grep -c . "$l/mps") programs, one at a time, beside the rest):"
    cat "$l/mps.log"
    [ $rest -eq 0 ] && [ $lane -eq 0 ]
}
