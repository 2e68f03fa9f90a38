//! Calls that stand for control flow (`jax.lax.fori_loop(0, n, body, x)`, `lax.scan`,
//! `lax.cond`, `lax.while_loop`), written out as the Python of their
//! `@control_flow(...)` template in `backends/`: the loop or branch, with the functions
//! the call passes called where the template calls its function parameters. The
//! derivative then goes through ordinary loops and branches, in every mode.
//!
//! A template is a function whose last statement is its only `return`. Its parameters
//! that it calls are the functions passed (a function of the module, a lambda, a nested
//! function, `functools.partial` of one); the template's `*args` name among the
//! arguments of such a call passes those arguments one by one in its place
//! (`f(operands)` is `f(*operands)`, `f(x, operands)` is `f(x, *operands)`).
//! The other parameters are bound once, before the template's statements; the template's
//! own variables get fresh names, and every statement it adds is located at the call.

use crate::resolve::{Callee, Resolver};
use crate::rules::{called_parameters, RuleSet};
use crate::syntax::ir::*;
use crate::syntax::lift::{each_child_mut, NESTED_FUNCTION};
use crate::syntax::names::NameGen;
use crate::syntax::Diagnostic;
use std::collections::{HashMap, HashSet};

pub struct Expander<'a> {
    pub names: &'a mut NameGen,
    pub resolver: &'a Resolver<'a>,
    pub rules: &'a RuleSet,
    /// The variables the expansions bind (locals of the function from now on).
    pub bound: Vec<String>,
}

