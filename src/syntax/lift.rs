//! Functions inside functions, made functions of the module (lambda lifting): a `def`
//! nested in the differentiated function takes the enclosing function's variables it
//! reads as extra parameters, passed at each call. A Python closure reads its cells when
//! it runs, so passing their values at the call is what it computes; the nested function
//! is then an ordinary user callee (joint motion, recursion), and gradients flow into the
//! enclosing function's variables through those parameters.
//!
//! Also the renaming of free variables read from closure cells (`LiveNames::closures`).

use super::diag::Diagnostic;
use super::ir::*;
use crate::syntax::visit::stmt_exprs;
use std::collections::{HashMap, HashSet};

/// A `def` found at the top level of a function body (already lowered).
pub struct Nested {
    pub def: FuncDef,
    /// The module-level name it is given.
    pub lifted: String,
}

struct Target {
    lifted: String,
    params: Vec<Param>,
    captures: Vec<String>,
}

/// Lifts `nested` out of `parent` (whose body no longer holds the `def`s): returns the
/// lifted functions, with calls in `parent` and in each other rewritten to pass the
/// captured variables.
pub fn lift(parent: &mut FuncDef, nested: Vec<Nested>) -> Result<Vec<FuncDef>, Diagnostic> {
    if nested.is_empty() {
        return Ok(vec![]);
    }
    let mut scope: HashSet<String> = parent.params.iter().map(|p| p.name.clone()).collect();
    assigned(&parent.body, &mut scope);
    let names: HashSet<String> = nested.iter().map(|n| n.def.name.clone()).collect();
    for n in &nested {
        if scope.contains(&n.def.name) {
            return Err(Diagnostic::new(
                n.def.span,
                format!(
                    "`{}` is a nested function and also a variable of `{}`",
                    n.def.name, parent.name
                ),
                "give the nested function a name of its own",
            ));
        }
        if let Some(k) = n.def.star.or(n.def.kwonly) {
            return Err(Diagnostic::new(
                n.def.span,
                format!(
                    "the nested function `{}` has `*args` or keyword-only parameters (from `{}`)",
                    n.def.name, n.def.params[k].name
                ),
                "make them positional, or define the function at module level",
            ));
        }
        for p in &n.def.params {
            if let Some(d) = &p.default {
                if !is_literal(d) {
                    return Err(Diagnostic::new(
                        d.span,
                        format!(
                            "the default of `{}` in the nested function `{}` is computed when the `def` runs",
                            p.name, n.def.name
                        ),
                        "use a literal default, or pass the value at each call",
                    ));
                }
            }
        }
    }
    // Captured: the enclosing function's variables each reads, and those of the nested
    // functions it calls (to a fixed point).
    let mut free: HashMap<String, Vec<String>> = HashMap::new();
    for n in &nested {
        let mut bound: HashSet<String> = n.def.params.iter().map(|p| p.name.clone()).collect();
        assigned(&n.def.body, &mut bound);
        let mut reads = Vec::new();
        block_reads(&n.def.body, &mut reads);
        let mut seen = HashSet::new();
        let list = reads
            .into_iter()
            .filter(|r| !bound.contains(r) && (scope.contains(r) || names.contains(r)))
            .filter(|r| seen.insert(r.clone()))
            .collect();
        free.insert(n.def.name.clone(), list);
    }
    let mut captures: HashMap<String, Vec<String>> = free
        .iter()
        .map(|(k, v)| {
            (
                k.clone(),
                v.iter().filter(|r| scope.contains(*r)).cloned().collect(),
            )
        })
        .collect();
    loop {
        let mut changed = false;
        for n in &nested {
            let called: Vec<String> = free[&n.def.name]
                .iter()
                .filter(|r| names.contains(*r))
                .cloned()
                .collect();
            for m in called {
                for c in captures[&m].clone() {
                    let own = captures.get_mut(&n.def.name).expect("every nested def");
                    if !own.contains(&c) {
                        own.push(c);
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    let targets: HashMap<String, Target> = nested
        .iter()
        .map(|n| {
            (
                n.def.name.clone(),
                Target {
                    lifted: n.lifted.clone(),
                    params: n.def.params.clone(),
                    captures: captures[&n.def.name].clone(),
                },
            )
        })
        .collect();
    rewrite_block(&mut parent.body, &HashSet::new(), &targets)?;
    let mut out = Vec::new();
    for n in nested {
        let mut def = n.def;
        let mut shadow: HashSet<String> = def.params.iter().map(|p| p.name.clone()).collect();
        assigned(&def.body, &mut shadow);
        rewrite_block(&mut def.body, &shadow, &targets)?;
        let captured = &targets[&def.name].captures;
        // Calls pass every argument by position, so the lifted function needs no defaults.
        let mut params: Vec<Param> = def
            .params
            .iter()
            .map(|p| Param {
                name: p.name.clone(),
                default: None,
            })
            .collect();
        params.extend(captured.iter().map(|c| Param {
            name: c.clone(),
            default: None,
        }));
        out.push(FuncDef {
            name: n.lifted,
            params,
            vararg: None,
            kwonly: None,
            star: None,
            body: def.body,
            span: def.span,
        });
    }
    Ok(out)
}

/// Renames the free variables `renames` (closure cells) in `def`: every read of a name
/// the function does not bind itself, outside lambdas and comprehensions that bind it.
pub fn rename_free(def: &mut FuncDef, renames: &[(String, String)]) {
    let mut own: HashSet<String> = def.params.iter().map(|p| p.name.clone()).collect();
    assigned(&def.body, &mut own);
    let map: HashMap<&str, &str> = renames
        .iter()
        .filter(|(v, n)| v != n && !own.contains(v))
        .map(|(v, n)| (v.as_str(), n.as_str()))
        .collect();
    if map.is_empty() {
        return;
    }
    each_expr_mut(&mut def.body, &mut |e| {
        rename_expr(e, &map, &mut Vec::new())
    });
}

/// Zero-argument `super()` in a method as `super(__class__, self)`: the generated
/// derivative's first parameter need not be the object (a bound method's is not), and
/// `__class__` is the method's closure cell, read like any other.
pub fn explicit_super(def: &mut FuncDef) {
    let Some(first) = def.params.first().map(|p| p.name.clone()) else {
        return;
    };
    each_expr_mut(&mut def.body, &mut |e| explicit_super_expr(e, &first));
}

fn explicit_super_expr(e: &mut Expr, first: &str) {
    if let ExprKind::Call { func, args, kwargs } = &mut e.kind {
        if func.as_name() == Some("super") && args.is_empty() && kwargs.is_empty() {
            args.push(Expr::new(ExprKind::Name("__class__".into()), func.span));
            args.push(Expr::new(ExprKind::Name(first.to_owned()), func.span));
            return;
        }
    }
    each_child_mut(e, &mut |c| explicit_super_expr(c, first));
}

/// A bound method's function without its first parameter `param` (the object), which
/// it then reads as a free variable.
pub fn bind_first(def: &mut FuncDef, param: &str) -> Result<(), Diagnostic> {
    if def.params.first().map(|p| p.name.as_str()) != Some(param) {
        return Err(Diagnostic::new(
            def.span,
            format!("the bound method's first parameter is not `{param}`"),
            "differentiate the function itself (`type(obj).method`) with the object as an argument",
        ));
    }
    let mut assigned_here = HashSet::new();
    assigned(&def.body, &mut assigned_here);
    if assigned_here.contains(param) {
        return Err(Diagnostic::new(
            def.span,
            format!("the method assigns to `{param}`, its bound object"),
            "assign to another variable",
        ));
    }
    def.params.remove(0);
    def.kwonly = def.kwonly.map(|k| k - 1);
    def.star = def.star.map(|k| k - 1);
    Ok(())
}

fn rename_expr(e: &mut Expr, map: &HashMap<&str, &str>, bound: &mut Vec<String>) {
    match &mut e.kind {
        ExprKind::Name(n) => {
            if !bound.contains(n) {
                if let Some(new) = map.get(n.as_str()) {
                    *n = (*new).to_owned();
                }
            }
        }
        ExprKind::Lambda(params, body) => {
            let k = bound.len();
            bound.extend(params.iter().cloned());
            rename_expr(body, map, bound);
            bound.truncate(k);
        }
        ExprKind::ListComp(elt, gens) => {
            let k = bound.len();
            for g in gens.iter_mut() {
                rename_expr(&mut g.iter, map, bound);
                g.target.bound_names(&mut |n| bound.push(n.to_owned()));
                for c in g.ifs.iter_mut() {
                    rename_expr(c, map, bound);
                }
            }
            rename_expr(elt, map, bound);
            bound.truncate(k);
        }
        _ => each_child_mut(e, &mut |c| rename_expr(c, map, bound)),
    }
}

fn is_literal(e: &Expr) -> bool {
    e.is_atom() && !matches!(e.kind, ExprKind::Name(_)) || e.is_number_literal()
}

/// The names assignments and `for` targets in `stmts` bind (not inside lambdas or
/// comprehensions, which have scopes of their own).
fn assigned(stmts: &[Stmt], out: &mut HashSet<String>) {
    walk_stmts(stmts, &mut |s| match &s.kind {
        StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) => t
            .bound_names(&mut |n| {
                out.insert(n.to_owned());
            }),
        _ => {}
    });
}

/// Every name read in `stmts`, outside the scopes of lambdas and comprehensions that
/// bind it.
fn block_reads(stmts: &[Stmt], out: &mut Vec<String>) {
    walk_stmts(stmts, &mut |s| {
        stmt_exprs(s, &mut |e| expr_reads(e, &mut Vec::new(), out));
    });
}

fn expr_reads(e: &Expr, bound: &mut Vec<String>, out: &mut Vec<String>) {
    match &e.kind {
        ExprKind::Name(n) => {
            if !bound.contains(n) {
                out.push(n.clone());
            }
        }
        ExprKind::Lambda(params, body) => {
            let k = bound.len();
            bound.extend(params.iter().cloned());
            expr_reads(body, bound, out);
            bound.truncate(k);
        }
        ExprKind::ListComp(elt, gens) => {
            let k = bound.len();
            for g in gens {
                expr_reads(&g.iter, bound, out);
                g.target.bound_names(&mut |n| bound.push(n.to_owned()));
                for c in &g.ifs {
                    expr_reads(c, bound, out);
                }
            }
            expr_reads(elt, bound, out);
            bound.truncate(k);
        }
        _ => each_child(e, &mut |c| expr_reads(c, bound, out)),
    }
}

fn rewrite_block(
    stmts: &mut [Stmt],
    shadow: &HashSet<String>,
    targets: &HashMap<String, Target>,
) -> Result<(), Diagnostic> {
    let mut result = Ok(());
    each_expr_mut(stmts, &mut |e| {
        if result.is_ok() {
            result = rewrite_expr(e, shadow, targets);
        }
    });
    result
}

fn rewrite_expr(
    e: &mut Expr,
    shadow: &HashSet<String>,
    targets: &HashMap<String, Target>,
) -> Result<(), Diagnostic> {
    let target = |n: &str| targets.get(n).filter(|_| !shadow.contains(n));
    match &mut e.kind {
        ExprKind::Call { func, args, kwargs } => {
            if let Some(t) = func.as_name().and_then(target) {
                let span = e.span;
                let name = func.as_name().unwrap_or_default().to_owned();
                for a in args.iter_mut() {
                    rewrite_expr(a, shadow, targets)?;
                }
                for (_, a) in kwargs.iter_mut() {
                    rewrite_expr(a, shadow, targets)?;
                }
                let call = bind_call(&name, t, std::mem::take(args), std::mem::take(kwargs), span)?;
                *e = call;
                return Ok(());
            }
            rewrite_expr(func, shadow, targets)?;
            for a in args.iter_mut().chain(kwargs.iter_mut().map(|(_, a)| a)) {
                match a.as_name().and_then(target) {
                    Some(t) => *a = passed_function(a, t)?,
                    None => rewrite_expr(a, shadow, targets)?,
                }
            }
            Ok(())
        }
        ExprKind::Name(n) if target(n).is_some() => Err(Diagnostic::new(
            e.span,
            format!("the nested function `{n}` is used as a value"),
            "tangent differentiates calls to a nested function; call it directly, or define it at module level",
        )),
        _ => {
            let mut result = Ok(());
            each_child_mut(e, &mut |c| {
                if result.is_ok() {
                    result = rewrite_expr(c, shadow, targets);
                }
            });
            result
        }
    }
}

/// The marker a nested function passed to a call becomes (`lax.fori_loop(0, n, body,
/// x)`): `tangent.nested_function(lambda i, v: lifted(i, v, captures...), 'body')`.
/// Desugaring calls the lambda where a control-flow template calls the function it is
/// given (`ad::control_flow`); anywhere else the marker is a located error.
pub const NESTED_FUNCTION: &str = "tangent.nested_function";

fn passed_function(name: &Expr, t: &Target) -> Result<Expr, Diagnostic> {
    let span = name.span;
    let own = name.as_name().unwrap_or_default().to_owned();
    let required: Vec<String> = t
        .params
        .iter()
        .take_while(|p| p.default.is_none())
        .map(|p| p.name.clone())
        .collect();
    let args = required
        .iter()
        .map(|p| Expr::new(ExprKind::Name(p.clone()), span))
        .collect();
    let call = bind_call(&own, t, args, vec![], span)?;
    let mut marker = Expr::call_path(
        NESTED_FUNCTION,
        vec![
            Expr::new(ExprKind::Lambda(required, Box::new(call)), span),
            Expr::str_lit(own),
        ],
    );
    marker.span = span;
    Ok(marker)
}

/// `name(args, k=v)` as a call of the lifted function with every parameter by position
/// (defaults filled in), then the captured variables.
fn bind_call(
    name: &str,
    t: &Target,
    args: Vec<Expr>,
    kwargs: Vec<(String, Expr)>,
    span: Span,
) -> Result<Expr, Diagnostic> {
    if args.len() > t.params.len() {
        return Err(Diagnostic::new(
            span,
            format!(
                "`{name}` takes {} argument(s), {} given",
                t.params.len(),
                args.len()
            ),
            "pass one value per parameter",
        ));
    }
    let mut slots: Vec<Option<Expr>> = args.into_iter().map(Some).collect();
    slots.resize(t.params.len(), None);
    for (k, v) in kwargs {
        let Some(i) = t.params.iter().position(|p| p.name == k) else {
            return Err(Diagnostic::new(
                v.span,
                format!("`{name}` has no parameter `{k}`"),
                "pass the arguments the nested function takes",
            ));
        };
        if slots[i].is_some() {
            return Err(Diagnostic::new(
                v.span,
                format!("`{name}` got two values for `{k}`"),
                "pass each argument once",
            ));
        }
        slots[i] = Some(v);
    }
    let mut out = Vec::new();
    for (slot, p) in slots.into_iter().zip(&t.params) {
        match slot.or_else(|| p.default.clone()) {
            Some(v) => out.push(v),
            None => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{name}` is called without its argument `{}`", p.name),
                    "pass a value for every parameter without a default",
                ))
            }
        }
    }
    out.extend(
        t.captures
            .iter()
            .map(|c| Expr::new(ExprKind::Name(c.clone()), span)),
    );
    Ok(Expr::new(
        ExprKind::Call {
            func: Box::new(Expr::new(ExprKind::Name(t.lifted.clone()), span)),
            args: out,
            kwargs: vec![],
        },
        span,
    ))
}

/// Calls `f` on each expression of each statement of `stmts`, recursively into blocks.
pub(crate) fn each_expr_mut(stmts: &mut [Stmt], f: &mut dyn FnMut(&mut Expr)) {
    for s in stmts {
        crate::syntax::visit::stmt_exprs_mut(s, f);
        match &mut s.kind {
            StmtKind::If(_, a, b) => {
                each_expr_mut(a, f);
                each_expr_mut(b, f)
            }
            StmtKind::While(_, body) | StmtKind::For(_, _, body) | StmtKind::With(_, body) => {
                each_expr_mut(body, f)
            }
            _ => {}
        }
    }
}

/// The direct sub-expressions of `e` (a dict's keys are constants).
pub(crate) fn each_child(e: &Expr, f: &mut dyn FnMut(&Expr)) {
    match &e.kind {
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::BoolOp(_, es)
        | ExprKind::Dict(_, es) => es.iter().for_each(f),
        ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
            f(a);
            f(b)
        }
        ExprKind::Unary(_, a) | ExprKind::Attr(a, _) | ExprKind::Lambda(_, a) => f(a),
        ExprKind::Compare(a, rest) => {
            f(a);
            rest.iter().for_each(|(_, e)| f(e))
        }
        ExprKind::Call { func, args, kwargs } => {
            f(func);
            args.iter().for_each(&mut *f);
            kwargs.iter().for_each(|(_, e)| f(e));
        }
        ExprKind::Slice(a, b, c) => [a, b, c].into_iter().flatten().for_each(|e| f(e)),
        ExprKind::IfExp { test, body, orelse } => {
            f(test);
            f(body);
            f(orelse)
        }
        ExprKind::ListComp(elt, gens) => {
            f(elt);
            for g in gens {
                f(&g.target);
                f(&g.iter);
                g.ifs.iter().for_each(&mut *f);
            }
        }
        _ => {}
    }
}

pub(crate) fn each_child_mut(e: &mut Expr, f: &mut dyn FnMut(&mut Expr)) {
    match &mut e.kind {
        ExprKind::Tuple(es)
        | ExprKind::List(es)
        | ExprKind::BoolOp(_, es)
        | ExprKind::Dict(_, es) => es.iter_mut().for_each(f),
        ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
            f(a);
            f(b)
        }
        ExprKind::Unary(_, a) | ExprKind::Attr(a, _) | ExprKind::Lambda(_, a) => f(a),
        ExprKind::Compare(a, rest) => {
            f(a);
            rest.iter_mut().for_each(|(_, e)| f(e))
        }
        ExprKind::Call { func, args, kwargs } => {
            f(func);
            args.iter_mut().for_each(&mut *f);
            kwargs.iter_mut().for_each(|(_, e)| f(e));
        }
        ExprKind::Slice(a, b, c) => [a, b, c].into_iter().flatten().for_each(|e| f(e)),
        ExprKind::IfExp { test, body, orelse } => {
            f(test);
            f(body);
            f(orelse)
        }
        ExprKind::ListComp(elt, gens) => {
            f(elt);
            for g in gens {
                f(&mut g.target);
                f(&mut g.iter);
                g.ifs.iter_mut().for_each(&mut *f);
            }
        }
        _ => {}
    }
}
