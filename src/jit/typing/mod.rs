//! Which generated functions the native compiler takes, and the static type of every
//! variable once the arguments' types are known (float, int or bool; a variable that
//! is also `None` somewhere carries a "none" flag beside its value).

pub mod arrays;
pub mod containers;

use crate::rules::{NativeScalar, RuleSet, NAMESPACE_OF};
use crate::syntax::ir::*;
use std::collections::HashMap;

/// A value's type: a scalar, `Tape` (the `_stack` of a reverse-mode adjoint), a
/// float64 array of 1 or 2 dimensions (`array_types.rs`), or a read-only int64 one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Ty {
    Bool,
    Int,
    Float,
    Tape,
    Array(u8),
    /// An int64 array of 1 or 2 dimensions, read by element only (its elements are ints).
    IntArray(u8),
    /// A dict of floats with string keys, by key set (`containers.rs`).
    Dict(u32),
    /// A dataclass or namedtuple instance whose fields are all floats, by field set,
    /// read by attribute only (`containers.rs`).
    Record(u32),
    /// A tuple or list of floats, read by index only (`containers.rs`), and its
    /// elements' NumPy kind (`containers::MIXED` when they differ).
    Seq(u8),
    /// A `numpy.float32` argument, and a `numpy.float64` one (`Float` is a Python float):
    /// in the function both are floats whose precision the code tracks at run time
    /// (codegen's kinds), since NumPy 2 promotes them differently.
    Single,
    Double,
    /// A float32 array of 1 or 2 dimensions, by element: its elements are
    /// `numpy.float32` values (held as float64 numbers exact in float32, stored rounded).
    Array32(u8),
}

impl Ty {
    pub fn name(self) -> &'static str {
        match self {
            Ty::Bool => "bool",
            Ty::Int => "int",
            Ty::Float => "float",
            Ty::Tape => "tape",
            Ty::Array(1) => "1-d float64 array",
            Ty::Array(_) => "2-d float64 array",
            Ty::IntArray(1) => "1-d int64 array",
            Ty::IntArray(_) => "2-d int64 array",
            Ty::Dict(_) => "dict of floats",
            Ty::Record(_) => "dataclass or namedtuple of floats",
            Ty::Seq(containers::MIXED) => "tuple or list of floats of several NumPy types",
            Ty::Seq(_) => "tuple or list of floats",
            Ty::Single => "float32 scalar",
            Ty::Double => "float64 scalar",
            Ty::Array32(1) => "1-d float32 array",
            Ty::Array32(_) => "2-d float32 array",
        }
    }

    /// An array or a dict: values that are not numbers.
    pub fn is_container(self) -> bool {
        matches!(
            self,
            Ty::Array(_)
                | Ty::IntArray(_)
                | Ty::Dict(_)
                | Ty::Record(_)
                | Ty::Seq(_)
                | Ty::Array32(_)
        )
    }

    /// The type a variable holding an argument of this type has: NumPy's float scalars
    /// are floats (their precision is tracked when the code runs).
    pub fn of_variable(self) -> Ty {
        match self {
            Ty::Single | Ty::Double => Ty::Float,
            t => t,
        }
    }
}

/// Whether a signature holds float32 values (a `numpy.float32` or a float32 array): its
/// code tracks each float's precision (Python float, `numpy.float32` or
/// `numpy.float64`), as NumPy 2's promotion depends on it.
pub fn tracks_precision(args: &[Ty]) -> bool {
    use self::containers::{has_single, MIXED, SINGLE};
    args.iter().any(|t| match *t {
        Ty::Single | Ty::Array32(_) | Ty::Seq(SINGLE | MIXED) => true,
        Ty::Dict(keys) | Ty::Record(keys) => has_single(keys),
        _ => false,
    })
}

