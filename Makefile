# apns-emulator: one-word entry points for developers, CI (.ci/run) and the Docker image.
# `make sanitize` runs H2TransportTests, APNsEmulatorTests and the delivery engine tests under ASan (leak checks
# included), then under TSan. `make fuzz` runs the parsers under libFuzzer (scripts/fuzz.sh; FUZZ_SECONDS each).
# Plain GNU make; every target is phony. Override tools and flags on the command line:
#   make test SWIFT=/opt/swift/usr/bin/swift      make run SERVE_FLAGS='--event-loops 1'

SWIFT ?= swift
BIN := .build/release/apns-emulator
# Where `apns-emulator certs` writes the development CA and server certificate (and where `serve` reads them).
CERTS_DIR := certs

# Where `make run` keeps registered keys, device tokens and faults across restarts (`serve --state-dir`).
STATE_DIR := .emulator-state

# Extra flags appended to `apns-emulator serve` by `make run`.
SERVE_FLAGS ?=

# Swift Testing's closing line ("✔ Test run with N tests ... passed/failed ...") must be the last thing
# `make test` prints, because CI reads it. `swift test` runs XCTest first and then Swift Testing; while no
# test imports XCTest, skip the XCTest pass entirely so its summary never appears.
SWIFT_TEST_FLAGS ?= $(if $(shell grep -rlw --include='*.swift' 'import XCTest' Tests 2>/dev/null),,--disable-xctest)

.PHONY: all deps build install uninstall run test sanitize fuzz bench bench-idle clean
# Prerequisites run in the order written (deps before build), even under `make -j`; swift parallelises itself.
.NOTPARALLEL:

all: build

deps:
	@scripts/install-deps.sh

build:
	$(SWIFT) build -c release

# `make build && sudo make install PREFIX=/usr/local` (and DESTDIR= for packaging): the release binary into
# $(PREFIX)/bin. Install does not build, so root never owns .build/. The binary runs where this Swift toolchain's
# runtime is (found through its runpath); elsewhere, use the Docker image.
PREFIX ?= /usr/local

install:
	@test -x $(BIN) || { echo "make install: $(BIN) is missing; run 'make build' first (as yourself, not root)"; exit 1; }
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(BIN) $(DESTDIR)$(PREFIX)/bin/apns-emulator
	@echo "installed $(DESTDIR)$(PREFIX)/bin/apns-emulator; 'apns-emulator certs' makes the development certificates in ./certs"

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/apns-emulator

run: deps build
	@if [ ! -f $(CERTS_DIR)/ca.pem ]; then \
		echo "make run: $(CERTS_DIR)/ca.pem missing; generating development certificates"; \
		$(BIN) certs --out $(CERTS_DIR) || exit $$?; \
	fi
	exec $(BIN) serve --certs $(CERTS_DIR) --state-dir $(STATE_DIR) $(SERVE_FLAGS)

# The build checks that no target imports one it does not depend on (so no layer imports one above it); SwiftPM
# reports that as an error but goes on building, so the log is searched and the run stops there.
test: deps
	@mkdir -p .build
	@$(SWIFT) build --build-tests --explicit-target-dependency-import-check error > .build/build-tests.log 2>&1; \
		status=$$?; cat .build/build-tests.log; \
		if grep -q 'without declaring it a dependency' .build/build-tests.log; then \
			echo "make test: a target imports a module it does not declare (see above)"; exit 1; fi; \
		exit $$status
	$(SWIFT) test $(SWIFT_TEST_FLAGS)

# Each sanitizer builds in a scratch folder of its own, so neither invalidates the normal build. `swift test` builds
# every test target but runs only those filtered here. Both sanitizers run even when the first fails; the target
# fails if either did. TSan needs no options to run here; its suppressions are for Mutex (see the file).
SANITIZE_FILTERS := --filter '^H2TransportTests\.' --filter '^APNsEmulatorTests\.' --filter '^VirtualDevicesTests\.DeliveryEngineTests'
TSAN_SUPPRESSIONS := $(CURDIR)/scripts/tsan-suppressions.txt

sanitize: deps
	@status=0; \
	for sanitizer in address thread; do \
		echo "$(SWIFT) test $(SWIFT_TEST_FLAGS) --sanitize=$$sanitizer --scratch-path .build/sanitize-$$sanitizer $(SANITIZE_FILTERS)"; \
		TSAN_OPTIONS="suppressions=$(TSAN_SUPPRESSIONS) $$TSAN_OPTIONS" \
			$(SWIFT) test $(SWIFT_TEST_FLAGS) --sanitize=$$sanitizer --scratch-path .build/sanitize-$$sanitizer \
			$(SANITIZE_FILTERS) || status=1; \
	done; \
	exit $$status

# Each parser under libFuzzer for FUZZ_SECONDS (default 600) apiece; crashes are kept for `make test` to replay.
fuzz: deps
	@scripts/fuzz.sh

bench: deps build
	bench/transport.sh

bench-idle: deps build
	bench/idle-connections.sh

clean:
	rm -rf .build
