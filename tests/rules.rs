//! The built-in rule files: they load, and every template instantiates on a call with
//! all-active arguments (so a typo in a template fails here, not in a user's program).

use tangent::ad::template::{instantiate, Site};
use tangent::rules::RuleSet;
use tangent::syntax::ir::Expr;

struct AllActive(usize);

impl Site for AllActive {
    fn is_active(&self, _name: &str) -> bool {
        true
    }
    fn fresh(&mut self, hint: &str) -> String {
        self.0 += 1;
        format!("{hint}{}", self.0)
    }
}

#[test]
fn every_template_instantiates() {
    let rules = RuleSet::builtin();
    let names = rules.adjoint_names();
    assert!(names.len() >= 70, "only {} rules", names.len());
    for q in names {
        let t = rules.adjoint(q).unwrap();
        let required = t.def.params[1..]
            .iter()
            .filter(|p| p.default.is_none())
            .count();
        let args: Vec<Expr> = (0..required).map(|i| Expr::name(format!("a{i}"))).collect();
        let adj = instantiate(t, q, "out", &args, &[], &mut AllActive(0))
            .unwrap_or_else(|e| panic!("{q}: {e}"));
        if adj.is_empty() {
            // Some calls have no gradient with their required arguments only (arange(stop)
            // counts from 0); every parameter active must then give one.
            let all: Vec<Expr> = (1..t.def.params.len())
                .map(|i| Expr::name(format!("a{i}")))
                .collect();
            let adj = instantiate(t, q, "out", &all, &[], &mut AllActive(0))
                .unwrap_or_else(|e| panic!("{q}: {e}"));
            assert!(!adj.is_empty(), "{q}: the template contributes no gradient");
        }
    }
}

#[test]
fn rule_names_are_canonical() {
    let rules = RuleSet::builtin();
    let prefixes = [
        "operator.",
        "builtins.",
        "math.",
        "numpy.",
        "scipy.",
        "tangent.",
        "jax.",
        "torch.",
        "tensorflow.",
        "keras.",
        "tinygrad.",
    ];
    for q in rules.adjoint_names() {
        assert!(prefixes.iter().any(|p| q.starts_with(p)), "{q}");
        assert!(
            !rules.is_nondifferentiable(q),
            "{q} is both differentiable and not"
        );
    }
}

#[test]
fn user_rule_file_is_loaded() {
    let mut rules = RuleSet::default();
    rules
        .add_file(
            "mine.py",
            "@adjoint(mylib.cube)\ndef cube(y, x):\n    d[x] = d[y] * 3.0 * x * x\n",
        )
        .unwrap();
    assert!(rules.adjoint("mylib.cube").is_some());
}

/// The built-in rule files load, one after the other, without a located error (a
/// duplicate registration among them would be one).
#[test]
fn builtin_rule_files_have_no_duplicates() {
    let mut rules = RuleSet::default();
    for (file, text) in tangent::rules::RULE_FILES {
        if let Err(d) = rules.add_file(file, text) {
            panic!("{d}");
        }
    }
    rules.finish();
    assert_eq!(rules.adjoint_names(), RuleSet::builtin().adjoint_names());
}

/// Loads `files` in order into one rule set; the error of the first that fails.
fn load(files: &[(&str, &str)]) -> Result<RuleSet, String> {
    let mut rules = RuleSet::default();
    for (file, text) in files {
        rules.add_file(file, text).map_err(|d| d.to_string())?;
    }
    Ok(rules)
}

const CUBE: &str = "@adjoint(mylib.cube)\ndef cube(y, x):\n    d[x] = d[y] * 3.0 * x * x\n";

