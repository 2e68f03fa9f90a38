"""Checks every gradient of the reverse-mode corpus against central finite differences.

Run with `tangent run tests/corpus/check_fd.py [optimized=0|1] [reverse|forward] [name]
[motion=joint|split] [preserve=0|1] [liveness=0|1] [cse=0|1] [algebraic=0|1]
[coarsening=0|1] [checkpoint=0|1] [compile=auto|native|native!|python]` (`-` for a name means every case).
Reverse mode compares each gradient with finite differences; forward mode compares the
tangent for each unit input direction. Prints one line per case and exits non-zero if any
derivative is off.
"""
import dataclasses
import sys
import numpy as np
import tangent
import reverse as corpus

EPS = 1e-6
NATIVE = [0]  # how many derivatives ran as native code
TOL = 1e-6


def is_struct(v):
    """A structured argument (the JAX pytree convention): dict, list, tuple (namedtuples
    too) or dataclass instance of numbers, arrays and such structures."""
    return isinstance(v, (dict, list, tuple)) or (
        dataclasses.is_dataclass(v) and not isinstance(v, type))


def children(v):
    """(keys, values) of a structure, in a fixed order."""
    if isinstance(v, dict):
        keys = list(v)
        return keys, [v[k] for k in keys]
    if isinstance(v, (list, tuple)):
        return list(range(len(v))), list(v)
    keys = [f.name for f in dataclasses.fields(v)]
    return keys, [getattr(v, k) for k in keys]


def rebuild(like, values):
    """A structure of like's type and keys holding `values`."""
    if isinstance(like, dict):
        return type(like)(zip(list(like), values))
    if isinstance(like, tuple) and hasattr(like, "_fields"):
        return type(like)(*values)
    if isinstance(like, (list, tuple)):
        return type(like)(values)
    return dataclasses.replace(like, **dict(zip(children(like)[0], values)))


def as_list(v):
    if is_struct(v):
        return [t for c in children(v)[1] for t in as_list(c)]
    if isinstance(v, np.ndarray):
        return [float(t) for t in np.ravel(v).tolist()]
    return [float(v)]


def same_structure(g, like, where):
    """The gradient of a structure is that structure: same type, same keys, nested the
    same way; leaves are numbers or arrays of the input's shape."""
    if is_struct(like):
        if type(g) is not type(like):
            raise AssertionError("%s: gradient is a %s, the argument a %s"
                                 % (where, type(g).__name__, type(like).__name__))
        gk, gv = children(g)
        lk, lv = children(like)
        if gk != lk:
            raise AssertionError("%s: gradient has keys %r, the argument %r" % (where, gk, lk))
        for k, a, b in zip(lk, gv, lv):
            same_structure(a, b, "%s[%r]" % (where, k))
    elif isinstance(like, np.ndarray):
        if np.shape(g) != like.shape:
            raise AssertionError("%s: gradient shape %r, argument shape %r"
                                 % (where, np.shape(g), like.shape))
    elif is_struct(g):
        raise AssertionError("%s: gradient is a %s for a number" % (where, type(g).__name__))


def leaf_perturbed(a, k, delta):
    """`a` with its k-th number (in `as_list` order) moved by delta."""
    if is_struct(a):
        values = []
        for c in children(a)[1]:
            n = len(as_list(c))
            values.append(leaf_perturbed(c, k, delta) if 0 <= k < n else c)
            k -= n
        return rebuild(a, values)
    if isinstance(a, np.ndarray):
        flat = np.ravel(a).tolist()
        flat[k] = flat[k] + delta
        return np.reshape(np.array(flat), a.shape)
    return a + delta


def perturbed(args, i, k, delta):
    args = list(args)
    args[i] = leaf_perturbed(args[i], k, delta)
    return args


def fd_grad(f, args, i):
    n = len(as_list(args[i]))
    out = []
    for k in range(n):
        hi = float(f(*perturbed(args, i, k, EPS)))
        lo = float(f(*perturbed(args, i, k, -EPS)))
        out.append((hi - lo) / (2 * EPS))
    return out


def unit_tangent(a, k):
    """The k-th unit direction shaped like `a` (a float for scalars, the same structure
    for a structured argument)."""
    return leaf_perturbed(zero_tangent(a), k, 1.0)


def zero_tangent(a):
    if is_struct(a):
        return rebuild(a, [zero_tangent(c) for c in children(a)[1]])
    if isinstance(a, np.ndarray):
        return np.zeros(a.shape)
    return 0.0


