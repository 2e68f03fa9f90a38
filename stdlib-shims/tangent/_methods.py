"""Methods of user classes: `obj.method(x)` where `method` is not an array method is
differentiated at run time, as the method's own function of (self, arguments), found the
way Python finds it (the type's MRO; staticmethod and classmethod unwrapped). The
generated code keeps the call as written and asks `method_grad` / `method_jvp` for the
derivative, which build it once per function and cache it.

Objects built in differentiated code, `Cls(args)`: the real constructor builds the
object; `construct_grad` / `construct_jvp` carry gradients between the object's fields
and the arguments: for a namedtuple or dataclass the fields are the arguments, for a
plain class its `__init__` is differentiated as the function of its arguments that
returns the fields it assigns (src/syntax/constructor.rs)."""
import dataclasses
import sys as _sys
import types as _types

from tangent._build import _generate
from tangent._errors import TangentError, _at_call_site
from tangent import _registry, _runtime

_memo = [None]  # (key, objects kept alive, gradients): one vjp serves every argument


def _method_function(obj, name):
    """(function, leading arguments): `obj.name(*args)` is `function(*leading, *args)`.
    Found as Python finds it: on a class, in its MRO (`Cls.method(obj, x)`); on an
    instance, in its type's MRO, else among its own attributes."""
    on_class = isinstance(obj, type)
    for klass in (obj if on_class else type(obj)).__mro__:
        if name in vars(klass):
            raw = vars(klass)[name]
            if not on_class:
                _refuse_library_method(obj, name, klass)
            break
    else:
        raw = None if on_class else vars(obj).get(name) if hasattr(obj, "__dict__") else None
        on_class = True  # an attribute of the instance is called as it is
    if isinstance(raw, staticmethod):
        return raw.__func__, ()
    if isinstance(raw, classmethod):
        return raw.__func__, (obj if isinstance(obj, type) else type(obj),)
    if hasattr(raw, "__func__") and hasattr(raw, "__self__"):  # a bound method
        return raw.__func__, (raw.__self__,)
    if hasattr(raw, "__code__"):
        return raw, () if on_class else (obj,)
    if isinstance(obj, super):
        bound = getattr(obj, name, None)
        if hasattr(bound, "__func__") and hasattr(bound, "__self__"):
            return bound.__func__, (bound.__self__,)
    raise TangentError(_at_call_site(
        "cannot differentiate `%s.%s(...)`: `%s` objects have no Python method `%s` "
        "(and it is not an array method with a derivative rule)"
        % (type(obj).__name__, name, type(obj).__qualname__, name),
        "call a function or method written in Python, or register a rule with "
        "@tangent.adjoint"))


def _refuse_library_method(obj, name, klass):
    """A method an array library defines (on its array class or a base of it) without a
    derivative rule is an error naming it: tangent differentiates library functions by
    their rules, never by reading the library's source (tinygrad's methods are Python
    over its lazy UOps)."""
    library = next((c for c in type(obj).__mro__ if _registry.is_array_type(c)), None)
    if library is None or klass not in library.__mro__:
        return
    raise TangentError(_at_call_site(
        "`.%s(...)` of a %s.%s has no derivative rule"
        % (name, library.__module__, library.__qualname__),
        "write it with methods that have rules, or register one: "
        "@tangent.adjoint(numpy.ndarray.%s) over a template (array methods are keyed "
        "under numpy.ndarray)" % name))


def _receiver(obj):
    """The object a method called on `obj` receives as `self`: `obj`, or the object a
    `super()` proxy stands for (its gradient is that object's)."""
    return obj.__self__ if isinstance(obj, super) else obj


def _holds_object(values):
    """Whether the method's first argument is an object of a user class (a plain object,
    a dataclass or namedtuple instance), never an array: inside the method, its methods
    and attributes are the class's (`self.mean()`), even when named like an array's."""
    return bool(values) and (_runtime._is_object(values[0]) or _runtime._is_record(values[0]))


