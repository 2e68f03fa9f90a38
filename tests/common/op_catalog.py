"""The shared driver of the array libraries' op catalogs (tests/<library>/check_*.py):
every derivative rule of a library checked against the library's own autodiff and
against central finite differences. A catalog supplies the entries and a `Library`
adapter (how to make its tensors, and its own reverse, forward and second-order
derivatives); this module writes one wrapper module per entry (tangent reads source
from files) and runs, per entry and input set:
- float64, reverse: tangent.grad with a random seed (cotangent) against the library's
  reverse mode (tight tolerance) and against the central finite difference of
  <seed, f(x + h v)> along a random direction v; every gradient a tensor of its input's
  shape and dtype; with respect to one of several arguments exactly that gradient;
- float64, forward: tangent.autodiff(mode='forward') with random tangents against the
  library's forward mode and the central finite difference of f along the tangents;
- float32: both again with float32 inputs (looser tolerance), the derivatives float32;
- second order, forward-over-reverse: tangent.vjp(tangent.grad(s)) of
  s(a, ...) = sum(SEED * f(a, ...)) along a random direction of the first argument,
  against the library's own second derivative and the second difference of s.
Comparisons are made in NumPy float64 (the tests may convert; the rules never do).
"""
import ast
import importlib
import os
import sys

import numpy

import tangent


class Library:
    """What a catalog tells the driver about its library (override every method)."""
    name = "?"
    dtypes = ()          # (float64, float32) of the library
    header = ""          # the imports and constants of every wrapper module

    def sample(self, rng, shape, domain, dtype):
        raise NotImplementedError

    def from_numpy(self, a, dtype):
        raise NotImplementedError

    def to_numpy(self, x):
        raise NotImplementedError

    def is_tensor(self, x):
        raise NotImplementedError

    def describe(self, x):
        """(shape, dtype name, device) of a tensor."""
        raise NotImplementedError

    def vjp(self, f, args, seed):
        raise NotImplementedError

    def jvp(self, f, args, directions):
        raise NotImplementedError

    def hvp(self, s, args, v):
        raise NotImplementedError


