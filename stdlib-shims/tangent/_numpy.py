"""The NumPy runtime: NumPy's implementations of the generic helpers, registered for
`numpy.ndarray` (and tape-liveness `ShapeCarrier`s) at import when NumPy is installed.

NumPy is the default library of the registries (`default=True`): its implementations
serve calls whose arguments are numbers, lists and tuples, and yield to any other
library's type among the arguments of a call. Also the helpers of tangent's own NumPy
rules (backends/tangent_numpy.py) and the Rust API's conversions.
"""
import cmath
import math

from tangent import _registry
from tangent._errors import (_at_call_site, _shape, check_output_by_shape,  # noqa: F401
                             several_outputs)
from tangent._grads_shape import _numpy_reshape_as
from tangent._runtime import (ShapeCarrier, _axes, array_grad, kept_shape, matmul_grad_in,
                              number_type, real_like, unbroadcast, unreduce)

try:
    import numpy
    number_type(numpy.float64)
except ImportError:  # CPython without NumPy: scalar code still works
    numpy = None

try:
    from _numpy_native import _matmul_t
except ImportError:  # CPython: NumPy's own products
    def _matmul_t(a, b, transpose_a, transpose_b):
        """(a.T if transpose_a else a) @ (b.T if transpose_b else b)"""
        return (a.T if transpose_a else a) @ (b.T if transpose_b else b)


# The array types of the helpers: NumPy's ndarray, what the tape keeps of one, and the
# embedded numpy's complex arrays (a type of their own there).
_COMPLEX_ARRAYS = tuple(t for t in (getattr(getattr(numpy, "_cx", None), "complexarray", None),)
                        if isinstance(t, type))
_ARRAYS = () if numpy is None else (numpy.ndarray, ShapeCarrier) + _COMPLEX_ARRAYS


def _is_array(x):
    return isinstance(x, _ARRAYS)


def _in_grad_dtype(g, x):
    """The gradient `g` of `x` in float32 when `x` is a float32 array and `g` float64
    (float32 in, float32 gradient out, NumPy's convention even when the computation
    around `x` is float64), its real part when `g` is complex and `x` real (the adjoint
    of a real value is real); else `g` unchanged."""
    dtype = getattr(g, "dtype", None)
    if dtype is not None and dtype.kind == "c" and not _registry._is_complex(x):
        g = g.real
        dtype = g.dtype
    if getattr(x, "dtype", None) == numpy.float32 and dtype == numpy.float64:
        return g.astype(numpy.float32)
    return g


def _real_number(g, like):
    """A number `g` as the gradient of the number `like`: its real part unless `like` is
    complex (the adjoint of a real value is real)."""
    if isinstance(g, complex) or _registry._is_complex(g):
        return complex(g) if _registry._is_complex(like) else float(g.real)
    return float(g)


def _mask(cond, x):
    """1.0 where `cond`, else 0.0, in the gradient dtype of `x` (float32 stays float32)."""
    if _is_array(x) and x.dtype == numpy.float32:
        return cond.astype(numpy.float32)
    return cond * 1.0


def _grad_dtype(x):
    """Gradients keep a float32 input's precision and a complex input's complex dtype;
    integer and bool inputs get float64 gradients, as NumPy's own arithmetic would give."""
    if _is_array(x):
        if x.dtype == numpy.float32:
            return numpy.float32
        if x.dtype.kind == "c":
            return x.dtype
    return numpy.float64


def _is_numeric_scalar(y):
    """A NumPy scalar of a numeric dtype (numpy.float64, numpy.int64, ...)."""
    generic = getattr(numpy, "generic", None) if numpy is not None else None
    return generic is not None and isinstance(y, generic) and y.dtype.kind in "biufc"


# ------------------------------------------------------ the generic helpers' NumPy part

def shape_of(x):
    if isinstance(x, numpy.ndarray):
        return ShapeCarrier(tuple(x.shape), x.dtype)
    return x


def copy(x):
    if _is_array(x):
        return x.copy()
    if isinstance(x, list):
        return list(x)
    return x


