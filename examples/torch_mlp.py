"""PyTorch through tangent: an MLP trained for a few steps with the gradient tangent
generates from the loss's source, each step's gradient checked against torch.autograd.

Run with:  tangent run examples/torch_mlp.py
(the script imports torch, so it runs in CPython; point --python or TANGENT_PYTHON at a
Python that has torch). The gradients are torch tensors of the parameters' dtype and
device; the same code runs on CUDA tensors where a GPU exists.
"""
import torch
import torch.nn.functional as F

import tangent


def loss(w1, b1, w2, b2, x, labels):
    h = F.gelu(x @ w1 + b1)
    h = F.layer_norm(h, (h.shape[-1],))
    logits = F.linear(h, w2, b2)
    return F.cross_entropy(logits, labels)


torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(32, 4, device=device)
labels = (x[:, 0] > 0).long() + (x[:, 1] > 0).long()  # three classes
params = [torch.randn(4, 16, device=device) * 0.5, torch.zeros(16, device=device),
          torch.randn(3, 16, device=device) * 0.5, torch.zeros(3, device=device)]

dloss = tangent.grad(loss, wrt=(0, 1, 2, 3))
print(dloss.__tangent_source__.splitlines()[0])

all_match = True
for step in range(20):
    grads = dloss(*params, x, labels)
    leaves = [p.clone().requires_grad_() for p in params]
    reference = torch.autograd.grad(loss(*leaves, x, labels), leaves)
    all_match = all_match and all(
        g.dtype == p.dtype and g.device == p.device
        and torch.allclose(g, r, rtol=1e-4, atol=1e-6)
        for g, r, p in zip(grads, reference, params))
    params = [p - 0.5 * g for p, g in zip(params, grads)]
    if step % 5 == 0 or step == 19:
        print("step %2d  loss %.4f" % (step, float(loss(*params, x, labels))))

print("gradients match torch.autograd: %s" % all_match)
