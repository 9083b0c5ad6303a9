# tap-match.sh - questions about a program's TAP output held in a shell variable, answered by bash itself:
# the mock's test files ask them of thousands of outputs, and a grep for each cost a process (sourced).
# The output is split into lines in memory (IFS: newline, no globbing): `while read` over a here-string
# read it one byte per system call (45,836 reads for 20 questions of a 2.3 KB output).

# tap_has OUT PREFIX: a line of OUT begins with PREFIX
tap_has() { [[ $'\n'$1 == *$'\n'"$2"* ]]; }

# tap_lines OUT: OUT's lines into the array tap_line (empty lines left out: no question is about one)
tap_lines() {
    local - IFS=$'\n'
    set -f
    # shellcheck disable=SC2206 # split on newlines on purpose, globbing off
    tap_line=($1)
}

# tap_count OUT PATTERN: how many lines of OUT match the bash pattern PATTERN (a glob: 'not ok *')
tap_count() {
    local line n=0 tap_line
    tap_lines "$1"
    for line in "${tap_line[@]}"; do
        # shellcheck disable=SC2053 # the pattern is a glob on purpose
        [[ $line == $2 ]] && n=$((n + 1))
    done
    echo $n
}

# tap_must_failed OUT: a "not ok" line of OUT that is not a TODO (a MUST point failed)
tap_must_failed() {
    local line tap_line
    tap_lines "$1"
    for line in "${tap_line[@]}"; do
        [[ $line == "not ok "* && $line != *"# TODO"* ]] && return 0
    done
    return 1
}

# tap_message_has OUT TEXT: a YAML "message:" line of OUT holds TEXT
tap_message_has() {
    local line tap_line
    tap_lines "$1"
    for line in "${tap_line[@]}"; do
        [[ $line == *'message: "'*"$2"* ]] && return 0
    done
    return 1
}
