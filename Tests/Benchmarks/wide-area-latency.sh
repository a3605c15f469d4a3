#!/usr/bin/env bash
# Wide-area discovery latency for `make bench`: on two routed subnets (Tests/Hosts/lan.sh up-routed:
# a router between them runs BIND with docs/wide-area/named.conf), the time from starting
# `share receive --domain office.example` on subnet 1 until `share peers --watch` on subnet 2 (where
# multicast DNS never reaches) lists it, over TRIALS trials (default 10). The watcher asks DNS every
# 0.2 s (wideArea.watchSeconds), so up to 0.2 s of each number is the poll. The receiver's own
# "published" event (its DNS update answered) is measured in the same trials as the reference.
# Prints a markdown section. Needs root; without it, prints why it was skipped.
set -euo pipefail
cd "$(dirname "$0")/../.."
SHARE=${SHARE:-$PWD/.build/release/share}
TRIALS=${TRIALS:-10}
LAN=$PWD/Tests/Hosts/lan.sh
export SHARE_LAN_PREFIX=shbenchwan SHARE_LAN_OWNER=$$

echo "### 5. Wide-area discovery latency: 'share receive --domain' on one subnet until 'share peers' on another lists it"
echo
if ! missing=$("$LAN" check-routed 2>&1); then
    echo "Skipped: routed subnets cannot run here ($missing)."
    exit 0
fi

. Tests/Benchmarks/latency-support.sh
latency_setup wide-area

"$LAN" up-routed a / b >/dev/null
mkdir -p "$WORK/alice/config" "$WORK/bob/config"
install -m 600 "$("$LAN" named-dir)/share-team.key" "$WORK/alice/share-team.key"
echo '{"wideArea": {"watchSeconds": 0.2}}' > "$WORK/bob/config/settings.json"

start_watcher

: > "$WORK/seen"
: > "$WORK/published"
for trial in $(seq "$TRIALS"); do
    name="bench-$trial"
    started=$(now)
    (env HOME="$WORK/alice" SHARE_CONFIG_DIR="$WORK/alice/config" XDG_DATA_HOME="$WORK/alice/data" \
        "$LAN" run a "$SHARE" receive --name "$name" --port 0 --accept all --dir "$WORK/alice/in" --json \
        --domain office.example --dns-key "$WORK/alice/share-team.key" 2>&1 |
        while IFS= read -r line; do printf "%s %s\n" "$(now)" "$line"; done > "$WORK/receiver.$trial.log") &
    RECEIVER=$!
    seen=
    for _ in $(seq 500); do
        seen=$(awk -v n="\"name\":\"$name\"" '/"event":"appeared"/ && index($0, n) { print $1; exit }' "$WORK/watch.log")
        [ -n "$seen" ] && break
        sleep 0.01
    done
    [ -n "$seen" ] || { echo "bench: trial $trial: $name was not listed within 5 s" >&2; exit 1; }
    published=$(awk '/"event":"published"/ && /"domain":"office.example"/ { print $1; exit }' "$WORK/receiver.$trial.log")
    awk -v a="$started" -v b="$seen" 'BEGIN { printf "%.3f\n", b - a }' >> "$WORK/seen"
    awk -v a="$started" -v b="$published" 'BEGIN { printf "%.3f\n", b - a }' >> "$WORK/published"
    # SIGTERM the receiver itself (it withdraws its entry), then wait until b saw it go.
    # (lan.sh execs its way down to share, which is the pipeline's first process, a child of RECEIVER.)
    for pid in $(pgrep -P "$RECEIVER" -x share); do kill -TERM "$pid" 2>/dev/null || true; done
    wait "$RECEIVER" 2>/dev/null || true
    RECEIVER=
    for _ in $(seq 500); do
        grep -q "\"event\":\"disappeared\",\"name\":\"$name\"" "$WORK/watch.log" && break
        sleep 0.01
    done
done

read -r s_median s_p95 s_fast s_slow < <(latency_stats "$WORK/seen")
read -r p_median p_p95 p_fast p_slow < <(latency_stats "$WORK/published")
ratio=$(awk -v a="$s_median" -v b="$p_median" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }')
met=$(awk -v m="$s_median" 'BEGIN { print (m < 1.0) ? "met" : "MISSED" }')

printf '| %-44s | %-21s | %-21s |\n' "trials: $(wc -l < "$WORK/seen")" "in DNS (receiver)" "listed on subnet 2"
printf '| %-44s | %-21s | %-21s |\n' "--------------------------------------------" "---------------------" "---------------------"
printf '| %-44s | %-21s | %-21s |\n' "median (s)" "$p_median" "$s_median"
printf '| %-44s | %-21s | %-21s |\n' "p95 (s)" "$p_p95" "$s_p95"
printf '| %-44s | %-21s | %-21s |\n' "fastest / slowest (s)" "$p_fast / $p_slow" "$s_fast / $s_slow"
printf '| %-44s | %-21s | %-21s |\n' "listed / in DNS (medians)" "" "$ratio x"
printf '| %-44s | %-21s | %-21s |\n' "aim: listed on the other subnet within 1 s" "" "$met"
echo
echo "From starting the receiver process to its 'published' event for office.example (the signed UPDATE"
echo "answered by BIND) and to the 'appeared' line of 'share peers --watch --json' on the other subnet,"
echo "which asks DNS every 0.2 s. No multicast crosses the router: the second column is DNS only."
