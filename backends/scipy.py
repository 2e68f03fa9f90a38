# Rules of scipy.special (scipy.linalg's solve and inv share NumPy's in linalg.py).
# Partial derivatives that need other special functions call them as `scipy.special.*`
# (the generated code receives the `scipy` module like `numpy`).


@adjoint(scipy.special.erf)
def erf(y, x):
    d[x] = d[y] * (1.1283791670955126 * numpy.exp(-x * x))


@tangent_(scipy.special.erf)
def erf_tangent(y, x):
    d[y] = d[x] * (1.1283791670955126 * numpy.exp(-x * x))


@adjoint(scipy.special.erfc)
def erfc(y, x):
    d[x] = d[y] * (-1.1283791670955126 * numpy.exp(-x * x))


@tangent_(scipy.special.erfc)
def erfc_tangent(y, x):
    d[y] = d[x] * (-1.1283791670955126 * numpy.exp(-x * x))


@adjoint(scipy.special.gammaln)
def gammaln(y, x):
    d[x] = d[y] * scipy.special.digamma(x)


@tangent_(scipy.special.gammaln)
def gammaln_tangent(y, x):
    d[y] = d[x] * scipy.special.digamma(x)


@adjoint(scipy.special.gamma)
def gamma(y, x):
    d[x] = d[y] * (y * scipy.special.digamma(x))


@tangent_(scipy.special.gamma)
def gamma_tangent(y, x):
    d[y] = d[x] * (y * scipy.special.digamma(x))


@adjoint(scipy.special.digamma)
@adjoint(scipy.special.psi)
def digamma(y, x):
    d[x] = d[y] * tangent.polygamma_like(1, x)


@tangent_(scipy.special.digamma)
@tangent_(scipy.special.psi)
def digamma_tangent(y, x):
    d[y] = d[x] * tangent.polygamma_like(1, x)


# The order n is an integer: no derivative flows to it.
@adjoint(scipy.special.polygamma)
def polygamma(y, n, x):
    # SciPy's polygamma gives float64 for a float32 x: unbroadcast gives x's dtype.
    d[x] = tangent.unbroadcast(d[y] * tangent.polygamma_like(n + 1, x), x)


@tangent_(scipy.special.polygamma)
def polygamma_tangent(y, n, x):
    d[y] = d[x] * tangent.polygamma_like(n + 1, x)


@adjoint(scipy.special.expit)
def expit(y, x):
    d[x] = d[y] * (y * (1.0 - y))


@tangent_(scipy.special.expit)
def expit_tangent(y, x):
    d[y] = d[x] * (y * (1.0 - y))


@adjoint(scipy.special.logit)
def logit(y, x):
    d[x] = d[y] / (x * (1.0 - x))


@tangent_(scipy.special.logit)
def logit_tangent(y, x):
    d[y] = d[x] / (x * (1.0 - x))


# xlogy(x, y) = x * log(y), 0 where x == 0: the y-derivative x / y is 0 there too.
@adjoint(scipy.special.xlogy)
def xlogy(z, x, y):
    d[x] = tangent.unbroadcast(d[z] * numpy.log(y), x)
    d[y] = tangent.unbroadcast(d[z] * tangent.xlogy_dy(x, y), y)


@tangent_(scipy.special.xlogy)
def xlogy_tangent(z, x, y):
    d[z] = tangent.broadcast_like(d[x] * numpy.log(y) + d[y] * tangent.xlogy_dy(x, y), z)


# The softmax along the reduced axes, times the incoming gradient.
@adjoint(scipy.special.logsumexp)
def logsumexp(y, a, axis=None, keepdims=False):
    d[a] = tangent.unreduce(d[y], a, axis, keepdims) * numpy.exp(
        a - tangent.unreduce(y, a, axis, keepdims))


@tangent_(scipy.special.logsumexp)
def logsumexp_tangent(y, a, axis=None, keepdims=False):
    d[y] = numpy.sum(d[a] * numpy.exp(a - tangent.unreduce(y, a, axis, keepdims)),
                     axis=axis, keepdims=keepdims)
