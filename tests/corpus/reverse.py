"""Reverse-mode corpus: every construct the front end accepts, as small functions.

Each function is checked against central finite differences by check_fd.py (run through
`tangent run`), and its generated gradient source is snapshot-tested (tests/snapshots.rs).
CASES maps a function name to (arguments, wrt).
"""
import collections
import contextlib
import dataclasses
import logging
import math
import warnings
from contextlib import nullcontext
import numpy as np

import custom
import factories
import objects


# --- arithmetic and operators ------------------------------------------------

def poly(x):
    a = x * x
    b = x * a
    return a + b


def arith_all(x, y):
    return (x + y) * (x - y) / (y * y + 1.0) - x ** 3 + 2.0 ** y


def unary_ops(x):
    y = -x
    z = +y
    return z * -x


def power_ops(x):
    return x ** 2 + x ** 0.5 + 3.0 ** x


def constants_only(x):
    c = 3.0
    d = c * 2
    return x * d + c


def division_chain(x, y):
    return x / y / (x + 2.0)


# --- math module ----------------------------------------------------------------

def math_mix(x):
    return math.sin(x) * math.cos(x) + math.exp(-x) + math.log(x + 2.0) + math.sqrt(x + 1.0)


def math_more(x):
    return math.tanh(x) + math.atan2(x, 2.0) + math.pow(x, 3.0) + math.tan(x / 3.0)


def math_inverse(x):
    return math.asin(x / 2.0) + math.acos(x / 3.0) + math.atan(x) + math.log10(x + 1.0)


def module_constant(x):
    return math.pi * x * x + math.e


# --- assignment forms -----------------------------------------------------------

def tuple_unpack(x, y):
    a, b = x * y, x + y
    return a * b


def swap(x, y):
    a = x * 2.0
    b = y * 3.0
    a, b = b, a
    return a - b * b


def aug_assign(x):
    y = x
    y += x * x
    y *= 2.0
    y -= x
    y /= 3.0
    return y


def reassign(x):
    y = x * 2.0
    y = y * y
    y = math.sin(y)
    return y


def tuple_literal_index(x, y):
    t = (x * x, y * 3.0, x + y)
    return t[0] * t[2] + t[1]


def list_literal_index(x):
    v = [x, x * x, 2.0]
    return v[0] + v[1] * v[2]


def unpack_from_call(x):
    a, b = helper_pair(x)
    return a * b


def helper_pair(x):
    return (x * 2.0, x + 1.0)


def default_args(x, scale=2.0, shift=1.0):
    return scale * x * x + shift


# --- branches -------------------------------------------------------------------

def if_else(x):
    if x > 0.0:
        y = x * x
    else:
        y = -x
    return y


def if_elif_else(x):
    if x > 2.0:
        y = x * 3.0
    elif x > 0.0:
        y = x * x
    else:
        y = math.exp(x)
    return y


def if_without_else(x):
    y = x * 2.0
    if x < 1.0:
        y = y * x
    return y


def conditional_expr(x):
    y = x * x if x > 0.5 else x * 3.0
    return y + (x if x < 2.0 else 2.0)


def bool_ops(x, y):
    if x > 0.0 and y > 0.0 or not x < -5.0:
        z = x * y
    else:
        z = x + y
    return z


def comparisons(x):
    y = x
    if 0.0 < x < 1.0:
        y = x * 4.0
    if x != 0.3 and x >= 0.1:
        y = y + x
    return y


def pass_stmt(x):
    if x > 100.0:
        pass
    else:
        x = x * 2.0
    return x * x


# --- returns --------------------------------------------------------------------

def early_return(x):
    if x > 1.0:
        return x * 2.0
    y = x * x
    return y + 1.0


def early_return_in_loop(x):
    s = x
    for i in range(10):
        s = s * 1.1
        if s > 3.0:
            return s * x
    return s


def return_expression(x, y):
    return math.sin(x * y) + x


# --- loops ----------------------------------------------------------------------

def for_range(x):
    s = 0.0
    for i in range(5):
        s = s + x * i
    return s


def for_range_start_step(x):
    s = x
    for i in range(1, 7, 2):
        s = s * x + i
    return s


def for_nested(x):
    s = 0.0
    for i in range(3):
        for j in range(4):
            s = s + x * i + j * s * 0.1
    return s


def for_over_list(x):
    weights = [1.0, 2.0, 3.0]
    s = 0.0
    for w in weights:
        s = s + w * x * x
    return s


def for_over_array(a):
    s = 0.0
    for v in a:
        s = s + v * v
    return s


