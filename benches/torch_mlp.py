"""The design's MLP workload written in torch: tangent's gradient against torch.autograd
(eager), and compile='torch' against torch.compile'd autograd, in float32 and float64.

    tangent run --python PYTHON benches/torch_mlp.py [REPEATS]

Workload: x 64x128, three 128x128 weights, tanh layers, loss sum(out * out), gradient
with respect to the first weight. Prints, per dtype and contestant, the time to build
(and compile) plus the first call, and the median eval time over REPEATS calls; the
gradients are cross-checked against torch.autograd first.
"""
import statistics
import sys
import time

import torch

import tangent

torch.set_num_threads(1)


def mlp(w1, w2, w3, x):
    h = torch.tanh(x @ w1)
    h = torch.tanh(h @ w2)
    out = torch.tanh(h @ w3)
    return torch.sum(out * out)


def autograd_grad(w1, w2, w3, x):
    w1 = w1.detach().requires_grad_()
    return torch.autograd.grad(mlp(w1, w2, w3, x), w1)[0]


def timed(fn, args, repeats):
    t0 = time.perf_counter()
    first = fn(*args)
    build = time.perf_counter() - t0
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return first, build, statistics.median(times)


def main():
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    rows = []
    for dtype in (torch.float32, torch.float64):
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(64, 128, generator=gen, dtype=dtype)
        ws = [torch.randn(128, 128, generator=gen, dtype=dtype) * 0.1 for _ in range(3)]
        args = (*ws, x)
        tol = dict(rtol=1e-4, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-12)
        contestants = [
            ("torch.autograd (eager)", lambda: autograd_grad),
            ("tangent compile='python'", lambda: tangent.grad(mlp, compile="python")),
            ("torch.compile(autograd)", lambda: torch.compile(autograd_grad)),
            ("tangent compile='torch'", lambda: tangent.grad(mlp, compile="torch")),
        ]
        reference = autograd_grad(*args)
        for name, make in contestants:
            t0 = time.perf_counter()
            fn = make()
            made = time.perf_counter() - t0
            try:
                got, first, median = timed(fn, args, repeats)
            except Exception as e:  # e.g. inductor cannot compile here
                rows.append((str(dtype), name, "error: %s" % str(e).splitlines()[0][:80], "", ""))
                continue
            ok = torch.allclose(got, reference, **tol) and got.dtype == dtype
            rows.append((str(dtype).replace("torch.", ""), name, "%.3f s" % (made + first),
                         "%.1f us" % (median * 1e6), "ok" if ok else "WRONG"))
    print("%-8s %-26s %-22s %-12s %s" % ("dtype", "contestant", "build+first call",
                                          "eval", "gradient"))
    for row in rows:
        print("%-8s %-26s %-22s %-12s %s" % row)


if __name__ == "__main__":
    main()
