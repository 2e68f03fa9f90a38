# Derivative rules for tinygrad: its Tensor methods (`x.relu()`, `x.conv2d(w)`,
# `x.pad(...)`, `x.sparse_categorical_crossentropy(y)`) and the functions reached through
# the class (`Tensor.stack(a, b)`, `Tensor.cat(a, b, dim=1)`). Template conventions as
# in python.py.
#
# A method of a value whose type the text does not tell is keyed under the array class
# (`numpy.ndarray.<name>`), whatever library the value comes from; `numpy` in these
# templates is the value's namespace at run time (for tinygrad tensors
# tangent._tinygrad.TinyNumpy: NumPy's names and parameters over Tensor methods). The
# methods tinygrad shares with NumPy and torch (sum, mean, max, reshape, transpose, T,
# exp, tanh, ...) have their rules in numpy.py and torch.py, which take tinygrad's
# keywords (`axis`, `keepdim`) and ask the value's library where it means something
# else (`x.T` swaps the first two axes in tinygrad; `x.repeat` tiles; `x.cumsum()` scans
# axis 0; `x.var()` is unbiased). The elementwise methods tinygrad shares with torch
# (tan, asin, sinh, exp2, rsqrt, ...) come from elementwise.py (`numpy_="ndarray.tan"`).
#
# Rule bodies build tinygrad tensors lazily: no body realises a value or converts it to
# NumPy, so the gradient is one tinygrad graph. Helpers only these rules use are
# `tangent.tinygrad_*` (stdlib-shims/tangent/_tinygrad.py); where a rule is a linear map
# tinygrad already transposes exactly (the gradient of a convolution, a pool, `pad` with
# a reflecting mode), the helper takes that transpose from tinygrad's derivative of the
# op alone, on detached inputs. Adjoint bodies use functions with rules (or helpers with
# rules at the end), so a gradient can be differentiated again.

nondifferentiable(
    numpy.ndarray.sign, numpy.ndarray.trunc, numpy.ndarray.floor, numpy.ndarray.ceil,
    numpy.ndarray.zeros_like, numpy.ndarray.ones_like, numpy.ndarray.eq, numpy.ndarray.ne,
    numpy.ndarray.one_hot, tangent.tinygrad_condition, tangent.tinygrad_sparse_target,
    tangent.tinygrad_binary_target,
)

linear_in_first(
    numpy.ndarray.pad, numpy.ndarray.shrink, numpy.ndarray.flip, numpy.ndarray.unflatten,
    numpy.ndarray.contiguous, numpy.ndarray.repeat_interleave,
    numpy.ndarray.avg_pool2d, tangent.tinygrad_loss_weight, tangent.tinygrad_loss_reduce,
    tangent.tinygrad_pad_grad, tangent.tinygrad_conv2d_grad, tangent.tinygrad_pool_grad,
    tangent.tinygrad_pool_tangent, tangent.tinygrad_channel, tangent.tinygrad_unchannel,
    tangent.tinygrad_cat_grad, tangent.tinygrad_gather_grad, tangent.tinygrad_linear_grad,
)

returns_view(
    numpy.ndarray.shrink, numpy.ndarray.flip, numpy.ndarray.unflatten,
    numpy.ndarray.contiguous,
)

# ------------------------------------------------------------------ activations


@adjoint(numpy.ndarray.relu6)
def tensor_relu6(y, self):
    d[self] = d[y] * ((self > 0.0) * (self < 6.0))


@tangent_(numpy.ndarray.relu6)
def tensor_relu6_tangent(y, self):
    d[y] = d[self] * ((self > 0.0) * (self < 6.0))


@adjoint(numpy.ndarray.leaky_relu)
def tensor_leaky_relu(y, self, neg_slope=0.01):
    d[self] = numpy.where(self < 0.0, d[y] * neg_slope, d[y])


@tangent_(numpy.ndarray.leaky_relu)
def tensor_leaky_relu_tangent(y, self, neg_slope=0.01):
    d[y] = numpy.where(self < 0.0, d[self] * neg_slope, d[self])


@adjoint(numpy.ndarray.elu)
def tensor_elu(y, self, alpha=1.0):
    d[self] = numpy.where(self > 0.0, d[y], d[y] * (y + alpha))


@tangent_(numpy.ndarray.elu)
def tensor_elu_tangent(y, self, alpha=1.0):
    d[y] = numpy.where(self > 0.0, d[self], d[self] * (y + alpha))


