"""NumPy's triangle, index and gather/scatter functions, written in Python over the
embedded numpy's native ones: `tri`/`tril`/`triu`/`vander` and the index helpers
(`tril_indices`, `diag_indices`, `indices`, `ix_`, `unravel_index`,
`ravel_multi_index`), `take`/`take_along_axis`/`put_along_axis`/`put`/`putmask`/
`compress`/`choose`, `kron`, `block`, `broadcast_arrays`, `resize`, `rollaxis`, and the
`as*array` conversions.

Installed before the package's `__init__`, which re-exports `__all__`.
"""
import numpy as np

__all__ = [
    "tri", "tril", "triu", "vander", "tril_indices", "triu_indices", "tril_indices_from",
    "triu_indices_from", "diag_indices", "diag_indices_from", "fill_diagonal", "diagflat",
    "indices", "ix_", "unravel_index", "ravel_multi_index", "take", "take_along_axis",
    "put_along_axis", "put", "putmask", "compress", "choose", "flatnonzero", "argwhere",
    "kron", "block", "broadcast_arrays", "broadcast", "nditer", "resize", "rollaxis", "ascontiguousarray",
    "asfortranarray", "asanyarray", "asarray_chkfinite", "trim_zeros", "mask_indices",
    "isfortran", "require",
]


def tri(N, M=None, k=0, dtype=float):
    """Ones at and below the `k`-th diagonal of an N x M array."""
    M = N if M is None else M
    rows = np.arange(N).reshape(-1, 1)
    cols = np.arange(M).reshape(1, -1)
    return np.asarray(cols <= rows + k, dtype=dtype)


def _lower_mask(shape, k):
    return tri(shape[-2], shape[-1], k=k, dtype=bool)


def tril(m, k=0):
    """`m` with the elements above the `k`-th diagonal zeroed (of its last two axes)."""
    m = np.asarray(m)
    if m.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    return np.where(_lower_mask(m.shape, k), m, np.zeros(1, dtype=m.dtype))


def triu(m, k=0):
    """`m` with the elements below the `k`-th diagonal zeroed (of its last two axes)."""
    m = np.asarray(m)
    if m.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    return np.where(_lower_mask(m.shape, k - 1), np.zeros(1, dtype=m.dtype), m)


def vander(x, N=None, increasing=False):
    """The Vandermonde matrix of the vector `x` (powers decreasing by default)."""
    x = np.asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    N = x.shape[0] if N is None else N
    powers = np.arange(N)
    if not increasing:
        powers = powers[::-1]
    dt = np.result_type(x, 1)
    return np.power(x.reshape(-1, 1).astype(dt), powers.reshape(1, -1).astype(dt))


def tril_indices(n, k=0, m=None):
    """The row and column indices of the lower triangle of an n x m array."""
    return np.nonzero(tri(n, m, k=k, dtype=bool))


def triu_indices(n, k=0, m=None):
    """The row and column indices of the upper triangle of an n x m array."""
    return np.nonzero(~tri(n, m, k=k - 1, dtype=bool))


def _square_2d(arr):
    arr = np.asarray(arr)
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return arr


