"""Gathers and stencils: take, take_along_axis, append, insert, delete, block, diff,
gradient, trapezoid.

A gather's output elements are copies of its inputs' elements. Its adjoint runs the same
function on labels (each element's flat position) and adds each output's gradient to the
element it came from, so the rule cannot disagree with NumPy about which element went
where (modes, negative and repeated indices, broadcast values). The stencils (diff,
gradient, trapezoid) are linear along one axis. NumPy's only; conventions in
tangent._grads_common."""
from tangent._grads_common import _is_zero, _tg, numpy
from tangent._grads_shape import _numpy_reshape_as
from tangent._errors import NotDifferentiated

# ------------------------------------------------------------------------ gathers


def element_labels(x, source=0):
    """Each element's flat position plus one, in x's shape (int64): 1, 2, ... for the
    first source of a gather, -1, -2, ... for the second (the values of append/insert).
    0 is no element: a constant the function fills in (diagflat's zeros)."""
    n = int(numpy.size(x))
    labels = numpy.arange(1, n + 1) if source == 0 else -1 - numpy.arange(n)
    return numpy.reshape(labels, numpy.shape(x))


def gather_grad(g, x, picked, source=0):
    """The gradient of `x`, one of the sources of a gather whose output's labels are
    `picked` (the gather applied to element_labels): each output's share added to the
    element it copies, repeated copies summed, constants (label 0) dropped."""
    n = int(numpy.size(x))
    labels = numpy.ravel(numpy.asarray(picked))
    g = numpy.ravel(numpy.broadcast_to(numpy.asarray(g) * 1.0, numpy.shape(picked)))
    if source == 0:
        mine = labels > 0
        where = labels[mine] - 1
    else:
        mine = labels < 0
        where = -1 - labels[mine]
    flat = numpy.bincount(where, weights=g[mine], minlength=n) if n else numpy.zeros(0)
    return _numpy_reshape_as(numpy.reshape(flat, numpy.shape(x)), x)


def _leaves(tree, out):
    if isinstance(tree, list):
        for t in tree:
            _leaves(t, out)
    else:
        out.append(tree)
    return out


def _relabel(tree, offsets):
    if isinstance(tree, list):
        return [_relabel(t, offsets) for t in tree]
    start = offsets.pop(0)
    return element_labels(tree) + start


def block_grad(g, arrays):
    """The gradients of the leaves of `numpy.block(arrays)`, nested like them."""
    leaves = _leaves(arrays, [])
    sizes = [int(numpy.size(a)) for a in leaves]
    offsets = [sum(sizes[:i]) for i in range(len(sizes))]
    picked = numpy.ravel(numpy.block(_relabel(arrays, list(offsets)))) - 1
    flat = numpy.bincount(picked, weights=numpy.ravel(numpy.asarray(g) * 1.0),
                          minlength=sum(sizes))
    grads = [_numpy_reshape_as(numpy.reshape(flat[o:o + n], numpy.shape(a)), a)
             for o, n, a in zip(offsets, sizes, leaves)]

    def nest(tree):
        if isinstance(tree, list):
            return [nest(t) for t in tree]
        return grads.pop(0)
    return nest(arrays)


def block_tangent(tangents, arrays):
    """`numpy.block` of the leaves' tangents, a zero tangent as zeros like its leaf."""
    if isinstance(arrays, list):
        if _is_zero(tangents):
            tangents = [0.0] * len(arrays)
        return [block_tangent(t, a) for t, a in zip(tangents, arrays)]
    if _is_zero(tangents):
        return numpy.zeros(numpy.shape(arrays))
    return tangents


def pair_tangent(t, x):
    """The tangent of one source of a two-source gather (append, insert): zeros like `x`
    for a zero tangent."""
    if _is_zero(t):
        return numpy.zeros(numpy.shape(x))
    return t


# ----------------------------------------------------------------------- stencils


def _diff_parts(a, axis, prepend, append):
    """diff's operand in its three parts along `axis`, prepend, a and append (None where
    absent; NumPy's rules: a scalar becomes a slice of length 1), and the axis."""
    a = numpy.asarray(a)
    axis = axis % a.ndim
    parts = [None, a, None]
    for i, extra in ((0, prepend), (2, append)):
        if extra is None:
            continue
        e = numpy.asarray(extra)
        if e.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            e = numpy.broadcast_to(e, tuple(shape))
        parts[i] = e
    return parts, axis


