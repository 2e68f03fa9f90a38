# Derivative rules for TensorFlow 2 (eager, and inside tf.function): `tf.*`, `tf.math.*`,
# `tf.nn.*` and `tf.linalg.*`. Template conventions as in python.py. One-argument
# elementwise functions come from elementwise.py (`tensorflow="math.tanh"`: `tf.tanh` is
# the same object), operators (`x @ w`, `x * y`, `x[0]`) from arithmetic.py, dispatched at
# run time through `tangent.namespace_of` (for tensors: tangent._tensorflow.TfNumpy).
#
# A rule is found by the identity of the live function, so `tf.reduce_sum` and
# `tf.math.reduce_sum`, `tf.matmul` and `tf.linalg.matmul` share one rule; the names here
# are TensorFlow's canonical ones. Rule bodies call TensorFlow functions (reached by
# generated code as the closure variable `tensorflow`) and `tangent.*` helpers; the
# helpers only these rules use are `tangent.tensorflow_*`
# (stdlib-shims/tangent/_tensorflow.py). TensorFlow never casts implicitly, so masks are
# built in the value's floating dtype (`tangent.tensorflow_mask`). Adjoint bodies call
# functions that have rules here (or helpers with rules at the end), so a gradient can be
# differentiated again.

# TensorFlow exports one function under several paths. In a host the live names find
# the rule by the object; without one (the Rust API, `tangent grad FILE:FUNC`) these
# declarations say which paths are the same function (tests/tensorflow checks each is).
exported_as(
    tensorflow.math, tensorflow,
    abs, acos, acosh, add, argmax, argmin, asin, asinh, atan, atan2, atanh, cos, cosh,
    cumsum, divide, equal, exp, floor, greater, greater_equal, less, less_equal,
    logical_and, logical_not, logical_or, maximum, minimum, multiply, negative, not_equal,
    pow, reduce_logsumexp, reduce_max, reduce_mean, reduce_min, reduce_prod, reduce_sum,
    round, sigmoid, sign, sin, sinh, sqrt, square, subtract, tan, tanh, truediv,
)
exported_as(tensorflow.math, tensorflow.nn, sigmoid, softplus, tanh)
exported_as(tensorflow.nn, tensorflow.math, log_softmax, softmax, softsign)
exported_as(tensorflow.linalg, tensorflow, matmul)
exported_as(tensorflow, tensorflow.linalg, einsum, eye, norm)

linear_in_first(
    tensorflow.math.reduce_sum, tensorflow.math.reduce_mean, tensorflow.reshape,
    tensorflow.transpose, tensorflow.expand_dims, tensorflow.squeeze, tensorflow.concat,
    tensorflow.stack, tensorflow.math.cumsum, tensorflow.reverse, tensorflow.identity,
    tensorflow.tile, tensorflow.broadcast_to, tensorflow.gather, tensorflow.cast,
    tangent.tensorflow_unreduce, tangent.tensorflow_sum, tangent.tensorflow_where_grad,
    tangent.tensorflow_split_like, tangent.tensorflow_unstack,
    tangent.tensorflow_gather_grad, tangent.tensorflow_op, tangent.tensorflow_tile_grad,
    tangent.tensorflow_cast_like, tangent.tensorflow_max_pool_grad,
    tangent.tensorflow_max_pool_tangent, tangent.tensorflow_avg_pool_grad,
    tensorflow.nn.avg_pool2d, tensorflow.nn.avg_pool,
)
linear_in_each(tensorflow.linalg.matmul, tensorflow.linalg.matvec, tensorflow.nn.conv2d,
               tangent.tensorflow_conv2d_input_grad, tangent.tensorflow_conv2d_filter_grad)

# tensorflow.random draws from a hidden generator (a function that calls it runs its forward pass
# once in a derivative).
effectful_module(tensorflow.random)

nondifferentiable(
    tensorflow.zeros, tensorflow.ones, tensorflow.zeros_like, tensorflow.ones_like,
    tensorflow.eye, tensorflow.range, tensorflow.shape, tensorflow.size, tensorflow.rank,
    tensorflow.constant, tensorflow.fill, tensorflow.one_hot, tensorflow.math.argmax,
    tensorflow.math.argmin, tensorflow.math.equal, tensorflow.math.not_equal,
    tensorflow.math.greater, tensorflow.math.greater_equal, tensorflow.math.less,
    tensorflow.math.less_equal, tensorflow.math.logical_and, tensorflow.math.logical_or,
    tensorflow.math.logical_not, tensorflow.math.sign, tensorflow.math.floor,
    tensorflow.math.ceil, tensorflow.math.round, tensorflow.math.is_nan,
    tensorflow.math.is_finite, tensorflow.math.is_inf, tensorflow.random.normal,
    tensorflow.random.uniform, tensorflow.stop_gradient,
    tangent.tensorflow_mask, tangent.tensorflow_clip_mask, tangent.tensorflow_last,
    tangent.tensorflow_axis, tangent.tensorflow_count, tangent.tensorflow_perm_inverse,
    tangent.tensorflow_labels_mask, tangent.tensorflow_check_arguments,
    tangent.tensorflow_norm_check, tangent.tensorflow_eye_like,
    tangent.tensorflow_float_attr,
    tangent.tensorflow_tangents_like,
)
reads_only(tangent.tensorflow_check_arguments)
native_scalar(tangent.tensorflow_check_arguments, kind="check")

# Results that may share an argument's buffer (TensorFlow tensors are immutable, so this
# only matters to the optimizer's view analysis).
returns_view(tensorflow.reshape, tensorflow.identity, tensorflow.expand_dims,
             tensorflow.squeeze, tensorflow.convert_to_tensor)

pure(
    tensorflow.math.reduce_sum, tensorflow.math.reduce_mean, tensorflow.linalg.matmul,
    tensorflow.math.tanh, tensorflow.math.exp, tensorflow.math.log, tensorflow.math.sigmoid,
    tensorflow.nn.relu, tensorflow.reshape, tensorflow.transpose, tensorflow.nn.softmax,
)

# ----------------------------------------------------------- arithmetic functions


@adjoint(tensorflow.math.add)
def tf_add(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(d[z], y)


@tangent_(tensorflow.math.add)
def tf_add_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] + d[y], z)


