# Rules for the runtime helpers of the NumPy and linalg rules (stdlib-shims/tangent/
# _grads_*.py, reached as `tangent.<name>`), so that generated derivatives
# that call them can be differentiated again:
# - forward rules (`@tangent_`) for the helpers that gradient code calls
#   (forward-over-reverse: Hessian-vector products, grad of grad);
# - reverse rules (`@adjoint`) for the helpers that forward code calls
#   (reverse-over-forward: grad of jvp).
# The rules are exact. A helper linear in its gradient argument whose other arguments
# enter only through shapes or locally constant masks/permutations gets the same helper
# applied to the tangent (`tangent.linear_tangent` turns a zero tangent into a zero of
# the right structure). Helpers that also depend on primal values (y = inv(a), the
# operands of a product, ...) get a product rule: `tangent.<helper>_tangent_full(...)`
# takes every tangent (a literal 0.0 for an inactive argument) and the primal values.
# Template conventions as in python.py.

nondifferentiable(
    tangent.hsplit_axis, tangent.negate_shift, tangent.clip_mask, tangent.method_axis,
    tangent.not_nan_mask, tangent.quantile_weights, tangent.quantile_q_refused,
    tangent.interp_slope_weights, tangent.interp_outside, tangent.interp_xp_refused,
    tangent.element_labels, tangent.gradient_spacing_refused, tangent.cov_weights_refused,
    tangent.histogram_range_refused, tangent.sources_labels, tangent.meshgrid_labels,
    tangent.broadcast_labels, tangent.partition_order, tangent.polyfit_options_refused,
    tangent.polyfit_x_refused, tangent.second_order_refused,
)


# --------------------------------------------------------- linear helpers (forward)

@tangent_(tangent.reshape_as)
def reshape_as(z, g, x):
    d[z] = tangent.linear_tangent(tangent.reshape_as, d[g], g, x)


@tangent_(tangent.transpose_method_grad)
def transpose_method_grad(z, g, axes):
    d[z] = tangent.linear_tangent(tangent.transpose_method_grad, d[g], g, axes)


@tangent_(tangent.permute_method_grad)
def permute_method_grad(z, g, dims):
    d[z] = tangent.linear_tangent(tangent.permute_method_grad, d[g], g, dims)


@tangent_(tangent.permute_method_tangent)
def permute_method_tangent(z, t, dims):
    d[z] = tangent.linear_tangent(tangent.permute_method_tangent, d[t], t, dims)


@adjoint(tangent.permute_method_tangent)
def permute_method_tangent_adjoint(z, t, dims):
    d[t] = tangent.permute_method_grad(d[z], dims)


@tangent_(tangent.repeat_method_grad)
def repeat_method_grad(z, g, x, repeats, axis=None):
    d[z] = tangent.linear_tangent(tangent.repeat_method_grad, d[g], g, x, repeats, axis)
    d[x] = 0.0


@tangent_(tangent.repeat_method_tangent)
def repeat_method_tangent(z, t, x, repeats, axis=None):
    d[z] = tangent.linear_tangent(tangent.repeat_method_tangent, d[t], t, x, repeats, axis)


@adjoint(tangent.repeat_method_tangent)
def repeat_method_tangent_adjoint(z, t, x, repeats, axis=None):
    d[t] = tangent.repeat_method_grad(d[z], x, repeats, axis)
    d[x] = 0.0


@tangent_(tangent.concatenate_grad)
def concatenate_grad(z, g, arrays, axis=0):
    d[z] = tangent.linear_tangent(tangent.concatenate_grad, d[g], g, arrays, axis)


@tangent_(tangent.stack_grad)
def stack_grad(z, g, arrays, axis=0):
    d[z] = tangent.linear_tangent(tangent.stack_grad, d[g], g, arrays, axis)


@tangent_(tangent.vstack_grad)
def vstack_grad(z, g, arrays):
    d[z] = tangent.linear_tangent(tangent.vstack_grad, d[g], g, arrays)
    d[arrays] = 0.0


@tangent_(tangent.hstack_grad)
def hstack_grad(z, g, arrays):
    d[z] = tangent.linear_tangent(tangent.hstack_grad, d[g], g, arrays)
    d[arrays] = 0.0


@tangent_(tangent.dstack_grad)
def dstack_grad(z, g, arrays):
    d[z] = tangent.linear_tangent(tangent.dstack_grad, d[g], g, arrays)
    d[arrays] = 0.0


@tangent_(tangent.column_stack_grad)
def column_stack_grad(z, g, arrays):
    d[z] = tangent.linear_tangent(tangent.column_stack_grad, d[g], g, arrays)
    d[arrays] = 0.0


@tangent_(tangent.split_grad)
def split_grad(z, g, x, axis=0):
    d[z] = tangent.linear_tangent(tangent.split_grad, d[g], g, x, axis)
    d[x] = 0.0


@tangent_(tangent.tile_grad)
def tile_grad(z, g, x, reps):
    d[z] = tangent.linear_tangent(tangent.tile_grad, d[g], g, x, reps)
    d[x] = 0.0


@tangent_(tangent.repeat_grad)
def repeat_grad(z, g, x, repeats, axis=None):
    d[z] = tangent.linear_tangent(tangent.repeat_grad, d[g], g, x, repeats, axis)
    d[x] = 0.0


@tangent_(tangent.pad_grad)
def pad_grad(z, g, x, pad_width, mode="constant"):
    d[z] = tangent.linear_tangent(tangent.pad_grad, d[g], g, x, pad_width, mode)
    d[x] = 0.0


@tangent_(tangent.pad_constant_grad)
def pad_constant_grad(z, g, x, pad_width):
    d[z] = tangent.linear_tangent(tangent.pad_constant_grad, d[g], g, x, pad_width)


@tangent_(tangent.cumsum_grad)
def cumsum_grad(z, g, x, axis=None):
    d[z] = tangent.linear_tangent(tangent.cumsum_grad, d[g], g, x, axis)
    d[x] = 0.0


# the masks of clip are locally constant in x, lo and hi
@tangent_(tangent.clip_grad)
def clip_grad(z, g, x, lo, hi, which, min=None, max=None):
    d[z] = tangent.linear_tangent(tangent.clip_grad, d[g], g, x, lo, hi, which, min, max)
    d[x] = 0.0
    d[lo] = 0.0
    d[hi] = 0.0


