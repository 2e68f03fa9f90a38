"""`import tangent` and differentiating NumPy code never import keras, though it is
installed; the first keras.ops call met in a differentiated function loads the Keras
rules' helpers (tangent._keras) and, through the backend's tensors, that backend's
runtime. Run with KERAS_BACKEND set."""
import os
import sys

import numpy as np

import tangent

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


def f(x):
    return np.sum(np.tanh(x) * x)


g = tangent.grad(f)(np.ones(3))
print("numpy gradient:", bool(np.allclose(g, np.tanh(1.0) + 1.0 - np.tanh(1.0) ** 2)))
print("keras imported after numpy use:", "keras" in sys.modules)
print("keras runtime loaded after numpy use:", sys.modules["tangent._keras"].loaded())

if os.environ.get("KERAS_BACKEND") == "jax":
    import jax
    jax.config.update("jax_enable_x64", True)
import keras  # noqa: E402
from keras import ops as kops  # noqa: E402


def h(x):
    target = kops.full_like(x, 0.25)
    return kops.sum(kops.binary_crossentropy(target, kops.sigmoid(x)) + kops.tanh(x) * x)


x = kops.convert_to_tensor([0.5, -1.0, 2.0], dtype="float64")
gk = tangent.grad(h)(x)
s = kops.sigmoid(x)
want = s - 0.25 + kops.tanh(x) + x * (1 - kops.tanh(x) ** 2)
print("keras gradient:", type(gk).__module__.split(".")[0],
      keras.backend.standardize_dtype(gk.dtype),
      bool(np.allclose(kops.convert_to_numpy(gk), kops.convert_to_numpy(want), rtol=1e-7)))
print("keras runtime loaded after keras use:", sys.modules["tangent._keras"].loaded())
print("backend_status:", tangent.backend_status()["keras"])
