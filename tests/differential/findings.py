"""Smallest forms of what the differential tester found, one function per finding, with a
CASES table: `tangent run tests/differential/run.py --module tests/differential/findings.py`
runs each through every variant. Not run by CI (the corpus holds the named regressions);
each entry says which generator feature produces it (generate.FEATURES).
"""
import math
import numpy as np


# selfassign: the target of a conditional expression is also one of its values. Reverse
# mode gives 0.0 (forward is right).
def ifexp_rebinds_its_operand(x):
    x = (x * 2.0 if x >= 0.75 else x)
    return x * x


# mask_self: the masked ReLU, the stored value outside the mask.
def masked_relu_threshold(x):
    h = x * 1.0
    h[h < 0.2] = 0.2
    return np.sum(h * h)


# mod: `%` by a positive constant, derivative 1 almost everywhere.
def mod_of_cos(x):
    return 1.5 * x + 0.7 * max(math.cos(x) % 1.04, 0.1)


# alias: a second name for an array updated in place.
def alias_update(a):
    g = a * 1.0
    h = g
    h += np.tanh(a)
    return np.sum(g * a)


# alias (a view): a masked store through a view of the parameter, the mask reading the
# parameter. Reverse mode raises ValueError (shape mismatch) from the generated code;
# forward mode gives a wrong number.
def masked_store_through_view(m):
    h = m.T.T
    h[m > 0.35] = -0.71
    return np.sum(h * h) + np.sum(m)


# rebind_iter: the loop body rebinds the list being iterated.
def rebind_iterated_list(x):
    ys = [x, x * 2.0]
    s = 0.0
    for u in ys:
        s = 0.5 * s + math.sin(u)
        ys = [u * 1.5]
    return s


# live_default: a callee's default read from a global that is rebound after the def.
F_SCALE = 0.7


def scaled(p, scale=F_SCALE):
    return p * scale


F_SCALE = 1.3


def calls_with_live_default(x):
    return scaled(x * x)


# alias_rebound: h3 starts as h1 (or a view of it), a checkpointed loop rebinds h3, and
# then h1 is written in place. checkpoint=True gives 0.2826 instead of 2.3648: the
# checkpoint keeps the shared object, and the backward pass restores h1 by rebinding it
# to a copy, so the object the checkpoint holds keeps the overwritten values.
def alias_rebound(x):
    h1 = np.ones(2) * x
    h3 = h1
    for t in range(1):
        h3 = np.tanh(h3)
    for i in range(2):
        h1[i] = 2.0
    return np.sum(h1 * h3)


def view_rebound(x):
    h1 = np.ones(3) * x
    h3 = h1[0:2]
    for t in range(2):
        h3 = np.tanh(h3)
    for i in range(3):
        h1[i] = 2.0
    return np.sum(h1[0:2] * h3)


# lambda_nested: refused ("a `lambda` can only be differentiated when it is assigned to a
# name and called"), though it is assigned to a name and called, inside an if or a loop.
def lambda_in_branch(x):
    if x > 0.0:
        sq = lambda t: t * t
        y = sq(x)
    else:
        y = x
    return y


# Not generated: builtin min/max of three arguments is refused (its rule takes two).
def min_of_three(x, y):
    return min(x, y, 0.5) + max(x * y, y, -3.0)


# abs (CPython with real NumPy only): builtin abs of a NumPy scalar raises TypeError in
# tangent.sign, which subtracts NumPy bools: `tangent run --python PY run.py --module ...`.
def abs_of_numpy_scalar(a):
    return abs(np.sum(a)) * 2.0 + abs(a[0])


CASES = {
    "ifexp_rebinds_its_operand": ((-1.0,), (0,)),
    "masked_relu_threshold": ((np.array([0.5, -1.2, 2.0]),), (0,)),
    "mod_of_cos": ((0.4178,), (0,)),
    "alias_update": ((np.array([0.5, -1.2, 2.0]),), (0,)),
    "masked_store_through_view": ((np.array([[0.05, -1.24, 0.54], [1.21, 0.11, 0.09]]),), (0,)),
    "rebind_iterated_list": ((0.7,), (0,)),
    "calls_with_live_default": ((0.9,), (0,)),
    "alias_rebound": ((0.7571,), (0,)),
    "view_rebound": ((0.7571,), (0,)),
    "lambda_in_branch": ((1.5,), (0,)),
    "min_of_three": ((0.3, 1.2), (0, 1)),
    "abs_of_numpy_scalar": ((np.array([0.5, -1.2, 2.0]),), (0,)),
}
