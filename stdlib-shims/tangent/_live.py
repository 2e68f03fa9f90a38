"""What the running program binds the names a function reads to, sent with each
derivative request (the format is src/syntax/live.rs), so calls resolve as Python
resolves them rather than by the file's import statements: `try: import numpy as np`,
`sin = math.cos`, `g_two = g_three` and a `def` redefined under an `if` are what they are
at run time. Also the check that a function object's code is its file's text."""
import _tangent
import sys as _sys

from tangent import _custom, _registry
from tangent._errors import TangentError, _at_call_site, _located

_known = {"key": None, "ids": {}, "keep": [], "generation": None, "names": (),
          "prefixes": ()}
_source_codes = {}


def _known_ids(generation):
    """id(object) -> canonical rule name, for the rules whose module is imported (never
    imports one). Rebuilt when the rules (their `generation`) or the imported modules
    change."""
    if _known["generation"] != generation:
        # The rule names and their module prefixes change only with the rules: computed
        # once per generation (over every rule, this is most of a warm request's time).
        names = _tangent.rule_names()
        _known.update(generation=generation, names=names, prefixes=sorted(
            {n.rsplit(".", k)[0] for n in names for k in range(1, n.count(".") + 1)}))
    names, prefixes = _known["names"], _known["prefixes"]
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
        for k, attr in enumerate(parts[cut:-1], cut + 1):
            obj = getattr(obj, attr, None)
            if isinstance(obj, type):
                # A class whose functions have rules (`tinygrad.Tensor.stack`): a name
                # bound to it reads them as `Tensor.stack`.
                keep.append(obj)
                ids.setdefault(id(obj), ".".join(parts[:k]))
        obj = getattr(obj, parts[-1], None) if obj is not None else None
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
    fields of a `custom` fact (src/syntax/live.rs `Fact::Custom`): a reverse-mode rule
    or not, whether its rule is defined, its nondiff_argnums; None for any other
    object."""
    kind = _custom.live_kind(obj)
    if kind is None:
        return None
    return dict(vjp=kind[0] == "vjp", defined=bool(kind[1]), nondiff=[int(i) for i in kind[2]])


def _code_names(code):
    """The global and attribute names a code object and the code nested in it read."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _code_names(const)
    return names


def _given_text(func):
    """The source captured with `tangent.function` / `with_source`, if any."""
    text = getattr(func, "__tangent_text__", None)
    return text if isinstance(text, str) else None


def _read_source(func, filename):
    """The text `func` was compiled from: `__tangent_text__` (given with `source=` or
    captured by `tangent.function`), the file as it is now, or `linecache`'s lines for
    code that has no file (IPython and Jupyter cells register theirs there; so can any
    program that runs code with `exec`). None when there is none."""
    text = _given_text(func)
    if text is not None:
        return text
    try:
        with open(filename, encoding="utf-8", newline="") as f:
            return f.read()
    except (OSError, ValueError):
        pass
    import linecache
    lines = linecache.cache.get(filename)
    if lines and isinstance(lines[2], list) and lines[2]:
        return "".join(lines[2])
    return None


def _cell(value):
    """A closure cell holding `value` (for the `self` of a bound method)."""
    return (lambda: value).__closure__[0]


def _network_modules(name, obj, filename):
    """The `nnmodule` facts of a torch.nn.Module held by `name`: each module of its tree
    (dotted prefix from the root), what a call of it is (`torch.nn.<Class>` for torch's
    own classes, `forward` for a class whose `forward` is Python code of a file other
    than torch's, else `other:<class>`) and its own parameters and buffers. Never
    imports torch."""
    torch = _sys.modules.get("torch")
    nn = getattr(torch, "nn", None)
    if nn is None or not isinstance(obj, nn.Module):
        return []
    facts = []
    for prefix, m in obj.named_modules(remove_duplicate=False):
        cls = type(m)
        if getattr(nn, cls.__name__, None) is cls:
            kind = "torch.nn." + cls.__name__
        elif (getattr(cls.forward, "__code__", None) is not None
              and not cls.__module__.startswith("torch.")):
            kind = "forward"
        else:
            kind = "other:%s.%s" % (cls.__module__, cls.__qualname__)
        own = list(m._parameters) + list(m._buffers)
        facts.append(dict(kind="nnmodule", root=name, prefix=prefix, call=kind,
                          parameters=own))
    return facts


