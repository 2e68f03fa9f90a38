//! Gradient helpers that change their first argument in place where nothing else can see
//! it. A helper declared `in_place(f, g)` in backends/ returns its first argument changed
//! (`f` on a copy, `g` on the argument itself). `g` is written at `n = f(n, ...)` (or
//! `f(None, ...)`) when the function's name `n` is the only holder of the values it
//! names: every value bound to `n` is new (None, `tangent.init_grad(...)`, a helper's
//! result, an `unbroadcast` of arithmetic: the helpers then copy a read-only view on
//! their first call) and `n` is read nowhere but as such a call's first argument, in `return`, and
//! where the value read is used up at once (an operand of arithmetic or of a comparison,
//! `n is None`, an index, `tangent.copy`). A second name, a tape entry, a container or a callee could otherwise
//! see the change (the tape keeps what a push gave it); there `f` stays, and a `g` the
//! input had (a derivative of generated code) turns back into `f`.
//!
//! Without it a loop that reads `x[t]` copies the whole gradient of `x` at every step
//! (quadratic time in the interpreted code; native code decides on its own, see
//! jit/array_types.rs `ownership`).

use crate::rules::{NativeScalar, RuleSet};
use crate::syntax::ir::*;
use crate::syntax::visit::stmt_exprs;
use std::collections::HashSet;

/// The helper that makes a new value (a zero gradient) of the generated code.
const NEW_GRADIENT: &str = "tangent.init_grad";
/// The helper that copies a value.
const COPY: &str = "tangent.copy";

/// Writes each in-place helper call of `def` as the variant its name allows.
pub fn apply(def: &mut FuncDef, rules: &RuleSet) {
    let mut targets = HashSet::new();
    walk_stmts(&def.body, &mut |s| {
        if let Some((n, _)) = helper_assignment(s, rules) {
            targets.insert(n.to_owned());
        }
    });
    let owned: HashSet<String> = targets
        .into_iter()
        .filter(|n| sole_holder(def, n, rules))
        .collect();
    rewrite(&mut def.body, &owned, rules);
}

/// `(n, copying helper)` if `s` is `n = f(...)` or `n = g(...)` for an `in_place(f, g)`.
fn helper_assignment<'a>(s: &'a Stmt, rules: &'a RuleSet) -> Option<(&'a str, &'a str)> {
    let StmtKind::Assign(t, v) = &s.kind else {
        return None;
    };
    let ExprKind::Call { func, .. } = &v.kind else {
        return None;
    };
    let path = crate::emit::printer::expr(func);
    let copying = match rules.copying_variant(&path) {
        Some(f) => f,
        None => rules.copying_variant(rules.in_place_variant(&path)?)?,
    };
    Some((t.as_name()?, copying))
}

/// The positional arguments of `v` if it is a call without keyword arguments.
fn call_args(v: &Expr) -> Option<&[Expr]> {
    match &v.kind {
        ExprKind::Call { args, kwargs, .. } if kwargs.is_empty() => Some(args),
        _ => None,
    }
}

/// How many times `e` reads `n` where the value read, or a view of it, may outlive the
/// expression (`consumed`: `e`'s own value is used up by its parent: an operand of
/// arithmetic or a comparison, which makes a new value, or an index).
fn escapes(e: &Expr, n: &str, consumed: bool) -> usize {
    let mut count = 0;
    match &e.kind {
        ExprKind::Name(m) => return usize::from(m == n && !consumed),
        // `n[i]`, `n.T`: possibly a view of `n`, kept if it is kept.
        ExprKind::Subscript(base, index) => {
            return escapes(base, n, consumed) + escapes(index, n, true)
        }
        ExprKind::Attr(base, _) => return escapes(base, n, consumed),
        // A copy is a new value.
        ExprKind::Call { func, args, kwargs }
            if kwargs.is_empty() && crate::emit::printer::expr(func) == COPY =>
        {
            return args.iter().map(|a| escapes(a, n, true)).sum()
        }
        ExprKind::BinOp(..) | ExprKind::Unary(..) | ExprKind::Compare(..) | ExprKind::Slice(..) => {
            crate::syntax::lift::each_child(e, &mut |c| count += escapes(c, n, true))
        }
        ExprKind::Dict(keys, _) => {
            count += keys.iter().map(|k| escapes(k, n, false)).sum::<usize>();
            crate::syntax::lift::each_child(e, &mut |c| count += escapes(c, n, false))
        }
        _ => crate::syntax::lift::each_child(e, &mut |c| count += escapes(c, n, false)),
    }
    count
}

/// How many times `e` reads `n` so that the value may outlive it (see `escapes`).
fn reads(e: &Expr, n: &str) -> usize {
    escapes(e, n, false)
}

