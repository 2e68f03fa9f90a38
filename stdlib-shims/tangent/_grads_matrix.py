"""Matrix functions, creation and contractions: diagonal, trace, linspace, arange, diag, inner, tensordot, einsum, outer, sort; kron, cross, convolve, correlate; polyval, polyder.

Conventions in tangent._grads_common. trace, einsum and outer (numpy and jax.numpy share
them) compute in their arguments' array namespace; the others are NumPy's."""
from tangent._grads_common import (  # noqa: F401
    _dtype, _is_zero, _like_dtype, _reshape_like, _tg, _to_python_scalar, _xp, numpy)
from tangent._grads_shape import _numpy_reshape_as

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
    return _like_dtype(numpy.moveaxis(full, (-2, -1), (axis1, axis2)), x)


def trace_grad(g, x, offset=0, axis1=0, axis2=1):
    """`g` (shaped like the trace: x's shape without axis1 and axis2) times the
    `offset` diagonal's indicator along axis1 and axis2."""
    xp = _xp(g, x)
    shape = tuple(xp.shape(x))
    nd = len(shape)
    a1, a2 = axis1 % nd, axis2 % nd
    n, m = shape[a1], shape[a2]
    eye = xp.eye(n, m, k=offset, dtype=_dtype(xp, x))
    eshape = [1] * nd
    eshape[a1] = n
    eshape[a2] = m
    gshape = [1 if a in (a1, a2) else shape[a] for a in range(nd)]
    # A float64 g (a NumPy float64 scalar seed) would make a float32 x's gradient float64.
    return _like_dtype(xp.reshape(xp.asarray(g), tuple(gshape)) * xp.reshape(eye, tuple(eshape)), x)


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
    return _to_python_scalar(xp, v)


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
    return _like_dtype(_diag_embed(g, shape[0], shape[1], k), v)


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
        return _like_dtype(numpy.transpose(raw, tuple(cur.index(i) for i in range(na))) if na > 1 else raw, a)
    raw = _tdot(a, g, free_a, list(range(nfa)))
    cur = [bb[aa.index(i)] for i in sorted(aa)] + free_b
    return _like_dtype(numpy.transpose(raw, tuple(cur.index(j) for j in range(nb))) if nb > 1 else raw, b)


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
    xp = _xp(g, operands)
    return einsum_grad_in(xp, _reshape_like(xp), g, subscripts, operands, i)


def einsum_tangent(subscripts, operands, *tangents):
    return einsum_tangent_in(_xp(operands, *tangents), subscripts, operands, *tangents)


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
        grad = grad * xp.ones(tuple(size[c] for c in order), dtype=_dtype(xp, op))
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
                grad = grad * xp.reshape(xp.eye(size[c], dtype=_dtype(xp, op)), tuple(mshape))
    # operand axes of size 1 broadcast against the others
    for ax, n in enumerate(shape):
        if n == 1 and grad.shape[ax] != 1:
            grad = xp.sum(grad, axis=ax, keepdims=True)
    return reshape_like(_like_dtype(grad, op), op)


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
    xp = _xp(g, a, b)
    if which == 0:
        return _reshape_like(xp)(xp.dot(g, xp.ravel(b)), a)
    return _reshape_like(xp)(xp.dot(xp.transpose(g), xp.ravel(a)), b)


def sort_grad(g, x, axis=-1):
    xa = numpy.asarray(x) * 1.0
    if axis is None:
        flat = numpy.zeros(xa.size)
        flat[numpy.argsort(numpy.ravel(xa))] = numpy.ravel(g)
        return _numpy_reshape_as(flat, x)
    xm = numpy.moveaxis(xa, axis, -1)
    gm = numpy.moveaxis(g, axis, -1)
    index = _lane_sort_index(xm)
    flat = numpy.zeros(xm.size)
    flat[index] = numpy.ravel(gm)
    return _numpy_reshape_as(numpy.moveaxis(numpy.reshape(flat, xm.shape), -1, axis), x)


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




# --------------------------------------------- more products: kron, cross, convolve
# Bilinear: each gradient is linear in g and in the other operand (their tangents:
# tangent.bilinear_tangent; their second order: _grads_second_order).

