# Derivative rules for Keras 3's `keras.ops`, on whichever backend `KERAS_BACKEND`
# selects (jax, tensorflow, torch). Template conventions as in python.py.
#
# keras.ops takes and returns the backend's own tensors (jax arrays, tf tensors, torch
# tensors), so the rules are written once, with keras.ops functions (reached by generated
# code as the closure variable `keras`) and `tangent.*` helpers, which dispatch on the
# value's type to the backend's runtime (tangent._jax, _tensorflow, _torch): gradients are
# tensors of that backend. Operators on them (`x @ w`, `x * y`) are the backend's.
# One-argument elementwise functions come from elementwise.py (`keras="ops.tanh"`).
# Masks are built with `keras.ops.where`, never by multiplying with a boolean tensor,
# because TensorFlow does not cast booleans implicitly. Adjoint bodies call functions that
# have rules here, so a gradient can be differentiated again.

# keras.ops exports its functions under submodules too (`keras.ops.numpy.tanh`,
# `keras.ops.nn.relu`, `keras.ops.linalg.inv` are the objects `keras.ops.*` names); in a
# host the live names find the rule by the object, and without one these declarations
# say which paths are the same function (tests/keras checks each is).
exported_as(
    keras.ops, keras.ops.numpy,
    abs, absolute, add, arccos, arccosh, arcsin, arcsinh, arctan, arctan2, arctanh,
    broadcast_to, clip, concatenate, cos, cosh, cumsum, divide, dot, einsum, exp, exp2,
    expand_dims, expm1, flip, log, log10, log1p, log2, logaddexp, matmul, max, maximum,
    mean, min, minimum, moveaxis, multiply, negative, outer, power, prod, reciprocal,
    reshape, sin, sinh, sqrt, square, squeeze, stack, std, subtract, sum, swapaxes, take,
    tan, tanh, tile, trace, transpose, true_divide, var, where,
)
exported_as(
    keras.ops, keras.ops.nn,
    elu, gelu, hard_sigmoid, leaky_relu, log_sigmoid, log_softmax, relu, relu6, selu,
    sigmoid, silu, softmax, softplus, softsign, binary_crossentropy,
    categorical_crossentropy, sparse_categorical_crossentropy,
)
exported_as(keras.ops.linalg, keras.ops, cholesky, det, inv, norm, solve)

# These keras.ops functions take NumPy's positional arguments in NumPy's order, so they
# have numpy's rules with `numpy` in their templates read as `keras.ops` (one rule per
# function for every library; backends/numpy.py and linalg.py). Reductions (whose
# `keepdims` is keras's third positional argument, NumPy's fifth) and keras.ops.nn have
# their own templates below.
rules_like(
    numpy, keras.ops,
    add, subtract, multiply, divide, true_divide, power, arctan2, logaddexp, where,
    matmul, dot, outer, einsum, trace, cumsum,
    reshape, transpose, squeeze, expand_dims, broadcast_to, concatenate, stack, tile,
    flip, swapaxes, moveaxis,
    linalg.inv, linalg.det, linalg.solve, linalg.cholesky,
)

# keras.random draws from a hidden generator (a function that calls it runs its forward pass
# once in a derivative).
effectful_module(keras.random)

nondifferentiable(
    keras.ops.zeros, keras.ops.ones, keras.ops.zeros_like, keras.ops.ones_like,
    keras.ops.full, keras.ops.full_like, keras.ops.eye, keras.ops.arange, keras.ops.shape,
    keras.ops.size, keras.ops.ndim, keras.ops.one_hot, keras.ops.argmax, keras.ops.argmin,
    keras.ops.equal, keras.ops.not_equal, keras.ops.greater, keras.ops.greater_equal,
    keras.ops.less, keras.ops.less_equal, keras.ops.logical_and, keras.ops.logical_or,
    keras.ops.logical_not, keras.ops.sign, keras.ops.floor, keras.ops.ceil,
    keras.ops.round, keras.ops.isnan, keras.ops.isfinite, keras.ops.isinf,
    keras.ops.stop_gradient, keras.config.epsilon, keras.random.normal,
    keras.random.uniform,
)

linear_in_first(
    keras.ops.sum, keras.ops.mean, keras.ops.cast, keras.ops.convert_to_tensor,
    keras.ops.take,
)

returns_view(keras.ops.convert_to_tensor)

pure(
    keras.ops.sum, keras.ops.mean, keras.ops.matmul, keras.ops.tanh, keras.ops.exp,
    keras.ops.log, keras.ops.sigmoid, keras.ops.relu, keras.ops.reshape,
    keras.ops.transpose, keras.ops.softmax,
)

# ------------------------------------------------- maximum, minimum, clip, norm
# (masks by keras.ops.where: numpy's rules multiply by boolean masks.)