def tril_indices_from(arr, k=0):
    arr = _square_2d(arr)
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    arr = _square_2d(arr)
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def diag_indices(n, ndim=2):
    """The indices of the main diagonal of an n x ... x n array."""
    idx = np.arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    arr = np.asarray(arr)
    if arr.ndim < 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def fill_diagonal(a, val, wrap=False):
    """Writes `val` (repeated as needed) on the main diagonal of `a`, in place."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = a.size if wrap else min(a.shape[0], a.shape[1]) * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + sum(a.shape[0] ** k for k in range(1, a.ndim))
        end = a.size
    positions = np.arange(0, end, step)
    vals = np.ravel(np.asarray(val))
    a.flat[positions] = resize(vals, positions.shape[0]) if vals.size > 1 else vals


def diagflat(v, k=0):
    """A 2-d array with the flattened `v` on its `k`-th diagonal."""
    return np.diag(np.ravel(np.asarray(v)), k)


def indices(dimensions, dtype=int, sparse=False):
    """The grid of indices of an array of shape `dimensions` (one array per axis)."""
    dimensions = tuple(dimensions)
    n = len(dimensions)
    out = []
    for i, d in enumerate(dimensions):
        shape = [1] * n
        shape[i] = d
        idx = np.arange(d, dtype=dtype).reshape(shape)
        out.append(idx if sparse else np.broadcast_to(idx, dimensions))
    if sparse:
        return tuple(out)
    return np.stack(out) if out else np.zeros((0,), dtype=dtype)


def ix_(*args):
    """Open-mesh index arrays: the i-th shaped to vary along axis i only."""
    out = []
    n = len(args)
    for i, a in enumerate(args):
        a = np.asarray(a)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            a = np.nonzero(a)[0]
        shape = [1] * n
        shape[i] = a.shape[0]
        out.append(a.reshape(shape))
    return tuple(out)


def unravel_index(indices, shape, order="C"):
    """The coordinates in an array of `shape` of flat positions `indices`."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = np.asarray(indices)
    total = 1
    for d in shape:
        total *= d
    if np.any(idx < 0) or np.any(idx >= total):
        bad = int(np.ravel(idx)[np.ravel((idx < 0) | (idx >= total))][0])
        raise ValueError("index %d is out of bounds for array with size %d" % (bad, total))
    dims = list(shape) if order == "C" else list(shape)[::-1]
    out = []
    for d in reversed(dims):
        out.append(idx % d)
        idx = idx // d
    out = out[::-1]
    return tuple(out if order == "C" else out[::-1])


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat positions in an array of shape `dims` of the coordinates `multi_index`."""
    if len(multi_index) != len(dims):
        raise ValueError("parameter multi_index must be a sequence of length %d"
                         % len(dims))
    idx = [np.asarray(i) for i in multi_index]
    for i, d in zip(idx, dims):
        if mode == "raise" and (np.any(i < 0) or np.any(i >= d)):
            raise ValueError("invalid entry in coordinates array")
    if mode == "wrap":
        idx = [i % d for i, d in zip(idx, dims)]
    elif mode == "clip":
        idx = [np.clip(i, 0, d - 1) for i, d in zip(idx, dims)]
    order_dims = list(zip(idx, dims))
    if order == "F":
        order_dims = order_dims[::-1]
    flat = 0
    for i, d in order_dims:
        flat = flat * d + i
    return flat


def take(a, indices, axis=None, out=None, mode="raise"):
    """`a`'s elements at `indices` (of the flattened array when `axis` is None)."""
    a = np.asarray(a)
    idx = np.asarray(indices)
    if axis is None:
        a = np.ravel(a)
        axis = 0
    axis = axis % a.ndim if a.ndim else 0
    n = a.shape[axis]
    if mode == "wrap":
        idx = idx % n
    elif mode == "clip":
        idx = np.clip(idx, 0, n - 1)
    res = a[(slice(None),) * axis + (idx,)]
    return res


def _along_grid(arr, indices, axis):
    """The full index tuple picking `indices` along `axis` and every position elsewhere."""
    if arr.ndim != indices.ndim:
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    grid = []
    for d in range(arr.ndim):
        if d == axis:
            grid.append(indices)
        else:
            shape = [1] * arr.ndim
            shape[d] = arr.shape[d]
            grid.append(np.arange(arr.shape[d]).reshape(shape))
    return tuple(grid)


def take_along_axis(arr, indices, axis=-1):
    """`arr`'s elements at `indices` along `axis` (matching index and data arrays)."""
    arr = np.asarray(arr)
    indices = np.asarray(indices)
    if axis is None:
        return np.ravel(arr)[indices]
    axis = axis % arr.ndim
    return arr[_along_grid(arr, indices, axis)]


def put_along_axis(arr, indices, values, axis):
    """Writes `values` into `arr` at `indices` along `axis`, in place."""
    indices = np.asarray(indices)
    if axis is None:
        arr.flat[np.ravel(indices)] = values
        return None
    axis = axis % arr.ndim
    arr[_along_grid(arr, indices, axis)] = values
    return None


