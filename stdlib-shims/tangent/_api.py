"""The public API: `grad`, `autodiff`, `vjp`, `jvp`, `explain`, `backend_status`,
`cache_info`, `clear_cache`/`get_cache_stats`/`set_cache_size`, and the validation of
their options."""
import _tangent
import enum as _enum
import sys as _sys
import types as _types

from tangent import _backends, _build, _custom, _registry
from tangent._build import _generate
from tangent._errors import TangentError, _at_call_site

try:
    import numpy
except ImportError:  # CPython without NumPy
    numpy = None


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



# `compile=` of grad and autodiff. 'auto' (the default): the adjoint runs as native
# code (Cranelift) when it is scalar code the compiler takes, interpreted otherwise;
# 'native': the same, but says on stderr why a function runs interpreted; 'native!':
# that is an error; 'python': always interpreted; 'jax': wrapped in jax.jit (the
# derivative of a JAX function; an untraceable primal is a TangentError naming the line);
# 'torch': wrapped in torch.compile (graph breaks allowed; a compiler that cannot run
# here is a TangentError naming compile='python'); 'tensorflow': wrapped in tf.function
# (jit_compile=True when XLA compiles here; a primal TF cannot trace is a TangentError at
# the user's line); 'tinygrad': wrapped in TinyJit (one capture per argument signature).
# `__tangent_source__` is always the readable Python.
_COMPILE_MODES = ("auto", "native", "native!", "python") + _backends.COMPILERS
default_compile = "auto"  # tangent.default_compile: users may assign it


def _compile_mode(compile):
    mode = _sys.modules["tangent"].default_compile if compile is None else compile
    if mode not in _COMPILE_MODES:
        raise ValueError(_at_call_site(
            "compile must be one of %s, not %r" % (", ".join(map(repr, _COMPILE_MODES)), mode),
            "compile='native' runs scalar adjoints as machine code; compile='python' "
            "keeps them interpreted"))
    return mode


def cache_info():
    """(disk cache directory or None when disabled, entries, bytes)."""
    return _tangent.cache_info()


def clear_cache(disk=False):
    """Forgets every derivative built in this process (Tangent 2's `clear_cache`); with
    `disk=True` also removes the disk cache's entries (as `tangent cache clear` does).
    Functions already returned keep working."""
    _build._CACHE.clear()
    for k in _build.stats:
        _build.stats[k] = 0
    if disk:
        _tangent.cache_clear()


def get_cache_stats():
    """The caches' counters and sizes: `hits`, `misses`, `entries` and `bytes` (the
    generated source held) of the in-memory cache, with `max_entries`, and under
    `'disk'` its `hits`, `rejected` (entries whose globals no longer resolved),
    `entries`, `bytes` and `directory` (None when disabled)."""
    held = 0
    for entry in _build._CACHE.values():
        fn = entry[1]
        held += len(getattr(fn, "__tangent_source__", "") or "")
    directory, entries, size = _tangent.cache_info()
    return {
        "hits": _build.stats["memory_hits"],
        "misses": _build.stats["memory_misses"],
        "entries": len(_build._CACHE),
        "bytes": held,
        "max_entries": _sys.modules["tangent"]._CACHE_SIZE,
        "disk": {"hits": _build.stats["disk_hits"], "rejected": _build.stats["disk_rejected"],
                 "entries": entries, "bytes": size, "directory": directory},
    }