# maximum/minimum: the gradient goes to the first argument on ties, as NumPy's rule.
@adjoint(keras.ops.maximum)
def keras_maximum(z, x1, x2):
    d[x1] = tangent.unbroadcast(keras.ops.where(x1 >= x2, d[z], 0.0), x1)
    d[x2] = tangent.unbroadcast(keras.ops.where(x1 >= x2, 0.0, d[z]), x2)


@tangent_(keras.ops.maximum)
def keras_maximum_tangent(z, x1, x2):
    d[z] = tangent.broadcast_like(keras.ops.where(x1 >= x2, d[x1], d[x2]), z)


@adjoint(keras.ops.minimum)
def keras_minimum(z, x1, x2):
    d[x1] = tangent.unbroadcast(keras.ops.where(x1 <= x2, d[z], 0.0), x1)
    d[x2] = tangent.unbroadcast(keras.ops.where(x1 <= x2, 0.0, d[z]), x2)


@tangent_(keras.ops.minimum)
def keras_minimum_tangent(z, x1, x2):
    d[z] = tangent.broadcast_like(keras.ops.where(x1 <= x2, d[x1], d[x2]), z)


# clip(x, lo, hi) = minimum(maximum(x, lo), hi): hi wins where lo > hi.
@adjoint(keras.ops.clip)
def keras_clip(y, x, x_min, x_max):
    d[x] = tangent.unbroadcast(keras.ops.where(
        keras.ops.logical_and(x >= x_min, x <= x_max), d[y], 0.0), x)
    d[x_min] = tangent.unbroadcast(keras.ops.where(
        keras.ops.logical_and(x < x_min, x_min <= x_max), d[y], 0.0), x_min)
    d[x_max] = tangent.unbroadcast(keras.ops.where(
        keras.ops.logical_or(x > x_max, x_min > x_max), d[y], 0.0), x_max)


@tangent_(keras.ops.clip)
def keras_clip_tangent(y, x, x_min, x_max):
    # one where-chain: keras.ops.where promotes dtypes, `+` of tensors would not
    d[y] = tangent.broadcast_like(keras.ops.where(
        keras.ops.logical_and(x >= x_min, x <= x_max), d[x], keras.ops.where(
            keras.ops.logical_and(x < x_min, x_min <= x_max), d[x_min], keras.ops.where(
                keras.ops.logical_or(x > x_max, x_min > x_max), d[x_max], 0.0))), y)


# norm with ord=None: the 2-norm of vectors, the Frobenius norm of matrices (and of x
# flattened when axis is None): d y = <x, dx> / y. Other orders are refused by name.
@adjoint(keras.ops.linalg.norm)
def keras_norm(y, x, ord=None, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y] / tangent.keras_norm_check(y, ord), x, axis, keepdims) * x


@tangent_(keras.ops.linalg.norm)
def keras_norm_tangent(y, x, ord=None, axis=None, keepdims=False):
    d[y] = keras.ops.sum(d[x] * x, axis=axis, keepdims=keepdims) / tangent.keras_norm_check(
        y, ord)


# ------------------------------------------------------------------- reductions


@adjoint(keras.ops.sum)
def keras_sum(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims)


@tangent_(keras.ops.sum)
def keras_sum_tangent(y, x, axis=None, keepdims=False):
    d[y] = keras.ops.sum(d[x], axis=axis, keepdims=keepdims)


@adjoint(keras.ops.mean)
def keras_mean(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y] / tangent.reduced_count(x, axis), x, axis, keepdims)


@tangent_(keras.ops.mean)
def keras_mean_tangent(y, x, axis=None, keepdims=False):
    d[y] = keras.ops.mean(d[x], axis=axis, keepdims=keepdims)


