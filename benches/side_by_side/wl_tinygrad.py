"""The workloads of benches/workloads.py written with tinygrad's Tensor methods (what
tinygrad's own gradient and tangent's tinygrad backend read). A branch on a tinygrad
value reads it with `.item()` (a Tensor has no truth value)."""


def mlp_loss(w1, w2, w3, x):
    h1 = (x @ w1).tanh()
    h2 = (h1 @ w2).tanh()
    out = (h2 @ w3).tanh()
    return (out * out).sum()


def recurrence_steps(x, n):
    s = x
    for i in range(n):
        if s.item() > 0.5:
            s = s.sin() * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    h = x
    for i in range(n):
        h = (h * 0.9 + x * 0.1).tanh()
    return (h * h).sum()

