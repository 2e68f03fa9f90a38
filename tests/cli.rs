//! The command line: exit codes, tracebacks, diagnostics, arguments.

use std::process::{Command, Output};

fn tangent(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tangent"))
        .env(
            "TANGENT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache"),
        )
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn python_error_prints_traceback_and_exits_1() {
    let out = tangent(&["run", "tests/scripts/raises.py"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("Traceback (most recent call last):"), "{err}");
    assert!(err.contains("raises.py\", line 9, in main"), "{err}");
    assert!(err.contains("raises.py\", line 5, in helper"), "{err}");
    assert!(err.contains("ZeroDivisionError"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn syntax_error_in_script() {
    let out = tangent(&["run", "tests/scripts/bad_syntax.py"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("SyntaxError"), "{err}");
    assert!(err.contains("bad_syntax.py"), "{err}");
}

#[test]
fn grad_errors_inside_a_script() {
    let out = tangent(&["run", "tests/scripts/grad_errors.py", "alpha", "beta"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    // A run-time check reads like a transformer diagnostic: the user's call site, the
    // line with a caret under it, and a hint.
    assert!(
        so.contains(
            "check_dims: tests/scripts/grad_errors.py:18:5: grad: `vector_out` returned an array of shape (2,), not a scalar\n   |\n18 |     df(np.array([1.0, 2.0]))\n   |     ^^^^^^^^^^^^^^^^^^^^^^^^\nhint: pass a seed of that shape as the last argument, or use tangent.vjp"
        ),
        "{so}"
    );
    assert!(so.contains("seeded: [2.0, 6.0]"), "{so}");
    assert!(
        so.contains("arity: ") && so.contains("positional argument"),
        "{so}"
    );
    assert!(
        so.contains("fence: ")
            && so.contains(
                "grad_errors.py:11:10: a `with` block over `open('nothing')` cannot be differentiated"
            ),
        "{so}"
    );
    assert!(so.contains("argv: ['alpha', 'beta']"), "{so}");
    assert!(
        so.contains("def dvector_outdx(x, bresult=1.0):"),
        "verbose=1 prints the source:\n{so}"
    );
    assert!(
        so.contains("source attr: def dvector_outdx(x, bresult=1.0):"),
        "{so}"
    );
}

#[test]
fn grad_subcommand_prints_source() {
    let out = tangent(&["grad", "tests/corpus/reverse.py:poly"]);
    assert!(out.status.success());
    let so = text(&out.stdout);
    assert!(so.starts_with("def dpolydx(x, bresult=1.0):"), "{so}");
    assert!(so.contains("# Grad of: a = x * x"), "{so}");
}

#[test]
fn grad_subcommand_diagnostic_exit_3() {
    let out = tangent(&["grad", "tests/scripts/grad_errors.py:uses_with"]);
    assert_eq!(out.status.code(), Some(3));
    let err = text(&out.stderr);
    assert!(
        err.starts_with(
            "tests/scripts/grad_errors.py:11:10: a `with` block over `open('nothing')` cannot be differentiated"
        ),
        "{err}"
    );
    assert!(err.contains("hint: "), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(tangent(&[]).status.code(), Some(2));
    assert_eq!(tangent(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(tangent(&["grad", "nofunc"]).status.code(), Some(2));
    assert_eq!(
        tangent(&["run", "does/not/exist.py"]).status.code(),
        Some(2)
    );
    let help = tangent(&["--help"]);
    assert!(help.status.success());
    assert!(text(&help.stdout).contains("EXIT CODES"));
}

#[test]
fn system_exit_code_is_passed_through() {
    let dir = std::env::temp_dir().join(format!("tangent-exit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let script = dir.join("exit.py");
    std::fs::write(&script, "import sys\nprint('bye')\nsys.exit(4)\n").unwrap();
    let out = tangent(&["run", script.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(4));
    assert_eq!(text(&out.stdout), "bye\n");
}

#[test]
fn quickstart_example_runs() {
    let out = tangent(&["run", "examples/quickstart.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    // d/dx (x^2 + x^3) at 2 = 2*2 + 3*4
    assert!(so.contains("df/dx at 2.0 = 16.0"), "{so}");
    assert!(so.contains("def dfdx(x, bresult=1.0):"), "{so}");
    assert!(so.contains("d loss / dw ="), "{so}");
}

#[test]
fn user_registered_rules_are_used() {
    let out = tangent(&["run", "tests/scripts/user_rules.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(
        so.contains("before: tests/scripts/user_rules.py:7:12: no derivative rule for `math.exp2`"),
        "{so}"
    );
    assert!(so.contains("template shown: True"), "{so}");
    // d/dx 2 * 2**x = 2 ln2 2**x (at 0.1, 0.2, 0.3; forward at 0.5)
    assert!(
        so.contains("reverse: [1.485793508, 1.592434052, 1.706728558]"),
        "{so}"
    );
    assert!(so.contains("forward: 1.960516287"), "{so}");
    // An active argument the rule does not differentiate: a located error in both modes.
    for (mode, rule) in [("reverse", "polyint"), ("forward", "polyint_tangent")] {
        let line = format!(
            "{mode} constant: tests/scripts/user_rules.py:35:19: `k` depends on the differentiated input, but the derivative of `numpy.polyint` with respect to its argument `k` is not provided (its rule, backends/numpy.py:{rule}, gives none)"
        );
        assert!(so.contains(&line), "{so}");
    }
}

#[test]
fn integer_float32_nan_and_inf_inputs() {
    let out = tangent(&["run", "tests/scripts/numeric_edge.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    // d/dx sum(1.5 x^2) = 3x, as float64 for integer inputs
    assert!(
        so.contains("int array input: [3.0, 6.0, 9.0] float64"),
        "{so}"
    );
    assert!(so.contains("int scalar input: 6.0"), "{so}");
    assert!(so.contains("nan propagates: [3.0, nan]"), "{so}");
    assert!(so.contains("inf propagates: [inf, 3.0]"), "{so}");
    assert!(so.contains("float32 gradient dtype: float32"), "{so}");
}

#[test]
fn tuple_outputs_with_output_index_and_weights() {
    let out = tangent(&["run", "tests/scripts/outputs.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    // f = (x*y, x + y^2) at (2, 3)
    assert!(so.contains("index 0: (3.0, 2.0)"), "{so}");
    assert!(so.contains("index 1: (1.0, 6.0)"), "{so}");
    assert!(so.contains("index -1: 1.0"), "{so}");
    assert!(so.contains("weights: (3.5, 13.0)"), "{so}");
    assert!(so.contains("array, index 0: [2.0, 4.0]"), "{so}");
    assert!(
        so.contains("grad: `two` returned a tuple of 2 values, not a scalar\n"),
        "{so}"
    );
    assert!(so.contains("hint: pass output_index=i"), "{so}");
    assert!(
        so.contains("IndexError: tests/scripts/outputs.py:20:9: grad: output_index=2 is out of range: `two` returned 2 values\n"),
        "{so}"
    );
    assert!(
        so.contains("ValueError: tests/scripts/outputs.py:20:9: grad: output_weights has 1 entries but `two` returned 2 values\n"),
        "{so}"
    );
}

#[test]
fn forward_and_seed_argument_errors_name_the_argument() {
    let out = tangent(&["run", "tests/scripts/forward_errors.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(so.contains("jvp: 2.0"), "{so}");
    assert!(
        so.contains("shape: tests/scripts/forward_errors.py:")
            && so.contains(": the tangent `dx` has shape (2,) but `x` has shape (3,)\n")
            && so.contains("hint: pass a tangent of shape (3,)"),
        "{so}"
    );
    assert!(
        so.contains("count: dfdx() missing 1 required positional argument: 'dx'"),
        "{so}"
    );
    assert!(
        so.contains("grad: the seed has shape (2,) but `f` returned shape ()\n"),
        "{so}"
    );
}

#[test]
fn tape_liveness_cuts_the_tape_of_the_smoothing_loop() {
    let out = tangent(&["run", "tests/scripts/tape_liveness.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(so.contains("identical gradients: True"), "{so}");
    let line = so
        .lines()
        .find(|l| l.starts_with("tape peak bytes"))
        .unwrap_or("");
    let nums: Vec<f64> = line
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|t| t.parse().ok())
        .collect();
    let (off, on) = (nums[0], nums[1]);
    assert!(
        on <= 0.1 * off,
        "tape peak {on} bytes with the pass vs {off} without: {line}"
    );
    // Loop of 50 over 20,000 float64: at least 50 arrays of 160 kB were on the tape.
    assert!(off >= 50.0 * 160_000.0, "{line}");
}

#[test]
fn repeated_grad_is_served_from_the_memory_cache() {
    let out = tangent(&["run", "tests/scripts/cache.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(so.contains("same options, same function: True"), "{so}");
    assert!(so.contains("other options, other function: True"), "{so}");
    assert!(so.contains("a new rule rebuilds: True True"), "{so}");
    assert!(
        so.contains("lru keeps the recently used: True True 2"),
        "{so}"
    );
    assert!(
        so.contains("the literal reverse over reverse is its own entry: True True True"),
        "{so}"
    );
    assert!(
        so.contains("a rebound callee rebuilds: True True True True"),
        "{so}"
    );
}

#[test]
fn explain_shows_primal_gradient_flow_and_a_finite_difference_check() {
    let out = tangent(&["run", "tests/scripts/explain.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(
        so.contains("== primal: f (tests/scripts/explain.py:5) =="),
        "{so}"
    );
    assert!(so.contains("def dfdxw(x, w, bresult=1.0):"), "{so}");
    assert!(so.contains("  h <- x_times_w"), "{so}");
    assert!(so.contains("  result <- _sum, w"), "{so}");
    assert!(so.contains("worst below 1e-6: True"), "{so}");
    // Whether the gradient runs as machine code there, and why not.
    assert!(
        so.contains(
            "== native code (compile='auto') ==\n  runs interpreted: keyword arguments to `numpy.sum`"
        ),
        "{so}"
    );
    assert!(
        so.contains("== native code (compile='auto') ==\n  runs as machine code"),
        "{so}"
    );
    assert!(so.contains("runs interpreted at these arguments"), "{so}");
    // The same from the command line.
    let cli = tangent(&[
        "explain",
        "tests/scripts/explain.py:f",
        "--at",
        "np.array([0.5, -1.0]), 0.7",
        "--wrt",
        "0,1",
    ]);
    let co = text(&cli.stdout);
    assert!(cli.status.success(), "{co}\n{}", text(&cli.stderr));
    assert!(co.contains("d/dx[1]: tangent -0.537062617"), "{co}");
    assert!(co.contains("largest difference: "), "{co}");
}

#[test]
fn doctor_reports_hosts_and_backends() {
    let out = tangent(&["doctor"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(so.contains("host: embedded RustPython"), "{so}");
    assert!(so.contains("backend numpy        available"), "{so}");
    assert!(so.contains("backend jax          not installed"), "{so}");
}

#[test]
fn every_command_has_help_with_examples() {
    for command in ["run", "grad", "explain", "doctor", "cache"] {
        for form in [
            vec![command, "--help"],
            vec![command, "-h"],
            vec!["help", command],
        ] {
            let out = tangent(&form);
            assert!(out.status.success(), "{form:?}");
            let so = text(&out.stdout);
            assert!(
                so.starts_with(&format!("tangent {command}: ")),
                "{form:?}: {so}"
            );
            assert!(
                so.contains("USAGE:") && so.contains("EXAMPLE"),
                "{form:?}: {so}"
            );
        }
    }
    let grad_help = text(&tangent(&["grad", "--help"]).stdout);
    for option in ["--wrt", "--mode", "--motion", "--no-optimize"] {
        assert!(
            grad_help.contains(option),
            "{option} missing from: {grad_help}"
        );
    }
    assert_eq!(tangent(&["help", "frobnicate"]).status.code(), Some(2));
}

#[test]
fn run_passes_help_after_the_script_to_the_script() {
    let out = tangent(&["run", "tests/scripts/grad_errors.py", "--help", "x"]);
    let so = text(&out.stdout);
    assert!(so.contains("argv: ['--help', 'x']"), "{so}");
}

#[test]
fn grad_subcommand_split_motion_and_option_errors() {
    let out = tangent(&["grad", "tests/corpus/reverse.py:poly", "--motion", "split"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let so = text(&out.stdout);
    assert!(so.contains("def dpolydx_forward(x):"), "{so}");
    assert!(
        so.contains("def dpolydx_backward(x, bresult=1.0, _stack=None):"),
        "{so}"
    );
    for bad in [
        vec![
            "grad",
            "tests/corpus/reverse.py:poly",
            "--motion",
            "sideways",
        ],
        vec![
            "grad",
            "tests/corpus/reverse.py:poly",
            "--motion",
            "split",
            "--mode",
            "forward",
        ],
        vec!["grad", "tests/corpus/reverse.py:poly", "--mode"],
    ] {
        let out = tangent(&bad);
        assert_eq!(out.status.code(), Some(2), "{bad:?}");
        assert!(text(&out.stderr).starts_with("tangent: --m"), "{bad:?}");
    }
}

#[test]
fn commands_work_from_any_directory() {
    let root = env!("CARGO_MANIFEST_DIR");
    let elsewhere = std::env::temp_dir();
    let script = format!("{root}/examples/quickstart.py");
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_tangent"))
            .env(
                "TANGENT_CACHE_DIR",
                concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache"),
            )
            .args(args)
            .current_dir(&elsewhere)
            .output()
            .expect("run tangent")
    };
    let out = run(&["run", &script]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = run(&["grad", &format!("{script}:f")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("def dfdx(x, bresult=1.0):"));
    let out = run(&["explain", &format!("{script}:f"), "--at", "2.0"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("largest difference"));
}

#[test]
fn nested_functions_lambdas_and_methods_are_each_their_own_code() {
    let out = tangent(&["run", "tests/scripts/nested_function.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    for line in [
        "nested: 27.0 expected 27.0",
        "lambda: 5.0 expected 5.0",
        "top level: 6.0 expected 6.0",
        "method: 4.0 expected 4.0",
        "function of the class: 4.0 expected 4.0",
    ] {
        assert!(so.contains(line), "{line}\n{so}");
    }
}

#[test]
fn lambdas_closures_nested_defs_and_bound_methods_match_finite_differences() {
    let out = tangent(&["run", "tests/scripts/closures.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(!so.contains("WRONG"), "{so}");
    let ok = so.lines().filter(|l| l.ends_with(" ok")).count();
    assert_eq!(ok, 55, "{so}");
    for refusal in [
        "nested def used as a value refused: tests/scripts/closures.py:251:20: the nested function `sq` is passed as a value to `map`",
        "nested def inside an if refused: tests/scripts/closures.py:256:9: `sq` is a function defined inside a block (`if`, a loop), which cannot be differentiated",
        "nested def assigning a nonlocal refused: tests/scripts/closures.py:269:9: assignment to `total`, declared `global`/`nonlocal` at line 268",
    ] {
        assert!(so.contains(refusal), "{refusal}\n{so}");
    }
}

/// The generated source of derivatives only a host can make (lambdas, closures, bound
/// methods, methods of user classes, custom rules), reviewed as a snapshot.
#[test]
fn derivatives_of_closures_and_methods_read_well() {
    let out = tangent(&["run", "tests/scripts/closure_sources.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    insta::assert_snapshot!("closure_sources", so);
}

#[test]
fn methods_of_user_classes_match_finite_differences() {
    let out = tangent(&["run", "tests/scripts/classes.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(!so.contains("WRONG"), "{so}");
    assert_eq!(
        so.lines().filter(|l| l.ends_with(" ok")).count(),
        58,
        "{so}"
    );
    for refusal in [
        "a field named like an array attribute refused: tests/scripts/classes.py:480:9: tangent: the field `size` of Box has the name of an array attribute",
        "forward, a field named like an array attribute refused: tests/scripts/classes.py:482:9: tangent: the field `size` of Box",
        "a loop over a dict refused: tests/scripts/classes.py:484:1: tangent: a `for` loop over a dict",
        "a field first assigned in a branch refused: tests/scripts/classes.py:449:13: `self.a` is first assigned inside a block of `__init__`",
        "a constructor calling a method refused: tests/scripts/classes.py:457:18: a constructor that is differentiated reads `self.double` before assigning it",
        "assigning an object's field refused: tests/scripts/classes.py:475:5: assignment to an attribute cannot be differentiated",
        "a parameter's method named like an array method refused: tests/scripts/classes.py:489:9: tangent: the size of a reduction (tangent.reduced_count) got a value of type __main__.Summary, which no array library registered with tangent",
    ] {
        assert!(so.contains(refusal), "{refusal}\n{so}");
    }
}

#[test]
fn functions_without_a_file_are_differentiated_from_their_text() {
    let out = tangent(&["run", "tests/scripts/source_anywhere.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(!so.contains("WRONG"), "{so}");
    assert_eq!(so.lines().filter(|l| l.ends_with(" ok")).count(), 8, "{so}");
    assert!(so.contains("exec without source: tests/scripts/source_anywhere.py:21:5: no source text for `f`: <string> is not a file, and the code that made it kept none (exec, python -c)"), "{so}");
    assert!(
        so.contains("hint: pass the text it was defined with: tangent.grad(f, source=text)"),
        "{so}"
    );
    assert!(so.contains("source= of other code: tests/scripts/source_anywhere.py:33:5: the source given for `f` does not define it"), "{so}");
}

#[test]
fn tracebacks_show_the_users_frames_not_tangents_shims() {
    let out = tangent(&["run", "tests/scripts/uncaught_tangent_error.py"]);
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.starts_with("Traceback (most recent call last):\n  File \"tests/scripts/uncaught_tangent_error.py\", line 9, in <module>\n    tangent.grad(f)\n"), "{err}");
    assert!(!err.contains("<tangent shim"), "{err}");
    assert!(err.contains("tangent.TangentError: tests/scripts/uncaught_tangent_error.py:6:12: cannot differentiate a call to `sorted`"), "{err}");
    let full = Command::new(env!("CARGO_BIN_EXE_tangent"))
        .env(
            "TANGENT_CACHE_DIR",
            concat!(env!("CARGO_TARGET_TMPDIR"), "/tangent-cache"),
        )
        .args(["run", "tests/scripts/uncaught_tangent_error.py"])
        .env("TANGENT_TRACEBACK", "full")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run tangent");
    assert!(text(&full.stderr).contains("File \"<tangent shim tangent._build>\""));
}

/// compile='native' agrees with the interpreted adjoint on edge inputs (NaN, inf,
/// ZeroDivisionError, OverflowError, ints beyond 64 bits, float `//` `%` `**` at CPython's
/// edge values), matches analytic derivatives, says why array code runs interpreted, and
/// 'native!' refuses it.
#[test]
fn native_compilation_keeps_python_semantics() {
    let out = tangent(&["run", "tests/scripts/native_edges.py"]);
    let so = text(&out.stdout);
    let se = text(&out.stderr);
    assert!(out.status.success(), "{so}\n{se}");
    assert!(so.contains("native edges: 52 cases agree"), "{so}");
    assert!(
        so.contains("cannot be compiled: keyword arguments to `numpy.sum`"),
        "{so}"
    );
    assert!(
        se.contains(
            "compile='native': `darraysdx` runs interpreted: keyword arguments to `numpy.sum`"
        ),
        "{se}"
    );
    assert!(se.contains("line 3 of the generated code"), "{se}");
}

/// compile='native' runs loops over float64 arrays (element reads, sizes, gradient
/// arrays) as machine code, agreeing with the interpreted adjoint and with central
/// differences; other arrays and an index out of range run interpreted, as Python would.
#[test]
fn native_compilation_reads_float64_arrays() {
    let out = tangent(&["run", "tests/scripts/native_arrays.py"]);
    let so = text(&out.stdout);
    let se = text(&out.stderr);
    assert!(out.status.success(), "{so}\n{se}");
    assert!(so.contains("native arrays: 93 cases agree"), "{so}");
    // A dict without a key the function reads: refused for that signature, said, and
    // the interpreter raises the KeyError.
    assert!(
        se.contains("`dbuildingdheating` runs interpreted for arguments (1-d float64 array, 1-d float64 array, 1-d float64 array, dict of floats, float): the key \"T_initial\""),
        "{se}"
    );
}

/// Gradients of indexed reads: an element an index selects twice gets both shares (it
/// got one), and gradient arrays changed in place are never seen by a second name; each
/// case against central differences in every mode (tests/scripts/index_gradients.py).
#[test]
fn index_gradients_agree_with_differences() {
    let out = tangent(&["run", "tests/scripts/index_gradients.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(so.contains("index gradients: 169 cases agree"), "{so}");
}

/// What the tape holds in interpreted code: invariants never, element reads and the
/// arithmetic on them computed again; values that may change stay on it. Each case
/// against central differences in every mode (tests/scripts/tape_recompute.py).
#[test]
fn recomputed_tape_values_agree_with_differences() {
    let out = tangent(&["run", "tests/scripts/tape_recompute.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(
        so.contains("building pushes: ['T', 't', 'total_cost']"),
        "{so}"
    );
    assert!(so.contains("tape recompute: 54 cases agree"), "{so}");
}

/// Inputs that used to give a silently wrong number or an unlocated error (issue 13):
/// each line of tests/scripts/silent_wrong.py is a right number or a located error.
#[test]
fn no_silent_wrong_numbers_in_a_script() {
    let out = tangent(&["run", "tests/scripts/silent_wrong.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    let expected = [
        "alias scalar: 2.0",
        "alias array: TangentError: tests/scripts/silent_wrong.py:8:5: `y += ...` would change the ndarray `y` holds in place, and another name (or the caller) may hold the same object, so the derivative cannot follow the change",
        "text: TypeError: tests/scripts/silent_wrong.py:48:1: grad: `returns_text` returned a str, which has no derivative",
        "shadows: 7.0",
        "overwritten: 0.0",
        "wrt -1: 0.0",
        "wrt name: 2.0",
        "wrt 5: ValueError: tests/scripts/silent_wrong.py:53:1: wrt=(5,): `overwritten_param` has 2 argument(s) (x, y), so wrt must name them by position 0..1 (or -2..-1 from the end) or by name",
        "max of list: (1.0, 0.0)",
        "sum of list: (3.0, 4.0)",
        "overwritten array: array([0., 0.])",
        "mean of list: (1.5, 1.5)",
        "alias array forward: TangentError: tests/scripts/silent_wrong.py:8:5: `y += ...` would change the ndarray `y` holds in place, and another name (or the caller) may hold the same object, so the derivative cannot follow the change",
        "alias scalar forward: 2.0",
        "text forward: TypeError: tests/scripts/silent_wrong.py:61:1: tangent: a value of type str has no derivative (a zero gradient or tangent of it was needed)",
    ];
    for line in expected {
        assert!(so.lines().any(|l| l == line), "missing `{line}` in:\n{so}");
    }
}

/// Names resolve as the running program binds them (issue 14): an import in a `try` or
/// an `if`, a rebound or redefined callee, `sin = math.cos`, a cached function are exact
/// (analytic values); a method of a user object, a decorator's wrapper, a typo, an
/// undefined name and a file edited after import are located errors, never a zero.
#[test]
fn names_resolve_as_the_running_program_binds_them() {
    let out = tangent(&["run", "tests/scripts/live_names.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    let expected = [
        "try import: [2. 4.] expected [2. 4.]",
        "if import: [2. 4.] expected [2. 4.]",
        "method sum: 6.0 expected 6.0",
        "parameter's method: TangentError: tests/scripts/live_names.py:44:12: `x` depends on the differentiated input, but it is passed to the method `numpy.ndarray.sum` as its argument `axis`, which has no derivative (backends/numpy.py:sum_method); if the object is not an array, its method is not that one",
        "parameter's method forward: TangentError: tests/scripts/live_names.py:44:12: `x` depends on the differentiated input, but it is passed to the method `numpy.ndarray.sum` as its argument `axis`, which has no derivative (backends/numpy.py:sum_method_tangent); if the object is not an array, its method is not that one",
        "method evaluate: 2.0 expected 2.0",
        "wraps: 6.0 expected 6.0",
        "    hint: call a function with a derivative rule instead, or pass values that do not depend on the input there; if the object is of your own class, call the method through the class (`MyClass.method(obj, x)`), which is differentiated as the class's function",
        "wrapped callee: 7.0 expected 7.0",
        "rebound callee: 3.0 expected 3.0",
        "redefined in if: 5.0 expected 5.0",
        "sin = math.cos: -0.479425538604203 expected -0.479425538604203",
        "forward sin = math.cos: -0.479425538604203 expected -0.479425538604203",
        "typo: TangentError: tests/scripts/live_names.py:101:12: module `numpy` has no attribute `summ`",
        "    hint: did you mean `numpy.sum`?",
        "undefined: TangentError: tests/scripts/live_names.py:105:12: name `sqaure` is not defined",
        "lru_cache: 6.0 expected 6.0",
        "edited file: <tmp>/live_edited.py:1:1: `f` is not the code in <tmp>/live_edited.py now: the file changed after the function was defined",
    ];
    for line in expected {
        assert!(so.lines().any(|l| l == line), "missing `{line}` in:\n{so}");
    }
}

/// Runs tangent in `dir` with a disk cache of its own (timings must not come from it).
fn tangent_in(dir: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tangent"))
        .env("TANGENT_CACHE_DIR", dir.join("cache"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run tangent")
}

/// A fresh directory under the target's temporary directory.
fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch directory");
    dir
}

/// Deeply nested expressions (issue 13, item 9): a 6,000-term `x + x + ...` (a chain
/// 6,000 deep), 10,000 nested parentheses and 10,000 unary minus differentiate; absurd
/// depths are a located diagnostic with exit 3, never a stack overflow.
#[test]
fn deep_expressions_differentiate_or_are_located_diagnostics() {
    let dir = scratch("deep-expressions");
    let def = |name: &str, body: String| format!("def {name}(x):\n    return {body}\n\n\n");
    let module = [
        def("chain", vec!["x"; 6000].join(" + ")),
        def(
            "parens",
            format!("{}x{} * 2.0", "(".repeat(10_000), ")".repeat(10_000)),
        ),
        def("minus", format!("{}x", "-".repeat(10_000))),
    ]
    .concat();
    std::fs::write(dir.join("deep.py"), module).unwrap();
    for f in ["chain", "parens", "minus"] {
        let out = tangent_in(&dir, &["grad", &format!("deep.py:{f}")]);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{f}: {err}");
        assert!(text(&out.stdout).contains(&format!("def d{f}dx(x, bresult=1.0):")));
        let start = std::time::Instant::now();
        let out = tangent_in(
            &dir,
            &["grad", &format!("deep.py:{f}"), "--mode", "forward"],
        );
        assert_eq!(out.status.code(), Some(0), "{f}: {}", text(&out.stderr));
        // Forward mode copied its table of tangents for every statement (a minute here).
        assert!(start.elapsed().as_secs() < 20, "{f}: {:?}", start.elapsed());
    }
    // Each in a file of its own: like CPython, the scan before parsing refuses the file.
    let too_deep = [
        ("chain", vec!["x"; 200_000].join(" + ")),
        ("minus", format!("{}x", "-".repeat(200_000))),
        // The parser recurses once per parenthesis: this many would exhaust any stack.
        (
            "parens",
            format!("{}x{}", "(".repeat(1_000_000), ")".repeat(1_000_000)),
        ),
    ];
    for (f, body) in too_deep {
        let file = format!("too_deep_{f}.py");
        std::fs::write(dir.join(&file), def("f", body)).unwrap();
        let out = tangent_in(&dir, &["grad", &format!("{file}:f")]);
        let err = text(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{f}: {}",
            &err[..err.len().min(500)]
        );
        assert!(
            err.starts_with(&format!("{file}:2:")) && err.contains("nested too deeply"),
            "{f}: {}",
            &err[..err.len().min(500)]
        );
        assert!(err.contains("\n  |") && err.contains('^') && err.contains("\nhint: "));
        // The 200,000-character line is shown around the column, not whole.
        assert!(err.len() < 2000, "{} bytes", err.len());
    }
    // The derivatives are right (the embedded host compiles the deep primal too).
    std::fs::write(
        dir.join("main.py"),
        "import tangent\nimport deep\nprint(tangent.grad(deep.chain)(1.5), tangent.grad(deep.parens)(1.5), tangent.grad(deep.minus)(1.5))\n",
    )
    .unwrap();
    let out = tangent_in(&dir, &["run", "main.py"]);
    assert_eq!(
        text(&out.stdout).trim(),
        "6000.0 2.0 1.0",
        "{}",
        text(&out.stderr)
    );
}

/// The e-graph passes and coarsening on expressions thousands deep (issue 13, item 10)
/// finish in seconds and give the gradient computed without them.
#[test]
fn optional_passes_on_deep_expressions_are_bounded_and_exact() {
    let dir = scratch("deep-passes");
    // `product` is too large for one e-graph (the passes leave it with a note); `sum`
    // is simplified.
    let product = vec!["(x - -y * 1.0)"; 2000].join(" * ");
    let sum = vec!["x * y - x"; 700].join(" + ");
    std::fs::write(
        dir.join("deep_passes.py"),
        format!(
            "import math\n\ndef product(x, y):\n    t = {product}\n    return math.sin(t)\n\n\ndef total(x, y):\n    return {sum}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.join("main.py"),
        r##"import time
import tangent
import deep_passes as m

for f in (m.product, m.total):
    plain = tangent.grad(f, wrt=(0, 1), compile="python")(1.0, 0.0001)
    for opts in ({"cse": True, "algebraic": True}, {"coarsening": True}):
        start = time.perf_counter()
        g = tangent.grad(f, wrt=(0, 1), optimizations=opts, compile="python")
        took = time.perf_counter() - start
        got = g(1.0, 0.0001)
        ok = all(abs(a - b) <= 1e-9 * max(1.0, abs(b)) for a, b in zip(got, plain))
        note = "# tangent: the cse/algebraic passes left" in g.__tangent_source__
        print(f.__name__, sorted(opts), "same" if ok else "DIFFERENT %r %r" % (got, plain),
              "fast" if took < 20.0 else "SLOW %.1f s" % took, "noted" if note else "")
"##,
    )
    .unwrap();
    let start = std::time::Instant::now();
    let out = tangent_in(&dir, &["run", "main.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert_eq!(so.matches("same fast").count(), 4, "{so}");
    assert!(
        so.contains("product ['algebraic', 'cse'] same fast noted"),
        "{so}"
    );
    assert!(
        so.contains("total ['algebraic', 'cse'] same fast \n"),
        "{so}"
    );
    assert!(start.elapsed().as_secs() < 120, "{:?}", start.elapsed());
}

/// Reverse mode through recursion costs O(depth) (issue 13, item 11): a recursive
/// callee gets a two-phase gradient on the caller's tape instead of joint motion's
/// recomputation (O(depth^2)). Counted deterministically (Python calls made by one
/// gradient call, at depths n and 2n), exact against the analytic derivatives (also
/// mutual recursion and two arguments), and natively compiled.
#[test]
fn reverse_mode_through_recursion_is_linear_and_exact() {
    let dir = scratch("recursion");
    std::fs::write(
        dir.join("rec.py"),
        r#"def f(x, n):
    if n == 0:
        return x
    return f(x, n - 1) + 2.0 * x


def even(x, n):
    if n == 0:
        return x
    return odd(x, n - 1) * 1.0 + x


def odd(x, n):
    return even(x, n) + 3.0 * x


def m(x, y, n):
    if n == 0:
        return x
    return m(x, y, n - 1) + x * y
"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("main.py"),
        r#"import sys
import time
import tangent
import rec
sys.setrecursionlimit(300000)

g = tangent.grad(rec.f, compile="python")


def calls(n):
    count = [0]

    def profile(frame, event, arg):
        if event == "call":
            count[0] += 1
    sys.setprofile(profile)
    g(0.5, n)
    sys.setprofile(None)
    return count[0]


print("calls", calls(1000), calls(2000))
for mode in ("python", "native!"):
    print(mode, tangent.grad(rec.f, compile=mode)(0.5, 3000) == 6001.0,
          tangent.grad(rec.even, compile=mode.rstrip("!"))(0.5, 301) == 1.0 + 4.0 * 301,
          tangent.grad(rec.m, wrt=(0, 1), compile=mode.rstrip("!"))(0.5, 0.25, 1000) == (251.0, 500.0))
native = tangent.grad(rec.f, compile="native!")
native(0.5, 3)
start = time.perf_counter()
value = native(0.5, 100000)
print("native 100000", value == 200001.0, "fast" if time.perf_counter() - start < 10.0 else "SLOW")
"#,
    )
    .unwrap();
    let out = tangent_in(&dir, &["run", "main.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    let counts: Vec<f64> = so
        .lines()
        .find_map(|l| l.strip_prefix("calls "))
        .expect("the call counts")
        .split(' ')
        .map(|c| c.parse().unwrap())
        .collect();
    assert!(counts[1] < 2.2 * counts[0], "not linear: {counts:?}");
    assert!(so.contains("python True True True"), "{so}");
    assert!(so.contains("native! True True True"), "{so}");
    assert!(so.contains("native 100000 True fast"), "{so}");
}

/// A user-defined array type registered through the public registries
/// (`tangent.register_namespace`, `register_init_grad`, ...): the generic helpers dispatch
/// on it, `tangent.grad` of operator-only code over it agrees with finite differences, and
/// a helper it did not register, or a type nobody registered, is a located TypeError.
#[test]
fn a_user_array_type_registered_through_the_registries_is_differentiated() {
    let out = tangent(&["run", "tests/scripts/user_array_type.py"]);
    let so = text(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{so}{}", text(&out.stderr));
    let expected = [
        "  TypeError: tests/scripts/user_array_type.py:102:5: tangent: the gradient of a broadcasting operation (tangent.unbroadcast) got a value of type __main__.Arr, which no array library registered with tangent",
        "  hint: differentiate numbers, arrays and lists or tuples of them; for an array type of another library, register it: tangent.register_namespace(Arr, its_array_namespace) and tangent.register_unbroadcast(Arr, fn); or, if Arr objects are not arrays, a method of theirs named like an array method (`obj.mean()`, `obj.sum()`) was read as the array's: call it through the class (`Arr.mean(obj)`)",
        "namespace: True",
        "init_grad: Arr([0.0, 0.0, 0.0])",
        "add_grad: Arr([2.0, -4.0, 1.0])",
        "unbroadcast to (1, 3): Arr([2.0, 2.0, 2.0])",
        "unbroadcast to a float: 6.0",
        "unreduce: Arr([2.0, 2.0, 2.0])",
        "shape_of: (1, 3)",
        "forward before broadcast_like: TypeError: tests/scripts/user_array_type.py:165:5: tangent: the tangent of a broadcasting operation (tangent.broadcast_like) needs `broadcast_like` for a value of type __main__.Arr, and none is registered for that type",
        "  hint: register it: tangent.register_helper('broadcast_like', Arr, fn)",
        "unregistered: TypeError: tests/scripts/user_array_type.py:200:5: tangent: the gradient of a reduction (tangent.unreduce) got a value of type __main__.Unregistered, which no array library registered with tangent",
        "default ddof: TypeError: tests/scripts/user_array_type.py:180:5: tangent: the default ddof (correction) of Arr.var()/.std() is not known: its library registered none",
    ];
    for line in expected {
        assert!(so.lines().any(|l| l == line), "missing `{line}` in:\n{so}");
    }
    let checked: Vec<&str> = so
        .lines()
        .filter(|l| l.contains("finite differences"))
        .collect();
    assert_eq!(checked.len(), 6, "{so}");
    assert!(checked.iter().all(|l| l.ends_with(": True")), "{so}");
}

/// tests/scripts/custom_derivatives.py: custom_vjp / custom_jvp / stop_gradient against
/// analytic derivatives and finite differences (each check prints `ok` or `FAIL`), and
/// the located errors of bad rules and unsupported uses.
#[test]
fn custom_derivatives_and_stop_gradient() {
    let out = tangent(&["run", "tests/scripts/custom_derivatives.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(!so.contains("FAIL"), "{so}");
    assert_eq!(
        so.lines().filter(|l| l.starts_with("ok ")).count(),
        35,
        "{so}"
    );
    let script = "tests/scripts/custom_derivatives.py";
    for expected in [
        format!("forward over reverse through cbrt: {script}:55:9: forward mode through `cbrt`: it is a tangent.custom_vjp function"),
        "forward over forward: <generated from tests/scripts/custom_derivatives.py>:4:31: forward mode over a forward-mode derivative through the custom function `log1pexp` is not available".to_owned(),
        format!("never defined: {script}:283:12: `never_defined` is a tangent.custom_vjp function whose rule was never defined"),
        format!("too many entries: {script}:291:1: `<lambda>` (the backward rule of `too_many`) returned 2 entries; it must return a tuple of 1"),
        format!("wrong shape: {script}:298:1: `wrong_shape_bwd` returned a gradient of shape () for argument 0 (`x`) of `wrong_shape`, whose shape is (3,)"),
        format!("forward through custom_vjp: {script}:315:12: forward mode through `cbrt`: it is a tangent.custom_vjp function, which has only a reverse-mode rule"),
        format!("active nondiff argument: {script}:319:36: argument 1 of `clip_gradient` is in its nondiff_argnums"),
        format!("keyword argument: {script}:329:12: keyword argument `x` in a call of the custom function `clip_half`"),
        format!("not a function: {script}:333:1: tangent.custom_vjp decorates a function, not a float"),
        format!("store into an argument after the call: {script}:366:5: this store changes `y` in place"),
        format!("store into a custom function's result: {script}:373:5: this store changes `z` in place"),
        format!("store into an argument after the call: {script}:366:5: this store changes `y` in place"),
        format!("store into a custom function's result: {script}:373:5: this store changes `z` in place"),
    ] {
        assert!(so.contains(&expected), "missing {expected:?} in\n{so}");
    }
}

/// Without a host (`tangent grad FILE:FUNC`), a call of a decorated function is refused,
/// located: differentiating its `def` as written would ignore a custom rule.
#[test]
fn decorated_callee_without_a_host_is_refused() {
    let out = tangent(&["grad", "tests/scripts/custom_derivatives.py:clipped"]);
    assert!(!out.status.success());
    let se = text(&out.stderr);
    assert!(
        se.contains("tests/scripts/custom_derivatives.py:159:9: cannot differentiate a call to `clip_gradient` here: it is decorated (`@tangent.custom_vjp(nondiff_argnums=(1,))`)"),
        "{se}"
    );
}

/// The embedded interpreter's standard library: every module of the tour runs its call,
/// and those it lacks are exactly the ones README.md lists, each import naming the way
/// out (`tangent run --python`).
#[test]
fn the_embedded_standard_library_runs_what_scripts_use() {
    let out = tangent(&["run", "--embedded", "tests/scripts/stdlib_tour.py"]);
    let so = text(&out.stdout);
    assert!(out.status.success(), "{so}\n{}", text(&out.stderr));
    assert!(!so.contains("WRONG") && !so.contains("FAILED"), "{so}");
    let ok = so.lines().filter(|l| l.starts_with("ok ")).count();
    assert_eq!(ok, 88, "{so}");
    let missing: Vec<&str> = so
        .lines()
        .filter_map(|l| l.strip_prefix("missing "))
        .map(|l| l.split(':').next().unwrap_or(l))
        .collect();
    assert_eq!(
        missing,
        ["sqlite3", "cProfile", "pstats", "profile"],
        "{so}"
    );
    assert!(
        so.lines()
            .filter(|l| l.starts_with("missing "))
            .all(|l| l.contains("tangent run --python")),
        "{so}"
    );
    let readme = include_str!("../README.md");
    for m in missing {
        assert!(
            readme.contains(&format!("`{m}`")),
            "README.md does not list {m}"
        );
    }
}

/// `tangent grad`'s exit code follows the kind of error: a file that cannot be read and a
/// function that is not a top-level `def` are usage errors (2), a construct that cannot
/// be differentiated is 3 (`grad_subcommand_diagnostic_exit_3`).
#[test]
fn grad_subcommand_exit_code_by_kind_of_error() {
    let out = tangent(&["grad", "does/not/exist.py:f"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("cannot read the source of `f` from `does/not/exist.py`"),
        "{}",
        text(&out.stderr)
    );
    let out = tangent(&["grad", "tests/corpus/reverse.py:no_such_function"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("`no_such_function` is not defined with `def` at the top level"),
        "{}",
        text(&out.stderr)
    );
}
