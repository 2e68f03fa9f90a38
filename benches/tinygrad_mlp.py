"""The design's MLP workload written with tinygrad's Tensor methods: tangent's gradient
against tinygrad's own backward, eager and under TinyJit, in float32 and float64.

    tangent run --python PYTHON benches/tinygrad_mlp.py [ROUNDS] [CALLS]

Workload: x 64x128, three 128x128 weights, tanh layers, loss sum(out * out), gradient
with respect to the first weight. Every contestant is built first and its build + first
calls timed (three: TinyJit runs plainly, captures, then replays); then ROUNDS rounds
run each contestant for CALLS calls, interleaved (benches/interleaved.py). A call returns
the realised gradient. The ratio column is the median of the per-round ratios to
tinygrad's own contestant of the same kind. The gradients are cross-checked against
tinygrad's own gradient. Prints tinygrad's device.
"""
import random
import sys

import numpy as np
from tinygrad import Device, Tensor, TinyJit, dtypes

import interleaved
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
        # three first calls: TinyJit runs plainly, then captures, then replays
        rows += interleaved.compare(
            CONTESTANTS, BASELINE, args,
            lambda got: np.allclose(got.numpy(), reference, **tol) and got.dtype == dtype,
            rounds, calls, dtype.name, first_calls=3, shuffle=shuffle)
    print("%d rounds x %d calls, interleaved, tinygrad device %s" % (rounds, calls,
                                                                    Device.DEFAULT))
    interleaved.print_rows(rows, "3 first calls")


if __name__ == "__main__":
    main()
