//! Typing of float64 arrays in native code: element reads (`x[i]`, `m[i, j]`), their
//! sizes (`len(x)`, `x.shape[k]`, `x.size`, `x.ndim`), and the gradient arrays an adjoint
//! builds (`tangent.init_grad(x)`, `tangent.add_grad_at(g, x, index, v)`).
//!
//! Argument arrays are only read. A gradient array is written in place by
//! `add_grad_at`, which Python does on a copy; the two agree because `ownership`
//! refuses every way a second name could see a gradient array (an alias, the tape, a
//! callee's result that may be an argument).

use super::typing::{expr_type, Callees, Refusal, Ty, VarTy};
use crate::syntax::ir::*;
use std::collections::HashMap;

/// The dimension count of `e` if it is a name holding an array.
pub fn array_name(e: &Expr, vars: &HashMap<String, VarTy>) -> Option<u8> {
    match vars.get(e.as_name()?)?.ty {
        Some(Ty::Array(nd)) => Some(nd),
        _ => None,
    }
}

/// The indices of `x[index]` for an array of `nd` dimensions: one expression per
/// dimension, or why the subscript is not an element read.
pub fn element_indices(index: &Expr, nd: u8) -> Result<Vec<&Expr>, Refusal> {
    let items: Vec<&Expr> = match &index.kind {
        ExprKind::Tuple(es) => es.iter().collect(),
        _ => vec![index],
    };
    if items.iter().any(|i| matches!(i.kind, ExprKind::Slice(..))) {
        return Err(Refusal::new(index.span, "a slice of an array"));
    }
    if items.len() < nd as usize {
        return Err(Refusal::new(
            index.span,
            "a row of a 2-d array (index every dimension: `m[i, j]`)",
        ));
    }
    if items.len() > nd as usize {
        return Err(Refusal::new(
            index.span,
            format!(
                "{} indices into an array (native code reads elements of 1-d and 2-d \
                 float64 arrays)",
                items.len()
            ),
        ));
    }
    Ok(items)
}

