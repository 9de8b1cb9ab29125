#!/usr/bin/env bash
# Measures the emulator's resident memory per idle HTTP/2 connection.
#
# Starts the release binary on 127.0.0.1 (port 0 everywhere) and opens CONNECTIONS idle TLS connections
# with ALPN h2 from bench/idle_connections.py: client preface + SETTINGS, an ACK of the server's SETTINGS,
# then silence. Prints the server's VmRSS before, with every connection open and after closing them, plus
# KiB per connection. Bounded by TIMEOUT seconds; closes every connection and stops the server it started.
#
# Usage: bench/idle-connections.sh [--nghttpd]   (--nghttpd measures nghttpd -n 1 instead, for reference)
# Environment (defaults):
#   CONNECTIONS=10000   PARALLEL=64 (handshakes in flight)   SETTLE=2 (seconds before each reading)
#   TIMEOUT=180   EVENT_LOOPS= (emulator default)   APNS_EMULATOR_BIN=.build/release/apns-emulator
#   CERTS_DIR=certs   RESULTS_DIR=bench/results
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CONNECTIONS=${CONNECTIONS:-10000}
PARALLEL=${PARALLEL:-64}
SETTLE=${SETTLE:-2}
TIMEOUT=${TIMEOUT:-180}
EVENT_LOOPS=${EVENT_LOOPS:-}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}

server=emulator
case "${1:-}" in
    "") ;;
    --nghttpd) server=nghttpd ;;
    -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0"; exit 0 ;;
    *) bench_die "unknown argument '$1' (see --help)" ;;
esac
bench_require python3 timeout

# Both the server and the client hold one descriptor per connection (plus a few).
need=$((CONNECTIONS + 256))
if (($(ulimit -n) < need)); then
    ulimit -n "$need" 2>/dev/null || bench_die "need ulimit -n $need for $CONNECTIONS connections; hard limit is $(ulimit -Hn)"
fi

bench_prepare_certs
if [[ $server == emulator ]]; then
    flags=()
    [[ -n "$EVENT_LOOPS" ]] && flags+=(--event-loops "$EVENT_LOOPS")
    bench_start_emulator "${flags[@]}"
    pid=$EMULATOR_PID
    port=$EMULATOR_PRODUCTION_PORT
else
    bench_require nghttpd
    port=$(bench_free_port)
    mkdir -p "$BENCH_TMP/htdocs"
    nghttpd -n 1 -a 127.0.0.1 -d "$BENCH_TMP/htdocs" "$port" "$BENCH_CERTS/server-key.pem" \
        "$BENCH_CERTS/server.pem" >"$BENCH_TMP/nghttpd.log" 2>&1 &
    pid=$!
    BENCH_PIDS+=("$pid")
    bench_wait_port "$port" "$pid" 10 || bench_die "nghttpd did not start"
fi
echo "$server: pid $pid, https://127.0.0.1:$port; opening $CONNECTIONS idle connections (ulimit -n $(ulimit -n))"

mkdir -p "$RESULTS_DIR"
out=$RESULTS_DIR/idle-connections-$server-$(date -u +%Y%m%dT%H%M%SZ).json
# timeout(1) backs up the script's own bound in case the event loop itself wedges.
timeout --kill-after=10 "$((${TIMEOUT%.*} + 30))" python3 "$BENCH_DIR/idle_connections.py" \
    --pid "$pid" --port "$port" --connections "$CONNECTIONS" --parallel "$PARALLEL" \
    --settle "$SETTLE" --timeout "$TIMEOUT" --json "$out" >"$BENCH_TMP/idle.json" \
    || { cat "$BENCH_TMP/idle.json" >&2 2>/dev/null; bench_die "idle_connections.py failed"; }
kill -0 "$pid" 2>/dev/null || bench_die "$server died while holding the connections"

python3 - "$BENCH_TMP/idle.json" "$server" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
print(f"{sys.argv[2]}: {r['connections_open']}/{r['connections_requested']} connections open "
      f"in {r['connect_seconds']} s ({r['failures']} failed, {r['closed_by_server']} closed by server)")
if r["failure_examples"]:
    print("  failures, e.g.: " + "; ".join(r["failure_examples"]))
print(f"  VmRSS before       {r['rss_before_kib']:>9} KiB")
print(f"  VmRSS all open     {r['rss_open_kib']:>9} KiB")
print(f"  VmRSS after close  {r['rss_after_close_kib']:>9} KiB")
if r["kib_per_connection"] is not None:
    print(f"  {r['kib_per_connection']:.1f} KiB per idle connection")
PY
echo "results: $out"
