"""The op catalog: every derivative rule, checked against central finite differences.

Each entry names a rule (its canonical name), a Python expression using it, and the input
shapes to try. For every entry and input set, a wrapper function is generated into a
module file (tangent reads source from files), then:
- reverse: the vector-Jacobian product with a random seed is compared with the finite
  difference of <seed, f(x)>;
- forward: the Jacobian-vector product with a random tangent is compared with the finite
  difference of f along that tangent.
Every gradient must also be shaped and typed like its input (and the tangent like the
output); with respect to one of several arguments the result must be that one gradient;
entries labelled `tangent.add_grad` accumulate two contributions of different shapes.
Run with `tangent run tests/catalog/check_catalog.py OUTDIR [float32]`. Exits non-zero
on failure.
tests/catalog.rs also checks that every registered rule appears here.
"""
import math
import os
import sys

import numpy as np
import tangent

# (rule, expression over the arguments, [arg specs]); each arg spec is a list of
# (shape, domain) per input set; `()` is a Python float. Domains: "any", "pos" (> 0.2),
# "unit" (inside (-0.9, 0.9)), "gt1" (> 1.2), "spd" (symmetric positive definite).
S = [(), (3,), (2, 3)]
B2 = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ())]


def unary(rule, expr, domain="any", shapes=S):
    return (rule, expr, [[(s, domain)] for s in shapes])


def binary(rule, expr, dx="any", dy="any", shapes=B2):
    return (rule, expr, [[(a, dx), (b, dy)] for a, b in shapes])


REDUCE = [(axis, keep) for axis in ("None", "0", "1", "-1", "(0, 1)") for keep in ("False", "True")]


def reductions(rule, fn):
    out = []
    for axis, keep in REDUCE:
        out.append((rule, "%s(a, axis=%s, keepdims=%s)" % (fn, axis, keep), [[((2, 3), "any")]]))
    return out


