"""Reductions and scans: prod, cumsum, cumprod, var, clip; the NaN-ignoring reductions, average and cov,
order statistics (median, percentile, quantile) and interp.

Conventions in tangent._grads_common. prod, cumsum, var and clip compute in the array
namespace of their arguments (numpy and jax.numpy share them: no in-place writes, no
conversion to Python numbers, JAX constants in the argument's dtype); cumprod is NumPy's.
"""
from tangent import _registry
from tangent._grads_common import (  # noqa: F401
    _is_zero, _axes, _dtype, _is_array, _like_dtype, _mask_of, _numpy_only, _reshape_like, _tg, _xp,
    numpy)
from tangent._grads_shape import _numpy_reshape_as
from tangent._errors import NotDifferentiated

# ---------------------------------------------------------- reductions and scans

def _prod_others(xp, x, axis):
    """For every element, the product of the other elements of its reduction group
    (exact when some elements are zero: prefix and suffix products, no division)."""
    axes = _axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = list(axes) + rest
    xt = xp.transpose(x, tuple(perm))
    n = 1
    for a in axes:
        n *= x.shape[a]
    dtype = _dtype(xp, x)
    if n <= 1:
        return xp.ones(x.shape, dtype=dtype)
    rest_shape = tuple(xt.shape[len(axes):])
    m = xp.reshape(xt, (n,) + rest_shape)
    ones = xp.ones((1,) + rest_shape, dtype=dtype)
    left = xp.concatenate([ones, xp.cumprod(m, axis=0)[:-1]], axis=0)
    right = xp.flip(xp.cumprod(xp.flip(m, 0), axis=0), 0)
    right = xp.concatenate([right[1:], ones], axis=0)
    others = xp.reshape(left * right, xt.shape)
    return xp.transpose(others, tuple(_tg().inverse_permutation(perm)))


def prod_grad(g, x, axis=None, keepdims=False):
    if isinstance(x, (list, tuple)):
        return _numpy_reshape_as(prod_grad(g, numpy.asarray(x) * 1.0, axis, keepdims), x)
    if not _registry.is_array(x):
        return g
    return _tg().unreduce(g, x, axis, keepdims) * _prod_others(_xp(x), x, axis)


def prod_tangent(t, x, axis=None, keepdims=False):
    if isinstance(x, (list, tuple)):
        return prod_tangent(numpy.asarray(t), numpy.asarray(x) * 1.0, axis, keepdims)
    if not _registry.is_array(x):
        return t
    xp = _xp(x)
    return xp.sum(t * _prod_others(xp, x, axis), axis=axis, keepdims=keepdims)


def cumsum_grad(g, x, axis=None):
    xp = _xp(g, x)
    if axis is None:
        return _reshape_like(xp)(xp.flip(xp.cumsum(xp.flip(xp.ravel(g), 0))), x)
    return _reshape_like(xp)(xp.flip(xp.cumsum(xp.flip(g, axis), axis=axis), axis), x)


def _scan_lanes(x, axis):
    """x as an array with the scanned axis first, and how to undo it."""
    _numpy_only("cumprod", x)
    xa = numpy.asarray(x) * 1.0
    base = numpy.ravel(xa) if axis is None else xa
    ax = 0 if axis is None else axis % base.ndim
    return numpy.moveaxis(base, ax, 0), base.shape, ax


def cumprod_grad(g, x, axis=None):
    m, shape, ax = _scan_lanes(x, axis)
    gm = numpy.moveaxis(numpy.reshape(g, shape), ax, 0)
    n = m.shape[0]
    rest = tuple(m.shape[1:])
    if n == 0:
        return _numpy_reshape_as(numpy.zeros(shape), x)
    if numpy.all(m != 0.0):
        y = numpy.cumprod(m, axis=0)
        out = numpy.flip(numpy.cumsum(numpy.flip(gm * y, 0), axis=0), 0) / m
    else:
        # grad_k = prod_{j<k} x_j * sum_{i>=k} g_i prod_{k<j<=i} x_j  (no division)
        ones = numpy.ones((1,) + rest)
        left = numpy.concatenate([ones, numpy.cumprod(m, axis=0)[:-1]], axis=0)
        rows = []
        for k in range(n):
            seg = numpy.concatenate([ones, numpy.cumprod(m[k + 1:], axis=0)], axis=0)
            rows.append(left[k] * numpy.sum(gm[k:] * seg, axis=0))
        out = numpy.stack(rows)
    return _numpy_reshape_as(_like_dtype(numpy.reshape(numpy.moveaxis(out, 0, ax), shape), x), x)


