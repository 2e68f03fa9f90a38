//! Runs the reverse-mode corpus through `tangent run` and checks every gradient against
//! central finite differences (the oracle lives in tests/corpus/check_fd.py).

use std::process::Command;

fn run_corpus(optimized: bool, mode: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_tangent"))
        .arg("run")
        .arg("tests/corpus/check_fd.py")
        .arg(if optimized {
            "optimized=1"
        } else {
            "optimized=0"
        })
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "corpus failed (optimized={optimized}, {mode}):\n{stdout}\n{stderr}"
    );
    let checked = stdout.lines().filter(|l| l.starts_with("ok")).count();
    assert!(checked >= 40, "only {checked} cases ran:\n{stdout}");
    assert!(stdout.contains("0 failures"), "{stdout}");
}

#[test]
fn corpus_matches_finite_differences_optimized() {
    run_corpus(true, "reverse");
}

#[test]
fn forward_mode_corpus_matches_finite_differences() {
    run_corpus(true, "forward");
}

#[test]
fn forward_mode_corpus_matches_finite_differences_unoptimized() {
    run_corpus(false, "forward");
}

#[test]
fn corpus_matches_finite_differences_unoptimized() {
    run_corpus(false, "reverse");
}

fn run_second_order(optimized: bool) {
    let out = Command::new(env!("CARGO_BIN_EXE_tangent"))
        .arg("run")
        .arg("tests/corpus/check_second_order.py")
        .arg(if optimized {
            "optimized=1"
        } else {
            "optimized=0"
        })
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    let checked = stdout.lines().filter(|l| l.starts_with("ok")).count();
    assert!(
        checked >= 40,
        "only {checked} second-order cases:\n{stdout}"
    );
}

#[test]
fn second_derivatives_match_second_order_finite_differences() {
    run_second_order(true);
}

#[test]
fn second_derivatives_match_second_order_finite_differences_unoptimized() {
    run_second_order(false);
}
