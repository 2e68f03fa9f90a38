//! The built-in rule files: they load, and every template instantiates on a call with
//! all-active arguments (so a typo in a template fails here, not in a user's program).

use std::collections::HashSet;
use tangent::ad::rules::{instantiate, RuleSet, Site};
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
        "jax:",
    ];
    let mut seen = HashSet::new();
    for q in rules.adjoint_names() {
        assert!(prefixes.iter().any(|p| q.starts_with(p)), "{q}");
        assert!(seen.insert(q), "{q} twice");
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
