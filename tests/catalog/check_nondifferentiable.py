"""Every NumPy function declared `nondifferentiable` (backends/numpy.py, linalg.py) must
have a derivative that is zero almost everywhere: its output, at random float inputs,
must not change when the float inputs move by a tiny step. A function declared so whose
output moves (numpy.unique's values did) would get a silent zero gradient.

Each declared name needs a sample call below (over float arrays `x`, `y`, a float `s`)
or a reason it reads no float data. Run with real NumPy (tests/bridge.rs) or the
embedded one: `python tests/catalog/check_nondifferentiable.py`. Exits non-zero on
failure.
"""
import os
import re
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# name -> expression over x (2x3 floats), y (2x3 floats), v (5 floats), s (a float)
SAMPLES = {
    "numpy.shape": "np.shape(x)", "numpy.ndim": "np.ndim(x)", "numpy.size": "np.size(x)",
    "numpy.argmax": "np.argmax(x, axis=1)", "numpy.argmin": "np.argmin(x)",
    "numpy.sign": "np.sign(x)", "numpy.zeros_like": "np.zeros_like(x)",
    "numpy.ones_like": "np.ones_like(x)", "numpy.floor": "np.floor(x * 3)",
    "numpy.ceil": "np.ceil(x * 3)", "numpy.isnan": "np.isnan(x)",
    "numpy.isfinite": "np.isfinite(x)", "numpy.allclose": "np.allclose(x, y)",
    "numpy.isclose": "np.isclose(x, y)", "numpy.ndarray.shape": "x.shape",
    "numpy.ndarray.ndim": "x.ndim", "numpy.ndarray.size": "x.size",
    "numpy.ndarray.dtype": "x.dtype", "numpy.ndarray.argmax": "x.argmax()",
    "numpy.ndarray.argmin": "x.argmin(axis=0)", "numpy.argsort": "np.argsort(v)",
    "numpy.ndarray.argsort": "x.argsort(axis=1)", "numpy.searchsorted": "np.searchsorted(np.sort(v), s)",
    "numpy.nonzero": "np.nonzero(x > 0)", "numpy.ndarray.nonzero": "(x > 0).nonzero()",
    "numpy.isinf": "np.isinf(x)", "numpy.array_equal": "np.array_equal(x, y)",
    "numpy.round": "np.round(x * 3)", "numpy.around": "np.around(x, 1)",
    "numpy.rint": "np.rint(x * 3)", "numpy.trunc": "np.trunc(x * 3)", "numpy.fix": "np.fix(x * 3)",
    "numpy.ndarray.round": "(x * 3).round()", "numpy.all": "np.all(x > 0)",
    "numpy.any": "np.any(x > 0, axis=0)", "numpy.ndarray.all": "(x > 0).all()",
    "numpy.ndarray.any": "(x > 0).any(axis=1)", "numpy.equal": "np.equal(x, y)",
    "numpy.not_equal": "np.not_equal(x, y)", "numpy.greater": "np.greater(x, y)",
    "numpy.greater_equal": "np.greater_equal(x, y)", "numpy.less": "np.less(x, s)",
    "numpy.less_equal": "np.less_equal(x, y)", "numpy.logical_and": "np.logical_and(x > 0, y)",
    "numpy.logical_or": "np.logical_or(x, y > 0)", "numpy.logical_not": "np.logical_not(x > 0)",
    "numpy.count_nonzero": "np.count_nonzero(x > 0)",
    "numpy.linalg.matrix_rank": "np.linalg.matrix_rank(x)",
    "numpy.argpartition": "np.argpartition(v, 2)", "numpy.argwhere": "np.argwhere(x > 0)",
    "numpy.array_equiv": "np.array_equiv(x, y[0])", "numpy.digitize": "np.digitize(v, [-0.5, 0.5])",
    "numpy.flatnonzero": "np.flatnonzero(x > 0)", "numpy.floor_divide": "np.floor_divide(x, s)",
    "numpy.isin": "np.isin(x, y)", "numpy.iscomplex": "np.iscomplex(x)",
    "numpy.iscomplexobj": "np.iscomplexobj(x)", "numpy.isneginf": "np.isneginf(x)",
    "numpy.isposinf": "np.isposinf(x)", "numpy.isreal": "np.isreal(x)",
    "numpy.isrealobj": "np.isrealobj(x)", "numpy.isscalar": "np.isscalar(s)",
    "numpy.iterable": "np.iterable(x)", "numpy.lexsort": "np.lexsort((v, v * 2))",
    "numpy.logical_xor": "np.logical_xor(x > 0, y > 0)", "numpy.nanargmax": "np.nanargmax(x)",
    "numpy.nanargmin": "np.nanargmin(x, axis=1)", "numpy.signbit": "np.signbit(x)",
    "numpy.spacing": "np.spacing(x)", "numpy.tril_indices_from": "np.tril_indices_from(x)",
    "numpy.triu_indices_from": "np.triu_indices_from(x, 1)",
    "numpy.diag_indices_from": "np.diag_indices_from(x[:, :2])",
    "numpy.may_share_memory": "np.may_share_memory(x, y)",
    "numpy.shares_memory": "np.shares_memory(x, y)", "numpy.result_type": "np.result_type(x, s)",
    "numpy.min_scalar_type": "np.min_scalar_type(s)",
}
# Declared names that read no float data (shapes, counts, dtypes), or whose values are
# not defined by their arguments.
NO_FLOAT_DATA = {
    "numpy.zeros": "a shape", "numpy.ones": "a shape", "numpy.eye": "sizes",
    "numpy.identity": "a size", "numpy.empty": "a shape (values undefined)",
    "numpy.empty_like": "values undefined", "numpy.broadcast_shapes": "shapes",
    "numpy.tri": "sizes", "numpy.tril_indices": "sizes", "numpy.triu_indices": "sizes",
    "numpy.diag_indices": "sizes", "numpy.indices": "a shape",
    "numpy.ravel_multi_index": "integer indices", "numpy.unravel_index": "integer indices",
    "numpy.can_cast": "dtypes", "numpy.promote_types": "dtypes", "numpy.issubdtype": "dtypes",
    "numpy.isdtype": "dtypes", "numpy.bitwise_and": "integers", "numpy.bitwise_or": "integers",
    "numpy.bitwise_xor": "integers", "numpy.invert": "integers", "numpy.left_shift": "integers",
    "numpy.right_shift": "integers", "numpy.bitwise_count": "integers", "numpy.gcd": "integers",
    "numpy.lcm": "integers", "numpy.packbits": "integers", "numpy.unpackbits": "integers",
}


