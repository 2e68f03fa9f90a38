"""tangent: source-to-source automatic differentiation.

`grad` reads a function's source, generates the source of its derivative (in Rust, via
`_tangent`) and executes it in the function's own globals. The helpers below are what
the generated code calls; they dispatch on the value's type.

The same file runs in both hosts: the embedded RustPython (with the native `numpy`) and
CPython through the bridge (real NumPy when it is installed).
"""
import _tangent
import math
import sys as _sys

try:
    import numpy
except ImportError:  # CPython without NumPy: scalar code still works
    numpy = None

try:
    from _numpy_native import _matmul_t, fast_helper
except ImportError:  # CPython: NumPy's own products, the Python definitions as they are
    def _matmul_t(a, b, transpose_a, transpose_b):
        """(a.T if transpose_a else a) @ (b.T if transpose_b else b)"""
        return (a.T if transpose_a else a) @ (b.T if transpose_b else b)

    def fast_helper(name, fn):
        return fn

__version__ = _tangent.VERSION


class TangentError(Exception):
    """The function cannot be differentiated; the message says where and why."""


# --------------------------------------------------------------------------- API

# Optional passes of `optimizations={...}` that are implemented.
_OPTIMIZATIONS = ("tape_liveness", "cse", "algebraic", "coarsening")


def _optimizations(optimizations):
    """The names of the optional passes switched on."""
    if not optimizations:
        return ()
    on = []
    for name, enabled in dict(optimizations).items():
        if name not in _OPTIMIZATIONS:
            raise TangentError(_at_call_site(
                "optimizations: %r is not available" % (name,),
                "choose among %s" % ", ".join(_OPTIMIZATIONS)))
        if enabled:
            on.append(name)
    return tuple(on)


# The in-memory LRU cache: repeated requests for the same derivative return the function
# already built. Keys hold the code object itself, so an id cannot be reused while cached.
# The dict's insertion order is the recency order: a hit moves its entry to the end and
# the first entry is the one evicted.
_CACHE = {}
_CACHE_SIZE = 256
_rules_generation = [0]
# Counters a user (or a test) can read: derivatives served by the disk cache, and disk
# entries rejected because a global they read no longer resolves.
stats = {"disk_hits": 0, "disk_rejected": 0}


def _cache_key(func, args):
    return (id(func), func.__code__, id(func.__globals__), _rules_generation[0]) + args


def _generate(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
              output_index=None, output_weights=None, motion="joint", optimizations=(),
              checkpoint=False, compile="python"):
    func = _unwrap_transparent(func)
    code = getattr(func, "__code__", None)
    if code is None:
        raise TypeError(_at_call_site(
            "tangent expects a Python function, got %r" % (func,),
            "pass a function defined with `def` at the top level of a .py file; to "
            "differentiate a built-in, register a rule with @tangent.adjoint"))
    wrt = _positions(wrt, func, code)
    key = _cache_key(func, (wrt, bool(optimized), bool(preserve_result), bool(check_dims),
                            mode, output_index, output_weights, motion,
                            tuple(optimizations), bool(checkpoint), compile))
    cached = _CACHE.pop(key, None)
    if cached is not None:
        _CACHE[key] = cached
        if verbose:
            print(cached[1].__tangent_source__)
        return cached[1]
    fn = _build(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
                output_index, output_weights, motion, optimizations, checkpoint)
    if compile == "jax" and motion != "joint":
        raise TangentError(_at_call_site(
            "compile='jax' applies to motion='joint' derivatives, not motion=%r" % (motion,),
            "use motion='joint' with compile='jax', or compile='python' for split motion"))
    if compile == "jax":
        fn = _jax_jit(fn, func)
    elif compile != "python" and motion == "joint":
        fn = _native(fn, compile)
    _CACHE[key] = (func, fn)  # the entry keeps `func` alive, so its id stays unique
    while len(_CACHE) > _CACHE_SIZE:
        del _CACHE[next(iter(_CACHE))]
    return fn


def _positions(wrt, func, code):
    """`wrt` as a tuple of argument positions: an int, a parameter name, or a sequence of
    these; negative positions count from the end, as in Python indexing."""
    items = (wrt,) if isinstance(wrt, (int, str)) else wrt
    try:
        items = tuple(items)
    except TypeError:
        items = None
    params = code.co_varnames[:code.co_argcount]
    out = []
    for w in items if items is not None else (wrt,):
        if isinstance(w, str) and w in params:
            w = params.index(w)
        if isinstance(w, bool) or not isinstance(w, int) or not -len(params) <= w < len(params):
            raise ValueError(_at_call_site(
                "wrt=%r: `%s` has %d argument(s) (%s), so wrt must name them by position "
                "0..%d (or -%d..-1 from the end) or by name"
                % (wrt, func.__name__, len(params), ", ".join(params),
                   max(len(params) - 1, 0), len(params)),
                "for example wrt=(0,) for `%s`" % (params[0] if params else "x")))
        out.append(w % len(params))
    return tuple(out)


