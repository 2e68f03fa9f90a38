//! Normalisation before differentiation, in this order:
//! 1. `x op= v` -> `x = x op v`; tuple targets -> one assignment per name;
//!    `for x in xs` -> `for _i in range(len(xs)): x = xs[_i]`.
//! 2. `break`, `continue` and early `return` -> flags and guarded blocks, so every loop
//!    body and the function body run to their end (the reverse pass can then replay them).
//!    A loop that may stop early ends its body with `if flag: break`, the only `break` left.
//! 3. ANF: one operation per assignment, each `if` tests a fresh condition variable, the
//!    function ends with exactly one `return name`.

mod anf;
mod control;
mod with;

pub use anf::Anf;
pub use control::{is_exit_check, Control};
pub use with::expand_with;

use crate::resolve::{Callee, Resolver};
use crate::syntax::ir::*;
use crate::syntax::names::{hint_for, NameGen};
use crate::syntax::visit::substitute;
use crate::syntax::Diagnostic;
use crate::tape::is_tape_pop;
use std::collections::HashMap;

pub struct Desugar<'a> {
    pub names: &'a mut NameGen,
    pub resolver: &'a Resolver<'a>,
    /// Names whose object another name may hold (`alias`): their in-place updates are
    /// refused or guarded.
    pub shared: super::alias::Aliasing,
    /// The function's source text, for the line numbers of run-time guards.
    pub text: &'a str,
    /// Names updated in place earlier in the current block, already checked.
    pub checked: std::collections::HashSet<String>,
}

fn err(span: Span, msg: impl Into<String>, hint: impl Into<String>) -> Diagnostic {
    Diagnostic::new(span, msg, hint)
}

