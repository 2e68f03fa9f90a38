"""The Keras 3 runtime: the helpers of backends/keras.py (`tangent.keras_*`).

Keras has no tensor type of its own: `keras.ops` takes and returns the tensors of the
backend `KERAS_BACKEND` selects (jax, tensorflow, torch), and those are registered by
that backend's runtime (tangent._jax, _tensorflow, _torch) the first time one is met.
So this module holds `keras.Variable`'s registration and what the keras.ops rules need
beyond keras.ops itself, written with keras.ops so it runs, and traces, on every
backend.

Installed with the other shims but inert until `load()`, which imports keras and
registers `keras.Variable` (read as the tensor it holds): `tangent._registry` calls it
when it first meets a keras value (a Variable), `tangent.__getattr__` when generated
code calls a `tangent.keras_*` helper, `backend_status()` when asked. `import tangent`
never imports keras.
"""
keras = None


def loaded():
    return keras is not None


def load():
    """Imports keras and registers `keras.Variable`; returns this module (its
    `keras_*` helpers)."""
    global keras
    if keras is None:
        import keras as keras_
        keras = keras_
        _register_variables()
    import sys
    return sys.modules[__name__]


def status_detail():
    """For backend_status(): which framework keras.ops runs on (KERAS_BACKEND)."""
    return "backend: %s" % load().keras.backend.backend()


def _register_variables():
    """A `keras.Variable` is read as the backend tensor it holds (`v.value`): every
    helper gets that tensor (`_registry.register_unwrap`), and its type the backend
    tensor's namespace. (Unregistered, tensorflow's helpers took one for a number.)"""
    from keras.src.backend.common.variables import Variable
    from tangent import _registry
    zero = keras.ops.convert_to_tensor(0.0)
    namespace = _registry.namespace_of(zero)  # loads the backend's runtime
    _registry.register_unwrap(Variable, lambda v: v.value)
    for kind in list(_registry._IMPLS):
        fn, _, state = _registry._lookup(kind, type(zero))
        if state == _registry._FOUND:
            _registry.register_helper(kind, Variable, fn)
    _registry.register_namespace(Variable, namespace)


def _dtype(x):
    return keras.backend.standardize_dtype(x.dtype)


def _refuse(why, fix):
    from tangent._errors import TangentError, _at_call_site
    raise TangentError(_at_call_site(why, fix))


def keras_same_rank(y_true, y_pred):
    """keras.losses squeeze or expand a target and an output whose ranks differ by one;
    tangent differentiates those losses for equal ranks only."""
    a, b = len(keras.ops.shape(y_true)), len(keras.ops.shape(y_pred))
    if a != b:
        _refuse("this keras loss gets a target of rank %d and an output of rank %d, which "
                "keras squeezes or expands to one rank" % (a, b),
                "reshape the target like the output (keras.ops.reshape(y_true, "
                "keras.ops.shape(y_pred)))")


def keras_relu_defaults(negative_slope, max_value, threshold):
    """keras.activations.relu is differentiated with its defaults."""
    if negative_slope != 0.0 or max_value is not None or threshold != 0.0:
        _refuse("keras.activations.relu with negative_slope, max_value or threshold is "
                "not supported", "use keras.ops.leaky_relu, keras.ops.relu6 or "
                "keras.ops.clip, which have rules")


def keras_classes(t):
    """The number of classes (the last axis) as a float."""
    return float(keras.ops.shape(t)[-1])


def keras_sparse_labels(y_true, y_pred, ignore_class, axis):
    """sparse_categorical_crossentropy's labels: a trailing axis of length 1 dropped, as
    keras drops it; ignore_class is refused."""
    if ignore_class is not None:
        _refuse("sparse_categorical_crossentropy with ignore_class is not supported",
                "mask the loss with keras.ops.where after computing it")
    shape = keras.ops.shape(y_true)
    if len(shape) == len(keras.ops.shape(y_pred)) and shape[axis] == 1:
        return keras.ops.squeeze(y_true, axis=axis)
    return y_true