@adjoint(numpy.ndarray.celu)
def tensor_celu(y, self, alpha=1.0):
    d[self] = numpy.where(self > 0.0, d[y], d[y] * numpy.exp(self / alpha))


@tangent_(numpy.ndarray.celu)
def tensor_celu_tangent(y, self, alpha=1.0):
    d[y] = numpy.where(self > 0.0, d[self], d[self] * numpy.exp(self / alpha))


# tinygrad's own constants (alpha=1.67326, gamma=1.0507), not torch's longer ones.
@adjoint(numpy.ndarray.selu)
def tensor_selu(y, self, alpha=1.67326, gamma=1.0507):
    d[self] = numpy.where(self >= 0.0, d[y] * gamma, d[y] * (y + alpha * gamma))


@tangent_(numpy.ndarray.selu)
def tensor_selu_tangent(y, self, alpha=1.67326, gamma=1.0507):
    d[y] = numpy.where(self >= 0.0, d[self] * gamma, d[self] * (y + alpha * gamma))


@adjoint(numpy.ndarray.swish)
@adjoint(numpy.ndarray.silu)
def tensor_swish(y, self):
    d[self] = d[y] * (self.sigmoid() * (1.0 + self - y))


@tangent_(numpy.ndarray.swish)
@tangent_(numpy.ndarray.silu)
def tensor_swish_tangent(y, self):
    d[y] = d[self] * (self.sigmoid() * (1.0 + self - y))


@adjoint(numpy.ndarray.quick_gelu)
def tensor_quick_gelu(y, self):
    d[self] = d[y] * ((self * 1.702).sigmoid() * (1.0 + 1.702 * (self - y)))


@tangent_(numpy.ndarray.quick_gelu)
def tensor_quick_gelu_tangent(y, self):
    d[y] = d[self] * ((self * 1.702).sigmoid() * (1.0 + 1.702 * (self - y)))


# gelu's default in tinygrad is the tanh approximation; approximate="none" is
# x * Phi(x) with tinygrad's polynomial erf (tinygrad refuses any other value).
@adjoint(numpy.ndarray.gelu)
def tensor_gelu(y, self, approximate="tanh"):
    if approximate == "tanh":
        d[self] = d[y] * tangent.tinygrad_gelu_tanh_slope(self)
    else:
        d[self] = d[y] * ((self * 0.7071067811865476).erf() * 0.5 + 0.5
                          + self * (self * self * -0.5).exp() * 0.3989422804014327)


@tangent_(numpy.ndarray.gelu)
def tensor_gelu_tangent(y, self, approximate="tanh"):
    if approximate == "tanh":
        d[y] = d[self] * tangent.tinygrad_gelu_tanh_slope(self)
    else:
        d[y] = d[self] * ((self * 0.7071067811865476).erf() * 0.5 + 0.5
                          + self * (self * self * -0.5).exp() * 0.3989422804014327)


@adjoint(numpy.ndarray.mish)
def tensor_mish(y, self):
    d[self] = d[y] * tangent.tinygrad_mish_slope(self)


@tangent_(numpy.ndarray.mish)
def tensor_mish_tangent(y, self):
    d[y] = d[self] * tangent.tinygrad_mish_slope(self)


@adjoint(numpy.ndarray.softplus)
def tensor_softplus(y, self, beta=1.0):
    d[self] = d[y] * (self * beta).sigmoid()


@tangent_(numpy.ndarray.softplus)
def tensor_softplus_tangent(y, self, beta=1.0):
    d[y] = d[self] * (self * beta).sigmoid()


@adjoint(numpy.ndarray.logsigmoid)
def tensor_logsigmoid(y, self):
    d[self] = d[y] * (-self).sigmoid()


@tangent_(numpy.ndarray.logsigmoid)
def tensor_logsigmoid_tangent(y, self):
    d[y] = d[self] * (-self).sigmoid()


@adjoint(numpy.ndarray.softsign)
def tensor_softsign(y, self):
    d[self] = d[y] / ((1.0 + self.abs()) * (1.0 + self.abs()))


@tangent_(numpy.ndarray.softsign)
def tensor_softsign_tangent(y, self):
    d[y] = d[self] / ((1.0 + self.abs()) * (1.0 + self.abs()))