def _build(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
           output_index, output_weights, motion, optimizations, checkpoint):
    code = func.__code__
    source = getattr(func, "__tangent_source__", None)
    if (source is not None and mode == "reverse" and not literal_reverse_over_reverse
            and getattr(func, "__tangent_mode__", None) == "reverse"
            and _symmetric_shortcut_applies(func, wrt, preserve_result)):
        return _reverse_of_generated(func, wrt, optimized, preserve_result, verbose)
    joint = None
    if source is not None and getattr(func, "__tangent_joint__", None) is not None:
        # The derivative gives recursive callees two-phase gradients that share its tape
        # between calls; a derivative of it is built from the joint-motion form.
        source = func.__tangent_joint__()
    if source is not None:
        # A derivative of a derivative: differentiate the generated source.
        context = func.__tangent_file__
        ok, payload, entry = _tangent.grad_generated(
            source, context, func.__name__, wrt,
            (bool(optimized), bool(preserve_result), bool(check_dims),
             motion == "split", bool(checkpoint)), mode,
            (output_index, output_weights, optimizations))
    else:
        context = code.co_filename
        qualname = getattr(func, "__qualname__", func.__name__)
        if func.__name__ == "<lambda>" or qualname != func.__name__:
            # Only module-level defs can be found by name in the file; a nested function or
            # a method could share its name with a top-level one and must not be confused
            # with it.
            kind = ("lambda" if func.__name__ == "<lambda>" else
                    "nested function" if "<locals>" in qualname else "method")
            raise TangentError(_located(
                context, code.co_firstlineno,
                "`%s` is a %s; tangent reads module-level functions from their file"
                % (qualname, kind),
                "define it with `def` at the top level of the module"))
        if code.co_name != func.__name__ and hasattr(func, "__wrapped__"):
            raise TangentError(_located(
                context, code.co_firstlineno,
                "`%s` is a wrapper made by a decorator: its code is `%s` (line %d), not "
                "the `def %s` it wraps" % (func.__name__, code.co_name,
                                          code.co_firstlineno, func.__name__),
                "tangent differentiates the code of the function object it is given; if "
                "the decorator does not change the values, differentiate `%s.__wrapped__`"
                % func.__name__))
        flags = (bool(optimized), bool(preserve_result), bool(check_dims),
                 motion == "split", bool(checkpoint))
        live = _live_request(func, context)
        answer = _tangent.grad_source(context, func.__name__, wrt, flags + (True,), mode,
                                      (output_index, output_weights, optimizations), live)
        ok, payload, entry = answer[:3]
        if ok and answer[3]:
            stats["disk_hits"] += 1
        if ok and answer[3] and not _resolves(payload, func.__globals__):
            stats["disk_rejected"] += 1
            # A disk-cache entry whose globals no longer resolve: transform again.
            ok, payload, entry = _tangent.grad_source(
                context, func.__name__, wrt, flags + (False,), mode,
                (output_index, output_weights, optimizations), live)[:3]
        if ok and "_reverse_phase" in payload:
            request = (context, func.__name__, wrt, flags + (True, True), mode,
                       (output_index, output_weights, optimizations), live)

            def joint():
                done, text = _tangent.grad_source(*request)[:2]
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
    fn = _compile(payload, entry, func.__globals__)
    fn.__tangent_file__ = context
    fn.__tangent_joint__ = joint
    fn.__tangent_mode__ = mode
    fn.__tangent_wrt__ = wrt
    return fn


# `compile=` of grad and autodiff. 'auto' (the default): the adjoint runs as native
# code (Cranelift) when it is scalar code the compiler takes, interpreted otherwise;
# 'native': the same, but says on stderr why a function runs interpreted; 'native!':
# that is an error; 'python': always interpreted; 'jax': wrapped in jax.jit (the
# derivative of a JAX function; an untraceable primal is a TangentError naming the line).
# `__tangent_source__` is always the readable Python.
_COMPILE_MODES = ("auto", "native", "native!", "python", "jax")
default_compile = "auto"


def _compile_mode(compile):
    mode = default_compile if compile is None else compile
    if mode not in _COMPILE_MODES:
        raise ValueError(_at_call_site(
            "compile must be one of %s, not %r" % (", ".join(map(repr, _COMPILE_MODES)), mode),
            "compile='native' runs scalar adjoints as machine code; compile='python' "
            "keeps them interpreted"))
    return mode


def _say_interpreted(message):
    import sys
    print("tangent: " + message, file=sys.stderr)


def _native(fn, mode):
    """`fn` as native code where the compiler takes it (see _COMPILE_MODES)."""
    native, why = _tangent.jit(fn.__tangent_source__, fn.__name__, fn, mode == "native!",
                               _say_interpreted if mode == "native" else None,
                               fn.__tangent_file__)
    if native is not None:
        return native
    if mode == "native!":
        raise TangentError("compile='native!': `%s` cannot be compiled: %s"
                           % (fn.__name__, why))
    message = "compile=%r: `%s` runs interpreted: %s" % (mode, fn.__name__, why)
    if mode == "native":
        _say_interpreted(message)
    return fn


def _jax_module():
    """The `jax` package with the submodules rule bodies use, or None when jax is not
    installed (or fails to import)."""
    try:
        import jax
        import jax.numpy  # noqa: F401
        import jax.nn  # noqa: F401
        import jax.lax  # noqa: F401
        import jax.scipy.special  # noqa: F401
    except ImportError:
        return None
    return jax


def _jax_jit(fn, func):
    """compile='jax': `fn` wrapped in jax.jit. A primal that cannot be traced (Python
    control flow on a traced value, a conversion to a Python number or a NumPy array)
    raises TangentError with jax's reason and the user's line that triggered it."""
    jax = _jax_module()
    if jax is None:
        raise TangentError(_at_call_site(
            "compile='jax' needs jax, which is not installed",
            "install it (pip install jax), or use compile='python'"))
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
        raise TangentError(_untraceable_message(jax, untraceable, fn, func, args, kwargs,
                                                error)) from None

    traced.__name__ = fn.__name__
    traced.__qualname__ = getattr(fn, "__qualname__", fn.__name__)
    traced.__doc__ = fn.__doc__
    traced.__wrapped__ = fn
    for attr in ("__tangent_source__", "__tangent_file__", "__tangent_mode__",
                 "__tangent_wrt__"):
        if hasattr(fn, attr):
            setattr(traced, attr, getattr(fn, attr))
    traced.__tangent_compile__ = "jax"
    return traced


