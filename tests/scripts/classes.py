# Methods of user classes (issue 15, item 2), each derivative against central finite
# differences (reverse and forward): instances built inside the function or passed in,
# `self.a` attributes, methods calling methods, inheritance and super(), properties,
# staticmethod and classmethod, dataclasses, bound methods.
import collections
import dataclasses
import math

import numpy as np
import tangent

H = 1e-6


def fd(f, x):
    return (f(x + H) - f(x - H)) / (2 * H)


def close(a, b, tol=1e-5):
    return abs(a - b) <= tol * max(1.0, abs(b))


def check(label, f, x, *rest):
    """d/dx f(x, *rest) in reverse and forward mode against finite differences."""
    want = fd(lambda t: f(t, *rest), x)
    got = tangent.grad(f)(x, *rest)
    print(label, "ok" if close(got, want) else "WRONG %r %r" % (got, want))
    t = tangent.autodiff(f, mode="forward")(x, *rest, 1.0)
    print(label, "forward", "ok" if close(t, want) else "WRONG %r %r" % (t, want))


class Polynomial:
    def __init__(self, a, b, c):
        self.a = a
        self.b = b
        self.c = c

    def evaluate(self, x):
        return self.a * x * x + self.b * x + self.c

    def slope_sum(self, x):
        return self.evaluate(x) + self.scaled(x, 2.0)  # methods calling methods

    def scaled(self, x, k=1.0):
        return k * math.sin(x) * self.a

    @property
    def leading(self):
        return self.a

    @staticmethod
    def square(x):
        return x * x

    @classmethod
    def unit(cls, x):
        return cls(1.0, 0.0, 0.0).evaluate(x)


class Shifted(Polynomial):
    def __init__(self, a, b, c, shift):
        super().__init__(a, b, c)
        self.shift = shift

    def evaluate(self, x):
        return super().evaluate(x - self.shift) + self.shift


@dataclasses.dataclass
class Gaussian:
    mu: float
    sigma: float

    def logpdf(self, x):
        z = (x - self.mu) / self.sigma
        return -0.5 * z * z - math.log(self.sigma)


def built_inside(x):
    poly = Polynomial(2.0, 3.0, 1.0)
    return poly.evaluate(x)


def passed_in(x, poly):
    return poly.evaluate(x) * x


model = Polynomial(0.5, -1.0, 2.0)


def global_instance(x):
    return model.evaluate(x) + model.slope_sum(x)


def with_property(x):
    poly = Polynomial(1.5, 0.0, 0.0)
    return poly.leading * x * x


def with_static_and_class(x):
    return Polynomial.square(x) + Polynomial.unit(x) + model.square(x)


def inherited(x):
    s = Shifted(1.0, 2.0, 0.5, 0.25)
    return s.evaluate(x) + s.scaled(x)


def dataclass_method(x):
    g = Gaussian(0.3, 1.7)
    return g.logpdf(x)


def in_a_loop(x):
    poly = Polynomial(0.1, 0.2, 0.3)
    total = 0.0
    for i in range(3):
        total = total + poly.evaluate(x * i)
    return total


check("instance built inside", built_inside, 0.7)
check("instance passed in", passed_in, 0.7, Polynomial(1.0, -2.0, 0.5))
check("global instance, methods calling methods", global_instance, 0.4)
check("property", with_property, 0.9)
check("staticmethod and classmethod", with_static_and_class, 0.6)
check("inheritance and super()", inherited, 0.8)
check("dataclass method", dataclass_method, 1.2)
check("method in a loop", in_a_loop, 0.5)
check("bound method", Polynomial(2.0, 1.0, 0.0).evaluate, 0.3)
check("bound method of a subclass", Shifted(2.0, 1.0, 0.0, 0.5).evaluate, 0.3)
x0 = np.array([0.2, -0.5])
arr_poly = Polynomial(np.array([1.0, 2.0]), 0.5, 0.0)
got = tangent.grad(lambda x: np.sum(arr_poly.evaluate(x)))(x0)
want = 2 * np.array([1.0, 2.0]) * x0 + 0.5
print("array attributes", "ok" if np.allclose(got, want) else "WRONG %r %r" % (got, want))


# The gradient with respect to the object itself (a dataclass: its fields).
def dataclass_argument(g, x):
    return g.logpdf(x) * x


g0 = Gaussian(0.3, 1.7)
dg = tangent.grad(dataclass_argument)(g0, 1.2)
want_mu = fd(lambda t: dataclass_argument(Gaussian(t, 1.7), 1.2), 0.3)
want_sigma = fd(lambda t: dataclass_argument(Gaussian(0.3, t), 1.2), 1.7)
print("gradient with respect to the object",
      "ok" if type(dg) is Gaussian and close(dg.mu, want_mu) and close(dg.sigma, want_sigma)
      else "WRONG %r" % (dg,))
t = tangent.autodiff(dataclass_argument, mode="forward")(g0, 1.2, Gaussian(1.0, 0.5))
print("tangent along the object", "ok" if close(t, want_mu + 0.5 * want_sigma)
      else "WRONG %r %r" % (t, want_mu + 0.5 * want_sigma))


