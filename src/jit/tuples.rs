//! Tuples the generated code passes between the program's functions, as one name per
//! element: native code holds no tuples. A call of a function returning `n` values,
//! `t = f(...)`, becomes `t[0], ..., t[n-1] = f(...)` into names `t[k]` (not subscripts:
//! no Python name can be one), where every other use of `t` is one the names can stand
//! for: an element read `t[k]`, a push of `t` on the tape and its pop, `t = None`, and the
//! shape argument of `tangent.add_grad_at(g, t, k, v)`. Such a call's gradient `g` (built
//! by `add_grad_at`: `init_grad(t)` with `v` added at `k`) becomes names `g[k]` too, and a
//! call passing `g` as the seed of another function, which reads it only as
//! `tangent.grad_item(seed, k)` (the derivative of `return a, b`), calls a copy of that
//! function taking the seed's elements; a tuple written out, `t = a, b`, is its elements,
//! and a function returning such tuples by name (`return d_t, t`, forward mode's
//! derivative of a call) returns their elements, unpacked by its callers' `d_t, t = ...` (`u, v = step(u, v)` in a loop: the primal call,
//! its tape and its adjoint). Any other use keeps the tuple, and the native compiler
//! then refuses the call as before ("returns several values here").

use crate::syntax::ir::*;
use crate::tape::{POP, PUSH};
use std::collections::{HashMap, HashSet};

const ADD_GRAD_AT: &str = "tangent.add_grad_at";
const ADD_GRAD: &str = "tangent.add_grad";
const INIT_GRAD: &str = "tangent.init_grad";
const GRAD_ITEM: &str = "tangent.grad_item";

/// Rewrites the program's functions (see the module's comment); `counts` are the
/// numbers of values the functions returning tuples return.
pub fn scalarize(funcs: &mut HashMap<String, FuncDef>, counts: &HashMap<String, usize>) {
    let mut counts = counts.clone();
    // Functions whose returns were flattened: the length of each returned tuple (0 for
    // a value), so that `d_t, t = f(...)` unpacks into their elements.
    let mut shapes: HashMap<String, Vec<usize>> = HashMap::new();
    // Each round unpacks names or flattens returns for good; the bound is a guard.
    for _ in 0..16 {
        let mut changed = false;
        let mut names: Vec<String> = funcs.keys().cloned().collect();
        names.sort();
        let mut seeds = seed_params(funcs);
        let mut params = params_of(funcs);
        for name in names {
            let Some(def) = funcs.get_mut(&name) else {
                continue;
            };
            let mut context = Context {
                counts: &mut counts,
                shapes: &mut shapes,
                seeds: &seeds,
                params: &params,
            };
            let Some(variants) = scalarize_function(def, &mut context) else {
                continue;
            };
            changed = true;
            let mut added = false;
            for (callee, param, n) in variants {
                let vname = variant_name(&callee, &param, n);
                if !funcs.contains_key(&vname) {
                    let v = seed_variant(&funcs[&callee], &param, n, &vname);
                    funcs.insert(vname, v);
                    added = true;
                }
            }
            if added {
                seeds = seed_params(funcs);
                params = params_of(funcs);
            }
        }
        if !changed {
            return;
        }
    }
}

/// What one function's rewrite reads of the program (and updates: the counts and
/// shapes of the functions whose returns it flattens).
struct Context<'a> {
    counts: &'a mut HashMap<String, usize>,
    shapes: &'a mut HashMap<String, Vec<usize>>,
    seeds: &'a Seeds,
    params: &'a HashMap<String, Vec<String>>,
}

/// Each function's parameter names.
fn params_of(funcs: &HashMap<String, FuncDef>) -> HashMap<String, Vec<String>> {
    funcs
        .iter()
        .map(|(n, d)| (n.clone(), d.params.iter().map(|p| p.name.clone()).collect()))
        .collect()
}

/// The positional arguments of `e` if it is a call of `p` without keyword arguments.
fn call_of<'a>(e: &'a Expr, p: &str) -> Option<&'a [Expr]> {
    match &e.kind {
        ExprKind::Call { func, args, kwargs }
            if kwargs.is_empty() && super::typing::callee_path(func).as_deref() == Some(p) =>
        {
            Some(args)
        }
        _ => None,
    }
}

