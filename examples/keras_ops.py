"""A small classifier written with Keras 3's backend-neutral `keras.ops`, trained with
tangent's gradient on whichever backend KERAS_BACKEND selects (jax, tensorflow, torch);
every step's gradient is checked against that backend's own autodiff.

    KERAS_BACKEND=jax tangent run examples/keras_ops.py   (runs in CPython: it imports keras)
"""
import os

os.environ.setdefault("KERAS_BACKEND", "jax")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import keras  # noqa: E402
import numpy as np  # noqa: E402
from keras import ops  # noqa: E402

import tangent  # noqa: E402


def loss(w1, w2, x, labels):
    h = ops.gelu(ops.matmul(x, w1))
    logits = ops.matmul(h, w2)
    ce = ops.sparse_categorical_crossentropy(labels, logits, from_logits=True)
    return ops.mean(ce) + 1e-3 * ops.sum(ops.square(w1))


def backend_gradient(w1, w2, x, labels):
    """The gradient of `loss` by the backend's own autodiff: the reference."""
    backend = keras.backend.backend()
    if backend == "jax":
        import jax
        return jax.grad(loss, argnums=(0, 1))(w1, w2, x, labels)
    if backend == "tensorflow":
        import tensorflow as tf
        with tf.GradientTape() as tape:
            tape.watch([w1, w2])
            value = loss(w1, w2, x, labels)
        return tape.gradient(value, [w1, w2])
    import torch
    a, b = w1.detach().requires_grad_(True), w2.detach().requires_grad_(True)
    return torch.autograd.grad(loss(a, b, x, labels), (a, b))


rng = np.random.default_rng(0)
x_np = rng.standard_normal((64, 4)).astype("float32")
labels_np = (x_np[:, 0] + x_np[:, 1] > 0).astype("int32") + (x_np[:, 2] > 1.0)
x, labels = ops.convert_to_tensor(x_np), ops.convert_to_tensor(labels_np)
w1 = ops.convert_to_tensor(0.3 * rng.standard_normal((4, 16)).astype("float32"))
w2 = ops.convert_to_tensor(0.3 * rng.standard_normal((16, 3)).astype("float32"))
dloss = tangent.grad(loss, wrt=(0, 1))   # float32 gradients: the seed follows the loss

print(dloss.__tangent_source__)
ok = True
for step in range(30):
    g1, g2 = dloss(w1, w2, x, labels)
    r1, r2 = backend_gradient(w1, w2, x, labels)
    for g, r in ((g1, r1), (g2, r2)):
        g, r = ops.convert_to_numpy(g), ops.convert_to_numpy(r)
        ok = ok and bool(np.all(np.abs(g - r) <= 1e-6 + 1e-4 * np.abs(r)))
    w1, w2 = w1 - 0.5 * g1, w2 - 0.5 * g2
    if step % 10 == 0:
        print("step %2d  loss %.5f" % (step, float(loss(w1, w2, x, labels))))
print("final loss %.5f" % float(loss(w1, w2, x, labels)))
print("backend: %s, gradient type: %s %s" % (keras.backend.backend(), type(g1).__name__,
                                              keras.backend.standardize_dtype(g1.dtype)))
print("gradients match the backend's autodiff: %s" % ok)
