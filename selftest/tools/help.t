#!/bin/bash
# Every tool under tools/: -h and --help print the usage on stdout and exit 0;
# an unknown option is named in one line on stderr, exit 2.  Neither builds or
# runs anything: ninja and prove are stand-ins here that note being called.
# The runners word an unknown option and a bad -j alike (tools/lib/args.sh),
# as the rule programs word theirs (runtime/suite/options.c), with one -j range.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/bin"
for t in ninja prove; do printf '#!/bin/sh\necho %s >>"%s"\n' "$t" "$tmp/ran" >"$tmp/bin/$t"; done
chmod +x "$tmp/bin"/*
tools=$(find tools -maxdepth 1 -type f -perm -u+x | LC_ALL=C sort)
echo "TAP version 13"
echo "1..$(($(grep -c . <<<"$tools") * 3 + 2))"
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

runners="run-suite settings-matrix connections-matrix bench soak tap-summary"
bad=
for t in $runners; do
    err=$(PATH="$tmp/bin:$PATH" timeout 20 "tools/$t" --no-such-option 2>&1 >/dev/null)
    [ "$err" = "$t: unknown option '--no-such-option' (tools/$t --help lists them)" ] || bad="$bad $t ($err)"
done
prog=tap/fifo/null_stream.t
err=$(timeout 20 "$prog" --no-such-option 2>&1 >/dev/null)
[ "$err" = "$prog: unknown option '--no-such-option' ($prog --help lists them)" ] || bad="$bad $prog ($err)"
n=$((n + 1))
if [ -z "$bad" ]; then echo "ok $n - $runners and a rule program word an unknown option alike"
else echo "not ok $n - an unknown option worded otherwise by:$bad"; fi
bad=
for t in run-suite settings-matrix connections-matrix bench; do
    for j in "-j 0" "-j 1025" "--jobs=x"; do
        # shellcheck disable=SC2086 # the arguments are words
        err=$(PATH="$tmp/bin:$PATH" timeout 20 "tools/$t" $j 2>&1 >/dev/null); rc=$?
        v=${j#-j }; v=${v#--jobs=}; f=${j%% *}; f=${f%%=*}
        [ $rc -eq 2 ] && [ "$err" = "$t: $f: '$v' is not a whole number in 1..1024" ] || bad="$bad $t $j ($err)"
    done
done
[ ! -s "$tmp/ran" ] || bad="$bad (and it ran $(tr '\n' ' ' <"$tmp/ran"))"
n=$((n + 1))
if [ -z "$bad" ]; then echo "ok $n - run-suite, settings-matrix, connections-matrix and bench take -j in 1..1024, worded alike"
else echo "not ok $n - -j out of range worded otherwise by:$bad"; fi
