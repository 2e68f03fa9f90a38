//! Reverse mode, joint motion. Each ANF statement yields a forward part (the primal
//! statement, preceded by a push of the value it overwrites) and an adjoint part (the
//! rule's gradient contributions, then the pop that restores the overwritten value).
//! Loops push their trip count and replay their body backwards that many times; `if`
//! statements test a saved condition variable in both passes.

mod calls;
mod checkpoint;
mod custom;

pub use custom::{
    check_custom_call, custom_higher_order, CUSTOM_BACKWARD, CUSTOM_FORWARD, CUSTOM_JVP_CALL,
};

use super::adjoint::{grad_ref, Adj};
use super::desugar::{is_exit_check, is_insert_grad_of};
use super::template::{self, ActiveSite};
use crate::emit::printer;
use crate::resolve::{Callee, Resolver};
use crate::rules::RuleSet;
use crate::syntax::ir::*;
use crate::syntax::names::NameGen;
use crate::syntax::Diagnostic;
use crate::tape::{is_tape_pop, is_tape_push, pop_into, push, tape_of};
use std::collections::{HashMap, HashSet};

/// A call to a user function that must be differentiated: (function, active argument
/// positions). The caller supplies the generated name and its seed parameter.
pub trait Callees {
    fn gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, Vec<String>), Diagnostic>;

    /// Split motion: the callee's (forward, backward) functions and the backward's seed
    /// parameter. The forward returns `(value, tape)`; the backward takes the tape.
    fn split_gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, String), Diagnostic>;

    /// Must a call of `func` run its forward pass once, never again in the backward pass:
    /// does it call itself (directly or through other user functions), or would a second
    /// run repeat an effect (`Generator::has_effects`)?
    fn runs_forward_once(&mut self, func: &str) -> bool;

    /// Would running `stmts` a second time repeat an effect (as `runs_forward_once`
    /// asks of a function)? `bound`: the names bound before them, whose objects the
    /// function made. A checkpointed loop recomputes its body in the backward pass.
    fn replays_effects(&mut self, stmts: &[Stmt], bound: &HashSet<String>) -> bool;

    /// A located error unless a call of `func` with `nargs` positional arguments and
    /// these keywords binds its parameters as Python would (`pipeline::check_call`); else the
    /// index of its `*args` parameter, if it has one.
    fn check_call(
        &mut self,
        func: &str,
        nargs: usize,
        kwargs: &[(String, Expr)],
        span: Span,
    ) -> Result<Option<usize>, Diagnostic>;

    /// The two-phase gradient of a recursive callee (see `Generator::assemble_phased`):
    /// (its name, its seed parameter, its phase parameter). Called with the caller's
    /// `_stack` it runs the forward pass and leaves what its backward pass needs on that
    /// tape; called again with the phase parameter true it runs the backward pass.
    fn phased_gradient_of(
        &mut self,
        func: &str,
        wrt: &[usize],
        span: Span,
    ) -> Result<(String, String, String), Diagnostic>;
}

/// An active argument of a call to a user function: the parameter it binds (`pos`),
/// its place in the tuple of a `*args` parameter (`element`), and the argument.
pub struct Bound {
    pos: usize,
    element: Option<usize>,
    arg: Expr,
}

