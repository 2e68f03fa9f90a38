# Derivative rules for PyTorch: the functional `torch.*` API, `torch.nn.functional.*` and
# `torch.linalg.*` that models use. Template conventions as in python.py. One-argument
# elementwise functions of torch come from elementwise.py (`torch=`), operators and
# array methods (`x @ w`, `x.sum(dim=1)`, `x.T`) from arithmetic.py and numpy.py plus the
# torch methods at the end of this file, dispatched at run time through
# `tangent.namespace_of` (for tensors: tangent._torch.TorchNumpy, NumPy's names and
# parameters computed with torch).
#
# Rule bodies call torch functions (reached by generated code as the closure variable
# `torch`, see tangent._compile) and `tangent.*` helpers; the helpers only these rules
# use are `tangent.torch_*` (stdlib-shims/tangent/_torch.py). Gradients are tensors of
# the input's dtype and device: no body calls `.numpy()`, `.item()` or `float()` on a
# tensor. Adjoint bodies are written with torch functions that have rules here (or
# helpers with forward rules at the end), so a gradient can be differentiated again.

linear_in_first(
    torch.sum, torch.mean, torch.reshape, torch.transpose, torch.permute, torch.t,
    torch.squeeze, torch.unsqueeze, torch.flatten, torch.cumsum, torch.flip,
    torch.movedim, torch.nn.functional.avg_pool2d,
    tangent.torch_sum, tangent.torch_mean, tangent.torch_permute,
    tangent.torch_permute_grad, tangent.torch_cat_grad, tangent.torch_stack_grad,
    tangent.torch_cumsum_grad, tangent.torch_reduce_loss, tangent.torch_loss_grad,
    tangent.torch_class_grad, tangent.torch_gather,
    tangent.torch_gather_grad, tangent.torch_avg_pool2d_grad,
    tangent.torch_max_pool2d_grad, tangent.torch_max_pool2d_tangent,
    tangent.torch_conv2d_by_input, tangent.torch_conv2d_by_weight,
    tangent.torch_conv2d_input_grad, tangent.torch_conv2d_input_grad_w,
    tangent.torch_conv2d_weight_grad, tangent.torch_conv2d_weight_grad_x,
    tangent.torch_conv2d_bias, tangent.torch_col,
    tangent.torch_uncol, tangent.torch_check_dropout, tangent.torch_check_loss,
    tangent.torch_cast_like,
    tangent.torch_conv2d_bias_grad,
)
linear_in_each(torch.matmul, torch.mm, torch.bmm, torch.mv, torch.dot, torch.outer)

nondifferentiable(
    torch.zeros, torch.ones, torch.zeros_like, torch.ones_like, torch.eye, torch.arange,
    torch.empty, torch.empty_like, torch.rand, torch.randn, torch.rand_like,
    torch.randn_like, torch.randint, torch.argmax, torch.argmin, torch.argsort,
    torch.sign, torch.floor, torch.ceil, torch.round, torch.trunc, torch.isnan,
    torch.isfinite, torch.isinf, torch.allclose, torch.isclose, torch.all, torch.any,
    torch.eq, torch.ne, torch.gt, torch.ge, torch.lt, torch.le, torch.logical_and,
    torch.logical_or, torch.logical_not, torch.numel, torch.is_tensor,
    torch.nn.functional.one_hot, tangent.torch_targets, tangent.torch_class_dim,
    tangent.torch_last_dims, tangent.torch_pool_window, tangent.torch_clamp_mask,
    numpy.ndarray.dim, numpy.ndarray.numel, numpy.ndarray.detach,
)

# Results that may be an argument or share its storage (views): an in-place update of
# either would show through the other name.
returns_view(
    torch.reshape, torch.transpose, torch.permute, torch.t, torch.squeeze,
    torch.unsqueeze, torch.flatten, torch.movedim, torch.broadcast_to,
    torch.nn.functional.dropout, numpy.ndarray.t,
    numpy.ndarray.permute, numpy.ndarray.unsqueeze, numpy.ndarray.expand,
)

# torch's random functions draw from (or reset) a hidden generator.
effectful_module(torch.random)
effectful(
    torch.rand, torch.randn, torch.rand_like, torch.randn_like, torch.randint,
    torch.randint_like, torch.randperm, torch.normal, torch.bernoulli, torch.poisson,
    torch.multinomial, torch.manual_seed, torch.seed,
)

# Every torch function returns a new tensor and changes nothing, except the in-place
# ones (a trailing underscore, never differentiated) and torch's random functions.
pure(
    torch.sum, torch.mean, torch.matmul, torch.tanh, torch.exp, torch.log, torch.sigmoid,
    torch.relu, torch.reshape, torch.transpose, torch.nn.functional.relu,
    torch.nn.functional.gelu, torch.nn.functional.softmax, torch.nn.functional.linear,
)

# ----------------------------------------------------------- arithmetic functions


@adjoint(torch.add)
def torch_add(z, input, other, alpha=1):
    d[input] = tangent.unbroadcast(d[z], input)
    d[other] = tangent.unbroadcast(d[z] * alpha, other)


@tangent_(torch.add)
def torch_add_tangent(z, input, other, alpha=1):
    d[z] = tangent.broadcast_like(d[input] + d[other] * alpha, z)


@adjoint(torch.sub)
@adjoint(torch.subtract)
def torch_sub(z, input, other, alpha=1):
    d[input] = tangent.unbroadcast(d[z], input)
    d[other] = tangent.unbroadcast(-d[z] * alpha, other)


@tangent_(torch.sub)
@tangent_(torch.subtract)
def torch_sub_tangent(z, input, other, alpha=1):
    d[z] = tangent.broadcast_like(d[input] - d[other] * alpha, z)


@adjoint(torch.mul)
@adjoint(torch.multiply)
def torch_mul(z, input, other):
    d[input] = tangent.unbroadcast(d[z] * other, input)
    d[other] = tangent.unbroadcast(d[z] * input, other)


@tangent_(torch.mul)
@tangent_(torch.multiply)
def torch_mul_tangent(z, input, other):
    d[z] = tangent.broadcast_like(d[input] * other + input * d[other], z)


# rounding_mode='trunc'/'floor' is piecewise constant: no rule for it (an error).
@adjoint(torch.div)
@adjoint(torch.divide)
@adjoint(torch.true_divide)
def torch_div(z, input, other):
    d[input] = tangent.unbroadcast(d[z] / other, input)
    d[other] = tangent.unbroadcast(-d[z] * z / other, other)


@tangent_(torch.div)
@tangent_(torch.divide)
@tangent_(torch.true_divide)
def torch_div_tangent(z, input, other):
    d[z] = tangent.broadcast_like(d[input] / other - d[other] * z / other, z)


@adjoint(torch.pow)
def torch_pow(z, input, exponent):
    d[input] = tangent.unbroadcast(d[z] * exponent * input ** (exponent - 1), input)
    d[exponent] = tangent.unbroadcast(d[z] * z * torch.log(input), exponent)


@tangent_(torch.pow)
def torch_pow_tangent(z, input, exponent):
    d[z] = tangent.broadcast_like(d[input] * exponent * input ** (exponent - 1)
                                  + d[exponent] * z * torch.log(input), z)


@adjoint(torch.maximum)
def torch_maximum(z, input, other):
    d[input] = tangent.unbroadcast(d[z] * (input >= other), input)
    d[other] = tangent.unbroadcast(d[z] * (input < other), other)


@tangent_(torch.maximum)
def torch_maximum_tangent(z, input, other):
    d[z] = tangent.broadcast_like(d[input] * (input >= other) + d[other] * (input < other), z)


@adjoint(torch.minimum)
def torch_minimum(z, input, other):
    d[input] = tangent.unbroadcast(d[z] * (input <= other), input)
    d[other] = tangent.unbroadcast(d[z] * (input > other), other)


@tangent_(torch.minimum)
def torch_minimum_tangent(z, input, other):
    d[z] = tangent.broadcast_like(d[input] * (input <= other) + d[other] * (input > other), z)


@adjoint(torch.atan2)
@adjoint(torch.arctan2)
def torch_atan2(z, input, other):
    d[input] = tangent.unbroadcast(d[z] * other / (other * other + input * input), input)
    d[other] = tangent.unbroadcast(-d[z] * input / (other * other + input * input), other)


