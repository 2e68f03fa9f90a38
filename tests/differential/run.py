"""Differential test: random functions (generate.py), every derivative variant, against
Richardson-extrapolated central finite differences of the primal.

    tangent run tests/differential/run.py --seed S --count N [--variants all|quick]
        [--keep DIR] [--only K] [--exclude FEATURE,...] [--size N] [--rule-check]
    tangent run tests/differential/run.py --module tests/corpus/reverse.py [--only NAME]

For each of the N functions f0..f<N-1> of seed S: draw inputs whose comparisons and
kinks are all at least generate.MARGIN from flipping (checked on the probe rendering),
compute finite differences (dropping a case whose differences are unstable between two
step sizes), then build and call the derivative in each variant. A TangentError with a
location (`file.py:line:col`) is a refusal: counted, listed, not a failure. Any other
exception, or a number off by more than TOL * max(1, |fd|), is a failure, printed with
the function's source, the variant and the numbers; the exit status is then 1. The
variants that pass must also agree with one another (AGREE), so that a small error
hidden under the finite-difference tolerance still shows.

`--keep DIR` writes the generated modules there (else a temporary directory); the plain
module has a CASES table like tests/corpus/reverse.py. `--only K` runs f<K> alone (same
source as in the full run). `--exclude` leaves features out of the generated code
(names in generate.FEATURES), to look past a known bug. `--size N` makes the top-level
functions N times longer. `--rule-check` registers a wrong
adjoint for math.sin first: the run must then fail (the test can fail). `--module`
runs the variants over a hand-written module's CASES instead (the corpus).
"""
import importlib
import math
import os
import random
import re
import sys
import tempfile
import time

import numpy as np
import tangent

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

TOL = 1e-5     # derivative vs finite differences, relative to max(1, |fd|)
AGREE = 1e-9   # passing variants vs each other, same scale
# With float32 arguments (float32_loop): the derivative of single-precision code against
# the differences of the same function in float64, and variants that may order float32
# operations differently.
TOL32 = 2e-3
AGREE32 = 1e-5
STEP = 1e-4    # Richardson step; the margin (1e-2) keeps kinks out of reach
TRIES = 30     # input draws per function before giving it up

# name -> autodiff options; everything not given is the default of tangent.autodiff,
# except compile, which is 'python' unless the variant tests native code.
VARIANTS = [
    ("rev-joint", dict(mode="reverse", motion="joint", optimized=True)),
    ("rev-joint-noopt", dict(mode="reverse", motion="joint", optimized=False)),
    ("rev-split", dict(mode="reverse", motion="split", optimized=True)),
    ("rev-split-noopt", dict(mode="reverse", motion="split", optimized=False)),
    ("fwd", dict(mode="forward", optimized=True)),
    ("fwd-noopt", dict(mode="forward", optimized=False)),
    ("rev-checkpoint", dict(mode="reverse", checkpoint=True)),
    ("rev-split-checkpoint-noopt", dict(mode="reverse", motion="split", checkpoint=True,
                                        optimized=False)),
    ("rev-cse-algebraic", dict(mode="reverse", optimizations={"cse": True, "algebraic": True})),
    ("rev-split-cse-algebraic", dict(mode="reverse", motion="split",
                                     optimizations={"cse": True, "algebraic": True})),
    ("fwd-cse-algebraic", dict(mode="forward", optimizations={"cse": True, "algebraic": True})),
    ("rev-coarsening", dict(mode="reverse", optimizations={"coarsening": True})),
    ("rev-tape-liveness", dict(mode="reverse", optimizations={"tape_liveness": True})),
    ("rev-native", dict(mode="reverse", compile="auto")),
    ("rev-native-noopt", dict(mode="reverse", optimized=False, compile="auto")),
    ("fwd-native", dict(mode="forward", compile="auto")),
    ("rev-split-preserve", dict(mode="reverse", motion="split", preserve_result=True)),
    ("fwd-preserve", dict(mode="forward", preserve_result=True)),
]
QUICK = ("rev-joint", "rev-split-noopt", "fwd", "rev-checkpoint", "rev-native", "fwd-native")