def kron_grad(g, a, b, which):
    """kron's output interleaves the axes of a and b (a's shape times b's, the shorter
    padded with ones in front): g reshaped so, contracted with the other operand."""
    aa, ba = numpy.asarray(a) * 1.0, numpy.asarray(b) * 1.0
    nd = max(aa.ndim, ba.ndim)
    sa = (1,) * (nd - aa.ndim) + tuple(aa.shape)
    sb = (1,) * (nd - ba.ndim) + tuple(ba.shape)
    inter = []
    for p, q in zip(sa, sb):
        inter.extend([p, q])
    gi = numpy.reshape(numpy.asarray(g) * 1.0, tuple(inter))
    if which == 0:
        r = numpy.tensordot(gi, numpy.reshape(ba, sb), (list(range(1, 2 * nd, 2)), list(range(nd))))
        return _numpy_reshape_as(r, a)
    r = numpy.tensordot(gi, numpy.reshape(aa, sa), (list(range(0, 2 * nd, 2)), list(range(nd))))
    return _numpy_reshape_as(r, b)


def _as_3_vectors(v, axis):
    """Vectors along `axis` moved last and padded to 3 components (NumPy's cross takes 2-
    and 3-vectors; a 2-vector's third component is 0), and their length."""
    vm = numpy.moveaxis(numpy.asarray(v) * 1.0, axis, -1)
    n = vm.shape[-1]
    if n == 2:
        vm = numpy.concatenate([vm, numpy.zeros(vm.shape[:-1] + (1,))], -1)
    return vm, n


def cross_grad(g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None, which=0):
    """<g, a x b> = <a, b x g> = <b, g x a>, over 3-vectors (2-vectors padded with 0; for
    two 2-vectors the output is the third component alone)."""
    if axis is not None:
        axisa = axisb = axisc = axis
    am, na = _as_3_vectors(a, axisa)
    bm, nb = _as_3_vectors(b, axisb)
    g = numpy.asarray(g) * 1.0
    if na == 2 and nb == 2:
        gm = numpy.stack([numpy.zeros(g.shape), numpy.zeros(g.shape), g], -1)
    else:
        gm = numpy.moveaxis(g, axisc, -1)
    tg = _tg()
    if which == 0:
        r = numpy.cross(bm, gm)[..., :na]
        target = numpy.moveaxis(numpy.asarray(a) * 1.0, axisa, -1)
        return _numpy_reshape_as(numpy.moveaxis(tg.unbroadcast(r, target), -1, axisa), a)
    r = numpy.cross(gm, am)[..., :nb]
    target = numpy.moveaxis(numpy.asarray(b) * 1.0, axisb, -1)
    return _numpy_reshape_as(numpy.moveaxis(tg.unbroadcast(r, target), -1, axisb), b)


def _full_cotangent(g, n, m, mode):
    """The cotangent of convolve's full output (length n + m - 1) from that of the
    `mode` output, a slice of it: 'same' starts at (min - 1) // 2, 'valid' at min - 1."""
    g = numpy.ravel(numpy.asarray(g) * 1.0)
    if mode == "full":
        return g
    start = (min(n, m) - 1) // 2 if mode == "same" else min(n, m) - 1
    return numpy.concatenate([numpy.zeros(start), g, numpy.zeros(n + m - 1 - start - g.shape[0])])


def convolve_grad(g, a, v, mode="full", which=0):
    """z_k = sum_i a_i v_(k-i): the gradient of each operand is the full cotangent
    correlated with the other ('valid': the operand's length)."""
    n, m = int(numpy.size(a)), int(numpy.size(v))
    gf = _full_cotangent(g, n, m, mode)
    if which == 0:
        return _numpy_reshape_as(numpy.correlate(gf, numpy.ravel(v) * 1.0, "valid"), a)
    return _numpy_reshape_as(numpy.correlate(gf, numpy.ravel(a) * 1.0, "valid"), v)


def correlate_grad(g, a, v, mode="valid", which=0):
    """correlate(a, v) is convolve(a, v[::-1]) (real numbers)."""
    vr = numpy.flip(numpy.ravel(v) * 1.0)
    if which == 0:
        return convolve_grad(g, a, vr, mode, 0)
    return _numpy_reshape_as(numpy.flip(convolve_grad(g, a, vr, mode, 1)), v)


# ------------------------------------------------------------------ polynomials

def _poly_exponents(p):
    n = int(numpy.size(p))
    return numpy.arange(n - 1, -1, -1) * 1.0


