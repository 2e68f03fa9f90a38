//! The scalar recurrence of DESIGN.md (1000 steps, a branch each step): "compile +
//! first call" (transformation, compilation and one call, with tangent's caches
//! cleared) and "eval" (one call of the ready gradient), for `compile='native'` and
//! `compile='python'`, timed inside the embedded interpreter. `cargo bench --bench
//! recurrence`. The disk cache is off so every first call transforms again.

use criterion::{criterion_group, criterion_main, Criterion};
use std::time::Duration;
#[path = "common/interp.rs"]
mod interp;

const SETUP: &str = r#"
import time
import tangent
import workloads

READY = {mode: tangent.grad(workloads.recurrence, compile=mode) for mode in ("native", "python")}
assert type(READY["native"]).__name__ == "NativeFunction"
assert READY["native"](0.3) == READY["python"](0.3)

def time_first(mode, n):
    total = 0.0
    for _ in range(n):
        tangent._CACHE.clear()
        t = time.perf_counter()
        tangent.grad(workloads.recurrence, compile=mode)(0.3)
        total += time.perf_counter() - t
    return total

def time_eval(mode, n):
    df = READY[mode]
    t = time.perf_counter()
    for _ in range(n):
        df(0.3)
    return time.perf_counter() - t
"#;

fn bench_recurrence(c: &mut Criterion) {
    // SAFETY: set before the interpreter thread, the only other reader, starts.
    unsafe { std::env::set_var("TANGENT_DISK_CACHE", "0") };
    interp::setup(SETUP, "<recurrence bench>");
    let mut group = c.benchmark_group("recurrence");
    group.measurement_time(Duration::from_secs(5));
    group.sample_size(20);
    for mode in ["native", "python"] {
        group.bench_function(format!("compile_and_first_call/{mode}"), |b| {
            b.iter_custom(|n| interp::timed("time_first", mode, n))
        });
        group.bench_function(format!("eval/{mode}"), |b| {
            b.iter_custom(|n| interp::timed("time_eval", mode, n))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_recurrence);
criterion_main!(benches);
