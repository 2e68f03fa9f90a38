# Arithmetic rules shared by Python's operators and builtins and the ufuncs of NumPy and
# jax.numpy, so the definitions cannot drift apart. Template conventions as in python.py.


@adjoint(operator.add)
def add(z, x, y):
    d[x] = tangent.unbroadcast_left(d[z], x, y)
    d[y] = tangent.unbroadcast_right(d[z], x, y)


@adjoint(numpy.add)
def numpy_add(z, x, y):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(d[z], y)


@tangent_(operator.add)
@tangent_(numpy.add)
def add_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] + d[y], z)


@adjoint(operator.sub)
@adjoint(numpy.subtract)
def sub(z, x, y):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(-d[z], y)


@tangent_(operator.sub)
@tangent_(numpy.subtract)
def sub_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] - d[y], z)


@adjoint(operator.mul)
@adjoint(numpy.multiply)
def mul(z, x, y):
    if x is y:
        # The same variable twice (a square): one contribution, not two.
        d[x] = tangent.unbroadcast(2.0 * d[z] * x, x)
    else:
        d[x] = tangent.unbroadcast(d[z] * y, x)
        d[y] = tangent.unbroadcast(d[z] * x, y)


@tangent_(operator.mul)
@tangent_(numpy.multiply)
def mul_tangent(z, x, y):
    d[z] = d[x] * y + x * d[y]


@adjoint(operator.truediv)
@adjoint(numpy.divide)
@adjoint(numpy.true_divide)
def truediv(z, x, y):
    d[x] = tangent.unbroadcast(d[z] / y, x)
    d[y] = tangent.unbroadcast(-d[z] * z / y, y)


@tangent_(operator.truediv)
@tangent_(numpy.divide)
@tangent_(numpy.true_divide)
def truediv_tangent(z, x, y):
    d[z] = d[x] / y - d[y] * z / y


@adjoint(operator.pow)
@adjoint(builtins.pow)
@adjoint(numpy.power)
@adjoint(numpy.float_power)
def pow(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * y * x ** (y - 1), x)
    d[y] = tangent.unbroadcast(d[z] * z * tangent.log(x), y)


@tangent_(operator.pow)
@tangent_(builtins.pow)
@tangent_(numpy.power)
@tangent_(numpy.float_power)
def pow_tangent(z, x, y):
    d[z] = d[x] * y * x ** (y - 1) + d[y] * z * tangent.log(x)


# x % y = x - y * floor(x / y), and floor(x / y) = x // y is piecewise constant.
@adjoint(operator.mod)
@adjoint(numpy.mod)
@adjoint(numpy.remainder)
def mod(z, x, y):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(-d[z] * (x // y), y)


@tangent_(operator.mod)
@tangent_(numpy.mod)
@tangent_(numpy.remainder)
def mod_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] - d[y] * (x // y), z)


@adjoint(operator.matmul)
def matmul(z, x, y):
    d[x] = tangent.matmul_grad_left(d[z], x, y)
    d[y] = tangent.matmul_grad_right(d[z], x, y)


# The operator's tangent is written with the operator, which dispatches on the values'
# types as the user's `x @ w` did.
@tangent_(operator.matmul)
def matmul_operator_tangent(z, x, y):
    d[z] = d[x] @ y + x @ d[y]


@tangent_(numpy.matmul)
@tangent_(numpy.linalg.matmul)
@tangent_(numpy.dot)
@tangent_(numpy.ndarray.dot)
def matmul_tangent(z, x, y):
    d[z] = numpy.matmul(d[x], y) + numpy.matmul(x, d[y])


@adjoint(operator.neg)
def neg(y, x):
    d[x] = -d[y]


@tangent_(operator.neg)
def neg_tangent(y, x):
    d[y] = -d[x]


@adjoint(operator.pos)
def pos(y, x):
    d[x] = d[y]


@tangent_(operator.pos)
def pos_tangent(y, x):
    d[y] = d[x]


@adjoint(builtins.max)
@adjoint(numpy.maximum)
def max(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * (x >= y), x)
    d[y] = tangent.unbroadcast(d[z] * (x < y), y)


@tangent_(builtins.max)
@tangent_(numpy.maximum)
def max_tangent(z, x, y):
    d[z] = d[x] * (x >= y) + d[y] * (x < y)


@adjoint(builtins.min)
@adjoint(numpy.minimum)
def min(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * (x <= y), x)
    d[y] = tangent.unbroadcast(d[z] * (x > y), y)


@tangent_(builtins.min)
@tangent_(numpy.minimum)
def min_tangent(z, x, y):
    d[z] = d[x] * (x <= y) + d[y] * (x > y)