def _is_star_wrapper(f):
    code = getattr(f, "__code__", None)
    return (code is not None and getattr(f, "__wrapped__", None) is not None
            and bool(code.co_flags & 0x0C))


def _live_request(func, filename, generation, entry_name, text=None, bound_self=None,
                  constructor=False, receiver=False):
    """(the source text, the live names (src/syntax/live.rs `Fact`s: dicts tagged by
    `kind`), the closure cells the generated code reads, the bindings to check later)
    for the transformer, or None when there is no source text (the transformer then reports
    that). `generation` counts the rules registered at run time. `entry_name` is what the
    function is called in the generated code; `bound_self` is a one-element tuple holding
    a bound method's object; `constructor`: `func` is an `__init__` differentiated as the
    function that returns the fields it assigns; `receiver`: its first parameter is the
    object of a user class a method is differentiated for."""
    # Text given by the user (`source=`, `tangent.function`) need not start where the
    # code's file did: its functions are found by their code, on any line.
    anywhere = text is not None or _given_text(func) is not None
    if text is None:
        text = _read_source(func, filename)
    if text is None:
        return None
    import builtins
    globals_ = func.__globals__
    builtins_ = globals_.get("__builtins__", builtins)
    builtins_ = builtins_ if isinstance(builtins_, dict) else vars(builtins_)
    ids = _known_ids(generation)
    index = _code_index(filename, text)
    code = func.__code__
    line, ordinal = _position(index, func, filename, anywhere)
    facts = [dict(kind="entry", name=code.co_name, line=line, ordinal=ordinal)]
    if constructor:
        facts.append(dict(kind="init", unit=entry_name, post=constructor == "post"))
    facts.extend(dict(kind="entry_check", helper=helper) for helper in _registry.entry_checks())
    if receiver and code.co_argcount:
        facts.append(dict(kind="object", unit=entry_name, param=code.co_varnames[0]))
    names, seen, bound = set(), {id(code)}, {}
    extended = [None]  # the text with specialised wrappers appended, if any is called
    cells, taken = {}, {entry_name}
    missing = object()
    modules = []
    units = [(entry_name, func)]

    def unique(var):
        name, k = var, 1
        while name in taken or name in bound or name in globals_ or name in names:
            name = "%s_%d" % (var, k)
            k += 1
        taken.add(name)
        return name

    def same_file(obj):
        c = getattr(obj, "__code__", None)
        return (c is not None and c.co_filename == filename
                and getattr(obj, "__globals__", None) is globals_)

    def describe(n, obj, builtin):
        """The facts about `n` bound to `obj` (a function of the file becomes a unit to
        read too)."""
        if obj is missing:
            return [dict(kind="missing", name=n)]
        if builtin:
            return [dict(kind="builtin", name=n)]
        custom = _custom_kind(obj)
        if custom is not None:
            return [dict(kind="custom", name=n, **custom)]
        if isinstance(obj, type(_sys)):
            modules.append((obj, obj.__name__))
            return [dict(kind="import", name=n, qualified=obj.__name__)]
        if id(obj) in ids:
            return [dict(kind="import", name=n, qualified=ids[id(obj)])]
        if same_file(obj) and _is_star_wrapper(obj):
            # A decorated function of the file (functools.wraps over *args/**kwargs):
            # read as its wrapper written with the wrapped function's parameters, whose
            # `def` is appended to the file's text (tangent._build._specialized_wrapper).
            from tangent._build import _specialized_wrapper
            obj = _specialized_wrapper(obj)
        if same_file(obj) and getattr(obj, "__tangent_specialized__", False):
            # (the inner wrapper of stacked ones is one already). Found in that text by
            # names and constants: compiled apart from the file's imports, its bytecode
            # differs in RustPython.
            from tangent._build import _EXTENDED
            extended[0] = _EXTENDED[filename]
            units.append((n, obj))
            line, ordinal = _position(_code_index(filename, extended[0]), obj, filename, True)
            return [dict(kind="function", name=n, line=line, ordinal=ordinal,
                         **{"def": obj.__code__.co_name})]
        if same_file(obj):
            c = obj.__code__
            if id(c) not in seen or obj.__closure__:
                seen.add(id(c))
                units.append((n, obj))
            line, ordinal = _position(index, obj, filename, anywhere)
            return [dict(kind="function", name=n, line=line, ordinal=ordinal,
                         **{"def": c.co_name})]
        if (callable(obj) and not isinstance(obj, type)
                and isinstance(getattr(obj, "__module__", None), str)
                and isinstance(getattr(obj, "__qualname__", None), str)
                and "<" not in obj.__qualname__):
            # An importable function without a rule: named, for the missing-rule error.
            return [dict(kind="import", name=n,
                         qualified="%s.%s" % (obj.__module__, obj.__qualname__))]
        t = type(obj)
        from tangent._methods import constructible
        array = _is_array_value(obj)
        return _network_modules(n, obj, filename) + [dict(
            kind="value", name=n,
            type_name=t.__qualname__ if t.__module__ == "builtins" else
            "%s.%s" % (t.__module__, t.__qualname__),
            array=array, **{"class": not array and constructible(obj) is not None})]

    described = []
    done_units = 0
    while done_units < len(units):
        unit, f = units[done_units]
        done_units += 1
        c = f.__code__
        found = _code_names(c)
        names |= found
        for n in sorted(found):
            if n in bound:
                continue
            if n in globals_:
                bound[n] = (_unwrap_transparent(globals_[n]), False)
            elif n in builtins_:
                bound[n] = (builtins_[n], True)
            else:
                bound[n] = (missing, False)
            described.extend(describe(n, *bound[n]))
        free = list(zip(c.co_freevars, f.__closure__ or ()))
        if unit == entry_name and bound_self is not None:
            first = c.co_varnames[0]
            facts.append(dict(kind="bound", unit=unit, param=first))
            free.append((first, _cell(bound_self[0])))
        for var, cell in free:
            shared = [n for n, c in cells.items() if c is cell]
            if shared:  # another function of the same closure reads this cell too
                facts.append(dict(kind="closure", unit=unit, var=var, name=shared[0]))
                continue
            name = unique(var)
            cells[name] = cell
            facts.append(dict(kind="closure", unit=unit, var=var, name=name))
            try:
                value = _unwrap_transparent(cell.cell_contents)
            except ValueError:  # an empty cell: the variable is not assigned yet
                value = missing
            described.extend(describe(name, value, False))
    facts.extend(described)
    # The attributes of the modules read (and of their submodules the code reaches), for
    # "module `numpy` has no attribute `summ`"; and the functions the code may reach
    # through them that a rule names by another path (`tf.matmul` is the object of the
    # rule `tensorflow.linalg.matmul`): `alias` facts, keyed by the path as the code
    # spells it from its imports.
    done = set()
    while modules:
        m, path = modules.pop()
        if id(m) in done:
            continue  # each module once, by the first path found (modules form cycles)
        done.add(id(m))
        attrs = {a for a in dir(m) if not a.startswith("_")}
        for a in names:
            try:
                value = getattr(m, a)
            except Exception:
                continue
            attrs.add(a)
            if isinstance(value, type(_sys)):
                modules.append((value, path + "." + a))
            elif id(value) in ids and ids[id(value)] != path + "." + a:
                facts.append(dict(kind="alias", path=path + "." + a,
                                  canonical=ids[id(value)]))
        facts.append(dict(kind="attrs", module=path, names=sorted(attrs)))
    facts.append(dict(kind="globals", names=[
        k for k in list(globals_)[:5000] if isinstance(k, str) and _is_identifier(k)]))
    # What the derivative was resolved against: a later rebinding of any of these names
    # (a notebook cell defining `g` again) makes the cached derivative stale.
    checks = []
    for n, (obj, builtin) in bound.items():
        if obj is missing or builtin:
            checks.append(("absent", n, None))
        else:
            checks.append(("global", n, globals_[n]))
    for name, cell in cells.items():
        try:
            checks.append(("cell", cell, cell.cell_contents))
        except ValueError:
            checks.append(("cell", cell, missing))
    return (extended[0] or text), facts, cells, (globals_, tuple(checks), missing)


