#!/usr/bin/env bash
# Compression for `make bench` (issue 13, item 3): `share send` as it is (zstd where it pays)
# against `share send --no-compress`, between two simulated LAN hosts (Tests/Hosts/lan.sh: network
# namespaces joined by veth) whose link is limited with tc tbf (`lan.sh rate`) to 100 Mbit/s or
# 1 Gbit/s or not limited, and on loopback, for the three data sets of make-compression-sets.sh
# (source code, text/JSON/logs, incompressible media; SET_MIB MiB each, default 24).
#
# Prints a markdown table: the median seconds of ROUNDS (default 3) each way (from the start of
# `share send` until it exits, after the receiver's RECEIPT: committed and durable), the speed-up
# (--no-compress seconds / zstd seconds), and the wire ratio (DATA payload bytes / file bytes, from
# `share send --json`). Rounds are interleaved so slow phases of the shared machine hit both ways
# alike. Aims: at least 2x at 100 Mbit/s on the text-heavy sets (source, text); never below 0.97x
# on media or on loopback. Needs root (network namespaces); without it, prints why it was skipped.
#
# Environment: SHARE (default .build/release/share), ROUNDS, SET_MIB, LINKS (default
# "100mbit 1gbit unlimited loopback").
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
ROUNDS=${ROUNDS:-3}
SET_MIB=${SET_MIB:-24}
LINKS=${LINKS:-100mbit 1gbit unlimited loopback}
LAN=$PWD/Tests/Hosts/lan.sh
export SHARE_LAN_PREFIX=shzbench SHARE_LAN_OWNER=$$

echo "### 9. Compression: zstd where it pays against --no-compress, by link rate"
echo
if ! missing=$("$LAN" check 2>&1); then
    echo "Skipped: the simulated LAN cannot run here ($missing)."
    exit 0
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/share-compression-bench.XXXXXX")
RECEIVERS=()
cleanup() {
    local status=$?
    for pid in "${RECEIVERS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${RECEIVERS[@]}"; do wait "$pid" 2>/dev/null || true; done
    "$LAN" down >/dev/null 2>&1 || true
    [ -n "${KEEP_WORK:-}" ] && echo "kept $WORK" >&2 || rm -rf "$WORK"
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

now() { echo "${EPOCHREALTIME/,/.}"; }
# `exec`, so that a background `as ...` is the process itself and its pid can be signalled.
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
    echo "compression bench: the receiver did not start: $(cat "$1")" >&2
    exit 1
}

Tests/Benchmarks/make-compression-sets.sh "$WORK/sets" "$SET_MIB" > "$WORK/sets.txt"
SETS=$(awk '{ print $1 }' "$WORK/sets.txt")
mkdir -p "$WORK/alice" "$WORK/bob" "$WORK/carol"
"$LAN" up a b >/dev/null
(as bob "$LAN" run b "$SHARE" receive --port 0 --accept all --dir "$WORK/bob/in" --json > "$WORK/bob.log" 2>&1) &
RECEIVERS+=($!)
(as carol "$SHARE" receive --port 0 --accept all --dir "$WORK/carol/in" --json > "$WORK/carol.log" 2>&1) &
RECEIVERS+=($!)
LAN_TARGET=$("$LAN" addr b):$(listening_port "$WORK/bob.log")
LOOPBACK_TARGET=127.0.0.1:$(listening_port "$WORK/carol.log")

# One send: $1 link, $2 set, $3 mode (zstd|raw); appends "link set mode seconds payloadBytes".
send_once() {
    local link=$1 set=$2 mode=$3 flags=() started ended out=$WORK/send.json
    [ "$mode" = raw ] && flags=(--no-compress)
    started=$(now)
    if [ "$link" = loopback ]; then
        (as alice "$SHARE" send "$WORK/sets/$set" --to "$LOOPBACK_TARGET" --no-retry --json "${flags[@]}") > "$out"
        rm -rf "$WORK/carol/in/$set"
    else
        (as alice "$LAN" run a "$SHARE" send "$WORK/sets/$set" --to "$LAN_TARGET" --no-retry --json "${flags[@]}") > "$out"
        rm -rf "$WORK/bob/in/$set"
    fi
    ended=$(now)
    grep -q '"ok":true' "$out" || { echo "compression bench: a send failed: $(cat "$out")" >&2; exit 1; }
    local payload
    payload=$(sed -n 's/.*"payloadBytes":\([0-9]*\).*/\1/p' "$out")
    awk -v l="$link" -v s="$set" -v m="$mode" -v a="$started" -v b="$ended" -v p="${payload:-0}" \
        'BEGIN { printf "%s %s %s %.3f %s\n", l, s, m, b - a, p }' >> "$WORK/results"
}

set_link() {
    "$LAN" unrate a >/dev/null 2>&1 || true
    case $1 in
        100mbit) "$LAN" rate a 100mbit 256kb ;;
        1gbit) "$LAN" rate a 1gbit 1mb ;;
    esac
}

: > "$WORK/results"
for round in $(seq "$ROUNDS"); do
    for link in $LINKS; do
        set_link "$link"
        for set in $SETS; do
            if [ $((round % 2)) = 1 ]; then modes="raw zstd"; else modes="zstd raw"; fi
            for mode in $modes; do send_once "$link" "$set" "$mode"; done
        done
    done
done
"$LAN" unrate a >/dev/null 2>&1 || true

median() {
    awk -v l="$1" -v s="$2" -v m="$3" -v c="$4" '$1 == l && $2 == s && $3 == m { print $c }' "$WORK/results" |
        sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%s MiB per set (%s), median of %s rounds; seconds from `share send` to its exit (the receipt: committed and durable).\n\n' \
    "$SET_MIB" "$(awk '{ printf "%s%s: %s files", (NR > 1 ? ", " : ""), $1, $2 }' "$WORK/sets.txt")" "$ROUNDS"
echo "| link | set | --no-compress s | zstd s | speed-up | wire bytes / file bytes | --no-compress Mbit/s | aim |"
echo "|---|---|---|---|---|---|---|---|"
missed=0
for link in $LINKS; do
    for set in $SETS; do
        bytes=$(awk -v s="$set" '$1 == s { print $3 }' "$WORK/sets.txt")
        raw=$(median "$link" "$set" raw 4)
        zstd=$(median "$link" "$set" zstd 4)
        payload=$(median "$link" "$set" zstd 5)
        speedup=$(awk -v a="$raw" -v b="$zstd" 'BEGIN { printf "%.2f", a / b }')
        aim=""
        if [ "$link" = 100mbit ] && [ "$set" != media ]; then
            aim=">= 2x: $(awk -v x="$speedup" 'BEGIN { print (x >= 2 ? "met" : "MISSED") }')"
        elif [ "$link" = loopback ] || [ "$set" = media ]; then
            aim=">= 0.97x: $(awk -v x="$speedup" 'BEGIN { print (x >= 0.97 ? "met" : "MISSED") }')"
        fi
        case $aim in *MISSED*) missed=$((missed + 1)) ;; esac
        printf '| %s | %s | %s | %s | %sx | %s | %s | %s |\n' "$link" "$set" "$raw" "$zstd" "$speedup" \
            "$(awk -v p="$payload" -v b="$bytes" 'BEGIN { printf "%.2f", p / b }')" \
            "$(awk -v b="$bytes" -v s="$raw" 'BEGIN { printf "%.0f", b * 8 / 1e6 / s }')" "$aim"
    done
done
echo
echo "Aims missed: $missed."
