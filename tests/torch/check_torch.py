"""The PyTorch op catalog: every torch derivative rule, checked against torch's own
autodiff and against central finite differences.

Each entry names a rule (its canonical name: `torch.tanh`, `torch.nn.functional.relu`,
`numpy.ndarray.exp` for a Tensor method), a Python expression using it, and the input
sets to try. For every entry and input set a wrapper function is written into a module
file (tangent reads source from files), then:
- float64, reverse: tangent.grad with a random seed (cotangent) against
  torch.autograd.grad (tight tolerance) and against the central finite difference of
  <seed, f(x + h v)> along a random direction v; every gradient a tensor of its input's
  dtype and device; with respect to one of several arguments exactly that gradient;
- float64, forward: tangent.autodiff(mode='forward') with random tangents against
  torch.func.jvp and against the central finite difference of f along the tangents;
- float32: both again with float32 inputs (looser tolerance), the derivatives float32;
- second order, forward-over-reverse: tangent.vjp(tangent.grad(s)) of
  s(a, ...) = sum(SEED * f(a, ...)) along a random direction of the first argument,
  against torch's double backward (autograd.grad of the gradient) and the second
  difference of s.
Then compile='torch', requires_grad=True inputs, and the errors of bad input.

The script also fails when a torch rule of backends/torch.py, a `torch=` name of
backends/elementwise.py, or a Tensor method rule of backends/torch.py has no entry.

Run: tangent run --python PYTHON tests/torch/check_torch.py [OUTDIR]. Exits non-zero on
failure.
"""
import ast
import os
import re
import sys
import tempfile
import time

import torch

import tangent

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = os.path.join(HERE, "..", "..", "backends")

# Input specs: (shape, domain). Domains: "any", "pos" (> 0.3), "unit" (inside
# (-0.85, 0.85)), "gt1" (> 1.3), "spd" (a well-conditioned square matrix).
S = [(), (3,), (2, 3)]
B2 = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ())]


def unary(rule, expr, domain="any", shapes=S):
    return (rule, expr, [[(s, domain)] for s in shapes])


def binary(rule, expr, dx="any", dy="any", shapes=B2):
    return (rule, expr, [[(a, dx), (b, dy)] for a, b in shapes])


DIMS = [("None", "False"), ("0", "False"), ("1", "True"), ("-1", "False"), ("(0, 1)", "True")]


def reductions(rule, fn, domain="any"):
    return [(rule, "%s(a, dim=%s, keepdim=%s)" % (fn, dim, keep), [[((2, 3), domain)]])
            for dim, keep in DIMS if not (dim == "None" and keep == "True")]


ELEMENTWISE = [
    ("torch.sin", "any"), ("torch.cos", "any"), ("torch.tan", "unit"),
    ("torch.arcsin", "unit"), ("torch.asin", "unit"), ("torch.arccos", "unit"),
    ("torch.acos", "unit"), ("torch.arctan", "any"), ("torch.atan", "any"),
    ("torch.sinh", "any"), ("torch.cosh", "any"), ("torch.tanh", "any"),
    ("torch.arcsinh", "any"), ("torch.asinh", "any"), ("torch.arccosh", "gt1"),
    ("torch.acosh", "gt1"), ("torch.arctanh", "unit"), ("torch.atanh", "unit"),
    ("torch.exp", "any"), ("torch.exp2", "any"), ("torch.expm1", "any"),
    ("torch.log", "pos"), ("torch.log1p", "pos"), ("torch.log2", "pos"),
    ("torch.log10", "pos"), ("torch.sqrt", "pos"), ("torch.rsqrt", "pos"),
    ("torch.square", "any"), ("torch.reciprocal", "pos"), ("torch.negative", "any"),
    ("torch.neg", "any"), ("torch.abs", "any"), ("torch.absolute", "any"),
    ("torch.erf", "any"), ("torch.erfc", "any"), ("torch.sigmoid", "any"),
]

