#!/bin/bash
# The driver loader (runtime/backend/cu_loader.c) against stand-ins for libcuda.so.1
# (fake-libcuda.sh, built by ninja under build/selftest/loader/), which are what
# the suite certifies: only a missing library or cuInit answering no device
# (or the stub library) may skip; a library without an entry point every
# program needs fails every program, naming the entry points by their ABI
# names; one without an optional entry point runs, and a call to it fails,
# naming it (driver_calls.c); one without green contexts skips the rules that
# need them (a capability, runtime/suite/support.c).  The header says which library
# answered the entry points (cu_loader.h, sc_driver_provenance): the stand-in
# alone, or with a preloaded layer (layer.c, built here) that hooks dlsym and
# cuGetProcAddress as HAMi-core does, or a plain one that is never reached.
cd "$(dirname "$0")/../.." || exit 1
dir=build/selftest/loader
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
echo "TAP version 13"

legacy=tap/stream/sync/waits_for_stream_work.t
ptds=tap/stream/sync/waits_for_stream_work.ptds.t
green=tap/ctx/green/primary_sync_waits_for_green_work.t  # a rule that needs green contexts

# stand-in, cuInit's answer, program, exit status, what the output must hold
while read -r lib init prog want text; do
    out=$(FAKE_CUINIT=$init LD_LIBRARY_PATH=$dir/$lib timeout 60 "${!prog}" 2>&1); rc=$?
    if [ $rc -eq "$want" ] && [ "$(sed -n 1p <<<"$out")" = "TAP version 13" ] && grep -qF -- "$text" <<<"$out"; then
        ok "$lib, cuInit $init, $prog: exit $rc, '$text'"
    else nok "$lib, cuInit $init, $prog: exit $rc, not $want with '$text'" "$out"; fi
done <<'EOF'
complete 100 legacy 0 1..0 # SKIP no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)
complete 100 ptds 0 1..0 # SKIP no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)
complete 34 legacy 0 1..0 # SKIP no usable CUDA driver (cuInit: CUDA_ERROR_STUB_LIBRARY)
lacks_optional 100 ptds 0 1..0 # SKIP no CUDA device (cuInit: CUDA_ERROR_NO_DEVICE)
lacks_required 100 legacy 1 lacks cuModuleLoadData, cuMemcpyHtoDAsync_v2: entry points every program needs"
lacks_required 100 ptds 1 lacks cuModuleLoadData, cuMemcpyHtoDAsync_v2_ptsz: entry points every program needs"
lacks_required 0 legacy 1 not ok 1 - driver entry points
lacks_green 0 green 0 1..0 # SKIP no green contexts: libcuda.so.1 lacks cuGreenCtxCreate (green contexts: CUDA 12.4 and later)
EOF

# a library without required entry points: one planned point, not ok, naming the library
out=$(LD_LIBRARY_PATH=$dir/lacks_required timeout 60 "$ptds" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -cE '^(not )?ok|^1\.\.' <<<"$out")" = 2 ] && grep -q '^1\.\.1$' <<<"$out" &&
    grep -q '^not ok 1 - driver entry points$' <<<"$out" &&
    grep -q "message: \"libcuda.so.1 ($dir/lacks_required/libcuda.so.1) lacks " <<<"$out"; then
    ok "a library without required entry points: 1..1, not ok 1 - driver entry points, naming the library"
else nok "a library without required entry points was not one failed point (exit $rc)" "$out"; fi

# ... also in an MPS client run, where a broken initialisation means no MPS (a skip)
out=$(STREAMCTS_MPS=/nonexistent LD_LIBRARY_PATH=$dir/lacks_required timeout 60 "$legacy" 2>&1); rc=$?
if [ $rc -eq 1 ] && grep -q '^not ok 1 - driver entry points$' <<<"$out"; then
    ok "a library without required entry points fails an MPS client run too, never skips it"
else nok "a library without required entry points was not a failure under MPS (exit $rc)" "$out"; fi

# without an optional entry point: the backend starts, and a call to it fails naming it
for mode in legacy:cuStreamGetId ptds:cuStreamGetId_ptsz; do
    out=$(FAKE_CUINIT=0 LD_LIBRARY_PATH=$dir/lacks_optional timeout 60 "$dir/driver_calls.${mode%%:*}.prog" "${mode#*:}" 2>&1); rc=$?
    if [ $rc -eq 0 ] && [ "$(grep -c '^ok' <<<"$out")" = 7 ]; then
        ok "${mode%%:*}: a call to a missing optional entry point fails, naming ${mode#*:}"
    else nok "${mode%%:*}: the missing optional entry point was not handled (exit $rc)" "$out"; fi