def while_loop(x):
    y = x
    while y < 10.0:
        y = y * 2.0
    return y


def while_counter(x):
    i = 0
    s = x
    while i < 4:
        s = math.sin(s) + x
        i = i + 1
    return s


def loop_break(x):
    s = x
    for i in range(20):
        s = s * 1.5
        if s > 10.0:
            break
    return s


def loop_continue(x):
    s = 0.0
    for i in range(6):
        if i % 2 == 0:
            continue
        s = s + x * i
    return s


def while_break(x):
    s = x
    while True:
        s = s + x * s
        if s > 5.0:
            break
    return s


def recurrence(x):
    s = x
    for i in range(100):
        if s > 0.5:
            s = math.sin(s) * x
        else:
            s = s * s + x
    return s


# --- arrays ---------------------------------------------------------------------

def np_elementwise(a):
    return np.sum(np.exp(a) * np.sin(a) + np.tanh(a) - np.sqrt(a * a + 1.0))


def np_log_abs(a):
    return np.sum(np.log(np.abs(a) + 1.0) * np.cos(a))


def np_maximum_where(a):
    b = np.maximum(a, 0.1)
    c = np.where(a > 0.0, a * a, -a)
    return np.sum(b * c)


def np_matmul(x, w):
    h = np.tanh(x @ w)
    return np.sum(h * h)


def np_dot_vec(a, b):
    return np.dot(a, b) * 2.0


def np_mean_axis(a):
    m = np.mean(a, axis=0)
    return np.sum(m * m)


def np_sum_keepdims(a):
    s = np.sum(a, axis=1, keepdims=True)
    return np.sum(a * s)


def np_max(a):
    return np.max(a * 2.0) + np.sum(np.max(a, axis=0))


def np_reshape_transpose(a):
    b = np.reshape(a, (3, 2))
    c = np.transpose(b)
    return np.sum(c * a)


def np_dot_T(a):
    return np.sum(a.T @ a)


def np_broadcast(a, b):
    return np.sum(a * b + b)


def np_methods(a):
    return a.sum() * 2.0 + a.mean()


def np_index_read(a):
    return a[0] * a[2] + a[-1]


def np_slice_read(a):
    return np.sum(a[1:3] * a[0:2])


def np_index_2d(a):
    return a[1, 2] * a[0, 0] + np.sum(a[1])


def np_index_write(a):
    b = a * 1.0
    b[0] = a[1] * a[2]
    b[1:3] = a[0:2] * 3.0
    return np.sum(b * b)


def np_loop_rows(m):
    s = 0.0
    for row in m:
        s = s + np.sum(row * row)
    return s


def np_array_from_scalars(x, y):
    v = np.array([x, y * 2.0, x * y])
    return np.sum(v * v)


def np_float_convert(a):
    return float(np.sum(a)) * 2.0


# --- user functions -------------------------------------------------------------

def square(x):
    return x * x


def cube_plus(x, y):
    return x * square(x) + y


def calls_user(x):
    return square(x) + cube_plus(x, 2.0) * square(x + 1.0)


def calls_user_two_active(x, y):
    return cube_plus(x, y * y)


def calls_in_loop(x):
    s = x
    for i in range(3):
        s = square(s) * 0.5
    return s


def mlp_layer(w, x):
    return np.tanh(x @ w)


def mlp_loss(w1, w2, x):
    h = mlp_layer(w1, x)
    out = np.tanh(h @ w2)
    return np.sum(out * out)


def np_build_in_loop(a):
    out = np.zeros(3)
    for i in range(3):
        out[i] = a[i] * a[i] + i
    return np.sum(out * a)


def np_accumulate_index(a):
    acc = np.zeros(4)
    for i in range(a.shape[0]):
        acc[i % 4] += a[i] * 2.0
    return np.sum(acc * acc)


def rnn(h, w, xs):
    for t in range(len(xs)):
        h = np.tanh(np.dot(w, h) + xs[t])
    return np.sum(h)


def print_inside(x):
    y = x * 3.0
    print("tracing y =", y)
    return y * y


def logged_square(x):
    # an effect (a print) in a callee: its gradient runs the callee's forward pass once
    # (two-phase), so the print happens once per call, as in the primal
    print("square of", x)
    return x * x


def calls_logged(x):
    return logged_square(x) * 3.0 + logged_square(x * 0.5)


def inactive_branch_data(x, flag):
    k = 2.0 if flag else 3.0
    return x * k


def list_append_loop(x):
    ys = []
    for i in range(4):
        ys.append(x * i + 1.0)
    s = 0.0
    for y in ys:
        s = s + y * y
    return s