impl Expander<'_> {
    pub fn block(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        for mut s in stmts {
            let mut before = Vec::new();
            match &mut s.kind {
                StmtKind::Assign(t, v) | StmtKind::AugAssign(t, _, v) => {
                    self.expr(v, &mut before, None)?;
                    self.expr(t, &mut before, None)?;
                }
                StmtKind::Return(Some(e)) | StmtKind::ExprStmt(e) => {
                    self.expr(e, &mut before, None)?
                }
                StmtKind::Assert(t, m) => {
                    self.expr(t, &mut before, None)?;
                    if let Some(m) = m {
                        self.expr(m, &mut before, None)?;
                    }
                }
                StmtKind::If(t, a, b) => {
                    self.expr(t, &mut before, None)?;
                    *a = self.block(std::mem::take(a))?;
                    *b = self.block(std::mem::take(b))?;
                }
                StmtKind::For(t, it, body) => {
                    self.expr(it, &mut before, None)?;
                    self.expr(t, &mut before, None)?;
                    *body = self.block(std::mem::take(body))?;
                }
                StmtKind::While(t, body) => {
                    // The test runs before every iteration: statements hoisted before the
                    // loop would run once.
                    self.expr(t, &mut before, Some("the condition of a `while` loop"))?;
                    *body = self.block(std::mem::take(body))?;
                }
                StmtKind::With(items, body) => {
                    for (cm, target) in items.iter_mut() {
                        self.expr(cm, &mut before, None)?;
                        if let Some(t) = target {
                            self.expr(t, &mut before, None)?;
                        }
                    }
                    *body = self.block(std::mem::take(body))?;
                }
                _ => {}
            }
            out.extend(before);
            out.push(s);
        }
        Ok(out)
    }

    /// Expands the control-flow calls in `e` (innermost first), their statements
    /// appended to `before`; `guarded`: where `e` is evaluated other than once, before
    /// the statement (the control-flow call is then refused, saying where it is).
    fn expr(
        &mut self,
        e: &mut Expr,
        before: &mut Vec<Stmt>,
        guarded: Option<&'static str>,
    ) -> Result<(), Diagnostic> {
        let inner = match &e.kind {
            ExprKind::ListComp(..) => Some("a comprehension"),
            ExprKind::Lambda(..) => Some("a lambda"),
            ExprKind::IfExp { .. } => Some("a conditional expression"),
            ExprKind::BoolOp(..) => Some("an `and`/`or` expression"),
            _ => None,
        };
        let mut result = Ok(());
        each_child_mut(e, &mut |c| {
            if result.is_ok() {
                result = self.expr(c, before, guarded.or(inner));
            }
        });
        result?;
        let ExprKind::Call { func, args, kwargs } = &e.kind else {
            return Ok(());
        };
        if let Some(out) = self.module_call(e, before, guarded)? {
            *e = out;
            return Ok(());
        }
        let Callee::Library(q) = self.resolver.callee(func) else {
            return refuse_passed_function(func, args, kwargs);
        };
        let Some(template) = self.rules.control_flow(&q) else {
            return refuse_passed_function(func, args, kwargs);
        };
        if let Some(place) = guarded {
            return Err(Diagnostic::new(
                e.span,
                format!("`{q}` is called inside {place}"),
                format!("call `{q}` in a statement of its own and use its result there"),
            ));
        }
        let (args, kwargs) = (args.clone(), kwargs.clone());
        *e = self.inline(&q, template, args, kwargs, e.span, before)?;
        Ok(())
    }

    /// The statements of `template` for the call `q(args, kwargs)` at `span`, appended to
    /// `before`; returns the call's value.
    fn inline(
        &mut self,
        q: &str,
        template: &FuncDef,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
        span: Span,
        before: &mut Vec<Stmt>,
    ) -> Result<Expr, Diagnostic> {
        let (slots, extra) = bind(q, template, args, kwargs, span)?;
        let called = called_parameters(template);
        let mut values: HashMap<String, Expr> = HashMap::new();
        let bound = &mut self.bound;
        let mut functions: HashMap<String, Expr> = HashMap::new();
        let mut bind_value = |name: &str, value: Expr, names: &mut NameGen| -> Expr {
            if is_path(&value) || is_literal(&value) {
                return value;
            }
            let fresh = names.fresh(name);
            bound.push(fresh.clone());
            before.push(Stmt::new(
                StmtKind::Assign(Expr::new(ExprKind::Name(fresh.clone()), span), value),
                span,
            ));
            Expr::new(ExprKind::Name(fresh), span)
        };
        for (p, value) in template.params.iter().zip(slots) {
            if called.contains(&p.name) {
                // A partial's bound arguments are evaluated once, when it is made, as
                // Python does: bound before the template's statements, not where the
                // loop calls the function.
                let mut value = value;
                if let ExprKind::Call { func, args, kwargs } = &mut value.kind {
                    if self.resolver.callee(func) == Callee::Library("functools.partial".into()) {
                        for a in args.iter_mut().skip(1) {
                            *a = bind_value("bound", a.clone(), self.names);
                        }
                        for (k, a) in kwargs.iter_mut() {
                            *a = bind_value(k, a.clone(), self.names);
                        }
                    }
                }
                functions.insert(p.name.clone(), value);
            } else {
                let v = bind_value(&p.name, value, self.names);
                values.insert(p.name.clone(), v);
            }
        }
        let extra: Vec<Expr> = extra
            .into_iter()
            .map(|v| bind_value("operand", v, self.names))
            .collect();
        // The template's own variables, fresh in the function.
        let mut locals = HashSet::new();
        walk_stmts(&template.body, &mut |s| {
            if let StmtKind::Assign(t, _) | StmtKind::AugAssign(t, _, _) | StmtKind::For(t, _, _) =
                &s.kind
            {
                t.bound_names(&mut |n| {
                    locals.insert(n.to_owned());
                });
            }
        });
        let mut locals: Vec<String> = locals.into_iter().collect();
        locals.sort();
        for l in locals {
            let fresh = self.names.fresh(&l);
            self.bound.push(fresh.clone());
            values.insert(l, Expr::new(ExprKind::Name(fresh), span));
        }
        let Some((last, body)) = template.body.split_last() else {
            return Err(template_error(q, span, "has no statements"));
        };
        let StmtKind::Return(Some(result)) = &last.kind else {
            return Err(template_error(
                q,
                span,
                "does not end with `return <value>`",
            ));
        };
        let mut returns = false;
        walk_stmts(body, &mut |s| {
            returns |= matches!(s.kind, StmtKind::Return(_))
        });
        if returns {
            return Err(template_error(q, span, "returns before its last statement"));
        }
        let inst = Instance {
            values: &values,
            functions: &functions,
            vararg: template.vararg.as_deref(),
            extra: &extra,
            resolver: self.resolver,
            q,
            span,
        };
        let mut stmts = Vec::with_capacity(body.len());
        for s in body {
            let mut s = s.clone();
            inst.stmt(&mut s)?;
            // `tangent.namespace_of(x, None, True)` as `tangent.namespace_of(x)`.
            crate::syntax::visit::map_stmt_exprs(&mut s, &mut |e| {
                crate::rules::pruned_namespace_args(e.clone())
            });
            stmts.push(s);
        }
        before.extend(decided_branches(stmts));
        let mut result = result.clone();
        inst.expr(&mut result)?;
        Ok(crate::rules::pruned_namespace_args(result))
    }
}

