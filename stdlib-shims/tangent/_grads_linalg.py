"""Linear algebra (numpy.linalg, jax.numpy.linalg, scipy.linalg): inv, det, slogdet,
solve, norm, cholesky, eigh, eigvalsh, qr, svd.

Conventions in tangent._grads_common."""
from tangent._grads_common import (  # noqa: F401
    _T, _dtype, _eye, _is_zero, _like_dtype, _reshape_like, _tg, _to_python_scalar, _tril,
    _xp, numpy)
from tangent._errors import NotDifferentiated


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
    return _to_python_scalar(xp, v)


def det_grad(g, y, a):
    xp = _xp(g, y, a)
    # In a's dtype: the embedded numpy's det/slogdet give Python floats (float64).
    return _like_dtype(_expand2(g * y, xp) * _T(xp.linalg.inv(a)), a)


def det_tangent(t, y, a):
    xp = _xp(t, y, a)
    return _scalar(y * xp.sum(_T(xp.linalg.inv(a)) * t, axis=(-2, -1)), xp)


def slogdet_grad(g, a):
    xp = _xp(g, a)
    return _like_dtype(_expand2(g, xp) * _T(xp.linalg.inv(a)), a)


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


def _norm_setup(x, ord, axis, vector=False):
    """(reduced axes, is_matrix_norm) of `linalg.norm(x, ord, axis)`; with `vector`, of
    `linalg.vector_norm(x, axis=axis, ord=ord)` (the elements of the axes as one vector,
    all of them for None)."""
    nd = _xp(x).ndim(x)
    if vector:
        if axis is None:
            return tuple(range(nd)), False
        if isinstance(axis, int):
            return (axis % nd,), False
        return tuple(a % nd for a in axis), False
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
    dtype = _dtype(xp, like)
    if dtype is None:
        return cond * 1.0
    return cond.astype(dtype)


def _share(mask, axes, xp=numpy):
    """mask / (number of elements attaining the extremum) over `axes`."""
    return mask / xp.sum(mask, axis=axes, keepdims=True)


def _norm_direction(x, y, ord, axis, keepdims, vector=False):
    """The gradient of each norm value with respect to x (shaped like x)."""
    tg = _tg()
    xp = _xp(x, y)
    x = xp.asarray(x) * 1.0
    axes, matrix = _norm_setup(x, ord, axis, vector)
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
    raise NotDifferentiated("tangent: no derivative of linalg.norm with ord=%r" % (ord,))


def norm_grad(g, x, y, ord=None, axis=None, keepdims=False, vector=False):
    tg = _tg()
    xp = _xp(g, x, y)
    axes, _ = _norm_setup(x, ord, axis, vector)
    d = _norm_direction(x, y, ord, axis, keepdims, vector)
    return _reshape_like(xp)(tg.unreduce(g, xp.asarray(x) * 1.0, axes, keepdims) * d, x)


def norm_tangent(t, x, y, ord=None, axis=None, keepdims=False, vector=False):
    xp = _xp(t, x, y)
    axes, _ = _norm_setup(x, ord, axis, vector)
    d = _norm_direction(x, y, ord, axis, keepdims, vector)
    return _scalar(xp.sum(d * t, axis=axes, keepdims=keepdims), xp)


def _sym(a):
    return 0.5 * (a + _T(a))


def _phi(x):
    """Lower triangle with the diagonal halved."""
    xp = _xp(x)
    n = xp.shape(x)[-1]
    return x * (_tril(n, -1, xp, x) + 0.5 * _eye(n, x, xp))


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


# eig (a general real matrix with real, distinct eigenvalues; NumPy's unit-length
# eigenvectors): with C = V^-1 dA V and F the eigenvalue gaps, dw = diag(C) and
# dV = V (F o C) less each column's component along itself (the length stays 1). So
# dA's adjoint is V^-T (diag(gw) + F o (V^T gV - V^T V diag(V^T gV))) V^T.

def _real_eig(w, v):
    """Complex eigenvalues or eigenvectors (CPython's NumPy gives them) are refused."""
    xp = _xp(w, v)
    if xp.iscomplexobj(w) or xp.iscomplexobj(v):
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: the derivative of numpy.linalg.eig/eigvals is provided for real "
            "eigenvalues only; this matrix has complex ones",
            "differentiate a symmetric matrix's eigenvalues with numpy.linalg.eigh or "
            "eigvalsh"))


def _pair_parts(gy, n):
    """The two cotangents or tangents of a pair (zero ones as None)."""
    if gy is None or _is_zero(gy):
        return None, None
    parts = [None if p is None or _is_zero(p) else p for p in (gy[0], gy[1])]
    return parts[0], parts[1]