def polyval_grad(g, p, x, which):
    """y = sum_k p_k x^(n-1-k): with respect to p (which=0), sum g x^(n-1-k); with
    respect to x (1), g times the derivative polynomial at x."""
    tg = _tg()
    xa = numpy.asarray(x) * 1.0
    g = numpy.asarray(g) * 1.0
    if which == 0:
        return poly_contract(g, p, xa, 0)
    return tg.unbroadcast(g * polyval_slope(p, xa), x)


def poly_contract(g, p, x, order):
    """sum over x's elements of g x^e (order 0) or g e x^(e-1) (order 1, the term of
    exponent 0 is 0), for each exponent e of p's coefficients: a gradient like p's."""
    xa = numpy.asarray(x) * 1.0
    g = numpy.asarray(g) * 1.0
    e = _poly_exponents(p)
    xe = numpy.expand_dims(xa, -1)
    if order == 0:
        powers = xe ** e  # 0 ** 0 is 1
    else:
        powers = e * xe ** numpy.maximum(e - 1.0, 0.0)
    gb = numpy.broadcast_to(g, numpy.broadcast_shapes(g.shape, xa.shape))
    r = numpy.tensordot(gb, numpy.broadcast_to(powers, gb.shape + powers.shape[-1:]), gb.ndim)
    return _numpy_reshape_as(r, p)


def polyval_slope(p, x):
    """The derivative of the polynomial p at x (0 for a constant)."""
    pa = numpy.ravel(numpy.asarray(p) * 1.0)
    if pa.shape[0] < 2:
        return numpy.zeros(numpy.shape(x)) if numpy.ndim(x) else 0.0
    return numpy.polyval(pa[:-1] * _poly_exponents(pa)[:-1], x)


def polyval_curvature(p, x):
    """The second derivative of the polynomial p at x."""
    pa = numpy.ravel(numpy.asarray(p) * 1.0)
    if pa.shape[0] < 3:
        return numpy.zeros(numpy.shape(x)) if numpy.ndim(x) else 0.0
    return polyval_slope(pa[:-1] * _poly_exponents(pa)[:-1], x)


def polyval_tangent(tp, tx, p, x):
    """The tangent of polyval: the polynomial tp at x plus tx times p's slope."""
    out = 0.0
    if not _is_zero(tp):
        out = out + numpy.polyval(tp, x)
    if not _is_zero(tx):
        out = out + tx * polyval_slope(p, x)
    if _is_zero(tp) and _is_zero(tx):
        out = numpy.zeros(numpy.shape(x)) if numpy.ndim(x) else 0.0
    return out


def polyder_grad(g, p, m=1):
    """polyder multiplies p_k by its exponent and drops the last m coefficients, m
    times: the adjoint scales back and pads with zeros."""
    out = numpy.ravel(numpy.asarray(g) * 1.0)
    n = int(numpy.size(p))
    for step in range(m, 0, -1):
        length = n - step + 1  # the coefficients before this differentiation
        scale = numpy.arange(length - 1, 0, -1) * 1.0
        out = numpy.concatenate([out * scale, numpy.zeros(1)]) if length > 1 else numpy.zeros(1)
    return _numpy_reshape_as(out, p)


# ------------------------------------------- vector products: vdot, matvec, vecmat

def vdot_grad(g, a, b, which):
    """vdot(a, b) = sum(ravel(a) * ravel(b)) (real numbers)."""
    other = b if which == 0 else a
    target = a if which == 0 else b
    return _numpy_reshape_as(numpy.asarray(g) * numpy.ravel(numpy.asarray(other) * 1.0), target)


def matvec_grad(g, a, v, which):
    """matvec(a, v)[..., i] = sum_j a[..., i, j] v[..., j], broadcast over the rest."""
    ge = numpy.expand_dims(numpy.asarray(g) * 1.0, -1)
    if which == 0:
        return _tg().unbroadcast(ge * numpy.expand_dims(numpy.asarray(v) * 1.0, -2), a)
    return _tg().unbroadcast(numpy.sum(ge * numpy.asarray(a), axis=-2), v)


def vecmat_grad(g, v, a, which):
    """vecmat(v, a)[..., j] = sum_i v[..., i] a[..., i, j], broadcast over the rest."""
    ge = numpy.expand_dims(numpy.asarray(g) * 1.0, -2)
    if which == 0:
        return _tg().unbroadcast(numpy.sum(ge * numpy.asarray(a), axis=-1), v)
    return _tg().unbroadcast(numpy.expand_dims(numpy.asarray(v) * 1.0, -1) * ge, a)


