#!/usr/bin/env bash
# Where the emulator's CPU per push goes next to nghttpd's, by component: the same load (bench/load.sh's JWT and
# paths, one device or DEVICES) on each server in turn under `perf record`, each sample put in one bucket by thread and
# library (nghttp2, TLS, kernel, the serving thread's own code, other threads), and the buckets scaled to the
# µs per request /proc measured for that round. Timing one build against another is ab.sh's job; this one says
# which part of the gap to nghttpd a change would have to move.
#
#   bench/gap.sh      PUSHES (600000 a round) ROUNDS (2) WARMUP (150000, or 110 a device when that is more) JOURNAL
#                     (false) CLIENTS (8) STREAMS (100) FREQUENCY (2000 samples a second) DEVICES (1)
#
# DEVICES=N spreads the pushes over N virtual iPhones as bench/load.sh does (nghttpd serves as many paths); the
# warm-up then fills every device's notification centre first.
#
# Needs perf, and root or kernel.perf_event_paranoid ≤ 1 (else the kernel's samples are missing and its time is
# spread over the other components). Binds 127.0.0.1 only; stops what it started. Writes bench/results/gap-<timestamp>.md and .json.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PUSHES=${PUSHES:-600000}
ROUNDS=${ROUNDS:-2}
DEVICES=${DEVICES:-1}
JOURNAL=${JOURNAL:-false}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
FREQUENCY=${FREQUENCY:-2000}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}
bench_whole_numbers 1 PUSHES ROUNDS DEVICES CLIENTS STREAMS FREQUENCY
WARMUP=${WARMUP:-$(bench_spread_warmup "$DEVICES" 150000)}
bench_whole_numbers 1 WARMUP
[[ "$JOURNAL" == true || "$JOURNAL" == false ]] || { echo "JOURNAL must be true or false" >&2; exit 64; }

bench_require perf h2load python3 curl nghttpd
[[ $(id -u) == 0 || $(cat /proc/sys/kernel/perf_event_paranoid) -le 1 ]] \
    || bench_die "perf must see kernel samples: run as root or set kernel.perf_event_paranoid to 1 or less"
[[ -x "$APNS_EMULATOR_BIN" ]] || bench_die "$APNS_EMULATOR_BIN not found; run 'swift build -c release' first"
bench_prepare_certs
bench_write_body

bench_start_emulator --event-loops 1 --ephemeral --no-sample-key
bench_register_key "$EMULATOR_CONTROL_URL"
bench_register_device "$EMULATOR_CONTROL_URL"
curl -fsS -X PUT -d "{\"enabled\":$JOURNAL}" "$EMULATOR_CONTROL_URL/_emulator/journal/settings" >/dev/null
REQUEST_PATH=/3/device/$TOKEN
bench_spread_devices "$EMULATOR_CONTROL_URL" "$DEVICES"
bench_start_nghttpd "${SPREAD_PATHS[@]}"
bench_spread_pushes "$NGHTTPD_PORT" "$(bench_nghttpd_warmup "$DEVICES")" "$BENCH_TMP/warmup-nghttpd.txt"
bench_spread_pushes "$EMULATOR_PRODUCTION_PORT" "$WARMUP" "$BENCH_TMP/warmup-emulator.txt"

SAMPLES=$BENCH_TMP/samples.tsv
: >"$SAMPLES"
# profile SERVER PID PORT ROUND: one round, perf recording the server for exactly the duration of h2load (perf on the
# load driver's CPUs); appends "server round µs/req tid dso" lines, one a sample.
profile() {
    local data=$BENCH_TMP/$1-$4.data out=$BENCH_TMP/h2load-$1-$4.txt before after us
    before=$(bench_cpu_ticks "$2") || bench_die "$1 is gone"
    bench_spread_pushes "$3" "$PUSHES" "$out" "${BENCH_DRIVER_PIN[@]}" perf record -q -F "$FREQUENCY" -p "$2" -o "$data" --
    after=$(bench_cpu_ticks "$2") || bench_die "$1 died during round $4"
    bench_check_2xx "$1" "$out"
    [[ -s "$data" ]] || bench_die "perf recorded nothing for $1 (see $out)"
    us=$(bench_us_per_request $((after - before)) "$(bench_requests_done "$out")")
    printf '%-8s round %d: %s µs/req\n' "$1" "$4" "$us"
    perf script -i "$data" -F tid,ip,dso 2>"$BENCH_TMP/perf-script.txt" | awk -v s="$1" -v r="$4" -v us="$us" \
        'NF >= 3 { d = $NF; gsub(/[()]/, "", d); n = split(d, p, "/"); print s "\t" r "\t" us "\t" $1 "\t" p[n] }' >>"$SAMPLES" \
        || { cat "$BENCH_TMP/perf-script.txt" >&2; bench_die "perf script failed on $data"; }
}
for ((round = 1; round <= ROUNDS; round++)); do
    mapfile -t order < <(bench_round_order "$round" nghttpd emulator)
    for s in "${order[@]}"; do
        if [[ "$s" == nghttpd ]]; then profile nghttpd "$NGHTTPD_PID" "$NGHTTPD_PORT" "$round"
        else profile emulator "$EMULATOR_PID" "$EMULATOR_PRODUCTION_PORT" "$round"; fi
    done
done

mkdir -p "$RESULTS_DIR"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
python3 "$BENCH_DIR/gap_report.py" "$SAMPLES" "$RESULTS_DIR/gap-$stamp" "$(bench_commit)" "$JOURNAL" "$PUSHES" "$DEVICES"
