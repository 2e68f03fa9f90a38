"""NumPy's ufunc objects: `np.add`, `np.sin`, ... are instances of `ufunc` that call the
native function (the native base `_ufunc_base` calls it directly when given just the
inputs; `_call` below applies `out=`, `where=`, `dtype=`, `casting=`, `order=`,
`subok=` and `signature=`) and have NumPy's methods: `reduce`, `accumulate`,
`reduceat`, `outer` and `at`, with `nin`, `nout`, `nargs`, `identity` and `signature`.

`add`, `multiply`, `maximum`, `minimum`, `logical_and` and `logical_or` reduce as
`sum`, `prod`, `max`, `min`, `all` and `any` do (NumPy's own reductions: the same order
of operations); `add` and `multiply` accumulate as `cumsum` and `cumprod`; other
binary ufuncs fold along the axis from its start, as NumPy does.

Installed before the package's `__init__`, which calls `install(globals())` last.
"""
import warnings as _warnings

import _numpy_native as _nn
import numpy as np

# name: (NumPy's __name__, nin, nout, identity, signature); aliases share one object.
_TABLE = {
    "abs": ("absolute", 1, 1, None, None), "absolute": ("absolute", 1, 1, None, None),
    "acos": ("arccos", 1, 1, None, None), "arccos": ("arccos", 1, 1, None, None),
    "acosh": ("arccosh", 1, 1, None, None), "arccosh": ("arccosh", 1, 1, None, None),
    "asin": ("arcsin", 1, 1, None, None), "arcsin": ("arcsin", 1, 1, None, None),
    "asinh": ("arcsinh", 1, 1, None, None), "arcsinh": ("arcsinh", 1, 1, None, None),
    "atan": ("arctan", 1, 1, None, None), "arctan": ("arctan", 1, 1, None, None),
    "atanh": ("arctanh", 1, 1, None, None), "arctanh": ("arctanh", 1, 1, None, None),
    "atan2": ("arctan2", 2, 1, None, None), "arctan2": ("arctan2", 2, 1, None, None),
    "add": ("add", 2, 1, 0, None), "subtract": ("subtract", 2, 1, None, None),
    "multiply": ("multiply", 2, 1, 1, None), "divide": ("divide", 2, 1, None, None),
    "true_divide": ("divide", 2, 1, None, None),
    "floor_divide": ("floor_divide", 2, 1, None, None),
    "power": ("power", 2, 1, None, None), "pow": ("power", 2, 1, None, None),
    "float_power": ("float_power", 2, 1, None, None),
    "remainder": ("remainder", 2, 1, None, None), "mod": ("remainder", 2, 1, None, None),
    "fmod": ("fmod", 2, 1, None, None), "divmod": ("divmod", 2, 2, None, None),
    "maximum": ("maximum", 2, 1, None, None), "minimum": ("minimum", 2, 1, None, None),
    "fmax": ("fmax", 2, 1, None, None), "fmin": ("fmin", 2, 1, None, None),
    "hypot": ("hypot", 2, 1, 0, None), "logaddexp": ("logaddexp", 2, 1, -float("inf"), None),
    "logaddexp2": ("logaddexp2", 2, 1, -float("inf"), None),
    "copysign": ("copysign", 2, 1, None, None), "nextafter": ("nextafter", 2, 1, None, None),
    "heaviside": ("heaviside", 2, 1, None, None), "ldexp": ("ldexp", 2, 1, None, None),
    "gcd": ("gcd", 2, 1, 0, None), "lcm": ("lcm", 2, 1, None, None),
    "logical_and": ("logical_and", 2, 1, True, None),
    "logical_or": ("logical_or", 2, 1, False, None),
    "logical_xor": ("logical_xor", 2, 1, False, None),
    "logical_not": ("logical_not", 1, 1, None, None),
    "bitwise_and": ("bitwise_and", 2, 1, -1, None), "bitwise_or": ("bitwise_or", 2, 1, 0, None),
    "bitwise_xor": ("bitwise_xor", 2, 1, 0, None),
    "left_shift": ("left_shift", 2, 1, None, None),
    "bitwise_left_shift": ("left_shift", 2, 1, None, None),
    "right_shift": ("right_shift", 2, 1, None, None),
    "bitwise_right_shift": ("right_shift", 2, 1, None, None),
    "invert": ("invert", 1, 1, None, None), "bitwise_not": ("invert", 1, 1, None, None),
    "bitwise_invert": ("invert", 1, 1, None, None),
    "bitwise_count": ("bitwise_count", 1, 1, None, None),
    "greater": ("greater", 2, 1, None, None), "greater_equal": ("greater_equal", 2, 1, None, None),
    "less": ("less", 2, 1, None, None), "less_equal": ("less_equal", 2, 1, None, None),
    "equal": ("equal", 2, 1, None, None), "not_equal": ("not_equal", 2, 1, None, None),
    "sin": ("sin", 1, 1, None, None), "cos": ("cos", 1, 1, None, None),
    "tan": ("tan", 1, 1, None, None), "sinh": ("sinh", 1, 1, None, None),
    "cosh": ("cosh", 1, 1, None, None), "tanh": ("tanh", 1, 1, None, None),
    "exp": ("exp", 1, 1, None, None), "exp2": ("exp2", 1, 1, None, None),
    "expm1": ("expm1", 1, 1, None, None), "log": ("log", 1, 1, None, None),
    "log2": ("log2", 1, 1, None, None), "log10": ("log10", 1, 1, None, None),
    "log1p": ("log1p", 1, 1, None, None), "sqrt": ("sqrt", 1, 1, None, None),
    "cbrt": ("cbrt", 1, 1, None, None), "square": ("square", 1, 1, None, None),
    "reciprocal": ("reciprocal", 1, 1, None, None), "negative": ("negative", 1, 1, None, None),
    "positive": ("positive", 1, 1, None, None), "fabs": ("fabs", 1, 1, None, None),
    "sign": ("sign", 1, 1, None, None), "floor": ("floor", 1, 1, None, None),
    "ceil": ("ceil", 1, 1, None, None), "trunc": ("trunc", 1, 1, None, None),
    "rint": ("rint", 1, 1, None, None), "isnan": ("isnan", 1, 1, None, None),
    "isinf": ("isinf", 1, 1, None, None), "isfinite": ("isfinite", 1, 1, None, None),
    "signbit": ("signbit", 1, 1, None, None), "deg2rad": ("deg2rad", 1, 1, None, None),
    "rad2deg": ("rad2deg", 1, 1, None, None), "degrees": ("degrees", 1, 1, None, None),
    "radians": ("radians", 1, 1, None, None), "spacing": ("spacing", 1, 1, None, None),
    "conjugate": ("conjugate", 1, 1, None, None), "conj": ("conjugate", 1, 1, None, None),
    "modf": ("modf", 1, 2, None, None), "frexp": ("frexp", 1, 2, None, None),
    "matmul": ("matmul", 2, 1, None, "(n?,k),(k,m?)->(n?,m?)"),
    "vecdot": ("vecdot", 2, 1, None, "(n),(n)->()"),
    "matvec": ("matvec", 2, 1, None, "(m,n),(n)->(m)"),
    "vecmat": ("vecmat", 2, 1, None, "(n),(n,m)->(m)"),
}

