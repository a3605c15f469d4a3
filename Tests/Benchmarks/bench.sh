#!/usr/bin/env bash
# `make bench`: share against plain tools on loopback, measured in one run on this machine.
#
#   1. one 1 GiB file and one 512 MiB file:  share  |  openssl s_client -> s_server (TLS 1.3)  |  tar | socat
#      (1 GiB only); and each side's CPU per GiB against the least work it must do (SHA-256 and
#      AES-256-GCM by `openssl speed`, a plain read or write of the same bytes through the page
#      cache by `dd`), with each side's busiest thread (thread-cpu.py, from /proc/PID/task/*/stat)
#   2. a tree of 10,000 files of 1-16 KiB (one bundle):  share  |  tar | socat
#   2b. commit under other programs' writes: a 6-byte file and the tree, quiet and while another
#       process has DIRTY_MIB (default 3072) of unwritten data on the same filesystem
#   3. peak RSS and CPU time of the share sender and receiver in every share run
#   4. discovery latency between two simulated LAN hosts (discovery-latency.sh; needs root)
#   5. wide-area discovery latency between two routed subnets through BIND (wide-area-latency.sh; needs root)
#   6. typing files: `share types resolve` against `gio info` (types.sh)
#   7. resumption: a 1 GiB file cut at 50 % and resumed, and a link coming back (resume.sh)
#   9. compression: zstd against --no-compress at 100 Mbit/s, 1 Gbit/s, unlimited (simulated hosts, tc tbf)
#      and on loopback, for source code, text/JSON/logs and incompressible media (compression.sh; needs root)
#  10. offers of 100,000 and 1,000,000 entries: peak RSS of sender and receiver against tar | socat,
#      and 1,000,001 entries refused (big-offer.sh; a tmpfs when run as root)
#  11. one sender to 1 and 3 receivers, and 16 senders into one receiver, on simulated hosts behind
#      200 Mbit/s links (fanout.sh; needs root)
#  12. LocalSend: share and localsendd sending a 1 GiB file and 1,000 small files to each other
#      on simulated hosts (localsend.sh; needs root and `make localsendd`)
#
# share makes what it received durable (one syncfs, or while other programs have much unwritten
# data an fsync of each file and folder it wrote) before it reports success; the references do not.
# Each reference is timed twice in the same run: when its receiving side exits ("as-is") and after
# a following `sync -f` (syncfs of the receiving filesystem, as share does) returns ("durable").
# Ratios use the durable time. Every measurement runs ROUNDS times (default 5) into fresh folders,
# and the table shows the median. Round order is interleaved so slow phases of a shared disk hit
# every tool alike.
#
# A benchmark, not a test: missed aims are reported, not failed. It fails only when a transfer
# fails or delivers wrong bytes.
#
# Environment: SHARE (the binary, named share for the thread counts; default .build/release/share), ROUNDS (default 5),
# BENCH_DIR (parent of the scratch folder, default ./bench-out; it is deleted at the end),
# DIRTY_MIB (unwritten data of the "busy disk" rows, default 3072; at most a quarter of the free
# memory, so it stays dirty instead of being throttled), CASES (which of 1, 2 and 2b to run, default
# "1 2 2b"; with 2b alone the quiet tree is still compared with tar), ONLY_LOOPBACK=1 (skips the
# scripts of 4-11 that follow), BENCH_LOG (a file, relative to the repository, to which everything
# printed on stdout is also appended, the tables of the scripts of 4-11 included; default
# Tests/Benchmarks/results/YYYY-MM-DD-bench.txt with today's UTC date; empty: none).
set -euo pipefail
cd "$(dirname "$0")/../.."

SHARE=${SHARE:-$PWD/.build/release/share}
ROUNDS=${ROUNDS:-5}
BENCH_DIR=${BENCH_DIR:-$PWD/bench-out}
BIG_BYTES=$((1 << 30))
HALF_BYTES=$((1 << 29))
THREADS=$PWD/Tests/Benchmarks/thread-cpu.py
TREE_FILES=10000
STEP_TIMEOUT=300            # seconds any one transfer may take before it is ended
SOCAT_BUFFER=262144         # socat -b: 256 KiB reads and writes instead of its 8 KiB default
DIRTY_MIB=${DIRTY_MIB:-3072}
CASES=" ${CASES:-1 2 2b} "
has_case() { [[ $CASES == *" $1 "* ]]; }
AVAILABLE_MIB=$(awk '/^MemAvailable:/ { print int($2 / 1024) }' /proc/meminfo)
[ "$DIRTY_MIB" -le $((AVAILABLE_MIB / 4)) ] || DIRTY_MIB=$((AVAILABLE_MIB / 4))

for tool in openssl socat tar perl ss sync cmp dd python3 /usr/bin/time timeout; do
    command -v "$tool" >/dev/null || { echo "bench: '$tool' is missing (run 'make deps')" >&2; exit 1; }
done
[ -x "$SHARE" ] || { echo "bench: $SHARE is missing (run 'make release')" >&2; exit 1; }
SHARE=$(cd "$(dirname "$SHARE")" && pwd)/$(basename "$SHARE")

