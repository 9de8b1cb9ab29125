#!/usr/bin/env bash
# Runs each fuzz target under libFuzzer for a while and keeps every crash as a regression input.
#
#   scripts/fuzz.sh [TARGET…]        (default: every target; `make fuzz` calls it)
#   FUZZ_SECONDS (600 per target)  FUZZ_JOBS (1)  FUZZ_RSS_MB (2048)
#
# The fuzz binary is apns-emulator-fuzz built with coverage instrumentation, AddressSanitizer and libFuzzer's
# driver (-DLIBFUZZER), in .build/fuzz. Each target starts from its seeds (Tests/FuzzTargetsTests/Corpus/<target>)
# plus what earlier runs found (.build/fuzz-corpus/<target>, not committed); a crash, timeout or out-of-memory input
# is written to Tests/FuzzTargetsTests/Regressions/<target>/, which `make test` replays: commit it with the fix.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

SWIFT=${SWIFT:-swift}
SECONDS_PER_TARGET=${FUZZ_SECONDS:-600}
JOBS=${FUZZ_JOBS:-1}
RSS_MB=${FUZZ_RSS_MB:-2048}
TARGETS=("$@")
((${#TARGETS[@]})) || TARGETS=(validator provider-token payload-scanner scenario-yaml control-api front-doors)

swiftc_path=$(command -v swiftc)
runtime=$(dirname "$(dirname "$(readlink -f "$swiftc_path")")")/lib/clang
fuzzer_lib=$(find "$runtime" -name 'libclang_rt.fuzzer_no_main-x86_64.a' -print -quit 2>/dev/null || true)
[[ -n "$fuzzer_lib" ]] || { echo "fuzz: libclang_rt.fuzzer_no_main not found under $runtime (a Swift toolchain for Linux ships it)" >&2; exit 69; }

flags=(--scratch-path .build/fuzz --product apns-emulator-fuzz
       -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp
       -Xswiftc -DLIBFUZZER -Xlinker "$fuzzer_lib" -Xlinker -lstdc++)
echo "fuzz: building apns-emulator-fuzz with libFuzzer and AddressSanitizer (.build/fuzz)"
mkdir -p .build/fuzz
"$SWIFT" build "${flags[@]}" >.build/fuzz/build.log 2>&1 || { tail -40 .build/fuzz/build.log >&2; exit 1; }
binary=$("$SWIFT" build "${flags[@]}" --show-bin-path)/apns-emulator-fuzz

status=0
printf '%-16s %10s %12s %10s %8s\n' target seconds executions exec/s crashes
for target in "${TARGETS[@]}"; do
    seeds=Tests/FuzzTargetsTests/Corpus/$target
    kept=Tests/FuzzTargetsTests/Regressions/$target
    found=.build/fuzz-corpus/$target
    [[ -d "$seeds" ]] || { echo "fuzz: no target '$target' (no $seeds)" >&2; exit 64; }
    mkdir -p "$kept" "$found"
    before=$(find "$kept" -type f ! -name '.*' | wc -l)
    log=.build/fuzz/$target.log
    # Parallel jobs write their own logs in the working folder: run them in .build/fuzz.
    parallel=()
    ((JOBS > 1)) && parallel=(-jobs="$JOBS" -workers="$JOBS")
    (cd .build/fuzz && FUZZ_TARGET=$target "$binary" "$target" "../../$found" "../../$seeds" \
        -max_total_time="$SECONDS_PER_TARGET" -rss_limit_mb="$RSS_MB" -timeout=10 "${parallel[@]}" \
        -artifact_prefix="../../$kept/" -print_final_stats=1 >"../../$log" 2>&1) || true
    after=$(find "$kept" -type f ! -name '.*' | wc -l)
    runs=$(awk '/stat::number_of_executed_units/ { s += $2 } END { print s + 0 }' "$log")
    time=$(awk '/stat::total_time|Done [0-9]+ runs in/ { for (i = 1; i <= NF; i++) if ($i ~ /^[0-9]+$/) t = $i } END { print t + 0 }' "$log")
    ((time > 0)) || time=$SECONDS_PER_TARGET
    printf '%-16s %10s %12s %10s %8s\n' "$target" "$time" "$runs" "$((runs / time))" "$((after - before))"
    if ((after > before)); then
        status=1
        echo "fuzz: $target found $((after - before)) crashing input(s) in $kept (log: $log)" >&2
    fi
done
exit $status
