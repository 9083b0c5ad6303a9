#!/bin/bash
# docs/map.md quotes real files and real output: every block after a
# "<!-- from: PATH -->" line must be lines of PATH, and in the block after
# "<!-- from: run -->", the lines after each "$ COMMAND" must be lines of what
# the command prints (mock programs, with the default 50 ms window: a shorter one lets a busy machine
# starve the mock's threads for all of it, which makes a broken example undecidable).
cd "$(dirname "$0")/../.." || exit 1
unset STREAMCTS_WINDOW_MS
echo "TAP version 13"
n=0
# blocks: FROM<TAB>LINE for each line of each quoted block
blocks=$(awk '/^<!-- from: .* -->$/ { from = $3; next }
              /^```/ && from != "" { if (inblock) { inblock = 0; from = "" } else inblock = 1; next }
              inblock { print from "\t" $0 }' docs/map.md)
for from in $(cut -f1 <<<"$blocks" | sort -u); do
    [ "$from" = run ] && continue
    n=$((n + 1))
    missing=$(awk -F'\t' -v f="$from" '$1 == f { print $2 }' <<<"$blocks" | while IFS= read -r line; do
        grep -qxF -- "$line" "$from" || printf '%s\n' "$line"; done)
    if [ -z "$missing" ]; then echo "ok $n - docs/map.md quotes $from as it is"
    else echo "not ok $n - docs/map.md quotes lines $from does not have:"; printf '%s\n' "$missing" | sed 's/^/# /'; fi
done
out= cmd=
check_run() {
    [ -n "$cmd" ] || return 0
    n=$((n + 1))
    if [ -z "$missing" ]; then echo "ok $n - docs/map.md shows what '$cmd' prints"
    else echo "not ok $n - '$cmd' does not print:"; printf '%s' "$missing" | sed 's/^/# /'
        echo "# it printed:"; printf '%s\n' "$out" | grep -vE '^# (env|machine|build|device|driver|host):' | sed 's/^/#   /'; fi
}
while IFS= read -r line; do
    if [ "${line#\$ }" != "$line" ]; then
        check_run
        cmd=${line#\$ } missing=
        out=$(eval "$cmd" 2>&1)
    elif ! grep -qxF -- "$line" <<<"$out"; then
        missing+="$line"$'\n'
    fi
done < <(awk -F'\t' '$1 == "run" { print $2 }' <<<"$blocks")
check_run
[ $n -gt 0 ] || echo "not ok 1 - docs/map.md quotes nothing"
echo "1..$((n > 0 ? n : 1))"
