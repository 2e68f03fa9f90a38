"""What the running program binds the names a function reads to, sent with each
derivative request (the format is src/resolve/live.rs), so calls resolve as Python
resolves them rather than by the file's import statements: `try: import numpy as np`,
`sin = math.cos`, `g_two = g_three` and a `def` redefined under an `if` are what they are
at run time. Also the check that a function object's code is its file's text."""
import _tangent
import sys as _sys

from tangent import _custom, _registry
from tangent._errors import TangentError, _located

_known = {"key": None, "ids": {}, "keep": []}
_source_codes = {}


def _known_ids(generation):
    """id(object) -> canonical rule name, for the rules whose module is imported (never
    imports one). Rebuilt when the rules (their `generation`) or the imported modules
    change."""
    names = _tangent.rule_names()
    prefixes = sorted({n.rsplit(".", k)[0] for n in names for k in range(1, n.count(".") + 1)})
    key = (generation, tuple(p in _sys.modules for p in prefixes))
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
    return _registry.is_array(x)


def _custom_kind(obj):
    """What kind of custom-derivative object `obj` is (by type, never by name), as the
    fields of a `custom` line after the name (src/resolve/live.rs): kind (`vjp`/`jvp`),
    whether its rule is defined, its nondiff_argnums; None for any other object."""
    kind = _custom.live_kind(obj)
    if kind is None:
        return None
    return "%s\t%s\t%s" % (kind[0], "defined" if kind[1] else "undefined",
                            ",".join(str(i) for i in kind[2]))


def _code_names(code):
    """The global and attribute names a code object and the code nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _live_request(func, filename, generation):
    """(the file's text, the live names) for the transformer, or None when the file
    cannot be read (the transformer then reports that). `generation` counts the rules
    registered at run time."""
    try:
        with open(filename, encoding="utf-8", newline="") as f:
            text = f.read()
    except (OSError, ValueError):
        return None
    import builtins
    globals_ = func.__globals__
    builtins_ = globals_.get("__builtins__", builtins)
    builtins_ = builtins_ if isinstance(builtins_, dict) else vars(builtins_)
    ids = _known_ids(generation)
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
        elif _custom_kind(obj) is not None:
            lines.append("custom\t%s\t%s" % (n, _custom_kind(obj)))
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

