"""The TensorFlow 2 runtime: the primitives the generic helpers compute with
(tangent._library_helpers) and what tensors need beyond them, a NumPy-shaped
namespace over TensorFlow for the rules written once for every array type (operators,
`tangent._grads_*`), the helpers of backends/tensorflow.py
(`tangent.tensorflow_*`) and `compile='tensorflow'`.

Installed with the other shims but inert until `load()`, which imports tensorflow and
registers `tf.Tensor` (eager tensors, and the symbolic tensors of a `tf.function`
trace) and `tf.Variable`: `tangent._registry` calls it when it first meets a value of a
type from tensorflow's modules, `tangent.__getattr__` when generated code calls a
`tangent.tensorflow_*` helper. `import tangent` never imports tensorflow (its import
takes seconds).

TensorFlow never casts implicitly: a float32 tensor times a float64 one, or times a bool
mask, is an error. So every helper builds its constants and masks in the floating dtype
of the value they belong to (a Python number such as the seed 1.0 takes it too), and
never converts a tensor to NumPy or to a Python number, so the same code traces inside
`tf.function`. Tensors are immutable: gradients written at an index are new tensors.
Conventions as in the tangent._grads_* modules: `g` is a gradient shaped like the result,
`t` a tangent shaped like the argument; the tangent of an inactive argument is 0.0.
"""
from tangent import _library_helpers
from tangent._errors import NotDifferentiated

tf = None
np = None  # the TfNumpy namespace, once loaded
H = None  # the generic helpers over this module's primitives (tangent._library_helpers)


def loaded():
    return tf is not None


def load():
    """Imports tensorflow; returns this module (its `tensorflow_*` helpers)."""
    global tf, np, H
    import sys
    if tf is None:
        import tensorflow as tf_
        tf = tf_
        np = TfNumpy()
        H = _library_helpers.Helpers(sys.modules[__name__], np)
        _register()
    return sys.modules[__name__]


def _is_tensor(x):
    return isinstance(x, (tf.Tensor, tf.Variable))


def _is_zero(t):
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _float_dtype(x):
    """The dtype of a gradient of `x`: its own when floating, else float32 (TF's
    default float, which `tf.constant(1.0)` takes)."""
    dt = getattr(x, "dtype", None)
    if isinstance(dt, tf.dtypes.DType) and (dt.is_floating or dt.is_complex):
        return dt
    return tf.float32


def _as_grad(g, like):
    """`g` as a tensor in the floating dtype of `like` (a Python number, the seed 1.0 or
    a literal, takes it; so float32 stays float32)."""
    if _is_tensor(g):
        return g
    return tf.constant(g, dtype=_float_dtype(like))


def _shape(x):
    return tuple(x.shape) if _is_tensor(x) else ()


def _static_shape(x, what):
    shape = _shape(x)
    if any(n is None for n in shape):
        raise TypeError(
            "tangent: %s of a tensor of unknown shape %s: TensorFlow's shape must be "
            "known when the derivative is traced (give tf.function an input_signature "
            "with full shapes, or call it eagerly)" % (what, shape))
    return shape


def _t(x, like=None):
    if _is_tensor(x):
        return x
    return tf.constant(x, dtype=_float_dtype(like) if like is not None else None)


def _full(shape, v, like):
    return tf.fill(shape, tf.constant(v, dtype=_float_dtype(like)))


def _sum_axes(g, axes, keepdims):
    return tf.reduce_sum(g, axis=list(axes), keepdims=keepdims)


def _reshape(g, shape):
    return tf.reshape(g, shape)


def _broadcast_to(g, shape):
    return tf.broadcast_to(g, shape)


def _equal_mask(a, b, like):
    return tf.cast(tf.equal(a, b), _float_dtype(like))


def _matmul_nt(a, b):
    return tf.matmul(a, b, transpose_b=True)


def _matmul_tn(a, b):
    return tf.matmul(a, b, transpose_a=True)


def _axis(axis):
    """NumPy's `axis` (None, an int, a tuple) as TensorFlow takes it."""
    if axis is None or isinstance(axis, int):
        return axis
    return list(axis)


# ----------------------------------------------- NumPy's API over TensorFlow

