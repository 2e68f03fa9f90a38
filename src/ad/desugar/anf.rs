//! Step 3 of the normalisation: A-normal form. One operation per assignment, each `if`
//! tests a fresh condition variable, the function ends with exactly one `return name`.

use super::*;

pub struct Anf<'a> {
    pub names: &'a mut NameGen,
    pub resolver: &'a Resolver<'a>,
}

impl Anf<'_> {
    pub fn block(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out)?;
        }
        Ok(out)
    }

    fn stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let span = s.span;
        if is_exit_check(&s) {
            out.push(s);
            return Ok(());
        }
        match s.kind {
            StmtKind::Assign(target, value) => match &target.kind {
                ExprKind::Name(t) => {
                    let t = t.clone();
                    if let ExprKind::IfExp { test, body, orelse } = value.kind {
                        let a = self.block(vec![Stmt::new(
                            StmtKind::Assign(target.clone(), *body),
                            span,
                        )])?;
                        let b =
                            self.block(vec![Stmt::new(StmtKind::Assign(target, *orelse), span)])?;
                        return self
                            .stmt(Stmt::new(StmtKind::If(*test, a, b), span), out)
                            .map(|_| ());
                    }
                    let rhs = self.op(value, out)?;
                    if rhs.reads(&t) && !rhs.is_atom() {
                        let tmp = self.names.fresh(&hint_for(&rhs));
                        out.push(Stmt::new(StmtKind::Assign(Expr::name(&tmp), rhs), span));
                        out.push(Stmt::new(StmtKind::Assign(target, Expr::name(tmp)), span));
                    } else {
                        out.push(Stmt::new(StmtKind::Assign(target, rhs), span));
                    }
                }
                ExprKind::Subscript(base, index) => {
                    if base.as_name().is_none() {
                        return Err(err(
                            target.span,
                            "assignment to a nested subscript cannot be differentiated",
                            "index with a tuple instead, e.g. `x[i, j] = v`",
                        ));
                    }
                    // A restore from the tape stays whole: forward mode pairs it with the
                    // pop of its tangent.
                    let v = if is_tape_pop(&value) {
                        value
                    } else {
                        self.atom(value, out)?
                    };
                    let index = self.index(*index.clone(), base, out)?;
                    let target = Expr::new(
                        ExprKind::Subscript(base.clone(), Box::new(index)),
                        target.span,
                    );
                    out.push(Stmt::new(StmtKind::Assign(target, v), span));
                }
                _ => out.push(Stmt::new(StmtKind::Assign(target, value), span)),
            },
            StmtKind::ExprStmt(e) => {
                let e = self.op(e, out)?;
                out.push(Stmt::new(StmtKind::ExprStmt(e), span));
            }
            StmtKind::Return(Some(e)) => {
                let e = self.atom(e, out)?;
                out.push(Stmt::new(StmtKind::Return(Some(e)), span));
            }
            StmtKind::If(test, a, b) => {
                let cond = self.names.fresh("cond");
                out.push(Stmt::new(StmtKind::Assign(Expr::name(&cond), test), span));
                let a = self.block(a)?;
                let b = self.block(b)?;
                out.push(Stmt::new(StmtKind::If(Expr::name(cond), a, b), span));
            }
            StmtKind::For(t, it, body) => {
                let body = self.block(body)?;
                out.push(Stmt::new(StmtKind::For(t, it, body), span));
            }
            StmtKind::While(t, body) => {
                let body = self.block(body)?;
                out.push(Stmt::new(StmtKind::While(t, body), span));
            }
            other => out.push(Stmt::new(other, span)),
        }
        Ok(())
    }

    /// The index of a subscript store. The backward pass evaluates it again (to read and
    /// restore the slice), after the store has changed the array: an index that reads
    /// array values (`h[h < 0]`, `h[np.argmax(h)]`) would then select other elements.
    /// Such an index is computed once, into a temporary, before the store. An index of
    /// names, literals, slices and integer arithmetic on them stays as written.
    fn index(&mut self, e: Expr, base: &Expr, out: &mut Vec<Stmt>) -> Result<Expr, Diagnostic> {
        let reads_base = base.as_name().is_some_and(|b| e.reads(b));
        if !reads_base && is_plain_index(&e) {
            return Ok(e);
        }
        let span = e.span;
        let op = self.op(e, out)?;
        let tmp = self.names.fresh("_index");
        out.push(Stmt::new(StmtKind::Assign(Expr::name(&tmp), op), span));
        Ok(Expr::new(ExprKind::Name(tmp), span))
    }

    /// An operand: a name, a literal (a negative number too: `axis=-1` stays readable) or
    /// a module constant; anything else gets a temporary.
    fn atom(&mut self, e: Expr, out: &mut Vec<Stmt>) -> Result<Expr, Diagnostic> {
        if e.is_atom() || e.is_number_literal() || self.resolver.is_module_attr(&e) {
            return Ok(e);
        }
        let span = e.span;
        if let ExprKind::IfExp { .. } = &e.kind {
            let tmp = self.names.fresh("_ifexp");
            self.stmt(Stmt::new(StmtKind::Assign(Expr::name(&tmp), e), span), out)?;
            return Ok(Expr::new(ExprKind::Name(tmp), span));
        }
        let op = self.op(e, out)?;
        let tmp = self.names.fresh(&hint_for(&op));
        out.push(Stmt::new(StmtKind::Assign(Expr::name(&tmp), op), span));
        Ok(Expr::new(ExprKind::Name(tmp), span))
    }

    /// Is `func` declared `left_fold(...)` in `backends/`?
    fn is_left_fold(&self, func: &Expr) -> bool {
        matches!(self.resolver.callee(func),
            Callee::Library(q) if crate::rules::RuleSet::builtin().is_left_fold(&q))
    }

    /// One operation whose operands are atoms.
    fn op(&mut self, e: Expr, out: &mut Vec<Stmt>) -> Result<Expr, Diagnostic> {
        let span = e.span;
        let kind = match e.kind {
            ExprKind::BinOp(op, a, b) => {
                let a = self.atom(*a, out)?;
                let b = self.atom(*b, out)?;
                ExprKind::BinOp(op, Box::new(a), Box::new(b))
            }
            ExprKind::Unary(op @ (UnaryOp::Neg | UnaryOp::Pos), a) => {
                ExprKind::Unary(op, Box::new(self.atom(*a, out)?))
            }
            ExprKind::Call { func, args, kwargs }
                if args.len() > 2 && kwargs.is_empty() && self.is_left_fold(&func) =>
            {
                // `min(a, b, c)` is `min(min(a, b), c)` (ties included: both keep the
                // first extreme argument), so the two-argument rule applies.
                let mut args = args.into_iter();
                let mut acc = args.next().unwrap_or_else(|| Expr::num("0"));
                for a in args {
                    acc = Expr::new(
                        ExprKind::Call {
                            func: func.clone(),
                            args: vec![acc, a],
                            kwargs: vec![],
                        },
                        span,
                    );
                }
                return self.op(acc, out);
            }
            ExprKind::Call { func, args, kwargs } if args.len() == 1 && self.is_left_fold(&func) => {
                // `max(xs)` of one sequence is the element at the position Python takes it
                // from: `xs[tangent.extreme_index(xs, True)]` (its derivative an element's).
                let name = crate::emit::printer::expr(&func);
                if !kwargs.is_empty() {
                    return Err(err(
                        span,
                        format!("`{name}(...)` with `key=` or `default=` cannot be differentiated yet"),
                        "compute the keys into a list and index with the extreme position, or test for an empty sequence first",
                    ));
                }
                let largest = matches!(self.resolver.callee(&func), Callee::Library(q) if q.ends_with("max"));
                let seq = self.atom(args.into_iter().next().unwrap_or_else(|| Expr::num("0")), out)?;
                let at = Expr::call_path(
                    "tangent.extreme_index",
                    vec![seq.clone(), Expr::synth(ExprKind::Bool(largest))],
                );
                let at = self.atom(Expr::new(at.kind, span), out)?;
                return self.op(
                    Expr::new(ExprKind::Subscript(Box::new(seq), Box::new(at)), span),
                    out,
                );
            }
            ExprKind::Call { func, args, kwargs } => {
                if let ExprKind::Lambda(..) = func.kind {
                    return Err(err(
                        func.span,
                        "a `lambda` can only be differentiated when it is assigned to a name and called",
                        "write `name = lambda ...` on its own line and call `name(...)`, or define a function with `def`",
                    ));
                }
                let func = match func.kind {
                    ExprKind::Attr(v, m) if self.resolver.module_path(&v).is_none() => {
                        ExprKind::Attr(Box::new(self.atom(*v, out)?), m)
                    }
                    other => other,
                };
                let func = Box::new(Expr::new(func, span));
                let args = args
                    .into_iter()
                    .map(|a| self.atom(a, out))
                    .collect::<Result<_, _>>()?;
                let kwargs = kwargs
                    .into_iter()
                    .map(|(k, v)| Ok((k, self.atom(v, out)?)))
                    .collect::<Result<_, Diagnostic>>()?;
                ExprKind::Call { func, args, kwargs }
            }
            ExprKind::Attr(v, a) => {
                let whole = Expr::new(ExprKind::Attr(v.clone(), a.clone()), span);
                if self.resolver.is_module_attr(&whole) {
                    return Ok(whole);
                }
                ExprKind::Attr(Box::new(self.atom(*v, out)?), a)
            }
            ExprKind::Subscript(v, idx) => {
                let v = self.atom(*v, out)?;
                ExprKind::Subscript(Box::new(v), idx)
            }
            ExprKind::Tuple(es) => ExprKind::Tuple(
                es.into_iter()
                    .map(|a| self.atom(a, out))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::List(es) => ExprKind::List(
                es.into_iter()
                    .map(|a| self.atom(a, out))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::Dict(ks, vs) => ExprKind::Dict(
                ks,
                vs.into_iter()
                    .map(|a| self.atom(a, out))
                    .collect::<Result<_, _>>()?,
            ),
            ExprKind::IfExp { .. } => {
                let e = Expr::new(e.kind, span);
                return self.atom(e, out);
            }
            ExprKind::Lambda(..) => {
                return Err(err(
                    span,
                    "a `lambda` can only be differentiated when it is assigned to a name and called",
                    "write `name = lambda ...` on its own line and call `name(...)`, or define a function with `def`",
                ))
            }
            ExprKind::ListComp(..) => {
                return Err(err(
                    span,
                    "a list comprehension is only differentiated in an assignment, a `return` or a call statement",
                    "assign the comprehension to a variable first",
                ))
            }
            // Comparisons and boolean logic produce booleans, which carry no gradient:
            // they stay whole.
            other => other,
        };
        Ok(Expr::new(kind, span))
    }
}

/// An index whose value cannot depend on array contents: names, literals, slices, tuples
/// and integer arithmetic of these.
fn is_plain_index(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_)
        | ExprKind::Num(_)
        | ExprKind::Bool(_)
        | ExprKind::NoneLit
        | ExprKind::Str(_) => true,
        ExprKind::Unary(UnaryOp::Neg | UnaryOp::Pos, a) => is_plain_index(a),
        ExprKind::BinOp(
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::FloorDiv | BinOp::Mod,
            a,
            b,
        ) => is_plain_index(a) && is_plain_index(b),
        ExprKind::Tuple(es) => es.iter().all(is_plain_index),
        ExprKind::Slice(a, b, c) => [a, b, c].into_iter().flatten().all(|x| is_plain_index(x)),
        _ => false,
    }
}