def vecdot_positional(a, b, axis=-1):
    """numpy.vecdot with its keyword-only axis passed by position (for bilinear_tangent)."""
    return numpy.vecdot(a, b, axis=axis)


def vecdot_grad(g, a, b, axis=-1, which=0):
    """vecdot sums a * b over each operand's own `axis` (moved last; the other axes
    broadcast): the gradient of one operand is g times the other, moved back."""
    target = a if which == 0 else b
    am = numpy.moveaxis(numpy.asarray(a) * 1.0, axis, -1)
    bm = numpy.moveaxis(numpy.asarray(b) * 1.0, axis, -1)
    r = numpy.expand_dims(numpy.asarray(g) * 1.0, -1) * (bm if which == 0 else am)
    mine = am if which == 0 else bm
    r = _tg().unbroadcast(numpy.broadcast_to(r, numpy.broadcast_shapes(r.shape, mine.shape)), mine)
    return _numpy_reshape_as(numpy.moveaxis(r, -1, axis), target)


def _poly_tail(g, p):
    """The last len(p) coefficients of g: where p's sit in a sum of polynomials (the
    shorter is padded with leading zeros)."""
    g = numpy.ravel(numpy.asarray(g) * 1.0)
    n = int(numpy.size(p))
    return _numpy_reshape_as(numpy.reshape(g[g.shape[0] - n:], numpy.shape(p)), p)


def polyadd_grad(g, a1, a2, which=0, sign=1.0):
    """polyadd (sign 1) and polysub (sign -1 for the second)."""
    if which == 0:
        return _poly_tail(g, a1)
    return _poly_tail(numpy.asarray(g) * sign, a2)


def poly_pair_tangent(t1, t2, a1, a2, sign=1.0):
    t1 = numpy.zeros(numpy.shape(numpy.atleast_1d(a1))) if _is_zero(t1) else t1
    t2 = numpy.zeros(numpy.shape(numpy.atleast_1d(a2))) if _is_zero(t2) else t2
    return numpy.polyadd(t1, numpy.asarray(t2) * sign)


def polymul_grad(g, a1, a2, which=0):
    """polymul is the full convolution of the coefficients."""
    r = convolve_grad(g, numpy.atleast_1d(a1) * 1.0, numpy.atleast_1d(a2) * 1.0, "full", which)
    return _numpy_reshape_as(r, a1 if which == 0 else a2)


def polyint_grad(g, p, m=1):
    """polyint divides p_i by its new exponent and appends a constant, m times: the
    adjoint drops the constants' entries and divides back (NumPy's k's are constants)."""
    out = numpy.ravel(numpy.asarray(g) * 1.0)
    n = int(numpy.size(p))
    for step in range(m, 0, -1):
        length = n + step - 1  # the coefficients integrated at this step
        out = out[:length] / numpy.arange(length, 0, -1)
    return _numpy_reshape_as(numpy.reshape(out, numpy.shape(p)), p)


def _vander_exponents(n, increasing):
    e = numpy.arange(n) * 1.0
    return e if increasing else e[::-1]


def falling_power(x, e, k):
    """e (e - 1) ... (e - k + 1) x^(e - k), the k-th derivative of x^e (0 where e < k)."""
    coef = numpy.ones(numpy.shape(e))
    for j in range(k):
        coef = coef * (e - j)
    return coef * x ** numpy.maximum(e - k, 0.0)


def vander_grad(g, x, N=None, increasing=False, order=1):
    """sum_j g_ij d^order/dx^order x_i^(e_j): the gradient of vander (order 1), and the
    higher ones its own derivatives need."""
    xa = numpy.asarray(x) * 1.0
    n = xa.shape[0] if N is None else int(N)
    e = _vander_exponents(n, increasing)
    powers = falling_power(numpy.expand_dims(xa, -1), e, order)
    return _numpy_reshape_as(numpy.sum(numpy.asarray(g) * powers, axis=-1), x)


def vander_tangent(t, x, N=None, increasing=False):
    xa = numpy.asarray(x) * 1.0
    n = xa.shape[0] if N is None else int(N)
    if _is_zero(t):
        return numpy.zeros((xa.shape[0], n))
    return numpy.expand_dims(t, -1) * falling_power(
        numpy.expand_dims(xa, -1), _vander_exponents(n, increasing), 1)
