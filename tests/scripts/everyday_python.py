"""Python as people write it (issue 32): loops over zip/enumerate/reversed/map, callables
passed as they are (functools.partial, objects with __call__, functools.wraps
decorators), Google Tangent's tape calls with op ids and the cache API of Tangent 2.
Every derivative is checked against central differences in reverse (joint and split)
and forward mode; the output is the same in both hosts (tests/bridge.rs)."""
import functools
import math
import sys

import numpy as np
import tangent

H = 1e-6
failures = []


def numeric(f, args, i):
    hi = list(args)
    lo = list(args)
    hi[i] = hi[i] + H
    lo[i] = lo[i] - H
    return (f(*hi) - f(*lo)) / (2 * H)


def close(a, b):
    return abs(float(a) - float(b)) <= 1e-6 * max(1.0, abs(float(b)))


def check(name, f, args, df=None, wrt=None, call=None):
    """Every mode of `df` (default: tangent of f) against central differences of `call`
    (default f) at args, for each position in wrt (default: all)."""
    call = call or f
    wrt = tuple(range(len(args))) if wrt is None else wrt
    want = [numeric(call, args, i) for i in wrt]
    got = {}
    got["reverse"] = tangent.grad(f, wrt=wrt)(*args)
    got["split"] = tangent.autodiff(f, wrt=wrt, motion="split")(*args)
    got["forward"] = tuple(tangent.autodiff(f, mode="forward", wrt=(i,))(*(list(args) + [1.0]))
                           for i in wrt)
    for mode, g in got.items():
        g = g if isinstance(g, tuple) else (g,)
        if len(g) != len(want) or not all(close(a, b) for a, b in zip(g, want)):
            failures.append("%s %s: %r, finite differences %r" % (name, mode, g, want))
            print("FAIL", name, failures[-1])
            return
    print("ok", name)


# --- loops over zip, enumerate(zip), reversed, map ------------------------------

def zip_comprehension(x, y):
    xs = [x, y, x * y]
    return sum([a * w for a, w in zip(xs, (0.5, 1.5, 2.0))])


def enumerate_zip(x, y):
    xs = [x, y, x * y]
    s = 0.0
    for i, (a, w) in enumerate(zip(xs, [0.5, 1.5, 2.0])):
        s = s + a * w * (i + 1)
    return s


def enumerate_start(x, y):
    s = 0.0
    for i, a in enumerate([x, y, x * y], 2):
        s = s + a * i
    for i, a in enumerate((y, x), start=-1):
        s = s + a * a * i
    return s


def reversed_loop(x, y):
    xs = [x, y, x * y]
    s = 0.0
    for a in reversed(xs):
        s = s * 0.5 + a
    for k in reversed(range(3)):
        s = s + k * x
    return s


def rebinding_reversed(x, y):
    # Python iterates the list the loop began with, whatever the body binds to `xs`
    xs = [x, y]
    s = 0.0
    for a in reversed(xs):
        xs = [a * 3.0]
        s = s + a * xs[0]
    return s


def map_loop(x, y):
    xs = [x, y, x * y]
    s = 0.0
    for a in map(math.sin, xs):
        s = s + a
    for a, b in zip(map(math.cos, xs), reversed(xs)):
        s = s + a * b
    return s + sum([v * v for v in map(math.tanh, xs)])


def zip_arrays(x, y):
    a = np.array([x, y, 0.5])
    b = np.array([y, x * x, 2.0])
    s = 0.0
    for u, v in zip(a, b):
        s = s + u * v
    return s


for f in (zip_comprehension, enumerate_zip, enumerate_start, reversed_loop,
          rebinding_reversed, map_loop, zip_arrays):
    check(f.__name__, f, (0.7, 0.4))


# --- callables as people pass them -------------------------------------------------

def scaled(x, w, y, k):
    return math.sin(x * w) + y * k * x


part = functools.partial(scaled, 1.5, k=2.0)  # w, y left (x and k bound)
check("partial_positional", part, (0.7, 0.4))
part_kw = functools.partial(scaled, y=0.5, k=3.0)  # x, w left
check("partial_keyword", part_kw, (0.7, 0.4))
# wrt counts the partial's own parameters: position 1 is `w`
g = tangent.grad(part_kw, wrt=(1,))(0.7, 0.4)
want = numeric(part_kw, (0.7, 0.4), 1)
if not close(g, want):
    failures.append("partial wrt=(1,): %r, finite differences %r" % (g, want))
