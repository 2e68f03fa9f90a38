"""Second order in the op catalog: Hessian-vector products against second differences.

Reuses the CATALOG of check_catalog.py (its part before `def main` is executed here; that
file is not edited). For every entry and input set, a scalar wrapper

    def op_i_j(a, b): return np.sum(SEED_i_j * (<expression>))

(`SEED_i_j * (<expression>)` for a scalar output) is generated into a module file, with a
fixed random seed array SEED_i_j as a module global. Along a random direction v of the
first argument (of each argument in turn with `every_arg`), two ways to the
Hessian-vector product H v are computed:
- forward-over-reverse: tangent.vjp(tangent.grad(s))(*args, v);
- reverse-over-forward: tangent.grad(tangent.jvp(s))(*args, v);
and v.Hv is compared with the second difference (s(x + h v) - 2 s(x) + s(x - h v)) / h^2.
The two H v are also compared with each other element by element (both are exact).
Piecewise linear entries (max, min, clip, sort, ...) are checked too: their second
derivative is 0 almost everywhere. Entries that are not twice differentiable at generic
points are skipped with the reason printed (SKIP list below); a point whose second
differences at h and h/4 disagree (a jump or kink of a piecewise function within h) is
reported and not compared.

Run with `tangent run tests/catalog/check_second_order.py OUTDIR [optimized=0|1]
[only=SUBSTRING] [every_arg]`. Exits non-zero on failure.
"""
import os
import sys

import numpy as np
import scipy.special
import scipy.linalg
import tangent

HERE = os.path.dirname(os.path.abspath(__file__)) if "__file__" in globals() else "tests/catalog"

H = 1e-4
TOL = 1e-4      # v.Hv against the second difference (relative, floor 1)
AGREE = 1e-7    # forward-over-reverse against reverse-over-forward (relative, floor 1)

# Entries (by expression) that are not twice differentiable at generic points, with the
# reason. Kinks of abs/sign/max/min/clip/sort lie on measure-zero sets and are checked.
SKIP = {
    # refused with a located error (tangent.second_order_refused)
    "np.sort(np.linalg.eigvals(a + np.diag([0.0, 10.0, 20.0])))":
        "the second derivative of eig/eigvals is not provided",
    "np.linalg.eig(a + np.diag([0.0, 10.0, 20.0]))[0] * np.linalg.eig(a + np.diag([0.0, 10.0, 20.0]))[1][0]":
        "the second derivative of eig/eigvals is not provided",
    "np.linalg.eig(a + np.diag([0.0, 7.0]))[1] ** 2":
        "the second derivative of eig/eigvals is not provided",
    "np.poly(a + np.diag([0.0, 10.0, 20.0]))":
        "the second derivative of eig/eigvals is not provided",
    "np.linalg.lstsq(a, b)[0]": "the second derivative of numpy.linalg.lstsq is not provided",
    "np.linalg.lstsq(a, b)[1] + np.sum(np.linalg.lstsq(a, b)[3])":
        "the second derivative of numpy.linalg.lstsq is not provided",
    "np.linalg.lstsq(a, np.array([1.0, -0.5, 2.0, 0.3]))[0]":
        "the second derivative of numpy.linalg.lstsq is not provided",
    # refused with a located error (tangent.histogram_density_second_order)
    "np.histogram(a, 3, density=True)[0] * np.histogram(a, 3)[1][1:]":
        "the second derivative of a histogram's density is not provided",
    "np.histogram(a, 3, range=(-2.0, 2.0), density=True)[0]":
        "the second derivative of a histogram's density is not provided",
    "np.histogram(b, 3, weights=a, density=True)[0]":
        "the second derivative of a histogram's density is not provided",
    "np.histogram(np.array([-1.0, 0.1, 0.2, 0.5, 1.0]), np.array([-2.0, 0.0, 2.0]) + 0.1 * np.sort(a), weights=b, density=True)[0]":
        "the second derivative of a histogram's density is not provided",
}


