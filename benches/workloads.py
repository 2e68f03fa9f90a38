"""Benchmark workloads shared by the criterion benches and the comparison script
(definitions from the design brief, so results compare)."""
import math
import numpy as np


def mlp_loss(w1, w2, w3, x):
    """MLP loss: X 64x128, three 128x128 weights, tanh activations."""
    h1 = np.tanh(x @ w1)
    h2 = np.tanh(h1 @ w2)
    out = np.tanh(h2 @ w3)
    return np.sum(out * out)


def recurrence(x):
    """Scalar recurrence: 1000 steps, a branch on the running value each step."""
    s = x
    for i in range(1000):
        if s > 0.5:
            s = math.sin(s) * x
        else:
            s = s * s + x
    return s
