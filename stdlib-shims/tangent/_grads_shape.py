"""Shape operations: reshape, concatenate and stack, split, tile, repeat, pad.

Conventions in tangent._grads_common. `reshape_as`, concatenate/stack and tile compute in
the arguments' array namespace (numpy and jax.numpy share them); split, repeat and pad
are NumPy's."""
from tangent import _registry
from tangent._grads_common import (  # noqa: F401
    _int_tuple, _is_zero, _numpy_only, _reshape_like, _tg, _xp, numpy)
from tangent._errors import NotDifferentiated

# --------------------------------------------------------------------- shape ops

def reshape_as(g, x):
    """`g` reshaped like `x`, in their array namespace: for NumPy a float for a Python
    number and a list of gradients for a (nested) list."""
    xp = _xp(g, x)
    return _reshape_like(xp)(g, x)


def cast_like(v, like):
    """`v` (a gradient or a tangent) in the type of `like`, the value it belongs to: an
    array of its float dtype (float32 stays float32, other dtypes float64), a NumPy float
    scalar of its type, or a Python float. The derivative of a dtype conversion
    (`astype`, `numpy.float32(x)`) is the identity carried across the conversion; from
    a complex value to a real one, its real part (the rules' convention for complex
    values: the derivative of the real part, and the adjoint of a real-to-complex
    conversion)."""
    if _registry._is_complex(like):
        if _registry.namespace_of(like) is not numpy:
            raise _registry.complex_refused("the derivative of a dtype conversion")
        if isinstance(like, complex):
            return complex(v)
        return numpy.asarray(v).astype(like.dtype)
    if _registry._is_complex(v):
        if _registry.namespace_of(v) is not numpy:
            raise _registry.complex_refused("the derivative of a dtype conversion")
        v = v.real
    if isinstance(like, numpy.ndarray):
        dtype = like.dtype if like.dtype in (numpy.float32, numpy.float64) else numpy.float64
        return numpy.asarray(v).astype(dtype)
    if _registry.is_array(like):
        return v.astype(like.dtype) if hasattr(v, "astype") else v
    if type(like) in (numpy.float32, numpy.float64):
        return type(like)(v)
    return float(v)


def _numpy_reshape_as(g, x):
    """NumPy's `reshape_as` (registered by tangent._numpy)."""
    return _tg().array_grad(numpy.reshape(g, numpy.shape(x)), x)


def _pieces(xp, g, arrays, promoted_shapes, axis):
    return pieces_in(xp, _reshape_like(xp), g, arrays, promoted_shapes, axis)


def pieces_in(xp, reshape_like, g, arrays, promoted_shapes, axis):
    """Splits `g` along `axis` into the pieces of a concatenation of arrays of the given
    (promoted) shapes, each reshaped like the original argument (array namespace `xp`
    and its `reshape_as`)."""
    bounds = []
    total = 0
    for s in promoted_shapes[:-1]:
        total += s[axis]
        bounds.append(total)
    parts = xp.split(g, bounds, axis) if bounds else [g]
    return [reshape_like(p, a) for p, a in zip(parts, arrays)]


def concatenate_grad(g, arrays, axis=0):
    xp = _xp(g, arrays)
    if axis is None:
        shapes = [(int(xp.size(a)),) for a in arrays]
        return _pieces(xp, xp.ravel(g), arrays, shapes, 0)
    return _pieces(xp, g, arrays, [tuple(xp.shape(a)) for a in arrays], axis)


def stack_grad(g, arrays, axis=0):
    xp = _xp(g, arrays)
    reshape_like = _reshape_like(xp)
    gm = xp.moveaxis(g, axis, 0)
    return [reshape_like(gm[i], a) for i, a in enumerate(arrays)]


def vstack_grad(g, arrays):
    xp = _xp(g, arrays)
    return _pieces(xp, g, arrays, [tuple(xp.shape(xp.atleast_2d(a))) for a in arrays], 0)


def hstack_grad(g, arrays):
    xp = _xp(g, arrays)
    shapes = [tuple(xp.shape(xp.atleast_1d(a))) for a in arrays]
    return _pieces(xp, g, arrays, shapes, 0 if len(shapes[0]) == 1 else 1)


