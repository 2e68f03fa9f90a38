//! A rule's template instantiated for one call site: the arguments bound to the
//! template's parameters, the adjoint (or tangent) statements for the active ones, and
//! the zero gradients simplified away.

use super::adjoint::{grad_marker, Adj};
use crate::rules::{pruned_namespace_args, RuleSet, Template, NAMESPACE_OF};
use crate::syntax::ir::*;
use crate::syntax::visit::substitute;
use std::collections::{HashMap, HashSet};

/// What instantiation needs to know about the call site.
pub trait Site {
    /// Is this primal variable active (does it depend on a differentiated input)?
    fn is_active(&self, name: &str) -> bool;
    /// A fresh local name based on `hint`.
    fn fresh(&mut self, hint: &str) -> String;
    /// The function as the call site spells it (`np.sum`), when that spelling is a path
    /// from a module the user's globals bind and names the rule's own function.
    fn callee(&self) -> Option<&Expr> {
        None
    }
}

/// Binds a call's arguments to the template's parameters (after the result parameter).
fn bind(
    t: &Template,
    qualname: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
) -> Result<HashMap<String, Expr>, String> {
    let params = &t.def.params[1..];
    // Keyword-only parameters (after a template's `*args`) take no positional argument.
    let positional = &params[..t.def.kwonly.map_or(params.len(), |k| k - 1)];
    let mut bound: HashMap<String, Expr> = HashMap::new();
    let mut extra = Vec::new();
    for (i, a) in args.iter().enumerate() {
        match positional.get(i) {
            Some(p) => {
                bound.insert(p.name.clone(), a.clone());
            }
            None => extra.push(a.clone()),
        }
    }
    if let Some(v) = &t.def.vararg {
        bound.insert(v.clone(), Expr::synth(ExprKind::Tuple(extra)));
    } else if !extra.is_empty() {
        return Err(format!(
            "`{qualname}` was called with {} positional arguments but its derivative rule ({}) takes {}",
            args.len(),
            t.origin,
            positional.len()
        ));
    }
    for (k, v) in kwargs {
        if !params.iter().any(|p| &p.name == k) {
            return Err(format!(
                "the derivative rule for `{qualname}` ({}) does not accept the keyword argument `{k}`",
                t.origin
            ));
        }
        bound.insert(k.clone(), v.clone());
    }
    for p in params {
        if !bound.contains_key(&p.name) {
            match &p.default {
                Some(d) => {
                    bound.insert(p.name.clone(), d.clone());
                }
                None => {
                    return Err(format!(
                        "`{qualname}` was called without its argument `{}`",
                        p.name
                    ))
                }
            }
        }
    }
    Ok(bound)
}

/// An active argument bound to a parameter the rule never differentiates (no `d[p]` in
/// the template) would get no gradient: a silent zero. So it is an error, for functions
/// and methods alike; a rule whose derivative in a parameter is zero says so with an
/// explicit `d[p] = tangent.init_grad(p)` (copysign's sign, nextafter's direction). For a
/// method the likely cause is a user object's method taken for an array method
/// (`m.sum(x)` binds `x` to `axis`).
#[allow(clippy::too_many_arguments)] // the call, its rule(s) and what is exempt
pub fn check_differentiated_arguments(
    t: &Template,
    adjoint: Option<&Template>,
    shape_only: &[usize],
    qualname: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    is_active: &dyn Fn(&str) -> bool,
    method: bool,
) -> Result<(), String> {
    let bound = bind(t, qualname, args, kwargs)?;
    let mut differentiated: HashSet<String> = HashSet::new();
    walk_stmts(&t.def.body, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let Some(p) = grad_of(x) {
                    differentiated.insert(p.to_owned());
                }
            })
        })
    });
    // A forward template leaves out the tangents of the arguments it or its reverse rule
    // declares zero (`d[p] = 0.0`).
    differentiated.extend(declared_zero(t));
    if let Some(a) = adjoint {
        differentiated.extend(declared_zero(a));
    }
    // Arguments declared `shape_only` are read for their shape: no derivative.
    for &i in shape_only {
        if let Some(p) = t.def.params.get(i + 1) {
            differentiated.insert(p.name.clone());
        }
    }
    for p in &t.def.params[1..] {
        let Some(arg) = bound.get(&p.name).and_then(|a| a.as_name()) else {
            continue;
        };
        if is_active(arg) && !differentiated.contains(p.name.as_str()) {
            return Err(if method {
                format!(
                    "`{arg}` depends on the differentiated input, but it is passed to the method `{qualname}` as its argument `{}`, which has no derivative ({}); if the object is not an array, its method is not that one",
                    p.name, t.origin
                )
            } else {
                format!(
                    "`{arg}` depends on the differentiated input, but the derivative of `{qualname}` with respect to its argument `{}` is not provided (its rule, {}, gives none)",
                    p.name, t.origin
                )
            });
        }
    }
    Ok(())
}

