"""NumPy's print options and array texts, written in Python over the embedded numpy's
formatter (`_numpy_native._array2string`, the one `repr` and `str` use):
`set_printoptions`, `get_printoptions`, `printoptions`, `array2string`, `array_str`,
`array_repr`. The options hold for the thread (NumPy's are per context). Of NumPy's
float modes only 'maxprec' (its default) is here, and only the '-' sign; the others,
`formatter=` and `legacy=` are refused rather than ignored.

Installed before the package's `__init__`, which re-exports `__all__`.
"""
import contextlib
import decimal
import math
import numbers
import operator

import numpy as np
import _numpy_native as _nn

__all__ = ["set_printoptions", "get_printoptions", "printoptions", "array2string",
           "array_str", "array_repr", "format_float_positional", "format_float_scientific"]

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
        if isinstance(a, np._cx.complexarray):
            return a._text("array2string", separator, prefix, suffix)
        return _nn._array2string(a, separator, prefix, suffix)


def array_str(a, max_line_width=None, precision=None, suppress_small=None):
    """`str(a)` with these print options."""
    with _options(precision=precision, linewidth=max_line_width, suppress=suppress_small):
        return str(a)


def array_repr(arr, max_line_width=None, precision=None, suppress_small=None):
    """`repr(arr)` with these print options."""
    with _options(precision=precision, linewidth=max_line_width, suppress=suppress_small):
        return repr(arr)


# --- one float's text --------------------------------------------------------------------


def _float_parts(x):
    """(the float as a Python float, whether it is a float32): NumPy formats each float
    by its own type's shortest digits."""
    if isinstance(x, (str, bytes)):
        raise TypeError("must be real number, not %s" % type(x).__name__)
    if isinstance(x, np.ndarray):
        x = x.item() if x.dtype.name != "float32" else np.float32(x.item())
    return float(x), isinstance(x, np.float32)


def _count(precision, name):
    if precision is None:
        return None
    precision = operator.index(precision)
    if precision < 0:
        raise ValueError("%s must be >= 0" % name)
    return precision


def _quantized(exact, exponent):
    """`exact` rounded half to even to a multiple of 10**exponent (trailing zeros kept)."""
    with decimal.localcontext() as ctx:
        ctx.prec = 2000
        return exact.quantize(decimal.Decimal(1).scaleb(exponent),
                              rounding=decimal.ROUND_HALF_EVEN)


def _magnitude(d):
    """The exponent of `d`'s first significant digit (0 for zero)."""
    return d.adjusted() if d else 0


# How each notation counts a value's digits (`count`) and where it rounds to keep `p` of
# them (`quantum`: the exponent of the last digit kept).
_FRACTIONAL = (lambda d: max(-d.as_tuple().exponent, 0),
               lambda exact, p: -p)
_SIGNIFICANT = (lambda d: len(d.as_tuple().digits),
                lambda exact, p: _magnitude(exact) - p + 1)
_MANTISSA = (lambda d: len(d.as_tuple().digits) - 1,
             lambda exact, p: _magnitude(exact) - p)


def _shortest(exact, x, single):
    """The fewest significant digits that read back as `x` (as a float32 when `single`),
    the closest such digits, ties to the even digit (Dragon4's choice; a float's repr
    here may pick the other one of a tie)."""
    if not exact:
        return decimal.Decimal(0)
    for n in range(1, 18):
        d = _quantized(exact, _magnitude(exact) - n + 1)
        if _magnitude(d) != _magnitude(exact):
            d = _quantized(exact, _magnitude(d) - n + 1)
        back = float(d)
        if (np.float32(back) == np.float32(x)) if single else back == x:
            return d.normalize()
    return exact.normalize()


def _rounded_up(exact, d):
    """Whether `d`, `exact` rounded, is past `exact` (its last digit was carried up)."""
    return d > exact


def _digits(x, single, unique, precision, min_digits, mode):
    """The decimal value NumPy prints for |x|: the shortest digits that read back as `x`
    in its own type when `unique`, rounded (half to even, from the exact value) where
    they pass `precision` (a value rounded to zero keeps its zeros); or the exact value
    rounded at `precision` when not `unique`; at least `min_digits` digits, rounded from
    the exact value (trailing zeros kept)."""
    count, quantum = mode
    exact = decimal.Decimal(x)

    def rounded(p):
        d = _quantized(exact, quantum(exact, p))
        if d and _magnitude(d) != _magnitude(exact):
            # Rounding carried into a new leading digit: round again from it.
            d = _quantized(exact, quantum(d, p))
        return d

    if not unique:
        d = rounded(precision)
        if mode is _SIGNIFICANT and d and _rounded_up(exact, d):
            # Counting significant digits, NumPy drops the zeros a carry leaves (0.3 to
            # two digits is '0.3': 0.2999... rounds up); the exact value's zeros stay.
            d = d.normalize()
        return d
    d = _shortest(exact, x, single)
    if precision is not None and count(d) > precision:
        d = rounded(precision)
        d = d.normalize() if d else d
    if min_digits is not None and count(d) < min_digits:
        d = rounded(min_digits)
    return d