def _diff_adjoint(g, n, axis):
    """The adjoint of n differences along `axis`: each step gives x_j = g_(j-1) - g_j."""
    g = numpy.asarray(g) * 1.0
    for _ in range(n):
        pad = [(0, 0)] * g.ndim
        pad[axis] = (1, 1)
        g = -numpy.diff(numpy.pad(g, pad), 1, axis)
    return g


def diff_grad(g, a, n=1, axis=-1, prepend=None, append=None, which=0):
    """The gradient of `numpy.diff(a, n, axis, prepend, append)` with respect to a
    (which=0), prepend (1) or append (2)."""
    parts, ax = _diff_parts(a, axis, prepend, append)
    lengths = [0 if p is None else p.shape[ax] for p in parts]
    gx = _diff_adjoint(g, n, ax) if n else numpy.asarray(g) * 1.0
    position = (1, 0, 2)[which]  # the joined operand is prepend, a, append
    start = sum(lengths[:position])
    index = [slice(None)] * gx.ndim
    index[ax] = slice(start, start + lengths[position])
    part = gx[tuple(index)]
    target = (a, prepend, append)[which]
    if numpy.ndim(target) == 0:
        return _tg().unbroadcast(part, target)  # a scalar stood for a whole slice
    return _numpy_reshape_as(part, target)


def diff_tangent(ta, tp, tq, a, n=1, axis=-1, prepend=None, append=None):
    """The tangent of diff: the differences of the joined tangents (zero for a constant
    prepend or append)."""
    ta = numpy.zeros(numpy.shape(a)) if _is_zero(ta) else ta
    tp = None if prepend is None else (0.0 * numpy.asarray(prepend) if _is_zero(tp) else tp)
    tq = None if append is None else (0.0 * numpy.asarray(append) if _is_zero(tq) else tq)
    parts, ax = _diff_parts(ta, axis, tp, tq)
    return numpy.diff(numpy.concatenate([p for p in parts if p is not None], ax), n, ax)


def _gradient_axes(f, varargs, axis):
    """numpy.gradient's axes and the spacing of each (a number or coordinates)."""
    ndim = numpy.ndim(f)
    if axis is None:
        axes = list(range(ndim))
    elif isinstance(axis, (tuple, list)):
        axes = [a % ndim for a in axis]
    else:
        axes = [axis % ndim]
    if len(varargs) == 0:
        spacing = [1.0] * len(axes)
    elif len(varargs) == 1 and numpy.ndim(varargs[0]) == 0:
        spacing = [varargs[0]] * len(axes)
    else:
        spacing = list(varargs)
    return axes, spacing


def _stencil(n, spacing, edge_order):
    """numpy.gradient along one axis of length n as a band: row i reads columns
    s_i, s_i + 1, s_i + 2 (s_i = clip(i - 1, 0, n - 3)) with weights w[k][i], read off
    numpy.gradient of three periodic probes (so the weights are NumPy's own)."""
    width = min(n, 3)
    start = numpy.clip(numpy.arange(n) - 1, 0, max(n - 3, 0))
    cols = numpy.arange(n)
    probes = [numpy.gradient((cols % width == r) * 1.0, spacing, edge_order=edge_order)
              for r in range(width)]
    weights = []
    for k in range(width):
        residue = (start + k) % width
        w = numpy.zeros(n)
        for r in range(width):
            w = numpy.where(residue == r, probes[r], w)
        weights.append(w)
    return start, weights


def _gradient_axis_adjoint(g, n, spacing, edge_order, axis):
    start, weights = _stencil(n, spacing, edge_order)
    gm = numpy.moveaxis(numpy.asarray(g) * 1.0, axis, -1)
    out = numpy.zeros(gm.shape)
    for k, w in enumerate(weights):
        c = gm * w
        if n >= 3:
            # the interior rows read columns i - 1 + k; the two edge rows their own
            out[..., k:k + n - 2] += c[..., 1:n - 1]
            out[..., k] += c[..., 0]
            out[..., n - 3 + k] += c[..., n - 1]
        else:
            for i in range(n):
                out[..., int(start[i]) + k] += c[..., i]
    return numpy.moveaxis(out, -1, axis)


