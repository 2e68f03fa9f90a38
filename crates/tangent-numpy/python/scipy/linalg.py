"""scipy.linalg, the embedded subset (see `scipy`): solve and inv, on NumPy's
implementation (the same results for the square systems they share)."""
import numpy as _np


def solve(a, b, **options):
    """The solution x of a @ x = b (a square)."""
    if options:
        raise NotImplementedError(
            "scipy.linalg.solve: the embedded SciPy subset takes (a, b) only, not %s; "
            "run the script in CPython for these options" % ", ".join(sorted(options)))
    return _np.linalg.solve(a, b)


def inv(a, overwrite_a=False, check_finite=True):
    """The inverse of a square matrix."""
    return _np.linalg.inv(a)
