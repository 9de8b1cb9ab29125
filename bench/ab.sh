#!/usr/bin/env bash
# A/B of two emulator builds (or one build under two environments) on the same load, in one run: alternating
# rounds of h2load against nghttpd, emulator A and emulator B (order reversed every other round), server CPU
# µs per request from /proc, and the median of the per-round B/A ratios with its distribution-free interval.
# This shared VM moves single rounds by ±20%, so a change worth a few percent needs dozens of rounds; a change
# under ~1% is below what it can resolve (bench/runtime-calls.sh counts runtime calls exactly instead).
#
#   BIN_A=old/apns-emulator BIN_B=new/apns-emulator bench/ab.sh
#   PRELOAD_B=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 bench/ab.sh     (one build, B under a preload)
#
# BIN_A, BIN_B (default: the release build), PRELOAD_A, PRELOAD_B (LD_PRELOAD for each), DEVICE (1: pushes
# delivered to a virtual device, as bench/load.sh; 0: a registered token, as bench/apns.sh), JOURNAL (true),
# ROUNDS (30), REQUESTS (200000 a round), WARMUP (120000), CLIENTS (8), STREAMS (100). Binds 127.0.0.1 only.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

BIN_A=${BIN_A:-$APNS_EMULATOR_BIN}
BIN_B=${BIN_B:-$APNS_EMULATOR_BIN}
PRELOAD_A=${PRELOAD_A:-}
PRELOAD_B=${PRELOAD_B:-}
DEVICE=${DEVICE:-1}
JOURNAL=${JOURNAL:-true}
ROUNDS=${ROUNDS:-30}
REQUESTS=${REQUESTS:-200000}
WARMUP=${WARMUP:-120000}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
((ROUNDS >= 1)) || bench_die "ROUNDS must be at least 1"
[[ "$JOURNAL" == true || "$JOURNAL" == false ]] || bench_die "JOURNAL must be true or false"
for bin in "$BIN_A" "$BIN_B"; do [[ -x "$bin" ]] || bench_die "$bin is not an executable"; done

bench_require h2load python3 curl nghttpd
bench_prepare_certs
bench_write_body

# start NAME BINARY PRELOAD: an emulator with its key and its token (device or registry), journal as asked.
start() {
    APNS_EMULATOR_BIN=$2 LD_PRELOAD=$3 bench_start_emulator --event-loops 1 --ephemeral --no-sample-key
    bench_register_key "$EMULATOR_CONTROL_URL"
    if [[ "$DEVICE" == 1 ]]; then bench_register_device "$EMULATOR_CONTROL_URL"; else bench_register_token "$EMULATOR_CONTROL_URL"; fi
    curl -fsS -X PUT -d "{\"enabled\":$JOURNAL}" "$EMULATOR_CONTROL_URL/_emulator/journal/settings" >/dev/null
    printf -v "PID_$1" '%s' "$EMULATOR_PID"
    printf -v "PORT_$1" '%s' "$EMULATOR_PRODUCTION_PORT"
    printf -v "TOKEN_$1" '%s' "$TOKEN"
    printf -v "JWT_$1" '%s' "$JWT"
}
start A "$BIN_A" "$PRELOAD_A"
start B "$BIN_B" "$PRELOAD_B"
REQUEST_PATH=/3/device/$TOKEN_A
bench_start_nghttpd "$REQUEST_PATH"
PID_ng=$NGHTTPD_PID PORT_ng=$NGHTTPD_PORT TOKEN_ng=$TOKEN_A JWT_ng=$JWT_A

# load SERVER COUNT OUT: pushes to SERVER's own token with its own key, every one answered 2xx.
load() {
    local port=PORT_$1 token=TOKEN_$1 jwt=JWT_$1
    REQUEST_PATH=/3/device/${!token} JWT=${!jwt} bench_h2load_pushes "${!port}" "$2" "$3"
    bench_check_2xx "$1" "$3"
}
load ng 20000 "$BENCH_TMP/warmup.txt"
load A "$WARMUP" "$BENCH_TMP/warmup.txt"
load B "$WARMUP" "$BENCH_TMP/warmup.txt"

ROWS=$BENCH_TMP/rounds.tsv
: >"$ROWS"
for ((round = 1; round <= ROUNDS; round++)); do
    line="round $round:"
    for s in $(bench_round_order "$round" ng A B); do
        pid=PID_$s
        before=$(bench_cpu_ticks "${!pid}") || bench_die "$s is gone"
        load "$s" "$REQUESTS" "$BENCH_TMP/h2load.txt"
        after=$(bench_cpu_ticks "${!pid}") || bench_die "$s died during round $round"
        us=$(bench_us_per_request $((after - before)) "$(bench_requests_done "$BENCH_TMP/h2load.txt")")
        printf '%s\t%d\t%s\n' "$s" "$round" "$us" >>"$ROWS"
        line+=" $s $us"
    done
    echo "$line µs/req"
done

PYTHONPATH="$BENCH_DIR" python3 - "$ROWS" <<'PY'
import statistics, sys
from round_ratios import median_interval
us = {}
for s, rnd, v in (l.split("\t") for l in open(sys.argv[1]) if l.strip()):
    us.setdefault(s, {})[int(rnd)] = float(v)
rounds = sorted(us["A"])
def summary(name, ratios):
    r = sorted(ratios)
    low, high, level = median_interval(r)
    print(f"{name:6} median {statistics.median(r):.3f}, mean {statistics.mean(r):.3f}, "
          f"range {r[0]:.3f}–{r[-1]:.3f}, median's interval {low:.3f}–{high:.3f} ({level:.0%})")
for s in ("ng", "A", "B"):
    print(f"{s:6} median {statistics.median(us[s].values()):.2f} µs/req")
summary("A/ng", [us["A"][r] / us["ng"][r] for r in rounds])
summary("B/ng", [us["B"][r] / us["ng"][r] for r in rounds])
summary("B/A", [us["B"][r] / us["A"][r] for r in rounds])
PY
