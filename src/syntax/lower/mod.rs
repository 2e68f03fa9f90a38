//! Lowering of the differentiable subset to our IR (`Lowerer`, parsed by the parser
//! RustPython itself uses: `module.rs`). Lowering is also the fence: any construct
//! outside the subset is rejected here with a spanned diagnostic that says what to do
//! instead.

mod expr;

use super::diag::Diagnostic;
use super::ir::*;
use ruff_python_ast as ast;
use ruff_text_size::{Ranged, TextRange};
use std::cell::RefCell;

pub(super) fn span(r: TextRange) -> Span {
    Span {
        start: r.start().to_u32(),
        end: r.end().to_u32(),
    }
}

pub(super) struct Lowerer<'a> {
    text: &'a str,
    /// Rule templates may take `*args`.
    template: bool,
    /// How many statements and expressions enclose the one being lowered.
    depth: std::cell::Cell<usize>,
    /// The `def`s found at the top level of the function's body (lifted afterwards), when
    /// lowering a user function.
    nested: Option<RefCell<Vec<FuncDef>>>,
    /// How many statement blocks enclose the statement being lowered (1: the body).
    blocks: std::cell::Cell<usize>,
    /// The statements the lowering drops but must check against the whole function:
    /// `del`, `global`, `nonlocal` (see [`Lowerer::check_dropped`]).
    dropped: std::cell::RefCell<Vec<Dropped>>,
    /// The spans of the loops enclosing the statement being lowered.
    loops: std::cell::RefCell<Vec<Span>>,
    /// Lowering a class's `__init__` as a constructor (`syntax::constructor`): its first
    /// parameter, whose attributes may be assigned.
    constructor: Option<String>,
}

/// A statement the lowering leaves out of the IR.
struct Dropped {
    /// `del` (a local is unbound), else a `global`/`nonlocal` declaration.
    del: bool,
    name: String,
    /// The statement.
    span: Span,
    /// The innermost loop around a `del`.
    in_loop: Option<Span>,
}

/// The diagnostic for code nested deeper than the transformer's bound, at the construct
/// that crosses it.
pub(super) fn too_deep(r: TextRange) -> Diagnostic {
    Diagnostic::new(
        span(r),
        format!(
            "this code is nested too deeply: more than {} levels of expressions and statements (CPython refuses such code too: too many nested parentheses, or a RecursionError while compiling)",
            crate::stack::MAX_NESTING
        ),
        "split the expression into several statements with intermediate variables, e.g. a loop that adds one term per iteration",
    )
}

fn unsupported(r: TextRange, what: &str, hint: &str) -> Diagnostic {
    Diagnostic::new(span(r), format!("{what} cannot be differentiated"), hint)
}

impl<'a> Lowerer<'a> {
    /// A lowerer of the code in `text`: a rule template (which may take `*args`), or a
    /// user function (whose nested `def`s are gathered, `nested`), `constructor` its
    /// first parameter when it is an `__init__` lowered as a constructor.
    pub(super) fn new(text: &'a str, template: bool, constructor: Option<String>) -> Self {
        Lowerer {
            text,
            template,
            depth: Default::default(),
            nested: (!template).then(|| RefCell::new(Vec::new())),
            blocks: Default::default(),
            dropped: Default::default(),
            loops: Default::default(),
            constructor,
        }
    }

    /// The `def`s found at the top level of the lowered function's body.
    pub(super) fn into_nested(self) -> Vec<FuncDef> {
        self.nested.map(|n| n.into_inner()).unwrap_or_default()
    }

    pub(super) fn function(&self, def: &ast::StmtFunctionDef) -> Result<FuncDef, Diagnostic> {
        if def.is_async {
            return Err(unsupported(
                def.range,
                "an `async def`",
                "differentiate a plain `def` function",
            ));
        }
        let p = &def.parameters;
        let vararg = match &p.vararg {
            Some(v) if self.template => Some(v.name.id.as_str().to_owned()),
            _ => None,
        };
        if let Some(v) = &p.kwarg {
            return Err(unsupported(
                v.range,
                "a `**kwargs` parameter",
                "list each argument as a named positional parameter",
            ));
        }
        let mut params = Vec::new();
        for a in p.posonlyargs.iter().chain(&p.args) {
            params.push(Param {
                name: a.parameter.name.id.as_str().to_owned(),
                default: a.default.as_deref().map(|e| self.expr(e)).transpose()?,
            });
        }
        // A user function's `*args` is the parameter after the positional ones (the
        // tuple of the extra arguments); keyword-only parameters follow. Calls pass them
        // by name (`pipeline::check_call`) and derivatives keep them keyword-only.
        let star = match (&p.vararg, self.template) {
            (Some(v), false) => {
                params.push(Param {
                    name: v.name.id.as_str().to_owned(),
                    default: None,
                });
                Some(params.len() - 1)
            }
            _ => None,
        };
        let kwonly = match star {
            Some(s) => Some(s + 1),
            None => (!p.kwonlyargs.is_empty()).then_some(params.len()),
        };
        for a in &p.kwonlyargs {
            params.push(Param {
                name: a.parameter.name.id.as_str().to_owned(),
                default: a.default.as_deref().map(|e| self.expr(e)).transpose()?,
            });
        }
        let body = self.block(&def.body)?;
        self.check_dropped(&params, &body)?;
        Ok(FuncDef {
            name: def.name.id.as_str().to_owned(),
            params,
            vararg,
            kwonly,
            star,
            body,
            span: span(def.range),
        })
    }

