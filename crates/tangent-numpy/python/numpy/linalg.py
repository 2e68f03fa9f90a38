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
    s = _nn.svd(x, False, False)
    return s[..., 0] / s[..., -1]


__all__ = [
    "LinAlgError", "norm", "inv", "det", "slogdet", "solve", "cholesky", "eigh", "eigvalsh",
    "qr", "svd", "svdvals", "pinv", "matrix_rank", "matrix_power", "lstsq", "multi_dot",
    "cond", "trace", "diagonal", "outer", "matmul",
]
