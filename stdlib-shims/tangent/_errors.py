"""Checks and errors: `TangentError`, the located message format of run-time errors
(`_located`, `_at_call_site`), and the checks generated code calls (`check_output`,
`check_tangent`, `check_inplace`, `primal_default`)."""
from tangent import _registry

try:
    from _tangent import fast_helper
except ImportError:  # CPython: the Python definitions as they are
    def fast_helper(name, fn, numbers=None):
        return fn


class TangentError(Exception):
    """The function cannot be differentiated; the message says where and why."""


TangentError.__module__ = "tangent"


def _located(filename, line, message, hint):
    """An error in the transformer's diagnostic format: file:line:col, the line with a
    caret under it, and a hint (the message and the hint alone when `line` is None: no
    line of the user's was found)."""
    if line is None:
        return "%s\nhint: %s" % (message, hint)
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


def _user_frame(tb, filename):
    """The line of the innermost traceback entry in `filename`, or None (where a
    library's compiler met the user's code)."""
    line = None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


class NotDifferentiated(TangentError, NotImplementedError):
    """A stated limit of a rule met when the derivative runs (an argument value it is
    not built for, `tf.nn.conv2d` with dilations): located at the user's call, and a
    NotImplementedError as well."""

    def __init__(self, message):
        if "\nhint: " not in message:
            message = _at_call_site(
                message, "the derivative is built for the cases the message names: call "
                "it with one of them, or register a rule of your own with @tangent.adjoint")
        super().__init__(message)


_IMMUTABLE = (int, float, complex, bool, str, bytes, tuple, frozenset, type(None))


def check_inplace(value, update, line):
    """Before `name op= v` where another name may hold the same object: rebinding a number
    is what the derivative models; changing an array or a list in place, seen through
    the other name, is not."""
    if isinstance(value, _IMMUTABLE) or _registry.immutable(value):
        return  # `+=` rebinds: a new value, as the derivative computes it (a NumPy
        # scalar, a JAX array)
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


def several_outputs(y, name):
    """The error for a function that returned a tuple or list where one output is
    differentiated."""
    return ValueError(_at_call_site(
        "grad: `%s` returned a %s of %d values, not a scalar"
        % (name, type(y).__name__, len(y)),
        "pass output_index=i to differentiate one of them, or output_weights=(...) "
        "for a weighted sum"))


def check_output(y, seed, name):
    """check_dims: grad needs a scalar output unless a seed of the output's shape is given."""
    if type(y) is float and type(seed) is float:
        return  # the common case, checked first
    if y is None:
        raise TypeError(_at_call_site(
            "grad: `%s` returned None" % name,
            "the differentiated function must return a value"))
    if isinstance(y, (tuple, list)) and isinstance(seed, (tuple, list)) and \
            len(seed) == len(y):
        # a seed per output (the vector-Jacobian product of a function of several
        # outputs, as tangent.vjp takes it)
        for yi, si in zip(y, seed):
            check_output(yi, si, name)
        return
    impl = _registry.implementation("check_output", "grad's output check", (y, seed),
                                    strict=False, missing=check_output_by_shape)
    if impl is not None:
        return impl(y, seed, name)
    # Without NumPy: numbers only.
    if isinstance(y, (tuple, list)):
        raise several_outputs(y, name)
    if not isinstance(y, (int, float)):
        raise TypeError(_at_call_site(
            "grad: `%s` returned a %s, which has no derivative" % (name, type(y).__name__),
            "the differentiated function must return a number or an array"))


def _shape(x):
    """The shape of an array of any registered library; () for numbers."""
    return tuple(x.shape) if _registry.is_array(x) else ()


def check_output_by_shape(y, seed, name):
    """check_dims from shapes alone (JAX values, tracers included: shapes are static;
    array types registered without their own check)."""
    shape = _shape(y)
    sshape = _shape(seed)
    size = 1
    for n in shape:
        size *= n
    ssize = 1
    for n in sshape:
        ssize *= n
    if ssize != 1 and sshape != shape:
        raise ValueError(_at_call_site(
            "grad: the seed has shape %s but `%s` returned shape %s" % (sshape, name, shape),
            "pass a seed of shape %s (or a float when the output is a scalar)" % (shape,)))
    if size != 1 and sshape != shape:
        raise ValueError(_at_call_site(
            "grad: `%s` returned an array of shape %s, not a scalar" % (name, shape),
            "pass a seed of that shape as the last argument, or use tangent.vjp"))


def check_tangent(x, t, tname, xname):
    """Forward mode: a tangent must have its argument's shape."""
    from tangent._runtime import check_record_fields
    check_record_fields(x)
    xs, ts = _shape(x), _shape(t)
    if _registry.is_array(t) and ts != xs:
        raise ValueError(_at_call_site(
            "the tangent `%s` has shape %s but `%s` has shape %s" % (tname, ts, xname, xs),
            "pass a tangent of shape %s" % (xs,)))
    if isinstance(t, (list, tuple)) != isinstance(x, (list, tuple)):
        raise TypeError(_at_call_site(
            "the tangent `%s` is a %s but `%s` is a %s"
            % (tname, type(t).__name__, xname, type(x).__name__),
            "pass a tangent of the same structure as `%s`" % xname))


# A native path for the common case (float output and seed); see `fast_helper` in
# src/host/rustpython/fast_helper.rs.
check_output = fast_helper('check_output', check_output)


def _integer_tensor_error(dtype, shape, cast):
    """The located TypeError for a gradient asked of an integer (or bool) tensor: such a
    tensor is an argument under `wrt` (nothing active is integer otherwise). `cast`
    is how the library makes it floating (`x.double()`)."""
    return TypeError(_at_call_site(
        "tangent: a gradient with respect to an integer tensor (%s of shape %s) was asked "
        "for: integer tensors have no derivative" % (dtype, tuple(shape)),
        "pass that argument as a floating-point tensor (%s) or leave it out of wrt" % cast))