def _user_frame(tb, filename):
    """The innermost traceback entry in `filename`: (line number) or None."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _untraceable_message(jax, untraceable, fn, func, args, kwargs, error):
    reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
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
    hint = ("use jax.lax.cond / jax.numpy.where instead of Python `if` on array values, "
            "keep shapes and loop counts static, or call with compile='python'")
    if line is None:
        return "%s\nhint: %s" % (message, hint)
    return _located(filename, line, message, hint)


def _resolves(source, globals_):
    """Does every global name the generated source reads exist (user globals,
    builtins)? Checked before trusting a disk-cache entry."""
    import builtins
    try:
        names = _tangent.free_names(source)
    except ValueError:
        return False
    return all(n in globals_ or hasattr(builtins, n) for n in names)


# ------------------------------------------------------------------------ live names
# What the running program binds the names a function reads to, sent with each request
# (format: src/resolve/live.rs), so calls resolve as Python resolves them rather than by
# the file's import statements: `try: import numpy as np`, `sin = math.cos`,
# `g_two = g_three` and a `def` redefined under an `if` are what they are at run time.

_known = {"key": None, "ids": {}, "keep": []}
_source_codes = {}


def _known_ids():
    """id(object) -> canonical rule name, for the rules whose module is imported (never
    imports one). Rebuilt when the rules or the imported modules change."""
    names = _tangent.rule_names()
    prefixes = sorted({n.rsplit(".", k)[0] for n in names for k in range(1, n.count(".") + 1)})
    key = (_rules_generation[0], tuple(p in _sys.modules for p in prefixes))
    if _known["key"] == key:
        return _known["ids"]
    ids, keep = {}, []
    for name in names:
        parts = name.split(".")
        for cut in range(len(parts) - 1, 0, -1):
            module = _sys.modules.get(".".join(parts[:cut]))
            if module is not None:
                break
        else:
            continue
        obj = module
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
            if obj is None:
                break
        if obj is None or not callable(obj) or isinstance(obj, type(_sys)):
            continue
        keep.append(obj)
        ids.setdefault(id(obj), name)
    _known.update(key=key, ids=ids, keep=keep)
    return ids


def _unwrap_transparent(obj):
    """`functools.lru_cache`/`cache` wrappers compute what the function they wrap
    computes: their `__wrapped__` is differentiated."""
    wrapped = getattr(obj, "__wrapped__", None)
    if wrapped is None or not hasattr(obj, "cache_info"):
        return obj
    code = getattr(obj, "__code__", None)  # RustPython's functools is Python code
    if (type(obj).__name__ == "_lru_cache_wrapper"
            or code is not None and code.co_filename.rsplit("/", 1)[-1] in (
                "functools", "functools.py")):
        return wrapped
    return obj


def _is_array_value(x):
    return _is_array(x) or _is_jax(x)


def _code_names(code):
    """The global and attribute names a code object and the code nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _live_request(func, filename):
    """(the file's text, the live names) for the transformer, or None when the file
    cannot be read (the transformer then reports that)."""
    try:
        with open(filename, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, ValueError):
        return None
    import builtins
    globals_ = func.__globals__
    builtins_ = globals_.get("__builtins__", builtins)
    builtins_ = builtins_ if isinstance(builtins_, dict) else vars(builtins_)
    ids = _known_ids()
    code = func.__code__
    lines = ["entry\t%s\t%d" % (code.co_name, code.co_firstlineno)]
    own = [func]  # the functions whose code must be the file's
    names, seen, todo, bound = set(), {id(code)}, [code], {}
    missing = object()
    while todo:
        found = _code_names(todo.pop())
        names |= found
        for n in found:
            if n in bound:
                continue
            if n in globals_:
                obj = _unwrap_transparent(globals_[n])
                bound[n] = (obj, False)
            elif n in builtins_:
                bound[n] = (builtins_[n], True)
            else:
                bound[n] = (missing, False)
                continue
            c = getattr(obj, "__code__", None) if not bound[n][1] else None
            if (c is not None and c.co_filename == filename
                    and getattr(obj, "__globals__", None) is globals_ and id(c) not in seen):
                seen.add(id(c))
                todo.append(c)
    modules = []
    for n in sorted(bound):
        obj, builtin = bound[n]
        if obj is missing:
            lines.append("missing\t" + n)
        elif builtin:
            lines.append("builtin\t" + n)
        elif isinstance(obj, type(_sys)):
            lines.append("import\t%s\t%s" % (n, obj.__name__))
            modules.append(obj)
        elif id(obj) in ids:
            lines.append("import\t%s\t%s" % (n, ids[id(obj)]))
        elif (getattr(obj, "__code__", None) is not None
              and obj.__code__.co_filename == filename
              and getattr(obj, "__globals__", None) is globals_):
            lines.append("function\t%s\t%s\t%d"
                         % (n, obj.__code__.co_name, obj.__code__.co_firstlineno))
            own.append(obj)
        elif (callable(obj) and not isinstance(obj, type)
              and isinstance(getattr(obj, "__module__", None), str)
              and isinstance(getattr(obj, "__qualname__", None), str)
              and "<" not in obj.__qualname__):
            # An importable function without a rule: named, for the missing-rule error.
            lines.append("import\t%s\t%s.%s" % (n, obj.__module__, obj.__qualname__))
        else:
            t = type(obj)
            lines.append("value\t%s\t%s%s" % (
                n, t.__qualname__ if t.__module__ == "builtins" else
                "%s.%s" % (t.__module__, t.__qualname__),
                "\tarray" if _is_array_value(obj) else ""))
    # The attributes of the modules read (and of their submodules the code reaches), for
    # "module `numpy` has no attribute `summ`".
    done = set()
    while modules:
        m = modules.pop()
        if m.__name__ in done:
            continue
        done.add(m.__name__)
        attrs = {a for a in dir(m) if not a.startswith("_")}
        for a in names:
            try:
                value = getattr(m, a)
            except Exception:
                continue
            attrs.add(a)
            if isinstance(value, type(_sys)):
                modules.append(value)
        lines.append("attrs\t%s\t%s" % (m.__name__, "\t".join(sorted(attrs))))
    lines.append("globals\t" + "\t".join(
        k for k in list(globals_)[:5000] if isinstance(k, str) and k.isidentifier()))
    _check_own_code(own, filename, text)
    return text, "\n".join(lines)


def _same_code(a, b):
    if (a.co_code != b.co_code or a.co_names != b.co_names
            or a.co_varnames != b.co_varnames or len(a.co_consts) != len(b.co_consts)):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if hasattr(x, "co_code"):
            if not (hasattr(y, "co_code") and _same_code(x, y)):
                return False
        elif type(x) is not type(y) or (x != y and repr(x) != repr(y)):
            return False
    return True


