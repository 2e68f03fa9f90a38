//! Activity analysis: which variables depend on a differentiated input. Flow-insensitive
//! (a variable is active if any assignment to it reads an active value through a
//! differentiable operation), iterated to a fixed point. Conservative: an inactive
//! variable provably carries no gradient.

use crate::resolve::{Callee, Resolver};
use crate::rules::RuleSet;
use crate::syntax::ir::*;
use std::collections::HashSet;

pub struct Activity<'a> {
    pub resolver: &'a Resolver<'a>,
    pub rules: &'a RuleSet,
}

impl Activity<'_> {
    pub fn run(&self, body: &[Stmt], wrt: &[String]) -> HashSet<String> {
        let mut active: HashSet<String> = wrt.iter().cloned().collect();
        // Tapes an active value is pushed on: what is popped from them is active too
        // (a user's own `tangent.push(stack, a)` / `aa = tangent.pop(stack)`, as Google
        // Tangent's tests write them; in generated code the popped name is the pushed one).
        let mut tapes: HashSet<String> = HashSet::new();
        // (tape, name) of every push: a pop into a name pushed on the same tape restores
        // that name (generated code), whose activity is its own.
        let mut pushed: HashSet<(String, String)> = HashSet::new();
        walk_stmts(body, &mut |s| {
            if let StmtKind::ExprStmt(
                e @ Expr {
                    kind: ExprKind::Call { args, .. },
                    ..
                },
            ) = &s.kind
            {
                if let (true, Some(t), Some(v)) = (
                    crate::tape::is_tape_push(e),
                    args.first().and_then(|a| a.as_name()),
                    args.get(1).and_then(|a| a.as_name()),
                ) {
                    pushed.insert((t.to_owned(), v.to_owned()));
                }
            }
        });
        loop {
            let before = active.len() + tapes.len();
            walk_stmts(body, &mut |s| {
                if let StmtKind::ExprStmt(
                    e @ Expr {
                        kind: ExprKind::Call { args, .. },
                        ..
                    },
                ) = &s.kind
                {
                    if crate::tape::is_tape_push(e) {
                        if let (Some(tape), Some(v)) = (
                            args.first().and_then(|a| a.as_name()),
                            args.get(1).and_then(|a| a.as_name()),
                        ) {
                            if active.contains(v) {
                                tapes.insert(tape.to_owned());
                            }
                        }
                    }
                }
                if let StmtKind::Assign(target, value) = &s.kind {
                    let popped = matches!(&value.kind, ExprKind::Call { args, .. }
                    if crate::tape::is_tape_pop(value)
                        && args.first().and_then(|a| a.as_name()).is_some_and(|t| {
                            tapes.contains(t)
                                && !target.as_name().is_some_and(|n| {
                                    pushed.contains(&(t.to_owned(), n.to_owned()))
                                })
                        }));
                    if popped || self.value_active(value, &active) {
                        match &target.kind {
                            ExprKind::Name(n) => {
                                active.insert(n.clone());
                            }
                            ExprKind::Subscript(base, _) => {
                                if let Some(n) = base.as_name() {
                                    active.insert(n.to_owned());
                                }
                            }
                            _ => {}
                        }
                    }
                }
            });
            if active.len() + tapes.len() == before {
                return active;
            }
        }
    }

    /// Does this (ANF) right-hand side carry a gradient, given the active set?
    pub fn value_active(&self, e: &Expr, active: &HashSet<String>) -> bool {
        fn any<'e>(es: impl IntoIterator<Item = &'e Expr>, active: &HashSet<String>) -> bool {
            es.into_iter()
                .any(|x| x.as_name().is_some_and(|n| active.contains(n)))
        }
        match &e.kind {
            ExprKind::Name(n) => active.contains(n),
            ExprKind::BinOp(op, a, b) => {
                !self.rules.is_nondifferentiable(op.canonical()) && any([&**a, &**b], active)
            }
            ExprKind::Unary(UnaryOp::Not, _) => false,
            ExprKind::Unary(_, a) => any([&**a], active),
            ExprKind::Call { func, args, kwargs } => {
                let receiver = match &func.kind {
                    ExprKind::Attr(v, _) => Some(&**v),
                    _ => None,
                };
                let operands = args
                    .iter()
                    .chain(kwargs.iter().map(|(_, v)| v))
                    .chain(receiver);
                if !any(operands, active) {
                    return false;
                }
                match self.resolver.callee(func) {
                    Callee::Library(q) | Callee::Method(q) => !self.rules.is_nondifferentiable(&q),
                    _ => true,
                }
            }
            ExprKind::Attr(v, a) => {
                // An array attribute may be nondifferentiable (`x.shape`); anything else
                // read as `p.name` is a field, active with its structure.
                let q = self.rules.array_member(a);
                let array_fact = self.rules.is_array_attribute(&q)
                    && self.rules.is_nondifferentiable(&q)
                    && !self.resolver.is_object(v);
                !array_fact && any([&**v], active)
            }
            ExprKind::Subscript(v, _) => any([&**v], active),
            ExprKind::Tuple(es) | ExprKind::List(es) | ExprKind::Dict(_, es) => {
                any(es.iter(), active)
            }
            _ => false,
        }
    }
}

/// A call made for its effect (an expression statement) must not touch active values:
/// its effect would be invisible to the derivative. Calls declared `reads_only` in
/// `backends/` (printing, tangent's checks) only read their arguments.
pub fn check_effect(
    rules: &RuleSet,
    resolver: &Resolver,
    active: &HashSet<String>,
    e: &Expr,
) -> Result<(), crate::syntax::Diagnostic> {
    let ExprKind::Call { func, args, kwargs } = &e.kind else {
        return Ok(());
    };
    // The name as written counts too: the engine inserts tangent's checks itself, in
    // modules that may not import tangent.
    let reads_only = rules.reads_only(&crate::emit::printer::expr(func))
        || matches!(resolver.callee(func), Callee::Library(q) if rules.reads_only(&q));
    if reads_only {
        return Ok(());
    }
    let receiver = match &func.kind {
        ExprKind::Attr(v, _) => Some(&**v),
        _ => None,
    };
    let touches = args
        .iter()
        .chain(kwargs.iter().map(|(_, v)| v))
        .chain(receiver)
        .any(|a| a.as_name().is_some_and(|n| active.contains(n)));
    if touches {
        return Err(crate::syntax::Diagnostic::new(
            e.span,
            format!(
                "the call to `{}` is made for its side effect on a differentiated value, which cannot be differentiated",
                crate::emit::printer::expr(func)
            ),
            "assign the result to a variable instead of mutating in place (e.g. `xs = xs + [v]`)",
        ));
    }
    Ok(())
}