def put(a, ind, v, mode="raise"):
    """Writes `v` (repeated as needed) into the flattened `a` at `ind`, in place."""
    ind = np.ravel(np.asarray(ind))
    n = a.size
    if mode == "wrap":
        ind = ind % n
    elif mode == "clip":
        ind = np.clip(ind, 0, n - 1)
    elif np.any((ind < -n) | (ind >= n)):
        raise IndexError("index out of bounds")
    vals = np.ravel(np.asarray(v))
    a.flat[ind] = resize(vals, ind.shape[0]) if 0 < vals.size != ind.shape[0] else vals


def putmask(a, mask, values):
    """`a[mask] = values`, the values repeated as needed, in place."""
    mask = np.asarray(mask, dtype=np.bool_)
    positions = np.flatnonzero(np.broadcast_to(mask, a.shape)) if hasattr(np, "flatnonzero") \
        else np.nonzero(np.ravel(np.broadcast_to(mask, a.shape)))[0]
    if positions.shape[0] == 0:
        return None
    vals = np.ravel(np.asarray(values))
    a.flat[positions] = resize(vals, a.size)[positions]


def compress(condition, a, axis=None, out=None):
    """The slices of `a` along `axis` where `condition` is true."""
    a = np.asarray(a)
    cond = np.ravel(np.asarray(condition, dtype=np.bool_))
    if axis is None:
        a = np.ravel(a)
        axis = 0
    axis = axis % a.ndim
    if cond.shape[0] > a.shape[axis]:
        raise IndexError("index %d is out of bounds for axis %d with size %d"
                         % (cond.shape[0] - 1, axis, a.shape[axis]))
    keep = np.nonzero(cond)[0]
    return a[(slice(None),) * axis + (keep,)]


def choose(a, choices, out=None, mode="raise"):
    """`choices[a[i]][i]` for every position `i` (all broadcast together)."""
    a = np.asarray(a)
    n = len(choices)
    if mode == "wrap":
        a = a % n
    elif mode == "clip":
        a = np.clip(a, 0, n - 1)
    elif np.any((a < 0) | (a >= n)):
        raise ValueError("invalid entry in choice array")
    arrays = [np.asarray(c) for c in choices]
    shape = np.broadcast_shapes(a.shape, *[c.shape for c in arrays])
    out = np.zeros(shape, dtype=np.result_type(*arrays))
    a = np.broadcast_to(a, shape)
    for k, c in enumerate(arrays):
        out = np.where(a == k, np.broadcast_to(c, shape), out)
    return out


def flatnonzero(a):
    """The positions of the nonzero elements of the flattened `a`."""
    return np.nonzero(np.ravel(np.asarray(a)))[0]


def argwhere(a):
    """The coordinates of the nonzero elements, one row each."""
    a = np.asarray(a)
    if a.ndim == 0:
        return np.zeros((int(bool(a)), 0), dtype=np.int64)
    return np.stack(np.nonzero(a), axis=-1) if a.size else np.zeros((0, a.ndim),
                                                                      dtype=np.int64)


def kron(a, b):
    """The Kronecker product: blocks `a[i] * b`."""
    a, b = np.asarray(a), np.asarray(b)
    nd = max(a.ndim, b.ndim)
    a = a.reshape((1,) * (nd - a.ndim) + a.shape)
    b = b.reshape((1,) * (nd - b.ndim) + b.shape)
    prod = a.reshape(a.shape + (1,) * nd) * b.reshape((1,) * nd + b.shape)
    # Interleave the axes: (a0, b0, a1, b1, ...), then merge each pair.
    order = [k for i in range(nd) for k in (i, nd + i)]
    prod = np.transpose(prod, order)
    return prod.reshape(tuple(a.shape[i] * b.shape[i] for i in range(nd)))


def _block_depth(arrays):
    if isinstance(arrays, list):
        if len(arrays) == 0:
            raise ValueError("Lists cannot be empty")
        depths = {_block_depth(x) for x in arrays}
        if len(depths) != 1:
            raise ValueError("List depths are mismatched")
        return 1 + depths.pop()
    if isinstance(arrays, tuple):
        raise TypeError("arrays is a tuple. Only lists can be used to arrange blocks, "
                        "and np.block does not allow implicit conversion from tuple to "
                        "ndarray.")
    return 0


