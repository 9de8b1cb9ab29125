# shellcheck shell=bash disable=SC2034  # sets variables for the scripts that source it
# Shared helpers for the bench/*.sh scripts. Source it; do not run it.
#
# Everything here binds 127.0.0.1 only, and every process a script starts is recorded in
# BENCH_PIDS so the EXIT trap ends exactly those PIDs and nothing else.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$BENCH_DIR/.." && pwd)
APNS_EMULATOR_BIN=${APNS_EMULATOR_BIN:-$REPO_ROOT/.build/release/apns-emulator}
CLK_TCK=$(getconf CLK_TCK)

# CPU pinning (PIN=1, the default on a machine with 2 or more CPUs; PIN=0 turns it off): servers run on the last
# CPU and load drivers on the others, so the server under test never shares a core with h2load and the scheduler
# never moves it between cores in the middle of a round (a migration costs the server with the larger working
# set more). It removes that source of variance, not the VM's: on the 2-core development VM per-round ratios
# still ranged over 0.74-1.49 in a pinned 40-round run (0.56-1.61 and 0.77-2.60 in two unpinned 100-round runs),
# with the same median (1.08, against 1.05 and 1.08).
BENCH_NCPU=$(nproc)
if [[ "${PIN:-1}" == 1 ]] && ((BENCH_NCPU >= 2)) && command -v taskset >/dev/null; then
    BENCH_SERVER_PIN=(taskset -c "$((BENCH_NCPU - 1))")
    BENCH_DRIVER_PIN=(taskset -c "0-$((BENCH_NCPU - 2))")
else
    BENCH_SERVER_PIN=()
    BENCH_DRIVER_PIN=()
fi

BENCH_PIDS=()
# Set per call by scripts that spread a load over several paths (see bench_h2load_pushes), never inherited: an
# exported one would send every other script's pushes elsewhere.
unset REQUEST_PATHS REQUEST_PATHS_FILE
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/apns-bench.XXXXXX")

bench_log() { printf '%s\n' "$*" >&2; }
bench_die() { bench_log "error: $*"; exit 1; }

# bench_whole_numbers MIN NAME...: each named variable holds a whole number of at least MIN, written without leading
# zeros (bash arithmetic reads 010 as octal, h2load as ten); else says which and exits 64.
bench_whole_numbers() {
    local min=$1 name
    shift
    for name in "$@"; do
        [[ "${!name}" =~ ^(0|[1-9][0-9]*)$ ]] && ((${!name} >= min)) \
            || { echo "$name must be a whole number of at least $min (got '${!name}')" >&2; exit 64; }
    done
}

# bench_await_exit PID: gives a process sent TERM up to ~5 s to shut down gracefully, then insists, and reaps it.
bench_await_exit() {
    local i
    for ((i = 0; i < 50; i++)); do
        kill -0 "$1" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$1" 2>/dev/null || true
    wait "$1" 2>/dev/null || true
}

bench_cleanup() {
    local pid
    for pid in "${BENCH_PIDS[@]}"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "${BENCH_PIDS[@]}"; do bench_await_exit "$pid"; done
    BENCH_PIDS=()
    if [[ -n "${BENCH_KEEP_TMP:-}" ]]; then
        bench_log "kept $BENCH_TMP"
    else
        rm -rf "$BENCH_TMP"
    fi
}
trap bench_cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bench_require() {
    local tool
    for tool in "$@"; do
        command -v "$tool" >/dev/null 2>&1 || bench_die "'$tool' not found; run scripts/install-deps.sh"
    done
}

# bench_stop PID: ends one process this script started (TERM, then KILL after ~5 s), waits for it, and takes it
# off the list the EXIT trap ends, so its number, once free, is never signalled again.
bench_stop() {
    local pid=$1 i kept=()
    kill -TERM "$pid" 2>/dev/null || true
    bench_await_exit "$pid"
    for i in "${BENCH_PIDS[@]}"; do [[ "$i" == "$pid" ]] || kept+=("$i"); done
    BENCH_PIDS=("${kept[@]}")
}

