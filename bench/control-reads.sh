#!/usr/bin/env bash
# What the control API's big reads cost the emulator, the ones a dashboard or a poller makes while a load runs:
# PUSHES pushes through h2load to DEVICES virtual iPhones (journal on), then READS reads of each kind over one
# keep-alive connection, the emulator idle otherwise. Prints, per kind, the server CPU per read and its ratio to
# `GET /_emulator/health` (the control API's own floor: HTTP handling, routing, a tiny answer):
#   read journal_newest_1 ms 0.21 x_health 4.1 bytes 1070
# Kinds: the journal's newest 1, 200 and 500 entries (limit=), a lookup by apns-id (a filter on content: a walk of
# the whole journal), the newest 50 to one token (a filter on content with a limit) and the device wall as the
# dashboard asks for it.
#
#   bench/control-reads.sh   PUSHES (20000, at most 100000: the journal's capacity) READS (200) DEVICES (1)
# Binds 127.0.0.1 only; stops what it started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PUSHES=${PUSHES:-20000}
READS=${READS:-200}
DEVICES=${DEVICES:-1}
bench_whole_numbers 1 PUSHES READS DEVICES
((PUSHES <= 100000 && READS <= 10000 && DEVICES <= 100000)) \
    || bench_die "PUSHES is at most 100000, READS at most 10000, DEVICES at most 100000"
bench_require h2load curl python3
CLIENTS=4 STREAMS=50

bench_prepare_certs
bench_start_emulator --event-loops 1 --ephemeral
control=$EMULATOR_CONTROL_URL
bench_register_key "$control"
bench_write_body
bench_register_device "$control"
REQUEST_PATH=/3/device/$TOKEN
bench_spread_devices "$control" "$DEVICES"
bench_spread_pushes "$EMULATOR_PRODUCTION_PORT" "$PUSHES" "$BENCH_TMP/h2load.txt"
bench_check_2xx emulator "$BENCH_TMP/h2load.txt"
bench_log "$(bench_requests_done "$BENCH_TMP/h2load.txt") pushes sent; reading (commit $(bench_commit))"

python3 - "$control" "$EMULATOR_PID" "$READS" <<'PY'
import http.client, json, os, sys
from urllib.parse import urlsplit

control, pid, reads = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
url = urlsplit(control)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=120)

def get(path):
    conn.request("GET", path)
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        sys.exit(f"GET {path}: {r.status} {body[:200]!r}")
    return body

def cpu_ns():
    # Every thread's time on a CPU, in ns (schedstat's first field): clock ticks are too coarse for a 0.05 ms read.
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return total

# The newest entry's apns-id and token: the lookup by apns-id walks the whole journal wherever its entry is, and the
# token's newest 50 are found from the end (with DEVICES > 1 they lie about 50 × DEVICES entries back).
newest = json.loads(get("/_emulator/journal?limit=1"))["entries"][0]
apns_id, token = newest["apnsId"], newest.get("token") or "none"
kinds = [
    ("health", "/_emulator/health"),
    ("journal_newest_1", "/_emulator/journal?limit=1"),
    ("journal_newest_200", "/_emulator/journal?limit=200"),
    ("journal_newest_500", "/_emulator/journal?limit=500"),
    ("journal_by_apns_id", f"/_emulator/journal?apnsId={apns_id}"),
    ("journal_newest_50_by_token", f"/_emulator/journal?token={token}&limit=50"),
    ("device_wall", "/_emulator/device-wall"),
]
floor = None
for name, path in kinds:
    size = len(get(path))  # once outside the count: the first read warms what the rest find in cache
    start = cpu_ns()
    for _ in range(reads):
        get(path)
    ms = (cpu_ns() - start) / 1e6 / reads
    floor = floor or ms
    print(f"read {name} ms {ms:.3f} x_health {ms / floor:.1f} bytes {size}")
PY
