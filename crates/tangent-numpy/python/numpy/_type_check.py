"""NumPy's dtype questions and error-state settings, written in Python over the embedded
numpy: `can_cast`, `common_type`, `mintypecode`, `typename`; `seterr`/
`geterr`/`seterrcall`/`geterrcall` and `getbufsize`/`setbufsize`, which say what the
embedded numpy does (it never signals floating-point errors: every error is 'ignore';
its reductions buffer 8,192 elements) and refuse settings it would not honour.

Installed before the package's `__init__`, which re-exports `__all__`.
"""
import numpy as np

__all__ = [
    "can_cast", "common_type", "mintypecode", "typename", "seterr",
    "geterr", "seterrcall", "geterrcall", "getbufsize", "setbufsize", "isdtype",
    "bitwise_count",
]

# The kinds of the embedded numpy's dtypes, in NumPy's order of safe casting.
_KIND = {"bool": 0, "int64": 1, "float32": 2, "float64": 2}
# Safe casts between different dtypes (bool casts safely to every other).
_SAFE = {("int64", "float64"), ("float32", "float64")}


def _dtype_name(x):
    if isinstance(x, (bool, int, float, complex)):
        raise TypeError("can_cast() does not support Python ints, floats, and complex "
                        "because the result used to depend on the value.\nThis change was "
                        "part of adopting NEP 50, we may explicitly allow them again in the "
                        "future.")
    if isinstance(x, np.ndarray):
        return x.dtype.name
    return np.dtype(x).name


def can_cast(from_, to, casting="safe"):
    """Whether values of dtype `from_` may be cast to `to` under `casting` ('no', 'equiv',
    'safe', 'same_kind', 'unsafe')."""
    if casting not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', or "
                         "'unsafe'")
    if isinstance(to, np.ndarray):
        raise TypeError("can_cast: `to` must be a dtype, not an array")
    a, b = _dtype_name(from_), _dtype_name(to)
    if a == b or casting == "unsafe":
        return True
    if casting in ("no", "equiv"):
        return False
    if a == "bool" or (a, b) in _SAFE:
        return True
    return casting == "same_kind" and _KIND[a] <= _KIND[b]


def common_type(*arrays):
    """The float type an operation on all of `arrays` computes in: float64 for integer
    arrays, else the widest float among them."""
    wide = False
    for a in arrays:
        name = np.asarray(a).dtype.name
        if name == "bool":
            raise TypeError("can't get common type for non-numeric array")
        wide = wide or name != "float32"
    if not arrays:
        raise NotImplementedError("numpy.common_type(): NumPy's answer is float16, which "
                                  "the embedded numpy does not have")
    return np.float64 if wide else np.float32


# Type characters from the largest element to the smallest (NumPy's order).
_BY_SIZE = "GDFgdfQqLlIiHhBb?"


def mintypecode(typechars, typeset="GDFgdf", default="d"):
    """The character of the smallest safe type among `typechars` in `typeset`."""
    codes = {t if isinstance(t, str) else np.asarray(t).dtype.char for t in typechars}
    found = codes & set(typeset)
    if not found:
        return default
    if "F" in found and "d" in found:
        return "D"
    return min(found, key=_BY_SIZE.index)


_NAMES = {
    "S1": "character", "?": "bool", "b": "signed char", "B": "unsigned char",
    "h": "short", "H": "unsigned short", "i": "integer", "I": "unsigned integer",
    "l": "long integer", "L": "unsigned long integer", "q": "long long integer",
    "Q": "unsigned long long integer", "f": "single precision", "d": "double precision",
    "g": "long precision", "F": "complex single precision",
    "D": "complex double precision", "G": "complex long double precision",
    "S": "string", "U": "unicode", "V": "void", "O": "object",
}


def typename(char):
    """The description of a type character (`typename('d')` is 'double precision')."""
    return _NAMES[char]


_ERRORS = ("divide", "over", "under", "invalid")


