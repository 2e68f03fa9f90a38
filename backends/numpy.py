# Derivative rules for NumPy (embedded array module and, later, real NumPy). Template
# conventions as in python.py. Methods are keyed `numpy.ndarray.<name>`; the method's
# receiver is the template parameter `self`. One-argument elementwise functions come from
# elementwise.py, arithmetic ufuncs from arithmetic.py.

nondifferentiable(
    numpy.shape, numpy.ndim, numpy.size, numpy.argmax, numpy.argmin, numpy.sign,
    numpy.zeros, numpy.ones, numpy.zeros_like, numpy.ones_like,
    numpy.eye, numpy.floor, numpy.ceil,
    numpy.isnan, numpy.isfinite, numpy.allclose, numpy.isclose,
    numpy.ndarray.shape, numpy.ndarray.ndim, numpy.ndarray.size, numpy.ndarray.dtype,
    numpy.ndarray.argmax, numpy.ndarray.argmin,
    numpy.argsort, numpy.ndarray.argsort, numpy.searchsorted, numpy.nonzero,
    numpy.ndarray.nonzero, numpy.isinf, numpy.array_equal, numpy.round, numpy.around,
    numpy.rint, numpy.trunc, numpy.fix, numpy.ndarray.round, numpy.empty,
    numpy.empty_like, numpy.identity, numpy.all, numpy.any,
    numpy.ndarray.all, numpy.ndarray.any, numpy.equal, numpy.not_equal, numpy.greater,
    numpy.greater_equal, numpy.less, numpy.less_equal, numpy.logical_and,
    numpy.logical_or, numpy.logical_not, numpy.broadcast_shapes, numpy.count_nonzero,
)
# sign is piecewise constant for real numbers only: z / |z| of a complex z is not, so a
# complex argument is refused where it is called (`tangent.check_real`).
real_arguments(numpy.sign)
# More whose values are integers, booleans, indices or types, or piecewise constant in
# their float arguments (tests/catalog/check_nondifferentiable.py checks each).
nondifferentiable(
    numpy.argpartition, numpy.argwhere, numpy.array_equiv, numpy.digitize,
    numpy.flatnonzero, numpy.floor_divide, numpy.isin, numpy.iscomplex, numpy.iscomplexobj,
    numpy.isneginf, numpy.isposinf, numpy.isreal, numpy.isrealobj, numpy.isscalar,
    numpy.iterable, numpy.lexsort, numpy.logical_xor, numpy.nanargmax, numpy.nanargmin,
    numpy.signbit, numpy.spacing, numpy.tri, numpy.tril_indices, numpy.triu_indices,
    numpy.tril_indices_from, numpy.triu_indices_from, numpy.diag_indices,
    numpy.diag_indices_from, numpy.indices, numpy.ravel_multi_index, numpy.unravel_index,
    numpy.may_share_memory, numpy.shares_memory, numpy.can_cast, numpy.promote_types,
    numpy.result_type, numpy.min_scalar_type, numpy.issubdtype, numpy.isdtype,
    numpy.bitwise_and, numpy.bitwise_or, numpy.bitwise_xor, numpy.invert,
    numpy.left_shift, numpy.right_shift, numpy.bitwise_count, numpy.gcd, numpy.lcm,
    numpy.packbits, numpy.unpackbits,
)

# Methods and attributes of a value whose type the text does not tell (`x.sum()`,
# `x.T`) are keyed under this class: `numpy.ndarray.sum`.
array_methods(numpy.ndarray)

# The members of arrays read as attributes, not called: `x.T`, `x.shape`. Any other
# `p.name` that is not called reads a field of a dataclass, namedtuple or object.
array_attributes(
    numpy.ndarray.T, numpy.ndarray.shape, numpy.ndarray.size, numpy.ndarray.ndim,
    numpy.ndarray.dtype, numpy.ndarray.real, numpy.ndarray.imag, numpy.ndarray.flat,
)

# A context manager a differentiated `with` may use (backends/python.py).
transparent_context(numpy.errstate)

# Functions whose result is zero when their first argument is (forward mode drops zero
# tangents through them), and those zero when any argument is.
linear_in_first(numpy.sum, numpy.mean, numpy.reshape, numpy.transpose)
linear_in_each(numpy.matmul)

# Purity, for the e-graph passes (`optimizations={'cse': True}`), which share a value
# between two names only when nothing mutates values in place: every numpy function is
# pure except numpy.random's (hidden state) and those that write into an argument. Array
# methods (and the same methods of numbers) that return a new value and change nothing:
pure_module(numpy)

# The functions the native compiler (compile='native') runs as machine code on floats
# (an element read from an array, a number): each calls the runtime's kernel of the same
# short name (jit/runtime.rs). Where NumPy gives inf or nan from finite numbers the
# native code bails and the interpreter computes NumPy's value. They return NumPy's
# scalars (`numpy.float64`, or of a `numpy.float32` its float32 result). On float32 values
# NumPy computes in single precision: `float32=` says how, for native code to give the same
# bits ("correctly_rounded": the true value rounded; "numpy_kernel": NumPy's own
# approximation on x86-64 with AVX2/FMA or AVX-512, which the runtime reproduces and uses
# where the host's NumPy agrees; "host_rounds_double": NumPy's own (SVML's on AVX-512, the
# C library's float function otherwise), followed only where the host's numpy computes in
# double and rounds once, as the embedded numpy does; real NumPy's run interpreted).
native_scalar(
    numpy.tan, numpy.arcsin, numpy.arccos, numpy.arctan, numpy.sinh, numpy.cosh,
    numpy.arcsinh, numpy.arccosh, numpy.arctanh, numpy.expm1, numpy.log1p, numpy.log2,
    numpy.log10, returns="numpy_scalar", float32="host_rounds_double",
)
native_scalar(numpy.sqrt, numpy.fabs, returns="numpy_scalar", float32="correctly_rounded")
native_scalar(numpy.sin, numpy.cos, numpy.tanh, numpy.exp, numpy.log, returns="numpy_scalar",
              float32="numpy_kernel")
native_scalar(numpy.arctan2, numpy.hypot, numpy.copysign, arity=2, returns="numpy_scalar")
# NumPy's float scalars of a number (in code with float32 values, where native code follows
# each float's NumPy type).
native_scalar(numpy.float32, kind="float32_scalar")
native_scalar(numpy.float64, kind="float64_scalar")
# The float64 arrays it makes, writes by element and returns (1-d and 2-d).
native_scalar(numpy.zeros, numpy.empty, kind="new_array")
native_scalar(numpy.zeros_like, numpy.empty_like, kind="array_like")
native_scalar(numpy.copy, numpy.ndarray.copy, kind="array_copy")
# Elementwise statements over float64 arrays of one shape use the kernels above and the
# operators; the reduction that ends them:
native_scalar(numpy.sum, kind="sum")
# The inner product of two float64 vectors (of matrices, a product: interpreted).
native_scalar(numpy.dot, numpy.inner, numpy.matmul, kind="dot")
effectful_module(numpy.random)
mutates(numpy.copyto, numpy.put, numpy.place, numpy.putmask, numpy.fill_diagonal)
pure(
    numpy.ndarray.sum, numpy.ndarray.mean, numpy.ndarray.prod, numpy.ndarray.max,
    numpy.ndarray.min, numpy.ndarray.argmax, numpy.ndarray.argmin, numpy.ndarray.var,
    numpy.ndarray.std, numpy.ndarray.cumsum, numpy.ndarray.cumprod, numpy.ndarray.all,
    numpy.ndarray.any, numpy.ndarray.reshape, numpy.ndarray.transpose,
    numpy.ndarray.swapaxes, numpy.ndarray.ravel, numpy.ndarray.flatten,
    numpy.ndarray.squeeze, numpy.ndarray.copy, numpy.ndarray.astype, numpy.ndarray.dot,
    numpy.ndarray.item, numpy.ndarray.tolist, numpy.ndarray.conj,
    numpy.ndarray.conjugate, numpy.ndarray.round, numpy.ndarray.clip,
    numpy.ndarray.trace, numpy.ndarray.diagonal, numpy.ndarray.repeat,
)


# Functions whose result may be an argument itself or a view of it (NumPy returns views
# where it can). The engine refuses in-place updates of such results and of the arrays
# they came from, since the update would show through the other name.
returns_view(
    numpy.reshape, numpy.ndarray.reshape, numpy.ravel, numpy.ndarray.ravel,
    numpy.transpose, numpy.ndarray.transpose, numpy.ndarray.T, numpy.squeeze,
    numpy.ndarray.squeeze, numpy.expand_dims, numpy.swapaxes, numpy.ndarray.swapaxes,
    numpy.moveaxis, numpy.broadcast_to, numpy.broadcast_arrays, numpy.atleast_1d,
    numpy.atleast_2d, numpy.atleast_3d, numpy.diagonal, numpy.ndarray.diagonal,
    numpy.diag, numpy.asarray, numpy.asanyarray, numpy.ascontiguousarray, numpy.flip,
    numpy.fliplr, numpy.flipud, numpy.rot90, numpy.split, numpy.array_split,
    numpy.hsplit, numpy.vsplit, numpy.dsplit, numpy.real, numpy.imag,
    numpy.ndarray.real, numpy.ndarray.imag, numpy.ndarray.view, numpy.ndarray.flat,
)

# Constructors whose values are their arguments: the fill value of full/full_like, the
# end points of linspace, start and step of arange (start + i * step). The same for
# jax.numpy: the helpers compute in the namespace of their arguments.
@adjoint(numpy.full)
def full(y, shape, fill_value, dtype=None, order="C"):
    d[fill_value] = tangent.unbroadcast(d[y], fill_value)


@tangent_(numpy.full)
def full_tangent(y, shape, fill_value, dtype=None, order="C"):
    d[y] = tangent.broadcast_like(d[fill_value], y)


