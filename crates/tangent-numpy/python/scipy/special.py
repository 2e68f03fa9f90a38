"""scipy.special, the embedded subset (see `scipy`): the same values as SciPy, including
at poles and infinities; arrays and scalars in, NumPy types out."""
import numpy as _np
import _numpy_native as _nn


def _ufunc(name, doc):
    def f(x):
        return _nn._ufunc1(name, x)
    f.__name__ = name
    f.__doc__ = doc
    return f


erf = _ufunc("erf", "The error function.")
erfc = _ufunc("erfc", "1 - erf(x), accurate for large x.")
gammaln = _ufunc("gammaln", "log|Gamma(x)| (+inf at the poles).")
gamma = _ufunc("gamma", "Gamma(x).")
digamma = psi = _ufunc("digamma", "The logarithmic derivative of Gamma.")


def polygamma(n, x):
    """The n-th derivative of digamma (n a non-negative integer)."""
    if isinstance(n, _np.ndarray):
        if n.ndim != 0:
            raise TypeError("polygamma: the embedded SciPy subset takes an integer order n, "
                            "not an array of orders")
        n = n.item()
    if n != int(n) or n < 0:
        raise ValueError("polygamma: the order n must be a non-negative integer")
    return _nn._polygamma(int(n), x)


def expit(x):
    """The logistic sigmoid 1 / (1 + exp(-x))."""
    return _np.divide(1.0, 1.0 + _np.exp(_np.negative(x)))


def logit(p):
    """log(p / (1 - p)), the inverse of expit."""
    return _np.log(_np.divide(p, _np.subtract(1.0, p)))


def xlogy(x, y):
    """x * log(y), and 0 where x == 0 (whatever y is)."""
    zero = _np.equal(x, 0)
    value = _np.where(zero, 0.0, _np.multiply(x, _np.log(_np.where(zero, 1.0, y))))
    if not isinstance(x, _np.ndarray) and not isinstance(y, _np.ndarray):
        return _np.float64(value)
    return value


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    """log(sum(exp(a), axis)), computed without overflow."""
    if b is not None or return_sign:
        raise NotImplementedError(
            "logsumexp: the embedded SciPy subset takes (a, axis=None, keepdims=False); "
            "run the script in CPython for b= or return_sign=")
    a = _np.asarray(a)
    if a.dtype != _np.float32:  # float32 stays float32, as in SciPy
        a = _np.asarray(a, dtype=float)
    m = _np.max(a, axis=axis, keepdims=True)
    m = _np.where(_np.isfinite(m), m, 0.0)
    out = _np.log(_np.sum(_np.exp(a - m), axis=axis, keepdims=True)) + m
    if not keepdims:
        out = _np.squeeze(out, axis=axis) if axis is not None else out.reshape(())
    if out.ndim == 0:
        return _np.float64(out)
    return out
