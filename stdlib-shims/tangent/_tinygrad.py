"""The tinygrad runtime: the primitives the generic helpers compute with
(tangent._library_helpers) and what tensors need beyond them, the namespace operator
and array-method rules compute in for tinygrad tensors (`TinyNumpy`: NumPy's names and
parameters over Tensor methods), the helpers of backends/tinygrad.py
(`tangent.tinygrad_*`) and `compile='tinygrad'` (TinyJit).

Installed with the other shims but inert until `load()`, which imports tinygrad and
registers `tinygrad.Tensor`: `tangent._registry` calls it when it first meets a value of
a type from tinygrad's modules, and `tangent.__getattr__` when generated code calls a
`tangent.tinygrad_*` helper, so `import tangent` never imports tinygrad.

Everything stays lazy: every helper builds tinygrad tensors from the arguments' own
operations, in their floating dtype and on their device, and never realises one (no
`.numpy()`, `.item()`, `.tolist()`, no `bool()` of a tensor), so the whole gradient is
one tinygrad graph that tinygrad's scheduler fuses. Shapes are static in tinygrad and
are read freely. Conventions as in the tangent._grads_* modules: `g` is a gradient
shaped like the result, `t` a tangent shaped like the argument.
"""
import sys as _sys

from tangent import _grads_shape, _library_helpers
from tangent._errors import NotDifferentiated

tinygrad = None
Tensor = None
dtypes = None
np = None  # the TinyNumpy namespace, once loaded
H = None  # the generic helpers over this module's primitives (tangent._library_helpers)


def loaded():
    return tinygrad is not None


def load():
    """Imports tinygrad; returns this module."""
    global tinygrad, Tensor, dtypes, np, H
    if tinygrad is None:
        import tinygrad as tinygrad_
        Tensor, dtypes = tinygrad_.Tensor, tinygrad_.dtypes
        tinygrad = tinygrad_
        np = TinyNumpy()
        H = _library_helpers.Helpers(_sys.modules[__name__], np)
        _register()
    return _sys.modules[__name__]


def device():
    """The device tinygrad computes on here (`CPU` with clang, `PYTHON` without), or why
    there is none (for `tangent doctor` and backend_status)."""
    load()
    from tinygrad import Device
    return Device.DEFAULT


def status_detail():
    """For backend_status(): the device tinygrad computes on (CPU needs clang)."""
    return "device: %s" % device()


def _is_tensor(x):
    return isinstance(x, Tensor)


def _is_zero(t):
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _float_dtype(x):
    """The dtype of a gradient of `x`: its own when floating, else tinygrad's default."""
    dt = getattr(x, "dtype", None)
    if _is_tensor(x) and dtypes.is_float(dt) and dt not in getattr(dtypes, "weaks", ()):
        return dt
    return dtypes.default_float  # also for the weak float of `int_tensor * 2.0`


def _device(x):
    return x.device if _is_tensor(x) else None


def _shape(x):
    return tuple(x.shape) if _is_tensor(x) else ()


def _const(v, like):
    """A Python number as a 0-d tensor of `like`'s floating dtype, on its device."""
    return Tensor(v, dtype=_float_dtype(like), device=_device(like))


def _as_grad(g, like):
    """`g` as a tensor; a Python number (the seed 1.0, a literal) takes the floating
    dtype and the device of `like`."""
    return g if _is_tensor(g) else _const(g, like)


def _full(shape, v, like):
    """`v` broadcast to `shape` (a constant tinygrad fuses, not a buffer)."""
    shape = tuple(shape)
    return _const(v, like).reshape((1,) * len(shape)).expand(shape)


def _sum_axes(g, axes, keepdims):
    return g.sum(axis=axes, keepdim=keepdims)


def _reshape(g, shape):
    return g.reshape(shape)


def _broadcast_to(g, shape):
    return g.expand(shape)


def _equal_mask(a, b, like):
    return (a == b).cast(_float_dtype(like))


def _matmul_nt(a, b):
    return a.matmul(b.transpose(0, 1))


def _matmul_tn(a, b):
    return a.transpose(0, 1).matmul(b)


