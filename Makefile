# share: build, demo, test and benchmark. `make demo` and `make test` install what is missing.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Debian packages needed to build, test, demo and benchmark.
# libldns-dev: wide-area DNS-SD updates (RFC 2136 + TSIG); bind9 (named, tsig-keygen) and bind9-dnsutils
# (nsupdate): the DNS server of the routed-subnet tests and the bench. iproute2: ip (the simulated hosts) and
# tc (their link rates in the fault lab). libzstd-dev: zstd-compressed DATA. libqrencode-dev: the QR code of
# `share send --link`; chromium and curl: the browser and the client that download through that link in its tests.
PACKAGES := pkg-config libssl-dev openssl libavahi-client-dev avahi-daemon avahi-utils dbus iproute2 \
            shared-mime-info libarchive-dev zlib1g-dev libicu-dev time socat procps util-linux \
            libldns-dev bind9 bind9-dnsutils libzstd-dev \
            libsystemd-dev systemd libdbus-1-dev dbus-bin dunst xvfb libnotify-bin man-db groff-base libqrencode-dev chromium curl \
            bash-completion zsh fish desktop-file-utils python3-jsonschema python3-pip libhttp-parser-dev

# Debian packages only `make bench` needs: gio (GLib's typing of files) for the type benchmark.
BENCH_PACKAGES := libglib2.0-bin python3

# Under CI, tests that need root and network namespaces fail instead of skipping.
ifdef CI
export SHARE_REQUIRE_NETNS ?= 1
endif

SWIFT ?= swift

# Fuzzing (Tests/Fuzz, docs/SECURITY.md): libFuzzer targets built apart from the normal build, in
# their own scratch folder, optimized (-O) and with AddressSanitizer. `--sanitize=fuzzer` tells
# SwiftPM to let libFuzzer supply `main`; the instrumentation comes from `-sanitize=fuzzer,address`
# in one flag, because with two `--sanitize` flags swiftc keeps only one of them.
FUZZ_TARGETS := FuzzFrameDecoder FuzzOffer FuzzBundlePaths FuzzZstdFrame FuzzLocalSend
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
FUZZ_SCRATCH := .build/fuzz
FUZZ_WORK ?= .build/fuzz-work
FUZZ_BUILD = FUZZ=1 $(SWIFT) build -c release --scratch-path $(FUZZ_SCRATCH) --sanitize=fuzzer \
             -Xswiftc -sanitize=fuzzer,address

# Sanitizer runs of the whole test suite, each in its own scratch folder, one test at a time: some
# tests block their thread (process waits, LAN setup), and with the sanitizers' slowdown parallel
# tests then starve each other past their time limits. Leak detection is off because the leaks
# LeakSanitizer reports are all in the test process (XCTest, test fixtures); TSan suppressions name
# false positives of Synchronization.Mutex only. See docs/SECURITY.md.
SANITIZER_ENV := SWIFT_BACKTRACE=enable=no
ASAN_OPTIONS_TEST ?= detect_leaks=0
TSAN_OPTIONS_TEST ?= suppressions=$(CURDIR)/Tests/Sanitizers/tsan.supp print_suppressions=1 second_deadlock_stack=1

# `make install` (PREFIX, DESTDIR as packagers expect) puts these in place; `make uninstall`
# removes exactly what the last install wrote (listed in $(DATADIR)/share/installed-files).
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR ?= $(PREFIX)/bin
LIBEXECDIR ?= $(PREFIX)/libexec
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man
SYSTEMD_USER_UNIT_DIR ?= $(PREFIX)/lib/systemd/user
BASH_COMPLETION_DIR ?= $(DATADIR)/bash-completion/completions
ZSH_COMPLETION_DIR ?= $(DATADIR)/zsh/site-functions
FISH_COMPLETION_DIR ?= $(DATADIR)/fish/vendor_completions.d
# Where the `share` to install was built (install-files alone installs a debug build, for tests).
BUILD ?= .build/release
SUBSTITUTE = sed -e 's|@bindir@|$(BINDIR)|g' -e 's|@libexecdir@|$(LIBEXECDIR)|g' -e 's|@datadir@|$(DATADIR)|g'

.PHONY: all deps bench-deps localsendd build release release-static demo test fresh-builds bench fuzz fuzz-build fuzz-smoke test-asan test-tsan clean \
        install install-files uninstall

