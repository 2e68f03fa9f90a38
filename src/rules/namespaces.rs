//! Templates written with `numpy.*` made to compute in their arguments' array namespace
//! at run time (`tangent.namespace_of(x, y).F`), and the tidying of those calls when a
//! template is instantiated.

use super::NAMESPACE_OF;
use crate::syntax::ir::*;
use crate::syntax::visit::substitute;
use std::collections::HashSet;

/// `namespace` (`numpy`) in a template read as the namespace of its arguments at run
/// time (`tangent.namespace_of(x, y).F`), so one rule serves every array type: `x @ y` on
/// JAX arrays (tracers included) calls jax.numpy, on NumPy arrays numpy.
///
/// A function of the array class itself (`numpy.ndarray.cos`: the `B.` of an elementwise
/// entry that is a method) is the namespace's function of that name.
pub(super) fn dispatched(def: &FuncDef, namespace: &str, class: &str) -> FuncDef {
    // A rule's first parameter is its result.
    dispatched_over(def, namespace, class, 1)
}

/// `dispatched` with the namespace of the template's parameters from `first` on.
pub(super) fn dispatched_over(
    def: &FuncDef,
    namespace: &str,
    class: &str,
    first: usize,
) -> FuncDef {
    // The functions a control-flow template calls are no arrays: they never decide.
    let functions = called_parameters(def);
    let values: Vec<Expr> = def.params[first.min(def.params.len())..]
        .iter()
        .filter(|p| !functions.contains(&p.name))
        .map(|p| Expr::name(&p.name))
        .collect();
    let runtime = Expr::call_path(NAMESPACE_OF, values);
    let mut def = def.clone();
    for stmt in &mut def.body {
        crate::syntax::visit::map_stmt_exprs(stmt, &mut |e| {
            let mut e = e.clone();
            substitute(&mut e, &mut |x| match &x.kind {
                ExprKind::Attr(v, attr) if v.as_name() == Some(namespace) => {
                    Some(Expr::attr(runtime.clone(), attr))
                }
                ExprKind::Attr(v, attr)
                    if matches!(&v.kind, ExprKind::Attr(n, c)
                        if n.as_name() == Some(namespace) && c == class) =>
                {
                    Some(Expr::attr(runtime.clone(), attr))
                }
                _ => None,
            });
            e
        });
    }
    def
}

/// The parameters a template calls: the functions a call passes (a control-flow
/// template's `body_fun`, `func1d`, ...).
pub(crate) fn called_parameters(template: &FuncDef) -> HashSet<String> {
    let params: HashSet<&str> = template.params.iter().map(|p| p.name.as_str()).collect();
    let mut out = HashSet::new();
    walk_stmts(&template.body, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    if let Some(n) = func.as_name().filter(|n| params.contains(n)) {
                        out.insert(n.to_owned());
                    }
                }
            })
        })
    });
    out
}

/// `tangent.namespace_of(a, None, False)` as `tangent.namespace_of(a)`: literals are no
/// arrays, so they never decide the namespace (and the generated code reads better).
pub(crate) fn pruned_namespace_args(mut e: Expr) -> Expr {
    fn literal(e: &Expr) -> bool {
        matches!(
            e.kind,
            ExprKind::Num(_) | ExprKind::Str(_) | ExprKind::Bool(_) | ExprKind::NoneLit
        ) || e.is_number_literal()
    }
    substitute(&mut e, &mut |x| match &x.kind {
        ExprKind::Call { func, args, kwargs }
            if crate::emit::printer::expr(func) == NAMESPACE_OF =>
        {
            let args = args.iter().filter(|a| !literal(a)).cloned().collect();
            Some(Expr::synth(ExprKind::Call {
                func: func.clone(),
                args,
                kwargs: kwargs.clone(),
            }))
        }
        _ => None,
    });
    e
}
