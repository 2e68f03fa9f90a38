import numpy as np
import tangent


def f(x, w):
    h = np.tanh(x * w)
    return np.sum(h * h, axis=0) + w


worst = tangent.explain(f, np.array([0.5, -1.0]), 0.7, wrt=(0, 1))
print("worst below 1e-6:", worst < 1e-6)


def loop(x, c):
    s = 0.0
    for t in range(1, len(x)):
        s = s + (x[t] - x[t - 1]) ** 2 * c
    return s


tangent.explain(loop, np.array([0.5, -1.0, 2.0]), 0.7, wrt=(0, 1))
tangent.explain(loop, np.array([0.5, -1.0, 2.0], dtype=np.float32), 0.7, wrt=(0, 1))
# A float32 array: native code computes in NumPy's float32 (the differences are those of
# the float64 function); NumPy's float32 hypot, which native code does not follow, runs
# interpreted.


def soft(x):
    s = 0.0
    for t in range(len(x)):
        s = s + np.hypot(x[t], 0.5) * 0.5
    return s


tangent.explain(soft, np.array([0.5, -1.0], dtype=np.float32))
