//! Calls of the program's own functions in reverse mode: user functions (joint, split
//! and two-phase for recursion), methods of user classes and constructors.

use super::*;

impl Reverse<'_> {
    /// `t = obj.m(args)` for a method of a user class: each active operand's gradient is
    /// `tangent.method_grad` (the method's own derivative, built when it runs, as a
    /// function of `obj` and the arguments).
    pub(super) fn object_method(
        &mut self,
        t: &str,
        func: &Expr,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Vec<Adj>, Diagnostic> {
        let ExprKind::Attr(recv, m) = &func.kind else {
            unreachable!()
        };
        if !kwargs.is_empty() {
            return Err(Diagnostic::new(
                span,
                format!("the arguments of the method `{m}` are passed by keyword"),
                "pass them by position: the method is differentiated as a function of its object and its arguments",
            ));
        }
        let operands = Expr::synth(ExprKind::Tuple(args.to_vec()));
        let grad_of = |which: &str| {
            Expr::call_path(
                METHOD_GRAD,
                vec![
                    grad_ref(t),
                    (**recv).clone(),
                    Expr::str_lit(m),
                    operands.clone(),
                    Expr::num(which),
                ],
            )
        };
        let mut out = Vec::new();
        fn active<'e>(e: &'e Expr, set: &HashSet<String>) -> Option<&'e str> {
            e.as_name().filter(|n| set.contains(*n))
        }
        if let Some(n) = active(recv, self.active) {
            out.push(Adj::Accum {
                var: n.to_owned(),
                value: grad_of("-1"),
            });
        }
        for (i, a) in args.iter().enumerate() {
            if let Some(n) = active(a, self.active) {
                out.push(Adj::Accum {
                    var: n.to_owned(),
                    value: grad_of(&i.to_string()),
                });
            }
        }
        Ok(out)
    }

    /// `t = Cls(args)` for a class tangent can build: each active argument's gradient is
    /// `tangent.construct_grad` (the gradient of the object's fields, carried back
    /// through `Cls.__init__` differentiated as the function that assigns them).
    pub(super) fn constructor(
        &mut self,
        t: &str,
        func: &Expr,
        args: &[Expr],
        kwargs: &[(String, Expr)],
    ) -> Vec<Adj> {
        let positional = Expr::synth(ExprKind::Tuple(args.to_vec()));
        let keywords = Expr::synth(ExprKind::Dict(
            kwargs.iter().map(|(k, _)| Expr::str_lit(k)).collect(),
            kwargs.iter().map(|(_, v)| v.clone()).collect(),
        ));
        let grad_of = |which: Expr| {
            Expr::call_path(
                "tangent.construct_grad",
                vec![
                    grad_ref(t),
                    func.clone(),
                    positional.clone(),
                    keywords.clone(),
                    which,
                ],
            )
        };
        let operands = args
            .iter()
            .enumerate()
            .map(|(i, a)| (Expr::num(i.to_string()), a))
            .chain(kwargs.iter().map(|(k, v)| (Expr::str_lit(k), v)));
        let mut out = Vec::new();
        for (which, a) in operands {
            if let Some(n) = a.as_name().filter(|n| self.active.contains(*n)) {
                out.push(Adj::Accum {
                    var: n.to_owned(),
                    value: grad_of(which),
                });
            }
        }
        out
    }

    /// Split motion, for `t = g(...)` with `g` a user function taking active arguments:
    /// the call of g's forward function and a fresh name for its tape.
    pub(super) fn split_call(
        &mut self,
        value: &Expr,
    ) -> Result<Option<(Expr, String)>, Diagnostic> {
        if !self.split {
            return Ok(None);
        }
        let ExprKind::Call { func, args, kwargs } = &value.kind else {
            return Ok(None);
        };
        let Callee::User(f) = self.resolver.callee(func) else {
            return Ok(None);
        };
        let Some((wrt, _)) = self.active_positions(&f, args, kwargs, value.span)? else {
            return Ok(None);
        };
        let (gfwd, _, _) = self.callees.split_gradient_of(&f, &wrt, value.span)?;
        let tape = self.names.fresh(&format!("_{f}_tape"));
        let call = Expr::synth(ExprKind::Call {
            func: Box::new(Expr::name(gfwd)),
            args: args.to_vec(),
            kwargs: kwargs.to_vec(),
        });
        Ok(Some((call, tape)))
    }

    /// For `t = g(...)` with `g` a recursive user function, or one whose forward pass has
    /// effects, taking active arguments (and joint motion): the forward phase of g's
    /// two-phase gradient on our tape, and its phase parameter. Each level of a recursion
    /// then runs its forward pass once, instead of once per level above it; a `print`,
    /// a random draw or a store into another object happens once, as in the primal.
    pub(super) fn phased_call(
        &mut self,
        value: &Expr,
    ) -> Result<Option<(Expr, String)>, Diagnostic> {
        if self.split || !self.phase_recursion {
            return Ok(None);
        }
        let ExprKind::Call { func, args, kwargs } = &value.kind else {
            return Ok(None);
        };
        let Callee::User(f) = self.resolver.callee(func) else {
            return Ok(None);
        };
        if !self.callees.runs_forward_once(&f) {
            return Ok(None);
        }
        let Some((wrt, _)) = self.active_positions(&f, args, kwargs, value.span)? else {
            return Ok(None);
        };
        let (gname, _, phase) = self.callees.phased_gradient_of(&f, &wrt, value.span)?;
        let mut kw = kwargs.to_vec();
        kw.push(("_stack".to_owned(), Expr::name("_stack")));
        let call = Expr::synth(ExprKind::Call {
            func: Box::new(Expr::name(gname)),
            args: args.to_vec(),
            kwargs: kw,
        });
        Ok(Some((call, phase)))
    }

    /// The parameter positions (sorted, once each) of the active arguments of a call to
    /// user function `f`, and each active argument with its parameter position (and its
    /// place in the `*args` tuple, for an extra positional argument); None when no
    /// argument is active.
    #[allow(clippy::type_complexity)]
    pub(super) fn active_positions(
        &mut self,
        f: &str,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Option<(Vec<usize>, Vec<Bound>)>, Diagnostic> {
        let star = self.callees.check_call(f, args.len(), kwargs, span)?;
        let (_, _, params) = self.callees.gradient_of(f, &[], span)?;
        let mut wrt = Vec::new();
        let mut by_pos: Vec<Bound> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            if self.is_active(a) {
                let (pos, element) = match star {
                    Some(s) if i >= s => (s, Some(i - s)),
                    _ => (i, None),
                };
                wrt.push(pos);
                by_pos.push(Bound {
                    pos,
                    element,
                    arg: a.clone(),
                });
            }
        }
        for (k, v) in kwargs {
            if self.is_active(v) {
                let Some(i) = params.iter().position(|p| p == k) else {
                    return Err(Diagnostic::new(
                        span,
                        format!("`{f}` has no parameter named `{k}`"),
                        "pass the arguments the function declares",
                    ));
                };
                wrt.push(i);
                by_pos.push(Bound {
                    pos: i,
                    element: None,
                    arg: v.clone(),
                });
            }
        }
        if wrt.is_empty() {
            return Ok(None);
        }
        wrt.sort();
        wrt.dedup();
        Ok(Some((wrt, by_pos)))
    }

    pub(super) fn user_call(
        &mut self,
        f: &str,
        t: &str,
        func: &Expr,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Vec<Adj>, Diagnostic> {
        let Some((wrt_sorted, by_pos)) = self.active_positions(f, args, kwargs, span)? else {
            return Ok(vec![]);
        };
        let _ = func;
        let (gname, seed) = match &self.callee_tape {
            None if self.callee_phase.is_some() => {
                let (gname, seed, _) = self.callees.phased_gradient_of(f, &wrt_sorted, span)?;
                (gname, seed)
            }
            Some(_) => {
                let (_, gbwd, seed) = self.callees.split_gradient_of(f, &wrt_sorted, span)?;
                (gbwd, seed)
            }
            None => {
                let (gname, seed, _) = self.callees.gradient_of(f, &wrt_sorted, span)?;
                (gname, seed)
            }
        };
        let mut kw = kwargs.to_vec();
        kw.push((seed, grad_ref(t)));
        if let Some(tape) = &self.callee_tape {
            kw.push(("_stack".to_owned(), Expr::name(tape)));
        }
        if let Some(phase) = &self.callee_phase {
            kw.push(("_stack".to_owned(), Expr::name("_stack")));
            kw.push((phase.clone(), Expr::synth(ExprKind::Bool(true))));
        }
        let call = Expr::synth(ExprKind::Call {
            func: Box::new(Expr::name(&gname)),
            args: args.to_vec(),
            kwargs: kw,
        });
        let mut out = Vec::new();
        if let [one] = by_pos.as_slice() {
            if one.element.is_none() {
                let v = one.arg.as_name().unwrap_or_default().to_owned();
                out.push(Adj::Accum {
                    var: v,
                    value: call,
                });
                return Ok(out);
            }
        }
        // Several gradients: a tuple, one per position in `wrt_sorted`; the gradient of
        // a `*args` parameter is a tuple with one entry per extra argument.
        let tmp = self.names.fresh(&format!("_b{f}"));
        out.push(Adj::Stmt(Stmt::assign(&tmp, call)));
        let item = |e: Expr, k: usize| {
            Expr::synth(ExprKind::Subscript(
                Box::new(e),
                Box::new(Expr::num(k.to_string())),
            ))
        };
        for b in &by_pos {
            let k = wrt_sorted.iter().position(|p| *p == b.pos).unwrap_or(0);
            let mut value = if wrt_sorted.len() == 1 {
                Expr::name(&tmp)
            } else {
                item(Expr::name(&tmp), k)
            };
            if let Some(j) = b.element {
                value = item(value, j);
            }
            out.push(Adj::Accum {
                var: b.arg.as_name().unwrap_or_default().to_owned(),
                value,
            });
        }
        Ok(out)
    }
}
