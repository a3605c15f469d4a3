#!/usr/bin/env bash
# Discovery latency for `make bench`: on two simulated LAN hosts (Tests/Hosts/lan.sh: network
# namespaces, each with its own D-Bus and avahi-daemon), the time from starting `share receive`
# on host a until `share peers --watch` on host b lists it, over TRIALS trials (default 20).
# Prints a markdown section with the median and p95. Needs root (network namespaces); without
# it, prints why it was skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
TRIALS=${TRIALS:-20}
LAN=$PWD/Tests/Hosts/lan.sh
export SHARE_LAN_PREFIX=shbench SHARE_LAN_OWNER=$$

echo "### 4. Discovery latency: 'share receive' on one host until 'share peers' on another lists it"
echo
if ! missing=$("$LAN" check 2>&1); then
    echo "Skipped: the simulated LAN cannot run here ($missing)."
    exit 0
fi

. Tests/Benchmarks/latency-support.sh
latency_setup discovery

"$LAN" up a b >/dev/null
# `exec`, so that a background `as ...` is the process itself and its pid can be signalled.
as() {
    local who=$1
    shift
    exec env HOME="$WORK/$who" SHARE_CONFIG_DIR="$WORK/$who/config" XDG_DATA_HOME="$WORK/$who/data" "$@"
}
mkdir -p "$WORK/alice" "$WORK/bob"

start_watcher

: > "$WORK/latency"
for trial in $(seq "$TRIALS"); do
    name="bench-$trial"
    started=$(now)
    (as alice "$LAN" run a "$SHARE" receive --name "$name" --port 0 --accept all --dir "$WORK/alice/in" --json \
        > "$WORK/receiver.$trial.log" 2>&1) &
    RECEIVER=$!
    seen=
    for _ in $(seq 200); do
        seen=$(awk -v n="\"name\":\"$name\"" '/"event":"appeared"/ && index($0, n) { print $1; exit }' "$WORK/watch.log")
        [ -n "$seen" ] && break
        sleep 0.01
    done
    [ -n "$seen" ] || { echo "bench: trial $trial: $name was not listed within 2 s" >&2; exit 1; }
    awk -v a="$started" -v b="$seen" 'BEGIN { printf "%.3f\n", b - a }' >> "$WORK/latency"
    kill "$RECEIVER" 2>/dev/null || true
    wait "$RECEIVER" 2>/dev/null || true
    RECEIVER=
    # Wait until b saw it go, so every trial starts from the same state.
    for _ in $(seq 300); do
        grep -q "\"event\":\"disappeared\",\"name\":\"$name\"" "$WORK/watch.log" && break
        sleep 0.01
    done
done

read -r median p95 fastest slowest < <(latency_stats "$WORK/latency")
count=$(wc -l < "$WORK/latency")
met=$(awk -v m="$median" 'BEGIN { print (m < 1.0) ? "met" : "MISSED" }')

printf '| %-28s | %-8s |\n' "trials" "$count"
printf '| %-28s | %-8s |\n' "----------------------------" "--------"
printf '| %-28s | %-8s |\n' "median (s)" "$median"
printf '| %-28s | %-8s |\n' "p95 (s)" "$p95"
printf '| %-28s | %-8s |\n' "fastest / slowest (s)" "$fastest / $slowest"
printf '| %-28s | %-8s |\n' "aim: median under 1 s" "$met"
echo
echo "From starting the receiver process to the 'appeared' line of 'share peers --watch --json' on the"
echo "other host. Avahi probes a new name for about 0.75 s before it announces it (RFC 6762 §8.1); the"
echo "rest is the receiver starting, its TLS identity loading, and the browser resolving the service."