def forward_derivatives(f, args, wrt, optimized, preserve, passes=None, compile="python"):
    """For each wrt position: the list of directional derivatives along unit vectors."""
    df = tangent.autodiff(f, wrt=wrt, mode="forward", optimized=optimized,
                          preserve_result=preserve, optimizations=passes, compile=compile)
    NATIVE[0] += type(df).__name__ == "NativeFunction"
    # Tangents are appended after all of f's parameters: spell out the defaults.
    missing = f.__code__.co_argcount - len(args)
    if missing > 0:
        args = tuple(args) + tuple(f.__defaults__[-missing:])
    out = []
    for pos in wrt:
        column = []
        for k in range(len(as_list(args[pos]))):
            tangents = [unit_tangent(args[p], k) if p == pos else zero_tangent(args[p])
                        for p in wrt]
            out_tangent = df(*(list(args) + tangents))
            if preserve:
                out_tangent, value = out_tangent
                check_value(f, args, value)
            column.append(float(out_tangent))
        out.append(column)
    return out


def check_value(f, args, value):
    """preserve_result must return the function's own value."""
    want = f(*args)
    if as_list(value) != as_list(want):
        raise AssertionError("preserve_result returned %r, the function %r" % (value, want))


def main():
    optimized = not (len(sys.argv) > 1 and sys.argv[1] == "optimized=0")
    mode = sys.argv[2] if len(sys.argv) > 2 else "reverse"
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    options = dict(a.split("=", 1) for a in sys.argv[4:])
    motion = options.get("motion", "joint")
    preserve = options.get("preserve", "0") == "1"
    passes = {"tape_liveness": options.get("liveness", "0") == "1",
              "cse": options.get("cse", "0") == "1",
              "algebraic": options.get("algebraic", "0") == "1",
              "coarsening": options.get("coarsening", "0") == "1"}
    checkpoint = options.get("checkpoint", "0") == "1"
    compile = options.get("compile", "python")
    failures = 0
    for name in sorted(corpus.CASES):
        if only and name != only:
            continue
        args, wrt = corpus.CASES[name]
        f = getattr(corpus, name)
        if mode == "forward" and name in corpus.REVERSE_ONLY:
            print("skip %-24s no forward-mode rule (custom_vjp)" % name)
            continue
        if mode == "forward":
            fwd_passes = {k: v for k, v in passes.items() if k in ("cse", "algebraic")}
            got = forward_derivatives(f, args, wrt, optimized, preserve, fwd_passes, compile)
            if any(fwd_passes.values()) or compile != "python":
                # The optional passes must give the default pipeline's numbers (1e-12).
                base = forward_derivatives(f, args, wrt, True, False)
                for b, g in zip(base, got):
                    for p, q in zip(b, g):
                        if abs(p - q) > 1e-12 * max(1.0, abs(p)):
                            raise AssertionError("%s: %r differs from the default %r" % (name, q, p))
        else:
            df = tangent.autodiff(f, wrt=wrt, optimized=optimized, motion=motion,
                                  preserve_result=preserve, optimizations=passes,
                                  checkpoint=checkpoint, compile=compile)
            NATIVE[0] += type(df).__name__ == "NativeFunction"
            got = df(*args)
            if preserve:
                check_value(f, args, got[-1])
                got = got[:-1] if len(wrt) > 1 else got[0]
            if len(wrt) == 1:
                got = (got,)
            # Every optional pass must give the default pipeline's numbers (1e-12).
            base = tangent.grad(f, wrt=wrt, compile="python")(*args)
            base = (base,) if len(wrt) == 1 else base
            for b, g in zip(base, got):
                for p, q in zip(as_list(b), as_list(g)):
                    if abs(p - q) > 1e-12 * max(1.0, abs(p)):
                        raise AssertionError("%s: %r differs from the default %r" % (name, q, p))
        if mode != "forward":
            for pos, g in zip(wrt, got):
                same_structure(g, args[pos], "%s: argument %d" % (name, pos))
        worst = 0.0
        for pos, g in zip(wrt, got):
            want = fd_grad(f, args, pos)
            have = g if mode == "forward" else as_list(g)
            if len(have) != len(want):
                print("FAIL %s: gradient %d has %d entries, expected %d" % (name, pos, len(have), len(want)))
                failures += 1
                worst = None
                break
            for h, w in zip(have, want):
                err = abs(h - w) / max(1.0, abs(w))
                worst = err if err != err else max(worst, err)  # a NaN fails
        if worst is None:
            continue
        status = "ok  " if worst < TOL else "FAIL"
        if worst >= TOL:
            failures += 1
        print("%s %-24s max rel err %.2e" % (status, name, worst))
    print("%d ran natively" % NATIVE[0])
    print("%d failures" % failures)
    sys.exit(1 if failures else 0)


main()