all: build

# Installs the Debian packages named in $(1) that are missing (as root), or says how to.
define install_packages
missing=""; \
for p in $(1); do \
  dpkg-query -W -f='$${Status}' "$$p" 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
done; \
if [ -n "$$missing" ]; then \
  if [ "$$(id -u)" = 0 ]; then \
    echo "Installing Debian packages:$$missing"; \
    DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
  else \
    echo "share needs these Debian packages; install them with:"; \
    echo "  sudo apt-get install -y --no-install-recommends$$missing"; \
    exit 1; \
  fi; \
fi
endef

deps:
	@$(call install_packages,$(PACKAGES))

bench-deps:
	@$(call install_packages,$(BENCH_PACKAGES))

# localsendd (PyPI, standard library only): an independent LocalSend v2 peer that the tests between
# simulated hosts run (only inside their namespaces, which have no default route). Installed into the
# build folder, never into the system's Python.
LOCALSENDD_VERSION := 0.1.1
LOCALSENDD_DIR := .build/localsendd
localsendd: deps
	@[ -f $(LOCALSENDD_DIR)/localsendd-$(LOCALSENDD_VERSION).dist-info/METADATA ] || \
	  /usr/bin/python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --no-deps \
	    --target $(LOCALSENDD_DIR) localsendd==$(LOCALSENDD_VERSION)

build: deps
	$(SWIFT) build

# The `share` that is installed and benchmarked links the Swift runtime and Foundation into itself
# (--static-swift-stdlib), so that a process does not load and relocate a dozen Swift libraries at start:
# about 10 ms less CPU for every command (docs/PERFORMANCE.md §6). The C libraries (OpenSSL, Avahi,
# libarchive, ...) stay Debian's shared libraries. It is built in its own scratch folder, because the flag
# changes every compile (`make release-static`); the test helpers (ShareFaultProxy needs Swift Testing, which
# has no static build) and the examples come from the ordinary release build (`make release`). Without the
# build folder in its library search path (--disable-local-rpath): an installed share never loads a libssl or
# other library placed beside it, and does not look there for each library at every start.
STATIC_BUILD := .build/static/release

release: deps
	$(SWIFT) build -c release

release-static: deps
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --product share --scratch-path .build/static

demo: release
	Examples/demo.sh

test: deps localsendd
	Tests/Layers/check-imports.py
	$(SWIFT) build --build-tests
	# One test at a time: many tests block a thread while real processes and sockets work, and on a
	# 2-core machine parallel suites would starve the cooperative pool (timeouts). The suites between
	# simulated hosts, mostly waiting, run beside the others in a second process (Tests/run-suites.sh).
	# The fresh builds come after the tests: made beside them, they made timing-sensitive tests fail.
	Tests/run-suites.sh $(SWIFT)
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory fresh-builds

# What users build, as a fresh clone builds it (Tests/fresh-builds.sh): the release build and the
# static release, each in an empty scratch folder under FRESH_DIR (a warm build folder hides failures,
# docs/ARCHITECTURE.md "C shims"); then `make demo` on that release build and `make install-files`
# of the static one into a DESTDIR there.
FRESH_DIR ?= .build/fresh

fresh-builds: deps
	SWIFT=$(SWIFT) Tests/fresh-builds.sh build $(FRESH_DIR)
	SWIFT=$(SWIFT) Tests/fresh-builds.sh check $(FRESH_DIR)

fuzz-build: deps
	@for target in $(FUZZ_TARGETS); do \
	  echo "$(FUZZ_BUILD) --product $$target"; $(FUZZ_BUILD) --product $$target; \
	done

# Replays each corpus, then fuzzes each target for FUZZ_SECONDS; crashes are kept in FUZZ_WORK.
fuzz: fuzz-build
	Tests/Fuzz/fuzz.sh $(FUZZ_SCRATCH)/release $(FUZZ_WORK) $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# The short run `make test` ends with.
fuzz-smoke: fuzz-build
	Tests/Fuzz/fuzz.sh $(FUZZ_SCRATCH)/release $(FUZZ_WORK) $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)

