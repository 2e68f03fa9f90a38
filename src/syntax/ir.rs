//! The small Python-subset IR every later stage works on. Each node keeps the byte span
//! of the user's source it came from (`Span::SYNTHETIC` for generated nodes) so that
//! errors found after lowering can still point at the user's code.

/// Byte range into the source file the function was read from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const SYNTHETIC: Span = Span { start: 0, end: 0 };
    pub fn is_synthetic(&self) -> bool {
        self.start == 0 && self.end == 0
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    MatMul,
    Div,
    FloorDiv,
    Mod,
    Pow,
}

impl BinOp {
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::MatMul => "@",
            BinOp::Div => "/",
            BinOp::FloorDiv => "//",
            BinOp::Mod => "%",
            BinOp::Pow => "**",
        }
    }
    /// The canonical name the rule tables use for this operator.
    pub fn canonical(self) -> &'static str {
        match self {
            BinOp::Add => "operator.add",
            BinOp::Sub => "operator.sub",
            BinOp::Mul => "operator.mul",
            BinOp::MatMul => "operator.matmul",
            BinOp::Div => "operator.truediv",
            BinOp::FloorDiv => "operator.floordiv",
            BinOp::Mod => "operator.mod",
            BinOp::Pow => "operator.pow",
        }
    }
    /// A word used to build readable temporary names (`x_times_y`).
    pub fn word(self) -> &'static str {
        match self {
            BinOp::Add => "plus",
            BinOp::Sub => "minus",
            BinOp::Mul => "times",
            BinOp::MatMul => "matmul",
            BinOp::Div => "over",
            BinOp::FloorDiv => "floordiv",
            BinOp::Mod => "mod",
            BinOp::Pow => "pow",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    Neg,
    Pos,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    Eq,
    NotEq,
    Lt,
    LtE,
    Gt,
    GtE,
    Is,
    IsNot,
    In,
    NotIn,
}

