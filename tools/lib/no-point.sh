# no-point.sh - sourced by tools/run-suite and tools/bench (from the
# repository root): did any point of a run run, and if none did, why.  Not a
# tool of its own.
#
# no_point_why DIR
#   DIR holds one file per program, its TAP as it printed it.  A point ran
#   when it is ok or not ok without # SKIP.  Prints nothing when one did;
#   else one line, "no point ran: " and the programs' reasons: those that
#   skipped whole (`1..0 # SKIP why`) per reason, those that skipped every
#   point (with the first point's reason), and those that printed no plan at
#   all (a program that did not start).  A reason is never empty.
no_point_why() {
    find "$1" -type f | LC_ALL=C sort | awk '
function programs_(k) { return k == programs ? (k == 1 ? "the program" : "all " k " programs") : k " of " programs " programs" }
{
    file = $0; programs++; whole = 0; planned = 0
    while ((getline line < file) > 0) {
        if (line ~ /^1\.\.0([^0-9]|$)/) {
            r = line; sub(/^1\.\.0[ \t]*(#[ \t]*[Ss][Kk][Ii][Pp][A-Za-z]*:?[ \t]*)?/, "", r)
            if (r == "") r = "no reason given"
            if (!(r in skipped)) order[++n] = r
            skipped[r]++; whole = 1
        } else if (line ~ /^1\.\.[0-9]+/) planned = 1
        else if (line ~ /^(not )?ok([ \t]|$)/) {
            if (line !~ /^ok.*#[ \t]*[Ss][Kk][Ii][Pp]/) { ran = 1; exit }
            if (point_reason == "") {
                point_reason = line; sub(/^.*#[ \t]*[Ss][Kk][Ii][Pp][A-Za-z]*:?[ \t]*/, "", point_reason)
                if (point_reason == "") point_reason = "no reason given"
            }
        }
    }
    close(file)
    if (!whole && planned) point_skippers++
    else if (!whole) unplanned++
}
END {
    if (ran) exit
    if (programs == 0) { print "no point ran: no program ran"; exit }
    s = ""
    for (i = 1; i <= n; i++)
        s = s (i > 1 ? "; " : "") programs_(skipped[order[i]]) " skipped: " order[i]
    if (point_skippers)
        s = s (s != "" ? "; " : "") programs_(point_skippers) " skipped every point (the first: " point_reason ")"
    if (unplanned)
        s = s (s != "" ? "; " : "") programs_(unplanned) " printed no plan (they did not start: see their output)"
    print "no point ran: " s
}'
}
