"""The Keras 3 runtime: the helpers of backends/keras.py (`tangent.keras_*`).

Keras has no tensor type of its own: `keras.ops` takes and returns the tensors of the
backend `KERAS_BACKEND` selects (jax, tensorflow, torch), and those are registered by
that backend's runtime (tangent._jax, _tensorflow, _torch) the first time one is met.
So this module only holds what the keras.ops rules need beyond keras.ops itself,
written with keras.ops so it runs, and traces, on every backend.

Installed with the other shims but inert until `load()`, which imports keras:
`tangent.__getattr__` calls it when generated code calls a `tangent.keras_*` helper,
`backend_status()` when asked. `import tangent` never imports keras.
"""
keras = None


def loaded():
    return keras is not None


def load():
    """Imports keras; returns this module (its `keras_*` helpers)."""
    global keras
    if keras is None:
        import keras as keras_
        keras = keras_
    import sys
    return sys.modules[__name__]


def _dtype(x):
    return keras.backend.standardize_dtype(x.dtype)


def keras_cast_like(g, like):
    """`g` in the floating dtype of `like` (a tensor; a Python number keeps `g`)."""
    if not hasattr(like, "dtype") or not hasattr(g, "dtype"):
        return g
    dtype = _dtype(like)
    return g if _dtype(g) == dtype else keras.ops.cast(g, dtype)


def keras_clip_mask(p):
    """1 where keras's probability clip leaves `p` unchanged, 0 where it clips, in p's
    dtype."""
    eps = keras.config.epsilon()
    return keras.ops.cast(keras.ops.logical_and(p > eps, p < 1.0 - eps), _dtype(p))


def keras_one_hot(target, output, axis):
    """The integer class indices `target` as one-hot rows along `axis` of `output`, in
    output's dtype (what sparse_categorical_crossentropy compares with)."""
    n = keras.ops.shape(output)[axis]
    return keras.ops.one_hot(target, n, axis=axis, dtype=_dtype(output))


def keras_take_grad(g, x, indices, axis):
    """The gradient of keras.ops.take(x, indices, axis) for x: each slice of `g` added
    back at its index (repeated indices add up), as a contraction with the indices'
    one-hot rows; `axis=None` takes from the flattened x."""
    indices = keras.ops.convert_to_tensor(indices)
    shape = tuple(keras.ops.shape(x))
    if axis is None:
        n = 1
        for s in shape:
            n *= s
        hot = keras.ops.one_hot(keras.ops.reshape(indices, (-1,)), n, dtype=_dtype(g))
        return keras.ops.reshape(keras.ops.matmul(keras.ops.reshape(g, (-1,)), hot), shape)
    ndim = len(shape)
    axis = axis + ndim if axis < 0 else axis
    k = len(keras.ops.shape(indices))
    hot = keras.ops.one_hot(indices, shape[axis], dtype=_dtype(g))
    # g: x.shape[:axis] + indices.shape + x.shape[axis+1:]; hot: indices.shape + (n,)
    summed = keras.ops.tensordot(g, hot, axes=(list(range(axis, axis + k)), list(range(k))))
    return keras.ops.moveaxis(summed, -1, axis)