@tangent_(tangent.diagonal_grad)
def diagonal_grad(z, g, x, offset=0, axis1=0, axis2=1):
    d[z] = tangent.linear_tangent(tangent.diagonal_grad, d[g], g, x, offset, axis1, axis2)
    d[x] = 0.0


@tangent_(tangent.trace_grad)
def trace_grad(z, g, x, offset=0, axis1=0, axis2=1):
    d[z] = tangent.linear_tangent(tangent.trace_grad, d[g], g, x, offset, axis1, axis2)
    d[x] = 0.0


@tangent_(tangent.diag_grad)
def diag_grad(z, g, v, k=0):
    d[z] = tangent.linear_tangent(tangent.diag_grad, d[g], g, v, k)
    d[v] = 0.0


# the quantile weights are locally constant in x (q is never differentiated: the rules
# refuse it)
@tangent_(tangent.quantile_grad)
def quantile_grad(z, g, x, q, axis=None, keepdims=False, method="linear", skip_nan=False):
    d[z] = tangent.linear_tangent(tangent.quantile_grad, d[g], g, x, q, axis, keepdims, method,
                                  skip_nan)


# the extremum masks are locally constant in x
@tangent_(tangent.ptp_grad)
def ptp_grad(z, g, x, axis=None, keepdims=False):
    d[z] = tangent.linear_tangent(tangent.ptp_grad, d[g], g, x, axis, keepdims)


@tangent_(tangent.ptp_tangent)
def ptp_tangent(z, t, x, axis=None, keepdims=False):
    d[z] = tangent.linear_tangent(tangent.ptp_tangent, d[t], t, x, axis, keepdims)


# the sorting permutation is locally constant in x
@tangent_(tangent.sort_grad)
def sort_grad(z, g, x, axis=-1):
    d[z] = tangent.linear_tangent(tangent.sort_grad, d[g], g, x, axis)
    d[x] = 0.0


# ------------------------------------------------- product rules (forward)

# bilinear in (g, x): var_grad(g, x) = unreduce(g) * 2 (x - mean x) / (n - ddof)
@tangent_(tangent.var_grad)
def var_grad(z, g, x, axis=None, ddof=0, keepdims=False):
    d[z] = tangent.var_grad_tangent_full(d[g], d[x], g, x, axis, ddof, keepdims)


# std_scale(g, y, x, axis) = g / (2 y), x only through its element count
@tangent_(tangent.std_scale)
def std_scale(z, g, y, x, axis=None):
    d[z] = tangent.std_scale(d[g], y, x, axis) - 2.0 * tangent.std_scale(
        tangent.std_scale(g, y, x, axis) * d[y], y, x, axis)


@tangent_(tangent.prod_grad)
def prod_grad(z, g, x, axis=None, keepdims=False):
    d[z] = tangent.prod_grad_tangent_full(d[g], d[x], g, x, axis, keepdims)


@tangent_(tangent.cumprod_grad)
def cumprod_grad(z, g, x, axis=None):
    d[z] = tangent.cumprod_grad_tangent_full(d[g], d[x], g, x, axis)


@tangent_(tangent.inner_grad)
def inner_grad(z, g, a, b, which):
    d[z] = tangent.inner_grad_tangent_full(d[g], d[a], d[b], g, a, b, which)


@tangent_(tangent.outer_grad)
def outer_grad(z, g, a, b, which):
    d[z] = tangent.outer_grad_tangent_full(d[g], d[a], d[b], g, a, b, which)


@tangent_(tangent.tensordot_grad)
def tensordot_grad(z, g, a, b, axes, which):
    d[z] = tangent.tensordot_grad_tangent_full(d[g], d[a], d[b], g, a, b, axes, which)


@tangent_(tangent.einsum_grad)
def einsum_grad(z, g, subscripts, operands, i):
    d[z] = tangent.einsum_grad_tangent_full(d[g], d[operands], g, subscripts, operands, i)


# Forward rules of the gradients of `@` (zero-safe: the tangent of an inactive operand
# arrives as the literal 0.0, which matmul_grad_left/right cannot take)
@tangent_(tangent.matmul_grad_left)
def matmul_grad_left(z, g, a, b):
    d[z] = tangent.matmul_grad_tangent_full(d[g], d[a], d[b], g, a, b, 0)


@tangent_(tangent.matmul_grad_right)
def matmul_grad_right(z, g, a, b):
    d[z] = tangent.matmul_grad_tangent_full(d[g], d[a], d[b], g, a, b, 1)


@tangent_(tangent.inv_grad)
def inv_grad(z, g, y):
    d[z] = tangent.inv_grad_tangent_full(d[g], d[y], g, y)


@tangent_(tangent.det_grad)
def det_grad(z, g, y, a):
    d[z] = tangent.det_grad_tangent_full(d[g], d[y], d[a], g, y, a)


@tangent_(tangent.slogdet_grad)
def slogdet_grad(z, g, a):
    d[z] = tangent.slogdet_grad_tangent_full(d[g], d[a], g, a)


@tangent_(tangent.solve_grad)
def solve_grad(z, g, a, b, y, which):
    d[z] = tangent.solve_grad_tangent_full(d[g], d[a], d[y], g, a, b, y, which)
    d[b] = 0.0


@tangent_(tangent.norm_grad)
def norm_grad(z, g, x, y, ord=None, axis=None, keepdims=False, vector=False):
    d[z] = tangent.norm_grad_tangent_full(d[g], d[x], d[y], g, x, y, ord, axis, keepdims,
                                          vector)


@tangent_(tangent.cholesky_grad)
def cholesky_grad(z, g, y, upper=False):
    d[z] = tangent.cholesky_grad_tangent_full(d[g], d[y], g, y, upper)


@adjoint(tangent.sinc_derivative)
def sinc_derivative(z, x, k):
    d[x] = d[z] * tangent.sinc_derivative(x, k + 1)


@tangent_(tangent.sinc_derivative)
def sinc_derivative_tangent(z, x, k):
    d[z] = d[x] * tangent.sinc_derivative(x, k + 1)


@adjoint(tangent.i0_derivative)
def i0_derivative(z, x, k):
    d[x] = d[z] * tangent.i0_derivative(x, k + 1)


@tangent_(tangent.i0_derivative)
def i0_derivative_tangent(z, x, k):
    d[z] = d[x] * tangent.i0_derivative(x, k + 1)


