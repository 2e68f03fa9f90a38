//! Runs the reverse-mode corpus through `tangent run` and checks every gradient against
//! central finite differences (the oracle lives in tests/corpus/check_fd.py).

use std::process::Command;

fn run_script(script: &str, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_tangent"))
        .env(
            "TANGENT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache"),
        )
        .arg("run")
        .arg(script)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{script} {args:?} failed:\n{stdout}\n{stderr}"
    );
    stdout
}

/// The whole corpus against finite differences, for one combination of options.
fn run_corpus(optimized: bool, mode: &str, motion: &str, preserve: bool) {
    let opt = if optimized {
        "optimized=1"
    } else {
        "optimized=0"
    };
    let motion = format!("motion={motion}");
    let preserve = if preserve { "preserve=1" } else { "preserve=0" };
    let stdout = run_script(
        "tests/corpus/check_fd.py",
        &[opt, mode, "-", &motion, preserve],
    );
    let checked = stdout.lines().filter(|l| l.starts_with("ok")).count();
    assert!(checked >= 40, "only {checked} cases ran:\n{stdout}");
    assert!(stdout.contains("0 failures"), "{stdout}");
}

#[test]
fn reverse_mode_over_motion_optimized_and_preserve_result() {
    for motion in ["joint", "split"] {
        for optimized in [true, false] {
            for preserve in [false, true] {
                run_corpus(optimized, "reverse", motion, preserve);
            }
        }
    }
}

#[test]
fn tape_liveness_gives_the_same_gradients() {
    for motion in ["motion=joint", "motion=split"] {
        let stdout = run_script(
            "tests/corpus/check_fd.py",
            &[
                "optimized=1",
                "reverse",
                "-",
                motion,
                "preserve=0",
                "liveness=1",
            ],
        );
        assert!(stdout.contains("0 failures"), "{stdout}");
    }
}

/// CSE, algebraic simplification (e-graphs) and coarsening change no gradient: every
/// corpus case against finite differences and against the default pipeline (1e-12
/// relative). (Coarsening is a reverse-mode pass; forward mode ignores it.)
#[test]
fn egraph_passes_give_the_same_gradients() {
    for passes in [
        &["cse=1"][..],
        &["algebraic=1"],
        &["cse=1", "algebraic=1"],
        &["coarsening=1"],
    ] {
        for motion in ["motion=joint", "motion=split"] {
            let mut args = vec!["optimized=1", "reverse", "-", motion, "preserve=0"];
            args.extend_from_slice(passes);
            let stdout = run_script("tests/corpus/check_fd.py", &args);
            assert!(
                stdout.contains("0 failures"),
                "{passes:?} {motion}: {stdout}"
            );
        }
        let mut args = vec!["optimized=1", "forward", "-", "motion=joint", "preserve=0"];
        args.extend_from_slice(passes);
        let stdout = run_script("tests/corpus/check_fd.py", &args);
        assert!(
            stdout.contains("0 failures"),
            "{passes:?} forward: {stdout}"
        );
    }
}

/// compile='native': every corpus case against finite differences and against the
/// interpreted adjoint (1e-12 relative), in both modes; most scalar cases must actually
/// run as native code.
#[test]
fn native_compilation_matches_the_interpreted_adjoint() {
    for (mode, optimized, preserve, at_least) in [
        ("reverse", "optimized=1", "preserve=0", 30),
        ("reverse", "optimized=0", "preserve=0", 30),
        ("reverse", "optimized=1", "preserve=1", 30),
        ("forward", "optimized=1", "preserve=0", 30),
    ] {
        let stdout = run_script(
            "tests/corpus/check_fd.py",
            &[
                optimized,
                mode,
                "-",
                "motion=joint",
                preserve,
                "compile=native",
            ],
        );
        assert!(
            stdout.contains("0 failures"),
            "{mode} {optimized} {preserve}: {stdout}"
        );
        let native: usize = stdout
            .lines()
            .find_map(|l| l.strip_suffix(" ran natively"))
            .and_then(|n| n.trim().parse().ok())
            .unwrap_or(0);
        assert!(native >= at_least, "only {native} ran natively: {stdout}");
    }
}

#[test]
fn checkpointing_gives_the_same_gradients() {
    for motion in ["motion=joint", "motion=split"] {
        for opt in ["optimized=1", "optimized=0"] {
            let stdout = run_script(
                "tests/corpus/check_fd.py",
                &[
                    opt,
                    "reverse",
                    "-",
                    motion,
                    "preserve=0",
                    "liveness=0",
                    "checkpoint=1",
                ],
            );
            assert!(stdout.contains("0 failures"), "{stdout}");
        }
    }
}

/// sqrt(n) checkpointing: the tape holds O(sqrt(n)) entries, the gradient is identical.
#[test]
fn checkpointing_keeps_the_tape_at_sqrt_n() {
    let field = |out: &str, key: &str| -> String {
        out.split_whitespace()
            .find_map(|t| t.strip_prefix(key))
            .unwrap_or_default()
            .to_owned()
    };
    let entries = |out: &str| {
        field(out, "tape_peak_entries=")
            .parse::<f64>()
            .unwrap_or(f64::NAN)
    };
    for kind in ["for", "while"] {
        let off = run_script("benches/checkpoint_memory.py", &["10000", "off", kind]);
        let on = run_script("benches/checkpoint_memory.py", &["10000", "on", kind]);
        assert_eq!(field(&off, "grad="), field(&on, "grad="), "{off}\n{on}");
        // Without it, a few entries per iteration (`x * 0.1` is invariant: never pushed).
        assert!(entries(&off) >= 20_000.0, "{off}");
        // A few entries per iteration of one segment (100 iterations for `for`, at most
        // sqrt(2n) ~ 141 for `while`), plus the segment bookkeeping.
        assert!(entries(&on) <= 10.0 * 142.0, "{on}");
    }
}

/// Tape liveness on its issue's workload: the gradient call's peak memory drops by at
/// least 90% (measured per process by benches/tape_liveness_memory.py), same gradient.
#[test]
fn tape_liveness_cuts_peak_memory_by_ninety_percent() {
    let field = |out: &str, key: &str| -> String {
        out.split_whitespace()
            .find_map(|t| t.strip_prefix(key))
            .unwrap_or_default()
            .to_owned()
    };
    let off = run_script("benches/tape_liveness_memory.py", &["off"]);
    let on = run_script("benches/tape_liveness_memory.py", &["on"]);
    assert_eq!(
        field(&off, "checksum="),
        field(&on, "checksum="),
        "{off}\n{on}"
    );
    let kb = |out: &str| field(out, "peak_kB=").parse::<f64>().unwrap_or(f64::NAN);
    // 50 iterations keep at least 50 arrays of 160 kB without the pass.
    assert!(kb(&off) >= 8_000.0, "{off}");
    assert!(kb(&on) <= 0.1 * kb(&off), "{off}\n{on}");
}

#[test]
fn forward_mode_over_optimized_and_preserve_result() {
    for optimized in [true, false] {
        for preserve in [false, true] {
            run_corpus(optimized, "forward", "joint", preserve);
        }
    }
}

fn run_second_order(optimized: bool) {
    let opt = if optimized {
        "optimized=1"
    } else {
        "optimized=0"
    };
    let stdout = run_script("tests/corpus/check_second_order.py", &[opt]);
    let checked = stdout.lines().filter(|l| l.starts_with("ok")).count();
    assert!(
        checked >= 200,
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
