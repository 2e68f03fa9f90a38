import numpy as np
import tangent


def f(x, w):
    h = np.tanh(x * w)
    return np.sum(h * h) + w


worst = tangent.explain(f, np.array([0.5, -1.0]), 0.7, wrt=(0, 1))
print("worst below 1e-6:", worst < 1e-6)
