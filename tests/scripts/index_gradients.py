"""Gradients of indexed reads and writes: an index that selects an element twice gives
that element both shares, and a gradient array the derivative changes in place
(`tangent.add_grad_at_in_place`, src/opt/in_place.rs) is never one a second name, the
tape or the caller sees. Every case against central differences (first and second
order), in every mode: joint and split reverse, unoptimized, forward, compile='python'
and 'auto', and forward over reverse."""
import numpy as np
import tangent
from differences import central, close, hessian_times


def repeated(x):
    y = x[np.array([0, 0, 1])]
    return np.sum(y * y)


def repeated_list(x):
    return np.sum(np.sin(x[[2, 2, 2, 0]]) * x[[0, 2, 0, 1]])


def repeated_rows(m):
    r = m[[1, 1, 0]]
    return np.sum(r * r * m[0])


def repeated_pairs(m):
    return np.sum(m[np.array([0, 0, 1]), np.array([1, 1, 2])] ** 3)


def negative_repeats(x):
    return np.sum(np.exp(x[np.array([-1, 2, -1, -3])]))


def loop_reads(x, c):
    s = 0.0
    for t in range(len(x)):
        s = s + c * x[t] * x[t - 1]
    return s


def aliased_reads(x):
    y = x
    s = 0.0
    for t in range(len(x)):
        s = s + y[t] * np.sin(x[t])
    return s


def alias_in_loop(x):
    s = 0.0
    for t in range(len(x)):
        y = x
        s = s + y[t] * x[t - 1] + y[t - 2]
    return s


def vector_out(x):
    u = x * 1.0
    for t in range(1, len(x)):
        u[t] = u[t - 1] * x[t]
    return u


def two_args(a, b):
    s = 0.0
    for t in range(len(a)):
        s = s + a[t] * np.exp(b[t])
    return s


def same_array_twice(x):
    return two_args(x, x)


def reads_and_whole(x):
    s = np.sum(x * x)
    for t in range(len(x)):
        s = s + x[t] ** 3
    return s


def store_loop(x):
    u = np.zeros(len(x))
    for t in range(len(x)):
        u[t] = x[t] * x[(t + 1) % len(x)]
    return np.sum(u * u)


def store_scaled(x):
    u = np.zeros(len(x))
    for t in range(len(x)):
        u[t] = x[t] ** 2 * x[t - 1]
    return np.sum(u * 3.0)


def store_then_sum(x):
    u = np.zeros(len(x))
    for t in range(len(x)):
        u[t] = np.sin(x[t]) + u[t - 1]
    return np.sum(u) * 2.0


def row_reads(m):
    s = 0.0
    for i in range(m.shape[0]):
        r = m[i]
        s = s + np.sum(r * m[i]) + m[i, 0] ** 2
    return s


def branches(x):
    s = 0.0
    for t in range(len(x)):
        if x[t] > 0.0:
            s = s + x[t] * x[0]
        else:
            s = s - np.tanh(x[t]) * x[-1]
    return s


def nested_loops(m, w):
    s = 0.0
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            s = s + np.tanh(m[i, j] * w[j]) * w[j - 1]
    return s



rng = np.random.default_rng(7)
vec = rng.uniform(-1.2, 1.2, 5)
mat = rng.uniform(-1.2, 1.2, (3, 4))
CASES = [
    (repeated, (vec,)),
    (repeated_list, (vec,)),
    (repeated_rows, (mat,)),
    (repeated_pairs, (mat,)),
    (negative_repeats, (vec,)),
    (loop_reads, (vec, 0.7)),
    (aliased_reads, (vec,)),
    (alias_in_loop, (vec,)),
    (same_array_twice, (vec,)),
    (reads_and_whole, (vec,)),
    (store_loop, (vec,)),
    (store_scaled, (vec,)),
    (store_then_sum, (vec,)),
    (row_reads, (mat,)),
    (branches, (vec,)),
    (nested_loops, (mat, rng.uniform(-1.0, 1.0, 4))),
]

