#!/bin/sh
# generated/ is committed; it must be exactly what gen/ makes of spec/.
cd "$(dirname "$0")/../.."
echo "TAP version 13"
echo "1..1"
if out=$(gen/run --check 2>&1); then
    echo "ok 1 - generated/ matches spec/ and gen/"
else
    echo "not ok 1 - generated/ is stale: run gen/run (or ninja) and commit generated/"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
