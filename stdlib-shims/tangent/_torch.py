"""The PyTorch runtime: the primitives the generic helpers compute with
(tangent._library_helpers) and what tensors need beyond them, the namespace operator
and array-method rules compute in for tensors (`TorchNumpy`: NumPy's names and
parameters over torch functions), the helpers of backends/torch.py (`tangent.torch_*`)
and `compile='torch'`.

Installed with the other shims but inert until `load()`, which imports torch and
registers `torch.Tensor` with the registries: `tangent._registry` calls it when it
first meets a value of a type from torch's modules, and `tangent.__getattr__` when
generated code calls a `tangent.torch_*` helper, so `import tangent` never imports torch
and works without it.

Tensors stay tensors: every helper computes with torch functions on the arguments'
device and in their floating dtype (a Python-number gradient such as the seed 1.0 takes
the dtype and device of the tensor it belongs to), never calls `.numpy()` or `.item()`,
and never writes into an argument (gradients written at an index are copies first).
Plain tensors build no autograd graph. Tensors with `requires_grad=True` are accepted;
torch records the derivative's operations on them as on any computation with them (so a
user can backpropagate through the gradient), and nothing under `torch.no_grad()`.
Conventions as in the tangent._grads_* modules: `g` is a gradient shaped like the result,
`t` a tangent shaped like the argument; the tangent of an inactive argument is 0.0.
"""
import sys as _sys

from tangent import _grads_shape, _library_helpers
from tangent._errors import NotDifferentiated

torch = None
F = None
np = None  # the TorchNumpy namespace, once loaded
H = None  # the generic helpers over this module's primitives (tangent._library_helpers)


def loaded():
    return torch is not None


def load():
    """Imports torch (and the submodules rule bodies call); returns this module."""
    global torch, F, np, H
    if torch is None:
        import torch as torch_
        import torch.nn.functional as F_
        import torch.linalg  # noqa: F401
        import torch.special  # noqa: F401
        import torch.nn.grad  # noqa: F401
        torch, F = torch_, F_
        np = TorchNumpy()
        H = _library_helpers.Helpers(_sys.modules[__name__], np)
        _register()
    return _sys.modules[__name__]


def _is_zero(t):
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _is_tensor(x):
    return isinstance(x, torch.Tensor)


def _float_dtype(x):
    """The dtype of a gradient of `x`: its own when floating, else torch's default."""
    dt = getattr(x, "dtype", None)
    if isinstance(dt, torch.dtype) and (dt.is_floating_point or dt.is_complex):
        return dt
    return torch.get_default_dtype()


def _device(x):
    return x.device if _is_tensor(x) else None


def _as_grad(g, like):
    """`g` as a tensor; a Python number (the seed 1.0, a literal) takes the floating
    dtype and the device of `like`."""
    if _is_tensor(g):
        return g
    return torch.as_tensor(g, dtype=_float_dtype(like), device=_device(like))


def _shape(x):
    return tuple(x.shape) if _is_tensor(x) else ()


def _full(shape, v, like):
    return torch.full(shape, v, dtype=_float_dtype(like), device=_device(like))


def _sum_axes(g, axes, keepdims):
    return torch.sum(g, dim=axes, keepdim=keepdims)


def _reshape(g, shape):
    return torch.reshape(g, shape)


def _broadcast_to(g, shape):
    return torch.broadcast_to(g, shape)


def _equal_mask(a, b, like):
    return (a == b).to(_float_dtype(like))


def _matmul_nt(a, b):
    return a @ b.mT


def _matmul_tn(a, b):
    return a.mT @ b


def _dims(dim):
    """A torch `dim` argument as numpy's `axis`: None, an int or a tuple."""
    if dim is None or isinstance(dim, int):
        return dim
    return tuple(dim)


# ----------------------------------------------------- NumPy's API over torch