LOCATED = re.compile(r"\.py:\d+:\d+")
REPRODUCE = [None]  # the command line that runs one generated case again


def parse_args(argv):
    opts = {"seed": 0, "count": 20, "variants": "all", "keep": None, "only": None,
            "exclude": "", "rule-check": False, "module": None, "size": 1}
    i = 0
    while i < len(argv):
        key = argv[i][2:] if argv[i].startswith("--") else None
        if key not in opts:
            sys.exit("run.py: unknown argument %r (see the docstring)" % argv[i])
        if key == "rule-check":
            opts[key] = True
            i += 1
            continue
        opts[key] = argv[i + 1]
        i += 2
    opts["seed"] = int(opts["seed"])
    opts["count"] = int(opts["count"])
    opts["size"] = int(opts["size"])
    opts["exclude"] = [e for e in opts["exclude"].split(",") if e]
    for e in opts["exclude"]:
        if e not in generate.FEATURES:
            sys.exit("run.py: unknown feature %r; known: %s" % (e, ", ".join(generate.FEATURES)))
    return opts


# --- values -------------------------------------------------------------------------

def as_list(v):
    if isinstance(v, np.ndarray):
        return [float(t) for t in np.ravel(v).tolist()]
    return [float(v)]


def widened(args):
    """Float32 arrays as float64 (the finite differences of float32 code are taken of
    the float64 function: single precision would lose the step to rounding)."""
    return [a.astype(np.float64) if isinstance(a, np.ndarray) and a.dtype == np.float32
            else a for a in args]


def single(args):
    return any(isinstance(a, np.ndarray) and a.dtype == np.float32 for a in args)


def copies(args):
    """Fresh copies, so a derivative that writes into its inputs cannot spoil the next."""
    return [a.copy() if isinstance(a, np.ndarray) else a for a in args]


def perturbed(args, i, k, delta):
    args = copies(args)
    a = args[i]
    if isinstance(a, np.ndarray):
        flat = np.ravel(a).tolist()
        flat[k] = flat[k] + delta
        args[i] = np.reshape(np.array(flat), a.shape)
    else:
        args[i] = a + delta
    return args


def central(f, args, i, k, h):
    return (float(f(*perturbed(args, i, k, h))) - float(f(*perturbed(args, i, k, -h)))) / (2 * h)


def richardson(f, args, i, h):
    """d f / d args[i], each entry: (4 D(h/2) - D(h)) / 3, error O(h^4)."""
    out = []
    for k in range(len(as_list(args[i]))):
        out.append((4.0 * central(f, args, i, k, h / 2) - central(f, args, i, k, h)) / 3.0)
    return out


def close(a, b, tol):
    return abs(a - b) <= tol * max(1.0, abs(b))


# --- cases -------------------------------------------------------------------------

class Case:
    def __init__(self, k, plain, probe, params, features):
        self.k = k
        self.name = "f%d" % k
        self.plain = plain
        self.probe = probe
        self.params = params
        self.features = features
        self.args = None
        self.wrt = None
        self.skipped = None  # why no derivative was checked


def write_module(path, header, sources, cases):
    with open(path, "w") as out:
        out.write(header)
        for text in sources:
            out.write("\n\n%s\n" % text)
        if cases is not None:
            out.write("\n\nCASES = {\n")
            for c in cases:
                out.write("    %r: (%s, %r),\n" % (c.name, generate.args_text(c.args), tuple(c.wrt)))
            out.write("}\n")


def load(name):
    if name in sys.modules:
        del sys.modules[name]
    return importlib.import_module(name)


