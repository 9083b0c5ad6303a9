#!/bin/sh
# cluster-summary.sh DIR - the table of a `tools/cluster suite` run: one line
# per rank (host, GPU, result, prove's counts) from DIR/rank-N/, for every
# rank DIR/expected announces; a rank without a status left no result and
# fails.  Printed and written to DIR/summary.txt.  Not a tool of its own.
# Exit status: 0 every rank passed; 1 one failed or left no result; 3 none
# failed but one ran no point.
set -eu
dir=$1
expected=$(cat "$dir/expected" 2>/dev/null || ls -d "$dir"/rank-* 2>/dev/null | wc -l)
case $expected in '' | *[!0-9]* | 0) echo "cluster: $dir holds no rank's result" >&2; exit 1 ;; esac
tmp=$dir/summary.txt.tmp
r=0 passed=0 failed=0 none=0 missing=0
printf '%-5s %-24s %-4s %-13s %s\n' rank host gpu result tests >"$tmp"
while [ $r -lt "$expected" ]; do
    d=$dir/rank-$r
    host=? gpu=? tests=
    if [ -r "$d/where" ]; then
        host=$(sed -n 's/.*host=\([^ ]*\).*/\1/p' "$d/where")
        gpu=$(sed -n 's/.*gpu=\([^ ]*\).*/\1/p' "$d/where")
    fi
    [ ! -r "$d/suite.log" ] || tests=$(sed -n 's/^\(Files=[0-9]*, Tests=[0-9]*\).*/\1/p' "$d/suite.log" | tail -n 1)
    status=$(cat "$d/status" 2>/dev/null || echo none)
    case $status in
    0) result=PASS passed=$((passed + 1)) ;;
    3) result="NO POINT RAN" none=$((none + 1)) ;;
    none) result="NO RESULT" missing=$((missing + 1)) ;;
    *) result="FAIL (exit $status)" failed=$((failed + 1)) ;;
    esac
    printf '%-5s %-24s %-4s %-13s %s\n' "$r" "$host" "$gpu" "$result" "$tests" >>"$tmp"
    r=$((r + 1))
done
echo "cluster: $passed of $expected ranks passed; $failed failed, $none ran no point, $missing left no result" >>"$tmp"
mv "$tmp" "$dir/summary.txt"
cat "$dir/summary.txt"
[ $((failed + missing)) -eq 0 ] || exit 1
[ $none -eq 0 ] || exit 3
