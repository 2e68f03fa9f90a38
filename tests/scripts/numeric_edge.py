import math
import numpy as np
import tangent


def f(x):
    return np.sum(x * x * 1.5)


def g(x):
    return x * x


df = tangent.grad(f)
gi = df(np.array([1, 2, 3]))
print("int array input:", gi.tolist(), gi.dtype)
print("int scalar input:", tangent.grad(g)(3))
print("nan propagates:", tangent.grad(f)(np.array([1.0, np.nan])).tolist())
print("inf propagates:", tangent.grad(f)(np.array([np.inf, 1.0])).tolist())
x32 = np.array([1.0, 2.0], dtype=np.float32)
print("float32 gradient dtype:", tangent.grad(f)(x32).dtype)