impl Desugar<'_> {
    // ---------------------------------------------------------------- step 1

    pub fn simplify(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        let outer = std::mem::take(&mut self.checked);
        for s in stmts {
            // After a checked `y op= v`, `y` holds the operation's new value: later updates
            // in this block need no check until a statement mentions `y` otherwise.
            let updated = match &s.kind {
                StmtKind::AugAssign(t, _, v) => {
                    t.as_name().filter(|n| !v.reads(n)).map(str::to_owned)
                }
                _ => None,
            };
            if updated.is_none() {
                let mut mentioned = Vec::new();
                walk_stmts(std::slice::from_ref(&s), &mut |x| {
                    crate::syntax::visit::stmt_exprs(x, &mut |e| e.names(&mut mentioned))
                });
                for n in mentioned {
                    self.checked.remove(&n);
                }
            }
            let mut s = s;
            self.drop_op_ids(&mut s);
            self.simplify_stmt(s, &mut out)?;
            self.checked.extend(updated);
        }
        self.checked = outer;
        Ok(out)
    }

    /// Google Tangent's tape calls with an op id, `tangent.push(stack, x, op_id)` and
    /// `tangent.pop(stack, op_id)`, as tangent's own: the id only paired pushes with pops
    /// for Google's optimizer.
    fn drop_op_ids(&self, s: &mut Stmt) {
        let resolver = self.resolver;
        crate::syntax::visit::map_stmt_exprs(s, &mut |e| {
            let mut e = e.clone();
            crate::syntax::visit::substitute(&mut e, &mut |x| {
                let ExprKind::Call { func, args, kwargs } = &x.kind else {
                    return None;
                };
                let keep = match resolver.callee(func) {
                    Callee::Library(q) if q == crate::tape::PUSH && args.len() == 3 => 2,
                    Callee::Library(q) if q == crate::tape::POP && args.len() == 2 => 1,
                    _ => return None,
                };
                if !kwargs.is_empty() {
                    return None;
                }
                Some(Expr::new(
                    ExprKind::Call {
                        func: func.clone(),
                        args: args[..keep].to_vec(),
                        kwargs: vec![],
                    },
                    x.span,
                ))
            });
            e
        });
    }

    /// Inlines `name = lambda params: body` at the places `name` is called. The lambda
    /// must be assigned once, at the top level of the function, before its calls.
    pub fn inline_lambdas(&mut self, body: Vec<Stmt>) -> Result<Vec<Stmt>, Diagnostic> {
        let mut lambdas: HashMap<String, (Vec<String>, Expr)> = HashMap::new();
        let mut assigned: HashMap<String, usize> = HashMap::new();
        walk_stmts(&body, &mut |s| {
            if let StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) = &s.kind {
                t.bound_names(&mut |n| *assigned.entry(n.to_owned()).or_default() += 1);
            }
        });
        let mut kept = Vec::new();
        for s in body {
            if let StmtKind::Assign(t, v) = &s.kind {
                if let (Some(name), ExprKind::Lambda(params, lbody)) = (t.as_name(), &v.kind) {
                    if assigned.get(name).copied().unwrap_or(0) > 1 {
                        return Err(err(
                            s.span,
                            format!("the lambda `{name}` is reassigned, so the function it stands for is not known"),
                            "assign each lambda to its own name once",
                        ));
                    }
                    lambdas.insert(name.to_owned(), (params.clone(), (**lbody).clone()));
                    continue;
                }
            }
            kept.push(s);
        }
        if lambdas.is_empty() {
            return Ok(kept);
        }
        let mut failure = None;
        let mut inline = |e: &Expr| -> Expr {
            let mut e = e.clone();
            // Lambdas may call lambdas: substitute until nothing is left (bounded).
            for _ in 0..16 {
                let mut changed = false;
                crate::syntax::visit::substitute(&mut e, &mut |x| {
                    let ExprKind::Call { func, args, kwargs } = &x.kind else {
                        return None;
                    };
                    let (params, body) = lambdas.get(func.as_name()?)?;
                    if args.len() != params.len() || !kwargs.is_empty() {
                        failure = Some(err(
                            x.span,
                            format!(
                                "this call passes {} arguments to a lambda that takes {}",
                                args.len(),
                                params.len()
                            ),
                            "pass exactly the lambda's parameters, by position",
                        ));
                        return None;
                    }
                    let mut b = body.clone();
                    let map: HashMap<&str, &Expr> =
                        params.iter().map(|p| p.as_str()).zip(args.iter()).collect();
                    b.rename(&|n| map.get(n).map(|a| (*a).clone()));
                    changed = true;
                    Some(b)
                });
                if !changed {
                    break;
                }
            }
            e
        };
        let kept = kept
            .into_iter()
            .map(|mut s| {
                crate::syntax::visit::map_stmt_exprs(&mut s, &mut inline);
                s
            })
            .collect();
        match failure {
            Some(d) => Err(d),
            None => Ok(kept),
        }
    }

    /// Replaces each list comprehension in `e` by a fresh list built before it with loops.
    fn hoist_comprehensions(&mut self, e: Expr, out: &mut Vec<Stmt>) -> Result<Expr, Diagnostic> {
        let mut pending = Vec::new();
        let mut e = self.consumed_iterators(e);
        let names = &mut *self.names;
        crate::syntax::visit::substitute(&mut e, &mut |x| {
            if let ExprKind::ListComp(elt, gens) = &x.kind {
                let n = names.fresh("_comp");
                pending.push((n.clone(), (**elt).clone(), gens.clone(), x.span));
                return Some(Expr::new(ExprKind::Name(n), x.span));
            }
            None
        });
        for (name, elt, gens, span) in pending {
            // Comprehension variables do not leak: give them fresh names.
            let mut elt = elt;
            let mut gens = gens;
            for i in 0..gens.len() {
                let mut targets = Vec::new();
                gens[i].target.names(&mut targets);
                for t in targets {
                    let fresh = self.names.fresh(&format!("_{t}"));
                    let rename = |n: &str| (n == t).then(|| Expr::name(&fresh));
                    gens[i].target.rename(&rename);
                    for c in &mut gens[i].ifs {
                        c.rename(&rename);
                    }
                    for g in gens.iter_mut().skip(i + 1) {
                        g.iter.rename(&rename);
                        for c in &mut g.ifs {
                            c.rename(&rename);
                        }
                    }
                    elt.rename(&rename);
                }
            }
            let append = Stmt::new(
                StmtKind::Assign(
                    Expr::name(&name),
                    Expr::new(
                        ExprKind::BinOp(
                            BinOp::Add,
                            Box::new(Expr::name(&name)),
                            Box::new(Expr::synth(ExprKind::List(vec![elt]))),
                        ),
                        span,
                    ),
                ),
                span,
            );
            let mut body = vec![append];
            for g in gens.into_iter().rev() {
                if !g.ifs.is_empty() {
                    let test = if g.ifs.len() == 1 {
                        g.ifs
                            .into_iter()
                            .next()
                            .unwrap_or_else(|| Expr::synth(ExprKind::Bool(true)))
                    } else {
                        Expr::synth(ExprKind::BoolOp(BoolOp::And, g.ifs))
                    };
                    body = vec![Stmt::new(StmtKind::If(test, body, vec![]), span)];
                }
                body = vec![Stmt::new(StmtKind::For(g.target, g.iter, body), span)];
            }
            out.push(Stmt::new(
                StmtKind::Assign(Expr::name(&name), Expr::synth(ExprKind::List(vec![]))),
                span,
            ));
            for st in body {
                self.simplify_stmt(st, out)?;
            }
        }
        Ok(e)
    }

    fn simplify_stmt(&mut self, s: Stmt, out: &mut Vec<Stmt>) -> Result<(), Diagnostic> {
        let span = s.span;
        // Comprehensions become loops placed before the statement that uses them.
        let s = match s.kind {
            StmtKind::Assign(t, v) => {
                let v = self.hoist_comprehensions(v, out)?;
                Stmt::new(StmtKind::Assign(t, v), span)
            }
            StmtKind::AugAssign(t, op, v) => {
                let v = self.hoist_comprehensions(v, out)?;
                Stmt::new(StmtKind::AugAssign(t, op, v), span)
            }
            StmtKind::Return(Some(v)) => {
                let v = self.hoist_comprehensions(v, out)?;
                Stmt::new(StmtKind::Return(Some(v)), span)
            }
            StmtKind::ExprStmt(v) => {
                let v = self.hoist_comprehensions(v, out)?;
                Stmt::new(StmtKind::ExprStmt(v), span)
            }
            other => Stmt::new(other, span),
        };
        // `xs.append(v)` on a local list: `xs = xs + [v]` (a new list, so the derivative
        // sees every value the list ever held).
        if let StmtKind::ExprStmt(Expr {
            kind: ExprKind::Call { func, args, kwargs },
            ..
        }) = &s.kind
        {
            if let ExprKind::Attr(recv, m) = &func.kind {
                if m == "append" && args.len() == 1 && kwargs.is_empty() {
                    if let Some(xs) = recv.as_name() {
                        if let Some(why) = self.shared.whole(xs) {
                            return Err(err(
                                span,
                                format!("`{xs}.append(...)` changes the list in place, and another name may see the change: {why}"),
                                format!("build a new list instead: `{xs} = {xs} + [...]`, or start `{xs}` as a new list (`{xs} = list(...)`)"),
                            ));
                        }
                        if self.resolver.locals.contains(xs) {
                            let rhs = Expr::new(
                                ExprKind::BinOp(
                                    BinOp::Add,
                                    recv.clone(),
                                    Box::new(Expr::synth(ExprKind::List(args.clone()))),
                                ),
                                span,
                            );
                            return self.simplify_stmt(
                                Stmt::new(StmtKind::Assign((**recv).clone(), rhs), span),
                                out,
                            );
                        }
                    }
                }
            }
        }
        match s.kind {
            StmtKind::AugAssign(target, op, value) => {
                let shared = |n: &&str| self.shared.any(n).is_some() && !self.checked.contains(*n);
                if let Some(n) = target.as_name().filter(shared) {
                    // `n op= v` changes a mutable object in place (an array: every name
                    // holding it sees the change) but rebinds a float or an int: which
                    // one is known only at run time.
                    let line = 1 + self.text[..(span.start as usize).min(self.text.len())]
                        .matches('\n')
                        .count();
                    out.push(Stmt::new(
                        StmtKind::ExprStmt(Expr::call_path(
                            "tangent.check_inplace",
                            vec![
                                Expr::name(n),
                                Expr::synth(ExprKind::Str(format!("{n} {}=", op.symbol()))),
                                Expr::num(line.to_string()),
                            ],
                        )),
                        span,
                    ));
                }
                let rhs = Expr::new(
                    ExprKind::BinOp(op, Box::new(target.clone()), Box::new(value)),
                    span,
                );
                self.simplify_stmt(Stmt::new(StmtKind::Assign(target, rhs), span), out)?;
            }
            StmtKind::Assign(target, value) => {
                if let ExprKind::Subscript(base, _) = &target.kind {
                    let x = base.as_name().unwrap_or_default();
                    if let Some(why) = self.shared.bad_store(span) {
                        return Err(err(
                            target.span,
                            format!("this store changes `{x}` in place, and another name may see the change: {why}"),
                            format!("store into a new array: `{x} = {x}.copy()` (or `{x} = np.zeros(...)`) before writing to it"),
                        ));
                    }
                }
                self.assign(target, value, span, out)?
            }
            StmtKind::If(t, a, b) => {
                let a = self.simplify(a)?;
                let b = self.simplify(b)?;
                out.push(Stmt::new(StmtKind::If(t, a, b), span));
            }
            StmtKind::While(t, body) => {
                let body = self.simplify(body)?;
                out.push(Stmt::new(StmtKind::While(t, body), span));
            }
            StmtKind::For(target, iter, body) => {
                let body = self.simplify(body)?;
                if self.resolver.is_range_call(&iter) && target.as_name().is_some() {
                    out.push(Stmt::new(StmtKind::For(target, iter, body), span));
                    return Ok(());
                }
                if let Some(index_loop) = self.structured_loop(&target, &iter, body.clone(), out)? {
                    out.push(Stmt::new(index_loop, span));
                    return Ok(());
                }
                if let ExprKind::Call { func, .. } = &iter.kind {
                    if !self.resolver.is_range_call(&iter) {
                        let name = crate::emit::printer::expr(func);
                        return Err(err(
                            iter.span,
                            format!("iterating over `{name}(...)` cannot be differentiated"),
                            "loop over `range(len(xs))` and index the sequence, e.g. `for i in range(len(xs)): x = xs[i]`",
                        ));
                    }
                }
                // for x in xs  ->  for i in range(len(xs)): x = xs[i]
                // Python iterates the object `xs` held when the loop began: a body (or a
                // target) that rebinds `xs` must not change what the index loop reads.
                let rebound = |n: &str| loop_rebinds(&target, &body, n);
                let seq = match iter.as_name() {
                    Some(n) if !rebound(n) => n.to_owned(),
                    _ => {
                        let n = self.names.fresh("_seq");
                        out.push(Stmt::new(
                            StmtKind::Assign(Expr::name(&n), iter.clone()),
                            iter.span,
                        ));
                        n
                    }
                };
                let idx = self.names.fresh("_i");
                // `len` that refuses what index reads would iterate differently (a dict
                // iterates its keys: `d[_i]` would read its values, or raise).
                let len = Expr::call_path("tangent.sequence_len", vec![Expr::name(&seq)]);
                let range = Expr::call_path("range", vec![len]);
                let item = Expr::new(
                    ExprKind::Subscript(Box::new(Expr::name(&seq)), Box::new(Expr::name(&idx))),
                    target.span,
                );
                let mut new_body = Vec::new();
                self.assign(target, item, span, &mut new_body)?;
                new_body.extend(body);
                out.push(Stmt::new(
                    StmtKind::For(Expr::name(&idx), range, new_body),
                    span,
                ));
            }
            other => out.push(Stmt::new(other, span)),
        }
        Ok(())
    }

    /// `sum(map(f, xs))`, `list(zip(xs, ys))`, `max(reversed(xs))`, ...: an iterator
    /// builtin consumed at once by a builtin that takes an iterable is the list of its
    /// items, `[v for v in map(f, xs)]` (which the comprehension's loop then reads).
    fn consumed_iterators(&mut self, mut e: Expr) -> Expr {
        const CONSUMERS: &[&str] = &["sum", "list", "tuple", "max", "min", "any", "all"];
        let resolver = self.resolver;
        let names = &mut *self.names;
        substitute(&mut e, &mut |x| {
            let ExprKind::Call { func, args, kwargs } = &x.kind else {
                return None;
            };
            let consumer = matches!(resolver.callee(func),
                Callee::Library(q) if q.strip_prefix("builtins.").is_some_and(|b| CONSUMERS.contains(&b)));
            if !consumer || args.len() != 1 || iterator_builtin(resolver, &args[0]).is_none() {
                return None;
            }
            let v = names.fresh("_v");
            let iter = args[0].clone();
            let list = Expr::new(
                ExprKind::ListComp(
                    Box::new(Expr::name(&v)),
                    vec![Comprehension {
                        target: Expr::name(&v),
                        iter: iter.clone(),
                        ifs: vec![],
                    }],
                ),
                iter.span,
            );
            Some(Expr::new(
                ExprKind::Call {
                    func: func.clone(),
                    args: vec![list],
                    kwargs: kwargs.clone(),
                },
                x.span,
            ))
        });
        e
    }

    /// The plan of a loop over `zip(...)`, `enumerate(...)`, `reversed(xs)` or
    /// `map(f, ...)` (nested in each other as Python allows), its sequences bound to
    /// names when the loop starts; None for any other iterable.
    fn iteration_plan(
        &mut self,
        iter: &Expr,
        target: &Expr,
        body: &[Stmt],
        out: &mut Vec<Stmt>,
    ) -> Result<Option<Plan>, Diagnostic> {
        if self.iterator_builtin(iter).is_none() {
            return Ok(None);
        }
        let rebinds = |n: &str| loop_rebinds(target, body, n);
        self.plan_of(iter, &rebinds, out).map(Some)
    }

    fn iterator_builtin(&self, e: &Expr) -> Option<&'static str> {
        iterator_builtin(self.resolver, e)
    }

    fn plan_of(
        &mut self,
        e: &Expr,
        rebinds: &dyn Fn(&str) -> bool,
        out: &mut Vec<Stmt>,
    ) -> Result<Plan, Diagnostic> {
        let mut bind = |this: &mut Self, e: &Expr, stem: &str| -> String {
            match e.as_name() {
                Some(n) if !rebinds(n) => n.to_owned(),
                _ => {
                    let n = this.names.fresh(stem);
                    out.push(Stmt::new(
                        StmtKind::Assign(Expr::name(&n), e.clone()),
                        e.span,
                    ));
                    n
                }
            }
        };
        let Some(builtin) = self.iterator_builtin(e) else {
            return Ok(Plan::Seq(bind(self, e, "_seq")));
        };
        let ExprKind::Call { args, kwargs, .. } = &e.kind else {
            return Ok(Plan::Seq(bind(self, e, "_seq")));
        };
        let kw = |name: &str| kwargs.iter().find(|(k, _)| k == name).map(|(_, v)| v);
        let others = |allowed: &[&str]| kwargs.iter().any(|(k, _)| !allowed.contains(&k.as_str()));
        match builtin {
            "zip" | "map" => {
                let (f, seqs) = if builtin == "map" {
                    match args.split_first() {
                        Some((f, seqs)) if !seqs.is_empty() => (Some(f), seqs),
                        _ => {
                            return Err(err(
                                e.span,
                                "`map` needs a function and at least one sequence",
                                "map(f, xs)",
                            ))
                        }
                    }
                } else {
                    (None, args.as_slice())
                };
                let strict = kw("strict").is_some_and(|v| !matches!(v.kind, ExprKind::Bool(false)));
                if seqs.is_empty() || others(&["strict"]) || strict {
                    return Err(err(
                        e.span,
                        format!("this `{builtin}(...)` cannot be differentiated"),
                        "give the sequences as positional arguments, without `strict=True`",
                    ));
                }
                let f = match f {
                    Some(f) if f.as_name().is_some_and(rebinds) || !is_dotted(f) => {
                        return Err(err(
                            f.span,
                            "the function of this `map(...)` must be a name the loop does not rebind",
                            "name the function (`def` or `g = lambda ...` before the loop) and pass the name",
                        ))
                    }
                    f => f.cloned(),
                };
                let plans = seqs
                    .iter()
                    .map(|s| self.plan_of(s, rebinds, out))
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(match f {
                    Some(f) => Plan::Map(f, plans),
                    None => Plan::Zip(plans),
                })
            }
            "enumerate" => {
                let start = match (args.as_slice(), kw("start")) {
                    ([_], None) if kwargs.is_empty() => None,
                    ([_, s], None) if kwargs.is_empty() => Some(s.clone()),
                    ([_], Some(s)) if !others(&["start"]) => Some(s.clone()),
                    _ => {
                        return Err(err(
                            e.span,
                            "this `enumerate(...)` cannot be differentiated",
                            "enumerate(xs) or enumerate(xs, start)",
                        ))
                    }
                };
                let start = match start {
                    Some(s) if !matches!(s.kind, ExprKind::Num(_)) => {
                        Some(Expr::name(bind(self, &s, "_start")))
                    }
                    s => s,
                };
                let inner = self.plan_of(&args[0], rebinds, out)?;
                Ok(Plan::Enumerate(Box::new(inner), start))
            }
            _ => {
                let ([xs], true) = (args.as_slice(), kwargs.is_empty()) else {
                    return Err(err(e.span, "`reversed` takes one sequence", "reversed(xs)"));
                };
                if let Some(inner) = self.iterator_builtin(xs) {
                    return Err(err(
                        xs.span,
                        format!("`{inner}(...)` is not reversible: Python raises a TypeError here"),
                        format!("reverse the sequences inside: `{inner}(reversed(xs), ...)`"),
                    ));
                }
                let Plan::Seq(seq) = self.plan_of(xs, rebinds, out)? else {
                    unreachable!("not an iterator builtin: a sequence")
                };
                let n = self.names.fresh("_n");
                out.push(Stmt::new(
                    StmtKind::Assign(
                        Expr::name(&n),
                        Expr::call_path("tangent.sequence_len", vec![Expr::name(&seq)]),
                    ),
                    xs.span,
                ));
                Ok(Plan::Reversed(seq, n))
            }
        }
    }

    /// Loops over `zip`/`enumerate`/`reversed`/`map` (`iteration_plan`) and over
    /// `p.keys()` / `p.values()` / `p.items()` as index loops: `for _i in
    /// range(...): target = item(_i)`, a dict's over `_keys = tangent.keys_of(p)` (the
    /// keys, in the dict's order, when the loop starts) with `v = p[_keys[_i]]`. None for
    /// any other loop.
    fn structured_loop(
        &mut self,
        target: &Expr,
        iter: &Expr,
        body: Vec<Stmt>,
        out: &mut Vec<Stmt>,
    ) -> Result<Option<StmtKind>, Diagnostic> {
        let ExprKind::Call { func, args, kwargs } = &iter.kind else {
            return Ok(None);
        };
        let unpack = |n: usize, what: &str| -> Result<Vec<Expr>, Diagnostic> {
            match &target.kind {
                ExprKind::Tuple(ts) if ts.len() == n => Ok(ts.clone()),
                _ => Err(err(
                    target.span,
                    format!("the loop over `{what}` needs a target of {n} names"),
                    "unpack each element into its own name, e.g. `for a, b in zip(xs, ys)`",
                )),
            }
        };
        // The sequences, each read through a name the loop body does not rebind.
        let bind = |this: &mut Self, e: &Expr, out: &mut Vec<Stmt>| -> String {
            let rebinds = |n: &str| loop_rebinds(target, &body, n);
            match e.as_name() {
                Some(n) if !rebinds(n) => n.to_owned(),
                _ => {
                    let n = this.names.fresh("_seq");
                    out.push(Stmt::new(
                        StmtKind::Assign(Expr::name(&n), e.clone()),
                        e.span,
                    ));
                    n
                }
            }
        };
        let idx = self.names.fresh("_i");
        let item = |seq: &str, i: Expr| {
            Expr::synth(ExprKind::Subscript(Box::new(Expr::name(seq)), Box::new(i)))
        };
        let len = |seq: &str| Expr::call_path("len", vec![Expr::name(seq)]);
        let mut prefix: Vec<(Expr, Expr)> = Vec::new();
        let count;
        if let Some(plan) = self.iteration_plan(iter, target, &body, out)? {
            // The item is a tuple for zip/enumerate: `assign` unpacks it into the
            // target's names (nested targets too: `for i, (a, b) in enumerate(zip(..))`).
            let sp = target.span;
            let value = plan.item(&Expr::name(&idx));
            if let (ExprKind::Tuple(ts), ExprKind::Tuple(vs)) = (&target.kind, &value.kind) {
                if ts.len() != vs.len() {
                    return Err(err(
                        target.span,
                        format!(
                            "the loop gives {} values per iteration, the target names {}",
                            vs.len(),
                            ts.len()
                        ),
                        "unpack each element into its own name, e.g. `for a, b in zip(xs, ys)`",
                    ));
                }
            }
            let mut new_body = Vec::new();
            self.assign(target.clone(), value, sp, &mut new_body)?;
            new_body.extend(body);
            let range = Expr::call_path("range", vec![plan.count()]);
            return Ok(Some(StmtKind::For(Expr::name(&idx), range, new_body)));
        } else if let (ExprKind::Attr(recv, view), true) =
            (&func.kind, args.is_empty() && kwargs.is_empty())
        {
            if !matches!(view.as_str(), "keys" | "values" | "items") {
                return Ok(None);
            }
            let p = bind(self, recv, out);
            let keys = self.names.fresh("_keys");
            out.push(Stmt::new(
                StmtKind::Assign(
                    Expr::name(&keys),
                    Expr::call_path("tangent.keys_of", vec![Expr::name(&p)]),
                ),
                iter.span,
            ));
            let key = item(&keys, Expr::name(&idx));
            match view.as_str() {
                "keys" => prefix.push((target.clone(), key)),
                "values" => prefix.push((target.clone(), item(&p, key))),
                _ => {
                    let ts = unpack(2, &format!("{}.items()", crate::emit::printer::expr(recv)))?;
                    prefix.push((ts[0].clone(), key.clone()));
                    prefix.push((ts[1].clone(), item(&p, key)));
                }
            }
            count = len(&keys);
        } else {
            return Ok(None);
        }
        let mut new_body = Vec::new();
        for (t, v) in prefix {
            let sp = t.span;
            self.assign(t, v, sp, &mut new_body)?;
        }
        new_body.extend(body);
        let range = Expr::call_path("range", vec![count]);
        Ok(Some(StmtKind::For(Expr::name(&idx), range, new_body)))
    }

    fn assign(
        &mut self,
        target: Expr,
        value: Expr,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> Result<(), Diagnostic> {
        match target.kind {
            ExprKind::Tuple(targets) => {
                let names: Vec<String> = targets
                    .iter()
                    .flat_map(|t| {
                        let mut v = Vec::new();
                        t.names(&mut v);
                        v
                    })
                    .collect();
                if let ExprKind::Tuple(values) | ExprKind::List(values) = &value.kind {
                    if values.len() != targets.len() {
                        return Err(err(
                            value.span,
                            format!(
                                "cannot unpack {} values into {} targets",
                                values.len(),
                                targets.len()
                            ),
                            "use as many names on the left as values on the right",
                        ));
                    }
                    let reads_target = values.iter().any(|v| names.iter().any(|n| v.reads(n)));
                    if !reads_target {
                        for (t, v) in targets.into_iter().zip(values.iter().cloned()) {
                            self.assign(t, v, span, out)?;
                        }
                    } else {
                        // A swap: evaluate every value before assigning any target.
                        let mut temps = Vec::new();
                        for v in values.iter().cloned() {
                            let n = self
                                .names
                                .fresh(&format!("_{}", hint_for(&v).trim_start_matches('_')));
                            out.push(Stmt::new(StmtKind::Assign(Expr::name(&n), v), span));
                            temps.push(n);
                        }
                        for (t, n) in targets.into_iter().zip(temps) {
                            self.assign(t, Expr::name(n), span, out)?;
                        }
                    }
                    return Ok(());
                }
                let tuple = match value.as_name() {
                    Some(n) if !names.iter().any(|t| t == n) => n.to_owned(),
                    _ => {
                        let n = self.names.fresh("_unpack");
                        out.push(Stmt::new(StmtKind::Assign(Expr::name(&n), value), span));
                        n
                    }
                };
                for (i, t) in targets.into_iter().enumerate() {
                    let item = Expr::synth(ExprKind::Subscript(
                        Box::new(Expr::name(&tuple)),
                        Box::new(Expr::num(i.to_string())),
                    ));
                    self.assign(t, item, span, out)?;
                }
                Ok(())
            }
            _ => {
                out.push(Stmt::new(StmtKind::Assign(target, value), span));
                Ok(())
            }
        }
    }
}