def gradient_grad(g, f, varargs, axis=None, edge_order=1):
    """The gradient of `numpy.gradient(f, *varargs, axis=, edge_order=)` with respect to
    f: the band of each axis transposed (g is one cotangent, or one per axis)."""
    axes, spacing = _gradient_axes(f, varargs, axis)
    gs = [g] if len(axes) == 1 else list(g)
    out = numpy.zeros(numpy.shape(f))
    for gi, ax, h in zip(gs, axes, spacing):
        if gi is None or _is_zero(gi):
            continue
        out = out + _gradient_axis_adjoint(gi, numpy.shape(f)[ax], h, edge_order, ax)
    return _numpy_reshape_as(out, f)


def gradient_tangent(t, f, varargs, axis=None, edge_order=1):
    """The tangent of numpy.gradient (linear in f): numpy.gradient of the tangent."""
    if _is_zero(t):
        t = numpy.zeros(numpy.shape(f))
    return numpy.gradient(t, *varargs, axis=axis, edge_order=edge_order)


def gradient_spacing_refused(varargs):
    """numpy.gradient's derivative with respect to its spacing is not provided: refused
    where it would be needed."""
    from tangent._errors import _at_call_site
    raise NotDifferentiated(_at_call_site(
        "tangent: the derivative of numpy.gradient with respect to its spacing (varargs) "
        "is not provided",
        "differentiate with respect to f; pass the spacing as a constant"))


def _trapezoid_widths(y, x, dx, axis):
    """The widths of trapezoid's intervals along `axis` (broadcastable against the
    pairs of y), as NumPy computes them."""
    if x is None:
        return dx
    x = numpy.asarray(x)
    if x.ndim == 1:
        d = numpy.diff(x)
        shape = [1] * numpy.ndim(y)
        shape[axis] = d.shape[0]
        return numpy.reshape(d, tuple(shape))
    return numpy.diff(x, axis=axis)


def _pair_sums(y, axis):
    """(y_i + y_(i+1)) / 2 along `axis`."""
    y = numpy.asarray(y) * 1.0
    n = y.shape[axis]
    lo = numpy.take(y, numpy.arange(n - 1), axis=axis)
    hi = numpy.take(y, numpy.arange(1, n), axis=axis)
    return (lo + hi) / 2.0


def trapezoid_grad(g, y, x=None, dx=1.0, axis=-1, which=0):
    """The gradient of `numpy.trapezoid(y, x, dx, axis)` with respect to y (which=0), x
    (1) or dx (2). Linear in g and in y, and in x's differences."""
    axis = axis % numpy.ndim(y)
    gk = numpy.expand_dims(numpy.asarray(g) * 1.0, axis)
    tg = _tg()
    if which == 0:
        pair_shape = list(numpy.shape(y))
        pair_shape[axis] -= 1
        w = numpy.broadcast_to(gk * _trapezoid_widths(y, x, dx, axis) / 2.0,
                               tuple(pair_shape))
        pad_lo = [(0, 0)] * w.ndim
        pad_hi = [(0, 0)] * w.ndim
        pad_lo[axis] = (1, 0)
        pad_hi[axis] = (0, 1)
        out = numpy.pad(w, pad_hi) + numpy.pad(w, pad_lo)
        return tg.unbroadcast(out, y)
    pairs = gk * _pair_sums(y, axis)
    if which == 2:
        return tg.unbroadcast(numpy.sum(pairs), dx)
    gx = _diff_adjoint(pairs, 1, axis)
    x_arr = numpy.asarray(x)
    if x_arr.ndim == 1:
        others = tuple(a for a in range(gx.ndim) if a != axis)
        return _numpy_reshape_as(numpy.sum(gx, axis=others), x)
    return tg.unbroadcast(gx, x)


def trapezoid_tangent(ty, tx, tdx, y, x=None, dx=1.0, axis=-1):
    """The tangent of trapezoid: linear in y, and in x (or dx)."""
    out = 0.0
    if not _is_zero(ty):
        out = out + numpy.trapezoid(ty, x, dx, axis)
    if x is not None and not _is_zero(tx):
        out = out + numpy.trapezoid(y, tx, 1.0, axis)
    if x is None and not _is_zero(tdx):
        out = out + numpy.trapezoid(y, None, tdx, axis)
    return out


# ------------------------------------------------------------------------ unique


def _unique_flags(return_index, return_inverse, return_counts):
    return bool(return_index or return_inverse or return_counts)


def _unique_index(ar, axis, equal_nan):
    """Where unique's values come from: the first element (or slice along `axis`) that
    holds each."""
    return numpy.unique(ar, return_index=True, axis=axis, equal_nan=equal_nan)[1]


