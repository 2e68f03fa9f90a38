"""The JAX runtime: JAX's implementations of the generic helpers and the helpers of
the jax rules (backends/jax.py; `jax_symmetrized` of linalg.py's jax.numpy.linalg
templates).

Installed with the other shims but inert until `load()`, which imports jax and
registers `jax.Array` and `jax.core.Tracer` (tracers are not subclasses of jax.Array)
with the registries: `tangent._registry` calls it when it first meets a value of a type
from jax's modules, and `tangent.__getattr__` when generated code calls a
`tangent.jax_*` helper, so `import tangent` never imports jax and works without it.

JAX arrays are immutable and, under `jax.jit`, tracers: everything here uses jax.numpy
and `.at[...]` updates, never NumPy, and never converts a value to a Python number.
Conventions as in the tangent._grads_* modules: `g` is a gradient shaped like the result, `t` a
tangent shaped like the argument; the tangent of an inactive argument is the literal 0.0.
"""
from tangent import _registry
from tangent._runtime import _axes, matmul_grad_in  # one normalisation of reduction axes

jax = None
jnp = None


def load():
    """Imports jax (and the submodules rule bodies call); returns this module."""
    global jax, jnp
    if jnp is None:
        import jax as jax_
        import jax.numpy as jnp_
        import jax.nn  # noqa: F401
        import jax.lax  # noqa: F401
        import jax.scipy.special  # noqa: F401
        jax, jnp = jax_, jnp_
        _register()
    import sys
    return sys.modules[__name__]


def _is_zero(t):
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _float_dtype(x):
    """The dtype of a gradient of `x`: its own when floating, else the default float."""
    dt = getattr(x, "dtype", None)
    if dt is not None and jnp.issubdtype(dt, jnp.inexact):
        return dt
    return jnp.result_type(float)


# ------------------------------------------------------ generic helpers (dispatch)

def init_grad(x):
    return jnp.zeros(jnp.shape(x), dtype=_float_dtype(x))


def add_grad_at(g, x, index, value):
    if g is None:
        g = init_grad(x)
    return jnp.asarray(g).at[index].add(value)


def zero_grad_at(g, index):
    return jnp.asarray(g).at[index].set(0.0)


def set_tangent_at(t, x, index, v):
    if t is None or _is_zero(t) or jnp.shape(t) != jnp.shape(x):
        t = init_grad(x)
    return jnp.asarray(t).at[index].set(v)


def unbroadcast(g, like):
    """Sums `g` over the axes along which `like` was broadcast (like may be a Python
    number: the sum is then a 0-d array, not a float, so it can be traced)."""
    shape = tuple(jnp.shape(like))
    g = jnp.asarray(g)
    if g.shape == shape:
        return g
    if g.ndim > len(shape):
        g = jnp.sum(g, axis=tuple(range(g.ndim - len(shape))))
    axes = tuple(i for i, n in enumerate(shape) if n == 1 and g.shape[i] != 1)
    if axes:
        g = jnp.sum(g, axis=axes, keepdims=True)
    if g.shape != shape:
        g = jnp.broadcast_to(g, shape)
    return g


def unreduce(g, x, axis, keepdims):
    shape = tuple(jnp.shape(x))
    g = jnp.asarray(g)
    if not keepdims:
        kept = list(shape)
        for a in _axes(axis, len(shape)):
            kept[a] = 1
        g = jnp.reshape(g, tuple(kept))
    return jnp.broadcast_to(g, shape)


def reduced_count(x, axis):
    shape = jnp.shape(x)
    n = 1
    for a in _axes(axis, len(shape)):
        n *= shape[a]
    return n


def extremum_grad(g, y, x, axis, keepdims):
    mask = (x == unreduce(y, x, axis, keepdims)) * 1.0
    count = jnp.sum(mask, axis=axis, keepdims=keepdims)
    return unreduce(g, x, axis, keepdims) * mask / unreduce(count, x, axis, keepdims)


def extremum_tangent(t, y, x, axis, keepdims):
    mask = (x == unreduce(y, x, axis, keepdims)) * 1.0
    count = jnp.sum(mask, axis=axis, keepdims=keepdims)
    return jnp.sum(t * mask, axis=axis, keepdims=keepdims) / count


def matmul_grad(g, a, b, which):
    return matmul_grad_in(jnp, unbroadcast, g, a, b, which)


def sum_grad(g, x):
    return jnp.broadcast_to(jnp.asarray(g, dtype=_float_dtype(x)), jnp.shape(x))


