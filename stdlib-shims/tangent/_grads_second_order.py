"""Second order: rules of the helpers of the other tangent._grads_* modules, for
differentiating generated derivatives again (backends/tangent_numpy.py).

Conventions in tangent._grads_common."""
from tangent import _registry
from tangent._grads_common import (  # noqa: F401
    _T, _axes, _is_array, _is_zero, _tg, _tril, _xp, numpy)
from tangent._grads_linalg import (  # noqa: F401
    tensor_matrix, tensor_square, tensor_unmatrix, tensorinv_grad, tensorsolve_grad,
    _check_qr, _check_svd, _eig_gaps, _expand2, _norm_setup, _phi, _row,
    _scalar, _solve_vec, _svd_gaps, _sym, eigh_grad, eigh_tangent, inv_grad,
    norm_grad, svd_grad, svd_tangent)
from tangent._grads_reductions import (  # noqa: F401
    _scan_lanes, _split_cotangent, _weights_tangent, average_grad, average_parts, cov_grad,
    cumprod_grad, histogram_density_second_order, histogram_grad, histogram_tangent,
    prod_grad, spread, var_grad, weights_like)
from tangent._grads_matrix import (  # noqa: F401
    convolve_grad, correlate_grad, cross_grad, einsum_grad, inner_grad, kron_grad,
    matvec_grad, outer_grad, poly_contract, polyval_curvature, polyval_grad, polyval_slope,
    polymul_grad, tensordot_grad, vander_grad, vdot_grad, vecdot_grad, vecdot_positional,
    vecmat_grad)
from tangent._grads_shape import _numpy_reshape_as  # noqa: F401
from tangent._grads_select import trapezoid_grad
from tangent._errors import NotDifferentiated

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
        return _numpy_reshape_as(var_grad_tangent_full(tg, tx, g, xa, axis, ddof, keepdims), x)
    out = var_grad(_nz(tg, g), x, axis, ddof, keepdims)
    if not _is_zero(tx) and _is_array(x):
        out = out + var_grad(g, numpy.asarray(tx) * 1.0, axis, ddof, keepdims)
    elif not _is_zero(tx) and _registry.is_array(x):
        # another library's array (torch, jax): var_grad computes in its namespace
        out = out + var_grad(g, _registry.namespace_of(x).broadcast_to(tx, x.shape) * 1.0,
                             axis, ddof, keepdims)
    return out


def var_grad_grad_x(dz, g, x, axis=None, ddof=0, keepdims=False):
    """The adjoint with respect to x of z = var_grad(g, x) = unreduce(g) * 2 (x - mean x)
    / (n - ddof): with w = dz * unreduce(g), 2 (w - mean w) / (n - ddof)."""
    if isinstance(x, (list, tuple)):
        xa = numpy.asarray(x) * 1.0
        dza = numpy.asarray(dz) * 1.0
        return _numpy_reshape_as(var_grad_grad_x(dza, g, xa, axis, ddof, keepdims), x)
    if not _registry.is_array(x):
        return 0.0 * dz  # var of one number is the constant 0
    tg = _tg()
    w = dz * tg.unreduce(g, x, axis, keepdims)
    n = tg.reduced_count(x, axis)
    return 2.0 * (w - _xp(x).mean(w, axis=axis, keepdims=True)) / (n - (ddof or 0))


def _lanes(x, axis):
    """x with the reduced axes flattened to the front: (m, undo), m of shape (n, rest),
    in x's own library (NumPy's for lists)."""
    xp = _registry.namespace_of(x) if _registry.is_array(x) else numpy
    x = x * 1.0 if _registry.is_array(x) else numpy.asarray(x) * 1.0
    axes = _axes(axis, x.ndim)
    rest = [i for i in range(x.ndim) if i not in axes]
    perm = list(axes) + rest
    xt = xp.transpose(x, tuple(perm))
    n = 1
    for a in axes:
        n *= x.shape[a]
    rest_shape = tuple(xt.shape[len(axes):])
    m = xp.reshape(xt, (n,) + rest_shape)
    inv = _tg().inverse_permutation(perm)

    def undo(r):
        return xp.transpose(xp.reshape(r, xt.shape), inv)
    return m, undo


def _prod_rows(m, skip):
    """Product of the rows of m (first axis) not in `skip` (ones shaped like a row, in
    m's library, dtype and device)."""
    out = m[0] * 0.0 + 1.0
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
        acc = m[0] * 0.0
        for j in range(n):
            if j != i:
                acc = acc + w[j] * _prod_rows(m, (i, j))
        rows.append(acc)
    return _registry.namespace_of(m).stack(rows)