def dstack_grad(g, arrays):
    xp = _xp(g, arrays)
    return _pieces(xp, g, arrays, [tuple(xp.shape(xp.atleast_3d(a))) for a in arrays], 2)


def column_stack_grad(g, arrays):
    xp = _xp(g, arrays)
    shapes = []
    for a in arrays:
        s = tuple(xp.shape(a))
        shapes.append((s[0], 1) if len(s) == 1 else s)
    return _pieces(xp, g, arrays, shapes, 1)


def _method_axes(axes):
    """The axes of `x.transpose(*axes)`: None (reverse them) or a tuple."""
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = () if axes[0] is None else tuple(axes[0])
    return tuple(axes) if len(axes) else None


def transpose_method_grad(g, axes):
    """Gradient of `x.transpose(*axes)` (the method's `axes` as a tuple). A library
    whose `transpose` method means something else (torch's swaps two dims) registers
    its own `transpose_method` (its gradient and tangent alike)."""
    xp = _xp(g)
    own = _registry.namespace_helper(xp, "transpose_method")
    if own is not None:
        return own(g, axes)
    axes = _method_axes(axes)
    if axes is None:
        return xp.transpose(g)
    return xp.transpose(g, _tg().inverse_permutation(axes))


def transpose_method_tangent(t, axes):
    xp = _xp(t)
    own = _registry.namespace_helper(xp, "transpose_method")
    if own is not None:
        return own(t, axes)
    axes = _method_axes(axes)
    if axes is None:
        return xp.transpose(t)
    return xp.transpose(t, axes)


def _permutation(dims):
    """A permutation given as one sequence or one by one (`x.permute(1, 0)`)."""
    if len(dims) == 1 and not isinstance(dims[0], int):
        return tuple(dims[0])
    return tuple(dims)


def permute_method_grad(g, dims):
    """Gradient of `x.permute(*dims)` (torch, tinygrad): the inverse permutation."""
    xp = _xp(g)
    return xp.transpose(g, _tg().inverse_permutation(_permutation(dims)))


def permute_method_tangent(t, dims):
    xp = _xp(t)
    return xp.transpose(t, _permutation(dims))


def _repeat_method(xp):
    """A library's own `x.repeat(*reps)` semantics (torch's and tinygrad's tile), else
    None: NumPy's `x.repeat(repeats, axis)`."""
    return _registry.namespace_helper(xp, "repeat_method")


def _numpy_repeat_args(repeats, axis):
    if len(repeats) == 2 and axis is None:
        return repeats[0], repeats[1]
    if len(repeats) != 1:
        raise TypeError("tangent: x.repeat(repeats, axis) takes one `repeats`, got %r"
                        % (repeats,))
    return repeats[0], axis


def repeat_method_grad(g, x, repeats, axis=None):
    """Gradient of the method `x.repeat(*repeats, axis=axis)`: NumPy's element repeat,
    or what the value's library registered as its `repeat_method` (a tile)."""
    xp = _xp(g, x)
    own = _repeat_method(xp)
    if own is not None:
        return own(g, x, repeats, True)
    r, ax = _numpy_repeat_args(repeats, axis)
    return repeat_grad(g, x, r, ax)


def repeat_method_tangent(t, x, repeats, axis=None):
    xp = _xp(t, x)
    own = _repeat_method(xp)
    if own is not None:
        return own(t, x, repeats, False)
    r, ax = _numpy_repeat_args(repeats, axis)
    return xp.repeat(t, r, ax)


def tile_method(g, x, repeats, transpose):
    """`x.repeat(*reps)` as torch and tinygrad mean it (a tile): its gradient
    (`transpose`) or its tangent. Registered by those libraries as `repeat_method`."""
    reps = _permutation(repeats)
    if transpose:
        return tile_grad(g, x, reps)
    return _xp(g, x).tile(g, reps)


def split_grad(g, x, axis=0):
    """Gradient of the pieces of `split(x, ..., axis)` (a list) with respect to `x`."""
    return numpy.concatenate([numpy.asarray(p) * 1.0 for p in g], axis)


def hsplit_axis(x):
    return 1 if numpy.ndim(x) > 1 else 0


