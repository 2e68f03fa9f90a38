"""The tinygrad op catalog: every rule of backends/tinygrad.py, every `numpy_="ndarray.*"`
method of backends/elementwise.py, and the shared operator and array-method rules
tinygrad code reaches (sum, reshape, softmax, ...), checked by tests/common/op_catalog.py
against tinygrad's own derivative (`Tensor.gradient`: reverse, and its gradient of a
gradient for second order) and central finite differences, in float64 and float32.
tinygrad has no forward mode: forward derivatives are checked against finite
differences. Then compile='tinygrad' (TinyJit), laziness (no rule realises a tensor),
the stated limits and the errors of bad input. Fails when a rule has no entry.

Run: tangent run --python PYTHON tests/tinygrad/check_tinygrad.py [OUTDIR]. Exits
non-zero on failure. Prints the device tinygrad ran on.
"""
import os
import re
import sys
import tempfile
import time

import numpy
from tinygrad import Device, Tensor, dtypes

import tangent

HERE = os.path.dirname(os.path.abspath(__file__))
BACKENDS = os.path.join(HERE, "..", "..", "backends")
sys.path.insert(0, os.path.join(HERE, "..", "common"))
import op_catalog  # noqa: E402


class Tinygrad(op_catalog.Library):
    name = "tinygrad Tensor.gradient"
    dtypes = (dtypes.float64, dtypes.float32)
    header = ("from tinygrad import Tensor, dtypes\n\n\n"
              "def SUM(t):\n"
              "    return t.sum()\n\n\n"
              "LABELS = Tensor([0, 3, 1])\n"
              "IDX = Tensor([[0, 2, 2], [1, 0, 1]])\n")

    def sample(self, rng, shape, domain, dtype):
        return Tensor(op_catalog.domain_values(rng, shape, domain), dtype=dtype)

    def from_numpy(self, a, dtype):
        return Tensor(numpy.asarray(a), dtype=dtype)

    def to_numpy(self, x):
        return x.numpy()

    def is_tensor(self, x):
        return isinstance(x, Tensor)

    def describe(self, x):
        # A tensor made from a Python number has no device of its own (None): it is
        # computed on the default one.
        return (tuple(x.shape), x.dtype.name, Device.canonicalize(x.device or Device.DEFAULT))

    def vjp(self, f, args, seed):
        y = f(*args)
        return list(y.gradient(*args, gradient=seed))

    def jvp(self, f, args, directions):
        return None  # tinygrad has no forward mode: finite differences only

    def hvp(self, s, args, v):
        x = args[0]
        (g,) = s(*args).gradient(x)
        (hv,) = (g * v).sum().gradient(x)
        return hv


unary, binary = op_catalog.unary, op_catalog.binary
M = "numpy.ndarray."

# Elementwise methods: (method, domain). tinygrad's own names.
ELEMENTWISE = [
    ("sin", "any"), ("cos", "any"), ("tan", "unit"), ("asin", "unit"), ("acos", "unit"),
    ("atan", "any"), ("sinh", "any"), ("cosh", "any"), ("tanh", "any"), ("asinh", "any"),
    ("acosh", "gt1"), ("atanh", "unit"), ("exp", "any"), ("exp2", "any"), ("log", "pos"),
    ("log2", "pos"), ("log10", "pos"), ("sqrt", "pos"), ("rsqrt", "pos"), ("square", "any"),
    ("reciprocal", "pos"), ("abs", "any"), ("neg", "any"), ("sigmoid", "any"),
    ("erf", "any"), ("relu", "any"), ("relu6", "any"), ("leaky_relu", "any"),
    ("elu", "any"), ("celu", "any"), ("selu", "any"), ("swish", "any"), ("silu", "any"),
    ("gelu", "any"), ("quick_gelu", "any"), ("mish", "any"), ("softplus", "any"),
    ("logsigmoid", "any"), ("softsign", "any"), ("hardtanh", "any"),
    ("hardsigmoid", "any"), ("hardswish", "any"),
]

AXES = [("None", "False"), ("0", "False"), ("1", "True"), ("-1", "False"), ("(0, 1)", "True")]


def reductions(method, domain="any"):
    return [(M + method, "a.%s(axis=%s, keepdim=%s)" % (method, axis, keep),
             [[((2, 3), domain)]]) for axis, keep in AXES]


def one(rule, expr, *shapes):
    """An entry with one input set: (shape, domain) per argument."""
    return (rule, expr, [list(shapes)])


