//! Maps each call and attribute to a canonical qualified name ("numpy.tanh", "math.sin",
//! "numpy.ndarray.sum" for methods) or to a user function of the same module, using the
//! module's imports. Local variables shadow everything.

use crate::syntax::ir::*;
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
                if self.locals.contains(n) {
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
                None => Callee::Method(format!("numpy.ndarray.{m}")),
            },
            _ => Callee::Unknown(crate::emit::printer::expr(func)),
        }
    }

    /// Is this expression a module constant such as `np.pi` or `math.e`?
    pub fn is_module_attr(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Attr(..)) && self.module_path(e).is_some()
    }
}