fn literal_index(e: &Expr) -> Option<usize> {
    match &e.kind {
        ExprKind::Num(k) => k.parse().ok(),
        _ => None,
    }
}

/// Each function's parameters read only as `tangent.grad_item(p, k)`: function ->
/// (parameter, the largest `k` read plus one).
fn seed_params(funcs: &HashMap<String, FuncDef>) -> HashMap<String, Vec<(String, usize)>> {
    let mut out = HashMap::new();
    for (name, def) in funcs {
        let mut found = Vec::new();
        for p in &def.params {
            let (mut items, mut uses, mut top) = (0, 0, 0);
            walk_stmts(&def.body, &mut |s| {
                crate::syntax::visit::stmt_exprs(s, &mut |e| {
                    e.walk(&mut |x| {
                        if x.as_name() == Some(p.name.as_str()) {
                            uses += 1;
                        }
                        if let Some([seed, k]) = call_of(x, GRAD_ITEM) {
                            if let (Some(true), Some(k)) =
                                (seed.as_name().map(|s| s == p.name), literal_index(k))
                            {
                                items += 1;
                                top = top.max(k + 1);
                            }
                        }
                    })
                })
            });
            if items > 0 && items == uses {
                found.push((p.name.clone(), top));
            }
        }
        if !found.is_empty() {
            out.insert(name.clone(), found);
        }
    }
    out
}

fn variant_name(callee: &str, param: &str, n: usize) -> String {
    format!("{callee}[{param}:{n}]")
}

/// The name `t[k]` (not a Python identifier: no name of the program's can be the same).
fn part(t: &str, k: usize, span: Span) -> Expr {
    Expr::new(ExprKind::Name(format!("{t}[{k}]")), span)
}

/// `callee` taking the `n` elements of its seed parameter `param` as parameters `p[k]`.
fn seed_variant(callee: &FuncDef, param: &str, n: usize, name: &str) -> FuncDef {
    let mut def = callee.clone();
    def.name = name.to_owned();
    let at = def
        .params
        .iter()
        .position(|p| p.name == param)
        .expect("a parameter of the callee");
    let parts = (0..n).map(|k| Param {
        name: format!("{param}[{k}]"),
        default: None,
    });
    def.params.splice(at..=at, parts);
    crate::syntax::lift::each_expr_mut(&mut def.body, &mut |e| {
        crate::syntax::visit::substitute(e, &mut |x| match call_of(x, GRAD_ITEM) {
            Some([seed, k]) if seed.as_name() == Some(param) => {
                Some(part(param, literal_index(k)?, x.span))
            }
            _ => None,
        })
    });
    def
}

/// What a tuple name of the function holds.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    /// `t = f(...)`: the values a call returns.
    Results(usize),
    /// `g = tangent.add_grad_at(None, t, k, v)`: the gradient of such values.
    Gradient(usize),
    /// `t = a, b`: a tuple written out.
    Literal(usize),
}

impl Kind {
    fn len(self) -> usize {
        match self {
            Kind::Results(n) | Kind::Gradient(n) | Kind::Literal(n) => n,
        }
    }
}

type Seeds = HashMap<String, Vec<(String, usize)>>;