@adjoint(numpy.ndarray.hardtanh)
def tensor_hardtanh(y, self, min_val=-1, max_val=1):
    d[self] = d[y] * ((self > min_val) * (self < max_val))


@tangent_(numpy.ndarray.hardtanh)
def tensor_hardtanh_tangent(y, self, min_val=-1, max_val=1):
    d[y] = d[self] * ((self > min_val) * (self < max_val))


@adjoint(numpy.ndarray.hardsigmoid)
def tensor_hardsigmoid(y, self, alpha=0.16666666666666666, beta=0.5):
    d[self] = d[y] * alpha * ((self * alpha + beta > 0.0) * (self * alpha + beta < 1.0))


@tangent_(numpy.ndarray.hardsigmoid)
def tensor_hardsigmoid_tangent(y, self, alpha=0.16666666666666666, beta=0.5):
    d[y] = d[self] * alpha * ((self * alpha + beta > 0.0) * (self * alpha + beta < 1.0))


# x * relu6(x + 3) / 6: slope relu6(x + 3) / 6 + x / 6 inside (-3, 3).
@adjoint(numpy.ndarray.hardswish)
def tensor_hardswish(y, self):
    d[self] = d[y] * ((self + 3.0).relu6() * 0.16666666666666666
                      + self * 0.16666666666666666 * ((self > -3.0) * (self < 3.0)))


@tangent_(numpy.ndarray.hardswish)
def tensor_hardswish_tangent(y, self):
    d[y] = d[self] * ((self + 3.0).relu6() * 0.16666666666666666
                      + self * 0.16666666666666666 * ((self > -3.0) * (self < 3.0)))


# --------------------------------------------------------- binary and selection


# tinygrad's `cond.where(x, y)`: the value is the condition (torch's `x.where(cond, y)`
# reads its arguments the other way: tangent.tinygrad_condition refuses that).
@adjoint(numpy.ndarray.where)
def tensor_where(z, self, x, y):
    d[x] = tangent.unbroadcast(numpy.where(tangent.tinygrad_condition(self), d[z], 0.0), x)
    d[y] = tangent.unbroadcast(numpy.where(tangent.tinygrad_condition(self), 0.0, d[z]), y)


@tangent_(numpy.ndarray.where)
def tensor_where_tangent(z, self, x, y):
    d[z] = tangent.broadcast_like(numpy.where(tangent.tinygrad_condition(self), d[x], d[y]), z)


@adjoint(numpy.ndarray.maximum)
def tensor_maximum(z, self, x):
    d[self] = tangent.unbroadcast(d[z] * (self >= x), self)
    d[x] = tangent.unbroadcast(d[z] * (self < x), x)


@tangent_(numpy.ndarray.maximum)
def tensor_maximum_tangent(z, self, x):
    d[z] = tangent.broadcast_like(d[self] * (self >= x) + d[x] * (self < x), z)


@adjoint(numpy.ndarray.minimum)
def tensor_minimum(z, self, x):
    d[self] = tangent.unbroadcast(d[z] * (self <= x), self)
    d[x] = tangent.unbroadcast(d[z] * (self > x), x)


@tangent_(numpy.ndarray.minimum)
def tensor_minimum_tangent(z, self, x):
    d[z] = tangent.broadcast_like(d[self] * (self <= x) + d[x] * (self > x), z)


@adjoint(numpy.ndarray.lerp)
def tensor_lerp(z, self, end, weight):
    d[self] = tangent.unbroadcast(d[z] * (1.0 - weight), self)
    d[end] = tangent.unbroadcast(d[z] * weight, end)
    d[weight] = tangent.unbroadcast(d[z] * (end - self), weight)


@tangent_(numpy.ndarray.lerp)
def tensor_lerp_tangent(z, self, end, weight):
    d[z] = tangent.broadcast_like(d[self] * (1.0 - weight) + d[end] * weight
                                  + d[weight] * (end - self), z)


# x.linear(w, b) = x @ w + b (x * w for a 1-D weight).
@adjoint(numpy.ndarray.linear)
def tensor_linear(y, self, weight, bias=None, dtype=None):
    d[self] = tangent.tinygrad_linear_grad(d[y], self, weight, 0)
    d[weight] = tangent.tinygrad_linear_grad(d[y], self, weight, 1)
    d[bias] = tangent.unbroadcast(d[y], bias)


