#!/usr/bin/env bash
# Resumption for `make bench` (docs/PERFORMANCE.md §7 and §8), measured in one run:
#   1. a 1 GiB file sent through the fault lab's proxy (ShareFaultProxy) on loopback: once clean,
#      once cut at 50 % and sent again by hand (--no-retry, then the same command), and once cut at
#      50 % with the automatic reconnection; time and bytes put on the wire beside the clean run.
#   2. on two simulated LAN hosts (needs root; Tests/Hosts/lan.sh) at 400 Mbit/s: the link goes
#      down for 3 s in the middle of a transfer; the time from the link coming back until the
#      receiver stores data again (TRIALS times, default 3).
# Prints markdown. A benchmark, not a test: it fails only when a transfer fails or delivers wrong bytes.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
PROXY=${PROXY:-$PWD/.build/release/ShareFaultProxy}
TRIALS=${TRIALS:-3}
LAN=$PWD/Tests/Hosts/lan.sh
export SHARE_LAN_PREFIX=shresume SHARE_LAN_OWNER=$$

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
fail() { echo "bench: $*" >&2; exit 1; }

WORK=$(mktemp -d "${TMPDIR:-/tmp}/share-resume-bench.XXXXXX")
PIDS=()
LAN_UP=
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    [ -n "$LAN_UP" ] && "$LAN" down >/dev/null 2>&1
    rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as() {
    local who=$1
    shift
    env HOME="$WORK/$who" SHARE_CONFIG_DIR="$WORK/$who/config" XDG_DATA_HOME="$WORK/$who/data" "$@"
}
mkdir -p "$WORK/alice" "$WORK/bob" "$WORK/in"
json_field() { sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" | head -n 1; }
wait_for() { for _ in $(seq 300); do grep -q "$1" "$2" 2>/dev/null && return 0; sleep 0.05; done; return 1; }

echo "### 7. Resumption: a 1 GiB file cut at 50 %"
echo
head -c $((1 << 30)) /dev/urandom > "$WORK/big.bin"
SIZE=$((1 << 30))
HALF=$((SIZE / 2))

as bob "$SHARE" receive --port 0 --accept all --dir "$WORK/in" --json > "$WORK/receiver.log" 2>&1 &
PIDS+=($!)
wait_for '"listening"' "$WORK/receiver.log" || fail "the receiver did not start: $(cat "$WORK/receiver.log")"
PORT=$(json_field port < "$WORK/receiver.log")

mkfifo "$WORK/control"
"$PROXY" --to "127.0.0.1:$PORT" --listen 127.0.0.1:0 < "$WORK/control" > "$WORK/proxy.log" 2>&1 &
PIDS+=($!)
exec 3> "$WORK/control"
wait_for '"listening"' "$WORK/proxy.log" || fail "the proxy did not start: $(cat "$WORK/proxy.log")"
THROUGH="127.0.0.1:$(json_field port < "$WORK/proxy.log")"
# The proxy's total of bytes from senders so far.
upstream() {
    local before
    before=$(wc -l < "$WORK/proxy.log")
    echo stats >&3
    for _ in $(seq 100); do [ "$(wc -l < "$WORK/proxy.log")" -gt "$before" ] && break; sleep 0.02; done
    tail -n 1 "$WORK/proxy.log" | sed -n 's/.*"upstream":\([0-9]*\).*/\1/p' | head -n 1
}
plan_cut() { echo "plan conn=$1 dir=up cut=$HALF" >&3; sleep 0.2; }
check() { cmp -s "$WORK/big.bin" "$WORK/in/big.bin" || fail "$1: the received file differs"; rm -f "$WORK/in/big.bin"; }
send() { as alice "$SHARE" send "$WORK/big.bin" --to "$THROUGH" --json "$@"; }

# Clean (connection 0).
start=$(now)
send > "$WORK/clean.json" || fail "the clean transfer failed"
clean_s=$(elapsed "$start" "$(now)")
check clean
clean_wire=$(upstream)

# Cut at 50 %, then the same command again (connections 1 and 2).
plan_cut 1
start=$(now)
send --no-retry > "$WORK/cut.json" 2>/dev/null && fail "the cut transfer succeeded"
cut_s=$(elapsed "$start" "$(now)")
sleep 0.5
start=$(now)
send > "$WORK/again.json" || fail "the resumed transfer failed"
again_s=$(elapsed "$start" "$(now)")
check again
again_resumed=$(json_field resumedBytes < "$WORK/again.json")
after_again=$(upstream)
manual_wire=$((after_again - clean_wire))

# Cut at 50 % with the automatic reconnection (connections 3 and 4).
plan_cut 3
start=$(now)
send > "$WORK/auto.json" || fail "the automatically resumed transfer failed"
auto_s=$(elapsed "$start" "$(now)")
check automatic
auto_resumed=$(json_field resumedBytes < "$WORK/auto.json")
auto_attempts=$(json_field attempts < "$WORK/auto.json")
auto_wire=$(($(upstream) - after_again))

mb() { awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
row() { printf '| %-44s | %9s | %13s | %11s | %14s |\n' "$@"; }
row "run" "seconds" "MB on the wire" "MB resumed" "wire / clean"
row "---" "-------" "--------------" "----------" "------------"
row "clean" "$clean_s" "$(mb "$clean_wire")" "0" "1.00"
row "cut at 50 %, --no-retry: first run" "$cut_s" "" "" ""
row "  the same command again" "$again_s" "" "$(mb "$again_resumed")" ""
row "  both runs" "$(awk -v a="$cut_s" -v b="$again_s" 'BEGIN { printf "%.2f", a + b }')" "$(mb "$manual_wire")" "" "$(ratio "$manual_wire" "$clean_wire")"
row "cut at 50 %, reconnecting by itself ($auto_attempts connections)" "$auto_s" "$(mb "$auto_wire")" "$(mb "$auto_resumed")" "$(ratio "$auto_wire" "$clean_wire")"
echo
echo "Time of the resumed half beside the clean whole: $(ratio "$again_s" "$clean_s") x (ideal 0.5 plus the re-check of the"
echo "held half: the receiver reads it back and hashes it, the sender hashes its own copy). The automatic run"
echo "includes the 1 s pause before the first reconnection. Wire bytes are counted by the proxy."
echo

echo "### 8. Resumption: from a link coming back to data flowing"
echo
if [ "$(id -u)" != 0 ] || ! missing=$("$LAN" check 2>&1); then
    echo "Skipped: the simulated LAN cannot run here (${missing:-not root})."
    exit 0
fi
"$LAN" up a b > /dev/null
LAN_UP=1
head -c $((400 << 20)) "$WORK/big.bin" > "$WORK/medium.bin"
rm -f "$WORK/big.bin"
"$LAN" rate a 400mbit > /dev/null
"$LAN" tcp-retries b 3
ADDRESS=$("$LAN" addr a)
as bob "$LAN" run a "$SHARE" receive --port 47321 --accept all --dir "$WORK/lan-in" --json > "$WORK/lan-receiver.log" 2>&1 &
PIDS+=($!)
wait_for '"listening"' "$WORK/lan-receiver.log" || fail "the receiver on host a did not start"
staged() { find "$WORK/bob/data/share/Inbox/.share-staging" -type f -name 'medium.bin' -printf '%s\n' 2>/dev/null | awk '{ s += $1 } END { print s + 0 }'; }
: > "$WORK/gaps"
for trial in $(seq "$TRIALS"); do
    as alice "$LAN" run b "$SHARE" send "$WORK/medium.bin" --to "$ADDRESS:47321" --json > "$WORK/lan-send.$trial.json" 2>&1 &
    sender=$!
    PIDS+=("$sender")
    for _ in $(seq 600); do [ "$(staged)" -gt $((100 << 20)) ] && break; sleep 0.02; done
    "$LAN" link a down
    sleep 3
    held=$(staged)
    "$LAN" link a up
    up=$(now)
    flowing=
    for _ in $(seq 3000); do
        if [ "$(staged)" -gt "$held" ]; then flowing=$(now); break; fi
        sleep 0.01
    done
    wait "$sender" || fail "trial $trial: the send failed: $(cat "$WORK/lan-send.$trial.json")"
    cmp -s "$WORK/medium.bin" "$WORK/lan-in/medium.bin" || fail "trial $trial: the received file differs"
    rm -f "$WORK/lan-in/medium.bin"
    [ -n "$flowing" ] && echo "$(elapsed "$up" "$flowing")" >> "$WORK/gaps"
done
sorted=$(sort -g "$WORK/gaps" | tr '\n' ' ')
median=$(sort -g "$WORK/gaps" | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "-" }')
echo "| trials | median seconds | all (sorted) |"
echo "| --- | --- | --- |"
echo "| $TRIALS | $median | $sorted |"
echo
echo "400 Mbit/s (tc tbf on host a's veth), a 400 MB file, the link down for 3 s once 100 MB arrived. The"
echo "sender notices the dead link (TCP gives up after 3 retries here), pauses 1 s, 2 s, 4 s ... (at most 15 s)"
echo "between tries, and its old connection's place on the receiver is taken over at once."