def prod_grad_tangent_full(tg, tx, g, x, axis=None, keepdims=False):
    tgm = _tg()
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            xa = numpy.asarray(x) * 1.0
            tx = 0.0 if _is_zero(tx) else numpy.asarray(tx) * 1.0
            return _numpy_reshape_as(prod_grad_tangent_full(tg, tx, g, xa, axis, keepdims), x)
        if not _registry.is_array(x):  # a number: prod(x) is x
            return _nz(tg, g)
    out = prod_grad(_nz(tg, g), x, axis, keepdims)
    if _is_zero(tx):
        return out
    m, undo = _lanes(x, axis)
    tm, _ = _lanes(tx + x * 0.0, axis)  # the tangent broadcast to x's shape
    dothers = undo(_weighted_pair_products(m, tm)) if m.shape[0] else x * 0.0
    return out + tgm.unreduce(g, x, axis, keepdims) * dothers


def prod_tangent_grad_x(gz, t, x, axis=None, keepdims=False):
    """Adjoint of prod_tangent(t, x) = sum(t * others(x)) with respect to x."""
    tgm = _tg()
    if not _is_array(x):
        if isinstance(x, (list, tuple)):
            return _numpy_reshape_as(prod_tangent_grad_x(gz, numpy.asarray(t) * 1.0,
                                                  numpy.asarray(x) * 1.0, axis, keepdims), x)
        if not _registry.is_array(x):  # a number: prod(x) is x
            return 0.0 * gz
    G = tgm.unreduce(gz, x, axis, keepdims) * t
    m, undo = _lanes(x, axis)
    gm, _ = _lanes(G, axis)
    return undo(_weighted_pair_products(m, gm)) if m.shape[0] else x * 0.0


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
    return out + _numpy_reshape_as(extra, x)


def cumprod_tangent_grad_x(gz, t, x, axis=None):
    """Adjoint of cumprod_tangent(t, x) with respect to x."""
    m, shape, ax = _scan_lanes(x, axis)
    gm = numpy.moveaxis(numpy.reshape(gz, shape), ax, 0)
    tm = numpy.moveaxis(numpy.reshape(numpy.asarray(t) * 1.0, shape), ax, 0)
    n = m.shape[0]
    if not n:
        return _numpy_reshape_as(numpy.zeros(shape), x)
    rows = []
    for l in range(n):
        acc = numpy.zeros(m.shape[1:])
        for i in range(l, n):
            for k in range(i + 1):
                if k != l:
                    acc = acc + gm[i] * tm[k] * _seg_prod(m, i, (k, l))
        rows.append(acc)
    return _numpy_reshape_as(numpy.reshape(numpy.moveaxis(numpy.stack(rows), 0, ax), shape), x)


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


def kron_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(kron_grad, tg, ta, tb, g, a, b, which, ())


def cross_grad_tangent_full(tg, ta, tb, g, a, b, axisa, axisb, axisc, axis, which):
    return _bilinear_grad_full(cross_grad, tg, ta, tb, g, a, b, which,
                               (axisa, axisb, axisc, axis))


def convolve_grad_tangent_full(tg, ta, tb, g, a, b, mode, which):
    return _bilinear_grad_full(convolve_grad, tg, ta, tb, g, a, b, which, (mode,))


def correlate_grad_tangent_full(tg, ta, tb, g, a, b, mode, which):
    return _bilinear_grad_full(correlate_grad, tg, ta, tb, g, a, b, which, (mode,))


def vdot_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(vdot_grad, tg, ta, tb, g, a, b, which, ())


def vecdot_grad_tangent_full(tg, ta, tb, g, a, b, axis, which):
    return _bilinear_grad_full(vecdot_grad, tg, ta, tb, g, a, b, which, (axis,))


def matvec_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(matvec_grad, tg, ta, tb, g, a, b, which, ())


def vecmat_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(vecmat_grad, tg, ta, tb, g, a, b, which, ())


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


def _bilinear_grads():
    """The gradient helper of each bilinear function `bilinear_tangent` is used with,
    called as helper(gz, a, b, *args, which)."""
    return ((numpy.inner, inner_grad), (numpy.outer, outer_grad),
            (numpy.linalg.outer, outer_grad), (numpy.tensordot, tensordot_grad),
            (numpy.kron, kron_grad), (numpy.cross, cross_grad),
            (numpy.convolve, convolve_grad), (numpy.correlate, correlate_grad),
            (numpy.vdot, vdot_grad), (numpy.matvec, matvec_grad), (numpy.vecmat, vecmat_grad),
            (vecdot_positional, vecdot_grad), (numpy.polymul, polymul_grad))