/// Is `n` the only holder of every value it names in `def` (see the module's comment)?
fn sole_holder(def: &FuncDef, n: &str, rules: &RuleSet) -> bool {
    if def.params.iter().any(|p| p.name == n) || def.vararg.as_deref() == Some(n) {
        return false;
    }
    let mut ok = true;
    walk_stmts(&def.body, &mut |s| {
        if !ok {
            return;
        }
        let StmtKind::Assign(t, v) = &s.kind else {
            match &s.kind {
                StmtKind::Return(_) => {}
                // A test's value is used up by the test.
                StmtKind::If(test, ..) | StmtKind::While(test, _) => {
                    ok &= escapes(test, n, true) == 0
                }
                _ => stmt_exprs(s, &mut |e| ok &= reads(e, n) == 0),
            }
            return;
        };
        let args = call_args(v);
        let rest_clean =
            |from: usize| args.is_some_and(|a| a.iter().skip(from).all(|e| reads(e, n) == 0));
        ok = if helper_assignment(s, rules).is_some() {
            // A helper's first argument is changed in place only when it is the name the
            // call rebinds (written so below); anything else there is copied.
            rest_clean(1)
        } else if t.as_name() == Some(n) {
            match &v.kind {
                ExprKind::NoneLit => true,
                ExprKind::Call { func, args, .. } => {
                    let path = crate::emit::printer::expr(func);
                    if path == NEW_GRADIENT {
                        rest_clean(0)
                    } else {
                        // The gradient of a broadcast operand (`unbroadcast` and its kind
                        // in backends/) is its first argument, a view of it or a new
                        // array: new when that argument is (arithmetic makes a new value).
                        matches!(
                            rules.native_scalar(&path),
                            Some(NativeScalar::Unbroadcast { .. })
                        ) && args.first().is_some_and(|g| {
                            matches!(g.kind, ExprKind::BinOp(..) | ExprKind::Unary(..))
                        }) && rest_clean(0)
                    }
                }
                _ => false,
            }
        } else {
            reads(t, n) == 0 && reads(v, n) == 0
        };
    });
    ok
}

/// Names each helper call `n = f(...)` / `n = g(...)` as `g` when `n` is in `owned` and
/// the call's first argument is `n` or None, and every other call of a `g` as its `f`.
fn rewrite(body: &mut [Stmt], owned: &HashSet<String>, rules: &RuleSet) {
    copying_helpers(body, rules);
    for s in body {
        match &mut s.kind {
            StmtKind::If(_, a, b) => {
                rewrite(a, owned, rules);
                rewrite(b, owned, rules);
                continue;
            }
            StmtKind::For(_, _, b) | StmtKind::While(_, b) | StmtKind::With(_, b) => {
                rewrite(b, owned, rules);
                continue;
            }
            _ => {}
        }
        let Some((n, copying)) = helper_assignment(s, rules) else {
            continue;
        };
        let Some(variant) = rules.in_place_variant(copying) else {
            continue;
        };
        if !owned.contains(n) {
            continue;
        }
        let n = n.to_owned();
        let StmtKind::Assign(_, v) = &mut s.kind else {
            continue;
        };
        let ExprKind::Call { func, args, .. } = &mut v.kind else {
            continue;
        };
        let first_is_own = args.first().is_some_and(|a| {
            a.as_name() == Some(n.as_str()) || matches!(a.kind, ExprKind::NoneLit)
        });
        if first_is_own {
            **func = path_expr(variant, func.span);
        }
    }
}

/// The expression `a.b.c` for the dotted `path`, at `span`.
fn path_expr(path: &str, span: Span) -> Expr {
    Expr {
        span,
        ..Expr::path(path)
    }
}

/// Every call of an in-place variant (`in_place(f, g)` in backends/) written as its
/// helper `f`, which copies: what a derivative of generated code starts from, and how the
/// native compiler reads them (it changes arrays in place where its own `ownership`
/// check allows).
pub fn copying_helpers(body: &mut [Stmt], rules: &RuleSet) {
    crate::syntax::lift::each_expr_mut(body, &mut |e| {
        crate::syntax::visit::substitute(e, &mut |x| {
            if !matches!(x.kind, ExprKind::Attr(..)) {
                return None;
            }
            let copying = rules.copying_variant(&crate::emit::printer::expr(x))?;
            Some(path_expr(copying, x.span))
        })
    });
}

#[cfg(test)]
mod tests {
    use crate::rules::RuleSet;
    use crate::syntax::SourceModule;

    /// `f`'s source after the pass, with the built-in rules' `in_place` declarations.
    fn after(src: &str) -> String {
        let module = SourceModule::parse("<test>", src).unwrap();
        let mut def = module.lower_function("f").unwrap();
        super::apply(&mut def, RuleSet::builtin());
        crate::emit::printer::function(&def)
    }

    const VARIANT: &str = "tangent.add_grad_at_in_place(";

