#!/bin/bash
# tools/certify's provenance, without a GPU: a log rendered with --from names
# the machine, suite revision and environment its programs' headers name, and
# the renderer as the renderer; the libraries that answered the driver entry
# points (the headers' "entry points by ..." lines) reach provenance.json,
# summary.txt and report.html; --layer NAME makes a run in which NAME answered
# no entry point INCOMPLETE, by either way (dlsym: the driver API;
# cuGetProcAddress: the runtime API); a preloaded library that answered
# nothing is a warning; a live run records the checkout's commit and whether it
# was dirty, and the libraries' sha256; the default bundle lands in bundles/,
# which git ignores.  Logs: certify/full-log.pl's whole passing suite, with
# the header lines a GPU machine's programs print put in.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok() { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
check() { if eval "$2"; then ok "$1"; else nok "$1" "${3:-}"; fi; }
prov() { perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); print eval($ARGV[0]) // "", "\n"' "$2" <"$1/provenance.json"; }
echo "TAP version 13"
echo "1..14"

# the log of a whole passing suite, as a GPU machine "gpu-box-7" prints it, with the given entry point lines
layer=/opt/layer/libvgpu.so
drv="/usr/lib/x86_64-linux-gnu/libcuda.so.580.00.00 (version 580.00.00, build-id $(printf 'b%.0s' $(seq 40)))"
vgpu="$layer (build-id $(printf 'a%.0s' $(seq 40)))"
selftest/tools/certify/full-log.pl >"$tmp/plain.log"
log() {  # NAME DLSYM-LINE PROC-LINE [DETAIL-LINE]: writes $tmp/NAME.log
    DLSYM=$2 PROC=$3 DETAIL=${4:-} DRV="$drv" PRELOAD=$layer perl -pe 'if (/^# env: /) { $_ .= "# entry points by dlsym: $ENV{DLSYM}\n" . ($ENV{DETAIL} ? "# $ENV{DETAIL}\n" : "") . "# entry points by cuGetProcAddress: $ENV{PROC}\n# driver library: libcuda.so.1 is $ENV{DRV}; LD_PRELOAD=$ENV{PRELOAD}\n# machine: gpu-box-7, Linux 5.15.0-105-generic x86_64\n# env set: STREAMCTS_WINDOW_MS=40\n" }' \
        "$tmp/plain.log" >"$tmp/$1.log"
}
log reached "118 of 118: 100 $vgpu, 18 $drv" "118 of 118: 100 $vgpu, 18 $drv" \
    "entry points by dlsym that ${drv%% (*} answered: cuStreamGetId, cuGraphLaunch"
log proc_only "118 of 118: 118 $drv" "118 of 118: 100 $vgpu, 18 $drv"
log unreached "118 of 118: 118 $drv" "118 of 118: 118 $drv"
programs=$(grep -c '^# machine: ' "$tmp/reached.log")
here=$(uname -n)

tools/certify --from "$tmp/reached.log" --layer libvgpu -o "$tmp/reached" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a log whose layer answered entry points both ways, --layer libvgpu: exit 0, CERTIFIED (over $programs programs)" \
    '[ $rc -eq 0 ] && head -1 "$tmp/out" | grep -q "^CERTIFIED: "' "exit $rc: $(head -3 "$tmp/out") $(cat "$tmp/err")"
check "summary.txt: the host is the log's machine, the renderer is named as the renderer, the answerers and the layer" \
    'grep -qx "host: *gpu-box-7 (Linux 5.15.0-105-generic x86_64)" "$tmp/out" &&
     grep -qx "rendered by: *$here (.*), from $tmp/reached.log: not the machine that ran it" "$tmp/out" &&
     grep -qx "entry points by dlsym: 100 $layer, 18 /usr/lib/x86_64-linux-gnu/libcuda.so.580.00.00" "$tmp/out" &&
     grep -qx "entry points by cuGetProcAddress: 100 $layer, 18 /usr/lib/x86_64-linux-gnu/libcuda.so.580.00.00" "$tmp/out" &&
     grep -qx "LD_PRELOAD: *$layer" "$tmp/out" &&
     grep -qx "layer: *libvgpu: answered entry points by dlsym in $programs, by cuGetProcAddress in $programs of $programs programs that ran" "$tmp/out" &&
     grep -qx "suite: *fixture" "$tmp/out"' "$(head -14 "$tmp/out")"