def cumprod_tangent(t, x, axis=None):
    m, shape, ax = _scan_lanes(x, axis)
    tm = numpy.moveaxis(numpy.reshape(t, shape), ax, 0)
    n = m.shape[0]
    rest = tuple(m.shape[1:])
    if n == 0:
        return numpy.zeros(shape)
    if numpy.all(m != 0.0):
        out = numpy.cumprod(m, axis=0) * numpy.cumsum(tm / m, axis=0)
    else:
        ones = numpy.ones((1,) + rest)
        left = numpy.concatenate([ones, numpy.cumprod(m, axis=0)[:-1]], axis=0)
        out = numpy.zeros(m.shape)
        for k in range(n):
            seg = numpy.concatenate([ones, numpy.cumprod(m[k + 1:], axis=0)], axis=0)
            contrib = (tm[k] * left[k]) * seg
            out = out + numpy.concatenate([numpy.zeros((k,) + rest), contrib], axis=0)
    return numpy.moveaxis(out, 0, ax)


def method_ddof(x, ddof=None, correction=None):
    """The ddof of `x.var(...)`/`x.std(...)`: torch's `correction`, else NumPy's `ddof`,
    else the default of x's library (NumPy's 0 and jax's, registered; torch registers 1,
    its unbiased default). A library that registered none is refused: its default may
    be either, and guessing NumPy's would be a wrong gradient."""
    if correction is not None:
        return correction
    if ddof is not None:
        return ddof
    xp = _xp(x)
    fn = _registry.namespace_helper(xp, "default_ddof")
    if fn is not None:
        return fn(x)
    if xp is numpy or not _registry.is_array(x):
        return 0
    from tangent._errors import _at_call_site
    name = type(x).__qualname__
    raise TypeError(_at_call_site(
        "tangent: the default ddof (correction) of %s.var()/.std() is not known: "
        "its library registered none" % name,
        "pass it (x.var(ddof=0) or x.var(correction=1)), or register it: "
        "tangent.register_helper('default_ddof', %s, lambda x: 1)" % name))


def method_axis(x, method):
    """The axis of `x.cumsum()` called without one: NumPy's None (the flattened array),
    or the default of x's library (tinygrad scans axis 0; jax registers NumPy's). A
    library that registered none is refused: guessing NumPy's would be a wrong
    gradient."""
    xp = _xp(x)
    fn = _registry.namespace_helper(xp, "default_axis")
    if fn is not None:
        return fn(x, method)
    if xp is numpy or not _registry.is_array(x):
        return None
    from tangent._errors import _at_call_site
    name = type(x).__qualname__
    raise TypeError(_at_call_site(
        "tangent: the default axis of %s.%s() is not known: its library registered none"
        % (name, method),
        "pass it (x.%s(axis=0)), or register it: tangent.register_helper('default_axis', "
        "%s, lambda x, method: None)" % (method, name)))


def var_grad(g, x, axis=None, ddof=0, keepdims=False):
    tg = _tg()
    if isinstance(x, (list, tuple)):
        return _numpy_reshape_as(var_grad(g, numpy.asarray(x) * 1.0, axis, ddof, keepdims), x)
    if not _registry.is_array(x):
        return 0.0 * g
    n = tg.reduced_count(x, axis)
    mu = _xp(x).mean(x, axis=axis, keepdims=True)
    return tg.unreduce(g, x, axis, keepdims) * 2.0 * (x - mu) / (n - (ddof or 0))


def var_tangent(t, x, axis=None, ddof=0, keepdims=False):
    tg = _tg()
    if isinstance(x, (list, tuple)):
        return var_tangent(numpy.asarray(t), numpy.asarray(x) * 1.0, axis, ddof, keepdims)
    if not _registry.is_array(x):
        return 0.0 * t
    xp = _xp(x)
    n = tg.reduced_count(x, axis)
    mu = xp.mean(x, axis=axis, keepdims=True)
    return xp.sum(2.0 * (x - mu) * t, axis=axis, keepdims=keepdims) / (n - (ddof or 0))


def ptp_grad(g, x, axis=None, keepdims=False):
    """The gradient of ptp(x) = max(x) - min(x) (a list's: one entry per element)."""
    if isinstance(x, (list, tuple)):
        return _numpy_reshape_as(ptp_grad(g, numpy.asarray(x) * 1.0, axis, keepdims), x)
    tg, xp = _tg(), _xp(x)
    return (tg.extremum_grad(g, xp.max(x, axis=axis, keepdims=keepdims), x, axis, keepdims)
            - tg.extremum_grad(g, xp.min(x, axis=axis, keepdims=keepdims), x, axis, keepdims))


def ptp_tangent(t, x, axis=None, keepdims=False):
    """The tangent of ptp(x) = max(x) - min(x) for the tangent t of x."""
    tg, xp = _tg(), _xp(x)
    return (tg.extremum_tangent(t, xp.max(x, axis=axis, keepdims=keepdims), x, axis, keepdims)
            - tg.extremum_tangent(t, xp.min(x, axis=axis, keepdims=keepdims), x, axis,
                                  keepdims))