A = ((2, 3), "any")
IMG = ((1, 2, 5, 5), "any")
W = ((3, 2, 3, 3), "any")

CATALOG = [unary(M + m, "a.%s()" % m, d) for m, d in ELEMENTWISE] + [
    unary(M + "leaky_relu", "a.leaky_relu(0.2)", shapes=[(2, 3)]),
    unary(M + "elu", "a.elu(alpha=0.5)", shapes=[(2, 3)]),
    unary(M + "celu", "a.celu(2.0)", shapes=[(2, 3)]),
    unary(M + "gelu", "a.gelu(approximate='none')", shapes=[(2, 3)]),
    unary(M + "softplus", "a.softplus(beta=2.0)", shapes=[(2, 3)]),
    unary(M + "hardtanh", "a.hardtanh(-0.5, 0.5)", shapes=[(2, 3)]),
    unary(M + "hardsigmoid", "a.hardsigmoid() * (a * 3.0).hardsigmoid()", shapes=[(2, 3)]),
    unary(M + "hardswish", "(a * 2.0).hardswish()", shapes=[(2, 3)]),
    unary(M + "relu6", "(a * 4.0 + 3.0).relu6()", shapes=[(2, 3)]),
    # operators (arithmetic.py's rules, dispatched to tinygrad)
    binary("operator.add", "a + b"),
    binary("operator.sub", "a - b"),
    binary("operator.mul", "a * b"),
    binary("operator.truediv", "a / b", dy="pos"),
    binary("operator.pow", "a ** b", dx="pos"),
    unary("operator.pow", "a ** 3", shapes=[(2, 3)]),
    unary("operator.neg", "-a"),
    ("operator.matmul", "a @ b", [[((2, 3), "any"), ((3, 4), "any")],
                                  [((3,), "any"), ((3,), "any")],
                                  [((3,), "any"), ((3, 2), "any")],
                                  [((2, 2, 3), "any"), ((3, 2), "any")]]),
    one("tinygrad:subscript", "a[0] * a[1:].sum() + a[:, 1].sum()", ((3, 2), "any")),
    one("tinygrad:subscript", "a[Tensor([0, 2, 0])]", ((3, 2), "any")),
    # arithmetic methods
    binary(M + "add", "a.add(b)", shapes=[((2, 3), (3,))]),
    binary(M + "sub", "a.sub(b)", shapes=[((2, 3), (3,))]),
    binary(M + "mul", "a.mul(b)", shapes=[((2, 3), (3,)), ((), (2, 3))]),
    binary(M + "div", "a.div(b)", dy="pos", shapes=[((2, 3), (3,))]),
    binary(M + "pow", "a.pow(b)", dx="pos", shapes=[((2, 3), (3,))]),
    unary(M + "pow", "a.pow(3)", shapes=[(2, 3)]),
    binary(M + "maximum", "a.maximum(b)"),
    binary(M + "minimum", "a.minimum(b)"),
    one(M + "lerp", "a.lerp(b, c)", ((2, 3), "any"), ((3,), "any"), ((2, 1), "unit")),
    one(M + "where", "(a > 0).where(a, b)", A, ((3,), "any")),
    one(M + "where", "(b > 0).where(a * 2.0, 1.0)", A, A),
    binary(M + "matmul", "a.matmul(b)", shapes=[((2, 3), (3, 4))]),
    binary(M + "dot", "a.dot(b)", shapes=[((2, 3), (3, 4)), ((3,), (3,))]),
    one(M + "linear", "a.linear(b, c)", A, ((3, 4), "any"), ((4,), "any")),
    binary(M + "linear", "a.linear(b)", shapes=[((2, 3), (3, 4))]),
    one(M + "clip", "a.clip(-0.5, 0.5)", A),
    one(M + "contiguous", "a.contiguous() * a", A),
    one(M + "cast", "a.cast(dtypes.float64) * 2.0", A),
] + reductions("sum") + reductions("mean") + [
    one(M + "sum", "a.sum()", A),
    one(M + "mean", "a.mean()", A),
    one(M + "max", "a.max(axis=1)", A),
    one(M + "max", "a.max()", A),
    one(M + "min", "a.min(axis=0, keepdim=True)", A),
    one(M + "prod", "a.prod()", A),
    one(M + "prod", "a.prod(axis=1, keepdim=True)", A),
    one(M + "var", "a.var()", A),
    one(M + "var", "a.var(axis=1, correction=0)", A),
    one(M + "std", "a.std(axis=0, keepdim=True)", ((3, 2), "any")),
    one(M + "std", "a.std()", ((4,), "any")),
    one(M + "cumsum", "a.cumsum()", A),
    one(M + "cumsum", "a.cumsum(1)", A),
    one(M + "logsumexp", "a.logsumexp(axis=1)", A),
    one(M + "logsumexp", "a.logsumexp()", A),
    one(M + "logsumexp", "a.logsumexp(axis=0, keepdim=True)", A),
    one(M + "logcumsumexp", "a.logcumsumexp()", A),
    one(M + "logcumsumexp", "a.logcumsumexp(1)", A),
    one(M + "softmax", "a.softmax()", A),
    one(M + "softmax", "a.softmax(axis=0)", A),
    one(M + "log_softmax", "a.log_softmax()", A),
    one(M + "log_softmax", "a.log_softmax(0)", A),
    # normalisation and losses
    one(M + "layernorm", "a.layernorm()", A),
    one(M + "layernorm", "a.layernorm(axis=(1, 2), eps=0.01)", ((2, 3, 4), "any")),
    one(M + "batchnorm", "a.batchnorm(b, c, b * 0.1, c.abs() + 0.5)",
        ((2, 3, 4), "any"), ((3,), "any"), ((3,), "any")),
    one(M + "batchnorm", "a.batchnorm(None, None, b, c.abs() + 0.5, axis=2)",
        ((2, 3, 4), "any"), ((4,), "any"), ((4,), "any")),
    one(M + "sparse_categorical_crossentropy", "a.sparse_categorical_crossentropy(LABELS)",
        ((3, 5), "any")),
    one(M + "sparse_categorical_crossentropy",
        "a.sparse_categorical_crossentropy(LABELS, label_smoothing=0.1, reduction='sum')",
        ((3, 5), "any")),
    one(M + "sparse_categorical_crossentropy",
        "a.sparse_categorical_crossentropy(LABELS, ignore_index=3)", ((3, 5), "any")),
    one(M + "sparse_categorical_crossentropy",
        "a.sparse_categorical_crossentropy(LABELS, reduction='none') * b",
        ((3, 5), "any"), ((3,), "any")),
    one(M + "binary_crossentropy", "a.sigmoid().binary_crossentropy(b.sigmoid())", A, A),
    one(M + "binary_crossentropy",
        "a.sigmoid().binary_crossentropy(b.sigmoid(), reduction='none')", A, A),
    one(M + "binary_crossentropy_logits", "a.binary_crossentropy_logits(b.sigmoid())", A, A),
    one(M + "binary_crossentropy_logits",
        "a.binary_crossentropy_logits(b.sigmoid(), reduction='sum', pos_weight=c.abs())",
        A, A, ((3,), "any")),
    # movement
    one(M + "reshape", "a.reshape(3, 2)", A),
    one(M + "reshape", "a.reshape((6,))", A),
    one(M + "view", "a.view(3, 2)", A),
    one(M + "permute", "a.permute(2, 0, 1)", ((2, 3, 4), "any")),
    one(M + "permute", "a.permute((1, 0, 2))", ((2, 3, 4), "any")),
    one(M + "transpose", "a.transpose()", ((2, 3, 4), "any")),
    one(M + "transpose", "a.transpose(1, 2)", ((2, 3, 4), "any")),
    one(M + "T", "a.T", ((2, 3, 4), "any")),
    one(M + "T", "a.T", ((2, 2, 2), "any")),
    one(M + "flatten", "a.flatten()", ((2, 3, 4), "any")),
    one(M + "flatten", "a.flatten(1)", ((2, 3, 4), "any")),
    one(M + "squeeze", "a.squeeze()", ((1, 3, 1), "any")),
    one(M + "squeeze", "a.squeeze(0)", ((1, 3, 1), "any")),
    one(M + "unsqueeze", "a.unsqueeze(1)", A),
    one(M + "expand", "a.expand(2, 3)", ((1, 3), "any")),
    one(M + "expand", "a.expand((4, 3))", ((3,), "any")),
    one(M + "pad", "a.pad(((1, 2), (0, 1)))", A),
    one(M + "pad", "a.pad((1, 2), value=0.5)", A),
    one(M + "pad", "a.pad(((1, 1), (2, 0)), mode='reflect')", ((3, 4), "any")),
    one(M + "pad", "a.pad(((1, 0), (1, 2)), mode='replicate')", A),
    one(M + "shrink", "a.shrink(((0, 1), (1, 3)))", A),
    one(M + "shrink", "a.shrink((None, (0, 2)))", A),
    one(M + "flip", "a.flip(0)", A),
    one(M + "flip", "a.flip((0, 1))", A),
    one(M + "flip", "a.flip(0, 1)", A),
    one(M + "unflatten", "a.unflatten(1, (2, 3))", ((2, 6), "any")),
    one(M + "repeat", "a.repeat(2, 1)", A),
    one(M + "repeat", "a.repeat((1, 2))", A),
    one(M + "repeat", "a.repeat(2, 1, 3)", ((2, 3), "any")),
    one(M + "repeat_interleave", "a.repeat_interleave(2, 1)", A),
    one(M + "repeat_interleave", "a.repeat_interleave(3)", A),
    one(M + "gather", "a.gather(1, IDX)", ((2, 4), "any")),
    one(M + "cat", "a.cat(b, dim=0)", A, ((1, 3), "any")),
    one(M + "cat", "a.cat(b, c, dim=1)", ((2, 1), "any"), A, ((2, 2), "any")),
    one("tinygrad.Tensor.cat", "Tensor.cat(a, b, c, dim=1)", ((2, 1), "any"), A,
        ((2, 2), "any")),
    one("tinygrad.Tensor.cat", "Tensor.cat(a, b)", A, A),
    one(M + "stack", "a.stack(b)", A, A),
    one(M + "stack", "a.stack(b, c, dim=1)", A, A, A),
    one("tinygrad.Tensor.stack", "Tensor.stack(a, b, dim=2)", A, A),
    # convolution and pooling
    one(M + "conv2d", "a.conv2d(b)", IMG, W),
    one(M + "conv2d", "a.conv2d(b, c, padding=1, stride=2)", IMG, W, ((3,), "any")),
    one(M + "conv2d", "a.conv2d(b, groups=2, dilation=2, padding=(1, 2))",
        ((1, 4, 6, 6), "any"), ((4, 2, 2, 3), "any")),
    one(M + "conv2d", "a.conv2d(b, padding=(1, 0, 2, 1))", IMG, W),  # asymmetric
    one(M + "max_pool2d", "a.max_pool2d()", ((1, 2, 4, 4), "any")),
    one(M + "max_pool2d", "a.max_pool2d(kernel_size=(3, 3), stride=1, padding=1)",
        ((1, 2, 4, 4), "any")),
    one(M + "max_pool2d", "a.max_pool2d(kernel_size=(2, 2), dilation=2, ceil_mode=True)",
        ((1, 1, 5, 5), "any")),
    one(M + "max_pool2d", "a.max_pool2d(padding=(1, 0, 1, 0))", ((1, 1, 5, 5), "any")),
    one(M + "avg_pool2d", "a.avg_pool2d()", ((1, 2, 4, 4), "any")),
    one(M + "avg_pool2d",
        "a.avg_pool2d(kernel_size=(3, 3), stride=2, padding=1, count_include_pad=False)",
        ((1, 2, 5, 5), "any")),
]