/// The parameters a template declares to have a zero derivative: `d[p] = 0.0`
/// (piecewise constant in them, or read only for a shape or dtype).
fn declared_zero(t: &Template) -> HashSet<String> {
    let mut out = HashSet::new();
    walk_stmts(&t.def.body, &mut |s| {
        if let StmtKind::Assign(target, value) = &s.kind {
            if let (Some(p), true) = (grad_of(target), is_zero_literal(value)) {
                out.insert(p.to_owned());
            }
        }
    });
    out
}

/// Binds the call's arguments and the result to the template's parameters, and gives
/// the template's locals fresh names so that they cannot collide with the user's.
fn bind_all(
    t: &Template,
    qualname: &str,
    result: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    site: &mut dyn Site,
) -> Result<HashMap<String, Expr>, String> {
    let mut bound = bind(t, qualname, args, kwargs)?;
    bound.insert(t.def.params[0].name.clone(), Expr::name(result));
    let mut locals = HashSet::new();
    walk_stmts(&t.def.body, &mut |s| {
        if let StmtKind::Assign(target, _) = &s.kind {
            if let Some(n) = target.as_name() {
                locals.insert(n.to_owned());
            }
        }
    });
    for l in locals {
        let fresh = site.fresh(&format!("_{l}"));
        bound.insert(l, Expr::name(fresh));
    }
    Ok(bound)
}

/// `numpy.sum(dx)` in a template written as `np.sum(dx)` where the user called `np.sum`:
/// `callee` is a path from a module the user's globals bind that resolves to `qualname`
/// (the caller checked), so both spellings name one function, and the derivative reads
/// in the user's names. Only calls spelled exactly `qualname` change.
fn spelled_as_called(body: &mut [Stmt], qualname: &str, callee: &Expr) {
    for stmt in body {
        crate::syntax::visit::map_stmt_exprs(stmt, &mut |e| {
            let mut e = e.clone();
            substitute(&mut e, &mut |x| match &x.kind {
                ExprKind::Call { func, args, kwargs }
                    if crate::emit::printer::expr(func) == qualname =>
                {
                    Some(Expr::synth(ExprKind::Call {
                        func: Box::new(callee.clone()),
                        args: args.clone(),
                        kwargs: kwargs.clone(),
                    }))
                }
                _ => None,
            });
            e
        });
    }
}

/// The template's body without the keyword arguments that a call of the rule's own
/// function passes from a parameter the call site left at its default: for `np.sum(x)`,
/// `numpy.sum(d[x], axis=axis, keepdims=keepdims)` reads `numpy.sum(dx)`, as the user
/// wrote it. The function's defaults are the template's (a template's parameters are its
/// function's: calls bind to them), so the value is the same. Only the rule's own
/// function is trusted with that, and only for a parameter of the same name (`axis=axis`):
/// `qualname` itself, or the function of that name of the arguments' namespace
/// (`tangent.namespace_of(x).sum` for `numpy.ndarray.sum`).
fn without_defaulted_keywords(
    t: &Template,
    qualname: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
) -> Vec<Stmt> {
    let params = &t.def.params[1..];
    let positional = t.def.kwonly.map_or(params.len(), |k| k - 1);
    let defaulted: HashSet<&str> = params
        .iter()
        .enumerate()
        .filter(|(i, p)| {
            p.default.is_some()
                && (*i >= positional || *i >= args.len())
                && !kwargs.iter().any(|(k, _)| k == &p.name)
        })
        .map(|(_, p)| p.name.as_str())
        .collect();
    let mut body = t.def.body.clone();
    if defaulted.is_empty() {
        return body;
    }
    let short = qualname.rsplit('.').next().unwrap_or(qualname);
    let own = |func: &Expr| {
        crate::emit::printer::expr(func) == qualname
            || namespace_function(func).is_some_and(|f| f.rsplit('.').next() == Some(short))
    };
    for stmt in &mut body {
        crate::syntax::visit::map_stmt_exprs(stmt, &mut |e| {
            let mut e = e.clone();
            substitute(&mut e, &mut |x| match &x.kind {
                ExprKind::Call { func, args, kwargs } if own(func) => {
                    let kept: Vec<(String, Expr)> = kwargs
                        .iter()
                        .filter(|(k, v)| {
                            // `axis=axis`: the function's parameter of the template's name.
                            !v.as_name().is_some_and(|n| n == k && defaulted.contains(n))
                        })
                        .cloned()
                        .collect();
                    (kept.len() < kwargs.len()).then(|| {
                        Expr::synth(ExprKind::Call {
                            func: func.clone(),
                            args: args.clone(),
                            kwargs: kept,
                        })
                    })
                }
                _ => None,
            });
            e
        });
    }
    body
}