@tangent_(numpy.ndarray.linear)
def tensor_linear_tangent(y, self, weight, bias=None, dtype=None):
    d[y] = tangent.broadcast_like(tangent.tinygrad_linear(d[self], weight)
                                  + tangent.tinygrad_linear(self, d[weight]) + d[bias], y)


# ------------------------------------------------------------------ reductions


@adjoint(numpy.ndarray.logsumexp)
def tensor_logsumexp(y, self, axis=None, keepdim=False):
    d[self] = tangent.unreduce(d[y], self, axis, keepdim) * numpy.exp(
        self - tangent.unreduce(y, self, axis, keepdim))


@tangent_(numpy.ndarray.logsumexp)
def tensor_logsumexp_tangent(y, self, axis=None, keepdim=False):
    d[y] = numpy.sum(d[self] * numpy.exp(self - tangent.unreduce(y, self, axis, keepdim)),
                     axis=axis, keepdims=keepdim)


# y_i = log sum_{j <= i} exp(x_j): dx_j = sum_{i >= j} g_i exp(x_j - y_i), a reversed
# scan of g * exp(-y).
@adjoint(numpy.ndarray.logcumsumexp)
def tensor_logcumsumexp(y, self, axis=0):
    d[self] = numpy.exp(self) * numpy.flip(numpy.cumsum(numpy.flip(d[y] * numpy.exp(-y), axis),
                                                        axis=axis), axis)


@tangent_(numpy.ndarray.logcumsumexp)
def tensor_logcumsumexp_tangent(y, self, axis=0):
    d[y] = numpy.cumsum(d[self] * numpy.exp(self), axis=axis) * numpy.exp(-y)


# ------------------------------------------------------------------ normalisation


# (x - mean) / sqrt(var + eps) over `axis` (biased var): its Jacobian
# rstd * (I - 1/n - y y^T / n) is symmetric, so gradient and tangent are one formula.
@adjoint(numpy.ndarray.layernorm)
def tensor_layernorm(y, self, axis=-1, eps=1e-05):
    d[self] = (self.var(axis=axis, keepdim=True, correction=0) + eps).rsqrt() * (
        d[y] - numpy.mean(d[y], axis=axis, keepdims=True)
        - y * numpy.mean(d[y] * y, axis=axis, keepdims=True))


@tangent_(numpy.ndarray.layernorm)
def tensor_layernorm_tangent(y, self, axis=-1, eps=1e-05):
    d[y] = (self.var(axis=axis, keepdim=True, correction=0) + eps).rsqrt() * (
        d[self] - numpy.mean(d[self], axis=axis, keepdims=True)
        - y * numpy.mean(d[self] * y, axis=axis, keepdims=True))


# (x - mean) * weight * invstd + bias, the per-channel tensors along `axis`
# (tangent.tinygrad_channel reshapes one to broadcast against x; tinygrad_unchannel sums
# a gradient back to it).
@adjoint(numpy.ndarray.batchnorm)
def tensor_batchnorm(y, self, weight, bias, mean, invstd, axis=1):
    d[self] = d[y] * tangent.tinygrad_channel(tangent.tinygrad_scale(weight, invstd), self, axis)
    d[mean] = -tangent.tinygrad_unchannel(d[y], self, axis) * tangent.tinygrad_scale(
        weight, invstd)
    d[weight] = tangent.tinygrad_unchannel(
        d[y] * (self - tangent.tinygrad_channel(mean, self, axis)), self, axis) * invstd
    d[invstd] = tangent.tinygrad_unchannel(
        d[y] * (self - tangent.tinygrad_channel(mean, self, axis)), self, axis) * (
        tangent.tinygrad_scale(weight, 1.0))
    d[bias] = tangent.tinygrad_unchannel(d[y], self, axis)


@tangent_(numpy.ndarray.batchnorm)
def tensor_batchnorm_tangent(y, self, weight, bias, mean, invstd, axis=1):
    d[y] = tangent.broadcast_like(
        (d[self] - tangent.tinygrad_channel(d[mean], self, axis))
        * tangent.tinygrad_channel(tangent.tinygrad_scale(weight, invstd), self, axis)
        + (self - tangent.tinygrad_channel(mean, self, axis)) * tangent.tinygrad_channel(
            tangent.tinygrad_scale(d[weight], invstd)
            + tangent.tinygrad_scale(weight, d[invstd]), self, axis)
        + tangent.tinygrad_channel(d[bias], self, axis), y)


