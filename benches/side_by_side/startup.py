"""The cost of starting: run by run.py in the embedded host with no disk cache.

    tangent run --embedded startup.py

Prints one JSON line: `import_ms` (`import tangent` and numpy) and `grad_ms` (the first
`tangent.grad` of a 30-line function in this process: parsing, transforming, printing
and compiling the derivative; no disk cache)."""
import json
import time

t0 = time.perf_counter()
import numpy as np  # noqa: E402
import tangent  # noqa: E402
imported = time.perf_counter() - t0


def thermal_step(u, t_out, k):
    """A 30-line scalar model: a few steps of a damped heater with a clipped input."""
    temp = 15.0
    cost = 0.0
    gain = 0.8 * k
    loss_rate = 0.1 + 0.05 * k
    for i in range(4):
        drive = u * gain
        if drive > 3.0:
            drive = 3.0 + 0.1 * (drive - 3.0)
        leak = loss_rate * (temp - t_out)
        temp = temp + 0.5 * (drive - leak)
        error = temp - 20.0
        cost = cost + error * error
        cost = cost + 0.01 * drive * drive
    smooth = np.tanh(cost / 100.0)
    penalty = 0.0
    if temp > 25.0:
        penalty = (temp - 25.0) ** 2
    elif temp < 10.0:
        penalty = (10.0 - temp) ** 2
    ratio = cost / (1.0 + abs(u))
    mix = 0.5 * smooth + 0.5 * ratio
    mix = mix + penalty
    scale = np.exp(-0.01 * k)
    result = mix * scale
    result = result + 0.001 * u * u
    return result


t0 = time.perf_counter()
df = tangent.grad(thermal_step)
graded = time.perf_counter() - t0
df(1.5, 5.0, 1.2)  # the derivative runs
print(json.dumps({"import_ms": imported * 1e3, "grad_ms": graded * 1e3}))
