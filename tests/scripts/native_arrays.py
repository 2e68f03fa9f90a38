"""compile='native' on loops over float64 arrays (element reads, sizes, gradient arrays)
and int64 ones (element reads): every case against central differences and against the
interpreted adjoint, with the number of calls that ran as machine code; the errors and
the fallbacks are Python's."""
import collections
import dataclasses
import math
import sys
import struct
import numpy as np
import tangent


def dot_loop(x, w):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * w[i]
    return s


def diffs(x, c):
    s = 0.0
    n = x.size
    for t in range(1, n):
        s = s + (x[t] - x[t - 1]) ** 2 * c + x[-1] * np.sin(x[t])
    return s


def mat(m, w):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[-1]):
            s = s + math.tanh(m[i, j] * w[j]) + m[-1, -1]
    return s


def fit(theta, data):
    loss = 0.0
    for i in range(data.shape[0]):
        r = data[i] - theta
        loss = loss + r * r
    return loss / len(data)


def branchy(x):
    s = 0.0
    for i in range(len(x)):
        if x[i] > 0.0:
            s = s + np.exp(x[i])
        else:
            s = s - x[i] * x[i]
    return s


def past_the_end(x):
    s = 0.0
    for i in range(len(x) + 1):
        s = s + x[i]
    return s


def elem(x, i):
    return x[i] * x[i]


def step2(u, v, dt):
    return u + dt * v, v - dt * math.sin(u)


def pendulum(x, dt):
    u = x[0]
    v = x[1]
    for i in range(len(x) * 5):
        u, v = step2(u, v, dt)
        if v > 2.0:
            u, v = step2(v, u, dt * 0.5)
    return u * u + v + x[2] * u


def spread(x, k):
    return x[k] * x[k - 1], x[k] - 1.0, x[k] + x[0]


def pendulum_records(x):
    s = 0.0
    for k in range(len(x)):
        a, b, c = spread(x, k)
        s = s + a * b + c
    return s


def calls_helper(x):
    s = 0.0
    for i in range(len(x)):
        s = s + elem(x, i)
    return s


def smooth(x, a):
    n = len(x)
    u = np.zeros(n)
    u[0] = x[0]
    for t in range(1, n):
        u[t] = u[t - 1] * a + x[t]
    s = 0.0
    for t in range(n):
        s = s + u[t] * u[t]
    return s


def rewrite(x):
    u = x.copy()
    v = np.zeros_like(x)
    for t in range(1, len(x)):
        u[t] = u[t - 1] * 0.5 + x[t]
        v[t] = np.sin(u[t]) * u[-t]
    s = 0.0
    for t in range(len(x)):
        s = s + v[t] + u[t] ** 2
    return s


def grid(x):
    u = x.copy()
    g = np.zeros((2, len(x)))
    for t in range(1, len(x)):
        u[t] = u[t - 1] * 0.5 + x[t]
        g[0, t] = np.sin(u[t])
        g[1, t] = g[0, t] * u[-t]
    s = 0.0
    for t in range(len(x)):
        s = s + g[-1, t] + g[0, t] ** 2
    return s


def by_rows(m, w):
    s = 0.0
    for i in range(m.shape[0]):
        r = m[i]
        for j in range(len(r)):
            s = s + r[j] * w[j] + m[i][j] ** 2 + m[-1][-1 - j]
    return s


def aliased(x):
    u = np.zeros(len(x))
    w = u
    for t in range(len(x)):
        w[t] = x[t] * x[t]
    return u[0] + u[-1]


DT = 0.25
WEIGHTS = np.array([1.0, 0.5, 0.25, 0.125])
CONST = {'k': 1.5}


def with_globals(x):
    s = 0.0
    for t in range(len(x)):
        s = s + WEIGHTS[t] * math.exp(-DT * x[t]) * CONST['k']
    return s


def building(heating, outdoor, price, params):
    T = params['T_initial']
    total = 0.0
    for t in range(len(heating)):
        dT = (outdoor[t] - T) / (params['R'] * params['C']) + heating[t] / params['C']
        T = T + params['dt'] * dT
        total += price[t] * heating[t] + params['lambda'] * (T - params['T_target']) ** 2
    return total


def building_record(heating, outdoor, p):
    T = p.T_initial
    total = 0.0
    for t in range(len(heating)):
        dT = (outdoor[t] - T) / (p.R * p.C) + heating[t] / p.C
        T = T + p.dt * dT
        total += heating[t] * T + p.lam * (T - p.T_target) ** 2
    return total


@dataclasses.dataclass
class Room:
    T_initial: float
    R: float
    C: float
    dt: float
    lam: float
    T_target: float = 21.0

    @property
    def tau(self):
        return self.R * self.C


Zone = collections.namedtuple("Zone", "T_initial R C dt lam T_target")


def with_tau(x, p):
    s = 0.0
    for t in range(len(x)):
        s = s + x[t] * p.tau
    return s


def switching(x, params):
    """Tape entries native code may leave out (k: one value from the dict; old values of
    T read only for their shape) next to ones it may not (c: two dict values by branch)."""
    s = 0.0
    c = params['C']
    for t in range(len(x)):
        if x[t] > 0.0:
            c = params['R']
        else:
            c = params['C']
        k = params['dt'] * params['R']
        T = x[t] * k
        s = s * 0.5 + c * T + s * s
    return s


def rebinding(x, params):
    """A dict value rebound to None inside the loop: the pops restore the number."""
    s = 0.0
    for t in range(len(x)):
        c = params['C'] * 2.0
        s = s + c * x[t] * x[t]
        c = None
    return s


def tape(x, n):
    """Elementwise array statements in a loop, each value saved for the backward pass."""
    h = x
    for i in range(n):
        h = np.tanh(h * 0.9 + x * 0.1)
    return np.sum(h * h)