@tangent_(torch.atan2)
@tangent_(torch.arctan2)
def torch_atan2_tangent(z, input, other):
    d[z] = tangent.broadcast_like(
        (d[input] * other - d[other] * input) / (other * other + input * input), z)


@adjoint(torch.hypot)
def torch_hypot(z, input, other):
    d[input] = tangent.unbroadcast(d[z] * input / z, input)
    d[other] = tangent.unbroadcast(d[z] * other / z, other)


@tangent_(torch.hypot)
def torch_hypot_tangent(z, input, other):
    d[z] = tangent.broadcast_like((d[input] * input + d[other] * other) / z, z)


@adjoint(torch.logaddexp)
def torch_logaddexp(z, input, other):
    d[input] = tangent.unbroadcast(d[z] * torch.exp(input - z), input)
    d[other] = tangent.unbroadcast(d[z] * torch.exp(other - z), other)


@tangent_(torch.logaddexp)
def torch_logaddexp_tangent(z, input, other):
    d[z] = tangent.broadcast_like(d[input] * torch.exp(input - z)
                                  + d[other] * torch.exp(other - z), z)


@adjoint(torch.where)
def torch_where(z, condition, input, other):
    d[input] = tangent.unbroadcast(torch.where(condition, d[z], 0.0), input)
    d[other] = tangent.unbroadcast(torch.where(condition, 0.0, d[z]), other)


@tangent_(torch.where)
def torch_where_tangent(z, condition, input, other):
    d[z] = tangent.broadcast_like(torch.where(condition, d[input], d[other]), z)


# The bounds are numbers or tensors (torch.clip is clamp's alias); where they cross
# torch returns `max`.
@adjoint(torch.clamp)
@adjoint(torch.clip)
def torch_clamp(y, input, min=None, max=None):
    d[input] = tangent.unbroadcast(d[y] * tangent.torch_clamp_mask(input, min, max, 0), input)
    d[min] = tangent.unbroadcast(d[y] * tangent.torch_clamp_mask(input, min, max, 1), min)
    d[max] = tangent.unbroadcast(d[y] * tangent.torch_clamp_mask(input, min, max, 2), max)


@tangent_(torch.clamp)
@tangent_(torch.clip)
def torch_clamp_tangent(y, input, min=None, max=None):
    d[y] = tangent.broadcast_like(
        d[input] * tangent.torch_clamp_mask(input, min, max, 0)
        + d[min] * tangent.torch_clamp_mask(input, min, max, 1)
        + d[max] * tangent.torch_clamp_mask(input, min, max, 2), y)


# ------------------------------------------------------------- reductions, scans


@adjoint(torch.sum)
def torch_sum(y, input, dim=None, keepdim=False, dtype=None):
    d[input] = tangent.unreduce(d[y], input, dim, keepdim)


@tangent_(torch.sum)
def torch_sum_tangent(y, input, dim=None, keepdim=False, dtype=None):
    d[y] = tangent.torch_sum(d[input], dim, keepdim)


@adjoint(torch.mean)
def torch_mean(y, input, dim=None, keepdim=False, dtype=None):
    d[input] = tangent.unreduce(d[y] / tangent.reduced_count(input, dim), input, dim, keepdim)


@tangent_(torch.mean)
def torch_mean_tangent(y, input, dim=None, keepdim=False, dtype=None):
    d[y] = tangent.torch_mean(d[input], dim, keepdim)


# amax/amin share the gradient equally among the extreme elements (as torch does).
@adjoint(torch.amax)
@adjoint(torch.amin)
def torch_amax(y, input, dim=None, keepdim=False):
    d[input] = tangent.extremum_grad(d[y], y, input, dim, keepdim)


@tangent_(torch.amax)
@tangent_(torch.amin)
def torch_amax_tangent(y, input, dim=None, keepdim=False):
    d[y] = tangent.extremum_tangent(d[input], y, input, dim, keepdim)


@adjoint(torch.prod)
def torch_prod(y, input, dim=None, keepdim=False, dtype=None):
    d[input] = tangent.prod_grad(d[y], input, dim, keepdim)


@tangent_(torch.prod)
def torch_prod_tangent(y, input, dim=None, keepdim=False, dtype=None):
    d[y] = tangent.prod_tangent(d[input], input, dim, keepdim)


# var/std with torch's `correction` (1 by default: the unbiased estimate), written with
# torch functions so that the gradient can be differentiated again.
@adjoint(torch.var)
def torch_var(y, input, dim=None, correction=1, keepdim=False):
    d[input] = tangent.unreduce(d[y], input, dim, keepdim) * 2.0 * (
        input - torch.mean(input, dim=dim, keepdim=True)) / (
        tangent.reduced_count(input, dim) - correction)


@tangent_(torch.var)
def torch_var_tangent(y, input, dim=None, correction=1, keepdim=False):
    d[y] = tangent.torch_sum(d[input] * 2.0 * (input - torch.mean(input, dim=dim, keepdim=True)),
                             dim, keepdim) / (tangent.reduced_count(input, dim) - correction)


@adjoint(torch.std)
def torch_std(y, input, dim=None, correction=1, keepdim=False):
    d[input] = tangent.unreduce(d[y] / y, input, dim, keepdim) * (
        input - torch.mean(input, dim=dim, keepdim=True)) / (
        tangent.reduced_count(input, dim) - correction)


@tangent_(torch.std)
def torch_std_tangent(y, input, dim=None, correction=1, keepdim=False):
    d[y] = tangent.torch_sum(d[input] * (input - torch.mean(input, dim=dim, keepdim=True)),
                             dim, keepdim) / ((tangent.reduced_count(input, dim) - correction) * y)


@adjoint(torch.logsumexp)
@adjoint(torch.special.logsumexp)
def torch_logsumexp(y, input, dim, keepdim=False):
    d[input] = tangent.unreduce(d[y], input, dim, keepdim) * torch.exp(
        input - tangent.unreduce(y, input, dim, keepdim))


@tangent_(torch.logsumexp)
@tangent_(torch.special.logsumexp)
def torch_logsumexp_tangent(y, input, dim, keepdim=False):
    d[y] = torch.sum(d[input] * torch.exp(input - tangent.unreduce(y, input, dim, keepdim)),
                     dim=dim, keepdim=keepdim)


@adjoint(torch.cumsum)
def torch_cumsum(y, input, dim, dtype=None):
    d[input] = tangent.torch_cumsum_grad(d[y], dim)


@tangent_(torch.cumsum)
def torch_cumsum_tangent(y, input, dim, dtype=None):
    d[y] = torch.cumsum(d[input], dim)


# ------------------------------------------------------------------ products


@adjoint(torch.matmul)
def torch_matmul(z, input, other):
    d[input] = tangent.matmul_grad_left(d[z], input, other)
    d[other] = tangent.matmul_grad_right(d[z], input, other)


@tangent_(torch.matmul)
def torch_matmul_tangent(z, input, other):
    d[z] = torch.matmul(d[input], other) + torch.matmul(input, d[other])


@adjoint(torch.mm)
def torch_mm(z, input, mat2):
    d[input] = torch.mm(d[z], torch.t(mat2))
    d[mat2] = torch.mm(torch.t(input), d[z])


@tangent_(torch.mm)
def torch_mm_tangent(z, input, mat2):
    d[z] = torch.mm(d[input], mat2) + torch.mm(input, d[mat2])


@adjoint(torch.bmm)
def torch_bmm(z, input, mat2):
    d[input] = torch.bmm(d[z], torch.transpose(mat2, 1, 2))
    d[mat2] = torch.bmm(torch.transpose(input, 1, 2), d[z])


@tangent_(torch.bmm)
def torch_bmm_tangent(z, input, mat2):
    d[z] = torch.bmm(d[input], mat2) + torch.bmm(input, d[mat2])


@adjoint(torch.mv)
def torch_mv(z, input, vec):
    d[input] = torch.outer(d[z], vec)
    d[vec] = torch.mv(torch.t(input), d[z])


@tangent_(torch.mv)
def torch_mv_tangent(z, input, vec):
    d[z] = torch.mv(d[input], vec) + torch.mv(input, d[vec])


@adjoint(torch.dot)
@adjoint(torch.inner)
def torch_dot(z, input, other):
    d[input] = d[z] * other
    d[other] = d[z] * input


