//! The CPython the bridge tests run in, and running scripts there through `tangent run`.
//!
//! The interpreter is `$TANGENT_TEST_PYTHON`, else the venv CI builds
//! (`.ci/python-env`: ~/.cache/tangent-venv). When it, a module a test needs, or the bridge
//! library is missing, the test is skipped with a message, except under `CI=true`,
//! where that is a failure.

#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn skip_or_fail(why: String) -> Option<PathBuf> {
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{why} (CI=true: a missing framework is a failure)");
    }
    eprintln!("skipped: {why}");
    None
}

/// The bridge library `tangent run` loads (next to the tangent executable).
pub fn bridge() -> PathBuf {
    Path::new(env!("CARGO_BIN_EXE_tangent")).with_file_name(if cfg!(target_os = "macos") {
        "libtangent_bridge.dylib"
    } else {
        "libtangent_bridge.so"
    })
}

/// The test interpreter, if every module of `needs` is installed there and the bridge is
/// built; None (test skipped) otherwise.
pub fn python(needs: &[&str]) -> Option<PathBuf> {
    let python = std::env::var_os("TANGENT_TEST_PYTHON")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .map(|h| PathBuf::from(h).join(".cache/tangent-venv/bin/python"))
        })?;
    if !python.is_file() {
        return skip_or_fail(format!(
            "no test CPython at {} (create it with .ci/python-env or set TANGENT_TEST_PYTHON)",
            python.display()
        ));
    }
    if !bridge().is_file() {
        return skip_or_fail(format!(
            "the bridge library {} is not built (cargo build -p tangent-bridge)",
            bridge().display()
        ));
    }
    if !needs.is_empty() {
        // Found, not imported: importing tensorflow or torch to ask takes seconds, once
        // per test (the test itself then imports it, and fails if it cannot).
        let check = format!(
            "import importlib.util, sys; sys.exit(any(importlib.util.find_spec(m) is None for m in {needs:?}))"
        );
        let ok = Command::new(&python)
            .args(["-c", &check])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            return skip_or_fail(format!("{} has no {}", python.display(), needs.join(", ")));
        }
    }
    Some(python)
}

/// `tangent run --python PYTHON SCRIPT ARGS...` from the repository root, with a
/// per-test-run disk cache.
pub fn run(python: &Path, script: &str, args: &[&str]) -> Output {
    run_with(python, script, args, &[])
}

/// `run` with extra environment variables (`KERAS_BACKEND`).
pub fn run_with(python: &Path, script: &str, args: &[&str], vars: &[(&str, &str)]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tangent"))
        .env(
            "TANGENT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache-cpython"),
        )
        .envs(vars.iter().copied())
        .arg("run")
        .arg("--python")
        .arg(python)
        .arg(script)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent")
}

/// `run`, asserting success; the script's stdout.
pub fn run_ok(python: &Path, script: &str, args: &[&str]) -> String {
    run_ok_with(python, script, args, &[])
}

/// `run_with`, asserting success; the script's stdout.
pub fn run_ok_with(python: &Path, script: &str, args: &[&str], vars: &[(&str, &str)]) -> String {
    let out = run_with(python, script, args, vars);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{script} {args:?} failed in CPython:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Every one of `lines` is a whole line of `out` (a script's stdout).
pub fn assert_lines(out: &str, lines: &[&str]) {
    for line in lines {
        assert!(
            out.lines().any(|l| l == *line),
            "missing `{line}` in:\n{out}"
        );
    }
}
