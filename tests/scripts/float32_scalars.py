"""Float32 in, float32 out: NumPy's float32 scalars (indexing, reductions) in derivatives.

Each gradient is checked against central differences of the same function evaluated in
float64 (float32's precision: 1e-3 relative), and its type and dtype are printed; the
bridge test runs this script in both hosts and compares the output, so the embedded
numpy's float32 scalars must promote as NumPy 2's do (a Python number stays float32, a
float64 scalar or array gives float64).
"""
import math

import numpy as np
import tangent


def loop_sum(x, w):
    s = 0.0
    for i in range(len(x)):
        s = s + w * x[i] * x[i]
    return s


def mixed(x, y):
    # float32 elements times float64 elements: float64 products.
    s = 0.0
    for i in range(len(x)):
        s = s + math.sin(x[i]) * y[i] + x[i] * 0.5
    return s


def reduce_then_scale(x):
    m = np.sum(x * x)
    return m * 0.1 + np.max(x) / 3


def scalar_chain(a):
    b = a * 0.1 + 1
    return b * b / 3 - np.tanh(b)


def describe(v):
    if isinstance(v, np.ndarray):
        return "ndarray %s %s" % (v.dtype, v.shape)
    return type(v).__name__


def wide(v):
    if isinstance(v, np.ndarray):
        return v.astype(np.float64)
    if isinstance(v, np.float32):
        return float(v)
    return v


def numeric_grad(f, args, k, h=1e-4):
    """d f / d args[k] by central differences, in float64."""
    args = [wide(a) for a in args]
    x = args[k]
    if not isinstance(x, np.ndarray):
        up = list(args)
        down = list(args)
        up[k], down[k] = x + h, x - h
        return (float(f(*up)) - float(f(*down))) / (2 * h)
    g = np.zeros_like(x)
    for i in range(x.size):
        e = np.zeros_like(x)
        e.flat[i] = h
        up = list(args)
        down = list(args)
        up[k], down[k] = x + e, x - e
        g.flat[i] = (float(f(*up)) - float(f(*down))) / (2 * h)
    return g


differs = []


def check(name, f, args, wrt):
    value = f(*args)
    print("%s: value %s %.4g" % (name, describe(value), float(value)))
    for mode in ["reverse", "forward"] if len(wrt) == 1 else ["reverse"]:
        if mode == "reverse":
            grads = tangent.grad(f, wrt=wrt)(*args)
            grads = grads if isinstance(grads, tuple) else (grads,)
        else:
            (k,) = wrt
            x = args[k]
            tangents = []
            for i in range(np.size(x)):
                e = np.zeros_like(x) if isinstance(x, np.ndarray) else 1.0
                if isinstance(x, np.ndarray):
                    e.flat[i] = 1
                df = tangent.autodiff(f, wrt=wrt, mode="forward")
                tangents.append(float(df(*args, e)))
            grads = (np.array(tangents, dtype=np.float64).reshape(np.shape(x)),)
        for k, g in zip(wrt, grads):
            want = numeric_grad(f, args, k)
            ok = np.allclose(wide(g), want, rtol=1e-3, atol=1e-4)
            if not ok:
                differs.append(name)
            print("  %s d/d%d: %s, %s" % (mode, k, describe(g) if mode == "reverse" else
                                          "tangents", "agrees" if ok else "DIFFERS %r %r" % (g, want)))


x = np.array([0.5, -1.25, 2.0], dtype=np.float32)
y = np.array([1.5, 0.25, -0.75])
check("loop_sum", loop_sum, (x, 0.7), (0, 1))
check("loop_sum (float32 w)", loop_sum, (x, np.float32(0.7)), (0, 1))
check("mixed", mixed, (x, y), (0, 1))
check("reduce_then_scale", reduce_then_scale, (x,), (0,))
check("scalar_chain", scalar_chain, (np.float32(1.5),), (0,))
check("scalar_chain of an element", scalar_chain, (x[2],), (0,))
print(repr(x[0] * 0.1), repr(np.sum(x) / 3), repr(x[1] + np.float64(0.1)))
if differs:
    raise SystemExit("gradients differ from finite differences: %s" % ", ".join(differs))