checked = 0
for f, args in CASES:
    name = f.__name__
    want = central(f, args, 0)
    reverse = {
        "joint": tangent.grad(f, compile="python"),
        "split": tangent.autodiff(f, motion="split", compile="python"),
        "unoptimized": tangent.grad(f, optimized=False, compile="python"),
        "auto": tangent.grad(f),
    }
    for mode, df in reverse.items():
        for call in range(2):  # a second call must not see the first one's gradient
            got = df(*args)
            assert close(got, want, 1e-6), (name, mode, call, got, want)
            checked += 1
    assert close(args[0], args[0].copy(), 0.0)
    forward = tangent.autodiff(f, mode="forward", compile="python")
    v = rng.uniform(-1.0, 1.0, args[0].shape)
    got = forward(*args, v)
    assert close(got, np.sum(want * v), 1e-6), (name, "forward", got, np.sum(want * v))
    checked += 1
    hvp = tangent.autodiff(tangent.grad(f, compile="python"), mode="forward",
                           compile="python")
    got = hvp(*args, 1.0, v)
    expect = hessian_times(f, args, v)
    assert close(got, expect, 1e-4), (name, "forward over reverse", got, expect)
    checked += 1
    print("%s: ok" % name)

# Higher order in reverse: a first derivative that changes its gradient arrays in place,
# itself differentiated in joint and split motion, optimized or not, and in forward mode;
# against second differences.
def stored_then_read(x):
    u = np.zeros(4)
    for t in range(4):
        u[t] = np.sin(x * (t + 1)) + u[t - 1] * x
    s = 0.0
    for t in range(4):
        s = s + u[t] * u[t - 2]
    return s + np.sum(u * u)


h2 = 1e-4
second = (stored_then_read(0.7 + h2) - 2 * stored_then_read(0.7)
          + stored_then_read(0.7 - h2)) / h2 ** 2
for optimized in (True, False):
    first = tangent.grad(stored_then_read, compile="python", optimized=optimized)
    assert "_in_place" in first.__tangent_source__, first.__tangent_source__
    for motion in ("joint", "split"):
        got = tangent.autodiff(first, motion=motion, compile="python", optimized=optimized)(0.7)
        assert close(got, second, 1e-6), ("reverse over reverse", motion, optimized, got, second)
        checked += 1
    got = tangent.autodiff(first, mode="forward", compile="python")(0.7, 1.0, 1.0)
    assert close(got, second, 1e-6), ("forward over reverse", optimized, got, second)
    checked += 1
print("stored_then_read: ok")

# A gradient of an array output takes its seed as an argument: the seed is the caller's,
# never changed, and each element's gradient is the weighted sum of the outputs'.
seed = rng.uniform(-1.0, 1.0, vec.shape)
kept = seed.copy()
weighted = lambda x: float(np.sum(vector_out(x) * kept))
want = central(weighted, (vec,), 0)
for mode, df in (("joint", tangent.grad(vector_out, compile="python")),
                 ("split", tangent.autodiff(vector_out, motion="split", compile="python")),
                 ("auto", tangent.grad(vector_out))):
    got = df(vec, seed)
    assert close(got, want, 1e-6), ("vector_out", mode, got, want)
    assert close(seed, kept, 0.0), ("vector_out", mode, "changed the seed", seed)
    checked += 1
print("vector_out: ok")

# The in-place helpers change a NumPy array or a list in place (a loop of element reads
# costs one element per step); the others copy.
for g in (np.zeros(3), [0.0, 0.0, 0.0]):
    x = np.ones(3) if isinstance(g, np.ndarray) else [1.0, 1.0, 1.0]
    copied = tangent.add_grad_at(g, x, 1, 2.0)
    assert copied is not g and g[1] == 0.0 and copied[1] == 2.0, (g, copied)
    assert tangent.add_grad_at_in_place(g, x, 1, 2.0) is g and g[1] == 2.0, g
    assert tangent.zero_grad_at_in_place(g, 1) is g and g[1] == 0.0, g
    assert tangent.set_tangent_at_in_place(g, x, 2, 5.0) is g and g[2] == 5.0, g
    assert tangent.zero_grad_at(g, 2) is not g and g[2] == 5.0, g

# A value the in-place helpers cannot write (a read-only broadcast, as `unbroadcast` gives
# for a number spread to a shape) is copied on their first call, and left as it was.
for helper, args in ((tangent.zero_grad_at_in_place, (1,)),
                     (tangent.add_grad_at_in_place, (np.ones(3), 1, 5.0)),
                     (tangent.set_tangent_at_in_place, (np.ones(3), 1, 5.0))):
    spread = np.broadcast_to(np.asarray(2.0), (3,))
    out = helper(spread, *args)
    assert out is not spread and list(spread) == [2.0, 2.0, 2.0], (helper, spread)
    assert out[0] == 2.0 and out[1] in (0.0, 5.0, 7.0), (helper, out)

print("index gradients: %d cases agree" % checked)
