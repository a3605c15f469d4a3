# share: build, demo, test and benchmark. `make demo` and `make test` install what is missing.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

# Debian packages needed to build, test, demo and benchmark.
PACKAGES := pkg-config libssl-dev openssl libavahi-client-dev avahi-daemon avahi-utils dbus iproute2 \
            shared-mime-info libarchive-dev zlib1g-dev time socat procps util-linux

# Under CI, tests that need root and network namespaces fail instead of skipping.
ifdef CI
export SHARE_REQUIRE_NETNS ?= 1
endif

SWIFT ?= swift

.PHONY: all deps build release demo test bench fuzz test-asan test-tsan clean

all: build

deps:
	@missing=""; \
	for p in $(PACKAGES); do \
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

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

demo: release
	Examples/demo.sh

test: deps
	$(SWIFT) build --build-tests
	# One test at a time: many tests block a thread while real processes and sockets work, and
	# on a 2-core machine parallel suites would starve the cooperative pool (timeouts).
	$(SWIFT) test --no-parallel

bench: release
	Tests/Benchmarks/bench.sh

clean:
	rm -rf .build demo-out bench-out
