"""numpy.linalg over the native module (faer-backed: LU, Cholesky, QR, symmetric EVD, SVD).

Stacks of matrices (`(..., M, N)`) work like NumPy's. Eigenvector / singular-vector
signs may differ from LAPACK's (both are valid factorizations).
"""
from collections import namedtuple as _namedtuple

import _numpy_native as _nn
from _numpy_native import inv, det, solve, cholesky, eigvalsh, pinv, matrix_rank, matrix_power, lstsq


class LinAlgError(ValueError):
    """Generic Python-exception-derived object raised by linalg functions."""


LinAlgError.__module__ = "numpy.linalg"

SlogdetResult = _namedtuple("SlogdetResult", ["sign", "logabsdet"])
EighResult = _namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
EigResult = _namedtuple("EigResult", ["eigenvalues", "eigenvectors"])
QRResult = _namedtuple("QRResult", ["Q", "R"])
SVDResult = _namedtuple("SVDResult", ["U", "S", "Vh"])


def norm(x, ord=None, axis=None, keepdims=False):
    """Vector norms natively; matrix norms (ord 1, -1, 2, -2, inf, -inf, 'nuc') via SVD
    and column/row sums, for 2-D input or a pair of axes."""
    if ord is None or ord == "fro":
        return _nn.norm(x, ord, axis, keepdims)
    x = _nn.asarray(x)
    if axis is None and x.ndim == 2:
        axis = (0, 1)
    if not (isinstance(axis, (tuple, list)) and len(axis) == 2):
        return _nn.norm(x, ord, axis, keepdims)
    nd = x.ndim
    r0, c0 = axis[0] % nd if nd else 0, axis[1] % nd if nd else 0
    if r0 == c0:
        raise ValueError("Duplicate axes given.")
    m = _nn.moveaxis(x, [r0, c0], [-2, -1])
    inf = float("inf")
    if ord == 2 or ord == -2 or ord == "nuc":
        s = _nn.svd(m, False, False)
        if ord == 2:
            r = _nn.max(s, axis=-1)
        elif ord == -2:
            r = _nn.min(s, axis=-1)
        else:
            r = _nn.sum(s, axis=-1)
    elif ord == 1 or ord == -1:
        cols = _nn.sum(_nn.abs(m), axis=-2)
        r = _nn.max(cols, axis=-1) if ord == 1 else _nn.min(cols, axis=-1)
    elif ord == inf or ord == -inf:
        rows = _nn.sum(_nn.abs(m), axis=-1)
        r = _nn.max(rows, axis=-1) if ord == inf else _nn.min(rows, axis=-1)
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        shape = list(x.shape)
        shape[r0] = 1
        shape[c0] = 1
        r = _nn.reshape(r, tuple(shape))
    return r


def slogdet(a):
    return SlogdetResult(*_nn.slogdet(a))


def eig(a):
    """Eigenvalues and eigenvectors of real matrices with real eigenvalues (complex ones
    are refused: the embedded numpy has no complex arrays)."""
    return EigResult(*_nn.eig(a))


eigvals = _nn.eigvals


def eigh(a, UPLO="L"):
    return EighResult(*_nn.eigh(a, UPLO))


def qr(a, mode="reduced"):
    r = _nn.qr(a, mode)
    return r if mode == "r" else QRResult(*r)


def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    r = _nn.svd(a, full_matrices, compute_uv, hermitian)
    return SVDResult(*r) if compute_uv else r


def svdvals(x):
    return _nn.svd(x, False, False)


def multi_dot(arrays):
    out = arrays[0]
    for a in arrays[1:]:
        out = out @ a
    return out


def matmul(x1, x2):
    return x1 @ x2


def outer(x1, x2):
    return _nn.outer(x1, x2)


def trace(x, offset=0):
    return _nn.trace(x, offset, -2, -1)


def diagonal(x, offset=0):
    return _nn.diagonal(x, offset, -2, -1)