def std_scale(g, y, x, axis=None):
    """g / (2 y): a cotangent (or tangent) of y = std(x) as one of var(x) (std = sqrt(var)).
    Over one element std is the constant 0, whose derivative is 0 (not 0 / 0). At zero
    spread over several elements std has no derivative: NaN there, as jax gives, never a
    ZeroDivisionError of Python floats."""
    if _tg().reduced_count(x, axis) == 1:
        return g * 0.0 + y * 0.0  # y is NaN when ddof leaves no degree of freedom
    if not _registry.is_array(y):
        return g * float("nan") if y == 0 else g / (2.0 * y)
    if _is_array(y):
        # NumPy would warn about the division by zero; jax, torch and TF give inf silently
        # (var_grad's 0 * inf then is the NaN)
        zero = y == 0
        return numpy.where(zero, numpy.nan, g) / (2.0 * numpy.where(zero, 1.0, y))
    return g / (2.0 * y)


def _bound(numpy_name, jax_name):
    """A bound of clip given by NumPy's keyword (a_min, a_max) or by jax.numpy's and
    NumPy 2's (min, max): the template has both, the one not given is None."""
    return jax_name if numpy_name is None else numpy_name


def clip_mask(x, lo, hi, which, min=None, max=None):
    """Which argument `clip(x, lo, hi)` = minimum(maximum(x, lo), hi) takes its value
    from (1.0 where argument `which` = 0 (x), 1 (lo), 2 (hi) does), with the tie-breaking
    of maximum/minimum's rules (hi wins where lo > hi). `min`/`max`: the bounds when
    given by those keywords."""
    lo, hi = _bound(lo, min), _bound(hi, max)
    mx, ml, mh = 1.0, 0.0, 0.0
    r = x
    if lo is not None:
        mx = _mask_of(x >= lo, x)
        ml = _mask_of(x < lo, x)
        r = _xp(x, lo).maximum(x, lo)
    if hi is not None:
        keep = _mask_of(r <= hi, x)
        mh = _mask_of(r > hi, x)
        mx = mx * keep
        ml = ml * keep
    return (mx, ml, mh)[which]


def clip_grad(g, x, lo, hi, which, min=None, max=None):
    lo, hi = _bound(lo, min), _bound(hi, max)
    like = (x, lo, hi)[which]
    return _tg().unbroadcast(g * clip_mask(x, lo, hi, which), like)


# ---------------------------------------------------------- NaN-ignoring reductions

def not_nan_mask(x):
    """1.0 where `x` is not NaN, else 0.0, in x's float dtype: the elements nansum,
    nanmean, nanmax and nanmin read."""
    xp = _xp(x)
    x = xp.asarray(x)
    return _mask_of(xp.logical_not(xp.isnan(x)), x)


# ---------------------------------------------------------- order statistics

_QUANTILE_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _quantile_positions(q, n, method):
    """The sorted positions the q-quantile of n values reads and the weight of the
    second: NumPy's definitions of its methods (numpy.quantile)."""
    import math
    pos = q * (n - 1)
    lo = min(int(math.floor(pos)), n - 1)
    hi = min(lo + 1, n - 1)
    frac = pos - lo
    if method == "linear":
        return lo, hi, frac
    if method == "lower":
        return lo, lo, 0.0
    if method == "higher":
        h = min(int(math.ceil(pos)), n - 1)
        return h, h, 0.0
    if method == "nearest":
        r = min(int(round(pos)), n - 1)  # half to even, as numpy.around
        return r, r, 0.0
    return (lo, lo, 0.0) if frac == 0 else (lo, hi, 0.5)  # midpoint


def _order_weights(x, q, axis, terms, skip_nan=False):
    """W of shape shape(q) + shape(x), in x's float dtype: for each q, the weights
    `terms(q, n)` gives as (sorted position, weight) pairs, put on the elements of each
    lane of `axis` at those sorted positions. With `skip_nan` (nanmedian, nanquantile)
    n is each lane's count of numbers (NaN sorts last, so never read)."""
    xp = _xp(x)
    x = xp.asarray(x)
    qs = numpy.asarray(q, dtype=float)
    axes = _axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = rest + list(axes)
    xt = xp.transpose(x, tuple(perm))
    n = 1
    for a in axes:
        n *= x.shape[a]
    lanes = xp.reshape(xt, tuple(xt.shape[:len(rest)]) + (n,))
    ranks = xp.argsort(xp.argsort(lanes, axis=-1), axis=-1)
    inverse = tuple(_tg().inverse_permutation(perm))
    counts = [n]
    if skip_nan:
        numbers = numpy.sum(numpy.logical_not(numpy.isnan(numpy.asarray(lanes))), axis=-1)
        counts = sorted(set(int(c) for c in numpy.ravel(numbers)))
    out = []
    for qi in qs.reshape(-1):
        w = xp.zeros(ranks.shape, dtype=_dtype(xp, x)) * 1.0
        for c in counts:
            lane = 1.0 if not skip_nan else _mask_of(
                xp.expand_dims(xp.asarray(numbers == c), -1), x)
            for pos, weight in (terms(float(qi), c) if c else ()):
                w = w + _mask_of(ranks == pos, x) * weight * lane
        out.append(xp.transpose(xp.reshape(_like_dtype(w, x), xt.shape), inverse))
    if qs.ndim == 0:
        return out[0]
    return xp.reshape(xp.stack(out), tuple(qs.shape) + tuple(x.shape))