def load_catalog():
    """The part of check_catalog.py before `def main`, executed in a fresh namespace."""
    path = os.path.join(HERE, "check_catalog.py")
    if not os.path.exists(path):
        path = os.path.join("tests", "catalog", "check_catalog.py")
    with open(path) as fh:
        text = fh.read()
    head = text[:text.index("\ndef main")]
    ns = {"__name__": "check_catalog_definitions"}
    exec(compile(head, path, "exec"), ns)
    return ns


def to_source(x):
    """A Python literal for a seed (a float, or an ndarray built from a nested list)."""
    if isinstance(x, np.ndarray):
        return "np.reshape(np.array(%r), %r)" % ([float(t) for t in np.ravel(x).tolist()],
                                                 tuple(x.shape))
    return repr(float(x))


def main():
    outdir = sys.argv[1]
    optimized = True
    only = None
    every_arg = False
    for arg in sys.argv[2:]:
        if arg.startswith("optimized="):
            optimized = arg.split("=", 1)[1] not in ("0", "False", "false")
        elif arg == "every_arg":
            every_arg = True
        elif arg.startswith("only="):
            only = arg.split("=", 1)[1]
    os.makedirs(outdir, exist_ok=True)
    cat = load_catalog()
    catalog = cat["CATALOG"]
    Rng, draw, like, flat = cat["Rng"], cat["draw"], cat["like"], cat["flat"]

    names = "abcdefgh"
    rng = Rng(20270311)
    lines = ["import math", "import numpy as np", "import scipy.special", "import scipy.linalg", ""]
    cases = []
    skipped = []
    for i, (rule, expr, specs) in enumerate(catalog):
        if only is not None and only not in rule and only not in expr:
            continue
        if expr in SKIP:
            for spec in specs:
                skipped.append((rule, expr, [s for s, _ in spec], SKIP[expr]))
        nargs = len(specs[0])
        params = ", ".join(names[:nargs])
        # the primal, to draw inputs and a seed shaped like its output
        ns = {"np": np, "math": __import__("math"), "scipy": scipy}
        exec("def f(%s):\n    return %s\n" % (params, expr), ns)
        for j, spec in enumerate(specs):
            args = [draw(rng, shape, dom) for shape, dom in spec]
            y = ns["f"](*args)
            seed = like(rng, y)
            vs = [like(rng, arg) for arg in args]
            fname = "op_%d_%d" % (i, j)
            lines.append("SEED_%d_%d = %s" % (i, j, to_source(seed)))
            lines.append("")
            lines.append("def %s(%s):" % (fname, params))
            if isinstance(y, np.ndarray):
                lines.append("    return np.sum(SEED_%d_%d * (%s))" % (i, j, expr))
            else:
                lines.append("    return SEED_%d_%d * (%s)" % (i, j, expr))
            lines.append("")
            for k in (range(len(args)) if every_arg else [0]):
                cases.append((rule, expr, fname, spec, args, k, vs[k]))
                if expr in SKIP:
                    break
    path = os.path.join(outdir, "catalog_second_order_ops.py")
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    sys.path.insert(0, outdir)
    import catalog_second_order_ops as ops

    failures = 0
    checked = 0
    failed_rules = {}
    near_kink = []
    for rule, expr, fname, spec, args, k, v in cases:
        s = getattr(ops, fname)
        label = "%-26s %-44s %s" % (rule, expr, [sh for sh, _ in spec])
        if k:
            label += " wrt %s" % names[k]
        x = args[k]
        if expr in SKIP:
            # A refusal must be what happens: a located "not provided" error in each mode.
            for how in ("forward-over-reverse", "reverse-over-forward"):
                try:
                    if how == "forward-over-reverse":
                        tangent.vjp(tangent.grad(s, wrt=(k,)), wrt=(k,))(*(args + [v]))
                    else:
                        tangent.grad(tangent.jvp(s, wrt=(k,)), wrt=(k,))(*(args + [v]))
                    why = "no error"
                except Exception as e:
                    why = None if (type(e).__name__ == "NotDifferentiated"
                                   and "not provided" in str(e)) else "%s: %s" % (
                                       type(e).__name__, str(e).splitlines()[0][:200])
                if why:
                    print("FAIL %s %s: refusal expected (%s), got %s"
                          % (label, how, SKIP[expr], why))
                    failures += 1
                    failed_rules[rule] = failed_rules.get(rule, 0) + 1
            continue

        def second_difference(h):
            hi = s(*(args[:k] + [x + h * v] + args[k + 1:]))
            lo = s(*(args[:k] + [x - h * v] + args[k + 1:]))
            return float((hi - 2.0 * s(*args) + lo) / (h * h))

        want = second_difference(H)
        # A piecewise function (mod, floor, max) may have a jump or kink within H of x:
        # then the second difference is not an estimate of anything, and it changes with
        # the step. Such a point is reported and not compared; a real error shows as a
        # difference where the second differences at both steps agree.
        other = second_difference(H / 4)
        if abs(other - want) > 0.1 * max(1.0, abs(want), abs(other)):
            near_kink.append("%s: second differences %.3g (h) and %.3g (h/4)"
                             % (label, want, other))
            continue
        results = []
        for how in ("forward-over-reverse", "reverse-over-forward"):
            try:
                if how == "forward-over-reverse":
                    hv = tangent.vjp(tangent.grad(s, wrt=(k,), optimized=optimized),
                                     wrt=(k,), optimized=optimized)(*(args + [v]))
                else:
                    hv = tangent.grad(tangent.jvp(s, wrt=(k,), optimized=optimized),
                                      wrt=(k,), optimized=optimized)(*(args + [v]))
                if len(flat(hv)) != len(flat(x)):
                    raise ValueError("H v has %d entries, expected %d"
                                     % (len(flat(hv)), len(flat(x))))
                got = sum(p * q for p, q in zip(flat(v), flat(hv)))
                err = abs(got - want) / max(1.0, abs(want))
                results.append(hv)
                if err >= TOL:
                    print("FAIL %s %s: v.Hv %.8g vs second difference %.8g (rel err %.1e)"
                          % (label, how, got, want, err))
                    failures += 1
                    failed_rules[rule] = failed_rules.get(rule, 0) + 1
            except Exception as e:  # report and count, keep checking the rest
                msg = str(e).strip().splitlines()
                msg = msg[0] if msg else ""
                for line in str(e).splitlines():
                    if "no " in line and "rule" in line:
                        msg = line.strip()
                        break
                print("FAIL %s %s: %s: %s" % (label, how, type(e).__name__, msg[:300]))
                failures += 1
                failed_rules[rule] = failed_rules.get(rule, 0) + 1
            checked += 1
        if len(results) == 2:
            worst = 0.0
            for p, q in zip(flat(results[0]), flat(results[1])):
                worst = max(worst, abs(p - q) / max(1.0, abs(q)))
            if worst >= AGREE:
                print("FAIL %s: forward-over-reverse and reverse-over-forward H v differ "
                      "(max rel diff %.1e)" % (label, worst))
                failures += 1
                failed_rules[rule] = failed_rules.get(rule, 0) + 1
    for rule, expr, shapes, reason in skipped:
        print("SKIP %-26s %-44s %s: %s" % (rule, expr, shapes, reason))
    for what in near_kink:
        print("NEAR A KINK (not compared) %s" % what)
    if len(near_kink) > max(2, len(cases) // 100):
        print("FAIL: %d points near a kink, more than 1%% of the cases: the inputs are drawn "
              "badly" % len(near_kink))
        failures += 1
    if failed_rules:
        print("failing rules: %s" % ", ".join("%s (%d)" % kv for kv in sorted(failed_rules.items())))
    print("%d second-order checks over %d cases, %d skipped (their refusal checked), %d near a "
          "kink, %d failures" % (checked, len(cases) - len(skipped), len(skipped),
                                 len(near_kink), failures))
    sys.exit(1 if failures else 0)


main()
