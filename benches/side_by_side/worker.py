"""One contestant on one workload at one size, in this (fresh) process; run by run.py.

    worker.py CONTESTANT WORKLOAD SIZE

Prints one JSON line: `first_ms` (from asking for the derivative to its first result:
transformation, tracing or compilation plus the first evaluation), `eval_us` and
`eval_min_us` (median and fastest call over about half a second of calls), `peak_kb`
(the growth of the process's resident memory from asking for the derivative to its
first result: the gradient's working memory and what building it took) and
`checksum` (a weighted sum of the gradient, which every contestant must agree on).
TANGENT_BENCH_THREADS=1 asks the frameworks for one thread (run.py also sets the BLAS
and XLA variables before the process starts).
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))

from contestants import CONTESTANTS  # noqa: E402
from proc_memory import status_kb  # noqa: E402  (benches/proc_memory.py)

SINGLE = os.environ.get("TANGENT_BENCH_THREADS") == "1"
EVAL_SECONDS = float(os.environ.get("TANGENT_BENCH_EVAL_SECONDS", "0.5"))


# ---- inputs: the same numbers in every host (closed forms, no random streams) ----

def wave(np, n, phase, scale, dtype):
    return (np.sin(np.arange(n) * 0.37 + phase) * scale).astype(dtype)


def numpy_inputs(workload, size):
    """The workload's arguments as NumPy arrays and Python numbers."""
    import numpy as np
    if workload in ("mlp64", "mlp32"):
        dtype = "float32" if workload == "mlp32" else "float64"
        w = size
        scale = 0.3 * (128.0 / w) ** 0.5
        ws = [wave(np, w * w, 1.0 + k, scale, dtype).reshape((w, w)) for k in range(3)]
        return ws + [wave(np, 64 * w, 0.5, 1.0, dtype).reshape((64, w))]
    if workload == "recurrence":
        return [0.3, size]
    if workload == "tape":
        return [wave(np, 1000, 0.2, 0.8, "float64") + 0.1, size]
    if workload == "building":
        hours = np.arange(size) * 1.0
        schedule = 0.5 + 0.4 * np.sin(hours * 0.26)
        outdoor = 5.0 + 8.0 * np.sin(hours * 0.26 - 1.5)
        price = 0.2 + 0.1 * np.cos(hours * 0.26)
        params = {"T_initial": 18.0, "R": 2.5, "C": 12.0, "dt": 0.5,
                  "lambda_comfort": 0.05, "T_target": 20.0}
        return [schedule, outdoor, price, params]
    raise SystemExit("unknown workload %r" % workload)


def converted(args, convert):
    """Arrays converted to a framework's tensors; numbers, ints and dicts kept."""
    out = []
    for a in args:
        out.append(convert(a) if hasattr(a, "shape") else a)
    return out


def library_inputs(library, workload, size):
    args = numpy_inputs(workload, size)
    if library == "numpy":
        return args
    if library == "jax":
        import jax.numpy as jnp
        return converted(args, jnp.asarray)
    if library == "torch":
        import torch
        args = converted(args, torch.from_numpy)
        if workload == "recurrence":
            args[0] = torch.tensor(args[0], dtype=torch.float64)
        return args
    if library == "tf":
        import tensorflow as tf
        args = converted(args, tf.constant)
        if workload == "recurrence":
            args[0] = tf.constant(args[0], dtype=tf.float64)
        return args
    if library == "tinygrad":
        from tinygrad import Tensor
        args = converted(args, Tensor)
        if workload == "recurrence":
            # A realised copy: a buffer TinyJit can take (a 0-d tensor is a constant).
            import numpy as np
            args[0] = Tensor(np.array(args[0], dtype="float64")).clone().realize()
        return args
    raise SystemExit("unknown library %r" % library)


def workload_function(library, workload, lax=False):
    name = {"mlp64": "mlp_loss", "mlp32": "mlp_loss", "recurrence": "recurrence_steps",
            "tape": "tape_loop", "building": "building"}[workload]
    module = None if library == "numpy" else __import__("wl_" + library)
    if lax and hasattr(module, name + "_lax"):
        return getattr(module, name + "_lax")
    if module is None or not hasattr(module, name):
        # NumPy's, and the building simulation, which uses only indexing and
        # arithmetic: one text serves every framework's arrays.
        import workloads as module
    return getattr(module, name)


# ---- the threads each framework may use ----

def configure_threads(library):
    if not SINGLE:
        return
    if library == "torch":
        import torch
        torch.set_num_threads(1)
        torch.set_num_interop_threads(1)
    elif library == "tf":
        import tensorflow as tf
        tf.config.threading.set_intra_op_parallelism_threads(1)
        tf.config.threading.set_inter_op_parallelism_threads(1)
    # JAX reads XLA_FLAGS (set by run.py) when it starts.


# ---- how each contestant gets its derivative: a function of the workload's arguments ----

def tangent_derivative(f, mode):
    import tangent
    if mode == "default":
        return tangent.grad(f)
    return tangent.grad(f, compile=mode)


