//! The op catalog: every registered rule is listed in tests/catalog/check_catalog.py and
//! checked there (reverse and forward) against central finite differences.

use crate::common::backend::in_tinygrad_catalog;
use std::collections::BTreeSet;
use std::process::Command;

const CATALOG: &str = include_str!("catalog/check_catalog.py");
/// The torch catalog checks the torch rules and the Tensor methods torch.py adds under
/// the array class (`numpy.ndarray.exp`, ...).
const TORCH_CATALOG: &str = include_str!("torch/check_torch.py");
/// Rule names quoted in the catalog (`"numpy.sum"`, ...).
fn catalog_rules() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for piece in CATALOG
        .split('"')
        .skip(1)
        .step_by(2)
        .chain(TORCH_CATALOG.split('"').skip(1).step_by(2))
    {
        let is_name = piece.contains('.')
            && piece
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.');
        if is_name {
            out.insert(piece.to_owned());
        }
    }
    out
}

#[test]
fn every_rule_is_in_the_catalog() {
    let listed = catalog_rules();
    let rules = tangent::rules::RuleSet::builtin();
    let missing: Vec<&str> = rules
        .adjoint_names()
        .into_iter()
        .chain(rules.tangent_names())
        // tangent's own helpers (rules that let generated code be differentiated again)
        // are exercised by tests/corpus/check_second_order.py instead.
        .filter(|n| !n.starts_with("tangent."))
        // JAX rules (`jax.*`) have their own catalog,
        // tests/jax/check_jax.py, checked by tests/jax_backend.rs.
        .filter(|n| !n.starts_with("jax"))
        // torch rules (`torch.*`): tests/torch/check_torch.py, tests/torch_backend.rs.
        .filter(|n| !n.starts_with("torch."))
        // TensorFlow rules: tests/tensorflow/check_tensorflow.py, tests/tensorflow_backend.rs.
        .filter(|n| !n.starts_with("tensorflow."))
        // keras.ops rules: tests/keras/check_keras.py, tests/keras_backend.rs.
        .filter(|n| !n.starts_with("keras."))
        // tinygrad's: tests/tinygrad/check_tinygrad.py, tests/tinygrad_backend.rs.
        .filter(|n| !n.starts_with("tinygrad.") && !in_tinygrad_catalog(n))
        // `super(cls, obj)` passes the gradient of an object, not of numbers: checked
        // against finite differences by tests/scripts/classes.py (tests/cli.rs).
        .filter(|n| *n != "builtins.super")
        // `numpy.float32(x)` rounds its value to float32, past what this catalog's steps
        // resolve: checked against finite differences of a wider step by
        // tests/scripts/native_arrays.py (`f32_converted`, tests/cli.rs).
        .filter(|n| *n != "numpy.float32")
        .filter(|n| !listed.contains(*n))
        .collect();
    assert!(
        missing.is_empty(),
        "rules missing from tests/catalog/check_catalog.py: {missing:?}"
    );
}

/// Runs a catalog checker under `tangent run` in the embedded host (the scripts import
/// scipy, which would send them to CPython) and asserts it reports no failure.
fn run_checker(script: &str, args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_tangent"))
        .env(
            "TANGENT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache"),
        )
        .args(["run", "--embedded"])
        .arg(script)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(", 0 failures"), "{stdout}");
}

#[test]
fn catalog_matches_finite_differences() {
    let dir = std::env::temp_dir().join(format!("tangent-catalog-{}", std::process::id()));
    // `float32`: besides every float64 check, once per entry float32 inputs must give
    // float32 gradients (issue 14, item 6); no known failures.
    run_checker(
        "tests/catalog/check_catalog.py",
        &[&dir.to_string_lossy(), "float32"],
    );
}

/// Every NumPy function declared nondifferentiable has a derivative that is zero almost
/// everywhere (its output does not move with its float inputs): a declaration that is
/// wrong would be a silent zero gradient (tests/catalog/check_nondifferentiable.py;
/// tests/bridge.rs runs it on real NumPy).
#[test]
fn nondifferentiable_declarations_hold() {
    run_checker("tests/catalog/check_nondifferentiable.py", &[]);
}

/// Second order: Hessian-vector products of every catalog entry with respect to each
/// argument (forward-over-reverse and reverse-over-forward) against second differences
/// (tests/catalog/check_second_order.py).
#[test]
fn catalog_second_order_matches_finite_differences() {
    let dir = std::env::temp_dir().join(format!("tangent-catalog2-{}", std::process::id()));
    run_checker(
        "tests/catalog/check_second_order.py",
        &[&dir.to_string_lossy(), "every_arg"],
    );
}
