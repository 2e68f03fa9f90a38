//! The CPython host: `tangent run` in CPython through the bridge, `import tangent` in a
//! CPython of one's own, and the same Python API on both hosts (the same scripts give the
//! same output). Needs the test CPython with NumPy (tests/common/cpython.rs).

use crate::common;
use crate::common::cpython;
use std::process::Command;

fn tangent() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_tangent"));
    c.current_dir(env!("CARGO_MANIFEST_DIR")).env(
        "TANGENT_CACHE_DIR",
        concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache-bridge"),
    );
    c
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The NumPy op catalog (and the SciPy entries) on real NumPy and SciPy.
#[test]
fn numpy_catalog_passes_on_real_numpy() {
    let Some(py) = cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tangent-catalog-cpython-{}", std::process::id()));
    let out = cpython::run_ok(
        &py,
        "tests/catalog/check_catalog.py",
        // With the float32 pass: float32 inputs give float32 gradients (no known failures).
        &[&dir.to_string_lossy(), "float32"],
    );
    assert!(out.contains(" 0 failures"), "{out}");
}

/// Second order of the catalog on real NumPy and SciPy (a test of its own: it is the
/// longest, and runs beside the others).
#[test]
fn numpy_catalog_second_order_passes_on_real_numpy() {
    let Some(py) = cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tangent-catalog2-cpython-{}", std::process::id()));
    let out = cpython::run_ok(
        &py,
        "tests/catalog/check_second_order.py",
        &[&dir.to_string_lossy(), "every_arg"],
    );
    assert!(out.contains(" 0 failures"), "{out}");
}

/// The nondifferentiable declarations against real NumPy.
#[test]
fn numpy_nondifferentiable_declarations_hold_on_real_numpy() {
    let Some(py) = cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    let out = cpython::run_ok(&py, "tests/catalog/check_nondifferentiable.py", &[]);
    assert!(out.contains(" 0 failures"), "{out}");
}

#[test]
fn corpus_passes_in_cpython() {
    let Some(py) = cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    for args in [
        &["optimized=1", "reverse", "-", "motion=joint", "preserve=0"][..],
        &["optimized=0", "reverse", "-", "motion=split", "preserve=1"],
        &["optimized=1", "forward"],
        &[
            "optimized=1",
            "reverse",
            "-",
            "motion=joint",
            "preserve=0",
            "compile=native",
        ],
        &[
            "optimized=1",
            "reverse",
            "-",
            "motion=joint",
            "preserve=0",
            "cse=1",
            "algebraic=1",
        ],
    ] {
        let out = cpython::run_ok(&py, "tests/corpus/check_fd.py", args);
        assert!(out.contains("\n0 failures"), "{args:?}: {out}");
        if args.contains(&"compile=native") {
            // Scalar adjoints run as machine code in CPython too.
            let native: usize = out
                .lines()
                .find_map(|l| l.strip_suffix(" ran natively")?.parse().ok())
                .unwrap_or(0);
            assert!(native >= 30, "{out}");
        }
    }
    let out = cpython::run_ok(&py, "tests/corpus/check_second_order.py", &[]);
    assert!(out.contains(" 0 failures"), "{out}");
}

/// Scripts of the CLI tests give byte-identical stdout in both hosts.
#[test]
fn same_scripts_same_output_on_both_hosts() {
    let Some(py) = cpython::python(&["numpy"]) else {
        return;
    };
    for script in [
        "user_rules",
        "grad_errors",
        "outputs",
        "forward_errors",
        "numeric_edge",
        "native_edges",
        "native_arrays",
        "index_gradients",
        "tape_recompute",
        "tape_liveness",
        "nested_function",
        "closures",
        "classes",
        "source_anywhere",
        "live_names",
        "custom_derivatives",
        "everyday_python",
        "threads",
        "float32_scalars",
    ] {
        let path = format!("tests/scripts/{script}.py");
        let embedded = tangent()
            .args(["run", "--embedded", &path])
            .output()
            .unwrap();
        let cpython = cpython::run(&py, &path, &[]);
        assert!(embedded.status.success(), "{}", text(&embedded.stderr));
        assert!(cpython.status.success(), "{}", text(&cpython.stderr));
        assert_eq!(text(&embedded.stdout), text(&cpython.stdout), "{script}");
        assert_eq!(text(&embedded.stderr), text(&cpython.stderr), "{script}");
    }
    // Uncaught errors: the same frames (tangent's own left out), exit status 1.
    for script in ["raises", "uncaught_tangent_error"] {
        let path = format!("tests/scripts/{script}.py");
        let embedded = tangent()
            .args(["run", "--embedded", &path])
            .output()
            .unwrap();
        let cpython = cpython::run(&py, &path, &[]);
        assert_eq!(embedded.status.code(), Some(1));
        assert_eq!(cpython.status.code(), Some(1));
        let frames = |o: &std::process::Output| -> Vec<String> {
            text(&o.stderr)
                .lines()
                .filter(|l| l.starts_with("  File"))
                .map(str::to_owned)
                .collect()
        };
        assert_eq!(frames(&embedded), frames(&cpython), "{script}");
        assert!(!frames(&cpython).is_empty());
        assert!(
            !text(&cpython.stderr).contains("<tangent"),
            "{}",
            text(&cpython.stderr)
        );
    }
}