class TorchNumpy:
    """The array namespace of tensors for the rules written once for every array type
    (operators, array methods, the tangent._grads_* helpers): NumPy's function names
    and parameters (`axis`, `keepdims`, `transpose` reversing the axes) computed with
    torch; anything else is torch's function of that name."""

    __name__ = "tangent.torch_numpy"

    def __getattr__(self, name):
        return getattr(torch, name)

    ndarray = property(lambda self: torch.Tensor)
    inf = float("inf")
    pi = 3.141592653589793

    @staticmethod
    def _t(x, like=None):
        if _is_tensor(x):
            return x
        if like is not None:
            return torch.as_tensor(x, dtype=_float_dtype(like), device=_device(like))
        return torch.as_tensor(x)

    def shape(self, x):
        return tuple(x.shape) if _is_tensor(x) else tuple(torch.as_tensor(x).shape)

    def ndim(self, x):
        return x.dim() if _is_tensor(x) else torch.as_tensor(x).dim()

    def size(self, x):
        return x.numel()

    def asarray(self, x, dtype=None):
        if isinstance(x, (list, tuple)) and any(_is_tensor(v) for v in x):
            return torch.stack([self.asarray(v) for v in x])
        return torch.as_tensor(x, dtype=dtype)

    array = asarray

    def _reduce(self, fn, x, axis, keepdims):
        x = self._t(x)
        if axis is None:
            if keepdims:
                return fn(x, dim=tuple(range(x.dim())), keepdim=True) if x.dim() else x
            return fn(x)
        if isinstance(axis, (list, tuple)) and len(axis) == 0:
            return x
        return fn(x, dim=_dims(axis), keepdim=bool(keepdims))

    def sum(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce(torch.sum, x, axis, keepdims)

    def mean(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce(torch.mean, x, axis, keepdims)

    def max(self, x, axis=None, out=None, keepdims=False):
        return self._reduce(torch.amax, x, axis, keepdims)

    def min(self, x, axis=None, out=None, keepdims=False):
        return self._reduce(torch.amin, x, axis, keepdims)

    amax, amin = max, min

    def reshape(self, x, shape, order="C"):
        if isinstance(shape, int):
            shape = (shape,)
        return torch.reshape(self._t(x), tuple(shape))

    def transpose(self, x, axes=None):
        x = self._t(x)
        if axes is None:
            return x.permute(*reversed(range(x.dim())))
        return x.permute(*axes)

    def swapaxes(self, x, a, b):
        return torch.transpose(self._t(x), a, b)

    def moveaxis(self, x, source, destination):
        return torch.movedim(self._t(x), source, destination)

    def expand_dims(self, x, axis):
        return torch.unsqueeze(self._t(x), axis)

    def squeeze(self, x, axis=None):
        return torch.squeeze(x) if axis is None else torch.squeeze(x, axis)

    def matmul(self, a, b):
        return torch.matmul(self._t(a, b), self._t(b, a))

    def dot(self, a, b):
        a, b = self._t(a, b), self._t(b, a)
        if a.dim() == 0 or b.dim() == 0:
            return a * b
        return torch.matmul(a, b)

    def outer(self, a, b):
        return torch.outer(self._t(a).reshape(-1), self._t(b).reshape(-1))

    def where(self, c, x, y):
        return torch.where(self._t(c), x, y)

    def broadcast_to(self, x, shape):
        return torch.broadcast_to(self._t(x), tuple(shape))

    def concatenate(self, arrays, axis=0):
        return torch.cat(list(arrays), dim=axis)

    def stack(self, arrays, axis=0):
        return torch.stack(list(arrays), dim=axis)

    def cumsum(self, x, axis=None, dtype=None, out=None):
        x = self._t(x)
        if axis is None:
            return torch.cumsum(x.reshape(-1), 0)
        return torch.cumsum(x, axis)

    def flip(self, x, axis=None):
        x = self._t(x)
        if axis is None:
            return torch.flip(x, tuple(range(x.dim())))
        return torch.flip(x, (axis,) if isinstance(axis, int) else tuple(axis))

    def copy(self, x):
        return torch.clone(self._t(x))

    def repeat(self, x, repeats, axis=None):
        return torch.repeat_interleave(self._t(x), repeats, dim=axis)

    def _two(self, fn, a, b):
        return fn(self._t(a, b), self._t(b, a))

    def maximum(self, a, b):
        return self._two(torch.maximum, a, b)

    def minimum(self, a, b):
        return self._two(torch.minimum, a, b)

    def power(self, a, b):
        return torch.pow(a, b)

    def add(self, a, b):
        return torch.add(a, b)

    def multiply(self, a, b):
        return torch.mul(a, b)

    def divide(self, a, b):
        return torch.div(a, b)

    true_divide = divide

    def subtract(self, a, b):
        return torch.sub(a, b)

    def zeros(self, shape, dtype=None):
        return torch.zeros(shape, dtype=dtype)

    def ones(self, shape, dtype=None):
        return torch.ones(shape, dtype=dtype)

    def eye(self, n, m=None, k=0, dtype=None):
        m = n if m is None else m
        if k == 0:
            return torch.eye(n, m, dtype=dtype)
        rows = torch.arange(n)[:, None]
        return (torch.arange(m)[None, :] - rows == k).to(dtype or torch.get_default_dtype())

    def split(self, x, indices_or_sections, axis=0):
        """NumPy's split: at the given indices (torch.split takes sizes), or into equal
        sections."""
        x = self._t(x)
        n = x.shape[axis]
        if isinstance(indices_or_sections, int):
            return list(torch.split(x, n // indices_or_sections, axis))
        bounds = [0] + list(indices_or_sections) + [n]
        return list(torch.split(x, [b - a for a, b in zip(bounds[:-1], bounds[1:])], axis))

    def zeros_like(self, x, dtype=None):
        return torch.zeros_like(x, dtype=dtype)

    def ones_like(self, x, dtype=None):
        return torch.ones_like(x, dtype=dtype)

    def clip(self, x, a_min=None, a_max=None):
        return torch.clamp(x, a_min, a_max)

    def isscalar(self, x):
        return isinstance(x, (int, float))

    def result_type(self, *values):
        return torch.result_type(*values)

    def einsum(self, spec, *operands):
        return torch.einsum(spec, *operands)

    def trace(self, x):
        return torch.trace(x)

    def astype(self, x, dtype):
        return x.to(dtype)


# ------------------------------------------ what tensors need beyond the generic helpers

def init_grad(x):
    return torch.zeros(_shape(x), dtype=_float_dtype(x), device=_device(x))


def add_grad_at(g, x, index, value):
    """`g` (a fresh zero gradient of `x` if None) plus `value` at `x[index]`, as a new
    tensor: every element `index` selects receives its share, repeated elements of an
    index array included."""
    g = init_grad(x) if g is None else g
    idx = torch.arange(g.numel(), device=g.device).reshape(g.shape)[index]
    value = _as_grad(value, g).to(g.dtype)
    flat = g.reshape(-1).clone()
    flat.index_add_(0, idx.reshape(-1), torch.broadcast_to(value, idx.shape).reshape(-1))
    return flat.reshape(g.shape)


def zero_grad_at(g, index):
    g = torch.clone(g)
    g[index] = 0.0
    return g


def set_tangent_at(t, x, index, v):
    if _is_zero(t) or not _is_tensor(t) or tuple(t.shape) != _shape(x):
        t = init_grad(x)
    else:
        t = torch.clone(t)
    t[index] = v
    return t


def _check_float(like):
    """A gradient of an integer (or bool) tensor is refused: such a tensor is an
    argument under `wrt` (nothing active is integer otherwise)."""
    dt = getattr(like, "dtype", None)
    if isinstance(dt, torch.dtype) and not (dt.is_floating_point or dt.is_complex):
        from tangent._errors import _integer_tensor_error
        raise _integer_tensor_error(dt, like.shape, "x.double(), x.float()")


def copy(x):
    return torch.clone(x)


def log(x):
    return torch.log(x)


def sign(x):
    return torch.sign(x)


def _immutable(x):
    return False


def _transpose_method(g, dims):
    """torch's `x.transpose(dim0, dim1)` swaps two dims: its gradient and tangent swap
    them back (the same swap)."""
    if len(dims) != 2:
        raise TypeError("tangent: Tensor.transpose takes two dims (dim0, dim1), got %r"
                        % (dims,))
    return torch.transpose(g, dims[0], dims[1])


def torch_check_devices(names, *values):
    """The entry check of a derivative in a program using torch (`names`: the
    parameters, comma-separated): every tensor argument on one device (torch's own error
    would not name the argument). 0-dimensional CPU tensors mix with any device, as in
    torch."""
    first = None
    for v, n in zip(values, names.split(", ")):
        if isinstance(v, torch.Tensor) and not (v.dim() == 0 and v.device.type == "cpu"):
            if first is None:
                first = (n, v.device)
            elif v.device != first[1]:
                from tangent._errors import _at_call_site
                raise TypeError(_at_call_site(
                    "tangent: the tensor argument `%s` is on device %s, but `%s` is on %s"
                    % (n, v.device, first[0], first[1]),
                    "move them to one device (`%s.to(%s.device)`)" % (n, first[0])))


def _check_output(y, seed, name):
    """grad's output check for tensors: the shapes (as for every array type), and a
    tensor seed on the output's device and of its floating dtype."""
    if type(seed) is float and _is_tensor(y) and y.dim() == 0:
        return  # a scalar output and the default seed: nothing to check
    from tangent._errors import _at_call_site, check_output_by_shape
    if _is_tensor(y) and _is_tensor(seed) and seed.device != y.device:
        raise ValueError(_at_call_site(
            "grad: the seed is on device %s but `%s` returned a tensor on %s"
            % (seed.device, name, y.device),
            "pass the seed on the output's device (seed.to(%r))" % (str(y.device),)))
    if (_is_tensor(y) and _is_tensor(seed) and seed.dtype != y.dtype
            and seed.is_floating_point() and y.is_floating_point()):
        # torch.autograd refuses this too; promoting would give gradients of another
        # dtype than their arguments
        raise TypeError(_at_call_site(
            "grad: the seed is a %s tensor but `%s` returned a %s tensor"
            % (str(seed.dtype).replace("torch.", ""), name,
               str(y.dtype).replace("torch.", "")),
            "pass the seed in the output's dtype (seed.to(y.dtype)), or leave it out for "
            "the default 1.0"))
    check_output_by_shape(y, seed, name)


def _default_ddof(x):
    return 1  # Tensor.var/std: the unbiased estimate unless `correction` says otherwise


# ------------------------------------------------------ helpers of the torch rules

def torch_sum(t, dim=None, keepdim=False):
    """torch.sum's tangent (and the reduction the rules share): `dim=None` sums all."""
    return np.sum(t, axis=_dims(dim), keepdims=keepdim)


def torch_mean(t, dim=None, keepdim=False):
    return np.mean(t, axis=_dims(dim), keepdims=keepdim)




def _perm(dims):
    """A permutation given as one tuple or one by one (`x.permute(1, 0)`)."""
    if len(dims) == 1 and isinstance(dims[0], (list, tuple, torch.Size)):
        return tuple(dims[0])
    return tuple(dims)


def torch_permute_grad(g, dims):
    dims = _perm(dims)
    inverse = [0] * len(dims)
    for i, d in enumerate(dims):
        inverse[d % len(dims)] = i
    return g.permute(*inverse)


def torch_permute(t, dims):
    return t.permute(*_perm(dims))


def torch_cat_grad(g, tensors, dim=0):
    """Gradients of torch.cat's inputs: the slices of `g` along `dim`."""
    sizes = [t.shape[dim] for t in tensors]
    return list(torch.split(g, sizes, dim=dim))


def torch_stack_grad(g, tensors, dim=0):
    return list(torch.unbind(g, dim=dim))


def torch_tangents_like(ts, tensors):
    """Tangents of a list of tensors, the literal zeros of inactive ones as zero tensors."""
    return [init_grad(x) if _is_zero(t) else H.broadcast_like(t, x) for t, x in zip(ts, tensors)]


def torch_cumsum_grad(g, dim):
    return torch.flip(torch.cumsum(torch.flip(g, (dim,)), dim), (dim,))


def torch_clamp_mask(x, low, high, which):
    """Where the gradient of clamp(x, low, high) goes: to x inside the bounds (which=0),
    to the bound a value was clamped to (1: low, 2: high). Where the bounds cross
    (low > high) torch returns high."""
    inside = torch.ones_like(x, dtype=torch.bool)
    below = torch.zeros_like(x, dtype=torch.bool)
    above = torch.zeros_like(x, dtype=torch.bool)
    if high is not None:
        above = x > high
    if low is not None:
        below = x < low
        if high is not None:
            crossed = torch.as_tensor(low, device=x.device) > torch.as_tensor(high, device=x.device)
            above = above | crossed
            below = below & ~above
    inside = inside & ~below & ~above
    return (inside, below, above)[which].to(_float_dtype(x))


def torch_module_check(module, what):
    """What backends/torch.py's module templates need to hold when the derivative runs
    (the module's mode can change after it was built): a located error otherwise."""
    from tangent._errors import TangentError, _at_call_site
    name = type(module).__name__

    def refuse(why, fix):
        raise TangentError(_at_call_site("cannot differentiate a call of `%s`: %s"
                                         % (name, why), fix))
    if what == "batch_norm":
        if module.training and module.track_running_stats:
            refuse("it is in training mode, where it normalises with the batch's "
                   "statistics and updates its running ones",
                   "call model.eval() first (or differentiate F.batch_norm's computation "
                   "written with torch functions)")
        if module.running_mean is None:
            refuse("it keeps no running statistics (track_running_stats=False)",
                   "normalise with torch functions in the function instead")
        if module.weight is None:
            refuse("it has no affine parameters (affine=False)",
                   "normalise with torch functions in the function instead")
    elif what == "conv2d":
        if module.padding_mode != "zeros" or isinstance(module.padding, str):
            refuse("padding_mode=%r, padding=%r: only explicit zero padding has a rule"
                   % (module.padding_mode, module.padding),
                   "use padding_mode='zeros' with an explicit padding")
    elif what == "embedding":
        if module.max_norm is not None:
            refuse("max_norm renormalises its weight in place", "use max_norm=None")
    elif what == "dim":
        if module.dim is None:
            refuse("it was built without `dim`", "pass dim= to the module")
        return module.dim
    return None


def torch_channel_shape(x):
    """(1, C, 1, ...): a per-channel vector broadcast over the rest of `x` (dim 1)."""
    return (1, x.shape[1]) + (1,) * (x.dim() - 2) if x.dim() > 1 else (x.shape[0],)


def torch_embedding_grad(g, ids, weight, padding_idx, max_norm, scale_grad_by_freq):
    """The gradient of `weight` in embedding(ids, weight): each row's gradients summed."""
    if max_norm is not None or scale_grad_by_freq:
        from tangent._errors import TangentError, _at_call_site
        raise TangentError(_at_call_site(
            "embedding with max_norm or scale_grad_by_freq has no rule here",
            "use the defaults"))
    if g is None or isinstance(g, (int, float)):
        return torch.zeros_like(weight)
    flat = ids.reshape(-1)
    out = torch.zeros_like(weight).index_add(0, flat, g.reshape(-1, weight.shape[1]))
    if padding_idx is not None:
        out[padding_idx] = 0.0
    return out


def torch_embedding_tangent(t, ids, y, padding_idx, max_norm):
    """The tangent of embedding(ids, weight) given the weight's tangent `t`."""
    if t is None or isinstance(t, (int, float)):
        return torch.zeros_like(y)
    out = torch.nn.functional.embedding(ids, t)
    if padding_idx is not None:
        out = out * (ids != padding_idx).unsqueeze(-1).to(out.dtype)
    return out


def torch_check_dropout(g, training):
    """Dropout in eval form (training=False) is the identity; in training form it is
    random and has no derivative here."""
    if training:
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: torch.nn.functional.dropout is differentiated in eval form only "
            "(training=False): a random mask has no derivative rule",
            "pass training=False (or self.training of an eval-mode module)"))
    return g


_SQRT_2_OVER_PI = 0.7978845608028654


def torch_gelu_slope(x, approximate="none"):
    if approximate == "tanh":
        t = torch.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x * x * x))
        return (0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * _SQRT_2_OVER_PI
                * (1.0 + 0.134145 * x * x))
    if approximate != "none":
        raise ValueError("tangent: gelu's approximate must be 'none' or 'tanh', not %r"
                         % (approximate,))
    return (0.5 * (1.0 + torch.erf(x * 0.7071067811865476))
            + x * 0.3989422804014327 * torch.exp(-0.5 * x * x))


