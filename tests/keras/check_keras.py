"""The Keras 3 op catalog: every rule of backends/keras.py, every name its `rules_like`
gives numpy's rules, and every `keras=` name of backends/elementwise.py, checked by
tests/common/op_catalog.py on the backend KERAS_BACKEND selects (jax, tensorflow,
torch) against that backend's own autodiff (jax.vjp/jvp, tf.GradientTape and
ForwardAccumulator, torch.autograd) and central finite differences, in float64 and
float32, with second order. Then seeds, compile= and the errors of bad input. Fails
when a rule has no entry, or when a gradient is not a tensor of the backend.

Run: KERAS_BACKEND=jax tangent run --python PYTHON tests/keras/check_keras.py [OUTDIR].
Exits non-zero on failure.
"""
import ast
import os
import re
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
BACKEND = os.environ.get("KERAS_BACKEND", "jax")
os.environ["KERAS_BACKEND"] = BACKEND
if BACKEND == "jax":
    import jax  # noqa: E402
    jax.config.update("jax_enable_x64", True)  # float64 tensors
import numpy  # noqa: E402
import keras  # noqa: E402
from keras import ops as kops  # noqa: E402

# On jax and torch keras computes float64 inputs in float32 wherever it promotes dtypes
# (sin, var, arctan2, matmul...; keras.src.backend.common.dtypes.BIT64_TO_BIT32_DTYPE).
# The float64 pass exists so finite differences can check the rules tightly, so here
# keras keeps float64 as it does on tensorflow; the float32 pass runs keras as shipped.
from keras.src.backend.common import dtypes as _keras_dtypes  # noqa: E402
_keras_dtypes.BIT64_TO_BIT32_DTYPE["float64"] = "float64"

import tangent  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = os.path.join(HERE, "..", "..", "backends")
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import op_catalog  # noqa: E402


class Keras(op_catalog.Library):
    """Tensors of keras's backend; the reference derivatives are that backend's own."""
    dtypes = ("float64", "float32")
    header = ("import keras\nfrom keras import ops as kops\n\n"
              "SUM = kops.sum\n"
              "LABELS = kops.convert_to_tensor([0, 3, 1])\n"
              "BINARY = kops.convert_to_tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]])\n")

    def sample(self, rng, shape, domain, dtype):
        return self.from_numpy(op_catalog.domain_values(rng, shape, domain), dtype)

    def from_numpy(self, a, dtype):
        return kops.convert_to_tensor(numpy.asarray(a), dtype=dtype)

    def to_numpy(self, x):
        return kops.convert_to_numpy(x)

    def describe(self, x):
        return (tuple(kops.shape(x)), keras.backend.standardize_dtype(x.dtype),
                str(getattr(x, "device", "")))


class OnJax(Keras):
    name = "jax.vjp"

    def is_tensor(self, x):
        return isinstance(x, jax.Array)

    def vjp(self, f, args, seed):
        _, pull = jax.vjp(f, *args)
        return list(pull(seed))

    def jvp(self, f, args, directions):
        return jax.jvp(f, tuple(args), tuple(directions))[1]

    def hvp(self, s, args, v):
        first = jax.grad(lambda x: s(x, *args[1:]))
        return jax.jvp(first, (args[0],), (v,))[1]


class OnTensorFlow(Keras):
    name = "tf.GradientTape"

    def __init__(self):
        import tensorflow as tf
        self.tf = tf

    def is_tensor(self, x):
        return isinstance(x, self.tf.Tensor)

    def vjp(self, f, args, seed):
        tf = self.tf
        with tf.GradientTape() as tape:
            tape.watch(args)
            y = f(*args)
        grads = tape.gradient(y, args, output_gradients=seed)
        return [tf.zeros_like(x) if g is None else tf.convert_to_tensor(g)
                for g, x in zip(grads, args)]

    def jvp(self, f, args, directions):
        tf = self.tf
        try:
            with tf.autodiff.ForwardAccumulator(args, directions) as acc:
                y = f(*args)
        except LookupError:  # an op TensorFlow has no forward mode for
            return None
        t = acc.jvp(y)
        return tf.zeros_like(y) if t is None else t

    def hvp(self, s, args, v):
        tf = self.tf
        x = args[0]
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = s(x, *args[1:])
            g = inner.gradient(y, x)
            g = None if g is None else tf.convert_to_tensor(g)
        try:
            hv = outer.gradient(g, x, output_gradients=v) if g is not None else None
        except LookupError:
            return None
        return tf.zeros_like(x) if hv is None else hv


