#!/usr/bin/env bash
# Installs the Debian packages apns-emulator needs, and only those that are missing.
#
# The one install step shared by `make run`, `make test`, `.ci/run` and the Dockerfile.
# Idempotent: when everything is present it prints nothing and touches no network.
#
#   scripts/install-deps.sh                 build + test dependencies (make run, make test, .ci/run)
#   scripts/install-deps.sh --build-only    build dependencies only (Docker builder stage: no test tools)
#   scripts/install-deps.sh --runtime-only  shared libraries the release binary loads (Docker final stage)
#   scripts/install-deps.sh --check         list what is missing and exit 1 if anything is; installs nothing
set -euo pipefail

# Build: headers for the system-library targets (CNGHTTP2, COpenSSL, CMicroHTTPD, CSQLite, CHiredis, CJansson, CYAML, CJemalloc) and
# what later layers link (libcurl: Foundation's URLSession, which `apns-emulator test --emulator` and `bench` use,
# links it).
build_packages=(
    libnghttp2-dev
    libssl-dev
    libmicrohttpd-dev
    libsqlite3-dev
    libhiredis-dev
    libyaml-dev
    libjansson-dev
    libjemalloc-dev
    libcurl4-openssl-dev
    pkg-config
)
# Tests and benchmarks: h2load/nghttp (client), nghttpd (C reference server), curl, Python for helper
# scripts, docker-compose for `docker-compose config`, openssl for throwaway certificates, HAProxy for the scale
# profile's test (two replicas behind it on loopback), redis-server for the replicas that share live state through it, git for the versioned-dependency test's throwaway
# repository, gcc for the allocation counter the allocations test preloads (bench/malloc-count), Go for the Go
# sender in examples/ (Node's and Java's run when they are on the machine; they are not installed here), Chromium
# and its driver for the dashboard's browser test (Selenium comes from PyPI in a cached venv).
test_packages=(
    nghttp2-client
    nghttp2-server
    haproxy
    redis-server
    curl
    python3
    python3-venv
    python3-cryptography
    docker-compose
    openssl
    ca-certificates
    git
    gcc
    golang-go
    chromium
    chromium-driver
)
# Runtime: what a binary built with --static-swift-stdlib still loads, plus curl for the HEALTHCHECK.
runtime_packages=(
    libnghttp2-14
    libssl3
    libmicrohttpd12
    libsqlite3-0
    libhiredis0.14
    libyaml-0-2
    libjansson4
    libjemalloc2
    libcurl4
    curl
    ca-certificates
)

usage() {
    awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"
}

set_name=all
check_only=false
for arg in "$@"; do
    case "$arg" in
        --runtime-only) set_name=runtime ;;
        --build-only) set_name=build ;;
        --check) check_only=true ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-deps.sh: unknown argument '$arg'" >&2; usage >&2; exit 64 ;;
    esac
done
case "$set_name" in
    runtime) wanted=("${runtime_packages[@]}") ;;
    build) wanted=("${build_packages[@]}") ;;
    *) wanted=("${build_packages[@]}" "${test_packages[@]}") ;;
esac

if ! command -v dpkg-query >/dev/null 2>&1 || ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps.sh: this script needs a Debian-based system (dpkg-query and apt-get not found)." >&2
    echo "install-deps.sh: install by hand: ${wanted[*]}" >&2
    exit 1
fi

missing=()
for pkg in "${wanted[@]}"; do
    # "install ok installed" is the only status that means usable; "deinstall ok config-files" does not.
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    exit 0
fi

if $check_only; then
    echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
    exit 1
fi

if [[ $(id -u) -eq 0 ]]; then
    sudo=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo=(sudo -n)
elif command -v sudo >/dev/null 2>&1 && [[ -t 0 ]]; then
    sudo=(sudo)   # interactive: let sudo ask for the password
else
    echo "install-deps.sh: missing Debian packages: ${missing[*]}" >&2
    echo "install-deps.sh: not root and sudo is unavailable; run as root:" >&2
    echo "    apt-get update && apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
echo "install-deps.sh: done"