impl Expander<'_> {
    /// `m(x)` for a network module `m` the host described (`model(x)`, `self.fc1(h)`),
    /// or `torch.func.functional_call(m, params, (x,))`: the module's computation
    /// written out (None: not such a call).
    fn module_call(
        &mut self,
        e: &Expr,
        before: &mut Vec<Stmt>,
        guarded: Option<&'static str>,
    ) -> Result<Option<Expr>, Diagnostic> {
        let ExprKind::Call { func, args, kwargs } = &e.kind else {
            return Ok(None);
        };
        let mut out = Vec::new();
        let value = match self.resolver.callee(func) {
            Callee::Library(q) if self.rules.is_functional_call(&q) => {
                self.functional_call(&q, args, kwargs, e.span, &mut out)?
            }
            _ => {
                let Some((root, m)) = self.resolver.net_module(func) else {
                    return Ok(None);
                };
                let (root, m) = (root.to_owned(), m.clone());
                let path = (**func).clone();
                self.expand_module(
                    &root,
                    &m,
                    path,
                    args.clone(),
                    kwargs.clone(),
                    e.span,
                    &mut out,
                )?
            }
        };
        if let (Some(place), false) = (guarded, out.is_empty()) {
            return Err(Diagnostic::new(
                e.span,
                format!("this module call is inside {place}, and its computation takes statements"),
                "call the module in a statement of its own and use its result there",
            ));
        }
        before.extend(out);
        Ok(Some(value))
    }

    /// The call of module `m` (at `path`, in the tree of `root`) on `args`.
    #[allow(clippy::too_many_arguments)]
    fn expand_module(
        &mut self,
        root: &str,
        m: &crate::syntax::live::NetModule,
        path: Expr,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
        span: Span,
        before: &mut Vec<Stmt>,
    ) -> Result<Expr, Diagnostic> {
        let shown = crate::emit::printer::expr(&path);
        if self.rules.is_module_sequence(&m.kind) {
            let [input] = args.as_slice() else {
                return Err(Diagnostic::new(
                    span,
                    format!("`{shown}` is a sequence of modules: call it on one input"),
                    "pass the input alone",
                ));
            };
            if !kwargs.is_empty() {
                return Err(Diagnostic::new(
                    span,
                    format!("`{shown}` is a sequence of modules: it takes no keywords"),
                    "pass the input alone",
                ));
            }
            let mut value = input.clone();
            for child in self.resolver.net_children(root, &m.prefix) {
                let child = child.clone();
                let last = child.prefix.rsplit('.').next().unwrap_or_default();
                let at = if last.bytes().all(|b| b.is_ascii_digit()) {
                    Expr::new(
                        ExprKind::Subscript(Box::new(path.clone()), Box::new(Expr::num(last))),
                        span,
                    )
                } else {
                    Expr::new(
                        ExprKind::Attr(Box::new(path.clone()), last.to_owned()),
                        span,
                    )
                };
                value = self.expand_module(root, &child, at, vec![value], vec![], span, before)?;
            }
            return Ok(value);
        }
        if m.kind == "forward" {
            if path.as_name().is_none() {
                return Err(Diagnostic::new(
                    span,
                    format!("`{shown}` is a module of a class of this program inside another module"),
                    "differentiate through it by calling its layers from the outer module's `forward`, or call the inner module's `forward` on a module held in a global",
                ));
            }
            // The class's own `forward`, differentiated as a method of the object when it
            // runs (`tangent.method_grad`).
            return Ok(Expr::new(
                ExprKind::Call {
                    func: Box::new(Expr::new(
                        ExprKind::Attr(Box::new(path), "forward".into()),
                        span,
                    )),
                    args,
                    kwargs,
                },
                span,
            ));
        }
        let Some(template) = self.rules.control_flow(&m.kind) else {
            let class = m.kind.strip_prefix("other:").unwrap_or(&m.kind);
            return Err(Diagnostic::new(
                span,
                format!("calling `{shown}`, a `{class}` module: tangent has no derivative for this kind of module"),
                "write its computation with torch.nn.functional in the function (or register a rule for a function that does it)",
            ));
        };
        let mut all = vec![path];
        all.extend(args);
        let kind = m.kind.clone();
        self.inline(&kind, template, all, kwargs, span, before)
    }

    /// `torch.func.functional_call(m, params, args)`: the call of `m` on `args` with its
    /// parameters and buffers read from the dict `params` (`params.get(key, own)`, as
    /// torch falls back on the module's own for keys the dict lacks).
    fn functional_call(
        &mut self,
        q: &str,
        args: &[Expr],
        kwargs: &[(String, Expr)],
        span: Span,
        before: &mut Vec<Stmt>,
    ) -> Result<Expr, Diagnostic> {
        let ([module, params, inputs], []) = (args, kwargs) else {
            return Err(Diagnostic::new(
                span,
                format!("`{q}` is differentiated as `{q}(module, params, args)`"),
                "pass the module, the dict of parameters and the arguments (a tuple), without keywords",
            ));
        };
        let Some((root, m)) = self.resolver.net_module(module) else {
            return Err(Diagnostic::new(
                module.span,
                format!("the first argument of `{q}` is not a network module tangent knows"),
                "pass a torch.nn.Module held in a global or a closure variable",
            ));
        };
        let (root, m) = (root.to_owned(), m.clone());
        if m.kind == "forward" {
            return Err(Diagnostic::new(
                module.span,
                format!("`{q}` over a module of a class of this program is not supported yet"),
                "compose torch.nn modules (Sequential, Linear, ...) for it, or write the model as a function of its parameters",
            ));
        }
        let inputs = match &inputs.kind {
            ExprKind::Tuple(items) | ExprKind::List(items) => items.clone(),
            _ => vec![inputs.clone()],
        };
        let params = if is_path(params) {
            params.clone()
        } else {
            let fresh = self.names.fresh("params");
            self.bound.push(fresh.clone());
            before.push(Stmt::new(
                StmtKind::Assign(
                    Expr::new(ExprKind::Name(fresh.clone()), span),
                    params.clone(),
                ),
                span,
            ));
            Expr::new(ExprKind::Name(fresh), span)
        };
        let start = before.len();
        let path = module.clone();
        let mut value = self.expand_module(&root, &m, path, inputs, vec![], span, before)?;
        let read = |e: &Expr| -> Option<Expr> {
            let ExprKind::Attr(owner, a) = &e.kind else {
                return None;
            };
            let (r, held) = self.resolver.net_module(owner)?;
            if r != root || !held.parameters.contains(a) {
                return None;
            }
            let key = if held.prefix.is_empty() {
                a.clone()
            } else {
                format!("{}.{a}", held.prefix)
            };
            Some(Expr::new(
                ExprKind::Call {
                    func: Box::new(Expr::new(
                        ExprKind::Attr(Box::new(params.clone()), "get".into()),
                        span,
                    )),
                    args: vec![Expr::new(ExprKind::Str(key), span), e.clone()],
                    kwargs: vec![],
                },
                span,
            ))
        };
        let mut substitute_reads = |e: &Expr| -> Expr {
            let mut e = e.clone();
            crate::syntax::visit::substitute(&mut e, &mut |x| read(x));
            e
        };
        for s in &mut before[start..] {
            crate::syntax::visit::map_stmt_exprs(s, &mut substitute_reads);
        }
        value = substitute_reads(&value);
        Ok(value)
    }
}

