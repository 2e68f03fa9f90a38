# Methods of user classes (issue 15, item 2), each derivative against central finite
# differences (reverse and forward): instances built inside the function or passed in,
# `self.a` attributes, methods calling methods, inheritance and super(), properties,
# staticmethod and classmethod, dataclasses, bound methods.
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


def object_from_input(x):
    return Polynomial(x, 1.0, 0.0).evaluate(2.0)


refused("a field named like an array attribute",
        lambda: tangent.grad(lambda b: b.size * b.w)(Box(1.0, 2.0)))
refused("forward, a field named like an array attribute",
        lambda: tangent.autodiff(lambda b: b.size * b.w, mode="forward")(Box(1.0, 2.0),
                                                                         Box(1.0, 0.0)))
refused("a loop over a dict", lambda: tangent.grad(loop_over_dict)({0: 1.0, 1: 2.0}))
refused("an object built from the input", lambda: tangent.grad(object_from_input)(1.0))
