"""Who takes part in the side-by-side benchmark, how each is launched, and the workloads
(read by run.py, which launches, and by worker.py, which measures).

A contestant's `host` says which process runs worker.py:
  embedded    `tangent run --embedded`: this project with RustPython and its own numpy
  tangent     `tangent run --python PY`: this project's bridge in CPython
  tangent-ad  the tangent-ad 0.4.0 venv's CPython (its `import tangent` is tangent-ad)
  python      the benchmark venv's CPython (the frameworks themselves)
"""

# id: (label, host, library, mode). mode is tangent's compile= for this project's
# contestants and the framework's own way of differentiating for the others.
CONTESTANTS = {
    "tangent-embedded": ("tangent-rs embedded", "embedded", "numpy", "python"),
    "tangent-embedded-auto": ("tangent-rs embedded, compile='auto'", "embedded", "numpy",
                              "auto"),
    "tangent-cpython": ("tangent-rs in CPython (NumPy)", "tangent", "numpy", "python"),
    "tangent-cpython-auto": ("tangent-rs in CPython, compile='auto'", "tangent", "numpy",
                             "auto"),
    "tangent-jax": ("tangent-rs compile='jax'", "tangent", "jax", "jax"),
    "tangent-torch": ("tangent-rs on torch tensors", "tangent", "torch", "python"),
    "tangent-torch-compiled": ("tangent-rs compile='torch'", "tangent", "torch", "torch"),
    "tangent-tf": ("tangent-rs on TF tensors", "tangent", "tf", "python"),
    "tangent-tinygrad": ("tangent-rs on tinygrad tensors", "tangent", "tinygrad", "python"),
    "tangent-tinygrad-compiled": ("tangent-rs compile='tinygrad'", "tangent", "tinygrad",
                                  "tinygrad"),
    "tangent-ad": ("tangent-ad 0.4.0", "tangent-ad", "numpy", "default"),
    "jax-grad": ("jax.grad (no jit)", "python", "jax", "eager"),
    "jax-jit": ("jax.jit(jax.grad)", "python", "jax", "jit"),
    "jax-jit-lax": ("jax.jit(jax.grad), lax.fori_loop/cond", "python", "jax", "jit-lax"),
    "torch-eager": ("torch.autograd (eager)", "python", "torch", "eager"),
    "torch-compile": ("torch.compile + autograd", "python", "torch", "compile"),
    "tf-eager": ("TF GradientTape (eager)", "python", "tf", "eager"),
    "tf-function": ("TF GradientTape in tf.function", "python", "tf", "function"),
    "tinygrad-eager": ("tinygrad gradient (eager)", "python", "tinygrad", "eager"),
    "tinygrad-jit": ("tinygrad gradient under TinyJit", "python", "tinygrad", "jit"),
    # Not a contestant: the six matrix products the MLP's gradient needs, alone, in the
    # embedded numpy (what the embedded gradient's eval is compared with).
    "floor-embedded": ("matmul floor: the gradient's 6 products (embedded)", "embedded",
                       "numpy", "floor"),
}

# workload: (description, default size, scaling sizes, meaning of the size)
WORKLOADS = {
    "mlp64": ("MLP, float64: X 64xW, three WxW weights, tanh, sum(out*out), d/dW1",
              128, [32, 64, 128, 256, 512, 1024], "width W"),
    "mlp32": ("the MLP in float32", 128, [], "width W"),
    "recurrence": ("scalar recurrence with an `if` on the running value each step",
                   1000, [100, 1000, 10000, 100000], "steps"),
    "tape": ("array loop: h = tanh(0.9 h + 0.1 x) over a 1000-vector, sum(h*h)",
             100, [10, 100, 1000, 10000], "steps"),
    "building": ("Tangent 2's building thermal simulation (heating schedule, dict of "
                 "parameters), d/dschedule", 1000, [100, 1000, 10000, 100000], "hours"),
}

# Array workloads, the ones run again with the frameworks' default thread counts.
THREADED = ["mlp64", "mlp32", "tape"]

# Contestants that do not take part in a workload, and why (listed, never dropped).
NOT_APPLICABLE = {
    ("floor-embedded", "recurrence"): "", ("floor-embedded", "tape"): "",
    ("floor-embedded", "building"): "",
    ("jax-jit-lax", "mlp64"): "no loop: the same program as jax.jit(jax.grad)",
    ("jax-jit-lax", "mlp32"): "no loop: the same program as jax.jit(jax.grad)",
}


def peer(cid):
    """Whether a contestant is a peer (not this project): ratios are to the best peer."""
    return not cid.startswith(("tangent-", "floor-")) or cid == "tangent-ad"


def reference(cid):
    """A row that is not a derivative (the matmul floor): no checksum, no ratio."""
    return cid.startswith("floor-")