def _check_own_code(functions, filename, text):
    """Each function object's code must be what the file's text compiles to at its line:
    a file edited after import would otherwise be differentiated in its new text."""
    index = _source_codes.get(filename)
    if index is None or index[0] != text:
        try:
            module = compile(text, filename, "exec")
        except (SyntaxError, ValueError):
            return  # the transformer reports the syntax error, located
        codes, stack = {}, [module]
        while stack:
            for const in stack.pop().co_consts:
                if hasattr(const, "co_code"):
                    codes.setdefault((const.co_name, const.co_firstlineno), const)
                    stack.append(const)
        index = _source_codes[filename] = (text, codes)
    for f in functions:
        code = f.__code__
        compiled = index[1].get((code.co_name, code.co_firstlineno))
        if compiled is None or not _same_code(code, compiled):
            raise TangentError(_located(
                filename, code.co_firstlineno,
                "`%s` is not the code in %s now: the file changed after the function "
                "was defined" % (code.co_name, filename),
                "tangent differentiates the function object's own code; re-run the "
                "script, or reload the module (importlib.reload), so that the two agree"))


def cache_info():
    """(disk cache directory or None when disabled, entries, bytes)."""
    return _tangent.cache_info()


# Reverse mode over a gradient of a scalar function with respect to the same single
# argument is computed as forward-over-reverse (exact: the Hessian is symmetric, and it is
# cheaper). Set this to True to run reverse mode over the generated gradient itself.
literal_reverse_over_reverse = False


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
        if len(args) == nargs + 1:
            seed = args[-1]
            args = args[:-1]
        missing = nargs - len(args)
        if missing < 0 or missing > len(defaults):
            raise TypeError(_at_call_site(
                "%s takes %d arguments (and an optional seed), got %d"
                % (g.__name__, nargs, len(args)),
                "pass the arguments of `%s`, then optionally the seed" % g.__name__))
        if missing:
            args = tuple(args) + defaults[len(defaults) - missing:]
        # The gradient's own seed is 1.0; the tangent is the outer seed.
        return hvp(*(tuple(args) + (1.0, seed)))

    second_derivative.__name__ = "d" + g.__name__ + "d" + g.__code__.co_varnames[wrt[0]]
    second_derivative.__tangent_source__ = hvp.__tangent_source__
    second_derivative.__tangent_file__ = hvp.__tangent_file__
    second_derivative.__tangent_mode__ = "forward-over-reverse"
    second_derivative.__tangent_wrt__ = wrt
    return second_derivative


def _output_options(output_index, output_weights):
    if output_index is not None and output_weights is not None:
        raise ValueError(_at_call_site("output_index and output_weights were both given",
                                       "pass one of them"))
    if output_index is not None and not isinstance(output_index, int):
        raise TypeError(_at_call_site(
            "output_index must be an int, not %s" % type(output_index).__name__,
            "pass the position of the output to differentiate, e.g. output_index=0"))
    if output_weights is not None:
        output_weights = tuple(float(w) for w in output_weights)
    return output_index, output_weights


def grad(func, wrt=(0,), optimized=True, preserve_result=False, check_dims=True,
         verbose=0, output_index=None, output_weights=None, optimizations=None,
         checkpoint=False, compile=None):
    """Returns a function computing the gradient of `func` with respect to the
    arguments at positions `wrt`. The returned function takes `func`'s arguments plus a
    seed for the output's derivative (default 1.0). For a function returning a tuple,
    `output_index=i` differentiates element i, `output_weights=(w0, w1, ...)` the
    weighted sum of the elements."""
    output_index, output_weights = _output_options(output_index, output_weights)
    return _generate(func, wrt, optimized, preserve_result, check_dims, verbose,
                     "reverse", output_index, output_weights, "joint",
                     _optimizations(optimizations), checkpoint, _compile_mode(compile))


def autodiff(func, wrt=(0,), optimized=True, motion="joint", mode="reverse",
             preserve_result=False, check_dims=True, verbose=0, output_index=None,
             output_weights=None, optimizations=None, checkpoint=False, compile=None):
    """Reverse mode (`mode='reverse'`): like `grad`. Forward mode (`mode='forward'`):
    the returned function takes `func`'s arguments plus one tangent per `wrt` argument
    and returns the output's tangent."""
    if motion not in ("joint", "split"):
        raise ValueError(_at_call_site("motion must be 'joint' or 'split', not %r" % (motion,),
                                       "pass motion='joint' (default) or motion='split'"))
    if mode not in ("reverse", "forward"):
        raise ValueError(_at_call_site("mode must be 'reverse' or 'forward', not %r" % (mode,),
                                       "pass mode='reverse' (default) or mode='forward'"))
    output_index, output_weights = _output_options(output_index, output_weights)
    if mode == "forward" and (output_index is not None or output_weights is not None):
        raise ValueError(_at_call_site(
            "output_index and output_weights select outputs for reverse mode",
            "drop them: forward mode returns the tangent of every output"))
    return _generate(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
                     output_index, output_weights, motion, _optimizations(optimizations),
                     checkpoint, _compile_mode(compile))


def vjp(func, wrt=(0,), optimized=True, preserve_result=False, verbose=0):
    """Vector-Jacobian product: the returned function takes `func`'s arguments and a
    seed shaped like the output."""
    return _generate(func, wrt, optimized, preserve_result, False, verbose, "reverse")


def jvp(func, wrt=(0,), optimized=True, preserve_result=False, verbose=0):
    """Jacobian-vector product: the returned function takes `func`'s arguments and one
    tangent per `wrt` argument."""
    return _generate(func, wrt, optimized, preserve_result, False, verbose, "forward")