    /// The statements the lowering left out hold for the whole function: a `del`'d
    /// local is never read after it (the derivative keeps every value, so a read that
    /// raises `NameError` in the primal would give a number here), and a name declared
    /// `global`/`nonlocal` is only read (a write would change the caller's state).
    fn check_dropped(&self, params: &[Param], body: &[Stmt]) -> Result<(), Diagnostic> {
        let dropped = self.dropped.borrow();
        if dropped.is_empty() {
            return Ok(());
        }
        let mut bound: Vec<(String, Span)> = Vec::new();
        let mut reads: Vec<(String, Span)> = Vec::new();
        // Names each loop body (by the loop's span) binds unconditionally, at its top
        // level, with where.
        let mut rebound: Vec<(Span, String, Span)> = Vec::new();
        walk_stmts(body, &mut |s| {
            if let StmtKind::For(_, _, b) | StmtKind::While(_, b) = &s.kind {
                for t in b {
                    if let StmtKind::Assign(target, _) = &t.kind {
                        target.bound_names(&mut |n| rebound.push((s.span, n.to_owned(), t.span)));
                    }
                }
            }
            let mut read = |e: &Expr| {
                e.walk(&mut |x| {
                    if let ExprKind::Name(n) = &x.kind {
                        reads.push((n.clone(), x.span));
                    }
                })
            };
            match &s.kind {
                StmtKind::Assign(t, v) => {
                    t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                    if !matches!(t.kind, ExprKind::Name(_)) {
                        read(t);
                    }
                    read(v);
                }
                StmtKind::AugAssign(t, _, v) => {
                    t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                    read(t);
                    read(v);
                }
                StmtKind::For(t, it, _) => {
                    t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                    read(it);
                }
                StmtKind::With(items, _) => {
                    for (cm, target) in items {
                        read(cm);
                        if let Some(t) = target {
                            t.bound_names(&mut |n| bound.push((n.to_owned(), t.span)));
                        }
                    }
                }
                StmtKind::If(e, ..)
                | StmtKind::While(e, _)
                | StmtKind::Return(Some(e))
                | StmtKind::ExprStmt(e) => read(e),
                StmtKind::Assert(t, m) => {
                    read(t);
                    if let Some(m) = m {
                        read(m);
                    }
                }
                _ => {}
            }
        });
        for d in dropped.iter() {
            if d.del {
                let local = params.iter().any(|p| p.name == d.name)
                    || bound.iter().any(|(n, _)| *n == d.name);
                if !local {
                    return Err(Diagnostic::new(
                        d.span,
                        format!("`del {}` of a name the function does not assign", d.name),
                        "remove the `del`; a global cannot be unbound from a differentiated function",
                    ));
                }
                // In a loop, a read before the `del` sees the next iteration's value
                // only if the loop body assigns the name before it.
                let assigned_before = |at: Span, l: Span| {
                    rebound
                        .iter()
                        .any(|(lp, n, sp)| *lp == l && *n == d.name && sp.end <= at.start)
                };
                let later = reads.iter().find(|(n, sp)| {
                    *n == d.name
                        && (sp.start >= d.span.end
                            || d.in_loop.is_some_and(|l| {
                                sp.start >= l.start && sp.end <= l.end && !assigned_before(*sp, l)
                            }))
                });
                if let Some((_, sp)) = later {
                    return Err(Diagnostic::new(
                        *sp,
                        format!(
                            "`{}` is read after (or, in a loop, around) a `del {}`",
                            d.name, d.name
                        ),
                        "remove the `del`, or read the value before it: the derivative keeps every value, so it cannot reproduce the `NameError`",
                    ));
                }
            } else if let Some((_, sp)) = bound.iter().find(|(n, _)| *n == d.name) {
                return Err(Diagnostic::new(
                    *sp,
                    format!(
                        "assignment to `{}`, declared `global`/`nonlocal` at line {}",
                        d.name,
                        self.line_of(d.span.start)
                    ),
                    "only reads of a global are differentiated: return the new value and assign it outside the function",
                ));
            }
        }
        Ok(())
    }

