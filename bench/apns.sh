#!/usr/bin/env bash
# The full APNs path against the C reference: h2load sends valid, JWT-authenticated pushes to a registered
# device token, so every request goes through TLS, HTTP/2, validation, auth (verdict cache), the token
# registry and (in one variant) the journal. Rounds alternate:
#   nghttpd            Debian's nghttpd answering the same POSTs with a static 200 (one worker)
#   emulator-journal   apns-emulator serve --event-loops 1, journal on (the default)
#   emulator-nojournal the same process with the journal switched off through the control API
# and print server CPU µs per request (from /proc/PID/stat) with the ratios to nghttpd.
#
#   bench/apns.sh          REQUESTS (200000) ROUNDS (25: this shared VM is noisy; 25 paired rounds give a 96% interval for the median ratio: the 8th smallest to the 8th largest ratio) CLIENTS (8) STREAMS (100) WARMUP (120000: past the journal's 100,000-entry cap, so rounds measure the steady state)
#
# Results: bench/results/apns-<timestamp>.json and .md. Binds 127.0.0.1 only; stops what it started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

REQUESTS=${REQUESTS:-200000}
ROUNDS=${ROUNDS:-25}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
WARMUP=${WARMUP:-120000}
RESULTS_DIR=${RESULTS_DIR:-$REPO_ROOT/bench/results}

bench_require h2load python3 getconf curl nghttpd
[[ -x "$APNS_EMULATOR_BIN" ]] || bench_die "$APNS_EMULATOR_BIN not found; run 'make build' first"
bench_prepare_certs

bench_write_body

bench_start_emulator --event-loops 1 --ephemeral --no-sample-key
control=$EMULATOR_CONTROL_URL
# A key the emulator generates (its private half comes back once), a provider token signed with it, and a
# device token registered for the app: every push below is one Apple would accept.
bench_register_key "$control"
bench_register_token "$control"
REQUEST_PATH=/3/device/$TOKEN

bench_start_nghttpd "$REQUEST_PATH"
bench_log "nghttpd: pid $NGHTTPD_PID; emulator: pid $EMULATOR_PID (token ${TOKEN:0:8}…)"

journal() {
    curl -fsS -X PUT -d "{\"enabled\":$1}" "$control/_emulator/journal/settings" >/dev/null
}

run_load() { bench_h2load_pushes "$@"; }

if ((WARMUP > 0)); then
    run_load "$NGHTTPD_PORT" "$WARMUP" "$BENCH_TMP/warmup-nghttpd.txt"
    run_load "$EMULATOR_PRODUCTION_PORT" "$WARMUP" "$BENCH_TMP/warmup-emulator.txt"
fi

ROWS=$BENCH_TMP/rounds.tsv
: >"$ROWS"
printf '%-19s %5s %9s %9s %11s %10s\n' server round 'done' 2xx req/s 'µs/req'
for ((round = 1; round <= ROUNDS; round++)); do
    mapfile -t order < <(bench_round_order "$round" nghttpd emulator-journal emulator-nojournal)
    for s in "${order[@]}"; do
        case "$s" in
            nghttpd) pid=$NGHTTPD_PID port=$NGHTTPD_PORT ;;
            emulator-journal) journal true; pid=$EMULATOR_PID port=$EMULATOR_PRODUCTION_PORT ;;
            emulator-nojournal) journal false; pid=$EMULATOR_PID port=$EMULATOR_PRODUCTION_PORT ;;
        esac
        out=$BENCH_TMP/h2load-$s-$round.txt
        before=$(bench_cpu_ticks "$pid") || bench_die "$s is gone"
        run_load "$port" "$REQUESTS" "$out"
        after=$(bench_cpu_ticks "$pid") || bench_die "$s died during round $round"
        bench_check_2xx "$s" "$out"
        n_done=$(bench_requests_done "$out")
        s2xx=$n_done
        rps=$(awk '/^finished in/ { print $4 }' "$out")
        us=$(bench_us_per_request $((after - before)) "$n_done")
        printf '%s\t%d\t%d\t%d\t%s\t%s\n' "$s" "$round" "$n_done" "$s2xx" "$rps" "$us" >>"$ROWS"
        printf '%-19s %5d %9d %9d %11s %10s\n' "$s" "$round" "$n_done" "$s2xx" "$rps" "$us"
    done
done
journal true

mkdir -p "$RESULTS_DIR"
stamp=$(date -u +%Y%m%dT%H%M%SZ)
PYTHONPATH="$BENCH_DIR" python3 - "$ROWS" "$RESULTS_DIR/apns-$stamp" "$(bench_commit)" <<'PY'
import json, statistics, sys
from round_ratios import GOALS as goals, interval, per_round_ratios, spread, verdict
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
by = {}
for s, rnd, n, ok, rps, us in rows:
    by.setdefault(s, []).append({"round": int(rnd), "done": int(n), "rps": float(rps), "us": float(us)})
med = {s: statistics.median(r["us"] for r in v) for s, v in by.items()}
rps = {s: statistics.median(r["rps"] for r in v) for s, v in by.items()}
ratio = {s: round(med[s] / med["nghttpd"], 3) for s in med if s != "nghttpd"}

paired = per_round_ratios(by)
print("\nsummary (median of rounds):")
for s in by:
    print(f"  {s:<19} {rps[s]:>9.0f} req/s {med[s]:>7.2f} server µs/req")
verdicts = {s: verdict(paired, s, g) for s, g in goals.items()}
for s, r in ratio.items():
    p = paired.get(s, {})
    print(f"  {s}/nghttpd server µs/req: {r:.2f} (per-round ratios {p.get('min')}–{p.get('max')}, median {p.get('median')},"
          f" median's interval {interval(paired, s)}; goal {goals.get(s)}: {verdicts.get(s)})")
result = {"commit": sys.argv[3], "rounds": by, "median_us_per_req": med, "median_req_per_s": rps,
          "ratio_to_nghttpd": ratio, "per_round_ratio_to_nghttpd": paired,
          "goals": {s: {"target": g, "verdict": verdicts[s]} for s, g in goals.items()}}
json.dump(result, open(sys.argv[2] + ".json", "w"), indent=2)
with open(sys.argv[2] + ".md", "w") as f:
    f.write("| server | req/s | server µs/req | ratio to nghttpd | per-round ratios (min–max) | median ratio's interval | goal |\n"
            "|---|---|---|---|---|---|---|\n")
    for s in by:
        goal = f"{goals[s]} {verdicts[s]}" if s in goals else ""
        f.write(f"| {s} | {rps[s]:.0f} | {med[s]:.2f} | {ratio.get(s, 1.0):.2f} | {spread(paired, s)} | {interval(paired, s)} | {goal} |\n")
print(f"results: {sys.argv[2]}.json\n         {sys.argv[2]}.md")
PY
