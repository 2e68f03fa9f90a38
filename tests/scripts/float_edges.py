"""Float arithmetic at edge values, one line per expression: the expression and the repr
of its result, or the name of the exception it raises. tests/bridge.rs runs this in the
embedded interpreter and in CPython and compares the output byte for byte.

Covers `%`, `//`, `divmod`, `**`, `pow`, their dunder methods (`float.__mod__` ... also
reached through `operator`), the in-place forms, `math.fmod` and `round`, over floats
(signed zeros, infinities, nan, subnormals, values near the limits, decimal fractions
that are not exact in binary) and ints (small, large, too large for a float).
"""

import math
import operator

INF = float("inf")
NAN = float("nan")

FLOATS = [
    0.0, -0.0, INF, -INF, NAN,
    0.1, -0.1, 0.3, 0.5, -0.5, 0.7, 1.0, -1.0, 1.5, 2.0, 2.5, -2.5, 3.0, -3.0, 7.0,
    1 / 3, -8.0, 1e16, 9007199254740992.0, 1e300, 1e308, -1e308,
    1.7976931348623157e308, 5e-324, -5e-324, 1e-300, 2.2250738585072014e-308,
]
INTS = [0, 1, -1, 2, 3, -3, 7, 10**20, -(10**20), 2**1024]


def lcg(seed):
    while True:
        seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
        yield seed >> 33


_gen = lcg(2026)
# Exact dyadic / decimal-looking values whose quotients sit near integers, where the
# floor of a rounded quotient and CPython's corrected floor differ.
RANDOM_PAIRS = []
for _ in range(200):
    a = (next(_gen) % 2000001 - 1000000) / 1000.0
    b = (next(_gen) % 20001 - 10000) / 10000.0
    RANDOM_PAIRS.append((a, b))


def show(label, thunk):
    try:
        r = thunk()
    except Exception as e:  # the type name is what both hosts must agree on
        r = type(e).__name__
    else:
        r = repr(r)
    print(label, "->", r)


def imod(a, b):
    a %= b
    return a


def ifloordiv(a, b):
    a //= b
    return a


def ipow(a, b):
    a **= b
    return a


def binary_forms(a, b):
    ra, rb = repr(a), repr(b)
    show(f"{ra} % {rb}", lambda: a % b)
    show(f"{ra} // {rb}", lambda: a // b)
    show(f"divmod({ra}, {rb})", lambda: divmod(a, b))
    show(f"{ra} ** {rb}", lambda: a**b)


def all_forms(a, b):
    binary_forms(a, b)
    ra, rb = repr(a), repr(b)
    show(f"pow({ra}, {rb})", lambda: pow(a, b))
    show(f"math.fmod({ra}, {rb})", lambda: math.fmod(a, b))
    show(f"operator.mod({ra}, {rb})", lambda: operator.mod(a, b))
    show(f"operator.floordiv({ra}, {rb})", lambda: operator.floordiv(a, b))
    show(f"operator.pow({ra}, {rb})", lambda: operator.pow(a, b))
    show(f"{ra} %= {rb}", lambda: imod(a, b))
    show(f"{ra} //= {rb}", lambda: ifloordiv(a, b))
    show(f"{ra} **= {rb}", lambda: ipow(a, b))
    if isinstance(a, float):
        show(f"{ra}.__mod__({rb})", lambda: a.__mod__(b))
        show(f"{ra}.__floordiv__({rb})", lambda: a.__floordiv__(b))
        show(f"{ra}.__divmod__({rb})", lambda: a.__divmod__(b))
        show(f"{ra}.__pow__({rb})", lambda: a.__pow__(b))
        show(f"float.__mod__({ra}, {rb})", lambda: float.__mod__(a, b))
    if isinstance(b, float):
        show(f"{rb}.__rmod__({ra})", lambda: b.__rmod__(a))
        show(f"{rb}.__rfloordiv__({ra})", lambda: b.__rfloordiv__(a))
        show(f"{rb}.__rdivmod__({ra})", lambda: b.__rdivmod__(a))
        show(f"{rb}.__rpow__({ra})", lambda: b.__rpow__(a))


class F(float):
    """A float subclass created after start-up: it inherits float's operators."""


for a in FLOATS:
    for b in FLOATS:
        all_forms(a, b)
    for i in INTS:
        all_forms(a, i)
        all_forms(i, a)

for a, b in RANDOM_PAIRS:
    binary_forms(a, b)

for a, b in [(2.5, 0.1), (-1.0, 0.5), (-8.0, 1 / 3), (0.0, -1.0), (-0.0, -0.0)]:
    show(f"F({a!r}) % {b!r}", lambda: F(a) % b)
    show(f"F({a!r}) // F({b!r})", lambda: F(a) // F(b))
    show(f"divmod({a!r}, F({b!r}))", lambda: divmod(a, F(b)))
    show(f"F({a!r}) ** {b!r}", lambda: F(a) ** b)

for args in [(2.0, 3.0, 5), (2, 3.0, 5), (2.0, 3, 5), (2, 3, 5), (2.0, 3.0, None)]:
    show(f"pow{args!r}", lambda: pow(*args))

ROUND_VALUES = FLOATS + [
    0.49999999999999994, 0.5000000000000001, 1.4999999999999998, 2.675, 0.125, 0.375,
    -0.125, 1.005, 0.285, 123456.789, 1e22, 4503599627370497.0, 4503599627370496.5,
    -2.5, 3.5, -3.5, 1234.5, 1250.0, 1350.0, -150.0, 5.55, 0.0005, 8.5e-5,
]
for x in ROUND_VALUES:
    show(f"round({x!r})", lambda: round(x))
    for n in [0, 1, 2, 3, -1, -2, -3, 5, 15, 17, 22, 23, 300, 308, 320, 324, 400, -307,
              -308, -309, -400]:
        show(f"round({x!r}, {n})", lambda: round(x, n))
    show(f"round({x!r}, None)", lambda: round(x, None))
for a, b in RANDOM_PAIRS[:50]:
    for n in [0, 1, 2, 3, -1, -2]:
        show(f"round({a!r}, {n})", lambda: round(a, n))
        show(f"round({b!r}, {n})", lambda: round(b, n))
