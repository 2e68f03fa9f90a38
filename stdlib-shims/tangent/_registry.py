"""The registries: which array library a value belongs to, found from its type.

Each array library registers its types once, in its own runtime module (`tangent._numpy`
at import when NumPy is there, `tangent._jax` when it loads): the array namespace of the
type (`register_namespace`) and its implementations of the generic helpers
(`register_init_grad`, `register_add_grad`, `register_unbroadcast`, `register_unreduce`,
`register_shape_function`, `register_matmul_grad`, and `register_helper` for the others).
The generic helpers of `tangent._runtime` handle numbers, None, lists and tuples
themselves and ask `implementation(kind, ...)` for the rest; they never test for a
library.

Lookup walks the type's MRO and is cached per type. A type no library registered whose
module is jax's (`jax.*`, `jaxlib.*`: arrays and tracers) loads `tangent._jax` first, one
from torch's modules (`torch.Tensor`) `tangent._torch`, so `import tangent` never imports
either library. NumPy's registrations are the default (weak): when
values of NumPy and of another library meet, the other library's implementation runs
(NumPy arrays convert into every other library's arrays), and values that are only
numbers, None, lists or tuples get NumPy's, as before there were registries.
"""
import sys as _sys
from tangent import _backends

_NAMESPACES = {}        # type -> array namespace module
_SCALARS = set()        # types whose values are numbers for the helpers (numpy.float64)
_IMPLS = {}             # kind -> {type: function}
_WEAK = set()           # types of the default library (numpy)
_DEFAULT = {}           # kind -> the default library's implementation
_TYPES_WITH = {}        # kind -> the types that registered it (`types_with_helper`)
_CACHE = {}             # (kind, type) -> (function or None, weak, state)
_BY_NAMESPACE = {}      # (id(namespace), kind) -> function (_NAMESPACES keeps it alive)

# Kinds a public `register_<kind>` names, with the call signature of the function.
KINDS = {
    "init_grad": "fn(x) -> a zero gradient shaped like x",
    "add_grad": "fn(a, b) -> a + b for gradients",
    "unbroadcast": "fn(g, like) -> g summed back to like's shape",
    "unreduce": "fn(g, x, axis, keepdims) -> g broadcast back to x's shape",
    "shape_function": "fn(x) -> what the tape keeps of x when only its shape is read",
    "matmul_grad": "fn(g, a, b, which) -> gradient of operand `which` (0: a, 1: b) of a @ b",
}

_PY_SCALARS = (bool, int, float, complex, type(None), list, tuple, str)

# States of a type for one kind.
_FOUND, _SCALAR, _MISSING, _UNKNOWN = range(4)


def _check_type(type_, what):
    if not isinstance(type_, type):
        raise TypeError("tangent.%s: expected a type (the class of the arrays), got %r"
                        % (what, type_))


def register_namespace(type_, namespace, scalar=False, default=False):
    """Maps an array type to its array namespace (numpy.ndarray -> numpy, jax.Array ->
    jax.numpy): the module whose functions (`sum`, `reshape`, `zeros`, `matmul`, ...) the
    rule helpers call on values of the type. `scalar=True`: values of the type are
    numbers for the helpers (NumPy's scalar types). `default=True` is NumPy's: its
    implementations yield to any other library's among the arguments of one call and
    serve calls whose arguments are only numbers, lists and tuples."""
    _check_type(type_, "register_namespace")
    _NAMESPACES[type_] = namespace
    if scalar:
        _SCALARS.add(type_)
    if default:
        _WEAK.add(type_)
    _CACHE.clear()


def types_with_helper(kind):
    """The types that registered helper `kind` themselves (a set kept current)."""
    return _TYPES_WITH.setdefault(kind, set())


