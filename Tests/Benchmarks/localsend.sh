#!/usr/bin/env bash
# LocalSend for `make bench` (docs/PERFORMANCE.md §12): `share send` to a LocalSend receiver
# (localsendd, PyPI, from `make localsendd`) against localsendd sending to the same receiver, between
# two simulated hosts (Tests/Hosts/lan.sh; veth, no rate limit), for one 1 GiB file and a folder of
# 1,000 files of 4 KiB. localsendd's receiver writes every file and checks its SHA-256; share hashes
# each file before its prepare-upload.
#
# Seconds run from the start of the send until it exits (for localsendd: `localsendctl send --wait`).
# Median of ROUNDS (default 3), the two senders interleaved. share's peak RSS from /usr/bin/time -v.
# Prints markdown; needs root (without it, prints why it was skipped). Fails only when a transfer fails
# or delivers wrong bytes.
#
# Environment: SHARE (default .build/release/share), ROUNDS, LOCALSEND_MIB (default 1024).
# Not measured yet: localsendd sending to share (share receive --localsend does not exist yet).
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
ROUNDS=${ROUNDS:-3}
LOCALSEND_MIB=${LOCALSEND_MIB:-1024}
LAN=$PWD/Tests/Hosts/lan.sh
LSD=$PWD/.build/localsendd
export SHARE_LAN_PREFIX=shbls${SHARE_LAN_TAG:+${SHARE_LAN_TAG:0:4}} SHARE_LAN_OWNER=$$

echo "### 12. LocalSend: share and localsendd sending to localsendd (simulated hosts, no rate limit)"
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

"$LAN" up sender receiver >/dev/null
RECEIVER_IP=$("$LAN" addr receiver)
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

mkdir -p "$WORK/src/folder" "$WORK/share"
head -c $((LOCALSEND_MIB << 20)) /dev/urandom > "$WORK/src/big.bin"
for i in $(seq -w 1 1000); do head -c 4096 /dev/urandom > "$WORK/src/folder/f$i.bin"; done

clear_received() { rm -rf "$WORK/receiver/Downloads" && mkdir -p "$WORK/receiver/Downloads"; }
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
# localsendd_send WHAT...: seconds.
localsendd_send() {
    local started ended
    clear_received
    started=$(now)
    env HOME="$WORK/sender" PYTHONPATH="$LSD" /usr/bin/python3 -m localsendd.cli --socket "$WORK/sender/control.sock" \
        send "$@" --to "$RECEIVER_IP" --wait --quiet > "$WORK/lsd.out" 2>&1 || fail "localsendd send failed: $(cat "$WORK/lsd.out")"
    ended=$(now)
    awk -v a="$started" -v b="$ended" 'BEGIN { printf "%.3f\n", b - a }'
}
check_file() { cmp -s "$WORK/src/big.bin" "$WORK/receiver/Downloads/big.bin" || fail "the 1 GiB file arrived changed"; }
check_folder() {
    local count
    count=$(find "$WORK/receiver/Downloads" -type f | wc -l)
    [ "$count" = 1000 ] || fail "$count of 1000 files arrived"
}

: > "$WORK/file.share"; : > "$WORK/file.lsd"; : > "$WORK/tree.share"; : > "$WORK/tree.lsd"
for _ in $(seq "$ROUNDS"); do
    share_send "$WORK/src/big.bin" >> "$WORK/file.share"; check_file
    localsendd_send "$WORK/src/big.bin" >> "$WORK/file.lsd"; check_file
    share_send "$WORK/src/folder" >> "$WORK/tree.share"; check_folder
    localsendd_send "$WORK/src/folder"/*.bin >> "$WORK/tree.lsd"; check_folder
done

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
echo "Aim: share at least as fast as localsendd (1.00x or more), peak RSS under 64 MiB. Median of $ROUNDS rounds."
