"""Methods of user classes: `obj.method(x)` where `method` is not an array method is
differentiated at run time, as the method's own function of (self, arguments), found the
way Python finds it (the type's MRO; staticmethod and classmethod unwrapped). The
generated code keeps the call as written and asks `method_grad` / `method_jvp` for the
derivative, which build it once per function and cache it."""
from tangent._build import _generate
from tangent._errors import TangentError, _at_call_site
from tangent import _registry

_memo = [None]  # (key, objects kept alive, gradients): one vjp serves every argument


def _method_function(obj, name):
    """(function, leading arguments): `obj.name(*args)` is `function(*leading, *args)`.
    Found as Python finds it: on a class, in its MRO (`Cls.method(obj, x)`); on an
    instance, in its type's MRO, else among its own attributes."""
    on_class = isinstance(obj, type)
    for klass in (obj if on_class else type(obj)).__mro__:
        if name in vars(klass):
            raw = vars(klass)[name]
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


def _with_defaults(fn, values):
    """`values` completed with `fn`'s defaults: the derivative's seed or tangents come
    after every parameter."""
    code = fn.__code__
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


def _differentiable(v):
    return (isinstance(v, (float, int)) and not isinstance(v, bool)) or _registry.is_array(v)


def method_grad(g, obj, name, args, which):
    """The gradient of `obj.name(*args)` with respect to argument `which` (-1: `obj`
    itself), for the output's gradient `g`."""
    if which == -1 and isinstance(obj, super):
        raise TangentError(_at_call_site(
            "the derivative with respect to `self` through `super().%s(...)` is not "
            "available" % name,
            "call the parent class's function explicitly (`Base.%s(self, ...)`)" % name))
    # Whether the object's own gradient is wanted is part of the key: a vjp made for the
    # arguments alone has none for the object.
    key = (id(g), id(obj), name, tuple(id(a) for a in args), which == -1)
    memo = _memo[0]
    if memo is None or memo[0] != key:
        fn, leading = _method_function(obj, name)
        values = _with_defaults(fn, leading + tuple(args))
        own = 1 if leading and leading[0] is obj else 0
        wrt = tuple(i for i, v in enumerate(values)
                    if _differentiable(v) or (i == 0 and own and which == -1))
        grads = {}
        if wrt:
            df = _generate(fn, wrt, True, False, False, 0, "reverse")
            out = df(*(values + (g,)))
            out = out if len(wrt) > 1 else (out,)
            grads = dict(zip(wrt, out))
        memo = _memo[0] = (key, (g, obj, args), grads, len(leading), own)
    grads, nlead, own = memo[2], memo[3], memo[4]
    if which == -1:
        if not own:
            return None
        return grads.get(0)
    return grads.get(nlead + which)


def method_jvp(obj, name, args, t_obj, t_args):
    """The tangent of `obj.name(*args)` given the tangents of `obj` and of `args` (None
    for a constant)."""
    fn, leading = _method_function(obj, name)
    values = _with_defaults(fn, leading + tuple(args))
    tangents = ((t_obj,) if leading and leading[0] is obj else (None,) * len(leading)) \
        + tuple(t_args)
    tangents = tangents + (None,) * (len(values) - len(tangents))
    wrt = tuple(i for i, t in enumerate(tangents) if t is not None)
    if not wrt:
        return None
    df = _generate(fn, wrt, True, False, False, 0, "forward")
    return df(*(values + tuple(tangents[i] for i in wrt)))
