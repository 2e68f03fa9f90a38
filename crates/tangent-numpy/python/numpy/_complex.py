"""Complex numbers in the embedded numpy: complex128 and complex64 arrays and scalars.

The native arrays are real. A complex array here is a `complexarray`: two real arrays
of one shape, its real and imaginary parts (float64 for complex128, float32 for
complex64), on which everything is computed (products by their formula, absolute
values by `hypot`, ...). Indexing, `.real` and `.imag` give views of the parts, as
NumPy's do. The scalars are `complex128`/`complex64`, subclasses of Python's complex as
NumPy's are.

The native functions refuse complex input (a NotImplementedError with the text of
`_nn._complex_unsupported()`); those that have a complex version here are wrapped by
the package (`numpy/__init__.py`, `_nn._complex_aware`) so that the refusal calls the
version in `IMPLEMENTATIONS` with the same arguments. A function without one keeps the
refusal, which names CPython as the way to run the script. Differences from NumPy:
`isinstance(z, np.ndarray)` is False for a complex array, and only the operations
written here take one.
"""
import builtins as _builtins
import math as _math

import _numpy_native as _nn
import numpy as np

_REFUSAL = _nn._complex_unsupported()


def _refuse():
    raise NotImplementedError(_REFUSAL)


def refuse_complex(*args):
    """Refuses complex arguments (NumPy's function conjugates or orders them, which
    its Python version here does not do): for the package's Python functions that
    would otherwise compute a real formula on complex arrays."""
    for a in args:
        if isinstance(a, (complexarray, complex)) or (
                isinstance(a, (list, tuple)) and _builtins.any(_is_complex(x) for x in a)):
            _refuse()


class _ComplexScalar(complex):
    """NumPy's complex scalars (Python complex numbers): `_name` and `_part` (the type
    of the real and imaginary parts) per precision."""

    _name, _single = "complex128", False

    @staticmethod
    def _part(x):
        return np.float64(x)

    @property
    def dtype(self):
        return _DTYPES[self._name]

    @property
    def real(self):
        return self._part(complex(self).real)

    @property
    def imag(self):
        return self._part(complex(self).imag)

    def __repr__(self):
        return "np.%s(%s)" % (self._name, _text(self, self._single))

    def __str__(self):
        return _scalar_str(self, self._single)

    def item(self):
        return complex(self)

    def conjugate(self):
        return type(self)(complex(self).conjugate())

    conj = conjugate


class complex128(_ComplexScalar):
    """NumPy's double-precision complex scalar (a Python complex)."""


class complex64(_ComplexScalar):
    """NumPy's single-precision complex scalar (parts rounded to float32)."""

    _name, _single = "complex64", True

    @staticmethod
    def _part(x):
        return np.float32(x)

    def __new__(cls, value=0j):
        value = complex(value)
        return complex.__new__(cls, float(np.float32(value.real)), float(np.float32(value.imag)))


def _part_text(x, single):
    """A part of a complex scalar as Python writes it (`1`, `1.5`, `inf`), with float32
    parts by their own shortest digits."""
    if x != x or x in (float("inf"), float("-inf")):
        return repr(x)
    s = str(np.float32(x)) if single else repr(x)
    return s[:-2] if s.endswith(".0") else s


def _text(z, single):
    """Python's text of a complex number without parentheses: `1+2j`, `2j`, `-0-1j`."""
    z = complex(z)
    im = _part_text(z.imag, single) + "j"
    if z.real == 0 and _math.copysign(1.0, z.real) > 0:
        return im
    sign = "" if im.startswith("-") else "+"
    return _part_text(z.real, single) + sign + im


def _scalar_str(z, single):
    """`str` of a complex scalar: Python's, in parentheses unless the real part is +0."""
    real = complex(z).real
    text = _text(z, single)
    return text if real == 0 and _math.copysign(1.0, real) > 0 else "(%s)" % text


class ComplexDType:
    """`dtype('complex128')` and `dtype('complex64')`."""

    def __init__(self, name, char, itemsize, scalar):
        self.name, self.char, self.itemsize, self.type = name, char, itemsize, scalar
        self.kind = "c"
        self.str = "<c%d" % itemsize

    def __repr__(self):
        return "dtype(%r)" % self.name

    def __str__(self):
        return self.name

    def __eq__(self, other):
        if isinstance(other, ComplexDType):
            return other.name == self.name
        return _complex_kind(other) == self.name

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash(self.name)