def broadcast_like(t, y):
    if jnp.shape(t) != jnp.shape(y):
        return jnp.broadcast_to(t, jnp.shape(y))
    return t


def array_grad(g, x):
    return g  # a JAX gradient may be a tracer: never converted to a float


def copy(x):
    return x  # immutable


def log(x):
    return jnp.log(x)


def sign(x):
    return jnp.sign(x)


# ------------------------------------------------------- helpers of the jax rules

def jax_reshape_as(g, x):
    """`g` reshaped like `x` (a list argument gets a list of gradients)."""
    if isinstance(x, (list, tuple)):
        g = jnp.reshape(g, jnp.shape(jnp.asarray(x)))
        return [jax_reshape_as(g[i], x[i]) for i in range(len(x))]
    return jnp.reshape(g, jnp.shape(x))


def jax_transpose_method_grad(g, axes):
    """Gradient of `x.transpose(*axes)`: `axes` is (), a tuple of axes or (tuple,)."""
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if len(axes) == 0 or axes[0] is None:
        return jnp.transpose(g)
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return jnp.transpose(g, tuple(inverse))


def jax_transpose_method_tangent(t, axes):
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if len(axes) == 0 or axes[0] is None:
        return jnp.transpose(t)
    return jnp.transpose(t, tuple(axes))


def _pieces(g, arrays, promoted_shapes, axis):
    from tangent._grads_shape import pieces_in
    return pieces_in(jnp, jax_reshape_as, g, arrays, promoted_shapes, axis)


def jax_concatenate_grad(g, arrays, axis=0):
    from tangent._grads_shape import concatenate_grad_in
    return concatenate_grad_in(jnp, jax_reshape_as, g, arrays, axis)


def jax_hstack_axis(arrays):
    return 0 if len(jnp.shape(jnp.atleast_1d(arrays[0]))) == 1 else 1


def jax_vstack_grad(g, arrays):
    return _pieces(g, arrays, [jnp.shape(jnp.atleast_2d(a)) for a in arrays], 0)


def jax_stack_grad(g, arrays, axis=0):
    gm = jnp.moveaxis(g, axis, 0)
    return [jax_reshape_as(gm[i], a) for i, a in enumerate(arrays)]


def _lanes(x, axis):
    """`x` with the reduced axes moved last and flattened into one: (rows, n), and the
    shape to move back."""
    x = jnp.asarray(x)
    axes = _axes(axis, x.ndim)
    rest = tuple(a for a in range(x.ndim) if a not in axes)
    moved = jnp.transpose(x, rest + axes)
    n = 1
    for a in axes:
        n *= x.shape[a]
    return jnp.reshape(moved, (-1, n)), moved.shape, rest + axes


def _unlanes(m, moved_shape, perm):
    inverse = [0] * len(perm)
    for i, a in enumerate(perm):
        inverse[a] = i
    return jnp.transpose(jnp.reshape(m, moved_shape), tuple(inverse))


def _prod_others(x, axis):
    """For each element, the product of the other elements of its reduction lane (exact
    with zeros: exclusive products from both ends)."""
    m, moved_shape, perm = _lanes(x, axis)
    ones = jnp.ones(m.shape[:1] + (1,), dtype=m.dtype)
    left = jnp.concatenate([ones, jnp.cumprod(m, axis=1)[:, :-1]], axis=1)
    right = jnp.flip(jnp.concatenate(
        [ones, jnp.cumprod(jnp.flip(m, axis=1), axis=1)[:, :-1]], axis=1), axis=1)
    return _unlanes(left * right, moved_shape, perm)


def jax_prod_grad(g, x, axis=None, keepdims=False):
    if jnp.ndim(x) == 0:
        return g
    return unreduce(g, x, axis, keepdims) * _prod_others(x, axis)


def jax_prod_tangent(t, x, axis=None, keepdims=False):
    if jnp.ndim(x) == 0:
        return t
    return jnp.sum(t * _prod_others(x, axis), axis=axis, keepdims=keepdims)


def jax_cumsum_grad(g, x, axis=None):
    if axis is None:
        flat = jnp.ravel(g)
        return jnp.reshape(jnp.flip(jnp.cumsum(jnp.flip(flat))), jnp.shape(x))
    return jnp.flip(jnp.cumsum(jnp.flip(g, axis), axis=axis), axis)


