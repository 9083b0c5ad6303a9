#!/bin/bash
# Every tool under tools/: -h and --help print the usage on stdout and exit 0;
# an unknown option is named in one line on stderr, exit 2.  Neither builds or
# runs anything: ninja and prove are stand-ins here that note being called.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
for t in ninja prove; do printf '#!/bin/sh\necho %s >>"%s"\n' "$t" "$tmp/ran" >"$tmp/bin/$t"; done
chmod +x "$tmp/bin"/*
tools=$(find tools -maxdepth 1 -type f -perm -u+x | LC_ALL=C sort)
echo "TAP version 13"
echo "1..$(($(grep -c . <<<"$tools") * 3))"
n=0
for tool in $tools; do
    for flag in -h --help; do
        n=$((n + 1))
        out=$(PATH="$tmp/bin:$PATH" timeout 20 "$tool" $flag 2>"$tmp/err"); rc=$?
        if [ $rc -eq 0 ] && [ "${out%%:*}" = usage ] && [ ! -s "$tmp/err" ] && [ ! -s "$tmp/ran" ]; then
            echo "ok $n - $tool $flag: the usage on stdout, exit 0"
        else
            echo "not ok $n - $tool $flag: exit $rc$([ -s "$tmp/ran" ] && echo ", and it ran $(tr '\n' ' ' <"$tmp/ran")")"
            { printf '%s\n' "$out" | head -3; head -3 "$tmp/err"; } | sed 's/^/# /'
        fi
        rm -f "$tmp/ran"
    done
    n=$((n + 1))
    out=$(PATH="$tmp/bin:$PATH" timeout 20 "$tool" --no-such-option 2>"$tmp/err"); rc=$?
    if [ $rc -eq 2 ] && [ -z "$out" ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q -- '--no-such-option' "$tmp/err" &&
        [ ! -s "$tmp/ran" ]; then
        echo "ok $n - $tool --no-such-option: named in one line, exit 2"
    else
        echo "not ok $n - $tool --no-such-option: exit $rc$([ -s "$tmp/ran" ] && echo ", and it ran $(tr '\n' ' ' <"$tmp/ran")")"
        { printf '%s\n' "$out" | head -3; head -3 "$tmp/err"; } | sed 's/^/# /'
    fi
    rm -f "$tmp/ran"
done