_IDENTIFIERS = {}


def _is_identifier(name):
    """`name.isidentifier()`, remembered: every request asks it of each of the module's
    global names, and the embedded interpreter answers it slowly (a file of 2,700
    globals spent a sixth of its second-order catalog there)."""
    known = _IDENTIFIERS.get(name)
    if known is None:
        if len(_IDENTIFIERS) > 100000:
            _IDENTIFIERS.clear()
        known = _IDENTIFIERS[name] = name.isidentifier()
    return known


def bindings_hold(bindings):
    """Do the names a derivative was resolved against still hold the same objects?"""
    if bindings is None:
        return True
    globals_, checks, missing = bindings
    for kind, key, value in checks:
        if kind == "global":
            if globals_.get(key, missing) is not value:
                return False
        elif kind == "absent":
            if key in globals_:
                return False
        else:
            try:
                current = key.cell_contents
            except ValueError:
                current = missing
            if current is not value:
                return False
    return True


def _same_code(a, b, bytecode=True):
    """Whether code objects `a` and `b` compile the same text: bytecode, names and
    constants (with `bytecode=False`, names and constants only: RustPython compiles
    `m.f(x)` differently when the same text also imports `m`, so text a user gave with
    more around it cannot be held to the bytecode)."""
    if ((bytecode and a.co_code != b.co_code) or a.co_names != b.co_names
            or a.co_varnames != b.co_varnames or len(a.co_consts) != len(b.co_consts)):
        return False
    for x, y in zip(a.co_consts, b.co_consts):
        if hasattr(x, "co_code"):
            if not (hasattr(y, "co_code") and _same_code(x, y, bytecode)):
                return False
        elif type(x) is not type(y) or (x != y and repr(x) != repr(y)):
            return False
    return True


