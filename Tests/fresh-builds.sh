#!/usr/bin/env bash
# What users build, as a fresh clone builds it (`make fresh-builds`, and the end of `make test`).
#
#   Tests/fresh-builds.sh build DIR   the release build and the static release (`make release`,
#                                     `make release-static`), each in an empty scratch folder in DIR
#   Tests/fresh-builds.sh check DIR   `make demo` on DIR's release build, `make install-files` of its
#                                     static one into DIR/root, and that the installed share runs
#
# A warm build folder hides failures: a whole-module release build reads the C modules in another
# order than an incremental debug one (docs/ARCHITECTURE.md, "C shims"). Each step prints how long
# it took. `make test` runs both after the test suites (`make fresh-builds`).
set -euo pipefail
cd "$(dirname "$0")/.."
SWIFT=${SWIFT:-swift}
MAKE=${MAKE:-make}
command=${1:?usage: Tests/fresh-builds.sh build|check DIR}
dir=${2:?usage: Tests/fresh-builds.sh build|check DIR}

step() {
    local started=$SECONDS
    echo "== fresh-builds: $1"
    shift
    "$@"
    echo "== fresh-builds: took $((SECONDS - started)) s"
}

case $command in
build)
    rm -rf "$dir"
    mkdir -p "$dir"
    step "swift build -c release (empty scratch folder)" \
        "$SWIFT" build -c release --scratch-path "$dir/release"
    step "swift build -c release --static-swift-stdlib (empty scratch folder)" \
        "$SWIFT" build -c release --static-swift-stdlib --disable-local-rpath --product share \
        --scratch-path "$dir/static"
    ;;
check)
    step "make demo" env SHARE="$dir/release/release/share" Examples/demo.sh
    rm -rf "$dir/root"
    step "make install-files DESTDIR=..." "$MAKE" --no-print-directory install-files \
        BUILD="$dir/static/release" DESTDIR="$dir/root"
    installed=$(find "$dir/root" -path '*/bin/share' -type f | head -n 1)
    "$installed" --version
    ;;
*)
    echo "usage: Tests/fresh-builds.sh build|check DIR" >&2
    exit 64
    ;;
esac