def negate_shift(shift):
    if isinstance(shift, (int, float)):
        return -shift
    return tuple(-s for s in shift)


def tile_grad(g, x, reps):
    xp = _xp(g, x)
    shape = tuple(xp.shape(x))
    reps = _int_tuple(reps)
    n = max(len(shape), len(reps))
    s = (1,) * (n - len(shape)) + shape
    r = (1,) * (n - len(reps)) + reps
    inter = []
    for ri, si in zip(r, s):
        inter.extend([ri, si])
    g = xp.sum(xp.reshape(g, tuple(inter)), axis=tuple(range(0, 2 * n, 2)))
    return _reshape_like(xp)(g, x)


def repeat_grad(g, x, repeats, axis=None):
    _numpy_only("repeat", g, x)
    xa = numpy.asarray(x)
    base = numpy.ravel(xa) if axis is None else xa
    ax = 0 if axis is None else axis % base.ndim
    n = base.shape[ax]
    gm = numpy.moveaxis(g, ax, 0)
    rest = tuple(gm.shape[1:])
    if numpy.ndim(repeats) == 0 or numpy.size(repeats) == 1:
        r = int(numpy.ravel(numpy.asarray(repeats))[0])
        out = numpy.sum(numpy.reshape(gm, (n, r) + rest), axis=1)
    else:
        # segment sums as a 0/1 matrix product (exact, vectorised)
        seg = numpy.repeat(numpy.arange(n), repeats)
        m = (numpy.reshape(numpy.arange(n), (n, 1)) == numpy.reshape(seg, (1, seg.shape[0]))) * 1.0
        out = numpy.tensordot(m, gm, axes=1)
    out = numpy.moveaxis(out, 0, ax)
    return _numpy_reshape_as(numpy.reshape(out, base.shape), x)


def _pad_pairs(pad_width, ndim):
    if isinstance(pad_width, int):
        return [(pad_width, pad_width)] * ndim
    pw = list(pad_width)
    if all(isinstance(p, int) for p in pw):
        if len(pw) == 1:
            return [(pw[0], pw[0])] * ndim
        return [(pw[0], pw[1])] * ndim
    pairs = [(p, p) if isinstance(p, int) else (int(p[0]), int(p[-1])) for p in pw]
    if len(pairs) == 1:
        pairs = pairs * ndim
    return pairs


def pad_grad(g, x, pad_width, mode="constant"):
    xa = numpy.asarray(x)
    if mode == "constant":
        pairs = _pad_pairs(pad_width, xa.ndim)
        index = tuple(slice(b, g.shape[i] - a) for i, (b, a) in enumerate(pairs))
        return _numpy_reshape_as(g[index], x)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        # these modes gather elements of x: scatter g back through the index map
        n = xa.size
        src = numpy.ravel(numpy.pad(numpy.reshape(numpy.arange(n) * 1.0, xa.shape), pad_width, mode=mode))
        m = (numpy.reshape(numpy.arange(n) * 1.0, (n, 1)) == numpy.reshape(src, (1, src.shape[0]))) * 1.0
        return _numpy_reshape_as(numpy.dot(m, numpy.ravel(g)), x)
    raise NotDifferentiated("tangent: no reverse-mode derivative of numpy.pad with mode=%r" % (mode,))


def pad_constant_grad(g, x, pad_width):
    """Gradient with respect to a scalar `constant_values` of `pad`."""
    return float(numpy.sum(g) - numpy.sum(pad_grad(g, x, pad_width)))


def pad_tangent(t, tc, x, pad_width, mode="constant"):
    if _is_zero(t):
        t = numpy.zeros(numpy.shape(x))
    if mode == "constant":
        return numpy.pad(t, pad_width, mode="constant", constant_values=0.0 if _is_zero(tc) else tc)
    if mode in ("edge", "reflect", "symmetric", "wrap"):
        return numpy.pad(t, pad_width, mode=mode)
    raise NotDifferentiated("tangent: no forward-mode derivative of numpy.pad with mode=%r" % (mode,))




# ------------------------------------------- lax.scan's slices and stacked outputs
# The helpers of backends/jax.py's `jax.lax.scan` template: `xs` and the outputs are
# pytrees (None, an array or number, or tuples, lists and dicts of them), sliced and
# stacked leaf by leaf along the leading axis.

