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


# ------------------------------------------------- the helpers these rules call
# (stdlib-shims/tangent/_keras.py).

nondifferentiable(tangent.keras_clip_mask, tangent.keras_one_hot, tangent.keras_slope,
                  tangent.keras_epsilon, tangent.keras_normalizes)
linear_in_first(tangent.keras_take_grad, tangent.keras_cast_like)


@adjoint(tangent.keras_take_grad)
def keras_take_grad_adjoint(y, g, x, indices, axis):
    d[g] = keras.ops.take(d[y], indices, axis)


@tangent_(tangent.keras_take_grad)
def keras_take_grad_forward(y, g, x, indices, axis):
    d[y] = tangent.keras_take_grad(d[g], x, indices, axis)


@adjoint(tangent.keras_cast_like)
def keras_cast_like_adjoint(y, g, like):
    d[g] = tangent.keras_cast_like(d[y], g)


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