# Reductions and accumulations NumPy's own functions compute alike.
_REDUCE_AS = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min",
              "logical_and": "all", "logical_or": "any"}
_ACCUMULATE_AS = {"add": "cumsum", "multiply": "cumprod"}
_NO_VALUE = object()


class ufunc(_nn._ufunc_base):
    """A NumPy universal function (see the module's docstring)."""

    __module__ = "numpy"

    def __getattribute__(self, name):
        # A class cannot hold a `__qualname__` for its instances: NumPy's is the name.
        if name == "__qualname__":
            name = "__name__"
        return object.__getattribute__(self, name)

    @property
    def nargs(self):
        return self.nin + self.nout

    def __repr__(self):
        return "<ufunc %r>" % (self.__name__,)

    def _binary(self, method):
        """NumPy's refusals of `method` (reduce, accumulate, reduceat, outer)."""
        if self.signature is not None:
            if method == "outer":
                raise TypeError("method outer is not allowed in ufunc with non-trivial "
                                "signature")
            raise RuntimeError("Reduction not defined on ufunc with signature")
        if self.nin != 2:
            raise ValueError("%s only supported for binary functions"
                             % ("outer product" if method == "outer" else method,))
        if self.nout != 1:
            raise ValueError("%s only supported for functions returning a single value"
                             % (method,))

    def reduce(self, array, axis=0, dtype=None, out=None, keepdims=False,
               initial=_NO_VALUE, where=True):
        self._binary("reduce")
        if where is not True:
            raise NotImplementedError("ufunc.reduce(where=...) is not supported by the "
                                      "embedded numpy")
        a = np.asarray(array)
        if dtype is not None:
            a = a.astype(dtype)
        name = self.__name__
        if name in _REDUCE_AS and (initial is _NO_VALUE or name in ("add", "multiply")):
            result = getattr(np, _REDUCE_AS[name])(a, axis=axis, keepdims=keepdims)
            if initial is not _NO_VALUE:
                result = self(initial, result)
            return _into(out, result)
        axes = _axes(axis, a.ndim)
        if len(axes) > 1 and self.identity is None:
            raise ValueError("reduction operation '%s' is not reorderable, so at most one "
                             "axis may be specified" % (name,))
        result = a
        for ax in sorted(axes, reverse=True):
            result = self._fold(result, ax, initial)
        if keepdims:
            for ax in sorted(axes):
                result = np.expand_dims(result, ax)
        elif isinstance(result, np.ndarray) and result.ndim == 0:
            result = result[()]  # a whole reduction is a scalar, as NumPy's
        return _into(out, result)

    def _fold(self, a, axis, initial):
        """`a` reduced along one axis from its start."""
        moved = np.moveaxis(a, axis, 0)
        n = moved.shape[0]
        if initial is _NO_VALUE:
            if n == 0:
                if self.identity is None:
                    raise ValueError("zero-size array to reduction operation %s which has "
                                     "no identity" % (self.__name__,))
                return np.full(moved.shape[1:], self.identity,
                               dtype=self(moved[:0], moved[:0]).dtype)
            result, start = moved[0], 1
        else:
            result, start = initial, 0
        for i in range(start, n):
            result = self(result, moved[i])
        return result

    def accumulate(self, array, axis=0, dtype=None, out=None):
        self._binary("accumulate")
        a = np.asarray(array)
        if dtype is not None:
            a = a.astype(dtype)
        if a.ndim == 0:
            raise TypeError("cannot accumulate on a scalar")
        if self.__name__ in _ACCUMULATE_AS:
            return _into(out, getattr(np, _ACCUMULATE_AS[self.__name__])(a, axis=axis))
        moved = np.moveaxis(a, axis, 0)
        n = moved.shape[0]
        kind = self(moved[:1], moved[:1]).dtype
        acc = np.empty(moved.shape, dtype=kind)
        if n:
            acc[0] = moved[0]
            for i in range(1, n):
                acc[i] = self(acc[i - 1], moved[i])
        return _into(out, np.moveaxis(acc, 0, axis))

    def reduceat(self, array, indices, axis=0, dtype=None, out=None):
        self._binary("reduceat")
        a = np.asarray(array)
        if dtype is not None:
            a = a.astype(dtype)
        moved = np.moveaxis(a, axis, 0)
        n = moved.shape[0]
        idx = [int(i) for i in np.asarray(indices).ravel().tolist()]
        parts = []
        for k, start in enumerate(idx):
            if not 0 <= start < n:
                raise IndexError("index %d out-of-bounds in %s.reduceat [0, %d)"
                                 % (start, self.__name__, n))
            end = idx[k + 1] if k + 1 < len(idx) else n
            if start < end:
                parts.append(self.reduce(moved[start:end], axis=0))
            else:
                parts.append(moved[start])
        return _into(out, np.moveaxis(np.stack(parts), 0, axis))

    def outer(self, A, B, **kwargs):
        self._binary("outer")
        a, b = np.asarray(A), np.asarray(B)
        return self(a.reshape(a.shape + (1,) * b.ndim), b, **kwargs)

    def at(self, a, indices, b=None):
        """`a[indices] = ufunc(a[indices], b)` without buffering: a repeated index is
        applied once per occurrence."""
        if self.signature is not None:
            raise TypeError("%s.at does not support ufunc with non-trivial signature: %s "
                            "has signature %s." % (self.__name__, self.__name__,
                                                   self.signature))
        if not isinstance(a, np.ndarray):
            raise TypeError("first operand must be array")
        positions = np.arange(a.size).reshape(a.shape)[indices]
        positions = np.asarray(positions)
        flat = positions.ravel().tolist()
        if self.nin == 1:
            if b is not None:
                raise ValueError("second operand needed for ufunc")
            for p in flat:
                where = np.unravel_index(p, a.shape)
                a[where] = self(a[where])
            return None
        if b is None:
            raise ValueError("second operand needed for ufunc")
        values = np.broadcast_to(np.asarray(b), positions.shape).ravel().tolist()
        for p, v in zip(flat, values):
            where = np.unravel_index(p, a.shape)
            a[where] = self(a[where], v)
        return None