@tangent_(tangent.lstsq_grad)
def lstsq_grad(z, gy, a, b, y, which=0):
    d[z] = tangent.second_order_refused("numpy.linalg.lstsq", d[gy], d[a], d[b], d[y])


@adjoint(tangent.lstsq_tangent)
def lstsq_tangent_adjoint(z, ta, tb, a, b, y):
    d[ta] = tangent.second_order_refused("numpy.linalg.lstsq", d[z])
    d[tb] = tangent.second_order_refused("numpy.linalg.lstsq", d[z])
    d[a] = tangent.second_order_refused("numpy.linalg.lstsq", d[z])
    d[b] = tangent.second_order_refused("numpy.linalg.lstsq", d[z])
    d[y] = tangent.second_order_refused("numpy.linalg.lstsq", d[z])


# eig's and eigvals' helpers: their own derivatives (second derivatives of eig) are
# refused where they would run.
@tangent_(tangent.eig_grad)
def eig_grad(z, gy, y):
    d[z] = tangent.second_order_refused("numpy.linalg.eig", d[gy], d[y])


@adjoint(tangent.eig_tangent)
def eig_tangent_adjoint(z, t, y):
    d[t] = tangent.second_order_refused("numpy.linalg.eig", d[z])
    d[y] = tangent.second_order_refused("numpy.linalg.eig", d[z])


@tangent_(tangent.eigvals_grad)
def eigvals_grad(z, g, a, y):
    d[z] = tangent.second_order_refused("numpy.linalg.eigvals", d[g], d[a], d[y])


@adjoint(tangent.eigvals_tangent)
def eigvals_tangent_adjoint(z, t, a, y):
    d[t] = tangent.second_order_refused("numpy.linalg.eig", d[z])
    d[a] = tangent.second_order_refused("numpy.linalg.eig", d[z])
    d[y] = tangent.second_order_refused("numpy.linalg.eig", d[z])


@tangent_(tangent.eigh_grad)
def eigh_grad(z, gy, y):
    d[z] = tangent.eigh_grad_tangent_full(d[gy], d[y], gy, y)


@tangent_(tangent.eigvalsh_grad)
def eigvalsh_grad(z, g, a, uplo="L"):
    d[z] = tangent.eigvalsh_grad_tangent_full(d[g], d[a], g, a, uplo)


# gathers and stencils: linear in the gradient, the labels and shapes constant
@tangent_(tangent.gather_grad)
def gather_grad(z, g, x, picked, source=0):
    d[z] = tangent.linear_tangent(tangent.gather_grad, d[g], g, x, picked, source)
    d[x] = 0.0


@tangent_(tangent.block_grad)
def block_grad(z, g, arrays):
    d[z] = tangent.linear_tangent(tangent.block_grad, d[g], g, arrays)
    d[arrays] = 0.0


@tangent_(tangent.diff_grad)
def diff_grad(z, g, a, n=1, axis=-1, prepend=None, append=None, which=0):
    d[z] = tangent.linear_tangent(tangent.diff_grad, d[g], g, a, n, axis, prepend, append,
                                  which)
    d[a] = 0.0
    d[prepend] = 0.0
    d[append] = 0.0


@tangent_(tangent.gradient_grad)
def gradient_grad(z, g, f, varargs, axis=None, edge_order=1):
    d[z] = tangent.linear_tangent(tangent.gradient_grad, d[g], g, f, varargs, axis,
                                  edge_order)
    d[f] = 0.0


@tangent_(tangent.trapezoid_grad)
def trapezoid_grad(z, g, y, x=None, dx=1.0, axis=-1, which=0):
    d[z] = tangent.trapezoid_grad_tangent_full(d[g], d[y], d[x], d[dx], g, y, x, dx, axis,
                                               which)


# products and polynomials
@tangent_(tangent.kron_grad)
def kron_grad(z, g, a, b, which):
    d[z] = tangent.kron_grad_tangent_full(d[g], d[a], d[b], g, a, b, which)


@tangent_(tangent.cross_grad)
def cross_grad(z, g, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None, which=0):
    d[z] = tangent.cross_grad_tangent_full(d[g], d[a], d[b], g, a, b, axisa, axisb, axisc,
                                           axis, which)


@tangent_(tangent.convolve_grad)
def convolve_grad(z, g, a, v, mode="full", which=0):
    d[z] = tangent.convolve_grad_tangent_full(d[g], d[a], d[v], g, a, v, mode, which)


@tangent_(tangent.correlate_grad)
def correlate_grad(z, g, a, v, mode="valid", which=0):
    d[z] = tangent.correlate_grad_tangent_full(d[g], d[a], d[v], g, a, v, mode, which)


@tangent_(tangent.polyval_grad)
def polyval_grad(z, g, p, x, which):
    d[z] = tangent.polyval_grad_tangent_full(d[g], d[p], d[x], g, p, x, which)


@tangent_(tangent.polyder_grad)
def polyder_grad(z, g, p, m=1):
    d[z] = tangent.linear_tangent(tangent.polyder_grad, d[g], g, p, m)
    d[p] = 0.0


# tensorinv and tensorsolve
@tangent_(tangent.tensorinv_grad)
def tensorinv_grad(z, g, a, y, ind=2):
    d[z] = tangent.tensorinv_grad_tangent_full(d[g], d[y], g, a, y, ind)
    d[a] = 0.0


@tangent_(tangent.tensorsolve_grad)
def tensorsolve_grad(z, g, a, b, x, axes=None, which=0):
    d[z] = tangent.tensorsolve_grad_tangent_full(d[g], d[a], d[x], g, a, b, x, axes, which)
    d[b] = 0.0


# average and cov
@tangent_(tangent.average_grad)
def average_grad(z, g, a, axis=None, weights=None, returned=False, keepdims=False, which=0):
    d[z] = tangent.average_grad_tangent_full(d[g], d[a], d[weights], g, a, axis, weights,
                                             returned, keepdims, which)


@tangent_(tangent.cov_grad)
def cov_grad(z, g, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
             aweights=None, which=0):
    d[z] = tangent.cov_grad_tangent_full(d[g], d[m], d[y], g, m, y, rowvar, bias, ddof,
                                         fweights, aweights, which)


