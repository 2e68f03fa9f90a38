"""NumPy's general-purpose functions the embedded numpy writes in Python over its native
ones: differences and integrals (`diff`, `ediff1d`, `gradient`, `trapezoid`), weighted
statistics (`average`, `cov`, `corrcoef`), grids and spacing (`meshgrid`, `logspace`,
`geomspace`), editing arrays (`append`, `insert`, `delete`), choosing by condition
(`select`, `piecewise`, `extract`, `place`), `nan_to_num`, the nan-aware reductions
NumPy has beyond `nansum`/`nanmean`/`nanmax`/`nanmin`, and Python functions over
arrays (`vectorize`, `ndenumerate`, `apply_along_axis`, `fromfunction`).

Installed before the package's `__init__`, which re-exports `__all__`; `np` is the
package, whose names are there when these functions run.
"""
import builtins as _builtins
import math as _math

import _numpy_native as _nn
import numpy as np

__all__ = [
    "diff", "ediff1d", "gradient", "trapezoid", "average", "cov", "corrcoef", "meshgrid",
    "linspace", "logspace", "geomspace", "append", "insert", "delete", "select", "piecewise",
    "extract", "place", "nan_to_num", "nanstd", "nanvar", "nanmedian", "nanpercentile",
    "nanquantile", "nanprod", "nancumsum", "nancumprod", "nanargmax", "nanargmin",
    "i0", "hamming", "hanning", "bartlett", "blackman", "kaiser", "unwrap",
    "apply_along_axis", "apply_over_axes", "histogram_bin_edges", "fromfunction",
    "fromiter", "copyto", "array_equiv", "histogramdd", "histogram2d", "vectorize",
    "ndenumerate",
]


def _axis(axis, ndim):
    """`axis` counted from 0 (negative ones from the end), or NumPy's AxisError."""
    if not -ndim <= axis < ndim:
        raise np.AxisError("axis %d is out of bounds for array of dimension %d"
                           % (axis, ndim))
    return axis % ndim


def _along(a, axis, index):
    """`a[..., index, ...]` with `index` (an int, a slice or an index array) at `axis`."""
    return a[(slice(None),) * axis + (index,)]