def cond(x, p=None):
    """The condition number in the norm `p`: the ratio of extreme singular values for
    None, 2 and -2, else norm(x, p) * norm(inv(x), p)."""
    if p is None or p == 2 or p == -2:
        s = _nn.svd(x, False, False)
        return s[..., 0] / s[..., -1] if p != -2 else s[..., -1] / s[..., 0]
    return norm(x, p, axis=(-2, -1)) * norm(inv(x), p, axis=(-2, -1))


def cross(x1, x2, /, *, axis=-1):
    """The cross product of 3-vectors (the array API's: both must have 3 elements along
    `axis`)."""
    x1, x2 = _nn.asarray(x1), _nn.asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError("Both input arrays must be (arrays of) 3-dimensional vectors, but "
                         "they are %d and %d dimensional instead."
                         % (x1.shape[axis], x2.shape[axis]))
    import numpy
    return numpy.cross(x1, x2, axis=axis)


def matrix_transpose(x, /):
    """`x` with its last two axes swapped."""
    x = _nn.asarray(x)
    if x.ndim < 2:
        raise ValueError("Input array must be at least 2-dimensional, but it is %d" % x.ndim)
    return _nn.swapaxes(x, -1, -2)


def tensordot(x1, x2, /, *, axes=2):
    """`numpy.tensordot` (the array API's keyword-only `axes`)."""
    return _nn.tensordot(x1, x2, axes)


def vecdot(x1, x2, /, *, axis=-1):
    """The inner products of the vectors along `axis` (broadcasting the others)."""
    x1, x2 = _nn.asarray(x1), _nn.asarray(x2)
    return _nn.sum(x1 * x2, axis)


def _prod(dims):
    out = 1
    for d in dims:
        out *= d
    return out


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """The `ord`-norm of the vectors along `axis` (an int, a tuple of axes taken as one
    vector, or None: every element)."""
    x = _nn.asarray(x)
    shape = list(x.shape)
    if axis is None:
        flat, along = _nn.ravel(x), 0
        axes = list(range(x.ndim))
    elif isinstance(axis, tuple):
        axes = [a % x.ndim for a in axis]
        rest = [a for a in range(x.ndim) if a not in axes]
        flat = _nn.reshape(_nn.transpose(x, axes + rest),
                           (_prod(shape[a] for a in axes),) + tuple(shape[a] for a in rest))
        along = 0
    else:
        flat, along, axes = x, axis, [axis % x.ndim]
    res = norm(flat, ord, along)
    if keepdims:
        for a in axes:
            shape[a] = 1
        res = _nn.reshape(res, tuple(shape))
    return res


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """The `ord`-norm of the matrices in the last two axes."""
    return norm(x, ord, (-2, -1), keepdims)


def tensorinv(a, ind=2):
    """The inverse of `a` as a map from its last axes to its first `ind` ones."""
    a = _nn.asarray(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    old = a.shape
    inverse_shape = old[ind:] + old[:ind]
    ia = inv(_nn.reshape(a, (_prod(old[ind:]), -1)))
    return _nn.reshape(ia, inverse_shape)


def tensorsolve(a, b, axes=None):
    """`x` with `tensordot(a, x, axes=x.ndim) == b` (the axes of `a` listed in `axes`
    moved to the end first)."""
    a, b = _nn.asarray(a), _nn.asarray(b)
    an = a.ndim
    if axes is not None:
        order = [k for k in range(an) if k not in [x % an for x in axes]]
        order += [x % an for x in axes]
        a = _nn.transpose(a, order)
    old = a.shape[-(an - b.ndim):]
    n = _prod(old)
    if _prod(a.shape) != n * n:
        raise LinAlgError("Input arrays must satisfy the requirement "
                          "prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])")
    return _nn.reshape(solve(_nn.reshape(a, (n, n)), _nn.ravel(b)), old)


__all__ = [
    "LinAlgError", "norm", "inv", "det", "slogdet", "solve", "cholesky", "eigh", "eigvalsh",
    "qr", "svd", "svdvals", "pinv", "matrix_rank", "matrix_power", "lstsq", "multi_dot",
    "cond", "trace", "diagonal", "outer", "matmul", "cross", "matrix_transpose",
    "tensordot", "vecdot", "vector_norm", "matrix_norm", "tensorinv", "tensorsolve",
]