def register_helper(kind, type_, fn):
    """Registers `fn` as the implementation of the generic helper `kind` (e.g.
    'init_grad', 'unbroadcast', 'add_grad_at', 'zero_grad_at', 'set_tangent_at',
    'sum_grad', 'broadcast_like', 'reduced_count', 'extremum_grad', 'extremum_tangent',
    'array_grad', 'copy', 'check_output', 'check_inplace', 'log', 'sign') for values of
    `type_` and its subclasses."""
    _check_type(type_, "register_" + kind)
    if not callable(fn):
        raise TypeError("tangent.register_%s: %r is not callable" % (kind, fn))
    _IMPLS.setdefault(kind, {})[type_] = fn
    _TYPES_WITH.setdefault(kind, set()).add(type_)
    if type_ in _WEAK:
        _DEFAULT[kind] = fn
    if type_ in _NAMESPACES:
        _BY_NAMESPACE[(id(_NAMESPACES[type_]), kind)] = fn  # namespaces may be unhashable
    _CACHE.clear()


def namespace_helper(namespace, kind, default=None):
    """The implementation of `kind` registered by the library whose array namespace is
    `namespace` (for helpers that compute in a namespace found from several arguments:
    'reshape_as', 'constant_dtype', 'to_python_scalar'), else `default`."""
    return _BY_NAMESPACE.get((id(namespace), kind), default)


def register_init_grad(type_, fn):
    """`fn(x)`: a zero gradient shaped like the value `x` of type `type_`."""
    register_helper("init_grad", type_, fn)


def register_add_grad(type_, fn):
    """`fn(a, b)`: the sum of two gradients (default: `a + b`)."""
    register_helper("add_grad", type_, fn)


def register_unbroadcast(type_, fn):
    """`fn(g, like)`: `g` summed over the axes along which `like` was broadcast."""
    register_helper("unbroadcast", type_, fn)


def register_unreduce(type_, fn):
    """`fn(g, x, axis, keepdims)`: the gradient of a reduction broadcast back to `x`."""
    register_helper("unreduce", type_, fn)


def register_shape_function(type_, fn):
    """`fn(x)`: what the tape keeps of `x` when the backward pass reads only its shape
    and dtype (an object with `.shape`, `.dtype`, `.ndim`; default: `x` itself)."""
    register_helper("shape_function", type_, fn)


def register_matmul_grad(type_, fn):
    """`fn(g, a, b, which)`: the gradient of operand `which` (0: a, 1: b) of `a @ b`."""
    register_helper("matmul_grad", type_, fn)


def entry_checks():
    """The argument checks the imported libraries ask derivatives to begin with (the
    helper the entry derivative calls first with the arguments and their names;
    src/ad `entry_checks`)."""
    return [b.entry_check for b in _backends.LAZY
            if b.entry_check is not None and b.name in _sys.modules]


def _lazy_module(type_):
    """The runtime module, not loaded yet, of the library `type_` comes from (jax's
    arrays and tracers, torch's tensors), else None. Read from module names: never
    imports the library (a value of such a type exists only once it is imported)."""
    backend = _backends.of_type(type_)
    if backend is None:
        return None
    runtime = _sys.modules.get(backend.runtime)
    if runtime is None or runtime.loaded():
        return None
    return runtime


def _resolve(kind, type_):
    mro = getattr(type_, "__mro__", (type_,))
    impls = _IMPLS.get(kind, {})
    for cls in mro:
        if cls in impls:
            return impls[cls], cls in _WEAK or _weak_owner(mro), _FOUND
        if cls in _NAMESPACES:
            if cls in _SCALARS:
                return None, True, _SCALAR
            return None, cls in _WEAK, _MISSING
    if issubclass(type_, _PY_SCALARS):
        return None, True, _SCALAR
    runtime = _lazy_module(type_)
    if runtime is not None:
        runtime.load()  # registers the library's types
        return _resolve(kind, type_)
    return None, False, _UNKNOWN


def _weak_owner(mro):
    for cls in mro:
        if cls in _NAMESPACES:
            return cls in _WEAK
    return False


def _lookup(kind, type_):
    key = (kind, type_)
    entry = _CACHE.get(key)
    if entry is None:
        entry = _CACHE[key] = _resolve(kind, type_)
    return entry


def _type_name(type_):
    module = getattr(type_, "__module__", None)
    name = getattr(type_, "__qualname__", type_.__name__)
    return name if module in (None, "builtins") else "%s.%s" % (module, name)