/// Rewrites one function; None if nothing changed, else the seed variants its calls
/// need: (callee, parameter, n).
fn scalarize_function(def: &mut FuncDef, cx: &mut Context) -> Option<Vec<(String, String, usize)>> {
    let own: HashSet<String> = def.params.iter().map(|p| p.name.clone()).collect();
    let mut kinds: HashMap<String, Kind> = HashMap::new();
    // Results first, then their gradients (which name the results).
    for _ in 0..2 {
        walk_stmts(&def.body, &mut |s| {
            let StmtKind::Assign(t, v) = &s.kind else {
                return;
            };
            // `d_t, t = f(...)` of a function whose returns were flattened.
            if let (ExprKind::Tuple(ts), Some(shape)) =
                (&t.kind, func_name(v).and_then(|f| cx.shapes.get(f)))
            {
                if shape.len() == ts.len() {
                    for (t, &n) in ts.iter().zip(shape) {
                        match t.as_name() {
                            Some(t) if n >= 2 && !own.contains(t) => {
                                kinds.entry(t.to_owned()).or_insert(Kind::Results(n));
                            }
                            _ => {}
                        }
                    }
                }
                return;
            }
            let Some(t) = t.as_name() else { return };
            if own.contains(t) {
                return;
            }
            let f = func_name(v);
            let kind = match f.and_then(|f| cx.counts.get(f)) {
                Some(&n) if !f.is_some_and(|f| cx.shapes.contains_key(f)) => Some(Kind::Results(n)),
                Some(_) => None,
                None => match &v.kind {
                    ExprKind::Tuple(es) if es.len() >= 2 => Some(Kind::Literal(es.len())),
                    _ => match call_of(v, ADD_GRAD_AT) {
                        Some([_, x, _, _]) => match x.as_name().and_then(|x| kinds.get(x)) {
                            Some(Kind::Results(n)) => Some(Kind::Gradient(*n)),
                            _ => None,
                        },
                        _ => None,
                    },
                },
            };
            if let Some(k) = kind {
                kinds.entry(t.to_owned()).or_insert(k);
            }
        });
    }
    // Drop every name with a use its elements cannot stand for, until none is dropped.
    let mut calls = Vec::new();
    let shape = loop {
        calls.clear();
        let mut bad = HashSet::new();
        let mut check = Check {
            kinds: &kinds,
            counts: cx.counts,
            shapes: cx.shapes,
            seeds: cx.seeds,
            params: cx.params,
            bad: &mut bad,
            calls: &mut calls,
        };
        walk_stmts(&def.body, &mut |s| check.stmt(s));
        let shape = return_shape(def, &kinds, &mut bad);
        if bad.is_empty() {
            break shape;
        }
        kinds.retain(|n, _| !bad.contains(n));
    };
    if kinds.is_empty() {
        return None;
    }
    let body = std::mem::take(&mut def.body);
    def.body = rewrite_block(body, &kinds, cx.params);
    if let Some(shape) = shape {
        cx.counts
            .insert(def.name.clone(), shape.iter().map(|&n| n.max(1)).sum());
        cx.shapes.insert(def.name.clone(), shape);
    }
    calls.sort();
    calls.dedup();
    Some(calls)
}

/// The lengths of the tuples `def` returns by name (`return d_t, t`: 0 for a value),
/// when some return names one; every return must have the same; otherwise the names
/// returned go into `bad`.
fn return_shape(
    def: &FuncDef,
    kinds: &HashMap<String, Kind>,
    bad: &mut HashSet<String>,
) -> Option<Vec<usize>> {
    let mut shapes = Vec::new();
    let mut named = Vec::new();
    walk_stmts(&def.body, &mut |s| {
        if let StmtKind::Return(r) = &s.kind {
            let shape: Vec<usize> = match r.as_ref().map(|e| &e.kind) {
                Some(ExprKind::Tuple(es)) => es
                    .iter()
                    .map(|e| {
                        let n = e.as_name().and_then(|n| kinds.get_key_value(n));
                        if let Some((name, _)) = n {
                            named.push(name.clone());
                        }
                        n.map_or(0, |(_, k)| k.len())
                    })
                    .collect(),
                _ => Vec::new(),
            };
            shapes.push(shape);
        }
    });
    if named.is_empty() {
        return None;
    }
    if shapes.iter().all(|s| !s.is_empty() && *s == shapes[0]) {
        return Some(shapes.swap_remove(0));
    }
    bad.extend(named);
    None
}

/// The name of the function `v` calls, if `v` is a call of a plain name.
fn func_name(v: &Expr) -> Option<&str> {
    match &v.kind {
        ExprKind::Call { func, .. } => func.as_name(),
        _ => None,
    }
}

struct Check<'a> {
    kinds: &'a HashMap<String, Kind>,
    counts: &'a HashMap<String, usize>,
    shapes: &'a HashMap<String, Vec<usize>>,
    seeds: &'a Seeds,
    params: &'a HashMap<String, Vec<String>>,
    bad: &'a mut HashSet<String>,
    calls: &'a mut Vec<(String, String, usize)>,
}