/// A name, or attributes and constant subscripts of one (`model.fc1`, `model[0]`): read
/// where a template uses it, without a variable of its own.
fn is_path(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Name(_) => true,
        ExprKind::Attr(v, _) => is_path(v),
        ExprKind::Subscript(v, k) => k.is_number_literal() && is_path(v),
        _ => false,
    }
}

/// The template's parameter values for the call: one per parameter (defaults filled in),
/// and the extra positional arguments its `*args` takes.
fn bind(
    q: &str,
    template: &FuncDef,
    args: Vec<Expr>,
    kwargs: Vec<(String, Expr)>,
    span: Span,
) -> Result<(Vec<Expr>, Vec<Expr>), Diagnostic> {
    let params = &template.params;
    let names = params
        .iter()
        .map(|p| p.name.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let mut slots: Vec<Option<Expr>> = vec![None; params.len()];
    let mut extra = Vec::new();
    for (i, a) in args.into_iter().enumerate() {
        if i < params.len() {
            slots[i] = Some(a);
        } else if template.vararg.is_some() {
            extra.push(a);
        } else {
            return Err(Diagnostic::new(
                span,
                format!(
                    "`{q}` is given more than {} positional arguments",
                    params.len()
                ),
                format!("pass {names}"),
            ));
        }
    }
    for (k, v) in kwargs {
        let Some(i) = params.iter().position(|p| p.name == k) else {
            return Err(Diagnostic::new(
                v.span,
                format!("tangent differentiates `{q}` without the keyword `{k}`"),
                format!("pass only {names}"),
            ));
        };
        if slots[i].is_some() {
            return Err(Diagnostic::new(
                v.span,
                format!("`{q}` gets two values for `{k}`"),
                "pass each argument once",
            ));
        }
        slots[i] = Some(v);
    }
    let mut out = Vec::new();
    for (slot, p) in slots.into_iter().zip(params) {
        let default = p.default.clone().map(|mut d| {
            set_spans(&mut d, span);
            d
        });
        match slot.or(default) {
            Some(v) => out.push(v),
            None => {
                return Err(Diagnostic::new(
                    span,
                    format!("`{q}` is called without its argument `{}`", p.name),
                    "pass every argument it takes",
                ))
            }
        }
    }
    Ok((out, extra))
}

fn is_literal(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Num(_) | ExprKind::Bool(_) | ExprKind::NoneLit | ExprKind::Str(_)
    ) || matches!(&e.kind, ExprKind::Unary(_, a) if a.is_number_literal())
}

