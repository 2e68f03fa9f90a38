"""The workloads of benches/workloads.py written in torch (what torch.autograd,
torch.compile and tangent's torch backend read)."""
import torch


def mlp_loss(w1, w2, w3, x):
    h1 = torch.tanh(x @ w1)
    h2 = torch.tanh(h1 @ w2)
    out = torch.tanh(h2 @ w3)
    return torch.sum(out * out)


def recurrence_steps(x, n):
    s = x
    for i in range(n):
        if s > 0.5:
            s = torch.sin(s) * x
        else:
            s = s * s + x
    return s


def tape_loop(x, n):
    h = x
    for i in range(n):
        h = torch.tanh(h * 0.9 + x * 0.1)
    return torch.sum(h * h)

