"""The design's MLP workload written in torch: tangent's gradient against torch.autograd
(eager), and compile='torch' against torch.compile'd autograd, in float32 and float64.

    tangent run --python PYTHON benches/torch_mlp.py [ROUNDS] [CALLS]

Workload: x 64x128, three 128x128 weights, tanh layers, loss sum(out * out), gradient
with respect to the first weight. Every contestant is built (and compiled) first and its
build + first call timed; then ROUNDS rounds run each contestant for CALLS calls, in a
shuffled order per round, so the machine's load falls on all of them alike. Eval is the
median over rounds of each round's median call; the ratio column is the median of the
per-round ratios to the eager torch.autograd baseline of the same dtype. The gradients
are cross-checked against torch.autograd first.
"""
import random
import sys

import torch

import interleaved
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


def compiled_autograd():
    """torch.compile as a torch user applies it: the model compiled, the gradient from
    torch.autograd over it (AOTAutograd compiles the backward graph too). Compiling a
    function that itself calls torch.autograd.grad recompiles on every call here."""
    compiled = torch.compile(mlp)

    def grad(w1, w2, w3, x):
        w1 = w1.detach().requires_grad_()
        return torch.autograd.grad(compiled(w1, w2, w3, x), w1)[0]
    return grad


CONTESTANTS = [
    ("torch.autograd (eager)", lambda: autograd_grad),
    ("tangent compile='python'", lambda: tangent.grad(mlp, compile="python")),
    ("torch.compile(autograd)", compiled_autograd),
    ("tangent compile='torch'", lambda: tangent.grad(mlp, compile="torch")),
]
BASELINE = {"tangent compile='python'": "torch.autograd (eager)",
            "tangent compile='torch'": "torch.compile(autograd)",
            "torch.compile(autograd)": "torch.autograd (eager)"}


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    calls = int(sys.argv[2]) if len(sys.argv) > 2 else 50
    shuffle = random.Random(0)
    rows = []
    for dtype in (torch.float32, torch.float64):
        gen = torch.Generator().manual_seed(0)
        x = torch.randn(64, 128, generator=gen, dtype=dtype)
        ws = [torch.randn(128, 128, generator=gen, dtype=dtype) * 0.1 for _ in range(3)]
        args = (*ws, x)
        tol = dict(rtol=1e-4, atol=1e-5) if dtype == torch.float32 else dict(rtol=1e-10, atol=1e-12)
        reference = autograd_grad(*args)
        rows += interleaved.compare(
            CONTESTANTS, BASELINE, args,
            lambda got: torch.allclose(got, reference, **tol) and got.dtype == dtype,
            rounds, calls, str(dtype).replace("torch.", ""), shuffle=shuffle)
    print("%d rounds x %d calls, interleaved, torch threads = 1" % (rounds, calls))
    interleaved.print_rows(rows, "build+first call")


if __name__ == "__main__":
    main()
