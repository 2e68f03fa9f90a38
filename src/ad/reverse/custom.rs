//! Calls of functions with user-supplied derivatives (`tangent.custom_vjp`,
//! `tangent.custom_jvp`) in reverse mode, the runtime helpers they become, and those
//! helpers' own adjoints when generated code is differentiated again.

use super::*;

/// The runtime helpers a call of a custom function becomes (`tangent/_custom.py`).
pub const CUSTOM_FORWARD: &str = "tangent.custom_forward";
pub const CUSTOM_BACKWARD: &str = "tangent.custom_backward";
pub const CUSTOM_JVP_CALL: &str = "tangent.custom_jvp_call";

impl Reverse<'_> {
    /// The adjoints of the runtime helpers that run a custom function's rules, met when
    /// generated code is differentiated again (`tangent/_custom.py`): each active
    /// operand's gradient is the helper's vjp, which differentiates the user's rule.
    pub(super) fn custom_helper_adjoint(
        &mut self,
        q: &str,
        t: &str,
        args: &[Expr],
    ) -> Option<Vec<Adj>> {
        let active = |e: &Expr| {
            e.as_name()
                .filter(|n| self.active.contains(*n))
                .map(str::to_owned)
        };
        let tuple = |es: &[Expr]| Expr::synth(ExprKind::Tuple(es.to_vec()));
        let mut out = Vec::new();
        let mut push = |var: Option<String>, value: Expr| {
            if let Some(var) = var {
                out.push(Adj::Accum { var, value });
            }
        };
        match (q, args) {
            (CUSTOM_FORWARD, [f, rest @ ..]) => {
                for (i, a) in rest.iter().enumerate() {
                    let call = Expr::call_path(
                        "tangent.custom_forward_vjp",
                        vec![
                            grad_ref(t),
                            Expr::name(t),
                            f.clone(),
                            tuple(rest),
                            Expr::num(i.to_string()),
                        ],
                    );
                    push(active(a), call);
                }
            }
            (CUSTOM_BACKWARD, [f, res, g, rest @ ..]) => {
                let call = |which: Expr| {
                    Expr::call_path(
                        "tangent.custom_backward_vjp",
                        vec![
                            grad_ref(t),
                            f.clone(),
                            res.clone(),
                            g.clone(),
                            tuple(rest),
                            which,
                        ],
                    )
                };
                push(active(res), call(Expr::str_lit("res")));
                push(active(g), call(Expr::str_lit("g")));
                for (i, a) in rest.iter().enumerate() {
                    push(active(a), call(Expr::num(i.to_string())));
                }
            }
            (CUSTOM_JVP_CALL, [f, primals, tangents]) => {
                for (which, a) in [primals, tangents].into_iter().enumerate() {
                    let call = Expr::call_path(
                        "tangent.custom_jvp_call_vjp",
                        vec![
                            grad_ref(t),
                            f.clone(),
                            primals.clone(),
                            tangents.clone(),
                            Expr::num(which.to_string()),
                        ],
                    );
                    push(active(a), call);
                }
            }
            (METHOD_JVP, [obj, name, margs, t_obj, t_margs]) => {
                // reverse over forward through a method: the vjp of its jvp
                let call = |part: &str, which: &str| {
                    Expr::call_path(
                        "tangent.method_jvp_vjp",
                        vec![
                            grad_ref(t),
                            obj.clone(),
                            name.clone(),
                            margs.clone(),
                            t_obj.clone(),
                            t_margs.clone(),
                            Expr::str_lit(part),
                            Expr::num(which),
                        ],
                    )
                };
                push(active(obj), call("obj", "0"));
                push(active(t_obj), call("t_obj", "0"));
                for (part, operand) in [("args", margs), ("t_args", t_margs)] {
                    match &operand.kind {
                        ExprKind::Tuple(items) => {
                            for (i, a) in items.iter().enumerate() {
                                push(active(a), call(part, &i.to_string()));
                            }
                        }
                        // a tuple held by a name: its gradient is a tuple
                        _ => push(active(operand), call(part, "-1")),
                    }
                }
            }
            _ => return None,
        }
        Some(out)
    }

    /// For `t = f(...)` with `f` a custom_vjp/custom_jvp function taking active
    /// arguments: the forward-pass call `tangent.custom_forward(f, ...)` (the value and
    /// the residuals) and a fresh name for the residuals.
    pub(super) fn custom_call(
        &mut self,
        value: &Expr,
        stmt_span: Span,
    ) -> Result<Option<(Expr, String)>, Diagnostic> {
        let ExprKind::Call { func, args, kwargs } = &value.kind else {
            return Ok(None);
        };
        let span = if value.span.is_synthetic() {
            stmt_span
        } else {
            value.span
        };
        let Callee::Custom(f) = self.resolver.callee(func) else {
            return Ok(None);
        };
        let active = |e: &Expr| self.is_active(e);
        if !check_custom_call(self.resolver, &f, args, kwargs, &active, span, false)? {
            return Ok(None);
        }
        let res = self.names.fresh(&format!("_{f}_residuals"));
        let mut all = vec![Expr::name(&f)];
        all.extend(args.iter().cloned());
        Ok(Some((Expr::call_path(CUSTOM_FORWARD, all), res)))
    }

    /// The adjoint of `t = f(...)`, `f` a custom function: its backward rule on the
    /// residuals of the forward pass (`custom_call`), one gradient per argument.
    pub(super) fn custom_adjoint(
        &mut self,
        f: &str,
        t: &str,
        args: &[Expr],
        span: Span,
    ) -> Result<Vec<Adj>, Diagnostic> {
        let Some(res) = self.callee_tape.clone() else {
            return Err(Diagnostic::new(
                span,
                format!("internal error: the call of the custom function `{f}` has no residuals"),
                "assign its result to a name: `y = f(...)`",
            ));
        };
        let mut all = vec![Expr::name(f), Expr::name(&res), grad_ref(t)];
        all.extend(args.iter().cloned());
        let call = Expr::call_path(CUSTOM_BACKWARD, all);
        let active: Vec<(usize, String)> = args
            .iter()
            .enumerate()
            .filter(|(_, a)| self.is_active(a))
            .map(|(i, a)| (i, a.as_name().unwrap_or_default().to_owned()))
            .collect();
        let item = |base: Expr, i: usize| {
            Expr::synth(ExprKind::Subscript(
                Box::new(base),
                Box::new(Expr::num(i.to_string())),
            ))
        };
        let mut out = Vec::new();
        if let [(i, var)] = active.as_slice() {
            out.push(Adj::Accum {
                var: var.clone(),
                value: item(call, *i),
            });
        } else {
            let tmp = self.names.fresh(&format!("_b{f}"));
            out.push(Adj::Stmt(Stmt::assign(&tmp, call)));
            for (i, var) in active {
                out.push(Adj::Accum {
                    var,
                    value: item(Expr::name(&tmp), i),
                });
            }
        }
        Ok(out)
    }
}

