//! The traversals of the IR's statements that every stage shares: the expressions a
//! statement holds (`stmt_exprs`, `stmt_exprs_mut`), a rewrite of all of them through
//! nested blocks (`map_stmt_exprs`) and the replacement of sub-expressions
//! (`substitute`). `Expr::walk`/`Expr::rename` and `walk_stmts` (in `ir`) are the others.

use super::ir::*;

/// Calls `f` on each expression held directly by `s` (not in nested blocks).
pub fn stmt_exprs(s: &Stmt, f: &mut dyn FnMut(&Expr)) {
    match &s.kind {
        StmtKind::Assign(t, v) | StmtKind::AugAssign(t, _, v) => {
            f(t);
            f(v)
        }
        StmtKind::Return(Some(e)) | StmtKind::ExprStmt(e) => f(e),
        StmtKind::Assert(t, m) => {
            f(t);
            if let Some(m) = m {
                f(m)
            }
        }
        StmtKind::With(items, _) => {
            for (cm, target) in items {
                f(cm);
                if let Some(t) = target {
                    f(t)
                }
            }
        }
        StmtKind::If(t, ..) | StmtKind::While(t, _) => f(t),
        StmtKind::For(t, it, _) => {
            f(t);
            f(it)
        }
        _ => {}
    }
}

/// `stmt_exprs`, mutably.
pub fn stmt_exprs_mut(s: &mut Stmt, f: &mut dyn FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Assign(t, v) | StmtKind::AugAssign(t, _, v) => {
            f(t);
            f(v)
        }
        StmtKind::Return(Some(e)) | StmtKind::ExprStmt(e) => f(e),
        StmtKind::Assert(t, m) => {
            f(t);
            if let Some(m) = m {
                f(m)
            }
        }
        StmtKind::With(items, _) => {
            for (cm, target) in items.iter_mut() {
                f(cm);
                if let Some(t) = target {
                    f(t)
                }
            }
        }
        StmtKind::If(t, ..) | StmtKind::While(t, _) => f(t),
        StmtKind::For(t, it, _) => {
            f(t);
            f(it)
        }
        _ => {}
    }
}

/// Replaces every expression a statement holds, nested blocks included, by `f` of it.
pub fn map_stmt_exprs(s: &mut Stmt, f: &mut dyn FnMut(&Expr) -> Expr) {
    match &mut s.kind {
        StmtKind::Assign(t, v) => {
            *t = f(t);
            *v = f(v);
        }
        StmtKind::AugAssign(t, _, v) => {
            *t = f(t);
            *v = f(v);
        }
        StmtKind::Return(Some(e)) | StmtKind::ExprStmt(e) => *e = f(e),
        StmtKind::Assert(t, m) => {
            *t = f(t);
            if let Some(m) = m {
                *m = f(m);
            }
        }
        StmtKind::If(t, a, b) => {
            *t = f(t);
            a.iter_mut().for_each(|s| map_stmt_exprs(s, f));
            b.iter_mut().for_each(|s| map_stmt_exprs(s, f));
        }
        StmtKind::For(t, it, body) => {
            *t = f(t);
            *it = f(it);
            body.iter_mut().for_each(|s| map_stmt_exprs(s, f));
        }
        StmtKind::While(t, body) => {
            *t = f(t);
            body.iter_mut().for_each(|s| map_stmt_exprs(s, f));
        }
        StmtKind::With(items, body) => {
            for (cm, target) in items.iter_mut() {
                *cm = f(cm);
                if let Some(t) = target {
                    *t = f(t);
                }
            }
            body.iter_mut().for_each(|s| map_stmt_exprs(s, f));
        }
        _ => {}
    }
}

/// Replaces sub-expressions (outermost first) for which `f` returns Some.
pub fn substitute(e: &mut Expr, f: &mut dyn FnMut(&Expr) -> Option<Expr>) {
    if let Some(new) = f(e) {
        *e = new;
        return;
    }
    match &mut e.kind {
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::BoolOp(_, es)
        | ExprKind::Dict(_, es) => es.iter_mut().for_each(|x| substitute(x, f)),
        ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
            substitute(a, f);
            substitute(b, f)
        }
        ExprKind::Unary(_, a) | ExprKind::Attr(a, _) => substitute(a, f),
        ExprKind::Compare(a, rest) => {
            substitute(a, f);
            rest.iter_mut().for_each(|(_, x)| substitute(x, f))
        }
        ExprKind::Call { func, args, kwargs } => {
            substitute(func, f);
            args.iter_mut().for_each(|x| substitute(x, f));
            kwargs.iter_mut().for_each(|(_, x)| substitute(x, f));
        }
        ExprKind::Slice(a, b, c) => {
            for x in [a, b, c].into_iter().flatten() {
                substitute(x, f)
            }
        }
        ExprKind::IfExp { test, body, orelse } => {
            substitute(test, f);
            substitute(body, f);
            substitute(orelse, f)
        }
        ExprKind::Lambda(_, body) => substitute(body, f),
        ExprKind::ListComp(elt, gens) => {
            substitute(elt, f);
            for g in gens {
                substitute(&mut g.target, f);
                substitute(&mut g.iter, f);
                g.ifs.iter_mut().for_each(|e| substitute(e, f));
            }
        }
        _ => {}
    }
}