@tangent_(tangent.unique_grad)
def unique_grad(z, g, ar, return_index=False, return_inverse=False, return_counts=False,
                axis=None, equal_nan=True):
    d[z] = tangent.linear_tangent(tangent.unique_grad, d[g], g, ar, return_index,
                                  return_inverse, return_counts, axis, equal_nan)
    d[ar] = 0.0


@tangent_(tangent.histogram_grad)
def histogram_grad(z, g, a, bins=10, range=None, density=None, weights=None, which=0):
    d[z] = tangent.histogram_grad_tangent_full(d[g], g, a, bins, range, density, weights,
                                               which)
    d[a] = 0.0
    d[weights] = 0.0
    d[bins] = 0.0


@tangent_(tangent.gather_grads)
def gather_grads(z, g, sources, picked):
    d[z] = tangent.linear_tangent(tangent.gather_grads, d[g], g, sources, picked)
    d[sources] = 0.0


@tangent_(tangent.unstack_grad)
def unstack_grad(z, g, x, axis=0):
    d[z] = tangent.linear_tangent(tangent.unstack_grad, d[g], g, x, axis)
    d[x] = 0.0


@tangent_(tangent.drop_initial)
def drop_initial(z, g, x, axis=None, include_initial=False):
    d[z] = tangent.linear_tangent(tangent.drop_initial, d[g], g, x, axis, include_initial)
    d[x] = 0.0


@tangent_(tangent.vdot_grad)
def vdot_grad(z, g, a, b, which):
    d[z] = tangent.vdot_grad_tangent_full(d[g], d[a], d[b], g, a, b, which)


@tangent_(tangent.vecdot_grad)
def vecdot_grad(z, g, a, b, axis=-1, which=0):
    d[z] = tangent.vecdot_grad_tangent_full(d[g], d[a], d[b], g, a, b, axis, which)


@tangent_(tangent.matvec_grad)
def matvec_grad(z, g, a, b, which):
    d[z] = tangent.matvec_grad_tangent_full(d[g], d[a], d[b], g, a, b, which)


@tangent_(tangent.vecmat_grad)
def vecmat_grad(z, g, a, b, which):
    d[z] = tangent.vecmat_grad_tangent_full(d[g], d[a], d[b], g, a, b, which)


@tangent_(tangent.choose_grad)
def choose_grad(z, g, a, choices, mode="raise"):
    d[z] = tangent.linear_tangent(tangent.choose_grad, d[g], g, a, choices, mode)
    d[choices] = 0.0


@tangent_(tangent.select_grad)
def select_grad(z, g, condlist, choicelist, default=0, which=0):
    d[z] = tangent.linear_tangent(tangent.select_grad, d[g], g, condlist, choicelist, default,
                                  which)
    d[choicelist] = 0.0
    d[default] = 0.0


@tangent_(tangent.unique_result_grad)
def unique_result_grad(z, g, x, y, structured=False):
    d[z] = tangent.linear_tangent(tangent.unique_result_grad, d[g], g, x, y, structured)
    d[x] = 0.0
    d[y] = 0.0


@tangent_(tangent.ediff1d_grad)
def ediff1d_grad(z, g, ary, to_end=None, to_begin=None, which=0):
    d[z] = tangent.linear_tangent(tangent.ediff1d_grad, d[g], g, ary, to_end, to_begin, which)
    d[ary] = 0.0
    d[to_end] = 0.0
    d[to_begin] = 0.0


@tangent_(tangent.divmod_grad)
def divmod_grad(z, g, x1, x2, which=0):
    d[z] = tangent.linear_tangent(tangent.divmod_grad, d[g], g, x1, x2, which)
    d[x1] = 0.0
    d[x2] = 0.0


@tangent_(tangent.trim_zeros_grad)
def trim_zeros_grad(z, g, filt, trim="fb", axis=None):
    d[z] = tangent.linear_tangent(tangent.trim_zeros_grad, d[g], g, filt, trim, axis)
    d[filt] = 0.0


@tangent_(tangent.modf_grad)
def modf_grad(z, g, x):
    d[z] = tangent.linear_tangent(tangent.modf_grad, d[g], g, x)
    d[x] = 0.0


@tangent_(tangent.frexp_grad)
def frexp_grad(z, g, x):
    d[z] = tangent.linear_tangent(tangent.frexp_grad, d[g], g, x)
    d[x] = 0.0


@tangent_(tangent.edges_cotangent)
def edges_cotangent(z, g):
    d[z] = tangent.linear_tangent(tangent.edges_cotangent, d[g], g)


@tangent_(tangent.polyadd_grad)
def polyadd_grad(z, g, a1, a2, which=0, sign=1.0):
    d[z] = tangent.linear_tangent(tangent.polyadd_grad, d[g], g, a1, a2, which, sign)
    d[a1] = 0.0
    d[a2] = 0.0


@tangent_(tangent.polymul_grad)
def polymul_grad(z, g, a1, a2, which=0):
    d[z] = tangent.polymul_grad_tangent_full(d[g], d[a1], d[a2], g, a1, a2, which)


@tangent_(tangent.polyint_grad)
def polyint_grad(z, g, p, m=1):
    d[z] = tangent.linear_tangent(tangent.polyint_grad, d[g], g, p, m)
    d[p] = 0.0


@tangent_(tangent.vander_grad)
def vander_grad(z, g, x, N=None, increasing=False, order=1):
    d[z] = tangent.vander_grad_tangent_full(d[g], d[x], g, x, N, increasing, order)


@tangent_(tangent.polyfit_grad)
def polyfit_grad(z, g, x, y, deg, rcond=None, w=None):
    d[z] = tangent.linear_tangent(tangent.polyfit_grad, d[g], g, x, y, deg, rcond, w)
    d[y] = 0.0


# ------------------------------------------ reverse rules of forward-mode helpers

@adjoint(tangent.bilinear_tangent)
def bilinear_tangent_adjoint(z, f, ta, a, tb, b, *args):
    d[ta] = tangent.bilinear_grad(d[z], f, a, b, 0, args)
    d[tb] = tangent.bilinear_grad(d[z], f, a, b, 1, args)
    d[a] = tangent.bilinear_tangent_grad(d[z], f, ta, a, tb, b, 0, args)
    d[b] = tangent.bilinear_tangent_grad(d[z], f, ta, a, tb, b, 1, args)


