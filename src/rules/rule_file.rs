//! The registrations of a rule file with their places: every `@adjoint(...)`,
//! `@tangent_(...)`, `@elementwise(...)` decorator and every top-level declaration call
//! (`nondifferentiable(...)`, `linear_in_first(...)`, `shape_only(...)`, ...), each
//! argument with its span, so that the loader can say where a name was registered (a
//! duplicate is an error located at the second registration, naming the first).

use crate::syntax::ir::Span;
use crate::syntax::module::{dotted, parse_python};
use crate::syntax::Diagnostic;
use ruff_python_ast as ast;
use ruff_text_size::Ranged;

/// One argument of a registration: a dotted name (`numpy.sum`), an integer, a string,
/// or a tuple of those (`(1, 2)`), as text.
#[derive(Clone, Debug, PartialEq)]
pub enum Arg {
    Name(String),
    Int(i64),
    Str(String),
    Tuple(Vec<Arg>),
}

impl Arg {
    pub fn as_name(&self) -> Option<&str> {
        match self {
            Arg::Name(n) => Some(n),
            _ => None,
        }
    }
}

/// A call written at the top level (a declaration) or as a decorator.
#[derive(Clone, Debug)]
pub struct Registration {
    /// The called name: `nondifferentiable`, `adjoint`, ...
    pub callee: String,
    /// Positional arguments with their spans.
    pub args: Vec<(Arg, Span)>,
    /// Keyword arguments with their spans.
    pub keywords: Vec<(String, Arg, Span)>,
    pub span: Span,
}

impl Registration {
    pub fn keyword(&self, key: &str) -> Option<&(String, Arg, Span)> {
        self.keywords.iter().find(|(k, _, _)| k == key)
    }
}

/// The registrations of one rule file.
#[derive(Default, Debug)]
pub struct RuleFile {
    /// Top-level declaration calls, in order.
    pub declarations: Vec<Registration>,
    /// Decorated top-level functions, in order: (function name, its decorators).
    pub decorated: Vec<(String, Vec<Registration>)>,
}

fn span(r: impl Ranged) -> Span {
    let r = r.range();
    Span {
        start: r.start().to_u32(),
        end: r.end().to_u32(),
    }
}

fn arg(e: &ast::Expr) -> Option<Arg> {
    match e {
        ast::Expr::NumberLiteral(n) => match &n.value {
            ast::Number::Int(i) => i.as_i64().map(Arg::Int),
            _ => None,
        },
        ast::Expr::StringLiteral(s) => Some(Arg::Str(s.value.to_str().to_owned())),
        ast::Expr::Tuple(t) => t
            .elts
            .iter()
            .map(arg)
            .collect::<Option<_>>()
            .map(Arg::Tuple),
        other => dotted(other).map(Arg::Name),
    }
}

fn registration(e: &ast::Expr, file: &str, text: &str) -> Result<Option<Registration>, Diagnostic> {
    let (func, arguments) = match e {
        ast::Expr::Call(c) => (&*c.func, Some(&c.arguments)),
        other => (other, None),
    };
    let Some(callee) = dotted(func) else {
        return Ok(None);
    };
    let mut reg = Registration {
        callee,
        args: vec![],
        keywords: vec![],
        span: span(e),
    };
    let unreadable = |e: &ast::Expr| {
        Diagnostic::new(
            span(e),
            format!("an argument of `{}` in a rule file must be a dotted name, an integer, a string or a tuple of those", reg.callee),
            "write the canonical name of the function (`numpy.sum`)",
        )
        .locate(file, text)
    };
    if let Some(a) = arguments {
        for x in a.args.iter() {
            reg.args
                .push((arg(x).ok_or_else(|| unreadable(x))?, span(x)));
        }
        for k in a.keywords.iter() {
            let Some(key) = &k.arg else {
                return Err(unreadable(&k.value));
            };
            let value = arg(&k.value).ok_or_else(|| unreadable(&k.value))?;
            reg.keywords
                .push((key.id.as_str().to_owned(), value, span(&k.value)));
        }
    }
    Ok(Some(reg))
}

impl RuleFile {
    /// Reads the registrations of a rule file (already known to parse).
    pub fn scan(file: &str, text: &str) -> Result<RuleFile, Diagnostic> {
        let module = parse_python(file, text)?;
        let mut out = RuleFile::default();
        for stmt in &module.body {
            match stmt {
                ast::Stmt::Expr(e) => {
                    if let ast::Expr::Call(_) = &*e.value {
                        if let Some(r) = registration(&e.value, file, text)? {
                            out.declarations.push(r);
                        }
                    }
                }
                ast::Stmt::FunctionDef(def) if !def.decorator_list.is_empty() => {
                    let mut regs = Vec::new();
                    for d in &def.decorator_list {
                        if let Some(r) = registration(&d.expression, file, text)? {
                            regs.push(r);
                        }
                    }
                    out.decorated.push((def.name.id.as_str().to_owned(), regs));
                }
                _ => {}
            }
        }
        Ok(out)
    }
}
