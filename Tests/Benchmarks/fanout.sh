#!/usr/bin/env bash
# Several receivers, several senders for `make bench` (docs/PERFORMANCE.md §11), on simulated LAN hosts
# (Tests/Hosts/lan.sh: network namespaces joined by veth, links limited with tc tbf: `lan.sh rate`).
#
#   a. one `share send FILE` (FANOUT_MIB MiB, incompressible) to 1 receiver, and to 3 receivers at once
#      (`--to a --to b --to c`), each receiver on its own host behind a link of RATE (default 200mbit);
#      the sender's own link is not limited. Aggregate rate (receivers x bytes / seconds) against 3x the
#      rate to one; the sender's bytes read (rchar of /proc/PID/io, sampled until it exits), CPU seconds
#      and peak RSS (/usr/bin/time -v).
#   b. 16 senders with 16 identities (their own HOME and config) on 16 hosts, each sending its own
#      SENDER_MIB MiB file, at once into one receiver behind a link of RATE; against one sender sending
#      16 x SENDER_MIB MiB alone to the same receiver. Every file is compared with its source; the
#      receiver's peak RSS (VmHWM) and CPU seconds (from /proc/PID/stat) over the run.
#
# Seconds run from the start of `share send` until it exits (every receipt: committed and durable).
# Median of ROUNDS (default 3). Prints markdown; needs root (without it, prints why it was skipped).
# A benchmark, not a test: it fails only when a transfer fails or delivers wrong bytes.
#
# Environment: SHARE (default .build/release/share), ROUNDS, FANOUT_MIB (default 192), SENDER_MIB
# (default 16), RATE (default 200mbit; e.g. 1gbit, or "unlimited": veth at the speed of the CPU),
# SEND_FLAGS (more options for every `share send`, e.g. --no-compress), CASES (default "a b": which
# cases to run).
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
ROUNDS=${ROUNDS:-3}
FANOUT_MIB=${FANOUT_MIB:-192}
SENDER_MIB=${SENDER_MIB:-16}
RATE=${RATE:-200mbit}
CASES=${CASES:-a b}
SENDERS=16
LAN=$PWD/Tests/Hosts/lan.sh
export SHARE_LAN_PREFIX=shfan${SHARE_LAN_TAG:+${SHARE_LAN_TAG:0:4}} SHARE_LAN_OWNER=$$

echo "### 10. Several receivers, several senders (simulated hosts, links at $RATE)"
echo
if ! missing=$("$LAN" check 2>&1); then
    echo "Skipped: the simulated LAN cannot run here ($missing)."
    exit 0
fi

. Tests/Benchmarks/lan-bench-support.sh
lan_bench_setup fanout

fail() { echo "fanout bench: $*" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mib() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1048576 }'; }
# Starts `share receive` on host $1 as $1 into $WORK/$1/in; prints nothing, sets RECEIVER_PID.
start_receiver() {
    mkdir -p "$WORK/$1"
    (as "$1" "$LAN" run "$1" "$SHARE" receive --port 0 --accept all --dir "$WORK/$1/in" --json > "$WORK/$1.log" 2>&1) &
    RECEIVER_PID=$!
    RECEIVERS+=("$RECEIVER_PID")
}
# Runs `share send` ($1: who, $2: host, then its arguments) under /usr/bin/time into $WORK/$1.time,
# sampling its bytes read until it exits; appends "seconds rchar" to $WORK/$1.run.
timed_send() {
    local who=$1 host=$2 started ended pid child rchar=0 status=0
    shift 2
    mkdir -p "$WORK/$who"
    started=$(now)
    env HOME="$WORK/$who" SHARE_CONFIG_DIR="$WORK/$who/config" XDG_DATA_HOME="$WORK/$who/data" \
        /usr/bin/time -v -o "$WORK/$who.time" "$LAN" run "$host" "$SHARE" send "$@" --no-retry --json ${SEND_FLAGS:-} \
        > "$WORK/$who.json" 2> "$WORK/$who.err" &
    pid=$!
    while kill -0 "$pid" 2>/dev/null; do
        child=$(pgrep -P "$pid" | head -n 1 || true)
        if [ -n "$child" ]; then
            rchar=$(awk -v r="$rchar" '/^rchar:/ { print ($2 > r ? $2 : r) }' "/proc/$child/io" 2>/dev/null || echo "$rchar")
        fi
        sleep 0.05
    done
    wait "$pid" || status=$?
    ended=$(now)
    [ "$status" = 0 ] || fail "$who: share send failed: $(cat "$WORK/$who.err" "$WORK/$who.json")"
    awk -v a="$started" -v b="$ended" -v r="$rchar" 'BEGIN { printf "%.3f %s\n", b - a, r }' >> "$WORK/$who.run"
}
# Limits host $1's link to RATE (a burst of 1 MB from 1 Gbit/s on, as tbf needs at that rate).
limit() {
    case $RATE in
        unlimited) ;;
        *gbit) "$LAN" rate "$1" "$RATE" 1mb ;;
        *) "$LAN" rate "$1" "$RATE" 256kb ;;
    esac
}
check_copy() { cmp -s "$1" "$2" || fail "$2 differs from what was sent"; rm -f "$2"; }

