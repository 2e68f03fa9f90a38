# The backend-neutral table of elementwise functions: each entry gives, once, the partial
# derivative dy/dx of y = f(x), written with `B.` for "the function's module" and `y` for
# the result. The decorator names the function in each backend, under the backend's
# top-level module (`math.asin` is `numpy.arcsin`; `jax="numpy.arcsin"` is
# `jax.numpy.arcsin`, for which `B.` is `jax.numpy`; `torch="arcsin"` is `torch.arcsin`;
# `tensorflow="math.asin"` is `tf.math.asin`, which is also `tf.asin`; `keras="ops.arcsin"`
# is `keras.ops.arcsin`, on any Keras backend). `numpy_="ndarray.asin"` is the array method
# `x.asin()` (tinygrad's and torch's), for which `B.` is the value's array namespace.
# From each entry the loader makes, per backend, the reverse rule
# `d[x] = d[y] * (partial)` and the forward rule `d[y] = d[x] * (partial)` (with
# `result="real"`, a function real for complex arguments: `d[y] =
# tangent.real_like(d[x] * (partial), y)`, the real part for a real y), so the backends
# cannot drift apart.
# Functions of two arguments have explicit templates in arithmetic.py and the backend
# files.


@elementwise(numpy="sin", math="sin", jax="numpy.sin", torch="sin", tensorflow="math.sin", keras="ops.sin")
def sin(y, x):
    return B.cos(x)


@elementwise(numpy="cos", math="cos", jax="numpy.cos", torch="cos", tensorflow="math.cos", keras="ops.cos")
def cos(y, x):
    return -B.sin(x)


@elementwise(numpy="tan", math="tan", jax="numpy.tan", torch="tan", tensorflow="math.tan", keras="ops.tan", numpy_="ndarray.tan")
def tan(y, x):
    return 1.0 + y * y


@elementwise(numpy="arcsin", math="asin", jax="numpy.arcsin", jax_="numpy.asin", torch="arcsin", torch_="asin", tensorflow="math.asin", keras="ops.arcsin", numpy_="ndarray.asin")
def arcsin(y, x):
    return 1.0 / B.sqrt(1.0 - x * x)


@elementwise(numpy="arccos", math="acos", jax="numpy.arccos", jax_="numpy.acos", torch="arccos", torch_="acos", tensorflow="math.acos", keras="ops.arccos", numpy_="ndarray.acos")
def arccos(y, x):
    return -1.0 / B.sqrt(1.0 - x * x)


@elementwise(numpy="arctan", math="atan", jax="numpy.arctan", jax_="numpy.atan", torch="arctan", torch_="atan", tensorflow="math.atan", keras="ops.arctan", numpy_="ndarray.atan")
def arctan(y, x):
    return 1.0 / (1.0 + x * x)


@elementwise(numpy="sinh", math="sinh", jax="numpy.sinh", torch="sinh", tensorflow="math.sinh", keras="ops.sinh", numpy_="ndarray.sinh")
def sinh(y, x):
    return B.cosh(x)


@elementwise(numpy="cosh", math="cosh", jax="numpy.cosh", torch="cosh", tensorflow="math.cosh", keras="ops.cosh", numpy_="ndarray.cosh")
def cosh(y, x):
    return B.sinh(x)


@elementwise(numpy="tanh", math="tanh", jax="numpy.tanh", torch="tanh", tensorflow="math.tanh", keras="ops.tanh")
def tanh(y, x):
    return 1.0 - y * y


@elementwise(numpy="arcsinh", math="asinh", jax="numpy.arcsinh", jax_="numpy.asinh", torch="arcsinh", torch_="asinh", tensorflow="math.asinh", keras="ops.arcsinh", numpy_="ndarray.asinh")
def arcsinh(y, x):
    return 1.0 / B.sqrt(x * x + 1.0)


@elementwise(numpy="arccosh", math="acosh", jax="numpy.arccosh", jax_="numpy.acosh", torch="arccosh", torch_="acosh", tensorflow="math.acosh", keras="ops.arccosh", numpy_="ndarray.acosh")
def arccosh(y, x):
    return 1.0 / B.sqrt(x * x - 1.0)


@elementwise(numpy="arctanh", math="atanh", jax="numpy.arctanh", jax_="numpy.atanh", torch="arctanh", torch_="atanh", tensorflow="math.atanh", keras="ops.arctanh", numpy_="ndarray.atanh")
def arctanh(y, x):
    return 1.0 / (1.0 - x * x)