def explain(func, *args, wrt=(0,), eps=1e-6):
    """Prints the primal as tangent reads it, the generated gradient, the data flow
    (which values depend on the differentiated inputs, and from what), and a central
    finite-difference check of the gradient at `args` with the largest difference.
    Returns that largest difference."""
    if isinstance(wrt, int):
        wrt = (wrt,)
    wrt = tuple(wrt)
    code = func.__code__
    primal, flow = _tangent.explain_info(code.co_filename, func.__name__, wrt)
    df = grad(func, wrt=wrt)
    print("== primal: %s (%s:%d) ==" % (func.__name__, code.co_filename, code.co_firstlineno))
    print(primal.rstrip())
    print("== gradient (reverse mode) ==")
    print(df.__tangent_source__.rstrip())
    print("== data flow (active values, from what) ==")
    for target, reads in flow:
        print("  %s <- %s" % (target, ", ".join(reads) if reads else "(constant)"))
    print("== finite-difference check at the given arguments ==")
    grads = df(*args)
    if len(wrt) == 1:
        grads = (grads,)
    worst = 0.0
    for pos, g in zip(wrt, grads):
        x = args[pos]
        flat_g = numpy.ravel(numpy.asarray(g)).tolist() if _is_array(g) else [float(g)]
        n = len(flat_g)
        for k in range(n):
            def shifted(delta):
                a = list(args)
                if _is_array(x):
                    flat = numpy.ravel(x).tolist()
                    flat[k] = flat[k] + delta
                    a[pos] = numpy.reshape(numpy.array(flat), x.shape)
                else:
                    a[pos] = x + delta
                return float(func(*a))
            fd = (shifted(eps) - shifted(-eps)) / (2 * eps)
            diff = abs(flat_g[k] - fd)
            worst = max(worst, diff)
            label = code.co_varnames[pos] + ("[%d]" % k if n > 1 else "")
            print("  d/d%s: tangent %.12g, central difference %.12g, |difference| %.3g"
                  % (label, flat_g[k], fd, diff))
    print("largest difference: %.3g" % worst)
    return worst


def backend_status():
    """Each backend: 'available', 'not installed', or 'broken: <reason>' (the framework
    is there but fails to import, or tangent's runtime for it fails to load)."""
    status = {}
    for name, module in (("math", "math"), ("numpy", "numpy"), ("scipy", "scipy"),
                         ("jax", "jax"), ("torch", "torch"), ("tensorflow", "tensorflow"),
                         ("keras", "keras"), ("tinygrad", "tinygrad")):
        try:
            __import__(module)
            if name == "jax":
                _jax_grads()
            status[name] = "available"
        except ImportError as e:
            # The framework itself is missing, or something it needs (then it is broken).
            missing = (getattr(e, "name", None) or "").split(".")[0]
            if missing == module and module not in _sys.modules:
                status[name] = "not installed"
            else:
                status[name] = "broken: %s: %s" % (type(e).__name__, e)
        except Exception as e:  # a backend that fails to import is reported, not fatal
            status[name] = "broken: %s: %s" % (type(e).__name__, e)
    return status


# --------------------------------------------------------------- user rules

def _canonical_names(target):
    """The canonical names rules are keyed by: every name under which `target` is
    reached from numpy, numpy.linalg, math or builtins (aliases such as `np.absolute` and
    `np.abs` included), else its own module and name."""
    import sys
    names = []
    for modname in ("numpy", "numpy.linalg", "math", "builtins"):
        module = sys.modules.get(modname)
        if module is None:
            continue
        for attr in dir(module):
            if not attr.startswith("_") and getattr(module, attr, None) is target:
                names.append(modname + "." + attr)
    if names:
        return names
    name = getattr(target, "__name__", None)
    module = getattr(target, "__module__", None)
    if name and module:
        return [module + "." + name]
    raise TypeError(_at_call_site(
        "tangent: cannot register a rule for %r: it has no module and name" % (target,),
        "pass the function itself, e.g. @tangent.adjoint(np.tanh)"))


def _register(kind, target):
    qualnames = _canonical_names(target)

    def register(template):
        code = getattr(template, "__code__", None)
        if code is None:
            raise TypeError(_at_call_site(
                "tangent.%s: the rule template is not a function written with `def`" % kind,
                "write the template as `def name(result, x): d[x] = d[result] * ...`"))
        for qualname in qualnames:
            error = _tangent.register_rule(kind, qualname, code.co_filename,
                                           template.__name__)
            if error is not None:
                raise TangentError(error)
        # Derivatives built before this rule existed are stale.
        _rules_generation[0] += 1
        return template

    return register


def adjoint(target):
    """Registers the decorated template as the reverse-mode rule of `target`:
    `@tangent.adjoint(np.cbrt)` over `def cbrt(y, x): d[x] = d[y] / (3.0 * y * y)`."""
    return _register("adjoint", target)


def tangent_(target):
    """Registers the decorated template as the forward-mode rule of `target`:
    `@tangent.tangent_(np.cbrt)` over `def cbrt(y, x): d[y] = d[x] / (3.0 * y * y)`."""
    return _register("tangent", target)


# Modules rule bodies may name besides numpy and math (e.g. `scipy.special.digamma` in
# the derivative of gammaln, `jax.numpy` in the jax rules), imported only for generated
# code that names them.
_RULE_MODULES = {
    "scipy": ("scipy.special", "scipy.linalg"),
    "jax": ("jax.numpy", "jax.nn", "jax.lax", "jax.scipy.special"),
}


def _rule_modules(source):
    """[(name, module)] of the _RULE_MODULES the generated source names."""
    import re
    out = []
    for name, submodules in _RULE_MODULES.items():
        if re.search(r"(?<![\w.])" + name + r"\.", source):
            import importlib
            for sub in submodules:
                importlib.import_module(sub)
            out.append((name, importlib.import_module(name)))
    return out


def _compile(source, entry, globals_):
    """Executes generated source in `globals_`. The runtime modules reach the code as
    closure variables, so nothing is added to the user's namespace."""
    extra = _rule_modules(source)
    body = "".join("    " + line + "\n" for line in source.splitlines())
    params = ", ".join(["tangent", "numpy", "math"] + [name for name, _ in extra])
    factory = ("def __tangent_factory__(" + params + "):\n" + body +
               "    return " + entry + "\n")
    namespace = {}
    exec(compile(factory, "<tangent: " + entry + ">", "exec"), globals_, namespace)
    fn = namespace["__tangent_factory__"](_sys.modules[__name__], numpy, math,
                                          *[module for _, module in extra])
    fn.__qualname__ = entry  # not `__tangent_factory__.<locals>.dfdx` in messages
    fn.__tangent_source__ = source
    return fn


