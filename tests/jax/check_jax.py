"""The JAX op catalog: every JAX derivative rule, checked against jax's own autodiff and
against central finite differences.

Each entry names a rule (its canonical name; `jax:<name>` for an operator or array-method
rule that applies in modules importing jax), a Python expression using it, and the input
sets to try. For every entry and input set a wrapper function is written into a module
file (tangent reads source from files), then, in float64 (jax_enable_x64):
- reverse: tangent.grad with a random seed against jax.vjp (tight tolerance) and against
  the central finite difference of <seed, f(x + h v)> along a random direction v;
- forward: tangent.autodiff(mode='forward') with random tangents against jax.jvp and
  against the central finite difference of f along the tangents.
jax.numpy.linalg entries are also differentiated under jax.jit (tracers) and compared with
the untraced derivatives. Then compile='jax' (results equal the uncompiled derivative,
also under an outer jax.jit; an untraceable primal gives TangentError naming the line;
a jax.numpy.linalg loss against jax.jit(jax.grad)) and a few end-to-end
scripts (an MLP loss with jax.nn activations, broadcasting, a for loop), and jax.lax's
control flow (every `@control_flow` template of backends/jax.py: fori_loop, while_loop,
cond, scan with pytrees, reverse and length; loop bodies as module functions, nested
functions, lambdas and functools.partial) against jax.grad (jax.jvp for while_loop,
whose reverse mode jax refuses), jax.jvp, split motion and second order.

The script also fails when a JAX rule of backends/jax.py, backends/arithmetic.py,
backends/linalg.py (jax.numpy.linalg) or a `jax=` name of backends/elementwise.py has no
catalog entry.

Run: tangent run --python PYTHON tests/jax/check_jax.py [OUTDIR]. Exits non-zero on failure.
"""
import ast
import os
import sys
import tempfile

import jax

jax.config.update("jax_enable_x64", True)
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

import tangent  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = os.path.join(HERE, "..", "..", "backends")

# Input specs: (shape, domain); shape () is a Python float. Domains: "any", "pos" (> 0.2),
# "unit" (inside (-0.9, 0.9)), "gt1" (> 1.2).
S = [(), (3,), (2, 3)]
B2 = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((2, 3), ())]


def unary(rule, expr, domain="any", shapes=S):
    return (rule, expr, [[(s, domain)] for s in shapes])


def binary(rule, expr, dx="any", dy="any", shapes=B2):
    return (rule, expr, [[(a, dx), (b, dy)] for a, b in shapes])


REDUCE = [("None", "False"), ("0", "False"), ("1", "True"), ("-1", "False"), ("(0, 1)", "True")]


def reductions(rule, fn, domain="any"):
    return [(rule, "%s(a, axis=%s, keepdims=%s)" % (fn, axis, keep), [[((2, 3), domain)]])
            for axis, keep in REDUCE]


# The jax names of the elementwise table (backends/elementwise.py).
ELEMENTWISE = [
    ("jax.numpy.sin", "any"), ("jax.numpy.cos", "any"), ("jax.numpy.tan", "unit"),
    ("jax.numpy.arcsin", "unit"), ("jax.numpy.asin", "unit"),
    ("jax.numpy.arccos", "unit"), ("jax.numpy.acos", "unit"), ("jax.numpy.arctan", "any"),
    ("jax.numpy.atan", "any"), ("jax.numpy.sinh", "any"), ("jax.numpy.cosh", "any"),
    ("jax.numpy.tanh", "any"), ("jax.numpy.arcsinh", "any"), ("jax.numpy.asinh", "any"),
    ("jax.numpy.arccosh", "gt1"), ("jax.numpy.acosh", "gt1"),
    ("jax.numpy.arctanh", "unit"), ("jax.numpy.atanh", "unit"), ("jax.numpy.exp", "any"),
    ("jax.numpy.exp2", "any"), ("jax.numpy.expm1", "any"), ("jax.numpy.log", "pos"),
    ("jax.numpy.log1p", "pos"), ("jax.numpy.log2", "pos"), ("jax.numpy.log10", "pos"),
    ("jax.numpy.sqrt", "pos"), ("jax.numpy.cbrt", "pos"), ("jax.numpy.square", "any"),
    ("jax.numpy.reciprocal", "pos"), ("jax.numpy.negative", "any"),
    ("jax.numpy.abs", "any"), ("jax.numpy.absolute", "any"),
]

