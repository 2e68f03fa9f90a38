# Derivative rules for numpy.linalg and the other matrix functions of NumPy (einsum,
# tensordot, trace, ...). Template conventions as in python.py. Runtime helpers for
# these rules live in stdlib-shims/tangent/_grads_linalg.py (and _grads_matrix.py) and
# are reached as `tangent.*`.
#
# The numpy.linalg rules also serve jax.numpy.linalg (`rules_like` in jax.py): their
# bodies only call `tangent.*` helpers, which compute with jax.numpy when an argument is
# a JAX array (tracers included). jax's cholesky, eigh and eigvalsh
# have their own templates (symmetrize_input); keyword arguments a template does not
# list (svd's subset_by_index, slogdet's method) are refused.

nondifferentiable(numpy.linalg.matrix_rank)


@adjoint(numpy.trace)
@adjoint(numpy.ndarray.trace)
def trace(y, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[x] = tangent.trace_grad(d[y], x, offset, axis1, axis2)


@tangent_(numpy.trace)
@tangent_(numpy.ndarray.trace)
def trace_tangent(y, x, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    d[y] = numpy.trace(d[x], offset, axis1, axis2)


@adjoint(numpy.diagonal)
@adjoint(numpy.ndarray.diagonal)
def diagonal(y, x, offset=0, axis1=0, axis2=1):
    d[x] = tangent.diagonal_grad(d[y], x, offset, axis1, axis2)


@tangent_(numpy.diagonal)
@tangent_(numpy.ndarray.diagonal)
def diagonal_tangent(y, x, offset=0, axis1=0, axis2=1):
    d[y] = numpy.diagonal(d[x], offset, axis1, axis2)


# The array API's trace and diagonal: over the last two axes.
@adjoint(numpy.linalg.trace)
def linalg_trace(y, x, offset=0, dtype=None):
    d[x] = tangent.trace_grad(d[y], x, offset, -2, -1)


@tangent_(numpy.linalg.trace)
def linalg_trace_tangent(y, x, offset=0, dtype=None):
    d[y] = numpy.trace(d[x], offset, -2, -1)


@adjoint(numpy.linalg.diagonal)
def linalg_diagonal(y, x, offset=0):
    d[x] = tangent.diagonal_grad(d[y], x, offset, -2, -1)


@tangent_(numpy.linalg.diagonal)
def linalg_diagonal_tangent(y, x, offset=0):
    d[y] = numpy.diagonal(d[x], offset, -2, -1)


@adjoint(numpy.diag)
def diag(y, v, k=0):
    d[v] = tangent.diag_grad(d[y], v, k)


@tangent_(numpy.diag)
def diag_tangent(y, v, k=0):
    d[y] = numpy.diag(d[v], k)


@adjoint(numpy.inner)
def inner(y, a, b):
    d[a] = tangent.inner_grad(d[y], a, b, 0)
    d[b] = tangent.inner_grad(d[y], a, b, 1)


@tangent_(numpy.inner)
def inner_tangent(y, a, b):
    d[y] = tangent.bilinear_tangent(numpy.inner, d[a], a, d[b], b)


@adjoint(numpy.outer)
@adjoint(numpy.linalg.outer)
def outer(y, a, b):
    d[a] = tangent.outer_grad(d[y], a, b, 0)
    d[b] = tangent.outer_grad(d[y], a, b, 1)


@tangent_(numpy.outer)
@tangent_(numpy.linalg.outer)
def outer_tangent(y, a, b):
    d[y] = tangent.bilinear_tangent(numpy.outer, d[a], a, d[b], b)


@adjoint(numpy.tensordot)
@adjoint(numpy.linalg.tensordot)
def tensordot(y, a, b, axes=2):
    d[a] = tangent.tensordot_grad(d[y], a, b, axes, 0)
    d[b] = tangent.tensordot_grad(d[y], a, b, axes, 1)


@tangent_(numpy.tensordot)
@tangent_(numpy.linalg.tensordot)
def tensordot_tangent(y, a, b, axes=2):
    d[y] = tangent.bilinear_tangent(numpy.tensordot, d[a], a, d[b], b, axes)


# einsum with up to four operands: each operand is a template parameter (an operand left
# out is None, so its `d[...]` is dropped).
@adjoint(numpy.einsum)
def einsum(y, subscripts, a, b=None, c=None, e=None, optimize=False):
    d[a] = tangent.einsum_grad(d[y], subscripts, (a, b, c, e), 0)
    d[b] = tangent.einsum_grad(d[y], subscripts, (a, b, c, e), 1)
    d[c] = tangent.einsum_grad(d[y], subscripts, (a, b, c, e), 2)
    d[e] = tangent.einsum_grad(d[y], subscripts, (a, b, c, e), 3)


@tangent_(numpy.einsum)
def einsum_tangent(y, subscripts, a, b=None, c=None, e=None, optimize=False):
    d[y] = tangent.einsum_tangent(subscripts, (a, b, c, e), d[a], d[b], d[c], d[e])


@adjoint(numpy.linalg.inv)
@adjoint(scipy.linalg.inv)
def inv(y, a):
    d[a] = tangent.inv_grad(d[y], y)


@tangent_(numpy.linalg.inv)
@tangent_(scipy.linalg.inv)
def inv_tangent(y, a):
    d[y] = tangent.inv_tangent(d[a], y)


@adjoint(numpy.linalg.det)
def det(y, a):
    d[a] = tangent.det_grad(d[y], y, a)


@tangent_(numpy.linalg.det)
def det_tangent(y, a):
    d[y] = tangent.det_tangent(d[a], y, a)


# slogdet returns (sign, logabsdet); the sign is piecewise constant.
@adjoint(numpy.linalg.slogdet)
def slogdet(y, a):
    d[a] = tangent.slogdet_grad(tangent.grad_item(d[y], 1), a)


@tangent_(numpy.linalg.slogdet)
def slogdet_tangent(y, a):
    d[y] = tangent.slogdet_tangent(d[a], y, a)


@adjoint(numpy.linalg.solve)
@adjoint(scipy.linalg.solve)
def solve(y, a, b):
    d[a] = tangent.solve_grad(d[y], a, b, y, 0)
    d[b] = tangent.solve_grad(d[y], a, b, y, 1)


@tangent_(numpy.linalg.solve)
@tangent_(scipy.linalg.solve)
def solve_tangent(y, a, b):
    d[y] = tangent.solve_tangent(d[a], d[b], a, b, y)


@adjoint(numpy.linalg.norm)
def norm(y, x, ord=None, axis=None, keepdims=False):
    d[x] = tangent.norm_grad(d[y], x, y, ord, axis, keepdims)


@tangent_(numpy.linalg.norm)
def norm_tangent(y, x, ord=None, axis=None, keepdims=False):
    d[y] = tangent.norm_tangent(d[x], x, y, ord, axis, keepdims)


# vector_norm: the elements of `axis` (all for None) as one vector; matrix_norm: the
# matrices of the last two axes (linalg.norm's rules, told which).
@adjoint(numpy.linalg.vector_norm)
def vector_norm(y, x, axis=None, keepdims=False, ord=2):
    d[x] = tangent.norm_grad(d[y], x, y, ord, axis, keepdims, True)


@tangent_(numpy.linalg.vector_norm)
def vector_norm_tangent(y, x, axis=None, keepdims=False, ord=2):
    d[y] = tangent.norm_tangent(d[x], x, y, ord, axis, keepdims, True)


@adjoint(numpy.linalg.matrix_norm)
def matrix_norm(y, x, keepdims=False, ord="fro"):
    d[x] = tangent.norm_grad(d[y], x, y, ord, (-2, -1), keepdims)


@tangent_(numpy.linalg.matrix_norm)
def matrix_norm_tangent(y, x, keepdims=False, ord="fro"):
    d[y] = tangent.norm_tangent(d[x], x, y, ord, (-2, -1), keepdims)


# cholesky, eigh, eigvalsh: symmetric inputs. Gradients are symmetrised and tangents are
# taken along the symmetric part of the input's tangent.
@adjoint(numpy.linalg.cholesky)
def cholesky(y, a, upper=False):
    d[a] = tangent.cholesky_grad(d[y], y, upper)


@tangent_(numpy.linalg.cholesky)
def cholesky_tangent(y, a, upper=False):
    d[y] = tangent.cholesky_tangent(d[a], y, upper)


@adjoint(numpy.linalg.eigh)
def eigh(y, a, UPLO="L"):
    d[a] = tangent.eigh_grad(d[y], y)


@tangent_(numpy.linalg.eigh)
def eigh_tangent(y, a, UPLO="L"):
    d[y] = tangent.eigh_tangent(d[a], y)


@adjoint(numpy.linalg.eigvalsh)
def eigvalsh(y, a, UPLO="L"):
    d[a] = tangent.eigvalsh_grad(d[y], a, UPLO)


@tangent_(numpy.linalg.eigvalsh)
def eigvalsh_tangent(y, a, UPLO="L"):
    d[y] = tangent.eigvalsh_tangent(d[a], a, UPLO)


# jax.numpy.linalg's cholesky, eigh and eigvalsh symmetrise their input by default
# (symmetrize_input=True), which is exactly what the rules above differentiate. With
# symmetrize_input=False the result reads one triangle of the input only: refused.
@adjoint(jax.numpy.linalg.cholesky)
def jax_cholesky(y, a, upper=False, symmetrize_input=True):
    d[a] = tangent.jax_symmetrized(tangent.cholesky_grad(d[y], y, upper), symmetrize_input, "cholesky")


@tangent_(jax.numpy.linalg.cholesky)
def jax_cholesky_tangent(y, a, upper=False, symmetrize_input=True):
    d[y] = tangent.jax_symmetrized(tangent.cholesky_tangent(d[a], y, upper), symmetrize_input, "cholesky")


@adjoint(jax.numpy.linalg.eigh)
def jax_eigh(y, a, UPLO=None, symmetrize_input=True):
    d[a] = tangent.jax_symmetrized(tangent.eigh_grad(d[y], y), symmetrize_input, "eigh")


@tangent_(jax.numpy.linalg.eigh)
def jax_eigh_tangent(y, a, UPLO=None, symmetrize_input=True):
    d[y] = tangent.jax_symmetrized(tangent.eigh_tangent(d[a], y), symmetrize_input, "eigh")


@adjoint(jax.numpy.linalg.eigvalsh)
def jax_eigvalsh(y, a, UPLO="L", symmetrize_input=True):
    d[a] = tangent.jax_symmetrized(tangent.eigvalsh_grad(d[y], a, UPLO), symmetrize_input, "eigvalsh")


@tangent_(jax.numpy.linalg.eigvalsh)
def jax_eigvalsh_tangent(y, a, UPLO="L", symmetrize_input=True):
    d[y] = tangent.jax_symmetrized(tangent.eigvalsh_tangent(d[a], a, UPLO), symmetrize_input, "eigvalsh")


# qr: mode='reduced' with M >= N (the helpers raise otherwise).
# lstsq: the solution through the pseudo-inverse at lstsq's rank, the residuals and the
# singular values (stdlib-shims/tangent/_grads_linalg.py); rcond is a constant; second
# derivatives are not provided.
@adjoint(numpy.linalg.lstsq)
def lstsq(y, a, b, rcond=None):
    d[a] = tangent.lstsq_grad(d[y], a, b, y, 0)
    d[b] = tangent.lstsq_grad(d[y], a, b, y, 1)


@tangent_(numpy.linalg.lstsq)
def lstsq_tangent(y, a, b, rcond=None):
    d[y] = tangent.lstsq_tangent(d[a], d[b], a, b, y)


# eig, eigvals: a general real matrix with real, distinct eigenvalues (complex ones
# refused where they appear); second derivatives are not provided.
@adjoint(numpy.linalg.eig)
def eig(y, a):
    d[a] = tangent.eig_grad(d[y], y)


@tangent_(numpy.linalg.eig)
def eig_tangent(y, a):
    d[y] = tangent.eig_tangent(d[a], y)


@adjoint(numpy.linalg.eigvals)
def eigvals(y, a):
    d[a] = tangent.eigvals_grad(d[y], a, y)


@tangent_(numpy.linalg.eigvals)
def eigvals_tangent(y, a):
    d[y] = tangent.eigvals_tangent(d[a], a, y)


@adjoint(numpy.linalg.qr)
def qr(y, a, mode="reduced"):
    d[a] = tangent.qr_grad(d[y], y, a, mode)


@tangent_(numpy.linalg.qr)
def qr_tangent(y, a, mode="reduced"):
    d[y] = tangent.qr_tangent(d[a], y, a, mode)


# svd: compute_uv=False, or the reduced factorisation (full_matrices=False, or a square
# input); distinct nonzero singular values. Vh's gradient arrives as that of Vh.
@adjoint(numpy.linalg.svd)
def svd(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    d[a] = tangent.svd_grad(d[y], y, a, full_matrices, compute_uv)


@tangent_(numpy.linalg.svd)
def svd_tangent(y, a, full_matrices=True, compute_uv=True, hermitian=False):
    d[y] = tangent.svd_tangent(d[a], y, a, full_matrices, compute_uv)


@adjoint(numpy.linalg.svdvals)
def svdvals(y, a):
    d[a] = tangent.svd_grad(d[y], y, a, False, False)


@tangent_(numpy.linalg.svdvals)
def svdvals_tangent(y, a):
    d[y] = tangent.svd_tangent(d[a], y, a, False, False)


# tensorinv and tensorsolve: inv and solve of a reshaped matrix
@adjoint(numpy.linalg.tensorinv)
def tensorinv(y, a, ind=2):
    d[a] = tangent.tensorinv_grad(d[y], a, y, ind)


@tangent_(numpy.linalg.tensorinv)
def tensorinv_tangent(y, a, ind=2):
    d[y] = tangent.tensorinv_tangent(d[a], a, y, ind)


@adjoint(numpy.linalg.tensorsolve)
def tensorsolve(x, a, b, axes=None):
    d[a] = tangent.tensorsolve_grad(d[x], a, b, x, axes, 0)
    d[b] = tangent.tensorsolve_grad(d[x], a, b, x, axes, 1)


@tangent_(numpy.linalg.tensorsolve)
def tensorsolve_tangent(x, a, b, axes=None):
    d[x] = tangent.tensorsolve_tangent(d[a], d[b], a, b, x, axes)


# pinv (constant rank around the point, as NumPy's cutoff keeps it almost everywhere):
# dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P, written with matmul and
# matrix_transpose so that it differentiates again.
@adjoint(numpy.linalg.pinv)
def pinv(y, a, rcond=None, hermitian=False, rtol=None):
    d[a] = (-numpy.matmul(numpy.matmul(numpy.matrix_transpose(y), d[y]),
                          numpy.matrix_transpose(y))
            + numpy.matmul(numpy.matrix_transpose(d[y])
                           - numpy.matmul(numpy.matmul(a, y), numpy.matrix_transpose(d[y])),
                           numpy.matmul(y, numpy.matrix_transpose(y)))
            + numpy.matmul(numpy.matmul(numpy.matrix_transpose(y), y),
                           numpy.matrix_transpose(d[y])
                           - numpy.matmul(numpy.matrix_transpose(d[y]), numpy.matmul(y, a))))


@tangent_(numpy.linalg.pinv)
def pinv_tangent(y, a, rcond=None, hermitian=False, rtol=None):
    d[y] = (-numpy.matmul(numpy.matmul(y, d[a]), y)
            + numpy.matmul(numpy.matmul(y, numpy.matrix_transpose(y)),
                           numpy.matrix_transpose(d[a])
                           - numpy.matmul(numpy.matrix_transpose(d[a]), numpy.matmul(a, y)))
            + numpy.matmul(numpy.matrix_transpose(d[a])
                           - numpy.matmul(numpy.matmul(y, a), numpy.matrix_transpose(d[a])),
                           numpy.matmul(numpy.matrix_transpose(y), y)))


# Functions that are a few others written out (`@control_flow`, src/ad/control_flow.rs;
# `numpy` is the namespace of the arguments): the derivative of every order and mode
# goes through the rules of the functions they call.

# matrix_power: repeated products from the identity (NumPy multiplies by binary
# decomposition above n = 3: the same matrix up to rounding).
@control_flow(numpy.linalg.matrix_power)
def matrix_power(a, n):
    if n < 0:
        b = numpy.linalg.inv(a)
    else:
        b = a
    p = numpy.zeros_like(b) + numpy.eye(numpy.shape(b)[-1], dtype=b.dtype)
    for _ in range(abs(n)):
        p = numpy.matmul(p, b)
    return p


# multi_dot: the chain of dot products from the left (NumPy picks the cheapest order:
# the same product up to rounding); a first or last 1-d array is a row or column vector,
# as dot takes it.
@control_flow(numpy.linalg.multi_dot)
def multi_dot(arrays, out=None):
    r = arrays[0]
    for k in range(1, len(arrays)):
        r = numpy.dot(r, arrays[k])
    return r


# cond: the ratio of the extreme singular values for p None, 2 or -2, else the norm of
# the matrix times that of its inverse, as NumPy computes it.
@control_flow(numpy.linalg.cond)
def cond(x, p=None):
    if p is None or p == 2 or p == -2:
        s = numpy.linalg.svd(x, compute_uv=False)
        if p == -2:
            r = s[..., -1] / s[..., 0]
        else:
            r = s[..., 0] / s[..., -1]
    else:
        r = (numpy.linalg.norm(x, p, axis=(-2, -1))
             * numpy.linalg.norm(numpy.linalg.inv(x), p, axis=(-2, -1)))
    return r