@adjoint(tangent.einsum_tangent)
def einsum_tangent_adjoint(z, subscripts, operands, ta, tb, tc, te):
    d[ta] = tangent.einsum_grad(d[z], subscripts, operands, 0)
    d[tb] = tangent.einsum_grad(d[z], subscripts, operands, 1)
    d[tc] = tangent.einsum_grad(d[z], subscripts, operands, 2)
    d[te] = tangent.einsum_grad(d[z], subscripts, operands, 3)
    d[operands] = tangent.einsum_tangent_grad_operands(d[z], subscripts, operands, ta, tb, tc, te)


@adjoint(tangent.transpose_method_tangent)
def transpose_method_tangent_adjoint(z, t, axes):
    d[t] = tangent.transpose_method_grad(d[z], axes)


@adjoint(tangent.pad_tangent)
def pad_tangent_adjoint(z, t, tc, x, pad_width, mode="constant"):
    d[t] = tangent.pad_grad(d[z], x, pad_width, mode)
    d[tc] = tangent.pad_constant_grad(d[z], x, pad_width)
    d[x] = 0.0


@adjoint(tangent.quantile_tangent)
def quantile_tangent_adjoint(z, t, x, q, axis=None, keepdims=False, method="linear",
                             skip_nan=False):
    d[t] = tangent.quantile_grad(d[z], x, q, axis, keepdims, method, skip_nan)
    d[x] = 0.0


@adjoint(tangent.sort_tangent)
def sort_tangent_adjoint(z, t, x, axis=-1):
    d[t] = tangent.sort_grad(d[z], x, axis)
    d[x] = 0.0


@adjoint(tangent.var_tangent)
def var_tangent_adjoint(z, t, x, axis=None, ddof=0, keepdims=False):
    d[t] = tangent.var_grad(d[z], x, axis, ddof, keepdims)
    d[x] = tangent.var_grad(d[z], t, axis, ddof, keepdims)


@adjoint(tangent.var_grad)
def var_grad_adjoint(z, g, x, axis=None, ddof=0, keepdims=False):
    d[g] = tangent.var_tangent(d[z], x, axis, ddof, keepdims)
    d[x] = tangent.var_grad_grad_x(d[z], g, x, axis, ddof, keepdims)


@adjoint(tangent.ptp_grad)
def ptp_grad_adjoint(z, g, x, axis=None, keepdims=False):
    d[g] = tangent.ptp_tangent(d[z], x, axis, keepdims)
    d[x] = 0.0


@adjoint(tangent.ptp_tangent)
def ptp_tangent_adjoint(z, t, x, axis=None, keepdims=False):
    d[t] = tangent.ptp_grad(d[z], x, axis, keepdims)
    d[x] = 0.0


@adjoint(tangent.std_scale)
def std_scale_adjoint(z, g, y, x, axis=None):
    d[g] = tangent.std_scale(d[z], y, x, axis)
    d[y] = -2.0 * tangent.std_scale(tangent.std_scale(g, y, x, axis) * d[z], y, x, axis)
    d[x] = 0.0


@adjoint(tangent.prod_tangent)
def prod_tangent_adjoint(z, t, x, axis=None, keepdims=False):
    d[t] = tangent.prod_grad(d[z], x, axis, keepdims)
    d[x] = tangent.prod_tangent_grad_x(d[z], t, x, axis, keepdims)


@adjoint(tangent.cumprod_tangent)
def cumprod_tangent_adjoint(z, t, x, axis=None):
    d[t] = tangent.cumprod_grad(d[z], x, axis)
    d[x] = tangent.cumprod_tangent_grad_x(d[z], t, x, axis)


@adjoint(tangent.inv_tangent)
def inv_tangent_adjoint(z, t, y):
    d[t] = tangent.inv_grad(d[z], y)
    d[y] = tangent.inv_tangent_grad_y(d[z], t, y)


@adjoint(tangent.det_tangent)
def det_tangent_adjoint(z, t, y, a):
    d[t] = tangent.det_grad(d[z], y, a)
    d[y] = tangent.det_tangent_grad(d[z], t, y, a, 1)
    d[a] = tangent.det_tangent_grad(d[z], t, y, a, 2)


@adjoint(tangent.slogdet_tangent)
def slogdet_tangent_adjoint(z, t, y, a):
    d[t] = tangent.slogdet_grad(tangent.grad_item(d[z], 1), a)
    d[a] = tangent.slogdet_tangent_grad_a(tangent.grad_item(d[z], 1), t, a)
    d[y] = 0.0


@adjoint(tangent.solve_tangent)
def solve_tangent_adjoint(z, ta, tb, a, b, y):
    d[ta] = tangent.solve_grad(d[z], a, b, y, 0)
    d[tb] = tangent.solve_grad(d[z], a, b, y, 1)
    d[a] = tangent.solve_grad(d[z], a, b, z, 0)
    d[y] = tangent.solve_tangent_grad_y(d[z], ta, a, b, y)
    d[b] = 0.0


@adjoint(tangent.norm_tangent)
def norm_tangent_adjoint(z, t, x, y, ord=None, axis=None, keepdims=False, vector=False):
    d[t] = tangent.norm_grad(d[z], x, y, ord, axis, keepdims, vector)
    d[x] = tangent.norm_tangent_grad(d[z], t, x, y, ord, axis, keepdims, 0, vector)
    d[y] = tangent.norm_tangent_grad(d[z], t, x, y, ord, axis, keepdims, 1, vector)


@adjoint(tangent.cholesky_tangent)
def cholesky_tangent_adjoint(z, t, y, upper=False):
    d[t] = tangent.cholesky_grad(d[z], y, upper)
    d[y] = tangent.cholesky_tangent_grad_y(d[z], t, y, upper)


@adjoint(tangent.eigh_tangent)
def eigh_tangent_adjoint(z, t, y):
    d[t] = tangent.eigh_grad(d[z], y)
    d[y] = tangent.eigh_tangent_grad_y(d[z], t, y)


@adjoint(tangent.eigvalsh_tangent)
def eigvalsh_tangent_adjoint(z, t, a, uplo="L"):
    d[t] = tangent.eigvalsh_grad(d[z], a, uplo)
    d[a] = tangent.eigvalsh_tangent_grad_a(d[z], t, a, uplo)


