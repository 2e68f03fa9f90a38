"""One contestant on one workload, in a fresh process (run by benches/compare.py).

    compare_worker.py CONTESTANT WORKLOAD [COMPILE]

CONTESTANT: `tangent` (whichever `tangent` this interpreter imports: this project under
`tangent run`, or a peer such as tangent-ad in its own venv) or `jax` (jax.grad, jitted
where the workload can be traced). WORKLOAD: mlp64, mlp32 or recurrence (benches/
workloads.py). Prints one JSON line: compile + first call (ms, from before the derivative
is requested to its first result), eval (us, best of 5 rounds) and a checksum of the
gradient so the orchestrator can check that every contestant computes the same thing.
"""
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def best(f, n):
    """Best mean time of a call over 5 rounds of n calls, in microseconds."""
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            r = f()
        _ready(r)
        times.append((time.perf_counter() - t0) / n)
    return min(times) * 1e6


def _ready(r):
    if hasattr(r, "block_until_ready"):
        r.block_until_ready()


def checksum(g):
    import numpy as np
    return float(np.sum(np.asarray(g, dtype=float)))


def mlp_inputs(dtype):
    import numpy as np
    # A fixed LCG, not np.random: the embedded numpy's random streams differ from NumPy's.
    state = [12345]

    def uniform(shape, scale):
        n = 1
        for s in shape:
            n *= s
        out = []
        for _ in range(n):
            state[0] = (state[0] * 6364136223846793005 + 1442695040888963407) % 2 ** 64
            out.append(((state[0] >> 11) / 2.0 ** 53 - 0.5) * scale)
        return np.array(out, dtype=dtype).reshape(shape)
    x = uniform((64, 128), 2.0)
    ws = [uniform((128, 128), 0.3) for _ in range(3)]
    return ws + [x]


def jax_workloads():
    """benches/workloads.py over jax.numpy (written to a file: tangent reads source)."""
    import tempfile
    src = open(os.path.join(HERE, "workloads.py")).read()
    d = tempfile.mkdtemp(prefix="tangent-compare-")
    with open(os.path.join(d, "workloads_jax.py"), "w") as fh:
        fh.write(src.replace("import numpy as np", "import jax.numpy as np"))
    sys.path.insert(0, d)
    import workloads_jax
    return workloads_jax


def run_tangent(workload, compile_mode):
    import tangent
    import workloads
    kwargs = {} if compile_mode is None else {"compile": compile_mode}
    if compile_mode == "jax":
        import jax
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        workloads = jax_workloads()
    if workload == "recurrence":
        args, rounds = (0.3,), 200
        f = workloads.recurrence
    else:
        args = mlp_inputs("float32" if workload == "mlp32" else "float64")
        if compile_mode == "jax":
            args = [jnp.asarray(a) for a in args]
        rounds = 200
        f = workloads.mlp_loss
    t0 = time.perf_counter()
    df = tangent.grad(f, **kwargs)
    g = df(*args)
    _ready(g)
    first = (time.perf_counter() - t0) * 1e3
    return first, best(lambda: df(*args), rounds), checksum(g)


def run_jax(workload):
    import jax
    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import workloads
    if workload == "recurrence":
        # A Python `if` on the running value cannot be traced: jax.grad runs op by op.
        df, args, rounds = jax.grad(workloads.recurrence), (0.3,), 2
    else:
        args = [jnp.asarray(a) for a in
                mlp_inputs("float32" if workload == "mlp32" else "float64")]
        df, rounds = jax.jit(jax.grad(jax_workloads().mlp_loss)), 200
    t0 = time.perf_counter()
    g = df(*args)
    _ready(g)
    first = (time.perf_counter() - t0) * 1e3
    return first, best(lambda: df(*args), rounds), checksum(g)


def main():
    contestant, workload = sys.argv[1], sys.argv[2]
    compile_mode = sys.argv[3] if len(sys.argv) > 3 and sys.argv[3] != "-" else None
    if contestant == "jax":
        first, ev, check = run_jax(workload)
    else:
        first, ev, check = run_tangent(workload, compile_mode)
    print(json.dumps({"first_ms": first, "eval_us": ev, "checksum": check}))


main()