_DTYPES = {"complex128": ComplexDType("complex128", "D", 16, complex128),
           "complex64": ComplexDType("complex64", "F", 8, complex64)}
_NAMES = {"complex": "complex128", "complex128": "complex128", "complex_": "complex128",
          "cdouble": "complex128", "c16": "complex128", "D": "complex128",
          "complex64": "complex64", "csingle": "complex64", "c8": "complex64",
          "F": "complex64"}


def _complex_kind(dtype):
    """'complex128' or 'complex64' if `dtype` names a complex type, else None."""
    if dtype is complex or dtype is complex128:
        return "complex128"
    if dtype is complex64:
        return "complex64"
    if isinstance(dtype, ComplexDType):
        return dtype.name
    if isinstance(dtype, str):
        return _NAMES.get(dtype)
    return None


def _part_dtype(kind):
    return np.float32 if kind == "complex64" else np.float64


def _is_complex(x):
    return isinstance(x, (complexarray, complex))


class complexarray:
    """A complex array: real and imaginary parts in two real arrays of one shape."""

    __slots__ = ("_re", "_im")
    __array_priority__ = 100.0

    def __init__(self, re, im):
        self._re, self._im = re, im

    # --- what it is ---------------------------------------------------------------
    @property
    def dtype(self):
        return _DTYPES["complex64" if self._re.dtype == np.float32 else "complex128"]

    @property
    def shape(self):
        return self._re.shape

    @property
    def ndim(self):
        return self._re.ndim

    @property
    def size(self):
        return self._re.size

    @property
    def itemsize(self):
        return 2 * self._re.itemsize

    @property
    def nbytes(self):
        return self.size * self.itemsize

    @property
    def real(self):
        return self._re

    @real.setter
    def real(self, value):
        self._re[...] = value

    @property
    def imag(self):
        return self._im

    @imag.setter
    def imag(self, value):
        self._im[...] = value

    @property
    def T(self):
        return complexarray(self._re.T, self._im.T)

    def __len__(self):
        return len(self._re)

    def __iter__(self):
        for i in _builtins.range(len(self)):
            yield self[i]

    def __array__(self, *args, **kwargs):
        _refuse()

    def __float__(self):
        _refuse()

    def __int__(self):
        _refuse()

    def __complex__(self):
        if self.ndim != 0:
            raise TypeError("only 0-dimensional arrays can be converted to Python scalars")
        return complex(float(self._re.reshape(-1)[0]), float(self._im.reshape(-1)[0]))

    def __bool__(self):
        if self.size != 1:
            raise ValueError("The truth value of an array with more than one element is "
                             "ambiguous. Use a.any() or a.all()")
        return bool(self._re.reshape(-1)[0]) or bool(self._im.reshape(-1)[0])

    def __getattr__(self, name):
        raise AttributeError(
            "'%s' of the embedded numpy's complex arrays is not there (they have "
            "arithmetic, indexing, the shape methods, sum/mean/cumsum/prod/var/std/max/min, "
            "sort, conj, real/imag and numpy.fft); run the script under CPython with real "
            "NumPy for it: `tangent run --python PYTHON script.py`" % (name,))

    # --- text ---------------------------------------------------------------------
    def _text(self, kind, separator=" ", prefix="", suffix=""):
        return _nn._complex_text(self._re, self._im, self._re.dtype == np.float32, kind,
                                 separator, prefix, suffix)

    def __repr__(self):
        return self._text("repr")

    def __str__(self):
        if self.ndim == 0:
            return str(self.item())
        return self._text("str")

    # --- elements -----------------------------------------------------------------
    def __getitem__(self, key):
        return _combine(self._re[key], self._im[key])

    def __setitem__(self, key, value):
        re, im = _parts(value)
        self._re[key] = re
        self._im[key] = im

    def item(self, *args):
        if not args and self.size != 1:
            raise ValueError("can only convert an array of size 1 to a Python scalar")
        return complex(self._re.item(*args), self._im.item(*args))

    def tolist(self):
        return _zip_lists(self._re.tolist(), self._im.tolist())

    def copy(self, order="C"):
        return complexarray(self._re.copy(), self._im.copy())

    def astype(self, dtype, copy=True):
        kind = _complex_kind(dtype)
        if kind is not None:
            t = _part_dtype(kind)
            return complexarray(self._re.astype(t), self._im.astype(t))
        # NumPy casts away the imaginary part (with a ComplexWarning).
        return self._re.astype(dtype)

    def fill(self, value):
        self[...] = value

    # --- shape --------------------------------------------------------------------
    def reshape(self, *shape, **kwargs):
        return complexarray(self._re.reshape(*shape, **kwargs),
                            self._im.reshape(*shape, **kwargs))

    def ravel(self, order="C"):
        return complexarray(np.ravel(self._re, order), np.ravel(self._im, order))

    def flatten(self, order="C"):
        return complexarray(self._re.flatten(order=order), self._im.flatten(order=order))

    def transpose(self, *axes):
        return complexarray(self._re.transpose(*axes), self._im.transpose(*axes))

    def swapaxes(self, a, b):
        return complexarray(self._re.swapaxes(a, b), self._im.swapaxes(a, b))

    def squeeze(self, axis=None):
        return complexarray(self._re.squeeze(axis), self._im.squeeze(axis))

    # --- reductions (linear: part by part) ----------------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):
        return _into(out, _combine(self._re.sum(axis=axis, keepdims=keepdims),
                                   self._im.sum(axis=axis, keepdims=keepdims)))

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):
        return _into(out, _combine(self._re.mean(axis=axis, keepdims=keepdims),
                                   self._im.mean(axis=axis, keepdims=keepdims)))

    def cumsum(self, axis=None, dtype=None, out=None):
        return _into(out, _combine(self._re.cumsum(axis=axis), self._im.cumsum(axis=axis)))

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):
        """The product of the elements (along `axis`), multiplied in order."""
        a = self.ravel() if axis is None else self
        ax = 0 if axis is None else axis
        re, im = np.moveaxis(a._re, ax, 0), np.moveaxis(a._im, ax, 0)
        result = complexarray(np.ones(re.shape[1:], dtype=re.dtype),
                              np.zeros(re.shape[1:], dtype=re.dtype))
        for i in _builtins.range(re.shape[0]):
            result = result * complexarray(re[i], im[i])
        result = asarray(result)
        if keepdims:
            result = result.reshape((1,) * self.ndim) if axis is None else \
                complexarray(np.expand_dims(result._re, ax), np.expand_dims(result._im, ax))
        return _into(out, result[()] if result.ndim == 0 else result)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _into(out, var(self, axis=axis, ddof=ddof, keepdims=keepdims))

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        return _into(out, std(self, axis=axis, ddof=ddof, keepdims=keepdims))

    def sort(self, axis=-1, kind=None, order=None):
        self[...] = sort(self, axis)

    def max(self, axis=None, out=None, keepdims=False):
        return _into(out, _extreme(self, axis, keepdims, True))

    def min(self, axis=None, out=None, keepdims=False):
        return _into(out, _extreme(self, axis, keepdims, False))

    def conjugate(self):
        return complexarray(self._re.copy(), -self._im)

    conj = conjugate

    def dot(self, other):
        return dot(self, other)

    def all(self, axis=None, keepdims=False):
        return np.logical_or(self._re != 0, self._im != 0).all(axis=axis, keepdims=keepdims)

    def any(self, axis=None, keepdims=False):
        return np.logical_or(self._re != 0, self._im != 0).any(axis=axis, keepdims=keepdims)

    # --- arithmetic ---------------------------------------------------------------
    def __neg__(self):
        return complexarray(-self._re, -self._im)

    def __pos__(self):
        return complexarray(+self._re, +self._im)

    def __abs__(self):
        return np.hypot(self._re, self._im)

    def __add__(self, other):
        return add(self, other)

    def __radd__(self, other):
        return add(other, self)

    def __sub__(self, other):
        return subtract(self, other)

    def __rsub__(self, other):
        return subtract(other, self)

    def __mul__(self, other):
        return multiply(self, other)

    def __rmul__(self, other):
        return multiply(other, self)

    def __truediv__(self, other):
        return divide(self, other)

    def __rtruediv__(self, other):
        return divide(other, self)

    def __pow__(self, other):
        return power(self, other)

    def __rpow__(self, other):
        return power(other, self)

    def __matmul__(self, other):
        return matmul(self, other)

    def __rmatmul__(self, other):
        return matmul(other, self)

    def __iadd__(self, other):
        self[...] = add(self, other)
        return self

    def __isub__(self, other):
        self[...] = subtract(self, other)
        return self

    def __imul__(self, other):
        self[...] = multiply(self, other)
        return self

    def __itruediv__(self, other):
        self[...] = divide(self, other)
        return self

    def __eq__(self, other):
        return equal(self, other)

    def __ne__(self, other):
        return not_equal(self, other)

    def __lt__(self, other):
        return _ordered(self, other, np.less)

    def __le__(self, other):
        return _ordered(self, other, np.less_equal)

    def __gt__(self, other):
        return _ordered(self, other, np.greater)

    def __ge__(self, other):
        return _ordered(self, other, np.greater_equal)

    __hash__ = None