@tangent_(torch.dot)
def torch_dot_tangent(z, input, other):
    d[z] = torch.dot(d[input], other) + torch.dot(input, d[other])


@tangent_(torch.inner)
def torch_inner_tangent(z, input, other):
    d[z] = torch.inner(d[input], other) + torch.inner(input, d[other])


@adjoint(torch.outer)
@adjoint(torch.ger)
def torch_outer(z, input, vec2):
    d[input] = torch.mv(d[z], vec2)
    d[vec2] = torch.mv(torch.t(d[z]), input)


@tangent_(torch.outer)
@tangent_(torch.ger)
def torch_outer_tangent(z, input, vec2):
    d[z] = torch.outer(d[input], vec2) + torch.outer(input, d[vec2])


# einsum with up to four operands (numpy.einsum's helpers, computed in the operands'
# namespace); an operand left out is None, so its `d[...]` is dropped.
@adjoint(torch.einsum)
def torch_einsum(y, equation, a, b=None, c=None, e=None):
    d[a] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 0)
    d[b] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 1)
    d[c] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 2)
    d[e] = tangent.einsum_grad(d[y], equation, (a, b, c, e), 3)


@tangent_(torch.einsum)
def torch_einsum_tangent(y, equation, a, b=None, c=None, e=None):
    d[y] = tangent.einsum_tangent(equation, (a, b, c, e), d[a], d[b], d[c], d[e])


@adjoint(torch.trace)
def torch_trace(y, input):
    d[input] = d[y] * torch.eye(input.shape[0], input.shape[1], dtype=input.dtype,
                                device=input.device)


@tangent_(torch.trace)
def torch_trace_tangent(y, input):
    d[y] = torch.trace(d[input])


# ----------------------------------------------------------------- shape ops


@adjoint(torch.reshape)
def torch_reshape(y, input, shape):
    d[input] = torch.reshape(d[y], input.shape)


@tangent_(torch.reshape)
def torch_reshape_tangent(y, input, shape):
    d[y] = torch.reshape(d[input], y.shape)


@adjoint(torch.flatten)
def torch_flatten(y, input, start_dim=0, end_dim=-1):
    d[input] = torch.reshape(d[y], input.shape)


@tangent_(torch.flatten)
def torch_flatten_tangent(y, input, start_dim=0, end_dim=-1):
    d[y] = torch.reshape(d[input], y.shape)


@adjoint(torch.squeeze)
def torch_squeeze(y, input, dim=None):
    d[input] = torch.reshape(d[y], input.shape)


@tangent_(torch.squeeze)
def torch_squeeze_tangent(y, input, dim=None):
    d[y] = torch.reshape(d[input], y.shape)


@adjoint(torch.unsqueeze)
def torch_unsqueeze(y, input, dim):
    d[input] = torch.reshape(d[y], input.shape)


@tangent_(torch.unsqueeze)
def torch_unsqueeze_tangent(y, input, dim):
    d[y] = torch.unsqueeze(d[input], dim)


@adjoint(torch.transpose)
@adjoint(torch.swapaxes)
def torch_transpose(y, input, dim0, dim1):
    d[input] = torch.transpose(d[y], dim0, dim1)


@tangent_(torch.transpose)
@tangent_(torch.swapaxes)
def torch_transpose_tangent(y, input, dim0, dim1):
    d[y] = torch.transpose(d[input], dim0, dim1)


@adjoint(torch.t)
def torch_t(y, input):
    d[input] = torch.t(d[y])


@tangent_(torch.t)
def torch_t_tangent(y, input):
    d[y] = torch.t(d[input])


@adjoint(torch.permute)
def torch_permute(y, input, dims):
    d[input] = tangent.torch_permute_grad(d[y], (dims,))


@tangent_(torch.permute)
def torch_permute_tangent(y, input, dims):
    d[y] = torch.permute(d[input], dims)


@adjoint(torch.movedim)
@adjoint(torch.moveaxis)
def torch_movedim(y, input, source, destination):
    d[input] = torch.movedim(d[y], destination, source)


@tangent_(torch.movedim)
@tangent_(torch.moveaxis)
def torch_movedim_tangent(y, input, source, destination):
    d[y] = torch.movedim(d[input], source, destination)


@adjoint(torch.flip)
def torch_flip(y, input, dims):
    d[input] = torch.flip(d[y], dims)


@tangent_(torch.flip)
def torch_flip_tangent(y, input, dims):
    d[y] = torch.flip(d[input], dims)


@adjoint(torch.roll)
def torch_roll(y, input, shifts, dims=None):
    d[input] = torch.reshape(torch.roll(d[y], tangent.negate_shift(shifts), dims), input.shape)


@tangent_(torch.roll)
def torch_roll_tangent(y, input, shifts, dims=None):
    d[y] = torch.roll(d[input], shifts, dims)


@adjoint(torch.broadcast_to)
def torch_broadcast_to(y, input, size):
    d[input] = tangent.unbroadcast(d[y], input)


@tangent_(torch.broadcast_to)
def torch_broadcast_to_tangent(y, input, size):
    d[y] = torch.broadcast_to(d[input], size)


@adjoint(torch.cat)
@adjoint(torch.concat)
@adjoint(torch.concatenate)
def torch_cat(y, tensors, dim=0):
    d[tensors] = tangent.torch_cat_grad(d[y], tensors, dim)


@tangent_(torch.cat)
@tangent_(torch.concat)
@tangent_(torch.concatenate)
def torch_cat_tangent(y, tensors, dim=0):
    d[y] = torch.cat(tangent.torch_tangents_like(d[tensors], tensors), dim)


@adjoint(torch.stack)
def torch_stack(y, tensors, dim=0):
    d[tensors] = tangent.torch_stack_grad(d[y], tensors, dim)


@tangent_(torch.stack)
def torch_stack_tangent(y, tensors, dim=0):
    d[y] = torch.stack(tangent.torch_tangents_like(d[tensors], tensors), dim)


# ------------------------------------------------------- torch.nn.functional


@adjoint(torch.relu)
@adjoint(torch.nn.functional.relu)
def torch_relu(y, input, inplace=False):
    d[input] = d[y] * (input > 0.0)


@tangent_(torch.relu)
@tangent_(torch.nn.functional.relu)
def torch_relu_tangent(y, input, inplace=False):
    d[y] = d[input] * (input > 0.0)


@adjoint(torch.nn.functional.relu6)
def torch_relu6(y, input, inplace=False):
    d[input] = d[y] * (input > 0.0) * (input < 6.0)


@tangent_(torch.nn.functional.relu6)
def torch_relu6_tangent(y, input, inplace=False):
    d[y] = d[input] * (input > 0.0) * (input < 6.0)


@adjoint(torch.nn.functional.hardtanh)
def torch_hardtanh(y, input, min_val=-1.0, max_val=1.0, inplace=False):
    d[input] = d[y] * (input > min_val) * (input < max_val)


@tangent_(torch.nn.functional.hardtanh)
def torch_hardtanh_tangent(y, input, min_val=-1.0, max_val=1.0, inplace=False):
    d[y] = d[input] * (input > min_val) * (input < max_val)


@adjoint(torch.nn.functional.leaky_relu)
def torch_leaky_relu(y, input, negative_slope=0.01, inplace=False):
    d[input] = torch.where(input > 0.0, d[y], d[y] * negative_slope)


@tangent_(torch.nn.functional.leaky_relu)
def torch_leaky_relu_tangent(y, input, negative_slope=0.01, inplace=False):
    d[y] = torch.where(input > 0.0, d[input], d[input] * negative_slope)


# elu: alpha * expm1(x) below 0, so the slope there is y + alpha.
@adjoint(torch.nn.functional.elu)
def torch_elu(y, input, alpha=1.0, inplace=False):
    d[input] = d[y] * torch.where(input > 0.0, 1.0, y + alpha)


@tangent_(torch.nn.functional.elu)
def torch_elu_tangent(y, input, alpha=1.0, inplace=False):
    d[y] = d[input] * torch.where(input > 0.0, 1.0, y + alpha)


@adjoint(torch.nn.functional.celu)
def torch_celu(y, input, alpha=1.0, inplace=False):
    d[input] = d[y] * torch.where(input > 0.0, 1.0, y / alpha + 1.0)


