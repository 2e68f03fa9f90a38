# Derivative rules for JAX: `jax.numpy`, `jax.nn` and the few `jax.scipy.special`
# functions models use. Template conventions as in python.py. One-argument elementwise
# functions of jax.numpy come from elementwise.py (`jax="..."`), the ufuncs add, subtract,
# multiply, divide, power, maximum, minimum and matmul from arithmetic.py.
#
# JAX arrays are immutable and, under `jax.jit`, tracers: rule bodies call `jax.numpy`
# (reached by generated code as the closure variable `jax`, see tangent._compile) and
# `tangent.*` helpers that dispatch on JAX arrays; helpers specific to these rules are
# `tangent.jax_*` (stdlib-shims/tangent_jax_grads.py, loaded only when used).
#
# Operators and array methods have one rule for every array type (backends/numpy.py,
# arithmetic.py): the loader reads `numpy` in those templates as the arguments' array
# namespace at run time (`tangent.namespace_of(...)`), so `x @ y`, `x.sum()`, `x.T` call
# jax.numpy on JAX arrays, tracers included.

# Zero when the first argument is zero / when any argument is (forward mode drops zero
# tangents through them).
linear_in_first(jax.numpy.sum, jax.numpy.mean, jax.numpy.reshape, jax.numpy.transpose)
linear_in_each(jax.numpy.matmul)

nondifferentiable(
    jax.numpy.shape, jax.numpy.ndim, jax.numpy.size, jax.numpy.argmax, jax.numpy.argmin,
    jax.numpy.sign, jax.numpy.zeros, jax.numpy.ones, jax.numpy.zeros_like,
    jax.numpy.ones_like, jax.numpy.eye, jax.numpy.identity, jax.numpy.floor,
    jax.numpy.ceil, jax.numpy.round, jax.numpy.trunc, jax.numpy.isnan,
    jax.numpy.isfinite, jax.numpy.isinf, jax.numpy.allclose, jax.numpy.isclose,
    jax.numpy.all, jax.numpy.any, jax.numpy.equal, jax.numpy.not_equal,
    jax.numpy.greater, jax.numpy.greater_equal, jax.numpy.less, jax.numpy.less_equal,
    jax.numpy.logical_and, jax.numpy.logical_or, jax.numpy.logical_not,
    jax.numpy.argsort, jax.numpy.nonzero, jax.numpy.array_equal, jax.nn.one_hot,
    jax.lax.stop_gradient,
)


# These jax.numpy functions have numpy's rules, with `numpy` in their templates read as
# `jax.numpy` (the loader's `rules_like`): one rule per function for both libraries.
rules_like(
    numpy, jax.numpy,
    add, subtract, multiply, divide, true_divide, power, mod, remainder, maximum,
    minimum, matmul, dot, arctan2, hypot, logaddexp, where, array, asarray, broadcast_to,
    concatenate, cumsum, hstack, vstack, stack, tile, flip, roll, moveaxis, swapaxes,
    transpose, full, full_like, linspace,
    linalg.det, linalg.inv, linalg.norm, linalg.qr, linalg.slogdet, linalg.solve,
    linalg.svd, linalg.svdvals,
)

# --------------------------------------------------------- selection, reductions


@tangent_(jax.numpy.where)
def where_tangent(z, c, x, y):
    d[z] = tangent.broadcast_like(jax.numpy.where(c, d[x], d[y]), z)


@adjoint(jax.numpy.sum)
def sum(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims)


@tangent_(jax.numpy.sum)
def sum_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = jax.numpy.sum(d[x], axis=axis, keepdims=keepdims)


@adjoint(jax.numpy.mean)
def mean(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims) / tangent.reduced_count(x, axis)


@tangent_(jax.numpy.mean)
def mean_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = jax.numpy.mean(d[x], axis=axis, keepdims=keepdims)