impl Check<'_> {
    fn tuple(&self, e: &Expr) -> Option<(String, Kind)> {
        let n = e.as_name()?;
        self.kinds.get(n).map(|k| (n.to_owned(), *k))
    }

    /// Records the uses in `s` that keep a tuple, and the seed variants needed.
    fn stmt(&mut self, s: &Stmt) {
        // Occurrences the statement's own form accounts for.
        let mut allowed: Vec<*const Expr> = Vec::new();
        match &s.kind {
            StmtKind::Assign(t, v) if matches!(t.kind, ExprKind::Tuple(_)) => {
                let ExprKind::Tuple(ts) = &t.kind else { return };
                let shape = func_name(v).and_then(|f| self.shapes.get(f));
                for (i, t) in ts.iter().enumerate() {
                    if let Some((name, kind)) = self.tuple(t) {
                        allowed.push(t);
                        if shape.and_then(|sh| sh.get(i)) != Some(&kind.len())
                            || shape.map(Vec::len) != Some(ts.len())
                        {
                            self.bad.insert(name);
                        }
                    }
                }
            }
            StmtKind::Return(Some(Expr {
                kind: ExprKind::Tuple(es),
                ..
            })) => {
                // Checked as a whole by `return_shape`.
                allowed.extend(
                    es.iter()
                        .filter(|e| self.tuple(e).is_some())
                        .map(|e| e as *const Expr),
                );
            }
            StmtKind::Assign(t, v) => {
                if let Some((name, kind)) = self.tuple(t) {
                    allowed.push(t);
                    let ok = match (&v.kind, kind) {
                        (ExprKind::NoneLit, _) => true,
                        _ if call_of(v, POP).is_some() => true,
                        (_, Kind::Results(n)) => {
                            func_name(v).and_then(|f| self.counts.get(f)) == Some(&n)
                                && !func_name(v).is_some_and(|f| self.shapes.contains_key(f))
                        }
                        (ExprKind::Tuple(es), Kind::Literal(n)) => es.len() == n,
                        (_, Kind::Literal(_)) => false,
                        (_, Kind::Gradient(n)) => match call_of(v, ADD_GRAD_AT) {
                            Some([g, x, k, _]) => {
                                let first = matches!(g.kind, ExprKind::NoneLit)
                                    || g.as_name() == Some(name.as_str());
                                let shape = self.tuple(x).map(|(_, k)| k) == Some(Kind::Results(n));
                                allowed.extend([g as *const Expr, x as *const Expr]);
                                first && shape && literal_index(k).is_some_and(|k| k < n)
                            }
                            _ => false,
                        },
                    };
                    if !ok {
                        self.bad.insert(name);
                    }
                }
            }
            StmtKind::ExprStmt(e) => {
                if let Some([_, x]) = call_of(e, PUSH) {
                    allowed.push(x);
                }
            }
            _ => {}
        }
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            walk_uses(e, &mut |x, how| {
                let Some((name, kind)) = self.tuple(x) else {
                    return;
                };
                if allowed.contains(&(x as *const Expr)) {
                    return;
                }
                let ok = match (how, kind) {
                    (Use::Index(k), Kind::Results(n) | Kind::Literal(n)) => k < n,
                    (
                        Use::Arg {
                            callee,
                            position,
                            keyword,
                        },
                        Kind::Gradient(n),
                    ) => {
                        let param = keyword.or_else(|| {
                            self.params
                                .get(&callee)
                                .and_then(|ps| ps.get(position?).cloned())
                        });
                        match (param, self.seeds.get(&callee)) {
                            (Some(p), Some(ps))
                                if ps.iter().any(|(q, top)| *q == p && *top <= n) =>
                            {
                                self.calls.push((callee, p, n));
                                true
                            }
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    self.bad.insert(name);
                }
            })
        });
    }
}

/// How a name occurs.
enum Use {
    /// `t[k]` with a literal `k`.
    Index(usize),
    /// An argument of a call of the function `callee`, at `position` or by `keyword`.
    Arg {
        callee: String,
        position: Option<usize>,
        keyword: Option<String>,
    },
    Other,
}

