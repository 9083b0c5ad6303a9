#!/bin/sh
# Every example rule in README.md and docs/design.md is a tested one: each is
# taken from the text as it stands, generated with gen/run and compiled.
#   - README's "Adding a rule" row, pasted into a copy of spec/event.rules;
#   - docs/design.md's example table (section 1, "Example"), as its family's file;
#   - docs/design.md's example of the streams column, in a row of its own.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
echo "TAP version 13"
echo "1..3"

# gen DIR RULE_ID: generate DIR/spec into DIR/generated and compile the rule's
# program; says what went wrong on stdout, as TAP comments.
gen() {
    out=$(gen/run --spec-dir "$1/spec" --out-dir "$1/generated" 2>&1) ||
        { printf '%s\n' "$out" | head -20 | sed 's/^/# /'; return 1; }
    src=$1/generated/$(printf '%s' "$2" | tr . /).c
    [ -f "$src" ] || { echo "# no $src"; return 1; }
    out=$(gcc -std=c11 -Wall -Wextra -Werror -Iruntime/program -c "$src" -o "$1/program.o" 2>&1) ||
        { printf '%s\n' "$out" | head -20 | sed 's/^/# /'; return 1; }
}

# 1. The first indented block of README's "Adding a rule", into spec/event.rules.
row=$(awk '/^## / { in_section = ($0 == "## Adding a rule") ; next }
           in_section && /^    / { print substr($0, 5); block = 1; next }
           in_section && block { exit }' README.md)
id=$(printf '%s\n' "$row" | sed -n '1{s/[ |].*//;p;}')
mkdir -p "$tmp/readme/spec" && cp spec/event.rules "$tmp/readme/spec/" &&
    printf '\n%s\n' "$row" >>"$tmp/readme/spec/event.rules"
if [ -n "$id" ] && gen "$tmp/readme" "$id" && grep -q "	$id	" "$tmp/readme/generated/catalog.tsv"; then
    echo "ok 1 - README's example row ($id), pasted into spec/event.rules, generates and compiles"
else echo "not ok 1 - README's example row '$id' does not build when pasted into spec/event.rules"; fi

# 2. The fenced block under "### Example" in docs/design.md, a whole table.
table=$(awk '/^### / { in_section = ($0 == "### Example"); next }
             in_section && /^```/ { if (fence) exit; fence = 1; next }
             in_section && fence { print }' docs/design.md)
id=$(printf '%s\n' "$table" | awk '!/^#/ && !/^id / && /^[a-z]/ { sub(/[ |].*/, ""); print; exit }')
family=${id%%.*}
mkdir -p "$tmp/design/spec" && printf '%s\n' "$table" >"$tmp/design/spec/$family.rules"
if [ -n "$id" ] && gen "$tmp/design" "$id"; then
    echo "ok 2 - docs/design.md's example table ($id) generates and compiles"
else echo "not ok 2 - docs/design.md's example table ('$id') does not build"; fi

# 3. docs/design.md's example of the streams column, each stream used.
streams=$(sed -n 's/^Example: `\(.*\)`\.$/\1/p' docs/design.md)
mkdir -p "$tmp/streams/spec"
{
    echo "id | level | streams | program | expect | control | source | rule"
    echo "example.streams | MUST | $streams"
    echo "  | gate on hi; A: kernel on hi; kernel on lo; stream_sync many; kernel on d1; B: kernel on hi"
    echo "  | B after A | B on lo | docs/design.md | The streams column's example."
} >"$tmp/streams/spec/example.rules"
c=$tmp/streams/generated/example/streams.c
if [ -n "$streams" ] && gen "$tmp/streams" example.streams &&
    grep -q 'sc_stream_create_prio(p, "hi", SC_NONBLOCKING, SC_PRIO_GREATEST)' "$c" &&
    grep -q 'sc_stream_create(p, "lo", SC_BLOCKING)' "$c" &&
    grep -q 'sc_stream_create_ex(p, "many", SC_NONBLOCKING, SC_PRIO_NONE, 0, 64)' "$c" &&
    grep -q 'sc_stream_create_ex(p, "d1", SC_NONBLOCKING, SC_PRIO_NONE, 1, 1)' "$c"; then
    echo "ok 3 - docs/design.md's streams example ($streams) generates and compiles"
else echo "not ok 3 - docs/design.md's streams example ('$streams') does not build as it says"; fi
