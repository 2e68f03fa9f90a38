//! A class's `__init__` as the function that computes the object's fields: `self.a = e`
//! becomes the local `self_a = e`, reads of `self.a` read that local, and the function
//! returns `{'a': self_a, ...}`. Differentiating it carries the gradient of an object
//! built inside a differentiated function (a gradient with the object's fields) back to
//! the constructor's arguments (`tangent.construct_grad` in `tangent/_methods.py`).
//!
//! The object itself is still built by the real constructor; this function only has to
//! compute the same field values. So it accepts the `__init__`s whose fields are plain
//! values of its arguments: every field assigned first at the top level of the body
//! (later reassignments may be anywhere), `self` used only to assign and read the fields
//! it has assigned, no `return`. A parent's constructor called at the top level
//! (`super().__init__(...)`, `Base.__init__(self, ...)`) gives its fields as a dict
//! (`tangent.parent_fields`, differentiated the same way at run time); fields read after
//! it that this `__init__` has not assigned are read from it, and the result is the
//! parent's fields updated with this one's (`tangent.merge_fields`). Anything else is a
//! located error.

use super::diag::Diagnostic;
use super::ir::*;
use super::lift::each_child_mut;
use std::collections::HashSet;

/// Rewrites `def` (a lowered `__init__`, whose attribute assignments to its first
/// parameter the lowering kept as `self.a = ...` targets) into the function of its other
/// parameters that returns its fields. With `post`, `def` is a dataclass's
/// `__post_init__`: its object's fields so far (set by the dataclass's `__init__`) are
/// its first parameter, a dict, read like a parent's fields.
pub fn fields_function(def: &mut FuncDef, post: bool) -> Result<(), Diagnostic> {
    let Some(first) = def.params.first() else {
        return Err(Diagnostic::new(
            def.span,
            "this `__init__` has no `self` parameter",
            "give the constructor its object as the first parameter",
        ));
    };
    let me = first.name.clone();
    def.params.remove(0);
    def.kwonly = def.kwonly.map(|k| k - 1);
    def.star = def.star.map(|k| k - 1);
    let mut taken = HashSet::new();
    each_name(&def.body, &mut |n| {
        taken.insert(n.to_owned());
    });
    for p in &def.params {
        taken.insert(p.name.clone());
    }
    let mut fields: Vec<(String, String)> = Vec::new();
    let local_of =
        |field: &str, fields: &mut Vec<(String, String)>, taken: &mut HashSet<String>| -> String {
            if let Some((_, l)) = fields.iter().find(|(f, _)| f == field) {
                return l.clone();
            }
            let name = fresh(taken, &format!("{me}_{field}"));
            fields.push((field.to_owned(), name.clone()));
            name
        };
    let body = std::mem::take(&mut def.body);
    let mut out = Vec::with_capacity(body.len() + 1);
    let mut parent: Option<String> = None;
    if post {
        let given = fresh(&mut taken, &format!("{me}_fields"));
        def.params.insert(
            0,
            Param {
                name: given.clone(),
                default: None,
            },
        );
        def.kwonly = def.kwonly.map(|k| k + 1);
        def.star = def.star.map(|k| k + 1);
        parent = Some(given);
    }
    for mut s in body {
        // `self.a += v` is `self.a = self.a + v`: a read of the field, then a store.
        if let StmtKind::AugAssign(t, op, v) = &s.kind {
            if matches!(&t.kind, ExprKind::Attr(b, _) if b.as_name() == Some(me.as_str())) {
                let value = Expr::new(
                    ExprKind::BinOp(*op, Box::new(t.clone()), Box::new(v.clone())),
                    s.span,
                );
                s = Stmt::new(StmtKind::Assign(t.clone(), value), s.span);
            }
        }
        let known: Vec<(String, String)> = fields.clone();
        if let Some((owner, args, kwargs, after)) = parent_init(&s, &me) {
            if parent.is_some() {
                return Err(Diagnostic::new(
                    s.span,
                    "a constructor that is differentiated calls a parent's `__init__` twice",
                    "call the parent's constructor once, at the top of `__init__`",
                ));
            }
            let local = fresh(&mut taken, &format!("{me}_parent"));
            let mut call = Expr::call_path(
                "tangent.parent_fields",
                vec![
                    owner,
                    Expr::synth(ExprKind::Tuple(args)),
                    Expr::synth(ExprKind::Dict(
                        kwargs.iter().map(|(k, _)| Expr::str_lit(k)).collect(),
                        kwargs.into_iter().map(|(_, v)| v).collect(),
                    )),
                    Expr::synth(ExprKind::Bool(after)),
                ],
            );
            let mut err = None;
            rewrite_expr(&mut call, &me, &known, None, &mut err);
            if let Some(d) = err {
                return Err(d);
            }
            out.push(Stmt::new(
                StmtKind::Assign(Expr::name(&local), call),
                s.span,
            ));
            parent = Some(local);
            continue;
        }
        // Reads first (`self.a = self.a + 1` reads the old field), then the fields this
        // statement assigns at the top level become known.
        rewrite_reads(&mut s, &me, &known, parent.as_deref())?;
        if let StmtKind::Assign(target, _) = &mut s.kind {
            let mut err = None;
            each_target(target, &mut |t| {
                if let ExprKind::Attr(v, field) = &t.kind {
                    if v.as_name() == Some(me.as_str()) {
                        let local = local_of(field, &mut fields, &mut taken);
                        *t = Expr::new(ExprKind::Name(local), t.span);
                        return;
                    }
                }
                if matches!(t.kind, ExprKind::Attr(..)) && err.is_none() {
                    err = Some(t.span);
                }
            });
            if let Some(at) = err {
                return Err(attribute_store(at));
            }
        }
        nested_stores(&mut s, &me, &fields)?;
        out.push(s);
    }
    let keys = fields.iter().map(|(f, _)| Expr::str_lit(f)).collect();
    let values = fields.iter().map(|(_, l)| Expr::name(l)).collect();
    let own = Expr::synth(ExprKind::Dict(keys, values));
    let result = match &parent {
        Some(p) => Expr::call_path("tangent.merge_fields", vec![Expr::name(p), own]),
        None => own,
    };
    out.push(Stmt::synth(StmtKind::Return(Some(result))));
    def.body = out;
    Ok(())
}