def block(arrays):
    """An array assembled from nested lists of blocks (the innermost list along the last
    axis)."""
    depth = _block_depth(arrays)

    def ndim_of(x):
        if isinstance(x, list):
            return max(ndim_of(y) for y in x)
        return np.ndim(x)

    result_ndim = max(depth, ndim_of(arrays))

    def assemble(x, level):
        if level == depth:
            x = np.asarray(x)
            return x.reshape((1,) * (result_ndim - x.ndim) + x.shape)
        parts = [assemble(y, level + 1) for y in x]
        return np.concatenate(parts, axis=-(depth - level))

    return assemble(arrays, 0)


def broadcast_arrays(*args, subok=False):
    """The arguments broadcast to one shape (read-only views)."""
    arrays = [np.asarray(a) for a in args]
    shape = np.broadcast_shapes(*[a.shape for a in arrays])
    return tuple(a if a.shape == shape else np.broadcast_to(a, shape) for a in arrays)


class broadcast:
    """NumPy's `broadcast`: the broadcast shape of its arguments (`shape`, `nd`/`ndim`,
    `size`, `numiter`), iterated as tuples of their elements in C order (`index`,
    `reset`). Its `iters` are not there."""

    def __init__(self, *args):
        if len(args) > 64:
            raise ValueError("Need at least 0 and at most 64 array objects.")
        arrays = [np.asarray(a) for a in args]
        self.shape = np.broadcast_shapes(*[a.shape for a in arrays])
        self._arrays = [np.broadcast_to(a, self.shape) for a in arrays]
        self.nd = self.ndim = len(self.shape)
        size = 1
        for n in self.shape:
            size *= n
        self.size = size
        self.numiter = len(arrays)
        self.index = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.index >= self.size:
            raise StopIteration
        where = np.unravel_index(self.index, self.shape) if self.shape else ()
        self.index += 1
        return tuple(a[where] for a in self._arrays)

    def reset(self):
        self.index = 0