def choose_inputs(case, probe_fn, rng):
    """Inputs at least MARGIN away from every kink, with a tame value; None if none found."""
    last = "no draw"
    for _ in range(TRIES):
        args = generate.draw_inputs(rng, case.params)
        probe_mod = sys.modules[probe_fn.__module__]
        probe_mod.MARGIN[0] = float("inf")
        try:
            value = float(probe_fn(*copies(args)))
        except Exception as e:  # a domain error or overflow at these inputs: draw again
            last = "primal raised %s: %s" % (type(e).__name__, e)
            continue
        if not math.isfinite(value) or abs(value) > 1e6:
            last = "primal value %r" % value
            continue
        if probe_mod.MARGIN[0] < generate.MARGIN:
            last = "a kink within %.1e" % probe_mod.MARGIN[0]
            continue
        return args
    case.skipped = last
    return None


def choose_wrt(case, rng):
    active = [i for i, (_, s) in enumerate(case.params) if s != "int"]
    if len(active) > 1 and rng.random() < 0.3:
        return sorted(rng.sample(active, rng.randint(1, len(active) - 1)))
    return active


# --- variants -----------------------------------------------------------------------

class Outcome:
    def __init__(self, status, detail="", numbers=None, native=False):
        self.status = status    # "ok", "refused", "failed"
        self.detail = detail
        self.numbers = numbers  # per wrt position: list of floats
        self.native = native


def direction(a, rng):
    if isinstance(a, np.ndarray):
        return np.reshape(np.array([rng.uniform(-1.0, 1.0) for _ in as_list(a)]), a.shape)
    return 1.0


def zero_like(a):
    return np.zeros(a.shape) if isinstance(a, np.ndarray) else 0.0


def run_variant(f, case, opts, fds, dirs):
    """Build and call one derivative; compare with the finite differences."""
    opts = dict(opts)
    mode = opts.pop("mode")
    opts.setdefault("compile", "python")
    try:
        df = tangent.autodiff(f, mode=mode, wrt=tuple(case.wrt), **opts)
        native = type(df).__name__ == "NativeFunction"
        preserve = opts.get("preserve_result")
        value = float(f(*copies(case.args)))
        if mode == "reverse":
            got = df(*copies(case.args))
            if preserve:  # (gradients..., value) or (gradient, value)
                if float(got[-1]) != value:
                    return Outcome("failed", "preserve_result gave %r, the function %r" % (got[-1], value))
                got = got[:-1] if len(case.wrt) > 1 else got[0]
            got = (got,) if len(case.wrt) == 1 else tuple(got)
            numbers = [as_list(g) for g in got]
            want = fds
        else:
            numbers, want = [], []
            for j, p in enumerate(case.wrt):
                tangents = [dirs[q] if q == p else zero_like(case.args[q]) for q in case.wrt]
                out = df(*(copies(case.args) + tangents))
                if preserve:
                    out, v = out
                    if float(v) != value:
                        return Outcome("failed", "preserve_result gave %r, the function %r" % (v, value))
                numbers.append([float(out)])
                want.append([sum(d * v for d, v in zip(fds[j], as_list(dirs[p])))])
    except tangent.TangentError as e:
        text = str(e)
        if LOCATED.search(text):
            return Outcome("refused", text)
        return Outcome("failed", "TangentError without a location:\n" + text)
    except Exception as e:
        import traceback
        return Outcome("failed", "raised %s: %s\n%s" % (type(e).__name__, e,
                                                        traceback.format_exc()[-1500:]))
    if len(numbers) != len(want) or any(len(n) != len(w) for n, w in zip(numbers, want)):
        return Outcome("failed", "shape: got %r, finite differences %r" % (numbers, want), numbers)
    bad = [(j, n, w) for j, (ns, ws) in enumerate(zip(numbers, want))
           for n, w in zip(ns, ws)
           if not (math.isfinite(n) and close(n, w, TOL32 if single(case.args) else TOL))]
    if bad:
        lines = ["wrong derivative (%s mode):" % mode]
        for j, (ns, ws) in enumerate(zip(numbers, want)):
            lines.append("  wrt %d (%s): got %r" % (case.wrt[j], case.params[case.wrt[j]][0], ns))
            lines.append("  %s finite differences %r" % (" " * len(str(case.wrt[j])), ws))
        return Outcome("failed", "\n".join(lines), numbers, native)
    return Outcome("ok", "", numbers, native)


