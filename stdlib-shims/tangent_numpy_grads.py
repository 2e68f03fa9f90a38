"""Runtime helpers for the NumPy derivative rules (backends/numpy.py, backends/linalg.py).

`tangent` re-exports every public name of this module, so generated code calls them as
`tangent.<name>`. Helpers that need tangent's own helpers import it inside the function
(this module is loaded before `tangent`).

Conventions: `g` is an incoming gradient (shaped like the result), `t` a tangent (shaped
like the argument). In forward rules the tangent of an inactive argument arrives as the
literal 0.0 (see `_is_zero`). The gradient of a list argument is a list of gradients.
"""
import sys as _sys

try:
    import numpy
except ImportError:  # CPython without NumPy: `tangent` does not export these then
    numpy = None


def _tg():
    import tangent
    return tangent


def _is_array(x):
    return isinstance(x, numpy.ndarray)


def _is_zero(t):
    """The literal 0.0 the engine passes as the tangent of an inactive argument."""
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _T(a):
    """Transpose of the last two axes (stacks of matrices; NumPy or JAX arrays)."""
    return _xp(a).swapaxes(a, -1, -2)


def _eye_like(a):
    xp = _xp(a)
    return xp.eye(xp.shape(a)[-1])


def _tril(n, k=0, xp=numpy):
    """1.0 on and below the k-th diagonal of an n x n matrix (array namespace `xp`)."""
    r = xp.arange(n)
    return (xp.reshape(r, (n, 1)) - xp.reshape(r, (1, n)) >= -k) * 1.0


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


def _int_tuple(v):
    if isinstance(v, int):
        return (v,)
    return tuple(int(x) for x in v)


# --------------------------------------------------------------------- shape ops

def reshape_as(g, x):
    """`g` reshaped like `x`: a float for a Python number, a list for a (nested) list."""
    return _tg().array_grad(numpy.reshape(g, numpy.shape(x)), x)


def _pieces(g, arrays, promoted_shapes, axis):
    return pieces_in(numpy, reshape_as, g, arrays, promoted_shapes, axis)


def pieces_in(xp, reshape_like, g, arrays, promoted_shapes, axis):
    """Splits `g` along `axis` into the pieces of a concatenation of arrays of the given
    (promoted) shapes, each reshaped like the original argument (array namespace `xp`:
    numpy, or jax.numpy for JAX arrays, and its `reshape_as`)."""
    bounds = []
    total = 0
    for s in promoted_shapes[:-1]:
        total += s[axis]
        bounds.append(total)
    parts = xp.split(g, bounds, axis) if bounds else [g]
    return [reshape_like(p, a) for p, a in zip(parts, arrays)]


def concatenate_grad(g, arrays, axis=0):
    return concatenate_grad_in(numpy, reshape_as, g, arrays, axis)


def concatenate_grad_in(xp, reshape_like, g, arrays, axis=0):
    if axis is None:
        shapes = [(int(xp.size(a)),) for a in arrays]
        return pieces_in(xp, reshape_like, xp.ravel(g), arrays, shapes, 0)
    return pieces_in(xp, reshape_like, g, arrays, [tuple(xp.shape(a)) for a in arrays], axis)


def stack_grad(g, arrays, axis=0):
    gm = numpy.moveaxis(g, axis, 0)
    return [reshape_as(gm[i], a) for i, a in enumerate(arrays)]


def vstack_grad(g, arrays):
    return _pieces(g, arrays, [numpy.atleast_2d(a).shape for a in arrays], 0)


def hstack_grad(g, arrays):
    shapes = [numpy.atleast_1d(a).shape for a in arrays]
    return _pieces(g, arrays, shapes, 0 if len(shapes[0]) == 1 else 1)


def dstack_grad(g, arrays):
    return _pieces(g, arrays, [numpy.atleast_3d(a).shape for a in arrays], 2)


def column_stack_grad(g, arrays):
    shapes = []
    for a in arrays:
        s = tuple(numpy.shape(a))
        shapes.append((s[0], 1) if len(s) == 1 else s)
    return _pieces(g, arrays, shapes, 1)


def split_grad(g, x, axis=0):
    """Gradient of the pieces of `split(x, ..., axis)` (a list) with respect to `x`."""
    return numpy.concatenate([numpy.asarray(p) * 1.0 for p in g], axis)


def hsplit_axis(x):
    return 1 if numpy.ndim(x) > 1 else 0


def negate_shift(shift):
    if isinstance(shift, (int, float)):
        return -shift
    return tuple(-s for s in shift)


def tile_grad(g, x, reps):
    shape = tuple(numpy.shape(x))
    reps = _int_tuple(reps)
    n = max(len(shape), len(reps))
    s = (1,) * (n - len(shape)) + shape
    r = (1,) * (n - len(reps)) + reps
    inter = []
    for ri, si in zip(r, s):
        inter.extend([ri, si])
    g = numpy.sum(numpy.reshape(g, tuple(inter)), axis=tuple(range(0, 2 * n, 2)))
    return reshape_as(g, x)


def repeat_grad(g, x, repeats, axis=None):
    xa = numpy.asarray(x)
    base = numpy.ravel(xa) if axis is None else xa
    ax = 0 if axis is None else axis % base.ndim
    n = base.shape[ax]
    gm = numpy.moveaxis(g, ax, 0)
    rest = tuple(gm.shape[1:])
    if numpy.ndim(repeats) == 0 or numpy.size(repeats) == 1:
        r = int(numpy.ravel(numpy.asarray(repeats))[0])
        out = numpy.sum(numpy.reshape(gm, (n, r) + rest), axis=1)
    else:
        # segment sums as a 0/1 matrix product (exact, vectorised)
        seg = numpy.repeat(numpy.arange(n), repeats)
        m = (numpy.reshape(numpy.arange(n), (n, 1)) == numpy.reshape(seg, (1, seg.shape[0]))) * 1.0
        out = numpy.tensordot(m, gm, axes=1)
    out = numpy.moveaxis(out, 0, ax)
    return reshape_as(numpy.reshape(out, base.shape), x)


def _pad_pairs(pad_width, ndim):
    if isinstance(pad_width, int):
        return [(pad_width, pad_width)] * ndim
    pw = list(pad_width)
    if all(isinstance(p, int) for p in pw):
        if len(pw) == 1:
            return [(pw[0], pw[0])] * ndim
        return [(pw[0], pw[1])] * ndim
    pairs = [(p, p) if isinstance(p, int) else (int(p[0]), int(p[-1])) for p in pw]
    if len(pairs) == 1:
        pairs = pairs * ndim
    return pairs


def pad_grad(g, x, pad_width, mode="constant"):
    xa = numpy.asarray(x)
    if mode == "constant":
        pairs = _pad_pairs(pad_width, xa.ndim)
        index = tuple(slice(b, g.shape[i] - a) for i, (b, a) in enumerate(pairs))
        return reshape_as(g[index], x)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        # these modes gather elements of x: scatter g back through the index map
        n = xa.size
        src = numpy.ravel(numpy.pad(numpy.reshape(numpy.arange(n) * 1.0, xa.shape), pad_width, mode=mode))
        m = (numpy.reshape(numpy.arange(n) * 1.0, (n, 1)) == numpy.reshape(src, (1, src.shape[0]))) * 1.0
        return reshape_as(numpy.dot(m, numpy.ravel(g)), x)
    raise NotImplementedError("tangent: no reverse-mode derivative of numpy.pad with mode=%r" % (mode,))


def pad_constant_grad(g, x, pad_width):
    """Gradient with respect to a scalar `constant_values` of `pad`."""
    return float(numpy.sum(g) - numpy.sum(pad_grad(g, x, pad_width)))


def pad_tangent(t, tc, x, pad_width, mode="constant"):
    if _is_zero(t):
        t = numpy.zeros(numpy.shape(x))
    if mode == "constant":
        return numpy.pad(t, pad_width, mode="constant", constant_values=0.0 if _is_zero(tc) else tc)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return numpy.pad(t, pad_width, mode=mode)
    raise NotImplementedError("tangent: no forward-mode derivative of numpy.pad with mode=%r" % (mode,))


# ---------------------------------------------------------- reductions and scans

def _prod_others(x, axis):
    """For every element, the product of the other elements of its reduction group
    (exact when some elements are zero: prefix and suffix products, no division)."""
    axes = _axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = list(axes) + rest
    xt = numpy.transpose(x, tuple(perm))
    n = 1
    for a in axes:
        n *= x.shape[a]
    if n <= 1:
        return numpy.ones(x.shape)
    rest_shape = tuple(xt.shape[len(axes):])
    m = numpy.reshape(xt, (n,) + rest_shape)
    ones = numpy.ones((1,) + rest_shape)
    left = numpy.concatenate([ones, numpy.cumprod(m, axis=0)[:-1]], axis=0)
    right = numpy.flip(numpy.cumprod(numpy.flip(m, 0), axis=0), 0)
    right = numpy.concatenate([right[1:], ones], axis=0)
    others = numpy.reshape(left * right, xt.shape)
    return numpy.transpose(others, _tg().inverse_permutation(perm))


def prod_grad(g, x, axis=None, keepdims=False):
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            return reshape_as(prod_grad(g, numpy.asarray(x) * 1.0, axis, keepdims), x)
        return g
    return _tg().unreduce(g, x, axis, keepdims) * _prod_others(x, axis)