/// A call of `tangent.namespace_of(...).F` is the function `tangent.namespace_of.F`
/// (which has `numpy.F`'s facts) for the linearity facts of [`simplify_zero`].
fn namespace_function(callee: &Expr) -> Option<String> {
    let ExprKind::Attr(v, attr) = &callee.kind else {
        return None;
    };
    let ExprKind::Call { func, .. } = &v.kind else {
        return None;
    };
    (crate::emit::printer::expr(func) == NAMESPACE_OF).then(|| format!("{NAMESPACE_OF}.{attr}"))
}

/// A call site's view for instantiation: the active set and the function's names.
pub struct ActiveSite<'b> {
    pub active: &'b HashSet<String>,
    pub names: &'b mut crate::syntax::names::NameGen,
    pub callee: Option<&'b Expr>,
}

impl Site for ActiveSite<'_> {
    fn is_active(&self, name: &str) -> bool {
        self.active.contains(name)
    }
    fn fresh(&mut self, hint: &str) -> String {
        self.names.fresh(hint)
    }
    fn callee(&self) -> Option<&Expr> {
        self.callee
    }
}

/// Instantiates the template for `result = qualname(args, kwargs)`: returns the adjoint
/// statements (gradient contributions to the active arguments).
pub fn instantiate(
    t: &Template,
    qualname: &str,
    result: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    site: &mut dyn Site,
) -> Result<Vec<Adj>, String> {
    let bound = bind_all(t, qualname, result, args, kwargs, site)?;
    let mut body = without_defaulted_keywords(t, qualname, args, kwargs);
    if let Some(callee) = site.callee() {
        spelled_as_called(&mut body, qualname, callee);
    }
    let mut inst = Instantiator {
        bound: &bound,
        result,
        site,
    };
    inst.block(&body)
}

/// Instantiates a forward-mode template for `result = qualname(args, kwargs)`. `tangent`
/// maps an active argument name to the name of its tangent; inactive arguments and
/// literals have a zero tangent, which [`simplify_zero`] removes. Returns statements that
/// assign the tangent of `result` (`result_tangent`).
#[allow(clippy::too_many_arguments)] // mirrors `instantiate` plus the tangent naming
pub fn instantiate_tangent(
    rules: &RuleSet,
    t: &Template,
    qualname: &str,
    result: &str,
    result_tangent: &str,
    args: &[Expr],
    kwargs: &[(String, Expr)],
    site: &mut dyn Site,
    tangent: &dyn Fn(&str) -> String,
) -> Result<Vec<Stmt>, String> {
    let bound = bind_all(t, qualname, result, args, kwargs, site)?;
    let result_param = t.def.params[0].name.clone();
    let mut out = Vec::new();
    // Spelled as called only at the end: zero tangents are simplified by the rule's name.
    let body = without_defaulted_keywords(t, qualname, args, kwargs);
    tangent_block(
        rules,
        &body,
        &bound,
        &result_param,
        result_tangent,
        site,
        tangent,
        &mut out,
    )?;
    if let Some(callee) = site.callee() {
        spelled_as_called(&mut out, qualname, callee);
    }
    Ok(out)
}

