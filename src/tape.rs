//! The tape of generated code: the statements that save a value on it
//! (`tangent.push(_stack, v)`) and restore it (`v = tangent.pop(_stack)`), how to
//! recognise them, and which names a pass pushes. The reverse pass writes them, the
//! optimisations remove or keep them in pairs, the native compiler replaces them.

use crate::syntax::ir::*;
use std::collections::HashSet;

/// The helper that saves a value on a tape, as generated code calls it.
pub const PUSH: &str = "tangent.push";
/// The helper that takes the last value back from a tape.
pub const POP: &str = "tangent.pop";

/// Is this `tangent.pop(...)` (a restore from the tape in generated code)?
pub fn is_tape_pop(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, .. }
        if matches!(&func.kind, ExprKind::Attr(m, f) if m.as_name() == Some("tangent") && f == "pop"))
}

/// Is this `tangent.push(...)` (a save to the tape in generated code)?
pub fn is_tape_push(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { func, .. }
        if matches!(&func.kind, ExprKind::Attr(m, f) if m.as_name() == Some("tangent") && f == "push"))
}

/// The tape a `tangent.push`/`tangent.pop` call uses (its first argument).
pub fn tape_of(e: &Expr) -> Option<&str> {
    match &e.kind {
        ExprKind::Call { args, .. } => args.first().and_then(|a| a.as_name()),
        _ => None,
    }
}

/// `tangent.push(_stack, value)`.
pub fn push(value: Expr) -> Stmt {
    push_on(Expr::name("_stack"), value)
}

/// `tangent.push(tape, value)`, on any tape (a loop's, the adjoint tape).
pub fn push_on(tape: Expr, value: Expr) -> Stmt {
    Stmt::synth(StmtKind::ExprStmt(Expr::call_path(PUSH, vec![tape, value])))
}

/// `tangent.pop(tape)`.
pub fn pop_from(tape: Expr) -> Expr {
    Expr::call_path(POP, vec![tape])
}

/// `target = tangent.pop(_stack)`.
pub fn pop_into(target: Expr) -> Stmt {
    Stmt::synth(StmtKind::Assign(target, pop_from(Expr::name("_stack"))))
}

/// Does evaluating `e` pop the tape (an effect no dead-code pass may remove)? A call
/// handed our tape (a recursive callee's two-phase gradient) may pop it.
pub fn contains_pop(e: &Expr) -> bool {
    let mut found = false;
    // Any tape: ours, an inner one of differentiated generated code, the adjoint tape.
    e.walk(&mut |x| found |= is_tape_pop(x) || hands_stack(x));
    found
}

/// A call with `_stack=_stack` among its keyword arguments.
pub fn hands_stack(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Call { kwargs, .. }
        if kwargs.iter().any(|(k, v)| k == "_stack" && v.as_name() == Some("_stack")))
}

/// Does the code hand our tape to a callee (so the function needs one)?
pub fn passes_stack(stmts: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(stmts, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| e.walk(&mut |x| found |= hands_stack(x)))
    });
    found
}

/// A call `tangent.<helper>(_stack, ...)` on our tape.
pub fn is_stack_call(e: &Expr, helper: &str) -> bool {
    if let ExprKind::Call { func, args, .. } = &e.kind {
        if let ExprKind::Attr(m, name) = &func.kind {
            return m.as_name() == Some("tangent")
                && name == helper
                && args.first().and_then(|a| a.as_name()) == Some("_stack");
        }
    }
    false
}

/// The variable whose value a `tangent.push(_stack, ...)` statement saves.
pub fn pushed_var(s: &Stmt) -> Option<String> {
    let StmtKind::ExprStmt(e) = &s.kind else {
        return None;
    };
    if !is_stack_call(e, "push") {
        return None;
    }
    let ExprKind::Call { args, .. } = &e.kind else {
        return None;
    };
    base_var(args.get(1)?)
}

/// `x`, `x[i]`, `tangent.copy(x[i])` -> `x`.
pub fn base_var(e: &Expr) -> Option<String> {
    match &e.kind {
        ExprKind::Name(n) => Some(n.clone()),
        ExprKind::Subscript(b, _) => base_var(b),
        ExprKind::Call { args, .. } if args.len() == 1 => base_var(&args[0]),
        _ => None,
    }
}

/// The variable a `... = tangent.pop(_stack)` statement restores.
pub fn popped_var(s: &Stmt) -> Option<String> {
    let StmtKind::Assign(t, v) = &s.kind else {
        return None;
    };
    if !is_stack_call(v, "pop") {
        return None;
    }
    base_var(t)
}

/// Does the forward pass push anything?
pub fn uses_stack(fwd: &[Stmt]) -> bool {
    !pushed_names(fwd).is_empty()
}

/// The variables the forward pass pushes.
pub fn pushed_names(fwd: &[Stmt]) -> HashSet<String> {
    let mut out = HashSet::new();
    walk_stmts(fwd, &mut |s| {
        if let Some(v) = pushed_var(s) {
            out.insert(v);
        }
    });
    out
}

/// Names pushed (as whole values) at a point where they may not be bound yet.
pub fn maybe_unbound_pushes(
    fwd: &[Stmt],
    params: &[String],
    _pushed: &HashSet<String>,
) -> Vec<String> {
    fn visit(stmts: &[Stmt], defined: &mut HashSet<String>, out: &mut Vec<String>) {
        for s in stmts {
            if let StmtKind::ExprStmt(e) = &s.kind {
                if is_stack_call(e, "push") {
                    if let ExprKind::Call { args, .. } = &e.kind {
                        // `v` itself, or `tangent.shape_of(v)` (tape liveness).
                        let whole = args.get(1).and_then(|a| match &a.kind {
                            ExprKind::Call { args: inner, .. } if inner.len() == 1 => {
                                inner[0].as_name()
                            }
                            _ => a.as_name(),
                        });
                        if let Some(n) = whole {
                            if !defined.contains(n) && !out.iter().any(|o| o == n) {
                                out.push(n.to_owned());
                            }
                        }
                    }
                }
            }
            match &s.kind {
                StmtKind::Assign(t, _) => {
                    if let Some(n) = t.as_name() {
                        defined.insert(n.to_owned());
                    }
                }
                StmtKind::If(_, a, b) => {
                    visit(a, &mut defined.clone(), out);
                    visit(b, &mut defined.clone(), out);
                }
                StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                    visit(body, &mut defined.clone(), out);
                }
                _ => {}
            }
        }
    }
    let mut defined: HashSet<String> = params.iter().cloned().collect();
    let mut out = Vec::new();
    visit(fwd, &mut defined, &mut out);
    out
}