@tangent_(tangent.svd_grad)
def svd_grad(z, gy, y, a, full_matrices=True, compute_uv=True):
    d[z] = tangent.svd_grad_tangent_full(d[gy], d[y], d[a], gy, y, a, full_matrices, compute_uv)


@adjoint(tangent.svd_tangent)
def svd_tangent_adjoint(z, t, y, a, full_matrices=True, compute_uv=True):
    d[t] = tangent.svd_grad(d[z], y, a, full_matrices, compute_uv)
    d[y] = tangent.svd_tangent_grad(d[z], t, y, a, full_matrices, compute_uv, 0)
    d[a] = tangent.svd_tangent_grad(d[z], t, y, a, full_matrices, compute_uv, 1)


@tangent_(tangent.qr_grad)
def qr_grad(z, gy, y, a, mode="reduced"):
    d[z] = tangent.qr_grad_tangent_full(d[gy], d[y], gy, y, a, mode)
    d[a] = 0.0


@adjoint(tangent.qr_tangent)
def qr_tangent_adjoint(z, t, y, a, mode="reduced"):
    d[t] = tangent.qr_grad(d[z], y, a, mode)
    d[y] = tangent.qr_tangent_grad(d[z], t, y, a, mode, 0)
    d[a] = 0.0



# --------------------------------------------------------- scipy.special helpers

# xlogy_dy(x, y) is x / y, continued by 0 at x == 0 (where x / y -> 0 as well).
@adjoint(tangent.xlogy_dy)
def xlogy_dy(z, x, y):
    d[x] = tangent.unbroadcast(d[z] / y, x)
    d[y] = tangent.unbroadcast(-d[z] * tangent.xlogy_dy(x, y) / y, y)


@tangent_(tangent.xlogy_dy)
def xlogy_dy_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] / y - d[y] * tangent.xlogy_dy(x, y) / y, z)


# ----------------------------------- constructors whose values are their arguments

@tangent_(tangent.linspace_grad)
def linspace_grad_tangent(z, g, end, num, endpoint, retstep, axis, which):
    d[z] = tangent.linear_tangent(tangent.linspace_grad, d[g], g, end, num, endpoint, retstep, axis, which)


@tangent_(tangent.arange_step_grad)
def arange_step_grad_tangent(z, g, step):
    d[z] = tangent.linear_tangent(tangent.arange_step_grad, d[g], g, step)


@adjoint(tangent.linspace_grad)
def linspace_grad_adjoint(z, g, end, num, endpoint, retstep, axis, which):
    d[g] = tangent.linspace_grad_adjoint(d[z], g, num, endpoint, retstep, axis, which)
    d[end] = 0.0


@adjoint(tangent.arange_step_grad)
def arange_step_grad_adjoint(z, g, step):
    d[g] = tangent.arange_tangent(0.0, d[z], g)
    d[step] = 0.0


@adjoint(tangent.linspace_tangent)
def linspace_tangent_adjoint(z, t_start, t_stop, y, num, endpoint, retstep, axis):
    d[t_start] = tangent.linspace_grad(d[z], t_start, num, endpoint, retstep, axis, 0)
    d[t_stop] = tangent.linspace_grad(d[z], t_stop, num, endpoint, retstep, axis, 1)
    d[y] = 0.0


@adjoint(tangent.arange_tangent)
def arange_tangent_adjoint(z, t_start, t_step, y):
    d[t_start] = tangent.unbroadcast(d[z], t_start)
    d[t_step] = tangent.arange_step_grad(d[z], t_step)
    d[y] = 0.0


# ------------------------------------------------------------------- interp weights

# interp(x, xp, fp) = interp_weights(x, xp) @ fp: the weights move with x by the slope
# weights of x's segment (constant in x between the knots, nothing outside them), so
# the derivative with respect to fp stays differentiable in x (the mixed second
# derivative of interp(a, xp, a)).
@tangent_(tangent.interp_weights)
def interp_weights_tangent(w, x, knots, n, left=None, right=None):
    d[w] = numpy.expand_dims(d[x], -1) * tangent.interp_slope_weights(x, knots)


@adjoint(tangent.interp_weights)
def interp_weights_adjoint(w, x, knots, n, left=None, right=None):
    d[x] = tangent.unbroadcast(
        numpy.sum(d[w] * tangent.interp_slope_weights(x, knots), axis=-1), x)
    d[left] = 0.0  # whether it is given decides the weights outside the knots
    d[right] = 0.0


# --------------------- reverse rules of gradient helpers (literal reverse-over-reverse)

# Each of these helpers is linear in its gradient argument g (the others enter through
# shapes or locally constant weights): its adjoint is the transposed map.
@adjoint(tangent.quantile_grad)
def quantile_grad_adjoint(z, g, x, q, axis=None, keepdims=False, method="linear",
                          skip_nan=False):
    d[g] = tangent.quantile_tangent(d[z], x, q, axis, keepdims, method, skip_nan)
    d[x] = 0.0


@adjoint(tangent.reshape_as)
def reshape_as_adjoint(z, g, x):
    d[g] = tangent.reshape_as(d[z], g)
    d[x] = 0.0


@tangent_(tangent.cast_like)
def cast_like(z, v, like):
    d[z] = tangent.linear_tangent(tangent.cast_like, d[v], v, like)


@adjoint(tangent.cast_like)
def cast_like_adjoint(z, v, like):
    d[v] = tangent.cast_like(d[z], v)
    d[like] = 0.0


@adjoint(tangent.concatenate_grad)
def concatenate_grad_adjoint(z, g, arrays, axis=0):
    d[g] = numpy.concatenate(d[z], axis)
    d[arrays] = 0.0


@adjoint(tangent.stack_grad)
def stack_grad_adjoint(z, g, arrays, axis=0):
    d[g] = numpy.stack(d[z], axis)
    d[arrays] = 0.0


@adjoint(tangent.pair_tangent)
def pair_tangent_adjoint(z, t, x):
    d[t] = d[z]
    d[x] = 0.0


@adjoint(tangent.block_tangent)
def block_tangent_adjoint(z, tangents, arrays):
    d[tangents] = d[z]
    d[arrays] = 0.0


@adjoint(tangent.diff_tangent)
def diff_tangent_adjoint(z, ta, tp, tq, a, n=1, axis=-1, prepend=None, append=None):
    d[ta] = tangent.diff_grad(d[z], a, n, axis, prepend, append, 0)
    d[tp] = tangent.diff_grad(d[z], a, n, axis, prepend, append, 1)
    d[tq] = tangent.diff_grad(d[z], a, n, axis, prepend, append, 2)
    d[a] = 0.0
    d[append] = 0.0
    d[prepend] = 0.0