def reaction(u, a, b):
    """An explicit Euler step of a reaction term, with numbers among the arrays."""
    for t in range(4):
        u = u + 0.1 * (a * u - b * u ** 3)
    return np.sum(u * u) + np.sum(-u / (1.0 + u ** 2))


def waves(m, w):
    """2-d elementwise statements next to element reads of a 1-d array."""
    s = 0.0
    for i in range(len(w)):
        z = np.sin(m) * w[i] + np.exp(-m * m) - m ** 4
        s = s + np.sum(z) * w[i]
    return s


COEFFS = (0.5, -0.25, 0.125)


def with_tuple(x, w):
    """A module-level tuple and a list argument of floats, read by index."""
    s = 0.0
    for t in range(len(x)):
        s = s + COEFFS[t % 3] * x[t] * w[-1 - t % len(w)]
    return s


def growing(x, n):
    """Temporaries the tape keeps only for their shape, whose shape grows each step."""
    s = 0.0
    for i in range(n):
        z = np.zeros(i + 1)
        h = z * 0.5 + x[0]
        s = s + np.sum(np.tanh(h * x[1]) * 0.3 + h)
    return s


def tape2(x, w, n):
    """Chains of temporaries computed in one pass, some kept for their shape."""
    h = x
    for i in range(n):
        h = np.tanh(h * w + x * 0.1) * 0.9 + np.sin(x * w)
    return np.sum(h * h)


def gather(x, idx):
    s = 0.0
    for j in range(len(idx)):
        s = s + x[idx[j]] * x[idx[-1 - j]]
    return s


def springs(x, edges, rest):
    s = 0.0
    for e in range(edges.shape[0]):
        pair = edges[e]
        d = x[pair[0]] - x[edges[e, 1]] - rest * (edges[e, 1] - pair[0]) / edges.size
        s = s + d * d
    return s


def dots(x, w):
    h = np.tanh(x * 0.5 + w)
    s = 0.0
    for k in range(3):
        h = np.tanh(h * 0.9 + x * 0.1)
        s = s + np.dot(h, w) * 0.5 + x @ h
    return s + np.dot(x, x)


def decay(v, k):
    r = v
    for j in range(k):
        r = r * 0.9 + math.sin(r) * 0.1
    return r


def long_run(x):
    s = 0.0
    for t in range(len(x)):
        s = s * 0.5 + decay(x[t] * s, 2)
    return s


def iterate(x, m, idx):
    s = 0.0
    for v in x:
        s = s + v * v
    for row in m:
        s = s * 0.5 + row[0] * row[-1]
    for k in idx:
        s = s + x[k] * 0.25
    return s


def l1(x, w):
    s = 0.0
    for i in range(len(x)):
        s = s + abs(x[i] - w * i) * 0.5
    return s


def as_array(v):
    return np.asarray(v, dtype=float)


def flat(v):
    if isinstance(v, tuple):
        return np.concatenate([as_array(p).ravel() for p in v])
    return as_array(v).ravel()


def central(f, args, k, h=1e-6):
    """d f / d args[k] by central differences, shaped like args[k]."""
    x = args[k]
    if isinstance(x, float):
        up = list(args)
        up[k] = x + h
        dn = list(args)
        dn[k] = x - h
        return (f(*up) - f(*dn)) / (2 * h)
    g = np.zeros(x.shape)
    for idx in np.ndindex(*x.shape):
        up = x.copy()
        up[idx] += h
        dn = x.copy()
        dn[idx] -= h
        a = list(args)
        a[k] = up
        b = list(args)
        b[k] = dn
        g[idx] = (f(*a) - f(*b)) / (2 * h)
    return g


def f32_helper(a, w):
    return np.tanh(a * w) + a * 0.5


def f32_term(a, b, c=0.25):
    return a * b - c * np.exp(b)


def f32_calls(x, w):
    # The program's functions called from float32 code: each argument's NumPy type goes
    # with it (a float32 element, a Python or float32 number), the results' come back.
    s = 0.0
    for i in range(len(x)):
        p = f32_term(x[i], w)
        s = s + f32_helper(x[i], w) * f32_helper(p, 0.3) + f32_term(p, x[i], c=w)
    return s


def scaled32(v):
    return np.float32(0.5) * v


def f64_calls(x):
    # A float64 function calling one that makes a float32: NumPy's float64 results
    # (np.exp of an element) make its product float64, a Python float would not.
    s = 0.0
    for i in range(len(x)):
        s = s + scaled32(np.exp(x[i])) ** 2 + scaled32(x[i] * 0.25)
    return s


def f32_scalars(x, w):
    # NumPy's float scalars made in float32 code: numpy.float32 of a number rounds once,
    # a numpy.float64 makes what it meets float64.
    s = np.float32(0.0)
    t = np.float64(0.5)
    for i in range(len(x)):
        s = s + x[i] * np.float32(w * 0.1) + np.float32(i) * 0.01
        # A float32 meeting a float64: the float32's own (rounded) value in double.
        t = t + x[i] * (np.float32(w * 0.3) * np.float64(w)) + x[i] * np.float32(True)
    return s + t * 0.5


x = np.array([0.3, -0.7, 1.1, 0.4])
w = np.array([0.5, -1.5, 2.0, 0.25])
m = np.arange(6.0).reshape(2, 3) / 7 - 0.3
data = np.array([1.0, 2.5, -0.5, 4.0, 3.0])
cases = [
    (dot_loop, (x, w), (0, 1)),
    (dot_loop, (x, x), (0, 1)),          # the same array twice: read only
    (diffs, (x, 0.5), (0, 1)),
    (mat, (m, np.array([0.1, -0.2, 0.3])), (0, 1)),
    (fit, (0.7, data), (0,)),
    (branchy, (x,), (0,)),
    (dot_loop, (m[:, 1], w[::-2]), (0, 1)),  # a strided and a reversed view
]
cases += [(smooth, (x, 0.8), (0, 1)), (rewrite, (x,), (0,)),
          (calls_helper, (x,), (0,)),   # a callee's array gradient added to the caller's
          (grid, (x,), (0,)),           # a 2-d array the function makes
          (by_rows, (m, np.array([0.1, -0.2, 0.3])), (0, 1))]  # rows m[i], m[i][j]
