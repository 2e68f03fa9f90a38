"""The SciPy subset: values at ordinary points, poles and infinities (one line per value,
compared between the embedded shim and the real SciPy by tests/bridge.rs), then
gradients through the common import forms against central differences."""
import math
import numpy as np
import scipy.linalg as sla
from scipy import special
from scipy.special import expit, gammaln, logsumexp, xlogy

inf, nan = float("inf"), float("nan")
points = [0.3, 1.0, 2.5, 7.25, 31.0, 170.5, -0.5, -1.5, -2.5, -30.25, 0.0, -0.0, -1.0, -3.0,
          1e-300, inf, -inf, nan]
for name in ("erf", "erfc", "gammaln", "gamma", "digamma"):
    f = getattr(special, name)
    for x in points:
        print(name, repr(x), repr(float(f(x))))
for n in (0, 1, 2, 3):
    for x in points:
        print("polygamma%d" % n, repr(x), repr(float(special.polygamma(n, x))))
for x in (-1000.0, -30.0, -1.0, 0.0, 0.5, 40.0, 1000.0):
    print("expit", repr(x), repr(float(expit(x))))
for p in (0.0, 1e-10, 0.25, 0.5, 0.999, 1.0):
    print("logit", repr(p), repr(float(special.logit(p))))
for x, y in ((0.0, 0.0), (0.0, 2.0), (2.0, 3.0), (1.5, 0.25), (-2.0, 5.0)):
    print("xlogy", repr((x, y)), repr(float(xlogy(x, y))))
a = np.array([[1.0, 2.0, 3.0], [-1000.0, 0.5, 1000.0]])
print("logsumexp", repr(float(logsumexp(a))))
print("logsumexp0", [repr(float(v)) for v in logsumexp(a, axis=0)])
print("logsumexp1k", [repr(float(v)) for v in np.ravel(logsumexp(a, axis=1, keepdims=True))])
print("logsumexp-inf", repr(float(logsumexp(np.array([-inf, -inf])))))
arr = special.gammaln(np.array([[0.5, 2.0], [3.5, 10.0]]))
print("array", arr.shape, [repr(float(v)) for v in np.ravel(arr)])
m = np.array([[4.0, 1.0], [2.0, 3.0]])
print("inv", [repr(float(v)) for v in np.ravel(sla.inv(m))])
print("solve", [repr(float(v)) for v in sla.solve(m, np.array([1.0, 2.0]))])

import tangent


def loss(w, x, k):
    z = x @ w
    p = expit(z)
    nll = -np.sum(xlogy(k, p) + xlogy(1.0 - k, 1.0 - p))
    return nll + gammaln(w[0] * w[0] + 1.5) + logsumexp(z) + special.erf(w[1])


def solved(a, b):
    return np.sum(sla.solve(a, b) * sla.inv(a)[0])


def fd(f, args, i, eps=1e-6):
    x = args[i]
    g = np.zeros_like(x)
    for idx in np.ndindex(*x.shape):
        up = [np.array(v, dtype=float) for v in args]
        dn = [np.array(v, dtype=float) for v in args]
        up[i][idx] += eps
        dn[i][idx] -= eps
        g[idx] = (f(*up) - f(*dn)) / (2 * eps)
    return g


w = np.array([0.3, -0.7, 0.2])
x = np.array([[1.0, 0.5, -0.2], [0.3, -1.0, 0.8], [0.0, 0.4, 1.5], [-0.6, 0.1, 0.2]])
k = np.array([1.0, 0.0, 1.0, 0.0])
for name, f, args, wrt in (("loss", loss, (w, x, k), 0),
                           ("solved", solved, (m + 0.0, np.array([1.0, 2.0])), 0),
                           ("solved_b", solved, (m + 0.0, np.array([1.0, 2.0])), 1)):
    g = tangent.grad(f, wrt=(wrt,))(*args)
    err = float(np.max(np.abs(g - fd(f, args, wrt))))
    print("grad", name, "ok" if err < 1e-6 else "MISMATCH %g" % err)
    t = np.ones_like(args[wrt]) * 0.5
    fwd = tangent.autodiff(f, mode="forward", wrt=(wrt,))(*args, t)
    err = abs(float(fwd) - float(np.sum(fd(f, args, wrt) * t)))
    print("jvp", name, "ok" if err < 1e-6 else "MISMATCH %g" % err)