@adjoint(jax.numpy.max)
@adjoint(jax.numpy.amax)
@adjoint(jax.numpy.min)
@adjoint(jax.numpy.amin)
def max(y, x, axis=None, out=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@tangent_(jax.numpy.max)
@tangent_(jax.numpy.amax)
@tangent_(jax.numpy.min)
@tangent_(jax.numpy.amin)
def max_tangent(y, x, axis=None, out=None, keepdims=False):
    d[y] = tangent.extremum_tangent(d[x], y, x, axis, keepdims)


@adjoint(jax.numpy.prod)
def prod(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[x] = tangent.jax_prod_grad(d[y], x, axis, keepdims)


@tangent_(jax.numpy.prod)
def prod_tangent(y, x, axis=None, dtype=None, out=None, keepdims=False):
    d[y] = tangent.jax_prod_tangent(d[x], x, axis, keepdims)


@adjoint(jax.numpy.cumsum)
def cumsum(y, x, axis=None, dtype=None, out=None):
    d[x] = tangent.jax_cumsum_grad(d[y], x, axis)


@adjoint(jax.numpy.var)
def var(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = tangent.jax_var_grad(d[y], x, axis, ddof, keepdims)


@tangent_(jax.numpy.var)
def var_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = tangent.jax_var_tangent(d[x], x, axis, ddof, keepdims)


@adjoint(jax.numpy.std)
def std(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[x] = tangent.jax_var_grad(d[y] / (2.0 * y), x, axis, ddof, keepdims)


@tangent_(jax.numpy.std)
def std_tangent(y, x, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    d[y] = tangent.jax_var_tangent(d[x], x, axis, ddof, keepdims) / (2.0 * y)


@adjoint(jax.numpy.clip)
def clip(y, x, min=None, max=None):
    d[x] = tangent.unbroadcast(d[y] * tangent.jax_clip_mask(x, min, max, 0), x)
    d[min] = tangent.unbroadcast(d[y] * tangent.jax_clip_mask(x, min, max, 1), min)
    d[max] = tangent.unbroadcast(d[y] * tangent.jax_clip_mask(x, min, max, 2), max)


@tangent_(jax.numpy.clip)
def clip_tangent(y, x, min=None, max=None):
    d[y] = tangent.broadcast_like(
        d[x] * tangent.jax_clip_mask(x, min, max, 0)
        + d[min] * tangent.jax_clip_mask(x, min, max, 1)
        + d[max] * tangent.jax_clip_mask(x, min, max, 2), y)


# ------------------------------------------------------------------ products


@tangent_(jax.numpy.dot)
def dot_tangent(z, x, y):
    d[z] = jax.numpy.dot(d[x], y) + jax.numpy.dot(x, d[y])


@adjoint(jax.numpy.outer)
def outer(z, x, y):
    d[x] = jax.numpy.reshape(jax.numpy.dot(d[z], jax.numpy.ravel(y)), jax.numpy.shape(x))
    d[y] = jax.numpy.reshape(jax.numpy.dot(jax.numpy.ravel(x), d[z]), jax.numpy.shape(y))


@tangent_(jax.numpy.outer)
def outer_tangent(z, x, y):
    d[z] = jax.numpy.outer(d[x], y) + jax.numpy.outer(x, d[y])


# einsum with up to four operands (an operand left out is None, so its d[...] is dropped).
@adjoint(jax.numpy.einsum)
def einsum(y, subscripts, a, b=None, c=None, e=None):
    d[a] = tangent.jax_einsum_grad(d[y], subscripts, (a, b, c, e), 0)
    d[b] = tangent.jax_einsum_grad(d[y], subscripts, (a, b, c, e), 1)
    d[c] = tangent.jax_einsum_grad(d[y], subscripts, (a, b, c, e), 2)
    d[e] = tangent.jax_einsum_grad(d[y], subscripts, (a, b, c, e), 3)


@tangent_(jax.numpy.einsum)
def einsum_tangent(y, subscripts, a, b=None, c=None, e=None):
    d[y] = tangent.jax_einsum_tangent(subscripts, (a, b, c, e), d[a], d[b], d[c], d[e])


@adjoint(jax.numpy.trace)
def trace(y, x, offset=0, axis1=0, axis2=1):
    d[x] = tangent.jax_trace_grad(d[y], x, offset, axis1, axis2)


@tangent_(jax.numpy.trace)
def trace_tangent(y, x, offset=0, axis1=0, axis2=1):
    d[y] = jax.numpy.trace(d[x], offset, axis1, axis2)


# ------------------------------------------------------------------ shape ops


@adjoint(jax.numpy.reshape)
@adjoint(jax.numpy.ravel)
@adjoint(jax.numpy.squeeze)
@adjoint(jax.numpy.expand_dims)
@adjoint(jax.numpy.atleast_1d)
@adjoint(jax.numpy.atleast_2d)
def reshape(y, x, shape=None, order="C"):
    d[x] = tangent.jax_reshape_as(d[y], x)


@tangent_(jax.numpy.reshape)
@tangent_(jax.numpy.ravel)
@tangent_(jax.numpy.squeeze)
@tangent_(jax.numpy.expand_dims)
@tangent_(jax.numpy.atleast_1d)
@tangent_(jax.numpy.atleast_2d)
def reshape_tangent(y, x, shape=None, order="C"):
    d[y] = jax.numpy.reshape(d[x], jax.numpy.shape(y))


@adjoint(jax.numpy.tile)
def tile(y, x, reps):
    d[x] = tangent.jax_tile_grad(d[y], x, reps)


@tangent_(jax.numpy.array)
@tangent_(jax.numpy.asarray)
def array_tangent(y, x):
    d[y] = jax.numpy.asarray(d[x])


@adjoint(jax.numpy.concatenate)
def concatenate(y, arrays, axis=0):
    d[arrays] = tangent.jax_concatenate_grad(d[y], arrays, axis)


@adjoint(jax.numpy.stack)
def stack(y, arrays, axis=0):
    d[arrays] = tangent.jax_stack_grad(d[y], arrays, axis)


@adjoint(jax.numpy.hstack)
def hstack(y, arrays):
    d[arrays] = tangent.jax_concatenate_grad(d[y], arrays, tangent.jax_hstack_axis(arrays))


@adjoint(jax.numpy.vstack)
def vstack(y, arrays):
    d[arrays] = tangent.jax_vstack_grad(d[y], arrays)


# ------------------------------------------------ elementwise of two arguments


# --------------------------------------------------------------------- jax.nn


@adjoint(jax.nn.relu)
def relu(y, x):
    d[x] = d[y] * (x > 0.0)


@tangent_(jax.nn.relu)
def relu_tangent(y, x):
    d[y] = d[x] * (x > 0.0)


@adjoint(jax.nn.relu6)
def relu6(y, x):
    d[x] = d[y] * (x > 0.0) * (x < 6.0)


@tangent_(jax.nn.relu6)
def relu6_tangent(y, x):
    d[y] = d[x] * (x > 0.0) * (x < 6.0)


@adjoint(jax.nn.hard_tanh)
def hard_tanh(y, x):
    d[x] = d[y] * (x > -1.0) * (x < 1.0)


@tangent_(jax.nn.hard_tanh)
def hard_tanh_tangent(y, x):
    d[y] = d[x] * (x > -1.0) * (x < 1.0)


@adjoint(jax.nn.sigmoid)
@adjoint(jax.scipy.special.expit)
def sigmoid(y, x):
    d[x] = d[y] * y * (1.0 - y)


@tangent_(jax.nn.sigmoid)
@tangent_(jax.scipy.special.expit)
def sigmoid_tangent(y, x):
    d[y] = d[x] * y * (1.0 - y)


@adjoint(jax.nn.log_sigmoid)
def log_sigmoid(y, x):
    d[x] = d[y] * jax.nn.sigmoid(-x)


@tangent_(jax.nn.log_sigmoid)
def log_sigmoid_tangent(y, x):
    d[y] = d[x] * jax.nn.sigmoid(-x)


@adjoint(jax.nn.softplus)
def softplus(y, x):
    d[x] = d[y] * jax.nn.sigmoid(x)


@tangent_(jax.nn.softplus)
def softplus_tangent(y, x):
    d[y] = d[x] * jax.nn.sigmoid(x)


@adjoint(jax.nn.silu)
@adjoint(jax.nn.swish)
def silu(y, x):
    s = jax.nn.sigmoid(x)
    d[x] = d[y] * s * (1.0 + x * (1.0 - s))


@tangent_(jax.nn.silu)
@tangent_(jax.nn.swish)
def silu_tangent(y, x):
    s = jax.nn.sigmoid(x)
    d[y] = d[x] * s * (1.0 + x * (1.0 - s))


# jax.nn.gelu's default is the tanh approximation:
# y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3); exact: y = x Phi(x).
@adjoint(jax.nn.gelu)
def gelu(y, x, approximate=True):
    if approximate:
        t = jax.numpy.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))
        d[x] = d[y] * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t)
                       * 0.7978845608028654 * (1.0 + 0.134145 * x * x))
    else:
        d[x] = d[y] * (0.5 * (1.0 + jax.lax.erf(x * 0.7071067811865476))
                       + x * 0.3989422804014327 * jax.numpy.exp(-0.5 * x * x))


@tangent_(jax.nn.gelu)
def gelu_tangent(y, x, approximate=True):
    if approximate:
        t = jax.numpy.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))
        d[y] = d[x] * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t)
                       * 0.7978845608028654 * (1.0 + 0.134145 * x * x))
    else:
        d[y] = d[x] * (0.5 * (1.0 + jax.lax.erf(x * 0.7071067811865476))
                       + x * 0.3989422804014327 * jax.numpy.exp(-0.5 * x * x))


