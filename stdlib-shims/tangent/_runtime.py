"""The generic runtime helpers generated code calls (`tangent.init_grad`,
`tangent.add_grad`, `tangent.unbroadcast`, `tangent.unreduce`, ...).

They handle numbers, None, lists and tuples themselves and leave arrays to the library
that registered the value's type (`tangent._registry`; NumPy's in `tangent._numpy`,
JAX's in `tangent._jax`). None of them tests for a library.

Structured values follow the JAX pytree convention: the gradient (or tangent) of a dict
is a dict with the same keys, of a tuple a tuple, of a namedtuple the same namedtuple
type, of a dataclass instance a copy of it with gradients in its fields, nested the same
way. A dataclass's or namedtuple's field `p.a` is reached with the field's name as the
index of `add_grad_at`/`grad_at` (neither type has string subscripts). An instance of a
plain Python class (`plain_class`) is a structure too: its gradient is an object of the
same class (made without running `__init__`) whose attributes are the gradients of the
instance's, None for attributes that are not numbers, arrays or structures.
"""
import _tangent
import copy as _copy
import dataclasses
import math
import numbers

from tangent import _registry
from tangent._errors import _at_call_site, _shape, check_output, fast_helper

_impl = _registry.implementation

# The exact types of plain real numbers (NumPy's float64 joins when NumPy is imported:
# `number_type`). Scalar loops call the helpers below once per operation, so numbers take
# a short path before the structure checks and the library dispatch, with the results
# those would give: a gradient of a number is the number, sums are `a + b`.
_NUMBERS = {float, int}


def number_type(t):
    """Declares `t` (a subclass of float, as numpy.float64) a plain number here."""
    _NUMBERS.add(t)


class ShapeCarrier:
    """What the tape keeps of a value the backward pass reads only for its shape and
    dtype (tape liveness): a few bytes instead of the array."""
    __slots__ = ("shape", "dtype")

    def __init__(self, shape, dtype):
        self.shape = shape
        self.dtype = dtype

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for d in self.shape:
            n *= d
        return n


class Stack(list):
    """The tape: values saved by the forward pass for the backward pass."""


ShapeCarrier.__module__ = Stack.__module__ = "tangent"

push = _tangent.push
pop = _tangent.pop


def push_stack(stack, substack, op_id=None):
    """Google Tangent's push of a callee's tape (a `Stack`, or None) onto a tape: saved
    as it is, never copied (`push` with an op id copies a list, and a Stack is one)."""
    if substack is not None and not isinstance(substack, Stack):
        raise ValueError("tangent.push_stack: the substack must be a tangent.Stack or None, "
                         "not %s" % type(substack).__name__)
    push(stack, substack)


def pop_stack(stack, op_id=None):
    """Google Tangent's pop of a callee's tape (the op id only paired it with its push)."""
    return pop(stack)