CATALOG = [
    # Python operators (on floats and arrays, with broadcasting)
    binary("operator.add", "a + b"),
    binary("operator.sub", "a - b"),
    binary("operator.mul", "a * b"),
    binary("operator.truediv", "a / b", dy="pos"),
    binary("operator.pow", "a ** b", dx="pos"),
    unary("operator.neg", "-a"),
    unary("operator.pos", "+a"),
    ("operator.matmul", "a @ b", [[((2, 3), "any"), ((3, 4), "any")], [((3,), "any"), ((3, 2), "any")],
                                  [((2, 3), "any"), ((3,), "any")], [((3,), "any"), ((3,), "any")]]),
    # builtins
    unary("builtins.abs", "abs(a)", shapes=[()]),
    unary("builtins.float", "float(a)", shapes=[()]),  # NumPy 2: 0-d only
    binary("builtins.max", "max(a, b)", shapes=[((), ())]),
    binary("builtins.min", "min(a, b)", shapes=[((), ())]),
    binary("builtins.pow", "pow(a, b)", dx="pos", shapes=[((), ())]),
    ("builtins.sum", "sum([a, b, a * b])", [[((), "any"), ((), "any")]]),
    ("builtins.list", "sum(list((a * b, b))) + list(a)[0] * 2.0",
     [[((2,), "any"), ((), "any")]]),
    ("builtins.tuple", "sum(tuple([a * a, b])) + tuple(a)[-1] * a[0]",
     [[((3,), "any"), ((), "any")]]),
    # math
    unary("math.sin", "math.sin(a)", shapes=[()]),
    unary("math.cos", "math.cos(a)", shapes=[()]),
    unary("math.tan", "math.tan(a)", "unit", shapes=[()]),
    unary("math.asin", "math.asin(a)", "unit", shapes=[()]),
    unary("math.acos", "math.acos(a)", "unit", shapes=[()]),
    unary("math.atan", "math.atan(a)", shapes=[()]),
    unary("math.sinh", "math.sinh(a)", shapes=[()]),
    unary("math.cosh", "math.cosh(a)", shapes=[()]),
    unary("math.tanh", "math.tanh(a)", shapes=[()]),
    unary("math.asinh", "math.asinh(a)", shapes=[()]),
    unary("math.acosh", "math.acosh(a)", "gt1", shapes=[()]),
    unary("math.atanh", "math.atanh(a)", "unit", shapes=[()]),
    unary("math.exp", "math.exp(a)", shapes=[()]),
    unary("math.expm1", "math.expm1(a)", shapes=[()]),
    unary("math.log", "math.log(a)", "pos", shapes=[()]),
    binary("math.log", "math.log(a, b)", dx="pos", dy="gt1", shapes=[((), ())]),
    unary("math.log1p", "math.log1p(a)", "pos", shapes=[()]),
    unary("math.log2", "math.log2(a)", "pos", shapes=[()]),
    unary("math.log10", "math.log10(a)", "pos", shapes=[()]),
    unary("math.sqrt", "math.sqrt(a)", "pos", shapes=[()]),
    unary("math.cbrt", "math.cbrt(a)", "pos", shapes=[()]),
    unary("math.fabs", "math.fabs(a)", shapes=[()]),
    unary("math.erf", "math.erf(a)", shapes=[()]),
    unary("math.erfc", "math.erfc(a)", shapes=[()]),
    binary("math.atan2", "math.atan2(a, b)", shapes=[((), ())]),
    binary("math.pow", "math.pow(a, b)", dx="pos", shapes=[((), ())]),
    binary("math.hypot", "math.hypot(a, b)", shapes=[((), ())]),
    # numpy elementwise
    unary("numpy.sin", "np.sin(a)"),
    unary("numpy.cos", "np.cos(a)"),
    unary("numpy.tan", "np.tan(a)", "unit"),
    unary("numpy.arcsin", "np.arcsin(a)", "unit"),
    unary("numpy.arccos", "np.arccos(a)", "unit"),
    unary("numpy.arctan", "np.arctan(a)"),
    unary("numpy.sinh", "np.sinh(a)"),
    unary("numpy.cosh", "np.cosh(a)"),
    unary("numpy.tanh", "np.tanh(a)"),
    unary("numpy.arcsinh", "np.arcsinh(a)"),
    unary("numpy.arccosh", "np.arccosh(a)", "gt1"),
    unary("numpy.arctanh", "np.arctanh(a)", "unit"),
    unary("numpy.exp", "np.exp(a)"),
    unary("numpy.exp2", "np.exp2(a)"),
    unary("numpy.expm1", "np.expm1(a)"),
    unary("numpy.log", "np.log(a)", "pos"),
    unary("numpy.log1p", "np.log1p(a)", "pos"),
    unary("numpy.log2", "np.log2(a)", "pos"),
    unary("numpy.log10", "np.log10(a)", "pos"),
    unary("numpy.sqrt", "np.sqrt(a)", "pos"),
    unary("numpy.cbrt", "np.cbrt(a)", "pos"),
    unary("numpy.square", "np.square(a)"),
    unary("numpy.reciprocal", "np.reciprocal(a)", "pos"),
    unary("numpy.negative", "np.negative(a)"),
    unary("numpy.abs", "np.abs(a)"),
    unary("numpy.absolute", "np.absolute(a)"),
    unary("numpy.fabs", "np.fabs(a)"),
    unary("numpy.astype", "np.astype(a, np.float64)", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.astype", "a.astype(np.float64) * 2.0", shapes=[(3,), (2, 3)]),
    unary("numpy.float64", "np.float64(a) * a", shapes=[()]),
    binary("numpy.add", "np.add(a, b)"),
    binary("numpy.subtract", "np.subtract(a, b)"),
    binary("numpy.multiply", "np.multiply(a, b)"),
    binary("numpy.divide", "np.divide(a, b)", dy="pos"),
    binary("numpy.true_divide", "np.true_divide(a, b)", dy="pos"),
    binary("numpy.power", "np.power(a, b)", dx="pos"),
    binary("numpy.maximum", "np.maximum(a, b)"),
    binary("numpy.minimum", "np.minimum(a, b)"),
    ("numpy.where", "np.where(a > 0.0, a * 2.0, b)", [[((3,), "any"), ((3,), "any")], [((2, 3), "any"), ((3,), "any")]]),
    # reductions, every axis/keepdims variant
] + reductions("numpy.sum", "np.sum") + reductions("numpy.mean", "np.mean") + reductions(
    "numpy.max", "np.max") + reductions("numpy.min", "np.min") + reductions(
    "numpy.amax", "np.amax") + reductions("numpy.amin", "np.amin") + [
    # the NaN-ignoring reductions on data with NaNs (put in by np.where: no gradient there)
    ("numpy.nansum", "np.nansum(np.where(np.array([True, False, True]), a, np.nan))", [[((3,), "any")]]),
    ("numpy.nanmean", "np.nanmean(np.where(np.array([[True, False, True], [True, True, False]]), a, np.nan), axis=1)",
     [[((2, 3), "any")]]),
    ("numpy.nanmax", "np.nanmax(np.where(np.array([True, False, True]), a, np.nan))", [[((3,), "any")]]),
    ("numpy.nanmin", "np.nanmin(np.where(np.array([[True, False, True], [False, True, True]]), a, np.nan), axis=0)",
     [[((2, 3), "any")]]),
    # order statistics (each method, arrays of q, keepdims)
    ("numpy.quantile", "np.quantile(a, 0.3)", [[((5,), "any")], [((2, 3), "any")]]),
    ("numpy.quantile", "np.quantile(a, [0.25, 0.8], axis=1)", [[((2, 5), "any")]]),
    ("numpy.quantile", "np.quantile(a, 0.4, axis=0, keepdims=True, method='nearest')", [[((5, 2), "any")]]),
    ("numpy.quantile", "np.quantile(a, 0.5, method='midpoint')", [[((4,), "any")]]),
    ("numpy.quantile", "np.quantile(a, 0.7, axis=-1, method='lower')", [[((2, 4), "any")]]),
    ("numpy.quantile", "np.quantile(a, 0.7, method='higher')", [[((2, 4), "any")]]),
    ("numpy.percentile", "np.percentile(a, 70)", [[((5,), "any")], [((2, 3), "any")]]),
    ("numpy.percentile", "np.percentile(a, [10, 90], axis=-1, keepdims=True)", [[((2, 4), "any")]]),
    binary("numpy.fmax", "np.fmax(a, b)"),
    binary("numpy.fmin", "np.fmin(a, b)"),
    ("numpy.fmax", "np.fmax(a, np.where(np.array([True, False, True]), b, np.nan))", [[((3,), "any"), ((3,), "any")]]),
    ("numpy.fmin", "np.fmin(np.where(np.array([True, False, True]), a, np.nan), b)", [[((3,), "any"), ((3,), "any")]]),
    ("numpy.interp", "np.interp(a, np.array([-1.0, 0.0, 0.5, 1.5]), b)",
     [[((), "any"), ((4,), "any")], [((2, 3), "any"), ((4,), "any")]]),
    ("numpy.interp", "np.interp(a, np.array([-0.5, 0.5]), np.array([1.0, 3.0]), left=b, right=b * 2.0)",
     [[((3,), "any"), ((), "any")]]),
] + reductions("numpy.nansum", "np.nansum") + reductions("numpy.nanmean", "np.nanmean") + reductions(
    "numpy.nanmax", "np.nanmax") + reductions("numpy.nanmin", "np.nanmin") + reductions(
    "numpy.ptp", "np.ptp") + reductions("numpy.median", "np.median") + [
    # dict.get (a method of values of unknown type, so keyed under numpy.ndarray): the
    # key present (the default gets no gradient) and missing (only the default does)
    ("numpy.ndarray.get", "{'k': a, 'm': b}.get('k', b) * 2.0", [[((3,), "any"), ((3,), "any")]]),
    ("numpy.ndarray.get", "{'k': a}.get('m', b) * a", [[((3,), "any"), ((3,), "any")]]),
    unary("numpy.ndarray.sum", "a.sum()", shapes=[(3,), (2, 3)]),
    ("numpy.ndarray.sum", "a.sum(axis=0)", [[((2, 3), "any")]]),
    unary("numpy.ndarray.mean", "a.mean()", shapes=[(3,), (2, 3)]),
    ("numpy.ndarray.mean", "a.mean(axis=1, keepdims=True)", [[((2, 3), "any")]]),
    unary("numpy.ndarray.max", "a.max()", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.min", "a.min()", shapes=[(3,), (2, 3)]),
    # linear algebra and shapes
    ("numpy.dot", "np.dot(a, b)", [[((2, 3), "any"), ((3, 4), "any")], [((3,), "any"), ((3,), "any")],
                                   [((2, 3), "any"), ((3,), "any")], [((3,), "any"), ((3, 2), "any")]]),
    ("numpy.matmul", "np.matmul(a, b)", [[((2, 3), "any"), ((3, 4), "any")], [((3,), "any"), ((3, 2), "any")]]),
    ("numpy.ndarray.dot", "a.dot(b)", [[((2, 3), "any"), ((3, 4), "any")]]),
    ("numpy.reshape", "np.reshape(a, (3, 2))", [[((2, 3), "any")], [((6,), "any")]]),
    ("numpy.ndarray.reshape", "a.reshape(3, 2)", [[((2, 3), "any")]]),
    ("numpy.ndarray.reshape", "a.reshape((6,))", [[((2, 3), "any")]]),
    ("numpy.transpose", "np.transpose(a)", [[((2, 3), "any")]]),
    ("numpy.transpose", "np.transpose(a, (1, 0))", [[((2, 3), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose()", [[((2, 3), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose(1, 0, 2)", [[((2, 3, 4), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose((2, 0, 1))", [[((2, 3, 4), "any")]]),
    ("numpy.ndarray.T", "a.T", [[((2, 3), "any")]]),
    ("numpy.array", "np.array([a, b * 2.0, a * b])", [[((), "any"), ((), "any")]]),
    ("numpy.asarray", "np.asarray([a, b])", [[((), "any"), ((), "any")]]),
    # shape ops
    unary("numpy.ravel", "np.ravel(a)", shapes=[(3,), (2, 3), (2, 1, 3)]),
    unary("numpy.ndarray.ravel", "a.ravel()", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.flatten", "a.flatten()", shapes=[(3,), (2, 3)]),
    unary("numpy.squeeze", "np.squeeze(a)", shapes=[(1, 3), (2, 1, 3), (1, 1)]),
    unary("numpy.squeeze", "np.squeeze(a, axis=0)", shapes=[(1, 3)]),
    unary("numpy.squeeze", "np.squeeze(a, axis=(0, 2))", shapes=[(1, 3, 1)]),
    unary("numpy.ndarray.squeeze", "a.squeeze()", shapes=[(1, 3), (2, 1, 3)]),
    unary("numpy.ndarray.squeeze", "a.squeeze(1)", shapes=[(2, 1, 3)]),
    unary("numpy.expand_dims", "np.expand_dims(a, 0)", shapes=[(3,), (2, 3)]),
    unary("numpy.expand_dims", "np.expand_dims(a, -1)", shapes=[(3,), (2, 3)]),
    unary("numpy.expand_dims", "np.expand_dims(a, (0, 2))", shapes=[(2, 3)]),
    unary("numpy.atleast_1d", "np.atleast_1d(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.atleast_2d", "np.atleast_2d(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.atleast_3d", "np.atleast_3d(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.broadcast_to", "np.broadcast_to(a, (2, 3))", shapes=[(), (3,), (2, 1), (1, 3), (2, 3)]),
    unary("numpy.copy", "np.copy(a) * a", shapes=[(), (3,), (2, 3)]),
    unary("numpy.ndarray.copy", "a.copy() * a", shapes=[(3,), (2, 3)]),
    binary("numpy.concatenate", "np.concatenate([a, b])", shapes=[((2, 3), (1, 3)), ((3,), (2,))]),
    binary("numpy.concatenate", "np.concatenate((a, b, a), axis=1)", shapes=[((2, 3), (2, 2))]),
    binary("numpy.concatenate", "np.concatenate([a, b], axis=-1)", shapes=[((2, 3), (2, 1)), ((3,), (2,))]),
    binary("numpy.concatenate", "np.concatenate([a, b], axis=None)", shapes=[((2, 3), (3,))]),
    binary("numpy.concatenate", "np.concatenate([a, b * 2.0])", shapes=[((2, 3), (1, 3))]),
    binary("numpy.stack", "np.stack([a, b])", shapes=[((), ()), ((3,), (3,)), ((2, 3), (2, 3))]),
    binary("numpy.stack", "np.stack([a, b], axis=1)", shapes=[((3,), (3,)), ((2, 3), (2, 3))]),
    binary("numpy.stack", "np.stack((a, b, a), axis=-1)", shapes=[((2, 3), (2, 3))]),
    binary("numpy.hstack", "np.hstack([a, b])", shapes=[((2,), (3,)), ((2, 3), (2, 1)), ((), (2,))]),
    binary("numpy.vstack", "np.vstack([a, b])", shapes=[((3,), (3,)), ((2, 3), (3,)), ((1, 3), (2, 3))]),
    binary("numpy.row_stack", "np.row_stack([a, b])", shapes=[((3,), (3,)), ((2, 3), (3,))]),
    binary("numpy.dstack", "np.dstack([a, b])", shapes=[((2, 3), (2, 3)), ((3,), (3,))]),
    binary("numpy.column_stack", "np.column_stack([a, b])", shapes=[((3,), (3, 2)), ((3,), (3,))]),
    unary("numpy.split", "np.split(a, [1, 3])[1]", shapes=[(4,), (5, 2)]),
    unary("numpy.split", "np.split(a, 3, axis=1)[0] * np.split(a, 3, axis=1)[2]", shapes=[(2, 3)]),
    unary("numpy.array_split", "np.array_split(a, 2, axis=1)[0]", shapes=[(2, 3)]),
    unary("numpy.array_split", "np.array_split(a, 2)[1]", shapes=[(5,)]),
    unary("numpy.hsplit", "np.hsplit(a, 3)[1]", shapes=[(2, 3), (3,)]),
    unary("numpy.vsplit", "np.vsplit(a, [1])[1]", shapes=[(3, 2)]),
    unary("numpy.dsplit", "np.dsplit(a, 2)[0]", shapes=[(2, 1, 4)]),
    unary("numpy.swapaxes", "np.swapaxes(a, 0, 1)", shapes=[(2, 3)]),
    unary("numpy.swapaxes", "np.swapaxes(a, 0, -1)", shapes=[(2, 3, 2)]),
    unary("numpy.ndarray.swapaxes", "a.swapaxes(1, 0)", shapes=[(2, 3)]),
    unary("numpy.moveaxis", "np.moveaxis(a, 0, -1)", shapes=[(2, 3), (2, 3, 2)]),
    unary("numpy.moveaxis", "np.moveaxis(a, [0, 1], [-1, 0])", shapes=[(2, 3, 2)]),
    unary("numpy.tril", "np.tril(a)", shapes=[(3, 3), (2, 3)]),
    unary("numpy.tril", "np.tril(a, -1)", shapes=[(3, 4), (2, 3, 3)]),
    unary("numpy.tril", "np.tril(a, k=1)", shapes=[(3, 3)]),
    unary("numpy.triu", "np.triu(a)", shapes=[(3, 3), (2, 3)]),
    unary("numpy.triu", "np.triu(a, 1)", shapes=[(4, 3), (2, 3, 3)]),
    unary("numpy.triu", "np.triu(a, k=-1)", shapes=[(3, 3)]),
    unary("numpy.flip", "np.flip(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.flip", "np.flip(a, 0)", shapes=[(3,), (2, 3)]),
    unary("numpy.flip", "np.flip(a, axis=1)", shapes=[(2, 3)]),
    unary("numpy.flip", "np.flip(a, axis=(0, 1))", shapes=[(2, 3)]),
    unary("numpy.fliplr", "np.fliplr(a)", shapes=[(2, 3)]),
    unary("numpy.flipud", "np.flipud(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.rot90", "np.rot90(a)", shapes=[(2, 3)]),
    unary("numpy.rot90", "np.rot90(a, 2)", shapes=[(2, 3)]),
    unary("numpy.rot90", "np.rot90(a, -1)", shapes=[(2, 3)]),
    unary("numpy.rot90", "np.rot90(a, 1, (1, 2))", shapes=[(2, 3, 2)]),
    unary("numpy.roll", "np.roll(a, 1)", shapes=[(3,), (2, 3)]),
    unary("numpy.roll", "np.roll(a, -2, axis=1)", shapes=[(2, 3)]),
    unary("numpy.roll", "np.roll(a, (1, 2), axis=(0, 1))", shapes=[(2, 3)]),
    unary("numpy.tile", "np.tile(a, 2)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.tile", "np.tile(a, (2, 1))", shapes=[(3,), (2, 3)]),
    unary("numpy.tile", "np.tile(a, (2, 1, 2))", shapes=[(2, 3)]),
    unary("numpy.repeat", "np.repeat(a, 2)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.repeat", "np.repeat(a, 2, axis=1)", shapes=[(2, 3)]),
    unary("numpy.repeat", "np.repeat(a, [1, 3], axis=0)", shapes=[(2, 3)]),
    unary("numpy.repeat", "np.repeat(a, [2, 0, 1], axis=-1)", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.repeat", "a.repeat(3, axis=0)", shapes=[(2, 3)]),
    unary("numpy.ndarray.repeat", "a.repeat(2)", shapes=[(3,)]),
    unary("numpy.pad", "np.pad(a, 1)", shapes=[(3,), (2, 3)]),
    unary("numpy.pad", "np.pad(a, ((1, 0), (0, 2)))", shapes=[(2, 3)]),
    unary("numpy.pad", "np.pad(a, (2, 1))", shapes=[(3,), (2, 3)]),
    unary("numpy.pad", "np.pad(a, 1, 'constant')", shapes=[(2, 3)]),
    binary("numpy.pad", "np.pad(a, 1, constant_values=b)", shapes=[((2, 3), ()), ((3,), ())]),
    unary("numpy.pad", "np.pad(a, 2, mode='edge')", shapes=[(3,), (2, 3)]),
    unary("numpy.pad", "np.pad(a, 2, mode='reflect')", shapes=[(3,), (3, 3)]),
    unary("numpy.pad", "np.pad(a, (1, 2), mode='symmetric')", shapes=[(3,), (2, 3)]),
    unary("numpy.pad", "np.pad(a, 2, mode='wrap')", shapes=[(3,), (2, 3)]),
    # reductions and scans
    unary("numpy.prod", "np.prod(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.prod", "np.prod(a * np.array([1.0, 0.0, 1.0]), axis=-1)", shapes=[(3,), (2, 3)]),
    unary("numpy.prod", "np.prod(a * np.array([0.0, 0.0, 1.0]), axis=1, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.prod", "np.prod(a * np.array([[1.0], [0.0]]))", shapes=[(2, 3)]),
    unary("numpy.ndarray.prod", "a.prod()", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.prod", "a.prod(axis=1, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.ndarray.prod", "a.prod(0)", shapes=[(2, 3)]),
    unary("numpy.cumsum", "np.cumsum(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.cumsum", "np.cumsum(a, axis=0)", shapes=[(3,), (2, 3)]),
    unary("numpy.cumsum", "np.cumsum(a, 1)", shapes=[(2, 3)]),
    unary("numpy.cumsum", "np.cumsum(a, axis=-1)", shapes=[(2, 3, 2)]),
    unary("numpy.ndarray.cumsum", "a.cumsum()", shapes=[(2, 3)]),
    unary("numpy.ndarray.cumsum", "a.cumsum(axis=1)", shapes=[(2, 3)]),
    unary("numpy.cumprod", "np.cumprod(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.cumprod", "np.cumprod(a, axis=0)", shapes=[(3,), (2, 3)]),
    unary("numpy.cumprod", "np.cumprod(a, 1)", shapes=[(2, 3)]),
    unary("numpy.cumprod", "np.cumprod(a * np.array([1.0, 0.0, 1.0]), axis=1)", shapes=[(2, 3)]),
    unary("numpy.cumprod", "np.cumprod(a * np.array([1.0, 0.0, 1.0, 0.0]))", shapes=[(4,)]),
    unary("numpy.ndarray.cumprod", "a.cumprod()", shapes=[(2, 3)]),
    unary("numpy.ndarray.cumprod", "a.cumprod(axis=0)", shapes=[(2, 3)]),
    unary("numpy.var", "np.var(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.var", "np.var(a, ddof=1)", shapes=[(3,), (2, 3)]),
    unary("numpy.var", "np.var(a, axis=0, ddof=1, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.std", "np.std(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.std", "np.std(a, ddof=1)", shapes=[(3,), (2, 3)]),
    unary("numpy.std", "np.std(a, axis=1, ddof=1, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.ndarray.var", "a.var()", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.var", "a.var(axis=0, ddof=1)", shapes=[(2, 3)]),
    unary("numpy.ndarray.var", "a.var(1, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.ndarray.std", "a.std()", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.std", "a.std(ddof=1)", shapes=[(2, 3)]),
    unary("numpy.ndarray.std", "a.std(axis=(0, 1), keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.clip", "np.clip(a, -0.5, 0.5)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.clip", "np.clip(a, None, 0.5)", shapes=[(3,), (2, 3)]),
    unary("numpy.clip", "np.clip(a, -0.5, None)", shapes=[(3,), (2, 3)]),
    binary("numpy.clip", "np.clip(a, b, 0.7)", shapes=[((2, 3), (3,)), ((3,), ()), ((2, 3), (2, 1))]),
    binary("numpy.clip", "np.clip(a, a_min=b, a_max=0.7)", shapes=[((2, 3), (3,))]),
    ("numpy.clip", "np.clip(a, b, c)", [[((2, 3), "any"), ((), "any"), ((3,), "any")],
                                        [((3,), "any"), ((3,), "any"), ((3,), "any")]]),
    unary("numpy.ndarray.clip", "a.clip(-0.5, 0.5)", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.clip", "a.clip(-0.5)", shapes=[(2, 3)]),
    binary("numpy.ndarray.clip", "a.clip(b, None)", shapes=[((2, 3), (3,))]),
    unary("numpy.sort", "np.sort(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.sort", "np.sort(a, axis=0)", shapes=[(3,), (2, 3)]),
    unary("numpy.sort", "np.sort(a, axis=None)", shapes=[(2, 3)]),
    unary("numpy.sort", "np.sort(a, 1)", shapes=[(2, 3, 2)]),
    # ufuncs of two arguments
    binary("numpy.arctan2", "np.arctan2(a, b)"),
    binary("numpy.hypot", "np.hypot(a, b)"),
    binary("numpy.logaddexp", "np.logaddexp(a, b)"),
    binary("numpy.logaddexp2", "np.logaddexp2(a, b)"),
    binary("numpy.fmod", "np.fmod(a, b)", dy="pos"),
    binary("operator.mod", "a % b", dy="pos"),
    binary("operator.mod", "(3.0 * a) % b", dy="pos", shapes=[((), ()), ((3,), ())]),
    binary("numpy.mod", "np.mod(a, b)", dy="pos"),
    binary("numpy.remainder", "np.remainder(-2.0 * a, b)", dy="pos"),
    binary("math.copysign", "math.copysign(a, b)", shapes=[((), ())]),
    binary("numpy.heaviside", "np.heaviside(a - a, b) + np.heaviside(a, b)"),
    # constructors whose values are their arguments
    ("numpy.full", "np.full(3, a) * b", [[((), "any"), ((3,), "any")]]),
    ("numpy.full", "np.full((2, 3), a)", [[((), "any")]]),
    ("numpy.full_like", "np.full_like(b, a) * b", [[((), "any"), ((2, 3), "any")]]),
    binary("numpy.linspace", "np.linspace(a, b, 4)", shapes=[((), ())]),
    binary("numpy.linspace", "np.linspace(a, b, 5, endpoint=False)", shapes=[((), ())]),
    binary("numpy.linspace", "np.linspace(a, b, 1)", shapes=[((), ())]),
    binary("numpy.linspace", "np.linspace(0.0, a, 4) * b", shapes=[((), (4,))]),
    binary("numpy.linspace", "np.linspace(a, b, 3, retstep=True)[1]", shapes=[((), ())]),
    binary("numpy.linspace", "np.linspace(a, b, 3, retstep=True)[0] * a", shapes=[((), ())]),
    binary("numpy.arange", "np.arange(a, a + 3.5) * b", shapes=[((), (4,))]),
    ("numpy.arange", "np.arange(a, 2.5, b)", [[((), "any"), ((), "gt1")]]),
    unary("numpy.arange", "np.arange(a) * 1.0", "gt1", shapes=[()]),
    # matrix functions
    unary("numpy.trace", "np.trace(a)", shapes=[(3, 3), (2, 3)]),
    unary("numpy.trace", "np.trace(a, 1)", shapes=[(3, 3)]),
    unary("numpy.trace", "np.trace(a, -1)", shapes=[(3, 4)]),
    unary("numpy.trace", "np.trace(a, 0, 1, 2)", shapes=[(2, 3, 3)]),
    unary("numpy.trace", "np.trace(a, axis1=0, axis2=2)", shapes=[(3, 2, 3)]),
    unary("numpy.ndarray.trace", "a.trace()", shapes=[(3, 3)]),
    unary("numpy.ndarray.trace", "a.trace(1)", shapes=[(2, 3)]),
    unary("numpy.diagonal", "np.diagonal(a)", shapes=[(3, 3), (2, 3)]),
    unary("numpy.diagonal", "np.diagonal(a, 1)", shapes=[(3, 3)]),
    unary("numpy.diagonal", "np.diagonal(a, -1, 1, 2)", shapes=[(2, 3, 3)]),
    unary("numpy.ndarray.diagonal", "a.diagonal()", shapes=[(3, 3)]),
    unary("numpy.diag", "np.diag(a)", shapes=[(3,), (3, 3), (2, 3)]),
    unary("numpy.diag", "np.diag(a, 1)", shapes=[(3,), (3, 3)]),
    unary("numpy.diag", "np.diag(a, -1)", shapes=[(3,), (3, 3)]),
    binary("numpy.inner", "np.inner(a, b)", shapes=[((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 3)),
                                                    ((), (2, 3)), ((3,), (2, 3))]),
    binary("numpy.outer", "np.outer(a, b)", shapes=[((3,), (2,)), ((2, 2), (3,)), ((), (3,))]),
    binary("numpy.outer", "np.outer(a, 2.0 * a) + np.outer(b, b)", shapes=[((3,), (3,))]),
    binary("numpy.linalg.outer", "np.linalg.outer(a, b)", shapes=[((3,), (2,))]),
    binary("numpy.tensordot", "np.tensordot(a, b)", shapes=[((2, 3), (2, 3)), ((2, 2, 3), (2, 3))]),
    binary("numpy.tensordot", "np.tensordot(a, b, axes=1)", shapes=[((2, 3), (3, 4)), ((3,), (3, 2))]),
    binary("numpy.tensordot", "np.tensordot(a, b, 0)", shapes=[((2,), (3,)), ((2, 2), (3,))]),
    binary("numpy.tensordot", "np.tensordot(a, b, axes=([1, 2], [1, 0]))", shapes=[((2, 3, 4), (4, 3))]),
    binary("numpy.tensordot", "np.tensordot(a, b, axes=(0, 1))", shapes=[((3, 2), (4, 3))]),
    binary("numpy.tensordot", "np.tensordot(a, 3.0 * a, axes=([0], [0])) + b", shapes=[((3, 2), (2, 2))]),
    binary("numpy.einsum", "np.einsum('ij,jk->ik', a, b)", shapes=[((2, 3), (3, 4))]),
    binary("numpy.einsum", "np.einsum('ij,jk', a, b)", shapes=[((2, 3), (3, 4))]),
    binary("numpy.einsum", "np.einsum('i,i->', a, b)", shapes=[((3,), (3,))]),
    binary("numpy.einsum", "np.einsum('i,j->ij', a, b)", shapes=[((3,), (2,))]),
    binary("numpy.einsum", "np.einsum('ij,ij->ij', a, b)", shapes=[((2, 3), (2, 3))]),
    binary("numpy.einsum", "np.einsum('bij,bjk->bik', a, b)", shapes=[((2, 2, 3), (2, 3, 2))]),
    binary("numpy.einsum", "np.einsum('...j,j->...', a, b)", shapes=[((2, 3), (3,)), ((3,), (3,))]),
    binary("numpy.einsum", "np.einsum('ij,i->j', a, b) * np.einsum('ij->j', a)", shapes=[((2, 3), (2,))]),
    unary("numpy.einsum", "np.einsum('ii->i', a)", shapes=[(3, 3)]),
    unary("numpy.einsum", "np.einsum('ii', a)", shapes=[(3, 3)]),
    unary("numpy.einsum", "np.einsum('ij->', a)", shapes=[(2, 3)]),
    unary("numpy.einsum", "np.einsum('ij->j', a)", shapes=[(2, 3)]),
    unary("numpy.einsum", "np.einsum('iji->j', a)", shapes=[(2, 3, 2)]),
    unary("numpy.einsum", "np.einsum('ij,jk->ik', a, a)", shapes=[(3, 3)]),
    ("numpy.einsum", "np.einsum('ij,jk,kl->il', a, b, c)", [[((2, 3), "any"), ((3, 2), "any"), ((2, 2), "any")]]),
    ("numpy.einsum", "np.einsum('i,ij,j,ik->k', a, b, c, b)", [[((2,), "any"), ((2, 3), "any"), ((3,), "any")]]),
    # gathers (the adjoint scatters through the function applied to element labels)
    unary("numpy.take", "np.take(a, [0, 2, 2, -1])", shapes=[(3,), (2, 3)]),
    unary("numpy.take", "np.take(a, [[1, 0], [2, 2]], axis=1)", shapes=[(2, 3)]),
    unary("numpy.take", "np.take(a, [4, -5, 1], axis=0, mode='wrap')", shapes=[(3,), (2, 3)]),
    unary("numpy.take", "np.take(a, [4, -5, 1], axis=-1, mode='clip')", shapes=[(2, 3)]),
    unary("numpy.take_along_axis", "np.take_along_axis(a, np.array([[0, 2, 2], [1, 1, 0]]), 0)",
          shapes=[(3, 3)]),
    unary("numpy.take_along_axis", "np.take_along_axis(a, np.array([[2, 0], [1, 1]]), axis=1)",
          shapes=[(2, 3)]),
    unary("numpy.take_along_axis", "np.take_along_axis(a, np.array([5, 0, 0]), None)",
          shapes=[(2, 3)]),
    binary("numpy.append", "np.append(a, b)", shapes=[((3,), (2,)), ((2, 3), ()), ((), (2, 3))]),
    binary("numpy.append", "np.append(a, b, axis=0)", shapes=[((2, 3), (1, 3))]),
    binary("numpy.append", "np.append(a, b, axis=1)", shapes=[((2, 3), (2, 2))]),
    binary("numpy.append", "np.append(a, 0.5 * a, axis=-1) * b", shapes=[((2, 3), (6,))]),
    unary("numpy.append", "np.append(a, [1.0, 2.0])", shapes=[(3,)]),
    binary("numpy.insert", "np.insert(a, 1, b)", shapes=[((3,), ()), ((2, 3), ())]),
    binary("numpy.insert", "np.insert(a, [0, 2, 2], b)", shapes=[((3,), (3,)), ((3,), ())]),
    binary("numpy.insert", "np.insert(a, 1, b, axis=1)", shapes=[((2, 3), (2,)), ((2, 3), ())]),
    binary("numpy.insert", "np.insert(a, [3, 0], b, axis=1)", shapes=[((2, 3), (2, 1))]),
    binary("numpy.insert", "np.insert(a, slice(0, 2), b, axis=0)", shapes=[((2, 3), (3,))]),
    unary("numpy.insert", "np.insert(a, 2, 7.0)", shapes=[(3,)]),
    unary("numpy.delete", "np.delete(a, 1)", shapes=[(3,), (2, 3)]),
    unary("numpy.delete", "np.delete(a, [0, 2], axis=1)", shapes=[(2, 3)]),
    unary("numpy.delete", "np.delete(a, slice(1, None), axis=0)", shapes=[(3,), (3, 2)]),
    unary("numpy.delete", "np.delete(a, -1, 0)", shapes=[(2, 3)]),
    ("numpy.block", "np.block([[a, b], [c]])", [[((2, 2), "any"), ((2, 1), "any"), ((1, 3), "any")]]),
    ("numpy.block", "np.block([a, b, a])", [[((3,), "any"), ((2,), "any")]]),
    ("numpy.block", "np.block([[a, 2.0], [b, c]])", [[((), "any"), ((), "any"), ((), "any")]]),
    ("numpy.block", "np.block([[a], [a * b]])", [[((2,), "any"), ((), "any")]]),
    # unique's values and a histogram's edges and density move with the data
    unary("numpy.unique", "np.unique(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.unique", "np.unique(a, return_counts=True)[0] * 2.0", shapes=[(3,)]),
    unary("numpy.unique", "np.unique(a, return_index=True, return_inverse=True)[0]", shapes=[(2, 3)]),
    unary("numpy.unique", "np.unique(a, axis=0)", shapes=[(3, 2)]),
    unary("numpy.histogram", "np.histogram(a, 4)[1]", shapes=[(5,), (2, 3)]),
    unary("numpy.histogram", "np.histogram(a, 3, density=True)[0] * np.histogram(a, 3)[1][1:]",
          shapes=[(6,)]),
    unary("numpy.histogram", "np.histogram(a, 3, range=(-2.0, 2.0), density=True)[0]", shapes=[(6,)]),
    binary("numpy.histogram", "np.histogram(b, np.array([-2.0, -0.3, 0.4, 2.0]), weights=a)[0]",
           dy="unit", shapes=[((6,), (6,))]),
    binary("numpy.histogram", "np.histogram(b, 3, weights=a, density=True)[0]", dx="pos",
           shapes=[((6,), (6,))]),
    binary("numpy.histogram", "np.histogram(np.array([-1.0, 0.1, 0.2, 0.5, 1.0]), np.array([-2.0, 0.0, 2.0]) + 0.1 * np.sort(a), weights=b, density=True)[0]",
           dy="pos", shapes=[((3,), (5,))]),
    # structure: each output element copies one input element
    unary("numpy.matrix_transpose", "np.matrix_transpose(a)", shapes=[(2, 3), (2, 2, 3)]),
    unary("numpy.rollaxis", "np.rollaxis(a, 2)", shapes=[(2, 3, 2)]),
    unary("numpy.rollaxis", "np.rollaxis(a, 0, 2)", shapes=[(2, 3, 2)]),
    unary("numpy.diagflat", "np.diagflat(a)", shapes=[(3,), (2, 2)]),
    unary("numpy.diagflat", "np.diagflat(a, -1)", shapes=[(3,)]),
    unary("numpy.compress", "np.compress([True, False, True], a, axis=-1)", shapes=[(2, 3)]),
    unary("numpy.compress", "np.compress([False, True], a)", shapes=[(3,), (2, 3)]),
    unary("numpy.extract", "np.extract(np.arange(a.size).reshape(a.shape) % 2 == 0, a)", shapes=[(3,), (2, 3)]),
    unary("numpy.resize", "np.resize(a, (2, 4))", shapes=[(3,), (2, 3)]),
    unary("numpy.resize", "np.resize(a, 2)", shapes=[(3,)]),
    unary("numpy.partition", "np.partition(a, 1)", shapes=[(4,), (2, 3)]),
    unary("numpy.partition", "np.partition(a, (0, 2), axis=0)", shapes=[(3, 2)]),
    unary("numpy.partition", "np.partition(a, 2, axis=None)", shapes=[(2, 3)]),
    unary("numpy.unstack", "np.unstack(a)[1] * np.unstack(a)[0]", shapes=[(2, 3)]),
    unary("numpy.unstack", "np.unstack(a, axis=1)[2]", shapes=[(2, 3)]),
    binary("numpy.meshgrid", "np.meshgrid(a, b)[0] * np.meshgrid(a, b)[1]", shapes=[((3,), (2,))]),
    binary("numpy.meshgrid", "np.meshgrid(a, b, indexing='ij')[1]", shapes=[((3,), (2,))]),
    binary("numpy.meshgrid", "np.meshgrid(a, b, sparse=True)[0] + np.meshgrid(a, b, sparse=True)[1]",
           shapes=[((3,), (2,))]),
    ("numpy.meshgrid", "np.meshgrid(a, b, c, indexing='ij')[2] * np.sum(np.meshgrid(a, b, c)[0])",
     [[((2,), "any"), ((3,), "any"), ((2,), "any")]]),
    binary("numpy.broadcast_arrays", "np.broadcast_arrays(a, b)[0] * np.broadcast_arrays(a, b)[1]",
           shapes=[((3,), (2, 1)), ((2, 3), ())]),
    binary("numpy.broadcast_arrays", "np.broadcast_arrays(a, b)[1]", shapes=[((2, 3), (3,))]),
    # vector products
    binary("numpy.vdot", "np.vdot(a, b)", shapes=[((3,), (3,)), ((2, 3), (3, 2))]),
    binary("numpy.matvec", "np.matvec(a, b)", shapes=[((2, 3), (3,)), ((2, 2, 3), (3,)), ((2, 3), (2, 1, 3))]),
    binary("numpy.vecmat", "np.vecmat(a, b)", shapes=[((2,), (2, 3)), ((2, 2), (2, 3)), ((3,), (2, 3, 2))]),
    binary("numpy.vecdot", "np.vecdot(a, b)", shapes=[((3,), (3,)), ((2, 3), (3,)), ((2, 1, 3), (2, 3))]),
    binary("numpy.vecdot", "np.vecdot(a, b, axis=0)", shapes=[((2, 3), (2, 3)), ((2, 3), (2,)), ((2, 1), (2, 3))]),
    # spaced samples, conversions, scans
    binary("numpy.logspace", "np.logspace(a, b, 4)", shapes=[((), ()), ((2,), ())]),
    binary("numpy.logspace", "np.logspace(a, 1.0, 3, base=b)", dy="gt1", shapes=[((), ())]),
    binary("numpy.logspace", "np.logspace(a, b, 3, endpoint=False, base=2.0)", shapes=[((), ())]),
    binary("numpy.geomspace", "np.geomspace(a, b, 4)", dx="pos", dy="pos", shapes=[((), ()), ((2,), ())]),
    binary("numpy.geomspace", "np.geomspace(-a, -b, 3, endpoint=False)", dx="pos", dy="pos", shapes=[((), ())]),
    unary("numpy.nan_to_num", "np.nan_to_num(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.nan_to_num", "np.nan_to_num(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a))",
          shapes=[(3,)]),
    binary("numpy.nan_to_num", "np.nan_to_num(np.where(np.arange(a.size) == 1, np.nan, a), nan=b)",
           shapes=[((3,), ())]),
    binary("numpy.nan_to_num", "np.nan_to_num(np.where(np.arange(a.size) == 0, np.inf, a), posinf=b, neginf=2.0 * b)",
           shapes=[((3,), ())]),
    binary("numpy.ldexp", "np.ldexp(a, 3) + np.ldexp(b, np.array([1, -2, 0]))", shapes=[((3,), (3,)), ((), (3,))]),
    unary("numpy.asarray_chkfinite", "np.asarray_chkfinite(a)", shapes=[(3,)]),
    unary("numpy.asfortranarray", "np.asfortranarray(a)", shapes=[(2, 3)]),
    unary("numpy.require", "np.require(a, requirements='C')", shapes=[(2, 3)]),
    unary("numpy.real_if_close", "np.real_if_close(a)", shapes=[(3,)]),
    unary("numpy.apply_along_axis", "np.apply_along_axis(lambda r: np.sum(r * r), 0, a)",
          shapes=[(3,), (2, 3)]),
    unary("numpy.apply_along_axis", "np.apply_along_axis(lambda r: np.cumsum(r) * r, -1, a)",
          shapes=[(2, 3)]),
    unary("numpy.apply_along_axis", "np.apply_along_axis(lambda r, c: np.outer(r, r) * c, 1, a, 0.5)",
          shapes=[(2, 3)]),
    unary("numpy.apply_over_axes", "np.apply_over_axes(np.sum, a * a, [0, 1])", shapes=[(2, 3)]),
    unary("numpy.apply_over_axes", "np.apply_over_axes(lambda x, k: np.cumsum(x, axis=k) * x, a, -1)",
          shapes=[(2, 3)]),
    unary("numpy.real", "np.real(a) * a"),
    # complex values between real inputs and a real result (JAX's convention)
    unary("numpy.real", "np.real(a * (1 - 2j) * a + 1j)"),
    unary("numpy.imag", "np.imag(np.exp(1j * a) * (2.0 + 1j))"),
    unary("numpy.ndarray.real", "(a * (0.5 + 1j)).real * a", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.imag", "(a * a * (0.5 - 1j) + a).imag", shapes=[(3,), (2, 3)]),
    unary("numpy.conjugate", "np.real(np.conj(a * 1j + a * a) * (2 + 1j))"),
    unary("numpy.ndarray.conj", "(np.fft.fft(a).conj() * np.fft.fft(a * a)).real", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.conjugate", "(np.fft.fft(a).conjugate() * (1 + 2j)).imag", shapes=[(3,), (2, 3)]),
    unary("numpy.angle", "np.angle(a + 2j * a * a + 0.5j)"),
    unary("numpy.angle", "np.angle(np.fft.fft(a) + 0.3j, deg=True)", shapes=[(3,), (2, 3)]),
    unary("numpy.abs", "np.abs(a * (1 - 2j) + 0.5j)"),
    unary("builtins.abs", "abs(a * (1 + 1j) + 0.5j)", shapes=[()]),
    unary("numpy.fft.fft", "np.abs(np.fft.fft(a)) ** 2", shapes=[(4,), (5,), (2, 3)]),
    unary("numpy.fft.fft", "np.real(np.fft.fft(a, n=6, norm='ortho') * np.fft.fft(a * a, n=6, norm='ortho'))",
          shapes=[(4,), (2, 3)]),
    unary("numpy.fft.fft", "np.imag(np.fft.fft(a * (1 + 0.5j), n=2, axis=0, norm='forward'))", shapes=[(3, 2)]),
    unary("numpy.fft.ifft", "np.imag(np.fft.ifft(a * (1 + 2j), n=3, axis=0))", shapes=[(4, 2)]),
    unary("numpy.fft.ifft", "np.abs(np.fft.ifft(np.fft.fft(a) * a, norm='ortho'))", shapes=[(4,), (2, 3)]),
    unary("numpy.fft.rfft", "np.abs(np.fft.rfft(a, n=7, norm='forward'))", shapes=[(4,), (2, 3)]),
    unary("numpy.fft.rfft", "np.real(np.fft.rfft(a) * np.fft.rfft(a * a, axis=0).T)", shapes=[(4, 4)]),
    unary("numpy.fft.irfft", "np.fft.irfft(np.fft.rfft(a) * np.exp(1j * a[:4]), n=5)", shapes=[(6,)]),
    unary("numpy.fft.irfft", "np.fft.irfft(a * (1 - 1j), n=6, axis=0, norm='ortho') * 2.0", shapes=[(3, 2)]),
    unary("numpy.fft.irfft", "np.fft.irfft(a + 2j * a * a, norm='forward')", shapes=[(4,)]),
    unary("numpy.fft.hfft", "np.fft.hfft(a * (0.5 - 1j), n=6)", shapes=[(4,)]),
    unary("numpy.fft.hfft", "np.fft.hfft(a * a + 1j * a, norm='ortho')", shapes=[(2, 3)]),
    unary("numpy.fft.ihfft", "np.abs(np.fft.ihfft(a, norm='forward')) + np.imag(np.fft.ihfft(a * a, n=5))",
          shapes=[(4,)]),
    unary("numpy.fft.fft2", "np.abs(np.fft.fft2(a, s=(3, 4)))", shapes=[(2, 3)]),
    unary("numpy.fft.fft2", "np.real(np.fft.fft2(a * (1 + 1j), norm='ortho') ** 2)", shapes=[(2, 3)]),
    unary("numpy.fft.ifft2", "np.imag(np.fft.ifft2(a * a * (2 - 1j), axes=(1, 0)))", shapes=[(2, 3)]),
    unary("numpy.fft.rfft2", "np.abs(np.fft.rfft2(a, s=(2, 5)))", shapes=[(2, 3)]),
    unary("numpy.fft.irfft2", "np.fft.irfft2(a * (1 + 1j) + a * a, s=(3, 4))", shapes=[(2, 3)]),
    unary("numpy.fft.fftn", "np.abs(np.fft.fftn(a, axes=(0,), norm='forward'))", shapes=[(2, 3)]),
    unary("numpy.fft.fftn", "np.real(np.fft.fftn(a) * np.fft.fftn(a * a))", shapes=[(2, 3), (2, 2, 2)]),
    unary("numpy.fft.ifftn", "np.imag(np.fft.ifftn(a * (1 + 1j), s=(3, 2), axes=(0, 1)))", shapes=[(2, 3)]),
    unary("numpy.fft.rfftn", "np.abs(np.fft.rfftn(a, norm='ortho'))", shapes=[(2, 3), (2, 2, 3)]),
    unary("numpy.fft.irfftn", "np.fft.irfftn(a * (1 - 1j), s=(2, 5), axes=(0, 1))", shapes=[(2, 3)]),
    ("operator.matmul", "np.real((a * (1 + 1j)) @ np.fft.fft(b, axis=0))",
     [[((2, 3), "any"), ((3, 4), "any")], [((3,), "any"), ((3, 2), "any")]]),
    ("numpy.matmul", "np.abs(np.matmul(np.fft.fft(a), b * (0.5 - 1j)))",
     [[((2, 3), "any"), ((3,), "any")], [((2, 2), "any"), ((2, 2), "any")]]),
    ("numpy.dot", "np.imag(np.dot(np.fft.rfft(a), b) + np.dot(b[:2], np.fft.fft(a)[:2]))",
     [[((3,), "any"), ((2,), "any")]]),
    unary("numpy.fft.fftshift", "np.fft.fftshift(a) * a", shapes=[(3,), (2, 3)]),
    unary("numpy.fft.fftshift", "np.fft.fftshift(a, axes=1) * a", shapes=[(2, 3)]),
    unary("numpy.fft.ifftshift", "np.fft.ifftshift(a) * a", shapes=[(3,), (2, 3)]),
    unary("numpy.ndarray.real", "a.real * a", shapes=[(3,), (2, 3)]),
    unary("numpy.imag", "np.imag(a) + a * a"),
    unary("numpy.ndarray.imag", "a.imag + a * a", shapes=[(3,), (2, 3)]),
    binary("numpy.copysign", "np.copysign(a, b) * b"),
    unary("numpy.deg2rad", "np.deg2rad(a)"),
    unary("numpy.radians", "np.radians(a)"),
    unary("numpy.rad2deg", "np.rad2deg(a)"),
    unary("numpy.degrees", "np.degrees(a)"),
    unary("numpy.positive", "np.positive(a)"),
    unary("numpy.conjugate", "np.conjugate(a) * np.conj(a)"),
    unary("numpy.cumulative_sum", "np.cumulative_sum(a)", shapes=[(3,)]),
    unary("numpy.cumulative_sum", "np.cumulative_sum(a, axis=1, include_initial=True)", shapes=[(2, 3)]),
    unary("numpy.cumulative_prod", "np.cumulative_prod(a)", shapes=[(3,)]),
    unary("numpy.cumulative_prod", "np.cumulative_prod(a, axis=0, include_initial=True)", shapes=[(2, 3)]),
    unary("numpy.nancumsum", "np.nancumsum(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a))",
          shapes=[(3,), (2, 3)]),
    unary("numpy.nancumsum", "np.nancumsum(a, axis=1)", shapes=[(2, 3)]),
    unary("numpy.nancumprod", "np.nancumprod(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a))",
          shapes=[(3,), (2, 3)]),
    unary("numpy.nancumprod", "np.nancumprod(a, axis=0)", shapes=[(2, 3)]),
    unary("numpy.nanprod", "np.nanprod(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a))",
          shapes=[(3,), (2, 3)]),
    unary("numpy.nanprod", "np.nanprod(a, axis=1, keepdims=True)", shapes=[(2, 3)]),
    # several sources, bins, records of unique values
    ("numpy.choose", "np.choose([0, 2, 1, 0], [a, b, c])", [[((4,), "any"), ((4,), "any"), ((), "any")]]),
    binary("numpy.choose", "np.choose(np.array([[1, 0, 1], [0, 0, 1]]), [a, b])", shapes=[((2, 3), (3,))]),
    binary("numpy.choose", "np.choose([3, -1, 1], [a, b], mode='wrap')", shapes=[((3,), (3,))]),
    binary("numpy.select", "np.select([a > 0.0, a < -0.5], [a, b * a], default=b)",
           shapes=[((3,), ()), ((2, 3), (3,))]),
    binary("numpy.select", "np.select([a > 0.0], [b])", shapes=[((3,), (3,))]),
    unary("numpy.bincount", "np.bincount([0, 2, 2, 1, 4], weights=a)", shapes=[(5,)]),
    unary("numpy.bincount", "np.bincount(np.array([1, 1, 0]), a, minlength=4)", shapes=[(3,)]),
    unary("numpy.unique_values", "np.sort(np.unique_values(a))", shapes=[(3,), (2, 3)]),
    unary("numpy.unique_counts", "np.unique_counts(a).values * np.unique_counts(a)[1]", shapes=[(4,)]),
    unary("numpy.unique_inverse", "np.unique_inverse(a)[0]", shapes=[(2, 3)]),
    unary("numpy.unique_all", "np.unique_all(a).values", shapes=[(3,)]),
    unary("numpy.ediff1d", "np.ediff1d(a)", shapes=[(3,), (2, 3)]),
    ("numpy.ediff1d", "np.ediff1d(a, to_end=b, to_begin=c)", [[((3,), "any"), ((2,), "any"), ((), "any")]]),
    unary("numpy.ediff1d", "np.ediff1d(a, to_begin=[1.0, 2.0])", shapes=[(2, 2)]),
    binary("numpy.nextafter", "np.nextafter(a, b)", shapes=[((3,), (3,)), ((2, 3), ())]),
    unary("numpy.unwrap", "np.unwrap(a * 4.0)", shapes=[(4,)]),
    unary("numpy.unwrap", "np.unwrap(a * 3.0, axis=0, period=2.0)", shapes=[(3, 2)]),
    binary("numpy.divmod", "np.divmod(a, b)[1]", dy="pos", shapes=[((3,), ()), ((2, 3), (3,))]),
    binary("numpy.divmod", "np.divmod(3.0 * a, b)[1] * np.divmod(a, b)[0]", dy="pos", shapes=[((3,), (3,))]),
    binary("numpy.linalg.matmul", "np.linalg.matmul(a, b)", shapes=[((2, 3), (3, 2)), ((2, 2, 3), (3, 4)), ((3,), (3, 2))]),
    unary("numpy.linalg.matrix_transpose", "np.linalg.matrix_transpose(a) * np.arange(6.0).reshape(3, 2)", shapes=[(2, 3), (2, 2, 3)]),
    binary("numpy.linalg.vecdot", "np.linalg.vecdot(a, b)", shapes=[((3,), (3,)), ((2, 3), (3,))]),
    binary("numpy.linalg.vecdot", "np.linalg.vecdot(a, b, axis=0)", shapes=[((3, 2), (3, 2))]),
    binary("numpy.linalg.cross", "np.linalg.cross(a, b)", shapes=[((3,), (3,)), ((2, 3), (3,))]),
    binary("numpy.linalg.cross", "np.linalg.cross(a, b, axis=0)", shapes=[((3, 2), (3, 2))]),
    binary("numpy.linalg.tensordot", "np.linalg.tensordot(a, b)", shapes=[((2, 3), (2, 3)), ((2, 2, 3), (2, 3, 2))]),
    binary("numpy.linalg.tensordot", "np.linalg.tensordot(a, b, axes=1)", shapes=[((2, 3), (3, 2))]),
    unary("numpy.linalg.trace", "np.linalg.trace(a)", shapes=[(3, 3), (2, 3, 3)]),
    unary("numpy.linalg.trace", "np.linalg.trace(a, offset=1)", shapes=[(3, 4)]),
    unary("numpy.linalg.diagonal", "np.linalg.diagonal(a)", shapes=[(3, 3), (2, 3, 4)]),
    unary("numpy.linalg.diagonal", "np.linalg.diagonal(a, offset=-1)", shapes=[(3, 3)]),
    unary("numpy.linalg.pinv", "np.linalg.pinv(a)", shapes=[(3, 3), (3, 2), (2, 3), (2, 3, 2)]),
    unary("numpy.linalg.pinv", "np.linalg.pinv(a @ np.swapaxes(a, -1, -2), hermitian=True)", shapes=[(3, 2)]),
    unary("numpy.linalg.matrix_power", "np.linalg.matrix_power(a, 3)", shapes=[(2, 2), (2, 3, 3)]),
    unary("numpy.linalg.matrix_power", "np.linalg.matrix_power(a + 3.0 * np.eye(2), -2)", shapes=[(2, 2)]),
    unary("numpy.linalg.matrix_power", "np.linalg.matrix_power(a, 0) * a", shapes=[(2, 2)]),
    ("numpy.linalg.multi_dot", "np.linalg.multi_dot([a, b, c])", [[((3,), "any"), ((3, 2), "any"), ((2, 2), "any")], [((2, 3), "any"), ((3, 2), "any"), ((2,), "any")]]),
    binary("numpy.linalg.multi_dot", "np.linalg.multi_dot([a, b])", shapes=[((2, 3), (3, 2))]),
    unary("numpy.linalg.cond", "np.linalg.cond(a)", shapes=[(3, 3), (2, 3), (2, 2, 2)]),
    unary("numpy.linalg.cond", "np.linalg.cond(a, -2)", shapes=[(3, 3)]),
    unary("numpy.linalg.cond", "np.linalg.cond(a + 3.0 * np.eye(3), 'fro')", shapes=[(3, 3)]),
    unary("numpy.linalg.cond", "np.linalg.cond(a + 3.0 * np.eye(3), 1)", shapes=[(3, 3)]),
    unary("numpy.roots", "np.sort(np.roots(np.poly(np.array([0.5, -1.0, 2.0]) + 0.1 * a)))", shapes=[(3,)]),
    unary("numpy.roots", "np.sort(np.roots(np.array([1.0, 0.5, -2.0, 0.3]) + 0.1 * a))", shapes=[(4,)]),
    unary("numpy.poly", "np.poly(a)", shapes=[(1,), (3,)]),
    unary("numpy.poly", "np.poly(a + np.diag([0.0, 10.0, 20.0]))", shapes=[(3, 3)]),
    binary("numpy.polydiv", "np.polydiv(a, b)[0]", dy="pos", shapes=[((4,), (2,)), ((3,), (3,))]),
    binary("numpy.polydiv", "np.polydiv(a, b)[1][-1] * 2.0 + np.sum(np.polydiv(a, b)[0])", dy="pos", shapes=[((5,), (3,)), ((4,), (2,))]),
    unary("numpy.trim_zeros", "np.trim_zeros(np.array([0.0, 0.0, 1.0, 0.0, 2.0, 0.0]) * a)", shapes=[(6,)]),
    unary("numpy.trim_zeros", "np.trim_zeros(np.array([0.0, 1.0, 2.0, 0.0]) * a, 'f')", shapes=[(4,)]),
    unary("numpy.trim_zeros", "np.trim_zeros(np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 3.0]]) * a)", shapes=[(3, 3)]),
    unary("numpy.trim_zeros", "np.trim_zeros(np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 2.0, 3.0]]) * a, axis=1)", shapes=[(3, 3)]),
    unary("numpy.linalg.eigvals", "np.sort(np.linalg.eigvals(a + np.diag([0.0, 10.0, 20.0])))", shapes=[(3, 3), (2, 3, 3)]),
    unary("numpy.linalg.eig", "np.linalg.eig(a + np.diag([0.0, 10.0, 20.0]))[0] * np.linalg.eig(a + np.diag([0.0, 10.0, 20.0]))[1][0]", shapes=[(3, 3)]),
    unary("numpy.linalg.eig", "np.linalg.eig(a + np.diag([0.0, 7.0]))[1] ** 2", shapes=[(2, 2), (2, 2, 2)]),
    binary("numpy.linalg.lstsq", "np.linalg.lstsq(a, b)[0]", shapes=[((4, 2), (4,)), ((3, 3), (3, 2)), ((2, 3), (2,))]),
    binary("numpy.linalg.lstsq", "np.linalg.lstsq(a, b)[1] + np.sum(np.linalg.lstsq(a, b)[3])", shapes=[((4, 2), (4,)), ((5, 2), (5, 3))]),
    unary("numpy.linalg.lstsq", "np.linalg.lstsq(a, np.array([1.0, -0.5, 2.0, 0.3]))[0]", shapes=[(4, 2)]),
    unary("numpy.sinc", "np.sinc(a)", shapes=[(), (3,), (2, 3)]),
    unary("numpy.sinc", "np.sinc(0.2 * a) * np.sinc(3.0 * a)", shapes=[(4,)]),
    unary("numpy.i0", "np.i0(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.i0", "np.i0(6.0 * a + 4.0)", shapes=[(4,)]),
    unary("numpy.modf", "np.modf(3.0 * a)[0]", shapes=[(), (3,), (2, 3)]),
    unary("numpy.modf", "np.modf(3.0 * a)[0] * np.modf(3.0 * a)[1]", shapes=[(3,)]),
    unary("numpy.frexp", "np.frexp(a)[0]", shapes=[(), (3,), (2, 3)]),
    unary("numpy.frexp", "np.frexp(a)[0] * np.frexp(a)[1]", shapes=[(3,)]),
    unary("numpy.corrcoef", "np.corrcoef(a)", shapes=[(2, 4), (3, 5)]),
    unary("numpy.corrcoef", "np.corrcoef(a, rowvar=False)", shapes=[(5, 2)]),
    binary("numpy.corrcoef", "np.corrcoef(a, b)", shapes=[((4,), (4,)), ((2, 4), (4,))]),
    unary("numpy.corrcoef", "np.corrcoef(a, a * a + 1.0)[0, 1]", shapes=[(5,)]),
    unary("numpy.histogram_bin_edges", "np.histogram_bin_edges(a, 3)", shapes=[(5,)]),
    binary("numpy.histogram_bin_edges", "np.histogram_bin_edges(b, np.array([-2.0, 0.0, 2.0]) + 0.1 * np.sort(a))",
           shapes=[((3,), (4,))]),
    # the NaN-skipping order statistics
    unary("numpy.nanmedian", "np.nanmedian(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.nanmedian", "np.nanmedian(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a), axis=1)",
          shapes=[(2, 3), (2, 4)]),
    unary("numpy.nanmedian", "np.nanmedian(np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a), keepdims=True)",
          shapes=[(2, 3)]),
    unary("numpy.nanquantile", "np.nanquantile(np.where(np.arange(a.size).reshape(a.shape) == 2, np.nan, a), [0.3, 0.8], axis=0)",
          shapes=[(3, 2)]),
    unary("numpy.nanquantile", "np.nanquantile(a, 0.25, method='nearest')", shapes=[(5,)]),
    unary("numpy.nanpercentile", "np.nanpercentile(np.where(np.arange(a.size) == 1, np.nan, a), 40.0)",
          shapes=[(5,)]),
    # polynomials
    binary("numpy.polyadd", "np.polyadd(a, b)", shapes=[((3,), (2,)), ((2,), (3,)), ((3,), ())]),
    binary("numpy.polysub", "np.polysub(a, b)", shapes=[((3,), (2,)), ((2,), (3,))]),
    binary("numpy.polymul", "np.polymul(a, b)", shapes=[((3,), (2,)), ((), (3,))]),
    unary("numpy.polyint", "np.polyint(a)", shapes=[(3,)]),
    unary("numpy.polyint", "np.polyint(a, 2, k=[1.0, 2.0])", shapes=[(3,)]),
    unary("numpy.vander", "np.vander(a)", shapes=[(3,)]),
    unary("numpy.vander", "np.vander(a, 4, increasing=True)", shapes=[(3,)]),
    unary("numpy.vander", "np.vander(a - a[0], 3)", shapes=[(3,)]),
    unary("numpy.polyfit", "np.polyfit(np.array([0.0, 0.5, 1.0, 2.0]), a, 2)", shapes=[(4,), (4, 2)]),
    unary("numpy.polyfit", "np.polyfit(np.array([0.0, 0.5, 1.0, 2.0]), a, 1, w=np.array([1.0, 2.0, 0.5, 1.0]))",
          shapes=[(4,)]),
    binary("numpy.float_power", "np.float_power(a, b)", dx="pos", shapes=[((3,), (3,)), ((2, 3), ())]),
    # stencils
    unary("numpy.diff", "np.diff(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.diff", "np.diff(a, 2)", shapes=[(4,), (2, 4)]),
    unary("numpy.diff", "np.diff(a, axis=0)", shapes=[(3, 2)]),
    unary("numpy.diff", "np.diff(a, 0)", shapes=[(3,)]),
    binary("numpy.diff", "np.diff(a, prepend=b)", shapes=[((3,), ()), ((2, 3), (2, 1))]),
    binary("numpy.diff", "np.diff(a, 2, axis=0, append=b)", shapes=[((3, 2), (2, 2)), ((3,), ())]),
    ("numpy.diff", "np.diff(a, 3, prepend=b, append=c)", [[((3,), "any"), ((2,), "any"), ((), "any")]]),
    unary("numpy.diff", "np.diff(a, prepend=0.0, append=[1.0, 2.0])", shapes=[(3,)]),
    unary("numpy.gradient", "np.gradient(a)", shapes=[(3,), (4,)]),
    unary("numpy.gradient", "np.gradient(a, 0.5, edge_order=2)", shapes=[(3,), (4,)]),
    unary("numpy.gradient", "np.gradient(a, np.array([0.0, 0.4, 1.1, 1.5]), edge_order=2)",
          shapes=[(4,)]),
    unary("numpy.gradient", "np.gradient(a, np.array([0.0, 0.4, 1.1]))", shapes=[(3,)]),
    unary("numpy.gradient", "np.gradient(a)[1] * np.gradient(a, 2.0)[0]", shapes=[(3, 4)]),
    unary("numpy.gradient", "np.gradient(a, axis=1)", shapes=[(2, 3)]),
    unary("numpy.gradient", "np.gradient(a, 0.5, np.array([0.0, 1.0, 1.5, 3.0]), edge_order=2)[1]",
          shapes=[(3, 4)]),
    unary("numpy.gradient", "np.gradient(a, axis=(0, 2))[0]", shapes=[(2, 3, 2)]),
    unary("numpy.trapezoid", "np.trapezoid(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.trapezoid", "np.trapezoid(a, axis=0)", shapes=[(3, 2)]),
    binary("numpy.trapezoid", "np.trapezoid(a, dx=b)", shapes=[((3,), ()), ((2, 3), ())]),
    binary("numpy.trapezoid", "np.trapezoid(a, b)", shapes=[((3,), (3,)), ((2, 3), (3,)), ((2, 3), (2, 3))]),
    binary("numpy.trapezoid", "np.trapezoid(a, b, axis=0)", shapes=[((3, 2), (3,))]),
    unary("numpy.trapezoid", "np.trapezoid(a, np.array([0.0, 0.5, 2.0]))", shapes=[(3,)]),
    # products and polynomials
    binary("numpy.kron", "np.kron(a, b)", shapes=[((3,), (2,)), ((2, 2), (2, 3)), ((2,), (2, 3)),
                                                  ((2, 1, 2), (3, 2)), ((), (3,))]),
    unary("numpy.kron", "np.kron(a, a)", shapes=[(2, 2)]),
    binary("numpy.cross", "np.cross(a, b)", shapes=[((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3))]),
    binary("numpy.cross", "np.cross(a, b, axisa=0, axisb=0)", shapes=[((3, 2), (3, 2))]),
    binary("numpy.cross", "np.cross(a, b, axisa=0, axisc=0)", shapes=[((3, 2), (2, 3))]),
    binary("numpy.cross", "np.cross(a, b, axis=1)", shapes=[((2, 3), (2, 3))]),
    unary("numpy.cross", "np.cross(a, a[::-1])", shapes=[(3,)]),
    binary("numpy.convolve", "np.convolve(a, b)", shapes=[((3,), (2,)), ((2,), (3,)), ((1,), (3,))]),
    binary("numpy.convolve", "np.convolve(a, b, 'same')", shapes=[((4,), (2,)), ((2,), (4,)), ((3,), (3,))]),
    binary("numpy.convolve", "np.convolve(a, b, mode='valid')", shapes=[((4,), (2,)), ((2,), (4,))]),
    unary("numpy.convolve", "np.convolve(a, a, 'same')", shapes=[(3,)]),
    binary("numpy.correlate", "np.correlate(a, b)", shapes=[((4,), (2,)), ((2,), (4,))]),
    binary("numpy.correlate", "np.correlate(a, b, 'full')", shapes=[((3,), (2,)), ((2,), (3,))]),
    binary("numpy.correlate", "np.correlate(a, b, mode='same')", shapes=[((4,), (3,)), ((3,), (4,))]),
    binary("numpy.polyval", "np.polyval(a, b)", shapes=[((3,), ()), ((4,), (3,)), ((1,), (2,)),
                                                        ((2,), (2, 3))]),
    unary("numpy.polyval", "np.polyval(a, 0.5) + np.polyval([1.0, -2.0, 0.5], a)", shapes=[(3,)]),
    unary("numpy.polyval", "np.polyval(a, 0.0)", shapes=[(3,)]),
    unary("numpy.polyder", "np.polyder(a)", shapes=[(4,), (2,)]),
    unary("numpy.polyder", "np.polyder(a, 2)", shapes=[(4,)]),
    unary("numpy.polyder", "np.polyval(np.polyder(a, m=1), a[0])", shapes=[(3,)]),
    # weighted statistics
    unary("numpy.average", "np.average(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.average", "np.average(a, axis=1, keepdims=True)", shapes=[(2, 3)]),
    binary("numpy.average", "np.average(a, weights=b)", dy="pos", shapes=[((3,), (3,)), ((2, 3), (2, 3))]),
    binary("numpy.average", "np.average(a, 1, b)", dy="pos", shapes=[((2, 3), (3,))]),
    binary("numpy.average", "np.average(a, axis=0, weights=b, returned=True)[0]", dy="pos",
           shapes=[((2, 3), (2,))]),
    binary("numpy.average", "np.average(a, -1, b, True)[1] * np.average(a, -1, b, True)[0]", dy="pos",
           shapes=[((2, 3), (3,)), ((2, 3), (2, 3))]),
    unary("numpy.average", "np.average(a, weights=[1.0, 2.0, 0.5])", shapes=[(3,)]),
    unary("numpy.cov", "np.cov(a)", shapes=[(2, 4), (4,)]),
    unary("numpy.cov", "np.cov(a, rowvar=False)", shapes=[(4, 2)]),
    unary("numpy.cov", "np.cov(a, bias=True)", shapes=[(2, 3)]),
    unary("numpy.cov", "np.cov(a, ddof=2)", shapes=[(2, 4)]),
    binary("numpy.cov", "np.cov(a, b)", shapes=[((4,), (4,)), ((2, 4), (4,))]),
    binary("numpy.cov", "np.cov(a, b, rowvar=False)", shapes=[((4, 2), (4, 1))]),
    unary("numpy.cov", "np.cov(a, fweights=[1, 2, 1, 3])", shapes=[(2, 4)]),
    unary("numpy.cov", "np.cov(a, aweights=[0.5, 1.0, 2.0, 1.5])", shapes=[(2, 4)]),
    unary("numpy.cov", "np.cov(a, ddof=0, fweights=[1, 2, 1, 3], aweights=[0.5, 1.0, 2.0, 1.5])",
          shapes=[(2, 4)]),
    # the NaN-skipping variance (one element NaN where the shape allows)
    unary("numpy.nanvar", "np.nanvar(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.nanvar", "np.nanvar(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a))",
          shapes=[(3,), (2, 3)]),
    unary("numpy.nanvar", "np.nanvar(np.where(np.arange(a.size).reshape(a.shape) == 4, np.nan, a), axis=1, ddof=1)",
          shapes=[(2, 3)]),
    unary("numpy.nanvar", "np.nanvar(np.where(np.arange(a.size).reshape(a.shape) == 0, np.nan, a), axis=0, keepdims=True)",
          shapes=[(3, 2)]),
    unary("numpy.nanstd", "np.nanstd(a)", shapes=[(3,), (2, 3)]),
    unary("numpy.nanstd", "np.nanstd(np.where(np.arange(a.size).reshape(a.shape) == 2, np.nan, a), axis=-1)",
          shapes=[(2, 3)]),
    unary("numpy.nanstd", "np.nanstd(np.where(np.arange(a.size).reshape(a.shape) == 1, np.nan, a), ddof=1, keepdims=True)",
          shapes=[(2, 3)]),
    # numpy.linalg (inputs made well-conditioned / symmetric positive definite)
    unary("numpy.linalg.inv", "np.linalg.inv(a + 3.0 * np.eye(3))", shapes=[(3, 3)]),
    unary("numpy.linalg.inv", "np.linalg.inv(a + 3.0 * np.eye(2))", shapes=[(2, 2), (2, 2, 2)]),
    unary("numpy.linalg.det", "np.linalg.det(a)", shapes=[(2, 2), (3, 3), (2, 3, 3)]),
    unary("numpy.linalg.slogdet", "np.linalg.slogdet(a)[1]", shapes=[(2, 2), (3, 3), (2, 3, 3)]),
    unary("numpy.linalg.slogdet", "np.linalg.slogdet(a)[0] * np.linalg.slogdet(a)[1]", shapes=[(3, 3)]),
    binary("numpy.linalg.solve", "np.linalg.solve(a + 3.0 * np.eye(3), b)",
           shapes=[((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((2, 3, 3), (3,)),
                   ((3, 3), (2, 3, 2))]),
    unary("numpy.linalg.norm", "np.linalg.norm(a)", shapes=[(3,), (2, 3), (2, 3, 2)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, axis=0)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, axis=1)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, axis=-1, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 1)", shapes=[(3,)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 2)", shapes=[(3,)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, np.inf)", shapes=[(3,)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, -np.inf)", shapes=[(3,)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 3)", shapes=[(3,)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 0)", shapes=[(3,)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 1, axis=1)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, np.inf, axis=0, keepdims=True)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 'fro')", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 'nuc')", shapes=[(2, 3), (3, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 2)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, -2)", shapes=[(3, 3)]),
    unary("numpy.linalg.vector_norm", "np.linalg.vector_norm(a)", shapes=[(3,), (2, 3), (2, 3, 2)]),
    unary("numpy.linalg.vector_norm", "np.linalg.vector_norm(a, axis=1)", shapes=[(2, 3)]),
    unary("numpy.linalg.vector_norm", "np.linalg.vector_norm(a, axis=(0, 2), keepdims=True)",
          shapes=[(2, 3, 2)]),
    unary("numpy.linalg.vector_norm", "np.linalg.vector_norm(a, ord=1, axis=0)", shapes=[(2, 3)]),
    unary("numpy.linalg.vector_norm", "np.linalg.vector_norm(a, ord=np.inf)", shapes=[(2, 3)]),
    unary("numpy.linalg.vector_norm", "np.linalg.vector_norm(a, ord=3)", shapes=[(2, 3)]),
    unary("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(a)", shapes=[(2, 3), (2, 3, 2)]),
    unary("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(a, ord=1, keepdims=True)",
          shapes=[(2, 3)]),
    unary("numpy.linalg.matrix_norm", "np.linalg.matrix_norm(a, ord='nuc')", shapes=[(3, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 1)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, np.inf)", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, axis=(0, 1))", shapes=[(2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 'fro', axis=(1, 2))", shapes=[(2, 2, 3)]),
    unary("numpy.linalg.norm", "np.linalg.norm(a, 2, axis=(2, 0), keepdims=True)", shapes=[(2, 2, 3)]),
    unary("numpy.linalg.tensorinv", "np.linalg.tensorinv(a + 3.0 * np.eye(4).reshape(2, 2, 2, 2))",
          shapes=[(2, 2, 2, 2)]),
    unary("numpy.linalg.tensorinv", "np.linalg.tensorinv(a + 3.0 * np.eye(2).reshape(2, 1, 2), ind=1)",
          shapes=[(2, 1, 2)]),
    binary("numpy.linalg.tensorsolve", "np.linalg.tensorsolve(a + 3.0 * np.eye(4).reshape(2, 2, 2, 2), b)",
           shapes=[((2, 2, 2, 2), (2, 2))]),
    binary("numpy.linalg.tensorsolve", "np.linalg.tensorsolve(a + 3.0 * np.eye(3).reshape(3, 3, 1), b)",
           shapes=[((3, 3, 1), (3,))]),
    binary("numpy.linalg.tensorsolve",
           "np.linalg.tensorsolve(a + 3.0 * np.eye(4).reshape(2, 2, 2, 2).transpose(0, 2, 1, 3), b, axes=(1,))",
           shapes=[((2, 2, 2, 2), (2, 2))]),
    unary("numpy.linalg.cholesky", "np.linalg.cholesky(a @ a.T + 3.0 * np.eye(3))", shapes=[(3, 3)]),
    unary("numpy.linalg.cholesky", "np.linalg.cholesky(a @ a.T + 3.0 * np.eye(2), upper=True)", shapes=[(2, 2)]),
    unary("numpy.linalg.cholesky", "np.linalg.cholesky(np.einsum('bij,bkj->bik', a, a) + 3.0 * np.eye(3))",
          shapes=[(2, 3, 3)]),
    unary("numpy.linalg.eigh", "np.linalg.eigh(a + a.T)[0]", shapes=[(3, 3)]),
    # eigenvectors are defined up to sign: the checked outputs are sign-invariant
    unary("numpy.linalg.eigh", "np.linalg.eigh(a + a.T)[1] * np.linalg.eigh(a + a.T)[1][0]", shapes=[(3, 3)]),
    unary("numpy.linalg.eigh", "np.linalg.eigh(a + np.swapaxes(a, -1, -2))[1] * np.linalg.eigh(a + np.swapaxes(a, -1, -2))[1][..., 0:1, :]",
          shapes=[(2, 3, 3)]),
    unary("numpy.linalg.eigvalsh", "np.linalg.eigvalsh(a + a.T)", shapes=[(3, 3)]),
    unary("numpy.linalg.eigvalsh", "np.linalg.eigvalsh(a + np.swapaxes(a, -1, -2))", shapes=[(2, 3, 3)]),
    unary("numpy.linalg.qr", "np.linalg.qr(a)[0] * np.linalg.qr(a)[0][0]", shapes=[(3, 3), (4, 3)]),
    unary("numpy.linalg.qr", "np.linalg.qr(a)[1] * np.linalg.qr(a)[1][:, -1:]", shapes=[(3, 3), (4, 2)]),
    unary("numpy.linalg.qr", "np.linalg.qr(a)[0] @ np.linalg.qr(a)[1]", shapes=[(4, 3)]),
    unary("numpy.linalg.svd", "np.linalg.svd(a, compute_uv=False)", shapes=[(2, 3), (3, 3), (3, 2), (2, 3, 2)]),
    unary("numpy.linalg.svd", "np.linalg.svd(a)[1]", shapes=[(3, 3)]),
    # singular vectors are defined up to sign: the checked outputs are sign-invariant
    unary("numpy.linalg.svd", "np.linalg.svd(a, full_matrices=False)[0] * np.linalg.svd(a, full_matrices=False)[0][0]",
          shapes=[(3, 3), (4, 2), (2, 4)]),
    unary("numpy.linalg.svd", "np.linalg.svd(a, full_matrices=False)[1]", shapes=[(4, 2), (2, 3, 2)]),
    unary("numpy.linalg.svd", "np.linalg.svd(a, full_matrices=False)[2] * np.linalg.svd(a, full_matrices=False)[2][:, 0:1]",
          shapes=[(3, 3), (4, 2), (2, 4)]),
    unary("numpy.linalg.svd", "np.linalg.svd(a)[0] @ np.linalg.svd(a)[2]", shapes=[(3, 3)]),
    unary("numpy.linalg.svdvals", "np.linalg.svdvals(a)", shapes=[(2, 3), (3, 3)]),
    # scipy.special and scipy.linalg (poles avoided: the shifted arguments stay in (-2, -1)
    # and (-1, 0))
    unary("scipy.special.erf", "scipy.special.erf(a)"),
    unary("scipy.special.erfc", "scipy.special.erfc(a)"),
    unary("scipy.special.gammaln", "scipy.special.gammaln(a)", domain="pos"),
    unary("scipy.special.gammaln", "scipy.special.gammaln(a * 0.4 - 1.5)", domain="unit"),
    unary("scipy.special.gamma", "scipy.special.gamma(a)", domain="pos"),
    unary("scipy.special.gamma", "scipy.special.gamma(a * 0.4 - 1.5)", domain="unit"),
    unary("scipy.special.digamma", "scipy.special.digamma(a)", domain="pos"),
    unary("scipy.special.psi", "scipy.special.psi(a * 0.4 - 0.5)", domain="unit"),
    unary("scipy.special.polygamma", "scipy.special.polygamma(1, a)", domain="pos"),
    unary("scipy.special.polygamma", "scipy.special.polygamma(2, a * 0.4 - 1.5)", domain="unit"),
    unary("scipy.special.expit", "scipy.special.expit(3.0 * a)"),
    unary("scipy.special.logit", "scipy.special.logit(a * 0.5 + 0.5)", domain="unit"),
    binary("scipy.special.xlogy", "scipy.special.xlogy(a, b)", dy="pos"),
    unary("scipy.special.logsumexp", "scipy.special.logsumexp(a)"),
    unary("scipy.special.logsumexp", "scipy.special.logsumexp(3.0 * a, axis=-1)", shapes=[(3,), (2, 3)]),
    unary("scipy.linalg.inv", "scipy.linalg.inv(a + 3.0 * np.eye(3))", shapes=[(3, 3)]),
    binary("scipy.linalg.solve", "scipy.linalg.solve(a + 3.0 * np.eye(3), b)",
           shapes=[((3, 3), (3,)), ((3, 3), (3, 2))]),
    # Accumulation through tangent.add_grad under broadcasting: one input used twice,
    # once broadcast against a larger operand and once as it is, so its two
    # contributions have different shapes before unbroadcasting.
    binary("tangent.add_grad", "a * b + a", shapes=[((3,), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3))]),
    binary("tangent.add_grad", "(a * b) * np.sin(a)", shapes=[((3,), (2, 3)), ((2, 1), (2, 3)), ((), (3,))]),
    binary("tangent.add_grad", "np.sum(a * b, axis=0) + a * a", shapes=[((3,), (2, 3))]),
    binary("tangent.add_grad", "a @ b + a", shapes=[((3, 3), (3, 3)), ((2, 3), (3, 1))]),
] + reductions("scipy.special.logsumexp", "scipy.special.logsumexp") + reductions(
    "numpy.prod", "np.prod") + reductions("numpy.var", "np.var") + reductions(
    "numpy.std", "np.std") + [
    ("numpy.linalg.norm", "np.linalg.norm(a, axis=%s, keepdims=%s)" % (axis, keep), [[((2, 3), "any")]])
    for axis, keep in REDUCE
]

EPS = 1e-6
TOL = 2e-6


class Rng:
    """A small deterministic generator (the catalog must not depend on np.random)."""

    def __init__(self, seed):
        self.state = seed

    def uniform(self, lo, hi):
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (2 ** 64)
        return lo + (hi - lo) * ((self.state >> 11) / float(2 ** 53))


def draw(rng, shape, domain):
    lo, hi = {"any": (-1.5, 1.5), "pos": (0.2, 2.0), "unit": (-0.9, 0.9), "gt1": (1.2, 3.0)}[domain]
    if shape == ():
        return rng.uniform(lo, hi)
    n = 1
    for d in shape:
        n *= d
    return np.reshape(np.array([rng.uniform(lo, hi) for _ in range(n)]), shape)


def like(rng, value):
    if isinstance(value, np.ndarray):
        return draw(rng, tuple(value.shape), "any")
    return rng.uniform(-1.5, 1.5)


def flat(v):
    if isinstance(v, np.ndarray):
        return [float(t) for t in np.ravel(v).tolist()]
    if isinstance(v, (list, tuple)):
        out = []
        for t in v:
            out.extend(flat(t))
        return out
    return [float(v)]


def dot(a, b):
    fa, fb = flat(a), flat(b)
    assert len(fa) == len(fb), (len(fa), len(fb))
    return sum(x * y for x, y in zip(fa, fb))


def same_kind(g, x):
    """Why the gradient (or tangent) `g` is not shaped and typed like `x`, or None."""
    if isinstance(x, np.ndarray):
        # A 0-d array and a NumPy scalar are alike (NumPy's arithmetic on 0-d arrays
        # gives scalars).
        if not hasattr(g, "dtype") or (np.ndim(g) and not isinstance(g, np.ndarray)):
            return "a %s for an array %s %s" % (type(g).__name__, x.dtype, x.shape)
        g = np.asarray(g)
        if g.shape != x.shape or g.dtype != x.dtype:
            return "%s %s for %s %s" % (g.dtype, g.shape, x.dtype, x.shape)
        return None
    if isinstance(x, float):
        if np.ndim(g) != 0 or np.asarray(g).dtype != np.float64:
            return "%s %s for a float" % (type(g).__name__, np.shape(g))
        return None
    return None


def add_scaled(x, v, s):
    if isinstance(x, np.ndarray):
        return x + v * s
    return x + v * s


FLOAT32 = "float32" in sys.argv[2:]


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    names = "abcdefgh"
    lines = ["import math", "import numpy as np", "import scipy.special", "import scipy.linalg", ""]
    cases = []
    for i, (rule, expr, specs) in enumerate(CATALOG):
        nargs = len(specs[0])
        fname = "op_%d" % i
        lines.append("def %s(%s):" % (fname, ", ".join(names[:nargs])))
        lines.append("    return %s" % expr)
        lines.append("")
        for spec in specs:
            cases.append((rule, expr, fname, spec))
    path = os.path.join(outdir, "catalog_ops.py")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    sys.path.insert(0, outdir)
    import catalog_ops

    rng = Rng(20261129)
    failures = 0
    checked = 0
    only_checked = set()
    f32_checked = set()
    for rule, expr, fname, spec in cases:
        f = getattr(catalog_ops, fname)
        args = [draw(rng, shape, dom) for shape, dom in spec]
        wrt = tuple(range(len(args)))
        label = "%-26s %-40s %s" % (rule, expr, [s for s, _ in spec])
        try:
            y = f(*args)
            seed = like(rng, y)
            grads = tangent.vjp(f, wrt=wrt)(*(args + [seed]))
            if len(wrt) == 1:
                grads = (grads,)
            tangents = [like(rng, a) for a in args]
            jv = tangent.jvp(f, wrt=wrt)(*(args + tangents))
        except Exception as e:  # report and count, keep checking the rest
            print("FAIL %s: %s: %s" % (label, type(e).__name__, e))
            failures += 1
            continue
        worst = 0.0
        # Each gradient is shaped and typed like its input, the tangent like the output.
        kinds = [(i, same_kind(g, a)) for i, (g, a) in enumerate(zip(grads, args))]
        kinds.append(("tangent", same_kind(jv, y) if isinstance(y, (np.ndarray, float)) else None))
        bad = ["gradient %s: %s" % (i, why) for i, why in kinds if why]
        if bad:
            print("FAIL %s: %s" % (label, "; ".join(bad)))
            failures += 1
            continue
        # Inactive arguments get no gradient: with respect to one argument, the result
        # is that one gradient (not a tuple), equal to its part of the full gradient.
        # Once per entry (the first input set of each), to keep the run short.
        if len(args) > 1 and fname not in only_checked:
            only_checked.add(fname)
            for i in range(len(args)):
                try:
                    only = tangent.vjp(f, wrt=(i,))(*(args + [seed]))
                except Exception as e:
                    print("FAIL %s: wrt=(%d,): %s: %s" % (label, i, type(e).__name__, e))
                    worst = float("inf")
                    continue
                why = "a tuple" if isinstance(only, tuple) else same_kind(only, args[i])
                if why is None and any(abs(p - q) > 1e-12 * max(1.0, abs(q))
                                       for p, q in zip(flat(only), flat(grads[i]))):
                    why = "%s, not the full gradient's %s" % (flat(only), flat(grads[i]))
                if why:
                    print("FAIL %s: wrt=(%d,) gives %s" % (label, i, why))
                    worst = float("inf")
        # With `float32` on the command line: float32 arrays in, float32 gradients out
        # (NumPy 2: Python floats are weak), once per entry. tests/catalog.rs and
        # tests/bridge.rs run it on both hosts.
        if FLOAT32 and fname not in f32_checked and any(isinstance(a, np.ndarray) for a in args):
            f32_checked.add(fname)
            args32 = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
            try:
                y32 = f(*args32)
                seed32 = seed.astype(np.asarray(y32).dtype) if isinstance(seed, np.ndarray) else seed
                g32 = tangent.vjp(f, wrt=wrt)(*(args32 + [seed32]))
                if len(wrt) == 1:
                    g32 = (g32,)
                bad = ["gradient %d: %s" % (i, why) for i, why in
                       enumerate(same_kind(g, a) for g, a in zip(g32, args32)) if why]
            except Exception as e:
                bad = ["%s: %s" % (type(e).__name__, e)]
            if bad:
                print("FAIL %s: float32: %s" % (label, "; ".join(bad)))
                worst = float("inf")
        # reverse: <grad_i, e_k> == d<seed, f>/dx_ik
        for i, g in enumerate(grads):
            gf = flat(g)
            n = len(flat(args[i]))
            if len(gf) != n:
                print("FAIL %s: gradient %d has %d entries, expected %d" % (label, i, len(gf), n))
                worst = float("inf")
                break
            for k in range(n):
                e = np.zeros(np.shape(args[i])) if isinstance(args[i], np.ndarray) else 0.0
                if isinstance(e, np.ndarray):
                    e = np.reshape(np.array([1.0 if j == k else 0.0 for j in range(n)]), np.shape(args[i]))
                else:
                    e = 1.0
                hi = list(args)
                lo = list(args)
                hi[i] = add_scaled(args[i], e, EPS)
                lo[i] = add_scaled(args[i], e, -EPS)
                fd = (dot(seed, f(*hi)) - dot(seed, f(*lo))) / (2 * EPS)
                worst = max(worst, abs(gf[k] - fd) / max(1.0, abs(fd)))
        # forward: jvp == (f(x + eps t) - f(x - eps t)) / 2 eps
        hi = [add_scaled(a, t, EPS) for a, t in zip(args, tangents)]
        lo = [add_scaled(a, t, -EPS) for a, t in zip(args, tangents)]
        fd = [(p - q) / (2 * EPS) for p, q in zip(flat(f(*hi)), flat(f(*lo)))]
        got = flat(jv)
        if len(got) != len(fd):
            print("FAIL %s: tangent has %d entries, expected %d" % (label, len(got), len(fd)))
            worst = float("inf")
        else:
            for p, q in zip(got, fd):
                worst = max(worst, abs(p - q) / max(1.0, abs(q)))
        checked += 1
        if worst >= TOL:
            failures += 1
            print("FAIL %s: max rel err %.2e" % (label, worst))
    failures += check_complex_refusals(outdir) + check_complex_arguments(outdir)
    print("%d cases checked, %d failures" % (checked, failures))
    sys.exit(1 if failures else 0)


# Complex values reaching a rule written for real numbers only, a complex result of grad
# and the gradient of a complex argument: each a refusal naming the reason, in reverse and
# forward mode, never a number (a silent zero was what np.var of a complex array and
# np.sign of one gave).
COMPLEX_REFUSALS = [
    ("np.var(a * (1 + 1j)).real", "complex value reached tangent.var_grad", "var_tangent"),
    ("np.std(a * (2 - 1j))", "complex value reached", None),
    ("np.sum(np.sign(np.fft.fft(a)).real)", "complex value reached numpy.sign", None),
    ("np.sum(np.fft.fft(a))", "returned a complex value", False),
]


# Complex arguments: the gradient is dL/dx - i dL/dy (JAX's convention), checked by finite
# differences along the real and the imaginary parts; the tangent along t is
# Re(sum(grad * t)).
COMPLEX_ARGUMENTS = [
    "np.sum(np.abs(a) ** 2 * 0.5)",
    "np.real(np.sum(np.exp(a) * (1 + 2j)))",
    "np.sum(np.abs(np.fft.fft(a)))",
    "np.sum(np.angle(a) * np.imag(a * a))",
    "np.sum(np.real(np.fft.irfft(a, n=6) * np.arange(6.0)))",
]


def check_complex_arguments(outdir):
    lines = ["import numpy as np", ""]
    for i, expr in enumerate(COMPLEX_ARGUMENTS):
        lines += ["def complex_%d(a):" % i, "    return %s" % expr, ""]
    with open(os.path.join(outdir, "catalog_complex_args.py"), "w") as fh:
        fh.write("\n".join(lines) + "\n")
    import catalog_complex_args

    failures = 0
    z = np.array([0.3 + 1.1j, -1.2 + 0.4j, 0.7 - 0.8j, 2.0 + 0.5j])
    t = np.array([0.5 - 0.2j, 1.0 + 0.3j, -0.4 + 0.9j, 0.2 + 0.1j])
    for i, expr in enumerate(COMPLEX_ARGUMENTS):
        f = getattr(catalog_complex_args, "complex_%d" % i)
        try:
            g = np.asarray(tangent.grad(f)(z))
            jv = complex(tangent.jvp(f)(z, t))
        except Exception as e:  # noqa: BLE001
            failures += 1
            print("FAIL complex argument %s: %s: %s" % (expr, type(e).__name__, e))
            continue
        want = np.zeros(4, dtype=complex)
        for k in range(4):
            for step, part in ((EPS, 1.0), (EPS * 1j, -1j)):
                hi, lo = z.copy(), z.copy()
                hi[k] += step
                lo[k] -= step
                want[k] += part * (f(hi) - f(lo)) / (2 * EPS)
        worst = float(np.max(np.abs(g - want)))
        worst = max(worst, abs(jv - np.real(np.sum(want * t))))
        if g.dtype.kind != "c" or worst >= TOL:
            failures += 1
            print("FAIL complex argument %s: gradient %s, tangent %s, finite differences %s"
                  % (expr, g, jv, want))
    return failures


def check_complex_refusals(outdir):
    lines = ["import numpy as np", ""]
    for i, (expr, _, _) in enumerate(COMPLEX_REFUSALS):
        lines += ["def refused_%d(a):" % i, "    return %s" % expr, ""]
    path = os.path.join(outdir, "catalog_refusals.py")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    import catalog_refusals

    failures = 0
    a = np.array([0.3, -1.2, 0.7, 2.0])
    for i, (expr, message, forward) in enumerate(COMPLEX_REFUSALS):
        f = getattr(catalog_refusals, "refused_%d" % i)
        modes = [("reverse", lambda: tangent.grad(f)(a), message)]
        if forward is not False:
            modes.append(("forward", lambda: tangent.jvp(f)(a, np.ones(4)),
                          message.replace("_grad", "_tangent") if forward else message))
        for mode, call, text in modes:
            try:
                got = call()
            except Exception as e:  # noqa: BLE001 (the refusal is the expected outcome)
                if text in str(e):
                    continue
                got = "%s: %s" % (type(e).__name__, str(e).splitlines()[0])
            failures += 1
            print("FAIL refusal of %s (%s): expected an error with %r, got %s"
                  % (expr, mode, text, got))
    return failures


main()
