//! `with` blocks, replaced before any other pass by what the context manager's
//! `transparent_context(...)` declaration says.

use super::*;
/// Replaces each `with` block (lowering's `StmtKind::With`) by what the context manager's
/// `transparent_context(...)` declaration says, before any other pass sees it:
/// `with nullcontext(v) as y: body` is `y = v; body`; `with numpy.errstate(...): body`
/// is `_context = numpy.errstate(...)`, `_context.__enter__()`, body,
/// `_context.__exit__(None, None, None)`, so the primal's statements (and the forward
/// pass) run inside the context. Any other context manager is a located error. Returns
/// the names it introduced (locals of the function).
pub fn expand_with(
    stmts: Vec<Stmt>,
    resolver: &Resolver,
    rules: &crate::rules::RuleSet,
    names: &mut NameGen,
    fresh: &mut Vec<String>,
) -> Result<Vec<Stmt>, Diagnostic> {
    use crate::rules::TransparentContext;
    let mut out = Vec::new();
    for s in stmts {
        let span = s.span;
        let kind = match s.kind {
            StmtKind::If(t, a, b) => StmtKind::If(
                t,
                expand_with(a, resolver, rules, names, fresh)?,
                expand_with(b, resolver, rules, names, fresh)?,
            ),
            StmtKind::For(t, it, b) => {
                StmtKind::For(t, it, expand_with(b, resolver, rules, names, fresh)?)
            }
            StmtKind::While(t, b) => {
                StmtKind::While(t, expand_with(b, resolver, rules, names, fresh)?)
            }
            StmtKind::With(items, body) if is_insert_grad_of(resolver, &items) => {
                // Google Tangent's `with insert_grad_of(x) as g:` block: code for the
                // backward pass, kept as written for reverse mode (`ad::reverse`).
                let (cm, target) = &items[0];
                let ExprKind::Call { args, kwargs, .. } = &cm.kind else {
                    unreachable!("insert_grad_of is a call")
                };
                let named = matches!(args.as_slice(), [a] if a.as_name().is_some())
                    && kwargs.is_empty()
                    && target.as_ref().is_some_and(|t| t.as_name().is_some());
                if items.len() != 1 || !named {
                    return Err(err(
                        cm.span,
                        "`insert_grad_of` takes one variable and binds its gradient to a name",
                        "with insert_grad_of(x) as dx: ...",
                    ));
                }
                if let Some(at) = first_jump(&body) {
                    return Err(err(
                        at,
                        "a `return`, `break` or `continue` inside `with insert_grad_of(...)` cannot be placed in the backward pass",
                        "change the gradient variable only; the code runs in the backward pass",
                    ));
                }
                StmtKind::With(items, body)
            }
            StmtKind::With(items, body) => {
                let body = expand_with(body, resolver, rules, names, fresh)?;
                let mut exits = Vec::new();
                for (cm, target) in items {
                    let callee = match &cm.kind {
                        ExprKind::Call { func, .. } => match resolver.callee(func) {
                            Callee::Library(q) => Some(q),
                            _ => None,
                        },
                        _ => None,
                    };
                    let what = crate::emit::printer::expr(&cm);
                    let Some((q, fact)) =
                        callee.and_then(|q| rules.transparent_context(&q).map(|f| (q, f)))
                    else {
                        return Err(err(
                            cm.span,
                            format!("a `with` block over `{what}` cannot be differentiated"),
                            "only context managers declared transparent are (contextlib.nullcontext, numpy.errstate, warnings.catch_warnings: `transparent_context` in backends/); move the work out of the `with` block, or into a helper called from it",
                        ));
                    };
                    let ExprKind::Call { args, kwargs, .. } = &cm.kind else {
                        unreachable!("a transparent context is a call")
                    };
                    match fact {
                        TransparentContext::Argument => {
                            if let Some(t) = target {
                                let v = match (args.as_slice(), kwargs.as_slice()) {
                                    ([], []) => Expr::synth(ExprKind::NoneLit),
                                    ([v], []) => v.clone(),
                                    ([], [(_, v)]) => v.clone(),
                                    _ => {
                                        return Err(err(
                                            cm.span,
                                            format!("`{what}` takes one argument"),
                                            "pass the value the `as` target binds",
                                        ))
                                    }
                                };
                                let sp = t.span;
                                out.push(Stmt::new(StmtKind::Assign(t, v), sp));
                            }
                        }
                        TransparentContext::State => {
                            if let Some(t) = target {
                                return Err(err(
                                    t.span,
                                    format!("the `as` target of `with {q}(...)` cannot be differentiated"),
                                    "remove `as ...`: the body may only run inside the context",
                                ));
                            }
                            if let Some(at) = first_jump(&body) {
                                return Err(err(
                                    at,
                                    format!("a `return`, `break` or `continue` inside `with {q}(...)` cannot be differentiated"),
                                    "assign the result to a variable and return it after the `with` block",
                                ));
                            }
                            let ctx = names.fresh("_context");
                            fresh.push(ctx.clone());
                            out.push(Stmt::new(
                                StmtKind::Assign(Expr::name(&ctx), cm.clone()),
                                cm.span,
                            ));
                            out.push(Stmt::new(
                                StmtKind::ExprStmt(Expr::synth(ExprKind::Call {
                                    func: Box::new(Expr::attr(Expr::name(&ctx), "__enter__")),
                                    args: vec![],
                                    kwargs: vec![],
                                })),
                                cm.span,
                            ));
                            let none = || Expr::synth(ExprKind::NoneLit);
                            exits.push(Stmt::new(
                                StmtKind::ExprStmt(Expr::synth(ExprKind::Call {
                                    func: Box::new(Expr::attr(Expr::name(&ctx), "__exit__")),
                                    args: vec![none(), none(), none()],
                                    kwargs: vec![],
                                })),
                                span,
                            ));
                        }
                    }
                }
                out.extend(body);
                // Left in the reverse order of entering.
                out.extend(exits.into_iter().rev());
                continue;
            }
            other => other,
        };
        out.push(Stmt::new(kind, span));
    }
    Ok(out)
}
