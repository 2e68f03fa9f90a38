"""scipy.special helpers, and the derivatives of NumPy's special functions (sinc, i0).

Conventions in tangent._grads_common."""
from tangent._grads_common import _is_array, _like_dtype, numpy  # noqa: F401

# ------------------------------------------------------------------ scipy.special

def xlogy_dy(x, y):
    """d xlogy(x, y) / dy = x / y, and 0 where x == 0 (as xlogy itself is 0 there)."""
    zero = numpy.equal(x, 0)
    r = numpy.where(zero, 0.0, numpy.divide(x, numpy.where(zero, 1.0, y)))
    return r if _is_array(x) or _is_array(y) else float(r)



def polygamma_like(n, x):
    """scipy.special.polygamma(n, x) in x's float dtype: SciPy computes it with float64
    constants (float64 for a float32 x); float32 in, float32 derivative out."""
    import scipy.special
    return _like_dtype(scipy.special.polygamma(n, x), x)


# ------------------------------------------------------------------ numpy.sinc, numpy.i0
# Their derivatives of every order (each helper's own rule is the next order), accurate
# at and near 0, where the closed forms divide by x.

def _math():
    import math
    return math


def sinc_derivative(x, k):
    """The k-th derivative of numpy.sinc (sin(pi x) / (pi x)) at x: its Taylor series
    where |x| < 0.5, else the recurrence x f(k) = pi**(k-1) sin(pi x + k pi / 2) - k f(k-1)
    from f(0) = sinc(x)."""
    math = _math()
    xa = numpy.asarray(x) * 1.0
    # The series: f(k)(x) = sum over 2n >= k of (-1)**n pi**(2n) x**(2n-k) / ((2n+1) (2n-k)!).
    small = numpy.zeros(numpy.shape(xa))
    for n in range((k + 1) // 2, (k + 1) // 2 + 24):
        p = 2 * n - k
        small = small + ((-1.0) ** n * math.pi ** (2 * n) / ((2 * n + 1) * math.factorial(p))
                         * xa ** p)
    # The recurrence, away from 0.
    safe = numpy.where(numpy.abs(xa) < 0.5, 1.0, xa)
    f = numpy.sinc(safe)
    for j in range(1, k + 1):
        f = (math.pi ** (j - 1) * numpy.sin(math.pi * safe + j * math.pi / 2) - j * f) / safe
    r = numpy.where(numpy.abs(xa) < 0.5, small, f)
    return _like_dtype(r, x) if _is_array(x) else float(r)


def _bessel_i(n, x):
    """The modified Bessel function I_n(x) (n >= 0) by its power series
    sum over m of (x/2)**(2m+n) / (m! (m+n)!), whose terms all have one sign."""
    math = _math()
    xa = numpy.asarray(x) * 1.0
    half = xa / 2.0
    term = half ** n / math.factorial(n)
    total = term
    # Enough terms for the largest |x| (the terms peak near m = |x| / 2).
    m_max = int(numpy.max(numpy.abs(xa))) + 40 if xa.size else 0
    for m in range(1, m_max):
        term = term * half * half / (m * (m + n))
        total = total + term
    return total


def i0_derivative(x, k):
    """The k-th derivative of numpy.i0 at x: 2**-k sum over j of C(k, j) I_|k-2j|(x)
    (I0(x) is the mean of exp(x cos t) over [0, pi], and cos(t)**k a sum of cos(m t))."""
    math = _math()
    r = 0.0
    for j in range(k + 1):
        r = r + math.comb(k, j) * _bessel_i(abs(k - 2 * j), x)
    r = r / 2.0 ** k
    return _like_dtype(r, x) if _is_array(x) else float(r)
