import time
import math
import tangent


def f(x):
    return math.sin(x) * x


a = tangent.grad(f)
b = tangent.grad(f)
c = tangent.grad(f, optimized=False)
print("same options, same function:", a is b)
print("other options, other function:", a is not c)
t = time.perf_counter()
for _ in range(1000):
    tangent.grad(f)
print("cached grad call: %.1f us" % ((time.perf_counter() - t) / 1000 * 1e6))


@tangent.adjoint(math.sin)
def wrong_on_purpose(y, x):
    d[x] = d[y] * 2.0


d = tangent.grad(f)
print("a new rule rebuilds:", d is not a, d(0.5) != a(0.5))


# Least recently used goes first: with room for two, using `f` again keeps it when a
# third derivative arrives, and `g` (the least recently used) is rebuilt.
def g(x):
    return x * x


def h(x):
    return x * x * x


tangent._CACHE_SIZE = 2
tangent._CACHE.clear()
df, dg = tangent.grad(f), tangent.grad(g)
tangent.grad(f)
dh = tangent.grad(h)
print("lru keeps the recently used:", tangent.grad(f) is df, tangent.grad(g) is not dg,
      len(tangent._CACHE))

# A derivative of a derivative is built one of two ways: each is cached as itself.
tangent._CACHE_SIZE = 256
gf = tangent.grad(f)
by_symmetry = tangent.grad(gf)
tangent.literal_reverse_over_reverse = True
literal = tangent.grad(gf)
tangent.literal_reverse_over_reverse = False
print("the literal reverse over reverse is its own entry:", literal is not by_symmetry,
      "_stack" in literal.__tangent_source__, tangent.grad(gf) is by_symmetry)

# A callee rebound after the first derivative (a notebook cell defining it again): the
# cached derivative was resolved against the old function, so it is built again.
def square(x):
    return x * x


def calls_square(x):
    return square(x) + x


first = tangent.grad(calls_square)(2.0)
square_before = square


def square(x):  # noqa: F811
    return x * x * x


second = tangent.grad(calls_square)(2.0)
third = tangent.grad(tangent.grad(calls_square))(2.0)
square = square_before
print("a rebound callee rebuilds:", first == 5.0, second == 13.0, third == 12.0,
      tangent.grad(calls_square)(2.0) == 5.0)
