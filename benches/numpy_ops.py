"""Common NumPy operations, the embedded numpy against real NumPy in CPython.

    python3 benches/numpy_ops.py [--rounds 3] [--sizes 1000,1000000] [--only NAME,...]
        [--python PY] [--tangent BIN] [--readme]

runs this file in both hosts (`tangent run --embedded` and PY, a CPython with NumPy;
default ~/.cache/tangent-venv/bin/python), alternating the hosts round by round, one
thread each (OPENBLAS_NUM_THREADS=1 and the like; the embedded numpy's linear algebra
runs sequentially), and prints a table: each operation's median time per call in each
host and the ratio embedded / NumPy, the median of the per-round ratios. With --readme
the table replaces the one between the markers in README.md.

Run by a host (`--worker SIZE,...`), it times every operation at each size and prints
one JSON object: name -> size -> seconds per call (the minimum over repeats of a batch
of about 20 ms, the statement in a loop), or an error message when the host lacks the
operation.
"""
import json
import os
import subprocess
import sys
import time

np = None  # the host's numpy, imported by the worker (the driver needs none)

# (name, statement timed). The statement reads the inputs `inputs(n)` makes as local
# names; it runs in a loop of a function of its own (the way scripts call NumPy).
OPS = [
    # elementwise ufuncs and expressions
    ("a + b", "a + b"),
    ("a * b", "a * b"),
    ("a / b", "a / b"),
    ("a * 2.5 + 1.0", "a * 2.5 + 1.0"),
    ("np.exp", "np.exp(a)"),
    ("np.log", "np.log(p)"),
    ("np.sin", "np.sin(a)"),
    ("np.tanh", "np.tanh(a)"),
    ("np.sqrt", "np.sqrt(p)"),
    ("a ** 3.0", "a ** 3.0"),
    ("np.maximum", "np.maximum(a, b)"),
    ("np.abs", "np.abs(a)"),
    ("np.where", "np.where(a > 0.0, a, b)"),
    ("np.clip", "np.clip(a, -0.5, 0.5)"),
    ("a > b", "a > b"),
    ("a + row (broadcast)", "m + row"),
    ("float32 a * b", "a32 * b32"),
    ("int64 i + j", "i + j"),
    # reductions
    ("np.sum", "np.sum(a)"),
    ("np.sum axis 0", "np.sum(m, axis=0)"),
    ("np.sum axis 1", "np.sum(m, axis=1)"),
    ("np.mean axis 0", "np.mean(m, axis=0)"),
    ("np.max axis 1", "np.max(m, axis=1)"),
    ("np.argmax", "np.argmax(a)"),
    ("np.std", "np.std(a)"),
    ("np.cumsum", "np.cumsum(a)"),
    ("np.dot (vectors)", "np.dot(a, b)"),
    # sorting
    ("np.sort", "np.sort(a)"),
    ("np.argsort", "np.argsort(a)"),
    ("np.median", "np.median(a)"),
    ("np.unique (ints)", "np.unique(small)"),
    # indexing and copies
    ("a[idx] (gather)", "a[idx]"),
    ("a[a > 0] (mask)", "a[a > 0.0]"),
    ("a[::2].copy()", "a[::2].copy()"),
    ("m.T.copy()", "m.T.copy()"),
    ("np.concatenate", "np.concatenate([a, b])"),
    ("a[idx] = b[idx] (scatter)", "c[idx] = b[idx]"),
    # Fourier transforms, linear algebra, random draws
    ("np.fft.fft", "np.fft.fft(a)"),
    ("np.fft.rfft", "np.fft.rfft(a)"),
    ("m @ m (square)", "sq @ sq"),
    ("np.linalg.solve", "np.linalg.solve(sq, rhs)"),
    ("rng.standard_normal", "rng.standard_normal(n)"),
    ("rng.random", "rng.random(n)"),
    ("rng.integers", "rng.integers(0, 100, n)"),
]