def prod_tangent(t, x, axis=None, keepdims=False):
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            return prod_tangent(numpy.asarray(t), numpy.asarray(x) * 1.0, axis, keepdims)
        return t
    return numpy.sum(t * _prod_others(x, axis), axis=axis, keepdims=keepdims)


def cumsum_grad(g, x, axis=None):
    if axis is None:
        return reshape_as(numpy.flip(numpy.cumsum(numpy.flip(numpy.ravel(g), 0))), x)
    return reshape_as(numpy.flip(numpy.cumsum(numpy.flip(g, axis), axis=axis), axis), x)


def _scan_lanes(x, axis):
    """x as an array with the scanned axis first, and how to undo it."""
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
        return reshape_as(numpy.zeros(shape), x)
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
    return reshape_as(numpy.reshape(numpy.moveaxis(out, 0, ax), shape), x)


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


def var_grad(g, x, axis=None, ddof=0, keepdims=False):
    tg = _tg()
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            return reshape_as(var_grad(g, numpy.asarray(x) * 1.0, axis, ddof, keepdims), x)
        return 0.0 * g
    n = tg.reduced_count(x, axis)
    mu = numpy.mean(x, axis=axis, keepdims=True)
    return tg.unreduce(g, x, axis, keepdims) * 2.0 * (x - mu) / (n - (ddof or 0))


def var_tangent(t, x, axis=None, ddof=0, keepdims=False):
    tg = _tg()
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            return var_tangent(numpy.asarray(t), numpy.asarray(x) * 1.0, axis, ddof, keepdims)
        return 0.0 * t
    n = tg.reduced_count(x, axis)
    mu = numpy.mean(x, axis=axis, keepdims=True)
    return numpy.sum(2.0 * (x - mu) * t, axis=axis, keepdims=keepdims) / (n - (ddof or 0))


def clip_mask(x, lo, hi, which):
    """Which argument `clip(x, lo, hi)` = minimum(maximum(x, lo), hi) takes its value
    from (1.0 where argument `which` = 0 (x), 1 (lo), 2 (hi) does), with the tie-breaking
    of maximum/minimum's rules."""
    mx, ml, mh = 1.0, 0.0, 0.0
    r = x
    if lo is not None:
        mx = (x >= lo) * 1.0
        ml = (x < lo) * 1.0
        r = numpy.maximum(x, lo)
    if hi is not None:
        keep = (r <= hi) * 1.0
        mh = (r > hi) * 1.0
        mx = mx * keep
        ml = ml * keep
    return (mx, ml, mh)[which]


def clip_grad(g, x, lo, hi, which):
    like = (x, lo, hi)[which]
    return _tg().unbroadcast(g * clip_mask(x, lo, hi, which), like)


# -------------------------------------------------------------- matrix functions

def _diag_embed(g, n, m, offset):
    """The adjoint of taking the `offset` diagonal of the last two axes: g (..., L) ->
    (..., n, m) with g on that diagonal."""
    g = numpy.asarray(g) * 1.0
    length = g.shape[-1]
    i0 = max(-offset, 0)
    j0 = max(offset, 0)
    flat = (numpy.arange(length) + i0) * m + (numpy.arange(length) + j0)
    p = (numpy.reshape(numpy.arange(n * m), (1, n * m)) == numpy.reshape(flat, (length, 1))) * 1.0
    out = numpy.tensordot(g, p, axes=1)
    return numpy.reshape(out, tuple(g.shape[:-1]) + (n, m))


def diagonal_grad(g, x, offset=0, axis1=0, axis2=1):
    shape = numpy.shape(x)
    full = _diag_embed(g, shape[axis1], shape[axis2], offset)
    return numpy.moveaxis(full, (-2, -1), (axis1, axis2))


def trace_grad(g, x, offset=0, axis1=0, axis2=1):
    length = numpy.diagonal(x, offset, axis1, axis2).shape[-1]
    g = numpy.reshape(numpy.asarray(g) * 1.0, numpy.shape(g) + (1,)) * numpy.ones(length)
    return diagonal_grad(g, x, offset, axis1, axis2)


def _linspace_weights(num, endpoint):
    """d samples / d stop of linspace (d samples / d start is 1 minus these), as NumPy
    constants."""
    div = num - 1 if endpoint else num
    t = numpy.arange(num) / div if div > 0 else numpy.zeros(num)
    if endpoint and num > 1:
        t[-1] = 1.0  # linspace stores `stop` itself there
    return t, div


def _scalar_or_array(xp, v):
    """A 0-d NumPy result as a float (a JAX value, tracers included, stays as it is)."""
    return float(v) if xp is numpy and numpy.ndim(v) == 0 else v


def linspace_grad(g, end, num, endpoint, retstep, axis, which):
    """Gradient of linspace's `start` (which=0) or `stop` (which=1) (NumPy or JAX)."""
    g_step = None
    if retstep:
        g, g_step = g[0], g[1]
    xp = _xp(g, g_step)
    t, div = _linspace_weights(int(num), endpoint)
    w = xp.asarray(t if which == 1 else 1.0 - t)
    total = xp.tensordot(w, xp.moveaxis(xp.asarray(g), axis, 0), axes=1)
    if g_step is not None and div > 0:
        sign = 1.0 if which == 1 else -1.0
        total = total + sign * xp.asarray(g_step) / div
    return _tg().unbroadcast(_scalar_or_array(xp, total), end)


def linspace_tangent(t_start, t_stop, y, num, endpoint, retstep, axis):
    samples = y[0] if retstep else y
    xp = _xp(t_start, t_stop, samples)
    t, div = _linspace_weights(int(num), endpoint)
    shape = [1] * xp.ndim(samples)
    shape[axis] = int(num)
    t = xp.reshape(xp.asarray(t), tuple(shape))
    # Array end points have the samples' axis inserted at `axis`.
    along = lambda v: xp.expand_dims(v, axis) if xp.ndim(v) > 0 else v
    out = (along(t_start) * (1.0 - t) + along(t_stop) * t) * xp.ones(xp.shape(samples))
    if retstep:
        step = (t_stop - t_start) / div if div > 0 else 0.0 * (t_stop - t_start)
        return (out, step)
    return out


def linspace_grad_adjoint(t_end, g, num, endpoint, retstep, axis, which):
    """The adjoint of linspace_grad in its gradient argument: the samples' (and step's)
    weights times the end point's cotangent, shaped like `g`."""
    zero = 0.0 * t_end
    start, stop = (zero, t_end) if which == 1 else (t_end, zero)
    samples = g[0] if retstep else g
    out = linspace_tangent(start, stop, samples, num, endpoint, False, axis)
    if retstep:
        _, div = _linspace_weights(int(num), endpoint)
        step = (stop - start) / div if div > 0 else 0.0 * (stop - start)
        return (out, step)
    return out


def arange_step_grad(g, step):
    """Gradient of arange's `step`: element i is start + i * step."""
    xp = _xp(g)
    g = xp.asarray(g)
    return _tg().unbroadcast(_scalar_or_array(xp, xp.sum(g * xp.arange(g.shape[0]))), step)


def arange_tangent(t_start, t_step, y):
    xp = _xp(t_start, t_step, y)
    n = xp.shape(y)[0]
    return (t_start + t_step * xp.arange(n)) * xp.ones(n)


def diag_grad(g, v, k=0):
    if numpy.ndim(v) == 1:
        return numpy.diagonal(g, k)
    shape = numpy.shape(v)
    return _diag_embed(g, shape[0], shape[1], k)


def bilinear_tangent(f, ta, a, tb, b, *args):
    """Tangent of `f(a, b, *args)` for f linear in a and in b: f(ta, b) + f(a, tb), with
    the terms of inactive arguments (zero tangents) left out."""
    out = 0.0
    if not _is_zero(ta):
        out = out + f(ta, b, *args)
    if not _is_zero(tb):
        out = out + f(a, tb, *args)
    return out


def inner_grad(g, a, b, which):
    na, nb = numpy.ndim(a), numpy.ndim(b)
    tg = _tg()
    if na == 0 or nb == 0:
        return tg.unbroadcast(g * (b if which == 0 else a), a if which == 0 else b)
    if na == 1 and nb == 1:
        return g * (b if which == 0 else a)
    fa, fb = na - 1, nb - 1
    if which == 0:
        return _tdot(g, b, list(range(fa, fa + fb)), list(range(fb)))
    return _tdot(g, a, list(range(fa)), list(range(fa)))


def _tdot(x, y, ax, ay):
    if not ax:
        x = numpy.asarray(x) * 1.0
        return numpy.reshape(x, tuple(x.shape) + (1,) * numpy.ndim(y)) * y
    return numpy.tensordot(x, y, axes=(ax, ay))


def _tensordot_axes(axes, na, nb):
    if isinstance(axes, int):
        return list(range(na - axes, na)), list(range(axes))
    aa, bb = axes
    aa = [aa] if isinstance(aa, int) else list(aa)
    bb = [bb] if isinstance(bb, int) else list(bb)
    return [a % na for a in aa], [b % nb for b in bb]


def tensordot_grad(g, a, b, axes, which):
    na, nb = numpy.ndim(a), numpy.ndim(b)
    aa, bb = _tensordot_axes(axes, na, nb)
    free_a = [i for i in range(na) if i not in aa]
    free_b = [j for j in range(nb) if j not in bb]
    nfa = len(free_a)
    if which == 0:
        raw = _tdot(g, b, list(range(nfa, nfa + len(free_b))), free_b)
        cur = free_a + [aa[bb.index(j)] for j in sorted(bb)]
        return numpy.transpose(raw, tuple(cur.index(i) for i in range(na))) if na > 1 else raw
    raw = _tdot(a, g, free_a, list(range(nfa)))
    cur = [bb[aa.index(i)] for i in sorted(aa)] + free_b
    return numpy.transpose(raw, tuple(cur.index(j) for j in range(nb))) if nb > 1 else raw


_LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def _einsum_parse(subscripts, operands):
    """(input subscripts, output subscript) with `...` spelled out and the implicit
    output made explicit."""
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, out = s.split("->")
    else:
        ins, out = s, None
    ins = ins.split(",")
    if "..." in s:
        used = set(c for c in s if c.isalpha())
        free = [c for c in _LETTERS if c not in used]
        dims = []
        for sub, op in zip(ins, operands):
            dims.append(numpy.ndim(op) - (len(sub) - 3) if "..." in sub else 0)
        nell = max(dims)
        ell = "".join(free[:nell])
        ins = [sub.replace("...", ell[nell - k:]) if "..." in sub else sub for sub, k in zip(ins, dims)]
        if out is not None:
            out = out.replace("...", ell)
        else:
            counts = {}
            for sub in ins:
                for c in sub:
                    counts[c] = counts.get(c, 0) + 1
            out = ell + "".join(sorted(c for c in counts if counts[c] == 1 and c not in ell))
    if out is None:
        counts = {}
        for sub in ins:
            for c in sub:
                counts[c] = counts.get(c, 0) + 1
        out = "".join(sorted(c for c in counts if counts[c] == 1))
    return ins, out


def einsum_grad(g, subscripts, operands, i):
    return einsum_grad_in(numpy, reshape_as, g, subscripts, operands, i)


def einsum_tangent(subscripts, operands, *tangents):
    return einsum_tangent_in(numpy, subscripts, operands, *tangents)


def einsum_grad_in(xp, reshape_like, g, subscripts, operands, i):
    """The gradient of operand i of an einsum, for the array namespace `xp` (numpy, or
    jax.numpy for JAX arrays) and its `reshape_as`."""
    ops = [o for o in operands if o is not None]
    ins, out = _einsum_parse(subscripts, ops)
    sub = ins[i]
    op = ops[i]
    others = [(ins[j], ops[j]) for j in range(len(ops)) if j != i]
    avail = set(out)
    for s, _ in others:
        avail.update(s)
    order = []
    for c in sub:
        if c not in order:
            order.append(c)
    kept = "".join(c for c in order if c in avail)
    if not others and out == kept:
        grad = xp.asarray(g) * 1.0
    else:
        spec = ",".join([out] + [s for s, _ in others]) + "->" + kept
        grad = xp.asarray(xp.einsum(spec, xp.asarray(g), *[o for _, o in others])) * 1.0
    shape = tuple(xp.shape(op))
    size = {}
    for c, n in zip(sub, shape):
        size.setdefault(c, n)
    # letters summed only inside this operand: the gradient is constant along them
    grad = xp.reshape(grad, tuple(grad.shape[kept.index(c)] if c in avail else 1 for c in order))
    if len(kept) < len(order):
        grad = grad * xp.ones(tuple(size[c] for c in order))
    # repeated letters (diagonals): place the gradient on the diagonal
    if len(order) < len(sub):
        first = {}
        rshape = []
        for p, c in enumerate(sub):
            if c in first:
                rshape.append(1)
            else:
                first[c] = p
                rshape.append(grad.shape[len(first) - 1])
        grad = xp.reshape(grad, tuple(rshape))
        for p, c in enumerate(sub):
            q = first[c]
            if q != p:
                mshape = [1] * len(sub)
                mshape[q] = size[c]
                mshape[p] = size[c]
                grad = grad * xp.reshape(xp.eye(size[c]), tuple(mshape))
    # operand axes of size 1 broadcast against the others
    for ax, n in enumerate(shape):
        if n == 1 and grad.shape[ax] != 1:
            grad = xp.sum(grad, axis=ax, keepdims=True)
    return reshape_like(grad, op)


def einsum_tangent_in(xp, subscripts, operands, *tangents):
    """The tangent of an einsum (product rule over the operands), for namespace `xp`."""
    ops = list(operands)
    out = 0.0
    for j, t in enumerate(tangents):
        if ops[j] is None or _is_zero(t):
            continue
        args = [o for o in ops[:j] if o is not None] + [t] + [o for o in ops[j + 1:] if o is not None]
        out = out + xp.einsum(subscripts, *args)
    return out


def outer_grad(g, a, b, which):
    if which == 0:
        return reshape_as(numpy.dot(g, numpy.ravel(b)), a)
    return reshape_as(numpy.dot(numpy.transpose(g), numpy.ravel(a)), b)


def sort_grad(g, x, axis=-1):
    xa = numpy.asarray(x) * 1.0
    if axis is None:
        flat = numpy.zeros(xa.size)
        flat[numpy.argsort(numpy.ravel(xa))] = numpy.ravel(g)
        return reshape_as(flat, x)
    xm = numpy.moveaxis(xa, axis, -1)
    gm = numpy.moveaxis(g, axis, -1)
    index = _lane_sort_index(xm)
    flat = numpy.zeros(xm.size)
    flat[index] = numpy.ravel(gm)
    return reshape_as(numpy.moveaxis(numpy.reshape(flat, xm.shape), -1, axis), x)


def _lane_sort_index(xm):
    """Flat indices of the elements of each last-axis lane of `xm` in sorted order."""
    n = xm.shape[-1]
    rows = xm.size // n if n else 0
    x2 = numpy.reshape(xm, (rows, n))
    order = numpy.argsort(x2, axis=-1)
    return numpy.ravel(order + numpy.reshape(numpy.arange(rows) * n, (rows, 1)))


def sort_tangent(t, x, axis=-1):
    xa = numpy.asarray(x) * 1.0
    t = numpy.asarray(t) * 1.0
    if axis is None:
        return numpy.ravel(t)[numpy.argsort(numpy.ravel(xa))]
    xm = numpy.moveaxis(xa, axis, -1)
    tm = numpy.moveaxis(t, axis, -1)
    out = numpy.reshape(numpy.ravel(tm)[_lane_sort_index(xm)], xm.shape)
    return numpy.moveaxis(out, -1, axis)


# ------------------------------------------------------------------------ linalg
# One implementation for numpy.linalg and jax.numpy.linalg: each helper computes in the
# array namespace of its arguments (`_xp`: jax.numpy when one is a JAX array, tracers
# included, else numpy). On JAX arrays nothing is converted to a Python number or
# written in place, so the helpers trace under jax.jit.

def _xp(*values):
    """jax.numpy when one of `values` (or an element of a tuple/list among them) is a JAX
    array, else numpy. Never imports jax: a JAX value exists only once jax is imported."""
    jax = _sys.modules.get("jax")
    if jax is not None:
        array = getattr(jax, "Array", None)
        if array is not None:
            for v in values:
                if isinstance(v, array) or (isinstance(v, (tuple, list))
                                            and any(isinstance(e, array) for e in v)):
                    return _tg()._jax_grads().jnp
    return numpy


def _reshape_like(xp):
    """`reshape_as` of the namespace: NumPy's returns floats/lists for Python arguments."""
    if xp is numpy:
        return reshape_as
    return _tg()._jax_grads().jax_reshape_as


def _dtype(xp, like):
    """dtype of constants built for a derivative of `like`: NumPy's default (unchanged
    NumPy results), for JAX the floating dtype of `like` (float32 stays float32)."""
    if xp is numpy:
        return None
    return xp.result_type(like, 1.0)


def _eye(n, like, xp=numpy):
    return xp.eye(n, dtype=_dtype(xp, like))


def inv_grad(g, y):
    xp = _xp(g, y)
    yt = _T(y)
    return -xp.matmul(yt, xp.matmul(g, yt))


def inv_tangent(t, y):
    xp = _xp(t, y)
    return -xp.matmul(y, xp.matmul(t, y))


def _expand2(g, xp=numpy):
    g = xp.asarray(g) * 1.0
    return xp.reshape(g, tuple(g.shape) + (1, 1))


def _scalar(v, xp=numpy):
    """A 0-d NumPy result as a float; JAX values stay arrays (they may be traced)."""
    if xp is not numpy:
        return v
    return float(v) if numpy.ndim(v) == 0 else v


def det_grad(g, y, a):
    xp = _xp(g, y, a)
    return _expand2(g * y, xp) * _T(xp.linalg.inv(a))


def det_tangent(t, y, a):
    xp = _xp(t, y, a)
    return _scalar(y * xp.sum(_T(xp.linalg.inv(a)) * t, axis=(-2, -1)), xp)


def slogdet_grad(g, a):
    xp = _xp(g, a)
    return _expand2(g, xp) * _T(xp.linalg.inv(a))


def slogdet_tangent(t, y, a):
    xp = _xp(t, y, a)
    sign = y[0]
    return (sign * 0.0, _scalar(xp.sum(_T(xp.linalg.inv(a)) * t, axis=(-2, -1)), xp))


def _solve_vec(a, b):
    return _xp(b).ndim(b) == 1


