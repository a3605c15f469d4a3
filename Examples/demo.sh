#!/usr/bin/env bash
# `make demo`: a receiver and a sender on this machine transfer a sample document bundle over
# mutually authenticated TLS 1.3, then show where it landed and that it arrived intact.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARE=${SHARE:-.build/release/share}
OUT=$PWD/demo-out
rm -rf "$OUT"
mkdir -p "$OUT/alice" "$OUT/bob" "$OUT/bob-inbox"

# The sample bundle, with an empty folder (git cannot hold one) added for the demo.
cp -a "Examples/Documents/Field Notes.notebook" "$OUT/Field Notes.notebook"
mkdir -p "$OUT/Field Notes.notebook/Attachments"

echo "== Two identities: alice (sender) and bob (receiver)"
SHARE_CONFIG_DIR=$OUT/alice "$SHARE" identity set-name alice-laptop >/dev/null
SHARE_CONFIG_DIR=$OUT/bob "$SHARE" identity set-name bob-desk >/dev/null
SHARE_CONFIG_DIR=$OUT/alice "$SHARE" identity
SHARE_CONFIG_DIR=$OUT/bob "$SHARE" identity

echo
echo "== bob receives (any free port, accepts one transfer)"
SHARE_CONFIG_DIR=$OUT/bob "$SHARE" receive --port 0 --dir "$OUT/bob-inbox" --accept all --once \
    > "$OUT/receiver.out" 2> "$OUT/receiver.err" &
receiver=$!
trap 'kill $receiver 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "on port" "$OUT/receiver.out" 2>/dev/null && break; sleep 0.1; done
cat "$OUT/receiver.out"
port=$(sed -n 's/.* on port \([0-9]*\) .*/\1/p' "$OUT/receiver.out")

echo
echo "== alice sends the bundle to 127.0.0.1:$port"
SHARE_CONFIG_DIR=$OUT/alice "$SHARE" send "$OUT/Field Notes.notebook" --to "127.0.0.1:$port"
wait $receiver
trap - EXIT

echo
echo "== What bob's receiver printed"
cat "$OUT/receiver.out"

echo
echo "== Verification: the landed bundle against the original"
landed="$OUT/bob-inbox/Field Notes.notebook"
(cd "$OUT/Field Notes.notebook" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$OUT/original.sha256"
(cd "$landed" && sha256sum -c "$OUT/original.sha256")
diff -r --no-dereference "$OUT/Field Notes.notebook" "$landed" && echo "Identical: contents, empty folder and link."
[ -d "$landed/Attachments" ] && echo "Empty folder kept: Attachments/"
echo "Link kept: latest.md -> $(readlink "$landed/latest.md")"
