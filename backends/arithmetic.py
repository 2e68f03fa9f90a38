# Arithmetic rules shared by Python's operators and builtins and NumPy's ufuncs, so the
# definitions cannot drift apart. Template conventions as in python.py.


@adjoint(operator.add)
@adjoint(numpy.add)
def add(z, x, y):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(d[z], y)


@adjoint(operator.sub)
@adjoint(numpy.subtract)
def sub(z, x, y):
    d[x] = tangent.unbroadcast(d[z], x)
    d[y] = tangent.unbroadcast(-d[z], y)


@adjoint(operator.mul)
@adjoint(numpy.multiply)
def mul(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * y, x)
    d[y] = tangent.unbroadcast(d[z] * x, y)


@adjoint(operator.truediv)
@adjoint(numpy.divide)
@adjoint(numpy.true_divide)
def truediv(z, x, y):
    d[x] = tangent.unbroadcast(d[z] / y, x)
    d[y] = tangent.unbroadcast(-d[z] * z / y, y)


@adjoint(operator.pow)
@adjoint(builtins.pow)
@adjoint(numpy.power)
def pow(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * y * x ** (y - 1), x)
    d[y] = tangent.unbroadcast(d[z] * z * tangent.log(x), y)


@adjoint(builtins.max)
@adjoint(numpy.maximum)
def max(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * (x >= y), x)
    d[y] = tangent.unbroadcast(d[z] * (x < y), y)


@adjoint(builtins.min)
@adjoint(numpy.minimum)
def min(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * (x <= y), x)
    d[y] = tangent.unbroadcast(d[z] * (x > y), y)