@tangent_(torch.nn.functional.celu)
def torch_celu_tangent(y, input, alpha=1.0, inplace=False):
    d[y] = d[input] * torch.where(input > 0.0, 1.0, y / alpha + 1.0)


@adjoint(torch.nn.functional.selu)
def torch_selu(y, input, inplace=False):
    d[input] = d[y] * torch.where(input > 0.0, 1.0507009873554805, y + 1.7580993408473766)


@tangent_(torch.nn.functional.selu)
def torch_selu_tangent(y, input, inplace=False):
    d[y] = d[input] * torch.where(input > 0.0, 1.0507009873554805, y + 1.7580993408473766)


# gelu: y = x Phi(x) (approximate='none'), or the tanh approximation
# y = x/2 (1 + tanh(u)), u = sqrt(2/pi) (x + 0.044715 x^3) (approximate='tanh').
@adjoint(torch.nn.functional.gelu)
def torch_gelu(y, input, approximate="none"):
    d[input] = d[y] * tangent.torch_gelu_slope(input, approximate)


@tangent_(torch.nn.functional.gelu)
def torch_gelu_tangent(y, input, approximate="none"):
    d[y] = d[input] * tangent.torch_gelu_slope(input, approximate)


@adjoint(torch.nn.functional.silu)
def torch_silu(y, input, inplace=False):
    d[input] = d[y] * (torch.sigmoid(input) * (1.0 + input * (1.0 - torch.sigmoid(input))))


@tangent_(torch.nn.functional.silu)
def torch_silu_tangent(y, input, inplace=False):
    d[y] = d[input] * (torch.sigmoid(input) * (1.0 + input * (1.0 - torch.sigmoid(input))))


# softplus(x) = log(1 + exp(beta x)) / beta, linear (slope 1) above the threshold.
@adjoint(torch.nn.functional.softplus)
def torch_softplus(y, input, beta=1.0, threshold=20.0):
    d[input] = d[y] * torch.where(input * beta > threshold, 1.0, torch.sigmoid(input * beta))


@tangent_(torch.nn.functional.softplus)
def torch_softplus_tangent(y, input, beta=1.0, threshold=20.0):
    d[y] = d[input] * torch.where(input * beta > threshold, 1.0, torch.sigmoid(input * beta))


@adjoint(torch.nn.functional.logsigmoid)
def torch_logsigmoid(y, input):
    d[input] = d[y] * torch.sigmoid(-input)


@tangent_(torch.nn.functional.logsigmoid)
def torch_logsigmoid_tangent(y, input):
    d[y] = d[input] * torch.sigmoid(-input)


@adjoint(torch.nn.functional.softsign)
def torch_softsign(y, input):
    d[input] = d[y] / ((1.0 + torch.abs(input)) * (1.0 + torch.abs(input)))


@tangent_(torch.nn.functional.softsign)
def torch_softsign_tangent(y, input):
    d[y] = d[input] / ((1.0 + torch.abs(input)) * (1.0 + torch.abs(input)))


@adjoint(torch.nn.functional.sigmoid)
@adjoint(torch.special.expit)
def torch_f_sigmoid(y, input):
    d[input] = d[y] * y * (1.0 - y)


@tangent_(torch.nn.functional.sigmoid)
@tangent_(torch.special.expit)
def torch_f_sigmoid_tangent(y, input):
    d[y] = d[input] * y * (1.0 - y)


@adjoint(torch.nn.functional.tanh)
def torch_f_tanh(y, input):
    d[input] = d[y] * (1.0 - y * y)


@tangent_(torch.nn.functional.tanh)
def torch_f_tanh_tangent(y, input):
    d[y] = d[input] * (1.0 - y * y)


@adjoint(torch.special.erf)
def torch_special_erf(y, input):
    d[input] = d[y] * 1.1283791670955126 * torch.exp(-input * input)


@tangent_(torch.special.erf)
def torch_special_erf_tangent(y, input):
    d[y] = d[input] * 1.1283791670955126 * torch.exp(-input * input)


# `dtype=` (a cast of the input) has no rule: an error, not a gradient in another dtype.
@adjoint(torch.softmax)
@adjoint(torch.nn.functional.softmax)
@adjoint(torch.special.softmax)
def torch_softmax(y, input, dim):
    d[input] = y * (d[y] - torch.sum(d[y] * y, dim=dim, keepdim=True))


@tangent_(torch.softmax)
@tangent_(torch.nn.functional.softmax)
@tangent_(torch.special.softmax)
def torch_softmax_tangent(y, input, dim):
    d[y] = y * (d[input] - torch.sum(d[input] * y, dim=dim, keepdim=True))


@adjoint(torch.log_softmax)
@adjoint(torch.nn.functional.log_softmax)
@adjoint(torch.special.log_softmax)
def torch_log_softmax(y, input, dim):
    d[input] = d[y] - torch.exp(y) * torch.sum(d[y], dim=dim, keepdim=True)


@tangent_(torch.log_softmax)
@tangent_(torch.nn.functional.log_softmax)
@tangent_(torch.special.log_softmax)
def torch_log_softmax_tangent(y, input, dim):
    d[y] = d[input] - torch.sum(torch.exp(y) * d[input], dim=dim, keepdim=True)


# Dropout in eval form (training=False) is the identity; in training form (F.dropout's
# default) the derivative is an error naming the function (a random mask).
@adjoint(torch.nn.functional.dropout)
def torch_dropout(y, input, p=0.5, training=True, inplace=False):
    d[input] = tangent.torch_check_dropout(d[y], training)


@tangent_(torch.nn.functional.dropout)
def torch_dropout_tangent(y, input, p=0.5, training=True, inplace=False):
    d[y] = tangent.torch_check_dropout(d[input], training)


# linear(x, W, b) = x @ W.T + b.
@adjoint(torch.nn.functional.linear)
def torch_linear(y, input, weight, bias=None):
    d[input] = tangent.matmul_grad_left(d[y], input, torch.t(weight))
    d[weight] = torch.t(tangent.matmul_grad_right(d[y], input, torch.t(weight)))
    d[bias] = tangent.unbroadcast(d[y], bias)


@tangent_(torch.nn.functional.linear)
def torch_linear_tangent(y, input, weight, bias=None):
    d[y] = tangent.broadcast_like(torch.matmul(d[input], torch.t(weight))
                                  + torch.matmul(input, torch.t(d[weight])) + d[bias], y)


@adjoint(torch.nn.functional.mse_loss)
def torch_mse_loss(y, input, target, size_average=None, reduce=None, reduction="mean",
                   weight=None):
    d[input] = tangent.unbroadcast(2.0 * tangent.torch_loss_grad(d[y], input - target, reduction)
                                   * (input - target), input)
    d[target] = tangent.unbroadcast(-2.0 * tangent.torch_loss_grad(d[y], input - target, reduction)
                                    * (input - target), target)


@tangent_(torch.nn.functional.mse_loss)
def torch_mse_loss_tangent(y, input, target, size_average=None, reduce=None,
                           reduction="mean", weight=None):
    d[y] = tangent.torch_reduce_loss(2.0 * (input - target) * (d[input] - d[target]), reduction)


@adjoint(torch.nn.functional.l1_loss)
def torch_l1_loss(y, input, target, size_average=None, reduce=None, reduction="mean"):
    d[input] = tangent.unbroadcast(tangent.torch_loss_grad(d[y], input - target, reduction)
                                   * torch.sign(input - target), input)
    d[target] = tangent.unbroadcast(-tangent.torch_loss_grad(d[y], input - target, reduction)
                                    * torch.sign(input - target), target)


@tangent_(torch.nn.functional.l1_loss)
def torch_l1_loss_tangent(y, input, target, size_average=None, reduce=None, reduction="mean"):
    d[y] = tangent.torch_reduce_loss(torch.sign(input - target) * (d[input] - d[target]),
                                     reduction)


# cross_entropy(logits, target): target class indices (an integer tensor) or class
# probabilities; classes along dim 1 (dim 0 for one unbatched sample). weight,
# ignore_index and label_smoothing are refused at run time (torch_class_grad).
@adjoint(torch.nn.functional.cross_entropy)
def torch_cross_entropy(y, input, target, weight=None, size_average=None, ignore_index=-100,
                        reduce=None, reduction="mean", label_smoothing=0.0):
    d[input] = tangent.torch_class_grad(d[y], input, reduction, weight, ignore_index,
                                        label_smoothing) * (
        torch.softmax(input, tangent.torch_class_dim(input))
        - tangent.torch_targets(input, target))
    d[target] = tangent.torch_class_grad(d[y], input, reduction, weight, ignore_index,
                                         label_smoothing) * (
        -torch.log_softmax(input, tangent.torch_class_dim(input)))


