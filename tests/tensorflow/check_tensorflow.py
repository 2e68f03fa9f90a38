"""The TensorFlow 2 op catalog: every rule of backends/tensorflow.py and every
`tensorflow=` name of backends/elementwise.py, checked by tests/common/op_catalog.py
against tf.GradientTape (reverse, and nested tapes for second order),
tf.autodiff.ForwardAccumulator (forward) and central finite differences, in float64
and float32. Then seeds, tf.Variable inputs, compile='tensorflow' and the errors of bad
input. Fails when a rule has no entry.

Run: tangent run --python PYTHON tests/tensorflow/check_tensorflow.py [OUTDIR]. Exits
non-zero on failure.
"""
import os
import re
import sys
import tempfile
import time

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import numpy  # noqa: E402
import tensorflow as tf  # noqa: E402

import tangent  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = os.path.join(HERE, "..", "..", "backends")
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import op_catalog  # noqa: E402


class TensorFlow(op_catalog.Library):
    name = "tf.GradientTape"
    dtypes = (tf.float64, tf.float32)
    header = ("import tensorflow as tf\n\n"
              "SUM = tf.reduce_sum\n"
              "LABELS = tf.constant([0, 3, 1])\n")

    def sample(self, rng, shape, domain, dtype):
        return tf.constant(op_catalog.domain_values(rng, shape, domain), dtype=dtype)

    def from_numpy(self, a, dtype):
        return tf.constant(a, dtype=dtype)

    def to_numpy(self, x):
        return x.numpy()

    def is_tensor(self, x):
        return isinstance(x, (tf.Tensor, tf.Variable))

    def describe(self, x):
        return (tuple(x.shape), x.dtype.name, "")

    def vjp(self, f, args, seed):
        with tf.GradientTape() as tape:
            tape.watch(args)
            y = f(*args)
        grads = tape.gradient(y, args, output_gradients=seed)
        return [tf.zeros_like(x) if g is None else tf.convert_to_tensor(g)
                for g, x in zip(grads, args)]

    def jvp(self, f, args, directions):
        try:
            with tf.autodiff.ForwardAccumulator(args, directions) as acc:
                y = f(*args)
        except LookupError:  # an op TensorFlow has no forward mode for (softsign)
            return None
        t = acc.jvp(y)
        return tf.zeros_like(y) if t is None else t

    def hvp(self, s, args, v):
        x = args[0]
        with tf.GradientTape() as outer:
            outer.watch(x)
            with tf.GradientTape() as inner:
                inner.watch(x)
                y = s(x, *args[1:])
            g = inner.gradient(y, x)
            g = None if g is None else tf.convert_to_tensor(g)  # IndexedSlices (gather)
        try:
            hv = outer.gradient(g, x, output_gradients=v) if g is not None else None
        except LookupError:  # an op TensorFlow has no second derivative for (softsign)
            return None
        return tf.zeros_like(x) if hv is None else hv


unary, binary = op_catalog.unary, op_catalog.binary

AXES = [("None", "False"), ("0", "False"), ("1", "True"), ("-1", "False"), ("(0, 1)", "True"),
        ("[1]", "False")]



DOMAINS = {"tan": "unit", "asin": "unit", "acos": "unit", "atanh": "unit", "acosh": "gt1",
           "log": "pos", "log1p": "pos", "sqrt": "pos", "rsqrt": "pos", "reciprocal": "pos"}


def elementwise_names():
    with open(os.path.join(BACKENDS, "elementwise.py")) as f:
        return sorted(set(re.findall(r'\btensorflow_*="math\.(\w+)"', f.read())))


EYE3 = "3.0 * tf.eye(3, dtype=a.dtype)"
SPD = "tf.matmul(a, a, transpose_b=True) + %s" % EYE3