# elu: alpha * expm1(x) below 0, so the slope there is alpha * exp(x) = y + alpha.
@adjoint(jax.nn.elu)
def elu(y, x, alpha=1.0):
    d[x] = d[y] * jax.numpy.where(x > 0.0, 1.0, y + alpha)


@tangent_(jax.nn.elu)
def elu_tangent(y, x, alpha=1.0):
    d[y] = d[x] * jax.numpy.where(x > 0.0, 1.0, y + alpha)


# celu: alpha * expm1(x / alpha) below 0, so the slope there is exp(x / alpha) = y / alpha + 1.
@adjoint(jax.nn.celu)
def celu(y, x, alpha=1.0):
    d[x] = d[y] * jax.numpy.where(x > 0.0, 1.0, y / alpha + 1.0)


@tangent_(jax.nn.celu)
def celu_tangent(y, x, alpha=1.0):
    d[y] = d[x] * jax.numpy.where(x > 0.0, 1.0, y / alpha + 1.0)


# selu(x) = scale * elu(x, alpha) with jax's fixed constants.
@adjoint(jax.nn.selu)
def selu(y, x):
    d[x] = d[y] * jax.numpy.where(x > 0.0, 1.0507009873554805,
                                  y + 1.7580993408473766)


@tangent_(jax.nn.selu)
def selu_tangent(y, x):
    d[y] = d[x] * jax.numpy.where(x > 0.0, 1.0507009873554805,
                                  y + 1.7580993408473766)