def _refuse(what, value):
    raise NotImplementedError(
        "%s: the embedded NumPy does not signal floating-point errors (every error is "
        "'ignore', and its results are the IEEE values NumPy gives then); run the script "
        "in CPython (tangent run --python ...) for %r" % (what, value))


def geterr():
    """The floating-point error settings: 'ignore' for every error here."""
    return {name: "ignore" for name in _ERRORS}


def seterr(all=None, divide=None, over=None, under=None, invalid=None):
    """Sets the floating-point error handling: 'ignore' (what the embedded numpy does) is
    accepted, other settings are refused. Returns the old settings."""
    for name, value in (("all", all), ("divide", divide), ("over", over),
                        ("under", under), ("invalid", invalid)):
        if value not in (None, "ignore"):
            _refuse("numpy.seterr(%s=%r)" % (name, value), value)
    return geterr()


def geterrcall():
    """The floating-point error callback: none here."""
    return None


def seterrcall(func):
    """Sets the floating-point error callback: only None (no errors are signalled)."""
    if func is not None:
        if not callable(func) and not callable(getattr(func, "write", None)):
            raise ValueError("Only callable can be used as callback")
        _refuse("numpy.seterrcall(...)", func)
    return None


_BUFSIZE = 8192


def getbufsize():
    """The size of the buffer NumPy's reductions copy into (elements)."""
    return _BUFSIZE


def setbufsize(size):
    """Sets the reduction buffer's size: the embedded numpy's sums follow NumPy's order
    for 8,192 elements only, so other sizes are refused. Returns the old size."""
    size = int(size)
    if size != _BUFSIZE:
        raise NotImplementedError(
            "numpy.setbufsize(%d): the embedded numpy sums in the order of NumPy's default "
            "buffer of %d elements" % (size, _BUFSIZE))
    return _BUFSIZE


# `isdtype`'s kind names: the embedded numpy's dtypes of each.
_KINDS = {"bool": {"bool"}, "signed integer": {"int64"}, "unsigned integer": set(),
          "integral": {"int64"}, "real floating": {"float32", "float64"},
          "complex floating": set(), "numeric": {"int64", "float32", "float64"}}


def _isdtype_name(x, what):
    if isinstance(x, np.dtype):
        return x.name
    if any(x is t for t in (np.float64, np.float32, np.int64, np.bool_)):
        return np.dtype(x).name
    if what == "dtype":
        raise TypeError("dtype argument must be a NumPy dtype, but it is a %s." % type(x))
    raise TypeError("kind argument must be comprised of NumPy dtypes or strings only, but "
                    "is a %s." % type(x))


def isdtype(dtype, kind):
    """Whether `dtype` is of `kind`: a dtype, a kind name ('bool', 'signed integer',
    'unsigned integer', 'integral', 'real floating', 'complex floating', 'numeric'), or
    a tuple of them."""
    name = _isdtype_name(dtype, "dtype")
    for k in kind if isinstance(kind, tuple) else (kind,):
        if isinstance(k, str):
            if k not in _KINDS:
                raise ValueError("kind argument is a string, but %r is not a known kind "
                                 "name." % k)
            if name in _KINDS[k]:
                return True
        elif _isdtype_name(k, "kind") == name:
            return True
    return False


def bitwise_count(x, out=None):
    """The number of 1 bits in the absolute value of each integer (NumPy gives uint8;
    the embedded numpy, which has no uint8, int64)."""
    if out is not None:
        raise NotImplementedError("numpy.bitwise_count(out=...) is not in the embedded numpy")
    a = np.asarray(x)
    if a.dtype.name not in ("int64", "bool"):
        raise TypeError("ufunc 'bitwise_count' not supported for the input types, and the "
                        "inputs could not be safely coerced to any supported types "
                        "according to the casting rule ''safe''")
    counts = [bin(abs(int(v))).count("1") for v in a.ravel().tolist()]
    result = np.array(counts, dtype=np.int64).reshape(a.shape)
    if a.ndim == 0 and not isinstance(x, np.ndarray):
        return int(result)
    return result