def _check_method(method):
    if method not in _QUANTILE_METHODS:
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: the derivative of a quantile with method=%r is not known" % (method,),
            "use one of %s" % ", ".join(repr(m) for m in _QUANTILE_METHODS)))


def quantile_weights(x, q, axis=None, method="linear", skip_nan=False):
    """W of shape shape(q) + shape(x), in x's float dtype, such that the q-quantiles of
    `x` over `axis` are sum(W[i] * x, axis): each is a weighted pair of order
    statistics, constant where no two values of a lane swap places (of its numbers
    alone with `skip_nan`: nanmedian, nanquantile, nanpercentile)."""
    _check_method(method)

    def terms(qi, n):
        lo, hi, frac = _quantile_positions(qi, n, method)
        return ((lo, 1.0 - frac), (hi, frac))
    return _order_weights(x, q, axis, terms, skip_nan)


def quantile_q_refused(q):
    """The derivative of a quantile with respect to q is not provided: refused (located)
    where it would be needed."""
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the derivative of a quantile/percentile with respect to q is not provided",
        "differentiate with respect to the data; pass q as a constant"))


def quantile_grad(g, x, q, axis=None, keepdims=False, method="linear", skip_nan=False):
    """The gradient of quantile(x, q, axis) (median: q = 0.5) from its gradient `g`
    (of nanquantile with `skip_nan`)."""
    tg = _tg()
    if isinstance(x, (list, tuple)):
        return _numpy_reshape_as(
            quantile_grad(g, numpy.asarray(x) * 1.0, q, axis, keepdims, method, skip_nan), x)
    if not _registry.is_array(x):
        return g
    w = quantile_weights(x, q, axis, method, skip_nan)
    if numpy.ndim(q) == 0:
        return _like_dtype(tg.unreduce(g, x, axis, keepdims) * w, x)
    xp = _xp(x)
    nq = int(numpy.size(q))
    g = xp.asarray(g)
    gs = xp.reshape(g, (nq,) + tuple(g.shape[numpy.ndim(q):]))
    ws = xp.reshape(w, (nq,) + tuple(x.shape))
    total = tg.unreduce(gs[0], x, axis, keepdims) * ws[0]
    for i in range(1, nq):
        total = total + tg.unreduce(gs[i], x, axis, keepdims) * ws[i]
    return _like_dtype(total, x)


def quantile_tangent(t, x, q, axis=None, keepdims=False, method="linear", skip_nan=False):
    """The tangent of quantile(x, q, axis) from the tangent `t` of x (of nanquantile
    with `skip_nan`: a NaN's tangent is read by no weight)."""
    if isinstance(x, (list, tuple)):
        return quantile_tangent(numpy.asarray(t), numpy.asarray(x) * 1.0, q, axis, keepdims,
                                method, skip_nan)
    if not _registry.is_array(x):
        return t
    xp = _xp(x)
    w = quantile_weights(x, q, axis, method, skip_nan)
    if skip_nan:
        t = xp.where(xp.isnan(x), 0.0, t)
    if numpy.ndim(q) == 0:
        return xp.sum(t * w, axis=axis, keepdims=keepdims)
    nq = int(numpy.size(q))
    ws = xp.reshape(w, (nq,) + tuple(x.shape))
    parts = [xp.sum(t * ws[i], axis=axis, keepdims=keepdims) for i in range(nq)]
    out = xp.reshape(xp.stack(parts), tuple(numpy.shape(q)) + tuple(xp.shape(parts[0])))
    # An array of q is float64 and not weak: the quantiles of float32 data are float64.
    return out.astype(numpy.float64) if hasattr(out, "astype") else out


# ---------------------------------------------------------- interp

def interp_weights(x, xp_, n, left=None, right=None):
    """W of shape shape(x) + (n,) such that interp(x, xp, fp) = W @ fp where x lies in
    [xp[0], xp[-1]] (and where `left`/`right` are not given: outside, fp[0] and fp[-1]
    are read). Float64, as interp's result."""
    x = numpy.asarray(x, dtype=float)
    knots = numpy.asarray(xp_, dtype=float)
    flat = x.reshape(-1)
    w = numpy.zeros((flat.shape[0], n))
    for i in range(flat.shape[0]):
        v = float(flat[i])
        if v < knots[0]:
            if left is None:
                w[i, 0] = 1.0
            continue
        if v > knots[n - 1]:
            if right is None:
                w[i, n - 1] = 1.0
            continue
        if v == knots[n - 1]:
            w[i, n - 1] = 1.0
            continue
        j = int(numpy.searchsorted(knots, v, side="right")) - 1
        t = (v - knots[j]) / (knots[j + 1] - knots[j])
        w[i, j] = 1.0 - t
        w[i, j + 1] = t
    return w.reshape(tuple(x.shape) + (n,))