#[allow(clippy::too_many_arguments)] // the recursion carries the instantiation's state
fn tangent_block(
    rules: &RuleSet,
    body: &[Stmt],
    bound: &HashMap<String, Expr>,
    result_param: &str,
    result_tangent: &str,
    site: &mut dyn Site,
    tangent: &dyn Fn(&str) -> String,
    out: &mut Vec<Stmt>,
) -> Result<(), String> {
    let subst = |e: &Expr, site: &dyn Site| -> Expr {
        let mut e = e.clone();
        substitute(&mut e, &mut |x: &Expr| {
            if let Some(p) = grad_of(x) {
                let one = |b: &Expr| match b.as_name() {
                    Some(v) if site.is_active(v) => Expr::name(tangent(v)),
                    _ => Expr::name(ZERO),
                };
                return Some(match bound.get(p).map(|b| &b.kind) {
                    // A template's `*args`: the tuple of the arguments' tangents.
                    Some(ExprKind::Tuple(es)) => {
                        Expr::synth(ExprKind::Tuple(es.iter().map(one).collect()))
                    }
                    Some(_) => one(&bound[p]),
                    None => Expr::name(ZERO),
                });
            }
            if let ExprKind::Name(n) = &x.kind {
                return bound.get(n).cloned();
            }
            None
        });
        pruned_namespace_args(e)
    };
    for s in body {
        match &s.kind {
            StmtKind::Assign(target, value) => {
                let value = subst(value, &*site);
                if grad_of(target) == Some(result_param) {
                    // A zero tangent: the result depends on the active arguments only
                    // through their shapes (e.g. `unbroadcast(seed, like)`).
                    let value = simplify_zero(rules, &value).unwrap_or_else(|| {
                        Expr::call_path("tangent.init_grad", vec![bound[result_param].clone()])
                    });
                    out.push(Stmt::assign(result_tangent, value));
                } else if grad_of(target).is_some() && is_zero_literal(value_of(s)) {
                    // `d[p] = 0.0`: the result does not move with p (said explicitly).
                } else if grad_of(target).is_some() {
                    return Err("a forward rule may only write `d[...]` of its result".into());
                } else {
                    let value = simplify_zero(rules, &value).unwrap_or_else(|| Expr::num("0.0"));
                    out.push(Stmt::synth(StmtKind::Assign(subst(target, &*site), value)));
                }
            }
            StmtKind::If(test, a, b) => {
                let test = subst(test, &*site);
                let mut branch = |body: &[Stmt], into: &mut Vec<Stmt>| {
                    tangent_block(
                        rules,
                        body,
                        bound,
                        result_param,
                        result_tangent,
                        site,
                        tangent,
                        into,
                    )
                };
                match static_truth(&test) {
                    Some(true) => branch(a, out)?,
                    Some(false) => branch(b, out)?,
                    None => {
                        let mut sa = Vec::new();
                        let mut sb = Vec::new();
                        branch(a, &mut sa)?;
                        branch(b, &mut sb)?;
                        out.push(Stmt::synth(StmtKind::If(test, sa, sb)));
                    }
                }
            }
            StmtKind::Pass | StmtKind::Comment(_) => {}
            _ => return Err("rule templates may only contain assignments and `if`".into()),
        }
    }
    Ok(())
}

/// Marker for a zero tangent during forward instantiation (not a Python identifier).
pub const ZERO: &str = "\u{2}zero";

fn is_zero(e: &Expr) -> bool {
    e.as_name() == Some(ZERO)
}

/// A template's literal `0.0` (or `0`).
fn value_of(s: &Stmt) -> &Expr {
    match &s.kind {
        StmtKind::Assign(_, v) => v,
        _ => unreachable!("an assignment"),
    }
}

fn is_zero_literal(e: &Expr) -> bool {
    matches!(&e.kind, ExprKind::Num(n) if n.parse::<f64>() == Ok(0.0))
}

