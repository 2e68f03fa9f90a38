"""`import tangent` and differentiating NumPy code never import torch, though torch is
installed; the first torch value loads the backend (tangent._torch)."""
import sys

import numpy as np

import tangent


def f(x):
    return np.sum(np.tanh(x) * x)


g = tangent.grad(f)(np.ones(3))
print("numpy gradient:", bool(np.allclose(g, np.tanh(1.0) + 1.0 - np.tanh(1.0) ** 2)))
print("torch imported after numpy use:", "torch" in sys.modules)
print("torch runtime loaded after numpy use:", sys.modules["tangent._torch"].loaded())

import torch  # noqa: E402


def h(x):
    return torch.sum(torch.tanh(x) * x)


x = torch.ones(3, dtype=torch.float64)
gt = tangent.grad(h)(x)
print("torch gradient:", type(gt).__name__, gt.dtype,
      bool(torch.allclose(gt, torch.tanh(x) + x * (1 - torch.tanh(x) ** 2))))
print("torch runtime loaded after torch use:", sys.modules["tangent._torch"].loaded())
print("backend_status:", tangent.backend_status()["torch"])