# Where tinygrad computes a function by a polynomial approximation (asin, acos, atan,
# erf and what is built on them), its own derivative is the approximation's, a few 1e-7
# from the function's (its second derivative up to 1e-4): tangent's rules are the
# function's exact derivatives, checked against finite differences, and against
# tinygrad within these tolerances.
APPROXIMATE = (2e-4, 1e-4)
TOLERANCE = {M + "asin": APPROXIMATE, M + "acos": APPROXIMATE, M + "atan": APPROXIMATE,
             M + "erf": APPROXIMATE, M + "gelu": APPROXIMATE}

SECOND_ORDER_SKIP = {}


# ----------------------------------------------------------------- rule coverage

def method_names():
    """The `numpy_="ndarray.<name>"` methods of backends/elementwise.py."""
    with open(os.path.join(BACKENDS, "elementwise.py")) as f:
        return re.findall(r'numpy_*="ndarray\.(\w+)"', f.read())


def tinygrad_rules():
    """(reverse names, forward names): the templates of backends/tinygrad.py (the rules
    of tangent's own helpers are exercised by the second-order checks) and the methods
    of backends/elementwise.py."""
    reverse, forward = op_catalog.template_rules(os.path.join(BACKENDS, "tinygrad.py"))
    for n in method_names():
        reverse.add(M + n)
        forward.add(M + n)
    return reverse, forward