CATALOG = [
    unary(rule, "jnp.%s(a)" % rule.rsplit(".", 1)[1], domain) for rule, domain in ELEMENTWISE
] + [
    # Accumulation through tangent.add_grad under broadcasting: one input used twice,
    # its two contributions of different shapes before unbroadcasting.
    binary("tangent.add_grad", "a * b + a", shapes=[((3,), (2, 3)), ((2, 1), (1, 3)), ((), (2, 3))]),
    binary("tangent.add_grad", "(a * b) * jnp.sin(a)", shapes=[((3,), (2, 3)), ((), (3,))]),
    # ufuncs (arithmetic.py)
    binary("jax.numpy.add", "jnp.add(a, b)"),
    binary("jax.numpy.subtract", "jnp.subtract(a, b)"),
    binary("jax.numpy.multiply", "jnp.multiply(a, b)"),
    binary("jax.numpy.divide", "jnp.divide(a, b)", dy="pos"),
    binary("jax.numpy.true_divide", "jnp.true_divide(a, b)", dy="pos"),
    binary("jax.numpy.power", "jnp.power(a, b)", dx="pos"),
    binary("jax.numpy.maximum", "jnp.maximum(a, b)"),
    binary("jax.numpy.minimum", "jnp.minimum(a, b)"),
    binary("jax.numpy.arctan2", "jnp.arctan2(a, b)"),
    binary("jax.numpy.hypot", "jnp.hypot(a, b)"),
    binary("jax.numpy.logaddexp", "jnp.logaddexp(a, b)"),
    binary("jax.numpy.mod", "jnp.mod(a, b)", dy="pos"),
    binary("jax.numpy.remainder", "jnp.remainder(-2.0 * a, b)", dy="pos"),
    binary("operator.mod", "a % b", dy="pos"),
    # constructors whose values are their arguments
    ("jax.numpy.full", "jnp.full(3, a) * b", [[((), "any"), ((3,), "any")]]),
    ("jax.numpy.full", "jnp.full((2, 3), a)", [[((), "any")], [((3,), "any")]]),
    ("jax.numpy.full_like", "jnp.full_like(b, a) * b", [[((), "any"), ((2, 3), "any")]]),
    binary("jax.numpy.linspace", "jnp.linspace(a, b, 4)", shapes=[((), ()), ((3,), (3,))]),
    binary("jax.numpy.linspace", "jnp.linspace(a, b, 5, endpoint=False)", shapes=[((), ())]),
    binary("jax.numpy.linspace", "jnp.linspace(a, b, 3, axis=1)", shapes=[((2,), (2,))]),
    binary("jax.numpy.linspace", "jnp.linspace(a, b, 3, retstep=True)[1]", shapes=[((), ())]),
    binary("jax.numpy.linspace", "jnp.linspace(a, b, 3, retstep=True)[0] * a", shapes=[((), ())]),
    # operators on JAX arrays
    binary("operator.mul", "a * b"),
    binary("operator.add", "a + b"),
    binary("operator.truediv", "a / b", dy="pos"),
    binary("operator.pow", "a ** b", dx="pos"),
    ("jax.numpy.matmul", "jnp.matmul(a, b)", [[((2, 3), "any"), ((3, 4), "any")],
                                              [((3,), "any"), ((3, 2), "any")],
                                              [((2, 3), "any"), ((3,), "any")],
                                              [((2, 2, 3), "any"), ((3, 2), "any")]]),
    ("operator.matmul", "a @ b", [[((2, 3), "any"), ((3, 4), "any")],
                                      [((3,), "any"), ((3,), "any")],
                                      [((3,), "any"), ((3, 2), "any")]]),
    ("jax.numpy.dot", "jnp.dot(a, b)", [[((2, 3), "any"), ((3, 4), "any")],
                                        [((3,), "any"), ((3,), "any")],
                                        [((2, 3), "any"), ((3,), "any")]]),
    ("jax.numpy.outer", "jnp.outer(a, b)", [[((3,), "any"), ((2,), "any")]]),
    ("jax.numpy.einsum", "jnp.einsum('ij,jk->ik', a, b)", [[((2, 3), "any"), ((3, 4), "any")]]),
    ("jax.numpy.einsum", "jnp.einsum('ii->i', a)", [[((3, 3), "any")]]),
    ("jax.numpy.einsum", "jnp.einsum('i,i,i', a, b, a)", [[((3,), "any"), ((3,), "any")]]),
    ("jax.numpy.trace", "jnp.trace(a)", [[((3, 3), "any")], [((2, 3), "any")]]),
    # selection
    ("jax.numpy.where", "jnp.where(a > 0.0, a, b)", [[((2, 3), "any"), ((2, 3), "any")],
                                                    [((2, 3), "any"), ((3,), "any")]]),
    ("jax.numpy.clip", "jnp.clip(a, -0.5, 0.5)", [[((2, 3), "any")]]),
    ("jax.numpy.clip", "jnp.clip(a, b, 0.7)", [[((2, 3), "any"), ((3,), "any")]]),
    ("jax.numpy.clip", "jnp.clip(a, max=b)", [[((2, 3), "any"), ((), "any")]]),
    ("jax.numpy.clip", "jnp.clip(a, min=b, max=0.7)", [[((2, 3), "any"), ((3,), "any")]]),
] + reductions("jax.numpy.sum", "jnp.sum") + reductions("jax.numpy.mean", "jnp.mean") \
  + reductions("jax.numpy.max", "jnp.max") + reductions("jax.numpy.min", "jnp.min") \
  + reductions("jax.numpy.prod", "jnp.prod") + [
    ("jax.numpy.amax", "jnp.amax(a, axis=1)", [[((2, 3), "any")]]),
    ("jax.numpy.amin", "jnp.amin(a)", [[((2, 3), "any")]]),
    ("jax.numpy.prod", "jnp.prod(a * jnp.array([1.0, 0.0, 1.0]), axis=1)", [[((2, 3), "any")]]),
    ("jax.numpy.var", "jnp.var(a)", [[((2, 3), "any")]]),
    ("jax.numpy.var", "jnp.var(a, axis=0, ddof=1)", [[((3, 2), "any")]]),
    ("jax.numpy.std", "jnp.std(a, axis=1, keepdims=True)", [[((2, 3), "any")]]),
    ("jax.numpy.std", "jnp.std(a)", [[((4,), "any")]]),
    ("jax.numpy.cumsum", "jnp.cumsum(a)", [[((2, 3), "any")]]),
    ("jax.numpy.cumsum", "jnp.cumsum(a, axis=1)", [[((2, 3), "any")]]),
    # shape ops
    ("jax.numpy.reshape", "jnp.reshape(a, (3, 2))", [[((2, 3), "any")]]),
    ("jax.numpy.ravel", "jnp.ravel(a)", [[((2, 3), "any")]]),
    ("jax.numpy.squeeze", "jnp.squeeze(a)", [[((2, 1, 3), "any")]]),
    ("jax.numpy.expand_dims", "jnp.expand_dims(a, 1)", [[((2, 3), "any")]]),
    ("jax.numpy.atleast_1d", "jnp.atleast_1d(a)", [[((), "any")], [((3,), "any")]]),
    ("jax.numpy.atleast_2d", "jnp.atleast_2d(a)", [[((3,), "any")]]),
    ("jax.numpy.transpose", "jnp.transpose(a)", [[((2, 3), "any")]]),
    ("jax.numpy.transpose", "jnp.transpose(a, (1, 2, 0))", [[((2, 3, 4), "any")]]),
    ("jax.numpy.swapaxes", "jnp.swapaxes(a, 0, 2)", [[((2, 3, 4), "any")]]),
    ("jax.numpy.moveaxis", "jnp.moveaxis(a, 0, -1)", [[((2, 3, 4), "any")]]),
    ("jax.numpy.flip", "jnp.flip(a, 1)", [[((2, 3), "any")]]),
    ("jax.numpy.flip", "jnp.flip(a)", [[((2, 3), "any")]]),
    ("jax.numpy.roll", "jnp.roll(a, 2, 1)", [[((2, 3), "any")]]),
    ("jax.numpy.roll", "jnp.roll(a, 1)", [[((2, 3), "any")]]),
    ("jax.numpy.broadcast_to", "jnp.broadcast_to(a, (2, 3))", [[((3,), "any")], [((2, 1), "any")]]),
    ("jax.numpy.tile", "jnp.tile(a, (2, 1))", [[((2, 3), "any")], [((3,), "any")]]),
    ("jax.numpy.array", "jnp.array([a, b, a * b])", [[((), "any"), ((), "any")]]),
    ("jax.numpy.asarray", "jnp.asarray([[a, b], [b, a]])", [[((), "any"), ((), "any")]]),
    ("jax.numpy.concatenate", "jnp.concatenate([a, b])", [[((2,), "any"), ((3,), "any")]]),
    ("jax.numpy.concatenate", "jnp.concatenate([a, b], axis=1)",
     [[((2, 3), "any"), ((2, 2), "any")]]),
    ("jax.numpy.stack", "jnp.stack([a, b], axis=1)", [[((3,), "any"), ((3,), "any")]]),
    ("jax.numpy.hstack", "jnp.hstack([a, b])", [[((2,), "any"), ((3,), "any")],
                                                [((2, 1), "any"), ((2, 3), "any")]]),
    ("jax.numpy.vstack", "jnp.vstack([a, b])", [[((3,), "any"), ((2, 3), "any")]]),
    # array methods in a module that imports jax
    ("numpy.ndarray.reshape", "a.reshape(3, 2)", [[((2, 3), "any")]]),
    ("numpy.ndarray.reshape", "a.reshape((6,))", [[((2, 3), "any")]]),
    ("numpy.ndarray.ravel", "a.ravel()", [[((2, 3), "any")]]),
    ("numpy.ndarray.flatten", "a.flatten()", [[((2, 3), "any")]]),
    ("numpy.ndarray.squeeze", "a.squeeze()", [[((2, 1), "any")]]),
    ("numpy.ndarray.T", "a.T * b", [[((2, 3), "any"), ((3, 2), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose()", [[((2, 3), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose(1, 0, 2)", [[((2, 3, 4), "any")]]),
    ("numpy.ndarray.transpose", "a.transpose((2, 0, 1))", [[((2, 3, 4), "any")]]),
    ("numpy.ndarray.sum", "a.sum(axis=0)", [[((2, 3), "any")]]),
    ("numpy.ndarray.mean", "a.mean()", [[((2, 3), "any")]]),
    ("numpy.ndarray.dot", "a.dot(b)", [[((2, 3), "any"), ((3,), "any")]]),
    # jax.nn
    unary("jax.nn.relu", "jax.nn.relu(a)"),
    unary("jax.nn.relu6", "jax.nn.relu6(a * 4.0 + 3.0)"),
    unary("jax.nn.hard_tanh", "jax.nn.hard_tanh(a * 2.0)"),
    unary("jax.nn.sigmoid", "jax.nn.sigmoid(a)"),
    unary("jax.nn.log_sigmoid", "jax.nn.log_sigmoid(a)"),
    unary("jax.nn.softplus", "jax.nn.softplus(a)"),
    unary("jax.nn.silu", "jax.nn.silu(a)"),
    unary("jax.nn.swish", "jax.nn.swish(a)"),
    unary("jax.nn.gelu", "jax.nn.gelu(a)"),
    unary("jax.nn.gelu", "jax.nn.gelu(a, approximate=False)"),
    unary("jax.nn.gelu", "jax.nn.gelu(a, False)"),
    unary("jax.nn.elu", "jax.nn.elu(a)"),
    unary("jax.nn.elu", "jax.nn.elu(a, 0.5)"),
    unary("jax.nn.celu", "jax.nn.celu(a, alpha=2.0)"),
    unary("jax.nn.selu", "jax.nn.selu(a)"),
    unary("jax.nn.leaky_relu", "jax.nn.leaky_relu(a)"),
    unary("jax.nn.leaky_relu", "jax.nn.leaky_relu(a, negative_slope=0.2)"),
    ("jax.nn.softmax", "jax.nn.softmax(a)", [[((3,), "any")], [((2, 3), "any")]]),
    ("jax.nn.softmax", "jax.nn.softmax(a, axis=0)", [[((2, 3), "any")]]),
    ("jax.nn.log_softmax", "jax.nn.log_softmax(a)", [[((3,), "any")], [((2, 3), "any")]]),
    ("jax.nn.log_softmax", "jax.nn.log_softmax(a, axis=(0, 1))", [[((2, 3), "any")]]),
    ("jax.nn.logsumexp", "jax.nn.logsumexp(a)", [[((2, 3), "any")]]),
    ("jax.nn.logsumexp", "jax.nn.logsumexp(a, axis=1, keepdims=True)", [[((2, 3), "any")]]),
    ("jax.nn.logsumexp", "jax.nn.logsumexp(a, axis=0, b=b)", [[((2, 3), "any"), ((3,), "pos")]]),
    ("jax.scipy.special.logsumexp", "jax.scipy.special.logsumexp(a, axis=0)",
     [[((2, 3), "any")]]),
    unary("jax.scipy.special.expit", "jax.scipy.special.expit(a)"),
    unary("jax.scipy.special.erf", "jax.scipy.special.erf(a)"),
    unary("jax.lax.erf", "jax.lax.erf(a)", shapes=[(3,), (2, 3)]),
    # jax.numpy.linalg (the numpy.linalg rules of linalg.py; inputs made well-conditioned
    # or symmetric positive definite)
    unary("jax.numpy.linalg.inv", "jnp.linalg.inv(a + 3.0 * jnp.eye(3))", shapes=[(3, 3)]),
    unary("jax.numpy.linalg.inv", "jnp.linalg.inv(a + 3.0 * jnp.eye(2))", shapes=[(2, 2, 2)]),
    unary("jax.numpy.linalg.det", "jnp.linalg.det(a)", shapes=[(2, 2), (3, 3), (2, 3, 3)]),
    unary("jax.numpy.linalg.slogdet", "jnp.linalg.slogdet(a)[1]", shapes=[(3, 3), (2, 3, 3)]),
    unary("jax.numpy.linalg.slogdet", "jnp.linalg.slogdet(a)[0] * jnp.linalg.slogdet(a)[1]",
          shapes=[(3, 3)]),
    binary("jax.numpy.linalg.solve", "jnp.linalg.solve(a + 3.0 * jnp.eye(3), b)",
           shapes=[((3, 3), (3,)), ((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1)), ((2, 3, 3), (3,)),
                   ((3, 3), (2, 3, 2))]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a)", shapes=[(3,), (2, 3), (2, 3, 2)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, axis=0)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, axis=-1, keepdims=True)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, keepdims=True)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 1)", shapes=[(3,)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 2)", shapes=[(3,)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, jnp.inf)", shapes=[(3,)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, -jnp.inf)", shapes=[(3,)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 3)", shapes=[(3,)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 0) + jnp.sum(a)", shapes=[(3,)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 1, axis=1)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, jnp.inf, axis=0, keepdims=True)",
          shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 'fro')", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 'nuc')", shapes=[(2, 3), (3, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 2)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, -2)", shapes=[(3, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 1)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, -1)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, jnp.inf)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, -jnp.inf)", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, axis=(0, 1))", shapes=[(2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 'fro', axis=(1, 2))", shapes=[(2, 2, 3)]),
    unary("jax.numpy.linalg.norm", "jnp.linalg.norm(a, 2, axis=(2, 0), keepdims=True)",
          shapes=[(2, 2, 3)]),
    unary("jax.numpy.linalg.cholesky", "jnp.linalg.cholesky(a @ a.T + 3.0 * jnp.eye(3))",
          shapes=[(3, 3)]),
    unary("jax.numpy.linalg.cholesky",
          "jnp.linalg.cholesky(a @ a.T + 3.0 * jnp.eye(2), upper=True)", shapes=[(2, 2)]),
    # jax symmetrises the input: a non-symmetric argument is differentiated through that
    unary("jax.numpy.linalg.cholesky", "jnp.linalg.cholesky(a + 4.0 * jnp.eye(3))",
          shapes=[(3, 3)]),
    unary("jax.numpy.linalg.cholesky",
          "jnp.linalg.cholesky(jnp.einsum('bij,bkj->bik', a, a) + 3.0 * jnp.eye(3))",
          shapes=[(2, 3, 3)]),
    unary("jax.numpy.linalg.cholesky",
          "jnp.linalg.cholesky(a @ a.T + 3.0 * jnp.eye(3), symmetrize_input=True)",
          shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigh", "jnp.linalg.eigh(a + a.T)[0]", shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigh", "jnp.linalg.eigh(a, 'U', symmetrize_input=True)[0]",
          shapes=[(3, 3)]),
    # eigenvectors are defined up to sign: the checked outputs are sign-invariant
    unary("jax.numpy.linalg.eigh", "jnp.linalg.eigh(a + a.T)[1] * jnp.linalg.eigh(a + a.T)[1][0]",
          shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigh", "jnp.linalg.eigh(a)[1] * jnp.linalg.eigh(a)[1][0]",
          shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigh",
          "jnp.linalg.eigh(a + jnp.swapaxes(a, -1, -2))[1]"
          " * jnp.linalg.eigh(a + jnp.swapaxes(a, -1, -2))[1][..., 0:1, :]", shapes=[(2, 3, 3)]),
    unary("jax.numpy.linalg.eigvalsh", "jnp.linalg.eigvalsh(a + a.T)", shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigvalsh", "jnp.linalg.eigvalsh(a)", shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigvalsh", "jnp.linalg.eigvalsh(a, 'U', symmetrize_input=True)",
          shapes=[(3, 3)]),
    unary("jax.numpy.linalg.eigvalsh", "jnp.linalg.eigvalsh(a + jnp.swapaxes(a, -1, -2))",
          shapes=[(2, 3, 3)]),
    unary("jax.numpy.linalg.qr", "jnp.linalg.qr(a)[0] * jnp.linalg.qr(a)[0][0]",
          shapes=[(3, 3), (4, 3)]),
    unary("jax.numpy.linalg.qr", "jnp.linalg.qr(a)[1] * jnp.linalg.qr(a)[1][:, -1:]",
          shapes=[(3, 3), (4, 2)]),
    unary("jax.numpy.linalg.qr", "jnp.linalg.qr(a)[0] @ jnp.linalg.qr(a)[1]", shapes=[(4, 3)]),
    unary("jax.numpy.linalg.svd", "jnp.linalg.svd(a, compute_uv=False)",
          shapes=[(2, 3), (3, 3), (3, 2), (2, 3, 2)]),
    unary("jax.numpy.linalg.svd", "jnp.linalg.svd(a)[1]", shapes=[(3, 3)]),
    # singular vectors are defined up to sign: the checked outputs are sign-invariant
    unary("jax.numpy.linalg.svd",
          "jnp.linalg.svd(a, full_matrices=False)[0] * jnp.linalg.svd(a, full_matrices=False)[0][0]",
          shapes=[(3, 3), (4, 2), (2, 4)]),
    unary("jax.numpy.linalg.svd", "jnp.linalg.svd(a, full_matrices=False)[1]",
          shapes=[(4, 2), (2, 3, 2)]),
    unary("jax.numpy.linalg.svd",
          "jnp.linalg.svd(a, full_matrices=False)[2]"
          " * jnp.linalg.svd(a, full_matrices=False)[2][:, 0:1]", shapes=[(3, 3), (4, 2), (2, 4)]),
    unary("jax.numpy.linalg.svd", "jnp.linalg.svd(a)[0] @ jnp.linalg.svd(a)[2]", shapes=[(3, 3)]),
    unary("jax.numpy.linalg.svdvals", "jnp.linalg.svdvals(a)", shapes=[(2, 3), (3, 3)]),
]