def unregistered_message(kind, operation, type_):
    """(message, hint) for a value of `type_` that no library registered (or that lacks
    an implementation of `kind`) reaching `operation`."""
    name = _type_name(type_)
    short = type_.__name__
    if type_ in _NAMESPACES or any(c in _NAMESPACES for c in type_.__mro__):
        message = ("tangent: %s needs `%s` for a value of type %s, and none is registered "
                   "for that type" % (operation, kind, name))
        register = ("tangent.register_%s(%s, fn)" % (kind, short) if kind in KINDS
                    else "tangent.register_helper(%r, %s, fn)" % (kind, short))
        return message, "register it: %s" % register
    message = ("tangent: %s got a value of type %s, which no array library registered "
               "with tangent" % (operation, name))
    register = ("tangent.register_%s(%s, fn)" % (kind, short) if kind in KINDS
                else "tangent.register_helper(%r, %s, fn)" % (kind, short))
    if kind == "namespace":
        register = "the helpers it needs (tangent.register_unbroadcast(%s, fn), ...)" % short
    hint = ("differentiate numbers, arrays and lists or tuples of them; for an array type "
            "of another library, register it: tangent.register_namespace(%s, "
            "its_array_namespace) and %s" % (short, register))
    from tangent._runtime import plain_class
    if plain_class(type_):
        # An object of a user class where an array was expected: perhaps a method of it
        # named like an array method (`s.mean()`) on a parameter of unknown type.
        hint += ("; or, if %s objects are not arrays, a method of theirs named like an "
                 "array method (`obj.mean()`, `obj.sum()`) was read as the array's: call "
                 "it through the class (`%s.mean(obj)`)" % (short, short))
    return message, hint


# Types whose values are never complex (the embedded numpy's arrays and scalars, Python's
# real numbers): the helpers skip the complex check for them.
_REAL_ONLY = {bool, int, float, type(None)}


def real_only(type_):
    """Declares that values of `type_` are never complex numbers."""
    _REAL_ONLY.add(type_)


# (helper kind, type) pairs whose implementation is right for complex values of the type:
# the rules' convention for them is JAX's (the adjoint of z = x + iy is dL/dx - i dL/dy,
# so rules of holomorphic functions are the real ones, and the adjoint or tangent of a
# real value stays real). Every other helper refuses a complex value.
_COMPLEX_AWARE = set()


def complex_aware(kind, *types):
    """Declares that the helper `kind` of each of `types` handles complex values."""
    for type_ in types:
        _COMPLEX_AWARE.add((kind, type_))


def _is_complex(v):
    """Whether `v` is a complex number or an array of complex numbers (NumPy's and JAX's
    dtypes by their kind, PyTorch's and TensorFlow's by `is_complex`)."""
    if isinstance(v, complex):
        return True
    dtype = getattr(v, "dtype", None)
    if dtype is None:
        return False
    kind = getattr(dtype, "kind", None)
    if isinstance(kind, str):
        return kind == "c"
    return getattr(dtype, "is_complex", False) is True


def complex_refused(operation):
    """The error for a complex value reaching a derivative: tangent's rules are for
    real numbers, and a complex value would make them give wrong numbers."""
    from tangent._errors import NotDifferentiated, _at_call_site
    return NotDifferentiated(_at_call_site(
        "tangent: a complex value reached %s, whose derivative is written for real numbers "
        "only (it would give wrong numbers for complex ones); complex values between real "
        "inputs and a real result are differentiated through NumPy's arithmetic, "
        "elementwise functions, sums, products, abs, real, imag, conj, angle and numpy.fft"
        % (operation,),
        "compute the complex part with those (carry real and imaginary parts as two real "
        "arrays elsewhere), or differentiate complex code with the framework's own "
        "autodiff (jax.grad, torch.autograd)"))


def _unregistered(kind, operation, type_):
    from tangent._errors import _at_call_site
    return TypeError(_at_call_site(*unregistered_message(kind, operation, type_)))


# Types whose values stand for an array they hold (keras.Variable: its `.value`):
# type -> fn(value) -> the array. While any is registered, the helpers `implementation`
# returns get every such argument as its array (the library's helpers would misread
# it); with none registered they are returned as they are, at no cost.
_UNWRAP = {}


def register_unwrap(type_, fn):
    """Values of `type_` stand for the array `fn(value)` in every helper."""
    _check_type(type_, "register_unwrap")
    _UNWRAP[type_] = fn
    _CACHE.clear()