def interp_slope_weights(x, xp_):
    """D of shape shape(x) + (len(xp),) such that d interp(x, xp, fp) / dx is
    sum(D * fp, axis=-1): -1/h and 1/h at the ends of the segment x lies in (the one to
    its right at a knot), nothing outside [xp[0], xp[-1]]. Constant in x and fp, so the
    slope stays differentiable in fp."""
    x = numpy.asarray(x, dtype=float)
    knots = numpy.asarray(xp_, dtype=float)
    n = knots.shape[0]
    flat = x.reshape(-1)
    d = numpy.zeros((flat.shape[0], n))
    for i in range(flat.shape[0]):
        v = float(flat[i])
        if v < knots[0] or v >= knots[n - 1]:
            continue
        j = int(numpy.searchsorted(knots, v, side="right")) - 1
        h = knots[j + 1] - knots[j]
        d[i, j] = -1.0 / h
        d[i, j + 1] = 1.0 / h
    return d.reshape(tuple(x.shape) + (n,))


def interp_outside(x, xp_, side):
    """1.0 where x is left of xp[0] (side 0) or right of xp[-1] (side 1): where interp
    reads its `left` or `right` argument."""
    x = numpy.asarray(x, dtype=float)
    knots = numpy.asarray(xp_, dtype=float)
    return ((x < knots[0]) if side == 0 else (x > knots[-1])) * 1.0


def interp_xp_refused(xp_):
    """interp's derivative with respect to its knots is not provided: refused where it
    would be needed."""
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the derivative of numpy.interp with respect to xp (the knots) is not "
        "provided",
        "differentiate with respect to x or fp; pass the knots as a constant"))


# ------------------------------------------------------- weighted statistics
# average and cov (NumPy's): y = sum(a w) / sum(w) along an axis; cov of the rows of m
# (and y) centred by their weighted means.

def _split_cotangent(g, returned):
    """average's cotangent: of the mean, and of the sum of weights (returned=True)."""
    if returned:
        ga, gs = g
        return ga, gs
    return g, None


def _live(v):
    return v is not None and not (isinstance(v, (int, float)) and v == 0)


def average_parts(a, axis=None, weights=None):
    """a as floats, the weights broadcast like a (ones without weights; 1-d weights lie
    along `axis`), their sums along `axis` and the average, both with kept dimensions."""
    a = numpy.asarray(a) * 1.0
    if weights is None:
        w = numpy.ones(a.shape)
    else:
        w = numpy.asarray(weights) * 1.0
        if w.shape != a.shape:
            shape = [1] * a.ndim
            shape[axis % a.ndim] = w.shape[0]
            w = numpy.broadcast_to(numpy.reshape(w, tuple(shape)), a.shape)
    s = numpy.sum(w, axis=axis, keepdims=True)
    y = numpy.sum(a * w, axis=axis, keepdims=True) / s
    return a, w, s, y


def weights_like(v, a, axis, weights):
    """A gradient shaped like a, summed to the shape of `weights` (1-d weights lie along
    `axis`)."""
    if numpy.shape(weights) == numpy.shape(a):
        return _numpy_reshape_as(v, weights)
    ax = axis % numpy.ndim(a)
    others = tuple(i for i in range(numpy.ndim(a)) if i != ax)
    return _numpy_reshape_as(numpy.sum(v, axis=others), weights)


def spread(g, a, axis, keepdims):
    """A cotangent of a reduction over `axis` broadcast to a's shape (0 for none)."""
    if not _live(g):
        return numpy.zeros(numpy.shape(a))
    return numpy.broadcast_to(_tg().unreduce(numpy.asarray(g) * 1.0, numpy.asarray(a) * 1.0,
                                             axis, keepdims), numpy.shape(a))


def average_grad(g, a, axis=None, weights=None, returned=False, keepdims=False, which=0):
    """With respect to a (which=0): g w / sum(w); to the weights (1): g (a - y) / sum(w),
    plus the cotangent of the returned sum of weights."""
    ga, gs = _split_cotangent(g, returned)
    x, w, s, y = average_parts(a, axis, weights)
    big_g = spread(ga, x, axis, keepdims)
    if which == 0:
        return _numpy_reshape_as(big_g * w / s, a)
    out = big_g * (x - y) / s + spread(gs, x, axis, keepdims)
    return weights_like(out, x, axis, weights)


def _weights_tangent(tw, a, axis, weights):
    if weights is None or not _live(tw):
        return numpy.zeros(numpy.shape(a))
    return average_parts(a, axis, tw)[1]


