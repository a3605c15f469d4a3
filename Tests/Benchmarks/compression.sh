#!/usr/bin/env bash
# Compression for `make bench` (docs/PERFORMANCE.md §9): `share send` as it is (zstd where it pays)
# against `share send --no-compress`, between two simulated LAN hosts (Tests/Hosts/lan.sh: network
# namespaces joined by veth) whose link is limited with tc tbf (`lan.sh rate`) to 100 Mbit/s or
# 1 Gbit/s or not limited, on loopback, and through a "tunnel": loopback through the fault proxy
# (.build/release/ShareFaultProxy --rate) limited to 100 Mbit/s both ways, as `ssh -L` to a distant
# machine looks to share (a receiver at 127.0.0.1 whose bytes drain at the distant link's pace);
# for the three data sets of make-compression-sets.sh (source code, text/JSON/logs, incompressible
# media; SET_MIB MiB each, default 24).
#
# Prints a markdown table: the median seconds of ROUNDS (default 3) each way (from the start of
# `share send` until it exits, after the receiver's RECEIPT: committed and durable), the speed-up
# (--no-compress seconds / zstd seconds), and the wire ratio (DATA payload bytes / file bytes, from
# `share send --json`; 1.00 when no chunk was compressed), and CPU seconds per side (the sender's from /usr/bin/time, which also gives
# its peak RSS; the receivers', which run for the whole bench, from /proc/PID/stat around each send,
# and their peak RSS at the end). Rounds are interleaved so slow phases of the shared machine hit both ways
# alike. Aims: at least 2x at 100 Mbit/s and through the tunnel on the text-heavy sets (source,
# text); never below 0.97x on media or on plain loopback (where a receiver next door takes the raw
# bytes as fast as they are written and gets them raw: when the zstd send compressed no chunk, both
# sends are the same and the aim is met whatever their spread). The simulated LAN's links need root
# (network namespaces); without it they are skipped, and loopback and tunnel still run.
#
# The sender runs on the CPUs of SENDER_CPUS and the receivers on those of RECEIVER_CPUS (taskset;
# defaults: 0 and 1 when the machine has two or more), so that the sender's compression does not
# take the receiver's CPU as it would not between two machines. Received folders are not deleted
# until the end (they are moved aside): on ext4 without a journal, creating files soon after
# deleting many is several times slower (docs/PERFORMANCE.md), which made every send of the
# source tree wait for the receiver's inode search, whatever its compression.
#
# Environment: SHARE (default .build/release/share), PROXY (default .build/release/ShareFaultProxy),
# ROUNDS, SET_MIB, LINKS (default "100mbit 1gbit unlimited loopback tunnel"), SENDER_CPUS,
# RECEIVER_CPUS (empty: not pinned; the proxy runs on the receiver's).
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
PROXY=${PROXY:-$PWD/.build/release/ShareFaultProxy}
# The tunnel's rate: 100 Mbit/s.
TUNNEL_BYTES_PER_SECOND=12500000
ROUNDS=${ROUNDS:-3}
SET_MIB=${SET_MIB:-24}
LINKS=${LINKS:-100mbit 1gbit unlimited loopback tunnel}
LAN=$PWD/Tests/Hosts/lan.sh
export SHARE_LAN_PREFIX=shzb${SHARE_LAN_TAG:+${SHARE_LAN_TAG:0:4}} SHARE_LAN_OWNER=$$
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
    SENDER_CPUS=${SENDER_CPUS-0} RECEIVER_CPUS=${RECEIVER_CPUS-1}
fi
SENDER_PIN=() RECEIVER_PIN=()
[ -n "${SENDER_CPUS:-}" ] && SENDER_PIN=(taskset -c "$SENDER_CPUS")
[ -n "${RECEIVER_CPUS:-}" ] && RECEIVER_PIN=(taskset -c "$RECEIVER_CPUS")

echo "### 9. Compression: zstd where it pays against --no-compress, by link rate"
echo
# The links between simulated hosts need the simulated LAN; loopback and the tunnel do not.
lan_link() { case $1 in loopback | tunnel) return 1 ;; *) return 0 ;; esac; }
wanted=$LINKS LINKS="" NEEDS_LAN=""
for link in $wanted; do
    if lan_link "$link"; then
        [ -z "${LAN_MISSING+set}" ] && { LAN_MISSING=$("$LAN" check 2>&1) && LAN_MISSING=""; }
        if [ -n "$LAN_MISSING" ]; then
            echo "Skipped $link: the simulated LAN cannot run here ($LAN_MISSING)."
            continue
        fi
        NEEDS_LAN=1
    fi
    LINKS="${LINKS:+$LINKS }$link"