CATALOG = [
    unary(rule, "torch.%s(a)" % rule.rsplit(".", 1)[1], domain) for rule, domain in ELEMENTWISE
] + [
    # accumulation through tangent.add_grad under broadcasting
    binary("tangent.add_grad", "a * b + a", shapes=[((3,), (2, 3)), ((2, 1), (1, 3))]),
    # operators on tensors (arithmetic.py's rules, dispatched to torch)
    binary("torch:operator.mul", "a * b"),
    binary("torch:operator.add", "a + b"),
    binary("torch:operator.sub", "a - b"),
    binary("torch:operator.truediv", "a / b", dy="pos"),
    binary("torch:operator.pow", "a ** b", dx="pos"),
    unary("torch:operator.neg", "-a"),
    ("torch:operator.matmul", "a @ b", [[((2, 3), "any"), ((3, 4), "any")],
                                        [((3,), "any"), ((3,), "any")],
                                        [((3,), "any"), ((3, 2), "any")],
                                        [((2, 2, 3), "any"), ((3, 2), "any")]]),
    ("torch:subscript", "a[0] * a[1:].sum() + a[:, 1].sum()", [[((3, 2), "any")]]),
    ("torch:subscript", "a[torch.tensor([0, 2, 0])]", [[((3, 2), "any")]]),
    # arithmetic functions
    binary("torch.add", "torch.add(a, b)"),
    binary("torch.add", "torch.add(a, b, alpha=2.5)", shapes=[((2, 3), (3,))]),
    binary("torch.sub", "torch.sub(a, b)"),
    binary("torch.subtract", "torch.subtract(a, b, alpha=0.5)", shapes=[((2, 3), (3,))]),
    binary("torch.mul", "torch.mul(a, b)"),
    binary("torch.multiply", "torch.multiply(a, b)", shapes=[((2, 3), (3,))]),
    binary("torch.div", "torch.div(a, b)", dy="pos"),
    binary("torch.divide", "torch.divide(a, b)", dy="pos", shapes=[((2, 3), (3,))]),
    binary("torch.true_divide", "torch.true_divide(a, b)", dy="pos", shapes=[((2, 3), (3,))]),
    binary("torch.pow", "torch.pow(a, b)", dx="pos"),
    unary("torch.pow", "torch.pow(a, 3)", shapes=[(2, 3)]),
    binary("torch.maximum", "torch.maximum(a, b)"),
    binary("torch.minimum", "torch.minimum(a, b)"),
    binary("torch.atan2", "torch.atan2(a, b)"),
    binary("torch.arctan2", "torch.arctan2(a, b)", shapes=[((2, 3), (3,))]),
    binary("torch.hypot", "torch.hypot(a, b)"),
    binary("torch.logaddexp", "torch.logaddexp(a, b)"),
    ("torch.where", "torch.where(a > 0.0, a, b)", [[((2, 3), "any"), ((2, 3), "any")],
                                                  [((2, 3), "any"), ((3,), "any")]]),
    ("torch.clamp", "torch.clamp(a, -0.5, 0.5)", [[((2, 3), "any")]]),
    ("torch.clamp", "torch.clamp(a, min=0.1)", [[((2, 3), "any")]]),
    ("torch.clamp", "torch.clamp(a, b, torch.ones(3, dtype=a.dtype) * 0.7)",
     [[((2, 3), "any"), ((3,), "any")]]),
    ("torch.clamp", "torch.clamp(a, max=b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("torch.clip", "torch.clip(a, -0.3, 0.4)", [[((2, 3), "any")]]),
] + reductions("torch.sum", "torch.sum") + reductions("torch.mean", "torch.mean") \
  + reductions("torch.amax", "torch.amax") + reductions("torch.amin", "torch.amin") + [
    ("torch.sum", "torch.sum(a)", [[((2, 3), "any")], [((3,), "any")]]),
    ("torch.mean", "torch.mean(a)", [[((2, 3), "any")]]),
    ("torch.prod", "torch.prod(a)", [[((2, 3), "any")]]),
    ("torch.prod", "torch.prod(a, 1, keepdim=True)", [[((2, 3), "any")]]),
    ("torch.prod", "torch.prod(a, dim=0)", [[((2, 3), "any")]]),
    ("torch.var", "torch.var(a)", [[((2, 3), "any")]]),
    ("torch.var", "torch.var(a, dim=1, correction=0)", [[((2, 3), "any")]]),
    ("torch.std", "torch.std(a, dim=0, keepdim=True)", [[((3, 2), "any")]]),
    ("torch.std", "torch.std(a)", [[((4,), "any")]]),
    ("torch.logsumexp", "torch.logsumexp(a, 1)", [[((2, 3), "any")]]),
    ("torch.logsumexp", "torch.logsumexp(a, dim=(0, 1), keepdim=True)", [[((2, 3), "any")]]),
    ("torch.special.logsumexp", "torch.special.logsumexp(a, 0)", [[((2, 3), "any")]]),
    ("torch.cumsum", "torch.cumsum(a, 1)", [[((2, 3), "any")]]),
    ("torch.cumsum", "torch.cumsum(a, dim=0)", [[((2, 3), "any")], [((4,), "any")]]),
    # products
    ("torch.matmul", "torch.matmul(a, b)", [[((2, 3), "any"), ((3, 4), "any")],
                                            [((3,), "any"), ((3, 2), "any")],
                                            [((2, 3), "any"), ((3,), "any")],
                                            [((2, 2, 3), "any"), ((3, 2), "any")]]),
    ("torch.mm", "torch.mm(a, b)", [[((2, 3), "any"), ((3, 4), "any")]]),
    ("torch.bmm", "torch.bmm(a, b)", [[((2, 2, 3), "any"), ((2, 3, 4), "any")]]),
    ("torch.mv", "torch.mv(a, b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("torch.dot", "torch.dot(a, b)", [[((3,), "any"), ((3,), "any")]]),
    ("torch.inner", "torch.inner(a, b)", [[((3,), "any"), ((3,), "any")]]),
    ("torch.outer", "torch.outer(a, b)", [[((3,), "any"), ((2,), "any")]]),
    ("torch.ger", "torch.ger(a, b)", [[((3,), "any"), ((2,), "any")]]),
    ("torch.einsum", "torch.einsum('ij,jk->ik', a, b)", [[((2, 3), "any"), ((3, 4), "any")]]),
    ("torch.einsum", "torch.einsum('bij,bjk->bik', a, b)",
     [[((2, 2, 3), "any"), ((2, 3, 2), "any")]]),
    ("torch.einsum", "torch.einsum('ii->i', a)", [[((3, 3), "any")]]),
    ("torch.trace", "torch.trace(a)", [[((3, 3), "any")], [((2, 3), "any")]]),
    # shape ops
    ("torch.reshape", "torch.reshape(a, (3, 2))", [[((2, 3), "any")]]),
    ("torch.reshape", "torch.reshape(a, (-1,))", [[((2, 3), "any")]]),
    ("torch.flatten", "torch.flatten(a)", [[((2, 3, 2), "any")]]),
    ("torch.flatten", "torch.flatten(a, 1)", [[((2, 3, 2), "any")]]),
    ("torch.squeeze", "torch.squeeze(a)", [[((2, 1, 3), "any")]]),
    ("torch.squeeze", "torch.squeeze(a, 1)", [[((2, 1, 3), "any")]]),
    ("torch.unsqueeze", "torch.unsqueeze(a, 1)", [[((2, 3), "any")]]),
    ("torch.transpose", "torch.transpose(a, 0, 2)", [[((2, 3, 4), "any")]]),
    ("torch.swapaxes", "torch.swapaxes(a, 0, 1)", [[((2, 3), "any")]]),
    ("torch.t", "torch.t(a) * b", [[((2, 3), "any"), ((3, 2), "any")]]),
    ("torch.permute", "torch.permute(a, (1, 2, 0))", [[((2, 3, 4), "any")]]),
    ("torch.movedim", "torch.movedim(a, 0, -1)", [[((2, 3, 4), "any")]]),
    ("torch.moveaxis", "torch.moveaxis(a, 1, 0)", [[((2, 3), "any")]]),
    ("torch.flip", "torch.flip(a, (1,))", [[((2, 3), "any")]]),
    ("torch.flip", "torch.flip(a, [0, 1])", [[((2, 3), "any")]]),
    ("torch.roll", "torch.roll(a, 2, 1)", [[((2, 3), "any")]]),
    ("torch.roll", "torch.roll(a, 1)", [[((2, 3), "any")]]),
    ("torch.broadcast_to", "torch.broadcast_to(a, (2, 3))", [[((3,), "any")], [((2, 1), "any")]]),
    ("torch.cat", "torch.cat([a, b])", [[((2,), "any"), ((3,), "any")]]),
    ("torch.cat", "torch.cat([a, b, a], dim=1)", [[((2, 3), "any"), ((2, 2), "any")]]),
    ("torch.concat", "torch.concat((a, b), 0)", [[((2, 3), "any"), ((1, 3), "any")]]),
    ("torch.concatenate", "torch.concatenate([a, b], dim=-1)",
     [[((2, 3), "any"), ((2, 1), "any")]]),
    ("torch.stack", "torch.stack([a, b])", [[((3,), "any"), ((3,), "any")]]),
    ("torch.stack", "torch.stack([a, b], dim=1)", [[((2, 3), "any"), ((2, 3), "any")]]),
    # torch.nn.functional and the activations of torch
    unary("torch.relu", "torch.relu(a)"),
    unary("torch.nn.functional.relu", "F.relu(a)"),
    unary("torch.nn.functional.relu6", "F.relu6(a * 4.0 + 3.0)"),
    unary("torch.nn.functional.hardtanh", "F.hardtanh(a * 2.0)"),
    unary("torch.nn.functional.hardtanh", "F.hardtanh(a, -0.5, 0.8)", shapes=[(2, 3)]),
    unary("torch.nn.functional.leaky_relu", "F.leaky_relu(a)"),
    unary("torch.nn.functional.leaky_relu", "F.leaky_relu(a, negative_slope=0.2)", shapes=[(2, 3)]),
    unary("torch.nn.functional.elu", "F.elu(a)"),
    unary("torch.nn.functional.elu", "F.elu(a, 0.5)", shapes=[(2, 3)]),
    unary("torch.nn.functional.celu", "F.celu(a, alpha=2.0)"),
    unary("torch.nn.functional.selu", "F.selu(a)"),
    unary("torch.nn.functional.gelu", "F.gelu(a)"),
    unary("torch.nn.functional.gelu", "F.gelu(a, approximate='tanh')"),
    unary("torch.nn.functional.silu", "F.silu(a)"),
    unary("torch.nn.functional.softplus", "F.softplus(a)"),
    unary("torch.nn.functional.softplus", "F.softplus(a * 10.0, beta=2.0, threshold=15.0)",
          shapes=[(2, 3)]),
    unary("torch.nn.functional.logsigmoid", "F.logsigmoid(a)"),
    unary("torch.nn.functional.softsign", "F.softsign(a)"),
    unary("torch.nn.functional.sigmoid", "F.sigmoid(a)"),
    unary("torch.special.expit", "torch.special.expit(a)"),
    unary("torch.nn.functional.tanh", "F.tanh(a)"),
    unary("torch.special.erf", "torch.special.erf(a)"),
    ("torch.softmax", "torch.softmax(a, 0)", [[((3,), "any")], [((2, 3), "any")]]),
    ("torch.nn.functional.softmax", "F.softmax(a, dim=-1)", [[((2, 3), "any")]]),
    ("torch.special.softmax", "torch.special.softmax(a, 1)", [[((2, 3), "any")]]),
    ("torch.log_softmax", "torch.log_softmax(a, 1)", [[((2, 3), "any")]]),
    ("torch.nn.functional.log_softmax", "F.log_softmax(a, dim=0)",
     [[((3,), "any")], [((2, 3), "any")]]),
    ("torch.special.log_softmax", "torch.special.log_softmax(a, -1)", [[((2, 3), "any")]]),
    ("torch.nn.functional.dropout", "F.dropout(a, 0.3, training=False) * b",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("torch.nn.functional.dropout", "F.dropout(a, p=0.5, training=False)", [[((3,), "any")]]),
    ("torch.nn.functional.linear", "F.linear(a, b)", [[((2, 3), "any"), ((4, 3), "any")],
                                                      [((3,), "any"), ((2, 3), "any")]]),
    ("torch.nn.functional.linear", "F.linear(a, b, c)",
     [[((2, 3), "any"), ((4, 3), "any"), ((4,), "any")]]),
    ("torch.nn.functional.embedding", "F.embedding(torch.tensor([[0, 2], [1, 1]]), a)",
     [[((3, 4), "any")]]),
    ("torch.nn.functional.mse_loss", "F.mse_loss(a, b)", [[((2, 3), "any"), ((2, 3), "any")]]),
    ("torch.nn.functional.mse_loss", "F.mse_loss(a, b, reduction='sum')",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("torch.nn.functional.mse_loss", "F.mse_loss(a, b, reduction='none')",
     [[((3,), "any"), ((3,), "any")]]),
    ("torch.nn.functional.l1_loss", "F.l1_loss(a, b)", [[((2, 3), "any"), ((2, 3), "any")]]),
    ("torch.nn.functional.l1_loss", "F.l1_loss(a, b, reduction='sum')",
     [[((3,), "any"), ((3,), "any")]]),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(a, LABELS)", [[((3, 4), "any")]]),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(a, LABELS, reduction='sum')",
     [[((3, 4), "any")]]),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(a, LABELS, reduction='none')",
     [[((3, 4), "any")]]),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(a, torch.softmax(b, 1))",
     [[((3, 4), "any"), ((3, 4), "any")]]),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(a, LABELS[0])", [[((4,), "any")]]),
    ("torch.nn.functional.cross_entropy", "F.cross_entropy(a, LABELS_2D)",
     [[((2, 4, 3), "any")]]),
    ("torch.nn.functional.nll_loss", "F.nll_loss(torch.log_softmax(a, 1), LABELS)",
     [[((3, 4), "any")]]),
    ("torch.nn.functional.nll_loss", "F.nll_loss(a, LABELS, reduction='sum')",
     [[((3, 4), "any")]]),
    ("torch.nn.functional.binary_cross_entropy_with_logits",
     "F.binary_cross_entropy_with_logits(a, torch.sigmoid(b))",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("torch.nn.functional.binary_cross_entropy_with_logits",
     "F.binary_cross_entropy_with_logits(a, TARGETS01.to(a.dtype), reduction='sum')", [[((2, 3), "any")]]),
    ("torch.nn.functional.layer_norm", "F.layer_norm(a, (3,))", [[((2, 3), "any")]]),
    ("torch.nn.functional.layer_norm", "F.layer_norm(a, (2, 3), eps=1e-3)",
     [[((2, 2, 3), "any")]]),
    ("torch.nn.functional.layer_norm", "F.layer_norm(a, [3], b, c)",
     [[((2, 3), "any"), ((3,), "any"), ((3,), "any")]]),
    ("torch.nn.functional.conv2d", "F.conv2d(a, b)",
     [[((1, 2, 5, 5), "any"), ((3, 2, 3, 3), "any")]]),
    ("torch.nn.functional.conv2d", "F.conv2d(a, b, c, stride=2, padding=1)",
     [[((2, 2, 5, 4), "any"), ((3, 2, 3, 2), "any"), ((3,), "any")]]),
    ("torch.nn.functional.conv2d", "F.conv2d(a, b, None, 1, 1, 2, 2)",
     [[((1, 4, 5, 5), "any"), ((2, 2, 2, 2), "any")]]),
    ("torch.nn.functional.max_pool2d", "F.max_pool2d(a, 2)", [[((1, 2, 4, 4), "any")]]),
    ("torch.nn.functional.max_pool2d", "F.max_pool2d(a, 3, stride=1, padding=1)",
     [[((2, 1, 4, 5), "any")]]),
    ("torch.nn.functional.avg_pool2d", "F.avg_pool2d(a, 2)", [[((1, 2, 4, 4), "any")]]),
    ("torch.nn.functional.avg_pool2d", "F.avg_pool2d(a, (2, 3), stride=1, padding=1)",
     [[((2, 1, 4, 5), "any")]]),
    ("torch.nn.functional.avg_pool2d",
     "F.avg_pool2d(a, 3, 2, 1, ceil_mode=True, count_include_pad=False)",
     [[((1, 1, 5, 6), "any")]]),
    # torch.linalg
    unary("torch.linalg.inv", "torch.linalg.inv(a + 3.0 * torch.eye(3, dtype=a.dtype))",
          shapes=[(3, 3), (2, 3, 3)]),
    unary("torch.inverse", "torch.inverse(a + 3.0 * torch.eye(2, dtype=a.dtype))",
          shapes=[(2, 2)]),
    unary("torch.linalg.det", "torch.linalg.det(a)", shapes=[(2, 2), (3, 3), (2, 3, 3)]),
    unary("torch.det", "torch.det(a)", shapes=[(3, 3)]),
    binary("torch.linalg.solve", "torch.linalg.solve(a + 3.0 * torch.eye(3, dtype=a.dtype), b)",
           shapes=[((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)),
                   ((2, 3, 3), (2, 3))]),
    unary("torch.linalg.norm", "torch.linalg.norm(a)", shapes=[(3,), (2, 3), (2, 3, 2)]),
    unary("torch.linalg.norm", "torch.linalg.norm(a, dim=0)", shapes=[(2, 3)]),
    unary("torch.linalg.norm", "torch.linalg.norm(a, dim=-1, keepdim=True)", shapes=[(2, 3)]),
    unary("torch.linalg.norm", "torch.linalg.norm(a, 'fro')", shapes=[(2, 3)]),
    unary("torch.linalg.norm", "torch.linalg.norm(a, 1)", shapes=[(3,)]),
    unary("torch.linalg.norm", "torch.linalg.norm(a, 3, dim=1)", shapes=[(2, 3)]),
    unary("torch.linalg.norm", "torch.linalg.norm(a, float('inf'))", shapes=[(3,)]),
    unary("torch.linalg.vector_norm", "torch.linalg.vector_norm(a)", shapes=[(3,), (2, 3)]),
    unary("torch.linalg.vector_norm", "torch.linalg.vector_norm(a, 3, dim=(0, 1))",
          shapes=[(2, 3)]),
    unary("torch.linalg.vector_norm", "torch.linalg.vector_norm(a, 1, dim=1, keepdim=True)",
          shapes=[(2, 3)]),
    unary("torch.linalg.vector_norm", "torch.linalg.vector_norm(a, float('-inf'))",
          shapes=[(3,)]),
    # Tensor methods (numpy.py's method rules and the torch methods of torch.py)
    ("numpy.ndarray.sum", "a.sum()", [[((2, 3), "any")]]),
    ("numpy.ndarray.sum", "a.sum(dim=1, keepdim=True)", [[((2, 3), "any")]]),
    ("numpy.ndarray.sum", "a.sum(0)", [[((2, 3), "any")]]),
    ("numpy.ndarray.sum", "a.sum(dim=(0, 1))", [[((2, 3), "any")]]),
    ("numpy.ndarray.sum", "a.sum(1, keepdim=True)", [[((2, 3), "any")]]),
    ("numpy.ndarray.mean", "a.mean()", [[((2, 3), "any")]]),
    ("numpy.ndarray.mean", "a.mean(dim=0, keepdim=True)", [[((2, 3), "any")]]),
    ("numpy.ndarray.mean", "a.mean(-1)", [[((2, 3), "any")]]),
    ("numpy.ndarray.var", "a.var()", [[((2, 3), "any")]]),
    ("numpy.ndarray.var", "a.var(dim=1, correction=0)", [[((2, 3), "any")]]),
    ("numpy.ndarray.var", "a.var(0, keepdim=True)", [[((2, 3), "any")]]),
    ("numpy.ndarray.std", "a.std()", [[((2, 3), "any")]]),
    ("numpy.ndarray.std", "a.std(dim=0, keepdim=True)", [[((3, 2), "any")]]),
    ("numpy.ndarray.T", "a.T * b", [[((2, 3), "any"), ((3, 2), "any")]]),
    ("numpy.ndarray.t", "a.t() @ b", [[((2, 3), "any"), ((2, 2), "any")]]),
    ("numpy.ndarray.reshape", "a.reshape(3, 2)", [[((2, 3), "any")]]),
    ("numpy.ndarray.reshape", "a.reshape((6,))", [[((2, 3), "any")]]),
    ("numpy.ndarray.view", "a.view(3, 2)", [[((2, 3), "any")]]),
    ("numpy.ndarray.view", "a.view(-1)", [[((2, 3), "any")]]),
    ("numpy.ndarray.flatten", "a.flatten()", [[((2, 3), "any")]]),
    ("numpy.ndarray.squeeze", "a.squeeze()", [[((2, 1), "any")]]),
    ("numpy.ndarray.squeeze", "a.squeeze(dim=1)", [[((2, 1, 3), "any")]]),
    ("numpy.ndarray.unsqueeze", "a.unsqueeze(0) * b", [[((3,), "any"), ((2, 3), "any")]]),
    ("numpy.ndarray.permute", "a.permute(1, 0, 2)", [[((2, 3, 4), "any")]]),
    ("numpy.ndarray.permute", "a.permute((2, 0, 1))", [[((2, 3, 4), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose(0, 1)", [[((2, 3), "any")]]),
    ("numpy.ndarray.expand", "a.expand(2, 3)", [[((3,), "any")], [((2, 1), "any")]]),
    # torch's x.repeat tiles (NumPy's repeats elements): the rule follows the tensor
    ("numpy.ndarray.repeat", "a.repeat(2) * torch.arange(6, dtype=a.dtype)", [[((3,), "any")]]),
    ("numpy.ndarray.repeat", "a.repeat(2, 1, 2)", [[((2, 3), "any")]]),
    ("numpy.ndarray.exp", "a.exp()", [[((2, 3), "any")]]),
    ("numpy.ndarray.log", "a.log()", [[((2, 3), "pos")]]),
    ("numpy.ndarray.tanh", "a.tanh()", [[((2, 3), "any")]]),
    ("numpy.ndarray.sigmoid", "a.sigmoid()", [[((2, 3), "any")]]),
    ("numpy.ndarray.relu", "a.relu()", [[((2, 3), "any")]]),
    ("numpy.ndarray.sqrt", "a.sqrt()", [[((2, 3), "pos")]]),
    ("numpy.ndarray.sin", "a.sin()", [[((2, 3), "any")]]),
    ("numpy.ndarray.cos", "a.cos()", [[((2, 3), "any")]]),
    ("numpy.ndarray.abs", "a.abs()", [[((2, 3), "any")]]),
    ("numpy.ndarray.pow", "a.pow(2)", [[((2, 3), "any")]]),
    ("numpy.ndarray.pow", "a.pow(b)", [[((2, 3), "pos"), ((3,), "any")]]),
    ("numpy.ndarray.clamp", "a.clamp(-0.5, 0.5)", [[((2, 3), "any")]]),
    ("numpy.ndarray.clamp", "a.clamp(min=b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("numpy.ndarray.matmul", "a.matmul(b)", [[((2, 3), "any"), ((3, 2), "any")]]),
    ("numpy.ndarray.mm", "a.mm(b)", [[((2, 3), "any"), ((3, 2), "any")]]),
    ("numpy.ndarray.flatten", "a.flatten(start_dim=1)", [[((2, 3, 2), "any")]]),
    ("numpy.ndarray.softmax", "a.softmax(dim=1)", [[((2, 3), "any")]]),
    ("numpy.ndarray.softmax", "a.softmax(0)", [[((3,), "any")]]),
    ("numpy.ndarray.log_softmax", "a.log_softmax(-1)", [[((2, 3), "any")]]),
    ("numpy.ndarray.square", "a.square()", [[((2, 3), "any")]]),
    ("numpy.ndarray.neg", "a.neg()", [[((2, 3), "any")]]),
    ("numpy.ndarray.add", "a.add(b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("numpy.ndarray.add", "a.add(b, alpha=2.0)", [[((2, 3), "any"), ((2, 3), "any")]]),
    ("numpy.ndarray.sub", "a.sub(b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("numpy.ndarray.mul", "a.mul(b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("numpy.ndarray.div", "a.div(b)", [[((2, 3), "any"), ((3,), "pos")]]),
    ("numpy.ndarray.double", "a.double() * 2.0", [[((2, 3), "any")]]),
]

HEADER = """import torch
import torch.nn.functional as F
import torch.special
import torch.linalg

LABELS = torch.tensor([0, 3, 1])
LABELS_2D = torch.tensor([[0, 3, 1], [2, 2, 0]])
TARGETS01 = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])
"""

# Entries whose second derivative torch itself computes differently, with the reason.
SECOND_ORDER_SKIP = {}


# ----------------------------------------------------------------- rule coverage

def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else base + "." + node.attr
    return None


def torch_rules():
    """(reverse names, forward names) of every torch rule: the templates of
    backends/torch.py (torch functions and Tensor methods; the rules of tangent's own
    helpers are exercised by the second-order checks) and the `torch=` names of
    backends/elementwise.py."""
    reverse, forward = set(), set()
    with open(os.path.join(BACKENDS, "torch.py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        for dec in node.decorator_list:
            kind = _dotted(dec.func)
            name = _dotted(dec.args[0])
            if name.startswith("tangent.") or kind == "control_flow":
                continue  # module templates: checked by Checker.modules
            (reverse if kind == "adjoint" else forward).add(name)
    with open(os.path.join(BACKENDS, "elementwise.py")) as f:
        for value in re.findall(r'\btorch_*="(\w+)"', f.read()):
            reverse.add("torch." + value)
            forward.add("torch." + value)
    return reverse, forward


# --------------------------------------------------------------------- checking

def sample(gen, shape, domain, dtype):
    if domain == "pos":
        v = torch.rand(shape, generator=gen, dtype=torch.float64) * 1.7 + 0.3
    elif domain == "unit":
        v = (torch.rand(shape, generator=gen, dtype=torch.float64) * 2 - 1) * 0.85
    elif domain == "gt1":
        v = torch.rand(shape, generator=gen, dtype=torch.float64) * 1.7 + 1.3
    else:
        v = torch.randn(shape, generator=gen, dtype=torch.float64)
        v = torch.where(v.abs() < 0.05, v + 0.3, v)  # away from kinks at 0
    return v.to(dtype)


def like(gen, x):
    return torch.randn(tuple(x.shape), generator=gen, dtype=torch.float64).to(x.dtype)


def vdot(a, b):
    return float(torch.sum(torch.as_tensor(a, dtype=torch.float64)
                           * torch.as_tensor(b, dtype=torch.float64)))


def close(a, b, rtol, atol):
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        return False
    if tuple(a.shape) != tuple(b.shape):
        return False
    a, b = a.detach().to(torch.float64), b.detach().to(torch.float64)
    return bool(torch.all(torch.abs(a - b) <= atol + rtol * torch.abs(b)))


def same_kind(g, x):
    """Why the gradient (or tangent) `g` is not shaped and typed like `x`, or None."""
    if not isinstance(g, torch.Tensor):
        return "a %s for a tensor" % type(g).__name__
    if tuple(g.shape) != tuple(x.shape) or g.dtype != x.dtype or g.device != x.device:
        return "%s %s on %s for %s %s on %s" % (g.dtype, tuple(g.shape), g.device, x.dtype,
                                                tuple(x.shape), x.device)
    return None


def _tuple(v, n):
    return (v,) if n == 1 else tuple(v)


def shifted(args, direction, h):
    return [x + h * v for x, v in zip(args, direction)]


class Checker:
    def __init__(self, outdir):
        self.outdir = outdir
        self.failures = []
        self.checked_reverse = set()
        self.checked_forward = set()
        self.checked_second = set()
        self.skipped_second = set()
        self.checked_f32 = set()
        self.checked_only = set()
        self.cases = 0
        self.counter = 0

    def fail(self, what):
        self.failures.append(what)
        print("FAIL", what)

    def module(self, body):
        self.counter += 1
        name = "torchcat_%d" % self.counter
        path = os.path.join(self.outdir, name + ".py")
        with open(path, "w") as f:
            f.write(HEADER + "\n\n" + body)
        import importlib
        if self.outdir not in sys.path:
            sys.path.insert(0, self.outdir)
        return importlib.import_module(name)

    def entry(self, rule, expr, specs, gen):
        params = ["a", "b", "c"][:len(specs)]
        mod = self.module("def f(%s):\n    return %s\n\n\n"
                          "def s(%s):\n    return torch.sum(SEED * (%s))\n"
                          % (", ".join(params), expr, ", ".join(params), expr))
        label = "%s: %s at %s" % (rule, expr, [s for s, _ in specs])
        for dtype in (torch.float64, torch.float32):
            self.check(rule, mod, label, specs, gen, dtype)
        self.cases += 1

    def check(self, rule, mod, label, specs, gen, dtype):
        f = mod.f
        f64 = dtype == torch.float64
        rtol, atol = (1e-9, 1e-10) if f64 else (2e-4, 2e-5)
        args = [sample(gen, s, d, dtype) for s, d in specs]
        wrt = tuple(range(len(args)))
        tag = "" if f64 else " [float32]"
        y = f(*args)
        seed = like(gen, y)
        direction = [like(gen, x) for x in args]
        fd = None
        if f64:
            h = 1e-6
            fd = (f(*shifted(args, direction, h)) - f(*shifted(args, direction, -h))) / (2 * h)
        ok_rev = ok_fwd = False
        # reverse
        try:
            grads = _tuple(tangent.grad(f, wrt=wrt)(*args, seed), len(wrt))
            leaves = [x.clone().requires_grad_() for x in args]
            ref = torch.autograd.grad(f(*leaves), leaves, seed, allow_unused=True)
            ref = [torch.zeros_like(x) if r is None else r for r, x in zip(ref, args)]
            ok = all(close(g, r, rtol, atol) for g, r in zip(grads, ref))
            kinds = ["gradient %d: %s" % (i, why) for i, why in
                     enumerate(same_kind(g, x) for g, x in zip(grads, args)) if why]
            if f64 and len(args) > 1 and (rule, label) not in self.checked_only:
                self.checked_only.add((rule, label))
                for i in range(len(args)):
                    only = tangent.grad(f, wrt=(i,))(*args, seed)
                    why = "a tuple" if isinstance(only, tuple) else same_kind(only, args[i])
                    if why is None and not close(only, grads[i], 1e-12, 1e-14):
                        why = "not the full gradient's"
                    if why:
                        kinds.append("wrt=(%d,) gives %s" % (i, why))
            if kinds:
                self.fail("reverse gradients%s: %s: %s" % (tag, label, "; ".join(kinds)))
            elif not ok:
                self.fail("reverse vs torch.autograd.grad%s: %s: %s vs %s"
                          % (tag, label, grads, ref))
            elif f64 and abs(sum(vdot(g, v) for g, v in zip(grads, direction))
                             - vdot(seed, fd)) > 1e-5 * (1 + abs(vdot(seed, fd))):
                self.fail("reverse vs finite differences: %s" % label)
            else:
                ok_rev = True
        except Exception as e:  # report and go on: one summary line at the end
            self.fail("reverse raised%s: %s: %s: %s" % (tag, label, type(e).__name__, e))
        # forward
        try:
            t = tangent.autodiff(f, wrt=wrt, mode="forward")(*args, *direction)
            _, ref = torch.func.jvp(f, tuple(args), tuple(direction))
            why = same_kind(t, y)
            if why:
                self.fail("forward tangent%s: %s: %s" % (tag, label, why))
            elif not close(t, ref, rtol, atol):
                self.fail("forward vs torch.func.jvp%s: %s: %s vs %s" % (tag, label, t, ref))
            elif f64 and not close(t, fd, 1e-5, 1e-6):
                self.fail("forward vs finite differences: %s" % label)
            else:
                ok_fwd = True
        except Exception as e:
            self.fail("forward raised%s: %s: %s: %s" % (tag, label, type(e).__name__, e))
        if f64:
            if ok_rev:
                self.checked_reverse.add(rule)
            if ok_fwd:
                self.checked_forward.add(rule)
            self.second_order(rule, mod, label, args, gen)
        elif ok_rev and ok_fwd:
            self.checked_f32.add(rule)

    def second_order(self, rule, mod, label, args, gen):
        """Forward-over-reverse H v of s = sum(SEED * f) along a direction of the first
        argument, against torch's double backward and the second difference."""
        mod.SEED = like(gen, mod.f(*args))
        s = mod.s
        v = like(gen, args[0])
        if rule in SECOND_ORDER_SKIP:
            # refused with an error, never a number
            try:
                tangent.vjp(tangent.grad(s, wrt=(0,)), wrt=(0,))(*(args + [v]))
                self.fail("second order of %s gave a number: %s" % (rule, label))
            except NotImplementedError as e:
                if "NumPy arrays only" not in str(e):
                    self.fail("second order of %s: unclear refusal %s" % (rule, e))
            self.skipped_second.add(rule)
            return
        try:
            hv = tangent.vjp(tangent.grad(s, wrt=(0,)), wrt=(0,))(*(args + [v]))
            leaves = [x.clone().requires_grad_() for x in args]
            (g,) = torch.autograd.grad(s(*leaves), leaves[0], create_graph=True)
            ref = (torch.autograd.grad(g, leaves[0], v, allow_unused=True)[0]
                   if g.requires_grad else None)
            ref = torch.zeros_like(args[0]) if ref is None else ref
            h = 1e-4
            x = args[0]
            sd = float((s(*([x + h * v] + args[1:])) - 2.0 * s(*args)
                        + s(*([x - h * v] + args[1:]))) / (h * h))
            why = same_kind(hv, args[0])
            if why:
                self.fail("second order: %s: H v is %s" % (label, why))
            elif not close(hv, ref, 1e-8, 1e-9):
                self.fail("second order vs torch double backward: %s: %s vs %s"
                          % (label, hv, ref))
            elif abs(vdot(v, hv) - sd) > 1e-4 * max(1.0, abs(sd)):
                self.fail("second order vs second difference: %s: %.8g vs %.8g"
                          % (label, vdot(v, hv), sd))
            else:
                self.checked_second.add(rule)
        except Exception as e:
            msg = str(e).strip().splitlines()
            self.fail("second order raised: %s: %s: %s" % (label, type(e).__name__,
                                                            msg[0][:300] if msg else ""))

    # ------------------------------------------------------------- compile='torch'

    def compiled(self, gen):
        mod = self.module(
            "def loss(w, x):\n"
            "    h = torch.tanh(x @ w)\n"
            "    for i in range(3):\n"
            "        h = F.softplus(h) * 0.5 + h\n"
            "    return torch.sum(h * h)\n")
        w = torch.randn(3, 4, generator=gen, dtype=torch.float64)
        x = torch.randn(2, 3, generator=gen, dtype=torch.float64)
        plain = tangent.grad(mod.loss, compile="python")(w, x)
        wl = w.clone().requires_grad_()
        ref = torch.autograd.grad(mod.loss(wl, x), wl)[0]
        if not close(plain, ref, 1e-9, 1e-10):
            self.fail("compile='python' loss gradient differs from torch.autograd")
        try:
            df = tangent.grad(mod.loss, compile="torch")
            got = df(w, x)
            if not close(got, plain, 1e-9, 1e-10):
                self.fail("compile='torch' differs from the uncompiled gradient")
            if "def dlossdw" not in df.__tangent_source__:
                self.fail("compile='torch' lost __tangent_source__")
            if getattr(df, "__tangent_compile__", None) != "torch":
                self.fail("compile='torch' did not wrap the derivative in torch.compile")
            tw = torch.randn(3, 4, generator=gen, dtype=torch.float64)
            fwd = tangent.autodiff(mod.loss, mode="forward", compile="torch")(w, x, tw)
            ref_t = torch.func.jvp(lambda w_: mod.loss(w_, x), (w,), (tw,))[1]
            if not close(fwd, ref_t, 1e-9, 1e-10):
                self.fail("compile='torch' forward mode differs from torch.func.jvp")
        except tangent.TangentError as e:
            # An inductor that cannot compile here must say why and name compile='python'.
            if "compile='python'" not in str(e):
                self.fail("compile='torch' failed without naming compile='python': %s" % e)
            else:
                print("note: compile='torch' is not available here:", str(e).splitlines()[0])
        try:
            tangent.autodiff(mod.loss, motion="split", compile="torch")
            self.fail("compile='torch' accepted motion='split'")
        except tangent.TangentError as e:
            if "motion='joint'" not in str(e):
                self.fail("compile='torch' with split motion: unclear error %s" % e)
        self.cases += 1

    # ------------------------------------------------------ tensors and errors

    def tensors_and_errors(self, gen):
        mod = self.module(
            "def mlp(w1, b1, w2, x, labels):\n"
            "    h = F.gelu(x @ w1 + b1)\n"
            "    h = F.layer_norm(h, (h.shape[-1],))\n"
            "    logits = F.linear(h, w2)\n"
            "    return F.cross_entropy(logits, labels)\n"
            "\n\n"
            "def unknown(x):\n"
            "    return torch.sum(torch.special.bessel_j0(x))\n"
            "\n\n"
            "def vector(x):\n"
            "    return torch.tanh(x)\n"
            "\n\n"
            "def dropout_training(x):\n"
            "    return torch.sum(F.dropout(x, 0.5))\n"
            "\n\n"
            "def scaled(x):\n"
            "    return torch.sum(x * 2.0)\n")
        w1 = torch.randn(4, 5, generator=gen, dtype=torch.float64)
        b1 = torch.randn(5, generator=gen, dtype=torch.float64)
        w2 = torch.randn(3, 5, generator=gen, dtype=torch.float64)
        x = torch.randn(6, 4, generator=gen, dtype=torch.float64)
        labels = torch.tensor([0, 1, 2, 1, 0, 2])
        got = tangent.grad(mod.mlp, wrt=(0, 1, 2))(w1, b1, w2, x, labels)
        leaves = [w1.clone().requires_grad_(), b1.clone().requires_grad_(),
                  w2.clone().requires_grad_()]
        ref = torch.autograd.grad(mod.mlp(*leaves, x, labels), leaves)
        if not all(close(g, r, 1e-9, 1e-10) for g, r in zip(got, ref)):
            self.fail("end to end mlp: reverse differs from torch.autograd")
        # Plain tensors build no autograd graph; requires_grad=True inputs are accepted,
        # give the same gradient, and torch records the derivative's operations on them
        # as on any computation with them, so a user can backpropagate through tangent's
        # gradient (checked against torch's own double backward); under torch.no_grad()
        # nothing is recorded.
        if got[0].grad_fn is not None or got[0].requires_grad:
            self.fail("plain tensor inputs: the gradient carries an autograd graph")
        got_rg = tangent.grad(mod.mlp, wrt=(0,))(leaves[0], b1, w2, x, labels)
        if not close(got_rg, ref[0], 1e-9, 1e-10):
            self.fail("requires_grad=True input: gradient differs")
        probe = torch.randn(w1.shape, generator=gen, dtype=torch.float64)
        ref_rg = torch.autograd.grad(mod.mlp(*leaves, x, labels), leaves[0],
                                     create_graph=True)[0]
        want = torch.autograd.grad(torch.sum(ref_rg * probe), leaves[0])[0]
        have = torch.autograd.grad(torch.sum(got_rg * probe), leaves[0])[0]
        if not close(have, want, 1e-8, 1e-10):
            self.fail("backpropagating through tangent's gradient differs from torch's "
                      "double backward")
        with torch.no_grad():
            quiet = tangent.grad(mod.mlp, wrt=(0,))(leaves[0], b1, w2, x, labels)
        if quiet.grad_fn is not None:
            self.fail("under torch.no_grad() the gradient carries an autograd graph")
        # float32 in, float32 out
        got32 = tangent.grad(mod.mlp, wrt=(0,))(w1.float(), b1.float(), w2.float(), x.float(),
                                                labels)
        if got32.dtype != torch.float32 or not close(got32, ref[0], 1e-4, 1e-5):
            self.fail("float32 mlp: %s gradient, or it differs" % got32.dtype)
        # bad input: a torch function without a rule is a located error naming it
        try:
            tangent.grad(mod.unknown)(x)
            self.fail("a torch function without a rule was differentiated")
        except Exception as e:
            text = str(e)
            if "torch.special.bessel_j0" not in text or "tangent.adjoint" not in text:
                self.fail("no-rule error does not name the function and the template: %s"
                          % text)
        try:
            tangent.grad(mod.vector)(x)
            self.fail("a non-scalar output without a seed was differentiated")
        except Exception as e:
            if "vector" not in str(e):
                self.fail("non-scalar output error does not name the function: %s" % e)
        try:
            tangent.grad(mod.dropout_training)(x)
            self.fail("dropout in training form was differentiated")
        except Exception as e:
            if "training=False" not in str(e):
                self.fail("dropout error unclear: %s" % e)
        try:
            tangent.grad(mod.vector)(x, torch.ones(6, 4, dtype=torch.float64, device="meta"))
            self.fail("a seed on another device was accepted")
        except ValueError as e:
            if "seed is on device meta" not in str(e) or "`vector`" not in str(e):
                self.fail("seed-device error unclear: %s" % e)
        try:
            tangent.grad(mod.scaled)(torch.ones(2, 3, dtype=torch.int64))
            self.fail("a gradient with respect to an integer tensor was computed")
        except TypeError as e:
            if "integer tensor" not in str(e) or "x.double()" not in str(e):
                self.fail("integer-tensor error unclear: %s" % e)
        self.cases += 1


def module_templates():
    """The torch.nn classes with a `@control_flow` template, and the module sequences."""
    names = set()
    with open(os.path.join(BACKENDS, "torch.py")) as f:
        tree = ast.parse(f.read())
    for node in tree.body:
        for dec in getattr(node, "decorator_list", []):
            if isinstance(dec, ast.Call) and _dotted(dec.func) == "control_flow":
                names.update(_dotted(a) for a in dec.args)
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and _dotted(node.value.func) == "module_sequence"):
            names.update(_dotted(a) for a in node.value.args)
    return {n.rsplit(".", 1)[1] for n in names if n.startswith("torch.nn.")}


def _modules_checker(checker, gen):
    """torch.nn modules called in differentiated code (tests/torch/modules.py): every
    template's class, reverse (joint, split) against torch.autograd, forward against
    torch.func.jvp, the jvp of the gradient against torch.func; functional_call's
    gradients with respect to the parameters against torch.func.grad."""
    sys.path.insert(0, HERE)
    import modules
    covered = set()
    for f, shape, classes in modules.CALLS:
        x = torch.randn(shape, generator=gen, dtype=torch.float64)
        t = like(gen, x)
        xr = x.clone().requires_grad_()
        f(xr).backward()
        ok = True
        try:
            for motion in ("joint", "split"):
                g = tangent.autodiff(f, motion=motion)(x)
                if not close(g, xr.grad, 1e-9, 1e-10):
                    ok = False
                    checker.fail("module %s: %s reverse differs from torch.autograd"
                                 % (f.__name__, motion))
            ref_t = torch.func.jvp(f, (x,), (t,))[1]
            if not close(tangent.autodiff(f, mode="forward")(x, t), ref_t, 1e-9, 1e-10):
                ok = False
                checker.fail("module %s: forward differs from torch.func.jvp" % f.__name__)
            if classes:  # second order (a class of the program's: method_grad refuses it)
                hv = tangent.autodiff(tangent.grad(f), mode="forward")(x, 1.0, t)
                ref_hv = torch.func.jvp(torch.func.grad(f), (x,), (t,))[1]
                if not close(hv, ref_hv, 1e-8, 1e-9):
                    ok = False
                    checker.fail("module %s: the jvp of the gradient differs" % f.__name__)
        except Exception as e:
            ok = False
            checker.fail("module %s: %s: %s" % (f.__name__, type(e).__name__, e))
        if ok:
            covered |= classes
        checker.cases += 1
    for f, module, x, classes in modules.FUNCTIONAL:
        params = dict(module.named_parameters())
        ok = True
        try:
            want = torch.func.grad(f)(params, x)
            got = tangent.grad(f)(params, x)
            if set(got) != set(want) or not all(close(got[k], want[k], 1e-9, 1e-10)
                                                for k in want):
                ok = False
                checker.fail("functional_call %s: gradients differ from torch.func.grad"
                             % f.__name__)
            tans = {k: like(gen, v) for k, v in params.items()}
            ref_t = torch.func.jvp(lambda p: f(p, x), (params,), (tans,))[1]
            if not close(tangent.autodiff(f, mode="forward")(params, x, tans), ref_t,
                         1e-9, 1e-10):
                ok = False
                checker.fail("functional_call %s: forward differs from torch.func.jvp"
                             % f.__name__)
        except Exception as e:
            ok = False
            checker.fail("functional_call %s: %s: %s" % (f.__name__, type(e).__name__, e))
        if ok:
            covered |= classes
        checker.cases += 1
    # padding_idx: torch.autograd holds the padding row constant (it gets no gradient),
    # and so does tangent in both modes: its tangent is <torch.autograd's gradient, t>.
    emb = modules.embedding
    w = emb.weight.detach().clone()
    ids = modules.IDS
    seed = torch.randn(ids.shape + (w.shape[1],), generator=gen, dtype=torch.float64)
    wr = w.clone().requires_grad_()
    (torch.nn.functional.embedding(ids, wr, 0) * seed).sum().backward()
    f = modules.padded
    got = tangent.grad(f)(w, ids, seed)
    t = like(gen, w)
    if not close(got, wr.grad, 1e-12, 1e-12):
        checker.fail("embedding padding_idx: reverse differs from torch.autograd")
    if abs(float(tangent.autodiff(f, mode="forward")(w, ids, seed, t)) - vdot(wr.grad, t)) \
            > 1e-10:
        checker.fail("embedding padding_idx: forward is not <torch.autograd's gradient, t>")
    checker.cases += 1
    # A mode without a derivative is a located error when the derivative runs, also
    # after a derivative was made in eval mode.
    x = torch.randn(modules.IMG, generator=gen, dtype=torch.float64)
    modules.normed.train()
    try:
        tangent.grad(modules.f_normed)(x)
        checker.fail("module in training mode: no error")
    except tangent.TangentError as e:
        if "training mode" not in str(e) or "BatchNorm2d" not in str(e):
            checker.fail("module in training mode: unclear error %s" % e)
    finally:
        modules.normed.eval()
    for missing in sorted(module_templates() - covered):
        checker.fail("module template without a passing case: torch.nn.%s" % missing)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tangent-torch-")
    os.makedirs(outdir, exist_ok=True)
    start = time.time()
    gen = torch.Generator().manual_seed(20261201)
    checker = Checker(outdir)
    reverse_rules, forward_rules = torch_rules()
    listed = set(rule for rule, _, _ in CATALOG)
    for rule in sorted((reverse_rules | forward_rules) - listed):
        checker.fail("rule without a catalog entry: %s" % rule)
    for rule, expr, inputs in CATALOG:
        for specs in inputs:
            checker.entry(rule, expr, specs, gen)
    checker.compiled(gen)
    checker.tensors_and_errors(gen)
    _modules_checker(checker, gen)
    rev = len(checker.checked_reverse & reverse_rules)
    fwd = len(checker.checked_forward & forward_rules)
    second = len(checker.checked_second & reverse_rules)
    f32 = len(checker.checked_f32 & reverse_rules)
    print("torch catalog: %d cases in %.0f s; %d of %d reverse rules and %d of %d forward "
          "rules match torch.autograd.grad/torch.func.jvp and finite differences; %d in "
          "float32; %d second order (%d refused: %s); %d failures"
          % (checker.cases, time.time() - start, rev, len(reverse_rules), fwd,
             len(forward_rules), f32, second, len(checker.skipped_second),
             ", ".join(sorted(checker.skipped_second)), len(checker.failures)))
    if rev != len(reverse_rules) or fwd != len(forward_rules) or checker.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
