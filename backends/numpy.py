# Derivative rules for NumPy (embedded array module and, later, real NumPy).
# Same template conventions as python.py. Methods are keyed `numpy.ndarray.<name>`;
# the method's receiver is the template parameter `self`.

nondifferentiable(
    numpy.shape, numpy.ndim, numpy.size, numpy.argmax, numpy.argmin, numpy.sign,
    numpy.zeros, numpy.ones, numpy.zeros_like, numpy.ones_like, numpy.full,
    numpy.arange, numpy.linspace, numpy.eye, numpy.floor, numpy.ceil,
    numpy.isnan, numpy.isfinite, numpy.allclose, numpy.isclose,
    numpy.ndarray.shape, numpy.ndarray.ndim, numpy.ndarray.size, numpy.ndarray.dtype,
    numpy.ndarray.argmax, numpy.ndarray.argmin,
)


@adjoint(numpy.exp)
def exp(y, x):
    d[x] = d[y] * y


@adjoint(numpy.log)
def log(y, x):
    d[x] = d[y] / x


@adjoint(numpy.sin)
def sin(y, x):
    d[x] = d[y] * numpy.cos(x)


@adjoint(numpy.cos)
def cos(y, x):
    d[x] = -d[y] * numpy.sin(x)


@adjoint(numpy.tan)
def tan(y, x):
    d[x] = d[y] * (1.0 + y * y)


@adjoint(numpy.tanh)
def tanh(y, x):
    d[x] = d[y] * (1.0 - y * y)


@adjoint(numpy.sinh)
def sinh(y, x):
    d[x] = d[y] * numpy.cosh(x)


@adjoint(numpy.cosh)
def cosh(y, x):
    d[x] = d[y] * numpy.sinh(x)


@adjoint(numpy.arctan)
def arctan(y, x):
    d[x] = d[y] / (1.0 + x * x)


@adjoint(numpy.sqrt)
def sqrt(y, x):
    d[x] = d[y] / (2.0 * y)


@adjoint(numpy.square)
def square(y, x):
    d[x] = d[y] * 2.0 * x


@adjoint(numpy.negative)
def negative(y, x):
    d[x] = -d[y]


@adjoint(numpy.abs)
@adjoint(numpy.absolute)
def abs(y, x):
    d[x] = d[y] * numpy.sign(x)


@adjoint(numpy.log1p)
def log1p(y, x):
    d[x] = d[y] / (1.0 + x)


@adjoint(numpy.expm1)
def expm1(y, x):
    d[x] = d[y] * (y + 1.0)






@adjoint(numpy.where)
def where(z, c, x, y):
    d[x] = tangent.unbroadcast(numpy.where(c, d[z], 0.0), x)
    d[y] = tangent.unbroadcast(numpy.where(c, 0.0, d[z]), y)












@adjoint(numpy.sum)
@adjoint(numpy.ndarray.sum)
def sum(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims)


@adjoint(numpy.mean)
@adjoint(numpy.ndarray.mean)
def mean(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims) / tangent.reduced_count(x, axis)


@adjoint(numpy.max)
@adjoint(numpy.amax)
@adjoint(numpy.ndarray.max)
def max(y, x, axis=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@adjoint(numpy.min)
@adjoint(numpy.amin)
@adjoint(numpy.ndarray.min)
def min(y, x, axis=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@adjoint(numpy.dot)
@adjoint(numpy.matmul)
@adjoint(numpy.ndarray.dot)
def dot(z, x, y):
    d[x] = tangent.matmul_grad_left(d[z], x, y)
    d[y] = tangent.matmul_grad_right(d[z], x, y)


@adjoint(numpy.reshape)
def reshape(y, x, newshape):
    d[x] = numpy.reshape(d[y], numpy.shape(x))


@adjoint(numpy.ndarray.reshape)
def reshape_method(y, self, *shape):
    d[self] = numpy.reshape(d[y], numpy.shape(self))


@adjoint(numpy.transpose)
@adjoint(numpy.ndarray.transpose)
def transpose(y, x, axes=None):
    if axes is None:
        d[x] = numpy.transpose(d[y])
    else:
        d[x] = numpy.transpose(d[y], numpy.argsort(axes))


@adjoint(numpy.ndarray.T)
def T(y, self):
    d[self] = numpy.transpose(d[y])


@adjoint(numpy.array)
@adjoint(numpy.asarray)
def array(y, x):
    d[x] = tangent.array_grad(d[y], x)