HEADER = """import jax
import jax.numpy as jnp
import jax.scipy.special
import jax.lax
"""


# ----------------------------------------------------------------- rule coverage

def _dotted(node):
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted(node.value)
        return None if base is None else base + "." + node.attr
    return None


def jax_rules():
    """(reverse names, forward names) of every JAX rule in the rule files: templates for
    jax names, the elementwise table's `jax=` names, and the names `rules_like(numpy,
    jax.numpy, ...)` gives numpy's rules."""
    reverse, forward = set(), set()
    every = {"adjoint": set(), "tangent_": set()}
    likes = []
    for fname in sorted(os.listdir(BACKENDS)):
        if not fname.endswith(".py"):
            continue
        with open(os.path.join(BACKENDS, fname)) as f:
            tree = ast.parse(f.read())
        for node in tree.body:
            if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                    and _dotted(node.value.func) == "rules_like"):
                args = [_dotted(a) for a in node.value.args]
                likes.append((args[0], args[1], args[2:]))
            if not isinstance(node, ast.FunctionDef):
                continue
            for dec in node.decorator_list:
                if not isinstance(dec, ast.Call):
                    continue
                kind = _dotted(dec.func)
                kw = {k.arg: k.value.value for k in dec.keywords
                      if isinstance(k.value, ast.Constant)}
                if kind == "elementwise":
                    for key, value in kw.items():
                        if key.rstrip("_") == "jax":  # named under jax: "numpy.sin"
                            reverse.add("jax." + value)
                            forward.add("jax." + value)
                elif kind in ("adjoint", "tangent_"):
                    name = _dotted(dec.args[0])
                    every[kind].add(name)
                    if name.startswith("jax."):
                        (reverse if kind == "adjoint" else forward).add(name)
    for src, dst, names in likes:
        if not dst.startswith("jax."):
            continue  # another library's (keras.ops: tests/keras)
        for n in names:
            if src + "." + n in every["adjoint"]:
                reverse.add(dst + "." + n)
            if src + "." + n in every["tangent_"]:
                forward.add(dst + "." + n)
    return reverse, forward