pub struct Reverse<'a> {
    pub resolver: &'a Resolver<'a>,
    pub rules: &'a RuleSet,
    pub active: &'a HashSet<String>,
    /// Variables whose old value must be saved before they are overwritten.
    pub overwritten: &'a HashSet<String>,
    pub names: &'a mut NameGen,
    pub callees: &'a mut dyn Callees,
    /// Names that may already hold a value at the current point (program order): the
    /// first top-level assignment to a local overwrites nothing and needs no push.
    pub bound: HashSet<String>,
    /// Split motion: user callees run their forward pass once, in the caller's forward
    /// pass, and hand their tape to the caller's tape (no recomputation).
    pub split: bool,
    /// The tape variable of the split callee call being processed.
    pub callee_tape: Option<String>,
    /// Calls of recursive user functions use their two-phase gradient (`phased_call`);
    /// false: joint motion, whose recomputation costs O(n^2) for recursion n deep (kept
    /// when the derivative is to be differentiated again).
    pub phase_recursion: bool,
    /// The phase parameter of the two-phase callee of the call being processed.
    pub callee_phase: Option<String>,
    /// sqrt(n) checkpointing of top-level `for` and `while` loops (`checkpoint=True`).
    pub checkpoint: bool,
    /// Coarsening (`optimizations={'coarsening': True}`): the function's body, whose
    /// straight-line elementwise stretches outside loops get one adjoint each.
    pub coarsen: Option<&'a [Stmt]>,
    /// Reverse mode over generated code: the tape carrying gradients from the adjoint of
    /// an inner pop to the adjoint of the matching inner push (created when first used).
    pub adjoint_tape: Option<String>,
}

/// After a call of a function nondifferentiable for real arguments only, the checks that
/// refuse a complex differentiated argument (`RuleSet::real_argument_checks`); forward
/// and reverse mode put them after the call.
pub(super) fn real_argument_checks(
    rules: &RuleSet,
    resolver: &Resolver,
    active: &dyn Fn(&Expr) -> bool,
    value: &Expr,
    span: Span,
) -> Vec<Stmt> {
    let ExprKind::Call { func, args, kwargs } = &value.kind else {
        return vec![];
    };
    let Callee::Library(q) = resolver.callee(func) else {
        return vec![];
    };
    let mut all = args.clone();
    all.extend(kwargs.iter().map(|(_, v)| v.clone()));
    rules.real_argument_checks(&q, &all, active, span)
}

fn comment(s: &Stmt) -> Adj {
    let mut text = String::new();
    printer::stmt(&mut text, s, 0);
    Adj::Stmt(Stmt::synth(StmtKind::Comment(format!(
        "Grad of: {}",
        text.trim_end()
    ))))
}