hours = 24
params = {'T_initial': 19.0, 'R': 2.0, 'C': 3.0, 'dt': 0.25, 'lambda': 0.5,
          'T_target': 21.0, 'unused': 1.0}
cases.append((building, (np.linspace(0.0, 2.0, hours), 10.0 + np.sin(np.arange(hours)),
                         np.linspace(0.1, 0.3, hours), params), (0, 1)))
cases += [(switching, (x, params), (0,)), (rebinding, (x, params), (0,))]
cases.append((with_tuple, (x, [0.3, 0.7]), (0,)))
cases += [(growing, (x, 4), (0,)), (tape2, (x, 0.7, 3), (0, 1))]
cases += [(tape, (x, 5), (0,)), (reaction, (x, 0.7, 0.3), (0, 1, 2)),
          (waves, (m, np.array([0.1, -0.2, 0.3])), (0, 1)),
          (waves, (m.T, np.array([0.5, 1.5])), (0, 1))]  # a transposed (strided) array
# Int64 arrays, read by element (indices, and ints in arithmetic); a row of a 2-d one.
idx = np.array([3, 0, -1, 2, 2])
edges = np.array([[0, 1], [1, 2], [2, 3], [3, 0], [0, 2]])
cases += [(gather, (x, idx), (0,)), (springs, (x, edges, 0.4), (0, 2)),
          (springs, (x, edges[::-1].T.copy().T, 0.4), (0, 2))]  # a strided int64 array
# `for v in x` over float64 and int64 arrays, `for row in m` over a matrix's rows.
cases.append((iterate, (x, m, idx), (0, 1)))
# Inner products of vectors (`np.dot`, `@`), of a reversed view too.
cases += [(dots, (x, w), (0, 1)), (dots, (x, w[::-1]), (0, 1))]
# `abs`: its gradient's sign (`tangent.sign`) of a number.
cases.append((l1, (x, 0.3), (0, 1)))
# Dataclass and namedtuple instances whose fields are floats: read by attribute.
room = Room(19.0, 2.0, 3.0, 0.25, 0.5)
warm = (np.linspace(0.0, 2.0, hours), 10.0 + np.sin(np.arange(hours)))
cases += [(building_record, warm + (room,), (0, 1)),
          (building_record, warm + (Zone(19.0, 2.0, 3.0, 0.25, 0.5, 21.0),), (0, 1))]
# A function of the program with several arguments: its gradients come back as a tuple
# the generated code indexes (`t[0]`, `t[1]`), unpacked into names natively.
cases.append((f32_calls, (x, 0.9), (0, 1)))
# NumPy's float scalars made in float64 code: that code follows NumPy's types too, and
# so do its callers.
cases += [(f32_scalars, (x, 0.7), (0,)), (f64_calls, (x,), (0,))]
# A function of the program returning a pair, unpacked in a loop (`u, v = step(...)`):
# its results, their tape and their gradient (the callee's seed) as one name each.
cases += [(pendulum, (x, 0.1), (0, 1)), (pendulum_records, (x,), (0,))]
checked = 0
for f, args, wrt in cases:
    native = tangent.grad(f, wrt=wrt, compile="native")
    python = tangent.grad(f, wrt=wrt, compile="python")
    assert type(native).__name__ == "NativeFunction", f.__name__
    before = native.__tangent_native_calls__  # derivatives are cached: counts add up
    got, want = native(*args), python(*args)
    assert native.__tangent_native_calls__ == before + 1, (f.__name__, "ran interpreted")
    got_flat, want_flat = flat(got), flat(want)
    assert np.allclose(got_flat, want_flat, rtol=1e-12, atol=0), (f.__name__, got, want)
    fd = flat(tuple(central(f, args, k) for k in wrt) if len(wrt) > 1
              else central(f, args, wrt[0]))
    assert np.allclose(got_flat, fd, rtol=1e-6, atol=1e-7), (f.__name__, got, fd)
    # Gradients have their argument's type, shape and dtype.
    for k, g in zip(wrt, got if len(wrt) > 1 else (got,)):
        if isinstance(args[k], np.ndarray):
            assert isinstance(g, np.ndarray) and g.shape == args[k].shape, (f.__name__, g)
            assert g.dtype == np.float64, g.dtype
    checked += 1

# Float32 arrays by element, as NumPy 2 computes them (NEP 50): a Python number meets a
# float32 in single precision, a float64 makes float64; a float that is a Python float
# on one path and a float32 on another (`s = 0.0` before the loop) keeps its type at run
# time. Native code and the interpreter give the same bits and types; the gradient of a
# float32 array is a float32 array; against differences of the float64 function.
def f32_loop(x, w):
    s = 0.0
    for i in range(len(x)):
        s = s + w * x[i] * x[i]
    return s


def f32_mixed(x, y):
    s = 0.0
    for i in range(len(x)):
        s = s + math.sin(x[i]) * y[i] + x[i] * 0.5 - x[i] / 3
    return s


def f32_branches(a, x):
    s = a * 0.1
    for i in range(len(x)):
        if x[i] * a > 0.3:
            s = s + x[i] / a
        else:
            s = s - x[i] * x[i] * 0.25
    return s + x[0] * x[-1]


def f32_matrix(m, v):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            s = s + m[i, j] * v[j] ** 2 - m[i, j] ** 3
    return s