# Prints a TCP port that was free a moment ago on 127.0.0.1 (for servers that cannot bind port 0 and tell us).
bench_free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# bench_wait_port PORT PID TIMEOUT_SECONDS: waits until 127.0.0.1:PORT accepts, or fails if PID died.
bench_wait_port() {
    local port=$1 pid=$2 timeout=$3 i
    for ((i = 0; i < timeout * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || return 1
        if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
            return 0
        fi
        sleep 0.1
    done
    return 1
}

# Sets BENCH_CERTS to a folder holding ca.pem, server.pem and server-key.pem. Uses $CERTS_DIR or the repo's
# certs/ when they are complete; otherwise makes a throwaway CA and server certificate (127.0.0.1, localhost,
# api.push.apple.com, api.sandbox.push.apple.com) in the temp folder.
bench_prepare_certs() {
    local dir=${CERTS_DIR:-$REPO_ROOT/certs}
    if [[ -f "$dir/ca.pem" && -f "$dir/server.pem" && -f "$dir/server-key.pem" ]]; then
        BENCH_CERTS=$dir
        return
    fi
    bench_require openssl
    BENCH_CERTS=$BENCH_TMP/certs
    mkdir -p "$BENCH_CERTS"
    bench_log "no certificates in $dir; generating throwaway ones in $BENCH_CERTS"
    (
        cd "$BENCH_CERTS"
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
            -subj "/CN=apns-emulator bench CA" -keyout ca-key.pem -out ca.pem \
            -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
            -subj "/CN=api.push.apple.com" -keyout server-key.pem -out server.csr
        printf '%s\n' "subjectAltName=DNS:api.push.apple.com,DNS:api.sandbox.push.apple.com,DNS:localhost,IP:127.0.0.1" \
            "basicConstraints=CA:FALSE" "extendedKeyUsage=serverAuth" >server.ext
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -days 2 \
            -extfile server.ext -out server.pem
    ) >/dev/null 2>&1 || bench_die "openssl failed to generate throwaway certificates"
}

# The commit the results describe: HEAD's short hash, with "-dirty" when Sources/ or Package.swift differ from it
# (the binary measured may then hold changes no commit has).
bench_commit() {
    local hash
    hash=$(git -C "$REPO_ROOT" rev-parse --short HEAD 2>/dev/null) || return 0
    if [[ -n "$(git -C "$REPO_ROOT" status --porcelain -- Sources Package.swift 2>/dev/null)" ]]; then hash+="-dirty"; fi
    printf '%s\n' "$hash"
}

# bench_start_nghttpd REQUEST_PATH...: starts Debian's nghttpd (one worker) serving an empty file at each
# REQUEST_PATH, so every POST there gets a static 200 with no body, like an accepted push. Sets NGHTTPD_PID and
# NGHTTPD_PORT.
bench_start_nghttpd() {
    local htdocs=$BENCH_TMP/htdocs port log=$BENCH_TMP/nghttpd.log path dir made=
    for path in "$@"; do
        dir=$htdocs${path%/*}
        [[ "$dir" == "$made" ]] || { mkdir -p "$dir"; made=$dir; }
        : >"$htdocs$path"
    done
    for _ in 1 2 3; do
        port=$(bench_free_port)
        "${BENCH_SERVER_PIN[@]}" nghttpd -n 1 -a 127.0.0.1 -d "$htdocs" "$port" "$BENCH_CERTS/server-key.pem" "$BENCH_CERTS/server.pem" \
            >"$log" 2>&1 &
        NGHTTPD_PID=$!
        BENCH_PIDS+=("$NGHTTPD_PID")
        if bench_wait_port "$port" "$NGHTTPD_PID" 10; then
            NGHTTPD_PORT=$port
            return
        fi
        kill "$NGHTTPD_PID" 2>/dev/null || true
    done
    cat "$log" >&2
    bench_die "nghttpd did not start"
}

# bench_start_emulator [extra serve flags...]: starts the release binary on port 0 everywhere and sets
# EMULATOR_PID, EMULATOR_PRODUCTION_PORT, EMULATOR_CONTROL_URL and EMULATOR_LOG from its ready file. Each
# emulator a script starts gets its own log and ready file (emulator-1.log, emulator-2.log, …).
BENCH_EMULATORS=0
bench_start_emulator() {
    [[ -x "$APNS_EMULATOR_BIN" ]] || bench_die "$APNS_EMULATOR_BIN not found; run 'make build' first"
    BENCH_EMULATORS=$((BENCH_EMULATORS + 1))
    local ready=$BENCH_TMP/emulator-$BENCH_EMULATORS-ready.json
    EMULATOR_LOG=$BENCH_TMP/emulator-$BENCH_EMULATORS.log
    rm -f "$ready"
    "${BENCH_SERVER_PIN[@]}" "$APNS_EMULATOR_BIN" serve --host 127.0.0.1 --certs "$BENCH_CERTS" \
        --production-port 0 --sandbox-port 0 --control-port 0 --front-door-port 0 --ready-file "$ready" "$@" \
        >"$EMULATOR_LOG" 2>&1 &
    EMULATOR_PID=$!
    BENCH_PIDS+=("$EMULATOR_PID")
    local i parsed=
    for ((i = 0; i < 300; i++)); do
        if ! kill -0 "$EMULATOR_PID" 2>/dev/null; then
            tail -n 20 "$EMULATOR_LOG" >&2
            bench_die "apns-emulator exited before it was ready (log above)"
        fi
        # The ready file may be seen half-written: retry until it parses.
        if [[ -s "$ready" ]] && parsed=$(python3 - "$ready" <<'PY' 2>/dev/null
import json, sys
from urllib.parse import urlsplit
ready = json.load(open(sys.argv[1]))
print(urlsplit(ready["production"]).port, ready["control"])
PY
        ); then
            break
        fi
        sleep 0.1
    done
    [[ -n "$parsed" ]] || bench_die "apns-emulator wrote no valid ready file within 30 s (see $EMULATOR_LOG)"
    read -r EMULATOR_PRODUCTION_PORT EMULATOR_CONTROL_URL <<<"$parsed"
}

# bench_requests_done H2LOAD_OUTPUT: how many requests h2load completed.
bench_requests_done() { awk '/^requests:/ { print $6 }' "$1"; }

# bench_check_2xx SERVER H2LOAD_OUTPUT: every request done was answered 2xx, or the run stops (a refused push
# is not the accepted path a benchmark measures).
bench_check_2xx() {
    local n_done s2xx
    n_done=$(bench_requests_done "$2")
    s2xx=$(awk '/^status codes:/ { print $3 }' "$2")
    [[ "$s2xx" == "$n_done" ]] || { cat "$2" >&2; bench_die "$1 answered $s2xx of $n_done with 2xx"; }
}

# bench_us_per_request TICKS REQUESTS: server CPU µs per request from a difference of bench_cpu_ticks.
bench_us_per_request() { awk -v t="$1" -v hz="$CLK_TCK" -v n="$2" 'BEGIN { printf "%.2f", t * 1e6 / hz / n }'; }

# Prints utime+stime of PID (all its threads) in clock ticks.
bench_cpu_ticks() {
    local stat
    stat=$(<"/proc/$1/stat") || return 1
    # Field 2 (comm) may contain spaces: drop everything up to its closing parenthesis.
    stat=${stat##*) }
    # What remains starts at field 3 (state); utime and stime are fields 14 and 15.
    local -a fields
    read -r -a fields <<<"$stat"
    echo $((fields[11] + fields[12]))
}

# Prints VmRSS of PID in KiB.
bench_rss_kib() {
    awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"
}

# Registers a generated team key with the emulator at $1 (control URL) and sets JWT to a provider token signed
# with it (the bench's pushes are then ones Apple would accept).
bench_register_key() {
    curl -fsS -d '{"teamId":"BENCHTEAM1","keyId":"BENCHKEY01","kind":"team"}' "$1/_emulator/keys" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["privateKeyPem"], end="")' >"$BENCH_TMP/key.p8"
    JWT=$("$APNS_EMULATOR_BIN" token --key-file "$BENCH_TMP/key.p8" --key-id BENCHKEY01 --team-id BENCHTEAM1)
}

# Sets BODY to a file holding the bench's push payload (a small alert, as senders send).
bench_write_body() {
    BODY=$BENCH_TMP/payload.json
    printf '%s' '{"aps":{"alert":{"title":"Bench","body":"Hello from h2load"},"badge":1,"sound":"default"}}' >"$BODY"
}

# Registers a production device token for com.example.app with the emulator at $1 (control URL); sets TOKEN.
bench_register_token() {
    TOKEN=$(curl -fsS -d '{"bundleId":"com.example.app","environment":"production"}' "$1/_emulator/tokens" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])')
}

# Creates a virtual iPhone (id $2, default bench-phone) with com.example.app (App Store build: a production
# token), authorized and in the background, at the emulator at $1, so every push reaches its notification
# centre; sets TOKEN to the token the app got through GetToken.
bench_register_device() {
    local id=${2:-bench-phone}
    curl -fsS -d "{\"id\":\"$id\",\"apps\":[{\"bundleId\":\"com.example.app\",\"build\":\"appStore\"}]}" \
        "$1/_emulator/devices" >/dev/null
    local app=$1/_emulator/devices/$id/apps/com.example.app
    curl -fsS -d '{"call":"RequestAuthorization","options":[1,2,3]}' "$app/calls" >/dev/null
    TOKEN=$(curl -fsS -d '{"call":"GetToken"}' "$app/calls" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["result"]["token"])')
    curl -fsS -d '{"action":"background"}' "$app/actions" >/dev/null
}

# bench_register_devices CONTROL_URL COUNT PREFIX: COUNT more devices as bench_register_device makes them (ids
# PREFIX<batch>-1…), through POST /_emulator/devices:batch of up to 10,000; sets TOKENS to their tokens, in order.
bench_register_devices() {
    local out=$BENCH_TMP/tokens-$3.txt left=$2 batch n=0
    : >"$out"
    while ((left > 0)); do
        batch=$((left < 10000 ? left : 10000))
        curl -sS --fail-with-body \
            -d "{\"count\":$batch,\"idPrefix\":\"$3$n-\",\"register\":true,\"template\":{\"apps\":[{\"bundleId\":\"com.example.app\",\"build\":\"appStore\"}]}}" \
            "$1/_emulator/devices:batch" >"$BENCH_TMP/batch.json" \
            || { cat "$BENCH_TMP/batch.json" >&2; bench_die "registering $batch devices failed"; }
        python3 -c 'import json,sys; [print(d["tokens"]["com.example.app"]) for d in json.load(open(sys.argv[1]))["devices"]]' \
            "$BENCH_TMP/batch.json" >>"$out"
        left=$((left - batch))
        n=$((n + 1))
    done
    mapfile -t TOKENS <"$out"
}

# A load spread over DEVICES virtual iPhones (load.sh's and gap.sh's DEVICES): the device bench_register_device made,
# at $REQUEST_PATH, and DEVICES - 1 more. bench_spread_devices CONTROL_URL DEVICES registers them and sets
# SPREAD_PATHS (also written to $BENCH_TMP/paths.txt, one a line) for bench_start_nghttpd and bench_spread_pushes.
bench_spread_devices() {
    local token
    SPREAD_PATHS=("$REQUEST_PATH")
    if (($2 > 1)); then
        bench_register_devices "$1" "$(($2 - 1))" bench-phone-more-
        for token in "${TOKENS[@]}"; do SPREAD_PATHS+=("/3/device/$token"); done
    fi
    printf '%s\n' "${SPREAD_PATHS[@]}" >"$BENCH_TMP/paths.txt"
}

# bench_spread_pushes PORT COUNT FILE [COMMAND…]: bench_h2load_pushes over SPREAD_PATHS, each connection taking
# them in turn.
bench_spread_pushes() {
    if ((${#SPREAD_PATHS[@]} > 1)); then
        REQUEST_PATHS_FILE=$BENCH_TMP/paths.txt bench_h2load_pushes "$@"
    else
        bench_h2load_pushes "$@"
    fi
}

# bench_spread_warmup DEVICES MINIMUM: an emulator warm-up giving every device at least 110 pushes, past its
# notification centre's 100, or MINIMUM when that is more. h2load walks the path list from its start on every
# connection, hence CLIENTS × ⌈110 / CLIENTS⌉ a device.
bench_spread_warmup() {
    local w=$(($1 * CLIENTS * ((110 + CLIENTS - 1) / CLIENTS)))
    echo $((w > $2 ? w : $2))
}

# bench_nghttpd_warmup DEVICES: nghttpd's warm-up, every path at least twice on every connection (its first open of
# each file stays out of the rounds), at least 20,000.
bench_nghttpd_warmup() {
    local w=$(($1 * 2 * CLIENTS))
    echo $((w > 20000 ? w : 20000))
}

# bench_allocation_counts COUNTS_FILE CONTROL_URL: prints "TOTAL SWIFT" from the malloc-count shim once every push
# accepted so far is on its device (POST /_emulator/settle) and the shim has written its counters since: it writes
# them every 50 ms from a thread of its own, which a loaded machine can hold up for longer than any fixed sleep.
bench_allocation_counts() {
    curl -fsS -X POST "$2/_emulator/settle" >/dev/null
    local since i
    since=$(date +%s.%N)
    for ((i = 0; i < 200; i++)); do
        sleep 0.05
        if awk -v m="$(stat -c %.9Y "$1")" -v s="$since" 'BEGIN { exit !(m > s + 0.06) }'; then
            cat "$1"
            return
        fi
    done
    bench_die "the allocation counter did not write $1 for 10 s"
}

# h2load with APNs-shaped, JWT-authenticated POSTs of $BODY to PORT ($1) at $REQUEST_PATH: COUNT ($2) requests
# over $CLIENTS connections × $STREAMS streams, output to FILE ($3). Further arguments are a command h2load runs
# under (e.g. `perf stat … --`).
#
# With REQUEST_PATHS (a space-separated list) or REQUEST_PATHS_FILE (one per line) set, the pushes go to those
# paths instead, each connection taking them in turn (h2load's -i), so a load spreads over several tokens and
# devices.
bench_h2load_pushes() {
    local port=$1 count=$2 out=$3 target path paths
    shift 3
    if [[ -n "${REQUEST_PATHS_FILE:-}" ]]; then
        # One path per line: thousands of them would not fit in an environment variable a child inherits.
        target=$BENCH_TMP/uris-$port.txt
        awk -v p="https://127.0.0.1:$port" '{ print p $0 }' "$REQUEST_PATHS_FILE" >"$target"
        target=(-i "$target")
    elif [[ -n "${REQUEST_PATHS:-}" ]]; then
        target=$BENCH_TMP/uris-$port.txt
        : >"$target"
        read -ra paths <<<"$REQUEST_PATHS"
        for path in "${paths[@]}"; do printf 'https://127.0.0.1:%s%s\n' "$port" "$path" >>"$target"; done
        target=(-i "$target")
    else
        target=("https://127.0.0.1:$port$REQUEST_PATH")
    fi
    "$@" "${BENCH_DRIVER_PIN[@]}" h2load -n "$count" -c "$CLIENTS" -m "$STREAMS" -d "$BODY" \
        -H "authorization: bearer $JWT" -H 'apns-topic: com.example.app' -H 'apns-push-type: alert' \
        "${target[@]}" >"$out" 2>&1 || { cat "$out" >&2; bench_die "h2load failed"; }
}

# The servers of round ROUND ($1) in the order to run them: as given ($2…) in odd rounds, reversed in even ones,
# so whatever running first or last in a round does (a cache or a CPU clock warmed by the previous load) falls on
# every server alike instead of always on the same one.
bench_round_order() {
    local round=$1
    shift
    if ((round % 2 == 1)); then
        printf '%s\n' "$@"
    else
        local i
        for ((i = $#; i >= 1; i--)); do printf '%s\n' "${!i}"; done
    fi
}
