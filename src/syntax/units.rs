//! The code units of a file: every `def` and `lambda`, wherever it is (module level,
//! inside functions, in class bodies), in source order. A function object's code was
//! compiled from one of them; a host names it by the code's name, first line and ordinal
//! among the units of that name starting on that line (two lambdas on one line).

use ruff_python_ast as ast;
use ruff_python_ast::visitor::{self, Visitor};
use ruff_text_size::Ranged;

/// One `def` or `lambda` (as the `def` it is equivalent to: `return <body>`).
pub struct Unit {
    /// The code's name: the `def` name, or `<lambda>`.
    pub name: String,
    /// The lines a code object of this unit may report as its first: the first
    /// decorator's (CPython) and the `def` keyword's (RustPython).
    pub lines: [u32; 2],
    pub def: ast::StmtFunctionDef,
    /// The enclosing `def` or `class` name, for messages (None at module level).
    pub enclosing: Option<String>,
}

pub const LAMBDA: &str = "<lambda>";

/// Every code unit of `module`, in source order (outer before inner).
pub fn collect(module: &ast::ModModule, text: &str) -> Vec<Unit> {
    let mut c = Collector {
        newlines: text
            .bytes()
            .enumerate()
            .filter(|(_, b)| *b == b'\n')
            .map(|(i, _)| i as u32)
            .collect(),
        units: Vec::new(),
        scope: Vec::new(),
    };
    for s in &module.body {
        c.visit_stmt(s);
    }
    c.units
}

/// The unit `name` whose code starts at `line`, the `ordinal`-th such in source order.
pub fn find<'u>(units: &'u [Unit], name: &str, line: u32, ordinal: usize) -> Option<&'u Unit> {
    units
        .iter()
        .filter(|u| u.name == name && u.lines.contains(&line))
        .nth(ordinal)
}

struct Collector {
    /// Offsets of the text's newlines: a unit's line by binary search (a file has
    /// thousands of units; counting from the start for each was quadratic).
    newlines: Vec<u32>,
    units: Vec<Unit>,
    scope: Vec<String>,
}

impl Collector {
    fn line_of(&self, offset: u32) -> u32 {
        1 + self.newlines.partition_point(|&n| n < offset) as u32
    }
}

impl<'a> Visitor<'a> for Collector {
    fn visit_stmt(&mut self, stmt: &'a ast::Stmt) {
        match stmt {
            ast::Stmt::FunctionDef(d) => {
                self.units.push(Unit {
                    name: d.name.id.as_str().to_owned(),
                    lines: [
                        self.line_of(d.range.start().to_u32()),
                        self.line_of(d.name.range.start().to_u32()),
                    ],
                    def: d.clone(),
                    enclosing: self.scope.last().cloned(),
                });
                self.scope.push(d.name.id.as_str().to_owned());
                visitor::walk_stmt(self, stmt);
                self.scope.pop();
            }
            ast::Stmt::ClassDef(c) => {
                self.scope.push(c.name.id.as_str().to_owned());
                visitor::walk_stmt(self, stmt);
                self.scope.pop();
            }
            _ => visitor::walk_stmt(self, stmt),
        }
    }

    fn visit_expr(&mut self, expr: &'a ast::Expr) {
        if let ast::Expr::Lambda(l) = expr {
            let line = self.line_of(l.range.start().to_u32());
            self.units.push(Unit {
                name: LAMBDA.to_owned(),
                lines: [line, line],
                def: lambda_def(l),
                enclosing: self.scope.last().cloned(),
            });
        }
        visitor::walk_expr(self, expr);
    }
}

/// `lambda params: body` as `def lambda_(params): return body`, spans kept.
fn lambda_def(l: &ast::ExprLambda) -> ast::StmtFunctionDef {
    let parameters = l.parameters.clone().unwrap_or_else(|| {
        Box::new(ast::Parameters {
            range: l.range,
            node_index: Default::default(),
            posonlyargs: vec![],
            args: vec![],
            vararg: None,
            kwonlyargs: vec![],
            kwarg: None,
        })
    });
    let ret = ast::Stmt::Return(ast::StmtReturn {
        node_index: Default::default(),
        range: l.body.range(),
        value: Some(l.body.clone()),
    });
    ast::StmtFunctionDef {
        node_index: Default::default(),
        range: l.range,
        is_async: false,
        decorator_list: vec![],
        name: ast::Identifier::new("lambda_", l.range),
        type_params: None,
        parameters,
        returns: None,
        body: vec![ret],
    }
}
