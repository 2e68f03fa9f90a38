"""Second derivatives of the reverse-mode corpus against second-order finite differences.

For each single-input case: a scalar input is checked with grad(grad(f)) against
(f(x+h) - 2 f(x) + f(x-h)) / h^2; an array input with the Hessian-vector product
vjp(grad(f)) along a direction v, whose projection v.Hv is checked against the same
second difference along v. Run with `tangent run tests/corpus/check_second_order.py
[optimized=0|1]`.
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
        g = tangent.grad(f, optimized=optimized)
        if isinstance(x, np.ndarray):
            v = np.reshape(np.array([0.5 + 0.25 * k for k in range(x.size)]), x.shape)
            hv = tangent.vjp(g, optimized=optimized)(*(list(args) + [v]))
            got = float(np.sum(v * hv))
            want = second_difference(f, args, v)
        else:
            got = float(tangent.grad(g, optimized=optimized)(*args))
            want = second_difference(f, args, 1.0)
        err = abs(got - want) / max(1.0, abs(want))
        checked += 1
        status = "ok  " if err < TOL else "FAIL"
        if err >= TOL:
            failures += 1
        print("%s %-24s second derivative %.6g vs %.6g (rel err %.1e)" % (status, name, got, want, err))
    print("%d checked, %d failures" % (checked, failures))
    sys.exit(1 if failures else 0)


main()