def _unwrapped(v):
    for cls in type(v).__mro__:
        fn = _UNWRAP.get(cls)
        if fn is not None:
            return fn(v)
    if isinstance(v, (list, tuple)):
        return type(v)(_unwrapped(e) for e in v) if type(v) in (list, tuple) else v
    return v


def _unwrapping(fn):
    if fn is None:
        return fn

    def helper(*args, **kwargs):
        return fn(*[_unwrapped(a) for a in args], **kwargs)
    return helper


def implementation(kind, operation, values, strict=True, missing=None):
    """The implementation of helper `kind` for `values` (the arguments that decide):
    the first non-default library's among them, else the default library's (NumPy's),
    else None (no NumPy: the caller's code for numbers runs). `strict`: a value of a type
    no library registered, or of a registered type without this helper, is a TypeError
    naming the type and `operation` (never a silent zero); otherwise it is left to the
    default implementation, as values without a library always were. `missing`: the
    library-neutral implementation for a registered array type without its own."""
    chosen = None
    for v in values:
        t = type(v)
        if t not in _REAL_ONLY and _is_complex(v) and (kind, t) not in _COMPLEX_AWARE:
            raise complex_refused(operation)
        fn, weak, state = _lookup(kind, t)
        if state == _FOUND:
            if not weak and chosen is None:
                chosen = fn  # the rest are still checked: an unknown type among them
                # (say the `like` of unbroadcast) would be misread by this library
        elif state == _MISSING:
            if weak or chosen is not None:
                continue  # the default library's own type, or a library already chose
            if missing is not None:
                return _unwrapping(missing) if _UNWRAP else missing
            if strict:
                raise _unregistered(kind, operation, type(v))
        elif state == _UNKNOWN and strict:
            raise _unregistered(kind, operation, type(v))
    fn = chosen if chosen is not None else _DEFAULT.get(kind)
    return _unwrapping(fn) if _UNWRAP else fn


def namespace_of(*values, operation="this operation"):
    """The array namespace of `values` (elements of lists and tuples among them
    included): that of the first value of a non-default library, else the default
    library's (numpy). A value of a type no library registered is a TypeError."""
    found = None
    for v in values:
        if isinstance(v, (list, tuple)):
            for e in v:
                ns = _namespace(e, operation)
                if ns is not None and ns[1] is False:
                    return ns[0]
            continue
        ns = _namespace(v, operation)
        if ns is not None:
            if not ns[1]:
                return ns[0]
            found = found or ns[0]
    if found is not None:
        return found
    return _default_namespace()


def _default_namespace():
    for type_ in _WEAK:
        if type_ not in _SCALARS:
            return _NAMESPACES[type_]
    raise TypeError("tangent: no array library is available (NumPy is not installed)")


def _namespace(v, operation):
    """(namespace, weak) of `v`'s type, None for numbers and None."""
    type_ = type(v)
    entry = _CACHE.get(("namespace", type_))
    if entry is None:
        entry = None
        for cls in getattr(type_, "__mro__", (type_,)):
            if cls in _NAMESPACES:
                entry = (_NAMESPACES[cls], cls in _WEAK)
                break
        if entry is None:
            if issubclass(type_, _PY_SCALARS):
                entry = False
            elif _lazy_module(type_) is not None:
                _lazy_module(type_).load()
                return _namespace(v, operation)
            else:
                raise _unregistered("namespace", operation, type_)
        _CACHE[("namespace", type_)] = entry
    return entry or None


def is_array(x):
    """Is `x` a value of a registered array type (not a number of a scalar type)?"""
    return is_array_type(type(x))


def is_array_type(cls):
    """Is `cls` a registered array type (not a scalar type)?"""
    fn, weak, state = _lookup("namespace?", cls)
    return state == _MISSING


def immutable(x):
    """Are values of `x`'s type immutable (numbers of a registered scalar type, or a
    library registered `immutable` for the type: JAX arrays)? `y += v` then rebinds."""
    fn, weak, state = _lookup("immutable", type(x))
    return (state == _SCALAR and not isinstance(x, list)) or (state == _FOUND and fn(x))