def _with_defaults(fn, values):
    """`values` completed with `fn`'s defaults: the derivative's seed or tangents come
    after every parameter."""
    code = fn.__code__
    if code.co_kwonlyargcount or code.co_flags & 0x0C:
        raise TangentError(_at_call_site(
            "the method `%s` takes *args, **kwargs or keyword-only parameters, which a "
            "method differentiated as it runs cannot be given" % fn.__name__,
            "give the method plain positional parameters (or call a module-level "
            "function, whose keyword-only parameters are differentiated)"))
    missing = code.co_argcount - len(values)
    if missing > 0:
        defaults = fn.__defaults__ or ()
        if missing > len(defaults):
            raise TypeError(_at_call_site(
                "`%s` takes %d arguments, %d given" % (fn.__name__, code.co_argcount,
                                                       len(values)),
                "pass every argument of the method without a default"))
        values = values + tuple(defaults[len(defaults) - missing:])
    return values


def _net_module(obj):
    """Is `obj` a torch.nn.Module? Its methods are differentiated bound to it, so that
    the modules it holds (`self.fc1`) are known when its `forward` is transformed; its
    parameters are constants. Never imports torch."""
    torch = _sys.modules.get("torch")
    nn = getattr(torch, "nn", None)
    return nn is not None and isinstance(obj, nn.Module)


def _bound_values(obj, name, args):
    """(the bound method `obj.name`, its arguments with its defaults)."""
    bound = getattr(obj, name)
    values = _with_defaults(bound.__func__, (obj,) + tuple(args))[1:]
    return bound, values


_module_calls = {}


def _module_function(module, name, nargs):
    """`module.name(*args)` for a module passed as an argument (`def f(x, np)`): the call
    as a function of its arguments, reading the module under a global name, so the
    library function's derivative rule applies (a library's source is never read)."""
    key = (module.__name__, name, nargs)
    fn = _module_calls.get(key)
    if fn is None:
        params = ", ".join("a%d" % i for i in range(nargs))
        entry = "%s_%s" % (module.__name__.replace(".", "_"), name)
        text = "def %s(%s):\n    return module.%s(%s)\n" % (entry, params, name, params)
        namespace = {"module": module}
        exec(compile(text, "<tangent: %s.%s>" % (module.__name__, name), "exec"), namespace)
        fn = namespace[entry]
        fn.__tangent_text__ = text
        _module_calls[key] = fn
    return fn


def _method_call(obj, name, args):
    """`obj.name(*args)` as a function call: (function, its arguments with defaults,
    how many leading arguments come before `args`, whether the first of them is `obj`
    itself (its gradient is the object's), whether it receives an object of a user
    class)."""
    if _net_module(obj):
        bound, values = _bound_values(obj, name, args)
        return bound, values, 0, False, False
    if isinstance(obj, _types.ModuleType):
        return _module_function(obj, name, len(args)), tuple(args), 0, False, False
    fn, leading = _method_function(obj, name)
    values = _with_defaults(fn, leading + tuple(args))
    own = bool(leading) and leading[0] is _receiver(obj)
    return fn, values, len(leading), own, _holds_object(values)


def _grad_positions(values, own, with_obj):
    return tuple(i for i, v in enumerate(values)
                 if _runtime._differentiable_part(v) or (i == 0 and own and with_obj))


def _value_tangents(values, nlead, own, t_obj, t_args):
    """The tangent of each of the function's arguments (None: a constant)."""
    t_args = (None,) * (len(values) - nlead) if t_args is None else tuple(t_args)
    out = ((t_obj,) + (None,) * (nlead - 1) if own else (None,) * nlead) + t_args
    return out + (None,) * (len(values) - len(out))


def _position(which, nlead, own):
    """Where `obj` (which=-1) or argument `which` is among the function's arguments."""
    if which == -1:
        return 0 if own else None
    return nlead + which


