"""Building derivatives: the in-memory cache (`_generate`), the transformer's answer
(`_build`: `_tangent.ask(request)`, `_request`), compilation of the generated
source in the user's globals (`_compile`), and the `compile=` wrappers (native code,
jax.jit)."""
import _tangent
import functools as _functools
import operator as _operator
import math
import sys as _sys

from tangent._errors import TangentError, _at_call_site
from tangent import _backends, _live
from tangent._live import _is_star_wrapper, _live_request, _unwrap_transparent, bindings_hold

try:
    import numpy
except ImportError:  # CPython without NumPy
    numpy = None


def _package():
    """`tangent` itself: the settings a user may assign (`tangent.literal_reverse_over_
    reverse`, `tangent._CACHE_SIZE`) are read there."""
    return _sys.modules["tangent"]


# The in-memory LRU cache: repeated requests for the same derivative return the function
# already built. Keys hold the code object itself, so an id cannot be reused while cached.
# The dict's insertion order is the recency order: a hit moves its entry to the end and
# the first entry is the one evicted.
_CACHE = {}
_CACHE_SIZE = 256
_rules_generation = [0]
# Counters a user (or a test) can read: derivatives served by the disk cache, and disk
# entries rejected because a global they read no longer resolves.
stats = {"disk_hits": 0, "disk_rejected": 0, "memory_hits": 0, "memory_misses": 0}



def _cache_key(func, args, bound_self=None):
    return (id(func), func.__code__, id(func.__globals__), _rules_generation[0],
            id(bound_self[0]) if bound_self else None) + args


def _bound_method(func):
    """(the function, (its object,)) of a bound method (`obj.method`, or a classmethod
    bound to its class), else (func, None): the object is a constant of the derivative,
    read from a closure cell, and the method's other parameters are its arguments."""
    target = getattr(func, "__func__", None)
    owner = getattr(func, "__self__", None)
    if (target is not None and owner is not None and hasattr(target, "__code__")
            and not isinstance(owner, type(_sys))):
        return target, (owner,)
    return func, None


_SPECIALIZED = {}  # id(wrapper) -> (wrapper, its specialised function)
_EXTENDED = {}  # file -> its text with the specialised wrappers appended so far


