"""`import tangent` and differentiating NumPy code never import tensorflow, though it is
installed (its import takes seconds); the first TensorFlow value loads the backend
(tangent._tensorflow)."""
import os
import sys

import numpy as np

import tangent

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def f(x):
    return np.sum(np.tanh(x) * x)


g = tangent.grad(f)(np.ones(3))
print("numpy gradient:", bool(np.allclose(g, np.tanh(1.0) + 1.0 - np.tanh(1.0) ** 2)))
print("tensorflow imported after numpy use:", "tensorflow" in sys.modules)
print("keras imported after numpy use:", "keras" in sys.modules)
print("tensorflow runtime loaded after numpy use:",
      sys.modules["tangent._tensorflow"].loaded())

import tensorflow as tf  # noqa: E402


def h(x):
    return tf.reduce_sum(tf.tanh(x) * x)


x = tf.ones(3, dtype=tf.float64)
gt = tangent.grad(h)(x)
want = tf.tanh(x) + x * (1 - tf.tanh(x) ** 2)
print("tensorflow gradient:", type(gt).__name__, gt.dtype.name,
      bool(np.allclose(gt.numpy(), want.numpy(), rtol=1e-12)))
print("tensorflow runtime loaded after tensorflow use:",
      sys.modules["tangent._tensorflow"].loaded())
print("backend_status:", tangent.backend_status()["tensorflow"])
