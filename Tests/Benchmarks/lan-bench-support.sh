# Shared by compression.sh and fanout.sh (sourced, not run): a scratch folder, clean-up of the
# receivers and the simulated hosts, running as a user of its own, and a receiver's port.
# Expects LAN (Tests/Hosts/lan.sh).

now() { echo "${EPOCHREALTIME/,/.}"; }

# lan_bench_setup LABEL: makes $WORK and arranges the clean-up at exit of every pid added to RECEIVERS.
lan_bench_setup() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/share-$1-bench.XXXXXX")
    RECEIVERS=()
    trap lan_bench_cleanup EXIT
    trap 'exit 130' INT TERM
}

lan_bench_cleanup() {
    local status=$?
    for pid in "${RECEIVERS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${RECEIVERS[@]}"; do wait "$pid" 2>/dev/null || true; done
    "$LAN" down >/dev/null 2>&1 || true
    [ -n "${KEEP_WORK:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}

# as WHO CMD...: runs CMD with WHO's own HOME, config and data folders under $WORK. `exec`, so that
# a background `(as ...)` is the process itself and its pid can be signalled.
as() {
    local who=$1
    shift
    exec env HOME="$WORK/$who" SHARE_CONFIG_DIR="$WORK/$who/config" XDG_DATA_HOME="$WORK/$who/data" "$@"
}

# The port a `share receive --json` log says it listens on, once it says so.
listening_port() {
    for _ in $(seq 300); do
        port=$(sed -n 's/.*"event":"listening".*"port":\([0-9]*\).*/\1/p' "$1" | head -n 1)
        [ -n "$port" ] && { echo "$port"; return; }
        sleep 0.1
    done
    echo "bench: the receiver did not start: $(cat "$1")" >&2
    exit 1
}

# Peak RSS in KiB and user + system CPU seconds from a `/usr/bin/time -v` report.
peak_rss_kib() { sed -n 's/.*Maximum resident set size (kbytes): *//p' "$1"; }
cpu_seconds() { awk -F': *' '/User time \(seconds\)|System time \(seconds\)/ { t += $2 } END { printf "%.2f", t }' "$1"; }
# User + system CPU seconds of a running process so far.
process_cpu() { awk -v hz="$(getconf CLK_TCK)" '{ sub(/.*\) /, ""); printf "%.2f", ($12 + $13) / hz }' "/proc/$1/stat"; }
# The `share` process started under PID (itself, or the first `share` among its first descendants:
# `lan.sh run` and taskset sit between), or PID when there is none yet.
share_process() {
    local pid=$1
    for _ in 1 2 3 4 5; do
        [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = share ] && { echo "$pid"; return; }
        pid=$(pgrep -P "$pid" | head -n 1) || break
    done
    echo "$1"
}
