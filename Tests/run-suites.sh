#!/usr/bin/env bash
# `make test`'s test run: every suite of the built test bundle, in two processes at once.
#
# Most suites run one test at a time (many block a thread while real processes and sockets work,
# and on a 2-core machine parallel suites would starve the cooperative pool). The suites between
# simulated hosts (ShareNetworkTests, and MultiHostDiscoveryTests and ChoosingReceiversTests of the
# discovery and command-line targets) spend their time waiting for daemons, announcements and
# deadlines, each on namespaces of its own prefix: they run in a second process beside the others,
# also one test at a time, which takes their ~4.5 minutes off the wall clock. Both processes' output
# is shown, the second one's after the first ends; the run fails when either does.
#
# Usage: Tests/run-suites.sh [SWIFT]   (after `swift build --build-tests`)
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${1:-swift}
BUNDLE=$("$SWIFT" build --show-bin-path)/sharePackageTests.xctest
[ -x "$BUNDLE" ] || { echo "run-suites: $BUNDLE is missing (run 'swift build --build-tests')" >&2; exit 1; }
HOSTS_SUITES="ShareNetworkTests|MultiHostDiscoveryTests|ChoosingReceiversTests"

log=$(mktemp "${TMPDIR:-/tmp}/share-network-tests.XXXXXX")
trap 'rm -f "$log"' EXIT
started=$SECONDS
"$BUNDLE" --testing-library swift-testing --no-parallel --filter "$HOSTS_SUITES" > "$log" 2>&1 &
hosts=$!

status=0
"$SWIFT" test --skip-build --no-parallel --skip "$HOSTS_SUITES" || status=$?
echo "== run-suites: the other suites took $((SECONDS - started)) s; waiting for the suites between hosts"
hosts_status=0
wait "$hosts" || hosts_status=$?
echo "== run-suites: the suites between hosts (run beside them, $((SECONDS - started)) s in all):"
cat "$log"
[ "$status" = 0 ] && [ "$hosts_status" = 0 ]