def f32_powers(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] ** 2 + (x[i] * x[i] + 1.0) ** 0.5
    return s


def f32_local(x):
    # float32 arrays the function makes (zeros like x), written by element (the
    # gradient of `x.copy()`, an array added to an array, runs interpreted)
    u = np.zeros_like(x)
    v = np.empty_like(x)
    u[0] = x[0]
    v[0] = 0.0
    for t in range(1, len(x)):
        u[t] = u[t - 1] * 0.7 + x[t]
        v[t] = u[t] * u[t - 1]
    s = 0.0
    for t in range(len(x)):
        s = s + v[t] * 0.3 + u[t]
    return s


def f32_hinge(x, w):
    # `max`'s gradient multiplies by a NumPy bool (`x >= 0.0` of a float32): with a
    # Python float it makes a float64, with a float32 a float32; a bool kept in a
    # variable, and one of Python floats (`w > 0.5`), are weak.
    s = 0.0
    for i in range(len(x)):
        on = x[i] > 0.1
        s = s + max(x[i], 0.0) * 2.0 + on * x[i] * w + (w > 0.5) * x[i] + (x[i] > 0.2) * w * 0.3
    return s


def f32_copied(x):
    # A float32 copy written by element: its gradient is added to the argument's (two
    # float32 arrays: one rounding of their exact sum), before the first line's is.
    s = x[0] * x[-1] * 0.7
    u = x.copy()
    for i in range(len(u)):
        u[i] = u[i] * 0.3 + x[i] * x[i]
        s = s + u[i] * x[i]
    return s


def f32_statements(x, w):
    # Elementwise statements over float32 arrays: each `+ - * /` rounded to float32 as
    # NumPy computes it, a Python number converted to float32, a float32 kept; `np.sum`
    # adds float32 values in float32, pairwise in memory order.
    h = x * 0.5
    for t in range(4):
        h = h * w - x / 3.0 + h ** 2 * 0.1
    return np.sum(h * h) + np.sum(x) * 0.25


def f32_euler(u, a, b):
    dt = 0.01
    for t in range(20):
        u = u + dt * (a * u - b * u * u * u)
    return np.sum(u * u)


def f32_functions(x, w):
    # NumPy's float32 functions of float32 elements and arrays: sqrt and fabs correctly
    # rounded, tanh/exp/log/sin/cos NumPy's own kernels (copied by the runtime, checked
    # against the host's NumPy); a Python float or float64 argument makes float64.
    s = 0.0
    for i in range(len(x)):
        s = s + np.tanh(x[i] * w) + np.exp(x[i]) * np.sin(w * x[i]) - np.cos(x[i])
        s = s + np.log(x[i] * x[i] + 1.0) + np.sqrt(np.fabs(x[i]) + w)
    h = x
    for t in range(3):
        h = np.tanh(h * w + x) + np.sqrt(np.fabs(h)) * 0.1 - np.log(h * h + 1.0)
    return s + np.sum(np.exp(h) * np.cos(h) + np.sin(x))


def f32_converted(x, w):
    # Dtype conversions of active values: numpy.float32 of a float64 value, astype both
    # ways; their derivatives carried across in the type of the value they belong to.
    s = 0.0
    for i in range(len(x)):
        s = s + np.float32(x[i] * np.float64(w)) * x[i]
    h = x.astype(np.float64) * w
    return s + np.sum(np.tanh(h).astype(np.float32) * x)


def f32_rounded(x, w):
    # numpy.float32 and numpy.float64 of active numbers, natively: the derivative carried
    # across in the type of the value it belongs to (`tangent.cast_like`).
    s = 0.0
    for i in range(len(x)):
        s = s + np.float32(x[i] * np.float64(w)) * x[i] + np.float64(x[i]) * w
    return s


def wide_args(args):
    return tuple(a.astype(np.float64) if isinstance(a, np.ndarray) else
                 float(a) if isinstance(a, np.float32) else a for a in args)


x32 = np.array([0.3, -0.7, 1.1, 0.4], dtype=np.float32)
m32 = (np.arange(6.0).reshape(2, 3) / 7 - 0.3).astype(np.float32)
f32_cases = [(f32_loop, (x32, 0.7), (0, 1)), (f32_loop, (x32, np.float32(0.7)), (0, 1)),
             (f32_loop, (x32[::-1], 0.7), (0, 1)),   # a reversed view: copied
             (f32_mixed, (x32, w), (0, 1)), (f32_branches, (np.float32(1.3), x32), (0, 1)),
             (f32_matrix, (m32, np.array([0.1, -0.2, 0.3], dtype=np.float32)), (0, 1)),
             (f32_powers, (x32,), (0,)), (l1, (x32, 0.3), (0, 1)),
             (f32_local, (x32,), (0,)), (f32_hinge, (x32, 0.7), (0, 1)),
             (f32_hinge, (x32, np.float32(0.3)), (0, 1)), (f32_copied, (x32,), (0,)),
             (f32_copied, (x32[::-1],), (0,)),
             (f32_statements, (x32, 0.7), (0, 1)),
             (f32_statements, (x32, np.float32(0.7)), (0, 1)),
             (f32_statements, (m32, 3), (0,)),
             # 20,000 and 200 x 100 elements: sums past NumPy's pairwise blocks
             (f32_statements, (np.linspace(-1, 1, 20000, dtype=np.float32), 0.9), (0, 1)),
             (f32_statements, (np.linspace(-1, 1, 20000, dtype=np.float32).reshape(200, 100),
                               np.float32(0.9)), (0, 1)),
             (f32_euler, (x32, 1.5, np.float32(0.5)), (0, 1, 2)),
             (f32_functions, (x32, np.float32(0.9)), (0, 1)),
             (branchy, (x32,), (0,)),
             (f32_scalars, (x32, 0.7), (0,)), (f32_scalars, (x32, np.float32(0.7)), (0,)),
             (f32_rounded, (x32, 0.7), (0, 1)), (f32_rounded, (x32, np.float32(0.7)), (0, 1)),
             (f32_calls, (x32, np.float32(0.9)), (0, 1)), (f32_calls, (x32, 0.9), (0, 1)),
             (f32_functions, (x32, 0.9), (0, 1)),
             (f32_functions, (np.linspace(-3, 3, 300, dtype=np.float32), np.float32(1.1)),
              (0, 1))]