def torch_gelu_curvature(x, approximate="none"):
    """The derivative of torch_gelu_slope (gelu's second derivative)."""
    if approximate == "tanh":
        u = _SQRT_2_OVER_PI * (x + 0.044715 * x * x * x)
        du = _SQRT_2_OVER_PI * (1.0 + 0.134145 * x * x)
        t = torch.tanh(u)
        s = 1.0 - t * t
        return (0.5 * s * du + 0.5 * s * du - x * t * s * du * du
                + 0.5 * x * s * _SQRT_2_OVER_PI * 0.26829 * x)
    return 0.3989422804014327 * torch.exp(-0.5 * x * x) * (2.0 - x * x)


def torch_reduce_loss(v, reduction):
    if reduction == "mean":
        return torch.mean(v)
    if reduction == "sum":
        return torch.sum(v)
    if reduction == "none":
        return v
    raise ValueError("tangent: reduction=%r is not one of 'mean', 'sum', 'none'" % (reduction,))


def torch_loss_grad(g, like, reduction):
    """The gradient of a loss's elementwise terms (shaped like `like`) from the gradient
    of the reduced loss."""
    g = _as_grad(g, like)
    if reduction == "mean":
        return torch.broadcast_to(g / like.numel(), like.shape)
    if reduction == "sum":
        return torch.broadcast_to(g, like.shape)
    return g