# ----------------------------------------------------------------------- runtime

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


def checkpoint_stride(n):
    """Segment length of sqrt(n) checkpointing."""
    return max(1, int(math.ceil(math.sqrt(n))))


def shape_of(x):
    """The shape carrier of an array; other values are kept (they are small)."""
    if numpy is not None and isinstance(x, numpy.ndarray):
        return ShapeCarrier(tuple(x.shape), x.dtype)
    return x


def _is_array(x):
    return numpy is not None and isinstance(x, (numpy.ndarray, ShapeCarrier))


def _is_jax(x):
    """Is `x` a JAX array (a tracer under jax.jit included)? Never imports jax: a JAX
    value exists only once jax is imported."""
    jax = _sys.modules.get("jax")
    return jax is not None and isinstance(x, getattr(jax, "Array", ()))


def namespace_of(*values):
    """The array namespace of the first array among `values`: the rules of operators
    and array methods call it (src/ad/rules.rs `dispatched`), so one rule serves every
    array type. jax.numpy for a JAX array (a tracer included), else numpy."""
    for v in values:
        if _is_jax(v) or (isinstance(v, (tuple, list)) and any(_is_jax(e) for e in v)):
            return _jax_grads().jnp
    if numpy is None:
        raise TypeError(_at_call_site(
            "tangent: an array rule was reached without NumPy installed",
            "install numpy, or differentiate scalar code"))
    return numpy


def _jax_grads():
    """The JAX runtime helpers (stdlib-shims/tangent_jax_grads.py), imported on first use."""
    import tangent_jax_grads
    return tangent_jax_grads.load()


def __getattr__(name):
    # `tangent.jax_*`: helpers of the JAX rules, loaded only when generated code calls one.
    if name.startswith("jax_"):
        helper = getattr(_jax_grads(), name, None)
        if helper is not None:
            globals()[name] = helper
            return helper
    raise AttributeError("module 'tangent' has no attribute %r" % (name,))


class Stack(list):
    """The tape: values saved by the forward pass for the backward pass."""


push = _tangent.push
pop = _tangent.pop


def copy(x):
    if _is_array(x):
        return x.copy()
    if isinstance(x, list):
        return list(x)
    return x


def _grad_dtype(x):
    """Gradients keep a float32 input's precision; integer and bool inputs get float64
    gradients, as NumPy's own arithmetic would give."""
    if _is_array(x) and x.dtype == numpy.float32:
        return numpy.float32
    return numpy.float64


def init_grad(x):
    """A zero gradient shaped like `x`."""
    if x is None or isinstance(x, (bool, int, float)):
        return 0.0
    if _is_array(x):
        return numpy.zeros(x.shape, dtype=_grad_dtype(x))
    if isinstance(x, (list, tuple)):
        return [init_grad(v) for v in x]
    if _is_jax(x):
        return _jax_grads().init_grad(x)
    raise TypeError(_at_call_site(
        "tangent: a value of type %s has no derivative (a zero gradient or tangent of it "
        "was needed)" % type(x).__name__,
        "differentiate functions of numbers and arrays (and lists or tuples of them); "
        "return a number or an array"))


def add_grad(a, b):
    """a + b for gradients; `None` means "no gradient yet"."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return [add_grad(x, y) for x, y in zip(a, b)]
    return a + b


def add_grad_at(g, x, index, value):
    """Gradient of `x[index]` added into `g` (a fresh gradient of `x` if `g` is None)."""
    if _is_jax(g) or (g is None and _is_jax(x)):
        return _jax_grads().add_grad_at(g, x, index, value)
    g = init_grad(x) if g is None else copy(g)
    if isinstance(g, list):
        g[index] = add_grad(g[index], value)
    else:
        g[index] = g[index] + value
    return g


def zero_grad_at(g, index):
    if _is_jax(g):
        return _jax_grads().zero_grad_at(g, index)
    g = copy(g)
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
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return list(g[:len(x)])
    return unbroadcast(g, x)


def unbroadcast_right(g, x, y):
    """Gradient of `y` in `x + y` (the trailing part of a concatenation)."""
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return list(g[len(x):])
    return unbroadcast(g, y)


def unbroadcast(g, like):
    """Sums `g` over the axes along which `like` was broadcast to `g`'s shape."""
    if isinstance(like, (list, tuple)):
        if isinstance(g, (list, tuple)):
            if len(g) != len(like):
                raise TypeError(
                    "tangent: this operation on a list (repetition with `*`?) has no "
                    "derivative rule; build the list with a loop or use an array")
            return list(g)
        # A NumPy function applied to a list treats it as an array.
        return array_grad(unbroadcast(g, numpy.asarray(like, dtype=float)), like)
    if _is_jax(g) or _is_jax(like):
        return _jax_grads().unbroadcast(g, like)
    if not _is_array(like):
        if _is_array(g):
            return float(numpy.sum(g))
        return g
    if not _is_array(g):
        return numpy.full(like.shape, float(g), dtype=_grad_dtype(like))
    if g.shape == like.shape:
        return g
    while g.ndim > like.ndim:
        g = numpy.sum(g, axis=0)
    for axis, n in enumerate(like.shape):
        if n == 1 and g.shape[axis] != 1:
            g = numpy.sum(g, axis=axis, keepdims=True)
    return g


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, int):
        axis = (axis,)
    return tuple(sorted(a % ndim for a in axis))


def unreduce(g, x, axis, keepdims):
    """Broadcasts the gradient of a reduction back to the shape of its input."""
    if _is_jax(x) or _is_jax(g):
        return _jax_grads().unreduce(g, x, axis, keepdims)
    if isinstance(x, (list, tuple)):
        # A reduction of a list reduces the array it makes: one gradient per element.
        return array_grad(unreduce(g, numpy.asarray(x, dtype=float), axis, keepdims), x)
    if not _is_array(x):
        return g
    shape = x.shape
    if not _is_array(g):
        # A full reduction's gradient is a scalar: fill directly.
        return numpy.full(shape, float(g), dtype=_grad_dtype(x))
    if not keepdims:
        kept = list(shape)
        for a in _axes(axis, len(shape)):
            kept[a] = 1
        g = (numpy.reshape(g, tuple(kept)) if _is_array(g)
             else numpy.full(tuple(kept), float(g), dtype=_grad_dtype(x)))
    return g * numpy.ones(shape, dtype=_grad_dtype(x))


