"""Functions tangent must refuse, each with a diagnostic (tests/diagnostics.rs snapshots
the exact message: location, source line, caret and hint)."""
import numpy as np


def uses_with(x):
    with open("data") as fh:
        y = x * 2.0
    return y


def uses_try(x):
    try:
        y = 1.0 / x
    except ZeroDivisionError:
        y = 0.0
    return y


def lambda_in_expression(x):
    return (lambda t: t * t)(x)


def lambda_with_default(x):
    f = lambda t, k=2.0: t * k
    return f(x)


def lambda_reassigned(x):
    f = lambda t: t * 2.0
    f = lambda t: t * 3.0
    return f(x)


def max_with_key(x):
    return max([x, x * 2.0], key=abs)


def nested_def(x):
    def inner(t):
        return t * x
    return sum(map(inner, [x, x]))


def uses_global(x):
    # a name declared global may only be read
    global SCALE
    SCALE = x
    return x * SCALE


def star_args(*xs):
    return xs[0]


def kwargs_param(x, **options):
    return x


def bitwise_xor(x):
    return x ^ 2


def bitwise_invert(x):
    return ~x


def dict_literal(x, k):
    # only constant keys: the gradient of the dict is built with the same keys
    d = {k: x}
    return d[k]


def set_literal(x):
    s = {x, 2.0}
    return len(s)


def dict_comprehension(x):
    d = {i: x * i for i in range(3)}
    return d[1]


def for_else(x):
    for i in range(3):
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def while_else(x):
    while x < 10.0:
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def walrus(x):
    if (y := x * 2.0) > 1.0:
        return y
    return x


def reversed_zip(x):
    s = 0.0
    for a, b in reversed(zip([x], [x])):
        s = s + a * b
    return s


def generator_function(x):
    yield x


async def coroutine(x):
    return x


def class_inside(x):
    class Box:
        pass
    return x


def read_after_del(x):
    y = x * 2.0
    del y
    return y * x


def uses_raise(x):
    if x < 0:
        raise ValueError("negative")
    return x


def uses_del(xs):
    del xs[0]
    return xs[0]


def import_inside(x):
    import math
    return math.sin(x)


def attribute_assignment(x):
    x.value = 2.0
    return x


def chained_assignment(x):
    a = b = x
    return a + b


def starred_target(x):
    a, *rest = x, x, x
    return a


def match_statement(x):
    match x:
        case 0:
            return 1.0
    return x


def unknown_numpy_function(x):
    return np.fancy_op(x) * 2.0


def local_callable(x, f):
    return f(x)


def mutating_call(x):
    ys = [0.0]
    ys.extend([x])
    return ys[1]


def zip_strict(xs, ys):
    s = 0.0
    for a, b in zip(xs, ys, strict=True):
        s = s + a * b
    return s


# (`x * 2j` was a bad input here: complex values are differentiated now, or refused at
# run time by the rules written for real numbers only.)


def starred_call(x):
    args = (x, 2.0)
    return max(*args)


def nested_subscript_write(x):
    m = np.zeros((2, 2))
    m[0][1] = x
    return np.sum(m)


def errstate_as_target(x):
    with np.errstate(divide="ignore") as state:
        y = np.log(x)
    return y


def return_inside_errstate(x):
    with np.errstate(divide="ignore"):
        return np.log(x)


def store_into_dict_argument(p, x):
    p["a"] = x * 2.0
    return p["a"]


def zip_outside_a_loop(xs, ys):
    pairs = zip(xs, ys)
    return list(pairs)[0][0]


def items_into_one_name(p):
    s = 0.0
    for kv in p.items():
        s = s + kv[1]
    return s


def calls_bad_helper(x):
    return uses_with(x) * 2.0

from jax import lax  # noqa: E402  (here, so the lines above keep their numbers)


def lax_loop_in_comprehension(x):
    # the loop would run once, before the comprehension
    return sum([lax.fori_loop(0, 3, lambda i, v: v * 2.0, v) for v in [x, x]])


def lax_unknown_keyword(x):
    return lax.fori_loop(0, 3, lambda i, v: v * 2.0, x, trip=3)


def lax_while_test(x):
    while lax.fori_loop(0, 2, lambda i, v: v * 2.0, x) < 10.0:
        x = x + 1.0
    return x