def dotted(node):
    """`a.b.c` of an AST name or attribute chain, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return None if base is None else base + "." + node.attr
    return None


def template_rules(path):
    """(reverse names, forward names) of the `@adjoint`/`@tangent_` templates of a rule
    file, without those of tangent's own helpers (the second-order checks exercise
    them)."""
    reverse, forward = set(), set()
    with open(path) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            if dotted(dec.func) == "control_flow":
                # A function written out as its template's computation: differentiated
                # both ways, so checked both ways.
                for a in dec.args:
                    reverse.add(dotted(a))
                    forward.add(dotted(a))
                continue
            name = dotted(dec.args[0])
            if name.startswith("tangent."):
                continue
            (reverse if dotted(dec.func) == "adjoint" else forward).add(name)
    return reverse, forward


def domain_values(rng, shape, domain):
    """Float64 NumPy samples of a domain: "any" (away from 0, where kinks are), "pos"
    (> 0.3), "unit" (inside (-0.85, 0.85)), "gt1" (> 1.3)."""
    if domain == "pos":
        return rng.random(shape) * 1.7 + 0.3
    if domain == "unit":
        return (rng.random(shape) * 2 - 1) * 0.85
    if domain == "gt1":
        return rng.random(shape) * 1.7 + 1.3
    v = rng.standard_normal(shape)
    return numpy.where(numpy.abs(v) < 0.05, v + 0.3, v)


class Checker:
    def __init__(self, library, outdir, prefix):
        self.lib = library
        self.outdir = outdir
        os.makedirs(outdir, exist_ok=True)
        self.prefix = prefix
        self.failures = []
        self.checked_reverse = set()
        self.checked_forward = set()
        self.checked_second = set()
        self.skipped_second = set()
        self.checked_f32 = set()
        self.checked_only = set()
        self.cases = 0
        self.counter = 0
        self.rng = numpy.random.default_rng(0)
        # Entries (their expressions) where the library's own derivative is not the
        # derivative of what it computes (expression -> why): checked in float64 against
        # finite differences only, never against the library.
        self.reference_differs = {}
        self.second_order_skip = {}
        # rule -> (rtol, atol) against the library in float64, where its own float64
        # arithmetic is known to be less exact (each catalog says why).
        self.tolerance = {}

    # ------------------------------------------------------------------ helpers

    def fail(self, what):
        self.failures.append(what)
        print("FAIL", what)

    def module(self, body):
        self.counter += 1
        name = "%s_%d" % (self.prefix, self.counter)
        with open(os.path.join(self.outdir, name + ".py"), "w") as f:
            f.write(self.lib.header + "\n\n" + body)
        if self.outdir not in sys.path:
            sys.path.insert(0, self.outdir)
        return importlib.import_module(name)

    def like(self, x):
        shape, dtype, _ = self.lib.describe(x)
        return self.lib.from_numpy(self.rng.standard_normal(shape), dtype)

    def np(self, x):
        return numpy.asarray(self.lib.to_numpy(x), dtype=numpy.float64)

    def close(self, a, b, rtol, atol):
        if not self.lib.is_tensor(a) or not self.lib.is_tensor(b):
            return False
        a, b = self.np(a), self.np(b)
        return a.shape == b.shape and bool(numpy.all(numpy.abs(a - b) <= atol + rtol * numpy.abs(b)))

    def largest_difference(self, got, want):
        """max |got - want| over the pairs (for the failure message), or why not."""
        try:
            return "%.3g" % max(float(numpy.max(numpy.abs(self.np(a) - self.np(b))))
                                for a, b in zip(got, want))
        except Exception as e:  # shapes differ, or a value is not a tensor
            return "(%s)" % type(e).__name__

    def vdot(self, a, b):
        return float(numpy.sum(self.np(a) * self.np(b)))

    def same_kind(self, g, x):
        """Why the gradient (or tangent) `g` is not shaped and typed like `x`, or None."""
        if not self.lib.is_tensor(g):
            return "a %s for a tensor" % type(g).__name__
        if self.lib.describe(g) != self.lib.describe(x):
            return "%s for %s" % (self.lib.describe(g), self.lib.describe(x))
        return None

    def shifted(self, args, direction, h):
        return [x + h * v for x, v in zip(args, direction)]

    # ------------------------------------------------------------------ entries

    def entry(self, rule, expr, specs):
        params = ["a", "b", "c"][:len(specs)]
        mod = self.module("def f(%s):\n    return %s\n\n\n"
                          "def s(%s):\n    return SUM(SEED * (%s))\n"
                          % (", ".join(params), expr, ", ".join(params), expr))
        label = "%s: %s at %s" % (rule, expr, [s for s, _ in specs])
        self.trusted = expr not in self.reference_differs
        for dtype in self.lib.dtypes if self.trusted else self.lib.dtypes[:1]:
            self.check(rule, mod, label, specs, dtype)
        self.cases += 1

    def check(self, rule, mod, label, specs, dtype):
        lib = self.lib
        f = mod.f
        f64 = dtype == lib.dtypes[0]
        rtol, atol = self.tolerance.get(rule, (1e-9, 1e-10)) if f64 else (2e-4, 2e-5)
        args = [lib.sample(self.rng, s, d, dtype) for s, d in specs]
        wrt = tuple(range(len(args)))
        tag = "" if f64 else " [float32]"
        y = f(*args)
        seed = self.like(y)
        direction = [self.like(x) for x in args]
        fd = None
        if f64:
            h = 1e-6
            fd = (f(*self.shifted(args, direction, h))
                  - f(*self.shifted(args, direction, -h))) / (2 * h)
        ok_rev = ok_fwd = False
        try:
            grads = tangent.grad(f, wrt=wrt)(*args, seed)
            grads = (grads,) if len(wrt) == 1 else tuple(grads)
            ref = lib.vjp(f, args, seed)
            ok = not self.trusted or all(self.close(g, r, rtol, atol)
                                         for g, r in zip(grads, ref))
            kinds = ["gradient %d: %s" % (i, why) for i, why in
                     enumerate(self.same_kind(g, x) for g, x in zip(grads, args)) if why]
            if f64 and len(args) > 1 and (rule, label) not in self.checked_only:
                self.checked_only.add((rule, label))
                for i in range(len(args)):
                    only = tangent.grad(f, wrt=(i,))(*args, seed)
                    why = "a tuple" if isinstance(only, tuple) else self.same_kind(only, args[i])
                    if why is None and not self.close(only, grads[i], 1e-12, 1e-14):
                        why = "not the full gradient's"
                    if why:
                        kinds.append("wrt=(%d,) gives %s" % (i, why))
            if kinds:
                self.fail("reverse gradients%s: %s: %s" % (tag, label, "; ".join(kinds)))
            elif not ok:
                self.fail("reverse vs %s%s: %s: largest difference %s: %s vs %s"
                          % (lib.name, tag, label, self.largest_difference(grads, ref),
                             grads, ref))
            elif f64 and abs(sum(self.vdot(g, v) for g, v in zip(grads, direction))
                             - self.vdot(seed, fd)) > 1e-5 * (1 + abs(self.vdot(seed, fd))):
                self.fail("reverse vs finite differences: %s" % label)
            else:
                ok_rev = True
        except Exception as e:  # report and go on: one summary line at the end
            self.fail("reverse raised%s: %s: %s: %s" % (tag, label, type(e).__name__,
                                                       str(e)[:400]))
        try:
            t = tangent.autodiff(f, wrt=wrt, mode="forward")(*args, *direction)
            ref = lib.jvp(f, args, direction)  # None: the library has no forward mode
            why = self.same_kind(t, y)
            if why:
                self.fail("forward tangent%s: %s: %s" % (tag, label, why))
            elif ref is not None and self.trusted and not self.close(t, ref, rtol, atol):
                self.fail("forward vs %s%s: %s: largest difference %s: %s vs %s"
                          % (lib.name, tag, label, self.largest_difference([t], [ref]), t, ref))
            elif f64 and not self.close(t, fd, 1e-5, 1e-6):
                self.fail("forward vs finite differences: %s" % label)
            else:
                ok_fwd = True
        except Exception as e:
            self.fail("forward raised%s: %s: %s: %s" % (tag, label, type(e).__name__,
                                                       str(e)[:400]))
        if f64:
            if ok_rev:
                self.checked_reverse.add(rule)
            if ok_fwd:
                self.checked_forward.add(rule)
            self.second_order(rule, mod, label, args)
        elif ok_rev and ok_fwd:
            self.checked_f32.add(rule)

    def second_order(self, rule, mod, label, args, skip=None):
        """Forward-over-reverse H v of s = sum(SEED * f) along a direction of the first
        argument, against the library's second derivative and the second difference."""
        mod.SEED = self.like(mod.f(*args))
        s = mod.s
        v = self.like(args[0])
        reason = (skip or {}).get(rule) or self.second_order_skip.get(rule)
        if reason is not None:
            # refused with an error naming the reason, never a number
            try:
                tangent.vjp(tangent.grad(s, wrt=(0,)), wrt=(0,))(*(args + [v]))
                self.fail("second order of %s gave a number: %s" % (rule, label))
            except Exception as e:
                if reason not in str(e):
                    self.fail("second order of %s: unclear refusal %s" % (rule, e))
            self.skipped_second.add(rule)
            return
        try:
            hv = tangent.vjp(tangent.grad(s, wrt=(0,)), wrt=(0,))(*(args + [v]))
            ref = self.lib.hvp(s, args, v)
            h = 1e-4
            x = args[0]
            sd = float(self.np(s(*([x + h * v] + args[1:])) - 2.0 * s(*args)
                               + s(*([x - h * v] + args[1:]))) / (h * h))
            why = self.same_kind(hv, args[0])
            if why:
                self.fail("second order: %s: H v is %s" % (label, why))
            elif self.trusted and ref is not None and not self.close(
                    hv, ref, *self.tolerance.get(rule, (1e-8, 1e-9))):
                self.fail("second order vs %s: %s: largest difference %s: %s vs %s"
                          % (self.lib.name, label, self.largest_difference([hv], [ref]),
                             hv, ref))
            elif abs(self.vdot(v, hv) - sd) > 1e-4 * max(1.0, abs(sd)):
                self.fail("second order vs second difference: %s: %.8g vs %.8g"
                          % (label, self.vdot(v, hv), sd))
            else:
                self.checked_second.add(rule)
        except Exception as e:
            msg = str(e).strip().splitlines()
            self.fail("second order raised: %s: %s: %s" % (label, type(e).__name__,
                                                            msg[0][:300] if msg else ""))

    # ------------------------------------------------------------------ summary

    def coverage(self, reverse, forward, catalog_rules):
        """Fails for rules of the library without a catalog entry, and for entries
        whose checks did not pass in each mode, dtype and order."""
        missing = sorted((reverse | forward) - set(catalog_rules))
        if missing:
            self.fail("rules without a catalog entry: %s" % missing)
        for what, done, want in (("reverse", self.checked_reverse, reverse),
                                 ("forward", self.checked_forward, forward)):
            left = sorted(want - done - set(missing))
            if left:
                self.fail("%s rules never checked successfully: %s" % (what, left))
        unchecked32 = sorted((reverse & forward) - self.checked_f32 - set(missing))
        if unchecked32:
            self.fail("float32 never checked successfully: %s" % unchecked32)
        unchecked2 = sorted(set(catalog_rules) - self.checked_second - self.skipped_second)
        if unchecked2:
            self.fail("second order never checked successfully: %s" % unchecked2)

    def report(self, t0, time_now):
        print("%d cases, %d reverse, %d forward, %d float32, %d second-order rules checked "
              "(%d second order refused by name), %d failures, %.1f s"
              % (self.cases, len(self.checked_reverse), len(self.checked_forward),
                 len(self.checked_f32), len(self.checked_second), len(self.skipped_second),
                 len(self.failures), time_now - t0))
        return 1 if self.failures else 0