done

# which library answered the entry points: the header's lines, in both compile modes
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc=${CC:-gcc}
$cc -std=c11 -Wall -Wextra -Werror -shared -fPIC -o "$tmp/libplain.so" selftest/loader/layer.c &&
    $cc -std=c11 -Wall -Wextra -Werror -DHOOK_DLSYM -shared -fPIC -o "$tmp/libhook.so" selftest/loader/layer.c -ldl ||
    nok "selftest/loader/layer.c does not build"
fake=$(cd $dir/complete && pwd -P)/libcuda.so.1
# how many entry points the backend resolves: its one list (cu_loader.h), counted, not written here again
entries=$(grep -o 'X(cu[A-Za-z0-9_]*)' runtime/backend/cu_loader.h | sort -u | wc -l)
lib="$fake \\(version 1, build-id [0-9a-f]{40}\\)"
for prog in legacy ptds; do
    q=; [ $prog = ptds ] && q=_ptsz
    out=$(STREAMCTS_WINDOW_MS=40 FAKE_CUINIT=0 LD_LIBRARY_PATH=$dir/complete timeout 60 "${!prog}" 2>&1)
    if grep -qx "# env set: STREAMCTS_WINDOW_MS=40" <<<"$out" && grep -qxE "# entry points by dlsym: $entries of $entries: $entries $lib" <<<"$out" &&
        grep -qxE "# entry points by cuGetProcAddress: $entries of $entries: $entries $lib" <<<"$out" &&
        grep -qxE "# driver library: libcuda.so.1 is $lib; LD_PRELOAD=\(unset\)" <<<"$out" &&
        grep -qxF "# machine: $(uname -n), $(uname -s) $(uname -r) $(uname -m)" <<<"$out"; then
        ok "$prog: the header names the stand-in as what answered every entry point, by dlsym and cuGetProcAddress; the machine; the variables set"
    else nok "$prog: the header did not name the stand-in as what answered the entry points" "$(grep '^# ' <<<"$out")"; fi
    out=$(FAKE_CUINIT=0 LD_PRELOAD=$tmp/libplain.so LD_LIBRARY_PATH=$dir/complete timeout 60 "${!prog}" 2>&1)
    if grep -qxE "# entry points by dlsym: $entries of $entries: $entries $lib" <<<"$out" &&
        grep -qxE "# entry points by cuGetProcAddress: $entries of $entries: $entries $lib" <<<"$out" &&
        grep -qxE "# driver library: libcuda.so.1 is $lib; LD_PRELOAD=$tmp/libplain.so" <<<"$out" &&
        ! grep -q 'libplain.so answered' <<<"$out"; then
        ok "$prog: a preloaded layer that hooks neither dlsym nor cuGetProcAddress answered nothing, and the header says so"
    else nok "$prog: the header did not show the plain preloaded layer unreached" "$(grep '^# ' <<<"$out")"; fi
    out=$(FAKE_CUINIT=0 LD_PRELOAD=$tmp/libhook.so LD_LIBRARY_PATH=$dir/complete timeout 60 "${!prog}" 2>&1)
    hook="3 $tmp/libhook.so \\(build-id [0-9a-f]{40}\\)"
    if grep -qxE "# entry points by dlsym: $entries of $entries: $((entries - 3)) $lib, $hook" <<<"$out" &&
        grep -qxE "# entry points by cuGetProcAddress: $entries of $entries: $((entries - 3)) $lib, $hook" <<<"$out" &&
        grep -qxF "# entry points by dlsym that $tmp/libhook.so answered: cuStreamQuery$q, cuMemAlloc_v2, cuMemFree_v2" <<<"$out" &&
        grep -qxF "# entry points by cuGetProcAddress that $tmp/libhook.so answered: cuStreamQuery$q, cuMemAlloc_v2, cuMemFree_v2" <<<"$out"; then
        ok "$prog: a preloaded layer that hooks dlsym and cuGetProcAddress is named for the 3 entry points it answered"
    else nok "$prog: the header did not name the hooking layer for its entry points" "$(grep '^# ' <<<"$out")"; fi
done

echo "1..$n"
