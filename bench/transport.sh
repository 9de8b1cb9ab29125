#!/usr/bin/env bash
# Compares server CPU per request of the emulator's transport with nghttpd, the C reference server
# built on the same libnghttp2.
#
#   (a) nghttpd -n 1 answering each POST with a static 200 (an empty file at the request path);
#   (b) apns-emulator serve --event-loops 1 (release build).
#
# The load generator (h2load) needs about a whole core on a 2-core box, so req/s says as much about h2load
# as about the server. The figure that compares servers is server CPU µs per request: utime+stime of the
# server process from /proc/PID/stat before and after each round, divided by the requests h2load completed.
# Each round runs both servers, in reversed order every other round (a b, b a, ...), so drift on a shared machine
# and whatever running first in a round does hit both alike; the summary takes medians.
#
# Usage: bench/transport.sh [--only nghttpd|emulator]
# Environment (defaults):
#   REQUESTS=200000   requests per round          ROUNDS=25     rounds per server (25: a 96% interval for the median ratio)
#   CLIENTS=8         h2load -c                   STREAMS=100   h2load -m (concurrent streams per connection)
#   WARMUP=20000      unmeasured requests per server before the first round (0: none)
#   APNS_EMULATOR_BIN=.build/release/apns-emulator   CERTS_DIR=certs (throwaway certificates if incomplete)
#   RESULTS_DIR=bench/results
# Writes RESULTS_DIR/transport-<UTC timestamp>.json and .md.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-25}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
WARMUP=${WARMUP:-20000}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}