@adjoint(numpy.full_like)
def full_like(y, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    d[fill_value] = tangent.unbroadcast(d[y], fill_value)
    d[a] = 0.0  # read for its shape


@tangent_(numpy.full_like)
def full_like_tangent(y, a, fill_value, dtype=None, order="K", subok=True, shape=None):
    d[y] = tangent.broadcast_like(d[fill_value], y)


@adjoint(numpy.linspace)
def linspace(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    d[start] = tangent.linspace_grad(d[y], start, num, endpoint, retstep, axis, 0)
    d[stop] = tangent.linspace_grad(d[y], stop, num, endpoint, retstep, axis, 1)


@tangent_(numpy.linspace)
def linspace_tangent(y, start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    d[y] = tangent.linspace_tangent(d[start], d[stop], y, num, endpoint, retstep, axis)


# arange(stop) counts from 0: only arange(start, stop[, step]) depends on its arguments.
# (jax.numpy.arange has no rule: jax needs its arguments concrete, so it cannot be traced.)
@adjoint(numpy.arange)
def arange(y, start, stop=None, step=None, dtype=None):
    if stop is None:
        pass
    else:
        d[start] = tangent.unbroadcast(d[y], start)
        d[step] = tangent.arange_step_grad(d[y], step)
        d[stop] = 0.0  # the count of samples only: piecewise constant


@tangent_(numpy.arange)
def arange_tangent(y, start, stop=None, step=None, dtype=None):
    if stop is None:
        d[y] = tangent.broadcast_like(0.0, y)
    else:
        d[y] = tangent.arange_tangent(d[start], d[step], y)


# heaviside(x1, x2) is x2 where x1 == 0.
@adjoint(numpy.heaviside)
def heaviside(y, x1, x2):
    d[x2] = tangent.unbroadcast(numpy.where(x1 == 0, d[y], 0.0), x2)
    d[x1] = 0.0  # piecewise constant


@tangent_(numpy.heaviside)
def heaviside_tangent(y, x1, x2):
    d[y] = tangent.broadcast_like(numpy.where(x1 == 0, d[x2], 0.0), y)


@adjoint(numpy.where)
def where(z, c, x, y):
    d[x] = tangent.unbroadcast(numpy.where(c, d[z], 0.0), x)
    d[y] = tangent.unbroadcast(numpy.where(c, 0.0, d[z]), y)


@tangent_(numpy.where)
def where_tangent(z, c, x, y):
    d[z] = numpy.where(c, d[x], d[y])


@adjoint(numpy.sum)
def sum(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims)


@tangent_(numpy.sum)
def sum_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = numpy.sum(d[x], axis=axis, keepdims=keepdims)


@adjoint(numpy.mean)
def mean(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.unreduce(d[y] / tangent.reduced_count(x, axis), x, axis, keepdims)


@tangent_(numpy.mean)
def mean_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = numpy.mean(d[x], axis=axis, keepdims=keepdims)


# The methods also take torch's names: `x.sum(dim=1, keepdim=True)` (the literal ifs are
# decided when the rule is instantiated: a NumPy call keeps the plain form).
@adjoint(numpy.ndarray.sum)
def sum_method(y, x, axis=None, dtype=None, out=None, keepdims=False, dim=None, keepdim=None):
    if dim is None:
        if keepdim is None:
            d[x] = tangent.unreduce(d[y], x, axis, keepdims)
        else:
            d[x] = tangent.unreduce(d[y], x, axis, keepdim)
    else:
        d[x] = tangent.unreduce(d[y], x, dim, keepdim)


@tangent_(numpy.ndarray.sum)
def sum_method_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False, dim=None,
                       keepdim=None):
    if dim is None:
        if keepdim is None:
            d[y] = numpy.sum(d[x], axis=axis, keepdims=keepdims)
        else:
            d[y] = numpy.sum(d[x], axis=axis, keepdims=keepdim)
    else:
        d[y] = numpy.sum(d[x], axis=dim, keepdims=keepdim)


@adjoint(numpy.ndarray.mean)
def mean_method(y, x, axis=None, dtype=None, out=None, keepdims=False, dim=None,
                keepdim=None):
    if dim is None:
        if keepdim is None:
            d[x] = tangent.unreduce(d[y] / tangent.reduced_count(x, axis), x, axis, keepdims)
        else:
            d[x] = tangent.unreduce(d[y] / tangent.reduced_count(x, axis), x, axis, keepdim)
    else:
        d[x] = tangent.unreduce(d[y] / tangent.reduced_count(x, dim), x, dim, keepdim)


@tangent_(numpy.ndarray.mean)
def mean_method_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False, dim=None,
                        keepdim=None):
    if dim is None:
        if keepdim is None:
            d[y] = numpy.mean(d[x], axis=axis, keepdims=keepdims)
        else:
            d[y] = numpy.mean(d[x], axis=axis, keepdims=keepdim)
    else:
        d[y] = numpy.mean(d[x], axis=dim, keepdims=keepdim)


@adjoint(numpy.max)
@adjoint(numpy.amax)
@adjoint(numpy.min)
@adjoint(numpy.amin)
def max(y, x, axis=None, out=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@tangent_(numpy.max)
@tangent_(numpy.amax)
@tangent_(numpy.min)
@tangent_(numpy.amin)
def max_tangent(y, x, axis=None, out=None, keepdims=False):
    d[y] = tangent.extremum_tangent(d[x], y, x, axis, keepdims)


# The methods also take tinygrad's `keepdim`.
@adjoint(numpy.ndarray.max)
@adjoint(numpy.ndarray.min)
def max_method(y, x, axis=None, out=None, keepdims=False, keepdim=None):
    if keepdim is None:
        d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)
    else:
        d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdim)


@tangent_(numpy.ndarray.max)
@tangent_(numpy.ndarray.min)
def max_method_tangent(y, x, axis=None, out=None, keepdims=False, keepdim=None):
    if keepdim is None:
        d[y] = tangent.extremum_tangent(d[x], y, x, axis, keepdims)
    else:
        d[y] = tangent.extremum_tangent(d[x], y, x, axis, keepdim)


# The NaN-ignoring reductions: a NaN element gets no gradient (nanmax/nanmin's extremum
# mask never matches a NaN). The tangents select rather than multiply by the mask: the
# tangent at a NaN element is often NaN itself (that of `z * z` where z is NaN), and
# NaN * 0 would make the result's tangent NaN.
@adjoint(numpy.nansum)
def nansum(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims) * tangent.not_nan_mask(x)


@tangent_(numpy.nansum)
def nansum_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = numpy.sum(numpy.where(numpy.isnan(x), 0.0, d[x]), axis=axis, keepdims=keepdims)


@adjoint(numpy.nanmean)
def nanmean(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.unreduce(
        d[y] / numpy.sum(tangent.not_nan_mask(x), axis=axis, keepdims=keepdims), x, axis,
        keepdims) * tangent.not_nan_mask(x)


@tangent_(numpy.nanmean)
def nanmean_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = numpy.sum(numpy.where(numpy.isnan(x), 0.0, d[x]), axis=axis,
                     keepdims=keepdims) / numpy.sum(tangent.not_nan_mask(x), axis=axis,
                                                    keepdims=keepdims)


# nanvar and nanstd: var and std of the elements that are not NaN
@adjoint(numpy.nanvar)
def nanvar(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims) * 2.0 * numpy.where(
        numpy.isnan(x), 0.0, x - numpy.nanmean(x, axis=axis, keepdims=True)) / (
        numpy.sum(tangent.not_nan_mask(x), axis=axis, keepdims=True) - ddof)


@tangent_(numpy.nanvar)
def nanvar_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = 2.0 * numpy.sum(numpy.where(
        numpy.isnan(x), 0.0, (x - numpy.nanmean(x, axis=axis, keepdims=True)) * d[x]),
        axis=axis, keepdims=keepdims) / (
        numpy.sum(tangent.not_nan_mask(x), axis=axis, keepdims=keepdims) - ddof)


@adjoint(numpy.nanstd)
def nanstd(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = tangent.unreduce(tangent.std_scale(d[y], y, x, axis), x, axis, keepdims) * 2.0 * (
        numpy.where(numpy.isnan(x), 0.0, x - numpy.nanmean(x, axis=axis, keepdims=True)) / (
            numpy.sum(tangent.not_nan_mask(x), axis=axis, keepdims=True) - ddof))


@tangent_(numpy.nanstd)
def nanstd_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = tangent.std_scale(2.0 * numpy.sum(numpy.where(
        numpy.isnan(x), 0.0, (x - numpy.nanmean(x, axis=axis, keepdims=True)) * d[x]),
        axis=axis, keepdims=keepdims) / (
        numpy.sum(tangent.not_nan_mask(x), axis=axis, keepdims=keepdims) - ddof), y, x, axis)


# average and cov (NumPy's; cov's fweights and aweights enter as constants)
@adjoint(numpy.average)
def average(y, a, axis=None, weights=None, returned=False, keepdims=False):
    d[a] = tangent.average_grad(d[y], a, axis, weights, returned, keepdims, 0)
    d[weights] = tangent.average_grad(d[y], a, axis, weights, returned, keepdims, 1)


@tangent_(numpy.average)
def average_tangent(y, a, axis=None, weights=None, returned=False, keepdims=False):
    d[y] = tangent.average_tangent(d[a], d[weights], a, axis, weights, returned, keepdims)


@adjoint(numpy.cov)
def cov(c, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None,
        dtype=None):
    d[m] = tangent.cov_grad(d[c], m, y, rowvar, bias, ddof, fweights, aweights, 0)
    d[y] = tangent.cov_grad(d[c], m, y, rowvar, bias, ddof, fweights, aweights, 1)
    d[fweights] = tangent.cov_weights_refused(fweights)
    d[aweights] = tangent.cov_weights_refused(aweights)


@tangent_(numpy.cov)
def cov_tangent(c, m, y=None, rowvar=True, bias=False, ddof=None, fweights=None,
                aweights=None, dtype=None):
    d[c] = tangent.cov_tangent(d[m], d[y], m, y, rowvar, bias, ddof, fweights, aweights)


# NumPy's own computation written out (`@control_flow`, src/ad/control_flow.rs; `numpy`
# in such a template is the namespace of its arguments at run time, as in a rule): the
# covariance scaled by the standard deviations on both sides, clipped to [-1, 1]; the
# derivative goes through cov's, sqrt's, the divisions' and clip's rules.
@control_flow(numpy.corrcoef)
def corrcoef(x, y=None, rowvar=True, dtype=None):
    c = numpy.cov(x, y, rowvar)
    if dtype is not None:
        c = c.astype(dtype)
    if numpy.ndim(c) == 0:
        r = c / c
    else:
        s = numpy.sqrt(numpy.diag(c))
        r = numpy.clip(c / s[:, None] / s[None, :], -1, 1)
    return r


@adjoint(numpy.nanmax)
@adjoint(numpy.nanmin)
def nanmax(y, x, axis=None, out=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@tangent_(numpy.nanmax)
@tangent_(numpy.nanmin)
def nanmax_tangent(y, x, axis=None, out=None, keepdims=False):
    d[y] = tangent.extremum_tangent(numpy.where(numpy.isnan(x), 0.0, d[x]), y, x, axis,
                                    keepdims)


# ptp = max - min
@adjoint(numpy.ptp)
def ptp(y, x, axis=None, out=None, keepdims=False):
    d[x] = tangent.ptp_grad(d[y], x, axis, keepdims)


@tangent_(numpy.ptp)
def ptp_tangent(y, x, axis=None, out=None, keepdims=False):
    d[y] = tangent.ptp_tangent(d[x], x, axis, keepdims)


# Order statistics: a weighted pair of sorted values (median is the 0.5-quantile; NumPy's
# methods 'linear', 'lower', 'higher', 'nearest', 'midpoint'; others are refused when the
# derivative is computed). With respect to q the derivative is refused (located).
@adjoint(numpy.median)
def median(y, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[x] = tangent.quantile_grad(d[y], x, 0.5, axis, keepdims)


@tangent_(numpy.median)
def median_tangent(y, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[y] = tangent.quantile_tangent(d[x], x, 0.5, axis, keepdims)


@adjoint(numpy.quantile)
def quantile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, weights=None, interpolation=None):
    d[x] = tangent.quantile_grad(d[y], x, q, axis, keepdims, method)
    d[q] = tangent.quantile_q_refused(q)


@tangent_(numpy.quantile)
def quantile_tangent(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
                     keepdims=False, weights=None, interpolation=None):
    d[y] = tangent.quantile_tangent(d[x], x, q, axis, keepdims, method) + (
        tangent.quantile_q_refused(q) * d[q])


@adjoint(numpy.percentile)
def percentile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, weights=None, interpolation=None):
    d[x] = tangent.quantile_grad(d[y], x, numpy.asarray(q) / 100.0, axis, keepdims, method)
    d[q] = tangent.quantile_q_refused(q)


@tangent_(numpy.percentile)
def percentile_tangent(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
                       keepdims=False, weights=None, interpolation=None):
    d[y] = tangent.quantile_tangent(d[x], x, numpy.asarray(q) / 100.0, axis, keepdims,
                                    method) + tangent.quantile_q_refused(q) * d[q]


# ... and of the numbers alone, NaN skipped
@adjoint(numpy.nanmedian)
def nanmedian(y, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[x] = tangent.quantile_grad(d[y], x, 0.5, axis, keepdims, "linear", True)


@tangent_(numpy.nanmedian)
def nanmedian_tangent(y, x, axis=None, out=None, overwrite_input=False, keepdims=False):
    d[y] = tangent.quantile_tangent(d[x], x, 0.5, axis, keepdims, "linear", True)


@adjoint(numpy.nanquantile)
def nanquantile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=False, weights=None, interpolation=None):
    d[x] = tangent.quantile_grad(d[y], x, q, axis, keepdims, method, True)
    d[q] = tangent.quantile_q_refused(q)


@tangent_(numpy.nanquantile)
def nanquantile_tangent(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
                        keepdims=False, weights=None, interpolation=None):
    d[y] = tangent.quantile_tangent(d[x], x, q, axis, keepdims, method, True) + (
        tangent.quantile_q_refused(q) * d[q])


@adjoint(numpy.nanpercentile)
def nanpercentile(y, x, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=False, weights=None, interpolation=None):
    d[x] = tangent.quantile_grad(d[y], x, numpy.asarray(q) / 100.0, axis, keepdims, method, True)
    d[q] = tangent.quantile_q_refused(q)


@tangent_(numpy.nanpercentile)
def nanpercentile_tangent(y, x, q, axis=None, out=None, overwrite_input=False,
                          method="linear", keepdims=False, weights=None, interpolation=None):
    d[y] = tangent.quantile_tangent(d[x], x, numpy.asarray(q) / 100.0, axis, keepdims, method,
                                    True) + tangent.quantile_q_refused(q) * d[q]


# fmax/fmin: maximum/minimum that ignore a NaN operand (the other one gets the gradient;
# the tangent selects it: the ignored operand's tangent may be NaN, and NaN * 0 is NaN).
@adjoint(numpy.fmax)
def fmax(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * numpy.logical_or(x >= y, numpy.isnan(y)), x)
    d[y] = tangent.unbroadcast(d[z] * numpy.logical_not(numpy.logical_or(x >= y, numpy.isnan(y))), y)


@tangent_(numpy.fmax)
def fmax_tangent(z, x, y):
    d[z] = numpy.where(numpy.logical_or(x >= y, numpy.isnan(y)), d[x], d[y])


@adjoint(numpy.fmin)
def fmin(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * numpy.logical_or(x <= y, numpy.isnan(y)), x)
    d[y] = tangent.unbroadcast(d[z] * numpy.logical_not(numpy.logical_or(x <= y, numpy.isnan(y))), y)


@tangent_(numpy.fmin)
def fmin_tangent(z, x, y):
    d[z] = numpy.where(numpy.logical_or(x <= y, numpy.isnan(y)), d[x], d[y])


# interp(x, xp, fp): piecewise linear; with respect to x the segment's slope (kept
# differentiable in fp), to fp the interpolation weights, to left/right where x is
# outside the knots. The derivative with respect to the knots xp is refused.
@adjoint(numpy.interp)
def interp(y, x, xp, fp, left=None, right=None, period=None):
    d[x] = tangent.unbroadcast(
        d[y] * numpy.sum(tangent.interp_slope_weights(x, xp) * fp, axis=-1), x)
    d[xp] = tangent.interp_xp_refused(xp)
    d[fp] = tangent.unbroadcast(numpy.tensordot(
        d[y], tangent.interp_weights(x, xp, numpy.size(fp), left, right), numpy.ndim(x)), fp)
    d[left] = tangent.unbroadcast(numpy.sum(d[y] * tangent.interp_outside(x, xp, 0)), left)
    d[right] = tangent.unbroadcast(numpy.sum(d[y] * tangent.interp_outside(x, xp, 1)), right)


@tangent_(numpy.interp)
def interp_tangent(y, x, xp, fp, left=None, right=None, period=None):
    d[y] = (d[x] * numpy.sum(tangent.interp_slope_weights(x, xp) * fp, axis=-1)
            + tangent.interp_xp_refused(xp) * d[xp]
            + numpy.sum(tangent.interp_weights(x, xp, numpy.size(fp), left, right) * d[fp],
                        axis=-1)
            + d[left] * tangent.interp_outside(x, xp, 0)
            + d[right] * tangent.interp_outside(x, xp, 1))


@adjoint(numpy.dot)
@adjoint(numpy.matmul)
@adjoint(numpy.linalg.matmul)
@adjoint(numpy.ndarray.dot)
def dot(z, x, y):
    d[x] = tangent.matmul_grad_left(d[z], x, y)
    d[y] = tangent.matmul_grad_right(d[z], x, y)


# `shape` is NumPy 2's and jax.numpy's name, `newshape` older NumPy's.
@adjoint(numpy.reshape)
def reshape(y, x, shape=None, order="C", newshape=None, copy=None):
    d[x] = numpy.reshape(d[y], numpy.shape(x))


@tangent_(numpy.reshape)
def reshape_tangent(y, x, shape=None, order="C", newshape=None, copy=None):
    d[y] = numpy.reshape(d[x], numpy.shape(y))


@adjoint(numpy.ndarray.reshape)
def reshape_method(y, self, *shape):
    d[self] = numpy.reshape(d[y], numpy.shape(self))


@tangent_(numpy.ndarray.reshape)
def reshape_method_tangent(y, self, *shape):
    d[y] = numpy.reshape(d[self], numpy.shape(y))


@adjoint(numpy.transpose)
def transpose(y, x, axes=None):
    if axes is None:
        d[x] = numpy.transpose(d[y])
    else:
        d[x] = numpy.transpose(d[y], tangent.inverse_permutation(axes))


@tangent_(numpy.transpose)
def transpose_tangent(y, x, axes=None):
    d[y] = numpy.transpose(d[x], axes)


# The method takes the axes one by one or as one tuple: `a.transpose(1, 0, 2)`,
# `a.transpose((1, 0, 2))`, `a.transpose()`.
@adjoint(numpy.ndarray.transpose)
def transpose_method(y, self, *axes):
    d[self] = tangent.transpose_method_grad(d[y], axes)


@tangent_(numpy.ndarray.transpose)
def transpose_method_tangent(y, self, *axes):
    d[y] = tangent.transpose_method_tangent(d[self], axes)


# `x.T` reverses the axes (NumPy, JAX, torch) or swaps the first two (tinygrad): either
# way it is its own inverse.
@adjoint(numpy.ndarray.T)
def T(y, self):
    d[self] = d[y].T


@tangent_(numpy.ndarray.T)
def T_tangent(y, self):
    d[y] = d[self].T


@adjoint(numpy.array)
@adjoint(numpy.asarray)
def array(y, x):
    d[x] = tangent.array_grad(d[y], x)


@tangent_(numpy.array)
@tangent_(numpy.asarray)
def array_tangent(y, x):
    d[y] = numpy.array(d[x])


# ------------------------------------------------------------------- shape ops
# Reverse rules undo the shape change on the gradient (`tangent.reshape_as` gives a float
# back for a Python number); forward rules apply the same linear op to the tangent.


@adjoint(numpy.ravel)
@adjoint(numpy.ndarray.ravel)
@adjoint(numpy.ndarray.flatten)
def ravel(y, x, order="C", start_dim=0, end_dim=-1):
    d[x] = tangent.reshape_as(d[y], x)


@tangent_(numpy.ravel)
@tangent_(numpy.ndarray.ravel)
@tangent_(numpy.ndarray.flatten)
def ravel_tangent(y, x, order="C", start_dim=0, end_dim=-1):
    d[y] = numpy.reshape(d[x], numpy.shape(y))


@adjoint(numpy.squeeze)
@adjoint(numpy.ndarray.squeeze)
def squeeze(y, x, axis=None, dim=None):
    d[x] = tangent.reshape_as(d[y], x)


@tangent_(numpy.squeeze)
@tangent_(numpy.ndarray.squeeze)
def squeeze_tangent(y, x, axis=None, dim=None):
    d[y] = numpy.reshape(d[x], numpy.shape(y))


@adjoint(numpy.expand_dims)
def expand_dims(y, x, axis):
    d[x] = tangent.reshape_as(d[y], x)


@tangent_(numpy.expand_dims)
def expand_dims_tangent(y, x, axis):
    d[y] = numpy.reshape(d[x], numpy.shape(y))


@adjoint(numpy.atleast_1d)
@adjoint(numpy.atleast_2d)
@adjoint(numpy.atleast_3d)
def atleast_nd(y, x):
    d[x] = tangent.reshape_as(d[y], x)


@tangent_(numpy.atleast_1d)
@tangent_(numpy.atleast_2d)
@tangent_(numpy.atleast_3d)
def atleast_nd_tangent(y, x):
    d[y] = numpy.reshape(d[x], numpy.shape(y))


@adjoint(numpy.broadcast_to)
def broadcast_to(y, x, shape):
    d[x] = tangent.unbroadcast(d[y], x)


@tangent_(numpy.broadcast_to)
def broadcast_to_tangent(y, x, shape):
    d[y] = numpy.broadcast_to(d[x], shape)


@adjoint(numpy.copy)
@adjoint(numpy.ndarray.copy)
def copy(y, x):
    d[x] = tangent.reshape_as(d[y], x)


@tangent_(numpy.copy)
@tangent_(numpy.ndarray.copy)
def copy_tangent(y, x):
    d[y] = numpy.copy(d[x])


# Dtype conversions: the derivative is the identity, carried in the type of the value it
# belongs to (a float32 result's tangent in float32, a float64 argument's gradient in
# float64, a Python float's as a Python float).
@adjoint(numpy.astype)
@adjoint(numpy.ndarray.astype)
def astype(y, x, dtype):
    d[x] = tangent.cast_like(d[y], x)


@tangent_(numpy.astype)
@tangent_(numpy.ndarray.astype)
def astype_tangent(y, x, dtype):
    d[y] = tangent.cast_like(d[x], y)


@adjoint(numpy.float32)
@adjoint(numpy.float64)
def float_scalar(y, x):
    d[x] = tangent.cast_like(d[y], x)


@tangent_(numpy.float32)
@tangent_(numpy.float64)
def float_scalar_tangent(y, x):
    d[y] = tangent.cast_like(d[x], y)


@adjoint(numpy.concatenate)
def concatenate(y, arrays, axis=0):
    d[arrays] = tangent.concatenate_grad(d[y], arrays, axis)


@tangent_(numpy.concatenate)
def concatenate_tangent(y, arrays, axis=0):
    d[y] = numpy.concatenate(d[arrays], axis)


@adjoint(numpy.stack)
def stack(y, arrays, axis=0):
    d[arrays] = tangent.stack_grad(d[y], arrays, axis)


@tangent_(numpy.stack)
def stack_tangent(y, arrays, axis=0):
    d[y] = numpy.stack(d[arrays], axis)


@adjoint(numpy.hstack)
def hstack(y, arrays):
    d[arrays] = tangent.hstack_grad(d[y], arrays)


@tangent_(numpy.hstack)
def hstack_tangent(y, arrays):
    d[y] = numpy.hstack(d[arrays])


@adjoint(numpy.vstack)
@adjoint(numpy.row_stack)
def vstack(y, arrays):
    d[arrays] = tangent.vstack_grad(d[y], arrays)


@tangent_(numpy.vstack)
@tangent_(numpy.row_stack)
def vstack_tangent(y, arrays):
    d[y] = numpy.vstack(d[arrays])


@adjoint(numpy.dstack)
def dstack(y, arrays):
    d[arrays] = tangent.dstack_grad(d[y], arrays)


@tangent_(numpy.dstack)
def dstack_tangent(y, arrays):
    d[y] = numpy.dstack(d[arrays])


@adjoint(numpy.column_stack)
def column_stack(y, arrays):
    d[arrays] = tangent.column_stack_grad(d[y], arrays)


@tangent_(numpy.column_stack)
def column_stack_tangent(y, arrays):
    d[y] = numpy.column_stack(d[arrays])


@adjoint(numpy.split)
@adjoint(numpy.array_split)
def split(y, x, indices_or_sections, axis=0):
    d[x] = tangent.split_grad(d[y], x, axis)


@tangent_(numpy.split)
@tangent_(numpy.array_split)
def split_tangent(y, x, indices_or_sections, axis=0):
    d[y] = numpy.array_split(d[x], indices_or_sections, axis)


@adjoint(numpy.hsplit)
def hsplit(y, x, indices_or_sections):
    d[x] = tangent.split_grad(d[y], x, tangent.hsplit_axis(x))


@tangent_(numpy.hsplit)
def hsplit_tangent(y, x, indices_or_sections):
    d[y] = numpy.hsplit(d[x], indices_or_sections)


@adjoint(numpy.vsplit)
def vsplit(y, x, indices_or_sections):
    d[x] = tangent.split_grad(d[y], x, 0)


@tangent_(numpy.vsplit)
def vsplit_tangent(y, x, indices_or_sections):
    d[y] = numpy.vsplit(d[x], indices_or_sections)


@adjoint(numpy.dsplit)
def dsplit(y, x, indices_or_sections):
    d[x] = tangent.split_grad(d[y], x, 2)


@tangent_(numpy.dsplit)
def dsplit_tangent(y, x, indices_or_sections):
    d[y] = numpy.dsplit(d[x], indices_or_sections)


@adjoint(numpy.swapaxes)
@adjoint(numpy.ndarray.swapaxes)
def swapaxes(y, x, axis1, axis2):
    d[x] = numpy.swapaxes(d[y], axis1, axis2)


@tangent_(numpy.swapaxes)
@tangent_(numpy.ndarray.swapaxes)
def swapaxes_tangent(y, x, axis1, axis2):
    d[y] = numpy.swapaxes(d[x], axis1, axis2)


@adjoint(numpy.moveaxis)
def moveaxis(y, x, source, destination):
    d[x] = numpy.moveaxis(d[y], destination, source)


@tangent_(numpy.moveaxis)
def moveaxis_tangent(y, x, source, destination):
    d[y] = numpy.moveaxis(d[x], source, destination)


@adjoint(numpy.tril)
def tril(y, m, k=0):
    d[m] = numpy.tril(d[y], k)


@tangent_(numpy.tril)
def tril_tangent(y, m, k=0):
    d[y] = numpy.tril(d[m], k)


@adjoint(numpy.triu)
def triu(y, m, k=0):
    d[m] = numpy.triu(d[y], k)


@tangent_(numpy.triu)
def triu_tangent(y, m, k=0):
    d[y] = numpy.triu(d[m], k)


@adjoint(numpy.flip)
def flip(y, x, axis=None):
    d[x] = numpy.flip(d[y], axis)


@tangent_(numpy.flip)
def flip_tangent(y, x, axis=None):
    d[y] = numpy.flip(d[x], axis)


@adjoint(numpy.fliplr)
def fliplr(y, x):
    d[x] = numpy.fliplr(d[y])


@tangent_(numpy.fliplr)
def fliplr_tangent(y, x):
    d[y] = numpy.fliplr(d[x])


@adjoint(numpy.flipud)
def flipud(y, x):
    d[x] = numpy.flipud(d[y])


@tangent_(numpy.flipud)
def flipud_tangent(y, x):
    d[y] = numpy.flipud(d[x])


@adjoint(numpy.rot90)
def rot90(y, x, k=1, axes=(0, 1)):
    d[x] = numpy.rot90(d[y], -k, axes)


@tangent_(numpy.rot90)
def rot90_tangent(y, x, k=1, axes=(0, 1)):
    d[y] = numpy.rot90(d[x], k, axes)


@adjoint(numpy.roll)
def roll(y, x, shift, axis=None):
    d[x] = numpy.roll(d[y], tangent.negate_shift(shift), axis)


@tangent_(numpy.roll)
def roll_tangent(y, x, shift, axis=None):
    d[y] = numpy.roll(d[x], shift, axis)


@adjoint(numpy.tile)
def tile(y, x, reps):
    d[x] = tangent.tile_grad(d[y], x, reps)


@tangent_(numpy.tile)
def tile_tangent(y, x, reps):
    d[y] = numpy.tile(d[x], reps)


@adjoint(numpy.repeat)
def repeat(y, x, repeats, axis=None):
    d[x] = tangent.repeat_grad(d[y], x, repeats, axis)


@tangent_(numpy.repeat)
def repeat_tangent(y, x, repeats, axis=None):
    d[y] = numpy.repeat(d[x], repeats, axis)


# `x.repeat(...)` repeats elements in NumPy and JAX (`x.repeat(repeats, axis)`) but tiles
# in torch and tinygrad (`x.repeat(2, 3)`): the value's library says which.
@adjoint(numpy.ndarray.repeat)
def repeat_method(y, x, *repeats, axis=None):
    d[x] = tangent.repeat_method_grad(d[y], x, repeats, axis)


@tangent_(numpy.ndarray.repeat)
def repeat_method_tangent(y, x, *repeats, axis=None):
    d[y] = tangent.repeat_method_tangent(d[x], x, repeats, axis)


@adjoint(numpy.pad)
def pad(y, x, pad_width, mode="constant", constant_values=0.0):
    d[x] = tangent.pad_grad(d[y], x, pad_width, mode)
    d[constant_values] = tangent.pad_constant_grad(d[y], x, pad_width)


@tangent_(numpy.pad)
def pad_tangent(y, x, pad_width, mode="constant", constant_values=0.0):
    d[y] = tangent.pad_tangent(d[x], d[constant_values], x, pad_width, mode)


# ------------------------------------------------------------ gathers and stencils
# A gather's adjoint runs the same function on the labels of its input's elements
# (tangent.element_labels) and adds each output's gradient to the element it copies
# (stdlib-shims/tangent/_grads_select.py).

@adjoint(numpy.take)
def take(y, a, indices, axis=None, out=None, mode="raise"):
    d[a] = tangent.gather_grad(
        d[y], a, numpy.take(tangent.element_labels(a), indices, axis, None, mode))


@tangent_(numpy.take)
def take_tangent(y, a, indices, axis=None, out=None, mode="raise"):
    d[y] = numpy.take(d[a], indices, axis, None, mode)


@adjoint(numpy.take_along_axis)
def take_along_axis(y, arr, indices, axis=-1):
    d[arr] = tangent.gather_grad(
        d[y], arr, numpy.take_along_axis(tangent.element_labels(arr), indices, axis))


@tangent_(numpy.take_along_axis)
def take_along_axis_tangent(y, arr, indices, axis=-1):
    d[y] = numpy.take_along_axis(d[arr], indices, axis)


@adjoint(numpy.append)
def append(y, arr, values, axis=None):
    d[arr] = tangent.gather_grad(d[y], arr, numpy.append(
        tangent.element_labels(arr), tangent.element_labels(values, 1), axis))
    d[values] = tangent.gather_grad(d[y], values, numpy.append(
        tangent.element_labels(arr), tangent.element_labels(values, 1), axis), 1)


@tangent_(numpy.append)
def append_tangent(y, arr, values, axis=None):
    d[y] = numpy.append(tangent.pair_tangent(d[arr], arr),
                        tangent.pair_tangent(d[values], values), axis)


@adjoint(numpy.insert)
def insert(y, arr, obj, values, axis=None):
    d[arr] = tangent.gather_grad(d[y], arr, numpy.insert(
        tangent.element_labels(arr), obj, tangent.element_labels(values, 1), axis))
    d[values] = tangent.gather_grad(d[y], values, numpy.insert(
        tangent.element_labels(arr), obj, tangent.element_labels(values, 1), axis), 1)


@tangent_(numpy.insert)
def insert_tangent(y, arr, obj, values, axis=None):
    d[y] = numpy.insert(tangent.pair_tangent(d[arr], arr), obj,
                        tangent.pair_tangent(d[values], values), axis)


@adjoint(numpy.delete)
def delete(y, arr, obj, axis=None):
    d[arr] = tangent.gather_grad(
        d[y], arr, numpy.delete(tangent.element_labels(arr), obj, axis))


@tangent_(numpy.delete)
def delete_tangent(y, arr, obj, axis=None):
    d[y] = numpy.delete(d[arr], obj, axis)


@adjoint(numpy.block)
def block(y, arrays):
    d[arrays] = tangent.block_grad(d[y], arrays)


@tangent_(numpy.block)
def block_tangent(y, arrays):
    d[y] = numpy.block(tangent.block_tangent(d[arrays], arrays))


# unique's values are copies of elements (a gather); its indices and counts are integers
@adjoint(numpy.unique)
def unique(y, ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           equal_nan=True, sorted=True):
    d[ar] = tangent.unique_grad(d[y], ar, return_index, return_inverse, return_counts, axis,
                                equal_nan)


@tangent_(numpy.unique)
def unique_tangent(y, ar, return_index=False, return_inverse=False, return_counts=False,
                   axis=None, equal_nan=True, sorted=True):
    d[y] = tangent.unique_tangent(d[ar], ar, return_index, return_inverse, return_counts, axis,
                                  equal_nan)


# histogram: the counts are piecewise constant in the data, the edges (from the data's
# range) and a density are not; weighted counts are linear in the weights
@adjoint(numpy.histogram)
def histogram(y, a, bins=10, range=None, density=None, weights=None):
    d[a] = tangent.histogram_grad(d[y], a, bins, range, density, weights, 0)
    d[weights] = tangent.histogram_grad(d[y], a, bins, range, density, weights, 1)
    d[bins] = tangent.histogram_grad(d[y], a, bins, range, density, weights, 2)
    d[range] = tangent.histogram_range_refused(range)


@tangent_(numpy.histogram)
def histogram_tangent(y, a, bins=10, range=None, density=None, weights=None):
    d[y] = tangent.histogram_tangent(d[a], d[weights], d[bins], a, bins, range, density,
                                     weights)


@adjoint(numpy.matrix_transpose)
@adjoint(numpy.linalg.matrix_transpose)
def matrix_transpose(y, x):
    d[x] = tangent.gather_grad(d[y], x, numpy.matrix_transpose(tangent.element_labels(x)))


@tangent_(numpy.matrix_transpose)
@tangent_(numpy.linalg.matrix_transpose)
def matrix_transpose_tangent(y, x):
    d[y] = numpy.matrix_transpose(d[x])


@adjoint(numpy.rollaxis)
def rollaxis(y, a, axis, start=0):
    d[a] = tangent.gather_grad(d[y], a, numpy.rollaxis(tangent.element_labels(a), axis, start))


@tangent_(numpy.rollaxis)
def rollaxis_tangent(y, a, axis, start=0):
    d[y] = numpy.rollaxis(d[a], axis, start)


@adjoint(numpy.diagflat)
def diagflat(y, v, k=0):
    d[v] = tangent.gather_grad(d[y], v, numpy.diagflat(tangent.element_labels(v), k))


@tangent_(numpy.diagflat)
def diagflat_tangent(y, v, k=0):
    d[y] = numpy.diagflat(d[v], k)


@adjoint(numpy.compress)
def compress(y, condition, a, axis=None, out=None):
    d[a] = tangent.gather_grad(
        d[y], a, numpy.compress(condition, tangent.element_labels(a), axis))


@tangent_(numpy.compress)
def compress_tangent(y, condition, a, axis=None, out=None):
    d[y] = numpy.compress(condition, d[a], axis)


@adjoint(numpy.extract)
def extract(y, condition, arr):
    d[arr] = tangent.gather_grad(d[y], arr, numpy.extract(condition, tangent.element_labels(arr)))


@tangent_(numpy.extract)
def extract_tangent(y, condition, arr):
    d[y] = numpy.extract(condition, d[arr])


@adjoint(numpy.resize)
def resize(y, a, new_shape):
    d[a] = tangent.gather_grad(d[y], a, numpy.resize(tangent.element_labels(a), new_shape))


@tangent_(numpy.resize)
def resize_tangent(y, a, new_shape):
    d[y] = numpy.resize(d[a], new_shape)


# partition's values come from where argpartition says (like sort's)
@adjoint(numpy.partition)
def partition(y, a, kth, axis=-1, kind="introselect", order=None):
    d[a] = tangent.gather_grad(d[y], a, tangent.partition_picked(
        tangent.element_labels(a), tangent.partition_order(a, kth, axis), axis))


@tangent_(numpy.partition)
def partition_tangent(y, a, kth, axis=-1, kind="introselect", order=None):
    d[y] = tangent.partition_picked(d[a], tangent.partition_order(a, kth, axis), axis)


@adjoint(numpy.unstack)
def unstack(y, x, axis=0):
    d[x] = tangent.unstack_grad(d[y], x, axis)


@tangent_(numpy.unstack)
def unstack_tangent(y, x, axis=0):
    d[y] = numpy.unstack(d[x], axis=axis)


# each output of meshgrid and broadcast_arrays copies one argument's elements
@adjoint(numpy.meshgrid)
def meshgrid(y, *xi, copy=True, sparse=False, indexing="xy"):
    d[xi] = tangent.gather_grads(d[y], xi, tangent.meshgrid_labels(xi, indexing, sparse))


@tangent_(numpy.meshgrid)
def meshgrid_tangent(y, *xi, copy=True, sparse=False, indexing="xy"):
    d[y] = tangent.meshgrid_tangent(d[xi], xi, indexing, sparse)


@adjoint(numpy.broadcast_arrays)
def broadcast_arrays(y, *args, subok=False):
    d[args] = tangent.gather_grads(d[y], args, tangent.broadcast_labels(args))


@tangent_(numpy.broadcast_arrays)
def broadcast_arrays_tangent(y, *args, subok=False):
    d[y] = tangent.broadcast_tangent(d[args], args)


# choose and select copy each output element from one of several sources
@adjoint(numpy.choose)
def choose(y, a, choices, out=None, mode="raise"):
    d[choices] = tangent.choose_grad(d[y], a, choices, mode)


@tangent_(numpy.choose)
def choose_tangent(y, a, choices, out=None, mode="raise"):
    d[y] = tangent.choose_tangent(d[choices], a, choices, mode)


@adjoint(numpy.select)
def select(y, condlist, choicelist, default=0):
    d[choicelist] = tangent.select_grad(d[y], condlist, choicelist, default, 0)
    d[default] = tangent.select_grad(d[y], condlist, choicelist, default, 1)


@tangent_(numpy.select)
def select_tangent(y, condlist, choicelist, default=0):
    d[y] = tangent.select_tangent(d[choicelist], d[default], condlist, choicelist, default)


# bincount adds each weight to its bin: a weight's gradient is its bin's
@adjoint(numpy.bincount)
def bincount(y, x, weights=None, minlength=0):
    d[weights] = tangent.reshape_as(numpy.take(d[y], x), weights)


@tangent_(numpy.bincount)
def bincount_tangent(y, x, weights=None, minlength=0):
    d[y] = numpy.bincount(x, weights=d[weights], minlength=minlength)


# unique_values and the unique_* records: their values are copies of elements
@adjoint(numpy.unique_values)
def unique_values(y, x):
    d[x] = tangent.unique_result_grad(d[y], x, y, False)


@tangent_(numpy.unique_values)
def unique_values_tangent(y, x):
    d[y] = tangent.unique_result_tangent(d[x], x, y, False)


@adjoint(numpy.unique_counts)
@adjoint(numpy.unique_inverse)
@adjoint(numpy.unique_all)
def unique_record(y, x):
    d[x] = tangent.unique_result_grad(d[y], x, y, True)


@tangent_(numpy.unique_counts)
@tangent_(numpy.unique_inverse)
@tangent_(numpy.unique_all)
def unique_record_tangent(y, x):
    d[y] = tangent.unique_result_tangent(d[x], x, y, True)


@adjoint(numpy.ediff1d)
def ediff1d(y, ary, to_end=None, to_begin=None):
    d[ary] = tangent.ediff1d_grad(d[y], ary, to_end, to_begin, 0)
    d[to_end] = tangent.ediff1d_grad(d[y], ary, to_end, to_begin, 1)
    d[to_begin] = tangent.ediff1d_grad(d[y], ary, to_end, to_begin, 2)


@tangent_(numpy.ediff1d)
def ediff1d_tangent(y, ary, to_end=None, to_begin=None):
    d[y] = tangent.ediff1d_tangent(d[ary], d[to_end], d[to_begin], ary, to_end, to_begin)


# the identity almost everywhere: nextafter moves by one ulp, unwrap by multiples of
# the period
@adjoint(numpy.nextafter)
def nextafter(y, x1, x2):
    d[x1] = tangent.unbroadcast(d[y], x1)
    d[x2] = 0.0  # the direction only


@tangent_(numpy.nextafter)
def nextafter_tangent(y, x1, x2):
    d[y] = numpy.broadcast_to(d[x1], numpy.shape(y))


@adjoint(numpy.unwrap)
def unwrap(y, p, discont=None, axis=-1, period=6.283185307179586):
    d[p] = tangent.array_grad(d[y], p)


@tangent_(numpy.unwrap)
def unwrap_tangent(y, p, discont=None, axis=-1, period=6.283185307179586):
    d[y] = d[p] * 1.0


@adjoint(numpy.divmod)
def divmod_(y, x1, x2):
    d[x1] = tangent.divmod_grad(d[y], x1, x2, 0)
    d[x2] = tangent.divmod_grad(d[y], x1, x2, 1)


@tangent_(numpy.divmod)
def divmod_tangent(y, x1, x2):
    d[y] = tangent.divmod_tangent(d[x1], d[x2], x1, x2)


# trim_zeros: the elements kept are a box of the input (found from its nonzeros, a
# piecewise constant choice).
@adjoint(numpy.trim_zeros)
def trim_zeros(y, filt, trim="fb", axis=None):
    d[filt] = tangent.trim_zeros_grad(d[y], filt, trim, axis)


@tangent_(numpy.trim_zeros)
def trim_zeros_tangent(y, filt, trim="fb", axis=None):
    d[y] = tangent.trim_zeros_tangent(d[filt], filt, trim, axis)


# sinc and i0: their derivatives of every order are the helpers' (accurate at 0, where
# sinc's closed form divides by x), each helper's rule the next order.
@adjoint(numpy.sinc)
def sinc(y, x):
    d[x] = d[y] * tangent.sinc_derivative(x, 1)


@tangent_(numpy.sinc)
def sinc_tangent(y, x):
    d[y] = d[x] * tangent.sinc_derivative(x, 1)


@adjoint(numpy.i0)
def i0(y, x):
    d[x] = d[y] * tangent.i0_derivative(x, 1)


@tangent_(numpy.i0)
def i0_tangent(y, x):
    d[y] = d[x] * tangent.i0_derivative(x, 1)


# modf's fractional part follows x between integers and its integral part is piecewise
# constant; frexp's mantissa is x times the piecewise constant 2**-e.
@adjoint(numpy.modf)
def modf(y, x):
    d[x] = tangent.modf_grad(d[y], x)


@tangent_(numpy.modf)
def modf_tangent(y, x):
    d[y] = tangent.modf_tangent(d[x], x)


@adjoint(numpy.frexp)
def frexp(y, x):
    d[x] = tangent.frexp_grad(d[y], x)


@tangent_(numpy.frexp)
def frexp_tangent(y, x):
    d[y] = tangent.frexp_tangent(d[x], x)


@adjoint(numpy.histogram_bin_edges)
def histogram_bin_edges(y, a, bins=10, range=None, weights=None):
    d[a] = tangent.histogram_grad(tangent.edges_cotangent(d[y]), a, bins, range, False,
                                  weights, 0)
    d[bins] = tangent.histogram_grad(tangent.edges_cotangent(d[y]), a, bins, range, False,
                                     weights, 2)
    d[range] = tangent.histogram_range_refused(range)


@tangent_(numpy.histogram_bin_edges)
def histogram_bin_edges_tangent(y, a, bins=10, range=None, weights=None):
    d[y] = tangent.histogram_edges_tangent(d[a], 0.0, d[bins], a, bins, range, weights)


@adjoint(numpy.diff)
def diff(y, a, n=1, axis=-1, prepend=None, append=None):
    d[a] = tangent.diff_grad(d[y], a, n, axis, prepend, append, 0)
    d[prepend] = tangent.diff_grad(d[y], a, n, axis, prepend, append, 1)
    d[append] = tangent.diff_grad(d[y], a, n, axis, prepend, append, 2)


@tangent_(numpy.diff)
def diff_tangent(y, a, n=1, axis=-1, prepend=None, append=None):
    d[y] = tangent.diff_tangent(d[a], d[prepend], d[append], a, n, axis, prepend, append)


@adjoint(numpy.gradient)
def gradient(y, f, *varargs, axis=None, edge_order=1):
    d[f] = tangent.gradient_grad(d[y], f, varargs, axis, edge_order)
    d[varargs] = tangent.gradient_spacing_refused(varargs)


@tangent_(numpy.gradient)
def gradient_tangent(y, f, *varargs, axis=None, edge_order=1):
    d[y] = tangent.gradient_tangent(d[f], f, varargs, axis, edge_order)


@adjoint(numpy.trapezoid)
def trapezoid(z, y, x=None, dx=1.0, axis=-1):
    d[y] = tangent.trapezoid_grad(d[z], y, x, dx, axis, 0)
    d[x] = tangent.trapezoid_grad(d[z], y, x, dx, axis, 1)
    d[dx] = tangent.trapezoid_grad(d[z], y, x, dx, axis, 2)


@tangent_(numpy.trapezoid)
def trapezoid_tangent(z, y, x=None, dx=1.0, axis=-1):
    d[z] = tangent.trapezoid_tangent(d[y], d[x], d[dx], y, x, dx, axis)


# ------------------------------------------------------ products and polynomials
# kron, cross, convolve and correlate are bilinear: each gradient is linear in the
# cotangent and the other operand (stdlib-shims/tangent/_grads_matrix.py).

@adjoint(numpy.kron)
def kron(y, a, b):
    d[a] = tangent.kron_grad(d[y], a, b, 0)
    d[b] = tangent.kron_grad(d[y], a, b, 1)


@tangent_(numpy.kron)
def kron_tangent(y, a, b):
    d[y] = tangent.bilinear_tangent(numpy.kron, d[a], a, d[b], b)


@adjoint(numpy.cross)
def cross(y, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[a] = tangent.cross_grad(d[y], a, b, axisa, axisb, axisc, axis, 0)
    d[b] = tangent.cross_grad(d[y], a, b, axisa, axisb, axisc, axis, 1)


@tangent_(numpy.cross)
def cross_tangent(y, a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    d[y] = tangent.bilinear_tangent(numpy.cross, d[a], a, d[b], b, axisa, axisb, axisc, axis)


# The array API's cross: 3-vectors along `axis` of both operands and of the result.
@adjoint(numpy.linalg.cross)
def linalg_cross(y, x1, x2, axis=-1):
    d[x1] = tangent.cross_grad(d[y], x1, x2, axis, axis, axis, None, 0)
    d[x2] = tangent.cross_grad(d[y], x1, x2, axis, axis, axis, None, 1)


@tangent_(numpy.linalg.cross)
def linalg_cross_tangent(y, x1, x2, axis=-1):
    d[y] = tangent.bilinear_tangent(numpy.cross, d[x1], x1, d[x2], x2, axis, axis, axis, None)


@adjoint(numpy.convolve)
def convolve(y, a, v, mode="full"):
    d[a] = tangent.convolve_grad(d[y], a, v, mode, 0)
    d[v] = tangent.convolve_grad(d[y], a, v, mode, 1)


@tangent_(numpy.convolve)
def convolve_tangent(y, a, v, mode="full"):
    d[y] = tangent.bilinear_tangent(numpy.convolve, d[a], a, d[v], v, mode)


@adjoint(numpy.correlate)
def correlate(y, a, v, mode="valid"):
    d[a] = tangent.correlate_grad(d[y], a, v, mode, 0)
    d[v] = tangent.correlate_grad(d[y], a, v, mode, 1)


@tangent_(numpy.correlate)
def correlate_tangent(y, a, v, mode="valid"):
    d[y] = tangent.bilinear_tangent(numpy.correlate, d[a], a, d[v], v, mode)


@adjoint(numpy.polyval)
def polyval(y, p, x):
    d[p] = tangent.polyval_grad(d[y], p, x, 0)
    d[x] = tangent.polyval_grad(d[y], p, x, 1)


@tangent_(numpy.polyval)
def polyval_tangent(y, p, x):
    d[y] = tangent.polyval_tangent(d[p], d[x], p, x)


@adjoint(numpy.polyadd)
def polyadd(y, a1, a2):
    d[a1] = tangent.polyadd_grad(d[y], a1, a2, 0)
    d[a2] = tangent.polyadd_grad(d[y], a1, a2, 1)


@tangent_(numpy.polyadd)
def polyadd_tangent(y, a1, a2):
    d[y] = tangent.poly_pair_tangent(d[a1], d[a2], a1, a2)


@adjoint(numpy.polysub)
def polysub(y, a1, a2):
    d[a1] = tangent.polyadd_grad(d[y], a1, a2, 0, -1.0)
    d[a2] = tangent.polyadd_grad(d[y], a1, a2, 1, -1.0)


@tangent_(numpy.polysub)
def polysub_tangent(y, a1, a2):
    d[y] = tangent.poly_pair_tangent(d[a1], d[a2], a1, a2, -1.0)


@adjoint(numpy.polymul)
def polymul(y, a1, a2):
    d[a1] = tangent.polymul_grad(d[y], a1, a2, 0)
    d[a2] = tangent.polymul_grad(d[y], a1, a2, 1)


@tangent_(numpy.polymul)
def polymul_tangent(y, a1, a2):
    d[y] = tangent.bilinear_tangent(numpy.polymul, d[a1], a1, d[a2], a2)


@adjoint(numpy.polyint)
def polyint(y, p, m=1, k=None):
    d[p] = tangent.polyint_grad(d[y], p, m)


@tangent_(numpy.polyint)
def polyint_tangent(y, p, m=1, k=None):
    d[y] = numpy.polyint(d[p], m)


# roots: a simple root r of p moves by dr = -(sum_k dp_k r**(n-k)) / p'(r) (implicit
# function theorem; a multiple root has no derivative: p'(r) = 0 gives inf or nan).
@adjoint(numpy.roots)
def roots(r, p):
    d[p] = -numpy.matmul(d[r] / numpy.polyval(numpy.polyder(p), r),
                         numpy.vander(r, numpy.size(p)))


@tangent_(numpy.roots)
def roots_tangent(r, p):
    d[r] = -numpy.matmul(numpy.vander(r, numpy.size(p)), d[p]) / numpy.polyval(
        numpy.polyder(p), r)


# poly: NumPy's product of the factors (1, -z) written out (`@control_flow`); a square
# matrix's characteristic polynomial goes through eigvals (real eigenvalues).
@control_flow(numpy.poly)
def poly(seq_of_zeros):
    z = numpy.atleast_1d(seq_of_zeros)
    if numpy.ndim(z) == 2:
        z = numpy.linalg.eigvals(z)
    if numpy.shape(z)[0] == 0:
        a = 1.0
    else:
        a = numpy.ones_like(z[:1]) * 1.0
        for k in range(numpy.shape(z)[0]):
            a = numpy.convolve(a, numpy.stack([numpy.ones_like(z[k]), -z[k]]))
    return a


# polydiv: NumPy's long division written out, each step a new remainder (the same
# subtractions); the remainder's leading zeros dropped as NumPy drops them (a test on
# values: piecewise constant).
@control_flow(numpy.polydiv)
def polydiv(u, v):
    uu = numpy.atleast_1d(u) + 0.0
    vv = numpy.atleast_1d(v) + 0.0
    m = numpy.shape(uu)[0] - 1
    n = numpy.shape(vv)[0] - 1
    scale = 1.0 / vv[0]
    r = uu.astype((uu[0] + vv[0]).dtype)
    if m - n + 1 > 0:
        quotients = []
        for k in range(0, m - n + 1):
            quotient = scale * r[k]
            quotients = quotients + [quotient]
            r = numpy.concatenate([r[:k], r[k:k + n + 1] - quotient * vv, r[k + n + 1:]])
        q = numpy.stack(quotients)
    else:
        q = numpy.zeros((1,), dtype=r.dtype)
    while numpy.allclose(r[0], 0, rtol=1e-14) and (numpy.shape(r)[-1] > 1):
        r = r[1:]
    return (q, r)


@adjoint(numpy.vander)
def vander(y, x, N=None, increasing=False):
    d[x] = tangent.vander_grad(d[y], x, N, increasing)


@tangent_(numpy.vander)
def vander_tangent(y, x, N=None, increasing=False):
    d[y] = tangent.vander_tangent(d[x], x, N, increasing)


@adjoint(numpy.polyfit)
def polyfit(c, x, y, deg, rcond=None, full=False, w=None, cov=False):
    d[y] = tangent.polyfit_grad(d[c], x, y, deg, rcond, w) + (
        tangent.polyfit_options_refused(full, cov))
    d[x] = tangent.polyfit_x_refused(x)


@tangent_(numpy.polyfit)
def polyfit_tangent(c, x, y, deg, rcond=None, full=False, w=None, cov=False):
    d[c] = numpy.polyfit(x, d[y], deg, rcond, False, w) + tangent.polyfit_options_refused(
        full, cov) + tangent.polyfit_x_refused(x) * d[x]


@adjoint(numpy.polyder)
def polyder(y, p, m=1):
    d[p] = tangent.polyder_grad(d[y], p, m)


@tangent_(numpy.polyder)
def polyder_tangent(y, p, m=1):
    d[y] = numpy.polyder(d[p], m)


# vector products (bilinear)
@adjoint(numpy.vdot)
def vdot(y, a, b):
    d[a] = tangent.vdot_grad(d[y], a, b, 0)
    d[b] = tangent.vdot_grad(d[y], a, b, 1)


@tangent_(numpy.vdot)
def vdot_tangent(y, a, b):
    d[y] = tangent.bilinear_tangent(numpy.vdot, d[a], a, d[b], b)


@adjoint(numpy.matvec)
def matvec(y, x1, x2):
    d[x1] = tangent.matvec_grad(d[y], x1, x2, 0)
    d[x2] = tangent.matvec_grad(d[y], x1, x2, 1)


@tangent_(numpy.matvec)
def matvec_tangent(y, x1, x2):
    d[y] = tangent.bilinear_tangent(numpy.matvec, d[x1], x1, d[x2], x2)


@adjoint(numpy.vecmat)
def vecmat(y, x1, x2):
    d[x1] = tangent.vecmat_grad(d[y], x1, x2, 0)
    d[x2] = tangent.vecmat_grad(d[y], x1, x2, 1)


@tangent_(numpy.vecmat)
def vecmat_tangent(y, x1, x2):
    d[y] = tangent.bilinear_tangent(numpy.vecmat, d[x1], x1, d[x2], x2)


@adjoint(numpy.vecdot)
@adjoint(numpy.linalg.vecdot)
def vecdot(y, x1, x2, axis=-1):
    d[x1] = tangent.vecdot_grad(d[y], x1, x2, axis, 0)
    d[x2] = tangent.vecdot_grad(d[y], x1, x2, axis, 1)


@tangent_(numpy.vecdot)
@tangent_(numpy.linalg.vecdot)
def vecdot_tangent(y, x1, x2, axis=-1):
    d[y] = tangent.bilinear_tangent(tangent.vecdot_positional, d[x1], x1, d[x2], x2, axis)


# log- and geometrically spaced samples: linspace's weights, scaled
@adjoint(numpy.logspace)
def logspace(y, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    d[start] = tangent.linspace_grad(d[y] * y * numpy.log(base), start, num, endpoint, False,
                                     axis, 0)
    d[stop] = tangent.linspace_grad(d[y] * y * numpy.log(base), stop, num, endpoint, False,
                                    axis, 1)
    d[base] = tangent.unbroadcast(numpy.sum(
        d[y] * y * numpy.linspace(start, stop, num, endpoint, axis=axis) / base), base)


@tangent_(numpy.logspace)
def logspace_tangent(y, start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    d[y] = y * numpy.log(base) * tangent.linspace_tangent(
        d[start], d[stop], y, num, endpoint, False, axis) + d[base] * y * numpy.linspace(
        start, stop, num, endpoint, axis=axis) / base


@adjoint(numpy.geomspace)
def geomspace(y, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    d[start] = tangent.linspace_grad(d[y] * y / start, start, num, endpoint, False, axis, 0)
    d[stop] = tangent.linspace_grad(d[y] * y / stop, stop, num, endpoint, False, axis, 1)


@tangent_(numpy.geomspace)
def geomspace_tangent(y, start, stop, num=50, endpoint=True, dtype=None, axis=0):
    d[y] = y * tangent.linspace_tangent(d[start] / start, d[stop] / stop, y, num, endpoint,
                                        False, axis)


# NaN as a number, infinities as the largest finite ones: the identity elsewhere
@adjoint(numpy.nan_to_num)
def nan_to_num(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[x] = numpy.where(numpy.isfinite(x), d[y], 0.0)
    d[nan] = tangent.unbroadcast(numpy.where(numpy.isnan(x), d[y], 0.0), nan)
    d[posinf] = tangent.unbroadcast(numpy.where(numpy.isposinf(x), d[y], 0.0), posinf)
    d[neginf] = tangent.unbroadcast(numpy.where(numpy.isneginf(x), d[y], 0.0), neginf)


@tangent_(numpy.nan_to_num)
def nan_to_num_tangent(y, x, copy=True, nan=0.0, posinf=None, neginf=None):
    d[y] = (numpy.where(numpy.isfinite(x), d[x], 0.0) + numpy.where(numpy.isnan(x), d[nan], 0.0)
            + numpy.where(numpy.isposinf(x), d[posinf], 0.0)
            + numpy.where(numpy.isneginf(x), d[neginf], 0.0))


@adjoint(numpy.ldexp)
def ldexp(y, x1, x2):
    d[x1] = tangent.unbroadcast(d[y] * numpy.ldexp(1.0, x2), x1)


@tangent_(numpy.ldexp)
def ldexp_tangent(y, x1, x2):
    d[y] = d[x1] * numpy.ldexp(1.0, x2)


# conversions that return their argument's values
@adjoint(numpy.asarray_chkfinite)
def asarray_chkfinite(y, a, dtype=None, order=None):
    d[a] = tangent.array_grad(d[y], a)


@tangent_(numpy.asarray_chkfinite)
def asarray_chkfinite_tangent(y, a, dtype=None, order=None):
    d[y] = d[a]


@adjoint(numpy.asfortranarray)
def asfortranarray(y, a, dtype=None, like=None):
    d[a] = tangent.array_grad(d[y], a)


@tangent_(numpy.asfortranarray)
def asfortranarray_tangent(y, a, dtype=None, like=None):
    d[y] = d[a]


@adjoint(numpy.require)
def require(y, a, dtype=None, requirements=None, like=None):
    d[a] = tangent.array_grad(d[y], a)


@tangent_(numpy.require)
def require_tangent(y, a, dtype=None, requirements=None, like=None):
    d[y] = d[a]


# apply_along_axis: `func1d` called on each 1-d slice along `axis` (in C order of the
# other axes), the results stacked with the function's own axes where `axis` was, as
# NumPy lays them out; the derivative goes through the calls of `func1d`.
@control_flow(numpy.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args):
    ax = axis % numpy.ndim(arr)
    moved = numpy.moveaxis(arr, ax, -1)
    lanes = list(numpy.ndindex(numpy.shape(moved)[:-1]))
    outs = []
    for k in range(len(lanes)):
        o = func1d(moved[lanes[k]], args)
        outs = outs + [o]
    first = numpy.asarray(outs[0])
    out = numpy.reshape(numpy.stack(outs), numpy.shape(moved)[:-1] + numpy.shape(first))
    for j in range(numpy.ndim(first)):
        out = numpy.moveaxis(out, numpy.ndim(moved) - 1 + j, ax + j)
    return out


# apply_over_axes: `func(a, axis)` over each axis in turn, a result that lost the axis
# given it back (NumPy's loop).
@control_flow(numpy.apply_over_axes)
def apply_over_axes(func, a, axes):
    val = a
    n = numpy.ndim(a)
    each = list(numpy.atleast_1d(axes))
    for k in range(len(each)):
        axis = int(each[k]) % n
        res = func(val, axis)
        if numpy.ndim(res) == numpy.ndim(val):
            val = res
        else:
            val = numpy.expand_dims(res, axis)
    return val


@adjoint(numpy.real_if_close)
def real_if_close(y, a, tol=100):
    d[a] = tangent.array_grad(d[y], a)


@tangent_(numpy.real_if_close)
def real_if_close_tangent(y, a, tol=100):
    d[y] = d[a]


# Complex values, in the rules' convention (JAX's: the adjoint of z = x + iy is
# dL/dx - i dL/dy, see tangent._grads_complex): the real part's adjoint is the real
# gradient itself, the imaginary part's -i times it; conj's adjoint and tangent are
# conjugates. Of a real value: itself and zero (the helpers keep a real value's gradient
# real).
@adjoint(numpy.real)
def real(y, val):
    d[val] = tangent.array_grad(d[y], val)


@tangent_(numpy.real)
def real_tangent(y, val):
    d[y] = tangent.broadcast_like(numpy.real(d[val]), y)


@adjoint(numpy.ndarray.real)
def real_part(y, self):
    d[self] = tangent.array_grad(d[y], self)


@tangent_(numpy.ndarray.real)
def real_part_tangent(y, self):
    d[y] = tangent.broadcast_like(numpy.real(d[self]), y)


@adjoint(numpy.imag)
def imag(y, val):
    d[val] = tangent.array_grad(-1j * d[y], val)


@tangent_(numpy.imag)
def imag_tangent(y, val):
    d[y] = tangent.broadcast_like(numpy.imag(d[val]), y)


@adjoint(numpy.ndarray.imag)
def imag_part(y, self):
    d[self] = tangent.array_grad(-1j * d[y], self)


@tangent_(numpy.ndarray.imag)
def imag_part_tangent(y, self):
    d[y] = tangent.broadcast_like(numpy.imag(d[self]), y)


@adjoint(numpy.conjugate)
def conjugate(y, x):
    d[x] = tangent.array_grad(numpy.conjugate(d[y]), x)


@tangent_(numpy.conjugate)
def conjugate_tangent(y, x):
    d[y] = tangent.broadcast_like(numpy.conjugate(d[x]), y)


@adjoint(numpy.ndarray.conj)
@adjoint(numpy.ndarray.conjugate)
def conj_method(y, self):
    d[self] = tangent.array_grad(numpy.conjugate(d[y]), self)


@tangent_(numpy.ndarray.conj)
@tangent_(numpy.ndarray.conjugate)
def conj_method_tangent(y, self):
    d[y] = tangent.broadcast_like(numpy.conjugate(d[self]), y)


@adjoint(numpy.angle)
def angle(y, z, deg=False):
    d[z] = tangent.angle_grad(d[y], z, deg)


@tangent_(numpy.angle)
def angle_tangent(y, z, deg=False):
    d[y] = tangent.angle_tangent(d[z], z, deg)


# numpy.fft: linear maps; each adjoint is the transform's transpose on the lengths it
# used, fitted back to the input (tangent._grads_complex), each tangent the transform of
# the tangent.
@adjoint(numpy.fft.fft)
def fft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "fft", n, axis, norm)


@tangent_(numpy.fft.fft)
def fft_tangent(y, a, n=None, axis=-1, norm=None, out=None):
    d[y] = numpy.fft.fft(d[a], n, axis, norm)


@adjoint(numpy.fft.ifft)
def ifft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "ifft", n, axis, norm)


@tangent_(numpy.fft.ifft)
def ifft_tangent(y, a, n=None, axis=-1, norm=None, out=None):
    d[y] = numpy.fft.ifft(d[a], n, axis, norm)


@adjoint(numpy.fft.rfft)
def rfft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "rfft", n, axis, norm)


@tangent_(numpy.fft.rfft)
def rfft_tangent(y, a, n=None, axis=-1, norm=None, out=None):
    d[y] = numpy.fft.rfft(d[a], n, axis, norm)


@adjoint(numpy.fft.irfft)
def irfft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "irfft", n, axis, norm)


@tangent_(numpy.fft.irfft)
def irfft_tangent(y, a, n=None, axis=-1, norm=None, out=None):
    d[y] = numpy.fft.irfft(d[a], n, axis, norm)


@adjoint(numpy.fft.hfft)
def hfft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "hfft", n, axis, norm)


@tangent_(numpy.fft.hfft)
def hfft_tangent(y, a, n=None, axis=-1, norm=None, out=None):
    d[y] = numpy.fft.hfft(d[a], n, axis, norm)


@adjoint(numpy.fft.ihfft)
def ihfft(y, a, n=None, axis=-1, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "ihfft", n, axis, norm)


@tangent_(numpy.fft.ihfft)
def ihfft_tangent(y, a, n=None, axis=-1, norm=None, out=None):
    d[y] = numpy.fft.ihfft(d[a], n, axis, norm)


@adjoint(numpy.fft.fft2)
def fft2(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "fft2", s, axes, norm)


@tangent_(numpy.fft.fft2)
def fft2_tangent(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[y] = numpy.fft.fft2(d[a], s, axes, norm)


@adjoint(numpy.fft.ifft2)
def ifft2(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "ifft2", s, axes, norm)


@tangent_(numpy.fft.ifft2)
def ifft2_tangent(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[y] = numpy.fft.ifft2(d[a], s, axes, norm)


@adjoint(numpy.fft.rfft2)
def rfft2(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "rfft2", s, axes, norm)


@tangent_(numpy.fft.rfft2)
def rfft2_tangent(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[y] = numpy.fft.rfft2(d[a], s, axes, norm)


@adjoint(numpy.fft.irfft2)
def irfft2(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "irfft2", s, axes, norm)


@tangent_(numpy.fft.irfft2)
def irfft2_tangent(y, a, s=None, axes=(-2, -1), norm=None, out=None):
    d[y] = numpy.fft.irfft2(d[a], s, axes, norm)


@adjoint(numpy.fft.fftn)
def fftn(y, a, s=None, axes=None, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "fftn", s, axes, norm)


@tangent_(numpy.fft.fftn)
def fftn_tangent(y, a, s=None, axes=None, norm=None, out=None):
    d[y] = numpy.fft.fftn(d[a], s, axes, norm)


@adjoint(numpy.fft.ifftn)
def ifftn(y, a, s=None, axes=None, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "ifftn", s, axes, norm)


@tangent_(numpy.fft.ifftn)
def ifftn_tangent(y, a, s=None, axes=None, norm=None, out=None):
    d[y] = numpy.fft.ifftn(d[a], s, axes, norm)


@adjoint(numpy.fft.rfftn)
def rfftn(y, a, s=None, axes=None, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "rfftn", s, axes, norm)


@tangent_(numpy.fft.rfftn)
def rfftn_tangent(y, a, s=None, axes=None, norm=None, out=None):
    d[y] = numpy.fft.rfftn(d[a], s, axes, norm)


@adjoint(numpy.fft.irfftn)
def irfftn(y, a, s=None, axes=None, norm=None, out=None):
    d[a] = tangent.fft_grad(d[y], a, "irfftn", s, axes, norm)


@tangent_(numpy.fft.irfftn)
def irfftn_tangent(y, a, s=None, axes=None, norm=None, out=None):
    d[y] = numpy.fft.irfftn(d[a], s, axes, norm)


# fftshift and ifftshift move elements (rolls along axes): each one's adjoint is the other.
@adjoint(numpy.fft.fftshift)
def fftshift(y, x, axes=None):
    d[x] = tangent.array_grad(numpy.fft.ifftshift(d[y], axes), x)


@tangent_(numpy.fft.fftshift)
def fftshift_tangent(y, x, axes=None):
    d[y] = numpy.fft.fftshift(d[x], axes)


@adjoint(numpy.fft.ifftshift)
def ifftshift(y, x, axes=None):
    d[x] = tangent.array_grad(numpy.fft.fftshift(d[y], axes), x)


@tangent_(numpy.fft.ifftshift)
def ifftshift_tangent(y, x, axes=None):
    d[y] = numpy.fft.ifftshift(d[x], axes)


# copysign(x, y) = |x| sign(y): the sign of y is piecewise constant.
@adjoint(numpy.copysign)
def copysign(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * numpy.copysign(1.0, x) * numpy.copysign(1.0, y), x)
    d[y] = 0.0  # piecewise constant


@tangent_(numpy.copysign)
def copysign_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] * numpy.copysign(1.0, x) * numpy.copysign(1.0, y), z)


# the scans of NumPy 2's array API, and those that skip NaN
@adjoint(numpy.cumulative_sum)
def cumulative_sum(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[x] = tangent.cumsum_grad(tangent.drop_initial(d[y], x, axis, include_initial), x, axis)


@tangent_(numpy.cumulative_sum)
def cumulative_sum_tangent(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[y] = numpy.cumulative_sum(d[x], axis=axis, include_initial=include_initial)


@adjoint(numpy.cumulative_prod)
def cumulative_prod(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[x] = tangent.cumprod_grad(tangent.drop_initial(d[y], x, axis, include_initial), x, axis)


@tangent_(numpy.cumulative_prod)
def cumulative_prod_tangent(y, x, axis=None, dtype=None, out=None, include_initial=False):
    d[y] = tangent.add_initial(tangent.cumprod_tangent(d[x], x, axis), x, axis, include_initial)


@adjoint(numpy.nancumsum)
def nancumsum(y, a, axis=None, dtype=None, out=None):
    d[a] = tangent.cumsum_grad(d[y], a, axis) * tangent.not_nan_mask(a)


@tangent_(numpy.nancumsum)
def nancumsum_tangent(y, a, axis=None, dtype=None, out=None):
    d[y] = numpy.cumsum(numpy.where(numpy.isnan(a), 0.0, d[a]), axis=axis)


@adjoint(numpy.nancumprod)
def nancumprod(y, a, axis=None, dtype=None, out=None):
    d[a] = tangent.cumprod_grad(d[y], numpy.where(numpy.isnan(a), 1.0, a), axis) * (
        tangent.not_nan_mask(a))


@tangent_(numpy.nancumprod)
def nancumprod_tangent(y, a, axis=None, dtype=None, out=None):
    d[y] = tangent.cumprod_tangent(numpy.where(numpy.isnan(a), 0.0, d[a]),
                                   numpy.where(numpy.isnan(a), 1.0, a), axis)


@adjoint(numpy.nanprod)
def nanprod(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[a] = tangent.prod_grad(d[y], numpy.where(numpy.isnan(a), 1.0, a), axis, keepdims) * (
        tangent.not_nan_mask(a))


@tangent_(numpy.nanprod)
def nanprod_tangent(y, a, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = tangent.prod_tangent(numpy.where(numpy.isnan(a), 0.0, d[a]),
                                numpy.where(numpy.isnan(a), 1.0, a), axis, keepdims)


# ------------------------------------------------------- reductions and scans


@adjoint(numpy.prod)
def prod(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.prod_grad(d[y], x, axis, keepdims)


@tangent_(numpy.prod)
def prod_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = tangent.prod_tangent(d[x], x, axis, keepdims)


@adjoint(numpy.ndarray.prod)
def prod_method(y, x, axis=None, dtype=None, out=None, keepdims=False, keepdim=None):
    if keepdim is None:
        d[x] = tangent.prod_grad(d[y], x, axis, keepdims)
    else:
        d[x] = tangent.prod_grad(d[y], x, axis, keepdim)


@tangent_(numpy.ndarray.prod)
def prod_method_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False, keepdim=None):
    if keepdim is None:
        d[y] = tangent.prod_tangent(d[x], x, axis, keepdims)
    else:
        d[y] = tangent.prod_tangent(d[x], x, axis, keepdim)


@adjoint(numpy.cumsum)
def cumsum(y, x, axis=None, dtype=None, out=None):
    d[x] = tangent.cumsum_grad(d[y], x, axis)


@tangent_(numpy.cumsum)
def cumsum_tangent(y, x, axis=None, dtype=None, out=None):
    d[y] = numpy.cumsum(d[x], axis=axis)


# `x.cumsum()` scans the flattened array in NumPy and JAX but axis 0 in tinygrad: without
# an axis, the value's library says which (tangent.method_axis).
@adjoint(numpy.ndarray.cumsum)
def cumsum_method(y, x, axis=None, dtype=None, out=None):
    if axis is None:
        d[x] = tangent.cumsum_grad(d[y], x, tangent.method_axis(x, "cumsum"))
    else:
        d[x] = tangent.cumsum_grad(d[y], x, axis)


@tangent_(numpy.ndarray.cumsum)
def cumsum_method_tangent(y, x, axis=None, dtype=None, out=None):
    if axis is None:
        d[y] = numpy.cumsum(d[x], axis=tangent.method_axis(x, "cumsum"))
    else:
        d[y] = numpy.cumsum(d[x], axis=axis)


@adjoint(numpy.cumprod)
@adjoint(numpy.ndarray.cumprod)
def cumprod(y, x, axis=None, dtype=None, out=None):
    d[x] = tangent.cumprod_grad(d[y], x, axis)


@tangent_(numpy.cumprod)
@tangent_(numpy.ndarray.cumprod)
def cumprod_tangent(y, x, axis=None, dtype=None, out=None):
    d[y] = tangent.cumprod_tangent(d[x], x, axis)


@adjoint(numpy.var)
def var(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = tangent.var_grad(d[y], x, axis, ddof, keepdims)


@tangent_(numpy.var)
def var_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = tangent.var_tangent(d[x], x, axis, ddof, keepdims)


@adjoint(numpy.std)
def std(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = tangent.var_grad(tangent.std_scale(d[y], y, x, axis), x, axis, ddof, keepdims)


@tangent_(numpy.std)
def std_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = tangent.std_scale(tangent.var_tangent(d[x], x, axis, ddof, keepdims), y, x, axis)


# The methods also take torch's names (`dim`, `correction`, `keepdim`), and the default
# ddof is the array library's (`tangent.method_ddof`: NumPy 0, torch 1).
nondifferentiable(tangent.method_ddof)


@adjoint(numpy.ndarray.var)
def var_method(y, x, axis=None, dtype=None, out=None, ddof=None, keepdims=False, dim=None,
               correction=None, keepdim=None):
    if dim is None:
        if keepdim is None:
            d[x] = tangent.var_grad(d[y], x, axis, tangent.method_ddof(x, ddof, correction),
                                    keepdims)
        else:
            d[x] = tangent.var_grad(d[y], x, axis, tangent.method_ddof(x, ddof, correction),
                                    keepdim)
    else:
        d[x] = tangent.var_grad(d[y], x, dim, tangent.method_ddof(x, ddof, correction), keepdim)


@tangent_(numpy.ndarray.var)
def var_method_tangent(y, x, axis=None, dtype=None, out=None, ddof=None, keepdims=False,
                       dim=None, correction=None, keepdim=None):
    if dim is None:
        if keepdim is None:
            d[y] = tangent.var_tangent(d[x], x, axis, tangent.method_ddof(x, ddof, correction),
                                       keepdims)
        else:
            d[y] = tangent.var_tangent(d[x], x, axis, tangent.method_ddof(x, ddof, correction),
                                       keepdim)
    else:
        d[y] = tangent.var_tangent(d[x], x, dim, tangent.method_ddof(x, ddof, correction),
                                   keepdim)


@adjoint(numpy.ndarray.std)
def std_method(y, x, axis=None, dtype=None, out=None, ddof=None, keepdims=False, dim=None,
               correction=None, keepdim=None):
    if dim is None:
        if keepdim is None:
            d[x] = tangent.var_grad(tangent.std_scale(d[y], y, x, axis), x, axis,
                                    tangent.method_ddof(x, ddof, correction), keepdims)
        else:
            d[x] = tangent.var_grad(tangent.std_scale(d[y], y, x, axis), x, axis,
                                    tangent.method_ddof(x, ddof, correction), keepdim)
    else:
        d[x] = tangent.var_grad(tangent.std_scale(d[y], y, x, dim), x, dim,
                                tangent.method_ddof(x, ddof, correction), keepdim)


@tangent_(numpy.ndarray.std)
def std_method_tangent(y, x, axis=None, dtype=None, out=None, ddof=None, keepdims=False,
                       dim=None, correction=None, keepdim=None):
    if dim is None:
        if keepdim is None:
            d[y] = tangent.std_scale(tangent.var_tangent(
                d[x], x, axis, tangent.method_ddof(x, ddof, correction), keepdims), y, x, axis)
        else:
            d[y] = tangent.std_scale(tangent.var_tangent(
                d[x], x, axis, tangent.method_ddof(x, ddof, correction), keepdim), y, x, axis)
    else:
        d[y] = tangent.std_scale(tangent.var_tangent(
            d[x], x, dim, tangent.method_ddof(x, ddof, correction), keepdim), y, x, dim)


# The bounds are NumPy's a_min/a_max (positional) or NumPy 2's and jax.numpy's keywords
# min/max (jax.numpy.clip(x, min, max) binds them positionally to a_min/a_max): the one
# not given is None, its d[...] dropped, and the helpers take the given one.
@adjoint(numpy.clip)
@adjoint(numpy.ndarray.clip)
def clip(y, x, a_min=None, a_max=None, out=None, min=None, max=None):
    d[x] = tangent.clip_grad(d[y], x, a_min, a_max, 0, min, max)
    d[a_min] = tangent.clip_grad(d[y], x, a_min, a_max, 1, min, max)
    d[a_max] = tangent.clip_grad(d[y], x, a_min, a_max, 2, min, max)
    d[min] = tangent.clip_grad(d[y], x, a_min, a_max, 1, min, max)
    d[max] = tangent.clip_grad(d[y], x, a_min, a_max, 2, min, max)


@tangent_(numpy.clip)
@tangent_(numpy.ndarray.clip)
def clip_tangent(y, x, a_min=None, a_max=None, out=None, min=None, max=None):
    d[y] = tangent.broadcast_like(
        d[x] * tangent.clip_mask(x, a_min, a_max, 0, min, max)
        + d[a_min] * tangent.clip_mask(x, a_min, a_max, 1, min, max)
        + d[a_max] * tangent.clip_mask(x, a_min, a_max, 2, min, max)
        + d[min] * tangent.clip_mask(x, a_min, a_max, 1, min, max)
        + d[max] * tangent.clip_mask(x, a_min, a_max, 2, min, max), y)


@adjoint(numpy.sort)
def sort(y, x, axis=-1, kind=None, order=None, stable=None):
    d[x] = tangent.sort_grad(d[y], x, axis)


@tangent_(numpy.sort)
def sort_tangent(y, x, axis=-1, kind=None, order=None, stable=None):
    d[y] = tangent.sort_tangent(d[x], x, axis)


# ------------------------------------------------- ufuncs of two arguments


@adjoint(numpy.arctan2)
def arctan2(z, y, x):
    d[y] = tangent.unbroadcast(d[z] * x / (x * x + y * y), y)
    d[x] = tangent.unbroadcast(-d[z] * y / (x * x + y * y), x)


@tangent_(numpy.arctan2)
def arctan2_tangent(z, y, x):
    d[z] = tangent.broadcast_like((d[y] * x - d[x] * y) / (x * x + y * y), z)


@adjoint(numpy.hypot)
def hypot(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * x / z, x)
    d[y] = tangent.unbroadcast(d[z] * y / z, y)


@tangent_(numpy.hypot)
def hypot_tangent(z, x, y):
    d[z] = tangent.broadcast_like((d[x] * x + d[y] * y) / z, z)


@adjoint(numpy.logaddexp)
def logaddexp(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * numpy.exp(x - z), x)
    d[y] = tangent.unbroadcast(d[z] * numpy.exp(y - z), y)


@tangent_(numpy.logaddexp)
def logaddexp_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] * numpy.exp(x - z) + d[y] * numpy.exp(y - z), z)


@adjoint(numpy.logaddexp2)
def logaddexp2(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * numpy.exp2(x - z), x)
    d[y] = tangent.unbroadcast(d[z] * numpy.exp2(y - z), y)


@tangent_(numpy.logaddexp2)
def logaddexp2_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] * numpy.exp2(x - z) + d[y] * numpy.exp2(y - z), z)


@adjoint(numpy.fmod)
def fmod(z, x, y):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(-d[z] * numpy.trunc(x / y), y)


@tangent_(numpy.fmod)
def fmod_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] - d[y] * numpy.trunc(x / y), z)