def _unique_take(v, index, axis):
    if axis is None:
        return numpy.ravel(v)[index]
    return numpy.take(v, index, axis)


def unique_grad(g, ar, return_index=False, return_inverse=False, return_counts=False,
                axis=None, equal_nan=True):
    """unique's values are copies of elements of `ar`, a gather (the first of equal
    elements takes the gradient; its indices, inverse and counts are integers)."""
    if _unique_flags(return_index, return_inverse, return_counts):
        g = g[0]
    if g is None or _is_zero(g):
        return _numpy_reshape_as(numpy.zeros(numpy.shape(ar)), ar)
    return gather_grad(g, ar, _unique_take(element_labels(ar), _unique_index(ar, axis, equal_nan),
                                           axis))


def unique_tangent(t, ar, return_index=False, return_inverse=False, return_counts=False,
                   axis=None, equal_nan=True):
    t = numpy.zeros(numpy.shape(ar)) if _is_zero(t) else numpy.asarray(t)
    values = _unique_take(t, _unique_index(ar, axis, equal_nan), axis)
    if not _unique_flags(return_index, return_inverse, return_counts):
        return values
    return (values,) + (0.0,) * (int(bool(return_index)) + int(bool(return_inverse))
                                 + int(bool(return_counts)))


# ------------------------------------------------------ gathers from several sources


def sources_labels(sources):
    """Labels for several sources of one gather (meshgrid, broadcast_arrays): source k
    takes the range after source k - 1's, so each output element names one element of
    one source."""
    out, start = [], 1
    for x in sources:
        n = int(numpy.size(x))
        out.append(numpy.reshape(numpy.arange(start, start + n), numpy.shape(x)))
        start += n
    return out


def gather_grads(g, sources, picked):
    """The gradients of every source of a gather with several outputs (`g` and `picked`
    lists alike; a zero or None cotangent adds nothing)."""
    sizes = [int(numpy.size(x)) for x in sources]
    total = sum(sizes)
    flat = numpy.zeros(total)
    for gk, pk in zip(g, picked):
        if gk is None or _is_zero(gk):
            continue
        labels = numpy.ravel(numpy.asarray(pk)) - 1
        gk = numpy.ravel(numpy.broadcast_to(numpy.asarray(gk) * 1.0, numpy.shape(pk)))
        flat = flat + numpy.bincount(labels, weights=gk, minlength=total)
    out, start = [], 0
    for x, n in zip(sources, sizes):
        out.append(_numpy_reshape_as(numpy.reshape(flat[start:start + n], numpy.shape(x)), x))
        start += n
    return tuple(out)


def meshgrid_labels(xi, indexing="xy", sparse=False):
    return numpy.meshgrid(*sources_labels(xi), indexing=indexing, sparse=sparse)


def broadcast_labels(args):
    return numpy.broadcast_arrays(*sources_labels(args))


def _tangents_or_zeros(ts, xs):
    if _is_zero(ts):
        ts = [0.0] * len(xs)
    return [numpy.zeros(numpy.shape(x)) if t is None or _is_zero(t) else t
            for t, x in zip(ts, xs)]


def meshgrid_tangent(ts, xi, indexing="xy", sparse=False):
    return numpy.meshgrid(*_tangents_or_zeros(ts, xi), indexing=indexing, sparse=sparse)


def broadcast_tangent(ts, args):
    return numpy.broadcast_arrays(*_tangents_or_zeros(ts, args))


def unstack_grad(g, x, axis=0):
    """The gradient of `unstack(x, axis)`: the pieces' cotangents stacked back (zeros
    for a piece with none)."""
    shape = list(numpy.shape(x))
    del shape[axis % len(shape)]
    pieces = [numpy.zeros(tuple(shape)) if p is None or _is_zero(p) else numpy.asarray(p) * 1.0
              for p in g]
    return _numpy_reshape_as(numpy.stack(pieces, axis), x)


def partition_order(a, kth, axis=-1):
    """Where partition's output elements come from (argpartition; flat for axis=None)."""
    if axis is None:
        return numpy.argpartition(numpy.ravel(a), kth)
    return numpy.argpartition(a, kth, axis)


def partition_picked(labels, order, axis=-1):
    if axis is None:
        return numpy.ravel(labels)[order]
    return numpy.take_along_axis(labels, order, axis)