done
if [ -z "$LINKS" ]; then
    echo "Nothing to run."
    exit 0
fi
[ -n "${LAN_MISSING:-}" ] && echo

. Tests/Benchmarks/lan-bench-support.sh
lan_bench_setup compression

Tests/Benchmarks/make-compression-sets.sh "$WORK/sets" "$SET_MIB" > "$WORK/sets.txt"
SETS=$(awk '{ print $1 }' "$WORK/sets.txt")
mkdir -p "$WORK/alice" "$WORK/bob" "$WORK/carol" "$WORK/received"
(as carol "${RECEIVER_PIN[@]}" "$SHARE" receive --port 0 --accept all --dir "$WORK/carol/in" --json > "$WORK/carol.log" 2>&1) &
RECEIVERS+=($!)
CAROL_PORT=$(listening_port "$WORK/carol.log")
LOOPBACK_TARGET=127.0.0.1:$CAROL_PORT
CAROL_SHARE=$(share_process "${RECEIVERS[0]}")
BOB_SHARE=""
if [ -n "$NEEDS_LAN" ]; then
    "$LAN" up a b >/dev/null
    (as bob "$LAN" run b "${RECEIVER_PIN[@]}" "$SHARE" receive --port 0 --accept all --dir "$WORK/bob/in" --json > "$WORK/bob.log" 2>&1) &
    RECEIVERS+=($!)
    LAN_TARGET=$("$LAN" addr b):$(listening_port "$WORK/bob.log")
    BOB_SHARE=$(share_process "${RECEIVERS[1]}")
fi
if [[ " $LINKS " == *" tunnel "* ]]; then
    # The proxy runs until its stdin, a fifo this script holds open, ends.
    mkfifo "$WORK/proxy.in"
    exec 3<>"$WORK/proxy.in"
    "${RECEIVER_PIN[@]}" "$PROXY" --to "127.0.0.1:$CAROL_PORT" --listen 127.0.0.1:0 --rate "$TUNNEL_BYTES_PER_SECOND" \
        < "$WORK/proxy.in" > "$WORK/proxy.log" 2>&1 &
    RECEIVERS+=($!)
    TUNNEL_TARGET=127.0.0.1:$(listening_port "$WORK/proxy.log")
fi

# One send: $1 link, $2 set, $3 mode (zstd|raw); appends "link set mode seconds payloadBytes
# senderCPU receiverCPU senderPeakKiB" (the sender under /usr/bin/time; the receiver's CPU from
# /proc/PID/stat before and after).
send_once() {
    local link=$1 set=$2 mode=$3 flags=() started ended out=$WORK/send.json receiver=$BOB_SHARE cpu_before
    local measured=(/usr/bin/time -v -o "$WORK/send.time")
    [ "$mode" = raw ] && flags=(--no-compress)
    lan_link "$link" || receiver=$CAROL_SHARE
    cpu_before=$(process_cpu "$receiver")
    started=$(now)
    if ! lan_link "$link"; then
        local target=$LOOPBACK_TARGET
        [ "$link" = tunnel ] && target=$TUNNEL_TARGET
        (as alice "${SENDER_PIN[@]}" "${measured[@]}" "$SHARE" send "$WORK/sets/$set" --to "$target" --no-retry --json "${flags[@]}") > "$out"
        mv "$WORK/carol/in/$set" "$WORK/received/$link-$set-$mode-$started"
    else
        (as alice "$LAN" run a "${SENDER_PIN[@]}" "${measured[@]}" "$SHARE" send "$WORK/sets/$set" --to "$LAN_TARGET" --no-retry --json "${flags[@]}") > "$out"
        mv "$WORK/bob/in/$set" "$WORK/received/$link-$set-$mode-$started"
    fi
    ended=$(now)
    grep -q '"ok":true' "$out" || { echo "compression bench: a send failed: $(cat "$out")" >&2; exit 1; }
    local payload
    payload=$(sed -n 's/.*"payloadBytes":\([0-9]*\).*/\1/p' "$out")
    awk -v l="$link" -v s="$set" -v m="$mode" -v a="$started" -v b="$ended" -v p="${payload:-0}" \
        -v sc="$(cpu_seconds "$WORK/send.time")" -v rc="$(awk -v a="$cpu_before" -v b="$(process_cpu "$receiver")" 'BEGIN { print b - a }')" \
        -v sr="$(peak_rss_kib "$WORK/send.time")" \
        'BEGIN { printf "%s %s %s %.3f %s %.2f %.2f %s\n", l, s, m, b - a, p, sc, rc, sr }' >> "$WORK/results"
}

