//! Cost of the transformation itself (source in, source out; no interpreter):
//! `cargo bench --bench transform`.
use criterion::{criterion_group, criterion_main, Criterion};
use tangent::pipeline::GradOptions;
use tangent::syntax::SourceModule;

const WORKLOADS: &str = include_str!("workloads.py");

fn bench_transform(c: &mut Criterion) {
    let opts = GradOptions::default();
    for func in ["mlp_loss", "recurrence"] {
        c.bench_function(&format!("grad_source/{func}"), |b| {
            b.iter(|| {
                let module = SourceModule::parse("workloads.py", WORKLOADS).unwrap();
                let g = tangent::pipeline::generate(
                    &module,
                    func,
                    &opts,
                    tangent::rules::RuleSet::builtin(),
                )
                .unwrap();
                std::hint::black_box(g.source.len())
            })
        });
    }
}

criterion_group!(benches, bench_transform);
criterion_main!(benches);