def control_flow_templates():
    """The jax names with a `@control_flow` template in the rule files."""
    names = set()
    for fname in sorted(os.listdir(BACKENDS)):
        if fname.endswith(".py"):
            with open(os.path.join(BACKENDS, fname)) as f:
                tree = ast.parse(f.read())
            for node in tree.body:
                for dec in getattr(node, "decorator_list", []):
                    if isinstance(dec, ast.Call) and _dotted(dec.func) == "control_flow":
                        names.update(_dotted(a) for a in dec.args)
    return {n for n in names if n.startswith("jax.")}


# The functions (tests/jax/control_flow.py) and the cases that check them.
with open(os.path.join(HERE, "control_flow.py")) as _f:
    CONTROL_FLOW = _f.read()

# name, wrt, shapes of the arguments (a float for a Python number), jax names covered.
CONTROL_FLOW_CASES = [
    ("fori", (0,), [(3,)], {"jax.lax.fori_loop"}),
    ("fori_nested", (0, 1), [(3,), ()], {"jax.lax.fori_loop"}),
    ("fori_lambda", (0,), [(3,)], {"jax.lax.fori_loop"}),
    ("fori_partial", (0,), [(3,)], {"jax.lax.fori_loop"}),
    ("fori_partial_bound", (0, 1), [(3,), ()], {"jax.lax.fori_loop"}),
    ("while_", (0,), [(3,)], {"jax.lax.while_loop"}),
    ("cond", (0, 1), [(3,), (3,)], {"jax.lax.cond"}),
    ("cond_lambda", (0,), [(2, 2)], {"jax.lax.cond"}),
    ("scan", (0, 1), [(3,), (4, 3)], {"jax.lax.scan"}),
    ("scan_reverse", (0, 1), [(3,), (3, 3)], {"jax.lax.scan"}),
    ("scan_length", (0,), [(2,)], {"jax.lax.scan"}),
    ("scan_tree", (0, 1, 2), [(3,), (2, 3), (2, 3)], {"jax.lax.scan"}),
]


