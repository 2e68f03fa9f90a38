//! Forward mode: each active ANF statement is followed by the statement computing its
//! tangent (`dx` for `x`). Control flow is kept as written (no tape is needed), calls to
//! user functions are replaced by calls to their forward derivative, which returns the
//! tangent and the value.

use super::template::{self, ActiveSite};
use crate::emit::printer;
use crate::resolve::{Callee, Resolver};
use crate::rules::RuleSet;
use crate::syntax::ir::*;
use crate::syntax::names::NameGen;
use crate::syntax::Diagnostic;
use crate::tape::{is_tape_pop, is_tape_push};
use std::collections::{HashMap, HashSet};

/// Forward derivatives of user callees: (function, active positions) -> (generated name,
/// tangent parameter names in order of the positions).
pub trait ForwardCallees {
    fn forward_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, Vec<String>), Diagnostic>;
    fn params_of(&mut self, func: &str) -> Result<Vec<String>, Diagnostic>;
    /// As `Callees::check_call`.
    fn check_call(
        &mut self,
        func: &str,
        nargs: usize,
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Option<usize>, Diagnostic>;
}

pub struct Forward<'a> {
    pub resolver: &'a Resolver<'a>,
    pub rules: &'a RuleSet,
    pub active: &'a HashSet<String>,
    pub tangents: &'a HashMap<String, String>,
    pub names: &'a mut NameGen,
    pub callees: &'a mut dyn ForwardCallees,
    /// Return the value too: `return dy, y`.
    pub preserve_result: bool,
}

