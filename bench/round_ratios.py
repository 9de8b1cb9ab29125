"""Per-round ratios to the reference server, shared by bench/apns.sh and bench/load.sh."""
import math
import statistics


# Server CPU per request over nghttpd's that the issues set (journal on, journal off).
GOALS = {"emulator-journal": 1.25, "emulator-nojournal": 1.1}
# With pushes spread over more than one device (the issue sets them for 10,000) delivery works on cold state: the
# goals are wider. Any load over more than one device is judged by them; one device keeps the tighter ones.
SPREAD_GOALS = {"emulator-journal": 1.3, "emulator-nojournal": 1.2}


def goals_for(devices):
    """The CPU-ratio goals for a load spread over `devices` virtual devices."""
    return GOALS if devices <= 1 else SPREAD_GOALS


def median_interval(sorted_values, level=0.9):
    """A distribution-free confidence interval for the median: (low, high, coverage).

    With n values sorted, [x(k), x(n+1-k)] holds the true median with probability 1 - 2·P(Binomial(n, ½) < k)
    whatever the distribution (the rounds' noise on a shared VM is neither normal nor symmetric). k is the
    largest rank giving at least `level`; with fewer than 5 values no interval reaches 90% and the whole
    range is returned with its (lower) coverage.
    """
    n = len(sorted_values)
    if n == 0:
        return None
    def below(k):  # P(Binomial(n, 1/2) < k)
        return sum(math.comb(n, i) for i in range(k)) / 2 ** n
    k = 1
    while k + 1 <= (n + 1) // 2 and 1 - 2 * below(k + 1) >= level:
        k += 1
    return sorted_values[k - 1], sorted_values[n - k], 1 - 2 * below(k)


def per_round_ratios(by, reference="nghttpd"):
    """{server: {"min", "median", "max", "ci_low", "ci_high", "ci_level"}} of each round's µs/request over
    the reference's in the same round.

    Each round runs the servers back to back, so a round's ratio sees the same machine weather: their spread
    says how far to trust the ratio of medians on a noisy (shared, virtual) machine, and the interval says
    whether a goal is met, missed, or not decided by this many rounds.
    """
    reference_us = {r["round"]: r["us"] for r in by[reference]}
    ratios = {}
    for server, rounds in by.items():
        if server == reference:
            continue
        rs = sorted(r["us"] / reference_us[r["round"]] for r in rounds if reference_us.get(r["round"]))
        if rs:
            low, high, coverage = median_interval(rs)
            ratios[server] = {"min": round(rs[0], 3), "median": round(statistics.median(rs), 3),
                              "max": round(rs[-1], 3), "ci_low": round(low, 3), "ci_high": round(high, 3),
                              "ci_level": round(coverage, 3)}
    return ratios


def verdict(paired, server, goal):
    """"met" when the whole interval is at or under `goal`, "missed" when it is all above, else "undecided"."""
    p = paired.get(server)
    if not p:
        return "undecided"
    if p["ci_high"] <= goal:
        return "met"
    if p["ci_low"] > goal:
        return "missed"
    return "undecided"


def spread(ratios, server):
    """The "min–max" cell of a markdown table ("" for the reference)."""
    p = ratios.get(server)
    return f"{p['min']:.2f}–{p['max']:.2f}" if p else ""


def interval(ratios, server):
    """The "low–high (level)" cell of a markdown table ("" for the reference)."""
    p = ratios.get(server)
    return f"{p['ci_low']:.2f}–{p['ci_high']:.2f} ({p['ci_level']:.0%})" if p else ""