def torch_check_loss(v, weight, other, smoothing):
    """`v`, after refusing the loss arguments the rules do not differentiate: weight,
    pos_weight, ignore_index, label_smoothing."""
    if weight is not None or other not in (None, -100) or smoothing != 0.0:
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: this loss is differentiated without weight, pos_weight, "
            "ignore_index and label_smoothing",
            "leave them at their defaults, or write the weighted loss with torch "
            "functions (log_softmax, sum, mean)"))
    return v


def torch_class_dim(input):
    return 1 if input.dim() > 1 else 0


def torch_targets(input, target):
    """cross_entropy/nll_loss targets as class probabilities shaped like `input` (class
    indices become one-hot rows; probabilities are used as they are)."""
    if target.dtype.is_floating_point:
        return target
    onehot = F.one_hot(target, input.shape[torch_class_dim(input)]).to(input.dtype)
    return torch.movedim(onehot, -1, 1) if input.dim() > 1 else onehot


def torch_class_grad(g, input, reduction, weight, ignore_index, label_smoothing):
    """The gradient of each sample's loss (from the reduced loss's), shaped to broadcast
    along the class dim of `input`."""
    torch_check_loss(None, weight, ignore_index, label_smoothing)
    cdim = torch_class_dim(input)
    g = _as_grad(g, input)
    if reduction == "mean":
        g = g / (input.numel() // input.shape[cdim])
    elif reduction not in ("sum", "none"):
        torch_reduce_loss(g, reduction)
    if input.dim() > 1:
        shape = list(input.shape)
        shape[cdim] = 1
        g = torch.broadcast_to(g, tuple(shape[:cdim] + shape[cdim + 1:])).unsqueeze(cdim)
    return g


def torch_last_dims(input, normalized_shape):
    n = 1 if isinstance(normalized_shape, int) else len(tuple(normalized_shape))
    return tuple(range(input.dim() - n, input.dim()))


def torch_scale(g, weight=None):
    return g if weight is None else g * weight



def torch_conv2d_input_grad(g, weight, input, stride=1, padding=0, dilation=1, groups=1):
    return torch.nn.grad.conv2d_input(tuple(input.shape), weight, g, stride, padding,
                                      dilation, groups)


def torch_conv2d_input_grad_w(weight, g, input, stride=1, padding=0, dilation=1, groups=1):
    return torch_conv2d_input_grad(g, weight, input, stride, padding, dilation, groups)


def torch_conv2d_weight_grad(g, input, weight, stride=1, padding=0, dilation=1, groups=1):
    return torch.nn.grad.conv2d_weight(input, tuple(weight.shape), g, stride, padding,
                                       dilation, groups)


def torch_conv2d_weight_grad_x(input, g, weight, stride=1, padding=0, dilation=1, groups=1):
    return torch_conv2d_weight_grad(g, input, weight, stride, padding, dilation, groups)


def torch_conv2d_bias_grad(g):
    return torch.sum(g, dim=(0, 2, 3)) if g.dim() == 4 else torch.sum(g, dim=(1, 2))


def torch_conv2d_by_input(t, weight, stride=1, padding=0, dilation=1, groups=1):
    return F.conv2d(t, weight, None, stride, padding, dilation, groups)


def torch_conv2d_by_weight(t, input, stride=1, padding=0, dilation=1, groups=1):
    return F.conv2d(input, t, None, stride, padding, dilation, groups)


def torch_conv2d_bias(t, y):
    return torch.reshape(t, (-1, 1, 1)) * torch.ones_like(y)


def torch_pool_window(x, kernel_size, stride, padding, dilation, ceil_mode):
    """The indices (into x's last two dims, flattened) max_pool2d picks, shaped like
    the result."""
    _, idx = F.max_pool2d(x, kernel_size, stride, padding, dilation, ceil_mode,
                          return_indices=True)
    return idx


def _no_indices(return_indices):
    if return_indices:
        raise NotDifferentiated(
            "tangent: max_pool2d(..., return_indices=True) has no rule; take the indices "
            "from a separate call")


def torch_max_pool2d_grad(g, x, kernel_size, stride=None, padding=0, dilation=1,
                          ceil_mode=False, return_indices=False):
    _no_indices(return_indices)
    idx = torch_pool_window(x, kernel_size, stride, padding, dilation, ceil_mode)
    return torch_gather_grad(g, x, idx)


def torch_max_pool2d_tangent(t, x, kernel_size, stride=None, padding=0, dilation=1,
                             ceil_mode=False, return_indices=False):
    _no_indices(return_indices)
    idx = torch_pool_window(x, kernel_size, stride, padding, dilation, ceil_mode)
    return torch_gather(t, x, idx)


def torch_gather(t, x, idx):
    """t at the (flattened spatial) indices `idx` of each channel."""
    t = torch.broadcast_to(_as_grad(t, x), x.shape)
    flat = t.reshape(tuple(t.shape[:-2]) + (-1,))
    return torch.gather(flat, -1, idx.reshape(tuple(idx.shape[:-2]) + (-1,))).reshape(idx.shape)


def torch_gather_grad(g, x, idx):
    """The adjoint of torch_gather: g added at those indices of a zero gradient of x."""
    out = torch.zeros(tuple(x.shape[:-2]) + (x.shape[-2] * x.shape[-1],), dtype=g.dtype,
                      device=g.device)
    out = out.scatter_add(-1, idx.reshape(tuple(idx.shape[:-2]) + (-1,)),
                          g.reshape(tuple(g.shape[:-2]) + (-1,)))
    return out.reshape(x.shape)


def torch_avg_pool2d_grad(g, x, kernel_size, stride=None, padding=0, ceil_mode=False,
                          count_include_pad=True, divisor_override=None):
    """avg_pool2d is linear: its adjoint is aten's avg_pool2d_backward (the transposed
    averaging)."""
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None or stride == [] else stride)
    return torch.ops.aten.avg_pool2d_backward(
        g, x, [kh, kw], [sh, sw], list(_pair(padding)), ceil_mode, count_include_pad,
        divisor_override)


