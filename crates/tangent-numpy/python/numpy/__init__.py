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
    fmod, copysign, logaddexp, logaddexp2, heaviside,
    trace, diag, diagonal, inner, tensordot, einsum,
    sort, argsort, searchsorted,
    swapaxes, moveaxis, split, array_split, tile, repeat, flip, roll, pad, var, std,
    shares_memory, may_share_memory,
    median, percentile, quantile, nansum, nanmean, nanmax, nanmin, ptp, count_nonzero,
    histogram, interp, unique, fmax, fmin,
)

mod = _nn.mod
pi = _math.pi
e = _math.e
inf = float("inf")
nan = float("nan")
newaxis = None
euler_gamma = 0.5772156649015329

# Scalar types: numpy.float64 (a float subclass) and numpy.float32 are NumPy's; the
# others are Python's.
float64 = _nn.float64
float_ = float64
double = float64
float32 = _nn.float32
int64 = int
int_ = int
intp = int
bool_ = bool
# No int32 storage: int32 gives int64 arrays, and so do C's int and long (NumPy's
# `long` and `longlong` are int64 on this platform).
int32 = int
intc = int32
long = int
longlong = int
single = float32


# NumPy's complex scalar types (complex subclasses; complex arrays: numpy/_complex.py).
from numpy._complex import complex128, complex64  # noqa: E402

complex_ = cdouble = complex128
csingle = complex64


class iinfo:
    """Machine limits of the integer types (`np.iinfo(np.int64)`)."""

    def __init__(self, int_type):
        name = getattr(int_type, "__name__", None) or str(int_type)
        if getattr(int_type, "dtype", None) is not None:
            name = str(int_type.dtype)
        if name in ("int", "int64", "int_", "intp", "i8", "int32"):
            self.bits, self.min, self.max = 64, -(2 ** 63), 2 ** 63 - 1
        elif name in ("bool", "bool_"):
            raise ValueError("Invalid integer data type 'b'.")
        else:
            raise ValueError("Invalid integer data type %r." % (name,))
        self.dtype = "int64"

    def __repr__(self):
        return "iinfo(min=%d, max=%d, dtype=int64)" % (self.min, self.max)


class finfo:
    """Machine limits of the float types (`np.finfo(np.float32).eps`)."""

    def __init__(self, dtype=float):
        name = getattr(dtype, "__name__", None) or str(dtype)
        if not isinstance(dtype, type) and getattr(dtype, "dtype", None) is not None:
            name = str(dtype.dtype)
        if name in ("float32", "f4", "single"):
            self.bits, self.eps, self.max = 32, 2.0 ** -23, 3.4028234663852886e38
            self.tiny = self.smallest_normal = 2.0 ** -126
            self.resolution, self.precision, self.dtype = 1e-06, 6, "float32"
        elif name in ("float", "float64", "f8", "double", "float_"):
            self.bits, self.eps, self.max = 64, 2.0 ** -52, 1.7976931348623157e308
            self.tiny = self.smallest_normal = 2.0 ** -1022
            self.resolution, self.precision, self.dtype = 1e-15, 15, "float64"
        else:
            raise ValueError("data type %r not inexact" % (name,))
        self.min = -self.max
        self.epsneg = self.eps / 2

    def __repr__(self):
        return "finfo(resolution=%g, min=%g, max=%g, dtype=%s)" % (
            self.resolution, self.min, self.max, self.dtype)


number = (int, float, float32)
floating = (float, float32)
# Without complex numbers the inexact numbers are the floating ones, and every integer
# is signed.
inexact = floating
integer = int
signedinteger = int
# NumPy's scalars (isinstance only: the embedded numpy has no scalar class hierarchy).
generic = (float64, float32)


class _NoScalars:
    """An abstract NumPy scalar type none of the embedded numpy's values has (it has no
    unsigned, complex, string or void dtypes)."""

    def __init__(self, *args, **kwargs):
        raise TypeError("the embedded numpy has no %s scalars" % type(self).__name__)


class unsignedinteger(_NoScalars):
    pass


class complexfloating(_NoScalars):
    pass


class flexible(_NoScalars):
    pass


class character(flexible):
    pass


from numpy.exceptions import AxisError  # noqa: E402  (NumPy 1's top-level name)


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
sinc = _make_ufunc1("sinc")
fix = _make_ufunc1("fix")


def fabs(x):
    """`np.fabs`: the absolute value as a float (integers give float64, as NumPy)."""
    return _nn._ufunc1("fabs", x)


def round(a, decimals=0):
    """NumPy's rounding (`rint(a * 10**d) / 10**d`, half to even) for arrays and scalars."""
    if isinstance(a, ndarray):
        return a.__round__(decimals)
    r = asarray(a).__round__(decimals)
    return r if r.ndim else r.item()


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


def atleast_3d(a):
    a = asarray(a)
    if a.ndim == 0:
        return a.reshape(1, 1, 1)
    if a.ndim == 1:
        return a.reshape(1, a.shape[0], 1)
    if a.ndim == 2:
        return a.reshape(a.shape[0], a.shape[1], 1)
    return a


def vstack(arrays):
    return concatenate([atleast_2d(a) for a in arrays], 0)


row_stack = vstack


def hstack(arrays):
    arrs = [atleast_1d(a) for a in arrays]
    return concatenate(arrs, 0 if arrs and arrs[0].ndim == 1 else 1)


def dstack(arrays):
    return concatenate([atleast_3d(a) for a in arrays], 2)