_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")
_ORDERS = ("C", "F", "A", "K")


def _call(uf, args, kwargs):
    """`uf(*args, **kwargs)` with NumPy's keyword arguments (and positional outputs)."""
    name, nin, nout = uf.__name__, uf.nin, uf.nout
    if uf.signature is not None:
        # matmul, vecdot, matvec, vecmat: their functions take their own keywords.
        return uf._func(*args, **kwargs)
    if not nin <= len(args) <= nin + nout:
        raise TypeError("%s() takes from %d to %d positional arguments but %d %s given"
                        % (name, nin, nin + nout, len(args),
                           "was" if len(args) == 1 else "were"))
    inputs = args[:nin]
    outs = _outputs(args[nin:], kwargs.pop("out", _NO_VALUE), nout)
    where = kwargs.pop("where", True)
    dtype = kwargs.pop("dtype", None)
    signature = kwargs.pop("signature", None)
    casting = kwargs.pop("casting", "same_kind")
    order = kwargs.pop("order", "K")
    kwargs.pop("subok", None)  # there are no ndarray subclasses to keep
    if kwargs:
        raise TypeError("%s() got an unexpected keyword argument '%s'"
                        % (name, next(iter(kwargs))))
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', "
                         "'unsafe' (got %r)" % (casting,))
    if order is not None and order not in _ORDERS:
        raise ValueError("order must be one of 'C', 'F', 'A', or 'K' (got %r)" % (order,))
    if dtype is not None and signature is not None:
        raise TypeError("cannot specify both 'signature' and 'dtype'")
    if signature is not None:
        in_types, out_type = _parse_signature(signature, name, nin, nout)
    else:
        in_types, out_type = (None,) * nin, (None if dtype is None else np.dtype(dtype))
    if out_type is not None and all(t is None for t in in_types):
        in_types = _loop_inputs(uf, out_type)
    inputs = [x if t is None else _cast_input(x, t, k, name, casting)
              for k, (x, t) in enumerate(zip(inputs, in_types))]
    results = uf._func(*inputs)
    results = results if nout > 1 else (results,)
    mask = None
    if where is not True:
        mask = np.asarray(where)
        if mask.dtype != np.bool_:
            raise TypeError("Cannot cast array data from %r to dtype('bool') according to "
                            "the rule 'safe'" % (mask.dtype,))
        if any(o is None for o in outs):
            _warnings.warn("'where' used without 'out', expect unitialized memory in "
                           "output. If this is intentional, use out=None.", UserWarning,
                           stacklevel=2)
    done = []
    for r, o in zip(results, outs):
        if out_type is not None and np.asarray(r).dtype != out_type:
            r = np.asarray(r).astype(out_type)
            r = r if r.ndim else r[()]
        if o is None and mask is None:
            done.append(r)
            continue
        r = np.asarray(r)
        if o is None:
            # NumPy leaves the unselected elements uninitialised; here they are zeros.
            o = np.zeros(np.broadcast_shapes(r.shape, mask.shape), r.dtype)
        shape = np.broadcast_shapes(r.shape, o.shape, () if mask is None else mask.shape)
        if shape != o.shape:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match "
                             "the broadcast shape %s" % (o.shape, shape))
        if not np.can_cast(r.dtype, o.dtype, casting):
            raise TypeError("Cannot cast ufunc '%s' output from %r to %r with casting rule "
                            "%r" % (name, r.dtype, o.dtype, casting))
        if mask is None:
            o[...] = r
        else:
            np.copyto(o, r, casting="unsafe", where=mask)
        done.append(o)
    return done[0] if nout == 1 else tuple(done)