def _zip_lists(re, im):
    if isinstance(re, list):
        return [_zip_lists(r, i) for r, i in zip(re, im)]
    return complex(re, im)


def _into(out, result):
    if out is None:
        return result
    out[...] = result
    return out


def _real_tree(obj, part):
    """The real (`part` 0) or imaginary (1) parts of a nested list of numbers, complex
    numbers and arrays, in the same nesting."""
    if isinstance(obj, complexarray):
        return obj._re if part == 0 else obj._im
    if isinstance(obj, complex):
        return obj.real if part == 0 else obj.imag
    if isinstance(obj, (list, tuple)):
        return [_real_tree(x, part) for x in obj]
    if part == 0:
        return obj
    if isinstance(obj, np.ndarray):
        return np.zeros(obj.shape)
    if hasattr(obj, "__len__") and not isinstance(obj, (str, bytes)):
        return [_real_tree(x, 1) for x in obj]
    return 0.0


def _parts(x, kind=None):
    """`x` (a complex or real array, a number, or a nested list of them) as its real and
    imaginary parts, real arrays of one shape (float32 ones for complex64)."""
    if isinstance(x, complexarray):
        re, im = x._re, x._im
    elif isinstance(x, complex):
        single = isinstance(x, complex64)
        t = np.float32 if single else np.float64
        re, im = np.asarray(x.real, dtype=t), np.asarray(x.imag, dtype=t)
    elif isinstance(x, (list, tuple)):
        re = np.asarray(_real_tree(x, 0), dtype=float)
        im = np.asarray(_real_tree(x, 1), dtype=float)
        if re.shape != im.shape:
            raise ValueError("setting an array element with a sequence. The requested "
                             "array has an inhomogeneous shape")
    else:
        re = np.asarray(x)
        if re.dtype.name not in ("float32", "float64"):
            re = re.astype(np.float64)
        im = np.zeros(re.shape, dtype=re.dtype)
    if kind is not None:
        t = _part_dtype(kind)
        re, im = re.astype(t), im.astype(t)
    return re, im


