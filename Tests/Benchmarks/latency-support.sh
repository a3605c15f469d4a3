# Shared by discovery-latency.sh and wide-area-latency.sh (sourced, not run): a scratch folder,
# clean-up of the receiver, the watcher and the simulated hosts, a time-stamping watcher on host
# b, and the statistics of a column of seconds. Expects LAN (Tests/Hosts/lan.sh) and SHARE.

now() { echo "${EPOCHREALTIME/,/.}"; }

# latency_setup LABEL: makes $WORK and arranges the clean-up at exit.
latency_setup() {
    WORK=$(mktemp -d "${TMPDIR:-/tmp}/share-$1-bench.XXXXXX")
    WATCHER=
    RECEIVER=
    trap latency_cleanup EXIT
    trap 'exit 130' INT TERM
}

latency_cleanup() {
    [ -n "$RECEIVER" ] && kill "$RECEIVER" 2>/dev/null
    # The watcher pipeline runs in a process group of its own (setsid): end all of it.
    [ -n "$WATCHER" ] && kill -- "-$WATCHER" 2>/dev/null
    for pid in $RECEIVER $WATCHER; do wait "$pid" 2>/dev/null || true; done
    "$LAN" down >/dev/null 2>&1 || true
    [ -n "${KEEP_WORK:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
}

# start_watcher: `share peers --watch --json` on host b as bob, every line stamped with the time
# it arrived, into $WORK/watch.log; returns once it reported what it knows (all-for-now).
start_watcher() {
    export WORK LAN SHARE
    setsid bash -c '
        now() { echo "${EPOCHREALTIME/,/.}"; }
        env HOME="$WORK/bob" SHARE_CONFIG_DIR="$WORK/bob/config" XDG_DATA_HOME="$WORK/bob/data" \
            "$LAN" run b "$SHARE" peers --watch --json 2>/dev/null |
            while IFS= read -r line; do printf "%s %s\n" "$(now)" "$line"; done > "$WORK/watch.log"' &
    WATCHER=$!
    for _ in $(seq 200); do grep -q all-for-now "$WORK/watch.log" 2>/dev/null && break; sleep 0.05; done
}

# latency_stats FILE: "median p95 fastest slowest" of the seconds in FILE, one a line.
latency_stats() {
    sort -g "$1" | awk '{ v[NR] = $1 } END {
        n = NR; median = (n % 2) ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        i = int(0.95 * n + 0.999); if (i < 1) i = 1
        printf "%.3f %.3f %.3f %.3f\n", median, v[i], v[1], v[n] }'
}