def reduced_count(x, axis):
    if _is_jax(x):
        return _jax_grads().reduced_count(x, axis)
    if isinstance(x, (list, tuple)):
        return reduced_count(numpy.asarray(x, dtype=float), axis)
    if not _is_array(x):
        return 1
    n = 1
    for a in _axes(axis, x.ndim):
        n *= x.shape[a]
    return n


def extremum_grad(g, y, x, axis, keepdims):
    """Gradient of max/min: shared equally among the elements that attain it."""
    if _is_jax(x):
        return _jax_grads().extremum_grad(g, y, x, axis, keepdims)
    if isinstance(x, (list, tuple)):
        return array_grad(extremum_grad(g, y, numpy.asarray(x, dtype=float), axis, keepdims), x)
    if not _is_array(x):
        return g
    mask = (x == unreduce(y, x, axis, keepdims)) * 1.0
    count = numpy.sum(mask, axis=axis, keepdims=keepdims)
    return unreduce(g, x, axis, keepdims) * mask / unreduce(count, x, axis, keepdims)


def _swap_last(xp, m):
    """The matrix transpose of a stack of matrices (last two axes), in namespace `xp`."""
    return xp.swapaxes(m, -1, -2) if xp.ndim(m) > 2 else xp.transpose(m)


def matmul_grad_left(g, a, b):
    """d(a @ b)/da contracted with g (batch axes summed back to a's shape)."""
    if type(g) is numpy.ndarray and g.ndim == 2 and type(b) is numpy.ndarray and b.ndim == 2:
        return _matmul_t(g, b, False, True)  # the common case: g @ b.T, no copy
    if _is_jax(g) or _is_jax(a) or _is_jax(b):
        return _jax_grads().matmul_grad_left(g, a, b)
    if numpy.ndim(a) == 2 and numpy.ndim(b) == 2 and _is_array(g):
        return _matmul_t(g, b, False, True)
    return matmul_grad_in(numpy, unbroadcast, g, a, b, 0)


def matmul_grad_right(g, a, b):
    """d(a @ b)/db contracted with g (batch axes summed back to b's shape)."""
    if type(g) is numpy.ndarray and g.ndim == 2 and type(a) is numpy.ndarray and a.ndim == 2:
        return _matmul_t(a, g, True, False)  # the common case: a.T @ g, no copy
    if _is_jax(g) or _is_jax(a) or _is_jax(b):
        return _jax_grads().matmul_grad_right(g, a, b)
    if numpy.ndim(a) == 2 and numpy.ndim(b) == 2 and _is_array(g):
        return _matmul_t(a, g, True, False)
    return matmul_grad_in(numpy, unbroadcast, g, a, b, 1)


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
    if _is_jax(x):
        return _jax_grads().sum_grad(g, x)
    if _is_array(x):
        return g * numpy.ones(x.shape, dtype=_grad_dtype(x))
    return [g for _ in x]


def array_grad(g, x):
    """Gradient of `numpy.array(x)` with respect to the (nested) sequence `x`."""
    if isinstance(x, (list, tuple)):
        return [array_grad(g[i], x[i]) for i in range(len(x))]
    if _is_array(x) or _is_jax(g):
        return g  # a JAX gradient may be a tracer: never converted to a float
    return float(g)


def broadcast_like(t, y):
    """A tangent shaped like the value `y` it belongs to."""
    if _is_jax(y) or _is_jax(t):
        return _jax_grads().broadcast_like(t, y)
    if _is_array(y) and not (_is_array(t) and t.shape == y.shape):
        return t * numpy.ones(y.shape, dtype=_grad_dtype(y))
    return t


def set_tangent_at(t, x, index, v):
    """Tangent of `x` after `x[index] = v`."""
    if _is_jax(x):
        return _jax_grads().set_tangent_at(t, x, index, v)
    t = init_grad(x) if t is None else copy(t)
    if _is_array(t) and not _is_array(x):
        t = init_grad(x)
    if isinstance(x, list) and not isinstance(t, list):
        t = init_grad(x)
    t[index] = v
    return t


def extremum_tangent(t, y, x, axis, keepdims):
    """Tangent of max/min: the mean tangent of the elements that attain the extremum."""
    if _is_jax(x):
        return _jax_grads().extremum_tangent(t, y, x, axis, keepdims)
    if not _is_array(x):
        return t
    mask = (x == unreduce(y, x, axis, keepdims)) * 1.0
    count = numpy.sum(mask, axis=axis, keepdims=keepdims)
    return numpy.sum(t * mask, axis=axis, keepdims=keepdims) / count


def sum_tangent(t):
    total = 0.0
    for v in t:
        total = total + v
    return total


def grad_or_zero(g, x):
    """Reverse over generated code: the gradient of a popped value, zeros if none."""
    return init_grad(x) if g is None else g


def grad_at(g, x, index):
    """The gradient of `x[index]` (a copy), zeros if `x` has no gradient yet."""
    return init_grad(x[index]) if g is None else copy(g[index])


def unbroadcast_left_adjoint(dz, g, x, y):
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return list(dz) + [init_grad(v) for v in y]
    return broadcast_like(dz, g)


def unbroadcast_right_adjoint(dz, g, x, y):
    if isinstance(x, (list, tuple)) and isinstance(y, (list, tuple)):
        return [init_grad(v) for v in x] + list(dz)
    return broadcast_like(dz, g)


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
    if _is_array(x):
        return numpy.log(x)
    if _is_jax(x):
        return _jax_grads().jnp.log(x)
    return math.log(x)


def sign(x):
    if _is_array(x):
        return numpy.sign(x)
    if _is_jax(x):
        return _jax_grads().jnp.sign(x)
    # int() first: a NumPy scalar's comparisons give NumPy bools, which do not subtract.
    return float(int(x > 0) - int(x < 0))


