//! Typing of float64 arrays in native code: element reads (`x[i]`, `m[i, j]`), their
//! sizes (`len(x)`, `x.shape[k]`, `x.size`, `x.ndim`), arrays the function makes
//! (`np.zeros(n)`, `np.zeros_like(x)`, `x.copy()`: the `new_array`, `array_like` and
//! `array_copy` kinds of `native_scalar` in backends/) and writes into them by element
//! (`u[t] = v`), and the gradient arrays an adjoint builds (`tangent.init_grad(x)`,
//! `tangent.add_grad_at(g, x, index, v)`, `tangent.zero_grad_at(g, index)`).
//!
//! Argument arrays are only read. A gradient array is written in place by
//! `add_grad_at` and `zero_grad_at`, which Python do on a copy; the two agree because
//! `ownership` refuses every way a second name could see an array the code made (an
//! alias, the tape, a callee's result that may be an argument). A store `u[t] = v` is in
//! place in Python too.

use super::{expr_type, Callees, Refusal, Ty, VarTy};
use crate::rules::NativeScalar;
use crate::syntax::ir::*;
use std::collections::HashMap;

/// The dimension count of `e` if it is a name holding an array.
pub fn array_name(e: &Expr, vars: &HashMap<String, VarTy>) -> Option<u8> {
    match vars.get(e.as_name()?)?.ty {
        Some(Ty::Array(nd)) => Some(nd),
        _ => None,
    }
}

/// The dimension count of `e` if it is a name holding a read-only int64 array.
pub fn int_array_name(e: &Expr, vars: &HashMap<String, VarTy>) -> Option<u8> {
    match vars.get(e.as_name()?)?.ty {
        Some(Ty::IntArray(nd)) => Some(nd),
        _ => None,
    }
}

/// The dimension count of `e` if it is a name holding a float32 array.
pub fn single_array_name(e: &Expr, vars: &HashMap<String, VarTy>) -> Option<u8> {
    match vars.get(e.as_name()?)?.ty {
        Some(Ty::Array32(nd)) => Some(nd),
        _ => None,
    }
}

/// The dimension count of `e` if it is a name holding an array of any element type
/// (for sizes: `len`, `shape`, `size`, `ndim`).
pub fn any_array_name(e: &Expr, vars: &HashMap<String, VarTy>) -> Option<u8> {
    array_name(e, vars)
        .or_else(|| int_array_name(e, vars))
        .or_else(|| single_array_name(e, vars))
}

/// The array type (float64 or float32) and dimension count of the array name `x`
/// written by element (stores and the gradient helpers), or a refusal saying `what`.
fn writable_or(
    x: &Expr,
    vars: &HashMap<String, VarTy>,
    span: Span,
    what: &str,
) -> Result<(Ty, u8), Refusal> {
    match x.as_name().and_then(|n| vars.get(n)).and_then(|v| v.ty) {
        Some(t @ (Ty::Array(nd) | Ty::Array32(nd))) => Ok((t, nd)),
        _ => Err(Refusal::new(span, what.to_owned())),
    }
}