def _pair(v):
    return tuple(v) if isinstance(v, (list, tuple)) else (v, v)


def torch_cast_like(g, like):
    """A gradient (or tangent) in the floating dtype of `like` (the other side of a
    cast)."""
    return _as_grad(g, like).to(_float_dtype(like))


def _vector_rhs(A, B):
    """Does torch.linalg.solve read B as a (stack of) vector(s)?"""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def torch_col(v, A, B):
    """A right-hand side (or its solution, gradient, tangent) as a matrix: vectors get a
    trailing axis."""
    return torch.unsqueeze(v, -1) if _vector_rhs(A, B) else v


def torch_uncol(m, A, B):
    return torch.squeeze(m, -1) if _vector_rhs(A, B) else m


def _norm_kind(x, ord, dim, name):
    """The vector ord of a norm call the rules differentiate ('fro' is 2 over the
    matrix dims); matrix ords are refused."""
    if name == "norm":
        if ord == "fro":
            return 2
        if isinstance(ord, str) or (dim is None and x.dim() == 2) or (
                isinstance(dim, (tuple, list)) and len(dim) == 2):
            raise NotDifferentiated(
                "tangent: torch.linalg.norm with the matrix norm ord=%r has no rule; use "
                "torch.linalg.vector_norm or ord=None/'fro'" % (ord,))
    return ord


