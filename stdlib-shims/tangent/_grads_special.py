"""scipy.special helpers.

Conventions in tangent._grads_common."""
from tangent._grads_common import _is_array, numpy  # noqa: F401

# ------------------------------------------------------------------ scipy.special

def xlogy_dy(x, y):
    """d xlogy(x, y) / dy = x / y, and 0 where x == 0 (as xlogy itself is 0 there)."""
    zero = numpy.equal(x, 0)
    r = numpy.where(zero, 0.0, numpy.divide(x, numpy.where(zero, 1.0, y)))
    return r if _is_array(x) or _is_array(y) else float(r)