#[test]
fn scripts_importing_a_framework_run_in_cpython_with_argv_and_exit_status() {
    let Some(py) = cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    let (_dir, script) = script_in(
        "route",
        "uses_scipy.py",
        "import sys, math\nimport scipy.special\nimport tangent\n\
         def f(x):\n    return math.sin(x) * x\n\
         print(sys.implementation.name, sys.argv[1:], __name__)\n\
         print(repr(tangent.grad(f)(0.5)), repr(math.cos(0.5) * 0.5 + math.sin(0.5)))\n\
         sys.exit(7)\n",
    );
    // No --python: the import of scipy sends the script to TANGENT_PYTHON's CPython.
    let out = tangent()
        .env("TANGENT_PYTHON", &py)
        .arg("run")
        .arg(&script)
        .args(["a", "--b"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("cpython ['a', '--b'] __main__"));
    let values: Vec<&str> = lines.next().unwrap().split(' ').collect();
    assert_eq!(values[0], values[1], "analytic derivative");
}

#[test]
fn a_failing_framework_import_shows_the_traceback() {
    let Some(py) = cpython::python(&[]) else {
        return;
    };
    let (dir, script) = script_in(
        "import",
        "needs_tinygrad.py",
        "import math\nimport tinygrad_is_not_installed_here\n",
    );
    std::fs::write(dir.join("fw.py"), "import torch.nn as nn\n").unwrap();
    let out = cpython::run(&py, &script.to_string_lossy(), &[]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(
        err.starts_with("Traceback (most recent call last):"),
        "{err}"
    );
    assert!(err.contains("line 2, in <module>"), "{err}");
    assert!(
        err.contains("ModuleNotFoundError: No module named 'tinygrad_is_not_installed_here'"),
        "{err}"
    );
    // A framework the interpreter lacks: the traceback, then what to do.
    if Command::new(&py)
        .args(["-c", "import torch"])
        .output()
        .is_ok_and(|o| !o.status.success())
    {
        let out = cpython::run(&py, &dir.join("fw.py").to_string_lossy(), &[]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1));
        assert!(
            err.contains("ModuleNotFoundError: No module named 'torch'"),
            "{err}"
        );
        assert!(err.contains("because it imports torch"), "{err}");
        assert!(err.contains("-m pip install torch"), "{err}");
    }
}

#[test]
fn no_libpython_is_an_error_naming_what_was_tried() {
    let (dir, script) = script_in("nolib", "s.py", "import jax\n");
    // An interpreter path that does not exist.
    let out = tangent()
        .args(["run", "--python", "/nonexistent/python3"])
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert!(
        err.contains("`/nonexistent/python3` (from --python) is not an executable file"),
        "{err}"
    );
    assert!(err.contains("TANGENT_PYTHON"), "{err}");
    // A Python built without a shared library (a stand-in answering the sysconfig query).
    let fake = dir.join("python3");
    std::fs::write(&fake, "#!/bin/sh\necho /opt/static/bin/python3\necho\necho 3.11.9\necho /opt/static/lib/python3.11\n").unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = tangent()
        .env("TANGENT_PYTHON", &fake)
        .env("TANGENT_DISK_CACHE", "0")
        .arg("run")
        .arg(&script)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let err = text(&out.stderr);
    assert!(
        err.contains("needs CPython (it imports jax, which only CPython has)"),
        "{err}"
    );
    assert!(
        err.contains("(Python 3.11.9, from TANGENT_PYTHON) was built without --enable-shared"),
        "{err}"
    );
    assert!(err.contains("--python"), "{err}");
}

/// The documented install: `tangent bridge install --python VENV/bin/python`, then a
/// plain CPython imports tangent.
#[test]
fn bridge_install_makes_import_tangent_work_in_a_venv() {
    let Some(py) = cpython::python(&[]) else {
        return;
    };
    let dir = tempdir("venv");
    let venv = dir.join("venv");
    let made = Command::new(&py)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", text(&made.stderr));
    let vpy = venv.join("bin/python");
    let out = tangent()
        .args(["bridge", "install", "--python"])
        .arg(&vpy)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("tangent.abi3.so"));
    let check = "import math, tangent\n\
                 def f(x, n):\n    y = 0.0\n    for i in range(n):\n        y = y + math.sin(x * i)\n    return y\n\
                 df = tangent.grad(f)\n\
                 exact = sum(i * math.cos(0.3 * i) for i in range(5))\n\
                 assert abs(df(0.3, 5) - exact) < 1e-12, (df(0.3, 5), exact)\n\
                 assert 'def dfdx' in df.__tangent_source__\n\
                 assert type(df).__name__ == 'NativeFunction', type(df)\n\
                 assert tangent.grad(f, compile='python')(0.3, 5) == df.__wrapped__(0.3, 5)\n\
                 print(tangent.backend_status()['math'], tangent.__version__)\n";
    std::fs::write(dir.join("check.py"), check).unwrap();
    let out = Command::new(&vpy)
        .arg("check.py")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        format!("available {}", env!("CARGO_PKG_VERSION"))
    );
}