# ---------------------------------------------------------------------------------------------
# a. One sender to 1 and to 3 receivers.

if [[ " $CASES " == *" a "* ]]; then
FILE_BYTES=$((FANOUT_MIB << 20))
head -c "$FILE_BYTES" /dev/zero |
    openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv 0 > "$WORK/big.bin" 2>/dev/null
"$LAN" up src r1 r2 r3 >/dev/null
TARGETS=()
for host in r1 r2 r3; do
    limit "$host"
    start_receiver "$host"
    TARGETS+=("$("$LAN" addr "$host"):$(listening_port "$WORK/$host.log")")
done
for round in $(seq "$ROUNDS"); do
    if [ $((round % 2)) = 1 ]; then order="one three"; else order="three one"; fi
    for case in $order; do
        if [ "$case" = one ]; then
            timed_send one src "$WORK/big.bin" --to "${TARGETS[0]}"
            check_copy "$WORK/big.bin" "$WORK/r1/in/big.bin"
            echo "$(peak_rss_kib "$WORK/one.time") $(cpu_seconds "$WORK/one.time")" >> "$WORK/one.usage"
        else
            timed_send three src "$WORK/big.bin" --to "${TARGETS[0]}" --to "${TARGETS[1]}" --to "${TARGETS[2]}"
            for host in r1 r2 r3; do check_copy "$WORK/big.bin" "$WORK/$host/in/big.bin"; done
            echo "$(peak_rss_kib "$WORK/three.time") $(cpu_seconds "$WORK/three.time")" >> "$WORK/three.usage"
        fi
    done
done
for pid in "${RECEIVERS[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
RECEIVERS=()
"$LAN" down >/dev/null 2>&1 || true

one_s=$(awk '{ print $1 }' "$WORK/one.run" | median)
three_s=$(awk '{ print $1 }' "$WORK/three.run" | median)
one_rate=$(awk -v b="$FILE_BYTES" -v s="$one_s" 'BEGIN { printf "%.1f", b * 8 / 1e6 / s }')
three_rate=$(awk -v b="$FILE_BYTES" -v s="$three_s" 'BEGIN { printf "%.1f", 3 * b * 8 / 1e6 / s }')
ratio=$(awk -v a="$three_rate" -v o="$one_rate" 'BEGIN { printf "%.2f", a / (3 * o) }')
printf '**a.** One `share send` of a %s MiB file (incompressible), each receiver on its own host behind %s; ' "$FANOUT_MIB" "$RATE"
printf 'median of %s rounds; bytes read: the sender'"'"'s rchar (file reads and a few KiB of configuration and TLS).\n\n' "$ROUNDS"
echo "| receivers | seconds | aggregate Mbit/s | vs receivers x one | sender read (MiB) | read / file | sender CPU (s) | sender peak RSS (MiB) |"
echo "|---|---|---|---|---|---|---|---|"
for case in one three; do
    n=1 s=$one_s rate=$one_rate vs="1.00x"
    [ "$case" = three ] && n=3 s=$three_s rate=$three_rate vs="${ratio}x"
    read_b=$(awk '{ print $2 }' "$WORK/$case.run" | median)
    printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" "$s" "$rate" "$vs" "$(mib "$read_b")" \
        "$(awk -v r="$read_b" -v b="$FILE_BYTES" 'BEGIN { printf "%.2f", r / b }')" \
        "$(awk '{ print $2 }' "$WORK/$case.usage" | median)" \
        "$(mib "$(( $(awk '{ print $1 }' "$WORK/$case.usage" | sort -g | tail -n 1) * 1024 ))")"
done
echo
echo "Aim: 3 receivers at least 0.8x three times one: $(awk -v x="$ratio" 'BEGIN { print (x >= 0.8 ? "met" : "MISSED") }') (${ratio}x)."
echo
fi
[[ " $CASES " == *" b "* ]] || exit 0

# ---------------------------------------------------------------------------------------------
# b. 16 senders at once into one receiver.

