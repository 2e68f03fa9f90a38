"""Checks every gradient of the reverse-mode corpus against central finite differences.

Run with `tangent run tests/corpus/check_fd.py [optimized=0|1]`. Prints one line per case
and exits non-zero if any gradient is off.
"""
import sys
import numpy as np
import tangent
import reverse as corpus

EPS = 1e-6
TOL = 1e-6


def as_list(v):
    if isinstance(v, np.ndarray):
        return [float(t) for t in np.ravel(v).tolist()]
    return [float(v)]


def perturbed(args, i, k, delta):
    args = list(args)
    a = args[i]
    if isinstance(a, np.ndarray):
        flat = np.ravel(a).tolist()
        flat[k] = flat[k] + delta
        args[i] = np.reshape(np.array(flat), a.shape)
    else:
        args[i] = a + delta
    return args


def fd_grad(f, args, i):
    n = len(as_list(args[i]))
    out = []
    for k in range(n):
        hi = float(f(*perturbed(args, i, k, EPS)))
        lo = float(f(*perturbed(args, i, k, -EPS)))
        out.append((hi - lo) / (2 * EPS))
    return out


def main():
    optimized = not (len(sys.argv) > 1 and sys.argv[1] == "optimized=0")
    only = sys.argv[2] if len(sys.argv) > 2 else None
    failures = 0
    for name in sorted(corpus.CASES):
        if only and name != only:
            continue
        args, wrt = corpus.CASES[name]
        f = getattr(corpus, name)
        df = tangent.grad(f, wrt=wrt, optimized=optimized)
        got = df(*args)
        if len(wrt) == 1:
            got = (got,)
        worst = 0.0
        for pos, g in zip(wrt, got):
            want = fd_grad(f, args, pos)
            have = as_list(g)
            if len(have) != len(want):
                print("FAIL %s: gradient %d has %d entries, expected %d" % (name, pos, len(have), len(want)))
                failures += 1
                worst = None
                break
            for h, w in zip(have, want):
                worst = max(worst, abs(h - w) / max(1.0, abs(w)))
        if worst is None:
            continue
        status = "ok  " if worst < TOL else "FAIL"
        if worst >= TOL:
            failures += 1
        print("%s %-24s max rel err %.2e" % (status, name, worst))
    print("%d failures" % failures)
    sys.exit(1 if failures else 0)


main()