def jax_var_grad(g, x, axis=None, ddof=0, keepdims=False):
    centred = x - jnp.mean(x, axis=axis, keepdims=True)
    n = reduced_count(x, axis) - ddof
    return unreduce(g, x, axis, keepdims) * 2.0 * centred / n


def jax_var_tangent(t, x, axis=None, ddof=0, keepdims=False):
    centred = x - jnp.mean(x, axis=axis, keepdims=True)
    n = reduced_count(x, axis) - ddof
    return jnp.sum(2.0 * centred * t, axis=axis, keepdims=keepdims) / n


def jax_clip_mask(x, lo, hi, which):
    """Where the result of clip(x, lo, hi) comes from: x (which=0), lo (1), hi (2).
    clip is min(max(x, lo), hi), so hi wins where lo > hi."""
    inside = jnp.ones(jnp.shape(x), dtype=bool)
    below = jnp.zeros(jnp.shape(x), dtype=bool)
    above = jnp.zeros(jnp.shape(x), dtype=bool)
    if hi is not None:
        above = x > hi
        if lo is not None:
            above = above | (lo > hi)
    if lo is not None:
        below = (x < lo) & ~above
    inside = ~below & ~above
    return (inside, below, above)[which] * 1.0


def jax_tile_grad(g, x, reps):
    shape = tuple(jnp.shape(x))
    reps = (reps,) if isinstance(reps, int) else tuple(int(r) for r in reps)
    n = max(len(shape), len(reps))
    s = (1,) * (n - len(shape)) + shape
    r = (1,) * (n - len(reps)) + reps
    inter = []
    for ri, si in zip(r, s):
        inter.extend([ri, si])
    g = jnp.sum(jnp.reshape(g, tuple(inter)), axis=tuple(range(0, 2 * n, 2)))
    return jnp.reshape(g, shape)


def jax_trace_grad(g, x, offset=0, axis1=0, axis2=1):
    shape = jnp.shape(x)
    n, m = shape[axis1], shape[axis2]
    eye = jnp.eye(n, m, k=offset, dtype=_float_dtype(x))
    eshape = [1] * len(shape)
    eshape[axis1] = n
    eshape[axis2] = m
    rest = [a for a in range(len(shape)) if a not in (axis1 % len(shape), axis2 % len(shape))]
    gshape = [1] * len(shape)
    for k, a in enumerate(rest):
        gshape[a] = shape[a]
    return jnp.reshape(g, tuple(gshape)) * jnp.reshape(eye, tuple(eshape))


def jax_einsum_grad(g, subscripts, operands, i):
    from tangent._grads_matrix import einsum_grad_in
    return einsum_grad_in(jnp, jax_reshape_as, g, subscripts, operands, i)


def jax_einsum_tangent(subscripts, operands, *tangents):
    from tangent._grads_matrix import einsum_tangent_in
    return einsum_tangent_in(jnp, subscripts, operands, *tangents)


def jax_symmetrized(d, symmetrize_input, name):
    """`d`, a derivative of jax.numpy.linalg.<name> taken through its symmetrised input
    (the tangent._grads_linalg helpers symmetrise): refused for symmetrize_input=False,
    where jax reads one triangle of the input only."""
    if not symmetrize_input:
        raise NotImplementedError(
            "tangent: jax.numpy.linalg.%s is differentiated with symmetrize_input=True only"
            % name)
    return d


# ------------------------------------------------------------------ registration

def _register():
    for type_ in (jax.Array, jax.core.Tracer):
        _registry.register_namespace(type_, jnp)
        for kind, fn in (
                ("init_grad", init_grad), ("unbroadcast", unbroadcast),
                ("unreduce", unreduce), ("matmul_grad", matmul_grad),
                ("add_grad_at", add_grad_at), ("zero_grad_at", zero_grad_at),
                ("set_tangent_at", set_tangent_at), ("reduced_count", reduced_count),
                ("extremum_grad", extremum_grad), ("extremum_tangent", extremum_tangent),
                ("sum_grad", sum_grad), ("broadcast_like", broadcast_like),
                ("array_grad", array_grad), ("copy", copy), ("log", log),
                ("sign", sign), ("immutable", _immutable),
                ("reshape_as", jax_reshape_as), ("constant_dtype", _constant_dtype)):
            _registry.register_helper(kind, type_, fn)


def _immutable(x):
    return True


def _constant_dtype(like):
    """Constants built for a derivative of `like` take its floating dtype (float32 stays
    float32; a weakly typed constant would turn a float32 result into float64)."""
    return jnp.result_type(like, 1.0)