def set_cache_size(n):
    """At most `n` derivatives stay in the in-memory cache (least recently used go
    first; 0 turns it off); Tangent 2's `set_cache_size`."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(_at_call_site("set_cache_size needs a whole number >= 0, not %r"
                                       % (n,), "tangent.set_cache_size(128)"))
    _sys.modules["tangent"]._CACHE_SIZE = n
    _build._evict()


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
         checkpoint=False, compile=None, source=None):
    """Returns a function computing the gradient of `func` with respect to the
    arguments at positions `wrt`. The returned function takes `func`'s arguments plus a
    seed for the output's derivative (default 1.0). For a function returning a tuple,
    `output_index=i` differentiates element i, `output_weights=(w0, w1, ...)` the
    weighted sum of the elements. `source` is the text `func` was defined with, for code
    that has no file (`exec`, `python -c`); cells of IPython and Jupyter need none."""
    if isinstance(func, _custom._Custom):
        return _custom.derivative(func, wrt, "reverse", preserve_result)
    output_index, output_weights = _output_options(output_index, output_weights)
    return _generate(func, wrt, optimized, preserve_result, check_dims, verbose,
                     "reverse", output_index, output_weights, "joint",
                     _optimizations(optimizations), checkpoint, _compile_mode(compile),
                     _source_text(source))


# Google Tangent's and Tangent 2's `input_derivative=` of `autodiff` (also importable
# from `tangent.grad_util`, as there). Here the seed of a joint reverse derivative always
# defaults to 1.0, so every value gives the same function: a call that passes the seed
# is the same as there; one that leaves it out gets 1.0 (with check_dims, a non-scalar
# output then asks for its seed by name) instead of a TypeError.
INPUT_DERIVATIVE = _enum.Enum("InputDerivative", ("Required", "DefaultOne", "DefaultOnes"))


def autodiff(func, wrt=(0,), optimized=True, motion="joint", mode="reverse",
             preserve_result=False, check_dims=True, verbose=0, output_index=None,
             output_weights=None, optimizations=None, checkpoint=False, compile=None,
             source=None, input_derivative=None):
    """Reverse mode (`mode='reverse'`): like `grad`. Forward mode (`mode='forward'`):
    the returned function takes `func`'s arguments plus one tangent per `wrt` argument
    and returns the output's tangent. `source` as for `grad`; `input_derivative` (a
    member of `INPUT_DERIVATIVE`) is accepted for the references' callers: the seed
    defaults to 1.0 whatever it says."""
    if input_derivative is not None and not isinstance(input_derivative, INPUT_DERIVATIVE):
        raise ValueError(_at_call_site(
            "input_derivative must be a member of tangent.INPUT_DERIVATIVE, not %r"
            % (input_derivative,),
            "pass tangent.INPUT_DERIVATIVE.DefaultOne (the seed defaults to 1.0) or "
            "leave it out"))
    if motion not in ("joint", "split"):
        raise ValueError(_at_call_site("motion must be 'joint' or 'split', not %r" % (motion,),
                                       "pass motion='joint' (default) or motion='split'"))
    if mode not in ("reverse", "forward"):
        raise ValueError(_at_call_site("mode must be 'reverse' or 'forward', not %r" % (mode,),
                                       "pass mode='reverse' (default) or mode='forward'"))
    if isinstance(func, _custom._Custom):
        return _custom.derivative(func, wrt, mode, preserve_result)
    output_index, output_weights = _output_options(output_index, output_weights)
    if mode == "forward" and (output_index is not None or output_weights is not None):
        raise ValueError(_at_call_site(
            "output_index and output_weights select outputs for reverse mode",
            "drop them: forward mode returns the tangent of every output"))
    return _generate(func, wrt, optimized, preserve_result, check_dims, verbose, mode,
                     output_index, output_weights, motion, _optimizations(optimizations),
                     checkpoint, _compile_mode(compile), _source_text(source))


def vjp(func, wrt=(0,), optimized=True, preserve_result=False, verbose=0, source=None):
    """Vector-Jacobian product: the returned function takes `func`'s arguments and a
    seed shaped like the output."""
    if isinstance(func, _custom._Custom):
        return _custom.derivative(func, wrt, "reverse", preserve_result)
    return _generate(func, wrt, optimized, preserve_result, False, verbose, "reverse",
                     source=_source_text(source))


def jvp(func, wrt=(0,), optimized=True, preserve_result=False, verbose=0, source=None):
    """Jacobian-vector product: the returned function takes `func`'s arguments and one
    tangent per `wrt` argument."""
    if isinstance(func, _custom._Custom):
        return _custom.derivative(func, wrt, "forward", preserve_result)
    return _generate(func, wrt, optimized, preserve_result, False, verbose, "forward",
                     source=_source_text(source))


def _source_text(source):
    if source is None or isinstance(source, str):
        return source
    raise TypeError(_at_call_site(
        "source must be the text of the function's definition, not %s"
        % type(source).__name__, "pass a str, e.g. source=inspect.getsource(f)"))


def function(func=None, source=None):
    """Captures the source of `func` when it is defined, for code whose text is not kept
    anywhere else (`exec`, `python -c`, a cell edited later): `@tangent.function` takes
    it from the file or `linecache` now; `tangent.function(f, source=text)` attaches the
    given text. Returns `func` itself."""
    if func is None:
        return lambda f: function(f, source)
    from tangent._live import _read_source
    code = getattr(func, "__code__", None)
    text = _source_text(source)
    if text is None and code is not None:
        text = _read_source(func, code.co_filename)
    if text is None:
        raise TangentError(_at_call_site(
            "no source text for `%s`: it was made by code that keeps none (exec, "
            "python -c)" % getattr(func, "__name__", func),
            "pass the text it was defined with: tangent.function(f, source=text)"))
    func.__tangent_text__ = text
    return func


def with_source(func, source):
    """`func` with `source`, the text it was defined with, attached (for exec'd code)."""
    return function(func, source)


def explain(func, *args, wrt=(0,), eps=1e-6):
    """Prints the primal as tangent reads it, the generated gradient, the data flow
    (which values depend on the differentiated inputs, and from what), and a central
    finite-difference check of the gradient at `args` with the largest difference.
    Returns that largest difference."""
    if isinstance(wrt, int):
        wrt = (wrt,)
    wrt = tuple(wrt)
    code = func.__code__
    df = grad(func, wrt=wrt)
    answer = _tangent.ask(dict(
        ask="explain", version=_build._SEAM_VERSION, file=code.co_filename,
        function=func.__name__, wrt=list(wrt), first=getattr(df, "__tangent_live__", None)))
    if answer["outcome"] != "explanation":
        raise TangentError(answer["message"])
    primal, flow = answer["primal"], answer["flow"]
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
        flat_g = numpy.ravel(numpy.asarray(g)).tolist() if _registry.is_array(g) else [float(g)]
        n = len(flat_g)
        for k in range(n):
            def shifted(delta):
                # Float32 arguments widened: the differences of the float64 function
                # (single precision would lose the step to rounding).
                a = [_widened(v) for v in args]
                if _registry.is_array(x):
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
    print("== native code (compile='auto') ==")
    print("  " + _native_status(func, wrt, args))
    return worst


def _widened(v):
    """A float32 array or scalar as float64 (other values as they are)."""
    dtype = getattr(v, "dtype", None)
    if dtype is not None and numpy is not None and dtype == numpy.float32:
        return numpy.asarray(v, dtype=numpy.float64) if _registry.is_array(v) else float(v)
    return v


def _native_status(func, wrt, args):
    """Whether the gradient runs as machine code at `args`, and if not, why."""
    try:
        native = grad(func, wrt=wrt, compile="native!")
    except TangentError as e:
        return "runs interpreted: " + str(e).split(" cannot be compiled: ", 1)[-1]
    before = getattr(native, "__tangent_native_calls__", 0)
    try:
        native(*args)
    except TypeError as e:  # compile='native!' refuses these argument types
        message = str(e)
        if "runs interpreted for arguments" in message:
            return "runs interpreted for these arguments: " + message.split(": ", 2)[-1]
        raise
    if getattr(native, "__tangent_native_calls__", 0) > before:
        return "runs as machine code"
    return ("runs interpreted at these arguments: an argument is not a number, a float64 "
            "or float32 array of 1 or 2 dimensions or a dict of floats, or Python raises, "
            "leaves machine numbers or NumPy's own float32 code computes a value here")


def backend_status():
    """Each backend: 'available', 'not installed', or 'broken: <reason>' (the framework
    is there but fails to import, or tangent's runtime for it fails to load); keras's
    says which backend it runs on ('available (backend: jax)')."""
    status = {}
    for backend in _backends.BACKENDS:
        name = backend.name
        try:
            __import__(name)
            if backend.runtime is not None:
                _sys.modules[backend.runtime].load()
            detail = backend.status_detail()
            status[name] = "available" + (" (%s)" % detail if detail else "")
        except ImportError as e:
            # The framework itself is missing, or something it needs (then it is broken).
            missing = (getattr(e, "name", None) or "").split(".")[0]
            if missing == name and name not in _sys.modules:
                status[name] = "not installed"
            else:
                status[name] = "broken: %s: %s" % (type(e).__name__, e)
        except Exception as e:  # a backend that fails to import is reported, not fatal
            status[name] = "broken: %s: %s" % (type(e).__name__, e)
    return status


def _grad_util_module():
    """`tangent.grad_util`, the module Google Tangent's callers import the API and
    `INPUT_DERIVATIVE` from (`from tangent.grad_util import INPUT_DERIVATIVE`)."""
    module = _types.ModuleType("tangent.grad_util", "Google Tangent's grad_util names.")
    for name in ("INPUT_DERIVATIVE", "autodiff", "grad", "vjp", "jvp"):
        setattr(module, name, globals()[name])
    return module