/// A name not yet used in the function.
fn fresh(taken: &mut HashSet<String>, base: &str) -> String {
    let mut name = base.to_owned();
    let mut k = 1;
    while taken.contains(&name) {
        name = format!("{base}_{k}");
        k += 1;
    }
    taken.insert(name.clone());
    name
}

/// A call of a parent's constructor made for its effect on `me`: `super().__init__(...)`
/// (lowered as `super(__class__, self)`: the `__init__` after the class's own in the
/// MRO) or `Base.__init__(self, ...)` (Base's own): (the class, the arguments after the
/// object, the keywords, whether the `__init__` is the one after the class's).
#[allow(clippy::type_complexity)]
fn parent_init(s: &Stmt, me: &str) -> Option<(Expr, Vec<Expr>, Vec<(String, Expr)>, bool)> {
    let StmtKind::ExprStmt(e) = &s.kind else {
        return None;
    };
    let ExprKind::Call { func, args, kwargs } = &e.kind else {
        return None;
    };
    let ExprKind::Attr(recv, m) = &func.kind else {
        return None;
    };
    if m != "__init__" {
        return None;
    }
    match &recv.kind {
        ExprKind::Call {
            func: sup,
            args: sargs,
            kwargs: skw,
        } if sup.as_name() == Some("super")
            && skw.is_empty()
            && sargs.len() == 2
            && sargs[1].as_name() == Some(me) =>
        {
            Some((sargs[0].clone(), args.clone(), kwargs.clone(), true))
        }
        ExprKind::Name(_) if args.first().and_then(Expr::as_name) == Some(me) => {
            Some(((**recv).clone(), args[1..].to_vec(), kwargs.clone(), false))
        }
        _ => None,
    }
}

fn attribute_store(at: Span) -> Diagnostic {
    Diagnostic::new(
        at,
        "a constructor that is differentiated assigns only attributes of its own object",
        "assign to `self.<field>`, or build the other object outside the differentiated function",
    )
}

/// Applies `f` to each name, subscript or attribute a target assigns.
fn each_target(t: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut t.kind {
        ExprKind::Tuple(es) | ExprKind::List(es) => es.iter_mut().for_each(|e| each_target(e, f)),
        _ => f(t),
    }
}

/// `self.a` read where field `a` is known becomes its local; any other use of `self`
/// (a method call, a field not assigned yet, `self` itself) is an error.
fn rewrite_reads(
    s: &mut Stmt,
    me: &str,
    known: &[(String, String)],
    parent: Option<&str>,
) -> Result<(), Diagnostic> {
    if let StmtKind::Return(_) = s.kind {
        return Err(Diagnostic::new(
            s.span,
            "a constructor that is differentiated has a `return`",
            "let `__init__` run to its end (assign the fields, then stop)",
        ));
    }
    let mut err = None;
    let mut visit = |e: &mut Expr| rewrite_expr(e, me, known, parent, &mut err);
    match &mut s.kind {
        // The top-level target of an assignment is a store, not a read; its parts
        // (subscripts' indices, an attribute's base other than `self`) are reads.
        StmtKind::Assign(target, value) => {
            visit(value);
            each_target(target, &mut |t| match &mut t.kind {
                ExprKind::Attr(v, _) if v.as_name() == Some(me) => {}
                _ => visit(t),
            });
        }
        _ => crate::syntax::visit::stmt_exprs_mut(s, &mut visit),
    }
    if let StmtKind::If(_, a, b) = &mut s.kind {
        for inner in a.iter_mut().chain(b.iter_mut()) {
            rewrite_nested(inner, me, known, parent)?;
        }
    } else if let StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) =
        &mut s.kind
    {
        for inner in body.iter_mut() {
            rewrite_nested(inner, me, known, parent)?;
        }
    }
    err.map_or(Ok(()), Err)
}