else:
    print("ok partial_wrt")


class Model:
    def __init__(self, a):
        self.a = a

    def __call__(self, x, y):
        return self.a * x * x + math.cos(y * self.a)


check("callable_instance", Model(1.3), (0.7, 0.4))


logged_calls = []


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        logged_calls.append(fn.__name__)
        return fn(*args, **kwargs)
    return wrapper


def scaled(fn):
    @functools.wraps(fn)
    def inner(*a, **k):
        return 2.0 * fn(*a, **k) + 1.0
    return inner


def peeks(fn):
    @functools.wraps(fn)
    def inner(*a, **k):
        return fn(*a, **k) + a[0] * len(a)
    return inner


@logged
def decorated(x, y):
    return x * math.exp(y) - y * y


@scaled
def decorated_default(x, y=0.5):
    return x * x * y


@logged
@scaled
def decorated_twice(x, y):
    return math.sin(x * y)


# A wrapper over *args, **kwargs is differentiated as what it does, with the wrapped
# function's parameters (its side effects run once, in the primal).
check("wraps_decorator", decorated, (0.7, 0.4))
check("wraps_changes_the_value", decorated_default, (0.7, 0.4),
      call=lambda x, y: 2.0 * x * x * y + 1.0)
print("wraps with the default:", close(tangent.grad(decorated_default)(0.7), 2.0 * 0.7))


@peeks
def peeked(x, y=0.5):
    return x * y


# `len(a)` is 1 for peeked(0.7) and 2 for peeked(0.7, 0.5): refused, located.
try:
    tangent.grad(peeked)(0.7)
    failures.append("wraps reading args: not refused")
except tangent.TangentError as e:
    print("refused:", str(e).splitlines()[0].split(": ", 1)[1])
check("wraps_stacked", decorated_twice, (0.7, 0.4))
print("the wrapper ran:", logged_calls[:1] == ["decorated"])


# A decorated function called inside the differentiated one: the same wrapper, inlined
# like any function of the file (stacked, with a default, changing the value).
def calls_decorated(x, y):
    return decorated(x, y) * decorated_default(y) + decorated_twice(y, x)


check("wraps_called_inside", calls_decorated, (0.7, 0.4),
      call=lambda x, y: (x * math.exp(y) - y * y) * (2.0 * y * y * 0.5 + 1.0)
      + 2.0 * math.sin(y * x) + 1.0)
del logged_calls[:]
tangent.grad(calls_decorated)(0.7, 0.4)
print("the wrappers ran once inside, under their names:", logged_calls)


def calls_peeked(x):
    return peeked(x) * 2.0


try:
    tangent.grad(calls_peeked)(0.7)
    failures.append("wraps reading args, called inside: not refused")
except tangent.TangentError as e:
    print("refused:", str(e).splitlines()[0].split(": ", 1)[1])


# --- Google Tangent's tape calls with an op id --------------------------------------

def stack_pushing(a):
    stack = tangent.Stack()
    y = a * a
    tangent.push(stack, a, 'abc')
    aa = tangent.pop(stack, 'abc')
    z = y * aa
    z = z * aa
    return z


check("push_pop_op_id", stack_pushing, (0.7,))
# stack_pushing(a) = a ** 4: grad of grad (forward over reverse) is 12 a^2; reverse mode
# over that derivative is refused rather than guessed
h2 = tangent.grad(tangent.grad(stack_pushing))(0.7)
if not close(h2, 12 * 0.49):
    failures.append("push_pop second order: %r, want %r" % (h2, 12 * 0.49))
print("ok push_pop_second_order")
tangent.literal_reverse_over_reverse = True
try:
    tangent.grad(tangent.grad(stack_pushing))(0.7)
    failures.append("literal reverse over reverse through a user tape: not refused")
except tangent.TangentError as e:
    print("refused:", str(e).splitlines()[0].split(": ", 1)[1])
finally:
    tangent.literal_reverse_over_reverse = False
saved = tangent.Stack()
items = [1.0, 2.0]
tangent.push(saved, items, 'id')
items.append(3.0)  # Google's push saved a copy of the list
print("pushed copy:", tangent.pop(saved, 'id'))
# The tape's functions by keyword, and the order they give values back in (CPython's
# push and pop take a fast path for the calls generated code makes, the rest checked).
tangent.push(stack=saved, value=1.5)
tangent.push(saved, 2.5)
if (tangent.pop(saved), tangent.pop(stack=saved)) != (2.5, 1.5):
    failures.append("tangent.push/pop by keyword")