def _outputs(positional, out, nout):
    """The outputs, one entry (an array or None) per output of the ufunc."""
    if positional:
        if out is not _NO_VALUE:
            raise TypeError("cannot specify 'out' as both a positional and keyword argument")
        outs = tuple(positional) + (None,) * (nout - len(positional))
    elif out is _NO_VALUE or out is None:
        outs = (None,) * nout
    elif isinstance(out, tuple):
        if len(out) != nout:
            raise ValueError("The 'out' tuple must have exactly %d entries: one per ufunc "
                             "output" % (nout,))
        outs = out
    elif nout == 1:
        outs = (out,)
    else:
        raise TypeError("'out' must be a tuple of arrays")
    for o in outs:
        if o is not None and not isinstance(o, np.ndarray):
            raise TypeError("return arrays must be of ArrayType")
    return outs


def _parse_signature(signature, name, nin, nout):
    """(input types, output type) of `signature=`: a tuple of dtypes or None, a string
    of type codes (`'dd->d'`), or one dtype for the output."""
    if isinstance(signature, str) and "->" in signature:
        ins, outs = signature.replace(",", "").split("->")
        types = list(ins) + list(outs)
    elif isinstance(signature, (tuple, list)):
        types = list(signature)
    else:
        return (None,) * nin, np.dtype(signature)
    if len(types) != nin + nout:
        raise TypeError("a type-tuple must be specified of length %d for ufunc '%s'"
                        % (nin + nout, name))
    types = [None if t is None else np.dtype(t) for t in types]
    return tuple(types[:nin]), types[nin]


