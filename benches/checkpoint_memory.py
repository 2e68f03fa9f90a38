"""Memory of a gradient against the trip count n, with and without checkpointing.

Run one configuration per process (peak memory is per process):
    tangent run benches/checkpoint_memory.py N on|off [for|while]
Prints the process's peak resident memory growth during the gradient call (VmHWM after
minus VmRSS before, in kB), the tape's peak entry count, and the gradient.
benches/checkpoint_memory.sh runs the sweep up to n = 100,000.
"""
import math
import sys
import tangent
from proc_memory import status_kb


def recurrence(x, n):
    s = x
    for i in range(n):
        s = math.sin(s) * 0.9 + x * 0.1
    return s


def recurrence_while(x, n):
    """The same recurrence as a `while` loop (trip count unknown to the transformer)."""
    s = x
    i = 0
    while i < n:
        s = math.sin(s) * 0.9 + x * 0.1
        i = i + 1
    return s


state = {"held": 0, "peak": 0}
native_push, native_pop = tangent.push, tangent.pop


def push(stack, v):
    state["held"] += 1
    state["peak"] = max(state["peak"], state["held"])
    native_push(stack, v)


def pop(stack):
    state["held"] -= 1
    return native_pop(stack)


tangent.push, tangent.pop = push, pop
n = int(sys.argv[1])
checkpoint = sys.argv[2] == "on"
kind = sys.argv[3] if len(sys.argv) > 3 else "for"
# The interpreted adjoint: its tape is what this bench measures.
dr = tangent.grad(recurrence_while if kind == "while" else recurrence, checkpoint=checkpoint,
                  compile="python")
before = status_kb("VmRSS")
g = dr(0.3, n)
peak = status_kb("VmHWM") - before
print("loop=%s n=%d checkpoint=%s peak_kB=%d tape_peak_entries=%d grad=%.15g"
      % (kind, n, sys.argv[2], peak, state["peak"], g))