def eig_grad(gy, y):
    xp = _xp(gy, y)
    w, v = y[0], y[1]
    _real_eig(w, v)
    gw, gv = _pair_parts(gy, 2)
    n = xp.shape(w)[-1]
    eye = _eye(n, w, xp)
    inner = xp.zeros(xp.shape(v), dtype=_dtype(xp, v))
    if gw is not None:
        inner = inner + xp.reshape(xp.asarray(gw) * 1.0, xp.shape(w) + (1,)) * eye
    if gv is not None:
        vtgv = xp.matmul(_T(v), gv)
        inner = inner + _eig_gaps(w) * (vtgv - xp.matmul(xp.matmul(_T(v), v), vtgv * eye))
    return xp.matmul(_T(xp.linalg.inv(v)), xp.matmul(inner, _T(v)))


def eig_tangent(t, y):
    xp = _xp(t, y)
    w, v = y[0], y[1]
    _real_eig(w, v)
    c = xp.matmul(xp.linalg.inv(v), xp.matmul(t, v))
    dw = xp.diagonal(c, 0, -2, -1)
    dv = xp.matmul(v, _eig_gaps(w) * c)
    dv = dv - v * xp.expand_dims(xp.sum(v * dv, axis=-2), -2)
    return (dw, dv)


def _eig_in_order_of(y, a):
    """eig of `a` with its eigenvalues in the order of `y` (eigvals' own results, which
    need not come in eig's order): (w, v, where each w went in y)."""
    xp = _xp(y, a)
    w, v = xp.linalg.eig(a)
    _real_eig(w, v)
    yw = xp.argsort(y, axis=-1)
    ww = xp.argsort(w, axis=-1)
    return w, v, yw, ww


def eigvals_grad(g, a, y):
    xp = _xp(g, a, y)
    w, v, yw, ww = _eig_in_order_of(y, a)
    g = xp.broadcast_to(xp.asarray(g) * 1.0, xp.shape(y))
    # g[yw[k]] belongs to the k-th smallest eigenvalue, which is w[ww[k]].
    gw = xp.zeros(xp.shape(w), dtype=_dtype(xp, w))
    xp.put_along_axis(gw, ww, xp.take_along_axis(g, yw, -1), -1)
    return eig_grad((gw, None), (w, v))


def eigvals_tangent(t, a, y):
    xp = _xp(t, a, y)
    w, v, yw, ww = _eig_in_order_of(y, a)
    dw = eig_tangent(t, (w, v))[0]
    out = xp.zeros(xp.shape(y), dtype=_dtype(xp, dw))
    xp.put_along_axis(out, yw, xp.take_along_axis(dw, ww, -1), -1)
    return out


# lstsq(a, b) = (x, residuals, rank, s): x = P b with P the pseudo-inverse at lstsq's
# rank (constant around the point); the residuals ||b - a x||^2 (when a has full column
# rank and more rows than columns) move by 2 e.db - 2 e.(da x) with e = b - a x, since
# a^T e = 0; the singular values by u_i^T da v_i; the rank is piecewise constant.

def _lstsq_parts(a, y):
    """P at lstsq's rank, and the reduced SVD it came from."""
    xp = _xp(a)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    k = int(y[2])
    p = xp.matmul(_T(vh[:k]) / s[:k], _T(u[:, :k]))
    return p, u, vh


def _pinv_adjoint(g, a, p):
    """The adjoint of dP (pinv.py's formula in backends/linalg.py) for the cotangent g."""
    xp = _xp(g, a, p)
    pt, gt = _T(p), _T(g)
    return (-xp.matmul(xp.matmul(pt, g), pt)
            + xp.matmul(gt - xp.matmul(xp.matmul(a, p), gt), xp.matmul(p, pt))
            + xp.matmul(xp.matmul(pt, p), gt - xp.matmul(gt, xp.matmul(p, a))))


def _pinv_tangent(t, a, p):
    xp = _xp(t, a, p)
    pt, tt = _T(p), _T(t)
    return (-xp.matmul(xp.matmul(p, t), p)
            + xp.matmul(xp.matmul(p, pt), tt - xp.matmul(tt, xp.matmul(a, p)))
            + xp.matmul(tt - xp.matmul(xp.matmul(p, a), tt), xp.matmul(pt, p)))


def lstsq_grad(gy, a, b, y, which=0):
    """`which` argument's gradient, in its float dtype (float32 in, float32 out)."""
    return _like_dtype(_lstsq_grad(gy, a, b, y, which), b if which else a)