/// How a loop over `zip`/`enumerate`/`reversed`/`map` reads its item at index `i`:
/// the sequences are names bound when the loop starts.
enum Plan {
    Seq(String),
    Zip(Vec<Plan>),
    Enumerate(Box<Plan>, Option<Expr>),
    /// the sequence and the name of its length
    Reversed(String, String),
    Map(Expr, Vec<Plan>),
}

impl Plan {
    fn item(&self, i: &Expr) -> Expr {
        let at = |seq: &str, i: Expr| {
            Expr::synth(ExprKind::Subscript(Box::new(Expr::name(seq)), Box::new(i)))
        };
        match self {
            Plan::Seq(s) => at(s, i.clone()),
            Plan::Zip(ps) => Expr::synth(ExprKind::Tuple(ps.iter().map(|p| p.item(i)).collect())),
            Plan::Enumerate(p, start) => {
                let index = match start {
                    None => i.clone(),
                    Some(s) => Expr::synth(ExprKind::BinOp(
                        BinOp::Add,
                        Box::new(i.clone()),
                        Box::new(s.clone()),
                    )),
                };
                Expr::synth(ExprKind::Tuple(vec![index, p.item(i)]))
            }
            Plan::Reversed(s, n) => {
                // xs[n - 1 - i]
                let last = Expr::synth(ExprKind::BinOp(
                    BinOp::Sub,
                    Box::new(Expr::name(n)),
                    Box::new(Expr::num("1")),
                ));
                at(
                    s,
                    Expr::synth(ExprKind::BinOp(
                        BinOp::Sub,
                        Box::new(last),
                        Box::new(i.clone()),
                    )),
                )
            }
            Plan::Map(f, ps) => Expr::synth(ExprKind::Call {
                func: Box::new(f.clone()),
                args: ps.iter().map(|p| p.item(i)).collect(),
                kwargs: vec![],
            }),
        }
    }

