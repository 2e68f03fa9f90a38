"""The JAX runtime: JAX's implementations of the generic helpers (the rule helpers
of tangent._grads_* serve numpy and jax.numpy alike) and `jax_symmetrized` of linalg.py's
jax.numpy.linalg templates.

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
from tangent._grads_common import _generic_reshape_as
from tangent._runtime import _axes, kept_shape, matmul_grad_in  # one normalisation of reduction axes
from tangent._errors import NotDifferentiated

jax = None
jnp = None


def loaded():
    return jnp is not None


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


def _as_grad(g, like):
    """`g` as a JAX array; a Python number (the seed 1.0, a literal) takes the floating
    dtype of `like`, so float32 stays float32."""
    if isinstance(g, (int, float)):
        return jnp.asarray(g, dtype=_float_dtype(like))
    return jnp.asarray(g)


def unbroadcast(g, like):
    """Sums `g` over the axes along which `like` was broadcast (like may be a Python
    number: the sum is then a 0-d array, not a float, so it can be traced)."""
    shape = tuple(jnp.shape(like))
    g = _as_grad(g, like)
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
    g = _as_grad(g, x)
    if not keepdims:
        kept = kept_shape(g, shape, _axes(axis, len(shape)))
        g = jnp.reshape(g, kept)
    return jnp.broadcast_to(g, shape)


def reduced_count(x, axis):
    shape = jnp.shape(x)
    n = 1
    for a in _axes(axis, len(shape)):
        n *= shape[a]
    return n


def extremum_grad(g, y, x, axis, keepdims):
    mask = (x == unreduce(y, x, axis, keepdims)).astype(_float_dtype(x))
    count = jnp.sum(mask, axis=axis, keepdims=keepdims)
    return unreduce(g, x, axis, keepdims) * mask / unreduce(count, x, axis, keepdims)


def extremum_tangent(t, y, x, axis, keepdims):
    mask = (x == unreduce(y, x, axis, keepdims)).astype(_float_dtype(x))
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
# The jax.numpy rules are numpy's (backends/jax.py `rules_like`): their helpers
# (tangent._grads_*) compute in the arguments' namespace. Only this one is JAX's:

def jax_symmetrized(d, symmetrize_input, name):
    """`d`, a derivative of jax.numpy.linalg.<name> taken through its symmetrised input
    (the tangent._grads_linalg helpers symmetrise): refused for symmetrize_input=False,
    where jax reads one triangle of the input only."""
    if not symmetrize_input:
        raise NotDifferentiated(
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
                ("reshape_as", _generic_reshape_as(jnp)),
                ("constant_dtype", _constant_dtype), ("check_output", _check_output),
                ("default_ddof", lambda x: 0),
                ("default_axis", lambda x, method: None)):
            _registry.register_helper(kind, type_, fn)


def _immutable(x):
    return True


def _check_output(y, seed, name):
    """grad's output check for arrays: the shapes (as for every array type), and an
    array seed of the output's floating dtype (jax.vjp refuses another one too;
    promoting would give gradients of another dtype than their arguments)."""
    from tangent._errors import _at_call_site, check_output_by_shape
    arrays = (jax.Array, jax.core.Tracer)
    if (isinstance(y, arrays) and isinstance(seed, arrays)
            and seed.dtype != y.dtype and jnp.issubdtype(seed.dtype, jnp.floating)
            and jnp.issubdtype(y.dtype, jnp.floating)):
        raise TypeError(_at_call_site(
            "grad: the seed is a %s array but `%s` returned a %s array"
            % (seed.dtype, name, y.dtype),
            "pass the seed in the output's dtype (seed.astype(y.dtype)), or leave it out "
            "for the default 1.0"))
    check_output_by_shape(y, seed, name)


def _constant_dtype(like):
    """Constants built for a derivative of `like` take its floating dtype (float32 stays
    float32; a weakly typed constant would turn a float32 result into float64)."""
    return jnp.result_type(like, 1.0)