def init_grad(x):
    if _is_array(x):
        return numpy.zeros(x.shape, dtype=_grad_dtype(x))
    if _is_numeric_scalar(x) and x.dtype == numpy.float32:
        # numpy.float32 (slogdet's results for a float32 matrix; numpy.float64 is a float)
        return numpy.float32(0.0)
    if _is_numeric_scalar(x) and x.dtype.kind in "biu":
        # An integer or bool scalar (frexp's exponent of a number) is piecewise
        # constant, as a Python int is.
        return 0.0
    if isinstance(x, complex):
        return 0j
    raise TypeError(_at_call_site(
        "tangent: a value of type %s has no derivative (a zero gradient or tangent of it "
        "was needed)" % type(x).__name__,
        "differentiate functions of numbers and arrays (and lists or tuples of them); "
        "return a number or an array; for an array type of another library, register "
        "it: tangent.register_namespace(%s, its_array_namespace) and "
        "tangent.register_init_grad(%s, fn)" % (type(x).__name__, type(x).__name__)))


def unbroadcast_(g, like):
    if isinstance(like, (list, tuple)):
        # A NumPy function applied to a list treats it as an array.
        return array_grad(unbroadcast(g, numpy.asarray(like, dtype=float)), like)
    if not _is_array(like):
        if _is_array(g):
            return _real_number(numpy.sum(g), like)
        if isinstance(g, complex) and not isinstance(like, complex):
            return g.real
        return g
    if not _is_array(g):
        return numpy.full(like.shape, _real_number(g, like), dtype=_grad_dtype(like))
    if g.shape == like.shape:
        return _in_grad_dtype(g, like)
    while g.ndim > like.ndim:
        g = numpy.sum(g, axis=0)
    for axis, n in enumerate(like.shape):
        if n == 1 and g.shape[axis] != 1:
            g = numpy.sum(g, axis=axis, keepdims=True)
    return _in_grad_dtype(g, like)


def unreduce_(g, x, axis, keepdims):
    if isinstance(x, (list, tuple)):
        # A reduction of a list reduces the array it makes: one gradient per element.
        return array_grad(unreduce(g, numpy.asarray(x, dtype=float), axis, keepdims), x)
    if not _is_array(x):
        return g
    shape = x.shape
    if not _is_array(g):
        # A full reduction's gradient is a scalar: fill directly.
        return numpy.full(shape, _real_number(g, x), dtype=_grad_dtype(x))
    if not keepdims:
        g = numpy.reshape(g, kept_shape(g, shape, _axes(axis, len(shape))))
    return g * numpy.ones(shape, dtype=_grad_dtype(x))


def reduced_count(x, axis):
    if isinstance(x, (list, tuple)):
        return reduced_count(numpy.asarray(x, dtype=float), axis)
    if not _is_array(x):
        return 1
    n = 1
    for a in _axes(axis, x.ndim):
        n *= x.shape[a]
    return n


def extremum_grad(g, y, x, axis, keepdims):
    if isinstance(x, (list, tuple)):
        return array_grad(extremum_grad(g, y, numpy.asarray(x, dtype=float), axis, keepdims), x)
    if not _is_array(x):
        return g
    mask = _mask(x == unreduce(y, x, axis, keepdims), x)
    count = numpy.sum(mask, axis=axis, keepdims=keepdims)
    return unreduce(g, x, axis, keepdims) * mask / unreduce(count, x, axis, keepdims)


