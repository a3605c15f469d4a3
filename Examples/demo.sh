#!/usr/bin/env bash
# `make demo`: two simulated LAN hosts (network namespaces, each with its own D-Bus and
# avahi-daemon, see Tests/Hosts/lan.sh). bob's machine runs `share receive`; alice's machine
# finds it with `share peers` and sends a sample document bundle to it by name over mutually
# authenticated TLS 1.3; then the demo shows where it landed and that it arrived intact. bob
# has the ScaryBugs example application registered, so a bug document sent with the bundle is
# imported into its store. Without root (namespaces need it), the same runs on this machine's
# loopback, by address (with SHARE_REQUIRE_NETNS=1, as under CI, it fails instead).
set -euo pipefail
cd "$(dirname "$0")/.."
SHARE=${SHARE:-$PWD/.build/release/share}
SCARYBUGS=$(dirname "$SHARE")/scarybugs
LAN=$PWD/Tests/Hosts/lan.sh
OUT=$PWD/demo-out
export SHARE_LAN_PREFIX=shdemo
rm -rf "$OUT"
mkdir -p "$OUT/alice" "$OUT/bob/Downloads"

# The sample bundle, with an empty folder (git cannot hold one) added for the demo.
cp -a "Examples/Documents/Field Notes.notebook" "$OUT/Field Notes.notebook"
mkdir -p "$OUT/Field Notes.notebook/Attachments"

# Each side has a home of its own, so the demo never touches your inbox or registered applications.
as_alice() { env HOME="$OUT/alice" SHARE_CONFIG_DIR="$OUT/alice/config" XDG_DATA_HOME= XDG_CONFIG_HOME= "$@"; }
as_bob() {
    env HOME="$OUT/bob" SHARE_CONFIG_DIR="$OUT/bob/config" XDG_DATA_HOME= XDG_CONFIG_HOME= \
        XDG_DOWNLOAD_DIR="$OUT/bob/Downloads" "$@"
}

if [ "$(id -u)" = 0 ] && "$LAN" check >/dev/null 2>&1; then
    on_alice() { as_alice "$LAN" run laptop "$@"; }
    on_bob() { as_bob "$LAN" run desk "$@"; }
    echo "== Two simulated hosts on one LAN: 'laptop' (alice) and 'desk' (bob)"
    "$LAN" up laptop desk
    trap '"$LAN" down >/dev/null 2>&1 || true' EXIT
    TARGET=bob-desk
elif [ "${SHARE_REQUIRE_NETNS:-}" = 1 ]; then
    echo "Error: SHARE_REQUIRE_NETNS=1, but the simulated hosts cannot be made here (needs root and network namespaces): $("$LAN" check 2>&1 || true)" >&2
    exit 1
else
    on_alice() { as_alice "$@"; }
    on_bob() { as_bob "$@"; }
    echo "== (Not root, or no network namespaces here: running on this machine's loopback instead.)"
    TARGET=
fi

on_alice "$SHARE" identity set-name alice-laptop >/dev/null
on_bob "$SHARE" identity set-name bob-desk >/dev/null
on_alice "$SHARE" identity
on_bob "$SHARE" identity

echo
echo "== bob registers the ScaryBugs example application; alice makes a bug document"
as_bob "$SHARE" types register Examples/ScaryBugs/Info.plist
as_alice "$SCARYBUGS" new "Potato Bug" --rating 4 --in "$OUT" >/dev/null
as_alice "$SCARYBUGS" export "$OUT/Potato Bug" --to "$OUT"

echo
echo "== bob: share receive --accept all --once"
on_bob "$SHARE" receive --accept all --once > "$OUT/receiver.out" 2> "$OUT/receiver.err" &
receiver=$!
trap 'kill $receiver 2>/dev/null || true; "$LAN" down >/dev/null 2>&1 || true' EXIT
for _ in $(seq 100); do grep -q "on port" "$OUT/receiver.out" 2>/dev/null && break; sleep 0.1; done
if [ -n "$TARGET" ]; then
    for _ in $(seq 100); do grep -q "Visible nearby" "$OUT/receiver.out" 2>/dev/null && break; sleep 0.1; done
fi
cat "$OUT/receiver.out"

if [ -n "$TARGET" ]; then
    echo
    echo "== alice: share peers"
    on_alice "$SHARE" peers
else
    port=$(sed -n 's/.* on port \([0-9]*\) .*/\1/p' "$OUT/receiver.out")
    TARGET=127.0.0.1:$port
fi

echo
echo "== alice: share send \"Field Notes.notebook\" \"Potato Bug.sbz\" --to $TARGET"
on_alice "$SHARE" send "$OUT/Field Notes.notebook" "$OUT/Potato Bug.sbz" --to "$TARGET"
wait $receiver

echo
echo "== What bob's receiver printed"
cat "$OUT/receiver.out"

echo
echo "== Verification: the landed bundle against the original"
landed="$OUT/bob/Downloads/Field Notes.notebook"
(cd "$OUT/Field Notes.notebook" && find . -type f -print0 | sort -z | xargs -0 sha256sum) > "$OUT/original.sha256"
(cd "$landed" && sha256sum -c "$OUT/original.sha256")
diff -r --no-dereference "$OUT/Field Notes.notebook" "$landed" && echo "Identical: contents, empty folder and link."
[ -d "$landed/Attachments" ] && echo "Empty folder kept: Attachments/"
echo "Link kept: latest.md -> $(readlink "$landed/latest.md")"

echo
echo "== The bug, imported into ScaryBugs' store"
as_bob "$SCARYBUGS" list
