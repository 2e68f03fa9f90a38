"""scipy.special helpers.

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