try:
    tangent.pop(saved)
    failures.append("pop from an empty tape: no error")
except IndexError as e:
    print("empty tape:", str(e).split(":")[1].strip())


# --- Google Tangent's API names: tangent.grad_util, input_derivative, tape helpers ---

from tangent.grad_util import INPUT_DERIVATIVE, autodiff as gu_autodiff  # noqa: E402


def saxpy_sum(x, w):
    return np.sum(x * w + 0.5 * x * x)


xv, wv = np.array([0.3, -1.2, 2.0]), np.array([1.5, 0.25, -0.5])
for how in INPUT_DERIVATIVE:
    g = gu_autodiff(saxpy_sum, input_derivative=how)
    # d/dx sum(x*w + x^2/2) = w + x; the seed 2.0 doubles it
    if not (np.allclose(g(xv, wv), wv + xv) and np.allclose(g(xv, wv, 2.0), 2 * (wv + xv))):
        failures.append("input_derivative=%s: %r" % (how, g(xv, wv)))
print("ok input_derivative", [m.name for m in tangent.grad_util.INPUT_DERIVATIVE])
try:
    tangent.autodiff(saxpy_sum, input_derivative=1)
    failures.append("input_derivative=1: not refused")
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0].split(": ", 1)[1])
tape, sub = tangent.Stack(), tangent.Stack()
tangent.push_stack(tape, sub, "op")
sub.append(1.0)  # a sub-tape is saved as it is, not copied
print("push_stack/pop_stack:", tangent.pop_stack(tape, "op") is sub, len(tape))
print("shapes_match:", tangent.shapes_match([xv, 1.0, {"a": xv}], [wv, 2, {"a": xv}]),
      tangent.shapes_match(xv, 1.0), tangent.shapes_match((xv,), (xv, xv)),
      tangent.shapes_match({"a": xv}, {"b": xv}))
print("array_size:", tangent.array_size(np.zeros((2, 3, 4)), (0, 2)),
      tangent.array_size(np.zeros((2, 3)), None), tangent.array_size(np.zeros((0, 3)), (0,)))


# --- Google Tangent's insert_grad_of: code for the backward pass ---------------------

def inlining_contextmanager(a):
    b = a * a
    with tangent.insert_grad_of(a) as g:
        g = g * 0.9
    c = b * a
    return c


def clipped(x, w):
    h = x
    for _ in range(3):
        with tangent.insert_grad_of(h) as gh:
            gh = max(min(gh, 0.5), -0.5)
        h = math.tanh(w * h)
    return h


# The gradient that reaches `a` from after the block (b, from c = b * a) is scaled by
# 0.9; the one through b = a * a is not: 0.9 a^2 + 2 a^2 (no finite-difference oracle for
# a changed gradient: the formula is the check).
for motion in ("joint", "split"):
    g = tangent.autodiff(inlining_contextmanager, motion=motion)(0.7)
    if not close(g, 2.9 * 0.7 * 0.7):
        failures.append("insert_grad_of %s: %r, want %r" % (motion, g, 2.9 * 0.49))
print("ok insert_grad_of")


def clipped_by_hand(x, w):
    # the same backward pass written out: gradient of h clipped before each step
    hs = [x]
    for _ in range(3):
        hs.append(math.tanh(w * hs[-1]))
    gh, gw = 1.0, 0.0
    for k in range(3, 0, -1):
        d = gh * (1.0 - hs[k] ** 2)
        gw = gw + d * hs[k - 1]
        gh = max(min(d * w, 0.5), -0.5)
    return gh, gw


got = tangent.grad(clipped, wrt=(0, 1))(0.3, 2.5)
want = clipped_by_hand(0.3, 2.5)
if not all(close(a, b) for a, b in zip(got, want)):
    failures.append("insert_grad_of clipping: %r, by hand %r" % (got, want))
print("ok insert_grad_of_clipping")
try:
    inlining_contextmanager(0.7)
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0].split(": ", 1)[1])
print("tangent.tangent:", tangent.tangent(inlining_contextmanager)(0.7) == 0.7 ** 3)
g = tangent.grad(tangent.tangent(inlining_contextmanager))(0.7)
print("grad of tangent.tangent(f) keeps the block:", close(g, 2.9 * 0.49))
try:
    tangent.autodiff(inlining_contextmanager, mode="forward")(0.7, 1.0)
