#!/usr/bin/env bash
# `make bench`, part 6: typing files with `share types resolve` against `gio info` (GLib, the
# reference implementation of shared-mime-info), on the same files, in the same run.
#
#   1. 1,000 files resolved in one call: `share types resolve --mime FILES` against
#      `gio info -a standard::content-type FILES` (wall time, median of ROUNDS; aim: within 2x)
#   2. one file: `share types resolve FILE` (median of SINGLE_RUNS; aim: under 10 ms) with the
#      user's type registry snapshot in place (warm: read in place) and without it (cold: the
#      registry is merged from mime.cache and the snapshot written), next to `share --version`
#      (the cost of starting the process at all) and one `gio info FILE`
#   3. agreement: the MIME type share gives each file of a corpus of at least 1,000 files built
#      now from /usr/share and /usr/lib, against gio's. Every disagreement is printed with the rule
#      of docs/TYPES.md that explains it; one no rule explains is marked UNEXPLAINED.
#
# Both tools see the same XDG directories (a scratch XDG_DATA_HOME, so no registered application
# changes share's answers; the system's shared-mime-info) and read local files only
# (GIO_USE_VFS=local). A benchmark, not a test: missed aims are reported, not failed; it fails only
# when a tool fails to run.
#
# Environment: SHARE (default .build/release/share; `make bench` gives the static build), ROUNDS (default 5), SINGLE_RUNS (default 20),
# CORPUS_PER_EXTENSION (default 4: files kept per file extension), CORPUS_SIZE (default 2000),
# BENCH_DIR (scratch parent, default ./bench-out).
set -euo pipefail
cd "$(dirname "$0")/../.."

SHARE=${SHARE:-$PWD/.build/release/share}
ROUNDS=${ROUNDS:-5}
SINGLE_RUNS=${SINGLE_RUNS:-20}
CORPUS_PER_EXTENSION=${CORPUS_PER_EXTENSION:-4}
CORPUS_SIZE=${CORPUS_SIZE:-2000}
BENCH_DIR=${BENCH_DIR:-$PWD/bench-out}

for tool in gio find sort awk; do
    command -v "$tool" >/dev/null || { echo "bench: '$tool' is missing (run 'make bench', which installs libglib2.0-bin)" >&2; exit 1; }
done
[ -x "$SHARE" ] || { echo "bench: $SHARE is missing (run 'make release')" >&2; exit 1; }