def method_grad(g, obj, name, args, which):
    """The gradient of `obj.name(*args)` with respect to argument `which` (-1: `obj`
    itself), for the output's gradient `g`."""
    # Whether the object's own gradient is wanted is part of the key: a vjp made for the
    # arguments alone has none for the object.
    key = (id(g), id(obj), name, tuple(id(a) for a in args), which == -1)
    memo = _memo[0]
    if memo is None or memo[0] != key:
        fn, values, nlead, own, receiver = _method_call(obj, name, args)
        wrt = _grad_positions(values, own, which == -1)
        grads = {}
        if wrt:
            df = _generate(fn, wrt, True, False, False, 0, "reverse", receiver=receiver)
            out = df(*(values + (g,)))
            grads = dict(zip(wrt, out if len(wrt) > 1 else (out,)))
        memo = _memo[0] = (key, (g, obj, args), grads, nlead, own)
    grads, nlead, own = memo[2], memo[3], memo[4]
    return grads.get(_position(which, nlead, own))


def method_jvp(obj, name, args, t_obj, t_args):
    """The tangent of `obj.name(*args)` given the tangents of `obj` and of `args` (None
    for a constant)."""
    fn, values, nlead, own, receiver = _method_call(obj, name, args)
    tangents = _value_tangents(values, nlead, own, t_obj, t_args)
    wrt = tuple(i for i, t in enumerate(tangents) if t is not None)
    if not wrt:
        return None
    df = _generate(fn, wrt, True, False, False, 0, "forward", receiver=receiver)
    return df(*(values + tuple(tangents[i] for i in wrt)))


def method_grad_jvp(g, obj, name, args, which, t_g, t_obj, t_args):
    """The tangent of `method_grad(g, obj, name, args, which)` along the tangents of
    `g`, `obj` and `args` (forward over reverse: the method's gradient, differentiated
    in forward mode)."""
    fn, values, nlead, own, receiver = _method_call(obj, name, args)
    wrt = _grad_positions(values, own, which == -1)
    pos = _position(which, nlead, own)
    if pos not in wrt:
        return None
    tangents = _value_tangents(values, nlead, own, t_obj, t_args) + (t_g,)
    along = tuple(i for i, t in enumerate(tangents) if t is not None)
    if not along:
        return None
    df = _generate(fn, wrt, True, False, False, 0, "reverse", receiver=receiver)
    jf = _generate(df, along, True, False, False, 0, "forward")
    out = jf(*(values + (g,) + tuple(tangents[i] for i in along)))
    return out[wrt.index(pos)] if len(wrt) > 1 else out


def method_jvp_vjp(g, obj, name, args, t_obj, t_args, part, which):
    """The gradient of an operand of `method_jvp(obj, name, args, t_obj, t_args)` for
    the tangent's gradient `g` (reverse over forward): `part` is "obj", "args", "t_obj"
    or "t_args", `which` the argument's position (-1: the whole tuple)."""
    key = ("jvp", id(g), id(obj), name, tuple(map(id, args)), id(t_obj),
           None if t_args is None else tuple(map(id, t_args)))
    memo = _memo[0]
    if memo is None or memo[0] != key:
        fn, values, nlead, own, receiver = _method_call(obj, name, args)
        tangents = _value_tangents(values, nlead, own, t_obj, t_args)
        along = tuple(i for i, t in enumerate(tangents) if t is not None)
        grads = {}
        if along and g is not None:
            jf = _generate(fn, along, True, False, False, 0, "forward", receiver=receiver)
            inputs = tuple(values) + tuple(tangents[i] for i in along)
            wrt = _grad_positions(inputs, own, True)
            if wrt:
                vf = _generate(jf, wrt, True, False, False, 0, "reverse")
                out = vf(*(inputs + (g,)))
                grads = dict(zip(wrt, out if len(wrt) > 1 else (out,)))
        grads = {"values": {i: grads.get(i) for i in range(len(values))},
                 "tangents": {i: grads.get(len(values) + k) for k, i in enumerate(along)}}
        memo = _memo[0] = (key, (g, obj, args, t_obj, t_args), grads, nlead, own)
    grads, nlead, own = memo[2], memo[3], memo[4]
    side = grads["values" if part in ("obj", "args") else "tangents"]
    if part in ("obj", "t_obj"):
        return side.get(0) if own else None
    if which == -1:
        return tuple(side.get(nlead + i) for i in range(len(args)))
    return side.get(nlead + which)


