"""SciPy special functions through tangent: a negative log-likelihood with gammaln,
expit and logsumexp. Runs in CPython with SciPy when one is found, else in the embedded
interpreter with its SciPy subset (`tangent run --embedded` forces that).

Run with:  tangent run examples/scipy_special.py
"""
import numpy as np
import tangent
from scipy.special import expit, gammaln, logsumexp


def nll(theta, counts):
    # Poisson rates exp(theta) plus a logistic and a log-sum-exp penalty
    rate = np.exp(theta)
    poisson = np.sum(rate - counts * theta + gammaln(counts + 1.0))
    return poisson + np.sum(expit(theta)) + logsumexp(theta)


theta = np.array([0.2, -0.5, 1.0])
counts = np.array([1.0, 0.0, 3.0])
g = tangent.grad(nll)(theta, counts)
# analytic: exp(theta) - counts + expit'(theta) + softmax(theta)
s = expit(theta)
exact = np.exp(theta) - counts + s * (1.0 - s) + np.exp(theta - logsumexp(theta))
print("gradient:", g)
print("matches the analytic gradient:", bool(np.max(np.abs(g - exact)) < 1e-12))