def declared():
    names = []
    for f in ("numpy.py", "linalg.py"):
        text = open(os.path.join(ROOT, "backends", f)).read()
        for body in re.findall(r"^nondifferentiable\((.*?)\)\s*$", text, re.S | re.M):
            names += [n for n in re.findall(r"(numpy\.[A-Za-z_.0-9]+)", body)]
    return names


class Rng:
    def __init__(self, seed):
        self.state = seed

    def uniform(self):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (2 ** 64)
        return -1.5 + 3.0 * ((self.state >> 11) / float(2 ** 53))


def same(p, q):
    if isinstance(p, tuple) or isinstance(p, list):
        return len(p) == len(q) and all(same(a, b) for a, b in zip(p, q))
    if isinstance(p, np.dtype):
        return p == q
    pa, qa = np.asarray(p), np.asarray(q)
    return pa.shape == qa.shape and bool(np.all((pa == qa) | ((pa != pa) & (qa != qa))))


def main():
    rng = Rng(20261206)
    failures = 0
    checked = 0
    for name in declared():
        if name in NO_FLOAT_DATA:
            continue
        owner = np
        for part in name.split(".")[1:-1]:
            owner = getattr(owner, part, None)
        if owner is None or not hasattr(owner, name.split(".")[-1]):
            continue  # not in this numpy (the embedded one leaves a few out: README)
        if name not in SAMPLES:
            print("FAIL %s: declared nondifferentiable with no sample call here" % name)
            failures += 1
            continue
        for trial in range(3):
            def draw(shape):
                n = int(np.prod(shape))
                return np.reshape(np.array([rng.uniform() for _ in range(n)]), shape)
            x, y, v, s = draw((2, 3)), draw((2, 3)), draw((5,)), rng.uniform()
            base = eval(SAMPLES[name], {"np": np, "x": x, "y": y, "v": v, "s": s})
            h = 1e-9
            moved = eval(SAMPLES[name], {"np": np, "x": x + h * draw((2, 3)),
                                          "y": y + h * draw((2, 3)), "v": v + h * draw((5,)),
                                          "s": s + h * rng.uniform()})
            checked += 1
            if not same(base, moved):
                print("FAIL %s: %s moves with its float inputs (%r -> %r): its derivative is "
                      "not zero" % (name, SAMPLES[name], base, moved))
                failures += 1
                break
    print("%d nondifferentiable declarations checked, %d failures" % (checked, failures))
    sys.exit(1 if failures else 0)


main()
