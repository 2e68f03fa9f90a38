"""Reductions and scans: prod, cumsum, cumprod, var, clip.

Conventions in tangent._grads_common. prod, cumsum, var and clip compute in the array
namespace of their arguments (numpy and jax.numpy share them: no in-place writes, no
conversion to Python numbers, JAX constants in the argument's dtype); cumprod is NumPy's.
"""
from tangent import _registry
from tangent._grads_common import (  # noqa: F401
    _axes, _dtype, _is_array, _like_dtype, _mask_of, _numpy_only, _reshape_like, _tg, _xp,
    numpy)
from tangent._grads_shape import _numpy_reshape_as

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