# ------------------------------------------------------------------ losses


# -((1 - s) log p[Y] + s mean(log p)) per row, masked where Y == ignore_index, reduced;
# its gradient in the logits is (softmax - target) times the row's weight.
@adjoint(numpy.ndarray.sparse_categorical_crossentropy)
def tensor_sparse_categorical_crossentropy(y, self, Y, ignore_index=-1, label_smoothing=0.0,
                                    reduction="mean"):
    d[self] = tangent.tinygrad_loss_weight(d[y], Y, ignore_index, reduction) * (
        self.softmax()
        - tangent.tinygrad_sparse_target(self, Y, label_smoothing))


@tangent_(numpy.ndarray.sparse_categorical_crossentropy)
def tensor_sparse_categorical_crossentropy_tangent(y, self, Y, ignore_index=-1, label_smoothing=0.0,
                                            reduction="mean"):
    d[y] = tangent.tinygrad_loss_reduce(
        numpy.sum(d[self] * (self.softmax()
                             - tangent.tinygrad_sparse_target(self, Y, label_smoothing)),
                  axis=-1),
        Y, ignore_index, reduction)


@adjoint(numpy.ndarray.binary_crossentropy)
def tensor_binary_crossentropy(y, self, Y, reduction="mean"):
    d[self] = tangent.tinygrad_loss_weight(d[y], self, None, reduction) * (
        (self - Y) / (self * (1.0 - self)))
    d[Y] = tangent.tinygrad_loss_weight(d[y], self, None, reduction) * (
        numpy.log(1.0 - self) - numpy.log(self))


@tangent_(numpy.ndarray.binary_crossentropy)
def tensor_binary_crossentropy_tangent(y, self, Y, reduction="mean"):
    d[y] = tangent.tinygrad_loss_reduce(
        d[self] * ((self - Y) / (self * (1.0 - self)))
        + d[Y] * (numpy.log(1.0 - self) - numpy.log(self)), self, None, reduction)


@adjoint(numpy.ndarray.binary_crossentropy_logits)
def tensor_binary_crossentropy_logits(y, self, Y, reduction="mean", pos_weight=None):
    d[self] = tangent.tinygrad_loss_weight(d[y], self, None, reduction) * (
        self.sigmoid() * (1.0 - Y + tangent.tinygrad_binary_target(Y, pos_weight))
        - tangent.tinygrad_binary_target(Y, pos_weight))
    d[Y] = tangent.tinygrad_loss_weight(d[y], self, None, reduction) * (
        -self.logsigmoid() * tangent.tinygrad_pos_weight(pos_weight) + (-self).logsigmoid())
    d[pos_weight] = tangent.unbroadcast(
        tangent.tinygrad_loss_weight(d[y], self, None, reduction) * (-Y * self.logsigmoid()),
        pos_weight)


@tangent_(numpy.ndarray.binary_crossentropy_logits)
def tensor_binary_crossentropy_logits_tangent(y, self, Y, reduction="mean", pos_weight=None):
    d[y] = tangent.tinygrad_loss_reduce(
        d[self] * (self.sigmoid() * (1.0 - Y + tangent.tinygrad_binary_target(Y, pos_weight))
                   - tangent.tinygrad_binary_target(Y, pos_weight))
        + d[Y] * (-self.logsigmoid() * tangent.tinygrad_pos_weight(pos_weight)
                  + (-self).logsigmoid())
        - d[pos_weight] * Y * self.logsigmoid(), self, None, reduction)


# ------------------------------------------------------------------ movement


@adjoint(numpy.ndarray.pad)
def tensor_pad(y, self, padding, mode="constant", value=0.0):
    d[self] = tangent.tinygrad_pad_grad(d[y], self, padding, mode)


@tangent_(numpy.ndarray.pad)
def tensor_pad_tangent(y, self, padding, mode="constant", value=0.0):
    d[y] = tangent.tinygrad_pad_tangent(d[self], self, padding, mode)


@adjoint(numpy.ndarray.shrink)
def tensor_shrink(y, self, arg):
    d[self] = tangent.tinygrad_shrink_grad(d[y], self, arg)


@tangent_(numpy.ndarray.shrink)
def tensor_shrink_tangent(y, self, arg):
    d[y] = tangent.tinygrad_shrink_tangent(d[self], arg)


