"""The JAX runtime: the primitives the generic helpers compute with
(tangent._library_helpers) and what JAX arrays need beyond them (the rule helpers of
tangent._grads_* serve numpy and jax.numpy alike), `compile='jax'` and
`jax_symmetrized` of linalg.py's jax.numpy.linalg templates.

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
from tangent import _library_helpers
from tangent._errors import NotDifferentiated, TangentError

jax = None
jnp = None
H = None  # the generic helpers over this module's primitives (tangent._library_helpers)


def loaded():
    return jnp is not None


def load():
    """Imports jax (and the submodules rule bodies call); returns this module."""
    global jax, jnp, H
    import sys
    if jnp is None:
        import jax as jax_
        import jax.numpy as jnp_
        import jax.nn  # noqa: F401
        import jax.lax  # noqa: F401
        import jax.scipy.special  # noqa: F401
        jax, jnp = jax_, jnp_
        H = _library_helpers.Helpers(sys.modules[__name__], jnp)
        _register()
    return sys.modules[__name__]


def _is_zero(t):
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _float_dtype(x):
    """The dtype of a gradient of `x`: its own when floating, else the default float."""
    dt = getattr(x, "dtype", None)
    if dt is not None and jnp.issubdtype(dt, jnp.inexact):
        return dt
    return jnp.result_type(float)


def _is_tensor(x):
    return isinstance(x, (jax.Array, jax.core.Tracer))  # tracers are not jax.Arrays


def _shape(x):
    return tuple(jnp.shape(x))


def _full(shape, v, like):
    return jnp.full(shape, v, dtype=_float_dtype(like))


def _sum_axes(g, axes, keepdims):
    return jnp.sum(g, axis=axes, keepdims=keepdims)


def _reshape(g, shape):
    return jnp.reshape(g, shape)


def _broadcast_to(g, shape):
    return jnp.broadcast_to(g, shape)


def _equal_mask(a, b, like):
    return (a == b).astype(_float_dtype(like))


def _check_float(like):
    pass  # an integer argument's gradient takes the default float dtype (_float_dtype)


def _matmul_nt(a, b):
    return jnp.matmul(a, jnp.swapaxes(b, -1, -2))


def _matmul_tn(a, b):
    return jnp.matmul(jnp.swapaxes(a, -1, -2), b)


# ------------------------------------------- what JAX arrays need beyond the generic helpers

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


# ------------------------------------------------------------------ compile='jax'

def compiled(fn, func):
    """compile='jax': `fn` wrapped in jax.jit. A primal that cannot be traced (Python
    control flow on a traced value, a conversion to a Python number or a NumPy array)
    raises TangentError with jax's reason and the user's line that triggered it."""
    load()
    # Python ints and bools (loop counts, flags) are static: jax.jit cannot trace a
    # `range(n)` over a traced n. One compiled function per set of static positions.
    jitted_by_static = {}

    def jitted(*args, **kwargs):
        static = tuple(i for i, a in enumerate(args) if isinstance(a, (bool, int)))
        f = jitted_by_static.get(static)
        if f is None:
            f = jitted_by_static[static] = jax.jit(fn, static_argnums=static)
        return f(*args, **kwargs)

    untraceable = tuple(getattr(jax.errors, n) for n in (
        "ConcretizationTypeError", "TracerArrayConversionError",
        "TracerIntegerConversionError", "TracerBoolConversionError")
        if hasattr(jax.errors, n))

    def traced(*args, **kwargs):
        try:
            return jitted(*args, **kwargs)
        except untraceable as e:
            error = e
        raise TangentError(_untraceable_message(untraceable, fn, func, args, kwargs,
                                                error)) from None

    from tangent._build import _as_compiled
    return _as_compiled(traced, fn, "jax")


def _untraceable_message(untraceable, fn, func, args, kwargs, error):
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
    from tangent._errors import _located, _user_frame
    code = func.__code__
    filename = code.co_filename
    line = _user_frame(error.__traceback__, filename)
    if line is None:
        # The failing statement is the primal's copy inside the generated code: trace the
        # primal itself (with the derivative's leading arguments) to find the user's line.
        nargs = code.co_argcount
        try:
            jax.make_jaxpr(func)(*args[:nargs])
        except untraceable as e:
            line = _user_frame(e.__traceback__, filename)
            text = str(e).strip()
            if text:
                reason = text.splitlines()[0]
        except Exception:  # the primal fails differently: keep the derivative's reason
            pass
    message = ("compile='jax': `%s` cannot be traced by jax.jit: %s: %s"
               % (func.__name__, type(error).__name__, reason))
    # tangent differentiates lax.cond / while_loop as a Python `if` / `while`, so they
    # cannot take a traced condition under jax.jit either.
    hint = ("use jax.numpy.where instead of an `if` (or lax.cond, lax.while_loop) on "
            "array values, keep shapes and loop counts static, or call with "
            "compile='python'")
    return _located(filename, line, message, hint)


# ------------------------------------------------------------------ registration

def _register():
    H.register(
        (jax.Array, jax.core.Tracer), init_grad=init_grad, add_grad_at=add_grad_at,
        zero_grad_at=zero_grad_at, set_tangent_at=set_tangent_at, copy=copy, log=log,
        sign=sign, immutable=_immutable, constant_dtype=_constant_dtype,
        check_output=_check_output, default_ddof=lambda x: 0,
        default_axis=lambda x, method: None)


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