# stdout (the tables) also goes to BENCH_LOG, appended; progress notes stay on stderr.
BENCH_LOG=${BENCH_LOG-Tests/Benchmarks/results/$(date -u +%F)-bench.txt}
if [ -n "$BENCH_LOG" ]; then
    mkdir -p "$(dirname "$BENCH_LOG")"
    exec > >(tee -a "$BENCH_LOG")
fi

mkdir -p "$BENCH_DIR"
WORK=$(mktemp -d "$BENCH_DIR/run.XXXXXX")
# The receiving side and the sending side running now, each a `timeout` (which ends its whole
# process group when it is ended), or empty. Cleared as soon as they have been waited for, so no
# reused pid is ever signalled. Both run in the background and are waited for with `wait`, so an
# INT or TERM to this script is handled at once instead of after the transfer.
SERVER_PID=
CLIENT_PID=
# The writer of the "busy disk" rows while it runs (dd), likewise.
DIRTY_PID=

cleanup() {
    local status=$?
    for pid in $CLIENT_PID $SERVER_PID $DIRTY_PID; do kill "$pid" 2>/dev/null || true; done
    for pid in $CLIENT_PID $SERVER_PID $DIRTY_PID; do wait "$pid" 2>/dev/null || true; done
    rm -f "$WORK/dirty.bin"    # dropping the file drops its unwritten pages
    if [ -n "${KEEP_WORK:-}" ]; then
        echo "bench: kept $WORK" >&2
    else
        rm -rf "$WORK"
        rmdir "$BENCH_DIR" 2>/dev/null || true
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() { echo "bench: $*" >&2; exit 1; }

# Runs a sending command in the background and waits for it; returns its exit status.
run_client() {
    "$@" 0<&0 &    # keep the caller's stdin (without a redirection, `&` would give it /dev/null)
    CLIENT_PID=$!
    local status=0
    wait "$CLIENT_PID" || status=$?
    CLIENT_PID=
    return "$status"
}
now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
note() { printf '%s\n' "$*" >&2; }

# A TCP port nobody listens on, from a range outside the usual ephemeral ports' start.
free_port() {
    local port
    for _ in $(seq 200); do
        port=$((20000 + RANDOM % 20000))
        [ -z "$(ss -Htln "sport = :$port")" ] && { echo "$port"; return; }
    done
    fail "no free TCP port found"
}

# Waits until something listens on 127.0.0.1:$1 (the server was started by us as pid $2).
wait_listening() {
    for _ in $(seq 200); do
        ss -Htln "sport = :$1" | grep -q . && return 0
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.02
    done
    return 1
}

# "Maximum resident set size (kbytes)" from a `/usr/bin/time -v` report.
peak_rss_kib() { sed -n 's/.*Maximum resident set size (kbytes): *//p' "$1"; }

# User + system CPU seconds from a `/usr/bin/time -v` report.
cpu_seconds() {
    awk -F': *' '/User time \(seconds\)|System time \(seconds\)/ { t += $2 } END { printf "%.2f", t }' "$1"
}

sum_file_sizes() { find "$1" -type f -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }'; }

# Another program's unwritten data on the benchmark's filesystem: dd writes DIRTY_MIB into the
# page cache and exits; the pages stay dirty while the kernel writes them back (~10 s at this
# disk's speed). `drop_dirty` deletes the file, which drops what is still unwritten.
make_dirty() {
    dd if=/dev/zero of="$WORK/dirty.bin" bs=1M count="$DIRTY_MIB" status=none &
    DIRTY_PID=$!
    wait "$DIRTY_PID" || fail "could not write the dirty data"
    DIRTY_PID=
}
drop_dirty() { rm -f "$WORK/dirty.bin"; }
dirty_mib() { awk '/^Dirty:/ { printf "%d", $2 / 1024 }' /proc/meminfo; }

# ---------------------------------------------------------------------------------------------
# Inputs, made once per run.

SRC=$WORK/src
mkdir -p "$SRC/file" "$SRC/small" "$WORK/id-sender" "$WORK/id-receiver" "$WORK/tls"
note "bench: scratch folder $WORK"
note "bench: making the inputs (1 GiB file, $TREE_FILES-file tree, TLS key)"
# Deterministic, incompressible bytes: AES-128-CTR of zeros under a fixed key.
if has_case 1; then
    head -c "$BIG_BYTES" /dev/zero |
        openssl enc -aes-128-ctr -nosalt -K 000102030405060708090a0b0c0d0e0f -iv 0 > "$SRC/file/big.bin" 2>/dev/null
    [ "$(stat -c %s "$SRC/file/big.bin")" = "$BIG_BYTES" ] || fail "could not make the 1 GiB input"
    mkdir -p "$SRC/half"
    head -c "$HALF_BYTES" "$SRC/file/big.bin" > "$SRC/half/half.bin"
fi
TREE_BYTES=$(perl Tests/Benchmarks/make-tree.pl "$SRC/tree" "$TREE_FILES")
printf 'hello\n' > "$SRC/small/hello.txt"
[ "$(find "$SRC/tree" -type f | wc -l)" = "$TREE_FILES" ] || fail "could not make the tree"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 1 -subj /CN=bench \
    -keyout "$WORK/tls/key.pem" -out "$WORK/tls/cert.pem" 2>/dev/null
mkfifo "$WORK/tls/stdin"    # s_server's stdin: opened read-write, it never reaches end of file
SHARE_CONFIG_DIR=$WORK/id-sender "$SHARE" identity >/dev/null      # first use makes the keys
SHARE_CONFIG_DIR=$WORK/id-receiver "$SHARE" identity >/dev/null

# Results: one line per measurement in $WORK/results: workload tool round seconds durable extra...
RESULTS=$WORK/results
: > "$RESULTS"
SENDER_FAILURES=0

# ---------------------------------------------------------------------------------------------
# One transfer of each kind. $1 workload (file|tree|small), $2 round number; for share, $3 quiet
# (default) or dirty (another program's unwritten data on the same filesystem, made just before).

run_share() {
    local workload=$1 round=$2 mode=${3:-quiet} input dest log rtime stime slog port t0 t1 expected_files expected_bytes
    local tool=share dirty=0
    [ "$mode" = dirty ] && tool=share-dirty
    dest=$WORK/r$round/$tool-$workload
    mkdir -p "$dest"
    log=$WORK/r$round/$tool-$workload.receiver.json
    rtime=$WORK/r$round/$tool-$workload.receiver.time
    stime=$WORK/r$round/$tool-$workload.sender.time
    slog=$WORK/r$round/$tool-$workload.sender.json
    if [ "$workload" = file ]; then
        input=$SRC/file/big.bin expected_files=1 expected_bytes=$BIG_BYTES
    elif [ "$workload" = half ]; then
        input=$SRC/half/half.bin expected_files=1 expected_bytes=$HALF_BYTES
    elif [ "$workload" = small ]; then
        input=$SRC/small/hello.txt expected_files=1 expected_bytes=6
    else
        input=$SRC/tree expected_files=$TREE_FILES expected_bytes=$TREE_BYTES
    fi
    sync
    # Each thread's CPU (thread-cpu.py), for the large files.
    local watch=()
    [ "$workload" = file ] || [ "$workload" = half ] && watch=(python3 "$THREADS" "$rtime.threads" share --)
    SHARE_CONFIG_DIR=$WORK/id-receiver "${watch[@]}" timeout $STEP_TIMEOUT /usr/bin/time -v -o "$rtime" \
        "$SHARE" receive --port 0 --dir "$dest" --accept all --once --json > "$log" 2> "$log.err" &
    SERVER_PID=$!
    for _ in $(seq 500); do
        grep -q '"port"' "$log" 2>/dev/null && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.02
    done
    port=$(sed -n 's/.*"event":"listening".*"port":\([0-9]*\).*/\1/p' "$log" | head -n 1)
    [ -n "$port" ] || fail "share receive did not start: $(cat "$log" "$log.err")"
    [ "$mode" = dirty ] && make_dirty
    dirty=$(dirty_mib)
    t0=$(now)
    local sender_status=0
    # The sender's threads are watched from beside it, so its start is not delayed (large files only).
    SHARE_CONFIG_DIR=$WORK/id-sender timeout $STEP_TIMEOUT /usr/bin/time -v -o "$stime" \
        "$SHARE" send "$input" --to "127.0.0.1:$port" --json > "$slog" 2> "$slog.err" &
    CLIENT_PID=$!
    local sampler=
    if [ "$workload" = file ] || [ "$workload" = half ]; then
        python3 "$THREADS" "$stime.threads" share --attach "$CLIENT_PID" &
        sampler=$!
    fi
    wait "$CLIENT_PID" || sender_status=$?
    CLIENT_PID=
    [ -n "$sampler" ] && wait "$sampler"
    t1=$(now)
    wait "$SERVER_PID" || true
    SERVER_PID=
    [ "$mode" = dirty ] && drop_dirty
    grep -q '"event":"received"' "$log" ||
        fail "share $workload round $round: nothing received: $(cat "$log" "$log.err" "$slog" "$slog.err")"
    # The data must be there whatever the sender said.
    local got_files got_bytes
    got_files=$(find "$dest" -type f | wc -l)
    got_bytes=$(sum_file_sizes "$dest")
    [ "$got_files" = "$expected_files" ] && [ "$got_bytes" = "$expected_bytes" ] ||
        fail "share $workload round $round: received $got_files files, $got_bytes bytes"
    if [ "$workload" = file ] || [ "$workload" = half ]; then
        cmp -s "$input" "$dest/$(basename "$input")" || fail "share $workload round $round: the received bytes differ"
    fi
    if [ "$sender_status" != 0 ] || ! grep -q '"ok":true' "$slog"; then
        SENDER_FAILURES=$((SENDER_FAILURES + 1))
        note "bench: share send reported a failure although the receiver committed everything: $(cat "$slog")"
    fi
    local seconds receiver_seconds
    seconds=$(elapsed "$t0" "$t1")
    # The receiver's own time, from accepting the offer until the RECEIPT (data, commit, import).
    receiver_seconds=$(sed -n 's/.*"event":"received".*"seconds":\([0-9.e-]*\).*/\1/p' "$log" | head -n 1)
    echo "$workload $tool $round $seconds $seconds $(peak_rss_kib "$stime") $(peak_rss_kib "$rtime")" \
        "$(cpu_seconds "$stime") $(cpu_seconds "$rtime") ${receiver_seconds:-0} $dirty" \
        "$(busiest "$stime.threads") $(busiest "$rtime.threads")" >> "$RESULTS"
}

# The busiest thread of a thread-cpu.py report: its CPU seconds and its name (0 - when none).
busiest() { awk '$3 != "process" { print $1, $3; found = 1; exit } END { if (!found) print 0, "-" }' "$1" 2>/dev/null || echo "0 -"; }

# CPU seconds (user + system) that a plain `dd` of the 1 GiB file costs: reading it through the page
# cache (to /dev/null), and reading and writing it (to a new file, without a sync); the write alone is
# their difference. The least work a side of any transfer of the file must do, with hashing and
# encryption (openssl speed, once per run). Also the write with O_DIRECT (`oflag=direct`, past the
# page cache, as share's receiver writes large files): the stricter reference for the receiver.
run_plain_io() {
    local round=$1 read_cpu copy_cpu direct_cpu
    cpu_of() { { /usr/bin/time -f '%U %S' "$@"; } 2>&1 | awk '{ print $1 + $2 }'; }
    less_read() { awk -v c="$1" -v r="$read_cpu" 'BEGIN { w = c - r; printf "%.2f", (w > 0 ? w : 0) }'; }
    sync
    read_cpu=$(cpu_of dd if="$SRC/file/big.bin" of=/dev/null bs=1M status=none)
    copy_cpu=$(cpu_of dd if="$SRC/file/big.bin" of="$WORK/r$round/plain.bin" bs=1M status=none)
    direct_cpu=$(cpu_of dd if="$SRC/file/big.bin" of="$WORK/r$round/plain-direct.bin" bs=1M oflag=direct status=none)
    echo "file plain $round $read_cpu $(less_read "$copy_cpu") $(less_read "$direct_cpu")" >> "$RESULTS"
    rm -f "$WORK/r$round/plain.bin" "$WORK/r$round/plain-direct.bin"
}

# Seconds per GiB that `openssl speed` takes for one algorithm (EVP name) over 1 MiB blocks.
speed_per_gib() {
    openssl speed -evp "$1" -bytes 1048576 -seconds 2 2>/dev/null |
        awk -v name="$2" '$1 == name { v = $NF; sub(/k$/, "", v); printf "%.3f", 1073741824 / (v * 1000) }'
}

# What one `syncfs` of the benchmark's filesystem waits for while another program has DIRTY_MIB
# unwritten: `sync -f` right after the dirty data was made (share committed this way before).
run_syncfs_dirty() {
    local round=$1 t0 t1 dirty
    sync
    make_dirty
    dirty=$(dirty_mib)
    t0=$(now)
    sync -f "$WORK"
    t1=$(now)
    drop_dirty
    echo "small syncfs-dirty $round $(elapsed "$t0" "$t1") $(elapsed "$t0" "$t1") 0 0 0 0 0 $dirty" >> "$RESULTS"
}

run_openssl() {
    local round=$1 workload=${2:-file} dest port t0 t1 t2 attempt input
    input=$SRC/file/big.bin
    [ "$workload" = half ] && input=$SRC/half/half.bin
    dest=$WORK/r$round/openssl-$workload
    mkdir -p "$dest"
    sync
    for attempt in 1 2 3; do
        port=$(free_port)
        timeout $STEP_TIMEOUT openssl s_server -accept "127.0.0.1:$port" -naccept 1 -tls1_3 -quiet \
            -key "$WORK/tls/key.pem" -cert "$WORK/tls/cert.pem" \
            0<> "$WORK/tls/stdin" > "$dest/big.bin" 2> "$dest.server.err" &
        SERVER_PID=$!
        wait_listening "$port" "$SERVER_PID" && break
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
        [ "$attempt" = 3 ] && fail "openssl s_server did not start: $(cat "$dest.server.err")"
    done
    t0=$(now)
    # -nocommands: a line of data starting with R, Q or k is data, not a command;
    # -no_ign_eof: end of the input ends the session (close_notify), which ends s_server.
    run_client timeout $STEP_TIMEOUT openssl s_client -connect "127.0.0.1:$port" -tls1_3 -quiet -no_ign_eof -nocommands \
        < "$input" > /dev/null 2> "$dest.client.err" || fail "openssl s_client failed: $(cat "$dest.client.err")"
    local server_status=0
    wait "$SERVER_PID" || server_status=$?
    SERVER_PID=
    [ "$server_status" = 0 ] || fail "openssl s_server failed: $(cat "$dest.server.err")"
    t1=$(now)
    sync -f "$dest/big.bin"
    t2=$(now)
    cmp -s "$input" "$dest/big.bin" || fail "openssl $workload round $round: the received bytes differ"
    echo "$workload openssl $round $(elapsed "$t0" "$t1") $(elapsed "$t0" "$t2")" >> "$RESULTS"
}

# $1 workload (file|small|tree), $2 round; $3 quiet (default) or dirty (as for run_share: the floor of
# the busy-disk rows, what another program's writeback costs a writer that syncs nothing); $4 how the
# durable time is made: fs (default, `sync -f`) or files (an fsync of every file and folder received,
# 16 at once: what any commit that syncs only its own files costs, with no protocol around it).
run_tar() {
    local workload=$1 round=$2 mode=${3:-quiet} way=${4:-fs} dest port t0 t1 t2 attempt source_dir name tool=tar
    [ "$way" = files ] && tool=tar-files
    [ "$mode" = dirty ] && tool=$tool-dirty
    dest=$WORK/r$round/$tool-$workload
    mkdir -p "$dest"
    case $workload in
        file) source_dir=$SRC/file name=big.bin ;;
        small) source_dir=$SRC/small name=hello.txt ;;
        *) source_dir=$SRC name=tree ;;
    esac
    sync
    for attempt in 1 2 3; do
        port=$(free_port)
        timeout $STEP_TIMEOUT bash -c 'socat -u -b "$1" "TCP-LISTEN:$2,bind=127.0.0.1,reuseaddr" STDOUT | tar -x -C "$3"' \
            _ "$SOCAT_BUFFER" "$port" "$dest" 2> "$dest.receiver.err" &
        SERVER_PID=$!
        wait_listening "$port" "$SERVER_PID" && break
        kill "$SERVER_PID" 2>/dev/null || true
        wait "$SERVER_PID" 2>/dev/null || true
        SERVER_PID=
        [ "$attempt" = 3 ] && fail "socat did not start: $(cat "$dest.receiver.err")"
    done
    [ "$mode" = dirty ] && make_dirty
    t0=$(now)
    run_client timeout $STEP_TIMEOUT bash -c 'tar -c -C "$1" "$2" | socat -u -b "$3" STDIN "TCP:127.0.0.1:$4"' \
        _ "$source_dir" "$name" "$SOCAT_BUFFER" "$port" 2> "$dest.sender.err" || fail "tar | socat failed: $(cat "$dest.sender.err")"
    local receiver_status=0
    wait "$SERVER_PID" || receiver_status=$?
    SERVER_PID=
    [ "$receiver_status" = 0 ] || fail "socat | tar -x failed: $(cat "$dest.receiver.err")"
    t1=$(now)
    if [ "$way" = files ]; then sync_each "$dest"; else sync -f "$dest"; fi
    t2=$(now)
    if [ "$workload" = file ] || [ "$workload" = small ]; then
        cmp -s "$source_dir/$name" "$dest/$name" || fail "tar $workload round $round: the received bytes differ"
    else
        [ "$(find "$dest/tree" -type f | wc -l)" = "$TREE_FILES" ] && [ "$(sum_file_sizes "$dest/tree")" = "$TREE_BYTES" ] ||
            fail "tar tree round $round: the received tree is incomplete"
    fi
    [ "$mode" = dirty ] && drop_dirty
    echo "$workload $tool $round $(elapsed "$t0" "$t1") $(elapsed "$t0" "$t2")" >> "$RESULTS"
}

