"""Per-round ratios to the reference server, shared by bench/apns.sh and bench/load.sh."""
import statistics


def per_round_ratios(by, reference="nghttpd"):
    """{server: {"min", "median", "max"}} of each round's µs/request over the reference's in the same round.

    Each round runs the servers back to back, so a round's ratio sees the same machine weather: their spread
    says how far to trust the ratio of medians on a noisy (shared, virtual) machine.
    """
    reference_us = {r["round"]: r["us"] for r in by[reference]}
    ratios = {}
    for server, rounds in by.items():
        if server == reference:
            continue
        rs = sorted(r["us"] / reference_us[r["round"]] for r in rounds if reference_us.get(r["round"]))
        if rs:
            ratios[server] = {"min": round(rs[0], 3), "median": round(statistics.median(rs), 3),
                              "max": round(rs[-1], 3)}
    return ratios


def spread(ratios, server):
    """The "min–max" cell of a markdown table ("" for the reference)."""
    p = ratios.get(server)
    return f"{p['min']:.2f}–{p['max']:.2f}" if p else ""