def _lstsq_grad(gy, a, b, y, which):
    xp = _xp(a, b)
    a = xp.asarray(a) * 1.0
    b = xp.asarray(b) * 1.0
    gx = gr = gs = None
    if gy is not None and not _is_zero(gy):
        gx, gr, gs = (None if g is None or _is_zero(g) else xp.asarray(g) * 1.0
                      for g in (gy[0], gy[1], gy[3]))
    x = y[0]
    p, u, vh = _lstsq_parts(a, y)
    vec = xp.ndim(b) == 1
    b2 = xp.reshape(b, (-1, 1)) if vec else b
    x2 = xp.reshape(x, (-1, 1)) if vec else x
    e2 = b2 - xp.matmul(a, x2)
    if which == 1:
        out = xp.zeros(xp.shape(b2), dtype=_dtype(xp, b2))
        if gx is not None:
            out = out + xp.matmul(_T(p), xp.reshape(gx, xp.shape(x2)))
        if gr is not None and xp.size(gr):
            out = out + 2.0 * e2 * gr
        return xp.reshape(out, xp.shape(b))
    out = xp.zeros(xp.shape(a), dtype=_dtype(xp, a))
    if gx is not None:
        out = out + _pinv_adjoint(xp.matmul(xp.reshape(gx, xp.shape(x2)), _T(b2)), a, p)
    if gr is not None and xp.size(gr):
        out = out - 2.0 * xp.matmul(e2 * gr, _T(x2))
    if gs is not None:
        out = out + xp.matmul(u * gs, vh)
    return out


def lstsq_tangent(ta, tb, a, b, y):
    xp = _xp(a, b)
    a = xp.asarray(a) * 1.0
    b = xp.asarray(b) * 1.0
    x, res, rank, s = y
    p, u, vh = _lstsq_parts(a, y)
    vec = xp.ndim(b) == 1
    b2 = xp.reshape(b, (-1, 1)) if vec else b
    x2 = xp.reshape(x, (-1, 1)) if vec else x
    e2 = b2 - xp.matmul(a, x2)
    dx = xp.zeros(xp.shape(x2), dtype=_dtype(xp, x2))
    dres = xp.zeros(xp.shape(res), dtype=_dtype(xp, x2))
    ds = xp.zeros(xp.shape(s), dtype=_dtype(xp, s))
    if not _is_zero(ta):
        ta = xp.asarray(ta) * 1.0
        dx = dx + xp.matmul(_pinv_tangent(ta, a, p), b2)
        if xp.size(res):
            dres = dres - 2.0 * xp.sum(e2 * xp.matmul(ta, x2), axis=0)
        ds = ds + xp.sum(u * xp.matmul(ta, _T(vh)), axis=0)
    if not _is_zero(tb):
        tb2 = xp.reshape(xp.asarray(tb) * 1.0, xp.shape(b2))
        dx = dx + xp.matmul(p, tb2)
        if xp.size(res):
            dres = dres + 2.0 * xp.sum(e2 * tb2, axis=0)
    return (xp.reshape(dx, xp.shape(x)), dres, rank * 0, ds)


def second_order_refused(name, *_):
    """Second derivatives through `name` (eig, eigvals, lstsq) are not provided."""
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the second derivative of %s is not provided" % name,
        "differentiate it once (a symmetric matrix's eigenvalues: numpy.linalg.eigh or "
        "eigvalsh, whose second derivatives are provided)"))


def eigvalsh_grad(g, a, uplo="L"):
    w, v = _xp(g, a).linalg.eigh(a, uplo)
    return eigh_grad((g, 0.0), (w, v))


def eigvalsh_tangent(t, a, uplo="L"):
    w, v = _xp(t, a).linalg.eigh(a, uplo)
    return eigh_tangent(t, (w, v))[0]


def _check_qr(a, mode):
    if mode != "reduced":
        raise NotDifferentiated("tangent: linalg.qr is differentiated for mode='reduced' only")
    shape = _xp(a).shape(a)
    if shape[-2] < shape[-1]:
        raise NotDifferentiated("tangent: linalg.qr is differentiated for M >= N only")


def qr_grad(gy, y, a, mode="reduced"):
    _check_qr(a, mode)
    xp = _xp(gy, y, a)
    q, r = y[0], y[1]
    gq, gr = gy[0], gy[1]
    n = xp.shape(r)[-1]
    m = xp.matmul(r, _T(gr)) - xp.matmul(_T(gq), q)
    copyltu = m * _tril(n, 0, xp, r) + _T(m * _tril(n, -1, xp, r))
    b = gq + xp.matmul(q, copyltu)
    return _T(xp.linalg.solve(r, _T(b)))


def qr_tangent(t, y, a, mode="reduced"):
    _check_qr(a, mode)
    xp = _xp(t, y, a)
    q, r = y[0], y[1]
    n = xp.shape(r)[-1]
    ri = xp.linalg.inv(r)
    x = xp.matmul(_T(q), xp.matmul(t, ri))
    low = x * _tril(n, -1, xp, r)
    omega = low - _T(low)
    dr = xp.matmul(x - omega, r)
    dq = xp.matmul(t - xp.matmul(q, dr), ri)
    return (dq, dr)


