//! The MLP workload of DESIGN.md under the embedded interpreter: the gradient's eval
//! time next to the time of its matrix products alone (the floor), in float64 and
//! float32. `cargo bench --bench mlp`. Timing loops run inside the interpreter
//! (`iter_custom`), so the Rust-to-Python hop is not measured.

use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;
#[path = "common/interp.rs"]
mod interp;

const SETUP: &str = r#"
import time
import numpy as np
import tangent
import workloads

def make(dtype):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 128)).astype(dtype)
    ws = [(rng.standard_normal((128, 128)) * 0.1).astype(dtype) for _ in range(3)]
    return x, ws

def floor(w1, w2, w3, x, g, w2t, w3t, xt):
    # The products the gradient with respect to w1 needs, three forward and three
    # backward, on operands prepared outside the timing (transposes included).
    h1 = x @ w1
    h2 = h1 @ w2
    out = h2 @ w3
    a = g @ w3t
    b = a @ w2t
    return xt @ b

DATA = {}
for name, dtype in (("f64", np.float64), ("f32", np.float32)):
    x, ws = make(dtype)
    DATA[name] = (x, ws, np.ones((64, 128), dtype=dtype))

dmlp = tangent.grad(workloads.mlp_loss)

def time_grad(name, n):
    x, (w1, w2, w3), g = DATA[name]
    t = time.perf_counter()
    for _ in range(n):
        dmlp(w1, w2, w3, x)
    return time.perf_counter() - t

def time_floor(name, n):
    x, (w1, w2, w3), g = DATA[name]
    w2t, w3t, xt = w2.T.copy(), w3.T.copy(), x.T.copy()
    t = time.perf_counter()
    for _ in range(n):
        floor(w1, w2, w3, x, g, w2t, w3t, xt)
    return time.perf_counter() - t
"#;

fn bench_mlp(c: &mut Criterion) {
    interp::setup(SETUP, "<mlp bench>");
    let mut group = c.benchmark_group("mlp");
    group.measurement_time(Duration::from_secs(5));
    for dtype in ["f64", "f32"] {
        group.bench_function(format!("gradient/{dtype}"), |b| {
            b.iter_custom(|n| interp::timed("time_grad", dtype, n))
        });
        group.bench_function(format!("matmul_floor/{dtype}"), |b| {
            b.iter_custom(|n| interp::timed("time_floor", dtype, n))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_mlp);
criterion_main!(benches);