def solve_grad(g, a, b, y, which):
    tg = _tg()
    xp = _xp(g, a, b, y)
    vec = _solve_vec(a, b)
    if vec:
        gb = xp.linalg.solve(_T(a), xp.reshape(g, xp.shape(g) + (1,)))
        gb = xp.reshape(gb, xp.shape(g))
    else:
        gb = xp.linalg.solve(_T(a), g)
    if which == 1:
        return tg.unbroadcast(gb, b)
    if vec:
        ga = -xp.reshape(gb, xp.shape(gb) + (1,)) * xp.reshape(y, xp.shape(y)[:-1] + (1, xp.shape(y)[-1]))
    else:
        ga = -xp.matmul(gb, _T(y))
    return tg.unbroadcast(ga, a)


def solve_tangent(ta, tb, a, b, y):
    xp = _xp(ta, tb, a, b, y)
    vec = _solve_vec(a, b)
    rhs = 0.0
    if not _is_zero(tb):
        rhs = tb
    if not _is_zero(ta):
        if vec:
            rhs = rhs - xp.reshape(xp.matmul(ta, xp.reshape(y, xp.shape(y) + (1,))), xp.shape(y))
        else:
            rhs = rhs - xp.matmul(ta, y)
    rhs = rhs * xp.ones(xp.shape(y), dtype=_dtype(xp, y))
    if vec:
        out = xp.linalg.solve(a, xp.reshape(rhs, xp.shape(rhs) + (1,)))
        return xp.reshape(out, xp.shape(y))
    return xp.linalg.solve(a, rhs)


def _norm_setup(x, ord, axis):
    """(reduced axes, is_matrix_norm) of `linalg.norm(x, ord, axis)`."""
    nd = _xp(x).ndim(x)
    if axis is None:
        if ord is None:
            return tuple(range(nd)), False
        if nd == 2:
            return (0, 1), True
        return tuple(range(nd)), False
    if isinstance(axis, int):
        return (axis % nd,), False
    axis = tuple(a % nd for a in axis)
    if len(axis) == 2:
        return axis, True
    return axis, False


def _mask(cond, like, xp=numpy):
    """1.0 where `cond`, else 0.0 (for JAX in the dtype of `like`: a weakly typed mask
    would become float64 once summed)."""
    if xp is numpy:
        return cond * 1.0
    return cond.astype(_dtype(xp, like))


def _share(mask, axes, xp=numpy):
    """mask / (number of elements attaining the extremum) over `axes`."""
    return mask / xp.sum(mask, axis=axes, keepdims=True)


def _norm_direction(x, y, ord, axis, keepdims):
    """The gradient of each norm value with respect to x (shaped like x)."""
    tg = _tg()
    xp = _xp(x, y)
    x = xp.asarray(x) * 1.0
    axes, matrix = _norm_setup(x, ord, axis)
    yk = tg.unreduce(y, x, axes, keepdims)
    inf = float("inf")
    if ord is None or ord == "fro" or (not matrix and ord == 2):
        return x / xp.where(yk == 0.0, 1.0, yk)
    if not matrix:
        ax = axes
        if ord == 1:
            return xp.sign(x)
        if ord == inf or ord == -inf:
            mask = _mask(xp.abs(x) == yk, x, xp)
            return xp.sign(x) * _share(mask, ax, xp)
        if ord == 0:
            return xp.zeros(x.shape, dtype=_dtype(xp, x))
        p = float(ord)
        safe = xp.where(yk == 0.0, 1.0, yk)
        return xp.sign(x) * xp.abs(x) ** (p - 1.0) / safe ** (p - 1.0)
    r, c = axes
    if ord == "nuc" or ord == 2 or ord == -2:
        m = xp.moveaxis(x, (r, c), (-2, -1))
        u, s, vh = xp.linalg.svd(m, full_matrices=False)
        if ord == "nuc":
            d = xp.matmul(u, vh)
        else:
            k = 0 if ord == 2 else s.shape[-1] - 1
            d = xp.matmul(u[..., :, k:k + 1], vh[..., k:k + 1, :])
        return xp.moveaxis(d, (-2, -1), (r, c))
    if ord == 1 or ord == -1:
        sums = xp.sum(xp.abs(x), axis=r, keepdims=True)
        mask = _mask(sums == xp.max(sums, axis=c, keepdims=True) if ord == 1 else
                     sums == xp.min(sums, axis=c, keepdims=True), x, xp)
        return xp.sign(x) * _share(mask, c, xp)
    if ord == inf or ord == -inf:
        sums = xp.sum(xp.abs(x), axis=c, keepdims=True)
        mask = _mask(sums == xp.max(sums, axis=r, keepdims=True) if ord == inf else
                     sums == xp.min(sums, axis=r, keepdims=True), x, xp)
        return xp.sign(x) * _share(mask, r, xp)
    raise NotImplementedError("tangent: no derivative of linalg.norm with ord=%r" % (ord,))


def norm_grad(g, x, y, ord=None, axis=None, keepdims=False):
    tg = _tg()
    xp = _xp(g, x, y)
    axes, _ = _norm_setup(x, ord, axis)
    d = _norm_direction(x, y, ord, axis, keepdims)
    return _reshape_like(xp)(tg.unreduce(g, xp.asarray(x) * 1.0, axes, keepdims) * d, x)


def norm_tangent(t, x, y, ord=None, axis=None, keepdims=False):
    xp = _xp(t, x, y)
    axes, _ = _norm_setup(x, ord, axis)
    d = _norm_direction(x, y, ord, axis, keepdims)
    return _scalar(xp.sum(d * t, axis=axes, keepdims=keepdims), xp)


def _sym(a):
    return 0.5 * (a + _T(a))


def _phi(x):
    """Lower triangle with the diagonal halved."""
    xp = _xp(x)
    n = xp.shape(x)[-1]
    return x * (_tril(n, -1, xp) + 0.5 * _eye(n, x, xp))


def cholesky_grad(g, y, upper=False):
    xp = _xp(g, y)
    lower, g = (_T(y), _T(g)) if upper else (y, g)
    li = xp.linalg.inv(lower)
    s = xp.matmul(_T(li), xp.matmul(_phi(xp.matmul(_T(lower), g)), li))
    return _sym(s)


def cholesky_tangent(t, y, upper=False):
    xp = _xp(t, y)
    lower = _T(y) if upper else y
    li = xp.linalg.inv(lower)
    dl = xp.matmul(lower, _phi(xp.matmul(li, xp.matmul(_sym(t), _T(li)))))
    return _T(dl) if upper else dl


def _eig_gaps(w):
    """F[i, j] = 1 / (w[j] - w[i]) off the diagonal, 0 on it."""
    xp = _xp(w)
    n = xp.shape(w)[-1]
    wi = xp.reshape(w, xp.shape(w) + (1,))
    wj = xp.reshape(w, xp.shape(w)[:-1] + (1, n))
    eye = _eye(n, w, xp)
    return (1.0 - eye) / (wj - wi + eye)


def eigh_grad(gy, y):
    xp = _xp(gy, y)
    w, v = y[0], y[1]
    gw, gv = gy[0], gy[1]
    n = xp.shape(w)[-1]
    inner = xp.reshape(xp.asarray(gw) * 1.0, xp.shape(w) + (1,)) * _eye(n, w, xp)
    if not _is_zero(gv):
        inner = inner + _eig_gaps(w) * xp.matmul(_T(v), gv)
    return _sym(xp.matmul(v, xp.matmul(inner, _T(v))))


def eigh_tangent(t, y):
    xp = _xp(t, y)
    w, v = y[0], y[1]
    x = xp.matmul(_T(v), xp.matmul(_sym(t), v))
    dw = xp.diagonal(x, 0, -2, -1)
    dv = xp.matmul(v, _eig_gaps(w) * x)
    return (dw, dv)


def eigvalsh_grad(g, a, uplo="L"):
    w, v = _xp(g, a).linalg.eigh(a, uplo)
    return eigh_grad((g, 0.0), (w, v))


def eigvalsh_tangent(t, a, uplo="L"):
    w, v = _xp(t, a).linalg.eigh(a, uplo)
    return eigh_tangent(t, (w, v))[0]


def _check_qr(a, mode):
    if mode != "reduced":
        raise NotImplementedError("tangent: linalg.qr is differentiated for mode='reduced' only")
    shape = _xp(a).shape(a)
    if shape[-2] < shape[-1]:
        raise NotImplementedError("tangent: linalg.qr is differentiated for M >= N only")


def qr_grad(gy, y, a, mode="reduced"):
    _check_qr(a, mode)
    xp = _xp(gy, y, a)
    q, r = y[0], y[1]
    gq, gr = gy[0], gy[1]
    n = xp.shape(r)[-1]
    m = xp.matmul(r, _T(gr)) - xp.matmul(_T(gq), q)
    copyltu = m * _tril(n, 0, xp) + _T(m * _tril(n, -1, xp))
    b = gq + xp.matmul(q, copyltu)
    return _T(xp.linalg.solve(r, _T(b)))


def qr_tangent(t, y, a, mode="reduced"):
    _check_qr(a, mode)
    xp = _xp(t, y, a)
    q, r = y[0], y[1]
    n = xp.shape(r)[-1]
    ri = xp.linalg.inv(r)
    x = xp.matmul(_T(q), xp.matmul(t, ri))
    low = x * _tril(n, -1, xp)
    omega = low - _T(low)
    dr = xp.matmul(x - omega, r)
    dq = xp.matmul(t - xp.matmul(q, dr), ri)
    return (dq, dr)


def _check_svd(a, full_matrices):
    shape = _xp(a).shape(a)
    if full_matrices and shape[-2] != shape[-1]:
        raise NotImplementedError("tangent: linalg.svd of a non-square matrix is differentiated "
                                  "with full_matrices=False only")