def matmul_grad(g, a, b, which):
    # Products of complex matrices transpose without conjugates (the rules' convention);
    # a complex gradient of a real operand is its real part (`real_like`). The embedded
    # numpy's complex arrays are another type, which its `_matmul_t` does not take.
    if which == 0:
        if type(g) is numpy.ndarray and g.ndim == 2 and type(b) is numpy.ndarray and b.ndim == 2:
            return real_like(_matmul_t(g, b, False, True), a)  # g @ b.T, no copy
        if numpy.ndim(a) == 2 and numpy.ndim(b) == 2 and _is_array(g) and _plain(g, b):
            return real_like(_matmul_t(g, b, False, True), a)
        return _in_grad_dtype(matmul_grad_in(numpy, unbroadcast, g, a, b, 0), a)
    if type(g) is numpy.ndarray and g.ndim == 2 and type(a) is numpy.ndarray and a.ndim == 2:
        return real_like(_matmul_t(a, g, True, False), b)  # a.T @ g, no copy
    if numpy.ndim(a) == 2 and numpy.ndim(b) == 2 and _is_array(g) and _plain(g, a):
        return real_like(_matmul_t(a, g, True, False), b)
    return _in_grad_dtype(matmul_grad_in(numpy, unbroadcast, g, a, b, 1), b)


def _plain(*values):
    """None of `values` is one of the embedded numpy's complex arrays."""
    return not any(type(v) in _COMPLEX_ARRAYS for v in values)


def sum_grad(g, x):
    if _is_array(x):
        return g * numpy.ones(x.shape, dtype=_grad_dtype(x))
    # each element gets the gradient in its own shape (sum([v, 2.0]) broadcasts 2.0)
    return [unbroadcast(g, v) for v in x]


def array_grad_(g, x):
    if _is_array(x):
        return _in_grad_dtype(g, x)
    return _real_number(g, x)


def broadcast_like(t, y):
    if _is_array(y) and not (_is_array(t) and t.shape == y.shape):
        return t * numpy.ones(y.shape, dtype=_grad_dtype(y))
    return t


def index_add(g, index, value):
    """`g[index] += value` in place, an element the index selects more than once getting
    every share (`g[index] = g[index] + value` keeps one): the gradient of `x[index]`."""
    if type(index) is int or _selects_each_once(index):
        g[index] = g[index] + value
        return g
    add_at = getattr(numpy.add, "at", None)
    if add_at is not None:
        add_at(g, index, value)
        return g
    # The embedded numpy has no ufunc methods: the shares one by one, in add.at's order.
    where = numpy.arange(g.size).reshape(g.shape)[index]
    shares = numpy.broadcast_to(numpy.asarray(value), where.shape).ravel().tolist()
    flat = g.ravel().tolist()
    for position, share in zip(where.ravel().tolist(), shares):
        flat[position] += share
    g[...] = numpy.asarray(flat, dtype=g.dtype).reshape(g.shape)
    return g


def _selects_each_once(index):
    """Does the index select no element twice (integers, slices, masks; no integer
    arrays or lists)?"""
    for part in index if isinstance(index, tuple) else (index,):
        if part is None or part is Ellipsis or isinstance(part, (int, slice)):
            continue
        kind = getattr(getattr(part, "dtype", None), "kind", None)
        if kind == "b" or (kind in ("i", "u") and numpy.ndim(part) == 0):
            continue
        return False
    return True


def set_tangent_at(t, x, index, v):
    return _set_tangent_at(t, x, index, v, copy)


def set_tangent_at_in_place(t, x, index, v):
    from tangent._runtime import _owned
    return _set_tangent_at(t, x, index, v, _owned)


def _set_tangent_at(t, x, index, v, own):
    from tangent._runtime import init_grad as init_grad_
    t = init_grad_(x) if t is None else own(t)
    if _is_array(t) and not _is_array(x):
        t = init_grad_(x)
    if isinstance(x, list) and not isinstance(t, list):
        t = init_grad_(x)
    t[index] = v
    return t


def extremum_tangent(t, y, x, axis, keepdims):
    if isinstance(x, (list, tuple)):
        # A reduction of a list reduces the array it makes (its tangent: the list of the
        # elements' tangents), as extremum_grad does.
        return extremum_tangent(numpy.asarray(t, dtype=float), y,
                                numpy.asarray(x, dtype=float), axis, keepdims)
    if not _is_array(x):
        return t
    mask = _mask(x == unreduce(y, x, axis, keepdims), x)
    count = numpy.sum(mask, axis=axis, keepdims=keepdims)
    return numpy.sum(t * mask, axis=axis, keepdims=keepdims) / count