def keras_hinge_slope(t):
    """2.0 when the labels are all 0 or 1 (hinge losses map them to -1 and 1), else 1.0."""
    binary = keras.ops.all(keras.ops.logical_or(keras.ops.equal(t, 0), keras.ops.equal(t, 1)))
    return 2.0 if bool(keras.ops.convert_to_numpy(binary)) else 1.0


def keras_hinge_labels(t):
    """Labels in {0, 1} as {-1, 1}, as keras's hinge losses map them; others as given."""
    return 2.0 * t - 1.0 if keras_hinge_slope(t) == 2.0 else t


def keras_cast_like(g, like):
    """`g` in the floating dtype of `like` (a tensor; a Python number keeps `g`)."""
    if not hasattr(like, "dtype") or not hasattr(g, "dtype"):
        return g
    dtype = _dtype(like)
    return g if _dtype(g) == dtype else keras.ops.cast(g, dtype)


def _tensorflow_logits_behind(output, op_type):
    """Does keras on tensorflow compute a loss of `output` from the logits behind it
    (an output of keras's own sigmoid/softmax, or of that op inside a tf.function)?
    The same test as keras's tensorflow backend (`_get_logits`)."""
    if keras.backend.backend() != "tensorflow":
        return False
    if hasattr(output, "_keras_logits"):
        return True
    import tensorflow as tf
    return (hasattr(output, "op")
            and not isinstance(output, (tf.__internal__.EagerTensor, tf.Variable))
            and output.op.type == op_type)


def keras_logits(output, op_type):
    """`output`, taken as logits (from_logits=True); refused for an output of keras's
    sigmoid/softmax on tensorflow, where keras (with a warning) computes the loss of the
    logits behind it instead: another function than the one written."""
    if _tensorflow_logits_behind(output, op_type):
        from tangent._errors import NotDifferentiated, _at_call_site
        raise NotDifferentiated(_at_call_site(
            "keras on tensorflow computes this loss from the logits behind `output` (an "
            "output of its %s), not from `output` with from_logits=True" % op_type.lower(),
            "pass the logits themselves with from_logits=True, or the %s's output with "
            "from_logits=False" % op_type.lower()))
    return output


def keras_epsilon(output, op_type):
    """The clip bound keras applies to the probabilities `output`: keras.config.epsilon(),
    or 0 (no clip) where tensorflow computes the loss from the logits behind them."""
    return 0.0 if _tensorflow_logits_behind(output, op_type) else keras.config.epsilon()


def keras_normalizes(output):
    """Does sparse_categorical_crossentropy divide probabilities by their sum (jax,
    torch), rather than clip them and take the softmax of their log (tensorflow)?"""
    return keras.backend.backend() != "tensorflow"


def keras_clip_mask(p, eps):
    """1 where clipping `p` to [eps, 1 - eps] leaves it unchanged, 0 where it clips, in
    p's dtype (all ones for eps = 0: nothing is clipped)."""
    if eps == 0.0:
        return keras.ops.ones_like(p)
    return keras.ops.cast(keras.ops.logical_and(p > eps, p < 1.0 - eps), _dtype(p))


def keras_slope(v):
    """A negative_slope as the backend computes with it: tensorflow's leaky_relu takes
    its alpha as a float32 attribute, also for float64 tensors."""
    if keras.backend.backend() == "tensorflow" and isinstance(v, float):
        import numpy
        return float(numpy.float32(v))
    return v


def keras_norm_check(y, ord):
    """`y`, the norm, when `ord` is one keras.ops.norm's rule covers (None: the 2-norm
    of vectors, Frobenius of matrices); other orders are refused by name."""
    if ord is not None and ord != "fro":
        from tangent._errors import NotDifferentiated, _at_call_site
        raise NotDifferentiated(_at_call_site(
            "keras.ops.norm: ord=%r has no derivative rule here" % (ord,),
            "use ord=None (2-norm, Frobenius), or write the norm with keras.ops"))
    return y


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
