"""Quickstart: differentiate Python functions with tangent, no CPython needed.

Run with:  cargo run --release -- run examples/quickstart.py
"""
import math
import numpy as np
import tangent


def f(x):
    a = x * x
    b = x * a
    return a + b


df = tangent.grad(f)
print("f(x) = x^2 + x^3; df/dx at 2.0 =", df(2.0))   # 2x + 3x^2 = 16
print(df.__tangent_source__)


def recurrence(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = math.sin(s) * x
        else:
            s = s * s + x
    return s


drec = tangent.grad(recurrence)
print("d recurrence / dx at 0.3, n=20:", drec(0.3, 20))


def loss(w, x):
    h = np.tanh(x @ w)
    return np.sum(h * h)


dloss = tangent.grad(loss)
x = np.array([[0.1, 0.2], [0.3, -0.4]])
w = np.array([[0.5, -0.1], [0.2, 0.3]])
print("d loss / dw =")
print(dloss(w, x))