set_link() {
    [ -n "$NEEDS_LAN" ] || return 0
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
[ -n "$NEEDS_LAN" ] && { "$LAN" unrate a >/dev/null 2>&1 || true; }

median() {
    awk -v l="$1" -v s="$2" -v m="$3" -v c="$4" '$1 == l && $2 == s && $3 == m { print $c }' "$WORK/results" |
        sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

printf '%s MiB per set (%s), median of %s rounds; seconds from `share send` to its exit (the receipt: committed and durable).\n\n' \
    "$SET_MIB" "$(awk '{ printf "%s%s: %s files", (NR > 1 ? ", " : ""), $1, $2 }' "$WORK/sets.txt")" "$ROUNDS"
echo "| link | set | --no-compress s | zstd s | speed-up | wire bytes / file bytes | --no-compress Mbit/s | sender CPU s, raw / zstd | receiver CPU s, raw / zstd | aim |"
echo "|---|---|---|---|---|---|---|---|---|---|"
missed=0
AIMS=()
for link in $LINKS; do
    for set in $SETS; do
        bytes=$(awk -v s="$set" '$1 == s { print $3 }' "$WORK/sets.txt")
        raw=$(median "$link" "$set" raw 4)
        zstd=$(median "$link" "$set" zstd 4)
        payload=$(median "$link" "$set" zstd 5)
        speedup=$(awk -v a="$raw" -v b="$zstd" 'BEGIN { printf "%.2f", a / b }')
        aim=""
        if { [ "$link" = 100mbit ] || [ "$link" = tunnel ]; } && [ "$set" != media ]; then
            aim=">= 2x: $(awk -v x="$speedup" 'BEGIN { print (x >= 2 ? "met" : "MISSED") }')"
        elif [ "$link" = loopback ] && awk -v p="$payload" -v b="$bytes" 'BEGIN { exit !(p == b || p == 0) }'; then
            # No compressed chunk (the receiver next door got raw data): both sends put the same
            # bytes on the wire the same way, and their ratio is the spread of two identical sends.
            aim=">= 0.97x: met (raw both ways)"
        elif [ "$link" = loopback ] || [ "$set" = media ]; then
            aim=">= 0.97x: $(awk -v x="$speedup" 'BEGIN { print (x >= 0.97 ? "met" : "MISSED") }')"
        fi
        case $aim in *MISSED*) missed=$((missed + 1)) ;; esac
        case $link/$set in
            tunnel/source) AIMS+=("tunnel (100 Mbit/s proxy on loopback), source: ${speedup}x, $aim") ;;
            loopback/*) AIMS+=("plain loopback, $set: ${speedup}x, $aim") ;;
        esac
        printf '| %s | %s | %s | %s | %sx | %s | %s | %s / %s | %s / %s | %s |\n' "$link" "$set" "$raw" "$zstd" "$speedup" \
            "$(awk -v p="$payload" -v b="$bytes" 'BEGIN { printf "%.2f", p / b }')" \
            "$(awk -v b="$bytes" -v s="$raw" 'BEGIN { printf "%.0f", b * 8 / 1e6 / s }')" \
            "$(median "$link" "$set" raw 6)" "$(median "$link" "$set" zstd 6)" \
            "$(median "$link" "$set" raw 7)" "$(median "$link" "$set" zstd 7)" "$aim"
    done
done
echo
largest() { awk -v c="$1" '{ if ($c > m) m = $c } END { printf "%.1f", m / 1024 }' "$WORK/results"; }
rss() { awk '/^VmHWM:/ { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
echo "Peak RSS: senders up to $(largest 8) MiB (the largest of every send); receivers" \
    "${BOB_SHARE:+$(rss "$BOB_SHARE") MiB (simulated host) and }$(rss "$CAROL_SHARE") MiB (loopback and tunnel)," \
    "over the whole run. CPU: medians of the rounds."
echo
for aim in "${AIMS[@]}"; do echo "- $aim"; done
[ ${#AIMS[@]} -gt 0 ] && echo
echo "Aims missed: $missed."
