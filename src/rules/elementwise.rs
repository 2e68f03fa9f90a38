//! The elementwise table (`backends/elementwise.py`): each entry, a function with its
//! partial derivative, becomes an adjoint and a tangent template for every backend that
//! names the function.

use super::rule_file::{Arg, Registration};
use super::*;

impl RuleSet {
    /// An entry of the elementwise table: `def f(y, x): return <partial dy/dx>` with `B.`
    /// for the backend module, registered under `backend.name` for each `backend=name`.
    pub(super) fn add_elementwise(
        &mut self,
        def: &FuncDef,
        reg: &Registration,
        origin: &str,
        file: &str,
        text: &str,
    ) -> Result<(), Diagnostic> {
        let partial = match def.body.as_slice() {
            [Stmt {
                kind: StmtKind::Return(Some(e)),
                ..
            }] => e.clone(),
            _ => {
                return Err(Diagnostic::new(
                    def.span,
                    format!(
                        "elementwise entry `{}` must be a single `return <partial derivative>`",
                        def.name
                    ),
                    "write the derivative of the result with respect to the argument",
                ))
            }
        };
        let (y, x) = match def.params.as_slice() {
            [y, x] => (y.name.clone(), x.name.clone()),
            _ => {
                return Err(Diagnostic::new(
                    def.span,
                    format!(
                        "elementwise entry `{}` must take (result, argument)",
                        def.name
                    ),
                    "declare it as `def f(y, x):`",
                ))
            }
        };
        let grad = |v: &str| {
            Expr::synth(ExprKind::Subscript(
                Box::new(Expr::name("d")),
                Box::new(Expr::name(v)),
            ))
        };
        // `result="real"`: a function real for complex arguments (abs), whose tangent is
        // the real part of the product for a real result (`tangent.real_like`).
        let real_result = match reg.keyword(REAL_RESULT) {
            None => false,
            Some((_, Arg::Str(v), _)) if v == "real" => true,
            Some((_, _, at)) => {
                return Err(Diagnostic::new(
                    *at,
                    format!("`{REAL_RESULT}=` of elementwise entry `{}` is \"real\"", def.name),
                    "write `result=\"real\"` for a function real for complex arguments, or leave it out",
                )
                .locate(file, text))
            }
        };
        for (backend, fname, at) in reg.keywords.iter().filter(|k| k.0 != REAL_RESULT) {
            let (Arg::Name(fname) | Arg::Str(fname)) = fname else {
                return Err(Diagnostic::new(
                    *at,
                    format!(
                        "the elementwise entry `{}` names its function with a name",
                        def.name
                    ),
                    "write `numpy=tanh`",
                )
                .locate(file, text));
            };
            let backend = backend.trim_end_matches('_');
            // The module `B.` stands for: the function's own (`jax="numpy.tanh"`:
            // jax.numpy), read from the name as written, never from a list here.
            let key = format!("{backend}.{fname}");
            let module_path = key.rsplit_once('.').map_or(backend, |(m, _)| m);
            let module = module_path
                .split('.')
                .skip(1)
                .fold(Expr::name(backend), Expr::attr);
            let mut partial = partial.clone();
            substitute(&mut partial, &mut |e| match &e.kind {
                ExprKind::Attr(m, f) if m.as_name() == Some("B") => {
                    Some(Expr::attr(module.clone(), f))
                }
                _ => None,
            });
            let times = |g: Expr| scale(g, &partial);
            let template = |target: &str, source: &str, real: bool| Template {
                def: FuncDef {
                    name: def.name.clone(),
                    params: def.params.clone(),
                    vararg: None,
                    kwonly: None,
                    star: None,
                    body: vec![Stmt::synth(StmtKind::Assign(
                        grad(target),
                        if real {
                            Expr::call_path(
                                "tangent.real_like",
                                vec![times(grad(source)), Expr::name(target)],
                            )
                        } else {
                            times(grad(source))
                        },
                    ))],
                    span: def.span,
                },
                origin: origin.to_owned(),
            };
            self.register(Kind::Adjoint, &key, file, text, *at)?;
            self.register(Kind::Tangent, &key, file, text, *at)?;
            self.elementwise.insert(key.clone());
            self.adjoints.insert(key.clone(), template(&x, &y, false));
            self.tangents.insert(key, template(&y, &x, real_result));
        }
        Ok(())
    }
}

/// `g * partial`, written as a person would: `g / e` for a partial `1.0 / e`, `-g * e`
/// for `-e`.
fn scale(g: Expr, partial: &Expr) -> Expr {
    let bin = |op, a: Expr, b: Expr| Expr::synth(ExprKind::BinOp(op, Box::new(a), Box::new(b)));
    let neg = |a: Expr| Expr::synth(ExprKind::Unary(UnaryOp::Neg, Box::new(a)));
    let is_one = |e: &Expr| matches!(&e.kind, ExprKind::Num(n) if n == "1.0" || n == "1");
    match &partial.kind {
        _ if is_one(partial) => g,
        ExprKind::Unary(UnaryOp::Neg, inner) if is_one(inner) => neg(g),
        ExprKind::BinOp(BinOp::Div, num, den) if is_one(num) => bin(BinOp::Div, g, (**den).clone()),
        ExprKind::BinOp(BinOp::Div, num, den) if matches!(&num.kind, ExprKind::Unary(UnaryOp::Neg, one) if is_one(one)) => {
            bin(BinOp::Div, neg(g), (**den).clone())
        }
        ExprKind::Unary(UnaryOp::Neg, inner) => bin(BinOp::Mul, neg(g), (**inner).clone()),
        _ => bin(BinOp::Mul, g, partial.clone()),
    }
}

/// The keyword of an elementwise entry that marks a function real for complex arguments
/// (`result="real"`), not a backend.
const REAL_RESULT: &str = "result";