# ---------------------------------------------------------------- entry builders
# An entry is (rule, expression of a, b, c, [input sets]); an input set is a list of
# (shape, domain) per argument.

SHAPES = [(), (3,), (2, 3)]
BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)),
                   ((2, 3), ())]


def unary(rule, expr, domain="any", shapes=SHAPES):
    return (rule, expr, [[(s, domain)] for s in shapes])


def binary(rule, expr, dx="any", dy="any", shapes=BROADCAST_PAIRS):
    return (rule, expr, [[(a, dx), (b, dy)] for a, b in shapes])


def reductions(rule, fn, axes, domain="any"):
    """`fn(a, axis=..., keepdims=...)` on a (2, 3) input for each (axis, keepdims) of
    `axes` (their source text)."""
    return [(rule, "%s(a, axis=%s, keepdims=%s)" % (fn, axis, keep), [[((2, 3), domain)]])
            for axis, keep in axes]


def check_exports(c, path, root, minimum):
    """Every `exported_as(module, other, name, ...)` of the rule file at `path` is true:
    `other.name` is the same object as `module.name` (paths under the library module
    `root`, e.g. tensorflow for `tensorflow.math`). Fails when fewer than `minimum`
    names were read (the declarations were not found)."""
    with open(path) as f:
        tree = ast.parse(f.read())
    count = 0

    def get(path_):
        obj = root
        for part in path_.split(".")[1:]:
            obj = getattr(obj, part)
        return obj

    for node in tree.body:
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and dotted(node.value.func) == "exported_as"):
            module, other, *names = [dotted(a) for a in node.value.args]
            for n in names:
                count += 1
                if get(module + "." + n) is not get(other + "." + n):
                    c.fail("exported_as: %s.%s is not %s.%s" % (other, n, module, n))
    if count < minimum:
        c.fail("exported_as: only %d names read" % count)