# Containers of numbers beside float32 arrays: each value keeps its NumPy type (a Python
# float is weak, a float64 makes float64, a float32 stays float32).
hot32 = tuple(a.astype(np.float32) for a in (np.linspace(0.0, 2.0, hours),
                                              10.0 + np.sin(np.arange(hours)),
                                              np.linspace(0.1, 0.3, hours)))
params64 = dict(params, R=np.float64(2.0), dt=np.float64(0.25))
params32 = {k: np.float32(v) for k, v in params.items()}
f32_cases += [(building, hot32 + (p,), (0, 1)) for p in (params, params64, params32)]
f32_cases += [(building_record, hot32[:2] + (room,), (0, 1)),
              (building_record, hot32[:2] + (Zone(*map(np.float32, (19, 2, 3, 0.25, 0.5, 21))),),
               (0, 1)),
              (with_tuple, (x32, [0.3, 0.7]), (0,)),
              (with_tuple, (x32, (np.float64(0.3), np.float64(0.7))), (0,)),
              (with_tuple, (x32, [np.float32(0.3), np.float32(0.7)]), (0,))]
for f, args, wrt in f32_cases:
    native = tangent.grad(f, wrt=wrt, compile="native")
    python = tangent.grad(f, wrt=wrt, compile="python")
    before = native.__tangent_native_calls__
    got, want = native(*args), python(*args)
    assert native.__tangent_native_calls__ == before + 1, (f.__name__, "ran interpreted")
    if len(wrt) == 1:
        got, want = (got,), (want,)
    for g, v in zip(got, want):
        assert type(g) is type(v), (f.__name__, type(g), type(v))
        assert np.asarray(g).dtype == np.asarray(v).dtype, (f.__name__, g, v)
        assert np.array_equal(g, v), (f.__name__, g, v)  # the same bits
    wide = wide_args(args)
    if max(a.size if isinstance(a, np.ndarray) else 1 for a in args) <= 100:
        fd = flat(tuple(central(f, wide, k, h=1e-4) for k in wrt))
        assert np.allclose(flat(got), fd, rtol=2e-3, atol=2e-3), (f.__name__, got, fd)
    else:
        # Long arrays: a directional difference per argument.
        for k, g in zip(wrt, got):
            d = np.cos(np.arange(np.size(wide[k])) * 0.37).reshape(np.shape(wide[k]))
            up, dn, h = list(wide), list(wide), 1e-3
            up[k], dn[k] = wide[k] + h * d, wide[k] - h * d
            fd = (float(f(*up)) - float(f(*dn))) / (2 * h)
            assert abs(float(np.sum(g * d)) - fd) <= 2e-3 * max(1.0, abs(fd)), (k, g, fd)
    for k, g in zip(wrt, got):
        if isinstance(args[k], np.ndarray):
            assert g.dtype == args[k].dtype and g.shape == args[k].shape, (f.__name__, g)
    checked += 1
# Where NumPy would not give a float32 array, or would sum in another order than C's: a
# float64 number (the arrays become float64), a float32 matrix not in C order (the
# native code's copy is C-ordered): interpreted, the same result.
for f, args in ((f32_statements, (x32, np.float64(0.7))), (f32_statements, (m32.T, 0.7)),
                (f32_statements, (m32[:, ::2], 0.7)),
                (f32_matrix, (m32.T, np.array([0.5, 1.5], dtype=np.float32)))):
    native, python = (tangent.grad(f, wrt=(0, 1), compile=c) for c in ("native", "python"))
    before = native.__tangent_native_calls__
    got, want = native(*args), python(*args)
    assert native.__tangent_native_calls__ == before, (args, "ran native")
    for g, v in zip(got, want):
        assert type(g) is type(v) and np.asarray(g).dtype == np.asarray(v).dtype, (g, v)
        assert np.array_equal(g, v), (g, v)
# NumPy's float32 kernels against the runtime's copies over a wide sample: every 65521st
# float32 bit pattern (NaN, inf, subnormals among them) and a dense run near 0. The
# gradient with respect to w is the function's values (times a float32 one).
def f32_tanh(x, w):
    return np.sum(np.tanh(x) * w)


def f32_exp(x, w):
    return np.sum(np.exp(x) * w)


def f32_log(x, w):
    return np.sum(np.log(x) * w)


def f32_sin(x, w):
    return np.sum(np.sin(x) * w)


def f32_cos(x, w):
    return np.sum(np.cos(x) * w)


patterns = range(0, 2 ** 32, 65521)
bits = np.frombuffer(struct.pack("<%dI" % len(patterns), *patterns), dtype=np.float32)
sample = np.concatenate([bits, np.linspace(-20, 20, 40001, dtype=np.float32)])
with np.errstate(all="ignore"):
    for f in (f32_tanh, f32_exp, f32_log, f32_sin, f32_cos):
        native = tangent.grad(f, wrt=(1,), compile="native")
        python = tangent.grad(f, wrt=(1,), compile="python")
        ones = np.ones_like(sample)
        before = native.__tangent_native_calls__
        got, want = native(sample, ones), python(sample, ones)
        assert native.__tangent_native_calls__ == before + 1, (f.__name__, "ran interpreted")
        assert got.dtype == np.float32 and np.array_equal(got, want, equal_nan=True), f.__name__
        assert np.array_equal(want, getattr(np, f.__name__[4:])(sample), equal_nan=True)
        checked += 1


