#!/usr/bin/env bash
# Replicas sharing Redis against one standalone emulator (`bench/scale.sh replicas` runs this): the same h2load
# load through HAProxy (TCP mode) to
#   standalone   one `serve --ephemeral`
#   replicas-1   one `serve --state-store redis://…`
#   replicas-2   two of them on the same Redis
# each with the journal on (the full path, the cluster journal copied). ROUNDS alternating rounds; per round the
# server CPU per push counts the emulators and Redis together (HAProxy and h2load are the load, not the server).
# Prints per setup the median µs per push and throughput, the ratio to standalone (goal: at most 1.3), and Redis'
# memory per registered token (TOKENS registered through POST /_emulator/tokens:batch on a replica).
#
#   bench/scale.sh replicas    ROUNDS (5) REQUESTS (100000 per round) CLIENTS (8) STREAMS (100) TOKENS (100000)
#                              CLUSTER_JOURNAL (behind, the default: copied after the answer; durable: answers wait for their copy)
# Binds 127.0.0.1 only; stops what it started. Servers and Redis share the last CPU, load drivers the others.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
ROUNDS=${ROUNDS:-5}
REQUESTS=${REQUESTS:-100000}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
TOKENS=${TOKENS:-100000}
CLUSTER_JOURNAL=${CLUSTER_JOURNAL:-behind}
[[ $CLUSTER_JOURNAL == durable || $CLUSTER_JOURNAL == behind ]] || bench_die "CLUSTER_JOURNAL is durable or behind"
((ROUNDS >= 1 && REQUESTS >= 1000 && TOKENS >= 1000)) || bench_die "ROUNDS ≥ 1, REQUESTS ≥ 1000 and TOKENS ≥ 1000"
bench_require h2load haproxy redis-server redis-cli curl python3

bench_prepare_certs
bench_write_body

redis_port=$(bench_free_port)
"${BENCH_SERVER_PIN[@]}" redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no \
    >"$BENCH_TMP/redis.log" 2>&1 &
REDIS_PID=$!
BENCH_PIDS+=("$REDIS_PID")
bench_wait_port "$redis_port" "$REDIS_PID" 10 || bench_die "redis-server did not start"
store=redis://127.0.0.1:$redis_port

# haproxy_in_front NAME PORT...: HAProxy on a free port balancing connections round robin over the ports; sets
# FRONT_PORT and FRONT_PID.
haproxy_in_front() {
    local name=$1 cfg=$BENCH_TMP/haproxy-$1.cfg i=0 port
    shift
    FRONT_PORT=$(bench_free_port)
    {
        printf 'global\n    maxconn 4000\ndefaults\n    mode tcp\n    timeout connect 5s\n    timeout client 1h\n'
        printf '    timeout server 1h\nfrontend apns\n    bind 127.0.0.1:%s\n    default_backend replicas\n' "$FRONT_PORT"
        printf 'backend replicas\n    balance roundrobin\n'
        for port in "$@"; do i=$((i + 1)); printf '    server r%s 127.0.0.1:%s\n' "$i" "$port"; done
    } >"$cfg"
    "${BENCH_DRIVER_PIN[@]}" haproxy -db -f "$cfg" >"$BENCH_TMP/haproxy-$name.log" 2>&1 &
    FRONT_PID=$!
    BENCH_PIDS+=("$FRONT_PID")
    bench_wait_port "$FRONT_PORT" "$FRONT_PID" 10 || bench_die "haproxy ($name) did not start"
}

# Standalone, then the two clusters; each registers its key and token the way a sender's test would.
bench_start_emulator --event-loops 1 --ephemeral --no-front-doors
standalone_pid=$EMULATOR_PID
bench_register_key "$EMULATOR_CONTROL_URL"; standalone_jwt=$JWT
bench_register_token "$EMULATOR_CONTROL_URL"; standalone_token=$TOKEN
haproxy_in_front standalone "$EMULATOR_PRODUCTION_PORT"; standalone_front=$FRONT_PORT

