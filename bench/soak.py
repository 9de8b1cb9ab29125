#!/usr/bin/env python3
"""The soak's rounds and checks (bench/soak.sh starts the emulator and the devices, then runs this).

Each round: the control plane is put in one of three modes (plain; a 2% brownout of 503s; GOAWAY after 500
requests with 50 ServiceUnavailable faults), `apns-emulator bench` sends RATE pushes a second to the devices'
tokens while a side thread churns connections and devices, then the round is checked and its state cleared.
"""
import argparse
import json
import subprocess
import sys
import threading
import time
import urllib.request

UNANSWERED = ("ConnectionClosed", "SubmitFailed", "NotSent", "ConnectFailed")


def control(base, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(base + path, data=data, method=method)
    with urllib.request.urlopen(request, timeout=120) as reply:
        text = reply.read()
        return json.loads(text) if text else None


ARRIVALS = ("shown", "suppressed", "delivered")  # the fates of a push that reached its device and app


def fates(base):
    """`apns_emulator_deliveries_total` by fate."""
    counts = {}
    with urllib.request.urlopen(base + "/metrics", timeout=30) as reply:
        for line in reply.read().decode().splitlines():
            if line.startswith('apns_emulator_deliveries_total{fate="'):
                counts[line.split('"')[1]] = int(float(line.split()[-1]))
    return counts


def rss_mib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def last_journal_id(base):
    entries = control(base, "GET", "/_emulator/journal?limit=1")["entries"]
    return entries[-1]["id"] if entries else 0


class Churn(threading.Thread):
    """Short connections (a curl push with no provider token: 403) and devices added and removed, until stopped."""

    def __init__(self, args, round_index):
        super().__init__(daemon=True)
        self.args, self.round_index, self.stop = args, round_index, threading.Event()
        self.connections = self.devices = self.failures = 0
        self.why = []

    def run(self):
        url = f"https://api.push.apple.com:{self.args.port}/3/device/{'ab' * 32}"
        n = 0
        while not self.stop.wait(0.25):
            curl = subprocess.run(["curl", "-sS", "-o", "/dev/null", "-w", "%{http_code}", "--http2", "--cacert",
                                   self.args.ca, "--resolve", f"api.push.apple.com:{self.args.port}:127.0.0.1",
                                   "-d", "{}", url], capture_output=True, text=True, timeout=30)
            self.connections += 1
            if curl.stdout not in ("403", "503"):  # no provider token, or the brownout's share
                self.failures += 1
                self.why.append(f"curl answered {curl.stdout or curl.stderr.strip()}")
            n += 1
            if n % 8 == 0:
                device = f"churn-{self.round_index}-{n}"
                try:
                    control(self.args.control, "POST", "/_emulator/devices",
                            {"id": device, "apps": [{"bundleId": "com.example.churn"}]})
                    control(self.args.control, "DELETE", f"/_emulator/devices/{device}")
                    self.devices += 1
                except OSError as error:
                    self.failures += 1
                    self.why.append(f"device {device}: {error}")


def configure(base, mode):
    control(base, "DELETE", "/_emulator/faults")
    shaping = {"brownoutShare": 0, "goAwayAfterRequests": 0}
    if mode == 1:
        shaping["brownoutShare"] = 0.02
        shaping["brownoutStatus"] = 503
    elif mode == 2:
        shaping["goAwayAfterRequests"] = 500
        control(base, "POST", "/_emulator/faults", {"topic": "com.example.app", "count": 50,
                                                   "action": {"type": "reason", "reason": "ServiceUnavailable"}})
    control(base, "PUT", "/_emulator/shaping", shaping)


def main():
    p = argparse.ArgumentParser()
    for name in ("binary", "control", "ca", "report", "work"):
        p.add_argument("--" + name, required=True)
    for name in ("pid", "port", "seconds", "round", "connections"):
        p.add_argument("--" + name, type=int, required=True)
    p.add_argument("--rate", type=float, required=True)
    p.add_argument("--rss-growth-mib", type=float, required=True)
    args = p.parse_args()

    rounds, failures = [], []
    began = time.monotonic()
    warm_rss = None
    index = 0
    while time.monotonic() - began + args.round <= args.seconds or index == 0:
        mode = index % 3
        configure(args.control, mode)
        after = last_journal_id(args.control)
        fates_before = fates(args.control)
        churn = Churn(args, index)
        churn.start()
        out = f"{args.work}/soak-round-{index}.json"
        bench = subprocess.run([args.binary, "bench", "--target", f"https://127.0.0.1:{args.port}", "--control",
                                args.control, "--ca", args.ca, "--registered-tokens", "--rate", str(args.rate),
                                "--duration", str(args.round), "--connections", str(args.connections),
                                "--streams", "50", "--json", out], capture_output=True, text=True,
                               timeout=args.round * 3 + 120)
        churn.stop.set()
        churn.join()
        if bench.returncode not in (0, 1):
            failures.append(f"round {index}: bench exited {bench.returncode}: {bench.stderr[-500:]}")
            break
        report = json.load(open(out))
        control(args.control, "POST", "/_emulator/settle", {"timeoutSeconds": 120})
        journaled = control(args.control, "GET", f"/_emulator/journal/count?status=200&after={after}")["count"]
        sample = control(args.control, "GET", f"/_emulator/journal?status=200&after={after}")["entries"]
        ids = [e["apnsId"] for e in sample]
        fates_after = fates(args.control)
        fate_delta = {k: v - fates_before.get(k, 0) for k, v in fates_after.items() if v != fates_before.get(k, 0)}
        delivered = sum(fate_delta.get(k, 0) for k in ARRIVALS)
        unanswered = sum(report["errors"].get(k, 0) for k in UNANSWERED)
        rss = rss_mib(args.pid)
        if index <= 2:  # the warm-up: one round of each mode fills the caches, pools and rings
            warm_rss = max(warm_rss or 0, rss)
        row = {"round": index, "mode": ["plain", "brownout", "goaway+faults"][mode], "requests": report["requests"],
               "succeeded": report["succeeded"], "journaled200": journaled, "delivered": int(delivered), "fates": fate_delta,
               "unanswered": unanswered, "errors": report["errors"],
               "connectionsReopened": report["connectionsReopened"], "churnConnections": churn.connections,
               "churnDevices": churn.devices, "churnFailures": churn.failures, "rssMiB": round(rss, 1),
               "p99Ms": report["latencyMs"]["p99"]}
        rounds.append(row)
        problems = []
        if journaled != report["succeeded"]:
            problems.append(f"{report['succeeded']} answered 200 but {journaled} such journal entries")
        if len(ids) != len(set(ids)):
            problems.append(f"{len(ids) - len(set(ids))} apns-ids journaled twice")
        if int(delivered) != report["succeeded"]:
            problems.append(f"{report['succeeded']} accepted but {int(delivered)} reached their device")
        if unanswered:
            problems.append(f"{unanswered} requests without an answer ({report['errors']})")
        if churn.failures:
            problems.append(f"{churn.failures} churn calls failed ({'; '.join(churn.why[:3])})")
        if index > 2 and rss - warm_rss > args.rss_growth_mib:
            problems.append(f"RSS {rss:.0f} MiB, {rss - warm_rss:.0f} MiB above the warm {warm_rss:.0f} MiB")
        failures += [f"round {index}: {problem}" for problem in problems]
        print(f"round {index:3d} {row['mode']:14s} requests {row['requests']:7d} ok {row['succeeded']:7d} "
              f"journaled {journaled:7d} delivered {int(delivered):7d} unanswered {unanswered} "
              f"reopened {row['connectionsReopened']:3d} churn {churn.connections:3d}/{churn.devices:2d} "
              f"rss {rss:6.1f} MiB p99 {row['p99Ms']:.1f} ms {'OK' if not problems else 'FAIL: ' + '; '.join(problems)}",
              flush=True)
        control(args.control, "DELETE", "/_emulator/journal")
        control(args.control, "POST", "/_emulator/clock/advance", {"seconds": 1800})
        index += 1

    total = {k: sum(r[k] for r in rounds) for k in ("requests", "succeeded", "journaled200", "delivered",
                                                      "unanswered", "connectionsReopened", "churnConnections")}
    rss_values = [r["rssMiB"] for r in rounds]
    summary = {"seconds": round(time.monotonic() - began), "rounds": len(rounds), **total,
               "rssWarmMiB": warm_rss, "rssMaxMiB": max(rss_values) if rss_values else None,
               "rssLastMiB": rss_values[-1] if rss_values else None, "rssGrowthBoundMiB": args.rss_growth_mib,
               "failures": failures, "roundsDetail": rounds}
    json.dump(summary, open(args.report, "w"), indent=2)
    print(f"soak: {summary['seconds']} s, {len(rounds)} rounds, {total['requests']} requests, {total['succeeded']} "
          f"accepted, {total['journaled200']} journaled once, {total['delivered']} delivered, {total['unanswered']} "
          f"unanswered, {total['connectionsReopened']} connections recycled, {total['churnConnections']} churned; "
          f"RSS warm {warm_rss} MiB, max {summary['rssMaxMiB']} MiB, last {summary['rssLastMiB']} MiB; "
          f"{'PASS' if not failures else 'FAIL'} ({args.report})")
    for failure in failures:
        print("  " + failure)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
