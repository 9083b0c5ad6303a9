# tap-match.sh - questions about a program's TAP output held in a shell variable, answered by bash itself:
# the mock's test files ask them of thousands of outputs, and a grep for each cost a process (sourced).

# tap_has OUT PREFIX: a line of OUT begins with PREFIX
tap_has() { [[ $'\n'$1 == *$'\n'"$2"* ]]; }

# tap_count OUT PATTERN: how many lines of OUT match the bash pattern PATTERN (a glob: 'not ok *')
tap_count() {
    local line n=0
    while IFS= read -r line; do
        # shellcheck disable=SC2053 # the pattern is a glob on purpose
        [[ $line == $2 ]] && n=$((n + 1))
    done <<<"$1"
    echo $n
}

# tap_must_failed OUT: a "not ok" line of OUT that is not a TODO (a MUST point failed)
tap_must_failed() {
    local line
    while IFS= read -r line; do
        [[ $line == "not ok "* && $line != *"# TODO"* ]] && return 0
    done <<<"$1"
    return 1
}

# tap_message_has OUT TEXT: a YAML "message:" line of OUT holds TEXT
tap_message_has() {
    local line
    while IFS= read -r line; do
        [[ $line == *'message: "'*"$2"* ]] && return 0
    done <<<"$1"
    return 1
}
