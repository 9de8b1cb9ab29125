#!/usr/bin/env bash
# Heap allocations per accepted push, counted exactly by the LD_PRELOAD shim in bench/malloc-count: JWT-authenticated
# pushes to a virtual iPhone's token (validated, journaled, delivered to its notification centre). Prints
#   allocations_per_push N
#   swift_allocations_per_push N      (those whose caller is Swift code: the runtime, Foundation, the executable)
# A count, not a timing: the test suite runs it against the debug binary with a threshold.
#
#   bench/allocations.sh   PUSHES (20000) WARMUP (20000) CLIENTS (8) STREAMS (100) JOURNAL (true)
#                          MANUAL_CLOCK (0; 1: delivery inside the request, so the count does not depend on timing)
#                          APNS_EMULATOR_BIN (the release binary; any build works)
# Binds 127.0.0.1 only; stops what it started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PUSHES=${PUSHES:-20000}
WARMUP=${WARMUP:-20000}
JOURNAL=${JOURNAL:-true}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
MANUAL_CLOCK=${MANUAL_CLOCK:-0}
bench_require h2load curl python3 cc

bench_prepare_certs
shim=$(bash "$REPO_ROOT/bench/malloc-count/build.sh" "$BENCH_TMP/libmalloc_count.so")
counts=$BENCH_TMP/allocations
bench_write_body
clock=()
((MANUAL_CLOCK)) && clock=(--manual-clock)
MALLOC_COUNT_FILE=$counts LD_PRELOAD=$shim bench_start_emulator --event-loops 1 --ephemeral --no-sample-key "${clock[@]}"
bench_register_key "$EMULATOR_CONTROL_URL"
bench_register_device "$EMULATOR_CONTROL_URL"
REQUEST_PATH=/3/device/$TOKEN
curl -fsS -X PUT -d "{\"enabled\":$JOURNAL}" "$EMULATOR_CONTROL_URL/_emulator/journal/settings" >/dev/null
# The warm-up fills the pools and caches a long-running sender's load reaches.
((WARMUP > 0)) && bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" "$WARMUP" "$BENCH_TMP/warmup.txt"
read -r total0 swift0 <<<"$(bench_allocation_counts "$counts" "$EMULATOR_CONTROL_URL")"
bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" "$PUSHES" "$BENCH_TMP/h2load.txt"
read -r total1 swift1 <<<"$(bench_allocation_counts "$counts" "$EMULATOR_CONTROL_URL")"
bench_check_2xx "the emulator" "$BENCH_TMP/h2load.txt"
done_count=$(bench_requests_done "$BENCH_TMP/h2load.txt")
awk -v t="$((total1 - total0))" -v s="$((swift1 - swift0))" -v n="$done_count" \
    'BEGIN { printf "allocations_per_push %.2f\nswift_allocations_per_push %.2f\n", t / n, s / n }'