def _svd_gaps(s):
    """F[i, j] = 1 / (s[j]**2 - s[i]**2) off the diagonal, 0 on it."""
    return _eig_gaps(s * s)


def _row(s):
    xp = _xp(s)
    return xp.reshape(s, xp.shape(s)[:-1] + (1, xp.shape(s)[-1]))


def svd_grad(gy, y, a, full_matrices=True, compute_uv=True):
    xp = _xp(gy, y, a)
    if not compute_uv:
        u, s, vt = xp.linalg.svd(a, full_matrices=False)
        return xp.matmul(u * _row(gy), vt)
    _check_svd(a, full_matrices)
    u, s, vt = y[0], y[1], y[2]
    gu, gs, gvt = gy[0], gy[1], gy[2]
    m, n = xp.shape(a)[-2], xp.shape(a)[-1]
    k = xp.shape(s)[-1]
    srow = _row(s)
    f = _svd_gaps(s)
    dsbar = xp.reshape(xp.asarray(gs) * 1.0, xp.shape(s) + (1,)) * _eye(k, s, xp)
    j = f * xp.matmul(_T(u), gu)
    dsbar = dsbar + (j + _T(j)) * srow
    v = _T(vt)
    gv = _T(gvt)
    kk = f * xp.matmul(vt, gv)
    dsbar = dsbar + _T(srow) * (kk + _T(kk))
    out = xp.matmul(u, xp.matmul(dsbar, vt))
    sinv = 1.0 / xp.where(srow == 0.0, 1.0, srow) * (srow != 0.0)
    if m > n:
        proj = gu - xp.matmul(u, xp.matmul(_T(u), gu))
        out = out + xp.matmul(proj * sinv, vt)
    if n > m:
        proj = gv - xp.matmul(v, xp.matmul(vt, gv))
        out = out + xp.matmul(u * sinv, _T(proj))
    return out


def svd_tangent(t, y, a, full_matrices=True, compute_uv=True):
    xp = _xp(t, y, a)
    if not compute_uv:
        u, s, vt = xp.linalg.svd(a, full_matrices=False)
        return xp.diagonal(xp.matmul(_T(u), xp.matmul(t, _T(vt))), 0, -2, -1)
    _check_svd(a, full_matrices)
    u, s, vt = y[0], y[1], y[2]
    v = _T(vt)
    m, n = xp.shape(a)[-2], xp.shape(a)[-1]
    srow = _row(s)
    ds_mat = xp.matmul(_T(u), xp.matmul(t, v))
    ds = xp.diagonal(ds_mat, 0, -2, -1)
    f = _svd_gaps(s)
    dss = ds_mat * srow
    sds = _T(srow) * ds_mat
    du = xp.matmul(u, f * (dss + _T(dss)))
    dv = xp.matmul(v, f * (sds + _T(sds)))
    sinv = 1.0 / xp.where(srow == 0.0, 1.0, srow) * (srow != 0.0)
    if m > n:
        dav = xp.matmul(t, v)
        du = du + (dav - xp.matmul(u, xp.matmul(_T(u), dav))) * sinv
    if n > m:
        dahu = xp.matmul(_T(t), u)
        dv = dv + (dahu - xp.matmul(v, xp.matmul(vt, dahu))) * sinv
    return (du, ds, _T(dv))


# ------------------------------------------------------------------ higher order
# Rules of the helpers above, for differentiating generated derivatives again
# (backends/tangent_numpy.py). `*_tangent_full(tangents..., primals...)` is the exact
# tangent of a helper with respect to every argument (a literal 0.0 tangent for an
# inactive one); `*_grad_<arg>` is the adjoint of a forward-mode helper with respect
# to one of its primal arguments.

def _zero_like(x):
    return _tg().init_grad(x)


def _nz(t, like):
    """A zero tangent (0.0) as zeros shaped like `like`; other tangents unchanged."""
    if _is_zero(t):
        return _zero_like(like)
    return t


def _add(out, term):
    return term if out is None else out + term


def linear_tangent(f, t, g, *args):
    """Tangent of `f(g, *args)` for f linear in g, the other arguments entering only
    through shapes or locally constant masks and permutations: f(t, *args)."""
    if _is_zero(t):
        t = _zero_like(g)
    return f(t, *args)


def var_grad_tangent_full(tg, tx, g, x, axis=None, ddof=0, keepdims=False):
    # var_grad is bilinear in (g, x)
    if isinstance(x, (list, tuple)):
        xa = numpy.asarray(x) * 1.0
        tx = 0.0 if _is_zero(tx) else numpy.asarray(tx) * 1.0
        return reshape_as(var_grad_tangent_full(tg, tx, g, xa, axis, ddof, keepdims), x)
    out = var_grad(_nz(tg, g), x, axis, ddof, keepdims)
    if not _is_zero(tx) and _is_array(x):
        out = out + var_grad(g, numpy.asarray(tx) * 1.0, axis, ddof, keepdims)
    return out


def _lanes(x, axis):
    """x with the reduced axes flattened to the front: (m, undo), m of shape (n, rest)."""
    x = numpy.asarray(x) * 1.0
    axes = _axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = list(axes) + rest
    xt = numpy.transpose(x, tuple(perm))
    n = 1
    for a in axes:
        n *= x.shape[a]
    rest_shape = tuple(xt.shape[len(axes):])
    m = numpy.reshape(xt, (n,) + rest_shape)
    inv = _tg().inverse_permutation(perm)

    def undo(r):
        return numpy.transpose(numpy.reshape(r, xt.shape), inv)
    return m, undo


def _prod_rows(m, skip):
    """Product of the rows of m (first axis) not in `skip`."""
    out = numpy.ones(m.shape[1:])
    for k in range(m.shape[0]):
        if k not in skip:
            out = out * m[k]
    return out


def _weighted_pair_products(m, w):
    """Row i: the sum over j != i of w[j] times the product of every row of `m` but i
    and j (symmetric in i and j, so it serves both the tangent and its adjoint)."""
    n = m.shape[0]
    rows = []
    for i in range(n):
        acc = numpy.zeros(m.shape[1:])
        for j in range(n):
            if j != i:
                acc = acc + w[j] * _prod_rows(m, (i, j))
        rows.append(acc)
    return numpy.stack(rows)


def prod_grad_tangent_full(tg, tx, g, x, axis=None, keepdims=False):
    tgm = _tg()
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            xa = numpy.asarray(x) * 1.0
            tx = 0.0 if _is_zero(tx) else numpy.asarray(tx) * 1.0
            return reshape_as(prod_grad_tangent_full(tg, tx, g, xa, axis, keepdims), x)
        return _nz(tg, g)
    out = prod_grad(_nz(tg, g), x, axis, keepdims)
    if _is_zero(tx):
        return out
    m, undo = _lanes(x, axis)
    tm, _ = _lanes(tx, axis)
    dothers = undo(_weighted_pair_products(m, tm)) if m.shape[0] else numpy.zeros(x.shape)
    return out + tgm.unreduce(g, x, axis, keepdims) * dothers


def prod_tangent_grad_x(gz, t, x, axis=None, keepdims=False):
    """Adjoint of prod_tangent(t, x) = sum(t * others(x)) with respect to x."""
    tgm = _tg()
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            return reshape_as(prod_tangent_grad_x(gz, numpy.asarray(t) * 1.0,
                                                  numpy.asarray(x) * 1.0, axis, keepdims), x)
        return 0.0 * gz
    G = tgm.unreduce(gz, x, axis, keepdims) * t
    m, undo = _lanes(x, axis)
    gm, _ = _lanes(G, axis)
    return undo(_weighted_pair_products(m, gm)) if m.shape[0] else numpy.zeros(x.shape)


def _seg_prod(m, i, skip):
    """prod of m[j] for j <= i, j not in skip."""
    out = numpy.ones(m.shape[1:])
    for j in range(i + 1):
        if j not in skip:
            out = out * m[j]
    return out


def cumprod_grad_tangent_full(tg, tx, g, x, axis=None):
    out = cumprod_grad(_nz(tg, g), x, axis)
    if _is_zero(tx):
        return out
    m, shape, ax = _scan_lanes(x, axis)
    gm = numpy.moveaxis(numpy.reshape(g, shape), ax, 0)
    tm = numpy.moveaxis(numpy.reshape(numpy.asarray(tx) * 1.0, shape), ax, 0)
    n = m.shape[0]
    rows = []
    for k in range(n):
        acc = numpy.zeros(m.shape[1:])
        for i in range(k, n):
            for l in range(i + 1):
                if l != k:
                    acc = acc + gm[i] * tm[l] * _seg_prod(m, i, (k, l))
        rows.append(acc)
    if not n:
        return out
    extra = numpy.reshape(numpy.moveaxis(numpy.stack(rows), 0, ax), shape)
    return out + reshape_as(extra, x)


def cumprod_tangent_grad_x(gz, t, x, axis=None):
    """Adjoint of cumprod_tangent(t, x) with respect to x."""
    m, shape, ax = _scan_lanes(x, axis)
    gm = numpy.moveaxis(numpy.reshape(gz, shape), ax, 0)
    tm = numpy.moveaxis(numpy.reshape(numpy.asarray(t) * 1.0, shape), ax, 0)
    n = m.shape[0]
    if not n:
        return reshape_as(numpy.zeros(shape), x)
    rows = []
    for l in range(n):
        acc = numpy.zeros(m.shape[1:])
        for i in range(l, n):
            for k in range(i + 1):
                if k != l:
                    acc = acc + gm[i] * tm[k] * _seg_prod(m, i, (k, l))
        rows.append(acc)
    return reshape_as(numpy.reshape(numpy.moveaxis(numpy.stack(rows), 0, ax), shape), x)