def _combine(re, im):
    """The complex value of parts computed apart: an array, or a scalar for 0-d."""
    if isinstance(re, np.ndarray) or isinstance(im, np.ndarray):
        re, im = np.asarray(re), np.asarray(im)
        if re.dtype != im.dtype:
            re, im = re.astype(np.float64), im.astype(np.float64)
        if re.ndim == 0:
            return _scalar(re[()], im[()])
        return complexarray(re, im)
    return _scalar(re, im)


def _scalar(re, im):
    if isinstance(re, np.float32) and isinstance(im, np.float32):
        return complex64(complex(float(re), float(im)))
    return complex128(complex(float(re), float(im)))


def asarray(obj, dtype=None, order=None, copy=None, like=None, **kwargs):
    """`np.asarray`/`np.array` of something holding complex numbers, or with a complex
    `dtype`."""
    kind = _complex_kind(dtype)
    if dtype is not None and kind is None:
        # A real dtype: NumPy keeps the real parts (with a ComplexWarning).
        return np.asarray(_parts(obj)[0], dtype=dtype)
    if isinstance(obj, complexarray) and copy is not True and (
            kind is None or kind == obj.dtype.name) and kwargs.get("ndmin", 0) <= obj.ndim:
        return obj
    if kind is None:
        kind = "complex64" if (isinstance(obj, complex64) or (
            isinstance(obj, complexarray) and obj._re.dtype == np.float32)) else "complex128"
    re, im = _parts(obj, kind)
    if isinstance(obj, complexarray) and copy is True and re is obj._re:
        re, im = re.copy(), im.copy()
    ndmin = kwargs.get("ndmin", 0)
    while re.ndim < ndmin:
        re, im = re.reshape((1,) + re.shape), im.reshape((1,) + im.shape)
    return complexarray(re, im)