class nditer:
    """NumPy's `nditer` without buffering: its operands broadcast together, visited in C
    order (`order='F'` in Fortran order, `'K'` in memory order), each step giving a 0-d
    view of every operand (read-only unless `op_flags` says `readwrite`/`writeonly`; an
    `allocate` operand given as None is made); `multi_index`, `c_index` and `f_index`;
    a context manager. Not there: `shape` and `ndim` (NumPy's are those of its merged
    and reordered axes), `external_loop`, `buffered`, `op_axes` and `itershape`."""

    _FLAGS = {"multi_index", "c_index", "f_index", "refs_ok", "zerosize_ok",
              "reduce_ok", "common_dtype", "grow_inner", "delay_bufalloc"}

    def __init__(self, op, flags=None, op_flags=None, op_dtypes=None, order="K",
                 casting="safe", op_axes=None, itershape=None, buffersize=0):
        flags = list(flags or [])
        unsupported = [f for f in flags if f not in self._FLAGS]
        if unsupported or op_axes is not None or itershape is not None:
            raise NotImplementedError("np.nditer(%s) is not supported by the embedded numpy"
                                      % ", ".join(unsupported or ["op_axes/itershape"]))
        if "c_index" in flags and "f_index" in flags:
            raise ValueError("Iterator flags C_INDEX and F_INDEX cannot both be specified")
        single = not isinstance(op, (list, tuple))
        ops = [op] if single else list(op)
        if op_flags is None:
            op_flags = [["readonly"]] * len(ops)
        elif op_flags and isinstance(op_flags[0], str):
            op_flags = [list(op_flags)] * len(ops)
        if op_dtypes is not None and not isinstance(op_dtypes, (list, tuple)):
            op_dtypes = [op_dtypes] * len(ops)
        given = [np.asarray(o) for o in ops if o is not None]
        shape = np.broadcast_shapes(*[a.shape for a in given])
        arrays = []
        for k, (o, fl) in enumerate(zip(ops, op_flags)):
            if o is None:
                if "allocate" not in fl:
                    raise ValueError("Iterator operand %d is null, but was not flagged "
                                     "for allocation" % k)
                dtype = op_dtypes[k] if op_dtypes is not None else np.result_type(*given)
                o = np.empty(shape, dtype=dtype)
            elif op_dtypes is not None and op_dtypes[k] is not None:
                if np.dtype(op_dtypes[k]) != np.asarray(o).dtype:
                    raise TypeError("Iterator operand required copying or buffering, but "
                                    "neither copying nor buffering was enabled")
            arrays.append(o if isinstance(o, np.ndarray) else np.asarray(o))
        views = []
        for a, fl in zip(arrays, op_flags):
            if "readwrite" in fl or "writeonly" in fl:
                if a.shape != shape:
                    raise ValueError("non-broadcastable output operand with shape %s "
                                     "doesn't match the broadcast shape %s"
                                     % (a.shape, shape))
                views.append(a)
            else:
                views.append(np.broadcast_to(a, shape))
        self.operands = tuple(arrays)
        self._views = views
        self._single = single
        self._flags = flags
        self._shape = tuple(shape)
        size = 1
        for n in shape:
            size *= n
        self.itersize = size
        if size == 0 and "zerosize_ok" not in flags:
            raise ValueError("Iteration of zero-sized operands is not enabled")
        fortran = order == "F" or (order in ("K", "A") and bool(arrays) and all(
            a.flags.f_contiguous and not a.flags.c_contiguous for a in arrays))
        self._order = "F" if fortran else "C"
        self.iterindex = 0
        self._started = False

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def close(self):
        pass

    def __iter__(self):
        return self

    @property
    def finished(self):
        return self.iterindex >= self.itersize

    def _where(self):
        if not self._shape:
            return ()
        return np.unravel_index(self.iterindex, self._shape, order=self._order)

    @property
    def value(self):
        where = tuple(int(i) for i in self._where()) + (Ellipsis,)
        views = tuple(v[where] for v in self._views)
        return views[0] if self._single else views

    @property
    def multi_index(self):
        if "multi_index" not in self._flags:
            raise ValueError("Iterator is not tracking a multi-index")
        return tuple(int(i) for i in self._where())

    @property
    def index(self):
        if "c_index" in self._flags:
            order = "C"
        elif "f_index" in self._flags:
            order = "F"
        else:
            raise ValueError("Iterator does not have an index")
        if not self._shape:
            return 0
        return int(np.ravel_multi_index(self._where(), self._shape, order=order))

    def __next__(self):
        if self._started:
            self.iterindex += 1
        self._started = True
        if self.iterindex >= self.itersize:
            raise StopIteration
        return self.value

    def iternext(self):
        """Moves to the next element (from the first, where a new iterator stands)."""
        self._started = True
        self.iterindex += 1
        return self.iterindex < self.itersize

    def reset(self):
        self.iterindex = 0
        self._started = False