def average_tangent(ta, tw, a, axis=None, weights=None, returned=False, keepdims=False):
    """sum(ta w + (a - y) tw) / sum(w), and sum(tw) for the returned sum of weights."""
    x, w, s, y = average_parts(a, axis, weights)
    t_a = numpy.asarray(ta) * 1.0 if _live(ta) else 0.0
    t_w = _weights_tangent(tw, x, axis, weights)
    t_avg = numpy.sum(t_a * w + (x - y) * t_w, axis=axis, keepdims=keepdims) / numpy.sum(
        w, axis=axis, keepdims=keepdims)
    if not returned:
        return t_avg
    t_sum = numpy.broadcast_to(numpy.sum(t_w, axis=axis, keepdims=keepdims), numpy.shape(t_avg))
    return t_avg, t_sum


def _cov_rows(m, y, rowvar):
    """cov's observations as rows of variables: m's rows (columns for rowvar=False),
    then y's."""
    def rows(v):
        v = numpy.asarray(v) * 1.0
        v = numpy.reshape(v, (1, v.shape[0])) if v.ndim == 1 else v
        if v.ndim == 0:
            v = numpy.reshape(v, (1, 1))
        return v.T if (not rowvar and v.shape[0] != 1) else v
    x = rows(m)
    return x if y is None else numpy.concatenate([x, rows(y)], axis=0)


def _cov_weights(fweights, aweights, n):
    w = None
    if fweights is not None:
        w = numpy.asarray(fweights) * 1.0
    if aweights is not None:
        a = numpy.asarray(aweights) * 1.0
        w = a if w is None else w * a
    return w


def _cov_scale(m, y, rowvar, bias, ddof, fweights, aweights):
    """The centred rows of the first argument's variables, the weights (ones) and the
    normalisation NumPy divides by."""
    x = _cov_rows(m, y, rowvar)
    n = x.shape[1]
    if ddof is None:
        ddof = 0 if bias else 1
    w = _cov_weights(fweights, aweights, n)
    if w is None:
        fact = n - ddof
        w = numpy.ones(n)
    else:
        w_sum = numpy.sum(w)
        if ddof == 0:
            fact = w_sum
        elif aweights is None:
            fact = w_sum - ddof
        else:
            fact = w_sum - ddof * numpy.sum(w * numpy.asarray(aweights)) / w_sum
    return x, w, fact


def _cov_center(x, w):
    return x - numpy.reshape(numpy.sum(x * w, axis=1) / numpy.sum(w), (x.shape[0], 1))


def _cov_unrows(gx, m, y, rowvar, which):
    """The inverse of _cov_rows for m (which=0) or y (1)."""
    vm = numpy.asarray(m)
    k = 1 if vm.ndim < 2 else (vm.shape[0] if rowvar or vm.shape[0] == 1 else vm.shape[1])
    part = gx[:k] if which == 0 else gx[k:]
    v = m if which == 0 else y
    va = numpy.asarray(v)
    if va.ndim == 2 and not rowvar and va.shape[0] != 1:
        part = part.T
    return _numpy_reshape_as(numpy.reshape(part, va.shape), v)


def cov_grad(g, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
             which=0):
    """C = Xc diag(w) Xc^T / fact: the gradient of the rows is (G + G^T) Xc diag(w) /
    fact, taken back through the centring; then split into m's (which=0) and y's (1)."""
    x, w, fact = _cov_scale(m, y, rowvar, bias, ddof, fweights, aweights)
    xc = _cov_center(x, w)
    v = x.shape[0]
    gm = numpy.reshape(numpy.asarray(g) * 1.0, (v, v))
    gxc = numpy.matmul(gm + gm.T, xc * w) / fact
    gx = gxc - numpy.reshape(numpy.sum(gxc, axis=1), (v, 1)) * w / numpy.sum(w)
    return _cov_unrows(gx, m, y, rowvar, which)


def cov_tangent(tm, ty, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
                aweights=None):
    """(tXc w Xc^T + Xc w tXc^T) / fact, squeezed like NumPy's result."""
    x, w, fact = _cov_scale(m, y, rowvar, bias, ddof, fweights, aweights)
    tmx = tm if _live(tm) else numpy.zeros(numpy.shape(m))
    tyx = None if y is None else (ty if _live(ty) else numpy.zeros(numpy.shape(y)))
    tx = _cov_rows(tmx, tyx, rowvar)
    xc, txc = _cov_center(x, w), _cov_center(tx, w)
    part = numpy.matmul(txc * w, xc.T) / fact
    return numpy.squeeze(part + part.T)


def cov_weights_refused(weights):
    """cov's derivative with respect to its frequency or analytic weights is not
    provided: refused where it would be needed."""
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the derivative of numpy.cov with respect to fweights or aweights is not "
        "provided",
        "differentiate with respect to m or y; pass the weights as constants"))


# ----------------------------------------------------------------------- histogram
# The counts are piecewise constant in the data, but not the rest: with an integer
# `bins` and no `range` the edges run from the data's minimum to its maximum; a
# density divides by the bins' widths; weighted counts are linear in the weights.