# NumPy's float32 functions native code has no copy of: in the embedded numpy, which
# computes them in double and rounds once, native (the same bits); real NumPy's (SVML's
# or the C library's) interpreted, the reason said. Powers above 2: interpreted.
def f32_arctan(x):
    s = 0.0
    for i in range(len(x)):
        s = s + np.arctan(x[i]) * np.cosh(x[i] * 0.5)
    return s + np.sum(np.arctan(x * 0.5) + np.log1p(x * x) * np.sinh(x))


def f32_sinh_wide(x):
    # A float32 result meeting a float64: its float32 value, read in double.
    s = 0.0
    for i in range(len(x)):
        s = s + (np.sinh(x[i]) * np.float64(0.3)) ** 2
    return s


def f32_cube(x):
    return np.sum(x ** 3)


embedded = not hasattr(np, "__file__")
refused = [(f32_cube, "a float32 array to a power above 2")]
for f in (f32_arctan, f32_sinh_wide):
    if embedded:
        native, python = (tangent.grad(f, compile=c) for c in ("native!", "python"))
        got, want = native(x32), python(x32)
        assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want), (got, want)
        checked += 1
    elif f is f32_arctan:
        # Said under compile='native!' (not warned: tests/bridge.rs compares both hosts'
        # output, and the embedded one runs it natively).
        try:
            tangent.grad(f, compile="native!")(x32)
            raise AssertionError("real NumPy's float32 arctan ran native")
        except TypeError as e:
            assert "follows only in the embedded numpy" in str(e), str(e)
        checked += 1  # both hosts count each function once
    else:
        # Elements alone: the run bails where real NumPy's float32 function is called.
        native, python = (tangent.grad(f, compile=c) for c in ("native", "python"))
        before = native.__tangent_native_calls__
        got, want = native(x32), python(x32)
        assert native.__tangent_native_calls__ == before, "real NumPy's float32 sinh ran native"
        assert got.dtype == want.dtype == np.float32 and np.array_equal(got, want), (got, want)
        checked += 1
for f, why in refused:
    try:
        tangent.grad(f, compile="native!")(x32)
        raise AssertionError(f.__name__ + " ran native")
    except TypeError as e:  # compile='native!' says why it would run interpreted
        assert why in str(e), (f.__name__, str(e))
    native, python = (tangent.grad(f, compile=c) for c in ("native", "python"))
    got, want = native(x32), python(x32)
    assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)
# Dtype conversions of active values (`astype`, `numpy.float32(x)`): the gradient in each
# argument's type, against differences of a step wide enough for float32's rounding;
# native code (which leaves `astype` to the interpreter) gives the same.
for args in ((x32, 0.7), (x32.astype(np.float64), np.float32(0.7))):
    native, python = (tangent.grad(f32_converted, wrt=(0, 1), compile=c)
                      for c in ("native", "python"))
    got, want = native(*args), python(*args)
    assert [type(g) for g in got] == [type(v) for v in want], (got, want)
    assert all(np.array_equal(g, v) for g, v in zip(got, want)), (got, want)
    assert want[0].dtype == args[0].dtype and type(want[1]) is type(args[1]), (want, args)
    fd = flat(tuple(central(f32_converted, wide_args(args), k, h=1e-3) for k in (0, 1)))
    assert np.allclose(flat(want), fd, rtol=2e-3, atol=2e-3), (want, fd)
    checked += 1
# A tuple whose elements differ in NumPy type, beside a float32 array: interpreted.
native, python = (tangent.grad(with_tuple, compile=c) for c in ("native", "python"))
before = native.__tangent_native_calls__
mixed = [0.3, np.float64(0.7)]
got, want = native(x32, mixed), python(x32, mixed)
assert native.__tangent_native_calls__ == before, "a mixed tuple ran native"
assert got.dtype == want.dtype and np.array_equal(got, want), (got, want)
# An int past 2**24 meeting a float32: its float32 is not exact, so NumPy's conversion
# is the interpreter's (the run bails); a small one runs native.
def f32_scaled(x, n):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * n
    return s


for n, runs in ((3, 1), (2 ** 25 + 1, 0)):
    native, python = (tangent.grad(f32_scaled, compile=c) for c in ("native", "python"))
    before = native.__tangent_native_calls__
    got, want = native(x32, n), python(x32, n)
    assert native.__tangent_native_calls__ == before + runs, (n, "native runs")
    assert got.dtype == want.dtype and np.array_equal(got, want), (n, got, want)
# Bools of comparisons of NumPy scalars add as `or` (NumPy's bool), and have no
# negative: arithmetic on two bools, and `-` of one, run interpreted (they were native,
# with Python's True + True == 2: a wrong gradient in CPython).
def bool_sum(x):
    s = 0.0
    for i in range(len(x)):
        s = s + ((x[i] > 0) + (x[i] < 1)) * x[i]
    return s


native, python = (tangent.grad(bool_sum, compile=c) for c in ("native", "python"))
before = getattr(native, "__tangent_native_calls__", 0)
assert np.array_equal(native(x), python(x))
assert getattr(native, "__tangent_native_calls__", 0) == before
# A loop that runs no step: `s` stays a Python float, its gradient too.
native, python = (tangent.grad(f32_loop, wrt=(0, 1), compile=c) for c in ("native", "python"))
got, want = native(x32[:0], 0.7), python(x32[:0], 0.7)
assert [type(v) for v in got] == [type(v) for v in want] and got[0].dtype == want[0].dtype
assert got[1] == want[1], (got, want)
# Forward mode: float32 tangents read by element.
fw = tangent.autodiff(f32_loop, mode="forward", wrt=(0,), compile="native")
before = fw.__tangent_native_calls__
d32 = np.array([1.0, 0.5, -0.2, 0.3], dtype=np.float32)
got = fw(x32, 0.7, d32)
assert fw.__tangent_native_calls__ == before + 1, "forward float32 ran interpreted"
want = tangent.autodiff(f32_loop, mode="forward", wrt=(0,), compile="python")(x32, 0.7, d32)
assert type(got) is type(want) and got == want, (got, want)
checked += 1