SENDER_BYTES=$((SENDER_MIB << 20))
hosts=()
for i in $(seq "$SENDERS"); do hosts+=("s$i"); done
"$LAN" up hub "${hosts[@]}" >/dev/null
limit hub
start_receiver hub
HUB_PID=$RECEIVER_PID
HUB=$("$LAN" addr hub):$(listening_port "$WORK/hub.log")
# The share process under `as`/`lan.sh run` (exec all the way): the subshell's only child.
HUB_SHARE=$(pgrep -P "$HUB_PID" | head -n 1 || true)
[ -n "$HUB_SHARE" ] || HUB_SHARE=$HUB_PID
head -c "$((SENDERS * SENDER_BYTES))" /dev/zero |
    openssl enc -aes-128-ctr -nosalt -K 0f0e0d0c0b0a09080706050403020100 -iv 0 > "$WORK/all.bin" 2>/dev/null
for i in $(seq "$SENDERS"); do
    dd if="$WORK/all.bin" of="$WORK/part$i.bin" bs=1M skip=$(((i - 1) * SENDER_MIB)) count="$SENDER_MIB" status=none
done
# Identities first (each sender makes its key on its first run), outside the measurement.
for i in $(seq "$SENDERS"); do
    mkdir -p "$WORK/sender$i"
    (as "sender$i" "$LAN" run "s$i" "$SHARE" send --text "hello $i" --to "$HUB" --no-retry --json > /dev/null) ||
        fail "sender $i could not greet the receiver"
done
cpu_before=$(process_cpu "$HUB_SHARE")
for round in $(seq "$ROUNDS"); do
    for case in alone many; do
        if [ "$case" = alone ]; then
            timed_send sender1 s1 "$WORK/all.bin" --to "$HUB"
            check_copy "$WORK/all.bin" "$WORK/hub/in/all.bin"
            awk '{ print $1 }' "$WORK/sender1.run" | tail -n 1 >> "$WORK/alone.s"
        else
            started=$(now)
            pids=()
            for i in $(seq "$SENDERS"); do
                (timed_send "sender$i" "s$i" "$WORK/part$i.bin" --to "$HUB") &
                pids+=($!)
            done
            failed=0
            for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
            ended=$(now)
            [ "$failed" = 0 ] || fail "$failed of $SENDERS senders failed"
            for i in $(seq "$SENDERS"); do check_copy "$WORK/part$i.bin" "$WORK/hub/in/part$i.bin"; done
            awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f\n", b - a }' >> "$WORK/many.s"
        fi
    done
done
hub_cpu=$(awk -v a="$cpu_before" -v b="$(process_cpu "$HUB_SHARE")" 'BEGIN { printf "%.1f", b - a }')
hub_rss=$(awk '/^VmHWM:/ { printf "%.0f", $2 / 1024 }' "/proc/$HUB_SHARE/status")

alone_s=$(median < "$WORK/alone.s")
many_s=$(median < "$WORK/many.s")
TOTAL=$((SENDERS * SENDER_BYTES))
alone_rate=$(awk -v b="$TOTAL" -v s="$alone_s" 'BEGIN { printf "%.1f", b * 8 / 1e6 / s }')
many_rate=$(awk -v b="$TOTAL" -v s="$many_s" 'BEGIN { printf "%.1f", b * 8 / 1e6 / s }')
ratio=$(awk -v a="$many_rate" -v o="$alone_rate" 'BEGIN { printf "%.2f", a / o }')
printf '**b.** %s senders (%s identities, one host each) at once into one receiver behind %s, %s MiB each, ' \
    "$SENDERS" "$SENDERS" "$RATE" "$SENDER_MIB"
printf 'against one sender sending all %s MiB alone; median of %s rounds, every file compared with its source.\n\n' \
    "$((SENDERS * SENDER_MIB))" "$ROUNDS"
echo "| senders | seconds (first start to last exit) | aggregate Mbit/s | vs one sender |"
echo "|---|---|---|---|"
printf '| 1 | %s | %s | 1.00x |\n' "$alone_s" "$alone_rate"
printf '| %s | %s | %s | %sx |\n' "$SENDERS" "$many_s" "$many_rate" "$ratio"
echo
echo "Receiver over the whole of b: peak RSS $hub_rss MiB, $hub_cpu CPU seconds for $(((2 * ROUNDS * TOTAL) >> 20)) MiB received."
echo
echo "Aims: $SENDERS senders at least 0.8x one: $(awk -v x="$ratio" 'BEGIN { print (x >= 0.8 ? "met" : "MISSED") }');" \
    "receiver peak RSS under 128 MiB: $(awk -v m="$hub_rss" 'BEGIN { print (m < 128 ? "met" : "MISSED") }')."
