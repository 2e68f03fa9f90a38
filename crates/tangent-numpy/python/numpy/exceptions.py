"""`numpy.exceptions`: the warnings and errors NumPy raises, as classes scripts name in
`except` clauses and warning filters (the same bases as NumPy's)."""


class ComplexWarning(RuntimeWarning):
    """A complex value cast to a real type (its imaginary part dropped)."""


class ModuleDeprecationWarning(DeprecationWarning):
    """A deprecated module."""


class VisibleDeprecationWarning(UserWarning):
    """A deprecation shown by default."""


class RankWarning(RuntimeWarning):
    """`polyfit`'s rank-deficient fit."""


class TooHardError(RuntimeError):
    """A problem too hard to solve within its limits (`shares_memory`'s max_work)."""


class AxisError(ValueError, IndexError):
    """An axis out of range: `AxisError(axis, ndim, msg_prefix)` words NumPy's message;
    `AxisError(message)` keeps the message."""

    axis = None
    ndim = None

    def __init__(self, axis, ndim=None, msg_prefix=None):
        if ndim is None and msg_prefix is None:
            super().__init__(axis)
            return
        self.axis, self.ndim = axis, ndim
        msg = "axis %d is out of bounds for array of dimension %d" % (axis, ndim)
        super().__init__(msg if msg_prefix is None else "%s: %s" % (msg_prefix, msg))


class DTypePromotionError(TypeError):
    """Dtypes without a common dtype."""


for _cls in (ComplexWarning, ModuleDeprecationWarning, VisibleDeprecationWarning,
             RankWarning, TooHardError, AxisError, DTypePromotionError):
    _cls.__module__ = "numpy.exceptions"
del _cls
