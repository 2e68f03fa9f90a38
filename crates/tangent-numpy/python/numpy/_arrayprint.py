"""NumPy's print options and array texts, written in Python over the embedded numpy's
formatter (`_numpy_native._array2string`, the one `repr` and `str` use):
`set_printoptions`, `get_printoptions`, `printoptions`, `array2string`, `array_str`,
`array_repr`. The options hold for the thread (NumPy's are per context). Of NumPy's
float modes only 'maxprec' (its default) is here, and only the '-' sign; the others,
`formatter=` and `legacy=` are refused rather than ignored.

Installed before the package's `__init__`, which re-exports `__all__`.
"""
import contextlib
import math
import numbers
import operator

import numpy as np
import _numpy_native as _nn

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "array2string",
           "array_str", "array_repr"]

_NAMES = ("precision", "threshold", "edgeitems", "linewidth", "suppress", "nanstr", "infstr")


def _refuse(what):
    raise NotImplementedError(
        "%s is not in the embedded numpy's printing (it has floatmode='maxprec', "
        "sign='-', no formatter= and no legacy=); run the script in CPython "
        "(tangent run --python ...) for it" % what)


def _checked(precision=None, threshold=None, edgeitems=None, linewidth=None, suppress=None,
             nanstr=None, infstr=None, formatter=None, sign=None, floatmode=None,
             legacy=None, override_repr=None):
    """The options after these changes (None: unchanged), as `_set_printoptions` takes
    them; NumPy's errors for bad values."""
    current = dict(zip(_NAMES, _nn._get_printoptions()))
    if sign is not None and sign not in ("-", "+", " "):
        raise ValueError("sign option must be one of ' ', '+', or '-'")
    if floatmode is not None and floatmode not in ("fixed", "unique", "maxprec",
                                                   "maxprec_equal"):
        raise ValueError("floatmode option must be one of 'fixed', 'unique', 'maxprec', "
                         "or 'maxprec_equal'")
    if sign not in (None, "-"):
        _refuse("sign=%r" % sign)
    if floatmode not in (None, "maxprec"):
        _refuse("floatmode=%r" % floatmode)
    if formatter is not None:
        _refuse("formatter=")
    if legacy not in (None, False):
        _refuse("legacy=%r" % (legacy,))
    if override_repr is not None:
        _refuse("override_repr=")
    if precision is not None:
        try:
            current["precision"] = operator.index(precision)
        except TypeError:
            raise TypeError("precision must be an integer") from None
        if current["precision"] < 0:
            raise ValueError("precision must be non-negative")
    if threshold is not None:
        if not isinstance(threshold, numbers.Number):
            raise TypeError("threshold must be numeric")
        if math.isnan(threshold):
            raise ValueError("threshold must be non-NAN, try sys.maxsize for untruncated "
                             "representation")
        current["threshold"] = max(int(min(threshold, 2 ** 62)), 0)
    if edgeitems is not None:
        current["edgeitems"] = operator.index(edgeitems)
    if linewidth is not None:
        current["linewidth"] = operator.index(linewidth)
    if suppress is not None:
        current["suppress"] = bool(suppress)
    if nanstr is not None:
        current["nanstr"] = str(nanstr)
    if infstr is not None:
        current["infstr"] = str(infstr)
    return current


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     suppress=None, nanstr=None, infstr=None, formatter=None, sign=None,
                     floatmode=None, *, legacy=None, override_repr=None):
    """Sets how arrays print (for this thread): digits after the point (`precision`),
    the size above which they are summarized (`threshold`) with `edgeitems` at each
    end, the line width, `suppress` (small numbers positional, not scientific), and the
    texts of NaN and infinity."""
    new = _checked(precision, threshold, edgeitems, linewidth, suppress, nanstr, infstr,
                   formatter, sign, floatmode, legacy, override_repr)
    _nn._set_printoptions(*(new[k] for k in _NAMES))


def get_printoptions():
    """The print options, under NumPy's names."""
    o = dict(zip(_NAMES, _nn._get_printoptions()))
    return {"edgeitems": o["edgeitems"], "threshold": o["threshold"],
            "floatmode": "maxprec", "precision": o["precision"], "suppress": o["suppress"],
            "linewidth": o["linewidth"], "nanstr": o["nanstr"], "infstr": o["infstr"],
            "sign": "-", "formatter": None, "legacy": False, "override_repr": None}


@contextlib.contextmanager
def printoptions(*args, **kwargs):
    """`set_printoptions(*args, **kwargs)` inside a `with` block, the old options after
    it; the block gets the options in force."""
    old = _nn._get_printoptions()
    try:
        set_printoptions(*args, **kwargs)
        yield get_printoptions()
    finally:
        _nn._set_printoptions(*old)


@contextlib.contextmanager
def _options(**changes):
    old = _nn._get_printoptions()
    try:
        new = _checked(**changes)
        _nn._set_printoptions(*(new[k] for k in _NAMES))
        yield
    finally:
        _nn._set_printoptions(*old)


def array2string(a, max_line_width=None, precision=None, suppress_small=None, separator=" ",
                 prefix="", style=None, formatter=None, threshold=None, edgeitems=None,
                 sign=None, floatmode=None, suffix="", *, legacy=None):
    """The text of an array's elements (`str` without the type's own text), with the
    print options given here in place of the thread's."""
    a = np.asarray(a)
    with _options(precision=precision, threshold=threshold, edgeitems=edgeitems,
                  linewidth=max_line_width, suppress=suppress_small, formatter=formatter,
                  sign=sign, floatmode=floatmode, legacy=legacy):
        if a.size == 0:
            return "[]"
        return _nn._array2string(a, separator, prefix, suffix)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """`str(a)` with these print options."""
    with _options(precision=precision, linewidth=max_line_width, suppress=suppress_small):
        return str(a)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """`repr(arr)` with these print options."""
    with _options(precision=precision, linewidth=max_line_width, suppress=suppress_small):
        return repr(arr)
