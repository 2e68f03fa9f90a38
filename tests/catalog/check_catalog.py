"""The op catalog: every derivative rule, checked against central finite differences.

Each entry names a rule (its canonical name), a Python expression using it, and the input
shapes to try. For every entry and input set, a wrapper function is generated into a
module file (tangent reads source from files), then:
- reverse: the vector-Jacobian product with a random seed is compared with the finite
  difference of <seed, f(x)>;
- forward: the Jacobian-vector product with a random tangent is compared with the finite
  difference of f along that tangent.
Run with `tangent run tests/catalog/check_catalog.py OUTDIR`. Exits non-zero on failure.
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
    unary("builtins.float", "float(a)", shapes=[(), (1,)]),
    binary("builtins.max", "max(a, b)", shapes=[((), ())]),
    binary("builtins.min", "min(a, b)", shapes=[((), ())]),
    binary("builtins.pow", "pow(a, b)", dx="pos", shapes=[((), ())]),
    ("builtins.sum", "sum([a, b, a * b])", [[((), "any"), ((), "any")]]),
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
    ("numpy.ndarray.T", "a.T", [[((2, 3), "any")]]),
    ("numpy.array", "np.array([a, b * 2.0, a * b])", [[((), "any"), ((), "any")]]),
    ("numpy.asarray", "np.asarray([a, b])", [[((), "any"), ((), "any")]]),
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


def add_scaled(x, v, s):
    if isinstance(x, np.ndarray):
        return x + v * s
    return x + v * s


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    names = "abcdefgh"
    lines = ["import math", "import numpy as np", ""]
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
    print("%d cases checked, %d failures" % (checked, failures))
    sys.exit(1 if failures else 0)


main()