def _check_svd(a, full_matrices):
    shape = _xp(a).shape(a)
    if full_matrices and shape[-2] != shape[-1]:
        raise NotDifferentiated("tangent: linalg.svd of a non-square matrix is differentiated "
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




# ---------------------------------------------------------- tensorinv, tensorsolve
# inv and solve of a matrix made by reshaping (tensorsolve first moves `axes` last, as
# NumPy does): their helpers reshape and call inv's and solve's. NumPy's only.

def tensor_square(a, ind=2):
    """tensorinv's matrix shape: the product of a's first `ind` dimensions, squared."""
    n = 1
    for s in numpy.shape(a)[:ind]:
        n *= int(s)
    return (n, n)


def tensorinv_grad(g, a, y, ind=2):
    sq = tensor_square(a, ind)
    return _like_dtype(numpy.reshape(
        inv_grad(numpy.reshape(g, sq), numpy.reshape(y, sq)), numpy.shape(a)), a)


def tensorinv_tangent(t, a, y, ind=2):
    if _is_zero(t):
        return numpy.zeros(numpy.shape(y))
    sq = tensor_square(a, ind)
    return numpy.reshape(inv_tangent(numpy.reshape(t, sq), numpy.reshape(y, sq)),
                         numpy.shape(y))


def tensorsolve_forms(a, b, axes=None):
    """tensorsolve's permutation of a's axes (`axes` moved last, in order), a's shape
    after it, and the square matrix shape."""
    order = list(range(numpy.ndim(a)))
    if axes is not None:
        for k in axes:
            order.remove(k)
            order.append(k)
    moved = tuple(numpy.shape(a)[i] for i in order)
    n = int(numpy.size(b))
    return order, moved, (n, n)


def tensor_matrix(v, a, b, axes=None):
    """`v` (a or its tangent) as tensorsolve's matrix."""
    order, _, sq = tensorsolve_forms(a, b, axes)
    return numpy.reshape(numpy.transpose(numpy.asarray(v) * 1.0, order), sq)


def tensor_unmatrix(m, a, b, axes=None):
    """The inverse of tensor_matrix: a gradient shaped like `a`."""
    order, moved, _ = tensorsolve_forms(a, b, axes)
    return _like_dtype(numpy.transpose(numpy.reshape(m, moved), numpy.argsort(order)), a)


def tensorsolve_grad(g, a, b, x, axes=None, which=0):
    r = solve_grad(numpy.ravel(g), tensor_matrix(a, a, b, axes), numpy.ravel(b) * 1.0,
                   numpy.ravel(x), which)
    if which == 1:
        return _like_dtype(numpy.reshape(r, numpy.shape(b)), b)
    return tensor_unmatrix(r, a, b, axes)


def tensorsolve_tangent(ta, tb, a, b, x, axes=None):
    tm = 0.0 if _is_zero(ta) else tensor_matrix(ta, a, b, axes)
    tv = 0.0 if _is_zero(tb) else numpy.ravel(tb) * 1.0
    if _is_zero(ta) and _is_zero(tb):
        return numpy.zeros(numpy.shape(x))
    return numpy.reshape(solve_tangent(tm, tv, tensor_matrix(a, a, b, axes),
                                       numpy.ravel(b) * 1.0, numpy.ravel(x)),
                         numpy.shape(x))


# ------------------------------------------------------------------------ polyfit
# polyfit's coefficients are the least-squares solution lstsq(V, y) (rows weighted by
# w): linear in y, whose gradient is the minimum-norm solution of V^T z = g.

def polyfit_grad(g, x, y, deg, rcond=None, w=None):
    xa = numpy.asarray(x) * 1.0
    v = numpy.vander(xa, int(deg) + 1)
    if w is not None:
        v = v * numpy.reshape(numpy.asarray(w) * 1.0, (-1, 1))
    z = numpy.linalg.lstsq(v.T, numpy.asarray(g) * 1.0, rcond=None)[0]
    if w is not None:
        ww = numpy.asarray(w) * 1.0
        z = z * (numpy.reshape(ww, (-1, 1)) if z.ndim == 2 else ww)
    return _like_dtype(numpy.reshape(z, numpy.shape(y)), y) if hasattr(y, "shape") else \
        [float(v_) for v_ in numpy.ravel(z)]


def polyfit_x_refused(x):
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the derivative of numpy.polyfit with respect to x (the sample points) is "
        "not provided", "differentiate with respect to y; pass x as a constant"))


def polyfit_options_refused(full, cov):
    """polyfit's derivative is provided for its coefficients alone (0.0 when it is)."""
    if full or cov:
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: the derivative of numpy.polyfit with full=True or cov=True is not "
            "provided", "call polyfit for the coefficients alone"))
    return 0.0
