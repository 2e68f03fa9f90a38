"""Peak memory of a gradient call with and without tape liveness, on the workload of
the tape-liveness issue: 50 iterations over a 20,000-element array.

Run one configuration per process (peak memory is per process):
    tangent run benches/tape_liveness_memory.py on|off
Prints the growth of the process's peak resident memory during the gradient call (VmHWM
after the call minus VmRSS before it, in kB) and a checksum of the gradient.
benches/tape_liveness_memory.sh runs both and prints the reduction.
"""
import sys
import numpy as np
import tangent
from proc_memory import status_kb


def smooth(s):
    for i in range(50):
        a = s + 1.0
        s = a * 0.5 + s * 0.5
    return np.sum(s * s)


on = sys.argv[1] == "on"
x = np.linspace(0.0, 1.0, 20000)
df = tangent.grad(smooth, optimizations={"tape_liveness": on}, compile="python")
# Warm up allocator and interpreter on a small input, so the measured growth is the
# call's own arrays and tape.
df(np.linspace(0.0, 1.0, 10))
before = status_kb("VmRSS")
g = df(x)
peak = status_kb("VmHWM") - before
print("tape_liveness=%s peak_kB=%d checksum=%.17g" % (sys.argv[1], peak, float(np.sum(g * x))))
