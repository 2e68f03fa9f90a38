//! Default optimisations (`optimized=True`). Every pass leaves gradients unchanged.
//! - Tape-aware dead-code elimination: a value is pushed only if the backward pass reads
//!   it; a push is always removed together with the pop that consumes it.
//! - Constant folding of arithmetic on literals (`2 - 1` from a template).

pub mod egraph;
pub mod in_place;
pub mod recompute;
pub mod tape_liveness;

use crate::syntax::ir::*;
use crate::tape::{contains_pop, popped_var, pushed_var};
use std::collections::HashSet;

/// `live_out`: names read after the backward pass (the returned gradients).
pub fn optimize(fwd: Vec<Stmt>, bwd: Vec<Stmt>, live_out: &[String]) -> (Vec<Stmt>, Vec<Stmt>) {
    let mut bwd = bwd;
    let mut fwd = fwd;
    // Each pass can expose work for the others: iterate to a fixed point.
    loop {
        let before = (fwd.len(), count(&bwd), count(&fwd));
        bwd = remove_empty_ifs(bwd);
        bwd = propagate_copies(bwd);
        let live: HashSet<String> = live_out.iter().cloned().collect();
        bwd = dead_stores(bwd, &|_| true, &live).0;
        (fwd, bwd) = tape_dce(fwd, bwd);
        if before == (fwd.len(), count(&bwd), count(&fwd)) {
            break;
        }
    }
    let fold = |stmts: Vec<Stmt>| -> Vec<Stmt> {
        stmts
            .into_iter()
            .map(|mut s| {
                crate::syntax::visit::map_stmt_exprs(&mut s, &mut fold_expr);
                s
            })
            .collect()
    };
    (fold(fwd), fold(bwd))
}

/// Forward mode: constant folding, and removal of tangents nothing reads.
pub fn optimize_forward(body: Vec<Stmt>, tangents: &HashSet<String>) -> Vec<Stmt> {
    let body = dead_stores(body, &|n| tangents.contains(n), &HashSet::new()).0;
    let body = remove_empty_ifs(body);
    body.into_iter()
        .map(|mut s| {
            crate::syntax::visit::map_stmt_exprs(&mut s, &mut fold_expr);
            s
        })
        .collect()
}

/// Removes assignments that nothing reads afterwards, among the names `removable` accepts
/// (their right-hand sides are pure by construction: gradients, tangents). A pop from the
/// tape is never removed here (it keeps the tape aligned; see `tape_dce`). Loops that
/// `break`/`continue`/`return` are kept whole: liveness there depends on the path.
fn dead_stores(
    stmts: Vec<Stmt>,
    removable: &dyn Fn(&str) -> bool,
    live_out: &HashSet<String>,
) -> (Vec<Stmt>, HashSet<String>) {
    let mut live = live_out.clone();
    let mut out: Vec<Stmt> = Vec::new();
    for mut s in stmts.into_iter().rev() {
        let mut reads = Vec::new();
        match &mut s.kind {
            StmtKind::Assign(t, v) => {
                if let Some(n) = t.as_name() {
                    // A pop from the tape is never dead: it keeps the tape aligned.
                    if removable(n) && !live.contains(n) && !contains_pop(v) {
                        continue;
                    }
                    live.remove(n);
                } else if let ExprKind::Tuple(ts) = &t.kind {
                    for x in ts {
                        if let Some(n) = x.as_name() {
                            live.remove(n);
                        }
                    }
                } else {
                    t.names(&mut reads);
                }
                v.names(&mut reads);
            }
            StmtKind::If(t, a, b) => {
                let (na, la) = dead_stores(std::mem::take(a), removable, &live);
                let (nb, lb) = dead_stores(std::mem::take(b), removable, &live);
                *a = na;
                *b = nb;
                live = la.union(&lb).cloned().collect();
                t.names(&mut reads);
            }
            StmtKind::For(_, it, body) | StmtKind::While(it, body) if jumps(body) => {
                // A `break`/`continue`/`return` makes liveness path-dependent: keep the
                // loop as written and everything it reads live.
                walk_stmts(body, &mut |x| {
                    crate::syntax::visit::stmt_exprs(x, &mut |e| e.names(&mut reads))
                });
                it.names(&mut reads);
            }
            StmtKind::For(_, it, body) | StmtKind::While(it, body) => {
                let mut head = live.clone();
                let original = std::mem::take(body);
                loop {
                    let (_, l) = dead_stores(original.clone(), removable, &head);
                    let next: HashSet<String> = head.union(&l).cloned().collect();
                    if next == head {
                        break;
                    }
                    head = next;
                }
                let (nb, l) = dead_stores(original, removable, &head);
                *body = nb;
                live = head.union(&l).cloned().collect();
                it.names(&mut reads);
            }
            StmtKind::ExprStmt(e) | StmtKind::Return(Some(e)) => e.names(&mut reads),
            StmtKind::Assert(t, m) => {
                t.names(&mut reads);
                if let Some(m) = m {
                    m.names(&mut reads)
                }
            }
            _ => {}
        }
        live.extend(reads);
        out.push(s);
    }
    out.reverse();
    (out, live)
}

