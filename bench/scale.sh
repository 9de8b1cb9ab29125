#!/usr/bin/env bash
# Memory and creation time at scale: TOKENS registered tokens without a device (POST /_emulator/tokens:batch of
# 10,000), then DEVICES virtual iPhones with one app each that has its token (POST /_emulator/devices:batch of
# 1,000 with register: authorization, GetToken, background), through the control API over one keep-alive
# connection. Prints
#   bytes_per_token N          (VmRSS growth over the tokens / TOKENS)
#   bytes_per_device N         (VmRSS growth over the devices, their own tokens included / DEVICES)
#   tokens_per_second N, devices_per_second N
# Goals: at most 512 bytes per token and 8 KiB per idle device.
#
#   bench/scale.sh   TOKENS (1000000) DEVICES (100000) APNS_EMULATOR_BIN (the release binary)
#   bench/scale.sh replicas    replicas sharing Redis behind HAProxy against one emulator (bench/scale-replicas.sh)
# Binds 127.0.0.1 only; stops what it started.
set -euo pipefail
if [[ "${1:-}" == replicas ]]; then exec "$(dirname "${BASH_SOURCE[0]}")/scale-replicas.sh"; fi
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
TOKENS=${TOKENS:-1000000}
DEVICES=${DEVICES:-100000}
((TOKENS >= 1 && DEVICES >= 1)) || bench_die "TOKENS and DEVICES must be at least 1"
bench_require curl python3

bench_prepare_certs
# Journal off: the control calls are not APNs requests, but nothing else should grow meanwhile.
bench_start_emulator --event-loops 1 --ephemeral --no-journal
control=$EMULATOR_CONTROL_URL
python3 - "$control" "$EMULATOR_PID" "$TOKENS" "$DEVICES" <<'PY'
import http.client, json, sys, time
from urllib.parse import urlsplit

control, pid, tokens, devices = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
url = urlsplit(control)
conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)

def call(method, path, body=None, expect=(200, 201)):
    conn.request(method, path, body=None if body is None else json.dumps(body),
                 headers={"content-type": "application/json"})
    r = conn.getresponse()
    data = r.read()
    if r.status not in expect:
        sys.exit(f"{method} {path}: {r.status} {data[:200]!r}")
    return json.loads(data) if data else None

def rss_kib():
    with open(f"/proc/{pid}/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

def settle_rss():
    # jemalloc returns freed pages in the background (over ~10 s): read once the figure stops moving for 2 s.
    last = rss_kib()
    for _ in range(15):
        time.sleep(2)
        now = rss_kib()
        if abs(now - last) < 64:
            return now
        last = now
    return last

base = settle_rss()
start = time.monotonic()
# POST /_emulator/tokens:batch of 10,000 (one POST /_emulator/tokens each took ~2,200 a second).
for first in range(0, tokens, 10000):
    n = min(10000, tokens - first)
    issued = call("POST", "/_emulator/tokens:batch", {"count": n, "bundleId": "com.example.app", "environment": "production"})
    if len(issued["tokens"]) != n:
        sys.exit("tokens:batch did not issue every token")
token_seconds = time.monotonic() - start
after_tokens = settle_rss()

start = time.monotonic()
# Batches of 1,000: one answer for 100,000 devices is 12 MB of JSON, which would count as the devices' memory
# until the allocator returns it.
for first in range(0, devices, 1000):
    n = min(1000, devices - first)
    batch = call("POST", "/_emulator/devices:batch", {"count": n, "idPrefix": f"scale-{first}-", "register": True,
                 "template": {"apps": [{"bundleId": "com.example.app", "build": "appStore"}]}})
    if len(batch["devices"]) != n or not all(d.get("tokens", {}).get("com.example.app") for d in batch["devices"]):
        sys.exit("devices:batch did not register every device")
device_seconds = time.monotonic() - start
after_devices = settle_rss()

print(f"rss_kib base {base} after_tokens {after_tokens} after_devices {after_devices}")
print(f"bytes_per_token {(after_tokens - base) * 1024 / tokens:.0f}")
print(f"bytes_per_device {(after_devices - after_tokens) * 1024 / devices:.0f}")
print(f"tokens_per_second {tokens / token_seconds:.0f} (POST /_emulator/tokens:batch of 10,000)")
print(f"devices_per_second {devices / device_seconds:.0f} (POST /_emulator/devices:batch of 1,000, registered)")
PY
