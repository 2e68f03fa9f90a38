"""The helpers generated code and the rules call on an array library's values
(`unbroadcast`, `unreduce`, `sum_grad`, the max/min gradients, `matmul_grad`, ...),
written once over a few primitives that each library runtime (tangent._jax, _torch,
_tensorflow, _tinygrad) defines as module functions:

  _is_tensor(x)                  is `x` one of the library's arrays
  _shape(x)                      its shape as a tuple (() for a number)
  _float_dtype(x)                the dtype of a gradient of `x`
  _as_grad(g, like)              `g` as an array (a number takes `like`'s floating dtype
                                 and device)
  _full(shape, v, like)          the number `v` at every element of `shape`, in `like`'s
                                 floating dtype and on its device
  _sum_axes(g, axes, keepdims)   `g` summed over a non-empty tuple of axes
  _reshape(g, shape), _broadcast_to(g, shape)
  _equal_mask(a, b, like)        1 where a == b, else 0, in `like`'s floating dtype
  _check_float(like)             refuses a gradient of an integer array (a located error)
  _matmul_nt(a, b), _matmul_tn(a, b)   a @ b.T and a.T @ b for two matrices

`bind(lib, namespace)` makes the helpers of one library (closures over its primitives:
one call more than a hand-written helper, no lookups); the runtime calls them as
`H.unreduce(...)` and registers them with its own (`register`). What a runtime writes
itself is what differs between libraries: zero gradients, writes at an index, copies,
its namespace of NumPy's names, its seed checks, its rules' helpers and compile=.
"""
from tangent import _registry
from tangent._grads_common import _generic_reshape_as
from tangent._runtime import _axes, kept_shape, matmul_grad_in

_NUMBERS = (int, float, complex)


def _axis_tuple(axis):
    """An `axis` argument (None, an int, a list, a tuple, torch.Size) as NumPy's."""
    if axis is None or isinstance(axis, int):
        return axis
    return tuple(axis)


