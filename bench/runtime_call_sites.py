#!/usr/bin/env python3
"""Where the Swift runtime calls of bench/runtime-calls.sh come from: `perf script` of its uprobes (recorded with
DWARF call graphs) on standard input, and per thread and runtime function the calls per push of each calling
function: the first frame that is neither the runtime, the standard library (inlined or not) nor a compiler-made
value witness or outlined copy (the witness is named beside it: its caller is the code that asked for the copy or
destroy). perf drops some events when it unwinds this many, so each function's sites are scaled to the exact count
that `perf stat` gave for it over STAT_PUSHES pushes (STAT, its CSV): the figures estimate how that count divides.

    perf script -F comm,event,ip,sym | bench/runtime_call_sites.py PUSHES TOP STAT STAT_PUSHES
"""
import collections
import re
import shutil
import subprocess
import sys

# Value witnesses and outlined value operations that the compiler emits for a type (copy, destroy, assign, ...):
# the caller that matters is the one above them, and the type they act on is named with it.
WITNESS = re.compile(r"(Vwxx|Vwcp|Vwca|Vwta|Vwtk|Vwet|Vwst|VWOh|VWOc|VWOs|VWOb|VWOe|VWOy|WOh|WOc|WOs|WOb|WOe|WOy|WOi_|WOg)(Tm)?$")
HEADER = re.compile(r"\s*(.+?)\s+probe_[^:\s]+:(\w+):")


# The standard library's own symbols: `$ss…`, or `$sS` and a standard type's letter (`$sSa` Array, `$sSS` String).
STDLIB = re.compile(r"^\$s(s|S[a-zA-Z])")


def caller(stack):
    """The first frame that is code of ours, and the witness (if any) it went through."""
    witness = None
    for frame in stack[1:]:
        if frame.startswith(("swift_", "_swift_", "swift::", "[unknown]", "0x")) or STDLIB.match(frame):
            continue
        if WITNESS.search(frame):
            witness = witness or frame
            continue
        return frame, witness
    return "?", witness


def main():
    args = sys.argv[1:]
    if len(args) != 4 or not all(a.isdigit() for a in (args[0], args[1], args[3])) or int(args[0]) < 1 or int(args[3]) < 1:
        sys.exit("usage: runtime_call_sites.py PUSHES TOP STAT STAT_PUSHES < perf-script-output")
    pushes, top, stat_pushes = int(args[0]), int(args[1]), int(args[3])
    exact = {}
    try:
        with open(args[2]) as stat:
            for row in stat:
                fields = row.split(",")
                if len(fields) > 2 and fields[0].strip().isdigit() and ":" in fields[2]:
                    exact[fields[2].split(":")[-1]] = int(fields[0]) / stat_pushes
    except OSError as e:
        sys.exit(f"cannot read the perf stat counts: {e}")
    counts = collections.defaultdict(collections.Counter)
    totals = collections.Counter()
    header, stack = None, []

    def flush():
        if header is None:
            return
        totals[header] += 1
        counts[header][caller(stack)] += 1

    for line in sys.stdin:
        if not line.strip():
            continue
        m = HEADER.match(line)
        if m:  # a sample's first line (perf pads the thread's name, so it may start with spaces)
            flush()
            header, stack = (m.group(1).strip(), m.group(2)), []
        elif line[0].isspace():  # one of its frames: an address, then the symbol
            frame = line.split(None, 1)[-1].strip()
            stack.append(frame[:-len(" (inlined)")] if frame.endswith(" (inlined)") else frame)
    flush()
    if not totals:
        sys.exit("no probe samples on standard input")

    recorded = collections.Counter()
    for (_, function), n in totals.items():
        recorded[function] += n
    scale = {}
    for function, n in recorded.items():
        if function in exact:
            scale[function] = exact[function] / (n / pushes)
        else:
            print(f"(no exact count for {function}: its figures are as recorded, not scaled)", file=sys.stderr)
            scale[function] = 1.0
    names = {name for per in counts.values() for key in per for name in key if name}
    demangled = demangle(sorted(names))
    for key in sorted(totals, key=lambda k: -totals[k] * scale[k[1]]):
        thread, function = key
        k = scale[function] / pushes
        unknown = sum(n for (site, _), n in counts[key].items() if site == "?")
        note = f" ({100 * unknown / totals[key]:.0f}% of stacks cut short, unattributed)" if unknown else ""
        print(f"{function} on thread {thread}: {totals[key] * k:.2f} per push{note}")
        for (site, witness), n in counts[key].most_common(top):
            via = f"  (through {demangled.get(witness, witness)})" if witness else ""
            print(f"  {n * k:7.2f}  {demangled.get(site, site)}{via}")
        print()


def demangle(names):
    """Readable names through the toolchain's swift-demangle, when it is on PATH."""
    tool = shutil.which("swift-demangle")
    if not tool or not names:
        return {}
    out = subprocess.run([tool, "--simplified"], input="\n".join(names), capture_output=True, text=True)
    lines = out.stdout.splitlines()
    return dict(zip(names, lines)) if out.returncode == 0 and len(lines) == len(names) else {}


if __name__ == "__main__":
    main()
