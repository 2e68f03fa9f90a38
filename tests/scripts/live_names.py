"""Names resolve as the running program binds them, not as the file's text reads
(issue 14): each line is the exact derivative (analytic value alongside) or a located
error; none may be a silent zero or another function's derivative."""
import functools
import math
import os
import sys

import tangent

try:
    import numpy as np
except ImportError:
    np = None

if np is not None:
    import numpy as npx


def square_sum(x):
    return np.sum(x * x)


def square_sum_if(x):
    return npx.sum(x * x)


class Model:
    def sum(self, x):
        return 6.0 * x

    def evaluate(self, x):
        return 2.0 * x


model = Model()


def method_named_sum(x):
    return model.sum(x)


def parameter_method(m, x):
    return m.sum(x)


def method_named_evaluate(x):
    return model.evaluate(x)


def twice(fn):
    @functools.wraps(fn)
    def wrapper(x):
        return 2.0 * fn(x)
    return wrapper


@twice
def decorated(x):
    return 3.0 * x


def g_three(x):
    return 3.0 * x


def g_two(x):
    return 2.0 * x


g_two = g_three


def calls_rebound(x):
    return g_two(x)


def k(x):
    return 1.0 * x


if True:
    def k(x):
        return 5.0 * x


def calls_redefined(x):
    return k(x)


from math import sin  # noqa: E402

sin = math.cos


def calls_sin(x):
    return sin(x)


def typo(x):
    return np.summ(x * x)


def undefined(x):
    return sqaure(x)  # noqa: F821


@functools.lru_cache
def cached(x):
    return x * x


def calls_wrapped(x):
    return decorated(x) + x


def attempt(label, thunk, expected=None):
    try:
        value = thunk()
        print(label, value, "expected", expected)
    except (tangent.TangentError, TypeError, ValueError) as e:
        print(label, type(e).__name__ + ":", str(e).splitlines()[0])
        hint = [line for line in str(e).splitlines() if line.startswith("hint:")]
        if hint:
            print("   ", hint[0])


attempt("try import:", lambda: tangent.grad(square_sum)(np.array([1.0, 2.0])), "[2. 4.]")
attempt("if import:", lambda: tangent.grad(square_sum_if)(np.array([1.0, 2.0])), "[2. 4.]")
attempt("method sum:", lambda: tangent.grad(method_named_sum)(1.0), 6.0)
attempt("parameter's method:", lambda: tangent.grad(parameter_method, wrt=1)(model, 1.0))
attempt("parameter's method forward:",
        lambda: tangent.autodiff(parameter_method, wrt=1, mode="forward")(model, 1.0, 1.0))
attempt("method evaluate:", lambda: tangent.grad(method_named_evaluate)(1.0), 2.0)
attempt("wraps:", lambda: tangent.grad(decorated)(1.0), 6.0)
attempt("wrapped callee:", lambda: tangent.grad(calls_wrapped)(1.0), 7.0)
attempt("rebound callee:", lambda: tangent.grad(calls_rebound)(1.0), 3.0)
attempt("redefined in if:", lambda: tangent.grad(calls_redefined)(1.0), 5.0)
attempt("sin = math.cos:", lambda: tangent.grad(calls_sin)(0.5), -math.sin(0.5))
attempt("forward sin = math.cos:",
        lambda: tangent.autodiff(calls_sin, mode="forward")(0.5, 1.0), -math.sin(0.5))
attempt("typo:", lambda: tangent.grad(typo))
attempt("undefined:", lambda: tangent.grad(undefined))
attempt("lru_cache:", lambda: tangent.grad(cached)(3.0), 6.0)

# A module edited after it was imported: its functions are the old code.
import shutil  # noqa: E402
import tempfile  # noqa: E402

here = tempfile.mkdtemp()
path = os.path.join(here, "live_edited.py")
with open(path, "w") as f:
    f.write("def f(x):\n    return 2.0 * x\n")
sys.path.insert(0, here)
import live_edited  # noqa: E402

with open(path, "w") as f:
    f.write("def f(x):\n    return 12.0 * x\n")
try:
    tangent.grad(live_edited.f)
    print("edited file: no error")
except tangent.TangentError as e:
    print("edited file:", str(e).splitlines()[0].replace(here, "<tmp>"))
shutil.rmtree(here)