bench_start_emulator --event-loops 1 --no-front-doors --state-store "$store" --cluster-journal "$CLUSTER_JOURNAL" --replica-id one
one_pid=$EMULATOR_PID; one_port=$EMULATOR_PRODUCTION_PORT; one_control=$EMULATOR_CONTROL_URL
bench_register_key "$one_control"; cluster_jwt=$JWT
bench_register_token "$one_control"; cluster_token=$TOKEN
haproxy_in_front replicas-1 "$one_port"; one_front=$FRONT_PORT
bench_start_emulator --event-loops 1 --no-front-doors --state-store "$store" --cluster-journal "$CLUSTER_JOURNAL" --replica-id two
two_pid=$EMULATOR_PID; two_port=$EMULATOR_PRODUCTION_PORT
curl -fsS -X POST "$one_control/_emulator/cluster/sync" >/dev/null
haproxy_in_front replicas-2 "$one_port" "$two_port"; two_front=$FRONT_PORT

ticks_of() { local t=0 pid; for pid in "$@"; do t=$((t + $(bench_cpu_ticks "$pid"))); done; echo "$t"; }

# run_setup NAME ROUND: one round of h2load through the setup's HAProxy; appends "name µs/push req/s" to results.
results=$BENCH_TMP/results.txt
: >"$results"
run_setup() {
    local name=$1 round=$2 front pids jwt token out before after done rate
    case "$name" in
        standalone) front=$standalone_front; pids=("$standalone_pid"); jwt=$standalone_jwt; token=$standalone_token ;;
        replicas-1) front=$one_front; pids=("$one_pid" "$REDIS_PID"); jwt=$cluster_jwt; token=$cluster_token ;;
        replicas-2) front=$two_front; pids=("$one_pid" "$two_pid" "$REDIS_PID"); jwt=$cluster_jwt; token=$cluster_token ;;
    esac
    out=$BENCH_TMP/h2load-$name-$round.txt
    before=$(ticks_of "${pids[@]}")
    REQUEST_PATH=/3/device/$token JWT=$jwt bench_h2load_pushes "$front" "$REQUESTS" "$out"
    # The journal's copy into Redis trails the answers by up to 50 ms: count it with the round.
    sleep 0.5
    after=$(ticks_of "${pids[@]}")
    bench_check_2xx "$name" "$out"
    done=$(bench_requests_done "$out")
    rate=$(awk '/^finished in/ { gsub(",", "", $4); print $4 }' "$out")
    printf '%s %s %s\n' "$name" "$(bench_us_per_request $((after - before)) "$done")" "$rate" >>"$results"
}

for ((round = 1; round <= ROUNDS; round++)); do
    for name in $(bench_round_order "$round" standalone replicas-1 replicas-2); do run_setup "$name" "$round"; done
    bench_log "round $round/$ROUNDS done"
done

# Redis' memory per registered token: TOKENS more through one replica, with the journal streams as they are.
before=$(redis-cli -p "$redis_port" info memory | awk -F: '/^used_memory:/ { print $2 + 0 }')
python3 - "$one_control" "$TOKENS" <<'PY'
import http.client, json, sys
from urllib.parse import urlsplit
url = urlsplit(sys.argv[1]); total = int(sys.argv[2])
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
for first in range(0, total, 10000):
    n = min(10000, total - first)
    conn.request("POST", "/_emulator/tokens:batch", body=json.dumps({"count": n, "bundleId": "com.example.app",
                 "environment": "production"}), headers={"content-type": "application/json"})
    r = conn.getresponse(); body = r.read()
    if r.status != 201 and r.status != 200:
        sys.exit(f"tokens:batch: {r.status} {body[:200]!r}")
PY
after=$(redis-cli -p "$redis_port" info memory | awk -F: '/^used_memory:/ { print $2 + 0 }')

python3 - "$results" "$before" "$after" "$TOKENS" "$(bench_commit)" "$CLUSTER_JOURNAL" <<'PY'
import statistics, sys
rows = [line.split() for line in open(sys.argv[1])]
by = {}
for name, us, rate in rows:
    by.setdefault(name, []).append((float(us), float(rate)))
base = statistics.median(us for us, _ in by["standalone"])
print(f"commit {sys.argv[5]}  cluster journal {sys.argv[6]}")
for name in ("standalone", "replicas-1", "replicas-2"):
    us = statistics.median(u for u, _ in by[name])
    rate = statistics.median(r for _, r in by[name])
    lo, hi = min(u for u, _ in by[name]) / base, max(u for u, _ in by[name]) / base
    print(f"{name:<11} {us:7.2f} us/push (servers and Redis)  {rate:9.0f} req/s  ratio {us / base:.2f} "
          f"(rounds {lo:.2f}-{hi:.2f})")
print(f"redis_bytes_per_token {(int(sys.argv[3]) - int(sys.argv[2])) / int(sys.argv[4]):.0f}")
PY