fn template_error(q: &str, span: Span, what: &str) -> Diagnostic {
    Diagnostic::new(
        span,
        format!("the control-flow template of `{q}` {what}"),
        "fix its `@control_flow` template in backends/",
    )
}

/// A nested function passed to a call that is not control flow: Python would pass the
/// function object, which tangent cannot differentiate through.
fn refuse_passed_function(
    func: &Expr,
    args: &[Expr],
    kwargs: &[(String, Expr)],
) -> Result<(), Diagnostic> {
    for a in args.iter().chain(kwargs.iter().map(|(_, a)| a)) {
        if let Some(name) = nested_function(a).map(|(_, n)| n) {
            return Err(Diagnostic::new(
                a.span,
                format!(
                    "the nested function `{name}` is passed as a value to `{}`",
                    crate::emit::printer::expr(func)
                ),
                "tangent differentiates calls to a nested function: call it directly (or pass it to `jax.lax` control flow), or define it at module level",
            ));
        }
    }
    Ok(())
}

/// `tangent.nested_function(lambda ...: lifted(...), 'name')`: (the lambda, the name).
fn nested_function(e: &Expr) -> Option<(&Expr, &str)> {
    let ExprKind::Call { func, args, .. } = &e.kind else {
        return None;
    };
    if crate::emit::printer::expr(func) != NESTED_FUNCTION {
        return None;
    }
    match args.as_slice() {
        [lambda, Expr {
            kind: ExprKind::Str(name),
            ..
        }] => Some((lambda, name)),
        _ => None,
    }
}

