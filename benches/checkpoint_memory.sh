#!/usr/bin/env bash
# Memory against n, with and without sqrt(n) checkpointing (one process per point).
# Usage: benches/checkpoint_memory.sh [path/to/tangent]
set -euo pipefail
bin="${1:-${CARGO_TARGET_DIR:-target}/release/tangent}"
cd "$(dirname "$0")/.."
for kind in for while; do
    for n in 100 1000 10000 100000; do
        for mode in off on; do
            "$bin" run benches/checkpoint_memory.py "$n" "$mode" "$kind"
        done
    done
done