# max/min share the gradient equally among the extreme elements.
@adjoint(keras.ops.max)
@adjoint(keras.ops.min)
def keras_max(y, x, axis=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@tangent_(keras.ops.max)
@tangent_(keras.ops.min)
def keras_max_tangent(y, x, axis=None, keepdims=False):
    d[y] = tangent.extremum_tangent(d[x], y, x, axis, keepdims)


@adjoint(keras.ops.prod)
def keras_prod(y, x, axis=None, keepdims=False, dtype=None):
    d[x] = tangent.prod_grad(d[y], x, axis, keepdims)


@tangent_(keras.ops.prod)
def keras_prod_tangent(y, x, axis=None, keepdims=False, dtype=None):
    d[y] = tangent.prod_tangent(d[x], x, axis, keepdims)


@adjoint(keras.ops.var)
def keras_var(y, x, axis=None, keepdims=False):
    d[x] = tangent.var_grad(d[y], x, axis, 0, keepdims)


@tangent_(keras.ops.var)
def keras_var_tangent(y, x, axis=None, keepdims=False):
    d[y] = tangent.var_tangent(d[x], x, axis, 0, keepdims)


@adjoint(keras.ops.std)
def keras_std(y, x, axis=None, keepdims=False):
    d[x] = tangent.var_grad(tangent.std_scale(d[y], y, x, axis), x, axis, 0, keepdims)


@tangent_(keras.ops.std)
def keras_std_tangent(y, x, axis=None, keepdims=False):
    d[y] = tangent.std_scale(tangent.var_tangent(d[x], x, axis, 0, keepdims), y, x, axis)


@adjoint(keras.ops.logsumexp)
def keras_logsumexp(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims) * keras.ops.exp(
        x - tangent.unreduce(y, x, axis, keepdims))


@tangent_(keras.ops.logsumexp)
def keras_logsumexp_tangent(y, x, axis=None, keepdims=False):
    d[y] = keras.ops.sum(d[x] * keras.ops.exp(x - tangent.unreduce(y, x, axis, keepdims)),
                         axis=axis, keepdims=keepdims)


# --------------------------------------------------------- conversions, gathers


@adjoint(keras.ops.convert_to_tensor)
def keras_convert_to_tensor(y, x, dtype=None, sparse=None, ragged=None):
    d[x] = tangent.unbroadcast(tangent.keras_cast_like(d[y], x), x)


@tangent_(keras.ops.convert_to_tensor)
def keras_convert_to_tensor_tangent(y, x, dtype=None, sparse=None, ragged=None):
    d[y] = tangent.keras_cast_like(d[x], y)


# cast between floating dtypes: the gradient is cast back to the argument's dtype.
@adjoint(keras.ops.cast)
def keras_cast(y, x, dtype):
    d[x] = tangent.keras_cast_like(d[y], x)


@tangent_(keras.ops.cast)
def keras_cast_tangent(y, x, dtype):
    d[y] = tangent.keras_cast_like(d[x], y)


# take(x, indices, axis): the gradient adds each gathered slice back where it came from
# (repeated indices add up): a contraction with the indices' one-hot rows.
@adjoint(keras.ops.take)
def keras_take(y, x, indices, axis=None):
    d[x] = tangent.keras_take_grad(d[y], x, indices, axis)


@tangent_(keras.ops.take)
def keras_take_tangent(y, x, indices, axis=None):
    d[y] = keras.ops.take(d[x], indices, axis)


# ------------------------------------------------------------------ keras.ops.nn


@adjoint(keras.ops.relu)
def keras_relu(y, x):
    d[x] = keras.ops.where(x > 0.0, d[y], 0.0)


@tangent_(keras.ops.relu)
def keras_relu_tangent(y, x):
    d[y] = keras.ops.where(x > 0.0, d[x], 0.0)


@adjoint(keras.ops.relu6)
def keras_relu6(y, x):
    d[x] = keras.ops.where(keras.ops.logical_and(x > 0.0, x < 6.0), d[y], 0.0)


@tangent_(keras.ops.relu6)
def keras_relu6_tangent(y, x):
    d[y] = keras.ops.where(keras.ops.logical_and(x > 0.0, x < 6.0), d[x], 0.0)


@adjoint(keras.ops.leaky_relu)
def keras_leaky_relu(y, x, negative_slope=0.2):
    d[x] = keras.ops.where(x > 0.0, d[y], d[y] * tangent.keras_slope(negative_slope))


@tangent_(keras.ops.leaky_relu)
def keras_leaky_relu_tangent(y, x, negative_slope=0.2):
    d[y] = keras.ops.where(x > 0.0, d[x], d[x] * tangent.keras_slope(negative_slope))


# elu: alpha * expm1(x) below 0, so the slope there is y + alpha.
@adjoint(keras.ops.elu)
def keras_elu(y, x, alpha=1.0):
    d[x] = d[y] * keras.ops.where(x > 0.0, 1.0, y + alpha)


@tangent_(keras.ops.elu)
def keras_elu_tangent(y, x, alpha=1.0):
    d[y] = d[x] * keras.ops.where(x > 0.0, 1.0, y + alpha)


# selu(x) = scale * elu(x, alpha): slope scale above 0, y + scale * alpha below. (The
# scale is a tensor of y's dtype: keras.ops.where makes a Python float a float32.)
@adjoint(keras.ops.selu)
def keras_selu(y, x):
    d[x] = d[y] * keras.ops.where(x > 0.0, keras.ops.full_like(y, 1.0507009873554805),
                                  y + 1.7580993408473766)


@tangent_(keras.ops.selu)
def keras_selu_tangent(y, x):
    d[y] = d[x] * keras.ops.where(x > 0.0, keras.ops.full_like(y, 1.0507009873554805),
                                  y + 1.7580993408473766)


@adjoint(keras.ops.softplus)
def keras_softplus(y, x):
    d[x] = d[y] * keras.ops.sigmoid(x)


@tangent_(keras.ops.softplus)
def keras_softplus_tangent(y, x):
    d[y] = d[x] * keras.ops.sigmoid(x)


@adjoint(keras.ops.log_sigmoid)
def keras_log_sigmoid(y, x):
    d[x] = d[y] * keras.ops.sigmoid(-x)


@tangent_(keras.ops.log_sigmoid)
def keras_log_sigmoid_tangent(y, x):
    d[y] = d[x] * keras.ops.sigmoid(-x)


@adjoint(keras.ops.softsign)
def keras_softsign(y, x):
    d[x] = d[y] / keras.ops.square(1.0 + keras.ops.abs(x))


@tangent_(keras.ops.softsign)
def keras_softsign_tangent(y, x):
    d[y] = d[x] / keras.ops.square(1.0 + keras.ops.abs(x))


# silu(x) = x sigmoid(x) (keras.ops.swish is the same function).
@adjoint(keras.ops.silu)
def keras_silu(y, x):
    d[x] = d[y] * keras.ops.sigmoid(x) * (1.0 + x * (1.0 - keras.ops.sigmoid(x)))


@tangent_(keras.ops.silu)
def keras_silu_tangent(y, x):
    d[y] = d[x] * keras.ops.sigmoid(x) * (1.0 + x * (1.0 - keras.ops.sigmoid(x)))


# hard_sigmoid(x) = relu6(x + 3) / 6: slope 1/6 inside (-3, 3).
@adjoint(keras.ops.hard_sigmoid)
def keras_hard_sigmoid(y, x):
    d[x] = keras.ops.where(keras.ops.logical_and(x > -3.0, x < 3.0), d[y] / 6.0, 0.0)


@tangent_(keras.ops.hard_sigmoid)
def keras_hard_sigmoid_tangent(y, x):
    d[y] = keras.ops.where(keras.ops.logical_and(x > -3.0, x < 3.0), d[x] / 6.0, 0.0)


# keras.ops.gelu's default is the tanh approximation:
# y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3); exact: y = x Phi(x).
@adjoint(keras.ops.gelu)
def keras_gelu(y, x, approximate=True):
    if approximate:
        t = keras.ops.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))
        d[x] = d[y] * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t)
                       * 0.7978845608028654 * (1.0 + 0.134145 * x * x))
    else:
        d[x] = d[y] * (0.5 * (1.0 + keras.ops.erf(x * 0.7071067811865476))
                       + x * 0.3989422804014327 * keras.ops.exp(-0.5 * x * x))


