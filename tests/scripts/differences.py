"""The oracles of the gradient scripts (index_gradients.py, tape_recompute.py): central
differences of first and second order, and a closeness test."""
import numpy as np

H = 1e-5


def central(f, args, k):
    """The gradient of f with respect to argument k by central differences."""
    x = args[k]
    g = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        hi, lo = x.copy(), x.copy()
        hi[i] += H
        lo[i] -= H
        g[i] = (f(*args[:k], hi, *args[k + 1:]) - f(*args[:k], lo, *args[k + 1:])) / (2 * H)
    return g


def hessian_times(f, args, v):
    """The Hessian of f in its first argument times v, by second differences."""
    x, rest = args[0], args[1:]
    h = 1e-4
    hv = np.zeros(x.shape)
    for i in np.ndindex(x.shape):
        for j in np.ndindex(x.shape):
            pp, pm, mp, mm = x.copy(), x.copy(), x.copy(), x.copy()
            pp[i] += h
            pp[j] += h
            pm[i] += h
            pm[j] -= h
            mp[i] -= h
            mp[j] += h
            mm[i] -= h
            mm[j] -= h
            d2 = (f(pp, *rest) - f(pm, *rest) - f(mp, *rest) + f(mm, *rest)) / (4 * h * h)
            hv[i] += d2 * v[j]
    return hv


def close(a, b, tol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and bool(np.all(np.abs(a - b) <= tol * np.maximum(1.0, np.abs(b))))