def resize(a, new_shape):
    """`a`'s elements repeated (C order) to fill `new_shape`."""
    a = np.ravel(np.asarray(a))
    if isinstance(new_shape, int):
        new_shape = (new_shape,)
    new_shape = tuple(new_shape)
    total = 1
    for d in new_shape:
        if d < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
        total *= d
    if a.size == 0 or total == 0:
        return np.zeros(new_shape, dtype=a.dtype)
    reps = -(-total // a.size)
    return np.tile(a, reps)[:total].reshape(new_shape)


def rollaxis(a, axis, start=0):
    """`a` with `axis` moved to lie before `start`."""
    a = np.asarray(a)
    n = a.ndim
    axis = axis % n
    if start < 0:
        start += n
    if not 0 <= start <= n:
        raise np.AxisError("start arg requires %d <= start < %d, but %d was passed in"
                           % (-n, n + 1, start))
    if axis < start:
        start -= 1
    if axis == start:
        return a
    return np.moveaxis(a, axis, start)


def ascontiguousarray(a, dtype=None, *, like=None):
    """`a` as a C-contiguous array (a 0-d value becomes 1-d, as NumPy's)."""
    return np.array(a, dtype=dtype, ndmin=1)


def asfortranarray(a, dtype=None, *, like=None):
    """`a` as an array laid out in Fortran order (the first index fastest): a C-ordered
    copy of its transpose, transposed back (reductions follow the memory order)."""
    a = np.array(a, dtype=dtype, ndmin=1)
    if a.ndim < 2:
        return a
    return np.array(a.T).T


def asanyarray(a, dtype=None, order=None, *, like=None):
    """`a` as an array (the embedded numpy has no array subclasses)."""
    return np.asarray(a, dtype=dtype)


def asarray_chkfinite(a, dtype=None, order=None):
    """`a` as an array, refusing NaN and infinities."""
    a = np.asarray(a, dtype=dtype)
    if a.dtype in (np.float64, np.float32) and not np.all(np.isfinite(a)):
        raise ValueError("array must not contain infs or NaNs")
    return a


def trim_zeros(filt, trim="fb", axis=None):
    """`filt` without the zeros before ('f') and after ('b') its nonzeros: the smallest box
    holding them, along every axis or along `axis` (NumPy 2.2's); a list or tuple stays
    one in 1-d."""
    a = np.asarray(filt)
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    if axis is None:
        axes = tuple(range(a.ndim))
    else:
        from numpy._function_base import _axis
        axes = tuple(_axis(k, a.ndim) for k in
                     (axis if isinstance(axis, (tuple, list)) else (axis,)))
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis in `axis` argument")
    if not axes:
        return filt
    nonzero = np.argwhere(a)
    if nonzero.shape[0] == 0:
        start = stop = [0] * a.ndim
    else:
        start = [int(v) for v in nonzero.min(axis=0)]
        stop = [int(v) + 1 for v in nonzero.max(axis=0)]
        if "f" not in trim:
            start = [None] * a.ndim
        if "b" not in trim:
            stop = [None] * a.ndim
    sl = tuple(slice(start[k], stop[k]) if k in axes else slice(None) for k in range(a.ndim))
    if len(sl) == 1:
        return filt[sl[0]]
    return filt[sl]


def mask_indices(n, mask_func, k=0):
    """The indices of the nonzero entries of `mask_func(np.ones((n, n)), k)` (`np.triu`
    gives the upper triangle's)."""
    m = mask_func(np.ones((n, n), dtype=np.int64), k)
    return np.nonzero(m != 0)


def isfortran(a):
    """Whether `a` is laid out in Fortran order and not also in C order."""
    return bool(a.flags.fnc)


# `require`'s names for the flags it can ask for.
_REQUIREMENTS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F",
                 "F_CONTIGUOUS": "F", "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W",
                 "WRITEABLE": "W", "O": "O", "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


def _copy_in(arr, order):
    """A copy of `arr` laid out in `order` ('C', 'F', or 'A': Fortran when `arr` is)."""
    if order == "F" or (order == "A" and arr.flags.fnc):
        return asfortranarray(np.array(arr))
    return np.array(arr, copy=True)


def require(a, dtype=None, requirements=None, *, like=None):
    """`a` as an array of `dtype` that has the flags asked for (C or Fortran order,
    aligned, writeable, owning its data), copied only when it lacks one."""
    if not requirements:
        return np.asarray(a, dtype=dtype)
    if isinstance(requirements, str):
        requirements = [requirements]
    wanted = {_REQUIREMENTS[r.upper()] for r in requirements}
    wanted.discard("E")
    if {"C", "F"} <= wanted:
        raise ValueError('Cannot specify both "C" and "F" order')
    order = "C" if "C" in wanted else "F" if "F" in wanted else "A"
    wanted -= {"C", "F"}
    arr = np.asarray(a, dtype=dtype)
    if (order == "C" and not arr.flags.c_contiguous) or (
            order == "F" and not arr.flags.f_contiguous):
        return _copy_in(arr, order)
    for flag in wanted:
        if not arr.flags[flag]:
            return _copy_in(arr, order)
    return arr