class Helpers:
    """The generic helpers of one library (see the module's docstring); `kinds` maps the
    registry's helper kinds to them."""

    def __init__(self, lib, namespace):
        is_array, shape_of, as_grad, full = lib._is_tensor, lib._shape, lib._as_grad, lib._full
        sum_axes, reshape, broadcast_to = lib._sum_axes, lib._reshape, lib._broadcast_to
        equal_mask, check_float, float_dtype = lib._equal_mask, lib._check_float, lib._float_dtype
        matmul_nt, matmul_tn = lib._matmul_nt, lib._matmul_tn

        def total(g, axes, keepdims):
            return sum_axes(g, axes, bool(keepdims)) if axes else g

        def as_array(g, like, shape):
            """A gradient as an array: a number fills `shape` (a constant the library
            fuses, not a view of one element that kernels read many times)."""
            if is_array(g):
                return g
            if isinstance(g, _NUMBERS):
                return full(shape, g, like)
            return as_grad(g, like)

        def unbroadcast(g, like):
            """Sums `g` over the axes along which `like` was broadcast (`like` may be a
            number: the gradient is then a 0-d array, which traces)."""
            check_float(like)
            shape = shape_of(like)
            g = as_array(g, like, shape)
            g_shape = shape_of(g)
            if g_shape == shape:
                return g
            if len(g_shape) > len(shape):
                g = sum_axes(g, tuple(range(len(g_shape) - len(shape))), False)
                g_shape = shape_of(g)
            if len(g_shape) == len(shape):
                axes = tuple(i for i, n in enumerate(shape) if n == 1 and g_shape[i] != 1)
                if axes:
                    g = sum_axes(g, axes, True)
                    g_shape = shape_of(g)
            if g_shape != shape:
                g = broadcast_to(g, shape)
            return g

        def unreduce(g, x, axis, keepdims):
            """The gradient of a reduction of `x` over `axis`, spread back over `x`."""
            check_float(x)
            shape = shape_of(x)
            if isinstance(g, _NUMBERS):
                return full(shape, g, x)
            g = as_array(g, x, shape)
            if not keepdims:
                g = reshape(g, kept_shape(g, shape, _axes(_axis_tuple(axis), len(shape))))
            return broadcast_to(g, shape)

        def reduced_count(x, axis):
            shape = shape_of(x)
            n = 1
            for a in _axes(_axis_tuple(axis), len(shape)):
                n *= shape[a]
            return n

        def extremum_mask(y, x, axis, keepdims):
            return equal_mask(x, unreduce(y, x, axis, keepdims), x)

        def extremum_grad(g, y, x, axis, keepdims):
            """The gradient of max/min shared equally among the extreme elements."""
            mask = extremum_mask(y, x, axis, keepdims)
            count = total(mask, _axes(_axis_tuple(axis), len(shape_of(x))), keepdims)
            return unreduce(g, x, axis, keepdims) * mask / unreduce(count, x, axis, keepdims)

        def extremum_tangent(t, y, x, axis, keepdims):
            mask = extremum_mask(y, x, axis, keepdims)
            axes = _axes(_axis_tuple(axis), len(shape_of(x)))
            return total(t * mask, axes, keepdims) / total(mask, axes, keepdims)

        def sum_grad(g, x):
            shape = shape_of(x)
            if isinstance(g, _NUMBERS):
                return full(shape, g, x)
            return broadcast_to(as_grad(g, x), shape)

        def broadcast_like(t, y):
            """The tangent `t` at the shape of the value `y` it belongs to (a number or
            a smaller array is broadcast; the tangent of a number stays as it is)."""
            shape = shape_of(y)
            if is_array(t) and shape_of(t) == shape:
                return t
            if shape == () and not is_array(y):
                return t
            return broadcast_to(as_grad(t, y), shape)

        def matmul_grad(g, a, b, which):
            """The gradient of operand `which` (0: a, 1: b) of `a @ b`."""
            if (is_array(g) and is_array(a) and is_array(b) and len(a.shape) == 2
                    and len(b.shape) == 2):
                # Two matrices (the common case), without the general shapes' dispatch.
                if which == 0:
                    check_float(a)
                    return matmul_nt(g, b)
                check_float(b)
                return matmul_tn(a, g)
            return matmul_grad_in(namespace, unbroadcast, as_grad(g, a if is_array(a) else b),
                                  a, b, which)

        def array_grad(g, x):
            return g  # never converted to a Python number (it may be traced)

        def add_grad(a, b):
            return a + b

        def to_python_scalar(v):
            return v  # a 0-d array stays an array (it may be traced)

        self.namespace = namespace
        self.unbroadcast, self.unreduce, self.reduced_count = unbroadcast, unreduce, reduced_count
        self.extremum_mask = extremum_mask
        self.extremum_grad, self.extremum_tangent = extremum_grad, extremum_tangent
        self.sum_grad, self.broadcast_like, self.matmul_grad = sum_grad, broadcast_like, matmul_grad
        self.kinds = {
            "unbroadcast": unbroadcast, "unreduce": unreduce, "reduced_count": reduced_count,
            "extremum_grad": extremum_grad, "extremum_tangent": extremum_tangent,
            "sum_grad": sum_grad, "broadcast_like": broadcast_like,
            "matmul_grad": matmul_grad, "array_grad": array_grad, "add_grad": add_grad,
            "to_python_scalar": to_python_scalar, "constant_dtype": float_dtype,
            "reshape_as": _generic_reshape_as(namespace),
        }

    def register(self, types, **own):
        """Registers `types` with the library's namespace, these helpers and the
        runtime's `own` (kind=function; they take precedence)."""
        kinds = dict(self.kinds, **own)
        for type_ in types:
            _registry.register_namespace(type_, self.namespace)
            for kind, fn in kinds.items():
                _registry.register_helper(kind, type_, fn)
