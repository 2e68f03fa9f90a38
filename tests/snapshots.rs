//! Snapshot tests of the generated source for every function of the corpus: any change
//! to generated code shows up as a reviewed diff (`cargo insta review`).

use tangent::pipeline::GradOptions;
use tangent::syntax::SourceModule;

const CORPUS: &str = include_str!("corpus/reverse.py");

/// The derivative of `name` with the built-in rules.
fn generate(
    module: &SourceModule,
    name: &str,
    opts: &GradOptions,
) -> Result<tangent::pipeline::Generated, tangent::syntax::Diagnostic> {
    tangent::pipeline::generate(module, name, opts, tangent::rules::RuleSet::builtin())
}

fn wrt_of(name: &str) -> Vec<usize> {
    // The corpus' CASES table gives wrt; two-argument cases list (0, 1).
    let key = format!("\"{name}\":");
    let line = CORPUS.lines().find(|l| l.trim_start().starts_with(&key));
    match line {
        Some(l) if l.contains("(0, 1))") => vec![0, 1],
        _ => vec![0],
    }
}

#[test]
fn generated_source_snapshots() {
    let module = SourceModule::parse("tests/corpus/reverse.py", CORPUS).expect("corpus parses");
    let mut n = 0;
    for name in module.written_functions() {
        for optimized in [true, false] {
            let opts = GradOptions {
                wrt: wrt_of(name),
                optimized,
                ..Default::default()
            };
            let g = generate(&module, name, &opts).unwrap_or_else(|d| panic!("{name}: {d}"));
            let suffix = if optimized { "" } else { "_unoptimized" };
            insta::assert_snapshot!(format!("{name}{suffix}"), g.source);
            n += 1;
        }
    }
    assert!(n >= 80, "only {n} snapshots");
}

#[test]
fn forward_mode_source_snapshots() {
    let module = SourceModule::parse("tests/corpus/reverse.py", CORPUS).expect("corpus parses");
    for name in module.written_functions() {
        let opts = GradOptions {
            mode: tangent::pipeline::Mode::Forward,
            wrt: wrt_of(name),
            ..Default::default()
        };
        let g = generate(&module, name, &opts).unwrap_or_else(|d| panic!("{name}: {d}"));
        insta::assert_snapshot!(format!("forward_{name}"), g.source);
    }
}

#[test]
fn split_motion_source_snapshots() {
    let module = SourceModule::parse("tests/corpus/reverse.py", CORPUS).expect("corpus parses");
    for name in module.written_functions() {
        let opts = GradOptions {
            split: true,
            wrt: wrt_of(name),
            ..Default::default()
        };
        let g = generate(&module, name, &opts).unwrap_or_else(|d| panic!("{name}: {d}"));
        insta::assert_snapshot!(format!("split_{name}"), g.source);
    }
}

/// The optional passes on the corpus functions that have loops (elsewhere they change
/// nothing).
#[test]
fn optional_pass_snapshots() {
    let module = SourceModule::parse("tests/corpus/reverse.py", CORPUS).expect("corpus parses");
    for name in module.written_functions() {
        let def = module.lower_function(name).expect("corpus lowers");
        let mut has_loop = false;
        tangent::syntax::ir::walk_stmts(&def.body, &mut |s| {
            has_loop |= matches!(
                s.kind,
                tangent::syntax::ir::StmtKind::For(..) | tangent::syntax::ir::StmtKind::While(..)
            )
        });
        if !has_loop {
            continue;
        }
        let liveness = GradOptions {
            tape_liveness: true,
            wrt: wrt_of(name),
            ..Default::default()
        };
        let g = generate(&module, name, &liveness).unwrap_or_else(|d| panic!("{name}: {d}"));
        insta::assert_snapshot!(format!("liveness_{name}"), g.source);
        let checkpoint = GradOptions {
            checkpoint: true,
            wrt: wrt_of(name),
            ..Default::default()
        };
        let g = generate(&module, name, &checkpoint).unwrap_or_else(|d| panic!("{name}: {d}"));
        insta::assert_snapshot!(format!("checkpoint_{name}"), g.source);
    }
}

/// CSE, algebraic simplification and coarsening, each on its own, on every corpus
/// function they change (the others are unchanged by construction), plus the MLP
/// workload where the backward pass reuses `out * out` from the forward pass.
#[test]
fn egraph_pass_snapshots() {
    let module = SourceModule::parse("tests/corpus/reverse.py", CORPUS).expect("corpus parses");
    let mut changed = 0;
    for name in module.written_functions() {
        let plain = GradOptions {
            wrt: wrt_of(name),
            ..Default::default()
        };
        let base = generate(&module, name, &plain).unwrap_or_else(|d| panic!("{name}: {d}"));
        for (pass, opts) in [
            (
                "cse",
                GradOptions {
                    cse: true,
                    ..plain.clone()
                },
            ),
            (
                "algebraic",
                GradOptions {
                    algebraic: true,
                    ..plain.clone()
                },
            ),
            (
                "coarsening",
                GradOptions {
                    coarsening: true,
                    ..plain.clone()
                },
            ),
        ] {
            let g = generate(&module, name, &opts).unwrap_or_else(|d| panic!("{name}: {d}"));
            if g.source != base.source {
                changed += 1;
                insta::assert_snapshot!(format!("{pass}_{name}"), g.source);
            }
        }
    }
    assert!(
        changed >= 10,
        "the passes changed only {changed} corpus functions"
    );
    let workloads = include_str!("../benches/workloads.py");
    let module = SourceModule::parse("benches/workloads.py", workloads).expect("parses");
    let opts = GradOptions {
        cse: true,
        algebraic: true,
        ..Default::default()
    };
    let g = generate(&module, "mlp_loss", &opts).expect("mlp differentiates");
    insta::assert_snapshot!("workload_egraph_mlp_loss", g.source);
    let opts = GradOptions {
        coarsening: true,
        ..Default::default()
    };
    let g = generate(&module, "mlp_loss", &opts).expect("mlp differentiates");
    insta::assert_snapshot!("workload_coarsening_mlp_loss", g.source);
}

/// jax.lax control flow written out by its templates (backends/jax.py): the loops and
/// branches a derivative goes through, reverse and forward.
#[test]
fn lax_control_flow_source_snapshots() {
    let text = include_str!("jax/control_flow.py");
    let module = SourceModule::parse("tests/jax/control_flow.py", text).expect("parses");
    let mut n = 0;
    for name in module.written_functions() {
        let Some(first) = text
            .lines()
            .find(|l| l.starts_with(&format!("def {name}(")))
        else {
            continue;
        };
        // Loss functions only: the helpers they pass (`body`, `step`) are not entries.
        if !first.contains("(x") && !first.contains("(c0") {
            continue;
        }
        for mode in [
            tangent::pipeline::Mode::Reverse,
            tangent::pipeline::Mode::Forward,
        ] {
            let opts = GradOptions {
                mode,
                ..Default::default()
            };
            let g = generate(&module, name, &opts).unwrap_or_else(|d| panic!("{name}: {d}"));
            let prefix = if mode == tangent::pipeline::Mode::Forward {
                "forward_"
            } else {
                ""
            };
            insta::assert_snapshot!(format!("lax_{prefix}{name}"), g.source);
            n += 1;
        }
    }
    assert!(n >= 20, "only {n} snapshots");
}