/// The embedded interpreter's float arithmetic is CPython's: `%`, `//`, `divmod`, `**`,
/// `pow`, their dunder and `operator` forms, the in-place forms, `math.fmod` and `round`
/// over edge values (tests/scripts/float_edges.py, tens of thousands of lines), byte for
/// byte against the test CPython running the same script.
#[test]
fn embedded_float_arithmetic_matches_cpython() {
    let Some(py) = cpython::python(&[]) else {
        return;
    };
    let script = "tests/scripts/float_edges.py";
    let embedded = tangent()
        .args(["run", "--embedded", script])
        .output()
        .unwrap();
    assert!(embedded.status.success(), "{}", text(&embedded.stderr));
    let cpython = Command::new(&py)
        .arg(script)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(cpython.status.success(), "{}", text(&cpython.stderr));
    let (ours, theirs) = (text(&embedded.stdout), text(&cpython.stdout));
    assert!(theirs.lines().count() > 5000, "{theirs}");
    let differing: Vec<String> = ours
        .lines()
        .zip(theirs.lines())
        .filter(|(a, b)| a != b)
        .map(|(a, b)| format!("embedded {a}\n CPython {b}"))
        .collect();
    assert!(
        differing.is_empty(),
        "{} lines differ, the first:\n{}",
        differing.len(),
        differing[..differing.len().min(40)].join("\n")
    );
    assert_eq!(ours, theirs);
}

/// The embedded host's SciPy subset against the real SciPy: every value of
/// tests/scripts/scipy_values.py (ordinary points, poles, infinities) to 1e-13 relative,
/// and the gradients there against central differences on both hosts.
#[test]
fn embedded_scipy_subset_matches_scipy() {
    let Some(py) = cpython::python(&["numpy", "scipy"]) else {
        return;
    };
    let script = "tests/scripts/scipy_values.py";
    let embedded = tangent()
        .args(["run", "--embedded", script])
        .output()
        .unwrap();
    assert!(embedded.status.success(), "{}", text(&embedded.stderr));
    let real = cpython::run_ok(&py, script, &[]);
    let ours = text(&embedded.stdout);
    let numbers = |line: &str| -> Vec<f64> {
        line.split([' ', '[', ']', ',', '\'', '(', ')'])
            .filter_map(|w| match w {
                "inf" => Some(f64::INFINITY),
                "-inf" => Some(f64::NEG_INFINITY),
                "nan" => Some(f64::NAN),
                w => w.parse().ok(),
            })
            .collect()
    };
    assert_eq!(ours.lines().count(), real.lines().count(), "{ours}\n{real}");
    for (a, b) in ours.lines().zip(real.lines()) {
        let (na, nb) = (numbers(a), numbers(b));
        assert_eq!(na.len(), nb.len(), "{a} | {b}");
        for (x, y) in na.iter().zip(&nb) {
            let same = x == y
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= 1e-13 * y.abs().max(f64::MIN_POSITIVE);
            assert!(same, "embedded {a} | SciPy {b}");
        }
        if a.starts_with("grad") || a.starts_with("jvp") {
            assert!(a.ends_with(" ok") && b.ends_with(" ok"), "{a} | {b}");
        }
    }
    assert_eq!(ours.lines().filter(|l| l.ends_with(" ok")).count(), 6);
}

