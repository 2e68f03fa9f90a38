"""Tensor arguments on different devices: a located error naming the argument, in
reverse and forward mode (torch's own error would not name it). The `meta` device stands
in for a GPU on machines without one. Tensors on one device are differentiated as
before (checked against torch.autograd)."""
import torch

import tangent


def f(x, w):
    return torch.sum(torch.tanh(x @ w))


x = torch.randn(2, 3, dtype=torch.float64)
w = torch.randn(3, 2, dtype=torch.float64)
meta = torch.ones(3, 2, dtype=torch.float64, device="meta")
xr = x.clone().requires_grad_(True)
want = torch.autograd.grad(f(xr, w), xr)[0]
print("one device:", bool(torch.allclose(tangent.grad(f)(x, w), want)))
for mode, call in (("reverse", lambda: tangent.grad(f)(x, meta)),
                   ("forward", lambda: tangent.autodiff(f, mode="forward")(x, meta, x))):
    try:
        call()
        print(mode, "accepted")
    except TypeError as e:
        first = str(e).splitlines()[0]
        print(mode, "names the argument:", "argument `w` is on device meta, but `x` is on cpu"
              in first, "located:", "devices.py:" in first)
# A 0-dimensional CPU tensor mixes with any device, as in torch.
g = tangent.grad(lambda a, s: torch.sum(a * s))(meta, torch.tensor(2.0, dtype=torch.float64))
print("0-d cpu tensor accepted:", g.shape == meta.shape and g.device.type == "meta")


# The entry check compiles away in native code: a scalar function of a program that
# imports torch still runs natively (compile='native!'), matching finite differences.
def scalar(a, b):
    s = 0.0
    for i in range(20):
        s = s * 0.5 + a * i * b
    return s


native = tangent.grad(scalar, compile="native!")
fd = (scalar(0.3 + 1e-6, 0.7) - scalar(0.3 - 1e-6, 0.7)) / 2e-6
print("native with torch imported:", type(native).__name__, abs(native(0.3, 0.7) - fd) < 1e-6)