    fn count(&self) -> Expr {
        match self {
            // `len` that refuses what index reads would iterate differently (dicts, sets)
            Plan::Seq(s) => Expr::call_path("tangent.sequence_len", vec![Expr::name(s)]),
            Plan::Enumerate(p, _) => p.count(),
            Plan::Reversed(_, n) => Expr::name(n),
            Plan::Zip(ps) | Plan::Map(_, ps) => {
                if ps.len() == 1 {
                    ps[0].count()
                } else {
                    Expr::call_path("min", ps.iter().map(Plan::count).collect())
                }
            }
        }
    }
}

/// Where the first `return`, `break` or `continue` of a block is, if it has one.
fn first_jump(body: &[Stmt]) -> Option<Span> {
    let mut jumps = None;
    walk_stmts(body, &mut |s| {
        if jumps.is_none()
            && matches!(
                s.kind,
                StmtKind::Return(_) | StmtKind::Break | StmtKind::Continue
            )
        {
            jumps = Some(s.span);
        }
    });
    jumps
}

/// Is this `with` Google Tangent's `insert_grad_of(x) as g` (code for the backward pass)?
pub fn is_insert_grad_of(resolver: &Resolver, items: &[(Expr, Option<Expr>)]) -> bool {
    items.iter().any(|(cm, _)| {
        matches!(&cm.kind, ExprKind::Call { func, .. }
            if resolver.callee(func) == Callee::Library("tangent.insert_grad_of".into()))
    })
}

/// `zip`, `enumerate`, `reversed` or `map` when `e` calls that builtin.
fn iterator_builtin(resolver: &Resolver, e: &Expr) -> Option<&'static str> {
    let ExprKind::Call { func, .. } = &e.kind else {
        return None;
    };
    let Callee::Library(q) = resolver.callee(func) else {
        return None;
    };
    ["zip", "enumerate", "reversed", "map"]
        .into_iter()
        .find(|b| q.strip_prefix("builtins.") == Some(b))
}

/// A name or a dotted path (`math.sin`): evaluated again at each iteration, the same value.
fn is_dotted(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) => true,
        ExprKind::Attr(v, _) => is_dotted(v),
        _ => false,
    }
}

/// Whether a `for` loop with this target and body binds `name` (the target itself, or an
/// assignment or loop target anywhere in the body).
fn loop_rebinds(target: &Expr, body: &[Stmt], name: &str) -> bool {
    let mut found = false;
    target.bound_names(&mut |t| found |= t == name);
    walk_stmts(body, &mut |s| {
        if let StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) =
            &s.kind
        {
            t.bound_names(&mut |t| found |= t == name);
        }
    });
    found
}