# --------------------------------------------------------------------- checking

# Rules whose derivatives are also run under jax.jit (tracers: no float(), no in-place
# writes) for every catalog entry and compared with the untraced result.
TRACED = ("jax.numpy.linalg.",)


def _tuple(grads, n):
    return (grads,) if n == 1 else grads


def sample(rng, shape, domain):
    if domain == "pos":
        v = rng.uniform(0.3, 2.0, size=shape)
    elif domain == "unit":
        v = rng.uniform(-0.85, 0.85, size=shape)
    elif domain == "gt1":
        v = rng.uniform(1.3, 3.0, size=shape)
    else:
        v = rng.normal(size=shape)
        v = np.where(np.abs(v) < 0.05, v + 0.3, v)  # away from kinks at 0
    if shape == ():
        return float(v)
    return jnp.asarray(v)


def like(rng, x):
    if isinstance(x, float):
        return float(rng.normal())
    return jnp.asarray(rng.normal(size=x.shape))


def vdot(a, b):
    return float(jnp.sum(jnp.asarray(a) * jnp.asarray(b)))


def close(a, b, rtol, atol):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if a.shape != b.shape:
        return False
    return bool(np.all(np.abs(a - b) <= atol + rtol * np.abs(b)))


def same_kind(g, x):
    """Why the gradient (or tangent) `g` is not shaped and typed like `x`, or None."""
    if isinstance(x, float):
        if jnp.ndim(g) != 0 or jnp.asarray(g).dtype != jnp.float64:
            return "%s %s for a float" % (type(g).__name__, jnp.shape(g))
        return None
    if isinstance(g, float) and x.shape == () and x.dtype == jnp.float64:
        return None  # a 0-d result of Python-float inputs: its tangent may be a float
    if not isinstance(g, jax.Array):
        return "a %s for a jax.Array" % type(g).__name__
    if g.shape != x.shape or g.dtype != x.dtype:
        return "%s %s for %s %s" % (g.dtype, g.shape, x.dtype, x.shape)
    return None


def shifted(args, direction, h):
    return [(x + h * v) if isinstance(x, float) else x + h * v for x, v in zip(args, direction)]