/// Names a statement may assign (targets, loop variables, subscript bases), nested
/// blocks included.
fn assigned(s: &Stmt) -> HashSet<String> {
    let mut out = HashSet::new();
    walk_stmts(std::slice::from_ref(s), &mut |x| {
        if let StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) =
            &x.kind
        {
            let mut v = Vec::new();
            match &t.kind {
                ExprKind::Subscript(base, _) => base.names(&mut v),
                _ => t.names(&mut v),
            }
            out.extend(v);
        }
    });
    out
}

/// Assignment propagation in the backward pass: after `a = b` (two names), later reads
/// of `a` in the same block read `b`, until either is assigned again. The copy itself is
/// then dead and `dead_stores` removes it.
fn propagate_copies(mut stmts: Vec<Stmt>) -> Vec<Stmt> {
    for s in &mut stmts {
        match &mut s.kind {
            StmtKind::If(_, a, b) => {
                *a = propagate_copies(std::mem::take(a));
                *b = propagate_copies(std::mem::take(b));
            }
            StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                *body = propagate_copies(std::mem::take(body));
            }
            _ => {}
        }
    }
    for i in 0..stmts.len() {
        let (a, b) = match &stmts[i].kind {
            StmtKind::Assign(t, v) => match (t.as_name(), v.as_name()) {
                (Some(a), Some(b)) if a != b => (a.to_owned(), b.to_owned()),
                _ => continue,
            },
            _ => continue,
        };
        let rename = |n: &str| (n == a).then(|| Expr::name(&b));
        for later in stmts.iter_mut().skip(i + 1) {
            let writes = assigned(later);
            let compound = matches!(
                later.kind,
                StmtKind::If(..) | StmtKind::For(..) | StmtKind::While(..)
            );
            if compound && (writes.contains(&a) || writes.contains(&b)) {
                break;
            }
            // The right-hand side is evaluated before the assignment: rename it first.
            match &mut later.kind {
                StmtKind::Assign(t, v) => {
                    v.rename(&rename);
                    if let ExprKind::Subscript(_, idx) = &mut t.kind {
                        idx.rename(&rename);
                    }
                }
                _ => crate::syntax::visit::map_stmt_exprs(later, &mut |e| {
                    let mut e = e.clone();
                    e.rename(&rename);
                    e
                }),
            }
            if writes.contains(&a) || writes.contains(&b) {
                break;
            }
        }
    }
    stmts
}

fn jumps(body: &[Stmt]) -> bool {
    let mut found = false;
    walk_stmts(body, &mut |s| {
        found |= matches!(
            s.kind,
            StmtKind::Break | StmtKind::Continue | StmtKind::Return(_)
        )
    });
    found
}

fn count(stmts: &[Stmt]) -> usize {
    let mut n = 0;
    walk_stmts(stmts, &mut |_| n += 1);
    n
}

/// Drops `if c: pass` (both branches empty) left behind when a rule was skipped.
fn remove_empty_ifs(stmts: Vec<Stmt>) -> Vec<Stmt> {
    let real = |b: &[Stmt]| b.iter().any(|s| !matches!(s.kind, StmtKind::Comment(_)));
    stmts
        .into_iter()
        .filter_map(|mut s| {
            match &mut s.kind {
                StmtKind::If(_, a, b) => {
                    *a = remove_empty_ifs(std::mem::take(a));
                    *b = remove_empty_ifs(std::mem::take(b));
                    if !real(a) && !real(b) {
                        return None;
                    }
                }
                StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                    *body = remove_empty_ifs(std::mem::take(body));
                }
                _ => {}
            }
            Some(s)
        })
        .collect()
}

fn reads_of(stmts: &[Stmt], keep: &HashSet<String>, out: &mut HashSet<String>) {
    for s in stmts {
        if let Some(v) = popped_var(s) {
            // A kept subscript restore reads its index.
            if keep.contains(&v) {
                if let StmtKind::Assign(t, _) = &s.kind {
                    if let ExprKind::Subscript(_, idx) = &t.kind {
                        let mut n = Vec::new();
                        idx.names(&mut n);
                        out.extend(n);
                    }
                }
            }
            continue;
        }
        let mut n = Vec::new();
        match &s.kind {
            StmtKind::Assign(t, v) => {
                if !matches!(t.kind, ExprKind::Name(_)) {
                    t.names(&mut n);
                }
                v.names(&mut n);
            }
            StmtKind::If(t, a, b) => {
                t.names(&mut n);
                reads_of(a, keep, out);
                reads_of(b, keep, out);
            }
            StmtKind::For(_, it, body) => {
                it.names(&mut n);
                reads_of(body, keep, out);
            }
            StmtKind::While(t, body) => {
                t.names(&mut n);
                reads_of(body, keep, out);
            }
            StmtKind::ExprStmt(e) | StmtKind::Return(Some(e)) => e.names(&mut n),
            StmtKind::Assert(t, m) => {
                t.names(&mut n);
                if let Some(m) = m {
                    m.names(&mut n)
                }
            }
            _ => {}
        }
        out.extend(n);
    }
}