    fn line_of(&self, offset: u32) -> usize {
        let end = (offset as usize).min(self.text.len());
        self.text[..end].matches('\n').count() + 1
    }

    fn block(&self, stmts: &[ast::Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        self.blocks.set(self.blocks.get() + 1);
        let out = self.block_inner(stmts);
        self.blocks.set(self.blocks.get() - 1);
        out
    }

    fn block_inner(&self, stmts: &[ast::Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        let mut out = Vec::new();
        for s in stmts {
            // A docstring (or any bare string) is documentation, not computation.
            if let ast::Stmt::Expr(e) = s {
                if matches!(*e.value, ast::Expr::StringLiteral(_)) {
                    continue;
                }
            }
            // `del`, `global` and `nonlocal` leave nothing to run (checked against the
            // whole function by `check_dropped`).
            match s {
                ast::Stmt::Delete(d) => {
                    self.delete(d)?;
                    continue;
                }
                ast::Stmt::Global(ast::StmtGlobal { names, range, .. })
                | ast::Stmt::Nonlocal(ast::StmtNonlocal { names, range, .. }) => {
                    for n in names {
                        self.dropped.borrow_mut().push(Dropped {
                            del: false,
                            name: n.id.as_str().to_owned(),
                            span: span(*range),
                            in_loop: None,
                        });
                    }
                    continue;
                }
                _ => {}
            }
            out.push(self.stmt(s)?);
        }
        Ok(out)
    }

    fn stmt(&self, s: &ast::Stmt) -> Result<Stmt, Diagnostic> {
        self.nested(s.range(), || self.stmt_inner(s))
    }

    /// `del x, y` of locals: nothing runs (the derivative may still need the values).
    fn delete(&self, d: &ast::StmtDelete) -> Result<(), Diagnostic> {
        for t in &d.targets {
            let ast::Expr::Name(n) = t else {
                return Err(unsupported(
                    t.range(),
                    "a `del` of an element or attribute",
                    "build a new value without the element instead of mutating the object",
                ));
            };
            self.dropped.borrow_mut().push(Dropped {
                del: true,
                name: n.id.as_str().to_owned(),
                span: span(d.range),
                in_loop: self.loops.borrow().last().copied(),
            });
        }
        Ok(())
    }

    /// A loop body, with the loop's span known to the `del`s inside it.
    fn loop_body(&self, r: TextRange, stmts: &[ast::Stmt]) -> Result<Vec<Stmt>, Diagnostic> {
        self.loops.borrow_mut().push(span(r));
        let out = self.block(stmts);
        self.loops.borrow_mut().pop();
        out
    }

    fn stmt_inner(&self, s: &ast::Stmt) -> Result<Stmt, Diagnostic> {
        let sp = span(s.range());
        let kind = match s {
            ast::Stmt::Assign(a) => {
                if a.targets.len() != 1 {
                    return Err(unsupported(
                        a.range,
                        "a chained assignment (`a = b = ...`)",
                        "split it into one assignment per target",
                    ));
                }
                StmtKind::Assign(self.target(&a.targets[0])?, self.expr(&a.value)?)
            }
            ast::Stmt::AnnAssign(a) => match &a.value {
                Some(v) => StmtKind::Assign(self.target(&a.target)?, self.expr(v)?),
                None => StmtKind::Pass,
            },
            ast::Stmt::AugAssign(a) => {
                let op = self.binop(a.op, a.range)?;
                StmtKind::AugAssign(self.target(&a.target)?, op, self.expr(&a.value)?)
            }
            ast::Stmt::Return(r) => {
                StmtKind::Return(r.value.as_deref().map(|e| self.expr(e)).transpose()?)
            }
            ast::Stmt::If(i) => {
                let test = self.expr(&i.test)?;
                let body = self.block(&i.body)?;
                let orelse = self.elif_chain(&i.elif_else_clauses)?;
                StmtKind::If(test, body, orelse)
            }
            ast::Stmt::For(f) => {
                if f.is_async {
                    return Err(unsupported(
                        f.range,
                        "an `async for` loop",
                        "use a plain `for` loop",
                    ));
                }
                if let Some(first) = f.orelse.first() {
                    return Err(unsupported(
                        first.range(),
                        "the `else` clause of a `for` loop",
                        "set a flag before `break` and test it after the loop instead",
                    ));
                }
                StmtKind::For(
                    self.target(&f.target)?,
                    self.expr(&f.iter)?,
                    self.loop_body(f.range, &f.body)?,
                )
            }
            ast::Stmt::While(w) => {
                if let Some(first) = w.orelse.first() {
                    return Err(unsupported(
                        first.range(),
                        "the `else` clause of a `while` loop",
                        "set a flag before `break` and test it after the loop instead",
                    ));
                }
                StmtKind::While(self.expr(&w.test)?, self.loop_body(w.range, &w.body)?)
            }
            ast::Stmt::Break(_) => StmtKind::Break,
            ast::Stmt::Continue(_) => StmtKind::Continue,
            ast::Stmt::Pass(_) => StmtKind::Pass,
            ast::Stmt::Expr(e) => StmtKind::ExprStmt(self.expr(&e.value)?),
            ast::Stmt::FunctionDef(d) => match &self.nested {
                Some(nested) if self.blocks.get() == 1 && d.decorator_list.is_empty() => {
                    let inner = Lowerer {
                        text: self.text,
                        template: false,
                        depth: self.depth.clone(),
                        nested: None,
                        blocks: Default::default(),
                        dropped: Default::default(),
                        loops: Default::default(),
                        constructor: None,
                    };
                    let def = inner.function(d)?;
                    nested.borrow_mut().push(def);
                    StmtKind::Pass
                }
                _ => {
                    let (what, hint) = if !d.decorator_list.is_empty() {
                        (
                            "a decorated nested function",
                            "remove the decorator, or define the function at module level",
                        )
                    } else if self.nested.is_some() {
                        ("a function defined inside a block (`if`, a loop)", "define the nested function at the top of the enclosing function's body")
                    } else {
                        ("a function nested two levels deep", "define the inner function in the enclosing function or at module level")
                    };
                    return Err(Diagnostic::new(
                        span(d.range),
                        format!(
                            "`{}` is {what}, which cannot be differentiated",
                            d.name.id.as_str()
                        ),
                        hint,
                    ));
                }
            },
            ast::Stmt::ClassDef(c) => {
                return Err(unsupported(
                    c.range,
                    "a class definition inside the function",
                    "define the class at module level",
                ))
            }
            ast::Stmt::With(w) => {
                if w.is_async {
                    return Err(unsupported(
                        w.range,
                        "an `async with` block",
                        "use a plain `with` block",
                    ));
                }
                let mut items = Vec::new();
                for item in &w.items {
                    let target = match item.optional_vars.as_deref() {
                        None => None,
                        Some(v @ ast::Expr::Name(_)) => Some(self.expr(v)?),
                        Some(other) => {
                            return Err(unsupported(
                                other.range(),
                                "this `as` target of a `with`",
                                "bind the context to a single name",
                            ))
                        }
                    };
                    items.push((self.expr(&item.context_expr)?, target));
                }
                StmtKind::With(items, self.block(&w.body)?)
            }
            ast::Stmt::Try(t) => {
                return Err(unsupported(
                    t.range,
                    "a `try` statement",
                    "check the condition with `if` instead of catching an exception",
                ))
            }
            ast::Stmt::Raise(r) => {
                return Err(unsupported(
                    r.range,
                    "a `raise` statement",
                    "validate the inputs before calling the differentiated function",
                ))
            }
            ast::Stmt::Assert(a) => StmtKind::Assert(
                self.expr(&a.test)?,
                a.msg.as_deref().map(|m| self.expr(m)).transpose()?,
            ),
            ast::Stmt::Import(i) => {
                return Err(unsupported(
                    i.range,
                    "an `import` inside the function",
                    "move the import to the top of the module",
                ))
            }
            ast::Stmt::ImportFrom(i) => {
                return Err(unsupported(
                    i.range,
                    "an `import` inside the function",
                    "move the import to the top of the module",
                ))
            }
            ast::Stmt::Match(m) => {
                return Err(unsupported(
                    m.range,
                    "a `match` statement",
                    "rewrite it as an `if`/`elif` chain",
                ))
            }
            other => {
                return Err(unsupported(
                    other.range(),
                    "this statement",
                    "rewrite it with assignments, `if`, `for` and `while`",
                ))
            }
        };
        Ok(Stmt::new(kind, sp))
    }

    fn elif_chain(&self, clauses: &[ast::ElifElseClause]) -> Result<Vec<Stmt>, Diagnostic> {
        let Some((first, rest)) = clauses.split_first() else {
            return Ok(vec![]);
        };
        match &first.test {
            None => self.block(&first.body),
            Some(test) => {
                let kind = StmtKind::If(
                    self.expr(test)?,
                    self.block(&first.body)?,
                    self.elif_chain(rest)?,
                );
                Ok(vec![Stmt::new(kind, span(first.range))])
            }
        }
    }

    fn nested<T>(
        &self,
        r: TextRange,
        f: impl FnOnce() -> Result<T, Diagnostic>,
    ) -> Result<T, Diagnostic> {
        let depth = self.depth.get() + 1;
        if depth > crate::stack::MAX_NESTING {
            return Err(too_deep(r));
        }
        self.depth.set(depth);
        let out = f();
        self.depth.set(depth - 1);
        out
    }
}
