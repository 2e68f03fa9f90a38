//! The rewrites a `Program` applies to the functions it reads before typing them:
//! imports resolved to canonical names, shape tuples inlined, the module names read.

use super::*;

/// The plain names a function calls.
/// The names `def` reads that it does not bind (not parameters, not assigned), other
/// than functions it calls, objects whose attributes it reads (modules among them), the
/// builtins native code knows and the program's functions: module-level values.
pub(super) fn module_names_read(def: &FuncDef, functions: &[String]) -> Vec<String> {
    const BUILTINS: &[&str] = &["len", "range", "float", "int", "bool", "abs", "min", "max"];
    let mut bound: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
    walk_stmts(&def.body, &mut |s| match &s.kind {
        StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => {
            t.names(&mut bound)
        }
        StmtKind::With(items, _) => {
            for (_, t) in items.iter() {
                if let Some(t) = t {
                    t.names(&mut bound);
                }
            }
        }
        _ => {}
    });
    fn reads(e: &Expr, out: &mut Vec<String>) {
        match &e.kind {
            ExprKind::Name(n) => out.push(n.clone()),
            // A callee by name, or an attribute's object: not a value read here.
            ExprKind::Call { func, args, kwargs } => {
                if !matches!(func.kind, ExprKind::Name(_)) {
                    reads(func, out);
                }
                args.iter().for_each(|a| reads(a, out));
                kwargs.iter().for_each(|(_, a)| reads(a, out));
            }
            ExprKind::Attr(v, _) if matches!(v.kind, ExprKind::Name(_)) => {}
            _ => crate::syntax::lift::each_child(e, &mut |c| reads(c, out)),
        }
    }
    let mut read = Vec::new();
    walk_stmts(&def.body, &mut |s| {
        // Assignment targets come too: their names are bound, their subscripts read.
        crate::syntax::visit::stmt_exprs(s, &mut |e| reads(e, &mut read))
    });
    let mut out: Vec<String> = Vec::new();
    for n in read {
        if !bound.contains(&n)
            && !functions.contains(&n)
            && !BUILTINS.contains(&n.as_str())
            && !n.contains('.')
            && !out.contains(&n)
        {
            out.push(n);
        }
    }
    out
}

/// `_tuple = 2, n` followed at once by `m = np.zeros(_tuple)` (how the generated code
/// spells `np.zeros((2, n))`), with `_tuple` read nowhere else: the tuple is written
/// into the call and its assignment dropped, so the shape's values are the call's
/// arguments. Nothing runs between the two statements, so the values are the same.
pub(super) fn inline_shape_tuples(stmts: &mut [Stmt]) {
    let mut count = HashMap::new();
    fn count_reads(stmts: &[Stmt], count: &mut HashMap<String, usize>) {
        walk_stmts(stmts, &mut |s| {
            crate::syntax::visit::stmt_exprs(s, &mut |e| {
                e.walk(&mut |x| {
                    if let ExprKind::Name(n) = &x.kind {
                        *count.entry(n.clone()).or_insert(0) += 1;
                    }
                })
            })
        });
    }
    count_reads(stmts, &mut count);
    inline_in_block(stmts, &count);
}

fn inline_in_block(stmts: &mut [Stmt], count: &HashMap<String, usize>) {
    for i in 0..stmts.len() {
        inner_blocks(&mut stmts[i], &mut |b| inline_in_block(b, count));
        if i + 1 >= stmts.len() {
            continue;
        }
        let (name, tuple) = match &stmts[i].kind {
            StmtKind::Assign(
                Expr {
                    kind: ExprKind::Name(n),
                    ..
                },
                v @ Expr {
                    kind: ExprKind::Tuple(_),
                    ..
                },
            ) => (n.clone(), v.clone()),
            _ => continue,
        };
        // Written once (here) and read once (in the next statement's call).
        if count.get(&name) != Some(&2) {
            continue;
        }
        let mut done = false;
        crate::syntax::visit::stmt_exprs_mut(&mut stmts[i + 1], &mut |e| {
            each_call_arg(e, &mut |a| {
                if !done && a.as_name() == Some(name.as_str()) {
                    *a = tuple.clone();
                    done = true;
                }
            })
        });
        if done {
            stmts[i].kind = StmtKind::Pass;
        }
    }
}