/// Whether `def` makes NumPy float scalars (`numpy.float32(x)`, `numpy.float64(x)`): a
/// program with such a function follows each float's NumPy type whatever the arguments.
pub fn makes_numpy_scalars(def: &FuncDef, rules: &RuleSet) -> bool {
    let mut found = false;
    walk_stmts(&def.body, &mut |s| {
        crate::syntax::visit::stmt_exprs(s, &mut |e| {
            e.walk(&mut |x| {
                if let ExprKind::Call { func, .. } = &x.kind {
                    let path = callee_path(func).unwrap_or_default();
                    found |= matches!(
                        rules.native_scalar(&path),
                        Some(NativeScalar::ScalarType { .. })
                    );
                }
            })
        })
    });
    found
}

/// A variable's type: its scalar type (None when only `None` was ever assigned) and
/// whether it can hold `None`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VarTy {
    pub ty: Option<Ty>,
    pub nullable: bool,
}

/// Why a function is not compiled: the construct and where it is.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub span: Span,
    pub what: String,
}

impl Refusal {
    pub fn new(span: Span, what: impl Into<String>) -> Refusal {
        Refusal {
            span,
            what: what.into(),
        }
    }
}

/// The functions of the program a generated function may call (user functions and
/// the gradients generated for them).
pub trait CalleeTypes {
    fn is_function(&self, name: &str) -> bool;
    /// The rule set in force (its `native_scalar(...)` declarations).
    fn rules(&self) -> &RuleSet;
    /// The types of the values `name` returns for arguments of these types (compiling
    /// it), None while they are not known (a recursive call inside `name` itself), or
    /// why it does not compile.
    fn outputs(
        &self,
        name: &str,
        pos: &[Ty],
        kw: &[(String, Ty)],
    ) -> Result<Option<Vec<Ty>>, Refusal>;
}

pub type Callees<'a> = &'a dyn CalleeTypes;

/// The dotted name of a call's function (`math.sin`, `tangent.push`, `float`).
pub fn callee_path(func: &Expr) -> Option<String> {
    match &func.kind {
        ExprKind::Name(n) => Some(n.clone()),
        // `tangent.namespace_of(x, y).matmul`: the rule set's `tangent.namespace_of.matmul`,
        // which has the array namespace's facts (`namespace_args` are checked to be the
        // numbers and float64 arrays native code holds).
        ExprKind::Attr(v, a) if namespace_args(v).is_some() => Some(format!("{NAMESPACE_OF}.{a}")),
        ExprKind::Attr(v, a) => Some(format!("{}.{a}", callee_path(v)?)),
        _ => None,
    }
}

/// The arguments of `tangent.namespace_of(...)` if `e` is that call.
fn namespace_args(e: &Expr) -> Option<&[Expr]> {
    match &e.kind {
        ExprKind::Call { func, args, .. } if callee_path(func).as_deref() == Some(NAMESPACE_OF) => {
            Some(args)
        }
        _ => None,
    }
}

/// Infers the type of every variable of `def` for arguments of types `args` (`precise`:
/// code that follows each float's NumPy type, `precision.rs`).
pub fn infer(
    def: &FuncDef,
    args: &[Ty],
    precise: bool,
    callees: Callees,
) -> Result<HashMap<String, VarTy>, Refusal> {
    if def.vararg.is_some() || def.star.is_some() {
        return Err(Refusal::new(def.span, "a `*args` parameter"));
    }
    if args.len() != def.params.len() {
        return Err(Refusal::new(
            def.span,
            format!(
                "{} arguments for {} parameters",
                args.len(),
                def.params.len()
            ),
        ));
    }
    let mut vars: HashMap<String, VarTy> = HashMap::new();
    for (p, t) in def.params.iter().zip(args) {
        vars.insert(
            p.name.clone(),
            VarTy {
                ty: Some(t.of_variable()),
                nullable: false,
            },
        );
    }
    // Flow-insensitive: join every assignment's type until nothing changes.
    for _ in 0..32 {
        let before = vars.clone();
        assign_types(&def.body, &mut vars, callees)?;
        if before == vars {
            arrays::ownership(def, &vars, callees.rules())?;
            if precise {
                float32_companions(def, &vars)?;
            }
            return Ok(vars);
        }
    }
    Err(Refusal::new(def.span, "types that do not settle"))
}