def _leaves_map(f, *trees):
    """`f` over corresponding leaves of trees of one structure (the first's)."""
    first = trees[0]
    if first is None:
        return None
    if isinstance(first, dict):
        return {k: _leaves_map(f, *(t[k] if isinstance(t, dict) else None for t in trees))
                for k in first}
    if isinstance(first, (tuple, list)):
        parts = [_leaves_map(f, *(t[i] if isinstance(t, (tuple, list)) else None
                                  for t in trees)) for i in range(len(first))]
        return type(first)(parts) if type(first) in (tuple, list) else type(first)(*parts)
    return f(*trees)


def _leaf_list(tree, out):
    if tree is None:
        return out
    if isinstance(tree, dict):
        for v in tree.values():
            _leaf_list(v, out)
    elif isinstance(tree, (tuple, list)):
        for v in tree:
            _leaf_list(v, out)
    else:
        out.append(tree)
    return out


def scan_order(xs, length, reverse):
    """The indices `lax.scan` visits: the leading axis of `xs` (or `length` steps),
    backwards for `reverse=True`."""
    leaves = _leaf_list(xs, [])
    sizes = {int(numpy.shape(v)[0]) for v in leaves if numpy.ndim(v) > 0}
    if any(numpy.ndim(v) == 0 for v in leaves):
        raise ValueError("lax.scan: every leaf of xs needs a leading axis")
    if len(sizes) > 1:
        raise ValueError("lax.scan: the leaves of xs have different leading sizes %s"
                         % sorted(sizes))
    if length is not None:
        if sizes and int(length) not in sizes:
            raise ValueError("lax.scan: length=%d does not match xs's leading size %d"
                             % (int(length), sizes.pop()))
        n = int(length)
    elif sizes:
        n = sizes.pop()
    else:
        raise ValueError("lax.scan: pass xs or length")
    return list(range(n - 1, -1, -1)) if reverse else list(range(n))


def scan_slice(xs, i):
    """`xs[i]` leaf by leaf (None for no xs)."""
    return _leaves_map(lambda v: v[i], xs)


def scan_slice_grad(g, xs, i):
    """The gradient of `xs` from that of `scan_slice(xs, i)`: zero but at `i`."""
    def leaf(v, gv):
        zero = _tg().init_grad(v)
        if gv is None or _is_zero(gv):
            return zero
        return _tg().add_grad_at(zero, v, i, gv)
    return _leaves_map(leaf, xs, g)


def _stack_leaf(values):
    xp = _registry.namespace_of(*values)
    return xp.stack([xp.asarray(v) for v in values])


def stack_leaves(ys, reverse):
    """The outputs of a scan's steps stacked along a new leading axis, leaf by leaf, in
    the order of xs (the steps of a reverse scan ran backwards); None when the steps
    returned None."""
    ys = list(reversed(ys)) if reverse else list(ys)
    if not ys or ys[0] is None:
        return None
    return _leaves_map(lambda *vs: _stack_leaf(vs), *ys)


def unstack_leaves(g, ys, reverse):
    """The gradient of each step's output from that of `stack_leaves(ys, reverse)`: a
    list in the steps' order."""
    n = len(ys)
    out = []
    for k in range(n):
        row = n - 1 - k if reverse else k
        if g is None or _is_zero(g):
            out.append(_tg().init_grad(ys[k]) if ys[k] is not None else None)
        else:
            out.append(_leaves_map(lambda y, gv: gv[row] if gv is not None
                                   else _tg().init_grad(y), ys[k], g))
    return out


def stack_leaves_tangent(ts, z, reverse):
    """The tangent of `z = stack_leaves(ys, reverse)` from the list `ts` of the steps'
    tangents (a zero, a number or None, for a step whose output is constant)."""
    if z is None:
        return None
    ts = list(reversed(ts)) if reverse else list(ts)

    def leaf(zl, *tl):
        rows = [t if t is not None and not _is_zero(t) else _tg().init_grad(zl[k])
                for k, t in enumerate(tl)]
        return _stack_leaf(rows)
    return _leaves_map(leaf, z, *[t if not _is_zero(t) else None for t in ts])