def array(obj, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    return asarray(obj, dtype=dtype, copy=copy if copy is not None else True, ndmin=ndmin)


def _filled(shape, value, dtype):
    kind = _complex_kind(dtype)
    if kind is None:
        # A complex fill value in a real dtype: the real part (NumPy's ComplexWarning).
        return np.full(shape, complex(value).real, dtype=dtype)
    t = _part_dtype(kind)
    value = complex(value)
    return complexarray(np.full(shape, value.real, dtype=t), np.full(shape, value.imag, dtype=t))


def zeros(shape, dtype=float, order="C", *, like=None):
    return _filled(shape, 0.0, dtype)


def ones(shape, dtype=None, order="C", *, like=None):
    return _filled(shape, 1.0, dtype)


empty = zeros


def full(shape, fill_value, dtype=None, order="C", *, like=None):
    return _filled(shape, fill_value, dtype if dtype is not None else complex)


def _like(a, value, dtype, new_shape):
    z = asarray(a)
    return _filled(z.shape if new_shape is None else new_shape, value,
                   z.dtype if dtype is None else dtype)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(a, 0.0, dtype, shape)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(a, 1.0, dtype, shape)


empty_like = zeros_like


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    return _like(a, fill_value, dtype, shape)


# --- elementwise functions ------------------------------------------------------------
def add(x, y, out=None):
    (a, b), (c, d) = _parts(x), _parts(y)
    return _into(out, _combine(a + c, b + d))


def subtract(x, y, out=None):
    (a, b), (c, d) = _parts(x), _parts(y)
    return _into(out, _combine(a - c, b - d))


def multiply(x, y, out=None):
    if not _is_complex(y):
        c = np.asarray(y)
        a, b = _parts(x)
        return _into(out, _combine(a * c, b * c))
    if not _is_complex(x):
        return multiply(y, x, out)
    (a, b), (c, d) = _parts(x), _parts(y)
    return _into(out, _combine(a * c - b * d, a * d + b * c))


def divide(x, y, out=None):
    (a, b) = _parts(x)
    if not _is_complex(y):
        c = np.asarray(y)
        return _into(out, _combine(a / c, b / c))
    c, d = _parts(y)
    # Smith's algorithm (as NumPy): no overflow in c*c + d*d.
    with np.errstate():
        big = np.abs(c) >= np.abs(d)
        r1 = d / np.where(big, c, 1.0)
        den1 = c + d * r1
        r2 = c / np.where(big, 1.0, d)
        den2 = c * r2 + d
        re = np.where(big, (a + b * r1) / den1, (a * r2 + b) / den2)
        im = np.where(big, (b - a * r1) / den1, (b * r2 - a) / den2)
    return _into(out, _combine(re, im))


true_divide = divide


def negative(x, out=None):
    a, b = _parts(x)
    return _into(out, _combine(-a, -b))


def positive(x, out=None):
    a, b = _parts(x)
    return _into(out, _combine(+a, +b))


def absolute(x, out=None):
    a, b = _parts(x)
    return _into(out, np.hypot(a, b))


def sign(x, out=None):
    """NumPy 2's sign of a complex number: z / |z| (0 for 0)."""
    a, b = _parts(x)
    r = np.hypot(a, b)
    zero = r == 0
    safe = np.where(zero, 1.0, r)
    return _into(out, _combine(np.where(zero, 0.0, a / safe), np.where(zero, 0.0, b / safe)))


def _conjugate(x, out=None):
    a, b = _parts(x)
    return _into(out, _combine(+a, -b))


def square(x, out=None):
    return multiply(x, x, out)


def reciprocal(x, out=None):
    return divide(1.0, x, out)


def exp(x, out=None):
    a, b = _parts(x)
    m = np.exp(a)
    return _into(out, _combine(m * np.cos(b), m * np.sin(b)))


def log(x, out=None):
    a, b = _parts(x)
    return _into(out, _combine(np.log(np.hypot(a, b)), np.arctan2(b, a)))


def sqrt(x, out=None):
    """The principal square root (C99's csqrt: the branch cut along the negative reals,
    the imaginary part signed as the input's)."""
    a, b = _parts(x)
    t = np.sqrt((np.hypot(a, b) + np.abs(a)) / 2)
    safe = np.where(t == 0, 1.0, 2 * t)
    re = np.where(a >= 0, t, np.abs(b) / safe)
    im = np.where(a >= 0, b / safe, np.where(np.signbit(b), -t, t))
    return _into(out, _combine(re, im))


def sin(x, out=None):
    a, b = _parts(x)
    return _into(out, _combine(np.sin(a) * np.cosh(b), np.cos(a) * np.sinh(b)))


def cos(x, out=None):
    a, b = _parts(x)
    return _into(out, _combine(np.cos(a) * np.cosh(b), -np.sin(a) * np.sinh(b)))


def power(x, y, out=None):
    if (not _is_complex(y) and np.ndim(y) == 0 and _math.isfinite(float(y))
            and float(y) == int(y) and abs(int(y)) <= 64):
        # Integer powers by repeated products (as NumPy's small-integer fast path).
        n = int(y)
        re0, im0 = _parts(x)
        result, base = _combine(np.ones_like(re0), np.zeros_like(im0)), x
        k = abs(n)
        while k:
            if k & 1:
                result = multiply(result, base)
            base = multiply(base, base)
            k >>= 1
        return _into(out, divide(1.0, result) if n < 0 else result)
    return _into(out, exp(multiply(y, log(x))))


def equal(x, y, out=None):
    (a, b), (c, d) = _parts(x), _parts(y)
    return _into(out, (a == c) & (b == d))


def not_equal(x, y, out=None):
    (a, b), (c, d) = _parts(x), _parts(y)
    return _into(out, (a != c) | (b != d))


def _ordered(x, y, less):
    """NumPy's lexicographic order of complex numbers (real parts first)."""
    (a, b), (c, d) = _parts(x), _parts(y)
    return less(a, c) | ((a == c) & less(b, d))


def isfinite(x, out=None):
    a, b = _parts(x)
    return _into(out, np.isfinite(a) & np.isfinite(b))


def isnan(x, out=None):
    a, b = _parts(x)
    return _into(out, np.isnan(a) | np.isnan(b))


def isinf(x, out=None):
    a, b = _parts(x)
    return _into(out, np.isinf(a) | np.isinf(b))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    diff = absolute(subtract(a, b))
    mag = absolute(b)
    out = diff <= atol + rtol * mag
    if equal_nan:
        out = out | (isnan(a) & isnan(b))
    return out


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.all(isclose(a, b, rtol, atol, equal_nan)))