mkdir -p "$BENCH_DIR"
WORK=$(mktemp -d "$BENCH_DIR/types.XXXXXX")
cleanup() {
    local status=$?
    rm -rf "$WORK"
    rmdir "$BENCH_DIR" 2>/dev/null || true
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export HOME=$WORK/home XDG_DATA_HOME=$WORK/home/.local/share XDG_CONFIG_HOME=$WORK/home/.config GIO_USE_VFS=local
export XDG_CACHE_HOME=$WORK/home/.cache
unset XDG_DATA_DIRS
SNAPSHOT=$XDG_CACHE_HOME/share/type-registry.snapshot
mkdir -p "$XDG_DATA_HOME" "$XDG_CONFIG_HOME"

now() { echo "${EPOCHREALTIME/,/.}"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f", b - a }'; }
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
ms() { awk -v s="$1" 'BEGIN { printf "%.1f", s * 1000 }'; }
verdict() { if [ "$1" = 1 ]; then echo "met"; else echo "MISSED"; fi; }

# ---------------------------------------------------------------------------------------------
# The corpus: regular files of /usr/share and /usr/lib (one filesystem, readable, names without
# control characters), in byte order; up to CORPUS_PER_EXTENSION of each extension (so every kind
# of file counts, not only the thousands of .mo or .gz files), then every n-th other file until
# CORPUS_SIZE. The first 1,000 are the timed set.

echo "bench: building the type corpus from /usr/share and /usr/lib" >&2
find /usr/share /usr/lib -xdev -type f -readable 2>/dev/null | LC_ALL=C grep -v '[[:cntrl:]]' | LC_ALL=C sort > "$WORK/all"
ALL_FILES=$(wc -l < "$WORK/all")
awk -F/ -v per="$CORPUS_PER_EXTENSION" '{
        name = $NF; ext = "(none)"
        if (match(name, /\.[^.]+$/)) ext = tolower(substr(name, RSTART))
        if (seen[ext]++ < per) print
    }' "$WORK/all" > "$WORK/by-extension"
missing=$((CORPUS_SIZE - $(wc -l < "$WORK/by-extension")))
if [ "$missing" -gt 0 ]; then
    step=$(( ALL_FILES / missing > 1 ? ALL_FILES / missing : 1 ))
    awk -v step="$step" 'NR % step == 0' "$WORK/all" | LC_ALL=C comm -23 - "$WORK/by-extension" | head -n "$missing" > "$WORK/fill"
else
    : > "$WORK/fill"
fi
LC_ALL=C sort "$WORK/by-extension" "$WORK/fill" > "$WORK/corpus"
CORPUS=$(wc -l < "$WORK/corpus")
[ "$CORPUS" -ge 1000 ] || { echo "bench: only $CORPUS files found for the type corpus" >&2; exit 1; }
EXTENSIONS=$(awk -F/ '{ n = $NF; e = "(none)"; if (match(n, /\.[^.]+$/)) e = tolower(substr(n, RSTART)); print e }' "$WORK/corpus" | sort -u | wc -l)
head -n 1000 "$WORK/corpus" > "$WORK/timed"
mapfile -t TIMED < "$WORK/timed"
mapfile -t FILES < "$WORK/corpus"

# ---------------------------------------------------------------------------------------------
# 1. 1,000 files in one call.

echo "bench: timing 1,000 files in one call, $ROUNDS rounds" >&2
"$SHARE" types resolve --mime "${TIMED[@]}" > /dev/null       # warm the page cache for both
gio info -a standard::content-type "${TIMED[@]}" > /dev/null
: > "$WORK/many"
for round in $(seq "$ROUNDS"); do
    t0=$(now); "$SHARE" types resolve --mime "${TIMED[@]}" > "$WORK/share-many.out"; t1=$(now)
    gio info -a standard::content-type "${TIMED[@]}" > "$WORK/gio-many.out"; t2=$(now)
    echo "$(elapsed "$t0" "$t1") $(elapsed "$t1" "$t2")" >> "$WORK/many"
done
[ "$(wc -l < "$WORK/share-many.out")" = 1000 ] || { echo "bench: share did not type the 1,000 files" >&2; exit 1; }
SHARE_MANY=$(awk '{ print $1 }' "$WORK/many" | median)
GIO_MANY=$(awk '{ print $2 }' "$WORK/many" | median)
MANY_RATIO=$(awk -v a="$SHARE_MANY" -v b="$GIO_MANY" 'BEGIN { printf "%.2f", a / b }')

# ---------------------------------------------------------------------------------------------
# 2. One file.

echo "bench: timing one file, $SINGLE_RUNS runs" >&2
ONE=${TIMED[0]}
: > "$WORK/one"
for run in $(seq "$SINGLE_RUNS"); do
    rm -f "$SNAPSHOT"
    t0=$(now); "$SHARE" types resolve "$ONE" > /dev/null; t1=$(now)
    [ -s "$SNAPSHOT" ] || { echo "bench: share wrote no type registry snapshot ($SNAPSHOT)" >&2; exit 1; }
    "$SHARE" types resolve "$ONE" > /dev/null; t2=$(now)
    "$SHARE" --version > /dev/null; t3=$(now)
    gio info -a standard::content-type "$ONE" > /dev/null; t4=$(now)
    echo "$(elapsed "$t1" "$t2") $(elapsed "$t2" "$t3") $(elapsed "$t3" "$t4") $(elapsed "$t0" "$t1")" >> "$WORK/one"
done
SHARE_ONE=$(awk '{ print $1 }' "$WORK/one" | median)
SHARE_START=$(awk '{ print $2 }' "$WORK/one" | median)
GIO_ONE=$(awk '{ print $3 }' "$WORK/one" | median)
SHARE_COLD=$(awk '{ print $4 }' "$WORK/one" | median)
ONE_RATIO=$(awk -v a="$SHARE_ONE" -v b="$GIO_ONE" 'BEGIN { printf "%.2f", a / b }')
SHARE_WORK=$(awk -v a="$SHARE_ONE" -v b="$SHARE_START" 'BEGIN { d = a - b; if (d < 0) d = 0; printf "%.4f", d }')

# ---------------------------------------------------------------------------------------------
# 3. Agreement over the corpus, in chunks (one call each, well under the argument limit).

echo "bench: comparing $CORPUS files with gio" >&2
: > "$WORK/share.tsv"
: > "$WORK/gio.tsv"
for start in $(seq 0 500 $((CORPUS - 1))); do
    chunk=("${FILES[@]:start:500}")
    "$SHARE" types resolve --mime "${chunk[@]}" | sed 's/: \([^:]*\)$/\t\1/' >> "$WORK/share.tsv"
    gio info -a standard::content-type "${chunk[@]}" |
        awk '/^local path: / { p = substr($0, 13) } /standard::content-type: / { print p "\t" $2 }' >> "$WORK/gio.tsv"
done
LC_ALL=C sort -o "$WORK/share.tsv" "$WORK/share.tsv"
LC_ALL=C sort -o "$WORK/gio.tsv" "$WORK/gio.tsv"
LC_ALL=C join -t $'\t' "$WORK/gio.tsv" "$WORK/share.tsv" > "$WORK/both.tsv"
COMPARED=$(wc -l < "$WORK/both.tsv")
awk -F'\t' '$2 != $3' "$WORK/both.tsv" > "$WORK/differ.tsv"
DIFFER=$(wc -l < "$WORK/differ.tsv")
AGREE=$((COMPARED - DIFFER))
RATE=$(awk -v a="$AGREE" -v n="$COMPARED" 'BEGIN { printf "%.2f", 100 * a / n }')

# The rule of docs/TYPES.md §3 behind each disagreement, read from share's own account of it.
explain() {
    local file=$1 share_mime=$2 gio_mime=$3 trace
    trace=$("$SHARE" types resolve --explain "$file" 2>/dev/null || true)
    if [ ! -s "$file" ]; then
        echo "§3 rule 1 (an empty file is text/plain)"
    elif grep -q "the names conflict" <<< "$trace"; then
        echo "§3 rule 3 (conflicting names: the first the content is, else the first; GLib also lets magic of priority 80 or more win)"
    elif grep -q "matches the extension of" <<< "$trace"; then
        echo "§3 rule 2 (a declared extension is a glob of weight 50)"
    elif grep -q "one type matches the name" <<< "$trace" && [ "${share_mime%%/*}" = "${gio_mime%%/*}" ]; then
        echo "§3 rule 2 (one type for the name: its MIME type is the glob's)"
    else
        echo "UNEXPLAINED"
    fi
}

# ---------------------------------------------------------------------------------------------
# The table.

echo
echo "## share types resolve against gio info ($(nproc) cores, $(date -u '+%Y-%m-%d %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg))"
echo
printf '| %-44s | %10s | %10s | %-34s |\n' "measurement" "share" "gio" "aim"
printf '| %-44s | %10s | %10s | %-34s |\n' "-----------" "-----:" "---:" "---"
printf '| %-44s | %8s s | %8s s | %-34s |\n' "1,000 files in one call (median of $ROUNDS)" "$SHARE_MANY" "$GIO_MANY" \
    "within 2x: $MANY_RATIO x, $(verdict "$(awk -v r="$MANY_RATIO" 'BEGIN { print (r <= 2) }')")"
printf '| %-44s | %7s ms | %7s ms | %-34s |\n' "one file, snapshot in place (median of $SINGLE_RUNS)" "$(ms "$SHARE_ONE")" \
    "$(ms "$GIO_ONE")" "under 10 ms: $(verdict "$(awk -v s="$SHARE_ONE" 'BEGIN { print (s < 0.010) }')"), $ONE_RATIO x gio"
printf '| %-44s | %7s ms | %10s | %-34s |\n' "  of which starting share (share --version)" "$(ms "$SHARE_START")" "" ""
printf '| %-44s | %7s ms | %10s | %-34s |\n' "  of which loading types and resolving" "$(ms "$SHARE_WORK")" "" \
    "under 10 ms: $(verdict "$(awk -v s="$SHARE_WORK" 'BEGIN { print (s < 0.010) }')")"
printf '| %-44s | %7s ms | %10s | %-34s |\n' "one file, no snapshot (merged, then written)" "$(ms "$SHARE_COLD")" "" \
    "once after a source changes"
echo
echo "Agreement: share and gio give the same MIME type to $AGREE of $COMPARED files ($RATE %), a corpus of"
echo "$CORPUS regular files from /usr/share and /usr/lib ($EXTENSIONS extensions, up to $CORPUS_PER_EXTENSION files each,"
echo "then every n-th file of the $ALL_FILES there)."
if [ "$DIFFER" -gt 0 ]; then
    echo
    echo "| file | share | gio | explained by docs/TYPES.md |"
    echo "| ---- | ----- | --- | -------------------------- |"
    while IFS=$'\t' read -r file gio_mime share_mime; do
        echo "| $file | $share_mime | $gio_mime | $(explain "$file" "$share_mime" "$gio_mime") |"
    done < "$WORK/differ.tsv"
fi
echo
echo "Times are wall clock, each tool started afresh; the 1,000 files are the corpus's first, read from the"
echo "page cache by both. 'starting share' is the fixed cost of the process (loading and relocating the"
echo "executable, the Swift runtime and Foundation; OpenSSL, libarchive, Avahi and the other C libraries are"
echo "opened only by the commands that use them), which every share command pays. 'No snapshot': the user's type registry snapshot was"
echo "removed before the run, as after an update of shared-mime-info, a registration or a new share."
