#!/usr/bin/env bash
# Offers of many entries for `make bench` (docs/PERFORMANCE.md §10): a folder of 100,000 and one of 1,000,000
# entries (folders of 1,000 empty files, make-empty-tree.pl) sent as one bundle on loopback, with
# the peak RSS of the sender and the receiver (`/usr/bin/time -v`), against `tar -c | socat` to
# `socat | tar -x` of the same tree in the same run; and a folder of 1,000,001 entries, which the
# sender must refuse (the protocol's limit, docs/PROTOCOL.md §11) without walking on.
#
# The trees live on a tmpfs mounted for the run (as root; otherwise in BIG_OFFER_DIR, default
# $TMPDIR or /tmp) so the disk does not decide the times: what is measured is the cost of the
# entries (scan, offer, validation, creating them) and the memory it takes. (/dev/shm cannot serve:
# share refuses to receive into a system folder such as /dev.) Prints markdown. A benchmark, not a test: it fails only
# when a transfer fails or delivers an incomplete tree.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
SIZES=${BIG_OFFER_SIZES:-100000 1000000}
STEP_TIMEOUT=900
BIG_OFFER_DIR=${BIG_OFFER_DIR:-${TMPDIR:-/tmp}}

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }
fail() { echo "bench: $*" >&2; exit 1; }
note() { printf '%s\n' "$*" >&2; }
peak_rss_kib() { sed -n 's/.*Maximum resident set size (kbytes): *//p' "$1"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

WORK=$(mktemp -d "$BIG_OFFER_DIR/share-big-offer.XXXXXX")
MOUNTED=
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=16g,nr_inodes=0,mode=0700 share-big-offer "$WORK" 2>/dev/null; then MOUNTED=1; fi
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    if [ -n "$MOUNTED" ]; then umount "$WORK" && rmdir "$WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

as() {
    local who=$1
    shift
    env HOME="$WORK/$who" SHARE_CONFIG_DIR="$WORK/$who/config" XDG_DATA_HOME="$WORK/$who/data" "$@"
}
mkdir -p "$WORK/alice" "$WORK/bob"
as alice "$SHARE" identity >/dev/null
as bob "$SHARE" identity >/dev/null

# Entries counted by find (the tree's root included).
entries_in() { find "$1" | wc -l; }

# share: $1 tree, $2 result prefix. Prints "seconds sender_kib receiver_kib".
run_share() {
    local tree=$1 out=$2 port t0 t1 status=0
    mkdir -p "$out.in"
    as bob timeout $STEP_TIMEOUT /usr/bin/time -v -o "$out.receiver.time" \
        "$SHARE" receive --port 0 --dir "$out.in" --accept all --once --json > "$out.receiver.json" 2> "$out.receiver.err" &
    PIDS+=($!)
    local receiver=$!
    for _ in $(seq 500); do
        grep -q '"port"' "$out.receiver.json" 2>/dev/null && break
        sleep 0.02
    done
    port=$(sed -n 's/.*"event":"listening".*"port":\([0-9]*\).*/\1/p' "$out.receiver.json" | head -n 1)
    [ -n "$port" ] || fail "share receive did not start: $(cat "$out.receiver.err")"
    t0=$(now)
    as alice timeout $STEP_TIMEOUT /usr/bin/time -v -o "$out.sender.time" \
        "$SHARE" send "$tree" --to "127.0.0.1:$port" --json > "$out.sender.json" 2> "$out.sender.err" || status=$?
    t1=$(now)
    wait "$receiver" || true
    PIDS=()
    [ "$status" = 0 ] || fail "share send failed ($status): $(tail -c 2000 "$out.sender.err")"
    [ "$(entries_in "$out.in/$(basename "$tree")")" = "$(entries_in "$tree")" ] ||
        fail "share delivered an incomplete tree: $(tail -c 2000 "$out.receiver.err")"
    echo "$(elapsed "$t0" "$t1") $(peak_rss_kib "$out.sender.time") $(peak_rss_kib "$out.receiver.time")"
    rm -rf "$out.in"
}

# tar -c | socat to socat | tar -x: $1 tree, $2 result prefix. Prints "seconds sender_kib receiver_kib".
run_tar() {
    local tree=$1 out=$2 port t0 t1
    mkdir -p "$out.in"
    port=$((20000 + RANDOM % 20000))
    timeout $STEP_TIMEOUT /usr/bin/time -v -o "$out.receiver.time" \
        bash -c 'socat -u -b 262144 "TCP-LISTEN:$1,bind=127.0.0.1,reuseaddr" STDOUT | tar -x -C "$2"' _ "$port" "$out.in" \
        2> "$out.receiver.err" &
    PIDS+=($!)
    local receiver=$!
    for _ in $(seq 500); do
        ss -Htln "sport = :$port" | grep -q . && break
        sleep 0.02
    done
    t0=$(now)
    timeout $STEP_TIMEOUT /usr/bin/time -v -o "$out.sender.time" \
        bash -c 'tar -c -C "$1" "$2" | socat -u -b 262144 STDIN "TCP:127.0.0.1:$3"' _ "$(dirname "$tree")" "$(basename "$tree")" "$port" \
        2> "$out.sender.err" || fail "tar | socat failed: $(cat "$out.sender.err")"
    wait "$receiver" || fail "socat | tar -x failed: $(cat "$out.receiver.err")"
    PIDS=()
    sync -f "$out.in"
    t1=$(now)
    [ "$(entries_in "$out.in/$(basename "$tree")")" = "$(entries_in "$tree")" ] || fail "tar delivered an incomplete tree"
    echo "$(elapsed "$t0" "$t1") $(peak_rss_kib "$out.sender.time") $(peak_rss_kib "$out.receiver.time")"
    rm -rf "$out.in"
}

ROWS=()
REFUSAL=
for size in $SIZES; do
    tree=$WORK/src-$size/tree
    mkdir -p "$WORK/src-$size"
    note "bench: making a tree of $size entries in $WORK"
    perl Tests/Benchmarks/make-empty-tree.pl "$tree" "$size"
    read -r share_s share_out share_in < <(run_share "$tree" "$WORK/share-$size")
    read -r tar_s tar_out tar_in < <(run_tar "$tree" "$WORK/tar-$size")
    ROWS+=("$size $share_s $share_out $share_in $tar_s $tar_out $tar_in")
    if [ "$size" = 1000000 ]; then
        # One more entry than an offer may hold: the sender refuses before it connects.
        : > "$tree/one-too-many.txt"
        t0=$(now)
        status=0
        as alice /usr/bin/time -v -o "$WORK/refused.time" "$SHARE" send "$tree" --to 127.0.0.1:9 \
            > /dev/null 2> "$WORK/refused.err" || status=$?
        t1=$(now)
        [ "$status" = 1 ] && grep -q "more than 1,000,000 files, folders and links" "$WORK/refused.err" ||
            fail "1,000,001 entries were not refused as expected ($status): $(cat "$WORK/refused.err")"
        REFUSAL="$(elapsed "$t0" "$t1") $(peak_rss_kib "$WORK/refused.time")"
    fi
    rm -rf "$WORK/src-$size"
done

echo "### 10. Offers of many entries: folders of 1,000 empty files on tmpfs, sent as one bundle"
echo
printf '| %-9s | %-13s | %-10s | %-18s | %-20s | %-22s |\n' "entries" "share (s)" "tar (s)" "share / tar time" \
    "share RSS send / recv" "tar RSS send / recv"
printf '| %-9s | %-13s | %-10s | %-18s | %-20s | %-22s |\n' "-------:" "--------:" "------:" "---------------:" \
    "--------------------" "----------------------"
for row in "${ROWS[@]}"; do
    read -r size share_s share_out share_in tar_s tar_out tar_in <<< "$row"
    printf '| %9s | %13s | %10s | %18s | %-20s | %-22s |\n' "$size" "$share_s" "$tar_s" \
        "$(awk -v a="$share_s" -v b="$tar_s" 'BEGIN { printf "%.2f x", a / b }')" \
        "$(mib "$share_out") / $(mib "$share_in") MiB" "$(mib "$tar_out") / $(mib "$tar_in") MiB"
done
if [ "${#ROWS[@]}" -ge 2 ]; then
    read -r small _ small_out small_in _ <<< "${ROWS[0]}"
    read -r large _ large_out large_in _ <<< "${ROWS[-1]}"
    echo
    echo "Memory per entry between the two sizes (peak RSS difference / entries difference): sender" \
        "$(awk -v a="$small_out" -v b="$large_out" -v n="$small" -v m="$large" 'BEGIN { printf "%.0f", (b - a) * 1024 / (m - n) }') bytes," \
        "receiver $(awk -v a="$small_in" -v b="$large_in" -v n="$small" -v m="$large" 'BEGIN { printf "%.0f", (b - a) * 1024 / (m - n) }') bytes."
fi
if [ -n "$REFUSAL" ]; then
    read -r refused_s refused_kib <<< "$REFUSAL"
    echo "1,000,001 entries: 'share send' refused the folder in $refused_s s at a peak of $(mib "$refused_kib") MiB (exit 1, \"more than 1,000,000 files, folders and links\")."
fi
echo
echo "share: from starting 'share send' until it exits after the receiver's durable commit; tar: until"
echo "'tar -x' exits and 'sync -f' returns. Trees on $(stat -f -c %T "$WORK") ($WORK)."