def _trimmed(text, trim):
    """`text` (with a point) with NumPy's `trim`: 'k' keeps it, '.' drops trailing zeros,
    '0' keeps one zero after the point, '-' drops the point too."""
    if trim == "k":
        return text
    head, _, frac = text.partition(".")
    frac = frac.rstrip("0")
    if trim == "0" and not frac:
        frac = "0"
    if trim == "-" and not frac:
        return head
    return head + "." + frac


def _checked_float(x, precision, unique, trim, min_digits):
    """The float (and whether a float32), `precision` and `min_digits`, with NumPy's
    errors for the options of `format_float_*`."""
    if trim not in ("k", ".", "0", "-"):
        raise TypeError("if supplied, trim must be 'k', '.', '0' or '-' found `%s`" % trim)
    # NumPy checks the counts before it reads the value.
    precision = _count(precision, "precision")
    min_digits = _count(min_digits, "min_digits")
    if min_digits is not None and precision is not None and min_digits > precision:
        raise ValueError("min_digits must be less than or equal to precision")
    value, single = _float_parts(x)
    if not unique and precision is None:
        raise TypeError("in non-unique mode `precision` must be supplied")
    return value, single, precision, min_digits


def _nonfinite(x, sign):
    if math.isnan(x):
        return "nan"
    return "-inf" if x < 0 else ("+inf" if sign else "inf")


def format_float_positional(x, precision=None, unique=True, fractional=True, trim="k",
                            sign=False, pad_left=None, pad_right=None, min_digits=None):
    """A float's text in positional notation, as NumPy's Dragon4 gives it: the shortest
    digits that identify it (`unique`), at most `precision` digits after the point (or
    significant digits with `fractional=False`), `trim` of trailing zeros, `sign`, and
    padding of the integer and fraction parts."""
    value, single, precision, min_digits = _checked_float(x, precision, unique, trim,
                                                          min_digits)
    if not math.isfinite(value):
        return _nonfinite(value, sign)
    d = _digits(abs(value), single, unique, precision, min_digits,
                _FRACTIONAL if fractional else _SIGNIFICANT)
    text = format(d, "f")
    if "." not in text:
        text += "."
    text = _trimmed(text, trim)
    head, point, frac = text.partition(".")
    negative = math.copysign(1.0, value) < 0
    head = ("-" if negative else "+" if sign else "") + head
    if pad_left is not None:
        head = head.rjust(pad_left)
    if pad_right is not None:
        frac = frac.ljust(pad_right)
    return head + point + frac


def format_float_scientific(x, precision=None, unique=True, trim="k", sign=False,
                            pad_left=None, exp_digits=None, min_digits=None):
    """A float's text in scientific notation, as NumPy's Dragon4 gives it: `precision`
    digits after the point of the mantissa at most (the shortest that identify it with
    `unique`), `trim`, `sign`, padding before the point and at least `exp_digits`
    digits of exponent (2 by default)."""
    value, single, precision, min_digits = _checked_float(x, precision, unique, trim,
                                                          min_digits)
    exp_digits = _count(exp_digits, "exp_digits")
    if not math.isfinite(value):
        return _nonfinite(value, sign)

    d = _digits(abs(value), single, unique, precision, min_digits, _MANTISSA)
    t = d.as_tuple()
    if d:
        digits, exponent = "".join(map(str, t.digits)), d.adjusted()
    else:
        digits, exponent = "0" * (1 + max(-t.exponent, 0)), 0
    # With min_digits, NumPy's '-' keeps the mantissa's point when digits were printed
    # after it (zeros of the exact value, which it then trims), not when the rounding
    # carried them away (0.3, 2.999... rounded up) or the value is zero.
    keep_point = (trim == "-" and min_digits is not None and d
                  and not _rounded_up(decimal.Decimal(abs(value)), d))
    text = _trimmed(digits[0] + "." + digits[1:], "." if keep_point else trim)
    head, point, frac = text.partition(".")
    negative = math.copysign(1.0, value) < 0
    head = ("-" if negative else "+" if sign else "") + head
    if pad_left is not None:
        head = head.rjust(pad_left)
    e = str(abs(exponent)).rjust(2 if exp_digits is None else max(exp_digits, 1), "0")
    return head + point + frac + "e" + ("-" if exponent < 0 else "+") + e
