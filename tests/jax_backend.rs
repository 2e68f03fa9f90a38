//! The JAX backend: every jax rule has an entry in the JAX op catalog
//! (tests/jax/check_jax.py), the resolver gives JAX calls their canonical names under
//! every import style, operators and array methods use the jax rules in modules that
//! import jax (and only there), and the catalog passes in CPython with jax installed
//! (skipped with a message when the test CPython, jax or the bridge is missing; a
//! failure under CI=true).

use crate::common;

use crate::common::backend::source;

use std::collections::BTreeSet;
use tangent::Tangent;

const CATALOG: &str = include_str!("jax/check_jax.py");

/// Names quoted in the catalog (`"jax.numpy.sum"`, `"jax:operator.matmul"`, ...).
fn catalog_rules() -> BTreeSet<String> {
    CATALOG
        .split('"')
        .skip(1)
        .step_by(2)
        .filter(|p| {
            p.starts_with("jax")
                && p.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "_.:".contains(c))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn every_jax_rule_is_in_the_jax_catalog() {
    let listed = catalog_rules();
    let rules = tangent::rules::RuleSet::builtin();
    let jax: Vec<&str> = rules
        .adjoint_names()
        .into_iter()
        .chain(rules.tangent_names())
        .filter(|n| n.starts_with("jax"))
        .collect();
    let reverse = rules
        .adjoint_names()
        .iter()
        .filter(|n| n.starts_with("jax"))
        .count();
    let forward = rules
        .tangent_names()
        .iter()
        .filter(|n| n.starts_with("jax"))
        .count();
    assert!(
        reverse >= 50 && forward >= 45,
        "{reverse} reverse, {forward} forward"
    );
    let missing: Vec<&&str> = jax.iter().filter(|n| !listed.contains(**n)).collect();
    assert!(
        missing.is_empty(),
        "jax rules missing from tests/jax/check_jax.py: {missing:?}"
    );
}

#[test]
fn jax_calls_resolve_under_every_import_style() {
    let cases = [
        ("import jax.numpy as jnp", "jnp.tanh(x)", "jax.numpy.tanh"),
        (
            "from jax import numpy as jnp",
            "jnp.tanh(x)",
            "jax.numpy.tanh",
        ),
        ("import jax", "jax.numpy.tanh(x)", "jax.numpy.tanh"),
        ("import jax", "jax.nn.relu(x)", "jax.nn.relu"),
        ("from jax import nn", "nn.relu(x)", "jax.nn.relu"),
        ("from jax.nn import gelu", "gelu(x)", "jax.nn.gelu"),
        (
            "import jax.scipy.special",
            "jax.scipy.special.logsumexp(x)",
            "logsumexp",
        ),
    ];
    for (import, call, _name) in cases {
        let src = format!("{import}\n\n\ndef f(x):\n    return {call}\n");
        // A resolved call gets its rule; an unresolved one would be an error.
        let reverse = source(&src, false);
        let forward = source(&src, true);
        assert!(reverse.contains("bx"), "{reverse}");
        assert!(forward.contains("dx"), "{forward}");
    }
    // The elementwise table's partial for jax is written with jax.numpy.
    let src = "import jax.numpy as jnp\n\n\ndef f(x):\n    return jnp.sin(x)\n";
    assert!(source(src, false).contains("jax.numpy.cos(x)"));
    // gelu's default is the tanh approximation.
    let src = "import jax\n\n\ndef f(x):\n    return jax.nn.gelu(x)\n";
    assert!(source(src, false).contains("jax.numpy.tanh"));
    let src = "import jax\n\n\ndef f(x):\n    return jax.nn.gelu(x, approximate=False)\n";
    assert!(source(src, false).contains("jax.lax.erf"));
}

/// Operators and array methods have one rule whatever the module imports: the namespace
/// is the arguments' at run time, so the generated source is the same with numpy or jax
/// imported (issue 14).
#[test]
fn operator_rules_do_not_depend_on_the_modules_imports() {
    let body = "\n\n\ndef f(x, y):\n    return (x @ y).sum()\n";
    let with_jax = source(&format!("import jax.numpy as jnp{body}"), true);
    let with_numpy = source(&format!("import numpy as np{body}"), true);
    assert_eq!(with_jax, with_numpy);
    // `@`'s tangent is written with `@`, which dispatches on the values as the user's
    // `x @ y` does; the method's rule with the arguments' namespace.
    assert!(with_numpy.contains("dx_matmul_y = dx @ y"), "{with_numpy}");
    assert!(
        with_numpy.contains("tangent.namespace_of(x_matmul_y).sum"),
        "{with_numpy}"
    );
    assert!(!with_numpy.contains("jax"), "{with_numpy}");
}

/// In one module importing numpy and jax, a NumPy function's gradient is a
/// numpy.ndarray and a JAX function's a jax.Array (also under jax.jit), and both are the
/// analytic gradient.
#[test]
fn gradients_follow_the_value_type_in_a_module_importing_numpy_and_jax() {
    let Some(python) = common::cpython::python(&["jax", "numpy"]) else {
        return;
    };
    let out = common::cpython::run_ok(&python, "tests/jax/mixed_module.py", &[]);
    common::cpython::assert_lines(
        &out,
        &[
            "reverse numpy: numpy True",
            "reverse jax: jax True",
            "forward numpy: numpy True",
            "forward numpy type: numpy",
            "forward jax: jax True",
            "jit: True True",
            "compile=jax: True True",
            "second order forward-over-reverse: True True",
            "second order reverse-over-forward: True True",
        ],
    );
}

#[test]
fn an_unsupported_keyword_is_an_error_not_a_wrong_gradient() {
    // logsumexp(..., return_sign=True) and softmax(..., where=...) have no rule.
    for call in [
        "jax.nn.logsumexp(x, return_sign=True)[0]",
        "jax.nn.softmax(x, where=x > 0)",
    ] {
        let src = format!("import jax\n\n\ndef f(x):\n    return {call}\n");
        let err = Tangent::builder(&src, "f").build().err();
        assert!(err.is_some(), "{call} was differentiated");
    }
}

#[test]
fn jax_catalog_matches_jax_autodiff_and_finite_differences() {
    let Some(python) = common::cpython::python(&["jax", "numpy"]) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tangent-jax-catalog-{}", std::process::id()));
    let stdout =
        common::cpython::run_ok(&python, "tests/jax/check_jax.py", &[&dir.to_string_lossy()]);
    assert!(stdout.contains("; 0 failures"), "{stdout}");
}
