//! Tape liveness (`optimizations={'tape_liveness': True}`): a value the backward pass
//! reads only for its shape or dtype is pushed as a small shape carrier
//! (`tangent.shape_of(v)`) instead of the whole array.
//!
//! Safety argument (reaching definitions): the tape entry pushed for `v` reaches exactly
//! the backward reads of `v` that follow its pop and precede the next assignment to `v`.
//! The pass only rewrites a push when *every* backward read of `v` is in a shape-only
//! position, so whichever tape entry reaches a read, the read needs only the shape.

use crate::rules::RuleSet;
use crate::syntax::ir::*;

/// Counts the reads of `v` in `e`: (all reads, reads in shape-only positions).
/// The positions come from the `shape_only(...)` declarations of `backends/`.
fn count_reads(rules: &RuleSet, e: &Expr, v: &str, all: &mut usize, shape_only: &mut usize) {
    if let ExprKind::Call { func, args, kwargs } = &e.kind {
        let positions = rules.shape_only_args(&crate::emit::printer::expr(func));
        for (i, a) in args.iter().enumerate() {
            if a.as_name() == Some(v) && positions.contains(&i) {
                *all += 1;
                *shape_only += 1;
            } else {
                count_reads(rules, a, v, all, shape_only);
            }
        }
        for (_, a) in kwargs {
            count_reads(rules, a, v, all, shape_only);
        }
        count_reads(rules, func, v, all, shape_only);
        return;
    }
    if e.as_name() == Some(v) {
        *all += 1;
        return;
    }
    let mut children = Vec::new();
    match &e.kind {
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::BoolOp(_, es)
        | ExprKind::Dict(_, es) => children.extend(es.iter()),
        ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
            children.push(a);
            children.push(b)
        }
        ExprKind::Unary(_, a) | ExprKind::Attr(a, _) => children.push(a),
        ExprKind::Compare(a, rest) => {
            children.push(a);
            children.extend(rest.iter().map(|(_, x)| x));
        }
        ExprKind::IfExp { test, body, orelse } => {
            children.push(test);
            children.push(body);
            children.push(orelse);
        }
        ExprKind::Slice(a, b, c) => children.extend([a, b, c].into_iter().flatten().map(|x| &**x)),
        _ => {}
    }
    for c in children {
        count_reads(rules, c, v, all, shape_only);
    }
}

fn is_pop_of(s: &Stmt, v: &str) -> bool {
    matches!(&s.kind, StmtKind::Assign(t, value)
        if t.as_name() == Some(v) && crate::tape::is_stack_call(value, "pop"))
}

fn pops(stmts: &[Stmt], v: &str) -> bool {
    let mut found = false;
    walk_stmts(stmts, &mut |s| found |= is_pop_of(s, v));
    found
}

/// Are the reads of `v` in one simple statement all shape-only?
fn reads_shape_only(rules: &RuleSet, s: &Stmt, v: &str) -> bool {
    let (mut all, mut shape) = (0usize, 0usize);
    crate::syntax::visit::stmt_exprs(s, &mut |e| count_reads(rules, e, v, &mut all, &mut shape));
    if let StmtKind::Assign(t, _) = &s.kind {
        if t.as_name() == Some(v) {
            all = all.saturating_sub(1); // the target is a write
        }
    }
    all == shape
}

/// Reaching definitions, structured: a read of `v` can see a value from the tape only
/// after a pop of `v` (in program order, or anywhere in an enclosing loop's body, which
/// runs again). Returns whether every such read is shape-only; `popped` tracks whether a
/// pop may already have happened.
fn tape_reads_shape_only(rules: &RuleSet, stmts: &[Stmt], v: &str, popped: &mut bool) -> bool {
    for s in stmts {
        if is_pop_of(s, v) {
            *popped = true;
            continue;
        }
        match &s.kind {
            StmtKind::If(t, a, b) => {
                if *popped && t.reads(v) {
                    return false;
                }
                let (mut pa, mut pb) = (*popped, *popped);
                if !tape_reads_shape_only(rules, a, v, &mut pa)
                    || !tape_reads_shape_only(rules, b, v, &mut pb)
                {
                    return false;
                }
                *popped = pa || pb;
            }
            StmtKind::For(_, it, body) | StmtKind::While(it, body) => {
                let mut inner = *popped || pops(body, v);
                if inner && it.reads(v) {
                    return false;
                }
                if !tape_reads_shape_only(rules, body, v, &mut inner) {
                    return false;
                }
                *popped = inner;
            }
            _ => {
                if *popped && !reads_shape_only(rules, s, v) {
                    return false;
                }
            }
        }
    }
    true
}

/// Is every backward read of `v` that a tape entry can reach shape-only?
pub(crate) fn shape_only_in_backward(rules: &RuleSet, bwd: &[Stmt], v: &str) -> bool {
    tape_reads_shape_only(rules, bwd, v, &mut false)
}

/// Rewrites `tangent.push(_stack, v)` into `tangent.push(_stack, tangent.shape_of(v))`
/// for every `v` the backward pass reads only for its shape.
pub fn apply(rules: &RuleSet, fwd: Vec<Stmt>, bwd: &[Stmt]) -> Vec<Stmt> {
    let mut cache: std::collections::HashMap<String, bool> = Default::default();
    fn rewrite(
        rules: &RuleSet,
        stmts: Vec<Stmt>,
        bwd: &[Stmt],
        cache: &mut std::collections::HashMap<String, bool>,
    ) -> Vec<Stmt> {
        stmts
            .into_iter()
            .map(|mut s| {
                match &mut s.kind {
                    StmtKind::ExprStmt(e) if crate::tape::is_stack_call(e, "push") => {
                        if let ExprKind::Call { args, .. } = &mut e.kind {
                            if let Some(v) =
                                args.get(1).and_then(|a| a.as_name()).map(str::to_owned)
                            {
                                let ok = *cache
                                    .entry(v.clone())
                                    .or_insert_with(|| shape_only_in_backward(rules, bwd, &v));
                                if ok {
                                    args[1] =
                                        Expr::call_path("tangent.shape_of", vec![Expr::name(&v)]);
                                }
                            }
                        }
                    }
                    StmtKind::If(_, a, b) => {
                        *a = rewrite(rules, std::mem::take(a), bwd, cache);
                        *b = rewrite(rules, std::mem::take(b), bwd, cache);
                    }
                    StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                        *body = rewrite(rules, std::mem::take(body), bwd, cache);
                    }
                    _ => {}
                }
                s
            })
            .collect()
    }
    rewrite(rules, fwd, bwd, &mut cache)
}
