#!/usr/bin/env bash
# LocalSend for `make bench` (docs/PERFORMANCE.md §12), between simulated hosts (Tests/Hosts/lan.sh;
# veth, no rate limit), for one 1 GiB file and a folder of 1,000 files of 4 KiB, both directions:
# - `share send` to a LocalSend receiver (localsendd, PyPI, from `make localsendd`) against localsendd
#   sending to the same receiver. localsendd's receiver writes every file and checks its SHA-256;
#   share hashes each file before its prepare-upload.
# - localsendd sending to `share receive --localsend --accept everyone` (on a third host) against
#   localsendd sending to localsendd. share's receiver commits each file into its receive folder.
#
# Seconds run from the start of the send until it exits (for localsendd: `localsendctl send --wait`).
# Median of ROUNDS (default 3), the senders interleaved. share's peak RSS from /usr/bin/time -v (for
# the receiver: its peak over all rounds).
# Prints markdown; needs root (without it, prints why it was skipped). Fails only when a transfer fails
# or delivers wrong bytes.
#
# Environment: SHARE (default .build/release/share), ROUNDS, LOCALSEND_MIB (default 1024).
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
ROUNDS=${ROUNDS:-3}
LOCALSEND_MIB=${LOCALSEND_MIB:-1024}
LAN=$PWD/Tests/Hosts/lan.sh
LSD=$PWD/.build/localsendd
export SHARE_LAN_PREFIX=shbls${SHARE_LAN_TAG:+${SHARE_LAN_TAG:0:4}} SHARE_LAN_OWNER=$$

echo "### 12. LocalSend: share and localsendd sending to each other (simulated hosts, no rate limit)"
echo
if ! missing=$("$LAN" check 2>&1); then
    echo "Skipped: the simulated LAN cannot run here ($missing)."
    exit 0
fi
if [ ! -f "$LSD/localsendd/__init__.py" ]; then
    echo "Skipped: localsendd is not installed (make localsendd)."
    exit 0
fi

. Tests/Benchmarks/lan-bench-support.sh
lan_bench_setup localsend