fn set_spans(e: &mut Expr, span: Span) {
    e.span = span;
    each_child_mut(e, &mut |c| set_spans(c, span));
}

/// One template instantiated for one call.
struct Instance<'a> {
    values: &'a HashMap<String, Expr>,
    functions: &'a HashMap<String, Expr>,
    vararg: Option<&'a str>,
    extra: &'a [Expr],
    resolver: &'a Resolver<'a>,
    q: &'a str,
    span: Span,
}

impl Instance<'_> {
    fn stmt(&self, s: &mut Stmt) -> Result<(), Diagnostic> {
        s.span = self.span;
        let mut result = Ok(());
        crate::syntax::visit::stmt_exprs_mut(s, &mut |e| {
            if result.is_ok() {
                result = self.expr(e);
            }
        });
        result?;
        match &mut s.kind {
            StmtKind::If(_, a, b) => {
                for s in a.iter_mut().chain(b.iter_mut()) {
                    self.stmt(s)?;
                }
            }
            StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) => {
                for s in body {
                    self.stmt(s)?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn expr(&self, e: &mut Expr) -> Result<(), Diagnostic> {
        if let ExprKind::Name(n) = &e.kind {
            if let Some(v) = self.values.get(n) {
                *e = v.clone();
            }
            e.span = self.span;
            return Ok(());
        }
        let mut result = Ok(());
        each_child_mut(e, &mut |c| {
            if result.is_ok() {
                result = self.expr(c);
            }
        });
        result?;
        e.span = self.span;
        let ExprKind::Call { func, args, kwargs } = &mut e.kind else {
            return Ok(());
        };
        // The callee was a parameter name: still a Name, since function parameters are
        // not in `values`.
        let Some(f) = func.as_name().and_then(|n| self.functions.get(n)) else {
            return Ok(());
        };
        let mut call_args = std::mem::take(args);
        if let Some(star) = self.vararg {
            // `f(operands)` or `f(x, operands)` in a template: the operands one by one
            // in place of the name.
            if call_args.iter().any(|a| a.as_name() == Some(star)) {
                call_args = call_args
                    .into_iter()
                    .flat_map(|a| {
                        if a.as_name() == Some(star) {
                            self.extra.to_vec()
                        } else {
                            vec![a]
                        }
                    })
                    .collect();
            }
        }
        let kwargs = std::mem::take(kwargs);
        *e = self.call(f.clone(), call_args, kwargs)?;
        Ok(())
    }

    /// `f(args)` for the function `f` the call passed.
    fn call(
        &self,
        f: Expr,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    ) -> Result<Expr, Diagnostic> {
        if let Some((lambda, _)) = nested_function(&f) {
            return self.call(lambda.clone(), args, kwargs);
        }
        match &f.kind {
            ExprKind::Lambda(params, body) => {
                if params.len() != args.len() || !kwargs.is_empty() {
                    return Err(Diagnostic::new(
                        f.span,
                        format!(
                            "`{}` calls this function with {} argument(s); it takes {}",
                            self.q,
                            args.len(),
                            params.len()
                        ),
                        format!("give it the parameters `{}` passes", self.q),
                    ));
                }
                let map: HashMap<&str, &Expr> =
                    params.iter().map(String::as_str).zip(args.iter()).collect();
                let mut b = (**body).clone();
                b.rename(&|n| map.get(n).map(|a| (*a).clone()));
                Ok(b)
            }
            ExprKind::Call {
                func,
                args: bound,
                kwargs: bound_kw,
            } if self.resolver.callee(func) == Callee::Library("functools.partial".into()) => {
                let Some((inner, bound)) = bound.split_first() else {
                    return Err(Diagnostic::new(
                        f.span,
                        "`functools.partial` needs a function",
                        "pass the function first",
                    ));
                };
                let mut all = bound.to_vec();
                all.extend(args);
                let mut kw = bound_kw.clone();
                kw.extend(kwargs);
                self.call(inner.clone(), all, kw)
            }
            _ => Ok(Expr::new(
                ExprKind::Call {
                    func: Box::new(f),
                    args,
                    kwargs,
                },
                self.span,
            )),
        }
    }
}

/// A template's `if` whose test the call decides with literals (`dtype is not None` for
/// a `dtype` left at None) is the branch taken: the generated code holds neither the
/// test nor the other branch.
fn decided_branches(stmts: Vec<Stmt>) -> Vec<Stmt> {
    let mut out = Vec::with_capacity(stmts.len());
    for mut s in stmts {
        match &mut s.kind {
            StmtKind::If(test, a, b) => {
                undecided_part(test);
                if let Some(taken) = literal_truth(test) {
                    let branch = std::mem::take(if taken { a } else { b });
                    out.extend(decided_branches(branch));
                    continue;
                }
                *a = decided_branches(std::mem::take(a));
                *b = decided_branches(std::mem::take(b));
            }
            StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) => {
                *body = decided_branches(std::mem::take(body));
            }
            _ => {}
        }
        out.push(s);
    }
    out
}

/// A literal's value as Python compares it (a bool is the number it equals).
#[derive(PartialEq)]
enum Literal {
    None,
    Number(f64),
    Str(String),
}

/// The value of a literal (decimal numbers only: not `0x10` or `1_000`).
fn literal(e: &Expr) -> Option<Literal> {
    match &e.kind {
        ExprKind::NoneLit => Some(Literal::None),
        ExprKind::Bool(b) => Some(Literal::Number(f64::from(u8::from(*b)))),
        ExprKind::Str(s) => Some(Literal::Str(s.clone())),
        ExprKind::Num(n) if n.bytes().all(|b| b.is_ascii_digit() || b == b'.') => {
            n.parse().ok().map(Literal::Number)
        }
        ExprKind::Unary(UnaryOp::Neg, a) => match literal(a)? {
            Literal::Number(v) if matches!(a.kind, ExprKind::Num(_)) => Some(Literal::Number(-v)),
            _ => None,
        },
        _ => None,
    }
}

/// The truth of a test made of literals only: `True`, `False`, `==` / `!=` between
/// literals, an order comparison of two numbers (`3 < 0`), `is` / `is not` with a None
/// on one side, and `or` / `and` that a decided operand settles.
fn literal_truth(test: &Expr) -> Option<bool> {
    match &test.kind {
        ExprKind::Bool(b) => Some(*b),
        ExprKind::Compare(a, rest) => {
            let [(op, b)] = rest.as_slice() else {
                return None;
            };
            let (x, y) = (literal(a)?, literal(b)?);
            let numbers = match (&x, &y) {
                (Literal::Number(p), Literal::Number(q)) => Some((*p, *q)),
                _ => None,
            };
            match op {
                CmpOp::Eq => Some(x == y),
                CmpOp::NotEq => Some(x != y),
                CmpOp::Lt => numbers.map(|(p, q)| p < q),
                CmpOp::LtE => numbers.map(|(p, q)| p <= q),
                CmpOp::Gt => numbers.map(|(p, q)| p > q),
                CmpOp::GtE => numbers.map(|(p, q)| p >= q),
                CmpOp::Is | CmpOp::IsNot if x == Literal::None || y == Literal::None => {
                    let same = x == y;
                    Some(if *op == CmpOp::Is { same } else { !same })
                }
                _ => None,
            }
        }
        ExprKind::BoolOp(op, es) => {
            super::template::bool_op_truth(op, es.iter().map(literal_truth))
        }
        _ => None,
    }
}

/// A test without its decided operands that do not settle it (`'fro' is None or
/// p == 2` is `p == 2`): no comparison of literals is left for Python to warn about.
fn undecided_part(test: &mut Expr) {
    if let ExprKind::BoolOp(op, es) = &mut test.kind {
        let settles = matches!(op, BoolOp::Or);
        es.iter_mut().for_each(undecided_part);
        es.retain(|e| literal_truth(e) != Some(!settles));
        if es.len() == 1 {
            *test = es.pop().expect("one operand");
        }
    }
}