def list_comprehension(x):
    ys = [x * k for k in range(1, 4)]
    zs = [y * y for y in ys if y > 0.5]
    return sum(zs) + ys[0]


def nested_comprehension(x):
    grid = [x * i + j for i in range(2) for j in range(3)]
    return grid[4] * grid[1]


def lambda_called(x):
    sq = lambda t: t * t
    scale = lambda t, k: t * k + x
    return sq(x) + scale(sq(x), 2.0)


def recursive_power(x, n):
    if n == 0:
        return 1.0
    return x * recursive_power(x, n - 1)


def negative_literals(m):
    rows = np.sum(m * m, axis=-1) + 1.0
    last = m[-1]
    return np.sum(rows ** -1.5) + np.sum(last * -2.0) + (-1.0) ** 2 * np.sum(m)


# --- regressions of silently wrong derivatives (differential testing) -------------

def self_assign(x):
    x = x
    return x * x


def leaky_relu(x):
    x = x if x > 0 else 0.01 * x
    return x * x


def clamp_below(x):
    lo = 0.5
    if x < lo:
        x = lo
    else:
        x = x
    return 3.0 * x * x


def masked_relu(x, w):
    h = x * 1.0
    h[h < 0] = 0.0
    return np.sum(h * w)


def zero_the_largest(x):
    h = x * 1.0
    h[np.argmax(h)] = 0.0
    return np.sum(h * h)


def modulo(x, c):
    return (3.0 * x) % c + x % 0.7 * x


def copysign_magnitude(x):
    return math.copysign(x, -2.0) * x


def full_of_x(x, w):
    return np.sum(np.full(3, x) * w) + np.sum(np.full_like(w, x * x))


def linspace_to_x(x):
    return np.sum(np.linspace(0.0, x, 4) ** 2) + np.sum(np.arange(x, x + 2.5))


def loop_rebinds_iterable(x):
    xs = [x, 2.0 * x]
    s = 0.0
    for v in xs:
        xs = [v * 3.0]
        s = s + v * xs[0]
    return s


LIVE_DEFAULT = 2.0


def default_from_global(x, k=LIVE_DEFAULT):
    return x * k


LIVE_DEFAULT = 3.0  # the default stays 2.0: it was evaluated when `def` ran


def scalar_alias_update(x):
    y = x
    y += x * x
    z = y
    z *= 2.0
    return y + z


def abs_of_numpy_scalar(a):
    # builtin abs of NumPy scalars: their comparisons give NumPy bools (real NumPy)
    return abs(np.sum(a)) * 2.0 + abs(a[0])


def min_max_of_three(x, y):
    return min(x, y, 0.5) + max(x * y, y, -3.0)


def rec_helper(x, n):
    if n == 0:
        return x * x
    return math.sin(x) + 0.5 * rec_helper(x, n - 1)


def recursive_result_overwritten(x):
    # the recursive callee's result gets no gradient: its backward phase must still run
    # to take its values off the shared tape (found by the differential tester)
    y = x * 1.5
    for i in range(2):
        y = y * x
        v = rec_helper(y, 2)
        v = y * 2.0
        y = y + v
    return y


# --- nested functions, closures and lambdas ---------------------------------------------

def nested_capture(x, y):
    c = x * y

    def scaled(a, power=2):
        return a ** power * c + y
    return scaled(x) + scaled(y, power=3)


def nested_recursive(x):
    def power(a, n):
        if n == 0:
            return 1.0
        return a * power(a, n - 1)
    return power(x, 3) + power(math.sin(x), 2)


def nested_siblings(x):
    def inner(a):
        return a * x

    def outer(a):
        return inner(a) + a * a
    return outer(x) * inner(2.0)


def nested_in_loop(x):
    def step(v):
        return np.tanh(v) * 0.5 + v
    v = x
    for _ in range(3):
        v = step(v)
    return np.sum(v)


closure_loss = factories.make_scaled_loss(1.5)
# its closure holds the array the case passes as its argument (CASES)
ORDER_DATA = np.array([0.4, -1.3, 2.1, 0.8, -0.2])
closure_order_loss = factories.make_order_loss(ORDER_DATA, np.array([-2.0, -0.5, 0.5, 1.5, 3.0]))
closure_head = factories.make_head(0.7)(1.3)
lambda_loss = lambda x: x * math.sin(x) + x ** 2  # noqa: E731


# --- objects built from differentiated values; keyword-only and *args helpers ----
# (issue 15 items 2 and 3)