impl Reverse<'_> {
    fn adjoint_tape(&mut self) -> String {
        if self.adjoint_tape.is_none() {
            self.adjoint_tape = Some(self.names.fresh("_adjoint_stack"));
        }
        self.adjoint_tape.clone().unwrap_or_default()
    }

    /// Elementwise arithmetic: `+ - * / **`, unary minus, and the one-argument
    /// functions of the elementwise table.
    fn is_elementwise(&self, v: &Expr) -> bool {
        match &v.kind {
            ExprKind::BinOp(op, _, _) => {
                matches!(
                    op,
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Pow
                )
            }
            ExprKind::Unary(op, _) => matches!(op, UnaryOp::Neg | UnaryOp::Pos),
            ExprKind::Call { func, args, kwargs } => {
                args.len() == 1
                    && kwargs.is_empty()
                    && matches!(self.resolver.callee(func),
                        Callee::Library(q) if self.rules.is_elementwise(&q))
            }
            _ => false,
        }
    }

    fn is_active(&self, e: &Expr) -> bool {
        e.as_name().is_some_and(|n| self.active.contains(n))
    }

    /// Returns the forward statements and the adjoint statements (in backward order).
    pub fn block(
        &mut self,
        stmts: &[Stmt],
        depth: usize,
    ) -> Result<(Vec<Stmt>, Vec<Adj>), Diagnostic> {
        let mut fwd = Vec::new();
        let mut parts: Vec<Vec<Adj>> = Vec::new();
        for s in stmts {
            let mut b = Vec::new();
            self.stmt(s, depth, &mut fwd, &mut b)?;
            parts.push(b);
        }
        if let (Some(whole), 0) = (self.coarsen, depth) {
            let elementwise = |v: &Expr| self.is_elementwise(v);
            super::coarsen::coarsen(whole, stmts, &mut parts, &elementwise);
        }
        let bwd = parts.into_iter().rev().flatten().collect();
        Ok((fwd, bwd))
    }

    fn stmt(
        &mut self,
        s: &Stmt,
        depth: usize,
        fwd: &mut Vec<Stmt>,
        bwd: &mut Vec<Adj>,
    ) -> Result<(), Diagnostic> {
        if is_exit_check(s) {
            fwd.push(s.clone());
            return Ok(());
        }
        match &s.kind {
            StmtKind::Assign(target, value) => match &target.kind {
                ExprKind::Name(t) if is_tape_pop(value) && tape_of(value) != Some("_stack") => {
                    // Restoring a value of differentiated generated code from its tape.
                    let pushed = self.overwritten.contains(t);
                    if pushed {
                        fwd.push(push(Expr::name(t)));
                    }
                    fwd.push(s.clone());
                    if self.active.contains(t) {
                        let tape = self.adjoint_tape();
                        bwd.push(Adj::PushGrad {
                            var: t.clone(),
                            index: None,
                            tape,
                        });
                    }
                    if pushed {
                        bwd.push(Adj::Stmt(pop_into(Expr::name(t))));
                    }
                    if self.active.contains(t) {
                        bwd.push(Adj::Kill(t.clone()));
                    }
                }
                ExprKind::Name(t) if value.as_name() == Some(t.as_str()) => {
                    // `x = x` rebinds a name to the object it already holds: no value
                    // changes, so there is nothing to save and no gradient to move (an
                    // adjoint `bx += bx` followed by a restore would lose it). The
                    // statement stays so the primal's errors (an unbound local) stay too.
                    self.bound.insert(t.clone());
                    fwd.push(s.clone());
                }
                ExprKind::Name(t) => {
                    let first_def = depth == 0 && !self.bound.contains(t);
                    self.bound.insert(t.clone());
                    let pushed = self.overwritten.contains(t) && !first_def;
                    if pushed {
                        fwd.push(push(Expr::name(t)));
                    }
                    // Split motion: `t, tape = g_forward(...)`; the tape rides on ours.
                    self.callee_tape = None;
                    self.callee_phase = None;
                    if let Some((call, res)) = self.custom_call(value, s.span)? {
                        // A custom_vjp/custom_jvp function: `t, res = custom_forward(f,
                        // ...)`; its residuals ride on the tape inside loops.
                        let target =
                            Expr::synth(ExprKind::Tuple(vec![Expr::name(t), Expr::name(&res)]));
                        fwd.push(Stmt::new(StmtKind::Assign(target, call), s.span));
                        if depth > 0 {
                            fwd.push(push(Expr::name(&res)));
                            bwd.push(Adj::Stmt(pop_into(Expr::name(&res))));
                        }
                        self.callee_tape = Some(res);
                    } else if let Some((call, phase)) = self.phased_call(value)? {
                        fwd.push(Stmt::new(StmtKind::Assign(Expr::name(t), call), s.span));
                        self.callee_phase = Some(phase);
                    } else if let Some((gfwd, tape)) = self.split_call(value)? {
                        let target =
                            Expr::synth(ExprKind::Tuple(vec![Expr::name(t), Expr::name(&tape)]));
                        fwd.push(Stmt::new(StmtKind::Assign(target, gfwd), s.span));
                        fwd.push(push(Expr::name(&tape)));
                        bwd.push(Adj::Stmt(pop_into(Expr::name(&tape))));
                        self.callee_tape = Some(tape);
                    } else {
                        fwd.push(s.clone());
                        fwd.extend(real_argument_checks(
                            self.rules,
                            self.resolver,
                            &|e| self.is_active(e),
                            value,
                            s.span,
                        ));
                    }
                    let phased = self.callee_phase.is_some();
                    if self.active.contains(t) {
                        let body = self.adjoint(t, value, s)?;
                        if !body.is_empty() {
                            let mut rule = vec![comment(s)];
                            rule.extend(body);
                            bwd.push(if phased {
                                Adj::Phased {
                                    out: t.clone(),
                                    body: rule,
                                }
                            } else {
                                Adj::Rule {
                                    out: t.clone(),
                                    body: rule,
                                }
                            });
                        }
                    }
                    if pushed {
                        bwd.push(Adj::Stmt(pop_into(Expr::name(t))));
                        if self.active.contains(t) {
                            bwd.push(Adj::Kill(t.clone()));
                        }
                    }
                }
                ExprKind::Subscript(base, index)
                    if is_tape_pop(value) && tape_of(value) != Some("_stack") =>
                {
                    let x = base.as_name().unwrap_or_default().to_owned();
                    fwd.push(push(Expr::call_path("tangent.copy", vec![target.clone()])));
                    fwd.push(s.clone());
                    if self.active.contains(&x) {
                        let tape = self.adjoint_tape();
                        bwd.push(Adj::PushGrad {
                            var: x.clone(),
                            index: Some((**index).clone()),
                            tape,
                        });
                        bwd.push(Adj::ZeroAt {
                            var: x,
                            index: (**index).clone(),
                        });
                    }
                    bwd.push(Adj::Stmt(pop_into(target.clone())));
                }
                ExprKind::Subscript(base, index) => {
                    let Some(x) = base.as_name() else {
                        return Err(Diagnostic::new(
                            target.span,
                            "assignment to a nested subscript cannot be differentiated",
                            "index with a tuple instead, e.g. `x[i, j] = v`",
                        ));
                    };
                    // Save the overwritten slice (a copy: a view would see the write).
                    fwd.push(push(Expr::call_path("tangent.copy", vec![target.clone()])));
                    fwd.push(s.clone());
                    if self.active.contains(x) {
                        let mut rule = vec![comment(s)];
                        if self.is_active(value) {
                            let g = Expr::synth(ExprKind::Subscript(
                                Box::new(grad_ref(x)),
                                index.clone(),
                            ));
                            let g = Expr::call_path("tangent.copy", vec![g]);
                            rule.push(Adj::Accum {
                                var: value.as_name().unwrap_or_default().to_owned(),
                                value: Expr::call_path(
                                    "tangent.unbroadcast",
                                    vec![g, value.clone()],
                                ),
                            });
                        }
                        bwd.push(Adj::Rule {
                            out: x.to_owned(),
                            body: rule,
                        });
                        bwd.push(Adj::ZeroAt {
                            var: x.to_owned(),
                            index: (**index).clone(),
                        });
                    }
                    bwd.push(Adj::Stmt(pop_into(target.clone())));
                }
                _ => {
                    return Err(Diagnostic::new(
                        target.span,
                        "this assignment target cannot be differentiated",
                        "assign to a name or a subscript",
                    ))
                }
            },
            StmtKind::ExprStmt(e)
                if is_tape_push(e)
                    && tape_of(e).is_some_and(|t| t.starts_with("_adjoint_stack")) =>
            {
                // A derivative of code that pushes on a tape of its own (Google Tangent's
                // `tangent.push(stack, x, op_id)`) carries that tape's gradients on an
                // adjoint tape; reverse mode over it would need a third tape discipline
                // not built yet, and must not give a number it cannot vouch for.
                return Err(Diagnostic::new(
                    s.span,
                    "reverse mode over a derivative of code that pushes on its own tape (`tangent.push(stack, ...)`) is not supported",
                    "leave tangent.literal_reverse_over_reverse off: grad of grad is then computed forward-over-reverse, which supports it",
                ));
            }
            StmtKind::ExprStmt(e) if is_tape_push(e) && tape_of(e) != Some("_stack") => {
                // Saving a value of differentiated generated code on its tape: the
                // gradient the matching pop passed on comes back here.
                fwd.push(s.clone());
                if let ExprKind::Call { args, .. } = &e.kind {
                    if let Some(v) = args.get(1).and_then(|a| a.as_name()) {
                        if self.active.contains(v) {
                            let tape = self.adjoint_tape();
                            bwd.push(Adj::Accum {
                                var: v.to_owned(),
                                value: crate::tape::pop_from(Expr::name(tape)),
                            });
                        }
                    }
                }
            }
            StmtKind::ExprStmt(e) => {
                self.check_effect(e)?;
                fwd.push(s.clone());
            }
            StmtKind::Return(_) | StmtKind::Pass | StmtKind::Comment(_) => {}
            // Kept in the primal; a test has no derivative.
            StmtKind::Assert(..) => fwd.push(s.clone()),
            StmtKind::If(test, a, b) => {
                let before = self.bound.clone();
                let (fa, ba) = self.block(a, depth)?;
                let after_a = std::mem::replace(&mut self.bound, before);
                let (fb, bb) = self.block(b, depth)?;
                self.bound.extend(after_a);
                fwd.push(Stmt::new(StmtKind::If(test.clone(), fa, fb), s.span));
                bwd.push(Adj::If(test.clone(), ba, bb));
            }
            StmtKind::For(target, iter, body) => {
                let i = target.as_name().unwrap_or_default().to_owned();
                let bound_before = self.bound.clone();
                self.bound.insert(i.clone());
                let count = self
                    .names
                    .fresh(&format!("_n_{}", i.trim_start_matches('_')));
                let has_exit = body.iter().any(is_exit_check);
                let (fbody, bbody) = self.block(body, depth + 1)?;
                if self.checkpoint
                    && depth == 0
                    && !has_exit
                    && !self.callees.replays_effects(body, &bound_before)
                {
                    self.checkpointed_for(
                        s,
                        (&i, iter, body, &count),
                        (fbody, bbody),
                        &bound_before,
                        fwd,
                        bwd,
                    );
                    return Ok(());
                }
                // Pre-loop value of the target, then the trip count.
                fwd.push(push(Expr::name(&i)));
                let mut loop_body = Vec::new();
                if has_exit {
                    fwd.push(Stmt::assign(&count, Expr::num("0")));
                    loop_body.push(increment(&count));
                } else {
                    fwd.push(Stmt::assign(
                        &count,
                        Expr::call_path("len", vec![iter.clone()]),
                    ));
                }
                // Save the target before the exit check so that an iteration which
                // breaks out is replayed like any other.
                let mut fbody = fbody;
                let exit = if fbody.last().is_some_and(is_exit_check) {
                    fbody.pop()
                } else {
                    None
                };
                loop_body.extend(fbody);
                loop_body.push(push(Expr::name(&i)));
                loop_body.extend(exit);
                fwd.push(Stmt::new(
                    StmtKind::For(target.clone(), iter.clone(), loop_body),
                    s.span,
                ));
                if depth > 0 {
                    fwd.push(push(Expr::name(&count)));
                    bwd.push(Adj::Stmt(pop_into(Expr::name(&count))));
                }
                let mut rbody = vec![Adj::Stmt(pop_into(Expr::name(&i)))];
                rbody.extend(bbody);
                bwd.push(Adj::Loop {
                    count: Expr::name(&count),
                    body: rbody,
                });
                bwd.push(Adj::Stmt(pop_into(Expr::name(&i))));
            }
            StmtKind::While(test, body) => {
                let count = self.names.fresh("_n_while");
                let bound_before = self.bound.clone();
                let has_exit = body.iter().any(is_exit_check);
                let (fbody, bbody) = self.block(body, depth + 1)?;
                if self.checkpoint
                    && depth == 0
                    && !has_exit
                    && !self.callees.replays_effects(body, &bound_before)
                {
                    self.checkpointed_while(
                        s,
                        (test, body, &count),
                        (fbody, bbody),
                        &bound_before,
                        fwd,
                        bwd,
                    );
                    return Ok(());
                }
                fwd.push(Stmt::assign(&count, Expr::num("0")));
                let mut loop_body = vec![increment(&count)];
                loop_body.extend(fbody);
                fwd.push(Stmt::new(StmtKind::While(test.clone(), loop_body), s.span));
                if depth > 0 {
                    fwd.push(push(Expr::name(&count)));
                    bwd.push(Adj::Stmt(pop_into(Expr::name(&count))));
                }
                bwd.push(Adj::Loop {
                    count: Expr::name(&count),
                    body: bbody,
                });
            }
            StmtKind::Break | StmtKind::Continue => {
                // Control lowering removes these; reaching here is an internal error.
                return Err(Diagnostic::new(
                    s.span,
                    "internal error: unlowered break/continue",
                    "please report this with the function",
                ));
            }
            StmtKind::AugAssign(..) => {
                return Err(Diagnostic::new(
                    s.span,
                    "internal error: unlowered augmented assignment",
                    "please report this with the function",
                ))
            }
            StmtKind::With(items, body) if is_insert_grad_of(self.resolver, items) => {
                // `with insert_grad_of(x) as g:` runs its body in the backward pass at the
                // mirrored point, `g` being x's gradient there (Google Tangent's "derivative
                // surgery"); nothing in the forward pass. It runs when a gradient reached x.
                let (cm, target) = &items[0];
                let x = match &cm.kind {
                    ExprKind::Call { args, .. } => args[0].as_name().unwrap_or_default().to_owned(),
                    _ => String::new(),
                };
                let g = target
                    .as_ref()
                    .and_then(|t| t.as_name())
                    .unwrap_or_default()
                    .to_owned();
                let marker = super::adjoint::grad_marker(&x);
                let note = Adj::Stmt(Stmt::synth(StmtKind::Comment(format!(
                    "Inserted code: with insert_grad_of({x}) as {g}"
                ))));
                let stmts = std::iter::once(note)
                    .chain(body.iter().map(|st| {
                        let mut st = st.clone();
                        crate::syntax::visit::map_stmt_exprs(&mut st, &mut |e| {
                            let mut e = e.clone();
                            e.rename(&|n| (n == g).then(|| Expr::name(&marker)));
                            e
                        });
                        Adj::Stmt(st)
                    }))
                    .collect();
                bwd.push(Adj::Rule {
                    out: x,
                    body: stmts,
                });
            }
            StmtKind::With(..) => {
                return Err(Diagnostic::new(
                    s.span,
                    "internal error: unexpanded `with` block",
                    "please report this with the function",
                ))
            }
        }
        Ok(())
    }

    /// A call made for its effect must not touch active values: its effect would be
    /// invisible to the derivative.
    fn check_effect(&self, e: &Expr) -> Result<(), Diagnostic> {
        super::activity::check_effect(self.rules, self.resolver, self.active, e)
    }

    /// The adjoint statements of `t = value` (empty when nothing is differentiable).
    fn adjoint(&mut self, t: &str, value: &Expr, s: &Stmt) -> Result<Vec<Adj>, Diagnostic> {
        let span = if value.span.is_synthetic() {
            s.span
        } else {
            value.span
        };
        match &value.kind {
            ExprKind::Name(src) => Ok(if self.active.contains(src) {
                vec![Adj::Accum {
                    var: src.clone(),
                    value: grad_ref(t),
                }]
            } else {
                vec![]
            }),
            ExprKind::BinOp(op, a, b) => self.library(
                op.canonical(),
                t,
                &[(**a).clone(), (**b).clone()],
                &[],
                span,
                value,
            ),
            ExprKind::Unary(UnaryOp::Neg, a) => {
                self.library("operator.neg", t, &[(**a).clone()], &[], span, value)
            }
            ExprKind::Unary(UnaryOp::Pos, a) => {
                self.library("operator.pos", t, &[(**a).clone()], &[], span, value)
            }
            ExprKind::Call { func, args, kwargs } => match self.resolver.callee(func) {
                Callee::Library(q) => self.library(&q, t, args, kwargs, span, value),
                Callee::Method(q) => {
                    let ExprKind::Attr(recv, _) = &func.kind else {
                        unreachable!()
                    };
                    let mut all = vec![(**recv).clone()];
                    all.extend(args.iter().cloned());
                    if let Some(template) = self.rules.adjoint(&q) {
                        let active = |n: &str| self.active.contains(n);
                        template::check_differentiated_arguments(
                            template,
                            None,
                            self.rules.shape_only_args(&q),
                            &q,
                            &all,
                            kwargs,
                            &active,
                            true,
                        )
                        .map_err(|m| Diagnostic::new(span, m, METHOD_HINT))?;
                    } else if !self.rules.is_nondifferentiable(&q) {
                        // Not an array method tangent knows: a method of the value's own
                        // class, differentiated when it runs.
                        return self.object_method(t, func, args, kwargs, span);
                    }
                    self.library(&q, t, &all, kwargs, span, value)
                }
                Callee::User(f) => self.user_call(&f, t, func, args, kwargs, span),
                Callee::Unknown(_) if self.resolver.is_object_method(func) => {
                    self.object_method(t, func, args, kwargs, span)
                }
                Callee::Unknown(_) if self.resolver.is_constructor(func) => {
                    Ok(self.constructor(t, func, args, kwargs))
                }
                Callee::Custom(f) => self.custom_adjoint(&f, t, args, span),
                Callee::Unknown(name) => Err(self.resolver.unknown_callee(&name, span, "adjoint")),
            },
            ExprKind::Attr(v, a) => {
                let q = self.rules.array_member(a);
                match v.as_name() {
                    // Not an array attribute (`array_attributes`): a field of a
                    // dataclass, namedtuple or object (`tangent.add_grad_at` takes the
                    // field's name as the index and is an error for any other value).
                    Some(x) if !self.rules.is_array_attribute(&q) || self.resolver.is_object(v) => {
                        Ok(if self.active.contains(x) {
                            vec![Adj::AccumAt {
                                var: x.to_owned(),
                                index: Expr::str_lit(a.as_str()),
                                value: grad_ref(t),
                            }]
                        } else {
                            vec![]
                        })
                    }
                    _ => self.library(&q, t, &[(**v).clone()], &[], span, value),
                }
            }
            ExprKind::Subscript(v, idx) => {
                let Some(x) = v.as_name() else {
                    return Ok(vec![]);
                };
                if !self.active.contains(x) {
                    return Ok(vec![]);
                }
                Ok(vec![Adj::AccumAt {
                    var: x.to_owned(),
                    index: (**idx).clone(),
                    value: grad_ref(t),
                }])
            }
            ExprKind::Tuple(es) | ExprKind::List(es) | ExprKind::Dict(_, es) => {
                let mut out = Vec::new();
                for (i, e) in es.iter().enumerate() {
                    // A dict's gradient has its keys (`tangent.init_grad`).
                    let key = match &value.kind {
                        ExprKind::Dict(ks, _) => ks[i].clone(),
                        _ => Expr::num(i.to_string()),
                    };
                    if let Some(n) = e.as_name() {
                        if self.active.contains(n) {
                            out.push(Adj::Accum {
                                var: n.to_owned(),
                                value: Expr::call_path("tangent.grad_item", vec![grad_ref(t), key]),
                            });
                        }
                    }
                }
                Ok(out)
            }
            _ => Ok(vec![]),
        }
    }

    fn library(
        &mut self,
        q: &str,
        t: &str,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
        value: &Expr,
    ) -> Result<Vec<Adj>, Diagnostic> {
        let any_active = args
            .iter()
            .chain(kwargs.iter().map(|(_, v)| v))
            .any(|a| self.is_active(a));
        if !any_active || self.rules.is_nondifferentiable(q) {
            return Ok(vec![]);
        }
        let Some(template) = self.rules.adjoint(q) else {
            if let Some(adjs) = self.custom_helper_adjoint(q, t, args) {
                return Ok(adjs);
            }
            if q == METHOD_GRAD {
                if let Some(d) = custom_higher_order(q, args, span) {
                    return Err(d);
                }
            }
            return Err(missing_rule(q, span, value));
        };
        let active = |n: &str| self.active.contains(n);
        template::check_differentiated_arguments(
            template,
            None,
            self.rules.shape_only_args(q),
            q,
            args,
            kwargs,
            &active,
            false,
        )
        .map_err(|m| Diagnostic::new(span, m, CONSTANT_ARGUMENT_HINT))?;
        let mut site = ActiveSite {
            active: self.active,
            names: self.names,
            callee: self.resolver.spelled_callee(q, value),
        };
        template::instantiate(template, q, t, args, kwargs, &mut site).map_err(|msg| {
            Diagnostic::new(
                span,
                msg,
                "check the call's arguments against the function's signature",
            )
        })
    }
}