def array_equal(a1, a2, equal_nan=False):
    if asarray(a1).shape != asarray(a2).shape:
        return False
    return bool(np.all(equal(a1, a2)))


# --- products -------------------------------------------------------------------------
def _product(f, x, y):
    (a, b), (c, d) = _parts(x), _parts(y)
    return _combine(f(a, c) - f(b, d), f(a, d) + f(b, c))


def matmul(x, y, out=None):
    return _into(out, _product(np.matmul, x, y))


def dot(x, y, out=None):
    return _into(out, _product(np.dot, x, y))


def inner(x, y):
    return _product(np.inner, x, y)


def outer(x, y, out=None):
    return _into(out, _product(np.outer, x, y))


def convolve(a, v, mode="full"):
    """The convolution of complex vectors, from four real ones."""
    return _product(lambda x, y: _np_convolve(x, y, mode), a, v)


def _np_convolve(x, y, mode):
    from numpy._array_api import convolve as real_convolve
    return real_convolve(x, y, mode)


def vdot(x, y):
    return dot(_conjugate(asarray(x).ravel()), asarray(y).ravel())


def vecdot(x1, x2, axis=-1):
    """NumPy's vector dot product: the first vector conjugated."""
    return _partwise("sum")(multiply(_conjugate(x1), x2), axis=axis)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    """The mean of the squared distances from the mean (a real number)."""
    z = asarray(a)
    d = z - z.mean(axis=axis, keepdims=True)
    sq = d._re * d._re + d._im * d._im
    axes = range(z.ndim) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    n = 1
    for ax in axes:
        n *= z.shape[ax]
    return _into(out, np.sum(sq, axis=axis, keepdims=keepdims) / (n - ddof))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
    return _into(out, np.sqrt(var(a, axis=axis, ddof=ddof, keepdims=keepdims)))


def sort(a, axis=-1, kind=None, order=None, stable=None):
    """Sorted lexicographically (real parts first) along `axis`."""
    z = asarray(a)
    if axis is None:
        z, axis = z.ravel(), -1
    re_m, im_m = np.moveaxis(z._re, axis, -1), np.moveaxis(z._im, axis, -1)
    rows_re, rows_im = re_m.reshape(-1, re_m.shape[-1]), im_m.reshape(-1, re_m.shape[-1])
    re, im = rows_re.copy(), rows_im.copy()
    for i in _builtins.range(rows_re.shape[0]):
        order_ = np.lexsort((rows_im[i], rows_re[i]))
        re[i], im[i] = rows_re[i][order_], rows_im[i][order_]
    re, im = re.reshape(re_m.shape), im.reshape(re_m.shape)
    return complexarray(np.moveaxis(re, -1, axis), np.moveaxis(im, -1, axis))