/// A statement inside a block of `__init__`: reads as at the top level, and stores only
/// to fields the top level has assigned before the block.
fn rewrite_nested(
    s: &mut Stmt,
    me: &str,
    known: &[(String, String)],
    parent: Option<&str>,
) -> Result<(), Diagnostic> {
    rewrite_reads(s, me, known, parent)?;
    nested_stores(s, me, known)
}

/// Stores to `self.a` inside `s` (the statement itself when it is nested, its blocks
/// otherwise) must be to fields already assigned at the top level: a field first set in
/// a branch or a loop may not exist after it.
fn nested_stores(s: &mut Stmt, me: &str, known: &[(String, String)]) -> Result<(), Diagnostic> {
    let mut bad = None;
    let mut fix = |t: &mut Expr| {
        each_target(t, &mut |t| {
            if let ExprKind::Attr(v, field) = &t.kind {
                if v.as_name() == Some(me) {
                    match known.iter().find(|(f, _)| f == field) {
                        Some((_, local)) => *t = Expr::new(ExprKind::Name(local.clone()), t.span),
                        None => {
                            bad.get_or_insert((t.span, field.clone()));
                        }
                    }
                } else {
                    bad.get_or_insert((t.span, String::new()));
                }
            }
        })
    };
    match &mut s.kind {
        StmtKind::If(_, a, b) => {
            for inner in a.iter_mut().chain(b.iter_mut()) {
                nested_targets(inner, &mut fix);
            }
        }
        StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) => {
            for inner in body.iter_mut() {
                nested_targets(inner, &mut fix);
            }
        }
        StmtKind::AugAssign(t, _, _) => fix(t),
        _ => {}
    }
    match bad {
        Some((at, field)) if field.is_empty() => Err(attribute_store(at)),
        Some((at, field)) => Err(Diagnostic::new(
            at,
            format!("`{me}.{field}` is first assigned inside a block of `__init__`"),
            format!("assign `{me}.{field}` at the top of `__init__` (e.g. `{me}.{field} = 0.0`) before changing it in a branch or a loop"),
        )),
        None => Ok(()),
    }
}

fn nested_targets(s: &mut Stmt, fix: &mut dyn FnMut(&mut Expr)) {
    match &mut s.kind {
        StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => fix(t),
        _ => {}
    }
    match &mut s.kind {
        StmtKind::If(_, a, b) => a
            .iter_mut()
            .chain(b.iter_mut())
            .for_each(|i| nested_targets(i, fix)),
        StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) => {
            body.iter_mut().for_each(|i| nested_targets(i, fix))
        }
        _ => {}
    }
}

fn rewrite_expr(
    e: &mut Expr,
    me: &str,
    known: &[(String, String)],
    parent: Option<&str>,
    err: &mut Option<Diagnostic>,
) {
    if let ExprKind::Attr(v, field) = &e.kind {
        if v.as_name() == Some(me) {
            match (known.iter().find(|(f, _)| f == field), parent) {
                (Some((_, local)), _) => *e = Expr::new(ExprKind::Name(local.clone()), e.span),
                // Not assigned here: the parent's constructor's field (a KeyError when
                // it has none, as reading a missing attribute is an error).
                (None, Some(p)) => {
                    *e = Expr::new(
                        ExprKind::Subscript(
                            Box::new(Expr::name(p)),
                            Box::new(Expr::str_lit(field)),
                        ),
                        e.span,
                    )
                }
                (None, None) => {
                    err.get_or_insert_with(|| Diagnostic::new(
                        e.span,
                        format!("a constructor that is differentiated reads `{me}.{field}` before assigning it (a method or a class attribute)"),
                        format!("compute the value from `__init__`'s arguments (a method may be called as a module-level function), or assign `{me}.{field}` first"),
                    ));
                }
            }
            return;
        }
    }
    if e.as_name() == Some(me) {
        err.get_or_insert_with(|| {
            Diagnostic::new(
                e.span,
                format!("a constructor that is differentiated uses `{me}` other than to assign and read its fields"),
                "assign the fields from `__init__`'s arguments only (a call such as `super().__init__(...)` or `helper(self)` cannot be followed); or build the object outside the differentiated function",
            )
        });
        return;
    }
    each_child_mut(e, &mut |c| rewrite_expr(c, me, known, parent, err));
}

fn each_name(stmts: &[Stmt], f: &mut dyn FnMut(&str)) {
    walk_stmts(stmts, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Name(n) = &x.kind {
                    f(n)
                }
            })
        })
    });
}
