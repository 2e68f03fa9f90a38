"""Second derivatives of the reverse-mode corpus against second-order finite differences.

For each single-input case and a direction v (1.0 for a scalar input), three ways to the
Hessian-vector product H v are checked through v.Hv against the second difference
(f(x+hv) - 2 f(x) + f(x-hv)) / h^2:
- grad of grad: grad(grad(f)) for a scalar input, vjp(grad(f)) for an array (computed as
  forward-over-reverse, exact by symmetry of the Hessian);
- reverse-over-reverse: the same with `tangent.literal_reverse_over_reverse = True`, i.e.
  reverse mode run over the generated gradient's own code and tape;
- forward-over-reverse: jvp(grad(f)) along v;
- reverse-over-forward: grad(jvp(f)) with the tangent v.
Run with `tangent run tests/corpus/check_second_order.py [optimized=0|1]`.
"""
import sys
import numpy as np
import tangent
import reverse as corpus

H = 1e-4
TOL = 1e-5


def second_difference(f, args, v):
    x = args[0]
    hi = f(*([x + H * v] + list(args[1:])))
    mid = f(*args)
    lo = f(*([x - H * v] + list(args[1:])))
    return (hi - 2.0 * mid + lo) / (H * H)


def main():
    optimized = not (len(sys.argv) > 1 and sys.argv[1] == "optimized=0")
    failures = 0
    checked = 0
    for name in sorted(corpus.CASES):
        args, wrt = corpus.CASES[name]
        if wrt != (0,):
            continue
        f = getattr(corpus, name)
        x = args[0]
        if not isinstance(x, (float, int, np.ndarray)):
            # Structured arguments (dicts, tuples, dataclasses) are checked to first
            # order only (check_fd.py); their second order is not built yet.
            print("skip %-24s a %s argument" % (name, type(x).__name__))
            continue
        # Tangents and seeds come after all of f's parameters: spell out the defaults.
        missing = f.__code__.co_argcount - len(args)
        full = list(args) + (list(f.__defaults__[-missing:]) if missing > 0 else [])
        g = tangent.grad(f, optimized=optimized)
        if isinstance(x, np.ndarray):
            v = np.reshape(np.array([0.5 + 0.25 * k for k in range(x.size)]), x.shape)
            rr = tangent.vjp(g, optimized=optimized)(*(list(args) + [v]))
        else:
            v = 1.0
            rr = tangent.grad(g, optimized=optimized)(*args)
        # Literal reverse-over-reverse: reverse mode run over the generated gradient.
        tangent.literal_reverse_over_reverse = True
        try:
            if isinstance(x, np.ndarray):
                lrr = tangent.vjp(g, optimized=optimized)(*(list(args) + [v]))
            else:
                lrr = tangent.grad(g, optimized=optimized)(*args)
        finally:
            tangent.literal_reverse_over_reverse = False
        fr = tangent.jvp(g, optimized=optimized)(*(full + [1.0, v]))
        rf = tangent.grad(tangent.jvp(f, optimized=optimized), optimized=optimized)(*(full + [v]))
        want = second_difference(f, args, v)
        for how, hv in (("grad-of-grad", rr), ("reverse-over-reverse", lrr),
                        ("forward-over-reverse", fr), ("reverse-over-forward", rf)):
            got = float(np.sum(v * hv))
            err = abs(got - want) / max(1.0, abs(want))
            checked += 1
            status = "ok  " if err < TOL else "FAIL"
            if err >= TOL:
                failures += 1
            print("%s %-24s %-21s %.6g vs %.6g (rel err %.1e)" % (status, name, how, got, want, err))
    print("%d checked, %d failures" % (checked, failures))
    sys.exit(1 if failures else 0)


main()
