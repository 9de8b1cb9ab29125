# apns-emulator: one-word entry points for developers, CI (.ci/run) and the Docker image.
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

.PHONY: all deps build run test bench bench-idle clean
# Prerequisites run in the order written (deps before build), even under `make -j`; swift parallelises itself.
.NOTPARALLEL:

all: build

deps:
	@scripts/install-deps.sh

build:
	$(SWIFT) build -c release

run: deps build
	@if [ ! -f $(CERTS_DIR)/ca.pem ]; then \
		echo "make run: $(CERTS_DIR)/ca.pem missing; generating development certificates"; \
		$(BIN) certs --out $(CERTS_DIR) || exit $$?; \
	fi
	exec $(BIN) serve --certs $(CERTS_DIR) --state-dir $(STATE_DIR) $(SERVE_FLAGS)

test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) test $(SWIFT_TEST_FLAGS)

bench: deps build
	bench/transport.sh

bench-idle: deps build
	bench/idle-connections.sh

clean:
	rm -rf .build
