"""tinygrad through tangent: an MLP written with tinygrad's Tensor methods, trained for a
few steps with the gradient tangent generates from the loss's source; each step's
gradient is checked against tinygrad's own backward().

Run with:  tangent run examples/tinygrad_mlp.py
(the script imports tinygrad, so it runs in CPython; point --python or TANGENT_PYTHON at
a Python that has tinygrad). The gradient is itself a lazy tinygrad graph: tinygrad
fuses and runs it when a value is read. compile='tinygrad' replays it with TinyJit.
"""
import numpy as np
from tinygrad import Device, Tensor

import tangent


def loss(w1, b1, w2, x, labels):
    h = (x @ w1 + b1).gelu()
    h = h.layernorm()
    logits = h.linear(w2)
    return logits.sparse_categorical_crossentropy(labels)


rng = np.random.default_rng(0)
x = Tensor(rng.standard_normal((32, 4)).astype(np.float32))
labels = Tensor(((x.numpy()[:, 0] > 0).astype(np.int32) + (x.numpy()[:, 1] > 0)).astype(np.int32))
params = [Tensor(rng.standard_normal((4, 16)).astype(np.float32) * 0.5),
          Tensor(np.zeros(16, np.float32)),
          Tensor(rng.standard_normal((16, 3)).astype(np.float32) * 0.5)]

dloss = tangent.grad(loss, wrt=(0, 1, 2), compile="tinygrad")
print(dloss.__tangent_source__.splitlines()[0])
print("device:", Device.DEFAULT)

all_match = True
for step in range(10):
    grads = dloss(*params, x, labels)
    leaves = [Tensor(p.numpy()) for p in params]
    loss(*leaves, x, labels).backward()
    all_match = all_match and all(
        g.dtype == p.dtype and np.allclose(g.numpy(), leaf.grad.numpy(), rtol=1e-4, atol=1e-6)
        for g, leaf, p in zip(grads, leaves, params))
    params = [(p - 0.5 * g).realize() for p, g in zip(params, grads)]
    if step % 3 == 0 or step == 9:
        print("step %2d  loss %.4f" % (step, float(loss(*params, x, labels).numpy())))

print("gradients match tinygrad's backward: %s" % all_match)