servers=(nghttpd emulator)
while [[ $# -gt 0 ]]; do
    case "$1" in
        --only)
            [[ $# -ge 2 && ( "$2" == nghttpd || "$2" == emulator ) ]] || bench_die "--only takes nghttpd or emulator"
            servers=("$2"); shift 2 ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
        *) bench_die "unknown argument '$1' (see --help)" ;;
    esac
done

bench_require h2load python3 getconf
[[ " ${servers[*]} " == *" nghttpd "* ]] && bench_require nghttpd
if [[ " ${servers[*]} " == *" emulator "* && ! -x "$APNS_EMULATOR_BIN" ]]; then
    bench_die "$APNS_EMULATOR_BIN not found; run 'make build' first (or use --only nghttpd)"
fi

# A realistic APNs request: 64-hex device token in the path, a ~190-byte bearer token and a topic on every
# request (nghttp2-based clients send authorization never-indexed, so HPACK cannot shrink it), small JSON body.
TOKEN=856af9d81342953b5e0aaa99a886b10a8c893752d505ff61a54e0882c928da3c
REQUEST_PATH=/3/device/$TOKEN
JWT=eyJhbGciOiJFUzI1NiIsImtpZCI6IkFCQzEyM0RFRkcifQ.eyJpc3MiOiJERUYxMjNHSElKIiwiaWF0IjoxNzAwMDAwMDAwfQ.FpJSaquERhqK68793LorM_tYl6sYDFPos0WuElSE0KqjW69gSHBQviHtiQmkjqzpOFG_E5CHzh96h9l7YSCmUQ
bench_write_body

bench_prepare_certs

declare -A PID PORT
start_nghttpd() {
    bench_start_nghttpd "$REQUEST_PATH"
    PID[nghttpd]=$NGHTTPD_PID
    PORT[nghttpd]=$NGHTTPD_PORT
}
start_emulator() {
    bench_start_emulator --event-loops 1 --transport-only --ephemeral
    PID[emulator]=$EMULATOR_PID
    PORT[emulator]=$EMULATOR_PRODUCTION_PORT
}

# run_load SERVER N OUTFILE: one h2load run against SERVER.
run_load() {
    "${BENCH_DRIVER_PIN[@]}" h2load -n "$2" -c "$CLIENTS" -m "$STREAMS" -d "$BODY" \
        -H "authorization: bearer $JWT" -H 'apns-topic: com.example.app' \
        "https://127.0.0.1:${PORT[$1]}$REQUEST_PATH" >"$3" 2>&1 \
        || { cat "$3" >&2; bench_die "h2load failed against $1"; }
}

for s in "${servers[@]}"; do
    "start_$s"
    bench_log "$s: pid ${PID[$s]}, https://127.0.0.1:${PORT[$s]}"
    if ((WARMUP > 0)); then
        run_load "$s" "$WARMUP" "$BENCH_TMP/warmup-$s.txt"
    fi
done

ROWS=$BENCH_TMP/rounds.tsv
: >"$ROWS"
printf '%-9s %5s %9s %9s %11s %12s %10s\n' server round 'done' failed req/s 'server ms' 'µs/req'
for ((round = 1; round <= ROUNDS; round++)); do
    mapfile -t order < <(bench_round_order "$round" "${servers[@]}")
    for s in "${order[@]}"; do
        out=$BENCH_TMP/h2load-$s-$round.txt
        before=$(bench_cpu_ticks "${PID[$s]}") || bench_die "$s (pid ${PID[$s]}) is gone"
        run_load "$s" "$REQUESTS" "$out"
        after=$(bench_cpu_ticks "${PID[$s]}") || bench_die "$s (pid ${PID[$s]}) died during round $round"
        # "requests: 200000 total, 200000 started, 200000 done, 200000 succeeded, 0 failed, 0 errored, 0 timeout"
        read -r n_done succeeded failed errored < <(awk '/^requests:/ { print $6, $8, $10, $12 }' "$out")
        # "finished in 1.44s, 138888.89 req/s, 4.50MB/s"
        rps=$(awk '/^finished in/ { print $4 }' "$out")
        # "status codes: 200000 2xx, 0 3xx, 0 4xx, 0 5xx"
        read -r s2xx s4xx s5xx < <(awk '/^status codes:/ { print $3, $7, $9 }' "$out")
        [[ -n "$n_done" && "$n_done" -gt 0 ]] || { cat "$out" >&2; bench_die "h2load completed no request against $s"; }
        cpu_us=$(( (after - before) * 1000000 / CLK_TCK ))
        us_per_req=$(awk -v c="$cpu_us" -v n="$n_done" 'BEGIN { printf "%.2f", c / n }')
        printf '%s\t%d\t%d\t%d\t%d\t%d\t%s\t%d\t%s\t%d\t%d\t%d\n' "$s" "$round" "$n_done" "$succeeded" "$failed" \
            "$errored" "$rps" "$cpu_us" "$us_per_req" "$s2xx" "$s4xx" "$s5xx" >>"$ROWS"
        printf '%-9s %5d %9d %9d %11s %12.1f %10s\n' "$s" "$round" "$n_done" "$((failed + errored))" "$rps" \
            "$(awk -v c="$cpu_us" 'BEGIN { print c / 1000 }')" "$us_per_req"
    done
done

mkdir -p "$RESULTS_DIR"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
emulator_version=
if [[ " ${servers[*]} " == *" emulator "* ]]; then
    emulator_version=$("$APNS_EMULATOR_BIN" --version 2>/dev/null | head -n 1 || true)
fi
PYTHONPATH="$BENCH_DIR" python3 "$BENCH_DIR/transport_report.py" \
    --rows "$ROWS" \
    --json "$RESULTS_DIR/transport-$stamp.json" \
    --markdown "$RESULTS_DIR/transport-$stamp.md" \
    --requests "$REQUESTS" --rounds "$ROUNDS" --clients "$CLIENTS" --streams "$STREAMS" --warmup "$WARMUP" \
    --h2load-version "$(h2load --version 2>/dev/null | head -n 1)" \
    --nghttpd-version "$(nghttpd --version 2>/dev/null | head -n 1)" \
    --emulator-version "$emulator_version" \
    --commit "$(bench_commit)"