def _histogram_setup(a, bins, range, weights):
    if isinstance(bins, str):
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: the derivative of numpy.histogram with bins=%r (an estimator) is not "
            "provided" % (bins,), "pass the number of bins or the edges"))
    hist, edges = numpy.histogram(a, bins, range, weights=weights)
    x = numpy.ravel(numpy.asarray(a) * 1.0)
    inside = (x >= edges[0]) & (x <= edges[-1])
    which = numpy.clip(numpy.searchsorted(edges, x, side="right") - 1, 0, edges.shape[0] - 2)
    return hist * 1.0, edges * 1.0, x, inside, which


def _histogram_edges_cotangent(g, a, bins, range, density, weights):
    """The cotangent of the edges: the edges' own, plus a density's through the widths;
    and the counts' cotangent scaled for the weights."""
    gh, ge = (None, None) if g is None or _is_zero(g) else g
    hist, edges, x, inside, which = _histogram_setup(a, bins, range, weights)
    widths = numpy.diff(edges)
    total = numpy.sum(hist)
    e_bar = numpy.zeros(edges.shape) if ge is None or _is_zero(ge) else numpy.asarray(ge) * 1.0
    gh = numpy.zeros(hist.shape) if gh is None or _is_zero(gh) else numpy.asarray(gh) * 1.0
    if density:
        dens = hist / (total * widths)
        w_bar = -gh * dens / widths
        e_bar = e_bar + numpy.concatenate([[0.0], w_bar]) - numpy.concatenate([w_bar, [0.0]])
        count_bar = gh / (total * widths) - numpy.sum(gh * dens) / total
    else:
        count_bar = gh
    return e_bar, count_bar, x, inside, which


def histogram_grad(g, a, bins=10, range=None, density=None, weights=None, which=0):
    """With respect to a (which=0): through the edges when they come from the data;
    to the weights (1); to the edges given as `bins` (2)."""
    e_bar, count_bar, x, inside, idx = _histogram_edges_cotangent(
        g, a, bins, range, density, weights)
    if which == 1:
        return _numpy_reshape_as(numpy.where(inside, count_bar[idx], 0.0), weights)
    if which == 2:
        return _numpy_reshape_as(e_bar, bins)
    if numpy.ndim(bins) != 0 or range is not None:
        return _numpy_reshape_as(numpy.zeros(x.shape), a)  # constant edges
    k = numpy.arange(e_bar.shape[0]) / (e_bar.shape[0] - 1.0)
    lo_bar, hi_bar = numpy.sum(e_bar * (1.0 - k)), numpy.sum(e_bar * k)
    lo, hi = numpy.min(x), numpy.max(x)
    out = (lo_bar * (x == lo) / numpy.sum(x == lo) + hi_bar * (x == hi) / numpy.sum(x == hi))
    return _numpy_reshape_as(out, a)


def histogram_tangent(ta, tw, tb, a, bins=10, range=None, density=None, weights=None):
    """The tangents of (hist, edges)."""
    hist, edges, x, inside, idx = _histogram_setup(a, bins, range, weights)
    t_edges = numpy.zeros(edges.shape)
    if numpy.ndim(bins) != 0:
        if not _is_zero(tb):
            t_edges = numpy.asarray(tb) * 1.0
    elif range is None and not _is_zero(ta):
        t = numpy.ravel(numpy.asarray(ta) * 1.0)
        lo, hi = numpy.min(x), numpy.max(x)
        t_lo = numpy.sum(t * (x == lo)) / numpy.sum(x == lo)
        t_hi = numpy.sum(t * (x == hi)) / numpy.sum(x == hi)
        k = numpy.arange(edges.shape[0]) / (edges.shape[0] - 1.0)
        t_edges = t_lo * (1.0 - k) + t_hi * k
    t_counts = numpy.zeros(hist.shape)
    if weights is not None and not _is_zero(tw):
        tws = numpy.where(inside, numpy.ravel(numpy.asarray(tw) * 1.0), 0.0)
        t_counts = numpy.bincount(idx, weights=tws, minlength=hist.shape[0])
    if not density:
        return t_counts, t_edges
    widths = numpy.diff(edges)
    t_widths = numpy.diff(t_edges)
    total = numpy.sum(hist)
    t_total = numpy.sum(t_counts)
    dens = hist / (total * widths)
    t_hist = t_counts / (total * widths) - dens * (t_total / total + t_widths / widths)
    return t_hist, t_edges


def histogram_density_second_order(density):
    """The second derivative of a histogram's density is not provided (without a
    density the first derivative is linear in the cotangent and piecewise constant in
    the data)."""
    if density:
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: the second derivative of numpy.histogram with density=True is not "
            "provided", "differentiate the histogram once, or compute the density yourself"))


def histogram_range_refused(range):
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the derivative of numpy.histogram with respect to range is not provided",
        "pass range as a constant"))


# ------------------------------------------- cumulative_sum and cumulative_prod