# Objects built from the differentiated values: the gradient reaches the arguments
# through the fields `__init__` assigns (plain classes), or the fields themselves
# (dataclasses, namedtuples).
class Quadratic:
    def __init__(self, a, b, scale=1.0):
        self.a = a * scale
        self.b = b
        self.label = "quadratic"  # not a number: it has no gradient
        self.ab = self.a * self.b  # reads a field assigned above
        if scale < 0.0:
            self.b = -self.b  # reassigned in a branch, after its first assignment

    def evaluate(self, x):
        return self.a * x * x + self.b * x + self.ab


class Chain:
    def __init__(self, inner, k):
        self.inner = inner  # an object inside an object
        self.k = k

    def evaluate(self, x):
        return self.k * self.inner.evaluate(x)


Pair = collections.namedtuple("Pair", "u v")


def object_from_input(x):
    return Polynomial(x, 1.0, 0.0).evaluate(2.0)


def object_fields_from_input(x):
    q = Quadratic(x, 2.0 * x, scale=-0.5)
    return q.evaluate(1.3) + q.ab * q.a


def object_used_twice(x):
    q = Quadratic(math.sin(x), 0.5)
    r = q  # an alias: both names are the same object
    return q.evaluate(x) * r.evaluate(0.2) + r.a


def object_in_object(x):
    c = Chain(Quadratic(x, 1.0), x * x)
    return c.evaluate(0.7)


def energy(q, x):
    return q.evaluate(x) * q.b


def object_to_helper(x):
    q = Quadratic(1.0, x)
    return energy(q, x)


def objects_in_a_loop(x):
    total = 0.0
    for i in range(3):
        q = Quadratic(x + i, x * i)
        total = total + q.evaluate(0.5)
    return total


def dataclass_from_input(x):
    g = Gaussian(x * 0.5, sigma=1.0 + x * x)
    return g.logpdf(0.3)


def namedtuple_from_input(x):
    p = Pair(x * x, v=math.cos(x))
    return p.u * p.v + p.v


class Offset(Quadratic):
    """Inherits `__init__`; its `evaluate` calls the parent's through super()."""

    def evaluate(self, x):
        return super().evaluate(x) - self.b * math.cos(x)


def inherited_from_input(x):
    o = Offset(x, 0.5 * x)
    return o.evaluate(0.8) + o.ab


def through_super_passed_in(x, s):
    return s.evaluate(x) * x


@dataclasses.dataclass
class Normal:
    mean: float  # named like array methods: read as fields (only attributes clash)
    std: float

    def logpdf(self, x):
        z = (x - self.mean) / self.std
        return -0.5 * z * z - math.log(self.std)


class Window:
    def __init__(self, lo, hi):
        self.min = lo
        self.max = hi
        self.data = [lo, hi]

    def width(self):
        return self.max - self.min + self.data[0] * self.data[1]


def fields_named_like_methods(x):
    n = Normal(x, 1.0 + x * x)
    w = Window(x, 3.0 * x)
    return n.logpdf(0.2) + n.mean * n.std + w.width()


class Left(Quadratic):
    def __init__(self, a, b=1.0):
        super().__init__(a, b)
        self.left = a * self.b


class Right(Quadratic):
    def __init__(self, a, b=1.0):
        super().__init__(a, 2.0 * b)
        self.right = a * self.b


class Diamond(Left, Right):
    def total(self):
        return self.left * self.right + self.ab


def build_diamond(x):
    # Left's super().__init__ runs Right's __init__ for a Diamond (the MRO), as Python.
    d = Diamond(x, x * x)
    return d.evaluate(1.0) + d.total()


def build_shifted(x):
    return Shifted(x, 1.0, 0.0, 0.5).evaluate(1.0)  # super().__init__(...)


class Scaled(Quadratic):
    """A parent's constructor through super(), keywords, a field it overrides, one of
    the parent's read after it."""

    def __init__(self, a, k):
        super().__init__(a, 0.5, scale=k)
        self.k = k * self.ab
        self.a += 1.0


class Twice(Scaled):
    def __init__(self, x):
        Scaled.__init__(self, x, 0.3)  # the parent called explicitly
        self.c = self.k + self.b


def parent_constructors(x):
    s = Scaled(x, 2.0 * x)
    t = Twice(x * x)
    return s.evaluate(0.4) * s.k + t.evaluate(0.9) + t.c


class Summary:
    """Methods named like array methods: on objects tangent knows are this class's
    (built in the function, or `self` in a method), they are the class's."""

    def __init__(self, lo, hi):
        self.lo = lo
        self.hi = hi

    def mean(self):
        return 0.5 * (self.lo + self.hi)

    def sum(self):
        return self.mean() * 2.0 + self.lo  # `self.mean()` is this class's

    def T(self):
        return self.hi - self.lo


def array_named_methods(x):
    s = Summary(x, x * x)
    alias = s
    return s.sum() * alias.mean() + s.T()


def through_the_class(s, x):
    return Summary.mean(s) * x + Summary.sum(s)


