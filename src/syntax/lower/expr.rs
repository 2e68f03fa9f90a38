//! Lowering of expressions (and assignment targets), f-strings included.

use super::{span, unsupported, Lowerer};
use crate::syntax::diag::Diagnostic;
use crate::syntax::ir::*;
use ruff_python_ast as ast;
use ruff_text_size::{Ranged, TextRange};

impl Lowerer<'_> {
    pub(super) fn target(&self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        match e {
            ast::Expr::Name(_) | ast::Expr::Subscript(_) => self.expr(e),
            ast::Expr::Tuple(t) => {
                let elts = t
                    .elts
                    .iter()
                    .map(|x| self.target(x))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::new(ExprKind::Tuple(elts), span(t.range)))
            }
            ast::Expr::List(t) => {
                let elts = t
                    .elts
                    .iter()
                    .map(|x| self.target(x))
                    .collect::<Result<_, _>>()?;
                Ok(Expr::new(ExprKind::Tuple(elts), span(t.range)))
            }
            ast::Expr::Attribute(a) if matches!(&*a.value, ast::Expr::Name(n) if Some(n.id.as_str()) == self.constructor.as_deref()) => {
                self.expr(e)
            }
            ast::Expr::Attribute(a) => Err(unsupported(
                a.range,
                "assignment to an attribute",
                "assign to a local variable and return it instead of mutating an object",
            )),
            ast::Expr::Starred(s) => Err(unsupported(
                s.range,
                "a starred assignment target",
                "unpack each element into its own name",
            )),
            other => Err(unsupported(
                other.range(),
                "this assignment target",
                "assign to a name, a tuple of names or a subscript",
            )),
        }
    }

    pub(super) fn binop(&self, op: ast::Operator, r: TextRange) -> Result<BinOp, Diagnostic> {
        Ok(match op {
            ast::Operator::Add => BinOp::Add,
            ast::Operator::Sub => BinOp::Sub,
            ast::Operator::Mult => BinOp::Mul,
            ast::Operator::MatMult => BinOp::MatMul,
            ast::Operator::Div => BinOp::Div,
            ast::Operator::FloorDiv => BinOp::FloorDiv,
            ast::Operator::Mod => BinOp::Mod,
            ast::Operator::Pow => BinOp::Pow,
            other => {
                return Err(unsupported(
                    r,
                    &format!("the bitwise operator `{}`", other.as_str()),
                    "bitwise operators have no derivative; compute integer values outside the differentiated function",
                ))
            }
        })
    }

    pub(super) fn exprs(&self, es: &[ast::Expr]) -> Result<Vec<Expr>, Diagnostic> {
        es.iter().map(|e| self.expr(e)).collect()
    }

    pub(super) fn boxed(&self, e: &ast::Expr) -> Result<Box<Expr>, Diagnostic> {
        Ok(Box::new(self.expr(e)?))
    }

    /// Lowers an expression, refusing nesting deeper than [`crate::stack::MAX_NESTING`]
    /// (counting statements and expressions) before recursing any further.
    pub(super) fn expr(&self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        self.nested(e.range(), || self.expr_inner(e))
    }

    /// An f-string as the `str.format` call it is equivalent to: `f"{x:.3f} {y!r}"` is
    /// `'{:.3f} {!r}'.format(x, y)` (nested fields of a format spec become nested `{}`,
    /// numbered in the order they open, as `str.format` numbers them; `{x=}` keeps its
    /// text). The result is a string: no derivative flows through it.
    fn fstring(&self, f: &ast::ExprFString) -> Result<Expr, Diagnostic> {
        let mut template = String::new();
        let mut args = Vec::new();
        for part in f.value.iter() {
            match part {
                ast::FStringPart::Literal(l) => escape_braces(&l.value, &mut template),
                ast::FStringPart::FString(fs) => {
                    self.fstring_elements(&fs.elements, &mut template, &mut args)?
                }
            }
        }
        let func = Expr::new(
            ExprKind::Attr(
                Box::new(Expr::new(ExprKind::Str(template), span(f.range))),
                "format".to_owned(),
            ),
            span(f.range),
        );
        Ok(Expr::new(
            ExprKind::Call {
                func: Box::new(func),
                args,
                kwargs: vec![],
            },
            span(f.range),
        ))
    }

    fn fstring_elements(
        &self,
        elements: &ast::InterpolatedStringElements,
        template: &mut String,
        args: &mut Vec<Expr>,
    ) -> Result<(), Diagnostic> {
        for element in elements.iter() {
            match element {
                ast::InterpolatedStringElement::Literal(l) => escape_braces(&l.value, template),
                ast::InterpolatedStringElement::Interpolation(i) => {
                    let r = i.expression.range();
                    let mut conversion = i.conversion;
                    if let Some(debug) = &i.debug_text {
                        // `{x=}`: the text, then repr(x) unless a conversion or spec says
                        let source = &self.text[r.start().to_usize()..r.end().to_usize()];
                        let shown = format!("{}{source}{}", debug.leading, debug.trailing);
                        escape_braces(&shown, template);
                        if conversion == ast::ConversionFlag::None && i.format_spec.is_none() {
                            conversion = ast::ConversionFlag::Repr;
                        }
                    }
                    template.push('{');
                    match conversion {
                        ast::ConversionFlag::None => {}
                        ast::ConversionFlag::Str => template.push_str("!s"),
                        ast::ConversionFlag::Ascii => template.push_str("!a"),
                        ast::ConversionFlag::Repr => template.push_str("!r"),
                    }
                    args.push(self.expr(&i.expression)?);
                    if let Some(spec) = &i.format_spec {
                        template.push(':');
                        self.fstring_elements(&spec.elements, template, args)?;
                    }
                    template.push('}');
                }
            }
        }
        Ok(())
    }

    fn expr_inner(&self, e: &ast::Expr) -> Result<Expr, Diagnostic> {
        let r = e.range();
        let kind = match e {
            ast::Expr::Name(n) => ExprKind::Name(n.id.as_str().to_owned()),
            // Complex literals (`1j`) too: complex values between real inputs and a real
            // result are differentiated by the NumPy rules (tangent._grads_complex), and
            // refused at run time by the rules written for real numbers only.
            ast::Expr::NumberLiteral(_) => {
                ExprKind::Num(self.text[r.start().to_usize()..r.end().to_usize()].to_owned())
            }
            ast::Expr::BooleanLiteral(b) => ExprKind::Bool(b.value),
            ast::Expr::NoneLiteral(_) => ExprKind::NoneLit,
            ast::Expr::StringLiteral(s) => ExprKind::Str(s.value.to_str().to_owned()),
            ast::Expr::Tuple(t) => ExprKind::Tuple(self.exprs(&t.elts)?),
            ast::Expr::List(l) => ExprKind::List(self.exprs(&l.elts)?),
            // `'%.3f' % x` formats: a string method, not the `%` of numbers
            ast::Expr::BinOp(b)
                if b.op == ast::Operator::Mod
                    && matches!(*b.left, ast::Expr::StringLiteral(_)) =>
            {
                let func = Expr::new(
                    ExprKind::Attr(self.boxed(&b.left)?, "__mod__".to_owned()),
                    span(b.left.range()),
                );
                ExprKind::Call {
                    func: Box::new(func),
                    args: vec![self.expr(&b.right)?],
                    kwargs: vec![],
                }
            }
            ast::Expr::BinOp(b) => ExprKind::BinOp(
                self.binop(b.op, b.range)?,
                self.boxed(&b.left)?,
                self.boxed(&b.right)?,
            ),
            ast::Expr::UnaryOp(u) => {
                let op = match u.op {
                    ast::UnaryOp::USub => UnaryOp::Neg,
                    ast::UnaryOp::UAdd => UnaryOp::Pos,
                    ast::UnaryOp::Not => UnaryOp::Not,
                    ast::UnaryOp::Invert => {
                        return Err(unsupported(
                            u.range,
                            "the bitwise operator `~`",
                            "use `not` for booleans or `-x - 1` for integers",
                        ))
                    }
                };
                ExprKind::Unary(op, self.boxed(&u.operand)?)
            }
            ast::Expr::Compare(c) => {
                let mut rest = Vec::new();
                for (op, rhs) in c.ops.iter().zip(c.comparators.iter()) {
                    let op = match op {
                        ast::CmpOp::Eq => CmpOp::Eq,
                        ast::CmpOp::NotEq => CmpOp::NotEq,
                        ast::CmpOp::Lt => CmpOp::Lt,
                        ast::CmpOp::LtE => CmpOp::LtE,
                        ast::CmpOp::Gt => CmpOp::Gt,
                        ast::CmpOp::GtE => CmpOp::GtE,
                        ast::CmpOp::Is => CmpOp::Is,
                        ast::CmpOp::IsNot => CmpOp::IsNot,
                        ast::CmpOp::In => CmpOp::In,
                        ast::CmpOp::NotIn => CmpOp::NotIn,
                    };
                    rest.push((op, self.expr(rhs)?));
                }
                ExprKind::Compare(self.boxed(&c.left)?, rest)
            }
            ast::Expr::BoolOp(b) => ExprKind::BoolOp(
                match b.op {
                    ast::BoolOp::And => BoolOp::And,
                    ast::BoolOp::Or => BoolOp::Or,
                },
                self.exprs(&b.values)?,
            ),
            ast::Expr::Call(c) => {
                let mut args = Vec::new();
                for a in c.arguments.args.iter() {
                    if let ast::Expr::Starred(s) = a {
                        return Err(unsupported(
                            s.range,
                            "a starred argument (`*args`) in a call",
                            "pass each argument explicitly",
                        ));
                    }
                    args.push(self.expr(a)?);
                }
                let mut kwargs = Vec::new();
                for k in c.arguments.keywords.iter() {
                    match &k.arg {
                        Some(name) => {
                            kwargs.push((name.id.as_str().to_owned(), self.expr(&k.value)?))
                        }
                        None => {
                            return Err(unsupported(
                                k.range,
                                "a `**kwargs` argument in a call",
                                "pass each keyword argument explicitly",
                            ))
                        }
                    }
                }
                ExprKind::Call {
                    func: self.boxed(&c.func)?,
                    args,
                    kwargs,
                }
            }
            ast::Expr::Attribute(a) => {
                ExprKind::Attr(self.boxed(&a.value)?, a.attr.id.as_str().to_owned())
            }
            ast::Expr::Subscript(s) => {
                ExprKind::Subscript(self.boxed(&s.value)?, self.boxed(&s.slice)?)
            }
            ast::Expr::Slice(s) => {
                let opt = |x: &Option<Box<ast::Expr>>| -> Result<Option<Box<Expr>>, Diagnostic> {
                    x.as_deref().map(|e| self.boxed(e)).transpose()
                };
                ExprKind::Slice(opt(&s.lower)?, opt(&s.upper)?, opt(&s.step)?)
            }
            ast::Expr::If(i) => ExprKind::IfExp {
                test: self.boxed(&i.test)?,
                body: self.boxed(&i.body)?,
                orelse: self.boxed(&i.orelse)?,
            },
            ast::Expr::EllipsisLiteral(_) => ExprKind::Name("Ellipsis".into()),
            ast::Expr::Lambda(l) => {
                let mut params = Vec::new();
                if let Some(p) = &l.parameters {
                    let simple = p.vararg.is_none()
                        && p.kwarg.is_none()
                        && p.kwonlyargs.is_empty()
                        && p.posonlyargs
                            .iter()
                            .chain(&p.args)
                            .all(|a| a.default.is_none());
                    if !simple {
                        return Err(unsupported(
                            l.range,
                            "a `lambda` with defaults or variable arguments",
                            "give the lambda plain positional parameters, or define a function with `def` at module level",
                        ));
                    }
                    params = p
                        .posonlyargs
                        .iter()
                        .chain(&p.args)
                        .map(|a| a.parameter.name.id.as_str().to_owned())
                        .collect();
                }
                ExprKind::Lambda(params, self.boxed(&l.body)?)
            }
            ast::Expr::ListComp(ast::ExprListComp {
                elt, generators, ..
            })
            // A generator expression is consumed where it is made (`sum(x ** i for i in
            // range(5))`, `max(...)`, `any(...)`): the list of its values is the same
            // sequence.
            | ast::Expr::Generator(ast::ExprGenerator {
                elt, generators, ..
            }) => {
                let mut gens = Vec::new();
                for g in generators {
                    if g.is_async {
                        return Err(unsupported(
                            g.range,
                            "an `async for` comprehension",
                            "use a plain comprehension",
                        ));
                    }
                    gens.push(Comprehension {
                        target: self.target(&g.target)?,
                        iter: self.expr(&g.iter)?,
                        ifs: self.exprs(&g.ifs)?,
                    });
                }
                ExprKind::ListComp(self.boxed(elt)?, gens)
            }
            ast::Expr::DictComp(d) => {
                return Err(unsupported(
                    d.range,
                    "a dict comprehension",
                    "build the values with a `for` loop",
                ))
            }
            ast::Expr::SetComp(d) => {
                return Err(unsupported(
                    d.range,
                    "a set comprehension",
                    "build the values with a `for` loop",
                ))
            }
            ast::Expr::Dict(d) => {
                let (mut keys, mut values) = (Vec::new(), Vec::new());
                for item in &d.items {
                    let Some(key) = &item.key else {
                        return Err(unsupported(
                            item.value.range(),
                            "a `**` unpacking in a dict literal",
                            "list each key explicitly",
                        ));
                    };
                    let k = self.expr(key)?;
                    if !matches!(
                        k.kind,
                        ExprKind::Str(_) | ExprKind::Num(_) | ExprKind::Bool(_) | ExprKind::NoneLit
                    ) {
                        return Err(unsupported(
                            key.range(),
                            "a dict literal with a computed key",
                            "use string or number literals as the keys of a dict built in the function",
                        ));
                    }
                    keys.push(k);
                    values.push(self.expr(&item.value)?);
                }
                ExprKind::Dict(keys, values)
            }
            ast::Expr::Set(d) => {
                return Err(unsupported(
                    d.range,
                    "a set literal",
                    "use a tuple or a list",
                ))
            }
            ast::Expr::Named(n) => {
                return Err(unsupported(
                    n.range,
                    "an assignment expression (`:=`)",
                    "assign the value in its own statement first",
                ))
            }
            ast::Expr::FString(f) => return self.fstring(f),
            ast::Expr::Yield(y) => {
                return Err(unsupported(
                    y.range,
                    "a `yield` (generator function)",
                    "return the values as a list or an array",
                ))
            }
            ast::Expr::YieldFrom(y) => {
                return Err(unsupported(
                    y.range,
                    "a `yield from` (generator function)",
                    "return the values as a list or an array",
                ))
            }
            ast::Expr::Await(a) => {
                return Err(unsupported(
                    a.range,
                    "an `await` expression",
                    "differentiate synchronous code",
                ))
            }
            ast::Expr::Starred(s) => {
                return Err(unsupported(
                    s.range,
                    "a starred expression",
                    "list the elements explicitly",
                ))
            }
            other => {
                return Err(unsupported(
                    other.range(),
                    "this expression",
                    "rewrite it with arithmetic, calls, subscripts and literals",
                ))
            }
        };
        Ok(Expr::new(kind, span(r)))
    }
}

/// Literal text of an f-string as `str.format` template text (braces doubled).
fn escape_braces(text: &str, template: &mut String) {
    for c in text.chars() {
        match c {
            '{' => template.push_str("{{"),
            '}' => template.push_str("}}"),
            c => template.push(c),
        }
    }
}