def _shape(x):
    return tuple(x.shape) if _is_array(x) or _is_jax(x) else ()


def _located(filename, line, message, hint):
    """An error in the transformer's diagnostic format: file:line:col, the line with a
    caret under it, and a hint."""
    import linecache
    text = linecache.getline(filename, line).rstrip("\n")
    if not text.strip():
        return "%s:%d: %s\nhint: %s" % (filename, line, message, hint)
    col = len(text) - len(text.lstrip()) + 1
    number = str(line)
    gutter = " " * len(number)
    return "%s:%d:%d: %s\n%s |\n%s | %s\n%s | %s%s\nhint: %s" % (
        filename, line, col, message, gutter, number, text, gutter, " " * (col - 1),
        "^" * len(text.strip()), hint)


def _at_call_site(message, hint):
    """A run-time error located at the user's innermost frame (not tangent's shims or
    generated code, whose file names start with `<`)."""
    import sys
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename.startswith("<"):
        frame = frame.f_back
    if frame is None:
        return "%s\nhint: %s" % (message, hint)
    return _located(frame.f_code.co_filename, frame.f_lineno, message, hint)


_IMMUTABLE = (int, float, complex, bool, str, bytes, tuple, frozenset, type(None))


def check_inplace(value, update, line):
    """Before `name op= v` where another name may hold the same object: rebinding a number
    is what the derivative models; changing an array or a list in place, seen through
    the other name, is not."""
    if isinstance(value, _IMMUTABLE) or _is_jax(value):
        return  # `+=` rebinds: a new value, as the derivative computes it
    if numpy is not None and isinstance(value, getattr(numpy, "generic", ())):
        return  # a NumPy scalar is immutable too
    import sys
    name = update.split(" ")[0]
    message = ("`%s ...` would change the %s `%s` holds in place, and another name (or "
               "the caller) may hold the same object, so the derivative cannot follow "
               "the change" % (update, type(value).__name__, name))
    hint = "write `%s = %s %s ...` to compute a new value instead" % (
        name, name, update.split(" ")[1][:-1])
    filename = sys._getframe(1).f_globals.get("__file__")
    if filename:
        raise TangentError(_located(filename, line, message, hint))
    raise TangentError(_at_call_site(message + " (line %d)" % line, hint))


def primal_default(func, name):
    """The default of parameter `name` of `func` as its `def` evaluated it: a generated
    signature reads it here instead of evaluating the default's text again (its value
    may have changed since)."""
    f = func
    while f is not None:
        code = getattr(f, "__code__", None)
        if code is not None:
            params = code.co_varnames[:code.co_argcount]
            defaults = getattr(f, "__defaults__", None) or ()
            if name in params:
                i = params.index(name) - (len(params) - len(defaults))
                if i >= 0:
                    return defaults[i]
        f = getattr(f, "__wrapped__", None)
    code = getattr(func, "__code__", None)
    message = "the derivative of `%s` needs the default of its parameter `%s`, but `%s` " \
        "in the module no longer has that default" % (
            getattr(func, "__name__", func), name, getattr(func, "__name__", func))
    hint = "do not rebind the function's name after defining it, or pass `%s` explicitly" \
        % name
    if code is None:
        raise TangentError("%s\nhint: %s" % (message, hint))
    raise TangentError(_located(code.co_filename, code.co_firstlineno, message, hint))


def check_output(y, seed, name):
    """check_dims: grad needs a scalar output unless a seed of the output's shape is given."""
    if type(y) is float and type(seed) is float:
        return  # the common case, checked first
    if y is None:
        raise TypeError(_at_call_site(
            "grad: `%s` returned None" % name,
            "the differentiated function must return a value"))
    if _is_jax(y) or _is_jax(seed):
        return _jax_grads().check_output(y, seed, name, _at_call_site)
    if isinstance(y, (tuple, list)):
        raise ValueError(_at_call_site(
            "grad: `%s` returned a %s of %d values, not a scalar"
            % (name, type(y).__name__, len(y)),
            "pass output_index=i to differentiate one of them, or output_weights=(...) "
            "for a weighted sum"))
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


def _is_numeric_scalar(y):
    """A NumPy scalar of a numeric dtype (numpy.float64, numpy.int64, ...)."""
    generic = getattr(numpy, "generic", None) if numpy is not None else None
    return generic is not None and isinstance(y, generic) and y.dtype.kind in "biufc"


def check_tangent(x, t, tname, xname):
    """Forward mode: a tangent must have its argument's shape."""
    xs, ts = _shape(x), _shape(t)
    if (_is_array(t) or _is_jax(t)) and ts != xs:
        raise ValueError(_at_call_site(
            "the tangent `%s` has shape %s but `%s` has shape %s" % (tname, ts, xname, xs),
            "pass a tangent of shape %s" % (xs,)))
    if isinstance(t, (list, tuple)) != isinstance(x, (list, tuple)):
        raise TypeError(_at_call_site(
            "the tangent `%s` is a %s but `%s` is a %s"
            % (tname, type(t).__name__, xname, type(x).__name__),
            "pass a tangent of the same structure as `%s`" % xname))


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

# The helpers every adjoint of array code calls get a native path for their common case
# (same-shape arrays, a float seed, 2-D products); anything else runs the Python
# definitions above. See `fast_helper` in src/numpy/native.rs.
unbroadcast = fast_helper('unbroadcast', unbroadcast)
unreduce = fast_helper('unreduce', unreduce)
matmul_grad_left = fast_helper('matmul_grad_left', matmul_grad_left)
matmul_grad_right = fast_helper('matmul_grad_right', matmul_grad_right)
check_output = fast_helper('check_output', check_output)


# ------------------------------------------------------------- Rust API support

def _from_flat(flat, shape):
    return numpy.reshape(numpy.array(flat), shape)


def _to_flat(x):
    x = numpy.asarray(x)
    return tuple(x.shape), [float(v) for v in numpy.ravel(x).tolist()]


# Helpers of the NumPy rules (kept in their own module, one concern per file).
if numpy is not None:
    from tangent_numpy_grads import *  # noqa: E402,F401,F403