# An fsync of every file and folder under $1, and of $1 itself: coreutils' `sync FILE...`, 16 at once.
sync_each() { find "$1" -print0 | xargs -0 -P 16 -n 640 sync --; }

# ---------------------------------------------------------------------------------------------
# The rounds.

LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
FREE_BEFORE=$(awk '/^MemFree:/ { printf "%.1f", $2 / 1048576 }' /proc/meminfo)
BENCH_STARTED=$(now)
if has_case 1; then
    note "bench: openssl speed (SHA-256, AES-256-GCM)"
    SHA256_PER_GIB=$(speed_per_gib sha256 sha256)
    CIPHER_PER_GIB=$(speed_per_gib aes-256-gcm AES-256-GCM)
    [ -n "$SHA256_PER_GIB" ] && [ -n "$CIPHER_PER_GIB" ] || fail "openssl speed printed no figures"
fi
for round in $(seq "$ROUNDS"); do
    mkdir -p "$WORK/r$round"
    note "bench: round $round of $ROUNDS"
    if has_case 1; then
        run_share file "$round"
        run_openssl "$round"
        run_tar file "$round"
        run_share half "$round"
        run_openssl "$round" half
        run_plain_io "$round"
    fi
    if has_case 2 || has_case 2b; then
        run_share tree "$round"
        run_tar tree "$round"
    fi
    if has_case 2b; then
        run_share small "$round"
        run_tar small "$round"
        run_share small "$round" dirty
        run_tar small "$round" dirty
        run_share tree "$round" dirty
        run_tar tree "$round" dirty
        run_tar tree "$round" quiet files
        run_tar tree "$round" dirty files
        run_syncfs_dirty "$round"
    fi
