"""NumPy 2's array-API names and small elementwise functions, set operations, binning,
convolution and polynomials, written in Python over the embedded numpy's native
functions.

Installed before the package's `__init__`, which re-exports `__all__`.
"""
import builtins as _builtins
import math as _math

import _numpy_native as _nn
import numpy as np

__all__ = [
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "atan2", "pow", "matrix_transpose", "astype", "vecdot", "matvec", "vecmat", "vdot",
    "cumulative_sum", "cumulative_prod", "unstack", "bitwise_and", "bitwise_or",
    "bitwise_xor", "bitwise_not", "bitwise_invert", "invert", "logical_xor", "signbit",
    "isposinf", "isneginf", "float_power", "gcd", "lcm", "isin", "intersect1d",
    "union1d", "setdiff1d", "setxor1d", "unique", "unique_values", "unique_counts",
    "unique_inverse", "unique_all", "digitize", "bincount", "convolve", "correlate",
    "polyval", "polyadd", "polysub", "polymul", "polyder", "polyint", "polyfit",
    "iterable", "modf", "frexp", "ldexp", "divmod", "left_shift", "right_shift",
    "bitwise_left_shift", "bitwise_right_shift", "lexsort", "partition", "argpartition",
    "poly", "polydiv", "poly1d", "base_repr", "binary_repr", "promote_types", "issubdtype",
    "cross", "nextafter", "spacing", "roots",
]


def acos(x):
    return np.arccos(x)


def acosh(x):
    return np.arccosh(x)


def asin(x):
    return np.arcsin(x)


def asinh(x):
    return np.arcsinh(x)


def atan(x):
    return np.arctan(x)


def atanh(x):
    return np.arctanh(x)


def atan2(x1, x2):
    return np.arctan2(x1, x2)


def pow(x1, x2):
    return np.power(x1, x2)


def matrix_transpose(x, /):
    """`x` with its last two axes swapped."""
    x = np.asarray(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional, but it is %d"
                         % x.ndim)
    return np.swapaxes(x, -1, -2)


def astype(x, dtype, /, *, copy=True, device=None):
    if not isinstance(x, np.ndarray):
        raise TypeError("Input should be a NumPy array or scalar. It is a %s instead."
                        % type(x).__name__)
    return x.astype(dtype)


def _core_size(name, signature, operand, dim, got, want):
    """NumPy's error for a gufunc's core dimensions that differ (they never broadcast)."""
    if got != want:
        raise ValueError("%s: Input operand %d has a mismatch in its core dimension %d, "
                         "with gufunc signature %s (size %d is different from %d)"
                         % (name, operand, dim, signature, got, want))


def vecdot(x1, x2, /, *, axis=-1):
    """The dot products of vectors along `axis` (broadcast over the other axes)."""
    if np._cx.iscomplexobj(x1) or np._cx.iscomplexobj(x2):
        return np._cx.vecdot(x1, x2, axis)
    a = np.moveaxis(np.asarray(x1), axis, -1)
    b = np.moveaxis(np.asarray(x2), axis, -1)
    _core_size("vecdot", "(n),(n)->()", 1, 0, b.shape[-1], a.shape[-1])
    return np.sum(a * b, axis=-1)


def matvec(x1, x2, /):
    """Matrix-vector products over the last axes (broadcast over the others)."""
    a, v = np.asarray(x1), np.asarray(x2)
    _core_size("matvec", "(m,n),(n)->(m)", 1, 0, v.shape[-1], a.shape[-1])
    return np.sum(a * np.expand_dims(v, -2), axis=-1)


def vecmat(x1, x2, /):
    """Vector-matrix products over the last axes (broadcast over the others)."""
    np._cx.refuse_complex(x1, x2)
    v, a = np.asarray(x1), np.asarray(x2)
    _core_size("vecmat", "(n),(n,m)->(m)", 1, 0, a.shape[-2], v.shape[-1])
    return np.sum(np.expand_dims(v, -1) * a, axis=-2)


def vdot(a, b, /):
    """The dot product of the flattened arrays (the first one conjugated)."""
    if np._cx.iscomplexobj(a) or np._cx.iscomplexobj(b):
        return np._cx.vdot(a, b)
    return np.dot(np.ravel(np.asarray(a)), np.ravel(np.asarray(b)))