# Built with the host's live names only (the snapshot test reads this file's text):
# tests/corpus/objects.py.
object_from_args = objects.object_from_args

# Functions with custom derivative rules (tangent.custom_jvp / custom_vjp), also through
# the live program only: tests/corpus/custom.py. A custom_vjp function has no forward
# rule (forward mode through it, also reverse over forward, is a located error): the
# checkers skip those.
custom_jvp_rule = custom.custom_jvp_rule
custom_vjp_rule = custom.custom_vjp_rule
custom_vjp_single = custom.custom_vjp_single
REVERSE_ONLY = {"custom_vjp_rule", "custom_vjp_single"}


def scaled_sum(x, *, scale=2.0, shift=0.0):
    return scale * np.sum(x) + shift


def kwonly_helper(x, s):
    return scaled_sum(x * x, scale=s) + scaled_sum(x, shift=s)


def weighted(x, *weights):
    total = 0.0
    for w in weights:
        total = total + w * x
        x = x * x
    return total


def varargs_helper(x, y):
    return weighted(x, y, 2.0, y * y) + weighted(y)


# --- the small statements (issue 15 item 5) ------------------------------------

OFFSET = 0.25


def small_statements(x):
    """A docstring."""
    assert x > 0.0, "x must be positive"
    global OFFSET
    y = x * x + OFFSET
    "a bare string is documentation too"
    z = math.sin(y) * x
    del y
    pass
    return z


def del_in_loop(x):
    s = 0.0
    for i in range(3):
        t = x * (i + 1.0)
        s = s + t * t
        del t
    return s


# --- structured arguments (issue 15 item 3) ------------------------------------

Point = collections.namedtuple("Point", ["a", "b"])


@dataclasses.dataclass
class Params:
    w: np.ndarray
    b: float


def dict_arg(p):
    # p['a'] is read twice: its gradients accumulate
    return p["a"] * p["b"] + math.sin(p["a"])


def dict_variable_key(p):
    total = 0.0
    for k in ("a", "b"):
        total = total + p[k] * p[k]
    return total * p["a"]


def dict_nested_arrays(p):
    layer = p["layer"]
    return np.sum(np.tanh(layer["w"] * p["x"])) + layer["b"] * p["x"][0]


def dict_twice(p, q):
    # the same dict is passed as both arguments (CASES)
    return p["a"] * q["a"] + q["b"]


def tuple_float_array(pair):
    return pair[0] * np.sum(pair[1] ** 2)


def list_arg(xs):
    return xs[0] * xs[1] + np.sum(xs[2])


def namedtuple_arg(pt):
    return pt.a * pt.b + pt[0]


def dataclass_arg(p):
    return np.sum(np.tanh(p.w) * p.b) + p.b * p.b


def dict_alias_read(p):
    q = p
    return q["a"] * p["a"]

def dict_get(p):
    # "c" is missing: the default's value (and gradient) is used
    return p.get("a") * p.get("c", p["b"]) + p.get("b", 2.0)


def loop_enumerate(xs):
    s = 0.0
    for i, v in enumerate(xs):
        s = s + (i + 1.0) * v * v
    return s


def loop_zip(xs, ws):
    s = 0.0
    for x, w in zip(xs, ws):
        s = s + math.sin(x) * w
    return s


def loop_dict_items(p):
    s = 0.0
    for k, v in p.items():
        s = s + v * v
    for v in p.values():
        s = s * v
    for k in p.keys():
        s = s + p[k]
    return s


def dict_literal_values(x, y):
    # a dict built from active values, read back (one value twice)
    d = {"a": x * y, "b": math.sin(x), 3: y}
    return d["a"] * d["b"] + d[3] * d["a"]


def dict_literal_to_helper(x):
    return dict_arg({"a": x, "b": x * x})


def dict_store_local(p, x):
    # a store into a dict built here: no other name sees it
    q = {"a": p["a"], "b": 1.0}
    q["a"] = x * q["a"]
    q["b"] = q["a"] + p["b"]
    return q["a"] * q["b"]


# --- transparent `with` blocks (issue 15 item 7) ------------------------------------

def with_nullcontext(x):
    with nullcontext(x * 2.0) as y:
        z = y * math.sin(x)
    with contextlib.nullcontext():
        z = z + x
    return z


def with_errstate(x):
    # the body runs inside the context (which only silences warnings here)
    with np.errstate(divide="ignore", invalid="ignore"):
        y = np.log(x * x)
        m = np.where(np.isfinite(y), y, 0.0)
    return np.sum(m * x)