CATALOG = [
    unary("tensorflow.math." + n, "tf.math.%s(a)" % n, DOMAINS.get(n, "any"))
    for n in elementwise_names()
] + [
    unary("tensorflow.math.tanh", "tf.tanh(a) * tf.nn.sigmoid(a)", shapes=[(2, 3)]),
    binary("tangent.add_grad", "a * b + a", shapes=[((3,), (2, 3)), ((2, 1), (1, 3))]),
    # operators on tensors (arithmetic.py's rules, dispatched to TensorFlow)
    binary("tensorflow:operator.mul", "a * b"),
    binary("tensorflow:operator.add", "a + b"),
    binary("tensorflow:operator.sub", "a - b"),
    binary("tensorflow:operator.truediv", "a / b", dy="pos"),
    binary("tensorflow:operator.pow", "a ** b", dx="pos"),
    unary("tensorflow:operator.pow", "a ** 3", shapes=[(2, 3)]),
    unary("tensorflow:operator.neg", "-a"),
    ("tensorflow:operator.matmul", "a @ b", [[((2, 3), "any"), ((3, 4), "any")],
                                             [((2, 2, 3), "any"), ((3, 2), "any")]]),
    ("tensorflow:subscript", "a[0] * tf.reduce_sum(a[1:]) + tf.reduce_sum(a[:, 1])",
     [[((3, 2), "any")]]),
    # arithmetic functions
    binary("tensorflow.math.add", "tf.add(a, b)"),
    binary("tensorflow.math.subtract", "tf.subtract(a, b)"),
    binary("tensorflow.math.multiply", "tf.multiply(a, b)"),
    binary("tensorflow.math.divide", "tf.divide(a, b)", dy="pos"),
    binary("tensorflow.math.truediv", "tf.math.truediv(a, b)", dy="pos",
           shapes=[((2, 3), (3,))]),
    binary("tensorflow.math.pow", "tf.pow(a, b)", dx="pos"),
    unary("tensorflow.math.pow", "tf.pow(a, 2.0)", shapes=[(2, 3)]),
    binary("tensorflow.math.squared_difference", "tf.math.squared_difference(a, b)"),
    binary("tensorflow.math.maximum", "tf.maximum(a, b)"),
    binary("tensorflow.math.minimum", "tf.minimum(a, b)"),
    binary("tensorflow.math.atan2", "tf.atan2(a, b)"),
    binary("tensorflow.math.xlogy", "tf.math.xlogy(a, b)", dy="pos"),
    ("tensorflow.where", "tf.where(a > 0.0, a, b)", [[((2, 3), "any"), ((2, 3), "any")],
                                                    [((2, 3), "any"), ((3,), "any")]]),
    ("tensorflow.clip_by_value", "tf.clip_by_value(a, -0.5, 0.5)", [[((2, 3), "any")]]),
    ("tensorflow.clip_by_value", "tf.clip_by_value(a, b, 0.7)",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    unary("tensorflow.math.softplus", "tf.math.softplus(a)"),
    unary("tensorflow.math.softplus", "tf.nn.softplus(a)", shapes=[(2, 3)]),
    unary("tensorflow.math.log_sigmoid", "tf.math.log_sigmoid(a)"),
    unary("tensorflow.cast", "tf.cast(a, tf.float64) * 2.0", shapes=[(2, 3)]),
    unary("tensorflow.identity", "tf.identity(a) * a", shapes=[(3,)]),
    unary("tensorflow.convert_to_tensor", "tf.convert_to_tensor(a) * a", shapes=[(3,)]),
] + op_catalog.reductions("tensorflow.math.reduce_sum", "tf.reduce_sum", AXES) \
  + op_catalog.reductions("tensorflow.math.reduce_mean", "tf.reduce_mean", AXES) \
  + op_catalog.reductions("tensorflow.math.reduce_max", "tf.reduce_max", AXES) \
  + op_catalog.reductions("tensorflow.math.reduce_min", "tf.math.reduce_min", AXES) + [
    ("tensorflow.math.reduce_sum", "tf.reduce_sum(a)", [[((2, 3), "any")], [((3,), "any")]]),
    ("tensorflow.math.reduce_prod", "tf.reduce_prod(a)", [[((2, 3), "any")]]),
    ("tensorflow.math.reduce_prod", "tf.reduce_prod(a, axis=1, keepdims=True)",
     [[((2, 3), "any")]]),
    ("tensorflow.math.reduce_logsumexp", "tf.reduce_logsumexp(a, axis=1)", [[((2, 3), "any")]]),
    ("tensorflow.math.reduce_logsumexp", "tf.math.reduce_logsumexp(a)", [[((2, 3), "any")]]),
    ("tensorflow.math.reduce_variance", "tf.math.reduce_variance(a)", [[((2, 3), "any")]]),
    ("tensorflow.math.reduce_variance", "tf.math.reduce_variance(a, axis=0, keepdims=True)",
     [[((2, 3), "any")]]),
    ("tensorflow.math.reduce_std", "tf.math.reduce_std(a, axis=1)", [[((2, 3), "any")]]),
    ("tensorflow.math.cumsum", "tf.cumsum(a, axis=1)", [[((2, 3), "any")]]),
    ("tensorflow.math.cumsum", "tf.cumsum(a, exclusive=True, reverse=True)",
     [[((4,), "any")]]),
    # products
    ("tensorflow.linalg.matmul", "tf.matmul(a, b)", [[((2, 3), "any"), ((3, 4), "any")],
                                                    [((2, 2, 3), "any"), ((2, 3, 2), "any")]]),
    ("tensorflow.linalg.matmul", "tf.matmul(a, b, transpose_a=True)",
     [[((3, 2), "any"), ((3, 4), "any")]]),
    ("tensorflow.linalg.matmul", "tf.linalg.matmul(a, b, transpose_b=True)",
     [[((2, 3), "any"), ((4, 3), "any")]]),
    ("tensorflow.linalg.matmul", "tf.matmul(a, b, transpose_a=True, transpose_b=True)",
     [[((3, 2), "any"), ((4, 3), "any")]]),
    ("tensorflow.linalg.matvec", "tf.linalg.matvec(a, b)", [[((2, 3), "any"), ((3,), "any")]]),
    ("tensorflow.linalg.matvec", "tf.linalg.matvec(a, b, transpose_a=True)",
     [[((3, 2), "any"), ((3,), "any")]]),
    ("tensorflow.einsum", "tf.einsum('ij,jk->ik', a, b)", [[((2, 3), "any"), ((3, 4), "any")]]),
    ("tensorflow.einsum", "tf.einsum('bij,bjk->bik', a, b)",
     [[((2, 2, 3), "any"), ((2, 3, 2), "any")]]),
    ("tensorflow.einsum", "tf.einsum('ii->i', a)", [[((3, 3), "any")]]),
    ("tensorflow.linalg.trace", "tf.linalg.trace(a)", [[((3, 3), "any")], [((2, 3, 3), "any")]]),
    # shape ops
    ("tensorflow.reshape", "tf.reshape(a, (3, 2))", [[((2, 3), "any")]]),
    ("tensorflow.reshape", "tf.reshape(a, [-1])", [[((2, 3), "any")]]),
    ("tensorflow.expand_dims", "tf.expand_dims(a, 1) * b", [[((3,), "any"), ((3, 2), "any")]]),
    ("tensorflow.squeeze", "tf.squeeze(a)", [[((2, 1, 3), "any")]]),
    ("tensorflow.squeeze", "tf.squeeze(a, axis=1)", [[((2, 1, 3), "any")]]),
    ("tensorflow.transpose", "tf.transpose(a)", [[((2, 3), "any")]]),
    ("tensorflow.transpose", "tf.transpose(a, perm=[1, 2, 0])", [[((2, 3, 4), "any")]]),
    ("tensorflow.linalg.matrix_transpose", "tf.linalg.matrix_transpose(a) * b",
     [[((2, 2, 3), "any"), ((3, 2), "any")]]),
    ("tensorflow.reverse", "tf.reverse(a, [1])", [[((2, 3), "any")]]),
    ("tensorflow.broadcast_to", "tf.broadcast_to(a, (2, 3))", [[((3,), "any")], [((2, 1), "any")]]),
    ("tensorflow.tile", "tf.tile(a, [2, 3])", [[((2, 3), "any")]]),
    ("tensorflow.concat", "tf.concat([a, b], 0)", [[((2,), "any"), ((3,), "any")]]),
    ("tensorflow.concat", "tf.concat([a, b, a], axis=1)", [[((2, 3), "any"), ((2, 2), "any")]]),
    ("tensorflow.stack", "tf.stack([a, b])", [[((3,), "any"), ((3,), "any")]]),
    ("tensorflow.stack", "tf.stack([a, b], axis=1)", [[((2, 3), "any"), ((2, 3), "any")]]),
    ("tensorflow.gather", "tf.gather(a, [2, 0, 2])", [[((3, 2), "any")]]),
    ("tensorflow.gather", "tf.gather(a, [1, 1], axis=1)", [[((2, 3), "any")]]),
    # tf.nn
    unary("tensorflow.nn.relu", "tf.nn.relu(a)"),
    unary("tensorflow.nn.relu6", "tf.nn.relu6(a * 4.0 + 3.0)"),
    unary("tensorflow.nn.leaky_relu", "tf.nn.leaky_relu(a)"),
    unary("tensorflow.nn.leaky_relu", "tf.nn.leaky_relu(a, alpha=0.1)", shapes=[(2, 3)]),
    unary("tensorflow.nn.elu", "tf.nn.elu(a)"),
    unary("tensorflow.nn.selu", "tf.nn.selu(a)"),
    unary("tensorflow.nn.gelu", "tf.nn.gelu(a)"),
    unary("tensorflow.nn.gelu", "tf.nn.gelu(a, approximate=True)"),
    unary("tensorflow.nn.silu", "tf.nn.silu(a)"),
    unary("tensorflow.nn.silu", "tf.nn.swish(a, beta=1.5)", shapes=[(2, 3)]),
    unary("tensorflow.nn.softsign", "tf.nn.softsign(a)"),
    ("tensorflow.nn.softmax", "tf.nn.softmax(a)", [[((3,), "any")], [((2, 3), "any")]]),
    ("tensorflow.nn.softmax", "tf.nn.softmax(a, axis=0)", [[((2, 3), "any")]]),
    ("tensorflow.nn.log_softmax", "tf.nn.log_softmax(a)", [[((2, 3), "any")]]),
    ("tensorflow.nn.log_softmax", "tf.nn.log_softmax(a, axis=0)", [[((2, 3), "any")]]),
    ("tensorflow.nn.sigmoid_cross_entropy_with_logits",
     "tf.nn.sigmoid_cross_entropy_with_logits(labels=tf.sigmoid(b), logits=a)",
     [[((2, 3), "any"), ((2, 3), "any")]]),
    ("tensorflow.nn.softmax_cross_entropy_with_logits",
     "tf.nn.softmax_cross_entropy_with_logits(tf.nn.softmax(b), a)",
     [[((3, 4), "any"), ((3, 4), "any")]]),
    ("tensorflow.nn.softmax_cross_entropy_with_logits",
     "tf.nn.softmax_cross_entropy_with_logits(labels=b, logits=a, axis=0)",
     [[((3, 4), "any"), ((3, 4), "pos")]]),
    ("tensorflow.nn.sparse_softmax_cross_entropy_with_logits",
     "tf.nn.sparse_softmax_cross_entropy_with_logits(labels=LABELS, logits=a)",
     [[((3, 4), "any")]]),
    unary("tensorflow.nn.l2_loss", "tf.nn.l2_loss(a)", shapes=[(3,), (2, 3)]),
    ("tensorflow.nn.bias_add", "tf.nn.bias_add(a, b)", [[((2, 3), "any"), ((3,), "any")],
                                                        [((2, 2, 3), "any"), ((3,), "any")]]),
    ("tensorflow.nn.bias_add", "tf.nn.bias_add(a, b, data_format='NCHW')",
     [[((2, 3, 2, 2), "any"), ((3,), "any")]]),
    # convolution and pooling (NHWC)
    ("tensorflow.nn.conv2d", "tf.nn.conv2d(a, b, 1, 'VALID')",
     [[((1, 5, 5, 2), "any"), ((3, 3, 2, 3), "any")]]),
    ("tensorflow.nn.conv2d", "tf.nn.conv2d(a, b, strides=2, padding='SAME')",
     [[((2, 5, 4, 2), "any"), ((3, 2, 2, 3), "any")]]),
    ("tensorflow.nn.conv2d", "tf.nn.conv2d(a, b, [1, 1], [[0, 0], [1, 1], [0, 1], [0, 0]])",
     [[((1, 4, 4, 1), "any"), ((2, 2, 1, 2), "any")]]),
    ("tensorflow.nn.max_pool2d", "tf.nn.max_pool2d(a, 2, 2, 'VALID')", [[((1, 4, 4, 2), "any")]]),
    ("tensorflow.nn.max_pool2d", "tf.nn.max_pool2d(a, ksize=3, strides=1, padding='SAME')",
     [[((2, 4, 5, 1), "any")]]),
    ("tensorflow.nn.avg_pool2d", "tf.nn.avg_pool2d(a, 2, 2, 'VALID')", [[((1, 4, 4, 2), "any")]]),
    ("tensorflow.nn.avg_pool2d", "tf.nn.avg_pool2d(a, [2, 3], 1, 'SAME')",
     [[((2, 4, 5, 1), "any")]]),
    # the N-d spellings Google Tangent's tests call, on a 4-D input
    ("tensorflow.nn.max_pool", "tf.nn.max_pool(a, (1, 2, 2, 1), (1, 2, 2, 1), 'SAME')",
     [[((2, 3, 3, 3), "any")]]),
    ("tensorflow.nn.avg_pool", "tf.nn.avg_pool(a, (1, 3, 3, 1), (1, 1, 1, 1), 'SAME')",
     [[((2, 5, 5, 3), "any")]]),
    # tf.linalg
    unary("tensorflow.linalg.inv", "tf.linalg.inv(a + %s)" % EYE3, shapes=[(3, 3), (2, 3, 3)]),
    unary("tensorflow.linalg.det", "tf.linalg.det(a)", shapes=[(2, 2), (3, 3), (2, 3, 3)]),
    binary("tensorflow.linalg.solve", "tf.linalg.solve(a + %s, b)" % EYE3,
           shapes=[((3, 3), (3, 2)), ((2, 3, 3), (2, 3, 1))]),
    unary("tensorflow.linalg.cholesky", "tf.linalg.cholesky(%s)" % SPD, shapes=[(3, 3)]),
    unary("tensorflow.norm", "tf.norm(a)", shapes=[(3,), (2, 3)]),
    unary("tensorflow.norm", "tf.norm(a, axis=1, keepdims=True)", shapes=[(2, 3)]),
    unary("tensorflow.norm", "tf.linalg.norm(a, ord='fro', axis=(0, 1))", shapes=[(2, 3)]),
]

# Entries where TensorFlow's own gradient is not the derivative of what it computes:
# checked against finite differences only.
REFERENCE_DIFFERS = {
    # TensorFlow's gradient is softmax - labels, right only for labels summing to one;
    # the loss it computes is -sum(labels * log_softmax(logits)), whose derivative is
    # softmax * sum(labels) - labels.
    "tf.nn.softmax_cross_entropy_with_logits(labels=b, logits=a, axis=0)":
        "labels that do not sum to one",
}

# Entries compared with TensorFlow at a looser float64 tolerance (rtol, atol), and why.
TOLERANCE = {
    # TensorFlow's float64 gelu is itself off by ~5e-9 (gelu(0.7): 0.53062544083 against
    # 0.5 x (1 + erf(x / sqrt 2)) = 0.53062544344), so its gradient differs from the
    # exact derivative at that level; finite differences still check ours.
    "tensorflow.nn.gelu": (1e-7, 1e-8),
}

# Entries whose second derivative tangent refuses, with the words of the refusal.
SECOND_ORDER_SKIP = {
    "tensorflow.linalg.cholesky": "tensorflow_cholesky_grad",
}


# ----------------------------------------------------------------- rule coverage

def tensorflow_rules():
    """(reverse names, forward names): the templates of backends/tensorflow.py (the
    rules of tangent's own helpers are exercised by the second-order checks) and the
    `tensorflow=` names of backends/elementwise.py."""
    reverse, forward = op_catalog.template_rules(os.path.join(BACKENDS, "tensorflow.py"))
    for n in elementwise_names():
        reverse.add("tensorflow.math." + n)
        forward.add("tensorflow.math." + n)
    return reverse, forward


# ------------------------------------------------------------ beyond the catalog

def extras(c):
    """Seeds, tf.Variable inputs, compile='tensorflow' and bad input."""
    mod = c.module(
        "def loss(w, x):\n"
        "    h = tf.tanh(tf.matmul(x, w))\n"
        "    for i in range(3):\n"
        "        h = tf.nn.softplus(h) * 0.5 + h\n"
        "    return tf.reduce_sum(h * h)\n"
        "\n\n"
        "def vector(x):\n"
        "    return tf.tanh(x)\n"
        "\n\n"
        "def unknown(x):\n"
        "    return tf.reduce_sum(tf.math.bessel_i0(x))\n"
        "\n\n"
        "def dilated(x, w):\n"
        "    return tf.reduce_sum(tf.nn.conv2d(x, w, 1, 'VALID', dilations=2))\n"
        "\n\n"
        "def module_argument(x, tf_):\n"
        "    a = x * x * x\n"
        "    return tf_.reduce_sum(tf_.math.squared_difference(a * x, tf_.reduce_logsumexp(x)))\n"
        "\n\n"
        "def depth_pool(x):\n"
        "    return tf.reduce_sum(tf.nn.max_pool(x, (1, 1, 1, 1), (1, 2, 2, 2), 'SAME'))\n"
        "\n\n"
        "def branchy(x):\n"
        "    if tf.reduce_sum(x) > 0.0:\n"
        "        return tf.reduce_sum(x * x)\n"
        "    return tf.reduce_sum(x)\n")
    lib = c.lib
    w = lib.sample(c.rng, (3, 4), "any", tf.float64)
    x = lib.sample(c.rng, (2, 3), "any", tf.float64)
    ref = lib.vjp(mod.loss, [w, x], tf.constant(1.0, tf.float64))[0]
    # Seeds: the reference's explicit tensor seed, and the default 1.0 in the output's
    # dtype (float32 too, which the reference refuses).
    g = tangent.grad(mod.loss)(w, x, tf.constant(1.0, dtype=tf.float64))
    if not c.close(g, ref, 1e-9, 1e-10):
        c.fail("tensor seed: gradient differs from tf.GradientTape")
    g = tangent.grad(mod.loss)(w, x)
    if not c.close(g, ref, 1e-9, 1e-10):
        c.fail("default seed: gradient differs from tf.GradientTape")
    w32, x32 = tf.cast(w, tf.float32), tf.cast(x, tf.float32)
    g32 = tangent.grad(mod.loss)(w32, x32)
    if g32.dtype != tf.float32 or not c.close(g32, ref, 2e-4, 2e-5):
        c.fail("float32 with the default seed: %s gradient, or it differs" % g32.dtype)
    # tf.Variable inputs: gradients are tensors of their dtype
    gv = tangent.grad(mod.loss)(tf.Variable(w), x)
    if not c.close(gv, ref, 1e-9, 1e-10):
        c.fail("tf.Variable input: gradient differs")
    # compile='tensorflow'
    df = tangent.grad(mod.loss, compile="tensorflow")
    got = df(w, x)
    if not c.close(got, ref, 1e-9, 1e-10):
        c.fail("compile='tensorflow' differs from tf.GradientTape")
    if "def dlossdw" not in df.__tangent_source__:
        c.fail("compile='tensorflow' lost __tangent_source__")
    if getattr(df, "__tangent_compile__", None) != "tensorflow":
        c.fail("compile='tensorflow' did not wrap the derivative in tf.function")
    tw = lib.sample(c.rng, (3, 4), "any", tf.float64)
    fwd = tangent.autodiff(mod.loss, mode="forward", compile="tensorflow")(w, x, tw)
    if not c.close(fwd, lib.jvp(lambda w_: mod.loss(w_, x), [w], [tw]), 1e-9, 1e-10):
        c.fail("compile='tensorflow' forward mode differs from ForwardAccumulator")
    try:
        tangent.grad(mod.branchy, compile="tensorflow")(x)
        c.fail("compile='tensorflow' traced a Python if on a tensor")
    except tangent.TangentError as e:
        text = str(e)
        if "compile='python'" not in text or "if tf.reduce_sum(x) > 0.0:" not in text:
            c.fail("untraceable primal: not located at the if, or no compile='python': %s"
                   % text)
    # stated limits: a refusal naming the argument, never a number
    try:
        tangent.grad(mod.dilated)(lib.sample(c.rng, (1, 5, 5, 1), "any", tf.float64),
                                  lib.sample(c.rng, (2, 2, 1, 2), "any", tf.float64))
        c.fail("conv2d with dilations=2 gave a gradient")
    except NotImplementedError as e:
        if "dilations=2" not in str(e):
            c.fail("dilated conv2d: unclear refusal %s" % e)
    # a module passed as an argument (Google Tangent's tf_straightline(x, tf)): its
    # functions are differentiated by their rules, first and second order
    xm = lib.sample(c.rng, (4,), "any", tf.float64)
    tm = lib.sample(c.rng, (4,), "any", tf.float64)
    f = lambda x_: mod.module_argument(x_, tf)  # noqa: E731
    ref = lib.vjp(f, [xm], tf.constant(1.0, tf.float64))[0]
    if not c.close(tangent.grad(mod.module_argument)(xm, tf), ref, 1e-9, 1e-10):
        c.fail("a module passed as an argument: gradient differs from tf.GradientTape")
    fwd = tangent.autodiff(mod.module_argument, mode="forward")(xm, tf, tm)
    if not c.close(fwd, lib.jvp(f, [xm], [tm]), 1e-9, 1e-10):
        c.fail("a module passed as an argument: tangent differs from ForwardAccumulator")
    hvp = tangent.autodiff(tangent.grad(mod.module_argument), mode="forward")(xm, tf, 1.0, tm)
    ref_hvp = lib.jvp(lambda x_: lib.vjp(f, [x_], tf.constant(1.0, tf.float64))[0], [xm], [tm])
    if not c.close(hvp, ref_hvp, 1e-8, 1e-9):
        c.fail("a module passed as an argument: Hessian-vector product differs")
    # a limit met when the derivative runs is a TangentError at the user's line
    try:
        tangent.grad(mod.depth_pool)(lib.sample(c.rng, (2, 3, 3, 3), "any", tf.float64))
        c.fail("max_pool over the depth dimension gave a gradient")
    except tangent.TangentError as e:
        text = str(e)
        if "depth" not in text or "check_tensorflow.py:" not in text or "^" not in text:
            c.fail("depth pooling: refusal not located or unclear: %s" % text)
    # bad input
    try:
        tangent.grad(mod.unknown)(x)
        c.fail("a TensorFlow function without a rule was differentiated")
    except Exception as e:
        text = str(e)
        if "tensorflow.math.bessel_i0" not in text or "tangent.adjoint" not in text:
            c.fail("no-rule error does not name the function and the template: %s" % text)
    try:
        tangent.grad(mod.loss)(w32, x32, tf.constant(1.0, dtype=tf.float64))
        c.fail("a float64 seed for a float32 output was accepted")
    except TypeError as e:
        if "float64" not in str(e) or "float32" not in str(e) or "dtype" not in str(e):
            c.fail("seed dtype mismatch: unclear error %s" % e)
    try:
        tangent.grad(mod.vector)(x)
        c.fail("a non-scalar output without a seed was accepted")
    except ValueError as e:
        if "vector" not in str(e):
            c.fail("non-scalar output: unclear error %s" % e)
    try:
        tangent.grad(mod.loss)(w, tf.constant([[1, 2, 3]]), )
        c.fail("an integer tensor was accepted")
    except Exception as e:
        if "int32" not in str(e) and "integer" not in str(e):
            c.fail("integer tensor: unclear error %s" % e)
    graph = {}

    @tf.function
    def leak(v):
        graph["t"] = v * 2.0
        return v

    leak(tf.constant([1.0, 2.0], dtype=tf.float64))
    try:
        tangent.grad(mod.loss, wrt=(1,))(w, graph["t"])
        c.fail("a graph tensor outside its tf.function was accepted")
    except TypeError as e:
        if "graph tensor" not in str(e) or "`x`" not in str(e):
            c.fail("graph tensor: unclear error %s" % e)
    c.cases += 1


def main():
    t0 = time.time()
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tfcat_")
    c = op_catalog.Checker(TensorFlow(), outdir, "tfcat")
    c.second_order_skip = SECOND_ORDER_SKIP
    c.reference_differs = REFERENCE_DIFFERS
    c.tolerance = TOLERANCE
    for rule, expr, sets in CATALOG:
        for specs in sets:
            c.entry(rule, expr, specs)
    extras(c)
    op_catalog.check_exports(c, os.path.join(BACKENDS, "tensorflow.py"), tf, 50)
    reverse, forward = tensorflow_rules()
    c.coverage(reverse, forward, [rule for rule, _, _ in CATALOG])
    print("%d reverse, %d forward TensorFlow rules" % (len(reverse), len(forward)))
    sys.exit(c.report(t0, time.time()))


if __name__ == "__main__":
    main()