@adjoint(tensorflow.math.subtract)
def tf_subtract(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(-d[z], y)


@tangent_(tensorflow.math.subtract)
def tf_subtract_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] - d[y], z)


@adjoint(tensorflow.math.multiply)
def tf_multiply(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z] * y, x)
    d[y] = tangent.unbroadcast(d[z] * x, y)


@tangent_(tensorflow.math.multiply)
def tf_multiply_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] * y + x * d[y], z)


@adjoint(tensorflow.math.divide)
@adjoint(tensorflow.math.truediv)
def tf_divide(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z] / y, x)
    d[y] = tangent.unbroadcast(-d[z] * z / y, y)


@tangent_(tensorflow.math.divide)
@tangent_(tensorflow.math.truediv)
def tf_divide_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] / y - d[y] * z / y, z)


@adjoint(tensorflow.math.pow)
def tf_pow(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z] * y * x ** (y - 1.0), x)
    d[y] = tangent.unbroadcast(d[z] * z * tensorflow.math.log(x), y)


@tangent_(tensorflow.math.pow)
def tf_pow_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] * y * x ** (y - 1.0)
                                  + d[y] * z * tensorflow.math.log(x), z)


@adjoint(tensorflow.math.squared_difference)
def tf_squared_difference(z, x, y, name=None):
    d[x] = tangent.unbroadcast(2.0 * d[z] * (x - y), x)
    d[y] = tangent.unbroadcast(-2.0 * d[z] * (x - y), y)


@tangent_(tensorflow.math.squared_difference)
def tf_squared_difference_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(2.0 * (x - y) * (d[x] - d[y]), z)


# Ties go to x, as TensorFlow's own gradient of maximum/minimum.
@adjoint(tensorflow.math.maximum)
def tf_maximum(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z] * tangent.tensorflow_mask(x >= y, z), x)
    d[y] = tangent.unbroadcast(d[z] * tangent.tensorflow_mask(x < y, z), y)


@tangent_(tensorflow.math.maximum)
def tf_maximum_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] * tangent.tensorflow_mask(x >= y, z)
                                  + d[y] * tangent.tensorflow_mask(x < y, z), z)


@adjoint(tensorflow.math.minimum)
def tf_minimum(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z] * tangent.tensorflow_mask(x <= y, z), x)
    d[y] = tangent.unbroadcast(d[z] * tangent.tensorflow_mask(x > y, z), y)


@tangent_(tensorflow.math.minimum)
def tf_minimum_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] * tangent.tensorflow_mask(x <= y, z)
                                  + d[y] * tangent.tensorflow_mask(x > y, z), z)


# tf.math.atan2(y, x): the angle of (x, y); TensorFlow's argument order.
@adjoint(tensorflow.math.atan2)
def tf_atan2(z, y, x, name=None):
    d[y] = tangent.unbroadcast(d[z] * x / (x * x + y * y), y)
    d[x] = tangent.unbroadcast(-d[z] * y / (x * x + y * y), x)


@tangent_(tensorflow.math.atan2)
def tf_atan2_tangent(z, y, x, name=None):
    d[z] = tangent.broadcast_like((d[y] * x - d[x] * y) / (x * x + y * y), z)


@adjoint(tensorflow.math.xlogy)
def tf_xlogy(z, x, y, name=None):
    d[x] = tangent.unbroadcast(d[z] * tensorflow.math.log(y), x)
    d[y] = tangent.unbroadcast(d[z] * x / y, y)


@tangent_(tensorflow.math.xlogy)
def tf_xlogy_tangent(z, x, y, name=None):
    d[z] = tangent.broadcast_like(d[x] * tensorflow.math.log(y) + d[y] * x / y, z)


@adjoint(tensorflow.where)
def tf_where(z, condition, x=None, y=None, name=None):
    d[x] = tangent.unbroadcast(tangent.tensorflow_where_grad(d[z], condition, True), x)
    d[y] = tangent.unbroadcast(tangent.tensorflow_where_grad(d[z], condition, False), y)


@tangent_(tensorflow.where)
def tf_where_tangent(z, condition, x=None, y=None, name=None):
    d[z] = tensorflow.where(condition, tangent.broadcast_like(d[x], z),
                            tangent.broadcast_like(d[y], z))


@adjoint(tensorflow.clip_by_value)
def tf_clip_by_value(y, t, clip_value_min, clip_value_max, name=None):
    d[t] = tangent.unbroadcast(
        d[y] * tangent.tensorflow_clip_mask(t, clip_value_min, clip_value_max, 0), t)
    d[clip_value_min] = tangent.unbroadcast(
        d[y] * tangent.tensorflow_clip_mask(t, clip_value_min, clip_value_max, 1),
        clip_value_min)
    d[clip_value_max] = tangent.unbroadcast(
        d[y] * tangent.tensorflow_clip_mask(t, clip_value_min, clip_value_max, 2),
        clip_value_max)


@tangent_(tensorflow.clip_by_value)
def tf_clip_by_value_tangent(y, t, clip_value_min, clip_value_max, name=None):
    d[y] = tangent.broadcast_like(
        d[t] * tangent.tensorflow_clip_mask(t, clip_value_min, clip_value_max, 0)
        + d[clip_value_min] * tangent.tensorflow_clip_mask(t, clip_value_min,
                                                           clip_value_max, 1)
        + d[clip_value_max] * tangent.tensorflow_clip_mask(t, clip_value_min,
                                                           clip_value_max, 2), y)


@adjoint(tensorflow.math.softplus)
def tf_softplus(y, features, name=None):
    d[features] = d[y] * tensorflow.math.sigmoid(features)


@tangent_(tensorflow.math.softplus)
def tf_softplus_tangent(y, features, name=None):
    d[y] = d[features] * tensorflow.math.sigmoid(features)


@adjoint(tensorflow.math.log_sigmoid)
def tf_log_sigmoid(y, x, name=None):
    d[x] = d[y] * tensorflow.math.sigmoid(-x)


@tangent_(tensorflow.math.log_sigmoid)
def tf_log_sigmoid_tangent(y, x, name=None):
    d[y] = d[x] * tensorflow.math.sigmoid(-x)


@adjoint(tensorflow.cast)
def tf_cast(y, x, dtype, name=None):
    d[x] = tangent.tensorflow_cast_like(d[y], x)