def _code_index(filename, text):
    """(name, first line) -> the code objects the text compiles to there, in source
    order (outer before inner, left to right); None when it does not compile (the
    transformer reports the syntax error, located)."""
    index = _source_codes.get(filename)
    if index is not None and index[0] == text:
        return index[1]
    try:
        module = compile(text, filename, "exec")
    except (SyntaxError, ValueError):
        return None
    codes = {}

    def visit(code):
        for const in code.co_consts:
            if hasattr(const, "co_code"):
                codes.setdefault((const.co_name, const.co_firstlineno), []).append(const)
                visit(const)

    visit(module)
    _source_codes[filename] = (text, codes)
    return codes


def _position(index, f, filename, anywhere=False):
    """(line, ordinal): the unit `f` was made from, the `ordinal`-th named like its code
    on that line. Its code must be what the text compiles to there (a file edited after
    import would otherwise be differentiated in its new text); with `anywhere`, on any
    line (text the user gave)."""
    code = f.__code__
    if index is None:
        return code.co_firstlineno, 0
    for k, compiled in enumerate(index.get((code.co_name, code.co_firstlineno), ())):
        if _same_code(code, compiled):
            return code.co_firstlineno, k
    if anywhere:
        for (name, line), codes in sorted(index.items()):
            if name == code.co_name:
                for k, compiled in enumerate(codes):
                    if _same_code(code, compiled, bytecode=False):
                        return line, k
        raise TangentError(_at_call_site(
            "the source given for `%s` does not define it: no `%s` there compiles to "
            "the function's code" % (f.__name__, "lambda" if code.co_name == "<lambda>"
                                    else "def " + code.co_name),
            "pass the text the function was defined with (source=... or "
            "tangent.function(f, source=...)), including the functions it calls"))
    raise TangentError(_located(
        filename, code.co_firstlineno,
        "`%s` is not the code in %s now: the file changed after the function "
        "was defined" % (code.co_name, filename),
        "tangent differentiates the function object's own code; re-run the "
        "script, or reload the module (importlib.reload), so that the two agree"))