class OnTorch(Keras):
    name = "torch.autograd"

    def __init__(self):
        import torch
        self.torch = torch

    def is_tensor(self, x):
        return isinstance(x, self.torch.Tensor)

    def _leaves(self, args):
        return [x.detach().clone().requires_grad_(True) for x in args]

    def vjp(self, f, args, seed):
        torch = self.torch
        xs = self._leaves(args)
        y = f(*xs)
        grads = torch.autograd.grad(y, xs, seed, allow_unused=True)
        return [torch.zeros_like(x) if g is None else g.detach() for g, x in zip(grads, args)]

    # torch.autograd.functional's jvp and hvp differentiate a backward pass; an op whose
    # backward has no derivative in torch (hardsigmoid) gives no reference (None).
    def jvp(self, f, args, directions):
        try:
            return self.torch.autograd.functional.jvp(f, tuple(args), tuple(directions))[1]
        except RuntimeError as e:
            if "is not implemented" not in str(e):
                raise
            return None

    def hvp(self, s, args, v):
        rest = args[1:]
        try:
            return self.torch.autograd.functional.hvp(lambda x: s(x, *rest), args[0], v)[1]
        except RuntimeError as e:
            if "is not implemented" not in str(e):
                raise
            return None


LIBRARIES = {"jax": OnJax, "tensorflow": OnTensorFlow, "torch": OnTorch}

unary, binary = op_catalog.unary, op_catalog.binary

AXES = [("None", "False"), ("0", "False"), ("1", "True"), ("-1", "False"), ("(0, 1)", "True")]



DOMAINS = {"tan": "unit", "arcsin": "unit", "arccos": "unit", "arctanh": "unit",
           "arccosh": "gt1", "log": "pos", "log1p": "pos", "log2": "pos", "log10": "pos",
           "sqrt": "pos", "rsqrt": "pos", "reciprocal": "pos", "cbrt": "pos"}


def elementwise_names():
    with open(os.path.join(BACKENDS, "elementwise.py")) as f:
        return sorted(set(re.findall(r'\bkeras_*="ops\.(\w+)"', f.read())))


def rules_like_names():
    """The keras.ops names backends/keras.py gives numpy's rules (`linalg.inv`...)."""
    with open(os.path.join(BACKENDS, "keras.py")) as f:
        tree = ast.parse(f.read())
    names = []
    for node in tree.body:
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
                and op_catalog.dotted(node.value.func) == "rules_like"):
            names += [op_catalog.dotted(a) for a in node.value.args[2:]]
    return names


EYE3 = "3.0 * kops.eye(3, dtype=a.dtype)"
SPD = "kops.matmul(a, kops.transpose(a)) + %s" % EYE3
K = "keras.ops."