class Checker:
    def __init__(self, outdir):
        self.outdir = outdir
        self.failures = []
        self.checked_reverse = set()
        self.checked_forward = set()
        self.checked_only = set()
        self.cases = 0
        self.counter = 0

    def fail(self, what):
        self.failures.append(what)
        print("FAIL", what)

    def module(self, body):
        self.counter += 1
        name = "jaxcat_%d" % self.counter
        path = os.path.join(self.outdir, name + ".py")
        with open(path, "w") as f:
            f.write(HEADER + "\n\n" + body)
        import importlib
        if self.outdir not in sys.path:
            sys.path.insert(0, self.outdir)
        return importlib.import_module(name)

    def entry(self, rule, expr, specs, rng):
        params = ["a", "b"][:len(specs)]
        mod = self.module("def f(%s):\n    return %s\n" % (", ".join(params), expr))
        f = mod.f
        args = [sample(rng, s, d) for s, d in specs]
        wrt = tuple(range(len(args)))
        label = "%s: %s at %s" % (rule, expr, [s for s, _ in specs])
        y = f(*args)
        seed = like(rng, y if not isinstance(y, float) else 1.0) if jnp.ndim(y) else 1.0 + rng.random()
        direction = [like(rng, x) for x in args]
        h = 1e-6
        fd = (np.asarray(f(*shifted(args, direction, h)))
              - np.asarray(f(*shifted(args, direction, -h)))) / (2 * h)
        # reverse
        try:
            df = tangent.grad(f, wrt=wrt)
            grads = df(*args, seed)
            if len(wrt) == 1:
                grads = (grads,)
            _, pullback = jax.vjp(f, *args)
            ref = pullback(jnp.asarray(seed, dtype=jnp.float64))
            ok = all(close(g, r, 1e-9, 1e-10) for g, r in zip(grads, ref))
            kinds = ["gradient %d: %s" % (i, why) for i, why in
                     enumerate(same_kind(g, x) for g, x in zip(grads, args)) if why]
            # Inactive arguments get no gradient: with respect to one of several
            # arguments the result is that one gradient (once per entry).
            if len(args) > 1 and (rule, expr) not in self.checked_only:
                self.checked_only.add((rule, expr))
                for i in range(len(args)):
                    only = tangent.grad(f, wrt=(i,))(*args, seed)
                    why = "a tuple" if isinstance(only, tuple) else same_kind(only, args[i])
                    if why is None and not close(only, grads[i], 1e-12, 1e-14):
                        why = "not the full gradient's"
                    if why:
                        kinds.append("wrt=(%d,) gives %s" % (i, why))
            if kinds:
                self.fail("reverse gradients: %s: %s" % (label, "; ".join(kinds)))
            fd_ok = abs(sum(vdot(g, v) for g, v in zip(grads, direction))
                        - vdot(seed, fd)) <= 1e-5 * (1 + abs(vdot(seed, fd)))
            if not ok:
                self.fail("reverse vs jax.vjp: %s: %s vs %s" % (label, grads, ref))
            elif not fd_ok:
                self.fail("reverse vs finite differences: %s" % label)
            elif rule.startswith(TRACED) and not all(
                    close(g, r, 1e-10, 1e-12) for g, r in zip(
                        _tuple(jax.jit(df)(*args, seed), len(wrt)), grads)):
                self.fail("reverse under jax.jit differs: %s" % label)
            else:
                self.checked_reverse.add(rule)
        except Exception as e:  # report and go on: one summary line at the end
            self.fail("reverse raised: %s: %s: %s" % (label, type(e).__name__, e))
        # forward
        try:
            jf = tangent.autodiff(f, wrt=wrt, mode="forward")
            t = jf(*args, *direction)
            _, ref = jax.jvp(f, tuple(args), tuple(
                jnp.asarray(v, dtype=jnp.float64) for v in direction))
            why = same_kind(t, y) if isinstance(y, (float, jax.Array)) else None
            if why:
                self.fail("forward tangent: %s: %s" % (label, why))
            elif not close(t, ref, 1e-9, 1e-10):
                self.fail("forward vs jax.jvp: %s: %s vs %s" % (label, t, ref))
            elif not close(t, fd, 1e-5, 1e-6):
                self.fail("forward vs finite differences: %s" % label)
            elif rule.startswith(TRACED) and not close(
                    jax.jit(jf)(*args, *direction), t, 1e-10, 1e-12):
                self.fail("forward under jax.jit differs: %s" % label)
            else:
                self.checked_forward.add(rule)
        except Exception as e:
            self.fail("forward raised: %s: %s: %s" % (label, type(e).__name__, e))
        self.cases += 1

    # ------------------------------------------------------------- compile='jax'

    def compiled(self, rng):
        mod = self.module(
            "def loss(w, x):\n"
            "    h = jnp.tanh(x @ w)\n"
            "    for i in range(3):\n"
            "        h = jax.nn.softplus(h) * 0.5 + h\n"
            "    return jnp.sum(h * h)\n"
            "\n\n"
            "def branchy(x):\n"
            "    y = jnp.sin(x)\n"
            "    if jnp.sum(y) > 0.0:\n"
            "        y = y * 2.0\n"
            "    return jnp.sum(y)\n")
        w = jnp.asarray(rng.normal(size=(3, 4)))
        x = jnp.asarray(rng.normal(size=(2, 3)))
        plain = tangent.grad(mod.loss, compile="python")(w, x)
        jitted = tangent.grad(mod.loss, compile="jax")
        for label, got in (("compile='jax'", jitted(w, x)),
                           ("compile='jax' under jax.jit", jax.jit(jitted)(w, x)),
                           ("compile='python' under jax.jit",
                            jax.jit(tangent.grad(mod.loss, compile="python"))(w, x))):
            if not close(got, plain, 1e-12, 1e-12):
                self.fail("%s differs from the uncompiled gradient" % label)
        ref = jax.grad(mod.loss)(w, x)
        if not close(plain, ref, 1e-9, 1e-10):
            self.fail("compile='python' loss gradient differs from jax.grad")
        tw = jnp.asarray(rng.normal(size=w.shape))
        fwd = tangent.autodiff(mod.loss, mode="forward", compile="jax")(w, x, tw)
        ref_t = jax.jvp(lambda w_: mod.loss(w_, x), (w,), (tw,))[1]
        if not close(fwd, ref_t, 1e-9, 1e-10):
            self.fail("compile='jax' forward mode differs from jax.jvp")
        # An untraceable primal: the error names the reason and the user's line.
        try:
            tangent.grad(mod.branchy, compile="jax")(jnp.asarray(rng.normal(size=(3,))))
            self.fail("compile='jax' traced a Python `if` on a traced value")
        except tangent.TangentError as e:
            text = str(e)
            with open(mod.__file__) as f:
                lineno = f.read().splitlines().index("    if jnp.sum(y) > 0.0:") + 1
            line = "%s:%d:" % (mod.__file__, lineno)
            if ("cannot be traced" not in text or line not in text
                    or "if jnp.sum(y) > 0.0:" not in text
                    or "TracerBoolConversionError" not in text):
                self.fail("untraceable error lacks reason or line (%s):\n%s" % (line, text))
        # Without jit the same function differentiates (concrete values).
        xb = jnp.asarray([0.5, 1.0, 1.5])
        try:
            tangent.autodiff(mod.loss, motion="split", compile="jax")
            self.fail("compile='jax' accepted motion='split' (it would not be jitted)")
        except tangent.TangentError as e:
            if "motion='joint'" not in str(e):
                self.fail("compile='jax' with split motion: unclear error %s" % e)
        if not close(tangent.grad(mod.branchy, compile="python")(xb), 2.0 * jnp.cos(xb),
                     1e-12, 1e-12):
            self.fail("branchy gradient (uncompiled) is wrong")

    def compiled_linalg(self, rng):
        """compile='jax' through jax.numpy.linalg: the helpers trace under jax.jit."""
        mod = self.module(
            "def linalg_loss(a, b):\n"
            "    m = a @ a.T + 3.0 * jnp.eye(3)\n"
            "    x = jnp.linalg.solve(m, b)\n"
            "    sign, logdet = jnp.linalg.slogdet(m)\n"
            "    l = jnp.linalg.cholesky(m)\n"
            "    w = jnp.linalg.eigvalsh(m)\n"
            "    s = jnp.linalg.svd(a, compute_uv=False)\n"
            "    return (jnp.sum(x * x) + sign * logdet + jnp.linalg.norm(l, 'nuc')\n"
            "            + jnp.sum(w * w) + jnp.sum(jnp.linalg.inv(m)) * jnp.linalg.det(m)\n"
            "            + jnp.sum(s))\n")
        a = jnp.asarray(rng.normal(size=(3, 3)))
        b = jnp.asarray(rng.normal(size=(3, 2)))
        ref = jax.jit(jax.grad(mod.linalg_loss, argnums=(0, 1)))(a, b)
        jitted = tangent.grad(mod.linalg_loss, wrt=(0, 1), compile="jax")
        for label, got in (("compile='jax'", jitted(a, b)),
                           ("compile='jax' under jax.jit", jax.jit(jitted)(a, b)),
                           ("compile='python' under jax.jit",
                            jax.jit(tangent.grad(mod.linalg_loss, wrt=(0, 1),
                                                 compile="python"))(a, b))):
            if not all(close(g, r, 1e-9, 1e-10) for g, r in zip(got, ref)):
                self.fail("linalg %s differs from jax.jit(jax.grad): %s vs %s" % (label, got, ref))
        ta = jnp.asarray(rng.normal(size=(3, 3)))
        tb = jnp.asarray(rng.normal(size=(3, 2)))
        fwd = tangent.autodiff(mod.linalg_loss, wrt=(0, 1), mode="forward",
                               compile="jax")(a, b, ta, tb)
        ref_t = jax.jit(lambda a_, b_, ta_, tb_: jax.jvp(
            mod.linalg_loss, (a_, b_), (ta_, tb_))[1])(a, b, ta, tb)
        if not close(fwd, ref_t, 1e-9, 1e-10):
            self.fail("linalg compile='jax' forward mode differs from jax.jvp: %s vs %s"
                      % (fwd, ref_t))
        # float32 arrays keep float32 derivatives (as jax.grad / jax.jvp give them).
        mod32 = self.module(
            "def linalg_f32(a):\n"
            "    m = a @ a.T + 3.0 * jnp.eye(3, dtype=jnp.float32)\n"
            "    v = jnp.linalg.eigh(m)[1]\n"
            "    q, r = jnp.linalg.qr(a)\n"
            "    u, s, vt = jnp.linalg.svd(a)\n"
            "    return (jnp.linalg.norm(a, 1) + jnp.linalg.norm(a[0], jnp.inf)\n"
            "            + jnp.sum(v * v[0]) + jnp.sum(r * r) + jnp.sum(u * u[0] * s)\n"
            "            + jnp.sum(jnp.linalg.cholesky(m)) + jnp.sum(jnp.linalg.solve(m, a[0]))\n"
            "            + jnp.linalg.slogdet(m)[1] + jnp.sum(jnp.linalg.eigvalsh(m) ** 2))\n")
        a32 = a.astype(jnp.float32)
        ta32 = ta.astype(jnp.float32)
        got = tangent.grad(mod32.linalg_f32)(a32)
        got_t = jnp.asarray(tangent.autodiff(mod32.linalg_f32, mode="forward")(a32, ta32))
        ref = jax.grad(mod32.linalg_f32)(a32)
        ref_t = jax.jvp(mod32.linalg_f32, (a32,), (ta32,))[1]
        if (got.dtype, got_t.dtype) != (ref.dtype, ref_t.dtype) or ref.dtype != jnp.float32:
            self.fail("float32 linalg: derivatives in %s / %s, jax's in %s / %s"
                      % (got.dtype, got_t.dtype, ref.dtype, ref_t.dtype))
        elif not close(got, ref, 1e-3, 1e-4) or not close(got_t, ref_t, 1e-3, 1e-4):
            self.fail("float32 linalg differs from jax.grad/jax.jvp")
        # symmetrize_input=False reads one triangle only: an error, never a gradient.
        mod = self.module(
            "def one_triangle(a):\n"
            "    return jnp.sum(jnp.linalg.eigvalsh(a, symmetrize_input=False))\n"
            "\n\n"
            "def one_triangle_cholesky(a):\n"
            "    return jnp.sum(jnp.linalg.cholesky(a, symmetrize_input=False))\n")
        spd = a @ a.T + 3.0 * jnp.eye(3)
        for f in (mod.one_triangle, mod.one_triangle_cholesky):
            for mode in ("reverse", "forward"):
                try:
                    if mode == "reverse":
                        tangent.grad(f)(spd)
                    else:
                        tangent.autodiff(f, mode="forward")(spd, ta)
                    self.fail("%s (%s) with symmetrize_input=False was differentiated"
                              % (f.__name__, mode))
                except Exception as e:
                    if "symmetrize_input=True only" not in str(e):
                        self.fail("%s (%s): unclear error %s: %s"
                                  % (f.__name__, mode, type(e).__name__, e))
        self.cases += 1

    # -------------------------------------------------------------- end to end

    def end_to_end(self, rng):
        mod = self.module(
            "from jax import nn\n\n\n"
            "def mlp_loss(w1, b1, w2, x, labels):\n"
            "    h = nn.gelu(x @ w1 + b1)\n"
            "    h = jax.nn.relu(h) + 0.1 * jax.nn.sigmoid(h)\n"
            "    logits = h @ w2\n"
            "    logp = jax.nn.log_softmax(logits, axis=-1)\n"
            "    return -jnp.mean(jnp.sum(logp * labels, axis=1))\n"
            "\n\n"
            "def broadcast(a, b):\n"
            "    c = a * b + jnp.exp(b) / (1.0 + a * a)\n"
            "    return jnp.sum(c * c) + jnp.max(c)\n"
            "\n\n"
            "def loop(x, n):\n"
            "    acc = 0.0\n"
            "    for i in range(n):\n"
            "        acc = acc + jnp.sum(jnp.sin(x * (i + 1.0)))\n"
            "        x = x * 0.9 + jnp.cos(x)\n"
            "    return acc\n")
        w1 = jnp.asarray(rng.normal(size=(4, 5)))
        b1 = jnp.asarray(rng.normal(size=(5,)))
        w2 = jnp.asarray(rng.normal(size=(5, 3)))
        x = jnp.asarray(rng.normal(size=(6, 4)))
        labels = jax.nn.one_hot(jnp.asarray([0, 1, 2, 1, 0, 2]), 3)
        cases = [
            ("mlp_loss", mod.mlp_loss, (w1, b1, w2, x, labels), (0, 1, 2)),
            ("broadcast", mod.broadcast, (jnp.asarray(rng.normal(size=(2, 3))),
                                          jnp.asarray(rng.normal(size=(3,)))), (0, 1)),
            ("loop", mod.loop, (jnp.asarray(rng.normal(size=(3,))), 4), (0,)),
        ]
        for name, f, args, wrt in cases:
            got = tangent.grad(f, wrt=wrt)(*args)
            got = got if isinstance(got, tuple) else (got,)
            ref = jax.grad(f, argnums=wrt)(*args)
            if not all(close(g, r, 1e-9, 1e-10) for g, r in zip(got, ref)):
                self.fail("end to end %s: reverse differs from jax.grad" % name)
            # compile='jax': a Python int argument (the loop count) is static.
            gj = tangent.grad(f, wrt=wrt, compile="jax")(*args)
            gj = gj if isinstance(gj, tuple) else (gj,)
            if not all(close(g, r, 1e-9, 1e-10) for g, r in zip(gj, ref)):
                self.fail("end to end %s: compile='jax' differs from jax.grad" % name)
            tangents = [like(rng, args[i]) for i in wrt]
            t = tangent.autodiff(f, wrt=wrt, mode="forward")(*args, *tangents)

            def along(*xs):
                full = list(args)
                for i, v in zip(wrt, xs):
                    full[i] = v
                return f(*full)
            ref_t = jax.jvp(along, tuple(args[i] for i in wrt), tuple(tangents))[1]
            if not close(t, ref_t, 1e-9, 1e-10):
                self.fail("end to end %s: forward differs from jax.jvp" % name)
            self.cases += 1


    def control_flow(self, rng):
        """jax.lax control flow through its templates, every mode, against jax."""
        mod = self.module(CONTROL_FLOW)
        covered = set()
        for name, wrt, shapes, names in CONTROL_FLOW_CASES:
            f = getattr(mod, name)
            for trial in range(2):
                args = [float(rng.normal()) if s == () else jnp.asarray(rng.normal(size=s))
                        for s in shapes]
                if trial:  # the other branch of a cond, the other sign elsewhere
                    args = [-a for a in args]
                tangents = [like(rng, args[i]) for i in wrt]

                def along(*xs):
                    full = list(args)
                    for i, v in zip(wrt, xs):
                        full[i] = v
                    return f(*full)
                primals = tuple(args[i] for i in wrt)
                ref_t = jax.jvp(along, primals, tuple(tangents))[1]
                ok = True
                for motion in ("joint", "split"):
                    got = tangent.autodiff(f, wrt=wrt, motion=motion)(*args)
                    got = got if isinstance(got, tuple) else (got,)
                    if "jax.lax.while_loop" in names:
                        # jax refuses reverse mode through while_loop: <grad, t> = jvp.
                        dot = sum(vdot(g, t) for g, t in zip(got, tangents))
                        good = close(dot, ref_t, 1e-9, 1e-10)
                    else:
                        ref = jax.grad(f, argnums=wrt)(*args)
                        good = all(close(g, r, 1e-9, 1e-10) for g, r in zip(got, ref))
                    if not good:
                        ok = False
                        self.fail("control flow %s: reverse (%s) differs from jax" % (name, motion))
                t = tangent.autodiff(f, wrt=wrt, mode="forward")(*args, *tangents)
                if not close(t, ref_t, 1e-9, 1e-10):
                    ok = False
                    self.fail("control flow %s: forward differs from jax.jvp" % name)
                # Second order along the first argument's tangent: the jvp of the
                # gradient against jax's.
                if wrt[0] == 0 and shapes[0] != () and "jax.lax.while_loop" not in names:
                    g = tangent.grad(f, wrt=(0,))
                    v = tangents[0]
                    hv = jax.jvp(lambda a: g(a, *args[1:]), (args[0],), (v,))[1]
                    ref_hv = jax.jvp(lambda a: jax.grad(f)(a, *args[1:]), (args[0],),
                                     (v,))[1]
                    if not close(hv, ref_hv, 1e-8, 1e-9):
                        ok = False
                        self.fail("control flow %s: jvp of the gradient differs" % name)
                if ok:
                    covered |= names
                self.cases += 1
        for missing in sorted(control_flow_templates() - covered):
            self.fail("control-flow template without a passing case: %s" % missing)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tangent-jax-")
    os.makedirs(outdir, exist_ok=True)
    rng = np.random.default_rng(20240608)
    checker = Checker(outdir)
    reverse_rules, forward_rules = jax_rules()
    listed = set(rule for rule, _, _ in CATALOG)
    for rule in sorted((reverse_rules | forward_rules) - listed):
        checker.fail("rule without a catalog entry: %s" % rule)
    for rule, expr, inputs in CATALOG:
        for specs in inputs:
            checker.entry(rule, expr, specs, rng)
    checker.compiled(rng)
    checker.compiled_linalg(rng)
    checker.end_to_end(rng)
    checker.control_flow(rng)
    rev = len(checker.checked_reverse & reverse_rules)
    fwd = len(checker.checked_forward & forward_rules)
    print("jax catalog: %d cases; %d of %d reverse rules and %d of %d forward rules "
          "match jax.vjp/jax.jvp and finite differences; %d failures"
          % (checker.cases, rev, len(reverse_rules), fwd, len(forward_rules),
             len(checker.failures)))
    if rev != len(reverse_rules) or fwd != len(forward_rules) or checker.failures:
        sys.exit(1)


if __name__ == "__main__":
    main()
