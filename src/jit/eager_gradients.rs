//! Gradient arrays made before the loop that fills them. The generated adjoint starts an
//! array argument's gradient as None (`bx = None`) and makes it on the first
//! `bx = tangent.add_grad_at(bx, x, i, v)`, so a None check and a call to make the array
//! stay inside the backward loop, and a call inside a loop makes Cranelift keep the
//! loop's values in stack slots across every step. Where nothing else reads `bx`, None
//! and zeros shaped like `x` give the same results, so for the signature being compiled
//! a `bx = None` of the function's own block becomes `bx = tangent.init_grad(x)`.
//!
//! "Nothing else" is checked by counting: every occurrence of the name `bx` must be one
//! of those assignments, `bx = tangent.init_grad(x)`, the test of
//! `if bx is None: bx = tangent.init_grad(x)`, or a `return` of the function's own
//! block after such a test (so a None never reaches the caller either way), and `x` must
//! be an array parameter the function never assigns.

use super::typing::{callee_path, Ty};
use crate::syntax::ir::*;

const ADD_GRAD_AT: &str = "tangent.add_grad_at";
const INIT_GRAD: &str = "tangent.init_grad";

/// `def` with its array gradients made eagerly, or None when none qualifies. `ty_of`
/// gives the type of a parameter in this signature.
pub fn made_eagerly(def: &FuncDef, ty_of: &dyn Fn(&str) -> Option<Ty>) -> Option<FuncDef> {
    let mut eager: Vec<(String, String)> = Vec::new();
    for s in &def.body {
        let StmtKind::Assign(t, v) = &s.kind else {
            continue;
        };
        let (Some(g), ExprKind::NoneLit) = (t.as_name(), &v.kind) else {
            continue;
        };
        if eager.iter().any(|(n, _)| n == g) {
            continue;
        }
        if let Some(x) = like_of(def, g) {
            if matches!(ty_of(&x), Some(Ty::Array(_) | Ty::Array32(_))) {
                eager.push((g.to_owned(), x));
            }
        }
    }
    if eager.is_empty() {
        return None;
    }
    let mut out = def.clone();
    for s in &mut out.body {
        if let StmtKind::Assign(t, v) = &mut s.kind {
            let found = t
                .as_name()
                .and_then(|g| eager.iter().find(|(n, _)| n == g))
                .filter(|_| matches!(v.kind, ExprKind::NoneLit));
            if let Some((_, x)) = found {
                *v = Expr::call_path(INIT_GRAD, vec![Expr::name(x.as_str())]);
            }
        }
    }
    Some(out)
}

/// The parameter `x` whose zeros the gradient `g` may start as, when every use of `g`
/// fits (see the module's comment).
fn like_of(def: &FuncDef, g: &str) -> Option<String> {
    let mut like: Option<String> = None;
    let mut same_like = |x: &Expr| -> bool {
        let Some(x) = x.as_name() else {
            return false;
        };
        match &like {
            Some(l) => l == x,
            None => {
                like = Some(x.to_owned());
                true
            }
        }
    };
    // Occurrences of `g` accounted for by the shapes above, against all of them.
    let mut fitting = 0usize;
    let mut all = 0usize;
    let mut ok = true;
    walk_stmts(&def.body, &mut |s| {
        for e in stmt_exprs(s) {
            e.walk(&mut |e| all += usize::from(e.as_name() == Some(g)));
        }
        match &s.kind {
            StmtKind::Assign(t, v) if t.as_name() == Some(g) => {
                fitting += 1;
                match &v.kind {
                    ExprKind::NoneLit => {}
                    _ => match call_of(v) {
                        Some((INIT_GRAD, [x])) => ok &= same_like(x),
                        Some((ADD_GRAD_AT, [acc, x, i, v])) if acc.as_name() == Some(g) => {
                            fitting += 1;
                            ok &= same_like(x) && !i.reads(g) && !v.reads(g);
                        }
                        _ => ok = false,
                    },
                }
            }
            StmtKind::If(test, body, orelse) if is_none_test(test, g) => {
                fitting += 1;
                ok &= orelse.is_empty() && matches!(body.as_slice(), [b] if is_init(b, g));
            }
            _ => {}
        }
    });
    // Returns: only in the function's own block, after a test that makes `g`.
    let mut made = false;
    for s in &def.body {
        match &s.kind {
            StmtKind::If(test, _, _) if is_none_test(test, g) => made = true,
            StmtKind::Assign(t, _) if t.as_name() == Some(g) => made = false,
            StmtKind::Return(Some(r)) if made => fitting += returned(r, g),
            _ => {}
        }
    }
    let params: Vec<&str> = def.params.iter().map(|p| p.name.as_str()).collect();
    let like = like?;
    (ok && fitting == all && params.contains(&like.as_str()) && !binds(&def.body, &like))
        .then_some(like)
}