def shapes_match(a, b):
    """Google Tangent's shape comparison: lists and tuples element by element, dicts key
    by key (in order), arrays of any registered library by shape, numbers as shape ()."""
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(shapes_match(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return len(a) == len(b) and all(
            ka == kb and shapes_match(va, vb)
            for (ka, va), (kb, vb) in zip(a.items(), b.items()))
    for v in (a, b):
        if not (_registry.is_array(v) or isinstance(v, numbers.Number)):
            raise TypeError("tangent.shapes_match: no shape for a %s" % type(v).__name__)
    return _shape(a) == _shape(b)


def array_size(x, axis):
    """Google Tangent's count of the elements along `axis` (a tuple of axes, or None
    for all): at least 1."""
    shape = _shape(x)
    if axis is not None:
        shape = tuple(shape[a] for a in axis)
    return max(math.prod(shape), 1)


def checkpoint_stride(n):
    """Segment length of sqrt(n) checkpointing."""
    return max(1, int(math.ceil(math.sqrt(n))))


def shape_of(x):
    """The shape carrier of an array (its library's shape function); other values are
    kept (they are small)."""
    fn = _impl("shape_function", "tangent.shape_of", (x,), strict=False)
    return x if fn is None else fn(x)


def _is_dataclass_instance(x):
    return dataclasses.is_dataclass(x) and not isinstance(x, type)


def _is_namedtuple(x):
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


def _is_record(x):
    """A value whose parts are named fields: a dataclass instance or a namedtuple."""
    return _is_namedtuple(x) or _is_dataclass_instance(x)


def plain_class(cls):
    """Whether instances of `cls` are plain Python objects whose state is their
    `__dict__`: a class written in Python (not builtins, not a dataclass, namedtuple or
    array type) that keeps the default `__new__`, `__setattr__` and instance
    dictionary (no `__slots__`) and whose metaclass does not change how it is called."""
    if not isinstance(cls, type) or cls.__module__ == "builtins" or cls is object:
        return False
    if dataclasses.is_dataclass(cls) or (issubclass(cls, tuple) and hasattr(cls, "_fields")):
        return False
    if type(cls).__call__ is not type.__call__ or cls.__new__ is not object.__new__:
        return False
    if cls.__setattr__ is not object.__setattr__ or cls.__getattribute__ is not \
            object.__getattribute__:
        return False
    return all("__slots__" not in vars(k) for k in cls.__mro__[:-1]) and \
        not _registry.is_array_type(cls)


def _is_object(x):
    """An instance of a plain Python class (`plain_class`), not an array."""
    return plain_class(type(x)) and not _registry.is_array(x)


def _differentiable_part(v):
    """Whether an attribute's value has a gradient: a number, an array, or a structure
    (a list, tuple, dict, record or plain object) of them."""
    if isinstance(v, bool):
        return False
    if isinstance(v, (int, float)) or _registry.is_array(v):
        return True
    if isinstance(v, (list, tuple)) or _is_record(v):
        return True
    return isinstance(v, dict) or _is_object(v)


def _object_like(x, values):
    """An object of `x`'s class holding `values` (name -> value) as its attributes,
    made without running `__init__` (it may compute or validate)."""
    out = object.__new__(type(x))
    vars(out).update(values)
    return out


def _with_items(like, values):
    """A sequence of `like`'s type (list, tuple, namedtuple) holding `values`."""
    if _is_namedtuple(like):
        return type(like)(*values)
    if isinstance(like, tuple):
        return tuple(values)
    return list(values)


def _fields(x):
    return [f.name for f in dataclasses.fields(x)]


_array_names = [None, set()]  # (rules generation, names)


def _array_member_names():
    """The names differentiated code reads as array attributes (`p.size`, `p.T`): those
    the rules declare `array_attributes` (src/ad/reverse.rs, forward.rs: any other
    `p.name` is a field)."""
    from tangent._build import _rules_generation
    if _array_names[0] != _rules_generation[0]:
        _array_names[:] = [_rules_generation[0], set(_tangent.array_attribute_names())]
    return _array_names[1]


def check_record_fields(x):
    """Refuses a dataclass, namedtuple or plain object (also inside dicts, lists and
    tuples) with a field named like an array attribute (`size`, `T`): the transformer
    reads `p.size` as the array attribute it cannot tell it from, which would give that
    field a zero or wrong derivative."""
    names_of_arrays = _array_member_names()
    if isinstance(x, dict):
        for v in x.values():
            check_record_fields(v)
        return
    if _is_record(x) or _is_object(x):
        names = (x._fields if _is_namedtuple(x) else _fields(x) if _is_record(x)
                 else list(vars(x)))
        clash = [n for n in names if n in names_of_arrays]
        if clash:
            raise TypeError(_at_call_site(
                "tangent: the field `%s` of %s has the name of an array attribute, which "
                "`p.%s` in differentiated code is read as" % (clash[0], type(x).__name__,
                                                               clash[0]),
                "rename the field (e.g. `%s_`)" % clash[0]))
        for n in names:
            check_record_fields(getattr(x, n))
        return
    if isinstance(x, (list, tuple)):
        for v in x:
            check_record_fields(v)


def _with_fields(like, values):
    """A copy of the dataclass instance `like` with `values` (name -> value) in its
    fields (its `__init__` is not run again: it may compute or validate)."""
    out = _copy.copy(like)
    for k, v in values.items():
        object.__setattr__(out, k, v)
    return out


def _field_name(x, index):
    """`index` as a field of the record or plain object `x`, or None."""
    if isinstance(index, str) and _is_record(x):
        names = x._fields if _is_namedtuple(x) else _fields(x)
        if index in names:
            return index
    if isinstance(index, str) and _is_object(x) and index in vars(x):
        return index
    return None


def _no_field(x, index):
    return TypeError(_at_call_site(
        "tangent: `.%s` of a value of type %s has no derivative rule (it is neither an "
        "array attribute with a rule nor a field of a dataclass, a namedtuple or an "
        "object's own attributes)" % (index, type(x).__name__),
        "read fields of dataclasses and namedtuples or attributes set in `__init__`, or "
        "register a rule for the attribute with @tangent.adjoint"))


def copy(x):
    # Structures first: the default library's copy (NumPy's) returns any value it does
    # not know, and a checkpoint of a dict the loop changes must not see the changes.
    if isinstance(x, list):
        return list(x)
    if isinstance(x, dict) or _is_dataclass_instance(x):
        return _copy.copy(x)
    fn = _impl("copy", "tangent.copy", (x,), strict=False)
    if fn is not None:
        return fn(x)
    return x


def init_grad(x):
    """A zero gradient shaped like `x` (the same structure for a structured value)."""
    if x is None or isinstance(x, (bool, int, float)):
        return 0.0
    if isinstance(x, (list, tuple)):
        if _is_namedtuple(x):
            check_record_fields(x)
        return _with_items(x, [init_grad(v) for v in x])
    if isinstance(x, dict):
        return {k: init_grad(v) for k, v in x.items()}
    if _is_dataclass_instance(x):
        check_record_fields(x)
        return _with_fields(x, {k: init_grad(getattr(x, k)) for k in _fields(x)})
    if _is_object(x):
        check_record_fields(x)
        return _object_like(x, {k: init_grad(v) if _differentiable_part(v) else None
                                for k, v in vars(x).items()})
    fn = _impl("init_grad", "a zero gradient (tangent.init_grad)", (x,), strict=False)
    if fn is not None:
        return fn(x)
    raise TypeError(_at_call_site(
        "tangent: a value of type %s has no derivative (a zero gradient or tangent of it "
        "was needed)" % type(x).__name__,
        "differentiate functions of numbers and arrays (and lists, tuples, dicts, "
        "namedtuples or dataclasses of them); return a number or an array"))


def zero_part(x):
    """The zero tangent of a part of a structure (a dict's value, an object's field):
    None for a value that has none (a string, a flag, None)."""
    return init_grad(x) if _differentiable_part(x) else None


def add_grad(a, b):
    """a + b for gradients; `None` means "no gradient yet". Structures add part by part
    (a gradient of a structure has all its parts: `init_grad`)."""
    if type(a) in _NUMBERS and type(b) in _NUMBERS:
        return a + b
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return _with_items(a, [add_grad(x, y) for x, y in zip(a, b)])
    if isinstance(a, dict) and isinstance(b, dict):
        out = dict(a)
        for k, v in b.items():
            out[k] = add_grad(out.get(k), v)
        return out
    if _is_dataclass_instance(a) and _is_dataclass_instance(b):
        return _with_fields(a, {k: add_grad(getattr(a, k), getattr(b, k))
                                for k in _fields(a)})
    if _is_object(a) and type(a) is type(b):
        names = list(vars(a)) + [k for k in vars(b) if k not in vars(a)]
        return _object_like(a, {k: add_grad(vars(a).get(k), vars(b).get(k)) for k in names})
    fn = _impl("add_grad", "tangent.add_grad", (a, b), strict=False)
    if fn is not None:
        return fn(a, b)
    return a + b


def _struct_add_at(g, x, index, value):
    """add_grad_at for a structure `x` (None if `x` is not one)."""
    field = _field_name(x, index)
    if field is not None:
        g = init_grad(x) if g is None else g
        if _is_namedtuple(g):
            return g._replace(**{field: add_grad(getattr(g, field), value)})
        if _is_object(g):
            return _object_like(g, dict(vars(g), **{field: add_grad(vars(g).get(field),
                                                                     value)}))
        return _with_fields(g, {field: add_grad(getattr(g, field), value)})
    if isinstance(x, dict) or (isinstance(x, tuple) and not isinstance(index, str)):
        g = init_grad(x) if g is None else g
        items = dict(g) if isinstance(g, dict) else list(g)
        items[index] = add_grad(items[index], value)
        return items if isinstance(g, dict) else _with_items(g, items)
    if isinstance(index, str) and not isinstance(x, dict):
        raise _no_field(x, index)
    return None


def add_grad_at(g, x, index, value):
    """Gradient of `x[index]` added into `g` (a fresh gradient of `x` if `g` is None)."""
    return _add_grad_at(g, x, index, value, copy)


def add_grad_at_in_place(g, x, index, value):
    """`add_grad_at` for a `g` that only the caller's name holds, which the caller rebinds
    to the result (no other name, tape entry or container sees it: src/opt/in_place.rs
    writes this helper only then), so a NumPy array or a list is changed in place: a loop
    reading `x[t]` costs one element per step, not a copy of the gradient."""
    if type(index) is int and type(g) in _INDEXED_IN_PLACE and g.flags.writeable:
        # An element of the default library's array (`index_add`'s case, without the
        # calls: a loop makes one per element read).
        g[index] = g[index] + value
        return g
    return _add_grad_at(g, x, index, value, _owned)


def _owned(g):
    """`g` itself for the in-place helpers, or a copy of a value that cannot be written
    (a read-only view: `unbroadcast` of a number to a shape), which the caller's name
    then holds alone."""
    flags = getattr(g, "flags", None)
    if flags is not None and not flags.writeable:
        return copy(g)
    return g


# The array types whose element `g[i]` (an int `i`) the in-place helpers add into
# directly: those whose library registered `index_add` (NumPy's `ndarray`).
_INDEXED_IN_PLACE = _registry.types_with_helper("index_add")


def _add_grad_at(g, x, index, value, own):
    out = _struct_add_at(g, x, index, value)
    if out is not None:
        return out
    fn = _impl("add_grad_at", "the gradient of a subscript (tangent.add_grad_at)",
               (x,) if g is None else (g,))
    if fn is not None:
        return fn(g, x, index, value)
    g = init_grad(x) if g is None else own(g)
    if isinstance(g, list):
        g[index] = add_grad(g[index], value)
        return g
    add = _impl("index_add", "the gradient of a subscript (tangent.add_grad_at)", (g,),
                strict=False)
    if add is not None:
        return add(g, index, value)
    g[index] = g[index] + value
    return g


def zero_grad_at(g, index):
    return _zero_grad_at(g, index, copy)


def zero_grad_at_in_place(g, index):
    """`zero_grad_at` for a `g` that only the caller's name holds (as
    `add_grad_at_in_place`'s): NumPy arrays and lists are changed in place."""
    return _zero_grad_at(g, index, _owned)


def _zero_grad_at(g, index, own):
    if isinstance(g, dict):
        g = dict(g)
        g[index] = init_grad(g[index])
        return g
    fn = _impl("zero_grad_at", "the gradient of a subscript store (tangent.zero_grad_at)",
               (g,))
    if fn is not None:
        return fn(g, index)
    g = own(g)
    if isinstance(g, list):
        g[index] = init_grad(g[index])
    else:
        g[index] = 0.0
    return g


def grad_item(g, i):
    return g[i]


def unbroadcast_left(g, x, y):
    """Gradient of `x` in `x + y`: sums over broadcast axes, or, for a concatenation of
    lists or tuples, the leading part."""
    if type(g) in _NUMBERS and type(x) in _NUMBERS:
        return g
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return list(g[:len(x)])
    return unbroadcast(g, x)


def unbroadcast_right(g, x, y):
    """Gradient of `y` in `x + y` (the trailing part of a concatenation)."""
    if type(g) in _NUMBERS and type(y) in _NUMBERS:
        return g
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return list(g[len(x):])
    return unbroadcast(g, y)


def unbroadcast(g, like):
    """Sums `g` over the axes along which `like` was broadcast to `g`'s shape."""
    if type(g) in _NUMBERS and type(like) in _NUMBERS:
        return g
    if type(g) is complex and type(like) in _NUMBERS:
        return g.real  # the adjoint of a real number is real
    if isinstance(like, (list, tuple)) and isinstance(g, (list, tuple)):
        if len(g) != len(like):
            raise TypeError(
                "tangent: this operation on a list (repetition with `*`?) has no "
                "derivative rule; build the list with a loop or use an array")
        return list(g)
    fn = _impl("unbroadcast", "the gradient of a broadcasting operation "
               "(tangent.unbroadcast)", (g, like))
    if fn is not None:
        return fn(g, like)
    return g


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


def kept_shape(g, shape, axes):
    """The shape of a reduction's result with the reduced `axes` of `shape` kept as 1,
    which its gradient `g` is reshaped to: a seed of another size (check_dims=False
    lets one in) is a located error, not the array library's reshape error."""
    kept = list(shape)
    for a in axes:
        kept[a] = 1
    dims = tuple(getattr(g, "shape", ()))
    if all(isinstance(n, int) for n in dims) and math.prod(dims) != math.prod(kept):
        raise ValueError(_at_call_site(
            "tangent: a gradient of shape %s reached a reduction whose result has shape "
            "%s: the seed given for the output does not have the output's shape"
            % (dims, tuple(k for i, k in enumerate(shape) if i not in axes)),
            "pass a seed of the output's shape (check_dims=True checks it at the start), "
            "or use tangent.vjp with a seed shaped like the output"))
    return tuple(kept)


def unreduce(g, x, axis, keepdims):
    """Broadcasts the gradient of a reduction back to the shape of its input."""
    fn = _impl("unreduce", "the gradient of a reduction (tangent.unreduce)", (x, g))
    if fn is not None:
        return fn(g, x, axis, keepdims)
    return g


def reduced_count(x, axis):
    fn = _impl("reduced_count", "the size of a reduction (tangent.reduced_count)", (x,),
               missing=_reduced_count_by_shape)
    if fn is not None:
        return fn(x, axis)
    return 1


def _reduced_count_by_shape(x, axis):
    shape = tuple(x.shape)
    n = 1
    for a in _axes(axis, len(shape)):
        n *= shape[a]
    return n


def extremum_grad(g, y, x, axis, keepdims):
    """Gradient of max/min: shared equally among the elements that attain it."""
    fn = _impl("extremum_grad", "the gradient of max/min (tangent.extremum_grad)", (x,))
    if fn is not None:
        return fn(g, y, x, axis, keepdims)
    return g


def matmul_grad(g, a, b, which):
    """d(a @ b)/da (which=0) or d(a @ b)/db (which=1) contracted with g."""
    fn = _impl("matmul_grad", "the gradient of a matrix product (a @ b)", (g, a, b))
    if fn is None:
        raise TypeError(_at_call_site(
            "tangent: the gradient of a matrix product needs an array library",
            "install NumPy, or register the array type with tangent.register_matmul_grad"))
    return fn(g, a, b, which)


def matmul_grad_left(g, a, b):
    """d(a @ b)/da contracted with g (batch axes summed back to a's shape)."""
    return matmul_grad(g, a, b, 0)


def matmul_grad_right(g, a, b):
    """d(a @ b)/db contracted with g (batch axes summed back to b's shape)."""
    return matmul_grad(g, a, b, 1)


def _swap_last(xp, m):
    """The matrix transpose of a stack of matrices (last two axes), in namespace `xp`."""
    return xp.swapaxes(m, -1, -2) if xp.ndim(m) > 2 else xp.transpose(m)


def matmul_grad_in(xp, unbroadcast_, g, a, b, which):
    """The gradient of operand `which` (0: a, 1: b) of a @ b for any shapes (vectors,
    stacks of matrices, broadcast batch axes), with the array namespace `xp` (numpy, or
    jax.numpy for JAX arrays) and its `unbroadcast`."""
    an, bn = xp.ndim(a), xp.ndim(b)
    if an == 1 and bn == 1:
        return g * (b if which == 0 else a)
    if which == 0:
        if an == 1:
            if bn > 2:
                return unbroadcast_(xp.matmul(_swap_last(xp, b), g[..., :, None])[..., 0], a)
            return xp.dot(b, g)
        if bn == 1:
            return unbroadcast_(g[..., :, None] * b, a)
        return unbroadcast_(xp.matmul(g, _swap_last(xp, b)), a)
    if an == 1:
        return unbroadcast_(a[:, None] * g[..., None, :], b)
    if bn == 1:
        return unbroadcast_(xp.matmul(_swap_last(xp, a), g[..., :, None])[..., 0], b)
    return unbroadcast_(xp.matmul(_swap_last(xp, a), g), b)


def sum_grad(g, x):
    fn = _impl("sum_grad", "the gradient of sum (tangent.sum_grad)", (x,))
    if fn is not None:
        return fn(g, x)
    return [g for _ in x]


def array_grad(g, x):
    """Gradient of `numpy.array(x)` with respect to the (nested) sequence `x`."""
    if isinstance(x, (list, tuple)):
        return [array_grad(g[i], x[i]) for i in range(len(x))]
    fn = _impl("array_grad", "tangent.array_grad", (x, g), strict=False)
    if fn is not None:
        return fn(g, x)
    if _registry.is_array(x) or _registry.is_array(g):
        return g  # never converted to a float (a JAX gradient may be a tracer)
    return float(g)


def sequence_grad(g, x):
    """Gradient of `list(x)` / `tuple(x)` with respect to the sequence or array `x`: the
    list of the items' gradients (an array's rows stacked back for an array)."""
    if isinstance(x, (list, tuple)):
        return list(g)
    if _registry.is_array(x):
        out = _registry.namespace_of(x).stack([g[i] for i in range(len(x))])
        dtype = getattr(x, "dtype", None)
        if str(dtype) == "float32" and str(getattr(out, "dtype", None)) != "float32":
            out = out.astype(dtype)  # float32 in, float32 gradient out
        return out
    raise TypeError(_at_call_site(
        "tangent: list()/tuple() of a %s: only sequences and arrays are differentiated"
        % type(x).__name__, "build the list from a list, a tuple or an array"))


def broadcast_like(t, y):
    """A tangent shaped like the value `y` it belongs to."""
    fn = _impl("broadcast_like", "the tangent of a broadcasting operation "
               "(tangent.broadcast_like)", (y, t))
    if fn is not None:
        return fn(t, y)
    return t


def set_tangent_at(t, x, index, v):
    """Tangent of `x` after `x[index] = v`."""
    return _set_tangent_at(t, x, index, v, "set_tangent_at", copy)


def set_tangent_at_in_place(t, x, index, v):
    """`set_tangent_at` for a `t` that only the caller's name holds (as
    `add_grad_at_in_place`'s): NumPy arrays and lists are changed in place."""
    return _set_tangent_at(t, x, index, v, "set_tangent_at_in_place", _owned)


def _set_tangent_at(t, x, index, v, kind, own):
    if isinstance(x, dict):
        t = init_grad(x) if not isinstance(t, dict) else dict(t)
        t[index] = v
        return t
    fn = _impl(kind, "the tangent of a subscript store (tangent.set_tangent_at)", (x,),
               missing=_registered_set_tangent_at)
    if fn is not None:
        return fn(t, x, index, v)
    t = init_grad(x) if t is None else own(t)
    if isinstance(x, list) and not isinstance(t, list):
        t = init_grad(x)
    t[index] = v
    return t


def _registered_set_tangent_at(t, x, index, v):
    """The in-place variant for a library that registered only `set_tangent_at`."""
    return _impl("set_tangent_at", "the tangent of a subscript store "
                 "(tangent.set_tangent_at)", (x,))(t, x, index, v)


def extremum_tangent(t, y, x, axis, keepdims):
    """Tangent of max/min: the mean tangent of the elements that attain the extremum."""
    fn = _impl("extremum_tangent", "the tangent of max/min (tangent.extremum_tangent)",
               (x,))
    if fn is not None:
        return fn(t, y, x, axis, keepdims)
    return t


def sum_tangent(t):
    total = 0.0
    for v in t:
        total = total + v
    return total


def grad_or_zero(g, x):
    """Reverse over generated code: the gradient of a popped value, zeros if none."""
    return init_grad(x) if g is None else g


def field_tangent(t, name):
    """The tangent of the field `p.name` of a dataclass, namedtuple or plain object
    `p`: the same field of p's tangent (which has p's structure)."""
    if _field_name(t, name) is None:
        raise _no_field(t, name)
    return getattr(t, name)


def sequence_len(xs):
    """len(xs) for a `for x in xs` loop, which the derivative runs as `xs[i]` for i in
    range(len(xs)): right for sequences and arrays; a dict, set or iterator would be
    iterated differently, so it is refused."""
    if isinstance(xs, (dict, set, frozenset)) or not hasattr(xs, "__getitem__"):
        kind = type(xs).__name__
        raise TypeError(_at_call_site(
            "tangent: a `for` loop over a %s: the derivative reads the items by index, "
            "which a %s does not give in its iteration order" % (kind, kind),
            "loop over `d.keys()`, `d.values()` or `d.items()` for a dict, or over a "
            "list or array (`list(...)` first)"))
    return len(xs)


def keys_of(p):
    """The keys a loop over `p.keys()`/`p.values()`/`p.items()` visits, in order, as a
    list (the loop reads `p[key]`)."""
    if not isinstance(p, dict):
        raise TypeError(_at_call_site(
            "tangent: `.keys()`/`.values()`/`.items()` of a %s: only dict loops are "
            "differentiated" % type(p).__name__,
            "loop over a dict, or over `range(len(xs))` for a sequence"))
    return list(p)


def extreme_index(xs, largest):
    """The position `max(xs)` (largest) or `min(xs)` takes its value from: the first
    extreme element, found with the same comparisons (so NaN and ties behave as there).
    Generated code reads `xs[extreme_index(xs, ...)]`, whose derivative is an element's."""
    if not isinstance(xs, (list, tuple)) and not (
            _registry.is_array(xs) and len(getattr(xs, "shape", ())) == 1):
        raise TypeError(_at_call_site(
            "tangent: %s() of a %s: only lists, tuples and 1-D arrays are differentiated"
            % ("max" if largest else "min", type(xs).__name__),
            "convert it first: max(list(...))"))
    pick = max if largest else min
    return pick(range(len(xs)), key=xs.__getitem__)


def dict_get_grad(g, x, key):
    """The gradient of `x` from `y = x.get(key, default)`: g at `key` if x has it."""
    if key in x:
        return add_grad_at(None, x, key, g)
    return init_grad(x)


def dict_get_default_grad(g, x, key, default):
    """The gradient of `default` from `y = x.get(key, default)`: g if `key` is missing."""
    return init_grad(default) if key in x else g


def dict_get_tangent(t, t_default, x, key, default=None):
    """The tangent of `x.get(key, default)`: the default's when `key` is missing, a zero
    shaped like the default when that is a constant (the engine passes 0.0)."""
    if key in x:
        return t[key]
    if t_default is None or (type(t_default) in (int, float) and t_default == 0
                             and default is not None):
        return init_grad(default)
    return t_default


def grad_at(g, x, index):
    """The gradient of `x[index]` (a copy), zeros if `x` has no gradient yet."""
    if _field_name(x, index) is not None:
        return init_grad(getattr(x, index)) if g is None else copy(getattr(g, index))
    return init_grad(x[index]) if g is None else copy(g[index])


def unbroadcast_left_adjoint(dz, g, x, y):
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return list(dz) + [init_grad(v) for v in y]
    return broadcast_like(dz, g)


def unbroadcast_right_adjoint(dz, g, x, y):
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return [init_grad(v) for v in x] + list(dz)
    return broadcast_like(dz, g)


def or_none(t):
    """A zero tangent of a gradient that does not exist yet (None) stays None."""
    if isinstance(t, float) and t == 0.0:
        return None
    return t


def inverse_permutation(axes):
    """The axes that undo `transpose(x, axes)`."""
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)



def log(x):
    fn = _impl("log", "tangent.log", (x,))
    if fn is not None:
        return fn(x)
    return math.log(x)


def check_real(x, name):
    """Refuses a complex `x` given to `name`, a function whose derivative is zero for real
    arguments only (numpy.sign: z / |z| of a complex z is not constant)."""
    if type(x) not in _NUMBERS and _registry._is_complex(x):
        raise _registry.complex_refused(name)


def real_like(t, y):
    """The tangent `t` of the value `y`: its real part when `y` is real and `t` complex
    (the tangent of a function real for complex arguments, `abs`), else `t` itself."""
    if type(t) in _NUMBERS:
        return t
    if _registry._is_complex(t) and not _registry._is_complex(y):
        return t.real
    return t


def sign(x):
    fn = _impl("sign", "tangent.sign", (x,))
    if fn is not None:
        return fn(x)
    # int() first: a NumPy scalar's comparisons give NumPy bools, which do not subtract.
    return float(int(x > 0) - int(x < 0))


def output_seed(y, seed, index, weights, check, name):
    """The seed of a tuple output: `seed` at `index` (zeros elsewhere), or `seed` times
    each weight."""
    if not isinstance(y, (tuple, list)):
        raise ValueError(_at_call_site(
            "grad: output_index/output_weights need a function returning a tuple, but "
            "`%s` returned a %s" % (name, type(y).__name__),
            "drop output_index/output_weights for a single output"))
    n = len(y)
    if weights is not None:
        if len(weights) != n:
            raise ValueError(_at_call_site(
                "grad: output_weights has %d entries but `%s` returned %d values"
                % (len(weights), name, n),
                "pass one weight per returned value"))
        if check:
            for v in y:
                check_output(v, seed, name)
        return [w * seed for w in weights]
    if not -n <= index < n:
        raise IndexError(_at_call_site(
            "grad: output_index=%d is out of range: `%s` returned %d values"
            % (index, name, n),
            "pass an index between %d and %d" % (-n, n - 1)))
    if check:
        check_output(y[index], seed, name)
    out = [init_grad(v) for v in y]
    out[index] = seed
    return out


# ------------------------------------------------------------- native fast paths

# The helpers every adjoint calls get a native path for their common case (numbers,
# same-shape arrays, a float seed, 2-D products); anything else runs the Python
# definitions above. See src/host/rustpython/fast_helper.rs (check_output's is in
# tangent._errors).
# The helpers of scalar code (and `unbroadcast` of numbers) take `_NUMBERS`, the types
# their first test reads.
unbroadcast = fast_helper('unbroadcast', unbroadcast, _NUMBERS)
unbroadcast_left = fast_helper('unbroadcast_left', unbroadcast_left, _NUMBERS)
unbroadcast_right = fast_helper('unbroadcast_right', unbroadcast_right, _NUMBERS)
add_grad = fast_helper('add_grad', add_grad, _NUMBERS)
unreduce = fast_helper('unreduce', unreduce)
matmul_grad_left = fast_helper('matmul_grad_left', matmul_grad_left)
matmul_grad_right = fast_helper('matmul_grad_right', matmul_grad_right)
