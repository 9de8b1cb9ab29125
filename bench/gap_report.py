"""bench/gap.sh's report: per-component µs per request for the emulator and nghttpd, and where the gap is.

Input lines: server, round, µs/req of that round (from /proc), sampled thread id, library file name.
The serving thread is the one with the most samples in a round; its samples go to nghttp2, TLS (libssl,
libcrypto), the kernel or the server's own code (the executable, its runtime, libc and the allocator);
every other thread's go to "other threads" (the emulator's delivery engine, mostly).
"""
import collections
import json
import statistics
import sys

COMPONENTS = ["nghttp2", "TLS", "kernel", "own code", "other threads"]


def component(dso):
    if dso.startswith("libnghttp2"):
        return "nghttp2"
    if dso.startswith("libssl") or dso.startswith("libcrypto"):
        return "TLS"
    if dso.startswith("[") and dso != "[vdso]":
        return "kernel"  # the kernel and its modules
    return "own code"


def per_round(lines):
    """{(server, round): (µs/req, Counter of component samples)}"""
    rounds = {}
    for server, rnd, us, tid, dso in lines:
        entry = rounds.setdefault((server, int(rnd)), {"us": float(us), "threads": collections.defaultdict(collections.Counter)})
        entry["threads"][tid][component(dso)] += 1
    out = {}
    for key, entry in rounds.items():
        threads = entry["threads"]
        serving = max(threads, key=lambda t: sum(threads[t].values()))
        counts = collections.Counter()
        for tid, c in threads.items():
            if tid == serving:
                counts.update(c)
            else:
                counts["other threads"] += sum(c.values())
        out[key] = (entry["us"], counts)
    return out


def main():
    samples_file, prefix, commit, journal, pushes, devices = sys.argv[1:7]
    lines = [l.rstrip("\n").split("\t") for l in open(samples_file) if l.strip()]
    if not lines:
        sys.exit("gap_report.py: perf recorded no samples")
    rounds = per_round(lines)
    table = {}
    for server in ("emulator", "nghttpd"):
        mine = [v for (s, _), v in sorted(rounds.items()) if s == server]
        if not mine:
            sys.exit(f"gap_report.py: no samples of {server}")
        table[server] = {
            "us_per_request": round(statistics.mean(us for us, _ in mine), 2),
            "components": {
                c: round(statistics.mean(us * counts[c] / sum(counts.values()) for us, counts in mine), 2)
                for c in COMPONENTS
            },
            "samples": sum(sum(counts.values()) for _, counts in mine),
        }
    em, ng = table["emulator"]["components"], table["nghttpd"]["components"]
    gap = sum(em.values()) - sum(ng.values())
    rows = ["| component | emulator µs/req | nghttpd µs/req | difference | share of the gap |", "|---|---|---|---|---|"]
    for c in COMPONENTS:
        d = em[c] - ng[c]
        share = f"{100 * d / gap:.0f}%" if gap > 0 else "—"
        rows.append(f"| {c} | {em[c]:.2f} | {ng[c]:.2f} | {d:+.2f} | {share} |")
    rows.append(f"| all (sum of the parts) | {sum(em.values()):.2f} | {sum(ng.values()):.2f} | {gap:+.2f} | |")
    ratio = table["emulator"]["us_per_request"] / table["nghttpd"]["us_per_request"]
    md = "\n".join([
        f"# Gap to nghttpd by component ({commit}, journal {'on' if journal == 'true' else 'off'}, {pushes} pushes a round"
        f" over {devices} device{'s' if devices != '1' else ''})",
        "",
        f"Mean µs/req under perf: emulator {table['emulator']['us_per_request']}, nghttpd "
        f"{table['nghttpd']['us_per_request']} (ratio {ratio:.2f}; perf's own cost is in both).",
        "",
        *rows,
        "",
    ])
    print(md)
    open(prefix + ".md", "w").write(md)
    json.dump({"commit": commit, "journal": journal == "true", "pushes_per_round": int(pushes), "devices": int(devices),
               "servers": table,
               "ratio_under_perf": round(ratio, 3)}, open(prefix + ".json", "w"), indent=2)
    print(f"results: {prefix}.md\n         {prefix}.json")


if __name__ == "__main__":
    main()
