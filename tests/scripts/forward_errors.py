import numpy as np
import tangent


def f(x, y):
    return np.sum(x * y)


df = tangent.autodiff(f, mode="forward", wrt=(0,))
x = np.array([1.0, 2.0, 3.0])
print("jvp:", df(x, 2.0, np.array([1.0, 0.0, 0.0])))
try:
    df(x, 2.0, np.array([1.0, 0.0]))
except ValueError as e:
    print("shape:", e)
try:
    df(x, 2.0)
except TypeError as e:
    print("count:", e)
dg = tangent.grad(f)
try:
    dg(x, 2.0, np.array([1.0, 2.0]))
except ValueError as e:
    print("seed:", e)