check "provenance.json: host and environment from the headers, renderer apart, no checkout, nvcc or environment of the renderer as the run's" \
    '[ "$(prov "$tmp/reached" "\$d->{host}{name} . q(|) . \$d->{host}{from} . q(|) . \$d->{renderer}{name} . q(|) . \$d->{renderer}{role}")" = "gpu-box-7|the programs'"'"' headers|$here|rendered the log $tmp/reached.log" ] &&
     [ "$(prov "$tmp/reached" "join q(|), map { exists \$_->[0]{\$_->[1]} ? 1 : 0 } [\$d->{suite}, q(checkout)], [\$d->{environment}, q(certify)], [\$d->{toolkit}, q(nvcc_here)], [\$d->{renderer}, q(environment)]")" = "0|0|0|1" ] &&
     [ "$(prov "$tmp/reached" "join q(,), @{\$d->{suite}{revisions}}, @{\$d->{environment}{in_programs}{LD_PRELOAD}}, @{\$d->{environment}{in_programs}{STREAMCTS_WINDOW_MS}}")" = "fixture,$layer,40" ]' \
    "$(prov "$tmp/reached" "JSON::PP->new->canonical->encode([\$d->{host}, \$d->{renderer}])")"
check "provenance.json: each library that answered, its version, build-id, programs and the entry points listed; the libcuda.so.1 loaded" \
    '[ "$(prov "$tmp/reached" "my \$l = \$d->{entry_points}{by_dlsym}{libraries}; join q(|), map { join q(,), \$_->{path}, \$_->{version} // q(-), \$_->{build_id}, \$_->{programs}, @{\$_->{answered}} } @\$l")" = "$layer,-,$(printf 'a%.0s' $(seq 40)),$programs,100,100|/usr/lib/x86_64-linux-gnu/libcuda.so.580.00.00,580.00.00,$(printf 'b%.0s' $(seq 40)),$programs,18,18" ] &&
     [ "$(prov "$tmp/reached" "join q(|), @{\$d->{entry_points}{driver_library}}, \$d->{entry_points}{layer}{reached_by_cuGetProcAddress}, @{\$d->{entry_points}{by_dlsym}{libraries}[1]{entry_points}}")" = "$drv|$programs|cuGraphLaunch|cuStreamGetId" ]' \
    "$(prov "$tmp/reached" "JSON::PP->new->canonical->encode(\$d->{entry_points})" | cut -c1-600)"
check "report.html names the machine that ran the programs, the renderer and the answerers" \
    'grep -q "<td>host (ran the programs)</td><td>gpu-box-7 (Linux 5.15.0-105-generic x86_64)</td>" "$tmp/reached/report.html" &&
     grep -q "<td>rendered by</td><td>$here " "$tmp/reached/report.html" &&
     grep -q "<td>entry points by dlsym</td><td>100 $layer, 18 " "$tmp/reached/report.html"' "$(grep -o '<td>host.\{0,200\}' "$tmp/reached/report.html")"

tools/certify --from "$tmp/reached.log" --layer libother -o "$tmp/other" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--layer naming a library that answered nothing: exit 3, INCOMPLETE, saying which libraries did answer" \
    '[ $rc -eq 3 ] && head -1 "$tmp/out" | grep -qxF "INCOMPLETE: the layer libother was never reached: it answered no driver entry point in any of $programs programs (by dlsym: libvgpu.so, libcuda.so.580.00.00; by cuGetProcAddress: libvgpu.so, libcuda.so.580.00.00)"' \
    "exit $rc: $(head -3 "$tmp/out") $(cat "$tmp/err")"
tools/certify --from "$tmp/proc_only.log" --layer libvgpu.so -o "$tmp/proc_only" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a layer reached by cuGetProcAddress only: INCOMPLETE, the driver API points tested libcuda instead" \
    '[ $rc -eq 3 ] && head -1 "$tmp/out" | grep -qxF "INCOMPLETE: the layer libvgpu.so answered no entry point by dlsym (how the driver API resolves them) in $programs of $programs programs, so their driver API points tested libcuda.so.580.00.00 instead"' \
    "exit $rc: $(head -3 "$tmp/out") $(cat "$tmp/err")"
tools/certify --from "$tmp/unreached.log" -o "$tmp/unreached" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "without --layer, a preloaded library that answered nothing is a warning in summary.txt and report.html, not a verdict" \
    '[ $rc -eq 0 ] && grep -q "^WARNING: *LD_PRELOAD names $layer, which answered no driver entry point: the suite never reached it" "$tmp/out" &&
     grep -q "<td>WARNING</td><td>LD_PRELOAD names $layer, which answered" "$tmp/unreached/report.html"' "exit $rc: $(head -14 "$tmp/out")"