def _python_init(cls):
    """The `__init__` that `cls(...)` runs, if it is a Python function (None for
    `object.__init__`)."""
    for klass in cls.__mro__:
        if "__init__" in vars(klass):
            init = vars(klass)["__init__"]
            return init if hasattr(init, "__code__") else (None if klass is object
                                                              else False)
    return None


def constructible(cls):
    """How tangent differentiates `cls(...)`: "namedtuple", "dataclass" (its fields are
    its arguments), "init" (a plain class whose `__init__` is Python code), or None (not
    a class tangent can build)."""
    if not isinstance(cls, type) or _registry.is_array_type(cls):
        return None
    if issubclass(cls, tuple) and hasattr(cls, "_fields") and type(cls).__call__ is \
            type.__call__:
        return "namedtuple"
    if dataclasses.is_dataclass(cls) and type(cls).__call__ is type.__call__:
        params = getattr(cls, "__dataclass_params__", None)
        return "dataclass" if params is None or params.init else None
    if _runtime.plain_class(cls) and _python_init(cls) is not False:
        return "init"
    return None


def _cannot_build(cls, why, fix):
    return TangentError(_at_call_site(
        "cannot differentiate building a `%s` object: %s" % (cls.__qualname__, why), fix))


def _post_init(cls):
    """A dataclass's `__post_init__` (a Python function of `self` alone), or None."""
    post = getattr(cls, "__post_init__", None)
    if post is None:
        return None
    code = getattr(post, "__code__", None)
    if code is None or code.co_argcount != 1 or code.co_flags & 0x0C:
        raise _cannot_build(
            cls, "its `__post_init__` takes arguments besides `self` (init-only "
            "variables) or is not Python code",
            "make the values it needs fields, or build the object outside the "
            "differentiated function")
    return post


def _init_fields(cls, kind):
    """The fields a namedtuple's or dataclass's constructor takes, in order."""
    if kind == "namedtuple":
        return list(cls._fields)
    fields = [f for f in dataclasses.fields(cls) if f.init]
    if any(isinstance(f.type, dataclasses.InitVar) for f in fields):
        raise _cannot_build(cls, "it has init-only variables (InitVar)",
                            "make them fields, or build the object outside")
    return [f.name for f in fields]


def _bind(names, args, kwargs, cls):
    """argument position or keyword -> field name, for a record's constructor."""
    if len(args) > len(names) or any(k not in names for k in kwargs):
        raise TypeError(_at_call_site(
            "`%s` takes the fields %s; the call passes %d positional argument(s) and %s"
            % (cls.__qualname__, ", ".join(names), len(args), ", ".join(kwargs) or
               "no keywords"), "pass each field once, by position or by name"))
    return {i: names[i] for i in range(len(args))}, {k: k for k in kwargs}


def _init_values(init, args, kwargs, cls):
    """The arguments of `init` after `self`, in order, with its defaults; and where each
    of the call's operands (position or keyword) went."""
    code = init.__code__
    params = list(code.co_varnames[1:code.co_argcount])
    if code.co_kwonlyargcount or code.co_flags & 0x0C:
        raise _cannot_build(cls, "its `__init__` takes *args, **kwargs or keyword-only "
                            "parameters", "give `__init__` plain positional parameters")
    if len(args) > len(params) or any(k not in params for k in kwargs):
        raise TypeError(_at_call_site(
            "`%s(...)` does not match `__init__(self, %s)`" % (cls.__qualname__,
                                                              ", ".join(params)),
            "pass the arguments `__init__` declares"))
    values = list(args) + [None] * (len(params) - len(args))
    where = {i: i for i in range(len(args))}
    for k, v in kwargs.items():
        values[params.index(k)] = v
        where[k] = params.index(k)
    defaults = init.__defaults__ or ()
    first_default = len(params) - len(defaults)
    for i in range(len(args), len(params)):
        if params[i] not in kwargs:
            if i < first_default:
                raise TypeError(_at_call_site(
                    "`%s(...)` lacks the argument `%s`" % (cls.__qualname__, params[i]),
                    "pass every argument of `__init__` without a default"))
            values[i] = defaults[i - first_default]
    return values, where


