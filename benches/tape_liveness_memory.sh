#!/usr/bin/env bash
# Peak memory of the smoothing-loop gradient with tape liveness off and on (one process
# each). Usage: benches/tape_liveness_memory.sh [path/to/tangent]
set -euo pipefail
bin="${1:-${CARGO_TARGET_DIR:-target}/release/tangent}"
cd "$(dirname "$0")/.."
off=$("$bin" run benches/tape_liveness_memory.py off)
on=$("$bin" run benches/tape_liveness_memory.py on)
echo "$off"
echo "$on"
kb() { sed -E 's/.*peak_kB=([0-9]+).*/\1/' <<<"$1"; }
sum() { sed -E 's/.*checksum=([^ ]+).*/\1/' <<<"$1"; }
awk -v a="$(kb "$off")" -v b="$(kb "$on")" 'BEGIN { printf "peak memory reduced by %.1f%%\n", 100 * (1 - b / a) }'
[ "$(sum "$off")" = "$(sum "$on")" ] && echo "identical gradients" || { echo "gradients differ"; exit 1; }