@tangent_(tensorflow.cast)
def tf_cast_tangent(y, x, dtype, name=None):
    d[y] = tangent.tensorflow_cast_like(d[x], y)


@adjoint(tensorflow.identity)
@adjoint(tensorflow.convert_to_tensor)
def tf_identity(y, input, name=None):
    d[input] = d[y]


@tangent_(tensorflow.identity)
def tf_identity_tangent(y, input, name=None):
    d[y] = d[input]


@tangent_(tensorflow.convert_to_tensor)
def tf_convert_to_tensor_tangent(y, value, dtype=None, dtype_hint=None, name=None):
    d[y] = d[value]


# ------------------------------------------------------------- reductions, scans


@adjoint(tensorflow.math.reduce_sum)
def tf_reduce_sum(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.tensorflow_unreduce(d[y], input_tensor, axis, keepdims)


@tangent_(tensorflow.math.reduce_sum)
def tf_reduce_sum_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.tensorflow_sum(d[input_tensor], axis, keepdims)


@adjoint(tensorflow.math.reduce_mean)
def tf_reduce_mean(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.tensorflow_unreduce(
        d[y] / tangent.tensorflow_count(input_tensor, axis), input_tensor, axis, keepdims)


@tangent_(tensorflow.math.reduce_mean)
def tf_reduce_mean_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.tensorflow_sum(d[input_tensor], axis, keepdims) / \
        tangent.tensorflow_count(input_tensor, axis)


# max/min share the gradient equally among the extreme elements (as TensorFlow does).
@adjoint(tensorflow.math.reduce_max)
@adjoint(tensorflow.math.reduce_min)
def tf_reduce_max(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.extremum_grad(d[y], y, input_tensor,
                                            tangent.tensorflow_axis(axis), keepdims)


@tangent_(tensorflow.math.reduce_max)
@tangent_(tensorflow.math.reduce_min)
def tf_reduce_max_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.extremum_tangent(d[input_tensor], y, input_tensor,
                                    tangent.tensorflow_axis(axis), keepdims)


@adjoint(tensorflow.math.reduce_prod)
def tf_reduce_prod(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.prod_grad(d[y], input_tensor, tangent.tensorflow_axis(axis),
                                        keepdims)


@tangent_(tensorflow.math.reduce_prod)
def tf_reduce_prod_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.prod_tangent(d[input_tensor], input_tensor,
                                tangent.tensorflow_axis(axis), keepdims)


@adjoint(tensorflow.math.reduce_logsumexp)
def tf_reduce_logsumexp(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.tensorflow_unreduce(d[y], input_tensor, axis, keepdims) * \
        tensorflow.math.exp(input_tensor - tangent.tensorflow_unreduce(y, input_tensor, axis,
                                                                       keepdims))


@tangent_(tensorflow.math.reduce_logsumexp)
def tf_reduce_logsumexp_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.tensorflow_sum(
        d[input_tensor] * tensorflow.math.exp(
            input_tensor - tangent.tensorflow_unreduce(y, input_tensor, axis, keepdims)),
        axis, keepdims)


@adjoint(tensorflow.math.reduce_variance)
def tf_reduce_variance(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.tensorflow_unreduce(d[y], input_tensor, axis, keepdims) * \
        2.0 * (input_tensor - tensorflow.math.reduce_mean(
            input_tensor, axis=tangent.tensorflow_axis(axis), keepdims=True)) / \
        tangent.tensorflow_count(input_tensor, axis)


@tangent_(tensorflow.math.reduce_variance)
def tf_reduce_variance_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.tensorflow_sum(
        d[input_tensor] * 2.0 * (input_tensor - tensorflow.math.reduce_mean(
            input_tensor, axis=tangent.tensorflow_axis(axis), keepdims=True)),
        axis, keepdims) / tangent.tensorflow_count(input_tensor, axis)


@adjoint(tensorflow.math.reduce_std)
def tf_reduce_std(y, input_tensor, axis=None, keepdims=False, name=None):
    d[input_tensor] = tangent.tensorflow_unreduce(d[y] / y, input_tensor, axis, keepdims) * \
        (input_tensor - tensorflow.math.reduce_mean(
            input_tensor, axis=tangent.tensorflow_axis(axis), keepdims=True)) / \
        tangent.tensorflow_count(input_tensor, axis)


@tangent_(tensorflow.math.reduce_std)
def tf_reduce_std_tangent(y, input_tensor, axis=None, keepdims=False, name=None):
    d[y] = tangent.tensorflow_sum(
        d[input_tensor] * (input_tensor - tensorflow.math.reduce_mean(
            input_tensor, axis=tangent.tensorflow_axis(axis), keepdims=True)),
        axis, keepdims) / (tangent.tensorflow_count(input_tensor, axis) * y)


@adjoint(tensorflow.math.cumsum)
def tf_cumsum(y, x, axis=0, exclusive=False, reverse=False, name=None):
    d[x] = tensorflow.math.cumsum(d[y], axis=axis, exclusive=exclusive, reverse=not reverse)


@tangent_(tensorflow.math.cumsum)
def tf_cumsum_tangent(y, x, axis=0, exclusive=False, reverse=False, name=None):
    d[y] = tensorflow.math.cumsum(d[x], axis=axis, exclusive=exclusive, reverse=reverse)


# ------------------------------------------------------------------ products


# C = op(a) op(b), op transposing the last two axes when asked: the generic matrix
# product gradients, taken with respect to op(a) and op(b), then transposed back (the
# literal ifs are decided when the rule is instantiated: a plain call keeps the plain
# form).
@adjoint(tensorflow.linalg.matmul)
def tf_matmul(z, a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
              adjoint_b=False, a_is_sparse=False, b_is_sparse=False, output_type=None,
              grad_a=False, grad_b=False, name=None):
    if transpose_a or adjoint_a or transpose_b or adjoint_b:
        d[a] = tangent.tensorflow_op(tangent.matmul_grad_left(
            d[z], tangent.tensorflow_op(a, transpose_a or adjoint_a),
            tangent.tensorflow_op(b, transpose_b or adjoint_b)), transpose_a or adjoint_a)
        d[b] = tangent.tensorflow_op(tangent.matmul_grad_right(
            d[z], tangent.tensorflow_op(a, transpose_a or adjoint_a),
            tangent.tensorflow_op(b, transpose_b or adjoint_b)), transpose_b or adjoint_b)
    else:
        d[a] = tangent.matmul_grad_left(d[z], a, b)
        d[b] = tangent.matmul_grad_right(d[z], a, b)


@tangent_(tensorflow.linalg.matmul)
def tf_matmul_tangent(z, a, b, transpose_a=False, transpose_b=False, adjoint_a=False,
                      adjoint_b=False, a_is_sparse=False, b_is_sparse=False,
                      output_type=None, grad_a=False, grad_b=False, name=None):
    if transpose_a or adjoint_a or transpose_b or adjoint_b:
        d[z] = tensorflow.linalg.matmul(d[a], b, transpose_a=transpose_a or adjoint_a,
                                        transpose_b=transpose_b or adjoint_b) + \
            tensorflow.linalg.matmul(a, d[b], transpose_a=transpose_a or adjoint_a,
                                     transpose_b=transpose_b or adjoint_b)
    else:
        d[z] = tensorflow.linalg.matmul(d[a], b) + tensorflow.linalg.matmul(a, d[b])


@adjoint(tensorflow.linalg.matvec)
def tf_matvec(z, a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False,
              b_is_sparse=False, name=None):
    d[a] = tangent.tensorflow_op(tensorflow.expand_dims(d[z], -1) * tensorflow.expand_dims(
        b, -2), transpose_a or adjoint_a)
    d[b] = tangent.unbroadcast(tensorflow.linalg.matvec(a, d[z], transpose_a=not (
        transpose_a or adjoint_a)), b)


@tangent_(tensorflow.linalg.matvec)
def tf_matvec_tangent(z, a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False,
                      b_is_sparse=False, name=None):
    d[z] = tensorflow.linalg.matvec(d[a], b, transpose_a=transpose_a or adjoint_a) + \
        tensorflow.linalg.matvec(a, d[b], transpose_a=transpose_a or adjoint_a)


# einsum with up to four operands (numpy.einsum's helpers, computed in the operands'
# namespace); an operand left out is None, so its `d[...]` is dropped.
@adjoint(tensorflow.einsum)
def tf_einsum(y, equation, a, b=None, c=None, e=None):
    d[a] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 0)
    d[b] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 1)
    d[c] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 2)
    d[e] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 3)


@tangent_(tensorflow.einsum)
def tf_einsum_tangent(y, equation, a, b=None, c=None, e=None):
    d[y] = tangent.einsum_tangent(equation, (a, b, c, e), d[a], d[b], d[c], d[e])


@adjoint(tensorflow.linalg.trace)
def tf_trace(y, x, name=None):
    d[x] = tensorflow.expand_dims(tensorflow.expand_dims(d[y], -1), -1) * \
        tangent.tensorflow_eye_like(x)


@tangent_(tensorflow.linalg.trace)
def tf_trace_tangent(y, x, name=None):
    d[y] = tensorflow.linalg.trace(d[x])


# ----------------------------------------------------------------- shape ops


@adjoint(tensorflow.reshape)
def tf_reshape(y, tensor, shape, name=None):
    d[tensor] = tensorflow.reshape(d[y], tensorflow.shape(tensor))


@tangent_(tensorflow.reshape)
def tf_reshape_tangent(y, tensor, shape, name=None):
    d[y] = tensorflow.reshape(d[tensor], tensorflow.shape(y))


@adjoint(tensorflow.expand_dims)
def tf_expand_dims(y, input, axis, name=None):
    d[input] = tensorflow.reshape(d[y], tensorflow.shape(input))


@tangent_(tensorflow.expand_dims)
def tf_expand_dims_tangent(y, input, axis, name=None):
    d[y] = tensorflow.expand_dims(d[input], axis)


@adjoint(tensorflow.squeeze)
def tf_squeeze(y, input, axis=None, name=None):
    d[input] = tensorflow.reshape(d[y], tensorflow.shape(input))


@tangent_(tensorflow.squeeze)
def tf_squeeze_tangent(y, input, axis=None, name=None):
    d[y] = tensorflow.reshape(d[input], tensorflow.shape(y))


@adjoint(tensorflow.transpose)
def tf_transpose(y, a, perm=None, conjugate=False, name=None):
    d[a] = tensorflow.transpose(d[y], tangent.tensorflow_perm_inverse(perm, a))


@tangent_(tensorflow.transpose)
def tf_transpose_tangent(y, a, perm=None, conjugate=False, name=None):
    d[y] = tensorflow.transpose(d[a], perm)


@adjoint(tensorflow.linalg.matrix_transpose)
def tf_matrix_transpose(y, a, name=None, conjugate=False):
    d[a] = tensorflow.linalg.matrix_transpose(d[y])


@tangent_(tensorflow.linalg.matrix_transpose)
def tf_matrix_transpose_tangent(y, a, name=None, conjugate=False):
    d[y] = tensorflow.linalg.matrix_transpose(d[a])


@adjoint(tensorflow.reverse)
def tf_reverse(y, tensor, axis, name=None):
    d[tensor] = tensorflow.reverse(d[y], axis)


@tangent_(tensorflow.reverse)
def tf_reverse_tangent(y, tensor, axis, name=None):
    d[y] = tensorflow.reverse(d[tensor], axis)


@adjoint(tensorflow.broadcast_to)
def tf_broadcast_to(y, input, shape, name=None):
    d[input] = tangent.unbroadcast(d[y], input)


@tangent_(tensorflow.broadcast_to)
def tf_broadcast_to_tangent(y, input, shape, name=None):
    d[y] = tensorflow.broadcast_to(d[input], shape)


@adjoint(tensorflow.tile)
def tf_tile(y, input, multiples, name=None):
    d[input] = tangent.tensorflow_tile_grad(d[y], input, multiples)


@tangent_(tensorflow.tile)
def tf_tile_tangent(y, input, multiples, name=None):
    d[y] = tensorflow.tile(d[input], multiples)


@adjoint(tensorflow.concat)
def tf_concat(y, values, axis, name="concat"):
    d[values] = tangent.tensorflow_split_like(d[y], values, axis)


@tangent_(tensorflow.concat)
def tf_concat_tangent(y, values, axis, name="concat"):
    d[y] = tensorflow.concat(tangent.tensorflow_tangents_like(d[values], values), axis)


@adjoint(tensorflow.stack)
def tf_stack(y, values, axis=0, name="stack"):
    d[values] = tangent.tensorflow_unstack(d[y], values, axis)


@tangent_(tensorflow.stack)
def tf_stack_tangent(y, values, axis=0, name="stack"):
    d[y] = tensorflow.stack(tangent.tensorflow_tangents_like(d[values], values), axis)


@adjoint(tensorflow.gather)
def tf_gather(y, params, indices, validate_indices=None, axis=None, batch_dims=0,
              name=None):
    d[params] = tangent.tensorflow_gather_grad(d[y], params, indices, axis, batch_dims)


@tangent_(tensorflow.gather)
def tf_gather_tangent(y, params, indices, validate_indices=None, axis=None, batch_dims=0,
                      name=None):
    d[y] = tensorflow.gather(d[params], indices, axis=axis, batch_dims=batch_dims)


# ------------------------------------------------------------------- tf.nn


@adjoint(tensorflow.nn.relu)
def tf_relu(y, features, name=None):
    d[features] = d[y] * tangent.tensorflow_mask(features > 0.0, features)


@tangent_(tensorflow.nn.relu)
def tf_relu_tangent(y, features, name=None):
    d[y] = d[features] * tangent.tensorflow_mask(features > 0.0, features)


@adjoint(tensorflow.nn.relu6)
def tf_relu6(y, features, name=None):
    d[features] = d[y] * tangent.tensorflow_mask(
        tensorflow.math.logical_and(features > 0.0, features < 6.0), features)


@tangent_(tensorflow.nn.relu6)
def tf_relu6_tangent(y, features, name=None):
    d[y] = d[features] * tangent.tensorflow_mask(
        tensorflow.math.logical_and(features > 0.0, features < 6.0), features)


# The slope below 0 is `alpha` as TensorFlow stores it: a float32 attribute, also for
# float64 tensors.
@adjoint(tensorflow.nn.leaky_relu)
def tf_leaky_relu(y, features, alpha=0.2, name=None):
    d[features] = tensorflow.where(features > 0.0, d[y],
                                   d[y] * tangent.tensorflow_float_attr(alpha))


@tangent_(tensorflow.nn.leaky_relu)
def tf_leaky_relu_tangent(y, features, alpha=0.2, name=None):
    d[y] = tensorflow.where(features > 0.0, d[features],
                            d[features] * tangent.tensorflow_float_attr(alpha))


# elu: exp(x) - 1 below 0, so the slope there is y + 1.
@adjoint(tensorflow.nn.elu)
def tf_elu(y, features, name=None):
    d[features] = tensorflow.where(features > 0.0, d[y], d[y] * (y + 1.0))


@tangent_(tensorflow.nn.elu)
def tf_elu_tangent(y, features, name=None):
    d[y] = tensorflow.where(features > 0.0, d[features], d[features] * (y + 1.0))


@adjoint(tensorflow.nn.selu)
def tf_selu(y, features, name=None):
    d[features] = tensorflow.where(features > 0.0, d[y] * 1.0507009873554805,
                                   d[y] * (y + 1.7580993408473766))


@tangent_(tensorflow.nn.selu)
def tf_selu_tangent(y, features, name=None):
    d[y] = tensorflow.where(features > 0.0, d[features] * 1.0507009873554805,
                            d[features] * (y + 1.7580993408473766))


@adjoint(tensorflow.nn.gelu)
def tf_gelu(y, features, approximate=False, name=None):
    d[features] = d[y] * tangent.tensorflow_gelu_slope(features, approximate)


@tangent_(tensorflow.nn.gelu)
def tf_gelu_tangent(y, features, approximate=False, name=None):
    d[y] = d[features] * tangent.tensorflow_gelu_slope(features, approximate)


# silu (swish): x sigmoid(beta x).
@adjoint(tensorflow.nn.silu)
def tf_silu(y, features, beta=1.0):
    d[features] = d[y] * (tensorflow.math.sigmoid(beta * features) * (
        1.0 + beta * features * (1.0 - tensorflow.math.sigmoid(beta * features))))


@tangent_(tensorflow.nn.silu)
def tf_silu_tangent(y, features, beta=1.0):
    d[y] = d[features] * (tensorflow.math.sigmoid(beta * features) * (
        1.0 + beta * features * (1.0 - tensorflow.math.sigmoid(beta * features))))


@adjoint(tensorflow.nn.softsign)
def tf_softsign(y, features, name=None):
    d[features] = d[y] / ((1.0 + tensorflow.math.abs(features))
                          * (1.0 + tensorflow.math.abs(features)))


@tangent_(tensorflow.nn.softsign)
def tf_softsign_tangent(y, features, name=None):
    d[y] = d[features] / ((1.0 + tensorflow.math.abs(features))
                          * (1.0 + tensorflow.math.abs(features)))


@adjoint(tensorflow.nn.softmax)
def tf_softmax(y, logits, axis=None, name=None):
    d[logits] = y * (d[y] - tensorflow.math.reduce_sum(
        d[y] * y, axis=tangent.tensorflow_last(axis), keepdims=True))


@tangent_(tensorflow.nn.softmax)
def tf_softmax_tangent(y, logits, axis=None, name=None):
    d[y] = y * (d[logits] - tensorflow.math.reduce_sum(
        d[logits] * y, axis=tangent.tensorflow_last(axis), keepdims=True))


@adjoint(tensorflow.nn.log_softmax)
def tf_log_softmax(y, logits, axis=None, name=None):
    d[logits] = d[y] - tensorflow.math.exp(y) * tensorflow.math.reduce_sum(
        d[y], axis=tangent.tensorflow_last(axis), keepdims=True)


@tangent_(tensorflow.nn.log_softmax)
def tf_log_softmax_tangent(y, logits, axis=None, name=None):
    d[y] = d[logits] - tensorflow.math.reduce_sum(
        d[logits] * tensorflow.math.exp(y), axis=tangent.tensorflow_last(axis),
        keepdims=True)


# max(x, 0) - x z + log(1 + exp(-|x|)), elementwise: d/dx = sigmoid(x) - z, d/dz = -x.
@adjoint(tensorflow.nn.sigmoid_cross_entropy_with_logits)
def tf_sigmoid_cross_entropy(y, labels=None, logits=None, name=None):
    d[logits] = d[y] * (tensorflow.math.sigmoid(logits) - labels)
    d[labels] = -d[y] * logits


@tangent_(tensorflow.nn.sigmoid_cross_entropy_with_logits)
def tf_sigmoid_cross_entropy_tangent(y, labels=None, logits=None, name=None):
    d[y] = d[logits] * (tensorflow.math.sigmoid(logits) - labels) - d[labels] * logits


# -sum(labels * log_softmax(logits), axis): d/dlogits = softmax * sum(labels) - labels
# (labels need not sum to one), d/dlabels = -log_softmax(logits).
@adjoint(tensorflow.nn.softmax_cross_entropy_with_logits)
def tf_softmax_cross_entropy(y, labels, logits, axis=-1, name=None):
    d[logits] = tensorflow.expand_dims(d[y], axis) * (
        tensorflow.nn.softmax(logits, axis=axis)
        * tensorflow.math.reduce_sum(labels, axis=axis, keepdims=True) - labels)
    d[labels] = -tensorflow.expand_dims(d[y], axis) * tensorflow.nn.log_softmax(logits,
                                                                               axis=axis)


@tangent_(tensorflow.nn.softmax_cross_entropy_with_logits)
def tf_softmax_cross_entropy_tangent(y, labels, logits, axis=-1, name=None):
    d[y] = tensorflow.math.reduce_sum(
        d[logits] * (tensorflow.nn.softmax(logits, axis=axis)
                     * tensorflow.math.reduce_sum(labels, axis=axis, keepdims=True)
                     - labels), axis=axis) - tensorflow.math.reduce_sum(
        d[labels] * tensorflow.nn.log_softmax(logits, axis=axis), axis=axis)


@adjoint(tensorflow.nn.sparse_softmax_cross_entropy_with_logits)
def tf_sparse_softmax_cross_entropy(y, labels=None, logits=None, name=None):
    d[logits] = tensorflow.expand_dims(d[y], -1) * (
        tensorflow.nn.softmax(logits, axis=-1)
        - tangent.tensorflow_labels_mask(labels, logits))


@tangent_(tensorflow.nn.sparse_softmax_cross_entropy_with_logits)
def tf_sparse_softmax_cross_entropy_tangent(y, labels=None, logits=None, name=None):
    d[y] = tensorflow.math.reduce_sum(d[logits] * (
        tensorflow.nn.softmax(logits, axis=-1)
        - tangent.tensorflow_labels_mask(labels, logits)), axis=-1)


@adjoint(tensorflow.nn.l2_loss)
def tf_l2_loss(y, t, name=None):
    d[t] = d[y] * t


@tangent_(tensorflow.nn.l2_loss)
def tf_l2_loss_tangent(y, t, name=None):
    d[y] = tensorflow.math.reduce_sum(d[t] * t)


@adjoint(tensorflow.nn.bias_add)
def tf_bias_add(y, value, bias, data_format=None, name=None):
    d[value] = d[y]
    d[bias] = tangent.tensorflow_bias_grad(d[y], bias, data_format)


@tangent_(tensorflow.nn.bias_add)
def tf_bias_add_tangent(y, value, bias, data_format=None, name=None):
    d[y] = tangent.broadcast_like(d[value], y) + tangent.tensorflow_bias_like(d[bias], y,
                                                                              data_format)


# Convolution and pooling (NHWC as TensorFlow's CPU kernels; strides, ksize and
# dilations as an int or a list of 1, 2 or 4; padding 'SAME', 'VALID' or, for conv2d,
# explicit). The gradients are TensorFlow's own backprop ops, wrapped in helpers with
# rules of their own below, so a gradient can be differentiated again.
@adjoint(tensorflow.nn.conv2d)
def tf_conv2d(y, input, filters, strides, padding, data_format="NHWC", dilations=None,
              name=None):
    d[input] = tangent.tensorflow_conv2d_input_grad(d[y], filters, input, strides, padding,
                                                    data_format, dilations)
    d[filters] = tangent.tensorflow_conv2d_filter_grad(input, d[y], filters, strides,
                                                       padding, data_format, dilations)


@tangent_(tensorflow.nn.conv2d)
def tf_conv2d_tangent(y, input, filters, strides, padding, data_format="NHWC",
                      dilations=None, name=None):
    d[y] = tensorflow.nn.conv2d(d[input], filters, strides, padding, data_format,
                                dilations) + \
        tensorflow.nn.conv2d(input, d[filters], strides, padding, data_format, dilations)


@adjoint(tensorflow.nn.max_pool2d)
def tf_max_pool2d(y, input, ksize, strides, padding, data_format="NHWC", name=None):
    d[input] = tangent.tensorflow_max_pool_grad(d[y], input, y, ksize, strides, padding,
                                                data_format)


@tangent_(tensorflow.nn.max_pool2d)
def tf_max_pool2d_tangent(y, input, ksize, strides, padding, data_format="NHWC", name=None):
    d[y] = tangent.tensorflow_max_pool_tangent(d[input], input, y, ksize, strides, padding,
                                               data_format)


@adjoint(tensorflow.nn.avg_pool2d)
def tf_avg_pool2d(y, input, ksize, strides, padding, data_format="NHWC", name=None):
    d[input] = tangent.tensorflow_avg_pool_grad(d[y], input, ksize, strides, padding,
                                                data_format)


@tangent_(tensorflow.nn.avg_pool2d)
def tf_avg_pool2d_tangent(y, input, ksize, strides, padding, data_format="NHWC", name=None):
    d[y] = tensorflow.nn.avg_pool2d(d[input], ksize, strides, padding, data_format)


# tf.nn.max_pool / avg_pool (any rank; data_format None is channels last): differentiated
# for a 4-D input, where they are max_pool2d / avg_pool2d.
@adjoint(tensorflow.nn.max_pool)
def tf_max_pool(y, input, ksize, strides, padding, data_format=None, name=None):
    d[input] = tangent.tensorflow_max_pool_grad(d[y], input, y, ksize, strides, padding,
                                                data_format)


@tangent_(tensorflow.nn.max_pool)
def tf_max_pool_tangent(y, input, ksize, strides, padding, data_format=None, name=None):
    d[y] = tangent.tensorflow_max_pool_tangent(d[input], input, y, ksize, strides, padding,
                                               data_format)


@adjoint(tensorflow.nn.avg_pool)
def tf_avg_pool(y, input, ksize, strides, padding, data_format=None, name=None):
    d[input] = tangent.tensorflow_avg_pool_grad(d[y], input, ksize, strides, padding,
                                                data_format)


@tangent_(tensorflow.nn.avg_pool)
def tf_avg_pool_tangent(y, input, ksize, strides, padding, data_format=None, name=None):
    d[y] = tensorflow.nn.avg_pool(d[input], ksize, strides, padding, data_format)


# --------------------------------------------------------------- tf.linalg


# y = inv(op(A)), op transposing when adjoint=True.
@adjoint(tensorflow.linalg.inv)
def tf_inv(y, input, adjoint=False, name=None):
    d[input] = -tangent.tensorflow_op(tensorflow.linalg.matmul(
        tensorflow.linalg.matmul(y, d[y], transpose_a=True), y, transpose_b=True), adjoint)


@tangent_(tensorflow.linalg.inv)
def tf_inv_tangent(y, input, adjoint=False, name=None):
    d[y] = -tensorflow.linalg.matmul(tensorflow.linalg.matmul(
        y, tangent.tensorflow_op(d[input], adjoint)), y)


@adjoint(tensorflow.linalg.det)
def tf_det(y, input, name=None):
    d[input] = tensorflow.expand_dims(tensorflow.expand_dims(d[y] * y, -1), -1) * \
        tensorflow.linalg.matrix_transpose(tensorflow.linalg.inv(input))


@tangent_(tensorflow.linalg.det)
def tf_det_tangent(y, input, name=None):
    d[y] = y * tensorflow.linalg.trace(tensorflow.linalg.matmul(tensorflow.linalg.inv(input),
                                                                d[input]))


# x = op(A)^-1 b (op transposing when adjoint=True): d b = op(A)^-T g, and
# d op(A) = -(d b) x^T.
@adjoint(tensorflow.linalg.solve)
def tf_solve(x, matrix, rhs, adjoint=False, name=None):
    d[rhs] = tensorflow.linalg.solve(matrix, d[x], adjoint=not adjoint)
    d[matrix] = -tangent.tensorflow_op(tensorflow.linalg.matmul(
        tensorflow.linalg.solve(matrix, d[x], adjoint=not adjoint), x, transpose_b=True),
        adjoint)


@tangent_(tensorflow.linalg.solve)
def tf_solve_tangent(x, matrix, rhs, adjoint=False, name=None):
    d[x] = tensorflow.linalg.solve(matrix, d[rhs] - tensorflow.linalg.matmul(
        tangent.tensorflow_op(d[matrix], adjoint), x), adjoint=adjoint)


@adjoint(tensorflow.linalg.cholesky)
def tf_cholesky(ell, input, name=None):
    d[input] = tangent.tensorflow_cholesky_grad(d[ell], ell)


@tangent_(tensorflow.linalg.cholesky)
def tf_cholesky_tangent(ell, input, name=None):
    d[ell] = tangent.tensorflow_cholesky_tangent(d[input], ell)


# The Euclidean (Frobenius) norm over `axis`; other orders are refused by name.
@adjoint(tensorflow.norm)
def tf_norm(y, tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    d[tensor] = tangent.tensorflow_unreduce(
        d[y] / y, tensor, axis, tangent.tensorflow_norm_check(ord, axis, keepdims)) * tensor


@tangent_(tensorflow.norm)
def tf_norm_tangent(y, tensor, ord="euclidean", axis=None, keepdims=None, name=None):
    d[y] = tangent.tensorflow_sum(d[tensor] * tensor, axis,
                                  tangent.tensorflow_norm_check(ord, axis, keepdims)) / y


# ------------------------------------------- rules of the helpers above (second order)


@adjoint(tangent.tensorflow_unreduce)
def tensorflow_unreduce_adjoint(y, g, x, axis, keepdims):
    d[g] = tangent.tensorflow_sum(d[y], axis, keepdims)
    d[x] = 0.0


@tangent_(tangent.tensorflow_unreduce)
def tensorflow_unreduce_tangent(y, g, x, axis, keepdims):
    d[y] = tangent.tensorflow_unreduce(d[g], x, axis, keepdims)


@adjoint(tangent.tensorflow_sum)
def tensorflow_sum_adjoint(y, t, axis=None, keepdims=False):
    d[t] = tangent.tensorflow_unreduce(d[y], t, axis, keepdims)


@tangent_(tangent.tensorflow_sum)
def tensorflow_sum_tangent(y, t, axis=None, keepdims=False):
    d[y] = tangent.tensorflow_sum(d[t], axis, keepdims)


@adjoint(tangent.tensorflow_where_grad)
def tensorflow_where_grad_adjoint(y, g, c, first):
    d[g] = tangent.tensorflow_where_grad(d[y], c, first)


@tangent_(tangent.tensorflow_where_grad)
def tensorflow_where_grad_tangent(y, g, c, first):
    d[y] = tangent.tensorflow_where_grad(d[g], c, first)


@adjoint(tangent.tensorflow_op)
def tensorflow_op_adjoint(y, x, transpose):
    d[x] = tangent.tensorflow_op(d[y], transpose)


@tangent_(tangent.tensorflow_op)
def tensorflow_op_tangent(y, x, transpose):
    d[y] = tangent.tensorflow_op(d[x], transpose)


@adjoint(tangent.tensorflow_split_like)
def tensorflow_split_like_adjoint(y, g, values, axis):
    d[g] = tensorflow.concat(tangent.tensorflow_tangents_like(d[y], y), axis)
    d[values] = 0.0


@tangent_(tangent.tensorflow_split_like)
def tensorflow_split_like_tangent(y, g, values, axis):
    d[y] = tangent.tensorflow_split_like(d[g], values, axis)


@adjoint(tangent.tensorflow_unstack)
def tensorflow_unstack_adjoint(y, g, values, axis):
    d[g] = tensorflow.stack(tangent.tensorflow_tangents_like(d[y], y), axis)
    d[values] = 0.0


@tangent_(tangent.tensorflow_unstack)
def tensorflow_unstack_tangent(y, g, values, axis):
    d[y] = tangent.tensorflow_unstack(d[g], values, axis)


@adjoint(tangent.tensorflow_gather_grad)
def tensorflow_gather_grad_adjoint(y, g, params, indices, axis, batch_dims):
    d[g] = tensorflow.gather(d[y], indices, axis=axis, batch_dims=batch_dims)
    d[params] = 0.0


@tangent_(tangent.tensorflow_gather_grad)
def tensorflow_gather_grad_tangent(y, g, params, indices, axis, batch_dims):
    d[y] = tangent.tensorflow_gather_grad(d[g], params, indices, axis, batch_dims)


@adjoint(tangent.tensorflow_tile_grad)
def tensorflow_tile_grad_adjoint(y, g, input, multiples):
    d[g] = tensorflow.tile(d[y], multiples)
    d[input] = 0.0


@tangent_(tangent.tensorflow_tile_grad)
def tensorflow_tile_grad_tangent(y, g, input, multiples):
    d[y] = tangent.tensorflow_tile_grad(d[g], input, multiples)


@adjoint(tangent.tensorflow_cast_like)
def tensorflow_cast_like_adjoint(y, g, like):
    d[g] = tangent.tensorflow_cast_like(d[y], g)
    d[like] = 0.0


@tangent_(tangent.tensorflow_cast_like)
def tensorflow_cast_like_tangent(y, g, like):
    d[y] = tangent.tensorflow_cast_like(d[g], like)


@adjoint(tangent.tensorflow_bias_grad)
def tensorflow_bias_grad_adjoint(y, g, bias, data_format):
    d[g] = tangent.tensorflow_bias_like(d[y], g, data_format)


@tangent_(tangent.tensorflow_bias_grad)
def tensorflow_bias_grad_tangent(y, g, bias, data_format):
    d[y] = tangent.tensorflow_bias_grad(d[g], bias, data_format)


@adjoint(tangent.tensorflow_bias_like)
def tensorflow_bias_like_adjoint(y, b, like, data_format):
    d[b] = tangent.tensorflow_bias_grad(d[y], b, data_format)


@tangent_(tangent.tensorflow_bias_like)
def tensorflow_bias_like_tangent(y, b, like, data_format):
    d[y] = tangent.tensorflow_bias_like(d[b], like, data_format)


@adjoint(tangent.tensorflow_gelu_slope)
def tensorflow_gelu_slope_adjoint(s, x, approximate):
    d[x] = d[s] * tangent.tensorflow_gelu_curvature(x, approximate)


@tangent_(tangent.tensorflow_gelu_slope)
def tensorflow_gelu_slope_tangent(s, x, approximate):
    d[s] = d[x] * tangent.tensorflow_gelu_curvature(x, approximate)


# <A_w h, g> = <h, A_w^T g>: the input gradient is linear in g (its adjoint a
# convolution) and in the filters (its adjoint the filter gradient), and so on.
@adjoint(tangent.tensorflow_conv2d_input_grad)
def tensorflow_conv2d_input_grad_adjoint(y, g, filters, like, strides, padding,
                                         data_format, dilations):
    d[g] = tensorflow.nn.conv2d(d[y], filters, strides, padding, data_format, dilations)
    d[filters] = tangent.tensorflow_conv2d_filter_grad(d[y], g, filters, strides, padding,
                                                       data_format, dilations)
    d[like] = 0.0


@tangent_(tangent.tensorflow_conv2d_input_grad)
def tensorflow_conv2d_input_grad_tangent(y, g, filters, like, strides, padding,
                                         data_format, dilations):
    d[y] = tangent.tensorflow_conv2d_input_grad(d[g], filters, like, strides, padding,
                                                data_format, dilations) + \
        tangent.tensorflow_conv2d_input_grad(g, d[filters], like, strides, padding,
                                             data_format, dilations)


@adjoint(tangent.tensorflow_conv2d_filter_grad)
def tensorflow_conv2d_filter_grad_adjoint(y, x, g, like, strides, padding, data_format,
                                          dilations):
    d[x] = tangent.tensorflow_conv2d_input_grad(g, d[y], x, strides, padding, data_format,
                                                dilations)
    d[g] = tensorflow.nn.conv2d(x, d[y], strides, padding, data_format, dilations)


@tangent_(tangent.tensorflow_conv2d_filter_grad)
def tensorflow_conv2d_filter_grad_tangent(y, x, g, like, strides, padding, data_format,
                                          dilations):
    d[y] = tangent.tensorflow_conv2d_filter_grad(d[x], g, like, strides, padding,
                                                 data_format, dilations) + \
        tangent.tensorflow_conv2d_filter_grad(x, d[g], like, strides, padding, data_format,
                                              dilations)


# The pooling gradients are linear in the incoming gradient and piecewise constant in
# the input (max pooling's choice of element).
@adjoint(tangent.tensorflow_max_pool_grad)
def tensorflow_max_pool_grad_adjoint(z, g, x, y, ksize, strides, padding, data_format):
    d[g] = tangent.tensorflow_max_pool_tangent(d[z], x, y, ksize, strides, padding,
                                               data_format)
    d[x] = 0.0
    d[y] = 0.0


@tangent_(tangent.tensorflow_max_pool_grad)
def tensorflow_max_pool_grad_tangent(z, g, x, y, ksize, strides, padding, data_format):
    d[z] = tangent.tensorflow_max_pool_grad(d[g], x, y, ksize, strides, padding, data_format)


@adjoint(tangent.tensorflow_max_pool_tangent)
def tensorflow_max_pool_tangent_adjoint(z, t, x, y, ksize, strides, padding, data_format):
    d[t] = tangent.tensorflow_max_pool_grad(d[z], x, y, ksize, strides, padding, data_format)


@tangent_(tangent.tensorflow_max_pool_tangent)
def tensorflow_max_pool_tangent_tangent(z, t, x, y, ksize, strides, padding, data_format):
    d[z] = tangent.tensorflow_max_pool_tangent(d[t], x, y, ksize, strides, padding,
                                               data_format)


@adjoint(tangent.tensorflow_avg_pool_grad)
def tensorflow_avg_pool_grad_adjoint(z, g, x, ksize, strides, padding, data_format):
    d[g] = tensorflow.nn.avg_pool2d(d[z], ksize, strides, padding, data_format)
    d[x] = 0.0


@tangent_(tangent.tensorflow_avg_pool_grad)
def tensorflow_avg_pool_grad_tangent(z, g, x, ksize, strides, padding, data_format):
    d[z] = tangent.tensorflow_avg_pool_grad(d[g], x, ksize, strides, padding, data_format)