impl Forward<'_> {
    fn tangent_of(&self, v: &str) -> String {
        self.tangents[v].clone()
    }

    fn is_active(&self, e: &Expr) -> bool {
        e.as_name().is_some_and(|n| self.active.contains(n))
    }

    /// The tangent of an atom: its tangent variable, or a zero shaped like it.
    /// The tangent of an active name, None for anything else (the runtime helpers of
    /// methods, constructors and custom rules take None for a constant).
    fn tangent_or_none(&self, e: &Expr) -> Expr {
        match e.as_name() {
            Some(n) if self.active.contains(n) => Expr::name(self.tangent_of(n)),
            _ => Expr::synth(ExprKind::NoneLit),
        }
    }

    fn atom_tangent(&self, e: &Expr) -> Expr {
        match e.as_name() {
            Some(n) if self.active.contains(n) => Expr::name(self.tangent_of(n)),
            _ => Expr::call_path("tangent.init_grad", vec![e.clone()]),
        }
    }

    pub fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        for s in stmts {
            self.stmt(s, &mut out)?;
        }
        Ok(out)
    }

    fn stmt(&mut self, s: &Stmt, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        match &s.kind {
            StmtKind::Assign(target, value) => match &target.kind {
                ExprKind::Name(t) if self.active.contains(t) && is_tape_pop(value) => {
                    // The tangent was pushed after the value: pop it first.
                    out.push(Stmt::assign(&self.tangent_of(t), value.clone()));
                    out.push(s.clone());
                }
                ExprKind::Name(t) if self.active.contains(t) => {
                    let dt = self.tangent_of(t);
                    let mut comment = String::new();
                    printer::stmt(&mut comment, s, 0);
                    let c = Stmt::synth(StmtKind::Comment(format!(
                        "Tangent of: {}",
                        comment.trim_end()
                    )));
                    if let Some(call) = self.custom_call(t, &dt, value, s.span)? {
                        out.push(c);
                        out.push(call);
                        return Ok(());
                    }
                    if let Some(call) = self.user_call(t, &dt, value, s.span)? {
                        out.push(c);
                        out.push(call);
                        return Ok(());
                    }
                    out.push(s.clone());
                    let tangent = self.tangent_stmts(t, &dt, value, s)?;
                    out.push(c);
                    out.extend(tangent);
                }
                ExprKind::Subscript(base, index) => {
                    let restore = is_tape_pop(value);
                    if !restore {
                        out.push(s.clone());
                    }
                    if let Some(x) = base.as_name() {
                        if self.active.contains(x) {
                            let dx = self.tangent_of(x);
                            let v = if is_tape_pop(value) {
                                value.clone()
                            } else {
                                self.atom_tangent(value)
                            };
                            out.push(Stmt::assign(
                                &dx,
                                Expr::call_path(
                                    "tangent.set_tangent_at",
                                    vec![Expr::name(&dx), Expr::name(x), (**index).clone(), v],
                                ),
                            ));
                        }
                    }
                    if restore {
                        out.push(s.clone());
                    }
                }
                _ => {
                    out.push(s.clone());
                    out.extend(super::reverse::real_argument_checks(
                        self.rules,
                        self.resolver,
                        &|e| self.is_active(e),
                        value,
                        s.span,
                    ));
                }
            },
            StmtKind::If(t, a, b) => {
                let a = self.block(a)?;
                let b = self.block(b)?;
                out.push(Stmt::new(StmtKind::If(t.clone(), a, b), s.span));
            }
            StmtKind::For(t, it, body) => {
                let body = self.block(body)?;
                out.push(Stmt::new(
                    StmtKind::For(t.clone(), it.clone(), body),
                    s.span,
                ));
            }
            StmtKind::While(t, body) => {
                let body = self.block(body)?;
                out.push(Stmt::new(StmtKind::While(t.clone(), body), s.span));
            }
            StmtKind::Return(Some(e)) => {
                let dt = self.atom_tangent(e);
                let ret = if self.preserve_result {
                    Expr::synth(ExprKind::Tuple(vec![dt, e.clone()]))
                } else {
                    dt
                };
                out.push(Stmt::new(StmtKind::Return(Some(ret)), s.span));
            }
            StmtKind::ExprStmt(e) if is_tape_push(e) => {
                // Differentiating generated code: the tangent rides on the same tape,
                // right after its value.
                out.push(s.clone());
                if let ExprKind::Call { args, .. } = &e.kind {
                    if let [stack, v] = args.as_slice() {
                        if self.is_active(v) {
                            out.push(crate::tape::push_on(stack.clone(), self.atom_tangent(v)));
                        }
                    }
                }
            }
            StmtKind::ExprStmt(e) => {
                self.check_effect(e)?;
                out.push(s.clone());
            }
            StmtKind::With(..) => {
                return Err(Diagnostic::new(
                    s.span,
                    "`with insert_grad_of(...)` changes the backward pass, which forward mode does not have",
                    "use reverse mode (tangent.grad, or autodiff(mode='reverse')) for code with insert_grad_of",
                ))
            }
            _ => out.push(s.clone()),
        }
        Ok(())
    }

    fn check_effect(&self, e: &Expr) -> Result<(), Diagnostic> {
        super::activity::check_effect(self.rules, self.resolver, self.active, e)
    }

    /// `t, dt = tangent.custom_jvp_call(f, (args...), (tangents...))` for a call to a
    /// custom_jvp function with active arguments (zeros for the inactive ones).
    fn custom_call(
        &mut self,
        t: &str,
        dt: &str,
        value: &Expr,
        stmt_span: Span,
    ) -> Result<Option<Stmt>, Diagnostic> {
        let ExprKind::Call { func, args, kwargs } = &value.kind else {
            return Ok(None);
        };
        let Callee::Custom(f) = self.resolver.callee(func) else {
            return Ok(None);
        };
        let span = if value.span.is_synthetic() {
            stmt_span
        } else {
            value.span
        };
        let active = |e: &Expr| self.is_active(e);
        if !super::reverse::check_custom_call(self.resolver, &f, args, kwargs, &active, span, true)?
        {
            return Ok(None);
        }
        let tangents = args.iter().map(|a| self.atom_tangent(a)).collect();
        let call = Expr::call_path(
            super::reverse::CUSTOM_JVP_CALL,
            vec![
                Expr::name(&f),
                Expr::synth(ExprKind::Tuple(args.to_vec())),
                Expr::synth(ExprKind::Tuple(tangents)),
            ],
        );
        let target = Expr::synth(ExprKind::Tuple(vec![Expr::name(t), Expr::name(dt)]));
        Ok(Some(Stmt::new(StmtKind::Assign(target, call), stmt_span)))
    }

    /// `dt, t = dg(args..., da=...)` for a call to a user function with active arguments.
    fn user_call(
        &mut self,
        t: &str,
        dt: &str,
        value: &Expr,
        span: Span,
    ) -> Result<Option<Stmt>, Diagnostic> {
        let ExprKind::Call { func, args, kwargs } = &value.kind else {
            return Ok(None);
        };
        let Callee::User(f) = self.resolver.callee(func) else {
            return Ok(None);
        };
        let star = self.callees.check_call(&f, args.len(), kwargs, span)?;
        let params = self.callees.params_of(&f)?;
        // (parameter position, its tangent): the tangent of a `*args` parameter is the
        // tuple of its arguments' tangents.
        let mut wrt: Vec<(usize, Expr)> = Vec::new();
        let positional = star.map_or(args.len(), |s| s.min(args.len()));
        for (i, a) in args[..positional].iter().enumerate() {
            if let Some(n) = a.as_name().filter(|n| self.active.contains(*n)) {
                wrt.push((i, Expr::name(self.tangent_of(n))));
            }
        }
        let extra = &args[positional..];
        if extra.iter().any(|a| self.is_active(a)) {
            let tangents = extra.iter().map(|a| self.atom_tangent(a)).collect();
            wrt.push((positional, Expr::synth(ExprKind::Tuple(tangents))));
        }
        for (k, v) in kwargs {
            if let Some(n) = v.as_name().filter(|n| self.active.contains(*n)) {
                let Some(i) = params.iter().position(|p| p == k) else {
                    return Err(Diagnostic::new(
                        span,
                        format!("`{f}` has no parameter named `{k}`"),
                        "pass the arguments the function declares",
                    ));
                };
                wrt.push((i, Expr::name(self.tangent_of(n))));
            }
        }
        if wrt.is_empty() {
            return Ok(None);
        }
        wrt.sort_by_key(|(i, _)| *i);
        let positions: Vec<usize> = wrt.iter().map(|(i, _)| *i).collect();
        let (gname, tparams) = self.callees.forward_of(&f, &positions, span)?;
        let mut kw = kwargs.to_vec();
        for ((_, tangent), tp) in wrt.into_iter().zip(tparams) {
            kw.push((tp, tangent));
        }
        let call = Expr::synth(ExprKind::Call {
            func: Box::new(Expr::name(gname)),
            args: args.to_vec(),
            kwargs: kw,
        });
        let target = Expr::synth(ExprKind::Tuple(vec![Expr::name(dt), Expr::name(t)]));
        Ok(Some(Stmt::new(StmtKind::Assign(target, call), span)))
    }

    fn tangent_stmts(
        &mut self,
        t: &str,
        dt: &str,
        value: &Expr,
        s: &Stmt,
    ) -> Result<Vec<Stmt>, Diagnostic> {
        let span = if value.span.is_synthetic() {
            s.span
        } else {
            value.span
        };
        let zero = || {
            vec![Stmt::assign(
                dt,
                Expr::call_path("tangent.init_grad", vec![Expr::name(t)]),
            )]
        };
        match &value.kind {
            ExprKind::Name(_) => Ok(vec![Stmt::assign(dt, self.atom_tangent(value))]),
            ExprKind::BinOp(op, a, b) => self.library(
                op.canonical(),
                t,
                dt,
                &[(**a).clone(), (**b).clone()],
                &[],
                span,
                value,
            ),
            ExprKind::Unary(UnaryOp::Neg, a) => {
                self.library("operator.neg", t, dt, &[(**a).clone()], &[], span, value)
            }
            ExprKind::Unary(UnaryOp::Pos, a) => {
                self.library("operator.pos", t, dt, &[(**a).clone()], &[], span, value)
            }
            ExprKind::Call { func, args, kwargs } => match self.resolver.callee(func) {
                Callee::Library(q) => self.library(&q, t, dt, args, kwargs, span, value),
                Callee::Method(q) => {
                    let ExprKind::Attr(recv, _) = &func.kind else {
                        unreachable!()
                    };
                    let mut all = vec![(**recv).clone()];
                    all.extend(args.iter().cloned());
                    if let Some(template) = self.rules.tangent(&q) {
                        let active = |n: &str| self.active.contains(n);
                        template::check_differentiated_arguments(
                            template,
                            self.rules.adjoint(&q),
                            self.rules.shape_only_args(&q),
                            &q,
                            &all,
                            kwargs,
                            &active,
                            true,
                        )
                        .map_err(|m| Diagnostic::new(span, m, super::reverse::METHOD_HINT))?;
                    } else if !self.rules.is_nondifferentiable(&q) {
                        return self.object_method(t, dt, func, args, kwargs, span);
                    }
                    self.library(&q, t, dt, &all, kwargs, span, value)
                }
                Callee::User(_) | Callee::Custom(_) => Ok(zero()),
                Callee::Unknown(_) if self.resolver.is_object_method(func) => {
                    self.object_method(t, dt, func, args, kwargs, span)
                }
                Callee::Unknown(_) if self.resolver.is_constructor(func) => {
                    Ok(self.constructor(t, dt, func, args, kwargs))
                }
                Callee::Unknown(name) => Err(self.resolver.unknown_callee(&name, span, "tangent_")),
            },
            ExprKind::Attr(v, a) => {
                let q = self.rules.array_member(a);
                match v.as_name() {
                    // Not an array attribute (`array_attributes`): a field of a
                    // dataclass, namedtuple or object; the tangent has the argument's
                    // structure, so its field is the field's tangent.
                    Some(x) if !self.rules.is_array_attribute(&q) || self.resolver.is_object(v) => {
                        if self.is_active(v) {
                            let dv = Expr::name(self.tangent_of(x));
                            Ok(vec![Stmt::assign(
                                dt,
                                Expr::call_path(
                                    "tangent.field_tangent",
                                    vec![dv, Expr::str_lit(a.as_str())],
                                ),
                            )])
                        } else {
                            Ok(zero())
                        }
                    }
                    _ => self.library(&q, t, dt, &[(**v).clone()], &[], span, value),
                }
            }
            ExprKind::Subscript(v, idx) => {
                if self.is_active(v) {
                    let dv = Expr::name(self.tangent_of(v.as_name().unwrap_or_default()));
                    Ok(vec![Stmt::assign(
                        dt,
                        Expr::synth(ExprKind::Subscript(Box::new(dv), idx.clone())),
                    )])
                } else {
                    Ok(zero())
                }
            }
            ExprKind::Tuple(es) | ExprKind::List(es) => {
                let ts: Vec<Expr> = es.iter().map(|e| self.atom_tangent(e)).collect();
                let kind = if matches!(value.kind, ExprKind::Tuple(_)) {
                    ExprKind::Tuple(ts)
                } else {
                    ExprKind::List(ts)
                };
                Ok(vec![Stmt::assign(dt, Expr::synth(kind))])
            }
            ExprKind::Dict(ks, vs) => {
                // A dict may hold values without a tangent (a name, a flag): theirs is
                // None (`tangent.zero_part`).
                let ts: Vec<Expr> = vs
                    .iter()
                    .map(|e| match e.as_name() {
                        Some(n) if self.active.contains(n) => Expr::name(self.tangent_of(n)),
                        _ => Expr::call_path("tangent.zero_part", vec![e.clone()]),
                    })
                    .collect();
                let kind = ExprKind::Dict(ks.clone(), ts);
                Ok(vec![Stmt::assign(dt, Expr::synth(kind))])
            }
            _ => Ok(zero()),
        }
    }

    /// The tangent of `t = obj.m(args)` for a method of a user class:
    /// `tangent.method_jvp` (the method's forward derivative, built when it runs).
    fn object_method(
        &mut self,
        t: &str,
        dt: &str,
        func: &Expr,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Vec<Stmt>, Diagnostic> {
        let ExprKind::Attr(recv, m) = &func.kind else {
            unreachable!()
        };
        if !self.is_active(recv) && !args.iter().any(|a| self.is_active(a)) {
            return Ok(vec![Stmt::assign(
                dt,
                Expr::call_path("tangent.init_grad", vec![Expr::name(t)]),
            )]);
        }
        if !kwargs.is_empty() {
            return Err(Diagnostic::new(
                span,
                format!("the arguments of the method `{m}` are passed by keyword"),
                "pass them by position: the method is differentiated as a function of its object and its arguments",
            ));
        }
        let tangent = |e: &Expr| self.tangent_or_none(e);
        let call = Expr::call_path(
            super::reverse::METHOD_JVP,
            vec![
                (**recv).clone(),
                Expr::str_lit(m),
                Expr::synth(ExprKind::Tuple(args.to_vec())),
                tangent(recv),
                Expr::synth(ExprKind::Tuple(args.iter().map(tangent).collect())),
            ],
        );
        Ok(vec![Stmt::assign(dt, call)])
    }

    /// The tangents of the runtime helpers that run a custom function's rules in
    /// reverse mode, met when a gradient is differentiated in forward mode (Hessian-vector
    /// products, grad of grad): the helpers' jvps differentiate the user's rules
    /// (`tangent/_custom.py`).
    fn custom_helper_tangent(&self, q: &str, dt: &str, args: &[Expr]) -> Option<Vec<Stmt>> {
        use super::reverse::{CUSTOM_BACKWARD, CUSTOM_FORWARD, METHOD_GRAD};
        let tangent = |e: &Expr| self.tangent_or_none(e);
        let tuple = |es: Vec<Expr>| Expr::synth(ExprKind::Tuple(es));
        let call = match (q, args) {
            (CUSTOM_FORWARD, [f, rest @ ..]) => Expr::call_path(
                "tangent.custom_forward_jvp",
                vec![
                    f.clone(),
                    tuple(rest.to_vec()),
                    tuple(rest.iter().map(tangent).collect()),
                ],
            ),
            (CUSTOM_BACKWARD, [f, res, g, rest @ ..]) => Expr::call_path(
                "tangent.custom_backward_jvp",
                vec![
                    f.clone(),
                    res.clone(),
                    g.clone(),
                    tuple(rest.to_vec()),
                    tangent(res),
                    tangent(g),
                    tuple(rest.iter().map(tangent).collect()),
                ],
            ),
            (METHOD_GRAD, [g, obj, name, margs, which]) => {
                // forward over reverse through a method: the jvp of its gradient
                let t_margs = match &margs.kind {
                    ExprKind::Tuple(items) => tuple(items.iter().map(tangent).collect()),
                    _ => tangent(margs),
                };
                Expr::call_path(
                    "tangent.method_grad_jvp",
                    vec![
                        g.clone(),
                        obj.clone(),
                        name.clone(),
                        margs.clone(),
                        which.clone(),
                        tangent(g),
                        tangent(obj),
                        t_margs,
                    ],
                )
            }
            _ => return None,
        };
        Some(vec![Stmt::assign(dt, call)])
    }

    /// The tangent of `t = Cls(args)` for a class tangent can build:
    /// `tangent.construct_jvp` (an object of the class whose fields are the tangents of
    /// the fields `Cls.__init__` assigns).
    fn constructor(
        &mut self,
        t: &str,
        dt: &str,
        func: &Expr,
        args: &[Expr],
        kwargs: &[(String, Expr)],
    ) -> Vec<Stmt> {
        let any_active = args
            .iter()
            .chain(kwargs.iter().map(|(_, v)| v))
            .any(|a| self.is_active(a));
        if !any_active {
            return vec![Stmt::assign(
                dt,
                Expr::call_path("tangent.init_grad", vec![Expr::name(t)]),
            )];
        }
        let tangent = |e: &Expr| self.tangent_or_none(e);
        let keys: Vec<Expr> = kwargs.iter().map(|(k, _)| Expr::str_lit(k)).collect();
        let call = Expr::call_path(
            "tangent.construct_jvp",
            vec![
                Expr::name(t),
                func.clone(),
                Expr::synth(ExprKind::Tuple(args.to_vec())),
                Expr::synth(ExprKind::Dict(
                    keys.clone(),
                    kwargs.iter().map(|(_, v)| v.clone()).collect(),
                )),
                Expr::synth(ExprKind::Tuple(args.iter().map(tangent).collect())),
                Expr::synth(ExprKind::Dict(
                    keys,
                    kwargs.iter().map(|(_, v)| tangent(v)).collect(),
                )),
            ],
        );
        vec![Stmt::assign(dt, call)]
    }

    #[allow(clippy::too_many_arguments)] // reverse's `library` plus the tangent's name
    fn library(
        &mut self,
        q: &str,
        t: &str,
        dt: &str,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
        value: &Expr,
    ) -> Result<Vec<Stmt>, Diagnostic> {
        let any_active = args
            .iter()
            .chain(kwargs.iter().map(|(_, v)| v))
            .any(|a| self.is_active(a));
        if !any_active || self.rules.is_nondifferentiable(q) {
            return Ok(vec![Stmt::assign(
                dt,
                Expr::call_path("tangent.init_grad", vec![Expr::name(t)]),
            )]);
        }
        let Some(template) = self.rules.tangent(q) else {
            if let Some(stmts) = self.custom_helper_tangent(q, dt, args) {
                return Ok(stmts);
            }
            if let Some(d) = super::reverse::custom_higher_order(q, args, span) {
                return Err(d);
            }
            return Err(missing_tangent_rule(q, span));
        };
        let active = |n: &str| self.active.contains(n);
        template::check_differentiated_arguments(
            template,
            self.rules.adjoint(q),
            self.rules.shape_only_args(q),
            q,
            args,
            kwargs,
            &active,
            false,
        )
        .map_err(|m| Diagnostic::new(span, m, super::reverse::CONSTANT_ARGUMENT_HINT))?;
        // Borrowed, not cloned: a copy per statement made long functions quadratic.
        let tangents = &self.tangents;
        let mut site = ActiveSite {
            active: self.active,
            names: self.names,
            callee: self.resolver.spelled_callee(q, value),
        };
        template::instantiate_tangent(
            self.rules,
            template,
            q,
            t,
            dt,
            args,
            kwargs,
            &mut site,
            &|v| tangents[v].clone(),
        )
        .map_err(|msg| {
            Diagnostic::new(
                span,
                msg,
                "check the call's arguments against the function's signature",
            )
        })
    }
}

pub fn missing_tangent_rule(q: &str, span: Span) -> Diagnostic {
    let short = q.rsplit('.').next().unwrap_or(q);
    Diagnostic::new(
        span,
        format!("no forward-mode derivative rule for `{q}`"),
        format!(
            "register one in your script before calling autodiff:\n\n    @tangent.tangent_({q})\n    def {short}(result, x):\n        d[result] = d[x] * ...  # derivative of {short} with respect to x\n"
        ),
    )
}