@adjoint(numpy.ndarray.flip)
def tensor_flip(y, self, *axis):
    d[self] = tangent.tinygrad_flip(d[y], axis)


@tangent_(numpy.ndarray.flip)
def tensor_flip_tangent(y, self, *axis):
    d[y] = tangent.tinygrad_flip(d[self], axis)


@adjoint(numpy.ndarray.unflatten)
def tensor_unflatten(y, self, dim, sizes):
    d[self] = tangent.reshape_as(d[y], self)


@tangent_(numpy.ndarray.unflatten)
def tensor_unflatten_tangent(y, self, dim, sizes):
    d[y] = tangent.reshape_as(d[self], y)


@adjoint(numpy.ndarray.contiguous)
def tensor_contiguous(y, self):
    d[self] = d[y]


@tangent_(numpy.ndarray.contiguous)
def tensor_contiguous_tangent(y, self):
    d[y] = d[self]


@adjoint(numpy.ndarray.repeat_interleave)
def tensor_repeat_interleave(y, self, repeats, dim=None):
    d[self] = tangent.tinygrad_repeat_interleave_grad(d[y], self, repeats, dim)


@tangent_(numpy.ndarray.repeat_interleave)
def tensor_repeat_interleave_tangent(y, self, repeats, dim=None):
    d[y] = tangent.tinygrad_repeat_interleave(d[self], self, repeats, dim)


@adjoint(numpy.ndarray.gather)
def tensor_gather(y, self, dim, index):
    d[self] = tangent.tinygrad_gather_grad(d[y], self, dim, index)


@tangent_(numpy.ndarray.gather)
def tensor_gather_tangent(y, self, dim, index):
    d[y] = tangent.tinygrad_gather(d[self], self, dim, index)


# `a.cat(b, c, dim=1)` and `Tensor.cat(a, b, c, dim=1)` (the same function); stack alike.
@adjoint(numpy.ndarray.cat)
@adjoint(tinygrad.Tensor.cat)
def tensor_cat(y, self, *args, dim=0):
    d[self] = tangent.tinygrad_cat_grad(d[y], self, args, dim, 0)
    d[args] = tangent.tinygrad_cat_grad(d[y], self, args, dim, 1)


@tangent_(numpy.ndarray.cat)
@tangent_(tinygrad.Tensor.cat)
def tensor_cat_tangent(y, self, *args, dim=0):
    d[y] = tangent.tinygrad_cat(d[self], self, d[args], args, dim)


@adjoint(numpy.ndarray.stack)
@adjoint(tinygrad.Tensor.stack)
def tensor_stack(y, self, *args, dim=0):
    d[self] = tangent.tinygrad_stack_grad(d[y], self, args, dim, 0)
    d[args] = tangent.tinygrad_stack_grad(d[y], self, args, dim, 1)


@tangent_(numpy.ndarray.stack)
@tangent_(tinygrad.Tensor.stack)
def tensor_stack_tangent(y, self, *args, dim=0):
    d[y] = tangent.tinygrad_stack(d[self], self, d[args], args, dim)


# A cast: the gradient goes back in the input's dtype.
@adjoint(numpy.ndarray.cast)
def tensor_cast_dtype(y, self, dtype):
    d[self] = tangent.tinygrad_cast_like(d[y], self)


@tangent_(numpy.ndarray.cast)
def tensor_cast_dtype_tangent(y, self, dtype):
    d[y] = tangent.tinygrad_cast_like(d[self], y)


# --------------------------------------------------------- convolution and pooling


@adjoint(numpy.ndarray.conv2d)
def tensor_conv2d(y, self, weight, bias=None, groups=1, stride=1, dilation=1, padding=0, dtype=None):
    d[self] = tangent.tinygrad_conv2d_grad(d[y], self, weight, groups, stride, dilation,
                                           padding, 0)
    d[weight] = tangent.tinygrad_conv2d_grad(d[y], self, weight, groups, stride, dilation,
                                             padding, 1)
    d[bias] = tangent.tinygrad_unchannel(d[y], y, 1)


@tangent_(numpy.ndarray.conv2d)
def tensor_conv2d_tangent(y, self, weight, bias=None, groups=1, stride=1, dilation=1, padding=0,
                   dtype=None):
    d[y] = tangent.broadcast_like(
        tangent.tinygrad_conv2d(d[self], weight, groups, stride, dilation, padding)
        + tangent.tinygrad_conv2d(self, d[weight], groups, stride, dilation, padding)
        + tangent.tinygrad_channel(d[bias], y, 1), y)


