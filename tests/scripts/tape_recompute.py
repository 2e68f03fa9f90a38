"""What the tape holds in interpreted code (src/opt/recompute.rs): values of read-only
containers and other invariants are never pushed, and element reads and the arithmetic
on them are computed again in the backward pass instead of popped; anything that could
change between the forward and the backward pass (a container a call or a store may
change, a name rebound or bound to None, a value a later iteration reads) stays on the
tape. Every case against central differences (first order, and second order through
forward over reverse) in joint motion (optimized, where the pass runs, and not), split
motion, and compile='auto'."""
import numpy as np
import tangent
from differences import central, close, hessian_times


def building(schedule, outdoor, price, params):
    T = params['T_initial']
    total_cost = 0.0
    for t in range(len(schedule)):
        dT_dt = (outdoor[t] - T) / (params['R'] * params['C']) + schedule[t] / params['C']
        T = T + params['dt'] * dT_dt
        total_cost += price[t] * schedule[t] + params['lambda_comfort'] * (T - params['T_target']) ** 2
    return total_cost


P = {'C': 1.0}


def bump():
    P['C'] = P['C'] + 1.0


def mutated_by_call(x, p):
    """`p` is `P`, which `bump` changes: `c` differs in every iteration."""
    s = 0.0
    for t in range(len(x)):
        c = p['C']
        s = s + c * x[t] * x[t]
        bump()
    return s


def rebound_to_none(x, params):
    s = 0.0
    for t in range(len(x)):
        c = params['C'] * 2.0
        s = s + c * x[t] * x[t]
        c = None
    return s


def rebound_container(x, p, q):
    s = 0.0
    for t in range(len(x)):
        c = p['C']
        s = s + c * x[t] ** 2
        p = q
    return s


def carried(x):
    """`prev` is read by the next iteration, before its assignment."""
    s = 0.0
    prev = 0.0
    for t in range(len(x)):
        if t > 0:
            s = s + prev * x[t]
        prev = x[t] * 2.0
    return s


def read_after(x):
    s = 0.0
    a = 0.0
    for t in range(len(x)):
        a = x[t] * 3.0
        s = s + a * a
    return s + a * x[0]


def with_break(x, limit):
    s = 0.0
    for t in range(len(x)):
        a = x[t] * x[t]
        s = s + a * x[t - 1]
        if s > limit:
            break
    return s


def stored(x, w):
    """A local array stored into: the parameters' elements stay the same."""
    u = np.zeros(len(x))
    s = 0.0
    for t in range(len(x)):
        a = x[t] * w[t]
        u[t] = a + u[t - 1]
        s = s + a * u[t]
    return s


def nested(m, w):
    s = 0.0
    for i in range(m.shape[0]):
        r = m[i]
        for j in range(m.shape[1]):
            s = s + np.tanh(r[j] * w[j]) * m[i, j - 1] * w[i]
    return s


def carried_state(x, k):
    """A state the loop carries, read before and after its assignment."""
    u = x[0]
    s = 0.0
    for t in range(1, len(x)):
        d = u * k['a'] - x[t]
        u = u + 0.1 * d
        e = u * x[t - 1]
        s = s + d * d + e * e
    return s



def pushed(df):
    """The names the generated code pushes whole on its tape."""
    out = set()
    for line in df.__tangent_source__.splitlines():
        line = line.strip()
        if line.startswith("tangent.push(_stack, ") and line.endswith(")"):
            out.add(line[len("tangent.push(_stack, "):-1])
    return out


rng = np.random.default_rng(7)
vec = rng.uniform(-0.9, 0.9, 6)
params = {'T_initial': 18.0, 'R': 2.5, 'C': 12.0, 'dt': 0.5, 'lambda_comfort': 0.05,
          'T_target': 20.0}