def _extreme(z, axis, keepdims, largest):
    """`max`/`min` in NumPy's lexicographic order (the first NaN wins)."""
    if axis is not None:
        ax = axis if axis >= 0 else axis + z.ndim
        if not 0 <= ax < z.ndim:
            raise np.AxisError("axis %d is out of bounds for array of dimension %d"
                               % (axis, z.ndim))
        re, im = np.moveaxis(z._re, ax, -1), np.moveaxis(z._im, ax, -1)
        rows_re, rows_im = re.reshape(-1, re.shape[-1]), im.reshape(-1, re.shape[-1])
        picked = [_extreme(complexarray(rows_re[i], rows_im[i]), None, False, largest)
                  for i in _builtins.range(rows_re.shape[0])]
        out = asarray(picked, dtype=z.dtype).reshape(re.shape[:-1])
        if keepdims:
            out = complexarray(np.expand_dims(out._re, ax), np.expand_dims(out._im, ax))
        return out[()] if out.ndim == 0 else out
    if z.size == 0:
        raise ValueError("zero-size array to reduction operation %s which has no identity"
                         % ("maximum" if largest else "minimum"))
    flat = z.ravel()
    nan = np.isnan(flat._re) | np.isnan(flat._im)
    if bool(np.any(nan)):
        pick = int(np.argmax(nan))
    else:
        order_ = np.lexsort((flat._im, flat._re))
        pick = int(order_[-1] if largest else order_[0])
    r = flat[pick]
    return asarray(r).reshape((1,) * z.ndim) if keepdims else r


def amax(a, axis=None, out=None, keepdims=False, **kwargs):
    return _into(out, _extreme(asarray(a), axis, keepdims, True))


def amin(a, axis=None, out=None, keepdims=False, **kwargs):
    return _into(out, _extreme(asarray(a), axis, keepdims, False))


def shape(a):
    return asarray(a).shape


def ndim(a):
    return asarray(a).ndim


def size(a, axis=None):
    z = asarray(a)
    return z.size if axis is None else z.shape[axis]


# --- functions that act on each part alone --------------------------------------------
def _part_args(args, which, data):
    out = []
    for k, v in enumerate(args):
        if k in data:
            v = _part_tree(v, which)
        out.append(v)
    return out


def _part_tree(v, which):
    if isinstance(v, (complexarray, complex)):
        return _parts(v)[which]
    if isinstance(v, (list, tuple)) and _builtins.any(_is_complex(x) for x in v):
        return type(v)(_part_tree(x, which) for x in v)
    if which == 1:
        return _real_tree(v, 1) if isinstance(v, (list, tuple)) else (
            np.zeros(np.shape(v)) if np.ndim(v) else 0.0)
    return v


def _partwise(name, data=(0,)):
    """NumPy's `name` on complex data (the positional arguments `data`): the function is
    linear and acts on real and imaginary parts alike (`f(x + iy) = f(x) + i f(y)`),
    so it runs on each part and the results are joined."""
    def run(*args, **kwargs):
        fn = getattr(_nn, name)
        re = fn(*_part_args(args, 0, data), **kwargs)
        im = fn(*_part_args(args, 1, data), **kwargs)
        return _join(re, im)
    run.__name__ = name
    return run


def _join(re, im):
    if isinstance(re, (list, tuple)):
        return type(re)(_join(r, i) for r, i in zip(re, im))
    return _combine(re, im)


def real(val):
    """The real part (a view for arrays, as NumPy's)."""
    if isinstance(val, complexarray):
        return val._re
    if isinstance(val, complex):
        return val.real
    return val if isinstance(val, np.ndarray) else np.asarray(val)[()]


def imag(val):
    """The imaginary part (zeros of a real array's shape and dtype)."""
    if isinstance(val, complexarray):
        return val._im
    if isinstance(val, complex):
        return val.imag
    a = np.asarray(val)
    out = np.zeros(a.shape, dtype=a.dtype)
    return out if a.ndim else out[()]