def _bilinear_grad_full(fn, tg, ta, tb, g, a, b, which, extra):
    """Tangent of fn(g, a, b, *extra, which) for fn linear in g and in the operand
    `which` does not take (b for which=0, a for which=1)."""
    out = fn(_nz(tg, g), a, b, *(tuple(extra) + (which,)))
    other = tb if which == 0 else ta
    if not _is_zero(other):
        if which == 0:
            out = out + fn(g, a, other, *(tuple(extra) + (which,)))
        else:
            out = out + fn(g, other, b, *(tuple(extra) + (which,)))
    return out


def inner_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(inner_grad, tg, ta, tb, g, a, b, which, ())


def outer_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(outer_grad, tg, ta, tb, g, a, b, which, ())


def tensordot_grad_tangent_full(tg, ta, tb, g, a, b, axes, which):
    return _bilinear_grad_full(tensordot_grad, tg, ta, tb, g, a, b, which, (axes,))


def matmul_grad_tangent_full(tg, ta, tb, g, a, b, which):
    tgm = _tg()
    fn = tgm.matmul_grad_left if which == 0 else tgm.matmul_grad_right
    out = fn(_nz(tg, g), a, b)
    other = tb if which == 0 else ta
    if not _is_zero(other):
        out = out + (fn(g, a, other) if which == 0 else fn(g, other, b))
    return out


def einsum_grad_tangent_full(tg, toperands, g, subscripts, operands, i):
    out = einsum_grad(_nz(tg, g), subscripts, operands, i)
    if _is_zero(toperands):
        return out
    ops = list(operands)
    for j in range(len(ops)):
        if j == i or ops[j] is None or _is_zero(toperands[j]):
            continue
        swapped = list(ops)
        swapped[j] = toperands[j]
        out = out + einsum_grad(g, subscripts, tuple(swapped), i)
    return out


def einsum_tangent_grad_operands(gz, subscripts, operands, *tangents):
    """Adjoint of einsum_tangent(subscripts, operands, *tangents) with respect to the
    operands: a list with one gradient per operand (0.0 for an absent one)."""
    ops = list(operands)
    out = []
    for k in range(len(ops)):
        if ops[k] is None:
            out.append(0.0)
            continue
        acc = _zero_like(ops[k]) if _is_array(ops[k]) else 0.0
        for j, t in enumerate(tangents):
            if j == k or j >= len(ops) or ops[j] is None or _is_zero(t):
                continue
            swapped = list(ops)
            swapped[j] = t
            acc = acc + einsum_grad(gz, subscripts, tuple(swapped), k)
        out.append(acc)
    return out


def _bilinear_adjoint(f, gz, a, b, which, args):
    """Gradient of <gz, f(a, b, *args)> with respect to a (which=0) or b (which=1)."""
    if f is numpy.inner:
        return inner_grad(gz, a, b, which)
    if f is numpy.outer or f is numpy.linalg.outer:
        return outer_grad(gz, a, b, which)
    if f is numpy.tensordot:
        axes = args[0] if args else 2
        return tensordot_grad(gz, a, b, axes, which)
    raise NotImplementedError("tangent: no reverse-mode derivative of bilinear_tangent "
                              "over %r" % (f,))


def bilinear_grad(gz, f, a, b, which, args):
    return _bilinear_adjoint(f, gz, a, b, which, args)


def bilinear_tangent_grad(gz, f, ta, a, tb, b, which, args):
    """Adjoint of bilinear_tangent(f, ta, a, tb, b, *args) = f(ta, b) + f(a, tb) with
    respect to a (which=0: from f(a, tb)) or b (which=1: from f(ta, b))."""
    if which == 0:
        if _is_zero(tb):
            return _zero_like(a)
        return _bilinear_adjoint(f, gz, a, tb, 0, args)
    if _is_zero(ta):
        return _zero_like(b)
    return _bilinear_adjoint(f, gz, ta, b, 1, args)


# linalg

def inv_grad_tangent_full(tg, ty, g, y):
    out = inv_grad(_nz(tg, g), y)
    if not _is_zero(ty):
        yt, tyt = _T(y), _T(ty)
        out = out - numpy.matmul(tyt, numpy.matmul(g, yt)) - numpy.matmul(yt, numpy.matmul(g, tyt))
    return out


def inv_tangent_grad_y(gz, t, y):
    """Adjoint of inv_tangent(t, y) = -y t y with respect to y."""
    yt, tt = _T(y), _T(t)
    return -numpy.matmul(gz, numpy.matmul(yt, tt)) - numpy.matmul(tt, numpy.matmul(yt, gz))


def det_grad_tangent_full(tg, ty, ta, g, y, a):
    ai = numpy.linalg.inv(a)
    coef = 0.0
    if not _is_zero(tg):
        coef = coef + tg * y
    if not _is_zero(ty):
        coef = coef + g * ty
    out = _expand2(coef * numpy.ones(numpy.shape(y))) * _T(ai)
    if not _is_zero(ta):
        out = out - _expand2(g * y) * _T(numpy.matmul(ai, numpy.matmul(ta, ai)))
    return out


def det_tangent_grad(gz, t, y, a, which):
    """Adjoint of det_tangent(t, y, a) = y tr(a^-1 t) with respect to y (which=1) or a
    (which=2)."""
    ai = numpy.linalg.inv(a)
    if which == 1:
        return _scalar(gz * numpy.sum(_T(ai) * t, axis=(-2, -1)))
    return -_expand2(gz * y) * _T(numpy.matmul(ai, numpy.matmul(t, ai)))


def slogdet_grad_tangent_full(tg, ta, g, a):
    ai = numpy.linalg.inv(a)
    out = _expand2(_nz(tg, g)) * _T(ai)
    if not _is_zero(ta):
        out = out - _expand2(g) * _T(numpy.matmul(ai, numpy.matmul(ta, ai)))
    return out


def slogdet_tangent_grad_a(g1, t, a):
    """Adjoint of slogdet_tangent(t, y, a)[1] = tr(a^-1 t) with respect to a."""
    ai = numpy.linalg.inv(a)
    return -_expand2(g1) * _T(numpy.matmul(ai, numpy.matmul(t, ai)))


def _solve_t(a, g, vec):
    """a^-T g (g a vector stack when vec)."""
    if vec:
        return numpy.reshape(numpy.linalg.solve(_T(a), numpy.reshape(g, numpy.shape(g) + (1,))),
                             numpy.shape(g))
    return numpy.linalg.solve(_T(a), g)


def _mat_vec(m, v, vec):
    """m v (per stacked vector when vec)."""
    if vec:
        r = numpy.matmul(m, numpy.reshape(v, numpy.shape(v) + (1,)))
        return numpy.reshape(r, numpy.shape(r)[:-1])
    return numpy.matmul(m, v)


def _outer_t(u, w, vec):
    """u w^T (per stacked vector when vec)."""
    if vec:
        return (numpy.reshape(u, numpy.shape(u) + (1,)) *
                numpy.reshape(w, numpy.shape(w)[:-1] + (1, numpy.shape(w)[-1])))
    return numpy.matmul(u, _T(w))


def solve_grad_tangent_full(tg, ta, ty, g, a, b, y, which):
    tgm = _tg()
    vec = _solve_vec(a, b)
    gb = _solve_t(a, g, vec)
    rhs = None
    if not _is_zero(tg):
        rhs = tg
    if not _is_zero(ta):
        term = _mat_vec(_T(ta), gb, vec)
        rhs = -term if rhs is None else rhs - term
    dgb = _solve_t(a, rhs * numpy.ones(numpy.shape(gb)), vec) if rhs is not None else 0.0 * gb
    if which == 1:
        return tgm.unbroadcast(dgb, b)
    dga = -_outer_t(dgb, y, vec)
    if not _is_zero(ty):
        dga = dga - _outer_t(gb, ty, vec)
    return tgm.unbroadcast(dga, a)


def solve_tangent_grad_y(gz, ta, a, b, y):
    """Adjoint of solve_tangent(ta, tb, a, b, y) = a^-1 (tb - ta y) with respect to y."""
    tgm = _tg()
    if _is_zero(ta):
        return _zero_like(y)
    vec = _solve_vec(a, b)
    gb = _solve_t(a, gz, vec)
    out = -_mat_vec(_T(ta), gb, vec)
    return tgm.unbroadcast(out * numpy.ones(numpy.shape(y)), y)


def _norm_kind(x, ord, axis):
    axes, matrix = _norm_setup(x, ord, axis)
    inf = float("inf")
    if ord is None or ord == "fro" or (not matrix and ord == 2):
        return axes, matrix, "l2"
    if not matrix:
        if ord == 1 or ord == inf or ord == -inf or ord == 0:
            return axes, matrix, "flat"
        return axes, matrix, "p"
    if ord == "nuc" or ord == 2 or ord == -2:
        return axes, matrix, "svd"
    return axes, matrix, "flat"


def _norm_svd(x, axes, ord):
    r, c = axes
    m = numpy.moveaxis(x, (r, c), (-2, -1))
    u, s, vh = numpy.linalg.svd(m, full_matrices=False)
    k = None
    if ord != "nuc":
        k = 0 if ord == 2 else s.shape[-1] - 1
    return m, (u, s, vh), k


