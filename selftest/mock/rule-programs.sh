# rule-programs.sh - what the mock's rule-program tests share (capture.t, graphinst.t, nodes.t, launch.t,
# batch.t, conditional.t, interop.t, ...), sourced from the repository root.  `ninja selftest` links the
# programs (selftest/mock/programs.list, pair).

. selftest/mock/tap-match.sh # tap_has, tap_count, tap_must_failed, tap_message_has

# The test's beginning: a scratch directory, ok and nok, the TAP header, and a 50 ms window with no shorter
# first look (not mock.t's 5 ms: under load the mock's stream threads may take longer than 5 ms to run work a
# broken promise lets through).  A file that defined ok itself before sourcing this keeps its own.
if ! command -v ok >/dev/null 2>&1; then
    tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
    export STREAMCTS_WINDOW_MS=50 STREAMCTS_FIRST_LOOK_MS=0
    n=0
    ok() { n=$((n + 1)); echo "ok $n - $1"; }
    nok() { n=$((n + 1)); echo "not ok $n - $1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | head -15 | sed 's/^/# /'; }
    echo "TAP version 13"
fi

# link_rules RULES: each rule's program in both compile modes, as the build linked it against the mock's shared
# libraries (build/selftest/mock/pair/RULE.mock and RULE.mock-ptds: a "RULE pair" line of
# selftest/mock/programs.list), reached as $tmp/RULE.mock and $tmp/RULE.mock-ptds; every case and control of
# each must pass on the conforming mock.
link_rules() {
    local rule lib prog out rc built=()
    for rule in $1; do
        for lib in mock mock-ptds; do
            [ -x "build/selftest/mock/pair/$rule.$lib" ] && built+=("$PWD/build/selftest/mock/pair/$rule.$lib")
        done
    done
    [ ${#built[@]} -eq 0 ] || ln -sf "${built[@]}" "$tmp/" # one process for all the links
    for rule in $1; do
        for lib in mock mock-ptds; do
            prog=build/selftest/mock/pair/$rule.$lib
            if [ ! -x "$prog" ]; then
                nok "$rule ($lib): $prog was not built: list \"$rule pair\" in selftest/mock/programs.list"
                continue
            fi
            out=$("$tmp/$rule.$lib" 2>&1); rc=$?
            if [ $rc -eq 0 ] && tap_has "$out" ok && ! tap_has "$out" "not ok" && [[ $out != *"# SKIP"* ]]; then
                ok "$rule ($lib): every case and control passes on a conforming mock"
            else nok "$rule ($lib) fails on a conforming mock (exit $rc)" "$(grep -A12 '^not ok' <<<"$out")"; fi
        done
    done
}

# check_breaks [VAR=VALUE...]: for each line "BREAK RULE MESSAGE" of stdin, RULE's legacy program run with
# STREAMCTS_MOCK_BREAK=BREAK (and the variables given), its controls left out, must report every case not ok
# (a DE-FACTO rule's as TODO, which leaves the exit status 0), one of them with MESSAGE.
check_breaks() {
    while read -r brk rule msg; do
        # shellcheck disable=SC2163 # "$@" are VAR=VALUE words
        out=$([ $# -eq 0 ] || export "$@"; STREAMCTS_MOCK_BREAK=$brk exec "$tmp/$rule.mock" --no-control 2>&1); rc=$?
        main=$(tap_count "$out" 'not ok *')
        if { [ $rc -ne 0 ] || [ "$(tap_count "$out" 'not ok * # TODO*')" -gt 0 ]; } && [ "$main" -gt 0 ] &&
            ! tap_has "$out" ok && tap_message_has "$out" "$msg"; then
            ok "break $brk: $rule reports $main violated cases ('$msg')"
        else nok "break $brk: $rule did not report the violation (exit $rc, $main cases)" "$out"; fi
    done
}

# check_unconcerned CONCERN WHY: for each line "BREAK RULE" of stdin, RULE's legacy program run with
# STREAMCTS_MOCK_BREAK=BREAK, its controls left out, still passes every case: the break is another promise's
# only.  CONCERN names how the rule stands to the break in the test's name, WHY in a failure's.
check_unconcerned() {
    while read -r brk rule; do
        out=$(STREAMCTS_MOCK_BREAK=$brk "$tmp/$rule.mock" --no-control 2>&1); rc=$?
        if [ $rc -eq 0 ] && ! tap_has "$out" "not ok" && tap_has "$out" ok; then
            ok "break $brk: $rule, $1, passes"
        else nok "break $brk: $rule failed (exit $rc), though $2" "$(grep -A4 '^not ok' <<<"$out")"; fi
    done
}

# check_legal RULES: with STREAMCTS_MOCK_QUIRK=enqueue_waits (legal: every enqueue waits, up to 50 ms, for its
# stream to drain) no MUST point of each rule's legacy program fails.
check_legal() {
    for rule in $1; do
        out=$(STREAMCTS_MOCK_QUIRK=enqueue_waits "$tmp/$rule.mock" --attempts 1 2>&1); rc=$?
        if [ $rc -eq 0 ] && ! tap_must_failed "$out"; then
            ok "$rule: no MUST failure on a legal driver (enqueue_waits)"
        else nok "$rule fails a legal driver (enqueue_waits, exit $rc)" "$(grep -A4 '^not ok' <<<"$out" | grep -v '# TODO')"; fi
    done
}