/// How many times `r` (a returned value) is the name `g`: itself or an element of a
/// returned tuple.
fn returned(r: &Expr, g: &str) -> usize {
    match &r.kind {
        ExprKind::Tuple(es) => es.iter().filter(|e| e.as_name() == Some(g)).count(),
        _ => usize::from(r.as_name() == Some(g)),
    }
}

/// `tangent.helper(args...)` without keywords: its path and arguments.
fn call_of(e: &Expr) -> Option<(&'static str, &[Expr])> {
    let ExprKind::Call { func, args, kwargs } = &e.kind else {
        return None;
    };
    if !kwargs.is_empty() {
        return None;
    }
    let path = callee_path(func)?;
    [ADD_GRAD_AT, INIT_GRAD]
        .into_iter()
        .find(|p| *p == path)
        .map(|p| (p, args.as_slice()))
}

fn is_none_test(test: &Expr, g: &str) -> bool {
    matches!(&test.kind, ExprKind::Compare(a, rest)
        if a.as_name() == Some(g)
            && matches!(rest.as_slice(), [(CmpOp::Is, n)] if matches!(n.kind, ExprKind::NoneLit)))
}

fn is_init(s: &Stmt, g: &str) -> bool {
    matches!(&s.kind, StmtKind::Assign(t, v)
        if t.as_name() == Some(g) && matches!(call_of(v), Some((INIT_GRAD, [_]))))
}

/// Whether any statement of `body` binds `name`.
fn binds(body: &[Stmt], name: &str) -> bool {
    let mut found = false;
    walk_stmts(body, &mut |s| match &s.kind {
        StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => {
            t.bound_names(&mut |n| found |= n == name)
        }
        StmtKind::With(items, _) => {
            for (_, t) in items {
                if let Some(t) = t {
                    t.bound_names(&mut |n| found |= n == name)
                }
            }
        }
        _ => {}
    });
    found
}

/// The expressions a statement holds directly (not those of its nested statements).
fn stmt_exprs(s: &Stmt) -> Vec<&Expr> {
    match &s.kind {
        StmtKind::Assign(a, b) | StmtKind::AugAssign(a, _, b) | StmtKind::For(a, b, _) => {
            vec![a, b]
        }
        StmtKind::Return(Some(e)) | StmtKind::ExprStmt(e) => vec![e],
        StmtKind::If(e, _, _) | StmtKind::While(e, _) => vec![e],
        StmtKind::Assert(e, m) => std::iter::once(e).chain(m.as_ref()).collect(),
        StmtKind::With(items, _) => items
            .iter()
            .flat_map(|(c, t)| std::iter::once(c).chain(t.as_ref()))
            .collect(),
        StmtKind::Return(None)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Pass
        | StmtKind::Comment(_) => vec![],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(src: &str) -> FuncDef {
        crate::syntax::SourceModule::parse("<test>", src)
            .expect("parses")
            .lower_function("f")
            .expect("lowers")
    }

    fn arrays(_: &str) -> Option<Ty> {
        Some(Ty::Array(1))
    }

    const FILLED: &str = "\
def f(x, n):
    bx = None
    for i in range(n):
        bx = tangent.add_grad_at(bx, x, i, 1.0)
    if bx is None:
        bx = tangent.init_grad(x)
    return bx
";

    #[test]
    fn a_gradient_filled_in_a_loop_starts_as_zeros() {
        let out = made_eagerly(&def(FILLED), &arrays).expect("rewritten");
        assert!(matches!(
            &out.body[0].kind,
            StmtKind::Assign(_, v) if matches!(call_of(v), Some((INIT_GRAD, [x])) if x.as_name() == Some("x"))
        ));
    }

    #[test]
    fn other_uses_keep_the_none() {
        for changed in [
            // Read by something else.
            FILLED.replace("return bx", "return tangent.add_grad(bx, bx)"),
            // Returned where it may still be None.
            FILLED.replace(
                "    if bx is None:\n        bx = tangent.init_grad(x)\n",
                "",
            ),
            // Shaped like another value.
            FILLED.replace("init_grad(x)", "init_grad(n)"),
            // `x` assigned in the function.
            FILLED.replace("    return bx", "    x = bx\n    return bx"),
            // The None test with an else.
            FILLED.replace(
                "        bx = tangent.init_grad(x)\n",
                "        bx = tangent.init_grad(x)\n    else:\n        bx = bx\n",
            ),
        ] {
            assert!(made_eagerly(&def(&changed), &arrays).is_none(), "{changed}");
        }
        // Not an array in this signature.
        assert!(made_eagerly(&def(FILLED), &|_| Some(Ty::Float)).is_none());
    }
}