def _dims(axis):
    """An axis argument as NumPy's: None, an int or a tuple."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(axis)


# ------------------------------------------------ NumPy's API over tinygrad

class TinyNumpy:
    """The array namespace of tinygrad tensors for the rules written once for every
    array type (operators, array methods, the tangent._grads_* helpers): NumPy's
    function names and parameters (`axis`, `keepdims`, `transpose` reversing the axes)
    computed with Tensor methods; any other name is the Tensor method of that name,
    called with the tensor (a number first converted)."""

    __name__ = "tangent.tinygrad_numpy"
    inf = float("inf")
    pi = 3.141592653589793

    def __getattr__(self, name):
        method = getattr(Tensor, name, None)
        if method is None or name.startswith("_"):
            raise AttributeError("tinygrad.Tensor has no method %r (needed as the array "
                                 "function numpy.%s of a tinygrad value)" % (name, name))

        def call(x, *args, **kwargs):
            return method(self._t(x), *args, **kwargs)
        call.__name__ = name
        return call

    ndarray = property(lambda self: Tensor)

    @staticmethod
    def _t(x, like=None):
        if _is_tensor(x):
            return x
        if like is not None and _is_tensor(like):
            return Tensor(x, dtype=_float_dtype(like) if isinstance(x, float) else None,
                          device=like.device)
        return Tensor(x)

    def shape(self, x):
        return _shape(x) if _is_tensor(x) else tuple(Tensor(x).shape)

    def ndim(self, x):
        return x.ndim if _is_tensor(x) else len(self.shape(x))

    def size(self, x):
        return x.numel() if _is_tensor(x) else 1

    def asarray(self, x, dtype=None):
        if isinstance(x, (list, tuple)) and any(_is_tensor(v) for v in x):
            return Tensor.stack(*[self.asarray(v) for v in x])
        if _is_tensor(x):
            return x if dtype is None else x.cast(dtype)
        return Tensor(x, dtype=dtype)

    array = asarray

    def _reduce(self, method, x, axis, keepdims):
        x = self._t(x)
        if isinstance(axis, (list, tuple)) and len(axis) == 0:
            return x
        return getattr(x, method)(axis=_dims(axis), keepdim=bool(keepdims))

    def sum(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("sum", x, axis, keepdims)

    def mean(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("mean", x, axis, keepdims)

    def max(self, x, axis=None, out=None, keepdims=False):
        return self._reduce("max", x, axis, keepdims)

    def min(self, x, axis=None, out=None, keepdims=False):
        return self._reduce("min", x, axis, keepdims)

    def prod(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce("prod", x, axis, keepdims)

    amax, amin = max, min

    def reshape(self, x, shape, order="C"):
        if isinstance(shape, int):
            shape = (shape,)
        return self._t(x).reshape(tuple(shape))

    def transpose(self, x, axes=None):
        x = self._t(x)
        if axes is None:
            return x.permute(*reversed(range(x.ndim)))
        return x.permute(*axes)

    def swapaxes(self, x, a, b):
        return self._t(x).transpose(a, b)

    def moveaxis(self, x, source, destination):
        x = self._t(x)
        order = [i for i in range(x.ndim) if i != source % x.ndim]
        order.insert(destination % x.ndim, source % x.ndim)
        return x.permute(*order)

    def expand_dims(self, x, axis):
        return self._t(x).unsqueeze(axis)

    def squeeze(self, x, axis=None):
        return self._t(x).squeeze(axis)

    def matmul(self, a, b):
        return self._t(a, b).matmul(self._t(b, a))

    def dot(self, a, b):
        a, b = self._t(a, b), self._t(b, a)
        if a.ndim == 0 or b.ndim == 0:
            return a * b
        return a.matmul(b)

    def outer(self, a, b):
        return self._t(a).reshape(-1, 1) * self._t(b).reshape(1, -1)

    def where(self, c, x, y):
        c = self._t(c)
        like = x if _is_tensor(x) else y
        return c.where(self._t(x, like), self._t(y, like))

    def broadcast_to(self, x, shape):
        return self._t(x).expand(tuple(shape))

    def concatenate(self, arrays, axis=0):
        arrays = list(arrays)
        return arrays[0].cat(*arrays[1:], dim=axis)

    def stack(self, arrays, axis=0):
        arrays = list(arrays)
        return arrays[0].stack(*arrays[1:], dim=axis)

    def cumsum(self, x, axis=None, dtype=None, out=None):
        x = self._t(x)
        if axis is None:
            return x.reshape(-1).cumsum(0)
        return x.cumsum(axis)

    def cumprod(self, x, axis=None, dtype=None, out=None):
        x = self._t(x)
        if axis is None:
            return x.reshape(-1).cumprod(0)
        return x.cumprod(axis)

    def flip(self, x, axis=None):
        x = self._t(x)
        if axis is None:
            return x.flip(tuple(range(x.ndim)))
        return x.flip((axis,) if isinstance(axis, int) else tuple(axis))

    def copy(self, x):
        return self._t(x).clone()

    def repeat(self, x, repeats, axis=None):
        x = self._t(x)
        if axis is None:
            return x.reshape(-1).repeat_interleave(repeats)
        return x.repeat_interleave(repeats, dim=axis)

    def tile(self, x, reps):
        x = self._t(x)
        reps = (reps,) if isinstance(reps, int) else tuple(reps)
        if len(reps) < x.ndim:
            reps = (1,) * (x.ndim - len(reps)) + reps
        if len(reps) > x.ndim:
            x = x.reshape((1,) * (len(reps) - x.ndim) + _shape(x))
        return x.repeat(*reps)

    def maximum(self, a, b):
        return self._t(a, b).maximum(self._t(b, a))

    def minimum(self, a, b):
        return self._t(a, b).minimum(self._t(b, a))

    def power(self, a, b):
        return self._t(a, b).pow(b)

    def add(self, a, b):
        return a + b

    def multiply(self, a, b):
        return a * b

    def divide(self, a, b):
        return a / b

    true_divide = divide

    def subtract(self, a, b):
        return a - b

    def negative(self, x):
        return -x

    def zeros(self, shape, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return Tensor.zeros(shape, dtype=dtype or dtypes.default_float)

    def ones(self, shape, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return Tensor.ones(shape, dtype=dtype or dtypes.default_float)

    def full(self, shape, value, dtype=None):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        return Tensor.full(shape, value, dtype=dtype or dtypes.default_float)

    def zeros_like(self, x, dtype=None):
        return self._t(x).zeros_like(dtype=dtype or _float_dtype(x))

    def ones_like(self, x, dtype=None):
        return self._t(x).ones_like(dtype=dtype or _float_dtype(x))

    def eye(self, n, m=None, k=0, dtype=None):
        m = n if m is None else m
        rows = Tensor.arange(n).reshape(n, 1)
        return (Tensor.arange(m).reshape(1, m) - rows == k).cast(
            dtype or dtypes.default_float)

    def split(self, x, indices_or_sections, axis=0):
        """NumPy's split: at the given indices, or into equal sections."""
        x = self._t(x)
        n = x.shape[axis]
        if isinstance(indices_or_sections, int):
            return list(x.split(n // indices_or_sections, axis))
        bounds = [0] + list(indices_or_sections) + [n]
        return list(x.split([b - a for a, b in zip(bounds[:-1], bounds[1:])], axis))

    def clip(self, x, a_min=None, a_max=None):
        return self._t(x).clip(a_min, a_max)

    def isscalar(self, x):
        return isinstance(x, (int, float))

    def result_type(self, *values):
        for v in values:
            if _is_tensor(v) and dtypes.is_float(v.dtype):
                return v.dtype
        return dtypes.default_float

    def einsum(self, spec, *operands):
        return Tensor.einsum(spec, *operands)

    def trace(self, x):
        x = self._t(x)
        return x.diagonal().sum()

    def diagonal(self, x):
        return self._t(x).diagonal()

    def astype(self, x, dtype):
        return self._t(x).cast(dtype)

    def sign(self, x):
        return self._t(x).sign()

    def log(self, x):
        return self._t(x).log()

    def exp(self, x):
        return self._t(x).exp()

    def sqrt(self, x):
        return self._t(x).sqrt()

    def abs(self, x):
        return self._t(x).abs()

    def square(self, x):
        return self._t(x).square()

    def log1p(self, x):
        return (self._t(x) + 1.0).log()

    def logaddexp(self, a, b):
        a, b = self._t(a, b), self._t(b, a)
        m = a.maximum(b)
        return m + ((a - m).exp() + (b - m).exp()).log()

    def arctan2(self, a, b):
        return self._t(a, b).atan2(self._t(b, a))

    def isinf(self, x):
        return self._t(x).isinf()

    def isnan(self, x):
        return self._t(x).isnan()

    def pad(self, x, pad_width, mode="constant", constant_values=0.0):
        x = self._t(x)
        return x.pad(tuple(tuple(p) for p in pad_width), value=constant_values)


# ------------------------------------------ what tensors need beyond the generic helpers

def init_grad(x):
    return Tensor.zeros(_shape(x), dtype=_float_dtype(x), device=_device(x))


def _check_float(like):
    """A gradient of an integer (or bool) tensor is refused: such a tensor is an
    argument under `wrt` (nothing active is integer otherwise)."""
    if _is_tensor(like) and not dtypes.is_float(like.dtype):
        from tangent._errors import _integer_tensor_error
        raise _integer_tensor_error(like.dtype, _shape(like), "x.float(), x.double()")


def _scatter(value, x, index):
    """`value` placed at `x[index]` in a zero tensor shaped like `x`, repeated elements
    of an index tensor adding up: the transpose of indexing, as tinygrad's derivative of
    `__getitem__` gives it (lazy, and exact for every index tinygrad accepts)."""
    return _transpose(lambda p: p[index], value, x)


def add_grad_at(g, x, index, value):
    """`g` (a fresh zero gradient of `x` if None) plus `value` at `x[index]`."""
    placed = _scatter(value, x, index)
    return placed if g is None else g + placed


def copy(x):
    return x.clone()


def log(x):
    return x.log()


def sign(x):
    return x.sign()


def _immutable(x):
    return False


def _transpose_method(g, dims):
    """tinygrad's `x.transpose(dim0=1, dim1=0)` swaps two dims (by default the first
    two, also for `x.T`): its gradient and tangent swap them back."""
    if len(dims) == 0:
        dims = (1, 0)
    if len(dims) != 2:
        raise TypeError("tangent: Tensor.transpose takes two dims (dim0, dim1), got %r"
                        % (dims,))
    return g.transpose(dims[0], dims[1])


def _default_ddof(x):
    return 1  # Tensor.var/std: the unbiased estimate unless `correction` says otherwise


def _default_axis(x, method):
    return 0  # Tensor.cumsum(axis=0)


def _canonical_device(x):
    """A tensor's device by its canonical name; a tensor made from a Python number has
    none of its own (None) and computes on the default device."""
    from tinygrad import Device
    return Device.canonicalize(x.device)


def _check_output(y, seed, name):
    """grad's output check for tinygrad tensors: the shapes (as for every array type),
    and a tensor seed of the output's floating dtype and on its device."""
    if type(seed) is float and _is_tensor(y) and y.ndim == 0:
        return
    from tangent._errors import _at_call_site, check_output_by_shape
    if _is_tensor(y) and _is_tensor(seed):
        if _canonical_device(seed) != _canonical_device(y):
            raise ValueError(_at_call_site(
                "grad: the seed is on device %s but `%s` returned a tensor on %s"
                % (seed.device, name, y.device),
                "pass the seed on the output's device (seed.to(%r))" % (y.device,)))
        if (seed.dtype != y.dtype and dtypes.is_float(seed.dtype)
                and dtypes.is_float(y.dtype)):
            raise TypeError(_at_call_site(
                "grad: the seed is a %s tensor but `%s` returned a %s tensor"
                % (seed.dtype.name, name, y.dtype.name),
                "pass the seed in the output's dtype (seed.cast(y.dtype)), or leave it "
                "out for the default 1.0"))
    check_output_by_shape(y, seed, name)


# ------------------------------------------------------ helpers of the tinygrad rules

def _placeholder(x):
    """A tensor shaped like `x` in its floating dtype, unique (never shared with another
    node of the graph, as hash-consed constants and detached views are): the input of a
    linear op whose transpose tinygrad's derivative gives. Never realised: the transpose
    of a linear map does not read it."""
    return Tensor.empty(*_shape(x), dtype=_float_dtype(x), device=_device(x))


def _transpose(op, g, like):
    """The transpose of the linear map `op` (a function of one tensor shaped like
    `like`) applied to `g`: tinygrad's derivative of <op(p), g> at a placeholder p."""
    p = _placeholder(like)
    y = op(p)
    g = _as_grad(g, y)
    if _shape(g) != _shape(y):
        g = g.expand(_shape(y))
    return (y * g).sum().gradient(p)[0]


def _zero_or(t, like):
    return init_grad(like) if _is_zero(t) else H.broadcast_like(t, like)


def tinygrad_condition(cond):
    """The condition of tinygrad's `cond.where(x, y)`; refuses another library's
    `x.where(...)` (torch's reads `x.where(condition, y)`: the value first)."""
    if not _is_tensor(cond):
        from tangent._errors import _at_call_site
        raise TypeError(_at_call_site(
            "tangent: `.where(x, y)` of a %s: tangent's rule is tinygrad's "
            "`condition.where(x, y)`" % type(cond).__name__,
            "write the library's where function (torch.where(condition, x, y))"))
    return cond


def tinygrad_cast_like(g, like):
    """A gradient (or tangent) in the floating dtype of `like`."""
    if not _is_tensor(g):
        return g
    dt = _float_dtype(like)
    return g if g.dtype == dt else g.cast(dt)


def tinygrad_gelu_tanh_slope(x):
    """d/dx of tinygrad's gelu (the tanh form) 0.5 x (1 + tanh(c (x + 0.044715 x^3)))."""
    c = 0.7978845608028654
    t = (c * (x + 0.044715 * x * x * x)).tanh()
    return 0.5 * (1.0 + t) + 0.5 * x * (1.0 - t * t) * c * (1.0 + 3 * 0.044715 * x * x)


def tinygrad_gelu_tanh_curvature(x):
    c = 0.7978845608028654
    t = (c * (x + 0.044715 * x * x * x)).tanh()
    du = c * (1.0 + 3 * 0.044715 * x * x)
    ddu = c * 6 * 0.044715 * x
    return (1.0 - t * t) * (du - x * t * du * du + 0.5 * x * ddu)


def tinygrad_mish_slope(x):
    """d/dx of x tanh(softplus(x))."""
    t = x.softplus().tanh()
    return t + x * (1.0 - t * t) * x.sigmoid()


def tinygrad_mish_curvature(x):
    t = x.softplus().tanh()
    s = x.sigmoid()
    return (1.0 - t * t) * s * (2.0 - 2.0 * x * t * s + x * (1.0 - s))


def _axes_of(x, axis):
    return tuple(a % len(_shape(x)) for a in ((axis,) if isinstance(axis, int) else axis))


def tinygrad_channel(v, x, axis):
    """A per-channel tensor `v` (the sizes of x along `axis`) shaped to broadcast
    against x; a number stays a number."""
    if _is_zero(v) or not _is_tensor(v):
        return v
    axes = _axes_of(x, axis)
    if v.ndim != len(axes):
        return v  # already broadcastable (batchnorm's invstd may be)
    return v.reshape(tuple(s if i in axes else 1 for i, s in enumerate(_shape(x))))


def tinygrad_unchannel(g, x, axis):
    """`g` (shaped like x) summed over every axis but `axis`: the gradient of a
    per-channel tensor."""
    axes = _axes_of(x, axis)
    other = tuple(i for i in range(len(_shape(x))) if i not in axes)
    g = _as_grad(g, x)
    if _shape(g) != _shape(x):
        g = g.expand(_shape(x))
    return g.sum(axis=other) if other else g


def _loss_mask(Y, ignore_index):
    if ignore_index is None or ignore_index == -1:
        return None  # tinygrad masks nothing with the default ignore_index=-1
    return Y != ignore_index


def tinygrad_loss_weight(g, Y, ignore_index, reduction):
    """d loss / d (unreduced loss) of tinygrad's losses: `g` spread back over the
    unreduced values (shaped like Y), masked where Y == ignore_index, divided by the
    count for reduction="mean"; with an ignore_index (a class loss) it gets a trailing
    axis to multiply the class scores."""
    mask = _loss_mask(Y, ignore_index)
    shape = _shape(Y)
    dt = _float_dtype(g if _is_tensor(g) else Y)
    if reduction == "none":
        w = _as_grad(g, Y).cast(dt) if _is_tensor(g) else _full(shape, g, Y)
    else:
        w = _full(shape, 1.0, g) * g if _is_tensor(g) else _full(shape, g, Y)
    if mask is not None:
        w = w * mask.cast(w.dtype)
    if reduction == "mean":
        w = w / (mask.cast(w.dtype).sum() if mask is not None else float(max(1, _numel(shape))))
    elif reduction not in ("sum", "none"):
        raise ValueError("reduction=%r must be one of 'none', 'sum', 'mean'" % (reduction,))
    return w.unsqueeze(-1) if ignore_index is not None else w


def tinygrad_loss_reduce(v, Y, ignore_index, reduction):
    """The tangent of a reduced loss from the tangents `v` of its unreduced values."""
    mask = _loss_mask(Y, ignore_index)
    if mask is not None:
        v = v * mask.cast(v.dtype)
    if reduction == "none":
        return v
    if reduction == "sum":
        return v.sum()
    if reduction == "mean":
        if mask is not None:
            return v.sum() / mask.cast(v.dtype).sum()
        return v.mean()
    raise ValueError("reduction=%r must be one of 'none', 'sum', 'mean'" % (reduction,))


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def tinygrad_sparse_target(logits, Y, label_smoothing):
    """(1 - s) one_hot(Y) + s / C in the logits' dtype: what softmax is pulled to."""
    c = _shape(logits)[-1]
    one_hot = (Y.unsqueeze(-1) == Tensor.arange(c)).cast(_float_dtype(logits))
    return (1.0 - label_smoothing) * one_hot + label_smoothing / c


def tinygrad_binary_target(Y, pos_weight):
    return Y if pos_weight is None else pos_weight * Y


def tinygrad_pos_weight(pos_weight):
    return 1.0 if pos_weight is None else pos_weight


def tinygrad_pad_grad(g, x, padding, mode="constant"):
    return _transpose(lambda p: p.pad(padding, mode=mode), g, x)


def tinygrad_pad_tangent(t, x, padding, mode="constant"):
    return _zero_or(t, x).pad(padding, mode=mode)


def tinygrad_shrink_grad(g, x, arg):
    """Zeros outside the kept window: the padding that undoes `x.shrink(arg)`."""
    pads = tuple((0, 0) if a is None else (a[0], s - a[1]) for a, s in zip(arg, _shape(x)))
    return _as_grad(g, x).pad(pads)


def tinygrad_shrink_tangent(t, arg):
    return t.shrink(arg)


def tinygrad_flip(g, axis):
    """`x.flip(axis, *args)`'s gradient and tangent (the same flip)."""
    return g.flip(*axis) if len(axis) != 1 else g.flip(axis[0])


def tinygrad_repeat_interleave_grad(g, x, repeats, dim=None):
    return _transpose(lambda p: p.repeat_interleave(repeats, dim), g, x)


def tinygrad_repeat_interleave(t, x, repeats, dim=None):
    return _zero_or(t, x).repeat_interleave(repeats, dim)


def tinygrad_gather_grad(g, x, dim, index):
    """Scatter-add of `g` into x's shape along `dim` (repeated indices add up)."""
    return _transpose(lambda p: p.gather(dim, index), g, x)


def tinygrad_gather(t, x, dim, index):
    return _zero_or(t, x).gather(dim, index)


def _pieces(first, rest):
    return [first] + list(rest)


def tinygrad_cat_grad(g, first, rest, dim, which):
    """The slices of cat's gradient along `dim`: the first tensor's (which=0) or the
    list of the others' (which=1)."""
    sizes = [p.shape[dim] for p in _pieces(first, rest)]
    parts = list(_as_grad(g, first).split(sizes, dim))
    return parts[0] if which == 0 else parts[1:]


def tinygrad_cat(t, first, ts, rest, dim):
    ts = [t] + list(ts) if isinstance(ts, (list, tuple)) else [t] + [0.0] * len(rest)
    parts = [_zero_or(u, x) for u, x in zip(ts, _pieces(first, rest))]
    return parts[0].cat(*parts[1:], dim=dim)


def tinygrad_stack_grad(g, first, rest, dim, which):
    n = 1 + len(rest)
    parts = [p.squeeze(dim) for p in _as_grad(g, first).split(1, dim)] if n else []
    return parts[0] if which == 0 else parts[1:]


def tinygrad_stack(t, first, ts, rest, dim):
    ts = [t] + list(ts) if isinstance(ts, (list, tuple)) else [t] + [0.0] * len(rest)
    parts = [_zero_or(u, x) for u, x in zip(ts, _pieces(first, rest))]
    return parts[0].stack(*parts[1:], dim=dim)


def tinygrad_scale(a, b):
    """a * b, where a None (batchnorm without a weight) scales by nothing."""
    if a is None:
        return b
    if _is_zero(a) or _is_zero(b):
        return 0.0
    return a * b


def tinygrad_linear(x, w):
    """`x.linear(w)` without bias: x @ w, or x * w for a 1-D weight; 0.0 for a zero
    tangent operand (forward mode)."""
    if _is_zero(x) or _is_zero(w):
        return 0.0
    return x * w if w.ndim == 1 else x.matmul(w)


def tinygrad_linear_grad(g, x, w, which):
    """The gradient of `x.linear(w)`'s input (which=0) or weight (which=1)."""
    if w.ndim == 1:
        return H.unbroadcast(g * (w if which == 0 else x), x if which == 0 else w)
    return H.matmul_grad(g, x, w, which)


def _through_other(grad, g, tx, tw, x, w, which):
    """The tangent of a bilinear op's gradient `grad(g, x, w, which)` through its other
    operand: the input's gradient (which=0) is linear in w, the weight's in x."""
    if which == 0:
        return 0.0 if _is_zero(tw) else grad(g, x, tw, 0)
    return 0.0 if _is_zero(tx) else grad(g, tx, w, 1)


def tinygrad_linear_grad_other(g, tx, tw, x, w, which):
    return _through_other(tinygrad_linear_grad, g, tx, tw, x, w, which)


def _conv2d(x, w, groups, stride, dilation, padding):
    return x.conv2d(w, None, groups, stride, dilation, padding)


def tinygrad_conv2d(x, w, groups=1, stride=1, dilation=1, padding=0):
    """conv2d without bias, 0.0 when either operand is a zero tangent (forward mode)."""
    if _is_zero(x) or _is_zero(w):
        return 0.0
    return _conv2d(x, w, groups, stride, dilation, padding)


def tinygrad_conv2d_grad(g, x, w, groups, stride, dilation, padding, which):
    """The gradient of conv2d's input (which=0: a function of g and w) or of its weight
    (which=1: of g and x), as tinygrad transposes the convolution."""
    if which == 0:
        return _transpose(lambda p: _conv2d(p, w, groups, stride, dilation, padding), g, x)
    return _transpose(lambda p: _conv2d(x, p, groups, stride, dilation, padding), g, w)


def tinygrad_conv2d_grad_other(g, tx, tw, x, w, groups, stride, dilation, padding, which):
    return _through_other(
        lambda g_, x_, w_, k: tinygrad_conv2d_grad(g_, x_, w_, groups, stride, dilation,
                                                   padding, k), g, tx, tw, x, w, which)


def _check_pool(op, flag):
    """max_pool2d(return_indices=True) is refused, naming the argument."""
    if op == "max_pool2d" and flag:
        from tangent._errors import _at_call_site
        raise NotDifferentiated(_at_call_site(
            "tangent: max_pool2d(return_indices=True) has no derivative rule (the argument "
            "`return_indices`)",
            "take the indices from a second call without differentiating it"))


def _pool(x, op, kernel_size, stride, dilation, padding, ceil_mode, flag):
    if op == "max_pool2d":
        return x.max_pool2d(kernel_size, stride, dilation, padding, ceil_mode)
    return x.avg_pool2d(kernel_size, stride, dilation, padding, ceil_mode, flag)


def tinygrad_pool_grad(g, x, op, kernel_size, stride, dilation, padding, ceil_mode, flag):
    """The gradient of max_pool2d (shared equally among equal maxima of a window, as
    tinygrad does) or avg_pool2d, as tinygrad transposes the pool at x."""
    _check_pool(op, flag)
    if op == "avg_pool2d":
        return _transpose(lambda p: _pool(p, op, kernel_size, stride, dilation, padding,
                                          ceil_mode, flag), g, x)
    p = x.clone()  # a node of its own: the derivative is taken at x's values
    y = _pool(p, op, kernel_size, stride, dilation, padding, ceil_mode, flag)
    g = _as_grad(g, y)
    if _shape(g) != _shape(y):
        g = g.expand(_shape(y))
    return (y * g).sum().gradient(p)[0]


def tinygrad_pool_tangent(t, x, op, kernel_size, stride, dilation, padding, ceil_mode, flag):
    """The tangent of a pool at x along t: avg_pool2d of t; for max_pool2d the transpose
    of its gradient (linear in the seed), applied to t."""
    _check_pool(op, flag)
    if _is_zero(t):
        t = init_grad(x)
    if op == "avg_pool2d":
        return _pool(H.broadcast_like(t, x), op, kernel_size, stride, dilation, padding,
                     ceil_mode, flag)
    y_shape = _shape(_pool(x, op, kernel_size, stride, dilation, padding, ceil_mode, flag))
    u = Tensor.empty(*y_shape, dtype=_float_dtype(x), device=_device(x))
    grad = tinygrad_pool_grad(u, x, op, kernel_size, stride, dilation, padding, ceil_mode,
                              flag)
    return (grad * H.broadcast_like(t, x)).sum().gradient(u)[0]


# ------------------------------------------------------------ compile='tinygrad'

def _signature(args, kwargs, name):
    """What a TinyJit capture is valid for: each tensor argument's shape, dtype and
    device, and the value of every other argument (TinyJit bakes non-tensor arguments
    into its capture: a changed seed 2.0 would silently keep the first one's gradient).
    An argument that cannot be compared so is refused."""
    def key(v, where):
        if _is_tensor(v):
            return ("tensor", _shape(v), v.dtype, v.device)
        if v is None or isinstance(v, (bool, int, float, str)):
            return (type(v).__name__, v)
        if isinstance(v, (tuple, list)):
            return (type(v).__name__,) + tuple(key(e, where) for e in v)
        from tangent._errors import TangentError, _at_call_site
        raise TangentError(_at_call_site(
            "compile='tinygrad': the argument %s of `%s` is a %s; TinyJit replays a "
            "captured graph for tensors and fixed numbers only" % (where, name,
                                                                   type(v).__name__),
            "pass tensors and numbers, or use compile='python'"))
    return (tuple(key(v, "#%d" % i) for i, v in enumerate(args)),
            tuple((k, key(v, "`%s`" % k)) for k, v in sorted(kwargs.items())))


def _jit_inputs(args):
    """Each tensor argument once, as a realised buffer of its own: TinyJit refuses the
    same tensor twice and a constant (virtual) tensor."""
    seen, out = set(), []
    for v in args:
        if _is_tensor(v):
            if id(v) in seen or not v.uop.is_realized:
                v = v.contiguous().realize() if id(v) not in seen else v.clone().realize()
            seen.add(id(v))
        out.append(v)
    return out


def _flat_results(out, name):
    """(the result tensors in order, a function rebuilding the result's structure from
    tensors in that order). A result that is not tensors (a Python number) cannot come
    out of TinyJit: a TangentError naming compile='python'."""
    if _is_tensor(out):
        return [out], lambda ts: ts[0]
    if isinstance(out, (tuple, list)) and out and all(_is_tensor(v) for v in out):
        kind = type(out)
        return list(out), lambda ts: kind(ts)
    from tangent._errors import TangentError, _at_call_site
    raise TangentError(_at_call_site(
        "compile='tinygrad': the derivative of `%s` returned a %s; TinyJit replays "
        "computations whose results are tensors" % (name, type(out).__name__),
        "pass the arguments as tensors, or use compile='python'"))


def _fresh(shape, dtype, device):
    """An allocated buffer (as `Tensor.from_blob` makes one), for a replay to fill. Made
    from its buffer node directly where tinygrad has `UOp.new_buffer` (`Tensor.empty`
    costs twice as much, a visible share of a replay)."""
    from tinygrad.uop.ops import UOp
    if hasattr(UOp, "new_buffer"):
        t = Tensor(UOp.new_buffer(device, _numel(shape), dtype).reshape(tuple(shape)))
    else:
        t = Tensor.empty(*shape, dtype=dtype, device=device)
    t.uop.buffer.allocate()
    return t


def _writing_into(fn, count, name):
    """fn writing its results into the `count` buffers given as its first arguments:
    TinyJit writes every replay's results into the buffers of its capture, so each call
    is handed fresh ones (a gradient kept from one call, or a lazy computation reading
    it, is never changed by the next) and nothing is copied after the replay."""
    def write(*args, **kwargs):
        results, _ = _flat_results(fn(*args[count:], **kwargs), name)
        return [o.assign(r) for o, r in zip(args[:count], results)]
    return write


def compiled(fn, func):
    """compile='tinygrad': the derivative under TinyJit, one capture per argument
    signature (`_signature`), so a changed shape, dtype or number gets its own capture
    instead of a replay of another's. A signature's first call runs the derivative as
    it is and learns its results' shapes; later calls run it under TinyJit (which runs
    it once more, then captures its kernels, then replays them), writing into fresh
    result buffers (`_writing_into`). A derivative that reads tensor data in Python
    (`.item()`, `.numpy()`: a data-dependent branch) cannot be replayed and is a
    TangentError naming compile='python'. The readable source stays on the wrapper's
    `__tangent_source__`."""
    load()
    from tinygrad import TinyJit
    from tinygrad.engine.jit import JitError
    from tangent._errors import TangentError, _at_call_site
    jits = {}
    name = getattr(func, "__name__", "?")

    def tinygrad_compiled(*args, **kwargs):
        key = _signature(args, kwargs, name)
        inputs = _jit_inputs(args)
        entry = jits.get(key)
        if entry is None:
            out = fn(*inputs, **kwargs)
            results, rebuild = _flat_results(out, name)
            Tensor.realize(*results)
            spec = [(_shape(r), r.dtype, r.device) for r in results]
            jits[key] = (TinyJit(_writing_into(fn, len(spec), name)), spec, rebuild)
            return out
        jit, spec, rebuild = entry
        outs = [_fresh(*s) for s in spec]
        try:
            jit(*outs, *inputs, **kwargs)
        except JitError as e:
            raise TangentError(_at_call_site(
                "compile='tinygrad': TinyJit cannot replay the derivative of `%s`: %s"
                % (name, str(e).strip().splitlines()[0] if str(e).strip() else ""),
                "use compile='python' (the same derivative, not compiled): a derivative "
                "that reads tensor data in Python (a branch on `.item()`) is not one "
                "graph")) from None
        return rebuild(outs)

    from tangent._build import _as_compiled
    return _as_compiled(tinygrad_compiled, fn, "tinygrad")


# ------------------------------------------------------------------ registration

def _register():
    H.register(
        (Tensor,), init_grad=init_grad, add_grad_at=add_grad_at, copy=copy, log=log,
        sign=sign, immutable=_immutable, transpose_method=_transpose_method,
        default_ddof=_default_ddof, check_output=_check_output,
        repeat_method=_grads_shape.tile_method, default_axis=_default_axis)
