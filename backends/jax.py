# Derivative rules for JAX: `jax.numpy`, `jax.nn` and the few `jax.scipy.special`
# functions models use. Template conventions as in python.py. One-argument elementwise
# functions of jax.numpy come from elementwise.py (`jax="..."`), the ufuncs add, subtract,
# multiply, divide, power, maximum, minimum and matmul from arithmetic.py.
#
# JAX arrays are immutable and, under `jax.jit`, tracers: rule bodies call `jax.numpy`
# (reached by generated code as the closure variable `jax`, see tangent._compile) and
# `tangent.*` helpers that compute in the namespace of their arguments (the helpers of
# numpy's rules; stdlib-shims/tangent/_grads_*.py), so no jax.numpy function has a
# template of its own here.
#
# Operators and array methods have one rule for every array type (backends/numpy.py,
# arithmetic.py): the loader reads `numpy` in those templates as the arguments' array
# namespace at run time (`tangent.namespace_of(...)`), so `x @ y`, `x.sum()`, `x.T` call
# jax.numpy on JAX arrays, tracers included.

# Zero when the first argument is zero / when any argument is (forward mode drops zero
# tangents through them).
linear_in_first(jax.numpy.sum, jax.numpy.mean, jax.numpy.reshape, jax.numpy.transpose)
linear_in_each(jax.numpy.matmul)
# sign is piecewise constant for real arguments only (tangent.check_real refuses others).
real_arguments(jax.numpy.sign)

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
    sum, mean, max, amax, min, amin, prod, cumsum, var, std, clip,
    outer, einsum, trace,
    reshape, ravel, squeeze, expand_dims, atleast_1d, atleast_2d,
    concatenate, hstack, vstack, stack, tile, flip, roll, moveaxis, swapaxes,
    transpose, full, full_like, linspace,
    linalg.det, linalg.inv, linalg.norm, linalg.qr, linalg.slogdet, linalg.solve,
    linalg.svd, linalg.svdvals,
)

# ------------------------------------------------------------ jax.lax control flow
# `@control_flow(f)`: a call of `f` is the Python of the template (src/ad/control_flow.rs
# inlines it): the functions passed are called where the template calls its parameters,
# so the derivative goes through an ordinary loop or branch, in every mode (reverse mode
# of while_loop too, which jax itself refuses). `f(operands)` with the template's `*args`
# name passes them one by one.


@control_flow(jax.lax.fori_loop)
def fori_loop(lower, upper, body_fun, init_val, unroll=None):
    val = init_val
    for i in range(lower, upper):
        val = body_fun(i, val)
    return val


@control_flow(jax.lax.while_loop)
def while_loop(cond_fun, body_fun, init_val):
    val = init_val
    while cond_fun(val):
        val = body_fun(val)
    return val


@control_flow(jax.lax.cond)
def cond(pred, true_fun, false_fun, *operands):
    if pred:
        out = true_fun(operands)
    else:
        out = false_fun(operands)
    return out


# The carry threaded through `f` over the leading axis of `xs` (a pytree, or None with
# `length` steps), the outputs stacked in the order of xs.
@control_flow(jax.lax.scan)
def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    carry = init
    ys = []
    order = tangent.scan_order(xs, length, reverse)
    for k in range(len(order)):
        x = tangent.scan_slice(xs, order[k])
        carry, y = f(carry, x)
        ys = ys + [y]
    return (carry, tangent.stack_leaves(ys, reverse))


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
