"""What the rule helpers (`tangent._grads_*`, re-exported by `tangent`: generated code
calls them as `tangent.<name>`) share.

Conventions: `g` is an incoming gradient (shaped like the result), `t` a tangent (shaped
like the argument). In forward rules the tangent of an inactive argument arrives as the
literal 0.0 (see `_is_zero`). The gradient of a list argument is a list of gradients.
Helpers that need tangent's generic helpers reach them through `_tg()` (the package, at
call time).

The helpers shared by numpy and jax.numpy compute in the array namespace of their
arguments (`_xp`: `tangent.namespace_of`, the registries), never convert a JAX value to a
float nor write in place, and build constants in the argument's float dtype (`_dtype`:
float32 stays float32, for NumPy as for JAX). Float32 in, float32 gradient out: helpers
that compute in float64 (NumPy-only ones, `numpy.asarray(x) * 1.0`) give their result in
the float32 input's dtype (`_like_dtype`); float64 results are unchanged.
"""
import sys as _sys

from tangent import _registry
from tangent._runtime import _axes  # noqa: F401 (the helpers' modules import it from here)
from tangent._errors import NotDifferentiated

try:
    import numpy
except ImportError:  # CPython without NumPy: `tangent` does not export these then
    numpy = None


def _tg():
    import tangent
    return tangent


def _is_array(x):
    return isinstance(x, numpy.ndarray)


def _is_zero(t):
    """The literal 0.0 the engine passes as the tangent of an inactive argument."""
    return t is None or (isinstance(t, (int, float)) and not isinstance(t, bool) and t == 0)


def _T(a):
    """Transpose of the last two axes (stacks of matrices; NumPy or JAX arrays)."""
    return _xp(a).swapaxes(a, -1, -2)


def _eye_like(a):
    xp = _xp(a)
    return xp.eye(xp.shape(a)[-1])


def _tril(n, k=0, xp=numpy, like=None):
    """1.0 on and below the k-th diagonal of an n x n matrix (array namespace `xp`), in
    the constant dtype of `like` when given (float32 stays float32)."""
    r = xp.arange(n)
    cond = xp.reshape(r, (n, 1)) - xp.reshape(r, (1, n)) >= -k
    dtype = None if like is None else _dtype(xp, like)
    if dtype is None:
        return cond * 1.0
    return xp.astype(cond, dtype) if hasattr(xp, "astype") else cond.astype(dtype)




def _int_tuple(v):
    if isinstance(v, int):
        return (v,)
    return tuple(int(x) for x in v)


# The array namespace of a helper's arguments, and what differs between namespaces
# (registered by each library's runtime module: tangent._numpy, tangent._jax).

def _xp(*values):
    """The array namespace of `values` (elements of tuples and lists among them
    included): `tangent.namespace_of`, numpy for numbers. A value of a type no library
    registered is a TypeError naming it. A complex value is refused: these helpers are
    written for real numbers (`_xp_complex` is for those written for both)."""
    for v in values:
        if type(v) not in _registry._REAL_ONLY and _registry._is_complex(v):
            raise _registry.complex_refused("tangent.%s" % _sys._getframe(1).f_code.co_name)
    return _registry.namespace_of(*values, operation="a derivative rule helper")


def _xp_complex(*values):
    """`_xp` for helpers right for complex values as well as real ones."""
    return _registry.namespace_of(*values, operation="a derivative rule helper")


def _numpy_only(what, *values):
    """Refuses a helper computed with NumPy itself for another library's arrays (it
    would convert them, or fail somewhere inside): an error naming the function."""
    for v in values:
        if _registry.is_array(v) and _registry.namespace_of(v) is not numpy:
            from tangent._errors import _at_call_site
            raise NotDifferentiated(_at_call_site(
                "tangent: the derivative of %s is written for NumPy arrays only, and got a "
                "%s" % (what, type(v).__qualname__),
                "compute it with functions that have rules for this library, or register "
                "a rule with @tangent.adjoint"))


def _generic_reshape_as(xp):
    def reshape_as(g, x):
        if isinstance(x, (list, tuple)):
            g = xp.reshape(g, xp.shape(xp.asarray(x)))
            return [reshape_as(g[i], x[i]) for i in range(len(x))]
        return xp.reshape(g, xp.shape(x))
    return reshape_as


def _reshape_like(xp):
    """`reshape_as` of the namespace (NumPy's returns floats/lists for Python
    arguments)."""
    fn = _registry.namespace_helper(xp, "reshape_as")
    return fn if fn is not None else _generic_reshape_as(xp)


def _dtype(xp, like):
    """dtype of constants built for a derivative of `like`: NumPy's default (None:
    unchanged NumPy results), for JAX the floating dtype of `like` (float32 stays
    float32)."""
    fn = _registry.namespace_helper(xp, "constant_dtype")
    return None if fn is None else fn(like)


def _to_python_scalar(xp, v):
    """A 0-d NumPy result as a float; values of other namespaces stay as they are (JAX
    values may be traced)."""
    fn = _registry.namespace_helper(xp, "to_python_scalar")
    return v if fn is None else fn(v)


def _is_float32(like):
    dt = getattr(like, "dtype", None)
    return dt is not None and numpy is not None and dt == numpy.float32


def _like_dtype(v, like):
    """`v` in float32 when `like` is float32 (an array or a NumPy scalar), else `v` as it
    is: float32 in, float32 gradient out (NumPy's own convention), whatever dtype the
    helper computed in."""
    if _is_float32(like) and hasattr(v, "astype") and v.dtype != like.dtype:
        return v.astype(like.dtype)
    return v


def _mask_of(cond, like):
    """1.0 where `cond`, else 0.0, in the float dtype of `like` (float32 stays float32;
    otherwise `cond * 1.0`, NumPy's float64)."""
    if _is_float32(like):
        return cond.astype(like.dtype)
    return cond * 1.0


def _eye(n, like, xp=numpy):
    return xp.eye(n, dtype=_dtype(xp, like))