except tangent.TangentError as e:
    print("refused:", str(e).splitlines()[0].split(": ", 1)[1])


# Google's Hessian-vector products call the second derivative with the gradient's own
# arguments, its seed included, then the outer seed: ddf(x, 1, v)
def f_straightline(x):
    a = x * x * x
    b = a * x ** 2.0
    return np.sum(b)


xs = np.array([0.3, -0.7, 1.1])
vs = np.array([1.0, 0.5, -2.0])
for m1, m2 in (("reverse", "reverse"), ("reverse", "forward")):
    ddf = tangent.autodiff(tangent.autodiff(f_straightline, mode=m1), mode=m2)
    hv = ddf(xs, 1.0, vs)
    if not np.allclose(hv, 20.0 * xs ** 3 * vs, rtol=1e-12):  # the Hessian is diagonal
        failures.append("hvp %s over %s: %r" % (m2, m1, hv))
print("ok google_hvp_convention")
try:  # a vector seed for a scalar output: located, not a reshape error
    tangent.autodiff(tangent.autodiff(f_straightline, mode="forward"), check_dims=False)(
        xs, 1.0, vs)
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0].split(": ", 2)[2])


# Google's split-motion derivative takes its seed as `init_grad=`; a function of several
# outputs takes a seed per output (its vector-Jacobian product)
def fn_multiple_return(a):
    return 2 * a, a * a


for motion in ("split", "joint"):
    df = tangent.autodiff(fn_multiple_return, motion=motion)
    seed = (0.5, -1.5)
    got = df(0.7, init_grad=seed) if motion == "split" else df(0.7, seed)
    want = (numeric(lambda a: seed[0] * fn_multiple_return(a)[0]
                    + seed[1] * fn_multiple_return(a)[1], (0.7,), 0))
    if not close(got, want):
        failures.append("tuple seed %s: %r, finite differences %r" % (motion, got, want))
print("ok seed_per_output")


# --- second derivatives through a method of a user class ------------------------------

class Spring:
    def __init__(self, k):
        self.k = k

    def energy(self, x):
        return self.k * x ** 3 + math.sin(x)


spring = Spring(1.5)


def through_method(x):
    return spring.energy(x) * 2.0


x0 = 0.4
want2 = 2.0 * (6 * 1.5 * x0 - math.sin(x0))  # d2/dx2 of 2 (k x^3 + sin x)
want1 = 2.0 * (3 * 1.5 * x0 ** 2 + math.cos(x0))
# forward over reverse (tangent.grad of a gradient), and reverse over forward, with
# respect to x and to the tangent itself
got = [tangent.grad(tangent.grad(through_method))(x0),
       tangent.autodiff(tangent.grad(through_method), mode="forward")(x0, 1.0, 1.0),
       tangent.grad(tangent.autodiff(through_method, mode="forward"))(x0, 1.0),
       tangent.grad(tangent.autodiff(through_method, mode="forward"), wrt=(1,))(x0, 1.0)]
for what, g, w in zip(("grad of grad", "forward over reverse", "reverse over forward",
                       "reverse over forward, d/dtangent"), got,
                      (want2, want2, want2, want1)):
    if not close(g, w):
        failures.append("method second order %s: %r, want %r" % (what, g, w))
print("ok method_second_order")
try:
    tangent.autodiff(tangent.autodiff(through_method, mode="forward"), mode="forward")(
        x0, 1.0, 1.0)
    failures.append("forward over forward through a method: not refused")
except tangent.TangentError as e:
    print("refused:", str(e).splitlines()[0].split(": ", 1)[1])


# --- the cache API of Tangent 2 ------------------------------------------------------

def cached(x):
    return x * x * x


tangent.clear_cache()
tangent.grad(cached)
tangent.grad(cached)
stats = tangent.get_cache_stats()
print("cache:", stats["hits"], stats["misses"], stats["entries"], stats["bytes"] > 0,
      sorted(stats["disk"]))
tangent.set_cache_size(0)
print("after set_cache_size(0):", tangent.get_cache_stats()["entries"])
tangent.set_cache_size(256)
try:
    tangent.set_cache_size(-1)
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0].split(": ", 1)[-1])

if failures:
    print("\n".join(failures))
    sys.exit(1)