@adjoint(numpy.ndarray.max_pool2d)
def tensor_max_pool2d(y, self, kernel_size=(2, 2), stride=None, dilation=1, padding=0,
               ceil_mode=False, return_indices=False):
    d[self] = tangent.tinygrad_pool_grad(d[y], self, "max_pool2d", kernel_size, stride,
                                         dilation, padding, ceil_mode, return_indices)


@tangent_(numpy.ndarray.max_pool2d)
def tensor_max_pool2d_tangent(y, self, kernel_size=(2, 2), stride=None, dilation=1, padding=0,
                       ceil_mode=False, return_indices=False):
    d[y] = tangent.tinygrad_pool_tangent(d[self], self, "max_pool2d", kernel_size, stride,
                                         dilation, padding, ceil_mode, return_indices)


@adjoint(numpy.ndarray.avg_pool2d)
def tensor_avg_pool2d(y, self, kernel_size=(2, 2), stride=None, dilation=1, padding=0,
               ceil_mode=False, count_include_pad=True):
    d[self] = tangent.tinygrad_pool_grad(d[y], self, "avg_pool2d", kernel_size, stride,
                                         dilation, padding, ceil_mode, count_include_pad)


@tangent_(numpy.ndarray.avg_pool2d)
def tensor_avg_pool2d_tangent(y, self, kernel_size=(2, 2), stride=None, dilation=1, padding=0,
                       ceil_mode=False, count_include_pad=True):
    d[y] = tangent.tinygrad_pool_tangent(d[self], self, "avg_pool2d", kernel_size, stride,
                                         dilation, padding, ceil_mode, count_include_pad)


# ------------------------------------------- rules of the helpers above (second order)


@tangent_(tangent.tinygrad_loss_weight)
def tinygrad_loss_weight_tangent(w, g, Y, ignore_index, reduction):
    d[w] = tangent.tinygrad_loss_weight(d[g], Y, ignore_index, reduction)
    d[Y] = 0.0


@tangent_(tangent.tinygrad_loss_reduce)
def tinygrad_loss_reduce_tangent(r, v, Y, ignore_index, reduction):
    d[r] = tangent.tinygrad_loss_reduce(d[v], Y, ignore_index, reduction)


@tangent_(tangent.tinygrad_channel)
def tinygrad_channel_tangent(c, v, x, axis):
    d[c] = tangent.tinygrad_channel(d[v], x, axis)


@tangent_(tangent.tinygrad_unchannel)
def tinygrad_unchannel_tangent(u, g, x, axis):
    d[u] = tangent.tinygrad_unchannel(d[g], x, axis)


@adjoint(tangent.tinygrad_channel)
def tinygrad_channel_adjoint(c, v, x, axis):
    d[v] = tangent.tinygrad_unchannel(d[c], x, axis)
    d[x] = 0.0


@adjoint(tangent.tinygrad_unchannel)
def tinygrad_unchannel_adjoint(u, g, x, axis):
    d[g] = tangent.tinygrad_channel(d[u], x, axis)


@tangent_(tangent.tinygrad_scale)
def tinygrad_scale_tangent(s, a, b):
    d[s] = tangent.tinygrad_scale(d[a], b) + tangent.tinygrad_scale(a, d[b])


@tangent_(tangent.tinygrad_linear)
def tinygrad_linear_helper_tangent(z, x, w):
    d[z] = tangent.tinygrad_linear(d[x], w) + tangent.tinygrad_linear(x, d[w])


@tangent_(tangent.tinygrad_linear_grad)
def tinygrad_linear_grad_tangent(z, g, x, w, which):
    d[z] = (tangent.tinygrad_linear_grad(d[g], x, w, which)
            + tangent.tinygrad_linear_grad_other(g, d[x], d[w], x, w, which))


@tangent_(tangent.tinygrad_gelu_tanh_slope)
def tinygrad_gelu_tanh_slope_tangent(s, x):
    d[s] = d[x] * tangent.tinygrad_gelu_tanh_curvature(x)


@tangent_(tangent.tinygrad_mish_slope)
def tinygrad_mish_slope_tangent(s, x):
    d[s] = d[x] * tangent.tinygrad_mish_curvature(x)