/// Whether `index` picks a row of a 2-d array (`m[i]`: one int, not a slice).
pub fn is_row_index(index: &Expr, nd: u8) -> bool {
    nd == 2 && !matches!(index.kind, ExprKind::Tuple(_) | ExprKind::Slice(..))
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

/// Whether `index` is a valid element index of an `nd`-dimensional array (one int per
/// dimension; false while a type is unknown), or why not.
fn element_index_types(
    index: &Expr,
    nd: u8,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<bool, Refusal> {
    index_types(&element_indices(index, nd)?, vars, callees)
}

/// The type of `base[index]` when `base` is an array (Float, Int for an int64 array; a
/// row of a 2-d one is a 1-d array) or an array's shape (Int);
/// None if `base` is neither (the caller refuses the subscript).
pub fn subscript_type(
    base: &Expr,
    index: &Expr,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Option<Result<Option<Ty>, Refusal>> {
    let typed = |nd, row, elem| {
        if is_row_index(index, nd) {
            // `m[i]`: a row, a 1-d window on m's elements.
            return index_types(&[index], vars, callees).map(|k| k.then_some(row));
        }
        Ok(element_index_types(index, nd, vars, callees)?.then_some(elem))
    };
    if let Some(nd) = array_name(base, vars) {
        return Some(typed(nd, Ty::Array(1), Ty::Float));
    }
    if let Some(nd) = int_array_name(base, vars) {
        return Some(typed(nd, Ty::IntArray(1), Ty::Int));
    }
    if let Some(nd) = single_array_name(base, vars) {
        if is_row_index(index, nd) {
            return Some(Err(Refusal::new(index.span, "a row of a float32 array")));
        }
        return Some(element_index_types(index, nd, vars, callees).map(|k| k.then_some(Ty::Float)));
    }
    if let ExprKind::Attr(v, a) = &base.kind {
        if let (Some(nd), "shape") = (any_array_name(v, vars), a.as_str()) {
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
    any_array_name(v, vars)?;
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
    let (array, nd) = writable_or(
        x,
        vars,
        e.span,
        "the gradient of a subscript of something other than a float64 or float32 array",
    )?;
    if !matches!(g.kind, ExprKind::NoneLit) && g.as_name().is_none() {
        return Err(Refusal::new(g.span, "a gradient that is not a name"));
    }
    if is_row_index(index, nd) && array == Ty::Array32(nd) {
        return Err(Refusal::new(index.span, "a row of a float32 array"));
    }
    if is_row_index(index, nd) {
        // The gradient of a row, added into that row.
        index_types(&[index], vars, callees)?;
        return match expr_type(v, vars, callees)? {
            Some(Ty::Array(1)) | None => Ok(Some(Ty::Array(2))),
            Some(t) => Err(Refusal::new(
                v.span,
                format!("adding a {} into a row's gradient", t.name()),
            )),
        };
    }
    element_index_types(index, nd, vars, callees)?;
    match expr_type(v, vars, callees)? {
        Some(Ty::Float | Ty::Int | Ty::Bool) | None => {}
        Some(t) => {
            return Err(Refusal::new(
                v.span,
                format!("adding a {} into an array's gradient", t.name()),
            ))
        }
    }
    Ok(Some(array))
}

/// The array kind (`NativeScalar::{NewArray, ArrayLike, ArrayCopy}`) of the call of
/// `func`: `numpy.zeros(...)` by its declaration, `x.copy()` as the array class's method.
fn made_array_kind<'r>(
    func: &Expr,
    vars: &HashMap<String, VarTy>,
    rules: &'r crate::rules::RuleSet,
) -> Option<&'r NativeScalar> {
    if let ExprKind::Attr(v, m) = &func.kind {
        if array_name(v, vars).is_some() || single_array_name(v, vars).is_some() {
            return rules.native_scalar(&rules.array_member(m));
        }
    }
    rules.native_scalar(&super::callee_path(func)?)
}

/// The type of a call that makes an array (`numpy.zeros(n)`, `numpy.zeros((n, m))`,
/// `numpy.zeros_like(x)`, `numpy.copy(x)`, `x.copy()`); None if the call is not one.
pub fn made_array_type(
    e: &Expr,
    func: &Expr,
    args: &[Expr],
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Option<Result<Option<Ty>, Refusal>> {
    let kind = made_array_kind(func, vars, callees.rules())?;
    // A float64 or float32 array (`x.copy()`, `np.zeros_like(x)`: of x's dtype).
    let float_array = |x: &Expr| {
        array_name(x, vars)
            .map(Ty::Array)
            .or_else(|| single_array_name(x, vars).map(Ty::Array32))
    };
    let method = matches!(&func.kind, ExprKind::Attr(v, _) if float_array(v).is_some());
    let like = |a: &[Expr]| match a {
        [x] => float_array(x).map(Some).ok_or_else(|| {
            Refusal::new(
                x.span,
                "an array made like something other than a float64 or float32 array",
            )
        }),
        _ => Err(Refusal::new(e.span, "an array made with other arguments")),
    };
    Some(match (kind, method) {
        (NativeScalar::ArrayCopy, true) if args.is_empty() => Ok(float_array(match &func.kind {
            ExprKind::Attr(v, _) => v,
            _ => unreachable!("a method call"),
        })),
        (NativeScalar::ArrayCopy | NativeScalar::ArrayLike, false) => like(args),
        (NativeScalar::NewArray, false) => (|| {
            let [shape] = args else {
                return Err(Refusal::new(e.span, "an array made with other arguments"));
            };
            let dims: Vec<&Expr> = match &shape.kind {
                ExprKind::Tuple(es) => es.iter().collect(),
                _ => vec![shape],
            };
            if shape.as_name().is_some() && expr_type(shape, vars, callees)?.is_none() {
                // A shape tuple held in a variable (`_tuple = 2, n` before `np.zeros(_tuple)`):
                // not a value the native code has.
                return Err(Refusal::new(
                    shape.span,
                    "an array shape held in a variable (2-d arrays the function makes)",
                ));
            }
            if !(1..=2).contains(&dims.len()) {
                return Err(Refusal::new(
                    shape.span,
                    "an array of other than 1 or 2 dimensions",
                ));
            }
            for d in &dims {
                match expr_type(d, vars, callees)? {
                    Some(Ty::Int) | None => {}
                    Some(t) => {
                        return Err(Refusal::new(
                            d.span,
                            format!("an array size that is a {}", t.name()),
                        ))
                    }
                }
            }
            Ok(Some(Ty::Array(dims.len() as u8)))
        })(),
        _ => return None,
    })
}

/// Checks a store `base[index] = value` (an array the function made; ints; a number).
pub fn store_type(
    base: &Expr,
    index: &Expr,
    value: &Expr,
    span: Span,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<(), Refusal> {
    let (_, nd) = writable_or(
        base,
        vars,
        span,
        "a store into something other than a float64 or float32 array",
    )?;
    element_index_types(index, nd, vars, callees)?;
    let popped = matches!(&value.kind, ExprKind::Call { func, .. }
        if super::callee_path(func).as_deref() == Some(crate::tape::POP));
    if !popped {
        match expr_type(value, vars, callees)? {
            Some(Ty::Float | Ty::Int | Ty::Bool) | None => {}
            Some(t) => {
                return Err(Refusal::new(
                    value.span,
                    format!("a {} stored into an array element", t.name()),
                ))
            }
        }
    }
    Ok(())
}

/// The type of `tangent.add_grad(a, b)` when either is an array (None: neither is):
/// both arrays of one dimension count, or `a` None.
pub fn add_grad_type(
    e: &Expr,
    args: &[Expr],
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Option<Result<Option<Ty>, Refusal>> {
    let [a, b] = args else { return None };
    let ta = if matches!(a.kind, ExprKind::NoneLit) {
        None
    } else {
        match expr_type(a, vars, callees) {
            Ok(t) => t,
            Err(r) => return Some(Err(r)),
        }
    };
    let tb = match expr_type(b, vars, callees) {
        Ok(t) => t,
        Err(r) => return Some(Err(r)),
    };
    Some(match (ta, tb) {
        (Some(Ty::Array(x)), Some(Ty::Array(y))) if x == y => Ok(Some(Ty::Array(x))),
        (Some(Ty::Array32(x)), Some(Ty::Array32(y))) if x == y => Ok(Some(Ty::Array32(x))),
        (None, Some(t @ (Ty::Array(_) | Ty::Array32(_)))) => Ok(Some(t)),
        (Some(Ty::Array(_) | Ty::Array32(_)), _) | (_, Some(Ty::Array(_) | Ty::Array32(_))) => Err(
            Refusal::new(e.span, "`tangent.add_grad` of an array and something else"),
        ),
        _ => return None,
    })
}

/// The type of `tangent.reshape_as(g, x)` for arrays of one dimension count.
pub fn reshape_as_type(
    e: &Expr,
    args: &[Expr],
    vars: &HashMap<String, VarTy>,
) -> Option<Result<Option<Ty>, Refusal>> {
    let [g, x] = args else { return None };
    let single = |e| single_array_name(e, vars);
    Some(match (array_name(g, vars), array_name(x, vars)) {
        (Some(a), Some(b)) if a == b => Ok(Some(Ty::Array(a))),
        (None, None) => match (single(g), single(x)) {
            (Some(a), Some(b)) if a == b => Ok(Some(Ty::Array32(a))),
            (None, None) => return None,
            _ => Err(Refusal::new(
                e.span,
                "a float32 array reshaped to another dimension count or dtype",
            )),
        },
        _ => Err(Refusal::new(
            e.span,
            "an array reshaped to another dimension count",
        )),
    })
}

/// The type of `tangent.zero_grad_at(g, index)` for an array `g`.
pub fn zero_grad_at_type(
    e: &Expr,
    args: &[Expr],
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<Option<Ty>, Refusal> {
    let [g, index] = args else {
        return Err(Refusal::new(
            e.span,
            "`tangent.zero_grad_at` of other arguments",
        ));
    };
    let (array, nd) = writable_or(
        g,
        vars,
        e.span,
        "the gradient of a store into something other than a float64 or float32 array",
    )?;
    element_index_types(index, nd, vars, callees)?;
    Ok(Some(array))
}

/// Refuses every use that would let a second name see an array the code writes (see the
/// module's comment), and writes to argument arrays.
pub fn ownership(
    def: &FuncDef,
    vars: &HashMap<String, VarTy>,
    rules: &crate::rules::RuleSet,
) -> Result<(), Refusal> {
    let is_param = |n: &str| def.params.iter().any(|p| p.name == n);
    // Arrays the gradient helpers change in place, and names holding rows (`r = m[i]`):
    // a row of an array changed in place would see the change (Python's helpers make a
    // new array, and its row keeps the old values), and a row is never written.
    let mut helper_written: Vec<String> = Vec::new();
    let mut rows: Vec<(String, String)> = Vec::new();
    walk_stmts(&def.body, &mut |s| {
        if let StmtKind::Assign(t, v) = &s.kind {
            let Some(n) = t.as_name() else { return };
            match &v.kind {
                ExprKind::Call { func, .. }
                    if matches!(
                        super::callee_path(func).as_deref(),
                        Some(
                            "tangent.add_grad_at"
                                | "tangent.set_tangent_at"
                                | "tangent.zero_grad_at"
                        )
                    ) =>
                {
                    helper_written.push(n.to_owned())
                }
                ExprKind::Subscript(base, _) if array_name(base, vars) == Some(2) => {
                    if let Some(b) = base.as_name() {
                        rows.push((n.to_owned(), b.to_owned()));
                    }
                }
                _ => {}
            }
        }
    });
    for (row, base) in &rows {
        if helper_written.contains(base) || helper_written.contains(row) {
            return Err(Refusal::new(
                def.span,
                format!("`{row}`, a row of `{base}`, which the gradient code changes in place"),
            ));
        }
    }
    let is_row = |n: &str| rows.iter().any(|(r, _)| r == n);
    // Arrays changed in place (by the helpers or by element): a second name for one of
    // them would see the change where Python's helpers make a new array. Other arrays
    // are never changed, so names may share them as Python's do.
    let mut stored: Vec<String> = Vec::new();
    walk_stmts(&def.body, &mut |s| {
        if let StmtKind::Assign(
            Expr {
                kind: ExprKind::Subscript(base, _),
                ..
            },
            _,
        ) = &s.kind
        {
            stored.extend(base.as_name().map(str::to_owned));
        }
    });
    let changed = |n: &str| helper_written.iter().any(|h| h == n) || stored.iter().any(|h| h == n);
    let mut err: Option<Refusal> = None;
    walk_stmts(&def.body, &mut |s| {
        if err.is_some() {
            return;
        }
        let fail = |span: Span, what: &str| Some(Refusal::new(span, what.to_owned()));
        // `add_grad_at` writes its first argument in place: only `g = add_grad_at(g, ...)`
        // (or into None) may call it, so no other value is the written array.
        let mut writes = 0usize;
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    if let Some(
                        "tangent.add_grad_at" | "tangent.set_tangent_at" | "tangent.zero_grad_at",
                    ) = super::callee_path(func).as_deref()
                    {
                        writes += 1
                    }
                }
            })
        });
        let direct = matches!(&s.kind, StmtKind::Assign(t, Expr { kind: ExprKind::Call { func, .. }, .. })
        if t.as_name().is_some()
            && matches!(
                super::callee_path(func).as_deref(),
                Some(
                    "tangent.add_grad_at"
                        | "tangent.set_tangent_at"
                        | "tangent.zero_grad_at"
                )
            ));
        if writes > usize::from(direct) {
            err = fail(
                s.span,
                "a gradient helper that changes an array, inside a larger expression",
            );
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
            StmtKind::Assign(
                Expr {
                    kind: ExprKind::Subscript(base, _),
                    ..
                },
                _,
            ) if base.as_name().is_some_and(|b| is_param(b) || is_row(b)) => {
                err = fail(s.span, "a store into an argument array or a row");
            }
            StmtKind::Assign(t, v) => {
                let Some(n) = t.as_name() else { return };
                if array_name(t, vars).is_none() {
                    return;
                }
                if is_param(n) && changed(n) {
                    err = fail(
                        s.span,
                        "an assignment to an array argument changed in place",
                    );
                    return;
                }
                let ok = match &v.kind {
                    ExprKind::NoneLit => true,
                    // A new array (elementwise), or a second name for an unchanged one.
                    ExprKind::BinOp(..) | ExprKind::Unary(..) => true,
                    ExprKind::Name(m) => !changed(n) && !changed(m),
                    ExprKind::Subscript(base, _) => array_name(base, vars) == Some(2),
                    ExprKind::Call { func, args, .. } => {
                        match super::callee_path(func).as_deref() {
                            Some("tangent.init_grad") => true,
                            Some(crate::tape::POP) => !helper_written.iter().any(|h| h == n),
                            Some("tangent.add_grad_at" | "tangent.set_tangent_at") => {
                                args.first().is_some_and(|g| {
                                    matches!(g.kind, ExprKind::NoneLit) || g.as_name() == Some(n)
                                })
                            }
                            Some("tangent.zero_grad_at") => {
                                args.first().and_then(|g| g.as_name()) == Some(n)
                            }
                            // A new array (a copy of the second when the first is None).
                            Some("tangent.add_grad") => true,
                            Some(p) => match rules.native_scalar(p) {
                                // The result may be the first argument itself.
                                Some(NativeScalar::Unbroadcast { .. }) => {
                                    match args.first().and_then(|g| g.as_name()) {
                                        Some(g) => !changed(n) && !changed(g),
                                        None => true,
                                    }
                                }
                                Some(
                                    NativeScalar::Kernel { .. }
                                    | NativeScalar::DotGrad { .. }
                                    | NativeScalar::Sign,
                                ) => true,
                                _ => made_array_kind(func, vars, rules).is_some_and(|k| {
                                    matches!(
                                        k,
                                        NativeScalar::NewArray
                                            | NativeScalar::ArrayLike
                                            | NativeScalar::ArrayCopy
                                    )
                                }),
                            },
                            None => false,
                        }
                    }
                    _ => false,
                };
                if !ok {
                    err = fail(
                        s.span,
                        "an array assigned from something other than a new array \
                         (`np.zeros`, `np.zeros_like`, `.copy()`, `init_grad`, \
                         `add_grad_at` into the same name, an elementwise expression) or \
                         a second name for an array changed in place",
                    );
                }
            }
            StmtKind::ExprStmt(Expr {
                kind: ExprKind::Call { func, args, .. },
                ..
            }) if super::callee_path(func).as_deref() == Some(crate::tape::PUSH)
                && args
                    .get(1)
                    .and_then(|a| a.as_name())
                    .is_some_and(|n| helper_written.iter().any(|h| h == n)) =>
            {
                // The tape keeps the object; Python's helpers make a new one each time,
                // these change theirs in place. Other arrays (arguments, rows, arrays
                // written by element) are the same object in Python too.
                err = fail(s.span, "a gradient array saved on the tape");
            }
            _ => {}
        }
    });
    match err {
        Some(r) => Err(r),
        None => Ok(()),
    }
}

/// `k` when `e` is the literal 1, 2, 3 or 4 (an exponent native code multiplies out).
pub fn small_power(e: &Expr) -> Option<u8> {
    match &e.kind {
        ExprKind::Num(t) => t.parse().ok().filter(|k| (1..=4).contains(k)),
        _ => None,
    }
}

/// Whether `t` is a number an elementwise operation may combine with an array.
fn is_number(t: Option<Ty>) -> bool {
    matches!(t, None | Some(Ty::Float | Ty::Int | Ty::Bool))
}

/// The array type shared by the array operands among `tys` (None: no array; a refusal
/// for two dimension counts, float32 arrays beside float64 ones, or an operand that is
/// neither an array nor a number).
fn elementwise_array(tys: &[Option<Ty>], span: Span) -> Option<Result<Ty, Refusal>> {
    let mut array: Option<Ty> = None;
    for t in tys {
        match *t {
            Some(a @ (Ty::Array(k) | Ty::Array32(k))) => match array {
                None => array = Some(a),
                Some(b) if b == a => {}
                Some(Ty::Array(j) | Ty::Array32(j)) if j != k => {
                    return Some(Err(Refusal::new(
                        span,
                        "arrays of two dimension counts in one elementwise operation (NumPy \
                         broadcasts them; native code takes arrays of one shape)",
                    )))
                }
                Some(_) => {
                    return Some(Err(Refusal::new(
                        span,
                        "float32 and float64 arrays in one elementwise operation",
                    )))
                }
            },
            None | Some(Ty::Float | Ty::Int | Ty::Bool) => {}
            Some(t) => {
                return Some(Err(Refusal::new(
                    span,
                    format!("a {} in an elementwise operation on arrays", t.name()),
                )))
            }
        }
    }
    array.map(Ok)
}

/// The type of `a op b` when either operand is an array (None: neither is): elementwise
/// over arrays of one shape (checked when it runs) and numbers, for `+ - * /` and the
/// powers `x ** k` for a literal k from 1 to 4 (products: within an ulp of NumPy's pow).
pub fn elementwise_binop_type(
    op: BinOp,
    ta: Option<Ty>,
    tb: Option<Ty>,
    exponent: &Expr,
    span: Span,
) -> Option<Result<Ty, Refusal>> {
    if op == BinOp::MatMul && ta == Some(Ty::Array(1)) && tb == Some(Ty::Array(1)) {
        // `a @ b` of vectors: their inner product.
        return Some(Ok(Ty::Float));
    }
    let array = match elementwise_array(&[ta, tb], span)? {
        Ok(t) => t,
        Err(r) => return Some(Err(r)),
    };
    let power = small_power(exponent);
    Some(match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div => Ok(array),
        // NumPy squares a float32 array by multiplying; higher powers are its powf.
        BinOp::Pow if matches!(array, Ty::Array32(_)) && matches!(power, Some(3 | 4)) => {
            Err(Refusal::new(
                span,
                "a float32 array to a power above 2 (NumPy's float32 pow)",
            ))
        }
        BinOp::Pow if power.is_some() && ta == Some(array) => Ok(array),
        _ => Err(Refusal::new(
            span,
            format!(
                "the operator `{}` on an array (native code runs `+ - * /` and `x ** k` for \
                 k = 1 to 4 elementwise)",
                op.symbol()
            ),
        )),
    })
}

/// The type of a call that takes arrays elementwise or by shape (None: not such a call,
/// or no array among its arguments): a `native_scalar` kernel over arrays of one shape
/// and numbers, the `unbroadcast` kind (its first argument given the shape of argument
/// `like`, numbers included), `numpy.sum` of an array, `numpy.dot` of two vectors and
/// its gradients (a number times a vector).
pub fn array_call_type(
    e: &Expr,
    path: &str,
    args: &[Expr],
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Option<Result<Option<Ty>, Refusal>> {
    let ty = |a: &Expr| expr_type(a, vars, callees);
    let run = || -> Result<Option<Option<Ty>>, Refusal> {
        match callees.rules().native_scalar(path) {
            Some(NativeScalar::Kernel {
                name,
                arity,
                single,
                ..
            }) => {
                let tys = args.iter().map(ty).collect::<Result<Vec<_>, _>>()?;
                let Some(array) = elementwise_array(&tys, e.span).transpose()? else {
                    return Ok(None);
                };
                let single32 = single.and_then(|how| crate::jit::runtime::kernel32(name, how));
                if matches!(array, Ty::Array32(_)) && (single32.is_none() || args.len() != 1) {
                    return Err(Refusal::new(
                        e.span,
                        format!(
                            "`{path}` of a float32 array (NumPy's own float32 function{})",
                            match single {
                                Some(crate::rules::Float32Kernel::HostRoundsDouble) =>
                                    ", which native code follows only in the embedded numpy",
                                Some(_) =>
                                    ", which this NumPy computes otherwise than the copy \
                                           native code has",
                                None => "",
                            }
                        ),
                    ));
                }
                if *arity != args.len() || crate::jit::runtime::kernel(name, args.len()).is_none() {
                    return Err(Refusal::new(
                        e.span,
                        format!("`{path}` of {} arrays", args.len()),
                    ));
                }
                Ok(Some(Some(array)))
            }
            Some(NativeScalar::Unbroadcast { like, sums }) => {
                let (Some(g), Some(l)) = (args.first(), args.get(*like)) else {
                    return Ok(None);
                };
                Ok(match (ty(g)?, ty(l)?) {
                    (Some(a @ (Ty::Array(_) | Ty::Array32(_))), Some(b)) if a == b => Some(Some(a)),
                    // An array given a number's shape: summed (`unbroadcast`), or itself
                    // (`broadcast_like`).
                    (Some(a @ (Ty::Array(_) | Ty::Array32(_))), t)
                        if is_number(t) && t.is_some() =>
                    {
                        Some(Some(if *sums { Ty::Float } else { a }))
                    }
                    // A number given an array's shape: an array of the array's dtype.
                    (t, Some(b @ (Ty::Array(_) | Ty::Array32(_))))
                        if is_number(t) && t.is_some() =>
                    {
                        Some(Some(b))
                    }
                    (Some(a), Some(b)) if a.is_container() || b.is_container() => {
                        return Err(Refusal::new(
                            e.span,
                            format!("`{path}` of a {} like a {}", a.name(), b.name()),
                        ))
                    }
                    // Numbers: the identity. The other arguments are never read.
                    (Some(a), Some(_)) => Some(Some(a)),
                    _ => Some(None),
                })
            }
            // The sign of each element (`tangent.sign` of an array is `numpy.sign`).
            Some(NativeScalar::Sign) => match args {
                [x] => Ok(match ty(x)? {
                    Some(a @ (Ty::Array(_) | Ty::Array32(_))) => Some(Some(a)),
                    _ => None,
                }),
                _ => Ok(None),
            },
            Some(NativeScalar::Sum) => match args {
                [x] => Ok(match ty(x)? {
                    Some(Ty::Array(_) | Ty::Array32(_)) => Some(Some(Ty::Float)),
                    _ => None,
                }),
                _ => Ok(None),
            },
            Some(NativeScalar::Dot) => match args {
                [a, b] => Ok(match (ty(a)?, ty(b)?) {
                    (Some(Ty::Array(1)), Some(Ty::Array(1))) => Some(Some(Ty::Float)),
                    (Some(x), Some(y)) if x.is_container() || y.is_container() => {
                        return Err(Refusal::new(
                            e.span,
                            format!(
                                "`{path}` of a {} and a {} (native code takes two vectors)",
                                x.name(),
                                y.name()
                            ),
                        ))
                    }
                    _ => None,
                }),
                _ => Ok(None),
            },
            Some(NativeScalar::DotGrad { .. }) => match args {
                [g, a, b] => Ok(match (ty(g)?, ty(a)?, ty(b)?) {
                    (g, Some(Ty::Array(1)), Some(Ty::Array(1))) if is_number(g) && g.is_some() => {
                        Some(Some(Ty::Array(1)))
                    }
                    (g, a, b) if [g, a, b].iter().flatten().any(|t| t.is_container()) => {
                        return Err(Refusal::new(
                            e.span,
                            format!("`{path}` of matrices (native code takes vectors)"),
                        ))
                    }
                    _ => None,
                }),
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    };
    run().transpose()
}