CATALOG = [
    unary(K + n, "kops.%s(a)" % n, DOMAINS.get(n, "any")) for n in elementwise_names()
] + [
    unary(K + "tanh", "kops.tanh(a) * kops.sigmoid(a)", shapes=[(2, 3)]),
    # operators on the backend's tensors
    binary("keras:operator.mul", "a * b"),
    binary("keras:operator.truediv", "a / b", dy="pos", shapes=[((2, 3), (3,))]),
    ("keras:operator.matmul", "a @ b", [[((2, 3), "any"), ((3, 4), "any")]]),
    ("keras:subscript", "a[0] * SUM(a[1:]) + SUM(a[:, 1])", [[((3, 2), "any")]]),
    # two arguments (numpy's rules)
    binary(K + "add", "kops.add(a, b)"),
    binary(K + "subtract", "kops.subtract(a, b)"),
    binary(K + "multiply", "kops.multiply(a, b)"),
    binary(K + "divide", "kops.divide(a, b)", dy="pos"),
    binary(K + "true_divide", "kops.true_divide(a, b)", dy="pos", shapes=[((2, 3), (3,))]),
    binary(K + "power", "kops.power(a, b)", dx="pos"),
    unary(K + "power", "kops.power(a, 3.0)", shapes=[(2, 3)]),
    binary(K + "maximum", "kops.maximum(a, b)"),
    binary(K + "minimum", "kops.minimum(a, b)"),
    binary(K + "arctan2", "kops.arctan2(a, b)"),
    binary(K + "logaddexp", "kops.logaddexp(a, b)"),
    ("keras.ops.where", "kops.where(a > 0.0, a, b)", [[((2, 3), "any"), ((2, 3), "any")],
                                                     [((2, 3), "any"), ((3,), "any")]]),
    ("keras.ops.clip", "kops.clip(a, -0.5, 0.5)", [[((2, 3), "any")]]),
    # reductions
] + [e for name in ("sum", "mean", "max", "min")
       for e in op_catalog.reductions(K + name, "kops." + name, AXES)] + [
    (K + "sum", "kops.sum(a)", [[((3,), "any")]]),
    (K + "sum", "kops.sum(a, 1, True)", [[((2, 3), "any")]]),
    (K + "prod", "kops.prod(a)", [[((2, 3), "any")]]),
    (K + "prod", "kops.prod(a, axis=1, keepdims=True)", [[((2, 3), "any")]]),
    (K + "var", "kops.var(a)", [[((2, 3), "any")]]),
    (K + "var", "kops.var(a, axis=0, keepdims=True)", [[((2, 3), "any")]]),
    (K + "std", "kops.std(a, axis=1)", [[((2, 3), "any")]]),
    (K + "logsumexp", "kops.logsumexp(a, axis=1)", [[((2, 3), "any")]]),
    (K + "logsumexp", "kops.logsumexp(a)", [[((2, 3), "any")]]),
    (K + "cumsum", "kops.cumsum(a, axis=1)", [[((2, 3), "any")]]),
    (K + "cumsum", "kops.cumsum(a)", [[((2, 3), "any")]]),
    # products
    (K + "matmul", "kops.matmul(a, b)", [[((2, 3), "any"), ((3, 4), "any")],
                                         [((2, 2, 3), "any"), ((3, 2), "any")],
                                         [((3,), "any"), ((3, 2), "any")]]),
    (K + "dot", "kops.dot(a, b)", [[((2, 3), "any"), ((3, 4), "any")],
                                   [((3,), "any"), ((3,), "any")]]),
    (K + "outer", "kops.outer(a, b)", [[((3,), "any"), ((2,), "any")]]),
    (K + "einsum", "kops.einsum('ij,jk->ik', a, b)", [[((2, 3), "any"), ((3, 4), "any")]]),
    (K + "einsum", "kops.einsum('ii->i', a)", [[((3, 3), "any")]]),
    (K + "trace", "kops.trace(a)", [[((3, 3), "any")]]),
    # shape functions
    (K + "reshape", "kops.reshape(a, (3, 2))", [[((2, 3), "any")]]),
    (K + "reshape", "kops.reshape(a, [-1])", [[((2, 3), "any")]]),
    (K + "transpose", "kops.transpose(a)", [[((2, 3), "any")]]),
    (K + "transpose", "kops.transpose(a, (1, 2, 0))", [[((2, 3, 4), "any")]]),
    (K + "expand_dims", "kops.expand_dims(a, 1) * b", [[((3,), "any"), ((3, 2), "any")]]),
    (K + "squeeze", "kops.squeeze(a)", [[((2, 1, 3), "any")]]),
    (K + "squeeze", "kops.squeeze(a, axis=1)", [[((2, 1, 3), "any")]]),
    (K + "broadcast_to", "kops.broadcast_to(a, (2, 3))", [[((3,), "any")], [((2, 1), "any")]]),
    (K + "concatenate", "kops.concatenate([a, b], 0)", [[((2,), "any"), ((3,), "any")]]),
    (K + "concatenate", "kops.concatenate([a, b, a], axis=1)",
     [[((2, 3), "any"), ((2, 2), "any")]]),
    (K + "stack", "kops.stack([a, b])", [[((3,), "any"), ((3,), "any")]]),
    (K + "stack", "kops.stack([a, b], axis=1)", [[((2, 3), "any"), ((2, 3), "any")]]),
    (K + "tile", "kops.tile(a, (2, 3))", [[((2, 3), "any")]]),
    (K + "flip", "kops.flip(a, 1)", [[((2, 3), "any")]]),
    (K + "flip", "kops.flip(a)", [[((2, 3), "any")]]),
    (K + "swapaxes", "kops.swapaxes(a, 0, 2)", [[((2, 3, 4), "any")]]),
    (K + "moveaxis", "kops.moveaxis(a, 0, -1)", [[((2, 3, 4), "any")]]),
    (K + "take", "kops.take(a, kops.convert_to_tensor([2, 0, 2]), axis=0)",
     [[((3, 2), "any")]]),
    (K + "take", "kops.take(a, kops.convert_to_tensor([1, 1]), axis=1)", [[((2, 3), "any")]]),
    (K + "take", "kops.take(a, kops.convert_to_tensor([[0, 5], [3, 3]]))",
     [[((2, 3), "any")]]),
    (K + "cast", "kops.cast(a, 'float64') * 2.0", [[((2, 3), "any")]]),
    (K + "convert_to_tensor", "kops.convert_to_tensor(a) * a", [[((3,), "any")]]),
    # keras.ops.nn
    unary(K + "relu", "kops.relu(a)"),
    unary(K + "relu6", "kops.relu6(a * 4.0 + 3.0)"),
    unary(K + "leaky_relu", "kops.leaky_relu(a)"),
    unary(K + "leaky_relu", "kops.leaky_relu(a, negative_slope=0.1)", shapes=[(2, 3)]),
    unary(K + "elu", "kops.elu(a)"),
    unary(K + "elu", "kops.elu(a, alpha=0.5)", shapes=[(2, 3)]),
    unary(K + "selu", "kops.selu(a)"),
    unary(K + "gelu", "kops.gelu(a)"),
    unary(K + "gelu", "kops.gelu(a, approximate=False)"),
    unary(K + "silu", "kops.silu(a)"),
    unary(K + "silu", "kops.swish(a)", shapes=[(2, 3)]),
    unary(K + "softplus", "kops.softplus(a)"),
    unary(K + "softsign", "kops.softsign(a)"),
    unary(K + "log_sigmoid", "kops.log_sigmoid(a)"),
    unary(K + "hard_sigmoid", "kops.hard_sigmoid(a * 4.0)"),
    (K + "softmax", "kops.softmax(a)", [[((3,), "any")], [((2, 3), "any")]]),
    (K + "softmax", "kops.softmax(a, axis=0)", [[((2, 3), "any")]]),
    (K + "log_softmax", "kops.log_softmax(a)", [[((2, 3), "any")]]),
    (K + "log_softmax", "kops.log_softmax(a, axis=0)", [[((2, 3), "any")]]),
    # losses
    (K + "binary_crossentropy", "kops.binary_crossentropy(kops.sigmoid(b), a, from_logits=True)",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    (K + "binary_crossentropy", "kops.binary_crossentropy(0.5 + 0.5 * b, 0.5 + 0.5 * a)",
     [[((2, 3), "unit"), ((2, 3), "unit")]]),
    (K + "categorical_crossentropy",
     "kops.categorical_crossentropy(kops.softmax(b), a, from_logits=True)",
     [[((3, 4), "any"), ((3, 4), "any")]]),
    (K + "categorical_crossentropy", "kops.categorical_crossentropy(b, a, True, axis=0)",
     [[((3, 4), "any"), ((3, 4), "pos")]]),
    (K + "categorical_crossentropy", "kops.categorical_crossentropy(b, a)",
     [[((3, 4), "pos"), ((3, 4), "pos")]]),
    # outputs of keras's own sigmoid/softmax (tensorflow computes these from the logits)
    (K + "binary_crossentropy", "kops.binary_crossentropy(kops.sigmoid(b), kops.sigmoid(a))",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    (K + "categorical_crossentropy",
     "kops.categorical_crossentropy(kops.softmax(b), kops.softmax(a))",
     [[((3, 4), "any"), ((3, 4), "any")]]),
    (K + "sparse_categorical_crossentropy",
     "kops.sparse_categorical_crossentropy(LABELS, kops.softmax(a * 3.0))", [[((3, 4), "any")]]),
    (K + "sparse_categorical_crossentropy",
     "kops.sparse_categorical_crossentropy(LABELS, a, from_logits=True)", [[((3, 4), "any")]]),
    (K + "sparse_categorical_crossentropy", "kops.sparse_categorical_crossentropy(LABELS, a)",
     [[((3, 4), "pos")]]),
    # keras.losses / keras.metrics (written out as keras.ops: backends/keras.py)
] + [
    ("keras.%s.%s" % (ns, name), "keras.%s.%s(%s)" % (ns, name, args), [[
        ((2, 3), dp), ((2, 3), dt)]])
    for ns in ("losses", "metrics")
    for name, args, dp, dt in [
        ("mean_squared_error", "b, a", "any", "any"),
        ("mean_absolute_error", "b, a", "any", "any"),
        ("mean_absolute_percentage_error", "b, a", "any", "pos"),
        ("mean_squared_logarithmic_error", "b, a", "pos", "pos"),
        ("huber", "b, a * 2.0", "any", "any"),
        ("log_cosh", "b, a", "any", "any"),
        ("kl_divergence", "kops.softmax(b), kops.softmax(a)", "any", "any"),
        ("poisson", "b, a", "pos", "any"),
        ("binary_crossentropy", "0.5 + 0.5 * b, 0.5 + 0.5 * a", "unit", "unit"),
        ("categorical_crossentropy", "kops.softmax(b), kops.softmax(a)", "any", "any"),
        ("hinge", "b, a", "any", "any"),
        ("squared_hinge", "b, a", "any", "any"),
    ]
] + [
    ("keras.losses.cosine_similarity", "keras.losses.cosine_similarity(b, a)",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("keras.losses.cosine_similarity", "keras.losses.cosine_similarity(b, a, axis=0)",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("keras.losses.huber", "keras.losses.huber(b, a, delta=0.5)",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("keras.losses.hinge", "keras.losses.hinge(BINARY, a)", [[((2, 3), "any")]]),
    ("keras.losses.squared_hinge", "keras.losses.squared_hinge(BINARY, a)",
     [[((2, 3), "any")]]),
    ("keras.losses.binary_crossentropy",
     "keras.losses.binary_crossentropy(b, a, from_logits=True, label_smoothing=0.1)",
     [[((2, 3), "any"), ((2, 3), "unit")]]),
    ("keras.losses.categorical_crossentropy",
     "keras.losses.categorical_crossentropy(kops.softmax(b), a, from_logits=True, "
     "label_smoothing=0.2)", [[((3, 4), "any"), ((3, 4), "any")]]),
    ("keras.losses.sparse_categorical_crossentropy",
     "keras.losses.sparse_categorical_crossentropy(LABELS, a, from_logits=True)",
     [[((3, 4), "any")]]),
    ("keras.metrics.sparse_categorical_crossentropy",
     "keras.metrics.sparse_categorical_crossentropy(LABELS, kops.softmax(a))",
     [[((3, 4), "any")]]),
] + [
    # keras.activations (written out as keras.ops: backends/keras.py)
    unary("keras.activations." + name, "keras.activations.%s(%s)" % (name, arg),
          shapes=[(2, 3)])
    for name, arg in [
        ("relu", "a"), ("leaky_relu", "a"), ("relu6", "a * 4.0"), ("softmax", "a"),
        ("log_softmax", "a"), ("elu", "a"), ("selu", "a"), ("softplus", "a"),
        ("softsign", "a"), ("silu", "a"), ("swish", "a"), ("gelu", "a"), ("tanh", "a"),
        ("sigmoid", "a"), ("exponential", "a"), ("hard_sigmoid", "a * 4.0"),
        ("hard_silu", "a * 4.0"), ("hard_swish", "a * 4.0"), ("log_sigmoid", "a"),
        ("linear", "a"), ("mish", "a"), ("tanh_shrink", "a"),
    ]
] + [
    unary("keras.activations.softmax", "keras.activations.softmax(a, axis=0)",
          shapes=[(2, 3)]),
    unary("keras.activations.gelu", "keras.activations.gelu(a, approximate=True)",
          shapes=[(2, 3)]),
    unary("keras.activations.elu", "keras.activations.elu(a, alpha=0.5)", shapes=[(2, 3)]),
    # linear algebra
    unary(K + "linalg.inv", "kops.inv(a + %s)" % EYE3, shapes=[(3, 3)]),
    unary(K + "linalg.det", "kops.det(a)", shapes=[(2, 2), (3, 3)]),
    binary(K + "linalg.solve", "kops.solve(a + %s, b)" % EYE3, shapes=[((3, 3), (3, 2))]),
    unary(K + "linalg.cholesky", "kops.cholesky(%s)" % SPD, shapes=[(3, 3)]),
    unary(K + "linalg.norm", "kops.norm(a)", shapes=[(3,), (2, 3)]),
    unary(K + "linalg.norm", "kops.norm(a, axis=1, keepdims=True)", shapes=[(2, 3)]),
]

# Entries where the backend's own derivative is not the derivative of what it computes:
# checked against finite differences only (expression -> why).
REFERENCE_DIFFERS = {
    # The loss is -sum(labels * log_softmax(logits)); TensorFlow's gradient (softmax -
    # labels) is right only for labels summing to one.
    "kops.categorical_crossentropy(b, a, True, axis=0)": "labels that do not sum to one",
}

TOLERANCE = {
    # TensorFlow's float64 gelu is itself off by ~5e-9 (tests/tensorflow).
    K + "gelu": (1e-7, 1e-8),
    # torch's float64 hardsigmoid backward multiplies by 1/6 rounded to float32 (its
    # gradient is 3e-8 relative off; ours is 1/6; finite differences check ours).
    K + "hard_sigmoid": (1e-7, 1e-8),
    # The same functions through keras.activations (backends/keras.py writes them out).
    "keras.activations.gelu": (1e-7, 1e-8),
    "keras.activations.hard_sigmoid": (1e-7, 1e-8),
}

SECOND_ORDER_SKIP = {}


def keras_rules():
    """(reverse names, forward names) of the keras.ops rules: the templates of
    backends/keras.py, the names its rules_like gives numpy's rules, and the `keras=`
    names of backends/elementwise.py."""
    reverse, forward = op_catalog.template_rules(os.path.join(BACKENDS, "keras.py"))
    for n in rules_like_names() + elementwise_names():
        reverse.add(K + n)
        forward.add(K + n)
    return reverse, forward


# ------------------------------------------------------------ beyond the catalog

def extras(c):
    """Seeds, compile=, the gradient's type and bad input."""
    mod = c.module(
        "def loss(w, x):\n"
        "    h = kops.tanh(kops.matmul(x, w))\n"
        "    for i in range(3):\n"
        "        h = kops.softplus(h) * 0.5 + h\n"
        "    return kops.mean(kops.sum(h * h, axis=1))\n"
        "\n\n"
        "def vector(x):\n"
        "    return kops.tanh(x)\n"
        "\n\n"
        "def unknown(x):\n"
        "    return kops.sum(kops.erfinv(x))\n"
        "\n\n"
        "def with_initial(x):\n"
        "    return kops.max(x, initial=0.0)\n"
        "\n\n"
        "def other_norm(x):\n"
        "    return kops.norm(x, ord=1)\n"
        "\n\n"
        "def softmax_as_logits(x):\n"
        "    p = kops.softmax(x)\n"
        "    return kops.sum(kops.categorical_crossentropy(p, p, from_logits=True))\n")
    lib = c.lib
    w = lib.sample(c.rng, (3, 4), "any", "float64")
    x = lib.sample(c.rng, (2, 3), "any", "float64")
    one = kops.convert_to_tensor(1.0, dtype="float64")
    ref = lib.vjp(mod.loss, [w, x], one)[0]
    g = tangent.grad(mod.loss)(w, x, one)
    if not c.close(g, ref, 1e-9, 1e-10) or c.same_kind(g, w):
        c.fail("tensor seed: gradient differs from %s, or is not like w" % lib.name)
    g = tangent.grad(mod.loss)(w, x)
    if not c.close(g, ref, 1e-9, 1e-10):
        c.fail("default seed: gradient differs from %s" % lib.name)
    w32, x32 = kops.cast(w, "float32"), kops.cast(x, "float32")
    g32 = tangent.grad(mod.loss)(w32, x32)
    if c.same_kind(g32, w32) or not c.close(g32, ref, 2e-4, 2e-5):
        c.fail("float32 with the default seed: %s, or it differs" % c.same_kind(g32, w32))
    tw = lib.sample(c.rng, (3, 4), "any", "float64")
    fwd = tangent.autodiff(mod.loss, mode="forward")(w, x, tw)
    if not c.close(fwd, lib.jvp(lambda w_: mod.loss(w_, x), [w], [tw]), 1e-9, 1e-10):
        c.fail("forward mode of the loop differs from %s" % lib.name)
    # keras.Variable arguments are read as the tensors they hold; the gradient is a
    # tensor of the backend (also through indexing, as w[0] adds back at an index)
    mod_v = c.module("def uses_variable(w, x):\n"
                     "    return kops.sum(kops.tanh(kops.matmul(x, w)) * w[0])\n")
    wv = keras.Variable(kops.convert_to_numpy(w), dtype="float64")
    gv = tangent.grad(mod_v.uses_variable)(wv, x)
    rv = lib.vjp(mod_v.uses_variable, [w, x], one)[0]
    if c.same_kind(gv, w) or not c.close(gv, rv, 1e-9, 1e-10):
        c.fail("keras.Variable argument: %s, or the gradient differs from %s"
               % (c.same_kind(gv, w), lib.name))
    gx = tangent.grad(mod_v.uses_variable, wrt=(1,))(wv, x)
    if not c.close(gx, lib.vjp(mod_v.uses_variable, [w, x], one)[1], 1e-9, 1e-10):
        c.fail("keras.Variable held constant: the gradient of x differs from %s" % lib.name)
    # Python as people write it: names rebound (`sin` is keras's cos here), a submodule
    # alias, aliasing, a data-dependent branch, a loop; an in-place assign is refused
    mod_p = c.module(
        "from keras.ops import tanh as th\n"
        "import keras.ops.numpy as knp\n"
        "sin = kops.cos\n"
        "\n\n"
        "def rebound(x):\n"
        "    return kops.sum(th(x) * sin(x))\n"
        "\n\n"
        "def aliased(x):\n"
        "    y = knp.square(x)\n"
        "    z = y\n"
        "    z = z * 2.0\n"
        "    return kops.sum(z + y)\n"
        "\n\n"
        "def branchy(x):\n"
        "    if kops.sum(x) > 0.0:\n"
        "        return kops.sum(kops.exp(x))\n"
        "    return kops.sum(x)\n"
        "\n\n"
        "def looped(x):\n"
        "    acc = kops.zeros_like(x)\n"
        "    for i in range(3):\n"
        "        acc = acc + kops.relu(x - 0.1 * i)\n"
        "    return kops.sum(acc * acc)\n"
        "\n\n"
        "def assigns(x, v):\n"
        "    v.assign(x * 2.0)\n"
        "    return kops.sum(v * x)\n")
    xp = lib.sample(c.rng, (3,), "any", "float64")
    for name in ("rebound", "aliased", "branchy", "looped"):
        fn = getattr(mod_p, name)
        for arg in (xp, -xp):
            if not c.close(tangent.grad(fn)(arg), lib.vjp(fn, [arg], one)[0], 1e-9, 1e-10):
                c.fail("%s: the gradient differs from %s" % (name, lib.name))
    try:
        tangent.grad(mod_p.assigns)(xp, keras.Variable(kops.convert_to_numpy(xp) * 0.0))
        c.fail("v.assign inside a differentiated function gave a gradient")
    except tangent.TangentError as e:
        if "v.assign" not in str(e):
            c.fail("v.assign: unclear refusal %s" % e)
    # compile= for the backend keras runs on
    mode = {"jax": "jax", "tensorflow": "tensorflow", "torch": "torch"}[BACKEND]
    df = tangent.grad(mod.loss, compile=mode)
    if not c.close(df(w, x), ref, 1e-9, 1e-10):
        c.fail("compile=%r differs from %s" % (mode, lib.name))
    if "def dlossdw" not in df.__tangent_source__:
        c.fail("compile=%r lost __tangent_source__" % mode)
    # bad input: located errors, never a number
    try:
        tangent.grad(mod.unknown)(lib.sample(c.rng, (3,), "unit", "float64"))
        c.fail("a keras.ops function without a rule was differentiated")
    except Exception as e:
        text = str(e)
        if "keras" not in text or "erfinv" not in text or "tangent.adjoint" not in text:
            c.fail("no-rule error does not name the function and the template: %s" % text)
    try:
        tangent.grad(mod.with_initial)(x)
        c.fail("keras.ops.max(initial=...) gave a gradient")
    except Exception as e:
        if "initial" not in str(e):
            c.fail("max with initial: unclear error %s" % e)
    try:
        tangent.grad(mod.other_norm)(x)
        c.fail("keras.ops.norm(ord=1) gave a gradient")
    except NotImplementedError as e:
        if "ord=1" not in str(e) or "other_norm" not in str(e) and "norm(x, ord=1)" not in str(e):
            c.fail("norm with ord=1: unclear refusal %s" % e)
    if BACKEND == "tensorflow":
        try:
            tangent.grad(mod.softmax_as_logits)(x)
            c.fail("from_logits=True on a softmax output gave a gradient on tensorflow")
        except NotImplementedError as e:
            if "logits behind" not in str(e):
                c.fail("from_logits=True on a softmax output: unclear refusal %s" % e)
    try:
        tangent.grad(mod.loss)(w32, x32, one)
        c.fail("a float64 seed for a float32 output was accepted")
    except TypeError as e:
        if "float64" not in str(e) or "float32" not in str(e):
            c.fail("seed dtype mismatch: unclear error %s" % e)
    try:
        tangent.grad(mod.vector)(x)
        c.fail("a non-scalar output without a seed was accepted")
    except ValueError as e:
        if "vector" not in str(e):
            c.fail("non-scalar output: unclear error %s" % e)
    c.cases += 1


def main():
    t0 = time.time()
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="kerascat_")
    print("keras %s on %s" % (keras.__version__, keras.backend.backend()))
    c = op_catalog.Checker(LIBRARIES[BACKEND](), outdir, "kerascat_" + BACKEND)
    c.second_order_skip = SECOND_ORDER_SKIP
    c.reference_differs = REFERENCE_DIFFERS
    c.tolerance = TOLERANCE
    only = os.environ.get("KERAS_CATALOG_ONLY")
    for rule, expr, sets in CATALOG:
        if only and only not in rule:
            continue
        for specs in sets:
            c.entry(rule, expr, specs)
    if not only:
        extras(c)
        op_catalog.check_exports(c, os.path.join(BACKENDS, "keras.py"), keras, 60)
        reverse, forward = keras_rules()
        c.coverage(reverse, forward, [rule for rule, _, _ in CATALOG])
        print("%d reverse, %d forward keras.ops rules" % (len(reverse), len(forward)))
    sys.exit(c.report(t0, time.time()))


if __name__ == "__main__":
    main()