impl CmpOp {
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "==",
            CmpOp::NotEq => "!=",
            CmpOp::Lt => "<",
            CmpOp::LtE => "<=",
            CmpOp::Gt => ">",
            CmpOp::GtE => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BoolOp {
    And,
    Or,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Name(String),
    /// A number literal, kept as written (`1.0`, `2`, `1e-3`) so printing round-trips.
    Num(String),
    Bool(bool),
    NoneLit,
    Str(String),
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    /// `{k: v, ...}` with constant keys (literals, checked by lowering: they hold no
    /// names, so passes that look for names only visit the values).
    Dict(Vec<Expr>, Vec<Expr>),
    BinOp(BinOp, Box<Expr>, Box<Expr>),
    Unary(UnaryOp, Box<Expr>),
    Compare(Box<Expr>, Vec<(CmpOp, Expr)>),
    BoolOp(BoolOp, Vec<Expr>),
    Call {
        func: Box<Expr>,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
    Attr(Box<Expr>, String),
    Subscript(Box<Expr>, Box<Expr>),
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    IfExp {
        test: Box<Expr>,
        body: Box<Expr>,
        orelse: Box<Expr>,
    },
    /// `lambda a, b: body`; desugaring inlines it where it is called.
    Lambda(Vec<String>, Box<Expr>),
    /// `[elt for target in iter if cond ...]`; desugaring turns it into loops.
    ListComp(Box<Expr>, Vec<Comprehension>),
}

/// One `for target in iter if cond...` clause of a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    pub target: Expr,
    pub iter: Expr,
    pub ifs: Vec<Expr>,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
    pub fn synth(kind: ExprKind) -> Expr {
        Expr {
            kind,
            span: Span::SYNTHETIC,
        }
    }
    pub fn name(n: impl Into<String>) -> Expr {
        Expr::synth(ExprKind::Name(n.into()))
    }
    pub fn num(n: impl Into<String>) -> Expr {
        Expr::synth(ExprKind::Num(n.into()))
    }
    pub fn str_lit(s: impl Into<String>) -> Expr {
        Expr::synth(ExprKind::Str(s.into()))
    }
    pub fn attr(value: Expr, attr: &str) -> Expr {
        Expr::synth(ExprKind::Attr(Box::new(value), attr.to_owned()))
    }
    /// `module.func` built from a dotted path such as `tangent.push`.
    pub fn path(path: &str) -> Expr {
        let mut parts = path.split('.');
        let mut e = Expr::name(parts.next().unwrap_or(path));
        for p in parts {
            e = Expr::attr(e, p);
        }
        e
    }
    /// `module.func(args...)` built from a dotted path such as `tangent.push`.
    pub fn call_path(path: &str, args: Vec<Expr>) -> Expr {
        Expr::synth(ExprKind::Call {
            func: Box::new(Expr::path(path)),
            args,
            kwargs: vec![],
        })
    }
    pub fn as_name(&self) -> Option<&str> {
        match &self.kind {
            ExprKind::Name(n) => Some(n),
            _ => None,
        }
    }
    /// Names, literals and module constants: operands that need no ANF temporary.
    /// A number literal, a negative one (`-1`: a minus applied to a literal) included.
    pub fn is_number_literal(&self) -> bool {
        match &self.kind {
            ExprKind::Num(_) => true,
            ExprKind::Unary(UnaryOp::Neg, a) => matches!(a.kind, ExprKind::Num(_)),
            _ => false,
        }
    }
    pub fn is_atom(&self) -> bool {
        matches!(
            self.kind,
            ExprKind::Name(_)
                | ExprKind::Num(_)
                | ExprKind::Bool(_)
                | ExprKind::NoneLit
                | ExprKind::Str(_)
        )
    }
    /// The names an assignment to this target binds: a name, or the names of a tuple or
    /// list target (a subscript or attribute target binds none).
    pub fn bound_names(&self, f: &mut dyn FnMut(&str)) {
        match &self.kind {
            ExprKind::Name(n) => f(n),
            ExprKind::Tuple(es) | ExprKind::List(es) => es.iter().for_each(|e| e.bound_names(f)),
            _ => {}
        }
    }
    /// Every variable name read by this expression, in order of appearance.
    pub fn names(&self, out: &mut Vec<String>) {
        self.walk(&mut |e| {
            if let ExprKind::Name(n) = &e.kind {
                out.push(n.clone());
            }
        });
    }
    pub fn reads(&self, name: &str) -> bool {
        let mut found = false;
        self.walk(&mut |e| {
            if let ExprKind::Name(n) = &e.kind {
                found |= n == name;
            }
        });
        found
    }
    /// Pre-order traversal of this expression and all sub-expressions. The `func` of a call
    /// and the base of an attribute are visited too.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match &self.kind {
            ExprKind::Tuple(es)
            | ExprKind::List(es)
            | ExprKind::BoolOp(_, es)
            | ExprKind::Dict(_, es) => es.iter().for_each(|e| e.walk(f)),
            ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
                a.walk(f);
                b.walk(f)
            }
            ExprKind::Unary(_, a) | ExprKind::Attr(a, _) => a.walk(f),
            ExprKind::Compare(a, rest) => {
                a.walk(f);
                rest.iter().for_each(|(_, e)| e.walk(f))
            }
            ExprKind::Call { func, args, kwargs } => {
                func.walk(f);
                args.iter().for_each(|e| e.walk(f));
                kwargs.iter().for_each(|(_, e)| e.walk(f));
            }
            ExprKind::Slice(a, b, c) => {
                for e in [a, b, c].into_iter().flatten() {
                    e.walk(f)
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                test.walk(f);
                body.walk(f);
                orelse.walk(f)
            }
            ExprKind::Lambda(_, body) => body.walk(f),
            ExprKind::ListComp(elt, gens) => {
                elt.walk(f);
                for g in gens {
                    g.target.walk(f);
                    g.iter.walk(f);
                    g.ifs.iter().for_each(|e| e.walk(f));
                }
            }
            _ => {}
        }
    }
    /// Replaces every `Name` for which `f` returns Some.
    pub fn rename(&mut self, f: &dyn Fn(&str) -> Option<Expr>) {
        if let ExprKind::Name(n) = &self.kind {
            if let Some(new) = f(n) {
                *self = new;
            }
            return;
        }
        match &mut self.kind {
            ExprKind::Tuple(es)
            | ExprKind::List(es)
            | ExprKind::BoolOp(_, es)
            | ExprKind::Dict(_, es) => es.iter_mut().for_each(|e| e.rename(f)),
            ExprKind::BinOp(_, a, b) | ExprKind::Subscript(a, b) => {
                a.rename(f);
                b.rename(f)
            }
            ExprKind::Unary(_, a) | ExprKind::Attr(a, _) => a.rename(f),
            ExprKind::Compare(a, rest) => {
                a.rename(f);
                rest.iter_mut().for_each(|(_, e)| e.rename(f))
            }
            ExprKind::Call { func, args, kwargs } => {
                func.rename(f);
                args.iter_mut().for_each(|e| e.rename(f));
                kwargs.iter_mut().for_each(|(_, e)| e.rename(f));
            }
            ExprKind::Slice(a, b, c) => {
                for e in [a, b, c].into_iter().flatten() {
                    e.rename(f)
                }
            }
            ExprKind::IfExp { test, body, orelse } => {
                test.rename(f);
                body.rename(f);
                orelse.rename(f)
            }
            ExprKind::Lambda(_, body) => body.rename(f),
            ExprKind::ListComp(elt, gens) => {
                elt.rename(f);
                for g in gens {
                    g.target.rename(f);
                    g.iter.rename(f);
                    g.ifs.iter_mut().for_each(|e| e.rename(f));
                }
            }
            _ => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `target = value`; the target is a name, a tuple/list of targets or a subscript.
    Assign(Expr, Expr),
    AugAssign(Expr, BinOp, Expr),
    Return(Option<Expr>),
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `for target in iter: body` (no `else`).
    For(Expr, Expr, Vec<Stmt>),
    While(Expr, Vec<Stmt>),
    Break,
    Continue,
    Pass,
    /// An expression evaluated for its effect (a call such as `print(x)`).
    ExprStmt(Expr),
    /// `assert test, msg`: kept in the primal as written, never differentiated.
    Assert(Expr, Option<Expr>),
    /// `with cm as target, ...: body`, as lowered; `desugar::expand_with` replaces it
    /// before any pass (only context managers declared `transparent_context`).
    With(Vec<(Expr, Option<Expr>)>, Vec<Stmt>),
    /// A comment line in generated code (`# Grad of: ...`).
    Comment(String),
}

impl Stmt {
    pub fn new(kind: StmtKind, span: Span) -> Stmt {
        Stmt { kind, span }
    }
    pub fn synth(kind: StmtKind) -> Stmt {
        Stmt {
            kind,
            span: Span::SYNTHETIC,
        }
    }
    pub fn assign(target: &str, value: Expr) -> Stmt {
        Stmt::synth(StmtKind::Assign(Expr::name(target), value))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub default: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FuncDef {
    pub name: String,
    pub params: Vec<Param>,
    /// `*args`; only rule templates may have one.
    pub vararg: Option<String>,
    /// Where the keyword-only parameters begin (the `*` of `def f(x, *, k=1.0)`): the
    /// parameters from this index on, and those a derivative appends after them (seeds,
    /// tangents, passed by keyword), are keyword-only.
    pub kwonly: Option<usize>,
    /// The index in `params` of a user function's `*args` parameter (its value is the
    /// tuple of the extra positional arguments; the parameters after it are
    /// keyword-only). Rule templates keep theirs in `vararg`.
    pub star: Option<usize>,
    pub body: Vec<Stmt>,
    pub span: Span,
}

/// Visits every statement in a block, recursively, in source order.
pub fn walk_stmts<'a>(stmts: &'a [Stmt], f: &mut dyn FnMut(&'a Stmt)) {
    for s in stmts {
        f(s);
        match &s.kind {
            StmtKind::If(_, a, b) => {
                walk_stmts(a, f);
                walk_stmts(b, f)
            }
            StmtKind::For(_, _, body) | StmtKind::While(_, body) | StmtKind::With(_, body) => {
                walk_stmts(body, f)
            }
            _ => {}
        }
    }
}
