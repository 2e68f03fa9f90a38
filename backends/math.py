# Derivative rules for the `math` module (the reference had none). The one-argument
# functions come from the elementwise table (elementwise.py); these are the rest.
# Template conventions as in python.py; `@tangent_` rules are forward mode, where d[x] is
# the tangent of x and the rule writes d[result].

nondifferentiable(
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
    math.factorial, math.gcd,
)

# Every math function is pure (for the e-graph passes).
pure_module(math)

# The functions the native compiler (compile='native') runs as machine code on floats:
# each calls the runtime's kernel of the same short name (jit/runtime.rs).
native_scalar(
    math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.sinh, math.cosh,
    math.tanh, math.asinh, math.acosh, math.atanh, math.exp, math.expm1, math.log,
    math.log1p, math.log2, math.log10, math.sqrt, math.fabs,
)
native_scalar(math.pow, math.atan2, math.hypot, math.copysign, arity=2)


@adjoint(math.atan2)
def atan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


@tangent_(math.atan2)
def atan2_tangent(z, y, x):
    d[z] = (d[y] * x - d[x] * y) / (x * x + y * y)


@adjoint(math.log)
def log(y, x, base=None):
    if base is None:
        d[x] = d[y] / x
    else:
        d[x] = d[y] / (x * math.log(base))
        d[base] = -d[y] * y / (base * math.log(base))


@tangent_(math.log)
def log_tangent(y, x, base=None):
    if base is None:
        d[y] = d[x] / x
    else:
        d[y] = d[x] / (x * math.log(base)) - d[base] * y / (base * math.log(base))


@adjoint(math.pow)
def pow(z, x, y):
    d[x] = d[z] * y * math.pow(x, y - 1.0)
    d[y] = d[z] * z * math.log(x)


@tangent_(math.pow)
def pow_tangent(z, x, y):
    d[z] = d[x] * y * math.pow(x, y - 1.0) + d[y] * z * math.log(x)


@adjoint(math.hypot)
def hypot(z, x, y):
    d[x] = d[z] * x / z
    d[y] = d[z] * y / z


@tangent_(math.hypot)
def hypot_tangent(z, x, y):
    d[z] = (d[x] * x + d[y] * y) / z


# copysign(x, y) = |x| sign(y): the sign of y is piecewise constant.
@adjoint(math.copysign)
def copysign(z, x, y):
    d[x] = d[z] * math.copysign(1.0, x) * math.copysign(1.0, y)
    d[y] = 0.0


@tangent_(math.copysign)
def copysign_tangent(z, x, y):
    d[z] = d[x] * math.copysign(1.0, x) * math.copysign(1.0, y)
