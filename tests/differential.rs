//! Differential testing: random functions in the supported subset
//! (tests/differential/generate.py), each derivative variant against finite differences
//! (tests/differential/run.py). A fixed seed and a budget here; the longer run for
//! developers is in README.md (Tests).

use crate::common::cpython;
use std::process::{Command, Output};

/// Seed and number of functions of the CI run (about 20 s in a debug build on an idle
/// machine, a minute on a busy one).
const SEED: &str = "2026";
const COUNT: usize = 30;

/// Generator features left out of the CI run. The classes of issue 13 (self-assignment,
/// a store indexed by the array it writes, `%`/copysign/full/linspace, in-place updates
/// through a second name, `for v in xs` rebinding xs, live defaults, `alias_rebound`)
/// are all in: each is exact or a located refusal now. `lambda_nested` (a lambda
/// assigned and called inside an if or a loop) is refused with a located error until
/// lambdas are supported there; left out so that the run checks more derivatives.
const KNOWN_BROKEN: &[&str] = &["lambda_nested"];

/// Also left out in CPython with real NumPy: nothing now (builtin `abs` of a NumPy scalar
/// raised TypeError in `tangent.sign` before).
const KNOWN_BROKEN_IN_CPYTHON: &[&str] = &[];

/// `tangent run [--python P] tests/differential/run.py ...`: the output and its stdout.
fn run_in(python: Option<&std::path::Path>, extra: &[&str]) -> (Output, String) {
    let keep = if python.is_some() {
        concat!(env!("CARGO_TARGET_TMPDIR"), "/differential-cpython")
    } else {
        concat!(env!("CARGO_TARGET_TMPDIR"), "/differential")
    };
    let mut excluded = KNOWN_BROKEN.to_vec();
    if python.is_some() {
        excluded.extend_from_slice(KNOWN_BROKEN_IN_CPYTHON);
    }
    let exclude = excluded.join(",");
    let count = COUNT.to_string();
    let mut args = vec![
        "run",
        "tests/differential/run.py",
        "--seed",
        SEED,
        "--keep",
        keep,
    ];
    if !exclude.is_empty() {
        args.extend(["--exclude", &exclude]);
    }
    if !extra.contains(&"--count") {
        args.extend(["--count", &count]);
    }
    args.extend_from_slice(extra);
    let out = match python {
        Some(python) => cpython::run(python, args[1], &args[2..]),
        None => Command::new(env!("CARGO_BIN_EXE_tangent"))
            .env(
                "TANGENT_CACHE_DIR",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache"),
            )
            .args(&args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("run tangent"),
    };
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    (out, stdout)
}

fn run(extra: &[&str]) -> (Output, String) {
    run_in(None, extra)
}

/// The run's summary says every derivative matched, most cases were checked and most
/// derivatives were built (not refused), native code included.
fn assert_clean(out: &Output, stdout: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && summary(stdout, "failed") == 0,
        "differential run failed:\n{stdout}\n{stderr}"
    );
    let checked = summary(stdout, "checked");
    assert!(
        checked * 10 >= COUNT * 8,
        "only {checked} of {COUNT} checked:\n{stdout}"
    );
    let variants = summary(stdout, "variants");
    let ok = summary(stdout, "ok");
    assert!(variants >= 16, "{stdout}");
    assert!(
        ok * 4 >= checked * variants * 3,
        "only {ok} of {} derivatives ran:\n{stdout}",
        checked * variants
    );
    assert!(
        summary(stdout, "native") >= 10,
        "native code never ran:\n{stdout}"
    );
}

/// The `key=value` fields of run.py's last line.
fn summary(stdout: &str, key: &str) -> usize {
    stdout
        .lines()
        .rev()
        .find(|l| l.starts_with("summary:"))
        .and_then(|l| {
            l.split_whitespace()
                .find_map(|t| t.strip_prefix(&format!("{key}=")))
        })
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no {key}= in the summary:\n{stdout}"))
}

#[test]
fn random_functions_match_finite_differences_in_every_variant() {
    let (out, stdout) = run(&["--variants", "all"]);
    assert_clean(&out, &stdout);
}

/// The same functions in CPython with real NumPy (skipped without the test CPython).
#[test]
fn random_functions_match_finite_differences_in_cpython() {
    let Some(python) = cpython::python(&["numpy"]) else {
        return;
    };
    let (out, stdout) = run_in(Some(&python), &["--variants", "all"]);
    assert_clean(&out, &stdout);
}

/// The oracle can fail: with a wrong rule for math.sin registered, the same kind of run
/// reports failures and exits 1.
#[test]
fn a_wrong_rule_is_reported() {
    let (out, stdout) = run(&["--variants", "quick", "--count", "12", "--rule-check"]);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(summary(&stdout, "failed") > 0, "{stdout}");
    assert!(stdout.contains("FAIL "), "{stdout}");
}
