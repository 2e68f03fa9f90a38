"""Differential test of the embedded numpy against real NumPy.

`python numpy_diff.py expect OUT.json` (real NumPy, in CPython) generates the seeded
cases — expressions over arrays of every dtype (float64, float32, int64, bool), shapes
with broadcasting, axis and keepdims variants, and int64 arrays past 2**53 and at the
ends of its range (exactness and NumPy's wrap-around on overflow) — evaluates them and
writes what each gave:
the dtype, the shape and the values, or the exception's type.
`tangent run --embedded numpy_diff.py compare OUT.json` evaluates the same cases in the
embedded numpy and reports every difference; it exits non-zero if there is one.

Compared: shapes and values of integer and bool results exactly; the REDUCTIONS cases
bit for bit; other float64 values within 4 ulp (libm and NumPy's SIMD kernels may
differ in the last bits of transcendental functions), float32 within its rounding
(2**-21 relative);
NaNs at the same places; array dtypes exactly, except where NumPy gives a dtype the
embedded numpy does not have (float16 for bool inputs of float functions, int8 for
bool ** int): float64 and int64 there, values compared at float16's precision
(`SUBSTITUTES`, counted in the summary). A scalar result compares its kind (bool,
int, float) and, for a double, its type: `numpy.float64` where NumPy gives one, a
Python float where NumPy does, and a `numpy.float32` where NumPy gives one. The other
NumPy scalars (int64, bool_) are Python scalars in the embedded numpy, a documented
difference, so only their kind is compared. The SCALAR cases do arithmetic on float64
scalars, where NumPy's IEEE rules (x / 0.0 is inf, overflow is inf) differ from Python's
float (which raises); the SINGLE cases on float32 scalars (NumPy 2's promotion: a Python
number converted to float32, a float64 scalar giving float64), their text and
conversions; the WRITES cases write through views (and `a.flat`) and into copies; the
FUNCS cases call the functions (and `poly1d`) the embedded numpy writes in Python.
"""
import json
import math
import sys

import numpy as np

SHAPES = [(), (3,), (2, 3), (1, 3), (2, 1), (2, 2, 3)]
# pairs that broadcast
PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ()),
         ((2, 2, 3), (2, 3)), ((1, 3), (2, 1))]
DTYPES = ["float64", "float32", "int64", "bool"]


