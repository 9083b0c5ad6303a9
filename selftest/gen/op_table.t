#!/bin/sh
# docs/design.md's table of op kinds is what gen/op-table renders from the op
# table (runtime/ops.def, as gen/streamcts/vocab.py spells it): the committed
# docs agree with it, and a stale table or a kind the docs say nothing of is
# caught.  The edits are made to copies, in a temporary directory.
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root" || exit 1
echo "TAP version 13"
echo "1..4"

# 1. The committed docs.
if out=$(gen/op-table --check 2>&1); then
    echo "ok 1 - docs/design.md's op table is what gen/op-table renders"
else
    echo "not ok 1 - docs/design.md's op table disagrees with the op table: run gen/op-table"
    printf '%s\n' "$out" | sed 's/^/# /'
fi

# copy: a copy of what gen/op-table reads, in $tmp/$1
copy() {
    mkdir -p "$tmp/$1/runtime/program" "$tmp/$1/docs" &&
    cp -r gen "$tmp/$1/" && cp runtime/ops.def "$tmp/$1/runtime/" && cp docs/design.md "$tmp/$1/docs/" &&
    cp runtime/program/levels.def "$tmp/$1/runtime/program/" # the level table the generator reads too
}

# 2. A row of the table edited by hand: --check names the table's line, exit 1;
#    a run writes the table again, as committed.
copy stale
line=$(grep -n '^<!-- op-table:begin' docs/design.md | cut -d: -f1)
sed 's/^| `thread_exit` | | no | the issuing host thread ends/| `thread_exit` | | no | the thread ends/' \
    docs/design.md >"$tmp/stale/docs/design.md"
out=$("$tmp/stale/gen/op-table" --check 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$out" = "docs/design.md:$line: the op table is stale: run gen/op-table" ] &&
    "$tmp/stale/gen/op-table" 2>/dev/null && cmp -s docs/design.md "$tmp/stale/docs/design.md"; then
    echo "ok 2 - a row edited by hand is stale (docs/design.md:$line), and gen/op-table writes it again"
else
    echo "not ok 2 - a row edited by hand: exit $rc, want 1, or the table is not written again"
    printf '%s\n' "$out" | sed 's/^/# /'
fi

# 3. A kind the docs say nothing of (its Row gone): exit 2, naming gen/op-table's line.
copy lacking
awk '/^    Row\("thread_exit",/ { skip = 3 } skip { skip--; next } { print }' gen/op-table >"$tmp/lacking/gen/op-table"
chmod +x "$tmp/lacking/gen/op-table"
out=$("$tmp/lacking/gen/op-table" --check 2>&1); rc=$?
case $rc:$out in
2:gen/op-table:[0-9]*": ROWS says nothing of thread_exit") echo "ok 3 - a kind without a Row stops gen/op-table: $out" ;;
*) echo "not ok 3 - a kind without a Row: exit $rc, want 2 naming thread_exit"; printf '%s\n' "$out" | sed 's/^/# /' ;;
esac

# 4. The op table's facts reach the docs: a kind whose row in ops.def is stream work
#    (role WORK) is issued to a stream, the table's 'stream' column.
copy facts
sed 's/^\(SC_OP(THREAD_EXIT, *name("thread_exit"), *builder(sc_thread_exit), *role(\)HOST)/\1WORK)/' \
    runtime/ops.def >"$tmp/facts/runtime/ops.def"
"$tmp/facts/gen/op-table" 2>/dev/null
if grep -q '^| `thread_exit` | | yes |' "$tmp/facts/docs/design.md"; then
    echo "ok 4 - a fact changed in runtime/ops.def changes the docs' table"
else
    echo "not ok 4 - thread_exit made stream work in runtime/ops.def, but its docs row says:"
    grep '^| `thread_exit`' "$tmp/facts/docs/design.md" | sed 's/^/# /'
fi