@tangent_(torch.nn.functional.cross_entropy)
def torch_cross_entropy_tangent(y, input, target, weight=None, size_average=None,
                                ignore_index=-100, reduce=None, reduction="mean",
                                label_smoothing=0.0):
    d[y] = tangent.torch_reduce_loss(tangent.torch_check_loss(torch.sum(
        d[input] * (torch.softmax(input, tangent.torch_class_dim(input))
                    - tangent.torch_targets(input, target))
        - d[target] * torch.log_softmax(input, tangent.torch_class_dim(input)),
        dim=tangent.torch_class_dim(input)), weight, ignore_index, label_smoothing), reduction)


# nll_loss(log_probabilities, class indices).
@adjoint(torch.nn.functional.nll_loss)
def torch_nll_loss(y, input, target, weight=None, size_average=None, ignore_index=-100,
                   reduce=None, reduction="mean"):
    d[input] = -tangent.torch_class_grad(d[y], input, reduction, weight, ignore_index,
                                         0.0) * tangent.torch_targets(input, target)


@tangent_(torch.nn.functional.nll_loss)
def torch_nll_loss_tangent(y, input, target, weight=None, size_average=None,
                           ignore_index=-100, reduce=None, reduction="mean"):
    d[y] = tangent.torch_reduce_loss(tangent.torch_check_loss(-torch.sum(
        d[input] * tangent.torch_targets(input, target), dim=tangent.torch_class_dim(input)),
        weight, ignore_index, 0.0), reduction)


# binary_cross_entropy_with_logits(x, t) = softplus(x) - t x, elementwise.
@adjoint(torch.nn.functional.binary_cross_entropy_with_logits)
def torch_bce_with_logits(y, input, target, weight=None, size_average=None, reduce=None,
                          reduction="mean", pos_weight=None):
    d[input] = tangent.torch_check_loss(tangent.torch_loss_grad(d[y], input, reduction),
                                        weight, pos_weight, 0.0) * (torch.sigmoid(input) - target)
    d[target] = -tangent.torch_loss_grad(d[y], input, reduction) * input


@tangent_(torch.nn.functional.binary_cross_entropy_with_logits)
def torch_bce_with_logits_tangent(y, input, target, weight=None, size_average=None,
                                  reduce=None, reduction="mean", pos_weight=None):
    d[y] = tangent.torch_reduce_loss(tangent.torch_check_loss(
        d[input] * (torch.sigmoid(input) - target) - d[target] * input, weight, pos_weight,
        0.0), reduction)


# layer_norm over the trailing `normalized_shape` dims: x_hat = (x - mu) / sigma,
# y = x_hat * weight + bias.
@adjoint(torch.nn.functional.layer_norm)
def torch_layer_norm(y, input, normalized_shape, weight=None, bias=None, eps=1e-05):
    dims = tangent.torch_last_dims(input, normalized_shape)
    xc = input - torch.mean(input, dim=dims, keepdim=True)
    rstd = torch.rsqrt(torch.mean(xc * xc, dim=dims, keepdim=True) + eps)
    gh = tangent.torch_scale(d[y], weight)
    d[input] = rstd * (gh - torch.mean(gh, dim=dims, keepdim=True)
                       - xc * rstd * torch.mean(gh * xc * rstd, dim=dims, keepdim=True))
    d[weight] = tangent.unbroadcast(d[y] * xc * rstd, weight)
    d[bias] = tangent.unbroadcast(d[y], bias)


@tangent_(torch.nn.functional.layer_norm)
def torch_layer_norm_tangent(y, input, normalized_shape, weight=None, bias=None, eps=1e-05):
    dims = tangent.torch_last_dims(input, normalized_shape)
    xc = input - torch.mean(input, dim=dims, keepdim=True)
    rstd = torch.rsqrt(torch.mean(xc * xc, dim=dims, keepdim=True) + eps)
    tc = d[input] - torch.mean(d[input], dim=dims, keepdim=True)
    d[y] = tangent.broadcast_like(
        tangent.torch_scale(rstd * (tc - xc * rstd * torch.mean(tc * xc * rstd, dim=dims,
                                                                 keepdim=True)), weight)
        + d[weight] * xc * rstd + d[bias], y)