/// Removes zero tangents: `0 * a` -> 0, `a + 0` -> a, `0 - a` -> -a, functions declared
/// `linear_in_first` of 0 -> 0, `linear_in_each` with a 0 argument -> 0. `None` means the
/// whole expression is zero; zeros that cannot be removed become the literal `0.0`.
pub fn simplify_zero(rules: &RuleSet, e: &Expr) -> Option<Expr> {
    let simplify_zero = |e: &Expr| simplify_zero(rules, e);
    let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
    let lit0 = || Expr::num("0.0");
    match &e.kind {
        _ if is_zero(e) => None,
        ExprKind::BinOp(op, a, b) => {
            let (sa, sb) = (simplify_zero(a), simplify_zero(b));
            match op {
                BinOp::Add => match (sa, sb) {
                    (None, None) => None,
                    (Some(a), None) | (None, Some(a)) => Some(a),
                    (Some(a), Some(b)) => Some(bin(BinOp::Add, a, b)),
                },
                BinOp::Sub => match (sa, sb) {
                    (None, None) => None,
                    (Some(a), None) => Some(a),
                    (None, Some(b)) => {
                        Some(Expr::synth(ExprKind::Unary(UnaryOp::Neg, Box::new(b))))
                    }
                    (Some(a), Some(b)) => Some(bin(BinOp::Sub, a, b)),
                },
                BinOp::Mul | BinOp::MatMul => Some(bin(*op, sa?, sb?)),
                BinOp::Div => Some(bin(*op, sa?, sb.unwrap_or_else(lit0))),
                _ => Some(bin(*op, sa.unwrap_or_else(lit0), sb.unwrap_or_else(lit0))),
            }
        }
        ExprKind::Unary(op @ (UnaryOp::Neg | UnaryOp::Pos), a) => Some(Expr::synth(
            ExprKind::Unary(*op, Box::new(simplify_zero(a)?)),
        )),
        ExprKind::Call { func, args, kwargs } => {
            let name = namespace_function(func).unwrap_or_else(|| crate::emit::printer::expr(func));
            let sargs: Vec<Option<Expr>> = args.iter().map(&simplify_zero).collect();
            if rules.is_linear_in_first(&name) && sargs.first().is_some_and(|a| a.is_none()) {
                return None;
            }
            if rules.is_linear_in_each(&name) && sargs.iter().any(|a| a.is_none()) {
                return None;
            }
            let args = sargs.into_iter().map(|a| a.unwrap_or_else(lit0)).collect();
            let kwargs = kwargs
                .iter()
                .map(|(k, v)| (k.clone(), simplify_zero(v).unwrap_or_else(lit0)))
                .collect();
            Some(Expr::synth(ExprKind::Call {
                func: func.clone(),
                args,
                kwargs,
            }))
        }
        ExprKind::Subscript(v, i) => Some(Expr::synth(ExprKind::Subscript(
            Box::new(simplify_zero(v)?),
            i.clone(),
        ))),
        _ => {
            let mut e = e.clone();
            substitute(&mut e, &mut |x| is_zero(x).then(lit0));
            Some(e)
        }
    }
}

struct Instantiator<'a> {
    bound: &'a HashMap<String, Expr>,
    result: &'a str,
    site: &'a mut dyn Site,
}

/// `d[x]` in a template.
fn grad_of(e: &Expr) -> Option<&str> {
    if let ExprKind::Subscript(base, idx) = &e.kind {
        if base.as_name() == Some("d") {
            return idx.as_name();
        }
    }
    None
}

impl Instantiator<'_> {
    fn expr(&self, e: &Expr) -> Result<Expr, String> {
        let mut out = e.clone();
        let mut err = None;
        substitute(&mut out, &mut |x: &Expr| {
            if let Some(p) = grad_of(x) {
                if self.bound.get(p).and_then(|b| b.as_name()) == Some(self.result) {
                    return Some(Expr::synth(ExprKind::Name(grad_marker(self.result))));
                }
                err = Some(format!(
                    "a template may only read `d[...]` of its result, not `d[{p}]`"
                ));
                return None;
            }
            if let ExprKind::Name(n) = &x.kind {
                return self.bound.get(n).cloned();
            }
            None
        });
        match err {
            Some(e) => Err(e),
            None => Ok(pruned_namespace_args(out)),
        }
    }

    fn block(&mut self, stmts: &[Stmt]) -> Result<Vec<Adj>, String> {
        let mut out = Vec::new();
        for s in stmts {
            match &s.kind {
                // `d[p] = 0.0`: the derivative is zero, said explicitly (nothing to add).
                StmtKind::Assign(target, value)
                    if grad_of(target).is_some() && is_zero_literal(value) => {}
                StmtKind::Assign(target, value) => {
                    if let Some(p) = grad_of(target) {
                        let Some(arg) = self.bound.get(p) else {
                            return Err(format!("template writes `d[{p}]` of an unknown name"));
                        };
                        // Only active variables receive gradients; literals and inactive
                        // values are constants.
                        if let Some(var) = arg.as_name() {
                            if self.site.is_active(var) {
                                out.push(Adj::Accum {
                                    var: var.to_owned(),
                                    value: self.expr(value)?,
                                });
                            }
                        } else if let ExprKind::Tuple(es) | ExprKind::List(es) = &arg.kind {
                            // A template's `*args` (the call's extra arguments): the value
                            // is a sequence with one gradient per argument.
                            let active: Vec<(usize, String)> = es
                                .iter()
                                .enumerate()
                                .filter_map(|(i, e)| Some((i, e.as_name()?.to_owned())))
                                .filter(|(_, v)| self.site.is_active(v))
                                .collect();
                            if !active.is_empty() {
                                let parts = self.site.fresh("parts");
                                out.push(Adj::Stmt(Stmt::synth(StmtKind::Assign(
                                    Expr::name(&parts),
                                    self.expr(value)?,
                                ))));
                                for (i, var) in active {
                                    out.push(Adj::Accum {
                                        var,
                                        value: Expr::synth(ExprKind::Subscript(
                                            Box::new(Expr::name(&parts)),
                                            Box::new(Expr::num(i.to_string())),
                                        )),
                                    });
                                }
                            }
                        }
                    } else {
                        out.push(Adj::Stmt(Stmt::synth(StmtKind::Assign(
                            self.expr(target)?,
                            self.expr(value)?,
                        ))));
                    }
                }
                StmtKind::If(test, body, orelse) => {
                    let test = self.expr(test)?;
                    // Specialise on literal tests such as `None is None` (defaults).
                    match static_truth(&test) {
                        Some(true) => out.extend(self.block(body)?),
                        Some(false) => out.extend(self.block(orelse)?),
                        None => {
                            let b = self.block(body)?;
                            let o = self.block(orelse)?;
                            out.push(Adj::If(test, b, o));
                        }
                    }
                }
                StmtKind::Pass | StmtKind::Comment(_) => {}
                StmtKind::ExprStmt(e) => {
                    out.push(Adj::Stmt(Stmt::synth(StmtKind::ExprStmt(self.expr(e)?))))
                }
                _ => return Err("rule templates may only contain assignments and `if`".into()),
            }
        }
        Ok(out)
    }
}