#[test]
fn a_second_adjoint_for_one_name_is_a_located_error() {
    // In one file: the error points at the second decorator's argument and names the
    // first.
    let text = format!("{CUBE}\n\n@adjoint(mylib.square, mylib.cube)\ndef cube2(y, x):\n    d[x] = d[y] * 3.0 * x * x\n");
    let err = load(&[("mine.py", &text)]).unwrap_err();
    assert!(err.starts_with("mine.py:6:24: `mylib.cube` is given a reverse-mode rule a second time here; the first time is at mine.py:1:10"), "{err}");
    // Across files (the later file used to win silently).
    let err = load(&[("a.py", CUBE), ("b.py", CUBE)]).unwrap_err();
    assert!(err.starts_with("b.py:1:10: `mylib.cube` is given a reverse-mode rule a second time here; the first time is at a.py:1:10"), "{err}");
    // A forward rule for the same name is another kind: no clash.
    let fwd = "@tangent_(mylib.cube)\ndef cube_t(y, x):\n    d[y] = d[x] * 3.0 * x * x\n";
    let rules = load(&[("a.py", CUBE), ("b.py", fwd)]).unwrap();
    assert!(rules.adjoint("mylib.cube").is_some() && rules.tangent("mylib.cube").is_some());
    let err = load(&[("a.py", fwd), ("b.py", fwd)]).unwrap_err();
    assert!(
        err.starts_with("b.py:1:11: `mylib.cube` is given a forward-mode rule a second time here"),
        "{err}"
    );
}

#[test]
fn an_elementwise_entry_and_a_template_for_one_name_clash() {
    let table = "@elementwise(numpy=\"cube\")\ndef cube(y, x):\n    return 3.0 * x * x\n";
    let explicit = "@adjoint(numpy.cube)\ndef cube(y, x):\n    d[x] = d[y] * 3.0 * x * x\n";
    let err = load(&[("table.py", table), ("numpy.py", explicit)]).unwrap_err();
    assert!(err.starts_with("numpy.py:1:10: `numpy.cube` is given a reverse-mode rule a second time here; the first time is at table.py:1:20"), "{err}");
    let err = load(&[("numpy.py", explicit), ("table.py", table)]).unwrap_err();
    assert!(err.starts_with("table.py:1:20: `numpy.cube` is given a reverse-mode rule a second time here; the first time is at numpy.py:1:10"), "{err}");
}

#[test]
fn a_rule_for_a_nondifferentiable_name_is_a_located_error() {
    let decl = "nondifferentiable(mylib.floor, mylib.cube)\n";
    let err = load(&[("a.py", decl), ("b.py", CUBE)]).unwrap_err();
    assert!(err.starts_with("b.py:1:10: `mylib.cube` is given a reverse-mode rule here, but it is declared `nondifferentiable` at a.py:1:32"), "{err}");
    let err = load(&[("b.py", CUBE), ("a.py", decl)]).unwrap_err();
    assert!(err.starts_with("a.py:1:32: `mylib.cube` is declared `nondifferentiable` here, but it is given a reverse-mode rule at b.py:1:10"), "{err}");
    let err = load(&[("a.py", &format!("{decl}nondifferentiable(mylib.floor)\n"))]).unwrap_err();
    assert!(err.starts_with("a.py:2:19: `mylib.floor` is declared `nondifferentiable` a second time here; the first time is at a.py:1:19"), "{err}");
}

#[test]
fn an_unknown_declaration_is_a_located_error() {
    let err = load(&[("a.py", "\nnondiferentiable(mylib.floor)\n")]).unwrap_err();
    assert!(
        err.starts_with("a.py:2:1: unknown declaration `nondiferentiable`"),
        "{err}"
    );
}

/// Rules registered at run time replace built-in ones (the rule set in force), as
/// before: only the loader refuses duplicates.
#[test]
fn a_rule_registered_at_run_time_overrides() {
    let mut rules = RuleSet::builtin().clone();
    let before = rules.adjoint("numpy.sum").unwrap().origin.clone();
    let mine = load(&[(
        "mine.py",
        "@adjoint(numpy.sum)\ndef s(y, x):\n    d[x] = d[y]\n",
    )])
    .unwrap();
    rules.insert(
        false,
        "numpy.sum",
        mine.adjoint("numpy.sum").unwrap().clone(),
    );
    assert_ne!(rules.adjoint("numpy.sum").unwrap().origin, before);
    assert_eq!(rules.adjoint("numpy.sum").unwrap().origin, "mine.py:s");
}

#[test]
fn two_templates_with_one_name_are_a_located_error() {
    let text = format!("{CUBE}\n\n@adjoint(mylib.other)\ndef cube(y, x):\n    d[x] = d[y]\n");
    let err = load(&[("mine.py", &text)]).unwrap_err();
    assert!(err.starts_with("mine.py:6:2: a second template named `cube` in this file (the first is at mine.py:1:2)"), "{err}");
}