done
BENCH_SECONDS=$(elapsed "$BENCH_STARTED" "$(now)")
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

# ---------------------------------------------------------------------------------------------
# The table. Columns of $RESULTS: 1 workload, 2 tool, 3 round, 4 as-is seconds, 5 durable seconds,
# and for share 6/7 sender/receiver peak RSS (KiB), 8/9 sender/receiver CPU seconds.

values() { awk -v w="$1" -v t="$2" -v c="$3" '$1 == w && $2 == t { print $c }' "$RESULTS"; }
median() {
    values "$@" | sort -g |
        awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
maximum() { values "$@" | sort -g | tail -n 1; }
all_rounds() { values "$@" | awk '{ printf "%s%.2f", (NR > 1 ? " / " : ""), $1 }'; }
mbps() { awk -v b="$1" -v s="$2" 'BEGIN { printf "%.0f", b / 1e6 / s }'; }
per_second() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
verdict() { if [ "$1" = 1 ]; then echo "met"; else echo "MISSED"; fi; }

# One table row: label, workload, tool, column (4 as-is, 5 durable), durable?
file_row() {
    local seconds bytes=$BIG_BYTES
    [ "$2" = half ] && bytes=$HALF_BYTES
    seconds=$(median "$2" "$3" "$4")
    printf '| %-42s | %7s | %5s | %-7s | %-20s |\n' "$1" "$seconds" "$(mbps "$bytes" "$seconds")" "$5" \
        "$(all_rounds "$2" "$3" "$4")"
}
tree_row() {
    local seconds
    seconds=$(median "$2" "$3" "$4")
    printf '| %-42s | %7s | %7s | %5s | %-7s | %-20s |\n' "$1" "$seconds" "$(per_second "$TREE_FILES" "$seconds")" \
        "$(mbps "$TREE_BYTES" "$seconds")" "$5" "$(all_rounds "$2" "$3" "$4")"
}

echo
echo "## share benchmark: loopback, $(nproc) cores, median of $ROUNDS rounds ($(date -u '+%Y-%m-%d %H:%M UTC'))"
if has_case 1; then
echo
echo "### 1. One 1 GiB file ($BIG_BYTES bytes)"
echo
printf '| %-42s | %7s | %5s | %-7s | %-20s |\n' "path" "seconds" "MB/s" "durable" "each round (s)"
printf '| %-42s | %7s | %5s | %-7s | %-20s |\n' "----" "------:" "----:" "-------" "--------------"
file_row "share send -> share receive" file share 5 yes
file_row "openssl s_client -> s_server > file" file openssl 4 no
file_row "openssl s_client -> s_server > file; sync" file openssl 5 yes
file_row "tar+socat -> socat+tar -x" file tar 4 no
file_row "tar+socat -> socat+tar -x; sync" file tar 5 yes
file_row "share, 512 MiB file" half share 5 yes
file_row "openssl, 512 MiB file; sync" half openssl 5 yes
echo
echo "### 1b. CPU per GiB on each side, against the least work it must do (median of $ROUNDS rounds)"
echo
echo "The least work: SHA-256 ($SHA256_PER_GIB s/GiB) and AES-256-GCM ($CIPHER_PER_GIB s/GiB) by 'openssl speed' over 1 MiB"
echo "blocks, and 'dd bs=1M' of the 1 GiB file through the page cache: a read (sender) or a write (receiver;"
echo "a copy's CPU less the read's), each round beside the transfers (each round: $(all_rounds file plain 4) s read,"
echo "$(all_rounds file plain 5) s write). share's receiver writes large files past the page cache (O_DIRECT): the"
echo "'direct' row takes 'dd oflag=direct' as its write ($(all_rounds file plain 6) s). share's CPU and busiest thread"
echo "(thread-cpu.py) per GiB sent."
echo
plain_read=$(median file plain 4)
plain_write=$(median file plain 5)
plain_direct=$(median file plain 6)
cpu_row() {
    local label=$1 workload=$2 column=$3 busy_column=$4 io=$5 gib cpu least busiest name
    gib=$(awk -v b="$([ "$workload" = half ] && echo "$HALF_BYTES" || echo "$BIG_BYTES")" 'BEGIN { print b / 1073741824 }')
    cpu=$(awk -v c="$(median "$workload" share "$column")" -v g="$gib" 'BEGIN { printf "%.2f", c / g }')
    least=$(awk -v a="$SHA256_PER_GIB" -v b="$CIPHER_PER_GIB" -v c="$io" 'BEGIN { printf "%.2f", a + b + c }')
    busiest=$(awk -v c="$(median "$workload" share "$busy_column")" -v g="$gib" 'BEGIN { printf "%.2f", c / g }')
    name=$(values "$workload" share $((busy_column + 1)) | sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
    printf '| %-26s | %9s | %9s | %6s | %-22s | %-22s |\n' "$label" "$cpu" "$least" "$(ratio "$cpu" "$least")x" \
        "$busiest ($name)" "$(values "$workload" share "$column" | awk -v g="$gib" '{ printf "%s%.2f", (NR > 1 ? " / " : ""), $1 / g }')"
}
printf '| %-26s | %9s | %9s | %6s | %-22s | %-22s |\n' "side" "CPU s/GiB" "least" "ratio" "busiest thread s/GiB" "each round (s/GiB)"
printf '| %-26s | %9s | %9s | %6s | %-22s | %-22s |\n' "----" "--------:" "----:" "----:" "--------------------" "------------------"
cpu_row "sender, 1 GiB" file 8 12 "$plain_read"
cpu_row "receiver, 1 GiB" file 9 14 "$plain_write"
cpu_row "receiver, 1 GiB: direct" file 9 14 "$plain_direct"
cpu_row "sender, 512 MiB" half 8 12 "$plain_read"
cpu_row "receiver, 512 MiB" half 9 14 "$plain_write"
fi
if has_case 2 || has_case 2b; then
echo
echo "### 2. A tree of $TREE_FILES files of 1-16 KiB ($(awk -v b="$TREE_BYTES" 'BEGIN { printf "%.1f", b / 1e6 }') MB) in 100 folders, sent as one bundle"
echo
printf '| %-42s | %7s | %7s | %5s | %-7s | %-20s |\n' "path" "seconds" "files/s" "MB/s" "durable" "each round (s)"
printf '| %-42s | %7s | %7s | %5s | %-7s | %-20s |\n' "----" "------:" "------:" "----:" "-------" "--------------"
tree_row "share send -> share receive" tree share 5 yes
tree_row "tar+socat -> socat+tar -x" tree tar 4 no
tree_row "tar+socat -> socat+tar -x; sync" tree tar 5 yes
fi
if has_case 2b; then
echo
echo "### 2b. Commit while another program has unwritten data on the same filesystem"
echo
echo "Quiet, and right after another process (dd) wrote $DIRTY_MIB MiB without syncing it. MiB dirty when"
echo "the transfer started (median): busy $(median small share-dirty 11) for the small file, $(median tree share-dirty 11) for"
echo "the tree; quiet $(median small share 11) and $(median tree share 11) (other programs' writes; the receiver"
echo "syncs its own files from 64 MiB)."
echo
busy_row() {
    local quiet busy
    quiet=$(median "$2" "$3" "$5")
    busy=$(median "$2" "$4" "$5")
    printf '| %-44s | %9s | %9s | %6s | %-20s |\n' "$1" "$quiet" "$busy" "$(ratio "$busy" "$quiet")x" \
        "$(all_rounds "$2" "$4" "$5")"
}
printf '| %-44s | %9s | %9s | %6s | %-20s |\n' "measurement (median seconds)" "quiet" "busy disk" "ratio" "busy, each round (s)"
printf '| %-44s | %9s | %9s | %6s | %-20s |\n' "----" "----:" "--------:" "----:" "--------------------"
busy_row "share send, 6-byte file (until it exits)" small share share-dirty 5
busy_row "  receiver: offer accepted -> RECEIPT" small share share-dirty 10
busy_row "share send, 10k-file tree (until it exits)" tree share share-dirty 5
busy_row "  receiver: offer accepted -> RECEIPT" tree share share-dirty 10
busy_row "tar+socat, 6-byte file (no sync)" small tar tar-dirty 4
busy_row "tar+socat, tree (no sync)" tree tar tar-dirty 4
busy_row "tar+socat; sync -f, tree" tree tar tar-dirty 5
busy_row "tar+socat; fsync of each, tree" tree tar-files tar-files-dirty 5
printf '| %-44s | %9s | %9s | %6s | %-20s |\n' "sync -f of the filesystem (one syncfs)" "-" \
    "$(median small syncfs-dirty 5)" "" "$(all_rounds small syncfs-dirty 5)"
fi
echo
echo "### 3. share's peak RSS and CPU time (median of $ROUNDS rounds; RSS also the largest)"
echo
printf '| %-14s | %-20s | %-20s | %-14s | %-14s |\n' "transfer" "sender RSS (MiB)" "receiver RSS (MiB)" "sender CPU (s)" "receiver CPU (s)"
printf '| %-14s | %-20s | %-20s | %-14s | %-14s |\n' "--------" "----------------" "------------------" "--------------" "----------------"
for workload in $(has_case 1 && echo file half) $( (has_case 2 || has_case 2b) && echo tree); do
    case $workload in file) label="1 GiB file" ;; half) label="512 MiB file" ;; *) label="10k-file tree" ;; esac
    printf '| %-14s | %-20s | %-20s | %-14s | %-14s |\n' "$label" \
        "$(mib "$(median $workload share 6)") (largest $(mib "$(maximum $workload share 6)"))" \
        "$(mib "$(median $workload share 7)") (largest $(mib "$(maximum $workload share 7)"))" \
        "$(median $workload share 8)" "$(median $workload share 9)"