def refusal_key(text):
    """The refusal's message without its location, for grouping."""
    first = text.split("\n", 1)[0]
    m = LOCATED.search(first)
    return first[m.end():].lstrip(": ") if m else first


def report_failure(case, variant, detail):
    print("=" * 78)
    print("FAIL %s variant=%s features=%s" % (case.name, variant, ",".join(case.features)))
    print("args=%s wrt=%r" % (generate.args_text(case.args), tuple(case.wrt)))
    if REPRODUCE[0]:
        print("again: %s" % (REPRODUCE[0] % case.k))
    print(detail.rstrip())
    print("--- source")
    print(case.plain)


# Deliberately wrong rules for math.sin (the true derivative is cos), installed by
# --rule-check: the run must then fail. Templates are read from this file's source, so
# they are top-level functions (never called).
def sin_wrong(y, x):
    d[x] = d[y] * 2.0 * math.cos(x)  # noqa: F821 (template notation)


def sin_wrong_tangent(y, x):
    d[y] = d[x] * 2.0 * math.cos(x)  # noqa: F821


def install_wrong_rule():
    tangent.adjoint(math.sin)(sin_wrong)
    tangent.tangent_(math.sin)(sin_wrong_tangent)


def generated_cases(opts, directory):
    """The Cases of the generated functions, with inputs; the plain and probe modules."""
    seed = opts["seed"]
    ks = [int(opts["only"])] if opts["only"] is not None else range(opts["count"])
    cases = []
    for k in ks:
        plain, probe, params, features = generate.function_source(seed, k, opts["exclude"],
                                                                  opts["size"])
        cases.append(Case(k, plain, probe, params, features))

    # Inputs come from the probe module (same functions, comparisons instrumented).
    probe_name = "differential_probe_%d" % seed
    write_module(os.path.join(directory, probe_name + ".py"), generate.PROBE_HELPERS,
                 [c.probe for c in cases], None)
    probe_mod = load(probe_name)
    for c in cases:
        rng = random.Random(seed * 7919 + c.k)
        c.args = choose_inputs(c, getattr(probe_mod, c.name), rng)
        c.wrt = choose_wrt(c, rng) if c.args is not None else None
        c.rng = rng

    plain_name = "differential_%d" % seed
    write_module(os.path.join(directory, plain_name + ".py"), "import math\nimport numpy as np\n",
                 [c.plain for c in cases], [c for c in cases if c.args is not None])
    return cases, load(plain_name), probe_mod


def module_cases(path, only):
    """--module: the CASES of an existing module (e.g. tests/corpus/reverse.py), as they are
    (no margin check: its inputs were chosen by hand)."""
    path = os.path.abspath(path)
    sys.path.insert(0, os.path.dirname(path))
    mod = load(os.path.basename(path)[:-3])
    cases = []
    for k, name in enumerate(sorted(mod.CASES)):
        if only is not None and name != only:
            continue
        args, wrt = mod.CASES[name]
        f = getattr(mod, name)
        args = list(args)
        missing = f.__code__.co_argcount - len(args)
        if missing > 0:  # forward mode appends tangents after every parameter
            args += list(f.__defaults__[-missing:])
        params = [(f.__code__.co_varnames[i], a.shape if isinstance(a, np.ndarray) else ())
                  for i, a in enumerate(args)]
        c = Case(k, "(%s in %s)" % (name, path), None, params, [])
        c.name, c.args, c.wrt, c.rng = name, args, list(wrt), random.Random(k)
        cases.append(c)
    return cases, mod