@adjoint(tangent.gradient_tangent)
def gradient_tangent_adjoint(z, t, f, varargs, axis=None, edge_order=1):
    d[t] = tangent.gradient_grad(d[z], f, varargs, axis, edge_order)
    d[f] = 0.0


@adjoint(tangent.trapezoid_tangent)
def trapezoid_tangent_adjoint(z, ty, tx, tdx, y, x=None, dx=1.0, axis=-1):
    d[ty] = tangent.trapezoid_grad(d[z], y, x, dx, axis, 0)
    d[tx] = tangent.trapezoid_grad(d[z], y, x, dx, axis, 1)
    d[tdx] = tangent.trapezoid_grad(d[z], y, x, dx, axis, 2)
    d[y] = tangent.trapezoid_tangent_grad(d[z], ty, tx, tdx, y, x, dx, axis, 0)
    d[x] = tangent.trapezoid_tangent_grad(d[z], ty, tx, tdx, y, x, dx, axis, 1)
    d[dx] = tangent.trapezoid_tangent_grad(d[z], ty, tx, tdx, y, x, dx, axis, 2)


@adjoint(tangent.polyval_tangent)
def polyval_tangent_adjoint(z, tp, tx, p, x):
    d[tp] = tangent.polyval_grad(d[z], p, x, 0)
    d[tx] = tangent.polyval_grad(d[z], p, x, 1)
    d[p] = tangent.polyval_tangent_grad(d[z], tp, tx, p, x, 0)
    d[x] = tangent.polyval_tangent_grad(d[z], tp, tx, p, x, 1)


@adjoint(tangent.tensorinv_tangent)
def tensorinv_tangent_adjoint(z, t, a, y, ind=2):
    d[t] = tangent.tensorinv_grad(d[z], a, y, ind)
    d[y] = tangent.tensorinv_tangent_grad_y(d[z], t, a, y, ind)
    d[a] = 0.0


@adjoint(tangent.tensorsolve_tangent)
def tensorsolve_tangent_adjoint(z, ta, tb, a, b, x, axes=None):
    d[ta] = tangent.tensorsolve_grad(d[z], a, b, x, axes, 0)
    d[tb] = tangent.tensorsolve_grad(d[z], a, b, x, axes, 1)
    d[a] = tangent.tensorsolve_grad(d[z], a, b, z, axes, 0)
    d[x] = tangent.tensorsolve_tangent_grad_x(d[z], ta, a, b, x, axes)
    d[b] = 0.0


@adjoint(tangent.average_tangent)
def average_tangent_adjoint(z, ta, tw, a, axis=None, weights=None, returned=False,
                            keepdims=False):
    d[ta] = tangent.average_grad(d[z], a, axis, weights, returned, keepdims, 0)
    d[tw] = tangent.average_grad(d[z], a, axis, weights, returned, keepdims, 1)
    d[a] = tangent.average_tangent_grad(d[z], ta, tw, a, axis, weights, returned, keepdims, 0)
    d[weights] = tangent.average_tangent_grad(d[z], ta, tw, a, axis, weights, returned,
                                              keepdims, 1)


@adjoint(tangent.cov_tangent)
def cov_tangent_adjoint(z, tm, ty, m, y=None, rowvar=True, bias=False, ddof=None,
                        fweights=None, aweights=None):
    d[tm] = tangent.cov_grad(d[z], m, y, rowvar, bias, ddof, fweights, aweights, 0)
    d[ty] = tangent.cov_grad(d[z], m, y, rowvar, bias, ddof, fweights, aweights, 1)
    d[m] = tangent.cov_tangent_grad(d[z], tm, ty, m, y, rowvar, bias, ddof, fweights,
                                    aweights, 0)
    d[y] = tangent.cov_tangent_grad(d[z], tm, ty, m, y, rowvar, bias, ddof, fweights,
                                    aweights, 1)


@adjoint(tangent.unique_tangent)
def unique_tangent_adjoint(z, t, ar, return_index=False, return_inverse=False,
                           return_counts=False, axis=None, equal_nan=True):
    d[t] = tangent.unique_grad(d[z], ar, return_index, return_inverse, return_counts, axis,
                               equal_nan)
    d[ar] = 0.0


@adjoint(tangent.histogram_tangent)
def histogram_tangent_adjoint(z, ta, tw, tb, a, bins=10, range=None, density=None,
                              weights=None):
    d[ta] = tangent.histogram_grad(d[z], a, bins, range, density, weights, 0)
    d[tw] = tangent.histogram_grad(d[z], a, bins, range, density, weights, 1)
    d[tb] = tangent.histogram_grad(d[z], a, bins, range, density, weights, 2)
    d[a] = tangent.histogram_tangent_grad(d[z], ta, tw, tb, a, bins, range, density, weights, 0)
    d[weights] = tangent.histogram_tangent_grad(d[z], ta, tw, tb, a, bins, range, density,
                                                weights, 1)
    d[bins] = tangent.histogram_tangent_grad(d[z], ta, tw, tb, a, bins, range, density,
                                             weights, 2)


@adjoint(tangent.partition_picked)
def partition_picked_adjoint(z, labels, order, axis=-1):
    d[labels] = tangent.gather_grad(d[z], labels, tangent.partition_picked(
        tangent.element_labels(labels), order, axis))


@adjoint(tangent.meshgrid_tangent)
def meshgrid_tangent_adjoint(z, ts, xi, indexing="xy", sparse=False):
    d[ts] = tangent.gather_grads(d[z], xi, tangent.meshgrid_labels(xi, indexing, sparse))
    d[xi] = 0.0


@adjoint(tangent.broadcast_tangent)
def broadcast_tangent_adjoint(z, ts, args):
    d[ts] = tangent.gather_grads(d[z], args, tangent.broadcast_labels(args))
    d[args] = 0.0


@adjoint(tangent.add_initial)
def add_initial_adjoint(z, t, x, axis=None, include_initial=False):
    d[t] = tangent.drop_initial(d[z], x, axis, include_initial)
    d[x] = 0.0