def log(x):
    if _is_array(x):
        return numpy.log(x)
    if isinstance(x, complex):
        return cmath.log(x)
    return math.log(x)


def sign(x):
    """The derivative factor of `abs(x)`: the sign of a real `x`; conj(z) / |z| of a
    complex `z` (0 at 0), the adjoint of |z| in the rules' convention."""
    if _is_array(x):
        if x.dtype.kind == "c":
            size = numpy.abs(x)
            return numpy.where(size == 0, 0, numpy.conj(x) / numpy.where(size == 0, 1, size))
        return numpy.sign(x)
    if isinstance(x, complex):
        return x.conjugate() / abs(x) if x != 0 else 0j
    # int() first: a NumPy scalar's comparisons give NumPy bools, which do not subtract.
    return float(int(x > 0) - int(x < 0))


def check_output(y, seed, name):
    if isinstance(y, (tuple, list)):
        raise several_outputs(y, name)
    if _registry._is_complex(y):
        raise TypeError(_at_call_site(
            "grad: `%s` returned a complex value; a gradient is of a real result" % name,
            "return a real number: abs(z) ** 2, z.real or z.imag of the complex result "
            "(or use tangent.jvp, forward mode, for the complex result itself)"))
    if not (isinstance(y, (int, float)) or _is_array(y) or _is_numeric_scalar(y)):
        raise TypeError(_at_call_site(
            "grad: `%s` returned a %s, which has no derivative" % (name, type(y).__name__),
            "the differentiated function must return a number or an array"))
    shape = _shape(y)
    mismatch = "grad: the seed has shape %s but `%s` returned shape %s"
    mismatch_hint = "pass a seed of shape %s (or a float when the output is a scalar)"
    if _is_array(seed) and seed.size != 1 and tuple(seed.shape) != shape:
        raise ValueError(_at_call_site(mismatch % (tuple(seed.shape), name, shape),
                                       mismatch_hint % (shape,)))
    if _is_array(y) and y.size != 1:
        if not _is_array(seed):
            raise ValueError(_at_call_site(
                "grad: `%s` returned an array of shape %s, not a scalar" % (name, shape),
                "pass a seed of that shape as the last argument, or use tangent.vjp"))
        if tuple(seed.shape) != shape:
            raise ValueError(_at_call_site(mismatch % (tuple(seed.shape), name, shape),
                                           mismatch_hint % (shape,)))


# --------------------------------------------- helpers of tangent's own NumPy rules

def unreduce_adjoint(dz, g, axis, keepdims):
    """Transpose of unreduce: sum back over the axes it broadcast."""
    if not _is_array(g):
        return float(numpy.sum(dz)) if _is_array(dz) else dz
    return numpy.reshape(numpy.sum(dz, axis=axis, keepdims=keepdims), g.shape)


def matmul_grad_left_adjoint(dz, g, a, b, which):
    """Transpose of z = matmul_grad_left(g, a, b) in g (which=0) or b (which=1)."""
    an, bn = numpy.ndim(a), numpy.ndim(b)
    if an == 1 and bn == 1:  # z = g * b
        return unbroadcast(dz * b, g) if which == 0 else unbroadcast(dz * g, b)
    if an == 1:  # z = b @ g
        return numpy.dot(numpy.transpose(b), dz) if which == 0 else numpy.outer(dz, g)
    if bn == 1:  # z = outer(g, b)
        return numpy.dot(dz, b) if which == 0 else numpy.dot(g, dz)
    # z = g @ b.T
    return numpy.matmul(dz, b) if which == 0 else numpy.matmul(numpy.transpose(dz), g)


def matmul_grad_right_adjoint(dz, g, a, b, which):
    """Transpose of z = matmul_grad_right(g, a, b) in g (which=0) or a (which=1)."""
    an, bn = numpy.ndim(a), numpy.ndim(b)
    if an == 1 and bn == 1:  # z = g * a
        return unbroadcast(dz * a, g) if which == 0 else unbroadcast(dz * g, a)
    if an == 1:  # z = outer(a, g)
        return numpy.dot(a, dz) if which == 0 else numpy.dot(dz, g)
    # z = a.T @ g
    if which == 0:
        return numpy.matmul(a, dz)
    if numpy.ndim(g) == 1:
        return numpy.outer(g, dz)
    return numpy.matmul(g, numpy.transpose(dz))


