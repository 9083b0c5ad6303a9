#!/bin/bash
# tools/coverage: the committed inventory passes in the default mode (every
# rule of generated/catalog.tsv cited by an entry); fixtures under
# selftest/tools/coverage/: a malformed inventory is named file:line, exit 2; a
# catalog rule that no entry cites fails, exit 1; --strict fails on a missing
# entry.
cd "$(dirname "$0")/../.." || exit 1
dir=selftest/tools/coverage
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "TAP version 13"
echo "1..6"

tools/coverage >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && [ ! -s "$tmp/err" ] && grep -q '^total ' "$tmp/out" &&
    grep -q '^rules: [0-9]* in the catalog, [0-9]* cited by an entry, 0 by none$' "$tmp/out"; then
    echo "ok 1 - the committed inventory: well formed, every rule of the catalog cited ($(grep '^total ' "$tmp/out" | tr -s ' '))"
else
    echo "not ok 1 - tools/coverage on the committed inventory: exit $rc"
    { tail -3 "$tmp/out"; head -5 "$tmp/err"; } | sed 's/^/# /'
fi

tools/coverage --sources $dir/good --catalog $dir/catalog.tsv >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && [ "$(grep '^page ' "$tmp/out" | head -1 | tr -s ' ')" = "page section sentences tested untestable missing" ] &&
    [ "$(grep '^page  *fn ' "$tmp/out" | tr -s ' ')" = "page fn 3 1 1 1" ] &&
    [ "$(grep '^total ' "$tmp/out" | tr -s ' ')" = "total 3 1 1 1" ]; then
    echo "ok 2 - a good fixture: per section and per page, sentences / tested / untestable / missing"
else
    echo "not ok 2 - the good fixture: exit $rc"; sed 's/^/# /' "$tmp/out" "$tmp/err" | head -12
fi

tools/coverage --strict --sources $dir/good --catalog $dir/catalog.tsv >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && grep -q -- '--strict: 1 entries have no rule yet' "$tmp/err"; then
    echo "ok 3 - --strict fails while an entry is missing"
else echo "not ok 3 - --strict on the good fixture: exit $rc"; sed 's/^/# /' "$tmp/err" | head -3; fi

tools/coverage --sources $dir/good --catalog $dir/catalog-extra.tsv >/dev/null 2>"$tmp/err"; rc=$?
if [ $rc -eq 1 ] && [ "$(cat "$tmp/err")" = "coverage: rule rule.b is cited by no entry" ]; then
    echo "ok 4 - a rule of the catalog that no entry cites is named, exit 1"
else echo "not ok 4 - a rule with no entry: exit $rc"; sed 's/^/# /' "$tmp/err" | head -3; fi

tools/coverage --sources $dir/bad --catalog $dir/catalog.tsv >"$tmp/out" 2>"$tmp/err"; rc=$?
want="$dir/bad/page.tsv:5: a row has 4 tab-separated fields (id, section, quote, status); this one has 3
$dir/bad/page.tsv:6: entry fix.bad.fn.1 again (first at $dir/bad/page.tsv:4)
$dir/bad/page.tsv:7: fix.bad.fn.4: rule no.such.rule is not in $dir/catalog.tsv
$dir/bad/page.tsv:8: fix.bad.fn.5: status \`covered\`: want \`tested: RULE-ID, ...\`, \`untestable: REASON\` or \`missing\`"
if [ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && [ "$(cat "$tmp/err")" = "$want" ]; then
    echo "ok 5 - a malformed inventory: every bad row as file:line: message, nothing printed, exit 2"
else
    echo "not ok 5 - the bad fixture: exit $rc"
    diff <(cat "$tmp/err") <(printf '%s\n' "$want") | sed 's/^/# /' | head -12
fi

tools/coverage --sources $dir/nonexistent >/dev/null 2>"$tmp/err"; rc1=$?
tools/coverage --catalog >/dev/null 2>>"$tmp/err"; rc2=$?
if [ $rc1 -eq 2 ] && [ $rc2 -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ]; then
    echo "ok 6 - a missing directory or a value-less option: one line, exit 2"
else echo "not ok 6 - exits $rc1 and $rc2"; sed 's/^/# /' "$tmp/err"; fi
