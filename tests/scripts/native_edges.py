"""compile='native' against the interpreted adjoint (the oracle for Python semantics)
on edge inputs, plus analytic derivatives, the fallback message and strict mode."""
import math
import sys
import numpy as np
import tangent


def recip(x):
    return 1.0 / (x - 1.0)


def square(x):
    return x * x


def expo(x):
    return math.exp(x)


def powered(x, n):
    k = n ** 5
    return x * float(k)


def floor_mod(x, n):
    q = n // 3
    r = n % 3
    return x * float(q) + x * x * float(r)


def branchy(x, flag):
    if flag:
        return math.sin(x)
    return math.cos(x)


def counted(x):
    s = 0.0
    i = 0
    while i < 5:
        s = s + x * float(i)
        i = i + 1
    return s


def helper(x, scale=1.0):
    return scale * x * math.sin(x)


def uses_helper(x):
    return helper(x) + helper(2.0 * x, scale=0.5)


def rpow(x, n):
    if n == 0:
        return 1.0
    return x * rpow(x, n - 1)


def float_floor(x, a, b):
    return x * (a // b)


def float_mod(x, a, b):
    return x * (a % b)


def float_pow(x, a, b):
    return x * (a ** b)


def arrays(x):
    return np.sum(x * x, axis=0)


def outcome(f, *args):
    """(kind, value): the value returned or the exception type raised."""
    try:
        v = f(*args)
    except Exception as e:  # noqa: BLE001 - the type is the result
        return ("raise", type(e).__name__)
    if isinstance(v, float) and v != v:
        return ("nan", None)
    return ("value", v)


checked = 0
cases = [
    (recip, (1.0,)), (recip, (3.0,)), (square, (float("nan"),)), (square, (float("inf"),)),
    (expo, (1000.0,)), (expo, (2.0,)), (powered, (1.5, 10)), (powered, (1.5, 10 ** 4)),
    (floor_mod, (2.0, -7)), (floor_mod, (2.0, 8)), (floor_mod, (0.5, 0)),
    (branchy, (0.3, True)), (branchy, (0.3, False)), (counted, (2.0,)),
    (uses_helper, (0.7,)), (rpow, (1.3, 5)),
]
# Python's float //, % and ** (CPython's values, e.g. 2.5 // 0.1 == 24.0 and
# -2.5 // inf == -1.0), natively and interpreted.
INF = float("inf")
for a, b in [(2.5, 0.1), (1.0, 0.1), (-1.0, 0.5), (-2.5, INF), (2.5, -INF), (0.0, -1.0),
             (-0.0, -0.0), (0.0, -1.0), (-8.0, 1 / 3), (1e300, 2.0), (INF, 2.0), (3.0, 0.0)]:
    cases += [(float_floor, (1.5, a, b)), (float_mod, (1.5, a, b)), (float_pow, (1.5, a, b))]
assert tangent.grad(float_floor, compile="native")(1.0, 2.5, 0.1) == 24.0
assert tangent.grad(float_floor, compile="native")(1.0, -2.5, INF) == -1.0
assert tangent.grad(float_pow, compile="native")(1.0, -0.0, -0.0) == 1.0
for f, args in cases:
    native = tangent.grad(f, compile="native")
    python = tangent.grad(f, compile="python")
    assert type(native).__name__ == "NativeFunction", (f.__name__, type(native))
    assert native.__tangent_source__ == python.__tangent_source__
    got, want = outcome(native, *args), outcome(python, *args)
    assert got == want, (f.__name__, args, got, want)
    checked += 1

# Analytic oracles.
assert tangent.grad(recip, compile="native")(3.0) == -1.0 / 4.0
assert tangent.grad(counted, compile="native")(2.0) == 0.0 + 1.0 + 2.0 + 3.0 + 4.0
assert abs(tangent.grad(branchy, compile="native")(0.3, False) + math.sin(0.3)) < 1e-15
assert tangent.grad(powered, compile="native")(1.5, 10 ** 4) == float(10 ** 20)
# Calls of user functions (and of their generated gradients) run natively too.
x = 0.7
want = (math.sin(x) + x * math.cos(x)) + 0.5 * 2.0 * (math.sin(2 * x) + 2 * x * math.cos(2 * x))
assert abs(tangent.grad(uses_helper, compile="native")(x) - want) < 1e-14
# Recursion too.
assert abs(tangent.grad(rpow, compile="native")(1.3, 5) - 5 * 1.3 ** 4) < 1e-13

# Not scalar code: compile='native' says why and runs interpreted; 'native!' refuses.
df = tangent.grad(arrays, compile="native")
assert type(df).__name__ != "NativeFunction"
assert float(df(np.ones(3))[0]) == 2.0
try:
    tangent.grad(arrays, compile="native!")
except tangent.TangentError as e:
    msg = str(e)
    assert "np.sum" in msg or "indexing" in msg or "call of" in msg, msg
    assert "line" in msg, msg
    print("strict:", msg)
else:
    raise AssertionError("compile='native!' accepted array code")
try:
    tangent.grad(square, compile="fast")
except ValueError as e:
    assert "compile must be one of" in str(e), e
else:
    raise AssertionError("compile='fast' accepted")
print("native edges: %d cases agree" % checked)