def _bilinear_adjoint(f, gz, a, b, which, args):
    """Gradient of <gz, f(a, b, *args)> with respect to a (which=0) or b (which=1)."""
    if f is numpy.tensordot and not args:
        args = (2,)
    for fn, helper in _bilinear_grads():
        if f is fn:
            return helper(gz, a, b, *(tuple(args) + (which,)))
    raise NotDifferentiated("tangent: no reverse-mode derivative of bilinear_tangent "
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
    # In a's namespace (JAX, torch, TensorFlow arrays stay theirs).
    xp = _xp(g, y, a)
    ai = xp.linalg.inv(a)
    coef = 0.0
    if not _is_zero(tg):
        coef = coef + tg * y
    if not _is_zero(ty):
        coef = coef + g * ty
    out = _expand2(coef * xp.ones_like(xp.asarray(y) * 1.0), xp) * _T(ai)
    if not _is_zero(ta):
        out = out - _expand2(g * y, xp) * _T(xp.matmul(ai, xp.matmul(ta, ai)))
    return out


def det_tangent_grad(gz, t, y, a, which):
    """Adjoint of det_tangent(t, y, a) = y tr(a^-1 t) with respect to y (which=1) or a
    (which=2)."""
    xp = _xp(gz, t, y, a)
    ai = xp.linalg.inv(a)
    if which == 1:
        return _scalar(gz * xp.sum(_T(ai) * t, axis=(-2, -1)), xp)
    return -_expand2(gz * y, xp) * _T(xp.matmul(ai, xp.matmul(t, ai)))


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


def _norm_kind(x, ord, axis, vector=False):
    axes, matrix = _norm_setup(x, ord, axis, vector)
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


def norm_grad_tangent_full(tg, tx, ty, g, x, y, ord=None, axis=None, keepdims=False,
                           vector=False):
    tgm = _tg()
    out = norm_grad(_nz(tg, g), x, y, ord, axis, keepdims, vector)
    if _is_zero(tx) and _is_zero(ty):
        return out
    xa = numpy.asarray(x) * 1.0
    axes, matrix, kind = _norm_kind(xa, ord, axis, vector)
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
    return out + _numpy_reshape_as(tgm.unreduce(g, xa, axes, keepdims) * dd, x)


def norm_tangent_grad(gz, t, x, y, ord=None, axis=None, keepdims=False, which=0,
                      vector=False):
    """Adjoint of norm_tangent(t, x, y, ...) = sum(D(x, y) t) with respect to x
    (which=0) or y (which=1)."""
    tgm = _tg()
    xa = numpy.asarray(x) * 1.0
    axes, matrix, kind = _norm_kind(xa, ord, axis, vector)
    if kind == "flat":
        return _zero_like(x) if which == 0 else _zero_like(y)
    G = tgm.unreduce(gz, xa, axes, keepdims) * t
    yk = tgm.unreduce(y, xa, axes, keepdims)
    safe = numpy.where(yk == 0.0, 1.0, yk)

    def reduce(v):
        return _scalar(numpy.sum(v, axis=axes, keepdims=keepdims))
    if kind == "l2":
        if which == 0:
            return _numpy_reshape_as(G / safe, x)
        return reduce(-G * xa / (safe * safe))
    if kind == "p":
        p = float(ord)
        ax = numpy.abs(xa)
        if which == 0:
            return _numpy_reshape_as(G * (p - 1.0) * ax ** (p - 2.0) / safe ** (p - 1.0), x)
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
    return _numpy_reshape_as(numpy.moveaxis(ga, (-2, -1), (r, c)), x)


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




# gathers and stencils (tangent._grads_select)

def trapezoid_grad_tangent_full(tg, ty, tx, tdx, g, y, x=None, dx=1.0, axis=-1, which=0):
    """Tangent of trapezoid_grad: linear in g and in the operand `which` does not read
    (y for which=1 and 2; x's differences or dx for which=0)."""
    out = trapezoid_grad(_nz(tg, g), y, x, dx, axis, which)
    if which == 0:
        if x is not None and not _is_zero(tx):
            out = out + trapezoid_grad(g, y, tx, dx, axis, 0)
        if x is None and not _is_zero(tdx):
            out = out + trapezoid_grad(g, y, None, tdx, axis, 0)
    elif not _is_zero(ty):
        out = out + trapezoid_grad(g, ty, x, dx, axis, which)
    return out


def trapezoid_tangent_grad(gz, ty, tx, tdx, y, x=None, dx=1.0, axis=-1, which=0):
    """Adjoint of trapezoid_tangent(ty, tx, tdx, y, x, dx, axis) = trapezoid(ty, x, dx)
    + trapezoid(y, tx) (or trapezoid(y, dx=tdx)) with respect to y (which=0), x (1) or
    dx (2)."""
    if which == 0:
        if x is not None:
            return _zero_like(y) if _is_zero(tx) else trapezoid_grad(gz, y, tx, 1.0, axis, 0)
        return _zero_like(y) if _is_zero(tdx) else trapezoid_grad(gz, y, None, tdx, axis, 0)
    if _is_zero(ty):
        return _zero_like(x if which == 1 else dx)
    return trapezoid_grad(gz, ty, x, dx, axis, which)


# polynomials

def polyval_grad_tangent_full(tg, tp, tx, g, p, x, which):
    """Tangent of polyval_grad: linear in g; with respect to p (which=0) it reads x's
    powers, with respect to x (1) p's slope at x."""
    out = polyval_grad(_nz(tg, g), p, x, which)
    if which == 0:
        if not _is_zero(tx):
            out = out + poly_contract(numpy.asarray(g) * tx, p, x, 1)
        return out
    tgm = _tg()
    if not _is_zero(tp):
        out = out + tgm.unbroadcast(g * polyval_slope(tp, x), x)
    if not _is_zero(tx):
        out = out + tgm.unbroadcast(g * tx * polyval_curvature(p, x), x)
    return out


def polyval_tangent_grad(gz, tp, tx, p, x, which):
    """Adjoint of polyval_tangent(tp, tx, p, x) = polyval(tp, x) + tx slope(p, x) with
    respect to p (which=0) or x (1)."""
    if which == 0:
        if _is_zero(tx):
            return _zero_like(p)
        return poly_contract(numpy.asarray(gz) * tx, p, x, 1)
    tgm = _tg()
    out = _zero_like(x)
    if not _is_zero(tp):
        out = out + tgm.unbroadcast(gz * polyval_slope(tp, x), x)
    if not _is_zero(tx):
        out = out + tgm.unbroadcast(gz * tx * polyval_curvature(p, x), x)
    return out


# tensorinv and tensorsolve: inv's and solve's rules through the reshapes

def _sq(v, sq):
    return 0.0 if _is_zero(v) else numpy.reshape(v, sq)


def tensorinv_grad_tangent_full(tg, ty, g, a, y, ind=2):
    sq = tensor_square(a, ind)
    return numpy.reshape(inv_grad_tangent_full(_sq(tg, sq), _sq(ty, sq), numpy.reshape(g, sq),
                                               numpy.reshape(y, sq)), numpy.shape(a))


def tensorinv_tangent_grad_y(gz, t, a, y, ind=2):
    if _is_zero(t):
        return _zero_like(y)
    sq = tensor_square(a, ind)
    return numpy.reshape(inv_tangent_grad_y(numpy.reshape(gz, sq), _sq(t, sq),
                                            numpy.reshape(y, sq)), numpy.shape(y))


def _flat(v):
    return 0.0 if _is_zero(v) else numpy.ravel(v)


def tensorsolve_grad_tangent_full(tg, ta, tx, g, a, b, x, axes=None, which=0):
    tm = 0.0 if _is_zero(ta) else tensor_matrix(ta, a, b, axes)
    r = solve_grad_tangent_full(_flat(tg), tm, _flat(tx), numpy.ravel(g),
                                tensor_matrix(a, a, b, axes), numpy.ravel(b) * 1.0,
                                numpy.ravel(x), which)
    if which == 1:
        return numpy.reshape(r, numpy.shape(b))
    return tensor_unmatrix(r, a, b, axes)


def tensorsolve_tangent_grad_x(gz, ta, a, b, x, axes=None):
    tm = 0.0 if _is_zero(ta) else tensor_matrix(ta, a, b, axes)
    r = solve_tangent_grad_y(numpy.ravel(gz), tm, tensor_matrix(a, a, b, axes),
                             numpy.ravel(b) * 1.0, numpy.ravel(x))
    return numpy.reshape(r, numpy.shape(x))


# average and cov

def _average_tangent_parts(ta, tw, a, axis, weights):
    """a's and the weights' tangents broadcast like a, and sum(tw), d(mean) kept."""
    x, w, s, y = average_parts(a, axis, weights)
    t_a = numpy.asarray(ta) * 1.0 if not _is_zero(ta) else numpy.zeros(x.shape)
    t_w = _weights_tangent(tw, x, axis, weights)
    t_s = numpy.sum(t_w, axis=axis, keepdims=True)
    t_y = numpy.sum(t_a * w + (x - y) * t_w, axis=axis, keepdims=True) / s
    return x, w, s, y, t_a, t_w, t_s, t_y


def average_grad_tangent_full(tg, ta, tw, g, a, axis=None, weights=None, returned=False,
                              keepdims=False, which=0):
    """Tangent of average_grad: of g w / s (which=0), of g (a - y) / s + g_sum (1)."""
    x, w, s, y, t_a, t_w, t_s, t_y = _average_tangent_parts(ta, tw, a, axis, weights)
    ga, gs = _split_cotangent(g, returned)
    tga, tgs = _split_cotangent(tg, returned) if not _is_zero(tg) else (None, None)
    big_g, big_tg = spread(ga, x, axis, keepdims), spread(tga, x, axis, keepdims)
    if which == 0:
        out = big_tg * w / s + big_g * t_w / s - big_g * w * t_s / (s * s)
        return _numpy_reshape_as(out, a)
    out = (big_tg * (x - y) / s + big_g * (t_a - t_y) / s - big_g * (x - y) * t_s / (s * s)
           + spread(tgs, x, axis, keepdims))
    return weights_like(out, x, axis, weights)


def average_tangent_grad(gz, ta, tw, a, axis=None, weights=None, returned=False,
                         keepdims=False, which=0):
    """Adjoint of average_tangent's mean, sum(ta w + (a - y) tw) / s, with respect to a
    (which=0) or the weights (1); its sum of tw reads neither."""
    x, w, s, y, t_a, t_w, t_s, t_y = _average_tangent_parts(ta, tw, a, axis, weights)
    gza, _ = _split_cotangent(gz, returned)
    big = spread(gza, x, axis, keepdims)
    if which == 0:
        return _numpy_reshape_as(big * (t_w - w * t_s / s) / s, a)
    return weights_like(big * (t_a - t_y - (x - y) * t_s / s) / s, x, axis, weights)


def _nz_or_none(t, like):
    return None if like is None else _nz(t, like)


def cov_grad_tangent_full(tg, tm, ty, g, m, y=None, rowvar=True, bias=False, ddof=None,
                          fweights=None, aweights=None, which=0):
    """cov_grad is linear in g and in the rows (m, y) together."""
    out = cov_grad(_nz(tg, g), m, y, rowvar, bias, ddof, fweights, aweights, which)
    if not (_is_zero(tm) and (y is None or _is_zero(ty))):
        out = out + cov_grad(g, _nz(tm, m), _nz_or_none(ty, y), rowvar, bias, ddof, fweights,
                             aweights, which)
    return out


def cov_tangent_grad(gz, tm, ty, m, y=None, rowvar=True, bias=False, ddof=None,
                     fweights=None, aweights=None, which=0):
    """Adjoint of cov_tangent (B(t, x) + B(x, t), B bilinear) with respect to m (which=0)
    or y (1): cov_grad with the tangents in place of the rows."""
    return cov_grad(gz, _nz(tm, m), _nz_or_none(ty, y), rowvar, bias, ddof, fweights,
                    aweights, which)


# histogram: without a density, linear in the cotangent (and the tangents) and
# piecewise constant in the data, weights and edges

def histogram_grad_tangent_full(tg, g, a, bins=10, range=None, density=None, weights=None,
                                which=0):
    histogram_density_second_order(density)
    return histogram_grad(_nz(tg, g) if not _is_zero(tg) else (None, None), a, bins, range,
                          density, weights, which)


def histogram_tangent_grad(gz, ta, tw, tb, a, bins=10, range=None, density=None,
                           weights=None, which=0):
    """Adjoint of histogram_tangent with respect to a (which=0), the weights (1) or the
    edges (2): zero without a density (the tangent reads them through masks only)."""
    histogram_density_second_order(density)
    return _zero_like((a, weights, bins)[which])


# vander: each derivative is the next falling power

def vander_grad_tangent_full(tg, tx, g, x, N=None, increasing=False, order=1):
    out = vander_grad(_nz(tg, g), x, N, increasing, order)
    if not _is_zero(tx):
        out = out + vander_grad(numpy.asarray(g) * numpy.expand_dims(tx, -1), x, N, increasing,
                                order + 1)
    return out


def vander_tangent_grad_x(gz, t, x, N=None, increasing=False):
    """Adjoint of vander_tangent(t, x) = t[:, None] * d/dx x^e with respect to x."""
    if _is_zero(t):
        return _zero_like(x)
    return vander_grad(numpy.asarray(gz) * numpy.expand_dims(t, -1), x, N, increasing, 2)


def polymul_grad_tangent_full(tg, ta, tb, g, a, b, which):
    return _bilinear_grad_full(polymul_grad, tg, ta, tb, g, a, b, which, ())