def _specialized_wrapper(wrapper):
    """A decorator's `def wrapper(*args, **kwargs)` (functools.wraps) as the function of
    the wrapped function's parameters that does what the wrapper does: the parameters
    passed on where it calls `f(*args, **kwargs)`, `args` read as their tuple and
    `kwargs` as an empty dict. Compiled in the wrapper's globals, with its closure's
    values, from the text of its file with the new `def` appended (so the wrapped
    function is the file's own); positions of `wrt` are the wrapped function's. Anything
    else the wrapper does with `args`/`kwargs` is a located TangentError."""
    import ast
    import inspect
    cached = _SPECIALIZED.get(id(wrapper))
    if cached is not None and cached[0] is wrapper:
        return cached[1]
    name = getattr(wrapper, "__name__", "f")

    def refuse(why):
        return TangentError(_at_call_site(
            "cannot differentiate through the decorator's wrapper `%s` (functools.wraps "
            "over *args/**kwargs): %s" % (name, why),
            "differentiate the undecorated function, tangent.grad(%s.__wrapped__), if the "
            "wrapper does not change the value; or give the wrapper the wrapped "
            "function's parameters" % name))
    target = inspect.unwrap(wrapper.__wrapped__)
    tcode = getattr(target, "__code__", None)
    if tcode is None or tcode.co_flags & 0x0C or tcode.co_kwonlyargcount:
        raise refuse("the wrapped function does not take plain positional parameters")
    params = list(tcode.co_varnames[:tcode.co_argcount])
    code = wrapper.__code__
    text = _live._read_source(wrapper, code.co_filename)
    if text is None:
        raise refuse("its source text is not available")
    node = None
    for n in ast.walk(ast.parse(text)):
        if isinstance(n, ast.FunctionDef) and n.name == code.co_name and (
                n.lineno == code.co_firstlineno
                or any(d.lineno == code.co_firstlineno for d in n.decorator_list)):
            node = n
    a = node.args if node is not None else None
    if (a is None or a.args or a.posonlyargs or a.kwonlyargs or a.vararg is None
            or a.kwarg is None):
        raise refuse("it is not `def %s(*args, **kwargs)`" % name)
    star, kw = a.vararg.arg, a.kwarg.arg
    clash = set(params) & (set(code.co_varnames) | set(code.co_freevars))
    if clash:
        raise refuse("the wrapped function's parameter `%s` is also a name of the wrapper"
                     % sorted(clash)[0])

    class Specialize(ast.NodeTransformer):
        """`f(*args, **kwargs)` -> `f(p1, p2, ...)`; any other use of `args` or `kwargs`
        is refused: what it sees depends on how the caller passes the arguments
        (positions, keywords, defaults left out), which one function cannot follow."""

        def visit_Call(self, call):
            args = []
            for x in call.args:
                if isinstance(x, ast.Starred) and isinstance(x.value, ast.Name) and \
                        x.value.id == star:
                    args.extend(ast.Name(id=p, ctx=ast.Load()) for p in params)
                else:
                    args.append(self.visit(x))
            keywords = []
            for k in call.keywords:
                if k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kw:
                    continue
                k.value = self.visit(k.value)
                keywords.append(k)
            call.func = self.visit(call.func)
            call.args, call.keywords = args, keywords
            return call

        def visit_Name(self, n):
            if n.id in (star, kw):
                raise ValueError(n.id)
            return n

    try:
        body = [Specialize().visit(stmt) for stmt in node.body]
    except ValueError as e:
        # Raised here, so that the error names the caller's line, not ast's.
        raise refuse("it uses `%s` other than to pass it on as `f(*%s, **%s)`, and what it "
                     "holds depends on how the caller passes the arguments"
                     % (e.args[0], star, kw)) from None
    written = []
    for v in target.__defaults__ or ():
        try:
            literal = ast.parse(repr(v), mode="eval").body
            ok = ast.literal_eval(literal) == v
        except (SyntaxError, ValueError, TypeError):
            ok = False
        if not ok:
            raise refuse("the wrapped function has a default (%r) that is not a literal"
                         % (v,))
        written.append(literal)
    spec = ast.FunctionDef(
        name=code.co_name, args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=p) for p in params], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None,
            defaults=written), body=body, decorator_list=[], returns=None, type_comment=None)
    free = list(code.co_freevars)
    factory = ast.FunctionDef(
        name="_tangent_wrapper_of_" + code.co_name, args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=v) for v in free], vararg=None,
            kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[spec, ast.Return(value=ast.Name(id=code.co_name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_comment=None)
    mod = ast.Module(body=[factory], type_ignores=[])
    ast.fix_missing_locations(mod)
    addition = ast.unparse(mod)
    # A wrapper of a wrapper (stacked decorators): the inner one specialised first, so
    # the outer one's text holds its `def` too.
    cells = [_specialized_wrapper(v) if _is_star_wrapper(v) else v
             for v in (c.cell_contents for c in (wrapper.__closure__ or ()))]
    extended = _EXTENDED.get(code.co_filename)
    base = extended if extended is not None and extended.startswith(text) else text
    if not base.endswith("\n"):
        base += "\n"
    lines = base.count("\n")
    full = base + addition + "\n"
    _EXTENDED[code.co_filename] = full
    compiled = compile("\n" * lines + addition + "\n", code.co_filename, "exec")
    namespace = {}
    exec(compiled, wrapper.__globals__, namespace)
    made = namespace[factory.name](*cells)
    # What the wrapper's own code may read of the function it wraps (`fn.__name__` in a
    # logging decorator) is the wrapper's metadata, as in the primal.
    _functools.update_wrapper(made, wrapper)
    made.__wrapped__ = wrapper.__wrapped__
    made.__tangent_text__ = full
    made.__tangent_specialized__ = True
    _SPECIALIZED[id(wrapper)] = (wrapper, made)
    return made


def _generate(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
              output_index=None, output_weights=None, motion="joint", optimizations=(),
              checkpoint=False, compile="python", source=None, constructor=False,
              receiver=False):
    """The derivative of `func` (cached). With `constructor`, `func` is a class's
    `__init__`, differentiated as the function of its arguments after `self` that
    returns the fields it assigns (`tangent.construct_grad`); `constructor="post"`: a
    dataclass's `__post_init__`, as the function of the dict of the fields the
    dataclass's `__init__` set. With `receiver`, its first
    parameter is the object of a user class a method is differentiated for (its methods
    and attributes are the class's, even when named like an array's)."""
    func = getattr(func, "__tangent_undecorated__", func)  # tangent.tangent(f): f's blocks
    if isinstance(func, _functools.partial):
        return _partial_derivative(func, wrt, (optimized, preserve_result, check_dims, verbose,
                                               mode, output_index, output_weights, motion,
                                               optimizations, checkpoint, compile, source))
    torch = _sys.modules.get("torch")
    if getattr(torch, "nn", None) is not None and isinstance(func, torch.nn.Module):
        # A network module: its `forward`, the module a constant of the derivative (its
        # `__call__` is torch's hook machinery).
        func = func.forward
    if (not hasattr(func, "__code__") and not hasattr(func, "__func__")
            and not isinstance(func, type) and hasattr(type(func), "__call__")
            and hasattr(type(func).__call__, "__code__")):
        # An instance of a class with `__call__` (a model object): its bound method, the
        # object a constant of the derivative.
        func = func.__call__
    func, bound_self = _bound_method(_unwrap_transparent(func))
    code = getattr(func, "__code__", None)
    if _is_star_wrapper(func):
        # functools.wraps over `def wrapper(*args, **kwargs)`: differentiated as the
        # wrapper written with the wrapped function's parameters.
        func = _specialized_wrapper(func)
        code = func.__code__
    if code is None:
        raise TypeError(_at_call_site(
            "tangent expects a Python function, got %r" % (func,),
            "pass a function (a `def`, a lambda, a closure or a bound method); to "
            "differentiate a built-in, register a rule with @tangent.adjoint"))
    # A constructor's `self` is not a parameter of its derivative (`__post_init__`'s is
    # replaced by the dict of the fields so far).
    wrt = _positions(wrt, func, code,
                     1 if bound_self or (constructor and constructor != "post") else 0)
    key = _cache_key(func, (wrt, bool(optimized), bool(preserve_result), bool(check_dims),
                            mode, output_index, output_weights, motion,
                            tuple(optimizations), bool(checkpoint), compile, source,
                            getattr(func, "__tangent_text__", None), constructor,
                            receiver,
                            # A derivative of a derivative is built one of two ways.
                            bool(_package().literal_reverse_over_reverse)),
                     bound_self)
    cached = _CACHE.pop(key, None)
    if cached is not None and not bindings_hold(cached[3]):
        cached = None  # a name it called through was rebound since: build it again
    if cached is not None:
        stats["memory_hits"] += 1
        _CACHE[key] = cached
        if verbose:
            print(cached[1].__tangent_source__)
        return cached[1]
    stats["memory_misses"] += 1
    # Source for native code keeps every value on the tape (src/opt/recompute.rs): native
    # code reads its tape faster than it computes values again.
    native = compile != "python" and compile not in _backends.COMPILERS \
        and motion == "joint"
    passes = tuple(optimizations) + (("native_tape",) if native else ())
    fn = _build(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
                output_index, output_weights, motion, passes, checkpoint, bound_self,
                source, constructor, receiver)
    bindings = getattr(fn, "__tangent_bindings__", None)
    if compile in _backends.COMPILERS and motion != "joint":
        raise TangentError(_at_call_site(
            "compile=%r applies to motion='joint' derivatives, not motion=%r"
            % (compile, motion),
            "use motion='joint' with compile=%r, or compile='python' for split motion"
            % (compile,)))
    if compile in _backends.COMPILERS:
        fn = _library_compiled(_backends.BY_NAME[compile], fn, func)
    elif native:
        compiled = _native(fn, compile)
        if compiled is fn:
            # Interpreted after all: the source that computes values again.
            fn = _build(func, wrt, optimized, preserve_result, check_dims, 0, mode,
                        output_index, output_weights, motion, optimizations, checkpoint,
                        bound_self, source, constructor, receiver)
            bindings = getattr(fn, "__tangent_bindings__", None)
        else:
            fn = compiled
    # Keeps `func` alive, so its id stays unique.
    _CACHE[key] = (func, fn, bound_self, bindings)
    _evict()
    return fn


def _partial_derivative(p, wrt, options):
    """The derivative of a `functools.partial` object: that of its function, `wrt`
    counting the parameters the partial leaves (positional ones not bound by keyword),
    called with the bound arguments in place. Extra positional arguments (the seed of a
    gradient, the tangents of forward mode) follow the function's own parameters."""
    inner = p.func
    code = getattr(_unwrap_transparent(inner), "__code__", None)
    if code is None or hasattr(inner, "__self__"):
        raise TypeError(_at_call_site(
            "tangent: a functools.partial of %r: only partials of Python functions are "
            "differentiated" % (inner,), "write a function that calls it"))
    names = code.co_varnames[:code.co_argcount]
    keywords = dict(p.keywords)
    free = [i for i in range(len(p.args), len(names)) if names[i] not in keywords]
    name = getattr(inner, "__name__", "partial")
    positions = _positions(wrt, _Named(name), _Params([names[i] for i in free]))
    df = _generate(inner, tuple(free[i] for i in positions), *options)

    def partial_derivative(*args, **kwargs):
        # the function's parameters in order: bound ones in place, the others from the
        # call; what is left of the call (seed, tangents) comes after them
        given = dict(keywords)
        given.update(kwargs)
        full = list(p.args)
        rest = list(args)
        for param in names[len(p.args):]:
            if param in given:
                full.append(given.pop(param))
            elif rest:
                full.append(rest.pop(0))
            else:
                break  # the function's defaults
        return df(*(full + rest), **given)

    partial_derivative.__name__ = getattr(df, "__name__", "d" + name)
    for attr in ("__tangent_source__", "__tangent_mode__", "__tangent_wrt__"):
        if hasattr(df, attr):
            setattr(partial_derivative, attr, getattr(df, attr))
    partial_derivative.__wrapped__ = df
    return partial_derivative


class _Named:
    def __init__(self, name):
        self.__name__ = name


class _Params:
    """What `_positions` reads of a code object: the parameter names."""

    co_flags = 0

    def __init__(self, names):
        self.co_varnames = tuple(names)
        self.co_argcount = len(names)


def _evict():
    """Drops the least recently used derivatives beyond `tangent._CACHE_SIZE`."""
    while len(_CACHE) > max(0, _package()._CACHE_SIZE):
        del _CACHE[next(iter(_CACHE))]


def _positions(wrt, func, code, skip=0):
    """`wrt` as a tuple of argument positions: an int, a parameter name, or a sequence of
    these; negative positions count from the end, as in Python indexing. `skip` leading
    parameters are bound (a bound method's `self`)."""
    items = (wrt,) if isinstance(wrt, (int, str)) else wrt
    try:
        items = tuple(items)
    except TypeError:
        items = None
    params = code.co_varnames[skip:code.co_argcount]
    out = []
    for w in items if items is not None else (wrt,):
        if isinstance(w, str) and w in params:
            w = params.index(w)
        if isinstance(w, bool) or not isinstance(w, int) or not -len(params) <= w < len(params):
            if code.co_flags & 0x04:  # *args: its arguments are not parameters of wrt
                star = code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
                raise ValueError(_at_call_site(
                    "wrt=%r: `%s` takes `*%s`, whose arguments have no position of their "
                    "own to differentiate with respect to" % (wrt, func.__name__, star),
                    "give them names: tangent.grad(lambda a, b: %s(a, b)), or take a tuple "
                    "argument and differentiate with respect to it" % func.__name__))
            raise ValueError(_at_call_site(
                "wrt=%r: `%s` has %d argument(s) (%s), so wrt must name them by position "
                "0..%d (or -%d..-1 from the end) or by name"
                % (wrt, func.__name__, len(params), ", ".join(params),
                   max(len(params) - 1, 0), len(params)),
                "for example wrt=(0,) for `%s`" % (params[0] if params else "x")))
        out.append(w % len(params))
    return tuple(out)


def _entry_name(func, constructor=False):
    """The derivative's primal name: the function's, `lambda_` for a lambda,
    `Poly_init` for the `__init__` of `Poly` differentiated as a constructor."""
    name = func.__name__
    if constructor:
        owner = func.__qualname__.rsplit(".", 2)[-2] if "." in func.__qualname__ else ""
        suffix = "post_init" if constructor == "post" else "init"
        name = "%s_%s" % (owner, suffix) if owner.isidentifier() else suffix
    return name if isinstance(name, str) and name.isidentifier() else "lambda_"


# The version of the request's fields (`src/seam.rs`, `VERSION`).
_SEAM_VERSION = 2


def _request(file, function, options, code, use_cache=True, joint_recursion=False):
    """The derivative request `_tangent.ask` takes (its fields: src/seam.rs)."""
    request = dict(options)
    request.update(ask="grad", version=_SEAM_VERSION, file=file, function=function, code=code,
                   use_cache=use_cache, joint_recursion=joint_recursion)
    return request


def _ask(request):
    """(ok, source or message, entry, from_cache) of `_tangent.ask`'s answer to a
    derivative request."""
    answer = _tangent.ask(request)
    if answer["outcome"] == "derivative":
        return True, answer["source"], answer["entry"], answer["from_cache"]
    return False, answer["message"], "", False


def _build(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
           output_index, output_weights, motion, optimizations, checkpoint,
           bound_self=None, text=None, constructor=False, receiver=False):
    code = func.__code__
    cells = getattr(func, "__tangent_cells__", None) or {}
    live_request = getattr(func, "__tangent_live__", None)
    source = getattr(func, "__tangent_source__", None)
    if (source is not None and mode == "reverse" and not _package().literal_reverse_over_reverse
            and getattr(func, "__tangent_mode__", None) == "reverse"
            and _symmetric_shortcut_applies(func, wrt, preserve_result)):
        return _reverse_of_generated(func, wrt, optimized, preserve_result, verbose)
    joint = None
    if source is not None and getattr(func, "__tangent_joint__", None) is not None:
        # The derivative gives recursive callees two-phase gradients that share its tape
        # between calls; a derivative of it is built from the joint-motion form.
        source = func.__tangent_joint__()
    options = dict(
        wrt=[_operator.index(w) for w in wrt], mode=mode, optimized=bool(optimized),
        preserve_result=bool(preserve_result), check_dims=bool(check_dims),
        motion="split" if motion == "split" else "joint", checkpoint=bool(checkpoint),
        output_index=None if output_index is None else _operator.index(output_index),
        output_weights=None if output_weights is None else [float(w) for w in output_weights],
        optimizations=list(optimizations))
    if source is not None:
        # A derivative of a derivative: differentiate the generated source.
        context = func.__tangent_file__
        ok, payload, entry, _ = _ask(_request(
            context, func.__name__, options,
            dict(kind="generated", source=source, first=live_request,
                 modules=list(_backends.RUNTIME_MODULES))))
    else:
        context = code.co_filename
        name = _entry_name(func, constructor)
        # A decorator's wrapper (functools.wraps) is differentiated as what it is: its
        # own code, reading the wrapped function from its closure.
        live = _live_request(func, context, _rules_generation[0], name, text=text,
                             bound_self=bound_self, constructor=constructor,
                             receiver=receiver)
        if live is None:
            raise TangentError(_at_call_site(
                "no source text for `%s`: %s is not a file, and the code that made it "
                "kept none (exec, python -c)" % (func.__name__, context),
                "pass the text it was defined with: tangent.grad(f, source=text), or "
                "tangent.function(f, source=text) where it is defined"))
        live_text, live_names, cells, bindings = live
        # The request this derivative is made from (src/engine.rs `FirstRequest`): a
        # derivative of it resolves its names the same way.
        live_request = dict(text=live_text, names=live_names, function=name)
        code_of = dict(kind="live", text=live_text, names=live_names)
        ok, payload, entry, from_cache = _ask(_request(context, name, options, code_of))
        if ok and from_cache:
            stats["disk_hits"] += 1
        if ok and from_cache and not _resolves(payload, func.__globals__, cells):
            stats["disk_rejected"] += 1
            # A disk-cache entry whose globals no longer resolve: transform again.
            ok, payload, entry, _ = _ask(_request(context, name, options, code_of,
                                                  use_cache=False))
        if ok and "_reverse_phase" in payload:
            request = _request(context, name, options, code_of, joint_recursion=True)

            def joint():
                done, text, _, _ = _ask(request)
                if not done:
                    raise TangentError(text)
                return text
    if not ok:
        raise TangentError(payload)
    if verbose:
        print(payload)
    if source is not None:
        # The derivative calls the functions of the derivative it was made from.
        payload = payload + "\n\n" + source
    fn = _compile(payload, entry, func.__globals__, cells)
    # A derivative of a derivative depends on what the first one was resolved against.
    fn.__tangent_bindings__ = bindings if source is None else \
        getattr(func, "__tangent_bindings__", None)
    fn.__tangent_cells__ = cells
    fn.__tangent_live__ = live_request
    fn.__tangent_file__ = context
    fn.__tangent_joint__ = joint
    fn.__tangent_mode__ = mode
    fn.__tangent_wrt__ = wrt
    return fn


def _say_interpreted(message):
    import sys
    print("tangent: " + message, file=sys.stderr)


def _native(fn, mode):
    """`fn` as native code where the compiler takes it (see _COMPILE_MODES)."""
    request = dict(version=_SEAM_VERSION, source=fn.__tangent_source__, entry=fn.__name__,
                   strict=mode == "native!", module_file=fn.__tangent_file__)
    native, why = _tangent.jit(request, fn, _say_interpreted if mode == "native" else None)
    if native is not None:
        return native
    if mode == "native!":
        raise TangentError("compile='native!': `%s` cannot be compiled: %s"
                           % (fn.__name__, why))
    message = "compile=%r: `%s` runs interpreted: %s" % (mode, fn.__name__, why)
    if mode == "native":
        _say_interpreted(message)
    return fn


def _library_compiled(backend, fn, func):
    """compile=<library>: the library runtime's `compiled(fn, func)`, or a TangentError
    when the library is not installed (checked without importing it when it is there)."""
    import importlib.util
    if backend.name not in _sys.modules and importlib.util.find_spec(backend.name) is None:
        raise TangentError(_at_call_site(
            "compile=%r needs %s, which is not installed" % (backend.name, backend.name),
            "install it (pip install %s), or use compile='python'" % backend.pip))
    return _sys.modules[backend.runtime].compiled(fn, func)


def _as_compiled(wrapper, fn, mode):
    """`wrapper` (fn under a library's compiler) carries fn's name and tangent's
    attributes (`__tangent_source__` stays the readable Python), `__wrapped__` and
    `__tangent_compile__ = mode`."""
    for attr in ("__name__", "__qualname__", "__doc__", "__tangent_source__",
                 "__tangent_file__", "__tangent_mode__", "__tangent_wrt__",
                 "__tangent_cells__", "__tangent_live__", "__tangent_bindings__"):
        if hasattr(fn, attr):
            try:
                setattr(wrapper, attr, getattr(fn, attr))
            except (AttributeError, TypeError):
                pass
    wrapper.__wrapped__ = fn
    wrapper.__tangent_compile__ = mode
    return wrapper


def _resolves(source, globals_, cells=()):
    """Does every global name the generated source reads exist (user globals, closure
    cells, builtins)? Checked before trusting a disk-cache entry."""
    import builtins
    try:
        names = _tangent.free_names(source)
    except ValueError:
        return False
    return all(n in globals_ or n in cells or n in _backends.RUNTIME_MODULES
               or hasattr(builtins, n) for n in names)


def _symmetric_shortcut_applies(g, wrt, preserve_result):
    return (g.__tangent_mode__ == "reverse" and getattr(g, "__tangent_wrt__", None) == wrt
            and len(wrt) == 1 and not preserve_result)


def _reverse_of_generated(g, wrt, optimized, preserve_result, verbose):
    """Reverse mode over a gradient `g = grad(f, wrt=(i,))` with respect to the same
    argument i: the vector-Jacobian product of g is v^T H, and the Hessian H is
    symmetric, so it equals the Jacobian-vector product H v, which forward mode computes
    exactly (forward-over-reverse)."""
    inner_wrt = getattr(g, "__tangent_wrt__", None)
    if g.__tangent_mode__ != "reverse" or inner_wrt != wrt or len(wrt) != 1:
        raise TangentError(_at_call_site(
            "reverse mode over `%s` is only available for the gradient of a scalar "
            "function with respect to the same single argument (grad(grad(f)))"
            % g.__name__,
            "use tangent.autodiff(..., mode='forward') for other higher-order derivatives, "
            "or set tangent.literal_reverse_over_reverse = True"))
    if preserve_result:
        raise TangentError(_at_call_site(
            "preserve_result is not available for a derivative of a gradient",
            "call the gradient itself for the value, or drop preserve_result"))
    hvp = _generate(g, wrt, optimized, False, False, verbose, "forward")
    nargs = g.__code__.co_argcount - 1  # the gradient's own seed is not an input

    defaults = tuple(g.__defaults__ or ())[:-1]  # the primal's defaults

    def second_derivative(*args):
        seed = 1.0
        own = 1.0
        if len(args) == nargs + 2:
            # the gradient's arguments in full, its own seed included, then the outer
            # seed (Google Tangent's convention): by * H v
            own, seed = args[-2], args[-1]
            args = args[:-2]
        elif len(args) == nargs + 1:
            seed = args[-1]
            args = args[:-1]
        missing = nargs - len(args)
        if missing < 0 or missing > len(defaults):
            raise TypeError(_at_call_site(
                "%s takes %d arguments (and an optional seed, or its own seed and then "
                "the seed), got %d"
                % (g.__name__, nargs, len(args)),
                "pass the arguments of `%s`, then optionally the seed" % g.__name__))
        if missing:
            args = tuple(args) + defaults[len(defaults) - missing:]
        # The gradient's own seed (1.0 unless given); the tangent is the outer seed.
        return hvp(*(tuple(args) + (own, seed)))

    second_derivative.__name__ = "d" + g.__name__ + "d" + g.__code__.co_varnames[wrt[0]]
    second_derivative.__tangent_source__ = hvp.__tangent_source__
    second_derivative.__tangent_file__ = hvp.__tangent_file__
    second_derivative.__tangent_cells__ = getattr(hvp, "__tangent_cells__", None)
    second_derivative.__tangent_live__ = getattr(hvp, "__tangent_live__", None)
    second_derivative.__tangent_bindings__ = getattr(hvp, "__tangent_bindings__", None)
    second_derivative.__tangent_mode__ = "forward-over-reverse"
    second_derivative.__tangent_wrt__ = wrt
    return second_derivative




def _rule_modules(source):
    """[(name, module)] of the libraries (`_backends`) besides numpy and math whose names
    the generated source uses as modules (rule bodies may name `scipy.special`,
    `jax.numpy`, ...); each is imported with its rule modules."""
    import re
    out = []
    for backend in _backends.BACKENDS:
        name = backend.name
        # The substring test first: the regular expression is slow in RustPython.
        if name in ("numpy", "math") or name + "." not in source:
            continue
        if re.search(r"(?<![\w.])" + name + r"\.", source):
            import importlib
            for sub in backend.rule_modules:
                importlib.import_module(sub)
            out.append((name, importlib.import_module(name)))
    return out


def _compile(source, entry, globals_, cells=None):
    """Executes generated source in `globals_`. The runtime modules reach the code as
    closure variables, so nothing is added to the user's namespace. `cells` (name ->
    cell) are the closure cells of the differentiated functions: the generated code
    reads those names from the same cells, so it sees what the closures see when they
    run (a `nonlocal` rebinding included)."""
    extra = _rule_modules(source)
    params = ["tangent", "numpy", "math"] + [name for name, _ in extra]
    cells = {n: c for n, c in (cells or {}).items() if n not in params}
    indent = "        " if cells else "    "
    body = "".join(indent + line + "\n" for line in source.splitlines())
    factory = (indent[4:] + "def __tangent_factory__(" + ", ".join(params) + "):\n" + body
               + indent + "return " + entry + "\n")
    if cells:
        # An enclosing function whose locals are the cell names makes them free
        # variables of the factory; the factory is then rebuilt over the given cells.
        factory = ("def __tangent_cells__():\n    " + " = ".join(sorted(cells)) + " = None\n"
                   + factory + "    return __tangent_factory__\n")
    namespace = {}
    exec(compile(factory, "<tangent: " + entry + ">", "exec"), globals_, namespace)
    make = namespace.get("__tangent_factory__")
    if cells:
        import types
        made = namespace["__tangent_cells__"]()
        make = types.FunctionType(made.__code__, globals_, "__tangent_factory__", None,
                                  tuple(cells[n] for n in made.__code__.co_freevars))
    fn = make(_package(), numpy, math, *[module for _, module in extra])
    fn.__qualname__ = entry  # not `__tangent_factory__.<locals>.dfdx` in messages
    fn.__tangent_source__ = source
    return fn




# Reverse mode over a gradient of a scalar function with respect to the same single
# argument is computed as forward-over-reverse (exact: the Hessian is symmetric, and it is
# cheaper). `tangent.literal_reverse_over_reverse = True` runs reverse mode over the
# generated gradient itself (read from the package by `_build`).
literal_reverse_over_reverse = False
