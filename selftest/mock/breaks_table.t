#!/bin/bash
# The mock's table of breaks and quirks (selftest/mock/device/breaks.def): the
# code uses every row, a file of selftest/mock/ (or soak.t) exercises every row, a name the
# table lacks does not compile, and a value of STREAMCTS_MOCK_BREAK or
# STREAMCTS_MOCK_QUIRK the table lacks is refused before anything is written.
cd "$(dirname "$0")/../.." || exit 1
dev=selftest/mock/device
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

rows=$(sed -n 's/^\(BREAK\|QUIRK\)(\([a-z0-9_]*\),.*/\1 \2/p' "$dev/breaks.def")
if [ "$(wc -l <<<"$rows")" -ge 70 ]; then ok "breaks.def has $(wc -l <<<"$rows") rows"
else nok "breaks.def has only $(wc -l <<<"$rows") rows" "$rows"; fi

# used: breaks(name) or quirks(name) in the mock's code; exercised: a file of selftest/mock/ (or the soak's test,
# which runs the mock) sets the variable to it, lists it in a table of cases (the first word of a line) or loops
# over it.  Each is one pass over the files, the rows looked up in bash.
unused= unexercised=
tests=$(ls selftest/mock/*.t selftest/workloads/soak/soak.t | grep -v breaks_table.t)
declare -A used exercised
for w in $(grep -ohE '\b(breaks|quirks)\([a-z0-9_]+\)' "$dev"/*.c); do used[$w]=1; done
for w in $(perl -ne 'print "$1\n" while /MOCK_(?:BREAK|QUIRK)=([a-z0-9_]+)(?=[ ";]|$)/g; print "$1\n" if /^([a-z0-9_]+)(?=[ ";]|$)/;
        if (/for [a-z]+ in( .*)/) { my $r = $1; print "$1\n" while $r =~ /(?<=[ "])([a-z0-9_]+)(?=[ ";]|$)/g }' $tests); do
    exercised[$w]=1
done
while read -r kind name; do
    if [ "$kind" = BREAK ]; then call=breaks; else call=quirks; fi
    [ -n "${used[$call($name)]:-}" ] || unused="$unused $name"
    [ -n "${exercised[$name]:-}" ] || unexercised="$unexercised $name"
done <<<"$rows"
if [ -z "$unused" ]; then ok "the mock's code uses every row of breaks.def"
else nok "rows of breaks.def the mock's code never asks about:$unused"; fi
if [ -z "$unexercised" ]; then ok "a file of selftest/mock/ (or soak.t) exercises every row of breaks.def"
else nok "rows of breaks.def no file of selftest/mock/ (nor soak.t) exercises:$unexercised"; fi

# a name the table lacks is a compile error, not a break that is silently never on
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf '#include "mock.h"\nint f(void) { return breaks(no_such_break); }\n' >"$tmp/bad.c"
printf '#include "mock.h"\nint f(void) { return breaks(wait) + quirks(slow_sync); }\n' >"$tmp/good.c"
# the runtime's include folders, as build.ninja gives them to every compile
inc=$(sed -n 's/^rt_include = //p' build.ninja)
cc="gcc -std=c11 -Wall -Werror $inc -I$dev -I/usr/local/cuda/include -c"
if $cc "$tmp/good.c" -o "$tmp/good.o" 2>"$tmp/err" && ! $cc "$tmp/bad.c" -o "$tmp/bad.o" 2>"$tmp/err" &&
    grep -q "BREAK_no_such_break" "$tmp/err"; then
    ok "breaks(name) compiles for a row of breaks.def and not for another name"
else nok "breaks(no_such_break) compiled, or breaks(wait) did not" "$(cat "$tmp/err")"; fi

# a value the table lacks: exit 2 naming the variable, the value and the names, nothing on stdout
prog=build/selftest/mock/event.wait.orders_later_work.prog
for var in STREAMCTS_MOCK_BREAK STREAMCTS_MOCK_QUIRK; do
    first=$(sed -n "s/^$([ $var = STREAMCTS_MOCK_BREAK ] && echo BREAK || echo QUIRK)(\([a-z0-9_]*\),.*/\1/p" \
        "$dev/breaks.def" | head -1)
    out=$(env "$var=no_such_thing" "$prog" 2>"$tmp/err"); rc=$?
    if [ $rc -eq 2 ] && [ -z "$out" ] &&
        grep -q "$var: 'no_such_thing' is not one of $first, .*(selftest/mock/device/breaks.def)\$" "$tmp/err"; then
        ok "$var=no_such_thing: exit 2 with the variable and the list of its names, nothing written"
    else nok "$var=no_such_thing: exit $rc" "$out$(cat "$tmp/err")"; fi
done
# set but empty: nothing broken (first_look.t loops over "" and a quirk)
out=$(STREAMCTS_MOCK_BREAK= STREAMCTS_MOCK_QUIRK= "$prog" --list 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -n "$out" ]; then ok "empty STREAMCTS_MOCK_BREAK and STREAMCTS_MOCK_QUIRK break nothing"
else nok "empty values were refused (exit $rc)" "$out"; fi
# ... and the device's name says so: no "broken: " with nothing after it
out=$(STREAMCTS_MOCK_BREAK= "$prog" --case '*.kernel.kernel' --api driver 2>&1)
if grep -q '^# device: streamcts mock (host threads), MOCK,' <<<"$out"; then ok "an empty STREAMCTS_MOCK_BREAK names no break in the device's name"
else nok "an empty STREAMCTS_MOCK_BREAK named a break in the device's name" "$(grep '^# device' <<<"$out")"; fi

echo "1..$n"