def with_catch_warnings(x):
    s = 0.0
    for i in range(2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = s + math.exp(x * i)
    return s


# --- order statistics, NaN-ignoring reductions, fmax/fmin and interp under aliasing,
# rebinding and in-place updates (inputs chosen with no tie or knot at the point unless
# the tie moves with the input, as in fmax(a, a) or a duplicated array)

def fmax_self(a):
    # fmax(a, a) is a: the gradient of each element is exactly 1 (not 0, not 2)
    return np.sum(np.fmax(a, a) * W5) + np.sum(np.fmin(a, a))


def fmin_self_copy(a):
    b = a * 1.0
    return np.sum(np.fmin(a, b) * np.cos(b)) + np.sum(np.fmax(b, a) * a)


def fmax_reversed_view(a):
    # the middle element is compared with itself
    r = a[::-1]
    return np.sum(np.fmax(a, r) * W5) + np.sum(np.fmin(r, a) * a)


def interp_fp_is_x(a):
    # the same array as the points and the values read at them
    return np.sum(np.interp(a, XP4, a) * a) + np.interp(a[1], XP4, a[::-1])


def interp_left_right_from_x(a):
    # outside the knots: left/right are elements of the interpolated array itself
    x = a * 2.0
    return np.sum(np.interp(x, XP4, a, left=a[0], right=a[3]) * x)


def nan_rebind(x, y):
    x = np.nansum(x * x)
    x = x + np.nanmax(y)
    y = y * x
    return x * np.nanmean(y) + np.nanmin(y)


def median_rebound(a):
    m = np.median(a)
    a = a[::-1] * 2.0 + m
    return m * np.sum(a * a) + np.ptp(a)


def median_then_inplace(a):
    b = a * 1.0
    m = np.median(b)
    b *= 2.0
    return m + b.sum()


def quantile_then_store(a):
    # the store changes b's order: the gradient must see b as quantile saw it
    b = a * 1.0
    q = np.quantile(b, 0.3)
    p = np.percentile(b, [20.0, 90.0])
    b[1] = 10.0
    return q * np.sum(b * b) + p[0] * p[1]


def ptp_of_copy(a):
    b = a.copy()
    b[0] = 0.0
    return np.ptp(b) * np.sum(a) + np.ptp(b * a)


def quantile_after_copy_in(a):
    # b[1] is a[0] as b[0] is: a tie that moves with a[0], differentiable
    b = a * 1.0
    b[1] = a[0]
    return np.quantile(b, 0.3) + np.median(b) * np.quantile(b, 0.8, method="nearest")


def stats_of_doubled(a):
    # every value twice: ties that move together (median, nanmax, ptp, quantile)
    d = np.concatenate([a, a])
    return (np.median(d) + np.nanmax(d) * np.ptp(d) + np.quantile(d, 0.3)
            + np.nanmin(np.stack([a, a])))


def nan_masked_alias(a):
    # z is a with NaN holes; the tangents at the holes (of z * z, sin(z)) are NaN and
    # must be ignored, not multiplied by 0. fmin(a, z) is a: a tie that moves with a.
    z = np.where(a > 1.0, np.nan, a)
    return (np.nansum(z * z) + np.nanmean(z) * np.nanmax(z + a) + np.nanmin(np.sin(z))
            + np.sum(np.fmax(z * z, a)) + np.sum(np.fmin(a, z)))


def nan_masked_rebind(a):
    # a and z rebound between the NaN-ignoring calls; each NaN hole comes from a where
    z = np.where(a < 0.0, np.nan, a)
    a = np.nansum(z) * a
    z = np.where(np.logical_or(np.isnan(z), z > 1.0), np.nan, z + a)
    return np.nanmean(z * z) + np.nanmax(z) + np.sum(a)


def nan_store(a):
    # a NaN stored into a copy; a later store must not change what nanmean saw
    z = a * 1.0
    z[1] = np.nan
    m = np.nanmean(z)
    z[3] = a[0]
    return m * np.nanmax(z) + np.nansum(z * z)


def quantile_axis_views(m):
    # quantiles along rows and the same statistics through the transposed view
    q = np.quantile(m, [0.25, 0.6], axis=1)
    r = np.median(m.T, axis=0)
    return np.sum(q * r) + np.sum(np.nanmax(m, axis=0) * np.ptp(m.T, axis=1))


def stats_dict(p):
    x = p["x"]
    y = p["x"]
    z = np.where(x > 1.0, np.nan, y)
    return np.nanmean(z) * np.median(y) + np.ptp(p["w"] * x) + np.interp(p["w"][0], XP4, x)


def stats_dict_twice(p, q):
    # the same dict is passed as both arguments (CASES)
    return np.median(p["x"] * q["x"]) + np.sum(np.fmax(p["x"], q["w"])) + np.nansum(q["x"])


def stats_dataclass(p):
    return np.quantile(p.w, 0.4) * p.b + np.ptp(p.w) * np.nanmax(p.w * p.b)


# --- reductions of lists (forward mode of np.max over a list gave the mask) -------

def list_extrema(x, y):
    # each one at a different winner: x * 2.0 wins the max, y the min
    return (np.max([x * 2.0, y, 0.1]) + np.min([x * 2.0, y, 0.1]) * x
            + np.amax([x, y]) * np.amin([y, x * x]) + np.nanmax([y, x]) - np.nanmin([x, y]))


def list_order_stats(x, y):
    return np.ptp([x * x, y, 0.1]) + np.median([x, y * 3.0, 0.2]) * np.std([x, y * x])


def std_of_scalar(x):
    # std of one element is the constant 0: its derivative is 0 (it was 0 / 0)
    return np.std(x) + x * np.std(x * x) + np.var(x)


def var_std_axes(x):
    return np.sum(np.var(x, axis=0)) + np.std(x) * np.sum(np.std(x * x, axis=1, ddof=1))


# --- formatting and printing: run once, never part of a derivative ---------------

def formatting(x, y):
    a = x * y
    print(f"a={a:.3f} y={y!r} {x=} {{braces}} {a:{8}.{2}f}")
    label = "x is %.2f" % x
    text = "{} and {:.1f}".format(x, y) + label
    logging.debug("a=%s", a)
    b = math.sin(a) + x
    return b * 3.0 + len(f"{len(text)}") * 0.0


# --- generator expressions and the builtins that consume them -----------------

def generator_sum(x):
    return sum(x ** i for i in range(5)) + sum(math.sin(x * k) for k in (1.0, 2.0) if k > 1.5)


def generator_extrema(x, y):
    best = max(x * k for k in (1.0, 2.0, 0.5))
    worst = min([x * y, y, x + 1.0])
    return best * worst + max((x, y)) - min(math.cos(x * k) for k in [0.5, 1.5])


def consumed_iterators(x, y):
    xs = [x, y * x, 0.3]
    pairs = list(zip(xs, (1.0, 2.0, 3.0)))
    return (sum(map(math.sin, xs)) + pairs[1][0] * pairs[2][1] + max(reversed(xs))
            + sum(tuple(a * b for a, b in zip(xs, reversed(xs)))))


def any_all_conditions(x, y):
    if any(v > 2.0 for v in [x, y]):
        return x * y
    if all(v > 0.0 for v in (x, y)):
        return x * x * y
    return x


A3 = np.array([0.5, -1.2, 2.0])
A4 = np.array([0.3, 1.7, -0.4, 0.9])
M23 = np.array([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]])
M32 = np.array([[0.2, 0.1], [-0.3, 0.4], [0.5, -0.1]])
M22 = np.array([[0.7, -0.2], [0.1, 0.3]])
A5 = np.array([0.4, -1.3, 2.1, 0.8, -0.2])
M34 = np.array([[0.3, -1.1, 0.8, 2.0], [1.4, 0.1, -0.6, 0.9], [-0.4, 1.7, 0.5, -1.3]])
W5 = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
XP4 = np.array([-1.0, 0.0, 1.0, 2.5])
STATS_SHARED = {"x": np.array([0.6, -0.7, 1.9, 0.2]), "w": np.array([0.3, 1.1, -0.5, 0.75])}