/// The error for a differentiable-looking call with no rule, showing the template to
/// register.
/// The hint of an active argument passed to a method where the rule has no derivative.
/// For an active argument whose derivative a library rule does not give.
pub const CONSTANT_ARGUMENT_HINT: &str = "pass a value that does not depend on the differentiated input there, or register a rule that gives its derivative (@tangent.adjoint with `d[...]` for that argument)";

pub const METHOD_HINT: &str = "call a function with a derivative rule instead, or pass values that do not depend on the input there; if the object is of your own class, call the method through the class (`MyClass.method(obj, x)`), which is differentiated as the class's function";

/// The runtime helpers a call of a method of a user class becomes (`tangent/_methods.py`).
pub const METHOD_GRAD: &str = "tangent.method_grad";
pub const METHOD_JVP: &str = "tangent.method_jvp";

pub fn missing_rule(q: &str, span: Span, value: &Expr) -> Diagnostic {
    let short = q.rsplit('.').next().unwrap_or(q);
    let _ = value;
    if let Some(b @ ("zip" | "enumerate" | "reversed" | "map")) = q.strip_prefix("builtins.") {
        return Diagnostic::new(
            span,
            format!("`{b}(...)` is differentiated only as what a `for` loop or a comprehension iterates over"),
            format!("loop over it (`for a, b in {b}(...)`), or build the list with a comprehension: `[v for v in {b}(...)]`"),
        );
    }
    Diagnostic::new(
        span,
        format!("no derivative rule for `{q}`"),
        format!(
            "register one in your script before calling grad:\n\n    @tangent.adjoint({q})\n    def {short}(result, x):\n        d[x] = d[result] * ...  # derivative of {short} with respect to x\n"
        ),
    )
}

