#!/usr/bin/env python3
"""Summarises bench/transport.sh rounds: prints the summary and writes the JSON and Markdown results.

Input is the TSV the script collects, one line per (server, round):
server, round, done, succeeded, failed, errored, req/s, server CPU µs, µs/req, 2xx, 4xx, 5xx.
"""
import argparse
import datetime
import json
import os
import platform
import statistics
import sys

from round_ratios import median_interval

COLUMNS = ("server", "round", "done", "succeeded", "failed", "errored", "req_per_s", "server_cpu_us",
           "server_us_per_req", "status_2xx", "status_4xx", "status_5xx")


def read_rows(path):
    rows = []
    with open(path) as f:
        for line in f:
            values = line.rstrip("\n").split("\t")
            if len(values) != len(COLUMNS):
                continue
            row = dict(zip(COLUMNS, values))
            for key in COLUMNS[1:]:
                row[key] = float(row[key]) if key in ("req_per_s", "server_us_per_req") else int(row[key])
            rows.append(row)
    return rows


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", required=True)
    p.add_argument("--json", required=True)
    p.add_argument("--markdown", required=True)
    for name in ("requests", "rounds", "clients", "streams", "warmup"):
        p.add_argument("--" + name, type=int, required=True)
    for name in ("h2load-version", "nghttpd-version", "emulator-version", "commit"):
        p.add_argument("--" + name, default="")
    a = p.parse_args()

    rows = read_rows(a.rows)
    servers = [s for s in ("nghttpd", "emulator") if any(r["server"] == s for r in rows)]
    summary = {}
    for s in servers:
        mine = [r for r in rows if r["server"] == s]
        summary[s] = {
            "rounds": len(mine),
            "median_req_per_s": round(statistics.median(r["req_per_s"] for r in mine), 2),
            "median_server_us_per_req": round(statistics.median(r["server_us_per_req"] for r in mine), 3),
            "min_server_us_per_req": min(r["server_us_per_req"] for r in mine),
            "max_server_us_per_req": max(r["server_us_per_req"] for r in mine),
            "failed_or_errored": sum(r["failed"] + r["errored"] for r in mine),
            "non_2xx": sum(r["done"] - r["status_2xx"] for r in mine),
        }
    ratio = None
    if len(servers) == 2:
        # Pair each emulator round with the nghttpd run of the same round (just before or after it): both saw
        # about the same machine state.
        by_round = {}
        for r in rows:
            by_round.setdefault(r["round"], {})[r["server"]] = r["server_us_per_req"]
        pairs = [v["emulator"] / v["nghttpd"] for v in by_round.values()
                 if v.get("nghttpd", 0) > 0 and "emulator" in v]
        ratio = {
            "median_of_round_ratios": round(statistics.median(pairs), 3) if pairs else None,
            "ratio_of_medians": round(summary["emulator"]["median_server_us_per_req"]
                                      / summary["nghttpd"]["median_server_us_per_req"], 3)
            if summary["nghttpd"]["median_server_us_per_req"] > 0 else None,
            "per_round": [round(x, 3) for x in pairs],
        }
        if pairs:
            low, high, level = median_interval(sorted(pairs))
            ratio.update({"ci_low": round(low, 3), "ci_high": round(high, 3), "ci_level": round(level, 3)})

    now = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
    result = {
        "benchmark": "transport",
        "date": now.isoformat().replace("+00:00", "Z"),
        "commit": a.commit or None,
        "machine": {"cpus": os.cpu_count(), "kernel": platform.release(), "machine": platform.machine()},
        "tools": {"h2load": a.h2load_version, "nghttpd": a.nghttpd_version, "apns_emulator": a.emulator_version},
        "load": {"requests_per_round": a.requests, "rounds": a.rounds, "clients": a.clients,
                 "max_concurrent_streams": a.streams, "warmup_requests": a.warmup,
                 "request": "POST /3/device/<64 hex>, authorization: bearer <184-char JWT>, "
                            "apns-topic, 89-byte JSON body"},
        "rounds": rows,
        "summary": summary,
        "emulator_over_nghttpd_us_per_req": ratio,
    }
    with open(a.json, "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")

    lines = [
        f"# Transport benchmark, {result['date']}",
        "",
        f"Commit `{a.commit or 'uncommitted'}`; {os.cpu_count()} CPUs, Linux {platform.release()}; "
        f"{a.h2load_version or 'h2load'}.",
        f"Load per round: `h2load -n {a.requests} -c {a.clients} -m {a.streams}` POSTs "
        f"(64-hex token path, bearer JWT, apns-topic, small JSON body); {a.rounds} rounds per server, "
        f"alternating; {a.warmup} warm-up requests each.",
        "Server CPU is utime+stime of the server process (/proc/PID/stat) divided by requests done.",
        "",
        "| server | round | done | failed+errored | non-2xx | req/s | server µs/req |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['server']} | {r['round']} | {r['done']} | {r['failed'] + r['errored']} | "
                     f"{r['done'] - r['status_2xx']} | {r['req_per_s']:.0f} | {r['server_us_per_req']:.2f} |")
    lines += ["", "| server | median req/s | median server µs/req (min–max) |", "|---|---:|---:|"]
    for s, v in summary.items():
        lines.append(f"| {s} | {v['median_req_per_s']:.0f} | {v['median_server_us_per_req']:.2f} "
                     f"({v['min_server_us_per_req']:.2f}–{v['max_server_us_per_req']:.2f}) |")
    if ratio and ratio["median_of_round_ratios"] is not None:
        lines += ["", f"**emulator / nghttpd server µs per request: {ratio['median_of_round_ratios']:.2f}** "
                      f"(median of per-round ratios; ratio of medians {ratio['ratio_of_medians']:.2f}; "
                      f"interval of the median {ratio['ci_low']:.2f}–{ratio['ci_high']:.2f} at {ratio['ci_level']:.0%})."]
    with open(a.markdown, "w") as f:
        f.write("\n".join(lines) + "\n")

    print()
    print("summary (median of rounds):")
    for s, v in summary.items():
        warn = ""
        if v["failed_or_errored"] or v["non_2xx"]:
            warn = f"  [{v['failed_or_errored']} failed/errored, {v['non_2xx']} non-2xx]"
        print(f"  {s:<9} {v['median_req_per_s']:>11.0f} req/s  {v['median_server_us_per_req']:>7.2f} server µs/req{warn}")
    if ratio and ratio["median_of_round_ratios"] is not None:
        print(f"  emulator/nghttpd server µs/req: {ratio['median_of_round_ratios']:.2f} "
              f"(per round: {', '.join(f'{x:.2f}' for x in ratio['per_round'])}; "
              f"interval of the median {ratio['ci_low']:.2f}–{ratio['ci_high']:.2f} at {ratio['ci_level']:.0%})")
    print(f"results: {a.json}")
    print(f"         {a.markdown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