def _loop_inputs(uf, out_type):
    """The input types of `uf`'s loop giving `out_type` (NumPy's `dtype=`): the inputs
    keep their types when the ufunc's result is a bool whatever they are (comparisons,
    `isnan`, ...), and are cast to `out_type` otherwise; TypeError when there is no
    such loop (`np.sin(i, dtype=np.int64)`)."""
    def result_types(t):
        try:
            r = uf._func(*[np.zeros(1, t)] * uf.nin)
        except Exception:
            return None
        return [np.asarray(x).dtype for x in (r if uf.nout > 1 else (r,))]

    predicate = result_types(np.float64) == [np.dtype(np.bool_)] * uf.nout
    if predicate and out_type == np.bool_:
        return (None,) * uf.nin
    if not predicate and result_types(out_type) == [out_type] * uf.nout:
        return (out_type,) * uf.nin
    raise TypeError("No loop matching the specified signature and casting was found for "
                    "ufunc %s" % (uf.__name__,))


def _cast_input(x, t, k, name, casting):
    """Input `k` of a ufunc cast to the loop's type `t` under the casting rule."""
    a = np.asarray(x)
    if not np.can_cast(a.dtype, t, casting):
        raise TypeError("Cannot cast ufunc '%s' input %d from %r to %r with casting rule %r"
                        % (name, k, a.dtype, t, casting))
    return a.astype(t)


def _axes(axis, ndim):
    """The reduced axes, each in [0, ndim)."""
    if axis is None:
        return list(range(ndim))
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    out = []
    for ax in axes:
        if not -ndim <= ax < ndim:
            raise np.AxisError("axis %d is out of bounds for array of dimension %d"
                               % (ax, ndim))
        out.append(ax % ndim if ndim else 0)
    return out


def _into(out, result):
    if out is None:
        return result
    target = out[0] if isinstance(out, tuple) else out
    target[...] = result
    return target


def install(namespace):
    """Every function of `_TABLE` in `namespace` as a ufunc (aliases: one object)."""
    made = {}
    for name, (canonical, nin, nout, identity, signature) in _TABLE.items():
        fn = namespace.get(name)
        if fn is None or isinstance(fn, ufunc):
            continue
        if canonical not in made:
            target = namespace.get(canonical, fn)
            cls = type("ufunc", (ufunc,), {
                "__name__": canonical, "__module__": "numpy",
                "__doc__": getattr(target, "__doc__", None), "nin": nin, "nout": nout,
                "identity": identity, "signature": signature,
            })
            made[canonical] = cls(target, nin)
        namespace[name] = made[canonical]
