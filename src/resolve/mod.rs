//! Maps each call and attribute to a canonical qualified name ("numpy.tanh", "math.sin",
//! "numpy.ndarray.sum" for methods) or to a user function of the same module, using the
//! module's imports. Local variables shadow everything.

use crate::syntax::ir::*;
use crate::syntax::Diagnostic;
use std::collections::{HashMap, HashSet};

#[derive(Clone, Debug, PartialEq)]
pub enum Callee {
    /// A library function, by canonical name.
    Library(String),
    /// A method call on a value: canonical name `numpy.ndarray.<method>`.
    Method(String),
    /// A function defined in the same module (differentiated recursively).
    User(String),
    /// Something we cannot name (a local callable, an unknown global).
    Unknown(String),
}

const BUILTINS: &[&str] = &[
    "abs",
    "float",
    "int",
    "len",
    "range",
    "max",
    "min",
    "sum",
    "pow",
    "round",
    "bool",
    "isinstance",
    "print",
    "str",
    "type",
    "list",
    "tuple",
];

pub struct Resolver<'a> {
    pub imports: &'a HashMap<String, String>,
    /// Module-level names bound in more than one way (see `SourceModule::ambiguous`).
    pub ambiguous: &'a HashSet<String>,
    pub user_functions: HashSet<String>,
    /// Names assigned or bound as parameters in the function being transformed.
    pub locals: HashSet<String>,
}

impl Resolver<'_> {
    /// `np.linalg` -> `numpy.linalg` when the chain is rooted at an imported module.
    pub fn module_path(&self, e: &Expr) -> Option<String> {
        match &e.kind {
            ExprKind::Name(n) if !self.locals.contains(n) => self.imports.get(n).cloned(),
            ExprKind::Attr(v, a) => Some(format!("{}.{}", self.module_path(v)?, a)),
            _ => None,
        }
    }

    pub fn callee(&self, func: &Expr) -> Callee {
        match &func.kind {
            ExprKind::Name(n) => {
                if self.locals.contains(n) || self.ambiguous.contains(n) {
                    Callee::Unknown(n.clone())
                } else if self.user_functions.contains(n) && !self.imports.contains_key(n) {
                    Callee::User(n.clone())
                } else if let Some(q) = self.imports.get(n) {
                    Callee::Library(q.clone())
                } else if BUILTINS.contains(&n.as_str()) {
                    Callee::Library(format!("builtins.{n}"))
                } else {
                    Callee::Unknown(n.clone())
                }
            }
            ExprKind::Attr(v, m) => match self.module_path(v) {
                Some(path) => Callee::Library(format!("{path}.{m}")),
                // `np.sum(...)` with `np` bound in several ways is not a method call on
                // an array: what `np` is cannot be known here.
                None if v
                    .as_name()
                    .is_some_and(|n| self.ambiguous.contains(n) && !self.locals.contains(n)) =>
                {
                    Callee::Unknown(crate::emit::printer::expr(func))
                }
                None => Callee::Method(crate::ad::rules::RuleSet::builtin().array_member(m)),
            },
            _ => Callee::Unknown(crate::emit::printer::expr(func)),
        }
    }

    /// The error for a call of `name` that has neither a rule nor a user function
    /// (`decorator`: the registration to suggest, `adjoint` or `tangent_`).
    pub fn unknown_callee(&self, name: &str, span: Span, decorator: &str) -> Diagnostic {
        let root = name.split('.').next().unwrap_or(name);
        if self.ambiguous.contains(root) && !self.locals.contains(root) {
            return Diagnostic::new(
                span,
                format!("cannot differentiate a call to `{name}`: `{root}` is bound to different things at module level (imports in a `try` and its `except`, or an import and an assignment), so which function this is cannot be known"),
                format!("import `{root}` once at the top of the module, or give each alternative its own name"),
            );
        }
        Diagnostic::new(
            span,
            format!("cannot differentiate a call to `{name}`: it is not a function of this module and has no derivative rule"),
            format!("call a module-level function, a NumPy or math function, or register a rule with `@tangent.{decorator}`"),
        )
    }

    /// Is this expression a module constant such as `np.pi` or `math.e`?
    pub fn is_module_attr(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Attr(..)) && self.module_path(e).is_some()
    }
}