    #[test]
    fn a_sole_holder_is_changed_in_place() {
        let out = after(
            "def f(x, v):\n    g = None\n    for t in range(3):\n        g = tangent.add_grad_at(g, x, t, g[1:] if g is not None else v)\n    if g is None:\n        g = tangent.init_grad(x)\n    return g\n",
        );
        assert!(
            !out.contains(VARIANT),
            "the value may be a view of g:\n{out}"
        );
        // A value made from g's elements is a new one.
        let out = after(
            "def f(x, v):\n    g = None\n    for t in range(3):\n        g = tangent.add_grad_at(g, x, t, v * g[t] if g is not None else v)\n    return g\n",
        );
        assert!(out.contains(VARIANT), "{out}");
        let out = after(
            "def f(x, v):\n    g = None\n    for t in range(3):\n        g = tangent.add_grad_at(g, x, t, v)\n        s = g * 2.0 + g[0]\n        if g[t] > 0.0:\n            g = tangent.zero_grad_at(g, t)\n    if g is None:\n        g = tangent.init_grad(x)\n    return g, s\n",
        );
        assert_eq!(out.matches(VARIANT).count(), 1, "{out}");
        assert!(out.contains("tangent.zero_grad_at_in_place(g, t)"), "{out}");
    }

    #[test]
    fn a_second_holder_keeps_the_copy() {
        for holder in [
            "h = g",
            "tangent.push(_stack, g)",
            "h = [g]",
            "h = helper(g)",
            "h = g.T",
            "h = (lambda: g)",
            "h = g if v else x",
            "h = tangent.add_grad_at(x, x, 0, g)",
        ] {
            let out = after(&format!(
                "def f(x, v):\n    g = tangent.add_grad_at(None, x, 0, v)\n    {holder}\n    g = tangent.add_grad_at(g, x, 1, v)\n    return g, h\n"
            ));
            assert!(!out.contains(VARIANT), "{holder}:\n{out}");
        }
    }

    #[test]
    fn values_not_known_to_be_new_keep_the_copy() {
        for binding in [
            "g = v",
            "g = tangent.add_grad(None, v)",
            "g = tangent.unbroadcast(v, x)",
            "g = tangent.pop(_stack)",
            "g, h = v, v",
        ] {
            let out = after(&format!(
                "def f(x, v):\n    {binding}\n    g = tangent.add_grad_at(g, x, 1, v)\n    return g\n"
            ));
            assert!(!out.contains(VARIANT), "{binding}:\n{out}");
        }
        // A parameter (a seed) is the caller's.
        let out = after("def f(x, g):\n    g = tangent.add_grad_at(g, x, 1, 2.0)\n    return g\n");
        assert!(!out.contains(VARIANT), "{out}");
    }

    #[test]
    fn a_copy_read_and_an_unbroadcast_of_arithmetic_keep_the_name_sole() {
        let out = after(
            "def f(x, v, u):\n    g = tangent.unbroadcast(v * 2.0, u)\n    for t in range(3):\n        h = tangent.copy(g[t])\n        g = tangent.zero_grad_at(g, t)\n    return g, h\n",
        );
        assert!(
            out.contains("g = tangent.zero_grad_at_in_place(g, t)"),
            "{out}"
        );
        // `unreduce` of a name may be that name's value.
        let out = after(
            "def f(x, v, u):\n    g = tangent.unreduce(v, u, None, False)\n    g = tangent.zero_grad_at(g, 0)\n    return g\n",
        );
        assert!(!out.contains("_in_place"), "{out}");
    }

    #[test]
    fn a_copy_into_another_name_leaves_both_owned() {
        let out = after(
            "def f(x, v):\n    g = tangent.add_grad_at(None, x, 0, v)\n    h = tangent.add_grad_at(g, x, 1, v)\n    h = tangent.add_grad_at(h, x, 2, v)\n    g = tangent.add_grad_at(g, x, 2, v)\n    return g, h\n",
        );
        assert!(out.contains("h = tangent.add_grad_at(g, x, 1, v)"), "{out}");
        assert!(
            out.contains("h = tangent.add_grad_at_in_place(h, x, 2, v)"),
            "{out}"
        );
        assert!(
            out.contains("g = tangent.add_grad_at_in_place(g, x, 2, v)"),
            "{out}"
        );
    }

    #[test]
    fn a_variant_where_a_second_name_holds_the_value_is_copied_again() {
        let out = after(
            "def f(x, v):\n    g = tangent.add_grad_at_in_place(None, x, 0, v)\n    tangent.push(_stack, g)\n    g = tangent.add_grad_at_in_place(g, x, 1, v)\n    return helper(tangent.add_grad_at_in_place(g, x, 2, v))\n",
        );
        assert!(!out.contains("_in_place"), "{out}");
    }
}