# ------------------------------------------------------------- Rust API support

def _from_flat(flat, shape):
    return numpy.reshape(numpy.array(flat), shape)


def _to_flat(x):
    x = numpy.asarray(x)
    return tuple(x.shape), [float(v) for v in numpy.ravel(x).tolist()]


# ------------------------------------------------------------------ registration

def _register():
    for type_ in (numpy.ndarray, ShapeCarrier):
        _registry.register_namespace(type_, numpy, default=True)
    if getattr(numpy, "_cx", None) is not None:
        # The embedded numpy: its ndarray is real (its complex arrays are another type,
        # an array of NumPy's namespace for the helpers).
        _registry.real_only(numpy.ndarray)
        _registry.register_namespace(numpy._cx.complexarray, numpy, default=True)
    # NumPy's scalars (numpy.float64, ...) are numbers for the helpers (the embedded
    # numpy has no scalar class hierarchy: its `generic` is the tuple of its scalar types).
    generic = getattr(numpy, "generic", None)
    for type_ in generic if isinstance(generic, tuple) else (generic,):
        if isinstance(type_, type):
            _registry.register_namespace(type_, numpy, scalar=True, default=True)
    for kind, fn in (
            ("init_grad", init_grad), ("unbroadcast", unbroadcast_),
            ("unreduce", unreduce_), ("shape_function", shape_of),
            ("matmul_grad", matmul_grad), ("copy", copy),
            ("reduced_count", reduced_count), ("extremum_grad", extremum_grad),
            ("extremum_tangent", extremum_tangent), ("sum_grad", sum_grad),
            ("array_grad", array_grad_), ("broadcast_like", broadcast_like),
            ("set_tangent_at", set_tangent_at),
            ("set_tangent_at_in_place", set_tangent_at_in_place), ("log", log), ("sign", sign),
            ("index_add", index_add),
            ("check_output", check_output),
            # What the rule helpers computing in a namespace need (tangent._grads_common).
            ("reshape_as", _numpy_reshape_as), ("to_python_scalar", _to_python_scalar),
            ("constant_dtype", _constant_dtype)):
        for type_ in _ARRAYS:
            if type_ is not ShapeCarrier:
                _registry.register_helper(kind, type_, fn)
    # The helpers right for complex values (of arrays, NumPy's complex scalars and
    # Python's complex numbers): linear ones that keep the dtype, and those that take the
    # real part where a gradient reaches a real value.
    complex_types = [numpy.ndarray, complex]
    complex_types += [t for t in (getattr(numpy, "complex128", None),
                                  getattr(numpy, "complex64", None)) if isinstance(t, type)]
    complex_types += [t for t in _ARRAYS if t not in complex_types]
    for kind in COMPLEX_AWARE:
        _registry.complex_aware(kind, *complex_types)


# The helpers whose NumPy implementations are right for complex values.
COMPLEX_AWARE = (
    "init_grad", "add_grad", "add_grad_at", "index_add", "zero_grad_at", "unbroadcast",
    "unreduce", "reduced_count", "sum_grad", "array_grad", "broadcast_like",
    "set_tangent_at", "set_tangent_at_in_place", "copy", "shape_function", "sign", "log",
    "check_output", "matmul_grad")


def _constant_dtype(like):
    """Constants built for a derivative of `like`: float32 for a float32 array or scalar
    (float32 in, float32 gradient out), else None (NumPy's default float64: results for
    float64 inputs unchanged)."""
    if getattr(like, "dtype", None) == numpy.float32:
        return numpy.float32
    return None


def _to_python_scalar(v):
    """NumPy's 0-d results are floats for the rule helpers, as NumPy's own functions
    give for Python arguments."""
    return float(v) if numpy.ndim(v) == 0 else v


if numpy is not None:
    _register()