def torch_norm_grad(g, n, x, ord, dim, keepdim, name):
    """The gradient of a vector norm: ord 2 (x / |x|), inf/-inf (shared among the extreme
    elements), 1 (sign) and other p (sign |x|^(p-1) / |x|_p^(p-1))."""
    p = _norm_kind(x, ord, dim, name)
    dim = _dims(dim)
    gu = H.unreduce(g, x, dim, keepdim)
    nu = H.unreduce(n, x, dim, keepdim)
    if p == 2:
        return gu * x / nu
    if p in (float("inf"), float("-inf")):
        mask = (torch.abs(x) == nu).to(_float_dtype(x))
        count = H.unreduce(np.sum(mask, axis=dim, keepdims=keepdim), x, dim, keepdim)
        return gu * torch.sign(x) * mask / count
    if p == 1:
        return gu * torch.sign(x)
    if p == 0:
        return torch.zeros_like(x)
    return gu * torch.sign(x) * torch.abs(x) ** (p - 1) / nu ** (p - 1)


def torch_norm_tangent(t, n, x, ord, dim, keepdim, name):
    t = torch.broadcast_to(_as_grad(t, x), x.shape)
    return np.sum(t * torch_norm_grad(torch.ones_like(n), n, x, ord, dim, keepdim, name),
                  axis=_dims(dim), keepdims=keepdim)


