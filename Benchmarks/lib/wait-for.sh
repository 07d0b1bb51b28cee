# Sourced by benchmarks that start servers and read their address from the log.
wait_for() { # FILE PATTERN: waits up to a minute for PATTERN (an extended regex) in FILE, else prints it and exits
    for _ in $(seq 1 120); do
        grep -qsE "$2" "$1" && return 0
        sleep 0.5
    done
    echo "timed out waiting for '$2' in $1:" >&2
    cat "$1" >&2
    exit 1
}
