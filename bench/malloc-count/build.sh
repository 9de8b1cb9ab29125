#!/usr/bin/env bash
# Builds the allocation-counting LD_PRELOAD shim into $1 (default: bench/malloc-count/libmalloc_count.so).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=${1:-$here/libmalloc_count.so}
cc -O2 -shared -fPIC -o "$out" "$here/malloc_count.c" -ldl -lpthread
echo "$out"