hours = np.arange(6) * 1.0
cases = [
    ("building", building, (0.5 + 0.4 * np.sin(hours), 5.0 + 8.0 * np.sin(hours - 1.5),
                            0.2 + 0.1 * np.cos(hours), params), {'T', 'total_cost', 't'}),
    ("rebound_to_none", rebound_to_none, (vec, {'C': 1.5}), {'c'}),
    ("rebound_container", rebound_container, (vec, {'C': 1.5}, {'C': -0.5}), {'c'}),
    ("carried", carried, (vec,), {'prev'}),
    ("read_after", read_after, (vec,), {'a'}),
    ("with_break", with_break, (vec, 0.5), set()),
    ("stored", stored, (vec, vec[::-1].copy()), set()),
    ("nested", nested, (rng.uniform(-0.9, 0.9, (3, 4)), vec[:4].copy()), set()),
    ("carried_state", carried_state, (vec, {'a': 0.7}), {'u'}),
]
checked = 0
# Recomputed instead of pushed: the element reads and the products of them (the loop
# over a local array stored into restores its elements from the tape, and reads `t`).
recomputed = {"stored": {"a", "x_item", "w_item"}, "nested": {"w_item", "m_item"}}
for name, f, args, kept in cases:
    want = central(f, args, 0)
    joint = tangent.grad(f, compile="python")
    assert kept <= pushed(joint), (name, "pushed", pushed(joint), "must keep", kept)
    assert not recomputed.get(name, set()) & pushed(joint), (name, "pushed", pushed(joint))
    modes = {
        "joint": joint,
        "unoptimized": tangent.grad(f, compile="python", optimized=False),
        "split": tangent.autodiff(f, motion="split", compile="python"),
        "auto": tangent.grad(f),
    }
    for mode, df in modes.items():
        got = df(*args)
        assert close(got, want, 1e-6), (name, mode, got, want)
        checked += 1
    v = rng.uniform(-1.0, 1.0, args[0].shape)
    hvp = tangent.autodiff(joint, mode="forward", compile="python")
    got = hvp(*args, 1.0, v)
    expect = hessian_times(f, args, v)
    assert close(got, expect, 1e-4), (name, "forward over reverse", got, expect)
    checked += 1
    print("%s: ok" % name)

# The building simulation pushes only the two values the loop carries and its counter.
print("building pushes:", sorted(pushed(tangent.grad(building, compile="python"))))

# A container a call changes between iterations: d/dx_t of sum(c_t x_t^2) with
# c_t = 1 + t, since `bump` adds one to P['C'] per iteration.
for mode, make in (("joint", lambda: tangent.grad(mutated_by_call, compile="python")),
                   ("auto", lambda: tangent.grad(mutated_by_call))):
    df = make()
    assert 'c' in pushed(df) or mode == "auto", pushed(df)
    P['C'] = 1.0
    got = df(vec, P)
    want = 2.0 * (1.0 + np.arange(len(vec))) * vec
    assert close(got, want, 1e-12), (mode, got, want)
    checked += 1
print("mutated_by_call: ok")

# A checkpointed loop that changes a dict in place: each segment re-runs from a copy of
# the dict as it was when the segment started (tangent.copy of a dict is a copy).
def decaying(a):
    p = {'gain': 0.5}
    s = 0.0
    for t in range(a.size):
        s = s + p['gain'] * a[t] * a[t]
        p['gain'] = p['gain'] * 0.8
    return s


want = 2.0 * 0.5 * 0.8 ** np.arange(len(vec)) * vec
for motion in ("joint", "split"):
    got = tangent.autodiff(decaying, motion=motion, checkpoint=True, compile="python")(vec)
    assert close(got, want, 1e-12), ("checkpointed", motion, got, want)
    checked += 1
d = {'k': [1.0]}
assert tangent.copy(d) is not d and tangent.copy(d) == d
print("decaying: ok")
# Higher order: a first derivative whose backward loop computes values again (and keeps
# none of the invariants on its tape), itself differentiated in reverse (joint and split,
# optimized or not) and in forward mode, against second differences.
def scalar_loop(x):
    p = {'k': 0.3}
    w = x * np.array([0.5, -0.25, 0.75, 1.0])
    s = 0.0
    for t in range(4):
        a = w[t] + p['k']
        s = s + a * s + np.sin(a)
    return s


first = tangent.grad(scalar_loop, compile="python")
assert "computed again" in first.__tangent_source__, first.__tangent_source__
h2 = 1e-4
second = (scalar_loop(0.7 + h2) - 2 * scalar_loop(0.7) + scalar_loop(0.7 - h2)) / h2 ** 2
for optimized in (True, False):
    for motion in ("joint", "split"):
        got = tangent.autodiff(first, motion=motion, compile="python", optimized=optimized)(0.7)
        assert close(got, second, 1e-6), ("reverse over reverse", motion, optimized, got, second)
        checked += 1
got = tangent.autodiff(first, mode="forward", compile="python")(0.7, 1.0, 1.0)
assert close(got, second, 1e-6), ("forward over reverse", got, second)
checked += 1
print("scalar_loop: ok")
print("tape recompute: %d cases agree" % checked)