/// Variables that are assigned more than once, or inside a loop: their old values must be
/// saved before each overwrite.
pub fn overwritten(body: &[Stmt], params: &[String]) -> HashSet<String> {
    let mut count: HashMap<String, usize> = HashMap::new();
    for p in params {
        count.insert(p.clone(), 1);
    }
    fn visit(stmts: &[Stmt], in_loop: bool, count: &mut HashMap<String, usize>) {
        for s in stmts {
            match &s.kind {
                StmtKind::Assign(t, _) => {
                    if let Some(n) = t.as_name() {
                        *count.entry(n.to_owned()).or_default() += if in_loop { 2 } else { 1 };
                    }
                }
                StmtKind::If(_, a, b) => {
                    visit(a, in_loop, count);
                    visit(b, in_loop, count);
                }
                StmtKind::For(_, _, b) | StmtKind::While(_, b) => visit(b, true, count),
                _ => {}
            }
        }
    }
    visit(body, false, &mut count);
    count
        .into_iter()
        .filter(|(_, c)| *c > 1)
        .map(|(n, _)| n)
        .collect()
}

fn increment(count: &str) -> Stmt {
    Stmt::assign(
        count,
        Expr::synth(ExprKind::BinOp(
            BinOp::Add,
            Box::new(Expr::name(count)),
            Box::new(Expr::num("1")),
        )),
    )
}