def construct_grad(g, cls, args, kwargs, which):
    """The gradient of the argument `which` (a position or a keyword) of `cls(*args,
    **kwargs)`, given `g`, the gradient of the object built."""
    key = ("construct", id(g), id(cls), tuple(id(a) for a in args),
           tuple((k, id(v)) for k, v in kwargs.items()))
    memo = _memo[0]
    if memo is None or memo[0] != key:
        kind = constructible(cls)
        if kind == "dataclass" and _post_init(cls) is not None:
            grads = _post_init_grads(g, cls, args, kwargs)
        elif kind in ("namedtuple", "dataclass"):
            by_pos, by_kw = _bind(_init_fields(cls, kind), args, kwargs, cls)
            grads = {w: (None if g is None else getattr(g, name))
                     for w, name in list(by_pos.items()) + list(by_kw.items())}
        elif kind == "init":
            grads = _init_grads(g, cls, args, kwargs)
        else:
            raise _cannot_build(cls, "it is not a namedtuple, a dataclass or a class with "
                                "a Python `__init__`", "build it outside the "
                                "differentiated function")
        memo = _memo[0] = (key, (g, cls, args, kwargs), grads)
    return memo[2].get(which)


def _init_grads(g, cls, args, kwargs):
    init = _python_init(cls)
    if init is None or g is None:
        return {}
    seed = dict(vars(g)) if _runtime._is_object(g) else {}
    with _building(cls):
        return _init_vjp(init, cls, args, kwargs, seed)


def _init_vjp(init, owner, args, kwargs, seed):
    """The gradient of each operand (position or keyword) of a call of the constructor
    `init` of `owner`, given `seed`, the gradient of the fields it assigns (a dict):
    `init` differentiated as a constructor (src/syntax/constructor.rs)."""
    values, where = _init_values(init, args, kwargs, owner)
    wrt = tuple(i for i, v in enumerate(values) if _runtime._differentiable_part(v))
    if not wrt:
        return {}
    df = _generate(init, wrt, True, False, False, 0, "reverse", constructor=True)
    out = df(*(tuple(values) + (seed,)))
    by_index = dict(zip(wrt, out if len(wrt) > 1 else (out,)))
    return {w: by_index.get(i) for w, i in where.items()}