test-asan: deps
	$(SANITIZER_ENV) ASAN_OPTIONS=$(ASAN_OPTIONS_TEST) $(SWIFT) test --scratch-path .build/asan --sanitize=address --no-parallel

test-tsan: deps
	$(SANITIZER_ENV) TSAN_OPTIONS="$(TSAN_OPTIONS_TEST)" $(SWIFT) test --scratch-path .build/tsan --sanitize=thread --no-parallel

bench: release release-static bench-deps localsendd
	SHARE=$(CURDIR)/$(STATIC_BUILD)/share Tests/Benchmarks/bench.sh

install: release-static
	$(MAKE) --no-print-directory install-files BUILD=$(STATIC_BUILD)
	@echo "Installed share in $(DESTDIR)$(PREFIX). Receive in the background: systemctl --user daemon-reload &&" \
	      "systemctl --user enable --now share-receive"

install-files:
	@set -e; root='$(DESTDIR)'; work=$$(mktemp -d); trap 'rm -rf "$$work"' EXIT; \
	put() { install -D -m "$$1" "$$2" "$$root$$3"; echo "$$3" >> "$$work/installed"; }; \
	put 755 $(BUILD)/share $(BINDIR)/share; \
	put 755 Certificates/team-ca.sh $(BINDIR)/share-team-ca; \
	put 644 Certificates/openssl-team-ca.cnf $(DATADIR)/share/openssl-team-ca.cnf; \
	mkdir -p "$$work/man"; $(BUILD)/share __man-pages "$$work/man"; \
	for page in "$$work"/man/*.1; do put 644 "$$page" $(MANDIR)/man1/$$(basename "$$page"); done; \
	put 644 Certificates/share-team-ca.1 $(MANDIR)/man1/share-team-ca.1; \
	for shell in bash zsh fish; do $(BUILD)/share completion $$shell > "$$work/completion.$$shell"; done; \
	put 644 "$$work/completion.bash" $(BASH_COMPLETION_DIR)/share; \
	put 644 "$$work/completion.zsh" $(ZSH_COMPLETION_DIR)/_share; \
	put 644 "$$work/completion.fish" $(FISH_COMPLETION_DIR)/share.fish; \
	sub() { $(SUBSTITUTE) "$$1" > "$$work/sub"; put "$$2" "$$work/sub" "$$3"; }; \
	sub Install/share-receive.service.in 644 $(SYSTEMD_USER_UNIT_DIR)/share-receive.service; \
	sub Install/share-send-dialog.in 755 $(LIBEXECDIR)/share/share-send-dialog; \
	sub Install/file-managers/share-send.desktop.in 644 $(DATADIR)/applications/share-send.desktop; \
	sub Install/file-managers/dolphin-servicemenu.desktop.in 644 $(DATADIR)/kio/servicemenus/share-send.desktop; \
	sub Install/file-managers/thunar-sendto.desktop.in 644 $(DATADIR)/Thunar/sendto/share-send.desktop; \
	sub Install/file-managers/thunar-uca.xml.in 644 $(DATADIR)/share/file-managers/thunar-uca.xml; \
	sub Install/file-managers/send-with-share.in 755 $(DATADIR)/share/file-managers/send-with-share; \
	put 644 README.md $(DATADIR)/doc/share/README.md; \
	for doc in docs/*.md Certificates/README.md; do put 644 "$$doc" $(DATADIR)/doc/share/$$doc; done; \
	echo $(DATADIR)/share/installed-files >> "$$work/installed"; \
	install -D -m 644 "$$work/installed" "$$root$(DATADIR)/share/installed-files"

uninstall:
	@set -e; root='$(DESTDIR)'; list="$$root$(DATADIR)/share/installed-files"; \
	if [ ! -f "$$list" ]; then echo "Nothing to uninstall: $$list does not exist."; exit 0; fi; \
	while IFS= read -r file; do rm -f "$$root$$file"; done < "$$list"; \
	for dir in $(LIBEXECDIR)/share $(DATADIR)/share/file-managers $(DATADIR)/share $(DATADIR)/doc/share/docs \
	           $(DATADIR)/doc/share/Certificates $(DATADIR)/doc/share; do \
	  rmdir "$$root$$dir" 2>/dev/null || true; \
	done; \
	echo "Removed share from $$root$(PREFIX)."

clean:
	rm -rf .build demo-out bench-out