@dataclasses.dataclass
class WithPostInit:
    a: float
    scale: float = 2.0
    b: float = dataclasses.field(init=False, default=0.0)

    def __post_init__(self):
        self.b = self.a * self.scale  # a field computed from the others
        self.a = self.a + 1.0


def build_post_init(x):
    w = WithPostInit(x, scale=x * x)
    v = WithPostInit(2.0 * x)
    return w.a * w.b + v.b


check("object built from the input", object_from_input, 1.1)
check("dataclass with __post_init__", build_post_init, 0.8)
check("methods named like array methods", array_named_methods, 0.7)
check("super().__init__ and Base.__init__ in constructors", parent_constructors, 0.7)
check("super().__init__ with the parent's method through super()", build_shifted, 0.8)
check("super().__init__ under multiple inheritance (the MRO's next class)", build_diamond,
      0.6)
check("fields named like array methods", fields_named_like_methods, 0.4)
check("inherited __init__, super() method, built from the input", inherited_from_input, 0.6)
check("super() method of an object built from constants", through_super_passed_in, 0.6,
      Shifted(1.0, 2.0, 0.5, 0.25))
check("fields computed in __init__", object_fields_from_input, 0.6)
check("one object used twice, aliased", object_used_twice, 0.4)
check("an object inside an object", object_in_object, 0.9)
check("an object passed to a helper", object_to_helper, 0.8)
check("objects built in a loop", objects_in_a_loop, 0.3)
check("dataclass built from the input", dataclass_from_input, 0.7)
check("namedtuple built from the input", namedtuple_from_input, 0.5)


# The gradient with respect to a plain object: an object of its class with the gradients
# of its attributes (None for the string).
def plain_argument(q, x):
    return q.evaluate(x) * x


q0 = Quadratic(0.5, -1.5)
dq = tangent.grad(plain_argument)(q0, 1.2)


def _with(q, name, value):
    out = Quadratic(q.a, q.b)
    out.ab = q.ab
    setattr(out, name, value)
    return out


want = {name: fd(lambda t: plain_argument(_with(q0, name, t), 1.2), getattr(q0, name))
        for name in ("a", "b", "ab")}
print("gradient with respect to a plain object",
      "ok" if type(dq) is Quadratic and dq.label is None
      and all(close(getattr(dq, n), w) for n, w in want.items()) else "WRONG %r" % vars(dq))
tq = object.__new__(Quadratic)  # the tangent: along `a` only
vars(tq).update(a=1.0, b=0.0, ab=0.0, label=None)
t = tangent.autodiff(plain_argument, mode="forward")(q0, 1.2, tq)
print("tangent along a plain object", "ok" if close(t, want["a"]) else "WRONG %r %r"
      % (t, want["a"]))


# The gradient with respect to an object passed to a method called through its class.
s0 = Summary(0.4, 1.1)
ds = tangent.grad(through_the_class)(s0, 1.7)
want_lo = fd(lambda t: through_the_class(Summary(t, 1.1), 1.7), 0.4)
want_hi = fd(lambda t: through_the_class(Summary(0.4, t), 1.7), 1.1)
print("gradient through Class.method(obj)",
      "ok" if close(ds.lo, want_lo) and close(ds.hi, want_hi) else "WRONG %r" % vars(ds))


# --- what stays refused: never a silent zero -------------------------------------------
def refused(label, thunk):
    try:
        print(label, "WRONG: accepted", thunk())
    except (tangent.TangentError, TypeError, ValueError) as e:
        print(label, "refused:", str(e).splitlines()[0])


@dataclasses.dataclass
class Box:
    size: float  # read as the array attribute `size` by differentiated code
    w: float


def loop_over_dict(p):
    s = 0.0
    for k in p:  # a dict iterates its keys; the derivative reads items by index
        s = s + p[k] * 2.0
    return s


class FieldInBranch:
    def __init__(self, a):
        if a > 0.0:
            self.a = a  # first assigned in a branch: may not exist after it

    def value(self):
        return self.a


class CallsMethod:
    def __init__(self, a):
        self.a = self.double(a)

    def double(self, a):
        return 2.0 * a




def build_in_branch(x):
    return FieldInBranch(x).value()


def build_calls_method(x):
    return CallsMethod(x).a


def assign_field(x):
    q = Quadratic(1.0, 2.0)
    q.a = x
    return q.evaluate(x)


refused("a field named like an array attribute",
        lambda: tangent.grad(lambda b: b.size * b.w)(Box(1.0, 2.0)))
refused("forward, a field named like an array attribute",
        lambda: tangent.autodiff(lambda b: b.size * b.w, mode="forward")(Box(1.0, 2.0),
                                                                         Box(1.0, 0.0)))
refused("a loop over a dict", lambda: tangent.grad(loop_over_dict)({0: 1.0, 1: 2.0}))
refused("a field first assigned in a branch", lambda: tangent.grad(build_in_branch)(1.0))
refused("a constructor calling a method", lambda: tangent.grad(build_calls_method)(1.0))
refused("assigning an object's field", lambda: tangent.grad(assign_field)(1.0))
refused("a parameter's method named like an array method",
        lambda: tangent.grad(lambda s, x: s.mean() * x)(Summary(1.0, 2.0), 3.0))