/// Forward mode over generated forward-mode code through a custom function (a
/// forward-over-forward derivative): refused, naming the function (never a zero). The
/// other derivatives of derivatives through custom rules differentiate the rules
/// (`Reverse::custom_helper_adjoint`, `Forward::custom_helper_tangent`).
pub fn custom_higher_order(q: &str, args: &[Expr], span: Span) -> Option<Diagnostic> {
    if q == METHOD_JVP || q == METHOD_GRAD {
        let at = if q == METHOD_JVP { 1 } else { 2 };
        let method = match args.get(at).map(|e| &e.kind) {
            Some(ExprKind::Str(m)) => m.clone(),
            _ => "?".into(),
        };
        let (outer, inner) = if q == METHOD_JVP {
            ("forward", "forward")
        } else {
            ("reverse", "reverse")
        };
        return Some(Diagnostic::new(
            span,
            format!("{outer} mode over a {inner}-mode derivative through the method `{method}` is not available"),
            "take the second derivative the other way: `tangent.autodiff(tangent.grad(f), mode='forward')` (forward over reverse) or `tangent.grad(tangent.autodiff(f, mode='forward'))`",
        ));
    }
    if q != CUSTOM_JVP_CALL {
        return None;
    }
    let f = args.first().map(printer::expr).unwrap_or_default();
    Some(Diagnostic::new(
        span,
        format!("forward mode over a forward-mode derivative through the custom function `{f}` is not available"),
        format!("take one of the two derivatives in reverse mode (`tangent.grad(tangent.jvp(f))` or `tangent.jvp(tangent.grad(f))` differentiate `{f}`'s rule)"),
    ))
}

/// Checks a call of the custom function `f` (`tangent.custom_vjp`/`custom_jvp`) in
/// differentiated code: false when no argument is active (nothing to differentiate);
/// an error when its rule is not defined, an active value is passed at one of its
/// `nondiff_argnums` or by keyword, or (`forward`) it has only a reverse-mode rule.
pub fn check_custom_call(
    resolver: &Resolver,
    f: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    active: &dyn Fn(&Expr) -> bool,
    span: Span,
    forward: bool,
) -> Result<bool, Diagnostic> {
    let Some(custom) = resolver.custom(f) else {
        return Ok(false);
    };
    if !args.iter().chain(kwargs.iter().map(|(_, v)| v)).any(active) {
        return Ok(false);
    }
    let (kind, define) = if custom.vjp {
        ("custom_vjp", format!("{f}.defvjp(f_fwd, f_bwd)"))
    } else {
        ("custom_jvp", format!("{f}.defjvp(f_jvp)"))
    };
    if !custom.defined {
        return Err(Diagnostic::new(
            span,
            format!("`{f}` is a tangent.{kind} function whose rule was never defined"),
            format!("call `{define}` (with your rule functions) before differentiating it"),
        ));
    }
    if forward && custom.vjp {
        return Err(Diagnostic::new(
            span,
            format!("forward mode through `{f}`: it is a tangent.custom_vjp function, which has only a reverse-mode rule"),
            format!("define `{f}` with `@tangent.custom_jvp` and `{f}.defjvp(f_jvp)` (reverse mode uses that rule too), or differentiate in reverse mode"),
        ));
    }
    if let Some((k, _)) = kwargs.first() {
        return Err(Diagnostic::new(
            span,
            format!("keyword argument `{k}` in a call of the custom function `{f}`: its rule takes one entry per positional argument"),
            format!("pass the arguments of `{f}` positionally"),
        ));
    }
    if let Some(i) = custom
        .nondiff
        .iter()
        .find(|&&i| args.get(i).is_some_and(active))
    {
        return Err(Diagnostic::new(
            if args[*i].span.is_synthetic() {
                span
            } else {
                args[*i].span
            },
            format!("argument {i} of `{f}` is in its nondiff_argnums, but it depends on the differentiated input: its derivative would be lost"),
            format!("remove {i} from the nondiff_argnums of `{f}`, or pass `tangent.stop_gradient(...)` there if a zero derivative is meant"),
        ));
    }
    Ok(true)
}
