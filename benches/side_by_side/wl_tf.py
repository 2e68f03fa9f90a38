"""The workloads of benches/workloads.py written in TensorFlow (what GradientTape, eager
and under tf.function, and tangent's TensorFlow backend read)."""
import tensorflow as tf


def mlp_loss(w1, w2, w3, x):
    h1 = tf.tanh(x @ w1)
    h2 = tf.tanh(h1 @ w2)
    out = tf.tanh(h2 @ w3)
    return tf.reduce_sum(out * out)


def recurrence_steps(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = tf.sin(s) * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    h = x
    for i in range(n):
        h = tf.tanh(h * 0.9 + x * 0.1)
    return tf.reduce_sum(h * h)

