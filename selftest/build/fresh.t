#!/bin/sh
# After the build, generated/ is exactly what gen/ makes of spec/ (ninja
# regenerated it if needed).  A commit that forgot to regenerate is caught
# earlier, before anything regenerates: .ci/run runs gen/run --check first
# (selftest/build/ci.t).
cd "$(dirname "$0")/../.."
echo "TAP version 13"
echo "1..1"
if out=$(gen/run --check 2>&1); then
    echo "ok 1 - generated/ matches spec/ and gen/"
else
    echo "not ok 1 - generated/ is stale: run gen/run (or ninja) and commit generated/"
    printf '%s\n' "$out" | sed 's/^/# /'
fi