@adjoint(tangent.choose_tangent)
def choose_tangent_adjoint(z, t, a, choices, mode="raise"):
    d[t] = tangent.choose_grad(d[z], a, choices, mode)
    d[choices] = 0.0


@adjoint(tangent.select_tangent)
def select_tangent_adjoint(z, ts, tdefault, condlist, choicelist, default=0):
    d[ts] = tangent.select_grad(d[z], condlist, choicelist, default, 0)
    d[tdefault] = tangent.select_grad(d[z], condlist, choicelist, default, 1)
    d[choicelist] = 0.0
    d[default] = 0.0


@adjoint(tangent.unique_result_tangent)
def unique_result_tangent_adjoint(z, t, x, y, structured=False):
    d[t] = tangent.unique_result_grad(d[z], x, y, structured)
    d[x] = 0.0
    d[y] = 0.0


@adjoint(tangent.ediff1d_tangent)
def ediff1d_tangent_adjoint(z, ta, te, tb, ary, to_end=None, to_begin=None):
    d[ta] = tangent.ediff1d_grad(d[z], ary, to_end, to_begin, 0)
    d[te] = tangent.ediff1d_grad(d[z], ary, to_end, to_begin, 1)
    d[tb] = tangent.ediff1d_grad(d[z], ary, to_end, to_begin, 2)
    d[ary] = 0.0
    d[to_begin] = 0.0
    d[to_end] = 0.0


@adjoint(tangent.trim_zeros_tangent)
def trim_zeros_tangent_adjoint(z, t, filt, trim="fb", axis=None):
    d[t] = tangent.trim_zeros_grad(d[z], filt, trim, axis)
    d[filt] = 0.0


@adjoint(tangent.modf_tangent)
def modf_tangent_adjoint(z, t, x):
    d[t] = tangent.modf_grad(d[z], x)
    d[x] = 0.0


@adjoint(tangent.frexp_tangent)
def frexp_tangent_adjoint(z, t, x):
    d[t] = tangent.frexp_grad(d[z], x)
    d[x] = 0.0


@adjoint(tangent.divmod_tangent)
def divmod_tangent_adjoint(z, t1, t2, x1, x2):
    d[t1] = tangent.divmod_grad(d[z], x1, x2, 0)
    d[t2] = tangent.divmod_grad(d[z], x1, x2, 1)
    d[x1] = 0.0
    d[x2] = 0.0


@adjoint(tangent.histogram_edges_tangent)
def histogram_edges_tangent_adjoint(z, ta, tw, tb, a, bins=10, range=None, weights=None):
    d[ta] = tangent.histogram_grad(tangent.edges_cotangent(d[z]), a, bins, range, False,
                                   weights, 0)
    d[tb] = tangent.histogram_grad(tangent.edges_cotangent(d[z]), a, bins, range, False,
                                   weights, 2)
    d[a] = tangent.histogram_tangent_grad(d[z], ta, tw, tb, a, bins, range, False, weights, 0)
    d[bins] = tangent.histogram_tangent_grad(d[z], ta, tw, tb, a, bins, range, False, weights,
                                             2)


@adjoint(tangent.poly_pair_tangent)
def poly_pair_tangent_adjoint(z, t1, t2, a1, a2, sign=1.0):
    d[t1] = tangent.polyadd_grad(d[z], a1, a2, 0, sign)
    d[t2] = tangent.polyadd_grad(d[z], a1, a2, 1, sign)
    d[a1] = 0.0
    d[a2] = 0.0


@adjoint(tangent.vander_tangent)
def vander_tangent_adjoint(z, t, x, N=None, increasing=False):
    d[t] = tangent.vander_grad(d[z], x, N, increasing, 1)
    d[x] = tangent.vander_tangent_grad_x(d[z], t, x, N, increasing)


# numpy.fft's gradients (tangent._grads_complex): linear in the gradient, the input
# entering through its shape and dtype only; the adjoint of a transform's adjoint is the
# transform.
@tangent_(tangent.fft_grad)
def fft_grad(z, g, a, kind, s=None, axes=None, norm=None):
    d[z] = tangent.linear_tangent(tangent.fft_grad, d[g], g, a, kind, s, axes, norm)
    d[a] = 0.0


@adjoint(tangent.fft_grad)
def fft_grad_adjoint(z, g, a, kind, s=None, axes=None, norm=None):
    d[g] = tangent.array_grad(tangent.fft_apply(d[z], kind, s, axes, norm), g)
    d[a] = 0.0


@tangent_(tangent.fft_apply)
def fft_apply(z, v, kind, s=None, axes=None, norm=None):
    d[z] = tangent.linear_tangent(tangent.fft_apply, d[v], v, kind, s, axes, norm)


@adjoint(tangent.fft_apply)
def fft_apply_adjoint(z, v, kind, s=None, axes=None, norm=None):
    d[v] = tangent.fft_grad(d[z], v, kind, s, axes, norm)


# tangent.sign, the derivative factor of abs: piecewise constant for real numbers, and
# conj(z) / |z| for a complex z, whose derivative is not zero (tangent._grads_complex).
@tangent_(tangent.sign)
def sign(y, x):
    d[y] = tangent.sign_tangent(d[x], x)


@adjoint(tangent.sign)
def sign_adjoint(y, x):
    d[x] = tangent.sign_grad(d[y], x)


# numpy.angle's helpers: -i g / z and Im(t / z), products of their first argument and
# the holomorphic 1 / z (zero for a real z).
@tangent_(tangent.angle_grad)
def angle_grad(z_, g, z, deg=False):
    d[z_] = tangent.angle_grad_tangent_full(d[g], d[z], g, z, deg)


@adjoint(tangent.angle_grad)
def angle_grad_adjoint(z_, g, z, deg=False):
    d[g] = tangent.array_grad(tangent.angle_grad(d[z_], z, deg), g)
    d[z] = tangent.angle_grad_adjoint_z(d[z_], g, z, deg)


@tangent_(tangent.angle_tangent)
def angle_tangent(z_, t, z, deg=False):
    d[z_] = tangent.angle_tangent_tangent_full(d[t], d[z], t, z, deg)


@adjoint(tangent.angle_tangent)
def angle_tangent_adjoint(z_, t, z, deg=False):
    d[t] = tangent.angle_grad(d[z_], z, deg)
    d[z] = tangent.angle_grad_adjoint_z(d[z_], t, z, deg, True)