def drop_initial(g, x, axis=None, include_initial=False):
    """The cotangent of cumulative_sum/prod's result without its initial slice."""
    if not include_initial:
        return g
    index = [slice(None)] * numpy.ndim(g)
    index[0 if axis is None else axis] = slice(1, None)
    return numpy.asarray(g)[tuple(index)]


def add_initial(t, x, axis=None, include_initial=False):
    """A scan's tangent with the initial slice's (zero) in front."""
    if not include_initial:
        return t
    t = numpy.asarray(t) * 1.0
    ax = 0 if axis is None else axis % t.ndim
    shape = list(t.shape)
    shape[ax] = 1
    return numpy.concatenate([numpy.zeros(tuple(shape)), t], ax)


# ------------------------------------------------------------------------- divmod
# (q, r) = divmod(x1, x2): q = x1 // x2 is piecewise constant, r = x1 - q x2.

def divmod_grad(g, x1, x2, which=0):
    gr = None if g is None or _is_zero(g) else g[1]
    target = x1 if which == 0 else x2
    if gr is None or _is_zero(gr):
        return _tg().unbroadcast(numpy.zeros(numpy.shape(target)), target) \
            if numpy.ndim(target) else 0.0
    if which == 0:
        return _tg().unbroadcast(numpy.asarray(gr) * 1.0, x1)
    return _tg().unbroadcast(-numpy.asarray(gr) * numpy.floor_divide(x1, x2), x2)


def divmod_tangent(t1, t2, x1, x2):
    q = numpy.floor_divide(x1, x2)
    tr = 0.0
    if not _is_zero(t1):
        tr = tr + t1
    if not _is_zero(t2):
        tr = tr - t2 * q
    return (q * 0.0, tr + q * 0.0)


# ------------------------------------------------------------------- trim_zeros

def trim_zeros_box(filt, trim="fb", axis=None):
    """The index of the part of `filt` that trim_zeros keeps (NumPy 2.2's: the box from
    the first to the last position holding a nonzero, along every axis or along `axis`)."""
    a = numpy.asarray(filt)
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        axes = tuple(k % a.ndim for k in (axis if isinstance(axis, (tuple, list)) else (axis,)))
    ends = numpy.argwhere(a)
    if ends.shape[0] == 0:
        start = stop = [0] * a.ndim
    else:
        start = [int(v) for v in ends.min(axis=0)]
        stop = [int(v) + 1 for v in ends.max(axis=0)]
        if "f" not in trim.lower():
            start = [None] * a.ndim
        if "b" not in trim.lower():
            stop = [None] * a.ndim
    return tuple(slice(start[k], stop[k]) if k in axes else slice(None) for k in range(a.ndim))


def trim_zeros_grad(g, filt, trim="fb", axis=None):
    out = numpy.zeros(numpy.shape(filt))
    if g is None or _is_zero(g):
        return out
    out[trim_zeros_box(filt, trim, axis)] = g
    return out


def trim_zeros_tangent(t, filt, trim="fb", axis=None):
    box = trim_zeros_box(filt, trim, axis)
    if _is_zero(t):
        return numpy.zeros(numpy.shape(numpy.asarray(filt)[box]))
    return numpy.asarray(t)[box] * 1.0


# ------------------------------------------------------------------ modf, frexp
# modf(x) = (f, i): the fractional part f has slope 1 between integers, the integral part
# i is piecewise constant. frexp(x) = (m, e), x = m * 2**e: the mantissa is x scaled by
# the piecewise constant 2**-e (an exact scaling), the exponent is piecewise constant.

def _first_cotangent(g):
    """The cotangent of a pair's first value (None for none)."""
    g0 = None if g is None or _is_zero(g) else g[0]
    return None if g0 is None or _is_zero(g0) else g0


def modf_grad(g, x):
    g0 = _first_cotangent(g)
    if g0 is None:
        return numpy.zeros(numpy.shape(x)) if numpy.ndim(x) else 0.0
    return numpy.asarray(g0) * 1.0


def modf_tangent(t, x):
    f, i = numpy.modf(x)
    if _is_zero(t):
        return (f * 0.0, i * 0.0)
    return (t + f * 0.0, i * 0.0)


def frexp_grad(g, x):
    g0 = _first_cotangent(g)
    if g0 is None:
        return numpy.zeros(numpy.shape(x)) if numpy.ndim(x) else 0.0
    return numpy.ldexp(numpy.asarray(g0) * 1.0, -numpy.frexp(x)[1])


def frexp_tangent(t, x):
    m, e = numpy.frexp(x)
    if _is_zero(t):
        return (m * 0.0, e * 0.0)
    return (numpy.ldexp(t + m * 0.0, -e), e * 0.0)


def edges_cotangent(g):
    """histogram_bin_edges' cotangent as histogram's (none for the counts)."""
    return (None, g)


def histogram_edges_tangent(ta, tw, tb, a, bins=10, range=None, weights=None):
    return histogram_tangent(ta, tw, tb, a, bins, range, False, weights)[1]