/// The truth value of a test made only of literals (`None is None`, `2 is None`).
fn static_truth(e: &Expr) -> Option<bool> {
    let literal = |x: &Expr| {
        x.is_number_literal()
            || matches!(
                x.kind,
                ExprKind::NoneLit | ExprKind::Bool(_) | ExprKind::Str(_)
            )
            || matches!(&x.kind, ExprKind::Tuple(es) if es.iter().all(|e| !matches!(e.kind, ExprKind::Name(_))))
    };
    if let ExprKind::Compare(a, rest) = &e.kind {
        if let [(op @ (CmpOp::Is | CmpOp::IsNot), b)] = rest.as_slice() {
            // `x is y` between two arguments asks whether the call passes the same
            // variable twice (`x * x`). Templates use it to pick a cheaper formula; the
            // other branch must be correct in every case, so "different names" (which
            // may still alias at run time) safely takes it.
            let is_none = |x: &Expr| matches!(x.kind, ExprKind::NoneLit);
            if let (Some(n1), Some(n2)) = (a.as_name(), b.as_name()) {
                let same = n1 == n2;
                return Some(if *op == CmpOp::Is { same } else { !same });
            }
            if (a.as_name().is_some() && literal(b) && !is_none(b))
                || (b.as_name().is_some() && literal(a) && !is_none(a))
            {
                return Some(*op != CmpOp::Is);
            }
            if literal(a) && literal(b) {
                let a_none = matches!(a.kind, ExprKind::NoneLit);
                let b_none = matches!(b.kind, ExprKind::NoneLit);
                if a_none || b_none {
                    let same = a_none && b_none;
                    return Some(if *op == CmpOp::Is { same } else { !same });
                }
            }
        }
    }
    match &e.kind {
        ExprKind::Bool(b) => Some(*b),
        // `a or b` / `a and b` of decidable tests (`transpose_a or adjoint_a` with both
        // left at their False defaults); one decided operand may settle it.
        ExprKind::BoolOp(op, es) => bool_op_truth(op, es.iter().map(static_truth)),
        _ => None,
    }
}

/// The truth of `a or b ...` / `a and b ...` from its operands' (None: undecided): one
/// operand may settle it (a true one for `or`, a false one for `and`), else all must be
/// decided.
pub(crate) fn bool_op_truth(
    op: &BoolOp,
    truths: impl Iterator<Item = Option<bool>>,
) -> Option<bool> {
    let settles = matches!(op, BoolOp::Or);
    let mut all = true;
    for t in truths {
        match t {
            Some(v) if v == settles => return Some(settles),
            Some(_) => {}
            None => all = false,
        }
    }
    all.then_some(!settles)
}