@tangent_(keras.ops.gelu)
def keras_gelu_tangent(y, x, approximate=True):
    if approximate:
        t = keras.ops.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))
        d[y] = d[x] * (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t)
                       * 0.7978845608028654 * (1.0 + 0.134145 * x * x))
    else:
        d[y] = d[x] * (0.5 * (1.0 + keras.ops.erf(x * 0.7071067811865476))
                       + x * 0.3989422804014327 * keras.ops.exp(-0.5 * x * x))


@adjoint(keras.ops.softmax)
def keras_softmax(y, x, axis=-1):
    d[x] = y * (d[y] - keras.ops.sum(d[y] * y, axis=axis, keepdims=True))


@tangent_(keras.ops.softmax)
def keras_softmax_tangent(y, x, axis=-1):
    d[y] = y * (d[x] - keras.ops.sum(d[x] * y, axis=axis, keepdims=True))


@adjoint(keras.ops.log_softmax)
def keras_log_softmax(y, x, axis=-1):
    d[x] = d[y] - keras.ops.exp(y) * keras.ops.sum(d[y], axis=axis, keepdims=True)


@tangent_(keras.ops.log_softmax)
def keras_log_softmax_tangent(y, x, axis=-1):
    d[y] = d[x] - keras.ops.sum(keras.ops.exp(y) * d[x], axis=axis, keepdims=True)


# ------------------------------------------------------------------------ losses
# The probability forms (from_logits=False) clip the probabilities to
# [epsilon, 1 - epsilon] as keras does (no gradient flows through a clipped one); the
# categorical forms first divide the output by its sum along `axis`. The bodies are
# written with keras.ops functions that have rules, so they differentiate again.
# On tensorflow keras computes a loss from the logits behind an output of its own
# sigmoid/softmax (`output._keras_logits`), unclipped: there `keras_epsilon` is 0, and
# from_logits=True on such an output (which keras then ignores, with a warning) is
# refused (`keras_logits`).