def main():
    opts = parse_args(sys.argv[1:])
    seed = opts["seed"]
    if opts["rule-check"]:
        install_wrong_rule()
    variants = [(n, o) for n, o in VARIANTS if opts["variants"] == "all" or n in QUICK]
    if not opts["module"]:
        REPRODUCE[0] = "tangent run tests/differential/run.py --seed %d --only %%d%s%s" % (
            seed, " --exclude " + ",".join(opts["exclude"]) if opts["exclude"] else "",
            " --size %d" % opts["size"] if opts["size"] != 1 else "")
    directory = opts["keep"] or tempfile.mkdtemp(prefix="tangent-differential-")
    os.makedirs(directory, exist_ok=True)
    sys.path.insert(0, directory)
    started = time.time()

    if opts["module"]:
        cases, mod = module_cases(opts["module"], opts["only"])
        probe_mod = None
    else:
        cases, mod, probe_mod = generated_cases(opts, directory)
    ready = [c for c in cases if c.args is not None]

    counts = {"ok": 0, "refused": 0, "failed": 0}
    native = 0
    refusals = {}
    failed_cases = []
    checked = 0
    for c in ready:
        f = getattr(mod, c.name)
        want_value = float(getattr(probe_mod or mod, c.name)(*copies(c.args)))
        got_value = float(f(*copies(c.args)))
        if got_value != want_value:
            # The two renderings must compute the same thing, or the margins mean nothing.
            counts["failed"] += 1
            report_failure(c, "generator", "plain %r, probe %r" % (got_value, want_value))
            failed_cases.append(c.name)
            continue
        fds = [richardson(f, widened(c.args), p, STEP) for p in c.wrt]
        check = [richardson(f, widened(c.args), p, STEP / 5) for p in c.wrt]
        agree = AGREE32 if single(c.args) else AGREE
        if not all(close(a, b, 1e-7) for fa, fb in zip(fds, check) for a, b in zip(fa, fb)):
            c.skipped = "finite differences unstable: %r vs %r" % (fds, check)
            continue
        checked += 1
        dirs = {p: direction(c.args[p], c.rng) for p in c.wrt}
        passing = {}  # mode -> (variant, numbers) of the first variant that matched
        case_failed = False
        for vname, vopts in variants:
            out = run_variant(f, c, vopts, fds, dirs)
            counts[out.status] += 1
            native += out.native
            if out.status == "refused":
                key = refusal_key(out.detail)
                refusals.setdefault(key, []).append("%s/%s" % (c.name, vname))
            elif out.status == "ok":
                mode = vopts["mode"]
                if mode in passing:
                    first, numbers = passing[mode]
                    off = [(a, b) for xs, ys in zip(out.numbers, numbers) for a, b in zip(xs, ys)
                           if not close(a, b, agree)]
                    if off:
                        counts["ok"] -= 1
                        counts["failed"] += 1
                        case_failed = True
                        report_failure(c, vname, "agrees with finite differences but differs "
                                       "from %s: %r vs %r" % (first, out.numbers, numbers))
                else:
                    passing[mode] = (vname, out.numbers)
            else:
                case_failed = True
                report_failure(c, vname, out.detail)
        if case_failed:
            failed_cases.append(c.name)

    skipped = [c for c in cases if c.skipped]
    print("=" * 78)
    if refusals:
        print("refusals (message: how many, of which functions):")
        for key in sorted(refusals, key=lambda k: -len(refusals[k])):
            where = refusals[key]
            names = []
            for w in where:
                if w.split("/")[0] not in names:
                    names.append(w.split("/")[0])
            print("  %s: %d derivatives of %s" % (key, len(where), " ".join(names[:12])))
    for c in skipped:
        print("skipped %s: %s" % (c.name, c.skipped[:200]))
    if failed_cases:
        print("failed cases: %s" % " ".join(failed_cases))
    if opts["keep"]:
        print("modules in %s" % directory)
    else:
        for name in os.listdir(directory):
            path = os.path.join(directory, name)
            if os.path.isfile(path):
                os.remove(path)
            else:  # __pycache__
                for inner in os.listdir(path):
                    os.remove(os.path.join(path, inner))
                os.rmdir(path)
        os.rmdir(directory)
    print("summary: seed=%d cases=%d checked=%d skipped=%d variants=%d ok=%d refused=%d "
          "failed=%d native=%d seconds=%.1f" % (
              seed, len(cases), checked, len(skipped), len(variants), counts["ok"],
              counts["refused"], counts["failed"], native, time.time() - started))
    sys.exit(1 if counts["failed"] else 0)


main()