def jax_derivative(f, mode, workload):
    import jax
    df = jax.grad(f)
    if mode == "eager":
        return df
    static = (1,) if workload in ("recurrence", "tape") else ()
    return jax.jit(df, static_argnums=static)


def torch_derivative(f, mode):
    import torch
    run = torch.compile(f) if mode == "compile" else f

    def df(x, *rest):
        x = x.detach().requires_grad_(True)
        return torch.autograd.grad(run(x, *rest), x)[0]
    return df


def tf_derivative(f, mode):
    import tensorflow as tf

    def df(x, *rest):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = f(x, *rest)
        return tape.gradient(y, x)
    if mode == "function":
        # The step count is a Python int: one trace per value (tf.function's rule).
        return tf.function(df)
    return df


def tinygrad_derivative(f, mode):
    from tinygrad import TinyJit

    def df(x, *rest):
        x = x.detach()
        return f(x, *rest).gradient(x)[0].realize()
    if mode == "jit":
        return TinyJit(df)
    return df


def matmul_floor(w1, w2, w3, x):
    """The six products of the MLP gradient with respect to w1 (three forward, three
    backward), on operands whose transposes are made once, outside the timing."""
    key = (id(w1), id(w2), id(w3), id(x))
    if FLOOR_OPERANDS.get("key") != key:
        FLOOR_OPERANDS.update(key=key, w2t=w2.T.copy(), w3t=w3.T.copy(), xt=x.T.copy())
    w2t, w3t, xt = FLOOR_OPERANDS["w2t"], FLOOR_OPERANDS["w3t"], FLOOR_OPERANDS["xt"]
    h1 = x @ w1
    h2 = h1 @ w2
    out = h2 @ w3
    a = out @ w3t
    b = a @ w2t
    return xt @ b


FLOOR_OPERANDS = {}


def derivative(cid, workload):
    label, host, library, mode = CONTESTANTS[cid]
    if mode == "floor":
        return matmul_floor
    f = workload_function(library, workload, lax=(mode == "jit-lax"))
    if host in ("embedded", "tangent", "tangent-ad"):
        return tangent_derivative(f, mode)
    if library == "jax":
        return jax_derivative(f, mode, workload)
    if library == "torch":
        return torch_derivative(f, mode)
    if library == "tf":
        return tf_derivative(f, mode)
    if library == "tinygrad":
        return tinygrad_derivative(f, mode)
    raise SystemExit("no derivative for %r" % cid)


# ---- measuring ----

def ready(g):
    """Wait for an asynchronous result (JAX dispatches, tinygrad is lazy)."""
    wait = waiter(g)
    if wait is not None:
        wait(g)
    return g


def waiter(g):
    """How to wait for results like `g` (None: they are ready when returned). Decided
    once, outside the timed calls: the test costs more than a fast gradient in the
    embedded host (a failed `hasattr` raises and catches an AttributeError)."""
    if hasattr(g, "block_until_ready"):
        return lambda r: r.block_until_ready()
    if type(g).__module__.startswith("tinygrad") and hasattr(g, "realize"):
        return lambda r: r.realize()
    return None


def as_numpy(g):
    import numpy as np
    if hasattr(g, "detach"):
        g = g.detach()
    if hasattr(g, "numpy"):
        g = g.numpy()
    return np.asarray(g, dtype="float64")


def checksum(g):
    """A weighted sum (a plain sum would not see permuted or sign-symmetric errors)."""
    import numpy as np
    flat = as_numpy(g).reshape(-1)
    weights = 1.0 + (np.arange(flat.shape[0]) % 7) / 7.0
    return float(np.sum(flat * weights))


def reset_peak():
    """Reset the kernel's high-water mark of resident memory (VmHWM) to the current
    resident set (Linux: 5 > /proc/self/clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def main():
    cid, workload, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    label, host, library, mode = CONTESTANTS[cid]
    configure_threads(library)
    if library == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
    args = library_inputs(library, workload, size)
    # Peak memory is read around the first call: after it, allocators keep what they
    # freed (the embedded host's glibc settings, torch's and XLA's pools), and a second
    # call's growth would be near zero whatever the gradient holds. So it includes what
    # a compiler (jax.jit, torch.compile, TinyJit) needs to build the gradient.
    memory = reset_peak()
    before = status_kb("VmRSS")
    t0 = time.perf_counter()
    df = derivative(cid, workload)
    g = ready(df(*args))
    first = time.perf_counter() - t0
    peak = status_kb("VmHWM")
    peak = max(0, peak - before) if memory and peak and before else None
    check = checksum(g)
    times = []
    wait = waiter(g)
    start = time.perf_counter()
    while len(times) < 3 or (time.perf_counter() - start < EVAL_SECONDS
                             and len(times) < 2000):
        if wait is None:
            t0 = time.perf_counter()
            df(*args)
        else:
            t0 = time.perf_counter()
            wait(df(*args))
        times.append(time.perf_counter() - t0)
    print(json.dumps({"first_ms": first * 1e3, "eval_us": median(times) * 1e6,
                      "eval_min_us": min(times) * 1e6, "calls": len(times),
                      "checksum": check, "peak_kb": peak}))


main()