def conj(x, out=None):
    """The complex conjugate (a copy of a real array)."""
    if _is_complex(x) or (isinstance(x, (list, tuple)) and not isinstance(
            np.asarray(x), np.ndarray)):
        return _conjugate(x, out)
    a = np.asarray(x)
    return _into(out, a.copy() if a.ndim else a[()])


conjugate = conj


def iscomplexobj(x):
    return isinstance(x, (complexarray, complex)) or isinstance(
        getattr(x, "dtype", None), ComplexDType)


def isrealobj(x):
    return not iscomplexobj(x)


def iscomplex(x):
    if isinstance(x, (complexarray, complex)):
        r = _parts(x)[1] != 0
        return r if np.ndim(r) else bool(r)
    return np.zeros(np.shape(x), dtype=bool) if np.ndim(x) else False


def isreal(x):
    if isinstance(x, (complexarray, complex)):
        r = _parts(x)[1] == 0
        return r if np.ndim(r) else bool(r)
    return np.ones(np.shape(x), dtype=bool) if np.ndim(x) else True


def real_if_close(a, tol=100):
    """The real part when every imaginary part is within `tol` machine epsilons of zero
    (`tol` above 1; below 1 it is the absolute bound), else `a`."""
    if not isinstance(a, (complexarray, complex)):
        return np.asarray(a)
    re, im = _parts(a)
    if tol > 1:
        tol = tol * np.finfo(re.dtype).eps
    return re if bool(np.all(np.abs(im) < tol)) else asarray(a)


def angle(z, deg=False):
    """The argument of each complex number (in degrees with `deg`)."""
    a, b = _parts(z)
    r = np.arctan2(b, a)
    return r * (180.0 / _math.pi) if deg else r


def sort_complex(a):
    """The values sorted along the last axis lexicographically (real parts first)."""
    z = asarray(a)
    shape = z.shape if z.ndim else (1,)
    rows = z.reshape(-1, shape[-1])
    re, im = np.empty(rows.shape, dtype=rows._re.dtype), np.empty(rows.shape, dtype=rows._re.dtype)
    for i in _builtins.range(rows.shape[0]):
        order = np.lexsort((rows._im[i], rows._re[i]))
        re[i], im[i] = rows._re[i][order], rows._im[i][order]
    return complexarray(re.reshape(shape), im.reshape(shape))


# NumPy's name -> the complex version, for the native functions the package wraps.
IMPLEMENTATIONS = {
    "array": array, "asarray": asarray, "asanyarray": asarray, "zeros": zeros,
    "ones": ones, "empty": empty, "full": full, "zeros_like": zeros_like,
    "ones_like": ones_like, "empty_like": empty_like, "full_like": full_like,
    "add": add, "subtract": subtract, "multiply": multiply, "divide": divide,
    "true_divide": true_divide, "negative": negative, "positive": positive,
    "absolute": absolute, "abs": absolute, "sign": sign, "exp": exp, "log": log, "sqrt": sqrt,
    "sin": sin, "cos": cos, "square": square, "power": power, "equal": equal,
    "not_equal": not_equal, "isfinite": isfinite, "isnan": isnan, "isinf": isinf,
    "isclose": isclose, "allclose": allclose, "array_equal": array_equal,
    "matmul": matmul, "dot": dot, "inner": inner, "outer": outer, "var": var,
    "std": std, "sort": sort, "max": amax, "min": amin, "amax": amax, "amin": amin,
    "shape": shape, "ndim": ndim, "size": size,
    "copy": _partwise("copy"), "reshape": _partwise("reshape"),
    "transpose": _partwise("transpose"), "ravel": _partwise("ravel"),
    "squeeze": _partwise("squeeze"), "expand_dims": _partwise("expand_dims"),
    "broadcast_to": _partwise("broadcast_to"), "concatenate": _partwise("concatenate"),
    "stack": _partwise("stack"), "swapaxes": _partwise("swapaxes"),
    "moveaxis": _partwise("moveaxis"), "tile": _partwise("tile"),
    "repeat": _partwise("repeat"), "flip": _partwise("flip"), "roll": _partwise("roll"),
    "sum": _partwise("sum"), "mean": _partwise("mean"), "cumsum": _partwise("cumsum"),
    "trace": _partwise("trace"), "diagonal": _partwise("diagonal"),
    "diag": _partwise("diag"), "where": _partwise("where", (1, 2)),
    "split": _partwise("split"), "array_split": _partwise("array_split"),
}