# ------------------------------------------------------------ beyond the catalog

def extras(c):
    """Laziness, compile='tinygrad', the stated limits and bad input."""
    mod = c.module(
        "def loss(w, x):\n"
        "    h = (x @ w).tanh()\n"
        "    for i in range(3):\n"
        "        h = h.softplus() * 0.5 + h\n"
        "    return (h * h).sum()\n"
        "\n\n"
        "def vector(x):\n"
        "    return x.tanh()\n"
        "\n\n"
        "def indices(x):\n"
        "    return x.max_pool2d(return_indices=True)[0].sum()\n"
        "\n\n"
        "def branchy(x):\n"
        "    if x.sum().item() > 0:\n"
        "        return (x * 2.0).sum()\n"
        "    return (x * 3.0).sum()\n"
        "\n\n"
        "def scaled(x):\n"
        "    return (x * 2.0).sum()\n"
        "\n\n"
        "def sorted_(x):\n"
        "    return x.sort()[0].sum()\n"
        "\n\n"
        "def cumprod(x):\n"
        "    return x.cumprod(0).sum()\n"
        "\n\n"
        "def twice(a):\n"
        "    return Tensor.cat(a, a, dim=0).square().sum() + a.stack(a).sum()\n"
        "\n\n"
        "def augmented(a, b):\n"
        "    h = a * 2.0\n"
        "    h += a\n"
        "    for i in range(3):\n"
        "        h = (h @ b).tanh() + h\n"
        "    return (h * h).sum()\n"
        "\n\n"
        "def shared(a):\n"
        "    y = a\n"
        "    y += 1.0\n"
        "    return (y * a).sum()\n")
    lib = c.lib
    w = lib.sample(c.rng, (3, 4), "any", dtypes.float64)
    x = lib.sample(c.rng, (2, 3), "any", dtypes.float64)
    ref = lib.vjp(mod.loss, [w, x], Tensor(1.0, dtype=dtypes.float64))[0]
    # The gradient is one lazy graph: nothing realised until the caller asks.
    g = tangent.grad(mod.loss)(w, x)
    if g.uop.is_realized:
        c.fail("the gradient was realised inside the derivative")
    if not c.close(g, ref, 1e-9, 1e-10):
        c.fail("loss: gradient differs from tinygrad's")
    # compile='tinygrad': TinyJit, same numbers, one capture per signature, results that
    # stay what they were, a changed seed or shape honoured.
    df = tangent.grad(mod.loss, compile="tinygrad")
    if getattr(df, "__tangent_compile__", None) != "tinygrad":
        c.fail("compile='tinygrad' did not wrap the derivative")
    if "def dlossdw" not in getattr(df, "__tangent_source__", ""):
        c.fail("compile='tinygrad' lost __tangent_source__")
    kept = []
    for k in range(4):
        wk = lib.sample(c.rng, (3, 4), "any", dtypes.float64)
        got = df(wk, x)
        want = lib.vjp(mod.loss, [wk, x], Tensor(1.0, dtype=dtypes.float64))[0]
        kept.append((got, want))
        if not c.close(got, want, 1e-9, 1e-10):
            c.fail("compile='tinygrad' call %d differs from tinygrad's gradient" % k)
    if not all(c.close(got, want, 1e-9, 1e-10) for got, want in kept):
        c.fail("compile='tinygrad': a later call changed an earlier result")
    seeded = df(w, x, 2.5)
    if not c.close(seeded, ref * 2.5, 1e-9, 1e-10):
        c.fail("compile='tinygrad' kept the first seed for another seed")
    w5 = lib.sample(c.rng, (3, 5), "any", dtypes.float64)
    if not c.close(df(w5, x), lib.vjp(mod.loss, [w5, x], Tensor(1.0, dtype=dtypes.float64))[0],
                   1e-9, 1e-10):
        c.fail("compile='tinygrad' with another shape differs")
    tw = lib.sample(c.rng, (3, 4), "any", dtypes.float64)
    fwd = tangent.autodiff(mod.loss, mode="forward", compile="tinygrad")
    h = 1e-6
    fd = (mod.loss(w + h * tw, x) - mod.loss(w - h * tw, x)) / (2 * h)
    for _ in range(3):
        t = fwd(w, x, tw)
    if not c.close(t, fd, 1e-6, 1e-7):
        c.fail("compile='tinygrad' forward mode differs from finite differences")
    try:
        tangent.autodiff(mod.loss, motion="split", compile="tinygrad")
        c.fail("compile='tinygrad' accepted motion='split'")
    except tangent.TangentError as e:
        if "motion='joint'" not in str(e):
            c.fail("compile='tinygrad' with split motion: unclear error %s" % e)
    dbr = tangent.grad(mod.branchy, compile="tinygrad")
    try:
        for _ in range(3):
            dbr(x)
        c.fail("compile='tinygrad' replayed a derivative that branches on .item()")
    except tangent.TangentError as e:
        if "compile='python'" not in str(e):
            c.fail("compile='tinygrad' of a data-dependent branch: unclear error %s" % e)
    slope = 2.0 if float(x.sum().numpy()) > 0 else 3.0
    if not c.close(tangent.grad(mod.branchy)(x), Tensor(numpy.full((2, 3), slope)),
                   1e-12, 1e-12):
        c.fail("branchy: the interpreted gradient is wrong")
    # Stated limits: refused, naming the argument.
    try:
        tangent.grad(mod.indices)(lib.sample(c.rng, (1, 1, 4, 4), "any", dtypes.float64))
        c.fail("max_pool2d(return_indices=True) was differentiated")
    except NotImplementedError as e:
        if "return_indices" not in str(e):
            c.fail("return_indices refusal unclear: %s" % e)
    # A tinygrad method without a rule is an error naming it, never tinygrad's own
    # source differentiated as if it were the user's.
    try:
        tangent.grad(mod.sorted_)(x)
        c.fail("x.sort() without a rule was differentiated")
    except tangent.TangentError as e:
        if "`.sort(...)` of a tinygrad.tensor.Tensor has no derivative rule" not in str(e):
            c.fail("x.sort() refusal unclear: %s" % e)
    try:
        tangent.grad(mod.cumprod)(x)
        c.fail("x.cumprod() with NumPy's helper was differentiated")
    except NotImplementedError as e:
        if "cumprod" not in str(e) or "NumPy arrays only" not in str(e):
            c.fail("x.cumprod() refusal unclear: %s" % e)
    # Aliasing (one tensor as several arguments), augmented assignment and rebinding in
    # a loop, against tinygrad; an in-place update another name holds is refused.
    a2 = lib.sample(c.rng, (2, 2), "any", dtypes.float64)
    b2 = lib.sample(c.rng, (2, 2), "any", dtypes.float64)
    for fn, args in ((mod.twice, [a2]), (mod.augmented, [a2, b2])):
        got = tangent.grad(fn)(*args)
        want = lib.vjp(fn, args, Tensor(1.0, dtype=dtypes.float64))[0]
        if not c.close(got, want, 1e-9, 1e-10):
            c.fail("%s: gradient differs from tinygrad's" % fn.__name__)
    try:
        tangent.grad(mod.shared)(a2)
        c.fail("an in-place update of a shared tensor was differentiated")
    except tangent.TangentError as e:
        if "in place" not in str(e):
            c.fail("in-place refusal unclear: %s" % e)
    # Bad input.
    try:
        tangent.grad(mod.vector)(x)
        c.fail("a non-scalar output without a seed was differentiated")
    except Exception as e:
        if "vector" not in str(e):
            c.fail("non-scalar output error does not name the function: %s" % e)
    try:
        tangent.grad(mod.scaled)(Tensor([[1, 2], [3, 4]]))
        c.fail("a gradient with respect to an integer tensor was computed")
    except TypeError as e:
        if "integer tensor" not in str(e):
            c.fail("integer-tensor error unclear: %s" % e)
    c.cases += 1


def main():
    t0 = time.time()
    outdir = sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="tgcat_")
    print("tinygrad device: %s" % Device.DEFAULT)
    c = op_catalog.Checker(Tinygrad(), outdir, "tgcat")
    c.second_order_skip = SECOND_ORDER_SKIP
    c.tolerance = TOLERANCE
    only = os.environ.get("TANGENT_CATALOG_ONLY")  # a rule name, to run one entry
    for rule, expr, sets in CATALOG:
        if only and only not in rule:
            continue
        for specs in sets:
            c.entry(rule, expr, specs)
    if not only:
        extras(c)
        reverse, forward = tinygrad_rules()
        c.coverage(reverse, forward, [rule for rule, _, _ in CATALOG])
        print("%d reverse, %d forward tinygrad rules" % (len(reverse), len(forward)))
    sys.exit(c.report(t0, time.time()))


if __name__ == "__main__":
    main()
