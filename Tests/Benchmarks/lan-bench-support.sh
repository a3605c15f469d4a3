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