# binary_crossentropy(target, output): elementwise -(t log o + (1 - t) log(1 - o));
# with logits x: softplus(x) - t x.
@adjoint(keras.ops.binary_crossentropy)
def keras_binary_crossentropy(y, target, output, from_logits=False):
    if from_logits:
        d[output] = d[y] * (
            keras.ops.sigmoid(tangent.keras_logits(output, "Sigmoid")) - target)
        d[target] = -d[y] * output
    else:
        eps = tangent.keras_epsilon(output, "Sigmoid")
        o = keras.ops.clip(output, eps, 1.0 - eps)
        d[output] = tangent.keras_clip_mask(output, eps) * d[y] * (
            (1.0 - target) / (1.0 - o) - target / o)
        d[target] = d[y] * (keras.ops.log(1.0 - o) - keras.ops.log(o))


@tangent_(keras.ops.binary_crossentropy)
def keras_binary_crossentropy_tangent(y, target, output, from_logits=False):
    if from_logits:
        d[y] = d[output] * (keras.ops.sigmoid(tangent.keras_logits(output, "Sigmoid"))
                            - target) - d[target] * output
    else:
        eps = tangent.keras_epsilon(output, "Sigmoid")
        o = keras.ops.clip(output, eps, 1.0 - eps)
        d[y] = tangent.keras_clip_mask(output, eps) * d[output] * (
            (1.0 - target) / (1.0 - o) - target / o) + d[target] * (
            keras.ops.log(1.0 - o) - keras.ops.log(o))


# categorical_crossentropy(target, output, axis): -sum(t log p, axis), p the output
# divided by its sum along axis (and clipped); with logits, log p = log_softmax(output).
# Through p = o / s the gradient of o is (g_p - sum(g_p p, axis)) / s.
@adjoint(keras.ops.categorical_crossentropy)
def keras_categorical_crossentropy(y, target, output, from_logits=False, axis=-1):
    if from_logits:
        d[output] = keras.ops.expand_dims(d[y], axis) * (
            keras.ops.softmax(tangent.keras_logits(output, "Softmax"), axis)
            * keras.ops.sum(target, axis=axis, keepdims=True)
            - target)
        d[target] = -keras.ops.expand_dims(d[y], axis) * keras.ops.log_softmax(output, axis)
    else:
        eps = tangent.keras_epsilon(output, "Softmax")
        s = keras.ops.sum(output, axis=axis, keepdims=True)
        p = keras.ops.clip(output / s, eps, 1.0 - eps)
        gp = -tangent.keras_clip_mask(output / s, eps) * keras.ops.expand_dims(d[y], axis) \
            * target / p
        d[output] = (gp - keras.ops.sum(gp * p, axis=axis, keepdims=True)) / s
        d[target] = -keras.ops.expand_dims(d[y], axis) * keras.ops.log(p)


@tangent_(keras.ops.categorical_crossentropy)
def keras_categorical_crossentropy_tangent(y, target, output, from_logits=False, axis=-1):
    if from_logits:
        d[y] = keras.ops.sum(
            d[output] * (keras.ops.softmax(tangent.keras_logits(output, "Softmax"), axis)
                         * keras.ops.sum(target, axis=axis, keepdims=True) - target)
            - d[target] * keras.ops.log_softmax(output, axis), axis=axis)
    else:
        eps = tangent.keras_epsilon(output, "Softmax")
        s = keras.ops.sum(output, axis=axis, keepdims=True)
        p = keras.ops.clip(output / s, eps, 1.0 - eps)
        tp = tangent.keras_clip_mask(output / s, eps) * (
            d[output] - output / s * keras.ops.sum(d[output], axis=axis, keepdims=True)) / s
        d[y] = -keras.ops.sum(tp * target / p + d[target] * keras.ops.log(p), axis=axis)


# sparse_categorical_crossentropy: the categorical one with one-hot targets (integer
# class indices, not differentiated). From probabilities, jax and torch normalise the
# output as the categorical one does; tensorflow clips it and takes the softmax
# cross-entropy of its log: -log p_t + log sum(p). Keras may compute in a wider dtype
# than the output's (jax's one_hot is float64 under jax_enable_x64): derivatives are
# cast back.
@adjoint(keras.ops.sparse_categorical_crossentropy)
def keras_sparse_categorical_crossentropy(y, target, output, from_logits=False, axis=-1):
    if from_logits:
        d[output] = tangent.keras_cast_like(keras.ops.expand_dims(d[y], axis) * (
            keras.ops.softmax(tangent.keras_logits(output, "Softmax"), axis)
            - tangent.keras_one_hot(target, output, axis)),
            output)
    else:
        eps = tangent.keras_epsilon(output, "Softmax")
        if tangent.keras_normalizes(output):
            s = keras.ops.sum(output, axis=axis, keepdims=True)
            p = keras.ops.clip(output / s, eps, 1.0 - eps)
            gp = -tangent.keras_clip_mask(output / s, eps) \
                * keras.ops.expand_dims(d[y], axis) \
                * tangent.keras_one_hot(target, output, axis) / p
            d[output] = tangent.keras_cast_like(
                (gp - keras.ops.sum(gp * p, axis=axis, keepdims=True)) / s, output)
        else:
            p = keras.ops.clip(output, eps, 1.0 - eps)
            d[output] = tangent.keras_cast_like(
                tangent.keras_clip_mask(output, eps) * keras.ops.expand_dims(d[y], axis) * (
                    1.0 / keras.ops.sum(p, axis=axis, keepdims=True)
                    - tangent.keras_one_hot(target, output, axis) / p), output)