/// In code with float32 values, the containers whose numbers' NumPy types are not known
/// to the code are refused (the function runs interpreted): tuples and lists whose
/// elements differ in type (a Python float and a `numpy.float64` promote a float32
/// differently; a dict's or record's values have their kinds in the key set), and int64
/// arrays (whose elements are `numpy.int64` in CPython and ints in the embedded numpy).
fn float32_companions(def: &FuncDef, vars: &HashMap<String, VarTy>) -> Result<(), Refusal> {
    let mut names: Vec<(&String, Ty)> = vars
        .iter()
        .filter_map(|(n, v)| v.ty.map(|t| (n, t)))
        .filter(|(_, t)| matches!(t, Ty::IntArray(_) | Ty::Seq(containers::MIXED)))
        .collect();
    names.sort_by(|a, b| a.0.cmp(b.0));
    match names.first() {
        Some((n, t)) => Err(Refusal::new(
            def.span,
            format!("`{n}`, a {}, in code with float32 values", t.name()),
        )),
        None => Ok(()),
    }
}

fn join(
    vars: &mut HashMap<String, VarTy>,
    name: &str,
    t: Option<Ty>,
    none: bool,
    span: Span,
) -> Result<(), Refusal> {
    let e = vars.entry(name.to_owned()).or_insert(VarTy {
        ty: None,
        nullable: false,
    });
    e.nullable |= none;
    match (e.ty, t) {
        (_, None) => {}
        (None, Some(t)) => e.ty = Some(t),
        (Some(a), Some(b)) if a == b => {}
        (Some(a), Some(b)) => {
            return Err(Refusal::new(
                span,
                format!("`{name}` holds a {} and a {}", a.name(), b.name()),
            ))
        }
    }
    Ok(())
}

fn assign_types(
    stmts: &[Stmt],
    vars: &mut HashMap<String, VarTy>,
    callees: Callees,
) -> Result<(), Refusal> {
    for s in stmts {
        match &s.kind {
            StmtKind::Assign(t, v) => match (&t.kind, &v.kind) {
                (ExprKind::Name(n), ExprKind::NoneLit) => join(vars, n, None, true, s.span)?,
                (ExprKind::Name(n), _) => {
                    if let Some(ty) = expr_type(v, vars, callees)? {
                        join(vars, n, Some(ty), false, s.span)?;
                    }
                }
                (ExprKind::Tuple(ts), ExprKind::Tuple(vs)) if ts.len() == vs.len() => {
                    for (t, v) in ts.iter().zip(vs) {
                        let Some(n) = t.as_name() else {
                            return Err(Refusal::new(t.span, "assignment to a subscript"));
                        };
                        match &v.kind {
                            ExprKind::NoneLit => join(vars, n, None, true, s.span)?,
                            _ => {
                                if let Some(ty) = expr_type(v, vars, callees)? {
                                    join(vars, n, Some(ty), false, s.span)?;
                                }
                            }
                        }
                    }
                }
                (ExprKind::Tuple(ts), ExprKind::Call { .. }) => {
                    if let Some(outs) = user_call_types(v, vars, callees)? {
                        if outs.len() != ts.len() {
                            return Err(Refusal::new(
                                s.span,
                                "unpacking a call into another number of names",
                            ));
                        }
                        for (t, ty) in ts.iter().zip(outs) {
                            let Some(n) = t.as_name() else {
                                return Err(Refusal::new(t.span, "assignment to a subscript"));
                            };
                            join(vars, n, Some(ty), false, s.span)?;
                        }
                    }
                }
                (ExprKind::Subscript(base, index), _) => {
                    arrays::store_type(base, index, v, s.span, vars, callees)?
                }
                _ => {
                    return Err(Refusal::new(
                        s.span,
                        "an assignment to something other than names",
                    ))
                }
            },
            StmtKind::If(c, a, b) => {
                expr_type(c, vars, callees)?;
                assign_types(a, vars, callees)?;
                assign_types(b, vars, callees)?;
            }
            StmtKind::While(c, body) => {
                expr_type(c, vars, callees)?;
                assign_types(body, vars, callees)?;
            }
            StmtKind::For(t, it, body) => {
                let Some(n) = t.as_name() else {
                    return Err(Refusal::new(t.span, "a `for` target that is not a name"));
                };
                range_args(it)?;
                join(vars, n, Some(Ty::Int), false, s.span)?;
                assign_types(body, vars, callees)?;
            }
            StmtKind::ExprStmt(e) => {
                expr_type(e, vars, callees)?;
            }
            StmtKind::Return(Some(e)) => {
                expr_type(e, vars, callees)?;
            }
            StmtKind::AugAssign(..) => return Err(Refusal::new(s.span, "an augmented assignment")),
            StmtKind::With(..) => return Err(Refusal::new(s.span, "a `with` block")),
            // The message is evaluated only when the test fails, by the interpreter.
            StmtKind::Assert(t, _) => {
                expr_type(t, vars, callees)?;
            }
            StmtKind::Return(None)
            | StmtKind::Break
            | StmtKind::Continue
            | StmtKind::Pass
            | StmtKind::Comment(_) => {}
        }
    }
    Ok(())
}

