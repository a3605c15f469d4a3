#!/usr/bin/env bash
# `make demo`: a receiver and a sender on this machine transfer a sample document bundle over
# mutually authenticated TLS 1.3, then show where it landed and that it arrived intact. The
# receiver has the ScaryBugs example application registered, so a bug document sent with the
# bundle is imported into its store.
set -euo pipefail
cd "$(dirname "$0")/.."
SHARE=${SHARE:-.build/release/share}
SCARYBUGS=$(dirname "$SHARE")/scarybugs
OUT=$PWD/demo-out
rm -rf "$OUT"
mkdir -p "$OUT/alice" "$OUT/bob" "$OUT/bob-inbox" "$OUT/alice-home" "$OUT/bob-home"
# Each side has a home of its own, so the demo never touches your inbox or registered applications.
export XDG_DATA_HOME= XDG_CONFIG_HOME=
alice() { HOME=$OUT/alice-home SHARE_CONFIG_DIR=$OUT/alice "$@"; }
bob() { HOME=$OUT/bob-home SHARE_CONFIG_DIR=$OUT/bob "$@"; }

# The sample bundle, with an empty folder (git cannot hold one) added for the demo.
cp -a "Examples/Documents/Field Notes.notebook" "$OUT/Field Notes.notebook"
mkdir -p "$OUT/Field Notes.notebook/Attachments"

echo "== Two identities: alice (sender) and bob (receiver)"
alice "$SHARE" identity set-name alice-laptop >/dev/null
bob "$SHARE" identity set-name bob-desk >/dev/null
alice "$SHARE" identity
bob "$SHARE" identity

echo
echo "== bob registers the ScaryBugs example application; alice makes a bug document"
bob "$SHARE" types register Examples/ScaryBugs/Info.plist
alice "$SCARYBUGS" new "Potato Bug" --rating 4 --in "$OUT" >/dev/null
alice "$SCARYBUGS" export "$OUT/Potato Bug" --to "$OUT"

echo
echo "== bob receives (any free port, accepts one transfer)"
bob "$SHARE" receive --port 0 --dir "$OUT/bob-inbox" --accept all --once \
    > "$OUT/receiver.out" 2> "$OUT/receiver.err" &
receiver=$!
trap 'kill $receiver 2>/dev/null || true' EXIT
for _ in $(seq 100); do grep -q "on port" "$OUT/receiver.out" 2>/dev/null && break; sleep 0.1; done
cat "$OUT/receiver.out"
port=$(sed -n 's/.* on port \([0-9]*\) .*/\1/p' "$OUT/receiver.out")

echo
echo "== alice sends the bundle and the bug to 127.0.0.1:$port"
alice "$SHARE" send "$OUT/Field Notes.notebook" "$OUT/Potato Bug.sbz" --to "127.0.0.1:$port"
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

echo
echo "== The bug, imported into ScaryBugs' store"
bob "$SCARYBUGS" list