@tangent_(keras.ops.sparse_categorical_crossentropy)
def keras_sparse_categorical_crossentropy_tangent(y, target, output, from_logits=False,
                                                  axis=-1):
    if from_logits:
        d[y] = tangent.keras_cast_like(keras.ops.sum(
            d[output] * (keras.ops.softmax(tangent.keras_logits(output, "Softmax"), axis)
                         - tangent.keras_one_hot(target, output, axis)), axis=axis), y)
    else:
        eps = tangent.keras_epsilon(output, "Softmax")
        if tangent.keras_normalizes(output):
            s = keras.ops.sum(output, axis=axis, keepdims=True)
            p = keras.ops.clip(output / s, eps, 1.0 - eps)
            tp = tangent.keras_clip_mask(output / s, eps) * (
                d[output] - output / s * keras.ops.sum(d[output], axis=axis, keepdims=True)) / s
            d[y] = tangent.keras_cast_like(-keras.ops.sum(
                tp * tangent.keras_one_hot(target, output, axis) / p, axis=axis), y)
        else:
            p = keras.ops.clip(output, eps, 1.0 - eps)
            d[y] = tangent.keras_cast_like(keras.ops.sum(
                tangent.keras_clip_mask(output, eps) * d[output] * (
                    1.0 / keras.ops.sum(p, axis=axis, keepdims=True)
                    - tangent.keras_one_hot(target, output, axis) / p), axis=axis), y)


# --------------------------------------------- keras.losses and keras.activations
# Keras 3's loss and activation functions (keras/src/losses/losses.py,
# keras/src/activations/activations.py) are keras.ops computations: a call of one is that
# computation written out (`@control_flow` templates, src/ad/control_flow.rs) with the
# keras.ops functions that have rules above; targets are cast to the output's dtype as
# keras casts them. Targets and outputs of different ranks (which keras squeezes or
# expands) are refused by `keras_same_rank` when the derivative runs.
nondifferentiable(tangent.keras_same_rank, tangent.keras_relu_defaults,
                  tangent.keras_classes, tangent.keras_sparse_labels,
                  tangent.keras_hinge_slope)
reads_only(tangent.keras_same_rank, tangent.keras_relu_defaults)


@control_flow(keras.losses.mean_squared_error, keras.metrics.mean_squared_error)
def mean_squared_error(y_true, y_pred):
    tangent.keras_same_rank(y_true, y_pred)
    return keras.ops.mean(keras.ops.square(tangent.keras_cast_like(y_true, y_pred) - y_pred),
                          axis=-1)


@control_flow(keras.losses.mean_absolute_error, keras.metrics.mean_absolute_error)
def mean_absolute_error(y_true, y_pred):
    tangent.keras_same_rank(y_true, y_pred)
    return keras.ops.mean(keras.ops.abs(tangent.keras_cast_like(y_true, y_pred) - y_pred),
                          axis=-1)


@control_flow(keras.losses.mean_absolute_percentage_error,
              keras.metrics.mean_absolute_percentage_error)
def mean_absolute_percentage_error(y_true, y_pred):
    tangent.keras_same_rank(y_true, y_pred)
    t = tangent.keras_cast_like(y_true, y_pred)
    diff = keras.ops.abs((t - y_pred) / keras.ops.maximum(keras.ops.abs(t),
                                                          keras.config.epsilon()))
    return 100.0 * keras.ops.mean(diff, axis=-1)


@control_flow(keras.losses.mean_squared_logarithmic_error,
              keras.metrics.mean_squared_logarithmic_error)
def mean_squared_logarithmic_error(y_true, y_pred):
    tangent.keras_same_rank(y_true, y_pred)
    first = keras.ops.log(keras.ops.maximum(y_pred, keras.config.epsilon()) + 1.0)
    second = keras.ops.log(keras.ops.maximum(tangent.keras_cast_like(y_true, y_pred),
                                             keras.config.epsilon()) + 1.0)
    return keras.ops.mean(keras.ops.square(first - second), axis=-1)