fail() { echo "localsend bench: $*" >&2; exit 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

"$LAN" up sender receiver sharerx >/dev/null
RECEIVER_IP=$("$LAN" addr receiver)
SHARERX_IP=$("$LAN" addr sharerx)
# localsendd on both hosts: the receiver accepts without a person; the sender's is driven by its CLI.
start_localsendd() { # host alias
    mkdir -p "$WORK/$1/Downloads"
    (env HOME="$WORK/$1" PYTHONPATH="$LSD" "$LAN" run "$1" /usr/bin/python3 -m localsendd --alias "$2" \
        --download-dir "$WORK/$1/Downloads" --socket "$WORK/$1/control.sock" --unattended --no-log-time \
        > "$WORK/$1.log" 2>&1) &
    RECEIVERS+=("$!")
    for _ in $(seq 100); do grep -q "fingerprint=" "$WORK/$1.log" 2>/dev/null && return; sleep 0.1; done
    fail "localsendd did not start on $1: $(cat "$WORK/$1.log")"
}
start_localsendd receiver "bench receiver"
start_localsendd sender "bench sender"
# share receiving for LocalSend senders on the third host, everything accepted without a person.
mkdir -p "$WORK/sharerx/Downloads"
env HOME="$WORK/sharerx" SHARE_CONFIG_DIR="$WORK/sharerx/config" XDG_DATA_HOME="$WORK/sharerx/data" \
    XDG_DOWNLOAD_DIR="$WORK/sharerx/Downloads" /usr/bin/time -v -o "$WORK/sharerx.time" "$LAN" run sharerx "$SHARE" \
    receive --localsend --accept everyone --port 0 --json > "$WORK/sharerx.log" 2> "$WORK/sharerx.err" &
TIME_PID=$!
RECEIVERS+=("$TIME_PID")
for _ in $(seq 100); do grep -q '"listening"' "$WORK/sharerx.log" 2>/dev/null && break; sleep 0.1; done
grep -q '"listening"' "$WORK/sharerx.log" || fail "share receive did not start: $(cat "$WORK/sharerx.err")"

mkdir -p "$WORK/src/folder" "$WORK/share"
head -c $((LOCALSEND_MIB << 20)) /dev/urandom > "$WORK/src/big.bin"
for i in $(seq -w 1 1000); do head -c 4096 /dev/urandom > "$WORK/src/folder/f$i.bin"; done

clear_received() {
    rm -rf "$WORK/receiver/Downloads" "$WORK/sharerx/Downloads" && mkdir -p "$WORK/receiver/Downloads" "$WORK/sharerx/Downloads"
}
# share_send WHAT...: seconds, then share's peak RSS in KiB, on one line.
share_send() {
    local started ended
    clear_received
    started=$(now)
    env HOME="$WORK/share" SHARE_CONFIG_DIR="$WORK/share/config" XDG_DATA_HOME="$WORK/share/data" \
        /usr/bin/time -v -o "$WORK/share.time" "$LAN" run sender "$SHARE" send "$@" --to "localsend://$RECEIVER_IP" \
        --no-retry > "$WORK/share.out" 2> "$WORK/share.err" || fail "share send failed: $(cat "$WORK/share.err")"
    ended=$(now)
    awk -v a="$started" -v b="$ended" -v r="$(peak_rss_kib "$WORK/share.time")" 'BEGIN { printf "%.3f %s\n", b - a, r }'
}
# localsendd_send TARGET WHAT...: seconds (TARGET: the receiver's address).
localsendd_send() {
    local started ended target=$1
    shift
    clear_received
    started=$(now)
    env HOME="$WORK/sender" PYTHONPATH="$LSD" /usr/bin/python3 -m localsendd.cli --socket "$WORK/sender/control.sock" \
        send "$@" --to "$target" --wait --quiet > "$WORK/lsd.out" 2>&1 || fail "localsendd send failed: $(cat "$WORK/lsd.out")"
    ended=$(now)
    awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f\n", b - a }'
}
check_file() { # [RECEIVER]
    cmp -s "$WORK/src/big.bin" "$WORK/${1:-receiver}/Downloads/big.bin" || fail "the 1 GiB file arrived changed"
}
check_folder() { # [RECEIVER]
    local count
    count=$(find "$WORK/${1:-receiver}/Downloads" -type f | wc -l)
    [ "$count" = 1000 ] || fail "$count of 1000 files arrived"
}

: > "$WORK/file.share"; : > "$WORK/file.lsd"; : > "$WORK/tree.share"; : > "$WORK/tree.lsd"
: > "$WORK/file.rx"; : > "$WORK/tree.rx"
for _ in $(seq "$ROUNDS"); do
    share_send "$WORK/src/big.bin" >> "$WORK/file.share"; check_file
    localsendd_send "$RECEIVER_IP" "$WORK/src/big.bin" >> "$WORK/file.lsd"; check_file
    localsendd_send "$SHARERX_IP" "$WORK/src/big.bin" >> "$WORK/file.rx"; check_file sharerx
    share_send "$WORK/src/folder" >> "$WORK/tree.share"; check_folder
    localsendd_send "$RECEIVER_IP" "$WORK/src/folder"/*.bin >> "$WORK/tree.lsd"; check_folder
    localsendd_send "$SHARERX_IP" "$WORK/src/folder"/*.bin >> "$WORK/tree.rx"; check_folder sharerx
done
# share receive is the child of /usr/bin/time (lan.sh execs into it): stopped so time reports its peak.
kill -TERM "$(pgrep -P "$TIME_PID")" 2>/dev/null || true
wait "$TIME_PID" 2>/dev/null || true
RX_RSS=$(peak_rss_kib "$WORK/sharerx.time")

row() { # label share-file lsd-file
    local share lsd rss
    share=$(cut -d' ' -f1 "$2" | median)
    rss=$(cut -d' ' -f2 "$2" | sort -n | tail -1)
    lsd=$(median < "$3")
    printf '| %s | %s s | %s s | %.2fx | %s MiB |\n' "$1" "$share" "$lsd" "$(awk -v a="$share" -v b="$lsd" 'BEGIN { print b / a }')" \
        "$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')"
}
echo "| workload | share -> localsendd | localsendd -> localsendd | share speed vs localsendd | share peak RSS |"
echo "|---|---:|---:|---:|---:|"
row "$LOCALSEND_MIB MiB file" "$WORK/file.share" "$WORK/file.lsd"
row "1,000 files of 4 KiB" "$WORK/tree.share" "$WORK/tree.lsd"
echo
rxrow() { # label rx-file lsd-file
    local rx lsd
    rx=$(median < "$2")
    lsd=$(median < "$3")
    printf '| %s | %s s | %s s | %.2fx |\n' "$1" "$rx" "$lsd" "$(awk -v a="$rx" -v b="$lsd" 'BEGIN { print b / a }')"
}
echo "| workload | localsendd -> share | localsendd -> localsendd | share speed vs localsendd |"
echo "|---|---:|---:|---:|"
rxrow "$LOCALSEND_MIB MiB file" "$WORK/file.rx" "$WORK/file.lsd"
rxrow "1,000 files of 4 KiB" "$WORK/tree.rx" "$WORK/tree.lsd"
echo
echo "share receive --localsend peak RSS over all rounds: $(awk -v k="$RX_RSS" 'BEGIN { printf "%.0f", k / 1024 }') MiB."
echo
echo "Aim: share at least as fast as localsendd (1.00x or more) on either side, peak RSS under 64 MiB. Median of $ROUNDS rounds."