fn filter(stmts: Vec<Stmt>, drop: &dyn Fn(&Stmt) -> bool) -> Vec<Stmt> {
    stmts
        .into_iter()
        .filter(|s| !drop(s))
        .map(|mut s| {
            match &mut s.kind {
                StmtKind::If(_, a, b) => {
                    *a = filter(std::mem::take(a), drop);
                    *b = filter(std::mem::take(b), drop);
                }
                StmtKind::For(_, _, body) | StmtKind::While(_, body) => {
                    *body = filter(std::mem::take(body), drop);
                }
                _ => {}
            }
            s
        })
        .collect()
}

/// Removes push/pop pairs of values the backward pass never reads.
fn tape_dce(fwd: Vec<Stmt>, bwd: Vec<Stmt>) -> (Vec<Stmt>, Vec<Stmt>) {
    let mut keep: HashSet<String> = HashSet::new();
    loop {
        let mut reads = HashSet::new();
        reads_of(&bwd, &keep, &mut reads);
        if reads == keep {
            break;
        }
        keep = reads;
    }
    let fwd = filter(fwd, &|s| pushed_var(s).is_some_and(|v| !keep.contains(&v)));
    // Checkpointed loops re-run segments (with pushes) inside the backward pass.
    let bwd = filter(bwd, &|s| {
        popped_var(s)
            .or_else(|| pushed_var(s))
            .is_some_and(|v| !keep.contains(&v))
    });
    (fwd, bwd)
}

fn num_value(e: &Expr) -> Option<(f64, bool)> {
    if let ExprKind::Unary(UnaryOp::Neg, a) = &e.kind {
        return num_value(a).map(|(v, is_int)| (-v, is_int));
    }
    if let ExprKind::Num(s) = &e.kind {
        let is_int = !s.contains(['.', 'e', 'E', 'j']);
        let cleaned = s.replace('_', "");
        let v: f64 = if is_int {
            cleaned.parse::<i64>().ok()? as f64
        } else {
            cleaned.parse().ok()?
        };
        return Some((v, is_int));
    }
    None
}

fn format_num(v: f64, is_int: bool) -> Option<String> {
    if !v.is_finite() {
        return None;
    }
    if is_int {
        return Some(format!("{}", v as i64));
    }
    let s = format!("{v:?}");
    Some(s)
}

/// Folds arithmetic between two number literals.
pub fn fold_expr(e: &Expr) -> Expr {
    let mut e = e.clone();
    crate::syntax::visit::substitute(&mut e, &mut |_| None);
    fold_in_place(&mut e);
    e
}

fn fold_in_place(e: &mut Expr) {
    match &mut e.kind {
        ExprKind::BinOp(op, a, b) => {
            fold_in_place(a);
            fold_in_place(b);
            if matches!(op, BinOp::Mul | BinOp::Div) {
                // A factor `v ** 1` (a power rule at exponent 2) is `v`: the product is
                // a new value either way, of the same type and bit for bit the same.
                for operand in [&mut *a, &mut *b] {
                    if let ExprKind::BinOp(BinOp::Pow, base, one) = &operand.kind {
                        if matches!(&one.kind, ExprKind::Num(n) if n == "1") {
                            **operand = (**base).clone();
                        }
                    }
                }
            }
            if let (Some((x, xi)), Some((y, yi))) = (num_value(a), num_value(b)) {
                let ints = xi && yi;
                let v = match op {
                    BinOp::Add => Some(x + y),
                    BinOp::Sub => Some(x - y),
                    BinOp::Mul => Some(x * y),
                    BinOp::Div if y != 0.0 => {
                        let r = x / y;
                        return *e = Expr::num(format_num(r, false).unwrap_or_default());
                    }
                    _ => None,
                };
                if let Some(v) = v {
                    if ints && v.abs() > 9.0e15 {
                        return;
                    }
                    if let Some(s) = format_num(v, ints) {
                        *e = Expr::new(ExprKind::Num(s), e.span);
                    }
                }
            }
        }
        ExprKind::Unary(_, a) | ExprKind::Attr(a, _) => fold_in_place(a),
        ExprKind::Call { func, args, kwargs } => {
            fold_in_place(func);
            args.iter_mut().for_each(fold_in_place);
            kwargs.iter_mut().for_each(|(_, v)| fold_in_place(v));
        }
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::BoolOp(_, es)
        | ExprKind::Dict(_, es) => es.iter_mut().for_each(fold_in_place),
        ExprKind::Subscript(a, b) => {
            fold_in_place(a);
            fold_in_place(b)
        }
        ExprKind::Compare(a, rest) => {
            fold_in_place(a);
            rest.iter_mut().for_each(|(_, x)| fold_in_place(x));
        }
        _ => {}
    }
}