@adjoint(torch.nn.functional.conv2d)
def torch_conv2d(y, input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    d[input] = tangent.torch_conv2d_input_grad(d[y], weight, input, stride, padding, dilation,
                                               groups)
    d[weight] = tangent.torch_conv2d_weight_grad(d[y], input, weight, stride, padding,
                                                 dilation, groups)
    d[bias] = tangent.torch_conv2d_bias_grad(d[y])


@tangent_(torch.nn.functional.conv2d)
def torch_conv2d_tangent(y, input, weight, bias=None, stride=1, padding=0, dilation=1,
                         groups=1):
    d[y] = (tangent.torch_conv2d_by_input(d[input], weight, stride, padding, dilation, groups)
            + tangent.torch_conv2d_by_weight(d[weight], input, stride, padding, dilation,
                                             groups)
            + tangent.torch_conv2d_bias(d[bias], y))


@adjoint(torch.nn.functional.max_pool2d)
def torch_max_pool2d(y, input, kernel_size, stride=None, padding=0, dilation=1,
                     ceil_mode=False, return_indices=False):
    d[input] = tangent.torch_max_pool2d_grad(d[y], input, kernel_size, stride, padding,
                                             dilation, ceil_mode, return_indices)


@tangent_(torch.nn.functional.max_pool2d)
def torch_max_pool2d_tangent(y, input, kernel_size, stride=None, padding=0, dilation=1,
                             ceil_mode=False, return_indices=False):
    d[y] = tangent.torch_max_pool2d_tangent(d[input], input, kernel_size, stride, padding,
                                            dilation, ceil_mode, return_indices)


@adjoint(torch.nn.functional.avg_pool2d)
def torch_avg_pool2d(y, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                     count_include_pad=True, divisor_override=None):
    d[input] = tangent.torch_avg_pool2d_grad(d[y], input, kernel_size, stride, padding,
                                             ceil_mode, count_include_pad, divisor_override)


@tangent_(torch.nn.functional.avg_pool2d)
def torch_avg_pool2d_tangent(y, input, kernel_size, stride=None, padding=0, ceil_mode=False,
                             count_include_pad=True, divisor_override=None):
    d[y] = torch.nn.functional.avg_pool2d(d[input], kernel_size, stride, padding, ceil_mode,
                                          count_include_pad, divisor_override)


# --------------------------------------------------------------- torch.linalg


@adjoint(torch.linalg.inv)
@adjoint(torch.inverse)
def torch_linalg_inv(y, A):
    d[A] = -torch.matmul(torch.transpose(y, -1, -2), torch.matmul(d[y], torch.transpose(y, -1, -2)))


@tangent_(torch.linalg.inv)
@tangent_(torch.inverse)
def torch_linalg_inv_tangent(y, A):
    d[y] = -torch.matmul(y, torch.matmul(d[A], y))


@adjoint(torch.linalg.det)
@adjoint(torch.det)
def torch_linalg_det(y, A):
    d[A] = torch.unsqueeze(torch.unsqueeze(d[y] * y, -1), -1) * torch.transpose(
        torch.linalg.inv(A), -1, -2)


@tangent_(torch.linalg.det)
@tangent_(torch.det)
def torch_linalg_det_tangent(y, A):
    d[y] = y * torch.sum(torch.transpose(torch.linalg.inv(A), -1, -2) * d[A], dim=(-2, -1))


# X = solve(A, B): B a matrix (stack) or a vector (stack) as torch reads it.
@adjoint(torch.linalg.solve)
def torch_linalg_solve(y, A, B, left=True):
    d[B] = tangent.torch_uncol(torch.linalg.solve(torch.transpose(A, -1, -2),
                                                  tangent.torch_col(d[y], A, B)), A, B)
    d[A] = -tangent.unbroadcast(torch.matmul(
        torch.linalg.solve(torch.transpose(A, -1, -2), tangent.torch_col(d[y], A, B)),
        torch.transpose(tangent.torch_col(y, A, B), -1, -2)), A)


@tangent_(torch.linalg.solve)
def torch_linalg_solve_tangent(y, A, B, left=True):
    d[y] = tangent.torch_uncol(torch.linalg.solve(A, tangent.torch_col(d[B], A, B)
                                                  - torch.matmul(d[A], tangent.torch_col(y, A, B))),
                               A, B)


# linalg.norm: ord=None is the 2-norm of the flattened input (or over `dim`); vector
# ords over one dim and 'fro' have the helper's rule; matrix ords (2, 'nuc', ...) are
# refused by it.
@adjoint(torch.linalg.norm)
def torch_linalg_norm(y, A, ord=None, dim=None, keepdim=False):
    if ord is None:
        d[A] = tangent.unreduce(d[y], A, dim, keepdim) * A / tangent.unreduce(y, A, dim, keepdim)
    else:
        d[A] = tangent.torch_norm_grad(d[y], y, A, ord, dim, keepdim, "norm")


@tangent_(torch.linalg.norm)
def torch_linalg_norm_tangent(y, A, ord=None, dim=None, keepdim=False):
    if ord is None:
        d[y] = tangent.torch_sum(d[A] * A, dim, keepdim) / y
    else:
        d[y] = tangent.torch_norm_tangent(d[A], y, A, ord, dim, keepdim, "norm")


@adjoint(torch.linalg.vector_norm)
def torch_linalg_vector_norm(y, x, ord=2, dim=None, keepdim=False):
    d[x] = tangent.torch_norm_grad(d[y], y, x, ord, dim, keepdim, "vector_norm")


@tangent_(torch.linalg.vector_norm)
def torch_linalg_vector_norm_tangent(y, x, ord=2, dim=None, keepdim=False):
    d[y] = tangent.torch_norm_tangent(d[x], y, x, ord, dim, keepdim, "vector_norm")


# ------------------------------------------------------------- Tensor methods
# Keyed under the array class (`numpy.ndarray.<name>`, as every method of a value whose
# type the text does not tell); `numpy` in these templates is the arguments' namespace
# at run time. numpy.py's method rules (sum, mean, reshape, T, ...) take torch's
# keywords too where the names differ (`dim`, `keepdim`).


@adjoint(numpy.ndarray.exp)
def tensor_exp(y, self):
    d[self] = d[y] * y


@tangent_(numpy.ndarray.exp)
def tensor_exp_tangent(y, self):
    d[y] = d[self] * y


@adjoint(numpy.ndarray.log)
def tensor_log(y, self):
    d[self] = d[y] / self


@tangent_(numpy.ndarray.log)
def tensor_log_tangent(y, self):
    d[y] = d[self] / self


@adjoint(numpy.ndarray.tanh)
def tensor_tanh(y, self):
    d[self] = d[y] * (1.0 - y * y)


@tangent_(numpy.ndarray.tanh)
def tensor_tanh_tangent(y, self):
    d[y] = d[self] * (1.0 - y * y)


@adjoint(numpy.ndarray.sigmoid)
def tensor_sigmoid(y, self):
    d[self] = d[y] * y * (1.0 - y)


@tangent_(numpy.ndarray.sigmoid)
def tensor_sigmoid_tangent(y, self):
    d[y] = d[self] * y * (1.0 - y)


@adjoint(numpy.ndarray.relu)
def tensor_relu(y, self):
    d[self] = d[y] * (self > 0.0)


@tangent_(numpy.ndarray.relu)
def tensor_relu_tangent(y, self):
    d[y] = d[self] * (self > 0.0)


@adjoint(numpy.ndarray.sqrt)
def tensor_sqrt(y, self):
    d[self] = d[y] / (2.0 * y)


@tangent_(numpy.ndarray.sqrt)
def tensor_sqrt_tangent(y, self):
    d[y] = d[self] / (2.0 * y)


@adjoint(numpy.ndarray.sin)
def tensor_sin(y, self):
    d[self] = d[y] * numpy.cos(self)


@tangent_(numpy.ndarray.sin)
def tensor_sin_tangent(y, self):
    d[y] = d[self] * numpy.cos(self)


@adjoint(numpy.ndarray.cos)
def tensor_cos(y, self):
    d[self] = -d[y] * numpy.sin(self)


@tangent_(numpy.ndarray.cos)
def tensor_cos_tangent(y, self):
    d[y] = -d[self] * numpy.sin(self)


@adjoint(numpy.ndarray.abs)
def tensor_abs(y, self):
    d[self] = d[y] * tangent.sign(self)


@tangent_(numpy.ndarray.abs)
def tensor_abs_tangent(y, self):
    d[y] = d[self] * tangent.sign(self)


@adjoint(numpy.ndarray.pow)
def tensor_pow(z, self, exponent):
    d[self] = tangent.unbroadcast(d[z] * exponent * self ** (exponent - 1), self)
    d[exponent] = tangent.unbroadcast(d[z] * z * tangent.log(self), exponent)


@tangent_(numpy.ndarray.pow)
def tensor_pow_tangent(z, self, exponent):
    d[z] = tangent.broadcast_like(d[self] * exponent * self ** (exponent - 1)
                                  + d[exponent] * z * tangent.log(self), z)


@adjoint(numpy.ndarray.clamp)
def tensor_clamp(y, self, min=None, max=None):
    d[self] = tangent.unbroadcast(d[y] * tangent.torch_clamp_mask(self, min, max, 0), self)
    d[min] = tangent.unbroadcast(d[y] * tangent.torch_clamp_mask(self, min, max, 1), min)
    d[max] = tangent.unbroadcast(d[y] * tangent.torch_clamp_mask(self, min, max, 2), max)


@tangent_(numpy.ndarray.clamp)
def tensor_clamp_tangent(y, self, min=None, max=None):
    d[y] = tangent.broadcast_like(
        d[self] * tangent.torch_clamp_mask(self, min, max, 0)
        + d[min] * tangent.torch_clamp_mask(self, min, max, 1)
        + d[max] * tangent.torch_clamp_mask(self, min, max, 2), y)


@adjoint(numpy.ndarray.matmul)
@adjoint(numpy.ndarray.mm)
def tensor_matmul(z, self, other):
    d[self] = tangent.matmul_grad_left(d[z], self, other)
    d[other] = tangent.matmul_grad_right(d[z], self, other)


@tangent_(numpy.ndarray.matmul)
@tangent_(numpy.ndarray.mm)
def tensor_matmul_tangent(z, self, other):
    d[z] = numpy.matmul(d[self], other) + numpy.matmul(self, d[other])


@adjoint(numpy.ndarray.t)
def tensor_t(y, self):
    d[self] = numpy.transpose(d[y])


@tangent_(numpy.ndarray.t)
def tensor_t_tangent(y, self):
    d[y] = numpy.transpose(d[self])


@adjoint(numpy.ndarray.permute)
def tensor_permute(y, self, *dims):
    d[self] = tangent.permute_method_grad(d[y], dims)


@tangent_(numpy.ndarray.permute)
def tensor_permute_tangent(y, self, *dims):
    d[y] = tangent.permute_method_tangent(d[self], dims)


@adjoint(numpy.ndarray.view)
def tensor_view(y, self, *shape):
    d[self] = numpy.reshape(d[y], numpy.shape(self))


@tangent_(numpy.ndarray.view)
def tensor_view_tangent(y, self, *shape):
    d[y] = numpy.reshape(d[self], numpy.shape(y))


@adjoint(numpy.ndarray.unsqueeze)
def tensor_unsqueeze(y, self, dim):
    d[self] = numpy.reshape(d[y], numpy.shape(self))


@tangent_(numpy.ndarray.unsqueeze)
def tensor_unsqueeze_tangent(y, self, dim):
    d[y] = numpy.reshape(d[self], numpy.shape(y))


@adjoint(numpy.ndarray.expand)
def tensor_expand(y, self, *sizes):
    d[self] = tangent.unbroadcast(d[y], self)


@tangent_(numpy.ndarray.expand)
def tensor_expand_tangent(y, self, *sizes):
    d[y] = tangent.broadcast_like(d[self], y)


# torch's `x.softmax(dim)`, tinygrad's `x.softmax(axis=-1)`.
@adjoint(numpy.ndarray.softmax)
def tensor_softmax(y, self, dim=-1, dtype=None, axis=None):
    if axis is None:
        d[self] = y * (d[y] - numpy.sum(d[y] * y, axis=dim, keepdims=True))
    else:
        d[self] = y * (d[y] - numpy.sum(d[y] * y, axis=axis, keepdims=True))


@tangent_(numpy.ndarray.softmax)
def tensor_softmax_tangent(y, self, dim=-1, dtype=None, axis=None):
    if axis is None:
        d[y] = y * (d[self] - numpy.sum(d[self] * y, axis=dim, keepdims=True))
    else:
        d[y] = y * (d[self] - numpy.sum(d[self] * y, axis=axis, keepdims=True))


@adjoint(numpy.ndarray.log_softmax)
def tensor_log_softmax(y, self, dim=-1, dtype=None, axis=None):
    if axis is None:
        d[self] = d[y] - numpy.exp(y) * numpy.sum(d[y], axis=dim, keepdims=True)
    else:
        d[self] = d[y] - numpy.exp(y) * numpy.sum(d[y], axis=axis, keepdims=True)


@tangent_(numpy.ndarray.log_softmax)
def tensor_log_softmax_tangent(y, self, dim=-1, dtype=None, axis=None):
    if axis is None:
        d[y] = d[self] - numpy.sum(numpy.exp(y) * d[self], axis=dim, keepdims=True)
    else:
        d[y] = d[self] - numpy.sum(numpy.exp(y) * d[self], axis=axis, keepdims=True)


@adjoint(numpy.ndarray.square)
def tensor_square(y, self):
    d[self] = d[y] * 2.0 * self


@tangent_(numpy.ndarray.square)
def tensor_square_tangent(y, self):
    d[y] = d[self] * 2.0 * self


@adjoint(numpy.ndarray.neg)
def tensor_neg(y, self):
    d[self] = -d[y]


@tangent_(numpy.ndarray.neg)
def tensor_neg_tangent(y, self):
    d[y] = -d[self]


@adjoint(numpy.ndarray.add)
def tensor_add(z, self, other, alpha=1):
    d[self] = tangent.unbroadcast(d[z], self)
    d[other] = tangent.unbroadcast(d[z] * alpha, other)


@tangent_(numpy.ndarray.add)
def tensor_add_tangent(z, self, other, alpha=1):
    d[z] = tangent.broadcast_like(d[self] + d[other] * alpha, z)


@adjoint(numpy.ndarray.sub)
def tensor_sub(z, self, other, alpha=1):
    d[self] = tangent.unbroadcast(d[z], self)
    d[other] = tangent.unbroadcast(-d[z] * alpha, other)


@tangent_(numpy.ndarray.sub)
def tensor_sub_tangent(z, self, other, alpha=1):
    d[z] = tangent.broadcast_like(d[self] - d[other] * alpha, z)


@adjoint(numpy.ndarray.mul)
def tensor_mul(z, self, other):
    d[self] = tangent.unbroadcast(d[z] * other, self)
    d[other] = tangent.unbroadcast(d[z] * self, other)


@tangent_(numpy.ndarray.mul)
def tensor_mul_tangent(z, self, other):
    d[z] = tangent.broadcast_like(d[self] * other + self * d[other], z)


@adjoint(numpy.ndarray.div)
def tensor_div(z, self, other):
    d[self] = tangent.unbroadcast(d[z] / other, self)
    d[other] = tangent.unbroadcast(-d[z] * z / other, other)


@tangent_(numpy.ndarray.div)
def tensor_div_tangent(z, self, other):
    d[z] = tangent.broadcast_like(d[self] / other - d[other] * z / other, z)


# A cast to float64: the gradient goes back in the input's dtype.
@adjoint(numpy.ndarray.double)
def tensor_cast(y, self):
    d[self] = tangent.torch_cast_like(d[y], self)


@tangent_(numpy.ndarray.double)
def tensor_cast_tangent(y, self):
    d[y] = tangent.torch_cast_like(d[self], y)


# ------------------------------------------- rules of the helpers above (second order)


@tangent_(tangent.torch_sum)
def torch_sum_helper_tangent(y, t, dim=None, keepdim=False):
    d[y] = tangent.torch_sum(d[t], dim, keepdim)


@tangent_(tangent.torch_mean)
def torch_mean_helper_tangent(y, t, dim=None, keepdim=False):
    d[y] = tangent.torch_mean(d[t], dim, keepdim)


@tangent_(tangent.torch_cumsum_grad)
def torch_cumsum_grad_tangent(y, g, dim):
    d[y] = tangent.torch_cumsum_grad(d[g], dim)


@tangent_(tangent.torch_permute_grad)
def torch_permute_grad_tangent(y, g, dims):
    d[y] = tangent.torch_permute_grad(d[g], dims)


@tangent_(tangent.torch_permute)
def torch_permute_helper_tangent(y, t, dims):
    d[y] = tangent.torch_permute(d[t], dims)


@tangent_(tangent.torch_cat_grad)
def torch_cat_grad_tangent(y, g, tensors, dim=0):
    d[y] = tangent.torch_cat_grad(d[g], tensors, dim)
    d[tensors] = 0.0


@tangent_(tangent.torch_stack_grad)
def torch_stack_grad_tangent(y, g, tensors, dim=0):
    d[y] = tangent.torch_stack_grad(d[g], tensors, dim)
    d[tensors] = 0.0


@tangent_(tangent.torch_loss_grad)
def torch_loss_grad_tangent(y, g, like, reduction):
    d[y] = tangent.torch_loss_grad(d[g], like, reduction)
    d[like] = 0.0


@tangent_(tangent.torch_reduce_loss)
def torch_reduce_loss_tangent(y, v, reduction):
    d[y] = tangent.torch_reduce_loss(d[v], reduction)


@tangent_(tangent.torch_check_loss)
def torch_check_loss_tangent(y, v, a, b, c):
    d[y] = d[v]


@tangent_(tangent.torch_class_grad)
def torch_class_grad_tangent(y, g, input, reduction, weight, ignore_index, label_smoothing):
    d[y] = tangent.torch_class_grad(d[g], input, reduction, weight, ignore_index,
                                    label_smoothing)
    d[input] = 0.0


@tangent_(tangent.torch_scale)
def torch_scale_tangent(y, g, weight=None):
    d[y] = tangent.torch_scale(d[g], weight) + tangent.torch_scale(d[weight], g)


@tangent_(tangent.torch_check_dropout)
def torch_check_dropout_tangent(y, g, training):
    d[y] = tangent.torch_check_dropout(d[g], training)


@tangent_(tangent.torch_gelu_slope)
def torch_gelu_slope_tangent(y, x, approximate="none"):
    d[y] = d[x] * tangent.torch_gelu_curvature(x, approximate)


@tangent_(tangent.torch_conv2d_input_grad)
def torch_conv2d_input_grad_tangent(y, g, weight, input, stride=1, padding=0, dilation=1,
                                    groups=1):
    d[y] = (tangent.torch_conv2d_input_grad(d[g], weight, input, stride, padding, dilation,
                                            groups)
            + tangent.torch_conv2d_input_grad_w(d[weight], g, input, stride, padding,
                                                dilation, groups))
    d[input] = 0.0


@tangent_(tangent.torch_conv2d_weight_grad)
def torch_conv2d_weight_grad_tangent(y, g, input, weight, stride=1, padding=0, dilation=1,
                                     groups=1):
    d[y] = (tangent.torch_conv2d_weight_grad(d[g], input, weight, stride, padding, dilation,
                                             groups)
            + tangent.torch_conv2d_weight_grad_x(d[input], g, weight, stride, padding,
                                                 dilation, groups))


@tangent_(tangent.torch_conv2d_bias_grad)
def torch_conv2d_bias_grad_tangent(y, g):
    d[y] = tangent.torch_conv2d_bias_grad(d[g])


@tangent_(tangent.torch_max_pool2d_grad)
def torch_max_pool2d_grad_tangent(y, g, input, kernel_size, stride=None, padding=0,
                                  dilation=1, ceil_mode=False, return_indices=False):
    d[y] = tangent.torch_max_pool2d_grad(d[g], input, kernel_size, stride, padding, dilation,
                                         ceil_mode, return_indices)
    d[input] = 0.0


@tangent_(tangent.torch_avg_pool2d_grad)
def torch_avg_pool2d_grad_tangent(y, g, input, kernel_size, stride=None, padding=0,
                                  ceil_mode=False, count_include_pad=True,
                                  divisor_override=None):
    d[y] = tangent.torch_avg_pool2d_grad(d[g], input, kernel_size, stride, padding, ceil_mode,
                                         count_include_pad, divisor_override)
    d[input] = 0.0


@tangent_(tangent.torch_cast_like)
def torch_cast_like_tangent(y, g, like):
    d[y] = tangent.torch_cast_like(d[g], like)
    d[like] = 0.0


@tangent_(tangent.torch_col)
def torch_col_tangent(y, v, A, B):
    d[y] = tangent.torch_col(d[v], A, B)
    d[A] = 0.0  # A and B say whether v is a vector
    d[B] = 0.0


@tangent_(tangent.torch_uncol)
def torch_uncol_tangent(y, m, A, B):
    d[y] = tangent.torch_uncol(d[m], A, B)


@tangent_(tangent.torch_norm_grad)
def torch_norm_grad_tangent(y, g, n, x, ord, dim, keepdim, name):
    d[y] = tangent.torch_norm_grad_jvp(d[g], d[n], d[x], g, n, x, ord, dim, keepdim, name)


# The entry check of a derivative in a program using torch (every tensor argument on one
# device): it only reads its arguments and has no derivative.
nondifferentiable(tangent.torch_check_devices)
reads_only(tangent.torch_check_devices)
native_scalar(tangent.torch_check_devices, kind="check")


# ------------------------------------------------------------- torch.nn modules
# A call of a torch.nn module the program holds (`model(x)`, `self.fc1(h)` in a module's
# own `forward`) is the computation of its `@control_flow` template (src/ad/control_flow.rs),
# `self` read as the module at run time: its parameters are constants, or read from the
# dict of `torch.func.functional_call(model, params, args)` (`params.get(key, own)`).
# Modes that have no derivative (BatchNorm in training, Dropout in training, ...) are
# located errors when the derivative runs, so `model.train()` after a first derivative
# never reuses the eval-mode one. A module of another class is a located error.
functional_call(torch.func.functional_call, torch.nn.utils.stateless.functional_call)
module_sequence(torch.nn.Sequential)
nondifferentiable(tangent.torch_module_check, tangent.torch_channel_shape)
linear_in_first(tangent.torch_embedding_grad, tangent.torch_embedding_tangent)
reads_only(tangent.torch_module_check)


@control_flow(torch.nn.Linear)
def linear_module(self, input):
    return torch.nn.functional.linear(input, self.weight, self.bias)


@control_flow(torch.nn.Identity)
def identity_module(self, input):
    return input


@control_flow(torch.nn.Flatten)
def flatten_module(self, input):
    return torch.flatten(input, self.start_dim, self.end_dim)


@control_flow(torch.nn.ReLU)
def relu_module(self, input):
    return torch.nn.functional.relu(input)


@control_flow(torch.nn.ReLU6)
def relu6_module(self, input):
    return torch.nn.functional.relu6(input)


@control_flow(torch.nn.Hardtanh)
def hardtanh_module(self, input):
    return torch.nn.functional.hardtanh(input, self.min_val, self.max_val)


@control_flow(torch.nn.LeakyReLU)
def leaky_relu_module(self, input):
    return torch.nn.functional.leaky_relu(input, self.negative_slope)


@control_flow(torch.nn.ELU)
def elu_module(self, input):
    return torch.nn.functional.elu(input, self.alpha)


@control_flow(torch.nn.CELU)
def celu_module(self, input):
    return torch.nn.functional.celu(input, self.alpha)


@control_flow(torch.nn.SELU)
def selu_module(self, input):
    return torch.nn.functional.selu(input)


@control_flow(torch.nn.GELU)
def gelu_module(self, input):
    return torch.nn.functional.gelu(input, approximate=self.approximate)


@control_flow(torch.nn.SiLU)
def silu_module(self, input):
    return torch.nn.functional.silu(input)


@control_flow(torch.nn.Softplus)
def softplus_module(self, input):
    return torch.nn.functional.softplus(input, self.beta, self.threshold)


@control_flow(torch.nn.LogSigmoid)
def logsigmoid_module(self, input):
    return torch.nn.functional.logsigmoid(input)


@control_flow(torch.nn.Softsign)
def softsign_module(self, input):
    return torch.nn.functional.softsign(input)


@control_flow(torch.nn.Sigmoid)
def sigmoid_module(self, input):
    return torch.sigmoid(input)


@control_flow(torch.nn.Tanh)
def tanh_module(self, input):
    return torch.tanh(input)


@control_flow(torch.nn.Softmax)
def softmax_module(self, input):
    return torch.nn.functional.softmax(input, dim=tangent.torch_module_check(self, "dim"))


@control_flow(torch.nn.LogSoftmax)
def log_softmax_module(self, input):
    return torch.nn.functional.log_softmax(input, dim=tangent.torch_module_check(self, "dim"))


@control_flow(torch.nn.Dropout, torch.nn.Dropout1d, torch.nn.Dropout2d)
def dropout_module(self, input):
    return torch.nn.functional.dropout(input, self.p, self.training)


@control_flow(torch.nn.LayerNorm)
def layer_norm_module(self, input):
    return torch.nn.functional.layer_norm(input, self.normalized_shape, self.weight,
                                          self.bias, self.eps)


@control_flow(torch.nn.Conv2d)
def conv2d_module(self, input):
    tangent.torch_module_check(self, "conv2d")
    return torch.nn.functional.conv2d(input, self.weight, self.bias, self.stride,
                                      self.padding, self.dilation, self.groups)


# BatchNorm in eval mode: the running statistics normalise each channel (dim 1).
@control_flow(torch.nn.BatchNorm1d, torch.nn.BatchNorm2d, torch.nn.BatchNorm3d)
def batch_norm_module(self, input):
    tangent.torch_module_check(self, "batch_norm")
    shape = tangent.torch_channel_shape(input)
    scale = torch.reshape(self.weight, shape) * torch.rsqrt(
        torch.reshape(self.running_var, shape) + self.eps)
    return (input - torch.reshape(self.running_mean, shape)) * scale + torch.reshape(
        self.bias, shape)


@control_flow(torch.nn.Embedding)
def embedding_module(self, input):
    tangent.torch_module_check(self, "embedding")
    return torch.nn.functional.embedding(input, self.weight, self.padding_idx)


# embedding(ids, W)[..., :] = W[ids]: the gradient of W gathers the rows' gradients.
@adjoint(torch.nn.functional.embedding)
def torch_embedding(y, input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
                    scale_grad_by_freq=False, sparse=False):
    d[weight] = tangent.torch_embedding_grad(d[y], input, weight, padding_idx, max_norm,
                                             scale_grad_by_freq)


@tangent_(torch.nn.functional.embedding)
def torch_embedding_tangent(y, input, weight, padding_idx=None, max_norm=None,
                            norm_type=2.0, scale_grad_by_freq=False, sparse=False):
    d[y] = tangent.torch_embedding_tangent(d[weight], input, y, padding_idx, max_norm)


# The embedding helpers are linear in their first argument and each other's transpose.
@adjoint(tangent.torch_embedding_grad)
def torch_embedding_grad_adjoint(z, g, input, weight, padding_idx, max_norm,
                                 scale_grad_by_freq):
    d[g] = tangent.torch_embedding_tangent(d[z], input, g, padding_idx, max_norm)
    d[weight] = 0.0


@tangent_(tangent.torch_embedding_grad)
def torch_embedding_grad_tangent(z, g, input, weight, padding_idx, max_norm,
                                 scale_grad_by_freq):
    d[z] = tangent.torch_embedding_grad(d[g], input, weight, padding_idx, max_norm,
                                        scale_grad_by_freq)


@adjoint(tangent.torch_embedding_tangent)
def torch_embedding_tangent_adjoint(z, t, input, y, padding_idx, max_norm):
    d[t] = tangent.torch_embedding_grad(d[z], input, t, padding_idx, max_norm, False)


@tangent_(tangent.torch_embedding_tangent)
def torch_embedding_tangent_tangent(z, t, input, y, padding_idx, max_norm):
    d[z] = tangent.torch_embedding_tangent(d[t], input, y, padding_idx, max_norm)