/// Calls `f` on each name in `e` with how it occurs.
fn walk_uses(e: &Expr, f: &mut dyn FnMut(&Expr, Use)) {
    match &e.kind {
        ExprKind::Name(_) => f(e, Use::Other),
        ExprKind::Subscript(base, k) if base.as_name().is_some() && literal_index(k).is_some() => {
            f(base, Use::Index(literal_index(k).expect("checked")))
        }
        ExprKind::Call { func, args, kwargs } => {
            let callee = func.as_name().map(str::to_owned);
            let each = |a: &Expr,
                        position: Option<usize>,
                        keyword: Option<&String>,
                        f: &mut dyn FnMut(&Expr, Use)| {
                match (&a.kind, &callee) {
                    (ExprKind::Name(_), Some(c)) => f(
                        a,
                        Use::Arg {
                            callee: c.clone(),
                            position,
                            keyword: keyword.cloned(),
                        },
                    ),
                    _ => walk_uses(a, f),
                }
            };
            for (i, a) in args.iter().enumerate() {
                each(a, Some(i), None, f);
            }
            for (k, a) in kwargs {
                each(a, None, Some(k), f);
            }
            walk_uses(func, f);
        }
        _ => crate::syntax::lift::each_child(e, &mut |c| walk_uses(c, f)),
    }
}

/// `stmts` with the tuple names of `kinds` written as their elements.
fn rewrite_block(
    stmts: Vec<Stmt>,
    kinds: &HashMap<String, Kind>,
    params: &HashMap<String, Vec<String>>,
) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for mut s in stmts {
        let span = s.span;
        let assign = |t: Expr, v: Expr| Stmt::new(StmtKind::Assign(t, v), span);
        match &mut s.kind {
            StmtKind::If(_, a, b) => {
                *a = rewrite_block(std::mem::take(a), kinds, params);
                *b = rewrite_block(std::mem::take(b), kinds, params);
            }
            StmtKind::For(_, _, b) | StmtKind::While(_, b) | StmtKind::With(_, b) => {
                *b = rewrite_block(std::mem::take(b), kinds, params);
            }
            _ => {}
        }
        // `d_t, t = f(...)` and `return d_t, t`: each tuple name as its elements.
        let spread = |es: &[Expr]| -> Vec<Expr> {
            es.iter()
                .flat_map(|e| match e.as_name().and_then(|n| kinds.get_key_value(n)) {
                    Some((n, k)) => (0..k.len()).map(|j| part(n, j, e.span)).collect(),
                    None => vec![rewrite_expr(e, kinds, params)],
                })
                .collect()
        };
        match &s.kind {
            StmtKind::Assign(
                Expr {
                    kind: ExprKind::Tuple(ts),
                    span: at,
                },
                v,
            ) if ts
                .iter()
                .any(|t| t.as_name().is_some_and(|n| kinds.contains_key(n))) =>
            {
                let targets = Expr::new(ExprKind::Tuple(spread(ts)), *at);
                out.push(assign(targets, rewrite_expr(v, kinds, params)));
                continue;
            }
            StmtKind::Return(Some(Expr {
                kind: ExprKind::Tuple(es),
                span: at,
            })) if es
                .iter()
                .any(|e| e.as_name().is_some_and(|n| kinds.contains_key(n))) =>
            {
                let values = Expr::new(ExprKind::Tuple(spread(es)), *at);
                out.push(Stmt::new(StmtKind::Return(Some(values)), span));
                continue;
            }
            _ => {}
        }
        let target = match &s.kind {
            StmtKind::Assign(t, _) => t.as_name().and_then(|t| kinds.get_key_value(t)),
            _ => None,
        };
        if let (Some((t, kind)), StmtKind::Assign(_, v)) = (target, &s.kind) {
            let n = kind.len();
            let v = rewrite_expr(v, kinds, params);
            if matches!(v.kind, ExprKind::NoneLit) {
                out.extend((0..n).map(|k| assign(part(t, k, span), v.clone())));
            } else if call_of(&v, POP).is_some() {
                out.extend((0..n).rev().map(|k| assign(part(t, k, span), v.clone())));
            } else if let (Kind::Gradient(_), Some([g, x, k, value])) =
                (kind, call_of(&v, ADD_GRAD_AT))
            {
                let k = literal_index(k).expect("checked");
                let x = x.as_name().expect("checked");
                if matches!(g.kind, ExprKind::NoneLit) {
                    out.extend((0..n).map(|j| {
                        assign(
                            part(t, j, span),
                            Expr::call_path(INIT_GRAD, vec![part(x, j, span)]),
                        )
                    }));
                }
                let sum = Expr::call_path(ADD_GRAD, vec![part(t, k, span), value.clone()]);
                out.push(assign(part(t, k, span), sum));
            } else if let (Kind::Literal(_), ExprKind::Tuple(es)) = (kind, &v.kind) {
                // Each element into a temporary first: an element may read the tuple.
                let fresh = |k: usize| part(&format!("{t}:new"), k, span);
                out.extend(
                    es.iter()
                        .enumerate()
                        .map(|(k, e)| assign(fresh(k), e.clone())),
                );
                out.extend((0..n).map(|k| assign(part(t, k, span), fresh(k))));
            } else {
                let parts = (0..n).map(|k| part(t, k, span)).collect();
                out.push(assign(Expr::new(ExprKind::Tuple(parts), span), v));
            }
            continue;
        }
        if let StmtKind::ExprStmt(e) = &s.kind {
            if let Some([stack, x]) = call_of(e, PUSH) {
                if let Some((t, kind)) = x.as_name().and_then(|x| kinds.get_key_value(x)) {
                    out.extend((0..kind.len()).map(|k| {
                        let push = Expr::call_path(PUSH, vec![stack.clone(), part(t, k, span)]);
                        Stmt::new(StmtKind::ExprStmt(push), span)
                    }));
                    continue;
                }
            }
        }
        crate::syntax::visit::stmt_exprs_mut(&mut s, &mut |e| *e = rewrite_expr(e, kinds, params));
        out.push(s);
    }
    out
}