# Tapes past the first capacity, in the function and in a callee: the run starts again
# on a larger tape, with the interpreted adjoint's results (and a directional
# difference: the functions are long).
long_hours = np.arange(3000.0)
for f, args in ((building, (np.sin(long_hours) + 1.0, 10.0 + np.cos(long_hours),
                            0.1 + 0.0 * long_hours, params)),
                (long_run, (np.sin(np.arange(2000.0)),))):
    native = tangent.grad(f, compile="native")
    before = native.__tangent_native_calls__
    got, want = native(*args), tangent.grad(f, compile="python")(*args)
    assert native.__tangent_native_calls__ == before + 1, (f.__name__, "ran interpreted")
    assert np.allclose(got, want, rtol=1e-12, atol=0), (f.__name__, got, want)
    d = np.cos(np.arange(len(args[0])) * 0.37)
    h = 1e-4  # the sums are large: a smaller step loses more to rounding than it gains
    fd = (f(args[0] + h * d, *args[1:]) - f(args[0] - h * d, *args[1:])) / (2 * h)
    assert abs(np.dot(got, d) - fd) <= 1e-6 * max(1.0, abs(fd)), (f.__name__, np.dot(got, d), fd)
    checked += 1

# Forward mode: the tangent array is read by element, a written array's tangent is
# set by element (`set_tangent_at`), elementwise statements carry their tangents in the
# same passes; against directional differences.
dx = np.array([1.0, 0.5, -0.2, 0.3])
for f, rest in ((diffs, (0.5,)), (smooth, (0.8,)), (branchy, ()), (tape, (5,)),
                (reaction, (0.7, 0.3)), (dots, (w,)), (pendulum, (0.1,)),
                (pendulum_records, ())):
    fw = tangent.autodiff(f, mode="forward", wrt=(0,), compile="native")
    before = fw.__tangent_native_calls__
    got = fw(x, *rest, dx)
    assert fw.__tangent_native_calls__ == before + 1, (f.__name__, "forward ran interpreted")
    want = tangent.autodiff(f, mode="forward", wrt=(0,), compile="python")(x, *rest, dx)
    assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (f.__name__, got, want)
    h = 1e-6
    fd = (f(x + h * dx, *rest) - f(x - h * dx, *rest)) / (2 * h)
    assert abs(got - fd) <= 1e-6 * max(1.0, abs(fd)), (f.__name__, got, fd)
    checked += 1

# An index past the end: the IndexError Python raises, at the same line, both ways.
def outcome(f, *args):
    try:
        return ("value", f(*args))
    except Exception as e:  # noqa: BLE001 - the type and message are the result
        return ("raise", type(e).__name__, str(e).splitlines()[0])


nat = tangent.grad(past_the_end, compile="native")
before = nat.__tangent_native_calls__
assert outcome(nat, x) == outcome(tangent.grad(past_the_end, compile="python"), x)
assert outcome(nat, x)[1] == "IndexError"
assert nat.__tangent_native_calls__ == before
# Arrays the native code does not take run interpreted, with the same results.
def corner(x):
    return x[0, 0, 0] * x[1, 1, 1]


for fn, arr in ((branchy, np.array([1, -2, 3])),
                (corner, np.arange(8.0).reshape(2, 2, 2) + 1)):
    f = tangent.grad(fn, compile="native")
    args = (arr,)
    p = tangent.grad(fn, compile="python")
    before = getattr(f, "__tangent_native_calls__", 0)
    assert np.allclose(flat(f(*args)), flat(p(*args)))
    assert getattr(f, "__tangent_native_calls__", 0) == before, arr.dtype
# An int64 index out of range: the IndexError, interpreted, both ways.
nat = tangent.grad(gather, compile="native")
before = nat.__tangent_native_calls__
bad = np.array([0, 4])
assert outcome(nat, x, bad) == outcome(tangent.grad(gather, compile="python"), x, bad)
assert outcome(nat, x, bad)[1] == "IndexError"
assert nat.__tangent_native_calls__ == before
# Ints past 2**53: Python divides two ints exactly and compares an int with a float by
# their exact values (NumPy's int64 converts first); native code leaves both to the
# interpreter there, and computes the small ones itself.
def exact_ints(x, k):
    s = x[0] * (k[0] / k[1])
    if k[0] > 9007199254740992.0:
        s = s + x[1]
    return s


nat = tangent.grad(exact_ints, compile="native")
py = tangent.grad(exact_ints, compile="python")
for k, runs_native in ((np.array([2 ** 53 + 1, 3]), False), (np.array([7, 3]), True)):
    before = nat.__tangent_native_calls__
    got, want = nat(x, k), py(x, k)
    assert np.array_equal(got, want), (k, got, want)
    assert nat.__tangent_native_calls__ == before + runs_native, k
# Records native code leaves to the interpreter, with Python's results: an int field, a
# property (not a field), a class with its own `__getattribute__`, a changed field
# between calls (read again at every call).
class Loud(Room):
    def __getattribute__(self, name):
        v = object.__getattribute__(self, name)
        return v * 2.0 if name == "C" else v