done
echo

file_ratio=0 half_ratio=0
if has_case 1; then
    file_ratio=$(ratio "$(median file openssl 5)" "$(median file share 5)")   # share MB/s / openssl MB/s
    half_ratio=$(ratio "$(median half openssl 5)" "$(median half share 5)")
fi
tree_ratio=$(ratio "$(median tree share 5)" "$(median tree tar 5)")       # share time / tar time
rss_max=$( (for w in file half tree; do maximum $w share 6; maximum $w share 7; done) | sort -g | tail -n 1)
aim_row() { printf '| %-50s | %-20s | %-6s |\n' "$@"; }
echo "### Aims (against the durable references)"
echo
aim_row "aim" "measured" "result"
aim_row "---" "--------" "------"
if has_case 1; then
aim_row "1 GiB: share MB/s >= 0.85 x (openssl; sync) MB/s" "$file_ratio x" \
    "$(verdict "$(awk -v r="$file_ratio" 'BEGIN { print (r >= 0.85) }')")"
aim_row "512 MiB: share MB/s >= 0.85 x (openssl; sync) MB/s" "$half_ratio x" \
    "$(verdict "$(awk -v r="$half_ratio" 'BEGIN { print (r >= 0.85) }')")"
for side in sender receiver; do
    column=8 busy=12 io=$plain_read
    [ $side = receiver ] && column=9 busy=14 io=$plain_write
    cpu=$(median file share $column)
    least=$(awk -v a="$SHA256_PER_GIB" -v b="$CIPHER_PER_GIB" -v c="$io" 'BEGIN { printf "%.2f", a + b + c }')
    cpu_ratio=$(ratio "$cpu" "$least")
    aim_row "1 GiB, $side: CPU <= 1.3 x the least work" "$cpu_ratio x" \
        "$(verdict "$(awk -v r="$cpu_ratio" 'BEGIN { print (r <= 1.3) }')")"
    thread=$(median file share $busy)
    # 0: thread-cpu.py found no process named share (SHARE must be a binary of that name).
    thread_verdict="not read"
    awk -v r="$thread" 'BEGIN { exit !(r > 0) }' &&
        thread_verdict=$(verdict "$(awk -v r="$thread" 'BEGIN { print (r <= 0.8) }')")
    aim_row "1 GiB, $side: busiest thread <= 0.8 CPU-s/GiB" "$thread s" "$thread_verdict"
