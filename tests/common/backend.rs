//! What the array-library backend tests share: the rule-count floor and the named
//! rules, and the generated source of a one-function module.
#![allow(dead_code)] // each test file uses a part

use tangent::Tangent;

/// The builtin rules named under `prefix` number at least `reverse` and `forward`, and
/// each of `names` has a rule both ways.
pub fn assert_rules(prefix: &str, reverse: usize, forward: usize, names: &[&str]) {
    let rules = tangent::rules::RuleSet::builtin();
    let ours = |all: Vec<&str>| all.iter().filter(|n| n.starts_with(prefix)).count();
    let (r, f) = (ours(rules.adjoint_names()), ours(rules.tangent_names()));
    assert!(
        r >= reverse && f >= forward,
        "{r} reverse, {f} forward rules named {prefix}*"
    );
    for name in names {
        assert!(rules.adjoint(name).is_some(), "no reverse rule for {name}");
        assert!(rules.tangent(name).is_some(), "no forward rule for {name}");
    }
}

/// The generated source of `f` in `src`, reverse or forward mode.
pub fn source(src: &str, forward: bool) -> String {
    let b = Tangent::builder(src, "f");
    let b = if forward { b.forward() } else { b };
    b.build()
        .unwrap_or_else(|e| panic!("{e}\n{src}"))
        .source()
        .to_owned()
}

/// For each (import line, call of `x`): `def f(x): return CALL` under that import has a
/// reverse derivative (a `bx`) and a forward one (a `dx`).
pub fn assert_differentiates(cases: &[(&str, &str)]) {
    for (import, call) in cases {
        let src = format!("{import}\n\n\ndef f(x):\n    return {call}\n");
        let reverse = source(&src, false);
        let forward = source(&src, true);
        assert!(reverse.contains("bx"), "{reverse}");
        assert!(forward.contains("dx"), "{forward}");
    }
}

/// Whether tests/tinygrad/check_tinygrad.py has an entry for `rule`: `M + "tanh"` (a
/// Tensor method, `numpy.ndarray.tanh`), an elementwise method `("asin", "unit")`, or
/// the full name quoted.
pub fn in_tinygrad_catalog(rule: &str) -> bool {
    const CATALOG: &str = include_str!("../tinygrad/check_tinygrad.py");
    match rule.strip_prefix("numpy.ndarray.") {
        Some(m) => {
            CATALOG.contains(&format!("M + \"{m}\"")) || CATALOG.contains(&format!("(\"{m}\", \""))
        }
        None => CATALOG.contains(&format!("\"{rule}\"")),
    }
}