for f, p, runs_native in ((building_record, Room(19.0, 2.0, 3, 0.25, 0.5), False),
                          (with_tau, room, False),
                          (building_record, Loud(19.0, 2.0, 3.0, 0.25, 0.5), False),
                          (building_record, room, True)):
    nat = tangent.grad(f, compile="native")
    args = warm + (p,) if f is building_record else (x, p)
    before = getattr(nat, "__tangent_native_calls__", 0)
    got, want = nat(*args), tangent.grad(f, compile="python")(*args)
    assert np.allclose(got, want, rtol=1e-12, atol=0), (f.__name__, p, got, want)
    assert getattr(nat, "__tangent_native_calls__", 0) == before + runs_native, (f.__name__, p)
room.C = 5.0
nat = tangent.grad(building_record, compile="native")
assert np.allclose(nat(*warm, room), tangent.grad(building_record, compile="python")(*warm, room),
                   rtol=1e-12, atol=0)
# The truth value of a dict or a tuple is whether it is empty: interpreted, never a
# pointer's.
def truthy(x, d):
    s = x[0]
    if d:
        s = s * 2.0
    return s


for d in ({}, {'a': 1.0}, (), (1.5,)):
    got = tangent.grad(truthy, compile="native")(x, d)
    assert np.array_equal(got, tangent.grad(truthy, compile="python")(x, d)), (d, got)
# Real NumPy's arrays of other byte orders, dtype objects and strides (CPython host): a
# big-endian or a 12-byte-strided float64 array runs interpreted, a float64 dtype with
# metadata natively; the results are the interpreted ones.
if sys.implementation.name == "cpython":
    rec = np.zeros(4, dtype=[("a", "<f8"), ("b", "<i4")])
    rec["a"] = x
    for arr, runs_native in ((x.astype(">f8"), False), (rec["a"], False),
                             (np.array(x, dtype=np.dtype("float64", metadata={"k": 1})), True)):
        nat = tangent.grad(dot_loop, compile="native")
        before = nat.__tangent_native_calls__
        got = nat(arr, w)
        assert np.array_equal(got, tangent.grad(dot_loop, compile="python")(arr, w)), arr
        assert nat.__tangent_native_calls__ == before + runs_native, (arr.dtype, arr.strides)
# Module-level values are read live at every call, natively too.
gl = tangent.grad(with_globals, compile="native")
want = -DT * WEIGHTS * np.exp(-DT * x) * CONST['k']
before = gl.__tangent_native_calls__
assert np.allclose(gl(x), want, rtol=1e-12, atol=0)
DT = 0.5
CONST = {'k': 2.0}
want = -DT * WEIGHTS * np.exp(-DT * x) * CONST['k']
assert np.allclose(gl(x), want, rtol=1e-12, atol=0), (gl(x), want)
assert gl.__tangent_native_calls__ == before + 2
# A dict the native code does not take (an int value; the gradient with respect to it, a
# dict) runs interpreted; a missing key is Python's KeyError both ways.
B = next(a for f, a, _ in cases if f is building)
for p, wrt in ((dict(params, C=3), (0,)), (params, (0, 3)), ({'R': 2.0}, (0,))):
    nat = tangent.grad(building, wrt=wrt, compile="native")
    before = getattr(nat, "__tangent_native_calls__", 0)
    got = outcome(nat, *B[:3], p)
    want = outcome(tangent.grad(building, wrt=wrt, compile="python"), *B[:3], p)
    assert got[0] == want[0] and (got[0] == "raise" and got == want or
                                  np.allclose(flat(got[1][0] if len(wrt) > 1 else got[1]),
                                              flat(want[1][0] if len(wrt) > 1 else want[1]))), (got, want)
    assert getattr(nat, "__tangent_native_calls__", 0) == before, (p, wrt)
# Arrays of two shapes in one elementwise statement: NumPy's error, interpreted.
def two_shapes(x, y):
    return np.sum(np.tanh(x * y))


nat = tangent.grad(two_shapes, compile="native")
before = nat.__tangent_native_calls__
got = outcome(nat, x, x[:3])
assert got[:2] == ("raise", "ValueError"), got
assert got == outcome(tangent.grad(two_shapes, compile="python"), x, x[:3])
assert nat.__tangent_native_calls__ == before
# A gradient with respect to the list is a list (interpreted); a tuple holding an int,
# whose elements Python would compute with as ints, runs interpreted too.
for wrt, w_arg in (((0, 1), [0.3, 0.7]), ((0,), (0.3, 2))):
    nat = tangent.grad(with_tuple, wrt=wrt, compile="native")
    before = getattr(nat, "__tangent_native_calls__", 0)
    got, want = nat(x, w_arg), tangent.grad(with_tuple, wrt=wrt, compile="python")(x, w_arg)
    assert type(got) is type(want) and np.allclose(flat(got[0] if len(wrt) > 1 else got),
                                                   flat(want[0] if len(wrt) > 1 else want))
    if len(wrt) > 1:
        assert type(got[1]) is list and np.allclose(got[1], want[1]), (got, want)
    assert getattr(nat, "__tangent_native_calls__", 0) == before, (wrt, w_arg)
# Checks the native code leaves to the interpreter: an array changed in place through
# a second name, an array output with a number for its seed (located errors both ways).
def augmented_alias(x):
    y = x
    y += x
    return np.sum(y)


def doubled(x):
    return x * 2.0


for mode in ("native", "python"):
    got = outcome(tangent.grad(augmented_alias, compile=mode), x)
    assert got[:2] == ("raise", "TangentError") and "in place" in got[2], got
    got = outcome(tangent.grad(doubled, compile=mode), x)
    assert got[:2] == ("raise", "ValueError") and "not a scalar" in got[2], got
# A second name for an array the function writes: the transformation refuses it (located).
try:
    tangent.grad(aliased, compile="native")
except tangent.TangentError as e:
    assert "native_arrays.py:" in str(e) and "w[t]" in str(e), str(e)
else:
    raise AssertionError("a store through an alias was accepted")
print("native arrays: %d cases agree" % checked)