/// The arguments of `range(...)` in a `for` loop.
pub fn range_args(it: &Expr) -> Result<&[Expr], Refusal> {
    match &it.kind {
        ExprKind::Call { func, args, kwargs }
            if callee_path(func).as_deref() == Some("range")
                && kwargs.is_empty()
                && (1..=3).contains(&args.len()) =>
        {
            Ok(args)
        }
        _ => Err(Refusal::new(
            it.span,
            "a `for` loop over something other than `range(...)`",
        )),
    }
}

/// Numeric result of a binary operator on two scalar types.
pub fn arith_type(op: BinOp, a: Ty, b: Ty) -> Option<Ty> {
    let int_like = |t: Ty| matches!(t, Ty::Int | Ty::Bool);
    match op {
        BinOp::MatMul => None,
        _ if a == Ty::Tape || b == Ty::Tape => None,
        _ if a.is_container() || b.is_container() => None,
        // Two bools: a comparison of NumPy scalars gives NumPy's bool, whose `+` is `or`
        // (Python's True + True is 2): left to the interpreter.
        _ if a == Ty::Bool && b == Ty::Bool => None,
        BinOp::Div => Some(Ty::Float),
        _ if int_like(a) && int_like(b) => Some(Ty::Int),
        _ => Some(Ty::Float),
    }
}

