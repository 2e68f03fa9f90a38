"""Linear regression with a softplus feature in TensorFlow 2, trained with tangent's
gradient; every step's gradient is checked against tf.GradientTape.

    tangent run examples/tf_regression.py      (runs in CPython: it imports tensorflow)
"""
import os

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # noqa: E402

import tangent  # noqa: E402


def loss(w, b, x, y):
    pred = tf.matmul(x, w) + b
    pred = pred + 0.1 * tf.nn.softplus(pred)
    return tf.reduce_mean(tf.square(pred - y))


tf.random.set_seed(0)
x = tf.random.normal((64, 3))                 # float32, as models use
true_w = tf.constant([[1.5], [-2.0], [0.5]])
y = tf.matmul(x, true_w) + 0.3
w, b = tf.zeros((3, 1)), tf.zeros((1,))
dloss = tangent.grad(loss, wrt=(0, 1))        # gradients in float32: the seed follows

print(dloss.__tangent_source__)
ok = True
for step in range(40):
    dw, db = dloss(w, b, x, y)
    with tf.GradientTape() as tape:
        tape.watch([w, b])
        value = loss(w, b, x, y)
    rw, rb = tape.gradient(value, [w, b])
    ok = ok and bool(tf.reduce_all(tf.abs(dw - rw) <= 1e-5 + 1e-4 * tf.abs(rw))) \
        and bool(tf.reduce_all(tf.abs(db - rb) <= 1e-5 + 1e-4 * tf.abs(rb)))
    w, b = w - 0.2 * dw, b - 0.2 * db
    if step % 10 == 0:
        print("step %2d  loss %.5f" % (step, float(value)))
print("final loss %.5f, w %s" % (float(loss(w, b, x, y)), w.numpy().ravel().round(2)))
print("gradients match tf.GradientTape: %s" % ok)
print("gradient dtype: %s" % dw.dtype.name)
