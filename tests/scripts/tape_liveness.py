"""Tape liveness on the issue's workload: a loop of 50 iterations over a 20,000-element
array. Measures the peak number of bytes held by the tape during the gradient call (by
wrapping tangent.push/pop) with the pass off and on, and checks the gradients agree."""
import numpy as np
import tangent


def smooth(s):
    for i in range(50):
        a = s + 1.0
        s = a * 0.5 + s * 0.5
    return np.sum(s * s)


def nbytes(v):
    if isinstance(v, np.ndarray):
        return v.size * v.dtype.itemsize
    if isinstance(v, (list, tuple)):
        return sum(nbytes(x) for x in v)
    return 8


state = {"held": 0, "peak": 0}
native_push, native_pop = tangent.push, tangent.pop


def push(stack, v):
    state["held"] += nbytes(v)
    state["peak"] = max(state["peak"], state["held"])
    native_push(stack, v)


def pop(stack):
    v = native_pop(stack)
    state["held"] -= nbytes(v)
    return v


tangent.push, tangent.pop = push, pop
x = np.linspace(-1.0, 1.0, 20000)
results = {}
for on in (False, True):
    state["held"] = state["peak"] = 0
    g = tangent.grad(smooth, optimizations={"tape_liveness": on}, compile="python")
    results[on] = (g(x), state["peak"])
    if on:
        print(g.__tangent_source__)
same = bool(np.all(results[False][0] == results[True][0]))
off, on = results[False][1], results[True][1]
print("tape peak bytes: off %d, on %d, reduction %.1f%%" % (off, on, 100.0 * (1 - on / off)))
print("identical gradients:", same)
