"""`import tangent` and differentiating NumPy code never import tinygrad, though it is
installed; the first tinygrad value loads the backend (tangent._tinygrad)."""
import sys

import numpy as np

import tangent


def f(x):
    return np.sum(np.tanh(x) * x)


g = tangent.grad(f)(np.ones(3))
print("numpy gradient:", bool(np.allclose(g, np.tanh(1.0) + 1.0 - np.tanh(1.0) ** 2)))
print("tinygrad imported after numpy use:", "tinygrad" in sys.modules)
print("tinygrad runtime loaded after numpy use:", sys.modules["tangent._tinygrad"].loaded())

from tinygrad import Tensor, dtypes  # noqa: E402


def h(x):
    return (x.tanh() * x).sum()


x = Tensor([1.0, 1.0, 1.0], dtype=dtypes.float64)
gt = tangent.grad(h)(x)
t = np.tanh(1.0)
print("tinygrad gradient:", type(gt).__name__, gt.dtype.name,
      bool(np.allclose(gt.numpy(), t + 1.0 - t * t)))
print("tinygrad runtime loaded after tinygrad use:", sys.modules["tangent._tinygrad"].loaded())
print("backend_status:", tangent.backend_status()["tinygrad"].split(" (")[0])