/// A script whose only framework is SciPy runs embedded when no CPython is usable.
#[test]
fn scipy_scripts_fall_back_to_the_embedded_subset() {
    let out = tangent()
        .env("TANGENT_PYTHON", "/nonexistent/python3")
        .args(["run", "tests/scripts/scipy_values.py"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("grad loss ok"));
    // jax has no embedded stand-in: the same situation is an error there.
    let dir = tempdir("fallback");
    std::fs::write(dir.join("j.py"), "import jax\n").unwrap();
    let out = tangent()
        .env("TANGENT_PYTHON", "/nonexistent/python3")
        .arg("run")
        .arg(dir.join("j.py"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4), "{}", text(&out.stderr));
}

/// `tangent.backend_status()`: available / not installed / broken with the reason, the
/// same on both hosts for the same situation.
#[test]
fn backend_status_reports_available_missing_and_broken_backends() {
    let Some(py) = cpython::python(&["numpy", "scipy", "jax"]) else {
        return;
    };
    let dir = tempdir("status");
    // Stand-ins next to the script: one raises on import, one lacks a dependency.
    std::fs::create_dir_all(dir.join("tinygrad")).unwrap();
    std::fs::write(
        dir.join("tinygrad/__init__.py"),
        "raise RuntimeError('boom')\n",
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("keras")).unwrap();
    std::fs::write(
        dir.join("keras/__init__.py"),
        "import a_missing_dependency\n",
    )
    .unwrap();
    let script = dir.join("status.py");
    std::fs::write(
        &script,
        "import tangent\nfor k, v in sorted(tangent.backend_status().items()):\n    print(k, '=', v)\n",
    )
    .unwrap();
    let embedded = tangent()
        .args(["run", "--embedded"])
        .arg(&script)
        .output()
        .unwrap();
    let cpython = cpython::run_ok(&py, &script.to_string_lossy(), &[]);
    let embedded = text(&embedded.stdout);
    for (host, out, jax) in [
        ("embedded", &embedded, "not installed"),
        ("CPython", &cpython, "available"),
    ] {
        for line in [
            "keras = broken: ModuleNotFoundError: No module named 'a_missing_dependency'",
            "tinygrad = broken: RuntimeError: boom",
            "math = available",
            "numpy = available",
            "scipy = available",
            &format!("jax = {jax}"),
        ] {
            assert!(
                out.lines().any(|l| l == line),
                "{host}: no `{line}` in\n{out}"
            );
        }
    }
}

/// The shims' bytecode is cached in the cache dir (import tangent: ~30 ms -> ~3 ms); a
/// damaged file is recompiled, never executed, and TANGENT_DISK_CACHE=0 writes none.
#[test]
fn shim_bytecode_cache_is_checked_and_optional() {
    let Some(py) = cpython::python(&[]) else {
        return;
    };
    let dir = tempdir("pyc");
    let cache = dir.join("cache");
    let script = dir.join("s.py");
    std::fs::write(
        &script,
        "import math, tangent\ndef f(x):\n    return math.sin(x)\nprint(tangent.grad(f)(0.0))\n",
    )
    .unwrap();
    let run = |disk: &str| {
        let out = tangent()
            .env("TANGENT_CACHE_DIR", &cache)
            .env("TANGENT_DISK_CACHE", disk)
            .arg("run")
            .arg("--python")
            .arg(&py)
            .arg(&script)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "1.0\n");
    };
    run("0");
    assert!(
        common::bytecode::files(&cache).is_empty(),
        "bytecode written with the disk cache off"
    );
    run("1");
    let files = common::bytecode::files(&cache);
    assert_eq!(files.len(), tangent::host::SHIMS.len());
    // Damaged: a flipped byte in the body, and a truncated file.
    common::bytecode::damage(&files);
    run("1");
    common::bytecode::assert_intact(&files);
}