/// The functions of `funcs` that return a tuple, and its length (every `return` a tuple
/// of that many values).
pub(super) fn tuple_result_counts(funcs: &HashMap<String, FuncDef>) -> HashMap<String, usize> {
    let mut counts = HashMap::new();
    for (name, def) in funcs {
        let mut lens = Vec::new();
        walk_stmts(&def.body, &mut |s| {
            if let StmtKind::Return(r) = &s.kind {
                lens.push(match r.as_ref().map(|e| &e.kind) {
                    Some(ExprKind::Tuple(es)) => es.len(),
                    _ => 0,
                });
            }
        });
        if let Some(&n) = lens.first() {
            if n >= 2 && lens.iter().all(|&l| l == n) {
                counts.insert(name.clone(), n);
            }
        }
    }
    counts
}

/// Calls `f` on each block directly inside `s` (an `if`'s two, a loop's or `with`'s body).
fn inner_blocks(s: &mut Stmt, f: &mut dyn FnMut(&mut [Stmt])) {
    match &mut s.kind {
        StmtKind::If(_, a, b) => {
            f(a);
            f(b);
        }
        StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) => f(body),
        _ => {}
    }
}

/// Calls `f` on every argument of every call in `e`.
fn each_call_arg(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    if let ExprKind::Call { args, .. } = &mut e.kind {
        for a in args.iter_mut() {
            f(a);
        }
    }
    crate::syntax::lift::each_child_mut(e, &mut |c| each_call_arg(c, f));
}

/// Replaces the module-level import names of `aliases` by what they import, wherever
/// `def` does not bind them itself.
pub(super) fn resolve_imports(def: &mut FuncDef, aliases: &HashMap<String, String>) {
    if aliases.is_empty() {
        return;
    }
    let mut locals: Vec<String> = def.params.iter().map(|p| p.name.clone()).collect();
    walk_stmts(&def.body, &mut |s| match &s.kind {
        StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => {
            t.names(&mut locals)
        }
        StmtKind::With(items, _) => {
            for (_, t) in items {
                if let Some(t) = t {
                    t.names(&mut locals);
                }
            }
        }
        _ => {}
    });
    let rename = |n: &str| -> Option<Expr> {
        if locals.iter().any(|l| l == n) {
            return None;
        }
        aliases.get(n).map(|q| Expr {
            kind: ExprKind::Name(q.clone()),
            span: Span::SYNTHETIC,
        })
    };
    crate::syntax::lift::each_expr_mut(&mut def.body, &mut |e| e.rename(&rename));
}

/// The parameters `def` reads by element (`p[i]`, `p[i, j]`, `len(p)`), with the
/// dimension count the reads show.
pub(super) fn indexed_params(def: &FuncDef) -> HashMap<&str, u8> {
    let mut out: HashMap<&str, u8> = HashMap::new();
    walk_stmts(&def.body, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                let (base, nd) = match &x.kind {
                    ExprKind::Subscript(base, index) if !matches!(index.kind, ExprKind::Str(_)) => {
                        let nd = match &index.kind {
                            ExprKind::Tuple(es) => es.len().min(2) as u8,
                            _ => 1,
                        };
                        (base.as_ref(), nd)
                    }
                    ExprKind::Call { func, args, .. }
                        if typing::callee_path(func).as_deref() == Some("len")
                            && args.len() == 1 =>
                    {
                        (&args[0], 1)
                    }
                    _ => return,
                };
                if let Some(p) = def
                    .params
                    .iter()
                    .find(|p| base.as_name() == Some(p.name.as_str()))
                {
                    let e = out.entry(p.name.as_str()).or_insert(nd);
                    *e = (*e).max(nd);
                }
            })
        })
    });
    out
}

pub(super) fn called_names(def: &FuncDef) -> Vec<String> {
    let mut out = Vec::new();
    walk_stmts(&def.body, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    if let Some(n) = func.as_name() {
                        out.push(n.to_owned());
                    }
                }
            })
        });
    });
    out
}

pub(super) fn literal_default(p: &Param) -> Option<Scalar> {
    match p.default.as_ref().map(|d| &d.kind) {
        Some(ExprKind::Num(t)) => match t.parse::<i64>() {
            Ok(i) => Some(Scalar::Int(i)),
            Err(_) => Some(Scalar::Float(t.parse().ok()?)),
        },
        Some(ExprKind::Bool(b)) => Some(Scalar::Bool(*b)),
        _ => None,
    }
}
