"""The design's MLP workload written with tinygrad's Tensor methods: tangent's gradient
against tinygrad's own backward, eager and under TinyJit, in float32 and float64.

    tangent run --python PYTHON benches/tinygrad_mlp.py [ROUNDS] [CALLS]

Workload: x 64x128, three 128x128 weights, tanh layers, loss sum(out * out), gradient
with respect to the first weight. Every contestant is built first and its build + first
call timed (for the JIT'd ones: until the capture has run and the third call returned);
then ROUNDS rounds run each contestant for CALLS calls, in a shuffled order per round, so
the machine's load falls on all of them alike. A call returns the realised gradient.
Eval is the median over rounds of each round's median call; the ratio column is the
median of the per-round ratios to tinygrad's own contestant of the same kind. The
gradients are cross-checked against tinygrad's backward first. Prints tinygrad's device.
"""
import random
import statistics
import sys
import time

import numpy as np
from tinygrad import Device, Tensor, TinyJit, dtypes

import tangent


def mlp(w1, w2, w3, x):
    h = (x @ w1).tanh()
    h = (h @ w2).tanh()
    out = (h @ w3).tanh()
    return (out * out).sum()


def backward(w1, w2, w3, x):
    """tinygrad's own gradient with respect to w1, as a tinygrad user asks for it."""
    (g,) = mlp(w1, w2, w3, x).gradient(w1)
    return g.realize()


def jit_backward():
    """tinygrad's gradient under TinyJit (realised inside the jit)."""
    return TinyJit(backward)


def realised(fn):
    def call(*args):
        return fn(*args).realize()
    return call


CONTESTANTS = [
    ("tinygrad gradient (eager)", lambda: backward),
    ("tangent compile='python'", lambda: realised(tangent.grad(mlp, compile="python"))),
    ("tinygrad TinyJit(gradient)", jit_backward),
    ("tangent compile='tinygrad'", lambda: tangent.grad(mlp, compile="tinygrad")),
]
BASELINE = {"tangent compile='python'": "tinygrad gradient (eager)",
            "tangent compile='tinygrad'": "tinygrad TinyJit(gradient)",
            "tinygrad TinyJit(gradient)": "tinygrad gradient (eager)"}


def round_median(fn, args, calls):
    times = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    shuffle = random.Random(0)
    rows = []
    for dtype, np_dtype in ((dtypes.float32, np.float32), (dtypes.float64, np.float64)):
        rng = np.random.default_rng(0)
        x = Tensor(rng.standard_normal((64, 128)).astype(np_dtype)).realize()
        ws = [Tensor((rng.standard_normal((128, 128)) * 0.1).astype(np_dtype)).realize()
              for _ in range(3)]
        args = (*ws, x)
        tol = dict(rtol=1e-4, atol=1e-5) if dtype == dtypes.float32 else dict(rtol=1e-10, atol=1e-12)
        reference = backward(*args).numpy()
        built, results = {}, {}
        for name, make in CONTESTANTS:
            t0 = time.perf_counter()
            try:
                fn = make()
                for _ in range(3):  # TinyJit: a plain run, the capture, the first replay
                    got = fn(*args)
            except Exception as e:
                results[name] = "error: %s" % str(e).splitlines()[0][:80]
                continue
            first = time.perf_counter() - t0
            ok = np.allclose(got.numpy(), reference, **tol) and got.dtype == dtype
            built[name] = fn
            results[name] = (first, ok, [])
        for _ in range(rounds):
            order = list(built)
            shuffle.shuffle(order)
            for name in order:
                results[name][2].append(round_median(built[name], args, calls))
        for name, _ in CONTESTANTS:
            result = results[name]
            if isinstance(result, str):
                rows.append((dtype.name, name, result, "", "", ""))
                continue
            first, ok, medians = result
            ratio = ""
            base = BASELINE.get(name)
            if base in built:
                ratio = "%.2fx %s" % (statistics.median(
                    m / b for m, b in zip(medians, results[base][2])), base.split(" (")[0])
            rows.append((dtype.name, name, "%.3f s" % first,
                         "%.1f us" % (statistics.median(medians) * 1e6), ratio,
                         "ok" if ok else "WRONG"))
    print("%d rounds x %d calls, interleaved, tinygrad device %s" % (rounds, calls,
                                                                    Device.DEFAULT))
    print("%-8s %-28s %-17s %-11s %-34s %s" % ("dtype", "contestant", "3 calls (build)",
                                              "eval", "ratio (per-round median)", "gradient"))
    for row in rows:
        print("%-8s %-28s %-17s %-11s %-34s %s" % row)


if __name__ == "__main__":
    main()
