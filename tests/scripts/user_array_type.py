# A user-defined array type registered through tangent's public registries
# (tangent.register_namespace, register_init_grad, ...) and differentiated: the generic
# helpers dispatch on the value's type, and a type nobody registered is a located
# TypeError naming the type, never a zero. Run by tests/cli.rs (embedded) and
# tests/bridge.rs (CPython).
import types

import numpy as np
import tangent


class Arr:
    """A minimal array: a NumPy array inside, operators only."""

    def __init__(self, v):
        self.v = np.asarray(v, dtype=float)

    shape = property(lambda self: tuple(self.v.shape))
    ndim = property(lambda self: len(self.v.shape))
    dtype = property(lambda self: self.v.dtype)

    def __add__(self, o):
        return Arr(self.v + unwrap(o))

    __radd__ = __add__

    def __sub__(self, o):
        return Arr(self.v - unwrap(o))

    def __rsub__(self, o):
        return Arr(unwrap(o) - self.v)

    def __mul__(self, o):
        return Arr(self.v * unwrap(o))

    __rmul__ = __mul__

    def __neg__(self):
        return Arr(-self.v)

    def __matmul__(self, o):
        return Arr(self.v @ unwrap(o))

    def __rmatmul__(self, o):
        return Arr(unwrap(o) @ self.v)

    def sum(self, axis=None, keepdims=False):
        r = self.v.sum(axis=axis, keepdims=keepdims)
        return float(r) if np.ndim(r) == 0 else Arr(r)

    def var(self, axis=None, ddof=1, keepdims=False):  # unbiased by default
        r = self.v.var(axis=axis, ddof=ddof, keepdims=keepdims)
        return float(r) if np.ndim(r) == 0 else Arr(r)

    def __repr__(self):
        return "Arr(%s)" % [round(v, 6) for v in self.v.ravel().tolist()]


def unwrap(x):
    return x.v if isinstance(x, Arr) else x


# The array namespace of Arr: the functions the helpers call on it.
arr_namespace = types.SimpleNamespace(
    sum=lambda x, axis=None, keepdims=False: Arr(x).sum(axis, keepdims),
    zeros=lambda shape: Arr(np.zeros(shape)),
    reshape=lambda x, shape: Arr(np.reshape(unwrap(x), shape)),
    shape=lambda x: np.shape(unwrap(x)),
)


def arr_unbroadcast(g, like):
    g = unwrap(g)
    if not isinstance(like, Arr):
        return float(np.sum(g))
    if np.ndim(g) == 0:
        return Arr(np.full(like.shape, float(g)))
    while g.ndim > like.ndim:
        g = g.sum(axis=0)
    for axis, n in enumerate(like.shape):
        if n == 1 and g.shape[axis] != 1:
            g = g.sum(axis=axis, keepdims=True)
    return Arr(g)


def arr_unreduce(g, x, axis, keepdims):
    g = unwrap(g)
    if axis is not None and not keepdims:
        g = np.expand_dims(g, axis)
    return Arr(np.broadcast_to(g, x.shape).copy())


def arr_matmul_grad(g, a, b, which):
    g = unwrap(g)
    if which == 0:
        return Arr(g @ unwrap(b).T)
    return Arr(unwrap(a).T @ g)


print("before registering:")
try:
    tangent.unbroadcast(1.0, Arr([1.0, 2.0]))
except TypeError as e:
    print("  TypeError:", str(e).splitlines()[0])
    print("  " + [line for line in str(e).splitlines() if line.startswith("hint:")][0])

tangent.register_namespace(Arr, arr_namespace)
tangent.register_init_grad(Arr, lambda x: Arr(np.zeros(x.shape)))
tangent.register_add_grad(Arr, lambda a, b: Arr(unwrap(a) + unwrap(b)))
tangent.register_unbroadcast(Arr, arr_unbroadcast)
tangent.register_unreduce(Arr, arr_unreduce)
tangent.register_matmul_grad(Arr, arr_matmul_grad)
tangent.register_shape_function(Arr, lambda x: tangent.ShapeCarrier(x.shape, x.dtype))

x = Arr([[1.0, -2.0, 0.5]])
print("namespace:", tangent.namespace_of(x) is arr_namespace)
print("init_grad:", tangent.init_grad(x))
print("add_grad:", tangent.add_grad(x, x))
print("unbroadcast to (1, 3):", tangent.unbroadcast(Arr(np.ones((2, 3))), x))
print("unbroadcast to a float:", tangent.unbroadcast(Arr(np.ones((2, 3))), 2.0))
print("unreduce:", tangent.unreduce(Arr([2.0]), Arr(np.ones((1, 3))), 1, False))
print("shape_of:", tangent.shape_of(x).shape)


def poly(x):
    y = x * x + 3.0 * x - x * 0.5
    return y.sum()


def bilinear(a, b):
    return (a @ b * a @ b).sum()


def fd(f, args, i, eps=1e-6):
    """Central differences of f with respect to argument i, element by element."""
    base = unwrap(args[i])
    out = np.zeros(base.shape)
    for k in np.ndindex(base.shape):
        shifted = []
        for delta in (eps, -eps):
            v = base.copy()
            v[k] += delta
            a = list(args)
            a[i] = Arr(v)
            shifted.append(f(*a))
        out[k] = (shifted[0] - shifted[1]) / (2 * eps)
    return out


for name, f, args, wrt in (("poly", poly, (x,), (0,)),
                           ("bilinear", bilinear,
                            (Arr([[1.0, 2.0], [0.5, -1.0]]), Arr([[0.3], [-0.7]])), (0, 1))):
    for optimized in (True, False):
        grads = tangent.grad(f, wrt=wrt, optimized=optimized)(*args)
        if len(wrt) == 1:
            grads = (grads,)
        for i, g in zip(wrt, grads):
            assert type(g) is Arr, type(g)
            err = float(np.max(np.abs(g.v - fd(f, args, i))))
            print("%s d/darg%d optimized=%s: %s, |tangent - finite differences| < 1e-6: %s"
                  % (name, i, optimized, g, err < 1e-6))

# Forward mode needs broadcast_like, which Arr has not registered: an error naming it.
try:
    tangent.autodiff(poly, mode="forward")(x, Arr(np.ones((1, 3))))
except TypeError as e:
    print("forward before broadcast_like: TypeError:", str(e).splitlines()[0])
    print("  " + [line for line in str(e).splitlines() if line.startswith("hint:")][0])
# (Forward mode over Arr needs more than this: the tangent rule of `.sum()` calls
# numpy.sum, until rules name the dispatched namespace, issue 14 item 4.)


# Arr's var defaults to ddof=1; its library registered no default_ddof: a refusal
# naming the remedy, never NumPy's ddof=0 (a wrong gradient).
def spread(x):
    return x.var()


try:
    tangent.grad(spread)(Arr([1.0, 2.0, 4.0]))
except TypeError as e:
    print("default ddof: TypeError:", str(e).splitlines()[0])


class Unregistered:
    shape = (2,)

    def __mul__(self, o):
        return self

    def sum(self):
        return 1.0


def sq(x):
    return (x * x).sum()


try:
    tangent.grad(sq)(Unregistered())
except TypeError as e:
    print("unregistered: TypeError:", str(e).splitlines()[0])