# L2 normalisation as keras.ops.normalize: x * min(rsqrt(sum(x^2)), 1 / epsilon).
@control_flow(keras.losses.cosine_similarity)
def cosine_similarity(y_true, y_pred, axis=-1):
    tangent.keras_same_rank(y_true, y_pred)
    t = tangent.keras_cast_like(y_true, y_pred)
    p = y_pred * keras.ops.minimum(keras.ops.rsqrt(keras.ops.sum(
        keras.ops.square(y_pred), axis=axis, keepdims=True)), 1.0 / keras.config.epsilon())
    q = t * keras.ops.minimum(keras.ops.rsqrt(keras.ops.sum(
        keras.ops.square(t), axis=axis, keepdims=True)), 1.0 / keras.config.epsilon())
    return -keras.ops.sum(q * p, axis=axis)


@control_flow(keras.losses.huber, keras.metrics.huber)
def huber(y_true, y_pred, delta=1.0):
    tangent.keras_same_rank(y_true, y_pred)
    error = y_pred - tangent.keras_cast_like(y_true, y_pred)
    abs_error = keras.ops.abs(error)
    return keras.ops.mean(keras.ops.where(abs_error <= delta, 0.5 * keras.ops.square(error),
                                          delta * abs_error - 0.5 * delta * delta), axis=-1)


# log(cosh(x)) = x + softplus(-2x) - log(2).
@control_flow(keras.losses.log_cosh, keras.metrics.log_cosh)
def log_cosh(y_true, y_pred):
    tangent.keras_same_rank(y_true, y_pred)
    x = y_pred - tangent.keras_cast_like(y_true, y_pred)
    return keras.ops.mean(x + keras.ops.softplus(x * -2.0) - 0.6931471805599453, axis=-1)


@control_flow(keras.losses.kl_divergence, keras.metrics.kl_divergence)
def kl_divergence(y_true, y_pred):
    t = keras.ops.clip(tangent.keras_cast_like(y_true, y_pred), keras.config.epsilon(), 1.0)
    p = keras.ops.clip(y_pred, keras.config.epsilon(), 1.0)
    return keras.ops.sum(t * keras.ops.log(t / p), axis=-1)


@control_flow(keras.losses.poisson, keras.metrics.poisson)
def poisson(y_true, y_pred):
    return keras.ops.mean(y_pred - tangent.keras_cast_like(y_true, y_pred) * keras.ops.log(
        y_pred + keras.config.epsilon()), axis=-1)


@control_flow(keras.losses.binary_crossentropy, keras.metrics.binary_crossentropy)
def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    t = tangent.keras_cast_like(y_true, y_pred)
    t = t * (1.0 - label_smoothing) + 0.5 * label_smoothing
    return keras.ops.mean(keras.ops.binary_crossentropy(t, y_pred, from_logits=from_logits),
                          axis=axis)


@control_flow(keras.losses.categorical_crossentropy, keras.metrics.categorical_crossentropy)
def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0,
                             axis=-1):
    t = tangent.keras_cast_like(y_true, y_pred)
    t = t * (1.0 - label_smoothing) + label_smoothing / tangent.keras_classes(t)
    return keras.ops.categorical_crossentropy(t, y_pred, from_logits=from_logits, axis=axis)


@control_flow(keras.losses.sparse_categorical_crossentropy,
              keras.metrics.sparse_categorical_crossentropy)
def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None,
                                    axis=-1):
    labels = tangent.keras_sparse_labels(y_true, y_pred, ignore_class, axis)
    return keras.ops.sparse_categorical_crossentropy(labels, y_pred, from_logits=from_logits,
                                                     axis=axis)


# Hinge losses take labels in {-1, 1}; labels in {0, 1} are mapped to them, as keras does.
@control_flow(keras.losses.hinge, keras.metrics.hinge)
def hinge(y_true, y_pred):
    t = tangent.keras_hinge_labels(tangent.keras_cast_like(y_true, y_pred))
    return keras.ops.mean(keras.ops.maximum(1.0 - t * y_pred, 0.0), axis=-1)


@control_flow(keras.losses.squared_hinge, keras.metrics.squared_hinge)
def squared_hinge(y_true, y_pred):
    t = tangent.keras_hinge_labels(tangent.keras_cast_like(y_true, y_pred))
    return keras.ops.mean(keras.ops.square(keras.ops.maximum(1.0 - t * y_pred, 0.0)),
                          axis=-1)


@control_flow(keras.activations.relu)
def relu_activation(x, negative_slope=0.0, max_value=None, threshold=0.0):
    tangent.keras_relu_defaults(negative_slope, max_value, threshold)
    return keras.ops.relu(x)