def torch_norm_grad_jvp(dg, dn, dx, g, n, x, ord, dim, keepdim, name):
    """The tangent of torch_norm_grad(g, n, x, ...) along (dg, dn, dx), n being the norm
    of x (its tangent dn is the norm's tangent)."""
    p = _norm_kind(x, ord, dim, name)
    dim = _dims(dim)
    out = 0.0
    if not _is_zero(dg):
        out = torch_norm_grad(dg, n, x, ord, dim, keepdim, name)
    gu = H.unreduce(g, x, dim, keepdim)
    nu = H.unreduce(n, x, dim, keepdim)
    dx = 0.0 if _is_zero(dx) else torch.broadcast_to(_as_grad(dx, x), x.shape)
    dnu = 0.0 if _is_zero(dn) else H.unreduce(dn, x, dim, keepdim)
    if p == 2:
        return out + gu * (dx / nu - x * dnu / (nu * nu))
    if p in (1, 0, float("inf"), float("-inf")):
        if p in (float("inf"), float("-inf")):
            return out  # piecewise linear in x: a constant mask
        return out
    a = torch.abs(x)
    return out + gu * ((p - 1) * a ** (p - 2) * dx / nu ** (p - 1)
                       - torch.sign(x) * a ** (p - 1) * (p - 1) * dnu / nu ** p)