def _dataclass_fields0(cls, args, kwargs):
    """(the fields a dataclass's generated `__init__` sets, name -> value; where each of
    the call's operands went): the arguments, else the fields' defaults."""
    by_pos, by_kw = _bind(_init_fields(cls, "dataclass"), args, kwargs, cls)
    values = {}
    for f in dataclasses.fields(cls):
        if f.name in by_pos.values() or f.name in by_kw:
            continue
        if f.default is not dataclasses.MISSING:
            values[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            values[f.name] = f.default_factory()
        elif f.init:
            raise TypeError(_at_call_site(
                "`%s(...)` lacks the field `%s`" % (cls.__qualname__, f.name),
                "pass every field without a default"))
    for i, name in by_pos.items():
        values[name] = args[i]
    for k in by_kw:
        values[k] = kwargs[k]
    where = dict(by_pos)
    where.update(by_kw)
    return values, where


def _post_init_grads(g, cls, args, kwargs):
    """construct_grad for a dataclass with a `__post_init__`: its gradient in the fields
    the generated `__init__` set, through `__post_init__` differentiated as a function of
    them (src/syntax/constructor.rs), then to the arguments."""
    fields0, where = _dataclass_fields0(cls, args, kwargs)
    if g is None:
        return {}
    names = {f.name for f in dataclasses.fields(cls)}
    # The gradient's attributes besides the dataclass's fields hold the object's own
    # values (attributes set by `__post_init__` are not differentiated through): zeros.
    seed = {k: (v if k in names else _runtime.zero_part(v)) for k, v in vars(g).items()}
    df = _generate(_post_init(cls), (0,), True, False, False, 0, "reverse",
                   constructor="post")
    with _building(cls):
        d0 = df(fields0, seed)
    return {w: d0.get(name) for w, name in where.items()}


def construct_jvp(obj, cls, args, kwargs, t_args, t_kwargs):
    """The tangent of `obj = cls(*args, **kwargs)` given the tangents of the arguments
    (None for a constant): an object of `obj`'s structure holding its fields' tangents."""
    kind = constructible(cls)
    if kind == "dataclass" and _post_init(cls) is not None:
        fields0, where = _dataclass_fields0(cls, args, kwargs)
        t0 = {k: _runtime.zero_part(v) for k, v in fields0.items()}
        for w, name in where.items():
            t = t_args[w] if isinstance(w, int) else t_kwargs[w]
            if t is not None:
                t0[name] = t
        df = _generate(_post_init(cls), (0,), True, False, False, 0, "forward",
                       constructor="post")
        with _building(cls):
            fields = df(fields0, t0)
        names = {f.name for f in dataclasses.fields(cls)}
        return _runtime._with_fields(_runtime.init_grad(obj),
                                     {k: v for k, v in fields.items() if k in names})
    if kind in ("namedtuple", "dataclass"):
        by_pos, by_kw = _bind(_init_fields(cls, kind), args, kwargs, cls)
        tangents = {name: t_args[i] for i, name in by_pos.items() if t_args[i] is not None}
        tangents.update({name: t_kwargs[k] for k, name in by_kw.items()
                         if t_kwargs[k] is not None})
        zero = _runtime.init_grad(obj)
        if kind == "namedtuple":
            return zero._replace(**tangents)
        return _runtime._with_fields(zero, tangents)
    if kind != "init":
        raise _cannot_build(cls, "it is not a namedtuple, a dataclass or a class with a "
                            "Python `__init__`", "build it outside the differentiated "
                            "function")
    init = _python_init(cls)
    zero = _runtime.init_grad(obj)
    if init is None:
        return zero
    values, where = _init_values(init, args, kwargs, cls)
    tangents = [None] * len(values)
    for i, t in enumerate(t_args):
        tangents[where[i]] = t
    for k, t in t_kwargs.items():
        tangents[where[k]] = t
    wrt = tuple(i for i, t in enumerate(tangents) if t is not None)
    if not wrt:
        return zero
    df = _generate(init, wrt, True, False, False, 0, "forward", constructor=True)
    with _building(cls):
        fields = df(*(tuple(values) + tuple(tangents[i] for i in wrt)))
    return _runtime._object_like(zero, dict(vars(zero), **fields))


# --- a parent's constructor inside a differentiated constructor ------------------------

class _building:
    """The class whose object a differentiated constructor builds, while it runs: a
    `super().__init__(...)` in it is resolved through that class's MRO."""
    stack = []

    def __init__(self, cls):
        self.cls = cls

    def __enter__(self):
        _building.stack.append(self.cls)

    def __exit__(self, *exc):
        _building.stack.pop()


def _parent_init(owner, after):
    """The `__init__` a parent constructor call runs: the one after `owner`'s in the MRO
    (`super().__init__`), or `owner`'s own (`Base.__init__(self, ...)`); None for
    `object.__init__`."""
    if after:
        # As Python resolves super(): after `owner` in the MRO of the object's class
        # (with multiple inheritance, not necessarily `owner`'s own parent).
        built = _building.stack[-1] if _building.stack else owner
        mro = built.__mro__ if owner in built.__mro__ else owner.__mro__
        rest = mro[mro.index(owner) + 1:]
    else:
        rest = owner.__mro__
    for klass in rest:
        if "__init__" in vars(klass):
            init = vars(klass)["__init__"]
            if klass is object:
                return None
            if not hasattr(init, "__code__"):
                raise _cannot_build(owner, "its parent `%s` has an `__init__` that is not "
                                    "Python code" % klass.__qualname__,
                                    "build the object outside the differentiated function")
            return init
    return None


def parent_fields(owner, args, kwargs, after):
    """The fields a parent's constructor assigns (name -> value), run on a blank object
    of `owner`'s class."""
    init = _parent_init(owner, after)
    if init is None:
        return {}
    obj = object.__new__(_building.stack[-1] if _building.stack else owner)
    init(obj, *args, **kwargs)
    return dict(vars(obj))


def parent_fields_grad(g, owner, args, kwargs, after, which):
    """The gradient of the positional arguments (which=0, a tuple) or the keywords (1, a
    dict) of `parent_fields(owner, args, kwargs, after)`, given `g`, the gradient of the
    fields (a dict)."""
    key = ("parent", id(g), id(owner), tuple(map(id, args)),
           tuple((k, id(v)) for k, v in kwargs.items()), after)
    memo = _memo[0]
    if memo is None or memo[0] != key:
        init = _parent_init(owner, after)
        grads = {}
        if init is not None and isinstance(g, dict):
            grads = _init_vjp(init, owner, args, kwargs, g)
        memo = _memo[0] = (key, (g, owner, args, kwargs), grads)
    grads = memo[2]
    if which == 0:
        return tuple(grads.get(i) for i in range(len(args)))
    return {k: grads.get(k) for k in kwargs}


def parent_fields_jvp(owner, args, kwargs, after, t_args, t_kwargs):
    """The tangent of `parent_fields(owner, args, kwargs, after)` (a dict) given the
    tangents of the arguments (a tuple, or 0.0 for none) and of the keywords."""
    init = _parent_init(owner, after)
    if init is None:
        return {}
    values, where = _init_values(init, args, kwargs, owner)
    tangents = [None] * len(values)
    if isinstance(t_args, (tuple, list)):
        for i, t in enumerate(t_args):
            tangents[where[i]] = t
    if isinstance(t_kwargs, dict):
        for k, t in t_kwargs.items():
            tangents[where[k]] = t
    wrt = tuple(i for i, t in enumerate(tangents)
                if t is not None and _runtime._differentiable_part(values[i]))
    if not wrt:
        return {k: _runtime.zero_part(v) for k, v in parent_fields(owner, args, kwargs,
                                                                   after).items()}
    df = _generate(init, wrt, True, False, False, 0, "forward", constructor=True)
    return df(*(tuple(values) + tuple(tangents[i] for i in wrt)))


def merge_fields(parent, own):
    """A constructor's fields: its parent's, updated with those it assigns itself."""
    out = dict(parent)
    out.update(own)
    return out


def merge_fields_grad(g, parent, own, which):
    """The gradient of the parent's fields (which=0; zero for those the constructor
    assigns again) or of its own (1) in `merge_fields(parent, own)`."""
    if which == 0:
        return {k: (_runtime.zero_part(v) if k in own or g is None else g[k])
                for k, v in parent.items()}
    return {k: (_runtime.zero_part(v) if g is None else g[k]) for k, v in own.items()}


def merge_fields_tangent(out, t_parent, t_own):
    """The tangent of `out = merge_fields(parent, own)` (a tangent that is not a dict is
    zero)."""
    t = {k: _runtime.zero_part(v) for k, v in out.items()}
    for part in (t_parent, t_own):
        if isinstance(part, dict):
            t.update(part)
    return t