@control_flow(keras.activations.leaky_relu)
def leaky_relu_activation(x, negative_slope=0.2):
    return keras.ops.leaky_relu(x, negative_slope)


@control_flow(keras.activations.relu6)
def relu6_activation(x):
    return keras.ops.relu6(x)


@control_flow(keras.activations.softmax)
def softmax_activation(x, axis=-1):
    return keras.ops.softmax(x, axis=axis)


@control_flow(keras.activations.log_softmax)
def log_softmax_activation(x, axis=-1):
    return keras.ops.log_softmax(x, axis=axis)


@control_flow(keras.activations.elu)
def elu_activation(x, alpha=1.0):
    return keras.ops.elu(x, alpha)


@control_flow(keras.activations.selu)
def selu_activation(x):
    return keras.ops.selu(x)


@control_flow(keras.activations.softplus)
def softplus_activation(x):
    return keras.ops.softplus(x)


@control_flow(keras.activations.softsign)
def softsign_activation(x):
    return keras.ops.softsign(x)


@control_flow(keras.activations.silu, keras.activations.swish)
def silu_activation(x):
    return keras.ops.silu(x)


# keras.activations.gelu's default is the exact form (keras.ops.gelu's the tanh one).
@control_flow(keras.activations.gelu)
def gelu_activation(x, approximate=False):
    return keras.ops.gelu(x, approximate)


@control_flow(keras.activations.tanh)
def tanh_activation(x):
    return keras.ops.tanh(x)


@control_flow(keras.activations.sigmoid)
def sigmoid_activation(x):
    return keras.ops.sigmoid(x)


@control_flow(keras.activations.exponential)
def exponential_activation(x):
    return keras.ops.exp(x)


@control_flow(keras.activations.hard_sigmoid)
def hard_sigmoid_activation(x):
    return keras.ops.hard_sigmoid(x)


@control_flow(keras.activations.hard_silu, keras.activations.hard_swish)
def hard_silu_activation(x):
    return x * keras.ops.hard_sigmoid(x)


@control_flow(keras.activations.log_sigmoid)
def log_sigmoid_activation(x):
    return keras.ops.log_sigmoid(x)


@control_flow(keras.activations.linear)
def linear_activation(x):
    return x


@control_flow(keras.activations.mish)
def mish_activation(x):
    return x * keras.ops.tanh(keras.ops.softplus(x))


@control_flow(keras.activations.tanh_shrink)
def tanh_shrink_activation(x):
    return x - keras.ops.tanh(x)


# ------------------------------------------------- the helpers these rules call
# (stdlib-shims/tangent/_keras.py).

nondifferentiable(tangent.keras_clip_mask, tangent.keras_one_hot, tangent.keras_slope,
                  tangent.keras_epsilon, tangent.keras_normalizes)
linear_in_first(tangent.keras_take_grad, tangent.keras_cast_like)


@adjoint(tangent.keras_take_grad)
def keras_take_grad_adjoint(y, g, x, indices, axis):
    d[g] = keras.ops.take(d[y], indices, axis)
    d[x] = 0.0


@tangent_(tangent.keras_take_grad)
def keras_take_grad_forward(y, g, x, indices, axis):
    d[y] = tangent.keras_take_grad(d[g], x, indices, axis)


@adjoint(tangent.keras_cast_like)
def keras_cast_like_adjoint(y, g, like):
    d[g] = tangent.keras_cast_like(d[y], g)
    d[like] = 0.0  # read for its dtype


@tangent_(tangent.keras_cast_like)
def keras_cast_like_forward(y, g, like):
    d[y] = tangent.keras_cast_like(d[g], like)


# norm_check(y, ord) is y once the order is one the norm rule covers.
@adjoint(tangent.keras_norm_check)
def keras_norm_check_adjoint(r, y, ord):
    d[y] = d[r]


@tangent_(tangent.keras_norm_check)
def keras_norm_check_forward(r, y, ord):
    d[r] = d[y]


# logits(output, op) is output once it is not an output of keras's sigmoid/softmax
# that tensorflow would replace by the logits behind it.
@adjoint(tangent.keras_logits)
def keras_logits_adjoint(r, output, op_type):
    d[output] = d[r]


@tangent_(tangent.keras_logits)
def keras_logits_forward(r, output, op_type):
    d[r] = d[output]


# hinge_labels(t) is 2 t - 1 for labels in {0, 1}, else t: linear, slope 2 or 1.
@adjoint(tangent.keras_hinge_labels)
def keras_hinge_labels_adjoint(z, t):
    d[t] = d[z] * tangent.keras_hinge_slope(t)


@tangent_(tangent.keras_hinge_labels)
def keras_hinge_labels_tangent(z, t):
    d[z] = d[t] * tangent.keras_hinge_slope(t)