/// The type of an expression, `None` while an operand's type is still unknown.
pub fn expr_type(
    e: &Expr,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<Option<Ty>, Refusal> {
    Ok(match &e.kind {
        ExprKind::Name(n) => match vars.get(n) {
            Some(v) => v.ty,
            None => None,
        },
        ExprKind::Num(t) => {
            if t.parse::<i64>().is_ok() {
                Some(Ty::Int)
            } else if t.parse::<f64>().is_ok() {
                Some(Ty::Float)
            } else {
                return Err(Refusal::new(e.span, format!("the literal `{t}`")));
            }
        }
        ExprKind::Bool(_) => Some(Ty::Bool),
        ExprKind::NoneLit => return Err(Refusal::new(e.span, "`None` used as a value")),
        ExprKind::Str(_) => return Err(Refusal::new(e.span, "a string")),
        ExprKind::BinOp(op, a, b) => {
            let (ta, tb) = (expr_type(a, vars, callees)?, expr_type(b, vars, callees)?);
            if let Some(t) = arrays::elementwise_binop_type(*op, ta, tb, b, e.span) {
                return t.map(Some);
            }
            match (ta, tb) {
                (Some(x), Some(y)) => Some(arith_type(*op, x, y).ok_or_else(|| {
                    Refusal::new(
                        e.span,
                        format!(
                            "the operator `{}` on {} and {}",
                            op.symbol(),
                            x.name(),
                            y.name()
                        ),
                    )
                })?),
                _ => None,
            }
        }
        ExprKind::Unary(op, a) => {
            let t = expr_type(a, vars, callees)?;
            if let Some(t @ (Ty::Array(_) | Ty::Array32(_))) = t {
                // `-x` of an array is elementwise; `not x` raises in NumPy.
                return match op {
                    UnaryOp::Neg | UnaryOp::Pos => Ok(Some(t)),
                    UnaryOp::Not => Err(Refusal::new(e.span, format!("`not` of a {}", t.name()))),
                };
            }
            if let Some(t) = t.filter(|t| t.is_container()) {
                return Err(Refusal::new(
                    e.span,
                    format!(
                        "`{}` of a {}",
                        match op {
                            UnaryOp::Neg => "-",
                            UnaryOp::Pos => "+",
                            UnaryOp::Not => "not",
                        },
                        t.name()
                    ),
                ));
            }
            match op {
                UnaryOp::Not => Some(Ty::Bool),
                // NumPy's bool has no negative or positive (TypeError); Python's -True
                // is -1.
                UnaryOp::Neg | UnaryOp::Pos if t == Some(Ty::Bool) => {
                    return Err(Refusal::new(
                        e.span,
                        format!(
                            "`{}` of a bool",
                            if *op == UnaryOp::Neg { "-" } else { "+" }
                        ),
                    ))
                }
                _ => t.map(|t| if t == Ty::Bool { Ty::Int } else { t }),
            }
        }
        ExprKind::Compare(a, rest) => {
            expr_type(a, vars, callees)?;
            for (op, b) in rest {
                if matches!(op, CmpOp::In | CmpOp::NotIn) {
                    return Err(Refusal::new(e.span, "`in` comparisons"));
                }
                if matches!(op, CmpOp::Is | CmpOp::IsNot) && !matches!(b.kind, ExprKind::NoneLit) {
                    return Err(Refusal::new(
                        e.span,
                        "`is` with something other than `None`",
                    ));
                }
                if !matches!(b.kind, ExprKind::NoneLit) {
                    for x in [&**a, b] {
                        if let Some(t) = expr_type(x, vars, callees)?.filter(|t| t.is_container()) {
                            return Err(Refusal::new(
                                x.span,
                                format!("a comparison of a {}", t.name()),
                            ));
                        }
                    }
                }
            }
            Some(Ty::Bool)
        }
        ExprKind::BoolOp(_, es) => {
            for x in es {
                if let Some(t) = expr_type(x, vars, callees)? {
                    if t != Ty::Bool {
                        return Err(Refusal::new(
                            x.span,
                            "`and`/`or` on values that are not bools",
                        ));
                    }
                }
            }
            Some(Ty::Bool)
        }
        ExprKind::IfExp { test, body, orelse } => {
            expr_type(test, vars, callees)?;
            let (a, b) = (
                expr_type(body, vars, callees)?,
                expr_type(orelse, vars, callees)?,
            );
            match (a, b) {
                (Some(x), Some(y)) if x != y => {
                    return Err(Refusal::new(
                        e.span,
                        "a conditional expression with two types",
                    ))
                }
                (Some(x), _) | (_, Some(x)) => Some(x),
                _ => None,
            }
        }
        ExprKind::Attr(v, a) => match (v.as_name(), a.as_str()) {
            (Some("math"), "pi" | "e" | "tau" | "inf") => Some(Ty::Float),
            _ if containers::record_fields(v, vars).is_some() => {
                return containers::field_type(v, a, e.span, vars)
            }
            _ => match arrays::attr_type(v, a, e.span, vars) {
                Some(t) => t?,
                None => return Err(Refusal::new(e.span, "an attribute")),
            },
        },
        ExprKind::Call { func, args, kwargs } => {
            if let ExprKind::Attr(v, _) = &func.kind {
                for a in namespace_args(v).unwrap_or_default() {
                    // Names only (not evaluated by the code), of numbers and float64
                    // arrays, whose namespace is NumPy.
                    let numpy = a.as_name().is_some()
                        && matches!(
                            expr_type(a, vars, callees)?,
                            None | Some(Ty::Float | Ty::Int | Ty::Bool | Ty::Array(_))
                        );
                    if !numpy {
                        return Err(Refusal::new(a.span, "`tangent.namespace_of` of this value"));
                    }
                }
            }
            let path = callee_path(func).unwrap_or_default();
            // `numpy.sum(x, axis=None, keepdims=False)` (forward mode writes them) is the
            // sum of every element.
            let whole_sum = callees.rules().native_scalar(&path) == Some(&NativeScalar::Sum)
                && kwargs.iter().all(|(k, v)| match (k.as_str(), &v.kind) {
                    ("axis", ExprKind::NoneLit) => true,
                    ("keepdims", ExprKind::Bool(b)) => !*b,
                    _ => false,
                });
            if !kwargs.is_empty() && !callees.is_function(&path) && !whole_sum {
                return Err(Refusal::new(
                    e.span,
                    format!("keyword arguments to `{path}`"),
                ));
            }
            // `tangent.sequence_len(x)`: the trip count of `for v in x`.
            if path == "len" || path == "tangent.sequence_len" {
                if let [x] = args.as_slice() {
                    if arrays::any_array_name(x, vars).is_some() || containers::is_seq(x, vars) {
                        return Ok(Some(Ty::Int));
                    }
                }
                if path != "len" {
                    return Err(Refusal::new(
                        e.span,
                        "a `for` loop over something other than an array, tuple or list",
                    ));
                }
                // Otherwise only `len(range(...))` (a loop's trip count) is scalar code.
                return match args.as_slice() {
                    [r] => {
                        for a in range_args(r)? {
                            expr_type(a, vars, callees)?;
                        }
                        Ok(Some(Ty::Int))
                    }
                    _ => Err(Refusal::new(
                        e.span,
                        "`len` of something other than a range",
                    )),
                };
            }
            if path == "tangent.add_grad_at" || path == "tangent.set_tangent_at" {
                return arrays::add_grad_at_type(e, args, vars, callees);
            }
            if path == "tangent.zero_grad_at" {
                return arrays::zero_grad_at_type(e, args, vars, callees);
            }
            if path == "tangent.add_grad" {
                if let Some(t) = arrays::add_grad_type(e, args, vars, callees) {
                    return t;
                }
            }
            if path == "tangent.reshape_as" {
                if let Some(t) = arrays::reshape_as_type(e, args, vars) {
                    return t;
                }
            }
            if let Some(t) = arrays::made_array_type(e, func, args, vars, callees) {
                return t;
            }
            if let Some(t) = arrays::array_call_type(e, &path, args, vars, callees) {
                return t;
            }
            if !path.contains('.') {
                if let Some(outs) = user_call_types(e, vars, callees)? {
                    return match outs.as_slice() {
                        [t] => Ok(Some(*t)),
                        _ => Err(Refusal::new(
                            e.span,
                            format!("`{path}` returns several values here"),
                        )),
                    };
                }
                // A function of the program whose argument types are not known yet.
                if callees.is_function(&path) {
                    return Ok(None);
                }
            }
            let mut tys = Vec::new();
            for a in args {
                // The name arguments of checks (`native_scalar(..., kind="check")`) are
                // strings.
                if matches!(a.kind, ExprKind::Str(_))
                    && callees.rules().native_scalar(&path) == Some(&NativeScalar::Check)
                {
                    continue;
                }
                if matches!(a.kind, ExprKind::NoneLit) {
                    return Err(Refusal::new(a.span, format!("`None` passed to `{path}`")));
                }
                let t = expr_type(a, vars, callees)?;
                if let Some(c) = t.filter(|t| t.is_container()) {
                    // Checks of arrays compare their shapes (codegen).
                    let check = callees.rules().native_scalar(&path) == Some(&NativeScalar::Check);
                    // The tape keeps arrays too (`array_types::ownership` says which).
                    let kept = path == "tangent.init_grad" || path == crate::tape::PUSH || check;
                    // Int64 arrays too: nothing writes them.
                    let read_only = path == crate::tape::PUSH && matches!(c, Ty::IntArray(_));
                    if !(kept && matches!(c, Ty::Array(_) | Ty::Array32(_)) || read_only) {
                        let what = if path.is_empty() {
                            "a call of a computed function".to_owned()
                        } else {
                            format!("`{path}`")
                        };
                        return Err(Refusal::new(a.span, format!("{what} of a {}", c.name())));
                    }
                }
                tys.push(t);
            }
            call_type(callees.rules(), &path, &tys, args.len(), e.span)?
        }
        ExprKind::Tuple(es) => {
            for x in es {
                expr_type(x, vars, callees)?;
            }
            None
        }
        ExprKind::List(_) => return Err(Refusal::new(e.span, "a list")),
        ExprKind::Dict(..) => return Err(Refusal::new(e.span, "a dict")),
        ExprKind::Subscript(base, index) => {
            if let Some(t) = dict_item_type(base, index, vars) {
                return t;
            }
            if containers::is_seq(base, vars) {
                return containers::seq_item_type(index, vars, callees);
            }
            match arrays::subscript_type(base, index, vars, callees) {
                Some(t) => t?,
                None => {
                    return Err(Refusal::new(
                        e.span,
                        "indexing something other than a float64 array",
                    ))
                }
            }
        }
        ExprKind::Slice(..) => return Err(Refusal::new(e.span, "a slice")),
        ExprKind::Lambda(..) => return Err(Refusal::new(e.span, "a lambda")),
        ExprKind::ListComp(..) => return Err(Refusal::new(e.span, "a list comprehension")),
    })
}

/// The type of `d['key']` for a dict `d` (None: `base` is not a dict).
fn dict_item_type(
    base: &Expr,
    index: &Expr,
    vars: &HashMap<String, VarTy>,
) -> Option<Result<Option<Ty>, Refusal>> {
    let Some(Ty::Dict(keys)) = base.as_name().and_then(|n| vars.get(n)).and_then(|v| v.ty) else {
        return None;
    };
    Some(match &index.kind {
        ExprKind::Str(k) if containers::key_index(keys, k).is_some() => Ok(Some(Ty::Float)),
        ExprKind::Str(k) => Err(Refusal::new(
            index.span,
            format!("the key {k:?}, which the dict does not have (Python raises KeyError)"),
        )),
        _ => Err(Refusal::new(
            index.span,
            "a dict read with a key that is not a string literal",
        )),
    })
}

/// The type of a call of a library function or a tangent helper on scalars: the engine's
/// own tape and gradient primitives, else what `native_scalar(...)` in `backends/`
/// declares.
fn call_type(
    rules: &RuleSet,
    path: &str,
    tys: &[Option<Ty>],
    n: usize,
    span: Span,
) -> Result<Option<Ty>, Refusal> {
    let all_known = tys.iter().all(|t| t.is_some());
    let first = tys.first().copied().flatten();
    if let Some(f) = path.strip_prefix("tangent.") {
        match f {
            "Stack" if n == 0 => return Ok(Some(Ty::Tape)),
            "push" if n == 2 => return Ok(None),
            "pop" if n == 1 => return Ok(None),
            "init_grad" if n == 1 => {
                return Ok(match first {
                    Some(t @ (Ty::Array(_) | Ty::Array32(_))) => Some(t),
                    _ => Some(Ty::Float),
                })
            }
            "add_grad" if n == 2 => {
                return Ok(match (tys[0], tys[1]) {
                    (Some(a), Some(b)) => arith_type(BinOp::Add, a, b),
                    (Some(a), None) | (None, Some(a)) => Some(a),
                    _ => None,
                })
            }
            _ => {}
        }
    }
    match rules.native_scalar(path) {
        Some(NativeScalar::Kernel { name, arity, .. }) => {
            return if *arity == n && super::runtime::kernel(name, n).is_some() {
                Ok(Some(Ty::Float))
            } else {
                Err(Refusal::new(
                    span,
                    format!("`{path}` of {n} arguments, which the native compiler does not know"),
                ))
            }
        }
        Some(NativeScalar::Identity | NativeScalar::Unbroadcast { .. }) if n >= 1 => {
            return Ok(first)
        }
        Some(NativeScalar::Sum) if n == 1 && first == Some(Ty::Float) => return Ok(first),
        Some(NativeScalar::Sign) if n == 1 => return Ok(Some(Ty::Float)),
        Some(NativeScalar::CastLike)
            if n == 2
                && matches!(first, Some(Ty::Float | Ty::Int | Ty::Bool))
                && matches!(tys.get(1), Some(Some(Ty::Float | Ty::Int | Ty::Bool))) =>
        {
            return Ok(Some(Ty::Float))
        }
        // `numpy.float32(x)`, `numpy.float64(x)` of a number.
        Some(NativeScalar::ScalarType { .. })
            if n == 1 && matches!(first, Some(Ty::Float | Ty::Int | Ty::Bool)) =>
        {
            return Ok(Some(Ty::Float))
        }
        Some(NativeScalar::Check) => return Ok(None),
        _ => {}
    }
    if path.starts_with("tangent.") {
        return Err(Refusal::new(
            span,
            format!("`{path}` on scalars is not compiled"),
        ));
    }
    match path {
        "float" if n == 1 => Ok(Some(Ty::Float)),
        "int" if n == 1 => Ok(Some(Ty::Int)),
        "bool" if n == 1 => Ok(Some(Ty::Bool)),
        // NumPy's bool's `abs` is itself (a bool, whose `+` is `or`); Python's is an int.
        "abs" if n == 1 && first == Some(Ty::Bool) => {
            Err(Refusal::new(span, "`abs` of a bool"))
        }
        "abs" if n == 1 => Ok(first),
        "min" | "max" if n == 2 => {
            if all_known && tys[0] != tys[1] {
                return Err(Refusal::new(span, format!("`{path}` of an int and a float")));
            }
            Ok(first.or(tys[1]))
        }
        "range" => Err(Refusal::new(span, "`range` outside a `for` loop header")),
        _ => Err(Refusal::new(span, format!("a call of `{path}` (only the functions declared `native_scalar` in backends/, a few builtins and tangent's scalar helpers are compiled)"))),
    }
}

/// The output types of a call of a user function of the program: None if the callee is
/// not one, or while an argument's type is unknown.
pub fn user_call_types(
    call: &Expr,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<Option<Vec<Ty>>, Refusal> {
    let ExprKind::Call { func, args, kwargs } = &call.kind else {
        return Ok(None);
    };
    let Some(name) = func.as_name().filter(|n| callees.is_function(n)) else {
        return Ok(None);
    };
    let mut pos = Vec::new();
    for a in args {
        match expr_type(a, vars, callees)? {
            Some(t) => pos.push(t),
            None => return Ok(None),
        }
    }
    let mut kw = Vec::new();
    for (k, a) in kwargs {
        match expr_type(a, vars, callees)? {
            Some(t) => kw.push((k.clone(), t)),
            None => return Ok(None),
        }
    }
    match callees.outputs(name, &pos, &kw) {
        Ok(outs) => Ok(outs),
        Err(r) if r.what.contains(" is not compiled: ") => Err(Refusal::new(call.span, r.what)),
        Err(r) => Err(Refusal::new(
            call.span,
            format!("`{name}` is not compiled: {}", r.what),
        )),
    }
}

/// The types of the values `def` returns (from its first return whose types are all
/// known; empty if it returns None).
pub fn return_types(
    def: &FuncDef,
    vars: &HashMap<String, VarTy>,
    callees: Callees,
) -> Result<Option<Vec<Ty>>, Refusal> {
    let mut found: Option<Vec<Ty>> = None;
    let mut err = None;
    walk_stmts(&def.body, &mut |s| {
        if found.is_some() || err.is_some() {
            return;
        }
        let items: Vec<&Expr> = match &s.kind {
            StmtKind::Return(None) => vec![],
            StmtKind::Return(Some(e)) => match &e.kind {
                ExprKind::NoneLit => vec![],
                ExprKind::Tuple(es) => es.iter().collect(),
                _ => vec![e],
            },
            _ => return,
        };
        let mut tys = Vec::new();
        for x in items {
            match expr_type(x, vars, callees) {
                Ok(Some(t)) => tys.push(t),
                Ok(None) => return,
                Err(r) => {
                    err = Some(r);
                    return;
                }
            }
        }
        found = Some(tys);
    });
    match err {
        Some(r) => Err(r),
        None => Ok(found),
    }
}
