# Derivative rules for Python's operators and builtins.
#
# A rule file is parsed, never executed. `@adjoint(name)` registers the function below it
# as the reverse-mode template for the canonical name. Its first parameter is the call's
# result, the others are the call's arguments (with the call's defaults). In the body,
# `d[x]` is the derivative of `x`: reading `d[y]` gives the incoming gradient, writing
# `d[x] = ...` adds a contribution to x's gradient. `@tangent_(name)` registers a
# forward-mode template: there `d[x]` is the tangent of an argument and the body writes
# `d[result]`. `tangent.*`, `numpy.*` and `math.*` are the runtime helpers and modules the
# generated code may call. Elementwise functions of one argument live in elementwise.py.
# Every argument that may depend on the differentiated input needs its `d[x] = ...` in
# the reverse template (and its `d[x]` read in the forward one): an active argument the
# rule leaves out is an error at the call, never a silent zero. Where the derivative is
# zero (piecewise constant, or read only for its shape), say so: `d[x] = 0.0`.

nondifferentiable(
    builtins.len, builtins.int, builtins.range, builtins.round, builtins.bool,
    builtins.isinstance, builtins.print, builtins.str, builtins.type, builtins.any,
    builtins.all, operator.floordiv,
)

# Formatting makes a string, which has no derivative: f-strings (lowered to
# `'...'.format(...)`), `str.format`, `%`-formatting of a string literal (lowered to
# `'...'.__mod__(...)`), `repr`; `print` and `logging`'s functions only read their arguments.
nondifferentiable(
    builtins.str.format, builtins.str.__mod__, builtins.str.join, builtins.repr,
    builtins.format, logging.debug, logging.info, logging.warning, logging.error,
    logging.critical, logging.exception, logging.log,
)
pure(builtins.str.format, builtins.str.__mod__, builtins.str.join, builtins.repr,
     builtins.format)
reads_only(
    logging.debug, logging.info, logging.warning, logging.error, logging.critical,
    logging.exception, logging.log,
)

# Hidden state: a draw from `random` or a clock reading gives another value when made
# again, so a function that makes one runs its forward pass once in a derivative.
effectful_module(random, time)

# max and min return one of their arguments; on more than two arguments they are the
# left fold of their two-argument form (which keeps the first extreme one on ties).
returns_view(builtins.max, builtins.min)
left_fold(builtins.max, builtins.min)

# Builtins that return a new value and change nothing (for the e-graph passes).
pure(
    builtins.abs, builtins.float, builtins.int, builtins.len, builtins.range,
    builtins.max, builtins.min, builtins.sum, builtins.pow, builtins.round, builtins.bool,
    builtins.tuple,
)

# Only reads its arguments: a call made for its effect may take differentiated values.
reads_only(builtins.print)


@adjoint(builtins.float)
def float(y, x):
    d[x] = tangent.unbroadcast(d[y], x)


@tangent_(builtins.float)
def float_tangent(y, x):
    d[y] = tangent.unbroadcast(d[x], y)


@adjoint(builtins.sum)
def sum(y, x):
    d[x] = tangent.sum_grad(d[y], x)


@tangent_(builtins.sum)
def sum_tangent(y, x):
    d[y] = tangent.sum_tangent(d[x])


# list(xs) / tuple(xs) of a sequence or an array: the same items
@adjoint(builtins.list)
@adjoint(builtins.tuple)
def list_(y, x):
    d[x] = tangent.sequence_grad(d[y], x)


@tangent_(builtins.list)
@tangent_(builtins.tuple)
def list_tangent(y, x):
    d[y] = tangent.sequence_grad(d[x], x)


# `super(cls, obj)` is `obj` seen from a parent class: the gradient of a method called
# through it (`tangent.method_grad`) is that of `obj` itself.
@adjoint(builtins.super)
def super_(proxy, cls, obj):
    d[obj] = d[proxy]


@tangent_(builtins.super)
def super_tangent(proxy, cls, obj):
    d[proxy] = d[obj]


# Methods of dicts. Methods of values of unknown type are keyed under the array class
# (`array_methods` in numpy.py), so `p.get(key, default)` on a dict is
# `numpy.ndarray.get` here; arrays have no `get`.
pure(numpy.ndarray.get)


@adjoint(numpy.ndarray.get)
def dict_get(y, x, key, default=None):
    d[x] = tangent.dict_get_grad(d[y], x, key)
    d[default] = tangent.dict_get_default_grad(d[y], x, key, default)


@tangent_(numpy.ndarray.get)
def dict_get_tangent(y, x, key, default=None):
    d[y] = tangent.dict_get_tangent(d[x], d[default], x, key, default)


# Context managers a differentiated `with` block may use (desugar::expand_with): the
# body runs inside them as written. `enters="argument"`: entering does nothing and `as`
# binds the call's argument; otherwise (`enters="state"`) the context is entered before
# the body and left after it (no `as` target, no return/break/continue out of the body).
transparent_context(contextlib.nullcontext, enters="argument")
transparent_context(warnings.catch_warnings)