def diff(a, n=1, axis=-1, prepend=None, append=None):
    """The `n`-th differences along `axis` (`not_equal` for bools, as NumPy)."""
    a = np.asarray(a)
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    if a.ndim == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = _axis(axis, a.ndim)
    parts = []
    for extra in (prepend, append):
        if extra is None:
            parts.append(None)
            continue
        extra = np.asarray(extra)
        if extra.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            extra = np.broadcast_to(extra, tuple(shape))
        parts.append(extra)
    if parts[0] is not None or parts[1] is not None:
        a = np.concatenate([p for p in (parts[0], a, parts[1]) if p is not None], axis=axis)
    for _ in range(n):
        hi, lo = _along(a, axis, slice(1, None)), _along(a, axis, slice(None, -1))
        a = np.not_equal(hi, lo) if a.dtype == np.bool_ else hi - lo
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened array, with `to_begin`/`to_end` around them."""
    ary = np.ravel(np.asarray(ary))
    d = ary[1:] - ary[:-1]
    parts = [np.ravel(np.asarray(to_begin, dtype=d.dtype))] if to_begin is not None else []
    parts.append(d)
    if to_end is not None:
        parts.append(np.ravel(np.asarray(to_end, dtype=d.dtype)))
    return np.concatenate(parts) if len(parts) > 1 else d


def gradient(f, *varargs, axis=None, edge_order=1):
    """Central differences inside, one-sided at the edges (first or second order), with a
    scalar spacing or coordinates per axis; one array per axis (a list), or one array."""
    f = np.asarray(f)
    if f.dtype != np.float32:
        f = f.astype(np.float64)
    if axis is None:
        axes = list(range(f.ndim))
    elif isinstance(axis, int):
        axes = [_axis(axis, f.ndim)]
    else:
        axes = [_axis(ax, f.ndim) for ax in axis]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and np.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    elif len(varargs) == len(axes):
        spacing = list(varargs)
    else:
        raise TypeError("invalid number of arguments")
    if edge_order not in (1, 2):
        raise ValueError("'edge_order' greater than 2 not supported")
    out = []
    for ax, h in zip(axes, spacing):
        n = f.shape[ax]
        if n < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, "
                             "at least (edge_order + 1) elements are required.")
        at = lambda idx: _along(f, ax, idx)  # noqa: E731
        shape = [1] * f.ndim
        shape[ax] = -1
        if np.ndim(h) == 0:
            mid = (at(slice(2, None)) - at(slice(None, -2))) / (2.0 * h)
            if edge_order == 1:
                first = (at(slice(1, 2)) - at(slice(0, 1))) / h
                last = (at(slice(-1, None)) - at(slice(-2, -1))) / h
            else:
                first = (-1.5 * at(slice(0, 1)) + 2.0 * at(slice(1, 2))
                         - 0.5 * at(slice(2, 3))) / h
                last = (0.5 * at(slice(-3, -2)) - 2.0 * at(slice(-2, -1))
                        + 1.5 * at(slice(-1, None))) / h
        else:
            x = np.asarray(h, dtype=np.float64)
            if x.ndim != 1 or x.shape[0] != n:
                raise ValueError("when 1d, distances must match the length of the "
                                 "corresponding dimension")
            dx = x[1:] - x[:-1]
            h1, h2 = dx[:-1].reshape(shape), dx[1:].reshape(shape)
            mid = (-(h2 / (h1 * (h1 + h2))) * at(slice(None, -2))
                   + ((h2 - h1) / (h1 * h2)) * at(slice(1, -1))
                   + (h1 / (h2 * (h1 + h2))) * at(slice(2, None)))
            if edge_order == 1:
                first = (at(slice(1, 2)) - at(slice(0, 1))) / dx[0]
                last = (at(slice(-1, None)) - at(slice(-2, -1))) / dx[-1]
            else:
                a1, a2 = dx[0], dx[1]
                first = (-(2.0 * a1 + a2) / (a1 * (a1 + a2)) * at(slice(0, 1))
                         + (a1 + a2) / (a1 * a2) * at(slice(1, 2))
                         - a1 / (a2 * (a1 + a2)) * at(slice(2, 3)))
                b1, b2 = dx[-2], dx[-1]
                last = (b2 / (b1 * (b1 + b2)) * at(slice(-3, -2))
                        - (b2 + b1) / (b1 * b2) * at(slice(-2, -1))
                        + (2.0 * b2 + b1) / (b2 * (b1 + b2)) * at(slice(-1, None)))
        out.append(np.concatenate([first, mid, last], axis=ax))
    return out[0] if len(out) == 1 else tuple(out)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along `axis`, with sample points `x` or a spacing `dx`."""
    y = np.asarray(y)
    axis = _axis(axis, y.ndim)
    if x is None:
        d = dx
    else:
        x = np.asarray(x)
        if x.ndim == 1:
            d = x[1:] - x[:-1]
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    total = d * (_along(y, axis, slice(1, None)) + _along(y, axis, slice(None, -1))) / 2.0
    return np.sum(total, axis=axis)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    """The mean, or the weighted mean with `weights` (the sum of the weights too with
    `returned=True`)."""
    a = np.asarray(a)
    if weights is None:
        avg = np.mean(a, axis=axis, keepdims=keepdims)
        scl = np.asarray(a.size / _builtins.max(avg.size if hasattr(avg, "size") else 1, 1),
                         dtype=np.result_type(avg))
        if returned:
            return avg, np.broadcast_to(scl, np.shape(avg)) if np.ndim(avg) else scl[()]
        return avg
    w = np.asarray(weights)
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        if w.ndim != 1:
            raise TypeError("1D weights expected when shapes of a and weights differ.")
        ax = _axis(axis, a.ndim)
        if w.shape[0] != a.shape[ax]:
            raise ValueError("Length of weights not compatible with specified axis.")
        shape = [1] * a.ndim
        shape[ax] = -1
        w = w.reshape(shape)
    scl = np.sum(w * np.ones(a.shape), axis=axis, keepdims=keepdims)
    if np.any(scl == 0.0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = np.sum(a * w, axis=axis, keepdims=keepdims) / scl
    if returned:
        return avg, scl
    return avg


def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    """The covariance matrix of the variables (rows, or columns with `rowvar=False`)."""
    np._cx.refuse_complex(m, y)
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    x = np.array(m, ndmin=2, dtype=dtype or np.result_type(np.asarray(m), np.float64))
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if not rowvar and x.shape[0] != 1:
        x = x.T
    if y is not None:
        y = np.array(y, ndmin=2, dtype=x.dtype)
        if not rowvar and y.shape[0] != 1:
            y = y.T
        x = np.concatenate((x, y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    w = None
    if fweights is not None:
        fw = np.asarray(fweights)
        if not np.all(fw == np.around(fw)):
            raise TypeError("fweights must be integer")
        if fw.ndim > 1:
            raise RuntimeError("cannot handle multidimensional fweights")
        if fw.shape[0] != x.shape[1]:
            raise RuntimeError("incompatible numbers of samples and fweights")
        if np.any(fw < 0):
            raise ValueError("fweights cannot be negative")
        w = np.asarray(fw, dtype=np.float64)
    if aweights is not None:
        aw = np.asarray(aweights, dtype=np.float64)
        if aw.ndim > 1:
            raise RuntimeError("cannot handle multidimensional aweights")
        if aw.shape[0] != x.shape[1]:
            raise RuntimeError("incompatible numbers of samples and aweights")
        if np.any(aw < 0):
            raise ValueError("aweights cannot be negative")
        w = aw if w is None else w * aw
    if w is None:
        avg = np.mean(x, axis=1)
        fact = x.shape[1] - ddof
        w_sum = None
    else:
        avg, w_sum = average(x, axis=1, weights=w, returned=True)
        w_sum = w_sum[0]
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * np.sum(w * aw) / w_sum
    fact = _builtins.max(fact, 0.0)
    xc = x - avg[:, None]
    xw = xc if w is None else xc * w
    c = np.dot(xw, np.conj(xc).T) / fact
    return c.squeeze() if c.shape == (1, 1) else c


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    """Pearson correlation coefficients, clipped to [-1, 1]."""
    c = cov(x, y, rowvar, dtype=dtype)
    if np.ndim(c) == 0:
        return c / c
    d = np.diag(c)
    s = np.sqrt(d)
    c = c / s[:, None]
    c = c / s[None, :]
    return np.clip(c, -1, 1)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    """Coordinate arrays from coordinate vectors ('xy': Cartesian, 'ij': matrix
    indexing)."""
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    s0 = (1,) * ndim
    out = [np.asarray(x).reshape(s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        out[0] = out[0].reshape((1, -1) + s0[2:])
        out[1] = out[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        shape = np.broadcast_shapes(*[o.shape for o in out])
        out = [np.broadcast_to(o, shape) for o in out]
    if copy:
        out = [o.copy() for o in out]
    return tuple(out)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None):
    """NumPy's linspace: numbers (scalars natively) or arrays of end points, whose
    samples run along a new axis `axis`, computed as NumPy does."""
    if np.ndim(start) == 0 and np.ndim(stop) == 0:
        if not -1 <= axis < 1:
            raise np.AxisError("axis %d is out of bounds for array of dimension 1" % axis)
        if dtype is None:
            return _nn.linspace(start, stop, num, endpoint, retstep)
        return _nn.linspace(start, stop, num, endpoint, retstep, dtype)
    num = _operator_index(num)
    if num < 0:
        raise ValueError("Number of samples, %s, must be non-negative." % num)
    div = num - 1 if endpoint else num
    dt = np.result_type(start, stop, float(num))
    start = np.asarray(start).astype(dt)
    stop = np.asarray(stop).astype(dt)
    delta = stop - start
    y = np.reshape(np.arange(0, num).astype(dt), (-1,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        if np.any(step == 0):
            y = y / div  # denormal steps (NumPy's gh-5437)
            y = y * delta
        else:
            y = y * step
    else:
        step = float("nan")
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1, ...] = stop
    if axis != 0:
        y = np.moveaxis(y, 0, axis)
    if dtype is not None:
        if np.issubdtype(np.dtype(dtype), np.integer):
            y = np.floor(y)
        y = y.astype(dtype)
    return (y, step) if retstep else y


def _operator_index(n):
    import operator
    return operator.index(n)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    """`base ** linspace(start, stop, num)`, the three broadcast as NumPy does."""
    ndmax = np.broadcast(start, stop, base).ndim
    start, stop, base = (np.array(a, ndmin=ndmax) for a in (start, stop, base))
    y = linspace(start, stop, num=num, endpoint=endpoint, axis=axis)
    base = np.expand_dims(base, axis=axis)
    out = np.power(base, y)
    if ndmax == 0:
        out = np.asarray(out)
    return out if dtype is None else out.astype(dtype)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    """Numbers spaced evenly on a log scale, the ends exactly `start` and `stop` (NumPy's
    algorithm: start rotated to positive; ends of different signs give NaN between)."""
    start = np.asarray(start)
    stop = np.asarray(stop)
    if np.any(start == 0) or np.any(stop == 0):
        raise ValueError("Geometric sequence cannot include zero")
    dt = np.result_type(start, stop, float(num))
    start = start.astype(dt) * 1
    stop = stop.astype(dt) * 1
    out_sign = np.sign(start)
    start = start / out_sign
    stop = stop / out_sign
    with np.errstate(invalid="ignore"):
        log_start = np.log10(start)
        log_stop = np.log10(stop)
    result = np.array(logspace(log_start, log_stop, num=num, endpoint=endpoint, base=10.0,
                               dtype=dt))
    if num > 0:
        result[0] = start
        if num > 1 and endpoint:
            result[-1] = stop
    result = result * out_sign
    if axis != 0:
        result = np.moveaxis(result, 0, axis)
    return result if dtype is None else result.astype(dtype)


def append(arr, values, axis=None):
    """`arr` with `values` after it (both flattened when `axis` is None)."""
    arr = np.asarray(arr)
    if axis is None:
        if arr.ndim != 1:
            arr = np.ravel(arr)
        values = np.ravel(np.asarray(values))
        axis = 0
    return np.concatenate((arr, values), axis=axis)


def _positions(obj, n):
    """The positions `obj` (an int, a slice or a sequence) names among `n`."""
    if isinstance(obj, slice):
        return list(range(n))[obj]
    idx = np.asarray(obj)
    if idx.dtype == np.bool_:
        if idx.ndim != 1 or idx.shape[0] != n:
            raise ValueError("boolean array argument obj to delete must be one "
                             "dimensional and match the axis length of %d" % n)
        return [i for i, keep in enumerate(idx.tolist()) if keep]
    if idx.dtype not in (np.int64,) and idx.size:
        raise IndexError("arrays used as indices must be of integer (or boolean) type")
    return [int(i) for i in np.ravel(idx).tolist()]


def delete(arr, obj, axis=None):
    """`arr` without the entries `obj` names along `axis` (flattened when None)."""
    arr = np.asarray(arr)
    if axis is None:
        arr = np.ravel(arr)
        axis = 0
    axis = _axis(axis, arr.ndim)
    n = arr.shape[axis]
    drop = set()
    for i in _positions(obj, n):
        if not -n <= i < n:
            raise IndexError("index %d is out of bounds for axis %d with size %d"
                             % (i, axis, n))
        drop.add(i % n)
    keep = [i for i in range(n) if i not in drop]
    return _along(arr, axis, np.array(keep, dtype=np.int64)).copy()


def insert(arr, obj, values, axis=None):
    """`arr` with `values` inserted before the positions `obj` along `axis` (flattened
    when None)."""
    arr = np.asarray(arr)
    if axis is None:
        arr = np.ravel(arr)
        axis = 0
    axis = _axis(axis, arr.ndim)
    n = arr.shape[axis]
    scalar_obj = not isinstance(obj, slice) and np.ndim(obj) == 0
    positions = _positions(obj, n + 1) if isinstance(obj, slice) else _positions(obj, n)
    for i in positions:
        if not -n <= i <= n:
            raise IndexError("index %d is out of bounds for axis %d with size %d"
                             % (i, axis, n))
    positions = [i + n if i < 0 else i for i in positions]
    values = np.asarray(values, dtype=arr.dtype)
    if scalar_obj:
        # One position: `values` is a block (NumPy moves its first axis to `axis`).
        if values.ndim == 0 or arr.ndim == 1:
            block_shape = list(arr.shape)
            block_shape[axis] = values.size if arr.ndim == 1 and values.ndim else 1
            block = np.broadcast_to(values.reshape(-1) if arr.ndim == 1 else values,
                                    tuple(block_shape))
        else:
            v = np.moveaxis(values, 0, axis) if values.ndim == arr.ndim else values
            if v.ndim < arr.ndim:
                v = np.expand_dims(v, axis)
            block_shape = list(arr.shape)
            block_shape[axis] = v.shape[axis]
            block = np.broadcast_to(v, tuple(block_shape))
        p = positions[0]
        return np.concatenate((_along(arr, axis, slice(None, p)), block,
                               _along(arr, axis, slice(p, None))), axis=axis)
    # Several positions: one slice of `values` before each, in order of position.
    k = len(positions)
    shape = list(arr.shape)
    shape[axis] = k
    vals = np.broadcast_to(values if values.ndim else values.reshape(1),
                           tuple(shape) if values.ndim != 1 or arr.ndim == 1 else
                           tuple(shape))
    order = sorted(range(k), key=lambda j: positions[j])
    pieces, start = [], 0
    for j in order:
        p = positions[j]
        pieces.append(_along(arr, axis, slice(start, p)))
        pieces.append(_along(vals, axis, slice(j, j + 1)))
        start = p
    pieces.append(_along(arr, axis, slice(start, None)))
    return np.concatenate(pieces, axis=axis)


def select(condlist, choicelist, default=0):
    """The element of the first choice whose condition holds, else `default`."""
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(condlist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    choices = [np.asarray(c) for c in choicelist]
    conds = [np.asarray(c) for c in condlist]
    for i, c in enumerate(conds):
        if c.dtype != np.bool_:
            raise TypeError("invalid entry %d in condlist: should be boolean ndarray" % i)
    dt = np.result_type(*choices, default)
    out = np.asarray(default, dtype=dt)
    for c, v in zip(reversed(conds), reversed(choices)):
        out = np.where(c, v, out)
    shape = np.broadcast_shapes(*[c.shape for c in conds], *[v.shape for v in choices])
    return np.broadcast_to(out, shape).astype(dt)


def piecewise(x, condlist, funclist, *args, **kw):
    """`funclist[i](x[cond_i])` where `condlist[i]` holds (a constant for a non-callable;
    one extra function is the default where no condition holds)."""
    x = np.asarray(x)
    if isinstance(condlist, np.ndarray) and condlist.dtype == np.bool_ and (
            condlist.ndim == 0 or condlist.shape == x.shape):
        condlist = [condlist]
    conds = [np.asarray(c, dtype=np.bool_) for c in condlist]
    n = len(conds)
    if len(funclist) == n + 1:
        others = ~np.any(np.stack([np.broadcast_to(c, x.shape) for c in conds]), axis=0) \
            if n else np.ones(x.shape, dtype=np.bool_)
        conds.append(others)
    elif len(funclist) != n:
        raise ValueError("with %d condition(s), either %d or %d functions are expected"
                         % (n, n, n + 1))
    y = np.zeros(x.shape, dtype=x.dtype)
    for c, f in zip(conds, funclist):
        c = np.broadcast_to(c, x.shape)
        if not callable(f):
            y[c] = f
        elif np.any(c):
            vals = x[c]
            y[c] = f(vals, *args, **kw)
    return y


def extract(condition, arr):
    """The elements of `arr` where `condition` (both flattened) is true."""
    return np.ravel(np.asarray(arr))[np.ravel(np.asarray(condition)) != 0]


def place(arr, mask, vals):
    """Writes `vals` (repeated as needed) into `arr` where `mask` is true, in place."""
    flat_mask = np.ravel(np.asarray(mask, dtype=np.bool_))
    k = int(np.sum(flat_mask))
    if k == 0:
        return None
    vals = np.ravel(np.asarray(vals))
    if vals.size == 0:
        raise ValueError("Cannot insert from an empty array!")
    reps = np.resize(vals, k) if vals.size != k else vals
    positions = np.nonzero(flat_mask)[0]
    arr.flat[positions] = reps
    return None


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN as `nan`, infinities as `posinf`/`neginf` (the dtype's largest numbers by
    default); integers and bools unchanged."""
    scalar = np.ndim(x) == 0 and not isinstance(x, np.ndarray)
    a = np.array(x, copy=copy) if isinstance(x, np.ndarray) else np.asarray(x)
    if a.dtype not in (np.float64, np.float32):
        return a[()] if scalar else a
    big = np.finfo(a.dtype).max
    out = np.where(np.isnan(a), nan, a)
    out = np.where(np.isposinf(out), big if posinf is None else posinf, out)
    out = np.where(np.isneginf(out), -big if neginf is None else neginf, out).astype(a.dtype)
    if scalar:
        return out[()]
    if not copy and isinstance(x, np.ndarray):
        x[...] = out
        return x
    return out


def _nan_filled(a, fill):
    a = np.asarray(a)
    if a.dtype in (np.float64, np.float32):
        return np.where(np.isnan(a), fill, a).astype(a.dtype), np.isnan(a)
    return a, np.zeros(a.shape, dtype=np.bool_)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False):
    """The product, NaNs counted as 1."""
    return np.prod(_nan_filled(a, 1)[0], axis=axis, dtype=dtype, keepdims=keepdims)


def nancumsum(a, axis=None, dtype=None, out=None):
    """The cumulative sum, NaNs counted as 0."""
    out = np.cumsum(_nan_filled(a, 0)[0], axis=axis)
    return out if dtype is None else out.astype(dtype)


def nancumprod(a, axis=None, dtype=None, out=None):
    """The cumulative product, NaNs counted as 1."""
    out = np.cumprod(_nan_filled(a, 1)[0], axis=axis)
    return out if dtype is None else out.astype(dtype)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, mean=None,
           correction=None):
    """The variance of the non-NaN elements (NaN where none is left)."""
    if correction is not None:
        ddof = correction
    a = np.asarray(a)
    if a.dtype not in (np.float64, np.float32):
        return np.var(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims)
    filled, mask = _nan_filled(a, 0)
    count = np.sum(~mask, axis=axis, keepdims=True)
    avg = np.sum(filled, axis=axis, keepdims=True) / np.asarray(count, dtype=a.dtype)
    dev = np.where(mask, 0, a - avg)
    sq = np.sum(dev * dev, axis=axis, keepdims=keepdims)
    dof = np.asarray(np.sum(~mask, axis=axis, keepdims=keepdims) - ddof, dtype=a.dtype)
    res = np.asarray(sq / np.where(dof > 0, dof, np.nan), dtype=a.dtype)
    return res[()] if res.ndim == 0 else res


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, mean=None,
           correction=None):
    """The standard deviation of the non-NaN elements."""
    return np.sqrt(nanvar(a, axis=axis, dtype=dtype, ddof=ddof, keepdims=keepdims,
                          correction=correction))


def _nan_order_stat(fn, a, q, axis, keepdims, **kw):
    a = np.asarray(a)
    if a.dtype not in (np.float64, np.float32) or not np.any(np.isnan(a)):
        return fn(a, q, axis=axis, keepdims=keepdims, **kw) if q is not None else \
            fn(a, axis=axis, keepdims=keepdims, **kw)
    if axis is None:
        flat = np.ravel(a)
        kept = flat[~np.isnan(flat)]
        if kept.size == 0:
            res = np.full(np.shape(q) if q is not None else (), np.nan)
        else:
            res = fn(kept, q, **kw) if q is not None else fn(kept, **kw)
        if keepdims:
            res = np.asarray(res).reshape(np.shape(q) + (1,) * a.ndim if q is not None
                                          else (1,) * a.ndim)
        return res
    ax = _axis(axis, a.ndim)
    moved = np.moveaxis(a, ax, -1)
    lanes = moved.reshape(-1, moved.shape[-1])
    results = []
    for lane in lanes:
        kept = lane[~np.isnan(lane)]
        if kept.size == 0:
            results.append(np.full(np.shape(q) if q is not None else (), np.nan))
        else:
            results.append(np.asarray(fn(kept, q, **kw) if q is not None else fn(kept, **kw)))
    res = np.stack(results, axis=-1) if results else np.zeros(np.shape(q) + (0,))
    res = res.reshape(np.shape(q) + moved.shape[:-1]) if q is not None else \
        res.reshape(moved.shape[:-1])
    if keepdims:
        res = np.expand_dims(res, ax + (np.ndim(q) if q is not None else 0))
    return res


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    """The median of the non-NaN elements."""
    return _nan_order_stat(np.median, a, None, axis, keepdims)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, *, weights=None):
    """The `q`-th percentiles of the non-NaN elements."""
    return _nan_order_stat(np.percentile, a, q, axis, keepdims, method=method)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, *, weights=None):
    """The `q`-th quantiles of the non-NaN elements."""
    return _nan_order_stat(np.quantile, a, q, axis, keepdims, method=method)


def _nan_arg(fn, a, axis, keepdims, fill):
    a = np.asarray(a)
    if a.dtype in (np.float64, np.float32):
        mask = np.isnan(a)
        if np.any(np.all(mask, axis=axis)):
            raise ValueError("All-NaN slice encountered")
        a = np.where(mask, fill, a)
    return fn(a, axis=axis, keepdims=keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    """The index of the largest non-NaN element."""
    return _nan_arg(np.argmax, a, axis, keepdims, -np.inf)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    """The index of the smallest non-NaN element."""
    return _nan_arg(np.argmin, a, axis, keepdims, np.inf)


def i0(x):
    """The modified Bessel function of the first kind, order 0 (Cephes' Chebyshev
    series, as NumPy's)."""
    x = np.asarray(x)
    if x.dtype.kind != "f":
        x = x.astype(np.float64)
    # A float32 array stays float32 (NumPy computes in the input's float type).
    x = np.abs(x)
    small = _chbevl(x / 2.0 - 2, _I0_A) * np.exp(x)
    large = _chbevl(32.0 / np.where(x > 8.0, x, 8.0) - 2.0, _I0_B) * np.exp(x) / np.sqrt(
        np.where(x > 8.0, x, 8.0))
    return np.where(x <= 8.0, small, large)


def _chbevl(x, vals):
    b0 = x * 0.0 + vals[0]
    b1 = x * 0.0
    b2 = x * 0.0
    for v in vals[1:]:
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + v
    return 0.5 * (b0 - b2)


_I0_A = [-4.41534164647933937950e-18, 3.33079451882223809783e-17,
         -2.43127984654795469359e-16, 1.71539128555513303061e-15,
         -1.16853328779934516808e-14, 7.67618549860493561688e-14,
         -4.85644678311192946090e-13, 2.95505266312963983461e-12,
         -1.72682629144155570723e-11, 9.67580903537323691224e-11,
         -5.18979560163526290666e-10, 2.65982372468238665035e-9,
         -1.30002500998624804212e-8, 6.04699502254191894932e-8,
         -2.67079385394061173391e-7, 1.11738753912010371815e-6,
         -4.41673835845875056359e-6, 1.64484480707288970893e-5,
         -5.75419501008210370398e-5, 1.88502885095841655729e-4,
         -5.76375574538582365885e-4, 1.63947561694133579842e-3,
         -4.32430999505057594430e-3, 1.05464603945949983183e-2,
         -2.37374148058994688156e-2, 4.93052842396707084878e-2,
         -9.49010970480476444210e-2, 1.71620901522208775349e-1,
         -3.04682672343198398683e-1, 6.76795274409476084995e-1]
_I0_B = [-7.23318048787475395456e-18, -4.83050448594418207126e-18,
         4.46562142029675999901e-17, 3.46122286769746109310e-17,
         -2.82762398051658348494e-16, -3.42548561967721913462e-16,
         1.77256013305652638360e-15, 3.81168066935262242075e-15,
         -9.55484669882830764870e-15, -4.15056934728722208663e-14,
         1.54008621752140982691e-14, 3.85277838274214270114e-13,
         7.18012445138366623367e-13, -1.79417853150680611778e-12,
         -1.32158118404477131188e-11, -3.14991652796324136454e-11,
         1.18891471078464383424e-11, 4.94060238822496958910e-10,
         3.39623202570838634515e-9, 2.26666899049817806459e-8,
         2.04891858946906374183e-7, 2.89137052083475648297e-6,
         6.88975834691682398426e-5, 3.36911647825569408990e-3,
         8.04490411014108831608e-1]


def _window(M, f):
    if M < 1:
        return np.zeros(0)
    if M == 1:
        return np.ones(1)
    n = np.arange(1 - M, M, 2)
    return f(n, M)


def hamming(M):
    return _window(M, lambda n, M: 0.54 + 0.46 * np.cos(np.pi * n / (M - 1)))


def hanning(M):
    return _window(M, lambda n, M: 0.5 + 0.5 * np.cos(np.pi * n / (M - 1)))


def blackman(M):
    return _window(M, lambda n, M: 0.42 + 0.5 * np.cos(np.pi * n / (M - 1))
                   + 0.08 * np.cos(2.0 * np.pi * n / (M - 1)))


def bartlett(M):
    return _window(M, lambda n, M: np.where(n <= 0, 1 + n / (M - 1), 1 - n / (M - 1)))


def kaiser(M, beta):
    if M == 1:
        return np.ones(1)
    n = np.arange(0, M)
    alpha = (M - 1) / 2.0
    return i0(beta * np.sqrt(1 - ((n - alpha) / alpha) ** 2.0)) / i0(float(beta))


def unwrap(p, discont=None, axis=-1, *, period=2 * _math.pi):
    """`p` with jumps larger than `discont` (half the period by default) taken back by
    whole periods along `axis`."""
    p = np.asarray(p)
    axis = _axis(axis, p.ndim)
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    interval_high = period / 2
    interval_low = -interval_high
    ddmod = np.mod(dd - interval_low, period) + interval_low
    ddmod = np.where((ddmod == interval_low) & (dd > 0), interval_high, ddmod)
    ph_correct = ddmod - dd
    ph_correct = np.where(np.abs(dd) < discont, 0, ph_correct)
    up = np.array(p, dtype=np.float64 if p.dtype != np.float32 else np.float32)
    rest = _along(up, axis, slice(1, None)) + np.cumsum(ph_correct, axis=axis)
    return np.concatenate([_along(up, axis, slice(0, 1)), rest], axis=axis)


def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """`func1d` of every 1-d slice of `arr` along `axis`, the results stacked in its
    place."""
    arr = np.asarray(arr)
    axis = _axis(axis, arr.ndim)
    moved = np.moveaxis(arr, axis, -1)
    outer = moved.shape[:-1]
    lanes = moved.reshape(-1, moved.shape[-1])
    results = [np.asarray(func1d(lane, *args, **kwargs)) for lane in lanes]
    res = np.stack(results) if results else np.zeros((0,))
    res = res.reshape(outer + res.shape[1:])
    if res.ndim == len(outer):
        return res
    # The result's own axes go where `axis` was.
    k = res.ndim - len(outer)
    order = list(range(axis)) + list(range(len(outer), len(outer) + k)) + \
        list(range(axis, len(outer)))
    return np.transpose(res, order)


def apply_over_axes(func, a, axes):
    """`func(a, axis)` for each axis in turn, keeping the reduced dimensions."""
    val = np.asarray(a)
    n = val.ndim
    if np.ndim(axes) == 0:
        axes = (axes,)
    for ax in axes:
        ax = _axis(ax, n)
        res = func(val, ax)
        if np.ndim(res) == val.ndim:
            val = res
        else:
            res = np.expand_dims(res, ax)
            if np.ndim(res) == val.ndim:
                val = res
            else:
                raise ValueError("function is not returning an array of the correct shape")
    return val


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    """The edges `histogram` would use (an int count of equal bins, or the edges given)."""
    a = np.ravel(np.asarray(a))
    if np.ndim(bins) == 1:
        return np.asarray(bins, dtype=np.float64)
    if isinstance(bins, str):
        raise NotImplementedError("histogram_bin_edges(bins=%r): the estimator names are not "
                                  "in the embedded numpy; pass a number of bins" % bins)
    if range is None:
        lo, hi = (float(np.min(a)), float(np.max(a))) if a.size else (0.0, 1.0)
    else:
        lo, hi = float(range[0]), float(range[1])
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return np.linspace(lo, hi, int(bins) + 1)


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """The counts (or weight sums) of D-dimensional points in a grid of bins, and each
    axis' edges: `sample` is an (N, D) array or D arrays of N coordinates; `bins` a count
    for every axis, a count per axis, or each axis' edges."""
    if isinstance(sample, (list, tuple)) and sample and np.ndim(sample[0]) == 1:
        sample = np.stack([np.asarray(c, dtype=np.float64) for c in sample], axis=1)
    sample = np.asarray(sample, dtype=np.float64)
    if sample.ndim == 1:
        sample = sample.reshape(-1, 1)
    n, dims = sample.shape
    if np.ndim(bins) == 0:
        bins = [bins] * dims
    elif len(bins) != dims:
        raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    if range is None:
        range = [None] * dims
    elif len(range) != dims:
        raise ValueError("range argument must have one entry per dimension")
    edges = []
    for i in _builtins.range(dims):
        b = bins[i]
        if np.ndim(b) == 0:
            if b < 1:
                raise ValueError("`bins[%d]` must be positive, when an integer" % i)
            if isinstance(b, float):
                raise TypeError("`bins[%d]` must be an integer, when a scalar" % i)
            if range[i] is not None:
                lo, hi = float(range[i][0]), float(range[i][1])
                if lo > hi:
                    raise ValueError("In range, start must be <= stop")
            elif n:
                lo, hi = float(np.min(sample[:, i])), float(np.max(sample[:, i]))
            else:
                lo, hi = 0.0, 1.0
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ValueError("autodetected range of [%s, %s] is not finite" % (lo, hi))
            if lo == hi:
                lo, hi = lo - 0.5, hi + 0.5
            e = np.linspace(lo, hi, int(b) + 1)
        else:
            e = np.asarray(b)
            if e.ndim != 1:
                raise ValueError("`bins[%d]` must be a scalar or 1d array" % i)
            if e.shape[0] > 1 and bool(np.any(np.diff(e) < 0)):
                raise ValueError("`bins[%d]` must be monotonically increasing, when an array" % i)
        edges.append(e)
    counts = [e.shape[0] + 1 for e in edges]  # an outlier bin at each end
    index = np.zeros(n, dtype=np.int64)
    for i, e in enumerate(edges):
        k = np.searchsorted(e, sample[:, i], side="right")
        # A value on the last edge is in the last bin.
        k = np.where(sample[:, i] == e[-1], k - 1, k)
        index = index * counts[i] + k
    total = 1
    for c in counts:
        total *= c
    flat = np.bincount(index, weights=weights, minlength=total)
    hist = np.asarray(flat, dtype=np.float64).reshape(counts)
    hist = hist[tuple(slice(1, -1) for _ in edges)]
    if density:
        s = hist.sum()
        for i, e in enumerate(edges):
            shape = [1] * dims
            shape[i] = e.shape[0] - 1
            hist = hist / np.diff(e).reshape(shape)
        hist = hist / s
    return hist, edges


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """`histogramdd` of the points (x[i], y[i]): the counts and the x and y edges."""
    try:
        n = len(bins)
    except TypeError:
        n = 1
    if n != 1 and n != 2:
        bins = [np.asarray(bins), np.asarray(bins)]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    """`function` of the index grids of an array of `shape`."""
    from numpy._index_tricks import indices
    return function(*indices(shape, dtype=dtype), **kwargs)


def fromiter(iter, dtype, count=-1, *, like=None):
    """A 1-d array of the items of an iterable (the first `count` of them)."""
    items = []
    for v in iter:
        if count >= 0 and len(items) >= count:
            break
        items.append(v)
    if count >= 0 and len(items) < count:
        raise ValueError("iterator too short: Expected %d but iterator had only %d items."
                         % (count, len(items)))
    return np.array(items, dtype=dtype)


def copyto(dst, src, casting="same_kind", where=True):
    """Writes `src` (broadcast) into `dst` where `where` holds, in place, when `src`'s
    dtype casts to `dst`'s under `casting`."""
    if not isinstance(dst, np.ndarray):
        raise TypeError("copyto() argument 1 must be numpy.ndarray, not %s"
                        % (type(dst).__name__,))
    scalar = not isinstance(src, np.ndarray)
    src = np.asarray(src)
    if not np.can_cast(src.dtype, dst.dtype, casting):
        raise TypeError("Cannot cast %s from %r to %r according to the rule %r"
                        % ("scalar" if scalar else "array data", src.dtype, dst.dtype, casting))
    src = np.broadcast_to(src, dst.shape)
    if where is True:
        dst[...] = src
    else:
        mask = np.broadcast_to(np.asarray(where, dtype=np.bool_), dst.shape)
        dst[mask] = src[mask]


def array_equiv(a1, a2):
    """Whether the two broadcast to one shape and are equal there."""
    a1, a2 = np.asarray(a1), np.asarray(a2)
    try:
        shape = np.broadcast_shapes(a1.shape, a2.shape)
    except ValueError:
        return False
    return bool(np.all(np.broadcast_to(a1, shape) == np.broadcast_to(a2, shape)))


_NO_FUNCTION = object()


class vectorize:
    """NumPy's `vectorize`: `pyfunc` called on every element of its broadcast array
    arguments (those in `excluded`, positions or keyword names, passed as they are), the
    results gathered into arrays of `otypes` or of the first result's type (a tuple
    result gives a tuple of arrays). Usable as a decorator, with or without arguments.
    `signature=` (generalized ufuncs) is not supported."""

    def __init__(self, pyfunc=_NO_FUNCTION, otypes=None, doc=None, excluded=None,
                 cache=False, signature=None):
        if signature is not None:
            raise NotImplementedError(
                "np.vectorize(signature=...) is not supported by the embedded numpy")
        if isinstance(otypes, str):
            otypes = list(otypes)
        self.pyfunc = pyfunc
        self.otypes = None if otypes is None else [np.dtype(t) for t in otypes]
        self.excluded = set(excluded or ())
        self.cache = cache
        self.signature = signature
        self.__doc__ = doc if doc is not None else getattr(pyfunc, "__doc__", None)
        if pyfunc is not _NO_FUNCTION:
            self.__name__ = getattr(pyfunc, "__name__", "vectorize")

    def __call__(self, *args, **kwargs):
        if self.pyfunc is _NO_FUNCTION:
            # `@np.vectorize(otypes=...)`: this call gives the function.
            return vectorize(args[0], otypes=self.otypes, doc=self.__doc__,
                             excluded=self.excluded, cache=self.cache)
        positions = [k for k in _builtins.range(len(args)) if k not in self.excluded]
        names = [k for k in kwargs if k not in self.excluded]
        arrays = [np.asarray(args[k]) for k in positions] + \
                 [np.asarray(kwargs[k]) for k in names]
        shape = np.broadcast_shapes(*[a.shape for a in arrays]) if arrays else ()
        arrays = [np.broadcast_to(a, shape) for a in arrays]
        size = 1
        for n in shape:
            size *= n
        if size == 0 and self.otypes is None:
            raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
        results = []
        for idx in np.ndindex(shape):
            call_args = list(args)
            call_kwargs = dict(kwargs)
            for a, k in zip(arrays, positions + names):
                value = a[idx]
                if isinstance(k, int):
                    call_args[k] = value
                else:
                    call_kwargs[k] = value
            results.append(self.pyfunc(*call_args, **call_kwargs))
        tuples = bool(results) and isinstance(results[0], tuple)
        nout = len(results[0]) if tuples else (len(self.otypes) if self.otypes else 1)
        if self.otypes is not None and len(self.otypes) != nout:
            raise ValueError("Invalid number of outputs")
        columns = [[r[j] for r in results] for j in _builtins.range(nout)] if tuples \
            else [results]
        outs = []
        for j, column in enumerate(columns):
            dtype = self.otypes[j] if self.otypes is not None \
                else np.asarray(column[0]).dtype
            outs.append(np.array(column, dtype=dtype).reshape(shape))
        return tuple(outs) if tuples else outs[0]


class ndenumerate:
    """NumPy's `ndenumerate`: every (index, element) of an array in C order."""

    def __init__(self, arr):
        self._arr = np.asarray(arr)
        self._indices = np.ndindex(self._arr.shape)

    def __iter__(self):
        return self

    def __next__(self):
        idx = next(self._indices)
        return idx, self._arr[idx]


# --- the reductions' `out=`, `initial=` and `where=` (the native ones call these) ------

_IDENTITY = {"sum": 0, "prod": 1, "all": True, "any": False}
_UFUNC_NAME = {"sum": "add", "prod": "multiply", "max": "maximum", "min": "minimum",
               "all": "logical_and", "any": "logical_or", "mean": "add"}


def _into_out(out, result, kind):
    """`result` written into `out` (NumPy's `out=`: an array of the result's shape)."""
    if out is None:
        return result
    if not isinstance(out, np.ndarray):
        raise TypeError("output must be an array")
    if tuple(out.shape) != tuple(np.shape(result)):
        raise ValueError("output parameter for reduction operation %s has the wrong number "
                         "of dimensions: Found %d but expected %d"
                         % (_UFUNC_NAME[kind], out.ndim, np.ndim(result))
                         if out.ndim != np.ndim(result) else
                         "output parameter for reduction operation %s has a non-matching "
                         "shape" % (_UFUNC_NAME[kind],))
    out[...] = result
    return out


def _reduce_with(kind, a, axis, dtype, out, keepdims, initial, where):
    """`np.<kind>(a, axis, dtype, out, keepdims, initial, where)` by the native reduction:
    elements `where` leaves out count as the reduction's identity (or `initial`), and
    `initial` joins every reduced lane (an empty one gives it)."""
    a = np.asarray(a)
    fn = getattr(_nn, kind)
    typed = {} if kind in ("max", "min", "all", "any") else {"dtype": dtype}
    if where is not True:
        mask = np.broadcast_to(np.asarray(where, dtype=bool), a.shape)
        if kind == "mean":
            total = _nn.sum(np.where(mask, a, 0), axis=axis, keepdims=keepdims, **typed)
            count = _nn.sum(mask, axis=axis, keepdims=keepdims)
            single = (dtype is None and a.dtype == np.float32) or (
                dtype is not None and np.dtype(dtype) == np.float32)
            result = np.asarray(total / count).astype(np.float32 if single else np.float64)
            return _into_out(out, result if result.ndim else result[()], kind)
        if kind in ("max", "min"):
            if initial is None:
                raise ValueError("reduction operation '%s' does not have an identity, so to "
                                 "use a where mask one has to specify 'initial'"
                                 % (_UFUNC_NAME[kind],))
            fill = np.asarray(initial).astype(a.dtype)
        else:
            fill = np.asarray(_IDENTITY[kind]).astype(a.dtype)
        a = np.where(mask, a, fill)
    if initial is not None and kind in ("max", "min"):
        # An empty lane gives `initial`: reduce `initial` joined to every lane.
        shape = _nn.sum(np.zeros(a.shape), axis=axis, keepdims=keepdims).shape \
            if a.size == 0 else None
        if shape is not None:
            result = np.full(shape, initial, dtype=a.dtype)
            return _into_out(out, result if result.ndim else result[()], kind)
        result = fn(a, axis=axis, keepdims=keepdims)
        cast = np.asarray(initial).astype(np.asarray(result).dtype)
        result = (np.maximum if kind == "max" else np.minimum)(result, cast)
    else:
        result = fn(a, axis=axis, keepdims=keepdims, **typed)
        if initial is not None:
            if kind == "sum":
                result = result + initial
            elif kind == "prod":
                result = result * initial
            else:
                raise TypeError("%s() got an unexpected keyword argument 'initial'" % (kind,))
    return _into_out(out, result, kind)


def _var_with(sqrt, a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """`np.var`/`np.std` with `out=`, `where=`, `mean=` or `correction=` (NumPy's steps:
    the mean over the kept elements, their squared deviations, their sum over the count
    less `ddof`)."""
    if correction is not None:
        if ddof not in (None, 0):
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    ddof = 0 if ddof is None else ddof
    a = np.asarray(a)
    kind = "float32" if (dtype is None and a.dtype == np.float32) or (
        dtype is not None and np.dtype(dtype) == np.float32) else "float64"
    x = a.astype(kind)
    mask = np.broadcast_to(np.asarray(where, dtype=bool), a.shape)
    count = _nn.sum(mask, axis=axis, keepdims=True)
    if mean is None:
        mu = _nn.sum(np.where(mask, x, 0.0), axis=axis, keepdims=True) / count
    else:
        mu = np.asarray(mean)
    dev = np.where(mask, x - mu, 0.0)
    total = _nn.sum(dev * dev, axis=axis, keepdims=keepdims)
    n = count if keepdims else _nn.sum(mask, axis=axis, keepdims=False)
    result = total / np.maximum(n - ddof, 0)
    if sqrt:
        result = np.sqrt(result)
    result = np.asarray(result).astype(kind)
    return _into_out(out, result if result.ndim else result[()], "mean")