tools/certify --from "$tmp/plain.log" --layer libvgpu -o "$tmp/silent" >"$tmp/out" 2>"$tmp/err"; rc=$?
check "--layer on a log whose programs do not say who answered: INCOMPLETE, never certified" \
    '[ $rc -eq 3 ] && head -1 "$tmp/out" | grep -q "^INCOMPLETE: $programs of $programs programs that ran did not say which libraries answered" &&
     grep -qx "host: *unknown: the log.s programs do not name their machine.*" "$tmp/out"' "exit $rc: $(head -8 "$tmp/out")"
for bad in "--layer=" "--layer=lib vgpu"; do
    tools/certify --from "$tmp/plain.log" "$bad" -o "$tmp/bad" >"$tmp/out" 2>"$tmp/err"; rc=$?
    check "'$bad': exit 2, one line naming --layer, no bundle" \
        '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -q "^certify: --layer " "$tmp/err" && [ ! -e "$tmp/bad" ]' "exit $rc: $(cat "$tmp/err")"
done

# the default bundle directory: bundles/ in the repository, which git ignores
# (the log of one family: INCOMPLETE, exit 3, and a bundle all the same)
selftest/tools/certify/full-log.pl +tap/fifo/ >"$tmp/fifo.log"
tools/certify --from "$tmp/fifo.log" >"$tmp/out" 2>"$tmp/err"; rc=$?
made=$(sed -n 's/.*(bundle: \(.*\))$/\1/p' "$tmp/err")
check "without -o the bundle goes to bundles/certify-<date>-<time>/, which git ignores" \
    '[ $rc -eq 3 ] && [ "$(dirname "$made")" = "$(pwd -P)/bundles" ] && [ -f "$made/provenance.json" ] && git check-ignore -q "$made"' \
    "exit $rc: $made $(cat "$tmp/err")"
case $made in */bundles/certify-*) rm -rf "$made" ;; esac
rmdir bundles 2>/dev/null

# live runs, in this checkout: the commit and whether it was dirty; the real suite skips without a GPU
tools/certify --no-build --no-host --rerun-failures 0 -o "$tmp/live" tap/stream/sync/waits_for_stream_work.t >"$tmp/out" 2>"$tmp/err"
dirty=false; [ -n "$(git status --porcelain --untracked-files=no)" ] && dirty=true
check "a live run records the checkout: its commit, and dirty $dirty" \
    '[ "$(prov "$tmp/live" "join q(,), \$d->{suite}{checkout}{commit}, \$d->{suite}{checkout}{dirty} ? q(true) : q(false), \$d->{host}{name}")" = "$(git rev-parse HEAD),$dirty,$here" ]' \
    "$(prov "$tmp/live" "JSON::PP->new->canonical->encode(\$d->{suite}{checkout})") $(cat "$tmp/err")"
# ... and on a stand-in libcuda.so.1 with a preloaded layer that hooks dlsym (selftest/loader/layer.c)
gcc -std=c11 -shared -fPIC -DHOOK_DLSYM -o "$tmp/libhook.so" selftest/loader/layer.c -ldl
fake=$(pwd -P)/build/selftest/loader/complete
FAKE_CUINIT=0 LD_LIBRARY_PATH=$fake LD_PRELOAD=$tmp/libhook.so tools/certify --no-build --no-host --rerun-failures 0 \
    --layer libhook -o "$tmp/hooked" tap/stream/sync/waits_for_stream_work.t tap/stream/sync/waits_for_stream_work.ptds.t >"$tmp/out" 2>"$tmp/err"
sum=$(sha256sum "$tmp/libhook.so" | cut -d' ' -f1)
check "a live run through a hooking layer: the layer reached in both programs, its sha256 in provenance.json" \
    '[ "$(prov "$tmp/hooked" "my (\$l) = grep { \$_->{path} =~ /libhook/ } @{\$d->{entry_points}{by_dlsym}{libraries}}; join q(,), \$l->{answered}[0], \$l->{sha256}, \$d->{entry_points}{layer}{reached_by_dlsym}, \$d->{entry_points}{layer}{reached_by_cuGetProcAddress}")" = "3,$sum,2,2" ] &&
     ! grep -q "layer libhook" "$tmp/out"' "$(head -14 "$tmp/out") $(cat "$tmp/err")"