def norm_grad_tangent_full(tg, tx, ty, g, x, y, ord=None, axis=None, keepdims=False):
    tgm = _tg()
    out = norm_grad(_nz(tg, g), x, y, ord, axis, keepdims)
    if _is_zero(tx) and _is_zero(ty):
        return out
    xa = numpy.asarray(x) * 1.0
    axes, matrix, kind = _norm_kind(xa, ord, axis)
    if kind == "flat":
        return out
    txa = numpy.asarray(_nz(tx, xa)) * 1.0
    yk = tgm.unreduce(y, xa, axes, keepdims)
    tyk = tgm.unreduce(_nz(ty, y), xa, axes, keepdims)
    safe = numpy.where(yk == 0.0, 1.0, yk)
    if kind == "l2":
        dd = txa / safe - xa * tyk / (safe * safe)
    elif kind == "p":
        p = float(ord)
        ax = numpy.abs(xa)
        dd = ((p - 1.0) * ax ** (p - 2.0) * txa / safe ** (p - 1.0)
              - (p - 1.0) * numpy.sign(xa) * ax ** (p - 1.0) * tyk / safe ** p)
    else:
        r, c = axes
        m, usv, k = _norm_svd(xa, axes, ord)
        tm = numpy.moveaxis(txa, (r, c), (-2, -1))
        du, ds, dvh = svd_tangent(tm, usv, m, False, True)
        u, vh = usv[0], usv[2]
        if k is None:
            dm = numpy.matmul(du, vh) + numpy.matmul(u, dvh)
        else:
            dm = (numpy.matmul(du[..., :, k:k + 1], vh[..., k:k + 1, :])
                  + numpy.matmul(u[..., :, k:k + 1], dvh[..., k:k + 1, :]))
        dd = numpy.moveaxis(dm, (-2, -1), (r, c))
    return out + reshape_as(tgm.unreduce(g, xa, axes, keepdims) * dd, x)


def norm_tangent_grad(gz, t, x, y, ord=None, axis=None, keepdims=False, which=0):
    """Adjoint of norm_tangent(t, x, y, ...) = sum(D(x, y) t) with respect to x
    (which=0) or y (which=1)."""
    tgm = _tg()
    xa = numpy.asarray(x) * 1.0
    axes, matrix, kind = _norm_kind(xa, ord, axis)
    if kind == "flat":
        return _zero_like(x) if which == 0 else _zero_like(y)
    G = tgm.unreduce(gz, xa, axes, keepdims) * t
    yk = tgm.unreduce(y, xa, axes, keepdims)
    safe = numpy.where(yk == 0.0, 1.0, yk)

    def reduce(v):
        return _scalar(numpy.sum(v, axis=axes, keepdims=keepdims))
    if kind == "l2":
        if which == 0:
            return reshape_as(G / safe, x)
        return reduce(-G * xa / (safe * safe))
    if kind == "p":
        p = float(ord)
        ax = numpy.abs(xa)
        if which == 0:
            return reshape_as(G * (p - 1.0) * ax ** (p - 2.0) / safe ** (p - 1.0), x)
        return reduce(-(p - 1.0) * G * numpy.sign(xa) * ax ** (p - 1.0) / safe ** p)
    if which == 1:
        return _zero_like(y)
    r, c = axes
    m, usv, k = _norm_svd(xa, axes, ord)
    u, s, vh = usv
    gm = numpy.moveaxis(G, (r, c), (-2, -1))
    if k is None:
        gu = numpy.matmul(gm, _T(vh))
        gvh = numpy.matmul(_T(u), gm)
    else:
        nk = s.shape[-1]
        sel = (numpy.arange(nk) == k) * 1.0
        gu = numpy.matmul(gm, _T(vh)) * sel
        gvh = numpy.matmul(_T(u), gm) * numpy.reshape(sel, (nk, 1))
    ga = svd_grad((gu, numpy.zeros(numpy.shape(s)), gvh), usv, m, False, True)
    return reshape_as(numpy.moveaxis(ga, (-2, -1), (r, c)), x)


def cholesky_grad_tangent_full(tg, ty, g, y, upper=False):
    g = numpy.asarray(g) * 1.0
    tg = _nz(tg, g)
    ty = _nz(ty, y)
    if upper:
        lower, gg, dl, dg = _T(y), _T(g), _T(ty), _T(tg)
    else:
        lower, gg, dl, dg = y, g, ty, tg
    li = numpy.linalg.inv(lower)
    dli = -numpy.matmul(li, numpy.matmul(dl, li))
    p = _phi(numpy.matmul(_T(lower), gg))
    dp = _phi(numpy.matmul(_T(dl), gg) + numpy.matmul(_T(lower), dg))
    ds = (numpy.matmul(_T(dli), numpy.matmul(p, li)) + numpy.matmul(_T(li), numpy.matmul(dp, li))
          + numpy.matmul(_T(li), numpy.matmul(p, dli)))
    return _sym(ds)


def cholesky_tangent_grad_y(gz, t, y, upper=False):
    """Adjoint of cholesky_tangent(t, y, upper) with respect to y."""
    lower = _T(y) if upper else y
    gl = _T(gz) if upper else gz
    s = _sym(t)
    li = numpy.linalg.inv(lower)
    x = numpy.matmul(li, numpy.matmul(s, _T(li)))
    h = _phi(numpy.matmul(_T(lower), gl))
    out = numpy.matmul(gl, _T(_phi(x))) - numpy.matmul(
        _T(li), numpy.matmul(h + _T(h), numpy.matmul(li, numpy.matmul(s, _T(li)))))
    return _T(out) if upper else out


def _pair(p, w, v):
    """(p[0], p[1]) with zero entries as zeros shaped like w and v."""
    if _is_zero(p):
        return _zero_like(w), _zero_like(v)
    return _nz(p[0], w), _nz(p[1], v)


def eigh_grad_tangent_full(tgy, ty, gy, y):
    w, v = y[0], y[1]
    gw, gv = _pair(gy, w, v)
    tgw, tgv = _pair(tgy, w, v)
    dw, dv = _pair(ty, w, v)
    n = numpy.shape(w)[-1]
    eye = numpy.eye(n)
    f = _eig_gaps(w)
    wi = numpy.reshape(dw, numpy.shape(dw) + (1,))
    wj = numpy.reshape(dw, numpy.shape(dw)[:-1] + (1, n))
    df = -f * f * (wj - wi)
    vtgv = numpy.matmul(_T(v), gv)
    inner = numpy.reshape(numpy.asarray(gw) * 1.0, numpy.shape(w) + (1,)) * eye + f * vtgv
    dinner = (numpy.reshape(numpy.asarray(tgw) * 1.0, numpy.shape(w) + (1,)) * eye + df * vtgv
              + f * (numpy.matmul(_T(dv), gv) + numpy.matmul(_T(v), tgv)))
    dout = (numpy.matmul(dv, numpy.matmul(inner, _T(v))) + numpy.matmul(v, numpy.matmul(dinner, _T(v)))
            + numpy.matmul(v, numpy.matmul(inner, _T(dv))))
    return _sym(dout)


def eigh_tangent_grad_y(gz, t, y):
    """Adjoint of eigh_tangent(t, y) = (dw, dv) with respect to y = (w, v): [gw, gv]."""
    w, v = y[0], y[1]
    gdw, gdv = _pair(gz, w, v)
    n = numpy.shape(w)[-1]
    s = _sym(t)
    f = _eig_gaps(w)
    x = numpy.matmul(_T(v), numpy.matmul(s, v))
    k = numpy.reshape(numpy.asarray(gdw) * 1.0, numpy.shape(w) + (1,)) * numpy.eye(n) + f * numpy.matmul(_T(v), gdv)
    gv = numpy.matmul(gdv, _T(f * x)) + numpy.matmul(s, numpy.matmul(v, k + _T(k)))
    nn = numpy.matmul(_T(v), gdv) * x * f * f
    gw = numpy.sum(nn, axis=-1) - numpy.sum(nn, axis=-2)
    return [gw, gv]


def eigvalsh_grad_tangent_full(tg, ta, g, a, uplo="L"):
    w, v = numpy.linalg.eigh(a, uplo)
    ty = 0.0 if _is_zero(ta) else eigh_tangent(ta, (w, v))
    tgy = 0.0 if _is_zero(tg) else (tg, 0.0)
    return eigh_grad_tangent_full(tgy, ty, (g, 0.0), (w, v))


def eigvalsh_tangent_grad_a(gz, t, a, uplo="L"):
    """Adjoint of eigvalsh_tangent(t, a) = diag(v^T sym(t) v) with respect to a."""
    w, v = numpy.linalg.eigh(a, uplo)
    gy = eigh_tangent_grad_y((gz, 0.0), t, (w, v))
    return eigh_grad(gy, (w, v))


def _col(x):
    return numpy.reshape(x, numpy.shape(x) + (1,))


def _triple(p, y):
    if _is_zero(p):
        return tuple(_zero_like(t) for t in y)
    return tuple(_nz(p[i], y[i]) for i in range(3))


def _sinv(srow):
    return 1.0 / numpy.where(srow == 0.0, 1.0, srow) * (srow != 0.0)


