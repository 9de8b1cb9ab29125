#!/usr/bin/env bash
# Swift runtime calls per accepted push, counted exactly with uprobes: retain/release (plain and bridged),
# uniqueness checks, object allocations, and malloc. CPU-time ratios on a shared virtual machine move by
# ±15% from round to round; these counts do not, so they show whether a change to the hot path removed
# reference-counting traffic even when the timing cannot.
#
#   bench/runtime-calls.sh          PUSHES (30000) WARMUP (120000) CLIENTS (8) STREAMS (100) JOURNAL (true)
#                                   DEVICE (0; 1 = push to a virtual device's token, so delivery is counted too)
#                                   SITES (0; N = then, over SITES_PUSHES (3000) more pushes, the N functions
#                                   calling each runtime entry most, per thread, from the probes' call graphs)
#
# Needs root and perf with uprobe support (`perf probe`). Adds the probes it needs (kept for later runs;
# `perf probe -d 'probe_libswiftCore:*'` removes them). Binds 127.0.0.1 only; stops what it started.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PUSHES=${PUSHES:-30000}
WARMUP=${WARMUP:-120000}
CLIENTS=${CLIENTS:-8}
STREAMS=${STREAMS:-100}
JOURNAL=${JOURNAL:-true}
DEVICE=${DEVICE:-0}
SITES=${SITES:-0}
# Every runtime call is a sample of a few KiB with its stack: ~200 a push, so a few thousand pushes are plenty.
SITES_PUSHES=${SITES_PUSHES:-3000}
bench_whole_numbers 0 WARMUP SITES
bench_whole_numbers 1 PUSHES SITES_PUSHES
((SITES_PUSHES <= 20000)) || { echo "SITES_PUSHES must be at most 20000" >&2; exit 64; }

bench_require perf h2load curl python3 ldd nm
[[ $(id -u) == 0 ]] || bench_die "uprobes need root"
[[ -x "$APNS_EMULATOR_BIN" ]] || bench_die "$APNS_EMULATOR_BIN not found; run 'make build' first"
bench_prepare_certs

swift_core=$(ldd "$APNS_EMULATOR_BIN" | awk '$1 ~ /^libswiftCore\.so/ { print $3 }')
# malloc is jemalloc's where the executable links it (it does: Sources/apns-emulator/main.swift), else glibc's.
# jemalloc's is probed by address: by name perf also probes the library's own malloc@plt stub, and an event
# named plain "malloc" clashes with glibc's.
jemalloc=$(ldd "$APNS_EMULATOR_BIN" | awk '$1 ~ /^libjemalloc\.so/ { print $3 }')
libc=$(ldd "$APNS_EMULATOR_BIN" | awk '$1 ~ /^libc\.so/ { print $3 }')
[[ -n "$swift_core" && -n "$libc" ]] || bench_die "cannot find libswiftCore or libc of $APNS_EMULATOR_BIN"
if [[ -n "$jemalloc" ]]; then
    address=$(nm -D --defined-only "$jemalloc" | awk '$3 == "malloc" { print $1 }')
    [[ -n "$address" ]] || bench_die "no malloc in $jemalloc"
    malloc_probe=(-x "$jemalloc" --add "jemalloc_malloc=0x$address") malloc_event=probe_libjemalloc:jemalloc_malloc
else
    malloc_probe=(-x "$libc" --add malloc) malloc_event=probe_libc:malloc
fi
FUNCTIONS=(swift_retain swift_release swift_bridgeObjectRetain swift_bridgeObjectRelease
    swift_isUniquelyReferenced_nonNull_native swift_allocObject)
events=()
# Each probe is added afresh: one left by an earlier run may point into an older build of its library.
for f in "${FUNCTIONS[@]}"; do
    perf probe -q -d "probe_libswiftCore:$f" 2>/dev/null || true
    perf probe -q -x "$swift_core" --add "$f" 2>/dev/null || true
    events+=("probe_libswiftCore:$f")
done
perf probe -q -d "$malloc_event" 2>/dev/null || true
perf probe -q "${malloc_probe[@]}" 2>/dev/null || true
events+=("$malloc_event")
for e in "${events[@]}"; do
    perf probe -l 2>/dev/null | grep -q "${e} " || bench_die "uprobe $e could not be added (see 'perf probe -x … --add')"
done

bench_write_body
bench_start_emulator --event-loops 1 --ephemeral --no-sample-key
control=$EMULATOR_CONTROL_URL
bench_register_key "$control"
if [[ "$DEVICE" == 1 ]]; then bench_register_device "$control"; else bench_register_token "$control"; fi
REQUEST_PATH=/3/device/$TOKEN
curl -fsS -X PUT -d "{\"enabled\":$JOURNAL}" "$control/_emulator/journal/settings" >/dev/null
((WARMUP > 0)) && bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" "$WARMUP" "$BENCH_TMP/warmup.txt"

# Counted in the emulator only, for exactly the duration of one h2load run.
stat=$BENCH_TMP/stat.csv
bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" "$PUSHES" "$BENCH_TMP/h2load.txt" \
    perf stat -x, -e "$(IFS=,; echo "${events[*]}")" -p "$EMULATOR_PID" -o "$stat" --
grep -q "status codes: $PUSHES 2xx" "$BENCH_TMP/h2load.txt" \
    || { cat "$BENCH_TMP/h2load.txt" >&2; bench_die "not every push was accepted"; }

printf 'calls per accepted push (%d pushes, journal %s, %s):\n' "$PUSHES" "$JOURNAL" \
    "$([[ "$DEVICE" == 1 ]] && echo "delivered to a virtual device" || echo "no device")"
awk -F, -v n="$PUSHES" '/probe_/ { split($3, name, ":"); printf "  %-45s %8.2f\n", name[2], $1 / n }' "$stat"

if ((SITES > 0)); then
    # A second run, recorded with call graphs unwound from DWARF (frame pointers lose the caller at a probe on a
    # function's entry); perf stat above counted without that cost, and its counts scale what this one records.
    sites=$BENCH_TMP/sites.data
    bench_h2load_pushes "$EMULATOR_PRODUCTION_PORT" "$SITES_PUSHES" "$BENCH_TMP/h2load-sites.txt" \
        perf record -q --call-graph dwarf,4096 $(printf -- '-e %s ' "${events[@]}") -p "$EMULATOR_PID" -o "$sites" --
    grep -q "status codes: $SITES_PUSHES 2xx" "$BENCH_TMP/h2load-sites.txt" \
        || { cat "$BENCH_TMP/h2load-sites.txt" >&2; bench_die "not every push was accepted"; }
    perf script -i "$sites" -F comm,event,ip,sym >"$BENCH_TMP/sites.txt" 2>"$BENCH_TMP/perf-script.txt" \
        || { cat "$BENCH_TMP/perf-script.txt" >&2; bench_die "perf script failed on $sites"; }
    printf '\nwhere they are called from (%d more pushes; the first caller outside the runtime, the standard library and\nvalue witnesses; estimates, scaled to the counts above):\n' "$SITES_PUSHES"
    python3 "$BENCH_DIR/runtime_call_sites.py" "$SITES_PUSHES" "$SITES" "$stat" "$PUSHES" <"$BENCH_TMP/sites.txt" \
        || bench_die "runtime_call_sites.py could not read $BENCH_TMP/sites.txt"
fi