class TfNumpy:
    """The array namespace of TensorFlow tensors for the rules written once for every
    array type: NumPy's function names and parameters (`axis`, `keepdims`, `transpose`
    reversing the axes) computed with TensorFlow; anything else is `tf.math`'s or
    `tf`'s function of that name."""

    __name__ = "tangent.tensorflow_numpy"

    def __getattr__(self, name):
        fn = getattr(tf.math, name, None)
        return fn if fn is not None else getattr(tf, name)

    ndarray = property(lambda self: tf.Tensor)
    inf = float("inf")
    pi = 3.141592653589793

    def shape(self, x):
        return _shape(x) if _is_tensor(x) else tuple(tf.constant(x).shape)

    def ndim(self, x):
        return len(self.shape(x))

    def size(self, x):
        n = 1
        for d in self.shape(x):
            n *= d
        return n

    def asarray(self, x, dtype=None):
        if isinstance(x, (list, tuple)) and any(_is_tensor(v) for v in x):
            return tf.stack([self.asarray(v) for v in x])
        return tf.convert_to_tensor(x, dtype=dtype)

    array = asarray

    def _reduce(self, fn, x, axis, keepdims):
        x = _t(x)
        if isinstance(axis, (list, tuple)) and len(axis) == 0:
            return x
        return fn(x, axis=_axis(axis), keepdims=bool(keepdims))

    def sum(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce(tf.reduce_sum, x, axis, keepdims)

    def mean(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce(tf.reduce_mean, x, axis, keepdims)

    def max(self, x, axis=None, out=None, keepdims=False):
        return self._reduce(tf.reduce_max, x, axis, keepdims)

    def min(self, x, axis=None, out=None, keepdims=False):
        return self._reduce(tf.reduce_min, x, axis, keepdims)

    def prod(self, x, axis=None, dtype=None, out=None, keepdims=False):
        return self._reduce(tf.reduce_prod, x, axis, keepdims)

    amax, amin = max, min

    def reshape(self, x, shape, order="C"):
        if isinstance(shape, int):
            shape = (shape,)
        return tf.reshape(_t(x), tuple(shape))

    def transpose(self, x, axes=None):
        return tf.transpose(_t(x), None if axes is None else list(axes))

    def swapaxes(self, x, a, b):
        x = _t(x)
        perm = list(range(len(x.shape)))
        perm[a], perm[b] = perm[b], perm[a]
        return tf.transpose(x, perm)

    def moveaxis(self, x, source, destination):
        x = _t(x)
        n = len(x.shape)
        perm = [i for i in range(n) if i != source % n]
        perm.insert(destination % n, source % n)
        return tf.transpose(x, perm)

    def expand_dims(self, x, axis):
        return tf.expand_dims(_t(x), axis)

    def squeeze(self, x, axis=None):
        return tf.squeeze(_t(x), axis)

    def matmul(self, a, b):
        a, b = _t(a, b), _t(b, a)
        if len(a.shape) == 1 and len(b.shape) == 1:
            return tf.reduce_sum(a * b)
        if len(a.shape) == 1:
            return tf.squeeze(tf.matmul(a[None, :], b), -2)
        if len(b.shape) == 1:
            return tf.squeeze(tf.matmul(a, b[:, None]), -1)
        return tf.matmul(a, b)

    def dot(self, a, b):
        a, b = _t(a, b), _t(b, a)
        if len(a.shape) == 0 or len(b.shape) == 0:
            return a * b
        return self.matmul(a, b)

    def outer(self, a, b):
        return tf.tensordot(tf.reshape(_t(a, b), [-1]), tf.reshape(_t(b, a), [-1]), axes=0)

    def where(self, c, x, y):
        like = x if _is_tensor(x) else y
        return tf.where(_t(c), _t(x, like), _t(y, like))

    def broadcast_to(self, x, shape):
        return tf.broadcast_to(_t(x), tuple(shape))

    def concatenate(self, arrays, axis=0):
        return tf.concat(list(arrays), axis)

    def stack(self, arrays, axis=0):
        return tf.stack(list(arrays), axis)

    def cumsum(self, x, axis=None, dtype=None, out=None):
        x = _t(x)
        if axis is None:
            return tf.cumsum(tf.reshape(x, [-1]), 0)
        return tf.cumsum(x, axis)

    def flip(self, x, axis=None):
        x = _t(x)
        if axis is None:
            axis = tuple(range(len(x.shape)))
        return tf.reverse(x, [axis] if isinstance(axis, int) else list(axis))

    def copy(self, x):
        return tf.identity(_t(x))

    def _two(self, fn, a, b):
        return fn(_t(a, b), _t(b, a))

    def maximum(self, a, b):
        return self._two(tf.maximum, a, b)

    def minimum(self, a, b):
        return self._two(tf.minimum, a, b)

    def power(self, a, b):
        return self._two(tf.pow, a, b)

    def add(self, a, b):
        return self._two(tf.add, a, b)

    def multiply(self, a, b):
        return self._two(tf.multiply, a, b)

    def divide(self, a, b):
        return self._two(tf.divide, a, b)

    true_divide = divide

    def subtract(self, a, b):
        return self._two(tf.subtract, a, b)

    def zeros(self, shape, dtype=None):
        return tf.zeros(shape, dtype=dtype or tf.float32)

    def ones(self, shape, dtype=None):
        return tf.ones(shape, dtype=dtype or tf.float32)

    def eye(self, n, m=None, k=0, dtype=None):
        dtype = dtype or tf.float32
        if k == 0:
            return tf.eye(n, m, dtype=dtype)
        m = n if m is None else m
        rows = tf.range(n)[:, None]
        cols = tf.range(m)[None, :]
        return tf.cast(tf.equal(cols - rows, k), dtype)

    def arange(self, start, stop=None, step=1, dtype=None):
        if stop is None:
            start, stop = 0, start
        return tf.range(start, stop, step, dtype=dtype)

    def ravel(self, x):
        return tf.reshape(_t(x), [-1])

    def split(self, x, indices_or_sections, axis=0):
        """NumPy's split: at the given indices (tf.split takes sizes), or into equal
        sections."""
        x = _t(x)
        if isinstance(indices_or_sections, int):
            return tf.split(x, indices_or_sections, axis)
        n = _shape(x)[axis]
        bounds = [0] + list(indices_or_sections) + [n]
        return tf.split(x, [b - a for a, b in zip(bounds[:-1], bounds[1:])], axis)

    def zeros_like(self, x, dtype=None):
        return tf.zeros_like(x, dtype=dtype)

    def ones_like(self, x, dtype=None):
        return tf.ones_like(x, dtype=dtype)

    def clip(self, x, a_min=None, a_max=None):
        x = _t(x)
        if a_min is not None:
            x = tf.maximum(x, _t(a_min, x))
        if a_max is not None:
            x = tf.minimum(x, _t(a_max, x))
        return x

    def isscalar(self, x):
        return isinstance(x, (int, float))

    def result_type(self, *values):
        for v in values:
            if _is_tensor(v):
                return v.dtype
        return tf.float32

    def einsum(self, spec, *operands):
        return tf.einsum(spec, *operands)

    def trace(self, x):
        return tf.linalg.trace(x)

    def astype(self, x, dtype):
        return tf.cast(x, dtype)

    def sign(self, x):
        return tf.sign(x)

    def abs(self, x):
        return tf.abs(x)

    def sqrt(self, x):
        return tf.sqrt(x)

    def exp(self, x):
        return tf.exp(x)

    def log(self, x):
        return tf.math.log(x)


# ------------------------------------------ what tensors need beyond the generic helpers

def init_grad(x):
    return tf.zeros(_static_shape(x, "a zero gradient"), dtype=_float_dtype(x))


def _flat_index(shape, index):
    """The flat positions `x[index]` reads, in the shape of the result."""
    n = 1
    for d in shape:
        n *= d
    return tf.reshape(tf.range(n), shape)[index]


def add_grad_at(g, x, index, value):
    """`g` (a fresh zero gradient of `x` if None) plus `value` at `x[index]`, as a new
    tensor; an element selected twice receives both shares."""
    shape = _static_shape(x, "the gradient of an indexed read")
    g = init_grad(x) if g is None else _as_grad(g, x)
    idx = _flat_index(shape, index)
    value = tf.broadcast_to(tf.cast(_as_grad(value, g), g.dtype), tf.shape(idx))
    flat = tf.tensor_scatter_nd_add(tf.reshape(g, [-1]), tf.reshape(idx, [-1, 1]),
                                    tf.reshape(value, [-1]))
    return tf.reshape(flat, shape)


def zero_grad_at(g, index):
    shape = _static_shape(g, "a gradient written at an index")
    idx = _flat_index(shape, index)
    flat = tf.tensor_scatter_nd_update(tf.reshape(g, [-1]), tf.reshape(idx, [-1, 1]),
                                       tf.zeros(tf.size(idx), dtype=g.dtype))
    return tf.reshape(flat, shape)


def set_tangent_at(t, x, index, v):
    shape = _static_shape(x, "a tangent written at an index")
    if _is_zero(t) or not _is_tensor(t) or _shape(t) != shape:
        t = init_grad(x)
    idx = _flat_index(shape, index)
    v = tf.broadcast_to(tf.cast(_as_grad(v, t), t.dtype), tf.shape(idx))
    flat = tf.tensor_scatter_nd_update(tf.reshape(t, [-1]), tf.reshape(idx, [-1, 1]),
                                       tf.reshape(v, [-1]))
    return tf.reshape(flat, shape)


def _check_float(like):
    """A gradient of an integer (or bool) tensor is refused: such a tensor is an
    argument under `wrt` (nothing active is integer otherwise)."""
    dt = getattr(like, "dtype", None)
    if isinstance(dt, tf.dtypes.DType) and not (dt.is_floating or dt.is_complex):
        from tangent._errors import _integer_tensor_error
        raise _integer_tensor_error(dt.name, _shape(like), "tf.cast(x, tf.float32)")


def copy(x):
    return x  # immutable


def log(x):
    return tf.math.log(x)


def sign(x):
    return tf.sign(x)


def _immutable(x):
    return True


def _check_output(y, seed, name):
    """grad's output check for tensors: the shapes (as for every array type), and a
    tensor seed of the output's dtype (TensorFlow would not cast it; a Python number
    seed is converted to the output's dtype)."""
    if type(seed) is float and _is_tensor(y) and len(y.shape) == 0:
        return
    from tangent._errors import _at_call_site, check_output_by_shape
    if _is_tensor(y) and _is_tensor(seed) and seed.dtype != y.dtype:
        raise TypeError(_at_call_site(
            "grad: the seed is a %s tensor but `%s` returned a %s tensor"
            % (seed.dtype.name, name, y.dtype.name),
            "pass the seed in the output's dtype (tf.constant(1.0, dtype=y.dtype), or "
            "tf.cast(seed, %s)), or leave it out for the default 1.0"
            % ("tf." + y.dtype.name)))
    check_output_by_shape(y, seed, name)


def tensorflow_check_arguments(names, *values):
    """The entry check of a derivative in a program using TensorFlow (`names`: the
    parameters, comma-separated): outside a `tf.function` every tensor argument must be
    an eager tensor. A graph tensor (from a `tf.function` trace, a Keras functional
    model's symbolic input) has no value here; TensorFlow's own error would not name
    the argument."""
    if not tf.executing_eagerly():
        return  # inside tf.function: graph tensors are what it traces
    for v, n in zip(values, names.split(", ")):
        if isinstance(v, tf.Tensor) and not hasattr(v, "numpy"):
            from tangent._errors import _at_call_site
            raise TypeError(_at_call_site(
                "tangent: the argument `%s` is a graph tensor (%s), which has no value "
                "outside the tf.function that made it" % (n, v.name),
                "call the derivative inside that tf.function (or pass it an eager "
                "tensor, tf.constant(...))"))


# ------------------------------------------------- helpers of the tensorflow rules

def tensorflow_axis(axis):
    """A TensorFlow `axis` argument (None, an int, a list, a tuple) as NumPy's."""
    if axis is None or isinstance(axis, int):
        return axis
    if _is_tensor(axis):
        raise TypeError("tangent: a tensor `axis` is not supported; pass a Python int "
                        "or a tuple of ints")
    return tuple(axis)


def tensorflow_unreduce(g, x, axis, keepdims):
    """The gradient of a reduction over `axis` (TensorFlow's spelling) broadcast back
    to the shape of `x`."""
    return H.unreduce(g, x, tensorflow_axis(axis), keepdims)


def tensorflow_count(x, axis):
    return H.reduced_count(x, tensorflow_axis(axis))


def tensorflow_sum(t, axis=None, keepdims=False):
    return tf.reduce_sum(t, axis=_axis(tensorflow_axis(axis)), keepdims=keepdims)


def tensorflow_mask(c, like):
    """A bool tensor as 0.0/1.0 in the floating dtype of `like` (TensorFlow multiplies
    no bool by a float)."""
    return tf.cast(c, _float_dtype(like))


def tensorflow_where_grad(g, c, first):
    """The gradient of tf.where's `x` (first) or `y` branch: `g` where the condition
    selects it, zero elsewhere."""
    g = tf.convert_to_tensor(g)
    zero = tf.zeros_like(g)
    c = tf.broadcast_to(c, tf.shape(g)) if tuple(c.shape) != tuple(g.shape) else c
    return tf.where(c, g, zero) if first else tf.where(c, zero, g)


def tensorflow_clip_mask(x, lo, hi, which):
    """The share of tf.clip_by_value(x, lo, hi)'s gradient that goes to x (0), lo (1)
    or hi (2): x inside the bounds, the bound where it clips."""
    x = tf.convert_to_tensor(x)
    lo, hi = _t(lo, x), _t(hi, x)
    if which == 0:
        return tensorflow_mask(tf.logical_and(x >= lo, x <= hi), x)
    if which == 1:
        return tensorflow_mask(x < lo, x)
    return tensorflow_mask(x > hi, x)


def tensorflow_perm_inverse(perm, a):
    """The inverse of tf.transpose's `perm` for the tensor `a` (None: the axes
    reversed)."""
    if perm is None:
        return list(reversed(range(len(_t(a).shape))))
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p % len(perm)] = i
    return inv


def tensorflow_split_like(g, values, axis):
    """The gradient of tf.concat(values, axis): `g` split back into the pieces."""
    sizes = [v.shape[axis] if _is_tensor(v) else 1 for v in values]
    return list(tf.split(g, sizes, axis=axis))


def tensorflow_unstack(g, values, axis):
    return list(tf.unstack(g, num=len(values), axis=axis))


def tensorflow_tangents_like(ts, values):
    """The tangents of a list of tensors, each a tensor of its value's shape (an
    inactive one is 0.0)."""
    ts = ts if isinstance(ts, (list, tuple)) else [ts] * len(values)
    return [H.broadcast_like(_as_grad(t, v), v) if _is_zero(t) or not _is_tensor(t) else t
            for t, v in zip(ts, values)]


def tensorflow_gather_grad(g, params, indices, axis, batch_dims=0):
    """The gradient of tf.gather(params, indices, axis): `g`'s slices added back at
    their indices (repeated indices receive each share)."""
    if batch_dims:
        raise NotDifferentiated(
            "tangent: tf.gather is differentiated with batch_dims=0 only, got "
            "batch_dims=%r" % (batch_dims,))
    shape = _static_shape(params, "the gradient of tf.gather")
    axis = 0 if axis is None else axis % len(shape)
    indices = tf.convert_to_tensor(indices)
    moved = [axis] + [i for i in range(len(shape)) if i != axis]
    gi = len(indices.shape)
    # g has shape params[:axis] + indices.shape + params[axis+1:]; bring the index
    # dimensions to the front, flatten them, scatter into params' axis.
    g = tf.convert_to_tensor(g)
    order = list(range(axis, axis + gi)) + list(range(axis)) + \
        list(range(axis + gi, len(g.shape)))
    g = tf.reshape(tf.transpose(g, order), [-1] + [shape[i] for i in moved[1:]])
    base = tf.zeros([shape[i] for i in moved], dtype=g.dtype)
    out = tf.tensor_scatter_nd_add(base, tf.reshape(indices, [-1, 1]), g)
    return tf.transpose(out, tensorflow_perm_inverse(moved, out))


def tensorflow_float_attr(v):
    """A Python number as TensorFlow stores a `float` op attribute (float32), so a rule
    uses the value the op computed with (tf.nn.leaky_relu's alpha)."""
    import struct
    if isinstance(v, (int, float)):
        return struct.unpack("f", struct.pack("f", v))[0]
    return v


def tensorflow_last(axis):
    """tf.nn.softmax's `axis`: None is the last axis."""
    return -1 if axis is None else axis


def tensorflow_op(x, transpose):
    """`x` with its last two axes swapped when `transpose` (tf.matmul's op)."""
    return tf.linalg.matrix_transpose(x) if transpose else x


def tensorflow_tile_grad(g, x, multiples):
    """The gradient of tf.tile(x, multiples): the tiles of `g` summed."""
    shape = _static_shape(x, "the gradient of tf.tile")
    split = []
    for m, n in zip(multiples, shape):
        split += [int(m), n]
    g = tf.reshape(g, split)
    return tf.reduce_sum(g, axis=list(range(0, 2 * len(shape), 2)))


def tensorflow_cast_like(g, like):
    """`g` in the floating dtype of `like` (the gradient of a cast between floats)."""
    _check_float(like)
    return tf.cast(_as_grad(g, like), _float_dtype(like))


def tensorflow_eye_like(x):
    """The identity matrices of `x`'s shape and dtype (batched as `x`)."""
    shape = _static_shape(x, "the gradient of tf.linalg.trace")
    return tf.eye(shape[-2], shape[-1], batch_shape=list(shape[:-2]), dtype=_float_dtype(x))


def _bias_axis(data_format, ndim):
    return 1 if data_format is not None and data_format.startswith("NC") else ndim - 1


def tensorflow_bias_grad(g, bias, data_format):
    """The gradient of tf.nn.bias_add's bias: `g` summed over every axis but the
    channels'."""
    g = tf.convert_to_tensor(g)
    ch = _bias_axis(data_format, len(g.shape))
    return tf.reduce_sum(g, axis=[i for i in range(len(g.shape)) if i != ch])


def tensorflow_bias_like(b, like, data_format):
    """A bias (or its tangent) broadcast along the channel axis of `like`."""
    like = tf.convert_to_tensor(like)
    n = len(like.shape)
    ch = _bias_axis(data_format, n)
    shape = [1] * n
    shape[ch] = -1
    return tf.broadcast_to(tf.reshape(_as_grad(b, like), shape), tf.shape(like))


def tensorflow_cholesky_tangent(t, ell):
    """The tangent of L = cholesky(A) along `t`: L Phi(L^-1 t L^-T), Phi the lower
    triangle with the diagonal halved."""
    t = tensorflow_symmetric(t)
    m = tf.linalg.triangular_solve(ell, t, lower=True)
    m = tf.linalg.matrix_transpose(
        tf.linalg.triangular_solve(ell, tf.linalg.matrix_transpose(m), lower=True))
    phi = tf.linalg.band_part(m, -1, 0) - 0.5 * tf.linalg.diag(tf.linalg.diag_part(m))
    return tf.matmul(ell, phi)


def tensorflow_gelu_curvature(x, approximate):
    """d^2 gelu(x) / dx^2 (second order of gelu's rule)."""
    if approximate:
        c, a = 0.7978845608028654, 0.044715
        u1 = c * (1.0 + 3.0 * a * x * x)
        th = tf.tanh(c * (x + a * x * x * x))
        return (1.0 - th * th) * (u1 - x * th * u1 * u1 + 3.0 * a * c * x * x)
    return 0.3989422804014327 * tf.exp(-0.5 * x * x) * (2.0 - x * x)


def _window(v, data_format, what):
    """tf.nn's strides/ksize/dilations (an int, or a list of 1, 2 or 4) as the 4-list
    of the raw ops, in `data_format`'s axis order."""
    if v is None:
        v = 1
    if isinstance(v, int):
        v = [v, v]
    v = [int(n) for n in v]
    if len(v) == 1:
        v = v * 2
    if len(v) == 2:
        return [1, 1] + v if data_format.startswith("NC") else [1] + v + [1]
    if len(v) == 4:
        return v
    raise ValueError("tangent: %s must be an int or a list of 1, 2 or 4 ints, got %r"
                     % (what, v))


def _no_dilation(dilations, data_format):
    d = _window(dilations, data_format, "dilations")
    if any(n != 1 for n in d):
        raise NotDifferentiated(
            "tangent: tf.nn.conv2d is differentiated with dilations=1 only, got "
            "dilations=%r (TensorFlow's CPU backprop kernels have no dilation)"
            % (dilations,))
    return d


def _conv_padding(padding):
    """(padding, explicit_paddings) of the raw conv ops."""
    if isinstance(padding, str):
        return padding, []
    return "EXPLICIT", [int(n) for pair in padding for n in pair]


def tensorflow_conv2d_input_grad(g, filters, like, strides, padding, data_format,
                                 dilations):
    """The gradient of tf.nn.conv2d with respect to its input (shaped like `like`)."""
    data_format = data_format or "NHWC"
    pad, explicit = _conv_padding(padding)
    return tf.raw_ops.Conv2DBackpropInput(
        input_sizes=tf.shape(like), filter=filters, out_backprop=g,
        strides=_window(strides, data_format, "strides"), padding=pad,
        explicit_paddings=explicit, data_format=data_format,
        dilations=_no_dilation(dilations, data_format))


def tensorflow_conv2d_filter_grad(x, g, like, strides, padding, data_format, dilations):
    """The gradient of tf.nn.conv2d with respect to its filters (shaped like `like`)."""
    data_format = data_format or "NHWC"
    pad, explicit = _conv_padding(padding)
    return tf.raw_ops.Conv2DBackpropFilter(
        input=x, filter_sizes=tf.shape(like), out_backprop=g,
        strides=_window(strides, data_format, "strides"), padding=pad,
        explicit_paddings=explicit, data_format=data_format,
        dilations=_no_dilation(dilations, data_format))


def _pool_padding(padding, name):
    if not isinstance(padding, str):
        raise NotDifferentiated(
            "tangent: tf.nn.%s is differentiated with padding 'SAME' or 'VALID', got %r"
            % (name, padding))
    return padding


def _pool_windows(x, ksize, strides, data_format, name):
    """ksize and strides as the raw ops' 4-lists: TensorFlow's pooling gradients pool
    a 4-D input over its spatial dimensions only."""
    if len(x.shape) != 4:
        raise NotDifferentiated(
            "tangent: tf.nn.%s is differentiated for a 4-D input (2-D pooling), got a "
            "%d-D one" % (name, len(x.shape)))
    k = _window(ksize, data_format, "ksize")
    s = _window(strides, data_format, "strides")
    spatial = (2, 3) if data_format.startswith("NC") else (1, 2)
    if any(v[i] != 1 for v in (k, s) for i in range(4) if i not in spatial):
        raise NotDifferentiated(
            "tangent: tf.nn.%s is differentiated when it pools over height and width "
            "only, got ksize=%r, strides=%r (TensorFlow's pooling gradients do not "
            "pool over the batch or depth dimension)" % (name, ksize, strides))
    return k, s


def tensorflow_max_pool_grad(g, x, y, ksize, strides, padding, data_format):
    """The gradient of tf.nn.max_pool2d: each window's gradient to its maximum."""
    data_format = data_format or "NHWC"
    k, st = _pool_windows(x, ksize, strides, data_format, "max_pool")
    return tf.raw_ops.MaxPoolGrad(
        orig_input=x, orig_output=y, grad=g, ksize=k, strides=st,
        padding=_pool_padding(padding, "max_pool"), data_format=data_format)


def tensorflow_max_pool_tangent(t, x, y, ksize, strides, padding, data_format):
    """The tangent of tf.nn.max_pool2d: each window's maximum element's tangent."""
    data_format = data_format or "NHWC"
    k, st = _pool_windows(x, ksize, strides, data_format, "max_pool")
    return tf.raw_ops.MaxPoolGradGrad(
        orig_input=x, orig_output=y, grad=t, ksize=k, strides=st,
        padding=_pool_padding(padding, "max_pool"), data_format=data_format)


def tensorflow_avg_pool_grad(g, x, ksize, strides, padding, data_format):
    """The gradient of tf.nn.avg_pool2d: each window's gradient shared by its elements."""
    data_format = data_format or "NHWC"
    k, st = _pool_windows(x, ksize, strides, data_format, "avg_pool")
    return tf.raw_ops.AvgPoolGrad(
        orig_input_shape=tf.shape(x), grad=g, ksize=k, strides=st,
        padding=_pool_padding(padding, "avg_pool"), data_format=data_format)


def tensorflow_gelu_slope(x, approximate):
    """d gelu(x) / dx: Phi(x) + x phi(x), or that of the tanh approximation."""
    if approximate:
        c = 0.7978845608028654
        u = c * (x + 0.044715 * x * x * x)
        th = tf.tanh(u)
        return 0.5 * (1.0 + th) + 0.5 * x * (1.0 - th * th) * c * (1.0 + 0.134145 * x * x)
    return 0.5 * (1.0 + tf.math.erf(x * 0.7071067811865476)) + \
        x * 0.3989422804014327 * tf.exp(-0.5 * x * x)


def tensorflow_labels_mask(labels, like):
    """Integer class labels as a one-hot float tensor shaped like the logits."""
    return tf.one_hot(labels, like.shape[-1], dtype=_float_dtype(like))


def tensorflow_symmetric(m):
    """The symmetric part of `m` over its last two axes (for cholesky's gradient,
    which reads one triangle)."""
    return 0.5 * (m + tf.linalg.matrix_transpose(m))


def tensorflow_cholesky_grad(g, ell):
    """The gradient of A = L L^T with respect to A (symmetric), given the gradient
    `g` of L: Phi(L^T g) with Phi taking the lower triangle with the diagonal halved,
    then S = L^-T Phi L^-1, symmetrised."""
    p = tf.matmul(ell, g, transpose_a=True)
    p = tf.linalg.band_part(p, -1, 0) - 0.5 * tf.linalg.diag(tf.linalg.diag_part(p))
    s = tf.linalg.triangular_solve(ell, p, lower=True, adjoint=True)
    s = tf.linalg.matrix_transpose(
        tf.linalg.triangular_solve(ell, tf.linalg.matrix_transpose(s), lower=True,
                                   adjoint=True))
    return tensorflow_symmetric(s)


def tensorflow_norm_check(ord, axis, keepdims):
    """tf.norm's keepdims as a bool, after refusing the orders other than the Euclidean
    (Frobenius) one: ord=2 over two axes is the spectral norm, which is not built."""
    two_axes = isinstance(axis, (list, tuple)) and len(axis) == 2
    if not (ord in ("euclidean", "fro") or (ord in (2, 2.0) and not two_axes)):
        raise NotDifferentiated(
            "tangent: tf.norm is differentiated for ord='euclidean' (the default) and "
            "'fro' only, got ord=%r%s; write the norm with tf.reduce_sum and tf.abs"
            % (ord, " over two axes" if two_axes else ""))
    return bool(keepdims)


# ------------------------------------------------------------ compile='tensorflow'

_XLA = {}


def _xla_available():
    """Does XLA compile here (`tf.function(jit_compile=True)` of a small function)?"""
    if "ok" not in _XLA:
        try:
            probe = tf.function(lambda x: tf.tanh(x) * 2.0, jit_compile=True)
            probe(tf.constant([1.0]))
            _XLA["ok"] = True
        except Exception as e:  # XLA absent or broken: tf.function without it
            _XLA["ok"] = False
            _XLA["why"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
    return _XLA["ok"]


def compiled(fn, func):
    """compile='tensorflow': the derivative `fn` wrapped in `tf.function` (with
    jit_compile=True when XLA compiles here; autograph off, so the derivative's Python
    control flow is what runs at trace time), traced on first call for each input
    signature. A primal TensorFlow cannot trace (a Python `if` on a tensor, `.numpy()`)
    is a TangentError at the user's line with TensorFlow's reason."""
    load()
    from tangent._errors import TangentError, _at_call_site
    jit = _xla_available()
    traced = tf.function(fn, jit_compile=jit, autograph=False, reduce_retracing=True)

    def tf_compiled(*args, **kwargs):
        try:
            return traced(*args, **kwargs)
        except TangentError:
            raise
        except Exception as e:
            if not _is_trace_error(e):
                raise
            error = e
        raise TangentError(_untraceable(func, args, error)) from None

    from tangent._build import _as_compiled
    _as_compiled(tf_compiled, fn, "tensorflow")
    tf_compiled.__tangent_xla__ = jit
    return tf_compiled


def _is_trace_error(e):
    name = type(e).__name__
    text = str(e)
    return name in ("OperatorNotAllowedInGraphError", "InaccessibleTensorError") or any(
        s in text for s in ("symbolic tf.Tensor", "not allowed in Graph execution",
                            "has no attribute 'numpy'", "Graph execution"))


def _untraceable(func, args, error):
    """The message of a primal tf.function cannot trace: TensorFlow's reason, at the
    user's line (found by tracing the primal itself when the failing statement is its
    copy inside the generated code)."""
    from tangent._errors import _user_frame
    from tangent._errors import _located
    reason = str(error).strip().splitlines()[0] if str(error).strip() else ""
    code = func.__code__
    filename = code.co_filename
    line = _user_frame(error.__traceback__, filename)
    if line is None:
        try:
            tf.function(func, autograph=False)(*args[:code.co_argcount])
        except Exception as e:  # the primal's own trace error names the user's line
            if _is_trace_error(e):
                line = _user_frame(e.__traceback__, filename)
                reason = str(e).strip().splitlines()[0] if str(e).strip() else reason
    message = ("compile='tensorflow': `%s` cannot be traced by tf.function: %s: %s"
               % (func.__name__, type(error).__name__, reason[:300]))
    hint = ("use tf.where / tf.cond instead of a Python `if` on a tensor, no .numpy() or "
            "float() of a tensor, or call with compile='python' (the same derivative, "
            "eager)")
    return _located(filename, line, message, hint)


# ------------------------------------------------------------------ registration

def _register():
    H.register(
        (tf.Tensor, tf.Variable), init_grad=init_grad, add_grad_at=add_grad_at,
        zero_grad_at=zero_grad_at, set_tangent_at=set_tangent_at, copy=copy, log=log,
        sign=sign, immutable=_immutable, check_output=_check_output)
