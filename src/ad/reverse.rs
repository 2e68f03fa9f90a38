//! Reverse mode, joint motion. Each ANF statement yields a forward part (the primal
//! statement, preceded by a push of the value it overwrites) and an adjoint part (the
//! rule's gradient contributions, then the pop that restores the overwritten value).
//! Loops push their trip count and replay their body backwards that many times; `if`
//! statements test a saved condition variable in both passes.

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

    /// `t = obj.m(args)` for a method of a user class: each active operand's gradient is
    /// `tangent.method_grad` (the method's own derivative, built when it runs, as a
    /// function of `obj` and the arguments).
    fn object_method(
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

    /// The adjoints of the runtime helpers that run a custom function's rules, met when
    /// generated code is differentiated again (`tangent/_custom.py`): each active
    /// operand's gradient is the helper's vjp, which differentiates the user's rule.
    fn custom_helper_adjoint(&mut self, q: &str, t: &str, args: &[Expr]) -> Option<Vec<Adj>> {
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

    /// `t = Cls(args)` for a class tangent can build: each active argument's gradient is
    /// `tangent.construct_grad` (the gradient of the object's fields, carried back
    /// through `Cls.__init__` differentiated as the function that assigns them).
    fn constructor(
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
        };
        template::instantiate(template, q, t, args, kwargs, &mut site).map_err(|msg| {
            Diagnostic::new(
                span,
                msg,
                "check the call's arguments against the function's signature",
            )
        })
    }

    /// Split motion, for `t = g(...)` with `g` a user function taking active arguments:
    /// the call of g's forward function and a fresh name for its tape.
    fn split_call(&mut self, value: &Expr) -> Result<Option<(Expr, String)>, Diagnostic> {
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

    /// For `t = f(...)` with `f` a custom_vjp/custom_jvp function taking active
    /// arguments: the forward-pass call `tangent.custom_forward(f, ...)` (the value and
    /// the residuals) and a fresh name for the residuals.
    fn custom_call(
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
    fn custom_adjoint(
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

    /// For `t = g(...)` with `g` a recursive user function, or one whose forward pass has
    /// effects, taking active arguments (and joint motion): the forward phase of g's
    /// two-phase gradient on our tape, and its phase parameter. Each level of a recursion
    /// then runs its forward pass once, instead of once per level above it; a `print`,
    /// a random draw or a store into another object happens once, as in the primal.
    fn phased_call(&mut self, value: &Expr) -> Result<Option<(Expr, String)>, Diagnostic> {
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
    fn active_positions(
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

    fn user_call(
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

impl Reverse<'_> {
    /// sqrt(n) checkpointing of `for i in iter: body`. The forward pass runs the plain
    /// body in segments of k = ceil(sqrt(n)) iterations, saving the loop's state at the
    /// start of each segment; the backward pass walks the segments last to first,
    /// restores a segment's state, re-runs it with the tape, and replays its adjoint. The
    /// tape then holds one segment and the checkpoints n/k states: O(sqrt(n)) memory.
    fn checkpointed_for(
        &mut self,
        s: &Stmt,
        (i, iter, body, n): (&str, &Expr, &[Stmt], &str),
        (fbody, bbody): (Vec<Stmt>, Vec<Adj>),
        bound_before: &HashSet<String>,
        fwd: &mut Vec<Stmt>,
        bwd: &mut Vec<Adj>,
    ) {
        let stem = i.trim_start_matches('_').to_owned();
        let range_v = self.names.fresh(&format!("_range_{stem}"));
        let k = self.names.fresh(&format!("_k_{stem}"));
        let ckpts = self.names.fresh(&format!("_checkpoints_{stem}"));
        let seg = self.names.fresh(&format!("_segment_{stem}"));
        let m = self.names.fresh(&format!("_m_{stem}"));
        let (state, saved, restore_target) = loop_state(vec![i.to_owned()], body);
        let name = |v: &str| Expr::name(v);
        let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
        let slice = Expr::synth(ExprKind::Subscript(
            Box::new(name(&range_v)),
            Box::new(Expr::synth(ExprKind::Slice(
                Some(Box::new(name(&seg))),
                Some(Box::new(bin(BinOp::Add, name(&seg), name(&k)))),
                None,
            ))),
        ));
        // Forward.
        fwd.push(push(name(i)));
        fwd.push(Stmt::assign(&range_v, iter.clone()));
        fwd.push(Stmt::assign(
            n,
            Expr::call_path("len", vec![name(&range_v)]),
        ));
        fwd.push(Stmt::assign(
            &k,
            Expr::call_path("tangent.checkpoint_stride", vec![name(n)]),
        ));
        fwd.push(Stmt::assign(&ckpts, Expr::synth(ExprKind::List(vec![]))));
        for v in &state[1..] {
            if !bound_before.contains(v) {
                fwd.push(Stmt::assign(v, Expr::synth(ExprKind::NoneLit)));
            }
        }
        let segments = Expr::call_path("range", vec![Expr::num("0"), name(n), name(&k)]);
        let save = Stmt::synth(StmtKind::ExprStmt(Expr::synth(ExprKind::Call {
            func: Box::new(Expr::attr(name(&ckpts), "append")),
            args: vec![saved],
            kwargs: vec![],
        })));
        let plain = Stmt::new(StmtKind::For(name(i), slice.clone(), body.to_vec()), s.span);
        fwd.push(Stmt::new(
            StmtKind::For(name(&seg), segments.clone(), vec![save, plain]),
            s.span,
        ));
        // Backward: segments last to first.
        let mut rerun = fbody;
        rerun.push(push(name(i)));
        let mut replay = vec![Adj::Stmt(pop_into(name(i)))];
        replay.extend(bbody);
        let mut seg_body = restore_segment(
            restore_target,
            &ckpts,
            bin(BinOp::FloorDiv, name(&seg), name(&k)),
        );
        seg_body.extend([
            Adj::Stmt(Stmt::synth(StmtKind::For(name(i), slice.clone(), rerun))),
            Adj::Stmt(Stmt::assign(&m, Expr::call_path("len", vec![slice]))),
            Adj::Loop {
                count: name(&m),
                body: replay,
            },
        ]);
        bwd.push(Adj::ForIn {
            target: name(&seg),
            iter: Expr::call_path("reversed", vec![segments]),
            body: seg_body,
        });
        bwd.push(Adj::Stmt(pop_into(name(i))));
    }

    /// Checkpointing of `while test: body`, whose trip count is known only at the end:
    /// segment j (from 0) starts at iteration j(j+1)/2 and is j+1 iterations long, so n
    /// iterations make about sqrt(2n) segments of at most about sqrt(2n) iterations.
    /// The forward pass saves the state at each segment start; the backward pass walks
    /// the segments last to first, restores a segment, re-runs its iterations with the
    /// tape (the test was true for each of them) and replays their adjoint.
    fn checkpointed_while(
        &mut self,
        s: &Stmt,
        (test, body, n): (&Expr, &[Stmt], &str),
        (fbody, bbody): (Vec<Stmt>, Vec<Adj>),
        bound_before: &HashSet<String>,
        fwd: &mut Vec<Stmt>,
        bwd: &mut Vec<Adj>,
    ) {
        let ckpts = self.names.fresh("_checkpoints_while");
        let next = self.names.fresh("_next_segment_while");
        let seg = self.names.fresh("_segment_while");
        let start = self.names.fresh("_start_while");
        let m = self.names.fresh("_m_while");
        let (state, saved, restore_target) = loop_state(vec![], body);
        let name = |v: &str| Expr::name(v);
        let num = |v: &str| Expr::num(v);
        let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
        let len = |v: &str| Expr::call_path("len", vec![name(v)]);
        // Forward.
        fwd.push(Stmt::assign(n, num("0")));
        fwd.push(Stmt::assign(&ckpts, Expr::synth(ExprKind::List(vec![]))));
        fwd.push(Stmt::assign(&next, num("0")));
        for v in &state {
            if !bound_before.contains(v) {
                fwd.push(Stmt::assign(v, Expr::synth(ExprKind::NoneLit)));
            }
        }
        let save = Stmt::synth(StmtKind::ExprStmt(Expr::synth(ExprKind::Call {
            func: Box::new(Expr::attr(name(&ckpts), "append")),
            args: vec![saved],
            kwargs: vec![],
        })));
        let at_start = Expr::synth(ExprKind::Compare(
            Box::new(name(n)),
            vec![(CmpOp::Eq, name(&next))],
        ));
        let mut loop_body = vec![Stmt::synth(StmtKind::If(
            at_start,
            vec![
                save,
                // The next segment is one iteration longer than this one.
                Stmt::assign(&next, bin(BinOp::Add, name(&next), len(&ckpts))),
            ],
            vec![],
        ))];
        loop_body.extend(body.iter().cloned());
        loop_body.push(increment(n));
        fwd.push(Stmt::new(StmtKind::While(test.clone(), loop_body), s.span));
        // Backward: segments last to first.
        let seg_start = bin(
            BinOp::FloorDiv,
            bin(
                BinOp::Mul,
                name(&seg),
                bin(BinOp::Add, name(&seg), num("1")),
            ),
            num("2"),
        );
        let seg_len = Expr::call_path(
            "min",
            vec![
                bin(BinOp::Add, name(&seg), num("1")),
                bin(BinOp::Sub, name(n), name(&start)),
            ],
        );
        let mut seg_body = restore_segment(restore_target, &ckpts, name(&seg));
        seg_body.extend([
            Adj::Stmt(Stmt::assign(&start, seg_start)),
            Adj::Stmt(Stmt::assign(&m, seg_len)),
            Adj::Stmt(Stmt::synth(StmtKind::For(
                name("_"),
                Expr::call_path("range", vec![name(&m)]),
                fbody,
            ))),
            Adj::Loop {
                count: name(&m),
                body: bbody,
            },
        ]);
        bwd.push(Adj::ForIn {
            target: name(&seg),
            iter: Expr::call_path(
                "reversed",
                vec![Expr::call_path("range", vec![len(&ckpts)])],
            ),
            body: seg_body,
        });
    }
}

/// The start of a segment's backward pass: restore the loop's state from
/// `checkpoints[index]`.
fn restore_segment(restore_target: Expr, checkpoints: &str, index: Expr) -> Vec<Adj> {
    vec![
        Adj::Stmt(Stmt::synth(StmtKind::Comment(
            "Restore the segment's state and re-run it with the tape".into(),
        ))),
        Adj::Stmt(Stmt::synth(StmtKind::Assign(
            restore_target,
            Expr::synth(ExprKind::Subscript(
                Box::new(Expr::name(checkpoints)),
                Box::new(index),
            )),
        ))),
    ]
}

/// The state of a checkpointed loop: `first` (the loop's own counters) and everything
/// its body assigns; the tuple that saves it (arrays written in place are copied: a
/// checkpoint must not see later writes) and the tuple target that restores it.
fn loop_state(first: Vec<String>, body: &[Stmt]) -> (Vec<String>, Expr, Expr) {
    let mut state = first;
    let mut mutated: HashSet<String> = HashSet::new();
    walk_stmts(body, &mut |x| {
        if let StmtKind::Assign(t, _) | StmtKind::For(t, _, _) = &x.kind {
            match &t.kind {
                ExprKind::Subscript(b, _) => {
                    if let Some(n) = b.as_name() {
                        mutated.insert(n.to_owned());
                        if !state.iter().any(|v| v == n) {
                            state.push(n.to_owned());
                        }
                    }
                }
                _ => {
                    let mut v = Vec::new();
                    t.names(&mut v);
                    for n in v {
                        if !state.contains(&n) {
                            state.push(n);
                        }
                    }
                }
            }
        }
    });
    let saved = Expr::synth(ExprKind::Tuple(
        state
            .iter()
            .map(|v| {
                if mutated.contains(v) {
                    Expr::call_path("tangent.copy", vec![Expr::name(v)])
                } else {
                    Expr::name(v)
                }
            })
            .collect(),
    ));
    let restore = Expr::synth(ExprKind::Tuple(state.iter().map(Expr::name).collect()));
    (state, saved, restore)
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

/// The error for a differentiable-looking call with no rule, showing the template to
/// register.
/// The hint of an active argument passed to a method where the rule has no derivative.
/// For an active argument whose derivative a library rule does not give.
pub const CONSTANT_ARGUMENT_HINT: &str = "pass a value that does not depend on the differentiated input there, or register a rule that gives its derivative (@tangent.adjoint with `d[...]` for that argument)";

pub const METHOD_HINT: &str = "call a function with a derivative rule instead, or pass values that do not depend on the input there; if the object is of your own class, call the method through the class (`MyClass.method(obj, x)`), which is differentiated as the class's function";

/// The runtime helpers a call of a custom function becomes (`tangent/_custom.py`).
pub const CUSTOM_FORWARD: &str = "tangent.custom_forward";
pub const CUSTOM_BACKWARD: &str = "tangent.custom_backward";
pub const CUSTOM_JVP_CALL: &str = "tangent.custom_jvp_call";

/// The runtime helpers a call of a method of a user class becomes (`tangent/_methods.py`).
pub const METHOD_GRAD: &str = "tangent.method_grad";
pub const METHOD_JVP: &str = "tangent.method_jvp";

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