def svd_grad_tangent_full(tgy, ty, ta, gy, y, a, full_matrices=True, compute_uv=True):
    if not compute_uv:
        u, s, vt = numpy.linalg.svd(a, full_matrices=False)
        out = numpy.matmul(u * _row(_nz(tgy, gy)), vt)
        if not _is_zero(ta):
            du, ds, dvt = svd_tangent(ta, (u, s, vt), a, False, True)
            out = out + numpy.matmul(du * _row(gy), vt) + numpy.matmul(u * _row(gy), dvt)
        return out
    _check_svd(a, full_matrices)
    u, s, vt = y[0], y[1], y[2]
    gu, gs, gvt = _triple(gy, y)
    tgu, tgs, tgvt = _triple(tgy, y)
    du, ds, dvt = _triple(ty, y)
    m, n = numpy.shape(a)[-2], numpy.shape(a)[-1]
    k = numpy.shape(s)[-1]
    eye = numpy.eye(k)
    srow, dsrow = _row(s), _row(ds)
    f = _svd_gaps(s)
    dw = 2.0 * s * ds
    df = -f * f * (_row(dw) - _col(dw))
    v, gv, dv, tgv = _T(vt), _T(gvt), _T(dvt), _T(tgvt)
    utgu = numpy.matmul(_T(u), gu)
    j = f * utgu
    dj = df * utgu + f * (numpy.matmul(_T(du), gu) + numpy.matmul(_T(u), tgu))
    vtgv = numpy.matmul(vt, gv)
    kk = f * vtgv
    dkk = df * vtgv + f * (numpy.matmul(dvt, gv) + numpy.matmul(vt, tgv))
    dsbar = _col(numpy.asarray(gs) * 1.0) * eye + (j + _T(j)) * srow + _T(srow) * (kk + _T(kk))
    ddsbar = (_col(numpy.asarray(tgs) * 1.0) * eye + (dj + _T(dj)) * srow + (j + _T(j)) * dsrow
              + _T(dsrow) * (kk + _T(kk)) + _T(srow) * (dkk + _T(dkk)))
    out = (numpy.matmul(du, numpy.matmul(dsbar, vt)) + numpy.matmul(u, numpy.matmul(ddsbar, vt))
           + numpy.matmul(u, numpy.matmul(dsbar, dvt)))
    sinv = _sinv(srow)
    dsinv = -dsrow * sinv * sinv
    if m > n:
        p = gu - numpy.matmul(u, utgu)
        dp = (tgu - numpy.matmul(du, utgu) - numpy.matmul(u, numpy.matmul(_T(du), gu))
              - numpy.matmul(u, numpy.matmul(_T(u), tgu)))
        out = out + numpy.matmul(dp * sinv + p * dsinv, vt) + numpy.matmul(p * sinv, dvt)
    if n > m:
        q = gv - numpy.matmul(v, vtgv)
        dq = (tgv - numpy.matmul(dv, vtgv) - numpy.matmul(v, numpy.matmul(dvt, gv))
              - numpy.matmul(v, numpy.matmul(vt, tgv)))
        out = out + numpy.matmul(du * sinv + u * dsinv, _T(q)) + numpy.matmul(u * sinv, _T(dq))
    return out


def svd_tangent_grad(gz, t, y, a, full_matrices=True, compute_uv=True, which=0):
    """Adjoint of svd_tangent(t, y, a, ...) with respect to y (which=0) or a (which=1):
    y = (u, s, vt) when compute_uv (then a enters only through its shape), else a (and
    y = s only through its shape)."""
    if not compute_uv:
        if which == 0:
            return _zero_like(y)
        u, s, vt = numpy.linalg.svd(a, full_matrices=False)
        gu = numpy.matmul(t, _T(vt)) * _row(gz)
        gvt = _col(gz) * numpy.matmul(_T(u), t)
        return svd_grad((gu, numpy.zeros(numpy.shape(s)), gvt), (u, s, vt), a, False, True)
    if which == 1:
        return _zero_like(a)
    _check_svd(a, full_matrices)
    u, s, vt = y[0], y[1], y[2]
    gdu, gds, gdvt = _triple(gz, y)
    v, gdv = _T(vt), _T(gdvt)
    m, n = numpy.shape(a)[-2], numpy.shape(a)[-1]
    k = numpy.shape(s)[-1]
    srow = _row(s)
    mm = numpy.matmul(_T(u), numpy.matmul(t, v))
    f = _svd_gaps(s)
    dss = mm * srow
    sds = _T(srow) * mm
    s1 = dss + _T(dss)
    s2 = sds + _T(sds)
    a1 = f * s1
    b1 = f * s2
    gu = numpy.matmul(gdu, _T(a1))
    gv = numpy.matmul(gdv, _T(b1))
    ga1 = numpy.matmul(_T(u), gdu)
    gb1 = numpy.matmul(_T(v), gdv)
    gf = ga1 * s1 + gb1 * s2
    gs1 = ga1 * f
    gs2 = gb1 * f
    gdss = gs1 + _T(gs1)
    gsds = gs2 + _T(gs2)
    gm = gdss * srow + gsds * _T(srow) + _col(numpy.asarray(gds) * 1.0) * numpy.eye(k)
    gsv = numpy.sum(gdss * mm, axis=-2) + numpy.sum(gsds * mm, axis=-1)
    nn = gf * f * f
    gsv = gsv + 2.0 * s * (numpy.sum(nn, axis=-1) - numpy.sum(nn, axis=-2))
    gu = gu + numpy.matmul(t, numpy.matmul(v, _T(gm)))
    gv = gv + numpy.matmul(_T(t), numpy.matmul(u, gm))
    sinv = _sinv(srow)
    if m > n:
        tv = numpy.matmul(t, v)
        e = tv - numpy.matmul(u, mm)
        ge = gdu * sinv
        gsv = gsv - numpy.sum(gdu * e, axis=-2) * numpy.reshape(sinv * sinv, numpy.shape(s))
        gv = gv + numpy.matmul(_T(t), ge - numpy.matmul(u, numpy.matmul(_T(u), ge)))
        gu = gu - numpy.matmul(ge, _T(mm)) - numpy.matmul(tv, numpy.matmul(_T(ge), u))
    if n > m:
        tu = numpy.matmul(_T(t), u)
        mt = _T(mm)
        e = tu - numpy.matmul(v, mt)
        ge = gdv * sinv
        gsv = gsv - numpy.sum(gdv * e, axis=-2) * numpy.reshape(sinv * sinv, numpy.shape(s))
        gu = gu + numpy.matmul(t, ge - numpy.matmul(v, numpy.matmul(_T(v), ge)))
        gv = gv - numpy.matmul(ge, _T(mt)) - numpy.matmul(tu, numpy.matmul(_T(ge), v))
    return [gu, gsv, _T(gv)]


def _copyltu(m, n):
    return m * _tril(n) + _T(m * _tril(n, -1))


def qr_grad_tangent_full(tgy, ty, gy, y, a, mode="reduced"):
    _check_qr(a, mode)
    q, r = y[0], y[1]
    gq, gr = _pair(gy, q, r)
    tgq, tgr = _pair(tgy, q, r)
    dq, dr = _pair(ty, q, r)
    n = numpy.shape(r)[-1]
    m = numpy.matmul(r, _T(gr)) - numpy.matmul(_T(gq), q)
    dm = (numpy.matmul(dr, _T(gr)) + numpy.matmul(r, _T(tgr)) - numpy.matmul(_T(tgq), q)
          - numpy.matmul(_T(gq), dq))
    c = _copyltu(m, n)
    b = gq + numpy.matmul(q, c)
    db = tgq + numpy.matmul(dq, c) + numpy.matmul(q, _copyltu(dm, n))
    out = _T(numpy.linalg.solve(r, _T(b)))
    return _T(numpy.linalg.solve(r, _T(db - numpy.matmul(out, _T(dr)))))


def qr_tangent_grad(gz, t, y, a, mode="reduced", which=0):
    """Adjoint of qr_tangent(t, y, a) = (dq, dr) with respect to y = (q, r) (which=0);
    a enters only through its shape (which=1)."""
    if which == 1:
        return _zero_like(a)
    _check_qr(a, mode)
    q, r = y[0], y[1]
    gdq, gdr = _pair(gz, q, r)
    n = numpy.shape(r)[-1]
    low = _tril(n, -1)
    ri = numpy.linalg.inv(r)
    x = numpy.matmul(_T(q), numpy.matmul(t, ri))
    xl = x * low
    x2 = x - (xl - _T(xl))
    dr = numpy.matmul(x2, r)
    p = t - numpy.matmul(q, dr)
    gp = numpy.matmul(gdq, _T(ri))
    gri = numpy.matmul(_T(p), gdq)
    gq = -numpy.matmul(gp, _T(dr))
    gdr = gdr - numpy.matmul(_T(q), gp)
    gx2 = numpy.matmul(gdr, _T(r))
    gr = numpy.matmul(_T(x2), gdr)
    gx = gx2 - gx2 * low + _T(gx2) * low
    gq = gq + numpy.matmul(t, numpy.matmul(ri, _T(gx)))
    gri = gri + numpy.matmul(_T(t), numpy.matmul(q, gx))
    gr = gr - numpy.matmul(_T(ri), numpy.matmul(gri, _T(ri)))
    return [gq, gr]


# ------------------------------------------------------------------ scipy.special

def xlogy_dy(x, y):
    """d xlogy(x, y) / dy = x / y, and 0 where x == 0 (as xlogy itself is 0 there)."""
    zero = numpy.equal(x, 0)
    r = numpy.where(zero, 0.0, numpy.divide(x, numpy.where(zero, 1.0, y)))
    return r if _is_array(x) or _is_array(y) else float(r)