done
fi
if has_case 2 || has_case 2b; then
aim_row "10k files: share time <= 1.2 x (tar+socat; sync)" "$tree_ratio x" \
    "$(verdict "$(awk -v r="$tree_ratio" 'BEGIN { print (r <= 1.2) }')")"
fi
aim_row "peak RSS < 64 MiB on each side" "largest $(mib "$rss_max") MiB" \
    "$(verdict "$(awk -v k="$rss_max" 'BEGIN { print (k < 65536) }')")"
if has_case 2b; then
small_busy=$(ratio "$(median small share-dirty 5)" "$(median small share 5)")
aim_row "6-byte file, busy disk <= 1.2 x quiet" "$small_busy x" \
    "$(verdict "$(awk -v r="$small_busy" 'BEGIN { print (r <= 1.2) }')")"
tree_own=$(ratio "$(median tree share-dirty 5)" "$(median tree tar-files-dirty 5)")
aim_row "10k files, busy disk <= 1.1 x (tar; fsync of each), busy" "$tree_own x" \
    "$(verdict "$(awk -v r="$tree_own" 'BEGIN { print (r <= 1.1) }')")"
tar_small_busy=$(ratio "$(median small tar-dirty 4)" "$(median small tar 4)")
tar_busy=$(ratio "$(median tree tar-dirty 4)" "$(median tree tar 4)")
own_files_busy=$(ratio "$(median tree tar-files-dirty 5)" "$(median tree tar 5)")
echo
echo "What the busy disk costs without share: tar with no sync at all took ${tar_small_busy}x (small file)"
echo "and ${tar_busy}x (tree) of its quiet time; tar followed by an fsync of each file and folder (syncing"
echo "only its own files, as share does on a busy disk) took ${own_files_busy}x of tar; sync -f on the quiet disk."
fi
echo
echo "Each time runs from starting the sending side until the receiving side is done; for share, until"
echo "'share send' exits after the receiver confirmed a durable commit (one syncfs, or on a busy disk an"
echo "fsync of each file and folder it wrote). '; sync' rows add a"
echo "following 'sync -f' (syncfs of the receiving filesystem) to the reference's time. MB/s = 10^6 bytes/s."
echo "socat runs with -b $SOCAT_BUFFER. Load average before / after: $LOAD_BEFORE / $LOAD_AFTER;"
echo "free memory before: $FREE_BEFORE GiB (the inputs and outputs add ~10 GiB of page cache)."
if awk -v l="${LOAD_BEFORE%% *}" -v n="$(nproc)" 'BEGIN { exit !(l > n / 2) }'; then
    echo "NOTE: the machine was busy when the benchmark started (load $LOAD_BEFORE on $(nproc) cores): share uses"
    echo "both cores on each side (4 busy threads on loopback), so it loses more than the references do."
fi
if [ "$SENDER_FAILURES" -gt 0 ]; then
    echo
    echo "WARNING: in $SENDER_FAILURES share run(s) 'share send' reported a failure although the receiver had"
    echo "committed every byte (checked above); the times are still those of complete, durable transfers."
fi
echo
echo "Whole benchmark: ${BENCH_SECONDS%.*} s."
echo
[ -n "${ONLY_LOOPBACK:-}" ] && exit 0
SHARE="$SHARE" Tests/Benchmarks/types.sh
echo
SHARE="$SHARE" Tests/Benchmarks/discovery-latency.sh
echo
SHARE="$SHARE" Tests/Benchmarks/wide-area-latency.sh
echo
SHARE="$SHARE" Tests/Benchmarks/resume.sh
echo
SHARE="$SHARE" Tests/Benchmarks/compression.sh
echo
SHARE="$SHARE" Tests/Benchmarks/big-offer.sh
echo
SHARE="$SHARE" Tests/Benchmarks/fanout.sh
echo
SHARE="$SHARE" Tests/Benchmarks/localsend.sh