@tangent_(tangent.tinygrad_pad_grad)
def tinygrad_pad_grad_tangent(z, g, x, padding, mode):
    d[z] = tangent.tinygrad_pad_grad(d[g], x, padding, mode)
    d[x] = 0.0


@tangent_(tangent.tinygrad_pad_tangent)
def tinygrad_pad_tangent_tangent(z, t, x, padding, mode):
    d[z] = tangent.tinygrad_pad_tangent(d[t], x, padding, mode)


@tangent_(tangent.tinygrad_shrink_grad)
def tinygrad_shrink_grad_tangent(z, g, x, arg):
    d[z] = tangent.tinygrad_shrink_grad(d[g], x, arg)
    d[x] = 0.0


@tangent_(tangent.tinygrad_shrink_tangent)
def tinygrad_shrink_tangent_tangent(z, t, arg):
    d[z] = tangent.tinygrad_shrink_tangent(d[t], arg)


@tangent_(tangent.tinygrad_flip)
def tinygrad_flip_tangent(z, g, axis):
    d[z] = tangent.tinygrad_flip(d[g], axis)


@tangent_(tangent.tinygrad_repeat_interleave_grad)
def tinygrad_repeat_interleave_grad_tangent(z, g, x, repeats, dim):
    d[z] = tangent.tinygrad_repeat_interleave_grad(d[g], x, repeats, dim)
    d[x] = 0.0


@tangent_(tangent.tinygrad_repeat_interleave)
def tinygrad_repeat_interleave_tangent(z, t, x, repeats, dim):
    d[z] = tangent.tinygrad_repeat_interleave(d[t], x, repeats, dim)


@tangent_(tangent.tinygrad_gather_grad)
def tinygrad_gather_grad_tangent(z, g, x, dim, index):
    d[z] = tangent.tinygrad_gather_grad(d[g], x, dim, index)
    d[x] = 0.0


@tangent_(tangent.tinygrad_gather)
def tinygrad_gather_tangent(z, t, x, dim, index):
    d[z] = tangent.tinygrad_gather(d[t], x, dim, index)


@tangent_(tangent.tinygrad_cat_grad)
def tinygrad_cat_grad_tangent(z, g, first, rest, dim, which):
    d[z] = tangent.tinygrad_cat_grad(d[g], first, rest, dim, which)
    d[first] = 0.0


@tangent_(tangent.tinygrad_stack_grad)
def tinygrad_stack_grad_tangent(z, g, first, rest, dim, which):
    d[z] = tangent.tinygrad_stack_grad(d[g], first, rest, dim, which)
    d[first] = 0.0


@tangent_(tangent.tinygrad_conv2d_grad)
def tinygrad_conv2d_grad_tangent(z, g, x, w, groups, stride, dilation, padding, which):
    d[z] = (tangent.tinygrad_conv2d_grad(d[g], x, w, groups, stride, dilation, padding, which)
            + tangent.tinygrad_conv2d_grad_other(g, d[x], d[w], x, w, groups, stride,
                                                 dilation, padding, which))


@tangent_(tangent.tinygrad_conv2d)
def tinygrad_conv2d_tangent(z, x, w, groups, stride, dilation, padding):
    d[z] = (tangent.tinygrad_conv2d(d[x], w, groups, stride, dilation, padding)
            + tangent.tinygrad_conv2d(x, d[w], groups, stride, dilation, padding))


@tangent_(tangent.tinygrad_pool_grad)
def tinygrad_pool_grad_tangent(z, g, x, op, kernel_size, stride, dilation, padding, ceil_mode,
                               flag):
    d[z] = tangent.tinygrad_pool_grad(d[g], x, op, kernel_size, stride, dilation, padding,
                                      ceil_mode, flag)
    d[x] = 0.0


@tangent_(tangent.tinygrad_pool_tangent)
def tinygrad_pool_tangent_tangent(z, t, x, op, kernel_size, stride, dilation, padding,
                                  ceil_mode, flag):
    d[z] = tangent.tinygrad_pool_tangent(d[t], x, op, kernel_size, stride, dilation, padding,
                                         ceil_mode, flag)


@tangent_(tangent.tinygrad_cast_like)
def tinygrad_cast_like_tangent(z, g, like):
    d[z] = tangent.tinygrad_cast_like(d[g], like)
    d[like] = 0.0
