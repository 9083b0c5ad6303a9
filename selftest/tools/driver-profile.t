#!/bin/sh
# tools/driver-profile over a stand-in for libcuda (build/selftest/tools/fake-ioctls,
# which makes the driver's kinds of request of /dev/null): what each kind of
# process asked for is counted, requests not the driver's are not, the command's
# exit status is kept, and bad arguments exit 2 before anything runs.
cd "$(dirname "$0")/../.." || exit 1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fake=build/selftest/tools/fake-ioctls
echo "TAP version 13"
echo "1..6"
say() { if [ "$1" = ok ]; then echo "ok $2 - $3"; else echo "not ok $2 - $3"; printf '%s\n' "$4" | sed 's/^/# /'; fi; }

out=$(tools/driver-profile -o "$tmp/p" $fake some-arg 2>&1); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qE '^program +1 +[0-9.]+ +3 +5$' &&
    printf '%s\n' "$out" | grep -qE '^ +[0-9.]+ +3  NV_ESC_RM_ALLOC of class 0xc86f \(a GPFIFO channel\)$' &&
    printf '%s\n' "$out" | grep -qE '^ +[0-9.]+ +2  NV_ESC_RM_CONTROL 0x1234$' &&
    printf '%s\n' "$out" | grep -qE '^ +[0-9.]+ +3  UVM_REGISTER_CHANNEL$' && ! printf '%s\n' "$out" | grep -q 0x5401 &&
    grep -q '^# pid [0-9]* ppid [0-9]* role program exe fake-ioctls arg some-arg$' "$tmp"/p/*.prof &&
    grep -qE '^program +1 +[0-9.]+ +3 +5$' "$tmp/p/report.txt"
then say ok 1 "channels, video memory, controls and UVM requests counted; a terminal request is not"
else say no 1 "one program's requests (exit $rc)" "$out"; fi

out=$(STREAMCTS_PROCESS="0 1 3 4 5" tools/driver-profile $fake 2>&1 >/dev/null); rc=$?
if [ $rc -eq 0 ] && printf '%s\n' "$out" | grep -qE "^a case's other process +1 +[0-9.]+ +3 +5$"; then
    say ok 2 "a case's other process is told apart, though it unset the variable that says so"
else say no 2 "a case's other process (exit $rc)" "$out"; fi

out=$(tools/driver-profile --report --top 1 "$tmp/p"); rc=$?
if [ $rc -eq 0 ] && [ "$(printf '%s\n' "$out" | grep -c '^ *[0-9.]* *[0-9]*  ')" -eq 1 ] &&
    printf '%s\n' "$out" | grep -qE '^all +1 +[0-9.]+ +3 +5$'; then
    say ok 3 "--report reads a kept directory; --top 1 lists one request"
else say no 3 "--report (exit $rc)" "$out"; fi

tools/driver-profile sh -c 'exit 3' >/dev/null 2>&1; rc=$?
if [ $rc -eq 3 ]; then say ok 4 "the command's exit status is kept"
else say no 4 "exit status $rc, not 3"; fi

out=$(tools/driver-profile --top 1001 $fake 2>&1); rc=$?
if [ $rc -eq 2 ] && [ "$out" = "driver-profile: --top '1001': a whole number of requests, 0 to 1000" ]; then
    say ok 5 "--top out of range is refused"
else say no 5 "--top 1001 (exit $rc)" "$out"; fi

out=$(tools/driver-profile -o "$tmp/p" $fake 2>&1); rc=$?
if [ $rc -eq 2 ] && printf '%s\n' "$out" | grep -q "^driver-profile: -o $tmp/p: it holds profiles already" &&
    [ "$(ls "$tmp/p" | grep -c '\.prof$')" -eq 1 ]; then
    say ok 6 "a directory that holds profiles is refused, and left as it was"
else say no 6 "-o over kept profiles (exit $rc)" "$out"; fi