/// The CPython-side examples run and check themselves (jax.grad; the analytic gradient).
#[test]
fn jax_and_scipy_examples_run() {
    let Some(py) = cpython::python(&["numpy", "scipy", "jax"]) else {
        return;
    };
    let out = cpython::run_ok(&py, "examples/jax_mlp.py", &[]);
    assert!(
        out.contains("matches jax.grad: True\ncompile='jax' matches: True\n"),
        "{out}"
    );
    assert!(
        out.contains("def dlossdw1w2(w1, w2, x, labels, bresult=1.0):"),
        "{out}"
    );
    let out = cpython::run_ok(&py, "examples/scipy_special.py", &[]);
    assert!(out.contains("matches the analytic gradient: True"), "{out}");
    let embedded = tangent()
        .args(["run", "--embedded", "examples/scipy_special.py"])
        .output()
        .unwrap();
    assert_eq!(text(&embedded.stdout), out, "{}", text(&embedded.stderr));
}

/// The disk cache's key covers the transformer that wrote an entry: in CPython that is
/// the bridge library (not python, the running executable), so a rebuilt bridge never
/// reads what an older one wrote.
#[test]
fn a_rebuilt_bridge_does_not_read_the_old_bridges_cache_entries() {
    let Some(py) = cpython::python(&[]) else {
        return;
    };
    let (dir, script) = script_in("fingerprint", "s.py", "import math, tangent\ndef f(x):\n    return math.sin(x) * x\ntangent.grad(f)(0.5)\nprint(tangent.stats['disk_hits'])\n");
    // A copy of the bridge stands for a rebuilt one (another file, a new mtime).
    let rebuilt = dir.join("libtangent_bridge.so");
    std::fs::copy(cpython::bridge(), &rebuilt).unwrap();
    let hits = |bridge: &std::path::Path| -> String {
        let out = tangent()
            .env("TANGENT_CACHE_DIR", dir.join("cache"))
            .env("TANGENT_BRIDGE", bridge)
            .args(["run", "--python"])
            .arg(&py)
            .arg(&script)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out.stderr));
        text(&out.stdout).trim().to_owned()
    };
    assert_eq!(
        hits(&cpython::bridge()),
        "0",
        "first run: generated and stored"
    );
    assert_eq!(
        hits(&cpython::bridge()),
        "1",
        "same bridge: served from the disk cache"
    );
    assert_eq!(
        hits(&rebuilt),
        "0",
        "another bridge: not served the old entry"
    );
}

/// Functions defined in the cells of a real IPython `InteractiveShell`: read from
/// `linecache`, an edited cell re-run differentiates its new text.
#[test]
fn functions_of_ipython_cells_are_differentiated() {
    let Some(py) = cpython::python(&["IPython"]) else {
        return;
    };
    let out = cpython::run(&py, "tests/scripts/ipython_cells.py", &[]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    for check in [
        "cell: True",
        "edited cell: True",
        "lambda in a cell: True",
        "closure in a cell: True",
        "forward in a cell: True",
        "second order in a cell: True",
    ] {
        assert!(so.contains(check), "{check}\n{so}");
    }
}

/// A fresh directory for a test and a script written into it.
fn script_in(tag: &str, name: &str, source: &str) -> (TempDir, std::path::PathBuf) {
    let dir = tempdir(tag);
    let script = dir.join(name);
    std::fs::write(&script, source).unwrap();
    (dir, script)
}

/// A test's scratch directory, removed when the test ends (some hold a venv or a copy
/// of the bridge: hundreds of MB a run otherwise left behind).
struct TempDir(std::path::PathBuf);

impl std::ops::Deref for TempDir {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for TempDir {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir(tag: &str) -> TempDir {
    let d = std::env::temp_dir().join(format!("tangent-bridge-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    TempDir(d)
}
