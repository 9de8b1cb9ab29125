#!/usr/bin/env bash
# A long run of mixed load against one emulator (release build), checking at the end that nothing was lost and
# memory stayed flat:
#   - rounds of `apns-emulator bench` at a fixed rate to DEVICES virtual iPhones (every push is delivered);
#   - between and during rounds: control calls (faults on and off, a brownout share, GOAWAY after N requests so
#     connections recycle, devices created and removed), connection churn (short curl connections), and the
#     manual clock advanced 30 minutes a round;
#   - after each round: every push answered 200 is in the journal exactly once (the journal's 200 entries of the
#     round counted, their apns-ids unique) and reached its device (the delivery histogram's count grew by as
#     much); no request ended without an answer (none lost to a closed connection); RSS sampled.
# Exits 1 when a check fails. Prints one line a round and a summary, and writes bench/results/soak-<time>.json.
#
#   bench/soak.sh      SOAK_SECONDS (3600) ROUND_SECONDS (60) RATE (1000 pushes/s) DEVICES (200) CONNECTIONS (4)
#                      RSS_GROWTH_MIB (64: the most resident memory may grow past its peak in the first three rounds)
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SOAK_SECONDS=${SOAK_SECONDS:-3600}
ROUND_SECONDS=${ROUND_SECONDS:-60}
RATE=${RATE:-1000}
DEVICES=${DEVICES:-200}
CONNECTIONS=${CONNECTIONS:-4}
RSS_GROWTH_MIB=${RSS_GROWTH_MIB:-64}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}
((SOAK_SECONDS >= ROUND_SECONDS && ROUND_SECONDS >= 5 && RATE >= 1 && DEVICES >= 1)) \
    || { echo "need SOAK_SECONDS >= ROUND_SECONDS >= 5, RATE >= 1, DEVICES >= 1" >&2; exit 64; }

bench_require python3 curl
bench_prepare_certs
bench_start_emulator --event-loops 2 --ephemeral --manual-clock --journal-capacity 1000000
bench_register_devices "$EMULATOR_CONTROL_URL" "$DEVICES" soak
mkdir -p "$RESULTS_DIR"
report=$RESULTS_DIR/soak-$(date -u +%Y%m%dT%H%M%SZ).json
python3 "$BENCH_DIR/soak.py" --binary "$APNS_EMULATOR_BIN" --pid "$EMULATOR_PID" --control "$EMULATOR_CONTROL_URL" \
    --port "$EMULATOR_PRODUCTION_PORT" --ca "$BENCH_CERTS/ca.pem" --seconds "$SOAK_SECONDS" --round "$ROUND_SECONDS" \
    --rate "$RATE" --connections "$CONNECTIONS" --rss-growth-mib "$RSS_GROWTH_MIB" --report "$report" \
    --work "$BENCH_TMP"
