"""A new process's cost with an empty disk cache (cold) and with a filled one (warm).

Runs `tangent run benches/workloads_grad.py` (one gradient of each DESIGN.md workload)
in fresh processes and prints the median wall time of each kind, plus the disk cache
turned off for reference. Run with any Python 3 from the repository root:

    python3 benches/cache_cold_warm.py [path/to/tangent] [runs]
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(target, "release", "tangent")
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 7
script = os.path.join(root, "benches", "workloads_grad.py")


def one_process(env):
    start = time.perf_counter()
    subprocess.run([binary, "run", script], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def main():
    base = dict(os.environ)
    cold, warm, off = [], [], []
    for _ in range(runs):
        cache = tempfile.mkdtemp(prefix="tangent-bench-cache-")
        env = dict(base, TANGENT_CACHE_DIR=cache)
        try:
            cold.append(one_process(env))  # empty directory: every derivative is built
            warm.append(one_process(env))  # the entries just written are read back
        finally:
            shutil.rmtree(cache)
        off.append(one_process(dict(base, TANGENT_DISK_CACHE="0")))
    for name, times in (("cold", cold), ("warm", warm), ("disk cache off", off)):
        print("%-15s median %7.1f ms  (min %.1f, max %.1f, %d runs)" % (
            name, statistics.median(times) * 1e3, min(times) * 1e3, max(times) * 1e3,
            len(times)))


if __name__ == "__main__":
    main()
