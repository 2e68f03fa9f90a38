"""NumPy for the embedded interpreter: a thin layer over the native `_numpy_native`.

Arrays are `numpy.ndarray` (native, backed by Rust `ndarray`); operators, indexing and
the functions below run natively. Only constants and rarely-hot helpers live here.
"""
import builtins as _builtins
import math as _math
import _numpy_native as _nn
from _numpy_native import (
    ndarray, dtype,
    array, asarray, copy, zeros, ones, empty, full, zeros_like, ones_like, empty_like,
    full_like, arange, linspace, eye, identity,
    exp, log, sin, cos, tan, tanh, sqrt, log1p, expm1, arcsin, arccos, arctan, sinh, cosh,
    floor, ceil, isnan, isfinite, isinf, logical_not, abs, absolute, sign, square,
    negative, positive,
    add, subtract, multiply, divide, true_divide, floor_divide, remainder, power, maximum,
    minimum, arctan2, hypot, greater, greater_equal, less, less_equal, equal, not_equal,
    logical_and, logical_or, matmul, dot, outer, where, nonzero, clip, isclose, allclose,
    array_equal,
    sum, prod, mean, max, min, amax, amin, all, any, argmax, argmin, cumsum, cumprod,
    reshape, transpose, ravel, squeeze, expand_dims, broadcast_to, concatenate, stack,
    shape, ndim, size, isscalar,
)

mod = _nn.mod
fmod = remainder
pi = _math.pi
e = _math.e
inf = float("inf")
nan = float("nan")
newaxis = None
euler_gamma = 0.5772156649015329

# Scalar types: Python's own (NumPy returns np.float64 scalars; we return floats).
float64 = float
float_ = float
double = float
int64 = int
int_ = int
intp = int
bool_ = bool
# No float32/int32 storage yet: these names give float64/int64 arrays.
float32 = float
int32 = int
number = (int, float)
floating = float
integer = int


class AxisError(ValueError, IndexError):
    pass


def _make_ufunc1(name):
    def f(x):
        return _nn._ufunc1(name, x)
    f.__name__ = name
    return f


exp2 = _make_ufunc1("exp2")
log2 = _make_ufunc1("log2")
log10 = _make_ufunc1("log10")
cbrt = _make_ufunc1("cbrt")
trunc = _make_ufunc1("trunc")
rint = _make_ufunc1("rint")
reciprocal = _make_ufunc1("reciprocal")
deg2rad = radians = _make_ufunc1("deg2rad")
rad2deg = degrees = _make_ufunc1("rad2deg")
arcsinh = _make_ufunc1("arcsinh")
arccosh = _make_ufunc1("arccosh")
arctanh = _make_ufunc1("arctanh")
fabs = absolute


def round(a, decimals=0):
    if isinstance(a, ndarray):
        return a.__round__(decimals)
    return _builtins.round(a, decimals)


around = round


def atleast_1d(a):
    a = asarray(a)
    return a.reshape(1) if a.ndim == 0 else a


def atleast_2d(a):
    a = asarray(a)
    if a.ndim == 0:
        return a.reshape(1, 1)
    if a.ndim == 1:
        return a.reshape(1, a.shape[0])
    return a


def vstack(arrays):
    return concatenate([atleast_2d(a) for a in arrays], 0)


def hstack(arrays):
    arrs = [atleast_1d(a) for a in arrays]
    return concatenate(arrs, 0 if arrs and arrs[0].ndim == 1 else 1)


def diag(v, k=0):
    v = asarray(v)
    if v.ndim == 1:
        n = v.shape[0] + (k if k >= 0 else -k)
        out = zeros((n, n), dtype=v.dtype)
        for i in range(v.shape[0]):
            if k >= 0:
                out[i, i + k] = v[i]
            else:
                out[i - k, i] = v[i]
        return out
    n = v.shape[0]
    m = v.shape[1]
    vals = []
    i = 0 if k >= 0 else -k
    j = k if k >= 0 else 0
    while i < n and j < m:
        vals.append(v[i, j])
        i += 1
        j += 1
    return array(vals, dtype=v.dtype)


def trace(a):
    return sum(diag(a))


def var(a, axis=None, ddof=0, keepdims=False):
    a = asarray(a)
    m = mean(a, axis=axis, keepdims=True)
    d = a - m
    n = a.size // m.size
    return sum(d * d, axis=axis, keepdims=keepdims) / (n - ddof)


def std(a, axis=None, ddof=0, keepdims=False):
    return sqrt(var(a, axis=axis, ddof=ddof, keepdims=keepdims))


def result_type(*args):
    kinds = [getattr(a, "dtype", None) or dtype(type(a)) for a in args]
    order = {"bool": 0, "int64": 1, "float64": 2}
    return _builtins.max(kinds, key=lambda d: order[d.name])


__version__ = "2.0.0-tangent"