/// The type of an index expression list: ints only (a bool would select, a float is an
/// error in NumPy); None while a type is unknown.
fn index_types(
    items: &[&Expr],
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<bool, Refusal> {
    let mut known = true;
    for i in items {
        match expr_type(i, vars, callees)? {
            Some(Ty::Int) => {}
            None => known = false,
            Some(t) => {
                return Err(Refusal::new(
                    i.span,
                    format!("an array index that is a {}", t.name()),
                ))
            }
        }
    }
    Ok(known)
}

/// The type of `base[index]` when `base` is an array (Float) or an array's shape (Int);
/// None if `base` is neither (the caller refuses the subscript).
pub fn subscript_type(
    base: &Expr,
    index: &Expr,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Option<Result<Option<Ty>, Refusal>> {
    if let Some(nd) = array_name(base, vars) {
        return Some((|| {
            let items = element_indices(index, nd)?;
            Ok(index_types(&items, vars, callees)?.then_some(Ty::Float))
        })());
    }
    if let ExprKind::Attr(v, a) = &base.kind {
        if let (Some(nd), "shape") = (array_name(v, vars), a.as_str()) {
            return Some(shape_axis(index, nd).map(|_| Some(Ty::Int)));
        }
    }
    None
}

/// The axis `k` of `x.shape[k]` (a literal, negative counting from the end).
pub fn shape_axis(index: &Expr, nd: u8) -> Result<usize, Refusal> {
    let k = match &index.kind {
        ExprKind::Num(t) => t.parse::<i64>().ok(),
        ExprKind::Unary(UnaryOp::Neg, x) => match &x.kind {
            ExprKind::Num(t) => t.parse::<i64>().ok().map(|v| -v),
            _ => None,
        },
        _ => None,
    };
    let Some(k) = k else {
        return Err(Refusal::new(
            index.span,
            "`shape[...]` with an index that is not a number",
        ));
    };
    let k = if k < 0 { k + i64::from(nd) } else { k };
    if !(0..i64::from(nd)).contains(&k) {
        return Err(Refusal::new(
            index.span,
            format!("`shape[{k}]` of a {nd}-d array (Python raises an IndexError)"),
        ));
    }
    Ok(k as usize)
}

/// The type of `x.attr` for an array `x` (None: `v` is not an array).
pub fn attr_type(
    v: &Expr,
    attr: &str,
    span: Span,
    vars: &HashMap<String, VarTy>,
) -> Option<Result<Option<Ty>, Refusal>> {
    array_name(v, vars)?;
    Some(match attr {
        "size" | "ndim" => Ok(Some(Ty::Int)),
        _ => Err(Refusal::new(
            span,
            format!("the array attribute `{attr}` as a value"),
        )),
    })
}

/// The type of `tangent.add_grad_at(g, x, index, v)`: x's array type when `x` is an
/// array, `index` its element and `v` a number.
pub fn add_grad_at_type(
    e: &Expr,
    args: &[Expr],
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<Option<Ty>, Refusal> {
    let [g, x, index, v] = args else {
        return Err(Refusal::new(
            e.span,
            "`tangent.add_grad_at` of other arguments",
        ));
    };
    let Some(nd) = array_name(x, vars) else {
        return Err(Refusal::new(
            e.span,
            "the gradient of a subscript of something other than a float64 array",
        ));
    };
    if !matches!(g.kind, ExprKind::NoneLit) && g.as_name().is_none() {
        return Err(Refusal::new(g.span, "a gradient that is not a name"));
    }
    let items = element_indices(index, nd)?;
    index_types(&items, vars, callees)?;
    match expr_type(v, vars, callees)? {
        Some(Ty::Float | Ty::Int | Ty::Bool) | None => {}
        Some(t) => {
            return Err(Refusal::new(
                v.span,
                format!("adding a {} into an array's gradient", t.name()),
            ))
        }
    }
    Ok(Some(Ty::Array(nd)))
}

/// Refuses every use that would let a second name see an array the code writes (see the
/// module's comment), and writes to argument arrays.
pub fn ownership(def: &FuncDef, vars: &HashMap<String, VarTy>) -> Result<(), Refusal> {
    let is_param = |n: &str| def.params.iter().any(|p| p.name == n);
    let mut err: Option<Refusal> = None;
    walk_stmts(&def.body, &mut |s| {
        if err.is_some() {
            return;
        }
        let fail = |span: Span, what: &str| Some(Refusal::new(span, what.to_owned()));
        // `add_grad_at` writes its first argument in place: only `g = add_grad_at(g, ...)`
        // (or into None) may call it, so no other value is the written array.
        let mut writes = 0usize;
        crate::ad::names::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    if super::typing::callee_path(func).as_deref() == Some("tangent.add_grad_at") {
                        writes += 1;
                    }
                }
            })
        });
        let direct = matches!(&s.kind, StmtKind::Assign(t, Expr { kind: ExprKind::Call { func, .. }, .. })
            if t.as_name().is_some()
                && super::typing::callee_path(func).as_deref() == Some("tangent.add_grad_at"));
        if writes > usize::from(direct) {
            err = fail(s.span, "`tangent.add_grad_at` inside a larger expression");
            return;
        }
        match &s.kind {
            StmtKind::Assign(
                Expr {
                    kind: ExprKind::Tuple(ts),
                    ..
                },
                _,
            ) if ts.iter().any(|t| array_name(t, vars).is_some()) => {
                err = fail(s.span, "an array assigned by unpacking");
            }
            StmtKind::Assign(t, v) => {
                let Some(n) = t.as_name() else { return };
                if array_name(t, vars).is_none() {
                    return;
                }
                if is_param(n) {
                    err = fail(s.span, "an assignment to an array argument");
                    return;
                }
                let ok = match &v.kind {
                    ExprKind::NoneLit => true,
                    ExprKind::Call { func, args, .. } => {
                        match super::typing::callee_path(func).as_deref() {
                            Some("tangent.init_grad") => true,
                            Some("tangent.add_grad_at") => args.first().is_some_and(|g| {
                                matches!(g.kind, ExprKind::NoneLit) || g.as_name() == Some(n)
                            }),
                            _ => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    err = fail(
                        s.span,
                        "an array assigned from something other than a new gradient \
                         (`init_grad`, `add_grad_at` into the same name)",
                    );
                }
            }
            StmtKind::ExprStmt(Expr {
                kind: ExprKind::Call { func, args, .. },
                ..
            }) if super::typing::callee_path(func).as_deref() == Some("tangent.push")
                && args.get(1).and_then(|a| array_name(a, vars)).is_some() =>
            {
                err = fail(s.span, "an array saved on the tape");
            }
            _ => {}
        }
    });
    match err {
        Some(r) => Err(r),
        None => Ok(()),
    }
}