# ---------------------------------------------------------------- compile='torch'

# TensorFlow and triton (torch.compile's GPU compiler, loaded when torch.compile runs)
# each carry an LLVM; loading triton's after TensorFlow's aborts the process ("Option
# ... registered more than once"), the other order works. `import tangent` installs
# `_TritonBeforeTensorflow`, which loads triton's library just before tensorflow is
# imported (only then, and only if triton is installed: it does not import torch); a
# compile='torch' after tensorflow was imported first is refused instead of aborting.
_TRITON = "triton._C.libtriton"


class _TritonBeforeTensorflow:
    """A meta path finder that finds nothing: seeing `import tensorflow`, it first loads
    triton's LLVM library, if triton is installed."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "tensorflow" and _TRITON not in _sys.modules:
            import importlib.util
            try:
                if importlib.util.find_spec("triton") is not None:
                    __import__(_TRITON)
            except Exception:  # noqa: BLE001 - a broken triton: torch.compile says so
                pass
        return None


def install_import_order_hook():
    if not any(isinstance(f, _TritonBeforeTensorflow) for f in _sys.meta_path):
        _sys.meta_path.insert(0, _TritonBeforeTensorflow())


def _check_llvm_order():
    """compile='torch' would abort the process if tensorflow's LLVM is loaded and
    triton's is not: a TangentError saying so instead."""
    if "tensorflow" in _sys.modules and _TRITON not in _sys.modules:
        import importlib.util
        if importlib.util.find_spec("triton") is None:
            return
        from tangent._errors import TangentError, _at_call_site
        raise TangentError(_at_call_site(
            "compile='torch': tensorflow was imported before `import tangent` (or before "
            "triton), and torch.compile loading triton's LLVM after tensorflow's would "
            "abort the process (the two register the same LLVM options)",
            "import tangent (or `import triton._C.libtriton`) before tensorflow, or use "
            "compile='python'"))


def compiled(fn, func):
    """compile='torch': `fn` wrapped in torch.compile (graph breaks allowed: tape
    operations fall back to Python). The readable source stays on the wrapper's
    `__tangent_source__`. An inductor that cannot compile here is a TangentError saying
    why and naming compile='python'."""
    load()
    _check_llvm_order()
    import warnings
    from tangent._errors import TangentError, _at_call_site
    # The tape's push/pop (native functions of tangent) are the expected graph breaks.
    warnings.filterwarnings(
        "ignore", message=r"Dynamo does not know how to trace the builtin `_tangent\.")
    try:
        compiled_fn = torch.compile(fn, fullgraph=False, dynamic=False)
    except Exception as e:  # torch.compile itself refused (no inductor for this Python)
        raise TangentError(_at_call_site(
            "compile='torch': torch.compile is not available here: %s: %s"
            % (type(e).__name__, e), "use compile='python'"))
    state = {"checked": False}

    def torch_compiled(*args, **kwargs):
        if state["checked"]:
            return compiled_fn(*args, **kwargs)
        try:
            out = compiled_fn(*args, **kwargs)
        except Exception as e:
            if _is_compiler_error(e):
                raise TangentError(_at_call_site(
                    "compile='torch': torch.compile could not compile the derivative of "
                    "`%s` here: %s: %s" % (getattr(func, "__name__", "?"), type(e).__name__,
                                          str(e).strip().splitlines()[0] if str(e).strip()
                                          else ""),
                    "use compile='python' (the same derivative, not compiled)")) from None
            raise
        state["checked"] = True
        return out

    from tangent._build import _as_compiled
    return _as_compiled(torch_compiled, fn, "torch")


def _is_compiler_error(e):
    """Does `e` come from torch's compiler stack (dynamo/inductor/a C compiler) rather
    than from the derivative's own computation?"""
    module = type(e).__module__ or ""
    if module.startswith(("torch._dynamo", "torch._inductor")):
        return True
    return "BackendCompilerFailed" in type(e).__name__ or "InductorError" in type(e).__name__


# ------------------------------------------------------------------ registration

def _register():
    H.register(
        (torch.Tensor,), init_grad=init_grad, add_grad_at=add_grad_at,
        zero_grad_at=zero_grad_at, set_tangent_at=set_tangent_at, copy=copy, log=log,
        sign=sign, immutable=_immutable, transpose_method=_transpose_method,
        default_ddof=_default_ddof, check_output=_check_output,
        repeat_method=_grads_shape.tile_method)


install_import_order_hook()  # at `import tangent`: cheap, and imports nothing