def _cumulative(fn, first, x, axis, dtype, include_initial):
    x = np.asarray(x)
    if axis is None:
        if x.ndim > 1:
            raise ValueError("For arrays which have more than one dimension ``axis`` "
                             "argument is required.")
        axis = 0
    out = fn(x, axis=axis)
    if dtype is not None:
        out = out.astype(dtype)
    if include_initial:
        shape = list(out.shape)
        shape[axis % out.ndim] = 1
        out = np.concatenate([np.full(tuple(shape), first, dtype=out.dtype), out], axis=axis)
    return out


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(np.cumsum, 0, x, axis, dtype, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(np.cumprod, 1, x, axis, dtype, include_initial)


def unstack(x, /, *, axis=0):
    """The slices of `x` along `axis`, as a tuple."""
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    return tuple(np.moveaxis(x, axis, 0))


def _integers(name, *xs):
    arrays = [np.asarray(x) for x in xs]
    for a in arrays:
        if a.dtype not in (np.int64, np.bool_):
            raise TypeError("ufunc '%s' not supported for the input types" % name)
    return arrays


def bitwise_and(x1, x2):
    a, b = _integers("bitwise_and", x1, x2)
    return a & b


def bitwise_or(x1, x2):
    a, b = _integers("bitwise_or", x1, x2)
    return a | b


def bitwise_xor(x1, x2):
    a, b = _integers("bitwise_xor", x1, x2)
    return a ^ b


def invert(x):
    (a,) = _integers("invert", x)
    return ~a


bitwise_not = invert
bitwise_invert = invert


def logical_xor(x1, x2):
    return np.not_equal(np.asarray(x1, dtype=bool), np.asarray(x2, dtype=bool))


def signbit(x):
    """True where the sign bit is set (negative numbers and -0.0)."""
    a = np.asarray(x)
    if a.dtype in (np.float64, np.float32):
        return np.copysign(np.ones(a.shape), a) < 0
    return a < 0


def isposinf(x):
    a = np.asarray(x)
    return np.isinf(a) & (a > 0)


def isneginf(x):
    a = np.asarray(x)
    return np.isinf(a) & (a < 0)


def float_power(x1, x2):
    """`x1 ** x2` in float64."""
    return np.power(np.asarray(x1, dtype=np.float64), np.asarray(x2, dtype=np.float64))


def _gcd(a, b):
    return _math.gcd(int(a), int(b))


def gcd(x1, x2):
    a, b = _integers("gcd", x1, x2)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    out = np.array([_gcd(p, q) for p, q in zip(np.ravel(a).tolist(), np.ravel(b).tolist())],
                   dtype=np.int64).reshape(shape)
    return out if out.ndim else out[()]


def lcm(x1, x2):
    a, b = _integers("lcm", x1, x2)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    vals = []
    for p, q in zip(np.ravel(a).tolist(), np.ravel(b).tolist()):
        g = _gcd(p, q)
        vals.append(0 if g == 0 else abs(int(p) // g * int(q)))
    out = np.array(vals, dtype=np.int64).reshape(shape)
    return out if out.ndim else out[()]


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    """Whether each element of `element` is among `test_elements` (its shape)."""
    e = np.asarray(element)
    t = np.ravel(np.asarray(test_elements))
    if t.size == 0:
        found = np.zeros(e.shape, dtype=bool)
    else:
        found = np.any(e.reshape(e.shape + (1,)) == t, axis=-1)
    return ~found if invert else found


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    """The sorted values in both arrays."""
    a, b = np.unique(np.ravel(np.asarray(ar1))), np.unique(np.ravel(np.asarray(ar2)))
    both = a[isin(a, b)]
    if not return_indices:
        return both
    ia = np.array([int(np.argmax(np.ravel(np.asarray(ar1)) == v)) for v in both.tolist()],
                  dtype=np.int64)
    ib = np.array([int(np.argmax(np.ravel(np.asarray(ar2)) == v)) for v in both.tolist()],
                  dtype=np.int64)
    return both, ia, ib


def union1d(ar1, ar2):
    return np.unique(np.concatenate((np.ravel(np.asarray(ar1)), np.ravel(np.asarray(ar2)))))


def setdiff1d(ar1, ar2, assume_unique=False):
    a = np.ravel(np.asarray(ar1)) if assume_unique else np.unique(np.ravel(np.asarray(ar1)))
    return a[~isin(a, ar2)]


def setxor1d(ar1, ar2, assume_unique=False):
    a, b = np.unique(np.ravel(np.asarray(ar1))), np.unique(np.ravel(np.asarray(ar2)))
    return np.unique(np.concatenate((a[~isin(a, b)], b[~isin(b, a)])))


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    """NumPy's unique; along an axis, the distinct slices in lexicographic order (NaN
    after numbers; a slice holding NaN equals no other, as in NumPy)."""
    if axis is None:
        return _nn.unique(ar, return_index, return_inverse, return_counts, None,
                          equal_nan=equal_nan, sorted=sorted)
    a = np.asarray(ar)
    if not -a.ndim <= axis < a.ndim:
        raise np.AxisError("axis %d is out of bounds for array of dimension %d"
                           % (axis, a.ndim))
    m = np.moveaxis(a, axis, 0)
    n = m.shape[0]
    rows = np.reshape(m, (n, -1)).tolist() if n else []

    def key(i):
        return tuple((1, 0.0) if v != v else (0, v) for v in rows[i])
    order = _builtins.sorted(range(n), key=key)
    first, counts, inverse = [], [], [0] * n
    for i in order:
        if first and rows[first[-1]] == rows[i] and not any(v != v for v in rows[i]):
            counts[-1] += 1
        else:
            first.append(i)
            counts.append(1)
        inverse[i] = len(first) - 1
    out = [np.take(a, np.array(first, dtype=np.int64), axis=axis)]
    if return_index:
        out.append(np.array(first, dtype=np.int64))
    if return_inverse:
        out.append(np.array(inverse, dtype=np.int64))
    if return_counts:
        out.append(np.array(counts, dtype=np.int64))
    return out[0] if len(out) == 1 else tuple(out)


def unique_values(x):
    return np.unique(x)


def unique_counts(x):
    values, counts = np.unique(x, return_counts=True)
    return _UniqueCounts(values, counts)


def unique_inverse(x):
    x = np.asarray(x)
    values, inverse = np.unique(x, return_inverse=True)
    return _UniqueInverse(values, np.reshape(inverse, x.shape))


def unique_all(x):
    x = np.asarray(x)
    values, indices, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                                 return_counts=True)
    return _UniqueAll(values, indices, np.reshape(inverse, x.shape), counts)


# NumPy's result records: named tuples of these names and fields.
import collections as _collections

_UniqueCounts = _collections.namedtuple("UniqueCountsResult", ["values", "counts"])
_UniqueInverse = _collections.namedtuple("UniqueInverseResult", ["values", "inverse_indices"])
_UniqueAll = _collections.namedtuple(
    "UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])


def digitize(x, bins, right=False):
    """The index of the bin each value of `x` falls in."""
    bins = np.asarray(bins)
    if bins.ndim != 1:
        raise ValueError("object too deep for desired array")
    steps = np.diff(bins) if bins.shape[0] > 1 else np.zeros(0)
    increasing = bool(np.all(steps >= 0))
    if not increasing and not bool(np.all(steps <= 0)):
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if increasing:
        return np.searchsorted(bins, x, side=side)
    return bins.shape[0] - np.searchsorted(bins[::-1], x, side=side)


def bincount(x, weights=None, minlength=0):
    """How often each non-negative int occurs in `x` (the weights' sums with
    `weights`)."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError("object too deep for desired array" if x.ndim > 1
                         else "object of too small depth for desired array")
    if x.size and x.dtype not in (np.int64, np.bool_):
        raise TypeError("Cannot cast array data from dtype('%s') to dtype('int64') "
                        "according to the rule 'safe'" % x.dtype)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    vals = x.tolist()
    if any(v < 0 for v in vals):
        raise ValueError("'list' argument must have no negative elements")
    n = max([minlength] + [int(v) + 1 for v in vals])
    if weights is None:
        counts = [0] * n
        for v in vals:
            counts[int(v)] += 1
        return np.array(counts, dtype=np.int64)
    w = np.ravel(np.asarray(weights, dtype=np.float64)).tolist()
    if len(w) != len(vals):
        raise ValueError("The weights and list don't have the same length.")
    sums = [0.0] * n
    for v, wv in zip(vals, w):
        sums[int(v)] += wv
    return np.array(sums, dtype=np.float64)


def _full_convolution(a, v):
    """The full discrete convolution of two vectors: one shifted product per element of
    the shorter."""
    n, m = a.shape[0], v.shape[0]
    if m > n:
        a, v, n, m = v, a, m, n
    out = np.zeros(n + m - 1, dtype=np.result_type(a, v))
    for j, vj in enumerate(v.tolist()):
        out[j:j + n] = out[j:j + n] + a * vj
    return out


def convolve(a, v, mode="full"):
    """The discrete linear convolution of two vectors ('full', 'same' or 'valid')."""
    if np._cx.iscomplexobj(a) or np._cx.iscomplexobj(v):
        return np._cx.convolve(a, v, mode)
    a, v = np.ravel(np.asarray(a)), np.ravel(np.asarray(v))
    if a.shape[0] == 0:
        raise ValueError("a cannot be empty")
    if v.shape[0] == 0:
        raise ValueError("v cannot be empty")
    full = _full_convolution(a, v)
    n, m = max(a.shape[0], v.shape[0]), min(a.shape[0], v.shape[0])
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    if mode == "valid":
        return full[m - 1:n]
    raise ValueError("mode must be one of 'valid', 'same', or 'full' (got %r)" % (mode,))


def correlate(a, v, mode="valid"):
    """The cross-correlation of two vectors: `convolve(a, v[::-1])` (NumPy's
    orientation when `v` is the longer)."""
    if np._cx.iscomplexobj(v):
        v = np.conj(v)  # NumPy's correlation conjugates the second sequence
    a, v = np.ravel(np.asarray(a)), np.ravel(np.asarray(v))
    if a.shape[0] >= v.shape[0]:
        return convolve(a, v[::-1], mode)
    return convolve(a[::-1], v, mode)[::-1]


def _poly(p):
    p = np.asarray(p)
    if p.ndim != 1:
        raise ValueError("Polynomial must be 1d only.")
    return p


def polyval(p, x):
    """The polynomial with coefficients `p` (highest power first) at `x`, by Horner's
    rule."""
    p = np.asarray(p)
    x = np.asarray(x)
    y = np.zeros_like(x) if p.size == 0 else np.zeros(x.shape, dtype=np.result_type(x, p))
    for c in p:
        y = y * x + c
    return y


def _trim_leading(c):
    nz = np.nonzero(c)[0]
    return c[int(nz[0]):] if nz.shape[0] else c[-1:]


def _polyadd_coeffs(a1, a2):
    a1, a2 = _poly(np.atleast_1d(a1)), _poly(np.atleast_1d(a2))
    diff = a2.shape[0] - a1.shape[0]
    if diff > 0:
        a1 = np.concatenate((np.zeros(diff, dtype=a1.dtype), a1))
    elif diff < 0:
        a2 = np.concatenate((np.zeros(-diff, dtype=a2.dtype), a2))
    return a1 + a2


def _polysub_coeffs(a1, a2):
    return _polyadd_coeffs(a1, -np.asarray(a2))


def _polymul_coeffs(a1, a2):
    a1, a2 = np.atleast_1d(a1), np.atleast_1d(a2)
    return convolve(a1, a2)


def _polyder_coeffs(p, m=1):
    """The `m`-th derivative's coefficients."""
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = np.asarray(p)
    for _ in range(m):
        n = p.shape[0] - 1
        p = p[:-1] * np.arange(n, 0, -1)
    return p


def _polyint_coeffs(p, m=1, k=None):
    """The `m`-th antiderivative's coefficients (integration constants `k`)."""
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = [0] * m
    elif np.ndim(k) == 0:
        k = [k] * m
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = np.asarray(p, dtype=np.float64)
    for i in range(m):
        n = p.shape[0]
        p = np.concatenate((p / np.arange(n, 0, -1), [k[i]]))
    return p


def polyfit(x, y, deg, rcond=None, full=False, w=None, cov=False):
    """The least-squares polynomial fit of degree `deg` (highest power first)."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    if deg < 0:
        raise ValueError("expected deg >= 0")
    if x.ndim != 1:
        raise TypeError("expected 1D vector for x")
    if x.size == 0:
        raise TypeError("expected non-empty vector for x")
    if y.ndim < 1 or y.ndim > 2:
        raise TypeError("expected 1D or 2D array for y")
    if x.shape[0] != y.shape[0]:
        raise TypeError("expected x and y to have same length")
    lhs = np.vander(x, deg + 1)
    rhs = y
    if w is not None:
        w = np.asarray(w, dtype=np.float64)
        lhs = lhs * w[:, None]
        rhs = rhs * (w if rhs.ndim == 1 else w[:, None])
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    scale = np.where(scale == 0, 1, scale)
    c, resids, rank, s = np.linalg.lstsq(lhs / scale, rhs, rcond=rcond)
    c = (c.T / scale).T
    if full:
        return c, resids, rank, s, rcond
    if cov:
        raise NotImplementedError("polyfit(cov=True) is not in the embedded numpy; run the "
                                  "script in CPython (`tangent run --python PYTHON ...`)")
    return c


def iterable(y):
    """Whether `iter(y)` works."""
    try:
        iter(y)
    except TypeError:
        return False
    return True


def _each(x, fn, dtypes):
    """`fn` of every element of `x` (Python's math), the outputs as arrays of `dtypes`
    (scalars for a scalar)."""
    a = np.asarray(x, dtype=np.float64) if np.asarray(x).dtype != np.float32 else np.asarray(x)
    outs = [fn(float(v)) for v in np.ravel(a).tolist()]
    arrays = []
    for k, dt in enumerate(dtypes):
        dt = a.dtype if dt is None else dt
        arr = np.array([o[k] for o in outs], dtype=dt).reshape(a.shape)
        arrays.append(arr if a.ndim else arr[()])
    return tuple(arrays)


def modf(x):
    """The fractional and integral parts, each with `x`'s sign."""
    def parts(v):
        if _math.isinf(v):
            return (_math.copysign(0.0, v), v)
        return _math.modf(v)
    return _each(x, parts, (None, None))


def frexp(x):
    """Mantissa in [0.5, 1) and exponent: `x == m * 2**e` (the exponents are int64
    here: the embedded numpy has no int32)."""
    def parts(v):
        if not _math.isfinite(v):
            return (v, 0)
        return _math.frexp(v)
    return _each(x, parts, (None, np.int64))


def ldexp(x1, x2):
    """`x1 * 2**x2` for an int exponent."""
    a = np.asarray(x1, dtype=np.float64) if np.asarray(x1).dtype != np.float32 \
        else np.asarray(x1)
    e = np.asarray(x2)
    if e.dtype not in (np.int64, np.bool_):
        raise TypeError("ufunc 'ldexp' not supported for the input types")
    shape = np.broadcast_shapes(a.shape, e.shape)
    a, e = np.broadcast_to(a, shape), np.broadcast_to(e, shape)
    vals = [_math.ldexp(float(m), int(k)) if _math.isfinite(m) else float(m)
            for m, k in zip(np.ravel(a).tolist(), np.ravel(e).tolist())]
    out = np.array(vals, dtype=a.dtype).reshape(shape)
    return out if out.ndim else out[()]


def divmod(x1, x2):
    """`(x1 // x2, x1 % x2)`."""
    return np.floor_divide(x1, x2), np.remainder(x1, x2)


def left_shift(x1, x2):
    a, b = _integers("left_shift", x1, x2)
    return a * np.power(2, b.astype(np.int64))


def right_shift(x1, x2):
    a, b = _integers("right_shift", x1, x2)
    return np.floor_divide(a, np.power(2, b.astype(np.int64)))


bitwise_left_shift = left_shift
bitwise_right_shift = right_shift


def lexsort(keys, axis=-1):
    """The indices sorting by the last key, ties by the one before, and so on."""
    keys = [np.asarray(k) for k in keys]
    if not keys:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    n = keys[0].shape[0]
    order = np.arange(n)
    for k in keys:  # stable sorts, the primary key last
        order = order[np.argsort(k[order], kind="stable")]
    return order


def partition(a, kth, axis=-1, kind="introselect", order=None):
    """`a` with the `kth` element where a sort would put it, smaller ones before, larger
    after (here: the whole slice sorted, one of the arrangements NumPy allows)."""
    return np.sort(a, axis=axis)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """The indices of a `partition` of `a` (here: of a stable sort)."""
    return np.argsort(a, axis=axis, kind="stable")


def poly(seq_of_zeros):
    """The coefficients of the monic polynomial with these roots (of a square matrix:
    its characteristic polynomial)."""
    z = np.atleast_1d(np.asarray(seq_of_zeros))
    if z.ndim == 2 and z.shape[0] == z.shape[1] and z.shape[0] != 0:
        z = np.linalg.eigvals(z)
    elif z.ndim != 1:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    a = np.ones((1,))
    for r in z.tolist():
        a = convolve(a, np.array([1.0, -r]), mode="full")
    return a


def _polydiv_coeffs(u, v):
    """The quotient and remainder of polynomial division."""
    u = np.atleast_1d(np.asarray(u)) + 0.0
    v = np.atleast_1d(np.asarray(v)) + 0.0
    w = u[0] + v[0]
    m, n = u.shape[0] - 1, v.shape[0] - 1
    scale = 1.0 / v[0]
    q = np.zeros((max(m - n + 1, 1),), dtype=w.dtype if hasattr(w, "dtype") else np.float64)
    r = u.astype(q.dtype)
    for k in range(0, m - n + 1):
        d = scale * r[k]
        q[k] = d
        r[k:k + n + 1] = r[k:k + n + 1] - d * v
    while np.allclose(r[0], 0, rtol=1e-14) and (r.shape[-1] > 1):
        r = r[1:]
    return q, r


def base_repr(number, base=2, padding=0):
    """`number` written in `base` (2 to 36)."""
    digits = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ"
    if base > len(digits):
        raise ValueError("Bases greater than 36 not handled in base_repr.")
    if base < 2:
        raise ValueError("Bases less than 2 not handled in base_repr.")
    num = abs(int(number))
    res = []
    while num:
        res.append(digits[num % base])
        num //= base
    if padding:
        res.append("0" * padding)
    if number < 0:
        res.append("-")
    return "".join(reversed(res or "0"))


def binary_repr(num, width=None):
    """`num` in binary; with `width`, a negative one in two's complement."""
    num = int(num)
    if num == 0:
        return "0" * (width or 1)
    if num > 0:
        s = bin(num)[2:]
        return s.zfill(width) if width is not None else s
    if width is None:
        return "-" + bin(-num)[2:]
    s = bin(2 ** width + num)[2:]
    if len(s) > width:
        s = bin(-num)[2:]
    return s.zfill(width)


def promote_types(type1, type2):
    """The smallest dtype both cast to safely (NumPy 2's table for the embedded
    numpy's dtypes)."""
    return np.result_type(np.dtype(type1), np.dtype(type2))


def issubdtype(arg1, arg2):
    """Whether dtype `arg1` is `arg2` or of its kind (np.floating, np.integer, ...)."""
    kinds = {np.floating: "f", np.inexact: "f", np.integer: "i", np.signedinteger: "i",
             np.number: "fi", np.generic: "fib", np.unsignedinteger: "",
             np.complexfloating: "", np.flexible: "", np.character: ""}
    for k, letters in kinds.items():
        if arg2 is k:
            return np.dtype(arg1).kind in letters
    if arg2 is bool or arg2 is np.bool_:
        return np.dtype(arg1).kind == "b"
    return np.dtype(arg1) == np.dtype(arg2)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    """The cross product of 3-vectors along the last axes (broadcast over the others)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    a = np.moveaxis(np.asarray(a), axisa, -1)
    b = np.moveaxis(np.asarray(b), axisb, -1)
    if a.shape[-1] != 3 or b.shape[-1] != 3:
        raise ValueError("incompatible dimensions for cross product\n"
                         "(the embedded numpy takes 3-vectors; NumPy 2 deprecates 2-vectors)")
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], axis=-1)
    return np.moveaxis(out, -1, axisc)


def _each2(x1, x2, fn):
    a = np.asarray(x1, dtype=np.float64)
    b = np.asarray(x2, dtype=np.float64)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = np.broadcast_to(a, shape), np.broadcast_to(b, shape)
    out = np.array([fn(p, q) for p, q in zip(np.ravel(a).tolist(), np.ravel(b).tolist())],
                   dtype=np.float64).reshape(shape)
    return out if out.ndim else out[()]


def nextafter(x1, x2):
    """The next float after `x1` toward `x2`."""
    return _each2(x1, x2, _math.nextafter)


def spacing(x):
    """The distance from `x` to the next float away from zero (negative for negative
    x)."""
    def ulp(v):
        if _math.isnan(v) or _math.isinf(v):
            return float("nan")
        step = _math.nextafter(abs(v), float("inf")) - abs(v)
        return -step if _math.copysign(1.0, v) < 0 and v != 0 else step
    return _each(x, lambda v: (ulp(v),), (np.float64,))[0]


def roots(p):
    """The roots of the polynomial with coefficients `p` (highest power first), as the
    eigenvalues of its companion matrix; complex roots are refused (the embedded numpy
    has no complex numbers)."""
    p = np.atleast_1d(np.asarray(p, dtype=np.float64))
    if p.ndim != 1:
        raise ValueError("Input must be a rank-1 array.")
    nz = np.nonzero(p)[0]
    if nz.shape[0] == 0:
        return np.zeros(0)
    trailing = p.shape[0] - int(nz[-1]) - 1
    p = p[int(nz[0]):int(nz[-1]) + 1]
    n = p.shape[0]
    if n > 1:
        companion = np.diag(np.ones(n - 2), -1)
        companion[0, :] = -p[1:] / p[0]
        r = np.linalg.eigvals(companion)
    else:
        r = np.zeros(0)
    return np.concatenate((r, np.zeros(trailing)))


def _is_poly1d(*values):
    return any(isinstance(v, poly1d) for v in values)


def _coeffs(v):
    return v.coeffs if isinstance(v, poly1d) else v


def polyadd(a1, a2):
    """The sum of two polynomials (a `poly1d` when either is one)."""
    out = _polyadd_coeffs(_coeffs(a1), _coeffs(a2))
    return poly1d(out) if _is_poly1d(a1, a2) else out


def polysub(a1, a2):
    """The difference of two polynomials (a `poly1d` when either is one)."""
    out = _polysub_coeffs(_coeffs(a1), _coeffs(a2))
    return poly1d(out) if _is_poly1d(a1, a2) else out


def polymul(a1, a2):
    """The product of two polynomials (a `poly1d` when either is one)."""
    out = _polymul_coeffs(_coeffs(a1), _coeffs(a2))
    return poly1d(out) if _is_poly1d(a1, a2) else out


def polyder(p, m=1):
    """The `m`-th derivative's coefficients (a `poly1d` for one)."""
    out = _polyder_coeffs(_coeffs(p), m)
    return poly1d(out) if _is_poly1d(p) else out


def polyint(p, m=1, k=None):
    """The `m`-th antiderivative's coefficients (integration constants `k`; a `poly1d`
    for one)."""
    out = _polyint_coeffs(_coeffs(p), m, k)
    return poly1d(out) if _is_poly1d(p) else out


def polydiv(u, v):
    """The quotient and remainder of polynomial division (`poly1d`s when either is
    one)."""
    q, r = _polydiv_coeffs(_coeffs(u), _coeffs(v))
    return (poly1d(q), poly1d(r)) if _is_poly1d(u, v) else (q, r)


def _raise_power(text, wrap=70):
    """`x**2` written with the power on the line above, as NumPy prints a poly1d."""
    import re
    n = 0
    line1 = line2 = ""
    output = " "
    while True:
        mat = re.compile(r"\*\*([0-9]*)").search(text, n)
        if mat is None:
            break
        span = mat.span()
        power = mat.groups()[0]
        part = text[n:span[0]]
        n = span[1]
        add2 = part + " " * (len(power) - 1)
        add1 = " " * (len(part) - 1) + power
        if len(line2) + len(add2) > wrap or len(line1) + len(add1) > wrap:
            output += line1 + "\n" + line2 + "\n "
            line1, line2 = add1, add2
        else:
            line2 += add2
            line1 += add1
    output += line1 + "\n" + line2
    return output + text[n:]


class poly1d:
    """NumPy's one-dimensional polynomial: coefficients highest power first (or, with
    `r=True`, the roots), called at a value, combined by `+ - * / **`, differentiated
    and integrated."""

    __hash__ = None

    def __init__(self, c_or_r, r=False, variable=None):
        if isinstance(c_or_r, poly1d):
            self._variable = c_or_r._variable if variable is None else variable
            self._coeffs = c_or_r._coeffs
            return
        if r:
            c_or_r = poly(c_or_r)
        c_or_r = np.atleast_1d(c_or_r)
        if c_or_r.ndim > 1:
            raise ValueError("Polynomial must be 1d only.")
        nz = np.nonzero(c_or_r)[0]
        c_or_r = c_or_r[int(nz[0]):] if nz.shape[0] else c_or_r[:0]
        if c_or_r.shape[0] == 0:
            c_or_r = np.array([0], dtype=c_or_r.dtype)
        self._coeffs = c_or_r
        self._variable = "x" if variable is None else variable

    @property
    def coeffs(self):
        return self._coeffs

    @coeffs.setter
    def coeffs(self, value):
        if value is not self._coeffs:
            raise AttributeError("Cannot set attribute")

    c = coef = coefficients = coeffs

    @property
    def variable(self):
        return self._variable

    @property
    def order(self):
        return self._coeffs.shape[0] - 1

    o = order

    @property
    def roots(self):
        return roots(self._coeffs)

    r = roots

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._coeffs, dtype=dtype) if dtype is not None else self._coeffs

    def __repr__(self):
        return "poly1d(%s)" % (repr(self._coeffs)[6:-1],)

    def __len__(self):
        return self.order

    def __str__(self):
        var = self._variable
        coeffs = self._coeffs
        nz = np.nonzero(coeffs)[0]
        coeffs = coeffs[int(nz[0]):] if nz.shape[0] else coeffs[:0]
        last = coeffs.shape[0] - 1

        def fmt_float(q):
            text = "%.4g" % q
            return text[:-5] if text.endswith(".0000") else text

        text = "0"
        for k, coeff in enumerate(coeffs.tolist()):
            coefstr = fmt_float(coeff)
            power = last - k
            if power == 0:
                new = coefstr if coefstr != "0" else ("0" if k == 0 else "")
            elif coefstr == "0":
                new = ""
            elif power == 1:
                new = var if coefstr == "b" else "%s %s" % (coefstr, var)
            else:
                new = "%s**%d" % (var, power) if coefstr == "b" else \
                    "%s %s**%d" % (coefstr, var, power)
            if k > 0:
                if new != "":
                    if new.startswith("-"):
                        text = "%s - %s" % (text, new[1:])
                    else:
                        text = "%s + %s" % (text, new)
            else:
                text = new
        return _raise_power(text)

    def __call__(self, val):
        return polyval(self._coeffs, val)

    def __neg__(self):
        return poly1d(-self._coeffs)

    def __pos__(self):
        return self

    def __mul__(self, other):
        if np.isscalar(other):
            return poly1d(self._coeffs * other)
        return poly1d(_polymul_coeffs(self._coeffs, poly1d(other)._coeffs))

    def __rmul__(self, other):
        if np.isscalar(other):
            return poly1d(other * self._coeffs)
        return poly1d(_polymul_coeffs(self._coeffs, poly1d(other)._coeffs))

    def __add__(self, other):
        return poly1d(_polyadd_coeffs(self._coeffs, poly1d(other)._coeffs))

    __radd__ = __add__

    def __pow__(self, val):
        if not np.isscalar(val) or int(val) != val or val < 0:
            raise ValueError("Power to non-negative integers only.")
        res = [1]
        for _ in _builtins.range(int(val)):
            res = _polymul_coeffs(self._coeffs, res)
        return poly1d(res)

    def __sub__(self, other):
        return poly1d(_polysub_coeffs(self._coeffs, poly1d(other)._coeffs))

    def __rsub__(self, other):
        return poly1d(_polysub_coeffs(poly1d(other)._coeffs, self._coeffs))

    def __truediv__(self, other):
        if np.isscalar(other):
            return poly1d(self._coeffs / other)
        return polydiv(self, poly1d(other))

    def __rtruediv__(self, other):
        if np.isscalar(other):
            return poly1d(other / self._coeffs)
        return polydiv(poly1d(other), self)

    def __eq__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        if self._coeffs.shape != other._coeffs.shape:
            return False
        return bool((self._coeffs == other._coeffs).all())

    def __ne__(self, other):
        if not isinstance(other, poly1d):
            return NotImplemented
        return not self.__eq__(other)

    def __getitem__(self, val):
        if val > self.order or val < 0:
            return self._coeffs.dtype.type(0)
        return self._coeffs[self.order - val]

    def __setitem__(self, key, val):
        if key < 0:
            raise ValueError("Does not support negative powers.")
        if key > self.order:
            zeros = np.zeros(key - self.order, self._coeffs.dtype)
            self._coeffs = np.concatenate((zeros, self._coeffs))
        self._coeffs[self.order - key] = val

    def __iter__(self):
        return iter(self._coeffs)

    def integ(self, m=1, k=0):
        return poly1d(_polyint_coeffs(self._coeffs, m=m, k=k))

    def deriv(self, m=1):
        return poly1d(_polyder_coeffs(self._coeffs, m=m))
