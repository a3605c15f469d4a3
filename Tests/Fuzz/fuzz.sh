#!/usr/bin/env bash
# Runs the libFuzzer targets of Tests/Fuzz; `make fuzz` and `make fuzz-smoke` build them and call this.
#
#   Tests/Fuzz/fuzz.sh BIN_DIR WORK_DIR SECONDS TARGET...
#
# For each target, first replays its corpus (Tests/Fuzz/Corpus/TARGET: every input once, a
# regression test), then fuzzes for SECONDS. The repository corpus is only read: new inputs go to
# WORK_DIR/TARGET/corpus, crashes to WORK_DIR/TARGET/crashes, the log to WORK_DIR/TARGET/log.
# Stops at the first crash, prints the report, where the input is and how to reproduce it, and
# exits 1. SECONDS=0 only replays.
set -euo pipefail

bin_dir=$1 work=$2 seconds=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)

# With Swift's backtracer on, a crash under AddressSanitizer hangs instead of being reported.
export SWIFT_BACKTRACE=enable=no

report_crash() { # target log
    local target=$1 log=$2 input
    echo "FAIL $target: see $log" >&2
    grep -E "invariant broken|Fatal error|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|SUMMARY" "$log" | head -5 >&2 || true
    input=$(grep -o "Test unit written to .*" "$log" | tail -1 | sed 's/Test unit written to //') || true
    if [ -n "$input" ]; then
        echo "  crashing input: $input" >&2
        echo "  reproduce:      SWIFT_BACKTRACE=enable=no $bin_dir/$target $input" >&2
        echo "  keep it:        fix the bug, add a regression test, and copy it to Tests/Fuzz/Corpus/$target/" >&2
    fi
}

for target in "$@"; do
    binary=$bin_dir/$target
    corpus=$here/Corpus/$target
    dir=$work/$target
    mkdir -p "$dir/corpus" "$dir/crashes"
    dict=()
    if [ -f "$here/Dictionaries/$target.dict" ]; then dict=(-dict="$here/Dictionaries/$target.dict"); fi
    common=(-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$dir/crashes/" -print_final_stats=1)

    if ! "$binary" "${common[@]}" -runs=0 "$corpus" >"$dir/replay.log" 2>&1; then
        echo "The corpus of $target no longer passes (a regression):" >&2
        report_crash "$target" "$dir/replay.log"
        exit 1
    fi
    seeds=$(find "$corpus" -type f | wc -l)
    if [ "$seconds" = 0 ]; then
        echo "$target: replayed $seeds corpus inputs, no crash"
        continue
    fi

    if ! "$binary" "${common[@]}" "${dict[@]}" -max_total_time="$seconds" "$dir/corpus" "$corpus" >"$dir/log" 2>&1; then
        report_crash "$target" "$dir/log"
        exit 1
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log")
    coverage=$(grep -oE "cov: [0-9]+ ft: [0-9]+" "$dir/log" | tail -1)
    found=$(find "$dir/corpus" -type f | wc -l)
    echo "$target: replayed $seeds corpus inputs; fuzzed ${seconds} s: $runs runs ($rate/s), $coverage," \
        "$found inputs in $dir/corpus, no crash"
done