@elementwise(numpy="exp", math="exp", jax="numpy.exp", torch="exp", tensorflow="math.exp", keras="ops.exp")
def exp(y, x):
    return y


@elementwise(numpy="exp2", jax="numpy.exp2", torch="exp2", keras="ops.exp2", numpy_="ndarray.exp2")
def exp2(y, x):
    return y * 0.6931471805599453


@elementwise(numpy="expm1", math="expm1", jax="numpy.expm1", torch="expm1", tensorflow="math.expm1", keras="ops.expm1")
def expm1(y, x):
    return y + 1.0


@elementwise(numpy="log", tangent="log", jax="numpy.log", torch="log", tensorflow="math.log", keras="ops.log")
def log(y, x):
    return 1.0 / x


@elementwise(numpy="log1p", math="log1p", jax="numpy.log1p", torch="log1p", tensorflow="math.log1p", keras="ops.log1p")
def log1p(y, x):
    return 1.0 / (1.0 + x)


@elementwise(numpy="log2", math="log2", jax="numpy.log2", torch="log2", keras="ops.log2", numpy_="ndarray.log2")
def log2(y, x):
    return 1.0 / (x * 0.6931471805599453)


@elementwise(numpy="log10", math="log10", jax="numpy.log10", torch="log10", keras="ops.log10", numpy_="ndarray.log10")
def log10(y, x):
    return 1.0 / (x * 2.302585092994046)


@elementwise(numpy="sqrt", math="sqrt", jax="numpy.sqrt", torch="sqrt", tensorflow="math.sqrt", keras="ops.sqrt")
def sqrt(y, x):
    return 1.0 / (2.0 * y)


@elementwise(numpy="cbrt", math="cbrt", jax="numpy.cbrt", keras="ops.cbrt")
def cbrt(y, x):
    return 1.0 / (3.0 * y * y)


@elementwise(numpy="square", jax="numpy.square", torch="square", tensorflow="math.square", keras="ops.square")
def square(y, x):
    return 2.0 * x


@elementwise(numpy="reciprocal", jax="numpy.reciprocal", torch="reciprocal", tensorflow="math.reciprocal", keras="ops.reciprocal", numpy_="ndarray.reciprocal")
def reciprocal(y, x):
    return -y * y


@elementwise(numpy="negative", jax="numpy.negative", torch="negative", torch_="neg", tensorflow="math.negative", keras="ops.negative")
def negative(y, x):
    return -1.0


# |z| of a complex z is real: `result="real"` makes its tangent the real part of
# d[x] * partial (`tangent.real_like`), and tangent.sign of a complex z is
# conj(z) / |z|, the adjoint of |z| in the rules' convention (tangent._grads_complex).
@elementwise(result="real", numpy="abs", numpy_="absolute", numpy__="fabs", math="fabs", builtins="abs", jax="numpy.abs", jax_="numpy.absolute", torch="abs", torch_="absolute", tensorflow="math.abs", keras="ops.abs", keras_="ops.absolute")
def abs(y, x):
    return tangent.sign(x)


@elementwise(math="erf", torch="erf", tensorflow="math.erf", keras="ops.erf", numpy="ndarray.erf")
def erf(y, x):
    return 1.1283791670955126 * B.exp(-x * x)


@elementwise(math="erfc", torch="erfc", tensorflow="math.erfc")
def erfc(y, x):
    return -1.1283791670955126 * B.exp(-x * x)


@elementwise(torch="rsqrt", tensorflow="math.rsqrt", keras="ops.rsqrt", numpy="ndarray.rsqrt")
def rsqrt(y, x):
    return -0.5 * y * y * y


@elementwise(torch="sigmoid", tensorflow="math.sigmoid", keras="ops.sigmoid")
def sigmoid(y, x):
    return y * (1.0 - y)


# NumPy's linear ones: angle conversions and +x (conj, linear but not holomorphic, has
# rules of its own in numpy.py)
@elementwise(numpy="deg2rad")
def deg2rad(y, x):
    return 0.017453292519943295


@elementwise(numpy="radians")
def radians(y, x):
    return 0.017453292519943295


@elementwise(numpy="rad2deg")
def rad2deg(y, x):
    return 57.29577951308232


@elementwise(numpy="degrees")
def degrees(y, x):
    return 57.29577951308232


@elementwise(numpy="positive")
def positive(y, x):
    return 1.0