SHARED = {"a": 0.9, "b": -0.4}

CASES = {
    "list_extrema": ((0.7, 0.4), (0, 1)),
    "list_order_stats": ((0.7, 0.4), (0, 1)),
    "std_of_scalar": ((0.7,), (0,)),
    "var_std_axes": ((M23,), (0,)),
    "formatting": ((0.7, 0.4), (0, 1)),
    "generator_sum": ((0.7,), (0,)),
    "generator_extrema": ((0.7, 0.4), (0, 1)),
    "any_all_conditions": ((0.7, 0.4), (0, 1)),
    "consumed_iterators": ((0.7, 0.4), (0, 1)),
    "poly": ((1.3,), (0,)),
    "arith_all": ((1.2, 0.7), (0, 1)),
    "unary_ops": ((0.8,), (0,)),
    "power_ops": ((1.4,), (0,)),
    "constants_only": ((2.0,), (0,)),
    "division_chain": ((1.5, 0.6), (0, 1)),
    "math_mix": ((0.7,), (0,)),
    "math_more": ((0.4,), (0,)),
    "math_inverse": ((0.6,), (0,)),
    "module_constant": ((1.1,), (0,)),
    "tuple_unpack": ((1.5, -0.5), (0, 1)),
    "swap": ((0.9, 1.3), (0, 1)),
    "aug_assign": ((1.7,), (0,)),
    "reassign": ((0.3,), (0,)),
    "tuple_literal_index": ((0.5, 1.5), (0, 1)),
    "list_literal_index": ((0.8,), (0,)),
    "unpack_from_call": ((0.6,), (0,)),
    "default_args": ((1.1,), (0,)),
    "if_else": ((0.7,), (0,)),
    "if_elif_else": ((1.3,), (0,)),
    "if_without_else": ((0.4,), (0,)),
    "conditional_expr": ((0.9,), (0,)),
    "bool_ops": ((0.5, 1.5), (0, 1)),
    "comparisons": ((0.6,), (0,)),
    "pass_stmt": ((1.2,), (0,)),
    "early_return": ((0.6,), (0,)),
    "early_return_in_loop": ((1.2,), (0,)),
    "return_expression": ((0.7, 1.1), (0, 1)),
    "for_range": ((0.9,), (0,)),
    "for_range_start_step": ((0.7,), (0,)),
    "for_nested": ((0.3,), (0,)),
    "for_over_list": ((1.3,), (0,)),
    "for_over_array": ((A3,), (0,)),
    "while_loop": ((0.7,), (0,)),
    "while_counter": ((0.5,), (0,)),
    "loop_break": ((0.9,), (0,)),
    "loop_continue": ((1.1,), (0,)),
    "while_break": ((0.8,), (0,)),
    "recurrence": ((0.3,), (0,)),
    "np_elementwise": ((A3,), (0,)),
    "np_log_abs": ((A4,), (0,)),
    "np_maximum_where": ((A4,), (0,)),
    "np_matmul": ((M23, M32), (0, 1)),
    "np_dot_vec": ((A3, A3 * 0.5 + 1.0), (0, 1)),
    "np_mean_axis": ((M23,), (0,)),
    "np_sum_keepdims": ((M23,), (0,)),
    "np_max": ((M23,), (0,)),
    "np_reshape_transpose": ((M23,), (0,)),
    "np_dot_T": ((M23,), (0,)),
    "np_broadcast": ((M23, A3), (0, 1)),
    "np_methods": ((M23,), (0,)),
    "np_index_read": ((A4,), (0,)),
    "np_slice_read": ((A4,), (0,)),
    "np_index_2d": ((M23,), (0,)),
    "np_index_write": ((A4,), (0,)),
    "np_loop_rows": ((M23,), (0,)),
    "np_array_from_scalars": ((0.4, 1.3), (0, 1)),
    "np_float_convert": ((A3,), (0,)),
    "square": ((1.9,), (0,)),
    "cube_plus": ((0.8, 0.2), (0, 1)),
    "calls_user": ((0.7,), (0,)),
    "calls_user_two_active": ((0.6, 1.4), (0, 1)),
    "calls_in_loop": ((1.2,), (0,)),
    "mlp_loss": ((M22, M22 * 0.5, M22 + 0.1), (0, 1)),
    "np_build_in_loop": ((A3,), (0,)),
    "np_accumulate_index": ((A4,), (0,)),
    "rnn": ((np.array([0.1, -0.2]), M22, np.array([[0.3, 0.1], [-0.2, 0.4], [0.5, 0.5]])), (0, 1)),
    "print_inside": ((0.9,), (0,)),
    "calls_logged": ((0.9,), (0,)),
    "inactive_branch_data": ((1.4, True), (0,)),
    "list_append_loop": ((0.7,), (0,)),
    "list_comprehension": ((0.9,), (0,)),
    "nested_comprehension": ((1.3,), (0,)),
    "lambda_called": ((0.6,), (0,)),
    "recursive_power": ((1.1, 4), (0,)),
    "negative_literals": ((M23,), (0,)),
    "self_assign": ((1.0,), (0,)),
    "leaky_relu": ((1.0,), (0,)),
    "clamp_below": ((1.0,), (0,)),
    "masked_relu": ((np.array([0.5, -1.2, 2.0, -0.3]), np.array([1.0, 2.0, 3.0, 4.0])), (0, 1)),
    "zero_the_largest": ((A4,), (0,)),
    "modulo": ((0.9, 1.3), (0, 1)),
    "copysign_magnitude": ((0.8,), (0,)),
    "full_of_x": ((0.6, A3), (0, 1)),
    "linspace_to_x": ((1.3,), (0,)),
    "loop_rebinds_iterable": ((0.7,), (0,)),
    "default_from_global": ((1.5,), (0,)),
    "scalar_alias_update": ((0.4,), (0,)),
    "abs_of_numpy_scalar": ((A3,), (0,)),
    "min_max_of_three": ((0.3, 1.2), (0, 1)),
    "recursive_result_overwritten": ((0.8,), (0,)),
    "nested_capture": ((0.7, 1.3), (0, 1)),
    "nested_recursive": ((0.9,), (0,)),
    "nested_siblings": ((0.6,), (0,)),
    "nested_in_loop": ((A3,), (0,)),
    "closure_loss": ((A3,), (0,)),
    "closure_head": ((A3, A3 * 0.5), (0, 1)),
    "lambda_loss": ((0.8,), (0,)),
    "object_from_args": ((0.6, A3), (0, 1)),
    "custom_jvp_rule": ((np.array([0.4, -0.9, 0.02]),), (0,)),
    "custom_vjp_rule": ((0.7, -1.2), (0, 1)),
    "custom_vjp_single": ((0.4,), (0,)),
    "kwonly_helper": ((A3, 0.7), (0, 1)),
    "varargs_helper": ((0.8, -0.6), (0, 1)),
    "small_statements": ((0.7,), (0,)),
    "del_in_loop": ((0.6,), (0,)),
    "dict_arg": (({"a": 0.7, "b": 1.3},), (0,)),
    "dict_variable_key": (({"a": 0.4, "b": -0.9},), (0,)),
    "dict_nested_arrays": (({"layer": {"w": M22, "b": 0.3}, "x": np.array([0.5, -0.7])},), (0,)),
    "dict_twice": ((SHARED, SHARED), (0, 1)),
    "tuple_float_array": (((0.8, A3),), (0,)),
    "list_arg": (([0.6, 1.1, A3],), (0,)),
    "namedtuple_arg": ((Point(0.3, -1.2),), (0,)),
    "dataclass_arg": ((Params(A3, 0.6),), (0,)),
    "dict_alias_read": (({"a": 1.1},), (0,)),
    "dict_get": (({"a": 0.8, "b": -1.3},), (0,)),
    "loop_enumerate": ((A4,), (0,)),
    "with_nullcontext": ((0.8,), (0,)),
    "with_errstate": ((np.array([0.5, 0.2, -1.5]),), (0,)),
    "with_catch_warnings": ((0.4,), (0,)),
    "dict_store_local": (({"a": 0.6, "b": -0.8}, 1.3), (0, 1)),
    "dict_literal_values": ((0.7, -1.4), (0, 1)),
    "dict_literal_to_helper": ((0.9,), (0,)),
    "loop_zip": (([0.3, 1.2, -0.5], A4), (0, 1)),
    "loop_dict_items": (({"a": 0.8, "b": -1.3, "c": 0.4},), (0,)),
    "fmax_self": ((A5,), (0,)),
    "fmin_self_copy": ((A5,), (0,)),
    "fmax_reversed_view": ((A5,), (0,)),
    "interp_fp_is_x": ((np.array([0.3, -0.6, 1.4, 2.2]),), (0,)),
    "interp_left_right_from_x": ((np.array([-0.8, 0.35, 1.6, 0.7]),), (0,)),
    "nan_rebind": ((A4, A5), (0, 1)),
    "median_rebound": ((A5,), (0,)),
    "median_then_inplace": ((A5,), (0,)),
    "quantile_then_store": ((A5,), (0,)),
    "ptp_of_copy": ((A5,), (0,)),
    "quantile_after_copy_in": ((A5,), (0,)),
    "stats_of_doubled": ((A5,), (0,)),
    "nan_masked_alias": ((np.array([0.4, 1.3, -0.7, 2.1, 0.9]),), (0,)),
    "nan_masked_rebind": ((np.array([0.4, 1.3, -0.7, 2.1, 0.9]),), (0,)),
    "nan_store": ((A5,), (0,)),
    "quantile_axis_views": ((M34,), (0,)),
    "stats_dict": ((STATS_SHARED,), (0,)),
    "stats_dict_twice": ((STATS_SHARED, STATS_SHARED), (0, 1)),
    "stats_dataclass": ((Params(A5, 0.7),), (0,)),
    "closure_order_loss": ((ORDER_DATA,), (0,)),
}
