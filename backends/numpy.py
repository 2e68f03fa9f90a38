# Derivative rules for NumPy (embedded array module and, later, real NumPy). Template
# conventions as in python.py. Methods are keyed `numpy.ndarray.<name>`; the method's
# receiver is the template parameter `self`. One-argument elementwise functions come from
# elementwise.py, arithmetic ufuncs from arithmetic.py.

nondifferentiable(
    numpy.shape, numpy.ndim, numpy.size, numpy.argmax, numpy.argmin, numpy.sign,
    numpy.zeros, numpy.ones, numpy.zeros_like, numpy.ones_like, numpy.full,
    numpy.arange, numpy.linspace, numpy.eye, numpy.floor, numpy.ceil,
    numpy.isnan, numpy.isfinite, numpy.allclose, numpy.isclose,
    numpy.ndarray.shape, numpy.ndarray.ndim, numpy.ndarray.size, numpy.ndarray.dtype,
    numpy.ndarray.argmax, numpy.ndarray.argmin,
)


@adjoint(numpy.where)
def where(z, c, x, y):
    d[x] = tangent.unbroadcast(numpy.where(c, d[z], 0.0), x)
    d[y] = tangent.unbroadcast(numpy.where(c, 0.0, d[z]), y)


@tangent_(numpy.where)
def where_tangent(z, c, x, y):
    d[z] = numpy.where(c, d[x], d[y])


@adjoint(numpy.sum)
@adjoint(numpy.ndarray.sum)
def sum(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims)


@tangent_(numpy.sum)
@tangent_(numpy.ndarray.sum)
def sum_tangent(y, x, axis=None, keepdims=False):
    d[y] = numpy.sum(d[x], axis=axis, keepdims=keepdims)


@adjoint(numpy.mean)
@adjoint(numpy.ndarray.mean)
def mean(y, x, axis=None, keepdims=False):
    d[x] = tangent.unreduce(d[y], x, axis, keepdims) / tangent.reduced_count(x, axis)


@tangent_(numpy.mean)
@tangent_(numpy.ndarray.mean)
def mean_tangent(y, x, axis=None, keepdims=False):
    d[y] = numpy.mean(d[x], axis=axis, keepdims=keepdims)


@adjoint(numpy.max)
@adjoint(numpy.amax)
@adjoint(numpy.ndarray.max)
@adjoint(numpy.min)
@adjoint(numpy.amin)
@adjoint(numpy.ndarray.min)
def max(y, x, axis=None, keepdims=False):
    d[x] = tangent.extremum_grad(d[y], y, x, axis, keepdims)


@tangent_(numpy.max)
@tangent_(numpy.amax)
@tangent_(numpy.ndarray.max)
@tangent_(numpy.min)
@tangent_(numpy.amin)
@tangent_(numpy.ndarray.min)
def max_tangent(y, x, axis=None, keepdims=False):
    d[y] = tangent.extremum_tangent(d[x], y, x, axis, keepdims)


@adjoint(numpy.dot)
@adjoint(numpy.matmul)
@adjoint(numpy.ndarray.dot)
def dot(z, x, y):
    d[x] = tangent.matmul_grad_left(d[z], x, y)
    d[y] = tangent.matmul_grad_right(d[z], x, y)


@adjoint(numpy.reshape)
def reshape(y, x, newshape):
    d[x] = numpy.reshape(d[y], numpy.shape(x))


@tangent_(numpy.reshape)
def reshape_tangent(y, x, newshape):
    d[y] = numpy.reshape(d[x], numpy.shape(y))


@adjoint(numpy.ndarray.reshape)
def reshape_method(y, self, *shape):
    d[self] = numpy.reshape(d[y], numpy.shape(self))


@tangent_(numpy.ndarray.reshape)
def reshape_method_tangent(y, self, *shape):
    d[y] = numpy.reshape(d[self], numpy.shape(y))


@adjoint(numpy.transpose)
@adjoint(numpy.ndarray.transpose)
def transpose(y, x, axes=None):
    if axes is None:
        d[x] = numpy.transpose(d[y])
    else:
        d[x] = numpy.transpose(d[y], tangent.inverse_permutation(axes))


@tangent_(numpy.transpose)
@tangent_(numpy.ndarray.transpose)
def transpose_tangent(y, x, axes=None):
    d[y] = numpy.transpose(d[x], axes)


@adjoint(numpy.ndarray.T)
def T(y, self):
    d[self] = numpy.transpose(d[y])


@tangent_(numpy.ndarray.T)
def T_tangent(y, self):
    d[y] = numpy.transpose(d[self])


@adjoint(numpy.array)
@adjoint(numpy.asarray)
def array(y, x):
    d[x] = tangent.array_grad(d[y], x)


@tangent_(numpy.array)
@tangent_(numpy.asarray)
def array_tangent(y, x):
    d[y] = numpy.array(d[x])
