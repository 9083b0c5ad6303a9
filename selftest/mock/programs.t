#!/bin/bash
# The list of the mock's rule programs (selftest/mock/programs.list): the
# committed selftest/mock/programs.ninja is what render-programs makes of it,
# the build made every program it lists, and a bad line is refused with its
# file:line, exit 2, the ninja file left as it was.
cd "$(dirname "$0")/../.." || exit 1
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
render=selftest/mock/render-programs list=selftest/mock/programs.list

if $render "$list" "$tmp/programs.ninja" 2>"$tmp/err" && cmp -s "$tmp/programs.ninja" selftest/mock/programs.ninja; then
    ok "selftest/mock/programs.ninja is what render-programs makes of programs.list"
else nok "selftest/mock/programs.ninja is stale: run ninja (or $render $list selftest/mock/programs.ninja)" \
    "$(cat "$tmp/err"; diff "$tmp/programs.ninja" selftest/mock/programs.ninja | head -10)"; fi

listed=$(awk '!/^[ \t]*(#|$)/ { if ($2 == "pair") print "build/selftest/mock/pair/" $1 ".mock\nbuild/selftest/mock/pair/" $1 ".mock-ptds"
                                   else print "build/selftest/mock/" ($2 == "mps" ? "mps/" : "") $1 ".prog" }' "$list")
missing=$(for p in $listed; do [ -x "$p" ] || echo "$p"; done)
if [ -n "$listed" ] && [ -z "$missing" ]; then ok "the build made the $(wc -l <<<"$listed") programs programs.list names"
else nok "programs programs.list names that the build did not make" "$missing"; fi

# bad line, what the message says after the file:line
while IFS='|' read -r line msg; do
    printf '# a comment\n\nevent.wait.orders_later_work legacy host\n%s\n' "$line" >"$tmp/bad.list"
    echo "left alone" >"$tmp/out.ninja"
    err=$($render "$tmp/bad.list" "$tmp/out.ninja" 2>&1); rc=$?
    if [ $rc -eq 2 ] && [ "$err" = "$tmp/bad.list:4: $msg" ] && [ "$(cat "$tmp/out.ninja")" = "left alone" ] &&
        [ "$(ls "$tmp" | grep -c '^out\.ninja')" = 1 ]; then
        ok "'$line' is refused at its file:line, the ninja file left as it was"
    else nok "'$line' was not refused as it should be (exit $rc)" "$err"; fi
done <<'EOF_CASES'
event.query.never_recorded_is_success|want <rule> <library> [host], not "event.query.never_recorded_is_success"
event.query.never_recorded_is_success legacy host extra|want <rule> <library> [host], not "event.query.never_recorded_is_success legacy host extra"
Event.Query legacy|"Event.Query" is not a rule id (lower-case words joined by dots)
event.query.never_recorded_is_success gpu|"gpu" is not one of legacy, ptds, mps, pair
event.query.never_recorded_is_success pair host|host links legacy programs only, not pair
event.query.never_recorded_is_success legacy hosted|"hosted" is not host (the only third column)
event.query.never_recorded_is_success ptds host|host links legacy programs only, not ptds
event.wait.orders_later_work ptds|event.wait.orders_later_work is listed twice (first at line 3)
EOF_CASES

echo "1..$n"
