set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
CLIENTS=8; STREAMS=100
bench_prepare_certs
bench_write_body
bench_start_emulator --event-loops 1 --ephemeral --no-sample-key
control=$EMULATOR_CONTROL_URL
bench_register_key "$control"
bench_register_devices "$control" 10000 p-
for t in "${TOKENS[@]}"; do echo "/3/device/$t"; done >"$BENCH_TMP/paths.txt"
curl -fsS -X PUT -d '{"enabled":false}' "$control/_emulator/journal/settings" >/dev/null
REQUEST_PATHS_FILE=$BENCH_TMP/paths.txt bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" 400000 "$BENCH_TMP/w.txt"
REQUEST_PATHS_FILE=$BENCH_TMP/paths.txt bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" 400000 "$BENCH_TMP/h.txt" \
  perf record -F 2000 -g -p "$EMULATOR_PID" -o /tmp/perf10k.data --
grep 'status codes' "$BENCH_TMP/h.txt"