class Rng:
    """A small LCG so both hosts draw the same cases without NumPy's generator."""

    def __init__(self, seed):
        self.s = seed

    def next(self):
        self.s = (self.s * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return self.s >> 11

    def below(self, n):
        return self.next() % n

    def choice(self, seq):
        return seq[self.below(len(seq))]


def values(rng, shape, dtype):
    n = 1
    for d in shape:
        n *= d
    if dtype == "bool":
        vals = [rng.below(2) == 1 for _ in range(n)]
    elif dtype == "int64":
        vals = [int(rng.below(13)) - 6 for _ in range(n)]
    else:  # quarters in [-4, 4]: exact in float32
        vals = [(int(rng.below(33)) - 16) / 4.0 for _ in range(n)]
    return vals


def literal(shape, dtype, vals):
    """Source text building the array (the same text in both hosts)."""
    if shape == ():
        v = vals[0]
        return "np.array(%r, dtype=%r)" % (v, dtype)
    return "np.array(%r, dtype=%r).reshape(%r)" % (vals, dtype, shape)


BINARY = ["a + b", "a - b", "a * b", "a / b", "a // b", "a % b", "np.maximum(a, b)",
          "np.minimum(a, b)", "np.fmax(a, b)", "np.fmin(a, b)", "a < b", "a == b",
          "a >= b", "np.arctan2(a, b)", "np.hypot(a, b)", "np.logical_and(a, b)",
          "np.where(a > b, a, b)", "a ** 2", "a * 2.5", "a + 1", "2 - a", "a / 2",
          "a * True", "np.copysign(a, b)"]
UNARY = ["np.exp(a)", "np.sin(a)", "np.tanh(a)", "np.sqrt(np.abs(a))", "np.floor(a)",
         "np.ceil(a)", "np.trunc(a)", "np.fabs(a)", "np.abs(a)", "np.square(a)",
         "np.reciprocal(a)", "np.isnan(a)", "np.cumsum(a)", "np.sort(a, axis=None)",
         "np.argsort(a, axis=None)", "np.unique(a)", "np.clip(a, -1, 2)",
         "np.count_nonzero(a)", "np.log1p(np.abs(a))", "-a", "np.negative(a)",
         "np.sign(a)", "np.rint(a)", "np.expm1(a)", "np.cos(a)"]
REDUCE = ["np.sum", "np.mean", "np.prod", "np.max", "np.min", "np.std", "np.var",
          "np.median", "np.ptp", "np.nansum", "np.nanmean", "np.nanmax", "np.nanmin",
          "np.any", "np.all", "np.count_nonzero", "np.argmax", "np.argmin"]
# Arithmetic on NumPy's float64 scalars (from reductions, indexing, ufuncs, iteration),
# alone and with Python numbers and arrays (a float64 scalar is not weak: a float32 array
# times it is float64).
SCALAR = ["np.sum(a) / 0.0", "-np.max(np.abs(a)) / 0", "np.sum(a) // 0.0", "np.sum(a) % 0.0",
          "divmod(np.sum(a), 0.0)", "np.float64(0.0) ** -1", "np.max(a) * 1e308 * 10",
          "(np.min(a) - 5.0) ** 0.5", "1.0 / np.sqrt(np.sum(a * 0.0))",
          "2 ** np.sum(a)", "np.sum(a) + 1", "1 - np.mean(a)", "abs(np.min(a))",
          "a.ravel()[0] / (a.ravel()[0] - a.ravel()[0])", "[v / 0.0 for v in a.ravel()]",
          "np.sum(a) * a.astype(np.float32)", "a.astype(np.float32) + np.max(a)",
          "np.where(a > 0, np.float64(1.0), a.astype(np.float32))", "np.exp(np.sum(a))",
          "np.float64(np.sum(a)).round(1)", "np.sum(a).astype(np.int64)", "float(np.sum(a))",
          "np.sum(a).item()", "a.tolist()", "np.sum(a).reshape(1)", "np.sum(a) == np.sum(a)",
          "repr(np.sum(a))", "str(np.max(a))", "np.float64('1.5') / 0"]
# Float32 scalars (indexing, reductions, ufuncs, the constructor) with Python numbers,
# float64 scalars and arrays; their repr/str, conversions and methods.
SINGLE = ["a[0] + 0.1", "0.1 + a[0]", "a[0] * 3", "a[0] + True", "a[0] / 0", "a[1] / 0.0",
          "a[0] * 0.7 // 0.3", "a[0] * 0.7 % 0.3", "-a[0] * 0.7 % 0.3", "divmod(a[0] * 0.7, 0.3)",
          "a[0] * 0.7 // -0.3", "a[0] % 0.0", "a[0] ** 2", "2 ** np.abs(a[0])",
          "np.abs(a[0]) ** 0.5", "(a[0] + 0.1) ** -1", "a[0] + np.float64(0.1)",
          "np.float64(0.1) * a[0]", "np.sum(a) * 0.1", "np.max(a) - np.min(a) * 0.3",
          "np.mean(a * 0.1)", "np.float32(0.1) == 0.1", "np.float32(16777217) == 16777217",
          "a[0] * 0.1 < 0.3", "a[0] == np.float64(0.1)", "hash(np.float32(0.5)) == hash(0.5)",
          "int(a[0] * 2.7)", "float(a[0] * 0.1)", "round(a[0] * 1.37, 2)", "round(a[0] * 2.5)",
          "abs(-a[0])", "-a[0]", "+a[0]", "repr(a[0] * 0.1)", "str(a[1] * 0.1)",
          "str(np.float32(1e20))", "repr(np.float32(123456789))", "repr(np.float32(1e-5))",
          "repr(np.float32(0.00012345))", "repr(np.float32(999999.94))", "repr(np.float32(1e6))",
          "repr(np.float32(-0.0))", "repr(np.float32('nan'))", "repr(-np.float32('inf'))",
          "np.float32('1.5') * 3", "np.float32(2 ** 200)", "np.float32(np.array([2.5, 0.1]))",
          "np.float32()", "np.float32(True)", "np.float32(np.float64(0.1))", "np.sin(a[0])",
          "np.sqrt(np.abs(a[0]))", "str(np.exp(a[0]).dtype)", "a * a[0]", "a.astype(np.float64) * a[0]",
          "a.astype(np.int64) * a[0]", "a[0].item()", "a[0].astype(np.float64)",
          "(a[0] * 0.13).round(1)", "str(a[0].dtype)", "a[0].itemsize", "a[0].shape",
          "np.array([a[0], a[1]])", "np.array([a[0], 0.5])", "isinstance(a[0], np.floating)",
          "isinstance(a[0], float)", "max(a[0], 0.5)", "[v * 0.1 for v in a]",
          "np.float32(1e38) * 10", "np.float32(0.1) * 1e300", "f'{a[0] * 0.1}'",
          "format(a[0] * 0.1, '.3f')", "'%s' % (a[0] * 0.1)", "np.full(2, np.float32(0.1))",
          "str(np.result_type(np.float64(1), a))", "str(np.result_type(a[0], 0.5))", "a[0].sum()",
          "a[0].reshape(1)", "a[0] * 2 ** 100", "np.float32(-7) % np.float32(2)",
          "np.float32(7) // np.float32(-2)", "np.floor(a[0] * 0.3)", "np.reciprocal(a[0] + 0.1)",
          "np.square(a[0] * 0.1)", "np.maximum(a[0], 0.5)", "a[0] + None",
          "(a[0] * 0.7).is_integer()", "a[0].is_integer()", "(a[0] * 0.5).as_integer_ratio()",
          "np.float32(0.1) + np.float32(0.2)", "np.float32(1) / np.float32(3)",
          "np.cumsum(a)[-1] * 0.1", "a.max() * 0.1", "a.sum(axis=0) / 3", "bool(a[0] * 0)"]
# Writes through what NumPy returns as a view (or through `a.flat`), and writes into what
# it returns as a copy, which leave `a` alone: each statement runs, then `a` is compared.
WRITES = ["a.flat[1] = 9", "a.flat[[0, 2]] = [7, 8]", "a.T.flat[1:3] = 5", "a.ravel()[0] = 9",
          "a.reshape(-1)[2] = 9", "a.T[0] = 9", "np.transpose(a)[-1] = 4", "a[1:][0] = 6",
          "a[::-1][0] = 3", "a[..., 0] = 2", "a.flatten()[0] = 9", "a[[0]] = 9",
          "a[a > 0] = 0", "a.copy()[0] = 9", "np.ravel(a)[1] = 8", "a.squeeze()[0] = 1",
          "np.reshape(a, (-1,))[0] = 5", "a.view()[0] = 3", "np.asarray(a)[0] = 4",
          "np.array(a)[0] = 4", "a.real[0] = 2", "a[np.newaxis][0, 0] = 1", "b = a; b += 1",
          "b = a[0]; b += 1", "a[0] += a[-1]",
          # integer-array stores into a 1-d array: repeated and negative indices, a
          # broadcast value, a 2-d index array, and an index out of range (nothing written)
          "a.reshape(-1)[[0, -1, 0]] = [1, 2, 3]", "a.reshape(-1)[np.array([1, 0])] = 7.5",
          "a.reshape(-1)[[[0, 1], [2, 0]]] = [[1, 2], [3, 4]]",
          "try:\n    a.reshape(-1)[[0, 99]] = 5\nexcept IndexError:\n    a = a * 2"]
# NumPy's functions the embedded numpy writes in Python (numpy/_function_base.py,
# _index_tricks.py, _array_api.py), over a 2x3 float64 `a`, float64 vectors `v` (4) and
# `w` (3), an int64 vector `k` (5, values 0..5), a 3x3 `m`, a float32 vector `s` (4),
# a float64 vector `z` (5) holding nan, inf and -inf, and an int64 2x3 `q`.
FUNCS = [
    # Longer arrays, for the kernels that work in chunks of eight: extremes and their
    # positions (NaN, ties, signed zeros), gathers, masks, clip, where, dot, sums, exp, log.
    "np.argmax(np.cos(np.arange(37.0)))", "np.argmin(np.cos(np.arange(37.0)))",
    "np.argmin(np.where(np.arange(40) % 7 == 3, np.nan, np.sin(np.arange(40.0))))",
    "np.argmax(np.array([0.0, -0.0] * 9 + [-1.0]))", "np.argmin(np.array([1.0, -0.0] * 9 + [0.0]))",
    "np.argmax(np.sin(np.arange(50.0)).reshape(5, 10), axis=1)",
    "np.max(np.sin(np.arange(50.0)).reshape(5, 10), axis=1)", "np.min(np.where(np.arange(30) == 17, np.nan, 1.0))",
    "np.max(np.full(20, -np.inf))", "np.argmax(np.full(20, -np.inf))",
    "np.arange(30.0)[(np.arange(30) * 7) % 30]", "np.arange(30.0)[-(np.arange(30) % 29) - 1]",
    "np.arange(12.0).reshape(4, 3)[[3, 0, -1]]", "np.arange(12.0).reshape(4, 3)[:, [2, -3]]",
    "np.arange(12.0).reshape(1, 12)[:, np.arange(12) % 5]", "np.arange(30.0)[np.array([0, 30])]",
    "np.arange(40.0)[np.sin(np.arange(40.0)) > 0]", "np.arange(24).reshape(2, 12)[:, np.arange(12) % 2 == 0]",
    "np.sin(np.arange(24.0)).reshape(4, 6)[np.sin(np.arange(24.0)).reshape(4, 6) > 0]",
    "np.arange(24).reshape(2, 3, 4)[np.arange(24).reshape(2, 3, 4) % 3 == 1]",
    "np.arange(24.0).reshape(4, 6).T[np.arange(24.0).reshape(4, 6).T > 7]",
    "np.arange(9.0)[np.zeros(9, dtype=bool)]", "np.arange(9.0)[np.ones(9, dtype=bool)]",
    "np.arange(10, dtype=np.float32)[np.arange(10) > 4]", "np.array([True, False, True])[np.array([True, True, False])]",
    "np.arange(6.0)[np.array([True, False])]", "np.zeros((0, 3))[np.zeros((0, 3), dtype=bool)]",
    "np.clip(np.sin(np.arange(20.0)), -0.5, 0.5)", "np.clip(np.arange(20.0), None, 7)",
    "np.clip(np.where(np.arange(20) == 3, np.nan, np.arange(20.0)), 2, 9.5)",
    "np.where(np.arange(20) % 3 == 0, np.arange(20.0), -np.arange(20.0))",
    "np.sin(np.arange(20.0)) > np.cos(np.arange(20.0))", "np.arange(20.0) <= 7",
    "np.dot(np.sin(np.arange(300.0)), np.cos(np.arange(300.0)))", "np.dot(np.arange(10.0)[::2], np.arange(5.0))",
    "np.sum(np.sin(np.arange(20000.0)))", "np.sum(np.sin(np.arange(20000.0)).reshape(100, 200), axis=0)",
    "np.exp(np.linspace(-750, 710, 101))", "np.log(np.linspace(1e-310, 1e308, 57))",
    "np.exp(np.array([np.nan, np.inf, -np.inf, 0.0, -0.0] * 3))",
    "np.log(np.array([np.nan, np.inf, -1.0, 0.0, -0.0, 5e-324] * 3))",
    "np.diff(v)", "np.diff(a)", "np.diff(a, axis=0)", "np.diff(v, n=2)", "np.diff(k)",
         "np.diff(k > 2)", "np.diff(v, prepend=0)", "np.diff(v, append=[1, 2])",
         "np.diff(s)", "np.ediff1d(a)", "np.ediff1d(v, to_end=[9], to_begin=-1)",
         "np.gradient(v)", "np.gradient(a)", "np.gradient(a, axis=1)", "np.gradient(v, 0.5)",
         "np.gradient(v, np.array([0.0, 1.0, 1.5, 3.5]))", "np.gradient(v, edge_order=2)",
         "np.gradient(s)", "np.gradient(k)", "np.trapezoid(v)", "np.trapezoid(a)",
         "np.trapezoid(a, axis=0)", "np.trapezoid(v, dx=0.5)",
         "np.trapezoid(v, x=np.array([0.0, 1.0, 1.5, 3.5]))", "np.average(a)",
         "np.average(a, axis=0)", "np.average(a, axis=1, weights=w)",
         "np.average(v, weights=np.abs(v) + 1)", "np.average(a, weights=np.abs(a) + 1, axis=0, returned=True)",
         "np.average(k)", "np.cov(v)", "np.cov(a)", "np.cov(a, rowvar=False)", "np.cov(a, bias=True)",
         "np.cov(v, np.abs(v))", "np.cov(a, ddof=0)", "np.cov(a, aweights=np.abs(w))", "np.cov(a, aweights=w)", "np.cov(a, fweights=[1.5, 1, 1])", "np.cov(a, fweights=np.array([1, 2, 1]))",
         "np.corrcoef(a)", "np.corrcoef(v, np.abs(v) + v * v)", "np.meshgrid(v, w)",
         "np.meshgrid(v, w, indexing='ij')", "np.meshgrid(v, w, sparse=True)", "np.meshgrid(v, w, k)",
         "np.logspace(0, 2, 5)", "np.logspace(0, 1, 4, base=2.0, endpoint=False)",
         "np.geomspace(1, 1000, 4)", "np.geomspace(-1, -16, 5)", "np.geomspace(2, 3, 3, endpoint=False)",
         "np.linspace(v[:2], 1.0, 4)", "np.linspace(0.0, w[:3], 3, axis=1)", "np.linspace(a, a + 1, 3, axis=-1)",
         "np.linspace(v[:2], v[:2], 3)", "np.linspace(v[:2], 2.0, 4, endpoint=False, retstep=True)",
         "np.linspace(0, 1, 3, axis=-1)", "np.linspace(0.0, w[:2], 1)", "np.linspace(np.zeros(2), 5, 6, dtype=np.int64)",
         "np.logspace(v[:2], 1.0, 4)", "np.logspace(0.0, w[:2], 3, base=np.array([2.0, 3.0]))",
         "np.logspace(np.array([[0.0], [1.0]]), 2.0, 3, axis=1)", "np.geomspace(np.array([-1.0, 2.0]), np.array([-8.0, 32.0]), 3, axis=1)",
         "np.geomspace(-1, 16, 3)", "np.geomspace(np.abs(v[:2]) + 0.5, 9.0, 4)",
         "np.expand_dims(a, axis=1)", "np.expand_dims(a=v, axis=(0, 2))", "np.expand_dims(a, -1).shape",
         "np.append(v, w)", "np.append(a, a, axis=0)", "np.append(k, 1.5)", "np.insert(v, 1, 9.0)",
         "np.insert(k, [0, 2], [7, 8])", "np.insert(a, 1, 5.0, axis=1)", "np.insert(a, 1, w, axis=0)",
         "np.insert(v, -1, [1, 2])", "np.delete(v, 1)", "np.delete(v, [0, 2])", "np.delete(a, 1, axis=1)",
         "np.delete(a, 0, axis=0)", "np.delete(k, slice(1, 4))", "np.delete(v, v > 0)",
         "np.select([v > 0, v < -1], [v, v * 2], default=-5)", "np.select([a > 1], [a])",
         "np.piecewise(v, [v < 0, v >= 0], [lambda x: -x, lambda x: x * 2])",
         "np.piecewise(v, [v < 0], [0.5, lambda x: x + 1])", "np.extract(a > 0, a)",
         "np.nan_to_num(z)", "np.nan_to_num(z, nan=-1.0, posinf=9.0)", "np.nan_to_num(k)",
         "np.nan_to_num(z.astype(np.float32))", "np.nanstd(z)", "np.nanvar(z)", "np.nanvar(z, ddof=1)",
         "np.nanvar(a, axis=0)", "np.nanstd(s)", "np.nanmedian(z)", "np.nanmedian(a, axis=1)",
         "np.nanpercentile(z, 40)", "np.nanquantile(z, [0.2, 0.7])", "np.nanprod(z[:1])",
         "np.nancumsum(np.array([1.0, np.nan, 2.0]))", "np.nancumprod(np.array([2.0, np.nan, 3.0]))",
         "np.nanargmax(np.array([1.0, np.nan, 3.0]))", "np.nanargmin(a, axis=0)",
         "np.tri(3)", "np.tri(3, 4, k=1, dtype=int)", "np.tril(m)", "np.tril(m, -1)", "np.triu(m, 1)",
         "np.triu(q)", "np.tril(np.ones((2, 3, 3)))", "np.vander(w)", "np.vander(w, 4, increasing=True)",
         "np.vander(k)", "np.tril_indices(3)", "np.triu_indices(3, 1)", "np.tril_indices(3, 0, 4)",
         "np.triu_indices_from(m)", "np.diag_indices(3)", "np.diag_indices_from(m)", "np.diagflat(w)",
         "np.diagflat(a, 1)", "np.indices((2, 3))", "np.indices((2, 3), sparse=True)", "np.ix_([0, 1], [2, 0])",
         "np.unravel_index(k, (2, 3))", "np.unravel_index(4, (2, 3), order='F')",
         "np.ravel_multi_index((np.array([0, 1]), np.array([2, 1])), (2, 3))",
         "np.ravel_multi_index((np.array([0, 3]), np.array([2, 1])), (2, 3), mode='clip')",
         "np.take(a, [0, 4])", "np.take(a, [2, 0], axis=1)", "np.take(v, [5, -1], mode='wrap')",
         "np.take(v, [5, -1], mode='clip')", "np.take_along_axis(a, np.argsort(a, axis=1), axis=1)",
         "np.take_along_axis(a, np.array([[0], [1]]), axis=1)", "np.compress([True, False, True], a, axis=1)",
         "np.compress(v > 0, v)", "np.choose(np.array([0, 1, 0]), [w, w * 2])",
         "np.flatnonzero(a > 0)", "np.argwhere(a > 0)", "np.kron(v[:2], w)", "np.kron(a, m[:2, :2])",
         "np.kron(k[:2], q)", "np.block([[m, m], [m, m]])", "np.block([v, w])", "np.block([[a], [a]])",
         "np.broadcast_arrays(v[:3], a)", "np.resize(w, (2, 4))", "np.resize(k, 7)",
         "np.rollaxis(np.ones((2, 3, 4)), 2).shape", "np.rollaxis(np.ones((2, 3, 4)), 0, 3).shape",
         "np.ascontiguousarray(a.T)", "np.ascontiguousarray(2.5)", "np.asanyarray([1, 2])",
         "np.asarray_chkfinite(v)", "np.asarray_chkfinite(z)", "np.trim_zeros(np.array([0, 0, 1, 2, 0]))",
         "np.trim_zeros(np.array([0, 1, 0]), 'f')",
         "np.trim_zeros(np.array([[0, 0, 0], [0, 1, 0], [0, 2, 3]]))",
         "np.trim_zeros(np.array([[0, 0, 0], [0, 1, 0], [0, 2, 3]]), 'b', axis=1)",
         "np.trim_zeros(np.array([[0, 0, 0], [0, 1, 0], [0, 2, 3]]), axis=(0, -1))",
         "np.trim_zeros(np.zeros((2, 3)))", "np.trim_zeros([0.0, 1.5, 0.0])",
         "np.trim_zeros(np.array([0, 1]), 'x')", "np.trim_zeros(np.array([[1]]), axis=2)", "np.acos(np.clip(v, -1, 1))", "np.asin(np.clip(w, -1, 1))",
         "np.atan(v)", "np.atan2(v, v[::-1])", "np.acosh(np.abs(v) + 1)", "np.asinh(v)", "np.atanh(np.clip(v, -0.5, 0.5))",
         "np.pow(v, 2)", "np.pow(k, 2)", "np.concat([v, w])", "np.concat([a, a], axis=1)",
         "np.permute_dims(a, (1, 0))", "np.matrix_transpose(np.ones((2, 3, 4))).shape",
         "np.astype(a, np.int64)", "np.astype(k, np.float32)", "np.vecdot(a, w)", "np.vecdot(a, a, axis=0)",
         "np.matvec(m, w)", "np.vecmat(w, m)", "np.vecdot(a[:, :1], a)", "np.vecdot(a, w[:2], axis=0)",
         "np.matvec(m, v)", "np.vecmat(v, m)", "np.matvec(np.ones((2, 3, 3)), w)", "np.vdot(a, a)", "np.cumulative_sum(v)",
         "np.cumulative_sum(a, axis=1, include_initial=True)", "np.cumulative_prod(w)",
         "np.unstack(a)", "np.unstack(a, axis=1)", "np.bitwise_and(k, 3)", "np.bitwise_or(k, q[0, :1])",
         "np.bitwise_xor(k, 5)", "np.invert(k)", "np.bitwise_not(k > 2)", "np.logical_xor(v > 0, v < 1)",
         "np.signbit(np.array([-0.0, 0.0, -1.5, 2.0]))", "np.signbit(k - 2)", "np.isposinf(z)", "np.isneginf(z)",
         "np.isreal(a)", "np.iscomplex(v)", "np.isrealobj(a)", "np.iscomplexobj(a)", "np.real(a)", "np.imag(a)",
         "np.conj(a)", "np.conjugate(k)", "np.float_power(k, 2)", "np.float_power(w, 0.5 * 4)",
         "np.gcd(k, 4)", "np.lcm(k, 4)", "np.gcd(12, 18)", "np.isin(k, [1, 3])", "np.isin(a, w)",
         "np.isin(k, [1, 3], invert=True)", "np.intersect1d(k, [1, 2, 9])", "np.union1d(k, [9, 1])",
         "np.setdiff1d(k, [1, 2])", "np.setxor1d(k, [1, 9])", "np.sort(np.unique_values(k))", "np.unique_counts(k)",
         "np.unique_inverse(q)", "np.unique_all(k)", "np.unique(q, axis=0)",
         "np.unique(q, axis=-1, return_index=True, return_inverse=True, return_counts=True)",
         "np.unique(np.array([[1.0, np.nan], [1.0, np.nan], [0.0, 2.0], [0.0, 2.0]]), axis=0, return_counts=True)",
         "np.unique(np.array([[2, 1], [0, 5], [2, 1]]), axis=0, return_inverse=True)", "np.unique(q, axis=2)",
         "np.concat is np.concatenate", "np.permute_dims is np.transpose", "np.acos is np.arccos",
         "np.pow is np.power", "np.digitize(v, [-1.0, 0.0, 1.0])",
         "np.digitize(v, [-1.0, 0.0, 1.0], right=True)", "np.digitize(v, [1.0, 0.0, -1.0])",
         "np.bincount(k)", "np.bincount(k, minlength=9)", "np.bincount(k, weights=np.arange(5) * 0.5)",
         "np.convolve(v, w)", "np.convolve(v, w, 'same')", "np.convolve(w, v, 'same')", "np.convolve(v, w, 'valid')",
         "np.convolve(k, k[:2])", "np.correlate(v, w)", "np.correlate(w, v)", "np.correlate(v, w, 'full')",
         "np.correlate(w, v, 'same')", "np.polyval([1, 2, 3], v)", "np.polyval(w, 2.5)", "np.polyval(k, q)",
         "np.polyadd([1, 2], [3, 4, 5])", "np.polysub(w, [1, 1])", "np.polymul([1, 2], [1, -1, 3])",
         "np.polyder([1, 2, 3, 4])", "np.polyder(w, 2)", "np.polyder([5])", "np.polyint([3, 2, 1])", "np.polyint([1, 1], k=2)",
         "np.round(np.polyfit(np.arange(5.0), np.arange(5.0) ** 2 - 1, 2), 9)", "np.round(np.polyfit(w, np.abs(w) + w, 1), 9)",
         "np.iterable(v)", "np.iterable(2.0)", "np.i0(v)", "np.i0(np.array([0.0, 9.5, -12.0]))",
         "np.i0(np.array([0.0, 0.3, 7.9, 8.0, 9.5, -12.0, 40.0], dtype=np.float32))", "np.i0(np.array([3, -2]))",
         "np.hamming(5)", "np.hanning(4)", "np.bartlett(5)", "np.blackman(6)", "np.kaiser(5, 4.0)",
         "np.hamming(1)", "np.unwrap(v * 3)", "np.unwrap(a * 4, axis=0)", "np.unwrap(v * 3, period=4.0)",
         "np.apply_along_axis(np.sum, 1, a)", "np.apply_along_axis(lambda r: r * 2, 0, a)",
         "np.apply_over_axes(np.sum, np.ones((2, 3, 2)), [0, 2])", "np.histogram_bin_edges(v, 4)",
         "np.histogram_bin_edges(v, [0.0, 1.0, 2.5])", "np.fromfunction(lambda i, j: i * 3 + j, (2, 3))",
         "np.fromiter(iter(w.tolist()), dtype=float)", "np.array_equiv(w, np.stack([w, w]))",
         "np.array_equiv(v, w)", "np.modf(v)", "np.modf(s)", "np.frexp(v)", "np.ldexp(v, k[:4])",
         "np.divmod(k, 3)", "np.divmod(v, 0.75)", "np.left_shift(k, 2)", "np.right_shift(k * 9, 1)",
         "np.lexsort((k, k % 2))", "np.sort(np.partition(v, 1))", "np.partition(v, 2)[2]",
         "v[np.argpartition(v, 1)][1]", "np.poly([1.0, -2.0, 0.5])", "np.polydiv([1.0, -3.0, 2.0], [1.0, -1.0])",
         "np.polydiv(v, w[:2])", "np.base_repr(37, 5)", "np.base_repr(-10, 3, padding=2)",
         "np.binary_repr(-5, width=8)", "np.binary_repr(12)", "str(np.promote_types('f4', 'i8'))",
         "np.issubdtype(np.float32, np.floating)", "np.issubdtype(k.dtype, np.integer)",
         "np.issubdtype(np.int64, np.floating)", "np.cross(w, m[0])", "np.cross(m, w)",
         "np.cross(a.T, m[:2].T, axisa=0, axisb=0)", "np.cross(k[:3], k[2:])", "np.nextafter(v, 2.0)",
         "np.nextafter(1.0, -1.0)", "np.spacing(v)", "np.spacing(np.array([1e10, -3.0]))",
         "np.roots([1.0, -3.0, 2.0])", "np.roots([2.0, -4.0, 0.0, 0.0])", "np.round(np.sort(np.roots([1.0, -6.0, 11.0, -6.0])), 9)",
         "np.histogram2d(v, v[::-1], bins=3)", "np.histogram2d(v, -v, bins=[2, 3], density=True)",
         "np.histogram2d(v, v, bins=[-5, 0, 5])", "np.histogramdd(m, bins=2)",
         "np.histogramdd(m, bins=(2, 3, 1), range=[(-5, 5), (-5, 5), (-5, 5)])",
         "np.histogramdd(a.T, bins=2, weights=w)", "np.histogramdd(v, bins=0)",
         "np.can_cast(a, np.float32)", "np.can_cast(np.float32, np.float64)",
         "np.can_cast(k, np.float32, 'same_kind')", "np.can_cast(a, k, 'same_kind')",
         "np.can_cast(v > 0, np.int64)", "np.can_cast(1.0, np.float32)",
         "np.can_cast(np.float64, np.float32, 'unsafe')", "np.can_cast(np.int64, np.int64, 'no')",
         "np.can_cast(s, np.float32, 'equiv')", "np.common_type(a, s).__name__",
         "np.common_type(s).__name__", "np.common_type(k, s).__name__", "np.common_type(v > 0)",
         "np.mintypecode(['d', 'f'])", "np.mintypecode('dF')", "np.mintypecode([a, s])",
         "np.mintypecode('ih')", "np.typename('d')", "np.typename('?')", "np.real_if_close(a)",
         "np.mask_indices(3, np.triu)", "np.mask_indices(4, np.tril, -1)", "np.getbufsize()",
         "np.isdtype(a.dtype, 'real floating')", "np.isdtype(k.dtype, ('bool', 'integral'))",
         "np.isdtype(s.dtype, np.float64)", "np.isdtype(np.float32, 'numeric')",
         "np.isdtype(np.float64, 'complex floating')", "np.isdtype('float64', 'numeric')",
         "np.isdtype(a.dtype, 'real')", "np.bitwise_count(k)", "np.bitwise_count(q)",
         "np.bitwise_count(v > 0)", "np.bitwise_count(a)", "np.isfortran(a)",
         "np.isfortran(a.T)", "np.isfortran(np.asfortranarray(m))", "np.isfortran(v)",
         "np.require(a.T, requirements='C').flags.c_contiguous",
         "np.require(a, requirements=['F']).flags.f_contiguous",
         "np.require(a, requirements=['F', 'C'])", "np.require(a.T, np.float32, 'A')",
         "np.require(a[:, ::2], requirements='W')", "a.T.flags.f_contiguous",
         "a[:, ::2].flags.c_contiguous", "a.flags['OWNDATA']", "a[0].flags.owndata",
         "a.T.strides", "a[:, ::2].strides", "s.strides", "m[::-1].strides",
         "np.broadcast_to(v, (2, 4)).flags.writeable", "np.zeros((0, 3)).flags.f_contiguous",
         "v[None].flags.forc",
         "np.vectorize(lambda x, y: x * y if x > y else x - y)(a, w)",
         "np.vectorize(lambda x: (x + 1.0, x > 0))(v)",
         "np.vectorize(lambda x, n: x ** n, excluded=['n'])(w, n=3)",
         "np.vectorize(lambda x: x // 2)(k)", "np.vectorize(abs, otypes=[np.float32])(q)",
         "np.vectorize(float, otypes='d')(np.zeros((0, 2)))", "np.vectorize(float)(k[:0])",
         "np.vectorize(lambda x: x * 2)(3.5)",
         "[(i, float(x)) for i, x in np.ndenumerate(a)]", "list(np.ndenumerate(np.ones(0)))",
         "np.array([1, 0, 2], dtype=np.bool)", "np.zeros(2, np.bool)",
         "np.poly1d(w)(v)", "str(np.poly1d(w))", "repr(np.poly1d(v))", "str(np.poly1d(k))",
         "(np.poly1d(w) * np.poly1d(v)).coeffs", "(np.poly1d(w) - v).coeffs",
         "np.poly1d(v).deriv().coeffs", "np.poly1d(w).integ(2, 1.0).coeffs",
         "[x.coeffs for x in np.poly1d(v) / np.poly1d(w)]", "np.polyadd(np.poly1d(w), v).coeffs",
         "(np.poly1d(w) ** 2).coeffs", "np.poly1d(k).order", "np.asarray(np.poly1d(w))",
         "np.poly1d(w, r=True).coeffs", "[np.poly1d(v)[j] for j in range(6)]",
         "str(np.poly1d(w, variable='t') * 1e5)", "np.poly1d(w) == np.poly1d(list(w))",
         "np.sum(type('A', (), {'__array__': lambda self, dtype=None, copy=None: a})(), axis=0)",
         "np.array(type('A', (), {'__array__': lambda self, dtype=None, copy=None: k})(), ndmin=2)",
         "[np.issubdtype(x.dtype, t) for x in (a, k, s, k > 1) for t in (np.inexact, "
         "np.signedinteger, np.unsignedinteger, np.complexfloating, np.flexible, np.character, "
         "np.generic, np.floating, np.integer, np.number)]",
         "[isinstance(a[0, 0], np.inexact), isinstance(s[0], np.inexact), "
         "isinstance(k[0], np.signedinteger), isinstance(k[0], np.unsignedinteger), "
         "isinstance(a[0, 0], np.complexfloating), isinstance(k[0], np.flexible)]",
         "np.add.reduce(a)", "np.add.reduce(a, axis=1)", "np.add.reduce(a, axis=None)",
         "np.add.reduce(s)", "np.multiply.reduce(k)", "np.maximum.reduce(a, axis=-1, keepdims=True)",
         "np.minimum.reduce(q, axis=0)", "np.subtract.reduce(v)", "np.subtract.reduce(a, axis=1)",
         "np.divide.reduce(w)", "np.power.reduce(k[:3])", "np.logical_and.reduce(a > 0, axis=0)",
         "np.logical_or.reduce(k > 3)", "np.bitwise_xor.reduce(k)", "np.hypot.reduce(a, axis=0)",
         "np.add.reduce(a, axis=(0, 1))", "np.add.reduce(k, initial=10)", "np.maximum.reduce(v, initial=0.5)",
         "np.add.reduce(np.zeros((0, 3)))", "np.maximum.reduce(np.zeros(0))",
         "np.subtract.reduce(a, axis=(0, 1))", "np.add.accumulate(v)", "np.add.accumulate(a, axis=1)",
         "np.multiply.accumulate(k)", "np.maximum.accumulate(v)", "np.minimum.accumulate(q, axis=1)",
         "np.subtract.accumulate(w)", "np.divide.accumulate(k[:3])", "np.logical_xor.accumulate(v > 0)",
         "np.multiply.outer(v, w)", "np.subtract.outer(k, q).shape", "np.greater.outer(w, v)",
         "np.add.reduceat(k, [0, 2, 1, 4])", "np.maximum.reduceat(a, [0, 2], axis=1)",
         "(lambda x: (np.add.at(x, [0, 0, 2], 1.5), x)[1])(v.copy())",
         "(lambda x: (np.multiply.at(x, (np.array([0, 1, 1]), np.array([2, 0, 0])), w[0]), x)[1])(a.copy())",
         "(lambda x: (np.negative.at(x, slice(1, 3)), x)[1])(v.copy())",
         "(lambda x: (np.maximum.at(x, k % 4, w[0]), x)[1])(v.copy())",
         "[np.add.nin, np.add.nout, np.add.nargs, np.add.identity, np.multiply.identity, "
         "np.sin.nin, np.maximum.identity, np.logical_and.identity, np.matmul.signature]",
         "[repr(np.add), np.sin.__name__, np.abs.__name__, np.abs is np.absolute, "
         "isinstance(np.exp, np.ufunc), np.true_divide is np.divide]",
         "np.sin.reduce(a)", "np.matmul.reduce(a)", "np.modf.outer(v, w)",
         "[np.broadcast(w, a).shape, np.broadcast(w, a).nd, np.broadcast(w, a).ndim, "
         "np.broadcast(w, a).size, np.broadcast(k, 1.5).numiter, np.broadcast().shape]",
         "[tuple(float(x) for x in t) for t in np.broadcast(w, a)]",
         "(lambda b: (next(b), next(b), b.index, b.reset(), b.index)[2:])(np.broadcast(v, v))",
         "np.broadcast(v, w)", "isinstance(a.flat, np.flatiter)",
         "a[1, 2, ...]", "type(a[1, 2, ...]).__name__", "type(a[1, 2]).__name__",
         "k[3, ...]", "np.array(3.5)[...]", "type(np.array(3.5)[()]).__name__",
         "(lambda x: (x[0, 1, ...].__setitem__(Ellipsis, 7.5), x)[1])(a.copy())",
         "(lambda x: (x[..., 2].__setitem__(Ellipsis, -1.0), x)[1])(v.copy())",
         "[float(x) for x in np.nditer(a)]", "[float(x) for x in np.nditer(a.T)]",
         "[float(x) for x in np.nditer(a, order='F')]", "[float(x) for x in np.nditer(a.T, order='C')]",
         "[(float(x), float(y)) for x, y in np.nditer([w, a])]",
         "(lambda it: [(it.multi_index, float(x)) for x in it])(np.nditer(a, flags=['multi_index']))",
         "(lambda it: [(it.index, float(x)) for x in it])(np.nditer(a, flags=['f_index']))",
         "(lambda it: [(it.index, float(x)) for x in it])(np.nditer(a.T, flags=['c_index']))",
         "(lambda x: ([y.__setitem__(Ellipsis, 2 * y) for y in np.nditer(x, op_flags=['readwrite'])], x)[1])(a.copy())",
         "(lambda it: ([o.__setitem__(Ellipsis, p * p + 1) for p, o in it], it.operands[1])[1])"
         "(np.nditer([a, None], op_flags=[['readonly'], ['writeonly', 'allocate']]))",
         "[y.__setitem__(Ellipsis, 1.0) for y in np.nditer(a.copy())]",
         "np.nditer([v, np.zeros(3)], op_flags=[['readonly'], ['readwrite']])",
         "(lambda it: (it.itersize, it.finished, it.iternext(), it.iterindex))(np.nditer(a))",
         "(lambda it: (it.itersize, len(it.operands)))(np.nditer([w, a]))",
         "[float(x) for x in np.nditer(np.array(2.5))]", "list(np.nditer(np.zeros((0, 2))))",
         "list(np.nditer(np.zeros((0, 2)), flags=['zerosize_ok']))",
         # ufuncs' keyword arguments and positional outputs: out (broadcast into, cast
         # under the casting rule, aliasing an input), where, dtype, signature, casting,
         # order, and the errors of each
         "np.add(a, w, out=np.zeros((2, 3)))", "np.add(a, 1.0, np.ones((2, 3)))",
         "np.multiply(w, 2.0, out=np.zeros((2, 3)))", "np.add(2.0, 3.0, out=np.zeros(()))",
         "np.sin(a, out=(np.zeros((2, 3)),))", "np.add(a, 1.0, out=None)",
         "(np.multiply(a, a, out=a), a)[1]", "(np.subtract(a, a[::-1], out=a), a)[1]",
         "np.maximum(w, w[::-1], out=w[::-1])", "np.add(k, 1, out=k)", "np.add(k, k, out=np.zeros(5))",
         "np.add(a, 1.5, out=q)", "np.add(a, 1.5, out=q, casting='unsafe')",
         "np.add(a, 1.0, out=np.zeros((2, 3), 'float32'))",
         "np.add(a, 1.0, out=np.zeros((2, 3), 'float32'), casting='safe')",
         "np.add(a, w, out=np.zeros(3))", "np.add(a, w, out=np.zeros((4, 2, 3)))",
         "np.add(a, 1.0, out=[0.0] * 6)", "np.add(a, 1.0, np.zeros((2, 3)), out=None)",
         "np.add(a)", "np.add(a, a, a, a)", "np.add(a, a, bogus=1)",
         "np.add(a, 1.0, out=np.zeros((2, 3)), where=a > 0)",
         "np.negative(w, out=np.ones(3), where=[True, False, True])",
         "np.add(a, 1.0, out=np.zeros((2, 3)), where=np.array([1, 0, 1]))",
         "np.add(k, k, dtype='float32')", "np.add(k, 1.5, dtype='int64')", "np.add(a, a, dtype='int64')",
         "np.add(a, a, dtype='int64', casting='unsafe')", "np.sin(k, dtype='float32')",
         "np.sin(k, dtype='int64')", "np.greater(a, 0.0, dtype=bool)", "np.greater(a, 0.0, dtype='float64')",
         "np.add(a, a, signature=(None, None, 'float32'))", "np.add(k, k, signature='dd->d')",
         "np.add(a, a, dtype='float32', signature='dd->d')", "np.add(a, a, order='F')", "np.add(a, a, order='Q')",
         "np.add(a, a, casting='bogus')", "np.add(a, a, subok=True)",
         "np.divmod(w, 2.0, out=(np.zeros(3), np.zeros(3)))", "np.divmod(w, 2.0, np.zeros(3))",
         "np.divmod(w, 2.0, out=np.zeros(3))", "np.isnan(z, out=np.zeros(5))", "np.isnan(z, out=np.zeros(5, bool))",
         "np.copyto(q, a)", "(np.copyto(q, a, casting='unsafe'), q)[1]", "(np.copyto(s, v), s)[1]",
         "np.copyto(k, 1.5)", "(np.copyto(v, 2), v)[1]", "(np.copyto(a, w, where=a > 0), a)[1]",
         "np.matmul.accumulate(a)", "np.matmul.outer(a, a)", "np.matmul.reduceat(a, [0])",
         "np.matmul.at(a, [0], a)", "np.sin.reduce(a)", "np.sin.outer(a, a)", "np.divmod.reduce(a)",
         "np.sin.accumulate(a)", "np.fft.fft2(a, axes=(0, 2))", "np.fft.rfft(w, axis=-2)",
         "np.fft.irfft(w, axis=1)", "np.fft.fftn(a, axes=(-3,))"]
QUANT = ["np.quantile(a, 0.3{ax})", "np.percentile(a, 70{ax})",
         "np.quantile(a, [0.1, 0.5]{ax})", "np.quantile(a, 0.4{ax}, method='nearest')",
         "np.percentile(a, 25{ax}, method='lower')"]


# int64 past 2**53 and at its ends: exactness and NumPy's wrap-around on overflow.
WIDE = [2 ** 62 + 1, -(2 ** 62) - 3, 2 ** 63 - 1, -(2 ** 63), 2 ** 53 + 1, -(2 ** 53) - 1,
        9007199254740993, 123456789012345678, -7, 3, 0, 1]
WIDE_EXPRS = ["a + b", "a - b", "a * b", "a // b", "a % b", "a ** 2", "a + 1", "a * 3",
              "a - 2 ** 62", "a == b", "a < b", "a >= b", "np.maximum(a, b)", "a & b",
              "a | b", "a ^ b", "np.sum(a)", "np.prod(a)", "np.max(a)", "np.min(a)",
              "np.sum(a, axis=0)", "a.sum(axis=-1, keepdims=True)", "a[::-1]", "a.T",
              "a.reshape(-1)", "a.copy()", "a.astype(np.float64)", "a.astype(np.int64)",
              "a.tolist()", "a[0]", "a[-1, ...]", "np.array(a)", "a[a > 0]", "a[[0, 0]]",
              "a.ravel()", "a.flatten()", "np.negative(a)", "-a", "np.abs(a)",
              "np.square(a)", "np.cumsum(a)", "np.sort(a, axis=None)",
              "np.concatenate([a, b])", "np.where(a > b, a, b)", "np.stack([a, b])",
              "np.clip(a, -2 ** 60, 2 ** 60)", "a.item(0)", "np.argmax(a)", "np.unique(a)",
              "np.unique(a, return_counts=True)", "np.repeat(a, 2)", "np.tile(a, 2)",
              "np.roll(a, 1)", "np.diag(a.ravel()[:3])", "list(a.ravel())", "a @ b.T",
              "np.full(3, 9007199254740993)", "np.full_like(a, 2 ** 62 + 1)",
              "np.arange(9007199254740990, 9007199254740995)", "a.max(axis=0)",
              "a.cumsum(axis=-1)", "a.sort()", "repr(a)", "str(a)", "np.ptp(a)",
              "np.ptp(a, axis=0)", "np.clip(a, -8, 9007199254740995)",
              # Each of these once computed in float64 and gave a rounded int64.
              "np.argsort(a, axis=None, kind='stable')", "np.argsort(a, kind='stable')",
              "np.searchsorted(np.sort(a, axis=None), b.ravel())",
              "np.searchsorted(np.sort(a, axis=None), b.ravel(), side='right')",
              "np.searchsorted(np.sort(a, axis=None), 9007199254740993)",
              "np.dot(a.ravel(), b.ravel())", "np.dot(a, b.T)", "np.vdot(a, b)",
              "np.outer(a.ravel()[:2], b.ravel()[:3])", "np.fmax(a, b)", "np.fmin(a, b)",
              "np.round(a)", "np.trunc(a)", "np.trunc(9007199254740993)",
              "np.count_nonzero(a)", "a.ravel()[:2] + [9007199254740993, 1]",
              "np.concatenate([a.ravel(), [9007199254740993]])"]


def wide_values(rng, n):
    return [rng.choice(WIDE) for _ in range(n)]


def generate_wide(seed=53, per_expr=3):
    """Every expression of WIDE_EXPRS, each on `per_expr` random draws of the values."""
    rng = Rng(seed)
    cases = []
    for expr in WIDE_EXPRS:
        for _ in range(per_expr):
            shape = rng.choice([(4,), (2, 2), (2, 3)])
            n = shape[0] * (shape[1] if len(shape) > 1 else 1)
            setup = ["a = np.array(%r, dtype='int64').reshape(%r)" % (wide_values(rng, n), shape),
                     "b = np.array(%r, dtype='int64').reshape(%r)" % (wide_values(rng, n), shape)]
            cases.append({"setup": setup, "expr": expr})
    return cases


def generate(seed=20261202, count=420):
    rng = Rng(seed)
    cases = []
    while len(cases) < count:
        kind = rng.below(5)
        if kind == 0:
            (sa, sb), da, db = rng.choice(PAIRS), rng.choice(DTYPES), rng.choice(DTYPES)
            expr = rng.choice(BINARY)
            args = [(sa, da), (sb, db)]
        elif kind == 1:
            expr = rng.choice(UNARY)
            args = [(rng.choice(SHAPES), rng.choice(DTYPES))]
        elif kind in (2, 3):
            shape = rng.choice([(3,), (2, 3), (2, 2, 3)])
            fn = rng.choice(REDUCE)
            axis = rng.choice(["", ", axis=0", ", axis=-1", ", axis=None"])
            keep = rng.choice(["", ", keepdims=True"]) if fn not in (
                "np.argmax", "np.argmin", "np.count_nonzero") or axis != "" else ""
            if fn in ("np.argmax", "np.argmin"):
                keep = ""
            expr = "%s(a%s%s)" % (fn, axis, keep)
            args = [(shape, rng.choice(DTYPES))]
        else:
            shape = rng.choice([(4,), (2, 3), (2, 2, 3)])
            axis = rng.choice(["", ", axis=0", ", axis=-1"])
            expr = rng.choice(QUANT).format(ax=axis)
            args = [(shape, rng.choice(["float64", "float32", "int64"]))]
        names = "ab"
        setup = ["%s = %s" % (names[i], literal(s, d, values(rng, s, d)))
                 for i, (s, d) in enumerate(args)]
        cases.append({"setup": setup, "expr": expr})
    return (cases + generate_wide() + generate_scalar() + generate_single() + generate_writes()
            + generate_funcs() + generate_reductions() + generate_kernels32() + generate_io() + generate_print()
            + generate_float_texts() + generate_linalg() + generate_fft() + generate_complex()
            + generate_reduce_extras())


def generate_scalar(seed=20261205):
    """Every expression of SCALAR on a float64 array of each shape (3,) and (2, 3)."""
    rng = Rng(seed)
    cases = []
    for expr in SCALAR:
        for shape in [(3,), (2, 3)]:
            setup = ["a = " + literal(shape, "float64", values(rng, shape, "float64"))]
            cases.append({"setup": setup, "expr": expr})
    return cases


def generate_single(seed=20261206):
    """Every expression of SINGLE on two draws of a float32 vector (nonzero first
    element)."""
    rng = Rng(seed)
    cases = []
    for expr in SINGLE:
        for _ in range(2):
            vals = values(rng, (3,), "float32")
            vals[0] = vals[0] or 1.25
            cases.append({"setup": ["a = " + literal((3,), "float32", vals)], "expr": expr})
    return cases


def generate_writes(seed=20261207):
    """Every statement of WRITES on a float64 and an int64 array of shapes (3,) and (2, 3),
    the array compared afterwards."""
    rng = Rng(seed)
    cases = []
    for stmt in WRITES:
        for shape, dtype in [((3,), "float64"), ((2, 3), "int64")]:
            setup = ["a = " + literal(shape, dtype, values(rng, shape, dtype)), stmt]
            cases.append({"setup": setup, "expr": "a"})
    return cases


# numpy.linalg's functions written in Python over the native ones; the factorizations
# (faer's, not LAPACK's) round differently, so these compare within 1e-12 relative.
LINALG = [
    "np.linalg.cond(m + 4 * np.eye(3))", "np.linalg.cond(m + 4 * np.eye(3), 'fro')",
    "np.linalg.cond(m + 4 * np.eye(3), 1)", "np.linalg.cond(m + 4 * np.eye(3), -np.inf)",
    "np.linalg.cond(m + 4 * np.eye(3), -2)", "np.linalg.cond(m + 4 * np.eye(3), 'nuc')",
    "np.linalg.cross(w, m[0])", "np.linalg.cross(m, m[::-1])", "np.linalg.cross(v, v)",
    "np.linalg.matrix_transpose(a)", "np.linalg.matrix_transpose(v)",
    "np.linalg.tensordot(a, m, axes=1)", "np.linalg.vecdot(a, w)",
    "np.linalg.vecdot(m, m, axis=0)", "np.linalg.vector_norm(a)",
    "np.linalg.vector_norm(a, axis=0, ord=1)", "np.linalg.vector_norm(a, axis=(0, 1), keepdims=True)",
    "np.linalg.vector_norm(m, ord=np.inf, axis=1, keepdims=True)", "np.linalg.vector_norm(v, ord=0)",
    "np.linalg.matrix_norm(m)", "np.linalg.matrix_norm(m, ord=1, keepdims=True)",
    "np.linalg.matrix_norm(m, ord='nuc')", "np.linalg.tensorinv((m + 4 * np.eye(3)).reshape(3, 3), ind=1)",
    "np.linalg.tensorinv(np.eye(6).reshape(6, 2, 3) + 0.1 * np.arange(36.0).reshape(6, 2, 3) / 36, ind=1)",
    "np.linalg.tensorsolve(np.eye(6).reshape(2, 3, 6) + 0.01 * np.arange(36.0).reshape(2, 3, 6), a)",
    "np.linalg.tensorsolve(np.eye(6).reshape(2, 3, 2, 3), a, axes=(0, 1))",
    "np.linalg.tensorsolve(np.eye(6).reshape(2, 3, 6), v)", "np.linalg.tensorinv(m, ind=0)"
]


# The reductions' `out=`, `initial=` and `where=` and NumPy's positional order
# (sum(a, axis, dtype, out, keepdims, initial, where); max(a, axis, out, keepdims,
# initial, where)), over float64, float32, int64 and bool arrays.
REDUCE_EXTRAS = [
    "np.sum(a, initial=5)", "np.sum(a, axis=0, initial=-1.5)", "np.sum(q, initial=3)",
    "np.sum(a, where=a > 0)", "np.sum(a, axis=1, where=a > 0, keepdims=True)",
    "np.sum(q, axis=0, where=q != 0, initial=1)", "np.sum(s, where=s > 0)",
    "np.sum(q > 0, where=q < 3)", "np.prod(a, initial=2.0)", "np.prod(q, axis=1, where=q > 0)",
    "np.max(a, initial=10)", "np.max(a, axis=0, where=a > 0, initial=-9)",
    "np.max(a, where=a > 0)", "np.min(q, axis=1, initial=-2)", "np.min(s, where=s < 0, initial=0)",
    "np.max(np.zeros((0, 3)), axis=0, initial=4.0)", "np.max(np.zeros(0), initial=1)",
    "np.amax(a, 1, None, True)", "np.min(a, 0, None)", "np.mean(a, where=a > 0)",
    "np.mean(a, axis=0, where=a > -1)", "np.mean(s, where=s > 0)", "np.mean(q, where=q > 0)",
    "np.mean(a, initial=1)", "np.all(a > -2, where=a < 1)", "np.any(a > 0, axis=0, where=a < 2)",
    "np.all(a, initial=True)", "np.sum(a, 0, None, np.zeros(3))", "np.sum(a, 0, None, None, True)",
    "np.prod(a, 1, None, np.zeros(2), False, 1.0)", "np.max(a, 0, np.zeros(3))",
    "np.sum(a, axis=0, out=np.zeros(2))", "np.max(a, out=np.zeros(()))",
    "o = np.zeros(3); r = np.sum(a, axis=0, out=o); [r is o, o]",
    "a.sum(initial=1)", "a.sum(0, None, None, False, 0.5, a > 0)", "a.max(where=a < 1, initial=0)",
    "a.min(axis=1, out=np.zeros(2))", "a.mean(where=a > 0)", "(a > 0).any(where=a < 0)",
    "np.var(a, where=a > 0)", "np.std(a, axis=0, where=a > -2, ddof=1)",
    "np.var(a, axis=1, correction=1)", "np.var(a, ddof=1, correction=1)",
    "np.std(s, where=s > 0)", "np.var(a, axis=0, mean=np.mean(a, axis=0, keepdims=True))",
    "np.var(a, out=np.zeros(()))", "a.var(where=a > 0, keepdims=True)",
    "o = np.zeros(2); r = np.std(a, axis=1, out=o); [r is o, o]",
]


def generate_reduce_extras(seed=20261215):
    base = generate_funcs(seed)[0]["setup"]
    cases = []
    for expr in REDUCE_EXTRAS:
        setup = list(base)
        if "; " in expr:
            stmt, expr = expr.rsplit("; ", 1)
            setup.append(stmt)
        cases.append({"setup": setup, "expr": expr})
    return cases


def generate_linalg(seed=20261212):
    base = generate_funcs(seed)[0]["setup"]
    return [{"setup": base, "expr": expr, "tol": 1e-12} for expr in LINALG]


# numpy.fft: every function with lengths, axes and normalisations, on float64, float32,
# int64 and complex input. Transforms round differently from NumPy's pocketfft, so
# these compare within 1e-13 (float32: 2**-20) of the largest magnitude of the result.
FFT = [
    "np.fft.fft(v)", "np.fft.fft(odd)", "np.fft.fft(v, n=5)", "np.fft.fft(v, n=12)",
    "np.fft.fft(m, axis=0)", "np.fft.fft(t, axis=1)", "np.fft.fft(t, axis=-3)",
    "np.fft.fft(v, norm='ortho')", "np.fft.fft(v, norm='forward')",
    "np.fft.fft(v, norm='backward')", "np.fft.ifft(v)", "np.fft.ifft(zc, norm='ortho')",
    "np.fft.ifft(zc, norm='forward')", "np.fft.fft(zc)", "np.fft.fft(s32)", "np.fft.ifft(s32)",
    "np.fft.fft(iv)", "np.fft.fft([1, 2j, 3])", "np.fft.fft(prime)", "np.fft.fft(big)",
    "np.fft.fft2(m)", "np.fft.ifft2(m)", "np.fft.fft2(t)", "np.fft.fft2(m, s=(2, 5))",
    "np.fft.fftn(t)", "np.fft.fftn(t, s=(2, 4), axes=(0, 2))", "np.fft.ifftn(t, axes=(1,))",
    "np.fft.fftn(m, norm='ortho')", "np.fft.rfft(v)", "np.fft.rfft(odd)",
    "np.fft.rfft(v, n=11)", "np.fft.rfft(m, axis=0)", "np.fft.rfft(s32)",
    "np.fft.rfft(v, norm='forward')", "np.fft.irfft(np.fft.rfft(v))",
    "np.fft.irfft(np.fft.rfft(odd), n=7)", "np.fft.irfft(zc)", "np.fft.irfft(zc, n=9)",
    "np.fft.irfft(zc, n=9, norm='forward')", "np.fft.irfft(zc, n=3)", "np.fft.irfft(m)",
    "np.fft.irfft(m, axis=0)", "np.fft.rfft2(m)", "np.fft.irfft2(np.fft.rfft2(m), s=m.shape)",
    "np.fft.rfftn(t)", "np.fft.irfftn(np.fft.rfftn(t), s=t.shape)", "np.fft.irfftn(t)",
    "np.fft.rfftn(t, axes=(0, 1))", "np.fft.hfft(zc)", "np.fft.hfft(zc, n=6)",
    "np.fft.hfft(v, norm='ortho')", "np.fft.ihfft(v)", "np.fft.ihfft(odd, norm='forward')",
    "np.fft.fftfreq(8)", "np.fft.fftfreq(7, d=0.5)", "np.fft.rfftfreq(8, 0.1)",
    "np.fft.rfftfreq(7)", "np.fft.fftshift(v)", "np.fft.ifftshift(m)",
    "np.fft.fftshift(m, axes=1)", "np.fft.ifftshift(odd)", "np.fft.fftshift(np.fft.fft(odd))",
    "np.fft.ifftshift(np.fft.fftshift(t))", "np.fft.fft(v, out=np.zeros(8, complex))",
    "np.fft.fft(v, n=0)", "np.fft.fft(v, axis=2)", "np.fft.fft(v, norm='bad')",
    "np.fft.rfft(zc)", "np.fft.fft(np.array([]))", "np.fft.fft(np.float64(2.0))",
    "np.fft.fftn(m, s=(2,), axes=(0, 1))", "np.fft.irfft(v[:1])",
]


def drawn(rng, specs):
    """Setup lines binding each (name, shape, dtype) of `specs` to a drawn array."""
    return ["%s = %s" % (name, literal(shape, dtype, values(rng, shape, dtype)))
            for name, shape, dtype in specs]


def complex_line(rng, name, shape, sign="+"):
    """A setup line binding `name` to a drawn complex array of `shape`."""
    n = 1
    for d in shape:
        n *= d
    return "%s = np.array(%r).reshape(%r) %s 1j * np.array(%r).reshape(%r)" % (
        name, values(rng, (n,), "float64"), shape, sign, values(rng, (n,), "float64"), shape)


def generate_fft(seed=20261213):
    rng = Rng(seed)
    cases = []
    for expr in FFT:
        setup = drawn(rng, [("v", (8,), "float64"), ("odd", (7,), "float64"),
                            ("m", (3, 4), "float64"), ("t", (2, 3, 5), "float64"),
                            ("s32", (6,), "float32"), ("iv", (5,), "int64")])
        setup += ["prime = np.sin(np.arange(37.0))", "big = np.cos(np.arange(1000.0) * 0.37)",
                  complex_line(rng, "zc", (5,))]
        cases.append({"setup": setup, "expr": expr, "scaled": 1e-13})
    return cases


# Complex arrays: construction, arithmetic with real arrays and Python numbers,
# indexing and views, reductions, comparisons, the complex-aware functions and text.
COMPLEX = [
    "z", "repr(z)", "str(z)", "repr(w)", "str(w)", "repr(z[0])", "str(z[1])",
    "z + a", "a + z", "z - a", "a - z", "z * a", "a * z", "z / a", "a / z", "z * z",
    "z / z[::-1]", "z + 1j", "1j + a", "a * 1j", "a - 2j", "a / (1 + 1j)", "(1 - 2j) / a",
    "z ** 2", "z ** 3", "z ** -1", "z ** 0.5", "-z", "+z", "abs(z)", "np.abs(z)",
    "np.sign(z)", "np.sign(w)", "np.sign(np.array([0j, 3 + 4j, -2j]))",
    "np.absolute(w)", "z == z", "z != z[::-1]", "z == 1j", "a == 1j", "z.real", "z.imag",
    "np.real(z)", "np.imag(z)", "np.real(a)", "np.imag(a)", "a.imag", "np.arange(3).imag",
    "np.ones(2, np.float32).imag", "c = a.imag; c[0] = 1.0; c", "np.copysign(a, -1.0)", "np.conj(z)", "np.conjugate(w)",
    "z.conj()", "np.angle(z)", "np.angle(z, deg=True)", "np.angle(a)", "np.exp(z)",
    "np.log(z)", "np.sqrt(z)", "np.sqrt(-a + 0j)", "np.sin(z)", "np.cos(z)", "np.square(z)",
    "np.sum(z)", "np.sum(w, axis=0)", "np.sum(w, axis=1, keepdims=True)", "np.mean(z)",
    "np.mean(w, axis=0)", "z.sum()", "w.mean(axis=1)", "np.cumsum(z)", "z.cumsum()",
    "w.prod()", "z.prod()", "np.isfinite(z)", "np.isnan(z * np.inf)", "np.isinf(z * np.inf)",
    "np.allclose(z, z + 1e-12)", "np.isclose(z, z[::-1])", "np.array_equal(z, z.copy())",
    "np.iscomplexobj(z)", "np.iscomplexobj(a)", "np.isrealobj(z)", "np.iscomplex(z)",
    "np.isreal(np.array([1 + 0j, 2j]))", "np.real_if_close(z)",
    "np.real_if_close(a + 1e-20j)", "np.sort_complex(z)", "np.sort_complex(a)",
    "z.tolist()", "z.item(1)", "complex(z[:1])", "z.shape", "z.ndim", "z.size", "str(z.dtype)",
    "str(w.dtype)", "w.T", "w.reshape(3, 2)", "w.ravel()", "w.flatten()", "w.transpose()",
    "w[1]", "w[:, 1:]", "w[0, 2]", "z[[0, 2]]", "z[z.real > 0]", "np.reshape(w, (6,))",
    "np.transpose(w)", "np.concatenate([z, a])", "np.stack([z, z])", "np.roll(z, 2)",
    "np.flip(w, 1)", "np.where(a > 0, z, 0)", "np.where(a > 0, z, a)", "np.tile(z, 2)",
    "np.repeat(z, 2)", "np.expand_dims(z, 0)", "np.swapaxes(w, 0, 1)",
    "np.moveaxis(w, 0, 1)", "np.diag(z)", "np.trace(np.diag(z))", "np.dot(z, z)",
    "np.dot(z, a)", "np.dot(a, z)", "z @ z", "w @ z", "a @ z", "np.vdot(z, z)",
    "np.inner(z, a)", "np.outer(z, a)", "np.matmul(w, z)", "np.array([1j, 2.0])",
    "np.array([[1 + 1j, 2], [3, 4j]])", "np.array(z)", "np.asarray(z) is z",
    "np.array([1j, 2], dtype=np.complex64)", "np.zeros(3, dtype=complex)",
    "np.ones((2, 2), dtype='complex64')", "np.full(2, 1 - 1j)", "np.zeros_like(z)",
    "np.ones_like(w)", "np.empty_like(z).shape", "np.full_like(z, 2j)",
    "np.array([1, 2]).astype(complex)", "z.astype(np.complex64)", "z.astype(float)",
    "np.asarray(a, dtype=complex)", "np.complex128(1 + 2j)", "repr(np.complex128(1 - 2j))",
    "repr(np.complex64(0.1 + 2j))", "np.complex64(0.1 + 0.2j).real", "z[0].real",
    "z.dtype == np.complex128", "w.dtype == complex", "z.dtype.kind", "z.itemsize",
    "z.nbytes", "len(z)", "list(z)", "np.array([z, z])", "np.max(z)", "np.sort(z)",
    "np.var(z)", "np.std(w, axis=0)", "w.var(axis=1, ddof=1)", "np.vecdot(z, z)", "np.vecdot(w, z)",
    "np.convolve(z, a)", "np.convolve(a, z, mode='same')", "np.correlate(z, a, 'full')",
    "np.correlate(a, z[:2], 'full')", "np.sort(w)", "np.sort(w, axis=0)",
    "np.min(w, axis=1, keepdims=True)", "np.sort(z * 0 + 1)", "w.max()", "z.min()",
    "np.min(z)", "np.amax(w)", "np.max(np.array([1 + np.nan * 1j, 2]))", "np.max(w, axis=0)",
    "np.correlate(z, z)", "z % 2", "z // 2", "np.shape(w)", "np.ndim(z)", "np.size(w)",
    "np.size(w, 1)", "np.size(a, 0)", "np.size(np.ones((2, 3)), (0, 1))",
    "np.ravel(np.ones((2, 3)).T, order='F')", "np.ones((2, 3)).T.ravel('K')",
    "np.arange(6).reshape(2, 3).ravel('F')", "np.arange(6).reshape(2, 3).T.flatten('A')",
    "np.arange(6).reshape(2, 3).ravel('Q')", "w.ravel('F')",
    "c = z.copy(); c[0] = 5j; c", "c = z.copy(); c += 1j; c", "c = z.copy(); c *= a; c",
    "c = w.copy(); c.real[0] = 9; c", "c = w.copy(); c.imag = 0; c",
    "c = np.zeros(3, complex); c[1:] = z[:2]; c", "c = a.copy(); c[0] = 1j; c",
    "repr(np.array([1e-9 + 1j, 1e3 - 2.5j]))", "repr(np.array([np.nan + 1j, np.inf - 1j]))",
    "repr(np.zeros((2, 0), complex))", "repr(np.zeros(2, np.complex64))",
    "repr(np.array([1 + 1j]) / 3)", "str(np.array([[1j, 2], [3, 4.5 - 1e-5j]]))",
    "repr(np.arange(2000) * 1j)", "np.array2string(z)",
]


def generate_complex(seed=20261214):
    rng = Rng(seed)
    cases = []
    for expr in COMPLEX:
        setup = drawn(rng, [("a", (3,), "float64")])
        setup += [complex_line(rng, "z", (3,)), complex_line(rng, "w", (2, 3), "-")]
        if "; " in expr:
            stmt, expr = expr.rsplit("; ", 1)
            setup.append(stmt)
        cases.append({"setup": setup, "expr": expr})
    return cases


def generate_funcs(seed=20261208):
    """Every expression of FUNCS on two draws of its arrays."""
    rng = Rng(seed)
    cases = []
    for expr in FUNCS:
        for _ in range(2):
            setup = ["a = " + literal((2, 3), "float64", values(rng, (2, 3), "float64")),
                     "v = " + literal((4,), "float64", values(rng, (4,), "float64")),
                     "w = " + literal((3,), "float64", values(rng, (3,), "float64")),
                     "k = np.array(%r, dtype='int64')" % [rng.below(6) for _ in range(5)],
                     "m = " + literal((3, 3), "float64", values(rng, (3, 3), "float64")),
                     "s = " + literal((4,), "float32", values(rng, (4,), "float32")),
                     "z = np.array([1.5, np.nan, np.inf, -2.0, -np.inf])",
                     "q = np.array(%r, dtype='int64').reshape((2, 3))"
                     % [rng.below(9) - 4 for _ in range(6)]]
            cases.append({"setup": setup, "expr": expr})
    return cases


# File input and output: the bytes `save`, `savez` and `savetxt` write, and what `load`,
# `loadtxt` and `genfromtxt` read back, in a fresh directory per case.
IO = ["list(open(path('x.npy'), 'rb').read())", "np.load(path('x.npy'))",
      "np.load(path('k.npy'))", "np.load(path('s.npy'))", "np.load(path('b.npy'))",
      "np.load(path('0.npy'))", "sorted(np.load(path('z.npz')).files)",
      "np.load(path('z.npz'))['arr_0']", "np.load(path('z.npz'))['m']",
      "np.load(path('c.npz'))['arr_1']", "open(path('a.txt')).read()",
      "np.loadtxt(path('a.txt'))", "np.loadtxt(path('a.txt'), ndmin=2)",
      "np.loadtxt(path('a.txt'), unpack=True)", "np.loadtxt(path('a.txt'), usecols=(0, 2))",
      "open(path('k.txt')).read()", "np.loadtxt(path('k.txt'), dtype=int, delimiter=',')",
      "np.loadtxt(path('k.txt'), delimiter=',', ndmin=2)", "open(path('h.txt')).read()",
      "np.loadtxt(path('h.txt'))", "np.genfromtxt(path('g.txt'), delimiter=',')",
      "np.genfromtxt(path('g.txt'), delimiter=',', filling_values=-1.0)",
      "np.genfromtxt(path('g.txt'), delimiter=',', skip_header=1, usecols=(0, 2))",
      "np.frombuffer(open(path('x.npy'), 'rb').read()[128:], dtype=np.float64)",
      "np.frombuffer(bytes(range(16)), dtype=np.int64, count=1, offset=8)",
      "np.fromstring('1.5, 2, -3', sep=',')", "np.fromstring('4 5 6', dtype=int, sep=' ')",
      "np.fromfile(path('x.npy'), dtype=np.float64, offset=128)", "np.load(path('nope.npy'))"]
IO_SETUP = ["import tempfile, os", "d = tempfile.mkdtemp()",
            "path = lambda name: os.path.join(d, name)",
            "np.save(path('x'), a)", "np.save(path('k.npy'), q)", "np.save(path('s.npy'), s)",
            "np.save(path('b.npy'), v > 0)", "np.save(path('0.npy'), np.array(2.5))",
            "np.savez(path('z'), v, m=m)", "np.savez_compressed(path('c.npz'), a, w)",
            "np.savetxt(path('a.txt'), a)",
            "np.savetxt(path('k.txt'), k.reshape(5, 1), fmt='%d', delimiter=',')",
            "np.savetxt(path('h.txt'), w, fmt='%.6f', header='one\\ntwo', footer='end')",
            "open(path('g.txt'), 'w').write('1,2,3\\n4,,6\\n# note\\n7,8,x\\n')"]


# Print options and array texts: `array2string`/`array_str`/`array_repr` with options, and
# `printoptions` blocks (whose options end with the block: the cases after see the
# defaults).
PRINT = ["np.array2string(a)", "np.array2string(a, precision=2)",
         "np.array2string(a, separator=', ')", "np.array2string(v * 1e-6)",
         "np.array2string(v * 1e-6, suppress_small=True)", "np.array2string(z, precision=3)",
         "np.array2string(np.arange(2000.0), threshold=10, edgeitems=2)",
         "np.array2string(np.arange(30.0), max_line_width=20)",
         "np.array2string(m / 7, precision=3, prefix='x = ')", "np.array_repr(m / 7, precision=2)",
         "np.array_str(s / 3, precision=4)", "np.array_str(z * 1e9, suppress_small=True)",
         "np.array_repr(np.arange(30.0) / 7, max_line_width=40)", "np.array2string(k)",
         "np.array2string(v > 0)", "np.array2string(np.array(2.0 / 3))", "np.array2string(a[:0])",
         "sorted(np.get_printoptions().items())", "printed", "inside", "np.array_repr(q, 30)"]
PRINT_SETUP = ["with np.printoptions(precision=3, suppress=True) as inside:\n"
               "    printed = repr(m / 7 * 1e-5) + str(s / 3) + repr(np.arange(2000.0))",
               "with np.printoptions(threshold=5, edgeitems=1, nanstr='NaN', infstr='Inf', "
               "linewidth=30):\n    printed += str(z) + repr(np.arange(40.0))"]


# One float's text (NumPy's Dragon4): each value under each set of options, positional
# and scientific.
FLOAT_VALUES = ["0.0", "-0.0", "1.0", "1.5", "0.1", "0.15", "0.96", "9.96", "123.456", "1e20",
                "1e-7", "2.5", "-3.75", "1 / 3", "2 / 3 * 1e-5", "np.float32(0.1)",
                "np.float32(1 / 3)", "np.float32(3.4e38)", "np.nan", "np.inf", "-np.inf", "7",
                "True", "np.float64(0.3)", "np.array(1.25)", "'1.5'"]
FLOAT_OPTIONS = ["", ", precision=1", ", precision=3, unique=False", ", trim='0'", ", trim='-'",
                 ", trim='.', sign=True", ", min_digits=3", ", precision=0, unique=False",
                 ", pad_left=5, precision=2", ", unique=False", ", precision=-1",
                 ", precision=2, min_digits=3", ", trim='x'"]
POSITIONAL_OPTIONS = [", precision=2, fractional=False", ", precision=2, fractional=False, unique=False",
                      ", pad_right=4", ", precision=4, fractional=False, trim='-'"]
SCIENTIFIC_OPTIONS = [", exp_digits=4", ", precision=2, exp_digits=1", ", min_digits=4, trim='-'"]


def generate_float_texts(seed=20261211, drawn=80):
    """FLOAT_VALUES under every option set, and `drawn` seeded values (digits times a
    power of ten, some as float32) under a few."""
    rng = Rng(seed)
    cases = []
    for _ in range(drawn):
        text = "%s%de%d" % (rng.choice(["", "-"]), rng.below(10 ** rng.choice([1, 3, 7, 17])),
                           rng.below(40) - 20)
        value = rng.choice(["%s", "np.float32(%s)"]) % text
        opts = rng.choice(["", ", precision=%d" % rng.below(6),
                           ", precision=%d, unique=False" % rng.below(9),
                           ", min_digits=%d" % rng.below(9)])
        func = rng.choice(["np.format_float_positional", "np.format_float_scientific"])
        cases.append({"setup": [], "expr": "%s(%s%s)" % (func, value, opts)})
        cases.append({"setup": [], "expr": "np.format_float_positional(%s, precision=%d, "
                      "fractional=False%s)" % (value, rng.below(6) + 1,
                                               rng.choice(["", ", unique=False"]))})
    for value in FLOAT_VALUES:
        for opts in FLOAT_OPTIONS + POSITIONAL_OPTIONS:
            cases.append({"setup": [], "expr": "np.format_float_positional(%s%s)" % (value, opts)})
        for opts in FLOAT_OPTIONS + SCIENTIFIC_OPTIONS:
            cases.append({"setup": [], "expr": "np.format_float_scientific(%s%s)" % (value, opts)})
    return cases


def generate_print(seed=20261210):
    """Every expression of PRINT over one draw of the FUNCS arrays."""
    base = generate_funcs(seed)[0]["setup"]
    return [{"setup": base + PRINT_SETUP, "expr": expr} for expr in PRINT]


def generate_io(seed=20261209):
    """Every expression of IO over one draw of the FUNCS arrays."""
    base = generate_funcs(seed)[0]["setup"]
    return [{"setup": base + IO_SETUP, "expr": expr} for expr in IO]


# Sums, means, products, variances and running sums in NumPy's order and precision,
# compared bit for bit (EXACT): float32 values accumulate in float32; NumPy visits the
# axes in memory order (a transposed array's sum is its memory's), sums the innermost
# reduced run pairwise and a kept innermost axis element by element. The inputs are
# exact quotients (the same bits in both), shaped and laid out in several ways.
REDUCTIONS = ["np.sum(x)", "np.mean(x)", "np.prod(y)", "np.prod(y, axis=0)", "np.sum(x, axis=0)",
              "np.sum(x, axis=-1)", "np.mean(x, axis=0)", "x.sum()", "np.nansum(x)",
              "np.nanmean(x)", "np.var(x)", "np.std(x, axis=0)", "np.cumsum(x)[-3:]",
              "np.sum(x, keepdims=True)", "np.var(x, axis=-1, ddof=1)", "x.mean(axis=0)",
              "np.average(x)"]
LAYOUTS = ["base", "base.T", "base[::-1]", "base[..., ::2]", "np.asfortranarray(base)"]
EXACT_SHAPES = [(333,), (37, 9), (3, 4, 25), (9, 37)]


def generate_reductions():
    cases = []
    for shape in EXACT_SHAPES:
        n = 1
        for d in shape:
            n *= d
        for dtype in ("float64", "float32"):
            base = "base = (((np.arange(%d) * 7919) %% 1000 - 500) / 37.0).reshape(%r).astype(np.%s)" % (
                n, shape, dtype)
            for layout in LAYOUTS:
                # `y`, values near 1 (for products), laid out as `x`.
                setup = [base, "near = base / 500 + 1", "x = " + layout,
                         "y = " + layout.replace("base", "near")]
                for expr in REDUCTIONS:
                    cases.append({"setup": setup, "expr": expr, "exact": True})
    return cases


# NumPy's float32 tanh, exp, log, sin and cos are its own approximations (SIMD kernels on
# x86-64 with AVX2/FMA or AVX-512); the embedded numpy computes them as NumPy does, so
# they are compared bit for bit too, on every layout, on scalars, and on values where the
# kernels switch (subnormal results, sin/cos past their reduction's range).
KERNELS32 = ["np.tanh(x)", "np.exp(x)", "np.log(np.abs(x))", "np.sin(x)", "np.cos(x)",
             "np.tanh(x * 0.1)", "np.exp(x * 4)", "np.exp(-x * 4)", "np.log(x * x * 1e-40)",
             "np.sin(x * 1e4)", "np.cos(x * 3e3)", "np.tanh(x[1])", "np.exp(x[-1] * 2)",
             "np.sin(x[2])", "np.sqrt(np.abs(x))", "np.fabs(x)", "np.log(x)"]


def generate_kernels32():
    cases = []
    for shape in EXACT_SHAPES[:2]:
        n = 1
        for d in shape:
            n *= d
        base = "base = (((np.arange(%d) * 7919) %% 2000 - 1000) / 37.0).reshape(%r).astype(np.float32)" % (
            n, shape)
        for layout in LAYOUTS:
            for expr in KERNELS32:
                cases.append({"setup": [base, "x = " + layout], "expr": expr, "exact": True})
    return cases


def describe(r):
    """What a result is: ('array', dtype, shape, values) / ('scalar', kind, value) /
    ('tuple', [...])."""
    if isinstance(r, tuple):
        return ["tuple", [describe(x) for x in r]]
    if isinstance(r, str):
        return ["str", r]
    if isinstance(r, list):
        return ["list", [describe(x) for x in r]]
    if isinstance(r, np.ndarray) or str(getattr(r, "dtype", "")).startswith("complex") and \
            not isinstance(r, complex):
        vals = [encode(v) for v in r.reshape(-1).tolist()]
        return ["array", str(r.dtype), list(r.shape), vals]
    if isinstance(r, complex):
        name = type(r).__name__
        return ["scalar", "complex", encode(r), name]
    if isinstance(r, (bool, np.bool_)):
        return ["scalar", "bool", bool(r)]
    if isinstance(r, (int, np.integer)):
        return ["scalar", "int", int(r)]
    if isinstance(r, (float, np.floating)):
        single = isinstance(r, np.float32)
        return ["scalar", "float32" if single else "float", encode(float(r)),
                type(r).__name__]
    return ["other", type(r).__name__, repr(r)]


def encode(v):
    if isinstance(v, complex):
        return ["complex", encode(float(v.real)), encode(float(v.imag))]
    if isinstance(v, float) and not math.isfinite(v):
        return repr(v)
    return v


def evaluate(case):
    env = {"np": np}
    try:
        for line in case["setup"]:
            exec(line, env)
        return describe(eval(case["expr"], env))
    except Exception as e:  # the error's type is what is compared
        return ["error", builtin_type(e)]


def builtin_type(e):
    """The name of the first built-in class of the error's type: NumPy's own
    exceptions (UFuncTypeError, LinAlgError, AxisError, ...) count as the built-in
    exception they derive from."""
    return next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")


# NumPy's dtype -> the embedded numpy's (it has bool, int64, float32 and float64 only).
SUBSTITUTES = {"float16": "float64", "int8": "int64", "int32": "int64", "uint8": "int64"}
substituted = []
# Whether the case being compared is compared bit for bit (`REDUCTIONS`), or within a
# relative tolerance of its own (`LINALG`).
EXACT = [False]
TOL = [None]
# The largest magnitude of the expected result, for the cases compared relative to it.
SCALE = [None]


def magnitude(want):
    """The largest absolute value in a described result (1 at least)."""
    biggest = 1.0

    def visit(v):
        nonlocal biggest
        if isinstance(v, list):
            for x in v:
                visit(x)
        elif isinstance(v, float) and math.isfinite(v):
            biggest = max(biggest, abs(v))
    visit(want)
    return biggest


def close(x, y, single, tol=None):
    if isinstance(x, list) or isinstance(y, list):
        # complex numbers: each part
        return (isinstance(x, list) and isinstance(y, list)
                and all(close(p, q, single, tol) for p, q in zip(x[1:], y[1:])))
    if isinstance(x, str) or isinstance(y, str):
        return x == y
    if isinstance(x, bool) or isinstance(y, bool) or (isinstance(x, int) and isinstance(y, int)):
        return x == y
    x, y = float(x), float(y)
    if x == y:
        return True
    if EXACT[0]:
        return False
    if SCALE[0] is not None:
        # within the tolerance of the result's largest magnitude
        return abs(x - y) <= (2.0 ** -20 if single else TOL[0]) * SCALE[0]
    if tol is None:
        tol = TOL[0] or (2.0 ** -21 if single else 4 * 2.0 ** -52)
    return abs(x - y) <= tol * max(abs(x), abs(y))


def differ(want, got):
    """Why `got` (embedded) is not `want` (NumPy), or None."""
    if want[0] == "error" or got[0] == "error":
        # Both refuse, with the same built-in exception type.
        return None if want == got else "NumPy gave %r, embedded %r" % (want, got)
    if want[0] in ("str", "other"):
        return None if want == got else "NumPy gave %r, embedded %r" % (want, got)
    if want[0] in ("tuple", "list"):
        if got[0] != want[0] or len(got[1]) != len(want[1]):
            return "NumPy gave a tuple %r, embedded %r" % (want, got)
        for w, g in zip(want[1], got[1]):
            why = differ(w, g)
            if why:
                return why
        return None
    if want[0] == "scalar":
        # A 0-d NumPy result: the embedded numpy returns a Python scalar (or 0-d array).
        if got[0] == "array" and got[2] == []:
            got = ["scalar", {"b": "bool", "i": "int"}.get(got[1][0], "float"), got[3][0]]
        if got[0] != "scalar":
            return "NumPy gave the scalar %r, embedded %r" % (want, got)
        if want[1] != got[1]:
            return "kind %s vs %s" % (want[1], got[1])
        tol = None
        if len(want) > 3 and SUBSTITUTES.get(want[3]) in got[3:4]:
            substituted.append(want[3])
            tol = 2.0 ** -10
        elif len(want) > 3 and got[3:4] != want[3:4]:
            return "type %s vs %s" % (want[3], got[3] if len(got) > 3 else "array")
        return None if close(want[2], got[2], want[1] == "float32", tol) else "value %r vs %r" % (
            want[2], got[2])
    if want[2] == [] and got[0] == "scalar":
        # A 0-d result of basic indexing (`a[-1, ...]`): a Python scalar here (documented).
        kind = {"b": "bool", "i": "int"}.get(want[1][0], "float")
        return differ(["scalar", kind, want[3][0]], got)
    if got[0] != "array":
        return "NumPy gave an array %r, embedded %r" % (want[:3], got)
    tol = None
    if SUBSTITUTES.get(want[1]) == got[1]:
        substituted.append(want[1])
        tol = 2.0 ** -10
    elif want[1] != got[1]:
        return "dtype %s vs %s" % (want[1], got[1])
    if want[2] != got[2]:
        return "shape %r vs %r" % (want[2], got[2])
    single = want[1] in ("float32", "complex64")
    for i, (w, g) in enumerate(zip(want[3], got[3])):
        if not close(w, g, single, tol):
            return "element %d: %r vs %r" % (i, w, g)
    return None


def main():
    mode, path = sys.argv[1], sys.argv[2]
    cases = generate()
    if mode == "expect":
        with open(path, "w") as fh:
            json.dump([evaluate(c) for c in cases], fh)
        print("%d cases written" % len(cases))
        return
    with open(path) as fh:
        expected = json.load(fh)
    failures = 0
    for case, want in zip(cases, expected):
        got = evaluate(case)
        EXACT[0] = case.get("exact", False)
        TOL[0] = case.get("tol") or case.get("scaled")
        SCALE[0] = magnitude(want) if case.get("scaled") else None
        why = differ(want, got)
        if why:
            failures += 1
            print("DIFF %s; %s -> %s" % ("; ".join(case["setup"]), case["expr"], why))
    print("%d cases compared, %d differences (%d results in a substituted dtype: %s)" % (
        len(cases), failures, len(substituted), ", ".join(sorted(set(substituted))) or "none"))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
