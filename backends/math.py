# Derivative rules for the `math` module (the reference had none). Same template
# conventions as python.py: first parameter is the result, `d[x]` the derivative of x.

nondifferentiable(
    math.floor, math.ceil, math.trunc, math.isnan, math.isinf, math.isfinite,
    math.factorial, math.gcd, math.copysign,
)


@adjoint(math.sin)
def sin(y, x):
    d[x] = d[y] * math.cos(x)


@adjoint(math.cos)
def cos(y, x):
    d[x] = -d[y] * math.sin(x)


@adjoint(math.tan)
def tan(y, x):
    d[x] = d[y] * (1.0 + y * y)


@adjoint(math.asin)
def asin(y, x):
    d[x] = d[y] / math.sqrt(1.0 - x * x)


@adjoint(math.acos)
def acos(y, x):
    d[x] = -d[y] / math.sqrt(1.0 - x * x)


@adjoint(math.atan)
def atan(y, x):
    d[x] = d[y] / (1.0 + x * x)


@adjoint(math.atan2)
def atan2(z, y, x):
    d[y] = d[z] * x / (x * x + y * y)
    d[x] = -d[z] * y / (x * x + y * y)


@adjoint(math.sinh)
def sinh(y, x):
    d[x] = d[y] * math.cosh(x)


@adjoint(math.cosh)
def cosh(y, x):
    d[x] = d[y] * math.sinh(x)


@adjoint(math.tanh)
def tanh(y, x):
    d[x] = d[y] * (1.0 - y * y)


@adjoint(math.asinh)
def asinh(y, x):
    d[x] = d[y] / math.sqrt(x * x + 1.0)


@adjoint(math.acosh)
def acosh(y, x):
    d[x] = d[y] / math.sqrt(x * x - 1.0)


@adjoint(math.atanh)
def atanh(y, x):
    d[x] = d[y] / (1.0 - x * x)


@adjoint(math.exp)
def exp(y, x):
    d[x] = d[y] * y


@adjoint(math.expm1)
def expm1(y, x):
    d[x] = d[y] * (y + 1.0)


@adjoint(math.log)
def log(y, x, base=None):
    if base is None:
        d[x] = d[y] / x
    else:
        d[x] = d[y] / (x * math.log(base))
        d[base] = -d[y] * y / (base * math.log(base))


@adjoint(math.log1p)
def log1p(y, x):
    d[x] = d[y] / (1.0 + x)


@adjoint(math.log2)
def log2(y, x):
    d[x] = d[y] / (x * math.log(2.0))


@adjoint(math.log10)
def log10(y, x):
    d[x] = d[y] / (x * math.log(10.0))


@adjoint(math.sqrt)
def sqrt(y, x):
    d[x] = d[y] / (2.0 * y)


@adjoint(math.pow)
def pow(z, x, y):
    d[x] = d[z] * y * math.pow(x, y - 1.0)
    d[y] = d[z] * z * math.log(x)


@adjoint(math.fabs)
def fabs(y, x):
    d[x] = d[y] * math.copysign(1.0, x)


@adjoint(math.hypot)
def hypot(z, x, y):
    d[x] = d[z] * x / z
    d[y] = d[z] * y / z


@adjoint(math.erf)
def erf(y, x):
    d[x] = d[y] * 1.1283791670955126 * math.exp(-x * x)


@adjoint(math.erfc)
def erfc(y, x):
    d[x] = -d[y] * 1.1283791670955126 * math.exp(-x * x)