@adjoint(jax.nn.leaky_relu)
def leaky_relu(y, x, negative_slope=0.01):
    d[x] = d[y] * jax.numpy.where(x >= 0.0, 1.0, negative_slope)


@tangent_(jax.nn.leaky_relu)
def leaky_relu_tangent(y, x, negative_slope=0.01):
    d[y] = d[x] * jax.numpy.where(x >= 0.0, 1.0, negative_slope)


@adjoint(jax.nn.softmax)
def softmax(y, x, axis=-1):
    d[x] = y * (d[y] - jax.numpy.sum(d[y] * y, axis=axis, keepdims=True))


@tangent_(jax.nn.softmax)
def softmax_tangent(y, x, axis=-1):
    d[y] = y * (d[x] - jax.numpy.sum(d[x] * y, axis=axis, keepdims=True))


@adjoint(jax.nn.log_softmax)
def log_softmax(y, x, axis=-1):
    d[x] = d[y] - jax.numpy.exp(y) * jax.numpy.sum(d[y], axis=axis, keepdims=True)


@tangent_(jax.nn.log_softmax)
def log_softmax_tangent(y, x, axis=-1):
    d[y] = d[x] - jax.numpy.sum(jax.numpy.exp(y) * d[x], axis=axis, keepdims=True)


# y = log(sum(b * exp(a))) over `axis`; `return_sign` and `where` have no rule (an error).
@adjoint(jax.nn.logsumexp)
@adjoint(jax.scipy.special.logsumexp)
def logsumexp(y, a, axis=None, b=None, keepdims=False):
    if b is None:
        d[a] = tangent.unreduce(d[y], a, axis, keepdims) * jax.numpy.exp(
            a - tangent.unreduce(y, a, axis, keepdims))
    else:
        w = tangent.unreduce(d[y], a, axis, keepdims) * jax.numpy.exp(
            a - tangent.unreduce(y, a, axis, keepdims))
        d[a] = tangent.unbroadcast(w * b, a)
        d[b] = tangent.unbroadcast(w, b)


@tangent_(jax.nn.logsumexp)
@tangent_(jax.scipy.special.logsumexp)
def logsumexp_tangent(y, a, axis=None, b=None, keepdims=False):
    if b is None:
        d[y] = jax.numpy.sum(d[a] * jax.numpy.exp(a - tangent.unreduce(y, a, axis, keepdims)),
                             axis=axis, keepdims=keepdims)
    else:
        d[y] = jax.numpy.sum((d[a] * b + d[b])
                             * jax.numpy.exp(a - tangent.unreduce(y, a, axis, keepdims)),
                             axis=axis, keepdims=keepdims)


@adjoint(jax.scipy.special.erf)
@adjoint(jax.lax.erf)
def erf(y, x):
    d[x] = d[y] * 1.1283791670955126 * jax.numpy.exp(-x * x)


@tangent_(jax.scipy.special.erf)
@tangent_(jax.lax.erf)
def erf_tangent(y, x):
    d[y] = d[x] * 1.1283791670955126 * jax.numpy.exp(-x * x)