/// `e` with element reads `t[k]` as names and gradient tuples passed as seeds spread over
/// the seed variant's parameters.
fn rewrite_expr(
    e: &Expr,
    kinds: &HashMap<String, Kind>,
    params: &HashMap<String, Vec<String>>,
) -> Expr {
    let mut e = e.clone();
    crate::syntax::visit::substitute(&mut e, &mut |x| match &x.kind {
        ExprKind::Subscript(base, k) => {
            let t = base.as_name().filter(|t| kinds.contains_key(*t))?;
            Some(part(t, literal_index(k)?, x.span))
        }
        ExprKind::Call { func, args, kwargs } => {
            let callee = func.as_name()?;
            let gradient = |a: &Expr| match a.as_name().and_then(|n| kinds.get_key_value(n)) {
                Some((n, Kind::Gradient(len))) => Some((n.clone(), *len)),
                _ => None,
            };
            let names = params.get(callee)?;
            let (mut new_args, mut new_kwargs, mut spread) = (Vec::new(), Vec::new(), None);
            for (i, a) in args.iter().enumerate() {
                match gradient(a) {
                    Some((g, n)) => {
                        spread = Some((names.get(i)?.clone(), n));
                        new_args.extend((0..n).map(|k| part(&g, k, a.span)));
                    }
                    None => new_args.push(rewrite_expr(a, kinds, params)),
                }
            }
            for (key, a) in kwargs {
                match gradient(a) {
                    Some((g, n)) => {
                        spread = Some((key.clone(), n));
                        new_kwargs
                            .extend((0..n).map(|k| (format!("{key}[{k}]"), part(&g, k, a.span))));
                    }
                    None => new_kwargs.push((key.clone(), rewrite_expr(a, kinds, params))),
                }
            }
            let (param, n) = spread?;
            let func = Expr::new(ExprKind::Name(variant_name(callee, &param, n)), func.span);
            Some(Expr::new(
                ExprKind::Call {
                    func: Box::new(func),
                    args: new_args,
                    kwargs: new_kwargs,
                },
                x.span,
            ))
        }
        _ => None,
    });
    e
}