def inputs(n):
    """Arrays of n elements (`m`: n elements as a 2-d array; `sq`: a square matrix of
    about n elements, well conditioned)."""
    rows = max(r for r in range(1, int(n ** 0.5) + 1) if n % r == 0)
    k = np.arange(n) * 1.0
    a = np.sin(k * 0.37) * 2.0
    b = np.cos(k * 0.11) + 1.5
    side = max(4, int(round(n ** 0.5)))
    j = np.arange(side * side) * 1.0
    sq = (np.sin(j * 0.7) * 0.1).reshape((side, side)) + np.eye(side) * side
    return {
        "n": n,
        "a": a,
        "b": b,
        "c": a.copy(),
        "p": b + 0.5,
        "m": a.reshape((rows, n // rows)),
        "row": b[: n // rows],
        "a32": a.astype(np.float32),
        "b32": b.astype(np.float32),
        "i": np.arange(n),
        "j": np.arange(n) * 3 - 7,
        "small": (np.arange(n) * 7919) % 1000,
        "idx": (np.arange(n) * 7919) % n,
        "sq": sq,
        "rhs": np.cos(np.arange(side) * 1.0),
        "rng": np.random.default_rng(0),
    }


def time_op(stmt, d, budget=0.02, repeats=5):
    """Seconds per run of `stmt`: the fastest of `repeats` batches, each about `budget`
    long, each batch one call of a function that runs it in a loop."""
    names = sorted(k for k in d if k.isidentifier())
    src = "def bench(_calls, _d):\n    %s = %s\n    for _ in range(_calls):\n        %s\n" % (
        ", ".join(names), ", ".join("_d[%r]" % k for k in names), stmt)
    scope = {"np": np}
    exec(src, scope)
    bench = scope["bench"]
    bench(1, d)
    t = time.perf_counter()
    bench(1, d)
    one = max(time.perf_counter() - t, 1e-7)
    calls = max(1, int(budget / one))
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        bench(calls, d)
        best = min(best, (time.perf_counter() - t) / calls)
    return best


def worker(sizes, only):
    global np
    import numpy as np
    out = {}
    for n in sizes:
        d = inputs(n)
        for name, stmt in OPS:
            if only and name not in only:
                continue
            try:
                out.setdefault(name, {})[str(n)] = time_op(stmt, d)
            except Exception as e:  # the host lacks the operation: said in the table
                out.setdefault(name, {})[str(n)] = "%s: %s" % (type(e).__name__, e)
    print(json.dumps(out))


def run_host(cmd, sizes, only):
    env = dict(os.environ)
    for v in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env[v] = "1"
    env["TANGENT_DISK_CACHE"] = "0"
    args = cmd + [os.path.abspath(__file__), "--worker", ",".join(map(str, sizes))]
    if only:
        args += ["--only", ",".join(only)]
    r = subprocess.run(args, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit("%s failed:\n%s" % (" ".join(cmd), r.stderr[-3000:]))
    return json.loads(r.stdout.strip().splitlines()[-1])


def median(xs):
    xs = sorted(xs)
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m])


def fmt_time(s):
    if isinstance(s, str):
        return "missing"
    if s < 1e-6:
        return "%.0f ns" % (s * 1e9)
    if s < 1e-3:
        return "%.1f us" % (s * 1e6)
    return "%.2f ms" % (s * 1e3)


def table(rounds, sizes):
    """The markdown table and the summary line of the per-round ratios."""
    names = [n for n, _ in OPS if n in rounds[0][0]]
    head = "| operation | " + " | ".join(
        "NumPy %s | embedded %s | ratio %s" % ((f"10^{len(str(n)) - 1}",) * 3) for n in sizes)
    lines = [head + " |", "|---" * (1 + 3 * len(sizes)) + "|"]
    ratios_all, worst = [], (0.0, "")
    by_size = {n: [] for n in sizes}
    for name in names:
        cells = []
        for n in sizes:
            key = str(n)
            emb = [r[0][name][key] for r in rounds]
            cpy = [r[1][name][key] for r in rounds]
            if any(isinstance(v, str) for v in emb + cpy):
                what = next(v for v in emb + cpy if isinstance(v, str))
                cells += [fmt_time(median([v for v in cpy if not isinstance(v, str)] or [0])),
                          "missing", "(%s)" % what.split(":")[0]]
                continue
            ratio = median([e / c for e, c in zip(emb, cpy)])
            ratios_all.append(ratio)
            by_size[n].append(ratio)
            worst = max(worst, (ratio, "%s at %s" % (name, n)))
            cells += [fmt_time(median(cpy)), fmt_time(median(emb)), "%.2fx" % ratio]
        lines.append("| %s | %s |" % (name, " | ".join(cells)))
    per_size = "; ".join("at 10^%d median %.2fx, %d of %d within 1.5x" % (
        len(str(n)) - 1, median(r), sum(x <= 1.5 for x in r), len(r))
        for n, r in by_size.items() if r)
    summary = ("%d measured: median ratio %.2fx, %d within 1.5x, worst %.2fx (%s); %s" % (
        len(ratios_all), median(ratios_all), sum(r <= 1.5 for r in ratios_all),
        worst[0], worst[1], per_size)) if ratios_all else "nothing measured"
    return "\n".join(lines), summary


def main():
    argv = sys.argv[1:]
    opts = {"rounds": 3, "sizes": [1000, 1000000], "only": [],
            "python": os.path.expanduser("~/.cache/tangent-venv/bin/python"),
            "tangent": None, "readme": False}
    it = iter(argv)
    for a in it:
        if a == "--worker":
            sizes = [int(s) for s in next(it).split(",")]
            rest = list(it)
            only = rest[1].split(",") if rest[:1] == ["--only"] else []
            return worker(sizes, only)
        if a == "--rounds":
            opts["rounds"] = int(next(it))
        elif a == "--sizes":
            opts["sizes"] = [int(s) for s in next(it).split(",")]
        elif a == "--only":
            opts["only"] = next(it).split(",")
        elif a == "--python":
            opts["python"] = next(it)
        elif a == "--tangent":
            opts["tangent"] = next(it)
        elif a == "--readme":
            opts["readme"] = True
        else:
            raise SystemExit(__doc__)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    target = os.environ.get("CARGO_TARGET_DIR", os.path.join(root, "target"))
    tangent = opts["tangent"] or os.path.join(target, "release", "tangent")
    embedded = [tangent, "run", "--embedded"]
    cpython = [opts["python"], "-W", "ignore"]
    rounds = []
    for r in range(opts["rounds"]):
        # Alternate which host goes first: the machine's state drifts.
        order = [embedded, cpython] if r % 2 == 0 else [cpython, embedded]
        res = {id(c): run_host(c, opts["sizes"], opts["only"]) for c in order}
        rounds.append((res[id(embedded)], res[id(cpython)]))
        print("round %d/%d done" % (r + 1, opts["rounds"]), file=sys.stderr)
    text, summary = table(rounds, opts["sizes"])
    sys.path.insert(0, os.path.join(root, "benches", "side_by_side"))
    from run import machine  # cores, processor, SIMD level the kernels ran on
    numpy_version = subprocess.run(cpython + ["-c", "import numpy; print(numpy.__version__)"],
                                   capture_output=True, text=True).stdout.strip()
    block = ("Measured %s on %s, one thread, %d rounds alternating the hosts (NumPy %s in "
             "CPython): `python3 benches/numpy_ops.py --rounds %d`. Times are the median over "
             "rounds of the fastest batch; the ratio is embedded / NumPy, the median of the "
             "rounds' ratios.\n\n%s\n\n%s.\n" % (
                 time.strftime("%Y-%m-%d"), machine(), opts["rounds"], numpy_version,
                 opts["rounds"], text, summary))
    print(block)
    if opts["readme"]:
        path = os.path.join(root, "README.md")
        readme = open(path).read()
        start, end = "<!-- numpy-ops:start -->", "<!-- numpy-ops:end -->"
        if start not in readme:
            raise SystemExit("README.md has no %s marker" % start)
        head, rest = readme.split(start, 1)
        _, tail = rest.split(end, 1)
        open(path, "w").write(head + start + "\n" + block + end + tail)


if __name__ == "__main__":
    main()