def _as_list(v):
    return list(v) if isinstance(v, (list, tuple)) else [v[i] for i in range(len(v))]


def choose_grad(g, a, choices, mode="raise"):
    """choose copies each output element from one of the choices (a gather from several
    sources): the choices' gradients, a list (or an array for an array of choices)."""
    items = _as_list(choices)
    picked = numpy.choose(a, sources_labels(items), mode=mode)
    grads = list(gather_grads([g], items, [picked]))
    if isinstance(choices, (list, tuple)):
        return grads
    return _numpy_reshape_as(numpy.stack(grads), choices)


def _zeros_for(ts, items):
    return _tangents_or_zeros(ts if not _is_zero(ts) else 0.0, items)


def choose_tangent(t, a, choices, mode="raise"):
    return numpy.choose(a, _zeros_for(t, _as_list(choices)), mode=mode)


def select_grad(g, condlist, choicelist, default=0, which=0):
    """select copies each output element from one choice or the default: the gradients
    of the choices (which=0, a list) or of the default (1)."""
    items = _as_list(choicelist) + [default]
    labels = sources_labels(items)
    picked = numpy.select(condlist, labels[:-1], default=labels[-1])
    grads = list(gather_grads([g], items, [picked]))
    return grads[:-1] if which == 0 else grads[-1]


def select_tangent(ts, tdefault, condlist, choicelist, default=0):
    items = _as_list(choicelist)
    td = numpy.zeros(numpy.shape(default)) if _is_zero(tdefault) else tdefault
    return numpy.select(condlist, _zeros_for(ts, items), default=td)


def _unique_result_index(x, values):
    """Where each of unique's result values first occurs in x (flat positions): read by
    value, so the result's own order (sorted or not) does not matter."""
    sorted_values, first = numpy.unique(x, return_index=True)
    return first[numpy.searchsorted(sorted_values, numpy.ravel(values))]


def unique_result_grad(g, x, y, structured=False):
    """The gradient of x from unique_values (y an array) or unique_counts/inverse/all
    (`structured`: y's first field holds the values)."""
    values = y[0] if structured else y
    gv = g[0] if structured else g
    if gv is None or _is_zero(gv):
        return _numpy_reshape_as(numpy.zeros(numpy.shape(x)), x)
    index = _unique_result_index(x, values)
    return gather_grad(numpy.ravel(gv), x, numpy.ravel(element_labels(x))[index])


def unique_result_tangent(t, x, y, structured=False):
    values = y[0] if structured else y
    t = numpy.zeros(numpy.shape(x)) if _is_zero(t) else numpy.asarray(t)
    tv = numpy.reshape(numpy.ravel(t)[_unique_result_index(x, values)], numpy.shape(values))
    if not structured:
        return tv
    parts = (tv,) + (0.0,) * (len(y) - 1)
    # the tangent of a record is a record of its type (`.values` reads it)
    return type(y)(*parts) if hasattr(y, "_fields") else parts


def ediff1d_grad(g, ary, to_end=None, to_begin=None, which=0):
    """ediff1d = to_begin, then the differences of ary flattened, then to_end: the
    gradient of ary (which=0), to_end (1) or to_begin (2)."""
    g = numpy.ravel(numpy.asarray(g) * 1.0)
    nb = 0 if to_begin is None else int(numpy.size(to_begin))
    ne = 0 if to_end is None else int(numpy.size(to_end))
    if which == 2:
        return _numpy_reshape_as(numpy.reshape(g[:nb], numpy.shape(to_begin)), to_begin)
    if which == 1:
        return _numpy_reshape_as(numpy.reshape(g[g.shape[0] - ne:], numpy.shape(to_end)), to_end)
    middle = g[nb:g.shape[0] - ne]
    return _numpy_reshape_as(numpy.reshape(_diff_adjoint(middle, 1, 0), numpy.shape(ary)), ary)


def ediff1d_tangent(ta, te, tb, ary, to_end=None, to_begin=None):
    ta = numpy.zeros(numpy.shape(ary)) if _is_zero(ta) else ta
    te = None if to_end is None else (numpy.zeros(numpy.shape(to_end)) if _is_zero(te) else te)
    tb = None if to_begin is None else (
        numpy.zeros(numpy.shape(to_begin)) if _is_zero(tb) else tb)
    return numpy.ediff1d(ta, to_end=te, to_begin=tb)