def column_stack(arrays):
    cols = []
    for a in arrays:
        a = asarray(a)
        cols.append(a.reshape(a.shape[0], 1) if a.ndim == 1 else a)
    return concatenate(cols, 1)


def hsplit(a, indices_or_sections):
    a = asarray(a)
    return split(a, indices_or_sections, 1 if a.ndim > 1 else 0)


def vsplit(a, indices_or_sections):
    return split(a, indices_or_sections, 0)


def dsplit(a, indices_or_sections):
    return split(a, indices_or_sections, 2)


def fliplr(m):
    return flip(m, 1)


def flipud(m):
    return flip(m, 0)


def rot90(m, k=1, axes=(0, 1)):
    m = asarray(m)
    k = k % 4
    if k == 0:
        return m.copy()
    if k == 2:
        return flip(flip(m, axes[0]), axes[1])
    if k == 1:
        return swapaxes(flip(m, axes[1]), axes[0], axes[1])
    return flip(swapaxes(m, axes[0], axes[1]), axes[1])


def ndindex(*shape):
    """Every index of an array of `shape`, in C order."""
    import itertools
    if len(shape) == 1 and isinstance(shape[0], tuple):
        shape = shape[0]
    return itertools.product(*[_builtins.range(n) for n in shape])


def broadcast_shapes(*shapes):
    out = ()
    for s in shapes:
        s = (s,) if isinstance(s, int) else tuple(s)
        n = _builtins.max(len(out), len(s))
        a = (1,) * (n - len(out)) + out
        b = (1,) * (n - len(s)) + s
        r = []
        for x, y in zip(a, b):
            if x == y or y == 1:
                r.append(x)
            elif x == 1:
                r.append(y)
            else:
                raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
        out = tuple(r)
    return out


def result_type(*args):
    """NumPy 2 promotion: Python scalars are weak (they never raise an array's precision)."""
    strong = []
    weak = []
    for a in args:
        if isinstance(a, (ndarray, float64, float32)):
            strong.append(a.dtype.name)
        elif isinstance(a, (bool, int, float)):
            weak.append("bool" if isinstance(a, bool) else "int64" if isinstance(a, int) else "float64")
        else:
            strong.append(dtype(a).name)
    rank = {"bool": 0, "int64": 1, "float32": 2, "float64": 2}

    def promote(x, y):
        if x == y:
            return x
        if {x, y} == {"int64", "float32"}:
            return "float64"
        return _builtins.max(x, y, key=lambda n: (rank[n], n == "float64"))

    out = None
    for n in strong:
        out = n if out is None else promote(out, n)
    for n in weak:
        if out is None:
            out = n
        elif rank[n] > rank[out]:
            out = promote(out, n)
        elif out is not None and rank[n] <= rank[out]:
            pass
    return dtype(out or "float64")


__version__ = "2.0.0-tangent"

# The functions written in Python over the native ones (their own modules, installed
# before this one).
from numpy._function_base import *  # noqa: E402,F401,F403
from numpy._index_tricks import *  # noqa: E402,F401,F403
from numpy._array_api import *  # noqa: E402,F401,F403
from numpy._npyio import *  # noqa: E402,F401,F403
from numpy._type_check import *  # noqa: E402,F401,F403
from numpy._arrayprint import *  # noqa: E402,F401,F403


class errstate:
    """`numpy.errstate` of the embedded NumPy, which never signals floating-point errors:
    its results are the IEEE values real NumPy gives with every error set to 'ignore'.
    So 'ignore' is what this context manager does, and other settings are refused
    rather than silently not honoured."""

    def __init__(self, *, call=None, all=None, divide=None, over=None, under=None,
                 invalid=None):
        settings = {"all": all, "divide": divide, "over": over, "under": under,
                    "invalid": invalid}
        for name, value in settings.items():
            if value not in (None, "ignore"):
                raise NotImplementedError(
                    "numpy.errstate(%s=%r): the embedded NumPy does not signal "
                    "floating-point errors (every error is 'ignore'); run the script "
                    "in CPython (tangent run --python ...) for %r" % (name, value, value))
        if call is not None:
            raise NotImplementedError(
                "numpy.errstate(call=...): the embedded NumPy does not signal "
                "floating-point errors")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


# Complex numbers: the native functions that have a complex version call it when they
# meet complex input (numpy/_complex.py); the complex-aware Python functions.
from numpy import _complex as _cx  # noqa: E402

for _name, _impl in _cx.IMPLEMENTATIONS.items():
    globals()[_name] = _nn._complex_aware(globals()[_name], _impl)
del _name, _impl
from numpy._complex import (  # noqa: E402,F401
    real, imag, conj, conjugate, iscomplex, isreal, iscomplexobj, isrealobj,
    real_if_close, angle, sort_complex,
)

# NumPy 2's spelling of its bool type; last, so the module's own code above reads the
# builtin by that name (the same object).
bool = bool_

# The type of `a.flat`.
flatiter = type(empty(0).flat)

# NumPy 2's array-API spellings that are the same functions in NumPy (`np.concat is
# np.concatenate`): one object, so whatever knows one knows the other.
concat = concatenate
permute_dims = transpose

# The ufuncs as NumPy's ufunc objects (`np.add.reduce`, `np.multiply.outer`, ...).
from numpy._ufunc import ufunc, install as _install_ufuncs  # noqa: E402

_install_ufuncs(globals())
del _install_ufuncs
